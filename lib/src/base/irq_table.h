/* SPDX-License-Identifier: MIT */
/*
 * The one parser of /proc/interrupts (and of /proc/softirqs, which has the same layout),
 * irq_table.c: used by the irq.affinity check (check_irq.c) and by the per-CPU noise probe
 * (noise.c). Never installed.
 */
#ifndef PBENCH_IRQ_TABLE_H
#define PBENCH_IRQ_TABLE_H

#include "pbench.h"

struct pb_irq_row {
	char label[16];		/* "36" or "LOC" */
	char name[48];		/* the device ("virtio1-req.0"), or the label again */
	unsigned long long count;
};

/* The column of CPUn in the header line ("CPU0 CPU1 ..."), or -1 when it has none (an
 * offline CPU). The header is split in place. */
int pb_irq_column(char *header, int cpu);
/* One row: its count in column col (0 when the row has no such column) and what it is.
 * The line is modified. 0, or -1 when it is not a row (no colon). */
int pb_irq_parse_line(char *line, int col, struct pb_irq_row *r);

#endif
