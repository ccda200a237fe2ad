#!/bin/sh
# SPDX-License-Identifier: MIT
# make test: every part, on two lanes and a side lane, then the total. Usage: tests/all.sh [PMU]
#
# Two builds are tested, the normal one (build/) and ASan+UBSan (build/asan/), each in parts
# (tests/run.sh): its unit tests with the examples (and the fuzz corpora, under ASan), its CLI
# suites (cli), the other script suites (rest), and the suites that mostly wait (wait: faults,
# whose commands sleep and are signalled at set times, and history_pg, a server and its
# timeouts). Besides them: the emulated-PMU suite (build/pmu) and the clang build (-Werror).
#   lane 1 builds the normal tree and runs its unit tests, lane 2 the same for ASan+UBSan; then
#   each lane takes the next part of PARTS (the longest first) that no lane has taken, among
#   those whose build is there: a lane waits for a build only when nothing else is left
#   the side lane runs each build's waiting suites once that build is there, beside the two
#   lanes: they keep a CPU busy a third of their time, and the lanes have the rest
#   then, alone: the unit tests that time against the whole machine (tests/run.sh: QUIET), of
#   each build in turn
#
# Every part runs whatever another part did: a failure (even a build that does not compile)
# is counted, named in the total, and never hides the rest. Each part's output goes to
# build/test-<part>.log and is printed whole when the part ends, so the lanes' lines do not
# mix. Each lane is a session of its own (setsid): a test that looks for another pbench it
# started itself finds its own before another lane's (pbench_cpu_rival()).
set -u
LOCK=build/.test-print.lock
# What a lane takes once its build part is done, the longest first.
PARTS="asan-cli normal-cli pmu asan-rest normal-rest clang"

# part NAME RESULTS CMD...: run CMD, its output to build/test-NAME.log, then print that log.
# A part whose command wrote no RESULTS line (a build that failed first) gets one: 1 failed.
part() {
	name=$1 res=$2
	shift 2
	log=build/test-$name.log
	t0=$(date +%s)
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	if [ ! -s "$res" ]; then
		echo "$name: no test results: it stopped before its tests (exit $rc; the end of its log is above)" >>"$log"
		echo "$name: 0 passed, 1 failed, 0 skipped" >"$res"
	fi
	flock "$LOCK" sh -c 'printf "\n==== %s (%s s, exit %s) ====\n" "$1" "$2" "$3"; cat "$4"' \
		sh "$name" "$(($(date +%s) - t0))" "$rc" "$log"
}

clang_build() {
	if ! command -v clang >/dev/null 2>&1; then
		echo "clang: not installed, the clang build is skipped"
		echo "build/clang: 0 passed, 0 failed, 1 skipped" >build/clang/test-results.txt
		return 0
	fi
	echo "clang: building with -Wall -Wextra -Werror"
	if make --no-print-directory -s all O=build/clang CC=clang DEVELOPER=1; then
		echo "build/clang: 1 passed, 0 failed, 0 skipped" | tee build/clang/test-results.txt
	else
		echo "build/clang: 0 passed, 1 failed, 0 skipped" | tee build/clang/test-results.txt
		return 1
	fi
}

# The directory of build B (normal, asan), and the file its build part writes its exit status
# to: the parts of that build wait for it.
dir() { if [ "$1" = asan ]; then echo build/asan; else echo build; fi; }
built() { echo "$(dir "$1")/.built"; }

# build B: build the tree (everything its tests run), then its unit tests.
build() {
	if [ "$1" = asan ]; then
		make --no-print-directory check-built O=build/asan SAN=1 DEVELOPER=1
	else
		make --no-print-directory check-built O=build DEVELOPER=1
	fi
	rc=$?
	echo "$rc" >"$(built "$1")"
	[ "$rc" -eq 0 ] && sh tests/run.sh "$(dir "$1")" unit
}
# scripts B HALF: the script suites HALF (cli, rest, wait) of build B, once it is built.
scripts() {
	while [ ! -s "$(built "$1")" ]; do sleep 2; done
	if [ "$(cat "$(built "$1")")" -ne 0 ]; then
		echo "$1-$2: not run: the build failed (its log: build/test-$1.log)"
		return 1
	fi
	if [ "$1" = asan ]; then
		# the structure tests give the same result on every build: the normal build runs them
		ONCE_ELSEWHERE="cxx layers names lint abi" sh tests/run.sh build/asan "scripts-$2"
	else
		sh tests/run.sh build "scripts-$2"
	fi
}
scripts_part() {	# scripts_part B HALF
	part "$1-$2" "$(dir "$1")/test-results-scripts-$2.txt" scripts "$1" "$2"
}

# claim PART: true for the one lane that takes PART (mkdir is atomic), false for the others.
claim() { mkdir "build/.claim-$1" 2>/dev/null; }
# ready PART: its build is there (built or failed: a part of a failed build says so at once).
ready() {
	case $1 in
	asan-* | normal-*) [ -s "$(built "${1%%-*}")" ] ;;
	*) true ;;
	esac
}
# The parts of PARTS, one at a time, to whichever lane is free first.
take_parts() {
	while :; do
		left=0 took=
		for p in $PARTS; do
			[ -d "build/.claim-$p" ] && continue
			left=1
			if ready "$p" && claim "$p"; then
				took=$p
				break
			fi
		done
		[ "$left" -eq 0 ] && return
		case $took in
		"") sleep 2 ;;
		pmu) part pmu build/pmu/test-results.txt env DEVELOPER=1 sh tests/pmu/run.sh build/pmu "$PMU" ;;
		clang) part clang build/clang/test-results.txt clang_build ;;
		*) scripts_part "${took%%-*}" "${took#*-}" ;;
		esac
	done
}

lane1() {
	part normal build/test-results-unit.txt build normal
	[ -s build/.built ] || echo 1 >build/.built
	take_parts
}
lane2() {
	part asan build/asan/test-results-unit.txt build asan
	[ -s build/asan/.built ] || echo 1 >build/asan/.built
	take_parts
}
lane3() {
	scripts_part normal wait
	scripts_part asan wait
}

# tests/all.sh --lane N PMU: one lane (what the main part below starts, in a session of its own).
if [ "${1:-}" = --lane ]; then
	PMU=$3
	lane"$2"
	exit
fi

PMU=${1:-1}
mkdir -p build build/asan build/pmu build/clang || exit 1
rm -f build/test-results*.txt build/asan/test-results-*.txt build/.built build/asan/.built \
      build/pmu/test-results.txt build/clang/test-results.txt build/test-*.log
rm -rf build/.claim-*
: >"$LOCK"
echo "make test: lanes 1 and 2 build the normal and the ASan+UBSan tree and run their unit tests,"
echo "then each takes the next of [$PARTS]; the side lane runs each build's waiting suites"
echo "(faults, history_pg); then the quiet tests alone; each part prints when it ends"
# The lanes' sessions are their own: Ctrl-C or a kill of make ends them, and everything in them.
setsid sh tests/all.sh --lane 1 "$PMU" & l1=$!
setsid sh tests/all.sh --lane 2 "$PMU" & l2=$!
setsid sh tests/all.sh --lane 3 "$PMU" & l3=$!
trap 'kill -TERM -- -$l1 -$l2 -$l3 2>/dev/null; wait; exit 130' INT TERM HUP
wait $l1
wait $l2
wait $l3
trap - INT TERM HUP
# Last, alone: the unit tests that time against the whole machine, each build's in turn.
for b in normal asan; do
	d=$(dir "$b")
	if [ "$(cat "$(built "$b")" 2>/dev/null)" = 0 ]; then
		part "$b-quiet" "$d/test-results-quiet.txt" sh tests/run.sh "$d" quiet
	else
		echo "$b-quiet: 0 passed, 1 failed, 0 skipped" >"$d/test-results-quiet.txt"
	fi
done
rm -f "$LOCK"
echo
sh tests/total.sh build/test-results-unit.txt build/test-results-scripts-cli.txt \
	build/test-results-scripts-rest.txt build/test-results-scripts-wait.txt \
	build/pmu/test-results.txt build/clang/test-results.txt \
	build/asan/test-results-unit.txt build/asan/test-results-scripts-cli.txt \
	build/asan/test-results-scripts-rest.txt build/asan/test-results-scripts-wait.txt \
	build/test-results-quiet.txt build/asan/test-results-quiet.txt
