#!/bin/sh
# SPDX-License-Identifier: MIT
# The bash completion (completion/pbench.bash): commands, each command's options, event names
# from `pbench list`, CPU numbers, option values, files, and stat's command to measure.
# Usage: tests/cli/t_completion.sh BUILD_DIR. Last line: "cli/completion: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

if ! command -v bash >/dev/null 2>&1; then
	skipped "completion" "bash is not installed"
	finish cli/completion
	exit 0
fi
# comp NAME WORD...: what bash offers for the last WORD of "pbench WORD...", one a line, in
# $T/out (sorted)
comp() {
	name=$1
	shift
	bash -c '. completion/pbench.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pbench;
		printf "%s\n" "${COMPREPLY[@]}"' bash "$PB" "$@" 2>"$T/err" | sort >"$T/out"
}
# offers NAME PATTERN WORD...: a completion matches PATTERN (a whole line)
offers() {
	name=$1 pat=$2
	shift 2
	comp "$name" "$@"
	if grep -qx -- "$pat" "$T/out"; then ok "$name"; else bad "$name" "no '$pat' among: $(tr '\n' ' ' <"$T/out" | head -c 300)"; fi
}
# only NAME LIST WORD...: exactly the words of LIST (space-separated), in any order
only() {
	name=$1 want=$(printf '%s\n' $2 | sort | tr '\n' ' ')
	shift 2
	comp "$name" "$@"
	got=$(tr '\n' ' ' <"$T/out")
	if [ "$got" = "$want" ]; then ok "$name"; else bad "$name" "got '$got', want '$want'"; fi
}

cmds=$("$PB" -h | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' | tr '\n' ' ')
only "the commands" "$cmds help" ""
only "a command's prefix" "stat" st
only "help's commands" "stat" help st
offers "pbench's own options" "--version" --
only "an option's prefix" "--mode" stat --mo
only "--mode's values" "contrast" stat --mode c
only "--call-graph's values" "dwarf" stat --call-graph d
only "--workload's values" "xor memwalk" stat --workload ""
only "--unit's values" "ns us ms s" analyze -u ""
only "--metric's values" "real_time cpu_time" analyze --metric ""
offers "stat --metric: an event" "page-faults" stat --metric page-
offers "compare --metric: a derived metric" "ipc" compare --metric ip
offers "stat --metric NAME: then the command" "true" stat --metric task-clock tru
offers "an event name" "task-clock" stat -e task-
offers "an event after a comma" "task-clock,page-faults" stat -e task-clock,page-
if [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then
	offers "msr/tsc/ from pbench list" "msr/tsc/" stat --events msr
else
	skipped "msr/tsc/ from pbench list" "this kernel has no msr PMU with a tsc event (not x86?)"
fi
cpus=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) print c } }' \
	/sys/devices/system/cpu/online | sort | tr '\n' ' ')
only "--cpu: the CPUs online" "$cpus" stat --cpu ""
only "check -c: the CPUs online" "$cpus" check -c ""
offers "jitter's options" "--compare-prepared" jitter --c
offers "list's options" "--export-json" list --
offers "analyze: files" "tests/cli/t_analyze.sh" analyze tests/cli/t_an
offers "--export-json: files" "tests/cli/t_stat.sh" stat --export-json tests/cli/t_st
mkdir -p "$T/d/sub"
: >"$T/d/a.svg"; : >"$T/d/B.SVG"; : >"$T/d/c.png"
only "--plot: .svg files and directories" "$T/d/a.svg $T/d/B.SVG $T/d/sub" jitter --plot "$T/d/"
offers "stat --: the command to measure" "printf" stat -r 3 -- prin
offers "stat: the first word that is no option is the command" "printf" stat -r 3 -q prin
offers "stat: the command's arguments are files" "tests/cli/lib.sh" stat -- ls tests/cli/li
only "a number has nothing to offer" "" stat -r ""

# Every option each -h lists is offered: the completion's reading of -h against the man page's
# (scripts/man.py parses the same text its own way).
for c in $cmds; do
	comp "options of $c" "$c" --
	n=$(grep -c '^--' "$T/out")
	m=$(grep -c '^\.TP' "man/pbench-$c.1")
	e=$(sed -n '/^\.SH ENVIRONMENT/,$p' "man/pbench-$c.1" | grep -c '^\.TP')
	if [ "$n" -eq $((m - e)) ] && [ "$n" -gt 2 ]; then
		ok "pbench $c --: the $n options of its -h and man page"
	else
		bad "options of $c" "$n offered, $((m - e)) in man/pbench-$c.1"
	fi
done

# history: its subcommands, then the series of the store ($PBENCH_HISTORY), files for add;
# stat's --record takes its value, not the command to measure
only "history's subcommands" "list show add check export" history ""
printf '1\n2\n3\n' >"$T/h.csv"
PBENCH_HISTORY=$T/h.db "$PB" history add series-one "$T/h.csv" >/dev/null 2>&1
export PBENCH_HISTORY="$T/h.db"
only "history show: the series' names" "series-one" history show ""
only "compare --occasions: the series' names" "series-one" compare --baseline b.json --occasions ""
unset PBENCH_HISTORY
only "compare --occasions --history: that store's series" "series-one" compare --history "$T/h.db" --occasions ""
offers "history add NAME: files" "$T/h.csv" history add x "$T/h.c"
offers "stat --record NAME: then the command" "true" stat --record x tru
offers "stat -P NAME MIN MAX: then the command" "true" stat -P n 1 8 --log2 tru
offers "stat -L NAME A,B: then the command" "true" stat -L n 1,2 tru

finish cli/completion
