#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench history: real runs recorded by stat and compare --record into a store in $T, the
# fixtures of tests/data/history/ imported (hyperfine's and Google Benchmark's JSON written by
# hand in their documented format, CSV series with a known 20% step and without), show in
# every format, the gate on both series, the OpenMetrics export, a change of machine as a new
# segment, bad stores, a document stored once, an import all or nothing (a bad line, SIGINT in
# the middle of a large CSV), and writers killed with SIGKILL in the middle of appends.
# Usage: tests/cli/t_history.sh BUILD_DIR. Last line: "cli/history: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
D=tests/data/history
H="--history $T/h.db"

# ---- usage errors (exit 2, one line) ---------------------------------------------------------
usage_error "unknown subcommand" "subcommand" history frob
usage_error "show without a name" "NAME" history show
usage_error "add without a file" "FILE" history add x
usage_error "export without a format" "openmetrics" history export
usage_error "bad threshold" "threshold" history check x --threshold abc
usage_error "json is show's" "show" history $H check x --json
usage_error "one series for json" "one NAME" history $H show x y --json
usage_error "a file that is missing" "nonexistent" history $H add x "$T/nonexistent.csv"
printf 'commit,time,value\nc1,1780000000,12\nc2,1780003600,twelve\n' >"$T/bad.csv"
usage_error "a CSV line that is not a number" "line 3" history $H add x "$T/bad.csv"
usage_error "a series that is not there" "no series 'nosuch'" history $H show nosuch

# ---- read as analyze reads (issue 34): its rule, its bounds, one line and exit 2 each -------
printf '{"results": [{"command": "c", "times": [0.1, -0.2]}]}' >"$T/neg.json"
usage_error "a negative time" "hyperfine result 0, time 1 (-2e+08 ns) is negative: not a time" \
	history $H add r "$T/neg.json"
printf '{"results": [{"command": "c", "times": [0.1, 1e-320]}]}' >"$T/den.json"
usage_error "a subnormal time" "time 1 (9.99989e-312 ns) is subnormal" history $H add r "$T/den.json"
printf '{"results": [{"command": "c", "times": [0.1]}], "results": []}' >"$T/dup.json"
usage_error "a duplicate key" "duplicate object key" history $H add r "$T/dup.json"
printf '{"results": [{"command": "c", "times": [0.1, "0.2"]}]}' >"$T/typ.json"
usage_error "a time of the wrong type" "hyperfine result 0, time 1 is not a number" \
	history $H add r "$T/typ.json"
printf '{"results": []}' >"$T/none.json"
usage_error "an empty document" "'results' is empty" history $H add r "$T/none.json"
printf '1\n2\n3\0004\n5\n' >"$T/nul.csv"
usage_error "a NUL byte in a CSV" "line 3 holds a NUL byte" history $H add r "$T/nul.csv"
printf '0x10\n' >"$T/hex.csv"
usage_error "hex is not a number" "line 1: '0x10' is not a number" history $H add r "$T/hex.csv"
printf 'c1,1e300,5\n' >"$T/t1e300.csv"
usage_error "a time past int64 ns" "time '1e300' is past 2262-04-11" history $H add r "$T/t1e300.csv"
printf 'c1,0,5\n' >"$T/t0.csv"
usage_error "a time of 0 is not now" "time '0' is not after 1970-01-01" history $H add r "$T/t0.csv"
printf 'c1,2026-13-45T99:99:99Z,5\n' >"$T/tiso.csv"
usage_error "an invalid ISO date" "the month is not 1 to 12" history $H add r "$T/tiso.csv"
for d in 99999999999-01-01 -2147483648-01-01T00:00:00 2026-01-01T00:00:00+99999999:00; do
	printf '{"context": {"date": "%s"}, "benchmarks": [{"name": "B", "real_time": 1, "time_unit": "ns"}]}' \
		"$d" >"$T/gdate.json"
	usage_error "a Google Benchmark date out of range: $d" "context.date '$d': the" \
		history $H add r "$T/gdate.json"
done
# /dev/zero is refused at analyze's cap, a FIFO nobody writes to after a second (timeout 20:
# a hang or a read to ENOMEM is a failure, not a stuck suite)
mkfifo "$T/nofifo"
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$PB" >"$T/pb20" && chmod +x "$T/pb20"
PB_REAL=$PB PB=$T/pb20
usage_error "/dev/zero" "'/dev/zero' holds more than 64 MiB" history $H add r /dev/zero
usage_error "a FIFO with no writer" "'$T/nofifo' is a FIFO that no program wrote to in 1000 ms" \
	history $H add r "$T/nofifo"
PB=$PB_REAL
if run "nothing added by the refusals" 0 "$PB" history $H && ! has "$T/out" "^r "; then
	ok "what was refused added nothing"
else
	miss "nothing added by the refusals"
fi

# ---- bad stores: one line, exit 1 ------------------------------------------------------------
if run "missing store" 1 "$PB" history --history "$T/none.db" && has "$T/err" "^pbench: error: .*none.db" &&
   [ ! -e "$T/none.db" ]; then ok "a missing store is said, and not made by a read"; else miss "missing store"; fi
printf 'this is not a database, only text long enough to be read as one..........\n' >"$T/junk.db"
if run "corrupt store" 1 "$PB" history --history "$T/junk.db" && has "$T/err" "corrupt" &&
   [ "$(grep -c 'error' "$T/err")" -eq 1 ]; then ok "a corrupt store: one line"; else miss "corrupt store"; fi

# ---- recording real runs ---------------------------------------------------------------------
for i in 1 2 3; do
	"$PB" stat -q -r 3 --record tiny $H --commit "rev$i" -- true >/dev/null 2>"$T/err" ||
		bad "stat --record $i" "exit $?"
done
if run "list" 0 "$PB" history $H && has "$T/out" "^tiny  *time_ns  *3 "; then
	ok "stat --record: three points of 'tiny'"; else miss "list"; fi
if run "show json" 0 "$PB" history $H show tiny --json > /dev/null &&
   json "$T/out" 'd["name"] == "tiny" and len(d["points"]) == 3 and all(len(p["runs"]) == 3 for p in d["points"]) and [p["rev"] for p in d["points"]] == ["rev1", "rev2", "rev3"] and all(r["noisy"] in (True, False) for p in d["points"] for r in p["runs"]) and d["segments"][0]["cpu_model"] != ""'; then
	ok "each record: its commit, every run with its noise verdict, the machine"; else miss "show json"; fi
if run "compare --record" 0 "$PB" compare --max-runs 4 --record pair $H --commit r1 -n fast -n slow true 'sleep 0.002' &&
   run "list pair" 0 "$PB" history $H && has "$T/out" "^pair/fast " && has "$T/out" "^pair/slow "; then
	ok "compare --record: each entrant its own series"; else miss "compare --record"; fi
mkdir "$T/wd"
PBA=$(cd "$(dirname "$PB")" && pwd)/pbench
if (cd "$T/wd" && "$PBA" stat -q -r 2 --record here -- true >/dev/null 2>&1) && [ -f "$T/wd/.pbench/history.db" ]; then
	ok "the default store is .pbench/history.db, its directory made"; else bad "default store" "no $T/wd/.pbench/history.db"; fi

# ---- imports ---------------------------------------------------------------------------------
if run "hyperfine" 0 "$PB" history $H add hf "$D/hyperfine.json" && has "$T/out" "2 records" &&
   run "hyperfine show" 0 "$PB" history $H show "hf/sort -g numbers.txt" --json &&
   json "$T/out" 'len(d["points"][0]["runs"]) == 4 and abs(d["points"][0]["runs"][1]["value"] - 24.4e6) < 1 and d["unit"] == "ns"'; then
	ok "hyperfine's JSON: a series per command, its times in ns"; else miss "hyperfine"; fi
if run "gbench" 0 "$PB" history $H add gb "$D/gbench.json" && has "$T/out" "2 records" &&
   run "gbench show" 0 "$PB" history $H show gb/BM_Sort/1024 --json &&
   json "$T/out" 'd["metric"] == "real_time_ns" and [r["value"] for r in d["points"][0]["runs"]] == [14100, 14300, 14200] and d["points"][0]["time_ns"] == 1777709472000000000'; then
	ok "Google Benchmark's JSON: a series per benchmark, its iterations' real_time, the context's date"; else miss "gbench"; fi
if run "gbench cpu" 0 "$PB" history $H add gbcpu --cpu-time "$D/gbench.json" &&
   run "gbench cpu show" 0 "$PB" history $H show gbcpu/BM_Hash --json && json "$T/out" 'd["metric"] == "cpu_time_ns" and d["points"][0]["value"] == 810'; then
	ok "--cpu-time: Google Benchmark's cpu_time"; else miss "gbench cpu"; fi
if run "values" 0 "$PB" history $H add v "$D/values.txt" && has "$T/out" "3 records"; then
	ok "one value a line"; else miss "values"; fi
# figures as a person reads them (issue 37: "2.67e+04"), in the text and the Markdown
printf 'c1,1780000000,26700\nc2,1780003600,0.0461838\n' >"$T/big.csv"
if run "readable add" 0 "$PB" history $H add big "$T/big.csv" &&
   run "readable show" 0 "$PB" history $H show big && has "$T/out" " 26,700$" && has "$T/out" " 0.04618$" &&
   run "readable markdown" 0 "$PB" history $H show big --markdown && has "$T/out" "| 26,700 |" &&
   nothas "$T/out" "[0-9]e[+-][0-9]"; then
	ok "history show: 26,700 and 0.04618, never an exponent, in the text and the Markdown"
else
	miss "readable"
fi
# a CSV history brought along after one recorded point continues its series (one machine)
"$PB" stat -q -r 2 --record cont --history "$T/c.db" -- true >/dev/null 2>&1
printf 'old1,1700000000,4100000\nold2,1700003600,4200000\n' >"$T/cont.csv"
if run "continue" 0 "$PB" history --history "$T/c.db" add cont "$T/cont.csv" &&
   run "continue show" 0 "$PB" history --history "$T/c.db" show cont &&
   has "$T/out" "^series 'cont' (time_ns): 3 points, 0 change points, 1 machine" && has "$T/out" "old1 .* 4.100 ms"; then
	ok "a CSV history continues the recorded series: its metric, one machine"; else miss "continue"; fi
for s in step20 stationary; do
	run "add $s" 0 "$PB" history $H add $s "$D/$s.csv" || miss "add $s"
done

# ---- show ------------------------------------------------------------------------------------
if run "show text" 0 "$PB" history $H show step20 && has "$T/out" "^series 'step20' (value): 60 points, 1 change point" &&
   has "$T/out" "^-- change point: +20.[0-9]% \[+1[0-9].[0-9]%, +2[0-9].[0-9]%\] .* between c053 and c054"; then
	ok "show: the change point between the commits, with its interval"; else miss "show text"; fi
if run "show markdown" 0 "$PB" history $H show step20 --markdown && has "$T/out" "^### pbench history: \`step20\`" &&
   has "$T/out" "^| slower +20"; then ok "show --markdown"; else miss "show markdown"; fi
if run "show csv" 0 "$PB" history $H show step20 --csv && line 1 "$T/out" "^index,id,rev," &&
   [ "$(wc -l <"$T/out")" -eq 61 ] && has "$T/out" "^54,.*,c054,.*,20\.[0-9]*$"; then
	ok "show --csv: a line a point, the change on its first point"; else miss "show csv"; fi
if run "show plot" 0 "$PB" history $H show step20 --plot "$T/s.svg" && has "$T/s.svg" "<svg" &&
   has "$T/s.svg" "stroke-dasharray" && python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$T/s.svg"; then
	ok "show --plot: an SVG with the change point"; else miss "show plot"; fi
# its axes named and each point's commit in its <title> (issue 37: neither was there)
if has "$T/s.svg" "transform='rotate(-90[^>]*>value</text>" && has "$T/s.svg" ">commit / time, oldest first" &&
   has "$T/s.svg" "<circle [^>]*><title>c001 20[0-9-]* [0-9:]* UTC: [0-9.,]*</title></circle>" &&
   [ "$(grep -c '<circle [^>]*><title>c[0-9]* ' "$T/s.svg")" -eq 60 ]; then
	ok "show --plot: axis labels (the metric, commit / time), each point's commit and time as its title"
else
	miss "plot labels"
fi

# a point from another machine: a new segment, said, and nothing compared across it
"$PB" stat -q -r 3 --json -- true 2>/dev/null | sed 's/"cpu_model": "[^"]*"/"cpu_model": "Another CPU"/' >"$T/other.json"
if run "other machine" 0 "$PB" history $H add tiny --commit rev4 "$T/other.json" &&
   run "segments" 0 "$PB" history $H show tiny && has "$T/out" "^-- new segment: machine .*Another CPU.*nothing is compared across it" &&
   run "segments json" 0 "$PB" history $H show tiny --json && json "$T/out" 'len(d["segments"]) == 2 and d["segments"][1]["first"] == 3 and d["points"][3]["segment"] == 1'; then
	ok "a change of machine starts a new segment, said"; else miss "other machine"; fi

# ---- the gate --------------------------------------------------------------------------------
if run "gate step" 1 "$PB" history $H check step20 &&
   has "$T/out" "^regression in 'step20': +20\.[0-9]% \[+1[0-9]\.[0-9]%, +2[0-9]\.[0-9]%\] .*between c053 and c054"; then
	ok "the gate fails on a 20% step, saying the commit range and the size with its interval"; else miss "gate step"; fi
if run "gate stationary" 0 "$PB" history $H check stationary && has "$T/out" "^no regression in 'stationary'"; then
	ok "the gate passes on a stationary noisy series"; else miss "gate stationary"; fi
if run "gate threshold" 0 "$PB" history $H check step20 --threshold 25 && has "$T/out" "below the threshold of 25%"; then
	ok "--threshold: a step below it passes, said"; else miss "gate threshold"; fi
if run "gate two" 1 "$PB" history $H check stationary step20 && [ "$(wc -l <"$T/out")" -eq 2 ]; then
	ok "the gate on two series: a line each, exit 1 for the one"; else miss "gate two"; fi

# a regression whose points pbench judged noisy: said so. 30 pbench documents of 5 runs
# each, the last 5 points 20% slower with 2 of their 5 runs outliers.
i=0
while [ $i -lt 30 ]; do
	awk -v i=$i 'BEGIN { lvl = i >= 25 ? 1200 : 1000;
		printf "{\"host\": {\"cpu_model\": \"N\", \"kernel\": \"n\"}, \"modes\": [{\"mode\": \"prepared\", \"runs\": [";
		for (k = 0; k < 5; k++) printf "%s{\"ns\": %d, \"outlier\": %s}", k ? "," : "", lvl + (i * 7 + k * 3) % 11 - 5, (i >= 25 && k < 2) ? "true" : "false";
		print "]}]}" }' >"$T/n$i.json"
	"$PB" history $H add noisy --commit "n$i" "$T/n$i.json" >/dev/null 2>&1 || bad "add noisy $i" "exit $?"
	i=$((i + 1))
done
if run "gate noisy" 1 "$PB" history $H check noisy &&
   has "$T/out" "^regression in 'noisy': +20.*between n24 and n25.*within the noise: pbench judged 5 of them noisy" &&
   run "show noisy" 0 "$PB" history $H show noisy && has "$T/out" "n29 .*5 runs  noisy: 2 of 5 runs"; then
	ok "a regression of points pbench judged noisy says so"; else miss "gate noisy"; fi

# ---- OpenMetrics -----------------------------------------------------------------------------
printf '5\n' >"$T/q.txt"
"$PB" history $H add 'we"ird\name' "$T/q.txt" >/dev/null 2>&1
if run "openmetrics" 0 "$PB" history $H export --openmetrics &&
   has "$T/out" "^# TYPE pbench_history_seconds gauge$" && has "$T/out" "^# UNIT pbench_history_seconds seconds$" &&
   has "$T/out" '^pbench_history_seconds{series="tiny",metric="time_ns",machine="[0-9a-f]*",rev="rev4"} [0-9.e-]* [0-9]*\.[0-9]*$' &&
   has "$T/out" '^pbench_history_value{series="we\\"ird\\\\name",' && [ "$(tail -n 1 "$T/out")" = "# EOF" ]; then
	ok "export --openmetrics: families, unit, escaped labels, # EOF last"; else miss "openmetrics"; fi

# ---- names and commits that are not text (issue 34 item 9) ------------------------------------
# refused at the door (one line, exit 2), whatever the importer
usage_error "a name that is not UTF-8" "not UTF-8" history $H add "$(printf 'a\377b')" "$D/values.txt"
usage_error "a name with an escape sequence" "control character" history $H add "$(printf 'x\033[31mred')" "$D/values.txt"
usage_error "a name with a bidi override" "bidi" history $H add "$(printf 'ab\342\200\256cd')" "$D/values.txt"
printf 'c1,1780000000,12\n' >"$T/c1.csv"
printf '"c2\033]0;x\007",1780003600,13\n' >>"$T/c1.csv"
usage_error "a CSV commit with control characters" "rec->rev" history $H add ctl "$T/c1.csv"
usage_error "a name over PBENCH_HISTORY_NAME_MAX" "more than 1024" history $H add "$(printf '%1025s' | tr ' ' n)" "$D/values.txt"
# a store an older pbench filled with them: every report valid, nothing raw
if [ "$HAVE_PY" -eq 1 ] && python3 -c 'import sqlite3' 2>/dev/null; then
	"$PB" history --history "$T/bad.db" add victim "$D/step20.csv" >/dev/null 2>&1
	python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE series SET name = CAST(X\x2761FF621B5B33316D0A666F72676564E280AE\x27 AS TEXT)")
c.execute("UPDATE records SET rev = CAST(X\x277265760A1B5D303B7807FF60\x27 AS TEXT)")
c.commit()' "$T/bad.db"
	BN=$(printf 'a\377b\033[31m\nforged\342\200\256')
	# valid UTF-8, no control character but the line feed and tab, no bidi mark
	plain='import sys, unicodedata
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [c for c in t if (unicodedata.category(c) == "Cc" and c not in "\n\t") or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
sys.exit(1 if bad else 0)'
	if run "bad list" 0 "$PB" history --history "$T/bad.db" && python3 -c "$plain" "$T/out" &&
	   has "$T/out" '^a\\xffb\\x1b\[31m\\x0aforged\\u202e ' && [ "$(wc -l <"$T/out")" -eq 2 ]; then
		ok "history list shows a stored name as analyze does: no forged line"; else miss "bad list"; fi
	if run "bad show" 0 "$PB" history --history "$T/bad.db" show "$BN" && python3 -c "$plain" "$T/out" &&
	   nothas "$T/out" '^forged'; then
		ok "history show: the name and commits shown, escaped"; else miss "bad show"; fi
	if run "bad json" 0 "$PB" history --history "$T/bad.db" show "$BN" --json &&
	   json "$T/out" 'd["name"] == "a\\xffb\\x1b[31m\\x0aforged\\u202e" and d["points"][0]["rev"].startswith("rev")'; then
		ok "show --json of a name that is not UTF-8: valid JSON"; else miss "bad json"; fi
	if run "bad export-json" 0 "$PB" history --history "$T/bad.db" show "$BN" --export-json "$T/bad.json" &&
	   json "$T/bad.json" 'len(d["points"]) == 60'; then
		ok "--export-json of it: written, valid"; else miss "bad export-json"; fi
	if run "bad plot" 0 "$PB" history --history "$T/bad.db" show "$BN" --plot "$T/bad.svg" &&
	   python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/bad.svg" 2>"$T/err"; then
		ok "--plot of it: valid XML"; else miss "bad plot"; fi
	if run "bad markdown" 0 "$PB" history --history "$T/bad.db" show "$BN" --markdown && python3 -c "$plain" "$T/out" &&
	   [ "$(grep -c '^| [0-9]' "$T/out")" -eq 20 ] && nothas "$T/out" '^forged'; then
		ok "--markdown of it: its table whole"; else miss "bad markdown"; fi
	if run "bad openmetrics" 0 "$PB" history --history "$T/bad.db" export --openmetrics &&
	   python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T/out" 2>"$T/err" &&
	   has "$T/out" '^pbench_history_value{series="a\\\\xffb'; then
		ok "OpenMetrics of it: valid UTF-8"; else miss "bad openmetrics"; fi
else
	skipped "stored bad names" "python3's sqlite3 module is not installed"
fi

# ---- PostgreSQL URIs: never the password (item 10; no server: a port nothing listens on) ----
for u in 'postgresql://u:s3cr%zzet@127.0.0.1:1/db' 'postgresql://u:top%ZZs3@127.0.0.1:1/db' \
	 'postgresql://u@127.0.0.1:1/db?pass%77ord=s3cr' 'postgresql://u:s3c@r@127.0.0.1:1/db' \
	 'postgresql://127.0.0.1:1/db?PassWord=s3cr&x=%zz'; do
	"$PB" history --history "$u" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && nothas "$T/err" 's3c' && nothas "$T/err" 'top' &&
	   nothas "$T/err" 'zzet'; then
		ok "no password in the error for $u"; else bad "password $u" "exit $rc: $(cat "$T/err")"; fi
done

# ---- the gate on extreme values (item 14) ------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 30; i++) print "1e307"; for (i = 0; i < 10; i++) print "1.7e308" }' >"$T/huge.txt"
if run "add huge" 0 "$PB" history $H add huge "$T/huge.txt" && run "gate huge" 1 "$PB" history $H check huge &&
   has "$T/out" "^regression in 'huge': +1600\.0%"; then
	ok "the gate on 1e307 then 1.7e308: a 17x step found"; else miss "gate huge"; fi
# the plot of it ends (its frame was inf: axis ticks drawn forever) and is valid XML
if run "plot huge" 0 timeout 60 "$PB" history $H show huge --plot "$T/huge.svg" &&
   python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/huge.svg" 2>"$T/err" &&
   [ "$(grep -c 'text-anchor=.end.' "$T/huge.svg")" -le 9 ]; then
	ok "--plot of values near DBL_MAX: done, a few axis ticks"; else miss "plot huge"; fi
awk 'BEGIN { for (i = 0; i < 30; i++) print -1 - (i % 3) * 0.001; for (i = 0; i < 10; i++) print -2 - (i % 3) * 0.001 }' >"$T/neg.txt"
if run "add neg" 0 "$PB" history $H add neg "$T/neg.txt" && run "gate neg" 0 "$PB" history $H check neg &&
   has "$T/out" "^no regression in 'neg': the newest change, from -1[.0-9]* to -2" && nothas "$T/out" "+100" &&
   nothas "$T/out" "below the threshold"; then
	ok "the gate on negative values: the change said in absolute terms"; else miss "gate neg"; fi
# two constant levels of 1,000 points: the scan's bound on p underflows (issue 37's test of a
# split: a bound, or permutations down to 1/2000, so short levels no longer get there)
awk 'BEGIN { for (i = 0; i < 1000; i++) print 1; for (i = 0; i < 1000; i++) print 2 }' >"$T/two.txt"
if run "add two" 0 "$PB" history $H add two "$T/two.txt" && run "gate two levels" 0 "$PB" history $H show two &&
   has "$T/out" "(p < 1e-300)" && nothas "$T/out" "(p 0)"; then
	ok "a p below 1e-300 is said so, not 'p 0'"; else miss "gate two levels"; fi

# ---- a full disk, a store locked by another writer ------------------------------------------
if run "full disk" 1 sh -c '"$1" history --history "$2" show step20 --json >/dev/full' sh "$PB" "$T/h.db" &&
   has "$T/err" "^pbench: error: .*No space left"; then ok "show on a full disk: exit 1, said"; else miss "full disk"; fi
if [ "$HAVE_PY" -eq 1 ] && python3 -c 'import sqlite3' 2>/dev/null; then
	# another program holds the write lock for 8 s: the add waits the busy timeout (5 s)
	rm -f "$T/locked"
	python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE meta SET value = value WHERE key = \x27schema_version\x27")
open(sys.argv[2], "w").close()
time.sleep(8)' "$T/h.db" "$T/locked" &
	lpid=$!
	n=0
	while [ ! -e "$T/locked" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	if run "locked" 1 "$PB" history $H add v "$D/values.txt" && has "$T/err" "locked by another writer" &&
	   [ "$(wc -l <"$T/err")" -eq 1 ]; then ok "a store locked past the timeout: exit 1, one line"; else miss "locked"; fi
	wait "$lpid"
	# a store a newer pbench wrote: refused, untouched
	"$PB" history --history "$T/new.db" add v "$D/values.txt" >/dev/null 2>&1
	python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE meta SET value = \x2799\x27 WHERE key = \x27schema_version\x27")
c.commit()' "$T/new.db"
	sum=$(cksum <"$T/new.db")
	if run "newer" 1 "$PB" history --history "$T/new.db" show v && has "$T/err" "newer" &&
	   [ "$(wc -l <"$T/err")" -eq 1 ] && [ "$(cksum <"$T/new.db")" = "$sum" ]; then
		ok "a store of a newer schema: exit 1, one line, the file untouched"; else miss "newer"; fi
else
	skipped "locked store" "python3's sqlite3 module is not installed"
fi

# ---- a document stored once, an import all or nothing (issue 34) -----------------------------
# records STORE: the points of every series (the list's points column, counted from the end:
# a name may hold spaces)
records() { "$PB" history --history "$1" list 2>/dev/null | awk 'NR > 1 { n += $(NF - 3) } END { print n + 0 }'; }
size() { wc -c <"$1" | tr -d ' '; }
# 300 Google Benchmark benchmarks in one document: the store grows by about one copy of it (it
# grew by 300: 10 MB for a 35 KB file; the WAL is in the file once pbench has closed it)
awk 'BEGIN { printf "{\"context\": {\"date\": \"2026-05-02T10:11:12Z\"}, \"benchmarks\": [";
	for (i = 0; i < 300; i++) printf "%s{\"name\": \"BM_%d\", \"run_name\": \"BM_%d\", \"run_type\": \"iteration\", \"iterations\": 100, \"real_time\": %d, \"cpu_time\": %d, \"time_unit\": \"ns\"}", i ? ", " : "", i, i, 100 + i, 99 + i;
	print "]}" }' >"$T/g300.json"
"$PB" history --history "$T/g.db" add v "$D/values.txt" >/dev/null 2>&1 || bad "g.db" "exit $?"
before=$(size "$T/g.db") doc=$(size "$T/g300.json")
if run "one copy" 0 "$PB" history --history "$T/g.db" add g --commit c1 "$T/g300.json" && has "$T/out" "300 records" &&
   [ $(( $(size "$T/g.db") - before )) -lt $((2 * doc + 300 * 400)) ] &&
   run "one copy show" 0 "$PB" history --history "$T/g.db" show g/BM_299 --json &&
   json "$T/out" 'd["points"][0]["value"] == 399'; then
	ok "300 benchmarks of a $doc-byte document: the store grew by $(( $(size "$T/g.db") - before )) bytes, one copy"
else miss "one copy" "the store grew by $(( $(size "$T/g.db") - before )) bytes for a document of $doc"; fi

# a malformed line 4: nothing of the file is kept (it kept lines 1-3); fixed, it is added whole, once
printf 'c1,1\nc2,2\nc3,3\nc4,four\nc5,5\n' >"$T/bad4.csv"
before=$(records "$T/g.db")
usage_error "bad line 4" "line 4" history --history "$T/g.db" add m "$T/bad4.csv"
if [ "$(records "$T/g.db")" -eq "$before" ]; then ok "a bad line 4: no record kept"; else
	bad "bad line 4 kept" "$(($(records "$T/g.db") - before)) records kept"; fi
sed 's/four/4/' "$T/bad4.csv" >"$T/good4.csv"
if run "re-run" 0 "$PB" history --history "$T/g.db" add m "$T/good4.csv" && has "$T/out" "5 records" &&
   [ "$(records "$T/g.db")" -eq $((before + 5)) ]; then
	ok "the file fixed and added again: its 5 records, once"; else miss "re-run" "$(($(records "$T/g.db") - before)) records"; fi

# a document of nothing is not "0 records"
printf '{"results": []}\n' >"$T/empty.json"
usage_error "empty results" "nothing to add" history --history "$T/g.db" add e "$T/empty.json"
# --commit for the lines that name no commit
if run "commit values" 0 "$PB" history --history "$T/g.db" add vc --commit abc "$D/values.txt" &&
   run "commit values show" 0 "$PB" history --history "$T/g.db" show vc --json &&
   json "$T/out" '[p["rev"] for p in d["points"]] == ["abc", "abc", "abc"]'; then
	ok "--commit reaches the value-only lines"; else miss "commit values"; fi

# SIGINT in the middle of a large CSV: rolled back, said, the store's records as they were.
# The signal goes once pbench holds it (listening) and its transaction has spilled pages into
# the WAL (the store was closed before: no WAL until a write); an import that finished first
# is tried again with a file 4 times larger.
n=400000 try=1
while :; do
	seq 1 $n >"$T/big.csv"
	before=$(records "$T/g.db")
	$PBI history --history "$T/g.db" add big "$T/big.csv" >"$T/out" 2>"$T/err" &
	pid=$!
	listening "$pid"
	i=0
	while [ ! -s "$T/g.db-wal" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ $try -lt 4 ] && { [ $rc -eq 0 ] || has "$T/err" "once every file was added"; }; then
		"$PB" history --history "$T/g.db" add big0 "$D/values.txt" >/dev/null 2>&1	# a new start
		try=$((try + 1)) n=$((n * 4))
		continue
	fi
	break
done
after=$(records "$T/g.db")
if [ $rc -eq 1 ] && has "$T/err" "^pbench: error: .*history: big: interrupted by signal 2 .*nothing added, the store is as it was" &&
   [ "$after" -eq "$before" ] && run "after the interrupt" 0 "$PB" history --history "$T/g.db" add v "$D/values.txt" &&
   [ "$(records "$T/g.db")" -eq $((before + 3)) ]; then
	ok_after $try "SIGINT during a $n-line import: exit 1, said, no record of it kept"
else
	bad "SIGINT import" "exit $rc (want 1), $((after - before)) records kept of $n (want 0), try $try"
fi

# ---- a writer killed mid-append leaves no half record ----------------------------------------
# A document of 20000 runs: each add is a transaction of ~0.5 s here, and each writer is
# killed (SIGKILL) 0.1 to 0.6 s after it started, most of them inside it (the unit test
# test_history.c kills one at the exact point; this is the command, as CI would kill it).
awk 'BEGIN { printf "{\"host\": {\"cpu_model\": \"K\", \"kernel\": \"k\"}, \"modes\": [{\"mode\": \"prepared\", \"summary\": {\"mean_ns\": 1000}, \"runs\": [";
	for (i = 0; i < 20000; i++) printf "%s{\"ns\": %d, \"outlier\": false}", i ? "," : "", 1000 + i % 7;
	print "]}]}" }' >"$T/big.json"
killed=0 whole=0
for k in 1 2 3 4 5 6; do
	"$PB" history --history "$T/k.db" add big --commit "k$k" "$T/big.json" >/dev/null 2>&1 &
	pid=$!
	sleep "0.$k"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ $? -eq 0 ]; then whole=$((whole + 1)); else killed=$((killed + 1)); fi
done
if run "after the kills" 0 "$PB" history --history "$T/k.db" add big --commit after "$T/big.json" &&
   run "killed writers" 0 "$PB" history --history "$T/k.db" show big --json &&
   json "$T/out" 'len(d["points"]) >= 1 and all(len(p["runs"]) == 20000 for p in d["points"]) and d["points"][-1]["rev"] == "after"'; then
	ok "$killed writers killed mid-append ($whole finished): the store opens and takes more, every record of its $(grep -c '"rev"' "$T/out") whole"
else miss "killed writers"; fi

# ---- a full stdout is said as one ---------------------------------------------------------
# list, show, export and check into /dev/full: "No space left on device" (the store's close
# had put its own errno in its place: "Bad file descriptor").
"$PB" history --history "$T/full.db" add v "$D/values.txt" >/dev/null 2>&1
if [ -w /dev/full ]; then
	for sub in list "show v" "export --openmetrics" "check v"; do
		# shellcheck disable=SC2086
		if run "history $sub >/dev/full" 1 sh -c "exec '$PB' history --history '$T/full.db' $sub >/dev/full" &&
		   has "$T/err" "cannot write to standard output: No space left on device"; then
			ok "history $sub into a full stdout: exit 1, 'No space left on device'"
		else
			miss "history $sub >/dev/full"
		fi
	done
else
	skipped "history >/dev/full" "this machine has no /dev/full (a container without it?)"
fi

finish cli/history
