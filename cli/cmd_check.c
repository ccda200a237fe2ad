/* SPDX-License-Identifier: MIT */
/* pbench check: is this machine fit to measure on, and exactly how to fix what is not. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

#define MAX_TARGETS 4096

static void check_usage(FILE *f)
{
	fputs(PB_HELP_CHECK, f);
}

/* The findings in each format asked for (cli_out_write): the library's writers. */
static int write_report(void *arg, int fmt, FILE *f)
{
	struct pbench_check *env = arg;

	if (fmt == CLI_FMT_JSON)
		return pbench_check_write_json(env, f);
	return pbench_check_write_text(env, f, cli_term_color(f) ? PBENCH_CHECK_WRITE_COLOR : 0,
				     cli_term_width(f));
}

/* The options: the CPUs (n of them), --strict. */
struct check_opts {
	int *cpus, n, strict;
};

static int check_option(int c, const char *arg, void *ctx)
{
	struct check_opts *o = ctx;

	if (c == 's')
		o->strict = 1;
	else if (c != 'c')
		return 1;
	else if ((o->n = cli_cpus("check", "--cpu", arg, CLI_CPU_PRESENT, o->cpus, MAX_TARGETS)) < 0)
		return -1;
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	struct check_opts o = { .cpus = calloc(MAX_TARGETS, sizeof(int)) };
	int strict, n, err, rc;
	struct pbench_check *env;
	struct cli_out out;

	if (!o.cpus)
		return EXIT_RUNTIME;
	cli_out_init(&out, "check", CLI_OUT_JSON, CLI_OUT_NO_ARGS);
	rc = cli_options(argc, argv, "+:c:sh", opts, &out, check_usage, check_option, &o);
	if (!rc)
		rc = cli_out_open(&out);
	if (rc) {
		free(o.cpus);
		return rc < 0 ? EXIT_USAGE : rc == 1 ? EXIT_OK : rc;
	}
	strict = o.strict;
	n = o.n;
	err = pbench_check(&env, n ? o.cpus : NULL, n, 0);
	free(o.cpus);
	if (err) {
		/* its words before cli_out_close() calls the library again */
		char *why = strdup(pbench_strerror(err));

		cli_out_close(&out, 0, EXIT_OK);
		cli_error("%s", why ? why : pbench_strerror(err));
		free(why);
		/* a CPU not present is the user's to fix; a recorded tree's failure, the tree's */
		if (err == -EINVAL && n > 0)
			return EXIT_USAGE;
		if (getenv("PBENCH_SYSFS_ROOT") || getenv("PBENCH_PROCFS_ROOT"))
			cli_hint("tests/fixtures/record.sh records a whole tree");
		return EXIT_RUNTIME;
	}
	rc = cli_out_write(&out, write_report, env);
	if (strict && strcmp(pbench_check_verdict(env), "ready"))
		rc = EXIT_RUNTIME;
	pbench_check_free(env);
	return cli_out_close(&out, 1, rc);
}
