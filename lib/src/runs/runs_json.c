/* SPDX-License-Identifier: MIT */
/* A set of runs as JSON (schema/stat.schema.json): the modes with every run, the contrast, the
 * checks. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "measure/measure.h"
#include "counters/counters.h"
#include "counters/counts.h"
#include "base/jsonutil.h"
#include "listing/listing.h"
#include "runs/runs_inner.h"

/*
 * One event of one run: null when the event could not be opened (the document's events[] says
 * why, once), else its raw value and its value scaled to the whole run (they differ when the
 * event shared a counter) with the share of the run it was counting; value and scaled are null
 * when it did not count at all in this run (running_pct 0).
 */
static json_t *count_json(const struct pbench_count *k)
{
	int counted = k->status <= PBENCH_EVENT_MULTIPLEXED;

	if (k->status == PBENCH_EVENT_NOT_SUPPORTED || k->status == PBENCH_EVENT_NO_PERMISSION)
		return json_null();
	return json_pack("{s:o, s:o, s:o}",
			 "value", counted ? unum(k->value) : json_null(),
			 "scaled", counted ? num(k->scaled) : json_null(),
			 "running_pct", k->time_enabled ? num(100.0 * (double)k->time_running /
							      (double)k->time_enabled)
							: json_null());
}

/* The events, once: the name asked for, whether it opens here and why not, and whether the
 * kernel's share is left out (perf_event_paranoid). */
static json_t *events_json(const struct pbench_runs *r)
{
	struct pbench_count *k = calloc((size_t)(r->nr ? r->nr : 1), sizeof(*k));
	json_t *a = json_array();

	for (int e = 0; k && e < r->nr; e++)
		k[e].size = sizeof(k[e]);
	if (!k || !a || (r->nr && pb_counters_read(r->self, k, r->nr) < 0)) {
		free(k);
		json_decref(a);
		return NULL;
	}
	for (int e = 0; e < r->nr; e++) {
		int st = pbench_counters_open_status(r->self, e);

		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:b}", "name",
			pbench_counters_name(r->self, e), "status", pbench_event_status_name(st),
			"reason", st == PBENCH_EVENT_OK ? json_null() : pb_json_str_or_null(k[e].reason),
			"user_only", k[e].user_only));
	}
	free(k);
	return a;
}

/* The default events left out, not countable here (pbench_runs_left_out()): name and why. */
static json_t *left_out_json(const struct pbench_runs *r)
{
	json_t *a = json_array();

	for (int i = 0; a && i < r->nleft; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "name", r->left_name[i],
						   "reason", r->left_reason[i]));
	return a;
}

static json_t *sources_json(const struct pbench_noise_source *src)
{
	json_t *a = json_array();

	for (int i = 0; i < PBENCH_NOISE_TOP && src[i].count; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:I}", "label", src[i].label,
						   "name", src[i].name,
						   "count", (json_int_t)src[i].count));
	return a;
}

static json_t *noise_json(const struct pb_run *run)
{
	const struct pbench_noise *n = &run->noise;
	const struct pbench_cpu_noise *c = &run->cpu_noise;
	json_t *j = json_object(), *cj;

	json_object_set_new(j, "ctx_involuntary", json_integer((json_int_t)n->ctx_involuntary));
	json_object_set_new(j, "ctx_voluntary", json_integer((json_int_t)n->ctx_voluntary));
	json_object_set_new(j, "migrations", run->have_migrations ?
			    json_integer((json_int_t)n->migrations) : json_null());
	json_object_set_new(j, "minor_faults", json_integer((json_int_t)n->minor_faults));
	json_object_set_new(j, "major_faults", json_integer((json_int_t)n->major_faults));
	json_object_set_new(j, "not_running_ns", num(n->not_running_ns));
	if (!run->have_cpu_noise) {
		json_object_set_new(j, "on_cpu", json_null());
		return j;
	}
	cj = json_object();
	json_object_set_new(cj, "cpu", json_integer(c->cpu));
	if (c->flags & PBENCH_CPU_NOISE_NO_IRQ) {	/* /proc/interrupts unreadable */
		static const char *const keys[] = { "irq_total", "irq_timer", "irq_ipi",
						    "irq_other", "irq_device" };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			json_object_set_new(cj, keys[k], json_null());
		json_object_set_new(cj, "irq_top", json_array());
	} else {
		json_object_set_new(cj, "irq_total", json_integer((json_int_t)c->irq_total));
		json_object_set_new(cj, "irq_timer", json_integer((json_int_t)c->irq_timer));
		json_object_set_new(cj, "irq_ipi", json_integer((json_int_t)c->irq_ipi));
		json_object_set_new(cj, "irq_other", json_integer((json_int_t)c->irq_other));
		json_object_set_new(cj, "irq_device", json_integer((json_int_t)c->irq_device));
		json_object_set_new(cj, "irq_top", sources_json(c->irq_top));
	}
	json_object_set_new(cj, "softirq_total", c->flags & PBENCH_CPU_NOISE_NO_SOFTIRQ ?
			    json_null() : json_integer((json_int_t)c->softirq_total));
	json_object_set_new(cj, "softirq_top", sources_json(c->softirq_top));
	json_object_set_new(cj, "steal_ns", num(c->steal_ns));
	json_object_set_new(j, "on_cpu", cj);
	return j;
}

/* A command's harness cost in ns; null for the workload, or when it could not be seen. */
static json_t *cost_json(uint64_t ns, int is_cmd)
{
	return is_cmd && ns ? json_integer((json_int_t)ns) : json_null();
}

/* opts.interval_ms: the run over time, each interval's span and its counts as a run's. */
static json_t *intervals_json(const struct pb_run *run, const struct pbench_runs *r)
{
	json_t *a = json_array();

	for (int k = 0; k < run->niv; k++) {
		json_t *cs = json_object();

		for (int e = 0; e < r->nr; e++)
			json_object_set_new(cs, run->counts[e].name,
				count_json(&run->iv_counts[(size_t)k * (size_t)r->nr + (size_t)e]));
		json_array_append_new(a, json_pack("{s:I, s:I, s:b, s:o}",
			"start_ns", (json_int_t)run->iv[k].start_ns,
			"ns", (json_int_t)run->iv[k].ns, "partial", run->iv[k].partial,
			"counters", cs));
	}
	return a;
}

static json_t *cpu_json(int cpu)
{
	return cpu >= 0 ? json_integer(cpu) : json_null();
}

static json_t *run_json(const struct pb_run *run, int i, const struct pbench_runs *r)
{
	json_t *j = json_object(), *cs = json_object();

	json_object_set_new(j, "run", json_integer(i + 1));
	json_object_set_new(j, "ticks", json_integer((json_int_t)run->ticks));
	json_object_set_new(j, "ns", json_integer((json_int_t)run->ns));
	json_object_set_new(j, "timed_out", json_boolean(run->timed_out));
	json_object_set_new(j, "exit_status", run->exited ? json_integer(run->exit_status)
							: json_null());
	json_object_set_new(j, "signal", run->signaled ? json_integer(run->term_signal) : json_null());
	json_object_set_new(j, "cpu", json_integer(run->cpu));
	json_object_set_new(j, "setup_ns", cost_json(run->setup_ns, r->subject.argv != NULL));
	json_object_set_new(j, "exec_ns", cost_json(run->exec_ns, r->subject.argv != NULL));
	json_object_set_new(j, "user_ns", json_integer((json_int_t)run->user_ns));
	json_object_set_new(j, "system_ns", json_integer((json_int_t)run->system_ns));
	for (int e = 0; e < r->nr; e++)
		json_object_set_new(cs, run->counts[e].name, count_json(&run->counts[e]));
	json_object_set_new(j, "counters", cs);
	json_object_set_new(j, "noise", noise_json(run));
	json_object_set_new(j, "outlier", json_boolean(run->outlier));
	json_object_set_new(j, "cause", run->outlier && run->cause ? json_string(run->cause) : json_null());
	json_object_set_new(j, "speed", num(run->speed));
	json_object_set_new(j, "ref_before_ns", num(run->ref_before_ns));
	json_object_set_new(j, "clock", num(run->clock));
	json_object_set_new(j, "clock_pmu", num(run->clock_pmu));
	json_object_set_new(j, "ref_after_ns", num(run->ref_after_ns));
	json_object_set_new(j, "ref_before_cpu", cpu_json(run->ref_before_cpu));
	json_object_set_new(j, "ref_after_cpu", cpu_json(run->ref_after_cpu));
	json_object_set_new(j, "end_cpu", cpu_json(run->end_cpu));
	if (r->o.interval_ms > 0)
		json_object_set_new(j, "intervals", intervals_json(run, r));
	return j;
}

/* The ticks of the runs where a figure is exact in them: min, max, median, trimmed mean. */
static json_t *ticks_json(const struct pb_set *s)
{
	return json_pack("{s:o, s:o, s:o, s:o}", "min_ticks", num(s->s_ticks.min),
			 "max_ticks", num(s->s_ticks.max), "median_ticks", num(s->s_ticks.median),
			 "trimmed_mean_ticks", num(s->s_ticks.trimmed_mean));
}

/* The runs beyond Tukey's fences (null fences below 2 runs), whose causes the runs carry. */
static json_t *outliers_json(const struct pb_set *s)
{
	return json_pack("{s:s, s:i, s:o, s:o}", "rule", "tukey", "count", s->outliers,
			 "fence_lo_ns", num(s->mv ? NAN : s->fence_lo),
			 "fence_hi_ns", num(s->mv ? NAN : s->fence_hi));
}

/* Prepared with a list: the CPUs the command ran on (null: the prepared CPU, or unprepared). */
static json_t *cpus_json(const struct pbench_runs *r, const struct pb_set *s)
{
	json_t *a;

	if (!s->prepared || !r->subject.argv || r->o.ncpus <= 0)
		return json_null();
	a = json_array();
	for (int i = 0; a && i < r->o.ncpus; i++)
		json_array_append_new(a, json_integer(r->o.cpus[i]));
	return a;
}

/* The PMU's clock over the set: its factors' summary and the best run's GHz; null without. */
static json_t *clock_pmu_json(const struct pbench_runs *r, const struct pb_set *s)
{
	struct pbench_speed_summary p = { .size = sizeof(p) };

	if (pb_runs_clock_summary_from(s, PBENCH_SPEED_SOURCE_PMU, &p))
		return json_null();
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:b, s:i, s:o}", "runs", p.n, "min",
			 num(p.min), "median", num(p.median), "max", num(p.max), "range",
			 num(p.range), "varied", p.range >= PBENCH_SPEED_VARIED, "slow", p.slow,
			 "best_ghz", num(r->clock_pmu_best_ghz));
}

/* The speed references over the set: the throughput's factors' summary, the clock's (its
 * reference loop's; the PMU's too where counted, and which one the blame and the words
 * use), and their cost. */
static json_t *speed_json(const struct pbench_runs *r, const struct pb_set *s)
{
	struct pbench_speed_summary m = { .size = sizeof(m) }, c = { .size = sizeof(c) },
				    u = { .size = sizeof(u) };
	int have_clock, have_used;
	json_t *j;

	if (pb_runs_speed_summary(s, &m))
		return json_null();
	have_clock = !pb_runs_clock_summary_from(s, PBENCH_SPEED_SOURCE_REFERENCE, &c);
	have_used = !pb_runs_clock_summary(s, &u);
	j = json_object();
	json_object_set_new(j, "runs", json_integer(m.n));
	json_object_set_new(j, "min", num(m.min));
	json_object_set_new(j, "median", num(m.median));
	json_object_set_new(j, "max", num(m.max));
	json_object_set_new(j, "range", num(m.range));
	json_object_set_new(j, "varied", json_boolean(m.range >= PBENCH_SPEED_VARIED));
	json_object_set_new(j, "slow_runs", json_integer(pbench_speed_slow_runs(&m, have_used ?
											  &u : NULL)));
	json_object_set_new(j, "corr_time_inv_speed", num(m.corr));
	json_object_set_new(j, "spread_at_one_speed_pct", num(m.spread_at_one_speed_pct));
	json_object_set_new(j, "ref_best_ns", num(r->speed_best_ns));
	json_object_set_new(j, "ref_iterations",
			    json_integer((json_int_t)pbench_speed_iterations(r->speed)));
	json_object_set_new(j, "cost_ns_median", num(pb_runs_speed_cost(s)));
	json_object_set_new(j, "clock", have_clock ? json_pack("{s:o, s:o, s:o, s:o, s:b, s:o, "
			    "s:I}", "min", num(c.min), "median", num(c.median), "max", num(c.max),
			    "range", num(c.range), "varied", c.range >= PBENCH_SPEED_VARIED,
			    "ref_best_ns", num(r->clock_best_ns), "ref_iterations",
			    (json_int_t)pb_speed_clock_iterations(r->speed)) : json_null());
	json_object_set_new(j, "clock_pmu", clock_pmu_json(r, s));
	json_object_set_new(j, "clock_source", !have_used ? json_null() :
			    json_string(u.source == PBENCH_SPEED_SOURCE_PMU ? "pmu" : "reference"));
	return j;
}

/* Whether the result is the command's own time: the prepared CPU's load, task-clock against
 * the wall time, and the caution in words (pbench_runs_caution()). */
static void trust_json(json_t *j, const struct pbench_runs *r, const struct pb_set *s)
{
	int u = pb_runs_unreliable(s);
	char buf[512] = "";

	if (u)
		pbench_runs_caution(r, (int)(s - r->sets), buf, sizeof(buf));
	json_object_set_new(j, "cpu_busy_pct", num(s->cpu_busy * 100));
	json_object_set_new(j, "cpu_all_busy", json_boolean(u & PB_UNRELIABLE_BUSY));
	json_object_set_new(j, "task_clock_share", num(pb_runs_task_clock_share(s)));
	json_object_set_new(j, "unreliable", json_boolean(u != 0));
	json_object_set_new(j, "caution", u ? json_string(buf) : json_null());
}

/* Each event over the set's runs (pbench_runs_event_summary()): null figures when no run
 * counted it. */
static json_t *event_summary_json(const struct pbench_runs *r, int s)
{
	json_t *a = json_array();

	for (int e = 0; a && e < r->nr; e++) {
		struct pbench_event_summary k = { .size = sizeof(k) };

		if (pbench_runs_event_summary(r, s, e, &k))
			continue;
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:i, s:i, s:i, s:o, s:b, "
			"s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name", k.name, "unit", k.unit,
			"status", pbench_event_status_name(k.status), "reason",
			*k.reason ? json_string(k.reason) : json_null(), "runs", k.runs,
			"counted", k.counted, "multiplexed", k.multiplexed, "running_pct",
			num(k.running_pct), "user_only", k.user_only, "mean", num(k.mean),
			"sem_pct", num(k.sem_pct), "median", num(k.median), "min", num(k.min),
			"max", num(k.max), "stddev", num(k.stddev), "cv_pct", num(k.cv_pct)));
	}
	return a;
}

/* The derived metrics of the set (pbench_runs_metric()): made per run, then summarized. */
static json_t *metrics_json(const struct pbench_runs *r, int s)
{
	json_t *a = json_array();

	for (int m = 0; a && m < pbench_runs_nr_metrics(r); m++) {
		struct pbench_metric_summary k = { .size = sizeof(k) };

		if (pbench_runs_metric(r, s, m, &k))
			continue;
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:i, "
			"s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name", k.name, "group", k.group,
			"label", k.label, "formula", k.formula, "unit", k.unit, "events", k.events,
			"reason", k.reason ? json_string(k.reason) : json_null(), "runs", k.runs,
			"apart", k.apart, "mean", num(k.mean), "sem_pct", num(k.sem_pct),
			"median", num(k.median), "min", num(k.min), "max", num(k.max),
			"stddev", num(k.stddev), "cv_pct", num(k.cv_pct)));
	}
	return a;
}

/* --metric: the figure decided on, over the runs: its summary, Tukey's fences on it (on
 * which the runs' "outlier" then are) and each run's value (null: not made in that run). */
static json_t *metric_summary_json(const struct pbench_runs *r, const struct pb_set *s)
{
	json_t *v = json_array(), *sum;
	int bad = 0;

	for (int i = 0; v && i < s->done; i++)
		json_array_append_new(v, num(s->mv[i]));
	sum = s->have_mv ? pb_json_summary(&s->s_mv, "", &bad) : json_null();
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:i, s:o}", "name", pb_runs_target_name(r),
			 "unit", pb_runs_target_unit(r), "summary", sum ? sum : json_null(),
			 "fence_lo", num(s->mfence_lo), "fence_hi", num(s->mfence_hi),
			 "outliers", s->outliers, "values", v ? v : json_null());
}

static json_t *mode_json(const struct pbench_runs *r, const struct pb_set *s)
{
	json_t *j = json_object(), *steps = json_array(), *runs = json_array();
	int bad = 0;

	json_object_set_new(j, "mode", json_string(pbench_runs_mode_name(s->mode)));
	json_object_set_new(j, "cpu", s->prepared ? json_integer(s->cpu) : json_null());
	json_object_set_new(j, "command_cpus", cpus_json(r, s));
	json_object_set_new(j, "cpu_reason", s->prepared ? json_string(s->cpu_reason)
							 : json_null());
	trust_json(j, r, s);
	json_object_set_new(j, "priority", s->policy_name ?
			    json_pack("{s:s, s:i}", "policy", s->policy_name, "value",
				      s->prio_value) : json_null());
	json_object_set_new(j, "priority_probe", s->prio.probed || s->prio.cached ?
			    json_pack("{s:o, s:o, s:i, s:i, s:o}",
				      "nice_spread_pct", num(s->prio.nice_spread_pct),
				      "fifo_spread_pct", num(s->prio.fifo_spread_pct),
				      "nice_runs", s->prio.nice_runs,
				      "fifo_runs", s->prio.fifo_runs,
				      "kept_from_s_ago", s->prio.cached ?
				      num(s->prio.cached_age_s) : json_null()) : json_null());
	json_object_set_new(j, "warmup_ms", num(s->warmup_ms));
	json_object_set_new(j, "rest", s->prepared ? json_pack("{s:o, s:o, s:i, s:i}", "pct",
			    num(s->prio.rest_pct), "total_ms", num(s->rest_ms), "owed",
			    s->rests_owed, "skipped", s->rests_skipped) : json_null());
	for (int i = 0; s->prepared && i < PBENCH_PREPARE_STEP_NR; i++)
		json_array_append_new(steps, json_pack("{s:s, s:s, s:s}",
			"step", pbench_prepare_step_name(s->steps[i].step),
			"status", pbench_prepare_status_name(s->steps[i].status),
			"reason", s->step_what[i]));
	json_object_set_new(j, "steps", steps);
	json_object_set_new(j, "restored", s->mode == PBENCH_RUNS_PREPARED && s->prepared ?
			    json_boolean(!s->restore_err) : json_null());
	for (int i = 0; i < s->done; i++)
		json_array_append_new(runs, run_json(&s->runs[i], i, r));
	json_object_set_new(j, "runs", runs);
	json_object_set_new(j, "stop", r->o.target_sem_pct > 0 ?
		json_pack("{s:s, s:o, s:o, s:o}", "rule",
			  s->stop == PBENCH_RUNS_STOP_TARGET ? "target_reached" :
			  s->stop == PBENCH_RUNS_STOP_TIME ? "max_time" :
			  s->stop == PBENCH_RUNS_STOP_INTERRUPTED ? "interrupted" : "max_runs",
			  "target_sem_pct", num(r->o.target_sem_pct),
			  "sem_pct", num(s->sem_pct), "elapsed_s", num(s->elapsed_s)) :
		json_pack("{s:s, s:o}", "rule", "runs", "elapsed_s", num(s->elapsed_s)));
	json_object_set_new(j, "harness", !r->subject.argv ? json_null() :
		json_pack("{s:o, s:o}",
			  "setup_ns_median", num(pb_runs_median_field(s, offsetof(struct pb_run, setup_ns))),
			  "exec_ns_median", num(pb_runs_median_field(s, offsetof(struct pb_run, exec_ns)))));
	json_object_set_new(j, "cpu_time", json_pack("{s:o, s:o}",
		"user_ns_mean", num(pb_runs_mean_field(s, offsetof(struct pb_run, user_ns))),
		"system_ns_mean", num(pb_runs_mean_field(s, offsetof(struct pb_run, system_ns)))));
	json_object_set_new(j, "summary", s->have_summary ? pb_json_summary(&s->s_ns, "_ns", &bad)
							  : json_null());
	json_object_set_new(j, "summary_ticks", s->have_summary ? ticks_json(s) : json_null());
	json_object_set_new(j, "outliers", s->have_summary ? outliers_json(s) : json_null());
	json_object_set_new(j, "speed", speed_json(r, s));
	json_object_set_new(j, "event_summary", event_summary_json(r, (int)(s - r->sets)));
	json_object_set_new(j, "metrics", metrics_json(r, (int)(s - r->sets)));
	if (s->mv)
		json_object_set_new(j, "metric_summary", metric_summary_json(r, s));
	if (r->prof)	/* opts.profile: where the time went */
		json_object_set_new(j, "profile", pb_runs_profile_json(r, (int)(s - r->sets)));
	return j;
}

static json_t *check_json(const struct pbench_runs *r)
{
	json_t *a = json_array();

	for (int i = 0; r->env && i < pbench_check_nr(r->env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(r->env, i);

		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s}", "id", c->id,
			"status", pbench_check_status_name(c->status), "cpu", c->cpu,
			"value", c->value));
	}
	return a;
}

static json_t *argv_json(char *const *argv)
{
	json_t *a;

	if (!argv)
		return json_null();
	a = json_array();
	for (; a && *argv; argv++)
		json_array_append_new(a, json_string(*argv));
	return a;
}

json_t *pb_json_helpers(long warmup_runs, char *const *setup, char *const *prepare,
			char *const *cleanup)
{
	return json_pack("{s:I, s:o, s:o, s:o}", "warmup_runs", (json_int_t)warmup_runs,
			 "setup", argv_json(setup), "prepare", argv_json(prepare), "cleanup",
			 argv_json(cleanup));
}

/*
 * What the runs ran, in one shape for a command and a workload: its kind, its name as a
 * person reads it (a command as a shell would take it back), the command's arguments, the
 * workload's size.
 */
static json_t *subject_json(const struct pbench_runs *r)
{
	const struct pb_subject *sub = &r->subject;
	json_t *argv = argv_json(sub->argv);
	char name[4096];

	if (sub->argv) {
		pb_shell_quote(name, sizeof(name), sub->argv);
	} else {
		snprintf(name, sizeof(name), "%s", pbench_workload_kind_name(sub->workload));
	}
	return json_pack("{s:s, s:s, s:o, s:o, s:o}",
		"kind", sub->argv ? "command" : sub->workload == PBENCH_WORKLOAD_FN ? "function" :
		"workload", "name", name, "argv", argv,
		"iterations", !sub->argv && sub->workload != PBENCH_WORKLOAD_FN ?
			      unum(sub->iterations) : json_null(),
		"bytes", !sub->argv && sub->workload == PBENCH_WORKLOAD_MEMWALK ?
			 unum(sub->walk_bytes) : json_null());
}

static json_t *header_json(const struct pbench_runs *r)
{
	json_t *root = json_object();
	int b = 0, *bad = &b;

	if (!root)
		return NULL;
	pb_json_head(root, 1, bad);
	SET(root, "subject", subject_json(r));
	SET(root, "mode", json_string(pbench_runs_mode_name(r->o.mode)));
	SET(root, "runs_requested", json_integer(r->o.runs));
	SET(root, "target_sem_pct", r->o.target_sem_pct > 0 ? num(r->o.target_sem_pct)
							     : json_null());
	SET(root, "helpers", pb_json_helpers(r->o.warmup_runs, r->setup, r->prerun,
					     r->cleanup));
	SET(root, "events", events_json(r));
	SET(root, "events_left_out", left_out_json(r));
	if (r->o.interval_ms > 0)
		SET(root, "interval_ms", num(r->o.interval_ms));
	if (pb_runs_target_name(r))	/* --metric: absent for the wall time, as before it */
		SET(root, "metric", json_pack("{s:s, s:s, s:b}", "name", pb_runs_target_name(r),
					      "unit", pb_runs_target_unit(r), "higher_is_better",
					      pb_runs_target_higher(r)));
	if (b) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* pbench_runs_multi_cpu()'s finding, or null when there is none. */
static json_t *multi_cpu_json(const struct pbench_runs *r)
{
	struct pbench_runs_multi_cpu m = { .size = sizeof(m) };

	if (pbench_runs_multi_cpu(r, &m) != 1)
		return json_null();
	return json_pack("{s:o, s:s, s:i, s:o, s:o, s:i, s:i}", "cpus_used", num(m.cpus_used),
			 "mode", pbench_runs_mode_name(m.mode), "run", m.run, "task_clock_ns",
			 num(m.task_clock_ns), "wall_ns", num(m.wall_ns), "cpus_given",
			 m.cpus_given, "cpus_needed", m.cpus_needed);
}

int pbench_runs_write_json(const struct pbench_runs *r, FILE *f)
{
	return pbench_runs_write_json_listings(r, NULL, NULL, 0, f);
}

int pbench_runs_write_json_annotated(const struct pbench_runs *r, const struct pbench_listing *l,
				     FILE *f)
{
	return pbench_runs_write_json_listings(r, l ? &l : NULL, NULL, l ? 1 : 0, f);
}

/* "annotations": each listing with the name it was asked by ("asked"; NULL: its symbol), in
 * order; a NULL listing (never made: the runs stopped first) is null. NULL on -ENOMEM. */
static json_t *listings_json(const struct pbench_listing *const *l, const char *const *names,
			     int n)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++) {
		json_t *o = l[i] ? pb_listing_json(l[i]) : json_null();
		const char *asked = names && names[i] ? names[i] : l[i] ? pbench_listing_symbol(l[i])
								     : NULL;

		if (o && l[i] && json_object_set_new(o, "asked", asked ? json_string(asked)
							      : json_null())) {
			json_decref(o);
			o = NULL;
		}
		if (!o || json_array_append_new(a, o)) {	/* appending takes o either way */
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int pbench_runs_write_json_listings(const struct pbench_runs *r,
				    const struct pbench_listing *const *l, const char *const *names,
				    int n, FILE *f)
{
	json_t *root, *modes, *ann;
	char verdict[PB_RUNS_VERDICT_LEN];
	double sr, cr;
	int bad = 0;

	if (!r || !f || n < 0 || (n && !l))
		return -EINVAL;
	root = header_json(r);
	modes = json_array();
	ann = listings_json(l, names, n);
	if (!root || !modes || !ann) {
		json_decref(root);
		json_decref(modes);
		json_decref(ann);
		return -ENOMEM;
	}
	for (int i = 0; i < r->nsets; i++)
		json_array_append_new(modes, mode_json(r, &r->sets[i]));
	json_object_set_new(root, "modes", modes);
	/* null when there is no contrast (one mode, or too few runs in either) */
	json_object_set_new(root, "contrast",
			    pb_runs_contrast(r, &sr, &cr, verdict, sizeof(verdict)) ?
			    json_pack("{s:o, s:o, s:s}", "spread_ratio", num(sr),
				      "cv_ratio", num(cr), "verdict", verdict) : json_null());
	json_object_set_new(root, "check_cpu", r->env ? json_integer(r->env_cpu) : json_null());
	json_object_set_new(root, "check", check_json(r));
	if (json_object_set_new(root, "memory", pb_mem_runs_json(r->mem, r->nr_mem, &bad)) ||
	    bad || json_object_set_new(root, "annotate", n && l[0] ? pb_listing_json(l[0])
							      : json_null()) ||
	    json_object_set_new(root, "annotations", ann) ||
	    json_object_set_new(root, "multi_cpu", multi_cpu_json(r))) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, 0, f);
}

/* For the contest's JSON (contest_json.c): a set as pbench stat writes it (its runs, their
 * counts and noise, its summary), and what the object runs. */
json_t *pb_runs_set_json(const struct pbench_runs *r, int s)
{
	return mode_json(r, &r->sets[s]);
}

json_t *pb_runs_subject_json(const struct pbench_runs *r)
{
	return subject_json(r);
}
