# Validation curves of the train-family runs with the speed reward (docs/results/train-family,
# the first train-family policy) and the slowdown reward at scale 1 and 0.2 (docs/journal/
# 2026-11-26-reward-and-metric.md). Run from this folder:
#   gnuplot validation-curves.gp -> validation-curves.png
# Horizontal lines: baselines and the committed policy on the same 8 validation draws
# (../train-family/validation-baselines.csv).
set terminal pngcairo size 900,480 font ",10"
set output "validation-curves.png"
set datafile separator ","
set key outside right
set xlabel "PPO environment steps (after behaviour cloning of las)"
set ylabel "norm. iter time (lower is better)"
set title "greedy policy on 8 held-out train draws (seeds 900000-900007, 1M cycles)"
plot "../train-family/validation.csv" using 2:3 every ::1 with linespoints pt 7 lc rgb "#1f77b4" title "speed reward", \
     "scale-1/validation.csv" using 2:3 every ::1 with linespoints pt 5 lc rgb "#d62728" title "slowdown, scale 1", \
     "scale-0.2/validation.csv" using 2:3 every ::1 with linespoints pt 9 lc rgb "#2ca02c" title "slowdown, scale 0.2", \
     2.01460 lc rgb "#000000" dt 2 title "fifo 2.015", \
     1.80121 lc rgb "#9467bd" dt 2 title "las (teacher) 1.801", \
     1.77745 lc rgb "#8c564b" dt 4 title "committed default 1.777"
