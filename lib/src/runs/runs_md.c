/* SPDX-License-Identifier: MIT */
/*
 * A set of runs as a Markdown table, the one a person pastes into a pull request (as
 * hyperfine's --export-markdown): a row per mode with the mean ± its standard error (± is
 * the SEM in every report), the standard deviation, the median, min and max in one unit,
 * the CV, the spread and the outliers; for the contrast, the verdict below it. Numbers have
 * the digits the deviation supports; what the runs cannot give (the spread of one run) is
 * n/a. And the writers that take the format (pbench_runs_write(), and with stat --annotate's
 * listing pbench_runs_write_annotated()), above the others.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "measure/measure.h"
#include "runs/runs_inner.h"

/* The command as a shell would take it back, or the workload in words. */
static void md_subject(FILE *f, const struct pbench_runs *r)
{
	char buf[512], *big = NULL;
	size_t n;

	if (!r->subject.argv) {
		pb_runs_subject_desc(r, buf, sizeof(buf));
		pb_md_text(f, buf);
		return;
	}
	n = pb_shell_quote(buf, sizeof(buf), r->subject.argv);
	if (n >= sizeof(buf) && (big = malloc(n + 1)))
		pb_shell_quote(big, n + 1, r->subject.argv);
	pb_md_code(f, big ? big : buf);
	free(big);
}

static void md_num(FILE *f, double v, double scale, int decimals)
{
	if (isfinite(v))
		fprintf(f, " %.*f |", decimals, v / scale);
	else
		fprintf(f, " n/a |");
}

/* --metric: what the set was judged on, a line under the table (the Outliers column is its). */
static void md_metric(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	const struct pbench_summary *m = &s->s_mv;

	if (!s->mv)
		return;
	fprintf(f, "\nDecided on `%s` (%s): ", pb_runs_target_name(r), pbench_runs_mode_name(s->mode));
	if (!s->have_mv) {
		fprintf(f, "n/a, not made in any run.\n");
		return;
	}
	{
		const char *u = pb_runs_target_unit(r);
		char med[48], mean[48], min[48], max[48];

		fprintf(f, "%zu runs, median %s, mean %s ± %.2f%% (SEM), min %s, max %s.\n",
			(size_t)m->n, pb_format_figure(med, sizeof(med), m->median, u),
			pb_format_figure(mean, sizeof(mean), m->mean, u),
			m->mean ? 100 * m->sem / fabs(m->mean) : NAN,
			pb_format_figure(min, sizeof(min), m->min, u),
			pb_format_figure(max, sizeof(max), m->max, u));
	}
}

static void md_row(FILE *f, const struct pbench_runs *r, const struct pb_set *s, double scale)
{
	const struct pbench_summary *m = &s->s_ns;
	int d = pb_md_decimals(m->stddev / scale);
	char pct[32];

	fprintf(f, "| ");
	md_subject(f, r);
	fprintf(f, " | %s | %d |", pbench_runs_mode_name(s->mode), s->measured);
	/* ± is the standard error in every report (perf's +-); the deviation has its column */
	if (isfinite(m->sem))
		fprintf(f, " %.*f ± %.*f |", d, m->mean / scale, d, m->sem / scale);
	else
		md_num(f, m->mean, scale, d);
	md_num(f, m->stddev, scale, d);
	md_num(f, m->median, scale, d);
	md_num(f, m->min, scale, d);
	md_num(f, m->max, scale, d);
	fprintf(f, " %s |", pb_format_pct(pct, sizeof(pct), m->cv_pct, -1));
	fprintf(f, " %s |", pb_format_pct(pct, sizeof(pct), m->spread_pct, -1));
	if (s->measured < 2)
		fprintf(f, " n/a |\n");
	else
		fprintf(f, " %d |\n", s->outliers);
}

/* Each event and metric of each set: mean, +- the SEM in % (perf stat's), median, min, max,
 * CV, as a person reads them (a time in its unit: unit "ns"); what was not counted or cannot
 * be made says why. */
static void md_figures(FILE *f, const char *unit, double mean, double sem_pct, double median,
		       double min, double max, double cv_pct)
{
	char b[4][48];

	fprintf(f, " %s |", pb_format_figure(b[0], sizeof(b[0]), mean, unit));
	if (isfinite(sem_pct))
		fprintf(f, " %.2f%% |", sem_pct);
	else
		fprintf(f, " n/a |");
	fprintf(f, " %s | %s | %s |", pb_format_figure(b[1], sizeof(b[1]), median, unit),
		pb_format_figure(b[2], sizeof(b[2]), min, unit),
		pb_format_figure(b[3], sizeof(b[3]), max, unit));
	if (isfinite(cv_pct))
		fprintf(f, " %.2f%% |\n", cv_pct);
	else
		fprintf(f, " n/a |\n");
}

static void md_counters(FILE *f, const struct pbench_runs *r)
{
	if (!r->nr && !pbench_runs_nr_metrics(r))
		return;
	fprintf(f, "\n| Mode | Event or metric | Mean | ± SEM | Median | Min | Max | CV |\n");
	fprintf(f, "|:---|:---|---:|---:|---:|---:|---:|---:|\n");
	for (int s = 0; s < r->nsets; s++) {
		const char *mode = pbench_runs_mode_name(r->sets[s].mode);

		for (int e = 0; e < r->nr; e++) {
			struct pbench_event_summary k = { .size = sizeof(k) };

			if (pbench_runs_event_summary(r, s, e, &k) || !k.counted)
				continue;
			fprintf(f, "| %s | %s |", mode, k.name);
			md_figures(f, k.unit, k.mean, k.sem_pct, k.median, k.min, k.max, k.cv_pct);
		}
		for (int m = 0; m < pbench_runs_nr_metrics(r); m++) {
			struct pbench_metric_summary k = { .size = sizeof(k) };

			if (pbench_runs_metric(r, s, m, &k))
				continue;
			if (k.reason) {
				fprintf(f, "| %s | %s | n/a: ", mode, k.name);
				pb_md_text(f, k.reason);
				fprintf(f, " | | | | | |\n");
				continue;
			}
			fprintf(f, "| %s | %s (%s%s%s) |", mode, k.name, k.label, *k.unit ? ", " : "",
				k.unit);
			md_figures(f, NULL, k.mean, k.sem_pct, k.median, k.min, k.max, k.cv_pct);
		}
	}
}

int pbench_runs_write_markdown(const struct pbench_runs *r, FILE *f)
{
	double least = INFINITY, scale, sr, cr;
	const char *unit;
	char verdict[256];

	if (!r || !f)
		return -EINVAL;
	for (int i = 0; i < r->nsets; i++)
		if (r->sets[i].have_summary && r->sets[i].s_ns.mean < least)
			least = r->sets[i].s_ns.mean;
	scale = pb_md_time_unit(least, &unit);
	fprintf(f, "| Command | Mode | Runs | Mean ± SEM [%s] | SD [%s] | Median [%s] | Min [%s] | "
		"Max [%s] | CV | Spread | Outliers |\n", unit, unit, unit, unit, unit);
	fprintf(f, "|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < r->nsets; i++)
		if (r->sets[i].have_summary)
			md_row(f, r, &r->sets[i], scale);
	for (int i = 0; i < r->nsets; i++)
		md_metric(f, r, &r->sets[i]);
	md_counters(f, r);
	pb_runs_intervals_markdown(r, f);	/* opts.interval_ms: each run over time */
	for (int i = 0; i < r->nsets; i++)
		pb_runs_profile_markdown(r, i, f);	/* opts.profile: where the time went */
	if (pb_runs_contrast(r, &sr, &cr, verdict, sizeof(verdict))) {
		fprintf(f, "\n");
		pb_md_text(f, verdict);
		fprintf(f, "\n");
	}
	if (r->mem && pb_mem_runs_write_markdown(r->mem, r->nr_mem, f))
		return ferror(f) ? pb_stream_end(f) : -EIO;
	return pb_stream_end(f);
}

int pbench_runs_write(const struct pbench_runs *r, int fmt, FILE *f)
{
	switch (fmt) {
	case PBENCH_REPORT_FORMAT_JSON:
		return pbench_runs_write_json(r, f);
	case PBENCH_REPORT_FORMAT_CSV:
		return pbench_runs_write_csv(r, f);
	case PBENCH_REPORT_FORMAT_MARKDOWN:
		return pbench_runs_write_markdown(r, f);
	case PBENCH_REPORT_FORMAT_SVG:
		return pbench_runs_plot_svg(r, f);
	case PBENCH_REPORT_FORMAT_TEXT:
		return pbench_runs_write_text(r, f);
	}
	return pb_fail(-EINVAL, "%s(): no report format %d", __func__, fmt);
}

int pbench_runs_write_annotated(const struct pbench_runs *r, const struct pbench_listing *l,
				const char *name, int fmt, unsigned flags, FILE *f)
{
	int err;

	if (fmt == PBENCH_REPORT_FORMAT_JSON)
		return pbench_runs_write_json_annotated(r, l, f);
	err = fmt == PBENCH_REPORT_FORMAT_TEXT && (flags & PBENCH_RUNS_WRITE_BODY) ?
	      pbench_runs_write_body(r, f) : pbench_runs_write(r, fmt, f);
	if (err || !l || (fmt != PBENCH_REPORT_FORMAT_TEXT && fmt != PBENCH_REPORT_FORMAT_MARKDOWN))
		return err;
	if (fmt == PBENCH_REPORT_FORMAT_MARKDOWN) {
		fputs("\n", f);
		return pbench_listing_write_markdown(l, f);
	}
	name = name ? name : pbench_listing_symbol(l);
	fprintf(f, "\n--annotate %s:\n", name ? name : "the function");
	return pbench_listing_write_text(l, f);
}
