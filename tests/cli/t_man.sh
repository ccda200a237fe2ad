#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages: man/ is what scripts/man.py makes of the -h texts (their one source), each
# page renders without a warning, every option a command parses is in its -h (so in its page),
# and make install installs the pages and the bash completion.
# Usage: tests/cli/t_man.sh BUILD_DIR. Last line: "cli/man: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

cmds=$("$PB" -h | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
if [ "$HAVE_PY" -eq 1 ]; then
	if python3 scripts/man.py "$PB" "$T/man" 2>"$T/err" && diff -r man "$T/man" >"$T/out"; then
		ok "man/ is what scripts/man.py makes of pbench -h and each command's -h"
	else
		bad "man pages" "out of date (python3 scripts/man.py $PB man): $(head -5 "$T/out")"
	fi
else
	skipped "man pages" "python3 is not installed"
fi
for c in "" $cmds; do
	page=man/pbench${c:+-$c}.1
	if [ ! -f "$page" ]; then
		bad "page of '$c'" "$page is missing"
	elif command -v groff >/dev/null 2>&1; then
		if [ -z "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ] &&
		   groff -man -Tutf8 -P -cbou "$page" 2>/dev/null | grep -q "^SYNOPSIS"; then
			ok "$page renders without a warning"
		else
			bad "$page" "$(groff -man -Tutf8 -ww -z "$page" 2>&1 | head -3)"
		fi
	else
		skipped "$page renders" "groff is not installed"
	fi
done

# Every long option in a command's table (cli/cmd_<c>.c) is in its -h; the output options
# its -h names are the ones it takes (the others are unknown to it).
for c in $cmds; do
	"$PB" "$c" -h >"$T/help"
	missing=""
	for o in $(sed -n 's/.*{ "\([a-z][a-z-]*\)", [a-z_]*argument.*/\1/p' "cli/cmd_$c.c"); do
		grep -q -- "--$o\b" "$T/help" || missing="$missing --$o"
	done
	if [ -z "$missing" ]; then ok "pbench $c -h names every option it parses"; else bad "$c -h" "lacks$missing"; fi
	# compare needs its two commands before anything else is looked at
	if [ "$c" = compare ]; then set -- true true; else set --; fi
	for o in export-json export-csv export-markdown plot; do
		if grep -q -- "--$o " "$T/help"; then
			usage_error "$c takes --$o" "cannot write .* '/nonexistent/d/x.svg'" "$c" "--$o" /nonexistent/d/x.svg "$@"
		else
			usage_error "$c refuses --$o" "unknown option '--$o' for 'pbench $c'" "$c" "--$o" /nonexistent/d/x
		fi
	done
done

# make install: the pages and the completion where man and bash-completion look.
S="$O/stage/usr/share"
if [ -d "$O/stage" ]; then
	if [ -f "$S/man/man1/pbench.1" ] && [ -f "$S/man/man1/pbench-stat.1" ] &&
	   cmp -s man/pbench-stat.1 "$S/man/man1/pbench-stat.1" &&
	   cmp -s completion/pbench.bash "$S/bash-completion/completions/pbench"; then
		ok "make install puts the man pages in share/man/man1 and the completion in share/bash-completion"
	else
		bad "install" "$(ls -R "$S" 2>/dev/null | head -20 | tr '\n' ' ')"
	fi
else
	skipped "install" "no staged install in $O/stage (make examples makes one)"
fi

finish cli/man
