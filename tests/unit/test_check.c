/* SPDX-License-Identifier: MIT */
/* The check framework: CPU lists, the target CPU pick, and bad targets; on recorded trees. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

Test(env, cpulist_parse)
{
	static const struct {
		const char *list;
		int limit, ret;
		int cpus[6];
	} rows[] = {
		{ "0", 8, 1, { 0 } },
		{ "0-3", 8, 4, { 0, 1, 2, 3 } },
		{ "0-3,5", 8, 5, { 0, 1, 2, 3, 5 } },
		{ "5,0-1", 8, 3, { 0, 1, 5 } },		/* sorted */
		{ "1,1,1-2", 8, 2, { 1, 2 } },		/* no duplicates */
		{ "2\n", 8, 1, { 2 } },			/* as sysfs files end */
		{ "1-0", 8, -EINVAL, { 0 } },		/* descending range */
		{ "x", 8, -EINVAL, { 0 } },
		{ "", 8, -EINVAL, { 0 } },
		{ "0-", 8, -EINVAL, { 0 } },
		{ "-1", 8, -EINVAL, { 0 } },
		{ "0,,1", 8, -EINVAL, { 0 } },
		{ "0,", 8, -EINVAL, { 0 } },
		{ "3 4", 8, -EINVAL, { 0 } },
		{ "99", 2, -ERANGE, { 0 } },		/* not present */
		{ "1-99999999999", 8, -ERANGE, { 0 } },
		{ "0-7", 8, 6, { 0 } },			/* more than max (6) */
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		int cpus[6] = { -1, -1, -1, -1, -1, -1 };
		int n = pbench_cpus_parse(rows[i].list, cpus, 6, rows[i].limit);
		int want = rows[i].ret == 6 ? -ERANGE : rows[i].ret;

		cr_assert_eq(n, want, "'%s': got %d, want %d", rows[i].list, n, want);
		for (int k = 0; k < n; k++)
			cr_assert_eq(cpus[k], rows[i].cpus[k], "'%s' cpu %d", rows[i].list, k);
	}
}

/* A --cpu against the CPUs it may name: the first one outside said, a set that is no list
 * ("unknown") checks nothing, a list that does not parse is its error. */
Test(env, cpus_parse_in)
{
	int cpus[8], out = 99;

	cr_assert_eq(pbench_cpus_parse_in("1-2", "0-3", cpus, 8, &out), 2);
	cr_assert_eq(out, -1);
	cr_assert_eq(pbench_cpus_parse_in("2,5-6", "0-3,6\n", cpus, 8, &out), 3);
	cr_assert_eq(out, 5);
	cr_assert_eq(pbench_cpus_parse_in("6", "0-3,6", cpus, 8, &out), 1);
	cr_assert_eq(out, -1);
	cr_assert_eq(pbench_cpus_parse_in("7", "unknown", cpus, 8, &out), 1);
	cr_assert_eq(out, -1);
	cr_assert_eq(pbench_cpus_parse_in("7", "", cpus, 8, &out), 1);
	cr_assert_eq(out, -1);
	out = 99;
	cr_assert_eq(pbench_cpus_parse_in("x", "0-3", cpus, 8, &out), -EINVAL);
	cr_assert_eq(out, -1);
	cr_assert_eq(pbench_cpus_parse_in("9", "0-3", cpus, 8, &out), -ERANGE);
}

/* The prepared mode's choice, on each recorded machine. */

Test(env, pick_on_trees)
{
	static const struct {
		const char *tree;
		int cpu;
		const char *why;
	} rows[] = {
		{ "tuned-server", 2, "CPU 2 is isolated" },		/* isolcpus=2-3 */
		{ "intel-laptop", 1, "least busy CPU" },
		{ "amd-workstation", 1, "with its SMT sibling" },
		{ "container-quota", 1, "since boot" },
		{ "vm-kvm-2cpu", 1, "least busy" },			/* the only other CPU */
		{ "vm-amd-epyc", 0, "CPU 0 is the least busy CPU, by more than 2% (CPU 0 keeps the tick): 34% busy" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char why[256];
		int cpu;

		use_tree(rows[i].tree);
		cpu = pbench_cpu_pick(why, sizeof(why));
		cr_assert_eq(cpu, rows[i].cpu, "%s: picked %d (%s)", rows[i].tree, cpu, why);
		cr_assert_not_null(strstr(why, rows[i].why), "%s: '%s'", rows[i].tree, why);
	}
}

Test(env, absent_cpu_is_refused)
{
	struct pbench_check *env = (void *)1;
	int cpus[] = { 1, 5 };

	use_tree("vm-kvm-2cpu");
	cr_assert_eq(pbench_check(&env, cpus, 2, PBENCH_CHECK_NO_WINDOW), -EINVAL);
	cr_assert_null(env);
}

Test(env, findings_are_well_formed_on_every_tree)
{
	static const char *const trees[] = { "vm-kvm-2cpu", "vm-amd-epyc", "intel-laptop",
					     "amd-workstation", "tuned-server", "container-quota" };

	for (size_t t = 0; t < ARRAY_SIZE(trees); t++) {
		struct pbench_check *env;
		const int *cpus;

		use_tree(trees[t]);
		cr_assert_eq(pbench_check(&env, NULL, 0, PBENCH_CHECK_NO_WINDOW), 0, "%s",
			     trees[t]);
		cr_assert_eq(pbench_check_cpus(env, &cpus), 1);
		for (int i = 0; i < pbench_check_nr(env); i++) {
			const struct pbench_check_finding *c = pbench_check_get(env, i);

			cr_assert(c->id && (strchr(c->id, '.') || !strcmp(c->id, "aslr")),
				  "%s: id '%s'", trees[t], c->id);
			cr_assert(c->status >= PBENCH_CHECK_OK && c->status <= PBENCH_CHECK_UNKNOWN);
			cr_assert_neq(c->value[0], '\0', "%s: %s has no value", trees[t], c->id);
			if (c->status == PBENCH_CHECK_WARN || c->status == PBENCH_CHECK_BAD) {
				cr_assert_neq(c->why[0], '\0', "%s: %s lacks why", trees[t], c->id);
				cr_assert_neq(c->fix[0], '\0', "%s: %s lacks fix", trees[t], c->id);
			}
			cr_assert(c->cpu == -1 || c->cpu == cpus[0], "%s: %s cpu %d", trees[t],
				  c->id, c->cpu);
		}
		pbench_check_free(env);
	}
}

/* pbench check's reports, from the library: the verdict follows the worst finding. */
Test(env, reports_and_verdict)
{
	static const char *const trees[] = { "vm-kvm-2cpu", "vm-amd-epyc", "tuned-server" };

	for (size_t t = 0; t < ARRAY_SIZE(trees); t++) {
		int warn = 0, bad = 0, err;
		struct pbench_check *env;
		size_t len = 0;
		char *buf = NULL;
		const char *v;
		FILE *f;

		use_tree(trees[t]);
		cr_assert_eq(pbench_check(&env, NULL, 0, PBENCH_CHECK_NO_WINDOW), 0);
		for (int i = 0; i < pbench_check_nr(env); i++) {
			warn += pbench_check_get(env, i)->status == PBENCH_CHECK_WARN;
			bad += pbench_check_get(env, i)->status == PBENCH_CHECK_BAD;
		}
		v = pbench_check_verdict(env);
		cr_expect_str_eq(v, bad ? "unfit" : warn ? "noisy" : "ready", "%s", trees[t]);
		cr_assert_eq(pbench_check_write_text(env, stdout, 1u << 7, 0), -EINVAL, "unknown flag");
		f = open_memstream(&buf, &len);
		err = pbench_check_write_text(env, f, 0, 0);
		fclose(f);
		cr_assert_eq(err, 0);
		cr_expect_not_null(strstr(buf, v), "%s: the verdict is written", trees[t]);
		cr_expect_null(strstr(buf, "\033["), "no colour unless asked");
		free(buf);
		f = open_memstream(&buf, &len);
		err = pbench_check_write_json(env, f);
		fclose(f);
		cr_assert_eq(err, 0);
		cr_expect_not_null(strstr(buf, "\"checks\": ["));
		cr_expect_not_null(strstr(buf, v));
		free(buf);
		pbench_check_free(env);
	}
	cr_expect_str_eq(pbench_check_verdict(NULL), "unknown");
	cr_expect_eq(pbench_check_write_json(NULL, stdout), -EINVAL);
}

/* A failed check says what it means in pbench check's words (pbench_strerror() of its
 * error): a CPU not present, the present ones named; a recorded tree that cannot be checked,
 * named. */
Test(env, check_error_says_whose_it_is)
{
	struct pbench_check *env = NULL;
	int cpu = 100000, err;

	unsetenv("PBENCH_SYSFS_ROOT");
	unsetenv("PBENCH_PROCFS_ROOT");
	err = pbench_check(&env, &cpu, 1, 0);
	cr_assert_eq(err, -EINVAL, "%s", pbench_strerror(err));
	cr_assert(!strncmp(pbench_strerror(err), "a CPU given to --cpu is not present; present "
			   "CPUs are ", 54), "%s", pbench_strerror(err));
	cr_assert_null(env);
	setenv("PBENCH_SYSFS_ROOT", "/nonexistent/tree/sys", 1);
	err = pbench_check(&env, NULL, 0, 0);
	cr_assert_lt(err, 0);
	cr_assert(!strncmp(pbench_strerror(err), "cannot check the recorded tree (PBENCH_SYSFS_ROOT "
			   "'/nonexistent/tree/sys', PBENCH_PROCFS_ROOT ''): ", 84), "%s",
		  pbench_strerror(err));
	unsetenv("PBENCH_SYSFS_ROOT");
	cr_assert_eq(pbench_check(NULL, NULL, 0, 0), -EINVAL);
}
