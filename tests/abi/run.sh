#!/bin/sh
# SPDX-License-Identifier: MIT
# The ABI freeze is append-only (tests/abi/freeze.py): the headers, lib/libpbench.map and the
# built library against tests/abi/freeze.txt, the freeze against its git history,
# tests/unit/test_abi.c generated from it, and the rules themselves on copies of the tree with
# one change each (a moved, removed or retyped field fails; a field appended to a versioned
# struct passes once appended to the freeze; a rewritten freeze fails), and on a clone with its
# history (tests/abi/selftest.sh: the reset, single changes, the soname). Usage:
# tests/abi/run.sh [BUILD_DIR]. Last line: "abi: N passed, N failed, N skipped".
set -u
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
FREEZE="python3 tests/abi/freeze.py"
if ! command -v python3 >/dev/null 2>&1; then
	echo "[SKIP] abi: python3 is not installed"
	echo "abi: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

O=${1:-build}
if $FREEZE check --no-history --build "$O" >"$T/out" 2>&1; then
	ok "structs, enums, typedefs, defines, signatures and exports as frozen in tests/abi/freeze.txt"
else
	bad "tests/abi/freeze.txt" "$(grep -v '^SKIP ' "$T/out")"
fi
# What could not be checked here (gcc, the built library): one skip each, with freeze.py's reason.
grep '^SKIP ' "$T/out" | sed 's/^SKIP //' >"$T/skips"
while IFS= read -r why; do
	skip=$((skip + 1))
	echo "[SKIP] abi: not checked here, this machine or build lacks what it needs: $why"
done <"$T/skips"
$FREEZE history >"$T/out" 2>&1
case $? in
0) ok "every record of the freeze's git history is still in place; the soname never went down" ;;
2)
	skip=$((skip + 1))
	echo "[SKIP] abi git history: no git history here to compare the freeze with: $(sed 's/^SKIP history: //' "$T/out")"
	;;
*) bad "tests/abi/freeze.txt against its git history" "$(cat "$T/out")" ;;
esac

# A copy of the headers and the freeze in $T/t, changed by the perl substitution $2.
tree() {
	rm -rf "$T/t"
	mkdir -p "$T/t/lib/include" "$T/t/tests/abi" "$T/t/tests/unit"
	cp -r lib/include/pbench "$T/t/lib/include/" && cp lib/include/pbench.h "$T/t/lib/include/"
	cp Makefile "$T/t/" && cp lib/libpbench.map "$T/t/lib/"
	cp tests/abi/freeze.txt "$T/t/tests/abi/"
	[ -z "$1" ] || perl -0pi -e "$2" "$T/t/$1"
}
# expect NAME 0|1 MODE [PATTERN]: freeze.py MODE on the copy exits as said (and says PATTERN).
expect() {
	nh=
	[ "$3" = check ] && nh=--no-history # (the copy has no git history: tests/abi/selftest.sh)
	$FREEZE "$3" --root "$T/t" $nh >"$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$2" ] && { [ -z "${4:-}" ] || grep -q "$4" "$T/out"; }; then
		ok "$1"
	else
		bad "$1" "exit $rc, want $2${4:+ and '$4'}: $(cat "$T/out")"
	fi
}

tree "" ""
$FREEZE cfile --root "$T/t" >/dev/null 2>&1
if cmp -s "$T/t/tests/unit/test_abi.c" tests/unit/test_abi.c; then
	ok "tests/unit/test_abi.c is generated from the freeze"
else
	bad "tests/unit/test_abi.c" "not what tests/abi/freeze.py cfile writes: run it"
fi

C=lib/include/pbench/counters.h
tree $C 's/(\tconst char \*name;[^\n]*\n)(\tint status;[^\n]*\n)/$2$1/'
expect "two fields swapped: fails" 1 check "moved"
tree $C 's/(\tint user_only;)/\tint status2;\n$1/'
expect "a field inserted before the last: fails" 1 check
tree $C 's/\tint is_scaled;[^\n]*\n//'
expect "a field removed: fails" 1 check
tree $C 's/\tuint64_t value;/\tdouble value;/'
expect "a field retyped (same size): fails" 1 check "retyped"
tree $C 's/(\tint user_only;[^\n]*\n(?:\t\t\t\t\t[^\n]*\n)*)\};/$1\tint appended;\n};/'
expect "a field appended to a versioned struct, not frozen yet: fails" 1 check "not frozen"
expect "... appended to the freeze" 0 append
expect "... then passes" 0 check
tree lib/include/pbench/jitter.h 's/(struct pbench_jitter_gap \{\n\tuint64_t start_ticks;\n\tuint64_t ticks;\n)/$1\tint more;\n/'
expect "a field added to a struct without a size (arrays of it): fails" 1 check "cannot grow"
tree tests/abi/freeze.txt 's/ pbench_count value 32 8 / pbench_count value 40 8 /'
expect "a frozen line edited: fails (the chain)" 1 check "breaks the chain"
# The same edit with the chain recomputed from there on: only the anchors see it.
tree "" ""
python3 - "$T/t/tests/abi/freeze.txt" <<'PY'
import hashlib, sys
p = sys.argv[1]
prev, out = 'PBENCH_ABI', []
for line in open(p).read().splitlines():
    if line.startswith('#'):
        out.append(line)
        continue
    rest = line.split(' ', 1)[1].replace('pbench_count value 32 8 ', 'pbench_count value 40 8 ')
    prev = hashlib.sha256((prev + '\n' + rest).encode()).hexdigest()[:16]
    out.append(prev + ' ' + rest)
open(p, 'w').write('\n'.join(out) + '\n')
PY
expect "a frozen line edited and the chain recomputed: fails (the anchors)" 1 check "anchor"
grep -q ' pbench_count value 32 8 ' tests/abi/freeze.txt ||
	bad "the rewrite test" "pbench_count.value is no longer frozen at 32: change the test"

# Every options struct has its _OPTS_INIT (base.h: one vocabulary).
for s in $(sed -n 's/^struct \(pbench_[a-z_]*_opts\) {$/\1/p' lib/include/pbench/*.h); do
	m=$(echo "${s#pbench_}" | tr a-z A-Z)
	if grep -q "define PBENCH_${m}_INIT" lib/include/pbench/*.h; then
		ok "struct $s has PBENCH_${m}_INIT"
	else
		bad "struct $s" "no PBENCH_${m}_INIT: every options struct has one (base.h)"
	fi
done

# The guards on a clone with its history: the reset, single changes, the soname.
sh tests/abi/selftest.sh >"$T/self" 2>&1
grep -v '^selftest: ' "$T/self"
# shellcheck disable=SC2046 # (the three counts, split on purpose)
set -- $(sed -n 's/^selftest: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$T/self")
if [ $# -eq 3 ]; then
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
else
	bad "tests/abi/selftest.sh" "no summary: $(tail -n 5 "$T/self")"
fi

echo "abi: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
