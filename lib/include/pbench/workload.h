/* SPDX-License-Identifier: MIT */
/* pbench/workload.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_WORKLOAD
#define PBENCH_H_WORKLOAD

#include "clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Built-in workloads (workload.c)
 */

/* The xor loop: r ^= i ^ seed for i in [0, iterations). Returns r so it cannot be deleted. */
PBENCH_API uint64_t pbench_workload_xor(uint64_t iterations, uint64_t seed);

/* The iterations (xor) or steps (memwalk) a built-in workload of that kind (enum
 * pbench_workload_kind, runs.h) runs when none are given: 100000000 and 200000; 0 for
 * another kind. */
PBENCH_API uint64_t pbench_workload_default_iterations(int kind);

/*
 * The memory walk: a single random cycle through every 64-byte line of a buffer, each line
 * holding the address of the next, so that each step is one dependent load the prefetchers
 * cannot predict: over a buffer several times the last-level cache, one cache miss a step.
 * pbench_walk_new() builds it over bytes (rounded down to whole lines, at least 2; seed 0
 * picks a fixed one) and writes every line, so the buffer is faulted in before anything is
 * timed: -EINVAL (NULL out, fewer than 2 lines, more than 2^32) or -ENOMEM. Memory comes from
 * the calling thread's policy: make it after pbench_prepare() to have it on the prepared
 * CPU's node and locked.
 */
struct pbench_walk;
PBENCH_API int pbench_walk_new(struct pbench_walk **out, size_t bytes, uint64_t seed);
/* Take steps along the cycle, going on from where the last call stopped. Returns the index
 * of the line reached, so the loads cannot be dropped. */
PBENCH_API uint64_t pbench_walk_run(struct pbench_walk *w, uint64_t steps);
PBENCH_API size_t pbench_walk_bytes(const struct pbench_walk *w);
PBENCH_API void pbench_walk_free(struct pbench_walk *w);
/* Four times the largest cache CPU 0 reports in sysfs, and at least 64 MiB. */
PBENCH_API size_t pbench_walk_default_bytes(void);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_WORKLOAD */
