/* SPDX-License-Identifier: MIT */
/*
 * memory.c - how much does a function allocate per call? Two ways to join words into a line:
 * one duplicates every word on the heap (strdup, then a realloc'ed buffer), the other writes
 * into the caller's buffer and allocates nothing. pbench_compare() with count_memory compares
 * their times and their allocations: "b allocates 2.0x the bytes of a per call", and, where
 * every sample counted the same, "exactly N per call".
 *
 *   cc -O2 memory.c $(pkg-config --cflags --libs pbench) -lpbench-mem -o memory && ./memory
 *   ./memory --json            (the comparison as JSON, memory included)
 *   ./memory -v                (the library's diagnostics on stderr)
 *
 * The allocations are counted by libpbench-mem.so, which defines malloc and the rest and
 * forwards to the C library's: it must come before the C library, as -lpbench-mem does when
 * linked, or LD_PRELOAD=libpbench-mem.so does for a program built without it (under
 * AddressSanitizer, whose runtime comes first, preload it, with
 * ASAN_OPTIONS=verify_asan_link_order=0). Without it the memory lines say "not counted" and
 * why, never 0. Exit status: 0 compared (whatever the verdict), 1 an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pbench.h>

static const char *const words[] = { "precision", "benchmarking", "with", "kernel", "assisted",
				     "counters", "and", "honest", "statistics" };
#define NR_WORDS (sizeof(words) / sizeof(words[0]))

struct join_ctx {
	char line[256];
	size_t len;
};

/* Allocation-heavy: a copy of every word, and a buffer grown for each. */
static void join_heap(void *p)
{
	struct join_ctx *c = p;
	char *buf = NULL;
	size_t len = 0;

	for (size_t i = 0; i < NR_WORDS; i++) {
		char *w = strdup(words[i]), *nb;
		size_t n;

		if (!w)
			break;
		n = strlen(w);
		nb = realloc(buf, len + n + 2);
		if (!nb) {
			free(w);
			break;
		}
		buf = nb;
		memcpy(buf + len, w, n);
		len += n;
		buf[len++] = ' ';
		buf[len] = '\0';
		free(w);
	}
	c->len = len;
	pbench_do_not_optimize(buf);
	free(buf);
}

/* Allocation-free: straight into the caller's buffer. */
static void join_stack(void *p)
{
	struct join_ctx *c = p;
	size_t len = 0;

	for (size_t i = 0; i < NR_WORDS; i++) {
		size_t n = strlen(words[i]);

		memcpy(c->line + len, words[i], n);
		len += n;
		c->line[len++] = ' ';
	}
	c->line[len] = '\0';
	c->len = len;
	pbench_clobber();
}

static void log_to_stderr(int level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "memory: %s: %s\n", level == PBENCH_LOG_ERROR ? "error" :
		level == PBENCH_LOG_WARN ? "warning" : "info", msg);
}

int main(int argc, char **argv)
{
	struct pbench_compare_opts opts = { .size = sizeof(opts) };
	struct pbench_measure_opts mopts = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_comparison cmp = { .size = sizeof(cmp) };
	struct join_ctx a = { .len = 0 }, b = { .len = 0 };
	int err, json = 0;

	for (int i = 1; i < argc; i++) {
		json |= !strcmp(argv[i], "--json");
		if (!strcmp(argv[i], "-v"))
			pbench_log_set(log_to_stderr, NULL);
	}
	/* Short, for an example that runs in the test suite. */
	mopts.warmup_ms = 100;
	mopts.budget_ms = 1000;
	mopts.count_memory = 1;		/* count each sample's allocations */
	opts.measure = &mopts;
	err = pbench_compare(join_stack, &a, join_heap, &b, &opts, &cmp);
	if (err) {
		fprintf(stderr, "memory: %s\n", pbench_strerror(err));
		return 1;
	}
	if (json)
		err = pbench_comparison_write_json(&cmp, stdout, "into a buffer", "on the heap");
	else
		err = pbench_comparison_write_text(&cmp, stdout, "into a buffer", "on the heap");
	if (err)
		fprintf(stderr, "memory: %s\n", pbench_strerror(err));
	pbench_comparison_release(&cmp);
	return err ? 1 : 0;
}
