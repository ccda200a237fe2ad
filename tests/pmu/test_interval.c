/* SPDX-License-Identifier: MIT */
/*
 * A run over time with a real hardware counter (pbench stat -I, issue 23 item 4): `pbench stat
 * -I 10 -e instructions:u,cycles -- /tests/loop N`, the child's inst_retired read by pbench
 * every 10 ms while it runs. The intervals' instructions:u add up to the run's exactly (the
 * last one's end is the run's own stop snapshot), each is counted on the PMU (running 100%),
 * and in the intervals of the loop's body the count follows the virtual clock: under
 * -icount shift=0 one instruction is one ns, so an interval of the loop alone retires at most
 * its ns of instructions and, the loop being nearly all that runs, most of them.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "tap.h"
#include "util.h"

/* pbench's progress line on the console (a terminal) ends without a newline: the next TAP
 * line starts on a line of its own. */
static void newline(void)
{
	fflush(stderr);
	printf("\n");
}

static json_t *count_of(json_t *o, const char *name)
{
	return json_object_get(json_object_get(o, "counters"), name);
}

static int64_t value_of(json_t *o, const char *name)
{
	json_t *v = json_object_get(count_of(o, name), "value");

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* Run i's intervals: 1 when every check holds (each said by diag when not). */
static int check_run(json_t *run, int i, int *n_out, int *pace_ok)
{
	json_t *iv = json_object_get(run, "intervals");
	int64_t total = value_of(run, "instructions:u"), sum = 0, ns = 0;
	size_t n = json_array_size(iv);
	int good = total > 0 && n >= 5;

	*n_out = (int)n;
	for (size_t k = 0; k < n; k++) {
		json_t *x = json_array_get(iv, k);
		json_t *pct = json_object_get(count_of(x, "instructions:u"), "running_pct");
		int64_t v = value_of(x, "instructions:u"), t = json_integer_value(json_object_get(x, "ns"));

		if (v < 0 || !json_is_number(pct) || json_number_value(pct) != 100) {
			diag("run %d interval %zu: instructions:u not counted whole", i + 1, k);
			good = 0;
			continue;
		}
		if (k < 3 || k + 1 == n)
			diag("run %d interval %zu: %lld ns, instructions:u %lld, cycles %lld", i + 1,
			     k, (long long)t, (long long)v, (long long)value_of(x, "cycles"));
		/* the loop's body: neither the first (exec, the C library's start) nor the last */
		if (k > 0 && k + 1 < n && !(v <= t && v >= t / 2)) {
			diag("run %d interval %zu: %lld instructions:u in %lld ns", i + 1, k,
			     (long long)v, (long long)t);
			*pace_ok = 0;
		}
		sum += v;
		ns += t;
	}
	diag("run %d: %zu intervals, instructions:u %lld in all, %lld the run; ns %lld and %lld",
	     i + 1, n, (long long)sum, (long long)total, (long long)ns,
	     (long long)json_integer_value(json_object_get(run, "ns")));
	return good && sum == total && ns == json_integer_value(json_object_get(run, "ns"));
}

/* The mean run ns of `pbench stat -r 3 [-I ms] -- /tests/loop 3e7` and its intervals a run:
 * in the guest's virtual time (one instruction a ns, pbench's own included: one CPU, which
 * pbench shares with the command), the cost of the wake-ups is exact and repeatable. */
static double mean_ns(const char *ms, double *nint)
{
	char *argv[] = { "/bin/pbench", "stat", "--mode", "unprepared", "-r", "3", "-e",
			 "instructions:u", "--json", "-q", "--", "/tests/loop", "30000000", NULL,
			 NULL, NULL };
	json_t *root, *runs;
	double sum = 0, ni = 0;
	size_t n;

	if (ms) {	/* -I ms before the command */
		memmove(&argv[11], &argv[9], 5 * sizeof(*argv));
		argv[9] = "-I";
		argv[10] = (char *)ms;
	}
	root = run_json(argv);
	newline();
	runs = json_object_get(json_array_get(json_object_get(root, "modes"), 0), "runs");
	n = json_array_size(runs);
	for (size_t i = 0; i < n; i++) {
		sum += (double)json_integer_value(json_object_get(json_array_get(runs, i), "ns"));
		ni += (double)json_array_size(json_object_get(json_array_get(runs, i), "intervals"));
	}
	json_decref(root);
	*nint = n ? ni / (double)n : 0;
	return n ? sum / (double)n : -1;
}

static void cost(void)
{
	double n0, n10, i0, i10 = 0, per;

	n0 = mean_ns(NULL, &i0);
	n10 = mean_ns("10", &i10);
	per = i10 > 0 ? (n10 - n0) / i10 : -1;
	diag("cost: a run of the loop %.0f ns without -I, %.0f ns with -I 10 (%.1f intervals): "
	     "%.0f ns a wake-up, %.3f%% of the run at -I 10, %.4f%% at -I 100", n0, n10, i10, per,
	     100 * (n10 - n0) / n0, 100 * per * 10 / 1e9);	/* 10 wake-ups a second */
	ok(n0 > 0 && i10 >= 5 && per < 100000, "cost: a wake-up of -I costs less than 100 us of "
	   "the guest's virtual time (%.0f ns)", per);
}

/* 8 events for 6 counters, multiplexed (every 4 ms here) within each 10 ms interval: each
 * interval scaled by its own running share; the raw counts still add up to the run's, and an
 * event off the counters for a whole interval is null there, never a 0. */
static void multiplexed(void)
{
	static const char *const ev[] = { "instructions:u", "r8:u", "armv8_pmuv3/inst_retired/u",
					  "r1:u", "r2:u", "r3:u", "r4:u", "r5:u" };
	char *argv[] = { "/bin/pbench", "stat", "--mode", "unprepared", "-r", "1", "-I", "10", "-e",
			 "instructions:u,r8:u,armv8_pmuv3/inst_retired/u,r1:u,r2:u,r3:u,r4:u,r5:u",
			 "--json", "-q", "--", "/tests/loop", "30000000", NULL };
	json_t *root = run_json(argv), *run, *iv;
	int sums = 1, never0 = 1, muxed = 0;

	newline();
	run = json_array_get(json_object_get(json_array_get(json_object_get(root, "modes"), 0),
					     "runs"), 0);
	iv = json_object_get(run, "intervals");
	for (size_t e = 0; e < sizeof(ev) / sizeof(*ev); e++) {
		int64_t sum = 0;

		for (size_t k = 0; k < json_array_size(iv); k++) {
			json_t *c = count_of(json_array_get(iv, k), ev[e]);
			json_t *pct = json_object_get(c, "running_pct");
			int64_t v = value_of(json_array_get(iv, k), ev[e]);

			if (json_is_number(pct) && json_number_value(pct) == 0 && v >= 0)
				never0 = 0;	/* off the counters and still a number */
			if (json_is_number(pct) && json_number_value(pct) < 100)
				muxed++;
			if (e == 0 && k == 1)
				diag("multiplexed: interval 1 instructions:u %lld raw, %.0f scaled, "
				     "running %.1f%%", (long long)v,
				     json_number_value(json_object_get(c, "scaled")),
				     json_number_value(pct));
			sum += v > 0 ? v : 0;
		}
		if (sum != value_of(run, ev[e])) {
			diag("multiplexed: %s: the intervals add up to %lld, the run %lld", ev[e],
			     (long long)sum, (long long)value_of(run, ev[e]));
			sums = 0;
		}
	}
	ok(root && json_array_size(iv) >= 5 && sums, "multiplexed: 8 events on 6 counters, -I 10: "
	   "each event's raw counts in %zu intervals add up to the run's exactly",
	   json_array_size(iv));
	ok(muxed > 0 && never0, "multiplexed: %d interval counts ran below 100%%; none off the "
	   "counters is a 0", muxed);
	json_decref(root);
}

int main(void)
{
	char *argv[] = { "/bin/pbench", "stat", "--mode", "unprepared", "-r", "2", "-I", "10",
			 "-e", "instructions:u,cycles", "--json", "-q", "--", "/tests/loop",
			 "30000000", NULL };
	json_t *root, *runs;
	int good = 1, pace = 1, n = 0;

	tap_init("interval");
	cost();
	root = run_json(argv);
	newline();
	runs = json_object_get(json_array_get(json_object_get(root, "modes"), 0), "runs");
	if (!ok(root && json_array_size(runs) == 2, "pbench stat -I 10 -r 2 -e "
		"instructions:u,cycles --json -- /tests/loop 3e7 ran"))
		return tap_done();
	for (size_t i = 0; i < json_array_size(runs); i++)
		good &= check_run(json_array_get(runs, i), (int)i, &n, &pace);
	ok(good, "each run's intervals (%d in the last) of instructions:u, each counted "
	   "whole, add up to the run's count and ns exactly", n);
	ok(pace, "in the loop's intervals instructions:u is between half of the "
	   "interval's ns and its ns (one instruction a ns of virtual time at most)");
	json_decref(root);
	multiplexed();
	return tap_done();
}
