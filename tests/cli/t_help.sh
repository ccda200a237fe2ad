#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench -h for every command pbench lists, --version, the errors that are no command's, a write
# error, and what the library exports. Usage: tests/cli/t_help.sh BUILD_DIR (alone, or through
# tests/cli/run.sh). Last line: "cli/help: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- help and version: work anywhere, no PMU needed -----------------------------------------
# Every command pbench lists, not a hand-kept list (git's t0012-help.sh).
cmds=$("$PB" -h | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || bad "help" "pbench -h lists no commands"
for c in "" $cmds; do
	if run "help $c" 0 "$PB" $c -h && has "$T/out" "usage: pbench"; then ok "help '$c'"; else miss "help '$c'"; fi
	if [ -n "$c" ]; then
		if run "help via help $c" 0 "$PB" help $c && has "$T/out" "usage: pbench $c"; then
			ok "pbench help $c"
		else
			miss "help via help $c"
		fi
	fi
done
usage_error "help on no such command" "no help on 'nope'" help nope
# -v (or PBENCH_DEBUG) shows the library's diagnostics: here libpfm4's word on a misspelt name.
if run "verbose" 2 "$PB" -v stat -e cylces && has "$T/err" "^pbench: debug: libpfm4: 'cylces'" &&
   run "PBENCH_DEBUG" 2 env PBENCH_DEBUG=1 "$PB" stat -e cylces &&
   has "$T/err" "^pbench: debug: libpfm4: 'cylces'" && run "quiet" 2 "$PB" stat -e cylces &&
   nothas "$T/err" "debug"; then
	ok "-v and PBENCH_DEBUG show the library's log, and only they do"
else
	miss "verbose"
fi
if run version 0 "$PB" --version && has "$T/out" "^pbench [0-9]"; then ok version; else miss version; fi
usage_error "unknown command" "unknown command 'frobnicate'$" frobnicate
# "Did you mean" (pbench_suggest) for commands, every command's options and listed values;
# a word near none, or equally near two, gets no suggestion.
usage_error "command typo" "unknown command 'stats' (did you mean 'stat'?)$" stats
usage_error "command typo, two as near" "unknown command 'st'$" st
usage_error "help typo" "no help on 'chek': there is no such command (did you mean 'check'?)$" help chek
for c in $cmds; do
	usage_error "$c option typo" "unknown option '--hlep' for 'pbench $c' (did you mean '--help'?)$" \
		"$c" --hlep
done
usage_error "stat option typo" "unknown option '--runz' for 'pbench stat' (did you mean '--runs'?)$" \
	stat --runz 5
usage_error "stat option typo=" "unknown option '--runz' for 'pbench stat' (did you mean '--runs'?)$" \
	stat --runz=5
usage_error "compare option typo" "unknown option '--duett' for 'pbench compare' (did you mean '--duet'?)$" \
	compare --duett true true
# an output the command does not write is not suggested: list has no --plot
usage_error "no suggestion of an output not offered" "unknown option '--plto' for 'pbench list'$" \
	list --plto
usage_error "jitter --plot typo" "unknown option '--plto' for 'pbench jitter' (did you mean '--plot'?)$" \
	jitter --plto "$T/j.svg"
# --plot writes SVG: a name that says otherwise is refused before anything runs, in every
# command that plots ($T/x.png is never made)
for c in stat jitter compare; do
	usage_error "$c --plot x.png" "^pbench: error: --plot writes SVG: name the file '$T/x.svg', not '$T/x.png'$" \
		"$c" --plot "$T/x.png" true true
	usage_error "$c --plot=x" "--plot writes SVG: name the file '$T/x.svg', not '$T/x'$" \
		"$c" --plot="$T/x" true true
	if [ -e "$T/x.png" ] || [ -e "$T/x" ]; then bad "$c --plot x.png" "a file was made"; fi
done
if run "no command" 2 "$PB" && has "$T/err" "usage:"; then ok "no command shows usage"; else miss "no command"; fi
usage_error "unknown option" "unknown option '--frob'" stat --frob

# ---- output errors are failures (git's run_builtin) ------------------------------------------
if [ -w /dev/full ]; then
	"$PB" list >/dev/full 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 1 ] && has "$T/err" "cannot write to standard output"; then
		ok "write error is reported"
	else
		bad "write error" "exit $rc"
	fi
else
	skipped "write error" "/dev/full is not available"
fi

# ---- exported symbols: pbench_ only, each declared in pbench.h --------------------------------
if command -v nm >/dev/null 2>&1 && [ -f "$O/libpbench.so" ]; then
	nm -D --defined-only "$O/libpbench.so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' |
		sort -u >"$T/exported"
	# pbench.h and the per-concept headers it includes, once there are any.
	cat lib/include/pbench.h $(ls lib/include/pbench/*.h 2>/dev/null) | grep 'PBENCH_API' | grep -o 'pbench_[a-z0-9_]*(' | tr -d '(' |
		sort -u >"$T/declared"
	stray=$(grep -v '^pbench_' "$T/exported")
	undeclared=$(comm -23 "$T/exported" "$T/declared")
	missing=$(comm -13 "$T/exported" "$T/declared")
	if [ -z "$stray" ] && [ -z "$undeclared" ] && [ -z "$missing" ]; then
		ok "exports are exactly the pbench_ functions of pbench.h"
	else
		bad "exports" "stray: $stray; not in pbench.h: $undeclared; not exported: $missing"
	fi
	if readelf -d "$O/libpbench.so" | grep -q 'SONAME.*libpbench.so.2'; then
		ok "soname"
	else
		bad soname "no libpbench.so.2 soname"
	fi
else
	skipped "exports" "nm or the shared library is missing"
fi

# ---- every export listed in lib/libpbench.map with its purpose, nothing exported unlisted ------
# map_problems MAP [EXPORTED]: what is wrong, one line each (nothing: all is well): a line of the
# map's global list that is not "NAME;<TAB># PURPOSE" with a purpose of 3 words or more; with
# EXPORTED (the library's defined dynamic symbols, one a line), each one the map does not list
# and each listed name it lacks.
map_problems() {
	awk -v map="$1" -v listed="$T/listed" '
		/^[ \t]*global:[ \t]*$/ { g = 1; next }
		/^[ \t]*(local:|})/ { g = 0; next }
		!g || /^[ \t]*$/ || /^[ \t]*#/ { next }
		{
			line = $0
			sub(/^[ \t]+/, "", line)
			if (line !~ /^[A-Za-z_][A-Za-z0-9_]*;/) {
				printf "%s:%d: expected \"NAME;<TAB># PURPOSE\", saw \"%s\"\n", map, NR, line
				next
			}
			name = line
			sub(/;.*/, "", name)
			print name >listed
			rest = substr(line, length(name) + 2)
			purpose = ""
			if (match(rest, /^[ \t]*#/)) {
				purpose = substr(rest, RLENGTH + 1)
				gsub(/^[ \t]+|[ \t]+$/, "", purpose)
			}
			if (split(purpose, w, /[ \t]+/) < 3)
				printf "%s:%d: %s: expected its purpose after a \"#\", 3 words or more; saw \"%s\"\n", map, NR, name, rest
		}' "$1"
	[ -n "${2:-}" ] || return 0
	sort -u "$T/listed" >"$T/listed.s"
	comm -23 "$2" "$T/listed.s" | sed "s|^|exported by $O/libpbench.so, not listed in $1: |"
	comm -13 "$2" "$T/listed.s" | sed "s|^|listed in $1, not exported by $O/libpbench.so: |"
}
: >"$T/err" # (bad shows it: nothing of an earlier run's)
if command -v nm >/dev/null 2>&1 && [ -f "$O/libpbench.so" ]; then
	# every defined dynamic symbol but the version node (type A, PBENCH_<N>)
	nm -D --defined-only "$O/libpbench.so" | awk 'NF == 3 && $2 != "A" {print $3}' | sed 's/@.*//' |
		sort -u >"$T/dynsyms"
	map_problems lib/libpbench.map "$T/dynsyms" >"$T/problems"
	what="every export of $O/libpbench.so listed in lib/libpbench.map, each listed name exported"
else
	skipped "exports listed" "nm or the shared library is missing: the map's purposes alone are checked"
	map_problems lib/libpbench.map >"$T/problems"
	what=""
fi
n=$(grep -c . "$T/listed")
if [ ! -s "$T/problems" ] && [ "$n" -gt 0 ]; then
	ok "the $n exports of lib/libpbench.map each have a purpose${what:+; $what}"
else
	bad "exports and their purposes" "expected ${what:+$what, and }a purpose of 3 words or more on every line of lib/libpbench.map's global list ($n names); saw:
$(head -n 20 "$T/problems")"
fi
# The check itself, on copies of the map: a line without its purpose, a name the library
# exports that the map no longer lists, and a listed name that is not exported each fail.
first=$(head -n 1 "$T/listed")
awk -v n="$first" '!d && $0 ~ "^[ \t]*" n ";" { sub(/;.*/, ";"); d = 1 } 1' lib/libpbench.map >"$T/nopurpose.map"
if map_problems "$T/nopurpose.map" | grep -q "$first: expected its purpose"; then
	ok "a map line without its purpose fails"
else
	bad "a map line without its purpose" "expected map_problems to name $first; saw: $(map_problems "$T/nopurpose.map" | head -n 3)"
fi
if [ -s "${T}/dynsyms" ]; then
	awk -v n="$first" '$0 !~ "^[ \t]*" n ";"' lib/libpbench.map >"$T/unlisted.map"
	if map_problems "$T/unlisted.map" "$T/dynsyms" | grep -q "not listed in $T/unlisted.map: $first$"; then
		ok "an export the map does not list fails"
	else
		bad "an export the map does not list" "expected map_problems to name $first; saw: $(map_problems "$T/unlisted.map" "$T/dynsyms" | head -n 3)"
	fi
	awk -v n="$first" '1; $0 ~ "^[ \t]*" n ";" { print "\t\tpbench_not_exported;\t# a name no library exports" }' \
		lib/libpbench.map >"$T/extra.map"
	if map_problems "$T/extra.map" "$T/dynsyms" | grep -q "not exported by $O/libpbench.so: pbench_not_exported$"; then
		ok "a listed name the library does not export fails"
	else
		bad "a listed name the library does not export" "expected map_problems to name pbench_not_exported; saw: $(map_problems "$T/extra.map" "$T/dynsyms" | head -n 3)"
	fi
fi

finish cli/help
