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

# ---- the figure (--metric, -e) and the caches (--scan-bytes) ------------------------------------
json_get() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# walk N: N bytes (calloc, then N/8 more for the order) touched: about 1.125 N/4096 page faults.
# A software event, so it counts without a hardware PMU. A figure that is the time, or the same
# at every point, or not the page-faults' fails the count's growth.
if run "scan figure -e" 0 "$PB" stat -P n 1048576 8388608 --log2 -r 3 -e page-faults --export-csv "$T/f.csv" --export-markdown "$T/f.md" --export-json "$T/f.json" --plot "$T/f.svg" -- "$W" walk {n} &&
   has "$T/out" "^  point  *mean  *interval of the mean  *runs  *page-faults a run (interval)$" &&
   has "$T/out" "^fit of page-faults: grows as O(n): " &&
   line 1 "$T/f.csv" "^n,mean_ns,median_ns,sem_ns,ci_lo_ns,ci_hi_ns,runs,page-faults_mean,page-faults_sem$" &&
   has "$T/f.md" "^| n | mean_ns .* | page-faults_mean | page-faults_sem |$" &&
   has "$T/f.svg" '<g class="figure" transform="translate(0,440)">' && has "$T/f.svg" ">page-faults against n (" &&
   json "$T/f.json" 'd["figure"] == "page-faults" and 1600 < d["points"][3]["figure_mean"] - d["points"][0]["figure_mean"] < 2400 and d["points"][3]["figure_runs"] == 3 and d["figure_fit"]["model"] == "n" and d["points"][3]["mean_ns"] > 1e6'; then
	ok "scan -e page-faults: the figure beside the time at every point, fitted O(n), in the CSV, Markdown, JSON and a second SVG panel ($(json_get "$T/f.json" 'round(d["points"][3]["figure_mean"] - d["points"][0]["figure_mean"])') more faults for 7 MiB more)"
else
	miss "scan figure -e"
fi
if run "scan figure --metric" 0 "$PB" stat -L n 1048576,4194304 -r 3 --metric page-faults --json -- "$W" walk {n} &&
   json "$T/out" 'd["figure"] == "page-faults" and d["points"][1]["figure_mean"] > 3 * d["points"][0]["figure_mean"] and d["points"][1]["mean_ns"] > 1e5'; then
	ok "scan --metric page-faults: the figure, the time still the time"
else
	miss "scan figure --metric"
fi
usage_error "scan --scan-bytes not scanned" "--scan-bytes m: the one parameter scanned" stat -P n 1 4 --scan-bytes m -- "$W" lin {n}
# A recorded machine's caches (PBENCH_SYSFS_ROOT): placed among the points as its sysfs says; a
# program without memory (lin: compute only) has no break at any of them.
R="$T/sys"
for c in "0 1 Data 256K" "1 1 Instruction 32K" "2 2 Unified 1024K" "3 3 Unified 8192K"; do
	set -- $c
	mkdir -p "$R/devices/system/cpu/cpu0/cache/index$1"
	echo "$2" >"$R/devices/system/cpu/cpu0/cache/index$1/level"
	echo "$3" >"$R/devices/system/cpu/cpu0/cache/index$1/type"
	echo "$4" >"$R/devices/system/cpu/cpu0/cache/index$1/size"
done
if run "scan caches recorded" 0 env PBENCH_SYSFS_ROOT="$R" "$PB" stat -P n 65536 2097152 --log2 --scan-bytes n -r 5 --json --plot "$T/c.svg" -- "$W" lin {n} &&
   json "$T/out" '[c["name"] for c in d["caches"]] == ["L1d", "L2", "L3"] and [c["bytes"] for c in d["caches"]] == [262144, 1048576, 8388608] and d["caches"][0]["below"] == 262144 and d["caches"][0]["above"] == 524288 and d["caches"][1]["above"] == 2097152 and d["caches"][2]["below"] == 2097152 and d["caches"][2]["above"] is None and d["caches"][2]["llc"] and not d["caches"][0]["time_break"] and not d["caches"][1]["time_break"]' &&
   [ "$(grep -c '<line class="cache"' "$T/c.svg")" -eq 2 ] && has "$T/c.svg" ">L1d 256 KiB</text>" && ! has "$T/c.svg" 'class="break"'; then
	ok "scan --scan-bytes on a recorded machine: L1d, L2, L3 (LLC) among the points, no break for a program without memory ($(json_get "$T/out" '"%.2f, %.2f" % (d["caches"][0]["time_ratio"], d["caches"][1]["time_ratio"])'))"
else
	miss "scan caches recorded"
fi
# The interval of a cache's slope ratio is at the scan's confidence (the fit's, 99.9%), not the
# points' 95%: recomputed from the points' means and standard errors, its half-width in log
# space over the slopes' relative error is Student's t at 99.9% on the points' 4 degrees of
# freedom (-r 5), 8.6103 (at 95%: 2.7764; a scan judging two or three caches at 95% showed a
# break for this program, which has none).
if why=$(python3 - "$T/out" <<'EOF' 2>&1
import json, math, sys
d = json.load(open(sys.argv[1]))
p = {q["values"]["n"]: q for q in d["points"]}
xs = sorted(p)
if d["confidence"] != 0.999 or any(q["runs"] != 5 for q in d["points"]):
    sys.exit("expected confidence 0.999 and 5 runs a point, saw %r and %r"
             % (d["confidence"], [q["runs"] for q in d["points"]]))
seen = 0
for c in d["caches"]:
    if c["above"] is None or c["time_ratio"] is None:
        continue
    h, i, j = p[xs[xs.index(c["below"]) - 1]], p[c["below"]], p[c["above"]]
    d1, d2 = i["values"]["n"] - h["values"]["n"], j["values"]["n"] - i["values"]["n"]
    s1, s2 = (i["mean_ns"] - h["mean_ns"]) / d1, (j["mean_ns"] - i["mean_ns"]) / d2
    v1 = (i["sem_ns"] ** 2 + h["sem_ns"] ** 2) / d1 ** 2
    v2 = (j["sem_ns"] ** 2 + i["sem_ns"] ** 2) / d2 ** 2
    z = math.log(c["time_ratio_hi"] / c["time_ratio"]) / math.sqrt(v1 / s1 ** 2 + v2 / s2 ** 2)
    if abs(z - 8.6103) > 0.01 or abs(c["time_ratio"] - s2 / s1) > 1e-6 * abs(s2 / s1):
        sys.exit("%s: expected ratio %.6g with t 8.6103, saw ratio %.6g with t %.4f"
                 % (c["name"], s2 / s1, c["time_ratio"], z))
    seen += 1
if not seen:
    sys.exit("no cache with a ratio to check")
EOF
); then
	ok "scan --scan-bytes: a cache's slope ratio has its interval at the scan's 99.9% (t 8.61 on 4 df, recomputed from the points)"
else
	bad "scan cache interval at the scan's confidence" "$why"
fi
# This machine's L2 (sysfs), crossed by a walk over N bytes: the cost of a byte more breaks there.
# Ten runs a point: judged at the scan's 99.9%, five found the break in 2 of 4 scans here, ten
# in 4 of 4 (1.32-2.73 the widest interval).
L2=$(for x in /sys/devices/system/cpu/cpu0/cache/index*; do [ "$(cat "$x/level" 2>/dev/null)" = 2 ] && cat "$x/size"; done 2>/dev/null | head -n 1)
case $L2 in
*K) L2=$(( ${L2%K} * 1024 )) ;;
*M) L2=$(( ${L2%M} * 1048576 )) ;;
*) L2= ;;
esac
if [ -z "$L2" ]; then
	skipped "scan L2 break" "no level-2 cache in /sys/devices/system/cpu/cpu0/cache"
else
	for try in 1 2 3; do
		if run "scan L2 break" 0 "$PB" stat -P n $((L2 / 4)) $((L2 * 2)) --log2 --scan-bytes n -r 10 -- "$W" walk {n} &&
		   has "$T/out" "^  L2 [0-9]* [KM]iB: the working set leaves it between n=$L2 and n=$((L2 * 2)); the time a byte more costs [0-9.]*x what it did below ([0-9.]*-[0-9.]*, 99.9%): a break$"; then
			ok_after "$try" "scan --scan-bytes: this machine's L2 ($L2 bytes) crossed by a walk breaks: $(grep -m 1 '^  L2 ' "$T/out" | sed 's/.*costs //')"
			break
		fi
		[ "$try" -eq 3 ] && miss "scan L2 break"
	done
fi

# ---- the stop rules per point -------------------------------------------------------------------
# --target-sem: each point leaves the rounds once its SEM is at the target, the others go on;
# a scan that stopped them all together (the same runs everywhere) or one that stopped a point
# above its target fails. The points differ by design (work.c's noisy: n=0 the steady start-up
# alone, n=2000000 up to 2000000 units more drawn afresh each run, a spread of about 45%: its
# SEM after 40 runs about 7%, never at the target of 2%, where the steady point is in a few
# runs even on a machine whose start-ups spread 10%); its n=0 leaves no fit of the time nor of
# the figure (-e page-faults), each said why (log n is not defined there), not a warning of a
# failed call or a bare n/a. --max-time: each point's runs take
# about that much, a slow point has fewer runs than a quick one.
if run "scan --target-sem" 0 "$PB" stat -L n 0,2000000 --target-sem 2 -r 40 -e page-faults --json -- "$W" noisy {n} &&
   json "$T/out" 'd["points"][0]["stopped"] == "target_sem" and d["points"][0]["runs"] < 40 and d["points"][0]["sem_ns"] / d["points"][0]["mean_ns"] <= 0.02 and d["points"][1]["stopped"] == "rounds" and d["points"][1]["runs"] == 40 and "value of 0 or below" in d["fit"]["reason"] and "value of 0 or below" in d["figure_fit"]["words"]'; then
	ok "scan --target-sem 2: each point stopped on its own ($(json_get "$T/out" '", ".join("%s %d runs" % (p["stopped"], p["runs"]) for p in d["points"])'))"
else
	miss "scan --target-sem"
fi
if run "scan --max-time" 0 "$PB" stat -L n 1000,2000000 --max-time 0.3 -r 200 -- "$W" lin {n} &&
   has "$T/out" "^  n=1000 .* its max-time$" && has "$T/out" "^  n=2000000 .* its max-time$" &&
   [ "$(sed -n 's/^  n=1000 .*)  *\([0-9]*\)   its max-time$/\1/p' "$T/out")" -gt "$(sed -n 's/^  n=2000000 .*)  *\([0-9]*\)   its max-time$/\1/p' "$T/out")" ]; then
	ok "scan --max-time 0.3: each point within its own budget, the slow one with fewer runs"
else
	miss "scan --max-time"
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
