// SPDX-License-Identifier: MIT
/*
 * The figures of a stack table (issue 36): per symbol (its DSO and name) its self value (the
 * stacks it is the leaf of) and its total (the stacks it is in, counted once a stack however
 * often it recurs) in each run; their mean per run with the Student t interval over the runs
 * that every summary of the runs has (pbench_stats_summary(): 95%; its lower end at 0 at
 * least, as a value a run is never negative), NaN below 2 runs; the
 * share of every run's sampled value; the same self per DSO. Each run is one measurement of
 * where the time went: the interval is the runs' spread, not a formula of sampling error.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "stacks/stacks.h"

static void interval(const double *v, int n, double *mean, double *lo, double *hi)
{
	struct pbench_summary s = { .size = sizeof(s) };
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	*mean = n ? sum / n : NAN;
	*lo = *hi = NAN;
	if (n >= 2 && !pbench_stats_summary(v, (size_t)n, NULL, &s)) {
		*lo = s.ci_lo > 0 ? s.ci_lo : 0;	/* a time or a count is never below 0 */
		*hi = s.ci_hi;
	}
}

static int by_self(const void *a, const void *b)
{
	const struct pb_stacks_fig *x = a, *y = b;

	if (x->self_mean != y->self_mean)
		return x->self_mean < y->self_mean ? 1 : -1;
	if (x->total_mean != y->total_mean)
		return x->total_mean < y->total_mean ? 1 : -1;
	return strcmp(x->dso, y->dso);
}

/* Each symbol's self and total in each run (nsym x nruns, row by symbol), samples too. */
static void tally(const struct pb_stacks *t, double *self, double *total, uint64_t *ss,
		  uint64_t *ts, size_t *seen, double *run_sum)
{
	int nr = pb_stacks_nruns(t);
	struct pb_stack st;

	for (size_t i = 0; i < pb_stacks_nr(t); i++) {
		pb_stacks_at(t, i, &st);
		for (int r = 0; r < nr; r++)
			run_sum[r] += st.values[r];
		if (!st.nframes)
			continue;
		uint32_t leaf = st.frames[st.nframes - 1];
		for (int r = 0; r < nr; r++)
			self[(size_t)leaf * nr + r] += st.values[r];
		ss[leaf] += st.samples;
		for (size_t k = 0; k < st.nframes; k++) {
			uint32_t y = st.frames[k];

			if (seen[y] == i + 1)
				continue;	/* recursion: once a stack */
			seen[y] = i + 1;
			for (int r = 0; r < nr; r++)
				total[(size_t)y * nr + r] += st.values[r];
			ts[y] += st.samples;
		}
	}
}

/* Per DSO: the self of its symbols, summed run by run. */
static int per_dso(const struct pb_stacks *t, const double *self, const uint64_t *ss,
		   double sum, struct pb_stacks_figs *out)
{
	size_t ns = pb_stacks_nr_syms(t), nd = 0;
	int nr = pb_stacks_nruns(t);
	const char **dso = calloc(ns ? ns : 1, sizeof(*dso));
	double *v = calloc((ns ? ns : 1) * (size_t)nr, sizeof(*v));
	uint64_t *n = calloc(ns ? ns : 1, sizeof(*n));
	struct pb_stack_sym y;

	out->dsos = calloc(ns ? ns : 1, sizeof(*out->dsos));
	if (!dso || !v || !n || !out->dsos) {
		free(dso), free(v), free(n);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < ns; i++) {
		size_t d = 0;

		pb_stacks_sym(t, i, &y);
		while (d < nd && dso[d] != y.dso)
			d++;
		if (d == nd)
			dso[nd++] = y.dso;
		for (int r = 0; r < nr; r++)
			v[d * nr + r] += self[(size_t)i * nr + r];
		n[d] += ss[i];
	}
	for (size_t d = 0; d < nd; d++) {
		struct pb_stacks_fig *f = &out->dsos[d];
		double all = 0;

		for (int r = 0; r < nr; r++)
			all += v[d * nr + r];
		*f = (struct pb_stacks_fig){ .sym = (uint32_t)-1, .dso = dso[d],
					     .self_pct = sum > 0 ? 100 * all / sum : NAN,
					     .self_samples = n[d], .total_samples = n[d] };
		interval(v + d * nr, nr, &f->self_mean, &f->self_lo, &f->self_hi);
		f->total_mean = f->self_mean, f->total_lo = f->self_lo, f->total_hi = f->self_hi;
		f->total_pct = f->self_pct;
	}
	out->ndsos = nd;
	qsort(out->dsos, nd, sizeof(*out->dsos), by_self);
	free(dso), free(v), free(n);
	return 0;
}

static void fill_syms(const struct pb_stacks *t, const double *self, const double *total,
		      const uint64_t *ss, const uint64_t *ts, double sum, struct pb_stacks_figs *out)
{
	int nr = pb_stacks_nruns(t);
	struct pb_stack_sym y;

	for (uint32_t i = 0; i < out->nsyms; i++) {
		struct pb_stacks_fig *f = &out->syms[i];
		double sa = 0, ta = 0;

		pb_stacks_sym(t, i, &y);
		for (int r = 0; r < nr; r++) {
			sa += self[(size_t)i * nr + r];
			ta += total[(size_t)i * nr + r];
		}
		*f = (struct pb_stacks_fig){ .sym = i, .dso = y.dso,
					     .self_pct = sum > 0 ? 100 * sa / sum : NAN,
					     .total_pct = sum > 0 ? 100 * ta / sum : NAN,
					     .self_samples = ss[i], .total_samples = ts[i] };
		interval(self + (size_t)i * nr, nr, &f->self_mean, &f->self_lo, &f->self_hi);
		interval(total + (size_t)i * nr, nr, &f->total_mean, &f->total_lo, &f->total_hi);
	}
}

int pb_stacks_figures(const struct pb_stacks *t, struct pb_stacks_figs *out)
{
	size_t ns = pb_stacks_nr_syms(t), m = ns ? ns : 1;
	int nr = pb_stacks_nruns(t), err = -ENOMEM;
	double *self = calloc(m * (size_t)nr, sizeof(*self));
	double *total = calloc(m * (size_t)nr, sizeof(*total));
	double *run_sum = calloc((size_t)nr, sizeof(*run_sum));
	uint64_t *ss = calloc(m, sizeof(*ss)), *ts = calloc(m, sizeof(*ts));
	size_t *seen = calloc(m, sizeof(*seen));
	struct pb_stack st;

	memset(out, 0, sizeof(*out));
	out->syms = calloc(m, sizeof(*out->syms));
	if (!self || !total || !run_sum || !ss || !ts || !seen || !out->syms)
		goto out;
	tally(t, self, total, ss, ts, seen, run_sum);
	for (int r = 0; r < nr; r++)
		out->sum += run_sum[r];
	for (size_t i = 0; i < pb_stacks_nr(t); i++)
		if (!pb_stacks_at(t, i, &st))
			out->samples += st.samples;
	interval(run_sum, nr, &out->per_run_mean, &out->per_run_lo, &out->per_run_hi);
	out->nsyms = ns;
	fill_syms(t, self, total, ss, ts, out->sum, out);
	qsort(out->syms, ns, sizeof(*out->syms), by_self);
	err = per_dso(t, self, ss, out->sum, out);
out:
	free(self), free(total), free(run_sum), free(ss), free(ts), free(seen);
	if (err)
		pb_stacks_figures_free(out);
	return err;
}

void pb_stacks_figures_free(struct pb_stacks_figs *f)
{
	free(f->syms);
	free(f->dsos);
	memset(f, 0, sizeof(*f));
}
