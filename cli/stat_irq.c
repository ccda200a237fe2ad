/* SPDX-License-Identifier: MIT */
/*
 * pbench stat -a -A's interrupt rows (issue 39): for each CPU row, the interrupts delivered
 * to it over the window (/proc/interrupts: the total, the local timer, the IPIs, the other
 * per-CPU rows, the device IRQs; the busiest IPI kinds and devices by name) and its softirqs
 * (/proc/softirqs), read by the same per-CPU probe as pbench jitter (pbench_cpu_probe_*), so
 * both report the same figures over the same window. They are no perf events: their unit
 * field is "/proc/interrupts" or "/proc/softirqs" (perf's is "msec" or empty), which is how a
 * parser of perf's -x lines tells them apart (kmod-free-docs/targets.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

#define MAX_DEV 16

enum { R_IRQ, R_TIMER, R_IPI, R_OTHER, R_DEVICE, R_SOFTIRQ, R_FIXED };

static const char *const fixed_name[R_FIXED] = {
	"irq", "irq:timer", "irq:ipi", "irq:other", "irq:device", "softirq",
};

struct irq_cpu {
	struct pbench_cpu_probe *p;
	int cpu;
	int irq_ok, soft_ok;		/* every window read the file's column for the CPU */
	int begun;
	unsigned long long v[R_FIXED];	/* summed over the windows */
	struct { char name[80]; unsigned long long v; } dev[MAX_DEV];	/* irq:ipi:KIND, irq:dev:NAME */
	int ndev;
};

struct stat_irq {
	int n, windows;
	struct irq_cpu *c;
};

struct stat_irq *stat_irq_new(const struct pbench_target *t)
{
	int rows = t ? pbench_target_nr_rows(t) : 0;
	struct stat_irq *si = calloc(1, sizeof(*si));

	if (!si || rows <= 0 || !(si->c = calloc((size_t)rows, sizeof(*si->c)))) {
		free(si);
		return NULL;
	}
	for (int r = 0; r < rows; r++) {
		struct pbench_target_row row = { .size = sizeof(row) };
		struct irq_cpu *c = &si->c[si->n];

		if (pbench_target_row(t, r, &row) || row.cpu < 0)
			continue;
		c->cpu = row.cpu;
		c->irq_ok = c->soft_ok = 1;
		if (pbench_cpu_probe_new(&c->p, row.cpu))
			c->irq_ok = c->soft_ok = 0;
		si->n++;
	}
	if (!si->n) {
		stat_irq_free(si);
		return NULL;
	}
	return si;
}

void stat_irq_free(struct stat_irq *si)
{
	if (!si)
		return;
	for (int i = 0; i < si->n; i++)
		pbench_cpu_probe_free(si->c[i].p);
	free(si->c);
	free(si);
}

void stat_irq_begin(struct stat_irq *si)
{
	for (int i = 0; si && i < si->n; i++) {
		struct irq_cpu *c = &si->c[i];

		c->begun = c->p && !pbench_cpu_probe_begin(c->p);
		if (!c->begun)
			c->irq_ok = c->soft_ok = 0;
	}
}

/* A named row's count (ev: "irq:ipi:RES", "irq:dev:virtio1-req.0") added to the CPU's. */
static void add_named(struct irq_cpu *c, const char *kind, const char *name, uint64_t n)
{
	char ev[80];
	int d;

	snprintf(ev, sizeof(ev), "%s%s", kind, name);
	for (d = 0; d < c->ndev; d++)
		if (!strcmp(c->dev[d].name, ev))
			break;
	if (d == c->ndev) {
		if (c->ndev == MAX_DEV)
			return;
		snprintf(c->dev[c->ndev++].name, sizeof(c->dev[0].name), "%s", ev);
	}
	c->dev[d].v += n;
}

void stat_irq_end(struct stat_irq *si)
{
	for (int i = 0; si && i < si->n; i++) {
		struct irq_cpu *c = &si->c[i];
		struct pbench_cpu_noise n = { .size = sizeof(n) };

		if (!c->begun)
			continue;
		c->begun = 0;
		pbench_cpu_probe_end(c->p, &n);
		c->irq_ok &= !(n.flags & PBENCH_CPU_NOISE_NO_IRQ);
		c->soft_ok &= !(n.flags & PBENCH_CPU_NOISE_NO_SOFTIRQ);
		c->v[R_IRQ] += n.irq_total;
		c->v[R_TIMER] += n.irq_timer;
		c->v[R_IPI] += n.irq_ipi;
		c->v[R_OTHER] += n.irq_other;
		c->v[R_DEVICE] += n.irq_device;
		c->v[R_SOFTIRQ] += n.softirq_total;
		for (int k = 0; k < PBENCH_NOISE_TOP && n.ipi_top[k].count; k++)
			add_named(c, "irq:ipi:", n.ipi_top[k].label, n.ipi_top[k].count);
		for (int k = 0; k < PBENCH_NOISE_TOP && n.irq_top[k].count; k++)
			add_named(c, "irq:dev:", n.irq_top[k].name, n.irq_top[k].count);
	}
	if (si)
		si->windows++;
}

/* One row: CPU c's event ev, its value summed over the windows (ok 0: not read). */
static void line(const struct stat_irq *si, int fmt, const char *sep, int sem, int *first,
		 const struct irq_cpu *c, const char *ev, unsigned long long sum, int ok, FILE *f)
{
	const char *src = strncmp(ev, "softirq", 7) ? "/proc/interrupts" : "/proc/softirqs";
	double v = si->windows ? (double)sum / si->windows : 0;
	char row[16];

	snprintf(row, sizeof(row), "CPU%d", c->cpu);
	if (sep) {	/* perf -A -x's fields: CPU, value, unit, event, [+-], run, %, metric, unit */
		fprintf(f, "%s%s", row, sep);
		if (ok)
			fprintf(f, "%.0f", v);
		else
			fprintf(f, "<not counted>");
		fprintf(f, "%s%s%s%s%s%s%s%s%s%s%s\n", sep, src, sep, ev, sep, sem ? sep : "",
			"", sep, sep, sep, "");
	} else if (fmt == STAT_IRQ_TEXT) {
		char val[32];

		if (ok)
			snprintf(val, sizeof(val), "%.0f", v);
		fprintf(f, "%-16s%18s      %-32s # %s\n", row, ok ? val : "<not counted>", ev,
			src);
	} else if (fmt == STAT_IRQ_JSON) {
		fprintf(f, "%s\n  {\"row\": \"%s\", \"cpus\": 1, \"event\": \"", *first ? "" : ",",
			row);
		for (const char *p = ev; *p; p++)
			fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : (unsigned char)*p < 32 ?
				"?" : "%c", *p);
		fprintf(f, "\", \"value\": ");
		if (ok)
			fprintf(f, "%.6g", v);
		else
			fprintf(f, "null");
		fprintf(f, ", \"unit\": \"\", \"status\": \"%s\", \"sem_pct\": null, \"metric\": "
			"null, \"metric_unit\": \"\", \"source\": \"%s\"}",
			ok ? "counted" : "<not counted>", src);
	} else {
		const char *x = fmt == STAT_IRQ_CSV ? "," : " | ";

		fprintf(f, "%s%s%s1%s%s%s", fmt == STAT_IRQ_MD ? "| " : "", row, x, x, ev, x);
		if (ok)
			fprintf(f, "%.6g", v);
		else
			fprintf(f, "<not counted>");
		fprintf(f, "%s%s%s%s%s%s%s", x, src, x, x, x, x, fmt == STAT_IRQ_MD ? " |" : "");
		fputc('\n', f);
	}
	*first = 0;
}

void stat_irq_write(const struct stat_irq *si, int fmt, const char *sep, int sem, int first,
		    FILE *f)
{
	if (!si)
		return;
	/* perf's order: each event over the CPUs, then each CPU's IPIs by kind and devices by
	 * name */
	for (int e = 0; e < R_FIXED; e++)
		for (int i = 0; i < si->n; i++)
			line(si, fmt, sep, sem, &first, &si->c[i], fixed_name[e], si->c[i].v[e],
			     e == R_SOFTIRQ ? si->c[i].soft_ok : si->c[i].irq_ok, f);
	for (int i = 0; i < si->n; i++)
		for (int d = 0; d < si->c[i].ndev; d++)
			line(si, fmt, sep, sem, &first, &si->c[i], si->c[i].dev[d].name,
			     si->c[i].dev[d].v, si->c[i].irq_ok, f);
}
