// SPDX-License-Identifier: MIT
/*
 * Which function got slower (issue 36, opts.profile): every timed run of every entrant that
 * runs a command profiled by its runs (runs_profile.c), symbolized after the rounds; then each
 * challenger's symbols against the reference's, matched by DSO file name and name (as perf
 * diff matches them, so two builds of a program compare), each symbol's self value a run
 * (samples x period: ns for cpu-clock, never a share, so one function growing does not
 * shrink the others), the verdict's test of the challenger's runs against the reference's
 * (interleaved: each round's two runs paired, as the verdict pairs them; else Welch's), and
 * Benjamini-Hochberg over all the
 * symbols tested at once (q <= opts.profile_fdr: flagged). Then the getters and the parts of
 * the text, Markdown and JSON writers that say it (nothing when opts.profile is off).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/base.h"
#include "base/abi.h"
#include "base/jsonutil.h"
#include "profile/export.h"
#include "stacks/stacks.h"
#include "contest/contest.h"

/* Fewer self samples than this over both sides' runs together: not tested (a t test on a
 * handful of counts, mostly zeros, is not what its p says); still listed with its figures. */
#define MIN_SAMPLES 20

struct pb_prof_diffs {
	struct pbench_profile_diff *d;
	size_t n;
	size_t tested;
	double *se, *df;		/* each diff's test's, by its index before the sort */
	double a_run, b_run;		/* each side's sampled value a run */
	int na, nb;			/* runs profiled */
	/* the differential flame graph's: a mark per symbol of the challenger's table */
	struct pb_stacks_xmark *marks;
	size_t nmarks;
};

/* One symbol of one side, for the match: its key and its self values over the runs. */
struct prof_key {
	const char *name, *dso;		/* dso: the file name */
	int side;			/* 0: the reference, 1: the challenger */
	uint32_t sym;
};

static const char *file_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return !path ? "" : b && b[1] && path[0] != '[' && strncmp(path, "//", 2) ? b + 1 : path;
}

static int key_cmp(const void *x, const void *y)
{
	const struct prof_key *a = x, *b = y;
	int k = strcmp(a->dso, b->dso);

	return k ? k : strcmp(a->name, b->name);
}

/* The self value of every symbol of t in every run: self[sym * nruns + run]; samples[sym]. */
static int self_values(const struct pb_stacks *t, double **self, uint64_t **samples)
{
	size_t ns = pb_stacks_nr_syms(t), nr = (size_t)pb_stacks_nruns(t);
	struct pb_stack st;

	*self = calloc(ns * nr + 1, sizeof(**self));
	*samples = calloc(ns + 1, sizeof(**samples));
	if (!*self || !*samples)
		return -ENOMEM;
	for (size_t i = 0; i < pb_stacks_nr(t); i++) {
		uint32_t leaf;

		if (pb_stacks_at(t, i, &st) || !st.nframes)
			continue;
		leaf = st.frames[st.nframes - 1];
		for (size_t r = 0; r < nr; r++)
			(*self)[leaf * nr + r] += st.values[r];
		(*samples)[leaf] += st.samples;
	}
	return 0;
}

struct prof_side {
	const struct pbench_runs *r;
	const struct pb_stacks *t;
	size_t nruns;
	double *self;
	uint64_t *samples;
};

static double run_sum(const struct prof_side *s, size_t r)
{
	double v = 0;

	for (size_t k = 0; k < pb_stacks_nr_syms(s->t); k++)
		v += s->self[k * s->nruns + r];
	return v;
}

static double mean_of(const double *x, size_t n)
{
	double v = 0;

	for (size_t i = 0; i < n; i++)
		v += x[i];
	return n ? v / (double)n : NAN;
}

/* The verdict's test: run k of each from the same round (interleaved, every run of both
 * profiled) paired, as the verdict pairs them, so what disturbed a round disturbed both; else
 * Welch's across the runs. */
static int test(const struct pbench_contest *c, const struct prof_side side[2], const double *a,
		const double *b, const struct pbench_stats_opts *so, struct pbench_welch *w)
{
	if (c->o.order == PBENCH_CONTEST_ORDER_INTERLEAVED &&
	    !(c->o.flags & PBENCH_CONTEST_UNPAIRED) && side[0].nruns == side[1].nruns &&
	    !pbench_stats_paired(b, a, side[0].nruns, so, w))
		return 0;
	return pbench_stats_welch(b, side[1].nruns, a, side[0].nruns, so, w);
}

/* Whether the n values are all the same. */
static int same_all(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (x[i] != x[0])
			return 0;
	return 1;
}

/* One matched symbol (keys[lo, hi)): its values summed per side over the keys, its test. */
static void diff_one(const struct pbench_contest *c, const struct prof_side side[2],
		     const struct prof_key *keys, size_t lo, size_t hi, double *a, double *b,
		     struct pbench_profile_diff *d, double *se, double *df)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = c->o.confidence };
	struct pbench_welch w = { .size = sizeof(w) };

	memset(a, 0, side[0].nruns * sizeof(*a));
	memset(b, 0, side[1].nruns * sizeof(*b));
	*d = (struct pbench_profile_diff){ .size = sizeof(*d), .name = keys[lo].name,
					   .dso = keys[lo].dso, .p = NAN, .q = NAN,
					   .level = c->o.confidence };
	for (size_t k = lo; k < hi; k++) {
		const struct prof_side *s = &side[keys[k].side];
		double *x = keys[k].side ? b : a;

		for (size_t r = 0; r < s->nruns; r++)
			x[r] += s->self[keys[k].sym * s->nruns + r];
		*(keys[k].side ? &d->b_samples : &d->a_samples) += s->samples[keys[k].sym];
	}
	d->a_ns = mean_of(a, side[0].nruns);
	d->b_ns = mean_of(b, side[1].nruns);
	d->only = !d->b_samples ? 1 : !d->a_samples ? 2 : 0;
	d->diff_ns = d->b_ns - d->a_ns;
	d->ratio = d->only ? NAN : d->b_ns / d->a_ns;
	d->ratio_lo = d->ratio_hi = d->diff_lo = d->diff_hi = NAN;
	if (d->a_samples + d->b_samples < MIN_SAMPLES)
		return;
	if (test(c, side, a, b, &so, &w)) {
		/* The tests refuse no spread at all: every run of each side the same (a function
		 * of a fixed count of samples, only in one side, is one): the difference is the
		 * same in every run, exact, and told apart from none. */
		if (same_all(a, side[0].nruns) && same_all(b, side[1].nruns) && d->diff_ns != 0) {
			d->p = 0;
			*se = 0;
			*df = (double)(side[0].nruns + side[1].nruns - 2);
			d->diff_lo = d->diff_hi = d->diff_ns;
			d->ratio_lo = d->ratio_hi = d->ratio;
		}
		return;
	}
	d->p = w.p;
	*se = w.se;
	*df = w.df;
	d->diff_lo = w.se > 0 ? w.diff_lo : d->diff_ns;	/* no spread: exact */
	d->diff_hi = w.se > 0 ? w.diff_hi : d->diff_ns;
	if (!d->only) {	/* a paired interval's lower end may reach below 0: a time's is 0 */
		d->ratio_lo = w.se > 0 ? fmax(w.ratio_lo, 0) : d->ratio;
		d->ratio_hi = w.se > 0 ? w.ratio_hi : d->ratio;
	}
}

static int by_p(const void *x, const void *y)
{
	const struct pbench_profile_diff *const *a = x, *const *b = y;

	return (*a)->p < (*b)->p ? -1 : (*a)->p > (*b)->p;
}

/* The flagged symbols' intervals at the false coverage rate's level over them
 * (Benjamini-Yekutieli 2005: 1 - fdr R / m for R flagged of m tested), at which each excludes
 * no change, as its flag says. */
static void fcr_intervals(struct pb_prof_diffs *pd, double fdr)
{
	size_t flagged = 0;
	double level, tq;

	for (size_t i = 0; i < pd->n; i++)
		flagged += pd->d[i].flagged;
	if (!flagged)
		return;
	level = 1 - fdr * (double)flagged / (double)pd->tested;
	for (size_t i = 0; i < pd->n; i++) {
		struct pbench_profile_diff *d = &pd->d[i];

		if (!d->flagged)
			continue;
		/* no spread on either side (the same count of samples in every run): the
		 * difference is exact, and its degrees of freedom 0/0 */
		tq = pd->se[i] > 0 ? pbench_stats_t_quantile(level, pd->df[i]) : 0;
		d->level = level;
		d->diff_lo = d->diff_ns - tq * pd->se[i];
		d->diff_hi = d->diff_ns + tq * pd->se[i];
		if (!d->only && d->a_ns > 0) {
			d->ratio_lo = fmax(0, 1 + d->diff_lo / d->a_ns);
			d->ratio_hi = 1 + d->diff_hi / d->a_ns;
		}
	}
}

/* Benjamini-Hochberg: q of the i-th smallest of m p values is min over j >= i of p_j m / j. */
static int adjust(struct pb_prof_diffs *pd, double fdr)
{
	struct pbench_profile_diff **t = calloc(pd->n + 1, sizeof(*t));
	double q = 1;
	size_t m = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < pd->n; i++)
		if (isfinite(pd->d[i].p))
			t[m++] = &pd->d[i];
	qsort(t, m, sizeof(*t), by_p);
	for (size_t i = m; i-- > 0;) {
		double v = t[i]->p * (double)m / (double)(i + 1);

		q = v < q ? v : q;
		t[i]->q = q;
		t[i]->flagged = q <= fdr;
	}
	pd->tested = m;
	free(t);
	fcr_intervals(pd, fdr);
	return 0;
}

static double size_of(const struct pbench_profile_diff *d)
{
	return fabs(d->diff_ns);
}

static int by_change(const void *x, const void *y)
{
	const struct pbench_profile_diff *a = x, *b = y;

	if (a->flagged != b->flagged)
		return b->flagged - a->flagged;
	if (size_of(a) != size_of(b))
		return size_of(a) < size_of(b) ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The command's own file of side s (its argv[0]'s file name), or "". */
static const char *program_of(const struct prof_side *s)
{
	char *const *argv = s->r ? pb_runs_argv(s->r) : NULL;

	return argv && argv[0] ? file_name(argv[0]) : "";
}

/* Each side's symbols with their keys, sorted by key: the challenger's own program (another
 * build, another file name) matched to the reference's. */
static struct prof_key *match_keys(const struct prof_side side[2], size_t *nkeys)
{
	size_t n = pb_stacks_nr_syms(side[0].t) + pb_stacks_nr_syms(side[1].t), k = 0;
	struct prof_key *keys = calloc(n + 1, sizeof(*keys));
	struct pb_stack_sym y;

	for (int s = 0; keys && s < 2; s++)
		for (uint32_t i = 0; i < pb_stacks_nr_syms(side[s].t); i++) {
			if (!side[s].samples[i] || pb_stacks_sym(side[s].t, i, &y))
				continue;	/* a caller only: no self value */
			keys[k] = (struct prof_key){ .name = y.name, .dso = file_name(y.dso),
						     .side = s, .sym = i };
			if (s && *program_of(&side[1]) && !strcmp(keys[k].dso, program_of(&side[1])))
				keys[k].dso = program_of(&side[0]);
			k++;
		}
	if (keys)
		qsort(keys, k, sizeof(*keys), key_cmp);
	*nkeys = k;
	return keys;
}

/* Each symbol of the challenger's table marked with its change (b / a; NaN: in it only, or
 * not tested) and whether it was flagged: owner[sym] its diff (SIZE_MAX: none). */
static void mark(struct pb_prof_diffs *pd, const size_t *owner)
{
	for (size_t k = 0; k < pd->nmarks; k++) {
		const struct pbench_profile_diff *d = owner[k] < pd->n ? &pd->d[owner[k]] : NULL;

		pd->marks[k] = (struct pb_stacks_xmark){
			.change = d && !d->only && isfinite(d->p) ? d->ratio : NAN,
			.significant = d && d->flagged };
	}
}

static int diff_all(const struct pbench_contest *c, const struct prof_side side[2],
		    struct pb_prof_diffs *pd)
{
	size_t nkeys, lo = 0, *owner;
	struct prof_key *keys = match_keys(side, &nkeys);
	double *a = calloc(side[0].nruns + 1, sizeof(*a)), *b = calloc(side[1].nruns + 1, sizeof(*b));
	int err = -ENOMEM;

	pd->nmarks = pb_stacks_nr_syms(side[1].t);
	pd->d = calloc(nkeys + 1, sizeof(*pd->d));
	pd->se = calloc(nkeys + 1, sizeof(*pd->se));
	pd->df = calloc(nkeys + 1, sizeof(*pd->df));
	pd->marks = calloc(pd->nmarks + 1, sizeof(*pd->marks));
	owner = malloc((pd->nmarks + 1) * sizeof(*owner));
	if (!keys || !a || !b || !pd->d || !pd->se || !pd->df || !pd->marks || !owner)
		goto out;
	memset(owner, 0xff, (pd->nmarks + 1) * sizeof(*owner));
	while (lo < nkeys) {
		size_t hi = lo + 1;

		while (hi < nkeys && !key_cmp(&keys[lo], &keys[hi]))
			hi++;
		for (size_t k = lo; k < hi; k++)
			if (keys[k].side)
				owner[keys[k].sym] = pd->n;
		diff_one(c, side, keys, lo, hi, a, b, &pd->d[pd->n], &pd->se[pd->n],
			 &pd->df[pd->n]);
		pd->n++;
		lo = hi;
	}
	err = adjust(pd, c->o.profile_fdr > 0 ? c->o.profile_fdr :
		     PBENCH_CONTEST_DEFAULT_PROFILE_FDR);
	if (!err)
		mark(pd, owner);
out:
	free(owner);
	free(keys);
	free(a);
	free(b);
	return err;
}

static void side_free(struct prof_side *s)
{
	free(s->self);
	free(s->samples);
}

/* Challenger i against the reference ref, both profiled. */
static int diff_entrant(const struct pbench_contest *c, const struct pb_entrant *ref,
			struct pb_entrant *e)
{
	struct prof_side side[2] = { { .r = ref->r, .t = pb_runs_profile_table(ref->r, 0) },
				     { .r = e->r, .t = pb_runs_profile_table(e->r, 0) } };
	struct pb_prof_diffs *pd;
	int err = 0;

	if (!side[0].t || !side[1].t)
		return 0;
	pd = e->pdiff = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	for (int s = 0; s < 2 && !err; s++) {
		side[s].nruns = (size_t)pb_stacks_nruns(side[s].t);
		err = self_values(side[s].t, &side[s].self, &side[s].samples);
	}
	if (!err)
		err = diff_all(c, side, pd);
	if (!err) {
		double x = 0, y = 0;

		for (size_t r = 0; r < side[0].nruns; r++)
			x += run_sum(&side[0], r);
		for (size_t r = 0; r < side[1].nruns; r++)
			y += run_sum(&side[1], r);
		pd->a_run = x / (double)side[0].nruns;
		pd->b_run = y / (double)side[1].nruns;
		pd->na = (int)side[0].nruns;
		pd->nb = (int)side[1].nruns;
		for (size_t k = 0; k < pd->n; k++)
			pd->d[k].share_pct = pd->b_run != pd->a_run ?
				100 * pd->d[k].diff_ns / (pd->b_run - pd->a_run) : NAN;
		qsort(pd->d, pd->n, sizeof(*pd->d), by_change);
	}
	side_free(&side[0]);
	side_free(&side[1]);
	return err;
}

/* After the rounds (opts.profile): every entrant's profiles symbolized, then each
 * challenger's symbols against the reference's. */
int pb_contest_profile_analyze(struct pbench_contest *c)
{
	struct pb_entrant *ref;
	int err = 0;

	if (!c->o.profile)
		return 0;
	for (int i = 0; i < c->n; i++)
		if (c->e[i].r)
			pb_runs_profile_analyze(c->e[i].r);
	ref = c->o.reference < c->n ? &c->e[c->o.reference] : NULL;
	for (int i = 0; ref && ref->r && i < c->n && !err; i++)
		if (i != c->o.reference && c->e[i].r)
			err = diff_entrant(c, ref, &c->e[i]);
	return err;
}

void pb_contest_profile_free(struct pb_entrant *e)
{
	if (e->pdiff) {
		free(e->pdiff->d);
		free(e->pdiff->marks);
		free(e->pdiff->se);
		free(e->pdiff->df);
	}
	free(e->pdiff);
	e->pdiff = NULL;
}

/* Options: the profile's, checked with the others. */
int pb_contest_profile_check(const struct pbench_contest_opts *o)
{
	if (!o->profile)
		return 0;
	if (o->profile < PBENCH_PROFILE_OFF || o->profile > PBENCH_PROFILE_DWARF ||
	    !(o->profile_fdr >= 0 && o->profile_fdr <= 0.5))
		return pb_fail_msg(-EINVAL, "opts->profile is %d and profile_fdr %g: a "
				   "pbench_profile_mode, a false discovery rate in (0, 0.5]",
				   o->profile, o->profile_fdr);
	if (o->order == PBENCH_CONTEST_ORDER_DUET)
		return pb_fail_msg(-EINVAL, "--profile samples the rounds one run at a time, "
				   "not a duet's");
	return 0;
}

/* ---- getters -------------------------------------------------------------------------------- */

static const struct pb_prof_diffs *diffs_of(const struct pbench_contest *c, int i, int *err)
{
	*err = 0;
	if (!c || i < 0 || i >= c->n) {
		*err = pb_fail(-EINVAL, "%s: no entrant %d", "pbench_contest_profile_diff()", i);
		return NULL;
	}
	if (!c->e[i].pdiff)
		*err = -ENOENT;
	return c->e[i].pdiff;
}

int pbench_contest_profile_diff_nr(const struct pbench_contest *c, int i)
{
	int err;
	const struct pb_prof_diffs *pd = diffs_of(c, i, &err);

	return pd ? (int)pd->n : err;
}

int pbench_contest_profile_diff(const struct pbench_contest *c, int i, int k,
				struct pbench_profile_diff *out)
{
	int err;
	const struct pb_prof_diffs *pd;

	if ((err = PB_CHECK_STRUCT(out, pbench_profile_diff, 0, "{ .size = sizeof(out) }")))
		return err;
	pd = diffs_of(c, i, &err);
	if (!pd)
		return err;
	if (k < 0 || (size_t)k >= pd->n)
		return -ENOENT;
	pb_copy_out(out, &pd->d[k], sizeof(pd->d[k]));
	return 0;
}

int pbench_contest_profile_info(const struct pbench_contest *c, int i,
				struct pbench_profile_info *out)
{
	if (!c || i < 0 || i >= c->n)
		return pb_fail(-EINVAL, "%s(): no entrant %d", __func__, i);
	if (!c->e[i].r || !c->o.profile)
		return -ENOENT;
	return pbench_runs_profile_info(c->e[i].r, 0, out);
}

/* What the text and Markdown say of challenger i: the summary's figures. */
int pb_contest_profile_sides(const struct pbench_contest *c, int i, double *a_run,
			     double *b_run, int *na, int *nb, size_t *tested)
{
	const struct pb_prof_diffs *pd = i >= 0 && i < c->n ? c->e[i].pdiff : NULL;

	if (!pd)
		return -ENOENT;
	*a_run = pd->a_run;
	*b_run = pd->b_run;
	*na = pd->na;
	*nb = pd->nb;
	*tested = pd->tested;
	return 0;
}

/* The differential flame graph of challenger i: its own mean run's stacks (the widths), each
 * frame coloured by its symbol's tested change against the reference (only the flagged). */
int pbench_contest_write_flamegraph(const struct pbench_contest *c, int i, FILE *f)
{
	const struct pb_prof_diffs *pd;
	const struct pb_stacks *t;
	struct pbench_profile_info in = { .size = sizeof(in) };
	struct pb_stacks_x x;
	char title[300], sub[400];
	int err;

	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	pd = diffs_of(c, i, &err);
	if (!pd)
		return err;
	t = pb_runs_profile_table(c->e[i].r, 0);
	if (!t || pbench_runs_profile_info(c->e[i].r, 0, &in))
		return -ENOENT;
	err = pb_stacks_to_x(t, PB_STACKS_X_MEAN, pd->marks, &x);
	if (err)
		return err;
	snprintf(title, sizeof(title), "%s against %s", c->e[i].name,
		 c->e[c->o.reference].name);
	snprintf(sub, sizeof(sub), "the mean run of %d of %s: widths its time; red slower, blue "
		 "faster than in %s (flagged at a %g%% false discovery rate), grey the same",
		 in.runs, c->e[i].name, c->e[c->o.reference].name,
		 100 * (c->o.profile_fdr > 0 ? c->o.profile_fdr : PBENCH_CONTEST_DEFAULT_PROFILE_FDR));
	struct pb_flame_opts o = { .title = title, .subtitle = sub, .differential = 1,
				   .unit = !strcmp(in.unit, "ns") ? "ns" : in.event };
	err = pb_flame_write_svg(f, x.stacks, x.n, &o);
	pb_stacks_x_free(&x);
	return err ? err : pb_stream_end(f);
}
