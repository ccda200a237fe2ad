/* SPDX-License-Identifier: MIT */
/*
 * The names of the library's enums, as the reports and the JSON print them: one table each,
 * in data-flow order, at the bottom so that any file may name a value without depending on
 * the file that produces it. The names are stable (they are JSON values).
 */
#include <sched.h>

#include "base/base.h"

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

/* The status as perf stat prints it in text, between < and >: "not supported", "no
 * permission", "not counted" (the JSON keeps pbench_event_status_name()'s hyphens). */
const char *pb_event_status_text(int status)
{
	switch (status) {
	case PBENCH_EVENT_NOT_SUPPORTED: return "not supported";
	case PBENCH_EVENT_NO_PERMISSION: return "no permission";
	case PBENCH_EVENT_NOT_COUNTED: return "not counted";
	}
	return pbench_event_status_name(status);
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
	case PBENCH_VERDICT_FASTER:
		return "faster";
	case PBENCH_VERDICT_SLOWER:
		return "slower";
	case PBENCH_VERDICT_SAME:
		return "same";
	case PBENCH_VERDICT_UNDECIDED:
		return "undecided";
	}
	return "unknown";
}

const char *pbench_jitter_source_kind_name(int kind)
{
	static const char *const names[] = {
		[PBENCH_JITTER_SOURCE_TIMER] = "timer", [PBENCH_JITTER_SOURCE_IPI] = "ipi",
		[PBENCH_JITTER_SOURCE_DEVICE] = "device",
		[PBENCH_JITTER_SOURCE_OTHER_IRQ] = "other_irq",
		[PBENCH_JITTER_SOURCE_SOFTIRQ] = "softirq",
		[PBENCH_JITTER_SOURCE_PREEMPTION] = "preemption",
		[PBENCH_JITTER_SOURCE_STEAL] = "steal", [PBENCH_JITTER_SOURCE_SMI] = "smi",
	};

	return kind > 0 && kind < (int)PB_ARRAY_SIZE(names) ? names[kind] : "?";
}

const char *pbench_cpu_sharing_kind_name(int kind)
{
	static const char *const names[] = {
		[PBENCH_CPU_SHARING_NONE] = "none", [PBENCH_CPU_SHARING_PREEMPTION] = "preemption",
		[PBENCH_CPU_SHARING_CORE] = "core", [PBENCH_CPU_SHARING_HOST] = "host",
	};

	return kind >= 0 && kind < (int)PB_ARRAY_SIZE(names) ? names[kind] : "?";
}

const char *pbench_stop_rule_name(int rule)
{
	switch (rule) {
	case PBENCH_STOP_SEM:
		return "sem";
	case PBENCH_STOP_MAX_SAMPLES:
		return "max_samples";
	case PBENCH_STOP_BUDGET:
		return "budget";
	case PBENCH_STOP_SINGLE:
		return "single";
	case PBENCH_STOP_FIXED:
		return "fixed";
	}
	return "unknown";
}

const char *pbench_prepare_step_name(int step)
{
	static const char *const names[] = { "pin", "numa", "mlock", "stack", "priority",
					     "warmup" };

	return step >= 0 && step < PBENCH_PREPARE_STEP_NR ? names[step] : "?";
}

const char *pbench_prepare_status_name(int status)
{
	static const char *const names[] = { "done", "not permitted", "not available", "skipped",
					     "failed" };

	return status >= 0 && status <= PBENCH_PREPARE_FAILED ? names[status] : "?";
}

const char *pbench_priority_mode_name(int mode)
{
	static const char *const names[] = { "auto", "none", "nice", "fifo" };

	return mode >= 0 && mode <= PBENCH_PRIORITY_FIFO ? names[mode] : "?";
}

/* The names of --mode's and --workload's values, as every report and option spells them. */
const char *pbench_runs_mode_name(int mode)
{
	static const char *const names[] = { "unprepared", "prepared", "contrast" };

	return mode >= 0 && mode <= PBENCH_RUNS_CONTRAST ? names[mode] : "?";
}

const char *pbench_workload_kind_name(int kind)
{
	static const char *const names[] = { "xor", "memwalk", "function" };

	return kind >= 0 && kind <= PBENCH_WORKLOAD_FN ? names[kind] : "?";
}

const char *pbench_sched_policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	case 6: return "SCHED_DEADLINE";
	case 7: return "SCHED_EXT";
	}
	return "?";
}

const char *pbench_contest_order_name(int order)
{
	switch (order) {
	case PBENCH_CONTEST_ORDER_INTERLEAVED:
		return "interleaved";
	case PBENCH_CONTEST_ORDER_DUET:
		return "duet";
	case PBENCH_CONTEST_ORDER_SEQUENTIAL:
		return "sequential";
	}
	return "unknown";
}

const char *pbench_contest_stop_name(int stop)
{
	switch (stop) {
	case PBENCH_CONTEST_STOP_DECIDED:
		return "decided";
	case PBENCH_CONTEST_STOP_TIME:
		return "max_time";
	case PBENCH_CONTEST_STOP_MAX_ROUNDS:
		return "max_runs";
	case PBENCH_CONTEST_STOP_INTERRUPTED:
		return "interrupted";
	}
	return "unknown";
}

const char *pbench_mem_status_name(int status)
{
	switch (status) {
	case PBENCH_MEM_OFF:
		return "off";
	case PBENCH_MEM_COUNTED:
		return "counted";
	case PBENCH_MEM_NOT_INTERPOSED:
		return "not_interposed";
	case PBENCH_MEM_STATIC:
		return "static";
	case PBENCH_MEM_SETUID:
		return "setuid";
	case PBENCH_MEM_NOT_LOADED:
		return "not_loaded";
	}
	return "unknown";
}

const char *pbench_mem_kind_name(int kind)
{
	switch (kind) {
	case PBENCH_MEM_ALLOCS:
		return "allocs";
	case PBENCH_MEM_FREES:
		return "frees";
	case PBENCH_MEM_BYTES:
		return "bytes";
	case PBENCH_MEM_PEAK:
		return "peak_bytes";
	}
	return "unknown";
}
