/* SPDX-License-Identifier: MIT */
/*
 * Checks, counters group: perf_event_paranoid, user-space counter reads (rdpmc), whether a
 * hardware PMU is there and counts, the sample rate limit.
 *
 * Every fact comes from a file through the root mapping, so a recorded tree gives the answers
 * of its machine; syscalls and CPUID only add to a finding when ctx->live is set.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "counters/counts.h"
#include "check/check.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static void check_paranoid(struct pb_check_ctx *ctx, const struct pb_proc_status *st)
{
	static const char expected[] = "<= 1 (or root / CAP_PERFMON)";
	static const char fix[] = "sudo sysctl -w kernel.perf_event_paranoid=1, or sudo setcap "
				  "cap_perfmon+ep $(which pbench)";
	int v, err = pbench_counters_paranoid(&v), priv = pb_has_cap(st, PB_CAP_PERFMON);
	const char *who;
	struct pbench_check_finding *c;

	if (priv == 0)
		priv = pb_has_cap(st, PB_CAP_SYS_ADMIN);
	/* Root in a container may lack the capabilities (docker run drops most of them). */
	who = priv ? "privileges unknown" : st->have_uid && st->euid == 0 ?
	      "root without CAP_PERFMON" : "not root, no CAP_PERFMON";
	if (err) {
		pb_check_unknown(ctx, "perf.paranoid", -1, "/proc/sys/kernel/perf_event_paranoid",
				 err);
	} else if (v <= 1) {
		pb_report(ctx, "perf.paranoid", -1, PBENCH_CHECK_OK, NULL, "%d", v);
	} else if (priv == 1) {
		pb_report(ctx, "perf.paranoid", -1, PBENCH_CHECK_OK, NULL,
			  "%d (%s: not restricted)", v, st->have_cap ? "CAP_PERFMON" : "root");
	} else if (v == 2) {
		c = pb_report(ctx, "perf.paranoid", -1, PBENCH_CHECK_INFO, expected,
			      "2 (%s: user space only)", who);
		pb_advise(c, "events count user space only (pbench flags them user_only): what the "
			  "measured code does in the kernel (syscalls, page faults) is not counted",
			  fix);
	} else {
		/* Levels above 2 are Debian's patch, which Ubuntu carries too ("security/perf:
		 * Allow further restriction of perf_event_open"): 3 denies every event. */
		c = pb_report(ctx, "perf.paranoid", -1, priv ? PBENCH_CHECK_WARN : PBENCH_CHECK_BAD,
			      expected, "%d (%s; Debian/Ubuntu: no perf_event_open without "
			      "CAP_PERFMON)", v, who);
		pb_advise(c, "Debian and Ubuntu kernels read 3 and above as no perf_event_open at "
			  "all without CAP_PERFMON: pbench then counts nothing but time (not even "
			  "page faults or context switches)", fix);
	}
}

/* The first CPU PMU (cpu, cpu_core, cpu_atom, armv8_*) into name: 1, 0 when there is none,
 * -errno when the PMU directory cannot be listed. */
static int cpu_pmu(char *name, size_t len)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	if (pb_path(path, sizeof(path), PMU_DIR))
		return -ENAMETOOLONG;
	if (!(dir = opendir(path)))
		return -errno;
	while (!found && (d = readdir(dir)))
		if (!strncmp(d->d_name, "cpu", 3) || !strncmp(d->d_name, "armv", 4))
			found = snprintf(name, len, "%s", d->d_name) < (int)len;
	closedir(dir);
	return found;
}

/* arm64 (Linux 5.17+): user-space counter reads are allowed by kernel.perf_user_access and
 * asked for per event with the PMU's rdpmc format bit. */
static void check_user_access(struct pb_check_ctx *ctx, const char *pmu)
{
	static const char file[] = "/proc/sys/kernel/perf_user_access";
	struct pbench_check_finding *c;
	long v;
	int err = pb_read_long(file, &v);

	if (err == -ENOENT) {
		c = pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_INFO, NULL, "%s: no %s (a kernel "
			      "before 5.17): no user-space counter reads", pmu, file);
		pb_advise(c, "every pbench_counters_start/stop is a read() syscall", NULL);
	} else if (err || v < 0 || v > 1) {
		pb_check_unknown(ctx, "perf.rdpmc", -1, file, err ? err : -EINVAL);
	} else if (v == 1) {
		pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_OK, NULL, "%s: perf_user_access 1 "
			  "(user-space counter reads)", pmu);
	} else {
		c = pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_WARN, "1",
			      "%s: perf_user_access 0 (no user-space reads)", pmu);
		pb_advise(c, "every pbench_counters_start/stop becomes a read() syscall, a kernel "
			  "entry inside the timed region (measured in the emulated arm64 guest: "
			  "2509 instructions a read() against 203 for a user-space read)",
			  "sudo sysctl -w kernel.perf_user_access=1");
	}
}

static void check_rdpmc(struct pb_check_ctx *ctx, const char *pmu)
{
	char path[128];
	struct pbench_check_finding *c;
	long v;
	int err;

	snprintf(path, sizeof(path), PMU_DIR "/%s/format/rdpmc", pmu);
	if (pmu[0] && pb_exists(path)) {
		check_user_access(ctx, pmu);
		return;
	}

	snprintf(path, sizeof(path), PMU_DIR "/%s/rdpmc", pmu);
	err = pmu[0] ? pb_read_long(path, &v) : -ENOENT;
	if (!pmu[0]) {
		pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_INFO, NULL, "no cpu PMU in " PMU_DIR
			  ": no hardware counter to read");
	} else if (err == -ENOENT) {
		pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_INFO, NULL, "%s PMU has no rdpmc "
			  "file: no user-space counter reads", pmu);
	} else if (err || v < 0 || v > 2) {
		pb_check_unknown(ctx, "perf.rdpmc", -1, path, err ? err : -EINVAL);
	} else if (v) {
		pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_OK, NULL, "%s: %ld (%s)", pmu, v,
			  v == 1 ? "tasks that opened an event" : "any task");
	} else {
		c = pb_report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_WARN, "1 or 2",
			      "%s: 0 (no user-space reads)", pmu);
		pb_advise(c, "every pbench_counters_start/stop becomes a read() syscall, a kernel "
			  "entry inside the timed region (measured on the development VM: 0.6 us "
			  "per read() of a software counter), instead of an rdpmc instruction in "
			  "user space", NULL);
		pb_check_set(c, &c->fix, "echo 1 | sudo tee %s", path);
	}
}

/* Live only: open cycles on this thread; the event status (-1: no set), reason in why. */
static int try_cycles(char *why, size_t len)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1 };
	struct pbench_count k = { .size = sizeof(k) };
	struct pbench_counters *cs = NULL;
	int err = pbench_counters_open(&cs, "cycles", &o), status;

	snprintf(why, len, "%s", pbench_strerror(err));
	if (!cs)
		return -1;
	status = pbench_counters_open_status(cs, 0);
	if (status != PBENCH_EVENT_OK && pb_counters_read(cs, &k, 1) == 1)
		snprintf(why, len, "%s", k.reason);
	pbench_counters_free(cs);
	return status;
}

static void check_pmu(struct pb_check_ctx *ctx, const char *pmu)
{
	char reason[192] = "", path[128], what[96] = "no cpu PMU in " PMU_DIR;
	int st = ctx->live ? try_cycles(reason, sizeof(reason)) : PBENCH_EVENT_OK;
	struct pbench_check_finding *c;
	long type;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	if (pmu[0] && !pb_read_long(path, &type))
		snprintf(what, sizeof(what), "%s PMU (type %ld)", pmu, type);
	else if (pmu[0])
		snprintf(what, sizeof(what), "%s PMU", pmu);
	if (st == PBENCH_EVENT_OK && (pmu[0] || ctx->live)) {
		pb_report(ctx, "perf.pmu", -1, PBENCH_CHECK_OK, NULL, "%s%s",
			  pmu[0] ? what : "a hardware PMU", ctx->live ? "; cycles opens" : "");
		return;
	}
	if (st != PBENCH_EVENT_OK && st != PBENCH_EVENT_NOT_SUPPORTED) {
		/* Not allowed to try (perf.paranoid says why), or could not try at all. */
		pb_report(ctx, "perf.pmu", -1, pmu[0] ? PBENCH_CHECK_INFO : PBENCH_CHECK_UNKNOWN,
			  NULL, "%s; cycles: %s", what, reason);
		return;
	}
	c = pb_report(ctx, "perf.pmu", -1, PBENCH_CHECK_WARN, "a cpu PMU", "%s%s%s", what,
		      reason[0] ? "; cycles: " : "", reason);
	pb_advise(c, "no cycles, instructions or cache events: pbench can count only time and "
		  "the software events (task-clock, page-faults, context-switches, "
		  "cpu-migrations)",
		  "in a KVM/QEMU guest, enable the vPMU (-cpu host,pmu=on; libvirt: <pmu "
		  "state='on'/>); many clouds cannot: measure on bare metal or an instance type "
		  "that exposes the PMU");
}

static void check_sample_rate(struct pb_check_ctx *ctx)
{
	long v;
	int err = pb_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &v);

	/* 100000 is the kernel's DEFAULT_MAX_SAMPLE_RATE (kernel/events/core.c), which it
	 * lowers when perf interrupts take too long. */
	if (err || v <= 0)
		pb_check_unknown(ctx, "perf.max_sample_rate", -1,
				 "/proc/sys/kernel/perf_event_max_sample_rate",
				 err ? err : -EINVAL);
	else if (v < 100000)
		pb_report(ctx, "perf.max_sample_rate", -1, PBENCH_CHECK_INFO, NULL, "%ld (the "
			  "kernel lowered it from 100000: perf interrupts took too long on this "
			  "machine)", v);
	else
		pb_report(ctx, "perf.max_sample_rate", -1, PBENCH_CHECK_OK, NULL, "%ld", v);
}

void pb_check_counters(struct pb_check_ctx *ctx)
{
	struct pb_proc_status st;
	char pmu[64] = "";
	int err = cpu_pmu(pmu, sizeof(pmu));

	pb_read_status("self", &st);
	check_paranoid(ctx, &st);
	if (err < 0) {
		pb_check_unknown(ctx, "perf.rdpmc", -1, PMU_DIR, err);
		pb_check_unknown(ctx, "perf.pmu", -1, PMU_DIR, err);
	} else {
		check_rdpmc(ctx, pmu);
		check_pmu(ctx, pmu);
	}
	check_sample_rate(ctx);
}
