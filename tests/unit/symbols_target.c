/* SPDX-License-Identifier: MIT */
/*
 * Code whose symbols, inline frames and call chain test_symbols knows, built by its own rule:
 * -O2 -g, no frame pointers (so only CFI finds the callers), no sibling calls (so each caller
 * stays on the stack), no sanitizer (the stack copy reads the callers' frames).
 */
#include <stddef.h>
#include <stdint.h>

#include "symbols_target.h"

uint64_t symtest_cap[8];
unsigned char symtest_stack[SYMTEST_STACK];
size_t symtest_stack_size;
uint64_t symtest_stack_end;
static volatile unsigned sink;

/* Called, never inlined nor cloned into a .constprop copy (GCC's; clang has no noclone). */
#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif

const unsigned symtest_inner_first = __LINE__;
static inline __attribute__((always_inline)) unsigned symtest_inner(unsigned x)
{
	unsigned r = x * 2654435761u;

	__asm__ volatile(".globl symtest_inline_pc\nsymtest_inline_pc:\n\tnop" : "+r"(r));
	return r ^ (r >> 13);
}
const unsigned symtest_inner_last = __LINE__;

const unsigned symtest_middle_call = __LINE__ + 3;
static inline __attribute__((always_inline)) unsigned symtest_middle(unsigned x)
{
	unsigned v = symtest_inner(x + 7);

	return v * 3;
}

const unsigned symtest_outer_call = __LINE__ + 3;
KEEP unsigned symtest_outer(unsigned x)
{
	unsigned v = symtest_middle(x);

	sink = v;
	return v + sink;
}

/* The stack from SP up, byte by byte through a volatile pointer: no memcpy (a sanitizer's
 * would refuse the callers' frames) and no loop the compiler makes one. */
static KEEP void copy_stack(void)
{
	const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)symtest_cap[1];
	size_t n = SYMTEST_STACK;

	if (symtest_stack_end > symtest_cap[1] && symtest_stack_end - symtest_cap[1] < n)
		n = symtest_stack_end - symtest_cap[1];
	for (size_t i = 0; i < n; i++)
		symtest_stack[i] = p[i];
	symtest_stack_size = n;
}

KEEP void symtest_c(void)
{
#if defined(__x86_64__)
	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)"
			 :
			 : "r"(symtest_cap)
			 : "rax", "memory");
	copy_stack();
#endif
	sink++;
}

KEEP void symtest_b(void)
{
	symtest_c();
	sink++;
}

KEEP void symtest_a(void)
{
	symtest_b();
	sink++;
}

/* A leaf that spins n rounds under symtest_spin_b and symtest_spin_a, for a sampler's
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER to catch. */
KEEP uint64_t symtest_spin_c(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = (unsigned)x;
	return x;
}

KEEP uint64_t symtest_spin_b(uint64_t n)
{
	uint64_t r = symtest_spin_c(n);

	sink++;
	return r + 1;
}

KEEP uint64_t symtest_spin_a(uint64_t n)
{
	uint64_t r = symtest_spin_b(n);

	sink++;
	return r + 2;
}
