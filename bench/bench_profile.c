/* SPDX-License-Identifier: MIT */
/*
 * bench_profile [ROUNDS] [MILLIONS]: what sampling a timed run costs the run (issue 36), pbench's
 * profile (lib/src/profile/, not exported yet) against `perf record -F 4000` on the same
 * command, side by side in one run. The command is tests/data/profile/shares (frame pointers;
 * MILLIONS of iterations, default 300: about half a second here), which prints the time its
 * own work took (SHARES_REPORT): that span, the run's, is compared, not the tools' start and
 * end around it. Each round runs it plain (the child API, nothing sampled), under pbench's
 * profile with frame-pointer chains and in DWARF mode (8 KiB of stack a sample), and under
 * `perf record -F 4000 -g` and `--call-graph dwarf,8192`, in an order that rotates; a mode's
 * slowdown in a round is its span over the plain run's span of that round, and the median of
 * the rounds is printed with their range. Then what a sample costs in memory: pbench's store
 * (bytes a sample, the figure issue 36 asks for), the bytes copied out of the rings, and
 * perf.data's size a sample for comparison. The machine may be shared: only ratios within a
 * round compare, and the range says how much the rounds disagreed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "pbench.h"
#include "profile/profile.h"

#define ROUNDS 5
#define MAX_ROUNDS 50

enum { PLAIN, PB_FP, PB_DWARF, PERF_FP, PERF_DWARF, NR_MODES };
static const char *const mode_name[NR_MODES] = {
	"plain (child API)", "pbench profile, frame pointers", "pbench profile, DWARF 8 KiB",
	"perf record -F 4000 -g", "perf record -F 4000 --call-graph dwarf,8192",
};

static char shares[4096], millions[32] = "300", perf_data[64], perf_old[64], perf_out[64];
static int have_perf;

/* What a sampled run kept, for the memory figures. */
struct mem {
	double samples, store, raw, perf_bytes, perf_runs, copy_ns, parse_ns;
};
static struct mem mem[NR_MODES];

/* What the command reported of its work: wall and CPU time, ns (-1: nothing read). */
struct span {
	double wall, cpu;
};

static struct span span_of(const char *text)
{
	struct span s = { -1, -1 };

	if (sscanf(text, "%lf %lf", &s.wall, &s.cpu) != 2)
		s.wall = s.cpu = -1;
	return s;
}

static struct span span_in(int out)
{
	char buf[64] = "";
	ssize_t n = pread(out, buf, sizeof(buf) - 1, 0);

	return span_of(n > 0 ? buf : "");
}

/* The command under pbench: plain, or sampled (mode PB_FP, PB_DWARF). */
static struct span run_pbench(int mode)
{
	struct pbench_child_opts co = { .size = sizeof(co), .quiet = PBENCH_CHILD_OUTPUT_NULL };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pb_profile_opts po = { .dwarf = mode == PB_DWARF };
	char *argv[] = { shares, "run", millions, NULL };
	struct pb_profile_stats st;
	struct pb_profile *p = NULL;
	struct pbench_child *ch;
	int out = memfd_create("shares", MFD_CLOEXEC), err;
	struct span span;

	co.stdout_fd = out;
	if (mode == PLAIN) {
		err = pbench_child_start(&ch, argv, &co);
		if (!err)
			err = pbench_child_wait(ch, &res);
		if (!err)
			pbench_child_free(ch);
	} else {
		err = pb_profile_new(&p, &po);
		if (!err)
			err = pb_profile_run(p, argv, &co, 0, &res);
	}
	span = err ? span_of("") : span_in(out);
	if (err)
		fprintf(stderr, "bench_profile: %s: %s\n", mode_name[mode], pbench_strerror(err));
	if (p && !err) {
		pb_profile_stats(p, &st);
		mem[mode].samples += (double)st.samples;
		mem[mode].store += (double)st.store_bytes;
		mem[mode].raw += (double)st.raw_bytes;
		mem[mode].copy_ns += (double)st.copy_ns;
		mem[mode].parse_ns += (double)st.parse_ns;
		if (st.lost)
			printf("  (%s lost %llu records in a run)\n", mode_name[mode],
			       (unsigned long long)st.lost);
	}
	pb_profile_free(p);
	close(out);
	return span;
}

/* The command under perf record (mode PERF_FP, PERF_DWARF). */
static struct span run_perf(int mode)
{
	char *fp[] = { "perf", "record", "-q", "-F", "4000", "-g", "-o", perf_data, "--",
		       shares, "run", millions, NULL };
	char *dw[] = { "perf", "record", "-q", "-F", "4000", "--call-graph", "dwarf,8192", "-o",
		       perf_data, "--", shares, "run", millions, NULL };
	struct stat sb;
	char buf[64] = "";
	FILE *f;
	int rc = bench_run_tool(mode == PERF_FP ? fp : dw, perf_out, NULL, NULL);

	f = rc ? NULL : fopen(perf_out, "r");
	if (f && !fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	if (!stat(perf_data, &sb)) {
		mem[mode].perf_bytes += (double)sb.st_size;
		mem[mode].perf_runs++;
	}
	return span_of(buf);
}

static struct span run_mode(int mode)
{
	return mode == PERF_FP || mode == PERF_DWARF ? run_perf(mode) : run_pbench(mode);
}

/* One figure's row: the median span (ms), the median ratio to the plain run and the range of
 * the rounds' ratios. v[r], ratio[r]: the rounds' (sorted here). */
static void row(const char *name, double *v, double *ratio, int rounds)
{
	double lo = 1e300, hi = -1e300;

	for (int r = 0; r < rounds; r++) {
		lo = ratio[r] < lo ? ratio[r] : lo;
		hi = ratio[r] > hi ? ratio[r] : hi;
	}
	printf("  %-44s %10.1f %11.4fx %9.4fx-%.4fx\n", name, bench_median(v, rounds) / 1e6,
	       bench_median(ratio, rounds), lo, hi);
}

/* wall[m][r], cpu[m][r]: mode m's spans in round r. */
static void report(double wall[NR_MODES][MAX_ROUNDS], double cpu[NR_MODES][MAX_ROUNDS],
		   int rounds)
{
	static double rw[NR_MODES][MAX_ROUNDS], rc[NR_MODES][MAX_ROUNDS];

	for (int m = 0; m < NR_MODES; m++)
		for (int r = 0; r < rounds; r++) {
			rw[m][r] = wall[m][r] / wall[PLAIN][r];
			rc[m][r] = cpu[m][r] / cpu[PLAIN][r];
		}
	for (int k = 0; k < 2; k++) {
		printf("\n%s of the command's work:\n  %-44s %10s %12s %20s\n",
		       k ? "CPU time (its threads')" : "wall time", "mode", "ms", "slowdown",
		       "range of rounds");
		for (int m = 0; m < NR_MODES; m++)
			if (have_perf || m < PERF_FP)
				row(mode_name[m], k ? cpu[m] : wall[m], k ? rc[m] : rw[m], rounds);
	}
	printf("\nmemory a sample (over every round's runs):\n");
	for (int m = PB_FP; m <= PB_DWARF; m++)
		printf("  %-44s %8.1f bytes stored, %8.1f copied out of the rings (%.0f samples "
		       "a run)\n", mode_name[m], mem[m].store / mem[m].samples,
		       mem[m].raw / mem[m].samples, mem[m].samples / rounds);
	for (int m = PERF_FP; have_perf && m <= PERF_DWARF; m++)
		printf("  %-44s %8.1f bytes of perf.data (over pbench's count of samples)\n",
		       mode_name[m], mem[m].perf_bytes / mem[m].perf_runs /
		       (mem[m - 2].samples / rounds));
	printf("\npbench's own work a run (the mean of the rounds):\n");
	for (int m = PB_FP; m <= PB_DWARF; m++)
		printf("  %-44s copying the rings %.2f ms (its thread, beside the command), "
		       "parsing after the run %.2f ms\n", mode_name[m],
		       mem[m].copy_ns / rounds / 1e6, mem[m].parse_ns / rounds / 1e6);
}

static void cleanup(const char *dir)
{
	unlink(perf_data);
	unlink(perf_old);
	unlink(perf_out);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	static double wall[NR_MODES][MAX_ROUNDS], cpu[NR_MODES][MAX_ROUNDS];
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
	char dir[] = "/tmp/bench_profile.XXXXXX";

	if (argc > 2)
		snprintf(millions, sizeof(millions), "%s", argv[2]);
	if (rounds < 1 || rounds > MAX_ROUNDS || !mkdtemp(dir) ||
	    bench_sibling(shares, sizeof(shares), "../tests/data/profile/shares")) {
		fprintf(stderr, "usage: bench_profile [ROUNDS (1-%d)] [MILLIONS]; needs %s built "
			"(make)\n", MAX_ROUNDS, shares);
		return 2;
	}
	snprintf(perf_data, sizeof(perf_data), "%s/perf.data", dir);
	snprintf(perf_old, sizeof(perf_old), "%s/perf.data.old", dir);	/* perf's rotation */
	snprintf(perf_out, sizeof(perf_out), "%s/out", dir);
	setenv("SHARES_REPORT", "1", 1);
	have_perf = system("perf --version >/dev/null 2>&1") == 0;
	printf("bench_profile: %s run %s, %d rounds; perf %s\n", shares, millions, rounds,
	       have_perf ? "found" : "not installed: its rows left out");
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < NR_MODES; k++) {
			int m = (k + r) % NR_MODES;
			struct span sp = { 1, 1 };

			if (have_perf || m < PERF_FP)
				sp = run_mode(m);
			if (sp.wall <= 0 || sp.cpu <= 0) {
				fprintf(stderr, "bench_profile: %s: no span\n", mode_name[m]);
				cleanup(dir);
				return 1;
			}
			wall[m][r] = sp.wall;
			cpu[m][r] = sp.cpu;
		}
	}
	report(wall, cpu, rounds);
	cleanup(dir);
	return 0;
}
