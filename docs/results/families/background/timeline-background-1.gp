set terminal pngcairo size 1600,1020
set output '/work/resrun/docs/results/families/background/timeline-background-1.png'
set multiplot layout 3,2
set key outside right
set xlabel 'simulated time (us)'
set autoscale xfix
set title 'background-1: per-tenant bandwidth, fifo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/background/timeline-background-1-fifo-bandwidth.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/background/timeline-background-1-fifo-bandwidth.dat' using 1:3 with lines title 't01-bg-onoff'
set title 'background-1: share of the crypto slots, fifo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/background/timeline-background-1-fifo-crypto.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/background/timeline-background-1-fifo-crypto.dat' using 1:3 with lines title 't01-bg-onoff'
set title 'background-1: per-tenant bandwidth, sp'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/background/timeline-background-1-sp-bandwidth.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/background/timeline-background-1-sp-bandwidth.dat' using 1:3 with lines title 't01-bg-onoff'
set title 'background-1: share of the crypto slots, sp'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/background/timeline-background-1-sp-crypto.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/background/timeline-background-1-sp-crypto.dat' using 1:3 with lines title 't01-bg-onoff'
set title 'background-1: per-tenant bandwidth, ppo'
set ylabel 'Gbit/s'
set yrange [0:*]
plot '/work/resrun/docs/results/families/background/timeline-background-1-ppo-bandwidth.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/background/timeline-background-1-ppo-bandwidth.dat' using 1:3 with lines title 't01-bg-onoff'
set title 'background-1: share of the crypto slots, ppo'
set ylabel '% of slot cycles'
set yrange [0:100]
plot '/work/resrun/docs/results/families/background/timeline-background-1-ppo-crypto.dat' using 1:2 with lines title 't00-resnet50-a100', '/work/resrun/docs/results/families/background/timeline-background-1-ppo-crypto.dat' using 1:3 with lines title 't01-bg-onoff'
unset multiplot
