#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write pbench's man pages from its -h texts: man/pbench.1 from `pbench -h` and
man/pbench-<command>.1 from `pbench <command> -h`, with the sections every page shares (exit
status, environment, see also). The -h texts, doc/help/*.txt, are the one source;
tests/cli/t_man.sh checks that man/ is what this script makes of it, and `make install`
installs man/.

Usage: scripts/man.py PBENCH_BINARY OUT_DIR
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r'^  (?:(-\w), )?(--?[\w-]+(?:[ =][^ ].*?)?)(?: {2,}(.*))?$|^      (--[\w-]+(?:\[=[^\]]+\])?(?: [^ ].*?)?)(?: {2,}(.*))?$')


def roff(text):
    """Escape text for roff: backslashes, hyphens, and a dot or quote at a line start."""
    text = text.replace('\\', '\\e').replace('-', '\\-')
    return re.sub(r"^([.'])", r'\\&\1', text, flags=re.M)


def paragraphs(lines):
    out, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def split_help(text):
    """usage lines, description paragraphs, options [(flags, text)], trailing paragraphs."""
    lines = text.rstrip('\n').split('\n')
    i = 0
    usage = []
    while i < len(lines) and lines[i].strip():
        usage.append(re.sub(r'^usage: ', '', lines[i]).strip())
        i += 1
    rest = lines[i:]
    first = next((k for k, l in enumerate(rest) if OPTION.match(l)), len(rest))
    desc = rest[:first]
    options, k = [], first
    while k < len(rest) and rest[k].strip():
        m = OPTION.match(rest[k])
        if m:
            short, long_, text, long2, text2 = m.groups()
            flags = (short + ', ' if short else '') + (long_ or long2)
            options.append([flags, (text or text2 or '').strip()])
        elif options and rest[k].startswith('   '):
            options[-1][1] = (options[-1][1] + ' ' + rest[k].strip()).strip()
        else:
            break
        k += 1
    return usage, paragraphs(desc), options, paragraphs(rest[k:])


def header(name, summary, version):
    return ['.TH %s 1 "" "pbench %s" "pbench manual"' % (name.upper(), version),
            '.SH NAME', '%s \\- %s' % (roff(name), roff(summary))]


def body(usage, desc, options, tail, commands=None):
    out = ['.SH SYNOPSIS', '.nf'] + [roff(u) for u in usage] + ['.fi', '.SH DESCRIPTION']
    for p in desc:
        out += ['.PP', roff(' '.join(l.strip() for l in p))]
    if commands:
        out.append('.SH COMMANDS')
        for name, text in commands:
            out += ['.TP', '.B %s' % roff(name), roff(text) +
                    ' (\\fBpbench\\-%s\\fR(1))' % roff(name)]
    if options:
        out.append('.SH OPTIONS')
        for flags, text in options:
            out += ['.TP', '.B %s' % roff(flags), roff(text)]
    for p in tail:
        if p[0].strip().lower() == 'examples:':
            out += ['.SH EXAMPLES', '.nf'] + [roff(l[2:] if l.startswith('  ') else l)
                                              for l in p[1:]] + ['.fi']
        else:
            out += ['.PP', roff(' '.join(l.strip() for l in p))]
    return out


def footer(page, names):
    others = ['\\fBpbench\\-%s\\fR(1)' % roff(n) for n in names if 'pbench-' + n != page]
    if page != 'pbench':
        others.insert(0, '\\fBpbench\\fR(1)')
    return ['.SH EXIT STATUS',
            '0 success; 1 a failure at run time (a run that failed, a report that could not be '
            'written, a failed gate such as \\fBcheck \\-\\-strict\\fR); 2 a usage error, said in '
            'one \\fBpbench: error:\\fR line on stderr before anything runs.',
            '.SH ENVIRONMENT',
            '.TP', '.B COLUMNS', 'A number: the text\'s sentences wrap at that many columns, '
            'also in a pipe or a file (0: not wrapped). Unset: at the terminal\'s width on a '
            'terminal, not wrapped elsewhere. Tables are never wrapped.',
            '.TP', '.B NO_COLOR', 'Set and not empty: no colour on a terminal.',
            '.TP', '.B PBENCH_DEBUG', 'Set to 1: the library\'s diagnostics on stderr, as '
            '\\fB\\-v\\fR.',
            '.TP', '.B PBENCH_SYSFS_ROOT, PBENCH_PROCFS_ROOT',
            'Read /sys and /proc from a recorded tree: for \\fBpbench check\\fR only; the '
            'measuring commands say that they measure the live machine.',
            '.SH FILES',
            '.TP', '.I share/pbench/schema/*.schema.json',
            'The JSON Schema of every document \\fB\\-\\-json\\fR writes.',
            '.SH SEE ALSO', ', '.join(others + ['\\fBperf\\-stat\\fR(1)', '\\fBhyperfine\\fR(1)'])]


def run(binary, *args):
    return subprocess.run([binary] + list(args), capture_output=True, text=True,
                          check=True).stdout


def main():
    binary, outdir = sys.argv[1], sys.argv[2]
    top = run(binary, '-h')
    version = run(binary, '--version').split()[-1]
    commands = re.findall(r'^  ([a-z]+) +(.*)$', top.split('commands:\n', 1)[1].split('\n\n')[0],
                          flags=re.M)
    names = [c for c, _ in commands]
    os.makedirs(outdir, exist_ok=True)
    usage, desc, options, tail = split_help(top.replace(top[top.index('commands:'):top.index(
        '\n\n', top.index('commands:')) + 2], ''))
    page = header('pbench', 'precision benchmarking for Linux', version)
    page += body(usage, desc, options, tail, commands) + footer('pbench', names)
    with open(os.path.join(outdir, 'pbench.1'), 'w') as f:
        f.write('\n'.join(page) + '\n')
    for name, summary in commands:
        usage, desc, options, tail = split_help(run(binary, name, '-h'))
        page = header('pbench-' + name, summary, version) + body(usage, desc, options, tail)
        page += footer('pbench-' + name, names)
        with open(os.path.join(outdir, 'pbench-%s.1' % name), 'w') as f:
            f.write('\n'.join(page) + '\n')


if __name__ == '__main__':
    main()
