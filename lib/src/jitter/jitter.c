/* SPDX-License-Identifier: MIT */
/*
 * The jitter probe: one pinned thread per CPU spins on the clock and keeps every step between
 * two consecutive reads longer than the threshold (a gap: the thread was not running, or the
 * CPU was taken from it), while its CPU's interrupts, softirqs, steal, its own involuntary
 * context switches and SMIs are counted over the same window.
 *
 * The order in each thread: pin (at creation), prepare (optional), touch the gap buffer,
 * time the loop, wait at the start gate; then the attribution's "before" reads, the window,
 * the "after" reads. The /proc reads are outside the window, so they are not counted as its
 * noise. Figures and text are computed afterwards (jitter_explain.c).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PB_X86 1
#endif

#include "base/base.h"
#include "prepare/prepare.h"
#include "counters/counts.h"
#include "jitter/jitter.h"

#define CALIB_BATCHES 512
#define CALIB_BATCH_NS 20000.0	/* one timed batch of loops */
#define POLL_NS 1000000.0	/* the stop flag and the end are looked at this often */
#define MIN_THRESHOLD_NS 1000.0
#define THRESHOLD_LOOPS 10.0
#define MAX_BUFFERS (1ull << 30)
#define GAP_SIZE sizeof(struct pbench_jitter_gap)
#define THREAD_NAME "pbench-jitter"

/* ---- the spin ---------------------------------------------------------------------------- */

struct spin {
	uint64_t threshold, poll, end;	/* ticks; end is absolute */
	const volatile int *stop;
	struct pbench_jitter_gap *gaps;
	size_t cap;
	/* out */
	uint64_t first, last, loops, count, noise, max;
	size_t n;
	int stopped;
};

static inline uint64_t mono_raw(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The loop, written once and instantiated per clock so that the TSC read is inline: a read, a
 * subtract, a compare with the threshold, and a compare with the next poll. Only a gap (rare)
 * and a poll (once per POLL_NS) take the slow branches.
 */
#define SPIN_BODY(READ)								\
	uint64_t prev = READ, now, next, loops = 0, count = 0, noise = 0, max = 0;	\
	const uint64_t thr = s->threshold, first = prev;				\
	size_t n = 0;									\
											\
	next = s->end - prev > s->poll ? prev + s->poll : s->end;			\
	for (;;) {									\
		uint64_t d;								\
											\
		now = READ;								\
		d = now - prev;								\
		loops++;								\
		if (__builtin_expect(d > thr, 0)) {					\
			count++;							\
			noise += d;							\
			max = d > max ? d : max;					\
			if (n < s->cap) {						\
				s->gaps[n].start_ticks = prev - first;			\
				s->gaps[n].ticks = d;					\
				n++;							\
			}								\
		}									\
		prev = now;								\
		if (__builtin_expect(now >= next, 0)) {					\
			if (now >= s->end)						\
				break;							\
			if (s->stop && *s->stop) {					\
				s->stopped = 1;						\
				break;							\
			}								\
			next = s->end - now > s->poll ? now + s->poll : s->end;		\
		}									\
	}										\
	s->first = first;								\
	s->last = now;									\
	s->loops = loops;								\
	s->count = count;								\
	s->noise = noise;								\
	s->max = max;									\
	s->n = n;

#ifdef PB_X86
static void spin_tsc(struct spin *s)
{
	SPIN_BODY(__rdtsc())
}
#endif

static void spin_mono(struct spin *s)
{
	SPIN_BODY(mono_raw())
}

/* Other tick clocks (arm64's CNTVCT_EL0): the library's plain read. */
static void spin_ticks(struct spin *s)
{
	SPIN_BODY(pbench_ticks())
}

static void spin(const struct pbench_jitter *j, struct spin *s)
{
#ifdef PB_X86
	if (j->clock_kind == PBENCH_CLOCK_TSC) {
		spin_tsc(s);
		return;
	}
#endif
	if (j->clock_kind != PBENCH_CLOCK_MONOTONIC_RAW) {
		spin_ticks(s);
		return;
	}
	spin_mono(s);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The loop period: CALIB_BATCHES short spins with no gap kept, each timed as a whole. A batch
 * that was interrupted is longer; the minimum and the median are not moved by a few. */
static void calibrate(struct pb_jitter_run *r)
{
	const struct pbench_jitter *j = r->j;
	double per[CALIB_BATCHES];
	uint64_t batch = (uint64_t)fmax(1, CALIB_BATCH_NS * (double)j->hz / 1e9);

	for (int b = 0; b < CALIB_BATCHES; b++) {
		struct spin s = { .threshold = UINT64_MAX, .poll = batch };

		s.end = pbench_ticks() + batch;
		spin(j, &s);
		per[b] = s.loops > 1 ? (double)(s.last - s.first) / (double)(s.loops - 1) :
			 (double)batch;
	}
	qsort(per, CALIB_BATCHES, sizeof(per[0]), cmp_double);
	r->loop_min_ticks = per[0];
	r->loop_median_ticks = (per[CALIB_BATCHES / 2 - 1] + per[CALIB_BATCHES / 2]) / 2;
}

/* ---- attribution reads ------------------------------------------------------------------- */

/* msr/smi/ where the kernel's msr PMU has it (Intel; not AMD, not most VMs). */
static struct pbench_counters *smi_open(struct pb_jitter_run *r)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .cpu = -1,
					  .flags = PBENCH_COUNTERS_START_ENABLED };
	struct pbench_counters *c = NULL;
	struct pbench_count k = { .size = sizeof(k) };
	char buf[128];
	int err;

	if (pb_read_file("/sys/bus/event_source/devices/msr/type", buf, sizeof(buf)) < 0) {
		snprintf(r->smi_reason, sizeof(r->smi_reason), "not available: the kernel has no "
			 "msr PMU (/sys/bus/event_source/devices/msr)");
		return NULL;
	}
	if (pb_read_file("/sys/bus/event_source/devices/msr/events/smi", buf, sizeof(buf)) < 0) {
		snprintf(r->smi_reason, sizeof(r->smi_reason), "not available: the kernel's msr "
			 "PMU has no smi event (msr/events/smi; AMD CPUs and most VMs have no SMI "
			 "count)");
		return NULL;
	}
	err = pbench_counters_open(&c, "msr/smi/", &o);
	if (err || pb_counters_read(c, &k, 1) != 1 || k.status != PBENCH_EVENT_OK) {
		snprintf(r->smi_reason, sizeof(r->smi_reason), "not available: msr/smi/ does not "
			 "open: %.100s", c && k.reason[0] ? k.reason : pbench_strerror(err ? err : -EIO));
		pbench_counters_free(c);
		return NULL;
	}
	r->smi = k.value;
	return c;
}

static void smi_close(struct pb_jitter_run *r, struct pbench_counters *c)
{
	struct pbench_count k = { .size = sizeof(k) };

	if (!c)
		return;
	if (pb_counters_read(c, &k, 1) == 1 && k.status == PBENCH_EVENT_OK && k.value >= r->smi) {
		r->smi = k.value - r->smi;
		r->smi_ok = 1;
	} else {
		snprintf(r->smi_reason, sizeof(r->smi_reason), "not available: msr/smi/ could not "
			 "be read after the window");
	}
	pbench_counters_free(c);
}

/* context-switches and cpu-migrations of every task on the CPU (pid -1), as pbench stat -a
 * -A opens them (pbench_target_*): the same kernel counts over the same window. */
static struct pbench_target *cpu_sched_open(struct pb_jitter_run *r)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	struct pbench_target *t = NULL;
	char list[16];
	int err;

	snprintf(list, sizeof(list), "%d", r->cpu);
	o.kind = PBENCH_TARGET_CPUS;
	o.list = list;
	err = pbench_target_new(&t, "context-switches,cpu-migrations", &o);
	if (err) {
		snprintf(r->cpu_sched_reason, sizeof(r->cpu_sched_reason), "not counted: %.140s",
			 pbench_strerror(err));
		pbench_target_free(t);
		return NULL;
	}
	return t;
}

static void cpu_sched_close(struct pb_jitter_run *r, struct pbench_target *t)
{
	struct pbench_count cs = { .size = sizeof(cs) }, mig = { .size = sizeof(mig) };

	if (!t)
		return;
	if (pbench_target_read(t) || pbench_target_get(t, 0, 0, &cs) ||
	    pbench_target_get(t, 0, 1, &mig) || cs.status != PBENCH_EVENT_OK ||
	    mig.status != PBENCH_EVENT_OK) {
		snprintf(r->cpu_sched_reason, sizeof(r->cpu_sched_reason), "not counted: %.140s",
			 cs.status != PBENCH_EVENT_OK && cs.reason && cs.reason[0] ? cs.reason :
			 mig.reason && mig.reason[0] ? mig.reason :
			 "the per-CPU counters could not be read");
	} else {
		r->cpu_cs = cs.value;
		r->cpu_migrations = mig.value;
		r->cpu_sched_ok = 1;
	}
	pbench_target_free(t);
}

static void sched_now(struct pb_jitter_run *r)
{
	struct sched_param sp;

	r->policy = sched_getscheduler(0);
	if ((r->policy == SCHED_FIFO || r->policy == SCHED_RR) && !sched_getparam(0, &sp)) {
		r->priority = sp.sched_priority;
	} else {
		errno = 0;
		r->priority = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	}
}

/* ---- one CPU's thread -------------------------------------------------------------------- */

static void prepare_thread(struct pb_jitter_run *r, struct pbench_prepared **p)
{
	struct pbench_prepare_opts o = PBENCH_PREPARE_OPTS_INIT;
	struct pbench_prepared_priority pr = { .size = sizeof(pr) };
	int err;

	o.cpu = r->cpu;
	err = pbench_prepare(p, &o);
	if (err) {
		r->err = err;
		snprintf(r->err_what, sizeof(r->err_what), "cannot prepare CPU %d", r->cpu);
		return;
	}
	pbench_prepared_priority(*p, &pr);
	r->prepared = 1;
	snprintf(r->prepared_what, sizeof(r->prepared_what),
		 "%s %d%s, memory %s, %.0f ms warm-up", pr.policy_name, pr.value,
		 pr.probed ? " (chosen by timing nice against SCHED_FIFO)" : "",
		 pbench_prepared_step(*p,
				      PBENCH_PREPARE_STEP_MLOCK)->status == PBENCH_PREPARE_DONE ?
		 "locked" : "not locked", pbench_prepared_warmup_ms(*p));
}

static int wait_gate(struct pbench_jitter *j)
{
	int go;

	pthread_mutex_lock(&j->lock);
	j->ready++;
	pthread_cond_broadcast(&j->cond);
	while (!j->go && !j->abort)
		pthread_cond_wait(&j->cond, &j->lock);
	go = !j->abort;
	pthread_mutex_unlock(&j->lock);
	return go;
}

/* The calling thread's run_delay (schedstat's second field: ns spent runnable on a run
 * queue while another task ran), or NaN when the kernel does not keep it. */
static double run_delay_ns(void)
{
	char buf[128];
	unsigned long long on, wait;

	if (pb_read_file("/proc/thread-self/schedstat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llu", &on, &wait) != 2)
		return NAN;
	return (double)wait;
}

static void window(struct pb_jitter_run *r)
{
	struct pbench_jitter *j = r->j;
	struct pbench_cpu_probe *probe = NULL;
	struct pbench_counters *smi;
	struct pbench_target *sched;
	struct rusage ru0, ru1;
	struct spin s = { .gaps = r->gaps, .cap = r->cap, .stop = j->stop };
	uint64_t dur = (uint64_t)(j->duration_s * (double)j->hz);
	int e;

	r->noise.size = sizeof(r->noise);
	r->noise_err = pbench_cpu_probe_new(&probe, r->cpu);
	smi = smi_open(r);
	sched = cpu_sched_open(r);
	s.threshold = r->threshold_ticks;
	s.poll = (uint64_t)fmax(1, POLL_NS * (double)j->hz / 1e9);
	if (!wait_gate(j)) {
		smi_close(r, smi);
		pbench_target_free(sched);
		pbench_cpu_probe_free(probe);
		r->err = -ECANCELED;
		return;
	}
	r->other_pid = pb_cpu_rival(r->cpu, THREAD_NAME);
	r->wait_ns = run_delay_ns();
	getrusage(RUSAGE_THREAD, &ru0);
	if (sched && pbench_target_enable(sched))
		snprintf(r->cpu_sched_reason, sizeof(r->cpu_sched_reason), "not counted: the "
			 "per-CPU counters could not be enabled");
	if (!r->noise_err)
		r->noise_err = pbench_cpu_probe_begin(probe);
	s.end = pbench_ticks() + (dur ? dur : 1);
	spin(j, &s);
	e = r->noise_err ? r->noise_err : pbench_cpu_probe_end(probe, &r->noise);
	if (sched)
		pbench_target_disable(sched);
	if (r->noise_err) {
		/* Never begun: nothing of the CPU's was read. */
		r->noise.flags = PBENCH_CPU_NOISE_NO_IRQ | PBENCH_CPU_NOISE_NO_SOFTIRQ |
				 PBENCH_CPU_NOISE_NO_STEAL;
		r->noise.steal_ns = NAN;
	}
	r->noise_err = e;
	getrusage(RUSAGE_THREAD, &ru1);
	r->wait_ns = run_delay_ns() - r->wait_ns;
	smi_close(r, smi);
	cpu_sched_close(r, sched);
	pbench_cpu_probe_free(probe);
	r->migrated = sched_getcpu() != r->cpu;
	if (!r->other_pid)
		r->other_pid = pb_cpu_rival(r->cpu, THREAD_NAME);
	r->start = s.first;
	r->end = s.last;
	r->loops = s.loops;
	r->count = s.count;
	r->noise_ticks = s.noise;
	r->max_ticks = s.max;
	r->n = s.n;
	r->stopped = s.stopped;
	r->nivcsw = (uint64_t)(ru1.ru_nivcsw - ru0.ru_nivcsw);
	r->nvcsw = (uint64_t)(ru1.ru_nvcsw - ru0.ru_nvcsw);
}

static void *probe_thread(void *arg)
{
	struct pb_jitter_run *r = arg;
	struct pbench_jitter *j = r->j;
	struct pbench_prepared *prep = NULL;

	pthread_setname_np(pthread_self(), THREAD_NAME);
	if (j->flags & PBENCH_JITTER_PREPARED)
		prepare_thread(r, &prep);
	if (r->err) {
		wait_gate(j);
		return NULL;
	}
	/* Touch every page of the buffer now: no page fault inside the window. */
	memset(r->gaps, 0, r->cap * GAP_SIZE);
	calibrate(r);
	r->threshold_ticks = j->threshold_ns > 0 ?
		(uint64_t)ceil(j->threshold_ns * (double)j->hz / 1e9) :
		(uint64_t)ceil(fmax(THRESHOLD_LOOPS * r->loop_min_ticks,
				    MIN_THRESHOLD_NS * (double)j->hz / 1e9));
	sched_now(r);
	window(r);
	pbench_prepared_free(prep);
	return NULL;
}

/* ---- the run ----------------------------------------------------------------------------- */

double pbench_jitter_max_duration_s(int ncpus)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	double limit = (double)MAX_BUFFERS;

	if (ncpus < 1)
		ncpus = 1;
	if (pages > 0 && psize > 0)
		limit = (double)pages * (double)psize / 4;
	return floor(limit / ((double)ncpus * PBENCH_JITTER_MAX_RATE * GAP_SIZE));
}

int pbench_jitter_check(const struct pbench_jitter_opts *opts)
{
	cpu_set_t mask;
	int n;

	pb_fail_clear();
	if (!opts)
		return pb_fail(-EINVAL, "%s(): opts is NULL", __func__);
	n = opts->cpus && opts->ncpus > 0 ? opts->ncpus : 0;
	if ((opts->flags & PBENCH_JITTER_PREPARED) && n > 1)
		return pb_fail_msg(-EINVAL, "--compare-prepared probes one CPU: give --cpu one CPU, "
				   "or none to use the one a prepared run would pick");
	if (!n)
		n = sched_getaffinity(0, sizeof(mask), &mask) ? 1 : CPU_COUNT(&mask);
	if (opts->duration_s > pbench_jitter_max_duration_s(n))
		return pb_fail_msg(-E2BIG, "invalid duration '%g' for --duration: the gap buffers "
				   "of %d CPU%s would not fit in memory; at most %.0f s here",
				   opts->duration_s, n, n == 1 ? "" : "s",
				   pbench_jitter_max_duration_s(n));
	return 0;
}

/* The CPUs to probe: those asked, each in the affinity mask, or the whole mask. */
static int pick_cpus(const struct pbench_jitter_opts *o, int **out)
{
	cpu_set_t mask;
	int n = 0, *cpus;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return -errno;
	if (o->cpus && o->ncpus > 0) {
		cpus = malloc((size_t)o->ncpus * sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		for (int i = 0; i < o->ncpus; i++) {
			int c = o->cpus[i];

			if (c < 0 || c >= CPU_SETSIZE || !CPU_ISSET(c, &mask)) {
				free(cpus);
				return -EINVAL;
			}
			for (int k = 0; k < i; k++)
				if (cpus[k] == c) {
					free(cpus);
					return -EINVAL;
				}
			cpus[n++] = c;
		}
	} else {
		cpus = malloc((size_t)CPU_COUNT(&mask) * sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &mask))
				cpus[n++] = c;
	}
	*out = cpus;
	return n;
}

/* The options in effect (the caller's, copied over the defaults by the copy rule). */
static int check_opts(const struct pbench_jitter_opts *o)
{
	static const char fn[] = "pbench_jitter_run";

	if (!isfinite(o->duration_s) || !(o->duration_s > 0))
		return pb_fail(-EINVAL, "%s(): opts->duration_s is %g, not a time above 0", fn,
			       o->duration_s);
	if (!isfinite(o->threshold_ns) || o->threshold_ns < 0)
		return pb_fail(-EINVAL, "%s(): opts->threshold_ns is %g, not a time of 0 or more",
			       fn, o->threshold_ns);
	if (o->flags & ~(unsigned)PBENCH_JITTER_PREPARED)
		return pb_fail(-EINVAL, "%s(): opts->flags 0x%x has bits that are not "
			       "PBENCH_JITTER_* flags", fn, o->flags);
	return 0;
}

static int alloc_runs(struct pbench_jitter *j, const int *cpus, int n)
{
	size_t cap = (size_t)ceil(j->duration_s * PBENCH_JITTER_MAX_RATE) + 64;

	j->run = calloc((size_t)n, sizeof(*j->run));
	if (!j->run)
		return -ENOMEM;
	j->n = n;
	for (int i = 0; i < n; i++) {
		j->run[i].j = j;
		j->run[i].cpu = cpus[i];
		j->run[i].cap = cap;
		j->run[i].gaps = malloc(cap * GAP_SIZE);
		if (!j->run[i].gaps)
			return -ENOMEM;
	}
	return 0;
}

/* Start a thread per CPU, pinned from its first instruction, with the asynchronous signals
 * blocked (SIGINT, SIGTERM, SIGHUP...) so that the caller's handlers run in the caller's
 * thread. */
static int start_threads(struct pbench_jitter *j)
{
	sigset_t block, old;
	int err = 0;

	pb_sigset_async(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < j->n && !err; i++) {
		struct pb_jitter_run *r = &j->run[i];
		pthread_attr_t attr;
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(r->cpu, &one);
		err = -pthread_attr_init(&attr);
		if (err)
			break;
		err = -pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		if (!err)
			err = -pthread_create(&r->thread, &attr, probe_thread, r);
		r->created = !err;
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Open the gate once every started thread is ready; abort it if one could not start. */
	pthread_mutex_lock(&j->lock);
	for (;;) {
		int created = 0;

		for (int i = 0; i < j->n; i++)
			created += j->run[i].created;
		if (j->ready >= created)
			break;
		pthread_cond_wait(&j->cond, &j->lock);
	}
	if (err)
		j->abort = 1;
	else
		j->go = 1;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
	for (int i = 0; i < j->n; i++)
		if (j->run[i].created)
			pthread_join(j->run[i].thread, NULL);
	return err;
}

int pbench_jitter_run(struct pbench_jitter **out, const struct pbench_jitter_opts *opts)
{
	struct pbench_jitter_opts o = PBENCH_JITTER_OPTS_INIT;
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	struct pbench_jitter *j;
	int *cpus = NULL, n, err;

	pb_fail_clear();
	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if (opts) {
		if ((err = PB_CHECK_STRUCT(opts, pbench_jitter_opts, 0, "PBENCH_JITTER_OPTS_INIT")))
			return err;
		pb_copy_in(&o, sizeof(o), opts);
		if ((err = check_opts(&o)))
			return err;
		if (o.text_width < 0)
			return pb_fail(-EINVAL, "%s(): opts->text_width is %d, want 0 (not "
				       "wrapped) or more", __func__, o.text_width);
	}
	n = pick_cpus(&o, &cpus);
	if (n < 0)
		return n;
	if (!n || ((o.flags & PBENCH_JITTER_PREPARED) && n != 1)) {
		free(cpus);
		return -EINVAL;
	}
	if (o.duration_s > pbench_jitter_max_duration_s(n)) {
		free(cpus);
		return -E2BIG;
	}
	err = pbench_clock_info(&ci);
	if (err) {
		free(cpus);
		return err;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		free(cpus);
		return -ENOMEM;
	}
	j->hz = ci.hz;
	j->clock_kind = ci.kind;
	j->duration_s = o.duration_s;
	j->threshold_ns = o.threshold_ns;
	j->flags = o.flags;
	j->stop = o.stop;
	j->width = o.text_width;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	err = alloc_runs(j, cpus, n);
	free(cpus);
	if (!err)
		err = start_threads(j);
	for (int i = 0; !err && i < j->n; i++)
		if (j->run[i].err)
			err = j->run[i].err;
	if (err) {
		pbench_jitter_free(j);
		return err;
	}
	for (int i = 0; i < j->n; i++)
		pb_jitter_figures(&j->run[i], j->hz);
	*out = j;
	return 0;
}

void pbench_jitter_free(struct pbench_jitter *j)
{
	if (!j)
		return;
	for (int i = 0; j->run && i < j->n; i++)
		free(j->run[i].gaps);
	free(j->run);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}

int pbench_jitter_nr(const struct pbench_jitter *j)
{
	return j ? j->n : 0;
}

int pbench_jitter_cpu(const struct pbench_jitter *j, int i, struct pbench_jitter_cpu *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_jitter_cpu, 0, NULL)))
		return err;
	if (!j || i < 0 || i >= j->n)
		return pb_fail(-EINVAL, "%s(): no CPU %d in the probe", __func__, i);
	pb_copy_out(out, &j->run[i].r, sizeof(j->run[i].r));
	return 0;
}

int pbench_jitter_source(const struct pbench_jitter *j, int i, int k,
			 struct pbench_jitter_source *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_jitter_source, 0, NULL)))
		return err;
	if (!j || i < 0 || i >= j->n)
		return pb_fail(-EINVAL, "%s(): no CPU %d in the probe", __func__, i);
	if (k < 0 || k >= j->run[i].r.nsources)
		return pb_fail(-EINVAL, "%s(): no source %d of CPU %d (it has %d)", __func__, k,
			       j->run[i].cpu, j->run[i].r.nsources);
	pb_copy_out(out, &j->run[i].src[k].s, sizeof(j->run[i].src[k].s));
	return 0;
}

long pbench_jitter_gaps(const struct pbench_jitter *j, int i, const struct pbench_jitter_gap **gaps)
{
	if (!j || !gaps || i < 0 || i >= j->n)
		return -EINVAL;
	*gaps = j->run[i].gaps;
	return (long)j->run[i].n;
}

uint64_t pbench_jitter_hz(const struct pbench_jitter *j)
{
	return j ? j->hz : 0;
}
