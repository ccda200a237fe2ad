/* SPDX-License-Identifier: MIT */
/* A set of runs as JSON (schema 1): the modes with every run, the contrast, the checks. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonutil.h"
#include "runs.h"

static json_t *count_json(const struct pbench_count *k)
{
	json_t *j = json_object();
	int counted = k->status <= PBENCH_EVENT_MULTIPLEXED;

	json_object_set_new(j, "value", counted ? json_integer((json_int_t)k->value) : json_null());
	json_object_set_new(j, "scaled", counted ? num(k->scaled) : json_null());
	json_object_set_new(j, "is_scaled", json_boolean(k->is_scaled));
	json_object_set_new(j, "user_only", json_boolean(k->user_only));
	json_object_set_new(j, "time_enabled_ns", json_integer((json_int_t)k->time_enabled));
	json_object_set_new(j, "time_running_ns", json_integer((json_int_t)k->time_running));
	json_object_set_new(j, "running_pct",
			    k->time_enabled ? num(100.0 * (double)k->time_running /
						    (double)k->time_enabled)
					    : json_null());
	json_object_set_new(j, "status", json_string(pbench_event_status_name(k->status)));
	json_object_set_new(j, "reason", k->reason[0] ? json_string(k->reason) : json_null());
	return j;
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
	if (c->flags & PBENCH_CPU_NOISE_NO_IRQ) {
		json_object_set_new(cj, "irq_total", json_null());
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
	for (int e = 0; e < r->nr; e++)
		json_object_set_new(cs, run->counts[e].name, count_json(&run->counts[e]));
	json_object_set_new(j, "counters", cs);
	json_object_set_new(j, "noise", noise_json(run));
	json_object_set_new(j, "outlier", json_boolean(run->outlier));
	json_object_set_new(j, "cause", run->outlier && run->cause ? json_string(run->cause) : json_null());
	json_object_set_new(j, "speed", num(run->speed));
	json_object_set_new(j, "ref_before_ns", num(run->ref_before_ns));
	json_object_set_new(j, "ref_after_ns", num(run->ref_after_ns));
	return j;
}

static json_t *summary_json(const struct pb_set *s)
{
	const struct pbench_summary *m = &s->s_ns;
	json_t *j = json_object();

	/* Units in the names (DESIGN.md): times in ns, and in ticks where they say so. */
	json_object_set_new(j, "n", json_integer((json_int_t)m->n));
	json_object_set_new(j, "min_ns", num(m->min));
	json_object_set_new(j, "max_ns", num(m->max));
	json_object_set_new(j, "median_ns", num(m->median));
	json_object_set_new(j, "mean_ns", num(m->mean));
	json_object_set_new(j, "stddev_ns", num(m->stddev));
	json_object_set_new(j, "sem_ns", num(m->sem));
	json_object_set_new(j, "cv_pct", num(m->cv_pct));
	json_object_set_new(j, "spread_pct", num(m->spread_pct));
	json_object_set_new(j, "trimmed_mean_ns", num(m->trimmed_mean));
	json_object_set_new(j, "mad_ns", num(m->mad));
	json_object_set_new(j, "outliers", json_integer(s->outliers));
	json_object_set_new(j, "fence_lo_ns", num(s->fence_lo));
	json_object_set_new(j, "fence_hi_ns", num(s->fence_hi));
	json_object_set_new(j, "min_ticks", num(s->s_ticks.min));
	json_object_set_new(j, "max_ticks", num(s->s_ticks.max));
	json_object_set_new(j, "median_ticks", num(s->s_ticks.median));
	json_object_set_new(j, "trimmed_mean_ticks", num(s->s_ticks.trimmed_mean));
	return j;
}

/* The CPU's own speed over the set: its factors' summary, and the reference loop's cost. */
static json_t *speed_json(const struct pbench_runs *r, const struct pb_set *s)
{
	struct pbench_speed_summary m = { .size = sizeof(m) };
	json_t *j;

	if (pb_runs_speed_summary(s, &m))
		return json_null();
	j = json_object();
	json_object_set_new(j, "runs", json_integer(m.n));
	json_object_set_new(j, "min", num(m.min));
	json_object_set_new(j, "median", num(m.median));
	json_object_set_new(j, "max", num(m.max));
	json_object_set_new(j, "range", num(m.range));
	json_object_set_new(j, "varied", json_boolean(m.range >= PBENCH_SPEED_VARIED));
	json_object_set_new(j, "slow_runs", json_integer(m.slow));
	json_object_set_new(j, "corr_time_inv_speed", num(m.corr));
	json_object_set_new(j, "spread_at_one_speed_pct", num(m.spread_at_one_speed_pct));
	json_object_set_new(j, "ref_best_ns", num(r->speed_best_ns));
	json_object_set_new(j, "ref_iterations",
			    json_integer((json_int_t)pbench_speed_iterations(r->speed)));
	json_object_set_new(j, "cost_ns_median", num(pb_runs_speed_cost(s)));
	return j;
}

static json_t *mode_json(const struct pbench_runs *r, const struct pb_set *s)
{
	json_t *j = json_object(), *steps = json_array(), *runs = json_array();

	json_object_set_new(j, "mode", json_string(pb_runs_mode_name(s->mode)));
	json_object_set_new(j, "cpu", s->prepared ? json_integer(s->cpu) : json_null());
	json_object_set_new(j, "cpu_reason", s->prepared ? json_string(s->cpu_reason)
							 : json_null());
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
	json_object_set_new(j, "rest", s->prepared ? json_pack("{s:o, s:o}", "pct",
			    num(s->prio.rest_pct), "total_ms", num(s->rest_ms)) : json_null());
	for (int i = 0; s->prepared && i < PBENCH_PREPARE_STEP_NR; i++)
		json_array_append_new(steps, json_pack("{s:s, s:s, s:s}",
			"step", pbench_prepare_step_name(s->steps[i].step),
			"status", pbench_prepare_status_name(s->steps[i].status),
			"reason", s->steps[i].what));
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
	json_object_set_new(j, "summary", s->have_summary ? summary_json(s) : json_null());
	json_object_set_new(j, "speed", speed_json(r, s));
	return j;
}

static json_t *check_json(const struct pbench_runs *r)
{
	json_t *a = json_array();

	for (int i = 0; r->env && i < pbench_env_nr(r->env); i++) {
		const struct pbench_check *c = pbench_env_get(r->env, i);

		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s}", "id", c->id,
			"status", pbench_check_status_name(c->status), "cpu", c->cpu,
			"value", c->value));
	}
	return a;
}

/* The first form's top-level runs and summary, kept for a single mode. */
static void legacy_json(json_t *root, const struct pbench_runs *r)
{
	const struct pb_set *s = (&r->sets[0]);
	const struct pbench_summary *m = &s->s_ns;
	json_t *runs = json_array();

	for (int i = 0; i < s->done; i++)
		json_array_append_new(runs, run_json(&s->runs[i], i, r));
	json_object_set_new(root, "runs", runs);
	if (s->have_summary)
		json_object_set_new(root, "summary", json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, "
			"s:o, s:o}", "runs", s->done, "min_ns", num(m->min),
			"median_ns", num(m->median), "mean_ns", num(m->mean),
			"max_ns", num(m->max), "stddev_ns", num(m->stddev),
			"cv_pct", num(m->cv_pct), "spread_pct", num(m->spread_pct)));
}

static json_t *subject_json(const struct pbench_runs *r)
{
	const struct pb_subject *sub = &r->subject;

	if (sub->argv) {
		json_t *cmd = json_array();

		for (char **a = sub->argv; *a; a++)
			json_array_append_new(cmd, json_string(*a));
		return cmd;
	}
	if (sub->workload == PBENCH_WORKLOAD_MEMWALK)
		return json_pack("{s:s, s:I, s:I}", "name", "memwalk", "steps",
				 (json_int_t)sub->iterations, "bytes", (json_int_t)sub->walk_bytes);
	if (sub->workload == PBENCH_WORKLOAD_FN)
		return json_pack("{s:s}", "name", "function");
	return json_pack("{s:s, s:I}", "name", "xor", "iterations", (json_int_t)sub->iterations);
}

static json_t *header_json(const struct pbench_runs *r)
{
	json_t *root = json_object();
	int b = 0, *bad = &b;

	if (!root)
		return NULL;
	pb_json_head(root, 1, bad);
	SET(root, r->subject.argv ? "command" : "workload", subject_json(r));
	SET(root, "mode", json_string(pb_runs_mode_name(r->o.mode)));
	SET(root, "runs_requested", json_integer(r->o.runs));
	if (b) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int pbench_runs_write_json(const struct pbench_runs *r, FILE *f)
{
	json_t *root, *modes;
	char verdict[PB_RUNS_VERDICT_LEN];
	double sr, cr;
	int err;

	if (!r || !f)
		return -EINVAL;
	root = header_json(r);
	modes = json_array();
	if (!root || !modes) {
		json_decref(root);
		json_decref(modes);
		return -ENOMEM;
	}
	for (int i = 0; i < r->nsets; i++)
		json_array_append_new(modes, mode_json(r, &r->sets[i]));
	json_object_set_new(root, "modes", modes);
	if (r->nsets == 1)
		legacy_json(root, r);
	if (r->o.mode == PBENCH_RUNS_CONTRAST)
		json_object_set_new(root, "contrast",
				    pb_runs_contrast(r, &sr, &cr, verdict, sizeof(verdict)) ?
				    json_pack("{s:o, s:o, s:s}", "spread_ratio", num(sr),
					      "cv_ratio", num(cr), "verdict", verdict)
				    : json_null());
	json_object_set_new(root, "check_cpu", r->env ? json_integer(r->env_cpu) : json_null());
	json_object_set_new(root, "check", check_json(r));
	err = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (err || fputc('\n', f) == EOF || fflush(f) == EOF || ferror(f))
		return -EIO;
	return 0;
}
