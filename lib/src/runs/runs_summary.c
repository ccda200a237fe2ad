/* SPDX-License-Identifier: MIT */
/*
 * What perf stat prints after its runs, for a set of runs: each event's mean with the
 * standard error of the mean ("+- x%"), median, min, max, cv over the runs, and the derived
 * metrics (counters/metrics.c) made in each run from its own counts and then summarized, so
 * that each has its interval. Also every run's value of an event or a metric by name, the
 * series a judge on a counter takes. Below runs.c, which picks the set's metrics when it
 * opens its events; the writers print what this gives.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "counters/counts.h"
#include "runs/runs_inner.h"

#define MAX_METRIC_EVENTS 8

/* Names compare as libpfm4 resolves them, case aside (TASK-CLOCK is task-clock; perf 6.1's
 * parser refuses its built-in names in capitals but takes a PMU's, msr/TSC/, in any case):
 * the counters' "listed twice" and the metric names (pb_metric_find) follow the same rule. */
int pb_runs_event_index(const struct pbench_runs *r, const char *name)
{
	for (int e = 0; e < r->nr; e++)
		if (!strcasecmp(pbench_counters_name(r->self, e), name))
			return e;
	/* the same event with other modifiers (instructions for instructions:u): a list holds
	 * only one of them */
	for (int e = 0; e < r->nr; e++) {
		const char *n = pbench_counters_name(r->self, e);

		if (pb_event_same(n, strlen(n), name, strlen(name)))
			return e;
	}
	return -1;
}

/* Metric m's events as indices into r's events (n of them); -1 for one r lacks. */
static int metric_events(const struct pbench_runs *r, int m, int *idx, const char **missing)
{
	const char *reason, *ev = pb_metric_events(m, &reason);
	int n = 0;

	*missing = NULL;
	for (const char *p = ev; p && *p && n < MAX_METRIC_EVENTS;) {
		size_t len = strcspn(p, ",");
		char name[160];

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		idx[n] = pb_runs_event_index(r, name);
		if (idx[n] < 0 && !*missing)
			*missing = pb_intern(name);
		n++;
		p += len + (p[len] == ',');
	}
	return n;
}

static int workload_iterations(const struct pbench_runs *r)
{
	return !r->subject.argv && (r->subject.workload == PBENCH_WORKLOAD_XOR ||
				    r->subject.workload == PBENCH_WORKLOAD_MEMWALK);
}

int pb_runs_pick_metrics(struct pbench_runs *r, const unsigned char *asked)
{
	int nm = pbench_metric_nr();

	r->mshow = calloc((size_t)nm, 1);
	r->mlist = calloc((size_t)nm, sizeof(*r->mlist));
	if (!r->mshow || !r->mlist)
		return -ENOMEM;
	for (int m = 0; m < nm; m++) {
		int idx[MAX_METRIC_EVENTS], n, ok = 1;
		const char *missing;

		if (asked && asked[m]) {
			r->mshow[m] = 1;
		} else if (!r->nr) {
			continue;
		} else if (pb_metric_events(m, &missing)) {
			n = metric_events(r, m, idx, &missing);
			for (int k = 0; k < n; k++)
				ok &= idx[k] >= 0 && pbench_counters_open_status(r->self, idx[k]) ==
				      PBENCH_EVENT_OK;
			r->mshow[m] = ok && n && (!pb_metric_per_iteration(m) ||
						  workload_iterations(r));
		}
		if (r->mshow[m])
			r->mlist[r->nmetrics++] = m;
	}
	return 0;
}

static const struct pb_set *set_of(const struct pbench_runs *r, int s)
{
	return r && s >= 0 && s < r->nsets ? &r->sets[s] : NULL;
}

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

/* A software event: always counting, in no PMU's window. */
static int soft(const char *name)
{
	return is_time_event(name) || !strcmp(name, "context-switches") ||
	       !strcmp(name, "cpu-migrations") || !strcmp(name, "page-faults");
}

int pbench_runs_event_summary(const struct pbench_runs *r, int s, int e,
			      struct pbench_event_summary *out)
{
	struct pbench_event_summary o = { .size = sizeof(o) };
	const struct pb_set *set = set_of(r, s);
	double run_sum = 0, *x;
	size_t n = 0;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_event_summary, 0, NULL)))
		return err;
	if (!set || e < 0 || e >= r->nr)
		return pb_fail(-EINVAL, "%s(): no set %d or event %d", __func__, s, e);
	x = calloc((size_t)(set->done ? set->done : 1), sizeof(*x));
	if (!x)
		return -ENOMEM;
	o.name = pbench_counters_name(r->self, e);
	o.unit = is_time_event(o.name) ? "ns" : "";
	o.reason = "";
	o.status = pbench_counters_open_status(r->self, e);
	for (int i = 0; i < set->done; i++)
		if (pb_run_measured(set->runs[i].timed_out))
			pb_event_summary_add(&o, &set->runs[i].counts[e], x, &n, &run_sum);
	pb_event_summary_end(&o, x, n, run_sum);
	free(x);
	pb_copy_out(out, &o, sizeof(o));
	return 0;
}

/* Run i's value of metric m (NaN with *why when it cannot be made); *apart when its events
 * were multiplexed and not in one window (their running times differ). */
static double run_metric(const struct pbench_runs *r, const struct pb_run *run, int m,
			 int *apart, const char **why)
{
	int idx[MAX_METRIC_EVENTS], n, calc = pb_metric_calc(m);
	double v[MAX_METRIC_EVENTS];
	uint64_t running = 0;
	int scaled = 0, differ = 0;
	const char *missing;
	char buf[320];

	*apart = 0;
	if (calc < 0 || !pb_metric_events(m, why))
		return NAN;
	if (pb_metric_per_iteration(m) && !workload_iterations(r)) {
		*why = "not a built-in workload: no iteration count";
		return NAN;
	}
	n = metric_events(r, m, idx, &missing);
	if (missing) {
		snprintf(buf, sizeof(buf), "its event %s was not opened (-M %s opens it)",
			 missing, pb_metric_name(m));
		*why = pb_intern(buf);
		return NAN;
	}
	for (int k = 0; k < n; k++) {
		const struct pbench_count *c = &run->counts[idx[k]];

		if (!pb_event_counted(c)) {
			snprintf(buf, sizeof(buf), "%s %s", c->name,
				 c->status == PBENCH_EVENT_NOT_COUNTED || c->status ==
				 PBENCH_EVENT_OK ? "not counted in this run" :
				 c->status == PBENCH_EVENT_NO_PERMISSION ? "not permitted here" :
				 "not supported here");
			*why = pb_intern(buf);
			return NAN;
		}
		v[k] = c->scaled;
		scaled |= c->is_scaled;
		if (soft(c->name))
			continue;
		if (running && c->time_running != running)
			differ = 1;
		running = c->time_running;
	}
	*apart = scaled && differ;
	return pb_metric_value(calc, v, n, (double)run->ns, (double)r->subject.iterations);
}

int pbench_runs_nr_metrics(const struct pbench_runs *r)
{
	return r ? r->nmetrics : 0;
}

int pbench_runs_metric(const struct pbench_runs *r, int s, int m,
		       struct pbench_metric_summary *out)
{
	struct pbench_metric_summary o = { .size = sizeof(o) };
	struct pbench_metric_info mi = { .size = sizeof(mi) };
	const struct pb_set *set = set_of(r, s);
	const char *why = NULL;
	double *x;
	size_t n = 0;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_metric_summary, 0, NULL)))
		return err;
	if (!set || m < 0 || m >= r->nmetrics)
		return pb_fail(-EINVAL, "%s(): no set %d or metric %d", __func__, s, m);
	pbench_metric_get(r->mlist[m], &mi);
	o.name = mi.name;
	o.group = mi.group;
	o.label = mi.label;
	o.formula = mi.formula;
	o.unit = mi.unit;
	o.events = mi.events;
	x = calloc((size_t)(set->done ? set->done : 1), sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (int i = 0; i < set->done; i++) {
		int apart;
		double v;

		if (!pb_run_measured(set->runs[i].timed_out))
			continue;
		v = run_metric(r, &set->runs[i], r->mlist[m], &apart, &why);
		if (!isfinite(v))
			continue;
		x[n++] = v;
		o.apart += apart;
	}
	o.runs = (int)n;
	if (!n)
		o.reason = why ? why : mi.reason ? mi.reason : "no run to make it from";
	pb_figures(x, n, &o.mean, &o.sem_pct, &o.median, &o.min, &o.max, &o.stddev, &o.cv_pct);
	free(x);
	pb_copy_out(out, &o, sizeof(o));
	return 0;
}

int pbench_runs_values(const struct pbench_runs *r, int s, const char *name, double *out, int n)
{
	const struct pb_set *set = set_of(r, s);
	int e, m = -1;

	if (!set || !name || n < 0)
		return pb_fail(-EINVAL, "%s(): no set %d, or name NULL", __func__, s);
	e = pb_runs_event_index(r, name);
	if (e < 0) {
		int mi = pb_metric_find(name);

		for (int k = 0; mi >= 0 && k < r->nmetrics; k++)
			if (r->mlist[k] == mi)
				m = mi;
		if (m < 0)
			return pb_fail(-ENOENT, "%s(): '%s' is neither an event nor a metric of "
				       "these runs", __func__, name);
	}
	for (int i = 0; out && i < set->done && i < n; i++) {
		const struct pb_run *run = &set->runs[i];
		const char *why;
		int apart;

		if (!pb_run_measured(run->timed_out))
			out[i] = NAN;
		else if (e >= 0)
			out[i] = pb_event_counted(&run->counts[e]) ? run->counts[e].scaled : NAN;
		else
			out[i] = run_metric(r, run, m, &apart, &why);
	}
	return set->done;
}

/* ---- the figure decided on (pbench_runs_opts.metric) ---------------------------------------- */

/* Why event e of r cannot be a per-run figure, or NULL when it counts. */
static const char *not_counted(const struct pbench_runs *r, int e, char *buf, size_t len)
{
	struct pbench_count *k;
	const char *why = NULL;

	if (pbench_counters_open_status(r->self, e) == PBENCH_EVENT_OK)
		return NULL;
	k = calloc((size_t)r->nr, sizeof(*k));
	for (int i = 0; k && i < r->nr; i++)
		k[i].size = sizeof(k[i]);
	if (k && pb_counters_read(r->self, k, r->nr) >= 0 && k[e].reason && *k[e].reason)
		why = k[e].reason;
	snprintf(buf, len, "%s: %s", pbench_counters_name(r->self, e), why ? why :
		 pbench_event_status_name(pbench_counters_open_status(r->self, e)));
	free(k);
	return buf;
}

/* The event named name was left out of the defaults (this machine cannot count it): why. */
static const char *left_out_reason(const struct pbench_runs *r, const char *name)
{
	for (int i = 0; i < r->nleft; i++)
		if (!strcmp(r->left_name[i], name))
			return r->left_reason[i];
	return NULL;
}

int pb_runs_target_find(struct pbench_runs *r)
{
	const char *target = r->o.metric, *why = NULL;
	int idx[MAX_METRIC_EVENTS], n;
	char buf[400];

	r->target_e = r->target_m = -1;
	if (!target || !strcasecmp(target, "wall-time"))
		return 0;
	r->target_m = pb_metric_find(target);
	if (r->target_m < 0) {
		r->target_e = pb_runs_event_index(r, target);
		if (r->target_e < 0)
			why = left_out_reason(r, target);
		else
			why = not_counted(r, r->target_e, buf, sizeof(buf));
		if (r->target_e < 0 && !why)
			why = "it was not opened";
	} else if (!pb_metric_events(r->target_m, &why)) {
		/* why: the metric's reason on this CPU */
	} else if (pb_metric_per_iteration(r->target_m) && !workload_iterations(r)) {
		why = "it is per iteration of a built-in workload, and this is not one";
	} else {
		const char *missing;

		n = metric_events(r, r->target_m, idx, &missing);
		for (int k = 0; k < n && !why; k++)
			why = idx[k] < 0 ? missing : not_counted(r, idx[k], buf, sizeof(buf));
	}
	if (!why)
		return 0;
	return pb_fail(-EOPNOTSUPP, "the metric '%s' cannot be counted here: %s", target,
		       why);
}

const char *pb_runs_target_name(const struct pbench_runs *r)
{
	if (r->target_e >= 0)
		return pbench_counters_name(r->self, r->target_e);
	return r->target_m >= 0 ? pb_metric_name(r->target_m) : NULL;
}

const char *pb_runs_target_unit(const struct pbench_runs *r)
{
	if (r->target_e >= 0)
		return is_time_event(pbench_counters_name(r->self, r->target_e)) ? "ns" : "";
	return r->target_m >= 0 ? pb_metric_unit(r->target_m) : "ns";
}

int pb_runs_target_higher(const struct pbench_runs *r)
{
	return r->target_m >= 0 && pb_metric_higher_better(r->target_m);
}

double pb_runs_run_value(const struct pbench_runs *r, const struct pb_run *run)
{
	const char *why;
	int apart;

	if (r->target_e >= 0)
		return pb_event_counted(&run->counts[r->target_e]) ?
		       run->counts[r->target_e].scaled : NAN;
	if (r->target_m >= 0)
		return run_metric(r, run, r->target_m, &apart, &why);
	return (double)run->ns;
}
