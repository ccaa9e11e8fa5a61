#!/usr/bin/env python3
# Paired comparison of controllers over the scenarios of eval runs.csv files (docs/results.md,
# "Best-of clone + slowdown PPO"): usage paired.py RUNS.csv [RUNS.csv ...]
import csv, sys, collections, statistics, math
# paired comparison over scenarios: relative difference per scenario (mean over seeds), mean and 95 % CI (t)
d = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        d[r['controller']][r['scenario']].append(float(r['norm_iter_time']))
m = {c: {s: sum(v)/len(v) for s, v in ss.items()} for c, ss in d.items()}
scen = sorted(m['fifo'])
print('scenarios', len(scen))
for c in m:
    if all(s in m[c] for s in scen): print(f"  {c:28s} {sum(m[c][s] for s in scen)/len(scen):.4f}")
T = {31: 2.040, 47: 2.012, 15: 2.131}
def cmp(a, b):
    x = [(m[b][s] - m[a][s]) / m[b][s] * 100 for s in scen]
    mu = statistics.mean(x); se = statistics.stdev(x) / math.sqrt(len(x)); t = T.get(len(x)-1, 2.0)
    w = sum(v > 0 for v in x); l = sum(v < 0 for v in x)
    print(f"{a} vs {b}: {mu:+.2f} % +- {t*se:.2f} (95 % CI, per-scenario mean), faster on {w}, slower on {l}")
for a, b in [('ppo-selected-u144','fifo'),('ppo-selected-u144','progress'),('ppo-selected-u144','clone-best4-slowdown'),('clone-best4-slowdown','fifo'),('clone-best4-slowdown','progress'),('progress','fifo')]:
    cmp(a, b)
