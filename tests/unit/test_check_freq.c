/* SPDX-License-Identifier: MIT */
/*
 * The frequency and topology check groups (lib/src/check/check_freq.c): every check on every recorded
 * tree, then hand-built trees under /tmp for the cases no recorded machine shows (missing and
 * garbage files, a policy found only through affected_cpus, mains power, an offline sibling).
 *
 * Where the expected values come from (tests/fixtures/README.md describes each machine):
 *  - intel-laptop CPU 1: sibling CPU 5 has 691199 busy and 7957441 idle+iowait ticks in
 *    proc/stat, 8% busy since boot; thermal_throttle core 29 (core 1), package 1187.
 *  - amd-workstation CPU 1: sibling CPU 17, 259200 busy of 8648640 ticks, 3%: idle.
 *  - tuned-server CPU 2: intel_pstate passive, performance, min = max = 2900 MHz, no_turbo 1.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define OK PBENCH_CHECK_OK
#define INFO PBENCH_CHECK_INFO
#define WARN PBENCH_CHECK_WARN
#define BAD PBENCH_CHECK_BAD
#define UNKNOWN PBENCH_CHECK_UNKNOWN

static const char *const my_ids[] = {
	"cpufreq.governor", "cpufreq.min_max", "cpufreq.epp", "cpufreq.turbo", "thermal.throttle",
	"power.ac", "cpuidle.states", "smt.active", "smt.sibling",
};

static int is_mine(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(my_ids); i++)
		if (!strcmp(id, my_ids[i]))
			return 1;
	return 0;
}

static struct pbench_check *run(const int *cpus, int n)
{
	struct pbench_check *env;
	int err = pbench_check(&env, cpus, n, PBENCH_CHECK_NO_WINDOW);

	cr_assert_eq(err, 0, "pbench_check: %s", pbench_strerror(err));
	return env;
}

static void expect(const struct pbench_check *env, const char *what, const char *id, int cpu,
		   int status, const char *substr)
{
	const struct pbench_check_finding *c = find_check(env, id, cpu);

	cr_assert_eq(c->status, status, "%s: %s cpu %d is %s, want %s (value '%s')", what, id, cpu,
		     pbench_check_status_name(c->status), pbench_check_status_name(status),
		     c->value);
	cr_assert_not_null(strstr(c->value, substr), "%s: %s cpu %d value '%s' lacks '%s'", what,
			   id, cpu, c->value, substr);
	cr_assert_str_eq(c->group, !strncmp(id, "smt.", 4) ? "topology" : "frequency");
	if (status == WARN || status == BAD) {
		cr_assert_neq(c->why[0], '\0', "%s: %s has no why", what, id);
		cr_assert_neq(c->fix[0], '\0', "%s: %s has no fix", what, id);
	}
}

/* ---- the recorded trees ----------------------------------------------------------------- */

static const struct row {
	const char *tree;
	int cpu;	/* the target CPU; -1 rows are machine-wide and use the tree's target */
	const char *id;
	int status;
	const char *value;
} rows[] = {
	/* the development VM: no cpufreq, haltpoll, no SMT */
	{ "vm-kvm-2cpu", 1, "cpufreq.governor", INFO, "no cpufreq: frequency is controlled" },
	{ "vm-kvm-2cpu", 1, "cpufreq.min_max", INFO, "no cpufreq" },
	{ "vm-kvm-2cpu", 1, "cpufreq.epp", INFO, "no cpufreq" },
	{ "vm-kvm-2cpu", -1, "cpufreq.turbo", INFO, "no cpufreq" },
	{ "vm-kvm-2cpu", 1, "thermal.throttle", INFO, "no cpu1/thermal_throttle" },
	{ "vm-kvm-2cpu", -1, "power.ac", INFO, "no power supply" },
	{ "vm-kvm-2cpu", 1, "cpuidle.states", OK,
	  "haltpoll; enabled: POLL 0 us, haltpoll idle 1 us" },
	{ "vm-kvm-2cpu", -1, "smt.active", INFO, "not supported" },
	{ "vm-kvm-2cpu", 1, "smt.sibling", OK, "no SMT sibling" },
	/* the second AMD VM (recorded): no cpufreq, no cpuidle driver at all, no SMT */
	{ "vm-amd-epyc", 1, "cpufreq.governor", INFO, "no cpufreq: frequency is controlled" },
	{ "vm-amd-epyc", 1, "cpufreq.min_max", INFO, "no cpufreq" },
	{ "vm-amd-epyc", 1, "cpufreq.epp", INFO, "no cpufreq" },
	{ "vm-amd-epyc", -1, "cpufreq.turbo", INFO, "no cpufreq" },
	{ "vm-amd-epyc", 1, "thermal.throttle", INFO, "no cpu1/thermal_throttle" },
	{ "vm-amd-epyc", -1, "power.ac", INFO, "no power supply" },
	{ "vm-amd-epyc", 1, "cpuidle.states", INFO, "driver none: no idle states for CPU 1" },
	{ "vm-amd-epyc", -1, "smt.active", INFO, "not supported" },
	{ "vm-amd-epyc", 1, "smt.sibling", OK, "no SMT sibling (thread_siblings_list 1)" },
	/* the laptop: everything that moves the clock is on */
	{ "intel-laptop", 1, "cpufreq.governor", WARN, "powersave (intel_pstate active)" },
	{ "intel-laptop", 1, "cpufreq.min_max", WARN, "min 400 MHz, max 4600 MHz" },
	{ "intel-laptop", 1, "cpufreq.epp", WARN, "balance_performance (intel_pstate active)" },
	{ "intel-laptop", -1, "cpufreq.turbo", WARN, "on (intel_pstate/no_turbo 0)" },
	{ "intel-laptop", 1, "thermal.throttle", WARN, "core 29, package 1187" },
	{ "intel-laptop", -1, "power.ac", WARN, "on battery (AC offline, BAT0 Discharging)" },
	{ "intel-laptop", 1, "cpuidle.states", WARN, "C9 480 us, C10 890 us" },
	{ "intel-laptop", -1, "smt.active", WARN, "on (smt/control on, smt/active 1)" },
	{ "intel-laptop", 1, "smt.sibling", WARN, "CPU 5 online, 8% busy since boot" },
	/* the workstation: acpi-cpufreq, boost, a mouse battery that must not count */
	{ "amd-workstation", 1, "cpufreq.governor", WARN, "schedutil (acpi-cpufreq)" },
	{ "amd-workstation", 1, "cpufreq.min_max", WARN, "min 2200 MHz, max 3400 MHz" },
	{ "amd-workstation", 1, "cpufreq.epp", INFO, "acpi-cpufreq has none" },
	{ "amd-workstation", -1, "cpufreq.turbo", WARN, "on (cpufreq/boost 1)" },
	{ "amd-workstation", 1, "thermal.throttle", INFO, "no cpu1/thermal_throttle" },
	{ "amd-workstation", -1, "power.ac", INFO, "ignored device batteries: hidpp_battery_0" },
	{ "amd-workstation", 1, "cpuidle.states", WARN, "C2 18 us, C3 350 us" },
	{ "amd-workstation", -1, "smt.active", WARN, "on (smt/control on" },
	{ "amd-workstation", 1, "smt.sibling", OK, "CPU 17 online, 3% busy since boot" },
	/* the tuned server: as it should be */
	{ "tuned-server", 2, "cpufreq.governor", OK, "performance (intel_pstate passive)" },
	{ "tuned-server", 2, "cpufreq.min_max", OK, "min = max = 2900 MHz" },
	{ "tuned-server", 2, "cpufreq.epp", INFO, "intel_pstate passive has none" },
	{ "tuned-server", -1, "cpufreq.turbo", OK, "off (intel_pstate/no_turbo 1)" },
	{ "tuned-server", 2, "thermal.throttle", OK, "core 0, package 0" },
	{ "tuned-server", -1, "power.ac", INFO, "no power supply" },
	{ "tuned-server", 2, "cpuidle.states", OK, "acpi_idle; enabled: POLL 0 us, C1 1 us" },
	{ "tuned-server", -1, "smt.active", OK, "off (smt/control off)" },
	{ "tuned-server", 2, "smt.sibling", OK, "no SMT sibling" },
	/* the container's cloud VM: nothing to read, said so */
	{ "container-quota", 1, "cpufreq.governor", INFO, "no cpufreq" },
	{ "container-quota", 1, "cpufreq.min_max", INFO, "no cpufreq" },
	{ "container-quota", 1, "cpufreq.epp", INFO, "no cpufreq" },
	{ "container-quota", -1, "cpufreq.turbo", INFO, "no cpufreq" },
	{ "container-quota", 1, "thermal.throttle", INFO, "no cpu1/thermal_throttle" },
	{ "container-quota", -1, "power.ac", INFO, "no power supply" },
	{ "container-quota", 1, "cpuidle.states", INFO, "driver none: no idle states" },
	{ "container-quota", -1, "smt.active", INFO, "not supported" },
	{ "container-quota", 1, "smt.sibling", OK, "no SMT sibling" },
};

static int tree_cpu(const char *tree)
{
	return !strcmp(tree, "tuned-server") ? 2 : 1;
}

Test(env_freq, every_check_on_every_tree)
{
	static const char *const trees[] = { "vm-kvm-2cpu", "vm-amd-epyc", "intel-laptop",
					     "amd-workstation", "tuned-server", "container-quota" };

	for (size_t t = 0; t < ARRAY_SIZE(trees); t++) {
		int cpu = tree_cpu(trees[t]), seen = 0;
		struct pbench_check *env;

		use_tree(trees[t]);
		env = run(&cpu, 1);
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
			if (strcmp(rows[i].tree, trees[t]))
				continue;
			cr_assert(rows[i].cpu == -1 || rows[i].cpu == cpu);
			expect(env, trees[t], rows[i].id, rows[i].cpu, rows[i].status,
			       rows[i].value);
			seen++;
		}
		/* the table covers each check of both groups on each tree */
		cr_assert_eq(seen, (int)ARRAY_SIZE(my_ids), "%s: %d rows", trees[t], seen);
		pbench_check_free(env);
	}
}

/* Several targets: one finding per CPU for per-CPU checks, one for the machine-wide ones. */
Test(env_freq, one_finding_per_target_cpu)
{
	static const char *const machine_wide[] = { "cpufreq.turbo", "power.ac", "smt.active" };
	int cpus[] = { 1, 2, 6 };
	struct pbench_check *env;

	use_tree("intel-laptop");
	env = run(cpus, 3);
	for (size_t i = 0; i < ARRAY_SIZE(my_ids); i++) {
		int wide = 0, n = 0;

		for (size_t k = 0; k < ARRAY_SIZE(machine_wide); k++)
			wide |= !strcmp(my_ids[i], machine_wide[k]);
		for (int k = 0; k < pbench_check_nr(env); k++)
			n += !strcmp(pbench_check_get(env, k)->id, my_ids[i]);
		cr_assert_eq(n, wide ? 1 : 3, "%s reported %d times", my_ids[i], n);
		if (wide)
			find_check(env, my_ids[i], -1);
		else
			for (int k = 0; k < 3; k++)
				find_check(env, my_ids[i], cpus[k]);
	}
	/* each CPU's fix names its own policy and its own sibling */
	cr_assert_not_null(strstr(find_check(env, "cpufreq.governor", 2)->fix,
				  "echo performance | sudo tee /sys/devices/system/cpu/cpufreq/"
				  "policy2/scaling_governor"));
	cr_assert_not_null(strstr(find_check(env, "cpufreq.min_max", 6)->fix,
				  "echo 4600000 | sudo tee /sys/devices/system/cpu/cpufreq/policy6/"
				  "scaling_min_freq"));
	expect(env, "cpu 6", "smt.sibling", 6, WARN, "CPU 2 online");
	cr_assert_not_null(strstr(find_check(env, "smt.sibling", 6)->fix, "cpu2/online"));
	cr_assert_not_null(strstr(find_check(env, "cpuidle.states", 1)->fix,
				  "for s in 3 4 5 6 7 8; do echo 1 | sudo tee "
				  "/sys/devices/system/cpu/cpu1/cpuidle/state$s/disable; done"));
	cr_assert_not_null(strstr(find_check(env, "cpuidle.states", 1)->fix, "intel_idle.max_cstate=1"));
	cr_assert_not_null(strstr(find_check(env, "cpuidle.states", 1)->fix, "/dev/cpu_dma_latency"));
	cr_assert_not_null(strstr(find_check(env, "smt.active", -1)->fix,
				  "echo off | sudo tee /sys/devices/system/cpu/smt/control"));
	/* the range comes from the machine: policy1/base_frequency and cpuinfo_max_freq */
	cr_assert_not_null(strstr(find_check(env, "cpufreq.turbo", -1)->why, "anywhere from 1800 MHz "
				  "(base_frequency) up to 4600 MHz (cpuinfo_max_freq)"),
			   "%s", find_check(env, "cpufreq.turbo", -1)->why);
	pbench_check_free(env);
}

/* Every warn and bad finding of these groups says why and how to fix it, for every CPU. */
Test(env_freq, warnings_have_why_and_fix)
{
	static const struct {
		const char *tree;
		int cpus[4], n;
	} targets[] = {
		{ "vm-kvm-2cpu", { 0, 1 }, 2 },
		{ "vm-amd-epyc", { 0, 1 }, 2 },
		{ "intel-laptop", { 0, 3, 4, 7 }, 4 },
		{ "amd-workstation", { 0, 15, 16, 31 }, 4 },
		{ "tuned-server", { 0, 3, 7 }, 3 },
		{ "container-quota", { 0, 7 }, 2 },
	};
	int warnings = 0;

	for (size_t t = 0; t < ARRAY_SIZE(targets); t++) {
		struct pbench_check *env;

		use_tree(targets[t].tree);
		env = run(targets[t].cpus, targets[t].n);
		for (int i = 0; i < pbench_check_nr(env); i++) {
			const struct pbench_check_finding *c = pbench_check_get(env, i);

			if (!is_mine(c->id))
				continue;
			cr_assert_neq(c->value[0], '\0', "%s: %s", targets[t].tree, c->id);
			if (c->status != WARN && c->status != BAD)
				continue;
			warnings++;
			cr_assert_neq(c->why[0], '\0', "%s: %s lacks why", targets[t].tree, c->id);
			cr_assert_neq(c->fix[0], '\0', "%s: %s lacks fix", targets[t].tree, c->id);
		}
		pbench_check_free(env);
	}
	/* laptop: 6 per-CPU checks x 4 CPUs + turbo, power, SMT; workstation: governor,
	 * min_max, cpuidle x 4 + turbo, SMT, and CPU 16 whose sibling CPU 0 is 7% busy */
	cr_assert_eq(warnings, 6 * 4 + 3 + 3 * 4 + 2 + 1, "%d warnings", warnings);
}

/* ---- hand-built trees ------------------------------------------------------------------- */

static char root[64];

/* Write root/rel (creating its directories) with content; NULL content makes a directory. */
static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!content) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(content, f);
	fclose(f);
}

static void drop(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	cr_assert_eq(unlink(path), 0, "%s", path);
}

#define CPU "sys/devices/system/cpu/"

/* A 4-CPU machine, CPUs 1 and 3 SMT siblings, one cpufreq policy for all four CPUs that only
 * affected_cpus names (no cpuN/cpufreq links), a fixed clock, no turbo switch, AC online. */
static void make_tree(void)
{
	char sys[128], proc[128];

	snprintf(root, sizeof(root), "/tmp/pbench-freq-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	put(CPU "present", "0-3\n");
	put(CPU "online", "0-3\n");
	put(CPU "smt/control", "on\n");
	put(CPU "smt/active", "1\n");
	put(CPU "cpu1/topology/thread_siblings_list", "1,3\n");
	put(CPU "cpu3/topology/thread_siblings_list", "1,3\n");
	put(CPU "cpu2/topology/thread_siblings_list", "2\n");
	put(CPU "cpufreq/policy0/affected_cpus", "0 1 2 3\n");
	put(CPU "cpufreq/policy0/scaling_driver", "acpi-cpufreq\n");
	put(CPU "cpufreq/policy0/scaling_governor", "performance\n");
	put(CPU "cpufreq/policy0/scaling_min_freq", "800000\n");
	put(CPU "cpufreq/policy0/scaling_max_freq", "3000000\n");
	put(CPU "cpufreq/policy0/cpuinfo_min_freq", "800000\n");
	put(CPU "cpufreq/policy0/cpuinfo_max_freq", "3000000\n");
	put(CPU "cpuidle/current_driver", "intel_idle\n");
	put(CPU "cpu1/cpuidle/state0/name", "POLL\n");
	put(CPU "cpu1/cpuidle/state0/latency", "0\n");
	put(CPU "cpu1/cpuidle/state0/disable", "0\n");
	put(CPU "cpu1/cpuidle/state1/name", "C1\n");
	put(CPU "cpu1/cpuidle/state1/latency", "2\n");
	put(CPU "cpu1/cpuidle/state1/disable", "0\n");
	put(CPU "cpu1/cpuidle/state2/name", "C6\n");
	put(CPU "cpu1/cpuidle/state2/latency", "133\n");
	put(CPU "cpu1/cpuidle/state2/disable", "1\n");	/* deep, but disabled */
	put("sys/class/power_supply/ADP1/type", "Mains\n");
	put("sys/class/power_supply/ADP1/online", "1\n");
	put("sys/class/power_supply/BAT1/type", "Battery\n");
	put("sys/class/power_supply/BAT1/status", "Full\n");
	put("proc/stat", "cpu  40 0 0 360 0 0 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0 0 0\n"
	    "cpu1 10 0 0 90 0 0 0 0 0 0\ncpu2 10 0 0 90 0 0 0 0 0 0\n"
	    "cpu3 1 0 1 98 0 0 0 0 0 0\n");
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	setenv("PBENCH_SYSFS_ROOT", sys, 1);
	setenv("PBENCH_PROCFS_ROOT", proc, 1);
}

static void remove_tree(void)
{
	char cmd[128];

	if (!root[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)	/* also runs as .fini, after a failed assertion */
		fprintf(stderr, "cannot remove %s\n", root);
	root[0] = '\0';
}

Test(env_freq, built_tree_good_machine, .fini = remove_tree)
{
	int cpus[] = { 1, 3 };
	struct pbench_check *env;

	make_tree();
	env = run(cpus, 2);
	/* found through policy0/affected_cpus "0 1 2 3", not a cpulist */
	expect(env, "built", "cpufreq.governor", 3, OK, "performance (acpi-cpufreq)");
	expect(env, "built", "cpufreq.min_max", 1, OK, "(performance runs at max)");
	expect(env, "built", "cpufreq.epp", 1, INFO, "acpi-cpufreq has none");
	expect(env, "built", "cpufreq.turbo", -1, INFO, "nothing to read");
	expect(env, "built", "power.ac", -1, OK, "on mains (ADP1 online, BAT1 Full)");
	expect(env, "built", "cpuidle.states", 1, OK, "intel_idle; enabled: POLL 0 us, C1 2 us; "
	       "disabled: C6");
	expect(env, "built", "cpuidle.states", 3, INFO, "no idle states for CPU 3");
	expect(env, "built", "thermal.throttle", 1, INFO, "no cpu1/thermal_throttle");
	expect(env, "built", "smt.active", -1, WARN, "on");
	/* CPU 1's sibling CPU 3 is 2% busy: idle; CPU 3's sibling CPU 1 is 10% busy */
	expect(env, "built", "smt.sibling", 1, OK, "CPU 3 online, 2% busy since boot");
	expect(env, "built", "smt.sibling", 3, WARN, "CPU 1 online, 10% busy since boot");
	pbench_check_free(env);
	remove_tree();
}

Test(env_freq, built_tree_other_states, .fini = remove_tree)
{
	int cpus[] = { 1 };
	struct pbench_check *env;

	make_tree();
	put(CPU "online", "0-2\n");			/* the sibling, CPU 3, offline */
	put(CPU "cpufreq/policy0/scaling_governor", "userspace\n");
	put(CPU "cpufreq/policy0/energy_performance_preference", "0\n");
	put(CPU "cpufreq/policy1/affected_cpus", "4\n");
	put(CPU "cpufreq/policy0/boost", "0\n");
	put(CPU "cpufreq/policy1/boost", "1\n");
	put(CPU "smt/control", "forceoff\n");
	put("sys/class/power_supply/ADP1/online", "0\n");
	put("sys/class/power_supply/BAT1/status", "Discharging\n");
	put("sys/class/power_supply/hid-mouse/type", "Battery\n");
	put("sys/class/power_supply/hid-mouse/scope", "Device\n");
	put("sys/class/power_supply/hid-mouse/status", "Charging\n");	/* must not count */
	env = run(cpus, 1);
	expect(env, "built", "cpufreq.governor", 1, INFO, "userspace");
	expect(env, "built", "cpufreq.min_max", 1, WARN, "min 800 MHz, max 3000 MHz");
	expect(env, "built", "cpufreq.epp", 1, OK, "0 (acpi-cpufreq)");
	expect(env, "built", "cpufreq.turbo", -1, WARN, "on (boost 1 in 1 of 2 policies)");
	cr_assert_not_null(strstr(find_check(env, "cpufreq.turbo", -1)->fix, "policy*/boost"));
	expect(env, "built", "power.ac", -1, WARN, "on battery (ADP1 offline, BAT1 Discharging)");
	expect(env, "built", "smt.active", -1, OK, "off (smt/control forceoff)");
	expect(env, "built", "smt.sibling", 1, OK, "CPU 3 offline");
	pbench_check_free(env);
	remove_tree();
}

/* cpuN/cpufreq -> ../cpufreq/policyM is followed first; the status file names the mode. */
Test(env_freq, built_tree_policy_link, .fini = remove_tree)
{
	char link[160];
	int cpus[] = { 1 };
	struct pbench_check *env;

	make_tree();
	put(CPU "cpufreq/policy1/scaling_driver", "amd-pstate\n");
	put(CPU "cpufreq/policy1/scaling_governor", "powersave\n");
	put(CPU "cpufreq/policy1/scaling_min_freq", "400000\n");
	put(CPU "cpufreq/policy1/scaling_max_freq", "400000\n");
	put(CPU "amd_pstate/status", "guided\n");	/* the file wins over the driver name */
	snprintf(link, sizeof(link), "%s/" CPU "cpu1/cpufreq", root);
	cr_assert_eq(symlink("../cpufreq/policy1", link), 0);
	env = run(cpus, 1);
	expect(env, "link", "cpufreq.governor", 1, WARN, "powersave (amd-pstate guided)");
	cr_assert_not_null(strstr(find_check(env, "cpufreq.governor", 1)->fix,
				  "policy1/scaling_governor"));
	cr_assert_not_null(strstr(find_check(env, "cpufreq.governor", 1)->why, "lowest frequency"));
	expect(env, "link", "cpufreq.min_max", 1, OK, "min = max = 400 MHz");
	expect(env, "link", "cpufreq.epp", 1, INFO, "amd-pstate guided has none");
	pbench_check_free(env);
	remove_tree();
}

/* Missing and garbage files: unknown with what was looked for, never a crash or a guess. */
Test(env_freq, built_tree_missing_and_garbage, .fini = remove_tree)
{
	static const struct {
		const char *file;	/* written (or, with content NULL, removed) */
		const char *content;
		const char *id;
		int cpu, status;
		const char *value;
	} cases[] = {
		{ CPU "cpufreq/policy0/scaling_governor", "\x01\x02\n", "cpufreq.governor", 1,
		  UNKNOWN, "unexpected content in /sys/devices/system/cpu/cpufreq/policy0/"
			   "scaling_governor" },
		{ CPU "cpufreq/policy0/scaling_governor", "7777\n", "cpufreq.governor", 1,
		  UNKNOWN, "unexpected content" },
		{ CPU "cpufreq/policy0/scaling_governor", NULL, "cpufreq.governor", 1, UNKNOWN,
		  "cannot read /sys/devices/system/cpu/cpufreq/policy0/scaling_governor: No such" },
		{ CPU "cpufreq/policy0/affected_cpus", "0 2\n", "cpufreq.governor", 1, UNKNOWN,
		  "no cpufreq policy lists CPU 1" },
		{ CPU "cpufreq/policy0/scaling_min_freq", NULL, "cpufreq.min_max", 1, UNKNOWN,
		  "cannot read /sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq" },
		{ CPU "cpufreq/policy0/scaling_max_freq", "-1\n", "cpufreq.min_max", 1, UNKNOWN,
		  "unexpected content in /sys/devices/system/cpu/cpufreq/policy0/"
			   "scaling_max_freq" },
		{ CPU "cpufreq/policy0/scaling_max_freq", "99999999999999999999999\n",
		  "cpufreq.min_max", 1, UNKNOWN, "unexpected content" },
		{ CPU "cpufreq/policy0/energy_performance_preference", "Bal ance\n", "cpufreq.epp",
		  1, UNKNOWN, "unexpected content" },
		{ CPU "cpufreq/policy0/energy_performance_preference", "300\n", "cpufreq.epp", 1,
		  UNKNOWN, "unexpected content" },
		{ CPU "cpufreq/boost", "x\n", "cpufreq.turbo", -1, UNKNOWN,
		  "unexpected content in /sys/devices/system/cpu/cpufreq/boost" },
		{ CPU "intel_pstate/no_turbo", "2\n", "cpufreq.turbo", -1, UNKNOWN,
		  "intel_pstate/no_turbo" },
		{ CPU "cpu1/thermal_throttle/core_throttle_count", "lots\n", "thermal.throttle", 1,
		  UNKNOWN, "unexpected content in /sys/devices/system/cpu/cpu1/thermal_throttle/"
			   "core_throttle_count" },
		{ CPU "cpu1/thermal_throttle/package_throttle_count", "0\n", "thermal.throttle", 1,
		  OK, "package 0 throttling events" },
		{ CPU "cpu1/cpuidle/state1/latency", "", "cpuidle.states", 1, UNKNOWN,
		  "unexpected content in /sys/devices/system/cpu/cpu1/cpuidle/state1/latency" },
		{ CPU "cpu1/cpuidle/state2/disable", NULL, "cpuidle.states", 1, UNKNOWN,
		  "cannot read /sys/devices/system/cpu/cpu1/cpuidle/state2/disable" },
		{ CPU "cpuidle/current_driver", "\xff\xfe\n", "cpuidle.states", 1, UNKNOWN,
		  "current_driver" },
		{ CPU "cpuidle/current_driver", NULL, "cpuidle.states", 1, OK, "unknown driver" },
		{ CPU "smt/control", NULL, "smt.active", -1, UNKNOWN,
		  "cannot read /sys/devices/system/cpu/smt/control" },
		{ CPU "smt/control", "sideways\n", "smt.active", -1, UNKNOWN,
		  "unexpected content" },
		{ CPU "smt/active", "", "smt.active", -1, UNKNOWN, "smt/active" },
		{ CPU "cpu1/topology/thread_siblings_list", NULL, "smt.sibling", 1, UNKNOWN,
		  "cannot read /sys/devices/system/cpu/cpu1/topology/thread_siblings_list" },
		{ CPU "cpu1/topology/thread_siblings_list", "3\n", "smt.sibling", 1, UNKNOWN,
		  "unexpected content" },			/* a list without the CPU itself */
		{ "sys/class/power_supply/ADP1/online", "yes\n", "power.ac", -1, OK,
		  "on mains (BAT1 Full)" },			/* the battery still tells */
		{ "sys/class/power_supply/BAT1/type", NULL, "power.ac", -1, OK, "on mains" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int cpus[] = { 1 };
		struct pbench_check *env;
		char what[160];

		make_tree();
		put(CPU "cpu1/thermal_throttle/core_throttle_count", "0\n");
		if (strstr(cases[i].file, "package_throttle"))
			drop(CPU "cpu1/thermal_throttle/core_throttle_count");
		if (cases[i].content)
			put(cases[i].file, cases[i].content);
		else
			drop(cases[i].file);
		snprintf(what, sizeof(what), "case %zu (%s)", i, cases[i].file);
		env = run(cpus, 1);
		expect(env, what, cases[i].id, cases[i].cpu, cases[i].status, cases[i].value);
		pbench_check_free(env);
		remove_tree();
	}
}

/* Nothing at all under /sys: every check still reports, as info or unknown. */
Test(env_freq, empty_tree, .fini = remove_tree)
{
	char sys[96], proc[96];
	int cpus[] = { 0 };
	struct pbench_check *env;

	snprintf(root, sizeof(root), "/tmp/pbench-freq-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	put("sys", NULL);
	put("proc", NULL);
	setenv("PBENCH_SYSFS_ROOT", strcat(strcpy(sys, root), "/sys"), 1);
	setenv("PBENCH_PROCFS_ROOT", strcat(strcpy(proc, root), "/proc"), 1);
	env = run(cpus, 1);
	for (size_t i = 0; i < ARRAY_SIZE(my_ids); i++) {
		int wide = !strcmp(my_ids[i], "cpufreq.turbo") || !strcmp(my_ids[i], "power.ac") ||
			   !strcmp(my_ids[i], "smt.active");
		const struct pbench_check_finding *c = find_check(env, my_ids[i], wide ? -1 : 0);

		cr_assert(c->status == INFO || c->status == UNKNOWN, "%s is %s ('%s')", c->id,
			  pbench_check_status_name(c->status), c->value);
		cr_assert_neq(c->value[0], '\0');
	}
	pbench_check_free(env);
	remove_tree();
}
