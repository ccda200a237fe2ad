/* SPDX-License-Identifier: MIT */
/*
 * What a caller of the runs reads once they are done, computed here once instead of by every
 * caller: the totals over the sets (runs done, failed, a state not restored, processes left
 * behind), the multi-CPU finding (a command that used more than its CPUs' worth of time), and
 * the memory runs of a command (the allocator shim's counts, after the timed runs).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "measure/measure.h"
#include "runs/runs.h"

int pbench_runs_totals(const struct pbench_runs *r, struct pbench_runs_totals *out)
{
	struct pbench_runs_totals t = { 0 };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_runs_totals, 0, NULL)))
		return err;
	if (!r)
		return pb_fail(-EINVAL, "%s(): r is NULL", __func__);
	t.size = out->size;
	for (int s = 0; s < r->nsets; s++) {
		const struct pb_set *set = &r->sets[s];

		t.done += set->done;
		t.failed += set->failed;
		if (set->restore_err)
			t.restore_err = set->restore_err;
		for (int i = 0; i < set->done; i++) {
			t.left_behind_runs += set->runs[i].left_behind > 0;
			t.left_behind += set->runs[i].left_behind;
		}
	}
	pb_copy_out(out, &t, sizeof(t));
	return 0;
}

/* The run of the most CPUs' worth of time (task-clock, which counts the command's children
 * too, over the wall time): 0 with *out filled, -ENODATA when task-clock was not counted. */
static int most_cpus(const struct pbench_runs *r, struct pbench_runs_multi_cpu *m)
{
	int e = -1;

	for (int k = 0; k < pbench_runs_nr_events(r); k++)
		if (!strcmp(pbench_runs_event_name(r, k), "task-clock"))
			e = k;
	if (e < 0)
		return -ENODATA;
	for (int s = 0; s < r->nsets; s++) {
		for (int i = 0; i < r->sets[s].done; i++) {
			struct pbench_run run = { .size = sizeof(run) };
			struct pbench_count k = { .size = sizeof(k) };

			if (pbench_runs_get(r, s, i, &run) || pbench_runs_count(r, s, i, e, &k) ||
			    k.status > PBENCH_EVENT_MULTIPLEXED || !run.ns || run.timed_out ||
			    !(k.scaled / (double)run.ns > m->cpus_used))
				continue;
			m->cpus_used = k.scaled / (double)run.ns;
			m->task_clock_ns = k.scaled;
			m->wall_ns = (double)run.ns;
			m->mode = r->sets[s].mode;
			m->run = i + 1;
		}
	}
	return 0;
}

int pbench_runs_multi_cpu(const struct pbench_runs *r, struct pbench_runs_multi_cpu *out)
{
	struct pbench_runs_multi_cpu m = { 0 };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_runs_multi_cpu, 0, NULL)))
		return err;
	if (!r)
		return pb_fail(-EINVAL, "%s(): r is NULL", __func__);
	m.size = out->size;
	m.cpus_given = r->o.ncpus > 1 ? r->o.ncpus : 1;
	/* 10% above: the counters' own skew never reaches that */
	if (!r->subject.argv || most_cpus(r, &m) || m.cpus_used < 1.1 ||
	    (m.cpus_given > 1 && m.cpus_used <= m.cpus_given))
		return 0;
	m.cpus_needed = (int)ceil(m.cpus_used);
	pb_copy_out(out, &m, sizeof(m));
	return 1;
}

int pbench_runs_count_memory(struct pbench_runs *r, int n)
{
	struct pbench_mem_run *runs;
	char *const *argv[1];
	int err;

	if (!r || !r->subject.argv || n < 1)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !r ? "r is NULL" : n < 1 ?
			       "n is less than 1" : "the runs are not of a command");
	runs = calloc((size_t)n, sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	argv[0] = r->subject.argv;
	err = pb_mem_runs_count(argv, 1, n, 1, r->o.stop, &runs);
	if (err >= 0) {
		int stopped = err;

		err = pb_runs_attach_memory(r, runs, n);
		err = err < 0 ? err : stopped;
	}
	free(runs);
	return err;
}
