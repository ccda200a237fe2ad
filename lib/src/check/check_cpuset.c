/* SPDX-License-Identifier: MIT */
/*
 * The CPU lists the checks read: a cpulist file into a bitmap (the parsing is base/cpulist.c's),
 * and the CPUs the kernel keeps quiet.
 */
#include <string.h>

#include "base/base.h"
#include "check/check.h"

int pb_read_cpulist(const char *path, unsigned char *set)
{
	char buf[4096];
	int n = pb_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	/* nohz_full reads "(null)" when the kernel never allocated its mask, that is without a
	 * nohz_full= parameter (drivers/base/cpu.c prints the NULL mask with %*pbl). */
	if (!strcmp(buf, "(null)")) {
		memset(set, 0, PB_MAX_CPUS / 8);
		return 0;
	}
	return pb_cpulist_to_set(buf, set);
}

void pb_quiet_cpus(unsigned char *set)
{
	unsigned char nohz[PB_MAX_CPUS / 8];

	if (pb_read_cpulist("/sys/devices/system/cpu/isolated", set) < 0)
		memset(set, 0, PB_MAX_CPUS / 8);
	if (pb_read_cpulist("/sys/devices/system/cpu/nohz_full", nohz) > 0)
		for (int i = 0; i < PB_MAX_CPUS / 8; i++)
			set[i] |= nohz[i];
}
