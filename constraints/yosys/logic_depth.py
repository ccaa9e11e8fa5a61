#!/usr/bin/env python3
"""logic_depth.py: logic levels into every flop of a synthesised netlist, by flop group.

Yosys' `sta` reports one path and stops at the first CARRY4 or MUXF7/8/9 (no timing arcs),
so it cannot say how deep the logic before a given flop is, nor what a path does after a
carry chain. This counts cells in series instead: from any flop output or primary input to
each flop's D, one level per LUT and per CARRY4 (a carry chain of n CARRY4 counts n),
MUXF7/8/9 counted with the LUT before them. Block RAM outputs start paths; a distributed
RAM's (or SRL's) output is one level after its read address, and every input of a RAM
(data, enable, addresses) ends paths like a flop's D (grouped by the RAM's first output
net, "(RAM inputs)"). Flops are grouped by the name of their Q net
with the bit index dropped (`u_pad.lanes_q`, `out_o`); --split NAME=FIELD:LO:HI,... names
bit ranges of a group (e.g. a timing wrapper's out_o by port).

usage: yosys -p '...; synth_xilinx ...; write_json NETLIST.json'
       logic_depth.py NETLIST.json [--split out_o=m_axis_tkeep:512:575,...] [--path REGEX [--names]]
Prints "levels group" per group, deepest first; --path also prints the deepest path into
the flops whose Q net matches REGEX, cell by cell (--names: with each cell's output net).
"""
import argparse
import json
import re
import sys

FLOPS = ('FDCE', 'FDPE', 'FDRE', 'FDSE')
# Block RAMs read synchronously: their outputs start paths, like a flop's Q.
SYNC_RAMS = ('RAMB18E1', 'RAMB36E1', 'RAMB18E2', 'RAMB36E2', 'URAM288', 'URAM288_BASE')
# Distributed RAMs and shift registers read asynchronously: an output follows the read
# address (one level, as a LUT), never the data or write enable, which are written at
# the clock edge. Every input of a RAM (data, enable, addresses) also ends paths, like a
# flop's D.
ASYNC_RAMS = ('RAM32M', 'RAM32M16', 'RAM64M', 'RAM64M8', 'RAM32X1D', 'RAM64X1D', 'RAM128X1D',
              'RAM256X1D', 'RAM32X1S', 'RAM64X1S', 'RAM128X1S', 'RAM256X1S', 'RAM512X1S',
              'SRL16E', 'SRLC16E', 'SRLC32E')


def is_read_address(port):
    """Whether an input port of an asynchronous RAM or SRL cell is a read address (ADDRx,
    DPRA, A or A0-A3)."""
    return port.startswith(('ADDR', 'DPRA')) or re.fullmatch(r'A\d?', port) is not None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('netlist')
    ap.add_argument('--split', default='', help='GROUP=FIELD:LO:HI,... (bit ranges of a group)')
    ap.add_argument('--path', help='regex of Q nets: print the deepest path into them')
    ap.add_argument('--names', action='store_true', help='with --path: each cell as TYPE(its output net)')
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
        if c is None or c['type'] in FLOPS or c['type'] in SYNC_RAMS:
            return (0, [label(bit) if isinstance(bit, int) else 'const'])
        if bit in memo:
            return memo[bit]
        memo[bit] = (0, ['loop'])
        best = (-1, [])
        for p, d in c['port_directions'].items():
            if d == 'input' and (c['type'] not in ASYNC_RAMS or is_read_address(p)):
                for b in c['connections'][p]:
                    r = depth(b)
                    if r[0] > best[0]:
                        best = r
        step = f"{c['type']}({label(bit)})" if args.names else c['type']
        memo[bit] = (best[0] + (0 if c['type'].startswith('MUXF') else 1), best[1] + [step])
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
    def endpoints(c):  # (output net naming the group, group suffix, input bits ending paths)
        if c['type'] in FLOPS:
            return c['connections']['Q'][0], '', [c['connections']['D'][0]]
        if c['type'] in ASYNC_RAMS or c['type'] in SYNC_RAMS:
            outs = [b for p, d in c['port_directions'].items() if d == 'output'
                    for b in c['connections'][p] if isinstance(b, int)]
            ins = [b for p, d in c['port_directions'].items()
                   if d == 'input' and 'CLK' not in p and p != 'C'
                   for b in c['connections'][p]]
            return (outs[0] if outs else None), ' (RAM inputs)', ins
        return None, '', []

    for c in cells.values():
        q, suffix, ins = endpoints(c)
        if q is None or not ins:
            continue
        d = max((depth(b) for b in ins), key=lambda r: r[0])
        g = group(q) + suffix
        groups[g] = max(groups.get(g, 0), d[0])
        if args.path and re.fullmatch(args.path, label(q)) and d[0] > deepest[0]:
            deepest = (d[0], label(q) + suffix, d[1])
    for g, d in sorted(groups.items(), key=lambda x: (-x[1], x[0])):
        print(d, g)
    if args.path:
        if deepest[0] < 0:
            sys.exit(f"logic_depth.py: no flop's Q net matches --path '{args.path}'")
        print(f'deepest into {deepest[1]}: {deepest[0]} levels: ' + ' -> '.join(deepest[2]))


if __name__ == '__main__':
    main()
