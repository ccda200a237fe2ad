/* SPDX-License-Identifier: MIT */
/*
 * counters.c's reads for the library's own files: every event of a set at once into an array
 * of the library's own struct pbench_count (each .size set here), for the runs and samples
 * that keep counts per event. A caller of the API gets them one at a time
 * (pbench_counters_get(), pbench_counters_delta()), each into a struct of its own size.
 */
#ifndef PB_COUNTERS_COUNTS_H
#define PB_COUNTERS_COUNTS_H

#include "pbench.h"

/* pbench_counters_read() and its events into counts[0..n-1]: the number filled, or an error. */
int pb_counters_read(struct pbench_counters *c, struct pbench_count *counts, int n);
/* The last start/stop region's counts into counts[0..n-1]: the number filled,
 * -PBENCH_EBUSY_REGION before a stop. */
int pb_counters_delta(const struct pbench_counters *c, struct pbench_count *counts, int n);

/* The counts so far of a region under way (pbench_counters_start(), no stop yet): a read() of
 * every group now less the start snapshot, into counts[0..n-1]; a set a command inherits gives
 * the command's counts so far (runs_interval.c reads them every interval). The number
 * filled, -PBENCH_EBUSY_REGION outside a region, read()'s error. */
int pb_counters_so_far(struct pbench_counters *c, struct pbench_count *counts, int n);

#endif /* PB_COUNTERS_COUNTS_H */
