#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench stat -I MS (perf stat -I): bad values, and a run over time in the text, the JSON, the
# CSV and the plot, each checked against the run it belongs to (wall times and counts add up).
# Usage: tests/cli/t_interval.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/interval: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- bad values: one line, exit 2, nothing run ---------------------------------------------
for v in 9 0 -100 abc "" 1e12; do
	usage_error "stat -I '$v'" "invalid interval (ms) '$v' for -I: expected a number from 10" \
		stat -I "$v" -- true
done
usage_error "--interval 5" "invalid interval (ms) '5' for -I" stat --interval 5 -- true
usage_error "-I without a command" "-I shows a command's runs over time: give the command" \
	stat -I 100
usage_error "-I with --workload" "-I shows a command's runs over time" \
	stat -I 100 --workload memwalk

# A command that sleeps 0.25 s then works (sh's loop): idle intervals, then busy ones.
CMD="sleep 0.25; i=0; while [ \$i -lt 60000 ]; do i=\$((i+1)); done"

# ---- text: a block per run, perf stat -I's columns, the last interval partial --------------
if run "text" 0 "$PB" stat --mode unprepared -r 2 -q -I 50 -e task-clock,context-switches \
	-- sh -c "$CMD" &&
	has "$T/out" "^unprepared, run 1: [0-9]* intervals of 50 ms$" &&
	has "$T/out" "^unprepared, run 2: [0-9]* intervals of 50 ms$" &&
	has "$T/out" "^  time (s)       wall  CPUs    task-clock  context-switches$" &&
	has "$T/out" "^     0\.05[0-9]   [0-9.]* ms  [0-9.]*  .*ms  *[0-9]*$" &&
	has "$T/out" "(partial: the run ended)$" &&
	[ "$(grep -c '(partial: the run ended)$' "$T/out")" -eq 2 ]; then
	ok "-I prints a block per run, an interval a line, the last one partial"
else
	miss "text"
fi
# the idle intervals: the command slept through them, 0 task-clock counted (not "-")
if has "$T/out" "^     0\.1[0-9][0-9]   [0-9.]* ms  0\.00             0                 0$"; then
	ok "an interval the command slept through counts 0"
else
	miss "text idle"
fi
if run "text without -I" 0 "$PB" stat --mode unprepared -r 1 -q -e task-clock -- true &&
	nothas "$T/out" "intervals of"; then
	ok "no intervals without -I"
else
	miss "text without -I"
fi

# ---- JSON: each run's intervals add up to it ------------------------------------------------
if [ "$HAVE_PY" = 1 ]; then
	if run "json" 0 "$PB" stat --mode unprepared -r 2 -q -I 30 -e task-clock,msr/tsc/,cycles \
		--json -- sh -c "$CMD" &&
		json "$T/out" 'd["interval_ms"] == 30 and
			all(sum(i["ns"] for i in r["intervals"]) == r["ns"] for r in d["modes"][0]["runs"]) and
			all(sum(i["counters"]["task-clock"]["value"] for i in r["intervals"]) ==
			    r["counters"]["task-clock"]["value"] for r in d["modes"][0]["runs"]) and
			all(sum(i["counters"]["msr/tsc/"]["value"] for i in r["intervals"]) ==
			    r["counters"]["msr/tsc/"]["value"] for r in d["modes"][0]["runs"]) and
			all([i["partial"] for i in r["intervals"]] ==
			    [False] * (len(r["intervals"]) - 1) + [True] for r in d["modes"][0]["runs"]) and
			all(len(r["intervals"]) >= 8 for r in d["modes"][0]["runs"]) and
			all(i["counters"]["cycles"] is None or i["counters"]["cycles"]["value"] is not None
			    for r in d["modes"][0]["runs"] for i in r["intervals"])'; then
		ok "JSON: each run's intervals add up to its ns and counts, the last partial"
	else
		miss "json"
	fi
	if run "json without -I" 0 "$PB" stat --mode unprepared -r 1 -q -e task-clock --json -- true &&
		json "$T/out" '"interval_ms" not in d and "intervals" not in d["modes"][0]["runs"][0]'; then
		ok "JSON without -I has no intervals"
	else
		miss "json without -I"
	fi
	# ended at the timeout: only the whole intervals before it, none partial
	if run "json timeout" 1 "$PB" stat --mode unprepared -r 1 -I 30 --timeout 0.2 \
		-e task-clock --json -- sleep 5 &&
		json "$T/out" '(r := d["modes"][0]["runs"][0])["timed_out"] and
			len(r["intervals"]) >= 3 and not any(i["partial"] for i in r["intervals"])'; then
		ok "a run ended at the timeout keeps its whole intervals"
	else
		miss "json timeout"
	fi
else
	skipped "json" "python3 is not installed"
fi

# ---- CSV: three columns appended, an interval's lines after its run's -----------------------
# csv_adds_up FILE: each run's interval lines add up to its line (ns exactly, task-clock to the
# printed digits), the last one partial
csv_adds_up() {
	[ "$HAVE_PY" = 0 ] && return 0
	python3 - "$1" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = [r for r in rows if not r["interval"]]
assert len(runs) == 2, runs
for run in runs:
    iv = [r for r in rows if r["interval"] and r["run"] == run["run"]]
    assert sum(int(r["ns"]) for r in iv) == int(run["ns"]), "ns"
    assert abs(sum(float(r["task-clock"]) for r in iv) - float(run["task-clock"])) < 1, "tc"
    assert [r["interval_partial"] for r in iv] == ["0"] * (len(iv) - 1) + ["1"]
EOF
}
if run "csv" 0 "$PB" stat --mode unprepared -r 2 -q -I 50 -e task-clock --csv -- sh -c "$CMD" &&
	line 1 "$T/out" ",interval,interval_start_ns,interval_partial$" &&
	line 2 "$T/out" "^unprepared,1,[0-9]*,[0-9]*,[0-9]*,0,.*,,,$" &&
	line 3 "$T/out" "^unprepared,1,,,[0-9]*,,,,[0-9.]*,.*,1,0,0$" &&
	has "$T/out" "^unprepared,2,,,[0-9]*,,,,[0-9.]*,.*,[0-9]*,[0-9]*,1$" &&
	csv_adds_up "$T/out" 2>"$T/err"; then
	ok "CSV: interval lines after each run's, adding up to it"
else
	miss "csv" "the CSV's interval lines, or their sums"
fi
if run "csv without -I" 0 "$PB" stat --mode unprepared -r 1 -q -e task-clock --csv -- true &&
	nothas "$T/out" "interval"; then
	ok "CSV without -I has no interval columns"
else
	miss "csv without -I"
fi

# ---- Markdown: a table a run, the text's columns ---------------------------------------------
if run "markdown" 0 "$PB" stat --mode unprepared -r 2 -q -I 50 -e task-clock,context-switches \
	--markdown -- sh -c "$CMD" &&
	has "$T/out" "^unprepared, run 1: [0-9]* intervals of 50 ms$" &&
	has "$T/out" "^unprepared, run 2: [0-9]* intervals of 50 ms$" &&
	has "$T/out" "^| Time (s) | Wall | CPUs | task-clock | context-switches | Note |$" &&
	has "$T/out" "^|---:|---:|---:|---:|---:|:---|$" &&
	has "$T/out" "^| 0\.0[0-9]* | [0-9.]* ms | [0-9.]* | [0-9.]* [mu]*s | [0-9]* | |$" &&
	[ "$(grep -c '| partial: the run ended |$' "$T/out")" = 2 ]; then
	ok "Markdown with -I: a table of intervals a run, the partial last one said"
else
	miss "markdown" "the Markdown's interval tables"
fi
if run "markdown without -I" 0 "$PB" stat --mode unprepared -r 1 -q -e task-clock --markdown -- true &&
	nothas "$T/out" "interval"; then
	ok "Markdown without -I has no interval table"
else
	miss "markdown without -I"
fi

# ---- the plot: each event's rate over the run's time ----------------------------------------
if run "plot" 0 "$PB" stat --mode unprepared -r 2 -q -I 50 -e task-clock,context-switches \
	--plot "$T/iv.svg" -- sh -c "$CMD" &&
	has "$T/iv.svg" "<svg " && has "$T/iv.svg" "</svg>" &&
	has "$T/iv.svg" "pbench stat -I 50: sh -c" &&
	has "$T/iv.svg" "task-clock: CPUs (its time over the interval's wall time)" &&
	has "$T/iv.svg" "context-switches per second" &&
	[ "$(grep -c '<polyline' "$T/iv.svg")" -ge 4 ] &&
	has "$T/iv.svg" "time since the run's start (s)"; then
	ok "--plot with -I draws each event's rate over each run's time"
else
	miss "plot"
fi
if [ "$HAVE_PY" = 1 ] && [ -s "$T/iv.svg" ]; then
	if python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$T/iv.svg" 2>"$T/err"; then
		ok "the intervals' SVG is well-formed XML"
	else
		bad "plot xml" "$(head -c 200 "$T/err")"
	fi
fi

# ---- a signal: what was measured is kept, as perf stat -I's lines would be -----------------
# SIGINT 2 s into a command of 9 s: in its first run (also its check), whose intervals are
# printed, the last one up to the stop; then a later timed run cut short likewise. Before: the
# header only, the intervals measured lost (issue 34: ~30 of them, SIGINT at 3 s).
$PBI stat -r 1 --mode unprepared -I 100 -e task-clock -- sleep 9.$$ >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 2
kill -INT "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 1 ] && has "$T/err" "interrupted after 0 of 1 runs" &&
   has "$T/out" "^unprepared, run 1 (stopped: cut short, not a measurement): [0-9]* intervals of 100 ms$" &&
   [ "$(grep -c '^  *[0-9]*\.[0-9]*  *[0-9.]* [mun]*s  ' "$T/out")" -ge 3 ] &&
   has "$T/out" "(partial: stopped by the signal)$" && gone "sleep 9.$$"; then
	ok "SIGINT in the first run (the check): its intervals are printed, the last up to the stop"
else
	miss "SIGINT check run" "exit $rc"
	pkill -f "sleep 9.$$"
fi
# A run of 2 s each (run 1, the check, run 2 from 2 s, run 3 from 4 s): SIGINT at 5.2 s.
$PBI stat -r 3 --mode unprepared -I 100 -e task-clock -- sleep 2.0$$ >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 5.2
kill -INT "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 1 ] && has "$T/err" "interrupted after 2 of 3 runs" &&
   has "$T/out" "^unprepared, run 2: [0-9]* intervals of 100 ms$" &&
   has "$T/out" "^unprepared, run 3 (stopped: cut short, not a measurement): [0-9]* intervals of 100 ms$" &&
   has "$T/out" "(partial: stopped by the signal)$" && gone "sleep 2.0$$"; then
	ok "SIGINT in a timed run: the runs done, then the one cut short with its intervals"
else
	miss "SIGINT timed run" "exit $rc"
	pkill -f "sleep 2.0$$"
fi

finish cli/interval
