/* SPDX-License-Identifier: MIT */
/*
 * The figures of a jitter probe, from what each thread measured: rates, noise time, gap
 * quantiles and histogram, the sources counted over the window, and the sentence that says
 * which of them can account for the gaps and what to do about each.
 *
 * The accounting rests on how an interruption happens: each interrupt the CPU takes (the tick
 * and hrtimers on the local timer, IPIs, devices, NMIs, SMIs) can make one gap; softirqs run on
 * an interrupt's way out and lengthen its gap; a preemption of the probe thread happens on the
 * way out of an interrupt too (the tick, a timer that woke a task, a rescheduling IPI) and
 * shares that gap. What the guest kernel cannot see (the hypervisor taking the vCPU) makes
 * gaps with no interrupt at all.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "noise/noise.h"
#include "jitter/jitter.h"

/* ---- quantiles and histogram ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest length with at least p of the gaps at or below it. */
static double rank(const uint64_t *sorted, size_t n, double p)
{
	size_t k = (size_t)ceil(p * (double)n);

	return (double)sorted[k ? k - 1 : 0];
}

static void quantiles(struct pb_jitter_run *run)
{
	struct pbench_jitter_cpu *r = &run->r;
	uint64_t *len;

	r->p50_ns = r->p90_ns = r->p99_ns = r->p999_ns = NAN;
	if (!run->n || !(len = malloc(run->n * sizeof(*len))))
		return;
	for (size_t i = 0; i < run->n; i++)
		len[i] = run->gaps[i].ticks;
	qsort(len, run->n, sizeof(*len), cmp_u64);
	r->p50_ns = pbench_ticks_to_ns_f(rank(len, run->n, 0.50));
	r->p90_ns = pbench_ticks_to_ns_f(rank(len, run->n, 0.90));
	r->p99_ns = pbench_ticks_to_ns_f(rank(len, run->n, 0.99));
	r->p999_ns = pbench_ticks_to_ns_f(rank(len, run->n, 0.999));
	free(len);
}

/* Bin k covers [edge(k), edge(k + 1)): edges 2^m (k = 2m) and 1.5 * 2^m (k = 2m + 1) ns. */
static double edge(int k)
{
	int m = k >= 0 ? k / 2 : -((-k + 1) / 2);

	return ldexp((k - 2 * m) ? 1.5 : 1.0, m);
}

static int bin_of(double ns)
{
	int e;
	double frac = frexp(ns, &e);	/* ns = frac * 2^e, frac in [0.5, 1) */

	/* ns in [2^(e-1), 2^e): the upper half of the octave starts at 0.75 * 2^e */
	return 2 * (e - 1) + (frac >= 0.75);
}

int pbench_jitter_histogram(const struct pbench_jitter *j, int i, struct pbench_jitter_bin *bins,
			    int max)
{
	const struct pb_jitter_run *run;
	int k0, k1, nb;

	if (!j || i < 0 || i >= j->n || max < 0 || (max && !bins))
		return -EINVAL;
	run = &j->run[i];
	if (!run->n)
		return 0;
	k0 = bin_of(fmax(run->r.threshold_ns, 1));
	k1 = k0;
	for (size_t g = 0; g < run->n; g++) {
		int k = bin_of(fmax(pbench_ticks_to_ns_f((double)run->gaps[g].ticks), 1));

		k1 = k > k1 ? k : k1;
		k0 = k < k0 ? k : k0;
	}
	nb = k1 - k0 + 1;
	for (int b = 0; b < nb && b < max; b++) {
		bins[b].lo_ns = edge(k0 + b);
		bins[b].hi_ns = edge(k0 + b + 1);
		bins[b].count = 0;
	}
	for (size_t g = 0; g < run->n; g++) {
		int b = bin_of(fmax(pbench_ticks_to_ns_f((double)run->gaps[g].ticks), 1)) - k0;

		if (b < max)
			bins[b].count++;
	}
	return nb;
}

int pbench_jitter_quietest(const struct pbench_jitter *j)
{
	int best = -1;

	for (int i = 0; j && i < j->n; i++) {
		const struct pbench_jitter_cpu *r = &j->run[i].r, *b;

		if (r->flags & PBENCH_JITTER_CPU_MIGRATED)
			continue;
		b = best >= 0 ? &j->run[best].r : NULL;
		if (!b || r->noise_pct < b->noise_pct ||
		    (r->noise_pct == b->noise_pct && r->interruptions_per_s < b->interruptions_per_s))
			best = i;
	}
	return best >= 0 ? j->run[best].r.cpu : -1;
}

/* ---- sources ----------------------------------------------------------------------------- */

static struct pb_jitter_src *add_source(struct pb_jitter_run *run, int kind, uint64_t count,
					const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static struct pb_jitter_src *add_source(struct pb_jitter_run *run, int kind, uint64_t count,
					const char *fmt, ...)
{
	struct pbench_jitter_cpu *r = &run->r;
	struct pb_jitter_src *e;
	struct pbench_jitter_source *s;
	va_list ap;

	if (r->nsources >= PBENCH_JITTER_MAX_SOURCES)
		return NULL;
	e = &run->src[r->nsources++];
	memset(e, 0, sizeof(*e));
	s = &e->s;
	s->size = sizeof(*s);
	s->kind = kind;
	s->available = 1;
	s->count = count;
	s->per_s = r->duration_s > 0 ? (double)count / r->duration_s : NAN;
	s->ns = NAN;
	va_start(ap, fmt);
	vsnprintf(e->name, sizeof(e->name), fmt, ap);
	va_end(ap);
	return e;
}

static void unavailable(struct pb_jitter_src *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void unavailable(struct pb_jitter_src *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	e->s.available = 0;
	e->s.count = 0;
	e->s.per_s = NAN;
	va_start(ap, fmt);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
}

/* Available first, by rate (steal by its ticks' rate like the others); unavailable last. */
static int cmp_source(const void *a, const void *b)
{
	const struct pbench_jitter_source *x = a, *y = b;

	if (x->available != y->available)
		return y->available - x->available;
	if (!x->available)
		return x->kind - y->kind;
	return (x->per_s < y->per_s) - (x->per_s > y->per_s);
}

static void sources(struct pb_jitter_run *run)
{
	struct pbench_jitter_cpu *r = &run->r;
	const struct pbench_cpu_noise *n = &run->noise;
	int no_irq = !!(n->flags & PBENCH_CPU_NOISE_NO_IRQ);
	int no_soft = !!(n->flags & PBENCH_CPU_NOISE_NO_SOFTIRQ);
	int no_steal = !!(n->flags & PBENCH_CPU_NOISE_NO_STEAL);
	struct pb_jitter_src *s;

	r->nsources = 0;
	s = add_source(run, PBENCH_JITTER_SOURCE_TIMER, n->irq_timer, "local timer interrupts");
	if (no_irq)
		unavailable(s, "cannot read CPU %d's column of /proc/interrupts", r->cpu);
	s = add_source(run, PBENCH_JITTER_SOURCE_IPI, n->irq_ipi, "IPIs (RES, CAL, TLB, IWI)");
	if (no_irq)
		unavailable(s, "cannot read CPU %d's column of /proc/interrupts", r->cpu);
	if (!no_irq && n->irq_other)
		add_source(run, PBENCH_JITTER_SOURCE_OTHER_IRQ, n->irq_other,
			   "other interrupts (NMI, PMI...)");
	for (int i = 0; !no_irq && i < PBENCH_NOISE_TOP && n->irq_top[i].count; i++)
		add_source(run, PBENCH_JITTER_SOURCE_DEVICE, n->irq_top[i].count, "%s (IRQ %s)",
			   n->irq_top[i].name, n->irq_top[i].label);
	if (!no_irq && n->irq_device > 0) {
		uint64_t named = 0;

		for (int i = 0; i < PBENCH_NOISE_TOP; i++)
			named += n->irq_top[i].count;
		if (n->irq_device > named)
			add_source(run, PBENCH_JITTER_SOURCE_DEVICE, n->irq_device - named,
				   "other device interrupts");
	}
	for (int i = 0; !no_soft && i < PBENCH_NOISE_TOP && n->softirq_top[i].count; i++)
		add_source(run, PBENCH_JITTER_SOURCE_SOFTIRQ, n->softirq_top[i].count, "softirq %s",
			   n->softirq_top[i].label);
	if (no_soft && (s = add_source(run, PBENCH_JITTER_SOURCE_SOFTIRQ, 0, "softirqs")))
		unavailable(s, "cannot read CPU %d's column of /proc/softirqs", r->cpu);
	add_source(run, PBENCH_JITTER_SOURCE_PREEMPTION, run->nivcsw,
		   "preemptions of the probe thread");
	s = add_source(run, PBENCH_JITTER_SOURCE_STEAL, n->steal_ticks, "steal");
	if (s && no_steal)
		unavailable(s, "no steal for CPU %d in /proc/stat", r->cpu);
	else if (s)
		s->s.ns = n->steal_ns;
	s = add_source(run, PBENCH_JITTER_SOURCE_SMI, run->smi, "SMIs (msr/smi)");
	if (s && !run->smi_ok)
		unavailable(s, "%s", run->smi_reason[0] ? run->smi_reason : "not available");
	qsort(run->src, (size_t)r->nsources, sizeof(run->src[0]), cmp_source);
	for (int i = 0; i < r->nsources; i++) {	/* where each one ended up */
		run->src[i].s.name = run->src[i].name;
		run->src[i].s.reason = run->src[i].reason;
	}
}

/* ---- the explanation --------------------------------------------------------------------- */

struct text {
	char *buf;
	size_t len, at;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->at >= t->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->at, t->len - t->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->at = t->at + (size_t)n < t->len ? t->at + (size_t)n : t->len;
}

static const char *rate(char *buf, size_t len, double v)
{
	snprintf(buf, len, v >= 10 || v == 0 ? "%.0f" : "%.2g", v);
	return buf;
}

/* What a source is and how to be rid of it. */
static const char *fix_of(const struct pbench_jitter_source *s, int cpu, char *buf, size_t len)
{
	char nohz[256];
	const char *irq;

	switch (s->kind) {
	case PBENCH_JITTER_SOURCE_TIMER:
		/* Only what can apply here: the boot CPU keeps the tick whatever the kernel, and
		 * nohz_full needs a kernel built for it (it has /sys/.../cpu/nohz_full). */
		if (cpu == 0)
			snprintf(buf, len, "the scheduler tick and hrtimers; CPU 0 keeps the tick "
				 "for timekeeping: measure on another CPU, booted tickless for it "
				 "(nohz_full=)");
		else if (pb_read_file("/sys/devices/system/cpu/nohz_full", nohz, sizeof(nohz)) < 0)
			snprintf(buf, len, "the scheduler tick and hrtimers; fix: a kernel built "
				 "with CONFIG_NO_HZ_FULL (this one is not), booted with nohz_full=%d, "
				 "one task on the CPU", cpu);
		else
			snprintf(buf, len, "the scheduler tick and hrtimers; fix: boot with "
				 "nohz_full=%d, one task on the CPU", cpu);
		break;
	case PBENCH_JITTER_SOURCE_IPI:
		snprintf(buf, len, "other CPUs' wake-ups, TLB shootdowns and function calls; fix: "
			 "keep other tasks and kernel work off CPU %d (isolcpus=, cpusets)", cpu);
		break;
	case PBENCH_JITTER_SOURCE_DEVICE:
		irq = strstr(s->name, "(IRQ ");
		if (irq && strncmp(s->name, "other ", 6))
			snprintf(buf, len, "a device; fix: echo <other CPUs> > /proc/irq/%.*s/"
				 "smp_affinity_list", (int)strcspn(irq + 5, ")"), irq + 5);
		else
			snprintf(buf, len, "devices; fix: move their IRQs to other CPUs "
				 "(/proc/irq/N/smp_affinity_list)");
		break;
	case PBENCH_JITTER_SOURCE_OTHER_IRQ:
		snprintf(buf, len, "NMIs, performance monitoring, machine checks; fix: "
			 "nmi_watchdog=0 if they are NMIs");
		break;
	case PBENCH_JITTER_SOURCE_PREEMPTION:
		snprintf(buf, len, "another thread ran on CPU %d; fix: move it away (isolcpus=, "
			 "cpusets, taskset) or raise the measured thread's priority", cpu);
		break;
	case PBENCH_JITTER_SOURCE_SMI:
		snprintf(buf, len, "the firmware; fix: BIOS power-management and legacy-USB "
			 "settings");
		break;
	default:
		snprintf(buf, len, "softirq work");
	}
	return buf;
}

/* A source that makes gaps of its own: an interrupt, an SMI, or (riding on one) a
 * preemption. */
static int makes_gaps(const struct pbench_jitter_source *s)
{
	return s->available && s->count && s->kind != PBENCH_JITTER_SOURCE_SOFTIRQ &&
	       s->kind != PBENCH_JITTER_SOURCE_STEAL;
}

/*
 * What the preemptions cannot count. They are the probe thread's own involuntary switches:
 * while it waited for its CPU (another task ran there: run_delay), a thread that woke took
 * the CPU from that task, not from the probe, and is counted nowhere. Measured here (2 vCPU
 * AMD EPYC KVM, kernel 6.18): a SCHED_FIFO thread waking at 1 kHz on CPU 1 read as 462
 * preemptions/s while the probe waited 73% of the window; the same injector against a probe
 * that no normal task could take the CPU from read 1000/s. Said when the wait is 1% of the
 * window or more (below that it hides less than 1% of any steady rate).
 */
static void not_counted(const struct pb_jitter_run *run, struct text *t)
{
	const struct pbench_jitter_cpu *r = &run->r;
	double frac = run->wait_ns / (r->duration_s * 1e9);
	char a[32];

	if (!isfinite(frac) || frac < 0.01 || !(r->duration_s > 0))
		return;
	pbench_format_ns(a, sizeof(a), run->wait_ns, 2);
	put(t, "; not attributed: the probe thread waited %s (%.0f%% of the window) while other "
	    "tasks ran on CPU %d, and a thread that woke then preempted them, not the probe: the "
	    "preemptions count none of those wake-ups (about %.0f%% of a steady rate's)", a,
	    100 * frac, r->cpu, 100 * fmin(frac, 1));
}

static void explain(struct pb_jitter_run *run)
{
	struct pbench_jitter_cpu *r = &run->r;
	struct text t = { run->explained, sizeof(run->explained), 0 };
	double g = r->interruptions_per_s, e = 0;
	int named = 0, have_irq = 0;
	char a[32], b[32], fix[200], th[32];

	run->explained[0] = '\0';
	pbench_format_ns(th, sizeof(th), r->threshold_ns, 3);
	if (!r->interruptions) {
		put(&t, "no gap longer than %s in %.2f s: nothing to fix at this threshold", th,
		    r->duration_s);
		return;
	}
	put(&t, "%s gaps/s", rate(a, sizeof(a), g));
	for (int i = 0; i < r->nsources; i++) {
		const struct pbench_jitter_source *s = &run->src[i].s;

		if (s->kind == PBENCH_JITTER_SOURCE_TIMER && s->available)
			have_irq = 1;
		if (!makes_gaps(s) || s->kind == PBENCH_JITTER_SOURCE_PREEMPTION)
			continue;
		e += s->per_s;
	}
	/* The busiest sources that make gaps, each with what it is and its fix. */
	for (int i = 0; i < r->nsources && named < 3; i++) {
		const struct pbench_jitter_source *s = &run->src[i].s;

		if (!makes_gaps(s) || s->per_s < fmax(0.05 * g, 0.1))
			continue;
		put(&t, "%s %s %s/s (%s)", named ? ";" : fabs(s->per_s - g) <= 0.1 * g ? " ≈" : ":",
		    s->name, rate(b, sizeof(b), s->per_s), fix_of(s, r->cpu, fix, sizeof(fix)));
		named++;
	}
	if (!have_irq) {
		put(&t, ". The interrupts could not be read: nothing to compare the gaps with");
	} else if (fabs(g - e) <= 0.1 * fmax(g, e) + 0.5) {
		put(&t, ". The %s interrupts/s counted account for the gaps (a preemption shares "
		    "the gap of the interrupt it follows)", rate(a, sizeof(a), e));
	} else if (g > e) {
		put(&t, ". %s gaps/s (%.0f%%) come with no interrupt this kernel saw: the "
		    "hypervisor's (VM exits, host work, other guests) or the firmware's",
		    rate(a, sizeof(a), g - e), 100 * (g - e) / g);
	} else {
		put(&t, ". %s of the %s interrupts/s made no gap of their own: they came while "
		    "the probe was already off the CPU, or took less than %s",
		    rate(a, sizeof(a), e - g), rate(b, sizeof(b), e), th);
	}
	not_counted(run, &t);
	for (int i = 0; i < r->nsources; i++) {
		const struct pbench_jitter_source *s = &run->src[i].s;

		if (s->kind == PBENCH_JITTER_SOURCE_STEAL && s->available && s->count &&
		    isfinite(s->ns)) {
			/* In /proc/stat's whole ticks: under 10 the range they allow, and the
			 * share of the window at most (pb_noise_steal_range()). */
			char w[80];
			double lo, hi, most = s->ns;
			int range = pb_noise_steal_range(s->count, &lo, &hi);

			if (range)
				most = hi * s->ns / (double)s->count;
			pb_noise_steal_words(w, sizeof(w), s->count, s->ns);
			put(&t, "; %s stolen by the hypervisor (%s%.2g%% of the window; fix: "
			    "dedicated host CPUs for this vCPU)", w, range ? "at most " : "",
			    most / (r->duration_s * 1e7));
		}
	}
}

/* ---- the figures ------------------------------------------------------------------------- */

void pb_jitter_figures(struct pb_jitter_run *run, uint64_t hz)
{
	struct pbench_jitter_cpu *r = &run->r;
	double win_ns = pbench_ticks_to_ns_f((double)(run->end - run->start));

	(void)hz;
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->cpu = run->cpu;
	r->flags = (run->stopped ? PBENCH_JITTER_CPU_STOPPED : 0) |
		   (run->count > run->n ? PBENCH_JITTER_CPU_TRUNCATED : 0) |
		   (run->other_pid ? PBENCH_JITTER_CPU_SHARED : 0) |
		   (run->prepared ? PBENCH_JITTER_CPU_PREPARED : 0) |
		   (run->migrated ? PBENCH_JITTER_CPU_MIGRATED : 0);
	r->duration_s = win_ns / 1e9;
	r->start_ticks = run->start;
	r->end_ticks = run->end;
	r->loops = run->loops;
	r->loop_min_ns = pbench_ticks_to_ns_f(run->loop_min_ticks);
	r->loop_median_ns = pbench_ticks_to_ns_f(run->loop_median_ticks);
	r->threshold_ns = pbench_ticks_to_ns_f((double)run->threshold_ticks);
	r->interruptions = run->count;
	r->interruptions_per_s = win_ns > 0 ? (double)run->count / r->duration_s : NAN;
	r->noise_ns = pbench_ticks_to_ns_f((double)run->noise_ticks);
	r->noise_pct = win_ns > 0 ? 100 * r->noise_ns / win_ns : NAN;
	r->max_gap_ns = pbench_ticks_to_ns_f((double)run->max_ticks);
	r->ngaps = run->n;
	r->ctx_involuntary = run->nivcsw;
	r->ctx_voluntary = run->nvcsw;
	r->policy = run->policy;
	r->priority = run->priority;
	r->other_pid = run->other_pid;
	r->prepared = run->prepared ? run->prepared_what : "";
	r->explained = run->explained;
	quantiles(run);
	sources(run);
	explain(run);
}
