/* SPDX-License-Identifier: MIT */
/*
 * The picture of a series (pbench history show --plot): each point's value with its interval,
 * the points pbench judged noisy marked, each change point a dashed line with its size, the
 * levels between them, and a change of machine drawn as a break (a gap and a label), since
 * nothing is compared across it. SVG written by hand, as base/plot.c writes the runs'. And
 * a series' report by format (pbench_history_write()), above every writer.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "history/history.h"

#define W 900
#define H 420
#define L 90		/* left margin: the axis labels */
#define R 20
#define T 50
#define B 60
#define GAP 1.5		/* a machine break, in points of width */

struct frame {
	double lo, hi, step, x0, dx;
	int n;
};

/* In halves: hi - lo of values near +-DBL_MAX would be inf. */
static double fy(const struct frame *fr, double v)
{
	return T + (H - T - B) * (1 - (v / 2 - fr->lo / 2) / (fr->hi / 2 - fr->lo / 2));
}

static double fx(const struct frame *fr, const struct pb_hview *v, int i)
{
	return L + fr->dx * (i + 0.5 + GAP * v->segment[i]);
}

static void scale(struct pbench_history *h, const struct pb_hview *v, struct frame *fr)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int i = 0; i < v->n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);
		double a = isfinite(r->lo) ? fmin(r->lo, r->value) : r->value;
		double b = isfinite(r->hi) ? fmax(r->hi, r->value) : r->value;

		lo = isfinite(a) ? fmin(lo, a) : lo;
		hi = isfinite(b) ? fmax(hi, b) : hi;
	}
	if (!isfinite(lo))
		lo = 0, hi = 1;
	if (hi <= lo && lo > 0)	/* one level: 10% of it below (never past DBL_MAX) */
		lo *= 0.9;
	else if (hi <= lo)
		hi = lo ? lo * 0.9 : 1;
	/* Values near DBL_MAX: the span in halves, the rounded ends held to the finite (a frame
	 * of inf drew axis ticks forever); a span too small for a step (subnormals): [lo, lo+1]. */
	fr->step = pb_nice_step((hi / 2 - lo / 2) / 3);
	fr->lo = fmax(floor(lo / fr->step) * fr->step, -DBL_MAX);
	fr->hi = fmin(ceil(hi / fr->step) * fr->step, DBL_MAX);
	if (!(fr->step > 0 && isfinite(fr->step) && fr->hi > fr->lo)) {
		fr->lo = lo;
		fr->hi = lo + 1 > lo ? lo + 1 : lo + fabs(lo);
		fr->step = fr->hi - fr->lo;
	}
	fr->dx = (W - L - R) / (v->n + GAP * (v->segments - 1) + 0.0);
}

static void axes(FILE *f, const struct pb_hview *v, const struct frame *fr)
{
	char lab[64];

	fprintf(f, "<text x='%d' y='28' font-size='16'>", L);
	pb_history_put(f, v->name, pb_svg_text);	/* valid UTF-8, no control character */
	fputs(" (", f);
	pb_history_put(f, v->metric, pb_svg_text);
	fprintf(f, "): %d points, %d change point%s</text>\n", v->n, v->nchanges,
		v->nchanges == 1 ? "" : "s");
	for (int k = 0; k <= 12; k++) {	/* ~7 ticks: (hi - lo) / step <= 6 + 2 */
		double y = fr->lo + k * fr->step;

		if (!isfinite(y) || y / 2 > fr->hi / 2 + fr->step / 4)
			break;
		pb_history_value_text(lab, sizeof(lab), y, v->unit);
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
			"<text x='%d' y='%.1f' font-size='11' text-anchor='end'>", L, W - R,
			fy(fr, y), fy(fr, y), L - 6, fy(fr, y) + 4);
		pb_svg_text(f, lab);	/* the unit's shown text: its & and < escaped */
		fputs("</text>\n", f);
	}
	/* The axes named: the value with its unit up the left, the commits in time along the
	 * bottom (each point's own commit and time in its <title>). */
	fprintf(f, "<text x='16' y='%d' font-size='12' text-anchor='middle' transform='rotate(-90 "
		"16 %d)'>", (T + H - B) / 2, (T + H - B) / 2);
	pb_history_put(f, v->metric, pb_svg_text);
	if (v->unit && !strcmp(v->unit, "ns")) {
		fputs(" (a time: each tick in its unit)", f);
	} else if (v->unit && *v->unit) {
		fputs(" (", f);
		pb_history_put(f, v->unit, pb_svg_text);
		fputs(")", f);
	}
	fputs("</text>\n", f);
	fprintf(f, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>commit / time, oldest "
		"first (a point's commit and time: hover it)</text>\n", (L + W - R) / 2, H - 34);
	fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='middle'>filled: clean; "
		"orange ring: judged noisy; dashed red: a change point; grey band: the machine "
		"changed</text>\n", (L + W - R) / 2, H - 16);
}

/* A point's <title>: its commit (short, + when the tree had changes), its time and value,
 * and for a noisy point how many of its runs were (noisy >= 0). */
static void point_title(FILE *f, const struct pbench_history_record *r, const char *unit,
			int noisy, int judged)
{
	char rev[PB_HISTORY_REV_LEN], date[32], val[64];

	pb_history_value_text(val, sizeof(val), r->value, unit);
	fputs("<title>", f);
	pb_svg_text(f, pb_history_short_rev(r->rev, rev));
	fprintf(f, "%s %s UTC: ", r->dirty ? "+" : "",
		pb_history_date_text(r->time_ns, date, sizeof(date)));
	pb_svg_text(f, val);
	if (noisy >= 0)
		fprintf(f, "; noisy: %d of %d runs", noisy, judged);
	fputs("</title>", f);
}

static void points(FILE *f, struct pbench_history *h, const struct pb_hview *v,
		   const struct frame *fr)
{
	for (int i = 0; i < v->n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);
		double x = fx(fr, v, i);

		if (i && v->segment[i] != v->segment[i - 1]) {
			double xb = fx(fr, v, i - 1) + fr->dx / 2;

			fprintf(f, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#eee'/>"
				"<text x='%.1f' y='%d' font-size='10' text-anchor='middle'>machine "
				"changed</text>\n", xb, T, fr->dx * GAP, H - T - B,
				xb + fr->dx * GAP / 2, T - 4);
		}
		if (!isfinite(r->value))
			continue;
		if (isfinite(r->lo) && isfinite(r->hi))
			fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#579'/>\n",
				x, x, fy(fr, r->lo), fy(fr, r->hi));
		if (pb_history_view_noisy(v, i)) {
			fprintf(f, "<circle cx='%.1f' cy='%.1f' r='5' fill='none' stroke='#e80' "
				"stroke-width='2'>", x, fy(fr, r->value));
			point_title(f, r, v->unit, v->noisy[i], v->judged[i]);
			fputs("</circle>\n", f);
		} else {
			fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='#1f4e79'>", x,
				fy(fr, r->value));
			point_title(f, r, v->unit, -1, 0);
			fputs("</circle>\n", f);
		}
	}
}

static void changes(FILE *f, struct pbench_history *h, const struct pb_hview *v,
		    const struct frame *fr)
{
	for (int i = 0; i < v->nchanges; i++) {
		const struct pbench_history_change *c = pb_history_view_change(h, i);
		double x = fx(fr, v, c->index) - fr->dx / 2;

		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#c00' "
			"stroke-dasharray='6,4'/><text x='%.1f' y='%d' font-size='11' fill='#c00'>"
			"%+.1f%%</text>\n", x, x, T, H - B, x + 3, T + 12 + 12 * (i % 3),
			100 * c->rel);
	}
}

int pbench_history_plot_svg(struct pbench_history *h, const char *name,
			    const struct pbench_history_changes_opts *opts, FILE *f)
{
	struct pb_hview v;
	struct frame fr = { 0 };
	int rc = f ? pb_history_view(h, name, opts, &v) : pb_fail(-EINVAL, "%s(): f is NULL",
								 __func__);

	if (rc)
		return rc;
	scale(h, &v, &fr);
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 "
		"%d %d' font-family='sans-serif'>\n<rect width='100%%' height='100%%' "
		"fill='white'/>\n", W, H, W, H);
	axes(f, &v, &fr);
	points(f, h, &v, &fr);
	changes(f, h, &v, &fr);
	fputs("</svg>\n", f);
	pb_history_view_free(&v);
	return pb_stream_end(f);
}

int pbench_history_write(struct pbench_history *h, const char *name,
			 const struct pbench_history_changes_opts *opts, int fmt, FILE *f)
{
	switch (fmt) {
	case PBENCH_REPORT_FORMAT_JSON:
		return pbench_history_write_json(h, name, opts, f);
	case PBENCH_REPORT_FORMAT_CSV:
		return pbench_history_write_csv(h, name, opts, f);
	case PBENCH_REPORT_FORMAT_MARKDOWN:
		return pbench_history_write_markdown(h, name, opts, f);
	case PBENCH_REPORT_FORMAT_SVG:
		return pbench_history_plot_svg(h, name, opts, f);
	case PBENCH_REPORT_FORMAT_TEXT:
		return pbench_history_write_text(h, name, opts, f);
	}
	return pb_fail(-EINVAL, "%s(): no report format %d", __func__, fmt);
}
