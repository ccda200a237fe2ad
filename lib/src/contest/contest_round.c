/* SPDX-License-Identifier: MIT */
/*
 * What every round needs, whichever way it runs (contest_exec.c's rounds, one entrant after
 * another or interleaved, and contest_duet.c's pairs): whether the caller stopped the contest,
 * the progress callback, the helper commands (setup, prepare, cleanup), keeping a run's time,
 * and whether the budget of rounds or time is spent. Below both, so neither calls the other
 * for them.
 */
#include <errno.h>
#include <math.h>

#include "stats/samples.h"
#include "process/process.h"
#include "runs/runs.h"
#include "contest/contest.h"

int pb_contest_stopped(const struct pbench_contest *c)
{
	return c->o.stop && *c->o.stop;
}

void pb_contest_progress(const struct pbench_contest *c, const char *phase)
{
	struct pbench_contest_progress p = { .size = sizeof(p), .phase = phase,
					     .round = c->rounds, .max_rounds = c->o.max_rounds,
					     .elapsed_s = c->elapsed_s,
					     .max_time_s = c->o.max_time_s, .entrant = -1,
					     .ratio = NAN, .ratio_lo = NAN, .ratio_hi = NAN,
					     .left_s = NAN, .metric = c->metric };
	double per_round = c->rounds ? c->elapsed_s / (double)c->rounds : NAN, budget = INFINITY;
	int who = pb_contest_laggard(c);

	if (!c->o.progress)
		return;
	if (who >= 0 && c->e[who].have_w) {
		p.entrant = who;
		p.ratio = c->e[who].w.ratio;
		p.ratio_lo = c->e[who].w.ratio_lo;
		p.ratio_hi = c->e[who].w.ratio_hi;
	}
	if (c->o.max_time_s > 0)
		budget = c->o.max_time_s - c->elapsed_s;
	if (isfinite(per_round))
		budget = fmin(budget, (double)(c->o.max_rounds - c->rounds) * per_round);
	p.left_s = who >= 0 && isfinite(c->e[who].need_s) ? fmin(c->e[who].need_s, budget) :
		   budget;
	if (!isfinite(p.left_s) || p.left_s < 0)
		p.left_s = NAN;
	c->o.progress(&p, c->o.progress_arg);
}

/* Run a helper command to its end (not timed): 0, 1 stopped, or an error (pb_fail_msg()). */
int pb_contest_helper(struct pbench_contest *c, char **argv, const char *what)
{
	return pb_child_helper(argv, !(c->o.flags & PBENCH_CONTEST_SHOW_OUTPUT), c->o.stop,
			       what);
}

int pb_contest_keep_time(struct pbench_contest *c, int i)
{
	struct pb_entrant *e = &c->e[i];
	const struct pb_run *run = pb_runs_run_at(e->set, pb_runs_set_done(e->set) - 1);
	struct pb_run_status st = pb_runs_status(run);
	double v = c->metric ? pb_runs_run_value(e->r, run) : NAN;

	int err;

	e->spent_s += st.ns > 0 ? (double)st.ns / 1e9 : 0;
	if (e->max_time_s > 0 && e->spent_s >= e->max_time_s && !e->own_stop)
		e->own_stop = PBENCH_CONTEST_ENTRANT_STOP_TIME;
	if (!pb_run_measured(st.timed_out))
		return 0;	/* PB_RUN_LEFT_OUT */
	if (isfinite(v) && pb_contest_append(&e->mx, &e->mn, &e->mcap, v))
		return -ENOMEM;
	if ((err = pb_contest_append(&e->x, &e->n, &e->cap, (double)st.ns)))
		return err;
	if (e->target_sem_pct > 0 && !e->own_stop && e->n >= PBENCH_CONTEST_ENTRANT_SEM_MIN_RUNS) {
		double m = 0, ss = 0;

		for (size_t k = 0; k < e->n; k++)
			m += e->x[k];
		m /= (double)e->n;
		for (size_t k = 0; k < e->n; k++)
			ss += (e->x[k] - m) * (e->x[k] - m);
		if (m > 0 && 100 * sqrt(ss / (double)(e->n - 1) / (double)e->n) / m <= e->target_sem_pct)
			e->own_stop = PBENCH_CONTEST_ENTRANT_STOP_SEM;
	}
	return 0;
}

int pb_contest_budget_spent(struct pbench_contest *c)
{
	if (c->rounds >= c->o.max_rounds)
		c->stop = PBENCH_CONTEST_STOP_MAX_ROUNDS;
	else if (c->o.max_time_s > 0 && c->elapsed_s >= c->o.max_time_s)
		c->stop = PBENCH_CONTEST_STOP_TIME;
	else
		return 0;
	return 1;
}
