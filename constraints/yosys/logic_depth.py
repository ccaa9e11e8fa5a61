#!/usr/bin/env python3
"""logic_depth.py: logic levels and an estimated delay into every flop of a synthesised netlist, by flop group.

Yosys' `sta` reports one path and stops at the first CARRY4 or MUXF7/8/9 (no timing arcs),
so it cannot say how deep the logic before a given flop is, nor what a path does after a
carry chain. This counts cells in series instead: from any flop output or primary input to
each flop's D, one level per LUT and per CARRY4 (a carry chain of n CARRY4 counts n),
MUXF7/8/9 counted with the LUT before them. Each group's estimate is the slowest path by
the cell-delay model DELAY_NS below (per LUT, CARRY4 stage and MUXF, plus clock-to-Q and
setup once), so a path of many carry stages and one of many LUTs are told apart.
Block RAM outputs start paths; a distributed RAM's (or SRL's) output is one level (a LUT's
delay) after the read address of its own port (DOA after ADDRA, DPO after DPRA, SPO after A;
an output the script does not know follows every address), and every input of a RAM (data,
enable, addresses) ends paths like a flop's D (grouped by the RAM's first output net, "(RAM inputs)"). Flops are
grouped by the name of their Q net with the bit index dropped (`u_pad.lanes_q`, `out_o`);
--split NAME=FIELD:LO:HI,... names bit ranges of a group (e.g. a timing wrapper's out_o by
port). --outputs: the top's output ports end paths too (group "NAME (output)"), for a block
synthesised alone whose outputs feed logic in the core (its inputs start paths, as always).

usage: yosys -p '...; synth_xilinx ...; write_json NETLIST.json'
       logic_depth.py NETLIST.json [--split out_o=m_axis_tkeep:512:575,...] [--top N]
                      [--outputs] [--limit NS] [--path REGEX [--names]]
Prints "NS ns LEVELS levels (L LUT, C CARRY4, M MUXF) GROUP" per group, slowest first
(--top N: only the first N); --limit NS: exit status 1 when a group's estimate exceeds NS
(the groups over it named on stderr); --path also prints the slowest path into the flops
whose Q net (or, with --outputs, the output port) matches REGEX, cell by cell (--names: with each cell's output net).
"""
import argparse
import json
import re
import sys

# Cell-delay model of an UltraScale+ -2 part at 250 MHz, in ns: the one place these
# numbers live (tests/synth/test_logic_depth.py pins them). Sources: the Virtex/Kintex
# UltraScale+ data sheets' switching characteristics (DS923 / DS922: a LUT's logic delay
# is about 0.1 ns, a CARRY8's carry-in to carry-out a few tens of ps per 4 bits, a
# MUXF7/8/9 well under 0.1 ns, a flop's clock-to-Q about 0.1 ns and its setup under
# 0.1 ns) and the rule of thumb of UG949 (the UltraFast methodology guide) that routing
# takes as much of a path as the cells or more; so a LUT level is given 0.5 ns with its
# net, a carry stage (dedicated routing inside the slice column) and a MUXF (inside the
# slice) 0.1 ns each, and clock-to-Q, setup and clock skew 0.5 ns once per path. A planning
# figure, not a placed-and-routed timing: about six LUT levels and a short carry chain fit
# the 4.0 ns of a 250 MHz clock.
DELAY_NS = {
    'lut': 0.5,      # per LUT level (any LUT1-6, INV, a distributed RAM's read), cell + routing
    'carry4': 0.1,   # per CARRY4 stage in series (a chain of n CARRY4 counts n)
    'muxf': 0.1,     # per MUXF7/8/9
    'clock': 0.5,    # clock-to-Q + setup (+ skew), once per path
}

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


def cell_kind(type_):
    """The DELAY_NS entry a combinational cell's delay comes from."""
    if type_.startswith('MUXF'):
        return 'muxf'
    if type_.startswith('CARRY'):
        return 'carry4'
    return 'lut'


def estimate_ns(counts):
    """Estimated delay of a path with counts {'lut': n, 'carry4': n, 'muxf': n}."""
    return DELAY_NS['clock'] + sum(DELAY_NS[k] * n for k, n in counts.items())


def is_read_address(port):
    """Whether an input port of an asynchronous RAM or SRL cell is a read address (ADDRx,
    DPRA, A or A0-A3)."""
    return port.startswith(('ADDR', 'DPRA')) or re.fullmatch(r'A\d?', port) is not None


def reads_through(out_port, in_port):
    """Whether an asynchronous RAM's or SRL's output port follows this read-address input.
    Each port of a multi-port LUT RAM reads at its own address (RAM32M16's DOA at ADDRA only,
    RAM32X1D's DPO at DPRA, its SPO at A); an output not of these forms (an SRL's Q, a
    single-port RAM's O) follows every address input, which can only overstate a path."""
    if not is_read_address(in_port):
        return False
    m = re.fullmatch(r'DO([A-H])', out_port)
    if m:
        return in_port == 'ADDR' + m.group(1)
    if out_port == 'DPO':
        return in_port.startswith('DPRA')
    if out_port == 'SPO':
        return not in_port.startswith('DPRA')
    return True


class Path:
    """The slowest path found into a net: its delay, cells counted by kind, cells in order."""
    __slots__ = ('ns', 'counts', 'cells')

    def __init__(self, ns, counts, cells):
        self.ns, self.counts, self.cells = ns, counts, cells

    @property
    def levels(self):  # LUTs and carry stages; a MUXF counts with the LUT before it
        return self.counts['lut'] + self.counts['carry4']

    def key(self):  # slowest first, then deepest
        return (round(self.ns, 6), self.levels)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('netlist')
    ap.add_argument('--split', default='', help='GROUP=FIELD:LO:HI,... (bit ranges of a group)')
    ap.add_argument('--top', type=int, help='print only the N slowest groups')
    ap.add_argument('--outputs', action='store_true', help="the top's output ports end paths too")
    ap.add_argument('--limit', type=float, help='exit 1 when a group\'s estimate exceeds NS')
    ap.add_argument('--path', help='regex of Q nets: print the slowest path into them')
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
    driver, driver_port = {}, {}
    for cn, c in cells.items():
        for p, d in c['port_directions'].items():
            if d == 'output':
                for b in c['connections'][p]:
                    if isinstance(b, int):
                        driver[b] = c
                        driver_port[b] = p

    memo = {}
    no_cells = {'lut': 0, 'carry4': 0, 'muxf': 0}

    def slowest(bit):  # the slowest path ending at this net
        c = driver.get(bit) if isinstance(bit, int) else None
        if c is None or c['type'] in FLOPS or c['type'] in SYNC_RAMS:
            return Path(estimate_ns(no_cells), dict(no_cells),
                        [label(bit) if isinstance(bit, int) else 'const'])
        if bit in memo:
            return memo[bit]
        memo[bit] = Path(0.0, dict(no_cells), ['loop'])
        best = None
        for p, d in c['port_directions'].items():
            if d == 'input' and (c['type'] not in ASYNC_RAMS or reads_through(driver_port[bit], p)):
                for b in c['connections'][p]:
                    r = slowest(b)
                    if best is None or r.key() > best.key():
                        best = r
        if best is None:
            best = Path(estimate_ns(no_cells), dict(no_cells), ['const'])
        kind = cell_kind(c['type'])
        counts = dict(best.counts)
        counts[kind] += 1
        step = f"{c['type']}({label(bit)})" if args.names else c['type']
        memo[bit] = Path(best.ns + DELAY_NS[kind], counts, best.cells + [step])
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

    groups, deepest = {}, None
    for c in cells.values():
        q, suffix, ins = endpoints(c)
        if q is None or not ins:
            continue
        d = max((slowest(b) for b in ins), key=Path.key)
        g = group(q) + suffix
        if g not in groups or d.key() > groups[g].key():
            groups[g] = d
        if args.path and re.fullmatch(args.path, label(q)) and (deepest is None or d.key() > deepest[0].key()):
            deepest = (d, label(q) + suffix)
    if args.outputs:
        for port, p in mod.get('ports', {}).items():
            ins = [b for b in p['bits'] if isinstance(b, int)]
            if p['direction'] == 'output' and ins:
                d = max((slowest(b) for b in ins), key=Path.key)
                groups[f'{port} (output)'] = d
                if args.path and re.fullmatch(args.path, port) and (deepest is None or d.key() > deepest[0].key()):
                    deepest = (d, f'{port} (output)')
    ranked = sorted(groups.items(), key=lambda x: (tuple(-v for v in x[1].key()), x[0]))
    for g, d in ranked[:args.top]:
        print(f"{d.ns:.2f} ns {d.levels} levels ({d.counts['lut']} LUT, {d.counts['carry4']} CARRY4, "
              f"{d.counts['muxf']} MUXF) {g}")
    if args.path:
        if deepest is None:
            sys.exit(f"logic_depth.py: no flop's Q net matches --path '{args.path}'")
        d, name = deepest
        print(f'slowest into {name}: {d.ns:.2f} ns, {d.levels} levels: ' + ' -> '.join(d.cells))
    if args.limit is not None:
        over = [f'{g} {d.ns:.2f} ns' for g, d in ranked if d.ns > args.limit + 1e-9]
        if over:
            print(f'logic_depth.py: {len(over)} group(s) over {args.limit:.2f} ns: ' + ', '.join(over),
                  file=sys.stderr)
            sys.exit(1)


if __name__ == '__main__':
    main()
