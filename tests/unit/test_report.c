/* SPDX-License-Identifier: MIT */
/*
 * Measured numbers are printed with the digits the measurement supports, and no more; the
 * text report says what stopped sampling, explains outliers from their noise snapshots and
 * warns; the JSON report holds every sample, with null for what is unknown.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "measure/measure.h"

Test(report, value_and_error)
{
	static const struct {
		double value, err;
		const char *unit, *want;
	} rows[] = {
		{ 12.3456, 0.0123, NULL, "12.346 ± 0.012" },	/* 2 significant digits of err */
		{ 12.3456, 0.15, NULL, "12.35 ± 0.15" },
		{ 1234.6, 56.7, NULL, "1235 ± 57" },
		{ 1234.6, 567, NULL, "1230 ± 570" },		/* rounded, no exponent notation */
		{ 1.2345e6, 1.5e3, "ns", "1.2345 ± 0.0015 ms" },	/* scaled by the value */
		{ 830.4, 2.25, "ns", "830.4 ± 2.2 ns" },
		{ 54.577e6, 0.026e6, "ns", "54.577 ± 0.026 ms" },
		{ 2.5e9, 1e7, "ns", "2.500 ± 0.010 s" },
		{ 42.0, 0, NULL, "42" },				/* no error: 6 significant */
		{ 3.14159265, NAN, "cycles", "3.14159 cycles" },
	};
	char buf[64];

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		pbench_format_value(buf, sizeof(buf), rows[i].value, rows[i].err, rows[i].unit);
		cr_assert_str_eq(buf, rows[i].want, "row %zu: '%s'", i, buf);
	}
}

Test(report, ns_with_digits)
{
	static const struct {
		double ns;
		int digits;
		const char *want;
	} rows[] = {
		{ 123456, 3, "123 us" },
		{ 123456, 2, "123 us" },	/* integer part kept, never 1.2e+02 */
		{ 1234567, 4, "1.235 ms" },
		{ 0.75, 2, "0.75 ns" },
		{ 999, 3, "999 ns" },
		{ 1000, 3, "1.00 us" },
		{ 3.2e9, 2, "3.2 s" },
	};
	char buf[64];

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		pbench_format_ns(buf, sizeof(buf), rows[i].ns, rows[i].digits);
		cr_assert_str_eq(buf, rows[i].want, "row %zu: '%s'", i, buf);
	}
}

/* A figure for people (issue 37: Markdown and history text printed "6.89995e+07" and
 * "2.67e+04"): a time in its unit, a count grouped by thousands, never an exponent where
 * fixed notation fits. */
Test(report, figure_for_people)
{
	static const struct {
		double v;
		const char *unit, *want;
	} rows[] = {
		{ 68999500, "ns", "69.00 ms" },
		{ 26700, "", "26,700" },
		{ 26700, NULL, "26,700" },
		{ 81117.3, "/sec", "81,117 /sec" },
		{ -1234567.8, "", "-1,234,568" },
		{ 999.96, "", "1,000" },
		{ 999.4, "", "999.4" },
		{ 75.3333, "", "75.33" },
		{ 75, "", "75" },	/* a whole count: no decimals invented */
		{ 1, "", "1" },
		{ 1.33333, "", "1.333" },
		{ 0.0461838, "CPUs", "0.04618 CPUs" },
		{ 0.000123, "", "0.0001230" },
		{ 9.99996, "", "10.00" },
		{ 0, "", "0" },
		{ -0.0, "", "0" },
		{ 2e16, "", "2e+16" },
		{ NAN, "ns", "n/a" },
		{ INFINITY, "", "n/a" },
	};
	char buf[64];

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		pb_format_figure(buf, sizeof(buf), rows[i].v, rows[i].unit);
		cr_assert_str_eq(buf, rows[i].want, "row %zu: '%s'", i, buf);
	}
}

/* The inverse: the one grammar of numbers people give, whole text or nothing. */
Test(report, parse_number)
{
	static const struct {
		const char *s;
		unsigned flags;
		int err;
		double want;
	} rows[] = {
		{ "42", 0, 0, 42 },
		{ "-1.5e3", 0, 0, -1500 },
		{ "+.5", 0, 0, 0.5 },
		{ "7.", 0, 0, 7 },
		{ "2.0", PBENCH_FORMAT_PARSE_INT, 0, 2 },
		{ "12.5%", PBENCH_FORMAT_PARSE_PCT, 0, 12.5 },
		{ "12.5%", 0, -EINVAL, 0 },			/* '%' only when asked */
		{ "2.5", PBENCH_FORMAT_PARSE_INT, -EINVAL, 0 },
		{ "", 0, -EINVAL, 0 },
		{ " 1", 0, -EINVAL, 0 },			/* nothing before or after */
		{ "1 ", 0, -EINVAL, 0 },
		{ "0x10", 0, -EINVAL, 0 },
		{ "inf", 0, -EINVAL, 0 },
		{ "nan", 0, -EINVAL, 0 },
		{ "1e", 0, -EINVAL, 0 },
		{ ".", 0, -EINVAL, 0 },
		{ "%", PBENCH_FORMAT_PARSE_PCT, -EINVAL, 0 },
		{ "1e999", 0, -ERANGE, 0 },
	};

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		double v = -12345;
		int err = pbench_format_parse(rows[i].s, rows[i].flags, &v);

		cr_assert_eq(err, rows[i].err, "'%s': %d", rows[i].s, err);
		cr_assert_eq(v, err ? -12345 : rows[i].want, "'%s': %g", rows[i].s, v);
	}
	cr_assert_eq(pbench_format_parse(NULL, 0, &(double){ 0 }), -EINVAL);
}

/* ---- the reports of a result and of a comparison ----------------------------------------- */

#define SLEEPER 7		/* the region sample that sleeps */

static volatile uint64_t sink;

/* About 10 us of work that the compiler cannot remove. */
static void spin(void)
{
	for (uint64_t i = 0; i < 20000; i++)
		sink += i;
}

/* Work that changes from one sample to the next (setup counts the batches): samples that
 * differ by tens of percent, so that no tiny target is met by chance. On a coarse clock,
 * identical work can give identical samples, a standard error of 0 and any target met. */
static void bump(void *ctx)
{
	++*(unsigned *)ctx;
}

static void varying_fn(void *ctx)
{
	uint64_t n = 100 * (*(unsigned *)ctx % 3 + 1);

	for (uint64_t i = 0; i < n; i++)
		sink += i;
}

static void empty_fn(void *ctx)
{
	(void)ctx;
}

/* 20 region samples of the same work; sample `sleeper` (if >= 0) also sleeps 2 ms, which is
 * a voluntary context switch and 2 ms not running in its noise snapshot. */
static struct pbench_result *region_result(int sleeper, const char *events)
{
	struct pbench_region *g;
	struct pbench_result *r;

	cr_assert_eq(pbench_region_new(&g, 1, events), 0);
	for (int i = 0; i < 20; i++) {
		pbench_region_begin(g);
		spin();
		if (i == sleeper)
			usleep(2000);
		pbench_region_end(g);
	}
	cr_assert_eq(pbench_region_result(&r, g), 0);
	pbench_region_free(g);
	return r;
}

/* What a writer puts on a stream, as a string (free it). */
#define CAPTURE(out, call) \
	do { \
		size_t len_; \
		FILE *f_ = open_memstream(&(out), &len_); \
		cr_assert_not_null(f_); \
		cr_assert_eq((call), 0, "%s failed", #call); \
		fclose(f_); \
	} while (0)

/* The line of text that starts with prefix (after indentation), or NULL. */
static const char *line_with(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;

		while (*q == ' ')
			q++;
		if (!strncmp(q, prefix, strlen(prefix)))
			return p;
	}
	return NULL;
}

Test(report, text_figures_with_the_errors_digits)
{
	struct pbench_result *r = region_result(-1, NULL);
	const struct pbench_summary *s = pbench_result_summary(r);
	char *text, want[160], v[96];

	CAPTURE(text, pbench_result_write_text(r, f_, "spin"));
	cr_assert(!strncmp(text, "spin: 20 samples × 1 iteration\n", 31), "%s", text);
	/* The mean as pbench_format_value gives it: the error's 2 digits, a scaled unit. */
	pbench_format_value(v, sizeof(v), s->mean, s->sem, "ns");
	snprintf(want, sizeof(want), "  mean          %s per iteration (standard error, ", v);
	cr_assert_not_null(strstr(text, want), "no '%s' in:\n%s", want, text);
	cr_assert_not_null(strstr(v, " ± "), "%s", v);
	for (size_t i = 0; i < 4; i++) {
		static const char *const labels[] = { "95% interval", "median", "min", "trimmed mean" };

		cr_assert_not_null(line_with(text, labels[i]), "no '%s' in:\n%s", labels[i], text);
	}
	cr_assert_not_null(strstr(text, "(raw speed)"));
	cr_assert_not_null(strstr(text, "  overhead      "));
	cr_assert_not_null(strstr(text, " per iteration, subtracted\n"));
	cr_assert_not_null(strstr(text, "  stopped       the caller took the samples (region API)\n"));
	cr_assert_not_null(strstr(text, "outliers (Tukey) "));
	free(text);
	pbench_result_free(r);
}

Test(report, outlier_sample_explained_by_its_noise)
{
	struct pbench_result *r = region_result(SLEEPER, "task-clock");
	struct pbench_noise n = { .size = sizeof(n) }, *nz = &n;
	char *text, head[32];
	const char *line;

	cr_assert_eq(pbench_result_noise(r, SLEEPER, nz), 0);

	/* The facts first: usleep gives the CPU away. */
	cr_assert_geq(nz->ctx_voluntary, 1);
	CAPTURE(text, pbench_result_write_text(r, f_, "spin"));
	snprintf(head, sizeof(head), "sample %d: +", SLEEPER);
	line = line_with(text, head);
	cr_assert_not_null(line, "no line for sample %d in:\n%s", SLEEPER, text);
	{
		char l[256];

		snprintf(l, sizeof(l), "%.*s", (int)(strchr(line, '\n') - line), line);
		cr_assert_not_null(strstr(l, " ms over the median sample: "), "%s", l);
		cr_assert(strstr(l, "1 voluntary context switch") ||
			  strstr(l, " voluntary context switches"), "%s", l);
		if (isnan(nz->not_running_ns))
			cr_log_warn("task-clock not counted: time not running is unknown here");
		else
			cr_assert_not_null(strstr(l, " ms not running"), "%s", l);
	}
	/* The events asked for are reported per iteration. */
	cr_assert_not_null(strstr(text, "\n    task-clock "), "counters missing:\n%s", text);
	free(text);
	pbench_result_free(r);
}

Test(report, clean_snapshot_says_no_noise)
{
	struct pbench_result *r = region_result(-1, NULL);
	char *text;

	/* Make every sample but the last look the same and the last an outlier with a clean
	 * snapshot: only the report is under test here. */
	for (size_t i = 0; i < r->nr; i++) {
		r->x[i] = r->samples[i].ns_per_iter = i + 1 == r->nr ? 5000 : 1000 + (double)(i % 3);
		memset(&r->noise[i], 0, sizeof(r->noise[i]));
	}
	cr_assert_eq(pbench_stats_summary(r->x, r->nr, NULL, &r->summary), 0);
	CAPTURE(text, pbench_result_write_text(r, f_, NULL));
	cr_assert_not_null(strstr(text, "    sample 19: +4.0 us over the median sample: no noise "
				  "recorded\n"), "%s", text);
	cr_assert(!strncmp(text, "20 samples", 10), "a NULL label prints none:\n%s", text);
	free(text);
	pbench_result_free(r);
}

/* Every flag's warning is there when the flag is, and absent when not. */
static void assert_warnings(const struct pbench_result *r, const char *text)
{
	static const struct {
		unsigned flag;
		const char *words;
	} rows[] = {
		{ PBENCH_RESULT_SUSPICIOUS, "probably optimized away" },
		{ PBENCH_RESULT_UNOPTIMIZED, "built without optimization" },
		{ PBENCH_RESULT_OVERHEAD_DOMINATES, "overhead" },
		{ PBENCH_RESULT_NOISY, "warning: noisy" },
		{ PBENCH_RESULT_CLAMPED, "faster than the empty batch" },
	};

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		const char *w = strstr(text, "warning: ");
		int found = 0;

		for (; w; w = strstr(w + 1, "warning: ")) {
			const char *end = strchr(w, '\n');

			found |= memmem(w, (size_t)(end - w), rows[i].words,
					strlen(rows[i].words)) != NULL;
		}
		cr_assert_eq(found, !!(pbench_result_flags(r) & rows[i].flag),
			     "flag %#x, words '%s':\n%s", rows[i].flag, rows[i].words, text);
	}
}

Test(report, warnings_for_an_empty_function)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_result *r;
	char *text;

	o.warmup_ms = 0;
	o.budget_ms = 200;
	o.min_sample_ms = 0.2;
	cr_assert_eq(pbench_measure(&r, empty_fn, NULL, &o), 0);
	cr_assert(pbench_result_flags(r) & PBENCH_RESULT_SUSPICIOUS,
		  "an empty function is not flagged suspicious (flags %#x)", pbench_result_flags(r));
	CAPTURE(text, pbench_result_write_text(r, f_, "empty"));
	cr_assert_not_null(strstr(text, "warning: suspiciously fast"), "%s", text);
	assert_warnings(r, text);
	free(text);
	pbench_result_free(r);
}

Test(report, stop_rule_in_words)
{
	static const struct {
		double target_sem_pct;
		size_t min_samples, max_samples;
		int rule;
		const char *words;
	} rows[] = {
		{ 50, 3, 100000, PBENCH_STOP_SEM, "the standard error reached 50% of the mean" },
		{ 1e-9, 3, 5, PBENCH_STOP_MAX_SAMPLES, "5 samples, the maximum, were taken before "
						       "the standard error reached 1e-09%" },
		{ 1e-9, 3, 100000, PBENCH_STOP_BUDGET, "the time budget of 150 ms was spent before "
						       "the standard error reached 1e-09%" },
	};

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
		struct pbench_result *r;
		char *text, want[160];
		unsigned batches = 0;

		o.setup = bump;
		o.warmup_ms = 0;
		/* The rows stopped by the standard error or by the samples' count have a budget
		 * they never reach: with 150 ms, a sample a stalled CPU made long spent it first
		 * and the row stopped by the budget (pinned to a CPU a SCHED_FIFO task held 200
		 * ms of every 250: the standard error's row, 1 in 10). */
		o.budget_ms = rows[i].rule == PBENCH_STOP_BUDGET ? 150 : 5000;
		o.min_sample_ms = 0.2;
		o.target_sem_pct = rows[i].target_sem_pct;
		o.min_samples = rows[i].min_samples;
		o.max_samples = rows[i].max_samples;
		cr_assert_eq(pbench_measure(&r, varying_fn, &batches, &o), 0);
		cr_assert_eq(pbench_result_stop_rule(r), rows[i].rule, "row %zu: stopped by %s", i,
			     pbench_stop_rule_name(pbench_result_stop_rule(r)));
		CAPTURE(text, pbench_result_write_text(r, f_, "spin"));
		snprintf(want, sizeof(want), "  stopped       %s", rows[i].words);
		cr_assert_not_null(strstr(text, want), "row %zu:\n%s", i, text);
		assert_warnings(r, text);
		free(text);
		pbench_result_free(r);
	}
}

/* ---- JSON ---- */

static json_t *parse(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	cr_assert_not_null(root, "not JSON (line %d: %s):\n%s", jerr.line, jerr.text, text);
	return root;
}

/* snake_case keys everywhere, except the event names that key "counters"; no figure without
 * its unit (a bare "mean" or "time_enabled"). */
static void assert_keys(json_t *j, const char *parent)
{
	static const char *const bare[] = { "mean", "median", "min", "max", "sem", "stddev", "mad",
					    "q1", "q3", "ci_lo", "ci_hi", "trimmed_mean", "overhead",
					    "not_running", "time_enabled", "time_running",
					    "resolution", "warmup", "budget", "diff", "diff_lo",
					    "diff_hi", "ns", "cv", "spread" };
	regex_t re;
	const char *key;
	json_t *v;
	size_t i;

	cr_assert_eq(regcomp(&re, "^[a-z][a-z0-9_]*$", REG_EXTENDED | REG_NOSUB), 0);
	if (json_is_object(j)) {
		json_object_foreach(j, key, v) {
			if (strcmp(parent, "counters")) {
				cr_assert_eq(regexec(&re, key, 0, NULL, 0), 0, "key '%s'", key);
				for (i = 0; i < PB_ARRAY_SIZE(bare); i++)
					cr_assert_str_neq(key, bare[i], "'%s' without a unit", key);
			}
			assert_keys(v, key);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			assert_keys(v, parent);
	}
	regfree(&re);
}

/* Summary fields that are not times; every other one must be in ns. */
static void assert_summary_units(json_t *s)
{
	static const char *const unitless[] = { "n", "ci_level", "cv_pct", "spread_pct",
						"outliers_low_mild", "outliers_low_severe",
						"outliers_high_mild", "outliers_high_severe", "mvalue",
						"bimodal" };
	const char *key;
	json_t *v;

	cr_assert(json_is_object(s));
	json_object_foreach(s, key, v) {
		int ok = strlen(key) > 3 && !strcmp(key + strlen(key) - 3, "_ns");

		for (size_t i = 0; i < PB_ARRAY_SIZE(unitless); i++)
			ok |= !strcmp(key, unitless[i]);
		cr_assert(ok, "summary key '%s' has no unit", key);
	}
	cr_assert_eq(json_object_size(s), 22, "every field of pbench_summary but size");
}

Test(report, json_full_data)
{
	struct pbench_result *r = region_result(SLEEPER, "task-clock,cycles");
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	json_t *root, *samples, *s, *k;
	char *text;

	/* Unknowns must come out as null: make two of them NaN. */
	r->noise[3].not_running_ns = NAN;
	r->summary.mvalue = NAN;
	CAPTURE(text, pbench_result_write_json(r, f_, "spin"));
	root = parse(text);
	cr_assert_eq(json_integer_value(json_object_get(root, "schema")), PBENCH_JSON_SCHEMA);
	cr_assert(json_is_integer(json_object_get(root, "schema")));
	cr_assert_str_eq(json_string_value(json_object_get(root, "pbench_version")),
			 pbench_version());
	cr_assert_str_eq(json_string_value(json_object_get(root, "label")), "spin");
	cr_assert_str_eq(json_string_value(json_object_get(root, "stop_rule")), "fixed");
	cr_assert(json_is_array(json_object_get(root, "flags")));
	cr_assert_eq(json_integer_value(json_object_get(root, "iterations")), 1);
	cr_assert_eq(pbench_clock_info(&ci), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(root, "clock"),
							       "kind")), pbench_clock_kind_name(ci.kind));
	cr_assert_eq((uint64_t)json_integer_value(json_object_get(json_object_get(root, "clock"),
								  "hz")), ci.hz);
	cr_assert(json_is_false(json_object_get(json_object_get(root, "settings"),
						"keep_overhead")));
	cr_assert_eq(json_array_size(json_object_get(json_object_get(root, "settings"), "events")),
		     2);
	assert_summary_units(json_object_get(root, "summary"));
	cr_assert(json_is_null(json_object_get(json_object_get(root, "summary"), "mvalue")));

	samples = json_object_get(root, "samples");
	cr_assert_eq(json_array_size(samples), 20);
	for (size_t i = 0; i < 20; i++) {
		const struct pbench_sample *p = pbench_result_sample(r, i);
		struct pbench_noise pn = { .size = sizeof(pn) };

		cr_assert_eq(pbench_result_noise(r, i, &pn), 0);
		s = json_array_get(samples, i);
		/* %.17g both ways: the doubles come back exactly. */
		cr_assert_eq(json_real_value(json_object_get(s, "ns_per_iter")), p->ns_per_iter);
		cr_assert_eq((uint64_t)json_integer_value(json_object_get(s, "ticks")), p->ticks);
		cr_assert_eq((uint64_t)json_integer_value(json_object_get(
			json_object_get(s, "noise"), "ctx_voluntary")), pn.ctx_voluntary);
	}
	cr_assert(json_is_null(json_object_get(json_object_get(json_array_get(samples, 3),
							       "noise"), "not_running_ns")));
	k = json_object_get(json_object_get(json_array_get(samples, 0), "counters"), "task-clock");
	cr_assert(json_is_number(json_object_get(k, "per_iter")));
	cr_assert(json_is_integer(json_object_get(k, "value")));
	cr_assert_float_eq(json_number_value(json_object_get(k, "running_pct")), 100, 1e-9);
	/* The events' status and reason once, not in every sample. */
	k = json_object_get(root, "events");
	cr_assert_eq(json_array_size(k), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(k, 0), "name")),
			 "task-clock");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(k, 0), "status")), "ok");
	cr_assert(json_is_null(json_object_get(json_array_get(k, 0), "reason")));
	if (!pbench_cpu_has_pmu()) {
		/* Never a number for an event that was not counted: null, with the reason once. */
		cr_assert(json_is_null(json_object_get(json_object_get(json_array_get(samples, 0),
									  "counters"), "cycles")));
		cr_assert_str_eq(json_string_value(json_object_get(json_array_get(k, 1), "status")),
				 "not-supported");
		cr_assert(json_is_string(json_object_get(json_array_get(k, 1), "reason")));
	}
	assert_keys(root, "");
	json_decref(root);
	free(text);
	pbench_result_free(r);
}

/* A measured result keeps the options it was measured with; the JSON gives them back. */
Test(report, json_settings_of_a_measurement)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_result *r;
	unsigned batches = 0;
	json_t *root, *set;
	char *text;

	o.setup = bump;
	o.warmup_ms = 0;
	o.budget_ms = 150;
	o.min_sample_ms = 0.2;
	o.target_sem_pct = 50;
	o.min_samples = 3;
	o.max_samples = 7;
	cr_assert_eq(pbench_measure(&r, varying_fn, &batches, &o), 0);
	CAPTURE(text, pbench_result_write_json(r, f_, "settings"));
	root = parse(text);
	set = json_object_get(root, "settings");
	cr_assert_float_eq(json_number_value(json_object_get(set, "budget_ms")), 150, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(set, "min_sample_ms")), 0.2, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(set, "target_sem_pct")), 50, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(set, "warmup_ms")), 0, 1e-9);
	cr_assert_eq(json_integer_value(json_object_get(set, "min_samples")), 3);
	cr_assert_eq(json_integer_value(json_object_get(set, "max_samples")), 7);
	cr_assert(json_is_null(json_object_get(set, "iterations")), "automatic count: null");
	json_decref(root);
	free(text);
	pbench_result_free(r);
}

/* Any summary, as pbench analyze prints it: 1..10 (mean 5.5, sem 0.957, t(9) 2.262). */
Test(report, summary_text_of_plain_numbers)
{
	static const char *const want[] = {
		"one to ten: 10 samples\n",
		"  mean          5.50 ± 0.96 (standard error, 17% of the mean)\n",
		"  95% interval  3.33 .. 7.67\n",
		"  median        5.50\n",
		"  min           1.00\n",
		"  trimmed mean  5.50\n",
		"  max           10.00\n",
		"  stddev        3.03\n",
		"  MAD           2.50\n",
		"  cv 55.05%, spread 900.00%; outliers (Tukey) 0 low, 0 high, 0 of them severe\n",
	};
	double x[10];
	struct pbench_summary sum = { .size = sizeof(sum) };
	char *text, *p;
	FILE *full;

	for (int i = 0; i < 10; i++)
		x[i] = i + 1;
	cr_assert_eq(pbench_stats_summary(x, 10, NULL, &sum), 0);
	CAPTURE(text, pbench_summary_write_text(&sum, f_, "one to ten", NULL));
	p = text;
	for (size_t i = 0; i < PB_ARRAY_SIZE(want); i++) {
		cr_assert(!strncmp(p, want[i], strlen(want[i])), "line %zu: want '%s' in:\n%s", i,
			  want[i], text);
		p += strlen(want[i]);
	}
	cr_assert_eq(*p, '\0', "nothing after the summary line: '%s'", p);
	free(text);
	full = fopen("/dev/full", "w");
	if (full) {
		cr_assert_eq(pbench_summary_write_text(&sum, full, "x", NULL), -ENOSPC);
		fclose(full);
	}
	sum.n = 0;
	cr_assert_eq(pbench_summary_write_text(&sum, stdout, "x", NULL), -EINVAL);
}

Test(report, json_of_no_samples)
{
	struct pbench_region *g;
	struct pbench_result *r;
	json_t *root;
	char *text;

	cr_assert_eq(pbench_region_new(&g, 1, NULL), 0);
	cr_assert_eq(pbench_region_result(&r, g), 0);
	pbench_region_free(g);
	CAPTURE(text, pbench_result_write_json(r, f_, NULL));
	root = parse(text);
	cr_assert(json_is_null(json_object_get(root, "label")));
	cr_assert(json_is_null(json_object_get(root, "summary")));
	cr_assert_eq(json_array_size(json_object_get(root, "samples")), 0);
	json_decref(root);
	free(text);
	CAPTURE(text, pbench_result_write_text(r, f_, "none"));
	cr_assert_str_eq(text, "none: 0 samples × 1 iteration\n");
	free(text);
	pbench_result_free(r);
}

/* ---- comparisons ---- */

/* A comparison built from fixed samples, as pbench_compare fills it. */
static struct pbench_comparison make_comparison(double shift_b, int verdict)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.999 };
	struct pbench_comparison c = { .size = sizeof(c), .verdict = verdict, .pairs = 40 };
	static struct pbench_summary sa, sb;	/* behind c's pointers, as the library's block is */
	static struct pbench_welch w;
	double a[40], b[40];

	for (int i = 0; i < 40; i++) {
		a[i] = 1000 + (i % 7) * 3.0;
		b[i] = 1000 + shift_b + (i % 5) * 4.0;
	}
	sa.size = sb.size = sizeof(sa);
	cr_assert_eq(pbench_stats_summary(a, 40, NULL, &sa), 0);
	cr_assert_eq(pbench_stats_summary(b, 40, NULL, &sb), 0);
	w.size = sizeof(w);
	cr_assert_eq(pbench_stats_welch(a, 40, b, 40, &so, &w), 0);
	c.a = &sa;
	c.b = &sb;
	c.welch = &w;
	c.ratio = w.ratio;
	c.ratio_lo = w.ratio_lo;
	c.ratio_hi = w.ratio_hi;
	c.confidence = 0.999;
	c.same_threshold_pct = 1;
	{	/* b against a, as pbench_compare() fills it */
		struct pbench_welch wb = { .size = sizeof(wb) };

		cr_assert_eq(pbench_stats_welch(b, 40, a, 40, &so, &wb), 0);
		c.ratio_b_to_a = wb.ratio;
		c.ratio_b_to_a_lo = wb.ratio_lo;
		c.ratio_b_to_a_hi = wb.ratio_hi;
		c.verdict_b = verdict == PBENCH_VERDICT_FASTER ? PBENCH_VERDICT_SLOWER :
			      verdict == PBENCH_VERDICT_SLOWER ? PBENCH_VERDICT_FASTER : verdict;
	}
	return c;
}

Test(report, comparison_text)
{
	static const struct {
		double shift_b;
		int verdict;
		const char *words;
	} rows[] = {
		{ 100, PBENCH_VERDICT_FASTER, "verdict: unrolled is 1." },
		{ -100, PBENCH_VERDICT_SLOWER, "verdict: unrolled is 1." },
		{ 0.5, PBENCH_VERDICT_SAME, "verdict: same: the ratio's interval lies within " },
		{ 0.5, PBENCH_VERDICT_UNDECIDED, "verdict: undecided: " },
	};

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		struct pbench_comparison c = make_comparison(rows[i].shift_b, rows[i].verdict);
		char *text, v[96], want[192];

		CAPTURE(text, pbench_comparison_write_text(&c, f_, "plain", "unrolled"));
		cr_assert_not_null(strstr(text, rows[i].words), "row %zu:\n%s", i, text);
		cr_assert(!strncmp(text, "plain vs unrolled: 40 samples of each", 37), "%s", text);
		pbench_format_value(v, sizeof(v), c.a->mean, c.a->sem, "ns");
		snprintf(want, sizeof(want), "  plain         %s per iteration (median ", v);
		cr_assert_not_null(strstr(text, want), "no '%s' in:\n%s", want, text);
		/* The confidence the comparison was made at. */
		cr_assert_not_null(strstr(text, "(99.9% interval "), "row %zu:\n%s", i, text);
		cr_assert_not_null(strstr(text, "  Welch           t = "), "%s", text);
		/* A factor, as people say it: "1.099x faster than", not "faster by 9.9%"; said
		 * of b against a, the direction of every ratio (time of b / time of a). */
		if (rows[i].verdict <= PBENCH_VERDICT_SLOWER) {
			double f = c.verdict_b == PBENCH_VERDICT_FASTER ? 1 / c.ratio_b_to_a :
				   c.ratio_b_to_a;

			/* three decimals below 1.1 (1.099x, not 1.10x), two up to 10 */
			snprintf(want, sizeof(want), "verdict: unrolled is %.*fx %s than plain "
				 "(significant at 99.9%%)\n", f < 1.1 ? 3 : 2, f, c.verdict_b ==
				 PBENCH_VERDICT_FASTER ? "faster" : "slower");
			cr_assert(f > 1 && f < 10, "row %zu: a factor of %g", i, f);
			cr_assert_not_null(strstr(text, want), "no '%s' in:\n%s", want, text);
		}
		free(text);
	}
}

Test(report, comparison_json)
{
	struct pbench_comparison c = make_comparison(100, PBENCH_VERDICT_FASTER);
	json_t *root, *w;
	char *text;

	CAPTURE(text, pbench_comparison_write_json(&c, f_, "plain", "unrolled"));
	root = parse(text);
	cr_assert_eq(json_integer_value(json_object_get(root, "schema")), PBENCH_JSON_SCHEMA);
	cr_assert_str_eq(json_string_value(json_object_get(root, "verdict")), "faster");
	cr_assert_str_eq(json_string_value(json_object_get(root, "label_b")), "unrolled");
	cr_assert_eq(json_integer_value(json_object_get(root, "pairs")), 40);
	cr_assert_eq(json_real_value(json_object_get(root, "ratio")), c.ratio);
	w = json_object_get(root, "welch");
	cr_assert_eq(json_real_value(json_object_get(w, "p")), c.welch->p);
	cr_assert_eq(json_real_value(json_object_get(w, "df")), c.welch->df);
	cr_assert_eq(json_real_value(json_object_get(w, "diff_ns")), c.welch->diff);
	assert_summary_units(json_object_get(root, "a"));
	cr_assert_eq(json_real_value(json_object_get(json_object_get(root, "b"), "mean_ns")),
		     c.b->mean);
	assert_keys(root, "");
	json_decref(root);
	free(text);

	/* No test (a mean 0, no interval): null, never NaN, and the text says why. */
	c.ratio = c.ratio_lo = c.ratio_hi = NAN;
	c.ratio_b_to_a = c.ratio_b_to_a_lo = c.ratio_b_to_a_hi = NAN;
	c.verdict = PBENCH_VERDICT_UNDECIDED;
	CAPTURE(text, pbench_comparison_write_json(&c, f_, NULL, NULL));
	root = parse(text);
	cr_assert(json_is_null(json_object_get(root, "ratio")));
	cr_assert(json_is_null(json_object_get(root, "ratio_lo")));
	cr_assert(json_is_null(json_object_get(root, "welch")));
	cr_assert(json_is_null(json_object_get(root, "label_a")));
	json_decref(root);
	free(text);
	CAPTURE(text, pbench_comparison_write_text(&c, f_, NULL, NULL));
	cr_assert_not_null(strstr(text, "a vs b: "), "%s", text);
	cr_assert_not_null(strstr(text, "ratio b/a       none"), "%s", text);
	free(text);
}

/* ---- errors ---- */

Test(report, write_error_is_the_writes)
{
	struct pbench_result *r = region_result(-1, NULL);
	struct pbench_comparison c = make_comparison(100, PBENCH_VERDICT_FASTER);
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_assert_eq(pbench_result_write_text(r, f, "spin"), -ENOSPC);
	clearerr(f);
	cr_assert_eq(pbench_result_write_json(r, f, "spin"), -ENOSPC);
	clearerr(f);
	cr_assert_eq(pbench_comparison_write_text(&c, f, "a", "b"), -ENOSPC);
	clearerr(f);
	cr_assert_eq(pbench_comparison_write_json(&c, f, "a", "b"), -ENOSPC);
	fclose(f);
	pbench_result_free(r);
}

Test(report, bad_arguments)
{
	struct pbench_result *r = region_result(-1, NULL);
	struct pbench_comparison c = make_comparison(100, PBENCH_VERDICT_FASTER);
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	cr_assert_eq(pbench_result_write_text(NULL, f, "x"), -EINVAL);
	cr_assert_eq(pbench_result_write_json(NULL, f, "x"), -EINVAL);
	cr_assert_eq(pbench_result_write_text(r, NULL, "x"), -EINVAL);
	cr_assert_eq(pbench_result_write_json(r, NULL, "x"), -EINVAL);
	cr_assert_eq(pbench_comparison_write_text(NULL, f, "a", "b"), -EINVAL);
	cr_assert_eq(pbench_comparison_write_json(NULL, f, "a", "b"), -EINVAL);
	/* A label JSON cannot carry (not UTF-8). */
	cr_assert_eq(pbench_result_write_json(r, f, "\xff\xfe"), -EINVAL);
	/* A caller's struct too old to hold both summaries. */
	c.size = offsetof(struct pbench_comparison, a);
	cr_assert_eq(pbench_comparison_write_text(&c, f, "a", "b"), -EINVAL);
	cr_assert_eq(pbench_comparison_write_json(&c, f, "a", "b"), -EINVAL);
	fclose(f);
	pbench_result_free(r);
}
