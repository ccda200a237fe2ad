/* SPDX-License-Identifier: MIT */
/*
 * The speed around each run of a set (part of the runs object, with runs.c): both references
 * of speed.c, the core's issue throughput available to a thread (pb_speed_loop) and the clock
 * (pb_clock_loop, latency-bound), read on pbench's thread right before and right after the
 * run, outside the timed span; once the runs are done, each run's factors against the best
 * readings of the invocation (all sets), and each set's summaries. Where a run's own counters
 * allow it, the clock is also read from the PMU over the run itself (its cycles over its
 * task-clock against the best run's), and a set with such runs blames and says that clock
 * (clock_source; the loop's clock stays in the JSON).
 *
 * Where: a command may run on another CPU than pbench's thread (unprepared, or prepared on a
 * list of CPUs). The reading after a run is taken on the CPU the command's process ended on
 * (read while it was a zombie, child.c): pbench's thread is moved there for the reading and
 * its affinity put back right after. The reading before cannot know where the command will
 * run: it is taken on the CPU the previous command ended on (the check run's, for the first;
 * of any set sharing the loop: a contest's entrants, struct pb_speed_spot), where a command
 * most likely lands again and from where pbench then starts it; without one, where pbench's
 * thread is. Not the set's own previous CPU: pbench would then start each entrant of a
 * contest from its own CPU, and on a machine whose CPUs differ an A/A comparison of two
 * identical commands found one 1-5% faster (t_compare's A/A, unprepared). A command with processes of its own: its main
 * process's CPU is the one known. The workload runs on pbench's thread: read where it is.
 * Prepared on one CPU, all of these are that CPU and the thread is already pinned there.
 *
 * A run's reading after is the next run's before when both are on one CPU and no more than
 * PB_SPEED_REUSE_NS apart (nothing but the bookkeeping of a run between them): the same
 * moment read once, not twice. Moving onto a busy CPU costs milliseconds; this halves it.
 * The reading after a run stops at its first pass that agrees (within 1%,
 * pb_speed_read_near()) with the last reading on the same CPU (the run's before, or an earlier
 * one where an unprepared command ended on the other CPU): one pass of each reference instead
 * of three in most runs, 40 us a run less on the development VM.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "runs/runs_inner.h"

#define PB_SPEED_REUSE_NS 10e6
/* A pass of each reference around a run: 5 us, not the 10 of PBENCH_SPEED_LOOP_NS. A run's
 * reading after it is one pass of each in most runs, so this is most of its cost: the JSON's
 * speed.cost_ns_median for `pbench stat -r 400 -- true` went from 20-37 us to 10-14 us here,
 * and the factors' range stayed (0.88-0.95 to 0.998-1.000 either way, a busy VM). At the
 * TSC's resolution (under 1 ns) a 5 us pass still resolves 0.02%. */
#define PB_RUN_SPEED_PASS_NS 5000.0

/* Both references: the throughput's into *ns, the clock's into *clk; near and near_clk the
 * readings taken just before on the same CPU (NaN: none), which let a reading stop at its
 * first pass that agrees with them (pb_speed_read_near()). */
static void read_into(struct pbench_runs *r, struct pb_run *run, double near, double near_clk,
		      double *ns, double *clk)
{
	double cost = 0;

	*ns = *clk = NAN;
	if (!r->speed && pb_speed_new_pass(&r->speed, PB_RUN_SPEED_PASS_NS))
		r->speed = NULL;
	if (r->speed && !pb_speed_read_near(r->speed, near, ns, &cost))
		run->speed_cost_ns += cost;
	if (r->speed && !pb_speed_read_clock_near(r->speed, near_clk, clk, &cost))
		run->speed_cost_ns += cost;
}

/* Both references on cpu (-1: where the thread is): the thread moved there when it may run
 * elsewhere, its affinity put back at once (the moves' cost is the reading's, outside the
 * timed span). near, near_clk: as read_into()'s. The CPU the reading was taken on, or -1. */
static int read_on(struct pbench_runs *r, struct pb_run *run, int cpu, double near,
		   double near_clk, double *ns, double *clk)
{
	uint64_t t0 = pbench_ticks();
	double cost = run->speed_cost_ns;
	cpu_set_t was, one;
	int moved = 0, at;

	if (cpu >= 0 && cpu < CPU_SETSIZE && !sched_getaffinity(0, sizeof(was), &was) &&
	    !(CPU_COUNT(&was) == 1 && CPU_ISSET(cpu, &was))) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		moved = !sched_setaffinity(0, sizeof(one), &one);
	}
	read_into(r, run, near, near_clk, ns, clk);
	at = isfinite(*ns) || isfinite(*clk) ? sched_getcpu() : -1;
	if (moved) {
		sched_setaffinity(0, sizeof(was), &was);
		run->speed_cost_ns = cost + pbench_ticks_to_ns_f((double)(pbench_ticks() - t0));
	}
	return at < 0 ? -1 : at;
}

/* The CPU a reading for cpu (-1: where the thread is) would be taken on when that is known
 * before taking it: cpu, or the one CPU the thread may run on; else -1. */
static int reading_cpu(int cpu)
{
	cpu_set_t was;

	if (cpu >= 0)
		return cpu;
	if (sched_getaffinity(0, sizeof(was), &was) || CPU_COUNT(&was) != 1)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &was))
			return c;
	return -1;
}

static void remember(struct pbench_runs *r, int at, double ns, double clk)
{
	if (at >= 0 && at < PB_SPEED_LAST_CPUS) {
		r->spot->last_ref[at] = ns;
		r->spot->last_clk[at] = clk;
	}
	r->spot->cpu = at;
	r->spot->ref_ns = ns;
	r->spot->clk_ns = clk;
	r->spot->at = pbench_ticks();
}

void pb_runs_speed_before(struct pbench_runs *r, struct pb_run *run, int cpu)
{
	int want = reading_cpu(cpu);

	run->speed = run->ref_after_ns = run->clock = run->clk_after_ns = run->clock_pmu = NAN;
	run->speed_cost_ns = 0;
	run->ref_after_cpu = -1;
	if (r->spot->at && want >= 0 && want == r->spot->cpu &&
	    pbench_ticks_to_ns_f((double)(pbench_ticks() - r->spot->at)) <= PB_SPEED_REUSE_NS) {
		run->ref_before_ns = r->spot->ref_ns;
		run->clk_before_ns = r->spot->clk_ns;
		run->ref_before_cpu = want;
		return;
	}
	run->ref_before_cpu = read_on(r, run, cpu, NAN, NAN, &run->ref_before_ns,
				      &run->clk_before_ns);
	if (run->ref_before_cpu >= 0 && run->ref_before_cpu < PB_SPEED_LAST_CPUS) {
		r->spot->last_ref[run->ref_before_cpu] = run->ref_before_ns;
		r->spot->last_clk[run->ref_before_cpu] = run->clk_before_ns;
	}
}

/* The reading after a run: where the CPU it is taken on is known, the last reading there (the
 * run's before, or for a command that ended on another CPU an earlier one) lets it stop
 * early. Only the passes' count depends on it: a pass slower than it by more than 1% (an
 * interrupt, or a CPU slower since) takes the others. */
void pb_runs_speed_after(struct pbench_runs *r, struct pb_run *run, int cpu)
{
	int want = reading_cpu(cpu), same = want >= 0 && want == run->ref_before_cpu,
	    known = want >= 0 && want < PB_SPEED_LAST_CPUS && r->spot->last_ref[want] > 0;

	run->ref_after_cpu = read_on(r, run, cpu, same ? run->ref_before_ns :
				     known ? r->spot->last_ref[want] : NAN,
				     same ? run->clk_before_ns : known ? r->spot->last_clk[want] : NAN,
				     &run->ref_after_ns, &run->clk_after_ns);
	if (run->ref_after_cpu >= 0)
		remember(r, run->ref_after_cpu, run->ref_after_ns, run->clk_after_ns);
	else
		r->spot->at = 0;
}

/*
 * r reads from's reference loop (made now if it was not yet: calibrated where the caller
 * runs), so that their readings are of one loop and their factors on one scale: a contest's
 * entrants. from must outlive r's readings; r never frees it. 0 or -ENOMEM.
 */
int pb_runs_share_speed(struct pbench_runs *r, struct pbench_runs *from)
{
	if (!from->speed && pb_speed_new_pass(&from->speed, PB_RUN_SPEED_PASS_NS)) {
		from->speed = NULL;
		return -ENOMEM;
	}
	if (r == from)
		return 0;
	if (!r->speed_borrowed)
		pbench_speed_free(r->speed);
	r->speed = from->speed;
	r->speed_borrowed = 1;
	r->spot = from->spot;
	return 0;
}

/* Which factors of a run: the throughput's, the clock's as blamed (the PMU's where the set
 * has it, else the loop's), the clock reference loop's, the PMU's. */
enum { K_THR, K_CLOCK, K_LOOP, K_PMU };

static int kind_of(const struct pb_set *s, int kind)
{
	if (kind == K_CLOCK)
		return s->clock_source == PBENCH_SPEED_SOURCE_PMU ? K_PMU : K_LOOP;
	return kind;
}

static double factor_of(const struct pb_set *s, const struct pb_run *run, int kind)
{
	kind = kind_of(s, kind);
	return kind == K_THR ? run->speed : kind == K_LOOP ? run->clock : run->clock_pmu;
}

/* A set's times and factors of one kind, runs ended at the timeout left out; n of them. */
static int set_arrays(const struct pb_set *s, double **ns, double **f, int kind)
{
	int n = 0;

	*ns = malloc((size_t)(s->done ? s->done : 1) * sizeof(**ns));
	*f = malloc((size_t)(s->done ? s->done : 1) * sizeof(**f));
	if (!*ns || !*f) {
		free(*ns);
		free(*f);
		return -ENOMEM;
	}
	for (int i = 0; i < s->done; i++)
		if (pb_run_measured(s->runs[i].timed_out)) {
			(*ns)[n] = (double)s->runs[i].ns;
			(*f)[n++] = factor_of(s, &s->runs[i], kind);
		}
	return n;
}

static int summary_of(const struct pb_set *s, struct pbench_speed_summary *out, int kind)
{
	struct pbench_speed_summary o = { .size = sizeof(o) };
	double *ns, *f;
	int n = set_arrays(s, &ns, &f, kind), err;

	if (n < 0)
		return n;
	err = pbench_speed_summarize(ns, f, (size_t)n, &o);
	o.source = kind_of(s, kind) == K_PMU ? PBENCH_SPEED_SOURCE_PMU :
		   PBENCH_SPEED_SOURCE_REFERENCE;
	pb_copy_out(out, &o, sizeof(o));
	free(ns);
	free(f);
	return err;
}

int pb_runs_speed_summary(const struct pb_set *s, struct pbench_speed_summary *out)
{
	return summary_of(s, out, K_THR);
}

int pb_runs_clock_summary(const struct pb_set *s, struct pbench_speed_summary *out)
{
	return summary_of(s, out, K_CLOCK);
}

int pb_runs_clock_summary_from(const struct pb_set *s, int source,
			       struct pbench_speed_summary *out)
{
	return summary_of(s, out, source == PBENCH_SPEED_SOURCE_PMU ? K_PMU : K_LOOP);
}

int pb_runs_blame_factor(const struct pb_set *s, int i, double *factor, double *typical)
{
	struct pbench_speed_summary t = { .size = sizeof(t) };
	double clock = factor_of(s, &s->runs[i], K_CLOCK);

	*factor = s->runs[i].speed;
	*typical = s->speed_typical;
	if (!isfinite(clock) || !isfinite(s->clock_typical))
		return 0;
	/* The throughput only when the command's own times follow it. */
	if (!pb_runs_speed_summary(s, &t) && t.range >= PBENCH_SPEED_VARIED && t.corr >= 0.5)
		return 0;
	*factor = clock;
	*typical = s->clock_typical;
	return 1;
}

/* The run's cycles over its task-clock, in GHz: NaN unless both were counted all the run
 * long. Cycles as named ("cycles", "cpu-cycles"; not cycles:u, and not one the paranoia
 * setting made user-only: task-clock is the kernel's time too), never multiplexed (on a
 * counter all the time it was enabled: the whole run, as task-clock). */
static double run_ghz(const struct pbench_runs *r, const struct pb_run *run)
{
	const struct pbench_count *cyc = NULL, *tc = NULL;

	for (int e = 0; run->counts && e < r->nr; e++) {
		const char *name = pbench_counters_name(r->self, e);

		if (name && (!strcmp(name, "cycles") || !strcmp(name, "cpu-cycles")))
			cyc = &run->counts[e];
		else if (name && !strcmp(name, "task-clock"))
			tc = &run->counts[e];
	}
	if (!cyc || !tc || !pb_event_counted(cyc) || !pb_event_counted(tc) || cyc->user_only ||
	    cyc->is_scaled || cyc->time_running != cyc->time_enabled || !cyc->value ||
	    !(tc->scaled > 0))
		return NAN;
	return (double)cyc->value / tc->scaled;
}

void pb_runs_clock_pmu_of(struct pbench_runs *const *rs, int nr)
{
	double best = NAN;

	for (int pass = 0; pass < 2; pass++)
		for (int j = 0; j < nr; j++)
			for (int s = 0; rs[j] && s < rs[j]->nsets; s++) {
				struct pb_set *set = &rs[j]->sets[s];
				int have = 0;

				for (int i = 0; i < set->done; i++) {
					struct pb_run *run = &set->runs[i];
					double g = pb_run_measured(run->timed_out) ?
						   run_ghz(rs[j], run) : NAN;

					if (!pass && isfinite(g) && !(g <= best))
						best = g;
					run->clock_pmu = pass ? g / best : NAN;
					have += pass && isfinite(run->clock_pmu);
				}
				if (pass) {
					struct pbench_speed_summary sum = { .size = sizeof(sum) };

					set->clock_source = have ? PBENCH_SPEED_SOURCE_PMU :
							    PBENCH_SPEED_SOURCE_REFERENCE;
					set->clock_typical = summary_of(set, &sum, K_CLOCK) ? NAN :
							     sum.median;
				}
			}
	for (int j = 0; j < nr; j++)
		if (rs[j])
			rs[j]->clock_pmu_best_ghz = best;
}

/* Every run's readings of one reference (clock: the clock's), their factors against the best
 * reading of them all (bursts left out: pbench_speed_factors()), into each run, and each
 * set's typical factor (the PMU's clock then replaces the clock's: pb_runs_clock_pmu_of());
 * the best reading, NaN without. */
static double factors_of(struct pbench_runs *const *rs, int nr, size_t n, int clock)
{
	double *b = malloc(n * 3 * sizeof(*b)), *a, *f, best = NAN;
	size_t k = 0;

	if (!b)
		return NAN;
	a = b + n;
	f = a + n;
	for (size_t i = 0; i < 3 * n; i++)
		b[i] = NAN;
	for (int j = 0; j < nr; j++)
		for (int s = 0; rs[j] && s < rs[j]->nsets; s++)
			for (int i = 0; i < rs[j]->sets[s].done && k < n; i++, k++) {
				const struct pb_run *run = &rs[j]->sets[s].runs[i];

				b[k] = clock ? run->clk_before_ns : run->ref_before_ns;
				a[k] = clock ? run->clk_after_ns : run->ref_after_ns;
			}
	if (!pbench_speed_factors(b, a, n, f, &best)) {
		k = 0;
		for (int j = 0; j < nr; j++)
			for (int s = 0; rs[j] && s < rs[j]->nsets; s++) {
				struct pbench_speed_summary sum = { .size = sizeof(sum) };
				struct pb_set *set = &rs[j]->sets[s];

				for (int i = 0; i < set->done; i++)
					*(clock ? &set->runs[i].clock : &set->runs[i].speed) = f[k++];
				*(clock ? &set->clock_typical : &set->speed_typical) =
					summary_of(set, &sum, clock ? K_LOOP : K_THR) ? NAN :
					sum.median;
			}
	}
	free(b);
	return best;
}

/* Every run's factors, of both references, on one scale over the sets and the subjects
 * (several: a contest's entrants, whose speeds are then on one scale). */
void pb_runs_speed_factors_of(struct pbench_runs *const *rs, int nr)
{
	double best = NAN, clock_best = NAN;
	size_t n = 0;

	for (int j = 0; j < nr; j++)
		for (int s = 0; rs[j] && s < rs[j]->nsets; s++)
			n += (size_t)rs[j]->sets[s].done;
	if (n) {
		best = factors_of(rs, nr, n, 0);
		clock_best = factors_of(rs, nr, n, 1);
		pb_runs_clock_pmu_of(rs, nr);
	}
	for (int j = 0; j < nr; j++)
		if (rs[j]) {
			rs[j]->speed_best_ns = best;
			rs[j]->clock_best_ns = clock_best;
		}
}

void pb_runs_speed_factors(struct pbench_runs *r)
{
	pb_runs_speed_factors_of(&r, 1);
}

/* The median cost of the readings around a run, in ns; NaN without runs. */
double pb_runs_speed_cost(const struct pb_set *s)
{
	double *v = malloc((size_t)(s->done ? s->done : 1) * sizeof(*v)), m = NAN;
	int n = 0;

	for (int i = 0; v && i < s->done; i++)
		if (s->runs[i].speed_cost_ns > 0)
			v[n++] = s->runs[i].speed_cost_ns;
	if (n) {
		struct pbench_summary sum = { .size = sizeof(sum) };

		if (!pbench_stats_summary(v, (size_t)n, NULL, &sum))
			m = sum.median;
	}
	free(v);
	return m;
}

/* ---- public ------------------------------------------------------------------------------- */

int pbench_runs_speed(const struct pbench_runs *r, int s, struct pbench_speed_summary *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_speed_summary, 0, NULL)))
		return err;
	if (!r || s < 0 || s >= r->nsets)
		return pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	return pb_runs_speed_summary(&r->sets[s], out);
}

int pbench_runs_clock(const struct pbench_runs *r, int s, struct pbench_speed_summary *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_speed_summary, 0, NULL)))
		return err;
	if (!r || s < 0 || s >= r->nsets)
		return pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	return pb_runs_clock_summary(&r->sets[s], out);
}

/* Every set's factors of one kind together: how much each reference varied over the
 * measurement (a clock's source: the PMU's when a set's clock is). */
static int all_factors(const struct pbench_runs *r, struct pbench_speed_summary *out, int kind)
{
	size_t n = 0, k = 0;
	double *f;
	int err;

	for (int s = 0; s < r->nsets; s++)
		n += (size_t)r->sets[s].done;
	f = malloc((n ? n : 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (int s = 0; s < r->nsets; s++)
		for (int i = 0; i < r->sets[s].done; i++)
			f[k++] = factor_of(&r->sets[s], &r->sets[s].runs[i], kind);
	err = pbench_speed_summarize(NULL, f, k, out);
	for (int s = 0; kind == K_CLOCK && s < r->nsets; s++)
		if (r->sets[s].clock_source == PBENCH_SPEED_SOURCE_PMU)
			out->source = PBENCH_SPEED_SOURCE_PMU;
	free(f);
	return err;
}

int pbench_runs_speed_note(const struct pbench_runs *r, char *buf, size_t len)
{
	struct pbench_speed_summary all = { .size = sizeof(all) }, clk = { .size = sizeof(clk) };
	int have_clk, which;
	size_t n;

	if (!r || (!buf && len))
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	if (all_factors(r, &all, K_THR))
		return 0;
	have_clk = !all_factors(r, &clk, K_CLOCK);
	/* The clock's when it varied (the CPU's speed did), else the throughput's. */
	if ((which = pb_speed_which(&all, have_clk ? &clk : NULL)) < 0)
		return 0;
	if (which) {
		all = clk;
		n = (size_t)snprintf(buf, len, "the CPU's clock varied %.2fx during the runs (%.2fx "
				     "to %.2fx of its best, %s", all.range, all.min, all.max,
				     pb_speed_clock_words(&clk));
	} else {
		n = (size_t)snprintf(buf, len, "%s varied %.2fx during the runs (%.2fx to %.2fx of "
				     "its best; the clock %s", PB_SPEED_THROUGHPUT, all.range,
				     all.min, all.max, !have_clk ? "not read" :
				     clk.source == PBENCH_SPEED_SOURCE_PMU ? "did not change, "
				     PB_SPEED_PMU_CLOCK : "did not change");
	}
	for (int s = 0; s < r->nsets; s++) {
		struct pbench_speed_summary one = { .size = sizeof(one) };

		if (summary_of(&r->sets[s], &one, which ? K_CLOCK : K_THR) || !isfinite(one.corr) ||
		    !(one.range >= PBENCH_SPEED_VARIED))
			continue;
		n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
				      "; in the %s runs %.2fx, time against 1/%s r = %.2f: %s",
				      pbench_runs_mode_name(r->sets[s].mode), one.range,
				      which ? "clock" : "throughput", one.corr,
				      pb_speed_corr_words(one.corr));
	}
	n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, ")");
	return (int)n;
}

void pb_runs_speed_verdict(const struct pbench_runs *r, char *verdict, size_t len)
{
	size_t n = strlen(verdict);

	if (n + 2 < len && pbench_runs_speed_note(r, verdict + n + 2, len - n - 2) > 0)
		memcpy(verdict + n, "; ", 2);
}
