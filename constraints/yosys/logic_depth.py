#!/usr/bin/env python3
"""logic_depth.py: logic levels into every flop of a synthesised netlist, by flop group.

Yosys' `sta` reports one path and stops at the first CARRY4 or MUXF7/8/9 (no timing arcs),
so it cannot say how deep the logic before a given flop is, nor what a path does after a
carry chain. This counts cells in series instead: from any flop output or primary input to
each flop's D, one level per LUT and per CARRY4 (a carry chain of n CARRY4 counts n),
MUXF7/8/9 counted with the LUT before them. Flops are grouped by the name of their Q net
with the bit index dropped (`u_pad.lanes_q`, `out_o`); --split NAME=FIELD:LO:HI,... names
bit ranges of a group (e.g. a timing wrapper's out_o by port).

usage: yosys -p '...; synth_xilinx ...; write_json NETLIST.json'
       logic_depth.py NETLIST.json [--split out_o=m_axis_tkeep:512:575,...] [--path REGEX]
Prints "levels group" per group, deepest first; --path also prints the deepest path into
the flops whose Q net matches REGEX, cell by cell.
"""
import argparse
import json
import re
import sys

FLOPS = ('FDCE', 'FDPE', 'FDRE', 'FDSE')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('netlist')
    ap.add_argument('--split', default='', help='GROUP=FIELD:LO:HI,... (bit ranges of a group)')
    ap.add_argument('--path', help='regex of Q nets: print the deepest path into them')
    args = ap.parse_args()

    try:
        net = json.load(open(args.netlist))
    except (OSError, ValueError) as e:
        sys.exit(f'logic_depth.py: cannot read netlist {args.netlist}: {e}')
    tops = [m for m in net['modules'].values() if m.get('attributes', {}).get('top')]
    if len(tops) != 1:
        sys.exit(f'logic_depth.py: {args.netlist}: expected one top module, found {len(tops)}')
    mod = tops[0]
    cells = mod['cells']

    splits = {}
    for item in filter(None, args.split.split(',')):
        m = re.fullmatch(r'([^=]+)=([^:]+):(\d+):(\d+)', item)
        if not m:
            sys.exit(f"logic_depth.py: --split item '{item}' is not GROUP=FIELD:LO:HI")
        splits.setdefault(m.group(1), []).append((m.group(2), int(m.group(3)), int(m.group(4))))

    names = {}
    for n, w in mod['netnames'].items():
        for i, b in enumerate(w['bits']):
            if isinstance(b, int):
                names.setdefault(b, []).append((n, i))
    driver = {}
    for cn, c in cells.items():
        for p, d in c['port_directions'].items():
            if d == 'output':
                for b in c['connections'][p]:
                    if isinstance(b, int):
                        driver[b] = c

    memo = {}

    def depth(bit):  # (levels, path) of the deepest path ending at this net
        c = driver.get(bit) if isinstance(bit, int) else None
        if c is None or c['type'] in FLOPS:
            return (0, [label(bit) if isinstance(bit, int) else 'const'])
        if bit in memo:
            return memo[bit]
        memo[bit] = (0, ['loop'])
        best = (-1, [])
        for p, d in c['port_directions'].items():
            if d == 'input':
                for b in c['connections'][p]:
                    r = depth(b)
                    if r[0] > best[0]:
                        best = r
        memo[bit] = (best[0] + (0 if c['type'].startswith('MUXF') else 1), best[1] + [c['type']])
        return memo[bit]

    def label(bit):
        n, i = min(names.get(bit, [('?', 0)]), key=lambda x: len(x[0]))
        return f'{n}[{i}]'

    def group(bit):
        n, i = min(names.get(bit, [('?', 0)]), key=lambda x: len(x[0]))
        for field, lo, hi in splits.get(n, []):
            if lo <= i <= hi:
                return f'{n}.{field}'
        return n

    groups, deepest = {}, (-1, '', [])
    for c in cells.values():
        if c['type'] not in FLOPS:
            continue
        q = c['connections']['Q'][0]
        d = depth(c['connections']['D'][0])
        g = group(q)
        groups[g] = max(groups.get(g, 0), d[0])
        if args.path and re.fullmatch(args.path, label(q)) and d[0] > deepest[0]:
            deepest = (d[0], label(q), d[1])
    for g, d in sorted(groups.items(), key=lambda x: (-x[1], x[0])):
        print(d, g)
    if args.path:
        if deepest[0] < 0:
            sys.exit(f"logic_depth.py: no flop's Q net matches --path '{args.path}'")
        print(f'deepest into {deepest[1]}: {deepest[0]} levels: ' + ' -> '.join(deepest[2]))


if __name__ == '__main__':
    main()
