/* SPDX-License-Identifier: MIT */
/*
 * bench_attach [ROUNDS]: what `pbench stat -p PID` costs the process it attaches to (issue
 * 39: attaching never slows the target beyond the counters themselves). The target is
 * build/bench/xorloop, its iterations scaled here to about 300 ms; each round runs it twice,
 * alone and with pbench attached (started right after it, counting task-clock,
 * context-switches, cpu-migrations and page-faults until it ends), in an order that
 * alternates. For each run: the target's wall time from its spawn to its reaping and its CPU
 * time (user + system, from wait4), and pbench's own CPU time. Each round gives the ratio attached / alone of both; the
 * median ratio of the rounds is printed with their range, and the same for the CPU time.
 * pbench itself runs beside the target: on a machine of one CPU it shares that CPU, which the
 * wall ratio then shows (said). The machine may be shared: only the ratios of one round
 * compare, and the range says how much the rounds disagreed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define ROUNDS 10
#define MAX_ROUNDS 100
#define TARGET_MS 300.0

static char pbench_path[4096], xorloop_path[4096], iters[32];

struct one {
	double wall_ns, cpu_ns, pbench_cpu_ns;
	int pbench_status;
};

static double tv_ns(struct timeval tv)
{
	return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

/* Spawn argv with stdout and stderr to /dev/null; the pid, or -1. */
static pid_t spawn_quiet(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err;

	if (posix_spawn_file_actions_init(&fa))
		return -1;
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return err ? -1 : pid;
}

/* The target once, alone (attach 0) or with pbench attached; 0 or -1. */
static int run_target(int attach, struct one *o)
{
	char *target[] = { xorloop_path, iters, NULL };
	char pidbuf[32];
	char *pb[] = { pbench_path, "stat", "-e",
		       "task-clock,context-switches,cpu-migrations,page-faults", "-p", pidbuf,
		       NULL };
	struct rusage ru;
	double t0 = bench_now_ns();
	pid_t t = spawn_quiet(target), p = -1;
	int status;

	if (t < 0)
		return -1;
	if (attach) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)t);
		p = spawn_quiet(pb);
	}
	while (wait4(t, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	o->wall_ns = bench_now_ns() - t0;
	o->cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	o->pbench_status = 0;
	o->pbench_cpu_ns = 0;
	if (p > 0) {
		int ps;

		while (wait4(p, &ps, 0, &ru) < 0)
			if (errno != EINTR)
				return -1;
		o->pbench_status = WIFEXITED(ps) ? WEXITSTATUS(ps) : 128 + WTERMSIG(ps);
		o->pbench_cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	}
	return WIFEXITED(status) ? 0 : -1;
}

/* xorloop's iterations for about TARGET_MS, from a run of 100 million. */
static int calibrate(void)
{
	struct one o;

	snprintf(iters, sizeof(iters), "%d", 100000000);
	if (run_target(0, &o) || !(o.wall_ns > 0))
		return -1;
	snprintf(iters, sizeof(iters), "%.0f", 1e8 * TARGET_MS * 1e6 / o.wall_ns);
	return 0;
}

static void print_ratio(const char *what, double *r, int n)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int i = 0; i < n; i++)
		lo = fmin(lo, r[i]), hi = fmax(hi, r[i]);
	printf("  %-28s %.3fx [%.3f, %.3f]\n", what, bench_median(r, n), lo, hi);
}

int main(int argc, char **argv)
{
	double wall[2][MAX_ROUNDS], cpu[2][MAX_ROUNDS], rw[MAX_ROUNDS], rc[MAX_ROUNDS],
	       pcpu[MAX_ROUNDS];
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS, failed = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench_attach [ROUNDS 1..%d]\n", MAX_ROUNDS);
		return 2;
	}
	if (bench_sibling(pbench_path, sizeof(pbench_path), "../pbench") ||
	    bench_sibling(xorloop_path, sizeof(xorloop_path), "xorloop")) {
		fprintf(stderr, "bench_attach: build/pbench or build/bench/xorloop is not built: "
			"run make bench\n");
		return 1;
	}
	if (calibrate()) {
		fprintf(stderr, "bench_attach: cannot run %s\n", xorloop_path);
		return 1;
	}
	printf("bench_attach: xorloop %s (about %.0f ms), alone and with `pbench stat -p` "
	       "attached, %d rounds, the order alternating\n", iters, TARGET_MS, rounds);
	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < 2; k++) {
			int attach = (i + k) % 2;
			struct one o;

			if (run_target(attach, &o)) {
				fprintf(stderr, "bench_attach: round %d: a run failed\n", i + 1);
				return 1;
			}
			failed += attach && o.pbench_status != 0;
			wall[attach][i] = o.wall_ns;
			cpu[attach][i] = o.cpu_ns;
			if (attach)
				pcpu[i] = o.pbench_cpu_ns;
		}
		rw[i] = wall[1][i] / wall[0][i];
		rc[i] = cpu[1][i] / cpu[0][i];
		printf("  round %2d: alone %.1f ms (CPU %.1f ms), attached %.1f ms (CPU %.1f ms; "
		       "pbench's %.1f ms): %.3fx, CPU %.3fx\n", i + 1, wall[0][i] / 1e6,
		       cpu[0][i] / 1e6, wall[1][i] / 1e6, cpu[1][i] / 1e6, pcpu[i] / 1e6, rw[i],
		       rc[i]);
	}
	printf("\nthe target attached over alone, median [range] of the rounds:\n");
	print_ratio("wall time", rw, rounds);
	print_ratio("CPU time (user + system)", rc, rounds);
	printf("  medians: alone %.1f ms, attached %.1f ms; pbench's own CPU time %.1f ms (on "
	       "another CPU where one is free; on a busy machine it competes with the target)\n",
	       bench_median(wall[0], rounds) / 1e6, bench_median(wall[1], rounds) / 1e6,
	       bench_median(pcpu, rounds) / 1e6);
	if (failed)
		printf("  pbench stat -p exited non-zero in %d of %d attached runs\n", failed,
		       rounds);
	if (ncpu < 2)
		printf("  one CPU online: pbench shares it with the target, and the wall ratio "
		       "counts pbench's own start\n");
	return 0;
}
