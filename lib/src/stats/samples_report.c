/* SPDX-License-Identifier: MIT */
/*
 * What pbench analyze reports of samples read from files (samples.c): each set's summary and
 * the first set against each other one (Welch, Mann-Whitney, the ratio of the means and the
 * verdict of pbench_stats_verdict()), in JSON and Markdown, and the comparisons' text (the
 * summaries' text, on measure's pbench_summary_write_text(), is measure/samples_text.c's). A
 * difference reads as a factor ("1.99x faster"), never as a percentage of the other time, and
 * in pbench's one direction (kmod-free-docs/statistics.md): each set against the first, the
 * ratio time of b / time of a, "b is 1.99x slower than a", as pbench compare says it. The JSON
 * keeps its older a-against-b fields (ratio, verdict, welch_t) beside ratio_b_to_a and
 * verdict_b.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "stats/samples_inner.h"

static int compare_pair(struct pbench_samples *s, int a, int b, struct pb_samples_cmp *c,
			char *why, size_t wlen)
{
	struct pbench_stats_opts co = { .size = sizeof(co), .ci_level = s->confidence };
	const struct sample_set *x = &s->v[a], *y = &s->v[b];
	int err;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->w.size = sizeof(c->w);
	c->wb.size = sizeof(c->wb);
	c->m.size = sizeof(c->m);
	if ((x->unit || y->unit) && (!x->unit || !y->unit || strcmp(x->unit, y->unit))) {
		c->tested = -1;	/* ns against plain numbers, or two labels: not comparable */
		return 0;
	}
	if (x->n < 2 || y->n < 2) {
		c->tested = -2;	/* compare.py's rule too: 2 repetitions a side for its U test */
		return 0;
	}
	err = pbench_stats_welch(x->x, x->n, y->x, y->n, &co, &c->w);
	if (err == -EINVAL)
		return 0;	/* both constant: said in words, not as a test */
	if (!err)
		err = pbench_stats_welch(y->x, y->n, x->x, x->n, &co, &c->wb);
	if (!err)
		err = pbench_stats_mann_whitney(x->x, x->n, y->x, y->n, &c->m);
	if (err) {
		snprintf(why, wlen, "cannot compare '%s' with '%s': %s", x->name, y->name,
			 pbench_strerror(err));
		return err;
	}
	c->tested = 1;
	return 0;
}

static int summarize(struct pbench_samples *s, char *why, size_t wlen)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.95 };

	for (int i = 0; i < s->n; i++) {
		int err;

		s->sums[i].size = sizeof(s->sums[i]);
		err = pbench_stats_summary(s->v[i].x, s->v[i].n, &so, &s->sums[i]);
		if (err) {
			snprintf(why, wlen, "%s: cannot summarize: %s", s->v[i].name,
				 pbench_strerror(err));
			return err;
		}
	}
	return 0;
}

/* Two inputs of Google Benchmark's benchmarks: each benchmark against its namesake in the
 * other file, as compare.py pairs them, not the first against every other. */
static int by_name(const struct pbench_samples *s)
{
	if (s->inputs != 2)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (!s->v[i].gbench)
			return 0;
	return 1;
}

static int find_in(const struct pbench_samples *s, int input, const char *name)
{
	for (int k = 0; k < s->n; k++)
		if (s->v[k].input == input && !strcmp(s->v[k].name, name))
			return k;
	return -1;
}

/* "only in FILE: 'x', 'y'": the benchmarks of one file that the other lacks, appended. */
static int say_unpaired(struct pbench_samples *s, int input, const char *file)
{
	char *text = NULL;
	int any = 0;

	for (int k = 0; k < s->n; k++) {
		char *more = NULL;

		if (s->v[k].input != input || find_in(s, !input, s->v[k].name) >= 0)
			continue;
		if (asprintf(&more, "%s%s%s'%s'", text ? text : "", any ? ", " : "",
			     any ? "" : file, s->v[k].name) < 0) {
			free(text);
			return -ENOMEM;
		}
		free(text);
		text = more;
		any = 1;
	}
	if (text) {
		char *all = NULL;

		if (asprintf(&all, "%s%s%s", s->unpaired ? s->unpaired : "",
			     s->unpaired ? "; " : "", text) < 0)
			all = NULL;
		free(text);
		if (!all)
			return -ENOMEM;
		free(s->unpaired);
		s->unpaired = all;
	}
	return 0;
}

static int pair_by_name(struct pbench_samples *s, char *why, size_t wlen)
{
	int err = 0;

	for (int a = 0; !err && a < s->n; a++) {
		int b = s->v[a].input ? -1 : find_in(s, 1, s->v[a].name);

		if (b >= 0 && !(err = compare_pair(s, a, b, &s->cmps[s->ncmp], why, wlen)))
			s->ncmp++;
	}
	if (!err)
		err = say_unpaired(s, 0, "only in the first file: ");
	if (!err)
		err = say_unpaired(s, 1, "only in the second file: ");
	if (err == -ENOMEM)
		snprintf(why, wlen, "out of memory");
	return err;
}

static int analyze(struct pbench_samples *s, double confidence, double same_pct, char *why,
		   size_t wlen)
{
	size_t one;
	int err;

	*why = 0;
	if (!s || !(confidence > 0 && confidence < 1) || !(same_pct >= 0)) {
		snprintf(why, wlen, "confidence must be between 0 and 1, same_pct 0 or more");
		return -EINVAL;
	}
	if (!s->n) {
		snprintf(why, wlen, "no samples to analyze");
		return -ENODATA;
	}
	/* One set of one value and nothing else: nothing to summarize or compare. A value among
	 * other sets (one repetition of a Google Benchmark benchmark) is compared by its ratio. */
	if (s->n == 1 && pbench_samples_values(s, 0, &one) && one == 1) {
		snprintf(why, wlen, "%s: a single sample: nothing to summarize (need 2 or more)",
			 pbench_samples_name(s, 0));
		return -EINVAL;
	}
	free(s->sums);
	free(s->cmps);
	s->analyzed = s->ncmp = 0;
	s->confidence = confidence;
	s->same_pct = same_pct;
	s->sums = calloc((size_t)s->n, sizeof(*s->sums));
	s->cmps = calloc((size_t)s->n, sizeof(*s->cmps));
	if (!s->sums || !s->cmps) {
		snprintf(why, wlen, "out of memory for %d inputs", s->n);
		return -ENOMEM;
	}
	free(s->unpaired);
	s->unpaired = NULL;
	err = summarize(s, why, wlen);
	if (!err && by_name(s))
		err = pair_by_name(s, why, wlen);
	else
		for (int b = 1; !err && b < s->n; b++, s->ncmp++)
			err = compare_pair(s, 0, b, &s->cmps[s->ncmp], why, wlen);
	if (!err)
		s->analyzed = s->n;
	return err;
}

int pbench_samples_summary(const struct pbench_samples *s, int i, struct pbench_summary *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_summary, 0, NULL)))
		return err;
	if (!s || i < 0 || i >= s->analyzed)
		return pb_fail(-EINVAL, "%s(): no analyzed column %d", __func__, i);
	pb_copy_out(out, &s->sums[i], sizeof(s->sums[i]));
	return 0;
}

static const char *verdict_of(const struct pbench_samples *s, const struct pb_samples_cmp *c)
{
	return pbench_verdict_name(pbench_stats_verdict(&c->w, s->confidence, s->same_pct, 0));
}

/* b against a: the same decision, said of b ("faster" when b is). */
static const char *verdict_b_of(const struct pbench_samples *s, const struct pb_samples_cmp *c)
{
	const char *v = verdict_of(s, c);

	return !strcmp(v, "faster") ? "slower" : !strcmp(v, "slower") ? "faster" : v;
}

/* A set's name in a comparison's sentences: "BM_B (new.json)" when both sides have one name
 * (a benchmark against its namesake, one command in two files), so the sentence says which. */
static const char *side_name(const struct pbench_samples *s, const struct pb_samples_cmp *c,
			     int i, char *buf, size_t len)
{
	const struct sample_set *x = &s->v[c->a], *y = &s->v[c->b];

	if (strcmp(x->name, y->name) || !x->origin || !y->origin || !strcmp(x->origin, y->origin))
		return s->v[i].name;
	snprintf(buf, len, "%s (%s)", s->v[i].name, s->v[i].origin);
	return buf;
}

/* The point estimate of b/a, known whenever both means are (one value a side, both constant):
 * the text and the JSON both give it; NaN with a mean of 0 or an untested pair of units. */
static double ratio_b_a(const struct pbench_samples *s, const struct pb_samples_cmp *c)
{
	double ma = s->sums[c->a].mean, mb = s->sums[c->b].mean;

	if (c->tested > 0)
		return c->wb.ratio;
	return c->tested == -1 || !(ma > 0) || !isfinite(mb) ? NAN : mb / ma;
}

/* Google Benchmark's rows in another time unit in one file than in the other: read in ns,
 * said, so a factor of 1000 is not taken for the code's. */
static void write_units(const struct pbench_samples *s, const struct pb_samples_cmp *c, FILE *f)
{
	const struct sample_set *x = &s->v[c->a], *y = &s->v[c->b];
	int files = x->origin && y->origin && strcmp(x->origin, y->origin);

	if (!x->given_unit || !y->given_unit || !strcmp(x->given_unit, y->given_unit))
		return;
	fprintf(f, "  time units      %s in %s, %s in %s: both converted to ns before comparing\n",
		x->given_unit, files ? x->origin : x->name, y->given_unit,
		files ? y->origin : y->name);
}

static void write_comparison(const struct pbench_samples *s, const struct pb_samples_cmp *c,
			     FILE *f)
{
	char na[320], nb[320];
	const char *a = side_name(s, c, c->a, na, sizeof(na));
	const char *b = side_name(s, c, c->b, nb, sizeof(nb)), *v;
	double level = s->confidence * 100;
	char x[32];

	fprintf(f, "\n%s vs %s:\n", a, b);
	write_units(s, c, f);
	if (c->tested == -2) {
		fprintf(f, "verdict: not tested: %zu against %zu value%s (a test needs 2 a side: "
			"take more repetitions); b/a is %.6g, the ratio of the %s, with no interval\n",
			s->v[c->a].n, s->v[c->b].n, s->v[c->b].n == 1 ? "" : "s", ratio_b_a(s, c),
			s->v[c->a].n == 1 && s->v[c->b].n == 1 ? "two values" : "means");
		return;
	}
	if (c->tested < 0) {
		fprintf(f, "verdict: not compared: %s is in %s, %s in %s; read both in one unit "
			"(-u names the unit of plain numbers)\n", a, s->v[c->a].unit ? s->v[c->a].unit :
			"plain numbers", b, s->v[c->b].unit ? s->v[c->b].unit : "plain numbers");
		return;
	}
	if (!c->tested) {
		double ma = s->sums[c->a].mean, mb = s->sums[c->b].mean;

		if (ma == mb)
			fprintf(f, "verdict: same: both are constant and equal (every sample %.6g)\n",
				ma);
		else
			fprintf(f, "verdict: both are constant (every sample %.6g against %.6g): no "
				"spread to test a difference by; b/a is %.6g\n", ma, mb,
				ratio_b_a(s, c));
		return;
	}
	v = verdict_b_of(s, c);
	fprintf(f, "  ratio b/a       %.4f (%.1f%% interval %.4f .. %.4f; the mean of %s over "
		"the mean of %s)\n", c->wb.ratio, level, c->wb.ratio_lo, c->wb.ratio_hi, b, a);
	fprintf(f, "  Welch           t = %.3f, df = %.1f, p = %.3g\n", c->wb.t, c->wb.df,
		c->wb.p);
	if (isnan(c->m.z))
		fprintf(f, "  Mann-Whitney    U = %.1f, p = %.4g (exact)\n", c->m.u, c->m.p);
	else
		fprintf(f, "  Mann-Whitney    U = %.1f, z = %.3f, p = %.3g\n", c->m.u, c->m.z,
			c->m.p);
	if (!strcmp(v, "faster") || !strcmp(v, "slower"))
		fprintf(f, "verdict: %s is %s %s than %s (significant at %.1f%%)\n", b,
			pb_format_factor(x, sizeof(x), !strcmp(v, "faster") ? 1 / c->wb.ratio :
					 c->wb.ratio), v, a, level);
	else if (!strcmp(v, "same"))
		fprintf(f, "verdict: same: the ratio's interval lies within %g%% of 1\n",
			s->same_pct);
	else
		fprintf(f, "verdict: undecided: neither a significant difference nor within %g%%; "
			"take more samples\n", s->same_pct);
}

/* The comparisons' text (pbench_samples_write_text() after the summaries), their lines 2
 * columns further in than they start. */
void pb_samples_write_comparisons(const struct pbench_samples *s, int width, FILE *f)
{
	struct pb_line l;
	FILE *g = pb_line_open(&l, f, width, PB_HANG(2));

	for (int i = 0; i < s->ncmp; i++)
		write_comparison(s, &s->cmps[i], g);
	if (s->unpaired)
		fprintf(g, "\nnot compared, %s\n", s->unpaired);
	pb_line_close(&l);
}

int pb_samples_analyzed(const struct pbench_samples *s)
{
	return s ? s->analyzed : 0;
}

size_t pb_samples_left_out(const struct pbench_samples *s, int i)
{
	return s->v[i].left_out;
}

static json_t *set_json(const struct pbench_samples *s, int i, int *bad)
{
	const struct sample_set *set = &s->v[i];
	int ns = set->unit && !strcmp(set->unit, "ns");
	json_t *j = json_object(), *x = json_array(), *sum;

	SET(j, "name", json_string(set->name));
	SET(j, "unit", set->unit ? json_string(set->unit) : json_null());
	/* the summary in its own block, as in every document (stat's modes[].summary...) */
	sum = pb_json_summary(&s->sums[i], ns ? "_ns" : "", bad);
	SET(j, "summary", sum);
	for (size_t k = 0; k < set->n; k++)
		APPEND(x, num(set->x[k]));
	SET(j, "samples", x);
	return j;
}

static json_t *comparison_json(const struct pbench_samples *s, const struct pb_samples_cmp *c,
			       int *bad)
{
	const struct pbench_welch *w = &c->w;
	const struct sample_set *x = &s->v[c->a], *y = &s->v[c->b];
	int t = c->tested > 0;
	double r = ratio_b_a(s, c);	/* the point estimate, known untested too */
	json_t *j = json_object();

	SET(j, "a", json_string(x->name));
	SET(j, "b", json_string(y->name));
	SET(j, "a_input", x->origin ? json_string(x->origin) : json_null());
	SET(j, "b_input", y->origin ? json_string(y->origin) : json_null());
	SET(j, "a_time_unit", x->given_unit ? json_string(x->given_unit) : json_null());
	SET(j, "b_time_unit", y->given_unit ? json_string(y->given_unit) : json_null());
	SET(j, "confidence", json_real(s->confidence));
	SET(j, "ratio", t ? num(w->ratio) : isfinite(r) && r > 0 ? num(1 / r) : json_null());
	SET(j, "ratio_lo", t ? num(w->ratio_lo) : json_null());
	SET(j, "ratio_hi", t ? num(w->ratio_hi) : json_null());
	SET(j, "welch_t", t ? num(w->t) : json_null());
	SET(j, "welch_df", t ? num(w->df) : json_null());
	SET(j, "welch_p", t ? num(w->p) : json_null());
	SET(j, "mann_whitney_u", t ? num(c->m.u) : json_null());
	SET(j, "mann_whitney_p", t ? num(c->m.p) : json_null());
	SET(j, "verdict", json_string(t ? verdict_of(s, c) : c->tested == -2 ? "too_few" :
				      c->tested ? "units_differ" : "constant"));
	SET(j, "ratio_b_to_a", isfinite(r) ? num(r) : json_null());
	SET(j, "ratio_b_to_a_lo", t ? num(c->wb.ratio_lo) : json_null());
	SET(j, "ratio_b_to_a_hi", t ? num(c->wb.ratio_hi) : json_null());
	SET(j, "verdict_b", json_string(t ? verdict_b_of(s, c) : c->tested == -2 ? "too_few" :
					c->tested ? "units_differ" : "constant"));
	return j;
}

int pbench_samples_write_json(const struct pbench_samples *s, FILE *f)
{
	json_t *root, *inputs, *cmps;
	int b = 0, *bad = &b;

	if (!s || !f || !s->analyzed)
		return -EINVAL;
	root = json_object();
	inputs = json_array();
	cmps = json_array();
	if (root)
		pb_json_head(root, 0, bad);
	for (int i = 0; i < s->analyzed; i++)
		APPEND(inputs, set_json(s, i, bad));
	for (int i = 0; i < s->ncmp; i++)
		APPEND(cmps, comparison_json(s, &s->cmps[i], bad));
	SET(root, "inputs", inputs);
	SET(root, "comparisons", cmps);
	return pb_json_dump(root, b, f);
}

/* ---- Markdown -------------------------------------------------------------------------------- */

/* One unit for the table when every set is a time (scaled by the least mean), or when every
 * set has the same label: 1 with scale and name; 0 when the sets' units differ. */
static int md_unit(const struct pbench_samples *s, double *scale, const char **name)
{
	const char *u0 = s->v[0].unit;
	double least = INFINITY;

	for (int i = 0; i < s->analyzed; i++) {
		const char *u = s->v[i].unit;

		if ((u0 == NULL) != (u == NULL) || (u && strcmp(u, u0)))
			return 0;
		if (s->sums[i].mean < least)
			least = s->sums[i].mean;
	}
	*scale = 1;
	*name = u0;
	if (u0 && !strcmp(u0, "ns"))
		*scale = pb_md_time_unit(least, name);
	return 1;
}

/* A number in the table's unit (scale), with the decimals the standard deviation sd supports,
 * or with its own unit when the sets' units differ (scale 0); err finite: "mean ± err" (the
 * SEM: ± is the standard error in every report). */
static void md_cell(FILE *f, double v, double err, double sd, double scale, const char *unit)
{
	char buf[96];

	if (!scale) {
		pbench_format_value(buf, sizeof(buf), v, err, unit);
		fprintf(f, " %s |", buf);
	} else if (!isfinite(v)) {
		fprintf(f, " n/a |");
	} else {
		int d = pb_md_decimals(sd / scale);

		if (isfinite(err))
			fprintf(f, " %.*f ± %.*f |", d, v / scale, d, err / scale);
		else
			fprintf(f, " %.*f |", d, v / scale);
	}
}

/* Set i against the first: "1.99x slower (b/a 1.99, 1.968 .. 2.012)". */
static void md_versus(FILE *f, const struct pbench_samples *s, int i)
{
	const struct pb_samples_cmp *c = NULL;
	const char *v;
	char x[32];

	for (int k = 0; k < s->ncmp; k++)
		if (s->cmps[k].b == i)
			c = &s->cmps[k];
	if (!c) {	/* a first, or a benchmark only in one of two files */
		fprintf(f, " %s |\n", i == 0 || s->v[i].input == 0 ? "1" : "not compared");
		return;
	}
	if (c->tested <= 0) {
		fprintf(f, " %s", c->tested == -2 ? "one value: not tested" : c->tested ?
			"units differ: not compared" : "both constant");
		if (isfinite(ratio_b_a(s, c)))
			fprintf(f, " (b/a %.4g)", ratio_b_a(s, c));
		fprintf(f, " |\n");
		return;
	}
	v = verdict_b_of(s, c);
	if (!strcmp(v, "faster") || !strcmp(v, "slower"))
		fprintf(f, " %s %s", pb_format_factor(x, sizeof(x), !strcmp(v, "faster") ?
						      1 / c->wb.ratio : c->wb.ratio), v);
	else
		fprintf(f, " %s", v);
	{	/* figures a person reads: 4,733,000, never 4.733e+06 */
		char r[48], lo[48], hi[48];

		fprintf(f, " (b/a %s, %s .. %s) |\n",
			pb_format_figure(r, sizeof(r), c->wb.ratio, NULL),
			pb_format_figure(lo, sizeof(lo), c->wb.ratio_lo, NULL),
			pb_format_figure(hi, sizeof(hi), c->wb.ratio_hi, NULL));
	}
}

int pbench_samples_write_markdown(const struct pbench_samples *s, FILE *f)
{
	const char *unit = NULL;
	double scale = 0;
	char u[40] = "", pct[32];

	if (!s || !f || !s->analyzed)
		return -EINVAL;
	if (md_unit(s, &scale, &unit) && unit)
		snprintf(u, sizeof(u), " [%s]", unit);
	fprintf(f, "| Input | N | Mean ± SEM%s | SD%s | Median%s | Min%s | Max%s | CV | This vs first "
		"(%.1f%%) |\n", u, u, u, u, u, s->confidence * 100);
	fprintf(f, "|:---|---:|---:|---:|---:|---:|---:|---:|:---|\n");
	for (int i = 0; i < s->analyzed; i++) {
		const struct pbench_summary *m = &s->sums[i];

		fprintf(f, "| ");
		pb_md_code(f, s->v[i].name);
		fprintf(f, " | %zu |", m->n);
		md_cell(f, m->mean, m->sem, m->stddev, scale, s->v[i].unit);
		md_cell(f, m->stddev, NAN, m->stddev, scale, s->v[i].unit);
		md_cell(f, m->median, NAN, m->stddev, scale, s->v[i].unit);
		md_cell(f, m->min, NAN, m->stddev, scale, s->v[i].unit);
		md_cell(f, m->max, NAN, m->stddev, scale, s->v[i].unit);
		fprintf(f, " %s |", pb_format_pct(pct, sizeof(pct), m->cv_pct, -1));
		md_versus(f, s, i);
	}
	return pb_stream_end(f);
}

int pbench_samples_analyze(struct pbench_samples *s, double confidence, double same_pct)
{
	char why[512] = "";	/* as pbench analyze said them */

	pb_fail_clear();
	return pb_samples_said(analyze(s, confidence, same_pct, why, sizeof(why)), why);
}
