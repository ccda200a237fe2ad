/* SPDX-License-Identifier: MIT */
/*
 * pbench jitter: how often each CPU is interrupted, for how long, and by what. A thread per
 * CPU spins on the clock and keeps every gap; the CPU's interrupts, softirqs, steal, the
 * thread's preemptions and SMIs are counted over the same window; the report says which of
 * them account for the gaps and what to do about each.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

#define MIN_DURATION_S 0.01
#define MAX_CPUS CPU_SETSIZE

#define JITTER_OUTPUTS (CLI_OUT_JSON | CLI_OUT_PLOT)

enum { OPT_COMPARE = 256 };

struct jitter_opts {
	int *cpus;
	int ncpus;
	double duration_s;
	double threshold_ns;
	struct cli_out out;		/* --json, --export-json FILE, --plot FILE */
	int compare_prepared;
};

static void jitter_usage(FILE *f)
{
	const struct pbench_jitter_opts d = PBENCH_JITTER_OPTS_INIT;

	fprintf(f, PB_HELP_JITTER, d.duration_s, d.duration_s);
}

static int jitter_option(int c, const char *arg, void *ctx)
{
	struct jitter_opts *o = ctx;

	switch (c) {
	case 'c':
		o->ncpus = cli_cpus("jitter", "--cpu", arg, 0, o->cpus, MAX_CPUS);
		return o->ncpus < 0 ? -1 : 0;
	case 'd':
		/* Shorter windows hold too few reads for a rate to mean anything. */
		return cli_number("--duration", "duration", arg, MIN_DURATION_S, 1e12, 0,
				  &o->duration_s) ? -1 : 0;
	case 't':
		return cli_number("--threshold", "threshold", arg, 0, 1e9, CLI_NUM_POSITIVE,
				  &o->threshold_ns) ? -1 : 0;
	case OPT_COMPARE:
		o->compare_prepared = 1;
		return 0;
	}
	return 1;
}

static int parse_args(int argc, char **argv, struct jitter_opts *o)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "threshold", required_argument, NULL, 't' },
		{ "compare-prepared", no_argument, NULL, OPT_COMPARE },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};

	cli_out_init(&o->out, "jitter", JITTER_OUTPUTS, CLI_OUT_NO_ARGS);
	return cli_options(argc, argv, "+:c:d:t:h", opts, &o->out, jitter_usage, jitter_option,
			   o);
}

/* What the options ask is checked before anything spins (pbench_jitter_check()): exit 2
 * with nothing run. */
static int check_args(struct jitter_opts *o)
{
	struct pbench_jitter_opts jo = PBENCH_JITTER_OPTS_INIT;
	int err;

	jo.cpus = o->cpus;
	jo.ncpus = o->ncpus;
	jo.duration_s = o->duration_s;
	jo.flags = o->compare_prepared ? PBENCH_JITTER_PREPARED : 0;
	if (!(err = pbench_jitter_check(&jo)))
		return 0;
	cli_error("%s", pbench_strerror(err));
	return -1;
}

static int run_error(int err)
{
	if (err == -EINVAL || err == -E2BIG) {
		cli_error("cannot probe these CPUs: %s", pbench_strerror(err));
		return EXIT_USAGE;
	}
	cli_error("cannot probe: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

/* The two probes' report in each format asked for (cli_out_write). */
struct jitter_report {
	struct pbench_jitter *j, *prep;
};

static int write_report(void *arg, int fmt, FILE *f)
{
	const struct jitter_report *r = arg;

	return pbench_jitter_write(r->j, r->prep, fmt, f);
}

static int jitter_run(struct jitter_opts *o)
{
	struct pbench_jitter_opts jo = PBENCH_JITTER_OPTS_INIT;
	struct pbench_jitter *j = NULL, *prep = NULL;
	int err, rc, cpu, kind;
	unsigned flags;
	char why[256];

	jo.duration_s = o->duration_s;
	jo.threshold_ns = o->threshold_ns;
	jo.stop = cli_stop;
	jo.text_width = cli_term_width(stdout);
	if (o->compare_prepared && !o->ncpus) {
		cpu = pbench_cpu_pick(why, sizeof(why));
		if (cpu < 0) {
			cli_error("cannot pick the CPU to prepare: %s", pbench_strerror(cpu));
			return EXIT_RUNTIME;
		}
		o->cpus[0] = cpu;
		o->ncpus = 1;
		fprintf(stderr, "pbench jitter: CPU %d: %s\n", cpu, why);
	}
	jo.cpus = o->ncpus ? o->cpus : NULL;
	jo.ncpus = o->ncpus;
	err = pbench_jitter_run(&j, &jo);
	if (!err && o->compare_prepared && !*cli_stop) {
		jo.flags = PBENCH_JITTER_PREPARED;
		err = pbench_jitter_run(&prep, &jo);
	}
	if (err) {
		pbench_jitter_free(j);
		return run_error(err);
	}
	rc = cli_out_write(&o->out, write_report, &(struct jitter_report){ j, prep });
	flags = (*cli_stop ? PBENCH_OUTCOME_INTERRUPTED : 0) |
		(o->compare_prepared ? PBENCH_OUTCOME_PREPARED : 0);
	for (int k = 0; (kind = pbench_jitter_outcome(j, prep, flags, k, why, sizeof(why))) > 0; k++)
		rc = cli_outcome(kind, why) ? EXIT_RUNTIME : rc;
	pbench_jitter_free(prep);
	pbench_jitter_free(j);
	return rc;
}

int cmd_jitter(int argc, char **argv)
{
	const struct pbench_jitter_opts d = PBENCH_JITTER_OPTS_INIT;
	struct jitter_opts o = { .duration_s = d.duration_s };
	int rc;

	o.cpus = calloc(MAX_CPUS, sizeof(*o.cpus));
	if (!o.cpus)
		return EXIT_RUNTIME;
	rc = parse_args(argc, argv, &o);
	if (!rc)
		rc = check_args(&o);
	if (rc) {
		free(o.cpus);
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	}
	/* Opened before anything spins: a path that cannot be written is a usage error. */
	rc = cli_out_open(&o.out);
	if (!rc)
		rc = cli_out_close(&o.out, 1, jitter_run(&o));
	free(o.cpus);
	return rc;
}
