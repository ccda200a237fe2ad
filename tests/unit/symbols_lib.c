/* SPDX-License-Identifier: MIT */
/* libsymtest.so, a shared library test_symbols links: a function in it is symbolized as its,
 * and a static one (only in .symtab) is named from a debug file once the copy is stripped. */
#include "symbols_target.h"

static volatile int sink;

#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif

static KEEP int symlib_hidden(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
	return sink;
}

int symlib_work(int n)
{
	return symlib_hidden(n) + 1;
}

const void *symlib_hidden_addr(void)
{
	return (const void *)symlib_hidden;
}
