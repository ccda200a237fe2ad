/* SPDX-License-Identifier: MIT */
/*
 * Every parser of /sys and /proc text behind pbench_check() (cpu lists, cpufreq and
 * cpuidle files, /proc/cpuinfo flags, /proc/PID/status, meminfo, cgroup files, cmdline,
 * /proc/interrupts, /proc/stat...), reached the way pbench check reaches them: through a
 * recorded tree of tests/fixtures, one file of which holds the fuzzed bytes.
 *
 * Input: a first line naming the file and, optionally, the target CPUs, then the file's bytes:
 *
 *	vm-kvm-2cpu/proc/interrupts 1
 *	           CPU0       CPU1
 *	  1:          9          0   IO-APIC   1-edge      i8042
 *	...
 *
 * Without CPUs the check picks one (pbench_cpu_pick's path, which reads more files). The tree
 * is a copy in a temporary directory; the file gets its bytes back after each input. A check
 * must not crash, and every finding it reports has an id, a status and a value.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/check.h"

#define MAX_TARGETS 8
#define PATHLEN (2 * PATH_MAX)	/* a directory of PATH_MAX and names under it */

extern char **environ;

static char tmp[PATH_MAX];		/* the copies of the trees */
static char fixtures[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void cleanup(void)
{
	if (tmp[0])
		nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void init(void)
{
	const char *f = getenv("PBENCH_FUZZ_FIXTURES");
	const char *t = getenv("TMPDIR");

	fuzz_assert(realpath(f ? f : "tests/fixtures", fixtures),
		    "the recorded trees: %s (run from the top of the tree, or set "
		    "PBENCH_FUZZ_FIXTURES)", strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s/pbench-fuzz-XXXXXX", t && *t ? t : "/tmp");
	fuzz_assert(mkdtemp(tmp), "%s: %s", tmp, strerror(errno));
	atexit(cleanup);
}

/* The copy of a machine tree (one with sys/ and proc/), made at its first use: 0 or -1. */
static int tree_ready(const char *tree)
{
	char src[PATHLEN], dst[PATHLEN];
	char *argv[] = { "cp", "-a", src, dst, NULL };
	struct stat st;
	pid_t pid;
	int status;

	if (!tree[0] || strspn(tree, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(tree))
		return -1;
	snprintf(dst, sizeof(dst), "%s/%s", tmp, tree);
	if (!stat(dst, &st))
		return 0;
	snprintf(src, sizeof(src), "%s/%s/proc", fixtures, tree);
	if (stat(src, &st))
		return -1;
	snprintf(src, sizeof(src), "%s/%s", fixtures, tree);
	fuzz_assert(!posix_spawnp(&pid, "cp", NULL, NULL, argv, environ) &&
		    waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    !WEXITSTATUS(status), "cp -a %s %s failed", src, dst);
	return 0;
}

/* A path inside the tree: no "..", no empty or "." component. */
static int inside(const char *rel)
{
	const char *p = rel;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return 0;
		p += n;
		if (*p)
			p++;
	}
	return p != rel;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	fuzz_assert(fd >= 0 && buf, "%s: %s", path, strerror(errno));
	*len = 0;
	while ((n = read(fd, buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap) {
			buf = realloc(buf, cap *= 2);
			fuzz_assert(buf, "out of memory");
		}
	}
	close(fd);
	return buf;
}

static void spit(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	fuzz_assert(fd >= 0 && write(fd, data, len) == (ssize_t)len, "%s: %s", path,
		    strerror(errno));
	close(fd);
}

static void run_checks(const char *tree, const int *cpus, int ncpus)
{
	char sys[PATHLEN], proc[PATHLEN];
	struct pbench_check *env;
	int err;

	snprintf(sys, sizeof(sys), "%s/%s/sys", tmp, tree);
	snprintf(proc, sizeof(proc), "%s/%s/proc", tmp, tree);
	setenv("PBENCH_SYSFS_ROOT", sys, 1);
	setenv("PBENCH_PROCFS_ROOT", proc, 1);
	err = pbench_check(&env, cpus, ncpus, PBENCH_CHECK_NO_WINDOW);
	/* -EINVAL: a target CPU the tree's cpu/present does not list. With no target, the
	 * errors of reading cpu/online for the pick (see the report of this fuzzer). */
	fuzz_assert(err <= 0, "%d", err);
	if (err)
		return;
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		fuzz_assert(c && c->id && c->id[0], "finding %d has no id", i);
		fuzz_assert(c->status >= PBENCH_CHECK_OK && c->status <= PBENCH_CHECK_UNKNOWN,
			    "%s: status %d", c->id, c->status);
		fuzz_assert(c->value && c->value[0], "%s: no value", c->id);
		fuzz_assert(c->expected && c->why && c->fix, "%s: a NULL text", c->id);
	}
	pbench_check_free(env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size < 512 ? size : 512);
	char head[512], path[PATHLEN], *rel, *list, *orig;
	int cpus[MAX_TARGETS], ncpus = 0;
	struct stat st;
	size_t len;

	if (!nl || memchr(data, '\0', (size_t)(nl - data)))
		return 0;
	if (!tmp[0])
		init();
	memcpy(head, data, (size_t)(nl - data));
	head[nl - data] = '\0';
	list = strchr(head, ' ');
	if (list) {
		*list++ = '\0';
		ncpus = pbench_cpus_parse(list, cpus, MAX_TARGETS, PB_MAX_CPUS);
		if (ncpus < 0)
			return 0;
	}
	rel = strchr(head, '/');
	if (!rel)
		return 0;
	*rel++ = '\0';
	if (!inside(rel) || tree_ready(head))
		return 0;
	snprintf(path, sizeof(path), "%s/%s/%s", tmp, head, rel);
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	orig = slurp(path, &len);
	spit(path, nl + 1, size - (size_t)(nl + 1 - data));
	run_checks(head, ncpus ? cpus : NULL, ncpus);
	spit(path, orig, len);
	free(orig);
	return 0;
}
