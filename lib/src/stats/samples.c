/* SPDX-License-Identifier: MIT */
/*
 * Samples from anywhere, for pbench analyze and for any program that wants pbench's summary of
 * numbers it has on file: one number per line, or the JSON of pbench (pbench stat in every
 * mode, the library's result; a comparison is recognized and said to hold no samples),
 * hyperfine (--export-json) and Google Benchmark (--benchmark_format=json). Times become ns.
 * Every rejection says where and why; nothing is read past a NUL byte or guessed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/base.h"
#include "stats/samples_inner.h"

int pbench_samples_new(struct pbench_samples **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void pbench_samples_free(struct pbench_samples *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].unit);
		free(s->v[i].x);
		free(s->v[i].origin);
		free(s->v[i].given_unit);
	}
	free(s->v);
	free(s->note);
	free(s->warning);
	free(s->unpaired);
	free(s->sums);
	free(s->cmps);
	free(s);
}

int pbench_samples_nr(const struct pbench_samples *s)
{
	return s ? s->n : 0;
}

const char *pbench_samples_name(const struct pbench_samples *s, int i)
{
	return s && i >= 0 && i < s->n ? s->v[i].name : NULL;
}

const char *pbench_samples_unit(const struct pbench_samples *s, int i)
{
	return s && i >= 0 && i < s->n ? s->v[i].unit : NULL;
}

const double *pbench_samples_values(const struct pbench_samples *s, int i, size_t *n)
{
	if (!s || i < 0 || i >= s->n) {
		if (n)
			*n = 0;
		return NULL;
	}
	if (n)
		*n = s->v[i].n;
	return s->v[i].x;
}

size_t pbench_samples_failed(const struct pbench_samples *s, int i)
{
	return s && i >= 0 && i < s->n ? s->v[i].failed : 0;
}

const char *pbench_samples_warning(const struct pbench_samples *s)
{
	return s ? s->warning : NULL;
}

const char *pbench_samples_note(const struct pbench_samples *s)
{
	return s ? s->note : NULL;
}

/* ---- building ---------------------------------------------------------------------------- */

static struct sample_set *new_set(struct pbench_samples *s, const char *name, const char *unit)
{
	struct sample_set *v = realloc(s->v, (size_t)(s->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	s->v = v;
	v = &s->v[s->n];
	memset(v, 0, sizeof(*v));
	v->name = pb_text_shown(name);
	v->unit = unit ? pb_text_shown(unit) : NULL;
	if (!v->name || (unit && !v->unit)) {
		free(v->name);
		free(v->unit);
		return NULL;
	}
	s->n++;
	return v;
}

static struct sample_set *find_set(struct pbench_samples *s, int from, const char *name)
{
	for (int k = from; k < s->n; k++)
		if (!strcmp(s->v[k].name, name))
			return &s->v[k];
	return NULL;
}

static int add(struct sample_set *v, double x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		double *nx = cap > SIZE_MAX / sizeof(*nx) ? NULL : realloc(v->x, cap * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		v->x = nx;
		v->cap = cap;
	}
	v->x[v->n++] = x;
	return 0;
}

/* A scale to ns for a time unit, 0 for anything else. */
static double unit_scale(const char *unit)
{
	static const struct {
		const char *name;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

	for (size_t i = 0; unit && i < PB_ARRAY_SIZE(units); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].scale;
	return 0;
}

/* ---- plain numbers ----------------------------------------------------------------------- */

static int parse_plain(struct pbench_samples *s, const char *text, size_t len, const char *name,
		       const char *unit, char *why, size_t wlen)
{
	double scale = unit_scale(unit);
	struct sample_set *v = new_set(s, name, scale ? "ns" : unit);
	size_t at = 0;
	int lineno = 0;

	if (!v)
		return -ENOMEM;
	while (at < len) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t ll = nl ? (size_t)(nl - line) : len - at;
		char buf[128];
		double x;
		int err;

		at += ll + (nl != NULL);
		lineno++;
		while (ll && isspace((unsigned char)*line)) {
			line++;
			ll--;
		}
		while (ll && isspace((unsigned char)line[ll - 1]))
			ll--;
		if (!ll || *line == '#')
			continue;
		if (ll >= sizeof(buf)) {
			pb_why_set(why, wlen, "%s:%d: '%.40s...' is not a number", name, lineno, line);
			return -EINVAL;
		}
		memcpy(buf, line, ll);
		buf[ll] = '\0';
		err = pb_input_number(buf, ll, &x);
		if (err || !isfinite(x * (scale ? scale : 1))) {
			pb_why_set(why, wlen, "%s:%d: '%.40s' is not a %snumber", name, lineno, buf,
				err == -EINVAL ? "" : "finite ");
			return -EINVAL;
		}
		if (add(v, scale ? x * scale : x))
			return -ENOMEM;
	}
	return 0;
}

/* ---- JSON -------------------------------------------------------------------------------- */

/* hyperfine: results[].times, in seconds. */
static int parse_hyperfine(struct pbench_samples *s, json_t *arr, const char *name, char *why,
			   size_t wlen)
{
	size_t i, k;
	json_t *e, *t;

	json_array_foreach(arr, i, e) {
		json_t *times = json_object_get(e, "times");
		const char *cmd = json_string_value(json_object_get(e, "command"));
		struct sample_set *v;

		if (!json_is_array(times)) {
			pb_why_set(why, wlen, "%s: hyperfine result %zu has no 'times' array (export "
				"with --export-json)", name, i);
			return -EINVAL;
		}
		if (!(v = new_set(s, cmd ? cmd : name, "ns")))
			return -ENOMEM;
		json_array_foreach(times, k, t) {
			if (!json_is_number(t) || !isfinite(json_number_value(t) * 1e9)) {
				pb_why_set(why, wlen, "%s: hyperfine result %zu, time %zu is not a "
					"number", name, i, k);
				return -EINVAL;
			}
			if (add(v, json_number_value(t) * 1e9))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Google Benchmark, read as its tools/gbench/compare.py reads it: a set per benchmark name,
 * each repetition (each row of that name) a sample, real_time or cpu_time
 * (pbench_samples_gbench_metric()) in its row's time_unit. An aggregate, a row with run_type
 * "aggregate" that says which statistic it is (aggregate_name: mean, median, stddev, cv,
 * BigO, RMS) or of which run (a run_name other than its name: BM_x_mean of BM_x), is what
 * --benchmark_repetitions adds after the repetitions: a statistic of them, not one, left
 * out. A row that says "aggregate" and neither is taken as compare.py takes it (its tests'
 * test3 inputs), a repetition.
 */
static int parse_gbench(struct pbench_samples *s, json_t *arr, const char *name, char *why,
			size_t wlen)
{
	const char *metric = s->cpu_time ? "cpu_time" : "real_time";
	int first = s->n;
	size_t i;
	json_t *b;

	json_array_foreach(arr, i, b) {
		const char *bname = json_string_value(json_object_get(b, "name"));
		const char *run = json_string_value(json_object_get(b, "run_name"));
		const char *type = json_string_value(json_object_get(b, "run_type"));
		const char *tu = json_string_value(json_object_get(b, "time_unit"));
		json_t *t = json_object_get(b, metric);
		double scale = unit_scale(tu ? tu : "ns");
		struct sample_set *v;

		if (type && !strcmp(type, "aggregate") && (json_object_get(b, "aggregate_name") ||
		    (bname && run && strcmp(bname, run))))
			continue;	/* mean/median/stddev/cv: not samples */
		if (!bname)
			bname = run;
		if (!bname || !json_is_number(t) || !scale ||
		    !isfinite(json_number_value(t) * scale)) {
			pb_why_set(why, wlen, "%s: benchmark entry %zu has no name, %s or known "
				"time_unit", name, i, metric);
			return -EINVAL;
		}
		v = find_set(s, first, bname);
		if (!v && !(v = new_set(s, bname, "ns")))
			return -ENOMEM;
		v->gbench = 1;
		if (!v->given_unit || (strcmp(v->given_unit, tu ? tu : "ns") &&
				       strcmp(v->given_unit, "mixed"))) {
			char *u = strdup(v->given_unit ? "mixed" : tu ? tu : "ns");

			if (!u)
				return -ENOMEM;
			free(v->given_unit);
			v->given_unit = u;
		}
		if (add(v, json_number_value(t) * scale))
			return -ENOMEM;
	}
	return 0;
}

int pbench_samples_gbench_metric(struct pbench_samples *s, const char *metric)
{
	if (!s || !metric || (strcmp(metric, "real_time") && strcmp(metric, "cpu_time")))
		return pb_fail(-EINVAL, "%s(): the metric is real_time or cpu_time, not '%s'",
			       __func__, metric ? metric : "(null)");
	s->cpu_time = !strcmp(metric, "cpu_time");
	return 0;
}

/* "name (mode)": a contrast has two sets from one file. */
static int runs_set(struct pbench_samples *s, json_t *runs, const char *name, const char *mode,
		    const char *key, char *why, size_t wlen)
{
	char *label = NULL;
	struct sample_set *v;
	size_t i;
	json_t *e;

	if (mode && asprintf(&label, "%s (%s)", name, mode) < 0)
		return -ENOMEM;
	v = new_set(s, label ? label : name, "ns");
	free(label);
	if (!v)
		return -ENOMEM;
	json_array_foreach(runs, i, e) {
		json_t *x = json_object_get(e, key);

		if (!pb_run_measured(json_is_true(json_object_get(e, "timed_out")))) {
			v->left_out++;	/* PB_RUN_LEFT_OUT */
			continue;
		}
		if (!json_is_number(x) || !isfinite(json_number_value(x))) {
			pb_why_set(why, wlen, "%s: run %zu has no number '%s'", name, i, key);
			return -EINVAL;
		}
		if (json_integer_value(json_object_get(e, "exit_status")) ||
		    json_is_integer(json_object_get(e, "signal")))
			v->failed++;	/* kept, as stat keeps it, and said */
		if (add(v, json_number_value(x)))
			return -ENOMEM;
	}
	return 0;
}

/* pbench compare: a set per entrant, named by its name, of its times_ns (the runs kept that
 * did not time out, or a baseline's stored times). */
static int entrants_sets(struct pbench_samples *s, json_t *arr, const char *name, char *why,
			 size_t wlen)
{
	size_t i, k;
	json_t *e, *x;

	json_array_foreach(arr, i, e) {
		const char *ename = json_string_value(json_object_get(e, "name"));
		json_t *times = json_object_get(e, "times_ns");
		struct sample_set *v;

		if (!ename || !json_is_array(times)) {
			pb_why_set(why, wlen, "%s: entrant %zu has no name or no 'times_ns' array",
				name, i);
			return -EINVAL;
		}
		v = new_set(s, ename, "ns");
		if (!v)
			return -ENOMEM;
		if (json_integer_value(json_object_get(e, "failed")) > 0)
			v->failed = (size_t)json_integer_value(json_object_get(e, "failed"));
		json_array_foreach(times, k, x) {
			if (!json_is_number(x) || !isfinite(json_number_value(x))) {
				pb_why_set(why, wlen, "%s: entrant '%s': time %zu is not a number", name,
					ename, k);
				return -EINVAL;
			}
			if (add(v, json_number_value(x)))
				return -ENOMEM;
		}
	}
	return 0;
}

static int parse_pbench(struct pbench_samples *s, json_t *root, const char *name, char *why,
			size_t wlen)
{
	json_t *modes = json_object_get(root, "modes"), *arr;
	size_t i;
	json_t *m;
	int err;

	if (json_is_array(modes)) {	/* pbench stat, every mode */
		json_array_foreach(modes, i, m) {
			const char *mode = json_string_value(json_object_get(m, "mode"));
			json_t *runs = json_object_get(m, "runs");

			if (!json_is_array(runs)) {
				pb_why_set(why, wlen, "%s: mode %zu has no 'runs' array", name, i);
				return -EINVAL;
			}
			err = runs_set(s, runs, name, json_array_size(modes) > 1 ? mode : NULL,
				       "ns", why, wlen);
			if (err)
				return err;
		}
		return 0;
	}
	if ((arr = json_object_get(root, "entrants")) && json_is_array(arr))
		return entrants_sets(s, arr, name, why, wlen);
	if ((arr = json_object_get(root, "runs")) && json_is_array(arr))
		return runs_set(s, arr, name, NULL, "ns", why, wlen);
	if ((arr = json_object_get(root, "samples")) && json_is_array(arr)) {
		/* the library's result: samples[].ns_per_iter */
		const char *label = json_string_value(json_object_get(root, "label"));

		return runs_set(s, arr, label ? label : name, NULL, "ns_per_iter", why, wlen);
	}
	if (json_object_get(root, "verdict") && json_object_get(root, "a")) {
		const char *raw = json_string_value(json_object_get(root, "verdict"));
		char *v = raw ? pb_text_shown(raw) : NULL;
		json_t *r = json_object_get(root, "ratio");

		free(s->note);
		s->note = NULL;
		if (asprintf(&s->note, "%s: a pbench comparison (verdict '%s', ratio %.4g after %"
			     JSON_INTEGER_FORMAT " pairs) keeps the two summaries, not the samples: "
			     "nothing to summarize again", name, v ? v : "?",
			     json_is_number(r) ? json_number_value(r) : NAN,
			     json_integer_value(json_object_get(root, "pairs"))) < 0)
			s->note = NULL;
		free(v);
		return 0;
	}
	pb_why_set(why, wlen, "%s: pbench JSON with neither runs nor samples", name);
	return -EINVAL;
}

/* "1.2.3" as one number to compare, or -1 for anything else. */
static long long version_number(const char *v)
{
	unsigned a, b, c;
	int end = 0;

	if (!v || sscanf(v, "%u.%u.%u%n", &a, &b, &c, &end) != 3 || a > 9999 || b > 9999 ||
	    c > 9999)
		return -1;
	return ((long long)a * 10000 + b) * 10000 + c;
}

/* pbench JSON of a schema this library does not know, or written by a newer pbench: read as
 * far as this one knows how, and said (pbench_samples_warning()). */
static void check_origin(struct pbench_samples *s, json_t *root, const char *name)
{
	json_t *schema = json_object_get(root, "schema");
	const char *ver = json_string_value(json_object_get(root, "pbench_version"));
	long long theirs = version_number(ver),
		  ours = version_number(PBENCH_VERSION_STRING);
	char *w = NULL, *shown = ver ? pb_text_shown(ver) : NULL;
	int r = 0;

	if (!json_is_integer(schema) || json_integer_value(schema) < 1 ||
	    json_integer_value(schema) > PBENCH_JSON_SCHEMA)
		r = asprintf(&w, "%s: JSON schema %s%lld%s, which this pbench (%s, schemas 1 to "
			     "%d) does not know: read as far as it can, what it lacks is missed",
			     name, json_is_integer(schema) ? "" : "'",
			     (long long)json_integer_value(schema),
			     json_is_integer(schema) ? "" : "' (not a number)",
			     PBENCH_VERSION_STRING, PBENCH_JSON_SCHEMA);
	else if (theirs < 0 || theirs > ours)
		r = asprintf(&w, "%s: written by pbench %s, %s this one (%s): read as far as it "
			     "can, what it lacks is missed", name, shown ? shown : "(none)",
			     theirs < 0 ? "a version unknown to" : "newer than",
			     PBENCH_VERSION_STRING);
	free(shown);
	if (r < 0 || !w)
		return;
	free(s->warning);
	s->warning = w;
}

static int parse_json(struct pbench_samples *s, const char *text, size_t len, const char *name,
		      char *why, size_t wlen)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *arr;
	int err;

	if (!root) {
		pb_why_set(why, wlen, "%s:%d: not valid JSON: %s", name, jerr.line, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		pb_why_set(why, wlen, "%s: JSON that is not an object", name);
		err = -EINVAL;
	} else if (json_object_get(root, "schema") && json_object_get(root, "pbench_version")) {
		check_origin(s, root, name);
		err = parse_pbench(s, root, name, why, wlen);
	} else if ((arr = json_object_get(root, "results")) && json_is_array(arr)) {
		err = parse_hyperfine(s, arr, name, why, wlen);
	} else if ((arr = json_object_get(root, "benchmarks")) && json_is_array(arr)) {
		err = parse_gbench(s, arr, name, why, wlen);
	} else {
		pb_why_set(why, wlen, "%s: JSON that is neither pbench's, hyperfine's (results) nor "
			"Google Benchmark's (benchmarks)", name);
		err = -EINVAL;
	}
	json_decref(root);
	return err;
}

/* The most a file of samples may hold (PB_INPUT_MAX, base/input.c): more is not samples
 * (/dev/zero, a disk image). Plain numbers are read as they come; JSON is parsed whole by
 * jansson, at 10 to 13 times its size in memory (53 MB of Google Benchmark's JSON took 672 MB
 * and 17 s here): so a JSON input is bounded lower (PB_INPUT_JSON_MAX), at about 200 MB and
 * 5 s, and the message says how to give more. */
#define SAMPLES_FILE_MAX PB_INPUT_MAX
#define SAMPLES_JSON_MAX PB_INPUT_JSON_MAX

/* The one rule of a time, whatever the format it came in (plain numbers with a time unit,
 * hyperfine's, Google Benchmark's, pbench's, a baseline's): finite and not negative. Plain
 * numbers with a label are not times and may be anything finite. */
static int check_times(const struct sample_set *v, const char *name, char *why, size_t wlen)
{
	int time = v->unit && !strcmp(v->unit, "ns");

	for (size_t i = 0; i < v->n; i++) {	/* pbench_stats_summary() refuses them too */
		int bad = pb_input_value(v->x[i], time);

		if (bad == PB_INPUT_NEGATIVE) {
			pb_why_set(why, wlen, "%s%s%s%s: time %zu is negative (%g ns): not a time",
				name, strcmp(name, v->name) ? ": '" : "",
				strcmp(name, v->name) ? v->name : "", strcmp(name, v->name) ? "'" : "",
				i + 1, v->x[i]);
			return -EINVAL;
		}
		if (bad) {
			pb_why_set(why, wlen, "%s: '%s': value %zu (%g) %s", name, v->name, i + 1,
				v->x[i], pb_input_value_why(bad));
			return -EINVAL;
		}
	}
	return 0;
}

static int add_text(struct pbench_samples *s, const char *text, size_t len, const char *name,
		    const char *unit, char *why, size_t wlen)
{
	const char *nul;
	size_t at = 0;
	int before, err;

	if (!s || (!text && len) || !name) {
		pb_why_set(why, wlen, "invalid arguments");
		return -EINVAL;
	}
	before = s->n;
	free(s->warning);
	s->warning = NULL;
	if ((nul = pb_input_nul(text, len, NULL))) {
		pb_why_set(why, wlen, "%s: a NUL byte at offset %zu: not a text of numbers or JSON",
			name, (size_t)(nul - text));
		return -EILSEQ;
	}
	while (at < len && isspace((unsigned char)text[at]))
		at++;
	if (at < len && text[at] == '{' && len > SAMPLES_JSON_MAX) {
		pb_why_set(why, wlen, "%s: JSON of more than %zu MiB: pbench reads JSON whole, at 10 "
			"times its size in memory or more; give its times as plain numbers instead, "
			"one a line (up to %zu MiB; e.g. jq '.results[].times[]' for hyperfine's)", name,
			SAMPLES_JSON_MAX >> 20, SAMPLES_FILE_MAX >> 20);
		return -EFBIG;
	}
	err = at < len && text[at] == '{' ? parse_json(s, text, len, name, why, wlen)
					  : parse_plain(s, text, len, name, unit, why, wlen);
	if (err == -ENOMEM)
		pb_why_set(why, wlen, "%s: out of memory", name);
	if (!err && s->n == before && !s->note) {
		pb_why_set(why, wlen, "%s: no samples (empty input)", name);
		err = -ENODATA;
	}
	for (int k = before; !err && k < s->n; k++)
		if (s->v[k].n == 0) {
			pb_why_set(why, wlen, "%s: no samples", s->v[k].name);
			err = -ENODATA;
		}
	for (int k = before; !err && k < s->n; k++)
		err = check_times(&s->v[k], name, why, wlen);
	for (int k = before; !err && k < s->n; k++) {
		s->v[k].input = s->inputs;
		if (!(s->v[k].origin = pb_text_shown(name)))
			err = -ENOMEM;
	}
	if (!err && s->n > before)
		s->inputs++;
	return err ? err : s->n - before;
}


int pb_samples_add_file(struct pbench_samples *s, const char *path, const char *unit,
			char *why, size_t wlen)
{
	char *text = NULL;
	size_t len = 0;
	int err;

	if (!s || !path) {
		pb_why_set(why, wlen, "invalid arguments");
		return -EINVAL;
	}
	err = pb_input_read(path, SAMPLES_FILE_MAX, NULL, &text, &len, why, wlen);
	if (!err)
		err = add_text(s, text, len, strcmp(path, "-") ? path : "stdin", unit, why, wlen);
	free(text);
	return err;
}

/* A reader's failure said whole, in the words it wrote in why (none: the code's own). */
int pb_samples_said(int err, const char *why)
{
	return err < 0 && *why ? pb_fail_msg(err, "%s", why) : err;
}

/* The words of a failure as pbench analyze said them: 512 bytes at most. */
#define WHY_LEN 512

int pbench_samples_add_text(struct pbench_samples *s, const char *text, size_t len,
			    const char *name, const char *unit)
{
	char why[WHY_LEN] = "";

	pb_fail_clear();
	return pb_samples_said(add_text(s, text, len, name, unit, why, sizeof(why)), why);
}

int pbench_samples_add_file(struct pbench_samples *s, const char *path, const char *unit)
{
	char why[WHY_LEN] = "";

	pb_fail_clear();
	return pb_samples_said(pb_samples_add_file(s, path, unit, why, sizeof(why)), why);
}
