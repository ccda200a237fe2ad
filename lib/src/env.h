/* SPDX-License-Identifier: MIT */
/*
 * What the check groups (env_*.c) share: the context of one pbench_env_check() call, the way
 * to report a finding, and readers for the files many checks need. Never installed.
 */
#ifndef PBENCH_ENV_H
#define PBENCH_ENV_H

#include "internal.h"

#define PB_MAX_CPUS 4096

/* Per-CPU times from /proc/stat, in USER_HZ ticks. */
struct pb_cpu_times {
	unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
	int valid;
};

struct pb_env_ctx {
	struct pbench_env *env;
	const int *cpus;	/* the target CPUs */
	int ncpus;
	/* 1 when /sys and /proc are this machine's (no PBENCH_SYSFS_ROOT/PBENCH_PROCFS_ROOT):
	 * only then may a check add facts from syscalls or instructions (affinity, CPUID,
	 * rlimits, opening an event), which describe the machine pbench runs on. */
	int live;
	unsigned flags;		/* enum pbench_env_flags */
	/* /proc/stat at the start and end of the measuring window (cpu index = CPU number;
	 * window_ms 0 when no window was measured). */
	struct pb_cpu_times *t0, *t1;
	int ncpu_times;		/* entries in t0/t1 */
	double window_ms;
	const char *group;	/* the group being run; set by env.c */
};

/* Report a finding for cpu (-1: machine-wide). Returns it so that value, expected, why and
 * fix can be filled with pb_check_set(); never NULL (out of memory, the finding is dropped and
 * a scratch one absorbs the writes). */
struct pbench_check *pb_check(struct pb_env_ctx *ctx, const char *id, int cpu, int status);
/* printf into one of a finding's text fields: pb_check_set(c, c->value, "%s", x). */
void pb_check_set(struct pbench_check *c, char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A finding whose file could not be read: status unknown, value says what was looked for. */
struct pbench_check *pb_check_unknown(struct pb_env_ctx *ctx, const char *id, int cpu,
				      const char *what, int err);

/* Readers. */
int pb_exists(const char *path);			/* through the root mapping */
/* /proc/cmdline: 1 and the value (may be "") if param= or param is present, 0 if absent,
 * negative error if the file cannot be read. */
int pb_cmdline_param(const char *param, char *value, size_t len);
/* Parse a cpulist into a bitmap of PB_MAX_CPUS bits; returns the count or -EINVAL. */
int pb_cpulist_to_set(const char *list, unsigned char *set);
static inline int pb_cpu_in(const unsigned char *set, int cpu)
{
	return cpu >= 0 && cpu < PB_MAX_CPUS && (set[cpu / 8] >> (cpu % 8)) & 1;
}
/* Read a cpulist file into a bitmap: count, or negative error (missing file: -ENOENT). */
int pb_read_cpulist(const char *path, unsigned char *set);
/* A process with this comm exists (scans /proc/[0-9]*\/comm). */
int pb_process_running(const char *comm);

/* The check groups, run in this order. Each reports for every target CPU itself. */
void pb_check_frequency(struct pb_env_ctx *ctx);
void pb_check_topology(struct pb_env_ctx *ctx);
void pb_check_isolation(struct pb_env_ctx *ctx);
void pb_check_interrupts(struct pb_env_ctx *ctx);
void pb_check_scheduler(struct pb_env_ctx *ctx);
void pb_check_memory(struct pb_env_ctx *ctx);
void pb_check_timer(struct pb_env_ctx *ctx);
void pb_check_counters(struct pb_env_ctx *ctx);
void pb_check_virtualization(struct pb_env_ctx *ctx);

#endif
