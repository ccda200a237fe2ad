#!/bin/sh
# SPDX-License-Identifier: MIT
# Record what test_listing's "recorded samples" test reads, from a real sampled run:
#   prog-x86_64       prog.c built with cc -O2 (the program, kept: the addresses are its own)
#   churn.samples     the file addresses of the samples of one run in prog's code (record.c:
#                     the sampler's own output, through its recording hook)
#   churn.expected    per instruction line of churn (objdump -d of its symbol's range): its
#                     address, its samples and its share of churn's samples (%.2f), then
#                     "in_function N" and "total N": counted here (python3), not by pbench
# Usage (from the top of the tree, after make): sh tests/data/listing/record.sh [BUILD_DIR]
set -eu
O=${1:-build}
D=tests/data/listing
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$D/prog-x86_64" "$D/prog.c"
cc -O2 -Ilib/include -Ilib/src -o "$T/record" "$D/record.c" "$O/libpbench.a" \
	-lpfm -lnuma -lm -ljansson -pthread
"$T/record" "$D/prog-x86_64" churn 30000000 >"$D/churn.samples"
# churn's range from its symbol, its lines from objdump, then the counts
set -- $(nm -S "$D/prog-x86_64" | awk '$4 == "churn" { print $1, $2 }')
start=$((0x$1)) end=$((0x$1 + 0x$2))
objdump -d --no-show-raw-insn --start-address=$start --stop-address=$end "$D/prog-x86_64" |
	sed -n 's/^ *\([0-9a-f]*\):\t.*/\1/p' >"$T/lines"
python3 - "$T/lines" "$D/churn.samples" $end >"$D/churn.expected" <<'PY'
import sys
lines = [int(x, 16) for x in open(sys.argv[1]).read().split()]
addrs = [int(x, 16) for x in open(sys.argv[2]).read().split()]
end = int(sys.argv[3])
hits = [0] * len(lines)
for a in addrs:
    if lines[0] <= a < end:
        hits[max(i for i, start in enumerate(lines) if start <= a)] += 1
inf = sum(hits)
for start, h in zip(lines, hits):
    print("%x %d %.2f" % (start, h, 100.0 * h / inf if inf else 0))
print("in_function %d" % inf)
print("total %d" % len(addrs))
PY
echo "recorded $(wc -l <"$D/churn.samples") samples; churn.expected:"
cat "$D/churn.expected"
