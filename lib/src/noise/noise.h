/* SPDX-License-Identifier: MIT */
/*
 * The noise module (lib/src/noise/): what happened on one CPU during a run, read by the
 * per-CPU probe (noise.c; its public calls are pbench_cpu_probe_*() and pbench_noise_cause*()),
 * declared for the modules that take it around their runs (runs, jitter, contest). Never
 * installed.
 */
#ifndef PBENCH_NOISE_NOISE_H
#define PBENCH_NOISE_NOISE_H

#include "pbench.h"

/* noise.c: p takes the last text of /proc/interrupts that any probe of with's group read,
 * while the interrupt total has not moved since (the probes of one set of runs, one a CPU);
 * 0 or -errno. irq_reads: how many times p read the file (for the tests). */
int pb_cpu_probe_share(struct pbench_cpu_probe *p, struct pbench_cpu_probe *with);
unsigned long long pb_cpu_probe_irq_reads(const struct pbench_cpu_probe *p);

/* noise.c: the steal a count of /proc/stat's whole ticks (ns = ticks x the tick) allows, for
 * a sentence: from 10 ticks on a time with as many digits as the count has ("1.23 s"), under
 * 10 the range ("up to 20 ms" for 1 tick: more than n - 1 and less than n + 1 of them). */
void pb_noise_steal_words(char *buf, size_t len, uint64_t ticks, double ns);

#endif
