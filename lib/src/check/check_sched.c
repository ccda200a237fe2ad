/* SPDX-License-Identifier: MIT */
/*
 * Checks: isolation (isolcpus, nohz_full, rcu_nocbs) and scheduler (RT throttling and the fair
 * server, load, the kernel's periodic housekeeping; the scheduler group's cgroup checks are in
 * check_cgroup.c, the interrupts group is check_irq.c). Everything here only reads; each fix is a
 * command for the user.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "check/check.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define SETSZ (PB_MAX_CPUS / 8)
#define OK PBENCH_CHECK_OK
#define INFO PBENCH_CHECK_INFO
#define WARN PBENCH_CHECK_WARN
#define BAD PBENCH_CHECK_BAD

/* ---- helpers ---------------------------------------------------------------------------- */

/* A CPU list as boot parameters take it: a cpulist or "all". */
static int boot_cpulist(const char *s, unsigned char *set)
{
	if (!strcasecmp(s, "all"))
		return pb_read_cpulist(CPU_DIR "/possible", set);
	return pb_cpulist_to_set(s, set);
}

/* fix = pre + how to boot with param=flags<cur + cpu> on this machine (pb_boot_fix). */
static void fix_boot(struct pb_check_ctx *ctx, struct pbench_check_finding *c, const char *pre,
		     const char *param, const char *flags, const unsigned char *cur, int have,
		     int cpu)
{
	unsigned char set[SETSZ] = { 0 };
	char list[256], arg[512], fix[768];

	if (have > 0)
		memcpy(set, cur, SETSZ);
	pb_cpu_put(set, cpu, 1);
	pb_cpuset_format(set, list, sizeof(list));
	snprintf(arg, sizeof(arg), "%s=%s%s", param, flags, list);
	pb_check_set(c, &c->fix, "%s%s", pre, pb_boot_fix(ctx, fix, sizeof(fix), arg));
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
	s->nohz_n = pb_read_cpulist(CPU_DIR "/nohz_full", s->nohz);
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

static void check_isolcpus(struct pb_check_ctx *ctx, const struct iso *s, int cpu)
{
	const char *id = "isolation.isolcpus";
	struct pbench_check_finding *c;
	char list[256], flags[140], pre[300] = "";
	int sysfs = s->isolated_n >= 0, in;

	if ((!sysfs && s->cmdline < 0) || (s->isolated_n < 0 && s->isolated_n != -ENOENT)) {
		pb_check_unknown(ctx, id, cpu, CPU_DIR "/isolated", s->isolated_n);
		return;
	}
	if (!sysfs && s->isol_n < 0) {
		pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse isolcpus=%s",
			  s->isol_val);
		return;
	}
	/* The sysfs file is what the kernel did; the command line is only the fallback. */
	in = sysfs ? pb_cpu_in(s->isolated, cpu)
		   : s->isol_n > 0 && s->isol_domain && pb_cpu_in(s->isol_param, cpu);
	pb_cpuset_format(sysfs ? s->isolated : s->isol_param, list, sizeof(list));
	if (in) {
		pb_report(ctx, id, cpu, OK, "isolated", "isolated (%s%s%s%s)",
			  sysfs ? "isolated: " : "isolcpus=", sysfs ? list : s->isol_val,
			  sysfs && s->cmdline > 0 ? ", isolcpus=" : "",
			  sysfs && s->cmdline > 0 ? s->isol_val : "");
		return;
	}
	if (s->isol_n > 0 && !s->isol_domain && pb_cpu_in(s->isol_param, cpu))
		c = pb_report(ctx, id, cpu, WARN, "isolated", "not isolated: isolcpus=%s has no "
			      "\"domain\" flag", s->isol_val);
	else
		c = pb_report(ctx, id, cpu, WARN, "isolated", "not isolated (isolated: %s)", list);
	pb_check_set(c, &c->why, "the scheduler puts other tasks on CPU %d and balances load onto "
		     "it; each preemption of the measured code adds a context switch and cold "
		     "caches to the sample it lands in", cpu);
	snprintf(flags, sizeof(flags), "%s%s", s->isol_n > 0 && !s->isol_domain ? "domain," : "",
		 s->isol_n > 0 ? s->isol_flags : "");
	if (sysfs && s->isolated_n > 0)
		snprintf(pre, sizeof(pre), "measure on an isolated CPU (--cpu %s), or ", list);
	fix_boot(ctx, c, pre, "isolcpus", flags, s->isol_param, s->isol_n, cpu);
}

/* kernel/Kconfig.hz offers CONFIG_HZ 100, 250, 300 and 1000 (some architectures add 200 and
 * 500): the tick rate of the running kernel is not in /sys or /proc. */
#define TICK_RATE "100 to 1000 times a second (CONFIG_HZ)"

static void check_nohz(struct pb_check_ctx *ctx, const struct iso *s, int cpu, int pstate)
{
	const char *id = "isolation.nohz_full", *exp = "tickless (nohz_full)";
	struct pbench_check_finding *c;
	char list[256];

	if (s->nohz_n == -ENOENT) {
		if (s->nohz_pn > 0 && pb_cpu_in(s->nohz_param, cpu))
			c = pb_report(ctx, id, cpu, WARN, exp, "nohz_full=%s ignored: kernel built "
				      "without CONFIG_NO_HZ_FULL", s->nohz_val);
		else
			c = pb_report(ctx, id, cpu, INFO, exp, "not available: kernel built "
				      "without CONFIG_NO_HZ_FULL (no " CPU_DIR "/nohz_full)");
		pb_check_set(c, &c->why, "the scheduler tick interrupts CPU %d " TICK_RATE " even "
			     "while the measured code runs alone", cpu);
		/* Ubuntu's generic kernel has it from 24.04, whose kernel is 6.8 (Launchpad bug
		 * 2051342, "Enable lowlatency settings in the generic kernel"). The boot CPU
		 * keeps the tick for timekeeping whatever the kernel: no nohz_full for it. */
		if (cpu == 0)
			pb_check_set(c, &c->fix, "CPU 0 keeps the tick for timekeeping even with "
				     "nohz_full=: measure on another CPU, and for it boot a kernel "
				     "built with CONFIG_NO_HZ_FULL=y (Debian, Fedora, RHEL; Ubuntu "
				     "from 6.8) with nohz_full= that CPU");
		else
			pb_check_set(c, &c->fix, "boot a kernel built with CONFIG_NO_HZ_FULL=y "
				     "(Debian, Fedora, RHEL; Ubuntu from 6.8) with nohz_full=%d: this "
				     "kernel has no tickless mode", cpu);
		return;
	}
	if (s->nohz_n < 0) {
		pb_check_unknown(ctx, id, cpu, CPU_DIR "/nohz_full", s->nohz_n);
		return;
	}
	pb_cpuset_format(s->nohz, list, sizeof(list));
	if (pb_cpu_in(s->nohz, cpu)) {
		c = pb_report(ctx, id, cpu, pstate ? WARN : OK, exp, "tickless when one task runs "
			      "(nohz_full: %s)%s", list,
			      pstate ? ", but intel_pstate is active" : "");
		if (!pstate)
			return;
		pb_check_set(c, &c->why, "intel_pstate in active mode re-evaluates the P-state from "
			     "the scheduler's periodic utilization updates, which need the tick: "
			     "with the tick stopped on CPU %d the frequency is not updated while "
			     "the measured code runs", cpu);
		pb_check_set(c, &c->fix, "echo passive | sudo tee " CPU_DIR "/intel_pstate/status; "
			     "echo performance | sudo tee " CPU_DIR
			     "/cpu%d/cpufreq/scaling_governor", cpu);
		return;
	}
	c = pb_report(ctx, id, cpu, WARN, exp, "tick runs (nohz_full: %s)", list);
	pb_check_set(c, &c->why, "the scheduler tick interrupts CPU %d " TICK_RATE ", also while "
		     "the measured code runs alone", cpu);
	if (cpu == 0)
		pb_check_set(c, &c->fix, "CPU 0 keeps the tick for timekeeping: measure on another "
			     "CPU and boot with nohz_full= (and isolcpus=) for it");
	else
		fix_boot(ctx, c, "", "nohz_full", "", s->nohz, s->nohz_n, cpu);
}

static void check_nocbs(struct pb_check_ctx *ctx, const struct iso *s, int cpu)
{
	const char *id = "isolation.rcu_nocbs", *exp = "offloaded (rcu_nocbs)";
	struct pbench_check_finding *c;
	char name[32], list[256];

	/* rcuop/N (rcuos/N without preemptible RCU) runs CPU N's callbacks elsewhere: proof
	 * that they are offloaded, whatever the command line says. */
	snprintf(name, sizeof(name), "rcuop/%d", cpu);
	if (!pb_process_running(name))
		snprintf(name, sizeof(name), "rcuos/%d", cpu);
	if (pb_process_running(name)) {
		pb_report(ctx, id, cpu, OK, exp, "offloaded (%s runs CPU %d's callbacks)", name,
			  cpu);
		return;
	}
	if (s->cmdline < 0) {
		pb_check_unknown(ctx, id, cpu, "/proc/cmdline", s->cmdline);
		return;
	}
	if (s->nocbs_n < 0) {
		pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse rcu_nocbs=%s",
			  s->nocbs_val);
		return;
	}
	if (s->nocbs_n > 0 && pb_cpu_in(s->nocbs_param, cpu)) {
		pb_report(ctx, id, cpu, OK, exp, "offloaded (rcu_nocbs=%s)", s->nocbs_val);
		return;
	}
	pb_cpuset_format(s->nohz, list, sizeof(list));
	if (s->nohz_n > 0 && pb_cpu_in(s->nohz, cpu)) {
		pb_report(ctx, id, cpu, OK, exp, "offloaded (implied by nohz_full: %s)", list);
		return;
	}
	c = pb_report(ctx, id, cpu, INFO, exp, "RCU callbacks run on CPU %d (%s%s)", cpu,
		      s->nocbs_has ? "rcu_nocbs=" : "no rcu_nocbs=",
		      s->nocbs_has ? s->nocbs_val : "");
	pb_check_set(c, &c->why, "RCU callbacks run in softirq on the CPU that queued them: after "
		     "many frees a burst of them interrupts the measured code");
	fix_boot(ctx, c, "", "rcu_nocbs", "", s->nocbs_param, s->nocbs_n, cpu);
}

void pb_check_isolation(struct pb_check_ctx *ctx)
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

/* ---- scheduler: RT throttling and the fair server --------------------------------------- */

/* The fair server's runtime and period unless changed: 50 ms of every 1000 ms
 * (kernel/sched/deadline.c, sched_init_dl_servers()). */
#define FAIR_RUN_MS 50
#define FAIR_PERIOD_MS 1000

static void check_rt_throttling(struct pb_check_ctx *ctx, long rt, long period, const char *rel)
{
	struct pbench_check_finding *c;

	c = pb_report(ctx, "sched.rt_throttling", -1, rt < 0 ? OK : WARN, "-1 (RT throttling off)",
		      rt < 0 ? "-1 (RT throttling off)" : "%ld of %ld us (kernel %s)", rt, period,
		      rel);
	if (rt < 0)
		return;
	pb_check_set(c, &c->why, "once SCHED_FIFO/RR tasks have run %ld ms of a %ld ms period the "
		     "kernel stops them for the rest of it: a prepared (SCHED_FIFO) run loses %ld "
		     "ms of every %ld ms", rt / 1000, period / 1000, (period - rt) / 1000,
		     period / 1000);
	pb_check_set(c, &c->fix, "sudo sysctl -w kernel.sched_rt_runtime_us=-1 (a runaway RT task "
		     "can then hang its CPU)");
}

static void check_rt(struct pb_check_ctx *ctx)
{
	const char *id = "sched.rt_throttling", *fs_dir = "/sys/kernel/debug/sched/fair_server";
	struct pbench_check_finding *c;
	char rel[128] = "", files[300] = "", path[96];
	long rt, period, run, per, run_ms = 0, per_ms = 0;
	int err, a = 0, b = 0, known = 1, off = 1, n = 0, fs_cpu = -1;

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
		check_rt_throttling(ctx, rt, period, rel);
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
		if (fs_cpu < 0 && !pb_read_long(path, &per)) {
			run_ms = run / 1000000;
			per_ms = per / 1000000;
			fs_cpu = ctx->cpus[i];
		}
	}
	if (known && off) {
		pb_report(ctx, id, -1, OK, NULL, "fair server off; sched_rt_runtime_us %ld", rt);
		return;
	}
	if (known && fs_cpu >= 0) {
		snprintf(path, sizeof(path), " on CPU %d", fs_cpu);
	} else {
		run_ms = FAIR_RUN_MS;
		per_ms = FAIR_PERIOD_MS;
		snprintf(path, sizeof(path), " (the default; debugfs not readable)");
	}
	c = pb_report(ctx, id, -1, WARN, "fair server off on the target CPUs", "fair server %ld ms "
		      "per %ld ms%s; sched_rt_runtime_us %ld of %ld (kernel %s)", run_ms, per_ms,
		      path, rt, period, rel);
	pb_check_set(c, &c->why, "on kernels >= 6.12 the fair server gives starved normal tasks up "
		     "to %ld ms of every %ld ms even against a SCHED_FIFO task (measured on these "
		     "machines: a pinned SCHED_FIFO 54 ms loop ran 104 ms); sched_rt_runtime_us no "
		     "longer throttles, except with RT group scheduling", run_ms, per_ms);
	pb_check_set(c, &c->fix, "echo 0 | sudo tee%s (mount debugfs first if needed; a runaway "
		     "SCHED_FIFO task can then hang the CPU)%s", files, rt >= 0 ? "; with RT "
		     "group scheduling also sudo sysctl -w kernel.sched_rt_runtime_us=-1" : "");
}

/* ---- scheduler: load and tasks bound to the CPU ----------------------------------------- */

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

/* Tasks that may run on only a few CPUs, cpu among them (not the checking process). */
static void scan_bound(const struct pb_check_ctx *ctx, int cpu, const unsigned char *online,
		       struct bound *b)
{
	unsigned char *set = malloc(SETSZ);
	int n_online = pb_cpuset_count(online), small = n_online > 1 ? n_online / 2 : 1;
	size_t nn = 0, nf = 0;
	char dirpath[4096], rest[128];
	struct pb_proc_status st;
	struct dirent *d;
	DIR *dir = NULL;

	memset(b, 0, sizeof(*b));
	if (!set || pb_path(dirpath, sizeof(dirpath), "/proc") || !(dir = opendir(dirpath))) {
		free(set);
		return;
	}
	while ((d = readdir(dir))) {
		int n;

		if (!isdigit((unsigned char)d->d_name[0]) ||
		    (ctx->live && atoi(d->d_name) == (int)getpid()) ||
		    pb_read_status(d->d_name, &st) || !st.cpus[0])
			continue;
		n = pb_cpulist_to_set(st.cpus, set);
		if (n <= 0 || n >= n_online || n > small || !pb_cpu_in(set, cpu))
			continue;
		if (st.kthread == 1 || (st.kthread < 0 && percpu_kthread(st.name))) {
			b->kernel++;
			continue;
		}
		if (b->user++ >= 3 || nn >= sizeof(b->names) || nf >= sizeof(b->fix))
			continue;
		/* Where it may go instead: its other CPUs, else any other online one. */
		pb_cpu_put(set, cpu, 0);
		if (!pb_cpuset_count(set)) {
			memcpy(set, online, SETSZ);
			pb_cpu_put(set, cpu, 0);
		}
		pb_cpuset_format(set, rest, sizeof(rest));
		nn += (size_t)snprintf(b->names + nn, sizeof(b->names) - nn, "%s%s (%s)",
				       nn ? ", " : "", st.name, d->d_name);
		nf += (size_t)snprintf(b->fix + nf, sizeof(b->fix) - nf, "%ssudo taskset -a -pc "
				       "%s %s", nf ? "; " : "", rest, d->d_name);
	}
	closedir(dir);
	free(set);
}

static void check_load(struct pb_check_ctx *ctx, int cpu, const unsigned char *online)
{
	struct pbench_check_finding *c;
	struct bound b;
	char buf[512], when[32], what[128], alt[80] = "";
	double busy = pb_busy_share(ctx, cpu), load = -1, best = 2;
	long long running = pb_read_field("/proc/stat", "procs_running");
	int n_online = pb_cpuset_count(online), status = OK, best_cpu = -1, n;

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
		      "%lld running", running);
	snprintf(what + n, sizeof(what) - (size_t)n, load < 0 ? ", load unknown" : ", load %.2f",
		 load);
	c = pb_report(ctx, "sched.load", cpu, status, "idle, no other task bound here",
		      "%s on %d CPUs; %s%s%s (%d kernel per-CPU threads)", what, n_online,
		      b.user ? "bound here: " : "no other task bound here", b.names,
		      b.user > 3 ? ", ..." : "", b.kernel);
	if (status == OK)
		return;
	pb_check_set(c, &c->why, "other work on CPU %d preempts the measured code: each "
		     "preemption adds a context switch and cold caches to a sample, and the "
		     "samples spread%s", cpu, busy >= 0.5 ? "; at this load the measured code "
		     "shares the CPU most of the time" : "");
	for (int o = 1; o < PB_MAX_CPUS; o++) {
		double x = o == cpu || !pb_cpu_in(online, o) ? -1 : pb_busy_share(ctx, o);

		if (x >= 0 && x < best - 0.02) {
			best = x;
			best_cpu = o;
		}
	}
	if (best_cpu >= 0)
		snprintf(alt, sizeof(alt), "; or measure on CPU %d (%.0f%% busy %s)", best_cpu,
			 best * 100, when);
	if (b.user)
		pb_check_set(c, &c->fix, "move the bound tasks off CPU %d: %s%s", cpu, b.fix, alt);
	else
		pb_check_set(c, &c->fix, "see what runs there: ps -eo pid,psr,pcpu,comm "
			     "--sort=-pcpu | awk '$2 == %d', and stop it%s", cpu, alt);
}

/* ---- scheduler: the kernel's periodic housekeeping -------------------------------------- */

/* Sysctls where 0 is what measuring wants and anything else adds periodic work. The
 * hard-lockup detector's counter: kernel/watchdog_perf.c opens one cycles event per CPU. */
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

static void check_sysctls(struct pb_check_ctx *ctx)
{
	struct pbench_check_finding *c;
	long v;

	for (size_t i = 0; i < PB_ARRAY_SIZE(zero_sysctls); i++) {
		const char *id = zero_sysctls[i].id;
		int stat = !strcmp(id, "vm.stat_interval");
		int err = pb_read_long(zero_sysctls[i].path, &v);

		if (err == -ENOENT && zero_sysctls[i].missing) {
			pb_report(ctx, id, -1, INFO, NULL, "%s", zero_sysctls[i].missing);
			continue;
		} else if (err) {
			pb_check_unknown(ctx, id, -1, zero_sysctls[i].path, err);
			continue;
		}
		/* stat_interval is seconds: 1 (the default) is the noisy value. */
		c = pb_report(ctx, id, -1, (stat ? v <= 1 : v != 0) ? WARN : OK,
			      stat ? "10 s or more" : "0", stat ? "%ld s" : "%ld", v);
		if (c->status == WARN)
			pb_advise(c, zero_sysctls[i].why, zero_sysctls[i].fix);
	}
}

static void check_watchdog_mask(struct pb_check_ctx *ctx, const unsigned char *quiet_cpus,
				int cpu)
{
	const char *id = "kernel.watchdog_cpumask";
	struct pbench_check_finding *c;
	unsigned char mask[SETSZ];
	char list[256], period[64];
	long on, thresh;
	int err = pb_read_long("/proc/sys/kernel/watchdog", &on);
	int quiet = pb_cpu_in(quiet_cpus, cpu);

	if (err == -ENOENT) {
		pb_report(ctx, id, cpu, INFO, NULL, "no lockup detector in this kernel");
		return;
	}
	if (!err)
		err = pb_read_cpulist("/proc/sys/kernel/watchdog_cpumask", mask);
	if (err < 0) {
		pb_check_unknown(ctx, id, cpu, "/proc/sys/kernel/watchdog{,_cpumask}", err);
		return;
	}
	pb_cpuset_format(mask, list, sizeof(list));
	if (!on || !pb_cpu_in(mask, cpu)) {
		pb_report(ctx, id, cpu, OK, NULL, on ? "CPU %d not in watchdog_cpumask %s" :
			  "lockup detectors off (kernel.watchdog 0)", cpu, list);
		return;
	}
	c = pb_report(ctx, id, cpu, quiet ? WARN : INFO, "CPU not in the mask",
		      "CPU %d in watchdog_cpumask %s", cpu, list);
	/* The timer's period is watchdog_thresh * 2 / 5 seconds, and watchdog_thresh is 10
	 * unless set (kernel/watchdog.c: set_sample_period(), NUM_SAMPLE_PERIODS 5). */
	if (pb_read_long("/proc/sys/kernel/watchdog_thresh", &thresh))
		snprintf(period, sizeof(period), "2/5 of watchdog_thresh (4 s by default)");
	else
		snprintf(period, sizeof(period), "%.1f s (2/5 of watchdog_thresh)", thresh * 0.4);
	pb_check_set(c, &c->why, "the soft-lockup detector's timer fires on CPU %d every %s%s", cpu,
		     period, quiet ? ", waking a CPU that is otherwise kept quiet" : "");
	pb_cpu_put(mask, cpu, 0);
	pb_cpuset_format(mask, list, sizeof(list));
	pb_check_set(c, &c->fix, pb_cpuset_count(mask) ? "sudo sysctl -w kernel.watchdog_cpumask=%s" :
		     "sudo sysctl -w kernel.watchdog=0", list);
}

void pb_check_scheduler(struct pb_check_ctx *ctx)
{
	unsigned char online[SETSZ], quiet[SETSZ];

	if (pb_read_cpulist(CPU_DIR "/online", online) < 0)
		memset(online, 0, sizeof(online));
	pb_quiet_cpus(quiet);
	check_rt(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_load(ctx, ctx->cpus[i], online);
	check_sysctls(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_watchdog_mask(ctx, quiet, ctx->cpus[i]);
}
