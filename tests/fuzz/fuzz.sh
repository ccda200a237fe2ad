#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz: run each target under libFuzzer for TIME seconds, one process at a time, from its
# corpus and the seeds of seed.sh; then merge into tests/fuzz/corpus/TARGET/ only the inputs
# that add coverage (-merge=1). A crash, leak or hang is written there too (crash-SHA1...), so
# make test fails on it until it is fixed, and replays it ever after.
#   sh tests/fuzz/fuzz.sh BUILD TIME TARGET...
# make fuzz-min: shrink each corpus to the inputs that give its coverage; crashes stay.
#   sh tests/fuzz/fuzz.sh --minimize BUILD TARGET...
set -u
minimize=0
if [ "$1" = --minimize ]; then
	minimize=1
	shift
fi
B=$1
shift
if [ "$minimize" = 0 ]; then
	time=$1
	shift
fi
found=0
artifacts='crash-* leak-* timeout-* oom-* slow-unit-*'

count() { find "$1" -maxdepth 1 -type f | wc -l; }

minimize_one() {
	t=$1 corpus=tests/fuzz/corpus/$1 stage=$B/min/$1
	rm -rf "$stage"
	mkdir -p "$stage/in" "$stage/out"
	before=$(count "$corpus")
	for f in "$corpus"/*; do
		case ${f##*/} in crash-*|leak-*|timeout-*|oom-*|slow-unit-*) continue ;; esac
		cp "$f" "$stage/in/"
	done
	if ! "$B/fuzz_$t" -merge=1 -timeout=10 "$stage/out" "$stage/in" > "$B/log/$t.min" 2>&1
	then
		tail -n 20 "$B/log/$t.min"
		echo "fuzz $t: the merge failed (log: $B/log/$t.min); corpus left as it was"
		found=1
		return
	fi
	for f in "$stage"/in/*; do
		rm -f "$corpus/${f##*/}"
	done
	cp "$stage"/out/* "$corpus/"
	echo "fuzz $t: corpus $before -> $(count "$corpus") inputs"
}

fuzz_one() {
	t=$1 corpus=tests/fuzz/corpus/$1 new=$B/new/$1 log=$B/log/$1.txt
	rm -rf "$new"
	mkdir -p "$new" "$corpus"
	seeds=
	[ -d "$B/seeds/$t" ] && seeds=$B/seeds/$t
	before=$(count "$corpus")
	start=$(date +%s)
	# New inputs go to the first directory (scratch); the corpus is only read.
	"$B/fuzz_$t" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$corpus/" "$new" "$corpus" $seeds \
		> "$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	"$B/fuzz_$t" -merge=1 -timeout=10 -artifact_prefix="$corpus/" "$corpus" "$new" $seeds \
		> "$B/log/$t.merge" 2>&1 || echo "fuzz $t: the merge failed: $B/log/$t.merge"
	echo "fuzz $t: ${runs:-?} runs in $secs s, corpus $before -> $(count "$corpus") inputs"
	if [ "$rc" -ne 0 ]; then
		found=1
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*does not hold|.*runtime error)' "$log" | head -n 5
		echo "fuzz $t: FOUND A BUG (log: $log); the input is in $corpus:"
		(cd "$corpus" && ls -t $artifacts 2>/dev/null | head -n 1)
		echo "  reproduce: $B/fuzz_$t $corpus/<that file>"
	fi
}

mkdir -p "$B/log"
if [ "$minimize" = 1 ]; then
	for t in "$@"; do minimize_one "$t"; done
	exit "$found"
fi
rm -rf "$B/seeds"
sh tests/fuzz/seed.sh "$B/seeds"
for t in "$@"; do fuzz_one "$t"; done
[ "$found" = 0 ] || echo "fuzz: bugs found: fix them; make test replays their inputs"
exit "$found"
