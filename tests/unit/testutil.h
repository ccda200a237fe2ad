/* SPDX-License-Identifier: MIT */
/* Checks shared by the unit tests: what a call leaves behind. */
#ifndef PBENCH_TESTUTIL_H
#define PBENCH_TESTUTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <sys/wait.h>

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

#endif
