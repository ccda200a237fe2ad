/* SPDX-License-Identifier: MIT */
/*
 * Exactness: loop.h's loop of LOOP3_K instructions per iteration, counted in user space only
 * (instructions:u), gives K x N + c with the same c for N in {1,000; 1,000,000; 10,000,000} and
 * every repetition, through three paths:
 *  - the library's counter set around a region (a {cycles, instructions} group: one read()
 *    returns both, matched by id);
 *  - pbench_measure with events (counts per call, minus the empty batch's);
 *  - `pbench stat -e instructions:u -- /tests/loop N`, a child counted from its exec.
 * c is whatever the code around the loop adds; it is asserted equal across N, never hard-coded.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbench.h"
#include "loop.h"
#include "tap.h"
#include "util.h"

#define REPS 3
static const uint64_t Ns[] = { 1000, 1000000, 10000000 };
#define NR_N (sizeof(Ns) / sizeof(Ns[0]))

/* All values equal? Prints them either way. */
static int same(const char *what, const int64_t *c, int n)
{
	char buf[512];
	int len = 0, eq = 1;

	for (int i = 0; i < n; i++) {
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, "%s%lld", i ? " " : "",
				(long long)c[i]);
		if (c[i] != c[0])
			eq = 0;
	}
	diag("%s: c = %s", what, buf);
	return eq;
}

static void library_group(void)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1 };
	struct pbench_count k[2] = { { .size = sizeof(k[0]) }, { .size = sizeof(k[0]) } };
	struct pbench_counters *c;
	int64_t cs[NR_N * REPS], cyc[NR_N * REPS];
	int err = pbench_counters_open(&c, "cycles:u,instructions:u", &o), n = 0, good = 1;

	if (!ok(err == 0, "library: open cycles:u,instructions:u (%s)", pbench_strerror(err)))
		return;
	ok(pbench_counters_nr_groups(c) == 1, "library: one group for cycles and instructions "
	   "(%d)", pbench_counters_nr_groups(c));
	pbench_counters_enable(c);
	for (size_t i = 0; i < NR_N; i++) {
		for (int r = 0; r < REPS; r++, n++) {
			pbench_counters_start(c);
			loop3(Ns[i]);
			pbench_counters_stop(c);
			if (pbench_counters_delta(c, 0, &k[0]) || pbench_counters_delta(c, 1, &k[1]) ||
			    k[1].status != PBENCH_EVENT_OK)
				good = 0;
			cs[n] = (int64_t)(k[1].value - LOOP3_K * Ns[i]);
			cyc[n] = (int64_t)(k[0].value - LOOP3_K * Ns[i]);
			if (r == 0)
				diag("library: N=%llu instructions:u %llu cycles:u %llu (%s)",
				     (unsigned long long)Ns[i], (unsigned long long)k[1].value,
				     (unsigned long long)k[0].value,
				     pbench_counters_uses_rdpmc(c, 1) ? "user-space reads" : "read()");
		}
	}
	ok(good, "library: every delta has status ok");
	ok(same("library instructions:u - 3N", cs, n), "library: instructions:u = %d N + c, the "
	   "same c for N = 1e3, 1e6, 1e7 x %d repetitions", LOOP3_K, REPS);
	same("library cycles:u - 3N", cyc, n);

	/* One read() of the group: both events with their ids matched (pbench_counters_read). */
	{
		struct pbench_count a[2] = { { .size = sizeof(a[0]) }, { .size = sizeof(a[0]) } };
		struct pbench_count b[2] = { { .size = sizeof(b[0]) }, { .size = sizeof(b[0]) } };
		int64_t d0, d1;

		pbench_counters_read(c);
		pbench_counters_get(c, 0, &a[0]);
		pbench_counters_get(c, 1, &a[1]);
		loop3(1000000);
		err = pbench_counters_read(c);
		pbench_counters_get(c, 0, &b[0]);
		pbench_counters_get(c, 1, &b[1]);
		d0 = (int64_t)(b[0].value - a[0].value);
		d1 = (int64_t)(b[1].value - a[1].value);
		diag("library read(): cycles delta %lld, instructions delta %lld", (long long)d0,
		     (long long)d1);
		ok(err == 2 && b[0].status == PBENCH_EVENT_OK && b[1].status == PBENCH_EVENT_OK &&
		   d1 >= 3000000 && d1 < 3000000 + 2000 && d0 >= 3000000 && d0 < 3000000 + 2000,
		   "library: pbench_counters_read gives both group members, each 3e6 + a few "
		   "hundred over a 1e6 loop");
	}
	pbench_counters_free(c);
}

static uint64_t measure_n;

static void fn_loop(void *ctx)
{
	(void)ctx;
	loop3(measure_n);
}

static void measure(void)
{
	static const uint64_t mN[] = { 1000, 100000, 1000000 };
	int64_t cs[3];
	int good = 1;

	for (int i = 0; i < 3; i++) {
		struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
		struct pbench_result *r;
		struct pbench_count k[1] = { { .size = sizeof(k[0]) } };
		int err;
		double lo = 1e300, hi = -1e300;

		measure_n = mN[i];
		o.warmup_ms = 0;
		o.iterations = 10;
		o.min_samples = 5;
		o.max_samples = 5;
		o.events = "instructions:u";
		err = pbench_measure(&r, fn_loop, NULL, &o);
		if (!ok(err == 0, "measure: N=%llu (%s)", (unsigned long long)mN[i],
			pbench_strerror(err)))
			return;
		for (size_t s = 0; s < pbench_result_nr_samples(r); s++) {
			if (pbench_result_nr_events(r) != 1 || pbench_result_count(r, s, 0, &k[0]) ||
			    k[0].status != PBENCH_EVENT_OK) {
				good = 0;
				continue;
			}
			if (k[0].scaled < lo)
				lo = k[0].scaled;
			if (k[0].scaled > hi)
				hi = k[0].scaled;
		}
		diag("measure: N=%llu instructions:u per call %.1f..%.1f over %zu samples",
		     (unsigned long long)mN[i], lo, hi, pbench_result_nr_samples(r));
		good &= lo == hi;
		cs[i] = (int64_t)lo - (int64_t)(LOOP3_K * mN[i]);
		pbench_result_free(r);
	}
	ok(good, "measure: every sample's count per call is the same (status ok)");
	ok(same("measure instructions:u per call - 3N", cs, 3), "measure: instructions:u per "
	   "call = %d N + c, the same c for N = 1e3, 1e5, 1e6", LOOP3_K);
}

/* pbench stat's counts of the child's instructions:u, one per run; how many were got. */
static int stat_counts(uint64_t n, int64_t *v, int nv)
{
	char arg[32], runs_arg[16];
	char *argv[] = { "/bin/pbench", "stat", "--mode", "unprepared", "-r", runs_arg, "-e",
			 "instructions:u", "--json", "-q", "--", "/tests/loop", arg, NULL };
	json_t *root, *runs;
	int got = 0;

	/* Same width for every N: strtoull's cost grows with the digits (16 instructions each
	 * here), which would move c between N that differ in length. */
	snprintf(arg, sizeof(arg), "%010llu", (unsigned long long)n);
	snprintf(runs_arg, sizeof(runs_arg), "%d", nv);
	root = run_json(argv);
	if (!root)
		return -1;
	/* schema 2: the runs under modes[] (one mode here); a count {value, scaled,
	 * running_pct}, ok when it ran the whole run (null: not opened, events[] says why) */
	runs = json_object_get(json_array_get(json_object_get(root, "modes"), 0), "runs");
	for (size_t i = 0; i < json_array_size(runs) && got < nv; i++) {
		json_t *k = json_object_get(json_object_get(json_array_get(runs, i), "counters"),
					    "instructions:u");
		json_t *val = json_object_get(k, "value");
		json_t *pct = json_object_get(k, "running_pct");

		if (!json_is_integer(val) || !json_is_number(pct) || json_number_value(pct) != 100) {
			char *dump = json_dumps(k ? k : root, JSON_COMPACT);

			diag("stat: run %zu of N=%s: %.400s", i + 1, arg, dump ? dump : "?");
			free(dump);
			break;
		}
		v[got++] = json_integer_value(val);
	}
	json_decref(root);
	return got;
}

static void stat_child(void)
{
	int64_t cs[NR_N * REPS];
	int n = 0, good = 1;

	/* The loop's start-up in the C library (argv and the environment parsed, word-aligned
	 * string reads) takes a couple of instructions more with some places the kernel puts
	 * the stack: 120 runs of N = 1000 in this guest gave c + 2 twice (9672 among 9670s) with
	 * address randomization, never in 120 without (2026-11-24). pbench counts what ran; the
	 * test wants the same program to run the same instructions, so pbench and the loop it
	 * starts inherit a personality with no address randomization. */
	if (personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE) < 0)
		diag("stat: personality(ADDR_NO_RANDOMIZE) failed: c may move with the stack");

	for (size_t i = 0; i < NR_N; i++) {
		int64_t v[REPS];
		int got = stat_counts(Ns[i], v, REPS);

		if (got != REPS) {
			good = 0;
			continue;
		}
		diag("stat: N=%llu instructions:u %lld", (unsigned long long)Ns[i], (long long)v[0]);
		for (int r = 0; r < REPS; r++)
			cs[n++] = v[r] - (int64_t)(LOOP3_K * Ns[i]);
	}
	ok(good, "stat: pbench stat -r %d -e instructions:u --json -- /tests/loop N ran and "
	   "counted (status ok) for every N", REPS);
	ok(good && same("stat instructions:u - 3N", cs, n), "stat: the child's instructions:u = "
	   "%d N + c, the same c for N = 1e3, 1e6, 1e7 x %d runs", LOOP3_K, REPS);
}

int main(void)
{
	tap_init("exact");
	ok(loop3_words() == LOOP3_K, "the loop body is %ld instruction words (LOOP3_K %d)",
	   loop3_words(), LOOP3_K);
	library_group();
	measure();
	stat_child();
	return tap_done();
}
