#!/bin/sh
# SPDX-License-Identifier: MIT
# The freeze's guards tried on a clone of this repository with its history (git clone --shared:
# no object copied; the clone is removed at the end): the reset the issue found (an ABI change,
# the freeze file deleted and initialized again, its anchors replaced) fails, committed or not;
# so does each single change (an enum value, a field's type, a function's parameter, an export,
# a #define), a soname lowered or raised without its freeze, and the new soname's freeze
# deleted; additions at the end pass once appended, and a soname bump passes with a removal.
# The tree under test is this one: its headers, map, Makefile and tests/abi, committed in the
# clone on top of HEAD. Usage: tests/abi/selftest.sh (from the top of the tree); run by
# tests/abi/run.sh. Last line: "selftest: N passed, N failed, N skipped".
set -u
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "[SKIP] $1: $2"; }
done_() {
	echo "selftest: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

python3 tests/abi/freeze.py history >"$T/out" 2>&1
if [ $? -eq 2 ]; then
	skipped "the freeze's guards on a clone" "no git history here to clone: $(sed 's/^SKIP history: //' "$T/out")"
	done_
fi
C=$T/c
G="git -C $C -c user.name=selftest -c user.email=selftest@example.invalid -c commit.gpgsign=false"
head=$(git rev-parse HEAD)
if ! git clone -q --shared --no-checkout . "$C" >"$T/out" 2>&1 ||
	! $G checkout -q --detach "$head" >>"$T/out" 2>&1; then
	bad "a clone of this repository" "$(cat "$T/out")"
	done_
fi
for p in Makefile lib/libpbench.map lib/include tests/abi; do
	rm -rf "${C:?}/$p" && cp -R "$p" "$C/$p"
done
$G add -A Makefile lib/libpbench.map lib/include tests/abi &&
	$G commit -q --allow-empty -m "the tree under test" || bad "the tree under test" "not committed"
base=$($G rev-parse HEAD)
FZ="python3 $C/tests/abi/freeze.py"

# fresh: the clone as it was committed; edit FILE PERL: a perl substitution on the clone's FILE,
# which must change it.
fresh() { $G reset -q --hard "$base"; }
edit() {
	cp "$C/$1" "$T/before"
	perl -0pi -e "$2" "$C/$1"
	cmp -s "$T/before" "$C/$1" && bad "the test itself" "'$2' changed nothing in $1"
}
# expect NAME 0|1 [PATTERN [ARGS]]: freeze.py check ARGS on the clone exits as said (and says
# PATTERN).
expect() {
	$FZ check --root "$C" ${4:-} >"$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$2" ] && { [ -z "${3:-}" ] || grep -q -- "$3" "$T/out"; }; then
		ok "$1"
	else
		bad "$1" "exit $rc, want $2${3:+ and '$3'}: $(head -n 20 "$T/out")"
	fi
}
# reset: what the issue did: delete the freeze, init, and replace the anchors by the one init
# printed.
reset() {
	rm "$C/tests/abi/freeze.txt"
	perl -0pi -e 's/^ANCHORS = \[\n.*?^\]/ANCHORS = []/ms' "$C/tests/abi/freeze.py"
	a=$($FZ init --root "$C" | sed -n 's/.*ANCHORS in tests\/abi\/freeze.py: //p')
	perl -0pi -e "s/^ANCHORS = \[\]/ANCHORS = [\n    $a,\n]/m" "$C/tests/abi/freeze.py"
}

fresh
expect "the clone as committed: passes" 0
CLK=lib/include/pbench/clock.h

edit $CLK 's/PBENCH_CLOCK_TSC = 1,/PBENCH_CLOCK_TSC = 5,/'
reset
expect "an enum value changed, the freeze reset: the tree alone cannot tell" 0 "" --no-history
expect "... git history can: fails (what changed, and the records lost)" 1 "as committed (git history): enumerator PBENCH_CLOCK_TSC changed: PBENCH_CLOCK_TSC = 5"
$G commit -q -a -m "the reset"
expect "... the reset committed: fails" 1 "lost or changed [0-9]* records of its git history"

fresh
edit $CLK 's/PBENCH_CLOCK_TSC = 1,/PBENCH_CLOCK_TSC = 5,/'
expect "an enum value changed: fails" 1 "enumerator PBENCH_CLOCK_TSC changed: PBENCH_CLOCK_TSC = 5 .* frozen as PBENCH_CLOCK_TSC = 1"
fresh
edit lib/include/pbench/counters.h 's/\tuint64_t value;/\tint64_t value;/'
expect "a field retyped: fails" 1 "pbench_count.value .* int64_t; frozen .* uint64_t: moved or retyped"
fresh
edit lib/include/pbench/base.h 's/pbench_strerror\(int err\)/pbench_strerror(long err)/'
expect "a function's parameter changed: fails" 1 "function pbench_strerror changed: const char\*pbench_strerror(long int), frozen as const char\*pbench_strerror(int)"
fresh
edit lib/include/pbench/base.h 's/pbench_strerror\(int err\)/pbench_strerror(int   \/* a comment *\/ code)/'
expect "... its parameter renamed, blanks and a comment added: passes" 0
fresh
edit lib/libpbench.map 's/\t\tpbench_clock_kind_name;[^\n]*\n//'
edit $CLK 's/PBENCH_API const char \*pbench_clock_kind_name\(int kind\);\n//'
expect "an export removed (and its declaration): fails" 1 "export pbench_clock_kind_name was removed"
fresh
edit lib/include/pbench/history.h 's/(define PBENCH_HISTORY_NAME_MAX) 1024/$1 2048/'
expect "a #define changed: fails" 1 "PBENCH_HISTORY_NAME_MAX changed: PBENCH_HISTORY_NAME_MAX 2048, frozen as PBENCH_HISTORY_NAME_MAX 1024"
fresh
rm "$C/tests/abi/freeze.txt"
expect "the freeze deleted: fails" 1 "committed in"

fresh
edit $CLK 's/(\tPBENCH_CLOCK_CNTVCT,[^\n]*\n)/$1\tPBENCH_CLOCK_SELFTEST,\n/'
edit lib/include/pbench/base.h 's/(PBENCH_API const char \*pbench_strerror\(int err\);\n)/$1PBENCH_API int pbench_abi_selftest(void);\n/'
edit lib/libpbench.map 's/(\t\tpbench_clock_kind_name;[^\n]*\n)/$1\t\tpbench_abi_selftest;\t# a function the self-test adds\n/'
edit lib/include/pbench/counters.h 's/(\tint user_only;[^\n]*\n(?:\t\t\t\t\t[^\n]*\n)*)\};/$1\tint appended;\n};/'
expect "an enum value, a function, an export and a field added at the end: not frozen yet" 1 "PBENCH_CLOCK_SELFTEST = 4 .* is not frozen"
$FZ append --root "$C" >/dev/null
expect "... appended to the freeze: passes" 0
$G commit -q -a -m "appended"
expect "... committed: passes" 0

S=$(sed -n 's/^SOVERSION *:= *//p' Makefile)
N=$((S + 1))
fresh
sed -i "s/^SOVERSION *:= *$S\$/SOVERSION  := $((S - 1))/" "$C/Makefile"
expect "the soname lowered: fails" 1 "a soname never goes down"
fresh
sed -i "s/^SOVERSION *:= *$S\$/SOVERSION  := $N/" "$C/Makefile"
sed -i "s/^PBENCH_$S {/PBENCH_$N {/" "$C/lib/libpbench.map"
expect "the soname raised without its freeze: fails" 1 "no freeze of soname $N"
edit lib/libpbench.map 's/\t\tpbench_clock_kind_name;[^\n]*\n//'
edit $CLK 's/PBENCH_API const char \*pbench_clock_kind_name\(int kind\);\n//'
$FZ bump --root "$C" >"$T/out" 2>&1 || bad "freeze.py bump" "$(cat "$T/out")"
expect "... the soname bumped (freeze.py bump), an export removed: passes" 0
$G commit -q -a -m "soname $N"
perl -0pi -e "s/^[0-9a-f]{16} soname $N\\n.*//ms" "$C/tests/abi/freeze.txt"
expect "... soname $N's freeze deleted: fails" 1 "no freeze of soname $N"
git -C "$C" checkout -q tests/abi/freeze.txt
sed -i "s/^SOVERSION *:= *$N\$/SOVERSION  := $S/" "$C/Makefile"
expect "... then the soname lowered back to $S: fails" 1 "a soname never goes down"

done_
