/* SPDX-License-Identifier: MIT */
/*
 * The raw perf_event_open system call, at the bottom: counter sets (counters.c) and the clock's
 * perf page (clock.c) both open events, and neither should depend on the other for it.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "base/base.h"

int pb_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}
