/* SPDX-License-Identifier: MIT */
/* The subcommands, and the few helpers every one of them uses (defined in pbench.c). */
#ifndef PBENCH_CLI_CMDS_H
#define PBENCH_CLI_CMDS_H

#include <stdio.h>

#include "pbench.h"

int cmd_analyze(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_jitter(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);

/* Exit codes of pbench. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* The shared layer, cli/cli.c. */

/* "pbench: error: <msg>" on stderr, one line. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hint: <msg>" on stderr. */
void cli_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "pbench: warning: <msg>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 if color output to this stream is wanted (a TTY and NO_COLOR unset). */
int cli_color(FILE *f);

/* The one number grammar of every option: [+-]digits[.digits][e[+-]digits], nothing else. */
enum {
	CLI_NUM_INT = 1 << 0,		/* a whole number (1e6 is one, 1.5 is not) */
	CLI_NUM_PCT = 1 << 1,		/* a trailing '%' is allowed */
	CLI_NUM_POSITIVE = 1 << 2,	/* more than 0 (lo is then only a bound for messages) */
};
/* 0 and *out on success, -1 when s is not a number of that grammar. */
int cli_parse_number(const char *s, unsigned flags, double *out);
/* Parse the value s of option opt in [lo, hi]; on failure print "invalid <what> '<s>' for
 * <opt>: expected ..." and return -1. */
int cli_number(const char *opt, const char *what, const char *s, double lo, double hi,
	       unsigned flags, double *out);
int cli_long(const char *opt, const char *what, const char *s, long lo, long hi, long *out);

/* getopt_long returned c (':' or '?', with "+:" leading the short options): print "option
 * '-r' needs a value" or "unknown option ..." with a hint, and return -1. */
int cli_option_error(int c, char **argv, const char *cmd);

/* Install fn for sig unless sig was ignored when pbench started (nohup); old gets the
 * action to put back with cli_uncatch(). */
struct sigaction;
void cli_catch(int sig, void (*fn)(int), struct sigaction *old);
void cli_uncatch(int sig, const struct sigaction *old);

/* A measuring command run with PBENCH_SYSFS_ROOT or PBENCH_PROCFS_ROOT set says that it
 * ignores them (they are for the checks). */
void cli_note_live(const char *cmd);

/* An output a command was asked for: opened (checked) before anything is measured, written
 * whole. */
struct cli_output {
	const char *opt;		/* "--json", for messages */
	const char *what;		/* "the JSON", likewise */
	const char *path;		/* NULL: not asked for; "-": stdout */
	struct pbench_output *out;
	int written;			/* the report was written to it in full */
};
/* Refuse two outputs to the same file, then open each: EXIT_OK, or EXIT_USAGE after the
 * message (nothing is left open). */
int cli_outputs_open(struct cli_output *outs, int n);
/* The stream of an open output, or NULL. */
FILE *cli_output_file(const struct cli_output *o);
/* Close each: the written ones put in place when commit is 1, the others discarded (an old
 * file stays as it was). Returns rc, or EXIT_RUNTIME after a message when rc was EXIT_OK and a
 * write failed. */
int cli_outputs_close(struct cli_output *outs, int n, int commit, int rc);

#endif
