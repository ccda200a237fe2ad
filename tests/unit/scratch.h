/* SPDX-License-Identifier: MIT */
/*
 * A scratch directory for a test suite's files (made by the suite's init, removed with all it
 * holds by its fini), and the small file helpers the output tests share: put a text, get it
 * back, count the directory's entries (a temporary left behind is one too many).
 */
#ifndef PBENCH_TESTS_SCRATCH_H
#define PBENCH_TESTS_SCRATCH_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

/* The suite's init: a fresh directory /tmp/pbench-<SCRATCH_NAME>-XXXXXX. */
static inline void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-%s-XXXXXX", SCRATCH_NAME);
	cr_assert_not_null(mkdtemp(dir));
}

static inline void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static inline void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The first 255 bytes of path (a static buffer: the next call replaces it). */
static inline char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

#endif
