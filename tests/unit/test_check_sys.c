/* SPDX-License-Identifier: MIT */
/*
 * The memory, timer, counters and virtualization checks (check_mem.c, check_timer.c,
 * check_counters.c, check_virt.c) on the recorded and reconstructed trees of tests/fixtures, on
 * trees built here to reach the warn/bad branches, on empty, garbage and truncated trees
 * (unknown or info, never a crash), and live.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

#define OK PBENCH_CHECK_OK
#define INFO PBENCH_CHECK_INFO
#define WARN PBENCH_CHECK_WARN
#define BAD PBENCH_CHECK_BAD
#define UNKNOWN PBENCH_CHECK_UNKNOWN

static const char *const ids[] = {
	"mem.thp", "mem.ksm", "mem.swap", "mem.numa_local", "aslr", "limits.rtprio",
	"limits.memlock", "caps.sys_nice", "clock.source", "clock.tsc", "perf.paranoid",
	"perf.rdpmc", "perf.pmu", "perf.max_sample_rate", "virt.hypervisor", "virt.steal",
};
#define NIDS (sizeof(ids) / sizeof(ids[0]))

static int per_cpu(const char *id)
{
	return !strcmp(id, "mem.numa_local") || !strcmp(id, "clock.tsc") ||
	       !strcmp(id, "virt.steal");
}

static int my_group(const char *g)
{
	return !strcmp(g, "memory") || !strcmp(g, "timer") || !strcmp(g, "counters") ||
	       !strcmp(g, "virtualization");
}

static struct pbench_check *run(const int *cpus, int n)
{
	struct pbench_check *env = NULL;
	int err = pbench_check(&env, cpus, n, PBENCH_CHECK_NO_WINDOW);

	cr_assert_eq(err, 0, "pbench_check: %s", pbench_strerror(err));
	cr_assert_not_null(env);
	return env;
}

/* Every finding of these groups: a known status, a value, and why + fix when warn/bad. */
static void assert_well_formed(const struct pbench_check *env)
{
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (!my_group(c->group))
			continue;
		cr_assert(c->status >= OK && c->status <= UNKNOWN, "%s: status %d", c->id,
			  c->status);
		cr_assert_neq(c->value[0], '\0', "%s: empty value", c->id);
		if (c->status == WARN || c->status == BAD) {
			cr_assert_neq(c->why[0], '\0', "%s (%s): no why", c->id, c->value);
			cr_assert_neq(c->fix[0], '\0', "%s (%s): no fix", c->id, c->value);
		}
	}
	for (size_t k = 0; k < NIDS; k++) {
		const int *cpus;
		int n = pbench_check_cpus(env, &cpus);

		for (int i = 0; i < (per_cpu(ids[k]) ? n : 1); i++)
			find_check(env, ids[k], per_cpu(ids[k]) ? cpus[i] : -1);
	}
}

/* One expected finding: status, and a substring of the value ("=x": the whole value). */
struct row {
	const char *id;
	int cpu, status;
	const char *value;
};

static void check_rows(const char *root, const int *cpus, int n, const struct row *rows,
		       size_t nrows)
{
	struct pbench_check *env;

	use_root(root);
	env = run(cpus, n);
	assert_well_formed(env);
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const struct pbench_check_finding *c = find_check(env, r->id, r->cpu);

		cr_expect_eq(c->status, r->status, "%s %s cpu %d: status %s, want %s (value '%s')",
			     root, r->id, r->cpu, pbench_check_status_name(c->status),
			     pbench_check_status_name(r->status), c->value);
		if (r->value[0] == '=')
			cr_expect_str_eq(c->value, r->value + 1, "%s %s", root, r->id);
		else
			cr_expect(strstr(c->value, r->value) != NULL, "%s %s: value '%s' lacks '%s'",
				  root, r->id, c->value, r->value);
	}
	pbench_check_free(env);
}

#define CHECK_TREE(root, cpu, rows) \
	check_rows(root, (int[]){ cpu }, 1, rows, sizeof(rows) / sizeof(rows[0]))

/* ---- the fixture trees: every check on every tree ------------------------------------- */

Test(trees, vm_kvm_2cpu)
{
	/* Recorded on the development VM (as root: CapEff has every capability but one). */
	static const struct row rows[] = {
		{ "mem.thp", -1, OK, "=enabled=madvise defrag=madvise" },
		{ "mem.ksm", -1, OK, "=run=0 (off)" },
		{ "mem.swap", -1, OK, "=no swap (swappiness 60)" },
		{ "mem.numa_local", 1, OK, "=single node (node 0: 4093 MiB free of 4442 MiB)" },
		{ "aslr", -1, INFO, "randomize_va_space 2" },
		{ "limits.rtprio", -1, OK, "=soft 0, hard 0; CAP_SYS_NICE lifts it" },
		{ "limits.memlock", -1, OK, "=soft 8 MiB, hard 8 MiB; CAP_IPC_LOCK lifts it" },
		{ "caps.sys_nice", -1, OK, "=CAP_SYS_NICE yes, CAP_IPC_LOCK yes" },
		{ "clock.source", -1, OK, "=tsc" },
		{ "clock.tsc", 1, OK, "=constant_tsc nonstop_tsc tsc_known_freq" },
		{ "perf.paranoid", -1, OK, "=2 (CAP_PERFMON: not restricted)" },
		{ "perf.rdpmc", -1, INFO, "no cpu PMU" },
		{ "perf.pmu", -1, WARN, "=no cpu PMU in /sys/bus/event_source/devices" },
		{ "perf.max_sample_rate", -1, OK, "=100000" },
		{ "virt.hypervisor", -1, WARN, "hypervisor flag in /proc/cpuinfo" },
		{ "virt.steal", 1, INFO, "=<0.01% since boot" },	/* 7 of 161711 ticks */
	};

	CHECK_TREE("tests/fixtures/vm-kvm-2cpu", 1, rows);
}

/* Recorded with record.sh on a second AMD EPYC KVM guest (Zen 5, family 26, kernel 6.18, as
 * root): no PMU but the msr PMU's tsc, and the kernel booted with clocksource=kvm-clock
 * tsc=unstable, so the TSC is not even an available clocksource (no switch to offer). */
Test(trees, vm_amd_epyc)
{
	static const struct row rows[] = {
		{ "mem.thp", -1, OK, "=enabled=madvise defrag=madvise" },
		{ "mem.ksm", -1, OK, "=run=0 (off)" },
		{ "mem.swap", -1, OK, "=no swap (swappiness 60)" },
		{ "mem.numa_local", 1, OK, "=single node (node 0: 3738 MiB free of 4442 MiB)" },
		{ "aslr", -1, INFO, "randomize_va_space 2" },
		{ "limits.rtprio", -1, OK, "=soft 0, hard 0; CAP_SYS_NICE lifts it" },
		{ "limits.memlock", -1, OK, "=soft 8 MiB, hard 8 MiB; CAP_IPC_LOCK lifts it" },
		{ "caps.sys_nice", -1, OK, "=CAP_SYS_NICE yes, CAP_IPC_LOCK yes" },
		{ "clock.source", -1, INFO, "=kvm-clock (available: kvm-clock)" },
		{ "clock.tsc", 1, OK, "=constant_tsc nonstop_tsc tsc_known_freq tsc_reliable" },
		{ "perf.paranoid", -1, OK, "=2 (CAP_PERFMON: not restricted)" },
		{ "perf.rdpmc", -1, INFO, "no cpu PMU" },
		{ "perf.pmu", -1, WARN, "=no cpu PMU in /sys/bus/event_source/devices" },
		{ "perf.max_sample_rate", -1, OK, "=100000" },
		{ "virt.hypervisor", -1, WARN, "hypervisor flag in /proc/cpuinfo" },
		{ "virt.steal", 1, OK, "0% since boot (a hypervisor that does not report steal" },
	};
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	CHECK_TREE("tests/fixtures/vm-amd-epyc", 1, rows);
	/* No TSC among the available clocksources: no "echo tsc" to suggest. */
	use_root("tests/fixtures/vm-amd-epyc");
	env = run((int[]){ 1 }, 1);
	c = find_check(env, "clock.source", -1);
	cr_expect_null(strstr(c->fix, "echo tsc"), "fix '%s'", c->fix);
	pbench_check_free(env);
}

Test(trees, intel_laptop)
{
	/* A user's shell: Uid 1000, no effective capabilities. */
	static const struct row rows[] = {
		{ "mem.thp", -1, WARN, "=enabled=always defrag=madvise" },
		{ "mem.ksm", -1, OK, "=run=0 (off)" },
		{ "mem.swap", -1, WARN, "=1 swap area, 2048 MiB, 512 MiB used, swappiness 60" },
		{ "mem.numa_local", 1, OK, "=single node (node 0: 5736 MiB free of 15 GiB)" },
		{ "aslr", -1, INFO, "randomize_va_space 2" },
		{ "limits.rtprio", -1, WARN, "=soft 0, hard 0 (not root, no CAP_SYS_NICE)" },
		{ "limits.memlock", -1, WARN, "=soft 8 MiB, hard 8 MiB (not root, no "
					      "CAP_IPC_LOCK)" },
		{ "caps.sys_nice", -1, WARN, "=CAP_SYS_NICE no, CAP_IPC_LOCK no" },
		{ "clock.source", -1, OK, "=tsc" },
		{ "clock.tsc", 1, OK, "=constant_tsc nonstop_tsc tsc_known_freq" },
		{ "perf.paranoid", -1, BAD, "4 (not root, no CAP_PERFMON" },
		{ "perf.rdpmc", -1, OK, "cpu: 1" },
		{ "perf.pmu", -1, OK, "=cpu PMU (type 4)" },
		{ "perf.max_sample_rate", -1, INFO, "79750 (the kernel lowered it" },
		{ "virt.hypervisor", -1, OK, "bare metal" },
		{ "virt.steal", 1, OK, "=0% since boot" },
	};

	CHECK_TREE("tests/fixtures/intel-laptop", 1, rows);
}

Test(trees, amd_workstation)
{
	/* A user's shell, as on the laptop. */
	static const struct row rows[] = {
		{ "mem.thp", -1, OK, "=enabled=madvise defrag=madvise" },
		{ "mem.ksm", -1, OK, "=run=0 (off)" },
		{ "mem.swap", -1, OK, "=no swap (swappiness 60)" },
		{ "mem.numa_local", 1, OK, "=single node (node 0: 46 GiB free of 63 GiB)" },
		{ "aslr", -1, INFO, "randomize_va_space 2" },
		{ "limits.rtprio", -1, WARN, "=soft 0, hard 0 (not root, no CAP_SYS_NICE)" },
		{ "limits.memlock", -1, WARN, "=soft 8 MiB, hard 8 MiB (not root, no "
					      "CAP_IPC_LOCK)" },
		{ "caps.sys_nice", -1, WARN, "=CAP_SYS_NICE no, CAP_IPC_LOCK no" },
		{ "clock.source", -1, OK, "=tsc" },
		{ "clock.tsc", 1, OK, "constant_tsc nonstop_tsc" },
		{ "perf.paranoid", -1, INFO, "=2 (not root, no CAP_PERFMON: user space only)" },
		{ "perf.rdpmc", -1, OK, "cpu: 1" },
		{ "perf.pmu", -1, OK, "=cpu PMU (type 4)" },
		{ "perf.max_sample_rate", -1, OK, "=100000" },
		{ "virt.hypervisor", -1, OK, "bare metal" },
		{ "virt.steal", 1, OK, "=0% since boot" },
	};

	CHECK_TREE("tests/fixtures/amd-workstation", 1, rows);
}

Test(trees, tuned_server)
{
	/* Root with every capability. */
	static const struct row rows[] = {
		{ "mem.thp", -1, OK, "=enabled=never defrag=madvise" },
		{ "mem.ksm", -1, OK, "=run=0 (off)" },
		{ "mem.swap", -1, OK, "=no swap (swappiness 10)" },
		{ "mem.numa_local", 2, OK, "=single node (node 0: 57 GiB free of 62 GiB)" },
		{ "aslr", -1, OK, "=randomize_va_space 0 (off)" },
		{ "limits.rtprio", -1, OK, "=soft 99, hard 99; CAP_SYS_NICE lifts it" },
		{ "limits.memlock", -1, OK, "=soft unlimited, hard unlimited; CAP_IPC_LOCK lifts "
					    "it" },
		{ "caps.sys_nice", -1, OK, "=CAP_SYS_NICE yes, CAP_IPC_LOCK yes" },
		{ "clock.source", -1, OK, "=tsc" },
		{ "clock.tsc", 2, OK, "constant_tsc nonstop_tsc" },
		{ "perf.paranoid", -1, OK, "=1" },
		{ "perf.rdpmc", -1, OK, "cpu: 1" },
		{ "perf.pmu", -1, OK, "=cpu PMU (type 4)" },
		{ "perf.max_sample_rate", -1, OK, "=100000" },
		{ "virt.hypervisor", -1, OK, "bare metal" },
		{ "virt.steal", 2, OK, "=0% since boot" },
	};

	CHECK_TREE("tests/fixtures/tuned-server", 2, rows);
}

Test(trees, container_quota)
{
	/* Root in a Docker container: Docker's default capabilities (CapEff a80425fb), which
	 * lack CAP_SYS_NICE, CAP_IPC_LOCK, CAP_PERFMON and CAP_SYS_ADMIN. */
	static const struct row rows[] = {
		{ "mem.thp", -1, WARN, "=enabled=always defrag=madvise" },
		{ "mem.ksm", -1, OK, "=run=0 (off)" },
		{ "mem.swap", -1, OK, "=no swap (swappiness 60)" },
		{ "mem.numa_local", 1, OK, "=single node (node 0: 20 GiB free of 31 GiB)" },
		{ "aslr", -1, INFO, "randomize_va_space 2" },
		{ "limits.rtprio", -1, WARN, "=soft 0, hard 0 (root without CAP_SYS_NICE)" },
		{ "limits.memlock", -1, WARN, "=soft 8 MiB, hard 8 MiB (root without "
					      "CAP_IPC_LOCK)" },
		{ "caps.sys_nice", -1, WARN, "=CAP_SYS_NICE no, CAP_IPC_LOCK no" },
		{ "clock.source", -1, INFO, "=kvm-clock (available: kvm-clock tsc acpi_pm)" },
		{ "clock.tsc", 1, OK, "constant_tsc nonstop_tsc" },
		{ "perf.paranoid", -1, INFO, "=2 (root without CAP_PERFMON: user space only)" },
		{ "perf.rdpmc", -1, INFO, "no cpu PMU" },
		{ "perf.pmu", -1, WARN, "no cpu PMU" },
		{ "perf.max_sample_rate", -1, OK, "=100000" },
		{ "virt.hypervisor", -1, WARN, "hypervisor flag in /proc/cpuinfo" },
		{ "virt.steal", 1, INFO, "=0.40% since boot" },	/* 34560 of 8648640 ticks */
	};

	CHECK_TREE("tests/fixtures/container-quota", 1, rows);
}

/* A paravirtual clock with the TSC available: the fix switches to it. */
Test(trees, container_clock_fix)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	use_root("tests/fixtures/container-quota");
	env = run((int[]){ 0, 7 }, 2);
	assert_well_formed(env);
	c = find_check(env, "clock.source", -1);
	cr_assert_str_eq(c->fix, "echo tsc | sudo tee "
			 "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	/* Two targets: one per-CPU finding each. */
	cr_assert_str_eq(find_check(env, "virt.steal", 7)->value, "0.40% since boot");
	cr_assert_eq(find_check(env, "clock.tsc", 0)->status, OK);
	pbench_check_free(env);
}

/* ---- trees built here ------------------------------------------------------------------ */

static char tmp_root[64];

static void put(const char *rel, const char *content)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	for (char *p = path + strlen(tmp_root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
		*p = '/';
	}
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(content, f);
	cr_assert_eq(fclose(f), 0);
}

static void new_tree(void)
{
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/pbench-env-sys-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp_root));
	put("sys/.keep", "");
	put("proc/.keep", "");
	use_root(tmp_root);
}

static void drop_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	if (tmp_root[0] && system(cmd) != 0)
		cr_log_warn("could not remove %s", tmp_root);
}

#define LIMITS(rt_soft, rt_hard, ml_soft, ml_hard)                                          \
	"Limit                     Soft Limit           Hard Limit           Units     \n"      \
	"Max locked memory         " ml_soft "  " ml_hard "  bytes     \n"                     \
	"Max realtime priority     " rt_soft "  " rt_hard "  \n"

#define CPUINFO_BLOCK(n, flags) "processor\t: " #n "\nvendor_id\t: GenuineIntel\nflags\t\t: " \
	flags "\n\n"

/* A two-node Xen guest of a non-root user, set up badly in every way this file checks. */
static void bad_tree(void)
{
	new_tree();
	put("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	put("sys/kernel/mm/transparent_hugepage/defrag", "[always] defer defer+madvise madvise "
	    "never\n");
	put("sys/kernel/mm/ksm/run", "1\n");
	put("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	    "/dev/sda3                               partition\t8388604\t\t1048576\t\t-2\n");
	put("proc/sys/vm/swappiness", "60\n");
	put("sys/devices/system/node/online", "0-1\n");
	put("sys/devices/system/node/node0/cpulist", "0-1\n");
	put("sys/devices/system/node/node1/cpulist", "2-3\n");
	put("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       16384000 kB\n"
	    "Node 0 MemFree:        12000000 kB\n");
	put("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       16384000 kB\n"
	    "Node 1 MemFree:          204800 kB\nNode 1 MemUsed:        16179200 kB\n");
	put("sys/devices/system/node/node1/distance", "21 10\n");
	put("proc/sys/kernel/randomize_va_space", "1\n");
	put("proc/self/status", "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\n"
	    "CapEff:\t0000000000000000\nMems_allowed_list:\t0-1\n");
	put("proc/self/limits", LIMITS("0                   ", "0                   ",
				       "65536               ", "65536               "));
	put("sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
	put("sys/devices/system/clocksource/clocksource0/available_clocksource", "hpet acpi_pm \n");
	put("proc/cpuinfo", CPUINFO_BLOCK(0, "fpu tsc constant_tsc nonstop_tsc hypervisor")
	    CPUINFO_BLOCK(1, "fpu tsc constant_tsc nonstop_tsc hypervisor")
	    CPUINFO_BLOCK(2, "fpu tsc hypervisor")
	    CPUINFO_BLOCK(3, "fpu tsc constant_tsc hypervisor"));
	put("proc/sys/kernel/perf_event_paranoid", "3\n");
	put("proc/sys/kernel/perf_event_max_sample_rate", "25000\n");
	put("sys/bus/event_source/devices/cpu/type", "4\n");
	put("sys/bus/event_source/devices/cpu/rdpmc", "0\n");
	put("sys/hypervisor/type", "xen\n");
	put("proc/stat", "cpu  400 0 100 9000 0 0 0 500 0 0\n"
	    "cpu0 100 0 25 2250 0 0 0 125 0 0\ncpu1 100 0 25 2375 0 0 0 0 0 0\n"
	    "cpu2 100 0 25 2250 0 0 0 125 0 0\ncpu3 100 0 25 2375 0 0 0 0 0 0\n");
}

Test(built, bad_everything, .init = bad_tree, .fini = drop_tree)
{
	static const struct row rows[] = {
		{ "mem.thp", -1, WARN, "=enabled=always defrag=always" },
		{ "mem.ksm", -1, WARN, "run=1" },
		{ "mem.swap", -1, WARN, "=1 swap area, 8192 MiB, 1024 MiB used, swappiness 60" },
		{ "mem.numa_local", 2, WARN, "=node 1 of 2: 200 MiB free of 16 GiB; policy not "
					     "recorded" },
		{ "mem.numa_local", 1, OK, "node 0 of 2: 11 GiB free of 16 GiB" },
		{ "aslr", -1, INFO, "randomize_va_space 1 (stack, mmap and vDSO randomized)" },
		{ "limits.rtprio", -1, WARN, "=soft 0, hard 0 (not root, no CAP_SYS_NICE)" },
		{ "limits.memlock", -1, WARN, "=soft 64 KiB, hard 64 KiB (not root, no "
					      "CAP_IPC_LOCK)" },
		{ "caps.sys_nice", -1, WARN, "=CAP_SYS_NICE no, CAP_IPC_LOCK no" },
		{ "clock.source", -1, BAD, "=hpet (available: hpet acpi_pm)" },
		{ "clock.tsc", 2, BAD, "=no constant_tsc no nonstop_tsc" },
		{ "clock.tsc", 3, WARN, "=constant_tsc no nonstop_tsc" },
		{ "clock.tsc", 1, OK, "=constant_tsc nonstop_tsc" },
		{ "perf.paranoid", -1, BAD, "3 (not root, no CAP_PERFMON" },
		{ "perf.rdpmc", -1, WARN, "cpu: 0" },
		{ "perf.pmu", -1, OK, "=cpu PMU (type 4)" },
		{ "perf.max_sample_rate", -1, INFO, "25000" },
		{ "virt.hypervisor", -1, WARN, "=virtual machine: hypervisor flag in /proc/cpuinfo; "
					       "/sys/hypervisor/type xen" },
		{ "virt.steal", 2, WARN, "=5.00% since boot" },
		{ "virt.steal", 1, OK, "=0% since boot (a hypervisor that does not report steal "
				       "time also shows 0)" },
	};
	struct pbench_check *env;

	check_rows(tmp_root, (int[]){ 2, 3, 1 }, 3, rows, sizeof(rows) / sizeof(rows[0]));
	/* The fixes name what to run. */
	env = run((int[]){ 2 }, 1);
	cr_assert(strstr(find_check(env, "clock.source", -1)->fix, "tsc=reliable") != NULL,
		  "no TSC available: the fix is the boot parameter");
	cr_assert(strstr(find_check(env, "perf.rdpmc", -1)->fix,
			 "echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc") != NULL);
	cr_assert(strstr(find_check(env, "mem.swap", -1)->fix, "sudo swapoff -a") != NULL);
	cr_assert(strstr(find_check(env, "caps.sys_nice", -1)->fix, "setcap cap_sys_nice") != NULL);
	cr_assert(strstr(find_check(env, "limits.rtprio", -1)->fix, "rtprio 99") != NULL);
	cr_assert(strstr(find_check(env, "mem.numa_local", 2)->fix, "drop_caches") != NULL);
	/* The why quotes the machine's node distances, not a number of its own. */
	cr_assert(strstr(find_check(env, "mem.numa_local", 2)->why, "node1/distance: 21 10") != NULL,
		  "%s", find_check(env, "mem.numa_local", 2)->why);
	pbench_check_free(env);
}

/* The middle cases: info where it is worth knowing, ok where nothing is wrong. */
static void mixed_tree(void)
{
	new_tree();
	put("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put("sys/kernel/mm/transparent_hugepage/defrag", "[always] defer defer+madvise madvise "
	    "never\n");
	put("sys/kernel/mm/ksm/run", "2\n");
	put("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	    "/dev/zram0                              partition\t4194300\t\t0\t\t100\n");
	put("sys/devices/system/node/online", "0-1\n");
	put("sys/devices/system/node/node0/cpulist", "0-1\n");
	put("sys/devices/system/node/node1/cpulist", "2-3\n");
	put("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       16384000 kB\n"
	    "Node 1 MemFree:        12000000 kB\n");
	put("proc/sys/kernel/randomize_va_space", "0\n");
	put("proc/self/status", "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\n"
	    "CapEff:\t0000000000000000\nMems_allowed_list:\t0\n");
	put("proc/self/limits", LIMITS("0                   ", "99                  ",
				       "65536               ", "unlimited           "));
	put("sys/devices/system/clocksource/clocksource0/current_clocksource", "acpi_pm\n");
	put("sys/devices/system/clocksource/clocksource0/available_clocksource",
	    "tsc hpet acpi_pm \n");
	put("proc/cpuinfo", CPUINFO_BLOCK(2, "fpu tsc constant_tsc nonstop_tsc tsc_reliable"));
	put("proc/sys/kernel/perf_event_paranoid", "2\n");
	put("proc/sys/kernel/perf_event_max_sample_rate", "200000\n");
	put("sys/bus/event_source/devices/cpu_core/type", "4\n");
	put("sys/bus/event_source/devices/cpu_core/rdpmc", "2\n");
	put("proc/stat", "cpu2 100 0 25 2250 0 0 0 0 0 0\n");
}

Test(built, mixed, .init = mixed_tree, .fini = drop_tree)
{
	static const struct row rows[] = {
		{ "mem.thp", -1, INFO, "=enabled=madvise defrag=always" },
		{ "mem.ksm", -1, OK, "=run=2 (stopped, pages unmerged)" },
		{ "mem.swap", -1, INFO, "=1 swap area, 4096 MiB, 0 KiB used, swappiness ?" },
		/* Memory free on node 1, but the cpuset keeps this process's memory on node 0. */
		{ "mem.numa_local", 2, WARN, "=node 1 of 2: 11 GiB free of 16 GiB; cpuset allows "
					     "memory only on nodes 0" },
		{ "aslr", -1, OK, "=randomize_va_space 0 (off)" },
		{ "limits.rtprio", -1, INFO, "=soft 0, hard 99: the process must raise its soft "
					     "limit first" },
		{ "limits.memlock", -1, INFO, "=soft 64 KiB, hard unlimited: the process must raise "
					      "its soft limit first" },
		{ "caps.sys_nice", -1, WARN, "=CAP_SYS_NICE no, CAP_IPC_LOCK no" },
		{ "clock.source", -1, BAD, "=acpi_pm (available: tsc hpet acpi_pm)" },
		{ "clock.tsc", 2, OK, "=constant_tsc nonstop_tsc tsc_reliable" },
		{ "perf.paranoid", -1, INFO, "=2 (not root, no CAP_PERFMON: user space only)" },
		{ "perf.rdpmc", -1, OK, "=cpu_core: 2 (any task)" },
		{ "perf.pmu", -1, OK, "=cpu_core PMU (type 4)" },
		{ "perf.max_sample_rate", -1, OK, "=200000" },
		{ "virt.hypervisor", -1, OK, "=bare metal: no hypervisor flag in /proc/cpuinfo" },
		{ "virt.steal", 2, OK, "=0% since boot" },
	};
	struct pbench_check *env;

	check_rows(tmp_root, (int[]){ 2 }, 1, rows, sizeof(rows) / sizeof(rows[0]));
	env = run((int[]){ 2 }, 1);
	cr_assert_str_eq(find_check(env, "clock.source", -1)->fix, "echo tsc | sudo tee "
			 "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	cr_assert(strstr(find_check(env, "mem.numa_local", 2)->fix, "--membind=1") != NULL);
	pbench_check_free(env);
}

/* Limits of 0 and 64 KiB and perf_event_paranoid 4, for the /proc/self/status given. */
static void check_privileges(const char *status, const struct row *rows, size_t nrows)
{
	put("proc/self/status", status);
	put("proc/self/limits", LIMITS("0                   ", "0                   ",
				       "65536               ", "65536               "));
	put("proc/sys/kernel/perf_event_paranoid", "4\n");
	check_rows(tmp_root, (int[]){ 0 }, 1, rows, nrows);
}

/* Root without a CapEff line: root lifts the limits; the capability check cannot tell. */
Test(built, root_without_capeff, .init = new_tree, .fini = drop_tree)
{
	static const struct row rows[] = {
		{ "limits.rtprio", -1, OK, "=soft 0, hard 0; root lifts it" },
		{ "limits.memlock", -1, OK, "=soft 64 KiB, hard 64 KiB; root lifts it" },
		{ "caps.sys_nice", -1, UNKNOWN, "no CapEff line" },
		{ "perf.paranoid", -1, OK, "=4 (root: not restricted)" },
	};

	check_privileges("Name:\tbash\nUid:\t0\t0\t0\t0\n", rows, sizeof(rows) / sizeof(rows[0]));
}

/* Neither Uid nor CapEff (the fixture trees lacked both before they were completed): the
 * privilege is unknown and said so, not guessed. */
Test(built, status_without_privileges, .init = new_tree, .fini = drop_tree)
{
	static const struct row rows[] = {
		{ "limits.rtprio", -1, UNKNOWN, "=soft 0, hard 0; unknown whether the process is "
						"privileged (no Uid/CapEff in /proc/self/status)" },
		{ "limits.memlock", -1, UNKNOWN, "soft 64 KiB, hard 64 KiB; unknown whether" },
		{ "caps.sys_nice", -1, UNKNOWN, "no CapEff line" },
		{ "perf.paranoid", -1, WARN, "=4 (privileges unknown; Debian/Ubuntu: no "
					     "perf_event_open without CAP_PERFMON)" },
	};

	check_privileges("Name:\tbash\nPid:\t4242\nMems_allowed_list:\t0\n", rows,
			 sizeof(rows) / sizeof(rows[0]));
}

/* Nothing at all: every check says what it looked for, as unknown or info. */
Test(built, empty_tree, .init = new_tree, .fini = drop_tree)
{
	static const struct row rows[] = {
		{ "mem.thp", -1, INFO, "this kernel has no transparent huge pages" },
		{ "mem.ksm", -1, INFO, "this kernel has no KSM" },
		{ "mem.swap", -1, UNKNOWN, "cannot read /proc/swaps" },
		{ "mem.numa_local", 0, INFO, "no /sys/devices/system/node/online" },
		{ "aslr", -1, UNKNOWN, "cannot read /proc/sys/kernel/randomize_va_space" },
		{ "limits.rtprio", -1, UNKNOWN, "cannot read /proc/self/limits" },
		{ "limits.memlock", -1, UNKNOWN, "cannot read /proc/self/limits" },
		{ "caps.sys_nice", -1, UNKNOWN, "no CapEff line" },
		{ "clock.source", -1, UNKNOWN, "cannot read /sys/devices/system/clocksource" },
		{ "clock.tsc", 0, UNKNOWN, "cannot read /proc/cpuinfo" },
		{ "perf.paranoid", -1, UNKNOWN, "cannot read /proc/sys/kernel/perf_event_paranoid" },
		{ "perf.rdpmc", -1, UNKNOWN, "cannot read /sys/bus/event_source/devices" },
		{ "perf.pmu", -1, UNKNOWN, "cannot read /sys/bus/event_source/devices" },
		{ "perf.max_sample_rate", -1, UNKNOWN, "cannot read" },
		{ "virt.hypervisor", -1, UNKNOWN, "no x86 flags in /proc/cpuinfo" },
		{ "virt.steal", 0, UNKNOWN, "no cpu0 line in /proc/stat" },
	};

	check_rows(tmp_root, (int[]){ 0 }, 1, rows, sizeof(rows) / sizeof(rows[0]));
}

static const char *const my_files[] = {
	"sys/kernel/mm/transparent_hugepage/enabled", "sys/kernel/mm/transparent_hugepage/defrag",
	"sys/kernel/mm/ksm/run", "proc/swaps", "proc/sys/vm/swappiness",
	"sys/devices/system/node/online", "sys/devices/system/node/node0/cpulist",
	"sys/devices/system/node/node0/meminfo", "proc/sys/kernel/randomize_va_space",
	"proc/self/status", "proc/self/limits",
	"sys/devices/system/clocksource/clocksource0/current_clocksource",
	"sys/devices/system/clocksource/clocksource0/available_clocksource", "proc/cpuinfo",
	"proc/sys/kernel/perf_event_paranoid", "proc/sys/kernel/perf_event_max_sample_rate",
	"sys/bus/event_source/devices/cpu/type", "sys/bus/event_source/devices/cpu/rdpmc",
	"sys/hypervisor/type", "proc/stat",
};

/* Garbage in every file: unknown where a value was expected, and nothing invented. */
Test(built, garbage_tree, .init = new_tree, .fini = drop_tree)
{
	static const struct row rows[] = {
		{ "mem.thp", -1, UNKNOWN, "transparent_hugepage/enabled" },
		{ "mem.ksm", -1, UNKNOWN, "/sys/kernel/mm/ksm/run" },
		{ "mem.swap", -1, UNKNOWN, "/proc/swaps" },
		{ "mem.numa_local", 0, UNKNOWN, "node/online" },
		{ "aslr", -1, UNKNOWN, "randomize_va_space" },
		{ "limits.rtprio", -1, UNKNOWN, "=no valid 'Max realtime priority' line in "
						"/proc/self/limits" },
		{ "limits.memlock", -1, UNKNOWN, "Max locked memory" },
		{ "caps.sys_nice", -1, UNKNOWN, "no CapEff line" },
		{ "clock.source", -1, UNKNOWN, "=unexpected content in "
				"/sys/devices/system/clocksource/clocksource0/current_clocksource" },
		{ "clock.tsc", 0, UNKNOWN, "no processor 0 in /proc/cpuinfo" },
		{ "perf.paranoid", -1, UNKNOWN, "perf_event_paranoid" },
		{ "perf.rdpmc", -1, UNKNOWN, "rdpmc" },
		{ "perf.pmu", -1, OK, "=cpu PMU" },	/* the directory is there; its type is not */
		{ "perf.max_sample_rate", -1, UNKNOWN, "perf_event_max_sample_rate" },
		{ "virt.hypervisor", -1, UNKNOWN, "no x86 flags in /proc/cpuinfo" },
		{ "virt.steal", 0, UNKNOWN, "no cpu0 line" },
	};

	for (size_t i = 0; i < sizeof(my_files) / sizeof(my_files[0]); i++)
		put(my_files[i], "x]\x01[ garbage -7 :\n\n[\n");
	check_rows(tmp_root, (int[]){ 0 }, 1, rows, sizeof(rows) / sizeof(rows[0]));
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void copy_prefix(const char *from, const char *rel, long len)
{
	char buf[65536];
	FILE *f = fopen(from, "r");
	size_t n;

	cr_assert_not_null(f, "%s", from);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n < (size_t)len ? n : (size_t)len] = '\0';
	put(rel, buf);
}

/* Each file of the laptop tree cut short at several points, one at a time: never a crash,
 * and the findings stay well formed. */
Test(built, truncated_files, .init = new_tree, .fini = drop_tree, .timeout = 120)
{
	const char *base = "tests/fixtures/intel-laptop";
	char from[512];

	for (size_t i = 0; i < sizeof(my_files) / sizeof(my_files[0]); i++) {
		snprintf(from, sizeof(from), "%s/%s", base, my_files[i]);
		if (file_size(from) >= 0)
			copy_prefix(from, my_files[i], 1 << 20);
	}
	for (size_t i = 0; i < sizeof(my_files) / sizeof(my_files[0]); i++) {
		long size;

		snprintf(from, sizeof(from), "%s/%s", base, my_files[i]);
		size = file_size(from);
		if (size < 0)
			continue;
		for (int k = 0; k <= 6; k++) {
			struct pbench_check *env;

			copy_prefix(from, my_files[i], size * k / 7 + (k % 2));
			env = run((int[]){ 1 }, 1);
			assert_well_formed(env);
			pbench_check_free(env);
		}
		copy_prefix(from, my_files[i], size);
	}
}

/* ---- live ------------------------------------------------------------------------------ */

static void live(void)
{
	unsetenv("PBENCH_SYSFS_ROOT");
	unsetenv("PBENCH_PROCFS_ROOT");
}

Test(live, every_check_once, .init = live)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct pbench_check *env = run((int[]){ 0, ncpu > 1 ? 1 : 0 }, ncpu > 1 ? 2 : 1);
	const struct pbench_check_finding *pmu = find_check(env, "perf.pmu", -1);

	assert_well_formed(env);
	/* Live, perf.pmu tries to open cycles: it says so whatever the outcome. */
	cr_assert(strstr(pmu->value, "cycles") != NULL || pmu->status == OK,
		  "perf.pmu did not try cycles: '%s'", pmu->value);
	if (pmu->status == OK)
		cr_assert(strstr(pmu->value, "cycles opens") != NULL);
	else
		cr_log_info("no hardware PMU here: %s", pmu->value);
#if defined(__x86_64__) || defined(__i386__)
	cr_assert(strstr(find_check(env, "clock.tsc", 0)->value, "CPUID invariant TSC") != NULL,
		  "live clock.tsc adds the CPUID bit");
#endif
	pbench_check_free(env);
}

Test(live, aslr_personality, .init = live)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;
	long v = -1;
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	if (v <= 0)
		cr_skip_test("ASLR is off on this machine (randomize_va_space is %ld): nothing to switch off", v);
	cr_assert_neq(personality(ADDR_NO_RANDOMIZE), -1);
	env = run((int[]){ 0 }, 1);
	c = find_check(env, "aslr", -1);
	cr_assert_eq(c->status, OK, "value '%s'", c->value);
	cr_assert(strstr(c->value, "ADDR_NO_RANDOMIZE") != NULL, "value '%s'", c->value);
	pbench_check_free(env);
}

Test(live, steal_over_window, .init = live)
{
	struct pbench_check *env = NULL;
	const struct pbench_check_finding *c;

	cr_assert_eq(pbench_check(&env, (int[]){ 0 }, 1, 0), 0);
	c = find_check(env, "virt.steal", 0);
	cr_assert(strstr(c->value, "over the last 200 ms") != NULL, "value '%s'", c->value);
	cr_assert(strstr(c->value, "since boot") != NULL, "value '%s'", c->value);
	pbench_check_free(env);
}
