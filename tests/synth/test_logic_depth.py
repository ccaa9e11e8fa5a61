#!/usr/bin/env python3
"""synth.logic_depth: constraints/yosys/logic_depth.py on a hand-made Yosys JSON netlist.

The netlist (flops FDRE, LUTs, CARRY4s, a MUXF7, a distributed RAM64M, a block RAM RAMB36E2),
with the estimate of the cell-delay model (0.5 ns a LUT, 0.1 ns a CARRY4 or MUXF, 0.5 ns of
clock-to-Q and setup per path):
  a_q -> LUT2 -> LUT2 -> RAM64M ADDRA (async read, one level) -> DOA -> LUT2 -> b_q  4 levels 2.5 ns
  a_q -> LUT1 x 3 -> RAM64M DIA (write data: an endpoint, not a path through it)   3 levels 2.0 ns
           and the same net -> RAM64M ADDRB (port B's read address: DOB, not DOA, follows it)
  RAMB36E2 DOUTA (registered: a start) -> CARRY4 -> c_q                             1 level  0.6 ns
  b_q -> RAM64M WE                                                                  0 levels 0.5 ns
  a_q -> CARRY4 x 6 -> LUT2 -> d_q (7 levels, 1.6 ns); a_q -> LUT1 x 2 -> LUT2 -> d_q  3 levels 2.0 ns
  a_q -> LUT6 -> MUXF7 -> e_q (the MUXF counts with its LUT)                        1 level  1.1 ns
  a_q -> LUT2 -> LUT2 -> output port out_o (with --outputs)                        2 levels 1.5 ns
If the script walked through the RAM's data input (the bug the RAM counters exposed),
b_q would count the three write-data LUTs (5 levels), and the RAM's own group would follow its
output back into itself; if it let every port's output follow every read address, b_q would
count port B's three address LUTs (5 levels, 3.0 ns); if it treated the block RAM as logic, c_q would count b_q's
path behind it; if it ranked paths by levels instead of delay, d_q would report the carry
chain. The model's constants are pinned here: a change to them must change this test.
Usage: test_logic_depth.py --tool constraints/yosys/logic_depth.py
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile


def cell(type_, **ports):  # ports: name=(direction, [bits])
    return {'type': type_, 'port_directions': {p: d for p, (d, _) in ports.items()},
            'connections': {p: b for p, (_, b) in ports.items()}}


def netlist():
    i, o = 'input', 'output'
    clk = [2]
    cells = {
        'fa': cell('FDRE', C=(i, clk), D=(i, [3]), Q=(o, [10])),
        'l1': cell('LUT2', I0=(i, [10]), I1=(i, [10]), O=(o, [11])),
        'l2': cell('LUT2', I0=(i, [11]), I1=(i, [10]), O=(o, [12])),
        'lw1': cell('LUT1', I0=(i, [10]), O=(o, [14])),
        'lw2': cell('LUT1', I0=(i, [14]), O=(o, [15])),
        'lw': cell('LUT1', I0=(i, [15]), O=(o, [13])),
        'ram': cell('RAM64M', WCLK=(i, clk), WE=(i, [22]), ADDRA=(i, [12, '0', '0', '0', '0', '0']),
                    ADDRB=(i, [13, '0', '0', '0', '0', '0']), ADDRD=(i, ['0'] * 6), DIA=(i, [13]),
                    DOA=(o, [20]), DOB=(o, [23])),
        'l4': cell('LUT2', I0=(i, [20]), I1=(i, [10]), O=(o, [21])),
        'fb': cell('FDRE', C=(i, clk), D=(i, [21]), Q=(o, [22])),
        'bram': cell('RAMB36E2', CLKARDCLK=(i, clk), ADDRARDADDR=(i, [22]), DOUTADOUT=(o, [30])),
        'cy': cell('CARRY4', CI=(i, ['0']), S=(i, [30, '0', '0', '0']), O=(o, [31, 32, 33, 34])),
        'fc': cell('FDRE', C=(i, clk), D=(i, [31]), Q=(o, [35])),
        'fd': cell('FDRE', C=(i, clk), D=(i, [49]), Q=(o, [36])),
        'ld1': cell('LUT1', I0=(i, [10]), O=(o, [37])),
        'ld2': cell('LUT1', I0=(i, [37]), O=(o, [38])),
        'ld3': cell('LUT2', I0=(i, [38]), I1=(i, [47]), O=(o, [49])),
        'fe': cell('FDRE', C=(i, clk), D=(i, [51]), Q=(o, [52])),
        'le': cell('LUT6', I0=(i, [10]), O=(o, [50])),
        'mf': cell('MUXF7', I0=(i, [50]), I1=(i, [50]), S=(i, [10]), O=(o, [51])),
    }
    # a_q -> six CARRY4 in series -> ld3 (the carry chain into d_q)
    prev = 10
    for k in range(6):
        cells[f'cy{k}'] = cell('CARRY4', CI=(i, [prev]), S=(i, ['0'] * 4), O=(o, [60 + k, '0', '0', '0']),
                               CO=(o, ['0', '0', '0', 42 + k]))
        prev = 42 + k
    cells['ld3']['connections']['I1'] = [prev]
    names = {'clk': [2], 'd_in': [3], 'a_q': [10], 'b_q': [22], 'c_q': [35], 'mem_rd': [20],
             'bram_rd': [30], 'l1_o': [11], 'l2_o': [12], 'l4_o': [21], 'd_q': [36], 'e_q': [52]}
    return {'modules': {'top': {'attributes': {'top': '00000000000000000000000000000001'},
                                'ports': {'out_o': {'direction': 'output', 'bits': [12]},
                                          'in_i': {'direction': 'input', 'bits': [3]}},
                                'cells': cells,
                                'netnames': {n: {'bits': b} for n, b in names.items()}}}}


# the model's constants, as logic_depth.py must define them (ns)
WANT_MODEL = {'lut': 0.5, 'carry4': 0.1, 'muxf': 0.1, 'clock': 0.5}
# group: (ns, levels, LUT, CARRY4, MUXF)
WANT = {'b_q': (2.5, 4, 4, 0, 0), 'mem_rd (RAM inputs)': (2.0, 3, 3, 0, 0), 'd_q': (2.0, 3, 3, 0, 0),
        'e_q': (1.1, 1, 1, 0, 1), 'c_q': (0.6, 1, 0, 1, 0), 'a_q': (0.5, 0, 0, 0, 0),
        'bram_rd (RAM inputs)': (0.5, 0, 0, 0, 0)}
LINE = re.compile(r'(\d+\.\d\d) ns (\d+) levels \((\d+) LUT, (\d+) CARRY4, (\d+) MUXF\) (.+)')


def run(tool, *args):
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location('logic_depth', a.tool)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    bad = []
    if tool.DELAY_NS != WANT_MODEL:
        bad.append(f'DELAY_NS is {tool.DELAY_NS}, expected {WANT_MODEL}')
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'netlist.json')
        with open(path, 'w') as f:
            json.dump(netlist(), f)
        out = run(a.tool, path, '--path', r'b_q\[0\]')
        named = run(a.tool, path, '--path', r'b_q\[0\]', '--names').stdout.splitlines()[-1:]
        top2 = run(a.tool, path, '--top', '2').stdout.splitlines()
        over = run(a.tool, path, '--limit', '2.4')
        under = run(a.tool, path, '--limit', '2.5')
        outs = run(a.tool, path, '--outputs').stdout.splitlines()
    if out.returncode != 0:
        sys.exit(f'logic_depth.py failed: {out.stderr}')
    got = {}
    for line in out.stdout.splitlines():
        if line.startswith('slowest'):
            got['path'] = line
        else:
            m = LINE.fullmatch(line)
            if not m:
                bad.append(f'line {line!r} is not "NS ns LEVELS levels (L LUT, C CARRY4, M MUXF) GROUP"')
                continue
            got[m.group(6)] = (float(m.group(1)),) + tuple(int(m.group(k)) for k in range(2, 6))
    bad += [f'{g}: {got.get(g)}, expected {w}' for g, w in WANT.items() if got.get(g) != w]
    want_path = 'slowest into b_q[0]: 2.50 ns, 4 levels: a_q[0] -> LUT2 -> LUT2 -> RAM64M -> LUT2'
    if got.get('path') != want_path:
        bad.append(f'path: {got.get("path")!r}, expected {want_path!r}')
    want_named = ('slowest into b_q[0]: 2.50 ns, 4 levels: a_q[0] -> LUT2(l1_o[0]) -> LUT2(l2_o[0]) -> '
                  'RAM64M(mem_rd[0]) -> LUT2(l4_o[0])')
    if named != [want_named]:
        bad.append(f'--names path: {named!r}, expected {want_named!r}')
    if [line.split()[-1] for line in top2] != ['b_q', 'd_q']:
        bad.append(f'--top 2 printed {top2!r}, expected b_q then d_q (2.0 ns and 3 levels, before '
                   'the RAM inputs: ties by name)')
    if over.returncode != 1 or 'b_q 2.50 ns' not in over.stderr or under.returncode != 0:
        bad.append(f'--limit: 2.4 gave exit {over.returncode} ({over.stderr.strip()!r}), 2.5 gave '
                   f'exit {under.returncode}; expected 1 naming b_q, then 0')
    want_out = '1.50 ns 2 levels (2 LUT, 0 CARRY4, 0 MUXF) out_o (output)'
    if want_out not in outs or any('in_i' in line for line in outs):
        bad.append(f'--outputs printed {outs!r}, expected {want_out!r} among them and no input port')
    if bad:
        sys.exit('synth.logic_depth: ' + '; '.join(bad) + '\n' + out.stdout)
    print('synth.logic_depth: ' + ', '.join(f'{g} {w[0]:.2f} ns {w[1]} levels' for g, w in WANT.items()))


if __name__ == '__main__':
    main()
