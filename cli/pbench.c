/* SPDX-License-Identifier: MIT */
/* pbench: the command table and dispatch. Each command lives in cli/cmd_<name>.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

/*
 * To add a command: write cli/cmd_<name>.c exporting only `int cmd_<name>(int argc, char
 * **argv)` (argv[0] is the command name; -h/--help must work with no PMU and no privileges),
 * declare it in cmds.h and add a row here. The Makefile picks the file up by itself.
 */
static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "analyze", cmd_analyze, "summarize samples (numbers, or pbench/hyperfine/Google Benchmark "
				  "JSON) and compare two" },
	{ "check", cmd_check, "is this machine fit to measure on, and how to fix what is not" },
	{ "jitter", cmd_jitter, "how often each CPU is interrupted, for how long, and by what" },
	{ "list", cmd_list, "list the events and whether each can be counted here" },
	{ "stat", cmd_stat, "count and time a command or the built-in workload, run by run" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pbench [--version] [-h] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'pbench <command> -h' describes a command.\n");
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("pbench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_hint(const char *fmt, ...)
{
	va_list ap;

	fputs("hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cli_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

/* Like git's run_builtin: output that could not be written is a failure, not a success. */
static int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "pbench: error: cannot write to standard output: %s\n",
				strerror(errno));
		return rc ? rc : EXIT_RUNTIME;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *name;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			char *hargv[] = { argv[2], "-h", NULL };

			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(commands[i].name, argv[2]))
					return finish(commands[i].fn(2, hargv));
		}
		usage(stdout);
		return finish(EXIT_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("pbench %s\n", pbench_version());
		return finish(EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return finish(commands[i].fn(argc - 1, argv + 1));
	cli_error("unknown command '%s'", name);
	cli_hint("'pbench -h' lists the commands");
	return EXIT_USAGE;
}
