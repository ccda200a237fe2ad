/* SPDX-License-Identifier: MIT */
/*
 * pbench analyze: the summary pbench uses, for samples from anywhere (one number per line, or
 * the JSON of pbench, hyperfine or Google Benchmark); with two inputs, their comparison.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

#define ANALYZE_OUTPUTS (CLI_OUT_JSON | CLI_OUT_MARKDOWN)

static void analyze_usage(FILE *f)
{
	fprintf(f, PB_HELP_ANALYZE, PBENCH_STATS_DEFAULT_CONFIDENCE * 100);
}

static int read_input(struct pbench_samples *in, const char *path, const char *unit,
		      const struct cli_out *out)
{
	int err;

	err = pbench_samples_add_file(in, path, unit);
	if (err >= 0 && pbench_samples_warning(in))
		cli_warn("%s", pbench_samples_warning(in));
	if (err == -ENOMEM || err == -EIO) {
		cli_error("%s", pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	if (err < 0) {
		cli_error("%s", pbench_strerror(err));
		cli_out_hint(out, path);
		return EXIT_USAGE;
	}
	/* A note on an input that holds no samples: with the text, or beside another format */
	if (!err && pbench_samples_note(in))
		fprintf(cli_out_text(out) ? stdout : stderr, "%s\n", pbench_samples_note(in));
	return 0;
}

/* ---- output ---------------------------------------------------------------------------- */

/* The library's reports of the samples, in each format asked for (cli_out_write). */
static int write_report(void *arg, int fmt, FILE *f)
{
	struct pbench_samples *in = arg;

	if (fmt == CLI_FMT_TEXT)
		return pbench_samples_write_text(in, f, cli_term_width(f));
	return pbench_samples_write(in, fmt, f);
}

/* What the options give: the files in order, --unit, --metric. */
struct analyze_args {
	const char **files, *unit, *metric;
	int nfiles;
};

/* An option, or a file (1: the "-" mode of getopt returns each file in turn). */
static int analyze_option(int c, const char *arg, void *ctx)
{
	static const char *const metrics[] = { "real_time", "cpu_time" };
	struct analyze_args *a = ctx;

	if (c == 1)
		a->files[a->nfiles++] = arg;
	else if (c == 'u')
		a->unit = arg;
	else if (c == 'm' && cli_choice("--metric", arg, metrics, 2) < 0)
		return -1;
	else if (c == 'm')
		a->metric = arg;
	return c != 1 && c != 'u' && c != 'm';
}

/* The options, before or after the files; after "--" everything is a file. */
static int parse_args(int argc, char **argv, struct cli_out *out, struct analyze_args *a)
{
	static const struct option opts[] = {
		{ "unit", required_argument, NULL, 'u' },
		{ "metric", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	int rc;

	cli_out_init(out, "analyze", ANALYZE_OUTPUTS, 0);
	rc = cli_options(argc, argv, "-:u:m:h", opts, out, analyze_usage, analyze_option, a);
	while (!rc && optind < argc)
		a->files[a->nfiles++] = argv[optind++];
	return rc;
}

/* Read each input, then write the summaries and comparisons. */
static int analyze(struct cli_out *out, const struct analyze_args *a)
{
	struct pbench_samples *in = NULL;
	int rc = EXIT_OK, err;

	if (pbench_samples_new(&in)) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (a->metric)
		pbench_samples_gbench_metric(in, a->metric);	/* checked by cli_choice() */
	if (!a->nfiles)
		rc = read_input(in, "-", a->unit, out);
	for (int i = 0; !rc && i < a->nfiles; i++)
		rc = read_input(in, a->files[i], a->unit, out);
	/* an error said, or only comparisons (said): nothing to write */
	if (!rc && pbench_samples_nr(in)) {
		err = pbench_samples_analyze(in, PBENCH_STATS_DEFAULT_CONFIDENCE,
					     PBENCH_STATS_DEFAULT_SAME_PCT);
		if (err) {
			cli_error("%s", pbench_strerror(err));
			rc = err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
		} else {
			rc = cli_out_write(out, write_report, in);
		}
	}
	pbench_samples_free(in);
	return rc;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_args a = { .files = calloc((size_t)argc + 1, sizeof(char *)) };
	struct cli_out out;
	int rc;

	if (!a.files) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	rc = parse_args(argc, argv, &out, &a);
	if (rc) {
		free(a.files);
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	}
	rc = cli_out_open(&out);
	if (!rc)
		rc = cli_out_close(&out, 1, analyze(&out, &a));
	free(a.files);
	return rc;
}
