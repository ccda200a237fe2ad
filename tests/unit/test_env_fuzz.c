/* SPDX-License-Identifier: MIT */
/*
 * Every file the checks read, mutated (empty, truncated, garbage, huge numbers, a very long
 * line, binary): pbench_env_check must neither crash nor report a finding without a value.
 * Runs on a copy of each recorded tree; under ASan in the second pass of make test.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
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
	struct pbench_env *env;
	int cpus[] = { 1 };
	int err = pbench_env_check(&env, cpus, 1, PBENCH_ENV_NO_WINDOW);

	/* A mutated cpu/present may make CPU 1 look absent: that is a clean refusal. */
	if (err == -EINVAL)
		return;
	cr_assert_eq(err, 0, "%s: %s", what, pbench_strerror(err));
	for (int i = 0; i < pbench_env_nr(env); i++) {
		const struct pbench_check *c = pbench_env_get(env, i);

		cr_assert_neq(c->value[0], '\0', "%s: %s has no value", what, c->id);
		cr_assert(c->status >= PBENCH_CHECK_OK && c->status <= PBENCH_CHECK_UNKNOWN);
	}
	pbench_env_free(env);
}

static void fuzz_tree(const char *tree)
{
	char dir[] = "/tmp/pbench-fuzz-XXXXXX", cmd[512], sys[300], proc[300];
	char *longline = malloc(8193);

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
	cr_assert_eq(nftw(dir, collect, 16, FTW_PHYS), 0);
	cr_assert_gt(nfiles, 20, "%s: the tree has %d files", tree, nfiles);
	for (int i = 0; i < nfiles; i++) {
		size_t len;
		char *orig = slurp(files[i], &len);

		for (size_t m = 0; m < ARRAY_SIZE(mutations); m++) {
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
