/* SPDX-License-Identifier: MIT */
/*
 * Documents into the history (issue 24): pbench's own JSON (what `pbench stat --record` and
 * `pbench compare --record` store, and `pbench history add` imports), hyperfine's and Google
 * Benchmark's JSON, and a CSV or one-value-a-line series from another tool, so that a team
 * brings its history with it. Each document becomes its records in one transaction (all or
 * nothing: a bad line, a signal, a lost server leave the store as it was), the document
 * stored once and shared by them (history.c's pb_history_add_in()); this file knows the
 * formats, not the store.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/base.h"
#include "history/history.h"

/* What every record of one import shares, and the runs of the record being made. */
struct imp {
	struct pbench_history *h;
	const char *name, *doc;
	struct pbench_history_import_opts o;
	int64_t doc_ns;			/* the document's date (0: none) */
	const char *fp[8];		/* the fingerprint the document names (NULL: this machine's) */
	const char *metric, *unit;	/* a CSV's: its name's existing series', else value */
	double *v;
	int *noisy;
	size_t n, cap;
	int added;
	struct pb_hbatch batch;		/* the transaction's machine and document, made once */
};

static const struct pbench_history_import_opts import_defaults = PBENCH_HISTORY_IMPORT_OPTS_INIT;

static int push(struct imp *im, double v, int noisy)
{
	if (im->n == im->cap) {
		size_t cap = im->cap ? 2 * im->cap : 64;
		double *nv = realloc(im->v, cap * sizeof(*nv));
		int *nn;

		if (!nv)
			return -ENOMEM;
		im->v = nv;
		nn = realloc(im->noisy, cap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		im->noisy = nn;
		im->cap = cap;
	}
	im->v[im->n] = v;
	im->noisy[im->n++] = noisy;
	return 0;
}

/* The digits at *p as a number (0 to 1e12: more digits than that are past every range of
 * a date's part), *p moved past them; how many there were. */
static int digits(const char **p, int64_t *v)
{
	int n = 0;

	for (*v = 0; isdigit((unsigned char)**p); (*p)++, n++)
		*v = *v < 1000000000000LL ? *v * 10 + (**p - '0') : *v;
	return n;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar, y >= 1. */
static int64_t civil_days(int64_t y, int64_t m, int64_t d)
{
	static const int before[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	int64_t leaps;

	y -= 1;		/* the leap days of the years before y */
	leaps = y / 4 - y / 100 + y / 400;
	return y * 365 + leaps + before[m - 1] +
	       (m > 2 && ((y + 1) % 4 == 0 && ((y + 1) % 100 || (y + 1) % 400 == 0))) + d - 1 -
	       719162;	/* the days from 0001-01-01 to 1970-01-01 */
}

static int month_days(int64_t y, int64_t m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return days[m - 1] + (m == 2 && y % 4 == 0 && (y % 100 || y % 400 == 0));
}

/* The fields of an ISO 8601 date as iso_fields() reads them (those not written: 0) */
struct iso_date {
	int64_t y, mo, d, hh, mi, ss, frac, zh, zm;	/* frac: in ns; zh, zm: the zone */
	int neg, zneg;					/* a '-' before the year, the zone */
};

/* The time of day after a date's 'T' (or ' '), from *p on: hh:mm, then :ss, then .fraction.
 * 0, *p after it; -1: not of that form. */
static int iso_time(const char **p, struct iso_date *t)
{
	int nd;

	if (!digits(p, &t->hh) || *(*p)++ != ':' || !digits(p, &t->mi))
		return -1;
	if (**p == ':' && ((*p)++, !digits(p, &t->ss)))
		return -1;
	if (**p == '.' || **p == ',') {
		(*p)++;
		for (nd = 0; isdigit((unsigned char)**p); (*p)++, nd++)
			t->frac = nd < 9 ? t->frac * 10 + (**p - '0') : t->frac;
		if (!nd)
			return -1;
		for (; nd < 9; nd++)
			t->frac *= 10;
	}
	return 0;
}

/* s read as an ISO 8601 date into *t, each field as written (not checked): 0; 1: s does not
 * begin as a date ([+-]digits-digits); -1: it does, but is not of the form iso_ns() takes. */
static int iso_fields(const char *s, struct iso_date *t)
{
	const char *p = s;
	int nd;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		t->neg = *p++ == '-';
	if (!digits(&p, &t->y) || *p != '-' || !isdigit((unsigned char)p[1]))
		return 1;
	p++;
	if (!digits(&p, &t->mo) || *p++ != '-' || !digits(&p, &t->d))
		return -1;
	if ((*p == 'T' || (*p == ' ' && isdigit((unsigned char)p[1]))) && (p++, iso_time(&p, t)))
		return -1;
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		t->zneg = *p++ == '-';
		nd = digits(&p, &t->zh);
		if (!nd)
			return -1;
		if (nd == 4) {		/* +hhmm */
			t->zm = t->zh % 100;
			t->zh /= 100;
		} else if (*p == ':' && (p++, !digits(&p, &t->zm))) {
			return -1;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -1 : 0;
}

/* What is out of range in *t (iso_ns() says which ranges), or NULL and its seconds since the
 * epoch in *secs. */
static const char *iso_bad(const struct iso_date *t, int64_t *secs)
{
	static const char *const day_bad[] = {
		"the day is not one of its month (1 to 28)", "the day is not one of its month (1 to 29)",
		"the day is not one of its month (1 to 30)", "the day is not one of its month (1 to 31)",
	};

	if (t->neg || t->y < 1970 || t->y > 2262)
		return "the year is not from 1970 to 2262";
	if (t->mo < 1 || t->mo > 12)
		return "the month is not 1 to 12";
	if (t->d < 1 || t->d > month_days(t->y, t->mo))
		return day_bad[month_days(t->y, t->mo) - 28];
	if (t->hh > 23)
		return "the hour is not 0 to 23";
	if (t->mi > 59)
		return "the minute is not 0 to 59";
	if (t->ss > 60)
		return "the second is not 0 to 60";
	if (t->zm > 59 || t->zh * 60 + t->zm > 18 * 60)
		return "the zone is not within +-18:00";
	*secs = civil_days(t->y, t->mo, t->d) * 86400 + t->hh * 3600 + t->mi * 60 + t->ss -
		(t->zneg ? -1 : 1) * (t->zh * 3600 + t->zm * 60);
	if (*secs < 0 || (*secs == 0 && t->frac == 0))
		return "not after 1970-01-01T00:00:00Z";
	if (*secs > INT64_MAX / 1000000000 ||
	    (*secs == INT64_MAX / 1000000000 && t->frac > INT64_MAX % 1000000000))
		return "past 2262-04-11T23:47:16Z, the last time int64 ns hold";
	return NULL;
}

/*
 * An ISO 8601 date as tools write them: "2026-11-26T03:02:52Z", "...52.123+02:00", "+0200",
 * "2019-04-11 11:21:38" (no zone: UTC), "2026-11-26" (midnight): ns since the epoch in *ns
 * and 0. 1: s does not begin as a date ([+-]digits-digits: Google Benchmark's older "%x %X",
 * "11/04/19 11:21:38", is none), nothing is taken from it. -EINVAL, why (cut to wlen) saying
 * which part: a date of that form out of range (not made "valid" by timegm's normalizing,
 * which takes month 13 as next January): the year 1970 to 2262 and the whole time after
 * 1970-01-01T00:00:00Z (0 is the epoch itself, which a record takes as "now") and at most
 * 2262-04-11T23:47:16.854775807Z (what int64 ns hold), the month 1 to 12, the day one of its
 * month, the hour 0 to 23, the minute 0 to 59, the second 0 to 60 (a leap second), the zone
 * within +-18:00.
 */
static int iso_ns(const char *s, int64_t *ns, char *why, size_t wlen)
{
	struct iso_date t = { 0 };
	int64_t secs = 0;
	const char *bad;
	int rc = iso_fields(s, &t);

	if (rc > 0)
		return 1;
	if (rc < 0) {
		snprintf(why, wlen, "not an ISO 8601 date (YYYY-MM-DDThh:mm:ss, then Z or +hh:mm)");
		return -EINVAL;
	}
	bad = iso_bad(&t, &secs);
	if (bad) {
		snprintf(why, wlen, "%s", bad);
		return -EINVAL;
	}
	*ns = secs * 1000000000 + t.frac;
	return 0;
}

/* A document's date (host.date, context.date; NULL or not a date: none, 0): 0 and
 * im->doc_ns, or -EINVAL said in one line. */
static int doc_date(struct imp *im, const char *key, const char *date)
{
	char why[128];
	int rc;

	im->doc_ns = 0;
	rc = date ? iso_ns(date, &im->doc_ns, why, sizeof(why)) : 1;
	if (rc > 0)
		im->doc_ns = 0;
	return rc < 0 ? pb_fail(-EINVAL, "history: %s: %s '%.64s': %s", im->name,
				key, date, why) : 0;
}

/* The one rule of a time read (pb_input_value(), as pbench analyze reads one): 0, or -EINVAL
 * said in one line with where it is (a printf format). */
static int time_rule(const struct imp *im, double ns, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int time_rule(const struct imp *im, double ns, const char *fmt, ...)
{
	int bad = pb_input_value(ns, 1);
	char where[160];
	va_list ap;

	if (!bad)
		return 0;
	va_start(ap, fmt);
	vsnprintf(where, sizeof(where), fmt, ap);
	va_end(ap);
	return pb_fail(-EINVAL, "history: %s: %s (%g ns) %s", im->name, where, ns,
		       pb_input_value_why(bad));
}

/* The times of a JSON array (each a number, times scale in ns, by the rule) as runs; what
 * names the array's owner in a message ("hyperfine result 2"). */
static int push_times(struct imp *im, json_t *arr, double scale, const char *what, size_t i)
{
	size_t k;
	json_t *x;
	int rc;

	json_array_foreach(arr, k, x) {
		double v = json_number_value(x) * scale;

		if (!json_is_number(x))
			return pb_fail(-EINVAL, "history: %s: %s %zu, time %zu is not a number",
				       im->name, what, i, k);
		if ((rc = time_rule(im, v, "%s %zu, time %zu", what, i, k)) ||
		    (rc = push(im, v, -1)))
			return rc;
	}
	return 0;
}

/* A summary's figure (mean, an interval's end), when the document gives one, by the rule. */
static int summary_rule(const struct imp *im, double ns, const char *what, size_t i,
			const char *key)
{
	return isnan(ns) ? 0 : time_rule(im, ns, "%s %zu, %s", what, i, key);
}

/* The caller's stop flag set (opts->stop: a Ctrl-C of `pbench history add`): -EINTR, the
 * import then rolled back whole. Checked between records and before the commit. */
static int interrupted(const struct imp *im)
{
	int sig = im->o.stop ? *im->o.stop : 0;

	if (!sig)
		return 0;
	return pb_fail(-EINTR, "history: %s: interrupted by signal %d (%s) after %d record%s: "
		       "nothing added, the store is as it was", im->name, sig, strsignal(sig),
		       im->added, im->added == 1 ? "" : "s");
}

/* One record of the runs gathered (im->v), under name[/sub], in the import's transaction. */
static int store(struct imp *im, const char *sub, const char *metric, const char *unit,
		 double value, double lo, double hi, const char *rev, int64_t t)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;
	char *full = NULL;
	int64_t id;

	if (sub && asprintf(&full, "%s/%s", im->name, sub) < 0)
		return -ENOMEM;
	if (!isfinite(value) && im->n) {	/* no summary: the runs' mean */
		value = 0;
		for (size_t i = 0; i < im->n; i++)
			value += im->v[i] / (double)im->n;
	}
	r.name = full ? full : im->name;
	r.metric = metric;
	r.unit = unit;
	r.rev = rev ? rev : im->o.rev;
	r.branch = im->o.branch;
	r.dirty = im->o.dirty;
	r.time_ns = t ? t : im->o.time_ns ? im->o.time_ns : im->doc_ns;
	r.value = value;
	r.lo = lo, r.hi = hi;
	r.n_runs = im->n;
	r.run_values = im->v;
	r.run_noisy = im->noisy;
	r.json = im->doc;
	r.cpu_model = im->fp[0], r.microcode = im->fp[1], r.kernel = im->fp[2];
	r.governor = im->fp[3], r.smt = im->fp[4], r.isolation = im->fp[5];
	r.virt = im->fp[6], r.pbench_version = im->fp[7];
	id = interrupted(im) ?: pb_history_add_in(im->h, &r, &im->batch);
	free(full);
	im->n = 0;
	if (id < 0)
		return (int)id;
	im->added++;
	return 0;
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* pbench's documents name their machine's CPU and kernel and the version (host); the rest of
 * the fingerprint (microcode, governor, SMT, isolation) is read here as for every other
 * import, so that a series brought along as CSV and continued by stat --record on one
 * machine stays one segment. */
static int pbench_fingerprint(struct imp *im, json_t *root)
{
	json_t *host = json_object_get(root, "host");

	im->fp[0] = json_string_value(json_object_get(host, "cpu_model"));
	im->fp[2] = json_string_value(json_object_get(host, "kernel"));
	im->fp[7] = json_string_value(json_object_get(root, "pbench_version"));
	return doc_date(im, "host.date", json_string_value(json_object_get(host, "date")));
}

/* pbench stat: each mode's runs that were measured (not killed at the timeout). */
static int import_stat(struct imp *im, json_t *modes)
{
	size_t i, k;
	json_t *m, *r;
	int rc = 0;

	json_array_foreach(modes, i, m) {
		json_t *sum = json_object_get(m, "summary");
		const char *mode = json_string_value(json_object_get(m, "mode"));

		json_array_foreach(json_object_get(m, "runs"), k, r) {
			if (json_is_true(json_object_get(r, "timed_out")))
				continue;
			if (!isfinite(jnum(r, "ns")))
				return pb_fail(-EINVAL, "history: %s: mode %zu, run %zu has no 'ns'",
					       im->name, i, k);
			if ((rc = time_rule(im, jnum(r, "ns"), "mode %zu, run %zu", i, k)) ||
			    (rc = push(im, jnum(r, "ns"),
				       json_is_true(json_object_get(r, "outlier")))))
				return rc;
		}
		if (!im->n)
			return pb_fail(-EINVAL, "history: %s: mode %zu has no measured run", im->name,
				       i);
		if ((rc = summary_rule(im, jnum(sum, "mean_ns"), "mode", i, "mean_ns")) ||
		    (rc = summary_rule(im, jnum(sum, "ci_lo_ns"), "mode", i, "ci_lo_ns")) ||
		    (rc = summary_rule(im, jnum(sum, "ci_hi_ns"), "mode", i, "ci_hi_ns")))
			return rc;
		rc = store(im, json_array_size(modes) > 1 ? mode : NULL, "time_ns", "ns",
			   jnum(sum, "mean_ns"), jnum(sum, "ci_lo_ns"), jnum(sum, "ci_hi_ns"), NULL,
			   0);
		if (rc)
			return rc;
	}
	return 0;
}

/* pbench compare: each entrant its own series. */
static int import_compare(struct imp *im, json_t *entrants)
{
	size_t i;
	json_t *e;
	int rc;

	json_array_foreach(entrants, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));

		if ((rc = push_times(im, json_object_get(e, "times_ns"), 1, "entrant", i)))
			return rc;
		if (!name || !im->n)
			return pb_fail(-EINVAL, "history: %s: entrant %zu has no name or no "
				       "times_ns", im->name, i);
		if ((rc = summary_rule(im, jnum(json_object_get(e, "summary"), "mean_ns"),
				       "entrant", i, "mean_ns")))
			return rc;
		rc = store(im, name, "time_ns", "ns",
			   jnum(json_object_get(e, "summary"), "mean_ns"), 0, 0, NULL, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/* hyperfine --export-json: results[] with each run's time in seconds. */
static int hyperfine(struct imp *im, json_t *results)
{
	size_t i;
	json_t *e;
	int rc;

	json_array_foreach(results, i, e) {
		const char *cmd = json_string_value(json_object_get(e, "command"));
		json_t *times = json_object_get(e, "times");

		if (times && (!json_is_array(times) || !json_array_size(times)))
			return pb_fail(-EINVAL, "history: %s: hyperfine result %zu: 'times' is %s",
				       im->name, i, json_is_array(times) ? "empty: no runs, as pbench "
				       "analyze says" : "not an array");
		if ((rc = push_times(im, times, 1e9, "hyperfine result", i)))
			return rc;
		if (!cmd || (!im->n && !isfinite(jnum(e, "mean"))))
			return pb_fail(-EINVAL, "history: %s: hyperfine result %zu has no command, "
				       "times or mean", im->name, i);
		if ((rc = summary_rule(im, jnum(e, "mean") * 1e9, "hyperfine result", i, "mean")))
			return rc;
		rc = store(im, json_array_size(results) > 1 ? cmd : NULL, "time_ns", "ns",
			   jnum(e, "mean") * 1e9, 0, 0, NULL, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static double time_unit_ns(const char *u)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	static const double scale[] = { 1, 1e3, 1e6, 1e9 };

	for (int i = 0; i < 4; i++)
		if (u && !strcmp(u, names[i]))
			return scale[i];
	return u ? NAN : 1;
}

/* A Google Benchmark entry's benchmark: its run_name, else its name (NULL: neither). */
static const char *run_name(json_t *b)
{
	return json_string_value(json_object_get(b, "run_name")) ?:
	       json_string_value(json_object_get(b, "name"));
}

/* One benchmark: its entries, first..the end of the chain next[], into runs and a mean. */
static int gbench_one(struct imp *im, json_t *arr, size_t first, const size_t *next,
		      const char *run)
{
	const char *key = im->o.cpu_time ? "cpu_time" : "real_time";
	size_t n = json_array_size(arr);
	double mean = NAN;
	int rc;

	for (size_t k = first; k < n; k = next[k]) {
		json_t *c = json_array_get(arr, k);
		const char *type = json_string_value(json_object_get(c, "run_type"));
		const char *agg = json_string_value(json_object_get(c, "aggregate_name"));
		double x = jnum(c, key) * time_unit_ns(json_string_value(json_object_get(c,
										 "time_unit")));

		if (!isfinite(x))
			return pb_fail(-EINVAL, "history: %s: benchmark entry %zu has no %s or no "
				       "known time_unit", im->name, k, key);
		if ((rc = time_rule(im, x, "benchmark entry %zu, %s", k, key)))
			return rc;
		if (!type || !strcmp(type, "iteration"))
			rc = push(im, x, -1);
		else
			rc = 0, mean = agg && !strcmp(agg, "mean") ? x : mean;
		if (rc)
			return rc;
	}
	if (!im->n && !isfinite(mean))
		return pb_fail(-EINVAL, "history: %s: benchmark entry %zu has no name, or neither "
			       "iterations nor a mean", im->name, first);
	return store(im, run, im->o.cpu_time ? "cpu_time_ns" : "real_time_ns", "ns", mean, 0, 0,
		     NULL, 0);
}

/* Google Benchmark: per benchmark (run_name), its iterations are the runs; with only
 * aggregates (--benchmark_report_aggregates_only), the mean is the value. The benchmarks in
 * the order of their first entry; each entry is chained to the next of its benchmark (a
 * JSON object of the names seen is the hash), so that each is read once (issue 34: a scan of
 * every earlier entry per entry took 6.5 s for 20k iterations). */
static int gbench(struct imp *im, json_t *arr)
{
	size_t i, n = json_array_size(arr), groups = 0;
	size_t *next = malloc((n ? n : 1) * sizeof(*next));
	size_t *first = malloc((n ? n : 1) * sizeof(*first));	/* per benchmark */
	size_t *last = malloc((n ? n : 1) * sizeof(*last));
	json_t *seen = json_object(), *b, *g;
	int rc = next && first && last && seen ? 0 : -ENOMEM;

	json_array_foreach(arr, i, b) {
		const char *run = run_name(b);

		if (rc)
			break;
		next[i] = n;
		if (!run)
			continue;
		if ((g = json_object_get(seen, run))) {
			size_t k = (size_t)json_integer_value(g);

			next[last[k]] = i;
			last[k] = i;
			continue;
		}
		first[groups] = last[groups] = i;
		if (json_object_set_new_nocheck(seen, run, json_integer((json_int_t)groups++)))
			rc = -ENOMEM;
	}
	json_array_foreach(arr, i, b) {		/* each benchmark at its first entry */
		const char *run = run_name(b);

		if (rc)
			break;
		if (!run)
			rc = pb_fail(-EINVAL, "history: %s: benchmark entry %zu has no name, or "
				     "neither iterations nor a mean", im->name, i);
		else if (first[json_integer_value(json_object_get(seen, run))] == i)
			rc = gbench_one(im, arr, i, next, run);
	}
	json_decref(seen);
	free(next);
	free(first);
	free(last);
	return rc;
}

static int import_json(struct imp *im, json_t *root)
{
	static const char *const keys[] = { "modes", "entrants", "results", "benchmarks" };
	json_t *a = NULL;
	int k = 0, rc;

	while (k < 4 && !json_is_array(a = json_object_get(root, keys[k])))
		k++;
	if (k < 2 && (rc = pbench_fingerprint(im, root)))
		return rc;
	if (k == 3 && (rc = doc_date(im, "context.date", json_string_value(json_object_get(
				     json_object_get(root, "context"), "date")))))
		return rc;
	switch (k) {
	case 0:
		rc = import_stat(im, a);
		break;
	case 1:
		rc = import_compare(im, a);
		break;
	case 2:
		rc = hyperfine(im, a);
		break;
	case 3:
		rc = gbench(im, a);
		break;
	default:
		return pb_fail(-EINVAL, "history: %s: a JSON document of none of pbench stat, "
			       "pbench compare, hyperfine or Google Benchmark", im->name);
	}
	if (!rc && !im->added)	/* {"results": []}: nothing to add is not a success */
		rc = pb_fail(-EINVAL, "history: %s: no result in the document (its '%s' is "
			     "empty): nothing to add", im->name, keys[k]);
	return rc;
}

/* A CSV field that strtod reads whole (hex, inf, nan, 1e999 too): meant as a number, so not
 * a header's name. */
static int numberish(const char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	return end != s && !*end;
}

/* A CSV line's time field: seconds since the epoch (after it, within what int64 ns hold) or
 * an ISO 8601 date (iso_ns()). 0 and *tn; 1: neither (a header's name, or the line's error);
 * -EINVAL: a number or a date out of range, said in one line. */
static int csv_time(const struct imp *im, const char *f, size_t lineno, int64_t *tn)
{
	char why[128];
	double t;
	int rc = pb_input_number(f, strlen(f), &t);

	if (!rc) {
		if (!(t * 1e9 >= 0.5))
			return pb_fail(-EINVAL, "history: %s: line %zu: time '%s' is not after "
				       "1970-01-01T00:00:00Z (seconds since the epoch; leave the "
				       "field empty for the line's order)", im->name, lineno, f);
		if (t * 1e9 >= 9223372036854775807.0)
			return pb_fail(-EINVAL, "history: %s: line %zu: time '%s' is past "
				       "2262-04-11, the last second int64 ns hold (seconds since the "
				       "epoch)", im->name, lineno, f);
		*tn = llround(t * 1e9);
		return 0;
	}
	if (rc == -ERANGE)
		return pb_fail(-EINVAL, "history: %s: line %zu: time '%s' is not a finite number",
			       im->name, lineno, f);
	rc = iso_ns(f, tn, why, sizeof(why));
	if (rc < 0)
		return pb_fail(-EINVAL, "history: %s: line %zu: time '%s': %s",
			       im->name, lineno, f, why);
	return rc;
}

/* One CSV line's fields (split in place at commas): "value", "commit,value" or
 * "commit,time,value". The value is a number by pbench analyze's rule (pb_input_number(),
 * pb_input_value(): a time when the series is in ns). */
static int csv_line(struct imp *im, char *line, size_t lineno, int64_t base, int *header)
{
	char *f[3] = { 0 }, *p = line, *fv;
	int nf = 0, verr, terr = 0, bad;
	double v;
	int64_t tn = 0;

	while (nf < 3 && p) {
		f[nf++] = p;
		if ((p = strchr(p, ',')))
			*p++ = 0;
	}
	if (p)
		return pb_fail(-EINVAL, "history: %s: line %zu has more than 3 fields (commit,"
			       "time,value)", im->name, lineno);
	fv = f[nf - 1];
	verr = pb_input_number(fv, strlen(fv), &v);
	if (nf == 3 && f[1][strspn(f[1], " \t")] && (terr = csv_time(im, f[1], lineno, &tn)) < 0)
		return terr;
	if (*header && ((verr && !numberish(fv)) || terr)) {
		*header = 0;	/* the first line may name the columns */
		return 0;
	}
	*header = 0;
	if (verr)
		return pb_fail(-EINVAL, "history: %s: line %zu: '%s' is not a %snumber (a line "
			       "is commit,time,value; the time in seconds since the epoch or ISO "
			       "8601)", im->name, lineno, fv, verr == -ERANGE ? "finite " : "");
	if (terr)
		return pb_fail(-EINVAL, "history: %s: line %zu: time '%s' is neither seconds "
			       "since the epoch nor an ISO 8601 date", im->name, lineno, f[1]);
	if ((bad = pb_input_value(v, !strcmp(im->unit, "ns"))))
		return pb_fail(-EINVAL, "history: %s: line %zu: value '%s' %s", im->name, lineno,
			       fv, pb_input_value_why(bad));
	return store(im, NULL, im->metric, im->unit, v, 0, 0, nf > 1 ? f[0] : NULL, /* --commit */
		     tn ? tn : base + (int64_t)lineno);
}

static int import_csv(struct imp *im, const char *text, size_t len)
{
	struct timespec ts;
	char *copy = strndup(text, len), *save = NULL, *line;
	size_t lineno = 0;
	int header = 1, rc = 0;
	int64_t base;

	if (!copy)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &ts);
	base = im->o.time_ns ? im->o.time_ns : (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	im->doc = NULL;		/* a line is its own record: no document to keep */
	/* The values continue the series of that name when there is one (a history brought
	 * along after the first recorded point): its metric, ns for a time. */
	im->metric = "value", im->unit = "";
	for (int i = 0, n = pbench_history_series_count(im->h); i < n; i++) {
		struct pbench_history_series s = { .size = sizeof(s) };
		size_t l;

		if (pbench_history_series_get(im->h, i, &s) || strcmp(s.name, im->name))
			continue;
		im->metric = s.metric;
		l = strlen(s.metric);
		im->unit = l > 3 && !strcmp(s.metric + l - 3, "_ns") ? "ns" : "";
		break;
	}
	for (line = strtok_r(copy, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);

		lineno++;
		if (l && line[l - 1] == '\r')
			line[--l] = 0;
		if (!l || line[strspn(line, " \t")] == '#' || !line[strspn(line, " \t")])
			continue;
		rc = csv_line(im, line, lineno, base, &header);
	}
	free(copy);
	if (!rc && !im->added)
		rc = pb_fail(-EINVAL, "history: %s: no value in the CSV", im->name);
	return rc;
}

/* What every text must be before it is read as a document: no NUL byte (which would end a
 * CSV's text unseen), JSON within what pbench analyze reads of it (PB_INPUT_JSON_MAX). */
static int text_rule(const char *name, const char *text, size_t len)
{
	size_t line, skip = 0;

	if (pb_input_nul(text, len, &line))
		return pb_fail(-EINVAL, "history: %s: line %zu holds a NUL byte: not a text of "
			       "values or JSON", name, line);
	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	if (skip < len && (text[skip] == '{' || text[skip] == '[') && len > PB_INPUT_JSON_MAX)
		return pb_fail(-EINVAL, "history: %s: JSON of more than %zu MiB: pbench reads JSON "
			       "whole, at 10 times its size in memory or more", name,
			       PB_INPUT_JSON_MAX >> 20);
	return 0;
}

/* The import's transaction ended: committed when rc is 0 and no signal came meanwhile,
 * else rolled back (nothing of the document is kept). */
static int end(struct imp *im, int rc)
{
	if (!rc)
		rc = interrupted(im);
	rc = pb_history_end(im->h, rc);
	if (rc)
		im->added = 0;
	return rc;
}

int pbench_history_import(struct pbench_history *h, const char *name,
			  const char *text, size_t len,
			  const struct pbench_history_import_opts *opts)
{
	struct imp im = { .h = h, .name = name, .o = import_defaults,
			  .batch = { .doc_id = -1, .machine_id = -1 } };
	char rev[128], branch[256];
	size_t skip = 0;
	int rc;

	if (opts && (rc = PB_CHECK_STRUCT(opts, pbench_history_import_opts, 0,
					  "PBENCH_HISTORY_IMPORT_OPTS_INIT")))
		return rc;
	if (opts)
		pb_copy_in(&im.o, sizeof(im.o), opts);
	if (!h || !name || !*name || !text)
		return pb_fail(-EINVAL, "%s(): %s is NULL or empty", __func__,
			       !h ? "h" : !name || !*name ? "name" : "text");
	if ((rc = text_rule(name, text, len)))
		return rc;
	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	if (skip < len && (text[skip] == '{' || text[skip] == '[')) {
		json_error_t err;
		json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);

		if (!json_is_object(root)) {
			json_decref(root);
			return pb_fail(-EINVAL, "history: %s: not a JSON object: %s (line %d)", name,
				       err.text, err.line);
		}
		if (!im.o.rev && !pbench_history_git(NULL, rev, sizeof(rev), branch,
						     sizeof(branch), &im.o.dirty)) {
			im.o.rev = rev;
			im.o.branch = im.o.branch ? im.o.branch : branch;
		}
		im.doc = strndup(text, len);
		rc = !im.doc ? -ENOMEM : pb_history_begin(h, __func__);
		if (!rc)
			rc = end(&im, import_json(&im, root));
		free((char *)im.doc);
		json_decref(root);
	} else if (!(rc = pb_history_begin(h, __func__))) {
		rc = end(&im, import_csv(&im, text, len));
	}
	free(im.v);
	free(im.noisy);
	return rc ? rc : im.added;
}

int pbench_history_import_file(struct pbench_history *h, const char *name,
			       const char *path,
			       const struct pbench_history_import_opts *opts)
{
	char why[512] = "", *text = NULL;
	const volatile int *stop;
	size_t len = 0;
	int rc;

	if (!path)
		return pb_fail(-EINVAL, "%s(): path is NULL", __func__);
	/* read as pbench analyze reads its samples (base/input.c), to the same size */
	stop = opts && PB_HAS_FIELD(opts, stop) ? opts->stop : NULL;
	rc = pb_input_read(path, PB_INPUT_MAX, stop, &text, &len, why, sizeof(why));
	if (rc == -EISDIR || rc == -EAGAIN || rc == -EFBIG)
		rc = -EINVAL;	/* not a document: the caller's input, not the store */
	rc = rc ? pb_fail(rc, "history: %s", why) : pbench_history_import(h, name, text, len, opts);
	free(text);
	return rc;
}

int pbench_history_import_writer(const char *path, const char *name,
				 int (*write)(void *arg, int fmt, FILE *f), void *arg,
				 const struct pbench_history_import_opts *opts)
{
	struct pbench_history_opts ho = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history *h = NULL;
	size_t len = 0;
	char *doc = NULL;
	FILE *m;
	int rc;

	if (!name || !write)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, name ? "write" : "name");
	if (!(m = open_memstream(&doc, &len)))
		return -ENOMEM;
	rc = write(arg, PBENCH_REPORT_FORMAT_JSON, m);
	rc = rc > 0 ? -EIO : rc;
	rc = fclose(m) && !rc ? -EIO : rc;
	if (!rc && !(rc = pbench_history_open(&h, path, &ho)))
		rc = pbench_history_import(h, name, doc, len, opts);
	pbench_history_close(h);
	free(doc);
	return rc;
}
