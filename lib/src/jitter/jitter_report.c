/* SPDX-License-Identifier: MIT */
/*
 * The jitter report: text a person reads at a glance (a table, one row per CPU, then each
 * CPU's sources and explanation, then the quietest CPU) and JSON (schema/jitter.schema.json)
 * for tools. With a
 * prepared run of the same CPU, both side by side and their difference.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "noise/noise.h"
#include "jitter/jitter.h"

/* ---- text -------------------------------------------------------------------------------- */

static const char *ns_str(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		return "-";
	pbench_format_ns(buf, len, ns, 3);
	return buf;
}

/* The short name of a source for the table: "timer", "RES...", a device's name. */
static void short_name(const struct pbench_jitter_source *s, char *buf, size_t len)
{
	switch (s->kind) {
	case PBENCH_JITTER_SOURCE_TIMER: snprintf(buf, len, "timer"); break;
	case PBENCH_JITTER_SOURCE_IPI: snprintf(buf, len, "IPI"); break;
	case PBENCH_JITTER_SOURCE_PREEMPTION: snprintf(buf, len, "preempted"); break;
	case PBENCH_JITTER_SOURCE_OTHER_IRQ: snprintf(buf, len, "NMI etc."); break;
	case PBENCH_JITTER_SOURCE_SMI: snprintf(buf, len, "SMI"); break;
	default: snprintf(buf, len, "%.*s", (int)strcspn(s->name, " "), s->name);
	}
}

static void top_sources(const struct pbench_jitter_cpu *c, FILE *f)
{
	int shown = 0;

	for (int i = 0; i < c->nsources && shown < 3; i++) {
		const struct pbench_jitter_source *s = pb_jitter_source_of(c, i);
		char name[64];

		if (!s->available || !s->count || s->kind == PBENCH_JITTER_SOURCE_SOFTIRQ ||
		    s->kind == PBENCH_JITTER_SOURCE_STEAL)
			continue;
		short_name(s, name, sizeof(name));
		fprintf(f, "%s%s %.*f/s", shown ? ", " : "", name, s->per_s < 10 ? 1 : 0, s->per_s);
		shown++;
	}
	if (!shown)
		fputs("none counted", f);
}

static void header(FILE *f)
{
	fprintf(f, "%4s %15s %9s %9s %10s %8s %9s %9s %9s %9s %9s  %s\n", "cpu", "loop min/median",
		"gaps", "gaps/s", "noise", "noise%", "p50", "p90", "p99", "p99.9", "max",
		"top sources");
}

static void row(const struct pbench_jitter_cpu *c, FILE *f, const char *label)
{
	char q[5][24], noise[24], loop[40];

	snprintf(loop, sizeof(loop), "%.1f/%.1f ns", c->loop_min_ns, c->loop_median_ns);
	fprintf(f, "%4s %15s %9llu %9.1f %10s %7.3f%% %9s %9s %9s %9s %9s  ", label, loop,
		(unsigned long long)c->interruptions, c->interruptions_per_s,
		ns_str(noise, sizeof(noise), c->noise_ns), c->noise_pct,
		ns_str(q[0], sizeof(q[0]), c->p50_ns), ns_str(q[1], sizeof(q[1]), c->p90_ns),
		ns_str(q[2], sizeof(q[2]), c->p99_ns), ns_str(q[3], sizeof(q[3]), c->p999_ns),
		ns_str(q[4], sizeof(q[4]), c->interruptions ? c->max_gap_ns : NAN));
	top_sources(c, f);
	fputc('\n', f);
}

static const struct pb_jitter_run *run_of(const struct pbench_jitter_cpu *c)
{
	return (const struct pb_jitter_run *)((const char *)c - offsetof(struct pb_jitter_run, r));
}

/* The CPU's own counts over the window, every task's (as pbench stat -a -A counts them). */
static void cpu_window(const struct pbench_jitter_cpu *c, FILE *f)
{
	const struct pb_jitter_run *r = run_of(c);
	const struct pbench_cpu_noise *n = &r->noise;

	fprintf(f, "  CPU %d, every task: ", c->cpu);
	if (r->cpu_sched_ok)
		fprintf(f, "%llu context switches, %llu migrations", (unsigned long long)r->cpu_cs,
			(unsigned long long)r->cpu_migrations);
	else
		fprintf(f, "context switches and migrations %s", r->cpu_sched_reason);
	if (n->flags & PBENCH_CPU_NOISE_NO_IRQ)
		fprintf(f, "; interrupts not read\n");
	else
		fprintf(f, "; %llu interrupts (timer %llu, IPIs %llu, other %llu, devices %llu)\n",
			(unsigned long long)n->irq_total, (unsigned long long)n->irq_timer,
			(unsigned long long)n->irq_ipi, (unsigned long long)n->irq_other,
			(unsigned long long)n->irq_device);
}

/* Steal in /proc/stat's whole ticks: "up to 20 ms" for one (pb_noise_steal_words()). */
static const char *steal_str(char *buf, size_t len, const struct pbench_jitter_source *s)
{
	if (!s->count)
		return ns_str(buf, len, s->ns);
	pb_noise_steal_words(buf, len, s->count, s->ns);
	return buf;
}

static void details(const struct pbench_jitter_cpu *c, FILE *f)
{
	char t[80];

	fprintf(f, "\ncpu %d: %s\n  sources:", c->cpu, c->explained);
	for (int i = 0; i < c->nsources; i++) {
		const struct pbench_jitter_source *s = pb_jitter_source_of(c, i);

		if (!s->available)
			fprintf(f, "%s %s: %s", i ? ";" : "", s->name, s->reason);
		else if (s->kind == PBENCH_JITTER_SOURCE_STEAL)
			fprintf(f, "%s steal %s", i ? ";" : "", steal_str(t, sizeof(t), s));
		else
			fprintf(f, "%s %s %llu (%.*f/s)", i ? ";" : "", s->name,
				(unsigned long long)s->count, s->per_s < 10 ? 1 : 0, s->per_s);
	}
	fprintf(f, "\n  probe thread: %s %d, %llu involuntary and %llu voluntary context "
		"switches\n", pbench_sched_policy_name(c->policy), c->priority,
		(unsigned long long)c->ctx_involuntary, (unsigned long long)c->ctx_voluntary);
	cpu_window(c, f);
	if (c->flags & PBENCH_JITTER_CPU_PREPARED)
		fprintf(f, "  prepared: %s\n", c->prepared);
	if (c->flags & PBENCH_JITTER_CPU_SHARED)
		fprintf(f, "  warning: another pbench jitter (pid %d) spun on CPU %d during the "
			"window: each took CPU time from the other\n", (int)c->other_pid, c->cpu);
	if (c->flags & PBENCH_JITTER_CPU_STOPPED)
		fprintf(f, "  stopped early: %.2f s measured\n", c->duration_s);
	if (c->flags & PBENCH_JITTER_CPU_TRUNCATED)
		fprintf(f, "  warning: more gaps than the buffer holds: quantiles and histogram of "
			"the first %zu of %llu\n", c->ngaps, (unsigned long long)c->interruptions);
	if (c->flags & PBENCH_JITTER_CPU_MIGRATED)
		fprintf(f, "  warning: the probe thread was moved off CPU %d during the window (CPU "
			"hot-unplugged?): these are not its figures\n", c->cpu);
}

static const struct pbench_jitter_cpu *cpu_of(const struct pbench_jitter *j, int i)
{
	return &j->run[i].r;
}

/* Where the threshold came from; a given one is used in whole clock ticks. */
static const char *threshold_note(const struct pbench_jitter *j)
{
	static __thread char buf[96];
	double used = cpu_of(j, 0)->threshold_ns;

	if (!(j->threshold_ns > 0))
		return " (10x the minimum loop period, at least 1 us)";
	if (fabs(used - j->threshold_ns) <= 0.01 * j->threshold_ns)
		return " (as given)";
	snprintf(buf, sizeof(buf), " (%.3g ns asked, rounded up to whole clock ticks)",
		 j->threshold_ns);
	return buf;
}

static void difference(const struct pbench_jitter_cpu *a, const struct pbench_jitter_cpu *b,
		       FILE *f)
{
	char x[24], y[24];

	if ((a->flags | b->flags) & PBENCH_JITTER_CPU_STOPPED) {
		fprintf(f, "\nprepared against normal on CPU %d: no comparison, the %s run was "
			"stopped early (%.2f s measured)\n", a->cpu,
			b->flags & PBENCH_JITTER_CPU_STOPPED ? "prepared" : "normal",
			b->flags & PBENCH_JITTER_CPU_STOPPED ? b->duration_s : a->duration_s);
		return;
	}

	fprintf(f, "\nprepared against normal on CPU %d: gaps/s %.1f -> %.1f, noise %.3f%% -> "
		"%.3f%%, p99 %s -> %s", a->cpu, a->interruptions_per_s, b->interruptions_per_s,
		a->noise_pct, b->noise_pct, ns_str(x, sizeof(x), a->p99_ns),
		ns_str(y, sizeof(y), b->p99_ns));
	fprintf(f, ", max gap %s -> %s, preemptions %llu -> %llu\n",
		ns_str(x, sizeof(x), a->interruptions ? a->max_gap_ns : NAN),
		ns_str(y, sizeof(y), b->interruptions ? b->max_gap_ns : NAN),
		(unsigned long long)a->ctx_involuntary, (unsigned long long)b->ctx_involuntary);
	if (b->noise_pct < a->noise_pct && b->noise_pct > 0)
		fprintf(f, "verdict: prepared, the CPU lost %.3g times less time\n",
			a->noise_pct / b->noise_pct);
	else if (b->noise_pct < a->noise_pct)
		fprintf(f, "verdict: prepared, the CPU lost no time to gaps above the threshold in "
			"%.2f s (%.3f%% normally)\n", b->duration_s, a->noise_pct);
	else
		fprintf(f, "verdict: preparing did not make CPU %d quieter (%.3f%% against "
			"%.3f%%)\n", a->cpu, b->noise_pct, a->noise_pct);
}

/* The sentences (each line continued 2 columns further in than it starts) around the table,
 * which is never wrapped. */
int pbench_jitter_write_text(const struct pbench_jitter *j, const struct pbench_jitter *prepared,
			     FILE *out)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	char th[32], lbl[16];
	struct pb_line l;
	FILE *f = out;
	int q;

	if (!j || !f || !j->n || (prepared && !prepared->n))
		return -EINVAL;
	pbench_clock_info(&ci);
	pbench_format_ns(th, sizeof(th), cpu_of(j, 0)->threshold_ns, 3);
	f = pb_line_open(&l, out, j->width, PB_HANG(2));
	fprintf(f, "pbench jitter: %d CPU%s, %.2f s each, threshold %s%s; clock %s, %.3f MHz\n",
		j->n, j->n == 1 ? "" : "s", j->duration_s, th, threshold_note(j),
		pbench_clock_kind_name(ci.kind), (double)ci.hz / 1e6);
	if (cpu_of(j, 0)->threshold_ns < cpu_of(j, 0)->loop_min_ns)
		fprintf(f, "warning: the threshold is below the loop's period (%.3g ns): every read "
			"counts as a gap, and the figures say nothing about interruptions\n",
			cpu_of(j, 0)->loop_min_ns);
	pb_line_close(&l);
	f = out;
	header(f);
	for (int i = 0; i < j->n; i++) {
		snprintf(lbl, sizeof(lbl), "%d", cpu_of(j, i)->cpu);
		row(cpu_of(j, i), f, lbl);
	}
	if (prepared) {
		snprintf(lbl, sizeof(lbl), "%dp", cpu_of(prepared, 0)->cpu);
		row(cpu_of(prepared, 0), f, lbl);
	}
	f = pb_line_open(&l, out, j->width, PB_HANG(2));
	for (int i = 0; i < j->n; i++)
		details(cpu_of(j, i), f);
	if (prepared) {
		fprintf(f, "\nprepared run (row %dp):", cpu_of(prepared, 0)->cpu);
		details(cpu_of(prepared, 0), f);
		difference(cpu_of(j, 0), cpu_of(prepared, 0), f);
	}
	q = pbench_jitter_quietest(j);
	for (int i = 0; i < j->n && q >= 0; i++)
		if (cpu_of(j, i)->cpu == q)
			fprintf(f, "\nquietest: CPU %d (%.3f%% of the time lost, %.1f gaps/s, longest "
				"%s)\n", q, cpu_of(j, i)->noise_pct, cpu_of(j, i)->interruptions_per_s,
				ns_str(th, sizeof(th), cpu_of(j, i)->interruptions ?
				       cpu_of(j, i)->max_gap_ns : NAN));
	pb_line_close(&l);
	f = out;
	return pb_stream_end(f);
}

/* ---- JSON -------------------------------------------------------------------------------- */


static json_t *sources_json(const struct pbench_jitter_cpu *c, int *bad)
{
	json_t *a = json_array();

	for (int i = 0; a && i < c->nsources; i++) {
		const struct pbench_jitter_source *s = pb_jitter_source_of(c, i);
		json_t *o = json_object();

		if (!o) {
			*bad = -1;
			break;
		}
		SET(o, "kind", json_string(pbench_jitter_source_kind_name(s->kind)));
		SET(o, "name", json_string(s->name));
		SET(o, "available", json_boolean(s->available));
		SET(o, "count", s->available ? unum(s->count) : json_null());
		SET(o, "per_s", s->available ? num(s->per_s) : json_null());
		SET(o, "ns", s->available ? num(s->ns) : json_null());
		SET(o, "reason", s->available ? json_null() : json_string(s->reason));
		APPEND(a, o);
	}
	return a;
}

static json_t *histogram_json(const struct pbench_jitter *j, int i, int *bad)
{
	struct pbench_jitter_bin bins[160];
	int n = pbench_jitter_histogram(j, i, bins, (int)PB_ARRAY_SIZE(bins));
	json_t *a = json_array();

	for (int b = 0; a && b < n && b < (int)PB_ARRAY_SIZE(bins); b++)
		APPEND(a, json_pack("{s:f, s:f, s:I}", "lo_ns", bins[b].lo_ns, "hi_ns",
				    bins[b].hi_ns, "count", (json_int_t)bins[b].count));
	return a;
}

static json_t *flags_json(unsigned flags, int *bad)
{
	static const char *const names[] = { "stopped", "truncated", "shared", "prepared",
					     "migrated" };
	json_t *a = json_array();

	for (size_t b = 0; a && b < PB_ARRAY_SIZE(names); b++)
		if (flags & (1u << b))
			APPEND(a, json_string(names[b]));
	return a;
}

/* The busiest IPI kinds, {"RES": 12, "CAL": 3}; null without /proc/interrupts. */
static json_t *ipi_kinds_json(const struct pbench_cpu_noise *n, int irq, int *bad)
{
	json_t *o = irq ? json_object() : json_null();

	for (int k = 0; irq && o && k < PBENCH_NOISE_TOP && n->ipi_top[k].count; k++)
		SET(o, n->ipi_top[k].label, unum(n->ipi_top[k].count));
	return o;
}

/* "cpu_window": the CPU's counts over the window, every task's (issue 39). */
static json_t *cpu_window_json(const struct pb_jitter_run *r, int *bad)
{
	const struct pbench_cpu_noise *n = &r->noise;
	int irq = !(n->flags & PBENCH_CPU_NOISE_NO_IRQ);
	int soft = !(n->flags & PBENCH_CPU_NOISE_NO_SOFTIRQ);
	json_t *o = json_object();

	if (!o) {
		*bad = -1;
		return NULL;
	}
	SET(o, "context_switches", r->cpu_sched_ok ? unum(r->cpu_cs) : json_null());
	SET(o, "cpu_migrations", r->cpu_sched_ok ? unum(r->cpu_migrations) : json_null());
	SET(o, "sched_reason", r->cpu_sched_ok ? json_null() :
	    json_string(r->cpu_sched_reason[0] ? r->cpu_sched_reason : "not counted"));
	SET(o, "irq", irq ? unum(n->irq_total) : json_null());
	SET(o, "irq_timer", irq ? unum(n->irq_timer) : json_null());
	SET(o, "irq_ipi", irq ? unum(n->irq_ipi) : json_null());
	SET(o, "irq_other", irq ? unum(n->irq_other) : json_null());
	SET(o, "irq_device", irq ? unum(n->irq_device) : json_null());
	SET(o, "softirq", soft ? unum(n->softirq_total) : json_null());
	SET(o, "irq_ipi_kinds", ipi_kinds_json(n, irq, bad));
	return o;
}

static json_t *cpu_json(const struct pbench_jitter *j, int i, int *bad)
{
	const struct pbench_jitter_cpu *c = cpu_of(j, i);
	json_t *o = json_object();

	if (!o) {
		*bad = -1;
		return NULL;
	}
	SET(o, "cpu", json_integer(c->cpu));
	SET(o, "duration_s", num(c->duration_s));
	SET(o, "threshold_ns", num(c->threshold_ns));
	SET(o, "loops", unum(c->loops));
	SET(o, "loop_ns", json_pack("{s:o, s:o}", "min", num(c->loop_min_ns), "median",
				    num(c->loop_median_ns)));
	SET(o, "interruptions", unum(c->interruptions));
	SET(o, "interruptions_per_s", num(c->interruptions_per_s));
	SET(o, "noise_ns", num(c->noise_ns));
	SET(o, "noise_pct", num(c->noise_pct));
	SET(o, "max_gap_ns", c->interruptions ? num(c->max_gap_ns) : json_null());
	SET(o, "quantiles_ns", json_pack("{s:o, s:o, s:o, s:o}", "p50", num(c->p50_ns), "p90",
					 num(c->p90_ns), "p99", num(c->p99_ns), "p999",
					 num(c->p999_ns)));
	SET(o, "histogram", histogram_json(j, i, bad));
	SET(o, "sources", sources_json(c, bad));
	SET(o, "explained", json_string(c->explained));
	SET(o, "ctx_involuntary", unum(c->ctx_involuntary));
	SET(o, "ctx_voluntary", unum(c->ctx_voluntary));
	SET(o, "cpu_window", cpu_window_json(&j->run[i], bad));
	SET(o, "policy", json_string(pbench_sched_policy_name(c->policy)));
	SET(o, "priority", json_integer(c->priority));
	SET(o, "other_pid", c->other_pid ? json_integer(c->other_pid) : json_null());
	SET(o, "prepared", c->prepared[0] ? json_string(c->prepared) : json_null());
	SET(o, "flags", flags_json(c->flags, bad));
	return o;
}

static json_t *cpus_json(const struct pbench_jitter *j, int *bad)
{
	json_t *a = json_array();

	for (int i = 0; a && i < j->n; i++)
		APPEND(a, cpu_json(j, i, bad));
	return a;
}

int pbench_jitter_write_json(const struct pbench_jitter *j, const struct pbench_jitter *prepared,
			     FILE *f)
{
	json_t *root = json_object();
	int b = 0, *bad = &b, q;

	if (!j || !f || !j->n || (prepared && !prepared->n)) {
		json_decref(root);
		return -EINVAL;
	}
	if (!root)
		return -ENOMEM;
	q = pbench_jitter_quietest(j);
	pb_json_head(root, 1, bad);
	SET(root, "threshold_ns", num(cpu_of(j, 0)->threshold_ns));
	SET(root, "threshold_given", json_boolean(j->threshold_ns > 0));
	SET(root, "duration_s", num(j->duration_s));
	SET(root, "cpus", cpus_json(j, bad));
	SET(root, "quietest_cpu", q >= 0 ? json_integer(q) : json_null());
	if (!prepared) {	/* the same keys in every document: null without --compare-prepared */
		SET(root, "prepared", json_null());
		SET(root, "difference", json_null());
	} else {
		const struct pbench_jitter_cpu *a = cpu_of(j, 0), *p = cpu_of(prepared, 0);

		SET(root, "prepared", json_pack("{s:o}", "cpus", cpus_json(prepared, bad)));
		/* A run stopped early is no basis for a difference. */
		if ((a->flags | p->flags) & PBENCH_JITTER_CPU_STOPPED)
			SET(root, "difference", json_null());
		else
			SET(root, "difference", json_pack("{s:i, s:o, s:o, s:o, s:o}", "cpu", a->cpu,
			"interruptions_per_s", num(p->interruptions_per_s - a->interruptions_per_s),
			"noise_pct", num(p->noise_pct - a->noise_pct),
			"p99_ns", num(p->p99_ns - a->p99_ns),
			"max_gap_ns", num(p->max_gap_ns - a->max_gap_ns)));
	}
	if (b) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, 0, f);
}
