// SPDX-License-Identifier: MIT
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
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* "2026-11-26T03:02:52Z", "...+02:00", "2019-04-11 11:21:38": ns since the epoch, or 0. */
static int64_t iso_ns(const char *s)
{
	struct tm tm = { 0 };
	double sec = 0;
	int n = 0, zh = 0, zm = 0;
	char sign;

	if (!s || sscanf(s, "%d-%d-%d%*1[T ]%d:%d:%lf%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &sec, &n) < 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	s += n;
	if ((*s == '+' || *s == '-') && sscanf(s, "%c%d:%d", &sign, &zh, &zm) == 3) {
		zm += 60 * zh;
		zm = sign == '-' ? -zm : zm;
	}
	return ((int64_t)timegm(&tm) - 60 * (int64_t)zm) * 1000000000 +
	       (int64_t)llround(sec * 1e9);
}

/* A signal caught by pbench_stop_catch() (a Ctrl-C of `pbench history add`): -EINTR, the
 * import then rolled back whole. Checked between records and before the commit. */
static int interrupted(const struct imp *im)
{
	int sig = pb_stop_signal();

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
	struct pbench_history_record r = { .size = sizeof(r) };
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
static void pbench_fingerprint(struct imp *im, json_t *root)
{
	json_t *host = json_object_get(root, "host");

	im->fp[0] = json_string_value(json_object_get(host, "cpu_model"));
	im->fp[2] = json_string_value(json_object_get(host, "kernel"));
	im->fp[7] = json_string_value(json_object_get(root, "pbench_version"));
	im->doc_ns = iso_ns(json_string_value(json_object_get(host, "date")));
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
			if ((rc = push(im, jnum(r, "ns"),
				       json_is_true(json_object_get(r, "outlier")))))
				return rc;
		}
		if (!im->n)
			return pb_fail(-EINVAL, "history: %s: mode %zu has no measured run", im->name,
				       i);
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
	size_t i, k;
	json_t *e, *x;
	int rc;

	json_array_foreach(entrants, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));

		json_array_foreach(json_object_get(e, "times_ns"), k, x)
			if (json_is_number(x) && (rc = push(im, json_number_value(x), -1)))
				return rc;
		if (!name || !im->n)
			return pb_fail(-EINVAL, "history: %s: entrant %zu has no name or no "
				       "times_ns", im->name, i);
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
	size_t i, k;
	json_t *e, *x;
	int rc;

	json_array_foreach(results, i, e) {
		const char *cmd = json_string_value(json_object_get(e, "command"));

		json_array_foreach(json_object_get(e, "times"), k, x)
			if (json_is_number(x) && (rc = push(im, json_number_value(x) * 1e9, -1)))
				return rc;
		if (!cmd || (!im->n && !isfinite(jnum(e, "mean"))))
			return pb_fail(-EINVAL, "history: %s: hyperfine result %zu has no command, "
				       "times or mean", im->name, i);
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
	if (k < 2)
		pbench_fingerprint(im, root);
	if (k == 3)
		im->doc_ns = iso_ns(json_string_value(json_object_get(json_object_get(root,
								"context"), "date")));
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

/* A CSV field as a number (the whole field), or NaN. */
static double field_num(const char *s)
{
	char *end;
	double x;

	while (isspace((unsigned char)*s))
		s++;
	x = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	return end != s && !*end && isfinite(x) ? x : NAN;
}

/* One CSV line's fields (split in place at commas): "value", "commit,value" or
 * "commit,time,value". */
static int csv_line(struct imp *im, char *line, size_t lineno, int64_t base, int *header)
{
	char *f[3] = { 0 }, *p = line;
	int nf = 0;
	double v, t = NAN;
	int64_t tn = 0;

	while (nf < 3 && p) {
		f[nf++] = p;
		if ((p = strchr(p, ',')))
			*p++ = 0;
	}
	if (p)
		return pb_fail(-EINVAL, "history: %s: line %zu has more than 3 fields (commit,"
			       "time,value)", im->name, lineno);
	v = field_num(f[nf - 1]);
	if (nf == 3 && f[1][strspn(f[1], " \t")] && isnan(t = field_num(f[1])) &&
	    !(tn = iso_ns(f[1])))
		v = NAN;	/* a time that is neither: said as the line's error */
	if (isnan(v)) {
		if (*header)	/* the first line may name the columns */
			return *header = 0;
		return pb_fail(-EINVAL, "history: %s: line %zu: '%s' is not a number (a line "
			       "is commit,time,value; the time in seconds since the epoch or ISO "
			       "8601)", im->name, lineno, f[nf - 1]);
	}
	*header = 0;
	if (nf == 3 && !tn && isfinite(t))
		tn = (int64_t)llround(t * 1e9);
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

PBENCH_API int pbench_history_import(struct pbench_history *h, const char *name,
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
	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	if (skip < len && (text[skip] == '{' || text[skip] == '[')) {
		json_error_t err;
		json_t *root = json_loadb(text, len, 0, &err);

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

PBENCH_API int pbench_history_import_file(struct pbench_history *h, const char *name,
					  const char *path,
					  const struct pbench_history_import_opts *opts)
{
	int fd = path && strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t got = 1;
	int rc;

	if (!path || fd < 0)
		return pb_fail(path ? -errno : -EINVAL, "history: cannot read '%s': %s",
			       path ? path : "(null)", strerror(path ? errno : EINVAL));
	while (got > 0) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				got = -1, errno = ENOMEM;
				break;
			}
			buf = nb;
		}
		got = read(fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR && !pb_stop_signal())	/* a Ctrl-C ends it */
			got = 1;
		else if (got > 0)
			len += (size_t)got;
	}
	rc = got < 0 ? pb_fail(-errno, "history: cannot read '%s': %s", path, strerror(errno))
		     : pbench_history_import(h, name, buf ? buf : "", len, opts);
	if (fd > 0)
		close(fd);
	free(buf);
	return rc;
}

PBENCH_API int pbench_history_import_writer(const char *path, const char *name,
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
