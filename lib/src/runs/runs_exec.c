/* SPDX-License-Identifier: MIT */
/*
 * Running the sets of a pbench_runs object (runs.c has the object): each run timed in ticks and
 * ns, counted, and probed for the noise on its CPU; a set stops at its count, or at the target
 * standard error within the time budget, or when the caller's stop flag is set. Prepared sets
 * run between pbench_prepare() and its restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "stats/samples.h"
#include "process/process.h"
#include "profile/profile.h"
#include "noise/noise.h"
#include "measure/measure.h"
#include "counters/counts.h"
#include "runs/runs_inner.h"

/* ---- one run ------------------------------------------------------------------------------- */

static int run_workload(struct pbench_runs *r, struct pb_set *set, struct pb_run *run)
{
	const struct pb_subject *s = &r->subject;
	int counting = pbench_counters_nr_groups(r->self) > 0;
	uint64_t t0, t1;
	int err;

	if (!counting) {
		/* Nothing could be opened: the read fills in each event's status and reason. */
		err = pb_counters_read(r->self, run->counts, r->nr);
		if (err < 0)
			return err;
	} else if ((err = pbench_counters_start(r->self))) {
		return err;
	}
	t0 = pbench_ticks_begin();
	if (set->walk)
		run->result = pbench_walk_run(set->walk, s->iterations);
	else if (s->workload == PBENCH_WORKLOAD_FN)
		s->fn(s->ctx);
	else
		run->result = pbench_workload_xor(s->iterations, t0);
	t1 = pbench_ticks_end();
	if (counting) {
		err = pbench_counters_stop(r->self);
		if (!err && (err = pb_counters_delta(r->self, run->counts, r->nr)) > 0)
			err = 0;
		if (err)
			return err;
	}
	run->ticks = t1 - t0;
	run->ns = pbench_ticks_to_ns(run->ticks);
	run->exited = 1;
	return 0;
}

/* A run ended at the timeout: killed with what it started, its counters never read. */
static void timed_out(struct pbench_runs *r, struct pb_run *run, uint64_t t0)
{
	for (int e = 0; e < r->nr; e++) {
		run->counts[e].status = PBENCH_EVENT_NOT_COUNTED;
		run->counts[e].reason = "the run was killed at the timeout";
	}
	run->timed_out = 1;
	run->signaled = 1;
	run->term_signal = SIGKILL;
	run->ticks = pbench_ticks() - t0;
	run->ns = pbench_ticks_to_ns(run->ticks);
}

/* Start the subject's command: counted with the events the set could open, pinned to cpu
 * when cpu >= 0 (prepared: to the CPUs asked, r->o.cpus, when there is a list), its stdout to
 * stdout_fd when > 0. Alone: counted in the object's own set, which it inherits (started
 * with vfork); beside another command (alone 0: a duet), in a set of its own opened on its
 * pid, since a command started while the other runs would inherit the other's set too. */
static int command_start(struct pbench_runs *r, int prepared, int cpu, int stdout_fd,
			 int alone, struct pbench_child **ch, struct pb_profile **prof)
{
	const struct pb_child_plan *cp = &r->subject.plan;
	struct pbench_child_opts copts = { .size = sizeof(copts),
					   .events = cp->nc ? cp->events : NULL,
					   .quiet = r->o.quiet, .stdout_fd = stdout_fd,
					   .cpus = prepared ? r->o.cpus : NULL,
					   .ncpus = prepared ? r->o.ncpus : 0,
					   .path = r->subject.path };

	if (alone && cp->nc)
		copts.counters = r->self;
	if (cpu >= 0) {
		copts.flags = PBENCH_CHILD_PIN;
		copts.cpu = cpu;
	}
	if (prof)	/* opts.profile: a timed run sampled (runs_profile.c) */
		return pb_runs_profile_start(r, &copts, prof, ch);
	/* Alone, with nothing to do until it ends (no intervals to read, no timeout): pbench's
	 * thread may stay on its CPU (child_watcher.c). */
	return pb_child_start_stderr(ch, r->subject.argv, &copts, r->stderr_fd,
				     alone && !(r->o.interval_ms > 0) && !(r->o.timeout_s > 0));
}

int pb_runs_command_start(struct pbench_runs *r, int prepared, int cpu, int stdout_fd,
			  int alone, struct pbench_child **ch)
{
	return command_start(r, prepared, cpu, stdout_fd, alone, ch, NULL);
}

/* The wait for a command's run: its intervals (opts.interval_ms), its profile's rings copied
 * as they fill (opts.profile), or the plain wait. */
static int wait_run(struct pbench_runs *r, struct pbench_child *ch, struct pb_run *run,
		    struct pb_profile *prof, struct pbench_child_result *res)
{
	if (r->o.interval_ms > 0)
		return pb_runs_wait_intervals(r, ch, run, res);
	if (prof)
		return pb_profile_wait(prof, ch, r->o.timeout_s, res);
	return pbench_child_wait_timeout(ch, r->o.timeout_s, res);
}

/* The counts of a command that ended into k[0..n-1]: how many it has, or an error. */
static int child_counts(const struct pbench_child *ch, struct pbench_count *k, int n)
{
	int nr = pbench_child_nr_counts(ch), err = 0;

	for (int i = 0; i < nr && i < n && !err; i++) {
		k[i].size = sizeof(k[i]);
		err = pbench_child_count(ch, i, &k[i]);
	}
	return err ? err : nr;
}

/* The run of a command that ended (res from pbench_child_wait): its counts, times and status;
 * ch is freed. */
int pb_runs_command_finish(struct pbench_runs *r, struct pbench_child *ch,
			   const struct pbench_child_result *res, struct pb_run *run)
{
	const struct pb_child_plan *cp = &r->subject.plan;
	int err = 0;

	for (int e = 0; e < r->nr; e++)
		run->counts[e] = cp->tmpl[e];
	if (pbench_child_counters(ch)) {
		/* its own set: the events the object's set could open */
		for (int k = 0; k < cp->nc; k++)
			cp->tmp[k].size = sizeof(cp->tmp[k]);
		err = child_counts(ch, cp->tmp, cp->nc);
		for (int k = 0; err >= 0 && k < cp->nc; k++)
			run->counts[cp->map[k]] = cp->tmp[k];
	} else if (cp->nc) {
		err = child_counts(ch, run->counts, r->nr);	/* the object's set */
	}
	run->end_cpu = pb_child_last_cpu(ch);
	pbench_child_free(ch);
	if (err < 0)
		return err;
	run->ticks = res->ticks;
	run->ns = res->ns;
	run->setup_ns = pbench_ticks_to_ns(res->setup_ticks);
	run->exec_ns = pbench_ticks_to_ns(res->exec_ticks);
	run->exited = res->exited;
	run->exit_status = res->exit_status;
	run->signaled = res->signaled;
	run->term_signal = res->term_signal;
	run->left_behind = res->left_behind;
	run->child_ru = (struct pb_rusage){ .nvcsw = res->ctx_voluntary,
					    .nivcsw = res->ctx_involuntary,
					    .minflt = res->minor_faults, .majflt = res->major_faults,
					    .user_ns = res->user_ns, .system_ns = res->system_ns };
	run->have_child_ru = 1;
	return 0;
}

/* A command that did not end by the timeout: killed with what it started. */
void pb_runs_command_timed_out(struct pbench_runs *r, struct pbench_child *ch,
			       struct pb_run *run, uint64_t t0)
{
	pbench_child_free(ch);
	timed_out(r, run, t0);
}

/* The window on a run's CPU noise (pb_runs_one()), closed once: at a command's reaping
 * (pb_child_on_end(): what it left running is ended after, not in the run), else after. */
struct noise_window {
	struct pbench_cpu_probe *probe;
	struct pb_run *run;
	int closed;
};

static void close_window(void *arg)
{
	struct noise_window *w = arg;

	if (w->closed)
		return;
	w->closed = 1;
	if (w->run->have_cpu_noise)
		w->run->have_cpu_noise = pbench_cpu_probe_end(w->probe, &w->run->cpu_noise) == 0;
}

static int run_command(struct pbench_runs *r, const struct pb_set *set, struct pb_run *run,
		       int stdout_fd, struct noise_window *w)
{
	int prepared = set->mode == PBENCH_RUNS_PREPARED;
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	struct pb_profile *prof = NULL;
	uint64_t t0 = pbench_ticks();
	int err;

	err = command_start(r, prepared, -1, stdout_fd, 1, &ch,
			    pb_runs_profiling(r) ? &prof : NULL);
	if (err)
		return err;
	pb_child_on_end(ch, close_window, w);
	/* The stop flag (the caller's Ctrl-C) or the timeout: end the command with its group
	 * now rather than wait for one that may never end; any other signal: keep waiting. */
	do
		err = wait_run(r, ch, run, prof, &res);
	while (err == -EINTR && !(r->o.stop && *r->o.stop));
	if (err == -ETIMEDOUT) {
		pb_runs_command_timed_out(r, ch, run, t0);
		pb_profile_free(prof);	/* cut short, not measured: not in the profile either */
		return 0;
	}
	if (err) {
		if (err == -EINTR)	/* stopped: what -I measured so far is kept */
			pb_runs_intervals_stop(r, run, ch);
		pbench_child_free(ch);
		pb_profile_free(prof);
		return err;
	}
	if (prof)
		pb_runs_profile_keep(r, set, set->done, prof);
	err = pb_runs_command_finish(r, ch, &res, run);
	if (!err)
		pb_runs_intervals_end(r, run);
	return err;
}

/* ---- noise ---------------------------------------------------------------------------------- */

struct pbench_cpu_probe *pb_runs_probe(struct pbench_runs *r, int cpu)
{
	if (cpu < 0 || cpu >= r->nprobes)
		return NULL;
	if (!r->probes[cpu]) {
		if (pbench_cpu_probe_new(&r->probes[cpu], cpu))
			return r->probes[cpu] = NULL;
		/* One text of /proc/interrupts for them all: a run on another CPU than the
		 * last one's takes its rows from it while no interrupt came since. */
		for (int i = 0; i < r->nprobes; i++)
			if (i != cpu && r->probes[i] &&
			    !pb_cpu_probe_share(r->probes[cpu], r->probes[i]))
				break;
	}
	return r->probes[cpu];
}

static int find_event(const struct pb_run *run, int nr, const char *a, const char *b)
{
	for (int e = 0; e < nr; e++)
		if (run->counts[e].name && (!strcmp(run->counts[e].name, a) ||
					    (b && !strcmp(run->counts[e].name, b))) &&
		    run->counts[e].status <= PBENCH_EVENT_MULTIPLEXED)
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
static void fill_noise(struct pb_run *run, int nr, const struct pb_rusage *u)
{
	int tc = find_event(run, nr, "task-clock", NULL);
	int mig = find_event(run, nr, "cpu-migrations", "migrations");
	int cs = find_event(run, nr, "context-switches", "cs");

	run->noise.size = sizeof(run->noise);
	run->noise.ctx_involuntary = u->nivcsw;
	run->noise.ctx_voluntary = u->nvcsw;
	run->noise.minor_faults = u->minflt;
	run->noise.major_faults = u->majflt;
	run->user_ns = u->user_ns;
	run->system_ns = u->system_ns;
	run->noise.not_running_ns = tc >= 0 ? fmax(0, (double)run->ns - run->counts[tc].scaled)
				    : NAN;
	run->have_migrations = mig >= 0;
	run->noise.migrations = mig >= 0 ? (uint64_t)run->counts[mig].scaled : 0;
	run->have_span_switches = cs >= 0;
	run->span_switches = cs >= 0 ? (uint64_t)run->counts[cs].scaled : 0;
}

static uint64_t tv_ns(const struct timeval *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_usec * 1000u;
}

static void rusage_delta(struct pb_rusage *u, const struct rusage *a, const struct rusage *b)
{
	u->nivcsw = (uint64_t)(b->ru_nivcsw - a->ru_nivcsw);
	u->nvcsw = (uint64_t)(b->ru_nvcsw - a->ru_nvcsw);
	u->minflt = (uint64_t)(b->ru_minflt - a->ru_minflt);
	u->majflt = (uint64_t)(b->ru_majflt - a->ru_majflt);
	u->user_ns = tv_ns(&b->ru_utime) - tv_ns(&a->ru_utime);
	u->system_ns = tv_ns(&b->ru_stime) - tv_ns(&a->ru_stime);
}

void pb_runs_current_priority(struct pb_set *set)
{
	struct sched_param sp;

	set->policy = sched_getscheduler(0);
	set->policy_name = pbench_sched_policy_name(set->policy);
	if ((set->policy == SCHED_FIFO || set->policy == SCHED_RR) && !sched_getparam(0, &sp))
		set->prio_value = sp.sched_priority;
	else
		set->prio_value = getpriority(PRIO_PROCESS, 0);
}

/* ---- the stop rule and progress ------------------------------------------------------------- */

/* Mean and standard error (% of the mean) of the finished runs; runs ended at the timeout
 * are not measurements. Returns how many runs that is. */
static int set_estimate(const struct pb_set *set, double *mean, double *sem_pct)
{
	struct pbench_welford w = { 0 };

	for (int i = 0; i < set->done; i++)	/* the metric's when there is one */
		if (pb_run_measured(set->runs[i].timed_out) && (!set->mv || isfinite(set->mv[i])))
			pbench_welford_add(&w, set->mv ? set->mv[i] : (double)set->runs[i].ns);
	*mean = w.n ? w.mean : NAN;
	*sem_pct = w.n > 1 && w.mean > 0 ? pbench_welford_sem(&w) / w.mean * 100 : NAN;
	return (int)w.n;
}

/* With a count: the count. With a target: reached after at least PBENCH_RUNS_SEM_MIN_RUNS,
 * or the time budget or the run cap used up; set->stop says which. */
static int set_finished(const struct pbench_runs *r, struct pb_set *set, double elapsed_s)
{
	double mean, sem;
	int n;

	if (!(r->o.target_sem_pct > 0)) {
		set->stop = PBENCH_RUNS_STOP_COUNT;
		return set->done >= r->o.runs;
	}
	n = set_estimate(set, &mean, &sem);
	set->sem_pct = sem;
	if (n >= PBENCH_RUNS_SEM_MIN_RUNS && sem <= r->o.target_sem_pct)
		set->stop = PBENCH_RUNS_STOP_TARGET;
	else if (set->done >= r->o.runs)
		set->stop = PBENCH_RUNS_STOP_MAX_RUNS;
	else if (elapsed_s >= r->o.max_time_s)
		set->stop = PBENCH_RUNS_STOP_TIME;
	else
		return 0;
	return 1;
}

static void progress(const struct pbench_runs *r, const struct pb_set *set, const char *phase,
		     double elapsed_s)
{
	struct pbench_runs_progress p = { .size = sizeof(p), .mode = set->mode, .phase = phase,
					  .run = set->done, .runs = r->o.runs,
					  .target_sem_pct = r->o.target_sem_pct, .left_s = NAN };
	double per_run = set->done ? elapsed_s / set->done : NAN;
	int n;

	if (!r->o.progress)
		return;
	n = set_estimate(set, &p.mean_ns, &p.sem_pct);
	if (set->mv) {	/* the line shows the time, with the SEM of the metric judged */
		struct pb_set t = *set;
		double sem_ns;

		t.mv = NULL;
		set_estimate(&t, &p.mean_ns, &sem_ns);
		p.metric = pb_runs_target_name(r);
	}
	if (r->o.target_sem_pct > 0) {
		/* The SEM falls as 1/sqrt(n): the runs the target needs at this spread. */
		double need = isfinite(p.sem_pct) && p.sem_pct > 0 ?
			      n * (p.sem_pct / r->o.target_sem_pct) *
			      (p.sem_pct / r->o.target_sem_pct) : NAN;

		if (isfinite(need) && isfinite(per_run))
			p.left_s = fmin(fmax(need, PBENCH_RUNS_SEM_MIN_RUNS) - n,
					(double)(r->o.runs - set->done)) * per_run;
		p.left_s = fmin(isfinite(p.left_s) ? p.left_s : INFINITY,
				r->o.max_time_s - elapsed_s);
	} else {
		p.left_s = per_run * (double)(r->o.runs - set->done);
	}
	if (!isfinite(p.left_s) || p.left_s < 0)
		p.left_s = NAN;
	r->o.progress(&p, r->o.progress_arg);
}

static int stopped(const struct pbench_runs *r)
{
	return r->o.stop && *r->o.stop;
}

/* ---- the runs of a set ---------------------------------------------------------------------- */

/* The shortest rest taken after a run under FIFO; shorter ones add up over the runs. The fair
 * server's period is 1 s (RT throttling's too): a rest owed for a few ms is taken in it. */
#define REST_MIN_NS 1e6
#define REST_SLICE_NS 100000L	/* a slice of a rest (rest_while_others()) */

/*
 * Whether a task other than pbench's thread can run now: the kernel's count of runnable tasks
 * (every CPU's, pbench's thread among them: /proc/loadavg's fourth field) above 1. A normal
 * task waiting for the prepared CPU stays runnable until it gets it, so it is counted; with
 * none, a rest would give the CPU to no one, and the fair server has nothing to serve (it runs
 * only while a normal task is queued on its CPU). Unknown (the file unread): 1, rest.
 */
static int others_runnable(void)
{
	char buf[128];
	unsigned running = 0, total = 0;

	if (pb_read_file("/proc/loadavg", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%*s %*s %*s %u/%u", &running, &total) != 2)
		return 1;
	return running > 1;
}

/*
 * A rest owed of owed_ns, taken while another task can run: in slices of REST_SLICE_NS, each
 * followed by a look at whether one still can, up to what is owed. The tasks a real-time run
 * starves on its CPU are most often a kernel thread's few microseconds after each exit: a
 * whole rest for them (1 ms or more) was ~60 us a run of `true`, 9% of it, the most of what
 * prepared runs cost beyond unprepared ones (bench_harness: `true` prepared 1.19-1.23x
 * hyperfine -N before, 1.08-1.13x with the slices; rest.total_ms of 400 runs 20.5-21.7 ms
 * before, 3.3-4.3 ms after, this VM quiet). A task that keeps running (a busy loop) gets the
 * whole rest, as before. The ms rested.
 */
static double rest_while_others(double owed_ns)
{
	uint64_t t0 = pbench_ticks();
	double ns;

	do {
		struct timespec ts = { 0, REST_SLICE_NS };

		nanosleep(&ts, NULL);
		ns = pbench_ticks_to_ns_f((double)(pbench_ticks() - t0));
	} while (ns < owed_ns && others_runnable());
	return ns / 1e6;
}

/* The slot of the set's next run, cleared, with its counts in the set's array. */
struct pb_run *pb_runs_next(struct pbench_runs *r, struct pb_set *set)
{
	struct pb_run *run = &set->runs[set->done];

	set->cut = NULL;
	free(run->cause);
	pb_runs_intervals_free(run);
	memset(run, 0, sizeof(*run));
	run->counts = set->counts + (size_t)set->done * (size_t)r->nr;
	memset(run->counts, 0, (size_t)r->nr * sizeof(*run->counts));
	for (int e = 0; e < r->nr; e++)
		run->counts[e].size = sizeof(run->counts[e]);
	run->cpu_noise.size = sizeof(run->cpu_noise);
	run->ref_before_cpu = run->ref_after_cpu = run->end_cpu = -1;
	return run;
}

/* A duet's next run: on cpu, its CPU's noise probed from now (pb_runs_cpu_noise_end()). */
struct pb_run *pb_runs_next_on(struct pbench_runs *r, struct pb_set *s, int cpu)
{
	struct pb_run *run = pb_runs_next(r, s);
	struct pbench_cpu_probe *probe = pb_runs_probe(r, cpu);

	run->cpu = cpu;
	run->have_cpu_noise = probe && pbench_cpu_probe_begin(probe) == 0;
	return run;
}

void pb_runs_cpu_noise_end(struct pbench_runs *r, struct pb_run *run)
{
	if (run->have_cpu_noise)
		run->have_cpu_noise = pbench_cpu_probe_end(pb_runs_probe(r, run->cpu),
							   &run->cpu_noise) == 0;
}

/* The next run measured: its event names, its noise, the rest after it; kept. */
void pb_runs_keep(struct pbench_runs *r, struct pb_set *set, struct pb_run *run,
		  const struct pb_rusage *u)
{
	/* Names from the set that outlives the runs (a child's set is freed per run). */
	for (int e = 0; e < r->nr; e++)
		run->counts[e].name = pbench_counters_name(r->self, e);
	fill_noise(run, r->nr, u);
	run->rusage_outside = r->subject.argv != NULL;
	/* Under FIFO where the fair server can preempt: the waiting normal tasks run now,
	 * outside the timed span, instead of during a run. A rest shorter than REST_MIN_NS is
	 * taken with the next runs' (the same share of the time): a sleep costs ~50 us more
	 * than it asks here, which after each run of a 0.6 ms command made its rest of 10.5%
	 * (~63 us) 84 us (bench_stat). A rest owed when no other task can run is not taken
	 * (others_runnable()): on a quiet machine it was 10.5% of every run's time for nothing
	 * (bench_harness); the runs say how many were not. One taken lasts while another task
	 * can run, up to what is owed (rest_while_others()). */
	if (set->prep) {
		set->rest_owed_ns += (double)run->ns;
		if (pbench_prepared_rest_ns(set->prep, set->rest_owed_ns) >= REST_MIN_NS) {
			set->rests_owed++;
			if (others_runnable())
				set->rest_ms += rest_while_others(
					pbench_prepared_rest_ns(set->prep, set->rest_owed_ns));
			else
				set->rests_skipped++;
			set->rest_owed_ns = 0;
		}
	}
	if (set->mv)
		set->mv[set->done] = pb_runs_run_value(r, run);
	set->done++;
	set->failed += run->signaled || run->exit_status;
}

/*
 * One run of the set's subject, kept in the set: 0, 1 when the stop flag cut it short (not a
 * measurement: not kept), or an error (pb_fail_msg() says what). stdout_fd > 0: a command's stdout
 * goes there. Each run's CPU noise is probed on the CPU it ran on: the prepared CPU, or for
 * unprepared runs the CPU pbench was on when the run started (sched_getcpu()). That is an
 * approximation: an unprepared workload may migrate mid-run, and a command may start on
 * another CPU than pbench's.
 */
int pb_runs_one(struct pbench_runs *r, struct pb_set *set, int stdout_fd)
{
	int is_cmd = r->subject.argv != NULL, err;
	struct pbench_cpu_probe *probe;
	struct noise_window w;
	unsigned conts;
	struct rusage ru0, ru1;
	struct pb_rusage u;
	struct pb_run *run;

	if (set->done >= set->cap)
		return -ENOSPC;
	run = pb_runs_next(r, set);
	/* The speed's readings outside the noise window: an interrupt during the reference
	 * loop is not the run's. Where (runs_speed.c): a command's before on the CPU the last
	 * command (of any set sharing the loop) ended on, after on the CPU this one ended on; the workload's where it
	 * runs, on this thread. */
	pb_runs_speed_before(r, run, is_cmd ? r->spot->end_cpu : -1);
	run->cpu = set->mode == PBENCH_RUNS_PREPARED ? set->cpu : sched_getcpu();
	probe = pb_runs_probe(r, run->cpu);
	run->have_cpu_noise = probe && pbench_cpu_probe_begin(probe) == 0;
	w = (struct noise_window){ probe, run, 0 };
	conts = r->o.resumed ? *r->o.resumed : 0;
	getrusage(is_cmd ? RUSAGE_CHILDREN : RUSAGE_THREAD, &ru0);
	err = is_cmd ? run_command(r, set, run, stdout_fd, &w) : run_workload(r, set, run);
	getrusage(is_cmd ? RUSAGE_CHILDREN : RUSAGE_THREAD, &ru1);
	run->self_stopped = r->o.resumed && *r->o.resumed != conts;
	close_window(&w);
	if (!is_cmd)
		run->end_cpu = sched_getcpu();
	else if (run->end_cpu >= 0)
		r->spot->end_cpu = run->end_cpu;
	pb_runs_speed_after(r, run, is_cmd ? run->end_cpu : -1);
	if (stopped(r)) {
		/* the run the stop cut short is not a measurement; its intervals are kept */
		if (run->niv)
			set->cut = r->run_kind ? r->run_kind : "run";
		return 1;
	}
	if (err)
		return pb_fail_msg(err, "cannot run%s%s: %s", is_cmd ? " " : "",
				   is_cmd ? r->subject.argv[0] : "", pbench_strerror(err));
	rusage_delta(&u, &ru0, &ru1);
	if (run->have_child_ru)	/* without the processes it left, reaped by pbench */
		u = run->child_ru;
	pb_runs_keep(r, set, run, &u);
	return 0;
}

/* The last line of what fd holds (a command's stderr), cut to fit buf; "" when empty. */
static void last_line(int fd, char *buf, size_t len)
{
	char tail[512];
	off_t end = lseek(fd, 0, SEEK_END), at = end > (off_t)sizeof(tail) - 1 ?
						  end - (off_t)sizeof(tail) + 1 : 0;
	ssize_t n = end > 0 ? pread(fd, tail, (size_t)(end - at), at) : 0;
	char *p;

	n = n > 0 ? n : 0;
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		n--;
	tail[n] = '\0';
	p = strrchr(tail, '\n');
	p = p ? p + 1 : tail;
	for (char *q = p; *q; q++)	/* one line in the message, whatever the command wrote */
		if ((unsigned char)*q < ' ')
			*q = ' ';
	len = strnlen(p, len - 1);
	memcpy(buf, p, len);	/* cut to fit: a long line keeps its start */
	buf[len] = '\0';
}

/* What fd holds, from its start, written to fd 2: a checked run's stderr where the run's
 * own would have gone (pbench's stderr, which the command inherits otherwise). */
static void pass_stderr(int fd)
{
	char buf[4096];
	ssize_t n;
	off_t off = 0;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		if (write(2, buf, (size_t)n) != n)
			return;
		off += n;
	}
}

/*
 * One run of the command, checked: its stdout to stdout_fd (0: as the runs'), its stderr kept
 * (written on to pbench's stderr afterwards when show and the run did not fail), under the
 * run kind asked (NULL: a timed run). 0 when it exited 0; -PBENCH_ECMD_FAILED when it exited
 * non-zero or was killed, pb_fail_msg() saying how and the last line of its stderr; 1 stopped;
 * another error. A run ended at the timeout is not a failure here (the runs say it).
 */
static int run_checked(struct pbench_runs *r, struct pb_set *set, int stdout_fd,
		       const char *name, const char *kind, int show)
{
	int efd = memfd_create("pbench-stderr", MFD_CLOEXEC), err;
	const struct pb_run *run;
	char line[200], status[48];

	if (efd < 0)
		return -errno;
	r->stderr_fd = efd;
	r->run_kind = kind;
	err = pb_runs_one(r, set, stdout_fd);
	r->run_kind = NULL;
	r->stderr_fd = 0;
	run = set->done ? &set->runs[set->done - 1] : NULL;
	if (!err && run && !run->timed_out && (run->signaled || run->exit_status)) {
		if (run->signaled)
			snprintf(status, sizeof(status), "killed by signal %d", run->term_signal);
		else
			snprintf(status, sizeof(status), "exit %d", run->exit_status);
		last_line(efd, line, sizeof(line));
		err = pb_fail_msg(-PBENCH_ECMD_FAILED, "'%s' failed before any timed run: %s; %s%s%s",
				  name, status, *line ? "the last line of its stderr: '" :
				  "its stderr was empty", line, *line ? "'" : "");
	} else if (show) {
		pass_stderr(efd);
	}
	close(efd);
	return err;
}

/*
 * The check run before any timed run (the contest's output check): the command once, its
 * stdout to stdout_fd (0: as the runs'), its stderr kept. Not a measurement: the caller reads
 * the run's status and forgets it (pb_runs_forget()). Returns as run_checked().
 */
int pb_runs_check(struct pbench_runs *r, struct pb_set *set, int stdout_fd, const char *name)
{
	return run_checked(r, set, stdout_fd, name, "check run", 0);
}

/* Forget the set's runs (warm-up runs, a check): the set is as before its first run. */
void pb_runs_forget(struct pbench_runs *r, struct pb_set *set)
{
	(void)r;
	for (int i = 0; i < set->done; i++) {
		free(set->runs[i].cause);
		set->runs[i].cause = NULL;
		pb_runs_intervals_free(&set->runs[i]);
	}
	set->done = 0;
	set->failed = 0;
	set->rest_ms = 0;
	set->rest_owed_ns = 0;
	set->rests_owed = set->rests_skipped = 0;
}

/* A helper command (o.setup, o.prerun, o.cleanup): 0, 1 stopped, or an error (pb_fail_msg()). */
static int helper(struct pbench_runs *r, char **argv, const char *what)
{
	return pb_child_helper(argv, r->o.quiet, r->o.stop, what);
}

/* One run after the prerun command (o.prerun, hyperfine's --prepare: not prepared mode):
 * 0, 1 stopped, or an error (pb_fail_msg()). */
static int prerun_then_run(struct pbench_runs *r, struct pb_set *set)
{
	int err = helper(r, r->prerun, "prepare");

	if (err)
		return err;
	if (!r->check_due)
		return pb_runs_one(r, set, 0);
	/* The first run of all (a warm-up run, or the first timed one) is the check: a command
	 * that fails is said at once, and a long one does not run once more for it. A failed
	 * check is not kept: the set is as before it. */
	r->check_due = 0;
	err = run_checked(r, set, 0, r->subject.argv[0], r->run_kind,
			  r->o.quiet != PBENCH_CHILD_OUTPUT_NULL);
	if (err == -PBENCH_ECMD_FAILED)
		pb_runs_forget(r, set);
	return err;
}

/* The command's own warm-up: o.warmup_runs runs, not kept. */
static int warm_up(struct pbench_runs *r, struct pb_set *set)
{
	int err = 0;

	for (long k = 0; k < r->o.warmup_runs && !err && !stopped(r); k++) {
		progress(r, set, "warm-up", 0);
		r->run_kind = "warm-up run";
		err = prerun_then_run(r, set);
		r->run_kind = NULL;
		pb_runs_forget(r, set);
	}
	return err;
}

/* The runs of one set, by its stop rule, after its warm-up runs. */
static int run_set(struct pbench_runs *r, struct pb_set *set)
{
	uint64_t t_start;
	double elapsed = 0;
	int err = warm_up(r, set);

	if (err)
		return err == 1 ? 0 : err;
	t_start = pbench_ticks();
	while (!stopped(r) && !set_finished(r, set, elapsed)) {
		progress(r, set, "runs", elapsed);
		err = prerun_then_run(r, set);
		if (err == 1)
			break;
		if (err) {
			set->elapsed_s = elapsed;
			progress(r, set, "done", elapsed);
			return err;
		}
		elapsed = pbench_ticks_to_ns_f(pbench_ticks() - t_start) / 1e9;
	}
	set->elapsed_s = elapsed;
	if (stopped(r))
		set->stop = PBENCH_RUNS_STOP_INTERRUPTED;
	progress(r, set, "done", elapsed);
	return 0;
}

int pb_runs_make_walk(struct pbench_runs *r, struct pb_set *set)
{
	int err;

	if (r->subject.argv || r->subject.workload != PBENCH_WORKLOAD_MEMWALK)
		return 0;
	err = pbench_walk_new(&set->walk, r->subject.walk_bytes, 0);
	if (err)
		return pb_fail_msg(err, "cannot make the memory walk's %zu MiB buffer: %s",
				   r->subject.walk_bytes >> 20, pbench_strerror(err));
	return 0;
}

/*
 * Prepare for the set's runs (pbench_prepare's handlers restore on SIGINT/SIGTERM as well),
 * with extra PBENCH_PREPARE_* flags (a duet: no pinning): 0 prepared (the set says how;
 * pb_runs_unprepare() after the runs), 1 stopped while preparing (everything restored,
 * set->stop says so), or an error (pb_fail_msg() says what).
 */
int pb_runs_prepare(struct pbench_runs *r, struct pb_set *set, unsigned extra)
{
	struct pbench_prepare_opts popts = PBENCH_PREPARE_OPTS_INIT;
	struct pbench_prepared *p;
	int err;

	popts.cpu = r->o.cpu;
	popts.warmup_ms = r->o.warmup_ms;
	popts.flags = (r->o.flags & PBENCH_RUNS_SIGNALS ? PBENCH_PREPARE_SIGNALS : 0) |
		      (r->o.flags & PBENCH_RUNS_PRIORITY_CACHE ? PBENCH_PREPARE_PRIORITY_CACHE : 0) |
		      (r->o.flags & PBENCH_RUNS_REPROBE ? PBENCH_PREPARE_REPROBE : 0) | extra;
	progress(r, set, "preparing", 0);
	err = pbench_prepare(&p, &popts);
	progress(r, set, "done", 0);
	if (err == -EINTR || (!err && stopped(r))) {
		if (!err) {
			set->restore_err = pbench_prepared_restore(p);
			pbench_prepared_free(p);
		}
		set->stop = PBENCH_RUNS_STOP_INTERRUPTED;
		return 1;	/* stopped while preparing: everything was restored */
	}
	if (err)
		return pb_fail_msg(err, "cannot prepare%s: %s", r->o.cpu >= 0 ? " the CPU" : "",
				   pbench_strerror(err));
	set->prepared = 1;
	set->cpu = pbench_prepared_cpu(p);
	/* A command run before (the check run, unpinned) ended elsewhere: the first prepared
	 * run's speed is read before it where pbench now is, on the prepared CPU. */
	r->spot->end_cpu = -1;
	snprintf(set->cpu_reason, sizeof(set->cpu_reason), "%s", pbench_prepared_cpu_reason(p));
	for (int s = 0; s < PBENCH_PREPARE_STEP_NR; s++) {
		const struct pbench_prepared_step *po = pbench_prepared_step(p, s);

		if (po) {
			set->steps[s] = *po;
			snprintf(set->step_what[s], sizeof(set->step_what[s]), "%s", po->what);
			set->steps[s].what = "";	/* the text is step_what[s] */
		}
	}
	set->prio.size = sizeof(set->prio);
	pbench_prepared_priority(p, &set->prio);
	set->policy = set->prio.policy;
	set->policy_name = set->prio.policy_name;
	set->prio_value = set->prio.value;
	set->warmup_ms = pbench_prepared_warmup_ms(p);
	set->rival_pid = pbench_cpu_rival(set->cpu);
	set->cpu_busy = pbench_prepared_cpu_busy(p);
	set->prep = p;
	return 0;
}

/* After the prepared runs: another pbench on the CPU, and everything restored. */
void pb_runs_unprepare(struct pbench_runs *r, struct pb_set *set)
{
	struct pbench_prepared *p = set->prep;
	struct pb_fail_saved saved;

	(void)r;
	if (!p)
		return;
	set->prep = NULL;
	pb_fail_save(&saved);	/* a failure of the runs keeps its words; restore_err says this */
	if (!set->rival_pid)
		set->rival_pid = pbench_cpu_rival(set->cpu);
	set->restore_err = pbench_prepared_restore(p);
	set->restored_by = pbench_prepared_signal(p);
	pbench_prepared_free(p);
	pb_fail_restore(&saved);
}

/* What a set prepared by another object's set has: its CPU, steps and priority (prep too,
 * for the rests between runs; the preparing set alone restores). */
void pb_runs_share_prepared(struct pb_set *dst, const struct pb_set *src)
{
	dst->prepared = src->prepared;
	dst->cpu = src->cpu;
	dst->cpu_busy = src->cpu_busy;
	memcpy(dst->cpu_reason, src->cpu_reason, sizeof(dst->cpu_reason));
	memcpy(dst->steps, src->steps, sizeof(dst->steps));
	memcpy(dst->step_what, src->step_what, sizeof(dst->step_what));
	dst->prio = src->prio;
	dst->policy = src->policy;
	dst->policy_name = src->policy_name;
	dst->prio_value = src->prio_value;
	dst->warmup_ms = src->warmup_ms;
	dst->rival_pid = src->rival_pid;
	dst->restore_err = src->restore_err;
	dst->restored_by = src->restored_by;
	dst->prep = src->prep;
}

/* Prepare, run, restore. */
static int run_prepared(struct pbench_runs *r, struct pb_set *set)
{
	int err = pb_runs_prepare(r, set, 0);

	if (err)
		return err == 1 ? 0 : err;
	/* The walk's buffer is made now: on the prepared CPU's node, and locked. */
	err = pb_runs_make_walk(r, set);
	if (!err)
		err = run_set(r, set);
	pbench_walk_free(set->walk);
	set->walk = NULL;
	pb_runs_unprepare(r, set);
	return err;
}

/* The checks of the CPU the prepared runs used (or would use): no windowed checks, and the
 * live machine even where a recorded tree is set (that is for pbench check). */
static void check_cpu(struct pbench_runs *r)
{
	const struct pb_set *last = &r->sets[r->nsets - 1];
	int cpu = last->prepared ? last->cpu : r->o.cpu;
	const int *cpus;

	if (pbench_check(&r->env, cpu >= 0 ? &cpu : NULL, cpu >= 0,
			     PBENCH_CHECK_NO_WINDOW | PBENCH_CHECK_LIVE)) {
		r->env = NULL;
		return;
	}
	r->env_cpu = pbench_check_cpus(r->env, &cpus) > 0 ? cpus[0] : -1;
}

/* The cleanup command, after the setup ran, whatever came after it: an error of its own
 * is kept only when nothing failed before. */
static void cleanup(struct pbench_runs *r, int *err)
{
	struct pb_fail_saved saved;
	int cerr;

	pb_fail_save(&saved);
	cerr = helper(r, r->cleanup, "cleanup");
	if (*err > 0)
		*err = 0;	/* a set stopped while warming up or preparing */
	if (*err)
		pb_fail_restore(&saved);
	else if (cerr < 0)
		*err = cerr;
}

int pbench_runs_run(struct pbench_runs *r)
{
	struct pb_fail_saved saved;
	int err = 0, done = 0;

	pb_fail_clear();
	if (!r)
		return pb_fail(-EINVAL, "%s(): r is NULL", __func__);
	if (r->ran)
		return pb_fail(-EALREADY, "%s(): the runs ran already (call it once)", __func__);
	r->ran = 1;
	err = helper(r, r->setup, "setup");
	if (err)
		return err == 1 ? -EINTR : err;
	/* The first run is the check (prerun_then_run()); a command that fails it ends the runs
	 * at once. */
	r->check_due = r->subject.argv && !(r->o.flags & PBENCH_RUNS_NO_CHECK);
	for (int s = 0; s < r->nsets && !err && !stopped(r); s++) {
		struct pb_set *set = &r->sets[s];

		if (set->mode == PBENCH_RUNS_PREPARED) {
			err = run_prepared(r, set);
			continue;
		}
		pb_runs_current_priority(set);
		err = pb_runs_make_walk(r, set);
		if (!err)
			err = run_set(r, set);
		pbench_walk_free(set->walk);
		set->walk = NULL;
	}
	cleanup(r, &err);
	pb_fail_save(&saved);	/* the failure's words, whatever the checks below leave */
	pb_runs_speed_factors(r);
	for (int s = 0; s < r->nsets; s++) {
		pb_runs_analyze(&r->sets[s]);
		done += r->sets[s].done;
	}
	pb_runs_profile_analyze(r);	/* opts.profile: symbolized now, after every run */
	if (done)
		check_cpu(r);
	r->interrupted = stopped(r);
	if (err)
		pb_fail_restore(&saved);
	else
		pb_fail_clear();
	return err ? err : r->interrupted ? -EINTR : 0;
}
