/* SPDX-License-Identifier: MIT */
/*
 * Checks: topology (SMT on the machine, the target CPU's sibling threads). A sibling thread
 * shares the core's execution units and caches with the measured code, so SMT that is on, or
 * a sibling that is busy, is reported with the command that takes it out of the way.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"

#define CPU_DIR "/sys/devices/system/cpu"
/* A sibling thread busier than this takes a noticeable share of the core. */
#define BUSY_SIBLING 0.05

static const char *window(const struct pb_check_ctx *ctx, char *buf, size_t len)
{
	if (ctx->window_ms <= 0)
		return "since boot";
	snprintf(buf, len, "over the last %.0f ms", ctx->window_ms);
	return buf;
}


static void check_smt_active(struct pb_check_ctx *ctx)
{
	struct pbench_check_finding *c;
	char ctl[32], boot[256];
	long active = -1;
	int err = pb_read_word(CPU_DIR "/smt/control", ctl, sizeof(ctl));

	if (err) {
		pb_check_unknown(ctx, "smt.active", -1, CPU_DIR "/smt/control", err);
		return;
	}
	if (!strcmp(ctl, "notsupported")) {
		pb_report(ctx, "smt.active", -1, PBENCH_CHECK_INFO, NULL, "not supported: one "
			  "thread per core (in a VM the vCPUs may still be sibling threads on the "
			  "host)");
		return;
	}
	if (!strcmp(ctl, "off") || !strcmp(ctl, "forceoff")) {
		pb_report(ctx, "smt.active", -1, PBENCH_CHECK_OK, "off", "off (smt/control %s)",
			  ctl);
		return;
	}
	if (strcmp(ctl, "on") && strcmp(ctl, "notimplemented") && !isdigit((unsigned char)ctl[0])) {
		pb_check_unknown(ctx, "smt.active", -1, CPU_DIR "/smt/control", -EINVAL);
		return;
	}
	/* "on", a thread count (6.9+: "2"), or no control: smt/active says what runs now. */
	err = pb_read_num(CPU_DIR "/smt/active", &active);
	if (err || active > 1) {
		pb_check_unknown(ctx, "smt.active", -1, CPU_DIR "/smt/active", err ? err : -EINVAL);
		return;
	}
	c = pb_report(ctx, "smt.active", -1, active ? PBENCH_CHECK_WARN : PBENCH_CHECK_OK, "off",
		      "%s (smt/control %s, smt/active %ld)", active ? "on" : "off", ctl, active);
	if (!active)
		return;
	pb_advise(c, "two hardware threads share each core's execution units, caches and branch "
		  "predictors: a thread whose sibling is busy runs slower than alone, by an amount "
		  "that depends on what the sibling runs", NULL);
	if (!strcmp(ctl, "notimplemented"))
		pb_check_set(c, &c->fix, "this kernel has no SMT switch: keep the target's sibling "
			     "idle or offline (see smt.sibling)");
	else
		pb_check_set(c, &c->fix, "echo off | sudo tee " CPU_DIR "/smt/control (persistent: "
			     "%s); or keep the target's sibling idle (smt.sibling)",
			     pb_boot_fix(ctx, boot, sizeof(boot), "nosmt"));
}

/* The siblings of cpu into val ("CPU 5 online, 8% busy since boot"): their count, the
 * busiest online one in *worst_cpu and its share in *worst, and how many have no load. */
static int siblings(const struct pb_check_ctx *ctx, int cpu, const unsigned char *sib,
		    const unsigned char *online, char *val, size_t len, double *worst,
		    int *worst_cpu, int *unknown_load)
{
	char win[32];
	int nsib = 0;

	for (int s = 0; s < PB_MAX_CPUS; s++) {
		char opath[64];
		long on = 1;	/* a CPU without an online file cannot go offline */
		double busy;

		if (s == cpu || !pb_cpu_in(sib, s))
			continue;
		nsib++;
		snprintf(opath, sizeof(opath), CPU_DIR "/cpu%d/online", s);
		if (online ? !pb_cpu_in(online, s) : (!pb_read_num(opath, &on) && !on)) {
			pb_appendf(val, len, "%sCPU %d offline", val[0] ? ", " : "", s);
			continue;
		}
		busy = pb_busy_share(ctx, s);
		if (busy < 0) {
			++*unknown_load;
			pb_appendf(val, len, "%sCPU %d online, load unknown", val[0] ? ", " : "",
				   s);
			continue;
		}
		pb_appendf(val, len, "%sCPU %d online, %.0f%% busy %s", val[0] ? ", " : "", s,
			   busy * 100, window(ctx, win, sizeof(win)));
		if (busy > *worst) {
			*worst = busy;
			*worst_cpu = s;
		}
	}
	return nsib;
}

static void check_sibling(struct pb_check_ctx *ctx, int cpu, const unsigned char *online)
{
	unsigned char sib[PB_MAX_CPUS / 8];
	char path[128], val[200] = "", win[32], exp[64];
	struct pbench_check_finding *c;
	double worst = -1;
	int n, worst_cpu = -1, nsib, unknown_load = 0;

	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/thread_siblings_list", cpu);
	n = pb_read_cpulist(path, sib);
	if (n <= 0 || !pb_cpu_in(sib, cpu)) {
		pb_check_unknown(ctx, "smt.sibling", cpu, path, n < 0 ? n : -EINVAL);
		return;
	}
	nsib = siblings(ctx, cpu, sib, online, val, sizeof(val), &worst, &worst_cpu,
			&unknown_load);
	snprintf(exp, sizeof(exp), "no sibling, or offline, or idle (< %.0f%% busy)",
		 BUSY_SIBLING * 100);
	if (!nsib) {
		pb_report(ctx, "smt.sibling", cpu, PBENCH_CHECK_OK, exp,
			  "no SMT sibling (thread_siblings_list %d)", cpu);
		return;
	}
	if (worst <= BUSY_SIBLING) {
		pb_report(ctx, "smt.sibling", cpu,
			  unknown_load ? PBENCH_CHECK_INFO : PBENCH_CHECK_OK, exp, "%s", val);
		return;
	}
	c = pb_report(ctx, "smt.sibling", cpu, PBENCH_CHECK_WARN, exp, "%s", val);
	pb_check_set(c, &c->why, "the sibling thread shares this core: while it runs, the measured "
		     "code competes with it for the core's execution units and caches and runs "
		     "slower; it was busy %.0f%% of the time %s", worst * 100,
		     window(ctx, win, sizeof(win)));
	pb_check_set(c, &c->fix, "measure on a CPU whose sibling is idle (pbench picks one when "
		     "--cpu is not given), or take the sibling offline while measuring: echo 0 | "
		     "sudo tee " CPU_DIR "/cpu%d/online (back: echo 1)", worst_cpu);
}

void pb_check_topology(struct pb_check_ctx *ctx)
{
	unsigned char *online = malloc(PB_MAX_CPUS / 8);

	if (online && pb_read_cpulist(CPU_DIR "/online", online) <= 0) {
		free(online);
		online = NULL;	/* each sibling's own online file says */
	}
	check_smt_active(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_sibling(ctx, ctx->cpus[i], online);
	free(online);
}
