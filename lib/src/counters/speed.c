/* SPDX-License-Identifier: MIT */
/*
 * The speed references (issue 27: each named as what it reads, never "the CPU's own speed"
 * for the first): the core's issue throughput available to a thread, a loop of fixed
 * register-only work (the xor loop's kind: one dependent ALU operation an iteration, nothing
 * from memory), and the clock, a latency-bound chain (pb_clock_loop), each calibrated to about
 * 10 us a pass (PBENCH_SPEED_LOOP_NS; the runs' readings around each run 5 us,
 * pb_speed_new_pass()); a reading is the fastest of three passes, so that an interrupt in one pass
 * does not count as a slow reading. A span's factor is the best reading of the invocation
 * over the mean of the readings around it; over a series of runs, a reading both its
 * neighbours in time disagree with is a burst of tens of microseconds that no run lasts, and
 * is left out, and the best is the fastest reading another one confirms (a faster one that
 * none confirms is left out as well, so no factor is above 1). Then the factors of a set of
 * runs summarized, and in words. The probes of pbench check (threads on a CPU) are
 * speed_probe.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/base.h"
#include "counters/counters.h"

#define CALIB_START 256ULL
#define CALIB_MAX (1ULL << 30)

#define CONFIRM 1.03	/* a reading confirms another this close */

/* Every reading of one reference, for the best one that another confirms. */
struct readings {
	double *v;
	size_t n, cap;
};

struct pbench_speed {
	uint64_t iterations;		/* the throughput reference's (pb_speed_loop) */
	uint64_t clock_iterations;	/* the clock's (pb_clock_loop); 0 until its first read */
	double pass_ns;			/* what a pass of each is calibrated to */
	struct readings thr, clk;
};

/* Not inlined, so that every caller runs the same code. */
__attribute__((noinline)) uint64_t pb_speed_loop(uint64_t n, uint64_t seed)
{
	uint64_t r = seed;

	for (uint64_t i = 0; i < n; i++) {
		r ^= i ^ seed;
		/* Keep the loop a loop: without this the compiler folds it to a closed form. */
		__asm__ volatile("" : "+r"(r));
	}
	return r;
}

/*
 * The clock's reference: one dependent chain of multiply and add (imul's 3 cycles and add's
 * 1 on x86 cores of the last decade, a 4-cycle step), so an iteration takes the chain's
 * latency whatever else the core issues: an SMT sibling sharing the core leaves it at its
 * speed, a slower clock slows it. Not inlined, like the loop above.
 */
__attribute__((noinline)) uint64_t pb_clock_loop(uint64_t n, uint64_t seed)
{
	uint64_t r = seed | 1;

	for (uint64_t i = 0; i < n; i++) {
		r = r * 0x9E3779B97F4A7C15ULL + i;
		/* Keep the chain a chain: no closed form, no reassociation. */
		__asm__ volatile("" : "+r"(r));
	}
	return r;
}

double pb_clock_pass(uint64_t iterations)
{
	uint64_t t0 = pbench_ticks_begin(), t1;

	pb_clock_loop(iterations, t0);
	t1 = pbench_ticks_end();
	return pbench_ticks_to_ns_f((double)(t1 - t0));
}

double pb_speed_pass(uint64_t iterations)
{
	uint64_t t0 = pbench_ticks_begin(), t1;

	pb_speed_loop(iterations, t0);
	t1 = pbench_ticks_end();
	return pbench_ticks_to_ns_f((double)(t1 - t0));
}

static double fastest_of(double (*pass)(uint64_t), uint64_t iterations, int reps)
{
	double best = INFINITY;

	for (int i = 0; i < reps; i++)
		best = fmin(best, pass(iterations));
	return best;
}

static uint64_t calibrate(double (*pass)(uint64_t), double target_ns)
{
	uint64_t n = CALIB_START;
	double t;

	/* Double until a pass is long enough to scale from (a quarter of the target), then
	 * scale: the clock's resolution is then well below 1% of it. */
	while ((t = fastest_of(pass, n, PBENCH_SPEED_REPS)) < target_ns / 4 && n < CALIB_MAX)
		n *= 2;
	if (t > 0 && isfinite(t))
		n = (uint64_t)fmax(1, fmin((double)CALIB_MAX, (double)n * target_ns / t));
	return n;
}

uint64_t pb_speed_calibrate(double target_ns)
{
	return calibrate(pb_speed_pass, target_ns);
}

uint64_t pb_clock_calibrate(double target_ns)
{
	return calibrate(pb_clock_pass, target_ns);
}

int pb_speed_new_pass(struct pbench_speed **out, double pass_ns)
{
	struct pbench_speed *s;

	if (!out || !(pass_ns > 0))
		return -EINVAL;
	*out = s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->pass_ns = pass_ns;
	s->iterations = pb_speed_calibrate(pass_ns);
	return 0;
}

int pbench_speed_new(struct pbench_speed **out)
{
	return pb_speed_new_pass(out, PBENCH_SPEED_LOOP_NS);
}

void pbench_speed_free(struct pbench_speed *s)
{
	if (s) {
		free(s->thr.v);
		free(s->clk.v);
	}
	free(s);
}

/* Kept for the best; a reading that finds no memory is left out of it. */
static void keep(struct readings *r, double ns)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		double *p = realloc(r->v, cap * sizeof(*p));

		if (!p)
			return;
		r->v = p;
		r->cap = cap;
	}
	r->v[r->n++] = ns;
}

/*
 * A reading: the fastest of PBENCH_SPEED_REPS passes; with a reading taken just before on the
 * same CPU (near_ns finite: the one before a run, read again after it), it stops at the first
 * pass no slower than that one by more than NEAR. A pass an interrupt or a burst hit is
 * slower by far more (an interrupt costs microseconds on a VM, a pass 5 or 10 us), so it
 * still takes the other passes; one within NEAR is the speed of now, measured, and two more
 * passes would only move the fastest by the passes' own spread (+-0.27% between two 10 us
 * passes in a row here). So a run's reading after it is mostly one pass of each reference
 * instead of three (bench_harness).
 */
#define NEAR 1.01

static void read_one(double (*pass)(uint64_t), uint64_t iterations, struct readings *r,
		     double near_ns, double *ns, double *cost_ns)
{
	uint64_t t0 = pbench_ticks();
	double t = INFINITY;

	for (int i = 0; i < PBENCH_SPEED_REPS; i++) {
		t = fmin(t, pass(iterations));
		if (near_ns > 0 && t <= near_ns * NEAR)
			break;
	}

	if (cost_ns)
		*cost_ns = pbench_ticks_to_ns_f((double)(pbench_ticks() - t0));
	*ns = t;
	if (t > 0 && isfinite(t))
		keep(r, t);
}

int pb_speed_read_near(struct pbench_speed *s, double near_ns, double *ns, double *cost_ns)
{
	if (!s || !ns)
		return -EINVAL;
	read_one(pb_speed_pass, s->iterations, &s->thr, near_ns, ns, cost_ns);
	return 0;
}

int pbench_speed_read(struct pbench_speed *s, double *ns, double *cost_ns)
{
	return pb_speed_read_near(s, NAN, ns, cost_ns);
}

int pb_speed_read_clock_near(struct pbench_speed *s, double near_ns, double *ns,
			     double *cost_ns)
{
	if (!s || !ns)
		return -EINVAL;
	/* Calibrated at its first reading: a caller that never reads the clock pays nothing. */
	if (!s->clock_iterations)
		s->clock_iterations = pb_clock_calibrate(s->pass_ns);
	read_one(pb_clock_pass, s->clock_iterations, &s->clk, near_ns, ns, cost_ns);
	return 0;
}

int pbench_speed_read_clock(struct pbench_speed *s, double *ns, double *cost_ns)
{
	return pb_speed_read_clock_near(s, NAN, ns, cost_ns);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pbench_speed_best(const double *readings, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), best = NAN;
	size_t k = 0;

	if (!v || !readings) {
		free(v);
		return NAN;
	}
	for (size_t i = 0; i < n; i++)
		if (isfinite(readings[i]) && readings[i] > 0)
			v[k++] = readings[i];
	qsort(v, k, sizeof(*v), cmp_double);
	/* The fastest one the next fastest confirms; none confirmed (or one reading): the
	 * fastest. */
	for (size_t i = 0; i + 1 < k && !isfinite(best); i++)
		if (v[i + 1] <= v[i] * CONFIRM)
			best = v[i];
	if (!isfinite(best) && k)
		best = v[0];
	free(v);
	return best;
}

double pbench_speed_best_ns(const struct pbench_speed *s)
{
	return s ? pbench_speed_best(s->thr.v, s->thr.n) : NAN;
}

double pbench_speed_best_clock_ns(const struct pbench_speed *s)
{
	return s ? pbench_speed_best(s->clk.v, s->clk.n) : NAN;
}

uint64_t pbench_speed_iterations(const struct pbench_speed *s)
{
	return s ? s->iterations : 0;
}

uint64_t pb_speed_clock_iterations(const struct pbench_speed *s)
{
	return s ? s->clock_iterations : 0;
}

static int usable(double x)
{
	return isfinite(x) && x > 0;
}

double pbench_speed_factor(double best_ns, double before_ns, double after_ns)
{
	int b = usable(before_ns), a = usable(after_ns);

	if (!usable(best_ns) || (!a && !b))
		return NAN;
	return best_ns / (a && b ? (before_ns + after_ns) / 2 : b ? before_ns : after_ns);
}

/* 1 when x is PBENCH_SPEED_VARIED apart from y the way dir says (1: slower, -1: faster). */
static int apart(double x, double y, int dir)
{
	return usable(x) && usable(y) && (dir > 0 ? x >= y * PBENCH_SPEED_VARIED :
					  x * PBENCH_SPEED_VARIED <= y);
}

/* seq[i] (the readings in time order, 2 a run) is a burst: its neighbours agree with each
 * other (within 10%) and are both 10% apart from it, on the same side. Neighbours that do not
 * agree are a change of speed, which seq[i] may be part of. */
static int burst(const double *seq, size_t i, size_t k)
{
	double p, n;

	if (i == 0 || i + 1 >= k)
		return 0;
	p = seq[i - 1];
	n = seq[i + 1];
	if (!usable(p) || !usable(n) || fmax(p, n) >= fmin(p, n) * PBENCH_SPEED_VARIED)
		return 0;
	return (apart(seq[i], p, 1) && apart(seq[i], n, 1)) ||
	       (apart(seq[i], p, -1) && apart(seq[i], n, -1));
}

int pbench_speed_factors(const double *before, const double *after, size_t n, double *factors,
			 double *best_ns)
{
	double *seq, *kept, best;
	size_t *at, m = 0;

	if (n && (!before || !after || !factors))
		return -EINVAL;
	if (best_ns)
		*best_ns = NAN;
	if (!n)
		return 0;
	seq = malloc(n * 4 * sizeof(*seq));
	at = malloc(n * 2 * sizeof(*at));
	if (!seq || !at) {
		free(seq);
		free(at);
		return -ENOMEM;
	}
	kept = seq + 2 * n;
	/* A run's reading before may be the one after the run before it (the runs engine reads
	 * once between runs that follow closely): one reading, in the sequence once, so that it
	 * neither hides a burst nor confirms itself. */
	for (size_t i = 0; i < n; i++) {
		if (i && before[i] == after[i - 1]) {
			at[2 * i] = m - 1;
		} else {
			at[2 * i] = m;
			seq[m++] = before[i];
		}
		at[2 * i + 1] = m;
		seq[m++] = after[i];
	}
	for (size_t i = 0; i < m; i++)
		kept[i] = burst(seq, i, m) ? NAN : seq[i];
	best = pbench_speed_best(kept, m);
	/* A reading faster than the best is one no other confirmed (pbench_speed_best()): if it
	 * is not trusted as the best, it is not trusted as a run's speed either, and a factor
	 * above 1 ("1.17x of the CPU's best") would say the best was not the best. */
	for (size_t i = 0; i < m; i++)
		if (kept[i] < best)
			kept[i] = NAN;
	for (size_t i = 0; i < n; i++)
		factors[i] = pbench_speed_factor(best, kept[at[2 * i]], kept[at[2 * i + 1]]);
	if (best_ns)
		*best_ns = best;
	free(seq);
	free(at);
	return 0;
}

/* ---- a set's factors ------------------------------------------------------------------------ */

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Pearson's r of x and y; NaN below 3 pairs or when either does not vary. */
static double pearson(const double *x, const double *y, size_t n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

	if (n < 3)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

static double spread_pct(const double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return n && lo > 0 ? (hi - lo) / lo * 100 : NAN;
}

/* With the times: r against 1/factor, the spread and the spread at one speed. f holds the
 * kept factors, t the kept times (n of each); inv and adj are scratch of n. */
static void against_times(struct pbench_speed_summary *o, const double *t, const double *f,
			  size_t n, double *inv, double *adj)
{
	for (size_t i = 0; i < n; i++) {
		inv[i] = 1 / f[i];
		adj[i] = t[i] * f[i];
	}
	o->corr = pearson(t, inv, n);
	o->spread_pct = spread_pct(t, n);
	o->spread_at_one_speed_pct = spread_pct(adj, n);
}

int pbench_speed_summarize(const double *ns, const double *factors, size_t n,
			   struct pbench_speed_summary *out)
{
	struct pbench_speed_summary o = { .size = sizeof(o), .min = NAN, .median = NAN, .max = NAN,
					  .range = NAN, .corr = NAN, .spread_pct = NAN,
					  .spread_at_one_speed_pct = NAN };
	double *f, *t, *sorted;
	size_t k = 0;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_speed_summary, 0, NULL)))
		return err;
	if (n && !factors)
		return pb_fail(-EINVAL, "%s(): factors is NULL with n %zu", __func__, n);
	f = malloc((n ? n : 1) * 4 * sizeof(*f));
	if (!f)
		return -ENOMEM;
	t = f + n;
	sorted = t + n;
	for (size_t i = 0; i < n; i++)
		if (usable(factors[i]) && (!ns || usable(ns[i]))) {
			f[k] = sorted[k] = factors[i];
			t[k++] = ns ? ns[i] : NAN;
		}
	o.n = (int)k;
	if (k) {
		qsort(sorted, k, sizeof(*sorted), cmp_double);
		o.min = sorted[0];
		o.max = sorted[k - 1];
		o.median = median_sorted(sorted, k);
		o.range = o.max / o.min;
		for (size_t i = 0; i < k; i++)
			o.slow += f[i] < o.max / PBENCH_SPEED_VARIED;
		if (ns)
			against_times(&o, t, f, k, sorted, sorted + n);
	}
	free(f);
	pb_copy_out(out, &o, sizeof(o));
	return k ? 0 : -ENODATA;
}

const char *pb_speed_corr_words(double r)
{
	return r >= 0.8 ? "it explains the spread" : r >= 0.5 ? "part of the spread" :
	       "not what spread the runs";
}

int pbench_speed_note(char *buf, size_t len, const struct pbench_speed_summary *s)
{
	char r[96] = "";

	if ((!buf && len) || !s)
		return -EINVAL;
	if (s->n < 1 || !(s->range >= PBENCH_SPEED_VARIED)) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	if (isfinite(s->corr))
		snprintf(r, sizeof(r), "; time against 1/throughput r = %.2f: %s", s->corr,
			 pb_speed_corr_words(s->corr));
	return snprintf(buf, len, "%s varied %.2fx (%.2fx to %.2fx of its best, throughput "
			"reference; the clock not read), %d run%s slow%s", PB_SPEED_THROUGHPUT,
			s->range, s->min, s->max, s->slow, s->slow == 1 ? "" : "s", r);
}

/* ---- the clock against the share of the core ------------------------------------------------ */

/* The command's own times follow the throughput: r of time against 1/throughput from 0.5. */
static int shows_throughput(const struct pbench_speed_summary *t)
{
	return t->n > 0 && t->range >= PBENCH_SPEED_VARIED && t->corr >= 0.5;
}

static int read_clock(const struct pbench_speed_summary *c)
{
	return c && c->n > 0;
}

/* A clock's summary read from the PMU (a caller's older struct has no source: the loop's). */
static int from_pmu(const struct pbench_speed_summary *c)
{
	return PB_HAS_FIELD(c, source) && c->source == PBENCH_SPEED_SOURCE_PMU;
}

const char *pb_speed_clock_words(const struct pbench_speed_summary *c)
{
	return from_pmu(c) ? PB_SPEED_PMU_CLOCK : "latency-bound reference";
}

int pbench_speed_slow_runs(const struct pbench_speed_summary *thr,
			   const struct pbench_speed_summary *clk)
{
	int slow = 0;

	if (!thr)
		return -EINVAL;
	if (!read_clock(clk))
		return thr->n > 0 && thr->range >= PBENCH_SPEED_VARIED ? thr->slow : 0;
	if (clk->range >= PBENCH_SPEED_VARIED)
		slow = clk->slow;
	/* A run the throughput slowed is blamed on it only when the command shows it. */
	if (shows_throughput(thr) && thr->slow > slow)
		slow = thr->slow;
	return slow;
}

/* 1: some CPU has a sibling thread; 0: none has; -1: not known. */
static int smt_siblings(void)
{
	char buf[256], path[96];
	int known = 0;

	if (pb_read_file("/sys/devices/system/cpu/smt/active", buf, sizeof(buf)) > 0 &&
	    buf[0] >= '1' && buf[0] <= '9')
		return 1;
	for (int cpu = 0; cpu < 8192; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/"
			 "thread_siblings_list", cpu);
		if (pb_read_file(path, buf, sizeof(buf)) <= 0)
			break;
		known = 1;
		if (strpbrk(buf, ",-"))
			return 1;
	}
	return known ? 0 : -1;
}

/* Whether /proc/cpuinfo's first flags line has "hypervisor". */
static int guest(void)
{
	FILE *f = pb_fopen("/proc/cpuinfo");
	char line[8192];
	int yes = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			line[strcspn(line, "\n")] = ' ';
			yes = strstr(line, " hypervisor ") != NULL;
			break;
		}
	if (f)
		fclose(f);
	return yes;
}

const char *pb_speed_sibling_words(void)
{
	int smt = smt_siblings();

	if (smt != 0)
		return PB_SPEED_SIBLING;
	return guest() ? PB_SPEED_HOST_SIBLING : PB_SPEED_NO_SIBLING;
}

int pbench_speed_explain(char *buf, size_t len, const struct pbench_speed_summary *thr,
			 const struct pbench_speed_summary *clk)
{
	int slow, thr_varied, n;
	const char *pmu;
	char r[128] = "";

	if ((!buf && len) || !thr)
		return -EINVAL;
	if (!read_clock(clk))
		return pbench_speed_note(buf, len, thr);
	slow = pbench_speed_slow_runs(thr, clk);
	thr_varied = thr->n > 0 && thr->range >= PBENCH_SPEED_VARIED;
	if (clk->range >= PBENCH_SPEED_VARIED) {
		if (isfinite(clk->corr))
			snprintf(r, sizeof(r), "; time against 1/clock r = %.2f: %s", clk->corr,
				 pb_speed_corr_words(clk->corr));
		return snprintf(buf, len, "the CPU's clock varied %.2fx (%.2fx to %.2fx of its "
				"best, %s), %d run%s slow%s", clk->range, clk->min, clk->max,
				pb_speed_clock_words(clk), slow, slow == 1 ? "" : "s", r);
	}
	if (!thr_varied) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	if (isfinite(thr->corr))
		snprintf(r, sizeof(r), "; time against 1/throughput r = %.2f: %s", thr->corr,
			 pb_speed_corr_words(thr->corr));
	pmu = from_pmu(clk) ? ", " PB_SPEED_PMU_CLOCK : "";
	/* "fell to" the median only when most runs saw it low; a few low readings among runs
	 * at their best are a range, not a fall. */
	if (thr->median < 1 / PBENCH_SPEED_VARIED)
		n = snprintf(buf, len, "%s fell to %.2fx (median; %.2fx to %.2fx of its best); "
			     "the clock did not change (%.2fx to %.2fx%s): %s%s", PB_SPEED_THROUGHPUT,
			     thr->median, thr->min, thr->max, clk->min, clk->max, pmu,
			     pb_speed_sibling_words(), r);
	else
		n = snprintf(buf, len, "%s varied %.2fx to %.2fx of its best (median %.2fx); the "
			     "clock did not change (%.2fx to %.2fx%s): %s at times%s",
			     PB_SPEED_THROUGHPUT, thr->min, thr->max, thr->median, clk->min,
			     clk->max, pmu, pb_speed_sibling_words(), r);
	if (slow && n >= 0)
		n += snprintf((size_t)n < len ? buf + n : NULL, (size_t)n < len ? len - (size_t)n :
			      0, ", %d run%s slow", slow, slow == 1 ? "" : "s");
	return n;
}

int pb_speed_which(const struct pbench_speed_summary *thr, const struct pbench_speed_summary *clk)
{
	if (read_clock(clk) && clk->range >= PBENCH_SPEED_VARIED)
		return 1;
	return thr && thr->n > 0 && thr->range >= PBENCH_SPEED_VARIED ? 0 : -1;
}
