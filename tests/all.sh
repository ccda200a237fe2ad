#!/bin/sh
# SPDX-License-Identifier: MIT
# make test: every part, two at a time on two lanes, then the total. Usage: tests/all.sh [PMU]
#
#   lane 1: the normal build and its tests (build/), the emulated-PMU suite (build/pmu), the
#           clang build (-Werror)
#   lane 2: the ASan+UBSan build (build/asan) and its unit tests, examples and fuzz corpora
#   either: the ASan+UBSan build's script suites in two parts (the CLI suites, then the
#           others), each on the lane free first
#   then, alone: the unit tests that time against the whole machine (tests/run.sh: QUIET), of
#   each build in turn
#
# Every part runs whatever another part did: a failure (even a build that does not compile)
# is counted, named in the total, and never hides the rest. Each part's output goes to
# build/test-<part>.log and is printed whole when the part ends, so the two lanes' lines do
# not mix. Each lane is a session of its own (setsid): a test that looks for another pbench
# it started itself finds its own before the other lane's (pbench_cpu_rival()).
set -u
LOCK=build/.test-print.lock

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

# The ASan+UBSan build is the longest part: lane 2 builds it and runs its unit tests; its
# script suites run on the lane free first, once the build is there (lane 2 writes
# build/asan/.built: the build's exit status).
asan_build() {
	make --no-print-directory check-built O=build/asan SAN=1 DEVELOPER=1
	rc=$?
	echo "$rc" >build/asan/.built
	[ "$rc" -eq 0 ] && sh tests/run.sh build/asan unit
}
asan_scripts() {	# asan_scripts cli|rest
	while [ ! -s build/asan/.built ]; do sleep 2; done
	if [ "$(cat build/asan/.built)" -ne 0 ]; then
		echo "asan-scripts-$1: not run: the ASan+UBSan build failed (its log: build/test-asan.log)"
		return 1
	fi
	# the structure tests give the same result on every build: the normal build runs them
	ONCE_ELSEWHERE="cxx layers names lint abi" sh tests/run.sh build/asan "scripts-$1"
}
# The ASan+UBSan script suites in two parts (the CLI suites are the larger), to the lane
# free first: each lane, once its own parts are done, takes the next one not taken yet.
asan_scripts_parts() {
	for half in cli rest; do
		if claim "asan-scripts-$half"; then
			part "asan-scripts-$half" "build/asan/test-results-scripts-$half.txt" \
				asan_scripts "$half"
		fi
	done
}

# claim PART: true for the one lane that takes PART (mkdir is atomic), false for the other.
claim() { mkdir "build/.claim-$1" 2>/dev/null; }

lane1() {
	part normal build/test-results-busy.txt make --no-print-directory check O=build DEVELOPER=1 TESTS=busy
	part pmu build/pmu/test-results.txt env DEVELOPER=1 sh tests/pmu/run.sh build/pmu "$PMU"
	part clang build/clang/test-results.txt clang_build
	asan_scripts_parts
}
lane2() {
	part asan build/asan/test-results-unit.txt asan_build
	[ -s build/asan/.built ] || echo 1 >build/asan/.built
	asan_scripts_parts
}

# tests/all.sh --lane N PMU: one lane (what the main part below starts, in a session of its own).
if [ "${1:-}" = --lane ]; then
	PMU=$3
	lane"$2"
	exit
fi

PMU=${1:-1}
mkdir -p build build/asan build/pmu build/clang || exit 1
rm -f build/test-results*.txt build/asan/test-results-*.txt build/asan/.built \
      build/pmu/test-results.txt build/clang/test-results.txt build/test-*.log
rm -rf build/.claim-*
: >"$LOCK"
echo "make test: two lanes at once, [normal, pmu, clang] and [asan], each then taking the next of [asan-scripts-cli, asan-scripts-rest], then the quiet tests alone; each part prints when it ends"
# The lanes' sessions are their own: Ctrl-C or a kill of make ends them, and everything in them.
setsid sh tests/all.sh --lane 1 "$PMU" & l1=$!
setsid sh tests/all.sh --lane 2 "$PMU" & l2=$!
trap 'kill -TERM -- -$l1 -$l2 2>/dev/null; wait; exit 130' INT TERM HUP
wait $l1
wait $l2
trap - INT TERM HUP
# Last, alone: the unit tests that time against the whole machine, each build's in turn.
part quiet build/test-results-quiet.txt sh tests/run.sh build quiet
if [ "$(cat build/asan/.built 2>/dev/null)" = 0 ]; then
	part asan-quiet build/asan/test-results-quiet.txt sh tests/run.sh build/asan quiet
else
	echo "asan-quiet: 0 passed, 1 failed, 0 skipped" >build/asan/test-results-quiet.txt
fi
rm -f "$LOCK"
echo
sh tests/total.sh build/test-results-busy.txt build/pmu/test-results.txt \
	build/clang/test-results.txt build/asan/test-results-unit.txt \
	build/asan/test-results-scripts-cli.txt build/asan/test-results-scripts-rest.txt \
	build/test-results-quiet.txt build/asan/test-results-quiet.txt
