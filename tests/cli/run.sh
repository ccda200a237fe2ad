#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end tests of the built pbench binary: exit codes, messages, output formats, and that
# nothing is left behind. Usage: tests/cli/run.sh BUILD_DIR. Last line: "cli: N passed, ...".
set -u
O=${1:-build}
PB="$O/pbench"
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
	if [ "$rc" -ne "$want" ]; then
		bad "$name" "exit $rc, want $want"
		return 1
	fi
	return 0
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

json() { # json FILE PYTHON-EXPR-ON-d: exits 0 if the expression is true
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1
HAVE_PMU=0
ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1 && HAVE_PMU=1

# ---- help and version: work anywhere, no PMU needed -----------------------------------------
for c in "" list stat; do
	if run "help $c" 0 "$PB" $c -h && has "$T/out" "usage: pbench"; then ok "help '$c'"; fi
done
if run version 0 "$PB" --version && has "$T/out" "^pbench [0-9]"; then ok version; fi
usage_error "unknown command" "unknown command 'frobnicate'" frobnicate
if run "no command" 2 "$PB" && has "$T/err" "usage:"; then ok "no command shows usage"; fi
usage_error "unknown option" "unknown option '--frob'" stat --frob

# ---- bad run counts --------------------------------------------------------------------------
for r in 0 -5 abc 99999999999 1.5 ""; do
	usage_error "stat -r '$r'" "invalid run count '$r'" stat -r "$r"
done

# ---- bad event lists -------------------------------------------------------------------------
usage_error "unknown event" "unknown event 'cylces' (did you mean 'cycles'?)" stat -e cylces
usage_error "empty name" "malformed event list" stat -e task-clock,,page-faults
usage_error "trailing comma" "malformed event list" stat -e task-clock,
usage_error "duplicate event" "listed twice" stat -e task-clock,page-faults,task-clock
usage_error "same event twice" "same event as" stat -e cs,context-switches
usage_error "unbalanced pmu" "unbalanced" stat -e msr/tsc
usage_error "unknown event with command" "unknown event" stat -e nosuchevent -- true

# ---- bad commands: exit 2, and no child is started ------------------------------------------
usage_error "missing command" "command 'pbench-no-such-cmd' not found" stat -- pbench-no-such-cmd
printf 'echo hi\n' >"$T/noexec.sh"
chmod 0644 "$T/noexec.sh"
usage_error "not executable" "cannot be executed" stat -- "$T/noexec.sh"
usage_error "directory" "cannot be executed" stat -- /tmp

# ---- a counted command -----------------------------------------------------------------------
if run "stat sleep" 0 "$PB" stat -r 3 -e task-clock,context-switches,cycles -- sleep 0.01; then
	if [ "$(grep -c 'exit 0$' "$T/out")" -eq 3 ] && has "$T/out" "^summary: 3 runs"; then
		ok "stat prints 3 runs and a summary"
	else
		bad "stat sleep" "expected 3 'exit 0' runs and a summary"
	fi
	if [ "$HAVE_PMU" -eq 0 ]; then
		if has "$T/out" "cycles .*<not supported> .*ENOENT"; then
			ok "unsupported event shown with its reason, not a number"
		else
			bad "stat sleep" "cycles not reported as <not supported> with ENOENT"
		fi
	fi
fi

# A command that fails or crashes: every run is still measured and reported; exit 1.
if run "failing command" 1 "$PB" stat -r 3 -e task-clock -- sh -c 'exit 3'; then
	if [ "$(grep -c 'exit 3$' "$T/out")" -eq 3 ] && has "$T/err" "3 of 3 runs"; then
		ok "failing command reported per run"
	else
		bad "failing command" "runs not reported with 'exit 3'"
	fi
fi
if run "crashing command" 1 "$PB" stat -r 2 -e task-clock -- sh -c 'kill -SEGV $$'; then
	if [ "$(grep -c 'killed by signal 11' "$T/out")" -eq 2 ]; then
		ok "crashing command reported per run"
	else
		bad "crashing command" "runs not reported as killed by signal 11"
	fi
fi

# -q discards the command's output; without it, the output passes through.
# The marker is computed by the shell, so the command line echoed in the header cannot match.
if run "quiet" 0 "$PB" stat -q -r 1 -e task-clock -- sh -c 'echo pb-mark-$((40+2))'; then
	if has "$T/out" pb-mark-42; then bad quiet "output not discarded"; else ok "quiet"; fi
fi
if run "passthrough" 0 "$PB" stat -r 1 -e task-clock -- sh -c 'echo pb-mark-$((40+2))'; then
	if has "$T/out" pb-mark-42; then ok "passthrough"; else bad passthrough "output lost"; fi
fi

# Interrupted: the runs done so far are reported, the one cut short is not, exit 1.
"$PB" stat -r 1000 -e task-clock -- sleep 0.2 >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 1
kill -INT "$pbpid"
wait "$pbpid"
rc=$?
runs=$(grep -c 'exit 0$' "$T/out")
if [ "$rc" -eq 1 ] && has "$T/err" "interrupted after $runs of 1000 runs" && [ "$runs" -ge 2 ] &&
   ! has "$T/out" "signal"; then
	ok "interrupt reports the finished runs"
else
	bad "interrupt" "exit $rc, $runs runs"
fi
sleep 0.3
if pgrep -f 'sleep 0.2$' >/dev/null 2>&1; then bad "interrupt" "a child was left running"; fi

# ---- the built-in workload ------------------------------------------------------------------
if run "workload" 0 "$PB" stat -r 2 --iterations 1000000 -e task-clock,msr/tsc/; then
	if has "$T/out" "built-in workload 'xor' (1000000 iterations), 2 runs" &&
	   has "$T/out" "^clock: "; then
		ok "workload runs"
	else
		bad workload "header or clock line missing"
	fi
fi
usage_error "bad iterations" "invalid iteration count" stat --iterations 0
# Without an invariant TSC pbench falls back to CLOCK_MONOTONIC_RAW and says so.
if run "fallback clock" 0 env PBENCH_CLOCK=monotonic_raw "$PB" stat -r 2 --iterations 1000000 -e task-clock &&
   has "$T/out" "^clock: clock_monotonic_raw, 1000.000 MHz (ns)"; then
	ok "fallback clock is reported"
fi

# ---- JSON -----------------------------------------------------------------------------------
if [ "$HAVE_PY" -eq 1 ]; then
	if run "stat json" 0 "$PB" stat -r 2 -e task-clock,context-switches,cycles --json -- sleep 0.01; then
		if json "$T/out" 'd["schema"] == 1 and len(d["runs"]) == 2 and d["command"] == ["sleep", "0.01"]
			and all(r["counters"]["task-clock"]["value"] > 0 for r in d["runs"])
			and all(r["counters"]["context-switches"]["value"] >= 1 for r in d["runs"])
			and all(r["ns"] >= 10000000 for r in d["runs"])
			and d["summary"]["min_ns"] <= d["summary"]["median_ns"] <= d["summary"]["max_ns"]
			and d["clock"]["hz"] > 0'; then
			ok "stat json runs and counters"
		else
			bad "stat json" "schema, runs or counters wrong"
		fi
		if [ "$HAVE_PMU" -eq 0 ]; then
			if json "$T/out" 'all(r["counters"]["cycles"]["value"] is None and
				r["counters"]["cycles"]["status"] == "not-supported" and
				"ENOENT" in r["counters"]["cycles"]["reason"] for r in d["runs"])'; then
				ok "uncounted event is null in json"
			else
				bad "stat json" "cycles not null/not-supported"
			fi
		fi
	fi
	if run "stat json file" 0 "$PB" stat -r 1 -e task-clock --json="$T/o.json" -- true &&
	   json "$T/o.json" 'd["schema"] == 1' && has "$T/out" "^summary:"; then
		ok "stat json to a file, text on stdout"
	fi
	if run "list json" 0 "$PB" list --json &&
	   json "$T/out" 'd["schema"] == 1 and any(e["name"] == "task-clock" and e["status"] == "ok" for e in d["events"])
		and all(e["reason"] for e in d["events"] if e["status"] != "ok")'; then
		ok "list json"
	fi
else
	skipped "json" "python3 is not installed: the JSON checks need it"
fi

# ---- list ---------------------------------------------------------------------------------
if run "list" 0 "$PB" list && has "$T/out" "^software events:" &&
   has "$T/out" "task-clock  *ok"; then
	ok "list"
fi
if run "list all" 0 "$PB" list --all; then
	n1=$("$PB" list | wc -l)
	n2=$(wc -l <"$T/out")
	if [ "$n2" -ge "$n1" ]; then ok "list --all"; else bad "list --all" "shorter than list"; fi
fi
usage_error "list extra arg" "unexpected argument" list foo

# ---- analyze ----------------------------------------------------------------------------
seq 1 10 >"$T/a.txt"
seq 3 12 >"$T/b.txt"
# Reference: scipy.stats.ttest_ind(range(1,11), range(3,13), equal_var=False) -> t -1.4771, p 0.1569
if run "analyze two files" 0 "$PB" analyze "$T/a.txt" "$T/b.txt" &&
   has "$T/out" "t = -1.477, df = 18.0, p = 0.157" && has "$T/out" "^verdict: undecided"; then
	ok "analyze compares two inputs (Welch as scipy)"
fi
if run "analyze stdin" 0 sh -c "seq 1 10 | $PB analyze" && has "$T/out" "mean          5.50 ± 0.96"; then
	ok "analyze reads stdin, value with the error's digits"
fi
printf '\n# a comment\n1\n2\nzz\n' >"$T/bad.txt"
usage_error "analyze non-number" "bad.txt:5: 'zz' is not a number" analyze "$T/bad.txt"
printf '1\nnan\n' >"$T/nan.txt"
usage_error "analyze nan" "nan.txt:2: 'nan' is not a finite number" analyze "$T/nan.txt"
: >"$T/empty.txt"
usage_error "analyze empty" "empty.txt: no samples" analyze "$T/empty.txt"
echo 5 >"$T/one.txt"
usage_error "analyze single" "a single sample" analyze "$T/one.txt"
usage_error "analyze missing file" "cannot open" analyze "$T/nonexistent"
# hyperfine and Google Benchmark JSON, in their own units (s and us) -> ns
printf '{"results":[{"command":"sleep 0.1","times":[0.1012,0.1009,0.1011]},{"command":"sleep 0.2","times":[0.2010,0.2012,0.2011]}]}' >"$T/hf.json"
if run "analyze hyperfine" 0 "$PB" analyze "$T/hf.json" && has "$T/out" "^sleep 0.1: 3 samples" &&
   has "$T/out" "mean          101.07 ± 0.09 ms" && has "$T/out" "^sleep 0.1 vs sleep 0.2:"; then
	ok "analyze hyperfine json"
fi
printf '{"context":{},"benchmarks":[{"name":"BM_x","run_name":"BM_x","run_type":"iteration","real_time":10.5,"time_unit":"us"},{"name":"BM_x","run_name":"BM_x","run_type":"iteration","real_time":10.7,"time_unit":"us"},{"name":"BM_x_mean","run_name":"BM_x","run_type":"aggregate","real_time":10.6,"time_unit":"us"}]}' >"$T/gb.json"
if run "analyze gbench" 0 "$PB" analyze "$T/gb.json" && has "$T/out" "^BM_x: 2 samples" &&
   has "$T/out" "mean          10.60 ± 0.10 us"; then
	ok "analyze Google Benchmark json (aggregates skipped)"
fi
if [ "$HAVE_PY" -eq 1 ] && run "analyze json" 0 "$PB" analyze --json "$T/a.txt" "$T/b.txt" &&
   json "$T/out" 'd["schema"] == 1 and len(d["inputs"]) == 2 and d["inputs"][0]["n"] == 10 and
	abs(d["comparison"]["welch_p"] - 0.15689) < 1e-4 and d["comparison"]["verdict"] == "undecided"'; then
	ok "analyze json"
fi

# ---- check -------------------------------------------------------------------------------
for c in 99 1-0 x "" 0,,1; do
	usage_error "check --cpu '$c'" "invalid CPU list '$c' for --cpu" check --cpu "$c"
done
if has "$T/err" "present CPUs are [0-9]"; then ok "check names the present CPUs"; else bad "check --cpu" "no range"; fi
usage_error "check extra arg" "unexpected argument" check foo
if run "check" 0 "$PB" check && has "$T/out" "^pbench check: CPU [0-9]" &&
   has "$T/out" "^summary: [0-9]* ok, [0-9]* warn, [0-9]* bad, [0-9]* info, [0-9]* unknown: [a-z]*$"; then
	ok "check text"
fi
if [ "$HAVE_PY" -eq 1 ] && run "check json" 0 "$PB" check --cpu 0 --json &&
   json "$T/out" 'd["schema"] == 1 and d["cpus"] == [0] and d["cpu_pick_reason"] is None and
	sum(d["summary"].values()) == len(d["checks"]) and d["verdict"] in ("ready", "noisy", "unfit")'; then
	ok "check json"
fi

# On recorded trees: the tuned server is ready on its isolated CPU, the laptop is not.
shift_tree() { t=$1; shift; env PBENCH_SYSFS_ROOT="tests/fixtures/$t/sys" PBENCH_PROCFS_ROOT="tests/fixtures/$t/proc" "$PB" check "$@"; }
if run "check tuned-server" 0 shift_tree tuned-server --strict &&
   has "$T/out" "^pbench check: CPU 2 (CPU 2 is isolated" &&
   has "$T/out" "^  ok      isolation.nohz_full" && has "$T/out" ": ready$"; then
	ok "check on the tuned server tree: CPU 2, ready, --strict passes"
fi
if run "check laptop strict" 1 shift_tree intel-laptop --strict &&
   has "$T/out" "^  warn    power.ac .*on battery" && has "$T/out" "fix: "; then
	ok "check --strict fails on the laptop tree, with fixes"
fi
if [ "$HAVE_PY" -eq 1 ]; then
	ids="cpufreq.governor cpufreq.min_max cpufreq.epp cpufreq.turbo thermal.throttle power.ac
	     cpuidle.states smt.active smt.sibling isolation.isolcpus isolation.nohz_full
	     isolation.rcu_nocbs irq.affinity sched.rt_throttling sched.load sched.timer_migration
	     vm.stat_interval kernel.nmi_watchdog kernel.watchdog_cpumask kernel.numa_balancing
	     mem.thp mem.ksm mem.swap mem.numa_local aslr limits.rtprio limits.memlock caps.sys_nice
	     clock.source clock.tsc perf.paranoid perf.rdpmc perf.pmu perf.max_sample_rate
	     virt.hypervisor virt.steal cgroup.cpu_quota cgroup.cpuset"
	for t in vm-kvm-2cpu intel-laptop amd-workstation tuned-server container-quota; do
		if run "check json $t" 0 shift_tree "$t" --json --cpu 1 &&
		   IDS="$ids" json "$T/out" 'set(__import__("os").environ["IDS"].split()) == {c["id"] for c in d["checks"]}
			and all(c["why"] and c["fix"] for c in d["checks"] if c["status"] in ("warn", "bad"))
			and sum(d["summary"].values()) == len(d["checks"])'; then
			ok "check json on $t: all 38 checks, every warn/bad with why and fix"
		fi
	done
	if run "container json" 0 shift_tree container-quota --json --cpu 1 &&
	   json "$T/out" 'any(c["id"] == "cgroup.cpu_quota" and c["status"] == "bad" for c in d["checks"]) and d["verdict"] == "unfit"'; then
		ok "check finds the container's CPU quota"
	fi
fi

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
	grep 'PBENCH_API' lib/include/pbench.h | grep -o 'pbench_[a-z0-9_]*(' | tr -d '(' |
		sort -u >"$T/declared"
	stray=$(grep -v '^pbench_' "$T/exported")
	undeclared=$(comm -23 "$T/exported" "$T/declared")
	missing=$(comm -13 "$T/exported" "$T/declared")
	if [ -z "$stray" ] && [ -z "$undeclared" ] && [ -z "$missing" ]; then
		ok "exports are exactly the pbench_ functions of pbench.h"
	else
		bad "exports" "stray: $stray; not in pbench.h: $undeclared; not exported: $missing"
	fi
	if readelf -d "$O/libpbench.so" | grep -q 'SONAME.*libpbench.so.0'; then
		ok "soname"
	else
		bad soname "no libpbench.so.0 soname"
	fi
else
	skipped "exports" "nm or the shared library is missing"
fi

echo "cli: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
