/* SPDX-License-Identifier: MIT */
/*
 * Checks: isolation (isolcpus, nohz_full, rcu_nocbs), interrupts (IRQ affinity, irqbalance)
 * and scheduler (RT throttling and the fair server, load, the kernel's periodic housekeeping,
 * cgroup CPU quota and cpuset). Everything here only reads; each fix is a command for the user.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define SETSZ (PB_MAX_CPUS / 8)
#define OK PBENCH_CHECK_OK
#define INFO PBENCH_CHECK_INFO
#define WARN PBENCH_CHECK_WARN
#define BAD PBENCH_CHECK_BAD

/* ---- helpers ---------------------------------------------------------------------------- */

/* A finding with its value and, when given, what measuring expects. NULL when out of memory. */
__attribute__((format(printf, 6, 7)))
static struct pbench_check *put(struct pb_env_ctx *ctx, const char *id, int cpu, int status,
				const char *expected, const char *fmt, ...)
{
	struct pbench_check *c = pb_check(ctx, id, cpu, status);
	va_list ap;

	if (!c)
		return NULL;
	if (expected)
		pb_check_set(c, c->expected, "%s", expected);
	va_start(ap, fmt);
	vsnprintf(c->value, sizeof(c->value), fmt, ap);
	va_end(ap);
	return c;
}

/* A bitmap as the kernel prints a cpulist ("0-1,4-7"); "none" when empty. */
static void set_str(const unsigned char *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < PB_MAX_CPUS && n < len; c++) {
		int e = c;

		if (!pb_cpu_in(set, c))
			continue;
		while (e + 1 < PB_MAX_CPUS && pb_cpu_in(set, e + 1))
			e++;
		n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c,
				      e);
		c = e;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static int set_count(const unsigned char *set)
{
	int n = 0;

	for (int i = 0; i < SETSZ; i++)
		n += __builtin_popcount(set[i]);
	return n;
}

static void set_put(unsigned char *set, int cpu, int on)
{
	if (cpu < 0 || cpu >= PB_MAX_CPUS)
		return;
	if (on)
		set[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
	else
		set[cpu / 8] &= (unsigned char)~(1u << (cpu % 8));
}

/* A cpulist file that may say "(null)": nohz_full does when the kernel allocates its mask
 * only for a nohz_full= parameter. */
static int read_cpulist_null(const char *path, unsigned char *set)
{
	char buf[4096];
	int n = pb_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (!strcmp(buf, "(null)")) {
		memset(set, 0, SETSZ);
		return 0;
	}
	return pb_cpulist_to_set(buf, set);
}

/* A CPU list as boot parameters take it: a cpulist or "all". */
static int boot_cpulist(const char *s, unsigned char *set)
{
	if (!strcasecmp(s, "all"))
		return pb_read_cpulist(CPU_DIR "/possible", set);
	return pb_cpulist_to_set(s, set);
}

/* fix = pre + how to boot with param=flags<cur + cpu>: grubby on Red Hat and Fedora kernels
 * (".el9", ".fc39" in the release), the Debian way elsewhere. */
static void fix_boot(struct pbench_check *c, const char *pre, const char *param,
		     const char *flags, const unsigned char *cur, int have, int cpu)
{
	unsigned char set[SETSZ] = { 0 };
	char list[256], rel[128] = "";
	int redhat = 0;

	if (have > 0)
		memcpy(set, cur, SETSZ);
	set_put(set, cpu, 1);
	set_str(set, list, sizeof(list));
	pb_read_file("/proc/sys/kernel/osrelease", rel, sizeof(rel));
	for (const char *p = strchr(rel, '.'); p; p = strchr(p + 1, '.'))
		redhat |= (!strncmp(p, ".el", 3) || !strncmp(p, ".fc", 3)) &&
			  isdigit((unsigned char)p[3]);
	if (redhat)
		pb_check_set(c, c->fix, "%ssudo grubby --update-kernel=ALL --args=\"%s=%s%s\", "
			     "then reboot", pre, param, flags, list);
	else
		pb_check_set(c, c->fix, "%sadd \"%s=%s%s\" to GRUB_CMDLINE_LINUX in "
			     "/etc/default/grub, then sudo update-grub and reboot", pre, param,
			     flags, list);
}

/* ---- isolation -------------------------------------------------------------------------- */

/* What the kernel and its command line say about isolation. */
struct iso {
	unsigned char isolated[SETSZ], nohz[SETSZ];	/* from sysfs */
	unsigned char isol_param[SETSZ], nohz_param[SETSZ], nocbs_param[SETSZ];
	int isolated_n, nohz_n;		/* count, or -errno for the sysfs file */
	int cmdline;			/* < 0: /proc/cmdline unreadable */
	int isol_n, isol_domain, nohz_pn, nocbs_has, nocbs_n;	/* parsed counts, or < 0 */
	char isol_val[256], isol_flags[128], nohz_val[256], nocbs_val[256];
};

/* isolcpus=[flag,...,]list. Without flags the CPUs leave the scheduler's domains; with flags
 * (nohz, domain, managed_irq) only if "domain" is one of them. */
static int isolcpus_parse(struct iso *s)
{
	const char *p = s->isol_val, *comma;
	int any = 0, dom = 0;
	size_t n = 0;

	while (isalpha((unsigned char)*p) && (comma = strchr(p, ','))) {
		size_t l = (size_t)(comma - p);

		any = 1;
		dom |= l == 6 && !strncmp(p, "domain", 6);
		if (n + l + 1 < sizeof(s->isol_flags)) {
			memcpy(s->isol_flags + n, p, l + 1);
			n += l + 1;
		}
		p = comma + 1;
	}
	s->isol_domain = any ? dom : 1;
	return boot_cpulist(p, s->isol_param);
}

static struct iso *iso_load(void)
{
	struct iso *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->isolated_n = pb_read_cpulist(CPU_DIR "/isolated", s->isolated);
	s->nohz_n = read_cpulist_null(CPU_DIR "/nohz_full", s->nohz);
	s->cmdline = pb_cmdline_param("isolcpus", s->isol_val, sizeof(s->isol_val));
	if (s->cmdline < 0)
		return s;
	s->isol_n = s->cmdline ? isolcpus_parse(s) : 0;
	if (pb_cmdline_param("nohz_full", s->nohz_val, sizeof(s->nohz_val)) > 0)
		s->nohz_pn = boot_cpulist(s->nohz_val, s->nohz_param);
	s->nocbs_has = pb_cmdline_param("rcu_nocbs", s->nocbs_val, sizeof(s->nocbs_val)) > 0;
	if (s->nocbs_has && s->nocbs_val[0])
		s->nocbs_n = boot_cpulist(s->nocbs_val, s->nocbs_param);
	return s;
}

/* A CPU the kernel keeps quiet: out of the scheduler's domains, or tickless. */
static int iso_quiet(const struct iso *s, int cpu)
{
	return (s->isolated_n > 0 && pb_cpu_in(s->isolated, cpu)) ||
	       (s->nohz_n > 0 && pb_cpu_in(s->nohz, cpu));
}

static void check_isolcpus(struct pb_env_ctx *ctx, const struct iso *s, int cpu)
{
	const char *id = "isolation.isolcpus";
	struct pbench_check *c;
	char list[256], flags[140], pre[300] = "";
	int sysfs = s->isolated_n >= 0, in;

	if ((!sysfs && s->cmdline < 0) || (s->isolated_n < 0 && s->isolated_n != -ENOENT)) {
		pb_check_unknown(ctx, id, cpu, CPU_DIR "/isolated", s->isolated_n);
		return;
	}
	if (!sysfs && s->isol_n < 0) {
		put(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse isolcpus=%s",
		    s->isol_val);
		return;
	}
	/* The sysfs file is what the kernel did; the command line is only the fallback. */
	in = sysfs ? pb_cpu_in(s->isolated, cpu)
		   : s->isol_n > 0 && s->isol_domain && pb_cpu_in(s->isol_param, cpu);
	set_str(sysfs ? s->isolated : s->isol_param, list, sizeof(list));
	if (in) {
		put(ctx, id, cpu, OK, "isolated", "isolated (%s%s%s%s)", sysfs ? "isolated: " :
		    "isolcpus=", sysfs ? list : s->isol_val, sysfs && s->cmdline > 0 ?
		    ", isolcpus=" : "", sysfs && s->cmdline > 0 ? s->isol_val : "");
		return;
	}
	if (s->isol_n > 0 && !s->isol_domain && pb_cpu_in(s->isol_param, cpu))
		c = put(ctx, id, cpu, WARN, "isolated", "not isolated: isolcpus=%s has no "
			"\"domain\" flag", s->isol_val);
	else
		c = put(ctx, id, cpu, WARN, "isolated", "not isolated (isolated: %s)", list);
	if (!c)
		return;
	pb_check_set(c, c->why, "the scheduler puts other tasks on CPU %d and balances load onto "
		     "it; each preemption of the measured code costs a context switch and cold "
		     "caches (tens of microseconds to milliseconds)", cpu);
	snprintf(flags, sizeof(flags), "%s%s", s->isol_n > 0 && !s->isol_domain ? "domain," : "",
		 s->isol_n > 0 ? s->isol_flags : "");
	if (sysfs && s->isolated_n > 0)
		snprintf(pre, sizeof(pre), "measure on an isolated CPU (--cpu %s), or ", list);
	fix_boot(c, pre, "isolcpus", flags, s->isol_param, s->isol_n, cpu);
}

static void check_nohz(struct pb_env_ctx *ctx, const struct iso *s, int cpu, int pstate)
{
	const char *id = "isolation.nohz_full", *exp = "tickless (nohz_full)";
	struct pbench_check *c;
	char list[256];

	if (s->nohz_n == -ENOENT) {
		int asked = s->nohz_pn > 0 && pb_cpu_in(s->nohz_param, cpu);

		c = asked ? put(ctx, id, cpu, WARN, exp, "nohz_full=%s ignored: kernel built "
				"without CONFIG_NO_HZ_FULL", s->nohz_val)
			  : put(ctx, id, cpu, INFO, exp, "not available: kernel built without "
				"CONFIG_NO_HZ_FULL (no " CPU_DIR "/nohz_full)");
		if (!c)
			return;
		pb_check_set(c, c->why, "the scheduler tick interrupts CPU %d 100 to 1000 times a "
			     "second (CONFIG_HZ) even while the measured code runs alone", cpu);
		pb_check_set(c, c->fix, "boot a kernel built with CONFIG_NO_HZ_FULL=y (Debian, "
			     "Fedora, RHEL; Ubuntu from 6.8) with nohz_full=%d", cpu);
		return;
	}
	if (s->nohz_n < 0) {
		pb_check_unknown(ctx, id, cpu, CPU_DIR "/nohz_full", s->nohz_n);
		return;
	}
	set_str(s->nohz, list, sizeof(list));
	if (pb_cpu_in(s->nohz, cpu)) {
		c = put(ctx, id, cpu, pstate ? WARN : OK, exp, "tickless when one task runs "
			"(nohz_full: %s)%s", list, pstate ? ", but intel_pstate is active" : "");
		if (!c || !pstate)
			return;
		pb_check_set(c, c->why, "intel_pstate in active mode re-evaluates the P-state from "
			     "the scheduler's periodic utilization updates, which need the tick: "
			     "with the tick stopped on CPU %d the frequency is not updated while "
			     "the measured code runs", cpu);
		pb_check_set(c, c->fix, "echo passive | sudo tee " CPU_DIR "/intel_pstate/status; "
			     "echo performance | sudo tee " CPU_DIR
			     "/cpu%d/cpufreq/scaling_governor", cpu);
		return;
	}
	c = put(ctx, id, cpu, WARN, exp, "tick runs (nohz_full: %s)", list);
	if (!c)
		return;
	pb_check_set(c, c->why, "the scheduler tick interrupts CPU %d 100 to 1000 times a second "
		     "(CONFIG_HZ), a few microseconds each, also while the measured code runs "
		     "alone", cpu);
	if (cpu == 0)
		pb_check_set(c, c->fix, "CPU 0 keeps the tick for timekeeping: measure on another "
			     "CPU and boot with nohz_full= (and isolcpus=) for it");
	else
		fix_boot(c, "", "nohz_full", "", s->nohz, s->nohz_n, cpu);
}

static void check_nocbs(struct pb_env_ctx *ctx, const struct iso *s, int cpu)
{
	const char *id = "isolation.rcu_nocbs", *exp = "offloaded (rcu_nocbs)";
	struct pbench_check *c;
	char name[32], list[256];

	/* rcuop/N (rcuos/N without preemptible RCU) runs CPU N's callbacks elsewhere: proof
	 * that they are offloaded, whatever the command line says. */
	snprintf(name, sizeof(name), "rcuop/%d", cpu);
	if (!pb_process_running(name))
		snprintf(name, sizeof(name), "rcuos/%d", cpu);
	if (pb_process_running(name)) {
		put(ctx, id, cpu, OK, exp, "offloaded (%s runs CPU %d's callbacks)", name, cpu);
		return;
	}
	if (s->cmdline < 0 || s->nocbs_n < 0) {
		if (s->cmdline < 0)
			pb_check_unknown(ctx, id, cpu, "/proc/cmdline", s->cmdline);
		else
			put(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse rcu_nocbs=%s",
			    s->nocbs_val);
		return;
	}
	if (s->nocbs_n > 0 && pb_cpu_in(s->nocbs_param, cpu)) {
		put(ctx, id, cpu, OK, exp, "offloaded (rcu_nocbs=%s)", s->nocbs_val);
		return;
	}
	set_str(s->nohz, list, sizeof(list));
	if (s->nohz_n > 0 && pb_cpu_in(s->nohz, cpu)) {
		put(ctx, id, cpu, OK, exp, "offloaded (implied by nohz_full: %s)", list);
		return;
	}
	c = put(ctx, id, cpu, INFO, exp, "RCU callbacks run on CPU %d (%s%s)", cpu,
		s->nocbs_has ? "rcu_nocbs=" : "no rcu_nocbs=", s->nocbs_has ? s->nocbs_val : "");
	if (!c)
		return;
	pb_check_set(c, c->why, "RCU callbacks run in softirq on the CPU that queued them; a "
		     "burst after many frees can take tens of microseconds");
	fix_boot(c, "", "rcu_nocbs", "", s->nocbs_param, s->nocbs_n, cpu);
}

void pb_check_isolation(struct pb_env_ctx *ctx)
{
	struct iso *s = iso_load();
	char st[32];
	int pstate;

	if (!s)
		return;
	pstate = pb_read_file(CPU_DIR "/intel_pstate/status", st, sizeof(st)) > 0 &&
		 !strcmp(st, "active");
	for (int i = 0; i < ctx->ncpus; i++) {
		check_isolcpus(ctx, s, ctx->cpus[i]);
		check_nohz(ctx, s, ctx->cpus[i], pstate);
		check_nocbs(ctx, s, ctx->cpus[i]);
	}
	free(s);
}

/* ---- interrupts ------------------------------------------------------------------------- */

#define IRQ_TOP 4

struct irq_row {
	char label[16];		/* "36" or "LOC" */
	char name[48];		/* the device ("virtio1-req.0"), or the label again */
	unsigned long long count;
};

/* One line of /proc/interrupts: its count in column col and what it is. */
static int irq_parse_line(char *line, int col, struct irq_row *r)
{
	char *p = line, *colon = strchr(line, ':'), *end;

	if (!colon)
		return -1;
	while (isspace((unsigned char)*p))
		p++;
	snprintf(r->label, sizeof(r->label), "%.*s", (int)(colon - p), p);
	r->count = 0;
	p = colon + 1;
	for (int k = 0;; k++) {
		unsigned long long v;

		p += strspn(p, " ");
		if (!isdigit((unsigned char)*p))
			break;
		v = strtoull(p, &end, 10);
		if (k == col)
			r->count = v;
		p = end;
	}
	/* Numbered rows go on with the chip, the hwirq-type ("5-edge") and the actions. */
	for (int skip = 0; isdigit((unsigned char)r->label[0]) && skip < 2; skip++) {
		p += strspn(p, " \t");
		p += strcspn(p, " \t\n");
	}
	p += strspn(p, " \t");
	p[strcspn(p, "\n")] = '\0';
	snprintf(r->name, sizeof(r->name), "%s", isdigit((unsigned char)r->label[0]) && *p ? p :
		 r->label);
	return 0;
}

/* The IRQ_TOP busiest rows in cpu's column, busiest first: how many, or -errno. */
static int irq_top(int cpu, struct irq_row *top)
{
	FILE *f = pb_fopen("/proc/interrupts");
	char *line = NULL, want[24], *save = NULL;
	size_t cap = 0;
	int col = -1, n = 0, k = 0;
	struct irq_row r;

	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "CPU%d", cpu);
	/* The header names the columns: offline CPUs have none. */
	if (getline(&line, &cap, f) > 0)
		for (char *t = strtok_r(line, " \t\n", &save); t;
		     t = strtok_r(NULL, " \t\n", &save))
			if (k++, !strcmp(t, want))
				col = k - 1;
	while (col >= 0 && getline(&line, &cap, f) > 0) {
		int i;

		if (irq_parse_line(line, col, &r) || !r.count)
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

static void check_irq(struct pb_env_ctx *ctx, const struct iso *s, int cpu, int irqbalance,
		      const unsigned char *online)
{
	struct irq_row top[IRQ_TOP];
	struct pbench_check *c;
	unsigned char rest[SETSZ];
	char busy[160] = "none", list[160], others[256], stop[160] = "";
	int ntop = irq_top(cpu, top), total, allowed, n = 0;
	int err = irq_allowed(cpu, &total, &allowed, list, sizeof(list));
	/* irqbalance leaves isolated and nohz_full CPUs alone (it reads those sysfs files). */
	int roams = irqbalance && !iso_quiet(s, cpu);

	if (err) {
		pb_check_unknown(ctx, "irq.affinity", cpu, "/proc/irq/*/smp_affinity_list", err);
		return;
	}
	for (int i = 0; i < ntop && n < (int)sizeof(busy); i++) {
		int dev = strcmp(top[i].label, top[i].name);

		n += snprintf(busy + n, sizeof(busy) - (size_t)n, "%s%s%s%s %llu", i ? ", " : "",
			      dev ? top[i].label : "", dev ? ":" : "", top[i].name, top[i].count);
	}
	c = put(ctx, "irq.affinity", cpu, allowed || roams ? WARN : OK, "no device IRQs here",
		"%d of %d IRQs may run on CPU %d%s; busiest here: %s", allowed, total, cpu,
		!irqbalance ? "" : roams ? " (irqbalance running)" :
		" (irqbalance running; it skips isolated CPUs)", ntop < 0 ? "(no column)" : busy);
	if (!c || c->status == OK)
		return;
	pb_check_set(c, c->why, "a device interrupt on CPU %d stops the measured code for "
		     "microseconds, plus its softirq work%s; the LOC row is the scheduler tick "
		     "(see isolation.nohz_full)", cpu, roams ? "; irqbalance rewrites affinities "
		     "every 10 s and can move IRQs here" : "");
	/* Move them to the housekeeping CPUs: not this one, nor the others kept quiet. */
	for (int pass = 0; pass < 2 && (!pass || !set_count(rest)); pass++) {
		memcpy(rest, online, SETSZ);
		for (int o = 0; o < PB_MAX_CPUS; o++)
			if (o == cpu || (!pass && iso_quiet(s, o)))
				set_put(rest, o, 0);
	}
	set_str(rest, others, sizeof(others));
	if (irqbalance)
		snprintf(stop, sizeof(stop), "sudo systemctl stop irqbalance (or set IRQBALANCE_"
			 "BANNED_CPULIST=%d in /etc/default/irqbalance and restart it)%s", cpu,
			 allowed ? ", then " : "");
	if (!set_count(rest))
		pb_check_set(c, c->fix, "CPU %d is the only online CPU: IRQs cannot move", cpu);
	else if (!allowed)
		pb_check_set(c, c->fix, "%s", stop);
	else
		pb_check_set(c, c->fix, "%sfor i in %s; do echo %s | sudo tee /proc/irq/$i/"
			     "smp_affinity_list; done (managed IRQs such as NVMe queues refuse: "
			     "boot with isolcpus=managed_irq,%d)", stop, list, others, cpu);
}

void pb_check_interrupts(struct pb_env_ctx *ctx)
{
	struct iso *s = iso_load();
	unsigned char online[SETSZ];
	int irqbalance = pb_process_running("irqbalance");

	if (!s)
		return;
	if (pb_read_cpulist(CPU_DIR "/online", online) < 0)
		memset(online, 0, sizeof(online));
	for (int i = 0; i < ctx->ncpus; i++)
		check_irq(ctx, s, ctx->cpus[i], irqbalance, online);
	free(s);
}

/* ---- scheduler: RT throttling and the fair server --------------------------------------- */

static void check_rt(struct pb_env_ctx *ctx)
{
	const char *id = "sched.rt_throttling", *fs_dir = "/sys/kernel/debug/sched/fair_server";
	struct pbench_check *c;
	char rel[128] = "", fs[128] = "", files[300] = "", path[96];
	long rt, period, run, per;
	int err, a = 0, b = 0, known = 1, off = 1, n = 0;

	err = pb_read_long("/proc/sys/kernel/sched_rt_runtime_us", &rt);
	if (!err)
		err = pb_read_long("/proc/sys/kernel/sched_rt_period_us", &period);
	if (err) {
		pb_check_unknown(ctx, id, -1, "/proc/sys/kernel/sched_rt_*_us", err);
		return;
	}
	if (pb_read_file("/proc/sys/kernel/osrelease", rel, sizeof(rel)) < 0 ||
	    sscanf(rel, "%d.%d", &a, &b) != 2)
		snprintf(rel, sizeof(rel), "unknown");
	if (a < 6 || (a == 6 && b < 12)) {
		c = put(ctx, id, -1, rt < 0 ? OK : WARN, "-1 (RT throttling off)", rt < 0 ?
			"-1 (RT throttling off)" : "%ld of %ld us (kernel %s)", rt, period, rel);
		if (!c || rt < 0)
			return;
		pb_check_set(c, c->why, "once SCHED_FIFO/RR tasks have run %ld ms of a %ld ms "
			     "period the kernel stops them for the rest of it: a prepared "
			     "(SCHED_FIFO) run loses %ld ms of every %ld ms", rt / 1000,
			     period / 1000, (period - rt) / 1000, period / 1000);
		pb_check_set(c, c->fix, "sudo sysctl -w kernel.sched_rt_runtime_us=-1 (a runaway "
			     "RT task can then hang its CPU)");
		return;
	}
	/* From 6.12 the fair (deadline) server replaces RT throttling: starved normal tasks get
	 * their runtime each period on every CPU, against SCHED_FIFO too. Only debugfs has it. */
	for (int i = 0; i < ctx->ncpus; i++) {
		snprintf(path, sizeof(path), "%s/cpu%d/runtime", fs_dir, ctx->cpus[i]);
		if (n + 80 < (int)sizeof(files))
			n += snprintf(files + n, sizeof(files) - (size_t)n, " %s", path);
		if (pb_read_long(path, &run)) {
			known = 0;
			continue;
		}
		off &= run == 0;
		snprintf(path, sizeof(path), "%s/cpu%d/period", fs_dir, ctx->cpus[i]);
		if (!fs[0] && !pb_read_long(path, &per))
			snprintf(fs, sizeof(fs), "%ld ms per %ld ms on CPU %d", run / 1000000,
				 per / 1000000, ctx->cpus[i]);
	}
	if (known && off) {
		put(ctx, id, -1, OK, NULL, "fair server off; sched_rt_runtime_us %ld", rt);
		return;
	}
	c = put(ctx, id, -1, WARN, "fair server off on the target CPUs", "fair server %s; "
		"sched_rt_runtime_us %ld of %ld (kernel %s)", known && fs[0] ? fs :
		"50 ms per 1000 ms (the default; debugfs not readable)", rt, period, rel);
	if (!c)
		return;
	pb_check_set(c, c->why, "on kernels >= 6.12 the fair server gives starved normal tasks "
		     "up to 50 ms of every second even against a SCHED_FIFO task (measured on "
		     "these machines: a pinned SCHED_FIFO 54 ms loop ran 104 ms); "
		     "sched_rt_runtime_us no longer throttles, except with RT group scheduling");
	pb_check_set(c, c->fix, "echo 0 | sudo tee%s (mount debugfs first if needed; a runaway "
		     "SCHED_FIFO task can then hang the CPU)%s", files, rt >= 0 ? "; with RT "
		     "group scheduling also sudo sysctl -w kernel.sched_rt_runtime_us=-1" : "");
}

/* ---- scheduler: load and tasks bound to the CPU ----------------------------------------- */

/* Non-idle share of cpu over the window (or since boot on a recorded tree); -1 unknown. */
static double busy_share(const struct pb_env_ctx *ctx, int cpu)
{
	const struct pb_cpu_times *a, *b;
	double idle, total;

	if (cpu < 0 || cpu >= PB_MAX_CPUS || !ctx->t1 || !ctx->t1[cpu].valid)
		return -1;
	a = &ctx->t0[cpu];
	b = &ctx->t1[cpu];
	idle = (double)(b->idle + b->iowait) - (double)(a->idle + a->iowait);
	total = idle + (double)(b->user + b->nice + b->system + b->irq + b->softirq + b->steal) -
		(double)(a->user + a->nice + a->system + a->irq + a->softirq + a->steal);
	return total > 0 ? 1 - idle / total : -1;
}

/* Per-CPU kernel threads run on every CPU, and only when that CPU needs them. */
static int percpu_kthread(const char *name)
{
	static const char *const pfx[] = {
		"kworker/", "ksoftirqd/", "migration/", "cpuhp/", "rcu", "irq/", "idle_inject/",
		"watchdog/", "ktimers/", "posixcputmr/", "irq_work/", "kswapd", "kcompactd",
	};

	for (size_t i = 0; i < PB_ARRAY_SIZE(pfx); i++)
		if (!strncmp(name, pfx[i], strlen(pfx[i])))
			return 1;
	return 0;
}

struct bound {
	int user, kernel;	/* tasks whose small allowed set includes the CPU */
	char names[160];	/* "name (pid)" of the first user ones */
	char fix[300];		/* taskset commands moving them */
};

/* One task's Name, Kthread (-1 if the kernel does not say) and allowed CPUs: count or < 0. */
static int task_status(const char *pid, char *name, size_t len, int *kthread,
		       unsigned char *set)
{
	char p[300], line[512];
	int n = -ENOENT;
	FILE *f;

	*kthread = -1;
	snprintf(p, sizeof(p), "/proc/%.200s/status", pid);
	if (!(f = pb_fopen(p)))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "Name:", 5))
			snprintf(name, len, "%s", line + 5 + strspn(line + 5, " \t"));
		else if (!strncmp(line, "Kthread:", 8))
			*kthread = atoi(line + 8);
		else if (!strncmp(line, "Cpus_allowed_list:", 18))
			n = pb_cpulist_to_set(line + 18 + strspn(line + 18, " \t"), set);
	}
	fclose(f);
	return n;
}

/* Tasks that may run on only a few CPUs, cpu among them (not the checking process). */
static void scan_bound(const struct pb_env_ctx *ctx, int cpu, const unsigned char *online,
		       struct bound *b)
{
	unsigned char *set = malloc(SETSZ);
	int n_online = set_count(online), small = n_online > 1 ? n_online / 2 : 1;
	size_t nn = 0, nf = 0;
	char dirpath[4096], name[64], rest[128];
	struct dirent *d;
	DIR *dir = NULL;

	memset(b, 0, sizeof(*b));
	if (!set || pb_path(dirpath, sizeof(dirpath), "/proc") || !(dir = opendir(dirpath))) {
		free(set);
		return;
	}
	while ((d = readdir(dir))) {
		int kthread, n;

		if (!isdigit((unsigned char)d->d_name[0]) ||
		    (ctx->live && atoi(d->d_name) == (int)getpid()))
			continue;
		n = task_status(d->d_name, name, sizeof(name), &kthread, set);
		if (n <= 0 || n >= n_online || n > small || !pb_cpu_in(set, cpu))
			continue;
		if (kthread == 1 || (kthread < 0 && percpu_kthread(name))) {
			b->kernel++;
			continue;
		}
		if (b->user++ >= 3 || nn >= sizeof(b->names) || nf >= sizeof(b->fix))
			continue;
		/* Where it may go instead: its other CPUs, else any other online one. */
		set_put(set, cpu, 0);
		if (!set_count(set)) {
			memcpy(set, online, SETSZ);
			set_put(set, cpu, 0);
		}
		set_str(set, rest, sizeof(rest));
		nn += (size_t)snprintf(b->names + nn, sizeof(b->names) - nn, "%s%s (%s)",
				       nn ? ", " : "", name, d->d_name);
		nf += (size_t)snprintf(b->fix + nf, sizeof(b->fix) - nf, "%ssudo taskset -a -pc "
				       "%s %s", nf ? "; " : "", rest, d->d_name);
	}
	closedir(dir);
	free(set);
}

static void check_load(struct pb_env_ctx *ctx, int cpu, const unsigned char *online)
{
	struct pbench_check *c;
	struct bound b;
	char buf[512], when[32], what[128], alt[80] = "";
	double busy = busy_share(ctx, cpu), load = -1, best = 2;
	long running = -1;
	int n_online = set_count(online), status = OK, best_cpu = -1, n;
	FILE *f = pb_fopen("/proc/stat");

	while (f && fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "procs_running ", 14))
			running = atol(buf + 14);
	if (f)
		fclose(f);
	if (pb_read_file("/proc/loadavg", buf, sizeof(buf)) > 0) {
		char *end;

		load = strtod(buf, &end);
		load = end > buf && *end == ' ' ? load : -1;
	}
	if (busy < 0 && running < 0 && load < 0) {
		pb_check_unknown(ctx, "sched.load", cpu, "/proc/stat and /proc/loadavg", -ENOENT);
		return;
	}
	scan_bound(ctx, cpu, online, &b);
	/* The checking process (or the shell that recorded the tree) is one of the running. */
	if (busy >= 0.2 || b.user || (n_online && (running - 1 >= n_online || load > n_online)))
		status = WARN;
	if (busy >= 0.5)
		status = BAD;
	snprintf(when, sizeof(when), ctx->window_ms > 0 ? "over %.0f ms" : "since boot",
		 ctx->window_ms);
	n = snprintf(what, sizeof(what), busy < 0 ? "busy share unknown; " : "%.0f%% busy %s; ",
		     busy * 100, when);
	n += snprintf(what + n, sizeof(what) - (size_t)n, running < 0 ? "procs_running unknown" :
		      "%ld running", running);
	snprintf(what + n, sizeof(what) - (size_t)n, load < 0 ? ", load unknown" : ", load %.2f",
		 load);
	c = put(ctx, "sched.load", cpu, status, "idle, no other task bound here", "%s on %d CPUs; "
		"%s%s%s (%d kernel per-CPU threads)", what, n_online, b.user ? "bound here: " :
		"no other task bound here", b.names, b.user > 3 ? ", ..." : "", b.kernel);
	if (!c || status == OK)
		return;
	pb_check_set(c, c->why, "other work on CPU %d preempts the measured code: each "
		     "preemption adds a context switch and cold caches (tens of microseconds or "
		     "more), and the samples spread%s", cpu, busy >= 0.5 ? "; at this load the "
		     "measured code shares the CPU most of the time" : "");
	for (int o = 1; o < PB_MAX_CPUS; o++) {
		double x = o == cpu || !pb_cpu_in(online, o) ? -1 : busy_share(ctx, o);

		if (x >= 0 && x < best - 0.02) {
			best = x;
			best_cpu = o;
		}
	}
	if (best_cpu >= 0)
		snprintf(alt, sizeof(alt), "; or measure on CPU %d (%.0f%% busy %s)", best_cpu,
			 best * 100, when);
	if (b.user)
		pb_check_set(c, c->fix, "move the bound tasks off CPU %d: %s%s", cpu, b.fix, alt);
	else
		pb_check_set(c, c->fix, "see what runs there: ps -eo pid,psr,pcpu,comm "
			     "--sort=-pcpu | awk '$2 == %d', and stop it%s", cpu, alt);
}

/* ---- scheduler: the kernel's periodic housekeeping -------------------------------------- */

/* Sysctls where 0 is what measuring wants and anything else adds periodic work. */
static const struct {
	const char *id, *path, *missing, *why, *fix;
} zero_sysctls[] = {
	{ "sched.timer_migration", "/proc/sys/kernel/timer_migration",
	  "not in this kernel: timers stay on the CPU that armed them",
	  "timers armed on idle CPUs are moved to busy ones, such as the CPU running the "
	  "measurement, and expire there", "sudo sysctl -w kernel.timer_migration=0" },
	{ "kernel.nmi_watchdog", "/proc/sys/kernel/nmi_watchdog", "no NMI watchdog in this kernel",
	  "the hard-lockup detector raises a periodic NMI on every CPU and holds one hardware "
	  "counter per CPU, so fewer counters are left and events get multiplexed",
	  "sudo sysctl -w kernel.nmi_watchdog=0" },
	{ "kernel.numa_balancing", "/proc/sys/kernel/numa_balancing",
	  "automatic NUMA balancing not in this kernel",
	  "the kernel unmaps pages to sample accesses: hinting page faults and page migrations "
	  "land in the middle of runs", "sudo sysctl -w kernel.numa_balancing=0" },
	{ "vm.stat_interval", "/proc/sys/vm/stat_interval", NULL,
	  "the vmstat worker folds memory counters every second on every CPU whose counters "
	  "changed: a kworker preempts the measured code each time",
	  "sudo sysctl -w vm.stat_interval=10 (or 120)" },
};

static void check_sysctls(struct pb_env_ctx *ctx)
{
	struct pbench_check *c;
	long v;

	for (size_t i = 0; i < PB_ARRAY_SIZE(zero_sysctls); i++) {
		const char *id = zero_sysctls[i].id;
		int stat = !strcmp(id, "vm.stat_interval"), err = pb_read_long(zero_sysctls[i].path,
									      &v);

		if (err == -ENOENT && zero_sysctls[i].missing) {
			put(ctx, id, -1, INFO, NULL, "%s", zero_sysctls[i].missing);
			continue;
		} else if (err) {
			pb_check_unknown(ctx, id, -1, zero_sysctls[i].path, err);
			continue;
		}
		/* stat_interval is seconds: 1 (the default) is the noisy value. */
		c = put(ctx, id, -1, (stat ? v <= 1 : v != 0) ? WARN : OK, stat ? "10 s or more" :
			"0", stat ? "%ld s" : "%ld", v);
		if (c && c->status == WARN) {
			pb_check_set(c, c->why, "%s", zero_sysctls[i].why);
			pb_check_set(c, c->fix, "%s", zero_sysctls[i].fix);
		}
	}
}

static void check_watchdog_mask(struct pb_env_ctx *ctx, const struct iso *s, int cpu)
{
	const char *id = "kernel.watchdog_cpumask";
	struct pbench_check *c;
	unsigned char mask[SETSZ];
	char list[256], period[64];
	long on, thresh;
	int err = pb_read_long("/proc/sys/kernel/watchdog", &on), quiet = iso_quiet(s, cpu);

	if (err == -ENOENT) {
		put(ctx, id, cpu, INFO, NULL, "no lockup detector in this kernel");
		return;
	}
	if (!err)
		err = pb_read_cpulist("/proc/sys/kernel/watchdog_cpumask", mask);
	if (err < 0) {
		pb_check_unknown(ctx, id, cpu, "/proc/sys/kernel/watchdog{,_cpumask}", err);
		return;
	}
	set_str(mask, list, sizeof(list));
	if (!on || !pb_cpu_in(mask, cpu)) {
		put(ctx, id, cpu, OK, NULL, on ? "CPU %d not in watchdog_cpumask %s" :
		    "lockup detectors off (kernel.watchdog 0)", cpu, list);
		return;
	}
	c = put(ctx, id, cpu, quiet ? WARN : INFO, "CPU not in the mask",
		"CPU %d in watchdog_cpumask %s", cpu, list);
	if (!c)
		return;
	if (pb_read_long("/proc/sys/kernel/watchdog_thresh", &thresh))
		snprintf(period, sizeof(period), "2/5 of watchdog_thresh (4 s by default)");
	else
		snprintf(period, sizeof(period), "%.1f s (2/5 of watchdog_thresh)", thresh * 0.4);
	pb_check_set(c, c->why, "the soft-lockup detector's timer fires on CPU %d every %s%s", cpu,
		     period, quiet ? ", waking a CPU that is otherwise kept quiet" : "");
	set_put(mask, cpu, 0);
	set_str(mask, list, sizeof(list));
	pb_check_set(c, c->fix, set_count(mask) ? "sudo sysctl -w kernel.watchdog_cpumask=%s" :
		     "sudo sysctl -w kernel.watchdog=0", list);
}

/* ---- scheduler: cgroups ----------------------------------------------------------------- */

#define CG_PATH 1024

struct cg {
	int v2;			/* the unified hierarchy is mounted at /sys/fs/cgroup */
	char path[CG_PATH];	/* this process's cgroup (v2) or its cpu controller's (v1) */
	char setpath[CG_PATH];	/* v1: the cpuset controller's */
	const char *cpu_base;	/* where the cpu controller is mounted */
};

static int cg_find(struct cg *cg)
{
	static const char *const v1[] = {
		"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct,cpu",
	};
	FILE *f = pb_fopen("/proc/self/cgroup");
	char line[CG_PATH + 128], ctl[160];

	if (!f)
		return -errno;
	cg->v2 = pb_exists("/sys/fs/cgroup/cgroup.controllers");
	cg->cpu_base = cg->v2 ? "/sys/fs/cgroup" : NULL;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		b[strcspn(b, "\n")] = '\0';
		if (b[1] == '/' && !b[2])
			b[1] = '\0';	/* the root is the empty path */
		snprintf(ctl, sizeof(ctl), ",%.*s,", (int)(b - a - 1), a + 1);
		if (cg->v2 ? !strncmp(line, "0::", 3) : strstr(ctl, ",cpu,") != NULL)
			snprintf(cg->path, sizeof(cg->path), "%s", b + 1);
		if (!cg->v2 && strstr(ctl, ",cpuset,"))
			snprintf(cg->setpath, sizeof(cg->setpath), "%s", b + 1);
	}
	fclose(f);
	for (size_t i = 0; !cg->cpu_base && i < PB_ARRAY_SIZE(v1); i++)
		cg->cpu_base = pb_exists(v1[i]) ? v1[i] : NULL;
	return 0;
}

/* One level up: "/a/b" -> "/a" -> "" (the root). 0 when already at the root. */
static int cg_up(char *at)
{
	char *slash = strrchr(at, '/');

	if (!at[0])
		return 0;
	*(slash ? slash : at) = '\0';
	return 1;
}

/* base/at/file at the nearest level from at up to the root: 0 (at is that level), or
 * -ENOENT. */
static int cg_read_up(const char *base, char *at, const char *file, char *buf, size_t len)
{
	char full[CG_PATH + 128];

	do {
		snprintf(full, sizeof(full), "%s%s/%s", base, at, file);
		if (pb_read_file(full, buf, len) >= 0)
			return 0;
	} while (cg_up(at));
	return -ENOENT;
}

static long long stat_field(const char *file, const char *key)
{
	FILE *f = pb_fopen(file);
	char line[256];
	size_t kl = strlen(key);
	long long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ')
			v = atoll(line + kl + 1);
	if (f)
		fclose(f);
	return v;
}

/* A level's quota: 1 and q/per ("150000 100000"; v1: cfs_quota_us > 0), 0 for none ("max
 * 100000", -1), -EINVAL for anything else. */
static int cg_quota(const struct cg *cg, const char *at, const char *buf, long long *q,
		    long long *per)
{
	char full[CG_PATH + 128], *end;
	long v;

	if (cg->v2 && sscanf(buf, "%lld %lld", q, per) == 2)
		return *q > 0 && *per > 0 ? 1 : -EINVAL;
	if (cg->v2)
		return sscanf(buf, "max %lld", per) == 1 ? 0 : -EINVAL;
	*q = strtoll(buf, &end, 10);
	if (end == buf || *end || *q == 0 || *q < -1)
		return -EINVAL;
	snprintf(full, sizeof(full), "%s%s/cpu.cfs_period_us", cg->cpu_base, at);
	if (*q < 0)
		return 0;
	if (pb_read_long(full, &v) || v <= 0)
		return -EINVAL;
	*per = v;
	return 1;
}

static void check_quota(struct pb_env_ctx *ctx, const struct cg *cg)
{
	const char *id = "cgroup.cpu_quota", *file = cg->v2 ? "cpu.max" : "cpu.cfs_quota_us";
	struct { char at[CG_PATH], best[CG_PATH], full[CG_PATH + 128]; } *w = malloc(sizeof(*w));
	char *at = w ? w->at : NULL, *best = w ? w->best : NULL, *full = w ? w->full : NULL;
	char buf[64], raw[64] = "", bad[240] = "";
	struct pbench_check *c;
	long long q, per, bq = 0, bper = 0, thr, thr_us;
	int found = 0, err;

	if (!w)
		return;
	/* Every level's quota applies: report the tightest on the way up to the root. */
	snprintf(at, CG_PATH, "%s", cg->path);
	do {
		if (!cg->cpu_base)
			break;
		snprintf(full, CG_PATH + 128, "%s%s/%s", cg->cpu_base, at, file);
		if (pb_read_file(full, buf, sizeof(buf)) < 0)
			continue;
		if (!found++)
			snprintf(raw, sizeof(raw), "%s", buf);
		err = cg_quota(cg, at, buf, &q, &per);
		if (err < 0 && !bad[0])
			snprintf(bad, sizeof(bad), "%.100s at %.100s: \"%.30s\"", file,
				 at[0] ? at : "/", buf);
		if (err <= 0 || (bper && q * bper >= bq * per))
			continue;
		bq = q;
		bper = per;
		snprintf(raw, sizeof(raw), "%s", buf);
		snprintf(best, CG_PATH, "%s", at);
	} while (cg_up(at));
	if (bad[0])
		put(ctx, id, -1, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse %s", bad);
	else if (!found)
		put(ctx, id, -1, INFO, NULL, "no %s on the way from cgroup %.200s to the root (cpu "
		    "controller not enabled): no CPU quota", file, cg->path[0] ? cg->path : "/");
	else if (!bper)
		put(ctx, id, -1, OK, NULL, "no quota (%s %s)", file, raw);
	if (bad[0] || !found || !bper)
		goto out;
	snprintf(full, CG_PATH + 128, "%s%s/cpu.stat", cg->cpu_base, best);
	thr = stat_field(full, "nr_throttled");
	thr_us = cg->v2 ? stat_field(full, "throttled_usec") : stat_field(full, "throttled_time")
		 / 1000;
	c = put(ctx, id, -1, thr > 0 ? BAD : WARN, "no quota", "%.2f CPUs (%s %s at %.100s); "
		"throttled %lld times, %.1f s", (double)bq / bper, file, raw, best[0] ? best : "/",
		thr < 0 ? 0 : thr, thr_us < 0 ? 0 : thr_us / 1e6);
	if (!c)
		goto out;
	pb_check_set(c, c->why, "once the cgroup has used %lld us of CPU time in a %lld us period "
		     "all its tasks stop until the period ends: a sample can stall for up to %lld "
		     "ms", bq, bper, bper / 1000);
	pb_check_set(c, c->fix, "on the host: echo %s | sudo tee %s%.300s/%s (a container: run it "
		     "without --cpus, or without a Kubernetes CPU limit)", cg->v2 ? "max" : "-1",
		     cg->cpu_base, best, file);
out:
	free(w);
}

static void check_cpuset(struct pb_env_ctx *ctx, const struct cg *cg, int cpu)
{
	const char *id = "cgroup.cpuset", *base = cg->v2 ? "/sys/fs/cgroup" :
		"/sys/fs/cgroup/cpuset";
	struct pbench_check *c;
	unsigned char set[SETSZ];
	char buf[4096], *at = malloc(CG_PATH), list[256];
	int err = -ENOMEM, in;

	for (int i = 0; at && err && i < (cg->v2 ? 1 : 2); i++) {
		snprintf(at, CG_PATH, "%s", cg->v2 ? cg->path : cg->setpath);
		err = cg_read_up(base, at, cg->v2 ? "cpuset.cpus.effective" :
				 i ? "cpuset.cpus" : "cpuset.effective_cpus", buf, sizeof(buf));
	}
	if (err == -ENOENT)
		put(ctx, id, cpu, INFO, NULL, "no cpuset files for this cgroup: no cpuset limit");
	else if (!err && pb_cpulist_to_set(buf, set) < 0)
		err = !put(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse the cpuset of "
			   "%.200s: \"%.30s\"", at[0] ? at : "/", buf) ? -ENOMEM : -EINVAL;
	if (err)
		goto out;
	set_str(set, list, sizeof(list));
	in = pb_cpu_in(set, cpu);
	c = put(ctx, id, cpu, in ? OK : BAD, "CPU in the cpuset", "%s CPU %d (cpuset %s at "
		"%.150s)", in ? "includes" : "excludes", cpu, list, at[0] ? at : "/");
	if (!c || in)
		goto out;
	pb_check_set(c, c->why, "this process's cgroup may not run on CPU %d: pinning there "
		     "fails and a measurement lands on another CPU", cpu);
	pb_check_set(c, c->fix, "measure on a CPU of the cpuset (--cpu %s), or widen it on the "
		     "host (docker run --cpuset-cpus, or the cgroup's cpuset.cpus)", list);
out:
	free(at);
}

void pb_check_scheduler(struct pb_env_ctx *ctx)
{
	struct iso *s = iso_load();
	struct cg *cg = calloc(1, sizeof(*cg));
	unsigned char online[SETSZ];
	int err;

	if (!s || !cg)
		goto out;
	if (pb_read_cpulist(CPU_DIR "/online", online) < 0)
		memset(online, 0, sizeof(online));
	check_rt(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_load(ctx, ctx->cpus[i], online);
	check_sysctls(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_watchdog_mask(ctx, s, ctx->cpus[i]);
	err = cg_find(cg);
	if (err)
		pb_check_unknown(ctx, "cgroup.cpu_quota", -1, "/proc/self/cgroup", err);
	else
		check_quota(ctx, cg);
	for (int i = 0; i < ctx->ncpus; i++) {
		if (err)
			pb_check_unknown(ctx, "cgroup.cpuset", ctx->cpus[i], "/proc/self/cgroup",
					 err);
		else
			check_cpuset(ctx, cg, ctx->cpus[i]);
	}
out:
	free(s);
	free(cg);
}
