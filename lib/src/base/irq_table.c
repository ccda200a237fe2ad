/* SPDX-License-Identifier: MIT */
/*
 * The one parser of /proc/interrupts (and of /proc/softirqs, which has the same layout): rows
 * and columns only, no reading. A leaf under the irq.affinity check (check_irq.c) and the
 * per-CPU noise probe (noise.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/irq_table.h"

int pb_irq_column(char *header, int cpu)
{
	char want[24], *save = NULL;
	int k = 0, col = -1;

	snprintf(want, sizeof(want), "CPU%d", cpu);
	for (char *t = strtok_r(header, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
		if (k++, !strcmp(t, want))
			col = k - 1;
	return col;
}

/* Up to n bytes of s into a field of size cap, cut to fit, NUL-terminated (snprintf's "%.*s"
 * without its cost: a row is parsed twice a run by the noise probe). */
static void field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n > cap - 1)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int pb_irq_parse_line(char *line, int col, struct pb_irq_row *r)
{
	char *p = line, *colon = strchr(line, ':'), *end;

	if (!colon)
		return -1;
	while (isspace((unsigned char)*p))
		p++;
	field(r->label, sizeof(r->label), p, (size_t)(colon - p));
	r->count = 0;
	p = colon + 1;
	/* Only column col is converted; the others are skipped, digit by digit. */
	for (int k = 0;; k++) {
		p += strspn(p, " ");
		if (!isdigit((unsigned char)*p))
			break;
		if (k == col) {
			r->count = strtoull(p, &end, 10);
			p = end;
		} else {
			while (isdigit((unsigned char)*p))
				p++;
		}
	}
	/* Numbered rows go on with the chip, the hwirq-type ("5-edge") and the actions. */
	for (int skip = 0; isdigit((unsigned char)r->label[0]) && skip < 2; skip++) {
		p += strspn(p, " \t");
		p += strcspn(p, " \t\n");
	}
	p += strspn(p, " \t");
	p[strcspn(p, "\n")] = '\0';
	if (isdigit((unsigned char)r->label[0]) && *p)
		field(r->name, sizeof(r->name), p, strlen(p));
	else
		memcpy(r->name, r->label, sizeof(r->label));
	return 0;
}
