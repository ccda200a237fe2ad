/* SPDX-License-Identifier: MIT */
/*
 * pbench_check(): runs the check groups (env_*.c) for the target CPUs, given or picked,
 * and collects their findings. The top of env: the groups are below it, and below them what
 * they share (env.h): the findings (check_findings.c), the readers (check_read.c), the CPU lists
 * (check_cpuset.c, on base/cpulist.c), the /proc/stat window and picking a CPU (check_pick.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "check/check.h"

static const struct {
	const char *group;
	void (*fn)(struct pb_check_ctx *ctx);
} groups[] = {
	{ "frequency", pb_check_frequency },
	{ "topology", pb_check_topology },
	{ "isolation", pb_check_isolation },
	{ "interrupts", pb_check_interrupts },
	{ "scheduler", pb_check_scheduler },
	{ "scheduler", pb_check_cgroup },	/* right after: the group's lines stay together */
	{ "memory", pb_check_memory },
	{ "timer", pb_check_timer },
	{ "counters", pb_check_counters },
	{ "virtualization", pb_check_virtualization },
	{ "speed", pb_check_speed },		/* last: it measures for about 2 s */
};

/* Live facts (syscalls, instructions) are used only when the files read are the live ones:
 * outside the checks, or inside them with no recorded tree. */
static int is_live(unsigned flags)
{
	return (flags & PBENCH_CHECK_LIVE) || !pb_recorded_active();
}

/* ---- the run ---------------------------------------------------------------------------- */

static int env_check(struct pbench_check **out, const int *cpus, int ncpus, unsigned flags)
{
	struct pbench_check *e = calloc(1, sizeof(*e));
	struct pb_check_ctx ctx = { .env = e, .flags = flags, .live = is_live(flags) };
	unsigned char present[PB_MAX_CPUS / 8];
	int err = 0;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	pb_check_window(&ctx);
	if (!ctx.t0 || !ctx.t1) {
		err = -ENOMEM;
		goto out_free;
	}
	if (cpus && ncpus > 0) {
		int np = pb_read_cpulist("/sys/devices/system/cpu/present", present);

		for (int i = 0; i < ncpus; i++)
			if (np > 0 ? !pb_cpu_in(present, cpus[i]) : cpus[i] < 0) {
				err = -EINVAL;
				goto out_free;
			}
		e->cpus = malloc((size_t)ncpus * sizeof(int));
		if (!e->cpus) {
			err = -ENOMEM;
			goto out_free;
		}
		memcpy(e->cpus, cpus, (size_t)ncpus * sizeof(int));
		e->ncpus = ncpus;
	} else {
		int c = pb_check_pick(&ctx, e->pick_reason, sizeof(e->pick_reason));

		if (c < 0) {
			err = c;
			goto out_free;
		}
		e->cpus = malloc(sizeof(int));
		if (!e->cpus) {
			err = -ENOMEM;
			goto out_free;
		}
		e->cpus[0] = c;
		e->ncpus = 1;
	}
	ctx.cpus = e->cpus;
	ctx.ncpus = e->ncpus;
	for (size_t g = 0; g < PB_ARRAY_SIZE(groups); g++) {
		ctx.group = groups[g].group;
		groups[g].fn(&ctx);
	}
	free(ctx.t0);
	free(ctx.t1);
	*out = e;
	return 0;

out_free:
	free(ctx.t0);
	free(ctx.t1);
	pbench_check_free(e);
	return err;
}

/* What a failure err of the checks of ncpus CPUs means, said whole (pb_fail_msg()) in the
 * words of pbench check: a CPU not present (the present ones named), a recorded tree that
 * cannot be checked and why, or this machine. */
static int check_failed(int err, int ncpus, unsigned flags)
{
	const char *sys = getenv("PBENCH_SYSFS_ROOT"), *proc = getenv("PBENCH_PROCFS_ROOT");
	char present[256] = "unknown";

	if (flags & PBENCH_CHECK_LIVE)
		sys = proc = NULL;
	if (err == -EINVAL && ncpus > 0) {
		pbench_cpus_present(present, sizeof(present));
		return pb_fail_msg(err, "a CPU given to --cpu is not present; present CPUs are %s",
				   present);
	}
	if (!sys && !proc)
		return pb_fail_msg(err, "cannot check this machine: %s", pbench_strerror(err));
	return pb_fail_msg(err, "cannot check the recorded tree (PBENCH_SYSFS_ROOT '%s', "
			   "PBENCH_PROCFS_ROOT '%s'): %s", sys ? sys : "", proc ? proc : "",
			   err == -EINVAL ? "its CPU list or /proc/stat is malformed" :
			   pbench_strerror(err));
}

int pbench_check(struct pbench_check **out, const int *cpus, int ncpus, unsigned flags)
{
	int err;

	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	if (!(flags & PBENCH_CHECK_LIVE))
		pb_recorded_begin();
	err = env_check(out, cpus, ncpus, flags);
	if (!(flags & PBENCH_CHECK_LIVE))
		pb_recorded_end();
	return err ? check_failed(err, ncpus, flags) : 0;
}
