/* SPDX-License-Identifier: MIT */
/*
 * The machine pbench runs on, as every JSON document names it (its "host" block): the name,
 * the kernel and architecture from uname(2), the CPU model from /proc/cpuinfo, the CPUs, and
 * the time. Always the live machine: a recorded tree (PBENCH_SYSFS_ROOT) describes the
 * machine a check is about, not the one that wrote the file.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

/* "model name : AMD EPYC ..." on x86; arm64 names the implementer and the part instead. */
static void cpu_model(char *buf, size_t len)
{
	char line[512], impl[32] = "", part[32] = "";
	FILE *f = pb_fopen("/proc/cpuinfo");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "model name", 10) && !buf[0])
			snprintf(buf, len, "%s", v);
		else if (!strncmp(line, "CPU implementer", 15) && !impl[0])
			snprintf(impl, sizeof(impl), "%s", v);
		else if (!strncmp(line, "CPU part", 8) && !part[0])
			snprintf(part, sizeof(part), "%s", v);
	}
	if (f)
		fclose(f);
	if (!buf[0] && impl[0])
		snprintf(buf, len, "CPU implementer %s, part %s", impl, part[0] ? part : "?");
}

int pbench_host_info(struct pbench_host *out)
{
	struct pbench_host h = { .size = sizeof(h) };
	struct utsname u;
	char model[256];
	cpu_set_t set;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_host, 0, NULL)))
		return err;
	if (uname(&u) == 0) {
		h.hostname = pb_intern(u.nodename);
		h.kernel = pb_intern(u.release);
		h.arch = pb_intern(u.machine);
	} else {
		h.hostname = h.kernel = h.arch = "";
	}
	cpu_model(model, sizeof(model));
	h.cpu_model = pb_intern(model);
	h.cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	CPU_ZERO(&set);
	h.cpus_allowed = sched_getaffinity(0, sizeof(set), &set) ? -1 : CPU_COUNT(&set);
	h.time_s = (int64_t)time(NULL);
	pb_copy_out(out, &h, sizeof(h));
	return 0;
}
