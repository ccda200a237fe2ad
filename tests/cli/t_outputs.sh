#!/bin/sh
# SPDX-License-Identifier: MIT
# One output convention in every command (hyperfine's, cli_out in cli/cli.c): --json alone on
# stdout instead of the text, --export-json FILE beside the text, --json=FILE as a synonym, one
# format on stdout at most, formats a command lacks refused; options after analyze's files.
# Usage: tests/cli/t_outputs.sh BUILD_DIR. Last line: "cli/outputs: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

seq 1 10 >"$T/a.txt"
seq 3 12 >"$T/b.txt"
STAT="stat --mode unprepared -r 2 --iterations 100000 -e task-clock"
JIT="jitter --cpu 0 -d 0.05"
# is_json FILE: a whole JSON object with pbench's head
is_json() { [ "$HAVE_PY" -eq 0 ] || json "$1" 'd["schema"] >= 1 and "pbench_version" in d'; }

# ---- --json alone: JSON on stdout, and nothing else there ------------------------------------
for c in "$STAT" "analyze $T/a.txt $T/b.txt" "check --cpu 0" "list" "$JIT"; do
	name=${c%% *}
	if run "$name --json" 0 "$PB" $c --json && is_json "$T/out" && head -c 1 "$T/out" | grep -q '{'; then
		ok "$name --json: JSON alone on stdout"
	else
		miss "$name --json"
	fi
	# ---- --export-json FILE: the file, and the text on stdout ----
	rm -f "$T/e.json"
	if run "$name --export-json" 0 "$PB" $c --export-json "$T/e.json" && is_json "$T/e.json" &&
	   ! head -c 1 "$T/out" | grep -q '{' && [ -s "$T/out" ]; then
		ok "$name --export-json FILE: the JSON in the file, the text on stdout"
	else
		miss "$name --export-json"
	fi
	# ---- --export-json - is --json ----
	if run "$name --export-json -" 0 "$PB" $c --export-json - && is_json "$T/out"; then
		ok "$name --export-json -: JSON on stdout"
	else
		miss "$name --export-json -"
	fi
done

# ---- --json=FILE: the same as --export-json FILE -----------------------------------------------
for c in "$STAT" "analyze $T/a.txt" "$JIT"; do
	name=${c%% *}
	rm -f "$T/s.json"
	if run "$name --json=FILE" 0 "$PB" $c --json="$T/s.json" && is_json "$T/s.json" && [ -s "$T/out" ] &&
	   ! head -c 1 "$T/out" | grep -q '{'; then
		ok "$name --json=FILE writes the file, the text on stdout"
	else
		miss "$name --json=FILE"
	fi
done

# ---- CSV: --csv alone, --export-csv FILE, --csv=FILE, the old --csv - --------------------------
if run "stat --csv" 0 "$PB" $STAT --csv && line 1 "$T/out" '^mode,run,' &&
   [ "$(wc -l <"$T/out")" -eq 3 ]; then
	ok "stat --csv: the CSV alone on stdout"
else
	miss "stat --csv"
fi
if run "stat --export-csv" 0 "$PB" $STAT --export-csv "$T/r.csv" && line 1 "$T/r.csv" '^mode,run,' &&
   has "$T/out" "^summary: 2 runs"; then
	ok "stat --export-csv FILE: the file, the text on stdout"
else
	miss "stat --export-csv"
fi
if run "stat --csv=FILE" 0 "$PB" $STAT --csv="$T/r2.csv" && line 1 "$T/r2.csv" '^mode,run,' &&
   has "$T/out" "^summary: 2 runs"; then
	ok "stat --csv=FILE is --export-csv FILE"
else
	miss "stat --csv=FILE"
fi
if run "stat --csv -" 0 "$PB" $STAT --csv - && line 1 "$T/out" '^mode,run,'; then
	ok "stat --csv - (the old spelling) is --csv"
else
	miss "stat --csv -"
fi
# JSON and CSV at once: one on stdout, the other to a file.
if run "stat --json --export-csv" 0 "$PB" $STAT --json --export-csv "$T/r3.csv" && is_json "$T/out" &&
   line 1 "$T/r3.csv" '^mode,run,'; then
	ok "stat --json --export-csv FILE: JSON on stdout, CSV in the file"
else
	miss "stat --json --export-csv"
fi

# ---- refused: two formats on stdout, a format the command lacks, an empty file name -----------
usage_error "two formats on stdout" "--json and --csv cannot both write to stdout: give one of them a file (--export-csv FILE)" \
	stat --json --csv
usage_error "two formats on stdout (export -)" "cannot both write to stdout" stat --csv --export-json -
usage_error "list has no csv" "unknown option '--csv' for 'pbench list'" list --csv
usage_error "check has no plot" "unknown option '--plot' for 'pbench check'" check --plot "$T/x.svg"
usage_error "analyze has no csv" "unknown option '--export-csv' for 'pbench analyze'" analyze --export-csv "$T/x.csv" "$T/a.txt"
usage_error "empty export name" "--export-json needs a file name" stat --export-json ""
usage_error "export to a missing directory" "cannot write the JSON '/nonexistent/dir/x.json'" \
	check --export-json /nonexistent/dir/x.json

# ---- the old '--json FILE': where a file or command is expected, a hint says what to write ----
usage_error "stat --json FILE" "command 'out-$$.json' not found" stat --json "out-$$.json"
if has "$T/err" "^hint: --json alone prints on stdout; to write a file give --export-json FILE (or --json=FILE)"; then
	ok "stat --json FILE: the hint names --export-json"
else
	bad "stat --json FILE hint" "$(cat "$T/err")"
fi
usage_error "analyze --json FILE" "cannot open '$T/none.json'" analyze --json "$T/none.json" "$T/a.txt"
if has "$T/err" "^hint: --json alone prints on stdout"; then ok "analyze --json FILE: the hint"; else bad "analyze --json FILE hint" "$(cat "$T/err")"; fi
# Commands that take no argument keep the old '--json FILE' and '--json -'.
if run "jitter --json FILE" 0 "$PB" $JIT --json "$T/j.json" && is_json "$T/j.json" && has "$T/out" "^pbench jitter:" &&
   run "check --json -" 0 "$PB" check --cpu 0 --json - && is_json "$T/out"; then
	ok "jitter --json FILE and check --json - (old spellings) still work"
else
	miss "jitter --json FILE"
fi

# ---- analyze: options after the files; after --, everything is a file ------------------------
if run "analyze files then --json" 0 "$PB" analyze "$T/a.txt" "$T/b.txt" --json && is_json "$T/out" &&
   { [ "$HAVE_PY" -eq 0 ] || json "$T/out" 'len(d["inputs"]) == 2'; }; then
	ok "analyze a b --json: the option after the files"
else
	miss "analyze files then --json"
fi
if run "analyze -u after" 0 "$PB" analyze "$T/a.txt" -u ms && has "$T/out" "mean  *5.50 ± 0.96 ms"; then
	ok "analyze FILE -u ms: a value option after the file"
else
	miss "analyze -u after"
fi
cp "$T/a.txt" "$T/--json"
if run "analyze -- --json" 0 sh -c "cd '$T' && '$(pwd)/$PB' analyze -- --json" && has "$T/out" "^--json: 10 samples"; then
	ok "analyze -- --json: a file named --json after --"
else
	miss "analyze -- --json"
fi

finish cli/outputs
