/* SPDX-License-Identifier: MIT */
/*
 * xorloop [ITERATIONS]: the work of `pbench stat`'s built-in workload as a command of its own,
 * so that perf stat, hyperfine and `pbench stat -- CMD` can all time the same work
 * (bench_stat runs it): 100 million iterations of the xor loop unless told otherwise
 * (~27 ms on the development VM). Not a benchmark itself: `make bench` builds it, never runs it.
 *
 * The loop is lib/src/prepare/workload.c's pbench_workload_xor, copied, in a function aligned like
 * the library's is in the pbench binary (a 256-byte boundary there). Calling the library's
 * copy from this binary took twice as long (55 ms instead of 27 ms): here the linker put it
 * so that the 19-byte loop crossed a 64-byte line, and a one-cycle loop is that sensitive to
 * where it sits. Check both with `objdump -d` after a change.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define XOR_ITERATIONS 100000000ULL	/* pbench stat's default (cli/cmd_stat.c) */

/* The result goes somewhere the compiler must assume is read. */
static volatile uint64_t sink;

__attribute__((noinline, aligned(256)))
static uint64_t workload_xor(uint64_t iterations, uint64_t seed)
{
	uint64_t r = 0;

	for (uint64_t i = 0; i < iterations; i++) {
		r ^= i ^ seed;
		/* Keep the loop a loop: without this the compiler folds it to a closed form. */
		__asm__ volatile("" : "+r"(r));
	}
	return r;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;

	sink = workload_xor(n ? n : XOR_ITERATIONS, (uint64_t)getpid());
	return 0;
}
