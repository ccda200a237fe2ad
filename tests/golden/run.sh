#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden outputs: pbench on recorded inputs, every output compared byte for byte with the one
# recorded in tests/golden/expected/. Issue 22 asks that the text, JSON, CSV and Markdown of
# every command stay byte-identical across a refactoring; this is the test that says so.
# Usage: tests/golden/run.sh BUILD_DIR (from the top of the tree). Last line:
# "golden: N passed, N failed, N skipped". Runs in a few seconds: nothing here measures.
#
# Each case is one run of pbench: CASE.out is its stdout, byte for byte; CASE.err is its
# stderr followed by one line "[exit N]" with its exit status. A difference prints the case,
# its command and the first lines of diff -u, and counts one failure.
#
# What is recorded (inputs in tests/golden/inputs/ and tests/data/, machines in tests/fixtures/):
#   - pbench analyze on plain numbers (also -u ms, stdin), pbench stat JSON of each mode
#     (unprepared, prepared, contrast, a command), a pbench compare JSON, the library's result
#     and function comparison JSON (kmod-free-docs/examples/time_function and compare --json),
#     hyperfine and Google Benchmark JSON, inputs compared, in text, --json and --markdown
#     (and their --export-* files), wrapped at COLUMNS=60, with its warnings and refusals;
#   - pbench check on every recorded machine tree, text, --json and --strict, --cpu;
#   - pbench --help, -h and 'help CMD' of every command 'pbench -h' lists, --version;
#   - usage errors of every command (stderr and exit status 2, before anything runs);
#   - pbench list: only what does not depend on this machine (its warning about the trees,
#     its usage errors): what it lists is this machine's PMU.
# Not recorded, because no mode of theirs reads recorded input: pbench stat, compare and
# jitter measure the live machine (compare --baseline reads a file but still runs commands),
# so only their -h and usage errors are here. No command prints CSV from recorded input
# (analyze and check have no CSV; stat's and compare's are of live runs).
#
# Normalized, and nothing else (norm() below; both sides go through it):
#   - pbench's version (from 'pbench --version'), wherever it is printed, as <version>;
#   - the values of the JSON "host" block (hostname, kernel, arch, CPU model, CPU counts and
#     the date of the run: this machine, now), as "<host>" (the keys stay);
#   - the scratch directory of this run (mktemp), as <tmp>.
#
# Re-recording: tests/golden/record.sh BUILD_DIR, only when a change of output is on purpose;
# the commit says which output changed and why. A case with no recorded file fails and says so.
set -u
O=${1:-build}
. tests/cli/lib.sh
G=tests/golden
I=$G/inputs
E=$G/expected
RECORD=${GOLDEN_RECORD:-0}
unset PBENCH_DEBUG PBENCH_CLOCK NO_COLOR PBENCH_SYSFS_ROOT PBENCH_PROCFS_ROOT PBENCH_MEM_SHIM

VER=$("$PB" --version 2>/dev/null | sed -n 's/^pbench //p')
if [ -z "$VER" ]; then
	echo "FAIL golden: '$PB --version' printed no version: is $O built?"
	echo "golden: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
VER_RE=$(printf '%s' "$VER" | sed 's/[].[*^$\\/]/\\&/g')
T_RE=$(printf '%s' "$T" | sed 's/[].[*^$\\|]/\\&/g')

# norm FILE...: the three substitutions the header lists, in place (sed -i: each file on its
# own, one process for all).
norm() {
	sed -i -e "s|$T_RE|<tmp>|g" -e "s/$VER_RE/<version>/g" \
	    -e '/^ *"host": {$/,/^ *}/{
		/{$/b
		/^ *},\{0,1\}$/b
		s/^\( *"[a-z_]*": \).*[^,]\(,\{0,1\}\)$/\1"<host>"\2/
	}' "$@"
}

# gbad CASE WHY: a failure (lib.sh's bad would add the case's stderr, which the diff shows).
gbad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
# c CASE CMD...: run CMD (stdin /dev/null), compare (or record) its stdout and stderr+exit.
c() {
	name=$1
	shift
	"$@" >"$T/out" 2>"$T/err" </dev/null
	echo "[exit $?]" >>"$T/err"
	norm "$T/out" "$T/err"
	if [ "$RECORD" = 1 ]; then
		cp "$T/out" "$E/$name.out" && cp "$T/err" "$E/$name.err" && ok "$name (recorded)"
		return
	fi
	if [ ! -f "$E/$name.out" ] || [ ! -f "$E/$name.err" ]; then
		gbad "$name" "no recorded output ($E/$name.out, .err): a new case is recorded by tests/golden/record.sh"
		return
	fi
	for s in out err; do
		if ! cmp -s "$E/$name.$s" "$T/$s"; then
			gbad "$name" "the $( [ $s = out ] && echo stdout || echo 'stderr or exit status') differs from $E/$name.$s; command: $*"
			diff -u "$E/$name.$s" "$T/$s" | sed -n '3,24s/^/    /p'
			return
		fi
	done
	ok "$name"
}
# The helpers a case's CMD may start with.
pb() { "$PB" "$@"; }
# tree NAME CMD...: pbench reads the recorded /sys and /proc of tests/fixtures/NAME.
tree() {
	(PBENCH_SYSFS_ROOT="tests/fixtures/$1/sys" PBENCH_PROCFS_ROOT="tests/fixtures/$1/proc"
	 export PBENCH_SYSFS_ROOT PBENCH_PROCFS_ROOT
	 shift
	 "$@")
}
# from FILE CMD...: CMD's stdin is FILE.
from() { _f=$1; shift; "$@" <"$_f"; }
# cols N CMD...: as on a terminal N columns wide.
cols() { (COLUMNS=$1; export COLUMNS; shift; "$@"); }
# exported FILE CMD...: run CMD, then print "==== FILE ====" and FILE (an --export-* output).
exported() { _f=$1; shift; "$@"; _r=$?; echo "==== $(basename "$_f") ===="; cat "$_f"; rm -f "$_f"; return $_r; }
# noout CMD...: only CMD's stderr and status (its stdout is this machine's).
noout() { "$@" >/dev/null; }

[ "$RECORD" = 1 ] && mkdir -p "$E"

# ---- pbench, its help ---------------------------------------------------------------------
c top-help pb --help
c top-h pb -h
c top-help-cmd pb help
c top-version pb --version
c top-noargs pb
c top-unknown pb anlyze
c top-unknown-option pb --bogus
c top-help-unknown pb help nosuch
cmds=$("$PB" -h | sed -n '/^commands:/,/^$/s/^  \([a-z]*\)  .*/\1/p')
if [ -z "$cmds" ]; then
	bad "commands" "'pbench -h' listed no command (expected a 'commands:' block)"
fi
for cmd in $cmds; do
	c "$cmd-h" pb "$cmd" -h
	c "$cmd-help" pb help "$cmd"
	c "$cmd-bogus-option" pb "$cmd" --bogus
done

# ---- usage errors -------------------------------------------------------------------------
c analyze-err-number pb analyze "$I/bad-number.txt"
c analyze-err-nan pb analyze "$I/bad-nan.txt"
c analyze-err-empty pb analyze "$I/bad-empty.txt"
c analyze-err-single pb analyze "$I/bad-single.txt"
c analyze-err-missing pb analyze "$I/nonexistent.txt"
c analyze-err-subnormal pb analyze "$I/bad-subnormal.json"
c analyze-err-negative pb analyze "$I/bad-negative.json"
c analyze-err-negative-ms pb analyze -u ms "$I/bad-negative.txt"
c analyze-err-two-formats pb analyze --json --markdown "$I/plain-a.txt"
c analyze-err-unit-missing pb analyze "$I/plain-a.txt" --unit
# (the message names the present CPUs: those of a recorded machine)
c check-err-cpu tree tuned-server pb check --cpu x
c check-err-cpu-range tree tuned-server pb check --cpu 3-1
c check-err-extra pb check extra
c check-err-csv pb check --csv
c compare-err-none pb compare
c compare-err-one pb compare true
c compare-err-confidence pb compare --confidence 200 true false
c compare-err-max-runs pb compare --max-runs 0 true false
c compare-err-order pb compare --order sideways true false
c compare-err-mode pb compare --mode preparde true false
c compare-err-workload pb compare --workload nosuch --iterations 1 --iterations 2
c compare-err-name pb compare -n a -n b -n c true false
c jitter-err-duration pb jitter --duration -1
c jitter-err-threshold pb jitter --threshold x
# (the message names the CPUs pbench may run on: CPU 0 alone, under taskset)
if command -v taskset >/dev/null 2>&1; then
	c jitter-err-cpu taskset -c 0 "$PB" jitter --cpu x
else
	skipped jitter-err-cpu "taskset (util-linux) is not installed: the CPUs pbench may run on are this machine's"
fi
c jitter-err-extra pb jitter extra
c list-err-extra pb list extra
c list-err-csv pb list --csv
c stat-err-runs pb stat -r 0
c stat-err-mode pb stat --mode preparde
c stat-err-workload pb stat --workload xro
c stat-err-iterations pb stat --iterations 0
c stat-err-sem pb stat --target-sem -1
c stat-err-timeout pb stat --timeout x -- true
c stat-err-memory pb stat --memory=0 -- true

# ---- pbench list: only its words about the trees (what it lists is this machine's) ---------
c list-tree-warning noout env PBENCH_SYSFS_ROOT=/nonexistent "$PB" list
c list-tree-warning-60 noout env COLUMNS=60 PBENCH_SYSFS_ROOT=/nonexistent "$PB" list

# ---- pbench analyze -------------------------------------------------------------------------
for f in '' --json --markdown; do
	sfx=${f#--}
	sfx=${sfx:-text}
	c "analyze-plain-$sfx" pb analyze $f "$I/plain-a.txt"
	c "analyze-plain2-$sfx" pb analyze $f "$I/plain-a.txt" "$I/plain-b.txt"
	c "analyze-ms-$sfx" pb analyze $f -u ms "$I/plain-a.txt" "$I/plain-b.txt"
	c "analyze-label-$sfx" pb analyze $f --unit furlongs "$I/plain-a.txt" "$I/plain-b.txt"
	c "analyze-stat-$sfx" pb analyze $f "$I/stat-unprepared.json" "$I/stat-prepared.json"
	c "analyze-contrast-$sfx" pb analyze $f "$I/stat-contrast.json"
	c "analyze-command-$sfx" pb analyze $f "$I/stat-command.json"
	c "analyze-compare-$sfx" pb analyze $f "$I/compare.json"
	c "analyze-result-$sfx" pb analyze $f "$I/result.json"
	c "analyze-function-compare-$sfx" pb analyze $f "$I/function-compare.json"
	c "analyze-result-and-comparison-$sfx" pb analyze $f "$I/result.json" "$I/function-compare.json"
	c "analyze-hyperfine-$sfx" pb analyze $f "$I/hyperfine.json"
	c "analyze-gbench-$sfx" pb analyze $f "$I/gbench.json"
	c "analyze-gbench-hyperfine-$sfx" pb analyze $f "$I/gbench.json" "$I/hyperfine.json"
	c "analyze-units-differ-$sfx" pb analyze $f "$I/hyperfine.json" "$I/plain-a.txt"
	c "analyze-aa-$sfx" pb analyze $f tests/data/aa-a.txt tests/data/aa-b.txt
	c "analyze-ab-$sfx" pb analyze $f tests/data/aa-a.txt tests/data/ab-b.txt
	c "analyze-aa-same-$sfx" pb analyze $f tests/data/aa-same-a.txt tests/data/aa-same-b.txt
	c "analyze-constant-$sfx" pb analyze $f "$I/constant-5.txt" "$I/constant-5.txt"
	c "analyze-escapes-$sfx" pb analyze $f "$I/escapes.json"
	c "analyze-unknown-schema-$sfx" pb analyze $f "$I/schema99.json" "$I/newer.json"
	c "analyze-stdin-$sfx" from "$I/plain-b.txt" pb analyze $f
	c "analyze-stdin-dash-$sfx" from "$I/plain-b.txt" pb analyze $f "$I/plain-a.txt" -
done
c analyze-cols60 cols 60 pb analyze "$I/plain-a.txt" "$I/plain-b.txt" "$I/hyperfine.json"
c analyze-cols60-contrast cols 60 pb analyze "$I/stat-contrast.json"
c analyze-cols0 cols 0 pb analyze "$I/gbench.json"
c analyze-export-json exported "$T/x.json" pb analyze "$I/hyperfine.json" --export-json "$T/x.json"
c analyze-json-eq exported "$T/x.json" pb analyze "$I/plain-a.txt" "$I/plain-b.txt" --json="$T/x.json"
c analyze-export-markdown exported "$T/x.md" pb analyze "$I/gbench.json" --export-markdown "$T/x.md"
c analyze-after-dashdash pb analyze -- "$I/plain-a.txt"

# ---- pbench check on the recorded machines ---------------------------------------------------
for m in vm-kvm-2cpu vm-amd-epyc intel-laptop amd-workstation tuned-server container-quota; do
	c "check-$m-text" tree "$m" pb check
	c "check-$m-json" tree "$m" pb check --json
	c "check-$m-strict" tree "$m" noout "$PB" check --strict
done
c check-tuned-server-cpus tree tuned-server pb check --cpu 2-3
c check-tuned-server-cpu0 tree tuned-server pb check --cpu 0 --json
c check-intel-laptop-cpu tree intel-laptop pb check -c 5
c check-amd-workstation-list tree amd-workstation pb check --cpu 1,17
c check-cols60 tree intel-laptop cols 60 pb check
c check-export-json tree container-quota exported "$T/c.json" "$PB" check --export-json "$T/c.json"
c check-cpu-offline tree vm-kvm-2cpu pb check --cpu 7
c check-missing-tree env PBENCH_SYSFS_ROOT=/nonexistent PBENCH_PROCFS_ROOT=/nonexistent "$PB" check

finish golden
