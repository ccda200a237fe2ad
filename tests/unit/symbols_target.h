/* SPDX-License-Identifier: MIT */
/* The functions of symbols_target.c (built -O2 -g, no frame pointers, no sanitizer) and of
 * symbols_lib.c (libsymtest.so), for test_symbols. */
#ifndef PBENCH_SYMBOLS_TARGET_H
#define PBENCH_SYMBOLS_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* An inline chain: symtest_inner inlined into symtest_middle inlined into symtest_outer;
 * symtest_inline_pc is an instruction of symtest_inner's body (a line in
 * [symtest_inner_first, symtest_inner_last]), called from symtest_middle at
 * symtest_middle_call and symtest_middle from symtest_outer at symtest_outer_call. */
unsigned symtest_outer(unsigned x);
extern const char symtest_inline_pc[];
extern const unsigned symtest_inner_first, symtest_inner_last, symtest_middle_call,
	symtest_outer_call;

/* symtest_a calls symtest_b calls symtest_c, which takes its registers (x86_64: IP, SP, BP,
 * BX, R12-R15, into symtest_cap in that order) and a copy of its stack, from SP up to
 * symtest_stack_end or SYMTEST_STACK bytes, into symtest_stack (symtest_stack_size bytes). */
#define SYMTEST_STACK 16384
extern uint64_t symtest_cap[8];
extern unsigned char symtest_stack[SYMTEST_STACK];
extern size_t symtest_stack_size;
extern uint64_t symtest_stack_end;
void symtest_a(void);
void symtest_b(void);
void symtest_c(void);

/* symtest_spin_a calls symtest_spin_b calls symtest_spin_c, a leaf that spins n rounds. */
uint64_t symtest_spin_a(uint64_t n);
uint64_t symtest_spin_b(uint64_t n);
uint64_t symtest_spin_c(uint64_t n);

/* libsymtest.so: an exported function and the address of a static one (not in .dynsym). */
int symlib_work(int n);
const void *symlib_hidden_addr(void);

#endif
