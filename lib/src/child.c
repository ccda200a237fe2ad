/* SPDX-License-Identifier: MIT */
/*
 * Counting a child command from its exec, with the handshake perf stat uses: fork, let the
 * child block on a pipe, open the counters on its pid with enable_on_exec and inherit, then
 * release it into exec. A second close-on-exec pipe carries exec's errno back, so a command
 * that cannot run is told apart from one that ran and failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

struct pbench_child {
	pid_t pid;		/* 0 once reaped */
	struct pbench_counters *counters;
	uint64_t t_fork, t0, t_exec;	/* before fork, the release, exec seen done */
};

/* Find cmd as execvp would; path gets the file to exec. */
int pbench_command_resolve(const char *cmd, char *path, size_t len)
{
	const char *dirs, *p;
	struct stat st;
	int saw_eacces = 0;

	if (!cmd || !*cmd)
		return -PBENCH_ENOT_FOUND;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return -PBENCH_ENOT_FOUND;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return -PBENCH_ENOT_EXEC;
		snprintf(path, len, "%s", cmd);
		return 0;
	}
	dirs = getenv("PATH");
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (p = dirs;; p++) {
		const char *end = strchrnul(p, ':');
		int n = end == p ? snprintf(path, len, "./%s", cmd)
				 : snprintf(path, len, "%.*s/%s", (int)(end - p), p, cmd);

		if (n > 0 && (size_t)n < len && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return 0;
			saw_eacces = 1;
		}
		if (!*end)
			break;
		p = end;
	}
	return saw_eacces ? -PBENCH_ENOT_EXEC : -PBENCH_ENOT_FOUND;
}

static void reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

int pbench_child_start(struct pbench_child **out, char *const argv[],
		       const struct pbench_child_opts *opts)
{
	struct pbench_counters_opts copts = { .size = sizeof(copts), .cpu = -1 };
	struct pbench_child *ch;
	int go[2], ex[2], err, status, exec_errno;
	char path[4096];
	ssize_t n;
	pid_t pid;

	*out = NULL;
	if (!argv || !argv[0])
		return -EINVAL;
	err = pbench_command_resolve(argv[0], path, sizeof(path));
	if (err)
		return err;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	if (pipe2(go, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_free;
	}
	if (pipe2(ex, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_close_go;
	}
	ch->t_fork = pbench_ticks();
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_close_ex;
	}
	if (pid == 0) {
		char c;

		/* Only async-signal-safe calls from here to exec. */
		close(go[1]);
		close(ex[0]);
		if (opts && opts->quiet) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0) {
				dup2(null, 1);
				dup2(null, 2);
				close(null);
			}
		}
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the parent gave up before releasing us */
		execv(path, argv);
		exec_errno = errno;
		if (write(ex[1], &exec_errno, sizeof(exec_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	ch->pid = pid;
	if (opts && opts->events && *opts->events) {
		copts.pid = pid;
		copts.flags = PBENCH_COUNT_INHERIT | PBENCH_COUNT_ENABLE_ON_EXEC |
			      (opts->counter_flags & ~PBENCH_COUNT_START_ENABLED);
		err = pbench_counters_open(&ch->counters, opts->events, &copts);
		if (err && err != -PBENCH_ENO_EVENTS)
			goto out_kill;
		err = 0;
	}
	ch->t0 = pbench_ticks_begin();
	if (write(go[1], "g", 1) != 1) {
		err = -errno;
		goto out_kill;
	}
	close(go[1]);
	go[1] = -1;
	/* EOF: exec succeeded and closed the pipe. An int: exec failed with that errno. */
	do {
		n = read(ex[0], &exec_errno, sizeof(exec_errno));
	} while (n < 0 && errno == EINTR);
	ch->t_exec = n == 0 ? pbench_ticks() : 0;
	close(ex[0]);
	if (n == (ssize_t)sizeof(exec_errno)) {
		reap(pid, &status);
		ch->pid = 0;
		pbench_counters_free(ch->counters);
		free(ch);
		return exec_errno == ENOENT ? -PBENCH_ENOT_FOUND
		       : exec_errno == EACCES || exec_errno == ENOEXEC ? -PBENCH_ENOT_EXEC
		       : -exec_errno;
	}
	*out = ch;
	return 0;

out_kill:
	if (go[1] >= 0)
		close(go[1]);	/* the child reads EOF and exits 127 */
	close(ex[0]);
	reap(pid, &status);
	pbench_counters_free(ch->counters);
	free(ch);
	return err;
out_close_ex:
	close(ex[0]);
	close(ex[1]);
out_close_go:
	close(go[0]);
	close(go[1]);
out_free:
	free(ch);
	return err;
}

int pbench_child_wait(struct pbench_child *ch, struct pbench_child_result *res)
{
	int status;
	uint64_t t1;
	size_t size;

	if (!ch || !res || res->size == 0)
		return -EINVAL;
	if (!ch->pid)
		return -ECHILD;
	/* A signal handler that returns (the caller's Ctrl-C) ends the wait with -EINTR and
	 * leaves the child running: the caller decides to wait again or to free (kill) it. */
	if (waitpid(ch->pid, &status, 0) < 0)
		return -errno;
	t1 = pbench_ticks_end();
	ch->pid = 0;
	size = res->size;
	memset(res, 0, size < sizeof(*res) ? size : sizeof(*res));
	res->size = size;
	res->ticks = t1 - ch->t0;
	res->ns = pbench_ticks_to_ns(res->ticks);
	if (size >= offsetof(struct pbench_child_result, exec_ticks) + sizeof(res->exec_ticks)) {
		res->setup_ticks = ch->t0 - ch->t_fork;
		res->exec_ticks = ch->t_exec > ch->t0 ? ch->t_exec - ch->t0 : 0;
	}
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signaled = 1;
		res->term_signal = WTERMSIG(status);
	}
	return 0;
}

struct pbench_counters *pbench_child_counters(struct pbench_child *ch)
{
	return ch ? ch->counters : NULL;
}

void pbench_child_free(struct pbench_child *ch)
{
	int status;

	if (!ch)
		return;
	if (ch->pid) {
		kill(ch->pid, SIGKILL);
		reap(ch->pid, &status);
	}
	pbench_counters_free(ch->counters);
	free(ch);
}
