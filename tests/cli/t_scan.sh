#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench stat -P/-L (issue 38): bad input, and scans of programs whose work is known
# (tests/data/scan/work.c: constant, linear, n log n (a heap sort), quadratic, each after the
# same start-up of about 4 ms): the right model named, b's interval around the cost of one unit
# the program times itself ("work unit": the best of 15 timings after a warm-up), a short range
# inconclusive, a program that slows itself half-way through the scan still linear (the points
# are interleaved), and each output format.
# Usage: tests/cli/t_scan.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/scan: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

W="$T/work"
if ! cc -O2 -o "$W" tests/data/scan/work.c 2>"$T/err"; then
	bad "build work.c" "cannot build: $(head -c 200 "$T/err")"
	# ---- compare: each command at every point ------------------------------------------------------
usage_error "compare scan name missing" "{n} is not in the command" compare -P n 1 4 "$W lin {n}" "$W lin 5"
usage_error "compare scan with a duet" "a scan compares commands (not a baseline, a duet" compare --duet -P n 1 4 "$W lin {n}" "$W quad {n}"
if run "compare scan" 0 "$PB" compare -P n 1000 64000 --log2 --max-runs 10 --export-json "$T/c.json" "$W lin {n}" "$W nlogn {n}" &&
   has "$T/out" "^scan of n: 7 points for each command, 10 rounds, the commands at every point in a fresh random order" &&
   has "$T/out" "^$W nlogn {n}:$" && has "$T/out" "^  n=64000 .*   [0-9.]*x ([0-9.]*-[0-9.]*)$" &&
   json "$T/c.json" 'len(d["sides"]) == 2 and d["sides"][1]["points"][6]["ratio"] > 1.2 and d["sides"][1]["points"][6]["runs"] == 10 and d["sides"][0]["fit"]["model"] in ("n", "n log n")'; then
	ok "compare scan: both commands at every point, the ratio at each"
else
	miss "compare scan"
fi

finish cli/scan
	exit
fi

# ---- bad input: one line, exit 2, nothing run --------------------------------------------------
usage_error "scan MIN above MAX" "^pbench: error: -P n 10 5: MIN is above MAX$" stat -P n 10 5 -- "$W" lin {n}
usage_error "scan step 0" "invalid step '0' for -D" stat -P n 1 5 -D 0 -- "$W" lin {n}
usage_error "scan name not in the command" "{m} is not in the command" stat -P m 1 5 -- "$W" lin {n}
usage_error "scan too many points" "more than the 256 points a scan runs" stat -P n 1 100000 -- "$W" lin {n}
usage_error "scan product too large" "the scan has 400 points, more than the 256" stat -P a 1 20 -P b 1 20 -- "$W" {a} {b}
usage_error "scan -D before -P" "-D sets the step of a -P NAME MIN MAX" stat -D 2 -P n 1 5 -- "$W" lin {n}
usage_error "scan -P without MAX" "-P n needs MIN and MAX" stat -P n 1
usage_error "scan --geom 1" "invalid factor '1' for --geom" stat -P n 1 8 --geom 1 -- "$W" lin {n}
usage_error "scan --log2 from 0" "a geometric scan (--log2, --geom) needs MIN above 0" stat -P n 0 8 --log2 -- "$W" lin {n}
usage_error "scan two steps" "one step only" stat -P n 1 8 --log2 -D 2 -- "$W" lin {n}
# {n} in the helpers: one of each per point (the entrant's own), -r 2: two prepares a point
if run "scan in helpers" 0 "$PB" stat -P n 1 3 -r 2 --mode unprepared --setup "touch $T/s{n}" --prepare "sh -c 'echo x >> $T/p{n}'" --cleanup "touch $T/c{n}" -- "$W" lin {n} &&
   [ -e "$T/s1" ] && [ -e "$T/s3" ] && [ -e "$T/c1" ] && [ -e "$T/c3" ] && [ "$(wc -l <"$T/p2")" -eq 2 ]; then
	ok "scan {n} in --setup, --prepare, --cleanup: one of each per point"
else
	miss "scan in helpers"
fi
usage_error "scan -L empty value" "-L n: an empty or too long value" stat -L n 1,,3 -- "$W" lin {n}
usage_error "scan one point" "a scan needs 2 or more" stat -L n 7 -- "$W" lin {n}

# ---- the four programs -------------------------------------------------------------------------
# unit: the ns of one unit of work.c, as the program times it itself ("work unit": the best of
# 15 timings after a warm-up), run by pbench stat as the scans' points are (prepared: pinned,
# its priority up; alone, on a 2-CPU VM its neighbours' load doubled it at times); its
# output goes to stderr beside a report on stdout; the best of the check run and 2 runs.
unit() {
	"$PB" stat -r 2 --json -- "$W" unit 1000000 2>"$T/unit.err" >/dev/null
	grep -E '^[0-9.]+$' "$T/unit.err" | sort -n | head -n 1
}
# fit KIND MIN MAX PATTERN CHECK: a scan with --log2, 20 rounds, then CHECK on its JSON, where
# UNIT is the unit's cost just before and just after the scan, as a pair (the VM's speed moves
# with its neighbours' load); up to 3 tries (each afresh) on a VM that slows a vCPU for seconds
# at times.
fit() {
	kind=$1 lo=$2 hi=$3 pat=$4 check=$5
	f0=$fail
	for try in 1 2 3; do
		fail=$f0	# a failed try is not a failure yet
		u1=$(unit)
		if run "scan $kind" 0 "$PB" stat -P n "$lo" "$hi" --log2 -r 20 --export-json "$T/$kind.json" -- "$W" "$kind" {n} &&
		   u2=$(unit) && [ -n "$u1" ] && [ -n "$u2" ] && has "$T/out" "$pat" &&
		   json "$T/$kind.json" "$(printf '%s' "$check" | sed "s/UNIT/($u1, $u2)/g")"; then
			ok_after "$try" "scan $kind: $(grep -m 1 '^grows as\|^constant' "$T/out" | cut -c 1-150) (a unit before and after: $u1, $u2 ns)"
			return
		fi
	done
	miss "scan $kind"
}
# b's interval (widened by 10% each way) meets the span of the unit's two timings (the same
# machine and mode, not the same moment)
fit const 1000 512000 "^constant: " 'd["fit"]["model"] == "1" and not d["fit"]["inconclusive"]'
fit lin 1000 512000 "^grows as n: .* x n + " \
	"d['fit']['model'] == 'n' and d['fit']['b_lo_ns'] * 0.9 <= max(UNIT) and min(UNIT) <= d['fit']['b_hi_ns'] * 1.1 and 3e6 < d['fit']['a_ns'] < 6e6"
fit nlogn 1000 128000 "^grows as n log n: .* x n log2 n + " 'd["fit"]["model"] == "n log n" and not d["fit"]["inconclusive"]'
fit quad 200 6400 "^grows as n^2: .* x n^2 + " \
	"d['fit']['model'] == 'n^2' and d['fit']['b_lo_ns'] * 0.9 <= max(UNIT) / 64 and min(UNIT) / 64 <= d['fit']['b_hi_ns'] * 1.1"

# ---- a range too short to tell n from n log n ----------------------------------------------------
f0=$fail
for try in 1 2 3; do
	fail=$f0
	if run "scan short range" 0 "$PB" stat -P n 64000 96000 --geom 1.1 -r 20 -- "$W" nlogn {n} &&
	   has "$T/out" "^inconclusive between O([^)]*) and O([^)]*) over n 64000-93702: " &&
	   has "$T/out" "a scan up to about n = [0-9]* would tell them apart"; then
		ok_after "$try" "scan short range: inconclusive, and the range that would tell"
		break
	fi
	[ "$try" -eq 3 ] && miss "scan short range"
done

# ---- a drift half-way: interleaved, the fit stays linear; in order, it bends -------------------------
# The program runs twice as slowly (start-up too) once 0.8 s have passed since its first run
# (a scan takes 2 to 3 s). Interleaved, every point gets runs before and after: each mean is a
# mix, the points stay on a line (wider intervals, so n log n may not be told from n), k holds 1.
# Run one point after the other (compare --order sequential), the larger half is the slow one:
# a step in the curve, that no model fits (a reduced chi-square in the hundreds) or a power
# that is not 1.
f0=$fail
for try in 1 2 3; do
	fail=$f0
	rm -f "$T/drift" "$T/drift2"
	if run "scan drift" 0 env WORK_DRIFT_FILE="$T/drift" WORK_DRIFT_S=0.8 "$PB" stat -P n 1000 512000 --log2 -r 20 --export-json "$T/drift.json" -- "$W" drift {n} &&
	   [ -s "$T/drift" ] && il=$(grep -m 1 '^grows\|^inconclusive\|^constant' "$T/out"; true) &&
	   json "$T/drift.json" 'd["fit"]["chi2_red"] < 5 and d["fit"]["k_lo"] <= 1 <= d["fit"]["k_hi"] and (d["fit"]["model"] == "n" or (d["fit"]["inconclusive"] and d["fit"]["runner_up"] == "n"))' &&
	   run "scan drift in order" 0 env WORK_DRIFT_FILE="$T/drift2" WORK_DRIFT_S=0.8 "$PB" compare --order sequential -P n 1000 512000 --log2 --max-runs 10 --export-json "$T/drift2.json" "$W drift {n}" "$W lin {n}" &&
	   json "$T/drift2.json" '(f := d["sides"][0]["fit"])["chi2_red"] > 20 or not (f["k_lo"] <= 1 <= f["k_hi"])'; then
		ok_after "$try" "scan drift: interleaved, still a line ($(printf '%s' "$il" | cut -c 1-70)...); in order, bent ($(grep -m 1 '^grows\|^inconclusive\|^constant' "$T/out" | cut -c 1-50)...)"
		break
	fi
	[ "$try" -eq 3 ] && miss "scan drift"
done

# ---- outputs, -L, two parameters, the workload ---------------------------------------------------
if run "scan outputs" 0 "$PB" stat -L n 1000,4000,16000,64000 -r 5 --export-csv "$T/s.csv" --export-markdown "$T/s.md" --plot "$T/s.svg" -- "$W" lin {n} &&
   line 1 "$T/s.csv" "^n,mean_ns,median_ns,sem_ns,ci_lo_ns,ci_hi_ns,runs$" &&
   line 5 "$T/s.csv" "^64000,[0-9.e+]*,[0-9.e+]*,[0-9.e+]*,[0-9.e+]*,[0-9.e+]*,5$" &&
   has "$T/s.md" "^| n | mean_ns | median_ns" && has "$T/s.md" "^| 16000 | " &&
   has "$T/s.svg" "</svg>" && has "$T/s.svg" "<polyline" && has "$T/s.svg" "<title>n=64000: "; then
	ok "scan outputs: CSV, Markdown, the plot"
else
	miss "scan outputs"
fi
if run "scan json" 0 "$PB" stat -P n 1000 8000 --log2 -r 5 --json -- "$W" lin {n} &&
   json "$T/out" 'd["schema"] == 2 and d["document"] == "scan" and d["parameters"] == ["n"] and len(d["points"]) == 4 and d["points"][3]["values"]["n"] == 8000 and d["points"][0]["runs"] == 5 and "words" in d["fit"]'; then
	ok "scan --json"
else
	miss "scan --json"
fi
if run "scan two parameters" 0 "$PB" stat -L a 1,2 -P b 10 30 -D 10 -r 3 -- "$W" lin "{a}{b}" &&
   has "$T/out" "^scan of several parameters: 6 points" && has "$T/out" "^  a=2,b=30 " &&
   has "$T/out" "^fit: one parameter at a time"; then
	ok "scan two parameters: the product"
else
	miss "scan two parameters"
fi
if run "scan workload" 0 "$PB" stat --workload xor -P iterations 1000000 8000000 --log2 -r 5 &&
   has "$T/out" "^  iterations=8000000 " && has "$T/out" "^grows as n\|inconclusive"; then
	ok "scan the workload's --iterations"
else
	miss "scan workload"
fi

# ---- compare: each command at every point ------------------------------------------------------
usage_error "compare scan name missing" "{n} is not in the command" compare -P n 1 4 "$W lin {n}" "$W lin 5"
usage_error "compare scan with a duet" "a scan compares commands (not a baseline, a duet" compare --duet -P n 1 4 "$W lin {n}" "$W quad {n}"
if run "compare scan" 0 "$PB" compare -P n 1000 64000 --log2 --max-runs 10 --export-json "$T/c.json" "$W lin {n}" "$W nlogn {n}" &&
   has "$T/out" "^scan of n: 7 points for each command, 10 rounds, the commands at every point in a fresh random order" &&
   has "$T/out" "^$W nlogn {n}:$" && has "$T/out" "^  n=64000 .*   [0-9.]*x ([0-9.]*-[0-9.]*)$" &&
   json "$T/c.json" 'len(d["sides"]) == 2 and d["sides"][1]["points"][6]["ratio"] > 1.2 and d["sides"][1]["points"][6]["runs"] == 10 and d["sides"][0]["fit"]["model"] in ("n", "n log n")'; then
	ok "compare scan: both commands at every point, the ratio at each"
else
	miss "compare scan"
fi

finish cli/scan
