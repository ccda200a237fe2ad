/* SPDX-License-Identifier: MIT */
/*
 * The stop flag of a harness (cli_stop_catch, cli/support/stop.c): a signal that would end
 * the process sets the flag instead, the first one is kept, one ignored before stays ignored
 * (nohup), a SIGCONT is counted, and restoring gives each signal its earlier action back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"
#include "testutil.h"

Test(cli_stop, first_signal_is_kept_and_actions_put_back)
{
	struct sigaction cur;
	const volatile int *stop = cli_stop_catch();

	cr_assert_eq(*stop, 0, "no signal yet, the flag is %d", *stop);
	raise(SIGUSR1);
	raise(SIGHUP);
	cr_assert_eq(*stop, SIGUSR1, "the first signal, SIGUSR1, sets it (got %d)", *stop);
	cr_assert_eq(cli_stop_restore(), SIGUSR1);
	sigaction(SIGUSR1, NULL, &cur);
	cr_assert(cur.sa_handler == SIG_DFL, "SIGUSR1 has its default action back");
}

Test(cli_stop, ignored_signal_stays_ignored)
{
	struct sigaction cur;

	signal(SIGUSR2, SIG_IGN);
	cli_stop_catch();
	sigaction(SIGUSR2, NULL, &cur);
	cr_assert(cur.sa_handler == SIG_IGN, "SIGUSR2 ignored before stays ignored");
	raise(SIGUSR2);
	cr_assert_eq(cli_stop_restore(), 0, "an ignored signal sets nothing");
	signal(SIGUSR2, SIG_DFL);
}

/* cli_stop_resumed(): the SIGCONTs while caught, counted (what runs and contests read as
 * opts.resumed); the handler put back after. */
Test(cli_stop, continued_is_counted)
{
	const volatile unsigned *resumed = cli_stop_resumed();
	struct sigaction cur;
	unsigned before;

	signal(SIGCONT, SIG_DFL);
	cli_stop_catch();
	before = *resumed;
	raise(SIGCONT);
	cr_assert_eq(*resumed, before + 1, "one SIGCONT counted (%u, then %u)", before, *resumed);
	cr_assert_eq(cli_stop_restore(), 0, "SIGCONT sets no stop");
	sigaction(SIGCONT, NULL, &cur);
	cr_assert(cur.sa_handler == SIG_DFL, "SIGCONT has its default action back");
	raise(SIGCONT);
	cr_assert_eq(*resumed, before + 1, "not counted once restored");
}

/* cli_stop_die(): the process ends of the signal itself (its parent sees WTERMSIG), not of
 * an exit; a signal whose default is not to end the process returns. */
Test(cli_stop, die_ends_the_process_of_the_signal)
{
	int status;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (!pid) {
		const volatile int *stop = cli_stop_catch();

		raise(SIGHUP);
		if (*stop != SIGHUP || cli_stop_restore() != SIGHUP)
			_exit(3);
		cli_stop_die(SIGHUP);
		_exit(4);	/* not reached when it works */
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP,
		  "expected the child killed by SIGHUP, saw %s %d", WIFSIGNALED(status) ?
		  "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	cr_assert_eq(cli_stop_die(SIGCHLD), -EINVAL, "SIGCHLD's default does not end it");
	cr_assert_eq(cli_stop_die(0), -EINVAL);
}

/* cli_log_stderr(): one line "PREFIX: LEVEL: MSG" on stderr. */
Test(cli_stop, log_stderr_writes_one_line)
{
	char buf[256] = "";
	int fds[2], saved = dup(2);
	ssize_t n;

	cr_assert(!pipe(fds) && saved >= 0);
	dup2(fds[1], 2);
	cli_log_stderr(PBENCH_LOG_WARN, "a message", "prog");
	cli_log_stderr(PBENCH_LOG_DEBUG, "b", NULL);
	cli_log_stderr(42, "c", "x");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	cr_assert(n > 0);
	cr_assert_str_eq(buf, "prog: warning: a message\npbench: debug: b\nx: log: c\n");
}
