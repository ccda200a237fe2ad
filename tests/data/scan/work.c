/* SPDX-License-Identifier: MIT */
/*
 * A program whose work is known, for the scan tests (tests/cli/t_scan.sh, issue 38):
 *   work KIND N
 * does a fixed start-up (STARTUP units), then the work of KIND on N:
 *   const  nothing more          (O(1))
 *   lin    N units               (O(n))
 *   nlogn  sorts N numbers       (O(n log n): a heap sort; from about 256000 numbers (1 MB)
 *                                 its cache misses grow faster than log n on this test's
 *                                 VM, and a fit says n^1.1: kmod-free-docs/scans.md)
 *   quad   N*N/64 units          (O(n^2))
 *   drift  as lin, but the whole run (start-up too) twice as slow once WORK_DRIFT_S seconds
 *          have passed since the time in the file $WORK_DRIFT_FILE (written by the first
 *          run): a machine that slows down half-way through a scan
 *   walk   N bytes walked: a random cycle through its 64-byte lines (one dependent load a
 *          line), WALK_PASSES times round, so each byte costs the same while the buffer
 *          stays in one cache and more once it leaves it (--scan-bytes' breaks)
 *   noisy  0 to N units, a number drawn afresh each run (from the clock and the PID): a
 *          point whose runs spread by design, for the stop rules' tests (N 0: the steady
 *          start-up alone)
 *   unit   prints the ns of one unit, the best of 15 timings of N units after N more (the
 *          reference of b)
 * A unit is a few dependent multiply-adds the compiler cannot drop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STARTUP 200000
#define UNIT_OPS 16

static volatile uint64_t sink;

static void units(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		for (int k = 0; k < UNIT_OPS; k++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

static void sift(uint32_t *a, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		uint32_t t = a[root];
		a[root] = a[child];
		a[child] = t;
	}
}

static void heapsort_n(size_t n)
{
	uint32_t *a = malloc(n * sizeof(*a) + 1), x = 12345;

	if (!a)
		exit(1);
	for (size_t i = 0; i < n; i++)
		a[i] = x = x * 1103515245u + 12345u;
	for (size_t i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (size_t end = n; end-- > 1;) {
		uint32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift(a, 0, end);
	}
	sink = a[n / 2];
	free(a);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int drifted(void)
{
	const char *path = getenv("WORK_DRIFT_FILE"), *after = getenv("WORK_DRIFT_S");
	double t0 = 0;
	FILE *f;

	if (!path || !after)
		return 0;
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%lf", &t0) != 1)
			t0 = 0;
		fclose(f);
	}
	if (!(t0 > 0) && (f = fopen(path, "w"))) {
		fprintf(f, "%.6f\n", now_s());
		fclose(f);
		return 0;
	}
	return now_s() - t0 > atof(after);
}

#define WALK_PASSES 16

/* N bytes' 64-byte lines in one random cycle (Sattolo's shuffle), walked WALK_PASSES times. */
static int walk(uint64_t bytes)
{
	size_t lines = bytes / 64 < 2 ? 2 : bytes / 64, *next, *order, at = 0;
	uint64_t seed = 88172645463325252ULL;

	if (!(next = calloc(lines, 64)) || !(order = malloc(lines * sizeof(*order))))
		return 2;
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j, t;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		j = seed % i;
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)	/* line order[i] points to order[i + 1] */
		next[order[i] * 8] = order[(i + 1) % lines] * 8;
	free(order);
	for (uint64_t s = 0; s < (uint64_t)lines * WALK_PASSES; s++)
		at = next[at];
	sink = at;
	free(next);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: work const|lin|nlogn|quad|drift|walk|noisy|unit N\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	if (!strcmp(argv[1], "unit")) {	/* the best of 15 timings after a warm-up */
		double best = 1e300;

		units(n);
		for (int i = 0; i < 15; i++) {
			double t = now_s();

			units(n);
			t = (now_s() - t) * 1e9 / n;
			best = t < best ? t : best;
		}
		printf("%.6g\n", best);
		return 0;
	}
	if (!strcmp(argv[1], "drift")) {	/* the whole run twice as slow, start-up too */
		int slow = drifted();

		units(slow ? 2 * STARTUP : STARTUP);
		units(slow ? 2 * n : n);
		return 0;
	}
	units(STARTUP);
	if (!strcmp(argv[1], "noisy")) {
		struct timespec ts;
		uint64_t r;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((uint64_t)ts.tv_nsec * 2654435761ULL) ^ ((uint64_t)getpid() << 20);
		r ^= r >> 17, r *= 0x9E3779B97F4A7C15ULL, r ^= r >> 29;
		units(n ? r % (n + 1) : 0);
	} else if (!strcmp(argv[1], "lin"))
		units(n);
	else if (!strcmp(argv[1], "nlogn"))
		heapsort_n(n);
	else if (!strcmp(argv[1], "walk"))
		return walk(n);
	else if (!strcmp(argv[1], "quad"))
		units(n * n / 64);
	else if (strcmp(argv[1], "const"))
		return 2;
	return 0;
}
