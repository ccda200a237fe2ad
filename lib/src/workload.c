/* SPDX-License-Identifier: MIT */
/* Built-in workloads: known work to measure when no command is given. */
#include "internal.h"

uint64_t pbench_workload_xor(uint64_t iterations, uint64_t seed)
{
	uint64_t r = 0;

	for (uint64_t i = 0; i < iterations; i++) {
		r ^= i ^ seed;
		/* Keep the loop a loop: without this the compiler folds it to a closed form. */
		__asm__ volatile("" : "+r"(r));
	}
	return r;
}
