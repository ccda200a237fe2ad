#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The baseline gate with a history of occasions (issue 37 item 5), its error rates on this
# machine. A history of the command A: COMMITS x PER occasions (pbench stat -r 10 --record
# occ, each under a commit label, the labels in turn so that every commit's occasions spread
# over the whole time), then a baseline of A (stat -r 20), then TRIES tries, each
#   pbench compare --baseline BASE -n A X --fail-if-slower PCT --max-runs 20 [--occasions occ]
# with X = A (the same command: exit 1 is a false alarm) and X = B (slower: exit 1 is a
# detection), with the history's allowance and with the fixed one. Each try's line: the
# kind, the allowance, the exit status and the gate's word; then the rates.
#
#   sh bench/baseline_occasions.sh [PBENCH [TRIES [A [B [PCT [COMMITS [PER]]]]]]]
#   sh bench/baseline_occasions.sh build/pbench 10 'sleep 0.2' 'sleep 0.21' 1 3 4
#
# Writes into a directory of its own under ${TMPDIR:-/tmp}.
set -u
PB=${1:-build/pbench}
TRIES=${2:-10}
A=${3:-sleep 0.2}
B=${4:-sleep 0.21}
PCT=${5:-1}
COMMITS=${6:-3}
PER=${7:-4}
D=$(mktemp -d "${TMPDIR:-/tmp}/baseline_occasions.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
Q="--mode unprepared -e task-clock"

for _ in $(seq 1 "$PER"); do
	for c in $(seq 1 "$COMMITS"); do
		# shellcheck disable=SC2086
		"$PB" stat $Q -q -r 10 --record occ --history "$D/h.db" --commit "c$c" $A \
			>/dev/null 2>&1 || { echo "stat failed"; exit 1; }
	done
done
# shellcheck disable=SC2086
"$PB" stat $Q -q -r 20 --json="$D/base.json" $A >/dev/null 2>&1 || { echo "stat failed"; exit 1; }
"$PB" history --history "$D/h.db"
for i in $(seq 1 "$TRIES"); do
	for kind in same slower; do
		x=$A
		[ "$kind" = slower ] && x=$B
		for how in history fixed; do
			occ=
			[ "$how" = history ] && occ="--occasions occ --history $D/h.db"
			# shellcheck disable=SC2086
			"$PB" compare $Q --max-runs 20 --baseline "$D/base.json" -n "$A" "$x" \
				--fail-if-slower "$PCT" $occ >"$D/out" 2>"$D/err"
			rc=$?
			word=$(sed -n 's/^pbench: \(regression\|no regression\|undecided\).*/\1/p' "$D/err" |
			       head -1)
			allow=$(grep -o 'move by +-[0-9.]*%' "$D/err" | head -1)
			echo "$i $kind $how exit=$rc ${word:-?} ${allow:-?}"
		done
	done
done | tee "$D/tries"
echo
for kind in same slower; do
	for how in history fixed; do
		n=$(grep -c " $kind $how " "$D/tries")
		r=$(grep -c " $kind $how exit=1 " "$D/tries")
		u=$(grep " $kind $how " "$D/tries" | grep -c " undecided ")
		echo "$kind, $how allowance: exit 1 in $r of $n, undecided $u"
	done
done
