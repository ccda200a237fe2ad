/* SPDX-License-Identifier: MIT */
/* A shared library's hot function, for the profile's tests of a DSO (t_profile, t_profile_export):
 * built with uses_hot.c by tests/cli/lib.sh's build_hot. */
#include <stdint.h>

uint64_t hot_loop(uint64_t n)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
