/* SPDX-License-Identifier: MIT */
/*
 * compare.c - is an unrolled sum faster than a plain loop? pbench_compare() answers with a
 * verdict (faster, slower, same within 1%, or undecided), the ratio of the times and its
 * confidence interval.
 *
 *   cc -O2 compare.c $(pkg-config --cflags --libs pbench) -o compare && ./compare
 *   ./compare --json           (the comparison as JSON: both summaries, the test, the verdict)
 *   ./compare -v               (the library's diagnostics on stderr, through its log callback)
 *   ./compare --code           (both functions' machine code under the verdict: objdump)
 *
 * Both functions are sampled in alternation with the same number of calls per sample, and
 * Welch's t-test decides at 99.9% confidence. A check function makes sure both compute the
 * same sum first: comparing the speed of two different answers means nothing. Exit status: 0
 * compared (whatever the verdict), 1 an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pbench.h>

#define N 4096

struct sum_ctx {
	const uint32_t *data;
	uint64_t sum;
};

static void sum_plain(void *p)
{
	struct sum_ctx *c = p;
	uint64_t s = 0;

	for (size_t i = 0; i < N; i++)
		s += c->data[i];
	pbench_do_not_optimize(s);
	c->sum = s;
}

/* Four independent sums: the additions overlap instead of waiting for one another. */
static void sum_unrolled(void *p)
{
	struct sum_ctx *c = p;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	for (size_t i = 0; i < N; i += 4) {
		s0 += c->data[i];
		s1 += c->data[i + 1];
		s2 += c->data[i + 2];
		s3 += c->data[i + 3];
	}
	s0 += s1 + s2 + s3;
	pbench_do_not_optimize(s0);
	c->sum = s0;
}

/* Called once, before anything is timed: 0 when both give the same sum. */
static int same_sum(void *a, void *b)
{
	sum_plain(a);
	sum_unrolled(b);
	return ((struct sum_ctx *)a)->sum != ((struct sum_ctx *)b)->sum;
}

#define PROG "compare"

/* -v: the library's diagnostics (an event it could not open and why, a warning about the
 * measurement) on stderr, through the log callback. */
static void log_to_stderr(int level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s: %s: %s\n", PROG, level == PBENCH_LOG_ERROR ? "error" :
		level == PBENCH_LOG_WARN ? "warning" : level == PBENCH_LOG_INFO ? "info" : "debug",
		msg);
}

int main(int argc, char **argv)
{
	struct pbench_compare_opts opts = PBENCH_COMPARE_OPTS_INIT;	/* 99.9%, same within 1% */
	struct pbench_measure_opts mopts = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_comparison cmp = PBENCH_COMPARISON_INIT;
	struct sum_ctx a, b;
	uint32_t *data;
	int err, json = 0, code = 0;

	data = malloc(N * sizeof(*data));
	if (!data) {
		perror("compare: malloc");
		return 1;
	}
	for (size_t i = 0; i < N; i++)
		data[i] = (uint32_t)(i * 2654435761u);
	a.data = b.data = data;
	for (int i = 1; i < argc; i++) {
		json |= !strcmp(argv[i], "--json");
		code |= !strcmp(argv[i], "--code");
		if (!strcmp(argv[i], "-v"))
			pbench_log_set(log_to_stderr, NULL);
	}

	/* Short, for an example that runs in the test suite (confidence and threshold keep
	 * their defaults: 99.9% and 1%). */
	mopts.warmup_ms = 100;
	mopts.budget_ms = 1000;
	mopts.show_code = code;	/* --code: both loops' machine code under the verdict */
	opts.measure = &mopts;
	opts.check = same_sum;
	err = pbench_compare(sum_plain, &a, sum_unrolled, &b, &opts, &cmp);
	if (err) {
		/* Which argument and why, e.g. "invalid argument: pbench_compare():
		 * opts->measure->budget_ms is -1, not a time above 0". */
		fprintf(stderr, "compare: %s\n", pbench_strerror(err));
		free(data);
		return 1;
	}

	/* Both sides, the ratio with its interval, Welch's test and the verdict in words;
	 * pbench_comparison_write_json() gives the same as JSON. */
	if (json)
		err = pbench_comparison_write_json(&cmp, stdout, "plain loop", "unrolled by 4");
	else
		err = pbench_comparison_write_text(&cmp, stdout, "plain loop", "unrolled by 4");
	if (err)
		fprintf(stderr, "compare: %s\n", pbench_strerror(err));
	pbench_comparison_release(&cmp);	/* the summaries and the test behind cmp's pointers */
	free(data);
	return err ? 1 : 0;
}
