/* SPDX-License-Identifier: MIT */
/*
 * The stop flag of a harness that measures until done or stopped: a signal that would end the
 * process from outside (a Ctrl-C, a closed terminal's SIGHUP, a supervisor's SIGTERM...) sets
 * the flag instead, for as long as the harness runs, so that the work it gives the flag to
 * (the opts' stop of runs, contests, the jitter probe, a listing's sampling, a history
 * import) ends what it started, puts a prepared CPU back and leaves the report to be written;
 * and the SIGCONTs that continue a stopped harness are counted (the opts' resumed of runs and
 * contests). The library keeps no handler of its own: whether the process then dies of the
 * signal is the command line's.
 * Internal helper: the signals caught are pb_sigset_stop()'s (base/base.h), the set the
 * library's prepared state is restored on (PBENCH_PREPARE_SIGNALS), so that the two agree.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "support.h"

static volatile int stop_sig;
/* The signals caught, each with the action it had before. */
static sigset_t caught;
static struct sigaction old_acts[NSIG];
/* SIGCONTs while caught: the harness was stopped (SIGSTOP, SIGTSTP) and continued. */
static volatile unsigned conts;

static void on_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

static void on_cont(int sig)
{
	(void)sig;
	conts++;
}

const volatile unsigned *cli_stop_resumed(void)
{
	return &conts;
}

const volatile int *cli_stop_catch(void)
{
	struct sigaction sa;
	sigset_t stop;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	stop_sig = 0;
	sigemptyset(&caught);
	pb_sigset_stop(&stop);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sigismember(&stop, sig) != 1 || sigaction(sig, NULL, &old_acts[sig]))
			continue;
		/* ignored when the harness started (nohup, a shell's background job): stays so */
		if (old_acts[sig].sa_handler != SIG_IGN && !sigaction(sig, &sa, NULL))
			sigaddset(&caught, sig);
	}
	/* SIGCONT counted, so that a run during which the harness itself was stopped says so
	 * (its time holds the stop); the process continues whatever the handler, and calls the
	 * handler interrupts are restarted. Left as it is when the caller handles it. */
	sa.sa_handler = on_cont;
	sa.sa_flags = SA_RESTART;
	if (!sigaction(SIGCONT, NULL, &old_acts[SIGCONT]) &&
	    old_acts[SIGCONT].sa_handler == SIG_DFL && !sigaction(SIGCONT, &sa, NULL))
		sigaddset(&caught, SIGCONT);
	return &stop_sig;
}

int cli_stop_restore(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&caught, sig) == 1)
			sigaction(sig, &old_acts[sig], NULL);
	sigemptyset(&caught);
	return stop_sig;
}

int cli_stop_die(int sig)
{
	sigset_t one;

	if (sig <= 0 || sig >= NSIG)
		return -EINVAL;
	fflush(NULL);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	return -EINVAL;	/* its default action is not to end the process (SIGCHLD, SIGCONT...) */
}
