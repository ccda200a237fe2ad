/* SPDX-License-Identifier: MIT */
/*
 * The jitter plot: one row per CPU; left, how long the gaps were (a histogram on a log scale of
 * gap length, its bars labelled with their counts); right, when they came (a timeline of the
 * window, each gap a stroke as high as it was long, on the same log scale as the histogram's
 * axis). Self-contained SVG 1.1, no script, text escaped.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jitter.h"

#define W 960
#define ROW_H 250
#define TOP 70
#define H_X0 70.0		/* the histogram panel */
#define H_X1 380.0
#define T_X0 440.0		/* the timeline panel */
#define T_X1 935.0
#define P_DY0 28.0		/* a row's panel top and bottom, from the row's top */
#define P_DY1 200.0
#define MAX_ROWS 64
#define MAX_BINS 160
#define MAX_STROKES 20000	/* the timeline draws the longest gaps past this many */

static const char *const colors[] = { "#d95f02", "#1f6fb4", "#1b9e77", "#7570b3" };

/* The log axis of gap length, shared by both panels of every row: whole decades. */
struct logaxis {
	double lo, hi;		/* log10 ns */
};

static double lx(const struct logaxis *a, double ns, double x0, double x1)
{
	double v = log10(fmax(ns, 1));

	return x0 + (v - a->lo) / (a->hi - a->lo) * (x1 - x0);
}

static void decade_label(char *buf, size_t len, int d)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	int u = d / 3 < 3 ? d / 3 : 3;

	snprintf(buf, len, "%.0f %s", pow(10, d - 3 * u), unit[u]);
}

static void histogram(FILE *f, const struct pbench_jitter *j, int i, const struct logaxis *a,
		      double y0, const char *color)
{
	struct pbench_jitter_bin bins[MAX_BINS];
	int nb = pbench_jitter_histogram(j, i, bins, MAX_BINS);
	double y1 = y0 + P_DY1, top = y0 + P_DY0, maxc = 1;
	char lo[32], hi[32];

	for (int b = 0; b < nb && b < MAX_BINS; b++)
		maxc = fmax(maxc, (double)bins[b].count);
	fprintf(f, "<g fill=\"%s\" fill-opacity=\"0.8\">\n", color);
	for (int b = 0; b < nb && b < MAX_BINS; b++) {
		double x0 = lx(a, bins[b].lo_ns, H_X0, H_X1), x1 = lx(a, bins[b].hi_ns, H_X0, H_X1);
		double h = (y1 - top - 14) * (double)bins[b].count / maxc;

		if (!bins[b].count)
			continue;
		pbench_format_ns(lo, sizeof(lo), bins[b].lo_ns, 3);
		pbench_format_ns(hi, sizeof(hi), bins[b].hi_ns, 3);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%llu "
			"gap%s from %s to %s</title></rect>\n", x0 + 0.5, y1 - h,
			fmax(1, x1 - x0 - 1), h, (unsigned long long)bins[b].count,
			bins[b].count == 1 ? "" : "s", lo, hi);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\" "
			"fill=\"#333333\" fill-opacity=\"1\">%llu</text>\n", (x0 + x1) / 2,
			y1 - h - 3, (unsigned long long)bins[b].count);
	}
	fputs("</g>\n", f);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static void timeline(FILE *f, const struct pbench_jitter *j, int i, const struct logaxis *a,
		     double y0, const char *color)
{
	const struct pbench_jitter_cpu *c = &j->run[i].r;
	const struct pbench_jitter_gap *g = j->run[i].gaps;
	double y1 = y0 + P_DY1, top = y0 + P_DY0, win = fmax(c->duration_s, 1e-9), cut = 0;
	size_t n = j->run[i].n;
	char t[32];

	/* Past MAX_STROKES gaps only the longest are drawn: the short ones would be a solid
	 * band anyway, and the file would grow without bound. */
	if (n > MAX_STROKES) {
		double *len = malloc(n * sizeof(*len));

		if (len) {
			for (size_t k = 0; k < n; k++)
				len[k] = (double)g[k].ticks;
			qsort(len, n, sizeof(*len), cmp_double);
			cut = len[n - MAX_STROKES];
			free(len);
		}
	}
	fprintf(f, "<g stroke=\"%s\" stroke-width=\"1.2\">\n", color);
	for (size_t k = 0; k < n; k++) {
		double s = pbench_ticks_to_ns_f((double)g[k].start_ticks) / 1e9;
		double ns = pbench_ticks_to_ns_f((double)g[k].ticks);
		double x = T_X0 + s / win * (T_X1 - T_X0);
		double y = y1 - (lx(a, ns, 0, 1)) * (y1 - top);

		if ((double)g[k].ticks < cut)
			continue;
		pbench_format_ns(t, sizeof(t), ns, 3);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>%.6f s: "
			"%s</title></line>\n", x, y1, x, fmin(y, y1 - 1), s, t);
	}
	fputs("</g>\n", f);
}

static void row_frame(FILE *f, const struct pbench_jitter *j, int i, const struct logaxis *a,
		      double y0)
{
	const struct pbench_jitter_cpu *c = &j->run[i].r;
	double y1 = y0 + P_DY1, top = y0 + P_DY0, step;
	char lab[32], th[32];

	pbench_format_ns(th, sizeof(th), c->threshold_ns, 3);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\" font-size=\"14\">CPU %d: "
		"%llu gaps (%.1f/s), %.3f%% of the time lost, threshold ", H_X0, y0 + 16, c->cpu,
		(unsigned long long)c->interruptions, c->interruptions_per_s, c->noise_pct);
	pb_svg_text(f, th);
	fputs("</text>\n<g fill=\"none\" stroke=\"#444444\">", f);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>"
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></g>\n", H_X0, top,
		H_X1 - H_X0, y1 - top, T_X0, top, T_X1 - T_X0, y1 - top);
	fputs("<g font-size=\"10\" fill=\"#333333\" text-anchor=\"middle\">\n", f);
	for (int d = (int)a->lo; d <= (int)a->hi; d++) {
		double x = lx(a, pow(10, d), H_X0, H_X1), y = y1 - (d - a->lo) /
			   (a->hi - a->lo) * (y1 - top);

		decade_label(lab, sizeof(lab), d);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#dddddd\"/>"
			"<text x=\"%.1f\" y=\"%.0f\">%s</text>\n", x, top, x, y1, x, y1 + 13, lab);
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", T_X0, y, T_X1,
			y, T_X0 - 4, y + 3, lab);
	}
	step = pb_nice_step(fmax(c->duration_s, 1e-3) / 6);
	for (double s = 0; s <= c->duration_s + 1e-9; s += step)
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%g</text>\n", T_X0 + s /
			fmax(c->duration_s, 1e-9) * (T_X1 - T_X0), y1 + 13, s);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">gap length (log scale); bars: gaps per bin"
		"</text><text x=\"%.0f\" y=\"%.0f\">time in the window (s); each stroke a gap, "
		"as high as it was long</text>\n</g>\n", (H_X0 + H_X1) / 2, y1 + 28,
		(T_X0 + T_X1) / 2, y1 + 28);
}

int pbench_jitter_plot_svg(const struct pbench_jitter *j, FILE *f, const char *title)
{
	struct logaxis a = { .lo = INFINITY, .hi = -INFINITY };
	int rows;

	if (!j || !f || j->n < 1 || j->n > MAX_ROWS)
		return -EINVAL;
	rows = j->n;
	for (int i = 0; i < j->n; i++) {
		const struct pbench_jitter_cpu *c = &j->run[i].r;

		a.lo = fmin(a.lo, log10(fmax(c->threshold_ns, 1)));
		if (c->interruptions)
			a.hi = fmax(a.hi, log10(fmax(c->max_gap_ns, 1)));
	}
	a.lo = floor(a.lo);
	a.hi = fmax(ceil(a.hi), a.lo + 1);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/"
		"2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\"/>\n<text x=\"%d\" y=\"28\" text-anchor=\"middle\" "
		"font-size=\"17\" font-weight=\"bold\">", W, TOP + rows * ROW_H, W,
		TOP + rows * ROW_H, W, TOP + rows * ROW_H, W / 2);
	pb_svg_text(f, title ? title : "pbench jitter");
	fprintf(f, "</text>\n<text x=\"%d\" y=\"50\" text-anchor=\"middle\" fill=\"#555555\">"
		"how long each interruption of the spinning probe was (left), and when it came "
		"(right)</text>\n", W / 2);
	for (int i = 0; i < j->n; i++) {
		const char *color = colors[i % (int)PB_ARRAY_SIZE(colors)];
		double y0 = TOP + (double)i * ROW_H;

		row_frame(f, j, i, &a, y0);
		histogram(f, j, i, &a, y0, color);
		timeline(f, j, i, &a, y0, color);
	}
	fputs("</svg>\n", f);
	return pb_stream_end(f);
}
