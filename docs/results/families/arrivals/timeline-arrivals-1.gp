set terminal pngcairo size 1600,1020
set output '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1.png'
set multiplot layout 3,2
set key outside right
set xlabel 'simulated time (us)'
set autoscale xfix
set title 'arrivals-1: per-tenant bandwidth, fifo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-bandwidth.dat' using 1:2 with lines title 't00-gpt2-xl-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-bandwidth.dat' using 1:3 with lines title 't01-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-bandwidth.dat' using 1:4 with lines title 't02-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-bandwidth.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-bandwidth.dat' using 1:6 with lines title 't04-bert-large-a100'
set title 'arrivals-1: share of the crypto slots, fifo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-crypto.dat' using 1:2 with lines title 't00-gpt2-xl-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-crypto.dat' using 1:3 with lines title 't01-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-crypto.dat' using 1:4 with lines title 't02-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-crypto.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-fifo-crypto.dat' using 1:6 with lines title 't04-bert-large-a100'
set title 'arrivals-1: per-tenant bandwidth, progress'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-bandwidth.dat' using 1:2 with lines title 't00-gpt2-xl-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-bandwidth.dat' using 1:3 with lines title 't01-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-bandwidth.dat' using 1:4 with lines title 't02-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-bandwidth.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-bandwidth.dat' using 1:6 with lines title 't04-bert-large-a100'
set title 'arrivals-1: share of the crypto slots, progress'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-crypto.dat' using 1:2 with lines title 't00-gpt2-xl-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-crypto.dat' using 1:3 with lines title 't01-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-crypto.dat' using 1:4 with lines title 't02-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-crypto.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-progress-crypto.dat' using 1:6 with lines title 't04-bert-large-a100'
set title 'arrivals-1: per-tenant bandwidth, ppo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-bandwidth.dat' using 1:2 with lines title 't00-gpt2-xl-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-bandwidth.dat' using 1:3 with lines title 't01-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-bandwidth.dat' using 1:4 with lines title 't02-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-bandwidth.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-bandwidth.dat' using 1:6 with lines title 't04-bert-large-a100'
set title 'arrivals-1: share of the crypto slots, ppo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-crypto.dat' using 1:2 with lines title 't00-gpt2-xl-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-crypto.dat' using 1:3 with lines title 't01-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-crypto.dat' using 1:4 with lines title 't02-resnet50-a100', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-crypto.dat' using 1:5 with lines title 't03-fl', '/work/resrun/docs/results/families/arrivals/timeline-arrivals-1-ppo-crypto.dat' using 1:6 with lines title 't04-bert-large-a100'
unset multiplot
