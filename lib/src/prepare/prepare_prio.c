/* SPDX-License-Identifier: MIT */
/*
 * The priority step of preparing: SCHED_OTHER at the lowest nice allowed, SCHED_FIFO, or
 * (AUTO) SCHED_FIFO where nothing can take time from a FIFO task and, where something can (RT
 * throttling, the fair server), the nice value unless a probe finds FIFO clearly steadier.
 * Every change goes through sched_set(), which marks it for restore_raw() in prepare.c.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "prepare/prepare.h"

#define PROBE_RUN_MS 20.0
#define PROBE_RUNS 10
#define PROBE_MAX_MS 2000.0		/* a slow warm-up function: stop after 3 runs past this */
/* The fair server's period is 1 s (debugfs sched/fair_server/cpuN/period); deferred, it
 * steps in once a FIFO task has kept a normal task waiting for period - runtime (950 ms).
 * A FIFO probe shorter than a period would not see it, and the nice probe lasts as long:
 * the range of more runs is wider, a shorter nice probe would win for that alone. */
#define PROBE_MIN_MS 1100.0

/* Time runs until there are min_runs and min_ms have passed (or, for a slow function, 3 runs
 * and PROBE_MAX_MS), resting rest of each run after it. Returns the number of runs; *spread
 * in %, NaN with fewer than 2. */
static int probe_runs(struct pbench_prepared *p, const struct pb_work *w, double min_ms,
		      double rest, double *spread, double *first)
{
	double lo = INFINITY, hi = 0, start = pb_now_ms(), el;
	int n = 0;

	while (!p->signal) {
		el = pb_now_ms() - start;
		if ((n >= PROBE_RUNS && el >= min_ms) ||
		    (n >= 3 && el >= PROBE_MAX_MS && el >= min_ms))
			break;
		double t = pb_work_run(w);

		pb_rest_ms(t * rest);	/* under FIFO, the rest the runs will have */
		if (n == 0 && first)
			*first = t;
		lo = fmin(lo, t);
		hi = fmax(hi, t);
		n++;
	}
	p->busy_ms += pb_now_ms() - start;
	*spread = n >= 2 && lo > 0 ? (hi - lo) / lo * 100 : NAN;
	return n;
}

static int sched_set(struct pbench_prepared *p, const struct pb_sched_attr *a)
{
	int was = p->sched_changed;

	p->sched_changed = 1;
	if (syscall(SYS_sched_setattr, 0, a, 0) == 0)
		return 0;
	p->sched_changed = was;
	return -errno;
}

/* SCHED_FIFO at the asked priority, or the highest RLIMIT_RTPRIO allows below it. */
static int apply_fifo(struct pbench_prepared *p, int *used)
{
	struct pb_sched_attr a = p->saved_attr;
	struct rlimit rl;
	int err;

	a.policy = SCHED_FIFO;
	a.nice = 0;
	a.priority = (uint32_t)p->o.fifo_priority;
	err = sched_set(p, &a);
	if (err == -EPERM && getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur > 0 &&
	    rl.rlim_cur < a.priority) {
		a.priority = (uint32_t)rl.rlim_cur;
		err = sched_set(p, &a);
	}
	*used = (int)a.priority;
	return err;
}

/* SCHED_OTHER at nice -20, or the lowest nice RLIMIT_NICE allows if that is lower than now. */
static int apply_nice(struct pbench_prepared *p, int *used)
{
	struct pb_sched_attr a = p->saved_attr;
	struct rlimit rl;
	int err, lowest;

	a.policy = SCHED_OTHER;
	a.priority = 0;
	a.nice = -20;
	err = sched_set(p, &a);
	if (err == -EPERM && getrlimit(RLIMIT_NICE, &rl) == 0) {
		/* The limit is 20 - the lowest nice (setrlimit(2)). */
		lowest = rl.rlim_cur >= 40 ? -20 : 20 - (int)rl.rlim_cur;
		if (lowest < p->saved_attr.nice) {
			a.nice = lowest;
			err = sched_set(p, &a);
		}
	}
	*used = a.nice;
	return err;
}

/* Why a FIFO task can lose time here, or "" when it cannot. */
/* The running kernel's major.minor when it has the fair server (6.12 and later), else 0. */
static int fair_server_kernel(int *major, int *minor)
{
	struct utsname u;

	return uname(&u) == 0 && sscanf(u.release, "%d.%d", major, minor) == 2 &&
	       (*major > 6 || (*major == 6 && *minor >= 12));
}

static void fifo_threat(char *why, size_t len)
{
	long runtime = 0;
	int major = 0, minor = 0;

	why[0] = '\0';
	if (pb_read_long("/proc/sys/kernel/sched_rt_runtime_us", &runtime) == 0 && runtime != -1)
		snprintf(why, len, "sched_rt_runtime_us is %ld", runtime);
	if (fair_server_kernel(&major, &minor))
		snprintf(why + strlen(why), len - strlen(why), "%skernel %d.%d has the fair "
			 "server", why[0] ? ", " : "", major, minor);
}

static void prio_result(struct pbench_prepared *p, int mode)
{
	struct pb_sched_attr a;

	p->prio.mode = mode;
	if (pb_sched_getattr(0, &a) == 0) {
		p->prio.policy = (int)a.policy;
		p->prio.value = a.policy == SCHED_FIFO || a.policy == SCHED_RR ? (int)a.priority
										  : a.nice;
	}
	p->prio.policy_name = pbench_sched_policy_name(p->prio.policy);
	p->prio.rest_pct = p->prio.policy == SCHED_FIFO ? 100 * p->rest_ratio : 0;
}

/*
 * What a FIFO run should rest after it, as a share of the run: twice what the fair server
 * (from 6.12; its debugfs runtime and period for the CPU, else the kernel's default of 50 ms
 * per 1000 ms, kernel/sched/deadline.c) or RT throttling (sched_rt_runtime_us of
 * sched_rt_period_us) would take, over what it leaves. Resting, the normal tasks waiting for
 * the CPU run between runs; the deferred fair server counts that against its runtime and
 * never has to preempt a run. 0 when nothing can take the CPU from a FIFO task.
 */
static double fifo_rest_ratio(int cpu)
{
	long run = 0, per = 0, rt = -1, rt_per = 0;
	double ratio = 0;
	int major = 0, minor = 0;
	char path[96];

	if (fair_server_kernel(&major, &minor)) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime",
			 cpu);
		if (pb_read_long(path, &run)) {
			run = 50000000;
			per = 1000000000;
		} else {
			snprintf(path, sizeof(path),
				 "/sys/kernel/debug/sched/fair_server/cpu%d/period", cpu);
			if (pb_read_long(path, &per))
				per = 1000000000;
		}
		if (run > 0 && per > run)
			ratio = 2.0 * (double)run / (double)(per - run);
	}
	if (!pb_read_long("/proc/sys/kernel/sched_rt_runtime_us", &rt) && rt >= 0 &&
	    !pb_read_long("/proc/sys/kernel/sched_rt_period_us", &rt_per) && rt_per > rt && rt > 0)
		ratio = fmax(ratio, 2.0 * (double)(rt_per - rt) / (double)rt);
	return ratio;
}

static void nice_refused(struct pbench_prepared *p, int err, const char *extra)
{
	pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, pb_step_status(err), err,
		   "%scannot lower the nice "
		"value (now %d): %s; it needs CAP_SYS_NICE or a nice limit (ulimit -e)", extra,
		p->saved_attr.nice, pbench_strerror(err));
}

static void nice_done(struct pbench_prepared *p, int used, const char *extra)
{
	prio_result(p, PBENCH_PRIORITY_NICE);
	pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_DONE, 0,
		   "%sSCHED_OTHER nice %d%s", extra,
		used, used > -20 ? " (the lowest the nice limit allows)" : "");
}

static void fifo_refused(struct pbench_prepared *p, int err)
{
	pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, pb_step_status(err), err,
		   "cannot use SCHED_FIFO: %s; "
		"it needs CAP_SYS_NICE or an rtprio limit (ulimit -r) of at least 1",
		pbench_strerror(err));
}

/* AUTO where a FIFO task can lose time: time both and keep the steadier. */
static void prio_probe(struct pbench_prepared *p, struct pb_work *w, const char *threat)
{
	int nice_used = 0, fifo_used = 0, nice_err, err;
	char what[224];

	nice_err = apply_nice(p, &nice_used);	/* refused: the normal candidate is as it was */
	pb_work_calibrate(w, PROBE_RUN_MS);
	p->prio.nice_runs = probe_runs(p, w, PROBE_MIN_MS, 0, &p->prio.nice_spread_pct,
				       &p->prio.run_ms);
	err = apply_fifo(p, &fifo_used);
	if (err) {
		/* Refused although the trial was allowed: keep the normal policy. */
		p->prio.fifo_spread_pct = NAN;
	} else {
		p->prio.fifo_runs = probe_runs(p, w, PROBE_MIN_MS, p->rest_ratio,
					       &p->prio.fifo_spread_pct, NULL);
		p->prio.probed = 1;
	}
	if (p->signal)
		return;
	if (err)
		snprintf(what, sizeof(what), "probe: runs spread %.2f%% at nice %d; SCHED_FIFO "
			 "refused (%s); ", p->prio.nice_spread_pct, nice_err ? p->saved_attr.nice
			 : nice_used, pbench_strerror(err));
	else
		snprintf(what, sizeof(what), "probe: runs spread %.2f%% at nice %d, %.2f%% under "
			 "SCHED_FIFO %d (%s); ", p->prio.nice_spread_pct, nice_err ?
			 p->saved_attr.nice : nice_used, p->prio.fifo_spread_pct, fifo_used, threat);
	/* Resting after each run, FIFO keeps the fair server from preempting (a pinned 27 ms
	 * loop next to a busy normal task: 185-191% spread without rests, 1.1-4.3% with them
	 * in bench_fifo_rest), and
	 * it is the only choice that holds against a busy task in another session: with
	 * sched_autogroup nice only ranks tasks within their session. So FIFO unless it was
	 * clearly worse in the probe; within a factor of two is noise. Without rests (no
	 * fair server or throttling to rest for) FIFO loses no time at all. */
	if (!err && !(p->prio.fifo_spread_pct > 2 * p->prio.nice_spread_pct)) {
		prio_result(p, PBENCH_PRIORITY_FIFO);
		pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_DONE, 0,
			   "%sSCHED_FIFO %d, resting "
			"%.1f%% of each run after it", what, fifo_used, p->prio.rest_pct);
		return;
	}
	if (nice_err) {
		if (!err)
			sched_set(p, &p->saved_attr);	/* back from the FIFO probe */
		prio_result(p, PBENCH_PRIORITY_NONE);
		nice_refused(p, nice_err, what);
		return;
	}
	apply_nice(p, &nice_used);
	nice_done(p, nice_used, what);
}

/*
 * The decision the probe made on this boot for this CPU, from the cache: applied (we are under
 * SCHED_FIFO from the permission test), said with its figures and its age. 0 when there is
 * none, or it can no longer be applied: then the probe runs.
 */
static int prio_cached(struct pbench_prepared *p, const char *threat)
{
	int mode, used, err;
	double when;
	char what[256];

	if (!pb_prio_cache_get(p, &mode, &when))
		return 0;
	snprintf(what, sizeof(what), "the probe's choice on this boot, %.0f s ago (runs spread "
		 "%.2f%% at the lowest nice, %.2f%% under SCHED_FIFO; %s); reprobe to time them "
		 "again: ", fmax(0, (double)time(NULL) - when), p->prio.nice_spread_pct,
		 p->prio.fifo_spread_pct, threat);
	p->prio.cached = 1;
	p->prio.cached_age_s = fmax(0, (double)time(NULL) - when);
	if (mode == PBENCH_PRIORITY_FIFO) {
		prio_result(p, PBENCH_PRIORITY_FIFO);
		pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_DONE, 0,
			   "%sSCHED_FIFO %d, resting %.1f%% of each run after it", what,
			   p->prio.value, p->prio.rest_pct);
		return 1;
	}
	sched_set(p, &p->saved_attr);
	err = apply_nice(p, &used);
	if (err) {
		p->prio.cached = 0;
		p->prio.nice_spread_pct = p->prio.fifo_spread_pct = NAN;
		return 0;
	}
	nice_done(p, used, what);
	return 1;
}

static void prio_auto(struct pbench_prepared *p, struct pb_work *w)
{
	char threat[128];
	int used, err;

	/* Try SCHED_FIFO first, and undo at once: is it permitted at all? */
	err = apply_fifo(p, &used);
	if (err) {
		int nerr = apply_nice(p, &used);
		char extra[160];

		snprintf(extra, sizeof(extra), "no SCHED_FIFO (%s: needs CAP_SYS_NICE or ulimit "
			 "-r); ", pbench_strerror(err));
		if (nerr)
			nice_refused(p, nerr, extra);
		else
			nice_done(p, used, extra);
		return;
	}
	fifo_threat(threat, sizeof(threat));
	if (!threat[0]) {
		prio_result(p, PBENCH_PRIORITY_FIFO);
		pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_DONE, 0,
			   "SCHED_FIFO %d (no RT "
			"throttling, no fair server: nothing takes time from a FIFO task)", used);
		return;
	}
	if ((p->o.flags & PBENCH_PREPARE_PRIORITY_CACHE) &&
	    !(p->o.flags & PBENCH_PREPARE_REPROBE) && prio_cached(p, threat))
		return;
	sched_set(p, &p->saved_attr);
	prio_probe(p, w, threat);
	if ((p->o.flags & PBENCH_PREPARE_PRIORITY_CACHE) && p->prio.probed && !p->signal &&
	    (err = pb_prio_cache_put(p, p->prio.mode)))
		pb_log(PBENCH_LOG_WARN, "the priority probe's choice was not kept for this boot: "
		       "%s", pbench_strerror(err));
}

void pb_step_priority(struct pbench_prepared *p, struct pb_work *w)
{
	int used, err, pol = (int)p->saved_attr.policy;

	p->prio.nice_spread_pct = p->prio.fifo_spread_pct = NAN;
	p->rest_ratio = fifo_rest_ratio(p->cpu);
	prio_result(p, PBENCH_PRIORITY_NONE);
	if (p->o.priority == PBENCH_PRIORITY_NONE) {
		pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_SKIPPED, 0,
			   "not asked: %s %d",
			pbench_sched_policy_name(p->prio.policy), p->prio.value);
		return;
	}
	if (pol != SCHED_OTHER && pol != SCHED_BATCH && pol != SCHED_IDLE) {
		/* Real-time or deadline already: changing it could not be undone unprivileged. */
		pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_SKIPPED, 0,
			   "the thread already "
			"runs under %s: left as it is", pbench_sched_policy_name(pol));
		return;
	}
	switch (p->o.priority) {
	case PBENCH_PRIORITY_NICE:
		err = apply_nice(p, &used);
		if (err)
			nice_refused(p, err, "");
		else
			nice_done(p, used, "");
		return;
	case PBENCH_PRIORITY_FIFO:
		err = apply_fifo(p, &used);
		if (err) {
			fifo_refused(p, err);
			return;
		}
		prio_result(p, PBENCH_PRIORITY_FIFO);
		pb_outcome(p, PBENCH_PREPARE_STEP_PRIORITY, PBENCH_PREPARE_DONE, 0,
			   "SCHED_FIFO %d%s%s", used,
			used < p->o.fifo_priority ? " (the highest the rtprio limit allows)" : "",
			p->prio.rest_pct > 0 ? ", resting after each run (fair server or RT "
			"throttling)" : "");
		return;
	default:
		prio_auto(p, w);
	}
}
