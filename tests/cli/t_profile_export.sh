#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench stat --profile's exports open in their tools (issue 36, item 4), on the program whose
# three functions do known shares of its work (tests/data/profile/shares.c: alpha 50%, beta
# 30%, gamma_ 20%): --flamegraph's SVG parses (xmllint --noout), renders (rsvg-convert) and
# draws alpha, beta and gamma_ with widths in the 50/30/20 ratio within 2 points, the same
# shares as pbench's table; --export-pprof's file is read by `go tool pprof -top` with the same
# top functions and flat and cum shares as the table's self and total; --export-folded's
# stacks read by flamegraph.pl or inferno where installed, else parsed here (every line a
# stack and a count, summing to the samples). --annotate of several functions (the option
# again, names joined by commas): with --profile from the profile's samples (each function's
# share as the table's), in a shared library too, a mistyped name answered "did you mean";
# without --profile each from its own sampled run. Each tool not installed is a skip with the
# reason; sampling refused here skips everything (tests/faults/run.sh has the exports to
# /dev/full).
# Usage: tests/cli/t_profile_export.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/profile_export: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
SH=$O/tests/data/profile/shares
U="--mode unprepared -e task-clock"

# ---- bad input -------------------------------------------------------------------------------
usage_error "--flamegraph without --profile" "give --profile too" \
	stat --flamegraph "$T/f.svg" -- true
usage_error "--export-pprof without --profile" "give --profile too" \
	stat --export-pprof "$T/p.pb.gz" -- true
usage_error "--flamegraph empty" "empty file name for --flamegraph" \
	stat --profile --flamegraph '' -- true
usage_error "--export-pprof in no directory" "cannot write --export-pprof" \
	stat --profile --export-pprof "$T/no/such/dir/p" -- true

if ! [ -x "$SH" ]; then
	skipped "profile exports" "$SH is not built (make check-built builds it)"
	finish cli/profile_export
	exit 0
fi
if ! "$PB" stat --profile -r 1 $U -- true >"$T/out" 2>"$T/err"; then
	skipped "profile exports" "sampling is refused here: $(head -n 1 "$T/err")"
	finish cli/profile_export
	exit 0
fi
if [ "$HAVE_PY" -eq 0 ]; then
	skipped "profile exports" "python3 is not installed (the JSON and the SVG are read with it)"
	finish cli/profile_export
	exit 0
fi

# svg_shares SVG JSON: each of alpha, beta, gamma_ drawn, its boxes' widths over the root's
# ("all") as a share: within 2 points of 50/30/20, and within 0.2 of the table's total share
# (the JSON's) as the file rounds widths to 0.01 px
svg_shares() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
svg = open(sys.argv[1], encoding="utf-8").read()
d = json.load(open(sys.argv[2]))
tab = {y["name"]: y for y in d["modes"][0]["profile"]["symbols"]}
w = {}
for title, width in re.findall(r'<g><title>([^\n<]*)\n.*?</title><rect [^>]*?width="([0-9.]+)"', svg, re.S):
    w[title] = w.get(title, 0) + float(width)
if "all" not in w:
    print("no root frame 'all' in the SVG"); sys.exit(1)
bad = []
for name, want in (("alpha", 50), ("beta", 30), ("gamma_", 20)):
    share = 100 * w.get(name, 0) / w["all"]
    if abs(share - want) > 2:
        bad.append("%s %.2f%% of the width, want %d +- 2" % (name, share, want))
    if abs(share - tab[name]["total_pct"]) > 0.2:
        bad.append("%s %.2f%% of the width, the table's total %.2f%%" % (name, share, tab[name]["total_pct"]))
print("; ".join(bad) or "alpha %.1f%%, beta %.1f%%, gamma_ %.1f%% of the width" % tuple(
    100 * w[n] / w["all"] for n in ("alpha", "beta", "gamma_")))
sys.exit(1 if bad else 0)
PY
}

# ---- one profiled set, every export ----------------------------------------------------------
tries=0
while [ $tries -lt 3 ]; do
	tries=$((tries + 1))
	rm -f "$T/f.svg" "$T/p.pb.gz" "$T/f.folded"
	run "exports" 0 "$PB" stat --profile -r 5 $U --json --flamegraph "$T/f.svg" \
		--export-pprof "$T/p.pb.gz" --export-folded "$T/f.folded" -- "$SH" run 200 || break
	cp "$T/out" "$T/s.json"
	svg_shares "$T/f.svg" "$T/s.json" >"$T/shares" 2>&1 && break
done
if [ "$RUN_FAILED" -eq 0 ] && svg_shares "$T/f.svg" "$T/s.json" >"$T/shares" 2>&1; then
	ok_after $tries "the flame graph: $(cat "$T/shares"), 50/30/20 within 2 points, as the table"
else
	miss "svg shares" "$(cat "$T/shares" 2>/dev/null)"
fi
if [ "$RUN_FAILED" -ne 0 ]; then
	finish cli/profile_export
	exit 1
fi

# ---- the SVG in its tools ---------------------------------------------------------------------
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$T/f.svg" 2>"$T/err"; then
		ok "the flame graph parses (xmllint --noout)"
	else
		bad "xmllint" "$(head -n 3 "$T/err")"
	fi
else
	skipped "xmllint" "xmllint is not installed (libxml2-utils)"
fi
if command -v rsvg-convert >/dev/null 2>&1; then
	if rsvg-convert -o "$T/f.png" "$T/f.svg" 2>"$T/err" && [ -s "$T/f.png" ]; then
		ok "the flame graph renders (rsvg-convert to PNG)"
	else
		bad "rsvg-convert" "$(head -n 3 "$T/err")"
	fi
else
	skipped "rsvg-convert" "rsvg-convert is not installed (librsvg2-bin)"
fi
if has "$T/f.svg" "<title>$SH run 200</title>" &&
   has "$T/f.svg" 'the mean run of 5: [0-9]* samples of cpu-clock at 4000 Hz in all, fp call graph'; then
	ok "the flame graph's title: the command; its subtitle: the runs, samples, event, call graph"
else
	miss "svg title"
fi

# ---- pprof -----------------------------------------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
	skipped "go tool pprof" "Go is not installed (golang-go): the pprof file is checked by test_export"
elif ! HOME=$T GOCACHE=$T/gocache GOFLAGS= go tool pprof -symbolize=none -top "$T/p.pb.gz" \
		>"$T/top" 2>"$T/err"; then
	bad "go tool pprof" "$(head -n 3 "$T/err")"
else
	# flat% and cum% of alpha, beta, gamma_ and main: the table's self and total shares (pprof
	# prints two decimals)
	if python3 - "$T/top" "$T/s.json" >"$T/cmp" 2>&1 <<'PY'
import json, re, sys
top = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
tab = {y["name"]: y for y in d["modes"][0]["profile"]["symbols"]}
rows = {}
for m in re.finditer(r'^\s*\S+\s+([0-9.]+)%\s+[0-9.]+%\s+\S+\s+([0-9.]+)%\s+(\S+)\s*$', top, re.M):
    rows[m.group(3)] = (float(m.group(1)), float(m.group(2)))
bad = []
for name in ("alpha", "beta", "gamma_", "main"):
    if name not in rows:
        bad.append("%s not in pprof's top" % name); continue
    flat, cum = rows[name]
    if abs(flat - tab[name]["self_pct"]) > 0.01 or abs(cum - tab[name]["total_pct"]) > 0.01:
        bad.append("%s flat %.2f%% cum %.2f%%, the table's self %.3f%% total %.3f%%" % (
            name, flat, cum, tab[name]["self_pct"], tab[name]["total_pct"]))
first = [l.split()[-1] for l in top.splitlines() if re.match(r'^\s*\S+\s+[0-9.]+%', l)][:3]
if first != ["alpha", "beta", "gamma_"]:
    bad.append("pprof's top three are %s" % first)
print("; ".join(bad) or "alpha flat %.2f%%, beta %.2f%%, gamma_ %.2f%%" % tuple(rows[n][0] for n in ("alpha", "beta", "gamma_")))
sys.exit(1 if bad else 0)
PY
	then
		ok "go tool pprof -top: alpha, beta, gamma_ first, flat and cum as the table's self and total ($(cat "$T/cmp"))"
	else
		miss "pprof top" "$(cat "$T/cmp")"
	fi
	if has "$T/top" '^Type: cpu$' && has "$T/top" '^pbench --profile: ' &&
	   has "$T/top" '^5 runs summed, [0-9]* samples of cpu-clock at 4000 Hz' &&
	   has "$T/top" '^Duration: '; then
		ok "pprof: the type, the comments (command, runs, samples), the duration"
	else
		miss "pprof header"
	fi
	id=$(readelf -n "$SH" 2>/dev/null | awk '/Build ID/ { print $3 }')
	if [ -z "$id" ]; then
		skipped "pprof build-id" "no build-id in $SH (or no readelf)"
	elif HOME=$T GOCACHE=$T/gocache go tool pprof -symbolize=none -raw "$T/p.pb.gz" >"$T/raw" 2>"$T/err" &&
	   has "$T/raw" "^[0-9]*: 0x0/0x0/0x0 .*/shares $id "; then
		ok "pprof: the program's mapping with its build-id ($id)"
	else
		miss "pprof build-id"
	fi
fi

# ---- the folded stacks in FlameGraph's or inferno's tools, else parsed ------------------------
samples=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["modes"][0]["profile"]["samples"])' "$T/s.json")
if command -v flamegraph.pl >/dev/null 2>&1; then
	if flamegraph.pl "$T/f.folded" >"$T/fg.svg" 2>"$T/err" && has "$T/fg.svg" 'alpha'; then
		ok "flamegraph.pl reads the folded stacks"
	else
		bad "flamegraph.pl" "$(head -n 3 "$T/err")"
	fi
elif command -v inferno-flamegraph >/dev/null 2>&1; then
	if inferno-flamegraph "$T/f.folded" >"$T/fg.svg" 2>"$T/err" && has "$T/fg.svg" 'alpha'; then
		ok "inferno-flamegraph reads the folded stacks"
	else
		bad "inferno-flamegraph" "$(head -n 3 "$T/err")"
	fi
else
	skipped "flamegraph.pl" "neither FlameGraph's flamegraph.pl nor inferno is installed: the folded stacks parsed here"
fi
if awk -v want="$samples" '
	!/^[^ ;][^ ]*(;[^ ;]+)* [0-9]+$/ { print "line " NR " is not a stack and a count: " $0; bad = 1; exit }
	{ s += $NF }
	END { if (!bad && s != want) { print "the counts sum to " s ", the samples are " want; bad = 1 } exit bad }
	' "$T/f.folded" >"$T/fold" 2>&1; then
	ok "the folded stacks: every line frames;...;leaf COUNT, summing to the $samples samples"
else
	miss "folded parse" "$(cat "$T/fold")"
fi

# ---- --annotate of several functions, from the profile's samples ------------------------------
# annot_share NAME: the share --annotate gives NAME's samples within 0.3 points of the table's
# self share of it (the same samples: each of cpu-clock's weighs its own period in the table)
annot_share() {
	python3 - "$T/out" "$1" <<'PY'
import re, sys
text, name = open(sys.argv[1]).read(), sys.argv[2]
tab = re.search(r'^ +([0-9.]+)%  .*  ' + re.escape(name) + r'  \[', text, re.M)
ann = re.search(r'^--annotate ' + re.escape(name) + r':\n.*\n  samples: [0-9]+ of [0-9]+ in ' +
                re.escape(name) + r' \(([0-9.]+)%\), cpu-clock every 250 us', text, re.M)
if not tab or not ann:
    print("no %s" % ("table row" if not tab else "--annotate samples line") + " for " + name); sys.exit(1)
d = abs(float(tab.group(1)) - float(ann.group(1)))
print("%s: %s%% annotated, %s%% in the table" % (name, ann.group(1), tab.group(1)))
sys.exit(0 if d <= 0.3 else 1)
PY
}
if run "annotate" 0 "$PB" stat --profile -r 3 $U --profile-top 5 --annotate alpha,gama \
	--annotate beta -- "$SH" run 100; then
	if annot_share alpha >"$T/a1" && annot_share beta >"$T/a2"; then
		ok "--profile --annotate alpha,gama --annotate beta: both shown, from the profile's samples ($(cat "$T/a1"); $(cat "$T/a2"))"
	else
		miss "annotate shares" "$(cat "$T/a1" "$T/a2")"
	fi
	if has "$T/out" "^  machine code: n/a: no function 'gama' in '.*/shares': did you mean 'gamma_'?"; then
		ok "--annotate gama: did you mean 'gamma_'?"
	else
		miss "annotate did you mean"
	fi
	if [ "$(grep -c '^--annotate ' "$T/out")" -eq 3 ]; then
		ok "three --annotate sections, in the order given"
	else
		miss "annotate count" "$(grep '^--annotate ' "$T/out" | tr '\n' ' ')"
	fi
fi
if run "annotate without profile" 0 "$PB" stat -q -r 1 $U --annotate alpha --annotate beta \
	-- "$SH" run 50 && has "$T/out" '^--annotate beta:' &&
   has "$T/out" '^  samples: [0-9]* of [0-9]* in beta (.*), cpu-clock every 100 us'; then
	ok "--annotate twice without --profile: the second function shown, from its own sampled run"
else
	miss "annotate without profile"
fi
if ! command -v cc >/dev/null 2>&1; then
	skipped "annotate a shared library" "no C compiler to build the library"
else
	if build_hot "$T"; then
		if run "annotate library" 0 "$PB" stat --profile -r 2 $U --annotate hot_loop,hot_lop \
			-- "$T/uses-hot" 100000000 &&
		   has "$T/out" '^  machine code of hot_loop (.*/libhot\.so, ' &&
		   has "$T/out" '^  samples: [0-9]* of [0-9]* in hot_loop (9[0-9]\.[0-9]%)' &&
		   has "$T/out" "no function 'hot_lop' in '.*/libhot.so': did you mean 'hot_loop'?"; then
			ok "--profile --annotate a function of a shared library: its code and samples; a mistyped one: did you mean"
		else
			miss "annotate library"
		fi
	else
		bad "annotate library" "cc could not build the library and its program"
	fi
fi

finish cli/profile_export
