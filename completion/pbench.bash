# SPDX-License-Identifier: MIT
# bash completion for pbench: the commands, each command's options (read from its -h, so it
# never lags behind), event names for -e (from `pbench list`, after the last comma), CPU
# numbers for --cpu (from /sys/devices/system/cpu/online), the values of --mode, --workload
# and --unit, file names where a file goes, and for `pbench stat` the command to measure and
# its arguments. Installed by `make install` into bash-completion's completions directory;
# tests/cli/t_completion.sh checks it.

# The CPUs online, one number a line ("0-3,6" expanded).
_pbench_cpus()
{
	local list range
	list=$(cat /sys/devices/system/cpu/online 2>/dev/null) || return
	local IFS=,
	for range in $list; do
		if [[ $range == *-* ]]; then
			seq "${range%-*}" "${range#*-}"
		else
			echo "$range"
		fi
	done
}

# The options a command's -h lists ($1: the pbench binary, $2: the command or "").
_pbench_options()
{
	"$1" ${2:+"$2"} -h 2>/dev/null |
		sed -n 's/^  \(-[a-zA-Z]\), \(--[a-z][a-z-]*\).*/\1 \2/p; s/^      \(--[a-z][a-z-]*\).*/\1/p'
}

_pbench()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local pb=${COMP_WORDS[0]} cmd="" i w dashdash=0 args=0
	COMPREPLY=()

	# The command: the first word after pbench that is not an option.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $cmd ]]; then
			[[ $w != -* ]] && cmd=$w
		elif [[ $w == -- ]]; then
			dashdash=$i
			break
		fi
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_pbench_options "$pb" "")" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$pb" -h 2>/dev/null |
				sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p') help" -- "$cur"))
		fi
		return
	fi
	if [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$("$pb" -h 2>/dev/null |
			sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')" -- "$cur"))
		return
	fi

	# pbench stat: after --, or from the first argument that is not an option, the command
	# being measured and its arguments.
	if [[ $cmd == stat ]]; then
		local start=$dashdash
		if ((!start)); then
			# up to the word being completed: it may be the command itself
			for ((i = 2; i <= COMP_CWORD; i++)); do
				w=${COMP_WORDS[i]}
				case $w in
				-e|-r|-M|--events|--metrics|--metric|--runs|--target-sem|--max-time|--mode|--cpu|--warmup-ms|\
				--timeout|--workload|--iterations|--export-json|--export-csv|\
				--export-markdown|--plot|--record|--history|--commit|--profile-freq|\
				--profile-event|--call-graph|--profile-top|--debug-dir|--export-folded|\
				--flamegraph|--export-pprof|-D|--geom|--parameter-step-size|--scan-bytes)
					((i++)) ;;
				-P|--parameter-scan)	# NAME MIN MAX
					((i += 3)) ;;
				-L|--parameter-list)	# NAME A,B,C
					((i += 2)) ;;
				-*) ;;
				*) start=$((i - 1)); break ;;
				esac
			done
		fi
		if ((start)); then
			if ((COMP_CWORD == start + 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	fi

	case $prev in
	-e|--events)
		local head="" tail=$cur
		if [[ $cur == *,* ]]; then
			head=${cur%,*},
			tail=${cur##*,}
		fi
		COMPREPLY=($(compgen -P "$head" -W "$("$pb" list 2>/dev/null |
			awk '/^  [^ ]/ { print $1 }')" -- "$tail"))
		compopt -o nospace 2>/dev/null
		return ;;
	-c|--cpu)
		COMPREPLY=($(compgen -W "$(_pbench_cpus)" -- "$cur"))
		return ;;
	--mode)
		COMPREPLY=($(compgen -W "unprepared prepared contrast" -- "$cur"))
		return ;;
	--workload)
		COMPREPLY=($(compgen -W "xor memwalk" -- "$cur"))
		return ;;
	--call-graph)
		COMPREPLY=($(compgen -W "fp dwarf" -- "$cur"))
		return ;;
	--profile-event)
		COMPREPLY=($(compgen -W "cpu-clock task-clock $("$pb" list 2>/dev/null |
			awk '/^  [^ ]/ { print $1 }')" -- "$cur"))
		return ;;
	--debug-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	-u|--unit)
		COMPREPLY=($(compgen -W "ns us ms s" -- "$cur"))
		return ;;
	--metric)	# analyze: Google Benchmark's figure; stat, compare: an event or a metric
		if [[ $cmd == analyze ]]; then
			COMPREPLY=($(compgen -W "real_time cpu_time" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "wall-time $("$pb" list 2>/dev/null |
				awk '/^  [^ ]/ { print $1 }') $("$pb" list --metrics 2>/dev/null |
				awk '/^  [^ ]/ { print $1 }')" -- "$cur"))
		fi
		return ;;
	--export-json|--export-csv|--export-markdown|--history|--export-folded|--export-pprof)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--occasions)	# compare: a series of the history (--history, else $PBENCH_HISTORY)
		local hist=()
		for ((i = 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == --history ]] && hist=(--history "${COMP_WORDS[i + 1]}")
		done
		COMPREPLY=($(compgen -W "$("$pb" history "${hist[@]}" 2>/dev/null |
			awk 'NR > 1 { print $1 }')" -- "$cur"))
		return ;;
	--record|--commit|--last|--window|--p-value)
		return ;;	# a name, a commit or a number: nothing to offer
	--plot|--flamegraph)	# SVG: the .svg files (any case) and the directories on the way
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.[sS][vV][gG]' -- "$cur"))
		return ;;
	-r|--runs|-d|--duration|-t|--threshold|--target-sem|--max-time|--warmup-ms|\
	--timeout|--iterations|--profile-freq|--profile-top|--profile-fdr)
		return ;;	# a number: nothing to offer
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_pbench_options "$pb" "$cmd")" -- "$cur"))
	elif [[ $cmd == analyze ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	elif [[ $cmd == history ]]; then
		# the subcommand, then series names (add: a name, then files)
		local sub="" n=0
		for ((i = 2; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			[[ $w == --history || $w == --commit || $w == --threshold || $w == --last ||
			   $w == --window || $w == --p-value || $w == --plot ]] && { ((i++)); continue; }
			[[ $w == -* ]] && continue
			[[ -z $sub ]] && sub=$w || ((n++))
		done
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "list show add check export" -- "$cur"))
		elif [[ $sub == add && $n -ge 1 ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		elif [[ $sub == show || $sub == check ]]; then
			COMPREPLY=($(compgen -W "$("$pb" history 2>/dev/null |
				awk 'NR > 1 { print $1 }')" -- "$cur"))
		fi
	fi
}
complete -F _pbench pbench
