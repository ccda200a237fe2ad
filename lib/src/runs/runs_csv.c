/* SPDX-License-Identifier: MIT */
/*
 * A set of runs as CSV and as SVG. CSV: one line per run of each set, a header naming every
 * column, times in ns and ticks, each event's value (empty when it was not counted: the JSON
 * has the reason), the noise the run saw, and an outlier's cause; RFC 4180 quoting. SVG: each
 * run's time in order and the distributions, through pbench_plot_runs_svg().
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "runs/runs_inner.h"

static void csv_u64(FILE *f, uint64_t v, int known)
{
	if (known)
		fprintf(f, ",%llu", (unsigned long long)v);
	else
		fputc(',', f);
}

static void csv_real(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.17g", v);
	else
		fputc(',', f);
}

/* The run's columns after its events (CSV only appends columns: new ones go at the end). */
#define RUN_COLUMNS ",ctx_involuntary,ctx_voluntary,migrations,minor_faults,major_faults," \
	"not_running_ns,irqs,irq_timer,irq_ipi,irq_device,softirqs,steal_ns,setup_ns," \
	"exec_ns,outlier,cause,speed,ref_before_ns,ref_after_ns"

static void csv_header(FILE *f, const struct pbench_runs *r)
{
	fputs("mode,run,cpu,ticks,ns,exit_status,signal,timed_out", f);
	for (int e = 0; e < r->nr; e++) {
		fputc(',', f);
		pb_csv_text(f, pbench_counters_name(r->self, e));
	}
	fputs(RUN_COLUMNS, f);
	/* appended: each derived metric's value in the run (empty: not made) */
	for (int m = 0; m < pbench_runs_nr_metrics(r); m++) {
		struct pbench_metric_summary ms = { .size = sizeof(ms) };

		pbench_runs_metric(r, 0, m, &ms);
		fprintf(f, ",metric:%s", ms.name);
	}
	/* appended with opts.interval_ms: an interval's line (empty on a run's) */
	if (r->o.interval_ms > 0)
		fputs(",interval,interval_start_ns,interval_partial", f);
	fputc('\n', f);
}

/* The interval lines of run i after its own (opts.interval_ms): mode and run as its line, ns
 * the interval's wall time, each event its count in the interval; the run's other columns
 * empty; then the interval (from 1), its start since the run's start (ns) and 1 for the last,
 * partial one. */
static void csv_intervals(FILE *f, const struct pbench_runs *r, const struct pb_set *s, int i)
{
	const struct pb_run *run = &s->runs[i];
	int empty = pbench_runs_nr_metrics(r);

	for (const char *p = RUN_COLUMNS; *p; p++)
		empty += *p == ',';
	for (int k = 0; k < run->niv; k++) {
		fprintf(f, "%s,%d,,,%llu,,,", pbench_runs_mode_name(s->mode), i + 1,
			(unsigned long long)run->iv[k].ns);
		for (int e = 0; e < r->nr; e++) {
			const struct pbench_count *c = &run->iv_counts[(size_t)k * (size_t)r->nr +
								       (size_t)e];

			if (c->status <= PBENCH_EVENT_MULTIPLEXED)
				csv_real(f, c->scaled);
			else
				fputc(',', f);
		}
		for (int c = 0; c < empty; c++)
			fputc(',', f);
		fprintf(f, ",%d,%llu,%d\n", k + 1, (unsigned long long)run->iv[k].start_ns,
			run->iv[k].partial);
	}
}

static void csv_run(FILE *f, const struct pbench_runs *r, const struct pb_set *s, int i)
{
	const struct pb_run *run = &s->runs[i];
	const struct pbench_cpu_noise *c = &run->cpu_noise;
	int cn = run->have_cpu_noise, irq = cn && !(c->flags & PBENCH_CPU_NOISE_NO_IRQ);
	int cmd = r->subject.argv != NULL;

	fprintf(f, "%s,%d,%d,%llu,%llu", pbench_runs_mode_name(s->mode), i + 1, run->cpu,
		(unsigned long long)run->ticks, (unsigned long long)run->ns);
	csv_u64(f, (uint64_t)run->exit_status, run->exited);
	csv_u64(f, (uint64_t)run->term_signal, run->signaled);
	fprintf(f, ",%d", run->timed_out);
	for (int e = 0; e < r->nr; e++) {
		const struct pbench_count *k = &run->counts[e];

		if (k->status <= PBENCH_EVENT_MULTIPLEXED)
			csv_real(f, k->scaled);
		else
			fputc(',', f);
	}
	csv_u64(f, run->noise.ctx_involuntary, 1);
	csv_u64(f, run->noise.ctx_voluntary, 1);
	csv_u64(f, run->noise.migrations, run->have_migrations);
	csv_u64(f, run->noise.minor_faults, 1);
	csv_u64(f, run->noise.major_faults, 1);
	csv_real(f, run->noise.not_running_ns);
	csv_u64(f, c->irq_total, irq);
	csv_u64(f, c->irq_timer, irq);
	csv_u64(f, c->irq_ipi, irq);
	csv_u64(f, c->irq_device, irq);
	csv_u64(f, c->softirq_total, cn && !(c->flags & PBENCH_CPU_NOISE_NO_SOFTIRQ));
	csv_real(f, cn ? c->steal_ns : NAN);
	csv_u64(f, run->setup_ns, cmd && run->setup_ns);
	csv_u64(f, run->exec_ns, cmd && run->exec_ns);
	fprintf(f, ",%d,", run->outlier);
	pb_csv_text(f, run->outlier && run->cause ? run->cause : "");
	csv_real(f, run->speed);
	csv_real(f, run->ref_before_ns);
	csv_real(f, run->ref_after_ns);
	for (int m = 0; m < pbench_runs_nr_metrics(r); m++) {
		struct pbench_metric_summary ms = { .size = sizeof(ms) };
		double v = NAN;

		pbench_runs_metric(r, 0, m, &ms);
		if (pbench_runs_values(r, (int)(s - r->sets), ms.name, NULL, 0) > i) {
			double *all = calloc((size_t)s->done, sizeof(*all));

			if (all && pbench_runs_values(r, (int)(s - r->sets), ms.name, all,
						      s->done) > i)
				v = all[i];
			free(all);
		}
		csv_real(f, v);
	}
	if (r->o.interval_ms > 0)
		fputs(",,,", f);
	fputc('\n', f);
	if (r->o.interval_ms > 0)
		csv_intervals(f, r, s, i);
}

int pbench_runs_write_csv(const struct pbench_runs *r, FILE *f)
{
	if (!r || !f)
		return -EINVAL;
	csv_header(f, r);
	for (int s = 0; s < r->nsets; s++)
		for (int i = 0; i < r->sets[s].done; i++)
			csv_run(f, r, &r->sets[s], i);
	for (int s = 0; s < r->nsets; s++)
		pb_runs_profile_csv(r, s, f);	/* opts.profile: a section of its own */
	return pb_stream_end(f);
}

/* ---- the plot ------------------------------------------------------------------------------- */

/* Unprepared in orange, prepared in blue, whichever is shown. */
static const char *const set_color[] = { "#d95f02", "#1f6fb4" };

static void plot_title(const struct pbench_runs *r, char *title, size_t len)
{
	if (r->subject.argv) {
		size_t off = (size_t)snprintf(title, len, "pbench stat:");

		for (char **a = r->subject.argv; *a && off < len; a++)
			off += (size_t)snprintf(title + off, len - off, " %s", *a);
	} else {
		char wl[128];

		pb_runs_subject_desc(r, wl, sizeof(wl));
		snprintf(title, len, "pbench stat: %s, %s", wl, pbench_runs_mode_name(r->o.mode));
	}
}

int pbench_runs_plot_svg(const struct pbench_runs *r, FILE *f)
{
	struct pbench_plot_series ser[2];
	const struct pbench_plot_series *sp[2] = { &ser[0], &ser[1] };
	double *ns[2] = { 0 };
	unsigned char *out[2] = { 0 };
	const char **cause[2] = { 0 };
	char names[2][64], title[512];
	int err = -ENOMEM;

	if (!r || !f)
		return -EINVAL;
	/* opts.interval_ms: the runs over their time instead */
	if (r->o.interval_ms > 0)
		return pb_runs_intervals_svg(r, f);
	for (int i = 0; i < r->nsets; i++) {
		const struct pb_set *s = &r->sets[i];
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
		if (s->mode == PBENCH_RUNS_PREPARED && s->prepared)
			snprintf(names[i], sizeof(names[i]), "prepared, CPU %d", s->cpu);
		else
			snprintf(names[i], sizeof(names[i]), "%s", pbench_runs_mode_name(s->mode));
		ser[i] = (struct pbench_plot_series){ .size = sizeof(ser[i]), .name = names[i],
			.color = set_color[s->mode == PBENCH_RUNS_PREPARED], .ns = ns[i], .n = n,
			.outlier = out[i], .cause = cause[i] };
	}
	plot_title(r, title, sizeof(title));
	err = pbench_plot_runs_svg(sp, r->nsets, f, title);
out:
	for (int i = 0; i < 2; i++) {
		free(ns[i]);
		free(out[i]);
		free(cause[i]);
	}
	return err;
}
