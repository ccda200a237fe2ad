/* SPDX-License-Identifier: MIT */
/*
 * Checks, timer group: the clocksource, the invariant TSC of each target CPU (x86), the
 * generic timer (arm64).
 *
 * Every fact comes from a file through the root mapping, so a recorded tree gives the answers
 * of its machine; syscalls and CPUID only add to a finding when ctx->live is set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "counters/counters.h"
#include "check/check.h"

#define CS_DIR "/sys/devices/system/clocksource/clocksource0"
#define TSC_EXPECTED "constant_tsc nonstop_tsc"
/* What a clock read costs, measured on the development VM (a KVM guest, clocksource tsc):
 * clock_gettime() through the vDSO and forced through the syscall, and rdtsc. */
#define VDSO_NS "22 ns"
#define SYSCALL_NS "246 ns"
#define RDTSC_NS "10 ns"
#define MONO_COST "measured on the development VM: " VDSO_NS " per read, against " RDTSC_NS \
	" for rdtsc"

static void check_clocksource(struct pb_check_ctx *ctx)
{
	/* Paravirtual clocks keep clock_gettime in the vDSO; the slow ones make it a syscall. */
	static const char pv[] = "kvm-clock hyperv_clocksource_tsc_page xen";
	static const char slow[] = "hpet acpi_pm jiffies refined-jiffies pit";
	static const char to_tsc[] = "echo tsc | sudo tee " CS_DIR "/current_clocksource";
	char cur[64], avail[256] = "?", boot[256];
	struct pbench_check_finding *c;
	int err = pb_read_file(CS_DIR "/current_clocksource", cur, sizeof(cur)), tsc;

	if (err < 0 || !pb_is_name(cur)) {
		pb_check_unknown(ctx, "clock.source", -1, CS_DIR "/current_clocksource",
				 err < 0 ? err : -EINVAL);
		return;
	}
	if (pb_read_file(CS_DIR "/available_clocksource", avail, sizeof(avail)) < 0)
		snprintf(avail, sizeof(avail), "?");
	tsc = pb_has_word(avail, "tsc");
	if (!strcmp(cur, "tsc") || !strcmp(cur, "arch_sys_counter")) {
		pb_report(ctx, "clock.source", -1, PBENCH_CHECK_OK, NULL, "%s", cur);
		return;
	}
	if (pb_has_word(pv, cur)) {
		c = pb_report(ctx, "clock.source", -1, PBENCH_CHECK_INFO, "tsc",
			      "%s (available: %s)", cur, avail);
		pb_advise(c, "a paravirtual clock: clock_gettime stays in the vDSO (no syscall) "
			  "but does more work per read than with the TSC", tsc ? to_tsc : NULL);
		return;
	}
	if (pb_has_word(slow, cur)) {
		c = pb_report(ctx, "clock.source", -1, PBENCH_CHECK_BAD, "tsc",
			      "%s (available: %s)", cur, avail);
		pb_check_set(c, &c->why, "clock_gettime cannot use the vDSO with the %s "
			     "clocksource and becomes a syscall (measured on the development VM: "
			     SYSCALL_NS " per call forced through the syscall, against " VDSO_NS
			     " through the vDSO; reading %s itself comes on top and could not be "
			     "measured there), with a coarse resolution", cur, cur);
		if (tsc)
			pb_advise(c, NULL, to_tsc);
		else
			pb_check_set(c, &c->fix, "the kernel marked the TSC unstable; if the TSC is "
				     "invariant (clock.tsc ok): %s", pb_boot_fix(ctx, boot,
				     sizeof(boot), "tsc=reliable"));
		return;
	}
	pb_report(ctx, "clock.source", -1, PBENCH_CHECK_INFO, NULL, "%s (not known to pbench; "
		  "available: %s)", cur, avail);
}

static void check_tsc_cpu(struct pb_check_ctx *ctx, int cpu, int inv)
{
	char flags[4096], extra[96];
	struct pbench_check_finding *c;
	int err = pb_cpuinfo_flags(cpu, flags, sizeof(flags)), cons, nonstop, status;

	if (err == -ENOENT && pb_exists("/proc/cpuinfo")) {
		pb_report(ctx, "clock.tsc", cpu, PBENCH_CHECK_UNKNOWN, NULL, "no processor %d in "
			  "/proc/cpuinfo", cpu);
		return;
	}
	if (err < 0) {
		pb_check_unknown(ctx, "clock.tsc", cpu, "/proc/cpuinfo", err);
		return;
	}
	if (err == 0) {
		pb_report(ctx, "clock.tsc", cpu, PBENCH_CHECK_INFO, NULL, "no x86 flags in "
			  "/proc/cpuinfo: no TSC; pbench times with CLOCK_MONOTONIC_RAW");
		return;
	}
	cons = pb_has_word(flags, "constant_tsc");
	nonstop = pb_has_word(flags, "nonstop_tsc");
	snprintf(extra, sizeof(extra), "%s%s%s%s", pb_has_word(flags, "tsc_known_freq") ?
		 " tsc_known_freq" : "", pb_has_word(flags, "tsc_reliable") ? " tsc_reliable" : "",
		 inv < 0 ? "" : "; CPUID invariant TSC ", inv < 0 ? "" : inv ? "yes" : "no");
	if (!pb_has_word(flags, "tsc")) {
		c = pb_report(ctx, "clock.tsc", cpu, PBENCH_CHECK_BAD, TSC_EXPECTED,
			      "no tsc flag%s", extra);
		pb_advise(c, "there is no TSC: pbench times with CLOCK_MONOTONIC_RAW (" VDSO_NS
			  " per read on the development VM), without cycle-level resolution",
			  "measure on a CPU (or VM) that exposes an invariant TSC");
		return;
	}
	status = cons && nonstop && inv ? PBENCH_CHECK_OK : cons ? PBENCH_CHECK_WARN
								: PBENCH_CHECK_BAD;
	c = pb_report(ctx, "clock.tsc", cpu, status,
		      status != PBENCH_CHECK_OK ? TSC_EXPECTED : NULL,
		      "%sconstant_tsc %snonstop_tsc%s", cons ? "" : "no ", nonstop ? "" : "no ",
		      extra);
	if (status == PBENCH_CHECK_OK)
		return;
	pb_advise(c, cons ? "the TSC may stop in deep C-states, so pbench does not trust it as a "
			    "clock and times with CLOCK_MONOTONIC_RAW (" MONO_COST ")"
			  : "the TSC rate follows the CPU frequency, so its ticks are not time: "
			    "pbench times with CLOCK_MONOTONIC_RAW (" MONO_COST ")",
		  "in a VM, expose the invariant TSC (QEMU/KVM: -cpu host,+invtsc; libvirt: "
		  "<feature policy='require' name='invtsc'/>); on bare metal, a CPU without one "
		  "cannot be fixed");
}

/* 1 if /proc/cpuinfo describes an arm CPU ("CPU implementer" lines, no x86 flags). */
static int cpuinfo_arm(void)
{
	FILE *f = pb_fopen("/proc/cpuinfo");
	char *line = NULL;
	size_t cap = 0;
	int arm = 0;

	if (!f)
		return 0;
	while (!arm && getline(&line, &cap, f) > 0)
		arm = !strncmp(line, "CPU implementer", 15);
	free(line);
	fclose(f);
	return arm;
}

/* arm64: no TSC and no CPUID; the architected generic timer, whose virtual counter
 * (CNTVCT_EL0) user space reads directly, as pbench does, when the kernel's clocksource is
 * arch_sys_counter. Its frequency is live only (the perf page or CNTFRQ_EL0). */
static void check_arm_counter(struct pb_check_ctx *ctx, int cpu)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	char freq[96] = "";

	if (ctx->live && !pbench_clock_info(&ci) && ci.kind == PBENCH_CLOCK_CNTVCT)
		snprintf(freq, sizeof(freq), " (%.3f MHz from %s, %.0f ns resolution)",
			 (double)ci.hz / 1e6, pbench_freq_source_name(ci.freq_source),
			 ci.resolution_ns);
	pb_report(ctx, "clock.tsc", cpu, PBENCH_CHECK_OK, NULL, "arm64: no TSC; pbench times "
		  "with the generic timer's CNTVCT_EL0, read with ISBs%s", freq);
}

void pb_check_timer(struct pb_check_ctx *ctx)
{
	int inv = ctx->live ? pb_cpuid_invariant_tsc() : -1;
	int arm = cpuinfo_arm();

	check_clocksource(ctx);
	for (int i = 0; i < ctx->ncpus; i++) {
		if (arm)
			check_arm_counter(ctx, ctx->cpus[i]);
		else
			check_tsc_cpu(ctx, ctx->cpus[i], inv);
	}
}
