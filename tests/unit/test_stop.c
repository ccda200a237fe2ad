/* SPDX-License-Identifier: MIT */
/*
 * The stop flag of a harness (pbench_stop_catch, lib/src/base/stop.c): a signal that would
 * end the process sets the flag instead, the first one is kept, one ignored before stays
 * ignored (nohup), and restoring gives each signal its earlier action back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

Test(stop, first_signal_is_kept_and_actions_put_back)
{
	struct sigaction cur;
	const volatile int *stop = pbench_stop_catch();

	cr_assert_eq(*stop, 0, "no signal yet, the flag is %d", *stop);
	raise(SIGUSR1);
	raise(SIGHUP);
	cr_assert_eq(*stop, SIGUSR1, "the first signal, SIGUSR1, sets it (got %d)", *stop);
	cr_assert_eq(pbench_stop_restore(), SIGUSR1);
	sigaction(SIGUSR1, NULL, &cur);
	cr_assert(cur.sa_handler == SIG_DFL, "SIGUSR1 has its default action back");
}

Test(stop, ignored_signal_stays_ignored)
{
	struct sigaction cur;

	signal(SIGUSR2, SIG_IGN);
	pbench_stop_catch();
	sigaction(SIGUSR2, NULL, &cur);
	cr_assert(cur.sa_handler == SIG_IGN, "SIGUSR2 ignored before stays ignored");
	raise(SIGUSR2);
	cr_assert_eq(pbench_stop_restore(), 0, "an ignored signal sets nothing");
	signal(SIGUSR2, SIG_DFL);
}

/* pbench_stop_die(): the process ends of the signal itself (its parent sees WTERMSIG), not of
 * an exit; a signal whose default is not to end the process returns. */
Test(stop, die_ends_the_process_of_the_signal)
{
	int status;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (!pid) {
		const volatile int *stop = pbench_stop_catch();

		raise(SIGHUP);
		if (*stop != SIGHUP || pbench_stop_restore() != SIGHUP)
			_exit(3);
		pbench_stop_die(SIGHUP);
		_exit(4);	/* not reached when it works */
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP,
		  "expected the child killed by SIGHUP, saw %s %d", WIFSIGNALED(status) ?
		  "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	cr_assert_eq(pbench_stop_die(SIGCHLD), -EINVAL, "SIGCHLD's default does not end it");
	cr_assert_eq(pbench_stop_die(0), -EINVAL);
}

/* pbench_log_stderr(): one line "PREFIX: LEVEL: MSG" on stderr. */
Test(stop, log_stderr_writes_one_line)
{
	char buf[256] = "";
	int fds[2], saved = dup(2);
	ssize_t n;

	cr_assert(!pipe(fds) && saved >= 0);
	dup2(fds[1], 2);
	pbench_log_stderr(PBENCH_LOG_WARN, "a message", "prog");
	pbench_log_stderr(PBENCH_LOG_DEBUG, "b", NULL);
	pbench_log_stderr(42, "c", "x");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	cr_assert(n > 0);
	cr_assert_str_eq(buf, "prog: warning: a message\npbench: debug: b\nx: log: c\n");
}
