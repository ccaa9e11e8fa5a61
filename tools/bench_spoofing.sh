#!/usr/bin/env bash
# The attacker table of docs/reliability.md ("A tenant that lies about its identity"),
# written between its bench_spoofing markers. Usage: tools/bench_spoofing.sh [BUILD_DIR]
#   sim/scenarios/spoofing.yaml on the model backend, SEEDS seeds (default 20), 10 ms each:
#   (a) the attacker spoofing ResNet-50, header-only; (b) the same with source binding,
#   spoofs kept; (b') dropped; (c) the same load sent honestly; (d) (c) with BERT marking
#   its bulk DSCP EF. Per run each tenant's mean iteration time and control p99; across
#   seeds the mean and its 95 % Student-t interval (docs/journal/2026-11-28-tenant-trust.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
SEEDS=${SEEDS:-20}
CYCLES=${CYCLES:-2500000}

cmake --build "$build" --target nicsim >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sc="$root/sim/scenarios/spoofing.yaml"
run() { "$build/sim/nicsim" run "$@" --baseline fair --json --cycles "$CYCLES" 2>/dev/null; }
for s in $(seq 1 "$SEEDS"); do
  sed "s/^seed: .*/seed: $s/" "$sc" > "$work/spoof-$s.yaml"
  sed "s/^seed: .*/seed: $s/; s/, spoof_as: resnet50//" "$sc" > "$work/honest-$s.yaml"
  sed "s/^seed: .*/seed: $s/; s/, spoof_as: resnet50//; s/model: bert,/model: bert, bulk_dscp: 46,/" "$sc" > "$work/ef-$s.yaml"
  run "$work/spoof-$s.yaml" --tx-identity headers > "$work/a-$s.json"
  run "$work/spoof-$s.yaml" --tx-identity source > "$work/b-$s.json"
  run "$work/spoof-$s.yaml" --tx-identity source --on-spoof drop > "$work/bd-$s.json"
  run "$work/honest-$s.yaml" > "$work/c-$s.json"
  run "$work/ef-$s.yaml" > "$work/d-$s.json"
done

table=$(python3 - "$work" "$SEEDS" "$CYCLES" "$(measured_code)" <<'PY'
import glob, json, math, statistics as st, sys
work, seeds, cycles, code = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# Student t, 0.975 quantile, by degrees of freedom (seeds - 1)
T = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 19: 2.093, 29: 2.045}
t = T.get(seeds - 1, 1.96)
def field(mode, tenant, key):
    out = []
    for f in sorted(glob.glob(f"{work}/{mode}-*.json")):
        v = {x["name"]: x for x in json.load(open(f))["tenants"]}[tenant][key]
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            out.append(v)
    return out
def ci(xs):
    if not xs:
        return "none completed"
    if len(xs) < 2:
        return f"{xs[0]:.2f}"
    return f"{st.mean(xs):.2f} ± {t * st.stdev(xs) / math.sqrt(len(xs)):.2f}"
rows = [("(a) spoofing, header-only", "a"), ("(b) spoofing, source binding, keep", "b"),
        ("(b') spoofing, source binding, drop", "bd"), ("(c) same load, honest", "c"),
        ("(d) honest, BERT marks its bulk EF", "d")]
print(f"Written by `tools/bench_spoofing.sh` (model backend, {seeds} seeds of {cycles} cycles = "
      f"{cycles / 250e3:.0f} ms each; mean ± 95 % Student-t interval over seeds).")
print()
print("| run | ResNet-50 iteration mean, us | ResNet-50 control p99, us | BERT iteration mean, us | BERT control p99, us | attacker's spoofed frames | code measured |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for label, m in rows:
    print(f"| {label} | {ci(field(m, 'resnet50', 'iter_mean_us'))} | {ci(field(m, 'resnet50', 'control_p99_us'))} | "
          f"{ci(field(m, 'bert', 'iter_mean_us'))} | {ci(field(m, 'bert', 'control_p99_us'))} | "
          f"{ci(field(m, 'attacker', 'spoofed_frames'))} | {code} |")
PY
)
replace_block "$root/docs/reliability.md" "<!-- bench_spoofing:begin -->" "<!-- bench_spoofing:end -->" "$table"
echo "bench_spoofing: wrote docs/reliability.md"
