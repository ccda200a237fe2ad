/* SPDX-License-Identifier: MIT */
/* pbench: the command table and dispatch. Each command lives in cli/cmd_<name>.c. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

/* What the dispatcher does for a command before running it. */
enum {
	/* It measures the live machine: PBENCH_SYSFS_ROOT/PROCFS_ROOT, which only the checks
	 * read, are said to be ignored. */
	CMD_LIVE = 1 << 0,
	/* It measures until done or stopped by cli_stop: a signal that would end pbench sets
	 * the flag instead, for the whole command (cli_stop_catch()). */
	CMD_STOPS = 1 << 1,
};

/*
 * To add a command: write cli/cmd_<name>.c exporting only `int cmd_<name>(int argc, char
 * **argv)` (argv[0] is the command name; -h/--help must work with no PMU and no privileges),
 * declare it in cmds.h and add a row here with its flags. The Makefile picks the file up by
 * itself, and the help test (tests/cli) finds the command in `pbench -h`. HACKING.md has the
 * whole checklist.
 */
static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned flags;
	const char *summary;
} commands[] = {
	{ "analyze", cmd_analyze, 0, "summarize samples (numbers, or pbench/hyperfine/Google "
				     "Benchmark JSON) and compare them" },
	{ "check", cmd_check, 0, "is this machine fit to measure on, and how to fix what is not" },
	{ "compare", cmd_compare, CMD_LIVE | CMD_STOPS, "which command is faster, by how "
							"much, and how sure: runs them until it knows" },
	{ "history", cmd_history, 0, "the measurements kept over time, their change points, "
				     "and a CI gate on them" },
	{ "jitter", cmd_jitter, CMD_LIVE | CMD_STOPS, "how often each CPU is interrupted, "
						      "for how long, and by what" },
	{ "list", cmd_list, CMD_LIVE, "list the events and whether each can be counted here" },
	{ "stat", cmd_stat, CMD_LIVE | CMD_STOPS, "count and time a command or the built-in "
						  "workload, run by run" },
};

static void usage(FILE *f)
{
	fputs(PB_HELP_PBENCH, f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs(PB_HELP_PBENCH_2, f);
}

/* The command named name, or NULL after the message (for help: "no help on"), with the
 * nearest name when there is one. */
static const struct cmd *find(const char *name, int help)
{
	const int n = (int)(sizeof(commands) / sizeof(commands[0]));
	const char *names[sizeof(commands) / sizeof(commands[0])], *dym;

	for (int i = 0; i < n; i++) {
		if (!strcmp(commands[i].name, name))
			return &commands[i];
		names[i] = commands[i].name;
	}
	dym = cli_did_you_mean(name, names, n, "");
	if (help)
		cli_error("no help on '%s': there is no such command%s", name, dym);
	else
		cli_error("unknown command '%s'%s", name, dym);
	cli_hint("'pbench -h' lists the commands");
	return NULL;
}

/* PBENCH_SYSFS_ROOT or PBENCH_PROCFS_ROOT set for a command that measures: said ignored. */
static void note_live(const char *cmd)
{
	const char *s = getenv("PBENCH_SYSFS_ROOT"), *p = getenv("PBENCH_PROCFS_ROOT");

	if ((s && *s) || (p && *p))
		cli_warn("'pbench %s' measures the live machine: PBENCH_SYSFS_ROOT and "
			 "PBENCH_PROCFS_ROOT are read by 'pbench check' only", cmd);
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

/* A write to a closed pipe fails with EPIPE (finish() then exits quietly) instead of
 * killing pbench in the middle of a run with its command still going. A handler, not
 * SIG_IGN: the measured command gets SIGPIPE's default back at exec. */
static void on_sigpipe(int sig)
{
	(void)sig;
}

static const volatile int no_stop;
const volatile int *cli_stop = &no_stop;

/*
 * A command with CMD_STOPS runs whole (its runs, --memory's, --annotate's, the reports) under
 * the stop flag (cli_stop_catch(), given to the library's opts), so that what it started is
 * ended, its settings put back and the report written. After SIGINT and SIGTERM it returns
 * (exit 1, "interrupted"); after any other (SIGHUP of a closed terminal, SIGQUIT...) pbench
 * then dies of that signal, as its sender expects (a shell says "Hangup", a supervisor sees
 * the signal).
 */
static int run(const struct cmd *c, int argc, char **argv)
{
	int help = argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")), rc, sig;

	if ((c->flags & CMD_LIVE) && !help)
		note_live(c->name);
	if (!(c->flags & CMD_STOPS) || help)
		return finish(c->fn(argc, argv));
	cli_stop = cli_stop_catch();
	rc = finish(c->fn(argc, argv));
	sig = cli_stop_restore();
	if (sig && sig != SIGINT && sig != SIGTERM)
		cli_stop_die(sig);	/* returns only for a signal that does not end it */
	return rc;
}

int main(int argc, char **argv)
{
	struct sigaction on_pipe = { .sa_handler = on_sigpipe }, old_pipe;
	const struct cmd *c;
	const char *name, *debug = getenv("PBENCH_DEBUG");

	/* ignored when pbench started (nohup), it stays so */
	if (!sigaction(SIGPIPE, NULL, &old_pipe) && old_pipe.sa_handler != SIG_IGN)
		sigaction(SIGPIPE, &on_pipe, NULL);
	if (argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose"))) {
		argc--;
		argv++;
		debug = "1";
	}
	if (debug && *debug && strcmp(debug, "0"))	/* "pbench: debug: ..." on stderr */
		pbench_log_set(cli_log_stderr, "pbench");

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			char *hargv[] = { argv[2], "-h", NULL };
			const struct cmd *h = find(argv[2], 1);

			return h ? finish(h->fn(2, hargv)) : EXIT_USAGE;
		}
		usage(stdout);
		return finish(EXIT_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("pbench %s\n", pbench_version());
		return finish(EXIT_OK);
	}
	c = find(name, 0);
	return c ? run(c, argc - 1, argv + 1) : EXIT_USAGE;
}
