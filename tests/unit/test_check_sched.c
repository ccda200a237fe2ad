/* SPDX-License-Identifier: MIT */
/*
 * The isolation, interrupts and scheduler checks (lib/src/check/check_sched.c) on the recorded and
 * reconstructed machine trees (tests/fixtures/, see its README for the machines), and on small
 * trees built here for the cases none of those machines shows.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "pbench.h"

#define OK PBENCH_CHECK_OK
#define INFO PBENCH_CHECK_INFO
#define WARN PBENCH_CHECK_WARN
#define BAD PBENCH_CHECK_BAD
#define UNKNOWN PBENCH_CHECK_UNKNOWN

static const char *const my_ids[] = {
	"isolation.isolcpus", "isolation.nohz_full", "isolation.rcu_nocbs", "irq.affinity",
	"sched.rt_throttling", "sched.load", "sched.timer_migration", "vm.stat_interval",
	"kernel.nmi_watchdog", "kernel.watchdog_cpumask", "kernel.numa_balancing",
	"cgroup.cpu_quota", "cgroup.cpuset",
};
/* Machine-wide ones are reported with cpu -1. */
static int machine_wide(const char *id)
{
	return !strcmp(id, "sched.rt_throttling") || !strcmp(id, "sched.timer_migration") ||
	       !strcmp(id, "vm.stat_interval") || !strcmp(id, "kernel.nmi_watchdog") ||
	       !strcmp(id, "kernel.numa_balancing") || !strcmp(id, "cgroup.cpu_quota");
}

static int mine(const struct pbench_check_finding *c)
{
	return !strcmp(c->group, "isolation") || !strcmp(c->group, "interrupts") ||
	       !strcmp(c->group, "scheduler");
}

static struct pbench_check *run(const char *root, const int *cpus, int n)
{
	struct pbench_check *env = NULL;
	int err;

	use_root(root);
	err = pbench_check(&env, cpus, n, PBENCH_CHECK_NO_WINDOW);
	cr_assert_eq(err, 0, "pbench_check on %s: %d", root, err);
	return env;
}

static const struct pbench_check_finding *find(const struct pbench_check *env, const char *id, int cpu)
{
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (!strcmp(c->id, id) && c->cpu == cpu)
			return c;
	}
	return NULL;
}

/* The finding exists once, has the status, and its value (or another field) holds text. */
static const struct pbench_check_finding *expect(const struct pbench_check *env, const char *id, int cpu,
					 int status, const char *text)
{
	const struct pbench_check_finding *c = find(env, id, cpu);
	int n = 0;

	cr_assert_not_null(c, "no finding %s for cpu %d", id, cpu);
	for (int i = 0; i < pbench_check_nr(env); i++)
		n += !strcmp(pbench_check_get(env, i)->id, id) && pbench_check_get(env, i)->cpu == cpu;
	cr_expect_eq(n, 1, "%s cpu %d reported %d times", id, cpu, n);
	cr_expect_eq(c->status, status, "%s cpu %d: status %s, want %s (value \"%s\")", id, cpu,
		     pbench_check_status_name(c->status), pbench_check_status_name(status),
		     c->value);
	if (text)
		cr_expect(strstr(c->value, text), "%s cpu %d: value \"%s\" lacks \"%s\"", id, cpu,
			  c->value, text);
	return c;
}

/* Every warn/bad finding of these groups says why and how to fix it. */
static void expect_explained(const struct pbench_check *env)
{
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (!mine(c) || (c->status != WARN && c->status != BAD))
			continue;
		cr_expect(c->why[0], "%s cpu %d is %s without why", c->id, c->cpu,
			  pbench_check_status_name(c->status));
		cr_expect(c->fix[0], "%s cpu %d is %s without fix", c->id, c->cpu,
			  pbench_check_status_name(c->status));
	}
}

/* Every id of these groups is there for each target CPU (or once, machine-wide). */
static void expect_all_ids(const struct pbench_check *env, const int *cpus, int n)
{
	for (size_t k = 0; k < sizeof(my_ids) / sizeof(my_ids[0]); k++)
		for (int i = 0; i < (machine_wide(my_ids[k]) ? 1 : n); i++)
			cr_expect_not_null(find(env, my_ids[k],
						machine_wide(my_ids[k]) ? -1 : cpus[i]),
					   "%s missing for cpu %d", my_ids[k], cpus[i]);
}

/* ---- the five machine trees ------------------------------------------------------------- */

struct row {
	const char *tree;
	const char *id;
	int cpu;
	int status;
	const char *text;	/* a substring of the value */
};

/* Expected from what each machine is (tests/fixtures/README.md): the VM was recorded, the
 * other four reconstructed as described there. */
static const struct row rows[] = {
	/* the development VM: 2 vCPUs, 6.18, no isolation, no NO_HZ_FULL, cgroup v1 */
	{ "vm-kvm-2cpu", "isolation.isolcpus", 1, WARN, "not isolated (isolated: none)" },
	{ "vm-kvm-2cpu", "isolation.nohz_full", 1, INFO, "without CONFIG_NO_HZ_FULL" },
	{ "vm-kvm-2cpu", "isolation.rcu_nocbs", 1, INFO, "no rcu_nocbs=" },
	{ "vm-kvm-2cpu", "irq.affinity", 1, WARN, "19 of 19 IRQs may run on CPU 1" },
	{ "vm-kvm-2cpu", "irq.affinity", 1, WARN, "36:virtio1-req.0 43128" },
	{ "vm-kvm-2cpu", "sched.rt_throttling", -1, WARN, "fair server 50 ms per 1000 ms" },
	{ "vm-kvm-2cpu", "sched.rt_throttling", -1, WARN, "950000 of 1000000" },
	{ "vm-kvm-2cpu", "sched.load", 1, OK, "8% busy since boot; 1 running, load 0.08 on 2" },
	{ "vm-kvm-2cpu", "sched.load", 1, OK, "no other task bound here (8 kernel" },
	{ "vm-kvm-2cpu", "sched.timer_migration", -1, WARN, "1" },
	{ "vm-kvm-2cpu", "vm.stat_interval", -1, WARN, "1 s" },
	{ "vm-kvm-2cpu", "kernel.nmi_watchdog", -1, OK, "0" },
	{ "vm-kvm-2cpu", "kernel.watchdog_cpumask", 1, INFO, "in watchdog_cpumask 0-1" },
	{ "vm-kvm-2cpu", "kernel.numa_balancing", -1, OK, "0" },
	{ "vm-kvm-2cpu", "cgroup.cpu_quota", -1, OK, "no quota (cpu.cfs_quota_us -1)" },
	{ "vm-kvm-2cpu", "cgroup.cpuset", 1, OK, "includes CPU 1 (cpuset 0-1 at /)" },

	/* Intel laptop: Ubuntu 6.5 (no NO_HZ_FULL), irqbalance, nmi_watchdog 1, cgroup v2 */
	{ "intel-laptop", "isolation.isolcpus", 1, WARN, "isolated: none" },
	{ "intel-laptop", "isolation.nohz_full", 1, INFO, "not available" },
	{ "intel-laptop", "isolation.rcu_nocbs", 1, INFO, "RCU callbacks run on CPU 1" },
	{ "intel-laptop", "irq.affinity", 1, WARN, "9 of 27 IRQs may run on CPU 1 (irqbalance" },
	{ "intel-laptop", "irq.affinity", 1, WARN, "LOC 4812337, 138:iwlwifi: queue 1 311287" },
	{ "intel-laptop", "sched.rt_throttling", -1, WARN, "950000 of 1000000 us (kernel 6.5" },
	{ "intel-laptop", "sched.load", 1, OK, "8% busy since boot; 2 running, load 0.62 on 8" },
	{ "intel-laptop", "sched.timer_migration", -1, WARN, "1" },
	{ "intel-laptop", "vm.stat_interval", -1, WARN, "1 s" },
	{ "intel-laptop", "kernel.nmi_watchdog", -1, WARN, "1" },
	{ "intel-laptop", "kernel.watchdog_cpumask", 1, INFO, "0-7" },
	{ "intel-laptop", "kernel.numa_balancing", -1, OK, "0" },
	{ "intel-laptop", "cgroup.cpu_quota", -1, OK, "no quota (cpu.max max 100000)" },
	{ "intel-laptop", "cgroup.cpuset", 1, OK, "cpuset 0-7 at /" },

	/* AMD workstation: Ubuntu 6.8 (NO_HZ_FULL, "(null)" mask), 32 CPUs, managed NVMe */
	{ "amd-workstation", "isolation.isolcpus", 1, WARN, "isolated: none" },
	{ "amd-workstation", "isolation.nohz_full", 1, WARN, "tick runs (nohz_full: none)" },
	{ "amd-workstation", "isolation.rcu_nocbs", 1, INFO, "no rcu_nocbs=" },
	{ "amd-workstation", "irq.affinity", 1, WARN, "5 of 32 IRQs may run on CPU 1" },
	{ "amd-workstation", "irq.affinity", 1, WARN, "33:nvme0q2 127001" },
	{ "amd-workstation", "sched.rt_throttling", -1, WARN, "(kernel 6.8" },
	{ "amd-workstation", "sched.load", 1, OK, "3% busy since boot" },
	{ "amd-workstation", "sched.timer_migration", -1, WARN, "1" },
	{ "amd-workstation", "vm.stat_interval", -1, WARN, "1 s" },
	{ "amd-workstation", "kernel.nmi_watchdog", -1, WARN, "1" },
	{ "amd-workstation", "kernel.watchdog_cpumask", 1, INFO, "0-31" },
	{ "amd-workstation", "kernel.numa_balancing", -1, OK, "0" },
	{ "amd-workstation", "cgroup.cpu_quota", -1, OK, "max 100000" },
	{ "amd-workstation", "cgroup.cpuset", 1, OK, "cpuset 0-31" },

	/* tuned server: isolcpus/nohz_full/rcu_nocbs=2-3, RHEL 9 5.14; CPU 1 housekeeping */
	{ "tuned-server", "isolation.isolcpus", 2, OK, "isolated (isolated: 2-3, isolcpus=2-3)" },
	{ "tuned-server", "isolation.isolcpus", 1, WARN, "not isolated (isolated: 2-3)" },
	{ "tuned-server", "isolation.nohz_full", 2, OK, "tickless when one task runs" },
	{ "tuned-server", "isolation.nohz_full", 1, WARN, "tick runs (nohz_full: 2-3)" },
	{ "tuned-server", "isolation.rcu_nocbs", 2, OK, "rcuop/2" },
	{ "tuned-server", "isolation.rcu_nocbs", 1, INFO, "(rcu_nocbs=2-3)" },
	{ "tuned-server", "irq.affinity", 2, OK, "0 of 19 IRQs may run on CPU 2" },
	{ "tuned-server", "irq.affinity", 2, OK, "busiest here: LOC 61342" },
	{ "tuned-server", "irq.affinity", 1, WARN, "8 of 19 IRQs may run on CPU 1" },
	{ "tuned-server", "sched.rt_throttling", -1, OK, "-1 (RT throttling off)" },
	{ "tuned-server", "sched.load", 2, OK, "0% busy since boot" },
	{ "tuned-server", "sched.load", 2, OK, "no other task bound here (4 kernel" },
	{ "tuned-server", "sched.load", 1, OK, "2% busy since boot" },
	{ "tuned-server", "sched.timer_migration", -1, OK, "0" },
	{ "tuned-server", "vm.stat_interval", -1, OK, "10 s" },
	{ "tuned-server", "kernel.nmi_watchdog", -1, OK, "0" },
	{ "tuned-server", "kernel.watchdog_cpumask", 2, OK, "not in watchdog_cpumask 0-1,4-7" },
	{ "tuned-server", "kernel.watchdog_cpumask", 1, INFO, "CPU 1 in watchdog_cpumask" },
	{ "tuned-server", "kernel.numa_balancing", -1, OK, "0" },
	/* sshd.service has no cpu.max: system.slice's applies */
	{ "tuned-server", "cgroup.cpu_quota", -1, OK, "no quota (cpu.max max 100000)" },
	{ "tuned-server", "cgroup.cpuset", 2, OK, "includes CPU 2 (cpuset 0-7" },

	/* the second AMD VM (recorded on a shared, busy machine): as the first, busier */
	{ "vm-amd-epyc", "isolation.isolcpus", 1, WARN, "not isolated (isolated: none)" },
	{ "vm-amd-epyc", "isolation.nohz_full", 1, INFO, "without CONFIG_NO_HZ_FULL" },
	{ "vm-amd-epyc", "isolation.rcu_nocbs", 1, INFO, "no rcu_nocbs=" },
	{ "vm-amd-epyc", "irq.affinity", 1, WARN, "19 of 19 IRQs may run on CPU 1" },
	{ "vm-amd-epyc", "irq.affinity", 1, WARN, "36:virtio1-req.0 54967" },
	{ "vm-amd-epyc", "sched.rt_throttling", -1, WARN, "fair server 50 ms per 1000 ms" },
	{ "vm-amd-epyc", "sched.rt_throttling", -1, WARN, "(kernel 6.18.44-fc-v782)" },
	{ "vm-amd-epyc", "sched.load", 1, WARN, "48% busy since boot; 6 running, load 3.02 on 2" },
	{ "vm-amd-epyc", "sched.load", 1, WARN, "no other task bound here (8 kernel" },
	{ "vm-amd-epyc", "sched.timer_migration", -1, WARN, "1" },
	{ "vm-amd-epyc", "vm.stat_interval", -1, WARN, "1 s" },
	{ "vm-amd-epyc", "kernel.nmi_watchdog", -1, OK, "0" },
	{ "vm-amd-epyc", "kernel.watchdog_cpumask", 1, INFO, "in watchdog_cpumask 0-1" },
	{ "vm-amd-epyc", "kernel.numa_balancing", -1, OK, "0" },
	{ "vm-amd-epyc", "cgroup.cpu_quota", -1, OK, "no quota (cpu.cfs_quota_us -1)" },
	{ "vm-amd-epyc", "cgroup.cpuset", 1, OK, "includes CPU 1 (cpuset 0-1 at /)" },

	/* container: cgroup v2 namespace, cpu.max 150000 100000, throttled; Debian 6.1 */
	{ "container-quota", "isolation.isolcpus", 1, WARN, "isolated: none" },
	{ "container-quota", "isolation.nohz_full", 1, WARN, "nohz_full: none" },
	{ "container-quota", "isolation.rcu_nocbs", 1, INFO, "no rcu_nocbs=" },
	{ "container-quota", "irq.affinity", 1, WARN, "13 of 26 IRQs may run on CPU 1;" },
	{ "container-quota", "irq.affinity", 1, WARN, "28:virtio0-request 404224" },
	{ "container-quota", "sched.rt_throttling", -1, WARN, "950000 of 1000000 us" },
	{ "container-quota", "sched.load", 1, WARN, "35% busy since boot; 5 running, load 5.84" },
	{ "container-quota", "sched.timer_migration", -1, WARN, "1" },
	{ "container-quota", "vm.stat_interval", -1, WARN, "1 s" },
	{ "container-quota", "kernel.nmi_watchdog", -1, OK, "0" },
	{ "container-quota", "kernel.watchdog_cpumask", 1, INFO, "0-7" },
	{ "container-quota", "kernel.numa_balancing", -1, OK, "0" },
	{ "container-quota", "cgroup.cpu_quota", -1, BAD,
	  "1.50 CPUs (cpu.max 150000 100000 at /); throttled 4821 times, 93.0 s" },
	{ "container-quota", "cgroup.cpuset", 1, OK, "includes CPU 1" },
};

static void check_tree(const char *tree, const int *cpus, int n)
{
	char root[256];
	struct pbench_check *env;
	int rows_seen = 0;

	snprintf(root, sizeof(root), "tests/fixtures/%s", tree);
	env = run(root, cpus, n);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (strcmp(rows[i].tree, tree))
			continue;
		expect(env, rows[i].id, rows[i].cpu, rows[i].status, rows[i].text);
		rows_seen++;
	}
	cr_assert_gt(rows_seen, 0);
	/* Every id of these groups has a row for this tree. */
	for (size_t k = 0; k < sizeof(my_ids) / sizeof(my_ids[0]); k++) {
		int have = 0;

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			have |= !strcmp(rows[i].tree, tree) && !strcmp(rows[i].id, my_ids[k]);
		cr_expect(have, "no row for %s on %s", my_ids[k], tree);
	}
	expect_all_ids(env, cpus, n);
	expect_explained(env);
	pbench_check_free(env);
}

Test(env_sched, vm_kvm_2cpu)
{
	check_tree("vm-kvm-2cpu", (int[]){ 1 }, 1);
}

Test(env_sched, vm_amd_epyc)
{
	check_tree("vm-amd-epyc", (int[]){ 1 }, 1);
}

Test(env_sched, intel_laptop)
{
	check_tree("intel-laptop", (int[]){ 1 }, 1);
}

Test(env_sched, amd_workstation)
{
	check_tree("amd-workstation", (int[]){ 1 }, 1);
}

Test(env_sched, tuned_server)
{
	check_tree("tuned-server", (int[]){ 1, 2 }, 2);
}

Test(env_sched, container_quota)
{
	check_tree("container-quota", (int[]){ 1 }, 1);
}

/* The fixes name the right things on the machine trees. */
Test(env_sched, fixes_on_trees)
{
	struct pbench_check *env = run("tests/fixtures/tuned-server", (int[]){ 1, 2 }, 2);
	const struct pbench_check_finding *c;

	/* RHEL: grubby, and the new isolcpus list keeps CPUs 2-3 */
	c = expect(env, "isolation.isolcpus", 1, WARN, NULL);
	cr_expect(strstr(c->fix, "--cpu 2-3"), "%s", c->fix);
	cr_expect(strstr(c->fix, "sudo grubby --update-kernel=ALL --args=\"isolcpus=1-3\""), "%s",
		  c->fix);
	/* IRQs go to the housekeeping CPUs, not onto the isolated ones */
	c = expect(env, "irq.affinity", 1, WARN, NULL);
	cr_expect(strstr(c->fix, "echo 0,4-7 | sudo tee /proc/irq/$i/smp_affinity_list"), "%s",
		  c->fix);
	cr_expect(strstr(c->fix, "systemctl stop irqbalance"), "%s", c->fix);
	c = expect(env, "kernel.watchdog_cpumask", 1, INFO, NULL);
	cr_expect(strstr(c->fix, "kernel.watchdog_cpumask=0,4-7"), "%s", c->fix);
	pbench_check_free(env);

	env = run("tests/fixtures/intel-laptop", (int[]){ 1 }, 1);
	c = expect(env, "isolation.isolcpus", 1, WARN, NULL);
	/* A recorded tree says nothing of that machine's /etc: the boot loader in general, no
	 * /etc/default/grub named for a file that may not be there. */
	cr_expect(strstr(c->fix, "add \"isolcpus=1\" to the kernel command line of your boot "
			 "loader"), "%s", c->fix);
	cr_expect(!strstr(c->fix, "/etc/default/grub"), "%s", c->fix);
	c = expect(env, "kernel.nmi_watchdog", -1, WARN, NULL);
	cr_expect_str_eq(c->fix, "sudo sysctl -w kernel.nmi_watchdog=0");
	c = expect(env, "sched.rt_throttling", -1, WARN, NULL);
	cr_expect(strstr(c->fix, "sudo sysctl -w kernel.sched_rt_runtime_us=-1"), "%s", c->fix);
	cr_expect(strstr(c->why, "50 ms of every 1000 ms"), "%s", c->why);
	pbench_check_free(env);

	env = run("tests/fixtures/container-quota", (int[]){ 1 }, 1);
	c = expect(env, "cgroup.cpu_quota", -1, BAD, NULL);
	cr_expect(strstr(c->fix, "echo max | sudo tee /sys/fs/cgroup/cpu.max"), "%s", c->fix);
	cr_expect(strstr(c->why, "up to 100 ms"), "%s", c->why);
	pbench_check_free(env);

	env = run("tests/fixtures/vm-kvm-2cpu", (int[]){ 1 }, 1);
	c = expect(env, "sched.rt_throttling", -1, WARN, NULL);
	cr_expect(strstr(c->fix, "echo 0 | sudo tee /sys/kernel/debug/sched/fair_server/cpu1/"
			  "runtime"), "%s", c->fix);
	cr_expect(strstr(c->why, "54 ms loop ran 104 ms"), "%s", c->why);
	pbench_check_free(env);
}

/* ---- trees built here ------------------------------------------------------------------- */

static char tmp_root[64];

static void wr(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	for (char *p = path + strlen(tmp_root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void rm_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	cr_assert_eq(remove(path), 0, "%s: %s", path, strerror(errno));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void tmp_fini(void)
{
	if (tmp_root[0])
		nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* An empty tree: sys/ and proc/ only. */
static void tmp_init(void)
{
	char p[128];

	snprintf(tmp_root, sizeof(tmp_root), "/tmp/pbench-sched-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp_root));
	snprintf(p, sizeof(p), "%s/sys", tmp_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc", tmp_root);
	mkdir(p, 0755);
}

/* A plain 4-CPU machine: nothing isolated, idle. */
static void tmp_machine(const char *osrelease, const char *cmdline)
{
	tmp_init();
	wr("sys/devices/system/cpu/present", "0-3\n");
	wr("sys/devices/system/cpu/online", "0-3\n");
	wr("sys/devices/system/cpu/possible", "0-3\n");
	wr("sys/devices/system/cpu/isolated", "\n");
	wr("proc/cmdline", cmdline);
	wr("proc/sys/kernel/osrelease", osrelease);
	wr("proc/stat", "cpu  400 0 400 39200 0 0 0 0 0 0\ncpu0 100 0 100 9800 0 0 0 0 0 0\n"
	   "cpu1 100 0 100 9800 0 0 0 0 0 0\ncpu2 100 0 100 9800 0 0 0 0 0 0\n"
	   "cpu3 100 0 100 9800 0 0 0 0 0 0\nprocs_running 1\nprocs_blocked 0\n");
	wr("proc/loadavg", "0.01 0.02 0.00 1/90 4321\n");
}

TestSuite(env_sched_tmp, .fini = tmp_fini);

Test(env_sched_tmp, empty_tree_is_unknown_or_info)
{
	struct pbench_check *env;

	tmp_init();
	env = run(tmp_root, (int[]){ 1 }, 1);
	expect_all_ids(env, (int[]){ 1 }, 1);
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (mine(c))
			cr_expect(c->status == UNKNOWN || c->status == INFO, "%s: %s \"%s\"", c->id,
				  pbench_check_status_name(c->status), c->value);
	}
	expect(env, "isolation.isolcpus", 1, UNKNOWN,
	       "cannot read /sys/devices/system/cpu/isolated");
	expect(env, "irq.affinity", 1, UNKNOWN, "cannot read /proc/irq/*/smp_affinity_list");
	expect(env, "sched.rt_throttling", -1, UNKNOWN, "sched_rt_");
	expect(env, "vm.stat_interval", -1, UNKNOWN, "/proc/sys/vm/stat_interval");
	expect(env, "cgroup.cpu_quota", -1, UNKNOWN, "/proc/self/cgroup");
	pbench_check_free(env);
}

Test(env_sched_tmp, garbage_is_unknown)
{
	static const struct { const char *id; int cpu, status; } want[] = {
		{ "isolation.isolcpus", 1, UNKNOWN }, { "isolation.nohz_full", 1, UNKNOWN },
		{ "isolation.rcu_nocbs", 1, UNKNOWN }, { "irq.affinity", 1, UNKNOWN },
		{ "sched.rt_throttling", -1, UNKNOWN }, { "sched.load", 1, UNKNOWN },
		{ "sched.timer_migration", -1, UNKNOWN }, { "vm.stat_interval", -1, UNKNOWN },
		{ "kernel.nmi_watchdog", -1, UNKNOWN }, { "kernel.watchdog_cpumask", 1, UNKNOWN },
		{ "kernel.numa_balancing", -1, UNKNOWN }, { "cgroup.cpuset", 1, UNKNOWN },
	};
	struct pbench_check *env;

	tmp_init();
	wr("sys/devices/system/cpu/isolated", "two-three\n");
	wr("sys/devices/system/cpu/nohz_full", "\x01\x02garbage");
	wr("proc/cmdline", "isolcpus=domain,x nohz_full=zz rcu_nocbs=3-1\n");
	wr("proc/interrupts", "garbage\n:::\n 5: x y\n");
	wr("proc/irq/5/smp_affinity_list", "zz\n");
	wr("proc/stat", "cpu1 x y z\nprocs_running\n");
	wr("proc/loadavg", "x y z\n");
	wr("proc/sys/kernel/osrelease", "weird\n");
	wr("proc/sys/kernel/sched_rt_runtime_us", "lots\n");
	wr("proc/sys/kernel/sched_rt_period_us", "\n");
	wr("proc/sys/kernel/timer_migration", "yes\n");
	wr("proc/sys/kernel/nmi_watchdog", "-\n");
	wr("proc/sys/kernel/numa_balancing", "\n");
	wr("proc/sys/kernel/watchdog", "1\n");
	wr("proc/sys/kernel/watchdog_cpumask", "0-x\n");
	wr("proc/sys/vm/stat_interval", "often\n");
	wr("proc/self/cgroup", "0::/box\n");
	wr("sys/fs/cgroup/cgroup.controllers", "cpu cpuset\n");
	wr("sys/fs/cgroup/box/cpu.max", "lots of it\n");
	wr("sys/fs/cgroup/box/cpuset.cpus.effective", "0-\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		expect(env, want[i].id, want[i].cpu, want[i].status, NULL);
	expect(env, "cgroup.cpu_quota", -1, UNKNOWN,
	       "cannot parse cpu.max at /box: \"lots of it\"");
	pbench_check_free(env);
}

Test(env_sched_tmp, nohz_full_with_active_intel_pstate)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	tmp_machine("6.5.0-14-generic\n", "quiet nohz_full=1-3\n");
	wr("sys/devices/system/cpu/nohz_full", "1-3\n");
	wr("sys/devices/system/cpu/intel_pstate/status", "active\n");
	env = run(tmp_root, (int[]){ 2, 0 }, 2);
	c = expect(env, "isolation.nohz_full", 2, WARN, "intel_pstate is active");
	cr_expect(strstr(c->why, "tick"), "%s", c->why);
	cr_expect(strstr(c->fix, "echo passive | sudo tee /sys/devices/system/cpu/intel_pstate/"
			  "status"), "%s", c->fix);
	/* CPU 0 keeps the tick: no boot parameter makes it tickless */
	c = expect(env, "isolation.nohz_full", 0, WARN, "tick runs (nohz_full: 1-3)");
	cr_expect(strstr(c->fix, "CPU 0 keeps the tick"), "%s", c->fix);
	/* nohz_full implies rcu_nocbs */
	expect(env, "isolation.rcu_nocbs", 2, OK, "implied by nohz_full: 1-3");
	pbench_check_free(env);

	wr("sys/devices/system/cpu/intel_pstate/status", "passive\n");
	env = run(tmp_root, (int[]){ 2 }, 1);
	expect(env, "isolation.nohz_full", 2, OK, "nohz_full: 1-3");
	pbench_check_free(env);
}

Test(env_sched_tmp, isolcpus_flag_forms)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	/* No sysfs file: the command line decides, flags and all. */
	tmp_machine("6.8.0-31-generic\n",
		    "BOOT_IMAGE=/vmlinuz isolcpus=domain,managed_irq,2-3 rcu_nocbs=2-3 quiet\n");
	rm_rel("sys/devices/system/cpu/isolated");
	env = run(tmp_root, (int[]){ 2, 1 }, 2);
	expect(env, "isolation.isolcpus", 2, OK, "isolated (isolcpus=domain,managed_irq,2-3)");
	c = expect(env, "isolation.isolcpus", 1, WARN, "not isolated");
	cr_expect(strstr(c->fix, "\"isolcpus=domain,managed_irq,1-3\""), "%s", c->fix);
	expect(env, "isolation.rcu_nocbs", 2, OK, "offloaded (rcu_nocbs=2-3)");
	c = expect(env, "isolation.rcu_nocbs", 1, INFO, "(rcu_nocbs=2-3)");
	cr_expect(strstr(c->fix, "\"rcu_nocbs=1-3\""), "%s", c->fix);
	pbench_check_free(env);

	/* Flags without "domain" keep the scheduler balancing onto the CPUs. */
	wr("proc/cmdline", "isolcpus=managed_irq,2-3 -- isolcpus=2\n");
	env = run(tmp_root, (int[]){ 2 }, 1);
	c = expect(env, "isolation.isolcpus", 2, WARN, "has no \"domain\" flag");
	cr_expect(strstr(c->fix, "\"isolcpus=domain,managed_irq,2-3\""), "%s", c->fix);
	pbench_check_free(env);

	/* Given twice, the last one counts (the kernel applies them in order). */
	wr("proc/cmdline", "isolcpus=2 isolcpus=managed_irq,2-3 -- isolcpus=2\n");
	env = run(tmp_root, (int[]){ 2 }, 1);
	expect(env, "isolation.isolcpus", 2, WARN, "isolcpus=managed_irq,2-3 has no \"domain\"");
	pbench_check_free(env);

	/* sysfs wins over the command line; Red Hat kernels get grubby. */
	wr("sys/devices/system/cpu/isolated", "3\n");
	wr("proc/cmdline", "isolcpus=nohz,domain,3\n");
	wr("proc/sys/kernel/osrelease", "5.14.0-362.8.1.el9_3.x86_64\n");
	env = run(tmp_root, (int[]){ 2, 3 }, 2);
	expect(env, "isolation.isolcpus", 3, OK, "isolated (isolated: 3, isolcpus=nohz,domain,3)");
	c = expect(env, "isolation.isolcpus", 2, WARN, "not isolated (isolated: 3)");
	cr_expect(strstr(c->fix, "--cpu 3"), "%s", c->fix);
	cr_expect(strstr(c->fix, "sudo grubby --update-kernel=ALL --args=\"isolcpus=nohz,domain,"
			  "2-3\""), "%s", c->fix);
	pbench_check_free(env);
}

Test(env_sched_tmp, rt_throttling_by_kernel)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	tmp_machine("6.1.0-18-cloud-amd64\n", "quiet\n");
	wr("proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	wr("proc/sys/kernel/sched_rt_period_us", "1000000\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	expect(env, "sched.rt_throttling", -1, OK, "-1 (RT throttling off)");
	pbench_check_free(env);

	/* 6.12: -1 does not stop the fair server */
	wr("proc/sys/kernel/osrelease", "6.12.1\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	c = expect(env, "sched.rt_throttling", -1, WARN, "fair server 50 ms per 1000 ms (the "
		   "default; debugfs not readable); sched_rt_runtime_us -1");
	cr_expect(!strstr(c->fix, "sched_rt_runtime_us=-1"), "already -1: %s", c->fix);
	pbench_check_free(env);

	wr("sys/kernel/debug/sched/fair_server/cpu1/runtime", "50000000\n");
	wr("sys/kernel/debug/sched/fair_server/cpu1/period", "1000000000\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	expect(env, "sched.rt_throttling", -1, WARN, "fair server 50 ms per 1000 ms on CPU 1");
	pbench_check_free(env);

	wr("sys/kernel/debug/sched/fair_server/cpu1/runtime", "0\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	expect(env, "sched.rt_throttling", -1, OK, "fair server off");
	pbench_check_free(env);

	wr("proc/sys/kernel/osrelease", "5.15.0\n");
	wr("proc/sys/kernel/sched_rt_runtime_us", "900000\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	c = expect(env, "sched.rt_throttling", -1, WARN, "900000 of 1000000 us");
	cr_expect(strstr(c->why, "loses 100 ms of every 1000 ms"), "%s", c->why);
	pbench_check_free(env);
}

Test(env_sched_tmp, sysctls_and_watchdog)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	tmp_machine("6.8.0\n", "nohz_full=2\n");
	wr("sys/devices/system/cpu/nohz_full", "2\n");
	wr("proc/sys/kernel/numa_balancing", "1\n");
	wr("proc/sys/kernel/timer_migration", "0\n");
	wr("proc/sys/kernel/watchdog", "1\n");
	wr("proc/sys/kernel/watchdog_cpumask", "0-3\n");
	wr("proc/sys/vm/stat_interval", "120\n");
	env = run(tmp_root, (int[]){ 2, 1 }, 2);
	c = expect(env, "kernel.numa_balancing", -1, WARN, "1");
	cr_expect_str_eq(c->fix, "sudo sysctl -w kernel.numa_balancing=0");
	expect(env, "sched.timer_migration", -1, OK, "0");
	expect(env, "vm.stat_interval", -1, OK, "120 s");
	expect(env, "kernel.nmi_watchdog", -1, INFO, "no NMI watchdog");
	/* a tickless CPU the soft-lockup timer still wakes */
	c = expect(env, "kernel.watchdog_cpumask", 2, WARN, "CPU 2 in watchdog_cpumask 0-3");
	cr_expect(strstr(c->why, "2/5 of watchdog_thresh (4 s by default)"), "%s", c->why);
	cr_expect_str_eq(c->fix, "sudo sysctl -w kernel.watchdog_cpumask=0-1,3");
	expect(env, "kernel.watchdog_cpumask", 1, INFO, "CPU 1 in");
	pbench_check_free(env);

	wr("proc/sys/kernel/watchdog_cpumask", "2\n");
	wr("proc/sys/kernel/watchdog_thresh", "5\n");
	env = run(tmp_root, (int[]){ 2 }, 1);
	c = expect(env, "kernel.watchdog_cpumask", 2, WARN, NULL);
	cr_expect_str_eq(c->fix, "sudo sysctl -w kernel.watchdog=0");
	cr_expect(strstr(c->why, "every 2.0 s"), "%s", c->why);
	pbench_check_free(env);

	wr("proc/sys/kernel/watchdog", "0\n");
	env = run(tmp_root, (int[]){ 2 }, 1);
	expect(env, "kernel.watchdog_cpumask", 2, OK, "lockup detectors off");
	pbench_check_free(env);
}

static void task(int pid, const char *name, const char *allowed)
{
	char rel[64], text[256];

	snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
	snprintf(text, sizeof(text), "%s\n", name);
	wr(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nState:\tR (running)\nTgid:\t%d\n"
		 "Cpus_allowed_list:\t%s\n", name, pid, allowed);
	wr(rel, text);
}

Test(env_sched_tmp, load_and_bound_tasks)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	tmp_machine("6.8.0\n", "quiet\n");
	task(1, "systemd", "0-3");
	task(20, "ksoftirqd/1", "1");
	task(21, "kworker/1:2-events", "1");
	task(4242, "spinner", "1");
	task(4243, "pair", "1-2");
	task(4244, "wide", "0-2");
	env = run(tmp_root, (int[]){ 1 }, 1);
	c = expect(env, "sched.load", 1, WARN, "bound here: ");
	cr_expect(strstr(c->value, "spinner (4242)"), "%s", c->value);
	cr_expect(strstr(c->value, "pair (4243)"), "%s", c->value);
	cr_expect(!strstr(c->value, "wide"), "3 of 4 CPUs is not bound: %s", c->value);
	cr_expect(strstr(c->value, "(2 kernel per-CPU threads)"), "%s", c->value);
	cr_expect(strstr(c->fix, "sudo taskset -a -pc 0,2-3 4242"), "%s", c->fix);
	cr_expect(strstr(c->fix, "sudo taskset -a -pc 2 4243"), "%s", c->fix);
	pbench_check_free(env);

	/* CPU 1 busy 60% since boot, the others idle: bad, and CPU 2 is offered instead */
	wr("proc/stat", "cpu0 100 0 100 9800 0 0 0 0 0 0\ncpu1 5000 0 1000 4000 0 0 0 0 0 0\n"
	   "cpu2 10 0 10 9980 0 0 0 0 0 0\ncpu3 100 0 100 9800 0 0 0 0 0 0\n"
	   "procs_running 2\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	c = expect(env, "sched.load", 1, BAD, "60% busy since boot");
	cr_expect(strstr(c->fix, "measure on CPU 2 (0% busy since boot)"), "%s", c->fix);
	pbench_check_free(env);

	/* more runnable tasks than CPUs */
	wr("proc/stat", "cpu1 100 0 100 9800 0 0 0 0 0 0\nprocs_running 9\n");
	wr("proc/loadavg", "6.10 5.00 4.00 9/300 4321\n");
	rm_rel("proc/4242/status");
	rm_rel("proc/4243/status");
	env = run(tmp_root, (int[]){ 1 }, 1);
	expect(env, "sched.load", 1, WARN, "2% busy since boot; 9 running, load 6.10 on 4 CPUs");
	pbench_check_free(env);
}

Test(env_sched_tmp, irq_cases)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	tmp_machine("6.8.0\n", "quiet\n");
	wr("proc/interrupts",
	   "           CPU0       CPU1       CPU3       \n"
	   "  4:        120          0          0   IO-APIC   4-edge      ttyS0\n"
	   " 30:          0         77          0   PCI-MSI 1-edge      eth0-rx, eth0-tx\n"
	   "LOC:       5000       3000       2900   Local timer interrupts\n"
	   "ERR:          0\n");
	wr("proc/irq/4/smp_affinity_list", "0\n");
	wr("proc/irq/30/smp_affinity_list", "0,3\n");
	env = run(tmp_root, (int[]){ 1, 2 }, 2);
	c = expect(env, "irq.affinity", 1, OK, "0 of 2 IRQs may run on CPU 1; busiest here: LOC "
		   "3000, 30:eth0-rx, eth0-tx 77");
	cr_expect_str_eq(c->why, "");
	/* CPU 2 is offline: no column in /proc/interrupts */
	expect(env, "irq.affinity", 2, OK, "(no column)");
	pbench_check_free(env);

	/* irqbalance may bring IRQs to a CPU that is not isolated */
	task(900, "irqbalance", "0-3");
	env = run(tmp_root, (int[]){ 1 }, 1);
	c = expect(env, "irq.affinity", 1, WARN, "(irqbalance running)");
	cr_expect(strstr(c->fix, "IRQBALANCE_BANNED_CPULIST=1"), "%s", c->fix);
	cr_expect(!strstr(c->fix, "for i in"), "no IRQ to move: %s", c->fix);
	pbench_check_free(env);

	wr("proc/irq/30/smp_affinity_list", "0-3\n");
	env = run(tmp_root, (int[]){ 3 }, 1);
	c = expect(env, "irq.affinity", 3, WARN, "1 of 2 IRQs may run on CPU 3");
	cr_expect(strstr(c->fix, "for i in 30; do echo 0-2 | sudo tee /proc/irq/$i/"
			  "smp_affinity_list; done"), "%s", c->fix);
	pbench_check_free(env);
}

Test(env_sched_tmp, cgroup_cases)
{
	struct pbench_check *env;
	const struct pbench_check_finding *c;

	/* v2: the parent's quota is tighter than the leaf's; the cpuset excludes CPU 3 */
	tmp_machine("6.8.0\n", "quiet\n");
	wr("proc/self/cgroup", "0::/jobs/job7\n");
	wr("sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory pids\n");
	wr("sys/fs/cgroup/cpuset.cpus.effective", "0-3\n");
	wr("sys/fs/cgroup/jobs/cpu.max", "50000 100000\n");
	wr("sys/fs/cgroup/jobs/cpu.stat", "usage_usec 10\nnr_periods 9\nnr_throttled 0\n"
	   "throttled_usec 0\n");
	wr("sys/fs/cgroup/jobs/cpuset.cpus.effective", "0-2\n");
	wr("sys/fs/cgroup/jobs/job7/cpu.max", "200000 100000\n");
	env = run(tmp_root, (int[]){ 3, 2 }, 2);
	c = expect(env, "cgroup.cpu_quota", -1, WARN, "0.50 CPUs (cpu.max 50000 100000 at /jobs); "
		   "throttled 0 times");
	cr_expect(strstr(c->fix, "echo max | sudo tee /sys/fs/cgroup/jobs/cpu.max"), "%s", c->fix);
	c = expect(env, "cgroup.cpuset", 3, BAD, "excludes CPU 3 (cpuset 0-2 at /jobs)");
	cr_expect(strstr(c->fix, "--cpu 0-2"), "%s", c->fix);
	expect(env, "cgroup.cpuset", 2, OK, "includes CPU 2");
	pbench_check_free(env);

	/* v2 without the cpu controller anywhere on the path */
	rm_rel("sys/fs/cgroup/jobs/cpu.max");
	rm_rel("sys/fs/cgroup/jobs/job7/cpu.max");
	env = run(tmp_root, (int[]){ 2 }, 1);
	expect(env, "cgroup.cpu_quota", -1, INFO, "no cpu.max on the way from cgroup /jobs/job7");
	pbench_check_free(env);

	/* v1, cpu and cpuacct together, throttled */
	tmp_fini();
	tmp_machine("5.4.0\n", "quiet\n");
	wr("proc/self/cgroup", "5:cpuset:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n");
	wr("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n");
	wr("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
	wr("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.stat", "nr_periods 100\nnr_throttled 7\n"
	   "throttled_time 2500000000\n");
	wr("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	wr("sys/fs/cgroup/cpuset/docker/abc/cpuset.effective_cpus", "1\n");
	env = run(tmp_root, (int[]){ 1 }, 1);
	c = expect(env, "cgroup.cpu_quota", -1, BAD, "2.00 CPUs (cpu.cfs_quota_us 200000 at "
		   "/docker/abc); throttled 7 times, 2.5 s");
	cr_expect(strstr(c->fix, "echo -1 | sudo tee /sys/fs/cgroup/cpu,cpuacct/docker/abc/"
			  "cpu.cfs_quota_us"), "%s", c->fix);
	expect(env, "cgroup.cpuset", 1, OK, "includes CPU 1 (cpuset 1 at /docker/abc)");
	pbench_check_free(env);
}
