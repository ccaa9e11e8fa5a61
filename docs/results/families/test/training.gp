set terminal pngcairo size 1200,800
set output '/work/resrun/docs/results/families/test/training.png'
set datafile separator ','
set key autotitle columnhead
set multiplot layout 2,2
set xlabel 'environment steps'
set title 'mean reward per step'
plot '/work/resrun/agent/policies/default/train.csv' using 2:4 with lines notitle
set title 'validation: mean normalised iteration time (lower is better)'
plot '/work/resrun/agent/policies/default/validation.csv' using 2:3 with linespoints title 'greedy policy', '' using 2:4 with lines title 'best so far'
set title 'losses'
plot '/work/resrun/agent/policies/default/train.csv' using 2:7 with lines title 'policy', '' using 2:8 with lines title 'value'
set title 'entropy, approx-KL x100, explained variance'
plot '/work/resrun/agent/policies/default/train.csv' using 2:9 with lines title 'entropy', '' using 2:($10*100) with lines title 'approx-KL x100', '' using 2:13 with lines title 'explained var'
unset multiplot
