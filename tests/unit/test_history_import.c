/* SPDX-License-Identifier: MIT */
/*
 * The history's importers (pbench_history_import(), history_import.c) through the public API,
 * on documents written here in each tool's documented shape: pbench stat's runs with their
 * noise verdicts and machine, compare's entrants, hyperfine's times in seconds, Google
 * Benchmark's iterations (aggregates not taken as runs, time units scaled), CSV lines with
 * and without a header, ISO 8601 and epoch times; and what each refuses, in one line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

static char dir[256], path[300];
static struct pbench_history *h;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-import-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.db", dir);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
}

static void teardown(void)
{
	char p[320];
	static const char *const sfx[] = { "", "-wal", "-shm" };

	pbench_history_close(h);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		unlink(p);
	}
	rmdir(dir);
}

TestSuite(history_import, .init = setup, .fini = teardown);

/* The points of the series named name (its preferred metric): their count; point i in r. */
static int points_of(const char *name, int i, struct pbench_history_record *r)
{
	int n = pbench_history_series_count(h);

	for (int k = 0; k < n; k++) {
		struct pbench_history_series s = { .size = sizeof(s) };

		cr_assert_eq(pbench_history_series_get(h, k, &s), 0);
		if (strcmp(s.name, name))
			continue;
		int np = pbench_history_points(h, s.id);

		r->size = sizeof(*r);
		if (i < np)
			cr_assert_eq(pbench_history_point_get(h, i, r), 0);
		return np;
	}
	return 0;
}

static int import(const char *name, const char *text, const struct pbench_history_import_opts *o)
{
	return pbench_history_import(h, name, text, strlen(text), o);
}

static const struct pbench_history_import_opts rev_x = { .size = sizeof(rev_x), .rev = "x" };

Test(history_import, pbench_stat)
{
	static const char doc[] =
		"{\"pbench_version\": \"9.9\", \"host\": {\"cpu_model\": \"Z80\", \"kernel\": \"k1\","
		" \"date\": \"2026-01-02T03:04:05Z\"}, \"check\": [{\"id\": \"smt.active\", \"value\": "
		"\"off\"}], \"modes\": [{\"mode\": \"prepared\", \"summary\": {\"mean_ns\": 20, "
		"\"ci_lo_ns\": 10, \"ci_hi_ns\": 30}, \"runs\": [{\"ns\": 10, \"outlier\": false}, "
		"{\"ns\": 30, \"outlier\": true}, {\"ns\": 99, \"timed_out\": true}]}]}";
	struct pbench_history_record r;

	cr_assert_eq(import("s", doc, &rev_x), 1);
	cr_assert_eq(points_of("s", 0, &r), 1);
	cr_assert_str_eq(r.metric, "time_ns");
	cr_assert_eq(r.n_runs, 2, "the run killed at the timeout is not a run");
	cr_assert(r.run_values[0] == 10 && r.run_values[1] == 30);
	cr_assert(r.run_noisy[0] == 0 && r.run_noisy[1] == 1, "the outlier is the noisy run");
	cr_assert(r.value == 20 && r.lo == 10 && r.hi == 30);
	cr_assert_str_eq(r.cpu_model, "Z80");
	cr_assert_str_eq(r.kernel, "k1");
	cr_assert_str_neq(r.smt, "off", "the rest of the fingerprint is this machine's");
	cr_assert_str_eq(r.pbench_version, "9.9");
	cr_assert_eq(r.time_ns, 1767323045LL * 1000000000, "host.date is the time");
	cr_assert_str_eq(r.json, doc, "the document kept byte for byte");
}

Test(history_import, pbench_compare_and_contrast)
{
	cr_assert_eq(import("c", "{\"entrants\": [{\"name\": \"a\", \"summary\": {\"mean_ns\": 2},"
			    " \"times_ns\": [1, 3]}, {\"name\": \"b\", \"times_ns\": [5, 7, 9]}]}",
			    &rev_x), 2);
	struct pbench_history_record r;

	cr_assert_eq(points_of("c/b", 0, &r), 1);
	cr_assert_eq(r.n_runs, 3);
	cr_assert_eq(r.value, 7, "without a summary, the runs' mean");
	cr_assert_eq(r.run_noisy[0], -1, "compare's runs are not judged");
	cr_assert_eq(import("m", "{\"modes\": [{\"mode\": \"unprepared\", \"runs\": [{\"ns\": 1}]},"
			    " {\"mode\": \"prepared\", \"runs\": [{\"ns\": 2}]}]}", &rev_x), 2);
	cr_assert_eq(points_of("m/prepared", 0, &r), 1, "a contrast: a series per mode");
}

Test(history_import, hyperfine)
{
	struct pbench_history_record r;

	cr_assert_eq(import("hf", "{\"results\": [{\"command\": \"sleep 0.1\", \"mean\": 0.1, "
			    "\"times\": [0.1, 0.2], \"exit_codes\": [0, 0]}]}", &rev_x), 1);
	cr_assert_eq(points_of("hf", 0, &r), 1, "one command: the series is NAME");
	cr_assert(fabs(r.run_values[1] - 2e8) < 1e-3, "seconds into ns");
	cr_assert(fabs(r.value - 1e8) < 1e-3);
}

Test(history_import, gbench)
{
	static const char doc[] = "{\"context\": {\"date\": \"2026-05-02T10:11:12+02:00\"}, "
		"\"benchmarks\": [{\"name\": \"B/1\", \"run_name\": \"B/1\", \"run_type\": "
		"\"iteration\", \"real_time\": 2, \"cpu_time\": 1, \"time_unit\": \"us\"}, "
		"{\"name\": \"B/1\", \"run_name\": \"B/1\", \"run_type\": \"iteration\", "
		"\"real_time\": 4, \"cpu_time\": 3, \"time_unit\": \"us\"}, {\"name\": \"B/1_mean\", "
		"\"run_name\": \"B/1\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", "
		"\"real_time\": 3, \"cpu_time\": 2, \"time_unit\": \"us\"}, {\"name\": \"C\", "
		"\"real_time\": 5, \"cpu_time\": 5, \"time_unit\": \"ms\"}]}";
	struct pbench_history_import_opts cpu = rev_x;
	struct pbench_history_record r;

	cr_assert_eq(import("g", doc, &rev_x), 2);
	cr_assert_eq(points_of("g/B/1", 0, &r), 1);
	cr_assert_str_eq(r.metric, "real_time_ns");
	cr_assert_eq(r.n_runs, 2, "the mean aggregate is not a run");
	cr_assert(r.run_values[0] == 2000 && r.run_values[1] == 4000 && r.value == 3000);
	cr_assert_eq(r.time_ns, 1777709472LL * 1000000000, "context.date, its zone applied");
	cr_assert_eq(points_of("g/C", 0, &r), 1);
	cr_assert_eq(r.value, 5e6, "an entry without run_type (older versions): one run, in ms");
	cpu.cpu_time = 1;
	cr_assert_eq(import("gc", doc, &cpu), 2);
	cr_assert_eq(points_of("gc/B/1", 0, &r), 1);
	cr_assert(r.run_values[0] == 1000 && !strcmp(r.metric, "cpu_time_ns"));
}

Test(history_import, csv)
{
	struct pbench_history_record r;

	cr_assert_eq(import("v", "commit,time,value\n# a comment\nc1,1700000000,10\r\n"
			    "c2,2026-01-02T03:04:05Z,11.5\n\nc3,,12\n", NULL), 3);
	cr_assert_eq(points_of("v", 0, &r), 3);
	cr_assert_str_eq(r.rev, "c1", "oldest first: epoch 1700000000 before 2026");
	cr_assert_eq(r.time_ns, 1700000000LL * 1000000000);
	cr_assert_null(r.json, "a CSV line keeps no document");
	cr_assert_eq(points_of("v", 1, &r), 3);
	cr_assert(!strcmp(r.rev, "c2") && r.value == 11.5);
	cr_assert_eq(import("one", "3\n4\n5\n", NULL), 3, "one value a line");
	cr_assert_eq(points_of("one", 2, &r), 3);
	cr_assert_eq(r.value, 5, "in the order of the lines");
	cr_assert_eq(import("two", "a,1\nb,2\n", NULL), 2, "commit,value");
}

Test(history_import, refused)
{
	cr_assert_eq(import("x", "c1,1700000000,10\nc2,1700000001,ten\n", NULL), -EINVAL);
	cr_assert(strstr(pbench_strerror(-EINVAL), "line 2"), "%s", pbench_strerror(-EINVAL));
	cr_assert_eq(import("x", "{\"foo\": 1}", &rev_x), -EINVAL);
	cr_assert(strstr(pbench_strerror(-EINVAL), "none of pbench stat"));
	cr_assert_eq(import("x", "{\"modes\": [", &rev_x), -EINVAL, "truncated JSON");
	cr_assert_eq(import("x", "1,2,3,4\n", NULL), -EINVAL, "four fields");
	cr_assert_eq(import("", "1\n", NULL), -EINVAL, "no name");
	cr_assert_eq(pbench_history_import_file(h, "x", "/nonexistent/f", NULL), -ENOENT);
}
