/* SPDX-License-Identifier: MIT */
/*
 * libpfm4's hardware names, with the Neoverse N1 identity QEMU is given (midr=0x414fd0c1):
 *  - libpfm4 detects the arm_n1 PMU;
 *  - INST_RETIRED:u and arm_n1::INST_RETIRED:u resolve and count like instructions:u
 *    (3 N + c, one c for every N);
 *  - a misspelt name fails with the nearest name;
 *  - cache-misses, which this PMU does not have (ENOENT), is not-supported with its reason
 *    while the other events of the request still count.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

static const uint64_t Ns[] = { 1000, 1000000, 10000000 };

/* c of one event counted alone for every N; -1 when it differs or fails. */
static int64_t c_of(const char *name)
{
	struct pbench_counters *c = open_set(name, 0);
	struct pbench_count k[1];
	int64_t c0 = -1;
	int same = 1;

	if (!c)
		return -1;
	for (int i = 0; i < 3; i++) {
		int64_t v;

		if (count_loop(c, Ns[i], k) != 1 || k[0].status != PBENCH_EVENT_OK) {
			same = 0;
			continue;
		}
		v = (int64_t)k[0].value - (int64_t)(LOOP3_K * Ns[i]);
		if (i == 0)
			c0 = v;
		same &= v == c0;
	}
	pbench_counters_free(c);
	diag("%s: 3 N + %lld (N = 1e3, 1e6, 1e7: %s)", name, (long long)c0,
	     same ? "always" : "NOT always");
	return same ? c0 : -1;
}

static void detected(void)
{
	struct pbench_event_list *l;
	int n = pbench_event_list_new(&l, PBENCH_LIST_ALL | PBENCH_LIST_NO_PROBE), n1 = 0;

	for (int i = 0; i < n; i++) {
		struct pbench_event_desc d = { .size = sizeof(d) };

		if (!pbench_event_list_get(l, i, &d))
			n1 += !strncmp(d.name, "arm_n1::", 8);
	}
	pbench_event_list_free(l);
	ok(n1 > 0, "libpfm4 detects the arm_n1 PMU (%d arm_n1:: events listed)", n1);
}

int main(void)
{
	int64_t ci, c1, c2;

	tap_init("names");
	detected();
	ci = c_of("instructions:u");
	c1 = c_of("INST_RETIRED:u");
	c2 = c_of("arm_n1::INST_RETIRED:u");
	ok(ci >= 0, "instructions:u = 3 N + c (c %lld)", (long long)ci);
	ok(c1 >= 0 && c1 == ci, "INST_RETIRED:u counts like instructions:u (c %lld vs %lld)",
	   (long long)c1, (long long)ci);
	ok(c2 >= 0 && c2 == ci, "arm_n1::INST_RETIRED:u counts like instructions:u (c %lld vs "
	   "%lld)", (long long)c2, (long long)ci);
	{
		struct pbench_counters_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1 };
		struct pbench_counters *c = NULL;
		int err = pbench_counters_open(&c, "INST_RETIRD:u", &o);
		const char *msg = pbench_strerror(err);

		diag("INST_RETIRD:u: %s", msg);
		ok(err == -PBENCH_EUNKNOWN_EVENT && strstr(msg, "did you mean") &&
		   strstr(msg, "INST_RETIRED"), "a misspelt name gets the nearest name");
		pbench_counters_free(c);
	}
	{
		struct pbench_counters *c = open_set("cache-misses,instructions:u", 0);
		struct pbench_count k[2];
		int n = c ? count_loop(c, 1000000, k) : 0;

		if (n == 2)
			diag("cache-misses: %s (%s); instructions:u %llu",
			     pbench_event_status_name(k[0].status), k[0].reason,
			     (unsigned long long)k[1].value);
		ok(n == 2 && k[0].status == PBENCH_EVENT_NOT_SUPPORTED &&
		   strstr(k[0].reason, "ENOENT"), "cache-misses: not-supported with the reason");
		/* c moves by the few instructions the read loop spends on the unopened event. */
		ok(n == 2 && k[1].status == PBENCH_EVENT_OK && ci >= 0 &&
		   absdiff((int64_t)k[1].value - 3000000, ci) <= 64, "cache-misses: "
		   "instructions:u in the same request still counts 3 N + c (c %lld)",
		   n == 2 ? (long long)k[1].value - 3000000 : -1LL);
		pbench_counters_free(c);
	}
	return tap_done();
}
