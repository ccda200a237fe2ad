/* SPDX-License-Identifier: MIT */
/*
 * What the rests between prepared SCHED_FIFO runs buy: the built-in xor loop (27 ms here),
 * prepared on one CPU under SCHED_FIFO, next to a busy normal-priority process pinned to the
 * same CPU. Without rests the fair server (kernel 6.12+) or RT throttling preempts a run for
 * its slice; with pbench_prepared_rest() after each run the waiting task runs between runs.
 * Prints the spread of 40 runs each way (about 1.1 s, longer than the server's 1 s period),
 * three rounds, each set after a pause of 1.1 s: a set that kept the normal task waiting
 * gets the server's slice early in the set after it, which is not that set's doing. Needs root (SCHED_FIFO) and two CPUs; says so and skips otherwise.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbench.h"

#define RUNS 40
#define ROUNDS 3

static double run_ms(void)
{
	uint64_t t0 = pbench_ticks_begin(), r = pbench_workload_xor(100000000ULL, t0);

	pbench_do_not_optimize(r);
	return pbench_ticks_to_ns_f(pbench_ticks_end() - t0) / 1e6;
}

static void spread(const char *what, const double *v, int n)
{
	double lo = INFINITY, hi = 0;
	char at[128] = "";
	int slow = 0;
	size_t k = 0;

	for (int i = 0; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	for (int i = 0; i < n; i++)
		if (v[i] > 1.2 * lo) {
			slow++;
			if (k < sizeof(at))
				k += (size_t)snprintf(at + k, sizeof(at) - k, " %d", i + 1);
		}
	printf("  %-20s %d runs: min %.2f ms, max %.2f ms, spread %.2f%%, %d slower than 1.2x "
	       "the fastest%s%s\n", what, n, lo, hi, (hi - lo) / lo * 100, slow,
	       slow ? ": runs" : "", at);
}

int main(void)
{
	struct pbench_prepare_opts o = PBENCH_PREPARE_OPTS_INIT;
	struct pbench_prepared_priority pr = { .size = sizeof(pr) };
	struct pbench_prepared *p;
	double v[RUNS];
	int err, st;
	pid_t hog;

	printf("bench_fifo_rest: SCHED_FIFO runs of the xor loop next to a busy normal task on "
	       "the same CPU, with and without rests, in this run\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("  skipped: one CPU only\n");
		return 0;
	}
	o.cpu = 1;
	o.priority = PBENCH_PRIORITY_FIFO;
	o.warmup_ms = 200;
	err = pbench_prepare(&p, &o);
	if (err) {
		printf("  skipped: cannot prepare CPU 1: %s\n", pbench_strerror(err));
		return 0;
	}
	pbench_prepared_priority(p, &pr);
	if (pr.policy != SCHED_FIFO) {
		printf("  skipped: SCHED_FIFO refused (%s)\n", pbench_prepared_step(p,
		       PBENCH_PREPARE_STEP_PRIORITY)->what);
		pbench_prepared_free(p);
		return 0;
	}
	if (!(pr.rest_pct > 0)) {
		printf("  skipped: nothing takes time from a FIFO task here (no fair server, "
		       "sched_rt_runtime_us -1): no rest to compare\n");
		pbench_prepared_free(p);
		return 0;
	}
	hog = fork();
	if (hog == 0) {
		struct sched_param sp = { 0 };

		/* A normal task: the fork inherited FIFO and the pin to CPU 1. */
		sched_setscheduler(0, SCHED_OTHER, &sp);
		for (;;)
			__asm__ volatile("");
	}
	if (hog < 0) {
		printf("  skipped: fork: %s\n", pbench_strerror(-errno));
		pbench_prepared_free(p);
		return 0;
	}
	usleep(100000);
	printf("  CPU 1, SCHED_FIFO %d; rest %.1f%% of each run\n", pr.value, pr.rest_pct);
	for (int round = 0; round < ROUNDS; round++) {
		usleep(1100000);
		for (int i = 0; i < RUNS; i++)
			v[i] = run_ms();
		spread("no rest", v, RUNS);
		usleep(1100000);
		for (int i = 0; i < RUNS; i++) {
			v[i] = run_ms();
			pbench_prepared_rest(p, v[i] * 1e6);
		}
		spread("rest after each run", v, RUNS);
	}
	kill(hog, SIGKILL);
	waitpid(hog, &st, 0);
	pbench_prepared_free(p);
	return 0;
}
