/* SPDX-License-Identifier: MIT */
/*
 * The commit a measurement belongs to, read from git through the library's child API (so that
 * git is run as every command pbench runs: no shell, its leftovers ended, its output kept by
 * pb_child_output(), as objdump's is): the revision, the branch, and whether the tree had
 * changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "process/process.h"
#include "history/history.h"

#define GIT_TIMEOUT_S 60.0		/* git status of a large tree on a cold cache */
#define GIT_MAX_OUTPUT (1u << 20)	/* more changes than that: the tree is dirty anyway */

/* Run git -C dir ARGS: 0 with *out its stdout (free()), -EFBIG past GIT_MAX_OUTPUT, or the
 * error of running it (-ENOENT with why when git failed: not a git tree, no commit yet). */
static int git(const char *dir, const char *a1, const char *a2, const char *a3, char **out)
{
	char *argv[] = { "git", "-C", (char *)dir, (char *)a1, (char *)a2, (char *)a3, NULL };
	struct pbench_child_result res = { .size = sizeof(res) };
	int rc = pb_child_output(argv, GIT_TIMEOUT_S, GIT_MAX_OUTPUT, out, &res);

	if (rc)
		return rc;
	if (!res.exited || res.exit_status) {
		free(*out);
		*out = NULL;
		return pb_fail(-ENOENT, "history: 'git %s %s' failed in '%s' (not a git tree, or no "
			       "commit yet)", a1, a2 ? a2 : "", dir);
	}
	return 0;
}

/* The first line of out into buf: 0, or -ENAMETOOLONG. */
static int first_line(const char *out, char *buf, size_t len, const char *what)
{
	size_t n = strcspn(out, "\n");

	if (n >= len)
		return pb_fail(-ENAMETOOLONG, "pbench_history_git(): %s is %zu bytes, its buffer "
			       "%zu", what, n, len);
	memcpy(buf, out, n);
	buf[n] = 0;
	return 0;
}

int pbench_history_git(const char *dir, char *rev, size_t rev_len, char *branch,
		       size_t branch_len, int *dirty)
{
	char *out = NULL;
	int rc;

	if (!rev || !rev_len || !branch || !branch_len || !dirty)
		return pb_fail(-EINVAL, "%s(): rev, branch and dirty are needed", __func__);
	if (!dir)
		dir = ".";
	rc = git(dir, "rev-parse", "--verify", "HEAD", &out);
	if (!rc)
		rc = first_line(out, rev, rev_len, "the revision");
	free(out);
	out = NULL;
	if (!rc)
		rc = git(dir, "rev-parse", "--abbrev-ref", "HEAD", &out);
	if (!rc)
		rc = first_line(out, branch, branch_len, "the branch");
	free(out);
	out = NULL;
	if (!rc)
		rc = git(dir, "status", "--porcelain", NULL, &out);
	if (!rc || rc == -EFBIG)
		*dirty = rc == -EFBIG || *out;
	free(out);
	return rc == -EFBIG ? 0 : rc;
}
