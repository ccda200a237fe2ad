#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench check: CPU lists, text and JSON, and the recorded trees of other machines.
# Usage: tests/cli/t_check.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/check: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- check -------------------------------------------------------------------------------
for c in 1-0 x "" 0,,1; do
	usage_error "check --cpu '$c'" "invalid CPU list '$c' for --cpu" check --cpu "$c"
done
if has "$T/err" "present CPUs are [0-9]"; then ok "check names the present CPUs"; else bad "check --cpu" "no range"; fi
usage_error "check --cpu 99" "CPU 99 given to --cpu is not present: present CPUs are [0-9]" check --cpu 99
usage_error "check extra arg" "unexpected argument" check foo
# One live run gives the text and, through --json=FILE, the speed group's JSON below (a live
# check takes seconds: a 200 ms window, then the speed probes).
if run "check" 0 "$PB" check --json="$T/live.json" && has "$T/out" "^pbench check: CPU [0-9]" &&
   has "$T/out" "^summary: [0-9]* ok, [0-9]* warn, [0-9]* bad, [0-9]* info, [0-9]* unknown: [a-z]*$"; then
	ok "check text"
else
	miss "check"
fi
if [ "$HAVE_PY" -eq 1 ]; then
	if run "check json" 0 "$PB" check --cpu 0 --json &&
	   json "$T/out" 'd["schema"] == 2 and d["cpus"] == [0] and d["cpu_pick_reason"] is None and
		sum(d["summary"].values()) == len(d["checks"]) and d["verdict"] in ("ready", "noisy", "unfit")'; then
		ok "check json"
	else
		miss "check json"
	fi
fi

# The speed group is measured live: the stability and co-location probes of the target CPU.
if [ "$HAVE_PY" -eq 1 ]; then
	if [ -s "$T/live.json" ] &&
	   json "$T/live.json" '[c["id"] for c in d["checks"] if c["group"] == "speed"] == ["speed.stability", "speed.colocation"] and
		all(c["cpu"] == d["cpus"][0] and ("measured live" in c["value"] or c["status"] in ("unknown", "info"))
		    for c in d["checks"] if c["group"] == "speed")'; then
		ok "check: the target CPU's speed stability and co-location, measured live"
	else
		miss "check speed"
	fi
fi

# On recorded trees: the tuned server is ready on its isolated CPU, the laptop is not.
shift_tree() { t=$1; shift; env PBENCH_SYSFS_ROOT="tests/fixtures/$t/sys" PBENCH_PROCFS_ROOT="tests/fixtures/$t/proc" "$PB" check "$@"; }
if run "check tuned-server" 0 shift_tree tuned-server --strict &&
   has "$T/out" "^pbench check: CPU 2 (CPU 2 is isolated" &&
   has "$T/out" "^  ok      isolation.nohz_full" && has "$T/out" ": ready$"; then
	ok "check on the tuned server tree: CPU 2, ready, --strict passes"
else
	miss "check tuned-server"
fi
if run "check laptop strict" 1 shift_tree intel-laptop --strict &&
   has "$T/out" "^  warn    power.ac .*on battery" && has "$T/out" "fix: "; then
	ok "check --strict fails on the laptop tree, with fixes"
else
	miss "check laptop strict"
fi
# The AMD trees: a KVM guest (recorded) and a bare-metal Zen 3 host (reconstructed).
if run "check amd vm" 0 shift_tree vm-amd-epyc --cpu 1 &&
   has "$T/out" "^  warn    virt.hypervisor  *virtual machine: hypervisor flag" &&
   has "$T/out" "^  info    cpufreq.governor  *no cpufreq: frequency is controlled elsewhere" &&
   has "$T/out" "^  info    cpuidle.states  *driver none: no idle states for CPU 1" &&
   has "$T/out" "^  info    clock.source  *kvm-clock (available: kvm-clock)$" &&
   has "$T/out" "^  info    smt.active  *not supported" &&
   has "$T/out" "^  warn    perf.pmu  *no cpu PMU in /sys/bus/event_source/devices" &&
   nothas "$T/out" "echo tsc | sudo tee"; then
	ok "check on the AMD VM tree: a VM, no cpufreq, no idle driver, kvm-clock with no TSC to switch to, no PMU"
else
	miss "check amd vm"
fi
if run "check amd host" 0 shift_tree amd-workstation --cpu 1 &&
   has "$T/out" "^  ok      virt.hypervisor  *bare metal" &&
   has "$T/out" "^  warn    smt.active  *on (smt/control on, smt/active 1)" &&
   has "$T/out" "^  ok      smt.sibling  *CPU 17 online" &&
   has "$T/out" "^  warn    cpufreq.governor  *schedutil (acpi-cpufreq)" &&
   has "$T/out" "^  warn    cpufreq.turbo  *on (cpufreq/boost 1)" &&
   has "$T/out" "^  ok      perf.pmu  *cpu PMU (type 4)$" && nothas "$T/out" "virtual machine"; then
	ok "check on the AMD Zen 3 host tree: bare metal, SMT on, acpi-cpufreq with boost, a cpu PMU"
else
	miss "check amd host"
fi
if [ "$HAVE_PY" -eq 1 ]; then
	ids="cpufreq.governor cpufreq.min_max cpufreq.epp cpufreq.turbo thermal.throttle power.ac
	     cpuidle.states smt.active smt.sibling isolation.isolcpus isolation.nohz_full
	     isolation.rcu_nocbs irq.affinity sched.rt_throttling sched.load sched.timer_migration
	     vm.stat_interval kernel.nmi_watchdog kernel.watchdog_cpumask kernel.numa_balancing
	     mem.thp mem.ksm mem.swap mem.numa_local aslr limits.rtprio limits.memlock caps.sys_nice
	     clock.source clock.tsc perf.paranoid perf.rdpmc perf.pmu perf.max_sample_rate
	     virt.hypervisor virt.steal cgroup.cpu_quota cgroup.cpuset"
	for t in vm-kvm-2cpu vm-amd-epyc intel-laptop amd-workstation tuned-server container-quota; do
		if run "check json $t" 0 shift_tree "$t" --json --cpu 1 &&
		   IDS="$ids" json "$T/out" 'set(__import__("os").environ["IDS"].split()) == {c["id"] for c in d["checks"]}
			and all(c["why"] and c["fix"] for c in d["checks"] if c["status"] in ("warn", "bad"))
			and sum(d["summary"].values()) == len(d["checks"])'; then
			ok "check json on $t: all 38 checks, every warn/bad with why and fix"
		else
			miss "check json $t"
		fi
	done
	if run "container json" 0 shift_tree container-quota --json --cpu 1 &&
	   json "$T/out" 'any(c["id"] == "cgroup.cpu_quota" and c["status"] == "bad" for c in d["checks"]) and d["verdict"] == "unfit"'; then
		ok "check finds the container's CPU quota"
	else
		miss "container json"
	fi
else
	skipped "check json" "python3 is not installed: the JSON checks need it"
fi

# ---- fixes that can apply here, and only those ----------------------------------------------
# A recorded tree says nothing of its machine's /etc: no /etc/default/grub named for it; a
# RHEL kernel gets grubby; no nohz_full for the boot CPU; nohz_full only where the kernel was
# built with CONFIG_NO_HZ_FULL (it has /sys/devices/system/cpu/nohz_full).
if [ "$HAVE_PY" -eq 1 ]; then
	for t in vm-kvm-2cpu vm-amd-epyc intel-laptop amd-workstation tuned-server container-quota; do
		for cpu in 0 1; do
			shift_tree "$t" --json --cpu "$cpu" >"$T/fx.json" 2>/dev/null
			if json "$T/fx.json" 'all("/etc/default/grub" not in (c["fix"] or "") and
				"nohz_full=0" not in (c["fix"] or "") for c in d["checks"])'; then
				ok "$t CPU $cpu: no fix names /etc/default/grub or nohz_full=0"
			else
				bad "fixes on $t CPU $cpu" "$(grep -o '"fix": "[^"]*\(grub\|nohz_full=0\)[^"]*"' "$T/fx.json" | head -2)"
			fi
		done
	done
	shift_tree vm-kvm-2cpu --json --cpu 1 >"$T/fx.json"
	if json "$T/fx.json" '[c for c in d["checks"] if c["id"] == "isolation.isolcpus"][0]["fix"].startswith(
		"add \"isolcpus=1\" to the kernel command line of your boot loader") and
		"this kernel has no tickless mode" in [c for c in d["checks"] if c["id"] == "isolation.nohz_full"][0]["fix"] and
		d["tree"]["sysfs_root"] == "tests/fixtures/vm-kvm-2cpu/sys"'; then
		ok "the VM's tree: the boot loader in general, no tickless mode in this kernel"
	else
		miss "vm fixes"
	fi
	shift_tree vm-kvm-2cpu --json --cpu 0 >"$T/fx.json"
	if json "$T/fx.json" '[c for c in d["checks"] if c["id"] == "isolation.nohz_full"][0]["fix"].startswith(
		"CPU 0 keeps the tick for timekeeping")'; then
		ok "CPU 0: measure on another CPU, not nohz_full=0"
	else
		miss "cpu 0 nohz"
	fi
	shift_tree tuned-server --json --cpu 1 >"$T/fx.json"
	if json "$T/fx.json" '[c for c in d["checks"] if c["id"] == "isolation.nohz_full"][0]["fix"] ==
		"sudo grubby --update-kernel=ALL --args=\"nohz_full=1-3\", then reboot"'; then
		ok "a RHEL kernel: grubby"
	else
		miss "rhel grubby"
	fi
	# The live machine: /etc/default/grub named exactly where it exists.
	# CPU 1 where there is one (the fixes differ for CPU 0); a 1-CPU machine has only CPU 0.
	live_cpu=1
	[ "$NCPU" -ge 2 ] || live_cpu=0
	run "check live json" 0 "$PB" check --json --cpu "$live_cpu"
	g=0
	[ -e /etc/default/grub ] && g=1
	if G=$g json "$T/out" '(lambda fixes: not any("kernel command line" in f or "GRUB_CMDLINE" in f for f in fixes) or
		any("/etc/default/grub" in f for f in fixes) == (__import__("os").environ["G"] == "1"))(
		[c["fix"] or "" for c in d["checks"]])'; then
		ok "live: /etc/default/grub named only if it exists (here: $([ $g = 1 ] && echo yes || echo no))"
	else
		miss "live grub"
	fi
fi

# ---- wrapping at the terminal's width (COLUMNS stands in for a terminal) -------------------
laptop() { env PBENCH_SYSFS_ROOT=tests/fixtures/intel-laptop/sys PBENCH_PROCFS_ROOT=tests/fixtures/intel-laptop/proc "$@"; }
if run "check unwrapped" 0 laptop env -u COLUMNS "$PB" check && cp "$T/out" "$T/flat" &&
   has "$T/out" "^          why: in intel_pstate active mode powersave lets the CPU pick its clock between 400 and 4600 MHz from the load" &&
   has "$T/out" "^          fix: echo performance | sudo tee /sys/devices/system/cpu/cpufreq/policy1/scaling_governor (all CPUs" &&
   [ -n "$(overlong 80 "$T/out")" ]; then
	ok "check: a pipe without COLUMNS gets one line per finding, why and fix"
else
	miss "check unwrapped"
fi
if run "check COLUMNS=0" 0 laptop env COLUMNS=0 "$PB" check && cmp -s "$T/out" "$T/flat"; then
	ok "check: COLUMNS=0 does not wrap"
else
	miss "check COLUMNS=0" "the text differs from the unwrapped one"
fi
for w in 80 60; do
	why="in intel_pstate active mode powersave lets the CPU pick its clock"	# 80: 77 columns
	[ $w -eq 60 ] && why="in intel_pstate active mode powersave lets"	# the next word: 61
	if run "check COLUMNS=$w" 0 laptop env COLUMNS=$w "$PB" check &&
	   [ -z "$(overlong $w "$T/out")" ] &&
	   has "$T/out" "^          why: $why$" &&
	   has "$T/out" "^               /sys/devices/system/cpu/cpufreq/policy1/scaling_governor" &&
	   has "$T/out" "^  warn    cpufreq.governor         powersave (intel_pstate" &&
	   has "$T/out" "^                              *[a-z(]" &&
	   [ "$(grep -c '^  *why: ' "$T/out")" -eq "$(grep -c '^  *why: ' "$T/flat")" ] &&
	   [ "$(tr -s ' \n' '  ' <"$T/out")" = "$(tr -s ' \n' '  ' <"$T/flat")" ]; then
		ok "check: COLUMNS=$w wraps every line at $w columns with hanging indents, words whole"
	else
		miss "check COLUMNS=$w" "$(overlong $w "$T/out" | head -3)"
	fi
done
# A terminal (util-linux's script gives one) of 70 columns, COLUMNS unset: its width.
if command -v script >/dev/null 2>&1; then
	if run "check tty" 0 laptop env -u COLUMNS NO_COLOR=1 script -qec "stty cols 70 rows 50; $PB check" /dev/null &&
	   tr -d '\r' <"$T/out" >"$T/tty" && has "$T/tty" "^          why: in intel_pstate active mode powersave lets the" &&
	   [ -z "$(overlong 70 "$T/tty")" ] && [ -n "$(overlong 60 "$T/tty")" ]; then
		ok "check: on a terminal, its width"
	else
		miss "check tty" "$(overlong 70 "$T/tty" | head -3)"
	fi
else
	skipped "check tty" "no script(1) to give pbench a terminal"
fi

finish cli/check
