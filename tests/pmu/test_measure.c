/* SPDX-License-Identifier: MIT */
/*
 * The clock and the measurement engine on a deterministic machine. Under QEMU's precise
 * icount one guest instruction is one ns of virtual time, and the generic timer counts that
 * time (62.5 MHz: 16 ns a tick). So:
 *  - the clock is CNTVCT_EL0 with its frequency from the perf page, 16 ns resolution, and a
 *    region around loop3(N) lasts 3 N ns plus the clock reads;
 *  - pbench_measure of a function of K instructions (plus its ret, as the empty function has)
 *    must report K ns per call after subtracting the empty batch, within the timer's 16 ns
 *    twice (two quantized reads per batch) divided by the calls per batch; and K instructions
 *    per call from the instructions:u counter.
 * This settles whether the empty-batch subtraction is right: any constant error per call
 * (a call or loop overhead missed or subtracted twice) shows as a whole ns or more.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

/* Functions of K adds and a ret, with global labels around the adds so the test can check
 * that the compiler emitted nothing else (no prologue, the ret right after). */
#define KFN(name, k)								\
	extern const uint32_t name##_body[], name##_end[];			\
	__attribute__((noinline)) static void name(void *ctx)			\
	{									\
		(void)ctx;							\
		__asm__ volatile(".globl " #name "_body\n" #name "_body:\n"	\
				 ".rept " #k "\n\tadd x9, x9, #1\n.endr\n"	\
				 ".globl " #name "_end\n" #name "_end:"		\
				 : : : "x9");					\
	}
KFN(fn10, 10)
KFN(fn1000, 1000)

#define RET 0xd65f03c0u

static void clock_checks(void)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	uint64_t t0, t1;
	double ns;

	ok(pbench_clock_info(&ci) == 0, "clock: info");
	diag("clock: %s, %llu Hz from %s, resolution %.1f ns, read %.1f ns, begin+end %.1f ns",
	     pbench_clock_kind_name(ci.kind), (unsigned long long)ci.hz,
	     pbench_freq_source_name(ci.freq_source), ci.resolution_ns, ci.read_cost_ns,
	     ci.region_cost_ns);
	ok(ci.kind == PBENCH_CLOCK_CNTVCT && ci.hz == 62500000 &&
	   ci.freq_source == PBENCH_FREQ_PERF_PAGE, "clock: CNTVCT_EL0 at 62.5 MHz from the perf "
	   "page");
	ok(fabs(ci.resolution_ns - 16) < 0.01, "clock: resolution 16 ns (%.2f)", ci.resolution_ns);
	t0 = pbench_ticks_begin();
	loop3(1000000);
	t1 = pbench_ticks_end();
	ns = (double)pbench_ticks_to_ns(t1 - t0);
	diag("clock: loop3(1e6) took %.0f ns (3e6 instructions)", ns);
	/* Quantized to 16 ns; a timer interrupt (kernel instructions) may fall inside. */
	ok(ns >= 3000000 - 16 && ns < 3000000 + 20000, "clock: a region of 3e6 instructions "
	   "lasts 3e6 ns of virtual time (%.0f)", ns);
}

static void measure_k(const char *name, pbench_fn fn, const uint32_t *body,
		      const uint32_t *end, int k)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
	const struct pbench_summary *s;
	struct pbench_count cnt[1] = { { .size = sizeof(cnt[0]) } };
	struct pbench_result *r;
	double tol, cmin = 1e300, cmax = -1;
	int err;

	ok((const void *)body == (const void *)fn && end - body == k && end[0] == RET,
	   "%s: the function is exactly %d adds and a ret", name, k);
	o.warmup_ms = 5;
	o.budget_ms = 300;
	o.events = "instructions:u";
	err = pbench_measure(&r, fn, NULL, &o);
	if (!ok(err == 0, "%s: pbench_measure (%s)", name, pbench_strerror(err)))
		return;
	s = pbench_result_summary(r);
	tol = 2.0 * 16 / (double)pbench_result_iterations(r);
	for (size_t i = 0; i < pbench_result_nr_samples(r); i++) {
		if (pbench_result_nr_events(r) == 1 && !pbench_result_count(r, i, 0, &cnt[0]) &&
		    cnt[0].status == PBENCH_EVENT_OK) {
			cmin = fmin(cmin, cnt[0].scaled);
			cmax = fmax(cmax, cnt[0].scaled);
		}
	}
	diag("%s: %zu samples of %llu calls: median %.4f ns, min %.4f, mean %.4f per call "
	     "(overhead subtracted %.4f ns); instructions:u per call %.4f..%.4f; expected %d "
	     "(tolerance %.4f)", name, pbench_result_nr_samples(r),
	     (unsigned long long)pbench_result_iterations(r), s->median, s->min, s->mean,
	     pbench_result_overhead_ns(r), cmin, cmax, k, tol);
	printf("# bench: pmu_measure_%s_ns %.4f (expected %d)\n", name, s->median, k);
	ok(fabs(s->median - k) <= tol, "%s: median %.4f ns per call = %d within %.4f", name,
	   s->median, k, tol);
	ok(fabs(cmin - k) < 0.01 && fabs(cmax - k) < 0.01, "%s: %d instructions:u per call "
	   "after the empty batch's (%.4f..%.4f)", name, k, cmin, cmax);
	{
		struct pbench_event_summary es = { .size = sizeof(es) };

		ok(!pbench_result_event_summary(r, 0, &es) && es.counted == es.runs &&
		   es.runs == (int)pbench_result_nr_samples(r) && fabs(es.mean - k) < 0.01 &&
		   fabs(es.median - k) < 0.01, "%s: per call summary of instructions:u: mean "
		   "%.4f, median %.4f, +- %.4f%% over %d samples", name, es.mean, es.median,
		   es.sem_pct, es.runs);
	}
	pbench_result_free(r);
}

int main(void)
{
	tap_init("measure");
	clock_checks();
	measure_k("fn10", fn10, fn10_body, fn10_end, 10);
	measure_k("fn1000", fn1000, fn1000_body, fn1000_end, 1000);
	return tap_done();
}
