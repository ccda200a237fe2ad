/* SPDX-License-Identifier: MIT */
/*
 * The prepared mode's CPU pick among equally idle CPUs (check_pick.c, pb_pick_steadiest): the
 * steadiest by the reference loop, for a table of probes with known answers. White-box: the
 * probes themselves are live and this machine has one candidate (CPU 1), so the choice is
 * tested on their numbers; pbench_cpu_pick() on recorded trees is test_check.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "check/check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A probe: fast and slow ns per iteration (the median pass in its fastest and slowest slice). */
#define P(c, f, s) { .cpu = (c), .fast_ns = (f), .slow_ns = (s) }

static const struct {
	const char *what;
	struct pb_pick_probe p[PB_PICK_MAX_PROBED];
	int n, dflt, want;
	const char *why;
} rows[] = {
	{ "all steady: the least busy stays", { P(1, .50, .51), P(2, .50, .505), P(3, .50, .52) },
	  3, 0, 0, "CPU 1, the first: all 3 ran steady by the reference loop (slowest 0.96x of "
	  "the best)" },
	{ "one unsteady: the other", { P(1, .50, .90), P(2, .50, .51) }, 2, 0, 1,
	  "CPU 2, the steadiest by the reference loop: 0.98x of the best at its slowest, CPU 1 "
	  "0.56x" },
	{ "one slower all along (a busy hidden sibling)", { P(1, .90, .92), P(2, .50, .51) }, 2, 0,
	  1, "CPU 2, the steadiest by the reference loop: 0.98x of the best at its slowest, CPU 1 "
	  "0.54x" },
	{ "within 5%: the least busy stays", { P(1, .50, .54), P(2, .50, .52) }, 2, 0, 0,
	  "CPU 1, the first: all 2 ran steady by the reference loop (slowest 0.93x of the best)" },
	{ "the least busy not first", { P(1, .50, .80), P(2, .50, .50), P(3, .50, .80) }, 3, 2, 1,
	  "CPU 2, the steadiest by the reference loop: 1.00x of the best at its slowest, CPU 1 "
	  "0.62x" },
	{ "the least busy's probe failed", { P(1, NAN, NAN), P(2, .50, .51) }, 2, 0, 1,
	  "CPU 2, the first: all 2 ran steady by the reference loop (slowest 0.98x of the best)" },
	{ "all unsteady alike", { P(1, .50, .90), P(2, .50, .92) }, 2, 1, 1,
	  "CPU 2, the first: all 2 ran unsteady by the reference loop (CPU 2 at 0.54x of the "
	  "best)" },
};

Test(pick, steadiest_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char why[256] = "x";
		int got = pb_pick_steadiest(rows[i].p, rows[i].n, rows[i].dflt, why, sizeof(why));

		cr_expect_eq(got, rows[i].want, "%s: %d, want %d", rows[i].what, got, rows[i].want);
		cr_expect_str_eq(why, rows[i].why, "%s: '%s'", rows[i].what, why);
	}
}

Test(pick, no_probe_at_all)
{
	struct pb_pick_probe p[2] = { P(1, NAN, NAN), P(2, NAN, NAN) };
	char why[64] = "x";

	cr_assert_eq(pb_pick_steadiest(p, 2, 1, why, sizeof(why)), 1);
	cr_assert_str_eq(why, "", "nothing to say: '%s'", why);
}
