/* SPDX-License-Identifier: MIT */
/*
 * A JIT's perf map, /tmp/perf-PID.map: the code a JIT (the JVM with perf-map-agent, V8, .NET,
 * LuaJIT...) wrote into anonymous memory, one "START SIZE name" line (hex, hex, the rest of
 * the line) for each. /tmp is everyone's: the file is read only when it is a regular file,
 * not a link (opened O_NOFOLLOW), owned by the process's user, so that another user cannot
 * plant names into a root's profile (the same worry as output.c's link rule).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "symbols/symbols_inner.h"

static int jit_cmp(const void *a, const void *b)
{
	const struct pb_jit_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Opened only when safe to read; -ENOENT when there is none. */
static int jit_open(const char *path, uid_t uid, FILE **out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 && errno == ELOOP)
		return pb_fail(-EACCES, "'%s' is a symbolic link: a JIT map is read only from the "
			       "file itself", path);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != uid) {
		int err = !S_ISREG(st.st_mode) ?
			pb_fail(-EACCES, "'%s' is not a regular file: not read", path) :
			pb_fail(-EACCES, "'%s' is owned by uid %u, not by the process's user %u: "
				"not read", path, (unsigned)st.st_uid, (unsigned)uid);

		close(fd);
		return err;
	}
	if (!(*out = fdopen(fd, "r"))) {
		close(fd);
		return -errno;
	}
	return 0;
}

/* One line into e (its name malloc'd). 1 taken, 0 not a map line, -ENOMEM. */
static int jit_line(char *line, struct pb_jit_entry *e)
{
	uint64_t start, size;
	int used = 0;
	char *name;
	size_t len;

	if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size, &used) < 2 || !used ||
	    !size || start + size < start)
		return 0;
	name = line + used;
	len = strcspn(name, "\n");
	if (!(e->name = strndup(name, len)))
		return -ENOMEM;
	e->start = start;
	e->end = start + size;
	return 1;
}

static int jit_lines(FILE *f, struct pb_jit_entry **out, size_t *n)
{
	char *line = NULL;
	size_t len = 0, cap = 0;
	int err = 0;

	while (getline(&line, &len, f) > 0) {
		struct pb_jit_entry e, *p;
		int r = jit_line(line, &e);

		if (r <= 0) {
			err = r;
			if (err)
				break;
			continue;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if (!(p = realloc(*out, cap * sizeof(*p)))) {
				free(e.name);
				err = -ENOMEM;
				break;
			}
			*out = p;
		}
		(*out)[(*n)++] = e;
	}
	free(line);
	return err;
}

int pb_jit_read(const char *dir, pid_t pid, uid_t uid, struct pb_jit_entry **out, size_t *n,
		char *path, size_t path_len)
{
	FILE *f;
	int err;

	*out = NULL;
	*n = 0;
	snprintf(path, path_len, "%s/perf-%d.map", dir ? dir : "/tmp", (int)pid);
	err = jit_open(path, uid, &f);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	err = jit_lines(f, out, n);
	fclose(f);
	if (err) {
		pb_jit_free(*out, *n);
		*out = NULL;
		*n = 0;
		return err;
	}
	qsort(*out, *n, sizeof(**out), jit_cmp);
	return 0;
}

void pb_jit_free(struct pb_jit_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}
