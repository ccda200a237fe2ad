/* SPDX-License-Identifier: MIT */
/*
 * The small layer every command shares (like curl's tool helpers): messages, numbers said
 * wrong (the grammar is pbench_format_parse()), option errors, and output files opened before anything
 * is measured and put in place only when complete.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

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

/* A warning or a hint, wrapped at stderr's width (cli_term_width()) under its text; an error
 * stays one line. However long, it is said whole, never cut. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	char *msg, *line;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	if (asprintf(&line, "%s%s", prefix, msg) >= 0) {
		cli_wrap(stderr, line, cli_term_width(stderr), (int)strlen(prefix));
		free(line);
	}
	free(msg);
}

void cli_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("hint: ", fmt, ap);
	va_end(ap);
}

void cli_mem_error(int err)
{
	cli_error("memory: %s", pbench_strerror(err));
	if (err == -ENOENT)
		cli_hint("libpbench-mem.so is installed beside libpbench; set PBENCH_MEM_SHIM=PATH "
			 "to use another");
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	say("pbench: warning: ", fmt, ap);
	va_end(ap);
}

void cli_progress(struct cli_progress *p, const char *line, int now)
{
	const char *dim = p->color ? "\033[2m" : "", *end = p->color ? "\033[0m" : "";
	struct timespec ts;
	double t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (p->lines && line && (now || t - p->last_s >= 1)) {
		fprintf(stderr, "%spbench %s: %s%s\n", dim, p->cmd, line, end);
		p->last_s = t;
	} else if (!p->lines) {
		fprintf(stderr, "\r\033[K%s%s%s", line ? dim : "", line ? line : "", line ? end : "");
	}
	fflush(stderr);
}

/* ---- numbers -------------------------------------------------------------------------------- */

int cli_number(const char *opt, const char *what, const char *s, double lo, double hi,
	       unsigned flags, double *out)
{
	char expected[128];

	if (!cli_parse_in(s, flags, lo, hi, out, expected, sizeof(expected)))
		return 0;
	cli_error("invalid %s '%s' for %s: expected %s", what, s, opt, expected);
	return -1;
}

int cli_long(const char *opt, const char *what, const char *s, long lo, long hi, long *out)
{
	double v;

	if (cli_number(opt, what, s, (double)lo, (double)hi, CLI_NUM_INT, &v))
		return -1;
	*out = (long)v;
	return 0;
}

/* ---- options -------------------------------------------------------------------------------- */

const char *cli_did_you_mean(const char *word, const char *const *names, int n,
			     const char *prefix)
{
	static char buf[160];

	cli_suggest_text(word, names, n, prefix, buf, sizeof(buf));
	return buf;
}

/* The long options of a command's table, those of the outputs it lacks left out. */
static int long_names(const struct option *opts, unsigned offered, const char **names, int max)
{
	int n = 0;

	for (; opts->name && n < max; opts++) {
		int v = opts->val - CLI_OUT_OPT;

		if (v < 0 || v >= 8 || (offered & (1u << (v & 3))))
			names[n++] = opts->name;
	}
	return n;
}

/* getopt's ':' or '?': "needs a value" or "unknown option" with "did you mean"; -1. */
static int option_error(int c, char **argv, const char *cmd, const struct option *opts,
			unsigned offered)
{
	const char *opt = argv[optind - 1], *names[64];
	char word[64];
	int len = opt ? (int)strcspn(opt, "=") : 0;

	if (c == ':') {
		if (optopt && (!opt || strncmp(opt, "--", 2)))
			cli_error("option '-%c' needs a value", optopt);
		else
			cli_error("option '%.*s' needs a value", len, opt);
	} else if (optopt && (!opt || strncmp(opt, "--", 2))) {
		cli_error("unknown option '-%c' for 'pbench %s'", optopt, cmd);
	} else {
		snprintf(word, sizeof(word), "%.*s", len > 2 ? len - 2 : 0, len > 2 ? opt + 2 : "");
		cli_error("unknown option '%.*s' for 'pbench %s'%s", len, opt, cmd,
			  cli_did_you_mean(word, names, long_names(opts, offered, names, 64), "--"));
	}
	cli_hint("'pbench %s -h' shows the options", cmd);
	return -1;
}

int cli_options(int argc, char **argv, const char *shortopts, const struct option *opts,
		struct cli_out *out, void (*usage)(FILE *), cli_option_fn fn, void *ctx)
{
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		err = cli_out_option(out, c, optarg, argc, argv);
		if (!err)
			err = fn(c, optarg, ctx);
		else
			err = err < 0 ? -1 : 0;
		if (err > 0)
			return option_error(c, argv, out->cmd, opts, out->offered);
		if (err)
			return -1;
	}
	if ((out->flags & CLI_OUT_NO_ARGS) && optind < argc) {
		cli_error("unexpected argument '%s' for 'pbench %s'", argv[optind], out->cmd);
		return -1;
	}
	return 0;
}

int cli_choice(const char *opt, const char *s, const char *const *names, int n)
{
	char why[512];
	int k = cli_suggest_choice(s, names, n, why, sizeof(why));

	if (k < 0)
		cli_error("unknown value '%s' for %s: %s", s, opt, why);
	return k;
}

/* -e given again adds its events to *list (malloc'd, joined by commas) as perf stat does; a
 * name given twice is the library's error. 0, or -1 after the message. */
static int cli_events_add(char **list, const char *arg)
{
	size_t n = *list ? strlen(*list) + 1 : 0;
	char *p = realloc(*list, n + strlen(arg) + 1);

	if (!p) {
		cli_error("out of memory");
		return -1;
	}
	if (n)
		p[n - 1] = ',';
	strcpy(p + n, arg);
	*list = p;
	return 0;
}

/* ---- commands ------------------------------------------------------------------------------- */

void cli_command_hint(const char *cmd, const char *bare)
{
	char where[4500];

	cli_hint("%s", cli_command_where(cmd, where, sizeof(where)) == 1 ? where : bare);
}

int cli_command_argv(const char *line, int shell, const char *what, char ***out)
{
	size_t len = strlen(line) + strlen(what) + 64;	/* the sentence whole, never cut */
	char *why = malloc(len), syntax[512];
	int err = why ? cli_command_words(out, line, shell, what, why, len) : -ENOMEM;

	if (err)
		cli_error("%s", why ? why : "out of memory");
	if (err == -EINVAL)
		cli_hint("each command is one argument: quote it whole for your shell, and use "
			 "\\' or \" inside");
	if (!err && !shell && cli_command_syntax(*out, syntax, sizeof(syntax)) == 1)
		cli_hint("%s '%s': %s; --shell runs it with sh -c", what, line, syntax);
	free(why);
	return err == -ENOMEM ? EXIT_RUNTIME : err ? EXIT_USAGE : 0;
}

/* ---- what runs said -------------------------------------------------------------------------- */

int cli_event_error(int err)
{
	if (err != -PBENCH_EUNKNOWN_EVENT && err != -PBENCH_EBAD_EVENT_LIST &&
	    err != -PBENCH_EDUP_EVENT)
		return 0;
	cli_error("%s", pbench_strerror(err));
	cli_hint("'pbench list' shows the events that can be counted here");
	return 1;
}

int cli_outcome(int kind, const char *text)
{
	if (kind == PBENCH_OUTCOME_ERROR)
		cli_error("%s", text);
	else if (kind == PBENCH_OUTCOME_WARNING)
		cli_warn("%s", text);
	else
		fprintf(stderr, "pbench: %s\n", text);
	return kind == PBENCH_OUTCOME_ERROR || kind == PBENCH_OUTCOME_REGRESSION ||
	       kind == PBENCH_OUTCOME_UNDECIDED ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- the outputs of a command: one convention (cmds.h, "cli_out"), cli_outputs ------------ */

/* The options that ask for each format: on stdout, and to a file. */
static const char *const out_opts[CLI_NFMT][2] = {
	[CLI_FMT_JSON] = { "--json", "--export-json" },
	[CLI_FMT_CSV] = { "--csv", "--export-csv" },
	[CLI_FMT_MARKDOWN] = { "--markdown", "--export-markdown" },
	[CLI_FMT_PLOT] = { NULL, "--plot" },
};

/* The set of the one cli_out of this process: made at its first output, freed by
 * cli_out_close(); a static, so a usage error on the way needs no cleanup. */
static struct cli_outputs *outs;

/* The library's messages of the last call, each said: -1. */
static int out_said(int err)
{
	const char *m;

	for (int i = 0; (m = cli_outputs_message(outs, i)); i++)
		cli_error("%s", m);
	if (err && !cli_outputs_message(outs, 0))
		cli_error("%s", pbench_strerror(err));
	return -1;
}

void cli_out_init(struct cli_out *o, const char *cmd, unsigned offered, unsigned flags)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->offered = offered;
	o->flags = flags;
	cli_outputs_free(outs);
	outs = NULL;
}

int cli_out_option(struct cli_out *o, int c, const char *arg, int argc, char **argv)
{
	int fmt = (c - CLI_OUT_OPT) & 3, export = c - CLI_OUT_OPT >= 4, err;
	const char *opt = out_opts[fmt][export];

	if (c < CLI_OUT_OPT || c >= CLI_OUT_OPT + 8 || (!export && fmt == CLI_FMT_PLOT))
		return 0;
	if (!(o->offered & (1u << fmt))) {
		cli_error("unknown option '%s' for 'pbench %s'", opt, o->cmd);
		cli_hint("'pbench %s -h' shows the options", o->cmd);
		return -1;
	}
	if (!export && !arg && optind < argc && argv[optind]) {
		const char *next = argv[optind];

		/* The old spellings: '--json -', and '--json FILE' where nothing else can be. */
		if (!strcmp(next, "-") && (o->flags & (CLI_OUT_DASH | CLI_OUT_NO_ARGS)))
			optind++;
		else if ((o->flags & CLI_OUT_NO_ARGS) && next[0] != '-')
			arg = argv[optind++];
	}
	if (!export && !arg) {
		o->bare_next = optind < argc ? argv[optind] : NULL;
		o->bare_fmt = fmt + 1;
		arg = "-";
	}
	/* Named by the option given; a file by its --export- form, as '--json=FILE' writes it. */
	if (*arg && strcmp(arg, "-"))
		opt = out_opts[fmt][1];
	err = outs ? 0 : cli_outputs_new(&outs);
	if (!err && (err = cli_outputs_add(outs, fmt, arg, opt)) == -EEXIST) {
		cli_error("%s (%s FILE)", cli_outputs_message(outs, 0), out_opts[fmt][1]);
		return -1;
	}
	return err ? out_said(err) : 1;
}

int cli_out_open(struct cli_out *o)
{
	int err = outs ? 0 : cli_outputs_new(&outs);

	(void)o;
	if (!err)
		err = cli_outputs_open(outs);
	if (err)
		out_said(err);
	return err ? EXIT_USAGE : EXIT_OK;
}

int cli_out_text(const struct cli_out *o)
{
	(void)o;
	return cli_outputs_stdout(outs) < 0;
}

int cli_out_wants(const struct cli_out *o, int fmt)
{
	(void)o;
	return cli_outputs_wants(outs, fmt);
}

/* The text unless a format replaced it (a failure on stdout is main()'s to say), then each
 * output (cli_outputs_write()). */
int cli_out_write(struct cli_out *o, cli_out_writer write, void *arg)
{
	int rc = cli_out_text(o) && write(arg, CLI_FMT_TEXT, stdout) ? EXIT_RUNTIME : EXIT_OK;

	if (outs && cli_outputs_write(outs, write, arg)) {
		out_said(0);
		rc = EXIT_RUNTIME;
	}
	return rc;
}

/* Close each: the written ones put in place when commit is 1, the others discarded (an old
 * file stays as it was); stdout's error left in errno for main()'s check of stdout. */
int cli_out_close(struct cli_out *o, int commit, int rc)
{
	int err = outs ? cli_outputs_close(outs, commit) : 0,
	    out_err = outs ? cli_outputs_stdout_error(outs) : 0;

	(void)o;
	if (err) {
		out_said(0);
		rc = rc ? rc : EXIT_RUNTIME;
	}
	cli_outputs_free(outs);
	outs = NULL;
	if (out_err)
		errno = -out_err;
	return rc;
}

int cli_out_hint(const struct cli_out *o, const char *arg)
{
	const char *const *opts = o->bare_fmt ? out_opts[o->bare_fmt - 1] : NULL;

	if (!arg || arg != o->bare_next || !opts)
		return 0;
	cli_hint("%s alone prints on stdout; to write a file give %s FILE (or %s=FILE)", opts[0],
		 opts[1], opts[0]);
	return 1;
}

/* ---- --cpu and the options of the commands that run something (cmds.h) ------------------ */

int cli_cpus(const char *cmd, const char *opt, const char *arg, unsigned flags, int *cpus,
	     int max)
{
	char why[1024], who[64];
	int n, most = flags & CLI_CPU_ONE ? 1 : flags & CLI_CPU_TWO ? 2 : 0;

	snprintf(who, sizeof(who), most == 2 ? "a duet" : "'pbench %s'", cmd);
	n = cli_cpus_parse_words(arg, opt, flags & CLI_CPU_PRESENT ? CLI_CPUS_PRESENT : 0,
				 most, who, cpus, max, why, sizeof(why));
	if (n < 0)
		cli_error("%s", why);
	return n < 0 ? -1 : n;
}

void cli_run_init(struct cli_run *r)
{
	r->mode = r->workload = -1;
	r->warmup_ms = -1;
	r->warmup_runs = -1;
}

/* --mode and --workload: a word from the library's names. */
static int run_choice(struct cli_run *r, int c, const char *arg)
{
	const char *names[3];
	int n = c == CLI_RUN_MODE ? r->modes : 2, k;

	for (k = 0; k < n; k++)
		names[k] = c == CLI_RUN_MODE ? pbench_runs_mode_name(k) :
			   pbench_workload_kind_name(k);
	k = cli_choice(c == CLI_RUN_MODE ? "--mode" : "--workload", arg, names, n);
	if (k < 0)
		return -1;
	*(c == CLI_RUN_MODE ? &r->mode : &r->workload) = k;
	return 1;
}

/* --iterations: one more side (compare), or the size of the one workload. */
static int run_iterations(struct cli_run *r, const char *arg)
{
	double v;

	if (cli_number("--iterations", "iteration count", arg, 1, 1e12, CLI_NUM_INT, &v))
		return -1;
	if (!r->sides)
		r->niters = 0;
	if (r->niters == CLI_RUN_MAX_SIDES) {
		cli_error("too many --iterations: %d sides at most", CLI_RUN_MAX_SIDES);
		return -1;
	}
	r->iters[r->niters++] = (uint64_t)v;
	return 1;
}

int cli_run_option(struct cli_run *r, int c, const char *arg)
{
	switch (c) {
	case 'e':
		return cli_events_add(&r->events, arg) ? -1 : 1;
	case 'M':
		r->metrics = arg;
		return 1;
	case CLI_RUN_METRIC:
		r->metric = arg;
		return 1;
	case CLI_RUN_MODE:
	case CLI_RUN_WORKLOAD:
		return run_choice(r, c, arg);
	case CLI_RUN_CPU:
		r->ncpus = cli_cpus(r->cmd, "--cpu", arg, r->cpu_flags, r->cpus, CPU_SETSIZE);
		return r->ncpus < 0 ? -1 : 1;
	case CLI_RUN_WARMUP_MS:
		return cli_number("--warmup-ms", "warm-up", arg, 0, 3600000, 0, &r->warmup_ms) ?
		       -1 : 1;
	case CLI_RUN_TIMEOUT:
		return cli_number("--timeout", "timeout", arg, 0, 86400, CLI_NUM_POSITIVE,
				  &r->timeout_s) ? -1 : 1;
	case CLI_RUN_MAX_TIME:
		return cli_number("--max-time", "time budget", arg, 0, r->max_time,
				  CLI_NUM_POSITIVE, &r->max_time_s) ? -1 : 1;
	case CLI_RUN_REPROBE:
	case CLI_RUN_STRICT:
		*(c == CLI_RUN_REPROBE ? &r->reprobe : &r->strict) = 1;
		return 1;
	case CLI_RUN_WARMUP:
		return cli_long("--warmup", "warm-up run count", arg, 0, r->max_warmup,
				&r->warmup_runs) ? -1 : 1;
	case CLI_RUN_SETUP:
	case CLI_RUN_PREPARE:
	case CLI_RUN_CLEANUP:
		r->helper[c - CLI_RUN_SETUP] = arg;
		return 1;
	case CLI_RUN_ITERATIONS:
		return run_iterations(r, arg);
	case CLI_RUN_MEMORY:
		r->memory_runs = CLI_RUN_MEMORY_RUNS;
		return arg && cli_long("--memory", "memory run count", arg, 1, 1000,
				       &r->memory_runs) ? -1 : 1;
	case CLI_RUN_RECORD:
	case CLI_RUN_HISTORY:
	case CLI_RUN_COMMIT:
		*(c == CLI_RUN_RECORD ? &r->record : c == CLI_RUN_HISTORY ? &r->history :
		  &r->commit) = arg;
		return 1;
	}
	return 0;
}

int cli_run_memory_csv(const struct cli_run *r, const struct cli_out *out)
{
	if (!r->memory_runs || !cli_out_wants(out, CLI_FMT_CSV))
		return 0;
	cli_error("--memory is reported in the text, the JSON and the Markdown, not in the CSV (a "
		  "line per timed run): drop --csv (or --export-csv)");
	return 1;
}

/* A helper that is not a command found now is the user's to fix, said with its option. */
static int helper_found(const char *opt, char **argv)
{
	static const char hint[] = "give the command's path, or \"sh -c '...'\" for a shell line";
	char path[4096];
	int err = pbench_command_resolve(argv[0], path, sizeof(path));

	if (!err)
		return 0;
	cli_error("the %s command '%s': %s", opt, argv[0], pbench_strerror(err));
	if (err == -PBENCH_ENOT_FOUND)
		cli_command_hint(argv[0], hint);
	else
		cli_hint("%s", hint);
	return EXIT_USAGE;
}

int cli_run_helpers(struct cli_run *r, int shell, int resolve)
{
	static const char *const opt[] = { "--setup", "--prepare", "--cleanup" };
	char what[32];
	int rc = 0;

	for (int k = 0; k < 3 && !rc; k++) {
		snprintf(what, sizeof(what), "the %s command", opt[k]);
		if (r->helper[k])
			rc = cli_command_argv(r->helper[k], shell, what, &r->argv[k]);
	}
	for (int k = 0; k < 3 && !rc && resolve; k++)
		rc = r->argv[k] ? helper_found(opt[k], r->argv[k]) : 0;
	return rc;
}

void cli_run_release(struct cli_run *r)
{
	free(r->events);
	r->events = NULL;
	for (int k = 0; k < 3; k++) {
		pbench_command_free(r->argv[k]);
		r->argv[k] = NULL;
	}
}
