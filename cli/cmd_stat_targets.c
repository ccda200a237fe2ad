/* SPDX-License-Identifier: MIT */
/*
 * pbench stat's reach (issue 39): perf stat's targets, breakdowns and formats. A command line
 * with -p/-t/-a/-C/-G, -A/--per-*, -x, -o, --brief or -d comes here from cmd_stat() (the
 * hook stat_targets_wanted()); so does any perf stat option pbench does not take, refused with
 * what to use instead (perf_only[]). The counting is the library's (pbench_target_*, and
 * pbench_child_* for a command); this file parses, runs the windows, aggregates the rows as
 * perf does and writes perf's text, its -x lines, or JSON, CSV and Markdown.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

enum { AGGR_GLOBAL, AGGR_CPU, AGGR_CORE, AGGR_SOCKET, AGGR_NODE, AGGR_THREAD };
enum { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_MD };

#define MAX_GROUPS 1024
#define MAX_EV 64
#define MAX_RUNS 1000

/* One line of the report: a row or rows aggregated (a core, a socket...), per run. */
struct group {
	char name[64];			/* "CPU0", "S0-D0-C1", "S0", "N0", "sleep-123", "" */
	int cpus;			/* CPUs (or threads) aggregated */
	double *v;			/* [run * nev + ev]: the scaled values */
	double run_ns[MAX_EV], ena_ns[MAX_EV];	/* over the runs */
	double prev[MAX_EV], prev_run[MAX_EV], prev_ena[MAX_EV];	/* -I: the last read */
	int status[MAX_EV];		/* 0 none yet, 1 counted, else its status + 2 */
};

struct st {
	int kind, has_target, aggr, fmt, brief, detail, append;
	const char *list, *sep, *outfile;
	double duration_s, interval_ms;
	long runs;
	char *events;
	char **argv;
	FILE *f;
	/* the counts */
	int nev, ngroups, nrows;
	const char *evname[MAX_EV];
	struct group *g;
	double elapsed[MAX_RUNS];
	int done;			/* runs done */
	int ended;			/* the targets ended during the count */
	int child_rc;
	int iv_lines;			/* -I's records written */
	double iv_last;			/* -I: when the last line was */
	struct stat_irq *irq;		/* -A over CPUs: the interrupt rows (stat_irq.c) */
};

/* ---- perf stat's options pbench does not take --------------------------------------------- */

static const struct { const char *opt; int arg; const char *instead; } perf_only[] = {
	{ "--per-die", 0, "--per-socket, or --per-core (its prefix carries the die)" },
	{ "--per-cache", 1, "--per-core or --per-socket" },
	{ "--for-each-cgroup", 1, "-G CGROUP once per cgroup" },
	{ "--td-level", 1, "-M topdown" },
	{ "--metric-only", 0, "--json (the metrics are fields of each row)" },
	{ "--metric-no-group", 0, "-e with the events listed without braces" },
	{ "--metric-no-merge", 0, "-M NAME for each metric" },
	{ "--smi-cost", 0, "pbench jitter (what took each CPU)" },
	{ "--bpf-counters", 0, "the default (perf_event_open per row)" },
	{ "--bpf-attr-map", 1, "the default (perf_event_open per row)" },
	{ "--no-inherit", 0, "-t TID (those threads only)" },
	{ "--scale", 0, "nothing: counts are always scaled, and marked when they are" },
	{ "--big-num", 0, "nothing: the text has thousands separators" },
	{ "--no-big-num", 0, "-x SEP (plain numbers)" },
	{ "--delay", 1, "--warmup-ms, or --prepare CMD" },
	{ "--null", 0, "pbench stat -e task-clock -- CMD (the time is always measured)" },
	{ "--pre", 1, "--setup CMD (before all runs) or --prepare CMD (before each)" },
	{ "--post", 1, "--cleanup CMD" },
	{ "--sync", 0, "nothing: pbench does not sync before runs" },
	{ "--log-fd", 1, "-o FILE" },
	{ "--interval-count", 1, "--duration SECONDS with -I" },
	{ "--interval-clear", 0, "-I (lines are appended)" },
	{ "--all-kernel", 0, "-e EVENT:k" },
	{ "--all-user", 0, "-e EVENT:u" },
	{ "--percore-show-thread", 0, "-A (per CPU)" },
	{ "--table", 0, "--json or --csv (every run)" },
	{ "--control", 1, "Ctrl-C, or --duration SECONDS" },
	{ "--iostat", 0, "iostat(1)" },
	{ "--msr-file", 1, "nothing: no MSR access" },
	{ "-T", 0, "-e with the events listed" },
	{ "-n", 0, "pbench stat -e task-clock -- CMD" },
	{ "-S", 0, "nothing: pbench does not sync before runs" },
	{ "-c", 0, "nothing: counts are always scaled" },
	{ "-B", 0, "nothing: the text has thousands separators" },
	{ "-j", 0, "--json" },
	{ "-b", 1, "nothing: no BPF program counting" },
	{ "-u", 1, "-p PID of the processes of that user" },
	{ "-v", 0, "--json (every run's values and their status)" },
};

/* ---- the hook ----------------------------------------------------------------------------- */

static const char *const ours[] = {
	"-p", "--pid", "-t", "--tid", "-a", "--all-cpus", "-C", "-G", "--cgroup", "-A",
	"--no-aggr", "--per-core", "--per-socket", "--per-node", "--per-thread", "-x",
	"--field-separator", "-o", "--output", "--append", "-d", "-dd", "-ddd", "--detailed",
	"--brief", "--duration",
};

/* The word names option o, alone or with its argument attached (-p123, -x, --pid=1). */
static int names(const char *w, const char *o)
{
	size_t n = strlen(o);

	if (strncmp(w, o, n))
		return 0;
	return !w[n] || (o[1] == '-' ? w[n] == '=' : !strcmp(o, "-p") || !strcmp(o, "-t") ||
			 !strcmp(o, "-C") || !strcmp(o, "-G") || !strcmp(o, "-x") ||
			 !strcmp(o, "-o"));
}

/* Stat's own options that take an argument in the next word (so that it is skipped). */
static int takes_arg(const char *w)
{
	static const char *const a[] = { "-e", "-M", "-r", "-I", "--events", "--metrics",
		"--metric", "--mode", "--cpu", "--warmup-ms", "--timeout", "--max-time",
		"--warmup", "--setup", "--prepare", "--cleanup", "--workload", "--iterations",
		"--record", "--history", "--commit", "--runs", "--repeat", "--target-sem",
		"--annotate", "--interval", "--export-json", "--export-csv", "--export-markdown",
		"--plot", "--profile-freq", "--profile-event", "--call-graph", "--profile-top",
		"--debug-dir", "--export-folded", "-D", "--parameter-step-size", "--geom" };

	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		if (!strcmp(w, a[i]))
			return 1;
	/* a scan's -P NAME MIN MAX and -L NAME A,B,C (scan.c) */
	if (!strcmp(w, "-P") || !strcmp(w, "--parameter-scan"))
		return 3;
	if (!strcmp(w, "-L") || !strcmp(w, "--parameter-list"))
		return 2;
	return 0;
}

int stat_targets_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			if (names(argv[i], ours[k]))
				return 1;
		for (size_t k = 0; k < sizeof(perf_only) / sizeof(perf_only[0]); k++)
			if (names(argv[i], perf_only[k].opt))
				return 1;
		/* --repeat is perf's --runs, --topdown its -M topdown: aliases, in place */
		if (!strcmp(argv[i], "--repeat"))
			argv[i] = (char *)"--runs";
		else if (!strcmp(argv[i], "--topdown"))
			argv[i] = (char *)"--metrics=topdown";
		else if (!strncmp(argv[i], "--repeat=", 9)) {
			static char runs[64];

			snprintf(runs, sizeof(runs), "--runs=%s", argv[i] + 9);
			argv[i] = runs;
		}
		i += takes_arg(argv[i]);
	}
	return 0;
}

static int refuse_perf_only(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		for (size_t k = 0; k < sizeof(perf_only) / sizeof(perf_only[0]); k++)
			if (names(argv[i], perf_only[k].opt)) {
				cli_error("perf stat's %s is not one of pbench stat's options: use "
					  "%s (kmod-free-docs/targets.md has the table)",
					  perf_only[k].opt, perf_only[k].instead);
				return 1;
			}
	return 0;
}

/* ---- options ------------------------------------------------------------------------------ */

enum { O_PER_CORE = 0x4300, O_PER_SOCKET, O_PER_NODE, O_PER_THREAD, O_APPEND, O_BRIEF,
       O_DURATION, O_JSON, O_CSV, O_MD };

static int set_target(struct st *s, int kind, const char *list)
{
	if (s->has_target) {
		cli_error("one target at a time: -p, -t, -a, -C or -G");
		return -1;
	}
	s->has_target = 1;
	s->kind = kind;
	s->list = list;
	return 0;
}

static int add_events(struct st *s, const char *arg)
{
	size_t n = s->events ? strlen(s->events) + 1 : 0;
	char *p = realloc(s->events, n + strlen(arg) + 1);

	if (!p)
		return -1;
	if (n)
		p[n - 1] = ',';
	strcpy(p + n, arg);
	s->events = p;
	return 0;
}

static int one_option(struct st *s, int c, const char *arg)
{
	double x;

	switch (c) {
	case 'p': return set_target(s, PBENCH_TARGET_PIDS, arg);
	case 't': return set_target(s, PBENCH_TARGET_TIDS, arg);
	case 'a': return s->has_target && s->kind == PBENCH_TARGET_CGROUP ? 0 :
			 set_target(s, PBENCH_TARGET_CPUS, NULL);
	case 'C': return set_target(s, PBENCH_TARGET_CPUS, arg);
	case 'G':
		if (s->has_target && s->kind == PBENCH_TARGET_CPUS && !s->list)
			s->has_target = 0;	/* -a -G: perf's way of saying it */
		return set_target(s, PBENCH_TARGET_CGROUP, arg);
	case 'A': s->aggr = AGGR_CPU; return 0;
	case O_PER_CORE: s->aggr = AGGR_CORE; return 0;
	case O_PER_SOCKET: s->aggr = AGGR_SOCKET; return 0;
	case O_PER_NODE: s->aggr = AGGR_NODE; return 0;
	case O_PER_THREAD: s->aggr = AGGR_THREAD; return 0;
	case 'x': s->sep = arg; return 0;
	case 'o': s->outfile = arg; return 0;
	case O_APPEND: s->append = 1; return 0;
	case O_BRIEF: s->brief = 1; return 0;
	case 'd': s->detail++; return 0;
	case 'e': return add_events(s, arg);
	case O_JSON: s->fmt = FMT_JSON; return 0;
	case O_CSV: s->fmt = FMT_CSV; return 0;
	case O_MD: s->fmt = FMT_MD; return 0;
	case 'r': return cli_long("-r", "run count", arg, 1, MAX_RUNS, &s->runs);
	case 'I': return cli_number("-I", "interval (ms)", arg, 10, 864e5, 0, &s->interval_ms);
	case O_DURATION:
		if (cli_number("--duration", "duration (s)", arg, 0, 864e3, CLI_NUM_POSITIVE, &x))
			return -1;
		s->duration_s = x;
		return 0;
	}
	return 1;
}

static void targets_usage(FILE *f)
{
	fputs("usage: pbench stat (-p PID[,PID] | -t TID | -a | -C LIST | -G CGROUP) [options]"
	      " [--duration S | -- CMD ARGS...]\n"
	      "       pbench stat [-x SEP | -o FILE | --brief | -d] [options] -- CMD ARGS...\n\n"
	      "  -p, --pid LIST      count running processes (every thread, their children)\n"
	      "  -t, --tid LIST      count running threads\n"
	      "  -a, --all-cpus      count the whole machine\n"
	      "  -C LIST             count these CPUs (perf's -C; pbench's --cpu pins a run)\n"
	      "  -G, --cgroup NAME   count a cgroup v2's tasks (under /sys/fs/cgroup)\n"
	      "  --duration S        count for S seconds (default: until Ctrl-C or the targets "
	      "end)\n"
	      "  -A, --no-aggr       a row per CPU; --per-core, --per-socket, --per-node,\n"
	      "                      --per-thread: a row per core, socket, node, thread\n"
	      "  -I MS               a line per interval\n"
	      "  -r, --runs, --repeat N   windows (runs of CMD) to count\n"
	      "  -e, --events LIST   events; -d/-dd/-ddd add perf's detailed sets\n"
	      "  -x SEP              perf stat's field-separated lines\n"
	      "  -o, --output FILE   the report to FILE; --append adds to it\n"
	      "  --brief             the counter block and the time elapsed\n"
	      "  --json, --csv, --markdown   the rows in that format\n"
	      "kmod-free-docs/targets.md: perf stat's options and pbench's.\n", f);
}

static int parse(int argc, char **argv, struct st *s)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' }, { "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' }, { "cgroup", required_argument, NULL, 'G' },
		{ "no-aggr", no_argument, NULL, 'A' }, { "per-core", no_argument, NULL, O_PER_CORE },
		{ "per-socket", no_argument, NULL, O_PER_SOCKET },
		{ "per-node", no_argument, NULL, O_PER_NODE },
		{ "per-thread", no_argument, NULL, O_PER_THREAD },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' }, { "append", no_argument, NULL, O_APPEND },
		{ "brief", no_argument, NULL, O_BRIEF }, { "detailed", no_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'e' }, { "runs", required_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'I' },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "json", no_argument, NULL, O_JSON }, { "csv", no_argument, NULL, O_CSV },
		{ "markdown", no_argument, NULL, O_MD }, { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:t:aC:G:Ax:o:r:de:I:h", opts, NULL)) != -1) {
		if (c == 'h') {
			targets_usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			cli_error("%s '%s' with the targets or perf's formats (-p, -t, -a, -C, -G, "
				  "-A, -x, -o, --brief, -d): see pbench stat -a -h", c == ':' ?
				  "missing argument for" : "pbench stat does not take",
				  argv[optind - 1]);
			return -1;
		}
		rc = one_option(s, c, optarg);
		if (rc)
			return -1;
	}
	if (optind < argc)
		s->argv = argv + optind;
	return 0;
}

static int check_combination(struct st *s)
{
	if (!s->has_target && !s->argv) {
		cli_error("nothing to count: give a target (-p PID, -t TID, -a, -C LIST, -G CGROUP)"
			  " or a command after --");
		return -1;
	}
	if (s->aggr == AGGR_THREAD && !(s->has_target && (s->kind == PBENCH_TARGET_PIDS ||
							  s->kind == PBENCH_TARGET_TIDS))) {
		cli_error("--per-thread splits -p or -t: give the processes or threads");
		return -1;
	}
	if (s->aggr >= AGGR_CPU && s->aggr <= AGGR_NODE && !(s->has_target &&
		(s->kind == PBENCH_TARGET_CPUS || s->kind == PBENCH_TARGET_CGROUP))) {
		cli_error("-A, --per-core, --per-socket and --per-node split CPUs: give -a, "
			  "-C LIST or -G CGROUP (as perf stat asks)");
		return -1;
	}
	if (s->append && !s->outfile) {
		cli_error("--append adds to the file of -o FILE: give -o");
		return -1;
	}
	if (s->sep && s->fmt != FMT_TEXT) {
		cli_error("-x writes perf's lines: drop --json, --csv or --markdown, or -x");
		return -1;
	}
	if (s->interval_ms > 0 && !s->has_target) {
		cli_error("-I with perf's formats counts targets (-p, -t, -a, -C, -G); for a command "
			  "alone, pbench stat -I MS -- CMD (without -x, -o, --brief, -d)");
		return -1;
	}
	if (s->interval_ms > 0 && s->runs > 1) {
		cli_error("-I with -r: perf stat takes one of them; give -I alone");
		return -1;
	}
	return 0;
}

/* ---- events ------------------------------------------------------------------------------- */

#define HW_EVENTS "cycles,instructions,branches,branch-misses"
static const char *const detailed[] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	"L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses",
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

/* perf stat's defaults: cpu-clock for CPUs and cgroups, task-clock for tasks and a command;
 * -d, -dd, -ddd add the detailed sets. */
static int default_events(struct st *s)
{
	int cpu_wide = s->has_target && (s->kind == PBENCH_TARGET_CPUS ||
					  s->kind == PBENCH_TARGET_CGROUP);

	if (!s->events && (add_events(s, cpu_wide ? "cpu-clock" : "task-clock") ||
			   add_events(s, "context-switches,cpu-migrations,page-faults," HW_EVENTS)))
		return -1;
	for (int d = 0; d < s->detail && d < 3; d++)
		if (add_events(s, detailed[d]))
			return -1;
	return 0;
}

static int is_clock(const char *ev)
{
	return !strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock");
}

/* ---- aggregation -------------------------------------------------------------------------- */

static void group_name(const struct st *s, const struct pbench_target_row *r, char *buf,
		       size_t len)
{
	switch (s->aggr) {
	case AGGR_CPU: snprintf(buf, len, "CPU%d", r->cpu); break;
	case AGGR_CORE: snprintf(buf, len, "S%d-D%d-C%d", r->socket, r->die, r->core); break;
	case AGGR_SOCKET: snprintf(buf, len, "S%d", r->socket); break;
	case AGGR_NODE: snprintf(buf, len, "N%d", r->node); break;
	case AGGR_THREAD: snprintf(buf, len, "%s-%d", r->comm, (int)r->tid); break;
	default: buf[0] = 0;
	}
}

static int find_group(struct st *s, const char *name)
{
	for (int k = 0; k < s->ngroups; k++)
		if (!strcmp(s->g[k].name, name))
			return k;
	if (s->ngroups == MAX_GROUPS)
		return -1;
	snprintf(s->g[s->ngroups].name, sizeof(s->g[0].name), "%s", name);
	s->g[s->ngroups].v = calloc((size_t)MAX_RUNS * (size_t)s->nev, sizeof(double));
	return s->g[s->ngroups].v ? s->ngroups++ : -1;
}

/* Row r's group, made the first time (in the order of the rows). */
static int row_group(struct st *s, const struct pbench_target *t, int r)
{
	struct pbench_target_row row = { .size = sizeof(row) };
	char name[64];
	int k;

	if (t && pbench_target_row(t, r, &row))
		return -1;
	if (t)
		group_name(s, &row, name, sizeof(name));
	else
		name[0] = 0;
	k = find_group(s, name);
	return k;
}

/* One count into run's values of group k. */
static void add_count(struct st *s, int k, int run, int e, const struct pbench_count *c)
{
	struct group *g = &s->g[k];
	int counted = c->status == PBENCH_EVENT_OK || c->status == PBENCH_EVENT_MULTIPLEXED;

	if (counted) {
		g->v[run * s->nev + e] += c->scaled;
		g->run_ns[e] += (double)c->time_running;
		g->ena_ns[e] += (double)c->time_enabled;
	}
	if (counted)
		g->status[e] = 1;
	else if (!g->status[e])
		g->status[e] = c->status + 2;
}

static int collect_target(struct st *s, const struct pbench_target *t, int run)
{
	int rows = pbench_target_nr_rows(t);

	for (int r = 0; r < rows; r++) {
		int k = row_group(s, t, r);

		if (k < 0)
			return -1;
		for (int e = 0; e < s->nev; e++) {
			struct pbench_count c = { .size = sizeof(c) };

			if (!pbench_target_get(t, r, e, &c))
				add_count(s, k, run, e, &c);
		}
	}
	return 0;
}

static int collect_child(struct st *s, const struct pbench_child *ch, int run)
{
	int k = row_group(s, NULL, 0);

	if (k < 0)
		return -1;
	s->g[k].cpus = 1;
	for (int e = 0; e < s->nev; e++) {
		struct pbench_count c = { .size = sizeof(c) };

		if (!pbench_child_count(ch, e, &c))
			add_count(s, k, run, e, &c);
	}
	return 0;
}

/* ---- the numbers of a line ---------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The mean of n values and its standard error in % of it (NaN below 2 values, or a mean of 0),
 * by the library's summary (the same SEM as every +- pbench prints). */
static double mean_sem(const double *x, int n, double *sem_pct)
{
	struct pbench_summary m = { .size = sizeof(m) };

	*sem_pct = NAN;
	if (n < 1 || pbench_stats_summary(x, (size_t)n, NULL, &m))
		return NAN;
	if (n > 1 && m.mean != 0)
		*sem_pct = 100.0 * m.sem / m.mean;
	return m.mean;
}

/* Mean over the runs of group k's event e, and its standard error in % of it (NaN below 2). */
static double mean_of(const struct st *s, int k, int e, double *sem_pct)
{
	double *x = malloc((size_t)(s->done > 0 ? s->done : 1) * sizeof(*x)), m;

	if (!x) {
		*sem_pct = NAN;
		return NAN;
	}
	for (int r = 0; r < s->done; r++)
		x[r] = s->g[k].v[r * s->nev + e];
	m = mean_sem(x, s->done, sem_pct);
	free(x);
	return m;
}

static double mean_elapsed(const struct st *s, double *sem_pct)
{
	return mean_sem(s->elapsed, s->done, sem_pct);
}

static int find_event(const struct st *s, const char *name)
{
	for (int e = 0; e < s->nev; e++)
		if (!strcmp(s->evname[e], name))
			return e;
	return -1;
}

/* perf stat's metric beside event e of values v (one group's, the means): CPUs utilized, a
 * rate per second of the clock, insn per cycle, % of all branches. 0: none. */
static int metric(const struct st *s, const double *v, int e, double elapsed_s, double *m,
		  const char **unit)
{
	int clk = find_event(s, "cpu-clock") >= 0 ? find_event(s, "cpu-clock") :
		  find_event(s, "task-clock");
	int cyc = find_event(s, "cycles"), br = find_event(s, "branches");
	const char *ev = s->evname[e];

	if (is_clock(ev)) {
		*m = v[e] / 1e9 / elapsed_s;
		*unit = "CPUs utilized";
	} else if (!strcmp(ev, "instructions") && cyc >= 0 && v[cyc] > 0) {
		*m = v[e] / v[cyc];
		*unit = "insn per cycle";
	} else if (!strcmp(ev, "branch-misses") && br >= 0 && v[br] > 0) {
		*m = 100.0 * v[e] / v[br];
		*unit = "of all branches";
	} else if (clk >= 0 && v[clk] > 0 && e != clk) {
		*m = v[e] / (v[clk] / 1e9);
		*unit = *m >= 1e9 ? (*m /= 1e9, "G/sec") : *m >= 1e6 ? (*m /= 1e6, "M/sec") :
			*m >= 1e3 ? (*m /= 1e3, "K/sec") : "/sec";
	} else {
		return 0;
	}
	return isfinite(*m);
}

/* The value as perf writes it: msec with 2 decimals for a clock, else a whole count;
 * grouped in thousands for the text. */
static void value_text(char *buf, size_t len, double v, int clock, int group)
{
	char raw[64];
	int n, lead, o = 0;
	const char *dot;

	snprintf(raw, sizeof(raw), clock ? "%.2f" : "%.0f", clock ? v / 1e6 : v);
	if (!group) {
		snprintf(buf, len, "%s", raw);
		return;
	}
	dot = strchr(raw, '.');
	n = dot ? (int)(dot - raw) : (int)strlen(raw);
	lead = n % 3 ? n % 3 : 3;
	for (int i = 0; raw[i] && o + 2 < (int)len; i++) {
		if (i < n && i > 0 && (i - lead) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = 0;
}

/* ---- writers ------------------------------------------------------------------------------ */

static const char *not_counted(int status)
{
	return status == PBENCH_EVENT_NOT_SUPPORTED + 2 ? "<not supported>" : "<not counted>";
}

/* The row's prefix as perf writes it: "CPU0", "S0-D0-C0,1", "S0,2", "N0,2", "comm-tid". */
static void prefix(const struct st *s, int k, const char *sep, FILE *f)
{
	if (s->aggr == AGGR_GLOBAL)
		return;
	fprintf(f, "%s%s", s->g[k].name, sep);
	if (s->aggr >= AGGR_CORE && s->aggr <= AGGR_NODE)
		fprintf(f, "%d%s", s->g[k].cpus, sep);
}

/* One event of group k, from values v (means, or an interval's), as -x's fields. */
static void line_x(const struct st *s, int k, int e, const double *v, double sem_pct,
		   double elapsed_s, FILE *f)
{
	const char *x = s->sep, *unit = "";
	const struct group *g = &s->g[k];
	char val[64];
	double m;

	prefix(s, k, x, f);
	if (g->status[e] != 1) {
		fprintf(f, "%s%s%s%s%s%s", not_counted(g->status[e]), x,
			is_clock(s->evname[e]) ? "msec" : "", x, s->evname[e], x);
		if (s->kind == PBENCH_TARGET_CGROUP && s->has_target)
			fprintf(f, "%s%s", s->list, x);
		if (s->runs > 1)
			fprintf(f, "0.00%%%s", x);
		fprintf(f, "0%s100.00%s%s\n", x, x, x);
		return;
	}
	value_text(val, sizeof(val), v[e], is_clock(s->evname[e]), 0);
	fprintf(f, "%s%s%s%s%s%s", val, x, is_clock(s->evname[e]) ? "msec" : "", x,
		s->evname[e], x);
	if (s->kind == PBENCH_TARGET_CGROUP && s->has_target)	/* perf's cgroup field */
		fprintf(f, "%s%s", s->list, x);
	if (s->runs > 1)
		fprintf(f, "%.2f%%%s", isfinite(sem_pct) ? sem_pct : 0.0, x);
	fprintf(f, "%.0f%s%.2f%s", g->run_ns[e] / (s->done ? s->done : 1), x,
		g->ena_ns[e] > 0 ? 100.0 * g->run_ns[e] / g->ena_ns[e] : 100.0, x);
	if (metric(s, v, e, elapsed_s, &m, &unit))
		fprintf(f, "%.3f%s%s\n", m, x, unit);
	else
		fprintf(f, "%s\n", x);
}

static void line_text(const struct st *s, int k, int e, const double *v, double sem_pct,
		      double elapsed_s, FILE *f)
{
	const struct group *g = &s->g[k];
	const char *unit = "";
	char val[64], mt[64] = "";
	double m;

	if (s->aggr == AGGR_CPU || s->aggr == AGGR_THREAD)
		fprintf(f, "%-16s", g->name);
	else if (s->aggr != AGGR_GLOBAL)
		fprintf(f, "%-12s %4d ", g->name, g->cpus);
	if (g->status[e] != 1) {
		fprintf(f, "%18s      %s\n", not_counted(g->status[e]), s->evname[e]);
		return;
	}
	value_text(val, sizeof(val), v[e], is_clock(s->evname[e]), 1);
	if (metric(s, v, e, elapsed_s, &m, &unit))
		snprintf(mt, sizeof(mt), "# %8.3f %-20s", m, unit);
	fprintf(f, "%18s %-5s%-32s %s", val, is_clock(s->evname[e]) ? "msec" : "",
		s->evname[e], mt);
	if (s->runs > 1 && isfinite(sem_pct))
		fprintf(f, "%s( +- %5.2f%% )", *mt ? "" : "                                ",
			sem_pct);
	fputc('\n', f);
}

static void means(const struct st *s, int k, double *v, double *sem)
{
	for (int e = 0; e < s->nev; e++)
		v[e] = mean_of(s, k, e, &sem[e]);
}

static void target_words(const struct st *s, char *buf, size_t len)
{
	if (!s->has_target) {
		size_t o = (size_t)snprintf(buf, len, "'");

		for (int i = 0; s->argv[i] && o + 2 < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", s->argv[i]);
		snprintf(buf + (o < len ? o : len - 1), len - (o < len ? o : len - 1), "'");
	} else if (s->kind == PBENCH_TARGET_PIDS) {
		snprintf(buf, len, "process id '%s'", s->list);
	} else if (s->kind == PBENCH_TARGET_TIDS) {
		snprintf(buf, len, "thread id '%s'", s->list);
	} else if (s->kind == PBENCH_TARGET_CGROUP) {
		snprintf(buf, len, "'system wide' (cgroup %s)", s->list);
	} else if (s->list) {
		snprintf(buf, len, "'CPU(s) %s'", s->list);
	} else {
		snprintf(buf, len, "'system wide'");
	}
}

static void write_text(const struct st *s, FILE *f)
{
	double v[MAX_EV], sem[MAX_EV], esem, el = mean_elapsed(s, &esem);
	char who[512];

	target_words(s, who, sizeof(who));
	if (!s->brief) {
		fprintf(f, "\n Performance counter stats for %s", who);
		if (s->runs > 1)
			fprintf(f, " (%d runs)", s->done);
		fprintf(f, ":\n\n");
	}
	for (int e = 0; e < s->nev; e++)
		for (int k = 0; k < s->ngroups; k++) {
			means(s, k, v, sem);
			line_text(s, k, e, v, sem[e], el, f);
		}
	stat_irq_write(s->irq, STAT_IRQ_TEXT, NULL, 0, 1, f);
	fprintf(f, "%s%17.9f seconds time elapsed", s->brief ? "" : "\n", el);
	if (s->done > 1 && isfinite(esem))
		fprintf(f, "                                          ( +- %5.2f%% )", esem);
	fprintf(f, "\n%s", s->brief ? "" : "\n");
}

static void write_x(const struct st *s, FILE *f)
{
	double v[MAX_EV], sem[MAX_EV], esem, el = mean_elapsed(s, &esem);

	for (int e = 0; e < s->nev; e++)
		for (int k = 0; k < s->ngroups; k++) {
			means(s, k, v, sem);
			line_x(s, k, e, v, sem[e], el, f);
		}
	stat_irq_write(s->irq, 0, s->sep, s->runs > 1, 1, f);
}

/* A number with prec digits ('g' or 'f'), or none when ok is 0. */
static void num(FILE *f, int ok, double v, char how, int prec, const char *none)
{
	if (!ok)
		fputs(none, f);
	else if (how == 'g')
		fprintf(f, "%.*g", prec, v);
	else
		fprintf(f, "%.*f", prec, v);
}

/* The head of the JSON, CSV or Markdown; with -I (iv) each record has its time_s first. */
static void table_head(const struct st *s, double el, int iv, FILE *f)
{
	char who[512];

	target_words(s, who, sizeof(who));
	if (s->fmt == FMT_JSON) {
		fprintf(f, "{\"target\": \"");
		for (const char *p = who; *p; p++)
			fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
		if (iv)
			fprintf(f, "\", \"interval_ms\": %g, \"intervals\": [", s->interval_ms);
		else
			fprintf(f, "\", \"runs\": %d, \"elapsed_s\": %.9f, \"ended\": %s, \"rows\": [",
				s->done, el, s->ended ? "true" : "false");
	} else if (s->fmt == FMT_CSV) {
		fprintf(f, "%srow,cpus,event,value,unit,running_pct,sem_pct,metric,metric_unit\n",
			iv ? "time_s," : "");
	} else {
		fprintf(f, "|%s row | CPUs | event | value | unit | running | +- | metric | |\n"
			"|%s---|---:|---|---:|---|---:|---:|---:|---|\n", iv ? " time (s) |" : "",
			iv ? "---:|" : "");
	}
}

/* One record: group k's event e from values v (means or an interval's), its +- sem, over
 * el seconds; t_s the interval's time (NaN: none); first: the JSON's first record. */
static void record(const struct st *s, int k, int e, const double *v, double sem, double el,
		   double t_s, int first, FILE *f)
{
	const struct group *g = &s->g[k];
	const char *unit = "", *vu = is_clock(s->evname[e]) ? "msec" : "";
	double m = NAN, val = is_clock(s->evname[e]) ? v[e] / 1e6 : v[e];
	double run = g->ena_ns[e] > 0 ? 100.0 * g->run_ns[e] / g->ena_ns[e] : NAN;
	int ok = g->status[e] == 1, has = ok && metric(s, v, e, el, &m, &unit);
	const char *x = s->fmt == FMT_CSV ? "," : " | ";

	if (s->fmt == FMT_JSON) {
		fprintf(f, "%s\n  {", first ? "" : ",");
		if (isfinite(t_s))
			fprintf(f, "\"time_s\": %.9f, ", t_s);
		fprintf(f, "\"row\": \"%s\", \"cpus\": %d, \"event\": \"%s\", \"value\": ",
			g->name, g->cpus, s->evname[e]);
		num(f, ok, val, 'g', 6, "null");
		fprintf(f, ", \"unit\": \"%s\", \"status\": \"%s\", \"sem_pct\": ", vu,
			ok ? "counted" : not_counted(g->status[e]));
		num(f, isfinite(sem), sem, 'f', 4, "null");
		fprintf(f, ", \"metric\": ");
		num(f, has, m, 'g', 6, "null");
		fprintf(f, ", \"metric_unit\": \"%s\"}", unit);
		return;
	}
	fprintf(f, "%s", s->fmt == FMT_MD ? "| " : "");
	if (isfinite(t_s))
		fprintf(f, "%.9f%s", t_s, x);
	fprintf(f, "%s%s%d%s%s%s", g->name, x, g->cpus, x, s->evname[e], x);
	num(f, ok, val, 'g', 6, ok ? "" : not_counted(g->status[e]));
	fprintf(f, "%s%s%s", x, vu, x);
	num(f, isfinite(run), run, 'f', 2, "");
	fprintf(f, "%s", x);
	num(f, isfinite(sem), sem, 'f', 2, "");
	fprintf(f, "%s", x);
	num(f, has, m, 'f', 3, "");
	fprintf(f, "%s%s%s\n", x, unit, s->fmt == FMT_MD ? " |" : "");
}

/* JSON, CSV or Markdown: a record per row and event, with the metric and the +-. */
static void write_table(const struct st *s, FILE *f)
{
	double v[MAX_EV], sem[MAX_EV], esem, el = mean_elapsed(s, &esem);
	int first = 1;

	table_head(s, el, 0, f);
	for (int k = 0; k < s->ngroups; k++) {
		means(s, k, v, sem);
		for (int e = 0; e < s->nev; e++, first = 0)
			record(s, k, e, v, sem[e], el, NAN, first, f);
	}
	stat_irq_write(s->irq, s->fmt == FMT_JSON ? STAT_IRQ_JSON : s->fmt == FMT_CSV ?
		       STAT_IRQ_CSV : STAT_IRQ_MD, NULL, 0, first, f);
	if (s->fmt == FMT_JSON)
		fprintf(f, "\n]}\n");
}

/* ---- counting ----------------------------------------------------------------------------- */

/* The groups in the order of the rows, each with its CPUs (or threads). */
static int make_groups(struct st *s, const struct pbench_target *t)
{
	int rows = t ? pbench_target_nr_rows(t) : 1;

	for (int r = 0; r < rows; r++) {
		int k = row_group(s, t, r);

		if (k < 0)
			return -1;
		s->g[k].cpus++;
	}
	return 0;
}

static void zero_times(struct st *s)
{
	for (int k = 0; k < s->ngroups; k++)
		for (int e = 0; e < s->nev; e++) {
			s->g[k].run_ns[e] = s->g[k].ena_ns[e] = 0;
			s->g[k].v[e] = 0;
		}
}

/* -I: what each group counted since the last line, at t_s seconds from the start. */
static void interval(struct st *s, struct pbench_target *t, double t_s, double len_s)
{
	double d[MAX_EV], save = s->runs;

	pbench_target_read(t);
	zero_times(s);
	collect_target(s, t, 0);
	s->done = 1;
	for (int e = 0; e < s->nev; e++)
		for (int k = 0; k < s->ngroups; k++) {
			struct group *g = &s->g[k];

			for (int j = 0; j < s->nev; j++)
				d[j] = g->v[j] - g->prev[j];
			double run = g->run_ns[e], ena = g->ena_ns[e];

			g->run_ns[e] = run - g->prev_run[e];
			g->ena_ns[e] = ena - g->prev_ena[e];
			if (s->fmt != FMT_TEXT) {
				record(s, k, e, d, NAN, len_s, t_s, !s->iv_lines++, s->f);
			} else {
				fprintf(s->f, s->sep ? "%16.9f%s" : "%16.9f%s ", t_s,
					s->sep ? s->sep : "");
				if (s->sep)
					line_x(s, k, e, d, NAN, len_s, s->f);
				else
					line_text(s, k, e, d, NAN, len_s, s->f);
			}
			g->run_ns[e] = run, g->ena_ns[e] = ena;
		}
	for (int k = 0; k < s->ngroups; k++)
		for (int e = 0; e < s->nev; e++) {
			s->g[k].prev[e] = s->g[k].v[e];
			s->g[k].prev_run[e] = s->g[k].run_ns[e];
			s->g[k].prev_ena[e] = s->g[k].ena_ns[e];
		}
	s->runs = (long)save;
	fflush(s->f);
}

/* A window on the targets: --duration, Ctrl-C, or until the processes or threads end. */
static void window(struct st *s, struct pbench_target *t, int run)
{
	double t0 = now_s(), last = t0, now = t0, nap_s;
	int tasks = s->kind == PBENCH_TARGET_PIDS || s->kind == PBENCH_TARGET_TIDS;

	/* pbench wakes as seldom as it can (each wake-up is a context switch on the CPUs
	 * counted): at the end, at each -I line, and for processes every 100 ms to see if they
	 * ended; Ctrl-C ends the nap (EINTR). */
	for (;;) {
		nap_s = s->duration_s > 0 ? t0 + s->duration_s - now : 3600;
		if (s->interval_ms > 0 && last + s->interval_ms / 1e3 - now < nap_s)
			nap_s = last + s->interval_ms / 1e3 - now;
		if (tasks && nap_s > 0.1)
			nap_s = 0.1;
		if (nap_s > 0) {
			struct timespec nap = { (time_t)nap_s,
						(long)((nap_s - (double)(time_t)nap_s) * 1e9) };

			nanosleep(&nap, NULL);
		}
		now = now_s();
		if (s->interval_ms > 0 && (now - last) * 1e3 >= s->interval_ms - 1e-3) {
			interval(s, t, now - t0, now - last);
			last = now;
		}
		if (*cli_stop || (s->duration_s > 0 && now - t0 >= s->duration_s))
			break;
		if (!pbench_target_alive(t)) {
			s->ended = 1;
			break;
		}
	}
	pbench_target_disable(t);
	stat_irq_end(s->irq);
	now = now_s();
	if (s->interval_ms > 0 && now - last > 1e-3)
		interval(s, t, now - t0, now - last);
	s->elapsed[run] = now - t0;
}

/* Until the command ends (not reaped), with -I's lines meanwhile; the target disabled then. */
static void wait_intervals(struct st *s, struct pbench_target *t, struct pbench_child *ch,
			   double t0)
{
	double iv = s->interval_ms / 1e3, now;
	int err;

	s->iv_last = t0;
	for (;;) {
		err = pbench_child_wait_any(&ch, 1, iv > 0 ? s->iv_last + iv - now_s() : 0);
		if (err == -ETIMEDOUT) {
			now = now_s();
			interval(s, t, now - t0, now - s->iv_last);
			s->iv_last = now;
			continue;
		}
		if (err != -EINTR || *cli_stop)
			break;
	}
	pbench_target_disable(t);
	stat_irq_end(s->irq);
}

/* One run of the command: counted by its own set (no target), or the target's during it. */
static int run_child(struct st *s, struct pbench_target *t, int run)
{
	struct pbench_child_opts co = PBENCH_CHILD_OPTS_INIT;
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch = NULL;
	char why[4500];
	double t0 = 0, t1 = 0;
	int err;

	co.events = t ? NULL : s->events;
	co.counter_flags = PBENCH_COUNTERS_QUIET;
	err = pbench_child_start(&ch, s->argv, &co);
	if (!err && t)
		err = pbench_target_enable(t);	/* from the command's release, as perf */
	if (!err && t)
		stat_irq_begin(s->irq);
	t0 = now_s();
	if (err) {
		if (pbench_command_explain(s->argv[0], err, why, sizeof(why)) == 1)
			cli_error("%s", why);
		else
			cli_error("cannot start %s: %s", s->argv[0], pbench_strerror(err));
		return EXIT_USAGE;
	}
	/* the target's count ends when the command does, before its leftovers are swept */
	if (t)
		wait_intervals(s, t, ch, t0);
	t1 = now_s();
	if (t && s->interval_ms > 0 && t1 - s->iv_last > 1e-3)
		interval(s, t, t1 - t0, t1 - s->iv_last);
	while ((err = pbench_child_wait(ch, &res)) == -EINTR && !*cli_stop)
		;
	/* the command's time from its release to its reaping; with a target, the window its
	 * counters were enabled (a late enable on a loaded machine is then not taken for idle
	 * CPUs) */
	s->elapsed[run] = t ? t1 - t0 : (double)res.ns * 1e-9;
	if (!err && !t)
		err = collect_child(s, ch, run) ? -ENOMEM : 0;
	if (!err && !(res.exited && !res.exit_status) && !s->child_rc++) {
		if (res.exited)
			cli_warn("%s exited with status %d (run %d): its counts are shown; exit 1",
				 s->argv[0], res.exit_status, run + 1);
		else
			cli_warn("%s was killed by signal %d (run %d): its counts are shown; exit 1",
				 s->argv[0], res.term_signal, run + 1);
	}
	pbench_child_free(ch);
	return err ? EXIT_RUNTIME : 0;
}

/* Each run after the first on counters opened afresh, as perf stat -r does: a group's
 * members stop counting after a disable and an enable of their group (seen on Linux 6.18
 * with context-switches under cpu-clock, raw syscalls too), so nothing is reused. */
static int reopen(struct st *s, struct pbench_target **t, int run)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	int err;

	if (run == 0)
		return 0;
	pbench_target_free(*t);
	*t = NULL;
	o.kind = s->kind;
	o.list = s->list;
	err = pbench_target_new(t, s->events, &o);
	if (!err && pbench_target_nr_rows(*t) != s->nrows) {
		cli_error("the target changed between runs (%d rows, then %d): give -r 1",
			  s->nrows, pbench_target_nr_rows(*t));
		return EXIT_RUNTIME;
	}
	if (err)
		cli_error("run %d: %s", run + 1, pbench_strerror(err));
	return err ? EXIT_RUNTIME : 0;
}

static int count_runs(struct st *s, struct pbench_target **tp)
{
	struct pbench_target *t;
	int rc;

	for (int run = 0; run < s->runs && !*cli_stop && !s->ended; run++) {
		if (*tp && (rc = reopen(s, tp, run)))
			return rc;
		t = *tp;
		if (t && !s->argv && pbench_target_enable(t)) {
			cli_error("cannot start the counters: %s", pbench_strerror(-EIO));
			return EXIT_RUNTIME;
		}
		if (t && !s->argv)
			stat_irq_begin(s->irq);
		if (s->argv) {
			if ((rc = run_child(s, t, run)))
				return rc;
		} else {
			window(s, t, run);
		}
		if (t) {
			pbench_target_read(t);
			if (s->interval_ms > 0)
				zero_times(s);
			for (int k = 0; k < s->ngroups; k++)
				for (int e = 0; e < s->nev; e++)
					s->g[k].v[run * s->nev + e] = 0;
			collect_target(s, t, run);
		}
		s->done = run + 1;
	}
	return 0;
}

/* A name kept for the life of the command (the probe set's go with it). */
static const char *keep_name(const char *name)
{
	static char names[MAX_EV][128];
	static int n;

	if (n == MAX_EV)
		return "?";
	snprintf(names[n], sizeof(names[n]), "%s", name ? name : "?");
	return names[n++];
}

/* The events' names (from the target's first row, or a probe set for a command). */
static int event_names(struct st *s, struct pbench_target *t)
{
	struct pbench_counters *c = NULL;
	int err = 0, n;

	if (t) {
		n = pbench_target_nr_events(t);
		for (int e = 0; e < n && e < MAX_EV; e++)
			s->evname[e] = keep_name(pbench_target_name(t, e));
		s->nev = n < MAX_EV ? n : MAX_EV;
		return 0;
	}
	err = pbench_counters_open(&c, s->events, NULL);
	if (err && err != -PBENCH_ENO_EVENTS) {
		pbench_counters_free(c);
		return err;
	}
	n = pbench_counters_nr(c);
	for (int e = 0; e < n && e < MAX_EV; e++)
		s->evname[e] = keep_name(pbench_counters_name(c, e));
	s->nev = n < MAX_EV ? n : MAX_EV;
	pbench_counters_free(c);
	return 0;
}

/* -d's sets where none of their events counts here: said once. */
static void detail_note(const struct st *s)
{
	int any = 0, asked = 0;

	for (int e = 0; s->detail && e < s->nev; e++)
		if (strstr(s->evname[e], "L1-") || strstr(s->evname[e], "LLC-") ||
		    strstr(s->evname[e], "TLB-")) {
			asked = 1;
			for (int k = 0; k < s->ngroups; k++)
				any |= s->g[k].status[e] == 1;
		}
	if (asked && !any)
		cli_warn("-d: this machine's PMU counts none of the detailed events (no hardware "
			 "PMU, or no cache events): they show as <not supported>");
}

static int targets_main(struct st *s, struct pbench_target **t)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	int err, rc;

	if (default_events(s))
		return EXIT_RUNTIME;
	o.kind = s->kind;
	o.list = s->list;
	if (s->has_target && (err = pbench_target_new(t, s->events, &o))) {
		if (cli_event_error(err))
			return EXIT_USAGE;
		cli_error("%s", pbench_strerror(err));
		return EXIT_USAGE;
	}
	if ((err = event_names(s, *t))) {
		return cli_event_error(err) ? EXIT_USAGE : (cli_error("%s", pbench_strerror(err)),
							     EXIT_RUNTIME);
	}
	s->g = calloc(MAX_GROUPS, sizeof(*s->g));
	if (!s->g || make_groups(s, *t))
		return EXIT_RUNTIME;
	if (s->outfile && !(s->f = fopen(s->outfile, s->append ? "a" : "w"))) {
		cli_error("-o %s: %s", s->outfile, strerror(errno));
		return EXIT_USAGE;
	}
	if (!s->f)
		s->f = stdout;
	s->nrows = *t ? pbench_target_nr_rows(*t) : 1;
	if (s->aggr == AGGR_CPU && *t && s->kind == PBENCH_TARGET_CPUS && !(s->interval_ms > 0))
		s->irq = stat_irq_new(*t);	/* issue 39: who took each CPU, as jitter says */
	if (s->interval_ms > 0 && s->fmt != FMT_TEXT)
		table_head(s, NAN, 1, s->f);
	rc = count_runs(s, t);
	if (s->interval_ms > 0 && s->fmt == FMT_JSON)
		fprintf(s->f, "\n]}\n");
	if (rc)
		return rc;
	if (s->ended)
		cli_warn("the counted %s ended after %.3f s: the counts are what they counted until "
			 "then", s->kind == PBENCH_TARGET_TIDS ? "threads" : "processes",
			 s->elapsed[s->done ? s->done - 1 : 0]);
	if (*cli_stop && !s->argv)
		s->child_rc = 0;	/* Ctrl-C is the way to end an open count */
	detail_note(s);
	if (s->done && !(s->interval_ms > 0)) {
		if (s->sep)
			write_x(s, s->f);
		else if (s->fmt != FMT_TEXT)
			write_table(s, s->f);
		else
			write_text(s, s->f);
	}
	if (s->f != stdout && fclose(s->f)) {
		cli_error("-o %s: %s", s->outfile, strerror(errno));
		return EXIT_RUNTIME;
	}
	return s->child_rc ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_stat_targets(int argc, char **argv)
{
	struct st s = { .runs = 1 };
	struct pbench_target *t = NULL;
	int rc;

	if (refuse_perf_only(argc, argv))
		return EXIT_USAGE;
	rc = parse(argc, argv, &s);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	if (check_combination(&s))
		return EXIT_USAGE;
	rc = targets_main(&s, &t);
	stat_irq_free(s.irq);
	pbench_target_free(t);
	for (int k = 0; s.g && k < s.ngroups; k++)
		free(s.g[k].v);
	free(s.g);
	free(s.events);
	return rc;
}
