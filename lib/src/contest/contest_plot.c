/* SPDX-License-Identifier: MIT */
/*
 * A contest as SVG: left, each entrant's times (a dot a run, spread sideways so that none hides
 * another, the median as a bar); right, each entrant's ratio to the reference after every
 * round with its interval as a band and each look a dot with its interval as a bar, on a
 * rounds axis with labelled ticks, narrowing until the verdict, and the line of "no
 * difference" (with the equivalence margin when one was asked). Self-contained SVG 1.1. And the
 * one writer that takes the format (pbench_contest_write()), above the others.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "contest/contest.h"

#define W 960
#define H 470
#define Y0 70.0			/* both panels, top and bottom */
#define Y1 410.0
#define L0 80.0			/* the times */
#define L1 450.0
#define R0 540.0		/* the ratio, round by round */
#define R1 935.0

static const char *const colors[] = { "#d95f02", "#1f6fb4", "#1b9e77", "#7570b3",
				      "#e7298a", "#66a61e", "#a6761d", "#666666" };

static const char *color(int i)
{
	return colors[i % (int)PB_ARRAY_SIZE(colors)];
}

struct scale {
	double lo, hi, step;
};

static void scale_for(struct scale *s, double lo, double hi)
{
	double pad = (hi - lo) * 0.08;

	if (!(pad > 0))
		pad = fmax(fabs(hi) * 0.01, 1e-9);
	s->lo = lo - pad;
	s->hi = hi + pad;
	s->step = pb_nice_step((s->hi - s->lo) / 6);
}

static double ypos(const struct scale *s, double v)
{
	return Y1 - (v - s->lo) / (s->hi - s->lo) * (Y1 - Y0);
}

static void grid(FILE *f, const struct scale *s, double x0, double x1, double unit,
		 int decimals)
{
	for (double t = ceil(s->lo / s->step) * s->step; t <= s->hi; t += s->step)
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333333\">%.*f</text>\n",
			x0, ypos(s, t), x1, ypos(s, t), x0 - 6, ypos(s, t) + 4, decimals, t / unit);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
		"stroke=\"#444444\"/>\n", x0, Y0, x1 - x0, Y1 - Y0);
}

/* Decimals that show a step: 0.05 two, 2.5 one. */
static int decimals_for(double step)
{
	int d = (int)fmax(0, -floor(log10(step) + 1e-9));
	double m = step * pow(10, d);

	return fabs(m - round(m)) > 1e-6 ? d + 1 : d;
}

/* Left: a column per entrant. */
static void times_panel(FILE *f, const struct pbench_contest *c)
{
	static const struct { const char *name; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double lo = INFINITY, hi = -INFINITY, cw = (L1 - L0) / c->n;
	struct scale s;
	int u = 0;

	for (int i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->e[i].n; k++) {
			lo = fmin(lo, c->e[i].x[k]);
			hi = fmax(hi, c->e[i].x[k]);
		}
	if (!isfinite(lo))
		return;
	scale_for(&s, lo, hi);
	while (u + 1 < (int)PB_ARRAY_SIZE(units) && hi >= units[u + 1].scale)
		u++;
	grid(f, &s, L0, L1, units[u].scale, decimals_for(s.step / units[u].scale));
	fprintf(f, "<text transform=\"translate(22 %.0f) rotate(-90)\" text-anchor=\"middle\">"
		"time per run (%s)</text>\n", (Y0 + Y1) / 2, units[u].name);
	for (int i = 0; i < c->n; i++) {
		const struct pb_entrant *e = &c->e[i];
		struct pbench_summary sm = { .size = sizeof(sm) };
		double x = L0 + cw * (i + 0.5);

		fprintf(f, "<g fill=\"%s\" fill-opacity=\"0.55\">\n", color(i));
		for (size_t k = 0; k < e->n; k++)	/* a fixed sideways spread: golden ratio */
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"/>\n",
				x + (fmod((double)k * 0.618034, 1) - 0.5) * cw * 0.6,
				ypos(&s, e->x[k]));
		fputs("</g>\n", f);
		if (e->n && !pbench_stats_summary(e->x, e->n, NULL, &sm))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#111111\" stroke-width=\"2.5\"/>\n", x - cw * 0.38,
				ypos(&s, sm.median), x + cw * 0.38, ypos(&s, sm.median));
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"%s\" "
			"font-weight=\"bold\">", x, Y1 + 18, color(i));
		pb_svg_text(f, e->name);
		fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" "
			"fill=\"#333333\">%zu runs</text>\n", x, Y1 + 34, e->n);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">each run, and the median"
		"</text>\n", (L0 + L1) / 2, Y0 - 10);
}

/* The range of the ratios and their intervals once the test is trusted (from the first
 * round of the verdicts' rule on), so that the first wide looks do not flatten the rest. */
static void ratio_range(const struct pbench_contest *c, double *lo, double *hi, long *rounds)
{
	*lo = *hi = 1;
	*rounds = 1;
	if (c->o.same_pct > 0) {
		*lo = 1 / (1 + c->o.same_pct / 100);
		*hi = 1 + c->o.same_pct / 100;
	}
	for (int i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->e[i].nlooks; k++) {
			const struct pb_look *l = &c->e[i].looks[k];

			*rounds = l->round > *rounds ? l->round : *rounds;
			if (l->round < c->o.min_rounds && k + 1 < c->e[i].nlooks)
				continue;
			*lo = fmin(*lo, isfinite(l->lo) ? l->lo : l->ratio);
			*hi = fmax(*hi, isfinite(l->hi) ? l->hi : l->ratio);
		}
}

/* The rounds axis: 0 to a little past the last round, so that the last look is not on the
 * frame; ticks at a round step, each labelled. */
struct rounds_axis {
	double max, step;
};

static double rx(const struct rounds_axis *a, double round)
{
	return R0 + round / a->max * (R1 - R0);
}

static void rounds_ticks(FILE *f, const struct rounds_axis *a)
{
	fputs("<g id=\"rounds-ticks\" text-anchor=\"middle\" fill=\"#333333\">\n", f);
	for (double t = 0; t <= a->max + 1e-9; t += a->step)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
			"stroke=\"#444444\"/><text x=\"%.1f\" y=\"%.0f\">%.0f</text>\n", rx(a, t),
			Y1, rx(a, t), Y1 + 4, rx(a, t), Y1 + 16, t);
	fputs("</g>\n", f);
}

/* An entrant's looks: the interval as a band and the ratio as a line through them, and each
 * look a dot with its interval as a whisker, so that a verdict reached at the first look (a
 * band of one point) is still seen; its <title> says the round and the figures. */
static void ratio_series(FILE *f, const struct pbench_contest *c, int i, const struct scale *s,
			 const struct rounds_axis *a)
{
	const struct pb_entrant *e = &c->e[i];

	if (!e->nlooks)
		return;
	fprintf(f, "<g clip-path=\"url(#ratio)\"><polygon fill=\"%s\" fill-opacity=\"0.18\" "
		"points=\"", color(i));
	for (size_t k = 0; k < e->nlooks; k++)
		fprintf(f, "%.1f,%.1f ", rx(a, (double)e->looks[k].round), ypos(s, e->looks[k].hi));
	for (size_t k = e->nlooks; k-- > 0;)
		fprintf(f, "%.1f,%.1f ", rx(a, (double)e->looks[k].round), ypos(s, e->looks[k].lo));
	fprintf(f, "\"/><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		color(i));
	for (size_t k = 0; k < e->nlooks; k++)
		fprintf(f, "%.1f,%.1f ", rx(a, (double)e->looks[k].round),
			ypos(s, e->looks[k].ratio));
	fprintf(f, "\"/></g>\n<g id=\"looks-%d\" clip-path=\"url(#ratio)\" fill=\"%s\" "
		"stroke=\"%s\">\n", i, color(i), color(i));
	for (size_t k = 0; k < e->nlooks; k++) {
		const struct pb_look *l = &e->looks[k];
		double x = rx(a, (double)l->round);

		if (isfinite(l->lo) && isfinite(l->hi))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke-width=\"1.5\"/>", x, ypos(s, l->lo), x, ypos(s, l->hi));
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"><title>", x,
			ypos(s, l->ratio));
		pb_svg_text(f, e->name);
		fprintf(f, ", round %ld: %.4g (%.4g-%.4g)</title></circle>\n", l->round, l->ratio,
			l->lo, l->hi);
	}
	fputs("</g>\n", f);
}

static void ratio_panel(FILE *f, const struct pbench_contest *c)
{
	double lo, hi;
	long rounds;
	struct scale s;
	struct rounds_axis a;

	ratio_range(c, &lo, &hi, &rounds);
	scale_for(&s, lo, hi);
	grid(f, &s, R0, R1, 1, decimals_for(s.step));
	a.step = fmax(1, pb_nice_step((double)rounds / 6));
	a.max = (double)rounds * 1.04 + 0.5;
	rounds_ticks(f, &a);
	fprintf(f, "<clipPath id=\"ratio\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
		"height=\"%.0f\"/></clipPath>\n", R0, Y0, R1 - R0, Y1 - Y0);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#111111\" "
		"stroke-dasharray=\"6 4\"/>\n", R0, ypos(&s, 1), R1, ypos(&s, 1));
	if (c->o.same_pct > 0)
		for (int k = 0; k < 2; k++) {
			double y = ypos(&s, k ? 1 + c->o.same_pct / 100 : 1 / (1 + c->o.same_pct / 100));

			fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
				"stroke=\"#888888\" stroke-dasharray=\"2 3\"/>\n", R0, y, R1, y);
		}
	for (int i = 0; i < c->n; i++)
		if (i != c->o.reference)
			ratio_series(f, c, i, &s, &a);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">time / %s's, and its "
		"%.10g%% interval, at each look</text>\n", (R0 + R1) / 2, Y0 - 10,
		c->e[c->o.reference].name, c->o.confidence * 100);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">round (%ld in all)</text>\n"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"10\" "
		"fill=\"#555555\">a dot at each look, its interval as a bar; dashed: 1, no difference",
		(R0 + R1) / 2, Y1 + 32, rounds, (R0 + R1) / 2, Y1 + 48);
	if (c->o.same_pct > 0)
		fprintf(f, "; dotted: +-%.10g%%", c->o.same_pct);
	fputs("</text>\n", f);
}

/* The verdict over the plot, in two lines where one would run off the page (an undecided
 * verdict says how far it is from one: ~170 characters, 14 px bold is ~8.7 px each). */
static void put_title(FILE *f, char *title)
{
	size_t len = strlen(title), cut = 0;

	if ((double)len * 0.62 * 14 > W - 30)
		for (size_t k = len / 2, d = 0; d < len / 2 && !cut; d++) {
			if (title[k + d] == ' ')
				cut = k + d;
			else if (title[k - d] == ' ')
				cut = k - d;
		}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" "
		"font-weight=\"bold\">", W / 2, cut ? 20 : 28, cut ? 13 : 14);
	if (cut)
		title[cut] = 0;
	pb_svg_text(f, title);
	if (cut) {
		fprintf(f, "</text>\n<text x=\"%d\" y=\"38\" text-anchor=\"middle\" "
			"font-size=\"13\" font-weight=\"bold\">", W / 2);
		pb_svg_text(f, title + cut + 1);
	}
	fputs("</text>\n", f);
}

int pbench_contest_plot_svg(const struct pbench_contest *c, FILE *f)
{
	char title[768] = "pbench compare";

	if (!c || !f || c->n < 1)
		return -EINVAL;
	for (int i = 0; i < c->n; i++)
		if (i != c->o.reference) {
			pbench_contest_verdict_text(c, i, title, sizeof(title));
			break;
		}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/"
		"2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\"/>\n", W, H, W, H, W, H);
	put_title(f, title);
	times_panel(f, c);
	ratio_panel(f, c);
	fputs("</svg>\n", f);
	return pb_stream_end(f);
}

int pbench_contest_write(const struct pbench_contest *c, int fmt, FILE *f)
{
	switch (fmt) {
	case PBENCH_REPORT_FORMAT_JSON:
		return pbench_contest_write_json(c, f);
	case PBENCH_REPORT_FORMAT_CSV:
		return pbench_contest_write_csv(c, f);
	case PBENCH_REPORT_FORMAT_MARKDOWN:
		return pbench_contest_write_markdown(c, f);
	case PBENCH_REPORT_FORMAT_SVG:
		return pbench_contest_plot_svg(c, f);
	case PBENCH_REPORT_FORMAT_TEXT:
		return pbench_contest_write_text(c, f);
	}
	return pb_fail(-EINVAL, "%s(): no report format %d", __func__, fmt);
}
