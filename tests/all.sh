#!/bin/sh
# SPDX-License-Identifier: MIT
# make test: every part, two at a time on two lanes, then the total. Usage: tests/all.sh [PMU]
#
#   lane 1: the normal build and its tests (build/), then the clang build (-Werror)
#   lane 2: the emulated-PMU suite (build/pmu), then ASan+UBSan and its tests (build/asan)
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
		echo "${res%/test-results.txt}: 0 passed, 1 failed, 0 skipped" >"$res"
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

lane1() {
	part normal build/test-results.txt make --no-print-directory check O=build DEVELOPER=1
	part clang build/clang/test-results.txt clang_build
}
lane2() {
	part pmu build/pmu/test-results.txt env DEVELOPER=1 sh tests/pmu/run.sh build/pmu "$PMU"
	part asan build/asan/test-results.txt make --no-print-directory check O=build/asan SAN=1 DEVELOPER=1
}

# tests/all.sh --lane N PMU: one lane (what the main part below starts, in a session of its own).
if [ "${1:-}" = --lane ]; then
	PMU=$3
	lane"$2"
	exit
fi

PMU=${1:-1}
mkdir -p build build/asan build/pmu build/clang || exit 1
rm -f build/test-results.txt build/asan/test-results.txt build/pmu/test-results.txt \
      build/clang/test-results.txt build/test-*.log
: >"$LOCK"
echo "make test: two lanes at once: [normal, clang] and [pmu, asan]; each part prints when it ends"
# The lanes' sessions are their own: Ctrl-C or a kill of make ends them, and everything in them.
setsid sh tests/all.sh --lane 1 "$PMU" & l1=$!
setsid sh tests/all.sh --lane 2 "$PMU" & l2=$!
trap 'kill -TERM -- -$l1 -$l2 2>/dev/null; wait; exit 130' INT TERM HUP
wait $l1
wait $l2
trap - INT TERM HUP
rm -f "$LOCK"
echo
sh tests/total.sh build/test-results.txt build/pmu/test-results.txt build/asan/test-results.txt \
	build/clang/test-results.txt
