/* SPDX-License-Identifier: MIT */
/* The functions of listing_target.c (built -O2, no sanitizer), for test_listing. */
#ifndef PBENCH_LISTING_TARGET_H
#define PBENCH_LISTING_TARGET_H

#include <stdint.h>

struct listing_ctx {
	uint64_t n, seed, out;
};

void listing_deleted(void *ctx);
void listing_loop(void *ctx);

#endif
