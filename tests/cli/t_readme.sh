#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's examples against the binary (issue 37: its tables showed a time_ns column the
# binary no longer printed). The outputs it shows come from real runs, so their figures are
# not compared; what is compared is every column name of a table of runs (the "  run  ticks
# ..." header of pbench stat's text): each one that is not an event (the command's -e) nor a
# column printed only on some runs (speed: when the speed varied) must be in the header the
# binary prints. (The README's outputs elide lines with "..." and run on files it does not
# ship: no example of it is a recorded input to compare whole.)
# Usage: tests/cli/t_readme.sh BUILD_DIR. Last line: "cli/readme: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- the columns of the tables of runs ----------------------------------------------------------
if run "stat header" 0 "$PB" stat --mode unprepared -r 2 -e task-clock -- true; then
	got=$(grep '^  run  ' "$T/out" | head -n 1)
	n=0 missing=
	# the README's headers, one a line; their words that are not events or optional columns
	for w in $(grep '^  run  *ticks ' README.md | tr -s ' ' '\n' | sort -u); do
		case "$w" in
		*-*|*/*|speed) continue ;;	# an event (task-clock, msr/tsc/), or shown when varied
		esac
		n=$((n + 1))
		printf '%s\n' "$got" | tr -s ' ' '\n' | grep -qx -- "$w" || missing="$missing $w"
	done
	if [ "$n" -ge 5 ] && [ -z "$missing" ]; then
		ok "every column of the README's tables of runs is one the binary prints ($n names)"
	else
		miss "stat header" "README columns the binary does not print:${missing:- none found} (it prints: $got)"
	fi
fi

finish cli/readme
