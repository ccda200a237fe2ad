/* SPDX-License-Identifier: MIT */
/*
 * Groups and multiplexing on the emulated PMUv3 (6 event counters and the cycle counter):
 *  - 4 events that count the loop: all on counters all the time (status ok, 100% running),
 *    each 3 N + c;
 *  - 10 different events: 6 count the loop exactly (instructions and cycles under their
 *    generic, raw and sysfs names; QEMU's cycles are its virtual time, which icount makes one
 *    per instruction), 4 are raw event numbers QEMU does not implement (they open, hold a
 *    counter, count 0). They cannot all be on the PMU at once: each must be reported
 *    multiplexed (time_running < time_enabled) with its scaled value within 1% of the exact
 *    count (3 N for the loop's, 0 for the others);
 *  - a group larger than the PMU is never a measured 0: 8 events that each need an event
 *    counter are split into groups that fit (every one counts), and a set that cannot get on
 *    the PMU at all (6 pinned events of another group hold every event counter) is reported
 *    not-counted with the reason, never as a count of 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "util.h"

#define N 10000000ull	/* 30 M instructions: 30 ms of virtual time, ~7 rotations of 4 ms */

static const char *const counting[] = {
	"instructions:u", "cycles:u", "r8:u", "r11:u", "armv8_pmuv3/inst_retired/u",
	"armv8_pmuv3/cpu_cycles/u",
};

static void four(void)
{
	struct pbench_counters *c = open_set("instructions:u,r8:u,armv8_pmuv3/inst_retired/u,"
					     "cycles:u", 0);
	struct pbench_count k[4];
	int good = 1, n;

	if (!ok(c != NULL, "4 events: open"))
		return;
	n = count_loop(c, N, k);
	for (int i = 0; i < n; i++) {
		int64_t extra = (int64_t)k[i].value - (int64_t)(LOOP3_K * N);

		diag("4 events: %-28s %llu = 3N + %lld, running %.1f%%, %s", k[i].name,
		     (unsigned long long)k[i].value, (long long)extra,
		     k[i].time_enabled ? 100.0 * (double)k[i].time_running /
					 (double)k[i].time_enabled : 0,
		     pbench_event_status_name(k[i].status));
		good &= k[i].status == PBENCH_EVENT_OK && k[i].time_running == k[i].time_enabled &&
			extra >= 0 && extra < 1000;
	}
	ok(n == 4 && good, "4 events: all ok, 100%% running, 3 N + (less than 1000)");
	pbench_counters_free(c);
}

/* Every event of a multiplexed set: status multiplexed, scaled within 1% of want[i]. */
static int check_mux(const char *what, const struct pbench_count *k, int n, const double *want)
{
	int good = 1;

	for (int i = 0; i < n; i++) {
		double pct = 100.0 * (double)k[i].time_running / (double)(k[i].time_enabled ?
									  k[i].time_enabled : 1);
		double err = want[i] ? 100.0 * (k[i].scaled - want[i]) / want[i] : k[i].scaled;
		int this = k[i].status == PBENCH_EVENT_MULTIPLEXED && k[i].time_running > 0 &&
			   k[i].time_running < k[i].time_enabled &&
			   (want[i] ? err > -1 && err < 1 : k[i].value == 0);

		diag("%s: %-28s raw %10llu running %5.1f%% scaled %12.0f (%+.3f%s) %s", what,
		     k[i].name, (unsigned long long)k[i].value, pct, k[i].scaled, err,
		     want[i] ? "%" : " exact 0", pbench_event_status_name(k[i].status));
		good &= this;
	}
	return good;
}

static void ten(void)
{
	char list[512] = "";
	struct pbench_counters *c;
	struct pbench_count k[10];
	double want[10];
	int n;

	for (size_t i = 0; i < 6; i++) {
		strcat(list, counting[i]);
		strcat(list, ",");
		want[i] = LOOP3_K * (double)N;
	}
	/* Common architectural events QEMU does not implement (L1I/L1D refills, L1D access,
	 * L1I TLB refill): they count 0. */
	strcat(list, "r1:u,r3:u,r4:u,r2:u");
	for (int i = 6; i < 10; i++)
		want[i] = 0;
	c = open_set(list, 0);
	if (!ok(c != NULL, "10 events: open"))
		return;
	diag("10 events: %d groups", pbench_counters_nr_groups(c));
	n = count_loop(c, N, k);
	ok(n == 10 && check_mux("10 events", k, n, want), "10 events on 6+1 counters: each "
	   "multiplexed, scaled within 1%% of 3 N (or exactly 0 for the unimplemented)");
	pbench_counters_free(c);
}

static void oversized(void)
{
	/* 8 events that need an event counter each (the cycle counter takes only cycles). */
	struct pbench_counters *c = open_set("instructions:u,r8:u,armv8_pmuv3/inst_retired/u,"
					     "r1:u,r2:u,r3:u,r4:u,r5:u", 0);
	struct pbench_count k[8];
	double want[8] = { 3.0 * N, 3.0 * N, 3.0 * N, 0, 0, 0, 0, 0 };
	int n;

	if (!ok(c != NULL, "8 events for 6 counters: open"))
		return;
	ok(pbench_counters_nr_groups(c) >= 2, "8 events for 6 counters: split into %d groups "
	   "that fit", pbench_counters_nr_groups(c));
	n = count_loop(c, N, k);
	ok(n == 8 && check_mux("8 events", k, n, want), "8 events for 6 counters: every one "
	   "counted (multiplexed, within 1%%), none a measured 0 of a group that never ran");
	pbench_counters_free(c);
}

/* A pinned group of the cycle counter and all 6 event counters on this thread. */
static int pin_all(int *fds)
{
	for (int i = 0; i < 7; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_RAW;
		a.config = i == 0 ? 0x11 : 0x8;
		a.exclude_kernel = 1;
		a.pinned = i == 0;
		fds[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? fds[0] : -1, 0);
		if (fds[i] < 0) {
			diag("pinned event %d: %s", i, strerror(errno));
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

static void never_ran(void)
{
	struct pbench_count k[2];
	struct pbench_counters *c;
	int fds[7], n;

	if (pin_all(fds)) {
		ok(0, "pinned: 7 events hold the PMU");
		return;
	}
	c = open_set("instructions:u,r8:u", 0);
	if (c) {
		n = count_loop(c, 1000000, k);
		for (int i = 0; i < n; i++)
			diag("PMU held: %s value %llu enabled %llu running %llu: %s (%s)", k[i].name,
			     (unsigned long long)k[i].value, (unsigned long long)k[i].time_enabled,
			     (unsigned long long)k[i].time_running,
			     pbench_event_status_name(k[i].status), k[i].reason);
		ok(n == 2 && k[0].status == PBENCH_EVENT_NOT_COUNTED &&
		   k[1].status == PBENCH_EVENT_NOT_COUNTED && k[0].reason[0] && k[1].reason[0],
		   "a set that never got on the PMU: not-counted with the reason, not a 0");
	} else {
		ok(0, "PMU held: open");
	}
	pbench_counters_free(c);
	for (int i = 6; i >= 0; i--)
		close(fds[i]);
}

int main(void)
{
	tap_init("group");
	four();
	ten();
	oversized();
	never_ran();
	return tap_done();
}
