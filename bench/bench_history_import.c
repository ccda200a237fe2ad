/* SPDX-License-Identifier: MIT */
/*
 * bench_history_import: how the cost of importing a document into the history grows with the
 * document (pbench_history_import(), lib/src/history/history_import.c; issue 34). The store
 * is a new SQLite file in a temporary directory for each import (removed after: the bench
 * made it).
 *
 * Issue 34 found it quadratic: one Google Benchmark benchmark of 5k, 10k and 20k iterations
 * took 0.49, 1.95 and 6.5 s (every entry scanned all the earlier ones), 100k did not end in
 * 670 s; and each record kept its own copy of the document (2,000 benchmarks of a 324 KB
 * file: 649 MB). Three shapes, each at sizes doubling from 5k to 80k (to the argument, when
 * given: 20000 for a build that is still quadratic):
 *  - one benchmark of n iterations (one record of n runs);
 *  - n benchmarks of 2 iterations each (n records sharing one document);
 *  - a CSV of n values (n records, no document).
 * For each: the time of the import (the best of 3), and the exponent fitted to all sizes, the
 * least-squares slope of log(time) against log(n): 1 is linear, 2 quadratic. With it, the
 * store's size per byte of document for the second shape (about 1 once the document is kept
 * once; it was n). Exits 0 when it could measure (the exponent is for a human to read), 1
 * when an import failed. A JSON document over what pbench reads of JSON (16 MiB: 80k
 * benchmarks) is not imported: its shape stops at the size before, said.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"

static const int sizes[] = { 5000, 10000, 20000, 40000, 80000 };
#define MAXSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))
static int NSIZES = MAXSIZES;
#define TRIES 3
#define JSON_CAP (16u << 20)	/* what pbench reads of a JSON text (PB_INPUT_JSON_MAX) */

enum shape { ONE_BENCHMARK, MANY_BENCHMARKS, CSV_LINES, NSHAPES };
static const char *const shape_names[NSHAPES] = {
	"one benchmark, n iterations", "n benchmarks, 2 iterations each", "CSV, n values" };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The document of shape s and size n (malloc'd), its length in *len. */
static char *document(enum shape s, int n, size_t *len)
{
	size_t cap = 256 + (size_t)n * 2 * 200, l = 0;
	char *doc = malloc(cap);

	if (!doc)
		return NULL;
	if (s == CSV_LINES) {
		for (int i = 0; i < n; i++)
			l += (size_t)snprintf(doc + l, cap - l, "c%d,%d\n", i, 1000 + i % 17);
		*len = l;
		return doc;
	}
	l += (size_t)snprintf(doc, cap, "{\"context\": {\"date\": \"2026-05-02T10:11:12Z\"}, "
			      "\"benchmarks\": [");
	for (int i = 0; i < (s == ONE_BENCHMARK ? 1 : n); i++)
		for (int k = 0; k < (s == ONE_BENCHMARK ? n : 2); k++)
			l += (size_t)snprintf(doc + l, cap - l, "%s{\"name\": \"BM_%d\", "
					      "\"run_name\": \"BM_%d\", \"run_type\": \"iteration\","
					      " \"iterations\": 1000, \"real_time\": %d, "
					      "\"cpu_time\": %d, \"time_unit\": \"ns\"}",
					      i || k ? ", " : "", i, i, 100 + (i + k) % 13,
					      99 + k % 7);
	l += (size_t)snprintf(doc + l, cap - l, "]}");
	*len = l;
	return doc;
}

static void remove_store(const char *path)
{
	char p[340];

	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	unlink(path);
}

/* The best time of TRIES imports of doc into a new store each; its size after in *bytes. */
static int import_time(const char *dir, const char *doc, size_t len, int want, double *best,
		       long long *bytes)
{
	static const struct pbench_history_import_opts o = { .size = sizeof(o), .rev = "bench" };
	char path[300];

	snprintf(path, sizeof(path), "%s/h.db", dir);
	*best = INFINITY;
	for (int t = 0; t < TRIES; t++) {
		struct pbench_history *h;
		struct stat st;
		double t0;
		int n;

		remove_store(path);
		if (pbench_history_open(&h, path, NULL))
			return -1;
		t0 = now_s();
		n = pbench_history_import(h, "bench", doc, len, &o);
		t0 = now_s() - t0;
		pbench_history_close(h);
		if (n != want) {
			fprintf(stderr, "bench_history_import: %d records, want %d: %s\n", n, want,
				n < 0 ? pbench_strerror(n) : "");
			remove_store(path);
			return -1;
		}
		*best = t0 < *best ? t0 : *best;
		*bytes = stat(path, &st) ? -1 : (long long)st.st_size;
	}
	remove_store(path);
	return 0;
}

/* The least-squares slope of log(t) against log(n). */
static double exponent(const double *t, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int i = 0; i < n; i++) {
		double x = log(sizes[i]), y = log(t[i]);

		sx += x, sy += y, sxx += x * x, sxy += x * y;
	}
	return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/pbench-bench-import-XXXXXX";
	double t[NSHAPES][MAXSIZES];
	long long bytes[NSHAPES][MAXSIZES];
	size_t lens[NSHAPES][MAXSIZES];
	int rc = 0, done[NSHAPES] = { 0 };

	if (argc > 1) {		/* the largest n: 20000 for a slow (quadratic) build */
		long max = strtol(argv[1], NULL, 10);

		for (NSIZES = 0; NSIZES < MAXSIZES && sizes[NSIZES] <= max; NSIZES++)
			;
		if (NSIZES < 2) {
			fprintf(stderr, "usage: bench_history_import [LARGEST_N >= %d]\n",
				sizes[1]);
			return 2;
		}
	}
	if (!mkdtemp(dir)) {
		perror("bench_history_import: mkdtemp");
		return 1;
	}
	for (int s = 0; s < NSHAPES && !rc; s++)
		for (int i = 0; i < NSIZES && !rc; i++) {
			char *doc = document((enum shape)s, sizes[i], &lens[s][i]);

			if (doc && s != CSV_LINES && lens[s][i] > JSON_CAP) {
				printf("%s, n %d: a document of %.1f MiB, over what pbench reads of "
				       "JSON (%u MiB): not imported, the larger n neither\n",
				       shape_names[s], sizes[i], (double)lens[s][i] / (1 << 20),
				       JSON_CAP >> 20);
				free(doc);
				break;
			}
			rc = !doc ? -1 : import_time(dir, doc, lens[s][i], s == ONE_BENCHMARK ?
						     1 : sizes[i], &t[s][i], &bytes[s][i]);
			done[s] += !rc;
			free(doc);
		}
	rmdir(dir);
	if (rc)
		return 1;
	printf("bench_history_import: pbench_history_import() into a new SQLite store, the best "
	       "of %d\n", TRIES);
	for (int s = 0; s < NSHAPES; s++) {
		printf("%s:\n%8s %12s %10s %12s %12s\n", shape_names[s], "n", "import s",
		       "us per n", "document B", "store B");
		for (int i = 0; i < done[s]; i++)
			printf("%8d %12.4f %10.2f %12zu %12lld\n", sizes[i], t[s][i],
			       t[s][i] / sizes[i] * 1e6, lens[s][i], bytes[s][i]);
		if (done[s] >= 2)
			printf("fitted exponent (log-log slope of time against n): %.2f (1 is "
			       "linear)\n", exponent(t[s], done[s]));
		else
			printf("fitted exponent: n/a (fewer than two sizes imported)\n");
	}
	if (done[MANY_BENCHMARKS]) {
		int k = done[MANY_BENCHMARKS] - 1;

		printf("the largest document of %d benchmarks: the store holds %.2f times its size "
		       "(a copy per record would be %d)\n", sizes[k],
		       (double)bytes[MANY_BENCHMARKS][k] / (double)lens[MANY_BENCHMARKS][k], sizes[k]);
	}
	return 0;
}
