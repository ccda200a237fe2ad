/* SPDX-License-Identifier: MIT */
/* pbench/check.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_CHECK
#define PBENCH_H_CHECK

#include "listing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Machine checks (check.c and check_*.c): is this machine fit to measure on, and how to fix it
 */
enum pbench_check_status {
	PBENCH_CHECK_OK = 0,		/* as it should be for measuring */
	PBENCH_CHECK_INFO,		/* worth knowing, nothing to fix */
	PBENCH_CHECK_WARN,		/* adds noise; fix it if you can */
	PBENCH_CHECK_BAD,		/* makes measurements unreliable */
	PBENCH_CHECK_UNKNOWN,		/* could not be determined (value says what was looked for) */
};

/* One finding. */
struct pbench_check_finding {
	size_t size;
	const char *id;			/* stable JSON id, e.g. "cpufreq.governor" */
	const char *group;		/* "frequency", "topology", "isolation", "interrupts",
					 * "scheduler", "memory", "timer", "counters",
					 * "virtualization", "speed" */
	int status;			/* enum pbench_check_status */
	int cpu;			/* the target CPU it is about, -1 for the whole machine */
	/* The texts: never NULL, owned by the check (base.h). */
	const char *value;		/* what was found */
	const char *expected;		/* what measuring wants ("" when nothing specific) */
	const char *why;		/* why it matters (warn and bad) */
	const char *fix;		/* the command that fixes it (warn and bad) */
};

struct pbench_check;

enum pbench_check_flags {
	/* Skip the checks that measure over a window (steal time, CPU load): no waiting. */
	PBENCH_CHECK_NO_WINDOW = 1 << 0,
	/* The live machine even where PBENCH_SYSFS_ROOT / PBENCH_PROCFS_ROOT are set: the
	 * checks that go with a live measurement. */
	PBENCH_CHECK_LIVE = 1 << 1,
};

/*
 * Run every check for the target CPUs (cpus == NULL or ncpus == 0: the CPU that
 * pbench_cpu_pick() chooses). Reads /sys and /proc through PBENCH_SYSFS_ROOT and
 * PBENCH_PROCFS_ROOT (unless PBENCH_CHECK_LIVE); facts from syscalls and instructions are only
 * used when neither is set. These two variables change nothing else in the library.
 * Errors: -EINVAL (out NULL, a CPU that is not present), -ENOMEM; pbench_strerror() of the
 * error says it in a line in the words of pbench check: a CPU not present ("a CPU given to
 * --cpu is not present; present CPUs are 0-3"), a recorded tree (PBENCH_SYSFS_ROOT,
 * PBENCH_PROCFS_ROOT; not with PBENCH_CHECK_LIVE) that cannot be checked and why ("cannot check
 * the recorded tree (...): ..."), or this machine ("cannot check this machine: ...").
 */
PBENCH_API int pbench_check(struct pbench_check **out, const int *cpus, int ncpus,
				unsigned flags);
PBENCH_API void pbench_check_free(struct pbench_check *c);
PBENCH_API int pbench_check_nr(const struct pbench_check *c);
PBENCH_API const struct pbench_check_finding *pbench_check_get(const struct pbench_check *c, int i);
/* The target CPUs, in order, and how many. */
PBENCH_API int pbench_check_cpus(const struct pbench_check *c, const int **cpus);
/* Why the target CPU was chosen (when the caller did not name it), else "". */
PBENCH_API const char *pbench_check_pick_reason(const struct pbench_check *c);

PBENCH_API const char *pbench_check_status_name(int status);

/* "ready" (no warn or bad finding), "noisy" (a warn, no bad) or "unfit" (a bad one). */
PBENCH_API const char *pbench_check_verdict(const struct pbench_check *c);
enum pbench_check_write_flags {
	PBENCH_CHECK_WRITE_COLOR = 1 << 0,	/* ANSI colours for the statuses */
};
/* What pbench check prints: the findings by group, why and the fix for each warn and bad one,
 * the counts and the verdict; and the same in JSON (schema PBENCH_JSON_SCHEMA, with the host
 * that ran the check and the recorded tree when one was read). The text's prose (the head, a
 * finding's value, why and fix) is wrapped at text_width columns (0: not wrapped, one line
 * each), as every text writer wraps (output.h); the findings' table stays aligned. Errors:
 * -EINVAL (text_width < 0 too), -ENOMEM, -EIO (writing to f failed). */
PBENCH_API int pbench_check_write_text(const struct pbench_check *c, FILE *f, unsigned flags,
				     int text_width);
PBENCH_API int pbench_check_write_json(const struct pbench_check *c, FILE *f);

/*
 * The CPU a prepared measurement should run on: an isolated CPU if there is one, otherwise
 * the least busy online CPU other than CPU 0 whose SMT siblings are idle. reason (an output,
 * len bytes; may be NULL) gets why it was picked, in words ("" on failure). Returns the CPU
 * number or a negative error.
 */
PBENCH_API int pbench_cpu_pick(char *reason, size_t len);

/*
 * Parse a CPU list such as "0-3,5" (the kernel's cpulist format) into cpus[0..max-1], in
 * order, without duplicates. Returns the count, or -EINVAL (malformed, descending range) or
 * -ERANGE (a CPU >= limit, or more than max CPUs).
 */
PBENCH_API int pbench_cpus_parse(const char *list, int *cpus, int max, int limit);
/*
 * A CPU list given for a set of CPUs to run on, as a --cpu is: list parsed as
 * pbench_cpus_parse(list, cpus, max, max), then each CPU looked up in set (a list such as
 * pbench_cpus_allowed() or pbench_cpus_present() writes; one that is not a list, "unknown",
 * checks nothing). Returns the count, with *outside the first CPU of list not in set, or -1
 * when all are; errors as pbench_cpus_parse(), and -ENOMEM.
 */
PBENCH_API int pbench_cpus_parse_in(const char *list, const char *set, int *cpus, int max,
				    int *outside);

/*
 * Another measurement on cpu: the pid of another process with a thread named like this
 * process and pinned to cpu alone (a second prepared pbench stat, the same benchmark started
 * twice), or 0. Both would measure each other; call it after pbench_prepare() and after the
 * runs to say so. Of several, one in the caller's session (getsid()) is named first.
 */
PBENCH_API int pbench_cpu_rival(int cpu);

/* The CPUs this process may run on (its affinity), as a list such as "0-3,6": what a --cpu
 * may name. "unknown" and -errno when the affinity cannot be read. */
PBENCH_API int pbench_cpus_allowed(char *buf, size_t len);

/* Present CPUs (/sys/devices/system/cpu/present), as "0-N": the range --cpu accepts. */
PBENCH_API int pbench_cpus_present(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_CHECK */
