#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench analyze: samples from files, stdin, pbench/hyperfine/Google Benchmark JSON; the
# comparison. Usage: tests/cli/t_analyze.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/analyze: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- analyze ----------------------------------------------------------------------------
seq 1 10 >"$T/a.txt"
seq 3 12 >"$T/b.txt"
# Reference: scipy.stats.ttest_ind(range(1,11), range(3,13), equal_var=False) -> t -1.4771, p 0.1569
if run "analyze two files" 0 "$PB" analyze "$T/a.txt" "$T/b.txt" &&
   has "$T/out" "t = 1.477, df = 18.0, p = 0.157" && has "$T/out" "^verdict: undecided"; then
	ok "analyze compares two inputs (Welch as scipy)"
else
	miss "analyze two files"
fi
if run "analyze stdin" 0 sh -c "seq 1 10 | $PB analyze" && has "$T/out" "mean          5.50 ± 0.96"; then
	ok "analyze reads stdin, value with the error's digits"
else
	miss "analyze stdin"
fi
printf '\n# a comment\n1\n2\nzz\n' >"$T/bad.txt"
usage_error "analyze non-number" "bad.txt:5: 'zz' is not a number" analyze "$T/bad.txt"
printf '1\nnan\n' >"$T/nan.txt"
usage_error "analyze nan" "nan.txt:2: 'nan' is not a finite number" analyze "$T/nan.txt"
printf '1\n0x10\n' >"$T/hex.txt"
usage_error "analyze hex" "hex.txt:2: '0x10' is not a number" analyze "$T/hex.txt"
printf '1\n-inf\n' >"$T/inf.txt"
usage_error "analyze -inf" "inf.txt:2: '-inf' is not a finite number" analyze "$T/inf.txt"
: >"$T/empty.txt"
usage_error "analyze empty" "empty.txt: no samples" analyze "$T/empty.txt"
echo 5 >"$T/one.txt"
usage_error "analyze single" "a single sample" analyze "$T/one.txt"
usage_error "analyze missing file" "cannot open" analyze "$T/nonexistent"
# Names from a file are printed escaped: no ESC, BEL, newline or bidi override of the input
# reaches the terminal, so a file cannot forge an output line.
printf '{"results":[{"command":"a\\u001b[31mRED\\nverdict: forged\\u202eb\\u0007\\\\","times":[1,2,3]},{"command":"ok","times":[1,2,4]}]}' >"$T/esc.json"
if run "analyze escapes names" 0 "$PB" analyze "$T/esc.json" && nothas "$T/out" "^verdict: forged" &&
   grep -qF 'a\x1b[31mRED\x0averdict: forged\u202eb\x07\\: 3 samples' "$T/out" &&
   ! grep -q "$(printf '\033\\|\007')" "$T/out" && ! grep -q "$(printf '\342\200\256')" "$T/out" &&
   run "analyze escapes names (markdown)" 0 "$PB" analyze --markdown "$T/esc.json" &&
   ! grep -q "$(printf '\033')" "$T/out"; then
	ok "names from a file are escaped: ESC, BEL, newline, U+202E"
else
	miss "analyze escapes names" "a raw control character or a forged line in the output"
fi
# pbench JSON of a schema this pbench does not know, or from a newer pbench: read, and said.
printf '{"schema": 99, "pbench_version": "0.1.0", "runs": [{"ns": 5}, {"ns": 6}]}' >"$T/s99.json"
printf '{"schema": 1, "pbench_version": "99.0.0", "runs": [{"ns": 5}, {"ns": 6}]}' >"$T/v99.json"
if run "analyze unknown schema" 0 "$PB" analyze "$T/s99.json" && has "$T/out" ": 2 samples" &&
   has "$T/err" "^pbench: warning: .*s99.json: JSON schema 99, which this pbench (.*) does not know" &&
   run "analyze newer pbench" 0 "$PB" analyze "$T/v99.json" &&
   has "$T/err" "^pbench: warning: .*v99.json: written by pbench 99.0.0, newer than this one" &&
   run "analyze two warned" 0 "$PB" analyze "$T/s99.json" "$T/v99.json" &&
   [ "$(grep -c warning "$T/err")" -eq 2 ]; then
	ok "an unknown schema or a newer pbench's JSON is read with a warning"
else
	miss "analyze unknown schema"
fi
# Subnormal values (stddev 0 beside a spread of 100%): refused with where they are.
printf '{"results":[{"command":"x","times":[5e-324,1e-323,5e-324]}]}' >"$T/den.json"
usage_error "analyze subnormal" "den.json: 'x': value 1 (4.94066e-315) is subnormal" analyze "$T/den.json"
# JSON is parsed whole (10 times its size in memory or more): over 16 MiB it is refused with
# how to give the times instead; plain numbers are read up to 64 MiB.
{ printf '{"results":['; head -c 17000000 /dev/zero | tr '\0' ' '; printf ']}'; } >"$T/big.json"
usage_error "analyze big json" "big.json: JSON of more than 16 MiB: pbench reads JSON whole" \
	analyze "$T/big.json"
rm -f "$T/big.json"
# A time is never negative, in any format (one reader for analyze and --baseline); plain
# numbers with no time unit may be.
printf '{"results":[{"command":"true","times":[-1,-2,-3]}]}' >"$T/neg.json"
usage_error "analyze negative time" "neg.json: 'true': time 1 is negative (-1e+09 ns): not a time" \
	analyze "$T/neg.json"
usage_error "baseline negative time" "neg.json: 'true': time 1 is negative" \
	compare --baseline "$T/neg.json" -n true true
printf -- '-1\n-2\n' >"$T/neg.txt"
usage_error "analyze negative ms" "neg.txt: time 1 is negative (-1e+06 ns)" analyze -u ms "$T/neg.txt"
if run "analyze negative plain" 0 "$PB" analyze "$T/neg.txt" && has "$T/out" "mean  *-1.50"; then
	ok "plain numbers (no unit) may be negative"
else
	miss "analyze negative plain"
fi
# hyperfine and Google Benchmark JSON, in their own units (s and us) -> ns. The error keeps 2
# significant digits and the mean its decimals (pbench_format_value): sem 0.0882 ms here.
printf '{"results":[{"command":"sleep 0.1","times":[0.1012,0.1009,0.1011]},{"command":"sleep 0.2","times":[0.2010,0.2012,0.2011]}]}' >"$T/hf.json"
if run "analyze hyperfine" 0 "$PB" analyze "$T/hf.json" && has "$T/out" "^sleep 0.1: 3 samples" &&
   has "$T/out" "mean          101.067 ± 0.088 ms" && has "$T/out" "^sleep 0.1 vs sleep 0.2:" &&
   has "$T/out" "^verdict: sleep 0.2 is 1.99x slower than sleep 0.1 (significant at 99.9%)$"; then
	ok "analyze hyperfine json"
else
	miss "analyze hyperfine"
fi
printf '{"context":{},"benchmarks":[{"name":"BM_x","run_name":"BM_x","run_type":"iteration","real_time":10.5,"time_unit":"us"},{"name":"BM_x","run_name":"BM_x","run_type":"iteration","real_time":10.7,"time_unit":"us"},{"name":"BM_x_mean","run_name":"BM_x","run_type":"aggregate","real_time":10.6,"time_unit":"us"}]}' >"$T/gb.json"
if run "analyze gbench" 0 "$PB" analyze "$T/gb.json" && has "$T/out" "^BM_x: 2 samples" &&
   has "$T/out" "mean          10.60 ± 0.10 us"; then
	ok "analyze Google Benchmark json (aggregates skipped)"
else
	miss "analyze gbench"
fi
# Google Benchmark's own comparison inputs (tests/data/gbench/README.md), as compare.py reads
# them: one repetition a sample, paired by name; Mann-Whitney exact as scipy by default.
G=tests/data/gbench
if run "analyze gbench one repetition" 0 "$PB" analyze "$G/test1_run1.json" "$G/test1_run2.json" &&
   has "$T/out" "^BM_2xFaster ($G/test1_run1.json) vs BM_2xFaster ($G/test1_run2.json):" &&
   nothas "$T/out" "BM_SameTimes ($G/test1_run1.json) vs BM_2xFaster" &&
   has "$T/out" "not tested: 1 against 1 value" && nothas "$T/out" "MyComplexityTest"; then
	ok "analyze gbench: one repetition is a sample, benchmarks paired by name"
else
	miss "analyze gbench one repetition"
fi
# Issue 37: one repetition a side, the ratio the text says is the JSON's too (the interval null,
# the reason in the verdict); a benchmark against its namesake named by its file; another
# time_unit in one file converted, and said.
printf '{"context":{},"benchmarks":[{"name":"BM_B","real_time":100,"cpu_time":100,"time_unit":"ns"}]}' >"$T/old.json"
printf '{"context":{},"benchmarks":[{"name":"BM_B","real_time":0.2004,"cpu_time":0.2004,"time_unit":"us"}]}' >"$T/new.json"
if run "analyze gbench 1 a side text" 0 "$PB" analyze "$T/old.json" "$T/new.json" &&
   has "$T/out" "^BM_B ($T/old.json) vs BM_B ($T/new.json):" &&
   has "$T/out" "b/a is 2.004, the ratio of the two values, with no interval" &&
   has "$T/out" "time units      ns in $T/old.json, us in" &&
   has "$T/out" "both converted to ns before comparing" &&
   { [ "$HAVE_PY" -eq 0 ] || { run "analyze gbench 1 a side json" 0 "$PB" analyze --json "$T/old.json" "$T/new.json" &&
     json "$T/out" 'abs(d["comparisons"][0]["ratio_b_to_a"] - 2.004) < 1e-9 and d["comparisons"][0]["ratio_b_to_a_lo"] is None and
       d["comparisons"][0]["verdict_b"] == "too_few" and d["comparisons"][0]["a_time_unit"] == "ns" and d["comparisons"][0]["b_time_unit"] == "us" and
       d["comparisons"][0]["b_input"].endswith("new.json")'; }; }; then
	ok "analyze gbench: one repetition a side, b/a 2.004 in the text and the JSON, files named, us converted"
else
	miss "analyze gbench 1 a side"
fi
awk 'BEGIN { printf "{\"context\":{},\"benchmarks\":["; for (i = 0; i < 6; i++) printf "%s{\"name\":\"BM_B\",\"real_time\":%s,\"time_unit\":\"ns\"}", i ? "," : "", 100 + (i % 3) * 0.1; print "]}" }' >"$T/old6.json"
awk 'BEGIN { printf "{\"context\":{},\"benchmarks\":["; for (i = 0; i < 6; i++) printf "%s{\"name\":\"BM_B\",\"real_time\":%s,\"time_unit\":\"us\"}", i ? "," : "", 0.1044 + (i % 3) * 0.0001; print "]}" }' >"$T/new6.json"
if run "analyze gbench namesakes" 0 "$PB" analyze "$T/old6.json" "$T/new6.json" &&
   has "$T/out" "^verdict: BM_B ($T/new6.json) is 1.04[0-9]x slower than BM_B ($T/old6.json)"; then
	ok "analyze gbench: the verdict names each namesake's file"
else
	miss "analyze gbench namesakes"
fi
if run "analyze gbench cpu_time" 0 "$PB" analyze --metric cpu_time "$G/test3_run0.json" "$G/test3_run1.json" &&
   has "$T/out" "Mann-Whitney    U = 3.0, p = 0.6667 (exact)" &&
   has "$T/out" "Mann-Whitney    U = 6.0, p = 0.2 (exact)" &&
   run "analyze gbench real_time" 0 "$PB" analyze "$G/test3_run0.json" "$G/test3_run1.json" &&
   has "$T/out" "U = 4.0, z = 0.296, p = 0.767"; then
	ok "analyze gbench: --metric, p as compare.py's tests (0.6667, 0.2000, 0.7671)"
else
	miss "analyze gbench cpu_time"
fi
usage_error "analyze bad metric" "unknown value 'wall' for --metric" analyze --metric wall "$G/test3_run0.json"
if [ "$HAVE_PY" -eq 1 ]; then
	if run "analyze json" 0 "$PB" analyze --json "$T/a.txt" "$T/b.txt" &&
	   json "$T/out" 'd["schema"] == 2 and len(d["inputs"]) == 2 and d["inputs"][0]["summary"]["n"] == 10 and
		d["inputs"][0]["samples"] == list(range(1, 11)) and d["inputs"][0]["unit"] is None and
		abs(d["comparisons"][0]["welch_p"] - 0.15689) < 1e-4 and d["comparisons"][0]["verdict"] == "undecided"'; then
		ok "analyze json"
	else
		miss "analyze json"
	fi
fi


# ---- intervals of positive quantities never reach below 0 --------------------------------
printf '1\n59\n2\n58\n3\n57\n' >"$T/wide.txt"
printf '50\n51\n49\n50\n52\n48\n' >"$T/narrow.txt"
printf '1\n100\n' >"$T/two.txt"
if run "positive intervals" 0 "$PB" analyze "$T/wide.txt" "$T/narrow.txt" "$T/two.txt" &&
   ! grep -q 'interval.*-[0-9]' "$T/out" && has "$T/out" "ratio b/a       1.6667 (99.9% interval [0-9.]* \.\. [0-9.]*;" &&
   { [ "$HAVE_PY" -eq 0 ] || { "$PB" analyze --json "$T/wide.txt" "$T/narrow.txt" "$T/two.txt" >"$T/pos.json" &&
	json "$T/pos.json" 'all(c["ratio_lo"] > 0 and c["ratio_b_to_a_lo"] > 0 for c in d["comparisons"]) and
		all(i["summary"]["ci_lo"] > 0 for i in d["inputs"])'; }; }; then
	ok "intervals of positive samples (a mean, a ratio) never reach below 0"
else
	miss "positive intervals"
fi

# ---- Markdown: a table a person pastes into a pull request --------------------------------
if run "analyze markdown" 0 "$PB" analyze --markdown "$T/hf.json" &&
   has "$T/out" '^| Input | N | Mean ± SEM \[ms\] | SD \[ms\] | Median \[ms\] | Min \[ms\] | Max \[ms\] | CV |' &&
   has "$T/out" '^|:---|---:|' &&
   has "$T/out" '^| `sleep 0.1` | 3 | 101.07 ± 0.09 | 0.15 | 101.10 | 100.90 | 101.20 | 0.15% | 1 |$' &&
   has "$T/out" '^| `sleep 0.2` | 3 | 201.10 ± 0.06 | 0.10 | .* | 1.99x slower (b/a 1.990, 1.979 .. 2.001) |$' && [ "$(wc -l <"$T/out")" -eq 4 ]; then
	ok "analyze --markdown: a row per input in one unit (± the SEM, as the text's), the comparison with the first"
else
	miss "analyze markdown"
fi
printf '1\n2\n3\n' >"$T/p|ipe.txt"
if run "analyze markdown export" 0 "$PB" analyze "$T/a.txt" "$T/p|ipe.txt" --export-markdown "$T/a.md" &&
   has "$T/out" "^verdict: " && has "$T/a.md" 'p\\|ipe.txt` | 3 | 2.0 ± 0.6 | 1.0 |'; then
	ok "analyze --export-markdown FILE: the table in the file (a | escaped), the text on stdout"
else
	miss "analyze markdown export"
fi

# times against plain numbers: summarized each, never compared
seq 1 10 >"$T/plain.txt"
if run "units differ" 0 "$PB" analyze "$T/hf.json" "$T/plain.txt" &&
   has "$T/out" "^verdict: not compared: sleep 0.1 is in ns, $T/plain.txt in plain numbers" &&
   [ "$(grep -A1 "^sleep 0.1 vs $T/plain.txt:\$" "$T/out" | tail -n 1 | cut -c1-22)" = "verdict: not compared:" ]; then
	ok "times against plain numbers: not compared, said why"
else
	miss "units differ"
fi

# ---- wrapping (COLUMNS stands in for a terminal's width; tests/cli/t_check.sh has the tty) --
seq 1 40 >"$T/wa"
{ seq 1 20; seq 100 120; } >"$T/wb"
if run "analyze unwrapped" 0 env -u COLUMNS "$PB" analyze "$T/wa" "$T/wb" &&
   has "$T/out" "^  cv [0-9.]*%, spread .* of them severe$" &&
   has "$T/out" "^verdict: .*wb is 3.00x slower than .*wa (significant at 99.9%)$"; then
	ok "analyze: a pipe without COLUMNS gets one line each"
else
	miss "analyze unwrapped"
fi
if run "analyze COLUMNS=60" 0 env COLUMNS=60 "$PB" analyze "$T/wa" "$T/wb" &&
   sed 's/±/+/g' "$T/out" >"$T/prose" && [ -z "$(overlong 60 "$T/prose")" ] &&
   has "$T/out" "^  cv [0-9.]*%, spread " && nothas "$T/out" "^  cv .*severe$" &&
   has "$T/out" "^                [a-z0-9].* of them severe$" &&
   nothas "$T/out" "^verdict: .*(significant at 99.9%)$" && has "$T/out" "^  .*(significant at 99.9%)$" &&
   has "$T/out" "^  Mann-Whitney    U = 600.0, z = -2.074, p = 0.0381$"; then
	ok "analyze: COLUMNS=60 wraps a summary's rows at their values' column, the verdict 2 in"
else
	miss "analyze COLUMNS=60" "$(overlong 60 "$T/prose" | head -3)"
fi

finish cli/analyze
