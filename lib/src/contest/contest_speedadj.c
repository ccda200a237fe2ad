/* SPDX-License-Identifier: MIT */
/*
 * The machine's speed around a baseline's runs and around today's, on one scale, for the gate
 * against a stored baseline (pbench compare --baseline FILE --fail-if-slower PCT). Every run
 * pbench records carries two readings of a reference loop taken around it (runs_speed.c): the
 * clock's (a latency-bound chain) and the throughput's (the issue slots this thread gets). A
 * host that slowed the vCPU between the baseline and today shows in them, and a time that
 * only the machine's speed moved should not fail a build: each run's time is taken at full
 * speed (times its factor) before the two occasions are compared (pbench_stats_gate_speed()).
 *
 * Which reading, and how much of the time it scales (kmod-free-docs/compare.md, "Times
 * adjusted for the machine's speed"):
 * - Each reading's factor is a session's own (1 = that invocation's best): across occasions
 *   the readings are put on one scale by their ns an iteration (the best reading over the
 *   loop's calibrated iterations, in the JSON), 1 = the faster occasion's best.
 * - The clock, on the share of the run the command spent on a CPU. A slower clock slows every
 *   instruction alike, so a command that computes is scaled whole and one that waits (sleep,
 *   I/O) keeps its time whatever the CPU's speed: a run's task-clock share s (1 - its time
 *   not running over its wall time) makes its clock factor 1 - s + s * f. The host slowing a
 *   vCPU is not seen by the guest's scheduler (task-clock runs on), so s is the command's
 *   own share at any speed. This needs no estimate: it is the physics of a clock.
 * - The issue throughput beyond the clock (the throughput reading over the clock's: an SMT
 *   sibling, or the host, taking the core's slots) slows throughput-bound code and leaves a
 *   latency-bound chain alone, so how much of it a command feels is the command's own:
 *   measured as the slope of its log times (already adjusted for the clock) on the log of
 *   that ratio, within each session (pooled, each around its own mean), kept within 0..1.
 *   That is the r test (pb_runs_blame_factor()) made a number: where the times follow the
 *   ratio (r >= 0.5), a command whose times follow it fully gets 1 and one whose times move
 *   by a third of the reading's change a third (scaling by the whole reading, as a fixed
 *   rule would, turned a stretch at 0.45x into a 55% "drift"); where they do not (r < 0.5:
 *   a noisy reading's few far values would set the slope), 0.
 * - But between two occasions that slope is not to be trusted: measured on this VM
 *   (bench/baseline_gate.sh), in stretches where the throughput reading fell to 0.65-0.70x
 *   with the clock steady, the same command took 1.8x to 2.8x its baseline's time, and
 *   within those sessions its times did not follow the reading (r < 0.5) or followed it by
 *   the whole of it and more: the host takes the core away for spans a 10 us reading rarely
 *   falls in. So when that ratio differs by 10% or more between the occasions (side), the
 *   gate concludes only what such a difference cannot explain: against a host whose issue
 *   throughput was lower today, never a regression; against one whose was higher, never "no
 *   regression". The clock's adjustment needs no such care: a slower clock slows every
 *   instruction by its own factor.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "contest/contest.h"

/* One occasion's readings, a run each (NaN: none): the ns an iteration of each reference
 * around it, its task-clock share; the best of each. */
struct occasion {
	double *clk, *thr, *share;
	size_t n;
	double clk_best, thr_best;
};

static void occasion_free(struct occasion *o)
{
	free(o->clk);
	o->clk = o->thr = o->share = NULL;
}

static int occasion_alloc(struct occasion *o, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->clk = malloc((n ? n : 1) * 3 * sizeof(double));
	if (!o->clk)
		return -ENOMEM;
	o->thr = o->clk + n;
	o->share = o->thr + n;
	o->n = n;
	for (size_t i = 0; i < 3 * n; i++)
		o->clk[i] = NAN;
	o->clk_best = o->thr_best = NAN;
	return 0;
}

/* The ns an iteration around a run: the best reading over the run's factor (best / the
 * readings' mean), over the iterations a pass. */
static double per_iteration(double best_ns, double factor, double iterations)
{
	return best_ns > 0 && factor > 0 && iterations > 0 ? best_ns / factor / iterations : NAN;
}

static double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ---- the baseline's ------------------------------------------------------------------------- */

/* The measured runs of arr are the stored times, in order. */
static int same_times(json_t *arr, const double *x, size_t n)
{
	size_t i, k = 0;
	json_t *run;

	json_array_foreach(arr, i, run) {
		if (json_is_true(json_object_get(run, "timed_out")))
			continue;
		if (k >= n || jnum(run, "ns") != x[k])
			return 0;
		k++;
	}
	return k == n;
}

/* The set (stat's mode, compare's entrant's set) whose runs are the stored times. */
static json_t *set_of(json_t *root, const double *x, size_t n)
{
	json_t *m;
	size_t i;

	if (same_times(json_object_get(root, "runs"), x, n))
		return root;
	json_array_foreach(json_object_get(root, "modes"), i, m)
		if (same_times(json_object_get(m, "runs"), x, n))
			return m;
	json_array_foreach(json_object_get(root, "entrants"), i, m)
		if (same_times(json_object_get(json_object_get(m, "set"), "runs"), x, n))
			return json_object_get(m, "set");
	return NULL;
}

static int read_set(json_t *set, struct occasion *o)
{
	json_t *sp = json_object_get(set, "speed"), *ck = json_object_get(sp, "clock"), *run;
	double tb = jnum(sp, "ref_best_ns"), ti = jnum(sp, "ref_iterations");
	double cb = jnum(ck, "ref_best_ns"), ci = jnum(ck, "ref_iterations");
	size_t i, k = 0;

	o->thr_best = tb / ti;
	o->clk_best = cb / ci;
	json_array_foreach(json_object_get(set, "runs"), i, run) {
		double ns = jnum(run, "ns"), off;

		if (json_is_true(json_object_get(run, "timed_out")))
			continue;
		off = jnum(json_object_get(run, "noise"), "not_running_ns");
		o->clk[k] = per_iteration(cb, jnum(run, "clock"), ci);
		o->thr[k] = per_iteration(tb, jnum(run, "speed"), ti);
		o->share[k++] = ns > 0 && isfinite(off) ? fmin(1, fmax(0, 1 - off / ns)) : 1;
	}
	return 0;
}

/* The baseline's readings, from its file (matched by its times); -ENODATA with why. */
static int baseline_occasion(const struct pb_entrant *e, struct occasion *o, const char **why)
{
	json_t *root, *set;
	int err;

	if (!e->stored_file) {
		*why = "the baseline was given as times alone";
		return -ENODATA;
	}
	root = json_load_file(e->stored_file, JSON_REJECT_DUPLICATES, NULL);
	set = json_is_object(root) ? set_of(root, e->x, e->n) : NULL;
	if (!set) {
		*why = "the baseline's runs were not found in its file";
		json_decref(root);
		return -ENODATA;
	}
	err = occasion_alloc(o, e->n);
	if (!err)
		err = read_set(set, o);
	json_decref(root);
	return err;
}

/* ---- today's -------------------------------------------------------------------------------- */

static int today_occasion(const struct pb_entrant *e, struct occasion *o)
{
	const struct pb_set *s = e->set;
	struct pb_speed_best best = pb_runs_speed_best(e->r);
	double ti = best.thr_iterations, ci = best.clk_iterations;
	size_t k = 0;
	int err = occasion_alloc(o, e->n);

	if (err)
		return err;
	o->thr_best = best.thr_ns / ti;
	o->clk_best = best.clk_ns / ci;
	for (int i = 0; i < pb_runs_set_done(s) && k < e->n; i++) {
		struct pb_run_status run = pb_runs_status(pb_runs_run_at(s, i));
		double off = run.not_running_ns, ns = (double)run.ns;

		if (!pb_run_measured(run.timed_out))
			continue;
		o->clk[k] = per_iteration(best.clk_ns, run.clock, ci);
		o->thr[k] = per_iteration(best.thr_ns, run.speed, ti);
		o->share[k++] = ns > 0 && isfinite(off) ? fmin(1, fmax(0, 1 - off / ns)) : 1;
	}
	return 0;
}

/* ---- on one scale --------------------------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const double *f, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), m = NAN;
	size_t k = 0;

	for (size_t i = 0; v && i < n; i++)
		if (isfinite(f[i]))
			v[k++] = f[i];
	if (k) {
		qsort(v, k, sizeof(*v), cmp_dbl);
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return m;
}

/* An occasion's runs on the common scale: lc, the log of the clock factor on the share of
 * the run on a CPU; u, the log of the throughput factor over the clock's (the issue slots
 * beyond the clock); y, the log time adjusted for the clock. NaN where a reading is missing. */
struct scaled {
	double *lc, *u, *y;
	size_t n;
};

static int scale(const struct occasion *o, const double *ns, double clk_best, double thr_best,
		 struct scaled *sc)
{
	sc->n = o->n;
	sc->lc = malloc((o->n ? o->n : 1) * 3 * sizeof(double));
	if (!sc->lc)
		return -ENOMEM;
	sc->u = sc->lc + o->n;
	sc->y = sc->u + o->n;
	for (size_t i = 0; i < o->n; i++) {
		double fc = clk_best / o->clk[i], ft = thr_best / o->thr[i];

		sc->lc[i] = fc > 0 && isfinite(fc) ? log(1 - o->share[i] + o->share[i] * fc) : NAN;
		sc->u[i] = ft > 0 && isfinite(ft) && isfinite(sc->lc[i]) ? log(ft / fc) : NAN;
		sc->y[i] = log(ns[i]) + sc->lc[i];
	}
	return 0;
}

/* Sums around the occasion's own means of u and y, for the pooled slope and r; the range of
 * u. */
static double centred(const struct scaled *sc, double *suu, double *suy, double *syy)
{
	double mu = 0, my = 0, lo = INFINITY, hi = -INFINITY;
	size_t k = 0;

	for (size_t i = 0; i < sc->n; i++)
		if (isfinite(sc->u[i]) && isfinite(sc->y[i])) {
			mu += sc->u[i];
			my += sc->y[i];
			k++;
		}
	if (k < 3)
		return 0;
	mu /= (double)k;
	my /= (double)k;
	for (size_t i = 0; i < sc->n; i++)
		if (isfinite(sc->u[i]) && isfinite(sc->y[i])) {
			*suu += (sc->u[i] - mu) * (sc->u[i] - mu);
			*suy += (sc->u[i] - mu) * (sc->y[i] - my);
			*syy += (sc->y[i] - my) * (sc->y[i] - my);
			lo = fmin(lo, sc->u[i]);
			hi = fmax(hi, sc->u[i]);
		}
	return hi - lo;
}

/* Each run's factor: its clock factor on its share, times the throughput beyond the clock to
 * the power slope. */
static double *factors(const struct scaled *sc, double slope)
{
	double *f = malloc((sc->n ? sc->n : 1) * sizeof(*f));

	for (size_t i = 0; f && i < sc->n; i++)
		f[i] = exp(sc->lc[i] + slope * (isfinite(sc->u[i]) ? sc->u[i] : 0));
	return f;
}

/* The host today over the baseline by the medians of one log series. */
static double host_by(const double *b, size_t nb, const double *n, size_t nn)
{
	return exp(median_of(n, nn) - median_of(b, nb));
}

static void judge_slope(struct pb_gate_factors *out, const struct scaled *sb,
			const struct scaled *sn, double share)
{
	double suu = 0, suy = 0, syy = 0, rb = centred(sb, &suu, &suy, &syy),
	       rn = centred(sn, &suu, &suy, &syy);

	out->slope_known = fmax(rb, rn) >= log(PBENCH_SPEED_VARIED) && suu > 0 && syy > 0;
	/* The times follow the slots (r >= 0.5, as pb_runs_blame_factor() asks): by the
	 * slope, log t falling as u rises; else not at all (a noisy reading's few far
	 * values would set an unfollowed slope). */
	out->follows = out->slope_known && -suy / sqrt(suu * syy) >= 0.5;
	out->slope = out->follows ? fmin(1, fmax(0, -suy / suu)) : 0;
	out->host_thr = host_by(sb->u, sb->n, sn->u, sn->n);
	out->side = !isfinite(out->host_thr) || share <= 0 ? 0 :
		    out->host_thr * PBENCH_SPEED_VARIED <= 1 ? -1 :
		    out->host_thr >= PBENCH_SPEED_VARIED ? 1 : 0;
}

int pb_contest_gate_factors(const struct pbench_contest *c, int i, struct pb_gate_factors *out)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	struct occasion b, n;
	struct scaled sb = { 0 }, sn = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	if (!e->r || ref->r || !e->n || !ref->n) {
		out->why_not = "no stored baseline";
		return 0;
	}
	if ((err = baseline_occasion(ref, &b, &out->why_not)))
		return err == -ENODATA ? 0 : err;
	if ((err = today_occasion(e, &n))) {
		occasion_free(&b);
		return err;
	}
	if (!isfinite(median_of(b.clk, b.n)))
		out->why_not = "the baseline's runs carry no clock readings (a file of an older "
			       "pbench: measure it again)";
	out->share = median_of(n.share, n.n);
	out->host_clk = median_of(b.clk, b.n) / median_of(n.clk, n.n);
	err = scale(&b, ref->x, fmin(b.clk_best, n.clk_best), fmin(b.thr_best, n.thr_best), &sb);
	if (!err)
		err = scale(&n, e->x, fmin(b.clk_best, n.clk_best), fmin(b.thr_best, n.thr_best),
			    &sn);
	if (!err) {
		judge_slope(out, &sb, &sn, out->share);
		out->base_f = factors(&sb, out->slope);
		out->now_f = factors(&sn, out->slope);
	}
	free(sb.lc);
	free(sn.lc);
	occasion_free(&b);
	occasion_free(&n);
	if (err || !out->base_f || !out->now_f) {
		pb_contest_gate_factors_free(out);
		return -ENOMEM;
	}
	return 0;
}

void pb_contest_gate_factors_free(struct pb_gate_factors *f)
{
	free(f->base_f);
	free(f->now_f);
	f->base_f = f->now_f = NULL;
}
