set terminal pngcairo size 1600,1020
set output '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1.png'
set multiplot layout 3,2
set key outside right
set xlabel 'simulated time (us)'
set autoscale xfix
set title 'comm-heavy-1: per-tenant bandwidth, fifo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-bandwidth.dat' using 1:2 with lines title 't00-gpt2-xl-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-bandwidth.dat' using 1:3 with lines title 't01-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-bandwidth.dat' using 1:4 with lines title 't02-bert-large-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-bandwidth.dat' using 1:5 with lines title 't03-gpt2-xl-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-bandwidth.dat' using 1:6 with lines title 't04-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-bandwidth.dat' using 1:7 with lines title 't05-vgg16-a100'
set title 'comm-heavy-1: share of the crypto slots, fifo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-crypto.dat' using 1:2 with lines title 't00-gpt2-xl-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-crypto.dat' using 1:3 with lines title 't01-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-crypto.dat' using 1:4 with lines title 't02-bert-large-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-crypto.dat' using 1:5 with lines title 't03-gpt2-xl-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-crypto.dat' using 1:6 with lines title 't04-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fifo-crypto.dat' using 1:7 with lines title 't05-vgg16-a100'
set title 'comm-heavy-1: per-tenant bandwidth, fair'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-bandwidth.dat' using 1:2 with lines title 't00-gpt2-xl-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-bandwidth.dat' using 1:3 with lines title 't01-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-bandwidth.dat' using 1:4 with lines title 't02-bert-large-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-bandwidth.dat' using 1:5 with lines title 't03-gpt2-xl-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-bandwidth.dat' using 1:6 with lines title 't04-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-bandwidth.dat' using 1:7 with lines title 't05-vgg16-a100'
set title 'comm-heavy-1: share of the crypto slots, fair'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-crypto.dat' using 1:2 with lines title 't00-gpt2-xl-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-crypto.dat' using 1:3 with lines title 't01-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-crypto.dat' using 1:4 with lines title 't02-bert-large-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-crypto.dat' using 1:5 with lines title 't03-gpt2-xl-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-crypto.dat' using 1:6 with lines title 't04-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-fair-crypto.dat' using 1:7 with lines title 't05-vgg16-a100'
set title 'comm-heavy-1: per-tenant bandwidth, ppo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-bandwidth.dat' using 1:2 with lines title 't00-gpt2-xl-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-bandwidth.dat' using 1:3 with lines title 't01-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-bandwidth.dat' using 1:4 with lines title 't02-bert-large-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-bandwidth.dat' using 1:5 with lines title 't03-gpt2-xl-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-bandwidth.dat' using 1:6 with lines title 't04-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-bandwidth.dat' using 1:7 with lines title 't05-vgg16-a100'
set title 'comm-heavy-1: share of the crypto slots, ppo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-crypto.dat' using 1:2 with lines title 't00-gpt2-xl-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-crypto.dat' using 1:3 with lines title 't01-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-crypto.dat' using 1:4 with lines title 't02-bert-large-h100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-crypto.dat' using 1:5 with lines title 't03-gpt2-xl-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-crypto.dat' using 1:6 with lines title 't04-bert-large-a100', '/work/resrun/docs/results/families/comm-heavy/timeline-comm-heavy-1-ppo-crypto.dat' using 1:7 with lines title 't05-vgg16-a100'
unset multiplot
