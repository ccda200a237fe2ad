/* SPDX-License-Identifier: MIT */
/* pbench check: is this machine fit to measure on, and exactly how to fix what is not. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"

#define MAX_TARGETS 4096

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench check [--cpu LIST] [--json] [--strict]\n"
		"\n"
		"Checks every known source of timing noise for the CPU(s) you will measure on: what\n"
		"was found, why it matters, and the command that fixes it. Only reads; changes\n"
		"nothing. With no --cpu, the CPU a prepared run would pick (an isolated CPU, else the\n"
		"least busy CPU other than 0 whose SMT sibling is idle). The speed group measures\n"
		"the target CPU's own speed live, for about 2 s (not on a recorded tree).\n"
		"\n"
		"  -c, --cpu LIST   the target CPUs, e.g. 2 or 2-3,6\n"
		"      --json       JSON on stdout (schema 1)\n"
		"      --strict     exit 1 if any check is warn or bad\n"
		"  -h, --help       this help\n"
		"\n"
		"PBENCH_SYSFS_ROOT and PBENCH_PROCFS_ROOT point it at a recorded /sys and /proc tree\n"
		"(tests/fixtures/record.sh records one).\n");
}

/* --cpu LIST, checked against the highest present CPU so the error can name the valid range;
 * a hole in the present range is caught by pbench_env_check (-EINVAL). */
static int parse_cpus(const char *arg, int *cpus)
{
	char present[256] = "";
	int limit = MAX_TARGETS, n;

	if (pbench_cpus_present(present, sizeof(present)) == 0) {
		/* "0-N" or "0": the highest number ends the string */
		const char *last = strrchr(present, '-');

		last = last ? last + 1 : strrchr(present, ',') ? strrchr(present, ',') + 1 : present;
		limit = atoi(last) + 1;
	}
	n = pbench_cpus_parse(arg, cpus, MAX_TARGETS, limit);
	if (n < 0) {
		cli_error("invalid CPU list '%s' for --cpu: %s; present CPUs are %s", arg,
			  n == -ERANGE ? "no such CPU" : "expected a list such as 2 or 2-3,6",
			  present[0] ? present : "unknown");
		return -1;
	}
	return n;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int json = 0, strict = 0, c, n = 0, err;
	int *cpus = NULL, rc = EXIT_OK;
	struct pbench_env *env;

	optind = 1;
	opterr = 0;
	cpus = calloc(MAX_TARGETS, sizeof(*cpus));
	if (!cpus)
		return EXIT_RUNTIME;
	while ((c = getopt_long(argc, argv, "+:c:jsh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			n = parse_cpus(optarg, cpus);
			if (n < 0) {
				free(cpus);
				return EXIT_USAGE;
			}
			break;
		case 'j': json = 1; break;
		case 's': strict = 1; break;
		case 'h':
			check_usage(stdout);
			free(cpus);
			return EXIT_OK;
		default:
			cli_option_error(c, argv, "check");
			free(cpus);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s' for 'pbench check'", argv[optind]);
		free(cpus);
		return EXIT_USAGE;
	}
	err = pbench_env_check(&env, n ? cpus : NULL, n, 0);
	free(cpus);
	if (err == -EINVAL && n) {
		char present[256] = "unknown";

		pbench_cpus_present(present, sizeof(present));
		cli_error("a CPU given to --cpu is not present; present CPUs are %s", present);
		return EXIT_USAGE;
	}
	if (err && (getenv("PBENCH_SYSFS_ROOT") || getenv("PBENCH_PROCFS_ROOT"))) {
		cli_error("cannot check the recorded tree (PBENCH_SYSFS_ROOT '%s', "
			  "PBENCH_PROCFS_ROOT '%s'): %s", getenv("PBENCH_SYSFS_ROOT") ?
			  getenv("PBENCH_SYSFS_ROOT") : "", getenv("PBENCH_PROCFS_ROOT") ?
			  getenv("PBENCH_PROCFS_ROOT") : "", err == -EINVAL ?
			  "its CPU list or /proc/stat is malformed" : pbench_strerror(err));
		cli_hint("tests/fixtures/record.sh records a whole tree");
		return EXIT_RUNTIME;
	}
	if (err) {
		cli_error("cannot check this machine: %s", pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	err = json ? pbench_env_write_json(env, stdout)
		   : pbench_env_write_text(env, stdout, cli_color(stdout) ? PBENCH_ENV_WRITE_COLOR : 0);
	if (err) {
		cli_error("cannot write the findings: %s", pbench_strerror(err));
		rc = EXIT_RUNTIME;
	}
	if (strict && strcmp(pbench_env_verdict(env), "ready"))
		rc = EXIT_RUNTIME;
	pbench_env_free(env);
	return rc;
}
