/* SPDX-License-Identifier: MIT */
/*
 * A contest as text (what pbench compare prints) and as Markdown: the verdicts first, in the
 * words a person acts on, then each entrant's times, sorted from the fastest (with a metric,
 * its figures, the better first), the events compared and the derived metrics (a baseline's
 * from its file's runs), how the runs were made and why they stopped.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "counters/counters.h"
#include "measure/measure.h"
#include "counters/counters.h"
#include "runs/runs.h"
#include "contest/contest.h"

/* The figures an entrant's row is of: its times, or with a metric (c->metric) its values of
 * it (a baseline's stored ones). */
static const double *figures(const struct pbench_contest *c, const struct pb_entrant *e,
			     size_t *n)
{
	*n = c->metric ? e->mn : e->n;
	return c->metric ? e->mx : e->x;
}

/* Where an entrant's row goes: its geometric mean time (stored and run alike); with a metric
 * its mean value, negated where higher is better (so the better come first too). */
static double rank(const struct pbench_contest *c, const struct pb_entrant *e)
{
	size_t n;
	const double *x = figures(c, e, &n);
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += c->metric ? x[i] / (double)n : log(x[i]);
	if (!n)
		return NAN;
	return c->metric ? (c->higher_better ? -s : s) : exp(s / (double)n);
}

/* Entrants from the fastest (or the better on the metric); those without figures last. */
static int by_rank(const void *a, const void *b, void *arg)
{
	const struct pbench_contest *c = arg;
	double x = rank(c, &c->e[*(const int *)a]), y = rank(c, &c->e[*(const int *)b]);

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static int *sorted(const struct pbench_contest *c)
{
	int *order = malloc((size_t)(c->n ? c->n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (int i = 0; i < c->n; i++)
		order[i] = i;
	qsort_r(order, (size_t)c->n, sizeof(*order), by_rank, (void *)c);
	return order;
}

/* What the metric's figures are, for a header: a derived metric's label ("insn per cycle"),
 * else a time (task-clock) or a count. */
static const char *unit_words(const struct pbench_contest *c)
{
	int m = pb_metric_find(c->metric);

	if (m >= 0 && pb_metric_label(m) && *pb_metric_label(m))
		return pb_metric_label(m);
	return c->metric_unit && !strcmp(c->metric_unit, "ns") ? "a time" : "a count";
}

static void fmt_time(char *buf, size_t len, double ns)
{
	if (isfinite(ns))
		pbench_format_ns(buf, len, ns, 4);
	else
		snprintf(buf, len, "n/a");
}

/* A figure of the table: a time (task-clock's too), or a metric's value, its unit said in the
 * header (unit_words()). */
static void fmt_figure(const struct pbench_contest *c, char *buf, size_t len, double v)
{
	if (!c->metric || (c->metric_unit && !strcmp(c->metric_unit, "ns")))
		fmt_time(buf, len, v);
	else
		pb_format_figure(buf, len, v, NULL);
}

static void fmt_ratio(char *buf, size_t len, double r, double lo, double hi)
{
	char x[32], a[32], b[32];

	pb_contest_fmt_ratio(x, sizeof(x), r);
	pb_contest_fmt_ratio(a, sizeof(a), lo);
	pb_contest_fmt_ratio(b, sizeof(b), hi);
	if (pb_contest_unbounded(lo, hi))
		snprintf(buf, len, "%.16s (no bound yet)", x);
	else
		snprintf(buf, len, "%.16s (%.16s-%.16s)", x, a, b);
}

/* The reference's ratio column: 1, the others' their ratio with the interval. */
static void fmt_relative(const struct pbench_contest *c, int i, char *buf, size_t len)
{
	const struct pb_entrant *e = &c->e[i];

	if (i == c->o.reference)
		snprintf(buf, len, "1 (reference)");
	else if (!e->have_w)
		snprintf(buf, len, "n/a");
	else
		fmt_ratio(buf, len, e->w.ratio, e->w.ratio_lo, e->w.ratio_hi);
}

static void print_verdicts(FILE *f, const struct pbench_contest *c, const int *order)
{
	char line[768];

	for (int k = 0; k < c->n; k++) {
		if (order[k] == c->o.reference)
			continue;
		pbench_contest_verdict_text(c, order[k], line, sizeof(line));
		pb_format_wrap(f, line, c->o.text_width, 2);
	}
}

/* Under the verdicts, where the reader looks: each command whose prepared result is not its
 * own time (the CPU was busy, or task-clock far below the wall time: pbench_runs_caution()). */
static void print_cautions(FILE *f, const struct pbench_contest *c)
{
	char line[1024], why[640];

	for (int i = 0; i < c->n; i++) {
		struct pbench_runs_set si = { .size = sizeof(si) };

		if (!c->e[i].r || pbench_runs_set_info(c->e[i].r, 0, &si) || !si.unreliable ||
		    pbench_runs_caution(c->e[i].r, 0, why, sizeof(why)) <= 0)
			continue;
		snprintf(line, sizeof(line), "%s: %s: %s", si.unreliable & 1 ? "unreliable" :
			 "caution", c->e[i].name, why);
		pb_format_wrap(f, line, c->o.text_width, 2);
	}
}

/* hyperfine's [User: 1.3 ms, System: 0.5 ms] per command: the means over its runs (getrusage),
 * for the entrants run now (a stored one has none). */
static void print_cpu_time(FILE *f, const struct pbench_contest *c, const int *order, int w)
{
	int head = 0, sampled = 0;

	for (int k = 0; k < c->n; k++) {
		const struct pb_entrant *e = &c->e[order[k]];
		double u, s;
		char a[32], b[32];

		if (!e->r || !e->set)
			continue;
		pb_runs_cpu_time(e->set, &u, &s);
		if (!isfinite(u) || !isfinite(s))
			continue;
		if (!head++)
			pb_wrapf(f, c->o.text_width, 2, "\ncpu time a run (means over the runs, "
				 "getrusage: the command and the children it waited for)");
		pbench_format_ns(a, sizeof(a), u, 3);
		pbench_format_ns(b, sizeof(b), s, 3);
		fprintf(f, "    %-*.*s user %10s, system %10s\n", w, w, e->name, a, b);
		sampled |= u + s < PB_SPLIT_SAMPLED_NS;
	}
	if (sampled)	/* the short runs' split (runs.h) */
		pb_wrapf(f, c->o.text_width, 2, "  under %.0f ms of CPU a run, each sum is exact and "
			 "the split is not: " PB_SPLIT_SAMPLED_WORDS, PB_SPLIT_SAMPLED_NS / 1e6);
}

static void print_table(FILE *f, const struct pbench_contest *c, const int *order)
{
	char head[160];
	int w = 7;

	for (int i = 0; i < c->n; i++)
		w = (int)fmax(w, fmin(40, (double)strlen(c->e[i].name)));
	snprintf(head, sizeof(head), "%s / reference's (interval)", c->metric ? c->metric : "time");
	if (c->metric)
		pb_wrapf(f, c->o.text_width, 2, "\n%s a run (%s), the figure decided on, the %s "
			 "first:", c->metric, unit_words(c), c->higher_better ? "highest" : "lowest");
	fprintf(f, "%s  %-*s %6s %22s %11s %11s %23s  %s\n", c->metric ? "" : "\n", w, "", "runs",
		"mean ± sem", "sd", "median", "min … max", head);
	for (int k = 0; k < c->n; k++) {
		const struct pb_entrant *e = &c->e[order[k]];
		struct pbench_summary s = { .size = sizeof(s) };
		char mean[32] = "n/a", sem[32] = "n/a", sd[32] = "n/a", med[32] = "n/a",
		     lo[32] = "n/a", hi[32] = "n/a", rel[96], both[72];
		size_t n;
		const double *x = figures(c, e, &n);

		if (n && !pbench_stats_summary(x, n, NULL, &s)) {
			fmt_figure(c, mean, sizeof(mean), s.mean);
			fmt_figure(c, sem, sizeof(sem), s.sem);
			fmt_figure(c, sd, sizeof(sd), s.stddev);
			fmt_figure(c, med, sizeof(med), s.median);
			fmt_figure(c, lo, sizeof(lo), s.min);
			fmt_figure(c, hi, sizeof(hi), s.max);
		}
		fmt_relative(c, order[k], rel, sizeof(rel));
		snprintf(both, sizeof(both), "%s ± %s", mean, sem);
		fprintf(f, "  %-*.*s %6zu %22s %11s %11s %11s … %-9s  %s\n", w, w, e->name, n, both,
			sd, med, lo, hi, rel);
	}
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->e[i].name, c->e[i].desc) && c->e[i].r)
			pb_wrapf(f, c->o.text_width, 4, "  %s: %s", c->e[i].name, c->e[i].desc);
	print_cpu_time(f, c, order, w);
}

static void fmt_event_value(char *v, size_t len, const struct pbench_contest_event *x, int time)
{
	if (time) {
		snprintf(v, len, "%.3f ms%s", x->mean / 1e6,
			 x->status == PBENCH_EVENT_MULTIPLEXED ? "*" : "");
	} else {
		pb_format_count(v, len > 1 ? len - 1 : len, x->mean);
		if (x->status == PBENCH_EVENT_MULTIPLEXED)
			strcat(v, "*");
	}
}

static void fmt_event_ratio(char *r, size_t len, const struct pbench_contest_event *x)
{
	if (!isfinite(x->ratio))
		snprintf(r, len, "n/a");
	else if (!isfinite(x->ratio_lo))
		snprintf(r, len, "%.3f (no spread)", x->ratio);
	else
		fmt_ratio(r, len, x->ratio, x->ratio_lo, x->ratio_hi);
}

/* An entrant with runs: one that runs, or a baseline with its file's. */
static int has_runs(const struct pb_entrant *e)
{
	return e->r || e->stored_runs;
}

/* One event: a line per entrant that runs (or a baseline with its file's runs), its mean a run
 * and its ratio to the reference's; one line with the reason when it could not be counted. */
static void print_event(FILE *f, const struct pbench_contest *c, int ev, int w)
{
	const char *name = pbench_contest_event_name(c, ev);
	int time = !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock"), first = 1;
	int counted = 0;

	for (int i = 0; i < c->n; i++) {
		struct pbench_contest_event x = { .size = sizeof(x) };

		counted |= has_runs(&c->e[i]) && !pbench_contest_event(c, i, ev, &x) &&
			   x.status <= PBENCH_EVENT_MULTIPLEXED && isfinite(x.mean);
	}
	for (int i = 0; i < c->n; i++) {
		struct pbench_contest_event x = { .size = sizeof(x) };
		char v[48], r[64] = "";

		if (!has_runs(&c->e[i]) || pbench_contest_event(c, i, ev, &x))
			continue;
		if (x.status > PBENCH_EVENT_MULTIPLEXED || !isfinite(x.mean)) {
			int st = x.status > PBENCH_EVENT_MULTIPLEXED ? x.status :
				 PBENCH_EVENT_NOT_COUNTED;

			if (!counted) {	/* the same for every entrant: one line */
				fprintf(f, "  %-18s <%s> %s\n", name, pb_event_status_text(st),
					x.reason ? x.reason : "");
				return;
			}
			/* an entrant with no run measured, beside others counted */
			fprintf(f, "  %-18s %-*.*s <%s> %s\n", first ? name : "", w, w,
				c->e[i].name, pb_event_status_text(st), x.reason ? x.reason : "");
			first = 0;
			continue;
		}
		fmt_event_value(v, sizeof(v), &x, time);
		if (i != c->o.reference)
			fmt_event_ratio(r, sizeof(r), &x);
		fprintf(f, "  %-18s %-*.*s %14s%s%s\n", first ? name : "", w, w, c->e[i].name, v,
			*r ? "  " : "", r);
		first = 0;
	}
}

/* Events: the mean a run of each entrant that runs, and each one's ratio to the
 * reference's; what could not be counted says so, with the reason. */
static void print_events(FILE *f, const struct pbench_contest *c)
{
	int nr = 0, w = 7;

	for (int i = 0; i < c->n && !nr; i++)
		nr = c->e[i].r ? pbench_runs_nr_events(c->e[i].r) : 0;
	if (!nr)
		return;
	for (int i = 0; i < c->n; i++)
		w = (int)fmax(w, fmin(40, (double)strlen(c->e[i].name)));
	pb_wrapf(f, c->o.text_width, 2, "\nevents, the mean a run (* multiplexed: scaled), and the "
		 "ratio to %s's with its interval:", c->e[c->o.reference].name);
	for (int ev = 0; ev < nr; ev++)
		print_event(f, c, ev, w);
}

/* Each entrant's derived metrics (pbench_runs_metric() of its set): the mean over its runs
 * with the standard error of the mean in %, as perf stat's "+-"; n/a with the reason. */
static void print_metrics(FILE *f, const struct pbench_contest *c)
{
	int nm = 0, w = 7;

	for (int i = 0; i < c->n && !nm; i++)
		nm = c->e[i].r ? pbench_runs_nr_metrics(c->e[i].r) : 0;
	if (!nm)
		return;
	for (int i = 0; i < c->n; i++)
		w = (int)fmax(w, fmin(40, (double)strlen(c->e[i].name)));
	fprintf(f, "\nmetrics, the mean over the runs ( +- its standard error):\n");
	for (int m = 0; m < nm; m++) {
		int first = 1;

		for (int i = 0; i < c->n; i++) {
			struct pbench_metric_summary k = { .size = sizeof(k) };
			char num[48];

			if (!has_runs(&c->e[i]) || pb_contest_metric(c, i, m, &k))
				continue;
			fprintf(f, "  %-18s %-*.*s ", first ? k.name : "", w, w, c->e[i].name);
			first = 0;
			if (k.reason)
				fprintf(f, "n/a: %s\n", k.reason);
			else if (isfinite(k.sem_pct))
				fprintf(f, "%12s %s%s  ( +- %5.2f%% )\n",
					pb_format_figure(num, sizeof(num), k.mean, NULL), k.unit,
					*k.unit ? "" : k.label, k.sem_pct);
			else
				fprintf(f, "%12s %s%s\n", pb_format_figure(num, sizeof(num), k.mean, NULL),
					k.unit, *k.unit ? "" : k.label);
		}
	}
}

static void print_how(FILE *f, const struct pbench_contest *c)
{
	const struct pb_entrant *any = NULL;
	struct pb_set_how how = { 0 };

	for (int i = 0; i < c->n && !any; i++)
		any = c->e[i].r ? &c->e[i] : NULL;
	if (any)
		how = pb_runs_set_how(any->set);
	if (pb_contest_is_duet(c))
		fprintf(f, "\norder: duet, both at once on CPUs %d and %d (swapped every round), "
			"%zu pairs compared\n", c->duet_cpus[0], c->duet_cpus[1],
			c->e[!c->o.reference].npairs);
	else if (c->o.order == PBENCH_CONTEST_ORDER_SEQUENTIAL)
		fprintf(f, "\norder: sequential, all runs of one, then the next\n");
	else
		fprintf(f, "\norder: interleaved, each round in a fresh random order (seed %llu)%s\n",
			(unsigned long long)c->o.seed, pb_contest_paired(c) ? ", each run compared "
			"with the reference's of its round" : "");
	if (any && how.prepared && pb_contest_is_duet(c))
		fprintf(f, "prepared: %s %d for both commands, each pinned to its duet CPU, warm-up "
			"%.0f ms; restored %s\n", how.policy_name, how.prio_value,
			how.warmup_ms,
			how.restore_err ? pbench_strerror(how.restore_err) : "after");
	else if (any && how.prepared)
		fprintf(f, "prepared: CPU %d (%s), %s %d, warm-up %.0f ms; restored %s\n",
			how.cpu, how.cpu_reason, how.policy_name,
			how.prio_value, how.warmup_ms,
			how.restore_err ? pbench_strerror(how.restore_err) : "after");
	else if (any && how.policy_name)
		fprintf(f, "unprepared: no pinning%s, %s %d as started\n",
			pb_contest_is_duet(c) ? " but the duet's" : "", how.policy_name,
			how.prio_value);
	if (c->o.warmup_runs)
		fprintf(f, "warm-up: %ld run%s of each, not kept\n", c->o.warmup_runs,
			c->o.warmup_runs == 1 ? "" : "s");
}

/* The speed a command's runs had, as blamed (pbench_speed_slow_runs()'s rule): the clock's
 * median (*clock 1), or the throughput's when its times follow it or the clock was not read
 * (*clock 0); NaN. */
static double blamed_median(const struct pbench_runs *r, int *clock)
{
	struct pbench_speed_summary m = { .size = sizeof(m) }, k = { .size = sizeof(k) };

	*clock = 0;
	if (!r || pbench_runs_speed(r, 0, &m))
		return NAN;
	if (pbench_runs_clock(r, 0, &k) || (m.range >= PBENCH_SPEED_VARIED && m.corr >= 0.5))
		return m.median;
	*clock = 1;
	return k.median;
}

/* Every command's factors of one reference (clock: the clock's) as one summary's range: min,
 * max, range, n (0: some command has none). */
static void all_range(const struct pbench_contest *c, int clock, struct pbench_speed_summary *o)
{
	o->min = INFINITY;
	o->max = 0;
	o->n = 0;
	for (int i = 0; i < c->n; i++) {
		struct pbench_speed_summary m = { .size = sizeof(m) };

		if (!c->e[i].r)
			continue;
		if (clock ? pbench_runs_clock(c->e[i].r, 0, &m) : pbench_runs_speed(c->e[i].r, 0, &m)) {
			o->n = 0;
			return;
		}
		if (m.source == PBENCH_SPEED_SOURCE_PMU)
			o->source = m.source;
		o->min = fmin(o->min, m.min);
		o->max = fmax(o->max, m.max);
		o->n += m.n;
	}
	o->range = o->n ? o->max / o->min : NAN;
}

/*
 * The speed in each command's runs (both references around each run, on one scale for all),
 * when one varied, said once for all: the clock when it varied (the CPU's speed did), else the
 * core's issue throughput available to this thread with the clock steady (a sibling's
 * contention). Then each command's median of that reference and its slow runs: a command
 * whose runs met a slower clock is slower for that, and the caution says by how much.
 */
static void print_speed(FILE *f, const struct pbench_contest *c)
{
	struct pbench_speed_summary t = { .size = sizeof(t) }, k = { .size = sizeof(k) };
	double ref = NAN;
	int which, shown = 0, clock, ref_clock;

	all_range(c, 0, &t);
	all_range(c, 1, &k);
	if (!t.n || (which = pb_speed_which(&t, &k)) < 0)
		return;
	if (which)
		fprintf(f, "speed: the CPU's clock varied %.2fx (%s, 1 = its best reading; %s "
			"%.2fx to %.2fx):", k.range, pb_speed_clock_words(&k), PB_SPEED_THROUGHPUT,
			t.min, t.max);
	else if (k.n)
		fprintf(f, "speed: %s varied %.2fx (1 = its best reading); the clock did not change "
			"(%.2fx to %.2fx%s): %s:", PB_SPEED_THROUGHPUT, t.range, k.min, k.max,
			k.source == PBENCH_SPEED_SOURCE_PMU ? ", " PB_SPEED_PMU_CLOCK : "",
			pb_speed_sibling_words());
	else
		fprintf(f, "speed: %s varied %.2fx (throughput reference, 1 = its best reading; "
			"the clock not read):", PB_SPEED_THROUGHPUT, t.range);
	for (int i = 0; i < c->n; i++) {
		struct pbench_speed_summary m = { .size = sizeof(m) }, n = { .size = sizeof(n) };
		const struct pbench_speed_summary *o = &m;
		int have;

		if (!c->e[i].r || pbench_runs_speed(c->e[i].r, 0, &m))
			continue;
		have = !pbench_runs_clock(c->e[i].r, 0, &n);
		if (which && have)
			o = &n;
		fprintf(f, "%s %s median %.2fx (%.2fx to %.2fx, %d slow)", shown++ ? ";" : "",
			c->e[i].name, o->median, o->min, o->max,
			pbench_speed_slow_runs(&m, have ? &n : NULL));
	}
	fputc('\n', f);
	ref = blamed_median(c->e[c->o.reference].r, &ref_clock);
	for (int i = 0; i < c->n && isfinite(ref); i++) {
		double med = blamed_median(c->e[i].r, &clock);

		/* Of one reference only: a clock's median against a throughput's says nothing. */
		if (i == c->o.reference || !isfinite(med) || clock != ref_clock ||
		    fabs(log(med / ref)) < log(1.05))
			continue;
		fprintf(f, "caution: %s's runs had %.2f of the %s %s's runs had: part of the "
			"difference is the machine's\n", c->e[i].name, med / ref, clock ? "clock" :
			"issue throughput", c->e[c->o.reference].name);
	}
}

static void print_check_and_stop(FILE *f, const struct pbench_contest *c)
{
	static const char *const why[] = {
		[PBENCH_CONTEST_STOP_DECIDED] = "every verdict reached",
		[PBENCH_CONTEST_STOP_TIME] = "the time budget was spent",
		[PBENCH_CONTEST_STOP_MAX_ROUNDS] = "the most rounds were run",
		[PBENCH_CONTEST_STOP_INTERRUPTED] = "interrupted",
	};
	const struct pb_entrant *ref = &c->e[c->o.reference];

	if (c->o.flags & PBENCH_CONTEST_NO_CHECK)
		fprintf(f, "output check: not made (asked not to)\n");
	else if (c->checked)
		fprintf(f, "output check: every command %s %d and wrote the same %llu bytes "
			"(FNV-1a %016llx)\n", ref->signaled ? "was killed by signal" : "exited",
			ref->signaled ? ref->term_signal : ref->exit_status,
			(unsigned long long)ref->bytes, (unsigned long long)ref->hash);
	for (int i = 0; i < c->n; i++)
		if (c->e[i].set && pb_runs_set_failed(c->e[i].set))
			fprintf(f, "failed: %d of %d runs of %s exited non-zero or were killed\n",
				pb_runs_set_failed(c->e[i].set), pb_runs_set_done(c->e[i].set),
				c->e[i].name);
	fprintf(f, "stopped: %s after %ld round%s in %.1f s (budget: %ld rounds", why[c->stop],
		c->rounds, c->rounds == 1 ? "" : "s", c->elapsed_s, c->o.max_rounds);
	if (c->o.max_time_s > 0)
		fprintf(f, ", %.3g s", c->o.max_time_s);
	fprintf(f, "); tests at %.10g%% each (%.10g%% asked, %s)\n", c->look_level * 100,
		c->o.confidence * 100, c->o.order == PBENCH_CONTEST_ORDER_SEQUENTIAL ||
		(c->o.flags & PBENCH_CONTEST_FULL_BUDGET) ? "one look at the end" :
		"stricter for looking as the rounds come");
}

/* PBENCH_CONTEST_COUNT_MEMORY: each function against the reference, per call. */
static void print_memory(FILE *f, const struct pbench_contest *c)
{
	const struct pb_entrant *ref = &c->e[c->o.reference];
	int said = 0;

	for (int i = 0; i < c->n; i++) {
		const struct pb_entrant *e = &c->e[i];

		if (!e->fn || !e->mem_status || (i == c->o.reference && c->n > 1))
			continue;
		if (!said++)
			fprintf(f, "\nmemory per call (untimed calls after the rounds, counted one "
				"by one):\n");
		if (e->mem_status != PBENCH_MEM_COUNTED || ref->mem_status != PBENCH_MEM_COUNTED) {
			fprintf(f, "  %-13s not counted: %s\n", e->name,
				e->mem_reason ? e->mem_reason : ref->mem_reason ? ref->mem_reason :
				"the reference is not a function");
			continue;
		}
		for (int k = 0; k < 2; k++) {
			struct pbench_mem_comparison m = { .size = sizeof(m) };

			if (!pbench_contest_mem(c, i, k ? PBENCH_MEM_ALLOCS : PBENCH_MEM_BYTES, &m))
				pbench_mem_comparison_write_text(&m, f, ref->name, e->name, "call");
		}
	}
}

/* pb_contest_attach_memory(): each command's runs with the allocator shim (text or
 * Markdown), then each against the reference's on bytes and allocations per run. */
static int print_cmd_memory(FILE *f, const struct pbench_contest *c, int md)
{
	const struct pb_entrant *ref = &c->e[c->o.reference];

	for (int i = 0; i < c->n; i++) {
		const struct pb_entrant *e = &c->e[i];
		int err;

		if (!e->cmd_mem)
			continue;
		fprintf(f, md ? "\n`%s`:\n" : "\n'%s': ", e->name);
		err = md ? pb_mem_runs_write_markdown(e->cmd_mem, e->nr_cmd_mem, f) :
		      pb_mem_runs_write_text(e->cmd_mem, e->nr_cmd_mem, f);
		if (err)
			return err;
	}
	for (int i = 0; i < c->n; i++) {
		static const int kinds[] = { PBENCH_MEM_BYTES, PBENCH_MEM_ALLOCS };
		const struct pb_entrant *e = &c->e[i];

		if (i == c->o.reference || !e->cmd_mem || !ref->cmd_mem)
			continue;
		fprintf(f, "\nmemory of '%s' against '%s':\n", e->name, ref->name);
		if (md)
			fputs("\n```\n", f);
		for (int k = 0; k < 2; k++) {
			struct pbench_mem_comparison m = { .size = sizeof(m) };
			int err = pb_contest_cmd_mem(c, i, kinds[k], &m);

			if (err == -ENODATA) {
				fprintf(f, "  not counted: the shim was not loaded in every run of "
					"both\n");
				break;
			}
			if (err || (err = pbench_mem_comparison_write_text(&m, f, ref->name, e->name,
									  "run")))
				return err;
		}
		if (md)
			fputs("```\n", f);
	}
	return 0;
}

int pbench_contest_write_text(const struct pbench_contest *c, FILE *f)
{
	struct pb_line l;
	int *order;
	FILE *g;

	if (!c || !f)
		return -EINVAL;
	order = sorted(c);
	if (!order)
		return -ENOMEM;
	print_verdicts(f, c, order);
	print_cautions(f, c);
	print_table(f, c, order);
	print_events(f, c);
	print_metrics(f, c);
	g = pb_line_open(&l, f, c->o.text_width, PB_HANG(2));
	print_how(g, c);
	print_speed(g, c);
	print_check_and_stop(g, c);
	pb_line_close(&l);
	if (c->o.flags & PBENCH_CONTEST_COUNT_MEMORY)
		print_memory(f, c);
	pb_contest_profile_text(c, f);	/* opts.profile */
	free(order);
	if (print_cmd_memory(f, c, 0))
		return ferror(f) ? pb_stream_end(f) : -EIO;
	return pb_stream_end(f);
}

/* ---- Markdown ------------------------------------------------------------------------------- */

/* A table cell: | and newlines would break the row. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

/* The table's unit in Markdown: ms for a time (task-clock's too), else the metric's label. */
static double md_scale(const struct pbench_contest *c, char *head, size_t len)
{
	if (!c->metric || (c->metric_unit && !strcmp(c->metric_unit, "ns"))) {
		snprintf(head, len, "ms");
		return 1e6;
	}
	snprintf(head, len, "%s", pb_metric_find(c->metric) >= 0 ? unit_words(c) : "count");
	return 1;
}

static const char *md_fig(char *buf, size_t len, double v, double scale)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (scale == 1e6)
		snprintf(buf, len, "%.3f", v / scale);
	else
		pb_format_figure(buf, len, v, NULL);
	return buf;
}

static void md_table(FILE *f, const struct pbench_contest *c, const int *order)
{
	char u[96];
	double scale = md_scale(c, u, sizeof(u));

	if (c->metric)
		fprintf(f, "On `%s`, the figure decided on, a run (%s first):\n\n", c->metric,
			c->higher_better ? "highest" : "lowest");
	fprintf(f, "| Command | Runs | Mean ± SEM [%s] | SD [%s] | Median [%s] | Min [%s] | Max [%s] | "
		"Relative%s%s%s |\n|:---|---:|---:|---:|---:|---:|---:|---:|\n", u, u, u, u, u,
		c->metric ? " (" : "",
		c->metric ? c->metric : "", c->metric ? ")" : "");
	for (int k = 0; k < c->n; k++) {
		const struct pb_entrant *e = &c->e[order[k]];
		struct pbench_summary s = { .size = sizeof(s) };
		char rel[96], a[32], b[32], sd[32], m[32], lo[32], hi[32];
		size_t n;
		const double *x = figures(c, e, &n);

		fputs("| `", f);
		md_cell(f, e->name);
		fmt_relative(c, order[k], rel, sizeof(rel));
		if (n && !pbench_stats_summary(x, n, NULL, &s))
			fprintf(f, "` | %zu | %s ± %s | %s | %s | %s | %s | %s |\n", n,
				md_fig(a, sizeof(a), s.mean, scale), md_fig(b, sizeof(b), s.sem, scale),
				md_fig(sd, sizeof(sd), s.stddev, scale),
				md_fig(m, sizeof(m), s.median, scale), md_fig(lo, sizeof(lo), s.min, scale),
				md_fig(hi, sizeof(hi), s.max, scale), rel);
		else
			fprintf(f, "` | 0 | n/a | n/a | n/a | n/a | n/a | %s |\n", rel);
	}
}

/* The text's events block as a table: each event of each entrant with runs (a baseline's from
 * its file), its mean a run and its ratio to the reference's with the interval. */
static void md_events(FILE *f, const struct pbench_contest *c)
{
	struct pbench_contest_info info = { .size = sizeof(info) };
	int mux = 0;

	if (pbench_contest_info(c, &info) || !info.nr_events)
		return;
	fprintf(f, "\n| Event | Command | Mean a run | Against `%s` (interval) |\n"
		"|:---|:---|---:|---:|\n", c->e[c->o.reference].name);
	for (int ev = 0; ev < info.nr_events; ev++)
		for (int i = 0; i < c->n; i++) {
			struct pbench_contest_event x = { .size = sizeof(x) };
			const char *name = pbench_contest_event_name(c, ev);
			char v[48], r[64] = "";

			if (!has_runs(&c->e[i]) || pbench_contest_event(c, i, ev, &x))
				continue;
			fprintf(f, "| %s | `", name);
			md_cell(f, c->e[i].name);
			if (x.status > PBENCH_EVENT_MULTIPLEXED || !isfinite(x.mean)) {
				fprintf(f, "` | <%s> ", pb_event_status_text(x.status >
					PBENCH_EVENT_MULTIPLEXED ? x.status : PBENCH_EVENT_NOT_COUNTED));
				md_cell(f, x.reason ? x.reason : "");
				fprintf(f, " | |\n");
				continue;
			}
			fmt_event_value(v, sizeof(v), &x, !strcmp(name, "task-clock") ||
					!strcmp(name, "cpu-clock"));
			mux |= x.status == PBENCH_EVENT_MULTIPLEXED;
			if (i != c->o.reference)
				fmt_event_ratio(r, sizeof(r), &x);
			fprintf(f, "` | %s | %s |\n", v, i == c->o.reference ? "1 (reference)" : r);
		}
	if (mux)
		fprintf(f, "\n\\* multiplexed: scaled.\n");
}

/* The text's metrics block as a table: the mean over the runs, +- its standard error. */
static void md_metrics(FILE *f, const struct pbench_contest *c)
{
	int nm = 0;

	for (int i = 0; i < c->n && !nm; i++)
		nm = c->e[i].r ? pbench_runs_nr_metrics(c->e[i].r) : 0;
	if (!nm)
		return;
	fprintf(f, "\n| Metric | Command | Mean | ± SEM | Unit |\n|:---|:---|---:|---:|:---|\n");
	for (int m = 0; m < nm; m++)
		for (int i = 0; i < c->n; i++) {
			struct pbench_metric_summary k = { .size = sizeof(k) };
			char num[48];

			if (!has_runs(&c->e[i]) || pb_contest_metric(c, i, m, &k))
				continue;
			fprintf(f, "| %s | `", k.name);
			md_cell(f, c->e[i].name);
			if (k.reason) {
				fprintf(f, "` | n/a: ");
				md_cell(f, k.reason);
				fprintf(f, " | | |\n");
			} else if (isfinite(k.sem_pct))
				fprintf(f, "` | %s | %.2f%% | %s |\n",
					pb_format_figure(num, sizeof(num), k.mean, NULL), k.sem_pct,
					*k.unit ? k.unit : k.label);
			else
				fprintf(f, "` | %s | n/a | %s |\n",
					pb_format_figure(num, sizeof(num), k.mean, NULL),
					*k.unit ? k.unit : k.label);
		}
}

int pbench_contest_write_markdown(const struct pbench_contest *c, FILE *f)
{
	char line[768];
	int *order;

	if (!c || !f)
		return -EINVAL;
	order = sorted(c);
	if (!order)
		return -ENOMEM;
	md_table(f, c, order);
	fputc('\n', f);
	for (int k = 0; k < c->n; k++) {
		if (order[k] == c->o.reference)
			continue;
		pbench_contest_verdict_text(c, order[k], line, sizeof(line));
		fprintf(f, "- %s\n", line);
	}
	free(order);
	md_events(f, c);
	md_metrics(f, c);
	pb_contest_profile_markdown(c, f);	/* opts.profile */
	if (print_cmd_memory(f, c, 1))
		return ferror(f) ? pb_stream_end(f) : -EIO;
	return pb_stream_end(f);
}
