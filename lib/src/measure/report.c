/* SPDX-License-Identifier: MIT */
/*
 * The text reports of results, samples and comparisons (numbers formatted by format.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "measure/measure.h"

/* ---- text reports ------------------------------------------------------------------------ */

#define MAX_CAUSES 10		/* outlier samples explained one per line; the JSON has all */

/* v with the digits that err supports, without the "± err" part: "12.346 ms". The same
 * rounding as pbench_format_value, so figures given the same err line up with it. */
static void fmt_at(char *buf, size_t len, double v, double err, const char *unit)
{
	char tmp[96], *pm, *unit_part;

	if (!isfinite(v)) {	/* not computable from the samples (a single one, an overflow) */
		snprintf(buf, len, "n/a");
		return;
	}
	pbench_format_value(tmp, sizeof(tmp), v, err, unit);
	pm = strstr(tmp, " ± ");
	if (!pm) {
		snprintf(buf, len, "%s", tmp);
		return;
	}
	unit_part = strchr(pm + strlen(" ± "), ' ');	/* " ms", or NULL without a unit */
	*pm = '\0';
	snprintf(buf, len, "%s%s", tmp, unit_part ? unit_part : "");
}

/* A signed time with 2 significant digits: "+35 us", "-120 ns". */
static void fmt_delta(char *buf, size_t len, double ns)
{
	buf[0] = ns >= 0 ? '+' : '-';
	pbench_format_ns(buf + 1, len - 1, fabs(ns), 2);
}

/* A write error anywhere shows in the stream's error flag once it is flushed. */
static int finish(FILE *f)
{
	return pb_stream_end(f);
}

/* part as a percentage of whole with 2 significant digits, in fixed notation: "0.27%",
 * "95%", "430%" (never "4.3e+02%"). */
static const char *pct_text(char *buf, size_t len, double part, double whole)
{
	double pct = whole ? 100 * fabs(part / whole) : NAN;

	if (!isfinite(pct))
		snprintf(buf, len, "n/a");
	else if (pct >= 1e6)
		snprintf(buf, len, "%.3g%%", pct);
	else if (pct >= 100)
		snprintf(buf, len, "%.0f%%", pct);
	else
		snprintf(buf, len, "%.2g%%", pct);
	return buf;
}

/* A percentage the summary holds (cv, spread): "n/a" when it could not be computed. */
static const char *plural_es(uint64_t n)
{
	return n == 1 ? "" : "es";
}

/* What the noise snapshot of one sample says, in words; nothing that is not in it. */
static void noise_text(char *buf, size_t len, const struct pbench_noise *nz)
{
	size_t off = 0;
	char t[32];

#define PART(...) \
	do { \
		if (off < len) \
			off += (size_t)snprintf(buf + off, len - off, "%s", off ? ", " : ""); \
		if (off < len) \
			off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	if (nz->ctx_involuntary)
		PART("%" PRIu64 " involuntary context switch%s", nz->ctx_involuntary,
		     plural_es(nz->ctx_involuntary));
	if (nz->ctx_voluntary)
		PART("%" PRIu64 " voluntary context switch%s", nz->ctx_voluntary,
		     plural_es(nz->ctx_voluntary));
	if (nz->migrations)
		PART("%" PRIu64 " CPU migration%s", nz->migrations, nz->migrations == 1 ? "" : "s");
	if (nz->major_faults)
		PART("%" PRIu64 " major page fault%s", nz->major_faults,
		     nz->major_faults == 1 ? "" : "s");
	if (nz->minor_faults)
		PART("%" PRIu64 " minor page fault%s", nz->minor_faults,
		     nz->minor_faults == 1 ? "" : "s");
	if (nz->not_running_ns > 0) {
		pbench_format_ns(t, sizeof(t), nz->not_running_ns, 2);
		PART("%s not running", t);
	}
	if (!off)
		PART("no noise recorded%s", isnan(nz->not_running_ns) ?
		     " (time not running unknown: no task-clock)" : "");
#undef PART
}

/* The outliers by Tukey's fences (the rule every result's summary uses), worst first up to
 * MAX_CAUSES, then in sample order: each with how far its whole batch is from the median
 * sample's, and what its noise snapshot recorded. */
static void write_outlier_causes(const struct pbench_result *r, FILE *f)
{
	const struct pbench_summary *s = &r->summary;
	double iqr = s->q3 - s->q1, lo = s->q1 - 1.5 * iqr, hi = s->q3 + 1.5 * iqr;
	size_t worst[MAX_CAUSES], nw = 0, total = 0;

	for (size_t i = 0; i < r->nr; i++) {
		double d = fabs(r->x[i] - s->median);
		size_t k;

		if (!(r->x[i] < lo || r->x[i] > hi))
			continue;
		total++;
		if (nw < MAX_CAUSES)
			nw++;
		else if (d <= fabs(r->x[worst[nw - 1]] - s->median))
			continue;
		/* Insertion into the list kept sorted by distance, largest first. */
		for (k = nw - 1; k > 0 && fabs(r->x[worst[k - 1]] - s->median) < d; k--)
			worst[k] = worst[k - 1];
		worst[k] = i;
	}
	/* Back to sample order for reading. */
	for (size_t a = 1; a < nw; a++)
		for (size_t b = a; b > 0 && worst[b - 1] > worst[b]; b--) {
			size_t t = worst[b];

			worst[b] = worst[b - 1];
			worst[b - 1] = t;
		}
	for (size_t k = 0; k < nw; k++) {
		const struct pbench_sample *smp = &r->samples[worst[k]];
		char d[32], why[256];

		fmt_delta(d, sizeof(d), (smp->ns_per_iter - s->median) * (double)smp->iterations);
		noise_text(why, sizeof(why), &r->noise[worst[k]]);
		fprintf(f, "    sample %zu: %s over the median sample: %s\n", worst[k], d, why);
	}
	if (total > nw)
		fprintf(f, "    ... and %zu more outliers (every sample is in the JSON report)\n",
			total - nw);
}

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

/* Each event per iteration: mean ± standard error over the samples that counted it, or why
 * it was not counted. */
static void write_counters(const struct pbench_result *r, FILE *f)
{
	fprintf(f, "  counters per iteration (mean ± standard error over the samples)\n");
	for (int e = 0; e < r->nr_events; e++) {
		const struct pbench_count *first = &r->counts[e];
		struct pbench_welford w = { 0 };
		size_t multiplexed = 0;
		int user_only = 0;
		char v[96];

		for (size_t i = 0; i < r->nr; i++) {
			const struct pbench_count *k = &r->counts[i * (size_t)r->nr_events + e];

			if (k->status != PBENCH_EVENT_OK && k->status != PBENCH_EVENT_MULTIPLEXED)
				continue;
			pbench_welford_add(&w, k->scaled);
			multiplexed += k->status == PBENCH_EVENT_MULTIPLEXED;
			user_only |= k->user_only;
		}
		if (!w.n) {
			fprintf(f, "    %-20s <%s> %s\n", r->names[e],
				pb_event_status_text(first->status > PBENCH_EVENT_MULTIPLEXED ?
						     first->status : PBENCH_EVENT_NOT_COUNTED),
				first->reason);
			continue;
		}
		pbench_format_value(v, sizeof(v), w.mean, pbench_welford_sem(&w),
				    is_time_event(r->names[e]) ? "ns" : NULL);
		fprintf(f, "    %-20s %s", r->names[e], v);
		if (w.n < r->nr)
			fprintf(f, " (counted in %zu of %zu samples)", w.n, r->nr);
		if (multiplexed)
			fprintf(f, " (multiplexed in %zu samples: estimated from the time it ran)",
				multiplexed);
		if (user_only)
			fprintf(f, " (user space only)");
		fputc('\n', f);
	}
}

static void write_stop_rule(const struct pbench_result *r, FILE *f)
{
	const char *why;

	char buf[160];

	switch (r->stop_rule) {
	case PBENCH_STOP_SEM:
		why = "the standard error reached its target";
		if (r->has_settings) {
			snprintf(buf, sizeof(buf), "the standard error reached %g%% of the mean",
				 r->settings.target_sem_pct);
			why = buf;
		}
		break;
	case PBENCH_STOP_MAX_SAMPLES:
		why = "the maximum number of samples was taken before the standard error reached "
		      "its target";
		if (r->has_settings) {
			snprintf(buf, sizeof(buf), "%zu samples, the maximum, were taken before the "
				 "standard error reached %g%%", r->settings.max_samples,
				 r->settings.target_sem_pct);
			why = buf;
		}
		break;
	case PBENCH_STOP_BUDGET:
		why = "the time budget was spent before the standard error reached its target";
		if (r->has_settings) {
			snprintf(buf, sizeof(buf), "the time budget of %g ms was spent before the "
				 "standard error reached %g%%", r->settings.budget_ms,
				 r->settings.target_sem_pct);
			why = buf;
		}
		break;
	case PBENCH_STOP_SINGLE:
		why = "one call took longer than the whole time budget: a single sample, so no "
		      "error estimate";
		break;
	case PBENCH_STOP_FIXED:
		why = "the caller took the samples (region API)";
		break;
	default:
		why = "unknown";
	}
	fprintf(f, "  %-13s %s\n", "stopped", why);
}

static void write_warnings(const struct pbench_result *r, FILE *f)
{
	size_t noisy = 0, clamped = 0;
	char ovh[32];

	for (size_t i = 0; i < r->nr; i++) {
		noisy += r->noise[i].ctx_involuntary || r->noise[i].migrations;
		clamped += r->net[i] < 0 && !r->keep_overhead;
	}
	pbench_format_ns(ovh, sizeof(ovh), pbench_result_overhead_ns(r), 2);
	if (r->flags & PBENCH_RESULT_SUSPICIOUS)
		fprintf(f, "  warning: suspiciously fast (below what the timer and the empty batch "
			"resolve, or fewer instructions than iterations): the measured code was "
			"probably optimized away; keep its result with pbench_do_not_optimize()\n");
	if (r->flags & PBENCH_RESULT_UNOPTIMIZED)
		fprintf(f, "  warning: built without optimization (the library or the caller): "
			"numbers from an -O2 build are the ones that matter\n");
	if (r->flags & PBENCH_RESULT_OVERHEAD_DOMINATES)
		fprintf(f, "  warning: the harness overhead (%s per iteration) is more than half of "
			"each sample: mostly the calling loop was measured; give each call more "
			"work\n", ovh);
	if (r->flags & PBENCH_RESULT_CLAMPED)
		fprintf(f, "  warning: %zu sample%s faster than the empty batch: reported as 0, "
			"never negative\n", clamped, clamped == 1 ? " was" : "s were");
	if (r->flags & PBENCH_RESULT_SETUP_PER_BATCH)
		fprintf(f, "  warning: setup ran once per batch of %llu calls, not before each: what "
			"it prepares is changed by the first call and measured as the others find "
			"it; setup_each runs before every call (outside the timed region)\n",
			(unsigned long long)r->iterations);
	if (r->flags & PBENCH_RESULT_NOISY)
		fprintf(f, "  warning: noisy: involuntary context switches or CPU migrations in %zu "
			"of %zu samples ('pbench check' says why)\n", noisy, r->nr);
	if (r->summary.bimodal)
		fprintf(f, "  warning: the samples look multimodal (mvalue %.2f): more than one "
			"behaviour was measured; a mean hides that\n", r->summary.mvalue);
}

/*
 * The precision of the median, min and trimmed mean: the mean's standard error, unless one
 * far outlier inflates it past what the bulk of the samples supports (a 2 ms preemption among
 * 5 us samples would print the median as "10 us"); then the median's own uncertainty, the
 * half-width of McGill, Tukey and Larsen's notch (1978), 1.57 IQR / sqrt(n). Never finer than
 * step, the clock's step over the iterations of a sample (0: unknown).
 */
static double location_err(const struct pbench_summary *s, double step)
{
	double notch = 1.57 * (s->q3 - s->q1) / sqrt((double)s->n);

	return fmax(notch > 0 ? fmin(s->sem, notch) : s->sem, step);
}

/* The clock's resolution over the iterations of one of r's samples; 0 when unknown. */
static double step_ns(const struct pbench_result *r)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };

	if (pbench_clock_info(&ci) || !r->iterations)
		return 0;
	return ci.resolution_ns / (double)r->iterations;
}

int pbench_summary_write_text(const struct pbench_summary *s, FILE *f, const char *label,
			      const char *unit)
{
	static const char *const names[] = { "median", "min", "trimmed mean", "max", "stddev",
					     "MAD" };
	double values[6], err;
	char buf[96], lo[48], hi[48], name[32], cv[32], sp[32];
	int rc;

	if ((rc = pb_check_struct(__func__, "s", "pbench_summary", s, sizeof(*s), NULL)))
		return rc;
	if (!f || !s->n)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !f ? "f is NULL" : "s has no samples");
	values[0] = s->median;
	values[1] = s->min;
	values[2] = s->trimmed_mean;
	values[3] = s->max;
	values[4] = s->stddev;
	values[5] = s->mad;
	fprintf(f, "%s%s%zu sample%s\n", label ? label : "", label ? ": " : "", s->n,
		s->n == 1 ? "" : "s");
	if (s->n == 1) {
		fprintf(f, "  %-13s %.6g%s%s (a single sample: no error estimate)\n", "value",
			s->mean, unit && *unit ? " " : "", unit ? unit : "");
		return finish(f);
	}
	pbench_format_value(buf, sizeof(buf), s->mean, s->sem, unit);
	if (isfinite(s->sem))
		fprintf(f, "  %-13s %s (standard error, %s of the mean)\n", "mean", buf,
			pct_text(name, sizeof(name), s->sem, s->mean));
	else
		fprintf(f, "  %-13s %s (standard error n/a: the deviations are too large to "
			"square in a double)\n", "mean", buf);
	fmt_at(lo, sizeof(lo), s->ci_lo, s->sem, unit);
	fmt_at(hi, sizeof(hi), s->ci_hi, s->sem, unit);
	snprintf(name, sizeof(name), "%.4g%% interval", 100 * s->ci_level);
	fprintf(f, "  %-13s %s .. %s\n", name, lo, hi);
	err = location_err(s, 0);
	for (size_t i = 0; i < PB_ARRAY_SIZE(names); i++) {
		fmt_at(buf, sizeof(buf), values[i], err, unit);
		fprintf(f, "  %-13s %s\n", names[i], buf);
	}
	fprintf(f, "  cv %s, spread %s; outliers (Tukey) %zu low, %zu high, %zu of them "
		"severe\n", pb_format_pct(cv, sizeof(cv), s->cv_pct, 2),
		pb_format_pct(sp, sizeof(sp), s->spread_pct, 2),
		s->outliers_low_mild + s->outliers_low_severe,
		s->outliers_high_mild + s->outliers_high_severe,
		s->outliers_low_severe + s->outliers_high_severe);
	if (s->bimodal)
		fprintf(f, "  warning: the samples look multimodal (mvalue %.2f): more than one "
			"behaviour was measured; a mean hides that\n", s->mvalue);
	return finish(f);
}

/* One memory figure per call: "exactly 3" when every sample counted the same, else the mean
 * with its standard error and the interval. */
static void write_mem_figure(const struct pbench_result *r, FILE *f, int kind, const char *what,
			     const char *unit)
{
	struct pbench_summary s = { .size = sizeof(s) };
	char buf[96], lo[48], hi[48];
	int exact = 0;

	if (pbench_result_mem_summary(r, kind, &s, &exact))
		return;
	if (exact) {
		fprintf(f, "  %-13s exactly %.6g%s%s %s\n", what, s.mean, *unit ? " " : "", unit,
			kind == PBENCH_MEM_PEAK ? "in every batch" : "per call");
		return;
	}
	pbench_format_value(buf, sizeof(buf), s.mean, s.sem, NULL);
	fmt_at(lo, sizeof(lo), s.ci_lo, s.sem, NULL);
	fmt_at(hi, sizeof(hi), s.ci_hi, s.sem, NULL);
	fprintf(f, "  %-13s %s%s%s %s (%.4g%% interval %s .. %s; min %.6g, max %.6g)\n", what, buf,
		*unit ? " " : "", unit, kind == PBENCH_MEM_PEAK ? "in a batch" : "per call",
		100 * s.ci_level, lo, hi, s.min, s.max);
}

/* Allocations counted by the shim while the samples ran, or why they were not. */
static void write_memory(const struct pbench_result *r, FILE *f)
{
	if (r->mem_status == PBENCH_MEM_OFF)
		return;
	if (r->mem_status != PBENCH_MEM_COUNTED) {
		fprintf(f, "  %-13s not counted: %s\n", "memory",
			r->mem_reason ? r->mem_reason : pbench_mem_status_name(r->mem_status));
		return;
	}
	fprintf(f, "  memory per call, in %zu untimed batches of %" PRIu64 " calls:\n", r->mem_nr,
		r->iterations);
	write_mem_figure(r, f, PBENCH_MEM_ALLOCS, "allocations", "");
	write_mem_figure(r, f, PBENCH_MEM_FREES, "frees", "");
	write_mem_figure(r, f, PBENCH_MEM_BYTES, "allocated", "B");
	/* The peak is of a whole batch: a leak grows it with the calls, a free keeps it flat. */
	write_mem_figure(r, f, PBENCH_MEM_PEAK, "peak live", "B");
}

int pbench_result_write_text(const struct pbench_result *r, FILE *f, const char *label)
{
	const struct pbench_summary *s;
	char buf[96], lo[48], hi[48], name[32], cv[32], sp[32];
	double err;

	if (!r || !f)
		return -EINVAL;
	s = &r->summary;
	fprintf(f, "%s%s%zu sample%s × %" PRIu64 " iteration%s\n", label ? label : "",
		label ? ": " : "", r->nr, r->nr == 1 ? "" : "s", r->iterations,
		r->iterations == 1 ? "" : "s");
	if (!r->nr)
		return finish(f);
	if (r->nr == 1) {
		/* No spread to take the digits from: three are all one run can vouch for. */
		pbench_format_ns(buf, sizeof(buf), s->mean, 3);
		fprintf(f, "  %-13s %s per iteration (a single sample: no error estimate)\n", "time",
			buf);
	} else {
		pbench_format_value(buf, sizeof(buf), s->mean, s->sem, "ns");
		fprintf(f, "  %-13s %s per iteration (standard error, %s of the mean)\n",
			"mean", buf, pct_text(name, sizeof(name), s->sem, s->mean));
		fmt_at(lo, sizeof(lo), s->ci_lo, s->sem, "ns");
		fmt_at(hi, sizeof(hi), s->ci_hi, s->sem, "ns");
		snprintf(name, sizeof(name), "%.4g%% interval", 100 * s->ci_level);
		fprintf(f, "  %-13s %s .. %s\n", name, lo, hi);
		err = location_err(s, step_ns(r));
		fmt_at(buf, sizeof(buf), s->median, err, "ns");
		fprintf(f, "  %-13s %s\n", "median", buf);
		fmt_at(buf, sizeof(buf), s->min, err, "ns");
		fprintf(f, "  %-13s %s (raw speed)\n", "min", buf);
		fmt_at(buf, sizeof(buf), s->trimmed_mean, err, "ns");
		fprintf(f, "  %-13s %s (without the min and the max)\n", "trimmed mean", buf);
	}
	pbench_format_ns(buf, sizeof(buf), pbench_result_overhead_ns(r), 2);
	fprintf(f, "  %-13s %s per iteration, %s\n", "overhead", buf,
		r->keep_overhead ? "measured, not subtracted (keep_overhead)" : "subtracted");
	write_stop_rule(r, f);
	fprintf(f, "  cv %s, spread %s; outliers (Tukey) %zu low, %zu high, %zu of them "
		"severe\n", pb_format_pct(cv, sizeof(cv), s->cv_pct, 2),
		pb_format_pct(sp, sizeof(sp), s->spread_pct, 2),
		s->outliers_low_mild + s->outliers_low_severe,
		s->outliers_high_mild + s->outliers_high_severe,
		s->outliers_low_severe + s->outliers_high_severe);
	write_outlier_causes(r, f);
	if (r->nr_events)
		write_counters(r, f);
	write_memory(r, f);
	write_warnings(r, f);
	if (r->listing)
		pbench_listing_write_text(r->listing, f);
	return finish(f);
}

/* ---- comparisons -------------------------------------------------------------------------- */

/* x > 0 rounded up to 2 significant digits: a bound printed shorter must stay a bound. */
static double ceil_2digits(double x)
{
	double scale;

	if (!(x > 0) || !isfinite(x))
		return x;
	scale = pow(10, floor(log10(x)) - 1);
	return ceil(x / scale) * scale;
}

static void write_side(FILE *f, int width, const char *label, const struct pbench_summary *s)
{
	double err = location_err(s, 0);
	char mean[96], med[48], min[48];

	pbench_format_value(mean, sizeof(mean), s->mean, s->sem, "ns");
	fmt_at(med, sizeof(med), s->median, err, "ns");
	fmt_at(min, sizeof(min), s->min, err, "ns");
	fprintf(f, "  %-*s %s per iteration (median %s, min %s)\n", width, label, mean, med, min);
}

static void mem_side(char *buf, size_t len, double v, int exact, const char *unit)
{
	snprintf(buf, len, "%s%.6g%s%s", exact ? "exactly " : "", v, *unit ? " " : "", unit);
}

/* Seed 004's memoryCompare: "b allocates 2.0x the bytes of a per call". */
int pbench_mem_comparison_write_text(const struct pbench_mem_comparison *m, FILE *f,
				     const char *label_a, const char *label_b, const char *per)
{
	const char *a = label_a ? label_a : "a", *b = label_b ? label_b : "b";
	const char *what, *unit = "";
	char sa[64], sb[64], ratio[48], lo[48], hi[48];
	double half;

	int err;

	if ((err = PB_CHECK_STRUCT(m, pbench_mem_comparison, 0, NULL)))
		return err;
	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	per = per ? per : "call";
	switch (m->kind) {
	case PBENCH_MEM_BYTES:
		what = "bytes", unit = "B";
		break;
	case PBENCH_MEM_PEAK:
		what = "peak live bytes", unit = "B";
		break;
	case PBENCH_MEM_FREES:
		what = "frees";
		break;
	default:
		what = "allocations";
	}
	half = (m->ratio_hi - m->ratio_lo) / 2;
	mem_side(sa, sizeof(sa), m->a, m->a_exact, unit);
	mem_side(sb, sizeof(sb), m->b, m->b_exact, unit);
	fprintf(f, "  %-13s %s: %s per %s, %s: %s per %s\n", what, a, sa, per, b, sb, per);
	if (m->a == 0 && m->b == 0)
		fprintf(f, "  %-13s neither allocates\n", "");
	else if (m->a == 0 || m->b == 0)
		fprintf(f, "  %-13s %s allocates, %s does not\n", "", m->a == 0 ? b : a,
			m->a == 0 ? a : b);
	else if (m->a_exact && m->b_exact && m->a == m->b)
		fprintf(f, "  %-13s the same, exactly\n", "");
	else if (m->a_exact && m->b_exact)
		fprintf(f, "  %-13s %s allocates %.3gx the %s of %s per %s (exact)\n", "", b,
			m->ratio, what, a, per);
	else if (isfinite(half) && half > 0) {
		fmt_at(ratio, sizeof(ratio), m->ratio, half, NULL);
		fmt_at(lo, sizeof(lo), m->ratio_lo, half, NULL);
		fmt_at(hi, sizeof(hi), m->ratio_hi, half, NULL);
		fprintf(f, "  %-13s %s allocates %sx the %s of %s per %s (%.4g%% interval %s .. "
			"%s, p = %.3g)\n", "", b, ratio, what, a, per, 100 * m->confidence, lo, hi,
			m->p);
	} else {
		fprintf(f, "  %-13s %s allocates %.3gx the %s of %s per %s (no interval)\n", "",
			b, m->ratio, what, a, per);
	}
	return finish(f);
}

static void write_mem_comparison(const struct pbench_comparison *c, FILE *f, const char *a,
				 const char *b)
{
	if (c->size < offsetof(struct pbench_comparison, mem_reason) + sizeof(c->mem_reason) ||
	    c->mem_status == PBENCH_MEM_OFF)
		return;
	if (!c->mem_bytes || !c->mem_allocs) {
		fprintf(f, "  %-13s not counted: %s\n", "memory",
			c->mem_reason ? c->mem_reason : pbench_mem_status_name(c->mem_status));
		return;
	}
	pbench_mem_comparison_write_text(c->mem_bytes, f, a, b, "call");
	pbench_mem_comparison_write_text(c->mem_allocs, f, a, b, "call");
}

/* b against a (r: time of b / time of a, its interval), the direction every ratio is shown
 * in; from an older caller's struct, which ends before those fields, a/b's inverted. */
static int b_to_a(const struct pbench_comparison *c, double r[3])
{
	if (c->size >= offsetof(struct pbench_comparison, verdict_b) + sizeof(c->verdict_b)) {
		r[0] = c->ratio_b_to_a;
		r[1] = c->ratio_b_to_a_lo;
		r[2] = c->ratio_b_to_a_hi;
		return c->verdict_b;
	}
	r[0] = 1 / c->ratio;
	r[1] = 1 / c->ratio_hi;
	r[2] = 1 / c->ratio_lo;
	return c->verdict == PBENCH_VERDICT_FASTER ? PBENCH_VERDICT_SLOWER :
	       c->verdict == PBENCH_VERDICT_SLOWER ? PBENCH_VERDICT_FASTER : c->verdict;
}

int pbench_comparison_write_text(const struct pbench_comparison *c, FILE *f,
				 const char *label_a, const char *label_b)
{
	const char *a = label_a ? label_a : "a", *b = label_b ? label_b : "b";
	double level, half, r[3];
	char ratio[48], lo[48], hi[48], by[48], conf[32] = "";
	int width, vb;

	if ((width = pb_comparison_check(c, __func__)))
		return width;
	vb = b_to_a(c, r);
	half = (r[2] - r[1]) / 2;
	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	/* Structs from before confidence was added end sooner: then it is not printed. */
	level = c->size >= offsetof(struct pbench_comparison, confidence) + sizeof(double) ?
		c->confidence : NAN;
	if (level > 0 && level < 1)
		snprintf(conf, sizeof(conf), "%.4g%%", 100 * level);
	fprintf(f, "%s vs %s: %zu samples of each, in alternation\n", a, b, c->pairs);
	width = (int)(strlen(a) > strlen(b) ? strlen(a) : strlen(b));
	width = width < 13 ? 13 : width > 40 ? 40 : width;
	write_side(f, width, a, c->a);
	write_side(f, width, b, c->b);
	/* b against a: "ratio b/a 1.53", "b is 1.53x slower than a" (statistics.md) */
	if (c->welch && isfinite(half) && half > 0) {
		fmt_at(ratio, sizeof(ratio), r[0], half, NULL);
		fmt_at(lo, sizeof(lo), r[1], half, NULL);
		fmt_at(hi, sizeof(hi), r[2], half, NULL);
		fprintf(f, "  ratio b/a       %s (%s%sinterval %s .. %s)\n", ratio, conf,
			*conf ? " " : "", lo, hi);
		fprintf(f, "  Welch           t = %.3f, df = %.1f, p = %.3g\n", -c->welch->t,
			c->welch->df, c->welch->p);
	} else if (isfinite(r[0])) {
		fprintf(f, "  ratio b/a       %.3g (no interval: too few samples, or no variance)\n",
			r[0]);
	} else {
		fprintf(f, "  ratio b/a       none (%s's mean is 0)\n", a);
	}
	switch (vb) {
	case PBENCH_VERDICT_FASTER:
	case PBENCH_VERDICT_SLOWER:
		/* "1.53x faster": b's time is 1/1.53 of a's; slower, 1.53 times a's */
		pb_format_factor(by, sizeof(by), vb == PBENCH_VERDICT_FASTER ? 1 / r[0] : r[0]);
		fprintf(f, "verdict: %s is %s %s than %s (significant%s%s)\n", b, by,
			vb == PBENCH_VERDICT_FASTER ? "faster" : "slower", a,
			*conf ? " at " : "", conf);
		break;
	case PBENCH_VERDICT_SAME:
		fprintf(f, "verdict: same: the ratio's interval lies within %.2g%% of 1, inside the "
			"threshold\n", ceil_2digits(100 * fmax(fabs(1 - r[1]), fabs(r[2] - 1))));
		break;
	default:
		fprintf(f, "verdict: undecided: neither a significant difference nor within the "
			"threshold when sampling stopped; take more samples\n");
	}
	write_mem_comparison(c, f, a, b);
	/* The code of a side, when asked for or when it looks optimized away (show_code). */
	if (c->size >= offsetof(struct pbench_comparison, listing_b) + sizeof(c->listing_b)) {
		const struct pbench_listing *l[2] = { c->listing_a, c->listing_b };

		for (int i = 0; i < 2; i++) {
			if (!l[i])
				continue;
			fprintf(f, "%s:\n", i ? b : a);
			pbench_listing_write_text(l[i], f);
		}
	}
	return finish(f);
}
