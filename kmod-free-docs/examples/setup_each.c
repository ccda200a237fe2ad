/* SPDX-License-Identifier: MIT */
/*
 * setup_each.c - time a sort of shuffled data. The data must be shuffled again before every
 * call (a sort leaves it sorted), and the shuffle must not be timed: setup_each runs before
 * each call, outside the timed region. setup runs once per batch of calls instead, so with it
 * every call but the first sorts sorted data; pbench flags such a result and says so in the
 * log. Both are timed here, side by side.
 *
 *   cc -O2 setup_each.c $(pkg-config --cflags --libs pbench) -o setup_each && ./setup_each
 *   ./setup_each -v            (the library's diagnostics on stderr, through the log callback)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pbench.h>

#define N 1024

struct sort_ctx {
	uint32_t v[N];
	uint64_t rng;
};

/* Fisher-Yates with xorshift64: a fresh order every time, cheap next to the sort. */
static void shuffle(void *p)
{
	struct sort_ctx *c = p;

	for (size_t i = N - 1; i > 0; i--) {
		size_t j;
		uint32_t t;

		c->rng ^= c->rng << 13;
		c->rng ^= c->rng >> 7;
		c->rng ^= c->rng << 17;
		j = (size_t)(c->rng % (i + 1));
		t = c->v[i];
		c->v[i] = c->v[j];
		c->v[j] = t;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void sort(void *p)
{
	struct sort_ctx *c = p;

	qsort(c->v, N, sizeof(c->v[0]), cmp_u32);
	pbench_do_not_optimize(c->v[0]);
}

/* -v: what the library has to say (here, the warning about setup), on stderr. */
static void log_to_stderr(int level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "setup_each: %s: %s\n", level == PBENCH_LOG_WARN ? "warning" :
		level == PBENCH_LOG_ERROR ? "error" : "debug", msg);
}

static int measure(struct sort_ctx *c, int each, const char *label)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_result *r;
	int err;

	o.warmup_ms = 100;	/* short, for an example that runs in the test suite */
	o.budget_ms = 300;
	if (each)
		o.setup_each = shuffle;		/* before every call, not timed */
	else
		o.setup = shuffle;		/* once per batch: only the first call sorts
						 * shuffled data */
	err = pbench_measure(&r, sort, c, &o);
	if (err) {
		fprintf(stderr, "setup_each: %s\n", pbench_strerror(err));
		return 1;
	}
	err = pbench_result_write_text(r, stdout, label);
	pbench_result_free(r);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sort_ctx *c = malloc(sizeof(*c));
	int rc;

	if (!c) {
		perror("setup_each: malloc");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "-v"))
		pbench_log_set(log_to_stderr, NULL);
	for (uint32_t i = 0; i < N; i++)
		c->v[i] = i;
	c->rng = 0x9e3779b97f4a7c15ull;
	rc = measure(c, 1, "sort of 1024 shuffled integers (setup_each: shuffled before every call)");
	printf("\n");
	rc |= measure(c, 0, "the same with setup (shuffled once per batch: the others sort sorted data)");
	free(c);
	return rc;
}
