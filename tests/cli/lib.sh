# SPDX-License-Identifier: MIT
# Shared by the end-to-end test scripts (tests/cli/t_*.sh, tests/faults/run.sh): a scratch
# directory, counters, and checks whose failures say what was expected. Source it after
# setting O (the build directory); it sets PB, PBI, T, HAVE_PY, HAVE_PMU and NCPU.
#
# Every check counts once, whichever way it goes:
#   if run NAME 0 "$PB" ARGS && has "$T/out" PATTERN; then ok "WHAT"; else miss NAME; fi
# (run counts a wrong exit status itself; miss counts a missing output). A script ends with
# `finish NAME`, which prints the "NAME: N passed, N failed, N skipped" line a driver reads.
PB="$O/pbench"
# A background job of a script starts with SIGINT ignored, and pbench keeps an ignored SIGINT
# ignored (as nohup expects): the jobs that are sent Ctrl-C get its default back first.
PBI="env --default-signal=INT $PB"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; [ -s "$T/err" ] && sed 's/^/    stderr: /' "$T/err" | head -5; }
skipped() { skip=$((skip + 1)); echo "[SKIP] $1: $2"; }

# run NAME EXPECTED_EXIT CMD...: stdout to $T/out, stderr to $T/err
run() {
	name=$1 want=$2
	shift 2
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
		bad "$1" "${2:-the output lacks what was expected}"
		sed 's/^/    stdout: /' "$T/out" 2>/dev/null | head -8
	fi
	RUN_FAILED=0
}
has() { grep -q -- "$2" "$1"; }

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

json() { # json FILE PYTHON-EXPR-ON-d [ARG...]: exits 0 if the expression is true (ARGs: sys.argv[2:])
	_jf=$1 _je=$2
	shift 2
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($_je) else 1)" "$_jf" "$@"
}
HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1
HAVE_PMU=0
ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1 && HAVE_PMU=1
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

# finish NAME: the summary line, last; exit 1 if anything failed.
finish() {
	echo "$1: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
}

# gone PATTERN: no process whose command line matches PATTERN is left (pgrep -f).
gone() { ! pgrep -f "$1" >/dev/null 2>&1; }

# An ASan build reserves terabytes of address space: memory limits cannot be tested there.
IS_ASAN=0
case "$O" in *asan*) IS_ASAN=1 ;; esac
