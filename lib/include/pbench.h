/* SPDX-License-Identifier: MIT */
/*
 * pbench.h - the public interface of libpbench, a precision benchmarking library for Linux.
 *
 * Conventions:
 *  - Functions return 0 (or a count) on success and a negative error code on failure: -errno,
 *    or -PBENCH_E*. pbench_strerror() turns either into text. The library never prints and
 *    never exits; diagnostics go to the optional log callback (pbench_log_set()).
 *  - Structs a caller fills or receives carry `size` as their first member: set it to
 *    sizeof(struct ...) so the library can grow them without breaking old callers.
 *  - Times are in the clock's ticks (TSC ticks when the TSC is used) and in nanoseconds.
 */
#ifndef PBENCH_H
#define PBENCH_H

/* The parts, in data-flow order: what a machine is and how it is read, then counting, then
 * preparing and measuring, then statistics and reports. Each includes the one before it. */
#include "pbench/base.h"
#include "pbench/clock.h"
#include "pbench/workload.h"
#include "pbench/speed.h"
#include "pbench/events.h"
#include "pbench/counters.h"
#include "pbench/child.h"
#include "pbench/listing.h"
#include "pbench/check.h"
#include "pbench/system.h"
#include "pbench/stats.h"
#include "pbench/measure.h"
#include "pbench/noise.h"
#include "pbench/prepare.h"
#include "pbench/runs.h"
#include "pbench/report.h"
#include "pbench/output.h"
#include "pbench/samples.h"
#include "pbench/jitter.h"
#include "pbench/contest.h"
#include "pbench/scan.h"
#include "pbench/history.h"

#endif /* PBENCH_H */
