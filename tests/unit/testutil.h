/* SPDX-License-Identifier: MIT */
/* Checks shared by the unit tests: what a call leaves behind. */
#ifndef PBENCH_TESTUTIL_H
#define PBENCH_TESTUTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pbench.h"

/* The library's switch for reading recorded trees in the live readers too (sysfs.c; not
 * public: only the tests use it). Declared here so that tests of the API need no internal
 * header. */
void pb_recorded_everywhere(int on);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* err as a call returned it, with its words copied into buf (len bytes): pbench_strerror(err)
 * for a failure, "" for 0 or more; a failure's message checked beside its code. */
static inline int said_in(int err, char *buf, size_t len)
{
	snprintf(buf, len, "%s", err < 0 ? pbench_strerror(err) : "");
	return err;
}

/* A call that must return 0: when it does not, the assertion says the call and its error in
 * the library's words (pbench_strerror(), the one way a failure is said). */
#define ASSERT_OK(call)                                                                     \
	do {                                                                                \
		int ok_err_ = (call);                                                       \
		cr_assert_eq(ok_err_, 0, "%s: %s", #call, pbench_strerror(ok_err_));        \
	} while (0)

/* A retry loop's pass that came on a later try (TRIES > 1, the first try is 1): logged as
 * "RETRIED NAME passed after TRIES tries", which tests/run.sh counts apart in the totals
 * ("K passed after retries"). Call it after the test's last assertion, so a failing test never
 * logs it; each try of the loop starts afresh (what an earlier try saw decides nothing). */
#define TEST_RETRIED(name, tries)                                                          \
	do {                                                                                \
		if ((tries) > 1)                                                            \
			cr_log_info("RETRIED %s passed after %d tries", (name), (int)(tries)); \
	} while (0)

/*
 * The unit tests read recorded trees through the live readers as well (noise probes, event
 * resolution), which pbench itself never does outside its checks; that stat and jitter read
 * the live machine with PBENCH_SYSFS_ROOT set is tested end to end (tests/faults/run.sh).
 */
__attribute__((constructor)) static void recorded_trees_everywhere(void)
{
	pb_recorded_everywhere(1);
}

/* Every event of c into k[0..n-1] (each .size set here), by the API's one-at-a-time
 * getters: after a read (counts_read) or a region's stop (counts_delta). The number of events
 * or the first error, as the library's arrays gave them before they were getters. */
static inline int counts_read(struct pbench_counters *c, struct pbench_count *k, int n)
{
	int nr = pbench_counters_read(c), err = 0;

	for (int i = 0; nr > 0 && i < n && i < nr && !err; i++) {
		k[i].size = sizeof(k[i]);
		err = pbench_counters_get(c, i, &k[i]);
	}
	return nr < 0 ? nr : err ? err : n < nr ? n : nr;
}

static inline int counts_delta(struct pbench_counters *c, struct pbench_count *k, int n)
{
	int nr = pbench_counters_nr(c), err = 0;

	for (int i = 0; i < n && i < nr && !err; i++) {
		k[i].size = sizeof(k[i]);
		err = pbench_counters_delta(c, i, &k[i]);
	}
	return err ? err : n < nr ? n : nr;
}

/* Open descriptors of this process: a call that leaks one changes it. */
static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory stream's own descriptor */
}

static inline void assert_no_children(void)
{
	errno = 0;
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child was left behind");
	cr_assert_eq(errno, ECHILD);
}

/* Point the library at a recorded tree: root/sys and root/proc. */
static inline void use_root(const char *root)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sys", root);
	cr_assert_eq(setenv("PBENCH_SYSFS_ROOT", path, 1), 0);
	snprintf(path, sizeof(path), "%s/proc", root);
	cr_assert_eq(setenv("PBENCH_PROCFS_ROOT", path, 1), 0);
}

/* The same for a tree under tests/fixtures/ (tests run from the top of the tree). */
static inline void use_tree(const char *name)
{
	char root[300];

	snprintf(root, sizeof(root), "tests/fixtures/%s", name);
	use_root(root);
}

/* The one finding with this id and cpu (-1: machine-wide); fails if missing or repeated. */
static inline const struct pbench_check_finding *find_check(const struct pbench_check *env,
						      const char *id, int cpu)
{
	const struct pbench_check_finding *found = NULL;

	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (strcmp(c->id, id) || c->cpu != cpu)
			continue;
		cr_assert_null(found, "%s cpu %d reported twice", id, cpu);
		found = c;
	}
	cr_assert_not_null(found, "no finding %s for cpu %d", id, cpu);
	return found;
}

#endif
