/* SPDX-License-Identifier: MIT */
/*
 * bench_compare: pbench compare (the library's contest, as the command runs it) on this
 * machine, idle and under a background load (`stress-ng --cpu 1`), in one run.
 *
 * 0. The rule, simulated: 20000 A/A comparisons of log-normal times (the t-test's own
 *    assumption: what is left is the correction for looking many times), the paired test at
 *    the contest's looks (round 10, then each a fifth more rounds) with the boundary
 *    pbench_stats_verdict() applies, up to 100, 1000 and 10000 rounds: the share that said
 *    "different". Target: at most 0.1% (99.9%). And with a look after every round, which the
 *    contest does not do: what the spacing buys.
 * 1. A/A. The same command twice (build/bench/xorloop, 2M iterations, ~0.6 ms), 200
 *    comparisons of at most 60 rounds each, interleaved and unprepared (the sequential test
 *    looks after every round from the 10th), with the rounds' pairs (the default) and with
 *    Welch on all the times: how many said "faster" or "slower". Target: at most 1 in 200 at
 *    99.9%.
 * 2. Sensitivity. xorloop at N = 50M iterations (~14 ms) and at 1.01 N: the time pbench compare
 *    (interleaved and prepared, the default; and --duet, prepared too) takes to a verdict, and whether it is
 *    the right one ("1.01 N is slower"). Then hyperfine -N on the same two commands for the
 *    same wall time (runs = that time / the two commands' mean), its exported times put
 *    through Welch on the logs at 99.9% (one look, which favours it): its interval, and
 *    whether it excludes 1. Target: pbench decides 1% correctly in under 30 s under load.
 * 3. Interval widths at equal wall time: N against 1.01 N for a fixed budget (--full-budget,
 *    10 s, prepared as pbench compare is by default) in each order: sequential (all of one,
 *    then the other: two pbench stat), interleaved (random order each round, the rounds'
 *    pairs tested) and duet (both at once, CPUs swapped, the priority raised); for the last
 *    two, also Welch on all the times of the same runs (what the pairing gains). The width
 *    (hi - lo) of the ratio's 99.9% interval. Target: duet at least 3x narrower than
 *    sequential under load.
 *
 * BENCH_REPS (default 3) repeats 2 and 3; each result is printed as it comes. The machine is a
 * shared VM: this program reports, and exits 0 whenever it could measure; a target missed is
 * for a human to read. What is not installed is skipped with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pbench.h"
#include "bench_util.h"

#define AA_COMPARISONS 200
#define AA_ITERS "2000000"
#define AA_ROUNDS 60
#define N_ITERS "50000000"
#define N_ITERS_1PCT "50500000"
#define SENS_MAX_TIME 30.0
#define WIDTH_TIME 10.0

static char xorloop[4096];
static int have_hyperfine, have_stress, reps = 3;
static pid_t load_pgid;
static volatile int stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the background load -------------------------------------------------------------------- */

static void stop_load(void)
{
	if (load_pgid <= 0)
		return;
	kill(-load_pgid, SIGTERM);
	for (int i = 0; i < 300 && waitpid(load_pgid, NULL, WNOHANG) == 0; i++)
		usleep(10000);
	kill(-load_pgid, SIGKILL);
	waitpid(load_pgid, NULL, 0);
	load_pgid = 0;
}

static void on_signal(int sig)
{
	stop = 1;
	if (load_pgid > 0)
		kill(-load_pgid, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* stress-ng --cpu 1 in its own group; its --timeout is the last resort. */
static int start_load(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(null, 1);
		dup2(null, 2);
		execlp("stress-ng", "stress-ng", "--cpu", "1", "--timeout", "3600s", "--quiet",
		       (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	load_pgid = pid;
	usleep(500000);
	return 0;
}

static int works(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "%s --version >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* ---- a contest ------------------------------------------------------------------------------ */

struct outcome {
	int ok, verdict;
	long rounds;
	double ratio, lo, hi, decided_s, wall_s, mean_a_s, mean_b_s;
	double welch_lo, welch_hi;	/* Welch on the logs of the same runs, at 99.9% */
	char why[256];
};

/* Entrant i's times, from its runs (those killed at a timeout left out). */
static double *times_of(const struct pbench_contest *c, int i, size_t *n)
{
	const struct pbench_runs *r = pbench_contest_runs(c, i);
	struct pbench_runs_set si = { .size = sizeof(si) };
	double *x;

	*n = 0;
	if (!r || pbench_runs_set_info(r, 0, &si) || !(x = malloc((size_t)(si.done + 1) *
								 sizeof(*x))))
		return NULL;
	for (int k = 0; k < si.done; k++) {
		struct pbench_run run = { .size = sizeof(run) };

		if (!pbench_runs_get(r, 0, k, &run) && !run.timed_out)
			x[(*n)++] = (double)run.ns;
	}
	return x;
}

/* Welch on all the times of the same contest: what its rounds' pairing gains, on one data. */
static void welch_same_runs(const struct pbench_contest *c, struct outcome *out)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.999,
					.flags = PBENCH_STATS_LOG };
	struct pbench_welch w = { .size = sizeof(w) };
	size_t na, nb;
	double *a = times_of(c, 0, &na), *b = times_of(c, 1, &nb);

	out->welch_lo = out->welch_hi = NAN;
	if (a && b && !pbench_stats_welch(b, nb, a, na, &so, &w)) {
		out->welch_lo = w.ratio_lo;
		out->welch_hi = w.ratio_hi;
	}
	free(a);
	free(b);
}

static void contest(struct pbench_contest_opts *o, const char *na, const char *nb,
		    struct outcome *out)
{
	char *a[] = { xorloop, (char *)na, NULL }, *b[] = { xorloop, (char *)nb, NULL };
	struct pbench_contest_entrant ea = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest_entrant eb = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest_result r = { .size = sizeof(r) };
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_summary sa = { .size = sizeof(sa) }, sb = { .size = sizeof(sb) };
	struct pbench_contest *c = NULL;
	double t0 = now_s();
	int err;

	memset(out, 0, sizeof(*out));
	o->stop = &stop;
	ea.name = "a";
	ea.argv = a;
	eb.name = "b";
	eb.argv = b;
	err = pbench_contest_new(&c, o);
	if (!err)
		err = pbench_contest_add(c, &ea);
	if (err >= 0)
		err = pbench_contest_add(c, &eb);
	if (err >= 0)
		err = pbench_contest_run(c);
	out->wall_s = now_s() - t0;
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s", pbench_strerror(err));
		pbench_contest_free(c);
		return;
	}
	pbench_contest_result(c, 1, &r);
	pbench_contest_info(c, &ci);
	pbench_contest_summary(c, 0, &sa);
	pbench_contest_summary(c, 1, &sb);
	*out = (struct outcome){ .ok = 1, .verdict = r.verdict, .rounds = ci.rounds,
				 .ratio = r.ratio, .lo = r.ratio_lo, .hi = r.ratio_hi,
				 .decided_s = r.decided_s, .wall_s = out->wall_s,
				 .mean_a_s = sa.mean / 1e9, .mean_b_s = sb.mean / 1e9 };
	welch_same_runs(c, out);
	pbench_contest_free(c);
}

static struct pbench_contest_opts base_opts(int order, int mode)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;

	o.order = order;
	o.mode = mode;
	o.events = "task-clock";
	return o;
}

/* ---- 0. the rule, simulated ---------------------------------------------------------------- */

/* A standard normal (Box-Muller) from xorshift64. */
static double normal(uint64_t *s)
{
	double u, v;

	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	u = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	v = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* One A/A comparison of up to max rounds: 1 when a look said faster or slower. */
static int aa_once(double *a, double *b, long max, int every_round, uint64_t *s)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 1 - 0.001 / 10,
					.flags = PBENCH_STATS_LOG };
	long next = 10;

	for (long n = 1; n <= max; n++) {
		struct pbench_welch w = { .size = sizeof(w) };

		a[n - 1] = exp(0.05 * normal(s));
		b[n - 1] = exp(0.05 * normal(s));
		if (n < next)
			continue;
		next = every_round ? n + 1 : (long)fmax((double)n + 1, ceil((double)n * 1.2));
		if (!pbench_stats_paired(b, a, (size_t)n, &so, &w) &&
		    pbench_stats_verdict(&w, 0.999, 0, PBENCH_VERDICT_SEQUENTIAL) !=
		    PBENCH_VERDICT_UNDECIDED)
			return 1;
	}
	return 0;
}

static void rule_simulated(void)
{
	static const struct { long max; int sims, every; } runs[] = {
		{ 100, 20000, 0 }, { 1000, 20000, 0 }, { 10000, 2000, 0 }, { 1000, 2000, 1 },
	};
	double *a = malloc(10000 * sizeof(*a)), *b = malloc(10000 * sizeof(*b));
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	for (size_t k = 0; a && b && k < sizeof(runs) / sizeof(runs[0]) && !stop; k++) {
		double t0 = now_s();
		int diff = 0;

		for (int i = 0; i < runs[k].sims; i++)
			diff += aa_once(a, b, runs[k].max, runs[k].every, &s);
		printf("  the rule, simulated: %d of %d A/A comparisons of up to %ld rounds said "
		       "different (%.3f%%; target 0.1%%), looking %s (%.0f s)\n", diff,
		       runs[k].sims, runs[k].max, 100.0 * diff / runs[k].sims, runs[k].every ?
		       "after every round, which the contest does not" :
		       "at rounds 10, 12, 15, 18... as the contest does", now_s() - t0);
	}
	free(a);
	free(b);
}

/* ---- 1. A/A --------------------------------------------------------------------------------- */

static void aa(const char *cond, unsigned flags)
{
	int diff = 0, same_or_und = 0, failed = 0;
	double t0 = now_s();

	for (int k = 0; k < AA_COMPARISONS && !stop; k++) {
		struct pbench_contest_opts o = base_opts(PBENCH_CONTEST_ORDER_INTERLEAVED,
							 PBENCH_RUNS_UNPREPARED);
		struct outcome r;

		o.max_rounds = AA_ROUNDS;
		o.flags = flags;
		contest(&o, AA_ITERS, AA_ITERS, &r);
		if (!r.ok)
			failed++;
		else if (r.verdict == PBENCH_VERDICT_FASTER || r.verdict == PBENCH_VERDICT_SLOWER)
			diff++;
		else
			same_or_und++;
	}
	printf("  A/A (%s, %s): %d of %d comparisons said faster or slower (%.2f%%; target at "
	       "most 1 in 200), %d undecided, %d failed, in %.0f s\n", cond,
	       flags & PBENCH_CONTEST_UNPAIRED ? "Welch on all times" : "rounds paired", diff,
	       diff + same_or_und, 100.0 * diff / fmax(1, diff + same_or_und), same_or_und,
	       failed, now_s() - t0);
}

/* ---- 2. sensitivity, against hyperfine -------------------------------------------------------- */

static double *hf_times(json_t *root, int k, size_t *n)
{
	json_t *t = json_object_get(json_array_get(json_object_get(root, "results"), k), "times");
	double *x = malloc((json_array_size(t) + 1) * sizeof(*x));
	size_t i;
	json_t *v;

	*n = 0;
	json_array_foreach(t, i, v)
		if (x && json_is_number(v))
			x[(*n)++] = json_number_value(v) * 1e9;
	return x;
}

/* hyperfine -N for `runs` runs of each: Welch on the logs of its times at 99.9%. */
static int hyperfine(int runs, struct outcome *out)
{
	char path[] = "/tmp/bench_compare.XXXXXX", cmd[16384];
	double t0 = now_s(), *a, *b;
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.999,
					.flags = PBENCH_STATS_LOG };
	struct pbench_welch w = { .size = sizeof(w) };
	size_t na, nb;
	json_t *root;
	int fd = mkstemp(path), rc;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd), "hyperfine -N --runs %d --style none --export-json %s "
		 "'%s %s' '%s %s' >/dev/null 2>&1", runs, path, xorloop, N_ITERS, xorloop,
		 N_ITERS_1PCT);
	rc = system(cmd);
	out->wall_s = now_s() - t0;
	root = rc == 0 ? json_load_file(path, 0, NULL) : NULL;
	unlink(path);
	if (!root)
		return -1;
	a = hf_times(root, 0, &na);
	b = hf_times(root, 1, &nb);
	json_decref(root);
	if (a && b && !pbench_stats_welch(b, nb, a, na, &so, &w)) {
		out->ok = 1;
		out->rounds = (long)na;
		out->ratio = w.ratio;
		out->lo = w.ratio_lo;
		out->hi = w.ratio_hi;
	}
	free(a);
	free(b);
	return out->ok ? 0 : -1;
}

static const char *verdict_words(const struct outcome *r)
{
	if (!r->ok)
		return "failed";
	if (r->verdict == PBENCH_VERDICT_SLOWER)
		return "right (1.01 N slower)";
	if (r->verdict == PBENCH_VERDICT_FASTER)
		return "WRONG (1.01 N faster)";
	return r->verdict == PBENCH_VERDICT_SAME ? "same (wrong)" : "undecided";
}

static void sensitivity(const char *cond)
{
	static const struct { const char *name; int order, mode; } how[] = {
		{ "interleaved, prepared", PBENCH_CONTEST_ORDER_INTERLEAVED, PBENCH_RUNS_PREPARED },
		{ "duet, prepared", PBENCH_CONTEST_ORDER_DUET, PBENCH_RUNS_PREPARED },
	};

	for (size_t h = 0; h < sizeof(how) / sizeof(how[0]); h++)
		for (int rep = 0; rep < reps && !stop; rep++) {
			struct pbench_contest_opts o = base_opts(how[h].order, how[h].mode);
			struct outcome r, hf;

			o.max_time_s = SENS_MAX_TIME;
			contest(&o, N_ITERS, N_ITERS_1PCT, &r);
			printf("  1%% (%s), pbench %s: %s after %.1f s of rounds (%ld rounds; %.1f s "
			       "in all), ratio %.4f (%.4f-%.4f)\n", cond, how[h].name,
			       verdict_words(&r), r.ok && isfinite(r.decided_s) ? r.decided_s :
			       NAN, r.rounds, r.wall_s, r.ratio, r.lo, r.hi);
			if (!r.ok || !have_hyperfine)
				continue;
			if (hyperfine((int)fmax(2, r.wall_s / (r.mean_a_s + r.mean_b_s)), &hf))
				printf("      hyperfine -N: failed\n");
			else
				printf("      hyperfine -N, %ld runs each in %.1f s: ratio %.4f, 99.9%% "
				       "interval %.4f-%.4f: %s\n", hf.rounds, hf.wall_s, hf.ratio,
				       hf.lo, hf.hi, hf.lo > 1 ? "excludes 1 (right)" :
				       hf.hi < 1 ? "excludes 1 (WRONG)" : "includes 1: no verdict");
		}
}

/* ---- 3. interval widths at equal wall time ----------------------------------------------------- */

/* Widths of each order, prepared (as pbench compare runs by default), for a fixed budget;
 * interleaved and duet also with Welch on the same runs: what the pairing gains. */
static void widths(const char *cond)
{
	static const struct { const char *name; int order; } how[] = {
		{ "sequential", PBENCH_CONTEST_ORDER_SEQUENTIAL },
		{ "interleaved", PBENCH_CONTEST_ORDER_INTERLEAVED },
		{ "duet", PBENCH_CONTEST_ORDER_DUET },
	};
	double med[3] = { NAN, NAN, NAN }, wmed[3] = { NAN, NAN, NAN };

	for (int h = 0; h < 3 && !stop; h++) {
		double w[16], ww[16];
		int n = 0, nw = 0;

		for (int rep = 0; rep < reps && rep < 16 && !stop; rep++) {
			struct pbench_contest_opts o = base_opts(how[h].order,
								 PBENCH_RUNS_PREPARED);
			struct outcome r;

			o.max_time_s = WIDTH_TIME;
			o.max_rounds = 100000;
			o.flags = PBENCH_CONTEST_FULL_BUDGET;
			contest(&o, N_ITERS, N_ITERS_1PCT, &r);
			if (r.ok && isfinite(r.hi))
				w[n++] = r.hi - r.lo;
			if (r.ok && isfinite(r.welch_hi) && h)
				ww[nw++] = r.welch_hi - r.welch_lo;
			printf("  width (%s), %s: %.1f s, %ld rounds, ratio %.4f (%.4f-%.4f), width "
			       "%.4f; Welch on the same runs %.4f\n", cond, how[h].name, r.wall_s,
			       r.rounds, r.ratio, r.lo, r.hi, r.hi - r.lo,
			       r.welch_hi - r.welch_lo);
		}
		med[h] = bench_median(w, n);
		wmed[h] = bench_median(ww, nw);
	}
	printf("  widths (%s), medians: sequential %.4f, interleaved %.4f (Welch on its runs "
	       "%.4f), duet %.4f (Welch %.4f): narrower than sequential: duet %.2fx (target: "
	       "3x), interleaved %.2fx\n", cond, med[0], med[1], wmed[1], med[2], wmed[2],
	       med[0] / med[2], med[0] / med[1]);
}

/* ---- main ----------------------------------------------------------------------------------- */

static void one_condition(const char *cond)
{
	printf("\n%s:\n", cond);
	aa(cond, 0);
	aa(cond, PBENCH_CONTEST_UNPAIRED);
	sensitivity(cond);
	widths(cond);
}

int main(void)
{
	const char *r = getenv("BENCH_REPS");
	double t0 = now_s();

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (r && atoi(r) > 0)
		reps = atoi(r);
	printf("bench_compare: pbench compare's false differences (A/A), its time to a 1%% "
	       "verdict against hyperfine's interval in the same time, and the interval widths "
	       "of its orders, idle and under load\n");
	if (bench_sibling(xorloop, sizeof(xorloop), "xorloop")) {
		printf("bench_compare: not measured: no xorloop beside this program (make bench "
		       "builds it)\n");
		return 0;
	}
	have_hyperfine = works("hyperfine");
	have_stress = works("stress-ng");
	if (!have_hyperfine || !have_stress)
		printf("bench_compare: not measured:%s%s (run: sudo apt-get install -y%s%s)\n",
		       have_hyperfine ? "" : " hyperfine", have_stress ? "" : " the loaded machine",
		       have_hyperfine ? "" : " hyperfine", have_stress ? "" : " stress-ng");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rule_simulated();
	printf("commands: %s %s (A/A), %s %s against %s (1%% more work); %d repeats; %d CPUs\n",
	       xorloop, AA_ITERS, xorloop, N_ITERS, N_ITERS_1PCT, reps,
	       (int)sysconf(_SC_NPROCESSORS_ONLN));
	one_condition("idle");
	if (have_stress && !stop && !start_load()) {
		one_condition("under stress-ng --cpu 1");
		stop_load();
	}
	printf("\nbench_compare took %.0f s\n", now_s() - t0);
	return 0;
}
