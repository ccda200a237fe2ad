#!/bin/sh
# SPDX-License-Identifier: MIT
# Every skip names a reason a machine really has (issue 22): a test that does not run must say
# what this machine lacks or has (not installed, no PMU, not root, one CPU, paranoid, no KVM,
# python3...), so a skip is never a silent pass of code that does not work.
#
# Usage: tests/lint/skips.sh [FILE...] (from the top of the tree; no FILE: every test file
# under tests/). Prints "ok FILE:LINE" or "FAIL FILE:LINE: WHY: the reason as written" for
# each skip site; the caller counts them (tests/lint/run.sh).
#
# The skip sites it reads:
#   shell   skipped NAME "REASON"       (tests/cli/lib.sh: the cli, faults, schema, cxx,
#                                        golden suites)
#           echo "[SKIP] NAME: REASON"  (layers, pmu)
#           skip "REASON"...            (tests/pmu/setup.sh)
#   C       cr_skip_test("REASON"...), cr_skip("REASON"...) (Criterion), skip("REASON"...)
#           (tests/pmu's TAP)
# The reason is the literal text of the call: string literals joined, over several lines if
# the call is; format directives (%s) and shell expansions ($x, $(...)) are left out, so a
# reason that is only a variable is empty here: it needs words around it that say what is
# missing. A reason fails when it is empty, generic ("skip", "n/a", "not supported" or "not
# available" alone, "TODO"), or when it names nothing a machine lacks or has: none of the
# words of ACCEPT below (a heuristic list; add a word when a real reason needs it).
set -u
ACCEPT='not installed|installed|is missing|missing|not built|no [a-z0-9/_"'"'"'.-]|not available|unavailable|not allowed|not permitted|permission|cannot|can.t|could not|does not|did not|needs|need |requires|only|root|user|nobody|setpriv|cpu|pmu|paranoid|kvm|vm|host|machine|kernel|python|compiler|gcc|clang|asan|sanitizer|affinity|/dev/|/sys|/proc|msr|counter|tsc|clock|tmpfs|prlimit|rlimit|mount|busy|load|x86|arch|apt-get|debian|network|library|event|cgroup|numa|sched_|fifo|rdpmc|cap_|smt|isolated|script\(1\)|bash|groff|strip|nm |taskset|rsvg|on purpose|binutils|util-linux|this |here'
GENERIC='^(skip|skipped|skipping|n/?a|not supported|unsupported|not available|unavailable|todo|fixme|tbd|xxx|disabled|later|flaky|broken|none|no|unknown|failed)$'

if [ $# -eq 0 ]; then
	# (not tests/lint: its samples are offenders on purpose)
	set -- $(find tests -path tests/golden/expected -prune -o -path tests/fixtures -prune -o \
		-path tests/lint -prune -o \
		-path tests/fuzz/corpus -prune -o -type f \( -name '*.sh' -o -name '*.c' -o -name '*.h' \
		-o -name '*.cc' -o -name '*.cpp' \) -print | LC_ALL=C sort)
fi

awk -v accept="$ACCEPT" -v generic="$GENERIC" '
function judge(file, line, reason,    r, g) {
	r = reason
	gsub(/%[-+ #0-9.*]*(l|ll|z|h|j|t)?[a-zA-Z]/, "", r)	# printf directives
	gsub(/\$\([^)]*\)/, "", r)				# $(...)
	gsub(/\$\{[^}]*\}/, "", r)				# ${x}
	gsub(/\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?]/, "", r)	# $x
	gsub(/^[ \t:;,.-]+|[ \t:;,.-]+$/, "", r)
	g = tolower(r)
	if (g == "")
		print "FAIL " file ":" line ": the reason is empty (or only a variable: say around it what the machine lacks): " reason
	else if (g ~ generic || g ~ /(^|[^a-z])(todo|fixme|xxx)([^a-z]|$)/)
		print "FAIL " file ":" line ": the reason is generic: say what this machine lacks or has: " reason
	else if (g !~ accept)
		print "FAIL " file ":" line ": the reason names nothing a machine lacks or has (tests/lint/skips.sh: ACCEPT): " reason
	else
		print "ok " file ":" line
}
# The string literals of s, joined.
function literals(s,    out, m) {
	out = ""
	while (match(s, /"([^"\\]|\\.)*"/)) {
		m = substr(s, RSTART + 1, RLENGTH - 2)
		out = out m
		s = substr(s, RSTART + RLENGTH)
	}
	return out
}
FNR == 1 { pend = ""; cont = 0; csh = (FILENAME ~ /\.sh$/) }
# ---- shell ---------------------------------------------------------------------------------
csh {
	if (cont) { text = text " " $0 } else { text = $0; start = FNR }
	if (text ~ /\\$/) { sub(/\\$/, "", text); cont = 1; next }
	cont = 0
	t = text
	sub(/^[ \t]*/, "", t)
	if (t ~ /^#/)
		next
	# skipped NAME "REASON": NAME a word or a quoted string
	if (match(t, /(^|[;&|{][ \t]*|(then|else|do)[ \t]+|\)[ \t]+)skipped[ \t]+/)) {
		rest = substr(t, RSTART + RLENGTH)
		if (rest ~ /^"/) { match(rest, /^"([^"\\]|\\.)*"/); rest = substr(rest, RLENGTH + 1) }
		else { sub(/^[^ \t]*/, "", rest) }
		sub(/^[ \t]+/, "", rest)
		if (rest ~ /^"/) { match(rest, /^"([^"\\]|\\.)*"/); judge(FILENAME, start, substr(rest, 2, RLENGTH - 2)) }
		else judge(FILENAME, start, "")
		next
	}
	# echo "[SKIP] NAME: REASON"
	if (t !~ /^[A-Za-z_]+\(\)/ && match(t, /echo "\[SKIP\] [^:"]*: /)) {
		rest = substr(t, RSTART + RLENGTH)
		sub(/"[^"]*$/, "", rest)
		judge(FILENAME, start, rest)
		next
	}
	# skip "REASON" ... (a function of that name; its definition is not a site)
	if (t !~ /^skip\(\)/ && match(t, /(^|[;&|{][ \t]*|(then|else|do)[ \t]+|\)[ \t]+)skip[ \t]+"/)) {
		rest = substr(t, RSTART + RLENGTH - 1)
		judge(FILENAME, start, literals(rest))
	}
	next
}
# ---- C -------------------------------------------------------------------------------------
{
	if (pend != "") {
		pend = pend " " $0
	} else if (match($0, /(^|[^A-Za-z0-9_])(cr_skip_test|cr_skip|skip)[ \t]*\(/) &&
		   $0 !~ /^[ \t]*(static|void|#|\*|\/\*)/ && $0 !~ /[A-Za-z_] *skip *\(const/) {
		pend = substr($0, RSTART)
		start = FNR
	} else {
		next
	}
	if (pend ~ /\)[ \t]*;/) {
		judge(FILENAME, start, literals(pend))
		pend = ""
	}
}
' "$@"
