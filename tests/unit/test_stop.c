/* SPDX-License-Identifier: MIT */
/*
 * The stop flag of a harness (pbench_stop_catch, lib/src/base/stop.c): a signal that would
 * end the process sets the flag instead, the first one is kept, one ignored before stays
 * ignored (nohup), and restoring gives each signal its earlier action back.
 */
#include <criterion/criterion.h>
#include <signal.h>

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
