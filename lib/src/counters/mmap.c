/* SPDX-License-Identifier: MIT */
/*
 * Reading a counter from user space through its perf mmap page, following the kernel ABI
 * (include/uapi/linux/perf_event.h) in the order libperf's perf_mmap__read_self uses:
 * seqlock on `lock`, then time fields, then `index` and `offset`, then the PMC read with
 * pmc_width sign extension, retrying when `lock` moved. Only real hardware counters ever have
 * cap_user_rdpmc and a non-zero index; everything else falls back to read().
 *
 * The counter itself: x86 reads it with rdpmc(index - 1); arm64 with an mrs of
 * PMEVCNTR<index - 1>_EL0, or PMCCNTR_EL0 (the cycle counter) for index 32. arm64 gives a
 * non-zero index only to events opened with the PMU's `rdpmc` format bit (config1:1) while
 * kernel.perf_user_access is 1; the time fields then extrapolate with CNTVCT_EL0.
 */
#include <errno.h>

#include "counters/counters.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PB_X86 1
#elif defined(__aarch64__)
#define PB_ARM64 1
#endif

#define barrier() __asm__ volatile("" ::: "memory")

int64_t pb_pmc_sign_extend(uint64_t raw, unsigned width)
{
	uint64_t sign, mask;

	if (width == 0 || width >= 64)
		return (int64_t)raw;
	/* All in unsigned arithmetic, so no shift of a negative value is ever done. */
	mask = (UINT64_C(1) << width) - 1;
	sign = UINT64_C(1) << (width - 1);
	raw &= mask;
	return (int64_t)((raw ^ sign) - sign);
}

uint64_t pb_page_time_delta(uint64_t cyc, uint32_t time_mult, uint16_t time_shift,
			    uint64_t time_offset, uint64_t time_cycles, uint64_t time_mask)
{
	/* cap_user_time_short: the kernel's clock is only time_mask wide; rebase on time_cycles. */
	if (time_mask)
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	return time_offset + pb_mul_shift(cyc, time_mult, time_shift);
}

int pb_page_read(const volatile struct perf_event_mmap_page *pc,
		 uint64_t (*rdpmc)(uint32_t idx), uint64_t (*rdtsc)(void),
		 struct pb_page_read *out)
{
	uint64_t cnt, ena, run, cyc = 0, time_offset = 0, time_cycles = 0, time_mask = 0;
	uint32_t seq, idx, time_mult = 0;
	uint16_t time_shift = 0;
	int user_time = 0;

	do {
		seq = pc->lock;
		barrier();
		ena = pc->time_enabled;
		run = pc->time_running;
		/* Always, not only when enabled != running as the ABI's example and libperf do:
		 * they only need the ratio, but a region's start/stop need the times themselves,
		 * which the page holds as of the last sched-in (a region on an event that stayed
		 * on its counter would otherwise see 0 ns enabled: "never enabled"). Found by
		 * the emulated-PMU suite (tests/pmu). */
		user_time = pc->cap_user_time;
		if (user_time) {
			cyc = rdtsc();
			time_mult = pc->time_mult;
			time_shift = pc->time_shift;
			time_offset = pc->time_offset;
			if (pc->cap_user_time_short) {
				time_cycles = pc->time_cycles;
				time_mask = pc->time_mask;
			}
		}
		idx = pc->index;
		cnt = pc->offset;
		if (!pc->cap_user_rdpmc || !idx)
			return -PBENCH_ENO_RDPMC;
		cnt += (uint64_t)pb_pmc_sign_extend(rdpmc(idx - 1), pc->pmc_width);
		barrier();
	} while (pc->lock != seq);

	if (user_time) {
		uint64_t delta = pb_page_time_delta(cyc, time_mult, time_shift, time_offset,
						    time_cycles, time_mask);
		ena += delta;
		run += delta;	/* idx != 0 here: the event is on a counter, so it is running */
	}
	out->value = cnt;
	out->enabled = ena;
	out->running = run;
	return 0;
}

#ifdef PB_ARM64
/* The register number is part of the mrs instruction: one case per event counter (the
 * architecture allows 31, PMEVCNTR0..30_EL0), and 31 (index 32) for the cycle counter. */
#define PMEVCNTR(n)								\
	case n:									\
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));	\
		break
static uint64_t arm64_read_counter(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	PMEVCNTR(0); PMEVCNTR(1); PMEVCNTR(2); PMEVCNTR(3); PMEVCNTR(4); PMEVCNTR(5);
	PMEVCNTR(6); PMEVCNTR(7); PMEVCNTR(8); PMEVCNTR(9); PMEVCNTR(10); PMEVCNTR(11);
	PMEVCNTR(12); PMEVCNTR(13); PMEVCNTR(14); PMEVCNTR(15); PMEVCNTR(16); PMEVCNTR(17);
	PMEVCNTR(18); PMEVCNTR(19); PMEVCNTR(20); PMEVCNTR(21); PMEVCNTR(22); PMEVCNTR(23);
	PMEVCNTR(24); PMEVCNTR(25); PMEVCNTR(26); PMEVCNTR(27); PMEVCNTR(28); PMEVCNTR(29);
	PMEVCNTR(30);
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#undef PMEVCNTR
#endif

uint64_t pb_rdpmc(uint32_t idx)
{
#ifdef PB_X86
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
#elif defined(PB_ARM64)
	return arm64_read_counter(idx);
#else
	(void)idx;
	return 0;
#endif
}

/* The counter the perf page's time fields convert: the TSC, or arm64's CNTVCT_EL0. */
uint64_t pb_rdtsc(void)
{
#ifdef PB_X86
	return __rdtsc();
#elif defined(PB_ARM64)
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

int pb_arch_user_read(void)
{
#if defined(PB_X86) || defined(PB_ARM64)
	return 1;
#else
	return 0;
#endif
}
