#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench compare --profile (issue 36): which function got slower. On the program whose three
# functions do known shares of its work (tests/data/profile/shares.c) against a build where
# beta does 1.33x its work (shares-beta, another file name: its symbols still matched), each
# round's two runs paired as the verdict pairs them:
# beta flagged alone, its ratio's interval holding 4/3, alpha and gamma_ not flagged; against
# a build with a fourth function (shares-delta): delta said only in it, and flagged; 20 A/A
# comparisons (shares against itself) flag at most what the 5% false discovery rate allows
# (under no change at all, each flags anything with a chance of 5% at most: 4 of 20 or more
# has a chance under 1.6%); the text, Markdown, and the JSON valid against its schema; the
# options' errors. Skipped, with the reason, where perf_event_open is refused.
# Usage: tests/cli/t_compare_profile.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/compare_profile: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
D=$O/tests/data/profile
U="--mode unprepared -e task-clock --full-budget"

# ---- bad input -------------------------------------------------------------------------------
usage_error "--profile-fdr without --profile" "give --profile too" \
	compare --profile-fdr 5 true false
usage_error "--profile-fdr past 50" "profile-fdr" compare --profile --profile-fdr 60 true false
usage_error "--call-graph not a mode" "did you mean 'dwarf'" \
	compare --profile --call-graph dwarv true false
usage_error "--profile of workloads" "samples commands, not a workload" \
	compare --profile --workload xor --iterations 10 --iterations 20

for b in shares shares-beta shares-delta; do
	if ! [ -x "$D/$b" ]; then
		skipped "compare --profile" "$D/$b is not built (make check-built builds it)"
		finish cli/compare_profile
		exit 0
	fi
done
if ! "$PB" stat --profile -r 1 --mode unprepared -e task-clock -- true >"$T/out" 2>"$T/err"; then
	skipped "compare --profile" "sampling is refused here: $(head -n 1 "$T/err")"
	finish cli/compare_profile
	exit 0
fi
if [ "$HAVE_PY" -eq 0 ]; then
	skipped "compare --profile" "python3 is not installed (the JSON is read with it)"
	finish cli/compare_profile
	exit 0
fi

# ---- beta 1.33x: flagged alone, its interval holding the truth -------------------------------
BETA='(c := d["profile"]["comparisons"][0]) and
	(fl := [s["name"] for s in c["symbols"] if s["flagged"]]) == ["beta"] and
	(b := c["symbols"][0])["ratio_lo"] <= 4 / 3 <= b["ratio_hi"] and b["dso"] == "shares" and
	b["only"] == "both" and b["q"] <= 0.05 and b["diff"] > 0 and b["ratio_lo"] > 1 and
	abs(b["level"] - (1 - 0.05 * len(fl) / c["tested"])) < 1e-9 and
	all(s["only"] == "both" and not s["flagged"] for s in c["symbols"]
	    if s["name"] in ("alpha", "gamma_"))'
tries=0
while [ $tries -lt 2 ]; do
	tries=$((tries + 1))
	run "beta" 0 "$PB" compare --profile $U --max-runs 12 -n a -n b --json \
		--export-markdown "$T/beta.md" --flamegraph "$T/beta.svg" "$D/shares run 40" \
		"$D/shares-beta run 40" || break
	json "$T/out" "$BETA" && break
done
if [ "$RUN_FAILED" -eq 0 ] && json "$T/out" "$BETA"; then
	ok_after $tries "beta 1.33x the work: flagged alone, its interval holds 4/3, alpha and gamma_ not"
else
	miss "beta"
fi
cp "$T/out" "$T/beta.json"
if has "$T/beta.md" '^\*\*Profile:\*\* b against a' &&
   has "$T/beta.md" '^- `beta \[shares\]: 1\.[0-9]*x the time a run (9[0-9.]*% interval'; then
	ok "Markdown: the flagged symbol a line"
else
	miss "beta markdown"
fi
# the differential flame graph: beta's frame red (B slower, flagged), alpha's and gamma_'s grey
FLAME='import re
s = open(sys.argv[1]).read()
fill = {m.group(2): m.group(1) for m in re.finditer(
	r"<rect [^>]*fill=\"(#[0-9a-f]+)\"[^>]*/><text [^>]*>([a-z_]+)</text>", s)}
ok = fill.get("beta", "").startswith("#ff") and fill.get("alpha") == fill.get("gamma_") == "#d0d0d0"
print("ok" if ok else fill)'
if [ -s "$T/beta.svg" ] && r=$(python3 -c "import sys; $FLAME" "$T/beta.svg" 2>&1) &&
   [ "$r" = ok ]; then
	ok "--flamegraph: beta's frame red, alpha's and gamma_'s grey"
else
	bad "flame graph" "${r:-no $T/beta.svg}"
fi
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$T/beta.svg" 2>"$T/err"; then
		ok "--flamegraph: well-formed XML (xmllint)"
	else
		bad "flame graph xml" "$(head -n 2 "$T/err")"
	fi
fi
usage_error "--flamegraph without --profile" "give --profile too" \
	compare --flamegraph "$T/x.svg" true false
if python3 -c 'import jsonschema' 2>/dev/null; then
	printf 'compare\t%s\n' "$T/beta.json" >"$T/list"
	if python3 tests/schema/validate.py schema --list "$T/list" >"$T/out" 2>&1 &&
	   has "$T/out" "^ok "; then
		ok "the JSON with a profile is a valid compare document"
	else
		miss "schema"
	fi
else
	skipped "schema" "python3-jsonschema is not installed (scripts/deps.sh installs it)"
fi

# ---- the text; a symbol only in one -----------------------------------------------------------
# The symbols said the same may include one of the kernel's, first (under ASan on a loaded VM:
# "finish_task_switch.isra.0, gamma_, alpha, beta the same within 792%"): any order.
if run "text" 0 "$PB" compare --profile $U --max-runs 6 -n a -n b "$D/shares run 20" \
	"$D/shares-delta run 20" &&
   has "$T/out" "^Profile: b against a: self cpu-clock a run of each symbol, each round's runs paired over 6 and 6 runs" &&
   has "$T/out" '^  delta \[shares\]: only in b, its 9[0-9.]*% interval: +[0-9.]* [mun]*s a run (+[0-9.]* [mun]*s to +' &&
   has "$T/out" '^  .* of the difference is in the \(one\|symbols\) flagged$' &&
   has "$T/out" '^  .*\<\(alpha\|beta\|gamma_\)\>.* the same within [0-9.]*%'; then
	ok "text: delta only in b, flagged; the rest the same within a bound; the share"
else
	miss "delta"
fi

# ---- A/A: 20 comparisons of shares with itself, two at a time --------------------------------
AA='sum(s["flagged"] for s in d["profile"]["comparisons"][0]["symbols"])'
k=0
while [ $k -lt 20 ]; do
	for j in 1 2; do
		k=$((k + 1))
		"$PB" compare --profile $U --max-runs 5 -n a -n b --json "$D/shares run 10" \
			"$D/shares run 10" >"$T/aa$k.json" 2>"$T/aa$k.err" &
	done
	wait
done
flagged=0 failed=0 tested=0
for k in $(seq 1 20); do
	n=$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($AA)" \
		"$T/aa$k.json" 2>/dev/null) || { failed=$((failed + 1)); continue; }
	tested=$((tested + 1))
	[ "$n" -gt 0 ] && flagged=$((flagged + 1))
done
if [ $failed -eq 0 ] && [ $flagged -le 3 ]; then
	ok "A/A: $flagged of 20 comparisons of shares with itself flagged a symbol (at most 3)"
else
	bad "A/A" "$flagged of $tested comparisons flagged a symbol, $failed failed: $(head -n 2 "$T/aa1.err")"
fi

finish cli/compare_profile
