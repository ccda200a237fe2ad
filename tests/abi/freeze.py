#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ABI freeze, append-only, per soname, checked against git history.

tests/abi/freeze.txt holds one record a line of everything a program built against
libpbench.so.N depends on, as the compiler sees it:

    <chain> <struct> <field> <offset> <size> <type>   a field of a public struct (the first
                                                       format: these records carry no kind)
    <chain> enum <enum> <NAME> <value>                 an enumerator of a public enum
    <chain> typedef <name> <type>                      a public typedef
    <chain> define <NAME> <value>                      an object-like #define PBENCH_* constant
    <chain> fn <name> <signature>                      a PBENCH_API function, as gcc -aux-info
                                                       prints it (no parameter names; blanks
                                                       only between two words)
    <chain> export <name> <version node>               a symbol of lib/libpbench.map
    <chain> soname <N>                                 the start of soname N's freeze

The records before the first `soname` line are soname 1's. Only the current soname's records
(Makefile SOVERSION) are compared with the tree; the older ones stay, as history.

A #define is frozen when it is a value a caller compiles in (a number or a string: a limit, a
flag, a threshold), as the compiler evaluates it. Not frozen: the version-ish ones that change
on purpose (PBENCH_VERSION_*, *_SCHEMA: the release and the data formats say what they are),
the defaults (*_DEFAULT_*: what the library does with a 0 or a NULL, which it may tune; a
program built with the old value still passes a value the library takes),
PBENCH_CALLER_OPTIMIZED (the caller's own flags), PBENCH_API and the include guards, the
function-like macros and the { ... } initializers (*_INIT: their size grows with their struct,
frozen field by field; their defaults are the library's to tune).

Three guards, each against another way of resetting the freeze:
- the chain: <chain> is the first 16 hex digits of sha256(<chain of the record before> "\\n"
  <the rest of the line>) (the first record's "before" is "PBENCH_ABI"): a record edited,
  removed, reordered or inserted breaks it;
- ANCHORS below: (record number, chain) pairs, append-only: a chain recomputed breaks them;
- git history (freeze.py history): every record the file had in a commit of this branch's
  first-parent history is still there, unchanged, at its place. A file deleted and initialized
  again, with its anchors replaced, passes the first two and fails this one; so does the same
  reset committed. Makefile's SOVERSION never went down either. A tree without git history (no
  .git, a shallow clone) skips this part and says why.
The only fresh start is a soname bump (freeze.py bump): a `soname N` line and the whole ABI
again after it, appended; the older records stay.

Usage (from the top of the tree):
  tests/abi/freeze.py check [--root DIR] [--cc CC] [--build DIR] [--no-history]
        the tree against the freeze, then git history (exit 1 on a failure; a part that cannot
        run here prints "SKIP <part>: <why>"); --build DIR: also nm -D DIR/libpbench.so against
        lib/libpbench.map, and its SONAME against SOVERSION
  tests/abi/freeze.py history [--root DIR]
        git history only: exit 0 when it holds, 1 when not, 2 when there is none to read here
  tests/abi/freeze.py append [--root DIR] [--cc CC]
        append what was added (a field at the end of a versioned struct, a new struct, enum
        value, typedef, define, function or export); prints the anchor to add to ANCHORS
  tests/abi/freeze.py bump [--root DIR] [--cc CC]
        after SOVERSION was raised: start that soname's freeze (HACKING.md: a soname bump)
  tests/abi/freeze.py init [--root DIR] [--cc CC]
        the first freeze of a tree that has none (and no ANCHORS)
  tests/abi/freeze.py cfile [--root DIR]
        write tests/unit/test_abi.c from the current soname's freeze (each build's compiler
        checks the same offsets, enum values and signatures: clang, sanitizers)
"""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (record, chain) pairs: append one after each `freeze.py append` or `bump` (it prints it);
# never edit or remove one. The first is the freeze of PBENCH_1 (soname 1).
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
    (1657, 'f56d0c98bae45931'),
    (1660, 'd9e785f40edc6d3a'),
    (1661, '2003984def379a63'),
    (1673, '339ce78c47cb7bc4'),
    (1675, '76e2be5078231c27'),
    (3281, '55bca948393d1a67'),
    (3335, '8558449b870c19fb'),
    (3379, '615ab3770cbd2ba8'),
    (3418, '050eb5ee513e5c47'),
    (3424, '60ad8c5ad3b94af0'),
    (3457, '701788cea8790988'),
    (3503, 'fc9c64c0abff6884'),
    (3504, '8450c46b55af3fce'),
    (3513, '93c6766491382020'),
    (3515, '01bae312deb2e807'),
]

SEED = 'PBENCH_ABI'
FREEZE = 'tests/abi/freeze.txt'
FIRST_SONAME = 1
HEAD = """# The ABI freeze: append-only (tests/abi/freeze.py says the rules; never edit a line).
# <chain> <struct> <field> <offset> <size> <type>
"""
KINDS = ('enum', 'typedef', 'define', 'fn', 'export')
# Not frozen (the docstring says why).
DEFINE_SKIP = re.compile(r'^PBENCH_(API|H|H_\w+|VERSION_\w+|\w+_SCHEMA|CALLER_OPTIMIZED|'
                         r'\w*_DEFAULT_\w+|\w+_DEFAULT)$')


def chain(prev, rest):
    return hashlib.sha256((prev + '\n' + rest).encode()).hexdigest()[:16]


def git_env():
    env = dict(os.environ)
    for v in ('GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY'):
        env.pop(v, None)
    return env


# ---- the tree ---------------------------------------------------------------------------------

def headers(root):
    """(path, text without comments) of each public header, in order."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, 'lib/include/pbench/*.h'))):
        text = open(path).read()
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        out.append((path, text))
    return out


def ctype(decl):
    """A declaration's type without its name: 'fnptr:int(*)(void*,void*)', 'const_char_*'."""
    fp = re.search(r'^(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$', decl)
    if fp:
        params = [re.sub(r'(\S[\w\s\*]*?[\s\*])\w+\s*$', r'\1', p).strip()
                  for p in fp.group(3).split(',')]
        return fp.group(2), ('fnptr:' + fp.group(1) + '(*)(' + ','.join(params) +
                             ')').replace(' ', '')
    return None


def structs(hdrs):
    """(name, [(field, type)]) of every `struct pbench_* {` in the public headers, in order."""
    found = []
    for _, text in hdrs:
        for m in re.finditer(r'^struct (pbench_\w+) \{(.*?)^\};', text, flags=re.S | re.M):
            fields = []
            for stmt in m.group(2).split(';'):
                stmt = ' '.join(stmt.split())
                if not stmt:
                    continue
                fp = ctype(stmt)
                if fp:
                    fields.append(fp)
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


def enums(hdrs):
    """[(enum, NAME)] of every `enum pbench_* { ... };`, in order."""
    out = []
    for _, text in hdrs:
        for m in re.finditer(r'\benum\s+(pbench_\w+)\s*\{(.*?)\}\s*;', text, flags=re.S):
            for item in m.group(2).split(','):
                name = item.split('=')[0].strip()
                if name:
                    out.append((m.group(1), name))
    return out


def typedefs(hdrs):
    """[(name, type)] of every typedef of the public headers."""
    out = []
    for _, text in hdrs:
        for m in re.finditer(r'\btypedef\s+([^;{}]*);', text):
            decl = ' '.join(m.group(1).split())
            fp = ctype(decl)
            if fp:
                out.append(fp)
            else:
                d = re.search(r'^(.*?)(\**)\s*(\w+)$', decl)
                out.append((d.group(3), (d.group(1).strip() + ' ' + d.group(2)).strip()
                            .replace(' ', '_')))
    return out


def defines(root, cc):
    """[(NAME, expansion)] of the object-like #define PBENCH_* of the public headers that are
    frozen (DEFINE_SKIP, and no { ... } initializer), in order."""
    out = subprocess.check_output([cc, '-E', '-dD', '-std=gnu11', '-D_GNU_SOURCE', '-I',
                                   os.path.join(root, 'lib/include'),
                                   os.path.join(root, 'lib/include/pbench.h')]).decode()
    inc, here, seen, found = os.path.realpath(os.path.join(root, 'lib/include')), False, set(), []
    for line in out.splitlines():
        m = re.match(r'^# \d+ "(.*)"', line)
        if m:
            here = os.path.realpath(m.group(1)).startswith(inc + os.sep)
            continue
        m = re.match(r'^#define (PBENCH_\w+)(?:\s+(.*))?$', line)
        if not here or not m or DEFINE_SKIP.match(m.group(1)) or m.group(1) in seen:
            continue
        val = (m.group(2) or '').strip()
        if not val or val.startswith('{'):
            continue
        seen.add(m.group(1))
        found.append((m.group(1), val))
    return found


def probe(root, cc, found, names, defs):
    """Compile and run one program: the offsets and sizes of the fields, the values of the
    enumerators and of the defines, as the compiler has them."""
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "pbench.h"',
             'static void abi_i(const char *n, long long v) { printf("D %s %lld\\n", n, v); }',
             'static void abi_u(const char *n, unsigned long long v) '
             '{ printf("D %s %llu\\n", n, v); }',
             'static void abi_d(const char *n, double v) { printf("F %s %.17g\\n", n, v); }',
             'static void abi_s(const char *n, const char *v) { printf("S %s %s\\n", n, v); }',
             '#define ABI_V(n, x) _Generic((x), char *: abi_s, const char *: abi_s, '
             'float: abi_d, double: abi_d, long double: abi_d, unsigned int: abi_u, '
             'unsigned long: abi_u, unsigned long long: abi_u, default: abi_i)(n, x)',
             'int main(void)', '{']
    for name, fields in found:
        for f, _ in fields:
            lines.append('\tprintf("%s %s %%zu %%zu\\n", offsetof(struct %s, %s), '
                         'sizeof(((struct %s *)0)->%s));' % (name, f, name, f, name, f))
    for _, n in names:
        lines.append('\tprintf("E %s %%lld\\n", (long long)%s);' % (n, n))
    for n, _ in defs:
        lines.append('\tABI_V("%s", %s);' % (n, n))
    lines += ['\treturn 0;', '}']
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, 'abi.c'), os.path.join(d, 'abi')
        open(src, 'w').write('\n'.join(lines) + '\n')
        subprocess.check_call([cc, '-std=gnu11', '-D_GNU_SOURCE', '-I',
                               os.path.join(root, 'lib/include'), src, '-o', exe])
        out = subprocess.check_output([exe]).decode()
    got = {}
    for line in out.splitlines():
        w = line.split(' ', 2)
        if w[0] == 'E':
            got[w[1]] = w[2]
        elif w[0] == 'D':
            got[w[1]] = w[2]
        elif w[0] == 'F':
            got[w[1]] = repr(float(w[2]))
        elif w[0] == 'S':
            got[w[1]] = '"' + w[2] + '"'
        else:
            s, f, rest = w
            off, size = rest.split()
            got[(s, f)] = (int(off), int(size))
    return got


def norm_sig(text):
    """Blanks only between two words: 'const char*pbench_strerror(int)'."""
    text = ' '.join(text.split())
    return re.sub(r'\s*([^\w\s])\s*', r'\1', text)


def functions(root, skips):
    """[(name, signature)] of the functions the public headers declare, from gcc -aux-info
    (the compiler's text: robust to blanks, comments, macros and parameter names)."""
    gcc = shutil.which('gcc')
    if not gcc:
        skips.append('signatures: gcc is not installed (its -aux-info prints them)')
        return None
    inc = os.path.realpath(os.path.join(root, 'lib/include'))
    with tempfile.TemporaryDirectory() as d:
        src, aux = os.path.join(d, 'abi.c'), os.path.join(d, 'aux.txt')
        open(src, 'w').write('#include "pbench.h"\n')
        subprocess.check_call([gcc, '-std=gnu11', '-D_GNU_SOURCE', '-I', inc, '-aux-info', aux,
                               '-fsyntax-only', src])
        text = open(aux).read()
    out = []
    for m in re.finditer(r'^/\* (.*?):(\d+):\w+ \*/ extern (.*);$', text, flags=re.M):
        if not os.path.realpath(m.group(1)).startswith(inc + os.sep):
            continue
        sig = norm_sig(m.group(3))
        name = re.search(r'(pbench_\w+)\(', sig)
        out.append((name.group(1) if name else sig, sig))
    return out


def exports(root):
    """(version node, [symbol]) of lib/libpbench.map."""
    text = re.sub(r'#[^\n]*', '', open(os.path.join(root, 'lib/libpbench.map')).read())
    m = re.search(r'(\w+)\s*\{\s*global:(.*?)local:', text, flags=re.S)
    if not m:
        return None, []
    return m.group(1), [s.strip() for s in m.group(2).split(';') if s.strip()]


def soversion(root):
    return makefile_soversion(open(os.path.join(root, 'Makefile')).read())


def makefile_soversion(text):
    m = re.search(r'^SOVERSION\s*:?=\s*(\d+)\s*$', text, flags=re.M)
    return int(m.group(1)) if m else None


def current(root, cc, skips):
    """The tree's records, in the freeze's order: [(kind, key, value)], kind '' for a field
    (key (struct, field), value (offset, size, type))."""
    hdrs = headers(root)
    found, names, defs = structs(hdrs), enums(hdrs), defines(root, cc)
    got = probe(root, cc, found, names, defs)
    recs = [('', (s, f), (got[(s, f)][0], got[(s, f)][1], t)) for s, fields in found
            for f, t in fields]
    recs += [('enum', n, (e, got[n])) for e, n in names]
    recs += [('typedef', n, (t,)) for n, t in typedefs(hdrs)]
    recs += [('define', n, (got[n],)) for n, _ in defs]
    fns = functions(root, skips)
    if fns is not None:
        recs += [('fn', n, (s,)) for n, s in fns]
    node, syms = exports(root)
    recs += [('export', s, (node,)) for s in syms]
    return recs, fns, node, syms


def rest_of(kind, key, value):
    """The text of a record after its chain."""
    if kind == '':
        return '%s %s %d %d %s' % (key + value)
    if kind == 'enum':
        return 'enum %s %s %s' % (value[0], key, value[1])
    return '%s %s %s' % (kind, key, value[0])


def parse_rest(rest):
    w = rest.split(' ')
    if w[0] == 'soname':
        return 'soname', int(w[1]), ()
    if w[0] == 'enum':
        return 'enum', w[2], (w[1], w[3])
    if w[0] in KINDS:
        return w[0], w[1], (' '.join(w[2:]),)
    return '', (w[0], w[1]), (int(w[2]), int(w[3]), w[4])


def show(kind, key, value):
    if kind == '':
        return '%s.%s at %d, %d bytes, %s' % (key + value)
    if kind == 'enum':
        return '%s = %s (enum %s)' % (key, value[1], value[0])
    if kind == 'fn':
        return value[0]
    if kind == 'export':
        return '%s in %s' % (key, value[0])
    return '%s %s' % (key, value[0])


# ---- the freeze file --------------------------------------------------------------------------

def record_lines(text):
    return [line for line in text.splitlines() if line.strip() and not line.startswith('#')]


def read_freeze(root):
    """The records ([(kind, key, value, chain)]), the problems of the file itself (chain,
    anchors), and the last chain."""
    path = os.path.join(root, FREEZE)
    recs, bad, prev = [], [], SEED
    if not os.path.exists(path):
        return recs, ['%s is missing' % FREEZE], prev
    for n, line in enumerate(record_lines(open(path).read()), 1):
        w = line.split(' ', 1)
        want = chain(prev, w[1]) if len(w) == 2 else None
        if want != w[0]:
            bad.append('%s: record %d breaks the chain (%s, want %s): the file was edited, not '
                       'appended to (a line changed, removed, reordered or inserted before '
                       'it)' % (FREEZE, n, w[0], want))
            break
        prev = w[0]
        try:
            recs.append(parse_rest(w[1]) + (prev,))
        except (IndexError, ValueError):
            bad.append('%s: record %d cannot be read: %s' % (FREEZE, n, w[1]))
            break
    for at, h in ANCHORS:
        if at > len(recs) or recs[at - 1][3] != h:
            bad.append('%s: anchor (%d, %s) does not hold: the file up to record %d was '
                       'rewritten (the chain recomputed); it may only grow' %
                       (FREEZE, at, h, at))
    return recs, bad, prev


def sections(recs):
    """{soname: [records]} and the problems of the soname lines."""
    out, bad, cur = {FIRST_SONAME: []}, [], FIRST_SONAME
    for r in recs:
        if r[0] == 'soname':
            if r[1] <= cur and (r[1] != FIRST_SONAME or out[FIRST_SONAME]):
                bad.append('%s: soname %d after soname %d: a soname only grows' %
                           (FREEZE, r[1], cur))
            cur = r[1]
            out[cur] = []
        else:
            out[cur].append(r)
    return out, bad


# ---- the comparisons --------------------------------------------------------------------------

def compare_fields(frozen, now):
    """The problems of the struct fields, and the records to append."""
    bad, add = [], []
    cur_by, frozen_by = {}, {}
    for _, (s, f), (off, size, t) in now:
        cur_by.setdefault(s, []).append((f, off, size, t))
    for _, (s, f), (off, size, t), _ in frozen:
        frozen_by.setdefault(s, []).append((f, off, size, t))
    for s, fz in frozen_by.items():
        nw = cur_by.get(s)
        if nw is None:
            bad.append('struct %s was removed (frozen with %d fields)' % (s, len(fz)))
            continue
        for i, (f, off, size, t) in enumerate(fz):
            if i >= len(nw):
                bad.append('%s.%s was removed (frozen at offset %d)' % (s, f, off))
                continue
            nf, noff, nsize, nt = nw[i]
            if nf != f:
                bad.append('%s: field %d is %s, frozen as %s: a field was moved, renamed, '
                           'removed or inserted' % (s, i + 1, nf, f))
            elif (noff, nsize, nt) != (off, size, t):
                bad.append('%s.%s is at %d, %d bytes, %s; frozen at %d, %d bytes, %s: moved or '
                           'retyped' % (s, f, noff, nsize, nt, off, size, t))
        if len(nw) > len(fz):
            if fz[0][0] != 'size':
                bad.append('struct %s has no size_t size first (not versioned): it cannot '
                           'grow, yet %s was added' % (s, nw[len(fz)][0]))
            else:
                add += [('', (s, x[0]), x[1:]) for x in nw[len(fz):]]
    for s, nw in cur_by.items():
        if s not in frozen_by:
            add += [('', (s, x[0]), x[1:]) for x in nw]
    return bad, add


WHAT = {'enum': 'enumerator', 'typedef': 'typedef', 'define': '#define', 'fn': 'function',
        'export': 'export'}


def compare(frozen, now, kinds):
    """The problems of the tree against the frozen records of one soname, and the records to
    append (in the order of the tree)."""
    bad, add = compare_fields([r for r in frozen if r[0] == ''], [r for r in now if r[0] == ''])
    for kind in KINDS:
        if kind not in kinds:
            continue
        nw = {k: v for c, k, v in now if c == kind}
        fz = [(k, v) for c, k, v, _ in frozen if c == kind]
        fz_keys = set(k for k, _ in fz)
        gone = {}
        for k, v in fz:
            if k not in nw:
                gone.setdefault(v[0] if kind == 'enum' else None, []).append((k, v))
            elif nw[k] != v:
                bad.append('%s %s changed: %s, frozen as %s' %
                           (WHAT[kind], k, show(kind, k, nw[k]), show(kind, k, v)))
        for e, ks in gone.items():
            if kind == 'enum' and not any(c == 'enum' and v[0] == e for c, _, v in now):
                bad.append('enum %s was removed (frozen with %d values: %s)' %
                           (e, len(ks), ', '.join('%s = %s' % (k, v[1]) for k, v in ks)))
                continue
            for k, v in ks:
                bad.append('%s %s was removed (frozen as %s)' % (WHAT[kind], k, show(kind, k, v)))
        add += [(c, k, v) for c, k, v in now if c == kind and k not in fz_keys]
    return bad, add


def tree_problems(root, build, node, syms, fns, so):
    """What the freeze needs of the tree besides the records: the map's node is the soname's,
    every export is a declared function and every declared function exported, and the built
    library exports what the map says."""
    bad, skips = [], []
    if node != 'PBENCH_%d' % so:
        bad.append('lib/libpbench.map: the version node is %s, not PBENCH_%d (Makefile '
                   'SOVERSION %d)' % (node, so, so))
    if fns is not None:
        declared = set(n for n, _ in fns)
        for s in syms:
            if s not in declared:
                bad.append('lib/libpbench.map exports %s, which no public header declares' % s)
        for n in sorted(declared - set(syms)):
            bad.append('%s is declared in lib/include but not exported (lib/libpbench.map)' % n)
    if build is None:
        return bad, skips
    lib = os.path.join(build, 'libpbench.so')
    if not os.path.exists(lib):
        skips.append('exports: %s is not built (make), the map alone is frozen' % lib)
        return bad, skips
    if not shutil.which('nm') or not shutil.which('readelf'):
        skips.append('exports: nm or readelf (binutils) is not installed')
        return bad, skips
    dyn = subprocess.check_output(['readelf', '-d', lib]).decode()
    m = re.search(r'\(SONAME\).*\[(.*)\]', dyn)
    if not m or m.group(1) != 'libpbench.so.%d' % so:
        bad.append('%s: SONAME %s, not libpbench.so.%d (Makefile SOVERSION): rebuild' %
                   (lib, m.group(1) if m else 'none', so))
    got = {}
    for line in subprocess.check_output(['nm', '-D', '--defined-only', lib]).decode().splitlines():
        w = line.split()
        if len(w) == 3 and w[1] != 'A':
            sym, _, ver = w[2].partition('@@')
            got[sym.split('@')[0]] = ver
    for s in syms:
        if s not in got:
            bad.append('%s does not export %s (lib/libpbench.map does): rebuild' % (lib, s))
        elif got[s] != node:
            bad.append('%s exports %s in %s, lib/libpbench.map in %s' % (lib, s, got[s], node))
    for s in sorted(set(got) - set(syms)):
        bad.append('%s exports %s, which lib/libpbench.map does not list' % (lib, s))
    return bad, skips


# ---- git history ------------------------------------------------------------------------------

def git(root, *args):
    return subprocess.run(['git'] + list(args), cwd=root, env=git_env(), capture_output=True)


def versions(root, path):
    """[(commit, date, text)] of path along the first-parent history of HEAD, oldest first."""
    r = git(root, 'log', '--first-parent', '--format=%H %cs', '--', path)
    if r.returncode:
        return None
    commits = [line.split() for line in r.stdout.decode().splitlines()][::-1]
    if not commits:
        return []
    inp = ''.join('%s:%s\n' % (c, path) for c, _ in commits).encode()
    out = subprocess.run(['git', 'cat-file', '--batch'], cwd=root, env=git_env(), input=inp,
                         capture_output=True).stdout
    res, pos = [], 0
    for c, date in commits:
        nl = out.index(b'\n', pos)
        head = out[pos:nl].decode().split()
        pos = nl + 1
        if len(head) < 3 or head[1] == 'missing':
            continue         # the file was deleted in that commit
        size = int(head[2])
        res.append((c, date, out[pos:pos + size].decode()))
        pos += size + 1
    return res


def history_source(root):
    """None when git history can be read here, else why not."""
    if not shutil.which('git'):
        return 'git is not installed'
    r = git(root, 'rev-parse', '--show-toplevel', '--is-shallow-repository')
    if r.returncode:
        return 'no git history here (%s is no git checkout)' % os.path.abspath(root)
    top, shallow = r.stdout.decode().split('\n')[:2]
    if os.path.realpath(top) != os.path.realpath(root):
        return 'no git history here (%s is not the top of its git checkout)' % \
               os.path.abspath(root)
    if shallow.strip() == 'true':
        return ('a shallow clone: the commits that froze the ABI may be missing (git fetch '
                '--unshallow reads them)')
    if git(root, 'rev-parse', '--verify', '-q', 'HEAD').returncode:
        return 'no commit yet in this git checkout'
    return None


def history(root):
    """(problems, the reason it could not run or None, the records of the current soname ever
    committed: [(kind, key, value, commit)], first committed first)."""
    why = history_source(root)
    if why:
        return [], why, []
    bad, so = [], soversion(root)
    path = os.path.join(root, FREEZE)
    today = record_lines(open(path).read()) if os.path.exists(path) else []
    seen, base, keys, last = set(), [], set(), None
    for c, date, text in versions(root, FREEZE) or []:
        last = c
        lines = record_lines(text)
        for i, line in enumerate(lines):
            if (i, line) in seen:
                continue
            seen.add((i, line))
            if i < len(today) and today[i] == line:
                continue
            was = line.split(' ', 1)[-1]
            if i >= len(today):
                now = 'missing (the file has %d records)' % len(today)
            elif today[i].split(' ', 1)[-1] == was:
                now = 'the same, chained as %s, not %s' % (today[i].split()[0], line.split()[0])
            else:
                now = "'%s'" % today[i].split(' ', 1)[-1]
            bad.append("record %d, committed in %s (%s): '%s', now %s" %
                       (i + 1, c[:12], date, was, now))
        try:
            secs, _ = sections([parse_rest(line.split(' ', 1)[1]) + (c,) for line in lines])
        except (IndexError, ValueError):
            continue
        for r in secs.get(so, []):
            if (r[0], r[1]) not in keys:
                keys.add((r[0], r[1]))
                base.append(r)
    if bad:
        n = len(bad)
        bad = ['%s lost or changed %d records of its git history (the first-parent commits up '
               'to %s): it is append-only, the records committed stay unchanged in their place '
               '(the only fresh start is a soname bump: HACKING.md)' % (FREEZE, n, last[:12])] + \
              ['%s %s' % (FREEZE, b) for b in bad[:5]] + \
              (['... and %d more' % (n - 5)] if n > 5 else [])
    top = None
    for c, date, text in versions(root, 'Makefile') or []:
        v = makefile_soversion(text)
        if v is not None and (top is None or v > top[0]):
            top = (v, c, date)
    if top and so is not None and so < top[0]:
        bad.append('Makefile SOVERSION %d, yet it was %d in %s (%s): a soname never goes down' %
                   (so, top[0], top[1][:12], top[2]))
    return bad, None, base


# ---- the modes --------------------------------------------------------------------------------

def write_records(root, last, add, head=''):
    new = ''
    for r in add:
        rest = r if isinstance(r, str) else rest_of(*r)
        last = chain(last, rest)
        new += '%s %s\n' % (last, rest)
    open(os.path.join(root, FREEZE), 'a').write(head + new)
    return last


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args else 'check'
    root, cc, build, hist = '.', os.environ.get('CC', 'cc'), None, True
    while args:
        a = args.pop(0)
        if a == '--root':
            root = args.pop(0)
        elif a == '--cc':
            cc = args.pop(0)
        elif a == '--build':
            build = args.pop(0)
        elif a == '--no-history':
            hist = False
        else:
            sys.exit(__doc__)
    if mode == 'history':
        bad, why, _ = history(root)
        if why:
            print('SKIP history: %s' % why)
            return 2
        for b in bad:
            print('FAIL abi: ' + b)
        return 1 if bad else 0
    recs, bad, last = read_freeze(root)
    secs, more = sections(recs)
    bad += more
    so = soversion(root)
    if mode == 'cfile':
        if bad:
            sys.exit('\n'.join(bad))
        write_cfile(root, secs.get(so, []))
        return 0
    if mode not in ('check', 'append', 'init', 'bump'):
        sys.exit(__doc__)
    skips = []
    cur, fns, node, syms = current(root, cc, skips)
    kinds = set(KINDS) - (set() if fns is not None else {'fn'})
    if mode == 'init':
        if recs or ANCHORS:
            sys.exit('%s exists: it may only be appended to (freeze.py append)' % FREEZE)
        recs, bad, last, secs = [], [], SEED, {so: []}
    if mode == 'bump':
        top = max(secs)
        if bad or so is None or so <= top:
            sys.exit('\n'.join(bad) or 'Makefile SOVERSION is %s: raise it above %d first '
                     '(HACKING.md: a soname bump)' % (so, top))
        if fns is None:
            sys.exit('gcc is not installed: a new freeze needs its -aux-info')
        last = write_records(root, last, ['soname %d' % so] + cur)
        print('%s: soname %d frozen (%d records); add to ANCHORS in tests/abi/freeze.py: '
              '(%d, \'%s\')' % (FREEZE, so, len(cur), len(recs) + 1 + len(cur), last))
        return 0
    if so not in secs:
        bad.append('%s has no freeze of soname %d (Makefile SOVERSION; it ends with soname '
                   '%d): tests/abi/freeze.py bump starts it (HACKING.md)' % (FREEZE, so,
                                                                             max(secs)))
    elif so != max(secs):
        bad.append('Makefile SOVERSION %d, yet %s freezes soname %d: a soname never goes down'
                   % (so, FREEZE, max(secs)))
    more, add = compare(secs.get(so, []), cur, kinds)
    bad += more
    more, sk = tree_problems(root, build, node, syms, fns, so)
    bad += more
    skips += sk
    if mode == 'check' and hist:
        more, why, base = history(root)
        if why:
            skips.append('history: ' + why)
        # the tree against the freeze as committed: what a reset hides from the file
        hb, _ = compare(base, cur, kinds)
        bad += ['as committed (git history): ' + b for b in hb if b not in bad] + more
    for s in skips:
        print('SKIP ' + s)
    if bad:
        print('\n'.join('FAIL abi: ' + b for b in bad))
        return 1
    if mode == 'check':
        for r in add:
            print('FAIL abi: %s is not frozen: append it (tests/abi/freeze.py append, then '
                  'add the anchor it prints)' % show(*r))
        return 1 if add else 0
    if mode == 'init' and so is not None and so > 1:
        add = ['soname %d' % so] + add      # the records before a first soname line are 1's
    last = write_records(root, last, add, '' if os.path.exists(os.path.join(root, FREEZE))
                         else HEAD)
    print('%s: %d records appended; add to ANCHORS in tests/abi/freeze.py: (%d, \'%s\')' %
          (FREEZE, len(add), len(recs) + len(add), last))
    return 0


def write_cfile(root, recs):
    out = ['/* SPDX-License-Identifier: MIT */',
           '/*',
           ' * The frozen ABI (tests/abi/freeze.txt, append-only) as each build\'s compiler has',
           ' * it: every frozen field at its offset with its size, every enumerator\'s value,',
           ' * every function\'s type. Generated by tests/abi/freeze.py cfile from the freeze',
           ' * file; tests/abi/run.sh checks that it is.',
           ' */',
           '#include <criterion/criterion.h>',
           '#include <stddef.h>',
           '',
           '#include "pbench.h"',
           '']
    by = {}
    for kind, key, value, _ in recs:
        if kind == '':
            by.setdefault(key[0], []).append((key[1], value[0], value[1]))
    for s, fields in by.items():
        out.append('Test(abi, %s)' % s)
        out.append('{')
        for f, off, size in fields:
            out.append('\tcr_expect_eq(offsetof(struct %s, %s), %d, "%s moved");' % (s, f, off, f))
            out.append('\tcr_expect_eq(sizeof(((struct %s *)0)->%s), %d, "%s resized");'
                       % (s, f, size, f))
        out.append('}')
        out.append('')
    vals = [(k, v) for kind, k, v, _ in recs if kind == 'enum']
    if vals:
        out += ['Test(abi, enums)', '{']
        for k, v in vals:
            out.append('\tcr_expect_eq((long long)%s, %sLL, "%s changed");' % (k, v[1], k))
        out += ['}', '']
    fns = [(k, v[0]) for kind, k, v, _ in recs if kind == 'fn']
    if fns:
        out += ['/* each function\'s type: the signature frozen, the name made (*) */',
                'Test(abi, functions)', '{']
        for k, sig in fns:
            typ = re.sub(r'\b%s\(' % k, '(*)(', sig, count=1)
            out.append('\tcr_expect(__builtin_types_compatible_p(__typeof__(&%s), %s), '
                       '"%s changed");' % (k, typ, k))
        out += ['}', '']
    open(os.path.join(root, 'tests/unit/test_abi.c'), 'w').write('\n'.join(out))


if __name__ == '__main__':
    sys.exit(main())
