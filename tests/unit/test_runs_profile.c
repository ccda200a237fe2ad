// SPDX-License-Identifier: MIT
/*
 * The profile of a set of runs through the public API (issue 36: pbench_runs_opts.profile,
 * pbench_runs_profile_info(), _symbol(), _dso(), pbench_runs_write_folded(), _flamegraph(),
 * _pprof(), pbench_runs_profile_annotate()): the options
 * refused, the getters without a profile, and tests/data/profile/shares (alpha, beta, gamma_
 * do 50/30/20% of its work) profiled over its runs: the shares within 2 points, symbols by
 * self, self shares summing to 100% (what could not be named included, never dropped), the
 * totals of the callers, the intervals, the folded stacks, the flame graph and pprof's file,
 * alpha's listing marked by the profile's samples. Skips where perf_event_open is
 * refused.
 */
#include <limits.h>
#include <math.h>
#include <unistd.h>

#include "testutil.h"

static char shares[PATH_MAX];

static void find_shares(void)
{
	char self[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	cr_assert_not_null(slash);
	*slash = '\0';
	snprintf(shares, sizeof(shares), "%s/data/profile/shares", self);
	cr_assert_eq(access(shares, X_OK), 0, "%s is not built (make %s)", shares, shares);
}

Test(runs_profile, options_refused)
{
	char *argv[] = { "true", NULL };
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	struct pbench_runs *r = NULL;

	o.argv = argv;
	o.profile = 3;
	cr_expect_eq(pbench_runs_check(&o), -EINVAL);
	cr_expect(strstr(pbench_strerror(-EINVAL), "pbench_profile_mode"), "%s",
		  pbench_strerror(-EINVAL));
	o.profile = PBENCH_PROFILE_FP;
	o.profile_freq = -1;
	cr_expect_eq(pbench_runs_check(&o), -EINVAL);
	o.profile_freq = NAN;
	cr_expect_eq(pbench_runs_check(&o), -EINVAL);
	o.profile_freq = 0;
	o.profile_top = -1;
	cr_expect_eq(pbench_runs_check(&o), -EINVAL);
	o.profile_top = 0;
	cr_expect_eq(pbench_runs_check(&o), 0);
	o.argv = NULL;		/* the built-in workload runs on pbench's own thread */
	cr_expect_eq(pbench_runs_check(&o), -EINVAL);
	cr_expect(strstr(pbench_strerror(-EINVAL), "--profile samples a command"), "%s",
		  pbench_strerror(-EINVAL));
	o.argv = argv;
	o.profile_event = "cpu-clokc";
	cr_expect_lt(pbench_runs_new(&r, &o), 0, "an unknown event accepted");
	cr_expect_null(r);
	cr_expect_str_eq(pbench_profile_mode_name(PBENCH_PROFILE_OFF), "off");
	cr_expect_str_eq(pbench_profile_mode_name(PBENCH_PROFILE_FP), "fp");
	cr_expect_str_eq(pbench_profile_mode_name(PBENCH_PROFILE_DWARF), "dwarf");
	cr_expect_null(pbench_profile_mode_name(3));
}

/* Runs of argv (unprepared, task-clock only) with o's profile: 0, or the error. */
static int run(struct pbench_runs **r, char **argv, long runs, int profile)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	int err;

	o.argv = argv;
	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.runs = runs;
	o.quiet = 1;
	o.profile = profile;
	err = pbench_runs_new(r, &o);
	return err ? err : pbench_runs_run(*r);
}

Test(runs_profile, getters_without_a_profile)
{
	char *argv[] = { "true", NULL };
	struct pbench_profile_info in = { .size = sizeof(in) };
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	struct pbench_runs *r = NULL;

	ASSERT_OK(run(&r, argv, 1, PBENCH_PROFILE_OFF));
	cr_expect_eq(pbench_runs_profile_info(r, 0, &in), -ENOENT);
	cr_expect_eq(pbench_runs_profile_symbol(r, 0, 0, &y), -ENOENT);
	cr_expect_eq(pbench_runs_profile_dso(r, 0, 0, &y), -ENOENT);
	cr_expect_eq(pbench_runs_write_folded(r, 0, stdout), -ENOENT);
	cr_expect_eq(pbench_runs_write_flamegraph(r, 0, stdout), -ENOENT);
	cr_expect_eq(pbench_runs_write_pprof(r, 0, stdout), -ENOENT);
	cr_expect_eq(pbench_runs_write_flamegraph(r, 0, NULL), -EINVAL);
	cr_expect_eq(pbench_runs_profile_annotate(r, 0, NULL), -EINVAL);
	pbench_runs_free(r);
}

/* The shares of alpha, beta, gamma_ (self, percent) and main's total; the miss from
 * 50/30/20, the largest. */
static double shares_of(const struct pbench_runs *r, double pct[3], double *main_total)
{
	static const char *const fn[] = { "alpha", "beta", "gamma_" };
	static const double want[] = { 50, 30, 20 };
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	double miss = 0;

	pct[0] = pct[1] = pct[2] = *main_total = NAN;
	for (int i = 0; !pbench_runs_profile_symbol(r, 0, i, &y); i++) {
		for (int k = 0; k < 3; k++)
			if (!strcmp(y.name, fn[k]))
				pct[k] = y.self_pct;
		if (!strcmp(y.name, "main"))
			*main_total = y.total_pct;
	}
	for (int k = 0; k < 3; k++)
		miss = fmax(miss, isfinite(pct[k]) ? fabs(pct[k] - want[k]) : 100);
	return miss;
}

/* The flame graph (an SVG naming alpha with the command as its title), pprof's file (gzip's
 * magic, or -ENOTSUP in a PPROF=0 build), and alpha's listing marked by the profile's samples:
 * its share of them the table's self share (within 0.5 points: the table weighs each sample
 * by its period), a name the program lacks said, with the nearest. */
static void exports_and_annotate(const struct pbench_runs *r, const struct pbench_profile_info *in)
{
	struct pbench_listing_opts lo = PBENCH_LISTING_OPTS_INIT;
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	struct pbench_listing *l = NULL;
	uint64_t fn = 0, total = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &len);
	ASSERT_OK(pbench_runs_write_flamegraph(r, 0, f));
	fclose(f);
	cr_expect(strstr(buf, "<svg") && strstr(buf, ">alpha<"), "no alpha in the SVG");
	cr_expect(strstr(buf, "/shares run 150</title>") != NULL, "the title is not the command");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	err = pbench_runs_write_pprof(r, 0, f);
	fclose(f);
	if (err != -ENOTSUP) {
		ASSERT_OK(err);
		cr_expect(len > 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b,
			  "not gzip");
	}
	free(buf);
	ASSERT_OK(pbench_runs_profile_symbol(r, 0, 0, &y));
	lo.file = shares;
	lo.symbol = "alpha";
	ASSERT_OK(pbench_listing_new(&l, &lo));
	if (pbench_listing_status(l) != PBENCH_LISTING_OK) {	/* no objdump */
		cr_log_warn("alpha not listed: %s", pbench_listing_reason(l));
		pbench_listing_free(l);
		return;
	}
	ASSERT_OK(pbench_runs_profile_annotate(r, 0, l));
	cr_assert_eq(pbench_listing_samples(l, &fn, &total), 1, "%s",
		     pbench_listing_samples_reason(l));
	cr_expect_eq(total, in->samples);
	cr_expect(fabs(100.0 * (double)fn / (double)total - y.self_pct) < 0.5,
		  "alpha: %llu of %llu samples, the table's %.2f%%", (unsigned long long)fn,
		  (unsigned long long)total, y.self_pct);
	pbench_listing_free(l);
	l = NULL;
	lo.symbol = "alpah";
	ASSERT_OK(pbench_listing_new(&l, &lo));
	cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_SYMBOL);
	cr_expect(strstr(pbench_listing_reason(l), "did you mean 'alpha'?") != NULL, "%s",
		  pbench_listing_reason(l));
	ASSERT_OK(pbench_runs_profile_annotate(r, 0, l));
	cr_expect_eq(pbench_listing_samples(l, NULL, NULL), 0);
	pbench_listing_free(l);
}

Test(runs_profile, shares_of_the_runs)
{
	char *argv[] = { shares, "run", "150", NULL };
	struct pbench_profile_info in = { .size = sizeof(in) };
	struct pbench_profile_symbol y = { .size = sizeof(y) }, prev = { .size = sizeof(prev) };
	struct pbench_runs *r = NULL;
	double pct[3], main_total, miss = 100, self_sum = 0, dso_sum = 0;
	int tries = 0, err;
	char *folded = NULL;
	size_t len = 0;
	FILE *f;

	find_shares();
	while (tries++ < 3 && miss > 2) {
		pbench_runs_free(r);
		r = NULL;
		err = run(&r, argv, 3, PBENCH_PROFILE_FP);
		if (err && strstr(pbench_strerror(err), "cannot profile"))
			cr_skip_test("sampling is refused here: %s", pbench_strerror(err));
		ASSERT_OK(err);
		miss = shares_of(r, pct, &main_total);
		cr_log_info("alpha %.2f%%, beta %.2f%%, gamma_ %.2f%%, main's total %.2f%%", pct[0],
			    pct[1], pct[2], main_total);
	}
	cr_expect_leq(miss, 2, "alpha %.2f%%, beta %.2f%%, gamma_ %.2f%%: want 50/30/20", pct[0],
		      pct[1], pct[2]);
	cr_expect_geq(main_total, 95, "main's total %.2f%%: its callees' samples", main_total);
	ASSERT_OK(pbench_runs_profile_info(r, 0, &in));
	cr_expect_eq(in.runs, 3);
	cr_expect_eq(in.mode, PBENCH_PROFILE_FP);
	cr_expect_str_eq(in.event, "cpu-clock");
	cr_expect_str_eq(in.unit, "ns");
	cr_expect_gt(in.samples, 1000);
	cr_expect_null(in.status);
	cr_expect(in.per_run_lo <= in.per_run && in.per_run <= in.per_run_hi);
	cr_expect_gt(in.nr_symbols, 3);
	/* by self, highest first; every sample's self in one symbol: the shares sum to 100 */
	for (int i = 0; i < in.nr_symbols; i++) {
		ASSERT_OK(pbench_runs_profile_symbol(r, 0, i, &y));
		if (i)
			cr_expect_geq(prev.self, y.self, "symbol %d (%s) above %d", i, y.name, i - 1);
		cr_expect_geq(y.total, y.self, "%s: total below self", y.name);
		cr_expect_leq(y.total_pct, 100.0 + 1e-9);
		self_sum += y.self_pct;
		prev = y;
	}
	cr_expect_eq(pbench_runs_profile_symbol(r, 0, in.nr_symbols, &y), -ENOENT);
	cr_expect_float_eq(self_sum, 100, 1e-6);
	for (int i = 0; !pbench_runs_profile_dso(r, 0, i, &y); i++)
		dso_sum += y.self_pct;
	cr_expect_float_eq(dso_sum, 100, 1e-6);
	ASSERT_OK(pbench_runs_profile_symbol(r, 0, 0, &y));
	cr_expect_str_eq(y.name, "alpha");
	cr_expect(strstr(y.dso, "/shares") != NULL, "%s", y.dso);
	cr_expect(y.file && strstr(y.file, "shares.c"), "%s", y.file ? y.file : "no file");
	cr_expect(y.self_lo <= y.self && y.self <= y.self_hi, "%g in [%g, %g]", y.self, y.self_lo,
		  y.self_hi);
	/* the folded stacks: each line's count summed, the samples */
	f = open_memstream(&folded, &len);
	ASSERT_OK(pbench_runs_write_folded(r, 0, f));
	fclose(f);
	{
		unsigned long long sum = 0, n;
		for (char *line = strtok(folded, "\n"); line; line = strtok(NULL, "\n")) {
			char *sp = strrchr(line, ' ');

			if (sp && sscanf(sp, " %llu", &n) == 1)
				sum += n;
		}
		cr_expect_eq(sum, in.samples, "folded counts %llu, samples %llu", sum,
			     (unsigned long long)in.samples);
	}
	free(folded);
	exports_and_annotate(r, &in);
	y.size = 0;
	cr_expect_eq(pbench_runs_profile_symbol(r, 0, 0, &y), -EINVAL);
	pbench_runs_free(r);
	TEST_RETRIED("runs_profile::shares_of_the_runs", tries - 1);
}
