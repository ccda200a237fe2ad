/* SPDX-License-Identifier: MIT */
/*
 * The CPU's own speed (lib/src/counters/speed.c, speed_probe.c, runs_speed.c, the cause in noise.c):
 * the factor, the bursts, the best and a set's summary on runs recorded on the development VM
 * (answers computed apart, in Python, from the same readings); the cause line for a table of
 * cases; live: the reference loop, the probes (a spinner pbench starts on the probed CPU
 * itself must read as a 2x slowdown by preemption), and 30 prepared runs of the xor loop whose
 * spread, when the kernel did not cause it, the factors must explain.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

/* ---- the factor ------------------------------------------------------------------------- */

Test(speed, factor_table)
{
	static const struct {
		double best, before, after, want;
	} rows[] = {
		{ 10000, 10000, 10000, 1 },
		{ 10000, 20000, 20000, 0.5 },
		{ 10000, 10000, 30000, 0.5 },		/* the mean of the two */
		{ 10000, NAN, 20000, 0.5 },		/* one alone */
		{ 10000, 20000, NAN, 0.5 },
		{ 10000, -5, 20000, 0.5 },		/* not a reading */
		{ 10000, 0, 12500, 0.8 },
		{ 10000, NAN, NAN, NAN },
		{ 10000, 0, 0, NAN },
		{ NAN, 10000, 10000, NAN },
		{ 0, 10000, 10000, NAN },
		{ INFINITY, 10000, 10000, NAN },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		double f = pbench_speed_factor(rows[i].best, rows[i].before, rows[i].after);

		if (isnan(rows[i].want))
			cr_expect(isnan(f), "row %zu: %g, want NaN", i, f);
		else
			cr_expect(NEAR(f, rows[i].want, 1e-12), "row %zu: %g, want %g", i, f,
				  rows[i].want);
	}
}

Test(speed, best_is_confirmed)
{
	/* A burst of speed once (5722 among readings near 10040, as on the VM): not the best. */
	static const double burst[] = { 10085, 10084, 10063, 5722, 10074, 10037, 10090, 10061 };
	static const double two[] = { 9000, 10000, 5000, 5100 };	/* a pair: confirmed */
	static const double apart[] = { 9000, 12000, 15000 };		/* none: the fastest */
	static const double junk[] = { NAN, -1, 0, INFINITY };

	cr_assert_eq(pbench_speed_best(burst, ARRAY_SIZE(burst)), 10037);
	cr_assert_eq(pbench_speed_best(two, ARRAY_SIZE(two)), 5000);
	cr_assert_eq(pbench_speed_best(apart, ARRAY_SIZE(apart)), 9000);
	cr_assert_eq(pbench_speed_best(apart, 1), 9000);
	cr_assert(isnan(pbench_speed_best(junk, ARRAY_SIZE(junk))));
	cr_assert(isnan(pbench_speed_best(burst, 0)));
	cr_assert(isnan(pbench_speed_best(NULL, 3)));
}

/* Readings around 20 runs of the xor loop, unprepared, on the development VM while its host
 * slowed it for about 150 ms (runs 15 to 17): time in ns, the readings before and after, and
 * the factor computed apart from the same readings (best 7025.7565846871585 ns). */
static const struct {
	double ns, before, after, factor;
} recorded[] = {
	{ 65777664, 9961.2097587641329, 7054.3951522391289, 0.82580156526129767 },
	{ 52599574, 7057.259008994326, 7060.8388299383223, 0.995283736497794 },
	{ 53133718, 7065.8505792599171, 7103.796681266278, 0.99166287706533274 },
	{ 53159050, 7066.5665434487164, 7082.3177556023002, 0.99311810545491352 },
	{ 51458149, 7065.8505792599171, 7068.7144360151142, 0.99412420220848952 },
	{ 52875587, 7079.4538988471031, 7071.5782927703112, 0.99296736655704532 },
	{ 52067599, 7056.5430448055267, 7117.400000853464, 0.99136232762539778 },
	{ 52276365, 7065.8505792599171, 7082.3177556023002, 0.9931683619250038 },
	{ 51314727, 7025.7565846871585, 7082.3177556023002, 0.9959908652626237 },
	{ 53207392, 7070.862328581512, 7083.0337197910994, 0.99276645252668316 },
	{ 53165395, 7084.465648168698, 7078.0219704695046, 0.9921641979677468 },
	{ 54217261, 7056.5430448055267, 7054.3951522391289, 0.99578872596275814 },
	{ 54413981, 7067.9984718263149, 7060.122865749523, 0.99457761110829579 },
	{ 55881820, 7067.9984718263149, 7062.2707583159208, 0.99442642886096477 },
	{ 66592984, 7078.7379346583039, 8732.6152107845992, 0.88869769969208479 },
	{ 73382862, 8794.904095210135, 9892.4771966394037, 0.75192521359334896 },
	{ 57185597, 10437.325944315642, 7114.536144098267, 0.80057107893126656 },
	{ 51215025, 7075.1581137143075, 7052.9632238615304, 0.99457761110829579 },
	{ 51174663, 7078.7379346583039, 7304.2666541300714, 0.97695256110309125 },
	{ 51247205, 7070.862328581512, 7088.7614333014935, 0.99236486828133685 },
};
#define NREC ARRAY_SIZE(recorded)

static void recorded_factors(double *ns, double *f, double *best)
{
	double b[NREC], a[NREC];

	for (size_t i = 0; i < NREC; i++) {
		ns[i] = recorded[i].ns;
		b[i] = recorded[i].before;
		a[i] = recorded[i].after;
	}
	cr_assert_eq(pbench_speed_factors(b, a, NREC, f, best), 0);
}

Test(speed, factors_of_recorded_runs)
{
	double ns[NREC], f[NREC], best;

	recorded_factors(ns, f, &best);
	cr_assert_eq(best, 7025.7565846871585);
	for (size_t i = 0; i < NREC; i++)
		cr_expect(NEAR(f[i], recorded[i].factor, 1e-12), "run %zu: %.17g, want %.17g",
			  i + 1, f[i], recorded[i].factor);
}

Test(speed, summary_of_recorded_runs)
{
	struct pbench_speed_summary s = { .size = sizeof(s) };
	double ns[NREC], f[NREC], best;
	char note[256];

	recorded_factors(ns, f, &best);
	cr_assert_eq(pbench_speed_summarize(ns, f, NREC, &s), 0);
	cr_assert_eq(s.n, (int)NREC);
	cr_expect(NEAR(s.min, 0.75192521359334896, 1e-12), "%.17g", s.min);
	cr_expect(NEAR(s.median, 0.9928669095418643, 1e-12), "%.17g", s.median);
	cr_expect(NEAR(s.max, 0.9959908652626237, 1e-12), "%.17g", s.max);
	cr_expect(NEAR(s.range, 1.3245876681045419, 1e-12), "%.17g", s.range);
	cr_expect_eq(s.slow, 4);
	cr_expect(NEAR(s.corr, 0.86628782676703131, 1e-9), "%.17g", s.corr);
	cr_expect(NEAR(s.spread_pct, 43.396864186482283, 1e-9), "%.17g", s.spread_pct);
	cr_expect(NEAR(s.spread_at_one_speed_pct, 29.269472197625323, 1e-9), "%.17g",
		  s.spread_at_one_speed_pct);
	cr_assert_eq(pbench_speed_note(note, sizeof(note), &s), (int)strlen(note));
	/* Of the throughput reference alone: not the CPU's speed (issue 27), said as what it is. */
	cr_expect_str_eq(note, "the core's issue throughput available to this thread varied 1.32x "
			 "(0.75x to 1.00x of its best, throughput reference; the clock not read), "
			 "4 runs slow; time against 1/throughput r = 0.87: it explains the spread");
}

Test(speed, bursts_left_out)
{
	/* Run 3's reading before is slow alone (both neighbours 10% faster), run 5's after fast
	 * alone: both bursts. Run 7 starts a slow stretch: its readings agree with what follows. */
	static const double b[] = { 10000, 10010, 16000, 10020, 10000, 10030, 15000, 15100 };
	static const double a[] = { 10020, 10000, 10010, 10000, 5600, 10010, 15050, 15020 };
	double f[8], best;

	cr_assert_eq(pbench_speed_factors(b, a, 8, f, &best), 0);
	cr_assert_eq(best, 10000);
	cr_expect(NEAR(f[2], 10000 / 10010.0, 1e-12), "slow burst kept: %g", f[2]);
	cr_expect(NEAR(f[4], 1, 1e-12), "fast burst kept: %g", f[4]);
	cr_expect(NEAR(f[6], 10000 / 15025.0, 1e-12), "stretch: %g", f[6]);
	cr_expect(NEAR(f[7], 10000 / 15060.0, 1e-12), "last run: %g", f[7]);
	cr_assert_eq(pbench_speed_factors(b, a, 0, f, &best), 0);
	cr_assert(isnan(best));
	cr_assert_eq(pbench_speed_factors(NULL, a, 8, f, NULL), -EINVAL);
}

/* Readings shared between runs (a run's before is the last one's after, read once): a fast
 * burst there is still a burst, and it does not confirm itself as the best. */
Test(speed, shared_readings_once_in_the_sequence)
{
	static const double b[] = { 10000, 10010, 5000, 10020, 10000 };
	static const double a[] = { 10010, 5000, 10020, 10000, 10010 };
	double f[5], best;

	cr_assert_eq(pbench_speed_factors(b, a, 5, f, &best), 0);
	cr_assert_eq(best, 10000, "the best is a reading another confirms, not 5000 twice: %g",
		     best);
	cr_expect(NEAR(f[1], 10000 / 10010.0, 1e-12), "run 2's burst after left out: %g", f[1]);
	cr_expect(NEAR(f[2], 10000 / 10020.0, 1e-12), "run 3's burst before left out: %g", f[2]);
	cr_expect(NEAR(f[0], 10000 / 10005.0, 1e-12), "run 1: %g", f[0]);
}

/* The "0.96x to 1.17x of the CPU's best": run 2's reading before (8500) is faster than
 * the best (10000, which 10010 confirms), no reading confirms it, and its neighbours disagree
 * with each other (12000 and 10000: a change of speed, not a burst). Untrusted as the best, it
 * is not a run's speed either: run 2's factor is from its reading after alone. */
Test(speed, unconfirmed_fast_reading_left_out)
{
	static const double b[] = { 12000, 8500, 10010, 10000 };
	static const double a[] = { 12000, 10000, 10020, 10010 };
	double f[4], best;

	cr_assert_eq(pbench_speed_factors(b, a, 4, f, &best), 0);
	cr_assert_eq(best, 10000);
	cr_expect(NEAR(f[1], 1, 1e-12), "run 2: %g, want 1 (from 10000 alone, not 1.08x)", f[1]);
	cr_expect(NEAR(f[0], 10000 / 12000.0, 1e-12), "run 1: %g", f[0]);
}

/* Whatever the readings, no factor is above 1: a factor is a run's speed over the best. Rows
 * of random readings (a fixed seed): slow stretches, bursts both ways, lone fast readings,
 * NaNs, shared readings between runs. */
Test(speed, no_factor_above_one)
{
	enum { N = 40, ROWS = 2000 };
	unsigned long x = 2463534242UL;
	double b[N], a[N], f[N], best;
	int above = 0, finite = 0;

	for (int row = 0; row < ROWS; row++) {
		for (int i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			double base = 10000 * (1 + (double)(x % 1000) / 1000.0 * ((x >> 10) % 4 == 0));

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			b[i] = (x % 97 == 0) ? NAN : base * (0.6 + (double)(x % 800) / 1000.0);
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a[i] = base * (0.85 + (double)(x % 300) / 1000.0);
			if (i && x % 3 == 0)
				b[i] = a[i - 1];
		}
		cr_assert_eq(pbench_speed_factors(b, a, N, f, &best), 0);
		for (int i = 0; i < N; i++) {
			finite += isfinite(f[i]);
			if (f[i] > 1) {
				if (!above++)
					cr_log_error("row %d run %d: factor %.6f, best %g, readings "
						     "%g %g", row, i, f[i], best, b[i], a[i]);
			}
		}
	}
	cr_expect_eq(above, 0, "%d factors above 1", above);
	cr_expect_gt(finite, ROWS * N / 2, "most factors known: %d", finite);
}

Test(speed, summary_edges)
{
	struct pbench_speed_summary s = { .size = sizeof(s) };
	static const double steady[] = { 1, 0.99, 0.995 }, ns[] = { 10, 11, 12 };
	static const double none[] = { NAN, NAN };
	char note[64] = "x";

	cr_assert_eq(pbench_speed_summarize(NULL, steady, 3, &s), 0);
	cr_assert(isnan(s.corr) && isnan(s.spread_pct));
	cr_assert_eq(pbench_speed_note(note, sizeof(note), &s), 0, "steady: no note");
	cr_assert_str_eq(note, "");
	/* Constant factors: no correlation to speak of. */
	cr_assert_eq(pbench_speed_summarize(ns, (const double[]){ 1, 1, 1 }, 3, &s), 0);
	cr_assert(isnan(s.corr));
	cr_assert_eq(pbench_speed_summarize(ns, none, 2, &s), -ENODATA);
	cr_assert_eq(s.n, 0);
	cr_assert_eq(pbench_speed_summarize(ns, steady, 3, NULL), -EINVAL);
	cr_assert_eq(pbench_speed_note(NULL, 5, &s), -EINVAL);
}

/* ---- the cause of an outlier ------------------------------------------------------------- */

#define HOST "nothing the kernel saw: host contention on a VM, or the clock"

struct cause_case {
	const char *what;
	double excess_ns, run_ns, speed, typical;
	struct pbench_noise task;
	int have_cpu;
	struct pbench_cpu_noise cpu;
	const char *want;
};

#define THR "the core's issue throughput available to this thread"

static const struct cause_case causes[] = {
	{ "the issue's example", 22.9e6, 49.8e6, 0.54, 1, { .not_running_ns = 0 }, 0, { 0 },
	  "+22.9 ms: " THR " was 0.54x its best (throughput reference before/after); " HOST },
	{ "with the timer's interrupts", 22.9e6, 49.8e6, 0.54, 0.995, { .not_running_ns = 0 }, 1,
	  { .irq_timer = 13 }, "+22.9 ms: " THR " was 0.54x its best (throughput reference "
	  "before/after); " HOST "; 13 timer interrupts" },
	{ "recorded run 16, preempted too", 20.2e6, 73.4e6, 0.80, 0.99,
	  { .ctx_involuntary = 69, .not_running_ns = 892e3 }, 1, { .irq_timer = 86 },
	  "+20.2 ms: " THR " was 0.80x its best (throughput reference before/after); 892 us "
	  "not running, preempted 69 times; 86 timer interrupts" },
	{ "the whole set slow, this run slower", 38.7e6, 90e6, 0.30, 0.57, { .not_running_ns = 0 },
	  0, { 0 }, "+38.7 ms: " THR " was 0.30x its best (throughput reference before/after; "
	  "0.57x in a typical run); " HOST },
	{ "faster by its speed", -22e6, 29.3e6, 1, 0.57, { .not_running_ns = 0 }, 0, { 0 },
	  "-22.0 ms: " THR " was 1.00x its best (throughput reference before/after; 0.57x in a "
	  "typical run)" },
	{ "speed explains under half: the work, or between the readings", 7.28e6, 58.6e6, 0.99, 1,
	  { .not_running_ns = 0 }, 1, { .irq_timer = 15 }, "+7.28 ms: 15 timer interrupts; on the "
	  "CPU all along by task-clock, and " THR " (0.99x its best by the throughput reference "
	  "before/after) explains under half of it: the work itself, a change of speed between "
	  "the two readings, or what the reference cannot see (shared caches, memory bandwidth)" },
	{ "just under half: not claimed", 10e6, 60e6, 0.92, 1, { .ctx_involuntary = 2,
	  .not_running_ns = 8e6 }, 0, { 0 }, "+10.0 ms: 8.0 ms not running, preempted 2 times" },
	{ "just over half: claimed", 10e6, 60e6, 0.91, 1, { .ctx_involuntary = 2,
	  .not_running_ns = 4e6 }, 0, { 0 }, "+10.0 ms: " THR " was 0.91x its best "
	  "(throughput reference before/after); 4.0 ms not running, preempted 2 times" },
	{ "steal: the kernel saw it", 31e6, 80e6, 0.5, 1, { .not_running_ns = 0 }, 1,
	  { .steal_ticks = 3, .steal_ns = 30e6 }, "+31.0 ms: " THR " was 0.50x its best "
	  "(throughput reference before/after); between 20 ms and 40 ms stolen by the hypervisor "
	  "(/proc/stat counts steal in 10 ms ticks: 3 moved)" },
};

/* The same factors as the clock's (PBENCH_CAUSE_CLOCK): the clock is named, not the share of
 * the core (issue 27: the throughput reference is not the CPU's speed, the clock's is). */
static const struct cause_case clock_causes[] = {
	{ "the clock slowed the run", 22.9e6, 49.8e6, 0.54, 1, { .not_running_ns = 0 }, 0, { 0 },
	  "+22.9 ms: the clock ran at 0.54x its best (latency-bound reference before/after); "
	  HOST },
	{ "the clock explains under half", 7.28e6, 58.6e6, 0.99, 1, { .not_running_ns = 0 }, 1,
	  { .irq_timer = 15 }, "+7.28 ms: 15 timer interrupts; on the CPU all along by "
	  "task-clock, and the clock (0.99x its best by the latency-bound reference before/after) "
	  "explains under half of it: the work itself, a change of speed between the two "
	  "readings, or what the reference cannot see (shared caches, memory bandwidth)" },
};

static void cause_cases(const struct cause_case *cases, size_t n, unsigned flags)
{
	for (size_t i = 0; i < n; i++) {
		const struct cause_case *c = &cases[i];
		struct pbench_noise task = c->task;
		char buf[512];
		int k;

		task.size = sizeof(task);
		k = pbench_noise_cause_speed(buf, sizeof(buf), c->excess_ns, c->run_ns, c->speed,
					     c->typical, &task, c->have_cpu ? &c->cpu : NULL, flags);

		cr_expect_str_eq(buf, c->want, "%s: got '%s'", c->what, buf);
		cr_expect_eq(k, (int)strlen(c->want), "%s: %d", c->what, k);
	}
}

Test(speed, cause_table)
{
	cause_cases(causes, ARRAY_SIZE(causes), 0);
	cause_cases(clock_causes, ARRAY_SIZE(clock_causes), PBENCH_CAUSE_CLOCK);
}

/* Without a speed the line is pbench_noise_cause()'s, word for word. */
Test(speed, cause_without_speed)
{
	struct pbench_noise t = { .not_running_ns = 0 };
	char a[512], b[512];

	pbench_noise_cause(a, sizeof(a), 2.5e6, &t, NULL, 0);
	pbench_noise_cause_speed(b, sizeof(b), 2.5e6, 50e6, NAN, 1, &t, NULL, 0);
	cr_assert_str_eq(a, b);
	pbench_noise_cause_speed(b, sizeof(b), 2.5e6, 50e6, 0.5, NAN, &t, NULL, 0);
	cr_assert_str_eq(a, b);
	cr_assert_eq(pbench_noise_cause_speed(b, sizeof(b), NAN, 50e6, 0.5, 1, &t, NULL, 0),
		     -EINVAL);
}

/* ---- live: the loop and the probes ------------------------------------------------------- */

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The last CPU this process may use: CPU 1 on the development VM. */
static int last_cpu(void)
{
	cpu_set_t set;
	int last = -1;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

Test(speed, live_reference_loop)
{
	struct pbench_speed *s;
	double ns, cost, best;

	cr_assert_eq(pbench_speed_new(&s), 0);
	cr_assert_gt(pbench_speed_iterations(s), 0);
	cr_assert(isnan(pbench_speed_best_ns(s)), "no reading yet");
	for (int i = 0; i < 20; i++) {
		cr_assert_eq(pbench_speed_read(s, &ns, &cost), 0);
		/* Calibrated to 10 us; the host may since run it up to 2x faster or slower, and
		 * a loaded machine preempt a reading. */
		cr_assert(ns > PBENCH_SPEED_LOOP_NS / 4.0 && ns < PBENCH_SPEED_LOOP_NS * 4.0,
			  "a reading of %.0f ns", ns);
		/* Three passes, each at least the fastest. */
		cr_assert_geq(cost, 3 * ns * 0.99, "cost %.0f ns for a %.0f ns reading", cost, ns);
	}
	best = pbench_speed_best_ns(s);
	cr_assert(best > 0 && isfinite(best));
	cr_assert_eq(pbench_speed_read(NULL, &ns, NULL), -EINVAL);
	cr_assert_eq(pbench_speed_read(s, NULL, NULL), -EINVAL);
	cr_assert_eq(pbench_speed_new(NULL), -EINVAL);
	pbench_speed_free(s);
	pbench_speed_free(NULL);
}

Test(speed, probe_arguments)
{
	struct pbench_cpu_speed s = { .size = sizeof(s) };
	struct pbench_cpu_sharing h = { .size = sizeof(h) }, zero = { 0 };

	cr_assert_eq(pbench_cpu_speed_probe(-1, 1, &s), -EINVAL);
	cr_assert_eq(pbench_cpu_speed_probe(0, 0, &s), -EINVAL);
	cr_assert_eq(pbench_cpu_speed_probe(0, 61, &s), -EINVAL);
	cr_assert_eq(pbench_cpu_speed_probe(0, NAN, &s), -EINVAL);
	cr_assert_eq(pbench_cpu_speed_probe(0, 1, NULL), -EINVAL);
	cr_assert_eq(pbench_cpu_sharing_probe(0, -1, 1, &h), -EINVAL);
	cr_assert_eq(pbench_cpu_sharing_probe(0, 0, 1, &zero), -EINVAL);
	/* A CPU this process may not use: the thread cannot start there. */
	cr_assert_eq(pbench_cpu_speed_probe(CPU_SETSIZE - 1, 0.1, &s), -EINVAL);
	cr_assert_eq(pbench_cpu_sharing_probe(0, CPU_SETSIZE - 1, 0.1, &h), -EINVAL);
	cr_assert_str_eq(pbench_cpu_sharing_kind_name(PBENCH_CPU_SHARING_HOST), "host");
	cr_assert_str_eq(pbench_cpu_sharing_kind_name(99), "?");
}

Test(speed, live_stability_probe)
{
	struct pbench_cpu_speed s = { .size = sizeof(s) };
	int cpu = last_cpu(), threads = count_threads(), fds = count_fds();

	cr_assert_eq(pbench_cpu_speed_probe(cpu, 0.2, &s), 0);
	cr_assert_eq(s.size, sizeof(s));
	cr_assert_eq(s.cpu, cpu);
	/* 10 slices planned; one the thread hardly ran in (a busy CPU) is left out. */
	cr_assert(s.slices >= 2 && s.slices <= 10, "%d slices", s.slices);
	cr_assert(NEAR(s.slice_ms, 20, 1e-9));
	cr_assert_geq(s.seconds, 0.2 * 0.99, "%.3f s", s.seconds);
	cr_assert_gt(s.iterations, 0);
	cr_assert(s.best_ns > 0 && isfinite(s.best_ns));
	/* The fastest slice is the reference: its speed is 1. */
	cr_assert_eq(s.max, 1);
	cr_assert(s.min > 0 && s.min <= s.median && s.median <= 1);
	cr_assert(NEAR(s.range, s.max / s.min, 1e-12));
	cr_assert(s.changes >= 0 && s.changes < s.slices);
	cr_assert(s.slow_ms >= 0 && s.slow_ms <= s.slices * s.slice_ms);
	cr_assert(s.not_running_ns >= 0);
	cr_assert(s.burst_pct >= 0 && s.burst_pct < 100, "bursts %g%%", s.burst_pct);
	cr_assert_eq(count_threads(), threads, "the probe's thread was left running");
	cr_assert_eq(count_fds(), fds, "a descriptor was left open");
}

/* The co-location probe against a spinner pbench starts on the probed CPU itself: the two
 * take turns, so the loop runs as fast while running and half the time: about 2x per wall
 * second, which the kernel saw (preemption), not the host. */
Test(speed, live_spinner_on_the_same_cpu_is_preemption)
{
	struct pbench_cpu_sharing h = { .size = sizeof(h) };
	int cpu = last_cpu(), threads = count_threads(), fds = count_fds();

	/* Up to three probes: another task (a build beside the tests) on the CPU can hide the
	 * turn-taking in one. */
	for (int tries = 0; tries < 3; tries++) {
		cr_assert_eq(pbench_cpu_sharing_probe(cpu, cpu, 0.8, &h), 0);
		if (h.kind == PBENCH_CPU_SHARING_PREEMPTION && h.wall_slowdown >= 1.6 &&
		    h.wall_slowdown <= 2.6 && h.slowdown < 1.15)
			break;
	}
	cr_log_info("same CPU: %.2fx while running, %.2fx per wall second, running %.0f%% of the "
		    "spun phases, preempted %llu times: %s", h.slowdown, h.wall_slowdown,
		    h.running_share * 100, (unsigned long long)h.ctx_involuntary,
		    pbench_cpu_sharing_kind_name(h.kind));
	cr_assert_eq(h.kind, PBENCH_CPU_SHARING_PREEMPTION, "kind %s",
		     pbench_cpu_sharing_kind_name(h.kind));
	cr_assert(h.wall_slowdown >= 1.6 && h.wall_slowdown <= 2.6, "%.2fx per wall second",
		  h.wall_slowdown);
	cr_assert_lt(h.slowdown, 1.15, "%.2fx while running", h.slowdown);
	cr_assert_lt(h.running_share, 0.75);
	cr_assert_gt(h.ctx_involuntary, 0);
	cr_assert_eq(h.pairs, 8);
	cr_assert(NEAR(h.phase_ms, 50, 1e-9));
	cr_assert(h.alone_range >= 1);
	cr_assert_eq(count_threads(), threads, "a thread was left running");
	cr_assert_eq(count_fds(), fds, "a descriptor was left open");
}

/* ---- live: 30 runs of the xor loop ------------------------------------------------------- */

static double pearson(const double *x, const double *y, int n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

	for (int i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (int i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxy / sqrt(sxx * syy);
}

#define LIVE_RUNS 30
#define MIN_CLEAN 10
#define MIN_SLOW 3

static void print_runs(struct pbench_runs *runs)
{
	fflush(stderr);
	pbench_runs_write_text(runs, stderr);
}

/*
 * The test, on the runs with no kernel-visible cause (not preempted, not off the CPU
 * for 1% of their time, no steal, no device interrupt, no more interrupts than one a
 * millisecond): when they spread more than 20% and the readings saw the CPU slow around at
 * least MIN_SLOW of them (a factor 10% or more below the median run's), the factors must
 * follow the runs' times (live_factors_explain_the_spread says how that is judged); the runs
 * are printed when time against 1/factor is under r = 0.8. When they do not spread, there is
 * nothing to explain, and the test says so.
 *
 * The readings are at a run's edges: they see a slow stretch that covers runs, not one inside
 * a run. On the development VM the host has been seen to slow the vCPU in bursts of about a
 * millisecond, which a 5 ms xor run averages (up to 1.5x slower) and the two readings of
 * 30 us around it mostly miss (factors at 1.00x): that spread is printed, and the set is not
 * judged, since nothing claimed it. The runs are short (10^7 iterations, about 5 ms here) and
 * prepared (pinned, SCHED_FIFO where permitted) so that the machine's other work leaves most
 * of them clean.
 */
/* One set of live runs: 1, with *r and the *n clean runs it is of, when it can be judged
 * (enough clean runs, a spread, slow runs the readings saw), 0 when not (said why), -1 when
 * a factor is out of range. */
static int live_attempt(double *r_out, int *n_out)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	double ns[LIVE_RUNS], inv[LIVE_RUNS], f[LIVE_RUNS], lo = INFINITY, hi = 0, spread, r;
	struct pbench_speed_summary sum = { .size = sizeof(sum) };
	struct pbench_runs *runs;
	int n = 0, nan = 0, claimed = 0;

	o.mode = PBENCH_RUNS_PREPARED;
	o.runs = LIVE_RUNS;
	o.iterations = 10000000;
	o.warmup_ms = 200;
	o.events = "task-clock";
	cr_assert_eq(pbench_runs_new(&runs, &o), 0);
	ASSERT_OK(pbench_runs_run(runs));
	for (int i = 0; i < LIVE_RUNS; i++) {
		struct pbench_run run = { .size = sizeof(run) };
		struct pbench_cpu_noise cpu = { .size = sizeof(cpu) };
		struct pbench_noise task = { .size = sizeof(task) };

		cr_assert_eq(pbench_runs_get(runs, 0, i, &run), 0);
		cr_assert_eq(pbench_runs_noise(runs, 0, i, &task, &cpu), 0);
		cr_assert(isfinite(run.ref_before_ns) && isfinite(run.ref_after_ns));
		cr_assert(!(run.speed <= 0), "run %d: speed %g", i + 1, run.speed);
		/* NaN: both readings were bursts (pbench_speed_factors()); rare. Above 1.25: the
		 * best reading was itself slow, the fast ones around a run unconfirmed; seen once
		 * under ASan with a schema test and a bench beside it (1.36): the set is told
		 * implausible, and the test fails only when most sets are. */
		if (run.speed > 1.25 || (isnan(run.speed) && ++nan >= 4)) {
			cr_log_info("run %d: speed %g: the set is not judged", i + 1, run.speed);
			pbench_runs_free(runs);
			return -1;
		}
		/* The kernel saw why: preempted, off the CPU, stolen from, or serving a burst of
		 * interrupts (a timer tick every 4 ms; a neighbour's disk I/O here once brought
		 * 800 to a 50 ms run). */
		if (isnan(run.speed) || task.ctx_involuntary ||
		    !(task.not_running_ns < run.ns / 100.0) ||
		    cpu.steal_ticks || cpu.irq_device || cpu.irq_total > run.ns / 1e6 + 2)
			continue;
		ns[n] = (double)run.ns;
		inv[n++] = 1 / run.speed;
		f[n - 1] = run.speed;
		lo = fmin(lo, (double)run.ns);
		hi = fmax(hi, (double)run.ns);
	}
	/* Slow around a run: 10% below the typical run's speed (the median), since the best may
	 * be a faster moment no run had. */
	if (n && !pbench_speed_summarize(NULL, f, (size_t)n, &sum))
		for (int i = 0; i < n; i++)
			claimed += f[i] * PBENCH_SPEED_VARIED <= sum.median;
	spread = n ? (hi - lo) / lo : 0;
	if (n < MIN_CLEAN || spread <= 0.20 || claimed < MIN_SLOW) {
		cr_log_info("%d clean runs of %d, spread %.1f%%, %d with the CPU slow around them: "
			    "%s", n, LIVE_RUNS, spread * 100, claimed, n < MIN_CLEAN ?
			    "the kernel saw the causes" : spread <= 0.20 ? "nothing to explain" :
			    "a spread the readings did not see (faster than a run; printed)");
		if (n >= MIN_CLEAN && spread > 0.20)
			print_runs(runs);
		pbench_runs_free(runs);
		return 0;
	}
	r = pearson(ns, inv, n);
	cr_log_info("%d clean runs of %d, spread %.1f%%, %d with the CPU slow around them; time "
		    "against 1/speed r = %.3f", n, LIVE_RUNS, spread * 100, claimed, r);
	if (r < 0.8)
		print_runs(runs);
	pbench_runs_free(runs);
	*r_out = r;
	*n_out = n;
	return 1;
}

/*
 * The host's slowdowns are not always of one kind: the readings at a run's edges see a slow
 * stretch that covers runs, not a burst inside a run, nor one that slowed only the readings
 * (a run called slow at 0.72x that took its usual time). On 2026-11-24 here, of 24 sets
 * judged in both builds, r ranged 0.06-0.95, and 6 were under 0.6. So the test asks what
 * the factors must give, however the host slows: that they follow the runs' times at all.
 * The sets judged are pooled (Fisher's z of each r, weighted by its n - 3), and the pooled
 * correlation must be above 0 by 3.1 standard errors (one-sided p < 0.001); sets are taken
 * until it is (one set at r = 0.8 is enough), or until LIVE_JUDGED sets judged or LIVE_SETS
 * taken. Factors that do not follow the speed (readings at random, or a run's factor from
 * another run's readings far from it) give r about 0 in every set, and fail.
 */
#define LIVE_SETS 10
#define LIVE_JUDGED 4
#define LIVE_Z 3.1

Test(speed, live_factors_explain_the_spread, .timeout = 400)
{
	double sum_z = 0, r;
	int implausible = 0, judged = 0, weight = 0, attempt, n;
	double z = 0;

	/* On 2026-11-25 this failed alone, with nothing else running, in both builds (4 sets
	 * judged: pooled r = 0.148; spreads of 30-58% the readings did not see): issue 27 found
	 * that the reference loop reads how much of a shared core the vCPU gets, not the clock,
	 * so on such a host the correlation is not a property of this code. Until issue 27
	 * gives the factors an instrument that follows the clock, make test does not gate on it;
	 * PBENCH_TEST_LIVE_SPEED=1 runs it. */
	if (!getenv("PBENCH_TEST_LIVE_SPEED"))
		cr_skip_test("the live speed correlation depends on how the host slows this vCPU "
			     "(issue 27): run with PBENCH_TEST_LIVE_SPEED=1");

	for (attempt = 0; attempt < LIVE_SETS && judged < LIVE_JUDGED && z < LIVE_Z; attempt++) {
		int got = live_attempt(&r, &n);

		implausible += got < 0;
		if (got <= 0 || n <= 3)
			continue;
		judged++;
		/* atanh(r) is about normal with variance 1 / (n - 3); an r that cannot be
		 * computed (factors all equal) is no evidence: 0 */
		sum_z += (n - 3) * atanh(isfinite(r) ? fmin(r, 0.9999) : 0);
		weight += n - 3;
		z = sum_z / sqrt(weight);
	}
	cr_assert_lt(implausible * 2, attempt, "factors out of range in %d sets of %d",
		     implausible, attempt);
	if (!judged) {
		cr_log_info("no set of %d could be judged (too few runs slowed where the readings "
			    "see it)", attempt);
		return;
	}
	cr_log_info("%d sets judged of %d taken: pooled r = %.3f, %.1f standard errors above 0",
		    judged, attempt, tanh(sum_z / weight), z);
	/* Too few sets judged to conclude: the host rarely slowed where the readings see it
	 * (a quiet host; or, as issue 27 found, one whose slowdowns are a shared core's, which
	 * the reference loop reads as speed while the clock is steady). Factors that do not
	 * follow the speed claim slow runs at random, so their sets are judged, and fail. */
	if (judged < LIVE_JUDGED && z < LIVE_Z) {
		cr_log_info("only %d sets of %d judged: too few to conclude", judged, attempt);
		return;
	}
	cr_assert_geq(z, LIVE_Z, "the speed factors do not follow the runs' times: over %d sets "
		      "of runs judged, pooled r = %.3f, only %.1f standard errors above 0 (the "
		      "runs are above)", judged, tanh(sum_z / weight), z);
}

/* ---- the clock against the share of the core (issue 27) ---------------------------------- */

/*
 * Recorded on the development VM while something outside it shared the physical core: the
 * throughput reference (xor loop) at 0.44x to 1.00x of its best around 8 runs of a
 * latency-bound command (imul chain), the clock's reference (a dependent multiply-add chain)
 * at 0.98x to 1.00x, and the command's times flat (it is latency-bound: the sibling took
 * issue slots it did not need). The words must say the throughput fell and the clock did
 * not; and no run is slow by the clock, so none is blamed.
 */
Test(speed, only_throughput_fell_is_not_slow)
{
	static const double ns[] = { 4.01e6, 4.03e6, 3.99e6, 4.02e6, 4.00e6, 4.05e6, 4.01e6, 3.98e6 };
	static const double thr[] = { 1.00, 0.52, 0.44, 0.55, 0.49, 0.83, 0.51, 0.54 };
	static const double clk[] = { 1.00, 0.99, 0.98, 1.00, 0.99, 0.99, 1.00, 0.98 };
	struct pbench_speed_summary t = { .size = sizeof(t) }, c = { .size = sizeof(c) };
	char buf[512];
	int n;

	/* a machine whose cores have sibling threads: the sibling is named (issue 37: only
	 * where the topology shows one; test_speed_words.c has the others) */
	use_tree("amd-workstation");
	cr_assert_eq(pbench_speed_summarize(ns, thr, ARRAY_SIZE(ns), &t), 0);
	cr_assert_eq(pbench_speed_summarize(ns, clk, ARRAY_SIZE(ns), &c), 0);
	n = pbench_speed_explain(buf, sizeof(buf), &t, &c);
	unsetenv("PBENCH_SYSFS_ROOT");
	unsetenv("PBENCH_PROCFS_ROOT");
	cr_assert_gt(n, 0);
	cr_log_info("%s", buf);
	cr_expect(strstr(buf, "issue throughput available to this thread fell to 0.53x"), "%s",
		  buf);
	cr_expect(strstr(buf, "the clock did not change"), "%s", buf);
	cr_expect(strstr(buf, "contention"), "%s", buf);
	cr_expect(!strstr(buf, "slow"), "no run is slow by the clock: %s", buf);
	/* The throughput is not the CPU's speed: the clock did not change (issue 27). */
	cr_expect(!strstr(buf, "CPU"), "the CPU's speed did not vary: %s", buf);
	cr_expect_eq(pbench_speed_slow_runs(&t, &c), 0, "the runs blamed");
}

/* The summaries of recorded runs (times, throughput and clock factors) and their words. */
static void explained(const double *ns, const double *thr, const double *clk, size_t n,
		      struct pbench_speed_summary *t, struct pbench_speed_summary *c, char *buf,
		      size_t len)
{
	*t = (struct pbench_speed_summary){ .size = sizeof(*t) };
	*c = (struct pbench_speed_summary){ .size = sizeof(*c) };
	cr_assert_eq(pbench_speed_summarize(ns, thr, n, t), 0);
	cr_assert_eq(pbench_speed_summarize(ns, clk, n, c), 0);
	cr_assert_gt(pbench_speed_explain(buf, len, t, c), 0);
	cr_log_info("%s", buf);
}

/* Most runs at their best and one low reading: the throughput did not "fall to" its median of
 * 0.99x; it varied at times (this VM: "fell to 0.99x (median; 0.58x to 1.00x ...)"). */
Test(speed, a_few_low_readings_are_a_range_not_a_fall)
{
	static const double ns[] = { 4.01e6, 4.03e6, 3.99e6, 4.02e6, 4.00e6, 4.05e6 };
	static const double thr[] = { 1.00, 0.99, 0.58, 1.00, 0.99, 0.98 };
	static const double clk[] = { 1.00, 0.99, 0.99, 1.00, 0.99, 1.00 };
	struct pbench_speed_summary t, c;
	char buf[512];

	use_tree("amd-workstation");	/* sibling threads: named (issue 37) */
	explained(ns, thr, clk, ARRAY_SIZE(ns), &t, &c, buf, sizeof(buf));
	unsetenv("PBENCH_SYSFS_ROOT");
	unsetenv("PBENCH_PROCFS_ROOT");
	cr_expect(!strstr(buf, "fell to"), "a median at its best did not fall: %s", buf);
	cr_expect(strstr(buf, "this thread varied 0.58x to 1.00x of its best (median 0.99x)"),
		  "%s", buf);
	cr_expect(strstr(buf, "sharing the core at times"), "%s", buf);
}

/* The clock itself slowed (a power cap, the host's frequency): the runs it slowed are. */
Test(speed, clock_fell_is_slow)
{
	static const double ns[] = { 4.0e6, 5.2e6, 5.4e6, 4.1e6, 4.0e6, 5.3e6 };
	static const double thr[] = { 1.00, 0.77, 0.74, 0.98, 1.00, 0.76 };
	static const double clk[] = { 1.00, 0.77, 0.75, 0.99, 1.00, 0.76 };
	struct pbench_speed_summary t, c;
	char buf[512];

	explained(ns, thr, clk, ARRAY_SIZE(ns), &t, &c, buf, sizeof(buf));
	cr_expect(strstr(buf, "the CPU's clock varied 1.33x"), "%s", buf);
	cr_expect(strstr(buf, "3 runs slow"), "%s", buf);
	cr_expect_eq(pbench_speed_slow_runs(&t, &c), 3);
}

/* A throughput-bound command under a sibling: its own times follow the throughput (r >= 0.5),
 * so the runs the throughput slowed are blamed on it, and the words say the clock held. */
Test(speed, throughput_fell_and_the_command_shows_it)
{
	static const double ns[] = { 4.0e6, 7.9e6, 8.2e6, 4.1e6, 7.5e6, 4.0e6 };
	static const double thr[] = { 1.00, 0.51, 0.49, 0.98, 0.55, 1.00 };
	static const double clk[] = { 1.00, 0.99, 1.00, 0.99, 1.00, 1.00 };
	struct pbench_speed_summary t, c;
	char buf[512];

	explained(ns, thr, clk, ARRAY_SIZE(ns), &t, &c, buf, sizeof(buf));
	cr_expect(strstr(buf, "the clock did not change"), "%s", buf);
	cr_expect(strstr(buf, "3 runs slow"), "%s", buf);
	cr_expect_eq(pbench_speed_slow_runs(&t, &c), 3);
	/* Without the clock's reference (not read): the throughput alone, as before. */
	cr_expect_eq(pbench_speed_slow_runs(&t, NULL), 3);
	cr_expect_eq(pbench_speed_explain(buf, sizeof(buf), NULL, &c), -EINVAL);
}

Test(speed, live_clock_reference)
{
	struct pbench_speed *s;
	double ns, cost, lo = INFINITY, hi = 0;

	cr_assert_eq(pbench_speed_new(&s), 0);
	cr_assert(isnan(pbench_speed_best_clock_ns(s)), "no reading yet");
	for (int i = 0; i < 20; i++) {
		cr_assert_eq(pbench_speed_read_clock(s, &ns, &cost), 0);
		cr_assert(ns > PBENCH_SPEED_LOOP_NS / 4.0 && ns < PBENCH_SPEED_LOOP_NS * 4.0,
			  "a reading of %.0f ns", ns);
		cr_assert_geq(cost, 3 * ns * 0.99, "cost %.0f ns for a %.0f ns reading", cost, ns);
		lo = fmin(lo, ns);
		hi = fmax(hi, ns);
	}
	cr_assert(isfinite(pbench_speed_best_clock_ns(s)));
	/* The throughput's readings are apart: one does not count as the other's. */
	cr_assert(isnan(pbench_speed_best_ns(s)), "the throughput reference was not read");
	cr_assert_eq(pbench_speed_read_clock(NULL, &ns, NULL), -EINVAL);
	pbench_speed_free(s);
}
