/* SPDX-License-Identifier: MIT */
/*
 * A run over time as people read it (opts.interval_ms; runs_interval.c measures it): the text
 * perf stat -I prints, condensed to one line an interval with the events as columns (perf
 * prints a line per event and interval, which for eight events is eight lines a step), and an
 * SVG of each event's rate over the run's time, a panel an event and a line a run: where in
 * the run the command slowed, and what the counters did then.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "runs/runs_inner.h"

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

/* The events the set counted in some way (as its table of runs shows them, or the run the
 * stop cut short when none was done): 1 or 0. */
static int shown(const struct pb_set *s, int e)
{
	return (s->done || s->cut) && s->runs[0].counts[e].status <= PBENCH_EVENT_NOT_COUNTED;
}

/* The block's title of run i of s: "prepared, run 2", or for the run the stop cut short
 * (i == done) what it was, "check run (stopped by the signal: not a measurement)". */
static void run_title(const struct pb_set *s, int i, char *buf, size_t len)
{
	if (i < s->done)
		snprintf(buf, len, "%s, run %d", pbench_runs_mode_name(s->mode), i + 1);
	else if (!strcmp(s->cut, "run"))
		snprintf(buf, len, "%s, run %d (stopped: cut short, not a measurement)",
			 pbench_runs_mode_name(s->mode), i + 1);
	else
		snprintf(buf, len, "%s (stopped: cut short, not a measurement)", s->cut);
}

/* The runs of s whose intervals are shown: done, and the one the stop cut short. */
static int runs_shown(const struct pb_set *s)
{
	return s->done + (s->cut && s->runs[s->done].niv > 0);
}

static const char *partial_note(int partial)
{
	return partial == 2 ? "partial: stopped by the signal" : "partial: the run ended";
}

static int col_width(const char *name)
{
	int w = (int)strlen(name);

	return w < 12 ? 12 : w;
}

static void fmt_count(const struct pbench_count *k, char *buf, size_t len)
{
	int n;

	if (k->status > PBENCH_EVENT_MULTIPLEXED) {
		snprintf(buf, len, "-");
		return;
	}
	n = is_time_event(k->name) && k->scaled ? pbench_format_ns(buf, len, k->scaled, 4)
						: snprintf(buf, len, "%.0f", k->scaled);
	if (n > 0 && (size_t)n < len && k->is_scaled)
		snprintf(buf + n, len - (size_t)n, "*");
}

/* task-clock in the interval over its wall time ("CPUs utilized" per interval); -1 when
 * task-clock is not an event of r, NaN when it was not counted in it. */
static double cpus_used(const struct pbench_runs *r, const struct pb_run *run, int k, int tc)
{
	const struct pbench_count *c;

	if (tc < 0)
		return -1;
	c = &run->iv_counts[(size_t)k * (size_t)r->nr + (size_t)tc];
	if (c->status > PBENCH_EVENT_MULTIPLEXED || !run->iv[k].ns)
		return NAN;
	return c->scaled / (double)run->iv[k].ns;
}

static void run_block(const struct pbench_runs *r, const struct pb_set *s, int i, int tc,
		      FILE *f)
{
	const struct pb_run *run = &s->runs[i];
	char buf[64], title[128];

	run_title(s, i, title, sizeof(title));
	fprintf(f, "\n%s: %d interval%s of %g ms\n", title, run->niv, run->niv == 1 ? "" : "s",
		r->o.interval_ms);
	fprintf(f, "%10s %10s", "time (s)", "wall");
	if (tc >= 0)
		fprintf(f, " %5s", "CPUs");
	for (int e = 0; e < r->nr; e++)
		if (shown(s, e))
			fprintf(f, "  %*s", col_width(run->counts[e].name), run->counts[e].name);
	fputc('\n', f);
	for (int k = 0; k < run->niv; k++) {
		const struct pb_interval *iv = &run->iv[k];
		double cpus = cpus_used(r, run, k, tc);

		pbench_format_ns(buf, sizeof(buf), (double)iv->ns, 4);
		fprintf(f, "%10.3f %10s", (double)(iv->start_ns + iv->ns) / 1e9, buf);
		if (tc >= 0 && isfinite(cpus))
			fprintf(f, " %5.2f", cpus);
		else if (tc >= 0)
			fprintf(f, " %5s", "-");
		for (int e = 0; e < r->nr; e++) {
			if (!shown(s, e))
				continue;
			fmt_count(&run->iv_counts[(size_t)k * (size_t)r->nr + (size_t)e], buf,
				  sizeof(buf));
			fprintf(f, "  %*s", col_width(run->counts[e].name), buf);
		}
		if (iv->partial)
			fprintf(f, "  (%s)", partial_note(iv->partial));
		fputc('\n', f);
	}
}

int pb_runs_intervals_text(const struct pbench_runs *r, const struct pb_set *s, FILE *f)
{
	int tc = pb_runs_event_index(r, "task-clock"), any = 0;

	if (!(r->o.interval_ms > 0))
		return 0;
	if (tc >= 0 && !shown(s, tc))
		tc = -1;
	for (int i = 0; i < runs_shown(s); i++) {
		if (!s->runs[i].niv)
			continue;
		run_block(r, s, i, tc, f);
		any = 1;
	}
	if (any)
		fprintf(f, "(time: the interval's end since the run's start; CPUs: task-clock over "
			"the interval's wall time; -: not counted in it; *: scaled, the event "
			"shared a counter)\n");
	return 0;
}

/* One run's intervals as a GitHub table: the text's columns, a row an interval. */
static void md_block(const struct pbench_runs *r, const struct pb_set *s, int i, int tc, FILE *f)
{
	const struct pb_run *run = &s->runs[i];
	char buf[64], title[128];

	run_title(s, i, title, sizeof(title));
	fprintf(f, "\n%s: %d interval%s of %g ms\n\n| Time (s) | Wall |%s", title, run->niv,
		run->niv == 1 ? "" : "s", r->o.interval_ms, tc >= 0 ? " CPUs |" : "");
	for (int e = 0; e < r->nr; e++)
		if (shown(s, e))
			fprintf(f, " %s |", run->counts[e].name);
	fputs(" Note |\n|---:|---:|", f);
	for (int e = tc >= 0 ? -1 : 0; e < r->nr; e++)
		if (e < 0 || shown(s, e))
			fputs("---:|", f);
	fputs(":---|\n", f);
	for (int k = 0; k < run->niv; k++) {
		const struct pb_interval *iv = &run->iv[k];
		double cpus = cpus_used(r, run, k, tc);

		pbench_format_ns(buf, sizeof(buf), (double)iv->ns, 4);
		fprintf(f, "| %.3f | %s |", (double)(iv->start_ns + iv->ns) / 1e9, buf);
		if (tc >= 0 && isfinite(cpus))
			fprintf(f, " %.2f |", cpus);
		else if (tc >= 0)
			fputs(" - |", f);
		for (int e = 0; e < r->nr; e++) {
			if (!shown(s, e))
				continue;
			fmt_count(&run->iv_counts[(size_t)k * (size_t)r->nr + (size_t)e], buf,
				  sizeof(buf));
			fprintf(f, " %s |", *buf == '-' ? "\\-" : buf);
		}
		if (iv->partial)
			fprintf(f, " %s", partial_note(iv->partial));
		fputs(" |\n", f);
	}
}

int pb_runs_intervals_markdown(const struct pbench_runs *r, FILE *f)
{
	int tc = pb_runs_event_index(r, "task-clock"), any = 0;

	if (!(r->o.interval_ms > 0))
		return 0;
	for (int si = 0; si < r->nsets; si++) {
		const struct pb_set *s = &r->sets[si];
		int t = tc >= 0 && shown(s, tc) ? tc : -1;

		for (int i = 0; i < runs_shown(s); i++) {
			if (!s->runs[i].niv)
				continue;
			md_block(r, s, i, t, f);
			any = 1;
		}
	}
	if (any)
		fprintf(f, "\nTime: the interval's end since the run's start; CPUs: task-clock over "
			"the interval's wall time; -: not counted in it; \\*: scaled, the event "
			"shared a counter.\n");
	return 0;
}

/* ---- the SVG -------------------------------------------------------------------------------- */

#define W 900
#define PL 100		/* left margin: the axis labels */
#define PR 20
#define TOP 70
#define PH 130		/* a panel's height */
#define GAP 34		/* between panels: the next one's title */
#define MAX_PANELS 8

static const char *const set_color[] = { "#d95f02", "#1f6fb4" };

/* Event e's figure in interval k of run: CPUs for a time event, else events per second;
 * NaN when not counted. */
static double rate(const struct pbench_runs *r, const struct pb_run *run, int k, int e)
{
	const struct pbench_count *c = &run->iv_counts[(size_t)k * (size_t)r->nr + (size_t)e];
	double ns = (double)run->iv[k].ns;

	if (c->status > PBENCH_EVENT_MULTIPLEXED || !(ns > 0))
		return NAN;
	return is_time_event(c->name) ? c->scaled / ns : c->scaled / ns * 1e9;
}

static void fmt_si(char *buf, size_t len, double v)
{
	static const char *const sfx[] = { "", "K", "M", "G", "T" };
	int i = 0;

	while (fabs(v) >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g%s", v, sfx[i]);
}

struct panel {
	int e;
	double hi, y0;	/* the axis's top value, the panel's top in px */
};

/* The panel of event e: its frame, grid, title and axis labels; hi set. */
static void panel_frame(const struct pbench_runs *r, struct panel *p, FILE *f)
{
	const char *name = pbench_counters_name(r->self, p->e);
	double step, hi = 0;
	char lab[32];

	for (int s = 0; s < r->nsets; s++)
		for (int i = 0; i < r->sets[s].done; i++)
			for (int k = 0; k < r->sets[s].runs[i].niv; k++) {
				double v = rate(r, &r->sets[s].runs[i], k, p->e);

				hi = isfinite(v) && v > hi ? v : hi;
			}
	step = pb_nice_step((hi > 0 ? hi : 1) / 4);
	p->hi = ceil((hi > 0 ? hi : 1) / step) * step;
	fprintf(f, "<text x='%d' y='%.0f' font-size='13' font-weight='bold'>", PL, p->y0 - 8);
	pb_svg_text(f, name);
	fprintf(f, "%s</text>\n", is_time_event(name) ? ": CPUs (its time over the interval's "
		"wall time)" : " per second");
	for (double y = 0; y <= p->hi + step / 2; y += step) {
		double py = p->y0 + PH * (1 - y / p->hi);

		fmt_si(lab, sizeof(lab), y);
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/><text x='%d' "
			"y='%.1f' font-size='11' text-anchor='end'>%s</text>\n", PL, W - PR, py, py,
			PL - 6, py + 4, lab);
	}
	fprintf(f, "<rect x='%d' y='%.0f' width='%d' height='%d' fill='none' stroke='#444'/>\n",
		PL, p->y0, W - PL - PR, PH);
}

/* One run's line in panel p: a step a interval (its rate across its span), broken where the
 * event was not counted. */
static void panel_run(const struct pbench_runs *r, const struct panel *p, const struct pb_run *run,
		      const char *color, double t_hi, FILE *f)
{
	int open = 0;

	for (int k = 0; k < run->niv; k++) {
		double v = rate(r, run, k, p->e), py;
		double x0 = PL + (W - PL - PR) * ((double)run->iv[k].start_ns / 1e9) / t_hi;
		double x1 = PL + (W - PL - PR) * ((double)(run->iv[k].start_ns + run->iv[k].ns) /
						   1e9) / t_hi;

		if (!isfinite(v)) {
			if (open)
				fputs("'/>\n", f);
			open = 0;
			continue;
		}
		py = p->y0 + PH * (1 - v / p->hi);
		if (!open)
			fprintf(f, "<polyline fill='none' stroke='%s' stroke-opacity='0.7' "
				"stroke-width='1.5' points='", color);
		fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0, py, x1, py);
		open = 1;
	}
	if (open)
		fputs("'/>\n", f);
}

int pb_runs_intervals_svg(const struct pbench_runs *r, FILE *f)
{
	struct panel p[MAX_PANELS];
	double t_hi = 0, step;
	int np = 0, h, nruns = 0;
	char title[512];

	for (int e = 0; e < r->nr && np < MAX_PANELS; e++)
		if (r->nsets && shown(&r->sets[r->nsets - 1], e) &&
		    r->sets[r->nsets - 1].runs[0].counts[e].status <= PBENCH_EVENT_MULTIPLEXED)
			p[np++].e = e;
	for (int s = 0; s < r->nsets; s++)
		for (int i = 0; i < r->sets[s].done; i++) {
			const struct pb_run *run = &r->sets[s].runs[i];

			nruns += run->niv > 0;
			if (run->niv)
				t_hi = fmax(t_hi, (double)(run->iv[run->niv - 1].start_ns +
							   run->iv[run->niv - 1].ns) / 1e9);
		}
	if (!nruns)
		return -ENODATA;
	step = pb_nice_step(t_hi / 8);
	t_hi = ceil(t_hi / step) * step;
	h = TOP + np * (PH + GAP) + 40;
	fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' "
		"version='1.1' width='%d' height='%d' viewBox='0 0 %d %d' font-family='sans-serif' "
		"font-size='12'>\n<rect width='%d' height='%d' fill='#fff'/>\n", W, h, W, h, W, h);
	snprintf(title, sizeof(title), "pbench stat -I %g:", r->o.interval_ms);
	for (char **a = r->subject.argv; a && *a && strlen(title) + strlen(*a) + 2 < sizeof(title); a++)
		strcat(strcat(title, " "), *a);
	fprintf(f, "<text x='%d' y='24' font-size='15' font-weight='bold'>", PL);
	pb_svg_text(f, title);
	fprintf(f, "</text>\n<text x='%d' y='44' font-size='12'>each run over its time, a step "
		"an interval (%d run%s; orange: unprepared, blue: prepared; a gap: not counted "
		"then)</text>\n", PL, nruns, nruns == 1 ? "" : "s");
	for (int j = 0; j < np; j++) {
		p[j].y0 = TOP + j * (PH + GAP) + 20;
		panel_frame(r, &p[j], f);
		for (int s = 0; s < r->nsets; s++)
			for (int i = 0; i < r->sets[s].done; i++)
				panel_run(r, &p[j], &r->sets[s].runs[i],
					  set_color[r->sets[s].mode == PBENCH_RUNS_PREPARED], t_hi, f);
	}
	for (double t = 0; t <= t_hi + step / 2; t += step) {
		double x = PL + (W - PL - PR) * t / t_hi;

		fprintf(f, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%g</text>\n", x,
			h - 26, t);
	}
	fprintf(f, "<text x='%d' y='%d' font-size='13' text-anchor='middle'>time since the "
		"run's start (s)</text>\n</svg>\n", (PL + W - PR) / 2, h - 8);
	return pb_stream_end(f);
}
