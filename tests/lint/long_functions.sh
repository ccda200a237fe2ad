#!/bin/sh
# SPDX-License-Identifier: MIT
# No function over 80 lines (issue 35, item 7): measures every function of the C files given
# (none: lib/src/*/*.c and cli/*.c, from the top of the tree) and prints for each one over the
# limit "FAIL FILE:LINE: FUNCTION is N lines (over 80)", then "measured N functions, longest
# FILE:LINE FUNCTION N lines"; exit status 1 if one is over. The caller counts them
# (tests/lint/run.sh).
#
# A function, as the tree writes them (the kernel's style): its body opens with a '{' alone at
# column 0 and closes with the first '}' at column 0 after it. Its opening line is the first of
# the lines just above the '{' that make its declaration (static, inline, a return type on its
# own line, a signature on several lines): going up from the '{' until a blank line, a
# preprocessor line (or a line of a macro's, after a '\'), a comment, or a line that ends a
# declaration or a block (';', '}', '*/'), a comment within a line taken out first ("f(void)
# /* why */" is a signature's line).
# A '{' at column 0 under lines with no '(' or ending in '=' opens no function (a struct, an
# enum, an initializer) and is not measured. A body opened on the signature's own line ("int
# f(void) {" at column 0) is measured too. The length counts the opening line and the closing
# '}' (a function of lines 10 to 89 is 80 lines).
# Usage: tests/lint/long_functions.sh [-m MAX] [FILE...]; MAX: the longest allowed (80).
set -u
max=80
if [ "${1:-}" = -m ]; then
	max=$2
	shift 2
fi
[ $# -gt 0 ] || set -- lib/src/*/*.c cli/*.c
awk -v max="$max" '
function report(   len) {
	len = FNR - open + 1
	nfun++
	if (len > longest) {
		longest = len
		lwhere = FILENAME ":" open " " fname
	}
	if (len > max && ++nover)
		printf "FAIL %s:%d: %s is %d lines (over %d)\n", FILENAME, open, fname, len, max
}
function name_of(text,   s) {
	s = text
	gsub(/__attribute__[ \t]*\(\(([^()]|\([^()]*\))*\)\)/, " ", s)
	sub(/\(.*/, "", s)		# up to the first "(": the declarator before it
	sub(/[ \t*]+$/, "", s)
	sub(/.*[^A-Za-z0-9_]/, "", s)
	return s == "" ? "?" : s
}
FNR == 1 { n = 0; inbody = 0 }
{ lines[++n] = $0 }
inbody {
	if ($0 ~ /^}/) {
		if (inbody == 1)
			report()
		inbody = 0
	}
	next
}
/^\{[ \t]*$/ {
	# up from the "{": the lines of the declaration
	open = FNR
	sig = ""
	for (i = n - 1; i >= 1; i--) {
		l = lines[i]
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", l)	# a comment within the line
		if (l ~ /^[ \t]*$/ || l ~ /^#/ || l ~ /^[ \t]*(\/\*|\/\/|\*)/ ||
		    l ~ /(;|\}|\*\/|\\)[ \t]*$/ || (i > 1 && lines[i - 1] ~ /\\[ \t]*$/))
			break
		open = i
		sig = l " " sig
	}
	fname = name_of(sig)
	# no "(" before the "{", or an "=": a struct, an enum, an initializer, not a function
	inbody = sig ~ /\(/ && sig !~ /=[ \t]*$/ ? 1 : 2
	next
}
/^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ && !/=/ && !/^(struct|union|enum|typedef)[ \t]/ {
	open = FNR
	fname = name_of($0)
	inbody = 1
	next
}
END {
	printf "measured %d functions, longest %s %d lines\n", nfun, lwhere, longest
	exit (nover > 0)
}' "$@"
