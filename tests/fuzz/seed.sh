#!/bin/sh
# SPDX-License-Identifier: MIT
# Write the seed inputs of each fuzz target into DIR/TARGET/, from real data: the recorded
# /sys and /proc trees of tests/fixtures and event names as users write them. make fuzz gives
# them to each fuzzer with the corpus; only those that add coverage are merged into it.
#   sh tests/fuzz/seed.sh DIR
set -eu
out=${1:?usage: seed.sh DIR}
fx=tests/fixtures
machines="vm-kvm-2cpu intel-laptop amd-workstation tuned-server container-quota"

# seed TARGET: stdin becomes one seed, named like libFuzzer names its inputs (sha1)
seed() {
	mkdir -p "$out/$1"
	cat > "$out/$1/.new"
	mv "$out/$1/.new" "$out/$1/$(sha1sum < "$out/$1/.new" | cut -d' ' -f1)"
}

for m in $machines; do
	for f in proc/interrupts proc/softirqs; do
		[ -f "$fx/$m/$f" ] && seed interrupts < "$fx/$m/$f"
	done
	seed proc_stat < "$fx/$m/proc/stat"
	# Every cpulist the checks read, and the one /proc/PID/status holds.
	find "$fx/$m" -type f \( -name '*_list' -o -name cpulist -o -name online -o \
		-name present -o -name possible -o -name isolated -o -name nohz_full -o \
		-name 'cpuset.cpus*' \) | while read -r f; do
		seed cpulist < "$f"
	done
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$fx/$m/proc/self/status" | seed cpulist
	# One seed per file of the tree: "TREE/PATH" then the file as recorded. Process
	# directories repeat the same files: the first three are enough.
	(cd "$fx" && find "$m" -type f) | grep -Ev "^$m/proc/([4-9]|[1-9][0-9]+)/" |
	while read -r f; do
		{ echo "$f"; cat "$fx/$f"; } | seed env_tree
	done
done
# Explicit targets, as --cpu gives them: an isolated CPU, SMT siblings, one not present.
{ echo "tuned-server/sys/devices/system/cpu/isolated 2-3"; echo 2-3; } | seed env_tree
{ echo "intel-laptop/proc/interrupts 0,4"; cat "$fx/intel-laptop/proc/interrupts"; } |
	seed env_tree
{ echo "vm-kvm-2cpu/sys/devices/system/cpu/present 5"; echo 0-1; } | seed env_tree

# As users give them to --cpu.
for l in 0 1-3 0,2-3 "0-1,4-7" " 3 " 4095 0-4095 4096 7-2 "1,1" "0-15:2/4"; do
	printf '%s' "$l" | seed cpulist
done

# Event lists: perf's generic names, modifiers, libpfm4 names of the recorded PMUs, sysfs
# terms of the recorded PMUs (tests/fixtures/pmu-*), and lists of them.
while read -r e; do
	printf '%s' "$e" | seed events
done <<'LIST'
cycles
instructions
task-clock,context-switches,page-faults,msr/tsc/,cycles
cycles:u,instructions:k
cpu-clock,cpu-migrations,minor-faults,major-faults
cache-misses,cache-references,branch-misses,branches
L1-dcache-load-misses,LLC-loads,dTLB-load-misses
perf::cycles
perf::PERF_COUNT_HW_CPU_CYCLES:u
RETIRED_INSTRUCTIONS
amd64_fam19h_zen3::RETIRED_INSTRUCTIONS
skl::INST_RETIRED:ANY_P
skl::CPU_CLK_UNHALTED:THREAD_P:k=1:u=0
skl::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS
cpu/event=0xc0,umask=0x1/
cpu/event=0x3c,umask=0x0,cmask=1,inv=1/u
cpu/cpu-cycles/k
cpu/cycles-t/
cpu/event=0x76,umask=0x1,edge/
cpu/config=0x1234/
msr/tsc/
power/energy-pkg/
 cycles , instructions 
cycles,,instructions
cpu/event=0xc0
Task-Clock
r01c4
LIST
