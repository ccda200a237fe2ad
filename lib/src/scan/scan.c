/* SPDX-License-Identifier: MIT */
/*
 * Parameter scans (issue 38): the object, its parameters and points, running them as the
 * entrants of one contest (interleaved, a fresh random order each round, so a drift spreads
 * over every point instead of bending the curve), then each point's summary, the ratios to
 * the first side and, with one parameter, the fit of the time against it (pbench_stats_fit()),
 * and the fit in words. The writers are scan_write.c and scan_plot.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/abi.h"
#include "scan/scan_inner.h"

int pbench_scan_new(struct pbench_scan **out, const struct pbench_scan_opts *opts)
{
	struct pbench_contest_opts dco = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_scan *s;
	int err;

	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if ((err = PB_CHECK_STRUCT(opts, pbench_scan_opts, 0, "PBENCH_SCAN_OPTS_INIT")))
		return err;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	pb_copy_in(&s->o, sizeof(s->o), opts);
	s->co = opts->contest ? *opts->contest : dco;
	s->bytes_k = -1;
	s->nsides = s->o.nr_sides ? s->o.nr_sides : 1;
	if (s->nsides < 1 || s->nsides > PBENCH_SCAN_MAX_SIDES || (s->o.fn && s->nsides != 1)) {
		free(s);
		return pb_fail(-EINVAL, "%s(): opts->nr_sides is %d: 1 to %d, 1 with fn", __func__,
			       opts->nr_sides, PBENCH_SCAN_MAX_SIDES);
	}
	for (int k = 0; k < s->nsides; k++) {
		const char *n = s->o.side_names ? s->o.side_names[k] : NULL;

		if ((n && !(s->side[k].name = strdup(n))) || (!n && s->nsides > 1)) {
			pbench_scan_free(s);
			return n ? -ENOMEM : pb_fail(-EINVAL, "%s(): side %d has no name", __func__, k);
		}
	}
	s->co.flags |= PBENCH_CONTEST_NO_CHECK | PBENCH_CONTEST_FULL_BUDGET;
	s->co.reference = 0;
	s->confidence = s->co.confidence > 0 ? s->co.confidence : PBENCH_STATS_DEFAULT_CONFIDENCE;
	if ((err = pbench_contest_new(&s->c, &s->co))) {
		pbench_scan_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void pbench_scan_free(struct pbench_scan *s)
{
	if (!s)
		return;
	pbench_contest_free(s->c);
	free(s->figure);
	for (int k = 0; k < PBENCH_SCAN_MAX_PARAMS; k++)
		free(s->p[k].name);
	for (int k = 0; k < PBENCH_SCAN_MAX_SIDES; k++)
		free(s->side[k].name);
	for (int i = 0; i < PBENCH_SCAN_MAX_POINTS; i++)
		free(s->pname[i]);
	free(s);
}

int pbench_scan_add_param(struct pbench_scan *s, const char *name, const double *values,
			  size_t n)
{
	struct pb_scan_param *p;
	double total = (double)n;

	if (!s || !name || !*name || !values || !n)
		return pb_fail(-EINVAL, "%s(): a NULL or empty argument", __func__);
	if (s->nadded || s->np == PBENCH_SCAN_MAX_PARAMS)
		return pb_fail(-EINVAL, "%s(): %s: more than %d parameters, or after the points",
			       __func__, name, PBENCH_SCAN_MAX_PARAMS);
	for (int k = 0; k < s->np; k++) {
		if (!strcmp(s->p[k].name, name))
			return pb_fail(-EINVAL, "%s(): %s is scanned twice", __func__, name);
		total *= s->p[k].nv;
	}
	if (total > PBENCH_SCAN_MAX_POINTS)
		return pb_fail(-E2BIG, "%s(): %s: %.0f points, more than %d", __func__, name, total,
			       PBENCH_SCAN_MAX_POINTS);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(values[i]))
			return pb_fail(-EINVAL, "%s(): %s: value %zu is not a number", __func__, name, i);
	p = &s->p[s->np];
	if (!(p->name = strdup(name)))
		return -ENOMEM;
	memcpy(p->v, values, n * sizeof(*values));
	p->nv = (int)n;
	if (s->o.bytes_param && !strcmp(s->o.bytes_param, name))
		s->bytes_k = s->np;
	s->npoints = (int)total;
	return s->np++;
}

int pbench_scan_points(const struct pbench_scan *s)
{
	return s && s->np ? s->npoints : 0;
}

double pbench_scan_value(const struct pbench_scan *s, int i, int k)
{
	int div = 1;

	if (!s || k < 0 || k >= s->np || i < 0 || i >= s->npoints)
		return NAN;
	for (int j = s->np - 1; j > k; j--)
		div *= s->p[j].nv;
	return s->p[k].v[(i / div) % s->p[k].nv];
}

const char *pbench_scan_param_name(const struct pbench_scan *s, int k)
{
	return s && k >= 0 && k < s->np ? s->p[k].name : NULL;
}

/* "n=1000" or "n=1000,threads=4": point i's name, made once. */
static const char *point_name(struct pbench_scan *s, int i)
{
	char buf[256];
	size_t at = 0;

	if (s->pname[i])
		return s->pname[i];
	buf[0] = 0;
	for (int k = 0; k < s->np && at < sizeof(buf); k++)
		at += snprintf(buf + at, sizeof(buf) - at, "%s%s=%.15g", k ? "," : "", s->p[k].name,
			       pbench_scan_value(s, i, k));
	return s->pname[i] = strdup(buf);
}

int pbench_scan_add(struct pbench_scan *s, int i, int k, const struct pbench_contest_entrant *e)
{
	struct pbench_contest_entrant one = PBENCH_CONTEST_ENTRANT_INIT;
	char name[320];
	const char *pn;
	int err;

	if (!s || !e || s->o.fn || !s->np || i * s->nsides + k != s->nadded || k < 0 ||
	    k >= s->nsides || i >= s->npoints)
		return pb_fail(-EINVAL, "%s(): point %d side %d: the points in order, after the "
			       "parameters, without fn", __func__, i, k);
	if ((err = PB_CHECK_STRUCT(e, pbench_contest_entrant, 0, "PBENCH_CONTEST_ENTRANT_INIT")))
		return err;
	if (!(pn = point_name(s, i)))
		return -ENOMEM;
	pb_copy_in(&one, sizeof(one), e);
	if (!one.name) {
		snprintf(name, sizeof(name), "%s%s%s", s->side[k].name ? s->side[k].name : "",
			 s->side[k].name ? " " : "", pn);
		one.name = name;
	}
	if ((err = pbench_contest_add(s->c, &one)) >= 0) {
		s->nadded++;
		s->own_stops |= one.target_sem_pct > 0 || one.max_time_s > 0;
	}
	return err;
}

static void call_fn(void *ctx)
{
	struct pb_scan_call *c = ctx;

	if (c->s->o.fn(c->s->o.arg, c->value))
		c->s->fn_failed++;
}

/* With fn: one entrant a point, fn called with the point's value. */
static int add_fn_points(struct pbench_scan *s)
{
	for (int i = 0; i < s->npoints; i++) {
		struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
		const char *pn = point_name(s, i);
		int err;

		if (!pn)
			return -ENOMEM;
		s->call[i].s = s;
		s->call[i].value = pbench_scan_value(s, i, 0);
		e.name = pn;
		e.workload = PBENCH_WORKLOAD_FN;
		e.fn = call_fn;
		e.ctx = &s->call[i];
		if ((err = pbench_contest_add(s->c, &e)) < 0)
			return err;
		s->nadded++;
	}
	return 0;
}

/* Up to 10000 times of entrant i's runs (not timed out): their count. */
static size_t times_of(const struct pbench_runs *r, double *x)
{
	size_t n = 0;

	for (int j = 0; r && n < 10000; j++) {
		struct pbench_run run = { .size = sizeof(run) };

		if (pbench_runs_get(r, 0, j, &run))
			break;
		if (!run.timed_out && run.ns > 0)
			x[n++] = (double)run.ns;
	}
	return n;
}

/* Side b's time over side a's at entrant pair (ia, ib): Welch on the logs of the runs. */
static void ratio_at(struct pbench_scan *s, int ia, int ib, double *r, double *lo, double *hi)
{
	double *a = calloc(2 * 10000, sizeof(double)), *b = a ? a + 10000 : NULL;
	struct pbench_stats_opts so = PBENCH_STATS_OPTS_INIT;
	struct pbench_welch w = { .size = sizeof(w) };
	size_t na, nb;

	*r = *lo = *hi = NAN;
	if (!a)
		return;
	na = times_of(pbench_contest_runs(s->c, ia), a);
	nb = times_of(pbench_contest_runs(s->c, ib), b);
	so.ci_level = s->confidence;
	so.flags = PBENCH_STATS_LOG;
	if (!pbench_stats_welch(b, nb, a, na, &so, &w)) {
		*r = w.ratio;
		*lo = w.ratio_lo;
		*hi = w.ratio_hi;
	}
	free(a);
}

/* Side k's measured points fitted (one parameter): pb_scan_fit()'s return. */
static int fit_side(const struct pbench_scan *s, int k, struct pbench_fit *fit)
{
	double x[PBENCH_SCAN_MAX_POINTS], y[PBENCH_SCAN_MAX_POINTS], sem[PBENCH_SCAN_MAX_POINTS];
	const struct pb_scan_side *sd = &s->side[k];
	size_t m = 0;

	for (int i = 0; i < s->npoints; i++) {
		if (!sd->have[i])
			continue;
		x[m] = pbench_scan_value(s, i, 0);
		y[m] = sd->sum[i].mean;
		sem[m++] = sd->sum[i].sem;
	}
	return pb_scan_fit(s, x, y, sem, m, fit);
}


static void collect_side(struct pbench_scan *s, int k)
{
	struct pb_scan_side *sd = &s->side[k];

	for (int i = 0; i < s->npoints; i++) {
		sd->sum[i].size = sizeof(sd->sum[i]);
		sd->have[i] = !pbench_contest_summary(s->c, i * s->nsides + k, &sd->sum[i]);
		sd->ratio[i] = sd->ratio_lo[i] = sd->ratio_hi[i] = NAN;
		sd->stopped[i] = pbench_contest_entrant_stop(s->c, i * s->nsides + k);
		if (k)
			ratio_at(s, i * s->nsides, i * s->nsides + k, &sd->ratio[i],
				 &sd->ratio_lo[i], &sd->ratio_hi[i]);
	}
	sd->fit_err = s->np == 1 ? fit_side(s, k, &sd->fit) : -ENODATA;
	sd->fitted = !sd->fit_err;
}

int pbench_scan_run(struct pbench_scan *s)
{
	struct pb_fail_saved *saved;
	int err;

	if (!s || !s->np)
		return pb_fail(-EINVAL, "%s(): no parameter", __func__);
	if (s->o.fn && !s->nadded && (err = add_fn_points(s)))
		return err;
	if (s->nadded != s->npoints * s->nsides)
		return pb_fail(-EINVAL, "%s(): %d of the %d points' entrants added", __func__,
			       s->nadded, s->npoints * s->nsides);
	err = pbench_contest_run(s->c);
	if ((saved = malloc(sizeof(*saved))))
		pb_fail_save(saved);
	s->ci.size = sizeof(s->ci);
	pbench_contest_info(s->c, &s->ci);
	if (!err || (err == -EINTR && s->ci.rounds)) {
		for (int k = 0; k < s->nsides; k++)
			collect_side(s, k);
		pb_scan_figure_collect(s);
		if (s->np == 1)
			pb_scan_caches_read(s);
		s->collected = 1;
	}
	if (saved)
		pb_fail_restore(saved);
	free(saved);
	return err;
}

struct pbench_contest *pbench_scan_contest(const struct pbench_scan *s)
{
	return s ? s->c : NULL;
}

static int side_point_ok(const struct pbench_scan *s, int k, int i, const char *fn)
{
	if (!s || k < 0 || k >= s->nsides || i < 0 || i >= s->npoints)
		return pb_fail(-EINVAL, "%s(): side %d point %d: no such", fn, k, i);
	return s->collected ? 0 : pb_fail(-ENODATA, "%s(): the scan has not run", fn);
}

int pbench_scan_point(const struct pbench_scan *s, int k, int i, struct pbench_scan_point *out)
{
	struct pbench_scan_point p = { .size = sizeof(p) };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_scan_point, 0, NULL)) ||
	    (err = side_point_ok(s, k, i, __func__)))
		return err;
	p.name = s->pname[i];
	p.measured = s->side[k].have[i];
	p.ratio = s->side[k].ratio[i];
	p.ratio_lo = s->side[k].ratio_lo[i];
	p.ratio_hi = s->side[k].ratio_hi[i];
	pb_copy_out(out, &p, sizeof(p));
	return 0;
}

int pbench_scan_summary(const struct pbench_scan *s, int k, int i, struct pbench_summary *ns)
{
	int err;

	if ((err = PB_CHECK_STRUCT(ns, pbench_summary, 0, NULL)) ||
	    (err = side_point_ok(s, k, i, __func__)))
		return err;
	if (!s->side[k].have[i])
		return pb_fail(-ENODATA, "%s(): point %d of side %d has no times", __func__, i, k);
	pb_copy_out(ns, &s->side[k].sum[i], sizeof(s->side[k].sum[i]));
	return 0;
}

int pbench_scan_fit(const struct pbench_scan *s, int k, struct pbench_fit *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_fit, 0, NULL)) ||
	    (err = side_point_ok(s, k, 0, __func__)))
		return err;
	if (s->side[k].fit_err == -ENODATA)
		return pb_fail(-ENODATA, "%s(): a fit is of one parameter, the scan has %d",
			       __func__, s->np);
	if (s->side[k].fit_err) {	/* again, for its words */
		struct pbench_fit again;

		return fit_side(s, k, &again);
	}
	pb_copy_out(out, &s->side[k].fit, sizeof(s->side[k].fit));
	return 0;
}

const char *pb_scan_stop_name(int stop)
{
	return stop == PBENCH_CONTEST_ENTRANT_STOP_SEM ? "target_sem" :
	       stop == PBENCH_CONTEST_ENTRANT_STOP_TIME ? "max_time" : "rounds";
}

const char *pb_scan_stop_words(const struct pbench_scan *s, const struct pb_scan_side *sd, int i,
			       char *buf, size_t len)
{
	(void)s;
	if (sd->stopped[i] == PBENCH_CONTEST_ENTRANT_STOP_SEM && sd->have[i] && sd->sum[i].mean > 0)
		snprintf(buf, len, "SEM %.3g%%", 100 * sd->sum[i].sem / sd->sum[i].mean);
	else
		snprintf(buf, len, "%s", sd->stopped[i] == PBENCH_CONTEST_ENTRANT_STOP_TIME ?
			 "its max-time" : "the rounds");
	return buf;
}

/* ---- the fit in words ---------------------------------------------------------------------- */

/* A time in ns for people: "12.1 ns", "1.02 ms"; under 1 ns in ns with 3 digits. */
const char *pb_scan_fmt_ns(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "n/a");
	else if (fabs(ns) < 1)
		snprintf(buf, len, "%.3g ns", ns);
	else
		pbench_format_ns(buf, len, ns, 3);
	return buf;
}

/* "10^4" for a large ratio, "2.3" for a small one. */
static const char *fmt_ratio(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		snprintf(buf, len, "more than 10^300");
	else if (r >= 1000)
		snprintf(buf, len, "10^%d", (int)floor(log10(r)));
	else
		snprintf(buf, len, "%.3g", r);
	return buf;
}

/* "n log2 n", "n^2", "log2 n": what b multiplies, in words. */
static const char *g_words(int model, double k, char *buf, size_t len)
{
	switch (model) {
	case PBENCH_FIT_MODEL_LOGN:	snprintf(buf, len, "log2 n"); break;
	case PBENCH_FIT_MODEL_NLOGN:	snprintf(buf, len, "n log2 n"); break;
	case PBENCH_FIT_MODEL_NK:	snprintf(buf, len, "n^%.3g", k); break;
	default:			snprintf(buf, len, "%s", pbench_fit_model_name(model));
	}
	return buf;
}

/* "constant: 4.21 ms (99.9% interval ...)" or "12.1 ns x n log2 n + 1.02 ms (99.9% interval
 * of b ...)": the model's curve with its interval. */
static size_t curve_words(const struct pbench_fit *f, char *out, size_t len)
{
	char b[32], lo[32], hi[32], a[32], g[32];

	pb_scan_fmt_ns(a, sizeof(a), f->a);
	if (f->model == PBENCH_FIT_MODEL_1)
		return snprintf(out, len, "constant: %s (%.4g%% interval %s-%s)", a,
				100 * f->confidence, pb_scan_fmt_ns(lo, sizeof(lo), f->a_lo),
				pb_scan_fmt_ns(hi, sizeof(hi), f->a_hi));
	pb_scan_fmt_ns(b, sizeof(b), f->b);
	return snprintf(out, len, "%s x %s %s %s (%.4g%% interval of b %s-%s)", b,
			g_words(f->model, f->k, g, sizeof(g)), f->a < 0 ? "-" : "+",
			pb_scan_fmt_ns(a, sizeof(a), fabs(f->a)), 100 * f->confidence,
			pb_scan_fmt_ns(lo, sizeof(lo), f->b_lo), pb_scan_fmt_ns(hi, sizeof(hi), f->b_hi));
}

/* The fit in words, one paragraph (no newline at its end): what it grows as, or that the range
 * cannot tell (then the likeliest curve, and how wide a scan would tell). */
void pb_scan_fit_words(const struct pbench_scan *s, const struct pb_scan_side *sd, char *out,
		       size_t len)
{
	const struct pbench_fit *f = &sd->fit;
	const struct pb_scan_param *p = &s->p[0];
	const char *m = pbench_fit_model_name(f->model), *ru = pbench_fit_model_name(f->runner_up);
	char r[40], top[40], c[320];
	size_t at;

	if (f->model == PBENCH_FIT_MODEL_NONE) {
		snprintf(out, len, "fit: n/a: %s", f->reason);
		return;
	}
	fmt_ratio(r, sizeof(r), f->evidence_ratio);
	curve_words(f, c, sizeof(c));
	if (f->inconclusive) {
		snprintf(top, sizeof(top), "%.15g", f->range_needed);
		snprintf(out, len, "inconclusive between O(%s) and O(%s) over %s %.15g-%.15g: %s is "
			 "only %s times less likely; the likeliest, %s%s%s%s%s", m, ru, p->name,
			 p->v[0], p->v[p->nv - 1], ru, r, c,
			 isfinite(f->range_needed) ? "; a scan up to about " : "",
			 isfinite(f->range_needed) ? p->name : "",
			 isfinite(f->range_needed) ? " = " : "",
			 isfinite(f->range_needed) ? top : "");
		at = strlen(out);
		if (isfinite(f->range_needed) && at < len)
			snprintf(out + at, len - at, " would tell them apart");
		return;
	}
	if (f->model == PBENCH_FIT_MODEL_1) {
		snprintf(out, len, "%s; no growth told from the noise over %s %.15g-%.15g (the "
			 "runner-up, O(%s), has no b above 0 at %.4g%%)", c, p->name, p->v[0],
			 p->v[p->nv - 1], ru, 100 * f->confidence);
		return;
	}
	snprintf(out, len, "grows as %s: %s; %s is %s times less likely",
		 f->model == PBENCH_FIT_MODEL_NK ? "a power" : m, c, ru, r);
}

int pbench_scan_fit_text(const struct pbench_scan *s, int k, char *buf, size_t len)
{
	int err;

	if (!buf || !len)
		return pb_fail(-EINVAL, "%s(): buf is NULL or len 0", __func__);
	if ((err = side_point_ok(s, k, 0, __func__)))
		return err;
	if (s->side[k].fit_err) {
		struct pbench_fit f = { .size = sizeof(f) };

		return pbench_scan_fit(s, k, &f);
	}
	pb_scan_fit_words(s, &s->side[k], buf, len);
	return (int)strlen(buf);
}
