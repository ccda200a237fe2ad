/* SPDX-License-Identifier: MIT */
/*
 * bench_jitter: what the jitter probe costs and what it finds, measured in this run.
 *
 * 1. The probe's loop period (from pbench_jitter_run's own timing of its loop) next to a bare
 *    loop that only reads the TSC and checks for its end, timed the same way (512 batches of
 *    20 us, minimum and median), before and after the probe on the same CPU. Target (the
 *    issue): at most 2x. The probe's loop adds a subtract, a compare and a store on a gap.
 * 2. Known noise: a SCHED_FIFO thread on the probe's CPU wakes at 1 kHz and spins 20 us
 *    (tests/unit/inject.h); the injections found among the gaps, the extra interruptions per
 *    second, the noise per injection and the explanation.
 * 3. Where rt-tests is installed: cyclictest's maximum latency on the same CPU, next to the
 *    probe's longest gap over the same time, for orientation (they measure different things:
 *    a timer's wake-up latency against a spinning thread's longest interruption).
 * The program reports and exits 0: the machines are shared, noisy VMs, and a miss is for a
 * human to read.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "../tests/unit/inject.h"

#define BATCHES 512
#define BATCH_NS 20000.0
#define TARGET 2.0
#define CYCLIC_S 5

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#ifdef HAVE_RDTSC
/* The bare loop: read the TSC until the batch's end. Returns ns per read. */
static double bare_batch(uint64_t ticks)
{
	uint64_t t0 = __rdtsc(), t = t0, n = 0;

	do {
		t = __rdtsc();
		n++;
	} while (t - t0 < ticks);
	return pbench_ticks_to_ns_f((double)(t - t0)) / (double)n;
}

static void bare(uint64_t hz, double *min, double *median)
{
	static double per[BATCHES];
	uint64_t ticks = (uint64_t)(BATCH_NS * (double)hz / 1e9);

	for (int b = 0; b < BATCHES; b++)
		per[b] = bare_batch(ticks);
	qsort(per, BATCHES, sizeof(per[0]), cmp_double);
	*min = per[0];
	*median = (per[BATCHES / 2 - 1] + per[BATCHES / 2]) / 2;
}
#endif

static int pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}

static void loop_period(int cpu, uint64_t hz)
{
#ifdef HAVE_RDTSC
	struct pbench_jitter_opts o = PBENCH_JITTER_OPTS_INIT;
	struct pbench_jitter_cpu c = { .size = sizeof(c) };
	double bmin[2], bmed[2], pmin = INFINITY, pmed = INFINITY;
	struct pbench_jitter *j;
	int err;

	o.cpus = &cpu;
	o.ncpus = 1;
	o.duration_s = 0.1;
	/* bare, probe, bare, probe, bare: each side's best of its rounds */
	pin(cpu);
	bare(hz, &bmin[0], &bmed[0]);
	for (int r = 0; r < 2; r++) {
		err = pbench_jitter_run(&j, &o);
		if (err) {
			printf("loop period: pbench_jitter_run: %s\n", pbench_strerror(err));
			return;
		}
		pbench_jitter_cpu(j, 0, &c);
		pmin = fmin(pmin, c.loop_min_ns);
		pmed = fmin(pmed, c.loop_median_ns);
		pbench_jitter_free(j);
		bare(hz, &bmin[1], &bmed[1]);
		bmin[0] = fmin(bmin[0], bmin[1]);
		bmed[0] = fmin(bmed[0], bmed[1]);
	}
	printf("%-34s %10s %10s\n", "loop period on CPU", "min ns", "median ns");
	printf("%-34s %10.2f %10.2f\n", "(a) bare rdtsc loop", bmin[0], bmed[0]);
	printf("%-34s %10.2f %10.2f\n", "(b) pbench jitter probe loop", pmin, pmed);
	printf("TARGET (b)/(a) <= %.1f: %.3f (min), %.3f (median) -> %s\n", TARGET, pmin / bmin[0],
	       pmed / bmed[0], pmin / bmin[0] <= TARGET ? "ok" : "over target");
#else
	(void)cpu;
	(void)hz;
	printf("loop period: not measured (no rdtsc on this architecture)\n");
#endif
}

static void injection(int cpu)
{
	struct inject in = { .cpu = cpu, .rate_hz = 1000, .spin_ns = 20000, .max_s = 30 };
	struct pbench_jitter_cpu b = { .size = sizeof(b) }, c = { .size = sizeof(c) };
	struct pbench_jitter *base, *j;
	struct inject_match m;
	int err;

	usleep(200000);
	err = probe_fifo(&base, cpu, 1.0);
	if (err) {
		printf("injection: not measured: %s (SCHED_FIFO needs root or RLIMIT_RTPRIO)\n",
		       pbench_strerror(err));
		return;
	}
	pbench_jitter_cpu(base, 0, &b);
	pbench_jitter_free(base);
	usleep(200000);
	err = inject_start(&in);
	if (!err) {
		err = probe_fifo(&j, cpu, 1.0);
		if (inject_stop(&in) && !err) {
			pbench_jitter_free(j);
			err = in.err;
		}
	}
	if (err) {
		printf("injection: not measured: %s\n", pbench_strerror(err));
		inject_free(&in);
		return;
	}
	pbench_jitter_cpu(j, 0, &c);
	inject_match(j, &in, &m);
	printf("injection on CPU %d, 1000 Hz x 20 us, 1 s windows (probe SCHED_FIFO %d, "
	       "injector %d):\n", cpu, INJECT_PROBE_PRIO, INJECT_FIFO_PRIO);
	printf("  injected %zu (%.1f/s, %zu wakes late); inside a gap %zu; gaps holding one "
	       "%zu -> extra interruptions %.1f/s (%+.2f%%)\n", m.injected,
	       (double)m.injected / c.duration_s, in.late, m.contained, m.gaps,
	       (double)m.gaps / c.duration_s,
	       m.injected ? 100.0 * ((double)m.gaps - (double)m.injected) / (double)m.injected : 0);
	printf("  gaps/s %.1f without, %.1f with: difference %.1f/s\n", b.interruptions_per_s,
	       c.interruptions_per_s, c.interruptions_per_s - b.interruptions_per_s);
	printf("  noise per injection %.1f us: 20.0 us spun + %.1f us switching (two context "
	       "switches, the timer interrupt)\n", m.single_ns / 1e3, (m.single_ns - 20000) / 1e3);
	printf("  preemptions of the probe %.1f/s\n  explained: %s\n",
	       (double)c.ctx_involuntary / c.duration_s, c.explained);
	pbench_jitter_free(j);
	inject_free(&in);
}

static void cyclictest(int cpu)
{
	struct pbench_jitter_opts o = PBENCH_JITTER_OPTS_INIT;
	struct pbench_jitter_cpu c = { .size = sizeof(c) };
	struct pbench_jitter *j;
	char cmd[256], line[512];
	long max = -1;
	FILE *p;

	if (system("command -v cyclictest >/dev/null 2>&1")) {
		printf("cyclictest: not installed (Debian: apt-get install rt-tests): not compared\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "cyclictest -q -m -p 80 -t 1 -a %d -i 1000 -D %d 2>&1", cpu,
		 CYCLIC_S);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *at = strstr(line, "Max:");

		if (at)
			max = strtol(at + 4, NULL, 10);
	}
	if (p)
		pclose(p);
	o.cpus = &cpu;
	o.ncpus = 1;
	o.duration_s = CYCLIC_S;
	if (pbench_jitter_run(&j, &o)) {
		printf("cyclictest: max %ld us; pbench jitter failed\n", max);
		return;
	}
	pbench_jitter_cpu(j, 0, &c);
	printf("for orientation, CPU %d, %d s each, one after the other: cyclictest max latency "
	       "%ld us; pbench jitter max gap %.1f us, p99.9 %.1f us\n", cpu, CYCLIC_S, max,
	       c.max_gap_ns / 1e3, c.p999_ns / 1e3);
	pbench_jitter_free(j);
}

int main(void)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	cpu_set_t mask;
	int cpu = 0;

	if (pbench_clock_info(&ci)) {
		fprintf(stderr, "bench_jitter: error: no clock\n");
		return 1;
	}
	sched_getaffinity(0, sizeof(mask), &mask);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			cpu = c;
	printf("bench_jitter: CPU %d, clock %s %.3f MHz\n", cpu, pbench_clock_kind_name(ci.kind),
	       (double)ci.hz / 1e6);
	loop_period(cpu, ci.hz);
	sched_setaffinity(0, sizeof(mask), &mask);
	injection(cpu);
	cyclictest(cpu);
	return 0;
}
