/* SPDX-License-Identifier: MIT */
/*
 * stat_irq.c: pbench stat -a -A's (and -C LIST -A's) interrupt rows (issue 39), the deltas of
 * /proc/interrupts and /proc/softirqs per CPU over each window the counters were enabled, read
 * by the noise module's per-CPU probe (pbench_cpu_probe_*) as pbench jitter reads them.
 */
#ifndef PBENCH_CLI_STAT_IRQ_H
#define PBENCH_CLI_STAT_IRQ_H

#include <stdio.h>

#include "pbench.h"

struct stat_irq;

/* A probe for each row's CPU of t (a CPU target's rows); NULL when t has no CPU row or on
 * ENOMEM (then there are no interrupt rows). */
struct stat_irq *stat_irq_new(const struct pbench_target *t);
void stat_irq_free(struct stat_irq *si);
/* Right after the counters are enabled, and right after they are disabled: one window (a
 * run); its deltas are added up, and the rows give the mean over the windows. NULL: nothing. */
void stat_irq_begin(struct stat_irq *si);
void stat_irq_end(struct stat_irq *si);

enum { STAT_IRQ_TEXT, STAT_IRQ_JSON, STAT_IRQ_CSV, STAT_IRQ_MD };

/* The rows after the counters' in perf's text (fmt STAT_IRQ_TEXT), after -x SEP's lines (sep
 * not NULL; sem: the counters' lines have -r's +- field), or as records
 * of the JSON's rows array (first: no record before), the CSV or the Markdown. */
void stat_irq_write(const struct stat_irq *si, int fmt, const char *sep, int sem, int first,
		    FILE *f);

#endif
