/* SPDX-License-Identifier: MIT */
/* pbench/system.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_SYSTEM
#define PBENCH_H_SYSTEM

#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * System facts the counters path needs (sysfs.c). Like every read outside pbench_check()
 * (and pbench_cpus_present()), these read the live machine: PBENCH_SYSFS_ROOT and
 * PBENCH_PROCFS_ROOT are for the checks only.
 */

/* kernel.perf_event_paranoid, or a negative error if it cannot be read. */
PBENCH_API int pbench_counters_paranoid(int *value);
/* 1 when a hardware CPU PMU is registered (event_source/devices/cpu*), else 0. */
PBENCH_API int pbench_cpu_has_pmu(void);

/* The machine pbench runs on (host.c), as every JSON document names it in its "host" block.
 * Strings are the library's, valid for the life of the process; "" when not known. */
struct pbench_host {
	size_t size;
	const char *hostname;		/* uname(2) nodename */
	const char *kernel;		/* uname(2) release, e.g. "6.18.44" */
	const char *arch;		/* uname(2) machine: "x86_64", "aarch64" */
	const char *cpu_model;		/* /proc/cpuinfo "model name" (arm64: the implementer
					 * and part) */
	int cpus_online;		/* sysconf(_SC_NPROCESSORS_ONLN) */
	int cpus_allowed;		/* CPUs this process may run on; -1 unknown */
	int64_t time_s;			/* when it was asked: seconds since the epoch */
};
/* Fill out (out->size set by the caller; an older, smaller struct gets its part). Errors:
 * -EINVAL (NULL out, size 0). */
PBENCH_API int pbench_host_info(struct pbench_host *out);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_SYSTEM */
