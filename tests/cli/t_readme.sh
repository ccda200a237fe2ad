#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's and kmod-free-docs/'s examples against the binary (issue 37: the README's tables
# showed a time_ns column the binary no longer printed, its outliers' causes and the docs' the
# words before issue 37). The outputs they show come from real runs, so their figures are not
# compared; what is compared is every column name of a table of runs (the "  run  ticks ..."
# header of pbench stat's text): each one that is not an event (the command's -e) nor a column
# printed only on some runs (speed: when the speed varied) must be in the header the binary
# prints; every outlier's cause that tells what the kernel saw tells it beyond a typical run, as
# the binary's does; and every "waiting:" line opens as one of the binary's. (The outputs elide
# lines with "..." and run on files the tree does not ship: no example is a recorded input to
# compare whole.)
# Usage: tests/cli/t_readme.sh BUILD_DIR. Last line: "cli/readme: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- the columns of the tables of runs ----------------------------------------------------------
if run "stat header" 0 "$PB" stat --mode unprepared -r 2 -e task-clock -- true; then
	got=$(grep '^  run  ' "$T/out" | head -n 1)
	n=0 missing=
	# the README's headers, one a line; their words that are not events or optional columns
	for w in $(cat README.md kmod-free-docs/*.md | grep '^  run  *ticks ' | tr -s ' ' '\n' |
		   sort -u); do
		case "$w" in
		*-*|*/*|speed) continue ;;	# an event (task-clock, msr/tsc/), or shown when varied
		esac
		n=$((n + 1))
		printf '%s\n' "$got" | tr -s ' ' '\n' | grep -qx -- "$w" || missing="$missing $w"
	done
	if [ "$n" -ge 5 ] && [ -z "$missing" ]; then
		ok "every column of the docs' tables of runs is one the binary prints ($n names)"
	else
		miss "stat header" "docs' columns the binary does not print:${missing:- none found} (it prints: $got)"
	fi
fi

# ---- the outliers' causes and the waiting line --------------------------------------------------
# The binary's: run 1 of six sleeps 0.3 s, the others 0.01 s (its cause and the waiting line with
# the context-switches event), and `true` with task-clock alone (the waiting line without it).
KERNEL_SAW='not running|preempted|blocked|interrupt|IPI|major fault|steal'
: >"$T/starts"
if run "readme cause" 0 "$PB" stat --mode unprepared -r 6 -e task-clock,context-switches -- \
	sh -c "echo >>'$T/starts'; if [ \$(wc -l <'$T/starts') -ne 1 ]; then sleep 0.01; else sleep 0.3; fi"; then
	grep -E '^  run [0-9]+: [+-]' "$T/out" >"$T/causes"
	grep '^waiting: ' "$T/out" >"$T/waits"
	if run "readme waiting" 0 "$PB" stat --mode unprepared -r 3 -e task-clock -- true; then
		grep '^waiting: ' "$T/out" >>"$T/waits"
	fi
	# the docs' lines: in README.md and kmod-free-docs/*.md
	cat README.md kmod-free-docs/*.md | grep -E '^  run [0-9]+: [+-][0-9.]+ [mun]?s: ' \
		>"$T/doc_causes"
	cat README.md kmod-free-docs/*.md | grep '^waiting: ' >"$T/doc_waits"
	# a cause that tells the kernel's counts says they are beyond a typical run's
	untold=$(cat "$T/causes" "$T/doc_causes" | grep -E "$KERNEL_SAW" | grep -v 'typical run' |
		 head -n 3)
	if [ -s "$T/causes" ] && [ -s "$T/doc_causes" ] && [ -z "$untold" ] &&
	   ! grep -q 'on the CPU all along' "$T/causes" "$T/doc_causes"; then
		ok "the docs' outliers' causes tell the kernel's counts beyond a typical run, as the binary does ($(wc -l <"$T/doc_causes") lines)"
	else
		bad "readme cause" "a cause without 'typical run' (binary: $(head -n 1 "$T/causes")): ${untold:-none found}"
	fi
	# each doc's waiting line says what the binary's do, to the first ':' after "waiting:"
	# (the numbers, and whether a typical run was also preempted, aside)
	opening() {
		sed -E 's/[0-9][0-9.,]*( [mun]?s)?/N/g; s/once/N times/g; s/N time( |:|,|$)/N times\1/g;
			s/(never preempted|preempted N times)/P/; s/^(waiting: [^:]*).*/\1/'
	}
	opening <"$T/waits" | sort -u >"$T/wait_shapes"
	odd=$(opening <"$T/doc_waits" | sort -u | grep -vxF -f "$T/wait_shapes" | head -n 2)
	if [ "$(wc -l <"$T/waits")" -ge 2 ] && [ -s "$T/doc_waits" ] && [ -z "$odd" ]; then
		ok "the docs' waiting lines open as the binary's ($(wc -l <"$T/doc_waits") lines)"
	else
		bad "readme waiting" "binary: $(cat "$T/wait_shapes" | tr '\n' '|'); docs: ${odd:-none found}"
	fi
fi

finish cli/readme
