/* SPDX-License-Identifier: MIT */
/*
 * pbench stat's report: each set of runs (unprepared, prepared) as a table with what was done
 * to prepare it, its outliers and their causes, its summary; the two side by side in contrast
 * mode; and all of it as JSON (schema 1).
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pbench.h"
#include "cmds.h"
#include "stat.h"

/* ---- analysis --------------------------------------------------------------------------- */

void stat_set_analyze(struct stat_set *s)
{
	double *ns, *ticks, iqr, median;
	unsigned flags = s->policy == SCHED_FIFO ? PBENCH_CAUSE_FIFO : 0;
	int n = s->done;

	s->have_summary = 0;
	if (!n)
		return;
	ns = malloc((size_t)n * sizeof(*ns));
	ticks = malloc((size_t)n * sizeof(*ticks));
	s->s_ns.size = s->s_ticks.size = sizeof(struct pbench_summary);
	for (int i = 0; ns && ticks && i < n; i++) {
		ns[i] = (double)s->runs[i].ns;
		ticks[i] = (double)s->runs[i].ticks;
	}
	if (ns && ticks && !pbench_stats_summary(ns, (size_t)n, NULL, &s->s_ns) &&
	    !pbench_stats_summary(ticks, (size_t)n, NULL, &s->s_ticks))
		s->have_summary = 1;
	free(ns);
	free(ticks);
	if (!s->have_summary)
		return;
	/* Tukey's fences, as pbench_stats_summary counts its outliers. */
	iqr = s->s_ns.q3 - s->s_ns.q1;
	s->fence_lo = s->s_ns.q1 - 1.5 * iqr;
	s->fence_hi = s->s_ns.q3 + 1.5 * iqr;
	median = s->s_ns.median;
	for (int i = 0; i < n; i++) {
		struct run *r = &s->runs[i];
		double x = (double)r->ns;

		r->outlier = x < s->fence_lo || x > s->fence_hi;
		if (!r->outlier)
			continue;
		s->outliers++;
		pbench_noise_cause(r->cause, sizeof(r->cause), x - median, &r->noise,
				   r->have_cpu_noise ? &r->cpu_noise : NULL, flags);
	}
}

static const struct stat_set *set_of(const struct stat_report *rep, int kind)
{
	for (int s = 0; s < rep->nsets; s++)
		if (rep->sets[s]->kind == kind)
			return rep->sets[s];
	return NULL;
}

/* A percentage with two significant digits, and never in exponent form. */
static void fmt_pct(char *buf, size_t len, double x)
{
	if (!isfinite(x))
		snprintf(buf, len, "-");
	else if (x >= 10)
		snprintf(buf, len, "%.0f%%", x);
	else if (x >= 1)
		snprintf(buf, len, "%.1f%%", x);
	else if (x >= 0.001)
		snprintf(buf, len, "%.2g%%", x);
	else
		snprintf(buf, len, "%.4f%%", x);
}

/*
 * The contrast of the two sets: ratios of spreads and of CVs (unprepared / prepared) and a
 * verdict from those numbers only. 0 when there is no contrast to make.
 */
static int contrast_of(const struct stat_report *rep, double *spread_ratio, double *cv_ratio,
		       char *verdict, size_t len)
{
	const struct stat_set *u = set_of(rep, MODE_UNPREPARED), *p = set_of(rep, MODE_PREPARED);
	char su[32], sp[32];

	if (!u || !p || !u->have_summary || !p->have_summary || u->done < 2 || p->done < 2)
		return 0;
	*spread_ratio = p->s_ns.spread_pct > 0 ? u->s_ns.spread_pct / p->s_ns.spread_pct : NAN;
	*cv_ratio = p->s_ns.cv_pct > 0 ? u->s_ns.cv_pct / p->s_ns.cv_pct : NAN;
	fmt_pct(su, sizeof(su), u->s_ns.spread_pct);
	fmt_pct(sp, sizeof(sp), p->s_ns.spread_pct);
	if (!isfinite(*spread_ratio))
		snprintf(verdict, len, "prepared runs did not vary at all (0%% spread) against %s "
			 "unprepared", su);
	else if (*spread_ratio >= 1)
		snprintf(verdict, len, "prepared runs spread %s against %s unprepared: %.1fx "
			 "tighter", sp, su, *spread_ratio);
	else
		snprintf(verdict, len, "prepared runs spread %s against %s unprepared: %.1fx "
			 "wider, preparing did not steady this workload here", sp, su,
			 1 / *spread_ratio);
	return 1;
}

/* ---- text ------------------------------------------------------------------------------- */

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

static void fmt_status(const struct run *r, char *buf, size_t len)
{
	if (r->timed_out)
		snprintf(buf, len, "timed out (killed)");
	else if (r->signaled)
		snprintf(buf, len, "killed by signal %d (%s)", r->term_signal,
			 strsignal(r->term_signal));
	else
		snprintf(buf, len, "exit %d", r->exit_status);
}

static void fmt_value(const struct pbench_count *k, char *buf, size_t len)
{
	if (k->status == PBENCH_EVENT_NOT_SUPPORTED || k->status == PBENCH_EVENT_NO_PERMISSION ||
	    k->status == PBENCH_EVENT_NOT_COUNTED)
		snprintf(buf, len, "-");
	else if (is_time_event(k->name))
		snprintf(buf, len, "%.3f ms%s%s", k->scaled / 1e6, k->is_scaled ? "*" : "",
			 k->user_only ? " u" : "");
	else
		snprintf(buf, len, "%.0f%s%s", k->scaled, k->is_scaled ? "*" : "",
			 k->user_only ? " u" : "");
}

static int col_width(const char *name)
{
	int w = (int)strlen(name);

	return w < 12 ? 12 : w;
}

static void print_header(const struct stat_report *rep)
{
	const struct stat_opts *o = rep->o;
	const struct pbench_clock_info *ci = rep->ci;
	char runs[96];

	if (rep->nsets == 2)
		snprintf(runs, sizeof(runs), "%d run%s unprepared, then %d prepared",
			 rep->sets[0]->done, rep->sets[0]->done == 1 ? "" : "s", rep->sets[1]->done);
	else
		snprintf(runs, sizeof(runs), "%d run%s, %s", rep->sets[0]->done,
			 rep->sets[0]->done == 1 ? "" : "s", stat_mode_name(rep->sets[0]->kind));
	if (o->cmd) {
		printf("pbench stat: '");
		for (char **a = o->cmd; *a; a++)
			printf("%s%s", a == o->cmd ? "" : " ", *a);
		printf("', %s\n", runs);
	} else {
		printf("pbench stat: built-in workload 'xor' (%lld iterations), %s\n",
		       o->iterations, runs);
	}
	printf("clock: %s, %.3f MHz (%s), read %.1f ns, begin+end %.1f ns, resolution %.1f ns\n",
	       pbench_clock_kind_name(ci->kind), (double)ci->hz / 1e6,
	       pbench_freq_source_name(ci->freq_source), ci->read_cost_ns, ci->region_cost_ns,
	       ci->resolution_ns);
}

static void print_preparation(const struct stat_report *rep, const struct stat_set *s)
{
	if (s->kind == MODE_UNPREPARED) {
		printf("\nunprepared: no pinning, %s %s %d as started, no warm-up\n",
		       s->policy_name, s->policy == SCHED_FIFO || s->policy == SCHED_RR ?
		       "priority" : "nice", s->prio_value);
		return;
	}
	printf("\nprepared: CPU %d (%s)\n", s->cpu, s->cpu_reason);
	for (int i = 0; i < PBENCH_PREP_NR_STEPS; i++)
		printf("  %-9s %-14s %s\n", pbench_prep_step_name(s->steps[i].step),
		       pbench_step_status_name(s->steps[i].status), s->steps[i].what);
	printf("priority: %s %s %d", s->policy_name, s->policy == SCHED_FIFO ||
	       s->policy == SCHED_RR ? "priority" : "nice", s->prio_value);
	if (s->prio.probed)
		printf(" (AUTO probe: %d runs spread %.2f%% at the lowest nice, %d runs %.2f%% "
		       "under SCHED_FIFO)", s->prio.nice_runs, s->prio.nice_spread_pct,
		       s->prio.fifo_runs, s->prio.fifo_spread_pct);
	printf("; warm-up %.0f ms\n", s->warmup_ms);
	if (rep->o->cmd)
		printf("the command ran prepared: a child inherits the CPU affinity and the "
		       "scheduling policy through fork/exec\n");
	if (s->restored_by)
		printf("restored: by the %s handler, then again after the runs\n",
		       s->restored_by == SIGINT ? "SIGINT" : "SIGTERM");
	else
		printf("restored after the runs: %s\n", s->restore_err ?
		       pbench_strerror(s->restore_err) : "affinity, priority, memory policy and lock");
}

static void print_runs(const struct stat_report *rep, const struct stat_set *s, int *scaled,
		       int *user_only)
{
	int nr = rep->nr;
	char buf[64];

	printf("\n%5s %14s %14s", "run", "ticks", "time_ns");
	for (int e = 0; e < nr; e++)
		if (s->runs[0].counts[e].status <= PBENCH_EVENT_NOT_COUNTED)
			printf("  %*s", col_width(s->runs[0].counts[e].name),
			       s->runs[0].counts[e].name);
	printf("  %3s %5s  status\n", "cpu", "irqs");
	for (int i = 0; i < s->done; i++) {
		const struct run *r = &s->runs[i];

		printf("%5d %14llu %14llu", i + 1, (unsigned long long)r->ticks,
		       (unsigned long long)r->ns);
		for (int e = 0; e < nr; e++) {
			if (s->runs[0].counts[e].status > PBENCH_EVENT_NOT_COUNTED)
				continue;
			fmt_value(&r->counts[e], buf, sizeof(buf));
			*scaled |= r->counts[e].is_scaled;
			*user_only |= r->counts[e].user_only;
			printf("  %*s", col_width(r->counts[e].name), buf);
		}
		if (r->have_cpu_noise)
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->cpu_noise.irq_total);
		else
			snprintf(buf, sizeof(buf), "-");
		printf("  %3d %5s", r->cpu, buf);
		fmt_status(r, buf, sizeof(buf));
		printf("  %s\n", buf);
	}
}

static void print_outliers(const struct stat_set *s)
{
	char lo[32], hi[32];

	if (!s->have_summary)
		return;
	pbench_format_ns(lo, sizeof(lo), s->fence_lo, 4);
	pbench_format_ns(hi, sizeof(hi), s->fence_hi, 4);
	printf("outliers: %d (Tukey fences %s to %s)\n", s->outliers, lo, hi);
	for (int i = 0; i < s->done; i++)
		if (s->runs[i].outlier)
			printf("  run %d: %s\n", i + 1, s->runs[i].cause);
}

static void print_summary(const struct stat_set *s)
{
	const struct pbench_summary *m = &s->s_ns;

	if (!s->have_summary)
		return;
	printf("summary: %d run%s, time min %.3f ms, median %.3f ms, mean %.3f ms, max %.3f ms, "
	       "stddev %.3f ms, cv %.2f%%, spread %.2f%%%s\n", s->done, s->done == 1 ? "" : "s",
	       m->min / 1e6, m->median / 1e6, m->mean / 1e6, m->max / 1e6, m->stddev / 1e6,
	       m->cv_pct, m->spread_pct, s->failed ? " (some runs failed: see status)" : "");
}

static void print_event_notes(const struct stat_report *rep, const struct stat_set *s,
			      int scaled, int user_only)
{
	for (int e = 0; e < rep->nr; e++) {
		const struct pbench_count *k = &s->runs[0].counts[e];

		if (k->status > PBENCH_EVENT_NOT_COUNTED)
			printf("%-20s <%s> %s\n", k->name,
			       k->status == PBENCH_EVENT_NOT_SUPPORTED ? "not supported"
								       : "no permission",
			       k->reason);
	}
	for (int e = 0; e < rep->nr; e++) {
		const struct pbench_count *k = &s->runs[s->done - 1].counts[e];

		if (k->status == PBENCH_EVENT_NOT_COUNTED)
			printf("%-20s <not counted> %s\n", k->name, k->reason);
	}
	if (scaled)
		printf("* scaled: the event shared a counter (multiplexed); the value is "
		       "estimated from the time it ran\n");
	if (user_only) {
		int paranoid = -1;

		pbench_perf_paranoid(&paranoid);
		printf("u user space only: kernel.perf_event_paranoid is %d, so the kernel's share "
		       "is not counted; fix: sysctl -w kernel.perf_event_paranoid=1, or "
		       "CAP_PERFMON\n", paranoid);
	}
}

static void contrast_row(const char *label, const struct stat_set *u, const struct stat_set *p,
			 size_t off)
{
	printf("  %-13s", label);
	for (const struct stat_set *s = u; s; s = s == u ? p : NULL)
		printf(" %14.0f %14.0f", *(const double *)((const char *)&s->s_ticks + off),
		       *(const double *)((const char *)&s->s_ns + off));
	printf("\n");
}

static void print_contrast(const struct stat_report *rep)
{
	const struct stat_set *u = set_of(rep, MODE_UNPREPARED), *p = set_of(rep, MODE_PREPARED);
	double sr, cr;
	char verdict[256], a[32], b[32];

	if (!contrast_of(rep, &sr, &cr, verdict, sizeof(verdict)))
		return;
	printf("\ncontrast: %d unprepared runs, %d prepared\n", u->done, p->done);
	printf("  %-13s %29s %29s\n", "", "unprepared", "prepared");
	printf("  %-13s %14s %14s %14s %14s\n", "", "ticks", "ns", "ticks", "ns");
	contrast_row("min", u, p, offsetof(struct pbench_summary, min));
	contrast_row("max", u, p, offsetof(struct pbench_summary, max));
	contrast_row("median", u, p, offsetof(struct pbench_summary, median));
	contrast_row("trimmed mean", u, p, offsetof(struct pbench_summary, trimmed_mean));
	fmt_pct(a, sizeof(a), u->s_ns.spread_pct);
	fmt_pct(b, sizeof(b), p->s_ns.spread_pct);
	printf("  %-13s %29s %29s\n", "spread", a, b);
	fmt_pct(a, sizeof(a), u->s_ns.cv_pct);
	fmt_pct(b, sizeof(b), p->s_ns.cv_pct);
	printf("  %-13s %29s %29s\n", "cv", a, b);
	printf("ratio unprepared/prepared: spread ");
	/* Three significant digits below 10: a ratio of 0.039 is not "0.0x". */
	printf(!isfinite(sr) ? "- (no prepared spread)" : sr < 10 ? "%.3gx" : "%.1fx", sr);
	printf(", cv ");
	printf(!isfinite(cr) ? "- (no prepared variation)\n" : cr < 10 ? "%.3gx\n" : "%.1fx\n",
	       cr);
	printf("verdict: %s\n", verdict);
}

void stat_print_text(const struct stat_report *rep)
{
	print_header(rep);
	for (int i = 0; i < rep->nsets; i++) {
		const struct stat_set *s = rep->sets[i];
		int scaled = 0, user_only = 0;

		if (s->kind == MODE_PREPARED && !s->prepared) {
			printf("\nprepared: not done (interrupted while preparing)\n");
			continue;
		}
		print_preparation(rep, s);
		if (!s->done) {
			printf("no runs\n");
			continue;
		}
		print_runs(rep, s, &scaled, &user_only);
		if (i == rep->nsets - 1)	/* the events are the same in both sets */
			print_event_notes(rep, s, scaled, user_only);
		print_outliers(s);
		print_summary(s);
	}
	print_contrast(rep);
}

/* ---- JSON -------------------------------------------------------------------------------- */

/* jansson has no NaN or infinity: a number that is not finite is null. */
static json_t *jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *count_json(const struct pbench_count *k)
{
	json_t *j = json_object();
	int counted = k->status <= PBENCH_EVENT_MULTIPLEXED;

	json_object_set_new(j, "value", counted ? json_integer((json_int_t)k->value) : json_null());
	json_object_set_new(j, "scaled", counted ? jreal(k->scaled) : json_null());
	json_object_set_new(j, "is_scaled", json_boolean(k->is_scaled));
	json_object_set_new(j, "user_only", json_boolean(k->user_only));
	json_object_set_new(j, "time_enabled_ns", json_integer((json_int_t)k->time_enabled));
	json_object_set_new(j, "time_running_ns", json_integer((json_int_t)k->time_running));
	json_object_set_new(j, "running_pct",
			    k->time_enabled ? jreal(100.0 * (double)k->time_running /
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

static json_t *noise_json(const struct run *r)
{
	const struct pbench_noise *n = &r->noise;
	const struct pbench_cpu_noise *c = &r->cpu_noise;
	json_t *j = json_object(), *cj;

	json_object_set_new(j, "ctx_involuntary", json_integer((json_int_t)n->ctx_involuntary));
	json_object_set_new(j, "ctx_voluntary", json_integer((json_int_t)n->ctx_voluntary));
	json_object_set_new(j, "migrations", r->have_migrations ?
			    json_integer((json_int_t)n->migrations) : json_null());
	json_object_set_new(j, "minor_faults", json_integer((json_int_t)n->minor_faults));
	json_object_set_new(j, "major_faults", json_integer((json_int_t)n->major_faults));
	json_object_set_new(j, "not_running_ns", jreal(n->not_running_ns));
	if (!r->have_cpu_noise) {
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
	json_object_set_new(cj, "steal_ns", jreal(c->steal_ns));
	json_object_set_new(j, "on_cpu", cj);
	return j;
}

static json_t *run_json(const struct run *r, int i, int nr)
{
	json_t *j = json_object(), *cs = json_object();

	json_object_set_new(j, "run", json_integer(i + 1));
	json_object_set_new(j, "ticks", json_integer((json_int_t)r->ticks));
	json_object_set_new(j, "ns", json_integer((json_int_t)r->ns));
	json_object_set_new(j, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(j, "exit_status", r->exited ? json_integer(r->exit_status)
							: json_null());
	json_object_set_new(j, "signal", r->signaled ? json_integer(r->term_signal) : json_null());
	json_object_set_new(j, "cpu", json_integer(r->cpu));
	for (int e = 0; e < nr; e++)
		json_object_set_new(cs, r->counts[e].name, count_json(&r->counts[e]));
	json_object_set_new(j, "counters", cs);
	json_object_set_new(j, "noise", noise_json(r));
	json_object_set_new(j, "outlier", json_boolean(r->outlier));
	json_object_set_new(j, "cause", r->outlier ? json_string(r->cause) : json_null());
	return j;
}

static json_t *summary_json(const struct stat_set *s)
{
	const struct pbench_summary *m = &s->s_ns;
	json_t *j = json_object();

	/* Units in the names (DESIGN.md): times in ns, and in ticks where they say so. */
	json_object_set_new(j, "n", json_integer((json_int_t)m->n));
	json_object_set_new(j, "min_ns", jreal(m->min));
	json_object_set_new(j, "max_ns", jreal(m->max));
	json_object_set_new(j, "median_ns", jreal(m->median));
	json_object_set_new(j, "mean_ns", jreal(m->mean));
	json_object_set_new(j, "stddev_ns", jreal(m->stddev));
	json_object_set_new(j, "sem_ns", jreal(m->sem));
	json_object_set_new(j, "cv_pct", jreal(m->cv_pct));
	json_object_set_new(j, "spread_pct", jreal(m->spread_pct));
	json_object_set_new(j, "trimmed_mean_ns", jreal(m->trimmed_mean));
	json_object_set_new(j, "mad_ns", jreal(m->mad));
	json_object_set_new(j, "outliers", json_integer(s->outliers));
	json_object_set_new(j, "fence_lo_ns", jreal(s->fence_lo));
	json_object_set_new(j, "fence_hi_ns", jreal(s->fence_hi));
	json_object_set_new(j, "min_ticks", jreal(s->s_ticks.min));
	json_object_set_new(j, "max_ticks", jreal(s->s_ticks.max));
	json_object_set_new(j, "median_ticks", jreal(s->s_ticks.median));
	json_object_set_new(j, "trimmed_mean_ticks", jreal(s->s_ticks.trimmed_mean));
	return j;
}

static json_t *mode_json(const struct stat_report *rep, const struct stat_set *s)
{
	json_t *j = json_object(), *steps = json_array(), *runs = json_array();

	json_object_set_new(j, "mode", json_string(stat_mode_name(s->kind)));
	json_object_set_new(j, "cpu", s->prepared ? json_integer(s->cpu) : json_null());
	json_object_set_new(j, "cpu_reason", s->prepared ? json_string(s->cpu_reason)
							 : json_null());
	json_object_set_new(j, "priority", s->policy_name ?
			    json_pack("{s:s, s:i}", "policy", s->policy_name, "value",
				      s->prio_value) : json_null());
	json_object_set_new(j, "priority_probe", s->prio.probed ?
			    json_pack("{s:o, s:o, s:i, s:i}",
				      "nice_spread_pct", jreal(s->prio.nice_spread_pct),
				      "fifo_spread_pct", jreal(s->prio.fifo_spread_pct),
				      "nice_runs", s->prio.nice_runs,
				      "fifo_runs", s->prio.fifo_runs) : json_null());
	json_object_set_new(j, "warmup_ms", jreal(s->warmup_ms));
	for (int i = 0; s->prepared && i < PBENCH_PREP_NR_STEPS; i++)
		json_array_append_new(steps, json_pack("{s:s, s:s, s:s}",
			"step", pbench_prep_step_name(s->steps[i].step),
			"status", pbench_step_status_name(s->steps[i].status),
			"reason", s->steps[i].what));
	json_object_set_new(j, "steps", steps);
	json_object_set_new(j, "restored", s->kind == MODE_PREPARED && s->prepared ?
			    json_boolean(!s->restore_err) : json_null());
	for (int i = 0; i < s->done; i++)
		json_array_append_new(runs, run_json(&s->runs[i], i, rep->nr));
	json_object_set_new(j, "runs", runs);
	json_object_set_new(j, "summary", s->have_summary ? summary_json(s) : json_null());
	return j;
}

static json_t *check_json(const struct stat_report *rep)
{
	json_t *a = json_array();

	for (int i = 0; rep->env && i < pbench_env_nr(rep->env); i++) {
		const struct pbench_check *c = pbench_env_get(rep->env, i);

		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s}", "id", c->id,
			"status", pbench_check_status_name(c->status), "cpu", c->cpu,
			"value", c->value));
	}
	return a;
}

/* The first form's top-level runs and summary, kept for a single mode. */
static void legacy_json(json_t *root, const struct stat_report *rep)
{
	const struct stat_set *s = rep->sets[0];
	const struct pbench_summary *m = &s->s_ns;
	json_t *runs = json_array();

	for (int i = 0; i < s->done; i++)
		json_array_append_new(runs, run_json(&s->runs[i], i, rep->nr));
	json_object_set_new(root, "runs", runs);
	if (s->have_summary)
		json_object_set_new(root, "summary", json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, "
			"s:o, s:o}", "runs", s->done, "min_ns", jreal(m->min),
			"median_ns", jreal(m->median), "mean_ns", jreal(m->mean),
			"max_ns", jreal(m->max), "stddev_ns", jreal(m->stddev),
			"cv_pct", jreal(m->cv_pct), "spread_pct", jreal(m->spread_pct)));
}

static json_t *header_json(const struct stat_report *rep)
{
	const struct stat_opts *o = rep->o;
	const struct pbench_clock_info *ci = rep->ci;
	json_t *root = json_object();

	json_object_set_new(root, "schema", json_integer(1));
	json_object_set_new(root, "pbench_version", json_string(pbench_version()));
	if (o->cmd) {
		json_t *cmd = json_array();

		for (char **a = o->cmd; *a; a++)
			json_array_append_new(cmd, json_string(*a));
		json_object_set_new(root, "command", cmd);
	} else {
		json_object_set_new(root, "workload", json_pack("{s:s, s:I}", "name", "xor",
						"iterations", (json_int_t)o->iterations));
	}
	json_object_set_new(root, "clock", json_pack("{s:s, s:I, s:s, s:o, s:o, s:o}",
		"kind", pbench_clock_kind_name(ci->kind), "hz", (json_int_t)ci->hz,
		"freq_source", pbench_freq_source_name(ci->freq_source),
		"read_cost_ns", jreal(ci->read_cost_ns),
		"region_cost_ns", jreal(ci->region_cost_ns),
		"resolution_ns", jreal(ci->resolution_ns)));
	json_object_set_new(root, "mode", json_string(stat_mode_name(o->mode)));
	json_object_set_new(root, "runs_requested", json_integer(o->runs));
	return root;
}

int stat_write_json(const struct stat_report *rep)
{
	json_t *root = header_json(rep), *modes = json_array();
	char verdict[256];
	double sr, cr;
	int err;

	for (int i = 0; i < rep->nsets; i++)
		json_array_append_new(modes, mode_json(rep, rep->sets[i]));
	json_object_set_new(root, "modes", modes);
	if (rep->nsets == 1)
		legacy_json(root, rep);
	if (rep->o->mode == MODE_CONTRAST)
		json_object_set_new(root, "contrast",
				    contrast_of(rep, &sr, &cr, verdict, sizeof(verdict)) ?
				    json_pack("{s:o, s:o, s:s}", "spread_ratio", jreal(sr),
					      "cv_ratio", jreal(cr), "verdict", verdict)
				    : json_null());
	json_object_set_new(root, "check_cpu", rep->env ? json_integer(rep->env_cpu)
							: json_null());
	json_object_set_new(root, "check", check_json(rep));
	if (!strcmp(rep->o->json, "-")) {
		err = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		err = json_dump_file(root, rep->o->json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (err)
			cli_error("cannot write '%s'", rep->o->json);
	}
	json_decref(root);
	return err ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- plot ------------------------------------------------------------------------------- */

/* Unprepared in orange, prepared in blue, whichever is shown. */
static const char *const set_color[] = { "#d95f02", "#1f6fb4" };

int stat_write_plot(const struct stat_report *rep)
{
	const struct stat_opts *o = rep->o;
	struct pbench_plot_series ser[2];
	double *ns[2] = { 0 };
	unsigned char *out[2] = { 0 };
	const char **cause[2] = { 0 };
	char names[2][64], title[512];
	size_t off;
	int rc = EXIT_OK, err = -ENOMEM;

	for (int i = 0; i < rep->nsets; i++) {
		const struct stat_set *s = rep->sets[i];
		size_t n = (size_t)s->done;

		ns[i] = calloc(n ? n : 1, sizeof(*ns[i]));
		out[i] = calloc(n ? n : 1, sizeof(*out[i]));
		cause[i] = calloc(n ? n : 1, sizeof(*cause[i]));
		if (!ns[i] || !out[i] || !cause[i])
			goto out;
		for (size_t k = 0; k < n; k++) {
			ns[i][k] = (double)s->runs[k].ns;
			out[i][k] = s->runs[k].outlier != 0;
			cause[i][k] = s->runs[k].cause;
		}
		if (s->kind == MODE_PREPARED && s->prepared)
			snprintf(names[i], sizeof(names[i]), "prepared, CPU %d", s->cpu);
		else
			snprintf(names[i], sizeof(names[i]), "%s", stat_mode_name(s->kind));
		ser[i] = (struct pbench_plot_series){ .size = sizeof(ser[i]), .name = names[i],
			.color = set_color[s->kind == MODE_PREPARED], .ns = ns[i], .n = n,
			.outlier = out[i], .cause = cause[i] };
	}
	if (o->cmd) {
		off = (size_t)snprintf(title, sizeof(title), "pbench stat:");
		for (char **a = o->cmd; *a && off < sizeof(title); a++)
			off += (size_t)snprintf(title + off, sizeof(title) - off, " %s", *a);
	} else {
		snprintf(title, sizeof(title), "pbench stat: built-in workload 'xor' "
			 "(%lld iterations), %s", o->iterations, stat_mode_name(o->mode));
	}
	err = pbench_plot_runs_svg(o->plot_f, title, ser, rep->nsets);
out:
	if (err) {
		cli_error("cannot write the plot '%s': %s", o->plot, pbench_strerror(err));
		rc = EXIT_RUNTIME;
	}
	for (int i = 0; i < 2; i++) {
		free(ns[i]);
		free(out[i]);
		free(cause[i]);
	}
	return rc;
}
