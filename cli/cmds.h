/* SPDX-License-Identifier: MIT */
/* The subcommands, and the few helpers every one of them uses (defined in pbench.c). */
#ifndef PBENCH_CLI_CMDS_H
#define PBENCH_CLI_CMDS_H

#include <sched.h>
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
/* "hint: <msg>" on stderr, wrapped at cli_width(stderr) under the message. */
void cli_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --memory's runs could not be made: said, with where the shim comes from when missing. */
void cli_mem_error(int err);
/* "pbench: warning: <msg>" on stderr, wrapped as a hint is. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 if color output to this stream is wanted (a TTY and NO_COLOR unset). */
int cli_color(FILE *f);
/* The width the text's prose wraps at on f (0: none): COLUMNS when set to a number (also for
 * a pipe or a file; COLUMNS=0 turns wrapping off), else a terminal's width, else 0. */
int cli_width(FILE *f);

/* The one number grammar of every option: [+-]digits[.digits][e[+-]digits], nothing else. */
enum {
	CLI_NUM_INT = 1 << 0,		/* a whole number (1e6 is one, 1.5 is not) */
	CLI_NUM_PCT = 1 << 1,		/* a trailing '%' is allowed */
	CLI_NUM_POSITIVE = 1 << 2,	/* more than 0 (lo is then only a bound for messages) */
};
/* 0 and *out on success, -1 when s is not a number of that grammar. */
int cli_parse_number(const char *s, unsigned flags, double *out);
/* A command line as argv (pbench_command_free()): its words (pbench_command_split()), or
 * /bin/sh -c LINE with shell. what names it in the messages ("the --setup command"). 0, or
 * the exit code after the message. */
int cli_command_argv(const char *line, int shell, const char *what, char ***out);
/* Parse the value s of option opt in [lo, hi]; on failure print "invalid <what> '<s>' for
 * <opt>: expected ..." and return -1. */
int cli_number(const char *opt, const char *what, const char *s, double lo, double hi,
	       unsigned flags, double *out);
int cli_long(const char *opt, const char *what, const char *s, long lo, long hi, long *out);

/* getopt_long returned c (':' or '?', with "+:" leading the short options): print "option
 * '-r' needs a value" or "unknown option ..." with a hint, and return -1. An unknown long
 * option gets the nearest of opts' names (those of the CLI_OUT_* formats the command offers),
 * as "(did you mean '--runs'?)". */
struct option;
int cli_option_error(int c, char **argv, const char *cmd, const struct option *opts,
		     unsigned offered);
/*
 * The option loop of every command: getopt_long over opts (shortopts led by "+:", "-:" or
 * ":"), out initialized (cli_out_init()) for the outputs. -h prints usage on stdout; an output
 * option goes to out; any other to fn(c, optarg, ctx): 0 taken, 1 not one (an unknown option,
 * said with the command's table), -1 said. With CLI_OUT_NO_ARGS an argument after the options
 * is refused. 0, 1 after -h, or -1 after the message.
 */
typedef int (*cli_option_fn)(int c, const char *arg, void *ctx);
struct cli_out;
int cli_options(int argc, char **argv, const char *shortopts, const struct option *opts,
		struct cli_out *out, void (*usage)(FILE *), cli_option_fn fn, void *ctx);
/* " (did you mean 'PREFIXname'?)" with the name of names[0..n-1] nearest to word
 * (pbench_suggest()), or "" when none is near; for the end of an error message. */
const char *cli_did_you_mean(const char *word, const char *const *names, int n,
			     const char *prefix);
/* The value s of option opt, one of names[0..n-1]: its index, or -1 after "unknown value
 * 's' for opt: it is one of a, b or c (did you mean 'b'?)". */
int cli_choice(const char *opt, const char *s, const char *const *names, int n);
/* The hint for a command that was not found: a path (with a '/') is no file, said with the
 * current directory for a relative one; a bare name that is a file here is './name'; else
 * bare, the hint for a name not in PATH. */
void cli_command_hint(const char *cmd, const char *bare);

/*
 * --cpu (and --duet-cpus), one grammar for every command: a CPU list (2, 0-3,6), each CPU one
 * pbench may run on (or, CLI_CPU_PRESENT, one present: check reads recorded trees);
 * CLI_CPU_ONE where only one makes sense, CLI_CPU_TWO for a duet's two. The CPUs of option
 * opt into cpus[0..max-1]: their number, or -1 after the message.
 */
enum { CLI_CPU_ONE = 1 << 0, CLI_CPU_PRESENT = 1 << 1, CLI_CPU_TWO = 1 << 2 };
int cli_cpus(const char *cmd, const char *opt, const char *arg, unsigned flags, int *cpus,
	     int max);

/*
 * The options of the commands that run something (stat, compare), one parser each: -e, --mode,
 * --cpu, --warmup-ms, --timeout, --max-time, --reprobe, --warmup, --setup/--prepare/--cleanup,
 * --workload/--iterations, --memory[=N]. A command puts CLI_RUN_OPTIONS in its table, sets
 * what differs (cmd, modes, cpu_flags, max_warmup, max_time, sides) and calls
 * cli_run_option() for each option; what was not given keeps its "not given" value.
 */
enum { CLI_RUN_MODE = 0x4100, CLI_RUN_CPU, CLI_RUN_WARMUP_MS, CLI_RUN_TIMEOUT, CLI_RUN_MAX_TIME,
       CLI_RUN_REPROBE, CLI_RUN_WARMUP, CLI_RUN_SETUP, CLI_RUN_PREPARE, CLI_RUN_CLEANUP,
       CLI_RUN_WORKLOAD, CLI_RUN_ITERATIONS, CLI_RUN_MEMORY };
#define CLI_RUN_OPTIONS \
	{ "events", required_argument, NULL, 'e' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "mode", required_argument, NULL, CLI_RUN_MODE }, \
	{ "cpu", required_argument, NULL, CLI_RUN_CPU }, \
	{ "warmup-ms", required_argument, NULL, CLI_RUN_WARMUP_MS }, \
	{ "timeout", required_argument, NULL, CLI_RUN_TIMEOUT }, \
	{ "max-time", required_argument, NULL, CLI_RUN_MAX_TIME }, \
	{ "reprobe", no_argument, NULL, CLI_RUN_REPROBE }, \
	{ "warmup", required_argument, NULL, CLI_RUN_WARMUP }, \
	{ "setup", required_argument, NULL, CLI_RUN_SETUP }, \
	{ "prepare", required_argument, NULL, CLI_RUN_PREPARE }, \
	{ "cleanup", required_argument, NULL, CLI_RUN_CLEANUP }, \
	{ "workload", required_argument, NULL, CLI_RUN_WORKLOAD }, \
	{ "iterations", required_argument, NULL, CLI_RUN_ITERATIONS }, \
	{ "memory", optional_argument, NULL, CLI_RUN_MEMORY }
#define CLI_RUN_MAX_SIDES 8
#define CLI_RUN_MEMORY_RUNS 3		/* --memory without N */
struct cli_run {
	/* set by the command */
	const char *cmd;
	int modes;			/* --mode takes the first modes of enum pbench_runs_mode */
	unsigned cpu_flags;		/* CLI_CPU_* */
	long max_warmup;		/* --warmup's most */
	double max_time;		/* --max-time's most */
	int sides;			/* each --iterations one more side (compare), else the last */
	/* given (-1, 0 or NULL: not given) */
	int mode, workload, reprobe, ncpus, niters;
	int cpus[CPU_SETSIZE];
	double warmup_ms, timeout_s, max_time_s;
	long warmup_runs, memory_runs;
	uint64_t iters[CLI_RUN_MAX_SIDES];
	const char *helper[3];		/* --setup, --prepare, --cleanup lines */
	char *events;			/* every -e, joined; freed by cli_run_release() */
};
void cli_run_init(struct cli_run *r);
/* 1 when c was one of CLI_RUN_OPTIONS and is taken, 0 when not one ('h' neither), -1 after
 * the message. */
int cli_run_option(struct cli_run *r, int c, const char *arg);
/* The helper lines as argv (out[0..2], pbench_command_free()), run by /bin/sh -c with shell;
 * with resolve, each must be a command found now (said with its option). 0 or the exit code. */
int cli_run_helpers(const struct cli_run *r, int shell, int resolve, char **out[3]);
void cli_run_release(struct cli_run *r);

/* Install fn for sig unless sig was ignored when pbench started (nohup); old gets the
 * action it had. */
struct sigaction;
void cli_catch(int sig, void (*fn)(int), struct sigaction *old);
/*
 * The stop flag of every measuring command (stat, compare, jitter), given to the library as
 * its opts' stop: the signal that asked to stop, 0 while none came. cli_stop_catch() (main(),
 * for a command with CMD_STOPS) catches every signal whose default ends the process, for the
 * whole command (its runs, --memory's, --annotate's, the reports), so that what pbench
 * started is ended, its settings put back and the report written. Signals ignored at start
 * stay ignored (nohup). cli_stop_end(rc) returns rc, after SIGINT and SIGTERM too (exit 1,
 * "interrupted"); after any other (SIGHUP of a closed terminal, SIGQUIT...) pbench dies of
 * that signal once everything is done.
 */
extern volatile int cli_stop;
void cli_stop_catch(void);
int cli_stop_end(int rc);

/* "'cmd' left N processes running after M runs": what r's runs left behind, ended by pbench
 * (stat, and each command of compare); nothing when none was. */
void cli_warn_left_behind(const struct pbench_runs *r, const char *cmd);

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

/*
 * The outputs of every command, one convention (hyperfine's), in one piece: cli_out.
 *
 *   --json, --csv, --markdown        that format on stdout instead of the text
 *   --export-json FILE, --export-csv FILE, --export-markdown FILE, --plot FILE
 *                                    a file (written whole), the text still on stdout
 *   --json=FILE (--csv=, --markdown=) the same as --export-json FILE
 *   --export-json - (and the others)  the same as --json
 *
 * A command lists the formats it writes; the others are unknown options for it. Use:
 *
 *	static const struct option opts[] = { ...its own..., CLI_OUT_OPTIONS, { 0 } };
 *	struct cli_out out;
 *
 *	cli_out_init(&out, "stat", CLI_OUT_JSON | CLI_OUT_CSV, 0);
 *	while ((c = getopt_long(argc, argv, "+:e:h", opts, NULL)) != -1) {
 *		int taken = cli_out_option(&out, c, optarg, argc, argv);
 *
 *		if (taken < 0)
 *			return EXIT_USAGE;		(the message is said)
 *		if (taken)
 *			continue;
 *		...the command's own options...
 *	}
 *	rc = cli_out_open(&out);		(before anything is measured: EXIT_USAGE for a
 *						 path that cannot be written)
 *	...measure...
 *	rc = cli_out_write(&out, write, obj);	(write(obj, CLI_FMT_TEXT, stdout) unless a format
 *						 took stdout, then write(obj, fmt, file) for each)
 *	return cli_out_close(&out, 1, rc);	(files put in place when written whole)
 */
enum cli_format { CLI_FMT_JSON, CLI_FMT_CSV, CLI_FMT_MARKDOWN, CLI_FMT_PLOT, CLI_NFMT };
#define CLI_FMT_TEXT (-1)
enum {
	CLI_OUT_JSON = 1 << CLI_FMT_JSON,
	CLI_OUT_CSV = 1 << CLI_FMT_CSV,
	CLI_OUT_MARKDOWN = 1 << CLI_FMT_MARKDOWN,
	CLI_OUT_PLOT = 1 << CLI_FMT_PLOT,
};
/* cli_out_init() flags: what the command's arguments allow. */
enum {
	/* The command takes no positional argument: '--json FILE' (a space, a FILE not starting
	 * with '-') is read as --export-json FILE, and '--json -' as --json. */
	CLI_OUT_NO_ARGS = 1 << 0,
	/* '-' after '--json' is the format on stdout (the command's own arguments never are '-'). */
	CLI_OUT_DASH = 1 << 1,
};
/* getopt_long codes of the options (CLI_OUT_OPT + format, + 4 for the --export- forms). */
#define CLI_OUT_OPT 0x4000
#define CLI_OUT_OPTIONS \
	{ "json", optional_argument, NULL, CLI_OUT_OPT + CLI_FMT_JSON }, \
	{ "csv", optional_argument, NULL, CLI_OUT_OPT + CLI_FMT_CSV }, \
	{ "markdown", optional_argument, NULL, CLI_OUT_OPT + CLI_FMT_MARKDOWN }, \
	{ "export-json", required_argument, NULL, CLI_OUT_OPT + 4 + CLI_FMT_JSON }, \
	{ "export-csv", required_argument, NULL, CLI_OUT_OPT + 4 + CLI_FMT_CSV }, \
	{ "export-markdown", required_argument, NULL, CLI_OUT_OPT + 4 + CLI_FMT_MARKDOWN }, \
	{ "plot", required_argument, NULL, CLI_OUT_OPT + 4 + CLI_FMT_PLOT }

struct cli_out {
	const char *cmd;		/* "stat", for messages */
	unsigned offered, flags;	/* CLI_OUT_* */
	int on_stdout;			/* the format printed instead of the text, or CLI_FMT_TEXT */
	const char *path[CLI_NFMT];	/* the files asked for (NULL: none) */
	const char *bare_next;		/* the argument after a bare --json/--csv/--markdown */
	const char *bare_opt;		/* that option, for cli_out_hint() */
	struct cli_output outs[CLI_NFMT + 1];
	int nouts;
	int stdout_errno;		/* why a format on stdout could not be written */
};
void cli_out_init(struct cli_out *o, const char *cmd, unsigned offered, unsigned flags);
/* getopt_long returned c (optarg arg): 1 when it was an output option and is taken, 0 when it
 * is not one, -1 after the message when it is wrong (a format the command lacks, two formats
 * on stdout). */
int cli_out_option(struct cli_out *o, int c, const char *arg, int argc, char **argv);
/* After the options: open the outputs asked for. EXIT_OK, or EXIT_USAGE after the message. */
int cli_out_open(struct cli_out *o);
/* 1 when the text goes to stdout (no format took its place). */
int cli_out_text(const struct cli_out *o);
/* 1 when format fmt was asked for (on stdout or to a file). */
int cli_out_wants(const struct cli_out *o, int fmt);
/* Write the text (unless replaced) and each format asked for: write(arg, CLI_FMT_TEXT or a
 * format, stream) returns 0 or a negative error. A report that cannot be written is said and
 * does not keep the others from being written. EXIT_OK or EXIT_RUNTIME. */
typedef int (*cli_out_writer)(void *arg, int fmt, FILE *f);
int cli_out_write(struct cli_out *o, cli_out_writer write, void *arg);
/* Close the outputs: those written whole put in place when commit is 1. Returns rc, or
 * EXIT_RUNTIME when rc was EXIT_OK and a file could not be put in place. */
int cli_out_close(struct cli_out *o, int commit, int rc);
/* Argument arg (a pointer into argv) could not be used as a command or a file: when it came
 * right after a bare --json (the old '--json FILE', '--csv FILE'), say how to write a file.
 * Returns 1 when it said so. */
int cli_out_hint(const struct cli_out *o, const char *arg);


#endif
