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
	if readelf -d "$O/libpbench.so" | grep -q 'SONAME.*libpbench.so.1'; then
		ok "soname"
	else
		bad soname "no libpbench.so.1 soname"
	fi
else
	skipped "exports" "nm or the shared library is missing"
fi

finish cli/help
