/* SPDX-License-Identifier: MIT */
/*
 * time_function.c - time one function with pbench_measure(): how long does summing 4096
 * integers take?
 *
 *   cc -O2 time_function.c $(pkg-config --cflags --libs pbench) -o time_function
 *   ./time_function            (--json: every sample, as JSON; -v: the library's log;
 *                               --code: the function's machine code, disassembled)
 *
 * pbench calls the function once untimed, warms it up, picks how many calls make one sample,
 * subtracts the cost of the calling loop, and takes samples until the standard error of the
 * mean is 1% of the mean or the time budget is spent. Exit status: 0 measured, 1 an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pbench.h>

#define N 4096

struct sum_ctx {
	uint32_t data[N];
	uint64_t sum;
};

/* The measured function: everything it needs comes through ctx, prepared beforehand. */
static void sum_array(void *p)
{
	struct sum_ctx *c = p;
	uint64_t s = 0;

	for (size_t i = 0; i < N; i++)
		s += c->data[i];
	/* The result is stored and marked as used: the compiler cannot drop the loop. */
	pbench_do_not_optimize(s);
	c->sum = s;
}

#define PROG "time_function"

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
	struct pbench_measure_opts opts = PBENCH_MEASURE_OPTS_INIT;	/* size and defaults */
	struct pbench_result *r;
	struct sum_ctx *ctx;
	int err, json = 0, code = 0;

	ctx = malloc(sizeof(*ctx));
	if (!ctx) {
		perror("time_function: malloc");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		json |= !strcmp(argv[i], "--json");
		code |= !strcmp(argv[i], "--code");
		if (!strcmp(argv[i], "-v"))
			pbench_log_set(log_to_stderr, NULL);
	}
	for (size_t i = 0; i < N; i++)
		ctx->data[i] = (uint32_t)(i * 2654435761u);

	/* Short, for an example that runs in the test suite; the defaults are a 1.2 s warm-up
	 * and a 10 s budget. */
	opts.warmup_ms = 100;
	opts.budget_ms = 500;
	/* The code of sum_array under the report (objdump): a loop, with its jump back. It is
	 * shown anyway when the result looks optimized away, next to that warning. */
	opts.show_code = code;
	err = pbench_measure(&r, sum_array, ctx, &opts);
	if (err) {
		fprintf(stderr, "time_function: %s\n", pbench_strerror(err));
		free(ctx);
		return 1;
	}

	/* The report: mean ± standard error with the digits the samples support, the other
	 * figures, the rule that stopped sampling, the outliers and what happened during them,
	 * and a warning for anything that makes the number suspect. pbench_result_write_json()
	 * writes every sample instead (pbench analyze reads it back); pbench_result_summary()
	 * gives the figures as doubles. */
	if (json)
		err = pbench_result_write_json(r, stdout, "sum of 4096 integers");
	else
		err = pbench_result_write_text(r, stdout, "sum of 4096 integers");
	if (err)
		fprintf(stderr, "time_function: %s\n", pbench_strerror(err));

	pbench_result_free(r);
	free(ctx);
	return err ? 1 : 0;
}
