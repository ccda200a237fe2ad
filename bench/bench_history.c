/* SPDX-License-Identifier: MIT */
/*
 * bench_history: what the history store costs (lib/src/history/, issue 24), and how the cost
 * grows with the store. All numbers are measured in this run, on a store in a temporary
 * directory (removed after: the bench made it).
 *
 * Targets (the issue): appending 10,000 records, and finding the change points of a
 * 10,000-point series, each well under a second.
 *
 * For n = 1k, 2k, 5k, 10k records of one series (5 runs each, a step of +5% every 500
 * points): (a) the time of n appends, each its own transaction (pbench_history_add() as a CI
 * job calls it: WAL, synchronous=NORMAL, so a commit is a write and no fsync), and the time
 * of one append into a store of n; (b) pbench_history_changes() over the n points (read back
 * from the store, then the change points: stats/changepoint.c). The exponent log(t / t_1k) /
 * log(n / 1k) says how the cost grows: 1 is linear. The program reports and exits 0 when it
 * could measure; a miss is for a human to read.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"

static const int sizes[] = { 1000, 2000, 5000, 10000 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))
#define TARGET_S 1.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Append record i of the series (a fixed machine, so the store has one series). */
static int add(struct pbench_history *h, int i)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;
	double level = (i / 500) % 2 ? 105 : 100, runs[5];
	char rev[32];

	snprintf(rev, sizeof(rev), "c%d", i);
	for (int k = 0; k < 5; k++)
		runs[k] = level * (1 + 0.01 * sin(i * 1.3 + k * 2.1));
	r.name = "bench";
	r.metric = "time_ns";
	r.rev = rev;
	r.value = level;
	r.n_runs = 5;
	r.run_values = runs;
	r.time_ns = 1000000000LL * (i + 1);
	r.cpu_model = r.microcode = r.kernel = r.governor = "bench";
	r.smt = r.isolation = r.virt = r.pbench_version = "bench";
	return pbench_history_add(h, &r) > 0 ? 0 : -1;
}

/* One size: into t[0] the appends, t[1] one append more, t[2] the change points. */
static int measure(const char *dir, int n, double t[3], int *changes)
{
	char path[300], rm[320];
	struct pbench_history *h;
	double t0;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/h%d.db", dir, n);
	if (pbench_history_open(&h, path, NULL))
		return -1;
	t0 = now_s();
	for (int i = 0; i < n; i++)
		if (add(h, i))
			goto out;
	t[0] = now_s() - t0;
	t0 = now_s();
	if (add(h, n))
		goto out;
	t[1] = now_s() - t0;
	t0 = now_s();
	*changes = pbench_history_changes(h, 1, NULL, NULL);
	t[2] = now_s() - t0;
	rc = *changes < 0 ? -1 : 0;
out:
	if (rc)
		fprintf(stderr, "bench_history: %s\n", pbench_strerror(-1));
	pbench_history_close(h);
	snprintf(rm, sizeof(rm), "%s-wal", path);
	unlink(rm);
	snprintf(rm, sizeof(rm), "%s-shm", path);
	unlink(rm);
	unlink(path);
	return rc;
}

int main(void)
{
	char dir[] = "/tmp/pbench-bench-history-XXXXXX";
	double t[NSIZES][3];
	int changes[NSIZES];

	if (!mkdtemp(dir)) {
		perror("bench_history: mkdtemp");
		return 1;
	}
	for (int s = 0; s < NSIZES; s++)
		if (measure(dir, sizes[s], t[s], &changes[s])) {
			rmdir(dir);
			return 1;
		}
	rmdir(dir);
	printf("bench_history: the history store (SQLite, WAL), one series, 5 runs a record\n");
	printf("%8s %12s %12s %10s %12s %10s %8s\n", "records", "appends s", "us/append",
	       "exponent", "changes s", "exponent", "changes");
	for (int s = 0; s < NSIZES; s++) {
		double g = log((double)sizes[s] / sizes[0]);

		if (!s) {
			printf("%8d %12.3f %12.1f %10s %12.4f %10s %8d\n", sizes[s], t[s][0],
			       t[s][1] * 1e6, "-", t[s][2], "-", changes[s]);
			continue;
		}
		printf("%8d %12.3f %12.1f %10.2f %12.4f %10.2f %8d\n", sizes[s], t[s][0],
		       t[s][1] * 1e6, log(t[s][0] / t[0][0]) / g, t[s][2],
		       log(t[s][2] / t[0][2]) / g, changes[s]);
	}
	printf("10,000 appends: %.3f s (target %.1f s: %s); change points of 10,000: %.3f s "
	       "(target %.1f s: %s)\n", t[NSIZES - 1][0], TARGET_S,
	       t[NSIZES - 1][0] < TARGET_S ? "met" : "MISSED", t[NSIZES - 1][2], TARGET_S,
	       t[NSIZES - 1][2] < TARGET_S ? "met" : "MISSED");
	return 0;
}
