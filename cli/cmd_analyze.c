/* SPDX-License-Identifier: MIT */
/*
 * pbench analyze: the summary pbench uses, for samples from anywhere (one number per line, or
 * the JSON of pbench, hyperfine or Google Benchmark); with two inputs, their comparison.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pbench.h"
#include "cmds.h"

#define CONFIDENCE 0.999

struct input {
	char name[256];
	double *x;
	size_t n, cap;
	const char *unit;	/* "ns" when the source said so, else the --unit or NULL */
};

struct inputs {
	struct input *v;
	int n;
};

static void analyze_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench analyze [--json] [--unit UNIT] [FILE...]\n"
		"\n"
		"Summarizes samples: one number per line (blank lines and # comments skipped), or\n"
		"the JSON that pbench stat, hyperfine (--export-json) or Google Benchmark\n"
		"(--benchmark_format=json) write. FILE '-' or no FILE reads stdin. Two inputs (two\n"
		"files, or a JSON file holding two benchmarks) are also compared: Welch's t-test,\n"
		"Mann-Whitney U, and the ratio of the means with its %.1f%% interval.\n"
		"\n"
		"  -u, --unit UNIT   unit of plain numbers: ns, us, ms or s (times are then shown\n"
		"                    in scaled units); anything else is printed as a label\n"
		"      --json        JSON on stdout (schema 1)\n"
		"  -h, --help        this help\n", CONFIDENCE * 100);
}

static struct input *new_input(struct inputs *in, const char *name, const char *unit)
{
	struct input *p = realloc(in->v, (size_t)(in->n + 1) * sizeof(*p));

	if (!p)
		return NULL;
	in->v = p;
	p = &in->v[in->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->unit = unit;
	return p;
}

static int add_sample(struct input *p, double v)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		double *x = realloc(p->x, cap * sizeof(*x));

		if (!x)
			return -1;
		p->x = x;
		p->cap = cap;
	}
	p->x[p->n++] = v;
	return 0;
}

/* Plain numbers with a scale to ns (1 for ns, 0 when not a time unit). */
static double unit_scale(const char *unit)
{
	static const struct {
		const char *name;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].scale;
	return 0;
}

static int parse_plain(struct inputs *in, const char *name, char *text, const char *unit)
{
	double scale = unit_scale(unit);
	struct input *p = new_input(in, name, scale ? "ns" : unit);
	char *line = text, *next;
	int lineno = 0;

	if (!p)
		return -1;
	for (; line && *line; line = next) {
		char *s = line, *end;
		double v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		errno = 0;
		v = strtod(s, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (end == s || *end || errno == ERANGE) {
			cli_error("%s:%d: '%.40s' is not a number", name, lineno, s);
			return -1;
		}
		if (!isfinite(v)) {
			cli_error("%s:%d: '%.40s' is not a finite number", name, lineno, s);
			return -1;
		}
		if (add_sample(p, scale ? v * scale : v))
			return -1;
	}
	return 0;
}

/* Google Benchmark: one input per run_name, each iteration-type entry a sample. */
static int parse_gbench(struct inputs *in, const char *name, json_t *benchmarks)
{
	size_t i;
	json_t *b;

	json_array_foreach(benchmarks, i, b) {
		const char *run = json_string_value(json_object_get(b, "run_name"));
		const char *type = json_string_value(json_object_get(b, "run_type"));
		const char *tu = json_string_value(json_object_get(b, "time_unit"));
		json_t *rt = json_object_get(b, "real_time");
		double scale = unit_scale(tu ? tu : "ns");
		struct input *p = NULL;
		char label[256];

		if (type && strcmp(type, "iteration"))
			continue;	/* mean/median/stddev aggregates are not samples */
		if (!run)
			run = json_string_value(json_object_get(b, "name"));
		if (!run || !json_is_number(rt) || !scale) {
			cli_error("%s: benchmark entry %zu has no run_name, real_time or known "
				  "time_unit", name, i);
			return -1;
		}
		snprintf(label, sizeof(label), "%s", run);
		for (int k = 0; k < in->n; k++)
			if (!strcmp(in->v[k].name, label))
				p = &in->v[k];
		if (!p && !(p = new_input(in, label, "ns")))
			return -1;
		if (add_sample(p, json_number_value(rt) * scale))
			return -1;
	}
	return 0;
}

static int parse_json(struct inputs *in, const char *name, const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr), *arr;
	int err = -1;
	size_t i;
	json_t *e;

	if (!root) {
		cli_error("%s:%d: not valid JSON: %s", name, jerr.line, jerr.text);
		return -1;
	}
	if ((arr = json_object_get(root, "results")) && json_is_array(arr)) {
		/* hyperfine: results[].times in seconds */
		json_array_foreach(arr, i, e) {
			json_t *times = json_object_get(e, "times"), *t;
			const char *cmd = json_string_value(json_object_get(e, "command"));
			struct input *p = new_input(in, cmd ? cmd : name, "ns");
			size_t k;

			if (!p || !json_is_array(times)) {
				cli_error("%s: hyperfine result %zu has no 'times' array (export with "
					  "--export-json)", name, i);
				goto out;
			}
			json_array_foreach(times, k, t)
				if (!json_is_number(t) || add_sample(p, json_number_value(t) * 1e9))
					goto bad_value;
		}
		err = 0;
	} else if ((arr = json_object_get(root, "benchmarks")) && json_is_array(arr)) {
		err = parse_gbench(in, name, arr);
	} else if ((arr = json_object_get(root, "runs")) && json_is_array(arr)) {
		/* pbench stat: runs[].ns */
		struct input *p = new_input(in, name, "ns");

		if (!p)
			goto out;
		json_array_foreach(arr, i, e)
			if (!json_is_integer(json_object_get(e, "ns")) ||
			    add_sample(p, (double)json_integer_value(json_object_get(e, "ns"))))
				goto bad_value;
		err = 0;
	} else {
		cli_error("%s: JSON that is neither pbench's (runs), hyperfine's (results) nor "
			  "Google Benchmark's (benchmarks)", name);
	}
	goto out;
bad_value:
	cli_error("%s: entry %zu is not a number", name, i);
out:
	json_decref(root);
	return err;
}

static char *slurp(FILE *f)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);

	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (len + 1 < cap)
			break;
		cap *= 2;
		char *nb = realloc(buf, cap);

		if (!nb) {
			free(buf);
			return NULL;
		}
		buf = nb;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static int read_input(struct inputs *in, const char *path, const char *unit)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	const char *name = strcmp(path, "-") ? path : "stdin";
	char *text, *s;
	int before = in->n, err;

	if (!f) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	text = slurp(f);
	if (f != stdin)
		fclose(f);
	if (!text)
		return -1;
	for (s = text; isspace((unsigned char)*s); s++)
		;
	err = *s == '{' ? parse_json(in, name, text) : parse_plain(in, name, text, unit);
	free(text);
	if (err)
		return -1;
	for (int k = before; k < in->n; k++) {
		if (in->v[k].n == 0) {
			cli_error("%s: no samples%s", in->v[k].name, in->n - before > 1 ? "" :
				  " (empty input)");
			return -1;
		}
		if (in->v[k].n == 1) {
			cli_error("%s: a single sample: nothing to summarize (need 2 or more)",
				  in->v[k].name);
			return -1;
		}
	}
	if (in->n == before) {
		cli_error("%s: no samples (empty input)", name);
		return -1;
	}
	return 0;
}

/* ---- output ---------------------------------------------------------------------------- */

static const char *compare_verdict(const struct pbench_welch *w, double threshold)
{
	if (w->p < 1 - CONFIDENCE)
		return w->diff < 0 ? "faster" : "slower";
	if (w->ratio_lo >= 1 - threshold && w->ratio_hi <= 1 + threshold)
		return "same";
	return "undecided";
}

static void print_comparison(const struct input *a, const struct input *b,
			     const struct pbench_welch *w, const struct pbench_mann_whitney *m)
{
	const char *v = compare_verdict(w, 0.01);

	printf("\n%s vs %s:\n", a->name, b->name);
	printf("  ratio of means  %.4f (%.1f%% interval %.4f .. %.4f)\n", w->ratio,
	       CONFIDENCE * 100, w->ratio_lo, w->ratio_hi);
	printf("  Welch           t = %.3f, df = %.1f, p = %.3g\n", w->t, w->df, w->p);
	printf("  Mann-Whitney    U = %.1f, z = %.3f, p = %.3g\n", m->u, m->z, m->p);
	if (!strcmp(v, "faster") || !strcmp(v, "slower"))
		printf("verdict: %s is %s than %s by %.2f%% (significant at %.1f%%)\n", a->name, v,
		       b->name, fabs(1 - w->ratio) * 100, CONFIDENCE * 100);
	else if (!strcmp(v, "same"))
		printf("verdict: same: the ratio's interval lies within 1%% of 1\n");
	else
		printf("verdict: undecided: neither a significant difference nor within 1%%; "
		       "take more samples\n");
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct input *p, const struct pbench_summary *s)
{
	json_t *j = json_object(), *x = json_array();
	const char *u = p->unit && !strcmp(p->unit, "ns") ? "_ns" : "";
	char k[32];

	json_object_set_new(j, "name", json_string(p->name));
	json_object_set_new(j, "unit", p->unit ? json_string(p->unit) : json_null());
	json_object_set_new(j, "n", json_integer((json_int_t)s->n));
#define F(key, v) \
	do { \
		snprintf(k, sizeof(k), "%s%s", key, u); \
		json_object_set_new(j, k, json_real(v)); \
	} while (0)
	F("mean", s->mean);
	F("sem", s->sem);
	F("ci_lo", s->ci_lo);
	F("ci_hi", s->ci_hi);
	F("median", s->median);
	F("min", s->min);
	F("max", s->max);
	F("q1", s->q1);
	F("q3", s->q3);
	F("trimmed_mean", s->trimmed_mean);
	F("stddev", s->stddev);
	F("mad", s->mad);
#undef F
	json_object_set_new(j, "ci_level", json_real(s->ci_level));
	json_object_set_new(j, "cv_pct", json_real(s->cv_pct));
	json_object_set_new(j, "spread_pct", json_real(s->spread_pct));
	json_object_set_new(j, "outliers_low_mild", json_integer((json_int_t)s->outliers_low_mild));
	json_object_set_new(j, "outliers_low_severe",
			    json_integer((json_int_t)s->outliers_low_severe));
	json_object_set_new(j, "outliers_high_mild",
			    json_integer((json_int_t)s->outliers_high_mild));
	json_object_set_new(j, "outliers_high_severe",
			    json_integer((json_int_t)s->outliers_high_severe));
	json_object_set_new(j, "mvalue", json_real(s->mvalue));
	json_object_set_new(j, "bimodal", json_boolean(s->bimodal));
	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(x, json_real(p->x[i]));
	json_object_set_new(j, "samples", x);
	return j;
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "unit", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.95 };
	struct inputs in = { 0 };
	struct pbench_summary *sums = NULL;
	const char *unit = NULL;
	int json = 0, c, rc = EXIT_USAGE, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ju:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'u': unit = optarg; break;
		case 'h': analyze_usage(stdout); return EXIT_OK;
		default:
			cli_option_error(c, argv, "analyze");
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		if (read_input(&in, "-", unit))
			goto out;
	}
	for (int i = optind; i < argc; i++)
		if (read_input(&in, argv[i], unit))
			goto out;
	if (in.n > 2) {
		cli_error("%d inputs: pbench analyze compares at most two", in.n);
		goto out;
	}
	sums = calloc((size_t)in.n, sizeof(*sums));
	if (!sums) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (int i = 0; i < in.n; i++) {
		sums[i].size = sizeof(sums[i]);
		err = pbench_stats_summary(in.v[i].x, in.v[i].n, &so, &sums[i]);
		if (err) {
			cli_error("%s: cannot summarize: %s", in.v[i].name, pbench_strerror(err));
			rc = EXIT_RUNTIME;
			goto out;
		}
	}
	{
		struct pbench_stats_opts co = { .size = sizeof(co), .ci_level = CONFIDENCE };
		struct pbench_welch w = { .size = sizeof(w) };
		struct pbench_mann_whitney m = { .size = sizeof(m) };
		int compared = 0;

		if (in.n == 2) {
			err = pbench_stats_welch(in.v[0].x, in.v[0].n, in.v[1].x, in.v[1].n, &co, &w);
			if (!err)
				err = pbench_stats_mann_whitney(in.v[0].x, in.v[0].n, in.v[1].x,
								in.v[1].n, &m);
			if (err) {
				cli_error("cannot compare: %s", pbench_strerror(err));
				rc = EXIT_RUNTIME;
				goto out;
			}
			compared = 1;
		}
		if (json) {
			json_t *root = json_object(), *arr = json_array();

			json_object_set_new(root, "schema", json_integer(1));
			json_object_set_new(root, "pbench_version", json_string(pbench_version()));
			for (int i = 0; i < in.n; i++)
				json_array_append_new(arr, summary_json(&in.v[i], &sums[i]));
			json_object_set_new(root, "inputs", arr);
			if (compared) {
				json_t *cmp = json_object();

				json_object_set_new(cmp, "confidence", json_real(CONFIDENCE));
				/* NaN (a mean of 0 in b) is not JSON: write null. */
				json_object_set_new(cmp, "ratio", real_or_null(w.ratio));
				json_object_set_new(cmp, "ratio_lo", real_or_null(w.ratio_lo));
				json_object_set_new(cmp, "ratio_hi", real_or_null(w.ratio_hi));
				json_object_set_new(cmp, "welch_t", json_real(w.t));
				json_object_set_new(cmp, "welch_df", json_real(w.df));
				json_object_set_new(cmp, "welch_p", json_real(w.p));
				json_object_set_new(cmp, "mann_whitney_u", json_real(m.u));
				json_object_set_new(cmp, "mann_whitney_p", json_real(m.p));
				json_object_set_new(cmp, "verdict",
						    json_string(compare_verdict(&w, 0.01)));
				json_object_set_new(root, "comparison", cmp);
			}
			json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(root);
		} else {
			for (int i = 0; i < in.n; i++) {
				if (i)
					printf("\n");
				pbench_summary_write_text(&sums[i], stdout, in.v[i].name,
							  in.v[i].unit);
			}
			if (compared)
				print_comparison(&in.v[0], &in.v[1], &w, &m);
		}
	}
	rc = EXIT_OK;
out:
	for (int i = 0; i < in.n; i++)
		free(in.v[i].x);
	free(in.v);
	free(sums);
	return rc;
}
