/* SPDX-License-Identifier: MIT */
/*
 * A parameter scan's SVG (issue 38): the time against the one parameter, on log or linear
 * axes (log when the values span 8 times or more), each point with its interval, each side's
 * fit and (one side) the runner-up, the fit in words at the top. With a figure (the contest's
 * metric or first event), a second panel below: the figure against the parameter, its fit;
 * with a parameter in bytes, cpu0's caches (L1d, L2, the LLC) as vertical lines in both, each
 * with its size, and a mark at the points where the working set leaves one when the cost per
 * byte breaks there (measured: pb_scan_cache_break()).
 */
#include <math.h>
#include <stdio.h>

#include "base/base.h"
#include "scan/scan_inner.h"

/* ---- --plot: time against the parameter ---------------------------------------------------- */

#define PW 720
#define PH 440
#define ML 80
#define MR 20
#define MT 40
#define MB 50

struct axis {
	double lo, hi;
	int log;
	int from, to;		/* pixels */
};

static double to_px(const struct axis *a, double v)
{
	double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) :
		   (v - a->lo) / (a->hi - a->lo);

	return a->from + t * (a->to - a->from);
}

static void axis_set(struct axis *a, double lo, double hi, int from, int to)
{
	a->log = lo > 0 && hi / lo >= 8;
	if (!a->log) {
		double pad = (hi - lo) * 0.05 + (hi == lo ? fabs(hi) * 0.1 + 1 : 0);

		lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
		hi += pad;
	} else {
		lo /= 1.2;
		hi *= 1.2;
	}
	a->lo = lo;
	a->hi = hi;
	a->from = from;
	a->to = to;
}

/* Ticks: decades on a log axis, 5 steps on a linear one. */
static void ticks(FILE *f, const struct axis *a, int vertical, int ns)
{
	double v[12];
	int n = 0;
	char t[32];

	if (a->log) {	/* decades; 1, 2 and 5 of each when the axis spans fewer than 3 */
		for (double d = pow(10, floor(log10(a->lo))); d <= a->hi && n < 12; d *= 10)
			for (int m = 1; m <= 5 && n < 12; m += m == 1 ? 1 : 3)
				if ((m == 1 || a->hi / a->lo < 1000) && d * m >= a->lo && d * m <= a->hi)
					v[n++] = d * m;
	} else {	/* 1, 2 or 5 times a power of 10, about 5 of them */
		double raw = (a->hi - a->lo) / 5, p10 = pow(10, floor(log10(raw))), step;

		step = raw / p10 < 1.5 ? p10 : raw / p10 < 3.5 ? 2 * p10 : raw / p10 < 7.5 ? 5 * p10 :
		       10 * p10;
		for (double u = ceil(a->lo / step) * step; u <= a->hi && n < 12; u += step)
			v[n++] = u;
	}
	for (int i = 0; i < n; i++) {
		double p = to_px(a, v[i]);

		if (ns)
			pb_scan_fmt_ns(t, sizeof(t), v[i]);
		else
			snprintf(t, sizeof(t), "%.4g", v[i]);
		if (vertical)
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
				"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n",
				ML, p, PW - MR, p, ML - 6, p + 4, t);
		else
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
				"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n",
				p, MT, p, PH - MB, p, PH - MB + 16, t);
	}
}

static void curve(FILE *f, const struct axis *ax, const struct axis *ay, int model, double k,
		  double a, double b, const char *style)
{
	fprintf(f, "<polyline fill=\"none\" %s points=\"", style);
	for (int i = 0; i <= 100; i++) {
		double x = ax->log ? ax->lo * pow(ax->hi / ax->lo, i / 100.0) :
			   ax->lo + (ax->hi - ax->lo) * i / 100.0, y;

		if (x <= 0)
			continue;
		y = pbench_fit_eval(model, k, a, b, x);
		if (!isfinite(y) || (ay->log && y <= 0))
			continue;
		if (y < ay->lo || y > ay->hi)	/* off the plot: not drawn */
			continue;
		fprintf(f, "%.1f,%.1f ", to_px(ax, x), to_px(ay, y));
	}
	fprintf(f, "\"/>\n");
}

static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
				       "#e377c2", "#7f7f7f", "#17becf" };

/* Side k's points with their intervals, its fit and (one side only) the runner-up. */
static void svg_side(const struct pbench_scan *sr, int k, const struct axis *ax,
		     const struct axis *ay, FILE *f, int fig)
{
	const struct pb_scan_side *sd = &sr->side[k];
	const struct pbench_summary *sum = fig ? sd->fig : sd->sum;
	const struct pbench_fit *fit = fig ? &sd->fig_fit : &sd->fit;
	const int *have = fig ? sd->fig_have : sd->have;
	int fitted = fig ? sd->fig_fitted : sd->fitted;
	const struct pbench_scan *s = sr;
	char style[80];
	int y = MT + 14 + 14 * k * (sr->nsides > 1 ? 1 : 2);

	snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"2\"", colors[k]);
	if (fitted && fit->model != PBENCH_FIT_MODEL_NONE) {
		curve(f, ax, ay, fit->model, fit->k, fit->a, fit->b, style);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">", ML + 10, y,
			colors[k]);
		if (sd->name)
			fprintf(f, "%s: ", sd->name);
		fprintf(f, "fit O(%s)</text>\n", pbench_fit_model_name(fit->model));
		if (sr->nsides == 1) {
			curve(f, ax, ay, fit->runner_up, fit->runner_k, fit->runner_a,
			      fit->runner_b, "stroke=\"#d62728\" stroke-dasharray=\"5,4\"");
			fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#d62728\">"
				"runner-up: O(%s)</text>\n", ML + 10, y + 14,
				pbench_fit_model_name(fit->runner_up));
		}
	}
	for (int i = 0; i < s->npoints; i++) {
		double x, y0, y1;

		if (!have[i])
			continue;
		x = to_px(ax, pbench_scan_value(s, i, 0));
		y0 = to_px(ay, fmax(sum[i].ci_lo, ay->lo));
		y1 = to_px(ay, fmin(sum[i].ci_hi, ay->hi));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s=%.15g: %.6g%s"
			"</title></circle>\n", x, y0, x, y1, x, to_px(ay, sum[i].mean), colors[k],
			s->p[0].name, pbench_scan_value(s, i, 0), sum[i].mean, fig ? "" : " ns");
	}
}

/* cpu0's caches as vertical lines with their sizes; a break (of side 0's time, or figure)
 * marked between the two points around it. */
static void svg_caches(const struct pbench_scan *s, const struct axis *ax, FILE *f, int fig)
{
	for (int c = 0; c < s->ncache; c++) {
		double x = s->cache[c].bytes, r, lo, hi;
		int i, j, brk;
		char b[32];

		if (x < ax->lo || x > ax->hi)
			continue;
		brk = pb_scan_cache_break(s, s->side, c, fig, &i, &j, &r, &lo, &hi);
		fprintf(f, "<line class=\"cache\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#2ca02c\" stroke-dasharray=\"2,3\"/><text x=\"%.1f\" y=\"%d\" "
			"font-size=\"10\" fill=\"#2ca02c\" transform=\"rotate(-90 %.1f %d)\">%s%s %s"
			"</text>\n", to_px(ax, x), MT, to_px(ax, x), PH - MB, to_px(ax, x) - 3,
			PH - MB - 4, to_px(ax, x) - 3, PH - MB - 4, s->cache[c].name,
			s->cache[c].llc ? " (LLC)" : "", pb_scan_fmt_bytes(b, sizeof(b), x));
		if (brk) {
			double x0 = to_px(ax, pbench_scan_value(s, i, 0));
			double x1 = to_px(ax, pbench_scan_value(s, j, 0));

			fprintf(f, "<rect class=\"break\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"#2ca02c\" fill-opacity=\"0.12\"><title>%s: %.3gx per byte (%.3g-"
				"%.3g)</title></rect><text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#2ca02c\" "
				"text-anchor=\"middle\">break %.2gx</text>\n", x0, MT, x1 - x0, PH - MB - MT,
				s->cache[c].name, r, lo, hi, (x0 + x1) / 2, MT + 44 + 12 * c, r);
		}
	}
}

/* One panel: the time (fig 0) or the figure against the parameter, at y offset dy. */
static void svg_panel(const struct pbench_scan *sr, FILE *f, int fig, int dy)
{
	const struct pbench_scan *s = sr;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	struct axis ax, ay;
	char words[1024] = "", esc[2048];
	size_t e = 0;

	for (int k = 0; k < sr->nsides; k++)
		for (int i = 0; i < s->npoints; i++) {
			const struct pbench_summary *m = fig ? &sr->side[k].fig[i] : &sr->side[k].sum[i];

			if (!(fig ? sr->side[k].fig_have[i] : sr->side[k].have[i]))
				continue;
			xlo = fmin(xlo, pbench_scan_value(s, i, 0));
			xhi = fmax(xhi, pbench_scan_value(s, i, 0));
			ylo = fmin(ylo, m->ci_lo);
			yhi = fmax(yhi, m->ci_hi);
		}
	if (!isfinite(xlo))
		xlo = 1, xhi = 2, ylo = 1, yhi = 2;
	axis_set(&ax, xlo, xhi, ML, PW - MR);
	axis_set(&ay, ylo > 0 ? ylo : 0, yhi, PH - MB, MT);
	if (sr->nsides == 1 && !fig && sr->side[0].fitted)
		pb_scan_fit_words(sr, sr->side, words, sizeof(words));
	else if (sr->nsides == 1 && fig)
		pb_scan_fig_fit_words(sr, sr->side, words, sizeof(words));
	for (const char *c = words; *c && e + 8 < sizeof(esc); c++)
		e += *c == '<' ? (size_t)snprintf(esc + e, 5, "&lt;") : *c == '&' ?
		     (size_t)snprintf(esc + e, 6, "&amp;") : (esc[e] = *c, 1);
	esc[e] = 0;
	fprintf(f, "<g%s transform=\"translate(0,%d)\">\n", fig ? " class=\"figure\"" : "", dy);
	fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"13\">%s against %s (%s x, %s y)</text>\n"
		"<text x=\"%d\" y=\"32\" font-size=\"10\">%.150s</text>\n", ML,
		fig ? s->figure : "time", s->p[0].name, ax.log ? "log" : "linear",
		ay.log ? "log" : "linear", ML, esc);
	ticks(f, &ax, 0, 0);
	ticks(f, &ay, 1, !fig);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">%s%s</text>\n",
		(ML + PW - MR) / 2, PH - 12, s->p[0].name, s->ncache ? " (bytes)" : "");
	svg_caches(s, &ax, f, fig);
	for (int k = 0; k < sr->nsides; k++)
		svg_side(sr, k, &ax, &ay, f, fig);
	fprintf(f, "</g>\n");
}

int pb_scan_svg(const struct pbench_scan *sr, FILE *f)
{
	int panels = sr->figure ? 2 : 1;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/"
		"svg\" version=\"1.1\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", PW, PH * panels);
	for (int p = 0; p < panels; p++)
		svg_panel(sr, f, p, p * PH);
	fprintf(f, "</svg>\n");
	return pb_stream_end(f);
}
