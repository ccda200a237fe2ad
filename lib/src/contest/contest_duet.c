/* SPDX-License-Identifier: MIT */
/*
 * A duet (Bulej, Horky, Tuma, Farquhar, Haas, "Duet Benchmarking: Improving Measurement
 * Accuracy in the Cloud", ICPE 2020): the two commands run at the same time, each pinned to a
 * CPU of its own, and are compared pair by pair. Whatever slows the machine during a round
 * (the host taking a vCPU away, another tenant, a burst of interrupts) mostly slows both, and
 * the ratio of the pair keeps little of it. The CPUs are swapped every round, so that a faster
 * CPU favours neither, and which command starts first alternates every two rounds, so that
 * neither always has the head start of the other's fork.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "runs/runs.h"
#include "contest/contest.h"

/* Wait for both commands, reaping each as it ends: 0, 1 stopped, or an error. A command still
 * running at the timeout is ended and marked (its run is not a time). */
static int wait_both(struct pbench_contest *c, struct pb_entrant **e, struct pbench_child **ch,
		     struct pbench_child_result *res, struct pb_run **run, uint64_t t0)
{
	int left = 2;

	while (left) {
		double tmo = 0;
		int j, err;

		if (c->o.timeout_s > 0)
			tmo = fmax(1e-3, c->o.timeout_s -
				   pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9);
		j = pbench_child_wait_any(ch, 2, tmo);
		if (j == -EINTR) {
			if (pb_contest_stopped(c))
				return 1;
			continue;
		}
		if (j == -ETIMEDOUT) {
			for (int k = 0; k < 2; k++)
				if (ch[k]) {
					pb_runs_command_timed_out(e[k]->r, ch[k], run[k], t0);
					ch[k] = NULL;
				}
			return 0;
		}
		if (j < 0)
			return j;
		err = pbench_child_wait(ch[j], &res[j]);
		if (!err)
			err = pb_runs_command_finish(e[j]->r, ch[j], &res[j], run[j]);
		else
			pbench_child_free(ch[j]);
		ch[j] = NULL;
		if (err)
			return err;
		left--;
	}
	return 0;
}

/* Both runs measured: kept in their sets, and their times as a pair. */
static int keep_pair(struct pbench_contest *c, struct pb_entrant **e, struct pb_run **run,
		     const struct pbench_child_result *res)
{
	int ref = c->o.reference, err = 0;

	for (int j = 0; j < 2; j++) {
		struct pb_rusage u = { res[j].ctx_voluntary, res[j].ctx_involuntary,
				       res[j].minor_faults, res[j].major_faults,
				       res[j].user_ns, res[j].system_ns };

		pb_runs_keep(e[j]->r, e[j]->set, run[j], &u);
		err = err ? err : pb_contest_keep_time(c, j);
	}
	if (err || pb_runs_status(run[0]).timed_out || pb_runs_status(run[1]).timed_out)
		return err;
	return pb_contest_append_pair(&c->e[!ref], pb_runs_run_value(e[ref]->r, run[ref]),
				      pb_runs_run_value(e[!ref]->r, run[!ref]));
}

/* Round k: the prepare command, then both commands released one right after the other. */
static int duet_round(struct pbench_contest *c, long k)
{
	struct pb_entrant *e[2] = { &c->e[0], &c->e[1] };
	struct pbench_child_result res[2] = { { .size = sizeof(res[0]) },
					      { .size = sizeof(res[1]) } };
	struct pbench_child *ch[2] = { NULL, NULL };
	int swap = (int)(k & 1), first = (int)((k >> 1) & 1), err, cpu[2], bad = -1;
	struct pb_fail_saved saved;
	struct pb_run *run[2];
	uint64_t t0;

	err = pb_contest_helper(c, c->prerun, "prepare");
	for (int j = 0; j < 2 && !err; j++)	/* each command's own */
		err = pb_contest_helper(c, e[j]->prerun, "prepare");
	if (err)
		return err;
	cpu[0] = c->duet_cpus[swap];
	cpu[1] = c->duet_cpus[!swap];
	for (int j = 0; j < 2; j++) {
		run[j] = pb_runs_next_on(e[j]->r, e[j]->set, cpu[j]);
	}
	t0 = pbench_ticks();
	for (int s = 0; s < 2 && !err; s++) {
		int j = s ^ first;

		err = pb_runs_command_start(e[j]->r, 0, cpu[j], 0, 0, &ch[j]);
		if (err)
			bad = j;
	}
	if (!err)
		err = wait_both(c, e, ch, res, run, t0);
	pb_fail_save(&saved);
	for (int j = 0; j < 2; j++) {
		pbench_child_free(ch[j]);	/* a stop or an error: ended with its group */
		pb_runs_cpu_noise_end(e[j]->r, run[j]);
	}
	pb_fail_restore(&saved);
	if (err < 0 && bad >= 0)
		return pb_fail_msg(err, "cannot run '%s' on CPU %d: %s", e[bad]->name, cpu[bad],
				   pbench_strerror(err));
	if (err < 0)
		return pb_fail_msg(err, "cannot run the duet: %s", pbench_strerror(err));
	return err ? err : keep_pair(c, e, run, res);
}

int pb_contest_duet(struct pbench_contest *c)
{
	uint64_t t0 = pbench_ticks();

	while (!pb_contest_stopped(c) && !pb_contest_budget_spent(c)) {
		int err = duet_round(c, c->rounds);

		if (err)
			return err;
		c->rounds++;
		c->elapsed_s = pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
		if (!(c->o.flags & PBENCH_CONTEST_FULL_BUDGET) && pb_contest_look_if_due(c)) {
			c->stop = PBENCH_CONTEST_STOP_DECIDED;
			break;
		}
		pb_contest_progress(c, "rounds");
	}
	return 0;
}
