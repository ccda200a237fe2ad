/* SPDX-License-Identifier: MIT */
/* What the benches that run pbench's programs share: finding them next to themselves. */
#ifndef PBENCH_BENCH_UTIL_H
#define PBENCH_BENCH_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* path = the directory of this bench's executable (build/bench), then "/" and rel, e.g.
 * "../pbench". 0 when that file is executable, else -1. */
static inline int bench_sibling(char *path, size_t len, const char *rel)
{
	char self[3968], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	snprintf(path, len, "%s/%s", self, rel);
	return access(path, X_OK) ? -1 : 0;
}

/* posix_spawnp("true") and its wait (hyperfine -N's way: the floor); 0 or -1. */
static inline int bench_spawn_true(void)
{
	char *argv[] = { "true", NULL };
	int status;
	pid_t pid;

	if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ))
		return -1;
	return waitpid(pid, &status, 0) == pid ? 0 : -1;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (sorted in place). */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* CLOCK_MONOTONIC_RAW, ns. */
static inline double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * Run argv (searched in PATH) with stdout and stderr to the files named (NULL: /dev/null);
 * *wall_ns from fork to reaping. Returns the exit status, 128 + signal, or -1 (fork failed).
 */
static inline int bench_run_tool(char *const argv[], const char *out, const char *err, double *wall_ns)
{
	double t0 = bench_now_ns();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0)
			_exit(126);
		dup2(o, STDOUT_FILENO);
		dup2(e, STDERR_FILENO);
		execvp(argv[0], argv);
		dprintf(e, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (wall_ns)
		*wall_ns = bench_now_ns() - t0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
