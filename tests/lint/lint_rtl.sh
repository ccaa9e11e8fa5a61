#!/usr/bin/env bash
# Lints every RTL module with `verilator --lint-only -Wall`, each module as the top with all
# packages and every other module available; any warning or error fails. The file list is
# globbed when the test runs, so new RTL files are picked up without reconfiguring:
# packages first (rtl/generated/nicsched_regs_pkg.sv, then rtl/*_pkg.sv), then every
# module in rtl/*.sv and rtl/generated/*.sv (one module per file, named after the file).
#   usage: lint_rtl.sh REPO_ROOT [MODULE [VERILATOR_ARGS...]]
#   (MODULE: lint only that module, e.g. with -G parameter overrides)
set -uo pipefail
root=${1:?usage: lint_rtl.sh REPO_ROOT [MODULE [VERILATOR_ARGS...]]}
only=${2:-}
shift $(( $# >= 2 ? 2 : $# ))
extra=("$@")

shopt -s nullglob
pkgs=("$root/rtl/generated/nicsched_regs_pkg.sv")
for f in "$root"/rtl/*_pkg.sv; do pkgs+=("$f"); done
mods=()
for f in "$root"/rtl/*.sv "$root"/rtl/generated/*.sv; do
  [[ $f == *_pkg.sv ]] || mods+=("$f")
done

failed=0
checked=0
for f in "${mods[@]}"; do
  top=$(basename "$f" .sv)
  [[ -n $only && $top != "$only" ]] && continue
  if ! grep -Eq "^[[:space:]]*module[[:space:]]+$top\b" "$f"; then
    echo "FAIL $top: $f does not define module $top (one module per file, named after it)"
    failed=1
    continue
  fi
  out=$(verilator --lint-only -Wall -I"$root" "${extra[@]}" --top-module "$top" "${pkgs[@]}" "${mods[@]}" 2>&1)
  rc=$?
  checked=$((checked + 1))
  if [[ $rc -ne 0 || -n $out ]]; then
    echo "FAIL $top ${extra[*]}"
    echo "$out"
    failed=1
  else
    echo "ok   $top ${extra[*]}"
  fi
done
if [[ $checked -eq 0 && $failed -eq 0 ]]; then
  echo "FAIL: no module linted (root $root, module '${only}')"
  exit 1
fi
exit $failed
