/* SPDX-License-Identifier: MIT */
/*
 * bench_harness [ROUNDS]: what one more run costs under `pbench stat` against `hyperfine -N`
 * on the same command, side by side in one run (issue 37, item 8): `true` and a command of
 * about 10 ms (build/bench/xorloop with its iterations scaled to it here), pbench unprepared
 * and prepared (its default: the attribution on, every figure it reports measured).
 *
 * Each tool runs the command N_SMALL and N_BIG times in one invocation, timed whole by this
 * program (fork to reaping); the cost of one more run is (wall(big) - wall(small)) /
 * (big - small), fixed costs out (pbench's check run, the prepared warm-up, which pbench
 * prints and this program takes out of each wall as bench_stat does; hyperfine's start). The
 * tools take turns within a round, in an order that rotates; each round gives one ratio per
 * pbench mode, pbench's cost over hyperfine's in that round, and the median ratio of the
 * rounds is printed with their range. The machine may be shared: only ratios of one round
 * compare, and the range says how much the rounds disagreed. Prepared mode's priority choice
 * is kept in a directory of this program's (XDG_CACHE_HOME), probed once before the rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define ROUNDS 5
#define MAX_ROUNDS 50
#define TARGET_MS 10.0		/* the longer command, about */

enum { HF, PB_UNPREP, PB_PREP, NR_TOOLS };
static const char *const tool_name[NR_TOOLS] = { "hyperfine -N", "pbench stat, unprepared",
						 "pbench stat, prepared" };

struct cmd {
	const char *name;
	char *argv[3];
	int small, big;
};

static char pbench_path[4096], xorloop_path[4096], iters[32], tmpdir[64];

/* The warm-up a prepared pbench printed ("  warmup    done   379 ms ..."), ns; 0 without. */
static double warmup_ns(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	double ms = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " warmup done %lf ms", &ms) == 1)
			break;
	if (f)
		fclose(f);
	return ms * 1e6;
}

/* One invocation of tool for n runs of c: its wall time less the warm-up it reported. */
static int invoke(int tool, const struct cmd *c, int n, double *ns)
{
	char r[16], line[4200], out[96];
	char *hf[] = { "hyperfine", "-N", "--runs", r, "--style", "none", line, NULL };
	char *pb[16] = { pbench_path, "stat", "--mode", tool == PB_PREP ? "prepared" : "unprepared",
			 "-r", r, "-q", "--" };
	int k = 8;

	snprintf(r, sizeof(r), "%d", n);
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	if (tool == HF) {
		snprintf(line, sizeof(line), "%s%s%s", c->argv[0], c->argv[1] ? " " : "",
			 c->argv[1] ? c->argv[1] : "");
		return (bench_run_tool(hf, NULL, NULL, ns) ? -1 : 0);
	}
	for (int i = 0; c->argv[i]; i++)
		pb[k++] = c->argv[i];
	pb[k] = NULL;
	if (bench_run_tool(pb, out, NULL, ns))
		return -1;
	*ns -= warmup_ns(out);
	return 0;
}

/* The fastest of 5 runs of xorloop with n iterations, by posix_spawn, ns (the fastest: a
 * busy machine only adds time). */
static double xorloop_ns(unsigned long long n)
{
	char arg[32], *argv[] = { xorloop_path, arg, NULL };
	double v[5];

	snprintf(arg, sizeof(arg), "%llu", n);
	for (int i = 0; i < 5; i++) {
		double t0 = bench_now_ns();
		int status;
		pid_t pid;

		if (posix_spawn(&pid, xorloop_path, NULL, NULL, argv, environ) ||
		    waitpid(pid, &status, 0) != pid)
			return NAN;
		v[i] = bench_now_ns() - t0;
	}
	return fmin(fmin(fmin(v[0], v[1]), fmin(v[2], v[3])), v[4]);
}

static void busy_cpus(double *busy, unsigned long long *at)
{
	unsigned long long v[8] = { 0 }, total = 0;
	FILE *f = fopen("/proc/stat", "r");

	if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			&v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
		for (int i = 0; i < 8; i++)
			total += v[i];
	if (f)
		fclose(f);
	if (at[0] && total > at[0])
		*busy = (double)((total - v[3] - v[4]) - at[1]) / (double)(total - at[0]) *
			(double)sysconf(_SC_NPROCESSORS_ONLN);
	at[0] = total;
	at[1] = total - v[3] - v[4];
}

int main(int argc, char **argv)
{
	char *hf_v[] = { "hyperfine", "--version", NULL }, *prime[16];
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
	struct cmd cmds[2] = { { "true", { "true", NULL, NULL }, 50, 550 },
			       { "xorloop", { xorloop_path, iters, NULL }, 20, 120 } };
	double per[2][NR_TOOLS][MAX_ROUNDS], ratio[2][NR_TOOLS][MAX_ROUNDS], t0 = bench_now_ns(), x, busy = NAN;
	unsigned long long at[2] = { 0 };
	FILE *f;
	char model[256] = "?";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = ROUNDS;
	printf("bench_harness: pbench stat's cost per run against hyperfine -N's, side by side\n");
	if (bench_sibling(pbench_path, sizeof(pbench_path), "../pbench") ||
	    bench_sibling(xorloop_path, sizeof(xorloop_path), "xorloop")) {
		printf("bench_harness: not measured: no pbench in the parent directory or no xorloop "
		       "beside this program (make bench builds both)\n");
		return 0;
	}
	if (bench_run_tool(hf_v, NULL, NULL, &x)) {
		printf("bench_harness: not measured: hyperfine is not installed (run: sudo apt-get "
		       "install -y hyperfine)\n");
		return 0;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bench_harness.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("bench_harness: not measured: mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	setenv("XDG_CACHE_HOME", tmpdir, 1);
	/* xorloop scaled to TARGET_MS from a run of 20M iterations (~5 ms on the dev VM). */
	x = xorloop_ns(20000000ULL);
	snprintf(iters, sizeof(iters), "%llu", isfinite(x) && x > 0 ?
		 (unsigned long long)(20e6 * TARGET_MS * 1e6 / x) : 37000000ULL);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(model, sizeof(model), f) && strncmp(model, "model name", 10))
		;
	if (f)
		fclose(f);
	model[strcspn(model, "\n")] = 0;
	printf("machine: %ld CPUs, %s\n", sysconf(_SC_NPROCESSORS_ONLN),
	       strchr(model, ':') ? strchr(model, ':') + 2 : model);
	printf("commands: true, N = %d and %d; %s %s (%.1f ms by posix_spawn now), N = %d and %d; "
	       "%d rounds\n", cmds[0].small, cmds[0].big, xorloop_path, iters,
	       xorloop_ns(strtoull(iters, NULL, 10)) / 1e6, cmds[1].small, cmds[1].big, rounds);
	/* The priority probe, once, outside the rounds (a user's first run of the boot). */
	memcpy(prime, (char *[]){ pbench_path, "stat", "-r", "1", "-q", "--", "true", NULL },
	       8 * sizeof(char *));
	bench_run_tool(prime, NULL, NULL, &x);
	busy_cpus(&busy, at);
	for (int c = 0; c < 2; c++) {
		const struct cmd *cm = &cmds[c];

		for (int r = 0; r < rounds; r++) {
			for (int k = 0; k < NR_TOOLS; k++) {
				int t = (k + r) % NR_TOOLS;
				double s, b;

				if (invoke(t, cm, cm->small, &s) || invoke(t, cm, cm->big, &b)) {
					printf("bench_harness: %s failed on %s\n", tool_name[t],
					       cm->name);
					return 1;
				}
				per[c][t][r] = (b - s) / (cm->big - cm->small);
			}
			for (int t = 0; t < NR_TOOLS; t++)
				ratio[c][t][r] = per[c][t][r] / per[c][HF][r];
			printf("  %-8s round %d: per run hyperfine %.1f us, unprepared %.1f us "
			       "(%.3fx), prepared %.1f us (%.3fx)\n", cm->name, r + 1,
			       per[c][HF][r] / 1e3, per[c][PB_UNPREP][r] / 1e3,
			       ratio[c][PB_UNPREP][r], per[c][PB_PREP][r] / 1e3,
			       ratio[c][PB_PREP][r]);
		}
	}
	busy_cpus(&busy, at);
	printf("\n  %-8s %-24s %12s  %s\n", "command", "tool", "per run", "ratio to hyperfine -N "
	       "in the same round: median [range] of the rounds");
	for (int c = 0; c < 2; c++)
		for (int t = 0; t < NR_TOOLS; t++) {
			double m = bench_median(per[c][t], rounds), rm = bench_median(ratio[c][t], rounds);

			printf("  %-8s %-24s %9.1f us", cmds[c].name, tool_name[t], m / 1e3);
			if (t != HF)
				printf("  %.3fx [%.3f, %.3f]", rm, ratio[c][t][0],
				       ratio[c][t][rounds - 1]);
			printf("\n");
		}
	printf("  the CPUs busy meanwhile (/proc/stat, this program and anything else): %.2f of "
	       "%ld\n", busy, sysconf(_SC_NPROCESSORS_ONLN));
	printf("bench_harness took %.1f s\n", (bench_now_ns() - t0) / 1e9);
	snprintf(model, sizeof(model), "%s/out", tmpdir);
	unlink(model);
	snprintf(model, sizeof(model), "%s/pbench/priority", tmpdir);
	unlink(model);
	snprintf(model, sizeof(model), "%s/pbench", tmpdir);
	rmdir(model);
	rmdir(tmpdir);
	return 0;
}
