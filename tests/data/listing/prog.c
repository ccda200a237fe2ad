/* SPDX-License-Identifier: MIT */
/* The program of the recorded samples (record.sh): churn's loop, sampled, and stir's, whose
 * samples are the program's but not churn's. */
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) uint64_t churn(uint64_t n)
{
	uint64_t s = 1;

	for (uint64_t i = 0; i < n; i++)
		s = s * 6364136223846793005u + i;
	return s;
}

__attribute__((noinline)) uint64_t stir(uint64_t n)
{
	uint64_t s = 7;

	for (uint64_t i = 0; i < n; i++)
		s ^= s * 0x9e3779b97f4a7c15u + (s >> 7);
	return s;
}

volatile uint64_t sink;

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;

	sink = churn(n);
	sink = stir(n / 4);
	return 0;
}
