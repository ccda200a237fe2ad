// SPDX-License-Identifier: MIT
/*
 * Which function got slower, as the contest's writers say it (opts.profile, issue 36): for
 * each challenger against the reference, the flagged symbols a line each ("beta: 1.33x the
 * time a run (99.9% interval 1.29-1.37), +4.1 ms a run"), those only in one side, the rest
 * summarized ("alpha and gamma_ the same within 2%"), the share of the whole difference in
 * the flagged ones; the same in Markdown, and the JSON's "profile" object. Read through the
 * getters of contest_profile.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "contest/contest.h"

/* The unflagged symbols summarized by name: the largest, each at least this share of the
 * reference's sampled value a run, at most SAME_NAMES of them. */
#define SAME_MIN_PCT 1.0
#define SAME_NAMES 5

struct prof_head {
	double a_run, b_run, fdr;
	int na, nb;
	size_t tested;
	const char *unit;		/* "ns" or "" (an event's count) */
	const char *event;
};

static int head_of(const struct pbench_contest *c, int i, struct prof_head *h)
{
	struct pbench_profile_info in = { .size = sizeof(in) };

	if (pb_contest_profile_sides(c, i, &h->a_run, &h->b_run, &h->na, &h->nb, &h->tested) ||
	    pbench_contest_profile_info(c, c->o.reference, &in))
		return -ENOENT;
	h->unit = !strcmp(in.unit, "ns") ? "ns" : "";
	h->event = in.event;
	h->fdr = c->o.profile_fdr > 0 ? c->o.profile_fdr : PBENCH_CONTEST_DEFAULT_PROFILE_FDR;
	return 0;
}

/* "+4.1 ms", "-120.0 us" */
static const char *signed_fig(char *buf, size_t len, double v, const char *unit)
{
	char a[40];

	pb_format_figure(a, sizeof(a), fabs(v), unit);
	snprintf(buf, len, "%s%s", !isfinite(v) ? "" : v < 0 ? "-" : "+", a);
	return buf;
}

/* "beta [shares-slow]: 1.33x the time a run (99.9% interval 1.29-1.37), +4.1 ms a run
 * (+3.9 ms to +4.3 ms), q 2.1e-12" */
static void diff_words(const struct pbench_contest *c, int i, const struct pbench_profile_diff *d,
		       const char *unit, char *buf, size_t len)
{
	const char *a = c->e[c->o.reference].name, *b = c->e[i].name;
	char x[48], lo[48], hi[48], q[32], ratio[128] = "";
	double conf = d->level * 100;

	if (d->only)
		snprintf(ratio, sizeof(ratio), "only in %s, its %.4g%% interval:", d->only == 2 ? b : a,
			 conf);
	else
		snprintf(ratio, sizeof(ratio), "%.3gx the time a run (%.4g%% interval %.3g-%.3g),",
			 d->ratio, conf, d->ratio_lo, d->ratio_hi);
	snprintf(buf, len, "%s [%s]: %s %s a run (%s to %s), q %s", d->name, d->dso, ratio,
		 signed_fig(x, sizeof(x), d->diff_ns, unit),
		 signed_fig(lo, sizeof(lo), d->diff_lo, unit),
		 signed_fig(hi, sizeof(hi), d->diff_hi, unit), pb_format_p(q, sizeof(q), d->q));
}

/* "alpha, gamma_ the same within 2%; 40 more not flagged" into buf; the share of the whole
 * difference in the flagged ones into *flagged_pct. */
static void rest_words(const struct pbench_contest *c, int i, const struct prof_head *h,
		       char *buf, size_t len, double *flagged_pct, int *nflagged)
{
	struct pbench_profile_diff d = { .size = sizeof(d) };
	double within = 0, fl = 0;
	int named = 0, more = 0;
	size_t at = 0;

	*buf = 0;
	for (int k = 0; !pbench_contest_profile_diff(c, i, k, &d); k++) {
		if (d.flagged) {
			fl += d.diff_ns;
			(*nflagged)++;
			continue;
		}
		if (named < SAME_NAMES && !d.only && isfinite(d.ratio_lo) &&
		    isfinite(d.ratio_hi) && d.a_ns >= h->a_run * SAME_MIN_PCT / 100) {
			double w = fmax(fabs(d.ratio_lo - 1), fabs(d.ratio_hi - 1)) * 100;

			within = fmax(within, w);
			at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s",
					       named ? ", " : "", d.name);
			named++;
		} else {
			more++;
		}
	}
	if (named)
		snprintf(buf + at, at < len ? len - at : 0, " the same within %.3g%%%s", within,
			 more ? ";" : "");
	at = strlen(buf);
	if (more)
		snprintf(buf + at, len - at, "%s%d %s not flagged", named ? " " : "", more,
			 more == 1 ? "other symbol" : "other symbols");
	*flagged_pct = h->b_run != h->a_run ? 100 * fl / (h->b_run - h->a_run) : NAN;
}

static void head_line(FILE *f, const struct pbench_contest *c, int i, const struct prof_head *h,
		      const char *lead)
{
	char a[48], b[48];

	fprintf(f, "%s%s against %s: self %s a run of each symbol, %s over %d and %d "
		"runs, %zu symbols tested at a %.3g%% false discovery rate (Benjamini-Hochberg); "
		"sampled a run: %s %s, %s %s\n", lead, c->e[i].name, c->e[c->o.reference].name,
		h->event, c->o.order == PBENCH_CONTEST_ORDER_INTERLEAVED && h->na == h->nb &&
		!(c->o.flags & PBENCH_CONTEST_UNPAIRED) ? "each round's runs paired" :
		"Welch's test", h->nb, h->na, h->tested, h->fdr * 100, c->e[i].name,
		pb_format_figure(b, sizeof(b), h->b_run, h->unit), c->e[c->o.reference].name,
		pb_format_figure(a, sizeof(a), h->a_run, h->unit));
}

static void text_one(FILE *f, const struct pbench_contest *c, int i)
{
	struct pbench_profile_diff d = { .size = sizeof(d) };
	struct prof_head h;
	char line[1024], rest[1024], p[16];
	double fl;
	int nfl = 0;

	if (head_of(c, i, &h))
		return;
	head_line(f, c, i, &h, "\nProfile: ");
	for (int k = 0; !pbench_contest_profile_diff(c, i, k, &d) && d.flagged; k++) {
		diff_words(c, i, &d, h.unit, line, sizeof(line));
		fprintf(f, "  %s\n", line);
	}
	rest_words(c, i, &h, rest, sizeof(rest), &fl, &nfl);
	if (!nfl)
		fprintf(f, "  no symbol changed at a %.3g%% false discovery rate\n", h.fdr * 100);
	if (*rest)
		fprintf(f, "  %s\n", rest);
	if (nfl && isfinite(fl))
		fprintf(f, "  %s of the difference is in the %s flagged\n",
			pb_format_pct(p, sizeof(p), fl, -1), nfl == 1 ? "one" : "symbols");
}

/* What entrant i's profile could not see, a note a line. */
static void caveats(FILE *f, const struct pbench_contest *c, int i)
{
	struct pbench_profile_info in = { .size = sizeof(in) };

	if (pbench_contest_profile_info(c, i, &in))
		return;
	if (in.status)
		fprintf(f, "  note (%s): no profile: %s\n", c->e[i].name, in.status);
	for (const char *s = in.status ? "" : in.caveats; *s;) {
		const char *e = strchr(s, '\n');
		int n = e ? (int)(e - s) : (int)strlen(s);

		fprintf(f, "  note (%s): %.*s\n", c->e[i].name, n, s);
		s += n + (e != NULL);
	}
}

/* The text report's part: a paragraph a challenger (nothing without a profile). */
void pb_contest_profile_text(const struct pbench_contest *c, FILE *f)
{
	if (c->o.profile && c->o.reference < c->n && !c->e[c->o.reference].r) {
		fprintf(f, "\nProfile: nothing compared: the reference, %s, is stored times, "
			"never run here\n", c->e[c->o.reference].name);
		return;
	}
	for (int i = 0; c->o.profile && i < c->n; i++)
		if (i != c->o.reference)
			text_one(f, c, i);
	for (int i = 0; c->o.profile && i < c->n; i++)
		caveats(f, c, i);
}

/* The Markdown's part: the head, a table of the flagged symbols, the rest in words. */
void pb_contest_profile_markdown(const struct pbench_contest *c, FILE *f)
{
	struct pbench_profile_diff d = { .size = sizeof(d) };
	char line[1024], rest[1024], p[16];
	struct prof_head h;
	double fl;
	int nfl;

	for (int i = 0; c->o.profile && i < c->n; i++) {
		if (i == c->o.reference || head_of(c, i, &h))
			continue;
		head_line(f, c, i, &h, "\n**Profile:** ");
		for (int k = 0; !pbench_contest_profile_diff(c, i, k, &d) && d.flagged; k++) {
			diff_words(c, i, &d, h.unit, line, sizeof(line));
			fprintf(f, "%s- `%s`\n", k ? "" : "\n", line);
		}
		nfl = 0;
		rest_words(c, i, &h, rest, sizeof(rest), &fl, &nfl);
		if (!nfl)
			fprintf(f, "\n- no symbol changed at a %.3g%% false discovery rate\n",
				h.fdr * 100);
		if (*rest)
			fprintf(f, "- %s\n", rest);
		if (nfl && isfinite(fl))
			fprintf(f, "- %s of the difference is in the flagged\n",
				pb_format_pct(p, sizeof(p), fl, -1));
	}
}

static json_t *diff_json(const struct pbench_profile_diff *d, int *bad)
{
	json_t *j = json_object();

	SET(j, "name", json_string(d->name));
	SET(j, "dso", json_string(d->dso));
	SET(j, "a", num(d->a_ns));
	SET(j, "b", num(d->b_ns));
	SET(j, "ratio", num(d->ratio));
	SET(j, "ratio_lo", num(d->ratio_lo));
	SET(j, "ratio_hi", num(d->ratio_hi));
	SET(j, "diff", num(d->diff_ns));
	SET(j, "diff_lo", num(d->diff_lo));
	SET(j, "diff_hi", num(d->diff_hi));
	SET(j, "p", num(d->p));
	SET(j, "q", num(d->q));
	SET(j, "flagged", json_boolean(d->flagged));
	SET(j, "only", json_string(d->only == 1 ? "reference" : d->only == 2 ? "entrant" : "both"));
	SET(j, "share_pct", num(d->share_pct));
	SET(j, "level", num(d->level));
	SET(j, "a_samples", unum(d->a_samples));
	SET(j, "b_samples", unum(d->b_samples));
	return j;
}

static json_t *comparison_json(const struct pbench_contest *c, int i, int *bad)
{
	struct pbench_profile_diff d = { .size = sizeof(d) };
	struct prof_head h;
	json_t *j, *syms;

	if (head_of(c, i, &h))
		return NULL;
	j = json_object();
	syms = json_array();
	SET(j, "entrant", json_integer(i));
	SET(j, "runs", json_integer(h.nb));
	SET(j, "reference_runs", json_integer(h.na));
	SET(j, "per_run", num(h.b_run));
	SET(j, "reference_per_run", num(h.a_run));
	SET(j, "tested", json_integer((json_int_t)h.tested));
	for (int k = 0; !pbench_contest_profile_diff(c, i, k, &d); k++)
		APPEND(syms, diff_json(&d, bad));
	SET(j, "symbols", syms);
	return j;
}

static json_t *entrant_info_json(const struct pbench_contest *c, int i, int *bad)
{
	struct pbench_profile_info in = { .size = sizeof(in) };
	json_t *j;

	if (pbench_contest_profile_info(c, i, &in))
		return json_null();
	j = json_object();
	SET(j, "entrant", json_integer(i));
	pb_runs_profile_info_json(j, &in, bad);
	return j;
}

/* The JSON's "profile" object (NULL when opts.profile is off). */
json_t *pb_contest_profile_json(const struct pbench_contest *c, int *bad)
{
	struct pbench_profile_info in = { .size = sizeof(in) };
	json_t *j, *cmp, *ents;

	if (!c->o.profile)
		return NULL;
	j = json_object();
	cmp = json_array();
	ents = json_array();
	SET(j, "mode", json_string(pbench_profile_mode_name(c->o.profile)));
	if (!pbench_contest_profile_info(c, c->o.reference, &in)) {
		SET(j, "event", json_string(in.event));
		SET(j, "unit", json_string(in.unit));
		SET(j, "freq_hz", num(in.freq));
	} else {
		SET(j, "event", json_null());
		SET(j, "unit", json_null());
		SET(j, "freq_hz", json_null());
	}
	SET(j, "fdr", num(c->o.profile_fdr > 0 ? c->o.profile_fdr :
			  PBENCH_CONTEST_DEFAULT_PROFILE_FDR));
	SET(j, "confidence", num(c->o.confidence));
	for (int i = 0; i < c->n; i++) {
		json_t *x = i == c->o.reference ? NULL : comparison_json(c, i, bad);

		if (x)
			APPEND(cmp, x);
		APPEND(ents, entrant_info_json(c, i, bad));
	}
	SET(j, "entrants", ents);
	SET(j, "comparisons", cmp);
	return j;
}
