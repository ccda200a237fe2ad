// SPDX-License-Identifier: MIT
/*
 * The commit a measurement belongs to, read from git through the library's child API (so that
 * git is run as every command pbench runs: no shell, its leftovers ended, its output taken
 * from a pipe): the revision, the branch, and whether the tree had changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "history/history.h"

/* Run git -C dir ARGS, its stdout (up to len - 1 bytes, the rest drained) into buf: the bytes
 * read, or a negative error. */
static ssize_t git(const char *dir, const char *a1, const char *a2, const char *a3, char *buf,
		   size_t len)
{
	char *argv[] = { "git", "-C", (char *)dir, (char *)a1, (char *)a2, (char *)a3, NULL };
	struct pbench_child_opts o = PBENCH_CHILD_OPTS_INIT;
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch = NULL;
	size_t got = 0;
	char sink[256];
	ssize_t r;
	int fd[2], rc;

	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	o.quiet = PBENCH_CHILD_OUTPUT_NULL;
	o.stdout_fd = fd[1];
	rc = pbench_child_start(&ch, argv, &o);
	close(fd[1]);
	while (!rc && (r = read(fd[0], got < len - 1 ? buf + got : sink,
				got < len - 1 ? len - 1 - got : sizeof(sink))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		if (got < len - 1)
			got += (size_t)r;
	}
	close(fd[0]);
	if (!rc)
		rc = pbench_child_wait(ch, &res);
	pbench_child_free(ch);
	if (rc)
		return rc;
	buf[got] = 0;
	if (!res.exited || res.exit_status)
		return pb_fail(-ENOENT, "history: 'git %s %s' failed in '%s' (not a git tree, or no "
			       "commit yet)", a1, a2 ? a2 : "", dir);
	return (ssize_t)got;
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

PBENCH_API int pbench_history_git(const char *dir, char *rev, size_t rev_len, char *branch,
				  size_t branch_len, int *dirty)
{
	char out[4096];
	ssize_t n;
	int rc;

	if (!rev || !rev_len || !branch || !branch_len || !dirty)
		return pb_fail(-EINVAL, "%s(): rev, branch and dirty are needed", __func__);
	if (!dir)
		dir = ".";
	n = git(dir, "rev-parse", "--verify", "HEAD", out, sizeof(out));
	if (n < 0)
		return (int)n;
	if ((rc = first_line(out, rev, rev_len, "the revision")))
		return rc;
	n = git(dir, "rev-parse", "--abbrev-ref", "HEAD", out, sizeof(out));
	if (n < 0)
		return (int)n;
	if ((rc = first_line(out, branch, branch_len, "the branch")))
		return rc;
	n = git(dir, "status", "--porcelain", NULL, out, sizeof(out));
	if (n < 0)
		return (int)n;
	*dirty = n > 0;
	return 0;
}
