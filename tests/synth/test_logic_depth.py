#!/usr/bin/env python3
"""synth.logic_depth: constraints/yosys/logic_depth.py on a hand-made Yosys JSON netlist.

The netlist (flops FDRE, LUTs, a CARRY4, a distributed RAM64M, a block RAM RAMB36E2):
  a_q -> LUT2 -> LUT2 -> RAM64M ADDRA (async read, one level) -> DOA -> LUT2 -> b_q      4 levels
  a_q -> LUT1 x 3 -> RAM64M DIA (write data: an endpoint, not a path through it)       3 levels
  RAMB36E2 DOUTA (registered: a start) -> CARRY4 -> c_q                                 1 level
  b_q -> RAM64M WE                                                                      0 levels
If the script walked through the RAM's data input (the bug the RAM counters exposed),
b_q would count the three write-data LUTs (5 levels), and the RAM's own group would follow its
output back into itself; if it treated the block RAM as logic, c_q would count b_q's
path behind it. Usage: test_logic_depth.py --tool constraints/yosys/logic_depth.py
"""
import argparse
import json
import os
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
                    ADDRD=(i, ['0'] * 6), DIA=(i, [13]), DOA=(o, [20])),
        'l4': cell('LUT2', I0=(i, [20]), I1=(i, [10]), O=(o, [21])),
        'fb': cell('FDRE', C=(i, clk), D=(i, [21]), Q=(o, [22])),
        'bram': cell('RAMB36E2', CLKARDCLK=(i, clk), ADDRARDADDR=(i, [22]), DOUTADOUT=(o, [30])),
        'cy': cell('CARRY4', CI=(i, ['0']), S=(i, [30, '0', '0', '0']), O=(o, [31, 32, 33, 34])),
        'fc': cell('FDRE', C=(i, clk), D=(i, [31]), Q=(o, [35])),
    }
    names = {'clk': [2], 'd_in': [3], 'a_q': [10], 'b_q': [22], 'c_q': [35], 'mem_rd': [20],
             'bram_rd': [30], 'l1_o': [11], 'l2_o': [12], 'l4_o': [21]}
    return {'modules': {'top': {'attributes': {'top': '00000000000000000000000000000001'},
                                'cells': cells,
                                'netnames': {n: {'bits': b} for n, b in names.items()}}}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'netlist.json')
        with open(path, 'w') as f:
            json.dump(netlist(), f)
        out = subprocess.run([sys.executable, a.tool, path, '--path', r'b_q\[0\]'],
                             capture_output=True, text=True)
        named = subprocess.run([sys.executable, a.tool, path, '--path', r'b_q\[0\]', '--names'],
                               capture_output=True, text=True).stdout.splitlines()[-1:]
    if out.returncode != 0:
        sys.exit(f'logic_depth.py failed: {out.stderr}')
    got = {}
    for line in out.stdout.splitlines():
        if line.startswith('deepest'):
            got['path'] = line
        else:
            levels, group = line.split(' ', 1)
            got[group] = int(levels)
    want = {'b_q': 4, 'mem_rd (RAM inputs)': 3, 'c_q': 1, 'a_q': 0, 'bram_rd (RAM inputs)': 0}
    bad = [f'{g}: {got.get(g)} levels, expected {n}' for g, n in want.items() if got.get(g) != n]
    want_path = 'deepest into b_q[0]: 4 levels: a_q[0] -> LUT2 -> LUT2 -> RAM64M -> LUT2'
    if got.get('path') != want_path:
        bad.append(f'path: {got.get("path")!r}, expected {want_path!r}')
    want_named = ('deepest into b_q[0]: 4 levels: a_q[0] -> LUT2(l1_o[0]) -> LUT2(l2_o[0]) -> '
                  'RAM64M(mem_rd[0]) -> LUT2(l4_o[0])')
    if named != [want_named]:
        bad.append(f'--names path: {named!r}, expected {want_named!r}')
    if bad:
        sys.exit('synth.logic_depth: ' + '; '.join(bad) + '\n' + out.stdout)
    print('synth.logic_depth: ' + ', '.join(f'{g} {n}' for g, n in want.items()))


if __name__ == '__main__':
    main()
