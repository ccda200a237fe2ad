/* SPDX-License-Identifier: MIT */
/*
 * The user-space counter read through a perf mmap page (lib/src/counters/mmap.c).
 *
 * The machines pbench is developed on have no hardware PMU, so the kernel never hands out a
 * page with cap_user_rdpmc=1 here. The read is tested the way libperf's own tests cannot be on
 * such a VM: pb_page_read() runs on a struct perf_event_mmap_page filled with recorded values,
 * with rdpmc/rdtsc readers that return given values. Where a value had to be constructed, the
 * comment next to it derives it from the kernel ABI (include/uapi/linux/perf_event.h) and the
 * x86 perf code that fills the page (arch/x86/events/core.c).
 *
 * Sources of recorded values (cited again at each row):
 *  [PT22]  Adrian Hunter, "[PATCH] perf script: Fix hex dump character output", LKML
 *          2022-01-12: raw PERF_RECORD_AUXTRACE_INFO bytes of an Intel machine, which carry
 *          that machine's perf page time_shift=31 (0x1f), time_mult=0x2f328403 and
 *          time_zero=0xfffffffad24f7c63.
 *  [IPT]   intel/libipt doc/howto_capture.md: "perf script -D" of an Intel Broadwell
 *          (cpuid GenuineIntel,6,61,4): Time Shift 10, Time Muliplier 642,
 *          Time Zero 18446744056970350213.
 *  [TC21]  Leo Yan, "[PATCH v1 3/3] perf session: Dump PERF_RECORD_TIME_CONV event", LKML
 *          2021-04 (quoted by Adrian Hunter 2021-04-26): an arm64 page with
 *          cap_user_time_short: Time Shift 21, Time Muliplier 20971520,
 *          Time Zero 18446743935180835206, Time Cycles 13852918225,
 *          Time Mask 0xffffffffffffff.
 *  [PMU173] andikleen/pmu-tools issue #173 (Travis Downs, 2019-05-03): a live rdpmc read on
 *          Intel: val=0x080000373f8ca offset=0x07fffffffffff index=0x40000002, and libjevents'
 *          unextended result 0x100000373f8c9 ("note that bit 48 is set").
 *  [VM]    this VM (kernel 6.18, KVM, no PMU), recorded by test live.software_event_page:
 *          a task-clock page reads version=0 (no kernel sets it) cap_bit0_is_deprecated=1
 *          size=96 index=0 cap_user_rdpmc=0 cap_user_time=0 cap_user_time_zero=0
 *          cap_user_time_short=0 pmc_width=0 time_shift=0 time_mult=0 time_offset=0
 *          time_zero=0, with lock advancing by 2 every few ms (the kernel rewrites the page from
 *          its tick) and offset/time_enabled/time_running tracking the task clock. sched_clock
 *          is kvm-clock, so the kernel offers no TSC conversion, and without a PMU there is no
 *          counter to read: every field the user-space read needs is zero here.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "counters/counters.h"

#define BIT(n) (UINT64_C(1) << (n))

/* ---- pb_pmc_sign_extend ------------------------------------------------------------------- */

static const struct sx_row {
	const char *what;
	uint64_t raw;
	unsigned width;
	int64_t want;
} sx_rows[] = {
	/* 48 bits: Intel general-purpose and fixed counters since Nehalem (CPUID 0xA reports a
	 * counter width of 48) and AMD's; the kernel puts x86_pmu.cntval_bits in pmc_width. */
	{ "48: zero", 0, 48, 0 },
	{ "48: one", 1, 48, 1 },
	{ "48: 2^47-1, the largest positive", BIT(47) - 1, 48, (int64_t)(BIT(47) - 1) },
	{ "48: 2^47 is -2^47", BIT(47), 48, -(int64_t)BIT(47) },
	{ "48: 2^48-1 is -1", BIT(48) - 1, 48, -1 },
	{ "48: bits above the width are ignored", 0xffff000000000005ull, 48, 5 },
	{ "48: bits above the width, negative value", 0x1234800000000000ull, 48, -(int64_t)BIT(47) },
	{ "48: bit 48 alone is 0", BIT(48), 48, 0 },
	/* [PMU173]: the raw PMC the kernel had programmed to -(2^47-1) (see page_read.recorded). */
	{ "48: recorded raw PMC 0x80000373f8ca [PMU173]", 0x80000373f8caull, 48,
	  -(int64_t)(BIT(48) - 0x80000373f8caull) },
	/* 40 bits: Intel Core 2's general-purpose counters (CPUID 0xA width 40). */
	{ "40: 2^39-1", BIT(39) - 1, 40, (int64_t)(BIT(39) - 1) },
	{ "40: 2^39 is -2^39", BIT(39), 40, -(int64_t)BIT(39) },
	{ "40: 2^40-1 is -1", BIT(40) - 1, 40, -1 },
	{ "40: bit 40 is above the width", BIT(40) | 7, 40, 7 },
	/* 64 bits: nothing to extend, the value is the two's complement of raw. */
	{ "64: 2^63-1", BIT(63) - 1, 64, INT64_MAX },
	{ "64: 2^63 is INT64_MIN", BIT(63), 64, INT64_MIN },
	{ "64: all ones is -1", UINT64_MAX, 64, -1 },
	{ "64: 12345", 12345, 64, 12345 },
	/* 0: what a page without a user-readable counter reports ([VM]: pmc_width=0); treated
	 * as 64 (no shift by 64, which would be undefined). */
	{ "0: raw returned as is", 0x800000000000ull, 0, 0x800000000000ll },
	{ "0: all ones", UINT64_MAX, 0, -1 },
	/* 1 bit: the narrowest width the header allows. */
	{ "1: 1 is -1", 1, 1, -1 },
	{ "1: 2 is 0", 2, 1, 0 },
};

Test(sign_extend, table)
{
	for (size_t i = 0; i < PB_ARRAY_SIZE(sx_rows); i++) {
		const struct sx_row *r = &sx_rows[i];
		int64_t got = pb_pmc_sign_extend(r->raw, r->width);

		cr_expect_eq(got, r->want, "%s: pb_pmc_sign_extend(%#" PRIx64 ", %u) = %" PRId64
			     ", want %" PRId64, r->what, r->raw, r->width, got, r->want);
	}
}

/* Every width from 1 to 63: the boundaries 2^(w-1)-1, 2^(w-1), 2^w-1, and a set high bit. */
Test(sign_extend, every_width)
{
	for (unsigned w = 1; w < 64; w++) {
		uint64_t half = BIT(w - 1);

		cr_expect_eq(pb_pmc_sign_extend(half - 1, w), (int64_t)(half - 1), "width %u", w);
		cr_expect_eq(pb_pmc_sign_extend(half, w), -(int64_t)half, "width %u", w);
		cr_expect_eq(pb_pmc_sign_extend(BIT(w) - 1, w), -1, "width %u", w);
		/* Bit w is above the width; 3 is -1 in 1 or 2 bits. */
		cr_expect_eq(pb_pmc_sign_extend(BIT(w) | 3, w), w > 2 ? 3 : -1,
			     "width %u: bit %u must be ignored", w, w);
	}
}

/* ---- pb_page_time_delta ----------------------------------------------------------------------- */

/* The kernel ABI's own formula (perf_event.h, the time_offset / time_zero comments), in 64-bit
 * arithmetic exactly as written there; shift <= 31 on every kernel, so rem * mult fits. */
static uint64_t abi_time(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t offset)
{
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc & ((UINT64_C(1) << shift) - 1);

	return offset + quot * mult + ((rem * mult) >> shift);
}

/* Conversion values of real pages. The ABI computes the sample timestamp from time_zero with the
 * very formula that computes the delta from time_offset, so time_zero is passed as the offset:
 * the result is then the perf timestamp of a TSC value, and the "negative" recorded time_zero
 * values exercise the wrap-around of the addition. */
static const struct conv_row {
	const char *src;
	uint32_t mult;
	uint16_t shift;
	uint64_t zero;
	uint64_t cycles, mask;		/* cap_user_time_short (0: not short) */
	unsigned cyc_bits;		/* width of the clock counter */
} conv_rows[] = {
	{ "Intel, shift 31 [PT22]", 0x2f328403u, 31, 0xfffffffad24f7c63ull, 0, 0, 64 },
	{ "Intel Broadwell, shift 10 [IPT]", 642, 10, 18446744056970350213ull, 0, 0, 64 },
	/* A 100 MHz arm64 timer (mult / 2^shift = 10 ns per tick), 56 bits wide. */
	{ "arm64 short, shift 21 [TC21]", 20971520, 21, 18446743935180835206ull,
	  13852918225ull, 0xffffffffffffffull, 56 },
};

/* xorshift64*: a fixed sequence, so a failure reproduces. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

Test(time_delta, recorded_values)
{
	const struct conv_row *intel = &conv_rows[0], *arm = &conv_rows[2];
	/* 2712018 ticks of the [PT22] TSC (2.712018 GHz, see test_clock) are 1 ms: floor of
	 * 2712018 * 791839747 / 2^31 = 999999 (exact product computed offline). */
	cr_expect_eq(pb_page_time_delta(2712018, intel->mult, intel->shift, 0, 0, 0), 999999);
	/* [TC21] is exactly 10 ns per tick: 1000 ticks after time_cycles are time_cycles*10 + 10 us. */
	cr_expect_eq(pb_page_time_delta(arm->cycles + 1000, arm->mult, arm->shift, 0, arm->cycles,
					arm->mask), (arm->cycles + 1000) * 10);
	/* With the recorded time_zero as offset: the timestamp wraps around 2^64 as it must. */
	cr_expect_eq(pb_page_time_delta(arm->cycles, arm->mult, arm->shift, arm->zero, arm->cycles,
					arm->mask), arm->zero + arm->cycles * 10);
}

Test(time_delta, without_short_time_cycles_is_ignored)
{
	const struct conv_row *r = &conv_rows[0];
	uint64_t cyc = 0x0005a1b2c3d4e5f6ull;	/* ~18 days of a 2.7 GHz TSC */
	uint64_t want = abi_time(cyc, r->mult, r->shift, r->zero);

	/* time_mask == 0 means "not cap_user_time_short": time_cycles must not rebase cyc. */
	cr_expect_eq(pb_page_time_delta(cyc, r->mult, r->shift, r->zero, 0, 0), want);
	cr_expect_eq(pb_page_time_delta(cyc, r->mult, r->shift, r->zero, 13852918225ull, 0), want);
	cr_expect_eq(pb_page_time_delta(cyc, r->mult, r->shift, r->zero, cyc + 12345, 0), want);
}

Test(time_delta, short_rebases_on_time_cycles)
{
	const struct conv_row *r = &conv_rows[2];
	uint64_t base;

	/* Garbage above the 56 counter bits is dropped by the rebase: [TC21] time_cycles. */
	cr_expect_eq(pb_page_time_delta(r->cycles + 1000 + (UINT64_C(0xab) << 56), r->mult,
					r->shift, 0, r->cycles, r->mask),
		     (r->cycles + 1000) * 10);
	/* Constructed wrap: the kernel last updated the page 100 ticks before the 56-bit counter
	 * wrapped (time_cycles = 2^56 - 100); the reader sees the wrapped raw value 50, which is
	 * 150 ticks later. The ABI's rebase gives cyc = time_cycles + ((50 - time_cycles) & mask)
	 * = 2^56 + 50; without it the delta would go back ~7.2e17 ns. */
	base = BIT(56) - 100;
	cr_expect_eq(pb_page_time_delta(50, r->mult, r->shift, 0, base, r->mask),
		     (BIT(56) + 50) * 10);
	cr_expect_eq(pb_page_time_delta(50, r->mult, r->shift, 0, base, r->mask) -
		     pb_page_time_delta(base, r->mult, r->shift, 0, base, r->mask), 1500,
		     "150 ticks of a 100 MHz clock are 1500 ns across the wrap");
}

/* pb_page_time_delta against the ABI formula for many clock values of each recorded page. */
Test(time_delta, equals_abi_split_formula)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < PB_ARRAY_SIZE(conv_rows); i++) {
		const struct conv_row *r = &conv_rows[i];
		uint64_t lim = r->cyc_bits == 64 ? UINT64_MAX : BIT(r->cyc_bits) - 1;
		uint64_t edges[] = {
			0, 1, BIT(r->shift) - 1, BIT(r->shift), BIT(r->shift) + 1, UINT32_MAX,
			BIT(32), r->cycles, r->cycles + 1, lim - 1, lim,
			1000000000000000ull & lim,	/* ~4.3 days at 2.7 GHz */
		};
		int bad = 0;

		for (int k = 0; k < 200000 && bad < 5; k++) {
			uint64_t raw, cyc, got, want;

			if (k < (int)PB_ARRAY_SIZE(edges))
				raw = edges[k];
			else {
				raw = rng_next(&seed);
				raw >>= rng_next(&seed) % 64;	/* all magnitudes */
			}
			raw &= lim;
			cyc = raw;
			if (r->mask)	/* the ABI's cap_user_time_short step, as written there */
				cyc = r->cycles + ((cyc - r->cycles) & r->mask);
			want = abi_time(cyc, r->mult, r->shift, r->zero);
			got = pb_page_time_delta(raw, r->mult, r->shift, r->zero, r->cycles, r->mask);
			if (got != want) {
				bad++;
				cr_expect_eq(got, want, "%s: cyc %#" PRIx64 ": got %" PRIu64 " want %"
					     PRIu64, r->src, raw, got, want);
			}
		}
	}
}

/* ---- pb_page_read on a filled page ---------------------------------------------------------- */

static struct perf_event_mmap_page page;

static struct {
	uint64_t pmc[2];	/* what the 1st and 2nd (and later) rdpmc return */
	uint64_t tsc[2];
	int rdpmc_calls, rdtsc_calls;
	uint32_t rdpmc_idx;
	/* First rdpmc call: do what perf_event_update_userpage() does between the reader's two
	 * looks at lock (++lock; new fields; ++lock), as when the task is scheduled out and in. */
	int update_on_first_rdpmc;
	int64_t upd_offset;
	uint64_t upd_enabled, upd_running;
} fake;

static uint64_t fake_rdpmc(uint32_t idx)
{
	int n = fake.rdpmc_calls++;

	fake.rdpmc_idx = idx;
	if (n == 0 && fake.update_on_first_rdpmc) {
		page.lock++;
		page.offset = fake.upd_offset;
		page.time_enabled = fake.upd_enabled;
		page.time_running = fake.upd_running;
		page.lock++;
	}
	return fake.pmc[n ? 1 : 0];
}

static uint64_t fake_rdtsc(void)
{
	int n = fake.rdtsc_calls++;

	return fake.tsc[n ? 1 : 0];
}

/* A page as the x86 kernel leaves it for a scheduled hardware event on a TSC machine. */
static void page_init(void)
{
	memset(&page, 0, sizeof(page));
	memset(&fake, 0, sizeof(fake));
	page.lock = 2;
	page.cap_bit0_is_deprecated = 1;
	page.cap_user_rdpmc = 1;
	page.pmc_width = 48;
	page.index = 1;
}

TestSuite(page_read, .init = page_init);

Test(page_read, no_cap_user_rdpmc)
{
	struct pb_page_read out;

	page.cap_user_rdpmc = 0;	/* [VM]: every page here; also rdpmc disabled in sysfs */
	fake.pmc[0] = fake.pmc[1] = 42;
	cr_expect_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), -PBENCH_ENO_RDPMC);
	cr_expect_eq(fake.rdpmc_calls, 0, "rdpmc must not run without cap_user_rdpmc");
}

Test(page_read, index_zero)
{
	struct pb_page_read out;

	page.index = 0;		/* not on a counter now (multiplexed out, or a software event) */
	fake.pmc[0] = fake.pmc[1] = 42;
	cr_expect_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), -PBENCH_ENO_RDPMC);
	cr_expect_eq(fake.rdpmc_calls, 0, "rdpmc must not run with index 0");
}

Test(page_read, normal)
{
	struct pb_page_read out = { 0 };

	/* A PMU that starts its counter at 0: count = offset + pmc. index is the counter + 1. */
	page.index = 3;
	page.offset = 1000000;
	page.time_enabled = page.time_running = 5000000;
	page.cap_user_time = 1;		/* enabled == running, and a zero time_mult */
	fake.pmc[0] = 234567;
	cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0);
	cr_expect_eq(out.value, 1234567);
	cr_expect_eq(fake.rdpmc_idx, 2, "rdpmc(index - 1), got %u", fake.rdpmc_idx);
	cr_expect_eq(fake.rdpmc_calls, 1);
	/* libperf reads the TSC only when enabled != running (it needs only the ratio); pbench
	 * always does: a region's start/stop need the times themselves, which the page holds as
	 * of the last sched-in (the emulated-PMU suite saw 0 ns enabled over a region). */
	cr_expect_eq(fake.rdtsc_calls, 1);
	cr_expect_eq(out.enabled, 5000000);
	cr_expect_eq(out.running, 5000000);
}

Test(page_read, recorded)
{
	struct pb_page_read out = { 0 };

	/* [PMU173], a read while the event was on Intel fixed counter 1: the page said
	 * index=0x40000002 (rdpmc ECX = (1 << 30) | 1, plus one) and offset=0x7fffffffffff, rdpmc
	 * returned 0x80000373f8ca. The count is offset + sign-extended pmc = 0x373f8c9 (57931977);
	 * the same issue's next read, with the event off the PMU, gave offset 0x3aa7e4f
	 * (61505103), a little later. libjevents' unextended sum was 0x100000373f8c9. */
	page.index = 0x40000002;
	page.offset = 0x7fffffffffffll;
	fake.pmc[0] = 0x80000373f8caull;
	cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0);
	cr_expect_eq(fake.rdpmc_idx, 0x40000001u, "got %#x", fake.rdpmc_idx);
	cr_expect_eq(out.value, 0x373f8c9ull, "got %#" PRIx64, out.value);
	cr_expect_neq(out.value, 0x100000373f8c9ull, "pmc was not sign-extended");
	cr_expect_lt(out.value, 61505103ull, "must precede the issue's next reading");
}

/*
 * Counter wrap at pmc_width, constructed from the x86 kernel's own bookkeeping
 * (arch/x86/events/core.c): to count `left` events before the next overflow interrupt,
 * x86_perf_event_set_period() writes (u64)-left & cntval_mask to the counter and sets
 * prev_count = (u64)-left; the page then carries offset = count - prev_count = C0 + left
 * (perf_event_update_userpage). After n more events the raw PMC is (2^w - left + n) mod 2^w,
 * near 2^w until it wraps past zero at n = left (the interrupt, which updates the page, comes
 * a little later). Sign-extended, pmc = n - left in both halves, so offset + pmc = C0 + n.
 * For counting events `left` is max_period: 2^47 - 1 with full-width writes (48-bit PMCs,
 * as in [PMU173]), 2^31 - 1 on older Intel PMUs such as Core 2's 40-bit counters.
 */
static const struct wrap_row {
	const char *what;
	unsigned width;
	uint64_t c0, left, n;
} wrap_rows[] = {
	{ "48: just programmed", 48, 0, BIT(47) - 1, 0 },
	{ "48: 1000 events", 48, 0, BIT(47) - 1, 1000 },
	{ "48: raw is 2^48-1, the last value before the wrap", 48, 5000, BIT(47) - 1, BIT(47) - 2 },
	{ "48: raw wrapped to 0", 48, 5000, BIT(47) - 1, BIT(47) - 1 },
	{ "48: raw wrapped to 5", 48, 5000, BIT(47) - 1, BIT(47) + 4 },
	{ "48: sampling period 100000 (perf record -c), raw 2^48-1", 48, 777, 100000, 99999 },
	{ "48: sampling period 100000, wrapped to 3", 48, 777, 100000, 100003 },
	{ "40: raw 2^40 - 2^31 + 1", 40, 123456789, BIT(31) - 1, 0 },
	{ "40: raw 2^40-1", 40, 123456789, BIT(31) - 1, BIT(31) - 2 },
	{ "40: wrapped to 7", 40, 123456789, BIT(31) - 1, BIT(31) + 6 },
};

Test(page_read, wrap_at_pmc_width)
{
	for (size_t i = 0; i < PB_ARRAY_SIZE(wrap_rows); i++) {
		const struct wrap_row *r = &wrap_rows[i];
		struct pb_page_read out = { 0 };
		uint64_t mask = BIT(r->width) - 1;

		page_init();
		page.pmc_width = (uint16_t)r->width;
		page.offset = (int64_t)(r->c0 + r->left);
		fake.pmc[0] = (BIT(r->width) - r->left + r->n) & mask;
		cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0, "%s", r->what);
		cr_expect_eq(out.value, r->c0 + r->n, "%s: raw %#" PRIx64 " offset %#" PRIx64
			     ": got %" PRIu64 ", want %" PRIu64, r->what, fake.pmc[0],
			     (uint64_t)page.offset, out.value, r->c0 + r->n);
	}
}

/* The TSC value at which the (constructed) page below was last updated. */
#define T0 UINT64_C(0x1d3f5b8a9c41)

/* time_enabled/time_running extrapolation with the [PT22] conversion. On x86 the kernel sets
 * time_offset = offset - now, offset being the cyc2ns offset of sched_clock and now the event's
 * last update time (arch_perf_update_userpage), so time_offset + ns(TSC) is the time since the
 * page was written: with a zero cyc2ns offset, a page written at TSC T0 has -ns(T0). */
static void page_multiplexed(void)
{
	page.cap_user_time = 1;
	page.time_mult = 0x2f328403u;
	page.time_shift = 31;
	page.time_offset = 0 - abi_time(T0, page.time_mult, page.time_shift, 0);
	page.time_enabled = 8000000;	/* multiplexed: on the PMU half the time */
	page.time_running = 4000000;
	page.offset = 1000;
	fake.pmc[0] = 500;
	fake.tsc[0] = T0 + 2712018;	/* 1 ms of the 2.712018 GHz TSC later */
}

Test(page_read, time_extrapolation)
{
	struct pb_page_read out = { 0 };
	uint64_t delta;

	page_multiplexed();
	delta = abi_time(fake.tsc[0], page.time_mult, page.time_shift, page.time_offset);
	cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0);
	cr_expect_eq(fake.rdtsc_calls, 1);
	cr_expect_eq(out.value, 1500);
	cr_expect_eq(out.enabled, 8000000 + delta, "enabled %" PRIu64 ", want %" PRIu64,
		     out.enabled, 8000000 + delta);
	cr_expect_eq(out.running, 4000000 + delta, "running %" PRIu64 ", want %" PRIu64,
		     out.running, 4000000 + delta);
	/* The ABI's delta itself is the 1 ms, to the truncation of the two conversions. */
	cr_expect(delta >= 999999 && delta <= 1000001, "delta %" PRIu64 " ns", delta);
}

Test(page_read, no_extrapolation_without_cap_user_time)
{
	struct pb_page_read out = { 0 };

	page_multiplexed();
	page.cap_user_time = 0;		/* [VM]: sched_clock is kvm-clock */
	cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0);
	cr_expect_eq(fake.rdtsc_calls, 0);
	cr_expect_eq(out.enabled, 8000000);
	cr_expect_eq(out.running, 4000000);
}

Test(page_read, time_extrapolation_short)
{
	struct pb_page_read out = { 0 };

	/* [TC21]'s 56-bit clock, page written at time_cycles, read 150 ticks later after the
	 * counter wrapped (time_cycles = 2^56 - 100, raw 50): 1500 ns more. */
	page.cap_user_time = 1;
	page.cap_user_time_short = 1;
	page.time_mult = 20971520;
	page.time_shift = 21;
	page.time_cycles = BIT(56) - 100;
	page.time_mask = 0xffffffffffffffull;
	page.time_offset = 0 - (BIT(56) - 100) * 10;
	page.time_enabled = 3000;
	page.time_running = 1000;
	fake.tsc[0] = 50;
	cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0);
	cr_expect_eq(out.enabled, 4500, "got %" PRIu64, out.enabled);
	cr_expect_eq(out.running, 2500, "got %" PRIu64, out.running);
}

Test(page_read, seqlock_retry)
{
	struct pb_page_read out = { 0 };

	/* First pass sees offset 1000 and a stale pmc 111; meanwhile the kernel rewrites the page
	 * (lock 2 -> 4). The result must come wholly from the second pass: 5000 + 222, and the
	 * second pass's times. */
	page_multiplexed();
	page.offset = 1000;
	fake.pmc[0] = 111;
	fake.pmc[1] = 222;
	fake.tsc[1] = fake.tsc[0];
	fake.update_on_first_rdpmc = 1;
	fake.upd_offset = 5000;
	fake.upd_enabled = 9000000;
	fake.upd_running = 9000000;	/* back on the PMU since: enabled == running */
	cr_assert_eq(pb_page_read(&page, fake_rdpmc, fake_rdtsc, &out), 0);
	cr_expect_eq(fake.rdpmc_calls, 2, "the lock moved: the read must be retried once");
	cr_expect_eq(out.value, 5222, "got %" PRIu64 " (1111 is the torn first pass)", out.value);
	/* The second pass's times, extrapolated to its clock read like any other. */
	{
		uint64_t d = abi_time(fake.tsc[1], page.time_mult, page.time_shift,
				      page.time_offset);

		cr_expect_eq(out.enabled, 9000000 + d, "got %" PRIu64, out.enabled);
		cr_expect_eq(out.running, 9000000 + d, "got %" PRIu64, out.running);
	}
	cr_expect_eq(page.lock, 4);
}

/* ---- live pages ------------------------------------------------------------------------------ */

static int live_rdpmc_calls, live_rdtsc_calls;

static uint64_t counting_rdpmc(uint32_t idx)
{
	live_rdpmc_calls++;
	return pb_rdpmc(idx);
}

static uint64_t counting_rdtsc(void)
{
	live_rdtsc_calls++;
	return pb_rdtsc();
}

static int open_self(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return pb_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void spin(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("" : : "r"(i) : "memory");
}

/* Records this machine's page ([VM] above) and checks what any kernel must put there for a
 * software event: it never has a user-readable counter. */
Test(live, software_event_page)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc, snap;
	struct pb_page_read out;
	uint32_t lock;
	int fd, err;
	void *p;

	fd = open_self(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (fd < 0)
		cr_skip_test("cannot open task-clock on self: %s", strerror(errno));
	p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(p, MAP_FAILED, "mmap of the perf page: %s", strerror(errno));
	pc = p;
	spin(10000000);
	/* A consistent snapshot first: the kernel rewrites this page from its timer interrupt
	 * (the lock moves every few ms while the task runs), so print outside the loop. */
	do {
		lock = pc->lock;
		__sync_synchronize();
		memcpy(&snap, p, sizeof(snap));
		__sync_synchronize();
	} while (pc->lock != lock);
	fprintf(stderr, "task-clock page: version=%u compat_version=%u lock=%u index=%u "
		"offset=%lld time_enabled=%llu time_running=%llu cap_bit0=%u "
		"cap_bit0_is_deprecated=%u cap_user_rdpmc=%u cap_user_time=%u "
		"cap_user_time_zero=%u cap_user_time_short=%u pmc_width=%u time_shift=%u "
		"time_mult=%u time_offset=%llu time_zero=%llu time_cycles=%llu "
		"time_mask=%#llx size=%u\n",
		snap.version, snap.compat_version, snap.lock, snap.index, (long long)snap.offset,
		(unsigned long long)snap.time_enabled, (unsigned long long)snap.time_running,
		(unsigned)snap.cap_bit0, (unsigned)snap.cap_bit0_is_deprecated,
		(unsigned)snap.cap_user_rdpmc, (unsigned)snap.cap_user_time,
		(unsigned)snap.cap_user_time_zero, (unsigned)snap.cap_user_time_short,
		snap.pmc_width, snap.time_shift, snap.time_mult,
		(unsigned long long)snap.time_offset, (unsigned long long)snap.time_zero,
		(unsigned long long)snap.time_cycles, (unsigned long long)snap.time_mask,
		snap.size);
	if (!snap.cap_user_time_zero)
		fprintf(stderr, "note: cap_user_time_zero=0: the kernel's sched_clock is not the TSC "
			"(kvm-clock on a KVM guest), so the page offers no TSC conversion\n");

	cr_expect_eq(lock % 2, 0, "lock is even once the kernel's update is complete");
	cr_expect_eq(snap.cap_bit0_is_deprecated, 1, "set by every kernel since 3.12");
	cr_expect_eq(snap.index, 0, "a software event is never on a hardware counter");
	cr_expect_eq(snap.cap_user_rdpmc, 0);
	err = pb_page_read(pc, counting_rdpmc, counting_rdtsc, &out);
	cr_expect_eq(err, -PBENCH_ENO_RDPMC, "pb_page_read on a software event: %d", err);
	cr_expect_eq(live_rdpmc_calls, 0);
	munmap(p, (size_t)psz);
	close(fd);
}

/* The one test that uses rdpmc on a live hardware counter; skips (with the reason) wherever the
 * kernel does not offer it, which includes every VM without PMU passthrough. */
Test(live, rdpmc_hardware_counter)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	struct pb_page_read a, b;
	uint64_t before = 0, after = 0;
	int fd, err;
	void *p;

	if (!pbench_cpu_has_pmu())
		cr_skip_test("no hardware CPU PMU (no /sys/bus/event_source/devices/cpu*: a VM "
			     "without PMU passthrough): rdpmc cannot be exercised here");
	fd = open_self(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	if (fd < 0)
		cr_skip_test("cannot open 'instructions' on self: %s", strerror(errno));
	p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(p, MAP_FAILED, "mmap of the perf page: %s", strerror(errno));
	pc = p;
	if (!pc->cap_user_rdpmc) {
		munmap(p, (size_t)psz);
		close(fd);
		cr_skip_test("the kernel set cap_user_rdpmc=0 for 'instructions' (rdpmc disabled, "
			     "see /sys/bus/event_source/devices/cpu/rdpmc)");
	}

	cr_assert_eq(read(fd, &before, sizeof(before)), (ssize_t)sizeof(before));
	err = pb_page_read(pc, counting_rdpmc, counting_rdtsc, &a);
	if (err == -PBENCH_ENO_RDPMC) {
		munmap(p, (size_t)psz);
		close(fd);
		cr_skip_test("'instructions' is not on a counter right now (index 0: the PMU is "
			     "multiplexed or in use)");
	}
	cr_assert_eq(err, 0);
	spin(1000000);
	cr_assert_eq(pb_page_read(pc, counting_rdpmc, counting_rdtsc, &b), 0);
	cr_assert_eq(read(fd, &after, sizeof(after)), (ssize_t)sizeof(after));
	fprintf(stderr, "rdpmc: read() %" PRIu64 " <= %" PRIu64 " <= %" PRIu64 " <= read() %"
		PRIu64 " (pmc_width %u, index %u)\n", before, a.value, b.value, after,
		pc->pmc_width, pc->index);

	cr_expect(live_rdpmc_calls >= 2);
	cr_expect(before <= a.value && a.value <= b.value && b.value <= after,
		  "user-space reads must fall between the kernel's");
	cr_expect(b.value - a.value >= 1000000, "a 1e6-iteration loop retires >= 1e6 "
		  "instructions, got %" PRIu64, b.value - a.value);
	cr_expect(b.value - a.value < 100000000, "implausible count %" PRIu64 " (sign extension?)",
		  b.value - a.value);
	munmap(p, (size_t)psz);
	close(fd);
}
