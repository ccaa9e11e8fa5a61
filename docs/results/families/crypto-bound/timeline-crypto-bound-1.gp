set terminal pngcairo size 1600,1020
set output '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1.png'
set multiplot layout 3,2
set key outside right
set xlabel 'simulated time (us)'
set autoscale xfix
set title 'crypto-bound-1: per-tenant bandwidth, fifo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-bandwidth.dat' using 1:2 with lines title 't00-vgg16-a100', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-bandwidth.dat' using 1:3 with lines title 't01-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-bandwidth.dat' using 1:4 with lines title 't02-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-bandwidth.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-bandwidth.dat' using 1:6 with lines title 't04-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-bandwidth.dat' using 1:7 with lines title 't05-fl'
set title 'crypto-bound-1: share of the crypto slots, fifo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-crypto.dat' using 1:2 with lines title 't00-vgg16-a100', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-crypto.dat' using 1:3 with lines title 't01-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-crypto.dat' using 1:4 with lines title 't02-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-crypto.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-crypto.dat' using 1:6 with lines title 't04-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-fifo-crypto.dat' using 1:7 with lines title 't05-fl'
set title 'crypto-bound-1: per-tenant bandwidth, progress+guard'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-bandwidth.dat' using 1:2 with lines title 't00-vgg16-a100', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-bandwidth.dat' using 1:3 with lines title 't01-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-bandwidth.dat' using 1:4 with lines title 't02-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-bandwidth.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-bandwidth.dat' using 1:6 with lines title 't04-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-bandwidth.dat' using 1:7 with lines title 't05-fl'
set title 'crypto-bound-1: share of the crypto slots, progress+guard'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-crypto.dat' using 1:2 with lines title 't00-vgg16-a100', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-crypto.dat' using 1:3 with lines title 't01-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-crypto.dat' using 1:4 with lines title 't02-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-crypto.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-crypto.dat' using 1:6 with lines title 't04-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-progress_guard-crypto.dat' using 1:7 with lines title 't05-fl'
set title 'crypto-bound-1: per-tenant bandwidth, ppo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-bandwidth.dat' using 1:2 with lines title 't00-vgg16-a100', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-bandwidth.dat' using 1:3 with lines title 't01-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-bandwidth.dat' using 1:4 with lines title 't02-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-bandwidth.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-bandwidth.dat' using 1:6 with lines title 't04-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-bandwidth.dat' using 1:7 with lines title 't05-fl'
set title 'crypto-bound-1: share of the crypto slots, ppo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-crypto.dat' using 1:2 with lines title 't00-vgg16-a100', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-crypto.dat' using 1:3 with lines title 't01-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-crypto.dat' using 1:4 with lines title 't02-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-crypto.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-crypto.dat' using 1:6 with lines title 't04-fl', '/work/resrun/docs/results/families/crypto-bound/timeline-crypto-bound-1-ppo-crypto.dat' using 1:7 with lines title 't05-fl'
unset multiplot
