/* SPDX-License-Identifier: MIT */
/* Helpers of the emulated-PMU test programs. */
#ifndef PB_PMU_UTIL_H
#define PB_PMU_UTIL_H

#include <fcntl.h>
#include <jansson.h>
#include <sys/wait.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "loop.h"
#include "tap.h"

#define MAXEV 16

/* Open events on the calling thread (flags: PBENCH_COUNTERS_*), enabled; NULL on failure. */
static inline __attribute__((unused)) struct pbench_counters *open_set(const char *events,
								       unsigned flags)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1,
					  .flags = flags };
	struct pbench_counters *c = NULL;
	int err = pbench_counters_open(&c, events, &o);

	if (err) {
		diag("open '%s': %s", events, pbench_strerror(err));
		pbench_counters_free(c);
		return NULL;
	}
	pbench_counters_enable(c);
	return c;
}

/* The deltas of every event of c over loop3(n), into k[0..nr-1]; the number filled. */
static inline __attribute__((unused)) int count_loop(struct pbench_counters *c, uint64_t n,
						     struct pbench_count *k)
{
	int nr = pbench_counters_nr(c);

	for (int i = 0; i < nr; i++)
		k[i].size = sizeof(k[i]);
	pbench_counters_start(c);
	loop3(n);
	pbench_counters_stop(c);
	for (int i = 0; i < nr; i++)
		if (pbench_counters_delta(c, i, &k[i]))
			return i;
	return nr;
}

static inline __attribute__((unused)) int write_sysctl(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), ok_ = 0;

	if (fd >= 0) {
		ok_ = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
		close(fd);
	}
	return ok_;
}

static inline __attribute__((unused)) int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

/* Start argv (no shell in the guest: no popen) with its stdout on the stream returned (NULL
 * when it cannot start; *pid then -1). The caller reads it, fcloses it and waits for *pid. */
static inline __attribute__((unused)) FILE *run_piped(char *const argv[], pid_t *pid)
{
	int fds[2];
	FILE *f;

	*pid = -1;
	if (pipe(fds))
		return NULL;
	*pid = fork();
	if (*pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	if (*pid < 0 || !(f = fdopen(fds[0], "r"))) {
		close(fds[0]);
		if (*pid > 0)
			waitpid(*pid, NULL, 0);
		*pid = -1;
		return NULL;
	}
	return f;
}

/* Run argv and parse its stdout as JSON; NULL on failure. */
static inline __attribute__((unused)) json_t *run_json(char *const argv[])
{
	json_error_t jerr = { .text = "cannot start it" };
	json_t *root;
	int status = -1;
	pid_t pid;
	FILE *f = run_piped(argv, &pid);

	root = f ? json_loadf(f, 0, &jerr) : NULL;
	if (f)
		fclose(f);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		diag("%s %s ... failed (status %d)%s%s", argv[0], argv[1], status,
		     root ? "" : ": ", root ? "" : jerr.text);
		json_decref(root);
		return NULL;
	}
	return root;
}

/* The first mode's metric of that name in pbench stat's JSON, or NULL. */
static inline __attribute__((unused)) json_t *metric_of(json_t *root, const char *name)
{
	json_t *a = json_object_get(json_array_get(json_object_get(root, "modes"), 0), "metrics");

	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *m = json_array_get(a, i);

		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name))
			return m;
	}
	return NULL;
}

#endif
