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

/* noise.c: /proc/stat counts steal in whole ticks (USER_HZ), so a count that moved n ticks had
 * more than n - 1 and less than n + 1 of them stolen: *lo and *hi, in ticks. Returns 1 when the
 * count is to be said as that range (under 10 ticks; from 10 on it is within a tenth). */
int pb_noise_steal_range(uint64_t n, double *lo, double *hi);
/* " (/proc/stat counts steal in 10 ms ticks: n moved)": after a range, why it is one. */
void pb_noise_steal_note(char *buf, size_t len, uint64_t n);
/* The steal a count of ticks (ns = ticks x the tick) allows, for a sentence: a time with as
 * many digits as the count has ("1.23 s"), or the range ("up to 20 ms" for 1 tick). */
void pb_noise_steal_words(char *buf, size_t len, uint64_t ticks, double ns);

#endif
