/* SPDX-License-Identifier: MIT */
/*
 * pbench analyze: the summary pbench uses, for samples from anywhere (one number per line, or
 * the JSON of pbench, hyperfine or Google Benchmark); with two inputs, their comparison.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "pbench.h"
#include "cmds.h"

#define CONFIDENCE 0.999
#define ANALYZE_OUTPUTS CLI_OUT_JSON

static void analyze_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench analyze [--json] [--export-json FILE] [--unit UNIT] [FILE...]\n"
		"\n"
		"Summarizes samples: one number per line (blank lines and # comments skipped), or\n"
		"the JSON that pbench writes (stat in every mode, the library's result; a\n"
		"comparison is recognized and said to keep no samples), hyperfine (--export-json)\n"
		"or Google Benchmark (--benchmark_format=json). FILE '-' or no FILE reads stdin.\n"
		"With two inputs or more (files, or a file holding several sets), the first is\n"
		"compared with each other one: Welch's t-test, Mann-Whitney U, and the ratio of the\n"
		"means with its %.1f%% interval. Options may come before or after the files; after\n"
		"--, every argument is a file.\n"
		"\n"
		"  -u, --unit UNIT        unit of plain numbers: ns, us, ms or s (times are then\n"
		"                         shown in scaled units); anything else is printed as a label\n",
		CONFIDENCE * 100);
	cli_out_usage(f, ANALYZE_OUTPUTS, NULL, 25);
	fprintf(f, "  -h, --help             this help\n");
}

/* Read a whole file (or stdin) into memory. 0, or an exit code after the message. */
static int slurp(const char *path, char **text, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	size_t cap = 65536, n = 0;
	struct stat st;
	char *buf;

	*text = NULL;
	if (fd < 0) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_error("'%s' is a directory: give a file of samples", path);
		close(fd);
		return EXIT_USAGE;
	}
	buf = malloc(cap);
	while (buf) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_error("cannot read '%s': %s", path, strerror(errno));
			free(buf);
			if (fd != STDIN_FILENO)
				close(fd);
			return EXIT_RUNTIME;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (!buf) {
		cli_error("out of memory reading '%s'", path);
		return EXIT_RUNTIME;
	}
	*text = buf;
	*len = n;
	return 0;
}

static int read_input(struct pbench_samples *in, const char *path, const char *unit,
		      const struct cli_out *out)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	int before = pbench_samples_nr(in), rc, err;
	char why[512] = "", *text;
	size_t len;

	rc = slurp(path, &text, &len);
	if (rc) {
		cli_out_hint(out, path);
		return rc;
	}
	err = pbench_samples_add_text(in, text, len, name, unit, why, sizeof(why));
	free(text);
	if (err == -ENOMEM) {
		cli_error("%s", why);
		return EXIT_RUNTIME;
	}
	if (err < 0) {
		cli_error("%s", why);
		return EXIT_USAGE;
	}
	/* A note on an input that holds no samples: with the text, or beside another format */
	if (!err && pbench_samples_note(in))
		fprintf(cli_out_text(out) ? stdout : stderr, "%s\n", pbench_samples_note(in));
	for (int k = before; k < pbench_samples_nr(in); k++) {
		size_t n;

		pbench_samples_values(in, k, &n);
		if (n == 1) {
			cli_error("%s: a single sample: nothing to summarize (need 2 or more)",
				  pbench_samples_name(in, k));
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* ---- output ---------------------------------------------------------------------------- */

/* The library's verdict rule, for one look at fixed samples (pbench_stats_verdict()). */
static const char *compare_verdict(const struct pbench_welch *w, double same_pct)
{
	return pbench_verdict_name(pbench_stats_verdict(w, CONFIDENCE, same_pct, 0));
}

/* One comparison of input a with input b: a test when there is spread to judge by. */
struct cmp {
	int a, b;
	int tested;			/* 0: both constant, no test */
	struct pbench_welch w;
	struct pbench_mann_whitney m;
};

static int compare_pair(const struct pbench_samples *in, int a, int b, struct cmp *c)
{
	struct pbench_stats_opts co = { .size = sizeof(co), .ci_level = CONFIDENCE };
	size_t na, nb;
	const double *xa = pbench_samples_values(in, a, &na), *xb = pbench_samples_values(in, b, &nb);
	int err;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->w.size = sizeof(c->w);
	c->m.size = sizeof(c->m);
	err = pbench_stats_welch(xa, na, xb, nb, &co, &c->w);
	if (err == -EINVAL)
		return 0;	/* both constant: said in words, not as a test */
	if (!err)
		err = pbench_stats_mann_whitney(xa, na, xb, nb, &c->m);
	if (err) {
		cli_error("cannot compare '%s' with '%s': %s", pbench_samples_name(in, a),
			  pbench_samples_name(in, b), pbench_strerror(err));
		return -1;
	}
	c->tested = 1;
	return 0;
}

static void print_comparison(const struct pbench_samples *in, const struct pbench_summary *sums,
			     const struct cmp *c, FILE *f)
{
	const char *a = pbench_samples_name(in, c->a), *b = pbench_samples_name(in, c->b);
	const struct pbench_welch *w = &c->w;
	const char *v;

	fprintf(f, "\n%s vs %s:\n", a, b);
	if (!c->tested) {
		double ma = sums[c->a].mean, mb = sums[c->b].mean;

		if (ma == mb)
			fprintf(f, "verdict: same: both are constant and equal (every sample %.6g)\n", ma);
		else
			fprintf(f, "verdict: both are constant (every sample %.6g against %.6g): no spread "
			       "to test a difference by; a/b is %.6g\n", ma, mb, mb ? ma / mb : NAN);
		return;
	}
	v = compare_verdict(w, 1);
	fprintf(f, "  ratio of means  %.4f (%.1f%% interval %.4f .. %.4f)\n", w->ratio,
	       CONFIDENCE * 100, w->ratio_lo, w->ratio_hi);
	fprintf(f, "  Welch           t = %.3f, df = %.1f, p = %.3g\n", w->t, w->df, w->p);
	fprintf(f, "  Mann-Whitney    U = %.1f, z = %.3f, p = %.3g\n", c->m.u, c->m.z, c->m.p);
	if (!strcmp(v, "faster") || !strcmp(v, "slower"))
		fprintf(f, "verdict: %s is %s than %s by %.2f%% (significant at %.1f%%)\n", a, v, b,
		       fabs(1 - w->ratio) * 100, CONFIDENCE * 100);
	else if (!strcmp(v, "same"))
		fprintf(f, "verdict: same: the ratio's interval lies within 1%% of 1\n");
	else
		fprintf(f, "verdict: undecided: neither a significant difference nor within 1%%; "
		       "take more samples\n");
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct pbench_samples *in, int i, const struct pbench_summary *s)
{
	const char *unit = pbench_samples_unit(in, i);
	const char *u = unit && !strcmp(unit, "ns") ? "_ns" : "";
	json_t *j = json_object(), *x = json_array();
	const double *v;
	size_t n;
	char k[32];

	json_object_set_new(j, "name", json_string(pbench_samples_name(in, i)));
	json_object_set_new(j, "unit", unit ? json_string(unit) : json_null());
	json_object_set_new(j, "n", json_integer((json_int_t)s->n));
#define F(key, val) \
	do { \
		snprintf(k, sizeof(k), "%s%s", key, u); \
		json_object_set_new(j, k, real_or_null(val)); \
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
	json_object_set_new(j, "ci_level", real_or_null(s->ci_level));
	json_object_set_new(j, "cv_pct", real_or_null(s->cv_pct));
	json_object_set_new(j, "spread_pct", real_or_null(s->spread_pct));
	json_object_set_new(j, "outliers_low_mild", json_integer((json_int_t)s->outliers_low_mild));
	json_object_set_new(j, "outliers_low_severe",
			    json_integer((json_int_t)s->outliers_low_severe));
	json_object_set_new(j, "outliers_high_mild",
			    json_integer((json_int_t)s->outliers_high_mild));
	json_object_set_new(j, "outliers_high_severe",
			    json_integer((json_int_t)s->outliers_high_severe));
	json_object_set_new(j, "mvalue", real_or_null(s->mvalue));
	json_object_set_new(j, "bimodal", json_boolean(s->bimodal));
	v = pbench_samples_values(in, i, &n);
	for (size_t k2 = 0; k2 < n; k2++)
		json_array_append_new(x, real_or_null(v[k2]));
	json_object_set_new(j, "samples", x);
	return j;
}

static json_t *comparison_json(const struct pbench_samples *in, const struct cmp *c)
{
	json_t *j = json_object();
	const struct pbench_welch *w = &c->w;

	json_object_set_new(j, "a", json_string(pbench_samples_name(in, c->a)));
	json_object_set_new(j, "b", json_string(pbench_samples_name(in, c->b)));
	json_object_set_new(j, "confidence", json_real(CONFIDENCE));
	json_object_set_new(j, "ratio", c->tested ? real_or_null(w->ratio) : json_null());
	json_object_set_new(j, "ratio_lo", c->tested ? real_or_null(w->ratio_lo) : json_null());
	json_object_set_new(j, "ratio_hi", c->tested ? real_or_null(w->ratio_hi) : json_null());
	json_object_set_new(j, "welch_t", c->tested ? real_or_null(w->t) : json_null());
	json_object_set_new(j, "welch_df", c->tested ? real_or_null(w->df) : json_null());
	json_object_set_new(j, "welch_p", c->tested ? real_or_null(w->p) : json_null());
	json_object_set_new(j, "mann_whitney_u", c->tested ? real_or_null(c->m.u) : json_null());
	json_object_set_new(j, "mann_whitney_p", c->tested ? real_or_null(c->m.p) : json_null());
	json_object_set_new(j, "verdict", json_string(c->tested ? compare_verdict(w, 1)
							       : "constant"));
	return j;
}

static int write_json(const struct pbench_samples *in, const struct pbench_summary *sums,
		      const struct cmp *cmps, int ncmp, FILE *f)
{
	json_t *root = json_object(), *arr = json_array(), *ca = json_array();
	int nr = pbench_samples_nr(in), err;

	if (!root || !arr || !ca) {
		json_decref(root);
		json_decref(arr);
		json_decref(ca);
		return -ENOMEM;
	}
	json_object_set_new(root, "schema", json_integer(1));
	json_object_set_new(root, "pbench_version", json_string(pbench_version()));
	for (int i = 0; i < nr; i++)
		json_array_append_new(arr, summary_json(in, i, &sums[i]));
	json_object_set_new(root, "inputs", arr);
	for (int i = 0; i < ncmp; i++)
		json_array_append_new(ca, comparison_json(in, &cmps[i]));
	json_object_set_new(root, "comparisons", ca);
	err = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (err || fputc('\n', f) == EOF || fflush(f) == EOF || ferror(f))
		return -EIO;
	return 0;
}

/* Each input's summary (95% intervals); an exit status. */
static int summarize(struct pbench_samples *in, int nr, struct pbench_summary *sums)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.95 };

	for (int i = 0; i < nr; i++) {
		size_t n;
		const double *x = pbench_samples_values(in, i, &n);
		int err;

		sums[i].size = sizeof(sums[i]);
		err = pbench_stats_summary(x, n, &so, &sums[i]);
		if (err) {
			cli_error("%s: cannot summarize: %s", pbench_samples_name(in, i),
				  pbench_strerror(err));
			return err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

static void print_text(struct pbench_samples *in, const struct pbench_summary *sums,
		       const struct cmp *cmps, int ncmp, FILE *f)
{
	for (int i = 0; i < pbench_samples_nr(in); i++) {
		if (i)
			fprintf(f, "\n");
		pbench_summary_write_text(&sums[i], f, pbench_samples_name(in, i),
					  pbench_samples_unit(in, i));
	}
	for (int i = 0; i < ncmp; i++)
		print_comparison(in, sums, &cmps[i], f);
}

/* What analyze found, in each format asked for (cli_out_write). */
struct analysis {
	struct pbench_samples *in;
	const struct pbench_summary *sums;
	const struct cmp *cmps;
	int ncmp;
};

static int write_report(void *arg, int fmt, FILE *f)
{
	const struct analysis *a = arg;

	if (fmt == CLI_FMT_JSON)
		return write_json(a->in, a->sums, a->cmps, a->ncmp, f);
	print_text(a->in, a->sums, a->cmps, a->ncmp, f);
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}

/* The options, before or after the files (the "-" mode of getopt returns each file in
 * turn); after "--" everything is a file. files gets the files in order. */
static int parse_args(int argc, char **argv, struct cli_out *out, const char **unit,
		      const char **files, int *nfiles)
{
	static const struct option opts[] = {
		{ "unit", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	*nfiles = 0;
	cli_out_init(out, "analyze", ANALYZE_OUTPUTS, 0);
	while ((c = getopt_long(argc, argv, "-:u:h", opts, NULL)) != -1) {
		int taken = cli_out_option(out, c, optarg, argc, argv);

		if (taken < 0)
			return -1;
		if (taken)
			continue;
		switch (c) {
		case 1: files[(*nfiles)++] = optarg; break;
		case 'u': *unit = optarg; break;
		case 'h': analyze_usage(stdout); return 1;
		default:
			cli_option_error(c, argv, "analyze");
			return -1;
		}
	}
	while (optind < argc)
		files[(*nfiles)++] = argv[optind++];
	return 0;
}

/* Read each input, summarize each, compare the first with each other one, and write it all. */
static int analyze(struct cli_out *out, const char **files, int nfiles, const char *unit)
{
	struct pbench_samples *in = NULL;
	struct pbench_summary *sums = NULL;
	struct cmp *cmps = NULL;
	int rc = EXIT_OK, nr, ncmp = 0;

	if (pbench_samples_new(&in)) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (!nfiles)
		rc = read_input(in, "-", unit, out);
	for (int i = 0; !rc && i < nfiles; i++)
		rc = read_input(in, files[i], unit, out);
	nr = pbench_samples_nr(in);
	if (rc || !nr)
		goto out;	/* an error, or only comparisons: said */
	sums = calloc((size_t)nr, sizeof(*sums));
	cmps = calloc((size_t)nr, sizeof(*cmps));
	if (!sums || !cmps) {
		cli_error("out of memory for %d inputs", nr);
		rc = EXIT_RUNTIME;
		goto out;
	}
	if ((rc = summarize(in, nr, sums)))
		goto out;
	/* The first input against each other one. */
	for (int i = 1; i < nr; i++, ncmp++)
		if (compare_pair(in, 0, i, &cmps[ncmp])) {
			rc = EXIT_RUNTIME;
			goto out;
		}
	rc = cli_out_write(out, write_report, &(struct analysis){ in, sums, cmps, ncmp });
out:
	pbench_samples_free(in);
	free(sums);
	free(cmps);
	return rc;
}

int cmd_analyze(int argc, char **argv)
{
	const char *unit = NULL, **files;
	struct cli_out out;
	int rc, nfiles;

	files = calloc((size_t)argc + 1, sizeof(*files));
	if (!files) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	rc = parse_args(argc, argv, &out, &unit, files, &nfiles);
	if (rc) {
		free(files);
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	}
	rc = cli_out_open(&out);
	if (!rc)
		rc = cli_out_close(&out, 1, analyze(&out, files, nfiles, unit));
	free(files);
	return rc;
}
