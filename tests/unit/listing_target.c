/* SPDX-License-Identifier: MIT */
/*
 * The functions test_listing disassembles. This file is compiled alone with -O2 and no
 * sanitizer (the Makefile's rule for it), so what the test expects of their code depends on
 * these flags only, not on the build's (ASan instruments every loop differently).
 */
#include <stdint.h>

#include "listing_target.h"

/* A loop whose result nobody keeps: -O2 deletes it, the function is a `ret`. */
void listing_deleted(void *ctx)
{
	unsigned s = 0;

	for (unsigned i = 0; i < 1000; i++)
		s += i * i;
	(void)s;
	(void)ctx;
}

/* A loop the compiler has to keep: a chain of multiplications has no closed form, and the
 * result is stored. */
void listing_loop(void *ctx)
{
	struct listing_ctx *c = ctx;
	uint64_t s = c->seed;

	for (uint64_t i = 0; i < c->n; i++)
		s = s * 6364136223846793005u + i;
	c->out = s;
}
