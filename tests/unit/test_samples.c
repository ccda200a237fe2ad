/* SPDX-License-Identifier: MIT */
/* pbench_samples_analyze() and its reports: what pbench analyze prints, from the library. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static struct pbench_samples *two_sets(const char *a, const char *b)
{
	struct pbench_samples *s;

	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_assert_eq(pbench_samples_add_text(s, a, strlen(a), "a", "ns", NULL, 0), 1);
	cr_assert_eq(pbench_samples_add_text(s, b, strlen(b), "b", "ns", NULL, 0), 1);
	return s;
}

static char *text_of(const struct pbench_samples *s, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(json ? pbench_samples_write_json(s, f) : pbench_samples_write_text(s, f), 0);
	fclose(f);
	return buf;
}

Test(samples, a_faster_set_is_said_faster_with_its_ratio)
{
	struct pbench_samples *s = two_sets("10\n11\n10.5\n10.2\n9.9\n", "20\n21\n20.5\n20.2\n19.8\n");
	struct pbench_summary sum = { .size = sizeof(sum) };
	char why[128], *t;

	cr_assert_eq(pbench_samples_write_text(s, stdout), -EINVAL, "a report before the analysis");
	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1, why, sizeof(why)), 0, "%s", why);
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

	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1, NULL, 0), 0);
	t = text_of(s, 0);
	cr_expect_not_null(strstr(t, "verdict: same: the ratio's interval lies within 1% of 1"),
			   "%s", t);
	free(t);
	pbench_samples_free(s);
	s = two_sets("5\n5\n5\n", "7\n7\n7\n");
	cr_assert_eq(pbench_samples_analyze(s, 0.999, 1, NULL, 0), 0);
	t = text_of(s, 1);
	cr_expect_not_null(strstr(t, "\"verdict\": \"constant\""), "%s", t);
	cr_expect_not_null(strstr(t, "\"ratio\": null"), "no ratio interval without spread: %s", t);
	free(t);
	pbench_samples_free(s);
}

Test(samples, bad_arguments_and_no_sets)
{
	struct pbench_samples *s;
	char why[128];

	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_expect_eq(pbench_samples_analyze(s, 0.999, 1, why, sizeof(why)), -ENODATA);
	cr_expect_not_null(strstr(why, "no samples"));
	cr_expect_eq(pbench_samples_analyze(s, 1.5, 1, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_samples_analyze(s, 0.99, -1, NULL, 0), -EINVAL);
	cr_expect_eq(pbench_samples_analyze(NULL, 0.99, 1, NULL, 0), -EINVAL);
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
	cr_assert_eq(pbench_samples_add_file(s, path, "ms", why, sizeof(why)), 1, "%s", why);
	cr_assert_str_eq(pbench_samples_name(s, 0), path);
	x = pbench_samples_values(s, 0, &n);
	cr_assert_eq(n, 3);
	cr_assert_float_eq(x[2], 3.5e6, 1e-6, "3.5 ms in ns: %g", x[2]);
	unlink(path);
	cr_assert_eq(pbench_samples_add_file(s, path, NULL, why, sizeof(why)), -ENOENT);
	cr_assert_not_null(strstr(why, "cannot open '"), "%s", why);
	cr_assert_eq(pbench_samples_add_file(s, "/tmp", NULL, why, sizeof(why)), -EISDIR);
	cr_assert_not_null(strstr(why, "is a directory"), "%s", why);
	cr_assert_eq(pbench_samples_add_file(s, "/dev/zero", NULL, why, sizeof(why)), -EFBIG);
	cr_assert_not_null(strstr(why, "more than 64 MiB"), "%s", why);
	cr_assert_eq(pbench_samples_add_file(s, NULL, NULL, why, sizeof(why)), -EINVAL);
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
	err = pbench_samples_baseline(path, name, &x, n, why, len, warn, sizeof(warn));
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
	cr_expect_eq(pbench_samples_baseline("/nonexistent/b.json", NULL, (double *[1]){ 0 }, &n,
					     why, sizeof(why), (char[8]){ 0 }, 8), -EIO);
	cr_expect(!strncmp(why, "cannot read the baseline: ", 26), "%s", why);
}
