/* SPDX-License-Identifier: MIT */
/*
 * Checks: interrupts (IRQs whose affinity allows the target CPU, the busiest ones there, and
 * irqbalance, which moves them). The fix moves them to the housekeeping CPUs: not the target,
 * nor the ones the kernel keeps quiet.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "base/irq_table.h"
#include "check/check.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define SETSZ (PB_MAX_CPUS / 8)
#define OK PBENCH_CHECK_OK
#define WARN PBENCH_CHECK_WARN

#define IRQ_TOP 4

/* The IRQ_TOP busiest rows in cpu's column, busiest first: how many, or -errno. */
static int irq_top(int cpu, struct pb_irq_row *top)
{
	FILE *f = pb_fopen("/proc/interrupts");
	char *line = NULL;
	size_t cap = 0;
	int col = -1, n = 0;
	struct pb_irq_row r;

	if (!f)
		return -errno;
	/* The header names the columns: offline CPUs have none. */
	if (getline(&line, &cap, f) > 0)
		col = pb_irq_column(line, cpu);
	while (col >= 0 && getline(&line, &cap, f) > 0) {
		int i;

		if (pb_irq_parse_line(line, col, &r) || !r.count)
			continue;
		if (n < IRQ_TOP)
			n++;
		else if (top[IRQ_TOP - 1].count >= r.count)
			continue;
		for (i = n - 1; i > 0 && top[i - 1].count < r.count; i--)
			top[i] = top[i - 1];
		top[i] = r;
	}
	free(line);
	fclose(f);
	return col < 0 ? -ENOENT : n;
}

/* IRQs whose smp_affinity_list allows cpu: their numbers into list; -ENOENT if none found. */
static int irq_allowed(int cpu, int *total, int *allowed, char *list, size_t len)
{
	unsigned char *set = malloc(SETSZ);
	char dirpath[4096];
	struct dirent *d;
	size_t n = 0;
	DIR *dir = NULL;

	*total = *allowed = 0;
	list[0] = '\0';
	if (!set || pb_path(dirpath, sizeof(dirpath), "/proc/irq") || !(dir = opendir(dirpath))) {
		free(set);
		return set ? -ENOENT : -ENOMEM;
	}
	while ((d = readdir(dir))) {
		char p[300];

		snprintf(p, sizeof(p), "/proc/irq/%.200s/smp_affinity_list", d->d_name);
		if (!isdigit((unsigned char)d->d_name[0]) || pb_read_cpulist(p, set) < 0)
			continue;
		++*total;
		if (!pb_cpu_in(set, cpu))
			continue;
		++*allowed;
		/* Too many to list: the fix loops over all of them. */
		n = n + strlen(d->d_name) + 2 < len ? n + (size_t)snprintf(list + n, len - n,
			"%s%s", n ? " " : "", d->d_name) : len;
	}
	if (n >= len)
		snprintf(list, len, "$(ls /proc/irq | grep -v default)");
	closedir(dir);
	free(set);
	return *total ? 0 : -ENOENT;
}

/* irqbalance's environment file where this machine has one: Debian's /etc/default, Red Hat's
 * /etc/sysconfig; neither (or a recorded tree, whose /etc is not here): both named. */
static const char *irqbalance_conf(const struct pb_check_ctx *ctx)
{
	static const char *const files[] = { "/etc/default/irqbalance",
					     "/etc/sysconfig/irqbalance" };

	for (size_t i = 0; ctx->live && i < sizeof(files) / sizeof(files[0]); i++)
		if (access(files[i], F_OK) == 0)
			return files[i];
	return "its environment file (/etc/default/irqbalance, or /etc/sysconfig/irqbalance "
	       "on Red Hat)";
}

static void check_irq(struct pb_check_ctx *ctx, int cpu, int irqbalance,
		      const unsigned char *online, const unsigned char *quiet)
{
	struct pb_irq_row top[IRQ_TOP];
	struct pbench_check_finding *c;
	unsigned char rest[SETSZ];
	char busy[160] = "none", list[160], others[256], stop[320] = "";
	int ntop = irq_top(cpu, top), total, allowed, n = 0;
	int err = irq_allowed(cpu, &total, &allowed, list, sizeof(list));
	/* irqbalance leaves isolated and nohz_full CPUs alone (it reads those sysfs files). */
	int roams = irqbalance && !pb_cpu_in(quiet, cpu);

	if (err) {
		pb_check_unknown(ctx, "irq.affinity", cpu, "/proc/irq/*/smp_affinity_list", err);
		return;
	}
	for (int i = 0; i < ntop && n < (int)sizeof(busy); i++) {
		int dev = strcmp(top[i].label, top[i].name);

		n += snprintf(busy + n, sizeof(busy) - (size_t)n, "%s%s%s%s %llu", i ? ", " : "",
			      dev ? top[i].label : "", dev ? ":" : "", top[i].name, top[i].count);
	}
	c = pb_report(ctx, "irq.affinity", cpu, allowed || roams ? WARN : OK,
		      "no device IRQs here", "%d of %d IRQs may run on CPU %d%s; busiest here: %s",
		      allowed, total, cpu, !irqbalance ? "" : roams ? " (irqbalance running)" :
		      " (irqbalance running; it skips isolated CPUs)",
		      ntop < 0 ? "(no column)" : busy);
	if (c->status == OK)
		return;
	/* irqbalance rebalances every SLEEP_INTERVAL, 10 s (its constants.h). */
	pb_check_set(c, &c->why, "a device interrupt on CPU %d stops the measured code while its "
		     "handler and softirq work run%s; the LOC row is the scheduler tick (see "
		     "isolation.nohz_full)", cpu, roams ? "; irqbalance rewrites affinities every "
		     "10 s and can move IRQs here" : "");
	/* Move them to the housekeeping CPUs: not this one, nor the others kept quiet. */
	for (int pass = 0; pass < 2 && (!pass || !pb_cpuset_count(rest)); pass++) {
		memcpy(rest, online, SETSZ);
		for (int o = 0; o < PB_MAX_CPUS; o++)
			if (o == cpu || (!pass && pb_cpu_in(quiet, o)))
				pb_cpu_put(rest, o, 0);
	}
	pb_cpuset_format(rest, others, sizeof(others));
	if (irqbalance)
		snprintf(stop, sizeof(stop), "sudo systemctl stop irqbalance (or set IRQBALANCE_"
			 "BANNED_CPULIST=%d in %s and restart it)%s", cpu, irqbalance_conf(ctx),
			 allowed ? ", then " : "");
	if (!pb_cpuset_count(rest))
		pb_check_set(c, &c->fix, "CPU %d is the only online CPU: IRQs cannot move", cpu);
	else if (!allowed)
		pb_check_set(c, &c->fix, "%s", stop);
	else
		pb_check_set(c, &c->fix, "%sfor i in %s; do echo %s | sudo tee /proc/irq/$i/"
			     "smp_affinity_list; done (managed IRQs such as NVMe queues refuse: "
			     "boot with isolcpus=managed_irq,%d)", stop, list, others, cpu);
}

void pb_check_interrupts(struct pb_check_ctx *ctx)
{
	unsigned char online[SETSZ], quiet[SETSZ];
	int irqbalance = pb_process_running("irqbalance");

	if (pb_read_cpulist(CPU_DIR "/online", online) < 0)
		memset(online, 0, sizeof(online));
	pb_quiet_cpus(quiet);
	for (int i = 0; i < ctx->ncpus; i++)
		check_irq(ctx, ctx->cpus[i], irqbalance, online, quiet);
}
