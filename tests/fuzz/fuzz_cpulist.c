/* SPDX-License-Identifier: MIT */
/*
 * CPU lists, as /sys prints them (cpu/online, isolated, nohz_full, thread_siblings_list) and
 * as users give them (--cpu): pb_cpulist_to_set(), which the checks use, and
 * pbench_cpus_parse(), which the CLI uses. Beyond not crashing, the set they return must
 * be the one they count, and must print (pb_cpuset_format) as a list that parses back to it.
 */
#include "fuzz.h"

#include <errno.h>

#include "base/base.h"

#define MAX_OUT 64

static void check_public(const char *list, const unsigned char *set, int n)
{
	int cpus[MAX_OUT], limits[] = { 1, 8, 64, PB_MAX_CPUS };

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		int k = pbench_cpus_parse(list, cpus, MAX_OUT, limits[i]);

		if (n <= 0) {
			fuzz_assert(k == (n ? n : -EINVAL), "'%s': %d, the set parser said %d", list,
				    k, n);
			continue;
		}
		fuzz_assert(k > 0 || k == -ERANGE, "'%s': %d", list, k);
		if (k < 0) {
			int beyond = n > MAX_OUT;

			for (int c = limits[i]; c < PB_MAX_CPUS && !beyond; c++)
				beyond = pb_cpu_in(set, c);
			fuzz_assert(beyond, "'%s': out of range, but every CPU is below %d",
				    list, limits[i]);
			continue;
		}
		fuzz_assert(k == n, "'%s': %d CPUs, the set has %d", list, k, n);
		for (int j = 0; j < k; j++) {
			fuzz_assert(cpus[j] >= 0 && cpus[j] < limits[i] && pb_cpu_in(set, cpus[j]),
				    "'%s': CPU %d", list, cpus[j]);
			fuzz_assert(j == 0 || cpus[j] > cpus[j - 1], "'%s': not in order", list);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char set[PB_MAX_CPUS / 8], again[PB_MAX_CPUS / 8];
	static char text[PB_MAX_CPUS * 6];
	char *list = fuzz_cstr(data, size);
	int n = pb_cpulist_to_set(list, set);

	fuzz_assert(n >= 0 || n == -EINVAL || n == -ERANGE, "'%s': %d", list, n);
	if (n >= 0) {
		fuzz_assert(n == pb_cpuset_count(set), "'%s': %d CPUs, %d in the set", list, n,
			    pb_cpuset_count(set));
		pb_cpuset_format(set, text, sizeof(text));
		if (n == 0) {
			fuzz_assert(!strcmp(text, "none"), "'%s' printed as '%s'", list, text);
		} else {
			fuzz_assert(pb_cpulist_to_set(text, again) == n &&
				    !memcmp(set, again, sizeof(set)),
				    "'%s' printed as '%s', which is another set", list, text);
		}
	}
	check_public(list, set, n);
	free(list);
	return 0;
}
