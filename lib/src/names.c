/* SPDX-License-Identifier: MIT */
/*
 * The names of the library's enums, as the reports and the JSON print them: one table each,
 * in data-flow order, at the bottom so that any file may name a value without depending on
 * the file that produces it. The names are stable (they are JSON values).
 */
#include "internal.h"

const char *pbench_clock_kind_name(int kind)
{
	switch (kind) {
	case PBENCH_CLOCK_TSC:
		return "tsc";
	case PBENCH_CLOCK_MONOTONIC_RAW:
		return "clock_monotonic_raw";
	case PBENCH_CLOCK_CNTVCT:
		return "cntvct";
	}
	return "unknown";
}

const char *pbench_freq_source_name(int source)
{
	switch (source) {
	case PBENCH_FREQ_PERF_PAGE:
		return "perf_mmap_page";
	case PBENCH_FREQ_CPUID:
		return "cpuid";
	case PBENCH_FREQ_CALIBRATED:
		return "calibrated";
	case PBENCH_FREQ_NS:
		return "ns";
	case PBENCH_FREQ_CNTFRQ:
		return "cntfrq";
	}
	return "unknown";
}

const char *pbench_event_kind_name(int kind)
{
	switch (kind) {
	case PBENCH_EVENT_HARDWARE: return "hardware";
	case PBENCH_EVENT_SOFTWARE: return "software";
	case PBENCH_EVENT_PMU: return "pmu";
	case PBENCH_EVENT_OTHER: return "other";
	}
	return "unknown";
}

const char *pbench_event_status_name(int status)
{
	switch (status) {
	case PBENCH_EVENT_OK: return "ok";
	case PBENCH_EVENT_MULTIPLEXED: return "multiplexed";
	case PBENCH_EVENT_NOT_COUNTED: return "not-counted";
	case PBENCH_EVENT_NOT_SUPPORTED: return "not-supported";
	case PBENCH_EVENT_NO_PERMISSION: return "no-permission";
	}
	return "unknown";
}

const char *pbench_check_status_name(int status)
{
	switch (status) {
	case PBENCH_CHECK_OK: return "ok";
	case PBENCH_CHECK_INFO: return "info";
	case PBENCH_CHECK_WARN: return "warn";
	case PBENCH_CHECK_BAD: return "bad";
	case PBENCH_CHECK_UNKNOWN: return "unknown";
	}
	return "?";
}

const char *pbench_verdict_name(int verdict)
{
	switch (verdict) {
	case PBENCH_FASTER:
		return "faster";
	case PBENCH_SLOWER:
		return "slower";
	case PBENCH_SAME:
		return "same";
	case PBENCH_UNDECIDED:
		return "undecided";
	}
	return "unknown";
}

const char *pbench_jitter_source_kind_name(int kind)
{
	static const char *const names[] = {
		[PBENCH_JSRC_TIMER] = "timer", [PBENCH_JSRC_IPI] = "ipi",
		[PBENCH_JSRC_DEVICE] = "device", [PBENCH_JSRC_OTHER_IRQ] = "other_irq",
		[PBENCH_JSRC_SOFTIRQ] = "softirq", [PBENCH_JSRC_PREEMPTION] = "preemption",
		[PBENCH_JSRC_STEAL] = "steal", [PBENCH_JSRC_SMI] = "smi",
	};

	return kind > 0 && kind < (int)PB_ARRAY_SIZE(names) ? names[kind] : "?";
}
