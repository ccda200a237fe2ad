/* SPDX-License-Identifier: MIT */
/* The subcommands, and the few helpers every one of them uses (defined in pbench.c). */
#ifndef PBENCH_CLI_CMDS_H
#define PBENCH_CLI_CMDS_H

#include <sched.h>
#include <stdio.h>

#include "pbench.h"
#include "support/support.h"

int cmd_analyze(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_jitter(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
/* cmd_stat_targets.c: perf stat's targets and formats (issue 39); 1 when argv asks for them. */
int stat_targets_wanted(int argc, char **argv);
int cmd_stat_targets(int argc, char **argv);
/* stat_irq.c: stat -a -A's (and -C LIST -A's) interrupt rows (issue 39), /proc/interrupts and
 * /proc/softirqs per CPU over each window, read by pbench_cpu_probe_* as pbench jitter reads
 * them. */
struct stat_irq;

/* A probe for each row's CPU of t (a CPU target's rows); NULL when t has no CPU row or on
 * ENOMEM (then there are no interrupt rows). */
struct stat_irq *stat_irq_new(const struct pbench_target *t);
void stat_irq_free(struct stat_irq *si);
/* Right after the counters are enabled, and right after they are disabled: one window (a
 * run); its deltas are added up, and the rows give the mean over the windows. NULL: nothing. */
void stat_irq_begin(struct stat_irq *si);
void stat_irq_end(struct stat_irq *si);

enum { STAT_IRQ_TEXT, STAT_IRQ_JSON, STAT_IRQ_CSV, STAT_IRQ_MD };

/* The rows after the counters' in perf's text (fmt STAT_IRQ_TEXT), after -x SEP's lines (sep
 * not NULL; sem: the counters' lines have -r's +- field), or as records
 * of the JSON's rows array (first: no record before), the CSV or the Markdown. */
void stat_irq_write(const struct stat_irq *si, int fmt, const char *sep, int sem, int first,
		    FILE *f);

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* The shared layer, cli/cli.c: its comments say what each does; HACKING.md how to use it. */

/* Messages on stderr: "pbench: error: ...", "hint: ..." and "pbench: warning: ..." (wrapped). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --memory's runs could not be made: said, with where the shim comes from when missing. */
void cli_mem_error(int err);
/* The hint for command cmd not found: a path that is no file, './name', or bare. */
void cli_command_hint(const char *cmd, const char *bare);
/* err is a bad -e (unknown, malformed or repeated events): said with its hint, 1; else 0. */
int cli_event_error(int err);
/* A finding of pbench_runs_outcome() or _contest_outcome() said as its kind asks (an error, a
 * warning, or a plain "pbench: " line): EXIT_RUNTIME for an error or a regression, else 0. */
int cli_outcome(int kind, const char *text);

/* Numbers, the one grammar of every option (pbench_format_parse()), and more than 0. */
enum { CLI_NUM_INT = PBENCH_FORMAT_PARSE_INT, CLI_NUM_PCT = PBENCH_FORMAT_PARSE_PCT,
       CLI_NUM_POSITIVE = CLI_PARSE_POSITIVE };
/* Option opt's value s in [lo, hi]: 0, or -1 after "invalid <what> '<s>' for <opt>: ...". */
int cli_number(const char *opt, const char *what, const char *s, double lo, double hi,
	       unsigned flags, double *out);
int cli_long(const char *opt, const char *what, const char *s, long lo, long hi, long *out);

/* The option loop of every command, its errors and "did you mean". */
struct option;
struct cli_out;
/* fn(c, optarg, ctx) for a command's own options: 0 taken, 1 not one, -1 said. */
typedef int (*cli_option_fn)(int c, const char *arg, void *ctx);
/* getopt_long over opts, -h and the outputs included: 0, 1 after -h, -1 after the message. */
int cli_options(int argc, char **argv, const char *shortopts, const struct option *opts,
		struct cli_out *out, void (*usage)(FILE *), cli_option_fn fn, void *ctx);
/* " (did you mean 'PREFIXname'?)" for the name nearest to word (pbench_suggest()), or "". */
const char *cli_did_you_mean(const char *word, const char *const *names, int n,
			     const char *prefix);
/* Option opt's value s, one of names: its index, or -1 after the message. */
int cli_choice(const char *opt, const char *s, const char *const *names, int n);
/* A command line as argv (its words, or /bin/sh -c LINE): 0 or the exit code after the message. */
int cli_command_argv(const char *line, int shell, const char *what, char ***out);

/* --cpu (and --duet-cpus), one grammar for every command: a CPU list such as 2 or 0-3,6. */
enum { CLI_CPU_ONE = 1 << 0, CLI_CPU_PRESENT = 1 << 1, CLI_CPU_TWO = 1 << 2 };
/* The CPUs of option opt into cpus[0..max-1]: their number, or -1 after the message. */
int cli_cpus(const char *cmd, const char *opt, const char *arg, unsigned flags, int *cpus,
	     int max);

/* The options of the commands that run something (stat, compare), parsed once: cli_run. */
enum { CLI_RUN_MODE = 0x4100, CLI_RUN_CPU, CLI_RUN_WARMUP_MS, CLI_RUN_TIMEOUT, CLI_RUN_MAX_TIME,
       CLI_RUN_REPROBE, CLI_RUN_WARMUP, CLI_RUN_SETUP, CLI_RUN_PREPARE, CLI_RUN_CLEANUP,
       CLI_RUN_WORKLOAD, CLI_RUN_ITERATIONS, CLI_RUN_MEMORY, CLI_RUN_STRICT, CLI_RUN_RECORD,
       CLI_RUN_HISTORY, CLI_RUN_COMMIT, CLI_RUN_METRIC };
#define CLI_RUN_OPTIONS \
	{ "events", required_argument, NULL, 'e' }, \
	{ "metrics", required_argument, NULL, 'M' }, \
	{ "metric", required_argument, NULL, CLI_RUN_METRIC }, \
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
	{ "memory", optional_argument, NULL, CLI_RUN_MEMORY }, \
	{ "strict", no_argument, NULL, CLI_RUN_STRICT }, \
	{ "record", required_argument, NULL, CLI_RUN_RECORD }, \
	{ "history", required_argument, NULL, CLI_RUN_HISTORY }, \
	{ "commit", required_argument, NULL, CLI_RUN_COMMIT }
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
	int mode, workload, reprobe, strict, ncpus, niters;
	int cpus[CPU_SETSIZE];
	double warmup_ms, timeout_s, max_time_s;
	long warmup_runs, memory_runs;
	uint64_t iters[CLI_RUN_MAX_SIDES];
	const char *helper[3];		/* --setup, --prepare, --cleanup lines */
	char **argv[3];			/* those as argv (cli_run_helpers()) */
	char *events;			/* every -e, joined; both freed by cli_run_release() */
	const char *metrics;		/* -M */
	const char *metric;		/* --metric: checked by the library */
	const char *record, *history, *commit;	/* --record NAME, --history PATH, --commit */
};
void cli_run_init(struct cli_run *r);
/* 1 when c is one of CLI_RUN_OPTIONS and taken, 0 when not one, -1 after the message. */
int cli_run_option(struct cli_run *r, int c, const char *arg);
/* --memory with a CSV asked for (the CSV has no place for it): said, 1; else 0. */
int cli_run_memory_csv(const struct cli_run *r, const struct cli_out *out);
/* --setup/--prepare/--cleanup as argv (with resolve, found now): 0 or the exit code. */
int cli_run_helpers(struct cli_run *r, int shell, int resolve);
void cli_run_release(struct cli_run *r);

/* The progress line on stderr (a terminal; NULL line: done, cleared): rewritten in place, or
 * with lines set (the command writes there too) one line each, at most one a second unless
 * now is set, so that the two never share a line. */
struct cli_progress {
	const char *cmd;
	int color, lines;
	double last_s;		/* when the last line was printed */
};
void cli_progress(struct cli_progress *p, const char *line, int now);
/* cmd_history.c: --record NAME and --history PATH checked before anything runs (an empty
 * NAME, a store that is a directory, no directory to make it in): 0 or EXIT_USAGE, said. */
int cli_record_check(const struct cli_run *r);
/* cmd_history.c: --record: the JSON of write(arg) stored in the history: 0 or EXIT_RUNTIME. */
int cli_record(const struct cli_run *r, int (*write)(void *arg, int fmt, FILE *f), void *arg);
/* cmd_history.c: the drift between occasions of series name on this machine, from the history
 * (--history, as --record finds it; pbench_history_drift()): 0 with sd, occasions and
 * commits set, or left 0 with a warning saying why the fixed allowance stands (no store, no
 * such series here, no commit measured twice); EXIT_RUNTIME for another error, said. */
int cli_history_drift(const struct cli_run *r, const char *name, double *sd, int *occasions,
		      int *commits);

/* The stop flag of the measuring commands (cli_stop_catch(), CMD_STOPS in pbench.c). */
extern const volatile int *cli_stop;

/* scan.c: parameter scans of pbench stat (issue 38): -P, -L, -D, --log2, --geom. */
#define CLI_SCAN_MAX_PARAMS 4
#define CLI_SCAN_MAX_POINTS 256		/* points of one scan, the product of its values */
enum { CLI_SCAN_LOG2 = 0x4300, CLI_SCAN_GEOM, CLI_SCAN_BYTES };
#define CLI_SCAN_OPTIONS \
	{ "parameter-scan", required_argument, NULL, 'P' }, \
	{ "parameter-list", required_argument, NULL, 'L' }, \
	{ "parameter-step-size", required_argument, NULL, 'D' }, \
	{ "log2", no_argument, NULL, CLI_SCAN_LOG2 }, \
	{ "geom", required_argument, NULL, CLI_SCAN_GEOM }, \
	{ "scan-bytes", required_argument, NULL, CLI_SCAN_BYTES }
struct cli_scan_param {
	const char *name, *list;	/* -P's or -L's NAME; -L's values as given */
	int range, nv;			/* 1: -P MIN MAX; nv values in v */
	double lo, hi, step, factor;	/* -P's, -D's, --log2's (2) or --geom's */
	double v[CLI_SCAN_MAX_POINTS];
};
struct cli_scan {
	int argc;			/* the command's words, for -P's MIN and MAX */
	char **argv;
	int np, npoints;
	struct cli_scan_param p[CLI_SCAN_MAX_PARAMS];
	const char *bytes;		/* --scan-bytes NAME: its values are sizes in bytes */
};
/* 1 when c is a scan option and taken, 0 when not one, -1 after the message. */
int cli_scan_option(struct cli_scan *s, int c, const char *arg);
/* Lay the points out, run them interleaved, report: the exit code (EXIT_USAGE said). */
int cli_scan_stat(struct cli_scan *s, const struct pbench_runs_opts *ro, struct cli_run *run,
		  struct cli_out *out);
/* compare's: its contest options (co, made by its options), the sides' argv and names (NULL:
 * the command's line), each side at every point: the exit code. */
int cli_scan_compare(struct cli_scan *s, const struct pbench_contest_opts *co, char **argv[],
		     int nsides, const char *const *names, const char *const *lines,
		     struct cli_run *run, struct cli_out *out);

/* The outputs of every command, one convention (hyperfine's): cli_out, in HACKING.md. */
enum cli_format { CLI_FMT_JSON = PBENCH_REPORT_FORMAT_JSON, CLI_FMT_CSV = PBENCH_REPORT_FORMAT_CSV,
		  CLI_FMT_MARKDOWN = PBENCH_REPORT_FORMAT_MARKDOWN, CLI_FMT_PLOT = PBENCH_REPORT_FORMAT_SVG,
		  CLI_FMT_TEXT = PBENCH_REPORT_FORMAT_TEXT, CLI_NFMT = CLI_FMT_TEXT };
enum {
	CLI_OUT_JSON = 1 << CLI_FMT_JSON,
	CLI_OUT_CSV = 1 << CLI_FMT_CSV,
	CLI_OUT_MARKDOWN = 1 << CLI_FMT_MARKDOWN,
	CLI_OUT_PLOT = 1 << CLI_FMT_PLOT,
};
/* cli_out_init() flags: no positional argument ('--json FILE'); '-' is never an argument. */
enum { CLI_OUT_NO_ARGS = 1 << 0, CLI_OUT_DASH = 1 << 1 };
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
/* The output options of one command (the set itself, cli_outputs, is cli.c's). */
struct cli_out {
	const char *cmd;		/* "stat", for messages */
	unsigned offered, flags;	/* CLI_OUT_* */
	const char *bare_next;		/* the argument after a bare --json/--csv/--markdown */
	int bare_fmt;			/* that option's format + 1, for cli_out_hint() */
};
typedef int (*cli_out_writer)(void *arg, int fmt, FILE *f);
void cli_out_init(struct cli_out *o, const char *cmd, unsigned offered, unsigned flags);
/* 1 when c is an output option and taken, 0 when not one, -1 after the message. */
int cli_out_option(struct cli_out *o, int c, const char *arg, int argc, char **argv);
/* Open the outputs before anything runs: EXIT_OK, or EXIT_USAGE after the message. */
int cli_out_open(struct cli_out *o);
/* 1 when the text goes to stdout; 1 when format fmt (-1: any) was asked for. */
int cli_out_text(const struct cli_out *o);
int cli_out_wants(const struct cli_out *o, int fmt);
/* The text (unless replaced) and each format asked for: EXIT_OK or EXIT_RUNTIME. */
int cli_out_write(struct cli_out *o, cli_out_writer write, void *arg);
/* Those written whole put in place when commit is 1: rc, or EXIT_RUNTIME for a failure. */
int cli_out_close(struct cli_out *o, int commit, int rc);
/* arg came right after a bare --json: say how to write a file; 1 when said. */
int cli_out_hint(const struct cli_out *o, const char *arg);

/* pbench stat's profile options (issue 36: --profile and its company): cli/profile.c. */

enum { CLI_PROF_ON = 0x4400, CLI_PROF_FREQ, CLI_PROF_EVENT, CLI_PROF_CALL_GRAPH, CLI_PROF_TOP,
       CLI_PROF_DEBUG_DIR, CLI_PROF_FOLDED, CLI_PROF_FLAME, CLI_PROF_PPROF };

#define CLI_PROFILE_OPTIONS \
	{ "profile", no_argument, NULL, CLI_PROF_ON }, \
	{ "profile-freq", required_argument, NULL, CLI_PROF_FREQ }, \
	{ "profile-event", required_argument, NULL, CLI_PROF_EVENT }, \
	{ "call-graph", required_argument, NULL, CLI_PROF_CALL_GRAPH }, \
	{ "profile-top", required_argument, NULL, CLI_PROF_TOP }, \
	{ "debug-dir", required_argument, NULL, CLI_PROF_DEBUG_DIR }, \
	{ "export-folded", required_argument, NULL, CLI_PROF_FOLDED }, \
	{ "flamegraph", required_argument, NULL, CLI_PROF_FLAME }, \
	{ "export-pprof", required_argument, NULL, CLI_PROF_PPROF }

struct cli_profile {
	int on, given;			/* --profile; another profile option given */
	int mode;			/* enum pbench_profile_mode of --call-graph (0: fp) */
	double freq;
	const char *event;
	long top;
	char *dirs;			/* --debug-dir's, joined by ':' */
	/* --export-folded, --flamegraph, --export-pprof: their paths and files, opened before
	 * the runs */
	const char *export[3];
	struct pbench_output *out[3];
};

/* c one of CLI_PROFILE_OPTIONS: 0 taken, -1 said, 1 not one. */
int cli_profile_option(struct cli_profile *p, int c, const char *arg);
/* Into the runs' options, and the checks: 0, or EXIT_USAGE after the message (a profile
 * option without --profile, --profile without a command, an export's path). */
int cli_profile_apply(struct cli_profile *p, struct pbench_runs_opts *ro);
/* --export-folded, --flamegraph, --export-pprof written whole after the runs: 0, or
 * EXIT_RUNTIME after the message. */
int cli_profile_write(struct cli_profile *p, const struct pbench_runs *r);
void cli_profile_release(struct cli_profile *p);

/* pbench stat --annotate, for several functions (issue 36): cli/annotate.c. */
struct cli_annotate {
	char **names;			/* as given, n of them */
	int n;
	struct pbench_listing **l;	/* one a name (NULL: not made) */
};
/* --annotate's arg (names joined by commas) added: 0, or -1 said. */
int cli_annotate_option(struct cli_annotate *a, const char *arg);
/* Without --profile (profile 0): each function's listing and its sampled run, before the
 * runs. 0, or EXIT_RUNTIME said. */
int cli_annotate_before(struct cli_annotate *a, char *const argv[], double timeout_s,
			int profile, const volatile int *stop);
/* With --profile: each function's listing, in the file the profile saw it in, marked with the
 * profile's samples, after the runs. 0, or EXIT_RUNTIME said. */
int cli_annotate_after(struct cli_annotate *a, const struct pbench_runs *r, char *const argv[],
		       int profile);
/* The report in format fmt with the listings: the JSON with all of them
 * (pbench_runs_write_json_listings(): "annotations", the first also "annotate"); the text and
 * the Markdown with the first through pbench_runs_write_annotated(), the others after it. */
int cli_annotate_write(const struct cli_annotate *a, const struct pbench_runs *r, int fmt,
		       unsigned flags, FILE *f);
void cli_annotate_release(struct cli_annotate *a);

/* pbench compare's profile options (issue 36): stat's but --profile-top and --export-folded,
 * and --profile-fdr PCT (cli/compare_profile.c). */
enum { CLI_CPROF_FDR = 0x4480 };
#define CLI_COMPARE_PROFILE_OPTIONS \
	{ "profile", no_argument, NULL, CLI_PROF_ON }, \
	{ "profile-freq", required_argument, NULL, CLI_PROF_FREQ }, \
	{ "profile-event", required_argument, NULL, CLI_PROF_EVENT }, \
	{ "call-graph", required_argument, NULL, CLI_PROF_CALL_GRAPH }, \
	{ "debug-dir", required_argument, NULL, CLI_PROF_DEBUG_DIR }, \
	{ "profile-fdr", required_argument, NULL, CLI_CPROF_FDR }, \
	{ "flamegraph", required_argument, NULL, CLI_PROF_FLAME }
struct cli_compare_profile {
	struct cli_profile p;
	double fdr_pct;			/* --profile-fdr (0: the library's) */
	const char *flame;		/* --flamegraph FILE.svg, opened before the rounds */
	struct pbench_output *flame_out;
};
/* c one of CLI_COMPARE_PROFILE_OPTIONS: 0 taken, -1 said, 1 not one. */
int cli_compare_profile_option(struct cli_compare_profile *p, int c, const char *arg);
/* Into the contest's options, and the checks: 0, or EXIT_USAGE after the message. */
int cli_compare_profile_apply(struct cli_compare_profile *p, struct pbench_contest_opts *co);
/* --flamegraph written whole after the rounds (the first challenger against the reference):
 * 0, or EXIT_RUNTIME after the message. */
int cli_compare_profile_write(struct cli_compare_profile *p, const struct pbench_contest *c,
			      int reference);
void cli_compare_profile_release(struct cli_compare_profile *p);

#endif
