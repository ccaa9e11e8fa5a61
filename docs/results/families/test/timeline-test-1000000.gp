set terminal pngcairo size 1600,1020
set output '/work/resrun/docs/results/families/test/timeline-test-1000000.png'
set multiplot layout 3,2
set key outside right
set xlabel 'simulated time (us)'
set autoscale xfix
set title 'test-1000000: per-tenant bandwidth, fifo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-bandwidth.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-bandwidth.dat' using 1:3 with lines title 't01-bg-onoff', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-bandwidth.dat' using 1:4 with lines title 't02-bert-large-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-bandwidth.dat' using 1:5 with lines title 't03-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-bandwidth.dat' using 1:6 with lines title 't04-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-bandwidth.dat' using 1:7 with lines title 't05-bert-large-h100'
set title 'test-1000000: share of the crypto slots, fifo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-crypto.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-crypto.dat' using 1:3 with lines title 't01-bg-onoff', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-crypto.dat' using 1:4 with lines title 't02-bert-large-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-crypto.dat' using 1:5 with lines title 't03-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-crypto.dat' using 1:6 with lines title 't04-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-fifo-crypto.dat' using 1:7 with lines title 't05-bert-large-h100'
set title 'test-1000000: per-tenant bandwidth, select'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/test/timeline-test-1000000-select-bandwidth.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-bandwidth.dat' using 1:3 with lines title 't01-bg-onoff', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-bandwidth.dat' using 1:4 with lines title 't02-bert-large-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-bandwidth.dat' using 1:5 with lines title 't03-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-bandwidth.dat' using 1:6 with lines title 't04-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-bandwidth.dat' using 1:7 with lines title 't05-bert-large-h100'
set title 'test-1000000: share of the crypto slots, select'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/test/timeline-test-1000000-select-crypto.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-crypto.dat' using 1:3 with lines title 't01-bg-onoff', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-crypto.dat' using 1:4 with lines title 't02-bert-large-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-crypto.dat' using 1:5 with lines title 't03-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-crypto.dat' using 1:6 with lines title 't04-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-select-crypto.dat' using 1:7 with lines title 't05-bert-large-h100'
set title 'test-1000000: per-tenant bandwidth, ppo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-bandwidth.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-bandwidth.dat' using 1:3 with lines title 't01-bg-onoff', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-bandwidth.dat' using 1:4 with lines title 't02-bert-large-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-bandwidth.dat' using 1:5 with lines title 't03-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-bandwidth.dat' using 1:6 with lines title 't04-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-bandwidth.dat' using 1:7 with lines title 't05-bert-large-h100'
set title 'test-1000000: share of the crypto slots, ppo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-crypto.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-crypto.dat' using 1:3 with lines title 't01-bg-onoff', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-crypto.dat' using 1:4 with lines title 't02-bert-large-a100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-crypto.dat' using 1:5 with lines title 't03-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-crypto.dat' using 1:6 with lines title 't04-bert-large-h100', '/work/resrun/docs/results/families/test/timeline-test-1000000-ppo-crypto.dat' using 1:7 with lines title 't05-bert-large-h100'
unset multiplot
