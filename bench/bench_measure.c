/* SPDX-License-Identifier: MIT */
/*
 * bench_measure: the same function, the xor loop, at four sizes from ~10 ns to ~50 ms a call,
 * timed in one run by pbench_measure() and by Google Benchmark, and what each took to get
 * there. All numbers are measured in this run.
 *
 * Target (the issue): the two means agree within the tools' error bars, and pbench reaches the
 * same or a smaller relative standard error in less wall time. The program reports and always
 * exits 0 when it could measure: the machines are shared, noisy VMs, and a miss is for a human
 * to read.
 *
 * Method. Both tools run from one program, bench/gbench_xor (see there why: the speed of a
 * tight loop depends on where the linker places it, so two binaries would compare layouts).
 * This program runs it as a child, one tool and size at a time, and times each child whole
 * (fork to exit), the same way for both; the few ms of process start are in both.
 *   - pbench: pbench_measure() with its defaults (1.2 s warm-up, samples of >= 1 ms, stop at a
 *     standard error of 1% of the mean). When that misses the target, once more, asked for
 *     the relative error Google Benchmark reached, with Google Benchmark's wall time as all
 *     it may spend: "the same error in less time". Its error is the standard error of the
 *     mean of its samples.
 *   - Google Benchmark: its defaults with --benchmark_repetitions=REPS; its mean is the mean
 *     of the repetitions' real time per iteration and its error their standard deviation over
 *     sqrt(REPS), as its users compute it from the JSON.
 * Agreement: |mean_pbench - mean_gbench| <= 3 * sqrt(sem_pbench^2 + sem_gbench^2).
 *
 * What each mean contains differs by the harness, and shows at the smallest size: pbench
 * subtracts the cost of its own empty batch (an indirect call and the loop) and prints it;
 * Google Benchmark subtracts nothing, so its time includes its loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/base.h"

#define REPS 5			/* Google Benchmark repetitions */
#define AGREE_SIGMAS 3.0
#define PBENCH_WARMUP_MS 1200	/* pbench's default warm-up, paid before its budget starts */

static const double target_ns[] = { 10, 1e3, 1e5, 5e7 };
static const char *const target_name[] = { "~10 ns", "~1 us", "~100 us", "~50 ms" };
#define NR_SIZES ((int)PB_ARRAY_SIZE(target_ns))

static char gbench_path[4096];

/* One tool's answer: ns per call. */
struct answer {
	int ok;
	double mean, sem, wall_ns;
	/* pbench */
	size_t samples;
	unsigned long long iterations;
	double overhead_ns;
	char stop[24];
	unsigned flags;
	/* Google Benchmark */
	int reps;
	const char *why;	/* when not ok */
	char why_buf[512];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- the child ---------------------------------------------------------------------------- */

/* The first line of f (the child's stderr), for an error message. */
static void first_line(FILE *f, char *buf, size_t len)
{
	buf[0] = 0;
	rewind(f);
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
}

/* Everything up to end of file from fd, NUL-terminated (malloc'd), or NULL. */
static char *read_all(int fd)
{
	size_t size = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;

	while (buf && (n = read(fd, buf + size, cap - size - 1)) != 0) {
		char *bigger;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		size += (size_t)n;
		if (cap - size > 1)
			continue;
		bigger = realloc(buf, cap * 2);
		if (!bigger) {
			free(buf);
			return NULL;
		}
		buf = bigger;
		cap *= 2;
	}
	if (buf)
		buf[size] = 0;
	return buf;
}

/*
 * Run gbench_xor with args; *out gets its stdout (malloc'd, NUL-terminated) and *wall_ns the
 * time from fork to its exit. Returns 0, or -1 with why filled.
 */
static int run_child(char *const args[], char **out, double *wall_ns, char *why, size_t len)
{
	FILE *errf = tmpfile();
	int pfd[2] = { -1, -1 }, status;
	char *buf = NULL, err[256];
	double t0;
	pid_t pid;

	if (!errf || pipe(pfd)) {
		snprintf(why, len, "cannot start gbench_xor: %s", strerror(errno));
		goto out_fail;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		goto out_fail;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(fileno(errf), STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(gbench_path, args);
		fprintf(stderr, "cannot run %s: %s\n", gbench_path, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	buf = read_all(pfd[0]);
	/* Closed before the wait: a child still writing gets EPIPE instead of blocking. */
	close(pfd[0]);
	pfd[0] = pfd[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*wall_ns = now_ns() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		first_line(errf, err, sizeof(err));
		snprintf(why, len, "gbench_xor %s: exit status %d%s%s", args[1],
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, err[0] ? ": " : "", err);
		goto out_fail;
	}
	if (!buf) {
		snprintf(why, len, "reading gbench_xor's output: out of memory");
		goto out_fail;
	}
	fclose(errf);
	*out = buf;
	return 0;
out_fail:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (errf)
		fclose(errf);
	free(buf);
	return -1;
}

/* ---- the two tools ---------------------------------------------------------------------- */

static void fail(struct answer *a, const char *fmt, const char *s)
{
	a->ok = 0;
	snprintf(a->why_buf, sizeof(a->why_buf), fmt, s);
	a->why = a->why_buf;
}

/* pbench_measure in the child; sem_pct and budget_ms 0: its defaults. */
static void run_pbench(unsigned long long n, double sem_pct, double budget_ms, struct answer *a)
{
	char ns[32], pct[32], ms[32], *out;
	char *args[] = { "gbench_xor", "--pbench", ns, pct, ms, NULL };
	double inner;

	memset(a, 0, sizeof(*a));
	snprintf(ns, sizeof(ns), "%llu", n);
	snprintf(pct, sizeof(pct), "%.6g", sem_pct);
	snprintf(ms, sizeof(ms), "%.0f", budget_ms);
	if (sem_pct <= 0)
		args[3] = NULL;
	if (run_child(args, &out, &a->wall_ns, a->why_buf, sizeof(a->why_buf))) {
		a->why = a->why_buf;
		return;
	}
	if (sscanf(out, "pbench n=%*u mean_ns=%lf sem_ns=%lf samples=%zu iterations=%llu "
		   "overhead_ns=%lf stop=%23s flags=%u wall_ns=%lf", &a->mean, &a->sem, &a->samples,
		   &a->iterations, &a->overhead_ns, a->stop, &a->flags, &inner) != 8) {
		out[strcspn(out, "\n")] = 0;
		fail(a, "unexpected output from gbench_xor --pbench: '%s'", out);
	} else {
		a->ok = 1;
	}
	free(out);
}

static double unit_ns(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1;
	if (!strcmp(unit, "us"))
		return 1e3;
	if (!strcmp(unit, "ms"))
		return 1e6;
	if (!strcmp(unit, "s"))
		return 1e9;
	return NAN;
}

/* The repetitions (run_type "iteration") of Google Benchmark's JSON: real time per iteration. */
static void parse_gbench(const char *json, struct answer *a, char *build, size_t blen)
{
	double reps[256];
	struct pbench_summary s = { .size = sizeof(s) };
	json_error_t jerr;
	json_t *root = json_loads(json, 0, &jerr), *list, *b;
	const char *bt = NULL;
	size_t i;
	int n = 0;

	if (!root) {
		fail(a, "Google Benchmark's JSON does not parse: %s", jerr.text);
		return;
	}
	json_unpack(root, "{s:{s?s}}", "context", "library_build_type", &bt);
	snprintf(build, blen, "%s", bt ? bt : "not said");
	list = json_object_get(root, "benchmarks");
	json_array_foreach(list, i, b) {
		const char *type = NULL, *unit = NULL;
		double t = NAN;
		json_int_t it = 0;

		if (json_unpack(b, "{s:s, s:F, s:s, s:I}", "run_type", &type, "real_time", &t,
				"time_unit", &unit, "iterations", &it) ||
		    strcmp(type, "iteration") || n == (int)PB_ARRAY_SIZE(reps))
			continue;
		reps[n++] = t * unit_ns(unit);
		a->iterations = (unsigned long long)it;
	}
	json_decref(root);
	a->reps = n;
	if (n < 2 || pbench_stats_summary(reps, (size_t)n, NULL, &s)) {
		fail(a, "Google Benchmark's JSON has %s usable repetitions", n ? "too few" : "no");
		return;
	}
	a->mean = s.mean;
	a->sem = s.sem;
	a->ok = 1;
}

static void run_gbench(unsigned long long n, struct answer *a, char *build, size_t blen)
{
	char ns[32], reps[48], *out;
	char *args[] = { "gbench_xor", "--benchmark_format=json", reps, ns, NULL };

	memset(a, 0, sizeof(*a));
	snprintf(ns, sizeof(ns), "%llu", n);
	snprintf(reps, sizeof(reps), "--benchmark_repetitions=%d", REPS);
	if (run_child(args, &out, &a->wall_ns, a->why_buf, sizeof(a->why_buf))) {
		a->why = a->why_buf;
		return;
	}
	parse_gbench(out, a, build, blen);
	free(out);
}

/* ---- report ------------------------------------------------------------------------------- */

static double rel_pct(const struct answer *a)
{
	return 100 * a->sem / a->mean;
}

static void flag_names(unsigned flags, char *buf, size_t len)
{
	static const char *const names[] = { "suspicious", "unoptimized", "overhead-dominates",
					     "noisy", "clamped" };
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < PB_ARRAY_SIZE(names); i++)
		if (flags & (1u << i) && used < len)
			used += (size_t)snprintf(buf + used, len - used, ", %s", names[i]);
}

static void print_answer(const char *who, const struct answer *a, int is_pbench)
{
	char v[64], ovh[32], fl[96];

	if (!a->ok) {
		printf("  %-26s not measured: %s\n", who, a->why);
		return;
	}
	pbench_format_value(v, sizeof(v), a->mean, a->sem, "ns");
	printf("  %-26s %-22s rel. error %6.3f%%  wall %6.2f s  ", who, v, rel_pct(a),
	       a->wall_ns / 1e9);
	if (is_pbench) {
		pbench_format_ns(ovh, sizeof(ovh), a->overhead_ns, 3);
		flag_names(a->flags, fl, sizeof(fl));
		printf("%zu samples x %llu call%s, stop: %s, %s overhead subtracted%s\n",
		       a->samples, a->iterations, a->iterations == 1 ? "" : "s", a->stop, ovh, fl);
	} else {
		printf("%d repetitions x %llu iterations\n", a->reps, a->iterations);
	}
}

/* Agreement of a pbench answer with Google Benchmark's, in words; 1 when they agree. */
static int print_agreement(const char *who, const struct answer *p, const struct answer *g)
{
	double err = sqrt(p->sem * p->sem + g->sem * g->sem), diff = p->mean - g->mean;
	int agree = fabs(diff) <= AGREE_SIGMAS * err;
	char d[32], e[32];

	if (!p->ok || !g->ok)
		return 0;
	pbench_format_ns(d, sizeof(d), diff, 3);
	pbench_format_ns(e, sizeof(e), err, 2);
	printf("  agree, %-19s pbench - gbench = %s (%+.2f%%), %.1f x the combined error %s "
	       "-> %s\n", who, d, 100 * diff / g->mean, err > 0 ? fabs(diff) / err : INFINITY, e,
	       agree ? "yes" : "NO");
	return agree;
}

/* Where the harnesses' overheads matter (the shortest call), what pbench's mean is with the
 * overhead it subtracted added back: the two tools bracket the call's cost. */
static void print_gross(const struct answer *p, const struct answer *g)
{
	double err = sqrt(p->sem * p->sem + g->sem * g->sem);
	char v[32];

	if (!p->ok || !g->ok || p->overhead_ns <= AGREE_SIGMAS * err)
		return;
	pbench_format_ns(v, sizeof(v), p->mean + p->overhead_ns, 4);
	printf("  %-26s %s: pbench's mean with its subtracted empty batch (indirect call, loop) "
	       "added back; Google Benchmark subtracts nothing\n", "pbench + overhead", v);
}

/* pbench meets the target with one of its runs: the error at most Google Benchmark's, in
 * less wall time. */
static int print_target(const struct answer *pd, const struct answer *pm, const struct answer *g)
{
	int okd = pd->ok && rel_pct(pd) <= rel_pct(g) && pd->wall_ns < g->wall_ns;
	int okm = pm->ok && rel_pct(pm) <= rel_pct(g) && pm->wall_ns < g->wall_ns;

	printf("  TARGET pbench: same or smaller relative error in less wall time: defaults %.3f%% "
	       "in %.2f s", rel_pct(pd), pd->wall_ns / 1e9);
	if (pm->ok)
		printf(", asked %.3f%% in %.2f s", rel_pct(pm), pm->wall_ns / 1e9);
	printf("; gbench %.3f%% in %.2f s -> %s\n", rel_pct(g), g->wall_ns / 1e9,
	       okd ? "ok (defaults)" : okm ? "ok (asked for gbench's error)" : "not met");
	return okd || okm;
}

/* ---- main --------------------------------------------------------------------------------- */

static int find_gbench(void)
{
	ssize_t n = readlink("/proc/self/exe", gbench_path, sizeof(gbench_path) - 16);
	char *slash;

	if (n <= 0)
		return -1;
	gbench_path[n] = 0;
	slash = strrchr(gbench_path, '/');
	if (!slash)
		return -1;
	strcpy(slash + 1, "gbench_xor");
	return access(gbench_path, X_OK);
}

/* The iteration count of each size, found by the child (the binary that will be timed). */
static int calibrate(unsigned long long *n)
{
	char *args[NR_SIZES + 3] = { "gbench_xor", "--calibrate" }, bufs[NR_SIZES][32], *out, *p;
	char why[512];
	double wall;

	for (int i = 0; i < NR_SIZES; i++) {
		snprintf(bufs[i], sizeof(bufs[i]), "%.0f", target_ns[i]);
		args[i + 2] = bufs[i];
	}
	if (run_child(args, &out, &wall, why, sizeof(why))) {
		printf("bench_measure: not measured: %s\n", why);
		return -1;
	}
	p = out;
	for (int i = 0; i < NR_SIZES; i++) {
		n[i] = strtoull(p, &p, 10);
		if (!n[i]) {
			printf("bench_measure: not measured: gbench_xor --calibrate gave no count "
			       "for %.0f ns\n", target_ns[i]);
			free(out);
			return -1;
		}
	}
	free(out);
	return 0;
}

int main(void)
{
	unsigned long long n[NR_SIZES];
	int agree = 0, met = 0, compared = 0;
	char build[64] = "";
	double t0 = now_ns();

	printf("bench_measure: the xor loop at %d sizes, timed by pbench_measure and by Google "
	       "Benchmark in this run\n", NR_SIZES);
	printf("nanobench: not measured: not packaged in Debian (pbench does not vendor it)\n");
	if (find_gbench()) {
		printf("bench_measure: not measured: no gbench_xor beside this program (make bench "
		       "builds it when libbenchmark-dev is installed)\n");
		return 0;
	}
	if (calibrate(n))
		return 0;
	printf("both tools run from %s, one child per tool and size; wall = the whole child\n",
	       gbench_path);
	printf("gbench: --benchmark_repetitions=%d, error = stddev of the repetitions / sqrt(n); "
	       "agree: |diff| <= %.0f x sqrt(sem_pbench^2 + sem_gbench^2)\n", REPS, AGREE_SIGMAS);

	for (int i = 0; i < NR_SIZES; i++) {
		struct answer pd, g, pm = { .ok = 0 };

		printf("\n%s a call: xor loop of %llu iterations\n", target_name[i], n[i]);
		run_pbench(n[i], 0, 0, &pd);
		print_answer("pbench (defaults)", &pd, 1);
		run_gbench(n[i], &g, build, sizeof(build));
		print_answer("Google Benchmark", &g, 0);
		if (pd.ok && g.ok && (rel_pct(&pd) > rel_pct(&g) || pd.wall_ns >= g.wall_ns)) {
			/* The same error, with Google Benchmark's wall time as everything it may
			 * spend: the budget is what is left after the warm-up. */
			double budget = g.wall_ns / 1e6 - PBENCH_WARMUP_MS;
			char who[48];

			snprintf(who, sizeof(who), "pbench (asked %.3f%%)", rel_pct(&g));
			run_pbench(n[i], rel_pct(&g), budget > 100 ? budget : 100, &pm);
			print_answer(who, &pm, 1);
		}
		if (!pd.ok || !g.ok) {
			printf("  TARGET: not measured (see above)\n");
			continue;
		}
		compared++;
		agree += print_agreement("defaults:", &pd, &g);
		print_agreement("asked:", &pm, &g);
		print_gross(&pd, &g);
		met += print_target(&pd, &pm, &g);
	}
	printf("\nGoogle Benchmark's library_build_type (its JSON): %s; its timing loop "
	       "(State::StateIterator) is inline in benchmark.h, built here with this program\n",
	       build);
	printf("TARGET means agree within the error bars (pbench defaults): %d of %d sizes -> %s\n",
	       agree, compared, compared && agree == compared ? "ok" : "not met");
	printf("TARGET pbench: same or smaller error in less time: %d of %d sizes -> %s\n", met,
	       compared, compared && met == compared ? "ok" : "not met");
	printf("bench_measure took %.1f s\n", (now_ns() - t0) / 1e9);
	return 0;
}
