#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every test of one build directory: the Criterion unit tests, the examples, the fuzz
# corpora (where their replays were built: the ASan+UBSan tree), the CLI and fault tests, the
# layering test (lib/layers.txt), the naming test (lib/names.txt), the ABI freeze
# (tests/abi/freeze.txt, append-only), the golden outputs
# (tests/golden: byte-identical output on recorded inputs) and the lint of the tests (tests/lint:
# every skip names a reason a machine really has; no function over 80 lines). Prints each
# skipped test with its reason, then one "O: N passed, N failed, N skipped; K passed after
# retries" line (K: the passes that came on a later try of a retry loop, among the N) and
# writes it to O/test-results.txt (what failed, a line each, to O/test-results-failed.txt). Each unit test file and each suite says how long it took: "[TIME] NAME: N s".
# tests/run.sh O unit: only the unit tests, examples and fuzz corpora (O/test-results-unit.txt);
# tests/run.sh O scripts: only the script suites (O/test-results-scripts.txt), in three parts
# that make test runs at once on its lanes (tests/all.sh): scripts-cli, the CLI suites;
# scripts-wait, the suites that mostly wait (faults: commands that sleep and are signalled at
# set times; history_pg: a server and its timeouts); scripts-rest, the others (schema, golden,
# the structure tests).
# The unit tests that time things against the whole machine (a CPU's speed, two commands at
# once on two CPUs, a known duration, a scan's curve) are the QUIET ones: make test runs them last, alone,
# with nothing of its own beside them (tests/run.sh O quiet); "unit" and "busy" (all but
# them, make check TESTS=busy) leave them out.
QUIET="test_speed test_contest test_measure test_fit test_scan"
set -u
O=${1:-build}
PART=${2:-all}
case "$PART" in
all) RESULTS=$O/test-results.txt ;;
unit | scripts | scripts-cli | scripts-rest | scripts-wait | quiet | busy) RESULTS=$O/test-results-$PART.txt ;;
*) echo "usage: tests/run.sh BUILD_DIR [all|unit|scripts|scripts-cli|scripts-rest|scripts-wait|quiet|busy]" >&2; exit 2 ;;
esac
# Does this part run the unit test $1?
runs_unit() {
	case " $QUIET " in
	*" ${1##*/} "*) [ "$PART" = quiet ] || [ "$PART" = all ] ;;
	*) [ "$PART" != quiet ] ;;
	esac
}
label=$O
[ "$PART" = all ] || label="$O ($PART)"
pass=0 fail=0 skip=0 retried=0
# The names of what failed, repeated just above the totals: a CI log cut to its last lines
# still says which test to look at.
failed=
note_fail() { failed="$failed$1
"; }
# Each skipped test with its reason, repeated at the end too: a CI log says why it did not run.
skips=
note_skips() {
	_s=$(printf '%s\n' "$2" | sed -n "s/^\[SKIP\] /$1: /p")
	[ -n "$_s" ] && skips="$skips$_s
"
}
# pbench stat keeps AUTO's priority choice in the user's cache directory: the tests keep
# theirs in a directory of their own, removed at the end.
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
# python3 found once: the suites start it hundreds of times (every JSON check), and a version
# manager's shim in PATH (pyenv's: a bash script that runs `pyenv exec`) costs ~0.4 s of CPU a
# start. A two-line script that execs the interpreter the shim picks (sys.executable, so that
# a virtualenv stays one) goes first in PATH.
PYBIN=$(mktemp -d)
trap 'rm -rf "$XDG_CACHE_HOME" "$PYBIN"' EXIT
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] &&
   [ "$py" != "$(command -v python3)" ]; then
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" >"$PYBIN/python3" && chmod +x "$PYBIN/python3" &&
		PATH=$PYBIN:$PATH
fi

# The tests of this tree's sources (tests/unit/test_*.c): a binary a renamed or removed test
# left in an old build directory is not one of them.
case $PART in scripts*) true ;; *) false ;; esac || for src in tests/unit/test_*.c; do
	t="$O/tests/$(basename "$src" .c)"
	[ -x "$t" ] || continue
	runs_unit "$t" || continue
	# One test at a time: these are 2-vCPU machines and many tests time things.
	t0=$(date +%s)
	out=$("$t" --verbose --jobs 1 2>&1)
	rc=$?
	echo "[TIME] ${t##*/}: $(($(date +%s) - t0)) s"
	# Keep what a reader needs: skips with their reason, failures, and each file's synthesis.
	printf '%s\n' "$out" | grep -v -E '^\[(RUN |PASS)\]|^\[====\] Running|^\[----\] *$'
	# Each failed test with the message of its failed assertion (a CI log keeps only its
	# last lines, and a test that depends on the machine must say what it saw there).
	fails=$(printf '%s\n' "$out" | awk '
		/^\[----\] .*Assertion Failed/ { msg = ""; inmsg = 1; next }
		inmsg && /^\[----\]   *[^ ]/ { sub(/^\[----\] */, ""); msg = msg (msg ? " " : "") $0; next }
		/^\[(RUN |PASS|SKIP)\]/ { msg = ""; inmsg = 0 }
		/^\[FAIL\] / { name = $2; sub(/:$/, "", name); print name (msg ? ": " substr(msg, 1, 200) : "");
			msg = ""; inmsg = 0 }')
	while IFS= read -r f; do
		[ -n "$f" ] && note_fail "$f ($t)"
	done <<-EOF
	$fails
	EOF
	syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
	tested=$(printf '%s' "$syn" | sed -n 's/.*Tested: \([0-9]*\).*/\1/p')
	passing=$(printf '%s' "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
	skipped=$(printf '%s\n' "$out" | grep -c '^\[SKIP\]')
	note_skips "${t##*/}" "$out"
	# A test that passed only on a later try of its retry loop logs "RETRIED NAME ..."
	# (cr_log_info): counted apart in the totals.
	retried=$((retried + $(printf '%s\n' "$out" | grep -c '^\[----\] RETRIED ')))
	if [ -z "$tested" ]; then
		echo "FAIL: $t produced no Criterion synthesis (exit $rc)"
		note_fail "$t: no synthesis (exit $rc)"
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + passing))
	fail=$((fail + tested - passing))
	skip=$((skip + skipped))
	if [ "$rc" -ne 0 ] && [ "$tested" -eq "$passing" ]; then
		echo "FAIL: $t exited $rc with every test passing"
		note_fail "$t: exit $rc"
		fail=$((fail + 1))
	fi
done

case $PART in scripts* | quiet) true ;; *) false ;; esac || for ex in "$O"/examples/*; do
	[ -x "$ex" ] || continue
	if out=$(LD_LIBRARY_PATH="$O/stage/usr/lib" "$ex" 2>&1); then
		echo "[PASS] example $(basename "$ex")"
		pass=$((pass + 1))
	else
		printf '%s\n' "$out"
		echo "[FAIL] example $(basename "$ex") exited $?"
		note_fail "example $(basename "$ex")"
		fail=$((fail + 1))
	fi
done

# Every input the fuzzers kept, crashes included, once each: one result per target.
case $PART in scripts* | quiet) true ;; *) false ;; esac || for src in tests/fuzz/fuzz_*.c; do
	r="$O/tests/fuzz/replay_$(basename "$src" .c | sed 's/^fuzz_//')"
	[ -x "$r" ] || continue
	name=${r##*/replay_}
	if out=$("$r" "tests/fuzz/corpus/$name" 2>&1); then
		echo "[PASS] fuzz corpus $name: $out"
		pass=$((pass + 1))
	else
		printf '%s\n' "$out" | tail -n 40
		echo "[FAIL] fuzz corpus $name (reproduce: $r FILE; fix, and keep the input)"
		note_fail "fuzz corpus $name"
		fail=$((fail + 1))
	fi
done

# The end-to-end scripts, the JSON Schema validation and the layering and naming tests: each
# prints "<name>: N passed, N failed, N skipped" last.
case $PART in
scripts-cli) SUITES=cli ;;
scripts-rest) SUITES="schema cxx layers names golden lint abi" ;;
scripts-wait) SUITES="faults history_pg" ;;
*) SUITES="cli faults schema cxx layers names golden lint abi history_pg" ;;
esac
# ONCE_ELSEWHERE: suites another build of the same make test runs already, whose result does
# not depend on the build (the structure tests: layers, names, abi, lint, cxx): left out here.
for s in ${ONCE_ELSEWHERE:-}; do
	SUITES=$(printf '%s\n' $SUITES | grep -vx "$s" | tr '\n' ' ')
done
case $PART in unit | quiet) true ;; *) false ;; esac || for suite in $SUITES; do
	t0=$(date +%s)
	res=$(sh "tests/$suite/run.sh" "$O" 2>&1)
	printf '%s\n' "$res" | grep -v '^ok '
	echo "[TIME] $suite: $(($(date +%s) - t0)) s"
	fl=$(printf '%s\n' "$res" | sed -n 's/^FAIL \([^:]*\):.*/\1/p' | sort -u)
	while IFS= read -r f; do
		[ -n "$f" ] && note_fail "$suite: $f"
	done <<-EOF
	$fl
	EOF
	note_skips "$suite" "$res"
	line=$(printf '%s\n' "$res" | grep -E "^$suite: [0-9]+ passed" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL: tests/$suite/run.sh printed no summary"
		note_fail "tests/$suite/run.sh: no summary"
		fail=$((fail + 1))
	else
		set -- $(printf '%s' "$line" | sed 's/[^0-9 ]//g')
		pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3)) retried=$((retried + ${4:-0}))
	fi
done

if [ -n "$skips" ]; then
	echo "$label: skipped, and why:"
	printf '%s' "$skips" | sed 's/^/  /'
fi
if [ -n "$failed" ]; then
	echo "$label: what failed:"
	printf '%s' "$failed" | sed 's/^/  /' | head -n 40
fi
# The same names beside the results, for tests/total.sh to repeat under the last line of all.
printf '%s' "$failed" | head -n 40 | sed "s|^|$label: |" >"${RESULTS%.txt}-failed.txt"
echo "$label: $pass passed, $fail failed, $skip skipped; $retried passed after retries" | tee "$RESULTS"
[ "$fail" -eq 0 ]
