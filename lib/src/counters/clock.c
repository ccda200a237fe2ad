/* SPDX-License-Identifier: MIT */
/*
 * The clock: an invariant TSC when there is one, on arm64 the generic timer's virtual counter
 * (CNTVCT_EL0), CLOCK_MONOTONIC_RAW otherwise.
 *
 * Which clock is decided once at load time from CPUID (cheap, so the tick readers need no
 * lazy-init check). The frequency is found on first use, in this order: the kernel's own
 * conversion in the perf mmap page (cap_user_time_zero), CPUID 0x15 / hypervisor leaf
 * 0x40000010, and last a calibration against CLOCK_MONOTONIC_RAW repeated until two
 * consecutive results agree within 0.01%.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define PB_X86 1
#elif defined(__aarch64__)
#define PB_ARM64 1
#endif

#include "base/base.h"
#include "counters/counters.h"

#define CALIB_AGREE 1e-4	/* 0.01% */
#define CALIB_MAX_ROUNDS 10

static int clock_kind = PBENCH_CLOCK_MONOTONIC_RAW;
static int invariant_tsc;

static struct pbench_clock_info info;
static pthread_once_t info_once = PTHREAD_ONCE_INIT;
static int info_err;

#ifdef PB_X86
int pb_cpuid_invariant_tsc(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__cpuid(0x80000007, a, b, c, d);
	return (d >> 8) & 1;
}
#endif

#ifndef PB_X86
int pb_cpuid_invariant_tsc(void)
{
	return -1;	/* no CPUID: unknown */
}
#endif

__attribute__((constructor)) static void clock_detect(void)
{
	/* PBENCH_CLOCK=monotonic_raw forces the fallback clock, as on a machine without an
	 * invariant TSC: to compare the two, and to test the fallback on any machine. */
	const char *force = getenv("PBENCH_CLOCK");
	int forced = force && !strcmp(force, "monotonic_raw");

#ifdef PB_X86
	invariant_tsc = pb_cpuid_invariant_tsc() > 0;
	if (invariant_tsc && !forced)
		clock_kind = PBENCH_CLOCK_TSC;
#elif defined(PB_ARM64)
	/* Linux lets EL0 read CNTVCT_EL0 (its vDSO does) on every arm64 system it boots. */
	if (!forced)
		clock_kind = PBENCH_CLOCK_CNTVCT;
#else
	(void)forced;
#endif
	if (clock_kind == PBENCH_CLOCK_MONOTONIC_RAW) {
		info.hz = 1000000000ull;
		info.mult = 1;
		info.shift = 0;
	}
}

static inline uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#ifdef PB_ARM64
static inline uint64_t cntvct(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* ISB before: the counter is not read before earlier instructions complete (an mrs of
 * CNTVCT_EL0 can otherwise be executed early); ISB after: later instructions are fetched only
 * once the read is done. The pair Linux uses around its own counter reads. */
static inline uint64_t cntvct_fenced(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
	return v;
}

static uint64_t cntfrq(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}
#endif

uint64_t pbench_ticks(void)
{
#ifdef PB_X86
	if (__builtin_expect(clock_kind == PBENCH_CLOCK_TSC, 1))
		return __rdtsc();
#elif defined(PB_ARM64)
	if (__builtin_expect(clock_kind == PBENCH_CLOCK_CNTVCT, 1))
		return cntvct();
#endif
	return mono_raw_ns();
}

uint64_t pbench_ticks_begin(void)
{
#ifdef PB_X86
	if (__builtin_expect(clock_kind == PBENCH_CLOCK_TSC, 1)) {
		uint64_t t;

		/* lfence before: earlier work has finished; after: later work has not started. */
		_mm_lfence();
		t = __rdtsc();
		_mm_lfence();
		return t;
	}
#elif defined(PB_ARM64)
	if (__builtin_expect(clock_kind == PBENCH_CLOCK_CNTVCT, 1))
		return cntvct_fenced();
#endif
	return mono_raw_ns();
}

uint64_t pbench_ticks_end(void)
{
#ifdef PB_X86
	if (__builtin_expect(clock_kind == PBENCH_CLOCK_TSC, 1)) {
		uint32_t lo, hi;

		/* rdtscp waits for the region's instructions; lfence keeps what follows out.
		 * Inline asm rather than __rdtscp(&aux): the aux store costs a stack frame. */
		__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
		return (uint64_t)hi << 32 | lo;
	}
#elif defined(PB_ARM64)
	if (__builtin_expect(clock_kind == PBENCH_CLOCK_CNTVCT, 1))
		return cntvct_fenced();
#endif
	return mono_raw_ns();
}

uint64_t pb_mul_shift(uint64_t ticks, uint64_t mult, uint32_t shift)
{
	unsigned __int128 p = (unsigned __int128)ticks * mult;

	p >>= shift;
	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

void pb_mult_shift_for_hz(uint64_t hz, uint64_t *mult, uint32_t *shift)
{
	unsigned __int128 num = (unsigned __int128)1000000000ull << 32;

	/* 32 fractional bits keep the relative error below 1e-9 for any clock up to ~4 GHz
	 * (mult >= 2^32 * 0.25) and the 128-bit product in pb_mul_shift cannot overflow. */
	*shift = 32;
	*mult = (uint64_t)((num + hz / 2) / hz);
}

uint64_t pb_hz_from_perf(uint32_t time_mult, uint16_t time_shift)
{
	unsigned __int128 num;

	if (!time_mult || time_shift > 63)
		return 0;
	num = (unsigned __int128)1000000000ull << time_shift;
	num = (num + time_mult / 2) / time_mult;
	return num > UINT64_MAX ? 0 : (uint64_t)num;	/* no real page gives this: reject */
}

uint64_t pb_hz_from_cpuid15(uint32_t eax, uint32_t ebx, uint32_t ecx)
{
	/* TSC = crystal * ebx / eax; ecx is the crystal in Hz (0: not enumerated). */
	if (!eax || !ebx || !ecx)
		return 0;
	return (uint64_t)ecx * ebx / eax;
}

#if defined(PB_X86) || defined(PB_ARM64)
/* The kernel's own TSC conversion, offered in the mmap page of any perf event when the
 * scheduler clock is the TSC (not, for example, under kvm-clock); on arm64 its conversion of
 * CNTVCT_EL0 when sched_clock runs on the generic timer. */
static uint64_t freq_from_perf_page(uint64_t *mult, uint32_t *shift)
{
	struct perf_event_attr attr;
	volatile struct perf_event_mmap_page *pc;
	uint32_t seq, tm = 0;
	uint16_t ts = 0;
	int zero = 0, fd;
	void *p;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = pb_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return 0;
	}
	pc = p;
	do {
		seq = pc->lock;
		__sync_synchronize();
		zero = pc->cap_user_time_zero;
		tm = pc->time_mult;
		ts = pc->time_shift;
		__sync_synchronize();
	} while (pc->lock != seq);
	munmap(p, (size_t)sysconf(_SC_PAGESIZE));
	close(fd);
	if (!zero || !tm)
		return 0;
	*mult = tm;
	*shift = ts;
	return pb_hz_from_perf(tm, ts);
}
#endif

#ifdef PB_X86
static uint64_t freq_from_cpuid(void)
{
	unsigned a, b, c, d, max;
	uint64_t hz;

	__cpuid(0, max, b, c, d);
	if (max >= 0x15) {
		__cpuid_count(0x15, 0, a, b, c, d);
		hz = pb_hz_from_cpuid15(a, b, c);
		if (hz)
			return hz;
	}
	/* Hypervisor timing leaf (VMware, and KVM when configured): TSC in kHz. */
	__cpuid(1, a, b, c, d);
	if (c & (1u << 31)) {
		__cpuid(0x40000000, max, b, c, d);
		if (max >= 0x40000010) {
			__cpuid(0x40000010, a, b, c, d);
			if (a)
				return (uint64_t)a * 1000;
		}
	}
	return 0;
}

/* One (tsc, ns) pair, keeping the read of CLOCK_MONOTONIC_RAW that was bracketed tightest. */
static void tsc_ns_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 7; i++) {
		uint64_t a = pbench_ticks_begin();
		uint64_t n = mono_raw_ns();
		uint64_t b = pbench_ticks_end();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

static double calibrate_once(unsigned window_ms)
{
	struct timespec ts = { window_ms / 1000, (long)(window_ms % 1000) * 1000000L };
	uint64_t t0, n0, t1, n1;

	tsc_ns_pair(&t0, &n0);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	tsc_ns_pair(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 0;
	return (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
}

static int freq_calibrate(uint64_t *hz, double *agreement, int *rounds)
{
	unsigned window = 25;
	double prev = calibrate_once(window), cur = 0, diff = 1;
	int n = 1;

	while (n < CALIB_MAX_ROUNDS) {
		cur = calibrate_once(window);
		n++;
		diff = prev > 0 ? (cur > prev ? cur - prev : prev - cur) / prev : 1;
		if (diff <= CALIB_AGREE)
			break;
		prev = cur;
		if (window < 400)
			window *= 2;
	}
	*rounds = n;
	*agreement = diff;
	if (cur <= 0)
		return -EIO;
	*hz = (uint64_t)(cur + 0.5);
	if (diff > CALIB_AGREE)
		pb_log(PBENCH_LOG_WARN, "tsc calibration: last two rounds differ by %.4f%%",
		       diff * 100);
	return 0;
}
#endif

static double ns_f(double ticks)
{
	return ticks * (double)info.mult / (double)((unsigned __int128)1 << info.shift);
}

/* Runs inside clock_init (under pthread_once): converts with ns_f, never the public calls. */
static void measure_costs(void)
{
	uint64_t best_step = UINT64_MAX, best_read = UINT64_MAX, best_region = UINT64_MAX;
	const int n = 2000;

	for (int i = 0; i < 200; i++) {
		uint64_t a = pbench_ticks(), b;

		while ((b = pbench_ticks()) == a)
			;
		if (b - a < best_step)
			best_step = b - a;
	}
	for (int rep = 0; rep < 5; rep++) {
		uint64_t t0 = pbench_ticks_begin(), t1, sink = 0;

		for (int i = 0; i < n; i++)
			sink += pbench_ticks();
		t1 = pbench_ticks_end();
		__asm__ volatile("" : : "r"(sink));
		if (t1 - t0 < best_read)
			best_read = t1 - t0;
		t0 = pbench_ticks_begin();
		for (int i = 0; i < n; i++) {
			sink += pbench_ticks_begin();
			sink += pbench_ticks_end();
		}
		t1 = pbench_ticks_end();
		__asm__ volatile("" : : "r"(sink));
		if (t1 - t0 < best_region)
			best_region = t1 - t0;
	}
	info.resolution_ns = ns_f((double)best_step);
	info.read_cost_ns = ns_f((double)best_read / n);
	info.region_cost_ns = ns_f((double)best_region / n);
}

static void clock_init(void)
{
	info.size = sizeof(info);
	info.kind = clock_kind;
	info.invariant_tsc = invariant_tsc;
	if (clock_kind == PBENCH_CLOCK_MONOTONIC_RAW) {
		info.freq_source = PBENCH_FREQ_NS;
		info.hz = 1000000000ull;
		info.mult = 1;
		info.shift = 0;
	}
#ifdef PB_X86
	else {
		uint64_t hz;

		hz = freq_from_perf_page(&info.mult, &info.shift);
		if (hz) {
			info.freq_source = PBENCH_FREQ_PERF_PAGE;
		} else if ((hz = freq_from_cpuid())) {
			info.freq_source = PBENCH_FREQ_CPUID;
		} else {
			info_err = freq_calibrate(&hz, &info.calib_agreement, &info.calib_rounds);
			info.freq_source = PBENCH_FREQ_CALIBRATED;
		}
		info.hz = hz;
		if (info.freq_source != PBENCH_FREQ_PERF_PAGE && hz)
			pb_mult_shift_for_hz(hz, &info.mult, &info.shift);
	}
#elif defined(PB_ARM64)
	else {
		/* The perf page first (the kernel's own conversion), else CNTFRQ_EL0, which
		 * firmware sets to the counter's frequency. */
		uint64_t hz = freq_from_perf_page(&info.mult, &info.shift);

		if (hz) {
			info.freq_source = PBENCH_FREQ_PERF_PAGE;
		} else {
			hz = cntfrq();
			info.freq_source = PBENCH_FREQ_CNTFRQ;
			if (hz)
				pb_mult_shift_for_hz(hz, &info.mult, &info.shift);
			else
				info_err = -EIO;
		}
		info.hz = hz;
	}
#endif
	if (!info_err)
		measure_costs();
}

static inline void clock_ready(void)
{
	pthread_once(&info_once, clock_init);
}

uint64_t pbench_ticks_to_ns(uint64_t ticks)
{
	if (clock_kind == PBENCH_CLOCK_MONOTONIC_RAW)
		return ticks;
	clock_ready();
	return pb_mul_shift(ticks, info.mult, info.shift);
}

double pbench_ticks_to_ns_f(double ticks)
{
	if (clock_kind == PBENCH_CLOCK_MONOTONIC_RAW)
		return ticks;
	clock_ready();
	return ns_f(ticks);
}

int pbench_clock_info(struct pbench_clock_info *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_clock_info, 0, NULL)))
		return err;
	clock_ready();
	if (info_err)
		return info_err;
	pb_copy_out(out, &info, sizeof(info));
	return 0;
}
