/* SPDX-License-Identifier: MIT */
/*
 * The jitter plot: one row per CPU; left, how long the gaps were (a histogram on a log scale of
 * gap length, a count axis, each bar's count over it where it fits); right, when they came (a
 * timeline of the window by gap length, on the same log scale as the histogram's axis, in
 * cells shaded by how many gaps began there). Self-contained SVG 1.1, no script, text
 * escaped. And the report by format (pbench_jitter_write()), above both writers, and what a
 * probe says at its end (pbench_jitter_outcome()).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "jitter/jitter.h"

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

/* Text of font-size px is about 0.6 of it wide a character in a sans-serif font. */
static double text_w(const char *t, double px)
{
	return 0.6 * px * (double)strlen(t);
}

struct box {
	double x0, y0, x1, y1;
};

static int overlap(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static int cmp_count_desc(const void *x, const void *y)
{
	const struct pbench_jitter_bin *a = *(const struct pbench_jitter_bin *const *)x;
	const struct pbench_jitter_bin *b = *(const struct pbench_jitter_bin *const *)y;

	return (a->count < b->count) - (a->count > b->count);
}

/* The bars, their count axis, and a count over each bar where it fits: bins on a log axis are
 * a few px wide, so labels are placed tallest bar first and one that would cover another
 * label or another bar is left out (the axis and the bar's <title> still give its count). */
static void histogram(FILE *f, const struct pbench_jitter *j, int i, const struct logaxis *a,
		      double y0, const char *color)
{
	struct pbench_jitter_bin bins[MAX_BINS], *order[MAX_BINS];
	struct box bar[MAX_BINS], placed[MAX_BINS];
	int nb = pbench_jitter_histogram(j, i, bins, MAX_BINS), np = 0, no = 0;
	double y1 = y0 + P_DY1, top = y0 + P_DY0, maxc = 1, step;
	char lo[32], hi[32], t[32];

	nb = nb < MAX_BINS ? nb : MAX_BINS;
	for (int b = 0; b < nb; b++)
		maxc = fmax(maxc, (double)bins[b].count);
	step = fmax(1, pb_nice_step(maxc / 4));
	fprintf(f, "<g id=\"hist-axis-%d\" font-size=\"10\" fill=\"#333333\" "
		"text-anchor=\"end\">\n", i);
	for (double c = 0; c <= maxc + 1e-9; c += step) {
		double y = y1 - (y1 - top - 14) * c / maxc;

		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
			"stroke=\"#444444\"/><text x=\"%.0f\" y=\"%.1f\">%.0f</text>\n", H_X0 - 3, y,
			H_X0, y, H_X0 - 5, y + 3, c);
	}
	fprintf(f, "<text transform=\"translate(%.0f %.0f) rotate(-90)\" text-anchor=\"middle\">"
		"gaps per bin</text>\n</g>\n", H_X0 - 42, (top + y1) / 2);
	fprintf(f, "<g id=\"hist-bars-%d\" fill=\"%s\" fill-opacity=\"0.8\">\n", i, color);
	for (int b = 0; b < nb; b++) {
		/* The end bins reach past the axis (the threshold's and the longest gap's whole
		 * decades), where none of their gaps are: cut at the panel. */
		double x0 = fmax(H_X0, lx(a, bins[b].lo_ns, H_X0, H_X1));
		double x1 = fmin(H_X1, lx(a, bins[b].hi_ns, H_X0, H_X1));
		double h = (y1 - top - 14) * (double)bins[b].count / maxc;

		bar[b] = (struct box){ x0 + 0.5, y1 - h, x0 + 0.5 + fmax(1, x1 - x0 - 1), y1 };
		if (!bins[b].count)
			continue;
		order[no++] = &bins[b];
		pbench_format_ns(lo, sizeof(lo), bins[b].lo_ns, 3);
		pbench_format_ns(hi, sizeof(hi), bins[b].hi_ns, 3);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%llu "
			"gap%s from %s to %s</title></rect>\n", bar[b].x0, bar[b].y0,
			bar[b].x1 - bar[b].x0, h, (unsigned long long)bins[b].count,
			bins[b].count == 1 ? "" : "s", lo, hi);
	}
	fprintf(f, "</g>\n<g id=\"hist-labels-%d\" font-size=\"9\" text-anchor=\"middle\" "
		"fill=\"#333333\">\n", i);
	qsort(order, (size_t)no, sizeof(*order), cmp_count_desc);
	for (int k = 0; k < no; k++) {
		int b = (int)(order[k] - bins), fits = 1;
		double cx = (bar[b].x0 + bar[b].x1) / 2, w;
		struct box lab;

		snprintf(t, sizeof(t), "%llu", (unsigned long long)bins[b].count);
		w = text_w(t, 9) + 2;
		/* A bar at an end of the axis: its label moves in to stay in the panel. */
		cx = fmin(fmax(cx, H_X0 + 1 + w / 2), H_X1 - 1 - w / 2);
		lab = (struct box){ cx - w / 2, bar[b].y0 - 12, cx + w / 2, bar[b].y0 - 1 };
		for (int q = 0; fits && q < np; q++)
			fits = !overlap(&lab, &placed[q]);
		for (int q = 0; fits && q < nb; q++)
			fits = q == b || !bins[q].count || !overlap(&lab, &bar[q]);
		if (!fits)
			continue;
		placed[np++] = lab;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", cx, bar[b].y0 - 3, t);
	}
	fputs("</g>\n", f);
}

/* The timeline as cells: a column of window time (a round step, about TL_COLS of them) by a
 * fifth of a decade of gap length, shaded by how many gaps began there (a log scale from 1 to
 * the fullest cell, shown in a key under the panel). Thousands of gaps a second are thousands of
 * strokes a pixel wide, a solid band; cells show where they crowd and still show a lone long
 * gap on its own, in a number of elements bounded by the cells, not by the gaps. */
#define TL_COLS 100
#define TL_PER_DECADE 5

static double cell_opacity(unsigned c, unsigned maxc)
{
	return maxc > 1 ? 0.2 + 0.8 * log((double)c) / log((double)maxc) : 1;
}

/* The key of timeline i: what a shade counts (cells of dt seconds, the most maxc gaps), under
 * the panel's right end, below y1. */
static int timeline_key(FILE *f, int i, const char *color, unsigned maxc, double dt, double y1)
{
	char w[32];
	double kx, ky;

	pbench_format_ns(w, sizeof(w), dt * 1e9, 3);
	kx = T_X1;
	ky = y1 + 28;
	fprintf(f, "<g id=\"timeline-key-%d\" font-size=\"10\" fill=\"#333333\">\n", i);
	if (!maxc) {	/* no shade to explain */
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"end\">no gap over the "
			"threshold</text>\n</g>\n", kx, ky);
		return 0;
	}
	for (int k = 3; k >= 0; k--) {
		unsigned v = (unsigned)lround(pow(maxc, k / 3.0));
		char t[16];

		if (k < 3 && v == (unsigned)lround(pow(maxc, (k + 1) / 3.0)))
			continue;
		snprintf(t, sizeof(t), "%u", v);
		kx -= text_w(t, 10) + 2;
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%s</text>", kx, ky, t);
		kx -= 12;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\" "
			"fill-opacity=\"%.2f\"/>\n", kx, ky - 9, color, cell_opacity(v, maxc));
		kx -= 6;
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"end\">gaps a cell (%s, 1/%d "
		"decade):</text>\n</g>\n", kx, ky, w, TL_PER_DECADE);
	return 0;
}

static int timeline(FILE *f, const struct pbench_jitter *j, int i, const struct logaxis *a,
		    double y0, const char *color)
{
	const struct pbench_jitter_cpu *c = &j->run[i].r;
	const struct pbench_jitter_gap *g = j->run[i].gaps;
	double y1 = y0 + P_DY1, top = y0 + P_DY0, win = fmax(c->duration_s, 1e-9);
	/* A window a hair past a round length (2.0001 s for -d 2) gets the same cells as one a
	 * hair short of it: the rows of one plot alike. */
	double dt = pb_nice_step(win * 0.99 / TL_COLS);
	int ncols = (int)ceil(win / dt - 1e-9), nrows = (int)lround((a->hi - a->lo) * TL_PER_DECADE);
	unsigned *cell, maxc = 0;
	size_t n = j->run[i].n;
	char lo[32], hi[32];

	ncols = ncols < 1 ? 1 : ncols;
	nrows = nrows < 1 ? 1 : nrows;
	cell = calloc((size_t)ncols * (size_t)nrows, sizeof(*cell));
	if (!cell)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		double s = pbench_ticks_to_ns_f((double)g[k].start_ticks) / 1e9;
		double v = log10(fmax(pbench_ticks_to_ns_f((double)g[k].ticks), 1));
		long cx = lround(floor(s / dt)), cy = lround(floor((v - a->lo) * TL_PER_DECADE));
		unsigned *p;

		cx = cx < 0 ? 0 : cx >= ncols ? ncols - 1 : cx;
		cy = cy < 0 ? 0 : cy >= nrows ? nrows - 1 : cy;
		p = &cell[cy * ncols + cx];
		if (++*p > maxc)
			maxc = *p;
	}
	fprintf(f, "<g id=\"timeline-%d\" fill=\"%s\">\n", i, color);
	for (int r = 0; r < nrows; r++)
		for (int q = 0; q < ncols; q++) {
			unsigned v = cell[r * ncols + q];
			double x0 = T_X0 + q * dt / win * (T_X1 - T_X0);
			double x1 = fmin(T_X1, T_X0 + (q + 1) * dt / win * (T_X1 - T_X0));
			double ya = y1 - (double)r / nrows * (y1 - top);
			double yb = y1 - (double)(r + 1) / nrows * (y1 - top);

			if (!v)
				continue;
			pbench_format_ns(lo, sizeof(lo), pow(10, a->lo + (double)r / TL_PER_DECADE), 3);
			pbench_format_ns(hi, sizeof(hi), pow(10, a->lo + (double)(r + 1) / TL_PER_DECADE),
					 3);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill-opacity=\"%.2f\"><title>%u gap%s of %s to %s, from %g to %g s"
				"</title></rect>\n", x0, yb, fmax(0.8, x1 - x0), ya - yb,
				cell_opacity(v, maxc), v, v == 1 ? "" : "s", lo, hi, q * dt, (q + 1) * dt);
		}
	fputs("</g>\n", f);
	free(cell);
	return timeline_key(f, i, color, maxc, dt, y1);
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
	/* Up to a tick just past the end (a window of 1.998 s for -d 2 still ends at "2"). */
	for (double s = 0; s <= c->duration_s * 1.01 + 1e-9; s += step)
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%g</text>\n", fmin(T_X1, T_X0 + s /
			fmax(c->duration_s, 1e-9) * (T_X1 - T_X0)), y1 + 13, s);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">gap length (log scale); bars: gaps per bin"
		"</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"start\">time in the window (s)"
		"</text>\n</g>\n", (H_X0 + H_X1) / 2, y1 + 28, T_X0, y1 + 28);
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
		if (timeline(f, j, i, &a, y0, color))
			return -ENOMEM;
	}
	fputs("</svg>\n", f);
	return pb_stream_end(f);
}

int pbench_jitter_write(const struct pbench_jitter *j, const struct pbench_jitter *prepared,
			int fmt, FILE *f)
{
	switch (fmt) {
	case PBENCH_REPORT_FORMAT_JSON:
		return pbench_jitter_write_json(j, prepared, f);
	case PBENCH_REPORT_FORMAT_SVG:
		return pbench_jitter_plot_svg(j, f, "pbench jitter");
	case PBENCH_REPORT_FORMAT_TEXT:
		return pbench_jitter_write_text(j, prepared, f);
	}
	return pb_fail(-EINVAL, "%s(): no report format %d", __func__, fmt);
}

/* What a probe spun of its window: its first CPU's time (0: none). */
static double measured_s(const struct pbench_jitter *j)
{
	struct pbench_jitter_cpu c = { .size = sizeof(c) };

	return pbench_jitter_cpu(j, 0, &c) ? 0 : c.duration_s;
}

int pbench_jitter_outcome(const struct pbench_jitter *j, const struct pbench_jitter *prepared,
			  unsigned flags, int k, char *buf, size_t len)
{
	if (!j || k < 0 || !buf || !len)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !j ? "j is NULL" : k < 0 ?
			       "k is negative" : "no buffer");
	*buf = 0;
	if (k || !(flags & PBENCH_OUTCOME_INTERRUPTED))
		return 0;
	snprintf(buf, len, "interrupted: %.2f of %g s measured%s",
		 measured_s(prepared ? prepared : j), j->duration_s,
		 (flags & PBENCH_OUTCOME_PREPARED) && !prepared ?
		 " (the prepared run was not done)" : "");
	return PBENCH_OUTCOME_ERROR;
}
