# Learning curve of the second best-of-heuristics run (best:fifo,fair,las,progress) (docs/journal/
# 2026-11-26-best-of-heuristics-teacher.md). Run from this folder: gnuplot learning-curve4.gp -> learning-curve4.png
# Horizontal lines: the baselines, the clone, the las clone + PPO run and the committed policy on the same 8
# validation draws (validation-baselines.csv and ../train-family/validation-baselines.csv:
# nicagent eval on nicsim gen --seed 900000 --count 8, --cycles 1002000, 1 seed).
set terminal pngcairo size 900,640 font ",10"
set output "learning-curve4.png"
set datafile separator ","
set multiplot layout 2,1
set key outside right
set xlabel "PPO environment steps (after cloning the per-draw best of fifo, fair, las, progress)"
set ylabel "mean step reward"
set title "train4.csv: mean reward per step of each update (8 envs x 64 steps, fresh train draws)"
plot "train4.csv" using 2:4 every ::1 with lines lc rgb "#999999" title "per update", \
     "" using 2:4 every ::1 smooth bezier lw 2 lc rgb "#1f77b4" title "smoothed"
set ylabel "norm. iter time (lower is better)"
set title "validation4.csv: greedy policy on 8 held-out train draws (seeds 900000-900007, 1M cycles)"
plot "validation4.csv" using 2:3 every ::1 with linespoints pt 7 lc rgb "#d62728" title "PPO (set)", \
     2.01460 lc rgb "#000000" dt 2 title "fifo 2.015", \
     1.80121 lc rgb "#2ca02c" dt 2 title "las 1.801", \
     1.80971 lc rgb "#ff7f0e" dt 2 title "progress 1.810", \
     1.75260 lc rgb "#9467bd" dt 3 title "BC clone 1.753", \
     1.80043 lc rgb "#17becf" dt 3 title "clone of las + PPO 1.800", \
     1.77745 lc rgb "#8c564b" dt 4 title "committed default 1.777", \
     1.66920 lc rgb "#bcbd22" dt 5 title "per-draw best of the 4 1.669"
unset multiplot
