/* SPDX-License-Identifier: MIT */
/*
 * Reports of samples read from files: what pbench analyze prints, as text, JSON and Markdown.
 * Each set gets the summary (95% intervals); the first set is compared with each other one
 * (Welch's t-test, Mann-Whitney U, the ratio of the means with its interval at 99.9%, and
 * pbench's verdict rule with "same" within 1%). Two sets that are both constant get a
 * sentence, not a test.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "jsonutil.h"

#define CONFIDENCE 0.999
#define SAME_PCT 1.0

/* The first set against set b. */
struct cmp {
	int b;
	int tested;			/* 0: both constant, no test */
	struct pbench_welch w;
	struct pbench_mann_whitney m;
};

struct analysis {
	const struct pbench_samples *in;
	int nr;
	struct pbench_summary *sums;
	struct cmp *cmps;		/* nr - 1 of them */
};

static void analysis_free(struct analysis *a)
{
	free(a->sums);
	free(a->cmps);
}

static int compare(const struct pbench_samples *in, int b, struct cmp *c)
{
	struct pbench_stats_opts co = { .size = sizeof(co), .ci_level = CONFIDENCE };
	size_t na, nb;
	const double *xa = pbench_samples_values(in, 0, &na), *xb = pbench_samples_values(in, b, &nb);
	int err;

	c->b = b;
	c->w.size = sizeof(c->w);
	c->m.size = sizeof(c->m);
	err = pbench_stats_welch(xa, na, xb, nb, &co, &c->w);
	if (err == -EINVAL && na > 1 && nb > 1)
		return 0;	/* both constant: said in words, not as a test */
	if (!err)
		err = pbench_stats_mann_whitney(xa, na, xb, nb, &c->m);
	c->tested = !err;
	return err;
}

/* Each set's summary, and the first set against each other one. */
static int analysis_make(const struct pbench_samples *in, struct analysis *a)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.95 };
	int err = 0;

	memset(a, 0, sizeof(*a));
	a->in = in;
	a->nr = pbench_samples_nr(in);
	if (a->nr < 1)
		return -ENODATA;
	a->sums = calloc((size_t)a->nr, sizeof(*a->sums));
	a->cmps = calloc((size_t)a->nr, sizeof(*a->cmps));
	if (!a->sums || !a->cmps) {
		analysis_free(a);
		return -ENOMEM;
	}
	for (int i = 0; !err && i < a->nr; i++) {
		size_t n;
		const double *x = pbench_samples_values(in, i, &n);

		a->sums[i].size = sizeof(a->sums[i]);
		err = pbench_stats_summary(x, n, &so, &a->sums[i]);
	}
	for (int i = 1; !err && i < a->nr; i++)
		err = compare(in, i, &a->cmps[i - 1]);
	if (err)
		analysis_free(a);
	return err;
}

static const char *verdict_of(const struct cmp *c)
{
	if (!c->tested)
		return "constant";
	return pbench_verdict_name(pbench_stats_verdict(&c->w, CONFIDENCE, SAME_PCT, 0));
}

/* ---- text ------------------------------------------------------------------------------------ */

static void text_comparison(const struct analysis *an, const struct cmp *c, FILE *f)
{
	const char *a = pbench_samples_name(an->in, 0), *b = pbench_samples_name(an->in, c->b);
	const struct pbench_welch *w = &c->w;
	const char *v = verdict_of(c);
	char x[32];

	fprintf(f, "\n%s vs %s:\n", a, b);
	if (!c->tested) {
		double ma = an->sums[0].mean, mb = an->sums[c->b].mean;

		if (ma == mb)
			fprintf(f, "verdict: same: both are constant and equal (every sample %.6g)\n",
				ma);
		else
			fprintf(f, "verdict: both are constant (every sample %.6g against %.6g): no "
				"spread to test a difference by; a/b is %.6g\n", ma, mb,
				mb ? ma / mb : NAN);
		return;
	}
	fprintf(f, "  ratio of means  %.4f (%.1f%% interval %.4f .. %.4f)\n", w->ratio,
		CONFIDENCE * 100, w->ratio_lo, w->ratio_hi);
	fprintf(f, "  Welch           t = %.3f, df = %.1f, p = %.3g\n", w->t, w->df, w->p);
	fprintf(f, "  Mann-Whitney    U = %.1f, z = %.3f, p = %.3g\n", c->m.u, c->m.z, c->m.p);
	if (!strcmp(v, "faster") || !strcmp(v, "slower"))
		fprintf(f, "verdict: %s is %s %s than %s (significant at %.1f%%)\n", a,
			pb_format_factor(x, sizeof(x), !strcmp(v, "faster") ? 1 / w->ratio : w->ratio),
			v, b, CONFIDENCE * 100);
	else if (!strcmp(v, "same"))
		fprintf(f, "verdict: same: the ratio's interval lies within %g%% of 1\n", SAME_PCT);
	else
		fprintf(f, "verdict: undecided: neither a significant difference nor within %g%%; "
			"take more samples\n", SAME_PCT);
}

int pbench_samples_write_text(const struct pbench_samples *s, FILE *f)
{
	struct analysis an;
	int err;

	if (!s || !f)
		return -EINVAL;
	err = analysis_make(s, &an);
	if (err)
		return err;
	for (int i = 0; i < an.nr; i++) {
		if (i)
			fprintf(f, "\n");
		pbench_summary_write_text(&an.sums[i], f, pbench_samples_name(s, i),
					  pbench_samples_unit(s, i));
	}
	for (int i = 0; i < an.nr - 1; i++)
		text_comparison(&an, &an.cmps[i], f);
	analysis_free(&an);
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static json_t *input_json(const struct analysis *an, int i, int *bad)
{
	const char *unit = pbench_samples_unit(an->in, i);
	json_t *j = json_object(), *x = json_array();
	const double *v;
	size_t n;

	if (!j || !x) {
		json_decref(j);
		json_decref(x);
		*bad = -1;
		return NULL;
	}
	SET(j, "name", json_string(pbench_samples_name(an->in, i)));
	SET(j, "unit", unit ? json_string(unit) : json_null());
	SET(j, "summary", pb_json_summary(&an->sums[i], unit, bad));
	v = pbench_samples_values(an->in, i, &n);
	for (size_t k = 0; k < n; k++)
		APPEND(x, num(v[k]));
	SET(j, "samples", x);
	return j;
}

static json_t *comparison_json(const struct analysis *an, const struct cmp *c, int *bad)
{
	json_t *j = json_object();
	const struct pbench_welch *w = &c->w;
	int t = c->tested;

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "a", json_string(pbench_samples_name(an->in, 0)));
	SET(j, "b", json_string(pbench_samples_name(an->in, c->b)));
	SET(j, "confidence", json_real(CONFIDENCE));
	SET(j, "ratio", t ? num(w->ratio) : json_null());
	SET(j, "ratio_lo", t ? num(w->ratio_lo) : json_null());
	SET(j, "ratio_hi", t ? num(w->ratio_hi) : json_null());
	SET(j, "welch_t", t ? num(w->t) : json_null());
	SET(j, "welch_df", t ? num(w->df) : json_null());
	SET(j, "welch_p", t ? num(w->p) : json_null());
	SET(j, "mann_whitney_u", t ? num(c->m.u) : json_null());
	SET(j, "mann_whitney_p", t ? num(c->m.p) : json_null());
	SET(j, "verdict", json_string(verdict_of(c)));
	return j;
}

int pbench_samples_write_json(const struct pbench_samples *s, FILE *f)
{
	json_t *root, *inputs, *cmps;
	struct analysis an;
	int err, b = 0, *bad = &b;

	if (!s || !f)
		return -EINVAL;
	err = analysis_make(s, &an);
	if (err)
		return err;
	root = json_object();
	inputs = json_array();
	cmps = json_array();
	if (root && inputs && cmps) {
		pb_json_head_doc(root, bad);
		for (int i = 0; i < an.nr; i++)
			APPEND(inputs, input_json(&an, i, bad));
		for (int i = 0; i < an.nr - 1; i++)
			APPEND(cmps, comparison_json(&an, &an.cmps[i], bad));
	} else {
		b = 1;
	}
	analysis_free(&an);
	SET(root, "inputs", inputs);
	SET(root, "comparisons", cmps);
	if (b) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, f);
}

/* ---- Markdown -------------------------------------------------------------------------------- */

/* One unit for the table when every set is a time (scaled by the least mean), or when every
 * set has the same label: then scale is set and name is that unit. */
static int md_unit(const struct analysis *an, double *scale, const char **name)
{
	const char *u0 = pbench_samples_unit(an->in, 0);
	double least = INFINITY;

	for (int i = 0; i < an->nr; i++) {
		const char *u = pbench_samples_unit(an->in, i);

		if ((u0 == NULL) != (u == NULL) || (u && strcmp(u, u0)))
			return 0;
		if (an->sums[i].mean < least)
			least = an->sums[i].mean;
	}
	*scale = 1;
	*name = u0;
	if (u0 && !strcmp(u0, "ns"))
		*scale = pb_md_time_unit(least, name);
	return 1;
}

/* A number in the table's unit, or with its own when the sets differ. */
static void md_cell(FILE *f, double v, double sd, int with_sd, double scale, const char *unit)
{
	char buf[96];

	if (!scale) {	/* each set its own unit */
		pbench_format_value(buf, sizeof(buf), v, with_sd ? sd : NAN, unit);
		fprintf(f, " %s |", buf);
	} else if (!isfinite(v)) {
		fprintf(f, " n/a |");
	} else {
		int d = pb_md_decimals(sd / scale);

		if (with_sd && isfinite(sd))
			fprintf(f, " %.*f ± %.*f |", d, v / scale, d, sd / scale);
		else
			fprintf(f, " %.*f |", d, v / scale);
	}
}

static void md_versus(FILE *f, const struct analysis *an, int i)
{
	const struct cmp *c = &an->cmps[i - 1];
	const char *v;
	char x[32];

	if (!c->tested) {
		fprintf(f, " both constant |\n");
		return;
	}
	v = verdict_of(c);
	if (!strcmp(v, "faster") || !strcmp(v, "slower"))
		fprintf(f, " %s %s", pb_format_factor(x, sizeof(x), !strcmp(v, "faster") ?
						      1 / c->w.ratio : c->w.ratio), v);
	else
		fprintf(f, " %s", v);
	fprintf(f, " (ratio %.4g, %.4g .. %.4g) |\n", c->w.ratio, c->w.ratio_lo, c->w.ratio_hi);
}

int pbench_samples_write_markdown(const struct pbench_samples *s, FILE *f)
{
	const char *unit = NULL;
	double scale = 0;
	struct analysis an;
	char u[40] = "", pct[32];
	int err;

	if (!s || !f)
		return -EINVAL;
	err = analysis_make(s, &an);
	if (err)
		return err;
	if (md_unit(&an, &scale, &unit) && unit)
		snprintf(u, sizeof(u), " [%s]", unit);
	fprintf(f, "| Input | N | Mean%s | Median%s | Min%s | Max%s | CV | First vs this (%.1f%%) |\n",
		u, u, u, u, CONFIDENCE * 100);
	fprintf(f, "|:---|---:|---:|---:|---:|---:|---:|:---|\n");
	for (int i = 0; i < an.nr; i++) {
		const struct pbench_summary *m = &an.sums[i];
		const char *own = pbench_samples_unit(s, i);

		fprintf(f, "| ");
		pb_md_code(f, pbench_samples_name(s, i));
		fprintf(f, " | %zu |", m->n);
		md_cell(f, m->mean, m->stddev, 1, scale, own);
		md_cell(f, m->median, m->stddev, 0, scale, own);
		md_cell(f, m->min, m->stddev, 0, scale, own);
		md_cell(f, m->max, m->stddev, 0, scale, own);
		fprintf(f, " %s |", pb_format_pct(pct, sizeof(pct), m->cv_pct, -1));
		if (i)
			md_versus(f, &an, i);
		else
			fprintf(f, " 1 |\n");
	}
	analysis_free(&an);
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}
