/* SPDX-License-Identifier: MIT */
/*
 * The probes of the issue throughput a thread gets on a CPU (pbench check's speed group, and
 * the CPU pick): the throughput reference loop (speed.c) on a thread pbench starts pinned to
 * the CPU and joins.
 * - Stability: passes of the loop for a while, in slices; a slice's speed is the fastest
 *   slice's median pass over its own. A median is what the CPU did while running:
 *   an interrupt or a preemption makes a few passes slow, not the median, so what moves it is
 *   what the kernel cannot see. What the kernel did see is read around it.
 * - Co-location: the loop alone, then while a second thread spins on another CPU, in
 *   alternating phases (the host's speed changes over seconds; pairs of phases 50 ms apart
 *   mostly see the same host, and a kind needs three pairs in four to show it). Slower while running: one physical core. As fast while running but
 *   less work per wall second: the two took turns, with the kernel (preemption) or without it
 *   (the host).
 * Each thread runs the normal policy with SIGINT and SIGTERM blocked, whatever the caller's.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/irq_table.h"
#include "counters/counters.h"

#define SLICE_MS 20.0
#define MAX_PASSES 16384	/* recorded per slice or phase: ~5 us passes for 80 ms */
#define MIN_PASSES 50		/* a slice's median from fewer is the CPU's load, not its speed */
#define MAX_STRETCH 2.0		/* a stability probe ends at twice its time on a busy CPU */
#define PAIRS 8
#define AGREE 0.75		/* a kind needs this share of the pairs to show it */
#define SLOWER 1.15		/* a slowdown below this is the loop's own noise */
#define ACK_TIMEOUT_S 2

/* ---- threads and what the kernel saw --------------------------------------------------------- */

/* A thread pinned to cpu from its first instruction, normal policy, SIGINT/SIGTERM blocked. */
static int start_pinned(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = 0 };
	sigset_t block, old;
	pthread_attr_t attr;
	cpu_set_t one;
	int err;

	if (cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if ((err = pthread_attr_init(&attr)))
		return -err;
	err = pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	if (!err)
		err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (!err)
		err = pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	if (!err)
		err = pthread_attr_setschedparam(&attr, &sp);
	pb_sigset_async(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (!err)
		err = pthread_create(t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}

/* Interrupts delivered to cpu so far: the sum of its column of /proc/interrupts. */
static int cpu_irqs(int cpu, uint64_t *sum)
{
	FILE *f = pb_fopen("/proc/interrupts");
	char line[4096];
	int col;

	*sum = 0;
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) || (col = pb_irq_column(line, cpu)) < 0) {
		fclose(f);
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f)) {
		struct pb_irq_row row;

		if (!pb_irq_parse_line(line, col, &row))
			*sum += row.count;
	}
	fclose(f);
	return 0;
}

/* cpu's steal in ns (/proc/stat, USER_HZ ticks); NaN when it has none. */
static double cpu_steal_ns(int cpu)
{
	FILE *f = pb_fopen("/proc/stat");
	long hz = sysconf(_SC_CLK_TCK);
	double ns = NAN;
	char line[512];

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f)) {
		struct pb_cpu_times t;
		int c;

		if (pb_parse_cpu_times(line, &c, &t) >= 8 && c == cpu && hz > 0)
			ns = (double)t.steal * 1e9 / (double)hz;
	}
	fclose(f);
	return ns;
}

/* The calling thread's involuntary switches and CPU time, and the CPU's interrupts and
 * steal: taken before and after a probe. */
struct seen {
	uint64_t nivcsw;
	double cpu_ns, wall_ns, steal_ns;
	uint64_t irqs;
	int have_irqs;
};

static double thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return NAN;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The files are read outside the span the times bound: first at its start, last at its end. */
static void seen_now(struct seen *s, int cpu, int at_end)
{
	struct rusage ru;

	if (!at_end) {
		s->have_irqs = cpu_irqs(cpu, &s->irqs) == 0;
		s->steal_ns = cpu_steal_ns(cpu);
	}
	getrusage(RUSAGE_THREAD, &ru);
	s->nivcsw = (uint64_t)ru.ru_nivcsw;
	s->cpu_ns = thread_cpu_ns();
	s->wall_ns = pbench_ticks_to_ns_f((double)pbench_ticks());
	if (at_end) {
		s->have_irqs = cpu_irqs(cpu, &s->irqs) == 0;
		s->steal_ns = cpu_steal_ns(cpu);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); NaN for none. */
static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Passes of the loop for ns of wall time: their median, how many, the fastest. */
struct phase {
	double median_ns, best_ns, wall_ns, cpu_ns;
	double mean_ns;		/* of the passes up to twice the median: short slow bursts in,
				 * a pass an interrupt or a preemption hit out */
	uint64_t passes, nivcsw;
};

static void run_passes(uint64_t iterations, double ns, double *buf, struct phase *ph)
{
	uint64_t t0 = pbench_ticks();
	double now, cpu0 = thread_cpu_ns();
	struct rusage r0, r1;
	size_t k = 0;

	getrusage(RUSAGE_THREAD, &r0);
	ph->best_ns = INFINITY;
	ph->passes = 0;
	do {
		double p = pb_speed_pass(iterations);

		if (k < MAX_PASSES)
			buf[k++] = p;
		ph->best_ns = fmin(ph->best_ns, p);
		ph->passes++;
	} while ((now = pbench_ticks_to_ns_f((double)(pbench_ticks() - t0))) < ns);
	getrusage(RUSAGE_THREAD, &r1);
	ph->wall_ns = now;
	ph->cpu_ns = thread_cpu_ns() - cpu0;
	ph->nivcsw = (uint64_t)(r1.ru_nivcsw - r0.ru_nivcsw);
	ph->median_ns = median(buf, k);		/* buf is sorted now */
	ph->mean_ns = 0;
	for (size_t i = 0; i < k && buf[i] <= 2 * ph->median_ns; i++)
		ph->mean_ns += (buf[i] - ph->mean_ns) / (double)(i + 1);
}

/* ---- stability ------------------------------------------------------------------------------ */

struct speed_job {
	int cpu;
	double seconds;
	struct pbench_cpu_speed *o;
	double *buf, *slices;
	int err;
};

/* The slices' speeds (the fastest slice's median pass over each one's) into o: min, median,
 * max, changes, slow time. */
static void slice_figures(struct pbench_cpu_speed *o, double *med, int n)
{
	double prev = NAN;

	o->best_ns = INFINITY;
	for (int i = 0; i < n; i++)
		o->best_ns = fmin(o->best_ns, med[i]);
	for (int i = 0; i < n; i++) {
		med[i] = o->best_ns / med[i];
		if (isfinite(prev) && fmax(prev, med[i]) >= PBENCH_SPEED_VARIED * fmin(prev, med[i]))
			o->changes++;
		prev = med[i];
	}
	o->median = median(med, (size_t)n);
	o->min = med[0];
	o->max = med[n - 1];
	o->range = o->max / o->min;
	for (int i = 0; i < n; i++)
		o->slow_ms += med[i] < o->max / PBENCH_SPEED_VARIED ? o->slice_ms : 0;
}

static void *speed_thread(void *arg)
{
	struct speed_job *j = arg;
	struct pbench_cpu_speed *o = j->o;
	int planned = o->slices;
	struct seen a, b;
	struct phase ph;

	double means = 0, medians = 0;

	o->iterations = pb_speed_calibrate(PBENCH_SPEED_LOOP_NS);
	seen_now(&a, j->cpu, 0);
	o->slices = 0;
	for (int s = 0; s < planned; s++) {
		run_passes(o->iterations, o->slice_ms * 1e6, j->buf, &ph);
		/* A slice the thread hardly ran in says how busy the CPU is, not how fast. */
		if (ph.passes >= MIN_PASSES) {
			j->slices[o->slices++] = ph.median_ns;
			means += ph.mean_ns;
			medians += ph.median_ns;
		}
		if (pbench_ticks_to_ns_f((double)pbench_ticks()) - a.wall_ns >
		    MAX_STRETCH * j->seconds * 1e9)
			break;
	}
	seen_now(&b, j->cpu, 1);
	o->seconds = (b.wall_ns - a.wall_ns) / 1e9;
	o->ctx_involuntary = b.nivcsw - a.nivcsw;
	o->not_running_ns = fmax(0, (b.wall_ns - a.wall_ns) - (b.cpu_ns - a.cpu_ns));
	o->have_irqs = a.have_irqs && b.have_irqs && b.irqs >= a.irqs;
	o->irqs = o->have_irqs ? b.irqs - a.irqs : 0;
	o->steal_ns = b.steal_ns - a.steal_ns;
	o->burst_pct = medians > 0 ? fmax(0, means / medians - 1) * 100 : NAN;
	if (o->slices < 2)
		j->err = -EBUSY;
	else
		slice_figures(o, j->slices, o->slices);
	return NULL;
}

static int check_args(const char *fn, const char *type, int cpu, double seconds, const void *out)
{
	int err = pb_check_struct(fn, "out", type, out, 0, NULL);

	if (err)
		return err;
	if (cpu < 0)
		return pb_fail(-EINVAL, "%s(): cpu %d is not a CPU", fn, cpu);
	if (!(seconds > 0 && seconds <= 60))
		return pb_fail(-EINVAL, "%s(): seconds is %g, not above 0 and at most 60", fn,
			       seconds);
	return 0;
}

int pbench_cpu_speed_probe(int cpu, double seconds, struct pbench_cpu_speed *out)
{
	struct pbench_cpu_speed o = { .size = sizeof(o), .cpu = cpu, .burst_pct = NAN };
	struct speed_job j = { .cpu = cpu, .seconds = seconds, .o = &o };
	pthread_t t;
	int err;

	if ((err = check_args(__func__, "pbench_cpu_speed", cpu, seconds, out)))
		return err;
	o.slices = (int)fmax(5, round(seconds * 1e3 / SLICE_MS));
	o.slice_ms = seconds * 1e3 / o.slices;
	j.buf = malloc(MAX_PASSES * sizeof(*j.buf));
	j.slices = malloc((size_t)o.slices * sizeof(*j.slices));
	err = j.buf && j.slices ? start_pinned(&t, cpu, speed_thread, &j) : -ENOMEM;
	if (!err) {
		pthread_join(t, NULL);
		err = j.err;
	}
	free(j.buf);
	free(j.slices);
	if (!err)
		pb_copy_out(out, &o, sizeof(o));
	return err;
}

/* ---- co-location ---------------------------------------------------------------------------- */

enum { SPINNER_STARTING, SPINNER_IDLE, SPINNER_SPINNING };

struct share_job {
	int cpu, other;
	double phase_ms;
	struct pbench_cpu_sharing *o;
	double *buf;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int want_spin;		/* read by the spinning thread without the lock (atomics) */
	int quit, state;	/* under the lock */
	int err;
};

/* The spinner: idle on the condition until asked to spin, then the loop until asked to stop;
 * each change of state is told back, so a phase starts only once it is in force. */
static void *spinner_thread(void *arg)
{
	struct share_job *j = arg;
	uint64_t r = 0;

	pthread_mutex_lock(&j->lock);
	while (!j->quit) {
		if (!__atomic_load_n(&j->want_spin, __ATOMIC_ACQUIRE)) {
			j->state = SPINNER_IDLE;
			pthread_cond_broadcast(&j->cond);
			pthread_cond_wait(&j->cond, &j->lock);
			continue;
		}
		j->state = SPINNER_SPINNING;
		pthread_cond_broadcast(&j->cond);
		pthread_mutex_unlock(&j->lock);
		while (__atomic_load_n(&j->want_spin, __ATOMIC_ACQUIRE))
			r += pb_speed_loop(4096, r);
		pthread_mutex_lock(&j->lock);
	}
	pthread_mutex_unlock(&j->lock);
	return (void *)(uintptr_t)(r & 1);
}

/* Ask the spinner to spin (1) or idle (0) and wait until it does. */
static int spinner_set(struct share_job *j, int spin)
{
	int want = spin ? SPINNER_SPINNING : SPINNER_IDLE, err = 0;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ACK_TIMEOUT_S;
	pthread_mutex_lock(&j->lock);
	__atomic_store_n(&j->want_spin, spin, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&j->cond);
	while (j->state != want && !err)
		err = pthread_cond_timedwait(&j->cond, &j->lock, &until);
	err = j->state == want ? 0 : -ETIMEDOUT;
	pthread_mutex_unlock(&j->lock);
	return err;
}

static double median_of(double *v, int n)
{
	return median(v, (size_t)n);
}

/* The pairs' phases into o: medians of the ratios, kind. ph[2i] alone, ph[2i+1] spun. */
/* How many of v[0..n) are SLOWER or more. */
static int slower(const double *v, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += v[i] >= SLOWER;
	return k;
}

/* The kind, when most pairs agree: the host's own speed changes over the probe could make a
 * few pairs look slower with the spinner, or faster. */
static int sharing_kind(const struct pbench_cpu_sharing *o, const double *run,
			const double *wall, int pairs)
{
	if (o->slowdown >= SLOWER && slower(run, pairs) >= AGREE * pairs)
		return PBENCH_CPU_SHARING_CORE;
	if (o->wall_slowdown < SLOWER || slower(wall, pairs) < AGREE * pairs)
		return PBENCH_CPU_SHARING_NONE;
	if (o->running_share * SLOWER <= 1)	/* the kernel took the time away */
		return PBENCH_CPU_SHARING_PREEMPTION;
	return PBENCH_CPU_SHARING_HOST;
}

static void sharing_figures(struct pbench_cpu_sharing *o, const struct phase *ph, int pairs)
{
	double run[PAIRS], wall[PAIRS], alone[PAIRS], spun[PAIRS], cpu = 0, wall_spun = 0;
	double lo = INFINITY, hi = 0;

	for (int i = 0; i < pairs; i++) {
		const struct phase *a = &ph[2 * i], *s = &ph[2 * i + 1];

		alone[i] = a->median_ns;
		lo = fmin(lo, alone[i]);
		hi = fmax(hi, alone[i]);
		spun[i] = s->median_ns;
		run[i] = s->median_ns / a->median_ns;
		wall[i] = ((double)a->passes / a->wall_ns) / ((double)s->passes / s->wall_ns);
		cpu += s->cpu_ns;
		wall_spun += s->wall_ns;
		o->ctx_involuntary += s->nivcsw;
	}
	o->pairs = pairs;
	o->alone_ns = median_of(alone, pairs);
	o->spun_ns = median_of(spun, pairs);
	o->slowdown = median_of(run, pairs);
	o->wall_slowdown = median_of(wall, pairs);
	o->running_share = wall_spun > 0 ? fmin(1, cpu / wall_spun) : NAN;
	o->alone_range = hi / lo;
	o->kind = sharing_kind(o, run, wall, pairs);
}

static void *share_thread(void *arg)
{
	struct share_job *j = arg;
	struct phase ph[2 * PAIRS];
	uint64_t n = pb_speed_calibrate(PBENCH_SPEED_LOOP_NS);

	for (int i = 0; i < 2 * PAIRS && !j->err; i++) {
		j->err = spinner_set(j, i % 2);
		if (!j->err)
			run_passes(n, j->phase_ms * 1e6, j->buf, &ph[i]);
	}
	if (!j->err)
		sharing_figures(j->o, ph, PAIRS);
	pthread_mutex_lock(&j->lock);
	j->quit = 1;
	__atomic_store_n(&j->want_spin, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* Both threads started and joined; the spinner is told to quit whatever happens. */
static int share_run(struct share_job *j)
{
	pthread_t spin, probe;
	int err = start_pinned(&spin, j->other, spinner_thread, j);

	if (err)
		return err;
	err = start_pinned(&probe, j->cpu, share_thread, j);
	if (!err) {
		pthread_join(probe, NULL);
		err = j->err;
	} else {
		pthread_mutex_lock(&j->lock);
		j->quit = 1;
		pthread_cond_broadcast(&j->cond);
		pthread_mutex_unlock(&j->lock);
	}
	pthread_join(spin, NULL);
	return err;
}

int pbench_cpu_sharing_probe(int cpu, int other, double seconds, struct pbench_cpu_sharing *out)
{
	struct pbench_cpu_sharing o = { .size = sizeof(o), .cpu = cpu, .other = other,
					.alone_ns = NAN, .spun_ns = NAN, .slowdown = NAN,
					.wall_slowdown = NAN, .running_share = NAN,
					.alone_range = NAN };
	struct share_job j = { .cpu = cpu, .other = other, .o = &o };
	int err;

	if ((err = check_args(__func__, "pbench_cpu_sharing", cpu, seconds, out)))
		return err;
	if (other < 0)
		return pb_fail(-EINVAL, "%s(): other %d is not a CPU", __func__, other);
	o.phase_ms = j.phase_ms = seconds * 1e3 / (2 * PAIRS);
	j.buf = malloc(MAX_PASSES * sizeof(*j.buf));
	if (!j.buf)
		return -ENOMEM;
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cond, NULL);
	err = share_run(&j);
	pthread_cond_destroy(&j.cond);
	pthread_mutex_destroy(&j.lock);
	free(j.buf);
	if (!err)
		pb_copy_out(out, &o, sizeof(o));
	return err;
}
