/* SPDX-License-Identifier: MIT */
/*
 * What the check groups (env_*.c) share: the context of one pbench_check() call, the way
 * to report a finding, and readers for the files many checks need. Never installed.
 */
#ifndef PB_CHECK_CHECK_H
#define PB_CHECK_CHECK_H

#include <stdint.h>

#include "base/base.h"

/* Capability bits of CapEff (include/uapi/linux/capability.h). */
#define PB_CAP_IPC_LOCK 14
#define PB_CAP_SYS_ADMIN 21
#define PB_CAP_SYS_NICE 23
#define PB_CAP_PERFMON 38

/* The findings of one pbench_check() call (check_findings.c). */
struct pbench_check {
	struct pbench_check_finding *v;
	int n, cap;
	int *cpus;
	int ncpus;
	char pick_reason[256];
};

struct pb_check_ctx {
	struct pbench_check *env;
	const int *cpus;	/* the target CPUs */
	int ncpus;
	/* 1 when /sys and /proc are this machine's (no PBENCH_SYSFS_ROOT/PBENCH_PROCFS_ROOT):
	 * only then may a check add facts from syscalls or instructions (affinity, CPUID,
	 * rlimits, opening an event), which describe the machine pbench runs on. */
	int live;
	unsigned flags;		/* enum pbench_check_flags */
	/* /proc/stat at the start and end of the measuring window (cpu index = CPU number;
	 * window_ms 0 when no window was measured). */
	struct pb_cpu_times *t0, *t1;
	int ncpu_times;		/* entries in t0/t1 */
	double window_ms;
	double pick_busy;		/* pb_check_pick(): the picked CPU's busy share (with its
					 * SMT siblings'), the least of every candidate's; -1:
					 * not picked by load */
	const char *group;	/* the group being run; set by env.c */
};

/* check_virt.c: the steal of a window between two /proc/stat readings of one CPU (in ticks) in
 * words into buf ("0.00% over the last 200 ms, "; under 10 ticks of steal the range they
 * allow: "up to 10% over the last 200 ms (/proc/stat counts steal in 10 ms ticks: 1 moved), "),
 * and the share in % that the ticks prove ((n - 1) of them; 0 without steal); -1 and "" for
 * a window with no tick. */
double pb_steal_window(const struct pb_cpu_times *a, const struct pb_cpu_times *b,
		       double window_ms, char *buf, size_t len);

/* Report a finding for cpu (-1: machine-wide). Returns it so that value, expected, why and
 * fix can be filled with pb_check_set(); never NULL (out of memory, the finding is dropped and
 * a scratch one absorbs the writes). */
struct pbench_check_finding *pb_check(struct pb_check_ctx *ctx, const char *id, int cpu, int status);
/* printf into one of a finding's text fields, owned by the finding (freed with its env):
 * pb_check_set(c, &c->value, "%s", x). */
void pb_check_set(struct pbench_check_finding *c, const char **field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pb_check_vset(struct pbench_check_finding *c, const char **field, const char *fmt, va_list ap);
/* pb_check() with what measuring expects (NULL: nothing specific) and the value, in one call. */
struct pbench_check_finding *pb_report(struct pb_check_ctx *ctx, const char *id, int cpu, int status,
			       const char *expected, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The why and fix of a finding; NULL leaves that field as it is. */
void pb_advise(struct pbench_check_finding *c, const char *why, const char *fix);
/* A finding whose file could not be read (value "cannot read WHAT: error"), or held what the
 * kernel never prints there (err -EINVAL or -ERANGE: "unexpected content in WHAT"). */
struct pbench_check_finding *pb_check_unknown(struct pb_check_ctx *ctx, const char *id, int cpu,
				      const char *what, int err);

/* How to add params ("isolcpus=2", "nosmt") to this machine's kernel command line, in buf:
 * grubby on Red Hat kernels, /etc/default/grub where the live machine has one, otherwise the
 * boot loader in general (check_findings.c). */
const char *pb_boot_fix(struct pb_check_ctx *ctx, char *buf, size_t len, const char *params);

/* Readers (check_read.c; the cpulist ones check_cpuset.c, on base/cpulist.c). */
int pb_exists(const char *path);			/* through the root mapping */
/* A one-word sysfs value (a governor, a driver, a state name): 0, -EINVAL when the file holds
 * something else (empty, binary, several lines), or the read error. */
int pb_read_word(const char *path, char *buf, size_t len);
/* A non-negative decimal number and nothing else, as sysfs prints them: 0 or -EINVAL (where
 * pb_read_long() takes any number with anything after it), or the read error. */
int pb_read_num(const char *path, long *v);
/* /proc/cmdline: 1 and the value (may be "") if param= or param is present, 0 if absent,
 * negative error if the file cannot be read. A repeated parameter gives its last value, as
 * the kernel applies them in order; what follows "--" is for init and not looked at. */
int pb_cmdline_param(const char *param, char *value, size_t len);
/* Read a cpulist file into a bitmap: count, or negative error (missing file: -ENOENT). The
 * kernel's "(null)" (nohz_full without a nohz_full= parameter) is the empty set. */
int pb_read_cpulist(const char *path, unsigned char *set);
/* The CPUs the kernel keeps quiet: out of the scheduler's domains (isolated) or tickless
 * (nohz_full), as far as sysfs says. */
void pb_quiet_cpus(unsigned char *set);
/* The number after "key " on a line of a "key value" file (/proc/stat, cpu.stat): the last
 * such line's, or -1 when there is none or the file cannot be read. */
long long pb_read_field(const char *path, const char *key);
/* A process with this comm exists (scans /proc/[0-9]*\/comm). */
int pb_process_running(const char *comm);

/* What the checks use of /proc/PID/status. */
struct pb_proc_status {
	char name[64];		/* Name, "" if absent */
	int kthread;		/* Kthread 1 or 0; -1 when the kernel does not say */
	int have_uid, have_cap;
	long euid;
	uint64_t capeff;
	char cpus[512];		/* Cpus_allowed_list, "" if absent */
	char mems[128];		/* Mems_allowed_list, "" if absent */
};
/* Read /proc/PID/status (pid "self": this process): 0, or -errno if it cannot be opened. */
int pb_read_status(const char *pid, struct pb_proc_status *st);
/* 1: capability bit is effective (or root, when CapEff is not known), 0: not, -1: unknown. */
int pb_has_cap(const struct pb_proc_status *st, int bit);

/* check_pick.c: read /proc/stat into ctx->t0 and, 200 ms later, ctx->t1 (one reading, as since
 * boot, for a recorded tree or with PBENCH_CHECK_NO_WINDOW); t0 or t1 NULL when out of memory. */
void pb_check_window(struct pb_check_ctx *ctx);
/* The CPU a prepared run would use over ctx's window, and why in why; or a negative error. */
int pb_check_pick(struct pb_check_ctx *ctx, char *why, size_t len);
/* check_pick.c: pbench_cpu_pick(), and *busy (may be NULL) the picked CPU's busy share over
 * the live window, the least of every candidate's (NaN: not measured live). */
int pb_cpu_pick(char *why, size_t len, double *busy);
/* Among equally idle CPUs, the steadiest: each probed live for PB_PICK_PROBE_S (the median
 * pass of the reference loop in its fastest and in its slowest slice, per iteration; NaN: not
 * probed). The index of the one whose slowest speed is the best, relative to the fastest any
 * had, when that beats dflt's by PB_PICK_STEADIER, else dflt; why gets the clause. */
#define PB_PICK_MAX_PROBED 4
#define PB_PICK_PROBE_S 0.1
#define PB_PICK_STEADIER 1.05
struct pb_pick_probe {
	int cpu;
	double fast_ns, slow_ns;
};
int pb_pick_steadiest(const struct pb_pick_probe *p, int n, int dflt, char *why, size_t len);
/* Share of non-idle time of cpu between t0 and t1; -1 when /proc/stat has no line for it. */
double pb_busy_share(const struct pb_check_ctx *ctx, int cpu);
/* A kernel object name (clocksource, hypervisor type): letters, digits, '_' and '-'. */
int pb_is_name(const char *s);
/* word is one of the space-separated words of list. */
int pb_has_word(const char *list, const char *word);
/* The flags line of cpu's block in /proc/cpuinfo (cpu -1: the first block). Returns 1 with the
 * flags, 0 when the block has none (not x86), -ENOENT for no such CPU, -errno if unreadable. */
int pb_cpuinfo_flags(int cpu, char *flags, size_t len);
/* printf at the end of the string in buf, as far as it fits. */
void pb_appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The check groups, run in this order. Each reports for every target CPU itself. */
void pb_check_frequency(struct pb_check_ctx *ctx);	/* check_freq.c */
void pb_check_topology(struct pb_check_ctx *ctx);		/* check_topology.c */
void pb_check_isolation(struct pb_check_ctx *ctx);	/* check_sched.c */
void pb_check_interrupts(struct pb_check_ctx *ctx);	/* check_irq.c */
void pb_check_scheduler(struct pb_check_ctx *ctx);	/* check_sched.c */
void pb_check_cgroup(struct pb_check_ctx *ctx);		/* check_cgroup.c: scheduler group too */
void pb_check_memory(struct pb_check_ctx *ctx);		/* check_mem.c */
void pb_check_timer(struct pb_check_ctx *ctx);		/* check_timer.c */
void pb_check_counters(struct pb_check_ctx *ctx);		/* check_counters.c */
void pb_check_virtualization(struct pb_check_ctx *ctx);	/* check_virt.c */
void pb_check_speed(struct pb_check_ctx *ctx);		/* check_speed.c: live only */

#endif
