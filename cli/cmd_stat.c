/* SPDX-License-Identifier: MIT */
/*
 * pbench stat: run a command (or the built-in workload) N times, each run timed in ticks and
 * ns and counted with the requested events, unprepared, prepared (one core, high priority,
 * warmed up) or both side by side, and print every run, the outliers with their causes and a
 * summary. The report itself is in stat_report.c.
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
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"
#include "stat.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"
#define DEFAULT_RUNS 20
#define MAX_RUNS 1000000L
#define XOR_ITERATIONS 100000000ULL
#define DEFAULT_WARMUP_MS 1200.0
#define MAX_WARMUP_MS 3600000.0

static volatile sig_atomic_t interrupted;

static volatile sig_atomic_t timed_out;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/* --timeout: SIGALRM after s seconds (0 cancels); no SA_RESTART, so the wait returns. */
static void arm_timeout(double s)
{
	struct itimerval it = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };

	if (s > 0) {
		timed_out = 0;
		sigaction(SIGALRM, &sa, NULL);
		it.it_value.tv_sec = (time_t)s;
		it.it_value.tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6);
		if (!it.it_value.tv_sec && !it.it_value.tv_usec)
			it.it_value.tv_usec = 1;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench stat [-e EVENTS] [-r RUNS] [--mode unprepared|prepared|contrast]\n"
		"                   [--cpu N] [--warmup-ms MS] [--json[=FILE]] [-q] [--iterations N]\n"
		"                   [--plot FILE.svg] [--timeout S] [-- CMD ARGS...]\n"
		"\n"
		"Runs CMD (or, with no command, the built-in xor loop) RUNS times and prints each\n"
		"run's time in TSC ticks and ns with the counted events and what disturbed it, the\n"
		"outliers with their cause, then a summary. Events that cannot be counted here are\n"
		"shown with the reason, never as a number.\n"
		"\n"
		"Modes: 'prepared' pins pbench to one CPU, raises its priority, locks its memory and\n"
		"warms up before the runs, and undoes it all afterwards; a command inherits the CPU\n"
		"and the priority. 'unprepared' changes nothing. 'contrast' runs the unprepared set,\n"
		"then the prepared set, and shows them side by side.\n"
		"\n"
		"  -e, --events LIST      comma-separated events (default: %s)\n"
		"  -r, --runs N           runs per mode, 1 to %ld (default: %d)\n"
		"      --mode MODE        unprepared, prepared or contrast (default: prepared)\n"
		"      --cpu N            the CPU to prepare (default: an isolated or idle one)\n"
		"      --warmup-ms MS     warm-up before the prepared runs (default: %.0f)\n"
		"      --json[=FILE]      JSON (schema 1) to FILE, or to stdout instead of the text\n"
		"      --plot FILE.svg    each run's time in order and the distributions, as SVG\n"
		"      --timeout S        kill a run of the command after S seconds (default: none)\n"
		"  -q, --quiet            discard the command's output\n"
		"      --iterations N     iterations of the built-in workload (default: %llu)\n"
		"  -h, --help             this help\n"
		"\n"
		"'pbench list' shows the events and whether each can be counted here.\n",
		DEFAULT_EVENTS, MAX_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP_MS, XOR_ITERATIONS);
}

const char *stat_mode_name(int kind)
{
	static const char *const names[] = { "unprepared", "prepared", "contrast" };

	return kind >= 0 && kind <= MODE_CONTRAST ? names[kind] : "?";
}

static int edit_distance(const char *a, const char *b)
{
	int row[32], n = (int)strlen(b);

	if (n >= (int)(sizeof(row) / sizeof(row[0])))
		return 1000;
	for (int j = 0; j <= n; j++)
		row[j] = j;
	for (int i = 1; a[i - 1]; i++) {
		int diag = row[0];

		row[0] = i;
		for (int j = 1; j <= n; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

static int parse_mode(const char *s)
{
	int best = 0, best_d = 1 << 30;

	for (int k = 0; k <= MODE_CONTRAST; k++) {
		int d = edit_distance(s, stat_mode_name(k));

		if (!d)
			return k;
		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	cli_error("unknown mode '%s' for --mode: the modes are unprepared, prepared and "
		  "contrast (did you mean '%s'?)", s, stat_mode_name(best));
	return -1;
}

/* The CPUs this process may run on, as a list ("0-1,4"). */
static void format_cpuset(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "",
				      c, e);
		c = e;
	}
}

static int parse_cpu(const char *s, int *out)
{
	cpu_set_t set;
	char allowed[256] = "";
	long v;
	int ok;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		format_cpuset(&set, allowed, sizeof(allowed));
	ok = !cli_parse_long(s, 0, CPU_SETSIZE - 1, &v) && CPU_ISSET((int)v, &set);
	if (!ok) {
		cli_error("invalid CPU '%s' for --cpu: pbench may run on CPUs %s", s,
			  allowed[0] ? allowed : "(unknown: sched_getaffinity failed)");
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_warmup(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = *s ? strtod(s, &end) : NAN;
	if (!*s || errno || *end || !isfinite(v) || v < 0 || v > MAX_WARMUP_MS) {
		cli_error("invalid warm-up '%s' for --warmup-ms: expected milliseconds from 0 to "
			  "%.0f", s, MAX_WARMUP_MS);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	enum { OPT_MODE = 256, OPT_CPU, OPT_WARMUP, OPT_PLOT, OPT_TIMEOUT };
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "runs", required_argument, NULL, 'r' },
		{ "json", optional_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "warmup-ms", required_argument, NULL, OPT_WARMUP },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'r':
			if (cli_parse_long(optarg, 1, MAX_RUNS, &v)) {
				cli_error("invalid run count '%s' for -r: expected a whole number "
					  "from 1 to %ld", optarg, MAX_RUNS);
				return -1;
			}
			o->runs = v;
			break;
		case 'j':
			o->json = optarg ? optarg : "-";
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'i':
			if (cli_parse_long(optarg, 1, 1000000000000L, &v)) {
				cli_error("invalid iteration count '%s' for --iterations: expected a "
					  "whole number from 1 to 10^12", optarg);
				return -1;
			}
			o->iterations = v;
			break;
		case OPT_MODE:
			if ((o->mode = parse_mode(optarg)) < 0)
				return -1;
			break;
		case OPT_CPU:
			if (parse_cpu(optarg, &o->cpu))
				return -1;
			break;
		case OPT_WARMUP:
			if (parse_warmup(optarg, &o->warmup_ms))
				return -1;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case OPT_TIMEOUT: {
			char *end;
			double t;

			errno = 0;
			t = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(t > 0) || t > 86400) {
				cli_error("invalid timeout '%s' for --timeout: expected seconds, more "
					  "than 0 and at most 86400", optarg);
				return -1;
			}
			o->timeout_s = t;
			break;
		}
		case 'h':
			stat_usage(stdout);
			return 1;
		case ':':
			cli_error("option '%s' needs a value", argv[optind - 1]);
			return -1;
		default:
			cli_error("unknown option '%s' for 'pbench stat'", argv[optind - 1]);
			cli_hint("'pbench stat -h' shows the options");
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return 0;
}

/* Name errors and unknown commands are the user's to fix: exit 2 with the reason. */
static int report_start_error(int err, const struct stat_opts *o)
{
	switch (-err) {
	case PBENCH_EUNKNOWN_EVENT:
	case PBENCH_EBAD_EVENT_LIST:
	case PBENCH_EDUP_EVENT:
		cli_error("%s", pbench_counters_last_error());
		cli_hint("'pbench list' shows the events that can be counted here");
		return EXIT_USAGE;
	case PBENCH_ENOT_FOUND:
		cli_error("command '%s' not found", o->cmd[0]);
		cli_hint("check the name, or give its path");
		return EXIT_USAGE;
	case PBENCH_ENOT_EXEC:
		cli_error("command '%s' cannot be executed (not an executable file, or no "
			  "permission)", o->cmd[0]);
		return EXIT_USAGE;
	}
	cli_error("cannot start: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

static int run_workload(struct pbench_counters *c, int nr, const struct stat_opts *o,
			struct run *r)
{
	int counting = pbench_counters_nr_groups(c) > 0;
	uint64_t t0, t1;
	int err;

	if (!counting) {
		/* Nothing could be opened: the read fills in each event's status and reason. */
		err = pbench_counters_read(c, r->counts, nr);
		if (err < 0)
			return err;
	} else {
		err = pbench_counters_start(c);
		if (err)
			return err;
	}
	t0 = pbench_ticks_begin();
	r->result = pbench_workload_xor((uint64_t)o->iterations, t0);
	t1 = pbench_ticks_end();
	if (counting) {
		err = pbench_counters_stop(c);
		if (err)
			return err;
		err = pbench_counters_delta(c, r->counts, nr);
		if (err < 0)
			return err;
	}
	r->ticks = t1 - t0;
	r->ns = pbench_ticks_to_ns(r->ticks);
	r->exited = 1;
	return 0;
}

static int run_command(const struct stat_opts *o, int nr, struct run *r)
{
	struct pbench_child_opts copts = { .size = sizeof(copts), .events = o->events,
					   .quiet = o->quiet };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	int err;

	uint64_t t0;

	fflush(stdout);
	t0 = pbench_ticks();
	err = pbench_child_start(&ch, o->cmd, &copts);
	if (err)
		return err;
	arm_timeout(o->timeout_s);
	/* Ctrl-C (the handler sets interrupted) or --timeout: kill and reap the child now
	 * rather than wait for a command that may never end; any other signal: keep waiting. */
	while ((err = pbench_child_wait(ch, &res)) == -EINTR && !interrupted && !timed_out)
		;
	arm_timeout(0);
	if (err == -EINTR && timed_out && !interrupted) {
		pbench_child_free(ch);	/* SIGKILL and reap */
		/* Its counters were never read: no number is printed for them. */
		for (int e = 0; e < nr; e++) {
			r->counts[e].status = PBENCH_EVENT_NOT_COUNTED;
			snprintf(r->counts[e].reason, sizeof(r->counts[e].reason),
				 "the run was killed at --timeout");
		}
		r->timed_out = 1;
		r->signaled = 1;
		r->term_signal = SIGKILL;
		r->ticks = pbench_ticks() - t0;
		r->ns = pbench_ticks_to_ns(r->ticks);
		return 0;
	}
	if (!err && pbench_child_counters(ch))
		err = pbench_counters_read(pbench_child_counters(ch), r->counts, nr);
	pbench_child_free(ch);
	if (err < 0)
		return err;
	r->ticks = res.ticks;
	r->ns = res.ns;
	r->exited = res.exited;
	r->exit_status = res.exit_status;
	r->signaled = res.signaled;
	r->term_signal = res.term_signal;
	return 0;
}

/* ---- noise ------------------------------------------------------------------------------ */

/* One probe per CPU, made when a run first lands there. */
struct probes {
	struct pbench_cpu_probe **p;
	int n;
};

static struct pbench_cpu_probe *probe_for(struct probes *pr, int cpu)
{
	if (cpu < 0 || cpu >= pr->n)
		return NULL;
	if (!pr->p[cpu] && pbench_cpu_probe_new(&pr->p[cpu], cpu))
		pr->p[cpu] = NULL;
	return pr->p[cpu];
}

static int find_event(const struct run *r, int nr, const char *a, const char *b)
{
	for (int e = 0; e < nr; e++)
		if (r->counts[e].name && (!strcmp(r->counts[e].name, a) ||
					  (b && !strcmp(r->counts[e].name, b))) &&
		    r->counts[e].status <= PBENCH_EVENT_MULTIPLEXED)
			return e;
	return -1;
}

/*
 * The run's own noise: context switches and faults from getrusage (the thread's for the
 * workload, the reaped children's for a command), migrations and the time not running from
 * the cpu-migrations and task-clock events when they were counted. A command's task-clock
 * sums its processes, so a parallel one may show none not running: the clamp at 0 says
 * "unknown to be more", not "none".
 */
static void fill_noise(struct run *r, int nr, const struct rusage *a, const struct rusage *b)
{
	int tc = find_event(r, nr, "task-clock", NULL);
	int mig = find_event(r, nr, "cpu-migrations", "migrations");

	r->noise.ctx_involuntary = (uint64_t)(b->ru_nivcsw - a->ru_nivcsw);
	r->noise.ctx_voluntary = (uint64_t)(b->ru_nvcsw - a->ru_nvcsw);
	r->noise.minor_faults = (uint64_t)(b->ru_minflt - a->ru_minflt);
	r->noise.major_faults = (uint64_t)(b->ru_majflt - a->ru_majflt);
	r->noise.not_running_ns = tc >= 0 ? fmax(0, (double)r->ns - r->counts[tc].scaled) : NAN;
	r->have_migrations = mig >= 0;
	r->noise.migrations = mig >= 0 ? (uint64_t)r->counts[mig].scaled : 0;
}

static void current_priority(struct stat_set *set)
{
	struct sched_param sp;

	set->policy = sched_getscheduler(0);
	set->policy_name = set->policy == SCHED_FIFO ? "SCHED_FIFO" : set->policy == SCHED_RR ?
			   "SCHED_RR" : set->policy == SCHED_BATCH ? "SCHED_BATCH" :
			   set->policy == SCHED_IDLE ? "SCHED_IDLE" : "SCHED_OTHER";
	if ((set->policy == SCHED_FIFO || set->policy == SCHED_RR) && !sched_getparam(0, &sp))
		set->prio_value = sp.sched_priority;
	else
		set->prio_value = getpriority(PRIO_PROCESS, 0);
}

/*
 * The runs of one set. Each run's CPU noise is probed on the CPU it ran on: the prepared CPU,
 * or for unprepared runs the CPU pbench was on when the run started (sched_getcpu()). That is
 * an approximation: an unprepared workload may migrate mid-run, and a command may start on
 * another CPU than pbench's.
 */
static int run_set(const struct stat_opts *o, struct pbench_counters *self, int nr,
		   struct stat_set *set, struct probes *pr)
{
	for (long i = 0; i < o->runs && !interrupted; i++) {
		struct run *r = &set->runs[i];
		struct pbench_cpu_probe *probe;
		struct rusage ru0, ru1;
		int who = o->cmd ? RUSAGE_CHILDREN : RUSAGE_THREAD, err;

		r->counts = set->counts + i * nr;
		for (int e = 0; e < nr; e++)
			r->counts[e].size = sizeof(r->counts[e]);
		r->cpu = set->kind == MODE_PREPARED ? set->cpu : sched_getcpu();
		r->cpu_noise.size = sizeof(r->cpu_noise);
		probe = probe_for(pr, r->cpu);
		r->have_cpu_noise = probe && pbench_cpu_probe_begin(probe) == 0;
		getrusage(who, &ru0);
		if (o->cmd)
			err = run_command(o, nr, r);
		else
			err = run_workload(self, nr, o, r);
		getrusage(who, &ru1);
		if (r->have_cpu_noise)
			r->have_cpu_noise = pbench_cpu_probe_end(probe, &r->cpu_noise) == 0;
		/* Names from the set that outlives the runs (a child's set is freed per run). */
		for (int e = 0; e < nr; e++)
			r->counts[e].name = pbench_counters_name(self, e);
		if (interrupted)
			break;	/* the run the interrupt cut short is not a measurement */
		if (err)
			return report_start_error(err, o);
		fill_noise(r, nr, &ru0, &ru1);
		set->done++;
		set->failed += r->signaled || r->exit_status;
	}
	return EXIT_OK;
}

/* ---- preparing ---------------------------------------------------------------------------- */

/* Prepare, run, restore (the library's handlers restore on SIGINT/SIGTERM as well). */
static int run_prepared(const struct stat_opts *o, struct pbench_counters *self, int nr,
			struct stat_set *set, struct probes *pr)
{
	struct pbench_prepare_opts popts = PBENCH_PREPARE_OPTS_INIT;
	struct pbench_prepared *p;
	int err, rc;

	popts.cpu = o->cpu;
	popts.warmup_ms = o->warmup_ms;
	popts.flags = PBENCH_PREPARE_SIGNALS;
	err = pbench_prepare(&p, &popts);
	if (err == -EINTR)
		return EXIT_OK;	/* interrupted while preparing: everything was restored */
	if (err) {
		cli_error("cannot prepare%s: %s", o->cpu >= 0 ? " the CPU" : "",
			  pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	set->prepared = 1;
	set->cpu = pbench_prepared_cpu(p);
	snprintf(set->cpu_reason, sizeof(set->cpu_reason), "%s", pbench_prepared_cpu_reason(p));
	for (int s = 0; s < PBENCH_PREP_NR_STEPS; s++) {
		const struct pbench_prep_outcome *po = pbench_prepared_step(p, s);

		if (po)
			set->steps[s] = *po;
	}
	set->prio.size = sizeof(set->prio);
	pbench_prepared_priority(p, &set->prio);
	set->policy = set->prio.policy;
	set->policy_name = set->prio.policy_name;
	set->prio_value = set->prio.value;
	set->warmup_ms = pbench_prepared_warmup_ms(p);
	rc = run_set(o, self, nr, set, pr);
	set->restore_err = pbench_prepared_restore(p);
	set->restored_by = pbench_prepared_signal(p);
	pbench_prepared_free(p);
	return rc;
}

static int alloc_set(struct stat_set *set, int kind, long runs, int nr)
{
	memset(set, 0, sizeof(*set));
	set->kind = kind;
	set->cpu = -1;
	set->runs = calloc((size_t)runs, sizeof(*set->runs));
	set->counts = calloc((size_t)runs * (size_t)(nr ? nr : 1), sizeof(*set->counts));
	return set->runs && set->counts ? 0 : -1;
}

/* The checks of the CPU the prepared runs used (or would use): no windowed checks. */
static void env_for(struct stat_report *rep, const struct stat_opts *o)
{
	const struct stat_set *last = rep->sets[rep->nsets - 1];
	int cpu = last && last->prepared ? last->cpu : o->cpu;
	const int *cpus;

	if (pbench_env_check(&rep->env, cpu >= 0 ? &cpu : NULL, cpu >= 0, PBENCH_ENV_NO_WINDOW)) {
		rep->env = NULL;
		return;
	}
	rep->env_cpu = pbench_env_cpus(rep->env, &cpus) > 0 ? cpus[0] : -1;
}

/* ---- main ------------------------------------------------------------------------------- */

/* Measure and report; *plotted is set once the plot is written. */
static int stat_run(const struct stat_opts *op, int *plotted)
{
	const struct stat_opts o = *op;
	struct pbench_counters_opts copts = { .size = sizeof(copts), .cpu = -1 };
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	struct pbench_counters *self = NULL;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct stat_set sets[2] = { 0 };
	struct stat_report rep = { .o = &o, .ci = &ci, .env_cpu = -1 };
	struct probes pr = { 0 };
	int rc, err, nr = 0, done = 0, failed = 0;
	long cpus_conf;

	/* The command is checked before anything is prepared or run: a typo is exit 2 at once,
	 * with nothing changed. */
	if (o.cmd) {
		char path[4096];

		err = pbench_command_resolve(o.cmd[0], path, sizeof(path));
		if (err)
			return report_start_error(err, &o);
	}
	/* Names are checked, and what this machine can count is learned, before anything runs. */
	err = pbench_counters_open(&self, o.events, &copts);
	if (err && err != -PBENCH_ENO_EVENTS)
		return report_start_error(err, &o);
	nr = pbench_counters_nr(self);
	/* For a command the set only names the events (the child has its own); it is never
	 * enabled. With nothing countable it is kept for its reasons but never started. */
	if (!o.cmd && err != -PBENCH_ENO_EVENTS && (err = pbench_counters_enable(self))) {
		cli_error("cannot enable the counters: %s", pbench_strerror(err));
		pbench_counters_free(self);
		return EXIT_RUNTIME;
	}
	err = pbench_clock_info(&ci);
	if (err) {
		cli_error("cannot determine the clock: %s", pbench_strerror(err));
		pbench_counters_free(self);
		return EXIT_RUNTIME;
	}
	if (o.mode != MODE_PREPARED)
		rep.sets[rep.nsets++] = &sets[0];
	if (o.mode != MODE_UNPREPARED)
		rep.sets[rep.nsets++] = &sets[1];
	cpus_conf = sysconf(_SC_NPROCESSORS_CONF);
	pr.n = cpus_conf > 0 && cpus_conf <= CPU_SETSIZE ? (int)cpus_conf : 0;
	pr.p = calloc((size_t)(pr.n ? pr.n : 1), sizeof(*pr.p));
	if (alloc_set(&sets[0], MODE_UNPREPARED, o.runs, nr) ||
	    alloc_set(&sets[1], MODE_PREPARED, o.runs, nr) || !pr.p) {
		cli_error("out of memory for %ld runs", o.runs);
		rc = EXIT_RUNTIME;
		goto out;
	}

	/* Ours first: the prepared state's handlers restore, then hand the signal on to it. */
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = EXIT_OK;
	if (o.mode != MODE_PREPARED) {
		current_priority(&sets[0]);
		rc = run_set(&o, self, nr, &sets[0], &pr);
	}
	if (!rc && o.mode != MODE_UNPREPARED && !interrupted)
		rc = run_prepared(&o, self, nr, &sets[1], &pr);
	if (rc)
		goto out_signals;
	for (int s = 0; s < rep.nsets; s++) {
		stat_set_analyze(rep.sets[s]);
		done += rep.sets[s]->done;
		failed += rep.sets[s]->failed;
	}
	rep.nr = nr;
	if (done) {
		env_for(&rep, &o);
		if (o.json)
			rc = stat_write_json(&rep);
		if (!o.json || strcmp(o.json, "-"))
			stat_print_text(&rep);
		if (o.plot_f) {
			int prc = stat_write_plot(&rep);

			*plotted = 1;
			if (prc && !rc)
				rc = prc;
		}
	}
	if (interrupted) {
		cli_error("interrupted after %d of %ld runs", done, o.runs * rep.nsets);
		rc = EXIT_RUNTIME;
	} else if (failed) {
		cli_error("%d of %d runs of '%s' failed (see the status column)", failed, done,
			  o.cmd[0]);
		rc = EXIT_RUNTIME;
	} else if (sets[1].restore_err) {
		cli_error("the prepared state was not fully restored: %s",
			  pbench_strerror(sets[1].restore_err));
		rc = EXIT_RUNTIME;
	}
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	pbench_env_free(rep.env);
	for (int c = 0; pr.p && c < pr.n; c++)
		pbench_cpu_probe_free(pr.p[c]);
	free(pr.p);
	for (int s = 0; s < 2; s++) {
		free(sets[s].counts);
		free(sets[s].runs);
	}
	pbench_counters_free(self);
	return rc;
}

/*
 * The plot file is opened before anything runs, so a missing directory or an unwritable path
 * is a usage error with nothing measured; it is removed again when no runs came to be
 * plotted.
 */
int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .events = DEFAULT_EVENTS, .runs = DEFAULT_RUNS,
			       .iterations = XOR_ITERATIONS, .mode = MODE_PREPARED, .cpu = -1,
			       .warmup_ms = DEFAULT_WARMUP_MS };
	int rc, plotted = 0;

	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	if (o.json && strcmp(o.json, "-") && !*o.json) {
		cli_error("--json needs a file name, or '-' for stdout");
		return EXIT_USAGE;
	}
	if (o.plot && !(o.plot_f = fopen(o.plot, "w"))) {
		cli_error("cannot write the plot '%s': %s", o.plot, strerror(errno));
		return EXIT_USAGE;
	}
	rc = stat_run(&o, &plotted);
	if (!o.plot_f)
		return rc;
	if (fclose(o.plot_f) == EOF && plotted) {
		cli_error("cannot write the plot '%s': %s", o.plot, strerror(errno));
		rc = rc ? rc : EXIT_RUNTIME;
	}
	if (!plotted)
		unlink(o.plot);
	return rc;
}
