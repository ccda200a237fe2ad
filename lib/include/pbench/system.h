/* SPDX-License-Identifier: MIT */
/* pbench/system.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_SYSTEM
#define PBENCH_H_SYSTEM

#include "env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * System facts the counters path needs (sysfs.c). Like every read outside pbench_env_check()
 * (and pbench_cpus_present()), these read the live machine: PBENCH_SYSFS_ROOT and
 * PBENCH_PROCFS_ROOT are for the checks only.
 */

/* kernel.perf_event_paranoid, or a negative error if it cannot be read. */
PBENCH_API int pbench_counters_paranoid(int *value);
/* 1 when a hardware CPU PMU is registered (event_source/devices/cpu*), else 0. */
PBENCH_API int pbench_cpu_has_pmu(void);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_SYSTEM */
