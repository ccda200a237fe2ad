/* SPDX-License-Identifier: MIT */
/*
 * bench_compare: pbench compare (the library's contest, as the command runs it) on this
 * machine, idle and under a background load (`stress-ng --cpu 1`), in one run.
 *
 * 1. A/A. The same command twice (build/bench/xorloop, 2M iterations, ~0.6 ms), 200
 *    comparisons of at most 60 rounds each, interleaved and unprepared (the sequential test
 *    looks after every round from the 10th), with the rounds' pairs (the default) and with
 *    Welch on all the times: how many said "faster" or "slower". Target: at most 1 in 200 at
 *    99.9%.
 * 2. Sensitivity. xorloop at N = 50M iterations (~14 ms) and at 1.01 N: the time pbench compare
 *    (interleaved and prepared, the default; and --duet) takes to a verdict, and whether it is
 *    the right one ("1.01 N is slower"). Then hyperfine -N on the same two commands for the
 *    same wall time (runs = that time / the two commands' mean), its exported times put
 *    through Welch on the logs at 99.9% (one look, which favours it): its interval, and
 *    whether it excludes 1. Target: pbench decides 1% correctly in under 30 s under load.
 * 3. Interval widths at equal wall time: N against 1.01 N for a fixed budget (--full-budget,
 *    10 s, unprepared) in each order: sequential (all of one, then the other: two pbench stat),
 *    interleaved with Welch on all the times, interleaved with the rounds' pairs (the default)
 *    and duet (both at once, CPUs swapped). The width (hi - lo) of the ratio's 99.9% interval.
 *    Target: duet at least 3x narrower than sequential under load.
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
	char why[256];
};

static void contest(struct pbench_contest_opts *o, const char *na, const char *nb,
		    struct outcome *out)
{
	char *a[] = { xorloop, (char *)na, NULL }, *b[] = { xorloop, (char *)nb, NULL };
	struct pbench_contest_result r = { .size = sizeof(r) };
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_summary sa = { .size = sizeof(sa) }, sb = { .size = sizeof(sb) };
	struct pbench_contest *c = NULL;
	double t0 = now_s();
	int err;

	memset(out, 0, sizeof(*out));
	o->stop = &stop;
	err = pbench_contest_new(&c, o);
	if (!err)
		err = pbench_contest_add(c, &(struct pbench_contest_entrant){
			.size = sizeof(struct pbench_contest_entrant), .name = "a", .argv = a });
	if (err >= 0)
		err = pbench_contest_add(c, &(struct pbench_contest_entrant){
			.size = sizeof(struct pbench_contest_entrant), .name = "b", .argv = b });
	if (err >= 0)
		err = pbench_contest_run(c);
	out->wall_s = now_s() - t0;
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s", c ? pbench_contest_error(c) :
			 pbench_strerror(err));
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
		{ "duet, unprepared", PBENCH_CONTEST_ORDER_DUET, PBENCH_RUNS_UNPREPARED },
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void widths(const char *cond)
{
	static const struct { const char *name; int order; unsigned flags; } how[] = {
		{ "sequential", PBENCH_CONTEST_ORDER_SEQUENTIAL, 0 },
		{ "interleaved, Welch", PBENCH_CONTEST_ORDER_INTERLEAVED, PBENCH_CONTEST_UNPAIRED },
		{ "interleaved, paired", PBENCH_CONTEST_ORDER_INTERLEAVED, 0 },
		{ "duet", PBENCH_CONTEST_ORDER_DUET, 0 },
	};
	double med[4] = { NAN, NAN, NAN, NAN };

	for (int h = 0; h < 4 && !stop; h++) {
		double w[16];
		int n = 0;

		for (int rep = 0; rep < reps && rep < 16 && !stop; rep++) {
			struct pbench_contest_opts o = base_opts(how[h].order,
								 PBENCH_RUNS_UNPREPARED);
			struct outcome r;

			o.max_time_s = WIDTH_TIME;
			o.max_rounds = 100000;
			o.flags = PBENCH_CONTEST_FULL_BUDGET | how[h].flags;
			contest(&o, N_ITERS, N_ITERS_1PCT, &r);
			if (r.ok && isfinite(r.hi))
				w[n++] = r.hi - r.lo;
			printf("  width (%s), %s: %.1f s, %ld rounds, ratio %.4f (%.4f-%.4f), width "
			       "%.4f\n", cond, how[h].name, r.wall_s, r.rounds, r.ratio, r.lo, r.hi,
			       r.hi - r.lo);
		}
		qsort(w, (size_t)n, sizeof(*w), cmp_double);
		med[h] = n ? w[n / 2] : NAN;
	}
	printf("  widths (%s), medians: sequential %.4f, interleaved Welch %.4f, interleaved "
	       "paired %.4f, duet %.4f: narrower than sequential: duet %.2fx (target: 3x), "
	       "interleaved paired %.2fx, Welch %.2fx\n", cond, med[0], med[1], med[2], med[3],
	       med[0] / med[3], med[0] / med[2], med[0] / med[1]);
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
