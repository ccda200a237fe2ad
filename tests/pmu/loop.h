/* SPDX-License-Identifier: MIT */
/*
 * A loop of a known instruction count: 3 per iteration. The body, as aarch64-linux-gnu-objdump
 * -d shows it in build/pmu/tests/test_exact (registers vary with the caller):
 *
 *	pb_loop3_body:
 *	  91000421   add  x1, x1, #0x1
 *	  f1000400   subs x0, x0, #0x1
 *	  54ffffc1   b.ne <pb_loop3_body>
 *	pb_loop3_end:
 *
 * The labels pb_loop3_body/pb_loop3_end are global, so a test reads the count of instruction
 * words from the code itself (loop3_words()) instead of trusting this comment.
 * n must be at least 1 (subs would wrap from 0).
 */
#ifndef PB_PMU_LOOP_H
#define PB_PMU_LOOP_H

#include <stdint.h>

#define LOOP3_K 3

static __attribute__((noinline, unused)) void loop3(uint64_t n)
{
	uint64_t x = 0;

	__asm__ volatile(".globl pb_loop3_body\n"
			 "pb_loop3_body:\n\t"
			 "add %1, %1, #1\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne pb_loop3_body\n"
			 ".globl pb_loop3_end\n"
			 "pb_loop3_end:"
			 : "+r"(n), "+r"(x) : : "cc");
}

extern const uint32_t pb_loop3_body[], pb_loop3_end[];

/* Instruction words between the labels: 3 if the assembler emitted the body above. */
static inline __attribute__((unused)) long loop3_words(void)
{
	return (long)(pb_loop3_end - pb_loop3_body);
}

#endif
