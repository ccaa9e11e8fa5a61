#!/usr/bin/env python3
"""Scenario labels of a nicagent dagger run (labels: scenario): one line per draw (every row of
a draw carries its label and the strategies' whole-run mean scores). Prints the labels per
strategy, the gap between the best and the second-best strategy (% of the best), and the
room the labels show on these training draws: the label's mean score over that of the first
strategy (the one the rest is compared with). Usage: draw_stats.py RUN/labels.csv STRATEGY,..."""
import csv
import statistics
import sys
from collections import Counter

names = sys.argv[2].split(",")
draws = {}
for r in csv.DictReader(open(sys.argv[1])):
    draws.setdefault((r["iteration"], r["family_seed"]), (r["label"], [float(x) for x in r["scores"].split(";")]))
labels = Counter(label for label, _ in draws.values())
gaps, room = [], []
for label, scores in draws.values():
    s = sorted(scores)
    gaps.append(100 * (s[1] - s[0]) / s[0])
    room.append(100 * (scores[0] - s[0]) / scores[0])
print(f"{len(draws)} draws: " + ", ".join(f"`{k}` {v}" for k, v in labels.most_common()))
print(f"gap best to second best: mean {statistics.fmean(gaps):.3f} %, median {statistics.median(gaps):.3f} %; "
      f"under 0.1 %: {sum(g < 0.1 for g in gaps)}, over 1 %: {sum(g > 1 for g in gaps)}")
print(f"the label over `{names[0]}` on its own label seeds: mean {statistics.fmean(room):.3f} %, "
      f"{sum(x > 0 for x in room)} draws ahead")
