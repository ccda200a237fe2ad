/* SPDX-License-Identifier: MIT */
/* pbench_samples_analyze() and its reports: what pbench analyze prints, from the library. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "testutil.h"

static struct pbench_samples *two_sets(const char *a, const char *b)
{
	struct pbench_samples *s;

	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_assert_eq(pbench_samples_add_text(s, a, strlen(a), "a", "ns"), 1);
	cr_assert_eq(pbench_samples_add_text(s, b, strlen(b), "b", "ns"), 1);
	return s;
}

static char *text_of(const struct pbench_samples *s, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(json ? pbench_samples_write_json(s, f) : pbench_samples_write_text(s, f, 0), 0);
	fclose(f);
	return buf;
}

Test(samples, a_faster_set_is_said_faster_with_its_ratio)
{
	struct pbench_samples *s = two_sets("10\n11\n10.5\n10.2\n9.9\n", "20\n21\n20.5\n20.2\n19.8\n");
	struct pbench_summary sum = { .size = sizeof(sum) };
	char why[128], *t;

	cr_assert_eq(pbench_samples_write_text(s, stdout, 0), -EINVAL, "a report before the analysis");
	cr_assert_eq(said_in(pbench_samples_analyze(s, 0.999, 1), why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(pbench_samples_summary(s, 1, &sum), 0);
	cr_expect_eq(sum.n, 5);
	cr_expect_float_eq(sum.mean, 20.3, 1e-9);
	cr_expect_eq(pbench_samples_summary(s, 2, &sum), -EINVAL);
	t = text_of(s, 0);
	/* a factor, as people say it, in pbench's one direction: the second against the first,
	 * time of b / time of a (20.3 / 10.32 = 1.97) */
	cr_expect_not_null(strstr(t, "verdict: b is 1.97x slower than a (significant at 99.9%)"),
			   "%s", t);
	cr_expect_not_null(strstr(t, "ratio b/a       1.96"), "%s", t);
	free(t);
	t = text_of(s, 1);
	/* the older a-against-b fields stay as they were; b against a beside them */
	cr_expect_not_null(strstr(t, "\"verdict\": \"faster\""), "%s", t);
	cr_expect_not_null(strstr(t, "\"verdict_b\": \"slower\""), "%s", t);
	cr_expect_not_null(strstr(t, "\"ratio_b_to_a\": 1.96"), "%s", t);
	cr_expect_not_null(strstr(t, "\"mean_ns\": 20.3"), "%s", t);
	cr_expect_null(strstr(t, "\"clock\""), "files measured elsewhere get no clock of this one");
	cr_expect_not_null(strstr(t, "\"host\": {"), "every document names its host: %s", t);
	cr_expect_not_null(strstr(t, "\"summary\": {"), "the summary in its own block: %s", t);
	free(t);
	pbench_samples_free(s);
}

Test(samples, equal_sets_are_the_same_and_constant_ones_are_said_so)
{
	struct pbench_samples *s = two_sets("10\n10.01\n9.99\n10\n10.005\n9.995\n10\n10\n",
					    "10\n10.01\n9.99\n10\n10.005\n9.995\n10.01\n9.99\n");
	char *t;

	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1), 0);
	t = text_of(s, 0);
	cr_expect_not_null(strstr(t, "verdict: same: the ratio's interval lies within 1% of 1"),
			   "%s", t);
	free(t);
	pbench_samples_free(s);
	s = two_sets("5\n5\n5\n", "7\n7\n7\n");
	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1), 0);
	t = text_of(s, 1);
	cr_expect_not_null(strstr(t, "\"verdict\": \"constant\""), "%s", t);
	/* the ratio the text says (b/a is 1.4), without an interval: no spread to make one */
	cr_expect_null(strstr(t, "\"ratio_b_to_a\": null"), "%s", t);
	cr_expect(strstr(t, "\"ratio_b_to_a\": 1.4") || strstr(t, "\"ratio_b_to_a\": 1.39999"),
		  "%s", t);
	cr_expect_not_null(strstr(t, "\"ratio_b_to_a_lo\": null"), "no interval without spread: %s",
			   t);
	free(t);
	pbench_samples_free(s);
}

Test(samples, bad_arguments_and_no_sets)
{
	struct pbench_samples *s;
	char why[128];

	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_expect_eq(said_in(pbench_samples_analyze(s, 0.999, 1), why, sizeof(why)), -ENODATA);
	cr_expect_not_null(strstr(why, "no samples"));
	cr_expect_eq(said_in(pbench_samples_analyze(s, 1.5, 1), why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_samples_analyze(s, 0.99, -1), -EINVAL);
	cr_expect_eq(pbench_samples_analyze(NULL, 0.99, 1), -EINVAL);
	pbench_samples_free(s);
}

/* One set of one value: nothing to summarize, said with its name; a second set makes it a
 * comparison, analyzed. */
Test(samples, a_single_sample_alone_is_refused)
{
	struct pbench_samples *s;
	char why[128];

	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_assert_eq(pbench_samples_add_text(s, "5\n", 2, "one.txt", NULL), 1);
	cr_expect_eq(said_in(pbench_samples_analyze(s, 0.999, 1), why, sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "one.txt: a single sample: nothing to summarize (need 2 or more)");
	cr_assert_eq(pbench_samples_add_text(s, "5\n6\n", 4, "two.txt", NULL), 1);
	cr_expect_eq(said_in(pbench_samples_analyze(s, 0.999, 1), why, sizeof(why)), 0, "%s", why);
	pbench_samples_free(s);
}

/* A file read whole: its sets named by its path; a file that is not there, a directory and a
 * file too large to be samples each refused with the reason, nothing added. */
Test(samples, read_from_a_file)
{
	char path[] = "/tmp/pbench-samples-XXXXXX", why[512];
	struct pbench_samples *s;
	const double *x;
	size_t n;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "1\n2\n3.5\n", 8), 8);
	close(fd);
	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_assert_eq(said_in(pbench_samples_add_file(s, path, "ms"), why, sizeof(why)), 1, "%s",
		     why);
	cr_assert_str_eq(pbench_samples_name(s, 0), path);
	x = pbench_samples_values(s, 0, &n);
	cr_assert_eq(n, 3);
	cr_assert_float_eq(x[2], 3.5e6, 1e-6, "3.5 ms in ns: %g", x[2]);
	unlink(path);
	cr_assert_eq(said_in(pbench_samples_add_file(s, path, NULL), why, sizeof(why)), -ENOENT);
	cr_assert_not_null(strstr(why, "cannot open '"), "%s", why);
	cr_assert_eq(said_in(pbench_samples_add_file(s, "/tmp", NULL), why, sizeof(why)), -EISDIR);
	cr_assert_not_null(strstr(why, "is a directory"), "%s", why);
	cr_assert_eq(said_in(pbench_samples_add_file(s, "/dev/zero", NULL), why, sizeof(why)),
		     -EFBIG);
	cr_assert_not_null(strstr(why, "more than 64 MiB"), "%s", why);
	cr_assert_eq(said_in(pbench_samples_add_file(s, NULL, NULL), why, sizeof(why)), -EINVAL);
	cr_assert_eq(pbench_samples_nr(s), 1);
	pbench_samples_free(s);
}

/* A baseline (pbench compare --baseline): times of one set, or refused with the sentence
 * compare says; hyperfine's JSON is times in s, read as ns. */
static int baseline_of(const char *text, const char *name, size_t *n, char *why, size_t len)
{
	char path[] = "/tmp/pbench-baseline-XXXXXX", warn[128];
	double *x = NULL;
	int fd = mkstemp(path), err;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	err = said_in(pbench_samples_baseline(path, name, &x, n, warn, sizeof(warn)), why, len);
	cr_expect(err || (x && x[0] == 1e7), "the first time: %g", x ? x[0] : -1);
	free(x);
	unlink(path);
	return err;
}

Test(samples, baseline)
{
	static const char two[] = "{\"results\": [{\"command\": \"a\", \"times\": [0.01, 0.02]}, "
				  "{\"command\": \"b\", \"times\": [0.01, 0.03]}]}";
	char why[512];
	size_t n = 0;

	cr_expect_eq(baseline_of("{\"results\": [{\"command\": \"a\", \"times\": [0.01, 0.02, "
				 "0.03]}]}", NULL, &n, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(n, 3);
	cr_expect_eq(baseline_of(two, "b", &n, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(baseline_of(two, "c", &n, why, sizeof(why)), -ENOMSG);
	cr_expect(strstr(why, "holds 2 sets of times ('a', 'b') and none is named 'c'"), "%s", why);
	cr_expect_eq(baseline_of("1\n2\n", NULL, &n, why, sizeof(why)), -ENOMSG, "plain numbers");
	cr_expect(strstr(why, "is not times of two runs at least"), "%s", why);
	cr_expect_eq(baseline_of("{\"results\": 1}", NULL, &n, why, sizeof(why)), -EINVAL);
	cr_expect_eq(said_in(pbench_samples_baseline("/nonexistent/b.json", NULL,
						     (double *[1]){ 0 }, &n, (char[8]){ 0 }, 8),
			     why, sizeof(why)), -EIO);
	cr_expect(!strncmp(why, "cannot read the baseline: ", 26), "%s", why);
}

/* ---- Google Benchmark's JSON, as its tools/gbench/compare.py reads it ---------------------- */

static struct pbench_samples *gbench_pair(const char *a, const char *b, const char *metric)
{
	struct pbench_samples *s;
	char why[256] = "", pa[256], pb[256];

	snprintf(pa, sizeof(pa), "tests/data/gbench/%s.json", a);
	snprintf(pb, sizeof(pb), "tests/data/gbench/%s.json", b);
	cr_assert_eq(pbench_samples_new(&s), 0);
	if (metric)
		cr_assert_eq(pbench_samples_gbench_metric(s, metric), 0);
	cr_assert_gt(said_in(pbench_samples_add_file(s, pa, NULL), why, sizeof(why)), 0, "%s", why);
	cr_assert_gt(said_in(pbench_samples_add_file(s, pb, NULL), why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(said_in(pbench_samples_analyze(s, 0.999, 1), why, sizeof(why)), 0, "%s", why);
	return s;
}

/* The comparison of benchmark name in JSON's comparisons[] (a and b both that name), or NULL. */
static json_t *comparison_of(json_t *root, const char *name)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(root, "comparisons"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "a")), name) &&
		    !strcmp(json_string_value(json_object_get(c, "b")), name))
			return c;
	return NULL;
}

/* test1: one repetition per benchmark (every benchmark binary's default output) is a sample,
 * not refused; each benchmark paired with its namesake (BM_2xFaster 50 ns against 25 ns), never
 * BM_SameTimes against BM_2xFaster; the aggregates without a time (MyComplexityTest_BigO,
 * _RMS) left out, as aggregates. */
Test(gbench, one_repetition_is_a_sample_and_benchmarks_pair_by_name)
{
	struct pbench_samples *s = gbench_pair("test1_run1", "test1_run2", NULL);
	char *t = text_of(s, 1), *txt = text_of(s, 0);
	json_t *root = json_loads(t, 0, NULL), *c;
	size_t n;

	cr_assert_not_null(root, "%s", t);
	for (int i = 0; i < pbench_samples_nr(s); i++) {
		cr_expect_null(strstr(pbench_samples_name(s, i), "MyComplexityTest"), "%s",
			       pbench_samples_name(s, i));
		pbench_samples_values(s, i, &n);
		cr_expect_eq(n, 1, "%s: %zu", pbench_samples_name(s, i), n);
	}
	c = comparison_of(root, "BM_2xFaster");
	cr_assert_not_null(c, "BM_2xFaster old against new: %s", txt);
	cr_expect_str_eq(json_string_value(json_object_get(c, "verdict")), "too_few");
	/* the ratio the text says (b/a is 0.5) is the JSON's too, its interval null (issue 37) */
	cr_expect_eq(json_real_value(json_object_get(c, "ratio_b_to_a")), 0.5, "%s", t);
	cr_expect_eq(json_real_value(json_object_get(c, "ratio")), 2.0, "%s", t);
	cr_expect(json_is_null(json_object_get(c, "ratio_b_to_a_lo")), "%s", t);
	cr_expect_not_null(strstr(txt, "b/a is 0.5,"), "%s", txt);
	cr_expect_str_eq(json_string_value(json_object_get(c, "b_input")),
			 "tests/data/gbench/test1_run2.json");
	cr_expect_str_eq(json_string_value(json_object_get(c, "a_time_unit")), "ns");
	cr_expect_null(strstr(txt, "BM_SameTimes (tests/data/gbench/test1_run1.json) vs "
			       "BM_2xFaster"), "%s", txt);
	/* namesakes: each named by its file */
	cr_expect_not_null(strstr(txt, "BM_SameTimes (tests/data/gbench/test1_run1.json) vs "
				  "BM_SameTimes (tests/data/gbench/test1_run2.json)"), "%s", txt);
	cr_expect_eq(json_array_size(json_object_get(root, "comparisons")), 14, "%s", t);
	json_decref(root);
	free(t);
	free(txt);
	pbench_samples_free(s);
}

/* test3: repetitions paired by name; Mann-Whitney's p as compare.py's tests expect it
 * (report.py, TestReportDifferenceWithUTest): BM_Two cpu_time 0.6666666666666666 (exact, not
 * the normal approximation's 0.6985), short cpu_time 0.2 (exact, not 0.1489), short real_time
 * 0.7670968684102772 (a tie: the normal approximation), BM_Two real_time 1.0. */
Test(gbench, mann_whitney_as_compare_py)
{
	static const struct {
		const char *metric, *name;
		double p;
	} rows[] = {
		{ "cpu_time", "BM_Two", 0.6666666666666666 },
		{ "cpu_time", "short", 0.2 },
		{ "real_time", "short", 0.7670968684102772 },
		{ "real_time", "BM_Two", 1.0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pbench_samples *s = gbench_pair("test3_run0", "test3_run1", rows[i].metric);
		char *t = text_of(s, 1);
		json_t *root = json_loads(t, 0, NULL), *c = root ? comparison_of(root, rows[i].name) :
							      NULL;
		double p;

		cr_assert_not_null(c, "%s %s: %s", rows[i].metric, rows[i].name, t);
		p = json_number_value(json_object_get(c, "mann_whitney_p"));
		cr_expect_leq(fabs(p - rows[i].p), 1e-12, "%s %s: p %.17g, want %.17g",
			      rows[i].metric, rows[i].name, p, rows[i].p);
		json_decref(root);
		free(t);
		pbench_samples_free(s);
	}
}

/* What is in one file only is said; a metric that is neither time is refused; the aggregates
 * of --benchmark_repetitions (aggregate_name, or a run_name not their name) are not samples. */
Test(gbench, unpaired_metric_and_aggregates)
{
	static const char one[] = "{\"benchmarks\":[{\"name\":\"BM_a\",\"real_time\":1,\"cpu_time\":2,"
		"\"time_unit\":\"us\"},{\"name\":\"BM_a\",\"real_time\":3,\"cpu_time\":4,\"time_unit\":"
		"\"us\"},{\"name\":\"BM_a_mean\",\"run_name\":\"BM_a\",\"run_type\":\"aggregate\","
		"\"real_time\":2,\"cpu_time\":3,\"time_unit\":\"us\"},{\"name\":\"BM_a_cv\",\"run_type\":"
		"\"aggregate\",\"aggregate_name\":\"cv\",\"real_time\":0.5,\"cpu_time\":0.3,"
		"\"time_unit\":\"us\"},{\"name\":\"BM_old\",\"real_time\":5,\"cpu_time\":5,"
		"\"time_unit\":\"ns\"}]}";
	static const char two[] = "{\"benchmarks\":[{\"name\":\"BM_a\",\"real_time\":1.5,\"cpu_time\":"
		"2.5,\"time_unit\":\"us\"},{\"name\":\"BM_new\",\"real_time\":5,\"cpu_time\":5,"
		"\"time_unit\":\"ns\"}]}";
	struct pbench_samples *s;
	const double *x;
	char *t;
	size_t n;

	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_expect_eq(pbench_samples_gbench_metric(s, "user_time"), -EINVAL);
	cr_expect_eq(pbench_samples_gbench_metric(NULL, "cpu_time"), -EINVAL);
	cr_assert_eq(pbench_samples_gbench_metric(s, "cpu_time"), 0);
	cr_assert_eq(pbench_samples_add_text(s, one, strlen(one), "old.json", NULL), 2);
	cr_assert_eq(pbench_samples_add_text(s, two, strlen(two), "new.json", NULL), 2);
	x = pbench_samples_values(s, 0, &n);
	cr_assert_eq(n, 2, "BM_a's two repetitions, not its mean or cv");
	cr_expect_eq(x[0], 2000);
	cr_expect_eq(x[1], 4000, "cpu_time, in ns");
	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1), 0);
	t = text_of(s, 0);
	cr_expect_not_null(strstr(t, "BM_a (old.json) vs BM_a (new.json)"), "%s", t);
	cr_expect_not_null(strstr(t, "only in the first file: 'BM_old'"), "%s", t);
	cr_expect_not_null(strstr(t, "only in the second file: 'BM_new'"), "%s", t);
	cr_expect_null(strstr(t, "BM_a vs BM_new"), "%s", t);
	free(t);
	pbench_samples_free(s);
}

/* The writer that takes a format writes what the writer of that name does, byte for byte,
 * and refuses a format it has not. */
Test(samples, write_by_format_is_the_named_writer)
{
	static const int fmts[] = { PBENCH_REPORT_FORMAT_JSON, PBENCH_REPORT_FORMAT_MARKDOWN,
				    PBENCH_REPORT_FORMAT_TEXT };
	struct pbench_samples *s = two_sets("1\n2\n3\n", "2\n3\n4\n");
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa, *fb;

	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1), 0);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		fa = open_memstream(&a, &na);
		fb = open_memstream(&b, &nb);
		cr_assert_eq(pbench_samples_write(s, fmts[i], fa), 0, "format %d", fmts[i]);
		cr_assert_eq(fmts[i] == PBENCH_REPORT_FORMAT_JSON ? pbench_samples_write_json(s, fb) :
			     fmts[i] == PBENCH_REPORT_FORMAT_MARKDOWN ?
			     pbench_samples_write_markdown(s, fb) : pbench_samples_write_text(s, fb, 0), 0);
		fclose(fa);
		fclose(fb);
		cr_expect(na > 0 && na == nb && !memcmp(a, b, na), "format %d: %zu against %zu bytes",
			  fmts[i], na, nb);
		free(a);
		free(b);
	}
	cr_expect_eq(pbench_samples_write(s, PBENCH_REPORT_FORMAT_CSV, stdout), -EINVAL);
	pbench_samples_free(s);
}
