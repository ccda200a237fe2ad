/* SPDX-License-Identifier: MIT */
/*
 * Plots (plot.c): runs as an SVG a person reads at a glance. Left, each run's time in the
 * order run, one series after the other, outliers ringed with their cause as a tooltip
 * (<title>); right, each series' distribution as a histogram on the same time axis.
 * Self-contained SVG 1.1: no script, no external font, every text escaped.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define W 960
#define H 490
#define L_X0 78.0		/* the runs panel */
#define L_X1 650.0
#define P_Y0 92.0		/* both panels share the time axis */
#define P_Y1 440.0
#define R_X0 690.0		/* the distributions panel */
#define R_X1 935.0
#define NBINS 30
#define MAX_SERIES 8

static const char *const palette[] = { "#d95f02", "#1f6fb4", "#1b9e77", "#7570b3",
				       "#e7298a", "#66a61e", "#a6761d", "#666666" };

/* Text and attribute values: &<>" escaped; control characters (not allowed in XML 1.0)
 * dropped. */
void pb_svg_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c >= 0x20 || c == '\t' || c == '\n')
			fputc(c, f);
	}
}

/* 0, or -EINVAL with the detail of what is wrong with series i, s (the caller's struct). */
static int series_check(const struct pbench_plot_series *s, int i)
{
	static const char fn[] = "pbench_plot_runs_svg";
	char arg[32];
	int err;

	snprintf(arg, sizeof(arg), "s[%d]", i);
	if ((err = pb_check_struct(fn, arg, "pbench_plot_series", s,
				   offsetof(struct pbench_plot_series, cause) +
				   sizeof(s->cause), "PBENCH_PLOT_SERIES_INIT")))
		return err;
	if (s->n && !s->ns)
		return pb_fail(-EINVAL, "%s(): %s.ns is NULL with n %zu", fn, arg, s->n);
	for (size_t k = 0; k < s->n; k++)
		if (!isfinite(s->ns[k]) || s->ns[k] < 0)
			return pb_fail(-EINVAL, "%s(): %s.ns[%zu] is %g, not a time of 0 or more",
				       fn, arg, k, s->ns[k]);
	return 0;
}

/* The time axis: its range in ns, a round tick step and the unit the labels are in. */
struct axis {
	double lo, hi, step, scale;
	const char *unit;
	int decimals;
};

double pb_nice_step(double raw)
{
	double p = pow(10, floor(log10(raw))), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

static void axis_for(struct axis *a, double lo, double hi)
{
	static const struct { const char *name; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double pad = (hi - lo) * 0.06;
	int u = 0;

	if (pad <= 0)
		pad = fmax(hi * 0.01, 1);
	a->lo = fmax(0, lo - pad);
	a->hi = hi + pad;
	a->step = pb_nice_step((a->hi - a->lo) / 6);
	while (u + 1 < (int)PB_ARRAY_SIZE(units) && hi >= units[u + 1].scale)
		u++;
	a->unit = units[u].name;
	a->scale = units[u].scale;
	a->decimals = (int)fmax(0, -floor(log10(a->step / a->scale) + 1e-9));
	if (fmod(a->step / a->scale * pow(10, a->decimals), 1) > 1e-6)
		a->decimals++;	/* a 2.5 step */
}

static double ypos(const struct axis *a, double ns)
{
	return P_Y1 - (ns - a->lo) / (a->hi - a->lo) * (P_Y1 - P_Y0);
}

static const char *color_of(const struct pbench_plot_series *s, int i)
{
	return s->color && *s->color ? s->color : palette[i % (int)PB_ARRAY_SIZE(palette)];
}

static void put_name(FILE *f, const struct pbench_plot_series *s, int i)
{
	if (s->name)
		pb_svg_text(f, s->name);
	else
		fprintf(f, "series %d", i + 1);
}

/* The title on one line of the page: a long command line in a smaller font, down to 11 px
 * (bold is ~0.62 em a character), and past that cut with "..." (the text report has it
 * whole). */
static void put_title(FILE *f, const char *title)
{
	size_t len = strlen(title), fit;
	double size = fmin(17, (W - 30) / (0.62 * (double)(len ? len : 1)));
	char cut[256];

	size = floor(fmax(size, 11));
	fit = (size_t)((W - 30) / (0.62 * size));
	fprintf(f, "<text x=\"%d\" y=\"26\" text-anchor=\"middle\" font-size=\"%.0f\" "
		"font-weight=\"bold\">", W / 2, size);
	if (len <= fit) {
		pb_svg_text(f, title);
	} else {
		fit = fit - 3 < sizeof(cut) - 1 ? fit - 3 : sizeof(cut) - 1;
		while (fit && ((unsigned char)title[fit] & 0xc0) == 0x80)
			fit--;	/* not inside a UTF-8 character */
		memcpy(cut, title, fit);
		cut[fit] = 0;
		pb_svg_text(f, cut);
		fputs("...", f);
	}
	fputs("</text>\n", f);
}

static void frame(FILE *f, const char *title, const struct axis *a, size_t total)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		W, H, W, H, W, H);
	put_title(f, title ? title : "runs");
	/* Grid and tick labels across both panels. */
	fputs("<g stroke=\"#dddddd\" stroke-width=\"1\">\n", f);
	for (double t = ceil(a->lo / a->step) * a->step; t <= a->hi; t += a->step)
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>"
			"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>\n",
			L_X0, ypos(a, t), L_X1, ypos(a, t), R_X0, ypos(a, t), R_X1, ypos(a, t));
	fputs("</g>\n<g text-anchor=\"end\" fill=\"#333333\">\n", f);
	for (double t = ceil(a->lo / a->step) * a->step; t <= a->hi; t += a->step)
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%.*f</text>\n", L_X0 - 6,
			ypos(a, t) + 4, a->decimals, t / a->scale);
	fputs("</g>\n", f);
	fprintf(f, "<g fill=\"none\" stroke=\"#444444\" stroke-width=\"1\">"
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>"
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></g>\n",
		L_X0, P_Y0, L_X1 - L_X0, P_Y1 - P_Y0, R_X0, P_Y0, R_X1 - R_X0, P_Y1 - P_Y0);
	fprintf(f, "<text transform=\"translate(20 %.0f) rotate(-90)\" text-anchor=\"middle\" "
		"font-size=\"13\">time per run (%s)</text>\n", (P_Y0 + P_Y1) / 2, a->unit);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"13\">"
		"run, in the order run (%zu runs)</text>\n", (L_X0 + L_X1) / 2, P_Y1 + 38, total);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"13\">"
		"distribution (runs per bin)</text>\n", (R_X0 + R_X1) / 2, P_Y1 + 38);
}

static void legend(FILE *f, const struct pbench_plot_series *s, int nseries)
{
	double x = L_X0;
	int outliers = 0;

	for (int i = 0; i < nseries; i++)
		for (size_t k = 0; s[i].outlier && k < s[i].n; k++)
			outliers |= s[i].outlier[k] != 0;

	fputs("<g font-size=\"13\">\n", f);
	for (int i = 0; i < nseries; i++) {
		fprintf(f, "<circle cx=\"%.0f\" cy=\"52\" r=\"5\" fill=\"", x + 5);
		pb_svg_text(f, color_of(&s[i], i));
		fprintf(f, "\"/><text x=\"%.0f\" y=\"56\">", x + 15);
		put_name(f, &s[i], i);
		fprintf(f, " (%zu runs)</text>\n", s[i].n);
		x += 200;
	}
	/* Only marks the plot has: no outlier entry when no run is one. */
	if (outliers)
		fprintf(f, "<circle cx=\"%.0f\" cy=\"52\" r=\"5.5\" fill=\"#ffffff\" "
			"stroke=\"#222222\" stroke-width=\"2\"/><text x=\"%.0f\" y=\"56\">"
			"outlier (hover: its cause)</text>\n", x + 5, x + 15);
	fprintf(f, "<line x1=\"%.0f\" y1=\"52\" x2=\"%.0f\" y2=\"52\" stroke=\"#111111\" "
		"stroke-width=\"2\"/><text x=\"%.0f\" y=\"56\">median</text>\n",
		R_X0, R_X0 + 18, R_X0 + 24);
	fputs("</g>\n", f);
}

/* One series' runs at x from its first slot: a thin line, a dot per run, outliers ringed;
 * every dot's <title> says the run and its time, an outlier's adds the cause. */
static void runs(FILE *f, const struct pbench_plot_series *s, int idx, const struct axis *a,
		 size_t first, size_t total)
{
	double dx = (L_X1 - L_X0) / (double)total;
	const char *color = color_of(s, idx);
	size_t step = (size_t)fmax(1, pb_nice_step(fmax(1, (double)s->n / 6)));
	char t[64];

	if (!s->n)
		return;
	/* The series' name over its stretch, and where it starts. */
	if (first)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#888888\" "
			"stroke-dasharray=\"4 3\"/>\n", L_X0 + dx * (double)first, P_Y0,
			L_X0 + dx * (double)first, P_Y1);
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-weight=\"bold\" "
		"fill=\"", L_X0 + dx * ((double)first + (double)s->n / 2), P_Y0 - 8);
	pb_svg_text(f, color);
	fputs("\">", f);
	put_name(f, s, idx);
	fputs("</text>\n<g text-anchor=\"middle\" fill=\"#333333\">", f);
	for (size_t i = 0; i < s->n; i++)
		/* A later series' "1" would run into the previous one's last label: its dashed
		 * line marks where it starts. */
		if ((i == 0 && !first) || (i + 1) % step == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%zu</text>",
				L_X0 + dx * ((double)(first + i) + 0.5), P_Y1 + 16, i + 1);
	fputs("</g>\n<polyline fill=\"none\" stroke-opacity=\"0.45\" stroke-width=\"1\" stroke=\"", f);
	pb_svg_text(f, color);
	fputs("\" points=\"", f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s%.1f,%.1f", i ? " " : "", L_X0 + dx * ((double)(first + i) + 0.5),
			ypos(a, s->ns[i]));
	fprintf(f, "\"/>\n<g id=\"runs-%d\" fill=\"", idx);
	pb_svg_text(f, color);
	fputs("\">\n", f);
	for (size_t i = 0; i < s->n; i++) {
		int out = s->outlier && s->outlier[i];

		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" ", L_X0 + dx * ((double)(first + i) + 0.5),
			ypos(a, s->ns[i]));
		if (out) {
			fputs("r=\"5.5\" fill=\"#ffffff\" stroke-width=\"2.5\" stroke=\"", f);
			pb_svg_text(f, color);
			fputs("\"", f);
		} else {
			fputs("r=\"3.2\"", f);
		}
		pbench_format_ns(t, sizeof(t), s->ns[i], 4);
		fprintf(f, "><title>run %zu: %s", i + 1, t);
		if (out && s->cause && s->cause[i] && *s->cause[i]) {
			fputs(": ", f);
			pb_svg_text(f, s->cause[i]);
		} else if (out) {
			fputs(": outlier", f);
		}
		fputs("</title></circle>\n", f);
	}
	fputs("</g>\n", f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One series' histogram in its column: a bar per bin of the time axis, the median as a
 * line across the column. */
static int histogram(FILE *f, const struct pbench_plot_series *s, int idx, int nseries,
		     const struct axis *a)
{
	double cw = (R_X1 - R_X0) / nseries, x0 = R_X0 + cw * idx + 4, bw = cw - 22;
	double bin = (a->hi - a->lo) / NBINS, bh = (P_Y1 - P_Y0) / NBINS, med, *sorted;
	size_t count[NBINS] = { 0 }, maxc = 1;
	const char *color = color_of(s, idx);
	char lo[32], hi[32];

	if (!s->n)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		long b = (long)((s->ns[i] - a->lo) / bin);

		b = b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b;
		if (++count[b] > maxc)
			maxc = count[b];
	}
	fputs("<g fill-opacity=\"0.75\" fill=\"", f);
	pb_svg_text(f, color);
	fputs("\">\n", f);
	for (int b = 0; b < NBINS; b++) {
		if (!count[b])
			continue;
		pbench_format_ns(lo, sizeof(lo), a->lo + bin * b, 4);
		pbench_format_ns(hi, sizeof(hi), a->lo + bin * (b + 1), 4);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
			x0, P_Y1 - bh * (b + 1) + 0.5, fmax(1, bw * (double)count[b] / (double)maxc),
			bh - 1);
		put_name(f, s, idx);
		fprintf(f, ": %zu run%s from %s to %s</title></rect>\n", count[b],
			count[b] == 1 ? "" : "s", lo, hi);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill-opacity=\"1\" "
			"fill=\"#333333\">%zu</text>\n",
			x0 + fmax(1, bw * (double)count[b] / (double)maxc) + 2,
			P_Y1 - bh * b - bh / 2 + 3, count[b]);
	}
	fputs("</g>\n", f);
	sorted = malloc(s->n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, s->ns, s->n * sizeof(*sorted));
	qsort(sorted, s->n, sizeof(*sorted), cmp_double);
	med = s->n % 2 ? sorted[s->n / 2] : (sorted[s->n / 2 - 1] + sorted[s->n / 2]) / 2;
	free(sorted);
	pbench_format_ns(lo, sizeof(lo), med, 4);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"2\" "
		"stroke=\"#111111\"><title>median %s</title></line>\n",
		x0 - 3, ypos(a, med), x0 + bw + 14, ypos(a, med), lo);
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-weight=\"bold\" "
		"fill=\"", x0 + bw / 2, P_Y0 - 8);
	pb_svg_text(f, color);
	fputs("\">", f);
	put_name(f, s, idx);
	fputs("</text>\n", f);
	return 0;
}

int pbench_plot_runs_svg(const struct pbench_plot_series *const *series, int nseries, FILE *f,
			 const char *title)
{
	struct pbench_plot_series s[MAX_SERIES];	/* the callers' structs, each its size */
	double lo = INFINITY, hi = -INFINITY;
	size_t total = 0, first = 0;
	struct axis a;
	int err;

	if (!f || !series || nseries < 1 || nseries > MAX_SERIES)
		return pb_fail(-EINVAL, "%s(): %s (nseries %d, at most %d)", __func__, !f ?
			       "f is NULL" : !series ? "s is NULL" : "nseries is out of range",
			       nseries, MAX_SERIES);
	for (int i = 0; i < nseries; i++) {
		if ((err = series_check(series[i], i)))
			return err;
		memset(&s[i], 0, sizeof(s[i]));
		pb_copy_in(&s[i], sizeof(s[i]), series[i]);
		for (size_t k = 0; k < s[i].n; k++) {
			lo = fmin(lo, s[i].ns[k]);
			hi = fmax(hi, s[i].ns[k]);
		}
		total += s[i].n;
	}
	if (!total)
		return -EINVAL;
	axis_for(&a, lo, hi);
	frame(f, title, &a, total);
	legend(f, s, nseries);
	for (int i = 0; i < nseries; i++) {
		runs(f, &s[i], i, &a, first, total);
		err = histogram(f, &s[i], i, nseries, &a);
		if (err)
			return err;
		first += s[i].n;
	}
	fputs("</svg>\n", f);
	return pb_stream_end(f);
}
