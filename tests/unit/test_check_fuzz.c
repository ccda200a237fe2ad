/* SPDX-License-Identifier: MIT */
/*
 * Every file the checks read, mutated (empty, truncated, garbage, huge numbers, a very long
 * line, binary): pbench_check must neither crash nor report a finding without a value.
 * Runs on a copy of each recorded tree; under ASan in the second pass of make test. Which
 * files the checks read is seen by the kernel (inotify's IN_OPEN on every directory of the
 * copy, over one check of the untouched tree); a file they never open is only taken away
 * (a check may look for it without reading it), not mutated six ways.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static const char *const mutations[] = {
	"",					/* empty */
	"\xff\xfe\x00garbage\x01\n",		/* binary */
	"99999999999999999999999999999\n",	/* overflows every integer type */
	"-1-,x:,\n",				/* punctuation where numbers go */
	NULL,					/* a 8 KiB line, built below */
	"TRUNC",				/* the first half of the original */
};

static char **files;
static int nfiles, cap;
static int ino = -1;			/* inotify: IN_OPEN on every directory of the tree */
static char **dirs;			/* each watch's directory, by watch descriptor */
static int ndirs;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_D) {
		int wd = inotify_add_watch(ino, path, IN_OPEN);

		cr_assert_geq(wd, 0, "inotify_add_watch %s: %s", path, strerror(errno));
		if (wd >= ndirs) {
			dirs = realloc(dirs, (size_t)(wd + 1) * sizeof(*dirs));
			cr_assert_not_null(dirs);
			memset(dirs + ndirs, 0, (size_t)(wd + 1 - ndirs) * sizeof(*dirs));
			ndirs = wd + 1;
		}
		free(dirs[wd]);
		dirs[wd] = strdup(path);
		return 0;
	}
	/* Process directories repeat the same two files: three of them are enough. */
	if (type != FTW_F || (strstr(path, "/proc/") && strspn(strstr(path, "/proc/") + 6,
								"0123456789") > 0 &&
			      atoi(strstr(path, "/proc/") + 6) > 3))
		return 0;
	if (nfiles == cap) {
		cap = cap ? cap * 2 : 256;
		files = realloc(files, (size_t)cap * sizeof(*files));
		cr_assert_not_null(files);
	}
	files[nfiles++] = strdup(path);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(65536);

	cr_assert(f && buf);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void run_checks(const char *what)
{
	struct pbench_check *env;
	int cpus[] = { 1 };
	int err = pbench_check(&env, cpus, 1, PBENCH_CHECK_NO_WINDOW);

	/* A mutated cpu/present may make CPU 1 look absent: that is a clean refusal. */
	if (err == -EINVAL)
		return;
	cr_assert_eq(err, 0, "%s: %s", what, pbench_strerror(err));
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		cr_assert_neq(c->value[0], '\0', "%s: %s has no value", what, c->id);
		cr_assert(c->status >= PBENCH_CHECK_OK && c->status <= PBENCH_CHECK_UNKNOWN);
	}
	pbench_check_free(env);
}

static int is_opened(char **opened, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(opened[i], path))
			return 1;
	return 0;
}

/* The files opened since the watches were set (IN_OPEN, directories left out), each once. */
static char **opened_files(int *n)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	char **out = NULL;
	ssize_t got;

	*n = 0;
	while ((got = read(ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + got;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			char path[4200];

			p += sizeof(*ev) + ev->len;
			cr_assert(!(ev->mask & IN_Q_OVERFLOW), "the inotify queue overflowed");
			if (!ev->len || (ev->mask & IN_ISDIR) || ev->wd >= ndirs || !dirs[ev->wd])
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[ev->wd], ev->name);
			if (is_opened(out, *n, path))
				continue;
			out = realloc(out, (size_t)(*n + 1) * sizeof(*out));
			cr_assert_not_null(out);
			out[(*n)++] = strdup(path);
		}
	}
	cr_assert(got < 0 && errno == EAGAIN, "reading inotify: %s", strerror(errno));
	return out;
}

static void fuzz_tree(const char *tree)
{
	char dir[] = "/tmp/pbench-fuzz-XXXXXX", cmd[512], sys[300], proc[300];
	char *longline = malloc(8193), **opened;
	int nopened, read_here = 0;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a tests/fixtures/%s/. %s/", tree, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	setenv("PBENCH_SYSFS_ROOT", sys, 1);
	setenv("PBENCH_PROCFS_ROOT", proc, 1);
	memset(longline, '7', 8192);
	longline[8192] = '\0';
	nfiles = 0;
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert_geq(ino, 0, "inotify_init1: %s", strerror(errno));
	cr_assert_eq(nftw(dir, collect, 16, FTW_PHYS), 0);
	cr_assert_gt(nfiles, 20, "%s: the tree has %d files", tree, nfiles);
	run_checks("the untouched tree");
	opened = opened_files(&nopened);
	close(ino);
	ino = -1;
	for (int i = 0; i < nfiles; i++)
		read_here += is_opened(opened, nopened, files[i]);
	cr_assert_gt(read_here, 10, "%s: the checks opened %d of its %d files", tree, read_here,
		     nfiles);
	cr_log_info("%s: the checks opened %d of its %d files (mutated); the others only taken "
		    "away", tree, read_here, nfiles);
	for (int i = 0; i < nfiles; i++) {
		size_t len;
		char *orig = slurp(files[i], &len);

		for (size_t m = 0; is_opened(opened, nopened, files[i]) &&
				   m < ARRAY_SIZE(mutations); m++) {
			const char *data = mutations[m] ? mutations[m] : longline;
			size_t dlen = mutations[m] ? strlen(mutations[m]) : 8192;

			if (mutations[m] && !strcmp(mutations[m], "TRUNC")) {
				data = orig;
				dlen = len / 2;
			} else if (m == 1) {
				dlen = 13;	/* the embedded NUL is part of it */
			}
			spit(files[i], data, dlen);
			run_checks(files[i] + strlen(dir));
		}
		/* A file that is missing altogether, then the original back for the next one. */
		unlink(files[i]);
		run_checks(files[i] + strlen(dir));
		spit(files[i], orig, len);
		free(orig);
		free(files[i]);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	free(longline);
	for (int i = 0; i < nopened; i++)
		free(opened[i]);
	free(opened);
	for (int i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
	dirs = NULL;
	ndirs = 0;
}

Test(env_fuzz, vm_tree, .timeout = 300)
{
	fuzz_tree("vm-kvm-2cpu");
}

Test(env_fuzz, laptop_tree, .timeout = 300)
{
	fuzz_tree("intel-laptop");
}

Test(env_fuzz, server_tree, .timeout = 300)
{
	fuzz_tree("tuned-server");
}

Test(env_fuzz, container_tree, .timeout = 300)
{
	fuzz_tree("container-quota");
}
