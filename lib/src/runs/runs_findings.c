/* SPDX-License-Identifier: MIT */
/*
 * What a caller of the runs reads once they are done, computed here once instead of by every
 * caller: the totals over the sets (runs done, failed, a state not restored, processes left
 * behind), the multi-CPU finding (a command that used more than its CPUs' worth of time), and
 * the memory runs of a command (the allocator shim's counts, after the timed runs), and the
 * outcome a command says at the end (failed runs, a state not restored, an interruption).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "measure/measure.h"
#include "runs/runs_inner.h"

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
	/* More CPUs than the machine has cannot be the run's own: not advice to give. */
	if (m.cpus_needed > sysconf(_SC_NPROCESSORS_ONLN))
		return 0;
	pb_copy_out(out, &m, sizeof(m));
	return 1;
}

/* The runs during which pbench itself was stopped (SIGSTOP, SIGTSTP) and continued, said
 * into buf: 1, or 0 when there were none. */
static int stopped_runs(const struct pbench_runs *r, char *buf, size_t len)
{
	int n = 0, s1 = -1, i1 = -1;

	for (int s = 0; s < r->nsets; s++)
		for (int i = 0; i < r->sets[s].done; i++)
			if (r->sets[s].runs[i].self_stopped && !n++) {
				s1 = s;
				i1 = i;
			}
	if (!n)
		return 0;
	snprintf(buf, len, "pbench itself was stopped (SIGSTOP or SIGTSTP) and continued during "
		 "%d run%s (the first: %s run %d): %s time holds the stop, not the command's "
		 "alone", n, n == 1 ? "" : "s", pbench_runs_mode_name(r->sets[s1].mode), i1 + 1,
		 n == 1 ? "its" : "their");
	return 1;
}

/* Warning k of the list pbench_runs_warning() hands out, into buf: 1, or 0 past the last. */
static int warning_k(const struct pbench_runs *r, const char *name, int k, char *buf, size_t len)
{
	struct pbench_runs_multi_cpu m = { .size = sizeof(m) };
	struct pbench_runs_totals t = { .size = sizeof(t) };
	char allowed[256] = "", tc[32], wall[32];

	pbench_runs_totals(r, &t);
	if (t.left_behind_runs && !k--) {
		snprintf(buf, len, "'%s' left %d process%s running after %d run%s (background jobs "
			 "or daemons): pbench ended them after each run (SIGTERM, then SIGKILL); "
			 "their time after the command's exit is not counted",
			 name, t.left_behind, t.left_behind == 1 ? "" : "es", t.left_behind_runs,
			 t.left_behind_runs == 1 ? "" : "s");
		return 1;
	}
	if (stopped_runs(r, buf, len) && !k--)
		return 1;
	for (int s = 0; s < r->nsets; s++) {
		/* Two prepared runs on one CPU take turns on it (as pbench jitter says too). */
		if (r->sets[s].rival_pid && !k--) {
			snprintf(buf, len, "another pbench (pid %d) is pinned to CPU %d too: the two "
				 "take turns on it and each measures the other; let one finish first, "
				 "or give them different CPUs with --cpu", r->sets[s].rival_pid,
				 r->sets[s].cpu);
			return 1;
		}
	}
	if (k || pbench_runs_multi_cpu(r, &m) != 1)
		return 0;
	pbench_cpus_allowed(allowed, sizeof(allowed));
	pbench_format_ns(tc, sizeof(tc), m.task_clock_ns, 3);
	pbench_format_ns(wall, sizeof(wall), m.wall_ns, 3);
	snprintf(buf, len, "'%s' used %.1f CPUs' worth of time in %s run %d (task-clock %s in %s): "
		 "prepared runs pin it to %s, where its threads and processes take turns and it "
		 "measures something else; give it %d CPUs with --cpu LIST (here CPUs %s may be "
		 "used, e.g. --cpu %s)", name, m.cpus_used, pbench_runs_mode_name(m.mode), m.run,
		 tc, wall, m.cpus_given > 1 ? "the CPUs of --cpu" : "one CPU", m.cpus_needed,
		 allowed[0] ? allowed : "?", allowed[0] ? allowed : "1-2");
	return 1;
}

int pbench_runs_warning(const struct pbench_runs *r, const char *name, int k, char *buf,
			size_t len)
{
	if (!r || !name || k < 0 || !buf || !len)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !r ? "r is NULL" : !name ?
			       "name is NULL" : k < 0 ? "k is negative" : "no buffer");
	*buf = 0;
	return warning_k(r, name, k, buf, len);
}

/* ---- the outcome ------------------------------------------------------------------------- */

int pb_outcome_say(struct pb_outcome *o, int kind, const char *fmt, ...)
{
	va_list ap;

	if (o->found || o->k--)
		return o->found;
	va_start(ap, fmt);
	vsnprintf(o->buf, o->len, fmt, ap);
	va_end(ap);
	o->found = kind;
	return kind;
}

void pb_outcome_strict(struct pb_outcome *o, const struct pbench_runs *r)
{
	for (int s = 0; r && s < r->nsets && !o->found; s++) {
		struct pbench_runs_set si = { .size = sizeof(si) };
		char why[512];

		if (pbench_runs_set_info(r, s, &si) || !(si.unreliable & 1))
			continue;
		pbench_runs_caution(r, s, why, sizeof(why));
		pb_outcome_say(o, PBENCH_OUTCOME_ERROR, "--strict: the prepared result is "
			       "unreliable: %s", why);
	}
}

int pbench_runs_outcome(const struct pbench_runs *r, const char *name, unsigned flags, int k,
			char *buf, size_t len)
{
	struct pbench_runs_totals t = { .size = sizeof(t) };
	struct pb_outcome o = { .k = k, .buf = buf, .len = len };

	if (!r || !name || k < 0 || !buf || !len)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !r ? "r is NULL" : !name ?
			       "name is NULL" : k < 0 ? "k is negative" : "no buffer");
	*buf = 0;
	pbench_runs_totals(r, &t);
	if (flags & PBENCH_OUTCOME_INTERRUPTED)
		pb_outcome_say(&o, PBENCH_OUTCOME_ERROR, "interrupted after %d of %ld runs", t.done,
			       r->o.runs * r->nsets);
	else if (t.failed)
		pb_outcome_say(&o, PBENCH_OUTCOME_ERROR, "%d of %d runs of '%s' failed (see the "
			       "status column)", t.failed, t.done, name);
	else if (t.restore_err)
		pb_outcome_say(&o, PBENCH_OUTCOME_ERROR, "the prepared state was not fully "
			       "restored: %s", pbench_strerror(t.restore_err));
	else if (flags & PBENCH_OUTCOME_STRICT)
		pb_outcome_strict(&o, r);
	return o.found;
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
