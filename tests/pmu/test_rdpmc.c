/* SPDX-License-Identifier: MIT */
/*
 * The user-space read path (arm64: PMEVCNTR<n>_EL0 / PMCCNTR_EL0 through the perf page):
 *  - used when allowed (kernel.perf_user_access=1, the PMU's rdpmc format bit): start/stop
 *    read in user space, and count instructions:u = 3 N + c like read() does, c within the
 *    few instructions of the read sequence of read()'s;
 *  - with perf_user_access=0 the page says cap_user_rdpmc but gives index 0: pbench falls back
 *    to read(), says why, and counts the same;
 *  - the cost of a read: the instructions (kernel included: the guest runs as root) of one
 *    start+stop pair in user space and through read(), counted by another set; the user-space
 *    read must take at least 10x fewer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "counters/counters.h"
#include "util.h"

#define ACCESS "/proc/sys/kernel/perf_user_access"
static const uint64_t Ns[] = { 1000, 1000000, 10000000 };

/* c = instructions:u - 3N, equal for every N; -1 with a diagnostic if not. */
static int64_t exact_c(const char *what, unsigned flags, int *user)
{
	struct pbench_counters *c = open_set("instructions:u", flags);
	struct pbench_count k[1];
	int64_t c0 = -1;
	int same = 1;

	if (!c)
		return -1;
	for (int i = 0; i < 3; i++) {
		for (int r = 0; r < 2; r++) {
			int64_t v;

			if (count_loop(c, Ns[i], k) != 1 || k[0].status != PBENCH_EVENT_OK) {
				same = 0;
				continue;
			}
			v = (int64_t)k[0].value - (int64_t)(LOOP3_K * Ns[i]);
			if (i == 0 && r == 0)
				c0 = v;
			same &= v == c0;
		}
	}
	*user = pbench_counters_uses_rdpmc(c, 0);
	diag("%s: instructions:u = 3 N + %lld (N = 1e3, 1e6, 1e7, twice each: %s), read %s%s",
	     what, (long long)c0, same ? "always" : "NOT always", *user ? "in user space" :
	     "with read(): ", *user ? "" : pbench_counters_rdpmc_reason(c, 0));
	pbench_counters_free(c);
	return same ? c0 : -1;
}

/* Instructions (user and kernel) of one snapshot of set u, counted by set m with read(). */
static double read_cost(struct pbench_counters *u, struct pbench_counters *m, int pairs)
{
	struct pbench_count k[1] = { { .size = sizeof(k[0]) } };
	double best = 1e300;

	for (int rep = 0; rep < 5; rep++) {
		pbench_counters_start(m);
		for (int i = 0; i < pairs; i++) {
			pbench_counters_start(u);
			pbench_counters_stop(u);
		}
		pbench_counters_stop(m);
		if (pbench_counters_delta(m, 0, &k[0]) == 0 && k[0].status == PBENCH_EVENT_OK &&
		    (double)k[0].value / (2.0 * pairs) < best)
			best = (double)k[0].value / (2.0 * pairs);
	}
	return best;
}

/* The parts alone, on an event opened here with the rdpmc format bit: one pb_page_read (the
 * ABI sequence: seqlock, index, PMEVCNTR, times) and one plain read() of a single event. */
static void parts(struct pbench_counters *m)
{
	struct pbench_count k[1] = { { .size = sizeof(k[0]) } };
	struct perf_event_attr a;
	struct pb_page_read r;
	double best_page = 1e300, best_read = 1e300;
	uint64_t buf[4];
	void *pc;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.config1 = 2;	/* format/rdpmc: config1:1 */
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	pc = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		ok(0, "parts: open and map instructions:u with the rdpmc bit");
		return;
	}
	for (int rep = 0; rep < 5; rep++) {
		pbench_counters_start(m);
		for (int i = 0; i < 1000; i++)
			pb_page_read(pc, pb_rdpmc, pb_rdtsc, &r);
		pbench_counters_stop(m);
		if (pbench_counters_delta(m, 0, &k[0]) == 0 && k[0].value / 1000.0 < best_page)
			best_page = (double)k[0].value / 1000.0;
		pbench_counters_start(m);
		for (int i = 0; i < 1000; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
		pbench_counters_stop(m);
		if (pbench_counters_delta(m, 0, &k[0]) == 0 && k[0].value / 1000.0 < best_read)
			best_read = (double)k[0].value / 1000.0;
	}
	diag("cost: parts: one pb_page_read %.1f instructions, one read() of a single event "
	     "%.1f (kernel included)", best_page, best_read);
	ok(best_page * 10 <= best_read, "parts: the perf-page read sequence alone takes at least "
	   "10x fewer instructions than a read() of one event (%.1f vs %.1f)", best_page,
	   best_read);
	munmap(pc, 4096);
	close(fd);
}

static void cost(void)
{
	struct pbench_counters *m = open_set("instructions", PBENCH_COUNTERS_NO_RDPMC);
	struct pbench_counters *u = open_set("instructions:u", 0);
	struct pbench_counters *s = open_set("instructions:u", PBENCH_COUNTERS_NO_RDPMC);
	double cu, cs;

	if (!ok(m && u && s, "cost: three sets open"))
		goto out;
	cu = read_cost(u, m, 1000);
	ok(pbench_counters_uses_rdpmc(u, 0), "cost: the measured set read in user space");
	cs = read_cost(s, m, 1000);
	diag("cost: instructions per snapshot (start or stop, kernel included, best of 5 x 1000 "
	     "pairs): user space %.1f, read() %.1f (%.0fx)", cu, cs, cs / cu);
	printf("# bench: pmu_read_user_instructions %.1f\n# bench: pmu_read_syscall_instructions "
	       "%.1f\n", cu, cs);
	ok(cs >= 10 * cu, "cost: a user-space read takes at least 10x fewer instructions than "
	   "read() (%.1f vs %.1f)", cu, cs);
	parts(m);
out:
	pbench_counters_free(m);
	pbench_counters_free(u);
	pbench_counters_free(s);
}

int main(void)
{
	int user = 0, user2 = 0, user3 = 1;
	int64_t cu, cr, c0;

	tap_init("rdpmc");
	if (!write_sysctl(ACCESS, "1")) {
		skip("cannot write " ACCESS);
		return tap_done();
	}
	cu = exact_c("user space", 0, &user);
	ok(user, "perf_user_access=1: instructions:u is read in user space "
	   "(pbench_counters_uses_rdpmc)");
	ok(cu >= 0, "user space: instructions:u = 3 N + c with one c (%lld)", (long long)cu);
	cr = exact_c("read()", PBENCH_COUNTERS_NO_RDPMC, &user2);
	ok(!user2 && cr >= 0, "read(): instructions:u = 3 N + c with one c (%lld)", (long long)cr);
	ok(cu >= 0 && cr >= 0 && absdiff(cu, cr) <= 200, "user space and read() agree within "
	   "the read sequences' few instructions (c %lld vs %lld)", (long long)cu, (long long)cr);

	write_sysctl(ACCESS, "0");
	{
		struct pbench_counters *c = open_set("instructions:u", 0);
		struct pbench_count k[1];

		if (c) {
			count_loop(c, 1000, k);
			ok(!pbench_counters_uses_rdpmc(c, 0) &&
			   strstr(pbench_counters_rdpmc_reason(c, 0), "perf_user_access"),
			   "perf_user_access=0: read() with the reason ('%s')",
			   pbench_counters_rdpmc_reason(c, 0));
			pbench_counters_free(c);
		} else {
			ok(0, "perf_user_access=0: open instructions:u");
		}
	}
	c0 = exact_c("perf_user_access=0", 0, &user3);
	/* Not equal: the fallback first tries the page (index 0) inside the region's edges. */
	ok(!user3 && c0 >= 0 && cr >= 0 && absdiff(c0, cr) <= 200, "perf_user_access=0: the "
	   "fallback counts what read() counts, within the failed page read's instructions "
	   "(c %lld vs %lld)", (long long)c0, (long long)cr);
	write_sysctl(ACCESS, "1");
	cost();
	return tap_done();
}
