#!/usr/bin/env python3
"""Label statistics of a nicagent dagger run's labels.csv: labels per strategy, ties, the gap
between the best and second-best copy (% of the best), and how often consecutive labels of a
run change strategy. Usage: label_stats.py RUN/labels.csv"""
import csv
import statistics
import sys
from collections import Counter

rows = list(csv.DictReader(open(sys.argv[1])))
labels = Counter(r["label"] for r in rows)
gaps, ties = [], 0
for r in rows:
    s = sorted(float(x) for x in r["scores"].split(";"))
    gaps.append(100 * (s[1] - s[0]) / s[0])
    ties += s[1] == s[0]
changes = pairs = 0
prev = {}
for r in rows:
    key = (r["iteration"], r["family_seed"])
    if key in prev:
        pairs += 1
        changes += prev[key] != r["label"]
    prev[key] = r["label"]
print(f"{len(rows)} labels: " + ", ".join(f"`{k}` {v}" for k, v in labels.most_common()))
print(f"ties {ties}; gap best to second best: mean {statistics.fmean(gaps):.3f} %, median {statistics.median(gaps):.3f} %; "
      f"gap under 0.1 %: {sum(g < 0.1 for g in gaps)}")
print(f"consecutive labels changing strategy: {changes} of {pairs}")
