// SPDX-License-Identifier: MIT
/*
 * Which function got slower, through the public API (issue 36: pbench_contest_opts.profile
 * and its company, pbench_contest_profile_diff_nr(), _diff(), _info()): the options refused,
 * the getters without a profile, and tests/data/profile/shares against shares-delta (the
 * same, and a fourth function, delta): delta only in the challenger and flagged, every symbol
 * of either listed once with its figures, the flagged first, q at least p, the shares of the
 * difference summing to 100%. Skips where perf_event_open is refused.
 */
#include <limits.h>
#include <math.h>
#include <unistd.h>

#include "testutil.h"

static char shares[PATH_MAX], delta[PATH_MAX];

static void find_bins(void)
{
	char self[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	cr_assert_not_null(slash);
	*slash = '\0';
	snprintf(shares, sizeof(shares), "%s/data/profile/shares", self);
	snprintf(delta, sizeof(delta), "%s/data/profile/shares-delta", self);
	cr_assert_eq(access(shares, X_OK), 0, "%s is not built (make %s)", shares, shares);
	cr_assert_eq(access(delta, X_OK), 0, "%s is not built (make %s)", delta, delta);
}

Test(contest_profile, options_refused)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest *c = NULL;

	o.profile = 3;
	cr_expect_eq(pbench_contest_new(&c, &o), -EINVAL);
	cr_expect_null(c);
	o.profile = PBENCH_PROFILE_FP;
	o.profile_fdr = 0.7;
	cr_expect_eq(pbench_contest_new(&c, &o), -EINVAL);
	cr_expect(strstr(pbench_strerror(-EINVAL), "false discovery rate"), "%s",
		  pbench_strerror(-EINVAL));
	o.profile_fdr = NAN;
	cr_expect_eq(pbench_contest_new(&c, &o), -EINVAL);
	o.profile_fdr = 0;
	o.order = PBENCH_CONTEST_ORDER_DUET;
	cr_expect_eq(pbench_contest_new(&c, &o), -EINVAL);
	o.order = PBENCH_CONTEST_ORDER_INTERLEAVED;
	ASSERT_OK(pbench_contest_new(&c, &o));
	{	/* a workload is not sampled: said when it is added */
		struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;

		e.workload = PBENCH_WORKLOAD_XOR;
		e.iterations = 1000;
		cr_expect_eq(pbench_contest_add(c, &e), -EINVAL);
		cr_expect(strstr(pbench_strerror(-EINVAL), "samples commands"), "%s",
			  pbench_strerror(-EINVAL));
	}
	pbench_contest_free(c);
}

/* A contest of a against b, unprepared, task-clock, rounds rounds, with profile. */
static int contest(struct pbench_contest **c, char **a, char **b, long rounds, int profile)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	int err;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.min_rounds = o.max_rounds = rounds;
	o.flags = PBENCH_CONTEST_FULL_BUDGET;
	o.profile = profile;
	err = pbench_contest_new(c, &o);
	e.argv = a;
	e.name = "a";
	if (!err)
		err = pbench_contest_add(*c, &e) < 0 ? -1 : 0;
	e.argv = b;
	e.name = "b";
	if (!err)
		err = pbench_contest_add(*c, &e) < 0 ? -1 : 0;
	return err ? err : pbench_contest_run(*c);
}

Test(contest_profile, getters_without_a_profile)
{
	char *argv[] = { "true", NULL };
	struct pbench_profile_info in = { .size = sizeof(in) };
	struct pbench_profile_diff d = { .size = sizeof(d) }, zero = { 0 };
	struct pbench_contest *c = NULL;

	ASSERT_OK(contest(&c, argv, argv, 2, PBENCH_PROFILE_OFF));
	cr_expect_eq(pbench_contest_profile_diff_nr(c, 1), -ENOENT);
	cr_expect_eq(pbench_contest_profile_diff(c, 1, 0, &d), -ENOENT);
	cr_expect_eq(pbench_contest_profile_info(c, 0, &in), -ENOENT);
	cr_expect_eq(pbench_contest_profile_diff_nr(c, 2), -EINVAL);
	cr_expect_eq(pbench_contest_profile_diff_nr(NULL, 1), -EINVAL);
	cr_expect_eq(pbench_contest_profile_diff(c, -1, 0, &d), -EINVAL);
	cr_expect_eq(pbench_contest_profile_diff(c, 1, 0, &zero), -EINVAL);
	cr_expect_eq(pbench_contest_profile_diff(c, 1, 0, NULL), -EINVAL);
	cr_expect_eq(pbench_contest_write_flamegraph(c, 1, stdout), -ENOENT);
	cr_expect_eq(pbench_contest_write_flamegraph(c, 1, NULL), -EINVAL);
	pbench_contest_free(c);
}

Test(contest_profile, a_function_only_in_b)
{
	char *a[] = { shares, "run", "20", NULL }, *b[] = { delta, "run", "20", NULL };
	struct pbench_profile_info in = { .size = sizeof(in) };
	struct pbench_profile_diff d = { .size = sizeof(d) };
	struct pbench_contest *c = NULL;
	int n, err, seen_delta = 0, seen_alpha = 0, unflagged = 0;
	double share = 0;

	find_bins();
	err = contest(&c, a, b, 6, PBENCH_PROFILE_FP);
	if (err) {
		pbench_contest_free(c);
		cr_skip_test("sampling is refused here: %s", pbench_strerror(err));
	}
	ASSERT_OK(pbench_contest_profile_info(c, 1, &in));
	cr_expect_eq(in.runs, 6);
	cr_expect_str_eq(in.unit, "ns");
	cr_expect_eq(pbench_contest_profile_diff_nr(c, 0), -ENOENT, "the reference has none");
	n = pbench_contest_profile_diff_nr(c, 1);
	cr_assert_gt(n, 3);
	for (int k = 0; k < n; k++) {
		ASSERT_OK(pbench_contest_profile_diff(c, 1, k, &d));
		cr_expect_eq(d.size, sizeof(d));
		cr_expect(!d.flagged || !unflagged, "the flagged come first (%s at %d)", d.name, k);
		unflagged |= !d.flagged;
		cr_expect(isnan(d.q) || d.q >= d.p, "%s: q %g below p %g", d.name, d.q, d.p);
		cr_expect(!d.flagged || d.q <= PBENCH_CONTEST_DEFAULT_PROFILE_FDR);
		cr_expect(!d.flagged || d.diff_lo > 0 || d.diff_hi < 0,
			  "%s flagged, its interval %g to %g holds 0", d.name, d.diff_lo, d.diff_hi);
		cr_expect(d.flagged ? d.level < 0.999 : d.level == 0.999, "%s: level %g", d.name,
			  d.level);
		share += isfinite(d.share_pct) ? d.share_pct : 0;
		if (!strcmp(d.name, "delta")) {
			seen_delta = 1;
			cr_expect_eq(d.only, 2);
			cr_expect(d.flagged, "delta not flagged: q %g", d.q);
			cr_expect_eq(d.a_samples, 0);
			cr_expect(isnan(d.ratio) && d.diff_lo > 0 && d.diff_lo <= d.diff_ns &&
				  d.diff_ns <= d.diff_hi && d.b_ns == d.diff_ns, "delta: %g (%g-%g)",
				  d.diff_ns, d.diff_lo, d.diff_hi);
			cr_expect_str_eq(d.dso, "shares", "its program matched to the reference's");
		}
		if (!strcmp(d.name, "alpha")) {
			seen_alpha = 1;
			cr_expect_eq(d.only, 0);
			cr_expect(d.ratio_lo <= d.ratio && d.ratio <= d.ratio_hi, "alpha %g (%g-%g)",
				  d.ratio, d.ratio_lo, d.ratio_hi);
		}
	}
	cr_expect(seen_delta && seen_alpha);
	cr_expect(fabs(share - 100) < 1e-6, "the shares of the difference sum to %g%%", share);
	cr_expect_eq(pbench_contest_profile_diff(c, 1, n, &d), -ENOENT);
	{	/* the differential flame graph: an SVG, delta's frame drawn */
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		cr_assert_not_null(f);
		ASSERT_OK(pbench_contest_write_flamegraph(c, 1, f));
		fclose(f);
		cr_expect(strstr(buf, "<svg") && strstr(buf, "delta"), "%.200s", buf);
		free(buf);
	}
	pbench_contest_free(c);
}
