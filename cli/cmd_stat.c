/* SPDX-License-Identifier: MIT */
/*
 * pbench stat: run a command (or the built-in workload) N times, each run timed in ticks and
 * ns and counted with the requested events, unprepared, prepared (one core, high priority,
 * warmed up) or both side by side, and print every run, the outliers with their causes and a
 * summary. The experiment and its reports are the library's (pbench_runs_*): this file parses
 * the options, shows progress, and picks the writers.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

#define DEFAULT_EVENTS PBENCH_RUNS_DEFAULT_EVENTS
#define DEFAULT_RUNS 20
#define MAX_RUNS 1000000L
#define XOR_ITERATIONS 100000000ULL
#define WALK_STEPS 200000ULL		/* about 30 ms at the 150 ns a step measured here */
#define SEM_MAX_RUNS 1000		/* --target-sem without -r: the cap on runs per set */
#define DEFAULT_MAX_TIME_S 60.0
#define DEFAULT_WARMUP_MS 1200.0
#define MAX_WARMUP_MS 3600000.0
#define DEFAULT_MEMORY_RUNS 3		/* --memory without N */
#define MAX_MEMORY_RUNS 1000L

#define STAT_OUTPUTS (CLI_OUT_JSON | CLI_OUT_CSV | CLI_OUT_MARKDOWN | CLI_OUT_PLOT)
#define STAT_COL 25

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench stat [-e EVENTS] [-r RUNS | --target-sem PCT [--max-time S]]\n"
		"                   [--mode unprepared|prepared|contrast] [--cpu LIST] [--warmup-ms MS]\n"
		"                   [--json | --csv | --markdown] [--export-json FILE]\n"
		"                   [--export-csv FILE] [--export-markdown FILE] [--plot FILE.svg]\n"
		"                   [--reprobe] [-q] [--timeout S] [--workload xor|memwalk]\n"
		"                   [--iterations N] [--warmup N] [--setup CMD] [--prepare CMD]\n"
		"                   [--cleanup CMD] [--annotate FUNCTION] [--memory[=N]]\n"
		"                   [-- CMD ARGS...]\n"
		"\n"
		"Runs CMD (or, with no command, a built-in workload) RUNS times and prints each\n"
		"run's time in TSC ticks and ns with the counted events and what disturbed it, the\n"
		"outliers with their cause, then a summary. Events that cannot be counted here are\n"
		"shown with the reason, never as a number. The options come before CMD: the first\n"
		"argument that is not an option (or the one after --) starts the command.\n"
		"\n"
		"Modes: 'prepared' pins pbench to one CPU, raises its priority, locks its memory and\n"
		"warms up before the runs, and undoes it all afterwards; a command inherits the CPU\n"
		"and the priority. 'unprepared' changes nothing. 'contrast' runs the unprepared set,\n"
		"then the prepared set, and shows them side by side.\n"
		"\n"
		"  -e, --events LIST      comma-separated events (default: %s)\n"
		"                         of which those this machine cannot count are left out,\n"
		"                         said once; -e again adds more\n"
		"  -r, --runs N           runs per mode, 1 to %ld (default: %d; with --target-sem,\n"
		"                         the most runs, default %d)\n"
		"      --target-sem PCT   run until the standard error of the mean is at most PCT%%\n"
		"                         of the mean (at least %d runs), within --max-time\n"
		"      --max-time S       time budget per mode for --target-sem (default: %.0f)\n"
		"      --mode MODE        unprepared, prepared or contrast (default: prepared)\n"
		"      --cpu LIST         the CPU to prepare (default: an isolated or idle one); a\n"
		"                         list (1-3) for a command that uses several: it runs on\n"
		"                         all of them, pbench on the first\n"
		"      --warmup-ms MS     warm-up before the prepared runs: until the speed stops\n"
		"                         drifting, at most MS (default: %.0f)\n"
		"      --reprobe          time nice against SCHED_FIFO again, even if a choice was\n"
		"                         kept for this boot and CPU (in ~/.cache/pbench)\n"
		"      --warmup N         runs before each mode's, not kept (the command's own\n"
		"                         warm-up: its files in the page cache, its code loaded)\n"
		"      --setup CMD        run once before all the runs\n"
		"      --prepare CMD      run before each run (warm-up runs too), not timed\n"
		"      --cleanup CMD      run once after the runs, also when they were stopped\n"
		"                         (each CMD one argument, split into words as a shell would\n"
		"                         without running one: for a shell, \"sh -c '...'\")\n"
		"      --annotate FUNCTION\n"
		"                         after the report, the machine code of FUNCTION in the\n"
		"                         command's program, disassembled by objdump (binutils),\n"
		"                         or why it cannot be shown (a stripped program, a static\n"
		"                         function inlined away), each instruction with its share\n"
		"                         of the samples of one more run of the command (cpu-clock\n"
		"                         every 100 us, before the measured runs, ended by --timeout\n"
		"                         as they are); in the JSON as \"annotate\"\n"
		"      --memory[=N]       after the timed runs, N more (default: %d), untimed, with\n"
		"                         the allocator shim libpbench-mem.so preloaded: the\n"
		"                         command's allocations, frees, bytes and peak live bytes\n"
		"                         per run (its own process: not the ones it starts), and\n"
		"                         its peak RSS; in the text, the JSON (\"memory\") and the\n"
		"                         Markdown. A static or setuid command is said not\n"
		"                         countable\n",
		DEFAULT_EVENTS, MAX_RUNS, DEFAULT_RUNS, SEM_MAX_RUNS, PBENCH_RUNS_SEM_MIN_RUNS,
		DEFAULT_MAX_TIME_S, DEFAULT_WARMUP_MS, DEFAULT_MEMORY_RUNS);
	cli_out_usage(f, STAT_OUTPUTS, "each run's time in order and the distributions, as SVG",
		      STAT_COL);
	fprintf(f,
		"      --timeout S        kill a run of the command after S seconds (default: none)\n"
		"  -q, --quiet            discard the command's output\n"
		"      --workload NAME    the built-in workload: 'xor' (a register-only loop, the\n"
		"                         default) or 'memwalk' (a random walk over 4x the last-level\n"
		"                         cache: one cache miss a step)\n"
		"      --iterations N     xor iterations (default: %llu) or memwalk steps (%llu)\n"
		"  -h, --help             this help\n"
		"\n"
		"On a terminal, progress on stderr (run i of N, the estimate so far, the time left):\n"
		"one line rewritten in place when nothing else writes there (the built-in workload,\n"
		"a command with -q), else a line of its own at most once a second. NO_COLOR turns\n"
		"its colour off. When the command's output goes to stdout, pbench's head (what runs,\n"
		"the clock) is printed before it and the report after the runs; when a format takes\n"
		"stdout (--json...), the command's output goes to stderr.\n"
		"'pbench list' shows the events that can be counted here.\n"
		"\n"
		"examples:\n"
		"  pbench stat -- gzip -k -f big.log        20 prepared runs, counted\n"
		"  pbench stat --mode contrast              the built-in loop unprepared, then\n"
		"                                           prepared, side by side\n"
		"  pbench stat -r 50 -q --export-json gz.json -- sh -c 'gzip -c big.log >/dev/null'\n"
		"  pbench stat --target-sem 0.5 --markdown -- ./bench\n"
		"  pbench stat -q --annotate crc32 -- ./bench  the code of crc32 in ./bench, each\n"
		"                                           instruction with its share of samples\n",
		XOR_ITERATIONS, WALK_STEPS);
}

struct stat_opts {
	struct pbench_runs_opts ro;
	struct cli_out out;		/* --json, --export-json FILE, ... */
	int cpus[CPU_SETSIZE];		/* --cpu LIST */
	int workload_set;		/* --workload was given */
	int progress;			/* the progress line on stderr */
	int color;			/* NO_COLOR unset and stderr a terminal */
	int lines;			/* the command writes to the terminal too: progress in
					 * whole lines, at most one a second */
	double last_s;			/* when the last progress line was printed */
	int head_first;			/* the text's head goes out before the command's output */
	char **helpers[3];		/* --setup, --prepare, --cleanup as words */
	const char *annotate;		/* --annotate FUNCTION */
	struct pbench_listing *listing;	/* its machine code, made before the runs */
	long memory_runs;		/* --memory[=N]: 0 when not asked for */
	char *events;			/* the events of every -e, or NULL */
};

/* The names of --mode's values, by enum pbench_runs_mode, and of --workload's. */
static const char *const modes[] = { "unprepared", "prepared", "contrast" };
static const char *const workloads[] = { "xor", "memwalk" };

static const char *mode_name(int mode)
{
	return mode >= 0 && mode <= PBENCH_RUNS_CONTRAST ? modes[mode] : "?";
}

/* --cpu N or --cpu LIST: each one pbench may run on; a list is the command's CPUs. */
static int parse_cpu(const char *s, struct stat_opts *o)
{
	cpu_set_t set;
	char allowed[256] = "";
	int n, ok;

	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	pbench_cpus_allowed(allowed, sizeof(allowed));
	n = pbench_cpus_parse(s, o->cpus, CPU_SETSIZE, CPU_SETSIZE);
	ok = n > 0;
	for (int i = 0; ok && i < n; i++)
		ok = CPU_ISSET(o->cpus[i], &set);
	if (!ok) {
		cli_error("invalid CPU '%s' for --cpu: pbench may run on CPUs %s", s,
			  allowed[0] ? allowed : "(unknown: sched_getaffinity failed)");
		return -1;
	}
	o->ro.cpu = o->cpus[0];
	o->ro.cpus = n > 1 ? o->cpus : NULL;
	o->ro.ncpus = n > 1 ? n : 0;
	return 0;
}

enum { OPT_MODE = 256, OPT_CPU, OPT_WARMUP, OPT_TIMEOUT, OPT_WORKLOAD, OPT_TARGET_SEM,
       OPT_MAX_TIME, OPT_REPROBE, OPT_WARMUP_RUNS, OPT_SETUP, OPT_PREPARE, OPT_CLEANUP,
       OPT_ANNOTATE, OPT_MEMORY };

/* hyperfine's --warmup N, --setup, --prepare and --cleanup: 0, -1 after an error said, 1
 * when c is not one of them. */
static int helper_option(int c, const char *arg, struct stat_opts *o)
{
	static const char *const what[] = { "the --setup command", "the --prepare command",
					    "the --cleanup command" };
	int k = c - OPT_SETUP;

	if (c == OPT_WARMUP_RUNS)
		return cli_long("--warmup", "warm-up run count", arg, 0, MAX_RUNS,
				&o->ro.warmup_runs) ? -1 : 0;
	if (k < 0 || k > 2)
		return 1;
	pbench_command_free(o->helpers[k]);
	o->helpers[k] = NULL;
	if (cli_command_argv(arg, 0, what[k], &o->helpers[k]))
		return -1;
	return 0;
}

/* One option of `pbench stat` (getopt's c and optarg): 0, -1 after an error said, 1 when c is
 * not one of them. */
static int stat_option(int c, const char *arg, struct stat_opts *o)
{
	double v;

	switch (c) {
	case 'e':
		if (cli_events_add(&o->events, arg))
			return -1;
		o->ro.events = o->events;
		break;
	case 'r':
		if (cli_long("-r", "run count", arg, 1, MAX_RUNS, &o->ro.runs))
			return -1;
		break;
	case 'q':
		o->ro.quiet = 1;
		break;
	case 'i':
		if (cli_number("--iterations", "iteration count", arg, 1, 1e12,
			       CLI_NUM_INT, &v))
			return -1;
		o->ro.iterations = (uint64_t)v;
		break;
	case OPT_MODE:
		if ((o->ro.mode = cli_choice("--mode", arg, modes, 3)) < 0)
			return -1;
		break;
	case OPT_CPU:
		if (parse_cpu(arg, o))
			return -1;
		break;
	case OPT_WARMUP:
		if (cli_number("--warmup-ms", "warm-up", arg, 0, MAX_WARMUP_MS, 0,
			       &o->ro.warmup_ms))
			return -1;
		break;
	case OPT_TIMEOUT:
		if (cli_number("--timeout", "timeout", arg, 0, 86400, CLI_NUM_POSITIVE,
			       &o->ro.timeout_s))
			return -1;
		break;
	case OPT_REPROBE:
		o->ro.flags |= PBENCH_RUNS_REPROBE;
		break;
	case OPT_MEMORY:
		o->memory_runs = DEFAULT_MEMORY_RUNS;
		if (arg && cli_long("--memory", "memory run count", arg, 1, MAX_MEMORY_RUNS,
				    &o->memory_runs))
			return -1;
		break;
	case OPT_ANNOTATE:
		if (!*arg) {
			cli_error("empty function name for --annotate");
			return -1;
		}
		o->annotate = arg;
		break;
	case OPT_MAX_TIME:
		if (cli_number("--max-time", "time budget", arg, 0, 86400,
			       CLI_NUM_POSITIVE, &o->ro.max_time_s))
			return -1;
		break;
	case OPT_TARGET_SEM:
		if (cli_number("--target-sem", "target", arg, 0, 100,
			       CLI_NUM_POSITIVE | CLI_NUM_PCT, &o->ro.target_sem_pct))
			return -1;
		break;
	case OPT_WORKLOAD:	/* the names in the order of enum pbench_workload_kind */
		if ((o->ro.workload = cli_choice("--workload", arg, workloads, 2)) < 0)
			return -1;
		o->workload_set = 1;
		break;
	default:
		return 1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "runs", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "warmup-ms", required_argument, NULL, OPT_WARMUP },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "target-sem", required_argument, NULL, OPT_TARGET_SEM },
		{ "max-time", required_argument, NULL, OPT_MAX_TIME },
		{ "reprobe", no_argument, NULL, OPT_REPROBE },
		{ "warmup", required_argument, NULL, OPT_WARMUP_RUNS },
		{ "setup", required_argument, NULL, OPT_SETUP },
		{ "prepare", required_argument, NULL, OPT_PREPARE },
		{ "cleanup", required_argument, NULL, OPT_CLEANUP },
		{ "annotate", required_argument, NULL, OPT_ANNOTATE },
		{ "memory", optional_argument, NULL, OPT_MEMORY },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	int c, err;

	optind = 1;
	opterr = 0;
	cli_out_init(&o->out, "stat", STAT_OUTPUTS, CLI_OUT_DASH);
	while ((c = getopt_long(argc, argv, "+:e:r:qh", opts, NULL)) != -1) {
		if (c == 'h') {
			stat_usage(stdout);
			return 1;
		}
		err = cli_out_option(&o->out, c, optarg, argc, argv);
		if (err < 0)
			return -1;
		if (err)
			continue;
		err = stat_option(c, optarg, o);
		if (err > 0)
			err = helper_option(c, optarg, o);
		if (err > 0)
			return cli_option_error(c, argv, "stat", opts, STAT_OUTPUTS);
		if (err)
			return -1;
	}
	if (optind < argc)
		o->ro.argv = argv + optind;
	return 0;
}

/* ---- progress ----------------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "prepared: run 7 of 20, 27.3 ms ± 0.41%, 0.4 s left" */
static void progress_text(const struct pbench_runs_progress *p, char *buf, size_t len)
{
	char est[64] = "", left[64] = "", of[32] = "", m[32];

	if (!strcmp(p->phase, "preparing")) {
		snprintf(buf, len, "%s: preparing (pin, memory, priority probe, warm-up)",
			 mode_name(p->mode));
		return;
	}
	if (!strcmp(p->phase, "warm-up")) {
		snprintf(buf, len, "%s: warm-up runs (not kept)", mode_name(p->mode));
		return;
	}
	if (isfinite(p->mean_ns)) {
		pbench_format_ns(m, sizeof(m), p->mean_ns, 3);
		snprintf(est, sizeof(est), isfinite(p->sem_pct) ? ", %s ± %.2g%%" : ", %s", m,
			 p->sem_pct);
	}
	if (p->target_sem_pct > 0)
		snprintf(of, sizeof(of), " (target ± %.2g%%)", p->target_sem_pct);
	else
		snprintf(of, sizeof(of), " of %ld", p->runs);
	if (isfinite(p->left_s))
		snprintf(left, sizeof(left), ", %.1f s left", p->left_s);
	snprintf(buf, len, "%s: run %d%s%s%s", mode_name(p->mode), p->run + 1, of, est, left);
}

/*
 * On a terminal only: "prepared: run 7 of 20, 27.3 ms ± 0.41%, 0.4 s left". The library calls
 * this between runs, never during one. When nothing else writes to the terminal (the built-in
 * workload, a command with -q) the line is rewritten in place; when the command's output
 * comes there too, the progress is a line of its own, at most one a second, so that the two
 * never share a line.
 */
static void show_progress(const struct pbench_runs_progress *p, void *arg)
{
	struct stat_opts *o = arg;
	const char *dim = o->color ? "\033[2m" : "", *end = o->color ? "\033[0m" : "";
	char line[256];

	if (o->lines) {
		if (!strcmp(p->phase, "done") || (((!strcmp(p->phase, "runs") && p->run) ||
						   !strcmp(p->phase, "warm-up")) &&
						  now_s() - o->last_s < 1))
			return;
		progress_text(p, line, sizeof(line));
		fprintf(stderr, "%spbench stat: %s%s\n", dim, line, end);
		o->last_s = now_s();
	} else if (!strcmp(p->phase, "done")) {
		fputs("\r\033[K", stderr);
	} else {
		progress_text(p, line, sizeof(line));
		fprintf(stderr, "\r\033[K%s%s%s", dim, line, end);
	}
	fflush(stderr);
}

/* ---- errors and warnings ------------------------------------------------------------------ */

/* Name errors and commands that cannot run are the user's to fix: exit 2 with the reason. */
static int start_error(int err, const struct stat_opts *o)
{
	const char *cmd = o->ro.argv ? o->ro.argv[0] : "";
	char path[4096], interp[256];

	switch (-err) {
	case PBENCH_EUNKNOWN_EVENT:
	case PBENCH_EBAD_EVENT_LIST:
	case PBENCH_EDUP_EVENT:
		cli_error("%s", pbench_counters_last_error());
		cli_hint("'pbench list' shows the events that can be counted here");
		return EXIT_USAGE;
	case PBENCH_ENOT_FOUND:
		cli_error("command '%s' not found", cmd);
		if (!cli_out_hint(&o->out, o->ro.argv[0]))
			cli_command_hint(cmd, "check the name, or give its path");
		return EXIT_USAGE;
	case PBENCH_ENOT_EXEC:
		cli_error("command '%s' cannot be executed (not an executable file, or no "
			  "permission)", cmd);
		cli_out_hint(&o->out, o->ro.argv[0]);
		return EXIT_USAGE;
	case PBENCH_EBAD_INTERP:
		if (pbench_command_resolve(cmd, path, sizeof(path)) == -PBENCH_EBAD_INTERP &&
		    pbench_command_interp(path, interp, sizeof(interp)) == 1)
			cli_error("command '%s' cannot run: its interpreter '%s' (its #! line) is "
				  "not found or not executable", cmd, interp);
		else
			cli_error("command '%s' cannot run: its interpreter or dynamic loader is "
				  "missing", cmd);
		return EXIT_USAGE;
	}
	cli_error("cannot start: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

/*
 * A command that used more than one CPU's worth of time in a run (task-clock, which counts
 * its children too, above the wall time): pinned to one CPU, as a prepared run pins it, its
 * threads take turns, and it measures something else (sort: 92 ms pinned, 68 ms free).
 */
static void multi_cpu(const struct pbench_runs *r, const struct stat_opts *o)
{
	double most = 0;
	int e = -1, at = 0, set = 0, need;
	char allowed[256] = "", tc[32], wall[32];
	struct pbench_run best = { .size = sizeof(best) };

	for (int k = 0; k < pbench_runs_nr_events(r); k++)
		if (!strcmp(pbench_runs_event_name(r, k), "task-clock"))
			e = k;
	for (int s = 0; e >= 0 && s < pbench_runs_nr_sets(r); s++) {
		struct pbench_runs_set si = { .size = sizeof(si) };

		pbench_runs_set_info(r, s, &si);
		for (int i = 0; i < si.done; i++) {
			struct pbench_run run = { .size = sizeof(run) };
			struct pbench_count k = { .size = sizeof(k) };

			if (pbench_runs_get(r, s, i, &run) || pbench_runs_count(r, s, i, e, &k) ||
			    k.status > PBENCH_EVENT_MULTIPLEXED || !run.ns || run.timed_out)
				continue;
			if (k.scaled / (double)run.ns > most) {
				most = k.scaled / (double)run.ns;
				best = run;
				at = i + 1;
				set = si.mode;
			}
		}
	}
	/* 10% above: the counters' own skew never reaches that */
	if (most < 1.1 || (o->ro.ncpus > 1 && most <= o->ro.ncpus))
		return;
	need = (int)ceil(most);
	pbench_cpus_allowed(allowed, sizeof(allowed));
	pbench_format_ns(tc, sizeof(tc), most * (double)best.ns, 3);
	pbench_format_ns(wall, sizeof(wall), (double)best.ns, 3);
	cli_warn("'%s' used %.1f CPUs' worth of time in %s run %d (task-clock %s in %s): prepared "
		 "runs pin it to %s, where its threads and processes take turns and it measures something else; "
		 "give it %d CPUs with --cpu LIST (here CPUs %s may be used, e.g. --cpu %s)",
		 o->ro.argv[0], most, mode_name(set), at, tc, wall,
		 o->ro.ncpus > 1 ? "the CPUs of --cpu" : "one CPU", need, allowed[0] ? allowed : "?",
		 allowed[0] ? allowed : "1-2");
}

/* What the runs left to say: processes a command left behind, another pbench on the CPU. */
static void warnings(const struct pbench_runs *r, const struct stat_opts *o)
{
	cli_warn_left_behind(r, o->ro.argv ? o->ro.argv[0] : "the workload");
	for (int s = 0; s < pbench_runs_nr_sets(r); s++) {
		struct pbench_runs_set si = { .size = sizeof(si) };

		pbench_runs_set_info(r, s, &si);
		/* Two prepared runs on one CPU take turns on it (as pbench jitter says too). */
		if (si.rival_pid)
			cli_warn("another pbench (pid %d) is pinned to CPU %d too: the two take turns "
				 "on it and each measures the other; let one finish first, or give "
				 "them different CPUs with --cpu", si.rival_pid, si.cpu);
	}
}

/* ---- reports ------------------------------------------------------------------------------ */

/* The runs and what the report's text already wrote. */
struct report {
	const struct pbench_runs *r;
	int head_first;
	const struct pbench_listing *listing;	/* --annotate, or NULL */
	const char *annotate;			/* the name given to --annotate */
};

/* The text or Markdown report, then the listing of --annotate under it (with its samples,
 * or why there are none). */
static int with_listing(int err, const struct report *rep, int fmt, FILE *f)
{
	if (err || !rep->listing)
		return err;
	if (fmt == CLI_FMT_MARKDOWN) {
		fputs("\n", f);
		return pbench_listing_write_markdown(rep->listing, f);
	}
	fprintf(f, "\n--annotate %s:\n", rep->annotate);
	return pbench_listing_write_text(rep->listing, f);
}

/* The report in each format asked for (cli_out_write): the library's writers. */
static int write_report(void *arg, int fmt, FILE *f)
{
	const struct report *rep = arg;
	const struct pbench_runs *r = rep->r;

	switch (fmt) {
	case CLI_FMT_JSON:
		return pbench_runs_write_json_annotated(r, rep->listing, f);
	case CLI_FMT_CSV:
		return pbench_runs_write_csv(r, f);
	case CLI_FMT_MARKDOWN:
		return with_listing(pbench_runs_write_markdown(r, f), rep, fmt, f);
	case CLI_FMT_PLOT:
		return pbench_runs_plot_svg(r, f);
	default:	/* the head went out before the command's output */
		return with_listing(rep->head_first ? pbench_runs_write_body(r, f) :
				    pbench_runs_write_text(r, f), rep, fmt, f);
	}
}

/* Exit 1 for a run cut short, failed runs, a state not restored; said in one line. */
static int verdict(const struct pbench_runs *r, const struct stat_opts *o, int interrupted)
{
	int done = 0, failed = 0, restore_err = 0;

	for (int s = 0; s < pbench_runs_nr_sets(r); s++) {
		struct pbench_runs_set si = { .size = sizeof(si) };

		pbench_runs_set_info(r, s, &si);
		done += si.done;
		failed += si.failed;
		if (si.restore_err)
			restore_err = si.restore_err;
	}
	if (interrupted) {
		cli_error("interrupted after %d of %ld runs", done,
			  o->ro.runs * pbench_runs_nr_sets(r));
		return EXIT_RUNTIME;
	}
	if (failed) {
		cli_error("%d of %d runs of '%s' failed (see the status column)", failed, done,
			  o->ro.argv[0]);
		return EXIT_RUNTIME;
	}
	if (restore_err) {
		cli_error("the prepared state was not fully restored: %s",
			  pbench_strerror(restore_err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* --memory: more runs of the command, untimed, with the allocator shim preloaded (the timed
 * runs stay without it), kept with the report; a command that cannot be counted says why.
 * Stopped (a signal), the runs done are kept and each one not done says so. */
static int memory_runs(const struct stat_opts *o, struct pbench_runs *r)
{
	struct pbench_mem_run *runs = calloc((size_t)o->memory_runs, sizeof(*runs));
	char *const *argv[] = { o->ro.argv };
	int err = runs ? pbench_mem_runs_count(argv, 1, (int)o->memory_runs, 1, &cli_stop,
					       &runs) : -ENOMEM;

	if (err >= 0)
		err = pbench_runs_attach_memory(r, runs, (int)o->memory_runs);
	free(runs);
	if (err < 0)
		cli_mem_error(err);
	return err < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/* Run and report: the library's handlers (PBENCH_RUNS_SIGNALS) restore a prepared state on
 * SIGINT/SIGTERM and hand the signal on to cli_stop's (main()), which stops the runs. */
static int measure(struct stat_opts *o)
{
	struct pbench_runs *r;
	int err, rc = EXIT_OK, done = 0;

	err = pbench_runs_new(&r, &o->ro);
	if (err)
		return start_error(err, o);
	pbench_runs_wrap_at(r, cli_width(stdout));
	if (o->head_first)
		pbench_runs_write_head(r, stdout);
	fflush(stdout);
	err = pbench_runs_run(r);
	if (err && err != -EINTR) {
		cli_error("%s", pbench_runs_error(r));
		pbench_runs_free(r);
		return EXIT_RUNTIME;
	}
	warnings(r, o);
	if (o->ro.argv)
		multi_cpu(r, o);
	for (int s = 0; s < pbench_runs_nr_sets(r); s++) {
		struct pbench_runs_set si = { .size = sizeof(si) };

		pbench_runs_set_info(r, s, &si);
		done += si.done;
	}
	/* --memory's runs come after the timed ones and before the report, which holds them. */
	if (done && o->memory_runs && !err && !cli_stop)
		rc = memory_runs(o, r);
	if (done && !rc)
		rc = cli_out_write(&o->out, write_report,
				   &(struct report){ r, o->head_first, o->listing, o->annotate });
	err = verdict(r, o, err == -EINTR || cli_stop);
	pbench_runs_free(r);
	return rc ? rc : err;
}

/* The helper commands are found before anything runs: a name that is not a command is the
 * user's to fix, said with the option that gave it. 0 or EXIT_USAGE. */
static int check_helpers(struct stat_opts *o)
{
	static const char *const opt[] = { "--setup", "--prepare", "--cleanup" };
	static const char hint[] = "give the command's path, or \"sh -c '...'\" for a shell line";
	char path[4096];

	for (int k = 0; k < 3; k++) {
		int err = o->helpers[k] ? pbench_command_resolve(o->helpers[k][0], path,
								 sizeof(path)) : 0;

		if (err) {
			cli_error("the %s command '%s': %s", opt[k], o->helpers[k][0],
				  pbench_strerror(err));
			if (err == -PBENCH_ENOT_FOUND)
				cli_command_hint(o->helpers[k][0], hint);
			else
				cli_hint("%s", hint);
			return EXIT_USAGE;
		}
	}
	o->ro.setup = o->helpers[0];
	o->ro.prepare = o->helpers[1];
	o->ro.cleanup = o->helpers[2];
	return 0;
}

/* --annotate: the function's code, read before the runs (objdump is not run among them), and
 * one more run of the command, sampled, before the measured ones (never one of them). A
 * function that cannot be shown or sampled is not an error: the report says why. */
static int annotate(struct stat_opts *o)
{
	struct pbench_listing_opts lo = { .size = sizeof(lo), .symbol = o->annotate,
					  .stop = &cli_stop };
	char path[4096];
	int err;

	if (!o->annotate)
		return 0;
	err = pbench_command_resolve(o->ro.argv[0], path, sizeof(path));
	if (err)	/* said by the runs as for any command that cannot start */
		return 0;
	lo.file = path;
	err = pbench_listing_new(&o->listing, &lo);
	if (!err)	/* without code to mark, it only says so (no_samples_reason) */
		err = pbench_listing_sample(o->listing, o->ro.argv, 0, o->ro.timeout_s);
	if (err == -EINTR)	/* stopped: the runs that follow say "interrupted" */
		return 0;
	if (err) {
		cli_error("--annotate %s: %s", o->annotate, pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	return 0;
}

static int stat_main(int argc, char **argv, struct stat_opts *o);

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .ro = PBENCH_RUNS_OPTS_INIT };
	int rc = stat_main(argc, argv, &o);

	for (int k = 0; k < 3; k++)
		pbench_command_free(o.helpers[k]);
	pbench_listing_free(o.listing);
	free(o.events);
	return rc;
}

static int stat_main(int argc, char **argv, struct stat_opts *o)
{
	int rc;

	o->ro.runs = 0;	/* ro.events NULL: the library's defaults, less what cannot count */
	rc = parse_args(argc, argv, o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	if (o->ro.max_time_s > 0 && !(o->ro.target_sem_pct > 0)) {
		cli_error("--max-time is the time budget of --target-sem: give --target-sem too, "
			  "or use -r for a fixed number of runs");
		return EXIT_USAGE;
	}
	if (o->ro.ncpus > 1 && !o->ro.argv) {
		cli_error("a list of CPUs for --cpu is for a command that uses several; the "
			  "built-in workload runs on one: give --cpu one CPU");
		return EXIT_USAGE;
	}
	if (o->ro.argv && o->workload_set) {
		cli_error("--workload picks a built-in workload, but a command was given: drop one "
			  "of them");
		return EXIT_USAGE;
	}
	if (o->memory_runs && !o->ro.argv) {
		cli_error("--memory counts a command's allocations: give the command (-- CMD "
			  "ARGS...); for a function, the library's count_memory");
		return EXIT_USAGE;
	}
	if (o->memory_runs && cli_out_wants(&o->out, CLI_FMT_CSV)) {
		cli_error("--memory is reported in the text, the JSON and the Markdown, not in the "
			  "CSV (a line per timed run): drop --csv (or --export-csv)");
		return EXIT_USAGE;
	}
	if (o->annotate && !o->ro.argv) {
		cli_error("--annotate shows a function of the command's program: give the command "
			  "after --");
		return EXIT_USAGE;
	}
	rc = check_helpers(o);
	if (rc)
		return rc;
	if (!o->ro.runs)
		o->ro.runs = o->ro.target_sem_pct > 0 ? SEM_MAX_RUNS : DEFAULT_RUNS;
	if (o->ro.target_sem_pct > 0 && !(o->ro.max_time_s > 0))
		o->ro.max_time_s = DEFAULT_MAX_TIME_S;
	/* A report on stdout keeps it: the command's output goes to stderr instead. */
	if (o->ro.argv && !o->ro.quiet && !cli_out_text(&o->out))
		o->ro.quiet = PBENCH_CHILD_OUTPUT_STDERR;
	o->color = cli_color(stderr);
	/* A command's output on stdout: pbench's head first, its report after. */
	o->head_first = o->ro.argv && !o->ro.quiet && cli_out_text(&o->out);
	o->lines = o->ro.argv && o->ro.quiet != PBENCH_CHILD_OUTPUT_NULL;
	if (isatty(STDERR_FILENO)) {
		o->ro.progress = show_progress;
		o->ro.progress_arg = o;
	}
	o->ro.stop = &cli_stop;
	o->ro.flags |= PBENCH_RUNS_SIGNALS | PBENCH_RUNS_PRIORITY_CACHE;
	/* Opened before anything runs: a path that cannot be written is a usage error with
	 * nothing measured, and a report that was not written whole leaves the old file. */
	rc = cli_out_open(&o->out);
	if (rc)
		return rc;
	rc = annotate(o);
	if (rc)
		return cli_out_close(&o->out, 1, rc);
	return cli_out_close(&o->out, 1, measure(o));
}
