/* SPDX-License-Identifier: MIT */
/*
 * What every step of preparing shares, below prepare.c (the steps, the saved state, the public
 * calls) and prepare_prio.c (the priority step and its probe): the clock in ms and a rest, a
 * step's recorded outcome, sched_getattr(2), and the work that warms up and probes (one timed
 * run, and its calibration to a length).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "prepare/prepare.h"

static volatile uint64_t sink;

double pb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void pb_outcome(struct pbench_prepared *p, int step, int status, int error,
		const char *fmt, ...)
{
	struct pbench_prepared_step *s = &p->steps[step];
	va_list ap;

	s->status = status;
	s->error = error;
	va_start(ap, fmt);
	vsnprintf(p->what[step], sizeof(p->what[step]), fmt, ap);
	va_end(ap);
}

int pb_sched_getattr(pid_t tid, struct pb_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0) ? -errno : 0;
}

double pb_work_run(const struct pb_work *w)
{
	double t0 = pb_now_ms();

	if (w->fn)
		for (uint64_t i = 0; i < w->n; i++)
			w->fn(w->ctx);
	else
		sink += pbench_workload_xor(w->n, sink);
	return pb_now_ms() - t0;
}

/* Set w->n so that one run lasts about ms (one call at least). */
void pb_work_calibrate(struct pb_work *w, double ms)
{
	w->n = 1;
	for (;;) {
		double t = pb_work_run(w);

		if (t >= ms / 4 || w->n > UINT64_MAX / 8) {
			double n = t > 0 ? (double)w->n * ms / t : (double)w->n;

			w->n = n < 1 ? 1 : n > 0x1p62 ? (uint64_t)1 << 62 : (uint64_t)n;
			return;
		}
		w->n *= 4;
	}
}

int pb_step_status(int err)
{
	return err == -EPERM || err == -EACCES ? PBENCH_PREPARE_NOT_PERMITTED
						: PBENCH_PREPARE_FAILED;
}

void pb_rest_ms(double ms)
{
	struct timespec ts;

	if (!(ms > 0))
		return;
	ts.tv_sec = (time_t)(ms / 1e3);
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1e3) * 1e6);
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}
