/* SPDX-License-Identifier: MIT */
/*
 * Checks, virtualization group: is this a guest (CPUID, /proc/cpuinfo, /sys/hypervisor), and
 * the time the host stole from each target CPU.
 *
 * Every fact comes from a file through the root mapping, so a recorded tree gives the answers
 * of its machine; syscalls and CPUID only add to a finding when ctx->live is set.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PB_X86 1
#endif

#include "base/base.h"
#include "noise/noise.h"
#include "check/check.h"

/* Live only: the CPUID hypervisor vendor (leaf 0x40000000), "" when CPUID reports none. */
static void cpuid_hypervisor(char *name, size_t len)
{
	name[0] = '\0';
#ifdef PB_X86
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 31))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (int i = 0; i < 12 && sig[i]; i++)
		sig[i] = isprint((unsigned char)sig[i]) ? sig[i] : '.';
	/* KVMKVMKVM (KVM, Firecracker), Microsoft Hv, VMwareVMware, XenVMMXenVMM, TCGTCGTCGTCG */
	snprintf(name, len, "CPUID vendor '%s'", sig);
#else
	(void)len;
#endif
}

/* 1 under a hypervisor, 0 not, -1 unknown; what says how it was seen. */
static int hypervisor(struct pb_check_ctx *ctx, char *what, size_t len)
{
	char flags[4096], type[32] = "", cpuid[64] = "";
	int f = pb_cpuinfo_flags(-1, flags, sizeof(flags));
	int flag = f == 1 && pb_has_word(flags, "hypervisor");

	if (pb_read_file("/sys/hypervisor/type", type, sizeof(type)) < 0 || !pb_is_name(type))
		type[0] = '\0';
	if (ctx->live)
		cpuid_hypervisor(cpuid, sizeof(cpuid));
	if (flag || type[0] || cpuid[0]) {
		snprintf(what, len, "%s%s%s%s%s%s", cpuid, cpuid[0] && (flag || type[0]) ? "; " : "",
			 flag ? "hypervisor flag in /proc/cpuinfo" : "", flag && type[0] ? "; " : "",
			 type[0] ? "/sys/hypervisor/type " : "", type);
		return 1;
	}
	snprintf(what, len, "%s", f == 1 ? "no hypervisor flag in /proc/cpuinfo" :
		 f < 0 && f != -ENOENT ? "cannot read /proc/cpuinfo" :
		 "no x86 flags in /proc/cpuinfo and no /sys/hypervisor/type");
	return f == 1 ? 0 : -1;
}

static void check_hypervisor(struct pb_check_ctx *ctx, int vm, const char *what)
{
	struct pbench_check_finding *c;

	if (vm <= 0) {
		pb_report(ctx, "virt.hypervisor", -1, vm ? PBENCH_CHECK_UNKNOWN : PBENCH_CHECK_OK,
			  NULL, "%s%s", vm ? "" : "bare metal: ", what);
		return;
	}
	c = pb_report(ctx, "virt.hypervisor", -1, PBENCH_CHECK_WARN, "bare metal",
		      "virtual machine: %s", what);
	pb_advise(c, "the hypervisor can run other work on this vCPU's physical CPU (steal time), "
		  "takes VM exits for timers, interrupts and some instructions (measured on the "
		  "development VM: 3.5 us for a CPUID, which always exits), and virtualizes the "
		  "timer and the PMU, or hides the PMU",
		  "measure on bare metal, or on a dedicated-CPU instance (vCPUs pinned to their "
		  "own physical cores)");
}

static double total_ticks(const struct pb_cpu_times *t)
{
	return (double)t->user + t->nice + t->system + t->idle + t->iowait + t->irq +
	       t->softirq + t->steal;
}

double pb_steal_window(const struct pb_cpu_times *a, const struct pb_cpu_times *b,
		       double window_ms, char *buf, size_t len)
{
	double total = total_ticks(b) - total_ticks(a), lo, hi;
	unsigned long long n = b->steal > a->steal ? b->steal - a->steal : 0;
	size_t at;

	buf[0] = '\0';
	if (!(total > 0))
		return -1;
	if (!pb_noise_steal_range(n, &lo, &hi)) {
		snprintf(buf, len, "%.2f%% over the last %.0f ms, ", 100.0 * (double)n / total,
			 window_ms);
		return 100.0 * lo / total;
	}
	if (n == 1)
		snprintf(buf, len, "up to %.3g%%", 100.0 * hi / total);
	else
		snprintf(buf, len, "between %.3g%% and %.3g%%", 100.0 * lo / total,
			 100.0 * hi / total);
	at = strlen(buf);
	snprintf(buf + at, len - at, " over the last %.0f ms", window_ms);
	at = strlen(buf);
	pb_noise_steal_note(buf + at, len - at, n);
	at = strlen(buf);
	snprintf(buf + at, len - at, ", ");
	return 100.0 * lo / total;
}

static void check_steal_cpu(struct pb_check_ctx *ctx, int cpu, int vm)
{
	const struct pb_cpu_times *a, *b;
	double boot, win = -1, share;
	char wtext[160] = "", btext[32];
	struct pbench_check_finding *c;

	if (cpu < 0 || cpu >= PB_MAX_CPUS || !ctx->t1[cpu].valid) {
		pb_report(ctx, "virt.steal", cpu, PBENCH_CHECK_UNKNOWN, NULL, "no cpu%d line in "
			  "/proc/stat", cpu);
		return;
	}
	a = &ctx->t0[cpu];
	b = &ctx->t1[cpu];
	boot = total_ticks(b) > 0 ? 100.0 * (double)b->steal / total_ticks(b) : 0;
	/* The window's share by what its ticks prove: one tick in 200 ms is anywhere from 0 to
	 * 10% and warned as 5.00% before. */
	if (ctx->window_ms > 0)
		win = pb_steal_window(a, b, ctx->window_ms, wtext, sizeof(wtext));
	if (boot == 0)
		snprintf(btext, sizeof(btext), "0%%");
	else if (boot < 0.01)
		snprintf(btext, sizeof(btext), "<0.01%%");
	else
		snprintf(btext, sizeof(btext), "%.2f%%", boot);
	share = win > boot ? win : boot;	/* steal comes in bursts: either one counts */
	c = pb_report(ctx, "virt.steal", cpu, share > 1 ? PBENCH_CHECK_WARN : share > 0 ?
		      PBENCH_CHECK_INFO : PBENCH_CHECK_OK, share > 0 ? "0%" : NULL,
		      "%s%s since boot%s", wtext, btext, boot == 0 && vm == 1 ? " (a hypervisor "
		      "that does not report steal time also shows 0)" : "");
	if (share > 0)
		pb_advise(c, "the hypervisor gave this vCPU's physical CPU to other work for that "
			  "share of the time: a timed region loses such time at random, in slices "
			  "as long as the host runs the other work",
			  "use a dedicated-CPU instance (no CPU overcommit) or pin the vCPUs to "
			  "their own host cores; or measure on bare metal");
}

void pb_check_virtualization(struct pb_check_ctx *ctx)
{
	char what[192];
	int vm = hypervisor(ctx, what, sizeof(what));

	check_hypervisor(ctx, vm, what);
	for (int i = 0; i < ctx->ncpus; i++)
		check_steal_cpu(ctx, ctx->cpus[i], vm);
}
