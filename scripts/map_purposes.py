#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every export's purpose is one line on its own line of lib/libpbench.map, after a '#':

    \t\tpbench_runs_new;\t# make the sets of runs of a command, workload or function (opts)

This script moves purposes between the map and a TSV (one export a line: NAME<TAB>PURPOSE), so
that purposes written on one branch can be put back on the map of another (the lines that
branch still has; the order and grouping of the map are left as they are).

Usage:
  scripts/map_purposes.py apply TSV [MAP]   add or replace the '# ...' of each export the TSV
                                            names; other lines are left as they are. Names of
                                            the TSV the map does not list are said on stderr.
  scripts/map_purposes.py dump [MAP]        print the map's exports as the TSV (an export
                                            without a purpose: an empty purpose)
MAP defaults to lib/libpbench.map. tests/cli/t_help.sh checks that every export has a purpose
of 3 words or more.
"""
import re
import sys

LINE = re.compile(r'^(\s+)(\w+);[ \t]*(?:#[ \t]*(.*?))?[ \t]*$')


def read_tsv(path):
    purposes = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            name, tab, purpose = line.partition('\t')
            purpose = ' '.join(purpose.split())
            if not tab or not re.fullmatch(r'\w+', name) or not purpose:
                sys.exit('%s:%d: not NAME<TAB>PURPOSE: %r' % (path, n, line))
            purposes[name] = purpose
    return purposes


def apply(tsv, path):
    purposes = read_tsv(tsv)
    out, seen = [], set()
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if m and m.group(2) in purposes and m.group(2) not in ('global', 'local'):
                name = m.group(2)
                seen.add(name)
                line = '%s%s;\t# %s\n' % (m.group(1), name, purposes[name])
            out.append(line)
    with open(path, 'w') as f:
        f.writelines(out)
    for name in sorted(set(purposes) - seen):
        print('%s: not in %s, left out' % (name, path), file=sys.stderr)
    print('%d of %d purposes put on %s' % (len(seen), len(purposes), path), file=sys.stderr)


def dump(path):
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if m and m.group(2) not in ('global', 'local'):
                print('%s\t%s' % (m.group(2), m.group(3) or ''))


def main(argv):
    if len(argv) >= 2 and argv[0] == 'apply' and len(argv) <= 3:
        apply(argv[1], argv[2] if len(argv) == 3 else 'lib/libpbench.map')
    elif len(argv) >= 1 and argv[0] == 'dump' and len(argv) <= 2:
        dump(argv[1] if len(argv) == 2 else 'lib/libpbench.map')
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
