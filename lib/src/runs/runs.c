/* SPDX-License-Identifier: MIT */
/*
 * Sets of runs: the experiment of pbench stat. This file has the object: its options and
 * what it opens before anything runs, each set's summary, Tukey fences and outliers' causes
 * after the runs, the contrast, and the getters. Running is runs_exec.c; the writers are
 * runs_text.c, runs_json.c and runs_csv.c.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "process/process.h"
#include "counters/counts.h"
#include "runs/runs_inner.h"

#define MAX_RUNS PBENCH_RUNS_MAX_RUNS

void pb_runs_subject_desc(const struct pbench_runs *r, char *buf, size_t len)
{
	const struct pb_subject *s = &r->subject;

	if (s->workload == PBENCH_WORKLOAD_MEMWALK)
		snprintf(buf, len, "built-in workload 'memwalk' (%llu steps over %zu MiB)",
			 (unsigned long long)s->iterations, s->walk_bytes >> 20);
	else if (s->workload == PBENCH_WORKLOAD_FN)
		snprintf(buf, len, "a function");
	else
		snprintf(buf, len, "built-in workload 'xor' (%llu iterations)",
			 (unsigned long long)s->iterations);
}

/* ---- options -------------------------------------------------------------------------------- */

/* What pbench_runs_check() refuses in o, in why; "" when nothing. */
static void refusal(const struct pbench_runs_opts *opts, char *why, size_t len)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;

	*why = 0;
	pb_copy_in(&o, sizeof(o), opts);
	if (o.mode < PBENCH_RUNS_UNPREPARED || o.mode > PBENCH_RUNS_CONTRAST)
		snprintf(why, len, "opts->mode is %d, not a pbench_runs_mode", o.mode);
	else if (o.runs < 1 || o.runs > MAX_RUNS || o.warmup_runs < 0 || o.warmup_runs > MAX_RUNS)
		snprintf(why, len, "opts->runs is %ld and opts->warmup_runs %ld: 1 to %ld runs, and "
			 "0 to %ld warm-up runs", o.runs, o.warmup_runs, MAX_RUNS, MAX_RUNS);
	else if (o.cpu < -1)
		snprintf(why, len, "opts->cpu is %d, not a CPU (-1: pbench_cpu_pick())", o.cpu);
	else if (!(o.warmup_ms >= 0) || !isfinite(o.warmup_ms) || o.timeout_s < 0 ||
		 !isfinite(o.timeout_s) || o.target_sem_pct < 0 || !isfinite(o.target_sem_pct) ||
		 o.max_time_s < 0 || !isfinite(o.max_time_s))
		snprintf(why, len, "opts->warmup_ms, timeout_s, target_sem_pct or max_time_s is "
			 "negative or not finite");
	else if (!o.argv && (o.workload < PBENCH_WORKLOAD_XOR || o.workload > PBENCH_WORKLOAD_FN ||
			     (o.workload == PBENCH_WORKLOAD_FN && !o.fn)))
		snprintf(why, len, "nothing to run: no command, an unknown workload, or no function");
	else if (o.argv && !o.argv[0])
		snprintf(why, len, "opts->argv is empty");
	/* the combinations pbench stat refuses with these words */
	else if (o.max_time_s > 0 && !(o.target_sem_pct > 0))
		snprintf(why, len, "--max-time is the time budget of --target-sem: give --target-sem "
			 "too, or use -r for a fixed number of runs");
	else if (o.ncpus > 1 && !o.argv)
		snprintf(why, len, "a list of CPUs for --cpu is for a command that uses several; the "
			 "built-in workload runs on one: give --cpu one CPU");
	else if (o.interval_ms != 0 && !(o.interval_ms >= PBENCH_RUNS_INTERVAL_MIN_MS &&
					 isfinite(o.interval_ms)))
		snprintf(why, len, "opts->interval_ms is %g, not 0 (off) or at "
			 "least %d ms", o.interval_ms, PBENCH_RUNS_INTERVAL_MIN_MS);
	else if (o.interval_ms > 0 && !o.argv)	/* they run on pbench's own thread */
		snprintf(why, len, "-I shows a command's runs over time: give the command after --");
	else if (o.profile < PBENCH_PROFILE_OFF || o.profile > PBENCH_PROFILE_DWARF)
		snprintf(why, len, "opts->profile is %d, not a pbench_profile_mode", o.profile);
	else if (o.profile && !o.argv)	/* sampled: a command's process tree */
		snprintf(why, len, "--profile samples a command: give the command after --");
	else if (o.profile && (!(o.profile_freq >= 0) || !isfinite(o.profile_freq) ||
			       o.profile_freq > 1e6 || o.profile_top < 0))
		snprintf(why, len, "opts->profile_freq is %g and profile_top %d: a rate from 1 to "
			 "1000000 Hz (0: 4000), a count of 0 or more", o.profile_freq,
			 o.profile_top);
}

int pbench_runs_check(const struct pbench_runs_opts *opts)
{
	char why[PB_FAIL_LEN];
	int err;

	if ((err = PB_CHECK_STRUCT(opts, pbench_runs_opts, 0, "PBENCH_RUNS_OPTS_INIT")))
		return err;
	refusal(opts, why, sizeof(why));
	return *why ? pb_fail_msg(-EINVAL, "%s", why) : 0;
}

/* pbench_runs_new()'s: the refusal after "invalid argument: ", as pbench_runs_new() said it. */
static int check_opts(struct pbench_runs *r)
{
	int err = pbench_runs_check(&r->o);

	return err ? pb_fail(err, "%s", pbench_strerror(err)) : 0;
}

/* The helper commands: found now (a name that is not a command fails here, before anything
 * runs), copied. */
static int copy_helpers(struct pbench_runs *r)
{
	char *const *in[] = { r->o.setup, r->o.prerun, r->o.cleanup };
	char **out[3] = { NULL, NULL, NULL };
	static const char *const what[] = { "setup", "prepare", "cleanup" };
	int err = 0;

	for (int i = 0; i < 3 && !err; i++)
		err = pb_command_copy(in[i], &out[i], what[i]);
	r->setup = out[0];
	r->prerun = out[1];
	r->cleanup = out[2];
	r->o.setup = r->setup;
	r->o.prerun = r->prerun;
	r->o.cleanup = r->cleanup;
	return err;
}

/*
 * What a command's child opens: only the events the object's own set could open. The others'
 * status and reason come from that set, so that a run does not try (and fail) to open them
 * again: on this VM cycles and instructions cost 60-90 us a run that way (bench_stat_cost).
 */
static int plan_child(struct pb_child_plan *cp, struct pbench_counters *self, int nr)
{
	size_t len = 1, n = (size_t)(nr ? nr : 1);

	cp->map = calloc(n, sizeof(*cp->map));
	cp->tmpl = calloc(n, sizeof(*cp->tmpl));
	cp->tmp = calloc(n, sizeof(*cp->tmp));
	if (!cp->map || !cp->tmpl || !cp->tmp)
		return -ENOMEM;
	for (int e = 0; e < nr; e++) {
		cp->tmpl[e].size = sizeof(cp->tmpl[e]);
		len += strlen(pbench_counters_name(self, e)) + 1;
	}
	if (nr)
		pb_counters_read(self, cp->tmpl, nr);
	cp->events = calloc(1, len);
	if (!cp->events)
		return -ENOMEM;
	for (int e = 0; e < nr; e++) {
		if (pbench_counters_open_status(self, e) != PBENCH_EVENT_OK)
			continue;
		if (cp->nc)
			strcat(cp->events, ",");
		strcat(cp->events, pbench_counters_name(self, e));
		cp->map[cp->nc++] = e;
	}
	return 0;
}

/*
 * The defaults this machine cannot count (cycles and instructions with no hardware PMU) are
 * left out of the set, their names and reasons kept, so that a report says once why they are
 * missing instead of a line for each in every report: the user did not ask for them. An
 * event named with -e stays in the set with its status. With nothing countable at all
 * (-PBENCH_ENO_EVENTS) every event stays, for its reason.
 */
static int leave_out(struct pbench_runs *r, const struct pbench_counters_opts *copts)
{
	int nr = pbench_counters_nr(r->self), err;
	struct pbench_count *k = calloc((size_t)(nr ? nr : 1), sizeof(*k));
	char *kept = calloc(1, strlen(r->events) + 1);

	if (!k || !kept) {
		err = -ENOMEM;
		goto out;
	}
	for (int e = 0; e < nr; e++)
		k[e].size = sizeof(k[e]);
	pb_counters_read(r->self, k, nr);
	for (int e = 0; e < nr; e++) {
		const char *name = pbench_counters_name(r->self, e);

		if (pbench_counters_open_status(r->self, e) == PBENCH_EVENT_OK ||
		    r->nleft == PB_RUNS_MAX_LEFT_OUT) {
			if (*kept)
				strcat(kept, ",");
			strcat(kept, name);
			continue;
		}
		r->left_reason[r->nleft] = k[e].reason ? k[e].reason : "";
		if (!(r->left_name[r->nleft++] = strdup(name))) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = 0;
	if (!r->nleft)
		goto out;
	pbench_counters_free(r->self);
	r->self = NULL;
	free(r->events);
	r->o.events = r->events = kept;
	kept = NULL;
	err = pbench_counters_open(&r->self, r->events, copts);
out:
	free(k);
	free(kept);
	return err;
}

/* -M: the metrics asked for (*asked, pbench_metric_nr() flags), and the set opened again
 * with their events, each metric's hardware events in one group. */
static int open_metrics(struct pbench_runs *r, const struct pbench_counters_opts *copts,
			unsigned char **asked)
{
	char *list = NULL;
	int err;

	*asked = calloc((size_t)pbench_metric_nr(), 1);
	if (!*asked || !(r->metrics = strdup(r->o.metrics)))
		return -ENOMEM;
	r->o.metrics = r->metrics;
	if ((err = pb_metric_select(r->metrics, *asked)))
		return err;	/* its line said by pb_metric_select() */
	if ((err = pb_metric_event_list(r->events, *asked, &list)))
		return err;
	pbench_counters_free(r->self);
	r->self = NULL;
	free(r->events);
	r->o.events = r->events = list;
	return pbench_counters_open(&r->self, r->events, copts);
}

static int alloc_set(struct pb_set *set, int mode, long runs, int nr)
{
	set->mode = mode;
	set->cpu = -1;
	set->cpu_busy = NAN;
	set->speed_typical = set->clock_typical = NAN;
	set->typ.switches = NAN;	/* pb_runs_analyze() says (typical_run()) */
	set->cap = runs;
	set->fence_lo = set->fence_hi = NAN;
	set->sem_pct = NAN;
	set->runs = calloc((size_t)runs, sizeof(*set->runs));
	set->counts = calloc((size_t)runs * (size_t)(nr ? nr : 1), sizeof(*set->counts));
	return set->runs && set->counts ? 0 : -ENOMEM;
}

/* What is run: the command (found now, before anything is prepared or run, so that a typo
 * changes nothing), the function or the built-in workload with its size. */
static int subject_init(struct pbench_runs *r)
{
	struct pb_subject *sub = &r->subject;

	sub->workload = r->o.argv ? -1 : r->o.workload;
	sub->fn = r->o.fn;
	sub->ctx = r->o.ctx;
	sub->iterations = r->o.iterations ? r->o.iterations :
			  pbench_workload_default_iterations(r->o.workload);
	if (!r->o.argv && r->o.workload == PBENCH_WORKLOAD_MEMWALK)
		sub->walk_bytes = r->o.walk_bytes ? r->o.walk_bytes : pbench_walk_default_bytes();
	if (r->o.argv) {
		char path[4096];
		int err = pbench_command_resolve(r->o.argv[0], path, sizeof(path));

		if (err)
			return err;
		sub->argv = pb_argv_dup(r->o.argv);
		sub->path = strdup(path);
		if (!sub->argv || !sub->path)
			return -ENOMEM;
		r->o.argv = sub->argv;
	}
	return 0;
}

/* A command's CPUs when prepared: copied, each one this process may run on, the prepared CPU
 * among them (the first when none was named). */
static int copy_cpus(struct pbench_runs *r)
{
	struct pbench_runs_opts *o = &r->o;
	cpu_set_t allowed;
	int has_cpu = 0;

	if (o->ncpus <= 0) {
		o->cpus = NULL;
		o->ncpus = 0;
		return 0;
	}
	if (!o->cpus || !o->argv || o->ncpus > CPU_SETSIZE)
		return pb_fail_msg(-EINVAL, "a list of CPUs is for a command's prepared runs");
	r->cpus = malloc((size_t)o->ncpus * sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	CPU_ZERO(&allowed);
	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (int i = 0; i < o->ncpus; i++) {
		r->cpus[i] = o->cpus[i];
		if (r->cpus[i] < 0 || r->cpus[i] >= CPU_SETSIZE || !CPU_ISSET(r->cpus[i], &allowed))
			return pb_fail_msg(-EINVAL, "CPU %d is not one this process may run on",
					   o->cpus[i]);
		has_cpu |= r->cpus[i] == o->cpu;
	}
	if (o->cpu < 0)
		o->cpu = r->cpus[0];
	else if (!has_cpu)
		return pb_fail_msg(-EINVAL, "the prepared CPU %d is not among the command's CPUs",
				   o->cpu);
	o->cpus = r->cpus;
	return 0;
}

/* o.metric: its events added to the list (or its metric to o.metrics) before they open. */
static int target_request(struct pbench_runs *r)
{
	char *events, *metrics;
	int err = pb_metric_target_request(r->o.metric, r->events, r->o.metrics, &events, &metrics);

	r->target_e = r->target_m = -1;
	if (err)
		return err;
	if (events) {
		free(r->events);
		r->o.events = r->events = events;
	}
	if (metrics)
		r->o.metrics = r->target_metrics = metrics;
	return 0;
}

/* The options checked and copied: the CPUs, the helpers, the events (*defaults: none given,
 * the default list), the figure decided on with what it adds to them, the subject. */
static int copy_opts(struct pbench_runs *r, int *defaults)
{
	int err = check_opts(r);

	if (!err && r->o.text_width < 0)
		err = pb_fail(-EINVAL, "pbench_runs_new(): opts->text_width is %d, want 0 (not "
			      "wrapped) or more", r->o.text_width);
	if (!err)
		err = copy_cpus(r);
	if (!err)
		err = copy_helpers(r);
	if (err)
		return err;
	*defaults = !r->o.events;
	r->events = strdup(r->o.events ? r->o.events : PBENCH_RUNS_DEFAULT_EVENTS);
	if (!r->events || (r->o.metric && !(r->metric = strdup(r->o.metric))))
		return -ENOMEM;
	r->o.metric = r->metric;
	if ((err = target_request(r)))
		return err;
	r->o.events = r->events;
	return subject_init(r);
}

/* The events and metrics opened (defaults: the default list, whose events this machine
 * cannot count are left out), the metrics shown and the figure found among them, a
 * command's child plan; a workload's or a function's set enabled. */
static int open_counters(struct pbench_runs *r, int defaults)
{
	struct pbench_counters_opts copts = { .size = sizeof(copts), .cpu = -1 };
	unsigned char *asked = NULL;
	int err;

	/* Names are checked, and what this machine can count is learned, before anything runs.
	 * For a command the set is also where its runs are counted: held on pbench's thread,
	 * never enabled here, inherited by each run's command and counting from its exec (a run
	 * is what it added). Opening a set per run on the command's pid cost ~90 us a run, and
	 * the handshake that allows it a fork and two pipes more (bench_stat_cost). */
	if (r->o.argv)
		copts.flags = PBENCH_COUNTERS_INHERIT | PBENCH_COUNTERS_ENABLE_ON_EXEC;
	err = pbench_counters_open(&r->self, r->events, &copts);
	if (!err && defaults)
		err = leave_out(r, &copts);
	if ((!err || err == -PBENCH_ENO_EVENTS) && r->o.metrics)
		err = open_metrics(r, &copts, &asked);
	if (err && err != -PBENCH_ENO_EVENTS) {
		free(asked);
		return err;
	}
	r->nr = pbench_counters_nr(r->self);
	err = pb_runs_pick_metrics(r, asked);
	free(asked);
	if (err || (err = pb_runs_target_find(r)))
		return err;
	if (r->o.argv && (err = plan_child(&r->subject.plan, r->self, r->nr)))
		return err;
	/* For a command the set is never enabled (its commands enable their copies at exec).
	 * With nothing countable it is kept for its reasons but never started. */
	if (!r->o.argv && pbench_counters_nr_groups(r->self))
		return pbench_counters_enable(r->self);
	return 0;
}

/* The runs' memory: the intervals', the sets' (with a metric, its values too), a CPU probe
 * per CPU; and the clock's information. */
static int alloc_runs(struct pbench_runs *r)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int err;

	if ((err = pb_runs_intervals_init(r)))
		return err;
	r->ci.size = sizeof(r->ci);
	if ((err = pbench_clock_info(&r->ci)))
		return err;
	if (r->o.mode != PBENCH_RUNS_PREPARED)
		err = alloc_set(&r->sets[r->nsets++], PBENCH_RUNS_UNPREPARED, r->o.runs, r->nr);
	if (!err && r->o.mode != PBENCH_RUNS_UNPREPARED)
		err = alloc_set(&r->sets[r->nsets++], PBENCH_RUNS_PREPARED, r->o.runs, r->nr);
	for (int s = 0; !err && s < r->nsets && pb_runs_target_name(r); s++)
		if (!(r->sets[s].mv = calloc((size_t)r->o.runs, sizeof(double))))
			err = -ENOMEM;
	if (err)
		return err;
	r->nprobes = n > 0 && n <= CPU_SETSIZE ? (int)n : 0;
	r->probes = calloc((size_t)(r->nprobes ? r->nprobes : 1), sizeof(*r->probes));
	return r->probes ? 0 : -ENOMEM;
}

int pbench_runs_new(struct pbench_runs **out, const struct pbench_runs_opts *opts)
{
	struct pbench_runs *r;
	int err, defaults = 0;

	pb_fail_clear();
	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if ((err = PB_CHECK_STRUCT(opts, pbench_runs_opts, 0, "PBENCH_RUNS_OPTS_INIT")))
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	pb_copy_in(&r->o, sizeof(r->o), opts);
	r->env_cpu = -1;
	r->spot = &r->spot_own;
	r->spot->end_cpu = r->spot->cpu = -1;
	err = copy_opts(r, &defaults);
	if (!err)
		err = open_counters(r, defaults);
	if (!err)
		err = alloc_runs(r);
	if (!err)
		err = pb_runs_profile_init(r);	/* opts.profile */
	if (err) {
		pbench_runs_free(r);
		return err;
	}
	*out = r;
	return 0;
}

/* ---- after the runs: summaries, fences, causes ---------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorted here); NaN for none. */
static double median_of(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A run's blocks and preemptions within its timed span. getrusage's counts of a command also
 * hold the switches outside it, which the context-switches event, from the exec, does not:
 * the harness's, a block waiting for the release before the exec and a preemption at the exit
 * (pbench, woken by it, takes the CPU). Where the event was counted, those getrusage has beyond
 * it are taken as that block and that preemption first, any more as blocks, then preemptions,
 * so that the span's own are the event's count. (Blocks first for all of them took a
 * `sleep 0.01`'s own block as the harness's and its exit's preemption as the span's.) Else
 * getrusage's as they are (the harness's then in every run: a typical run's hold them too).
 */
static void span_counts(const struct pb_run *run, double *vol, double *inv)
{
	double v = (double)run->noise.ctx_voluntary, i = (double)run->noise.ctx_involuntary;
	double out = fmax(0, v + i - (double)run->span_switches), ov, oi;

	*vol = v;
	*inv = i;
	if (!run->have_span_switches)
		return;
	ov = fmin(fmin(v, out), 1);		/* the release's block */
	oi = fmin(fmin(i, out - ov), 1);	/* the exit's preemption */
	ov += fmin(v - ov, out - ov - oi);	/* any more: blocks, then preemptions */
	oi = out - ov;
	*vol = v - ov;
	*inv = i - oi;
}

static struct pb_typical typical_unknown(void)
{
	return (struct pb_typical){ NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
}

/*
 * A typical run of the set (set->typ): the medians over the measured runs of the time not
 * running, the blocks and preemptions within the span (span_counts()), migrations, major
 * faults, the context-switches event (NaN when a run did not count it) and the CPU's
 * interrupts and steal. An outlier's are told beyond the typical run's, its switches never
 * more than its context-switches event is beyond the typical run's (issue 37).
 */
static void typical_run(struct pb_set *set)
{
	struct pb_typical *t = &set->typ;
	double *v = malloc((size_t)set->done * sizeof(*v)), vol, inv;
	int k, all_cs = 1;

	*t = typical_unknown();
	if (!v)
		return;
#define TYP(field, expr, ok)							\
	k = 0;									\
	for (int i = 0; i < set->done; i++) {					\
		const struct pb_run *run = &set->runs[i];			\
		if (pb_run_measured(run->timed_out) && (ok))			\
			v[k++] = (expr);					\
	}									\
	t->field = median_of(v, k)
	TYP(not_running_ns, run->noise.not_running_ns, isfinite(run->noise.not_running_ns));
	TYP(voluntary, (span_counts(run, &vol, &inv), vol), 1);
	TYP(involuntary, (span_counts(run, &vol, &inv), inv), 1);
	TYP(migrations, (double)run->noise.migrations, 1);
	TYP(major_faults, (double)run->noise.major_faults, 1);
	TYP(switches, (double)run->span_switches, run->have_span_switches);
	TYP(irq_timer, (double)run->cpu_noise.irq_timer, run->have_cpu_noise);
	TYP(irq_ipi, (double)run->cpu_noise.irq_ipi, run->have_cpu_noise);
	TYP(irq_other, (double)run->cpu_noise.irq_other, run->have_cpu_noise);
	TYP(irq_device, (double)run->cpu_noise.irq_device, run->have_cpu_noise);
	TYP(steal_ticks, (double)run->cpu_noise.steal_ticks, run->have_cpu_noise);
	TYP(steal_ns, run->cpu_noise.steal_ns, run->have_cpu_noise &&
	    isfinite(run->cpu_noise.steal_ns));
#undef TYP
	for (int i = 0; i < set->done; i++)
		if (pb_run_measured(set->runs[i].timed_out) && !set->runs[i].have_span_switches)
			all_cs = 0;
	if (!all_cs)
		t->switches = NAN;
	free(v);
}

/* The blocks and preemptions of a typical run within its span: the medians of span_counts(),
 * no more in all than its context-switches event (when counted). */
static void typical_switches(const struct pb_set *set, uint64_t *blocks, uint64_t *preempted)
{
	const struct pb_typical *t = &set->typ;
	/* the lower median of the counts: a whole number of switches */
	double vol = floor(t->voluntary), inv = floor(t->involuntary), cs = floor(t->switches);

	if (isfinite(cs)) {
		vol = fmin(vol, cs);
		inv = fmin(inv, cs - vol);
	}
	*blocks = isfinite(vol) && vol > 0 ? (uint64_t)vol : 0;
	*preempted = isfinite(inv) && inv > 0 ? (uint64_t)inv : 0;
}

/*
 * Blocked time is not noise when the command asks for it: a run of `sleep 0.2` is 200 ms off
 * the CPU because it sleeps, in every run. When the typical run (the medians) blocks within
 * its span, its time off the CPU is the command's own waiting (sleep, I/O, a child it waits
 * for), with the CPU taken from it too if it is also preempted: set->own_wait_ns, in every run
 * alike. A typical run that never blocks keeps own_wait_ns NaN: its time off the CPU is the
 * CPU taken, noise. Outliers are told beyond the typical run either way (typical_run()).
 * A command's runs without the context-switches event: the span's blocks are not known
 * (getrusage's hold the harness's before the exec and at the exit, a block in every run), only
 * its time off the CPU, set->wait_untold_ns, said as such. (A workload's getrusage is its
 * thread's over the span.)
 */
static void own_wait(struct pb_set *set)
{
	uint64_t blocks, preempted;

	set->own_wait_ns = set->wait_untold_ns = NAN;
	set->own_blocks = set->own_preempted = 0;
	for (int i = 0; i < set->done; i++) {
		const struct pb_run *run = &set->runs[i];

		if (pb_run_measured(run->timed_out) && run->rusage_outside &&
		    !run->have_span_switches) {
			/* getrusage's alone: its blocks may all be the harness's */
			if (set->typ.not_running_ns > 0)
				set->wait_untold_ns = set->typ.not_running_ns;
			return;
		}
	}
	typical_switches(set, &blocks, &preempted);
	if (blocks >= 1 && set->typ.not_running_ns > 0) {
		set->own_wait_ns = set->typ.not_running_ns;
		set->own_blocks = blocks;
		set->own_preempted = preempted;
	}
}

/* An outlier's noise beyond the typical run's, within its span (PBENCH_CAUSE_TYPICAL): each
 * count and time the run had over the typical run's, 0 when not over; the switches no more
 * than its context-switches event is over the typical run's, preemptions first. */
static void beyond_typical(const struct pb_set *set, const struct pb_run *run,
			   struct pbench_noise *task)
{
	const struct pb_typical *t = &set->typ;
	double inv, vol;

	span_counts(run, &vol, &inv);
	inv = fmax(0, inv - t->involuntary);
	vol = fmax(0, vol - t->voluntary);
	if (isfinite(t->switches) && run->have_span_switches) {
		double cs = fmax(0, (double)run->span_switches - t->switches);

		inv = fmin(inv, cs);
		vol = fmin(vol, cs - inv);
	}
	task->ctx_involuntary = isfinite(inv) ? (uint64_t)floor(inv) : 0;
	task->ctx_voluntary = isfinite(vol) ? (uint64_t)floor(vol) : 0;
	task->not_running_ns = isfinite(t->not_running_ns) ?
			       fmax(0, run->noise.not_running_ns - t->not_running_ns) :
			       run->noise.not_running_ns;
	task->migrations = (uint64_t)fmax(0, floor((double)run->noise.migrations -
						   t->migrations));
	task->major_faults = (uint64_t)fmax(0, floor((double)run->noise.major_faults -
						     t->major_faults));
}

/* A count beyond the typical run's: 0 when not over it (or the typical one is not known). */
static uint64_t over(uint64_t n, double typical)
{
	return isfinite(typical) ? (uint64_t)fmax(0, floor((double)n - typical)) : n;
}

/* The same of the CPU's noise: the interrupts and steal beyond a typical run's (the devices
 * named are the run's own). */
static void cpu_beyond_typical(const struct pb_set *set, const struct pb_run *run,
			       struct pbench_cpu_noise *cpu)
{
	const struct pb_typical *t = &set->typ;

	*cpu = run->cpu_noise;
	cpu->irq_timer = over(cpu->irq_timer, t->irq_timer);
	cpu->irq_ipi = over(cpu->irq_ipi, t->irq_ipi);
	cpu->irq_other = over(cpu->irq_other, t->irq_other);
	cpu->irq_device = over(cpu->irq_device, t->irq_device);
	cpu->irq_total = cpu->irq_timer + cpu->irq_ipi + cpu->irq_other + cpu->irq_device;
	cpu->steal_ticks = over(cpu->steal_ticks, t->steal_ticks);
	if (isfinite(cpu->steal_ns) && isfinite(t->steal_ns))
		cpu->steal_ns = cpu->steal_ticks ? fmax(0, cpu->steal_ns - t->steal_ns) : 0;
}

/* With a metric: the summary of its per-run values and its Tukey fences, on which the
 * outliers are then told (NaN fences: none). */
static void analyze_metric(struct pb_set *set)
{
	double *v, iqr;
	size_t n = 0;

	set->have_mv = 0;
	set->mfence_lo = set->mfence_hi = NAN;
	if (!set->mv || !(v = malloc((size_t)set->done * sizeof(*v))))
		return;
	for (int i = 0; i < set->done; i++)
		if (pb_run_measured(set->runs[i].timed_out) && isfinite(set->mv[i]))
			v[n++] = set->mv[i];
	set->s_mv.size = sizeof(set->s_mv);
	set->have_mv = n && !pbench_stats_summary(v, n, NULL, &set->s_mv);
	free(v);
	if (!set->have_mv || n < 2)
		return;
	iqr = set->s_mv.q3 - set->s_mv.q1;
	set->mfence_lo = set->s_mv.q1 - 1.5 * iqr;
	set->mfence_hi = set->s_mv.q3 + 1.5 * iqr;
}

/* The cause of run i, an outlier, in its run->cause: its noise (less pbench's own waiting when
 * flags has PBENCH_CAUSE_OWN_WAIT) and its clock's speed against the set's usual one. */
static void outlier_cause(struct pb_set *set, int i, unsigned flags)
{
	struct pb_run *run = &set->runs[i];
	struct pbench_noise task = run->noise;
	struct pbench_cpu_noise cpu;
	double x = (double)run->ns, blame, typical;
	unsigned clock;
	char cause[512];

	task.size = sizeof(task);
	beyond_typical(set, run, &task);
	if (run->have_cpu_noise)
		cpu_beyond_typical(set, run, &cpu);
	clock = pb_runs_blame_factor(set, i, &blame, &typical) ? PBENCH_CAUSE_CLOCK : 0;
	if (clock && set->clock_source == PBENCH_SPEED_SOURCE_PMU)
		clock |= PBENCH_CAUSE_CLOCK_PMU;
	if (run->self_stopped)	/* what the run's noise says is the stop's */
		snprintf(cause, sizeof(cause), "pbench itself was stopped (SIGSTOP or "
			 "SIGTSTP) during this run and continued: its time holds the stop");
	else
		pbench_noise_cause_speed(cause, sizeof(cause), x - set->s_ns.median, x, blame,
					 typical, &task, run->have_cpu_noise ? &cpu : NULL,
					 flags | clock);
	free(run->cause);
	run->cause = strdup(cause);
}

void pb_runs_analyze(struct pb_set *set)
{
	unsigned flags = set->policy == SCHED_FIFO ? PBENCH_CAUSE_FIFO : 0;
	int n = 0;
	double *ns, *ticks, iqr;

	set->have_summary = 0;
	set->outliers = 0;
	set->own_wait_ns = set->wait_untold_ns = NAN;
	set->own_blocks = 0;
	set->measured = 0;
	set->typ = typical_unknown();
	for (int i = 0; i < set->done; i++)
		set->runs[i].outlier = 0;
	if (!set->done)
		return;
	ns = malloc((size_t)set->done * sizeof(*ns));
	ticks = malloc((size_t)set->done * sizeof(*ticks));
	set->s_ns.size = set->s_ticks.size = sizeof(struct pbench_summary);
	if (!ns || !ticks) {
		free(ns);
		free(ticks);
		return;
	}
	for (int i = 0; i < set->done; i++)
		if (pb_run_measured(set->runs[i].timed_out)) {	/* the rule: stats/samples.h */
			ns[n] = (double)set->runs[i].ns;
			ticks[n++] = (double)set->runs[i].ticks;
		}
	set->measured = n;
	if (!n) {
		free(ns);
		free(ticks);
		return;
	}
	if (!pbench_stats_summary(ns, (size_t)n, NULL, &set->s_ns) &&
	    !pbench_stats_summary(ticks, (size_t)n, NULL, &set->s_ticks))
		set->have_summary = 1;
	free(ns);
	free(ticks);
	analyze_metric(set);
	if (!set->have_summary || n < 2)
		return;
	/* Tukey's fences, as pbench_stats_summary counts its outliers; none from one run. */
	iqr = set->s_ns.q3 - set->s_ns.q1;
	set->fence_lo = set->s_ns.q1 - 1.5 * iqr;
	set->fence_hi = set->s_ns.q3 + 1.5 * iqr;
	typical_run(set);
	own_wait(set);
	flags |= PBENCH_CAUSE_TYPICAL;
	if (isfinite(set->own_wait_ns))
		flags |= PBENCH_CAUSE_OWN_WAIT;
	for (int i = 0; i < set->done; i++) {
		struct pb_run *run = &set->runs[i];
		double x = (double)run->ns;

		run->outlier = pb_run_measured(run->timed_out) &&
			       (set->mv ? set->mv[i] < set->mfence_lo || set->mv[i] > set->mfence_hi :
				x < set->fence_lo || x > set->fence_hi);
		if (!run->outlier)
			continue;
		set->outliers++;
		outlier_cause(set, i, flags);
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pb_runs_task_clock_share(const struct pb_set *set)
{
	double *v = malloc((size_t)(set->done ? set->done : 1) * sizeof(*v)), m = NAN;
	int n = 0;

	for (int i = 0; v && i < set->done; i++) {
		const struct pb_run *run = &set->runs[i];

		if (pb_run_measured(run->timed_out) && run->ns && isfinite(run->noise.not_running_ns))
			v[n++] = 1 - run->noise.not_running_ns / (double)run->ns;
	}
	if (n) {
		qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
		m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return m;
}

/*
 * Whether the runs themselves show no sign of a busy CPU: a typical run's task-clock at least
 * PB_CLEAN_SHARE of its wall time and, where the context-switches event was counted in every
 * run, a typical run not switched out within its span (issue 37: a busy reading before the
 * runs is not what the runs went through). Without task-clock the runs cannot say.
 */
#define PB_CLEAN_SHARE 0.99
static int runs_clean(const struct pb_set *set)
{
	double share = pb_runs_task_clock_share(set);

	if (!(share >= PB_CLEAN_SHARE))
		return 0;
	return !isfinite(set->typ.switches) || set->typ.switches < 1;
}

int pb_runs_unreliable(const struct pb_set *set)
{
	int u = 0;

	if (set->mode != PBENCH_RUNS_PREPARED || !set->prepared)
		return 0;
	if (set->cpu_busy >= PBENCH_CPU_BUSY && !runs_clean(set))
		u |= PB_UNRELIABLE_BUSY;
	if (pb_runs_task_clock_share(set) < PB_WAITED_SHARE)
		u |= PB_UNRELIABLE_WAITED;
	return u;
}

int pbench_runs_caution(const struct pbench_runs *r, int s, char *buf, size_t len)
{
	const struct pb_set *set;
	int u, n = 0;

	if (!r || s < 0 || s >= r->nsets || (!buf && len))
		return pb_fail(-EINVAL, "%s(): %s", __func__, !r ? "r is NULL" : "no such set");
	set = &r->sets[s];
	u = pb_runs_unreliable(set);
	if (len)
		buf[0] = '\0';
	if (u & PB_UNRELIABLE_BUSY)
		n = snprintf(buf, len, "every CPU this process may use was busy with other work "
			     "(CPU %d, the least busy, %.0f%% over the 200 ms before the runs): the "
			     "prepared runs shared it, and their times are not the command's alone",
			     set->cpu, set->cpu_busy * 100);
	if (u & PB_UNRELIABLE_WAITED) {
		double share = pb_runs_task_clock_share(set), wall = set->have_summary ?
			       set->s_ns.median : NAN;
		char a[32] = "n/a", b[32] = "n/a";

		if (isfinite(wall)) {
			pbench_format_ns(a, sizeof(a), wall * share, 3);
			pbench_format_ns(b, sizeof(b), wall, 3);
		}
		n += snprintf((size_t)n < len ? buf + n : NULL, (size_t)n < len ? len - (size_t)n :
			      0, "%stask-clock %s against %s of wall time (a typical run: %.2f of "
			      "it): the command waited or was preempted for the rest", n ? "; " : "",
			      a, b, share);
	}
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The mean of a uint64_t field of the runs not ended at the timeout, zeros included (a run
 * with no CPU time in user space counts as 0, not as missing); NaN without such runs. */
double pb_runs_mean_field(const struct pb_set *s, size_t off)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < s->done; i++)
		if (pb_run_measured(s->runs[i].timed_out)) {
			sum += (double)*(const uint64_t *)((const char *)&s->runs[i] + off);
			n++;
		}
	return n ? sum / n : NAN;
}

double pb_runs_median_field(const struct pb_set *s, size_t off)
{
	uint64_t *v = malloc((size_t)(s->done ? s->done : 1) * sizeof(*v));
	double m = NAN;
	int n = 0;

	for (int i = 0; v && i < s->done; i++) {
		uint64_t x = *(const uint64_t *)((const char *)&s->runs[i] + off);

		if (x && pb_run_measured(s->runs[i].timed_out))
			v[n++] = x;
	}
	if (n) {
		qsort(v, (size_t)n, sizeof(*v), cmp_u64);
		m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	}
	free(v);
	return m;
}

const struct pb_set *pb_runs_set_of(const struct pbench_runs *r, int mode)
{
	for (int s = 0; s < r->nsets; s++)
		if (r->sets[s].mode == mode)
			return &r->sets[s];
	return NULL;
}

/* A percentage with two significant digits, and never in exponent form. */
int pb_runs_contrast(const struct pbench_runs *r, double *spread_ratio, double *cv_ratio,
		     char *verdict, size_t len)
{
	const struct pb_set *u = pb_runs_set_of(r, PBENCH_RUNS_UNPREPARED);
	const struct pb_set *p = pb_runs_set_of(r, PBENCH_RUNS_PREPARED);
	char su[32], sp[32];

	if (!u || !p || !u->have_summary || !p->have_summary || u->measured < 2 ||
	    p->measured < 2)
		return 0;
	*spread_ratio = p->s_ns.spread_pct > 0 ? u->s_ns.spread_pct / p->s_ns.spread_pct : NAN;
	*cv_ratio = p->s_ns.cv_pct > 0 ? u->s_ns.cv_pct / p->s_ns.cv_pct : NAN;
	pb_format_pct(su, sizeof(su), u->s_ns.spread_pct, -1);
	pb_format_pct(sp, sizeof(sp), p->s_ns.spread_pct, -1);
	if (!isfinite(*spread_ratio))
		snprintf(verdict, len, "prepared runs did not vary at all (0%% spread) against %s "
			 "unprepared", su);
	else if (*spread_ratio >= 1)
		snprintf(verdict, len, "prepared runs spread %s against %s unprepared: %.1fx "
			 "tighter", sp, su, *spread_ratio);
	else
		snprintf(verdict, len, "prepared runs spread %s against %s unprepared: %.1fx "
			 "wider, preparing did not steady this workload here", sp, su,
			 1 / *spread_ratio);
	pb_runs_speed_verdict(r, verdict, len);
	return 1;
}

/* ---- the public getters --------------------------------------------------------------------- */

static const struct pb_set *set_at(const struct pbench_runs *r, int s)
{
	return r && s >= 0 && s < r->nsets ? &r->sets[s] : NULL;
}

static const struct pb_run *run_at(const struct pbench_runs *r, int s, int i)
{
	const struct pb_set *set = set_at(r, s);

	return set && i >= 0 && i < set->done ? &set->runs[i] : NULL;
}

int pbench_runs_nr_sets(const struct pbench_runs *r)
{
	return r ? r->nsets : 0;
}

int pbench_runs_nr_events(const struct pbench_runs *r)
{
	return r ? r->nr : 0;
}

const char *pbench_runs_event_name(const struct pbench_runs *r, int e)
{
	return r && e >= 0 && e < r->nr ? pbench_counters_name(r->self, e) : NULL;
}

int pbench_runs_left_out(const struct pbench_runs *r, int i, const char **name,
			 const char **reason)
{
	if (!r || i < 0)
		return -EINVAL;
	if (i >= r->nleft)
		return -ENOENT;
	if (name)
		*name = r->left_name[i];
	if (reason)
		*reason = r->left_reason[i];
	return 0;
}

int pbench_runs_set_info(const struct pbench_runs *r, int s, struct pbench_runs_set *out)
{
	const struct pb_set *set = set_at(r, s);
	struct pbench_runs_set i = { 0 };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_runs_set, 0, NULL)))
		return err;
	if (!set)
		return pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	i.size = out->size;
	i.mode = set->mode;
	i.prepared = set->prepared;
	i.done = set->done;
	i.failed = set->failed;
	i.outliers = set->outliers;
	i.stop = set->stop;
	i.sem_pct = set->sem_pct;
	i.elapsed_s = set->elapsed_s;
	i.cpu = set->cpu;
	i.cpu_reason = set->cpu_reason;
	i.policy = set->policy;
	i.prio_value = set->prio_value;
	i.policy_name = set->policy_name;
	i.warmup_ms = set->warmup_ms;
	i.rest_ms = set->rest_ms;
	i.restore_err = set->restore_err;
	i.restored_by = set->restored_by;
	i.rival_pid = set->rival_pid;
	i.fence_lo_ns = set->fence_lo;
	i.fence_hi_ns = set->fence_hi;
	i.setup_ns_median = r->subject.argv ? pb_runs_median_field(set,
					offsetof(struct pb_run, setup_ns)) : NAN;
	i.exec_ns_median = r->subject.argv ? pb_runs_median_field(set,
					offsetof(struct pb_run, exec_ns)) : NAN;
	i.speed_cost_ns_median = pb_runs_speed_cost(set);
	i.user_ns_mean = pb_runs_mean_field(set, offsetof(struct pb_run, user_ns));
	i.cpu_busy = set->cpu_busy;
	i.task_clock_share = pb_runs_task_clock_share(set);
	i.unreliable = pb_runs_unreliable(set);
	i.system_ns_mean = pb_runs_mean_field(set, offsetof(struct pb_run, system_ns));
	pb_copy_out(out, &i, sizeof(i));
	return 0;
}

int pbench_runs_summary(const struct pbench_runs *r, int s, struct pbench_summary *ns,
			struct pbench_summary *ticks)
{
	const struct pb_set *set = set_at(r, s);
	int err;

	if ((ns && (err = PB_CHECK_STRUCT(ns, pbench_summary, 0, NULL))) ||
	    (ticks && (err = PB_CHECK_STRUCT(ticks, pbench_summary, 0, NULL))))
		return err;
	if (!set)
		return pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	if (!set->have_summary)
		return -ENODATA;
	if (ns)
		pb_copy_out(ns, &set->s_ns, sizeof(set->s_ns));
	if (ticks)
		pb_copy_out(ticks, &set->s_ticks, sizeof(set->s_ticks));
	return 0;
}

int pbench_runs_get(const struct pbench_runs *r, int s, int i, struct pbench_run *out)
{
	const struct pb_run *run = run_at(r, s, i);
	struct pbench_run x = { 0 };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_run, 0, NULL)))
		return err;
	if (!run)
		return pb_fail(-EINVAL, "%s(): no run %d in set %d", __func__, i, s);
	x.size = out->size;
	x.ticks = run->ticks;
	x.ns = run->ns;
	x.setup_ns = run->setup_ns;
	x.exec_ns = run->exec_ns;
	x.exited = run->exited;
	x.exit_status = run->exit_status;
	x.signaled = run->signaled;
	x.term_signal = run->term_signal;
	x.timed_out = run->timed_out;
	x.left_behind = run->left_behind;
	x.cpu = run->cpu;
	x.outlier = run->outlier;
	x.cause = run->cause;
	x.speed = run->speed;
	x.user_ns = run->user_ns;
	x.system_ns = run->system_ns;
	x.ref_before_ns = run->ref_before_ns;
	x.ref_after_ns = run->ref_after_ns;
	pb_copy_out(out, &x, sizeof(x));
	return 0;
}

int pbench_runs_count(const struct pbench_runs *r, int s, int i, int e, struct pbench_count *out)
{
	const struct pb_run *run = run_at(r, s, i);
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_count, 0, NULL)))
		return err;
	if (!run || e < 0 || e >= r->nr)
		return pb_fail(-EINVAL, "%s(): no run %d in set %d, or no event %d", __func__, i, s,
			       e);
	pb_copy_out(out, &run->counts[e], sizeof(run->counts[e]));
	return 0;
}

int pbench_runs_noise(const struct pbench_runs *r, int s, int i, struct pbench_noise *task,
		      struct pbench_cpu_noise *cpu)
{
	const struct pb_run *run = run_at(r, s, i);
	int err;

	if (cpu && (err = PB_CHECK_STRUCT(cpu, pbench_cpu_noise, 0, NULL)))
		return err;
	if (!run)
		return pb_fail(-EINVAL, "%s(): no run %d in set %d", __func__, i, s);
	if (task && (err = PB_CHECK_STRUCT(task, pbench_noise, 0, NULL)))
		return err;
	if (task)
		pb_copy_out(task, &run->noise, sizeof(run->noise));
	if (!cpu)
		return 0;
	if (!run->have_cpu_noise)
		return -ENODATA;
	pb_copy_out(cpu, &run->cpu_noise, sizeof(run->cpu_noise));
	return 0;
}

int pbench_runs_contrast(const struct pbench_runs *r, double *spread_ratio, double *cv_ratio,
			 char *verdict, size_t len)
{
	double sr, cr;
	char v[PB_RUNS_VERDICT_LEN];

	if (!r)
		return -EINVAL;
	if (!pb_runs_contrast(r, &sr, &cr, v, sizeof(v)))
		return -ENODATA;
	if (spread_ratio)
		*spread_ratio = sr;
	if (cv_ratio)
		*cv_ratio = cr;
	if (verdict && len)
		snprintf(verdict, len, "%s", v);
	return 0;
}

void pbench_runs_free(struct pbench_runs *r)
{
	if (!r)
		return;
	for (int s = 0; s < 2; s++) {
		for (int i = 0; r->sets[s].runs && i < r->sets[s].done; i++)
			free(r->sets[s].runs[i].cause);
		/* a run cut short by a stop has intervals, and is not one of done */
		for (long i = 0; r->sets[s].runs && i < r->sets[s].cap; i++)
			pb_runs_intervals_free(&r->sets[s].runs[i]);
		free(r->sets[s].runs);
		free(r->sets[s].counts);
		free(r->sets[s].mv);
		pbench_walk_free(r->sets[s].walk);
	}
	for (int c = 0; r->probes && c < r->nprobes; c++)
		pbench_cpu_probe_free(r->probes[c]);
	free(r->probes);
	free(r->cpus);
	pbench_check_free(r->env);
	if (!r->speed_borrowed)
		pbench_speed_free(r->speed);
	pb_argv_free(r->setup);
	pb_argv_free(r->prerun);
	pb_argv_free(r->cleanup);
	free(r->mem);
	free(r->subject.path);
	free(r->subject.plan.events);
	free(r->subject.plan.map);
	free(r->subject.plan.tmpl);
	free(r->subject.plan.tmp);
	pb_argv_free(r->subject.argv);
	pbench_counters_free(r->self);
	free(r->events);
	free(r->metrics);
	free(r->metric);
	free(r->target_metrics);
	free(r->mshow);
	free(r->mlist);
	pb_runs_intervals_release(r);
	free(r->iv_sum);
	free(r->iv_now);
	pb_runs_profile_free(r);
	for (int i = 0; i < r->nleft; i++)
		free(r->left_name[i]);
	free(r);
}

int pb_runs_attach_memory(struct pbench_runs *r, const struct pbench_mem_run *runs, int n)
{
	struct pbench_mem_run *copy;

	if (!r || !runs || n < 1)
		return -EINVAL;
	copy = calloc((size_t)n, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		pb_copy_in(&copy[i], sizeof(copy[i]), &runs[i]);
	free(r->mem);
	r->mem = copy;
	r->nr_mem = n;
	return 0;
}
