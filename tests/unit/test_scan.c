/* SPDX-License-Identifier: MIT */
/*
 * The library's parameter scan (pbench/scan.h, issue 38) through the public API: a function
 * whose cost is known (a loop of n iterations after nothing else) scanned over n gives the
 * linear model, with every point measured, named and summarized; the parameters' and points'
 * getters, the errors of a scan used out of order, and each writer's output.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static volatile unsigned long sink;

/* n iterations of a dependent add: a cost linear in n, nothing else. */
static int loop(void *arg, double value)
{
	unsigned long acc = sink, n = (unsigned long)value;

	(void)arg;
	for (unsigned long i = 0; i < n; i++)
		acc = acc * 3 + i;
	sink = acc;
	return 0;
}

static struct pbench_scan *scan_in(int mode, const double *v, size_t n, long rounds)
{
	struct pbench_contest_opts co = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_scan_opts so = PBENCH_SCAN_OPTS_INIT;
	struct pbench_scan *s;

	co.mode = mode;
	co.events = "task-clock";
	co.min_rounds = co.max_rounds = rounds;
	co.max_time_s = 30;
	so.contest = &co;
	so.fn = loop;
	ASSERT_OK(pbench_scan_new(&s, &so));
	cr_assert_eq(pbench_scan_add_param(s, "n", v, n), 0);
	return s;
}

static struct pbench_scan *loop_scan(const double *v, size_t n, long rounds)
{
	return scan_in(PBENCH_RUNS_UNPREPARED, v, n, rounds);
}

/* 2^14 .. 2^22 iterations, 9 points, 15 rounds: O(n), its b an interval above 0, every point
 * measured. Prepared (pinned, its priority up): unprepared on a machine whose other work shares
 * the CPUs, a run longer than a time slice shares it and one shorter does not, so the wall
 * times truly grow faster than n (make test's other lane made it n log n, 139 times likelier,
 * in 5 tries of 5). A busy machine can still bend one try (a run left out): up to 5 tries, and
 * make test runs this file in its quiet part, with nothing of its own beside it (tests/run.sh). */
Test(scan, a_loop_of_n_iterations_is_linear)
{
	double v[9];
	struct pbench_fit f = { .size = sizeof(f) };
	size_t fewest = 0;
	int tries;

	for (int i = 0; i < 9; i++)
		v[i] = 16384.0 * (1 << i);
	for (tries = 1; tries <= 5; tries++) {
		struct pbench_scan *s = scan_in(PBENCH_RUNS_PREPARED, v, 9, 15);

		ASSERT_OK(pbench_scan_run(s));
		cr_assert_eq(pbench_scan_points(s), 9);
		fewest = 15;
		for (int i = 0; i < 9; i++) {
			struct pbench_summary m = { .size = sizeof(m) };

			fewest = pbench_scan_summary(s, 0, i, &m) ? 0 : m.n < fewest ? m.n : fewest;
		}
		f.model = PBENCH_FIT_MODEL_NONE;
		if (pbench_scan_fit(s, 0, &f))
			f.model = PBENCH_FIT_MODEL_NONE;
		pbench_scan_free(s);
		if (f.model == PBENCH_FIT_MODEL_N && !f.inconclusive && fewest >= 10)
			break;
	}
	cr_assert_geq(fewest, 10, "a point with %zu runs of 15", fewest);
	cr_assert_eq(f.model, PBENCH_FIT_MODEL_N, "found O(%s) (runner-up O(%s), ratio %g)",
		     pbench_fit_model_name(f.model), pbench_fit_model_name(f.runner_up),
		     f.evidence_ratio);
	cr_assert(!f.inconclusive);
	cr_assert(f.b_lo > 0 && f.b_lo <= f.b && f.b <= f.b_hi, "b %g (%g-%g)", f.b, f.b_lo,
		  f.b_hi);
	cr_assert_eq(f.n, 9);
	TEST_RETRIED("scan.a_loop_of_n_iterations_is_linear", tries);
}

/* The getters, the fit in words and every writer of a short scan of one parameter. */
Test(scan, getters_and_writers)
{
	const double v[] = { 1000, 2000, 4000, 8000 };
	struct pbench_scan_point p = { .size = sizeof(p) };
	struct pbench_scan *s = loop_scan(v, 4, 3);
	char words[1024], *buf;
	size_t len;
	FILE *f;

	cr_assert_eq(pbench_scan_write(s, PBENCH_REPORT_FORMAT_TEXT, stdout), -ENODATA);
	cr_assert_eq(pbench_scan_point(s, 0, 0, &p), -ENODATA);
	cr_assert_str_eq(pbench_scan_param_name(s, 0), "n");
	cr_assert_null(pbench_scan_param_name(s, 1));
	cr_assert_eq(pbench_scan_value(s, 2, 0), 4000);
	cr_assert(isnan(pbench_scan_value(s, 4, 0)));
	ASSERT_OK(pbench_scan_run(s));
	ASSERT_OK(pbench_scan_point(s, 0, 3, &p));
	cr_assert_str_eq(p.name, "n=8000");
	cr_assert_eq(p.measured, 1);
	cr_assert(isnan(p.ratio), "the first side has no ratio");
	cr_assert_eq(pbench_scan_point(s, 1, 0, &p), -EINVAL);
	for (int i = 0; i < 4; i++)	/* no stop of its own: each ran with the others */
		cr_assert_eq(pbench_contest_entrant_stop(pbench_scan_contest(s), i),
			     PBENCH_CONTEST_ENTRANT_STOP_ROUNDS);
	cr_assert_eq(pbench_contest_entrant_stop(pbench_scan_contest(s), 4), -EINVAL);
	cr_assert_gt(pbench_scan_fit_text(s, 0, words, sizeof(words)), 0);
	cr_assert(strstr(words, "n"), "%s", words);
	for (int fmt = PBENCH_REPORT_FORMAT_TEXT; fmt <= PBENCH_REPORT_FORMAT_SVG; fmt++) {
		cr_assert(f = open_memstream(&buf, &len));
		ASSERT_OK(pbench_scan_write(s, fmt, f));
		fclose(f);
		cr_assert_gt(len, 20, "format %d: %zu bytes", fmt, len);
		if (fmt == PBENCH_REPORT_FORMAT_JSON)
			cr_assert(strstr(buf, "\"document\": \"scan\"") && strstr(buf, "\"host\": {") &&
				  strstr(buf, "\"fit\": {"), "%s", buf);
		if (fmt == PBENCH_REPORT_FORMAT_SVG)
			cr_assert(strstr(buf, "<svg") && strstr(buf, "time against n"), "%s", buf);
		if (fmt == PBENCH_REPORT_FORMAT_CSV)
			cr_assert(!strncmp(buf, "n,mean_ns,", 10), "%s", buf);
		free(buf);
	}
	cr_assert_eq(pbench_scan_write(s, 99, stdout), -EINVAL);
	pbench_scan_free(s);
}

/* Two parameters: the points are their product, the last varying fastest; no fit, no SVG. A
 * parameter twice, a NaN, a point out of order and too many points are refused. */
Test(scan, two_parameters_and_errors)
{
	const double a[] = { 1000, 2000 }, b[] = { 1, 2, 3 }, bad[] = { NAN };
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_scan_opts so = PBENCH_SCAN_OPTS_INIT;
	struct pbench_fit f = { .size = sizeof(f) };
	struct pbench_scan *s = loop_scan(a, 2, 2), *c;
	double many[200];

	cr_assert_eq(pbench_scan_add_param(s, "n", b, 3), -EINVAL, "scanned twice");
	cr_assert_eq(pbench_scan_add_param(s, "m", bad, 1), -EINVAL, "a NaN");
	cr_assert_eq(pbench_scan_add_param(s, "m", b, 3), 1);
	cr_assert_eq(pbench_scan_points(s), 6);
	cr_assert_eq(pbench_scan_value(s, 4, 0), 2000);
	cr_assert_eq(pbench_scan_value(s, 4, 1), 2);
	e.workload = PBENCH_WORKLOAD_XOR;
	cr_assert_eq(pbench_scan_add(s, 0, 0, &e), -EINVAL, "a scan of fn adds its own points");
	ASSERT_OK(pbench_scan_run(s));
	cr_assert_eq(pbench_scan_fit(s, 0, &f), -ENODATA);
	cr_assert_eq(pbench_scan_write(s, PBENCH_REPORT_FORMAT_SVG, stdout), -EINVAL);
	pbench_scan_free(s);

	ASSERT_OK(pbench_scan_new(&c, &so));
	for (int i = 0; i < 200; i++)
		many[i] = i + 1;
	cr_assert_eq(pbench_scan_add_param(c, "x", many, 200), 0);
	cr_assert_eq(pbench_scan_add_param(c, "y", b, 2), -E2BIG);
	cr_assert_eq(pbench_scan_add(c, 1, 0, &e), -EINVAL, "point 1 before point 0");
	ASSERT_OK(pbench_scan_add(c, 0, 0, &e));
	cr_assert_eq(pbench_scan_run(c), -EINVAL, "199 points not added");
	pbench_scan_free(c);
}

/* value bytes allocated and touched once a page: about value/4096 page faults a run (freed
 * after, so each run faults them again). */
static int touch(void *arg, double value)
{
	size_t n = (size_t)value;
	volatile char *p = malloc(n);

	(void)arg;
	if (!p)
		return 1;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)i;
	free((void *)p);
	return 0;
}

/* A recorded machine's caches at dir (PBENCH_SYSFS_ROOT): L1d 64K, L1i 64K, L2 1M. */
static void caches_tree(const char *dir)
{
	const char *rows[][3] = { { "1", "Data", "64K" }, { "1", "Instruction", "64K" },
				  { "2", "Unified", "1024K" } };
	char path[512];
	FILE *f;

	for (int x = 0; x < 3; x++) {
		const char *names[] = { "level", "type", "size" };

		snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/cpu0/cache/index%d", dir,
			 x);
		cr_assert_eq(system(path), 0);
		for (int k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cache/index%d/%s",
				 dir, x, names[k]);
			cr_assert(f = fopen(path, "w"));
			fprintf(f, "%s\n", rows[x][k]);
			fclose(f);
		}
	}
}

/* The figure: the contest's first event (page-faults) at every point, in the JSON and the CSV,
 * growing with the bytes touched (a figure that is the time, or the same at every point,
 * fails); the parameter in bytes (opts.bytes_param): the recorded machine's caches placed
 * among the points (L1d 64 KiB between 32768 and 131072, L2 1 MiB between 524288 and 2097152),
 * the SVG with two panels and the caches' lines. */
Test(scan, figure_and_caches)
{
	const double v[] = { 32768, 131072, 524288, 2097152 };
	struct pbench_contest_opts co = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_scan_opts so = PBENCH_SCAN_OPTS_INIT;
	char dir[] = "/tmp/pbench-scan-sysXXXXXX", *buf;
	struct pbench_scan *s;
	size_t len;
	FILE *f;

	cr_assert(mkdtemp(dir));
	caches_tree(dir);
	setenv("PBENCH_SYSFS_ROOT", dir, 1);
	co.mode = PBENCH_RUNS_UNPREPARED;
	co.events = "page-faults";
	co.min_rounds = co.max_rounds = 3;
	co.max_time_s = 30;
	so.contest = &co;
	so.fn = touch;
	so.bytes_param = "bytes";
	ASSERT_OK(pbench_scan_new(&s, &so));
	cr_assert_eq(pbench_scan_add_param(s, "bytes", v, 4), 0);
	ASSERT_OK(pbench_scan_run(s));
	unsetenv("PBENCH_SYSFS_ROOT");

	cr_assert(f = open_memstream(&buf, &len));
	ASSERT_OK(pbench_scan_write(s, PBENCH_REPORT_FORMAT_CSV, f));
	fclose(f);
	cr_assert(!strncmp(buf, "bytes,mean_ns,median_ns,sem_ns,ci_lo_ns,ci_hi_ns,runs,"
			   "page-faults_mean,page-faults_sem\n", 86), "%s", buf);
	{	/* the last point's faults over the first's: 2 MiB against 32 KiB touched */
		const char *l1 = strchr(buf, '\n') + 1, *l4 = l1;
		double f1, f4;

		for (int k = 0; k < 3; k++)
			l4 = strchr(l4, '\n') + 1;
		f1 = atof(strchr(strchr(strchr(strchr(strchr(strchr(strchr(l1, ',') + 1, ',') + 1,
			',') + 1, ',') + 1, ',') + 1, ',') + 1, ',') + 1);
		f4 = atof(strchr(strchr(strchr(strchr(strchr(strchr(strchr(l4, ',') + 1, ',') + 1,
			',') + 1, ',') + 1, ',') + 1, ',') + 1, ',') + 1);
		cr_assert(f4 - f1 > 0.5 * (2097152 - 32768) / 4096.0, "faults %g at 32 KiB, %g at "
			  "2 MiB:\n%s", f1, f4, buf);
	}
	free(buf);

	cr_assert(f = open_memstream(&buf, &len));
	ASSERT_OK(pbench_scan_write(s, PBENCH_REPORT_FORMAT_TEXT, f));
	fclose(f);
	cr_assert(strstr(buf, "page-faults a run (interval)"), "%s", buf);
	cr_assert(strstr(buf, "L1d 64 KiB: the working set leaves it between bytes=32768 and "
			 "bytes=131072"), "%s", buf);
	cr_assert(strstr(buf, "L2 (LLC) 1 MiB: the working set leaves it between bytes=524288 and "
			 "bytes=2097152"), "%s", buf);
	cr_assert(!strstr(buf, "L1i") && !strstr(buf, "64 KiB: the working set leaves it between "
			  "bytes=131072"), "the instruction cache is not a working set's: %s", buf);
	free(buf);

	cr_assert(f = open_memstream(&buf, &len));
	ASSERT_OK(pbench_scan_write(s, PBENCH_REPORT_FORMAT_JSON, f));
	fclose(f);
	cr_assert(strstr(buf, "\"figure\": \"page-faults\"") && strstr(buf, "\"figure_mean\": ") &&
		  strstr(buf, "\"caches\": [") && strstr(buf, "\"name\": \"L2\", \"level\": 2, "
		  "\"llc\": true, \"bytes\": 1048576, \"below\": 524288, \"above\": 2097152"), "%s",
		  buf);
	free(buf);

	cr_assert(f = open_memstream(&buf, &len));
	ASSERT_OK(pbench_scan_write(s, PBENCH_REPORT_FORMAT_SVG, f));
	fclose(f);
	cr_assert(strstr(buf, "height=\"880\"") && strstr(buf, "<g class=\"figure\"") &&
		  strstr(buf, "page-faults against bytes") && strstr(buf, ">L1d 64 KiB</text>") &&
		  strstr(buf, ">L2 (LLC) 1 MiB</text>"), "%s", buf);
	free(buf);
	pbench_scan_free(s);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		cr_assert_eq(system(cmd), 0);
	}
}
