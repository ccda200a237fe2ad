#!/bin/sh
# SPDX-License-Identifier: MIT
# Every JSON document pbench writes, made for real by every command and by the library's
# examples, validated against schema/*.schema.json with a real validator (python3-jsonschema,
# which make test installs: scripts/deps.sh); every field of the schemas described; the page
# made from them (kmod-free-docs/json.md) current; the stat JSON proportionate.
# Usage: tests/schema/run.sh BUILD_DIR. Last line: "schema: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
V="python3 tests/schema/validate.py schema"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skipped "schemas" "python3-jsonschema is not installed (make test installs it: scripts/deps.sh)"
	finish schema
	exit 0
fi

# valid DOC FILE WHAT: FILE is a valid DOC document. Queued: validate_all, at the end, checks
# every file queued in one start of the validator (each start costs ~0.3 s of CPU).
TAB=$(printf '\t')
: >"$T/valid.list"
: >"$T/valid.what"
valid() {
	printf '%s\t%s\n' "$1" "$2" >>"$T/valid.list"
	printf '%s\t%s\t%s\n' "$2" "$1" "$3" >>"$T/valid.what"
}
# A file with no "ok" line failed: its FAIL line, or the end of the validator's output if it
# stopped before it.
validate_all() {
	$V --list "$T/valid.list" >"$T/valid.out" 2>&1
	while IFS=$TAB read -r file doc what; do
		if grep -qxF "ok $file" "$T/valid.out"; then
			ok "$what is a valid $doc document"
		else
			bad "$what" "$(grep -F "FAIL $file:" "$T/valid.out" || tail -n 5 "$T/valid.out")"
		fi
	done <"$T/valid.what"
}
# made NAME DOC CMD...: run CMD (exit 0 or 1: a failed run is still a document), stdout to
# $T/NAME.json, then validate it
made() {
	n=$1 doc=$2
	shift 2
	"$@" >"$T/$n.json" 2>"$T/err"
	rc=$?
	if [ "$rc" -gt 1 ] || ! [ -s "$T/$n.json" ]; then
		bad "$n" "exit $rc, no document: $(head -c 200 "$T/err")"
		return
	fi
	valid "$doc" "$T/$n.json" "$n"
}

# ---- the schemas themselves -----------------------------------------------------------------
if out=$($V --described 2>&1); then ok "every field of every schema is described"; else bad "described" "$out"; fi
if python3 scripts/json_doc.py schema | cmp -s - kmod-free-docs/json.md; then
	ok "kmod-free-docs/json.md is what scripts/json_doc.py makes of the schemas"
else
	bad "json.md" "out of date: python3 scripts/json_doc.py schema > kmod-free-docs/json.md"
fi

# ---- installed with the library (make install; make test's staged install) -------------------
if [ -d "$O/stage/usr/share/pbench/schema" ]; then
	if diff -r schema "$O/stage/usr/share/pbench/schema" >/dev/null; then
		ok "make install puts the schemas in share/pbench/schema"
	else
		bad "installed schemas" "$O/stage/usr/share/pbench/schema differs from schema/"
	fi
else
	skipped "installed schemas" "no staged install in $O/stage (make examples makes one)"
fi

# ---- pbench stat: every mode, a command and the workloads, the rare shapes --------------------
S="stat --iterations 100000 -e task-clock,context-switches,page-faults,cycles"
made stat-unprepared stat "$PB" $S --mode unprepared -r 5 --json
# a parameter scan (issue 38): stat's and compare's document of the points and the fit
made scan-stat scan "$PB" stat -L n 1000,2000,4000,8000 -r 3 --mode unprepared --json -- sh -c 'exit 0' {n}
made scan-figure scan "$PB" stat -L n 65536,262144,1048576 --scan-bytes n -e page-faults -r 3 --mode unprepared --json -- sh -c 'exit 0' {n}
made scan-compare scan "$PB" compare -L n 1,2 --max-runs 3 --mode unprepared --json "sh -c 'exit 0' {n}" "true {n}"
made stat-prepared-cmd stat "$PB" stat --mode prepared -r 3 --warmup-ms 20 -e task-clock,cycles --json -- sh -c 'echo "$1" >&2' sh 'a b'
made stat-contrast stat "$PB" $S --mode contrast -r 4 --warmup-ms 20 --json
made stat-memwalk stat "$PB" stat --mode unprepared --workload memwalk --iterations 5000 -r 2 --json
made stat-one-run stat "$PB" $S --mode unprepared -r 1 --json
made stat-target stat "$PB" $S --mode unprepared --target-sem 50 --json
made stat-metric stat "$PB" $S --mode unprepared -r 3 --metric page-faults --json
made stat-failing stat "$PB" stat --mode unprepared --ignore-failure -r 2 -e task-clock --json -- sh -c 'kill -TERM $$'
made stat-helpers stat "$PB" stat --mode unprepared -r 2 -e task-clock --warmup 1 --setup true \
	--prepare 'sh -c :' --cleanup true --json -- true
made stat-timeout stat "$PB" stat --mode unprepared -r 1 --timeout 0.1 -e task-clock --json -- sleep 2
# -I: each run's intervals (an event never opened among them: null in each interval); ended
# at the timeout: the whole intervals before it
made stat-interval stat "$PB" stat --mode unprepared -r 2 -I 20 -e task-clock,msr/tsc/,cycles --json -- sleep 0.07
made stat-interval-timeout stat "$PB" stat --mode unprepared -r 1 -I 30 --timeout 0.1 -e task-clock --json -- sleep 2
made stat-memory stat "$PB" stat --mode unprepared -r 2 --memory=2 -e task-clock --json -- sh -c 'true & wait'
# --profile: where the time went (issue 36), where this machine lets a command be sampled
if "$PB" stat --profile -r 1 --mode unprepared -e task-clock -- true >/dev/null 2>&1; then
	made stat-profile stat "$PB" stat --profile --mode unprepared -r 2 -e task-clock --json \
		-- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
else
	skipped "stat-profile" "sampling a command is refused here (perf_event_open)"
fi
if [ -x /sbin/ldconfig ] && file -L /sbin/ldconfig 2>/dev/null | grep -q 'static'; then
	made stat-memory-static stat "$PB" stat --mode unprepared -r 1 --memory -e task-clock --json \
		-- /sbin/ldconfig --version
fi
if [ -s "$T/stat-one-run.json" ] && json "$T/stat-one-run.json" \
	'd["modes"][0]["summary"]["stddev_ns"] is None and d["modes"][0]["outliers"]["fence_lo_ns"] is None'; then
	ok "one run: no deviation, no fences (null, never 0)"
else
	miss "stat one run nulls"
fi

# ---- proportionate: 20 runs; the events' reasons once, in events[], never in the runs --------
if run "stat 20 runs" 0 "$PB" stat --mode unprepared -r 20 --iterations 100000 --json; then
	size=$(wc -c <"$T/out")
	if [ "$size" -lt 60000 ] && json "$T/out" 'not any(e["reason"] and e["reason"] in json.dumps(d["modes"])
		for e in d["events"]) and len(d["modes"][0]["runs"]) == 20'; then
		ok "stat JSON of 20 runs: $size bytes, no event's reason repeated in the runs"
	else
		bad "stat size" "$size bytes, or a reason repeated in the runs"
	fi
fi

# ---- pbench compare: commands, workloads, a duet, stored times, --same, a failing command -----
C="compare --max-runs 6 -e task-clock,cycles --json"
made compare-cmds compare "$PB" $C --mode unprepared -n fast true 'sleep 0.001'
made compare-workloads compare "$PB" $C --warmup-ms 20 --workload xor --iterations 100000 \
	--iterations 200000
made compare-metric compare "$PB" $C --mode unprepared --metric task-clock true 'sleep 0.001'
made compare-duet compare "$PB" $C --mode unprepared --duet true 'sleep 0.001'
made compare-same compare "$PB" $C --mode unprepared --same 50 --warmup 1 true true
made compare-failing compare "$PB" $C --mode unprepared --no-check-output true false
made compare-helpers compare "$PB" $C --mode unprepared --warmup 1 --setup true --prepare true \
	--cleanup true true true
made compare-sequential compare "$PB" $C --mode unprepared --order sequential true true
made compare-memory compare "$PB" $C --mode unprepared --memory=2 --no-check-output true 'ls /'
if [ -s "$T/compare-cmds.json" ]; then
	made compare-baseline compare "$PB" $C --mode unprepared --baseline "$T/compare-cmds.json" \
		-n fast true
	# the stored times read back: one entrant without runs, its times those written
	if json "$T/compare-baseline.json" 'd["entrants"][0]["stored"] and d["entrants"][0]["set"] is None
		and d["entrants"][0]["times_ns"] == json.load(open(sys.argv[2]))["entrants"][0]["times_ns"]' \
		"$T/compare-cmds.json"; then
		ok "compare --baseline: the stored entrant has the times written, and no runs"
	else
		miss "compare baseline read back"
	fi
fi

# ---- the other commands ---------------------------------------------------------------------
seq 1 10 >"$T/a.txt"
printf '5\n5\n5\n' >"$T/k1"
printf '7\n7\n' >"$T/k2"
made analyze-plain analyze "$PB" analyze --json "$T/a.txt" "$T/a.txt"
made analyze-units analyze "$PB" analyze --json -u ms "$T/a.txt" "$T/stat-contrast.json"
made analyze-constant analyze "$PB" analyze --json "$T/k1" "$T/k2"
made list list "$PB" list --json
made check check "$PB" check --json
for t in vm-kvm-2cpu intel-laptop tuned-server container-quota amd-workstation; do
	made "check-$t" check env PBENCH_SYSFS_ROOT="tests/fixtures/$t/sys" \
		PBENCH_PROCFS_ROOT="tests/fixtures/$t/proc" "$PB" check --json --cpu 1
done
made jitter jitter "$PB" jitter --cpu 0 -d 0.1 --json
# the history: real runs recorded, a CSV step series, a change of machine
"$PB" stat --mode unprepared -r 3 -e task-clock --record h --history "$T/h.db" --commit a -- true >/dev/null 2>&1
"$PB" stat --mode unprepared -r 3 -e task-clock --record h --history "$T/h.db" --commit b -- true >/dev/null 2>&1
"$PB" history --history "$T/h.db" add step tests/data/history/step20.csv >/dev/null 2>&1
"$PB" history --history "$T/h.db" add h tests/data/history/hyperfine.json >/dev/null 2>&1
made history-runs history "$PB" history --history "$T/h.db" show h --json
made history-step history "$PB" history --history "$T/h.db" show step --json
made jitter-prepared jitter "$PB" jitter --compare-prepared -d 0.1 --json

# ---- the library's own documents, from the examples make test builds --------------------------
for ex in time_function:result compare:comparison memory:comparison; do
	prog=${ex%%:*} doc=${ex##*:}
	if [ -x "$O/examples/$prog" ]; then
		made "$prog.$doc" "$doc" env LD_LIBRARY_PATH="$O/stage/usr/lib" "$O/examples/$prog" --json
	else
		skipped "$doc" "the $prog example is not built (make examples)"
	fi
done
# A result with its machine code (show_code): the listing's shape too.
if [ -x "$O/examples/time_function" ]; then
	made result_code result env LD_LIBRARY_PATH="$O/stage/usr/lib" "$O/examples/time_function" \
		--json --code
	if grep -q '"backward_jumps"' "$T/result_code.json"; then
		ok "time_function --code: the result carries the listing"
	else
		bad "result_code" "no listing in $(head -c 300 "$T/result_code.json")"
	fi
else
	skipped "result_code" "the time_function example is not built (make examples)"
fi
if [ -x "$O/examples/compare" ]; then
	made comparison_code comparison env LD_LIBRARY_PATH="$O/stage/usr/lib" "$O/examples/compare" \
		--json --code
	if json "$T/comparison_code.json" 'd["listing_a"]["status"] == "ok" and d["listing_b"]["lines"]'; then
		ok "compare --code: the comparison carries both listings"
	else
		bad "comparison_code" "no listings in $(head -c 300 "$T/comparison_code.json")"
	fi
else
	skipped "comparison_code" "the compare example is not built (make examples)"
fi

# ---- and a broken document is refused: the validator is not a rubber stamp --------------------
if [ -s "$T/stat-contrast.json" ]; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["modes"][0]["runs"][0]["counters"]["task-clock"]["status"]="ok";
json.dump(d, open(sys.argv[2], "w"))' "$T/stat-contrast.json" "$T/broken.json"
	printf 'stat\t%s\n' "$T/broken.json" >>"$T/valid.list"
fi
validate_all
if [ -s "$T/stat-contrast.json" ]; then
	if grep -q "^FAIL $T/broken.json: " "$T/valid.out"; then
		ok "a document with a field the schema does not have is refused"
	else
		bad "broken" "a per-run status the schema does not have was accepted"
	fi
fi

finish schema
