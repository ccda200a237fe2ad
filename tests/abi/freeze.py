#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ABI freeze, append-only (as libpfm4's tests/validate.c freezes its structs, but a
field may be added at the end of a versioned struct, never moved, removed or retyped).

tests/abi/freeze.txt holds one line per field of every public struct (`struct pbench_* {` in
lib/include/pbench/*.h), in declaration order, measured by the compiler:

    <chain> <struct> <field> <offset> <size> <type>

<chain> is the first 16 hex digits of sha256(<chain of the line before> "\\n" <the rest of the
line>) (the first line's "before" is "PBENCH_ABI"): editing, removing, reordering or inserting
a line breaks the chain from there on, and recomputing the chain changes every later line's
value, which the anchors below catch. ANCHORS is append-only too: (line number, chain at that
line) pairs; each says "the file up to that line is this one". No git history is needed.

Usage (from the top of the tree):
  tests/abi/freeze.py check [--root DIR] [--cc CC]   the headers against the freeze (exit 1)
  tests/abi/freeze.py append [--root DIR] [--cc CC]  append the fields added at the end of a
                                                     struct (or new structs); prints the anchor
                                                     to add to ANCHORS
  tests/abi/freeze.py cfile [--root DIR]             write tests/unit/test_abi.c from the freeze
                                                     (the same offsets checked by the compiler
                                                     of each build: clang, sanitizers)
The rules check enforces: every frozen field is still there, at its offset, with its size and
type, in the same order; a field not frozen yet fails until it is appended; a struct without
a size_t size first (not versioned: handed out in arrays or embedded) never grows.
"""
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

# (line, chain) pairs: append one after each `freeze.py append` (it prints it); never edit
# or remove one. The first is the freeze of PBENCH_1 (soname 1).
ANCHORS = [
    (543, 'a6931d76cef79f58'),
    (557, '368e8a141a86873a'),
    (622, 'b7df9a8ec128b546'),
    (625, '2a0e140f24f710dd'),
    (671, '78e7222da0912303'),
    (690, 'bd2f1def756bc9d1'),
    (694, '0e7e346f5c30165b'),
    (699, '7ec66fe69ab17c6f'),
    (704, '072d898a69dd9d69'),
    (706, 'a6f0d9b872185876'),
    (707, '97e914d0bf762c9a'),
]

SEED = 'PBENCH_ABI'
FREEZE = 'tests/abi/freeze.txt'
HEAD = """# The ABI freeze: append-only (tests/abi/freeze.py says the rules; never edit a line).
# <chain> <struct> <field> <offset> <size> <type>
"""


def chain(prev, rest):
    return hashlib.sha256((prev + '\n' + rest).encode()).hexdigest()[:16]


def structs(root):
    """(name, [(field, type)]) of every `struct pbench_* {` in the public headers, in order."""
    found = []
    for path in sorted(glob.glob(os.path.join(root, 'lib/include/pbench/*.h'))):
        text = open(path).read()
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        for m in re.finditer(r'^struct (pbench_\w+) \{(.*?)^\};', text, flags=re.S | re.M):
            fields = []
            for stmt in m.group(2).split(';'):
                stmt = ' '.join(stmt.split())
                if not stmt:
                    continue
                fp = re.search(r'^(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$', stmt)
                if fp:
                    # the type without the names: "int(*)(void*,void*)"
                    params = [re.sub(r'(\S[\w\s\*]*?[\s\*])\w+\s*$', r'\1', p).strip()
                              for p in fp.group(3).split(',')]
                    fields.append((fp.group(2), ('fnptr:' + fp.group(1) + '(*)(' +
                                                 ','.join(params) + ')').replace(' ', '')))
                    continue
                # "type a, *b, c[4]": the declarators after the type
                parts = stmt.split(',')
                first = re.search(r'^(.*?)(\**)\s*(\w+)\s*(\[[^\]]*\])?\s*$', parts[0])
                base = first.group(1).strip()
                decls = [(first.group(2), first.group(3), first.group(4) or '')]
                for p in parts[1:]:
                    d = re.search(r'^\s*(\**)\s*(\w+)\s*(\[[^\]]*\])?\s*$', p)
                    decls.append((d.group(1), d.group(2), d.group(3) or ''))
                for stars, name, arr in decls:
                    fields.append((name, (base + ' ' + stars).strip().replace(' ', '_') +
                                   arr.replace(' ', '')))
            found.append((m.group(1), fields))
    return found


def measure(root, cc, found):
    """{(struct, field): (offset, size)}, as the compiler lays them out."""
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "pbench.h"',
             'int main(void)', '{']
    for name, fields in found:
        for f, _ in fields:
            lines.append('\tprintf("%s %s %%zu %%zu\\n", offsetof(struct %s, %s), '
                         'sizeof(((struct %s *)0)->%s));' % (name, f, name, f, name, f))
    lines += ['\treturn 0;', '}']
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, 'abi.c'), os.path.join(d, 'abi')
        open(src, 'w').write('\n'.join(lines) + '\n')
        subprocess.check_call([cc, '-std=gnu11', '-D_GNU_SOURCE', '-I',
                               os.path.join(root, 'lib/include'), src, '-o', exe])
        out = subprocess.check_output([exe]).decode()
    got = {}
    for line in out.splitlines():
        s, f, off, size = line.split()
        got[(s, f)] = (int(off), int(size))
    return got


def current(root, cc):
    """[(struct, field, offset, size, type)] of the headers, in order."""
    found = structs(root)
    got = measure(root, cc, found)
    return [(s, f, got[(s, f)][0], got[(s, f)][1], t) for s, fields in found for f, t in fields]


def read_freeze(root):
    """The frozen records, and the problems of the file itself (chain, anchors)."""
    path = os.path.join(root, FREEZE)
    recs, bad, prev, n = [], [], SEED, 0
    if not os.path.exists(path):
        return recs, ['%s is missing' % FREEZE], prev
    for line in open(path).read().splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        n += 1
        w = line.split(' ', 1)
        want = chain(prev, w[1]) if len(w) == 2 else None
        if want != w[0]:
            bad.append('%s: record %d breaks the chain (%s, want %s): the file was edited, not '
                       'appended to (a line changed, removed, reordered or inserted before '
                       'it)' % (FREEZE, n, w[0], want))
            break
        prev = w[0]
        f = w[1].split()
        recs.append((f[0], f[1], int(f[2]), int(f[3]), f[4], prev))
    for at, h in ANCHORS:
        if at > len(recs) or recs[at - 1][5] != h:
            bad.append('%s: anchor (%d, %s) does not hold: the file up to record %d was '
                       'rewritten (the chain recomputed); it may only grow' %
                       (FREEZE, at, h, at))
    return recs, bad, prev


def compare(recs, cur):
    """The problems of the headers against the frozen records, and the records to append."""
    bad, add = [], []
    cur_by = {}
    for s, f, off, size, t in cur:
        cur_by.setdefault(s, []).append((f, off, size, t))
    frozen_by = {}
    for s, f, off, size, t, _ in recs:
        frozen_by.setdefault(s, []).append((f, off, size, t))
    for s, fz in frozen_by.items():
        now = cur_by.get(s)
        if now is None:
            bad.append('struct %s was removed (frozen with %d fields)' % (s, len(fz)))
            continue
        for i, (f, off, size, t) in enumerate(fz):
            if i >= len(now):
                bad.append('%s.%s was removed (frozen at offset %d)' % (s, f, off))
                continue
            nf, noff, nsize, nt = now[i]
            if nf != f:
                bad.append('%s: field %d is %s, frozen as %s: a field was moved, renamed, '
                           'removed or inserted' % (s, i + 1, nf, f))
            elif (noff, nsize, nt) != (off, size, t):
                bad.append('%s.%s is at %d, %d bytes, %s; frozen at %d, %d bytes, %s: moved or '
                           'retyped' % (s, f, noff, nsize, nt, off, size, t))
        if len(now) > len(fz):
            if fz[0][0] != 'size':
                bad.append('struct %s has no size_t size first (not versioned): it cannot '
                           'grow, yet %s was added' % (s, now[len(fz)][0]))
            else:
                add += [(s,) + x for x in now[len(fz):]]
    for s, now in cur_by.items():
        if s not in frozen_by:
            add += [(s,) + x for x in now]
    return bad, add


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args else 'check'
    root, cc = '.', os.environ.get('CC', 'cc')
    while args:
        a = args.pop(0)
        if a == '--root':
            root = args.pop(0)
        elif a == '--cc':
            cc = args.pop(0)
        else:
            sys.exit(__doc__)
    recs, bad, last = read_freeze(root)
    if mode == 'cfile':
        if bad:
            sys.exit('\n'.join(bad))
        write_cfile(root, recs)
        return 0
    if mode not in ('check', 'append', 'init'):
        sys.exit(__doc__)
    cur = current(root, cc)
    if mode == 'init':
        # Only for a tree with no freeze yet: the first freeze of a soname.
        if recs or ANCHORS:
            sys.exit('%s exists: it may only be appended to (freeze.py append)' % FREEZE)
        recs, bad, last = [], [], SEED
    more, add = compare(recs, cur)
    bad += more
    if bad:
        print('\n'.join('FAIL abi: ' + b for b in bad))
        return 1
    if mode == 'check':
        for s, f, off, size, t in add:
            print('FAIL abi: %s.%s (offset %d) is not frozen: append it (tests/abi/freeze.py '
                  'append, then add the anchor it prints)' % (s, f, off))
        return 1 if add else 0
    path = os.path.join(root, FREEZE)
    new = '' if os.path.exists(path) else HEAD
    for s, f, off, size, t in add:
        rest = '%s %s %d %d %s' % (s, f, off, size, t)
        last = chain(last, rest)
        new += '%s %s\n' % (last, rest)
    open(path, 'a').write(new)
    n = len(recs) + len(add)
    print('%s: %d records appended; add to ANCHORS in tests/abi/freeze.py: (%d, \'%s\')' %
          (FREEZE, len(add), n, last))
    return 0


def write_cfile(root, recs):
    out = ['/* SPDX-License-Identifier: MIT */',
           '/*',
           ' * The frozen ABI (tests/abi/freeze.txt, append-only) as each build\'s compiler lays',
           ' * the structs out: every frozen field at its offset with its size. Generated by',
           ' * tests/abi/freeze.py cfile from the freeze file; tests/abi/run.sh checks that it is.',
           ' */',
           '#include <criterion/criterion.h>',
           '#include <stddef.h>',
           '',
           '#include "pbench.h"',
           '']
    by = {}
    for s, f, off, size, t, _ in recs:
        by.setdefault(s, []).append((f, off, size))
    for s, fields in by.items():
        out.append('Test(abi, %s)' % s)
        out.append('{')
        for f, off, size in fields:
            out.append('\tcr_expect_eq(offsetof(struct %s, %s), %d, "%s moved");' % (s, f, off, f))
            out.append('\tcr_expect_eq(sizeof(((struct %s *)0)->%s), %d, "%s resized");'
                       % (s, f, size, f))
        out.append('}')
        out.append('')
    open(os.path.join(root, 'tests/unit/test_abi.c'), 'w').write('\n'.join(out))


if __name__ == '__main__':
    sys.exit(main())
