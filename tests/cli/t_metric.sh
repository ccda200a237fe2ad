#!/bin/sh
# SPDX-License-Identifier: MIT
# --metric NAME for pbench stat and compare (issue 23 item 3): the figure the outliers, the
# target SEM, the test, the verdict and the gate are on. On this host with software events:
# task-clock, and page faults of a command that touches N pages against one that touches 2N
# (dd's buffer of 2 MiB and 4 MiB, each page written once); names that are neither an event nor
# a metric; a metric this machine cannot count; a baseline without the metric.
# Usage: tests/cli/t_metric.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/metric: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
Q="--mode unprepared"
C="--mode unprepared --max-time 20"
N1="dd if=/dev/zero of=/dev/null bs=2M count=1"
N2="dd if=/dev/zero of=/dev/null bs=4M count=1"

# ---- names: one line, exit 2, nothing run ------------------------------------------------------
usage_error "stat --metric typo" "unknown metric 'ipcc': neither an event nor a derived metric (did you mean 'ipc'?)" \
	stat --metric ipcc true
usage_error "compare --metric typo" "unknown metric 'page-falts'.*(did you mean 'page-faults'?)" \
	compare --metric page-falts true true
usage_error "--metric two names" "the metric 'a,b' is not one name" stat --metric a,b true

# ---- a metric this machine cannot count: said before anything runs, exit 1 ---------------------
if [ "$HAVE_PMU" = 1 ]; then
	skipped "--metric instructions:u without a PMU" "this machine has a hardware PMU (it counts instructions)"
elif run "not countable" 1 "$PB" stat $Q -r 2 --metric instructions:u -- true &&
     has "$T/err" "^pbench: error: .*the metric 'instructions:u' cannot be counted here: .*not supported" &&
     [ ! -s "$T/out" ]; then
	ok "--metric instructions:u without a PMU: exit 1 before any run, saying why"
else
	miss "not countable"
fi
if [ "$HAVE_PMU" = 0 ] && run "compare not countable" 1 "$PB" compare $C --metric ipc true true &&
   has "$T/err" "the metric 'ipc' cannot be counted here: instructions"; then
	ok "compare --metric ipc without a PMU: exit 1, the event it lacks named"
elif [ "$HAVE_PMU" = 0 ]; then
	miss "compare not countable"
fi

# ---- stat: the summary, the outliers and the target on the metric ----------------------------
if run "stat task-clock" 0 "$PB" stat $Q -r 5 --metric task-clock -- true &&
   has "$T/out" "^metric task-clock (decided on): 5 runs, min .* [mun]*s, median .*, mean .* +- .*%, max" &&
   has "$T/out" "^outliers: [0-9]* on task-clock (Tukey fences "; then
	ok "stat --metric task-clock: its summary line and the outliers on it"
else
	miss "stat task-clock"
fi
if run "stat json" 0 "$PB" stat $Q -r 4 -e task-clock --metric page-faults --json -- $N1 &&
   json "$T/out" 'd["metric"] == {"name": "page-faults", "unit": "", "higher_is_better": False} and
	[e["name"] for e in d["events"]] == ["task-clock", "page-faults"] and
	(m := d["modes"][0]["metric_summary"])["summary"]["n"] == 4 and len(m["values"]) == 4 and
	m["values"][0] == d["modes"][0]["runs"][0]["counters"]["page-faults"]["scaled"] and
	d["modes"][0]["outliers"]["fence_lo_ns"] is None'; then
	ok "stat --metric page-faults --json: named, its events opened, its values and summary"
else
	miss "stat json"
fi
if run "stat json without" 0 "$PB" stat $Q -r 2 -e task-clock --json -- true &&
   json "$T/out" '"metric" not in d and "metric_summary" not in d["modes"][0]'; then
	ok "stat without --metric: no metric in the JSON (the wall time, as before)"
else
	miss "stat json without"
fi
if run "stat target" 0 "$PB" stat $Q -r 200 --target-sem 0.5 --max-time 20 --metric page-faults --json -- $N1 &&
   json "$T/out" 'd["modes"][0]["stop"]["rule"] == "target_reached" and len(d["modes"][0]["runs"]) < 200'; then
	ok "stat --metric page-faults --target-sem: the target is reached on the faults' SEM"
else
	miss "stat target"
fi

# ---- compare: the test and the verdict on the metric -----------------------------------------
if run "compare faults" 0 "$PB" compare $C --metric page-faults -n a -n b "$N1" "$N2" &&
   line 1 "$T/out" "^b counts 1\.[5-9][0-9]*x the page-faults of a (99\.9% interval 1\.[0-9]*-1\.[0-9]*), higher: worse, decided after" &&
   has "$T/out" "page-faults / reference's (interval)"; then
	ok "compare --metric page-faults: 2N pages count 1.5x-2x the faults of N, higher: worse"
else
	miss "compare faults"
fi
if run "compare faults json" 0 "$PB" compare $C --metric page-faults -n a -n b --json "$N1" "$N2" &&
   json "$T/out" 'd["metric"]["name"] == "page-faults" and d["verdicts"][0]["verdict"] == "higher" and not d["verdicts"][0]["better"] and
	1.5 < d["verdicts"][0]["ratio"] < 2 and len(d["entrants"][1]["metric_values"]) == d["rounds"]'; then
	ok "compare --metric --json: the metric named, the verdict higher (not faster or slower) and not better, the ratio of the faults, the values tested"
else
	miss "compare faults json"
fi
# The table is in the metric's figures (counts here, not times), sorted on them: b, a sleep,
# is the slower but has the fewer faults, so it comes first, under the line naming the metric.
table_on_faults() {
	awk '/^page-faults a run \(a count\), the figure decided on, the lowest first:$/ { at = NR }
	     at { gsub(",", "") }	# figures grouped by thousands (1,105)
	     at && NR == at + 2 && $1 == "b" && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ && $4 == "±" &&
		$5 ~ /^[0-9.]+$/ && $6 ~ /^[0-9.]+$/ && $0 !~ / [mun]?s / { rb = 1; sb = $3 }
	     at && NR == at + 3 && $1 == "a" && $3 > 1.4 * sb { ra = 1 }
	     END { exit !(ra && rb) }' "$1"
}
if run "compare table" 0 "$PB" compare $C --metric page-faults -n a -n b "$N2" "sleep 0.05" &&
   table_on_faults "$T/out"; then
	ok "compare --metric page-faults: the table's figures are the faults a run, the fewest first"
else
	LAST_WANT="the rows b then a in page-faults under their line" LAST_SAW=$(grep -A3 "a run" "$T/out" | head -4)
	miss "compare table"
fi
if run "compare markdown" 0 "$PB" compare $C --metric page-faults -n a -n b --markdown "$N1" "$N2" &&
   has "$T/out" "^On \`page-faults\`, the figure decided on, a run (lowest first):$" &&
   has "$T/out" "^| Command | Runs | Mean ± SEM \[count\] | SD \[count\] | Median \[count\] | Min \[count\] | Max \[count\] | Relative (page-faults) |$" &&
   has "$T/out" "^| \`a\` | [0-9]* | [0-9.,]* ± [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9,]* | [0-9,]* | 1 (reference) |$" &&
   has "$T/out" "^| Event | Command | Mean a run | Against \`a\` (interval) |$" &&
   has "$T/out" "^| page-faults | \`b\` | [0-9.,]* | 1\.[4-9][0-9]* (1\.[0-9]*-[12]\.[0-9]*) |$" &&
   has "$T/out" "^| Metric | Command | Mean | ± SEM | Unit |$" &&
   has "$T/out" "^| faults-per-sec | \`b\` | [0-9.,]* | [0-9.]*% | /sec |$"; then
	ok "compare --markdown: the table in faults, the events and metrics tables as the text's blocks"
else
	miss "compare markdown"
fi
if run "compare same" 0 "$PB" compare $C --metric page-faults -n a -n b "$N1" "$N1" &&
   line 1 "$T/out" "^b and a have the same page-faults within 1% (99\.9% interval of the ratio"; then
	ok "compare --metric page-faults of the same command: the same"
else
	miss "compare same"
fi
if run "gate" 1 "$PB" compare $C --metric page-faults -n a -n b --fail-if-slower 5 "$N1" "$N2" &&
   has "$T/err" "^pbench: regression: worse by more than 5% on page-faults: b counts"; then
	ok "--fail-if-slower on --metric page-faults: twice the pages fail the gate"
else
	miss "gate"
fi

# ---- a baseline: it must hold the metric -------------------------------------------------------
if run "baseline without" 0 "$PB" stat $Q -r 3 -e task-clock --json="$T/b.json" -- $N1 &&
   run "baseline without" 2 "$PB" compare $C --metric page-faults --baseline "$T/b.json" "$N1" &&
   has "$T/err" "^pbench: error: the baseline '.*b.json' has no per-run values of 'page-faults' (run 1): its runs counted task-clock; measure it again with --metric page-faults$"; then
	ok "--baseline without the metric: one line naming what its runs counted, exit 2"
else
	miss "baseline without"
fi
if run "baseline" 0 "$PB" stat $Q -r 6 --metric page-faults --json="$T/b2.json" -- $N1 &&
   run "baseline" 1 "$PB" compare $C --metric page-faults --baseline "$T/b2.json" --fail-if-slower 5 "$N2" &&
   has "$T/err" "^pbench: regression: .*worse than the baseline by more than 5% on page-faults"; then
	ok "--baseline on the metric: 2N pages against a baseline of N fail the gate"
else
	miss "baseline"
fi

# ---- a baseline's runs, from its file: the table, the events and metrics beside the live ------
# (before: "baseline 0 n/a ± n/a" on a metric, and every event's ratio to it n/a)
if [ -s "$T/b2.json" ] &&
   run "baseline table" 0 "$PB" compare $C --metric page-faults --baseline "$T/b2.json" -n c "$N1" &&
   has "$T/out" "^  baseline *6 *[0-9.,]* ± [0-9.,]* *[0-9.,]* *[0-9.,]* *[0-9,]* … [0-9,]* *1 (reference)$" &&
   has "$T/out" "^  page-faults *baseline *[0-9.]*$" &&
   has "$T/out" "^  *c *[0-9.]*  [01]\.[0-9]* ([01]\.[0-9]*-[01]\.[0-9]*)$" &&
   has "$T/out" "^  faults-per-sec *baseline *[0-9.,]* /sec  ( +- *[0-9.]*% )$"; then
	ok "--baseline on a metric: its 6 stored runs in the table, the events' ratios to its counts"
else
	miss "baseline table"
fi
if run "baseline time" 0 "$PB" stat $Q -r 5 --json="$T/b3.json" -- $N1 &&
   run "baseline time" 0 "$PB" compare $C --baseline "$T/b3.json" -n c --json "$N1" &&
   json "$T/out" '[(e["mean"], f["ratio"], f["ratio_lo"], f["ratio_hi"]) for e, f in
	zip(d["entrants"][0]["events"], d["entrants"][1]["events"]) if e["name"] == "page-faults"]
	[0] and d["entrants"][0]["stored"] and d["entrants"][0]["summary"]["n"] == 5 and
	[e["mean"] > 0 and 0.8 < f["ratio"] < 1.25 and f["ratio_lo"] <= f["ratio"] <= f["ratio_hi"]
	 for e, f in zip(d["entrants"][0]["events"], d["entrants"][1]["events"])
	 if e["name"] == "page-faults"] == [True]'; then
	ok "--baseline on the time: the JSON gives the baseline's events and each event's ratio to them"
else
	miss "baseline time"
fi
finish cli/metric
