/* SPDX-License-Identifier: MIT */
/*
 * A run seen over time (opts.interval_ms, pbench stat -I as perf stat -I): a long run (a 60 s
 * server benchmark) summed into one count hides where in it the command slowed and what the
 * counters did then. While a command runs, pbench sleeps in its wait for the command's end
 * (ppoll on the command's pidfd, opened once a run, whose timeout ends the sleep at the
 * interval's end, to the ns) and reads the set the command inherits: a read() of a running counter gives
 * the count so far, summed over the command's processes, with time_enabled and time_running.
 * An interval is the difference of two such reads; the last one's end is the run's own stop
 * snapshot, so the intervals of a run add up to its counts exactly. Nothing else runs in the
 * parent, and nothing is read in the command: the cost is one wake-up, a pidfd and a read()
 * per group an interval, on whatever CPU pbench is on (the command's own under a prepared
 * run, where pbench's thread is above it and preempts it for that long).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process.h"
#include "counters/counts.h"
#include "runs/runs_inner.h"

int pb_runs_intervals_init(struct pbench_runs *r)
{
	size_t n = (size_t)(r->nr ? r->nr : 1);

	r->iv_pidfd = -1;
	if (!(r->o.interval_ms > 0))
		return 0;
	r->iv_sum = calloc(n, sizeof(*r->iv_sum));
	r->iv_now = calloc(n, sizeof(*r->iv_now));
	return r->iv_sum && r->iv_now ? 0 : -ENOMEM;
}

void pb_runs_intervals_free(struct pb_run *run)
{
	free(run->iv);
	free(run->iv_counts);
	run->iv = NULL;
	run->iv_counts = NULL;
	run->niv = run->iv_cap = 0;
	run->iv_end_ticks = 0;
}

/* Room for one more interval: 0 or -ENOMEM (the run keeps what it has). */
static int grow(struct pb_run *run, int nr)
{
	struct pb_interval *iv;
	struct pbench_count *k;
	int cap;

	if (run->niv < run->iv_cap)
		return 0;
	cap = run->iv_cap ? 2 * run->iv_cap : 64;
	iv = realloc(run->iv, (size_t)cap * sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	run->iv = iv;
	k = realloc(run->iv_counts, (size_t)cap * (size_t)(nr ? nr : 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	run->iv_counts = k;
	run->iv_cap = cap;
	return 0;
}

/*
 * One event's count in an interval: the count so far (now) less the count up to the last
 * interval (before), scaled by the interval's own share on a counter. An event that was not
 * opened keeps its status; one enabled while the command ran but never on a counter is not
 * counted; one whose task was on no CPU for the whole interval (enabled time 0: the kernel
 * counts a task's events only while it runs, and the count did not move) counted 0.
 */
static void interval_count(const struct pbench_count *now, const struct pbench_count *before,
			   struct pbench_count *k)
{
	*k = *now;
	if (now->status != PBENCH_EVENT_OK && now->status != PBENCH_EVENT_MULTIPLEXED &&
	    now->status != PBENCH_EVENT_NOT_COUNTED)
		return;
	k->value = now->value - before->value;
	k->time_enabled = now->time_enabled - before->time_enabled;
	k->time_running = now->time_running - before->time_running;
	k->status = PBENCH_EVENT_OK;
	pbench_count_scale(k);
	if (!k->time_enabled && !k->value) {
		k->status = PBENCH_EVENT_OK;
		k->reason = "";
	}
}

/* Interval run->niv, ending now (t ticks since the run's start) with the counts now[], which
 * become the sum up to it; now NULL: the counters could not be read, each event is not
 * counted in it (the next interval has its counts too). */
static void add_interval(struct pbench_runs *r, struct pb_run *run, uint64_t t,
			 const struct pbench_count *now, int partial)
{
	struct pbench_count *k;
	struct pb_interval *iv;

	if (grow(run, r->nr))
		return;	/* out of memory: the intervals end here (the run still counts) */
	iv = &run->iv[run->niv];
	iv->start_ns = pbench_ticks_to_ns(run->iv_end_ticks);
	iv->ns = pbench_ticks_to_ns(t) - iv->start_ns;
	iv->partial = partial;
	for (int e = 0; e < r->nr; e++) {
		k = &run->iv_counts[(size_t)run->niv * (size_t)r->nr + (size_t)e];
		if (now) {
			interval_count(&now[e], &r->iv_sum[e], k);
			r->iv_sum[e] = now[e];
			continue;
		}
		*k = r->iv_sum[e];
		k->value = k->time_enabled = k->time_running = 0;
		k->scaled = 0;
		k->is_scaled = 0;
		if (k->status <= PBENCH_EVENT_NOT_COUNTED) {
			k->status = PBENCH_EVENT_NOT_COUNTED;
			k->reason = "the counters could not be read at this interval's end (the "
				    "next interval has its counts)";
		}
	}
	run->iv_end_ticks = t;
	run->niv++;
}

/* The counts so far at an interval's end into r->iv_now: r->self's, which the command
 * inherits. 0, or the read's error. */
static int read_now(struct pbench_runs *r)
{
	if (!pbench_counters_nr_groups(r->self))	/* nothing opened: each keeps its status */
		return pb_counters_read(r->self, r->iv_now, r->nr) < 0 ? -EIO : 0;
	return pb_counters_so_far(r->self, r->iv_now, r->nr) < 0 ? -EIO : 0;
}

/* The command's pidfd for run (opened once a run: a wait per interval), or -1 where the
 * kernel has none (before 5.3). */
static int pidfd_of(struct pbench_runs *r, pid_t pid)
{
	if (r->iv_pidfd >= 0 && r->iv_pid == pid)
		return r->iv_pidfd;
	pb_runs_intervals_release(r);
#ifdef SYS_pidfd_open
	r->iv_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	r->iv_pid = pid;
	return r->iv_pidfd;
}

/* Sleep until until_s after t0 or the command's end: 1 it ended, 0 the time came, -errno
 * (-EINTR: a handler ran). Without a pidfd: pbench_child_wait_timeout()'s own wait. */
static int sleep_until(struct pbench_runs *r, struct pbench_child *ch, uint64_t t0,
		       double until_s, struct pbench_child_result *res)
{
	double left = until_s - pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
	struct pollfd p = { .fd = pidfd_of(r, pb_child_pid(ch)), .events = POLLIN };
	struct timespec ts;
	int n;

	if (p.fd < 0) {
		n = pbench_child_wait_timeout(ch, until_s, res);
		return n == -ETIMEDOUT ? 0 : n ? n : 2;
	}
	left = left > 0 ? left : 0;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	n = ppoll(&p, 1, &ts, NULL);
	return n < 0 ? -errno : n;
}

int pb_runs_wait_intervals(struct pbench_runs *r, struct pbench_child *ch, struct pb_run *run,
			   struct pbench_child_result *res)
{
	double step_s = r->o.interval_ms / 1e3, limit = r->o.timeout_s;
	uint64_t t0 = pb_child_t0(ch);

	/* the sums start at 0 with each run, with the events' names and statuses */
	if (!run->niv && pb_counters_read(r->self, r->iv_sum, r->nr) >= 0)
		for (int e = 0; e < r->nr; e++) {
			struct pbench_count *k = &r->iv_sum[e];

			k->value = k->time_enabled = k->time_running = 0;
			k->scaled = 0;
		}
	for (;;) {
		/* the next interval's end after now, on the grid of the run's start: a wake-up
		 * that came late makes its interval longer, never the next ones shorter */
		double now_s = pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
		double end = (floor(now_s / step_s) + 1) * step_s;
		double until = limit > 0 && limit < end ? limit : end;
		int n = sleep_until(r, ch, t0, until, res), err;

		if (n == 2)	/* reaped by pbench_child_wait_timeout() */
			return 0;
		if (n == 1 || (n == 0 && until == limit)) {
			pb_runs_intervals_release(r);
			return n && !pb_child_past(ch, limit) ? pbench_child_wait(ch, res)
							      : -ETIMEDOUT;
		}
		if (n < 0)
			return n;	/* -EINTR: the caller may wait again */
		err = read_now(r);
		add_interval(r, run, pbench_ticks() - t0, err ? NULL : r->iv_now, 0);
	}
}

void pb_runs_intervals_stop(struct pbench_runs *r, struct pb_run *run, struct pbench_child *ch)
{
	uint64_t t;

	pb_runs_intervals_release(r);
	if (!(r->o.interval_ms > 0) || !pb_child_pid(ch))
		return;
	t = pbench_ticks() - pb_child_t0(ch);
	if (t <= run->iv_end_ticks)
		return;
	add_interval(r, run, t, read_now(r) ? NULL : r->iv_now, 2);
	for (int e = 0; e < r->nr; e++)
		run->counts[e] = r->iv_sum[e];
}

void pb_runs_intervals_release(struct pbench_runs *r)
{
	if (r->iv_sum && r->iv_pidfd >= 0)
		close(r->iv_pidfd);
	r->iv_pidfd = -1;
}

void pb_runs_intervals_end(struct pbench_runs *r, struct pb_run *run)
{
	if (!(r->o.interval_ms > 0) || run->timed_out)
		return;
	if (run->ticks < run->iv_end_ticks)
		return;	/* cannot be: the run's end is after the last interval's */
	add_interval(r, run, run->ticks, run->counts, 1);
}

/* ---- the getters ---------------------------------------------------------------------------- */

static const struct pb_run *run_of(const struct pbench_runs *r, int s, int i)
{
	if (!r || s < 0 || s >= r->nsets || i < 0 || i >= r->sets[s].done)
		return NULL;
	return &r->sets[s].runs[i];
}

int pbench_runs_nr_intervals(const struct pbench_runs *r, int s, int i)
{
	const struct pb_run *run = run_of(r, s, i);

	/* the run the stop cut short, after the last one done */
	if (!run && r && s >= 0 && s < r->nsets && i == r->sets[s].done && r->sets[s].cut)
		return r->sets[s].runs[i].niv;

	if (!run)
		return pb_fail(-EINVAL, "%s(): no run %d in set %d", __func__, i, s);
	return run->niv;
}

int pbench_runs_interval(const struct pbench_runs *r, int s, int i, int k,
			 struct pbench_runs_interval *out)
{
	const struct pb_run *run = run_of(r, s, i);
	struct pbench_runs_interval x = { .size = sizeof(x) };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_runs_interval, 0, NULL)))
		return err;
	if (!run || k < 0 || k >= run->niv)
		return pb_fail(-EINVAL, "%s(): no run %d in set %d, or no interval %d in it",
			       __func__, i, s, k);
	x.start_ns = run->iv[k].start_ns;
	x.ns = run->iv[k].ns;
	x.partial = run->iv[k].partial;
	pb_copy_out(out, &x, sizeof(x));
	return 0;
}

int pbench_runs_interval_count(const struct pbench_runs *r, int s, int i, int k, int e,
			       struct pbench_count *out)
{
	const struct pb_run *run = run_of(r, s, i);
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_count, 0, NULL)))
		return err;
	if (!run || k < 0 || k >= run->niv || e < 0 || e >= r->nr)
		return pb_fail(-EINVAL, "%s(): no run %d in set %d, interval %d or event %d",
			       __func__, i, s, k, e);
	pb_copy_out(out, &run->iv_counts[(size_t)k * r->nr + e], sizeof(*run->iv_counts));
	return 0;
}
