/* SPDX-License-Identifier: MIT */
/*
 * The reports of the history (issue 24): the list of series, a series with its change
 * points, its noisy points and its machines' segments as text, JSON, Markdown (a pull-request
 * comment) and CSV; the gate's verdict in one line; the newest points in the OpenMetrics text
 * format. All on history_view.c, so none of this knows the backend.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "stats/changepoint.h"
#include "history/history.h"

void pb_history_value_text(char *buf, size_t len, double v, const char *unit)
{
	char *u = unit && *unit ? pb_text_shown(unit) : NULL;

	/* a time in its unit, any other figure grouped by thousands, never an exponent */
	pb_format_figure(buf, len, v, unit && !strcmp(unit, "ns") ? unit : u);
	free(u);
}

void pb_history_put(FILE *f, const char *s, void (*esc)(FILE *f, const char *s))
{
	char *t = pb_text_shown(s ? s : "");

	if (esc)
		esc(f, t ? t : "?");
	else
		fputs(t ? t : "?", f);
	free(t);
}

/* s as it is when UTF-8 (a JSON, CSV or OpenMetrics writer escapes what its format needs),
 * else shown (pb_text_shown()): those formats hold UTF-8 only. Malloc'd (NULL: no memory). */
static char *utf8_or_shown(const char *s)
{
	return pb_text_check(s ? s : "", 0) ? pb_text_shown(s) : strdup(s ? s : "");
}

/* The first 12 bytes of a commit (not cutting a UTF-8 character), shown (history.h). */
#define REV_LEN PB_HISTORY_REV_LEN
const char *pb_history_short_rev(const char *rev, char *buf)
{
	char cut[13], *t;
	size_t n = 12;

	if (!rev || !*rev)
		return strcpy(buf, "-");
	if (strlen(rev) > n)
		while (n > 9 && ((unsigned char)rev[n] & 0xc0) == 0x80)
			n--;
	snprintf(cut, sizeof(cut), "%.*s", (int)n, rev);
	t = pb_text_shown(cut);
	snprintf(buf, REV_LEN, "%s", t ? t : "?");
	free(t);
	return buf;
}

const char *pb_history_date_text(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "-");
	return buf;
}

/* "+20.1% [+18.9%, +21.3%]"; "from -2 to -1" where a relative change has no meaning (a
 * baseline not above 0, pbench_history_change's rel NaN). */
static const char *change_text(const struct pbench_history_change *c, const char *unit,
			       char *buf, size_t len)
{
	char a[64], b[64];

	if (isnan(c->rel)) {
		pb_history_value_text(a, sizeof(a), c->mean_before, unit);
		pb_history_value_text(b, sizeof(b), c->mean_after, unit);
		snprintf(buf, len, "from %s to %s", a, b);
	} else if (isfinite(c->rel_lo) && isfinite(c->rel_hi))
		snprintf(buf, len, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * c->rel, 100 * c->rel_lo,
			 100 * c->rel_hi);
	else
		snprintf(buf, len, "%+.1f%%", 100 * c->rel);
	return buf;
}

int pbench_history_write_list(struct pbench_history *h, FILE *f)
{
	struct pbench_history_series s;
	char date[32];
	int n;

	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	if ((n = pbench_history_series_count(h)) < 0)
		return n;
	if (!n)
		fprintf(f, "no series yet (pbench stat --record NAME, or pbench history add NAME "
			"FILE)\n");
	else
		fprintf(f, "%-32s %-14s %6s  %-16s %s\n", "series", "metric", "points", "machine",
			"newest");
	for (int i = 0; i < n; i++) {
		char *nm, *mt, *fp;

		s.size = sizeof(s);
		if (pbench_history_series_get(h, i, &s))
			continue;
		nm = pb_text_shown(s.name);
		mt = pb_text_shown(s.metric);
		fp = pb_text_shown(s.fingerprint);
		if (nm && mt && fp)
			fprintf(f, "%-32s %-14s %6zu  %-16s %s\n", nm, mt, s.points, fp,
				pb_history_date_text(s.last_ns, date, sizeof(date)));
		free(nm);
		free(mt);
		free(fp);
		if (!nm || !mt || !fp)
			return -ENOMEM;
	}
	return pb_stream_end(f);
}

static void segment_text(FILE *f, const struct pbench_history_record *r, int first)
{
	fprintf(f, "%s machine ", first ? "--" : "-- new segment:");
	pb_history_put(f, r->fingerprint, NULL);
	fputs(": ", f);
	pb_history_put(f, r->cpu_model, NULL);
	fputs(", microcode ", f);
	pb_history_put(f, *r->microcode ? r->microcode : "n/a", NULL);
	fputs(", kernel ", f);
	pb_history_put(f, r->kernel, NULL);
	fputs(", pbench ", f);
	pb_history_put(f, r->pbench_version, NULL);
	fprintf(f, "%s\n", first ? "" : " (the machine changed: nothing is compared across it)");
}

int pbench_history_write_text(struct pbench_history *h, const char *name,
			      const struct pbench_history_changes_opts *opts, FILE *f)
{
	struct pb_hview v;
	char val[64], lo[64], hi[64], rb[REV_LEN], ra[REV_LEN], date[32], ch[192], pt[32];
	int rc = f ? pb_history_view(h, name, opts, &v) : pb_fail(-EINVAL, "%s(): f is NULL",
								 __func__);

	if (rc)
		return rc;
	fputs("series '", f);
	pb_history_put(f, name, NULL);
	fputs("' (", f);
	pb_history_put(f, v.metric, NULL);
	fprintf(f, "): %d points, %d change point%s, %d machine%s\n", v.n, v.nchanges,
		v.nchanges == 1 ? "" : "s", v.segments, v.segments == 1 ? "" : "s");
	for (int i = 0; i < v.n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);
		const struct pbench_history_change *c = pb_history_view_change_at(h, i);

		if (!i || v.segment[i] != v.segment[i - 1])
			segment_text(f, r, !i);
		if (c)
			fprintf(f, "-- change point: %s (p %s) between %s and %s\n",
				change_text(c, v.unit, ch, sizeof(ch)),
				pb_format_p(pt, sizeof(pt), c->p),
				pb_history_short_rev(c->rev_before, rb),
				pb_history_short_rev(c->rev_after, ra));
		pb_history_value_text(val, sizeof(val), r->value, r->unit);
		pb_history_value_text(lo, sizeof(lo), r->lo, r->unit);
		pb_history_value_text(hi, sizeof(hi), r->hi, r->unit);
		fprintf(f, "%5d  %-12s%s %s  %12s", i + 1, pb_history_short_rev(r->rev, rb),
			r->dirty ? "+" : " ", pb_history_date_text(r->time_ns, date, sizeof(date)),
			val);
		if (isfinite(r->lo))
			fprintf(f, "  [%s, %s]", lo, hi);
		if (r->n_runs)
			fprintf(f, "  %zu run%s", r->n_runs, r->n_runs == 1 ? "" : "s");
		if (pb_history_view_noisy(&v, i))
			fprintf(f, "  noisy: %d of %d runs", v.noisy[i], v.judged[i]);
		fputc('\n', f);
	}
	pb_history_view_free(&v);
	return pb_stream_end(f);
}

/* A string of the store as a JSON string: as it is when UTF-8, else shown; NULL: no memory
 * (the caller's SET()/APPEND() count it). */
static json_t *jstr(const char *s)
{
	char *t = utf8_or_shown(s);
	json_t *j = t ? json_string(t) : NULL;

	free(t);
	return j;
}

static json_t *segments_json(struct pbench_history *h, const struct pb_hview *v, int *bad)
{
	json_t *a = json_array();

	for (int i = 0; a && i < v->n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);

		if (i && v->segment[i] == v->segment[i - 1])
			continue;
		APPEND(a, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				    "first", i, "fingerprint", jstr(r->fingerprint), "cpu_model",
				    jstr(r->cpu_model), "microcode", jstr(r->microcode), "kernel",
				    jstr(r->kernel), "governor", jstr(r->governor), "smt",
				    jstr(r->smt), "isolation", jstr(r->isolation), "virt",
				    jstr(r->virt), "pbench_version", jstr(r->pbench_version)));
	}
	return a;
}

static json_t *points_json(struct pbench_history *h, const struct pb_hview *v, int *bad)
{
	json_t *a = json_array();

	for (int i = 0; a && i < v->n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);
		json_t *runs = json_array(), *p;

		for (size_t k = 0; runs && k < r->n_runs; k++)
			APPEND(runs, json_pack("{s:o, s:o}", "value", num(r->run_values[k]), "noisy",
					       r->run_noisy[k] < 0 ? json_null() :
					       json_boolean(r->run_noisy[k] > 0)));
		p = json_pack("{s:I, s:o, s:b, s:o, s:I, s:o, s:o, s:o, s:i, s:b, s:o}", "id",
			      (json_int_t)r->id, "rev", jstr(r->rev), "dirty", r->dirty, "branch",
			      jstr(r->branch), "time_ns", (json_int_t)r->time_ns, "value", num(r->value),
			      "lo", num(r->lo), "hi", num(r->hi), "segment", v->segment[i], "noisy",
			      pb_history_view_noisy(v, i), "runs", runs ? runs : json_null());
		APPEND(a, p);
	}
	return a;
}

static json_t *changes_json(struct pbench_history *h, const struct pb_hview *v, int *bad)
{
	json_t *a = json_array();

	for (int i = 0; a && i < v->nchanges; i++) {
		const struct pbench_history_change *c = pb_history_view_change(h, i);

		APPEND(a, json_pack("{s:i, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
				    "index", c->index, "rev_before", jstr(c->rev_before),
				    "rev_after", jstr(c->rev_after), "time_ns", (json_int_t)c->time_ns, "mean_before",
				    num(c->mean_before), "mean_after", num(c->mean_after), "rel_pct",
				    num(100 * c->rel), "rel_lo_pct", num(100 * c->rel_lo),
				    "rel_hi_pct", num(100 * c->rel_hi), "p", num(c->p), "direction",
				    c->direction));
	}
	return a;
}

static json_t *series_json(struct pbench_history *h, const struct pb_hview *v,
			   const struct pbench_history_changes_opts *o, int *bad)
{
	json_t *root = json_object();

	if (!root)
		return NULL;
	SET(root, "schema", json_integer(PBENCH_JSON_SCHEMA));
	SET(root, "pbench_version", json_string(pbench_version()));
	SET(root, "name", jstr(v->name));
	SET(root, "metric", jstr(v->metric));
	SET(root, "unit", jstr(v->unit));
	SET(root, "options", json_pack("{s:f, s:f, s:I, s:I}",
				       "p", o->p > 0 ? o->p : PB_CP_P_DEFAULT,
				       "min_rel_pct", 100 * o->min_rel,
				       "window", (json_int_t)(o->window ? o->window :
							      PB_CP_WINDOW_DEFAULT),
				       "min_segment", (json_int_t)(o->min_segment ? o->min_segment :
								   PB_CP_MIN_SEGMENT_DEFAULT)));
	SET(root, "segments", segments_json(h, v, bad));
	SET(root, "points", points_json(h, v, bad));
	SET(root, "changes", changes_json(h, v, bad));
	return root;
}

int pbench_history_write_json(struct pbench_history *h, const char *name,
			      const struct pbench_history_changes_opts *opts, FILE *f)
{
	struct pbench_history_changes_opts o = { .size = sizeof(o) };
	struct pb_hview v;
	json_t *root;
	int bad = 0, rc = f ? pb_history_view(h, name, opts, &v) : pb_fail(-EINVAL, "%s(): f is "
									 "NULL", __func__);

	if (rc)
		return rc;
	if (opts)
		pb_copy_in(&o, sizeof(o), opts);
	root = series_json(h, &v, &o, &bad);
	pb_history_view_free(&v);
	if (!root || bad) {
		json_decref(root);
		return -ENOMEM;
	}
	rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	fputc('\n', f);
	rc = pb_stream_end(f) ?: rc ? -EIO : 0;
	return rc;
}

/* Our own text in a table cell: a pipe (a unit's, shown already) would end the cell. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* The newest points shown in a pull-request comment: the changes list the rest. */
#define MD_POINTS 20

int pbench_history_write_markdown(struct pbench_history *h, const char *name,
				  const struct pbench_history_changes_opts *opts,
				  FILE *f)
{
	struct pb_hview v;
	char val[64], rb[REV_LEN], ra[REV_LEN], ch[192], pt[32];
	int rc = f ? pb_history_view(h, name, opts, &v) : pb_fail(-EINVAL, "%s(): f is NULL",
								 __func__);

	if (rc)
		return rc;
	fputs("### pbench history: ", f);
	pb_history_put(f, name, pb_md_code);
	fputs(" (", f);
	pb_history_put(f, v.metric, pb_md_text);
	fprintf(f, ")\n\n%d points, %d change point%s, %d machine%s.\n\n", v.n, v.nchanges,
		v.nchanges == 1 ? "" : "s", v.segments, v.segments == 1 ? "" : "s");
	if (v.nchanges)
		fputs("| change | between | and | p |\n|---|---|---|---|\n", f);
	for (int i = 0; i < v.nchanges; i++) {
		const struct pbench_history_change *c = pb_history_view_change(h, i);

		fprintf(f, "| %s ", c->direction > 0 ? "slower" : "faster");
		md_cell(f, change_text(c, v.unit, ch, sizeof(ch)));
		fputs(" | ", f);
		pb_md_code(f, pb_history_short_rev(c->rev_before, rb));
		fputs(" | ", f);
		pb_md_code(f, pb_history_short_rev(c->rev_after, ra));
		fprintf(f, " | %s |\n", pb_format_p(pt, sizeof(pt), c->p));
	}
	fprintf(f, "%s| # | commit | value | runs | note |\n|---|---|---|---|---|\n",
		v.nchanges ? "\n" : "");
	for (int i = v.n > MD_POINTS ? v.n - MD_POINTS : 0; i < v.n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);
		const struct pbench_history_change *c = pb_history_view_change_at(h, i);

		pb_history_value_text(val, sizeof(val), r->value, r->unit);
		fprintf(f, "| %d | ", i + 1);
		pb_md_code(f, pb_history_short_rev(r->rev, rb));
		fprintf(f, "%s | ", r->dirty ? " (dirty)" : "");
		md_cell(f, val);
		fprintf(f, " | %zu | ", r->n_runs);
		md_cell(f, c ? change_text(c, v.unit, ch, sizeof(ch)) : "");
		fprintf(f, "%s%s |\n", i && v.segment[i] != v.segment[i - 1] ? " new machine" : "",
			pb_history_view_noisy(&v, i) ? " noisy" : "");
	}
	pb_history_view_free(&v);
	return pb_stream_end(f);
}

/* A CSV field of the store: UTF-8 as it is (quoted as RFC 4180 says), else shown. */
static void csv_field(FILE *f, const char *s)
{
	char *t = utf8_or_shown(s);

	pb_csv_text(f, t ? t : "?");
	free(t);
}

int pbench_history_write_csv(struct pbench_history *h, const char *name,
			     const struct pbench_history_changes_opts *opts, FILE *f)
{
	struct pb_hview v;
	int rc = f ? pb_history_view(h, name, opts, &v) : pb_fail(-EINVAL, "%s(): f is NULL",
								 __func__);

	if (rc)
		return rc;
	fputs("index,id,rev,dirty,branch,time_ns,value,lo,hi,runs,noisy_runs,judged_runs,noisy,"
	      "segment,fingerprint,change_pct\n", f);
	for (int i = 0; i < v.n; i++) {
		const struct pbench_history_record *r = pb_history_view_point(h, i);
		const struct pbench_history_change *c = pb_history_view_change_at(h, i);

		fprintf(f, "%d,%" PRId64 ",", i, r->id);
		csv_field(f, r->rev);
		fprintf(f, ",%d,", r->dirty);
		csv_field(f, r->branch);
		fprintf(f, ",%" PRId64 ",%.10g,", r->time_ns, r->value);
		if (isfinite(r->lo))
			fprintf(f, "%.10g,%.10g", r->lo, r->hi);
		else
			fputc(',', f);
		fprintf(f, ",%zu,%d,%d,%d,%d,", r->n_runs, v.noisy[i], v.judged[i],
			pb_history_view_noisy(&v, i), v.segment[i]);
		csv_field(f, r->fingerprint);
		fputc(',', f);
		if (c)
			fprintf(f, "%.4g", 100 * c->rel);
		fputc('\n', f);
	}
	pb_history_view_free(&v);
	return pb_stream_end(f);
}

/* ---- the gate ----------------------------------------------------------------------------- */

/* The verdict in one line; c: the newest change (NULL: none), unit its values'. */
static int verdict_line(struct pbench_history *h, const char *name, double thr,
			const struct pbench_history_change *c, const char *unit,
			struct pbench_history_verdict *out)
{
	char ch[192], rb[REV_LEN], ra[REV_LEN], pt[32], noise[160] = "", *line = NULL, *nm;
	int n, up = c && c->direction > 0;

	if (!(nm = pb_text_shown(name)))
		return -ENOMEM;
	if (c)
		change_text(c, unit, ch, sizeof(ch));
	pb_format_p(pt, sizeof(pt), out->p);
	pb_history_short_rev(out->rev_before, rb);
	pb_history_short_rev(out->rev_after, ra);
	if (out->noisy_after)
		snprintf(noise, sizeof(noise), "; within the noise: pbench judged %d of them noisy, "
			 "measure again on a quiet machine", out->noisy_after);
	if (out->regression && isnan(out->rel))
		n = asprintf(&line, "regression in '%s': %s (p %s), higher, between %s and %s (%d "
			     "point%s since): against a level not above 0 a change has no relative "
			     "size, so the %g%% threshold cannot excuse it%s", nm, ch, pt, rb, ra,
			     out->points_after, out->points_after == 1 ? "" : "s", thr, noise);
	else if (out->regression)
		n = asprintf(&line, "regression in '%s': %s (p %s), slower than the %g%% "
			     "threshold, between %s and %s (%d point%s since)%s", nm, ch, pt,
			     thr, rb, ra, out->points_after, out->points_after == 1 ? "" : "s",
			     noise);
	else if (out->found)
		n = asprintf(&line, "no regression in '%s': the newest change, %s (p %s) between "
			     "%s and %s, is %s%.3g%%%s", nm, ch, pt, rb, ra, !up ?
			     "faster, not slower than the " : "below the threshold of ", thr,
			     !up ? " threshold" : "");
	else
		n = asprintf(&line, "no regression in '%s': no change among its newest points%s",
			     nm, out->segments > 1 ? " (since the machine changed)" : "");
	free(nm);
	if (n < 0)
		return -ENOMEM;
	h->verdict_strs[2] = line;
	out->line = line;
	return 0;
}

int pbench_history_check(struct pbench_history *h, const char *name,
			 const struct pbench_history_changes_opts *opts,
			 double threshold_pct, int last,
			 struct pbench_history_verdict *out)
{
	struct pbench_history_verdict r = { .size = sizeof(r), .rel = NAN, .rel_lo = NAN,
					    .rel_hi = NAN, .p = NAN, .rev_before = "",
					    .rev_after = "" };
	struct pbench_history_change newest = { .size = sizeof(newest) };
	struct pb_hview v;
	char unit[64];
	int rc = PB_CHECK_STRUCT(out, pbench_history_verdict, 0, NULL), seg0 = 0;

	if (rc)
		return rc;
	if (!(threshold_pct >= 0) || last < 0)
		return pb_fail(-EINVAL, "%s(): threshold_pct %g or last %d is negative", __func__,
			       threshold_pct, last);
	threshold_pct = threshold_pct > 0 ? threshold_pct : PBENCH_HISTORY_THRESHOLD_PCT;
	last = last ? last : PBENCH_HISTORY_GATE_LAST;
	if ((rc = pb_history_view(h, name, opts, &v)))
		return rc;
	for (int i = 0; i < v.n; i++)
		seg0 = v.segment[i] != v.segment[v.n - 1] ? i + 1 : seg0;
	r.segments = v.segments;
	for (int i = v.nchanges - 1; i >= 0; i--) {
		const struct pbench_history_change *c = pb_history_view_change(h, i);

		if (c->index < seg0 || c->index < v.n - last)
			break;
		r.found = 1;
		r.rel = c->rel, r.rel_lo = c->rel_lo, r.rel_hi = c->rel_hi, r.p = c->p;
		r.points_after = v.n - c->index;
		for (int k = c->index; k < v.n; k++)
			r.noisy_after += pb_history_view_noisy(&v, k);
		/* A rise from a level not above 0 (rel NaN) has no relative size: the threshold
		 * cannot excuse it. */
		r.regression = c->direction > 0 && (isnan(c->rel) || 100 * c->rel > threshold_pct);
		newest = *c;
		h->verdict_strs[0] = strdup(c->rev_before);
		h->verdict_strs[1] = strdup(c->rev_after);
		r.rev_before = h->verdict_strs[0] ? h->verdict_strs[0] : "";
		r.rev_after = h->verdict_strs[1] ? h->verdict_strs[1] : "";
		break;
	}
	snprintf(unit, sizeof(unit), "%s", v.unit ? v.unit : "");
	pb_history_view_free(&v);
	if ((rc = verdict_line(h, name, threshold_pct, r.found ? &newest : NULL, unit, &r)))
		return rc;
	pb_copy_out(out, &r, sizeof(r));
	return 0;
}

/* ---- OpenMetrics -------------------------------------------------------------------------- */

/* A label value: backslash, double quote and line feed escaped (OpenMetrics 1.0 ABNF). */
static void om_label(FILE *f, const char *key, const char *str, int first)
{
	char *t = utf8_or_shown(str);	/* label values are UTF-8 */
	const char *s = t ? t : "?";

	fprintf(f, "%s%s=\"", first ? "" : ",", key);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
	free(t);
}

/* The newest point of each series of one family: in seconds (ns series) or as they are. */
static int om_family(struct pbench_history *h, FILE *f, int seconds)
{
	struct pbench_history_series s;
	struct pbench_history_record r;
	const char *fam = seconds ? "pbench_history_seconds" : "pbench_history_value";
	int n = pbench_history_series_count(h), shown = 0, rc;
	int64_t ms;

	for (int i = 0; i < n; i++) {
		s.size = sizeof(s);
		r.size = sizeof(r);
		if ((rc = pbench_history_series_get(h, i, &s)) ||
		    (rc = pbench_history_points(h, s.id)) < 0 ||
		    (rc = pbench_history_point_get(h, rc - 1, &r)))
			return rc;
		if ((strcmp(r.unit, "ns") == 0) != seconds || !isfinite(r.value))
			continue;
		if (!shown++)
			fprintf(f, "# TYPE %s gauge\n%s# HELP %s The newest point of each pbench "
				"history series%s.\n", fam, seconds ? "# UNIT pbench_history_seconds "
				"seconds\n" : "", fam, seconds ? ", in seconds" : "");
		fputs(fam, f);
		fputc('{', f);
		om_label(f, "series", s.name, 1);
		om_label(f, "metric", s.metric, 0);
		om_label(f, "machine", s.fingerprint, 0);
		om_label(f, "rev", r.rev, 0);
		/* the sign, then the seconds and ms: -1.5 s before 1970 is -1.500, not -1.-500 */
		ms = r.time_ns / 1000000;
		fprintf(f, "} %.10g %s%" PRId64 ".%03d\n", seconds ? r.value / 1e9 : r.value,
			ms < 0 ? "-" : "", imaxabs(ms) / 1000, (int)(imaxabs(ms) % 1000));
	}
	return n < 0 ? n : 0;
}

int pbench_history_write_openmetrics(struct pbench_history *h, FILE *f)
{
	int rc;

	if (!h || !f)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, h ? "f" : "h");
	if ((rc = om_family(h, f, 1)) || (rc = om_family(h, f, 0)))
		return rc;
	fputs("# EOF\n", f);
	return pb_stream_end(f);
}
