#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench stat --profile (issue 36): every timed run of a command sampled, symbolized after the
# runs. On a program whose three functions do known shares of its work (tests/data/profile/
# shares.c: alpha 50%, beta 30%, gamma_ 20%, by instruction count): the shares within 2
# points, each with its interval over the runs, main's total near 100%; built without frame
# pointers, its callers found by --call-graph dwarf; a stripped copy named from its debug file
# found by build-id in --debug-dir; a function of a shared library attributed to it; the JSON
# valid against its schema, the folded stacks summing to the samples; the CSV and Markdown.
# Skipped, with the reason, where perf_event_open is refused.
# Usage: tests/cli/t_profile.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/profile: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
SH=$O/tests/data/profile/shares
U="--mode unprepared -e task-clock"

# ---- bad input -------------------------------------------------------------------------------
usage_error "a profile option without --profile" "give --profile too" \
	stat --profile-freq 100 -- true
usage_error "--profile without a command" "give the command after --" stat --profile
usage_error "--call-graph not a mode" "did you mean 'dwarf'" stat --profile --call-graph dwarv -- true
usage_error "--profile-freq not a number" "profile-freq" stat --profile --profile-freq fast -- true
usage_error "--profile-freq 0" "profile-freq" stat --profile --profile-freq 0 -- true
usage_error "--profile-top 0" "profile-top" stat --profile --profile-top 0 -- true
usage_error "--debug-dir empty" "debug-dir" stat --profile --debug-dir '' -- true
usage_error "--export-folded empty" "export-folded" stat --profile --export-folded '' -- true
usage_error "--export-folded in no directory" "export-folded" \
	stat --profile --export-folded "$T/no/such/dir/f" -- true
usage_error "--profile-event unknown" "cpu-clokc" stat --profile --profile-event cpu-clokc -- true

if ! [ -x "$SH" ] || ! [ -x "$SH-nofp" ]; then
	skipped "profile" "$SH is not built (make check-built builds it)"
	finish cli/profile
	exit 0
fi
if ! "$PB" stat --profile -r 1 $U -- true >"$T/out" 2>"$T/err"; then
	skipped "profile" "sampling is refused here: $(head -n 1 "$T/err")"
	finish cli/profile
	exit 0
fi
if [ "$HAVE_PY" -eq 0 ]; then
	skipped "profile" "python3 is not installed (the JSON is read with it)"
	finish cli/profile
	exit 0
fi

# shares FILE: the three functions' self shares within 2 points of 50/30/20, each with an
# interval around its mean, and main's total at 95% at least
SHARES='(s := {y["name"]: y for y in d["modes"][0]["profile"]["symbols"]}) and
	abs(s["alpha"]["self_pct"] - 50) <= 2 and abs(s["beta"]["self_pct"] - 30) <= 2 and
	abs(s["gamma_"]["self_pct"] - 20) <= 2 and
	all(s[f]["self_lo"] is not None and s[f]["self_lo"] <= s[f]["self"] <= s[f]["self_hi"]
	    for f in ("alpha", "beta", "gamma_")) and s["main"]["total_pct"] >= 95'

# ---- frame pointers: the shares, the folded stacks, the schema ------------------------------
tries=0
while [ $tries -lt 3 ]; do
	tries=$((tries + 1))
	run "fp shares" 0 "$PB" stat --profile -r 5 $U --json --export-folded "$T/f.folded" \
		-- "$SH" run 200 || break
	json "$T/out" "$SHARES" && break
done
if [ "$RUN_FAILED" -eq 0 ] && json "$T/out" "$SHARES"; then
	ok_after $tries "frame pointers: alpha, beta, gamma_ 50/30/20 within 2 points, intervals, main ~100%"
else
	miss "fp shares"
fi
cp "$T/out" "$T/fp.json"
if json "$T/fp.json" '(p := d["modes"][0]["profile"])["runs"] == 5 and p["mode"] == "fp" and
	p["event"] == "cpu-clock" and p["unit"] == "ns" and p["samples"] == int(sys.argv[2])' \
	"$(awk '{ s += $NF } END { print s + 0 }' "$T/f.folded")"; then
	ok "the folded stacks sum to the profile's samples"
else
	miss "folded sum"
fi
if has "$T/f.folded" '^shares;.*;main;work;alpha [0-9][0-9]*$'; then
	ok "the folded stacks: command;...;main;work;alpha COUNT"
else
	miss "folded format"
fi
if python3 -c 'import jsonschema' 2>/dev/null; then
	printf 'stat\t%s\n' "$T/fp.json" >"$T/list"
	if python3 tests/schema/validate.py schema --list "$T/list" >"$T/out" 2>&1 &&
	   has "$T/out" "^ok "; then
		ok "the JSON with a profile is a valid stat document"
	else
		miss "schema"
	fi
else
	skipped "schema" "python3-jsonschema is not installed (scripts/deps.sh installs it)"
fi

# ---- the text, CSV, Markdown; one run ---------------------------------------------------------
if run "text" 0 "$PB" stat --profile -r 2 $U --profile-top 3 -- "$SH" run 100 &&
   has "$T/out" '^Profile: cpu-clock at 4000 Hz, frame pointers, 2 runs' &&
   has "$T/out" '^ *[0-9.]*%  .* alpha  \[shares\]  shares\.c:[0-9]' &&
   has "$T/out" 'more symbols: --profile-top N' && has "$T/out" '^  per DSO (self):'; then
	ok "text: the table of the top symbols with shares, intervals, DSO and line; per DSO"
else
	miss "text"
fi
if run "one run" 0 "$PB" stat --profile -r 1 $U --json -- "$SH" run 50 &&
   json "$T/out" '(a := [y for y in d["modes"][0]["profile"]["symbols"] if y["name"] == "alpha"][0])
	and a["self_lo"] is None and a["self_hi"] is None and a["self"] > 0'; then
	ok "one run: the interval null, never invented"
else
	miss "one run"
fi
if run "csv" 0 "$PB" stat --profile -r 2 $U --csv -- "$SH" run 50 &&
   has "$T/out" '^profile_set,symbol,dso,file,line,self,' && has "$T/out" '^0,alpha,.*shares,'; then
	ok "CSV: a section of the symbols"
else
	miss "csv"
fi
if run "markdown" 0 "$PB" stat --profile -r 2 $U --markdown -- "$SH" run 50 &&
   has "$T/out" '^| self | self a run |' && has "$T/out" '| `alpha` | shares | shares.c:'; then
	ok "Markdown: a table of the top symbols"
else
	miss "markdown"
fi

# ---- no frame pointers: DWARF finds the callers -----------------------------------------------
MAIN='(s := {y["name"]: y for y in d["modes"][0]["profile"]["symbols"]}) and
	d["modes"][0]["profile"]["mode"] == "dwarf" and s["main"]["total_pct"] >= 95 and
	abs(s["alpha"]["self_pct"] - 50) <= 2'
tries=0
while [ $tries -lt 3 ]; do
	tries=$((tries + 1))
	run "dwarf" 0 "$PB" stat --profile --call-graph dwarf -r 3 $U --json -- "$SH-nofp" run 150 ||
		break
	json "$T/out" "$MAIN" && break
done
if [ "$RUN_FAILED" -eq 0 ] && json "$T/out" "$MAIN"; then
	ok_after $tries "no frame pointers, --call-graph dwarf: main's total ~100%, alpha 50%"
else
	miss "dwarf"
fi

# ---- a stripped copy, its debug file by build-id in --debug-dir ------------------------------
id=$(readelf -n "$SH" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -z "$id" ] || ! command -v objcopy >/dev/null 2>&1; then
	skipped "debug-dir" "no build-id in $SH or no objcopy (binutils)"
else
	mkdir -p "$T/dbg/.build-id/$(echo "$id" | cut -c1-2)"
	objcopy --only-keep-debug "$SH" "$T/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
	objcopy --strip-all "$SH" "$T/stripped"
	NAMED='any(y["name"] == "alpha" and y["dso"].endswith("/stripped") for y in d["modes"][0]["profile"]["symbols"])'
	if run "stripped" 0 "$PB" stat --profile -r 2 $U --json -- "$T/stripped" run 50 &&
	   ! json "$T/out" "$NAMED"; then
		ok "a stripped copy without its debug file: alpha not named"
	else
		miss "stripped" "alpha named without a debug file"
	fi
	if run "debug-dir" 0 "$PB" stat --profile -r 2 $U --debug-dir "$T/dbg" --json -- "$T/stripped" run 50 &&
	   json "$T/out" "$NAMED"; then
		ok "a stripped copy named from its debug file by build-id in --debug-dir"
	else
		miss "debug-dir"
	fi
fi

# ---- a function in a shared library -----------------------------------------------------------
if ! command -v cc >/dev/null 2>&1; then
	skipped "shared library" "no C compiler to build the library"
else
	if build_hot "$T"; then
		if run "shared library" 0 "$PB" stat --profile -r 2 $U --json -- "$T/uses-hot" 150000000 &&
		   json "$T/out" '(h := [y for y in d["modes"][0]["profile"]["symbols"] if y["name"] == "hot_loop"]) and
			h[0]["dso"].endswith("/libhot.so") and h[0]["self_pct"] > 80 and
			[x for x in d["modes"][0]["profile"]["dsos"] if x["dso"].endswith("/libhot.so")][0]["self_pct"] > 80'; then
			ok "a function of a shared library attributed to its DSO"
		else
			miss "shared library"
		fi
	else
		bad "shared library" "cc could not build the library and its program"
	fi
fi

# ---- recursion: a total counts a stack once ---------------------------------------------------
if command -v cc >/dev/null 2>&1; then
	cat >"$T/rec.c" <<'C'
#include <stdint.h>
/* 12 frames of deep() on every stack, the loop in the last */
__attribute__((noinline)) uint64_t deep(int d, uint64_t n)
{
	uint64_t x = 1;

	if (d)
		return deep(d - 1, n) + 1;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
int main(void) { return (int)(deep(11, 150000000) & 1) * 0; }
C
	if cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$T/rec" "$T/rec.c" &&
	   run "recursion" 0 "$PB" stat --profile -r 2 $U --json -- "$T/rec" &&
	   json "$T/out" '(r := [y for y in d["modes"][0]["profile"]["symbols"] if y["name"] == "deep"][0])
		and 95 <= r["total_pct"] <= 100 and r["self_pct"] >= 95 and
		(m := [y for y in d["modes"][0]["profile"]["symbols"] if y["name"] == "main"][0])
		and m["total_pct"] >= 95'; then
		ok "recursion: deep's total ~100% (a stack counted once, not once a frame)"
	else
		miss "recursion"
	fi
else
	skipped "recursion" "no C compiler to build the program"
fi

finish cli/profile
