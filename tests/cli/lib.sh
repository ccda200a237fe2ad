# SPDX-License-Identifier: MIT
# Shared by the end-to-end test scripts (tests/cli/t_*.sh, tests/faults/run.sh): a scratch
# directory, counters, and checks whose failures say what was expected. Source it after
# setting O (the build directory); it sets PB, PBI, T, HAVE_PY, HAVE_PMU and NCPU.
#
# Every check counts once, whichever way it goes:
#   if run NAME 0 "$PB" ARGS && has "$T/out" PATTERN; then ok "WHAT"; else miss NAME; fi
# (run counts a wrong exit status itself; miss counts a missing output). A script ends with
# `finish NAME`, which prints the "NAME: N passed, N failed, N skipped" line a driver reads
# (and "; K passed after retries" after it when a retry loop's pass came on a later try:
# ok_after).
# The checks (has, nothas, line, json) keep what they wanted and what they saw, and miss prints
# both: a failure says "expected a line matching '...' in stdout; saw: <the nearest lines>". A
# condition of another kind gives miss its own message (miss NAME "WHAT IT SAW").
PB="$O/pbench"
# COLUMNS from the caller's shell would wrap the text the checks read line by line: a test
# that wants it wrapped sets it on its command.
unset COLUMNS
# A background job of a script starts with SIGINT ignored, and pbench keeps an ignored SIGINT
# ignored (as nohup expects): the jobs that are sent Ctrl-C get its default back first.
PBI="env --default-signal=INT $PB"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0 retried=0

ok() { pass=$((pass + 1)); echo "ok $1"; }
# ok_after TRIES WHAT: a pass on try TRIES of a retry loop. Passed on a later try, it says so
# ("ok WHAT (passed after 2 tries)") and is counted in the summary's "K passed after retries".
# A retry loop sets its state afresh on each try: what an earlier try saw decides nothing.
ok_after() {
	if [ "$1" -gt 1 ]; then
		retried=$((retried + 1))
		ok "$2 (passed after $1 tries)"
	else
		ok "$2"
	fi
}
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; [ -s "$T/err" ] && sed 's/^/    stderr: /' "$T/err" | head -5; }
skipped() { skip=$((skip + 1)); echo "[SKIP] $1: $2"; }

# overlong W FILE: the lines of FILE over W columns whose last word starts past W/2 (the most
# a hanging indent is), where a break would have shortened them: text wrapped at W has none.
overlong() { awk -v w="$1" 'match($0, /[^ ]+ *$/) && length($0) > w && RSTART - 1 > w / 2' "$2"; }

# run NAME EXPECTED_EXIT CMD...: stdout to $T/out, stderr to $T/err
run() {
	name=$1 want=$2
	shift 2
	LAST_WANT= LAST_SAW=
	"$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	RUN_FAILED=0
	if [ "$rc" -ne "$want" ]; then
		RUN_FAILED=1
		bad "$name" "exit $rc, want $want"
		return 1
	fi
	return 0
}
RUN_FAILED=0
# miss NAME [WHY]: the else of "if run ... && has ...; then ok ...": a failure, counted once
# (run has already counted a wrong exit status).
miss() {
	if [ "$RUN_FAILED" -eq 0 ]; then
		if [ -n "${2:-}" ]; then
			bad "$1" "$2${LAST_WANT:+ (the last check wanted $LAST_WANT; saw: $LAST_SAW)}"
		elif [ -n "$LAST_WANT" ]; then
			bad "$1" "expected $LAST_WANT; saw: $LAST_SAW"
		else
			bad "$1" "a check other than has/nothas/json failed (see the test's condition)"
		fi
		sed 's/^/    stdout: /' "$T/out" 2>/dev/null | head -8
	fi
	RUN_FAILED=0
	LAST_WANT= LAST_SAW=
}

# What the last failed check (has, nothas, json) wanted and what it saw, for miss.
LAST_WANT= LAST_SAW=
_label() {
	case "$1" in
	"$T/out") echo "stdout" ;;
	"$T/err") echo "stderr" ;;
	*) echo "${1#"$T"/}" ;;
	esac
}
# The lines of FILE nearest to what PATTERN looked for: those holding its longest literal
# word, else the file's first lines.
_nearest() {
	_w=$(printf '%s\n' "$2" | tr -c 'A-Za-z0-9_/:.=-' '\n' | awk '{ print length, $0 }' |
		sort -rn | head -n 1 | cut -d' ' -f2-)
	_n=
	[ -n "$_w" ] && _n=$(grep -F -m 3 -- "$_w" "$1" 2>/dev/null)
	if [ -n "$_n" ]; then
		printf '%s' "$_n" | awk 'NR > 1 { printf " | " } { printf "%s", substr($0, 1, 240) }'
	elif [ -s "$1" ]; then
		printf 'no line with "%s"; it begins: ' "$_w"
		head -n 2 "$1" | awk 'NR > 1 { printf " | " } { printf "%s", substr($0, 1, 160) }'
	else
		printf '%s is empty' "$(_label "$1")"
	fi
}
# has FILE PATTERN: a line of FILE matches PATTERN (grep's basic regular expression).
has() {
	grep -q -- "$2" "$1" && return 0
	LAST_WANT="a line matching '$2' in $(_label "$1")"
	LAST_SAW=$(_nearest "$1" "$2")
	return 1
}
# line N FILE PATTERN: line N of FILE matches PATTERN.
line() {
	_l=$(sed -n "$1p" "$2")
	printf '%s\n' "$_l" | grep -q -- "$3" && return 0
	LAST_WANT="line $1 of $(_label "$2") to match '$3'"
	LAST_SAW=$(printf '%s' "${_l:-(no such line)}" | cut -c 1-240)
	return 1
}
# nothas FILE PATTERN: no line of FILE matches PATTERN.
nothas() {
	_l=$(grep -m 1 -- "$2" "$1") || return 0
	LAST_WANT="no line matching '$2' in $(_label "$1")"
	LAST_SAW=$(printf '%s' "$_l" | cut -c 1-240)
	return 1
}

# usage_error NAME PATTERN ARGS...: exit 2, first stderr line is one "pbench: error:" line
usage_error() {
	name=$1 pat=$2
	shift 2
	run "$name" 2 "$PB" "$@" || return
	first=$(head -n 1 "$T/err")
	case "$first" in
	"pbench: error: "*) ;;
	*) bad "$name" "stderr does not start with 'pbench: error:': $first"; return ;;
	esac
	if [ "$(grep -c '^pbench: error:' "$T/err")" -ne 1 ]; then
		bad "$name" "more than one error line"
		return
	fi
	if ! has "$T/err" "$pat"; then
		bad "$name" "error lacks '$pat': $first"
		return
	fi
	if [ -s "$T/out" ]; then
		bad "$name" "a usage error printed results on stdout"
		return
	fi
	ok "$name"
}

# json FILE PYTHON-EXPR-ON-d [ARG...]: exits 0 if the expression is true (ARGs: sys.argv[2:]).
# When it is false, the first of its top-level "and" terms that is false is what was expected.
json() {
	_jf=$1 _je=$2
	shift 2
	_jr=$(python3 -c '
import ast, json, sys
src, path = sys.argv[1], sys.argv[2]
sys.argv = [sys.argv[0]] + sys.argv[2:]
try:
    d = json.load(open(path))
except Exception as e:
    print("valid JSON\t%s" % e); sys.exit(1)
tree = ast.parse("(" + src + "\n)", mode="eval")
terms = tree.body.values if isinstance(tree.body, ast.BoolOp) and isinstance(tree.body.op, ast.And) else [tree.body]
ns = {"json": json, "sys": sys, "d": d}  # one namespace: a name bound by := serves the later terms
for t in terms:
    code = ast.unparse(t)
    try:
        v = eval(code, ns)
    except Exception as e:
        print("%s\t%s: %s" % (code, type(e).__name__, e)); sys.exit(1)
    if not v:
        seen = "it is %r" % (v,)
        if isinstance(t, ast.Compare):
            try:
                seen = "%s is %r" % (ast.unparse(t.left), eval(ast.unparse(t.left), ns))
            except Exception:
                pass
        print("%s\t%s" % (code, seen[:300])); sys.exit(1)
' "$_je" "$_jf" "$@") && return 0
	LAST_WANT="$(printf '%s' "$_jr" | cut -f1 | cut -c 1-300) in $(_label "$_jf")"
	LAST_SAW=$(printf '%s' "$_jr" | cut -f2- | cut -c 1-300)
	return 1
}
HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1
HAVE_PMU=0
ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1 && HAVE_PMU=1
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

# finish NAME: the summary line, last; exit 1 if anything failed. "N passed, N failed, N
# skipped" is what the drivers read; the passes that needed a retry follow it (when any):
# "; K passed after retries".
finish() {
	if [ "$retried" -gt 0 ]; then
		echo "$1: $pass passed, $fail failed, $skip skipped; $retried passed after retries"
	else
		echo "$1: $pass passed, $fail failed, $skip skipped"
	fi
	[ "$fail" -eq 0 ]
}

# listening PID: wait (10 s at most) until process PID catches SIGTERM (its SigCgt), that is
# until pbench is past its start and has its handlers: the moment at which a test then sends a
# signal counts from there, not from a start that a loaded machine (an ASan build, the other
# lanes of make test, other work) can stretch past it.
listening() {
	_i=0
	while [ "$_i" -lt 100 ]; do
		_m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		[ -z "$_m" ] && return 0	# gone already
		_m=${_m#"${_m%????}"}	# the last 4 hex digits: signals 1 to 16
		[ $((0x$_m & 0x4000)) -ne 0 ] && return 0
		sleep 0.05
		_i=$((_i + 1))
	done
}

# gone PATTERN: no process whose command line matches PATTERN is left (pgrep -f).
gone() { ! pgrep -f "$1" >/dev/null 2>&1; }

# An ASan build reserves terabytes of address space: memory limits cannot be tested there.
IS_ASAN=0
case "$O" in *asan*) IS_ASAN=1 ;; esac

# build_hot DIR: DIR/libhot.so (tests/data/profile/hot.c, its hot_loop) and DIR/uses-hot N, which
# spends its time there (uses_hot.c): a function of a shared library for the profile's tests.
build_hot() {
	cc -O1 -g -fPIC -shared -o "$1/libhot.so" tests/data/profile/hot.c &&
		cc -O1 -g -o "$1/uses-hot" tests/data/profile/uses_hot.c -L"$1" -lhot \
			-Wl,-rpath,"$1"
}
