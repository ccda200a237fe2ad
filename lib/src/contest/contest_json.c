/* SPDX-License-Identifier: MIT */
/*
 * A contest as JSON (schema 2: the head every document has, then the verdicts, then each
 * entrant with its times, its events against the reference, the looks at its test and, for
 * one that ran, its set of runs as pbench stat writes it) and as CSV (one line per run).
 * pbench_samples reads the JSON back: each entrant's "times_ns" is a set named by its name,
 * which is how a baseline is compared later (pbench compare --baseline).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "measure/measure.h"
#include "base/jsonutil.h"
#include "runs/runs.h"
#include "contest/contest.h"

/* The verdict's word: faster or slower on the time; with a metric, which is not a time (a
 * count, ipc), its figure is lower or higher than the reference's (the ratio below or above
 * 1); same and undecided alike. */
static const char *verdict_word(const struct pbench_contest *c, int v)
{
	if (c->metric && v == PBENCH_VERDICT_FASTER)
		return "lower";
	if (c->metric && v == PBENCH_VERDICT_SLOWER)
		return "higher";
	return pbench_verdict_name(v);
}

static json_t *verdict_json(const struct pbench_contest *c, int i, int *bad)
{
	struct pbench_contest_result r = { .size = sizeof(r) };
	char text[768];
	json_t *j = json_object();

	if (!j || pbench_contest_result(c, i, &r) ||
	    pbench_contest_verdict_text(c, i, text, sizeof(text))) {
		json_decref(j);
		return NULL;
	}
	SET(j, "entrant", json_integer(i));
	SET(j, "name", json_string(r.name));
	SET(j, "against", json_string(c->e[c->o.reference].name));
	SET(j, "verdict", json_string(verdict_word(c, r.verdict)));
	if (c->metric)	/* which side of 1 is the better one on it */
		SET(j, "better", r.verdict == PBENCH_VERDICT_FASTER ? json_boolean(!c->higher_better) :
				 r.verdict == PBENCH_VERDICT_SLOWER ? json_boolean(c->higher_better) :
				 json_null());
	SET(j, "text", json_string(text));
	SET(j, "ratio", num(r.ratio));
	SET(j, "ratio_lo", num(r.ratio_lo));
	SET(j, "ratio_hi", num(r.ratio_hi));
	SET(j, "p", num(r.p));
	SET(j, "p_same", num(r.p_same));
	SET(j, "decided_round", r.decided_round ? json_integer(r.decided_round) : json_null());
	SET(j, "decided_s", num(r.decided_s));
	/* undecided with no difference to size: no end is known, which is not a number */
	SET(j, "need_s", num(r.need_s));
	return j;
}

static json_t *times_json(const struct pb_entrant *e)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < e->n; i++)
		if (json_array_append_new(a, json_real(e->x[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *values_json(const double *x, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, num(x[i]));
	return a;
}

static json_t *summary_json(const struct pb_entrant *e)
{
	struct pbench_summary s = { .size = sizeof(s) };
	double lsum = 0;

	if (!e->n || pbench_stats_summary(e->x, e->n, NULL, &s))
		return json_null();
	for (size_t i = 0; i < e->n; i++)
		lsum += log(e->x[i]);
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)s.n,
			 "min_ns", num(s.min), "median_ns", num(s.median), "mean_ns", num(s.mean),
			 "geomean_ns", num(exp(lsum / (double)e->n)), "max_ns", num(s.max),
			 "stddev_ns", num(s.stddev), "cv_pct", num(s.cv_pct),
			 "spread_pct", num(s.spread_pct));
}

/* The events the entrants that run count: 0 when none runs. */
static int nr_events(const struct pbench_contest *c)
{
	int nr = 0;

	for (int i = 0; i < c->n && !nr; i++)
		nr = c->e[i].r ? pbench_runs_nr_events(c->e[i].r) : 0;
	return nr;
}

/* Each event of an entrant that runs, or of a baseline whose file holds its runs. */
static json_t *events_json(const struct pbench_contest *c, int i)
{
	json_t *a = json_array();
	int nr = c->e[i].r || c->e[i].stored_runs ? nr_events(c) : 0;

	for (int ev = 0; a && ev < nr; ev++) {
		struct pbench_contest_event x = { .size = sizeof(x) };

		if (pbench_contest_event(c, i, ev, &x))
			continue;
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			"name", x.name, "status", pbench_event_status_name(x.status),
			"reason", x.reason && *x.reason ? json_string(x.reason) : json_null(),
			"mean", num(x.mean), "ratio", num(x.ratio), "ratio_lo", num(x.ratio_lo),
			"ratio_hi", num(x.ratio_hi), "p", num(x.p)));
	}
	return a;
}

static json_t *looks_json(const struct pb_entrant *e)
{
	json_t *a = json_array();

	for (size_t k = 0; a && k < e->nlooks; k++)
		json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:o, s:o}", "round",
			(json_int_t)e->looks[k].round, "elapsed_s", num(e->looks[k].elapsed_s),
			"ratio", num(e->looks[k].ratio), "ratio_lo", num(e->looks[k].lo),
			"ratio_hi", num(e->looks[k].hi)));
	return a;
}

static json_t *check_json(const struct pb_entrant *e)
{
	char hash[24];

	if (!e->checked)
		return json_null();
	snprintf(hash, sizeof(hash), "%016" PRIx64, e->hash);
	return json_pack("{s:o, s:o, s:I, s:s}",
			 "exit_status", e->exited ? json_integer(e->exit_status) : json_null(),
			 "signal", e->signaled ? json_integer(e->term_signal) : json_null(),
			 "stdout_bytes", (json_int_t)e->bytes, "stdout_fnv1a", hash);
}

/* Against the reference's, on bytes and allocations: a command's --memory runs per run (the
 * comparison's a_per_call and b_per_call are per run then), a function's counted calls per
 * call (PBENCH_CONTEST_COUNT_MEMORY); null when either has none. */
static json_t *mem_vs_ref_json(const struct pbench_contest *c, int i, int *bad)
{
	static const int kinds[] = { PBENCH_MEM_BYTES, PBENCH_MEM_ALLOCS };
	static const char *const names[] = { "bytes", "allocs" };
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	int cmd = e->cmd_mem && ref->cmd_mem;
	json_t *j;

	if (i == c->o.reference || (!cmd && (!e->mem_status || !ref->mem_status)))
		return json_null();
	j = json_object();
	if (!j) {
		*bad = -1;
		return NULL;
	}
	for (int k = 0; k < 2; k++) {
		struct pbench_mem_comparison m = { .size = sizeof(m) };
		int err = cmd ? pb_contest_cmd_mem(c, i, kinds[k], &m) :
			  pbench_contest_mem(c, i, kinds[k], &m);

		SET(j, names[k], err ? json_null() : pb_mem_comparison_json(&m, bad));
	}
	return j;
}

/* A function entrant's calls counted one by one after the rounds (PBENCH_CONTEST_COUNT_MEMORY):
 * each figure per call, or the status and why not; null when not asked for. */
static json_t *calls_memory_json(const struct pb_entrant *e, int *bad)
{
	static const char *const fig[] = { "allocs_per_call", "frees_per_call", "bytes_per_call",
					   "peak_bytes" };
	json_t *j;

	if (!e->mem_status)
		return json_null();
	j = json_object();
	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "status", json_string(pbench_mem_status_name(e->mem_status)));
	SET(j, "reason", e->mem_status == PBENCH_MEM_COUNTED ? json_null() :
			 pb_json_str_or_null(e->mem_reason));
	SET(j, "calls", json_integer((json_int_t)e->nmem));
	for (int k = 0; k < 4; k++) {
		double *x = NULL;

		SET(j, fig[k], pb_contest_mem_figures(e, PBENCH_MEM_ALLOCS + k, &x) ? json_null() :
			       pb_mem_figure_json(x, (int)e->nmem, bad));
		free(x);
	}
	return j;
}

static json_t *entrant_json(const struct pbench_contest *c, int i, int *bad)
{
	const struct pb_entrant *e = &c->e[i];
	json_t *j = json_object();

	if (!j)
		return NULL;
	SET(j, "name", json_string(e->name));
	SET(j, "what", e->r ? pb_runs_subject_json(e->r) : json_string("stored"));
	SET(j, "reference", json_boolean(i == c->o.reference));
	SET(j, "stored", json_boolean(!e->r));
	SET(j, "failed", json_integer(e->set ? pb_runs_set_failed(e->set) : 0));
	SET(j, "check", check_json(e));
	SET(j, "summary", summary_json(e));
	SET(j, "times_ns", times_json(e));
	if (c->metric)	/* the values the test was on (a baseline's stored ones too) */
		SET(j, "metric_values", values_json(e->mx, e->mn));
	SET(j, "events", events_json(c, i));
	SET(j, "looks", looks_json(e));
	SET(j, "set", e->r ? pb_runs_set_json(e->r, 0) : json_null());
	SET(j, "memory", pb_mem_runs_json(e->cmd_mem, e->nr_cmd_mem, bad));
	SET(j, "calls_memory", calls_memory_json(e, bad));
	SET(j, "memory_vs_reference", mem_vs_ref_json(c, i, bad));
	return j;
}

static json_t *contest_json(const struct pbench_contest *c)
{
	json_t *root = json_object(), *verdicts = json_array(), *entrants = json_array();
	int b = 0, *bad = &b;

	if (!root || !verdicts || !entrants) {
		json_decref(root);
		json_decref(verdicts);
		json_decref(entrants);
		return NULL;
	}
	pb_json_head(root, 1, bad);
	SET(root, "order", json_string(pbench_contest_order_name(c->o.order)));
	SET(root, "mode", json_string(c->o.mode == PBENCH_RUNS_PREPARED ? "prepared" :
				      "unprepared"));
	SET(root, "confidence", num(c->o.confidence));
	SET(root, "look_confidence", num(c->look_level));
	SET(root, "same_pct", c->o.same_pct > 0 ? num(c->o.same_pct) : json_null());
	SET(root, "seed", json_integer((json_int_t)(c->o.seed & INT64_MAX)));
	SET(root, "duet_cpus", pb_contest_is_duet(c) ? json_pack("[i, i]", c->duet_cpus[0],
								 c->duet_cpus[1]) : json_null());
	SET(root, "reference", json_integer(c->o.reference));
	SET(root, "rounds", json_integer(c->rounds));
	SET(root, "elapsed_s", num(c->elapsed_s));
	SET(root, "stop", json_string(pbench_contest_stop_name(c->stop)));
	SET(root, "output_checked", json_boolean(c->checked));
	if (c->metric)	/* --metric: absent for the wall time, as before it */
		SET(root, "metric", json_pack("{s:s, s:s, s:b}", "name", c->metric, "unit",
					      c->metric_unit ? c->metric_unit : "", "higher_is_better",
					      c->higher_better));
	SET(root, "helpers", pb_json_helpers(c->o.warmup_runs, c->setup, c->prerun,
					     c->cleanup));
	for (int i = 0; i < c->n; i++) {
		if (i != c->o.reference)
			APPEND(verdicts, verdict_json(c, i, bad));
		APPEND(entrants, entrant_json(c, i, bad));
	}
	SET(root, "verdicts", verdicts);
	SET(root, "entrants", entrants);
	if (c->o.profile)	/* --profile: absent without it, as before it */
		SET(root, "profile", pb_contest_profile_json(c, bad));
	if (b) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int pbench_contest_write_json(const struct pbench_contest *c, FILE *f)
{
	if (!c || !f)
		return -EINVAL;
	return pb_json_dump(contest_json(c), 0, f);
}

/* ---- CSV ------------------------------------------------------------------------------------ */

static void csv_run(FILE *f, const struct pbench_contest *c, int i, int k)
{
	const struct pb_entrant *e = &c->e[i];
	const struct pb_run_status run = pb_runs_status(pb_runs_run_at(e->set, k));
	int nr = pbench_runs_nr_events(e->r);

	pb_csv_text(f, e->name);
	fprintf(f, ",%d,%d,%llu,%llu,", i, k + 1, (unsigned long long)run.ns,
		(unsigned long long)run.ticks);
	if (run.exited)
		fprintf(f, "%d", run.exit_status);
	fputc(',', f);
	if (run.signaled)
		fprintf(f, "%d", run.term_signal);
	fprintf(f, ",%d,%d", run.timed_out, run.cpu);
	for (int ev = 0; ev < nr; ev++) {
		fputc(',', f);
		if (run.counts[ev].status <= PBENCH_EVENT_MULTIPLEXED)
			fprintf(f, "%.17g", run.counts[ev].scaled);
	}
	fputc('\n', f);
}

/* A stored entrant's runs: from its file (each kept run's time and counts, a column empty
 * where some run did not count the event), else its times alone. */
static void csv_stored(FILE *f, const struct pbench_contest *c, int i, int nr)
{
	const struct pb_entrant *e = &c->e[i];
	size_t n = e->n, nv, missing;
	double *t = e->stored_runs ? pb_contest_stored_values(e, NULL, &n, &missing) : NULL;
	double **v = calloc((size_t)(nr ? nr : 1), sizeof(*v));

	if (e->stored_runs && (!t || missing || (!c->metric && n != e->n))) {
		free(t);	/* not the runs of its times: the times alone */
		t = NULL;
		n = e->n;
	}
	for (int ev = 0; t && v && ev < nr; ev++) {
		v[ev] = pb_contest_stored_values(e, pbench_contest_event_name(c, ev), &nv,
						 &missing);
		if (nv != n || missing) {
			free(v[ev]);
			v[ev] = NULL;
		}
	}
	for (size_t k = 0; k < n; k++) {
		pb_csv_text(f, e->name);
		fprintf(f, ",%d,%zu,%.0f,,,,,", i, k + 1, t ? t[k] : e->x[k]);
		for (int ev = 0; ev < nr; ev++) {
			fputc(',', f);
			if (v && v[ev])
				fprintf(f, "%.17g", v[ev][k]);
		}
		fputc('\n', f);
	}
	for (int ev = 0; v && ev < nr; ev++)
		free(v[ev]);
	free(v);
	free(t);
}

int pbench_contest_write_csv(const struct pbench_contest *c, FILE *f)
{
	int nr;

	if (!c || !f)
		return -EINVAL;
	nr = nr_events(c);
	fputs("name,entrant,run,ns,ticks,exit_status,signal,timed_out,cpu", f);
	for (int ev = 0; ev < nr; ev++) {
		fputc(',', f);
		pb_csv_text(f, pbench_contest_event_name(c, ev));
	}
	fputc('\n', f);
	for (int i = 0; i < c->n; i++) {
		const struct pb_entrant *e = &c->e[i];

		if (!e->r) {	/* stored: the file's runs, or times with no counts */
			csv_stored(f, c, i, nr);
			continue;
		}
		for (int k = 0; k < pb_runs_set_done(e->set); k++)
			csv_run(f, c, i, k);
	}
	return pb_stream_end(f);
}
