/* SPDX-License-Identifier: MIT */
/*
 * What the history's importers refuse (issue 34, items 8 and 11), through the public API: the
 * rule pbench analyze reads by (no negative or subnormal time, no duplicate key, a time of
 * the wrong type named by its index, no NUL byte, no hex, inf or nan), dates and times out
 * of range (not timegm's overflow or normalizing, not 0 taken as now), the file read as
 * analyze reads one (the size cap: /dev/zero; a FIFO without a writer given up), and the
 * readers' ends: a REAL past int64 in the store, a time before 1970 in OpenMetrics. Each
 * refusal is -EINVAL with one line saying where and why; nothing is added.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

static char dir[256], path[300];
static struct pbench_history *h;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-input-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.db", dir);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
}

static void teardown(void)
{
	char cmd[300];

	pbench_history_close(h);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(history_input, .init = setup, .fini = teardown);

static const struct pbench_history_import_opts rev_x = { .size = sizeof(rev_x), .rev = "x" };

struct refusal {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	const char *why;	/* in the one line */
};

static int64_t records(void)
{
	int64_t n = 0;

	for (int i = 0, ns = pbench_history_series_count(h); i < ns; i++) {
		struct pbench_history_series s = { .size = sizeof(s) };

		cr_assert_eq(pbench_history_series_get(h, i, &s), 0);
		n += pbench_history_points(h, s.id);
	}
	return n;
}

/* Each text refused under name: -EINVAL, its why in the one line, no record added. */
static void refused(const char *name, const struct refusal *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t before = records();
		int rc = pbench_history_import(h, name, t[i].text, t[i].len ? t[i].len :
					       strlen(t[i].text), &rev_x);
		const char *line = pbench_strerror(rc);

		cr_expect_eq(rc, -EINVAL, "row %zu (%s): %d, not -EINVAL", i, t[i].text, rc);
		cr_expect(strstr(line, t[i].why) && !strchr(line, '\n'), "row %zu (%s): '%s' lacks "
			  "'%s'", i, t[i].text, line, t[i].why);
		cr_expect_eq(records(), before, "row %zu (%s): a record was added", i, t[i].text);
	}
}

#define HF(times) "{\"results\": [{\"command\": \"c\", \"times\": [" times "]}]}"

/* Item 8: what pbench analyze refuses, whatever the format. */
Test(history_input, values_by_analyzes_rule)
{
	static const struct refusal t[] = {
		{ HF("0.1, -0.2"), 0, "hyperfine result 0, time 1 (-2e+08 ns) is negative" },
		{ HF("0.1, 1e-320"), 0, "time 1 (9.99989e-312 ns) is subnormal" },
		{ HF("0.1, \"0.2\""), 0, "hyperfine result 0, time 1 is not a number" },
		{ HF("0.1, null"), 0, "hyperfine result 0, time 1 is not a number" },
		{ HF("0.1, [0.2]"), 0, "hyperfine result 0, time 1 is not a number" },
		{ "{\"results\": [{\"command\": \"c\", \"times\": \"0.1\"}]}", 0,
		  "'times' is not an array" },
		{ "{\"results\": [{\"command\": \"c\", \"mean\": -1}]}", 0,
		  "hyperfine result 0, mean (-1e+09 ns) is negative" },
		{ HF(""), 0, "hyperfine result 0: 'times' is empty" },
		{ "{\"results\": [{\"command\": \"c\", \"mean\": 0.1, \"times\": []}]}", 0,
		  "hyperfine result 0: 'times' is empty" },
		{ "{\"results\": [{\"command\": \"c\"}]}", 0, "has no command, times or mean" },
		{ "{\"results\": []}", 0, "'results' is empty" },
		{ "{\"results\": [{\"command\": \"c\", \"times\": [1]}], \"results\": []}", 0,
		  "duplicate" },
		{ "{\"results\": [{\"command\": \"c\", \"times\": [1], \"times\": [2]}]}", 0,
		  "duplicate" },
		{ "{\"entrants\": [{\"name\": \"a\", \"times_ns\": [5, -1]}]}", 0,
		  "entrant 0, time 1 (-1 ns) is negative" },
		{ "{\"entrants\": [{\"name\": \"a\", \"times_ns\": [5, \"7\"]}]}", 0,
		  "entrant 0, time 1 is not a number" },
		{ "{\"entrants\": [{\"name\": \"a\", \"times_ns\": [5], \"summary\": {\"mean_ns\": "
		  "-5}}]}", 0, "entrant 0, mean_ns (-5 ns) is negative" },
		{ "{\"modes\": [{\"runs\": [{\"ns\": 10}, {\"ns\": -3}]}]}", 0,
		  "mode 0, run 1 (-3 ns) is negative" },
		{ "{\"modes\": [{\"runs\": [{\"ns\": 4e-320}]}]}", 0, "mode 0, run 0 (" },
		{ "{\"modes\": [{\"summary\": {\"mean_ns\": 10, \"ci_lo_ns\": -1}, \"runs\": "
		  "[{\"ns\": 10}]}]}", 0, "mode 0, ci_lo_ns (-1 ns) is negative" },
		{ "{\"modes\": []}", 0, "'modes' is empty" },
		{ "{\"benchmarks\": [{\"name\": \"B\", \"real_time\": -2, \"time_unit\": \"us\"}]}",
		  0, "benchmark entry 0, real_time (-2000 ns) is negative" },
		{ "{\"benchmarks\": []}", 0, "'benchmarks' is empty" },
		{ "1\n2\n3\0\n4\n", 9, "line 3 holds a NUL byte" },
		{ "{\"results\": [{\"command\": \"c\", \"times\": [1]}]}\0junk", 52,
		  "line 1 holds a NUL byte" },
		{ "0x10\n", 0, "line 1: '0x10' is not a number" },
		{ "value\n0x10\n", 0, "line 2: '0x10' is not a number" },
		{ "c1,1700000000,0x1p4\n", 0, "line 1: '0x1p4' is not a number" },
		{ "value\ninf\n", 0, "line 2: 'inf' is not a finite number" },
		{ "value\nnan\n", 0, "line 2: 'nan' is not a finite number" },
		{ "value\n1e999\n", 0, "line 2: '1e999' is not a finite number" },
		{ "value\n1e-310\n", 0, "line 2: value '1e-310' is subnormal" },
	};

	refused("x", t, ARRAY_SIZE(t));
}

/* A CSV continuing a series in ns takes its values as times: not negative. */
Test(history_input, csv_times_of_a_ns_series)
{
	static const struct refusal t[] = {
		{ "commit,value\nc3,-5\n", 0, "line 2: value '-5' is negative: not a time" },
	};

	cr_assert_eq(pbench_history_import(h, "s", HF("0.1"), strlen(HF("0.1")), &rev_x), 1);
	refused("s", t, ARRAY_SIZE(t));
	cr_assert_eq(pbench_history_import(h, "v", "-5\n", 3, &rev_x), 1,
		     "a series of values (no unit) may be negative, as analyze's labelled numbers");
}

#define GB(date) "{\"context\": {\"date\": \"" date "\"}, \"benchmarks\": [{\"name\": \"B\", " \
	"\"real_time\": 1, \"time_unit\": \"ns\"}]}"
#define PS(date) "{\"host\": {\"date\": \"" date "\"}, \"modes\": [{\"runs\": [{\"ns\": 1}]}]}"

/* Item 11: dates and times out of range, refused instead of overflowed or normalized. */
Test(history_input, dates_out_of_range)
{
	static const struct refusal t[] = {
		{ GB("99999999999-01-01"), 0, "context.date '99999999999-01-01': the year" },
		{ GB("-2147483648-01-01T00:00:00"), 0, "the year is not from 1970 to 2262" },
		{ GB("2026-01-01T00:00:00+99999999:00"), 0, "the zone is not within +-18:00" },
		{ GB("2026-01-01T00:00:00-18:30"), 0, "the zone is not within +-18:00" },
		{ PS("2026-13-45T99:99:99Z"), 0, "host.date '2026-13-45T99:99:99Z': the month" },
		{ PS("2026-02-29T00:00:00Z"), 0, "the day is not one of its month (1 to 28)" },
		{ PS("2026-04-31"), 0, "the day is not one of its month (1 to 30)" },
		{ PS("2026-01-01T24:00:00Z"), 0, "the hour is not 0 to 23" },
		{ PS("2026-01-01T23:60:00Z"), 0, "the minute is not 0 to 59" },
		{ PS("1969-12-31T23:59:59Z"), 0, "the year is not from 1970" },
		{ PS("1970-01-01T00:30:00+01:00"), 0, "not after 1970-01-01T00:00:00Z" },
		{ PS("1970-01-01T00:00:00Z"), 0, "not after 1970-01-01T00:00:00Z" },
		{ PS("2262-04-11T23:47:17Z"), 0, "past 2262-04-11T23:47:16Z" },
		{ PS("2026-01-01T00:00:00Zjunk"), 0, "not an ISO 8601 date" },
		{ "c1,1e300,5\n", 0, "line 1: time '1e300' is past 2262-04-11" },
		{ "c1,9223372037,5\n", 0, "line 1: time '9223372037' is past 2262-04-11" },
		{ "c1,0,5\n", 0, "line 1: time '0' is not after 1970-01-01T00:00:00Z" },
		{ "c1,-5,5\n", 0, "line 1: time '-5' is not after 1970" },
		{ "c1,inf,5\n", 0, "line 1: time 'inf' is not a finite number" },
		{ "c1,2026-13-45T99:99:99Z,5\n", 0, "line 1: time '2026-13-45T99:99:99Z': the month" },
		{ "commit,time,value\nc2,0x10,6\n", 0, "line 2: time '0x10' is neither seconds" },
	};

	refused("d", t, ARRAY_SIZE(t));
}

/* The point of the series name, whose only point it is. */
static struct pbench_history_record only_point(const char *name)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;

	for (int i = 0, n = pbench_history_series_count(h); i < n; i++) {
		struct pbench_history_series s = { .size = sizeof(s) };

		cr_assert_eq(pbench_history_series_get(h, i, &s), 0);
		if (!strcmp(s.name, name)) {
			cr_assert_eq(pbench_history_points(h, s.id), 1, "%s", name);
			cr_assert_eq(pbench_history_point_get(h, 0, &r), 0);
			return r;
		}
	}
	cr_assert_fail("no series '%s'", name);
	return r;
}

/* What is in range is taken as it is written: the ends of the range, a zone, the dates of
 * the older Google Benchmark ("%x %X": no date, as before). */
Test(history_input, dates_in_range)
{
	static const struct {
		const char *name, *series, *text;
		int64_t ns;	/* -1: this import's time (no date in the document) */
	} t[] = {
		{ "a", "a", PS("1970-01-01T00:00:01Z"), 1000000000 },
		{ "b", "b", PS("2262-04-11T23:47:16.854775807Z"), INT64_MAX },
		{ "c", "c/B", GB("2026-01-02T03:04:05+0200"), 1767315845LL * 1000000000 },
		{ "d", "d/B", GB("2024-02-29 00:00:00"), 1709164800LL * 1000000000 },
		{ "e", "e/B", GB("01/02/26 03:04:05"), -1 },
		{ "f", "f", "c1,1.5,7\n", 1500000000 },
		{ "g", "g", "c1,2026-01-02,7\n", 1767312000LL * 1000000000 },
	};
	int64_t now = (int64_t)time(NULL) * 1000000000;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pbench_history_record r;

		cr_assert_eq(pbench_history_import(h, t[i].name, t[i].text, strlen(t[i].text),
						   &rev_x), 1, "%s: %s", t[i].text,
			     pbench_strerror(-EINVAL));
		r = only_point(t[i].series);
		if (t[i].ns < 0)
			cr_expect(r.time_ns >= now - 60000000000LL, "%s: %lld", t[i].text,
				  (long long)r.time_ns);
		else
			cr_expect_eq(r.time_ns, t[i].ns, "%s: %lld, not %lld", t[i].text,
				     (long long)r.time_ns, (long long)t[i].ns);
	}
}

/* The file read as pbench analyze reads one: /dev/zero refused at the cap, quickly; a FIFO no
 * program writes to given up after a second; a directory said; each -EINVAL in one line. */
Test(history_input, files_read_as_analyze_reads_them, .timeout = 30)
{
	char fifo[320];
	struct timespec a, b;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = pbench_history_import_file(h, "z", "/dev/zero", NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	cr_expect_eq(rc, -EINVAL, "/dev/zero: %d", rc);
	cr_expect(strstr(pbench_strerror(rc), "holds more than 64 MiB"), "%s",
		  pbench_strerror(rc));
	cr_expect_lt(b.tv_sec - a.tv_sec, 20, "/dev/zero read for %lld s", (long long)(b.tv_sec -
										     a.tv_sec));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	rc = pbench_history_import_file(h, "f", fifo, NULL);
	cr_expect_eq(rc, -EINVAL, "a FIFO without a writer: %d", rc);
	cr_expect(strstr(pbench_strerror(rc), "is a FIFO that no program wrote to"), "%s",
		  pbench_strerror(rc));
	rc = pbench_history_import_file(h, "d", dir, NULL);
	cr_expect_eq(rc, -EINVAL, "a directory: %d", rc);
	cr_expect(strstr(pbench_strerror(rc), "is a directory"), "%s", pbench_strerror(rc));
	cr_expect_eq(records(), 0);
}

/* A REAL past int64 where the store keeps an integer (another program's write: 1e308) is
 * read as the nearest end, not cast (undefined: UBSan's float-cast-overflow). */
Test(history_input, real_past_int64_in_the_store)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;
	sqlite3 *db;

	r.name = "big";
	r.metric = "time_ns";
	r.unit = "ns";
	r.value = 5;
	r.time_ns = 1000000000;
	cr_assert_gt(pbench_history_add(h, &r), 0);
	pbench_history_close(h);
	h = NULL;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "UPDATE records SET time_ns = 1e308", NULL, NULL, NULL),
		     SQLITE_OK);
	sqlite3_close(db);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	r = only_point("big");
	cr_expect_eq(r.time_ns, INT64_MAX, "1e308 read as %lld", (long long)r.time_ns);
}

/* OpenMetrics: a time before 1970 (through the API, which the importers refuse) is written
 * with its sign once: -1.500, not -1.-500. */
Test(history_input, openmetrics_time_before_1970)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	r.name = "old";
	r.metric = "time_ns";
	r.unit = "ns";
	r.value = 5;
	r.time_ns = -1500000000;
	cr_assert_gt(pbench_history_add(h, &r), 0);
	cr_assert_not_null(f = open_memstream(&text, &len));
	cr_assert_eq(pbench_history_write_openmetrics(h, f), 0);
	fclose(f);
	cr_expect(strstr(text, " -1.500\n") && !strstr(text, ".-"), "%s", text);
	free(text);
}
