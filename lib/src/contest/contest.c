/* SPDX-License-Identifier: MIT */
/*
 * Contests: the object (its options, its entrants, each a pbench_runs of one set or stored
 * times), the test as the rounds come and the verdicts, the getters. Running it is
 * contest_exec.c and contest_duet.c; the writers are contest_text.c, contest_json.c and
 * contest_plot.c.
 *
 * The test is on the log of the times: a ratio is what people ask ("1.2x faster"), times are
 * skewed to the right and their logs much less so, and the interval of a ratio taken from the
 * log's is never below 0 (exp() of it). The ratio is then of geometric means.
 *
 * Interleaved, the rounds are blocks: each entrant's run is paired with the reference's of the
 * same round, and the test is on the ratios of the pairs (a paired t-test on the logs). On this
 * development VM the host slows a vCPU by up to 2x for stretches of seconds: a round lasts a
 * fraction of that, so both runs of a pair are slowed alike and the stretch cancels in their
 * ratio, where Welch on all the times would count it as spread. Within a round the order is
 * random, so the pairing adds no bias. Without such pairs (stored times, the sequential order,
 * PBENCH_CONTEST_UNPAIRED) the test is Welch's.
 *
 * Each entrant is compared with the reference only, so k entrants make k - 1 comparisons: each
 * gets 1 - confidence divided by k - 1 (Bonferroni), so that the chance of any false verdict
 * stays within 1 - confidence. Looking at the test as the rounds come is many tests: each look
 * uses Pocock's constant boundary, PB_VERDICT_LOOK_FACTOR times stricter than one look's
 * (pbench_stats_verdict()), and the interval reported is at that level too: a repeated
 * confidence interval, which holds whenever the contest stops. That boundary holds the false
 * differences to the confidence for some tens of looks, not for thousands: simulated on normal
 * samples with the paired test from round 10, a look after every round said "different" for
 * 0.08% of A/A comparisons of 100 rounds but 0.4% of those of 1000 (bench/bench_compare.c
 * simulates it). So the looks grow apart, each LOOK_GROWTH times the rounds of the one before
 * (10, 12, 15, 18, 22, 27, ...): 26 looks up to 1000 rounds, 38 up to 10000.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"
#include "measure/measure.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "process/process.h"
#include "contest/contest.h"

#define DEFAULT_CONFIDENCE PBENCH_STATS_DEFAULT_CONFIDENCE
#define DEFAULT_MIN_ROUNDS PBENCH_CONTEST_DEFAULT_MIN_ROUNDS
#define DEFAULT_MAX_ROUNDS PBENCH_CONTEST_DEFAULT_MAX_ROUNDS
#define MAX_ROUNDS PBENCH_CONTEST_MAX_ROUNDS
#define DEFAULT_EVENTS PBENCH_CONTEST_DEFAULT_EVENTS
#define LOOK_GROWTH 1.2

int pb_contest_append(double **x, size_t *n, size_t *cap, double v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		double *nx = realloc(*x, ncap * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		*x = nx;
		*cap = ncap;
	}
	(*x)[(*n)++] = v;
	return 0;
}

int pb_contest_is_duet(const struct pbench_contest *c)
{
	return c->o.order == PBENCH_CONTEST_ORDER_DUET;
}

int pb_contest_paired(const struct pbench_contest *c)
{
	return pb_contest_is_duet(c) || (c->o.order == PBENCH_CONTEST_ORDER_INTERLEAVED &&
					 c->n && c->e[c->o.reference].r &&
					 !(c->o.flags & PBENCH_CONTEST_UNPAIRED));
}

int pb_contest_append_pair(struct pb_entrant *e, double ref, double own)
{
	if (!isfinite(ref) || !isfinite(own))
		return 0;	/* a metric not made in one of the runs: no pair */
	if (e->npairs == e->pair_cap) {
		size_t ncap = e->pair_cap ? e->pair_cap * 2 : 64;
		double *a = realloc(e->pair_ref, ncap * sizeof(*a)), *b;

		if (!a)
			return -ENOMEM;
		e->pair_ref = a;
		b = realloc(e->pair_own, ncap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		e->pair_own = b;
		e->pair_cap = ncap;
	}
	e->pair_ref[e->npairs] = ref;
	e->pair_own[e->npairs++] = own;
	return 0;
}

double pb_contest_confidence(const struct pbench_contest *c)
{
	return c->o.confidence;
}

/* ---- options -------------------------------------------------------------------------------- */

/* The duet's two CPUs: the ones asked, which pbench must be allowed to run on, or the first
 * two it is. */
static int duet_cpus(struct pbench_contest *c)
{
	cpu_set_t set;
	int *cpu = c->duet_cpus, found = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	if (cpu[0] < 0 && cpu[1] < 0) {
		for (int i = 0; i < CPU_SETSIZE && found < 2; i++)
			if (CPU_ISSET(i, &set))
				cpu[found++] = i;
		if (found < 2)
			return pb_fail_msg(-EINVAL, "a duet runs the two commands at the same time, "
					   "each on its own CPU, and pbench may run on %d CPU only",
					   CPU_COUNT(&set));
		return 0;
	}
	for (int k = 0; k < 2; k++)
		if (cpu[k] < 0 || cpu[k] >= CPU_SETSIZE || !CPU_ISSET(cpu[k], &set))
			return pb_fail_msg(-EINVAL, "the duet's CPU %d is not one pbench may run on",
					   cpu[k]);
	if (cpu[0] == cpu[1])
		return pb_fail_msg(-EINVAL, "the duet's two CPUs are the same (%d): a duet needs two",
				   cpu[0]);
	return 0;
}

static int check_opts(struct pbench_contest *c)
{
	struct pbench_contest_opts *o = &c->o;

	if (o->confidence == 0)
		o->confidence = DEFAULT_CONFIDENCE;
	if (o->min_rounds == 0)
		o->min_rounds = DEFAULT_MIN_ROUNDS;
	if (o->max_rounds == 0)
		o->max_rounds = DEFAULT_MAX_ROUNDS;
	if ((o->mode != PBENCH_RUNS_UNPREPARED && o->mode != PBENCH_RUNS_PREPARED) ||
	    o->order < PBENCH_CONTEST_ORDER_INTERLEAVED ||
	    o->order > PBENCH_CONTEST_ORDER_SEQUENTIAL || o->cpu < -1 ||
	    !(o->confidence > 0 && o->confidence < 1) || !(o->same_pct >= 0) ||
	    !(o->same_pct < 100) || o->min_rounds < 2 || o->max_rounds < 2 ||
	    o->max_rounds > MAX_ROUNDS || o->warmup_runs < 0 || o->warmup_runs > MAX_ROUNDS ||
	    !(o->max_time_s >= 0) || !isfinite(o->max_time_s) || !(o->timeout_s >= 0) ||
	    !isfinite(o->timeout_s) || !(o->warmup_ms >= 0) || !isfinite(o->warmup_ms) ||
	    o->reference < 0)
		return pb_fail_msg(-EINVAL, "an option is out of range");
	if (!(o->occasion_sd >= 0) || !isfinite(o->occasion_sd) || o->occasions < 0 ||
	    o->occasion_commits < 0 || (o->occasion_sd > 0 && o->occasions <= o->occasion_commits))
		return pb_fail_msg(-EINVAL, "occasion_sd is %g over %d occasions of %d commits: a "
				   "standard deviation >= 0 over more occasions than commits",
				   o->occasion_sd, o->occasions, o->occasion_commits);
	if (pb_contest_profile_check(o))
		return -EINVAL;
	c->duet_cpus[0] = c->duet_cpus[1] = -1;
	if (o->order != PBENCH_CONTEST_ORDER_DUET && (o->duet_cpus[0] >= 0 ||
						      o->duet_cpus[1] >= 0))
		return pb_fail_msg(-EINVAL, "--duet-cpus picks the CPUs of a duet: give --duet too");
	if (o->order != PBENCH_CONTEST_ORDER_DUET)
		return 0;
	c->duet_cpus[0] = o->duet_cpus[0];
	c->duet_cpus[1] = o->duet_cpus[1];
	return duet_cpus(c);
}

/* o.metric: copied, its events added to the list every entrant counts (or its metric to the
 * metrics); the name error said now, before any entrant. */
static int target_request(struct pbench_contest *c)
{
	char *events, *metrics;
	int err;

	if (!c->o.metric || !strcasecmp(c->o.metric, "wall-time")) {
		c->o.metric = NULL;
		return 0;
	}
	if (!(c->metric = strdup(c->o.metric)))
		return -ENOMEM;
	c->o.metric = c->metric;
	err = pb_metric_target_request(c->metric, c->events, c->o.metrics, &events, &metrics);
	if (err)
		return err;	/* its words said (pb_fail_msg()) */
	if (events) {
		free(c->events);
		c->events = events;
	}
	if (metrics)
		c->o.metrics = c->target_metrics = metrics;
	return 0;
}

int pbench_contest_new(struct pbench_contest **out, const struct pbench_contest_opts *opts)
{
	struct pbench_counters *names = NULL;
	struct pbench_contest *c;
	int err;

	pb_fail_clear();
	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if ((err = PB_CHECK_STRUCT(opts, pbench_contest_opts, 0, "PBENCH_CONTEST_OPTS_INIT")))
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pb_copy_in(&c->o, sizeof(c->o), opts);
	err = check_opts(c);
	if (!err && c->o.text_width < 0)
		err = pb_fail(-EINVAL, "%s(): opts->text_width is %d, want 0 (not wrapped) or "
			      "more", __func__, c->o.text_width);
	if (!err && !(c->events = strdup(c->o.events ? c->o.events : DEFAULT_EVENTS)))
		err = -ENOMEM;
	if (!err)
		err = target_request(c);
	/* The names are checked before any entrant is added. */
	if (!err && (err = pbench_counters_open(&names, c->events, NULL)) == -PBENCH_ENO_EVENTS)
		err = 0;
	pbench_counters_free(names);
	/* the helper commands (setup, prepare, cleanup): found now, copied */
	if (!err)
		err = pb_command_copy(c->o.setup, &c->setup, "setup");
	if (!err)
		err = pb_command_copy(c->o.prerun, &c->prerun, "prepare");
	if (!err)
		err = pb_command_copy(c->o.cleanup, &c->cleanup, "cleanup");
	if (err) {
		pbench_contest_free(c);	/* the words of err stay: pbench_strerror(err) */
		return err;
	}
	c->o.events = c->events;
	c->o.setup = c->setup;
	c->o.prerun = c->prerun;
	c->o.cleanup = c->cleanup;
	c->next_look = c->o.min_rounds;
	c->rng = c->o.seed ? c->o.seed : pbench_ticks() | 1;
	c->o.seed = c->rng;
	*out = c;
	return 0;
}

/* ---- entrants ------------------------------------------------------------------------------- */

static char *describe(const struct pbench_contest_entrant *e)
{
	char buf[4096];
	size_t len = 0;

	if (e->stored_ns)
		return strdup("stored times");
	if (!e->argv) {
		if (e->workload == PBENCH_WORKLOAD_FN)
			snprintf(buf, sizeof(buf), "a function");
		else
			snprintf(buf, sizeof(buf), "%s %llu",
				 pbench_workload_kind_name(e->workload),
				 (unsigned long long)(e->iterations ? e->iterations :
				 pbench_workload_default_iterations(e->workload)));
		return strdup(buf);
	}
	buf[0] = 0;
	for (char *const *a = e->argv; *a && len < sizeof(buf); a++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", a == e->argv ? "" : " ",
					*a);
	return strdup(buf);
}

/* A stored entrant read from a file keeps the file's runs (its events and metrics), and with a
 * metric its wall times too (the stored values are the metric's): a file without runs (a list
 * of times) has none to give, and is no error. */
static int stored_runs(struct pbench_contest *c, struct pb_entrant *n,
		       const struct pbench_contest_entrant *e)
{
	size_t nx, missing;
	double *x;

	if (pb_contest_stored_load(n, e->stored_file, e->stored_set) || !c->metric)
		return 0;
	x = pb_contest_stored_values(n, NULL, &nx, &missing);
	for (size_t i = 0; x && !missing && i < nx; i++)
		if (pb_contest_append(&n->x, &n->n, &n->cap, x[i])) {
			free(x);
			return -ENOMEM;
		}
	free(x);
	return 0;
}

static int add_stored(struct pbench_contest *c, struct pb_entrant *n,
		      const struct pbench_contest_entrant *e)
{
	if (e->nr_stored < 2)
		return pb_fail_msg(-EINVAL, "stored times need two at least, not %zu", e->nr_stored);
	for (size_t i = 0; c->metric && i < e->nr_stored; i++) {	/* the metric's values */
		if (!(e->stored_ns[i] >= 0) || !isfinite(e->stored_ns[i]))
			return pb_fail_msg(-EINVAL, "stored value %zu of %s is not a count or a "
					   "metric (%g)", i, c->metric, e->stored_ns[i]);
		if (pb_contest_append(&n->mx, &n->mn, &n->mcap, e->stored_ns[i]))
			return -ENOMEM;
	}
	for (size_t i = 0; !c->metric && i < e->nr_stored; i++) {
		if (!(e->stored_ns[i] > 0) || !isfinite(e->stored_ns[i]))
			return pb_fail_msg(-EINVAL, "stored time %zu is not a time (%g ns)", i,
					   e->stored_ns[i]);
		if (pb_contest_append(&n->x, &n->n, &n->cap, e->stored_ns[i]))
			return -ENOMEM;
	}
	/* Stored times are of another occasion: the sequential test's stop is no verdict
	 * against them (the gate and the headline judge them, pbench_stats_gate_speed()), and
	 * the gate's interval narrows with today's runs: the rounds run the whole budget. (A
	 * metric's stored values keep the sequential stop: counts do not move with the
	 * machine's speed, and exact ones are decided at the first look.) */
	if (!c->metric)
		c->o.flags |= PBENCH_CONTEST_FULL_BUDGET;
	return e->stored_file ? stored_runs(c, n, e) : 0;
}

static int add_runs(struct pbench_contest *c, struct pb_entrant *n,
		    const struct pbench_contest_entrant *e)
{
	struct pbench_runs_opts ro = PBENCH_RUNS_OPTS_INIT;
	char why[4500];
	int err;

	ro.events = c->events;
	ro.metrics = c->o.metrics;
	ro.metric = c->metric;
	ro.argv = e->argv;
	ro.workload = e->workload;
	ro.iterations = e->iterations;
	ro.walk_bytes = e->walk_bytes;
	ro.fn = e->fn;
	ro.ctx = e->ctx;
	ro.mode = c->o.mode;
	ro.cpu = c->o.cpu;
	ro.warmup_ms = c->o.warmup_ms;
	ro.runs = c->o.max_rounds;
	ro.timeout_s = c->o.timeout_s;
	ro.quiet = !(c->o.flags & PBENCH_CONTEST_SHOW_OUTPUT);
	ro.stop = c->o.stop;
	ro.resumed = c->o.resumed;
	if (c->o.profile && !e->argv)
		return pb_fail_msg(-EINVAL, "--profile samples commands, not a workload or a "
				   "function");
	ro.profile = c->o.profile;	/* opts.profile: every timed run sampled */
	ro.profile_freq = c->o.profile_freq;
	ro.profile_event = c->o.profile_event;
	ro.debug_dirs = c->o.debug_dirs;
	ro.profile_top = c->o.profile_top;
	ro.flags = (c->o.flags & PBENCH_CONTEST_SIGNALS ? PBENCH_RUNS_SIGNALS : 0) |
		   (c->o.flags & PBENCH_CONTEST_PRIORITY_CACHE ? PBENCH_RUNS_PRIORITY_CACHE : 0) |
		   (c->o.flags & PBENCH_CONTEST_REPROBE ? PBENCH_RUNS_REPROBE : 0);
	err = pbench_runs_new(&n->r, &ro);
	if (err) {
		if (err == -EOPNOTSUPP && c->metric)	/* o.metric not countable here */
			return pb_fail_msg(err, "%s", pbench_strerror(err));
		if (err == -EINVAL)
			return pb_fail_msg(err, "nothing to run (no command, an unknown workload, or "
					   "a function missing)");
		if ((err == -PBENCH_ENOT_FOUND || err == -PBENCH_ENOT_EXEC) &&
		    pbench_command_explain(e->argv[0], err, why, sizeof(why)) == 1)
			return pb_fail_msg(err, "%s", why);
		return pb_fail_msg(err, "%s%s%s: %s", e->argv ? "command '" : "",
				   e->argv ? e->argv[0] : "the workload", e->argv ? "'" : "",
				   pbench_strerror(err));
	}
	n->set = pb_runs_set(n->r, 0);
	if (c->metric && !c->metric_unit) {
		c->metric_unit = pb_runs_target_unit(n->r);
		c->higher_better = pb_runs_target_higher(n->r);
	}
	n->digest = e->digest;
	n->ctx = e->ctx;
	return 0;
}

static void entrant_release(struct pb_entrant *n)
{
	free(n->name);
	free(n->given);
	free(n->desc);
	pbench_runs_free(n->r);
	free(n->x);
	free(n->stored_file);
	free(n->mx);
	free(n->pair_ref);
	free(n->pair_own);
	free(n->looks);
	free(n->mem);
	free(n->cmd_mem);
	pb_contest_stored_free(n);
	pb_contest_profile_free(n);
	pb_argv_free(n->setup);
	pb_argv_free(n->prerun);
	pb_argv_free(n->cleanup);
	memset(n, 0, sizeof(*n));
}

/* "NAME #k", k its place from 1. */
static int relabel(struct pb_entrant *e, int k)
{
	size_t len = strlen(e->given) + 16;
	char *l = malloc(len);

	if (!l)
		return -ENOMEM;
	snprintf(l, len, "%s #%d", e->given, k);
	free(e->name);
	e->name = l;
	return 0;
}

/* Entrants given the same name (two identical commands) are told apart in every report, each
 * by its place: "sleep 0.01 #1" and "sleep 0.01 #2". n is the next one, c->e[c->n]. */
static int label(struct pbench_contest *c, struct pb_entrant *n)
{
	int err = 0, same = 0;

	for (int j = 0; j < c->n && !err; j++)
		if (!strcmp(c->e[j].given, n->given)) {
			same = 1;
			if (!strcmp(c->e[j].name, c->e[j].given))
				err = relabel(&c->e[j], j + 1);
		}
	return err || !same ? err : relabel(n, c->n + 1);
}

int pbench_contest_add(struct pbench_contest *c, const struct pbench_contest_entrant *in)
{
	struct pbench_contest_entrant e = { 0 };
	struct pb_entrant *n;
	int err;

	if (!c)
		return pb_fail(-EINVAL, "%s(): c is NULL", __func__);
	if ((err = PB_CHECK_STRUCT(in, pbench_contest_entrant, 0, "PBENCH_CONTEST_ENTRANT_INIT")))
		return err;
	if (c->ran)
		return -EALREADY;
	pb_copy_in(&e, sizeof(e), in);
	/* refused now, before a third command is looked for or anything else added */
	if (pb_contest_is_duet(c) && (!e.argv || c->n == 2))
		return pb_fail_msg(-EINVAL, "a duet runs two commands at the same time: %s",
				   e.stored_ns ? "a baseline's times cannot run again" :
				   e.argv ? "give exactly two" : e.workload == PBENCH_WORKLOAD_FN ?
				   "functions are compared interleaved" :
				   "built-in workloads are compared interleaved");
	if (c->n == c->cap) {
		int ncap = c->cap ? c->cap * 2 : 4;
		struct pb_entrant *ne = realloc(c->e, (size_t)ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		c->e = ne;
		c->cap = ncap;
	}
	n = &c->e[c->n];
	memset(n, 0, sizeof(*n));
	n->desc = describe(&e);
	n->given = e.name ? strdup(e.name) : n->desc ? strdup(n->desc) : NULL;
	n->name = n->given ? strdup(n->given) : NULL;
	err = !n->desc || !n->name ? -ENOMEM : e.stored_ns ? add_stored(c, n, &e) :
	      add_runs(c, n, &e);
	if (!err)
		err = label(c, n);
	if (err) {
		entrant_release(n);
		return err;
	}
	n->live = !e.stored_ns;
	n->target_sem_pct = e.target_sem_pct > 0 ? e.target_sem_pct : 0;
	n->max_time_s = e.max_time_s > 0 ? e.max_time_s : 0;
	if ((e.setup && (err = pb_command_copy(e.setup, &n->setup, "setup"))) ||
	    (e.prerun && (err = pb_command_copy(e.prerun, &n->prerun, "prepare"))) ||
	    (e.cleanup && (err = pb_command_copy(e.cleanup, &n->cleanup, "cleanup")))) {
		entrant_release(n);
		return err;
	}
	if (e.stored_ns && e.stored_file && !(n->stored_file = strdup(e.stored_file))) {
		entrant_release(n);
		return -ENOMEM;
	}
	if (!e.argv && !e.stored_ns && e.workload == PBENCH_WORKLOAD_FN)
		n->fn = e.fn;
	return c->n++;
}

void pbench_contest_free(struct pbench_contest *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		entrant_release(&c->e[i]);
	free(c->e);
	pb_argv_free(c->setup);
	pb_argv_free(c->prerun);
	pb_argv_free(c->cleanup);
	free(c->events);
	free(c->metric);
	free(c->target_metrics);
	free(c);
}

/* ---- the test after a round ----------------------------------------------------------------- */

static int all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return 0;
	return 1;
}

/*
 * No spread to judge by (exact counts: the instructions of a loop, the same every run): the
 * t-test has no standard error and would divide by zero. Each side's values all alike (or,
 * paired, each pair's ratio alike) are exact: the ratio is known with no doubt, its interval
 * that one ratio (degenerate), p 0 when it differs from 1 and 1 when it is 1, so that the
 * verdict comes at the first look as any sure one does. Values that vary are not this case
 * (-EINVAL, as the test said).
 */
static int degenerate(const double *a, size_t na, const double *b, size_t nb, int paired,
		      struct pbench_welch *w)
{
	double ra = paired && b[0] > 0 ? a[0] / b[0] : NAN;

	for (size_t i = 1; i < na; i++)
		if (paired ? !(b[i] > 0) || a[i] / b[i] != ra : a[i] != a[0])
			return -EINVAL;
	for (size_t i = 1; !paired && i < nb; i++)
		if (b[i] != b[0])
			return -EINVAL;
	if (!paired)
		ra = b[0] > 0 ? a[0] / b[0] : a[0] == b[0] ? 1 : NAN;
	if (!isfinite(ra))
		return -EINVAL;
	memset((char *)w + sizeof(w->size), 0, sizeof(*w) - sizeof(w->size));
	w->ratio = w->ratio_lo = w->ratio_hi = ra;
	w->diff = w->diff_lo = w->diff_hi = ra > 0 ? log(ra) : ra - 1;
	w->se = 0;
	w->t = ra == 1 ? 0 : w->diff > 0 ? INFINITY : -INFINITY;
	w->p = ra == 1 ? 1 : 0;
	w->df = (double)(na + nb - 2);
	return 0;
}

/* What entrant i's test is on: its pairs with the reference (1), or both sides' values (0):
 * the times, or the metric's values. */
static int sides(const struct pbench_contest *c, int i, const double **a, size_t *na,
		 const double **b, size_t *nb)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	int paired = pb_contest_paired(c) && e->r;

	*a = paired ? e->pair_own : c->metric ? e->mx : e->x;
	*b = paired ? e->pair_ref : c->metric ? ref->mx : ref->x;
	*na = paired ? e->npairs : c->metric ? e->mn : e->n;
	*nb = paired ? e->npairs : c->metric ? ref->mn : ref->n;
	return paired;
}

/* Entrant i's test against the reference at level, on the logs: paired on the rounds (or a
 * duet's pairs), else Welch's (a stored reference, the sequential order). */
static int test(const struct pbench_contest *c, int i, double level, struct pbench_welch *w)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = level,
					.flags = PBENCH_STATS_LOG };
	const double *a, *b;
	size_t na, nb;
	int paired = sides(c, i, &a, &na, &b, &nb), err;

	w->size = sizeof(*w);
	/* a count of 0 has no log: the test on the values then, the ratio of their means */
	if (c->metric && (!all_positive(a, na) || !all_positive(b, nb)))
		so.flags = 0;
	err = paired ? pbench_stats_paired(a, b, na, &so, w) :
	      pbench_stats_welch(a, na, b, nb, &so, w);
	if (err == -EINVAL && na >= 2 && nb >= 2)
		err = degenerate(a, na, b, nb, paired, w);
	return err;
}

/* Looks made as the rounds come (not one look at the end of a fixed budget). */
static int sequential(const struct pbench_contest *c)
{
	return c->o.order != PBENCH_CONTEST_ORDER_SEQUENTIAL &&
	       !(c->o.flags & PBENCH_CONTEST_FULL_BUDGET);
}

/* The confidence of each comparison with the reference: Bonferroni over k - 1 of them. */
static double pair_confidence(const struct pbench_contest *c)
{
	return 1 - (1 - c->o.confidence) / (c->n > 2 ? c->n - 1 : 1);
}

/* The equivalence margin on the scale of w's diff: the log of 1 + same_pct, or for a test on
 * the values themselves (a metric with counts of 0) same_pct of the reference's mean, which
 * diff / (ratio - 1) is (mean_a - mean_b over mean_a / mean_b - 1). */
static double margin(const struct pbench_contest *c, const struct pb_entrant *e)
{
	const double *a, *b;
	size_t na, nb;
	double mb = 0;

	sides(c, (int)(e - c->e), &a, &na, &b, &nb);
	if (!c->metric || (all_positive(a, na) && all_positive(b, nb)))
		return log1p(c->o.same_pct / 100);
	for (size_t k = 0; k < nb; k++)
		mb += b[k] / (double)nb;
	return c->o.same_pct / 100 * fabs(mb);
}

/* Rounds more that would likely decide, at the difference and spread seen: the t statistic
 * grows as the square root of the rounds. INFINITY when nothing could decide it. */
static double rounds_needed(const struct pbench_contest *c, const struct pb_entrant *e,
			    const struct pbench_welch *w, double n)
{
	double tq = pbench_stats_t_quantile(c->look_level, w->df), need = INFINITY;

	if (fabs(w->t) > 0)
		need = n * (tq / fabs(w->t)) * (tq / fabs(w->t));
	if (c->o.same_pct > 0) {
		double m = margin(c, e), room = m - fabs(w->diff);

		if (room > 0)
			need = fmin(need, n * (tq * w->se / room) * (tq * w->se / room));
	}
	return isfinite(need) ? fmax(0, need - n) : INFINITY;
}

/* The verdict of one look: faster or slower, else the same within same_pct, else undecided. */
static int decide(const struct pbench_contest *c, struct pb_entrant *e)
{
	unsigned flags = sequential(c) ? PBENCH_VERDICT_SEQUENTIAL : 0;
	int v = pbench_stats_verdict(&e->w, pair_confidence(c), 0, flags);
	struct pbench_tost t = { .size = sizeof(t) };
	double m = margin(c, e);

	e->p_same = NAN;
	if (c->o.same_pct > 0 && !pbench_stats_tost(&e->w, -m, m, &t)) {
		e->p_same = t.p;
		/* Each side at half the look's alpha: the interval reported lies within. */
		if (v == PBENCH_VERDICT_UNDECIDED && t.p < (1 - c->look_level) / 2)
			v = PBENCH_VERDICT_SAME;
	}
	return v;
}

static void record_look(struct pb_entrant *e, long round, double elapsed_s)
{
	struct pb_look l = { round, elapsed_s, e->w.ratio, e->w.ratio_lo, e->w.ratio_hi };

	if (e->nlooks == e->looks_cap) {
		size_t ncap = e->looks_cap ? e->looks_cap * 2 : 64;
		struct pb_look *nl = realloc(e->looks, ncap * sizeof(*nl));

		if (!nl)
			return;	/* the history is for the plot: the verdict does not need it */
		e->looks = nl;
		e->looks_cap = ncap;
	}
	e->looks[e->nlooks++] = l;
}

void pb_contest_set_level(struct pbench_contest *c)
{
	c->look_level = 1 - (1 - pair_confidence(c)) /
			(sequential(c) ? PB_VERDICT_LOOK_FACTOR : 1);
}

/* Between looks, for the progress line: each undecided entrant's test so far and the time it
 * would likely need, neither a verdict nor a look. */
static void peek(struct pbench_contest *c)
{
	double per_round = c->rounds ? c->elapsed_s / (double)c->rounds : NAN;

	for (int i = 0; i < c->n; i++) {
		struct pb_entrant *e = &c->e[i];

		if (i == c->o.reference || (e->verdict && e->verdict != PBENCH_VERDICT_UNDECIDED))
			continue;
		e->verdict = PBENCH_VERDICT_UNDECIDED;
		e->have_w = test(c, i, c->look_level, &e->w) == 0;
		e->need_s = e->have_w ? rounds_needed(c, e, &e->w, (double)c->rounds) * per_round :
			    NAN;
	}
}

int pb_contest_look_if_due(struct pbench_contest *c)
{
	if (c->rounds < c->next_look) {
		if (c->o.progress)
			peek(c);
		return 0;
	}
	c->next_look = (long)fmax((double)c->rounds + 1, ceil((double)c->rounds * LOOK_GROWTH));
	return pb_contest_look(c);
}

int pb_contest_look(struct pbench_contest *c)
{
	const struct pb_entrant *ref = &c->e[c->o.reference];
	/* A stored reference has all its times from the start: the rule counts the runs. */
	double level, per_round, ref_n = ref->r ? (double)ref->n : INFINITY;
	int undecided = 0;

	pb_contest_set_level(c);
	level = c->look_level;
	c->last_look = c->rounds;
	per_round = c->rounds ? c->elapsed_s / (double)c->rounds : NAN;
	for (int i = 0; i < c->n; i++) {
		struct pb_entrant *e = &c->e[i];

		if (i == c->o.reference || (e->verdict && e->verdict != PBENCH_VERDICT_UNDECIDED))
			continue;
		e->verdict = PBENCH_VERDICT_UNDECIDED;
		e->have_w = test(c, i, level, &e->w) == 0;
		if (!e->have_w) {
			undecided++;
			e->need_s = NAN;
			continue;
		}
		record_look(e, c->rounds, c->elapsed_s);
		/* Too few runs to trust the spread: the test is shown, not acted on. */
		if ((long)(pb_contest_paired(c) && e->r ? (double)e->npairs : fmin(e->n, ref_n)) >=
		    c->o.min_rounds)
			e->verdict = decide(c, e);
		if (e->verdict == PBENCH_VERDICT_UNDECIDED) {
			undecided++;
			e->need_s = rounds_needed(c, e, &e->w, (double)c->rounds) * per_round;
			continue;
		}
		e->decided_round = c->rounds;
		e->decided_s = c->elapsed_s;
		e->need_s = NAN;
		e->live = 0;	/* decided: it runs no more */
	}
	return undecided == 0;
}

/* How far an undecided entrant is from its verdict: not yet testable is furthest. */
static double lag(const struct pb_entrant *e)
{
	return !e->have_w || isnan(e->need_s) ? INFINITY : e->need_s;
}

int pb_contest_laggard(const struct pbench_contest *c)
{
	int who = -1;

	for (int i = 0; i < c->n; i++)
		if (i != c->o.reference && c->e[i].verdict == PBENCH_VERDICT_UNDECIDED &&
		    (who < 0 || lag(&c->e[i]) > lag(&c->e[who])))
			who = i;
	return who;
}

int pb_contest_attach_memory(struct pbench_contest *c, int i,
				 const struct pbench_mem_run *runs, int n)
{
	struct pbench_mem_run *copy;

	if (!c || i < 0 || i >= c->n || !runs || n < 1)
		return -EINVAL;
	copy = calloc((size_t)n, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (int k = 0; k < n; k++)
		pb_copy_in(&copy[k], sizeof(copy[k]), &runs[k]);
	free(c->e[i].cmd_mem);
	c->e[i].cmd_mem = copy;
	c->e[i].nr_cmd_mem = n;
	return 0;
}

/* Command entrant i's runs against the reference's on one figure per run (kind): 0, or
 * -ENODATA when either has none or a run not counted. */
int pb_contest_cmd_mem(const struct pbench_contest *c, int i, int kind,
		       struct pbench_mem_comparison *out)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];

	if (!e->cmd_mem || !ref->cmd_mem)
		return -ENODATA;
	return pb_mem_runs_compare(ref->cmd_mem, ref->nr_cmd_mem, e->cmd_mem, e->nr_cmd_mem,
				       kind, c->o.confidence, c->o.same_pct, out);
}
