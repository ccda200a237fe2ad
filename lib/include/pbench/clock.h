/* SPDX-License-Identifier: MIT */
/* pbench/clock.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_CLOCK
#define PBENCH_H_CLOCK

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Clock (clock.c)
 *
 * pbench counts time in "ticks" of one clock chosen at load time: the TSC on x86-64 when it is
 * invariant (CPUID 0x80000007 EDX[8]), the generic timer's virtual counter CNTVCT_EL0 on arm64,
 * otherwise CLOCK_MONOTONIC_RAW in nanoseconds (one tick is then one ns). The environment variable PBENCH_CLOCK=monotonic_raw forces the latter. The tick readers are safe to call before anything else; the frequency is found
 * on the first call that needs it (pbench_clock_info, pbench_ticks_to_ns).
 */
enum pbench_clock_kind {
	PBENCH_CLOCK_TSC = 1,		/* invariant TSC, read with rdtsc */
	PBENCH_CLOCK_MONOTONIC_RAW,	/* clock_gettime(CLOCK_MONOTONIC_RAW) */
	PBENCH_CLOCK_CNTVCT,		/* arm64 generic timer, CNTVCT_EL0 read with ISBs */
};

enum pbench_freq_source {
	PBENCH_FREQ_PERF_PAGE = 1,	/* kernel's time_mult/time_shift in the perf mmap page */
	PBENCH_FREQ_CPUID,		/* CPUID leaf 0x15, or the hypervisor leaf 0x40000010 */
	PBENCH_FREQ_CALIBRATED,		/* measured against CLOCK_MONOTONIC_RAW */
	PBENCH_FREQ_NS,			/* the clock counts ns: no conversion needed */
	PBENCH_FREQ_CNTFRQ,		/* arm64: CNTFRQ_EL0, the frequency firmware set */
};

struct pbench_clock_info {
	size_t size;
	int kind;			/* enum pbench_clock_kind */
	int freq_source;		/* enum pbench_freq_source */
	int invariant_tsc;		/* 1 if CPUID reports an invariant TSC */
	uint64_t hz;			/* ticks per second */
	uint64_t mult;			/* ns = (ticks * mult) >> shift, in 128-bit arithmetic */
	uint32_t shift;
	double calib_agreement;		/* relative difference of the last two calibrations */
	int calib_rounds;		/* calibrations done (0 unless freq_source is CALIBRATED) */
	double resolution_ns;		/* smallest non-zero step between two consecutive reads */
	double read_cost_ns;		/* mean cost of one pbench_ticks() */
	double region_cost_ns;		/* mean cost of one pbench_ticks_begin()+pbench_ticks_end() */
};

/* Cheap read of the clock: no serialization. */
PBENCH_API uint64_t pbench_ticks(void);
/* Read that starts a timed region: earlier instructions finish first, later ones wait. */
PBENCH_API uint64_t pbench_ticks_begin(void);
/* Read that ends a timed region: the region's instructions finish before the clock is read. */
PBENCH_API uint64_t pbench_ticks_end(void);

/* Ticks to nanoseconds, exact to the truncated ns, no overflow for any 64-bit tick count. */
PBENCH_API uint64_t pbench_ticks_to_ns(uint64_t ticks);
/* Ticks to nanoseconds, with the fraction. */
PBENCH_API double pbench_ticks_to_ns_f(double ticks);

/*
 * Fill info (info->size must be set). The first call determines the frequency (perf page,
 * CPUID, or a calibration of 50-500 ms) and measures resolution and read cost; later calls
 * return the cached result. Errors: -EINVAL (bad size), -EIO (calibration did not converge).
 */
PBENCH_API int pbench_clock_info(struct pbench_clock_info *info);

/* Name of a clock kind / frequency source, e.g. "tsc", "calibrated". */
PBENCH_API const char *pbench_clock_kind_name(int kind);
PBENCH_API const char *pbench_freq_source_name(int source);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_CLOCK */
