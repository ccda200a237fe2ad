/* SPDX-License-Identifier: MIT */
/*
 * CPU lists: the kernel's cpulists ("0-3,6", as /sys prints them and as --cpu takes them) to
 * bitmaps and back, and the public parsers of a --cpu list against this process's CPUs or the
 * machine's present ones. What the checks read of them (isolated, nohz_full) is
 * check/check_cpuset.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int pb_cpulist_to_set(const char *list, unsigned char *set)
{
	const char *p = list;
	int n = 0;

	memset(set, 0, PB_MAX_CPUS / 8);
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;	/* an empty list is a valid, empty set */
	for (;;) {
		char *end;
		long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtol(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtol(end + 1, &end, 10);
		}
		if (*end == ':')	/* "0-15:2/4" group syntax: not used by these files */
			return -EINVAL;
		if (lo < 0 || hi < lo || hi >= PB_MAX_CPUS)
			return hi < lo ? -EINVAL : -ERANGE;
		for (long c = lo; c <= hi; c++) {
			if (!pb_cpu_in(set, (int)c))
				n++;
			pb_cpu_put(set, (int)c, 1);
		}
		p = end;
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			return n;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

void pb_cpuset_format(const unsigned char *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < PB_MAX_CPUS && n < len; c++) {
		int e = c;

		if (!pb_cpu_in(set, c))
			continue;
		while (e + 1 < PB_MAX_CPUS && pb_cpu_in(set, e + 1))
			e++;
		n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c,
				      e);
		c = e;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

int pbench_cpus_parse(const char *list, int *cpus, int max, int limit)
{
	unsigned char *set;
	int n, k = 0;

	if (!list || !cpus || max <= 0)
		return -EINVAL;
	set = malloc(PB_MAX_CPUS / 8);
	if (!set)
		return -ENOMEM;
	n = pb_cpulist_to_set(list, set);
	if (n == 0 && n >= 0)
		n = -EINVAL;	/* "--cpu ''" names no CPU */
	for (int c = 0; n > 0 && c < PB_MAX_CPUS; c++) {
		if (!pb_cpu_in(set, c))
			continue;
		if (c >= limit || k >= max) {
			n = -ERANGE;
			break;
		}
		cpus[k++] = c;
	}
	free(set);
	return n < 0 ? n : k;
}

int pbench_cpus_parse_in(const char *list, const char *set, int *cpus, int max, int *outside)
{
	unsigned char *in;
	int n = pbench_cpus_parse(list, cpus, max, max);

	if (outside)
		*outside = -1;
	if (n <= 0 || !set || !outside)
		return n;
	in = malloc(PB_MAX_CPUS / 8);
	if (!in)
		return -ENOMEM;
	if (pb_cpulist_to_set(set, in) > 0)	/* "unknown" or "": nothing to check against */
		for (int i = 0; i < n && *outside < 0; i++)
			if (!pb_cpu_in(in, cpus[i]))
				*outside = cpus[i];
	free(in);
	return n;
}

int pbench_cpus_allowed(char *buf, size_t len)
{
	unsigned char set[PB_MAX_CPUS / 8] = { 0 };
	cpu_set_t mask;

	if (!buf || !len)
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(mask), &mask) < 0) {
		snprintf(buf, len, "unknown");
		return -errno;
	}
	for (int c = 0; c < PB_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			set[c / 8] |= (unsigned char)(1u << (c % 8));
	pb_cpuset_format(set, buf, len);
	return 0;
}

int pbench_cpus_present(char *buf, size_t len)
{
	int n;

	pb_recorded_begin();	/* the range a check's --cpu accepts: the recorded machine's */
	n = pb_read_file("/sys/devices/system/cpu/present", buf, len);
	pb_recorded_end();
	return n < 0 ? n : 0;
}
