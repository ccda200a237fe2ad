/* SPDX-License-Identifier: MIT */
/*
 * Checks: timer (clocksource, invariant TSC), counters (perf_event_paranoid, rdpmc, is there a
 * PMU, sample rate) and virtualization (hypervisor, steal time). The memory group is in
 * env_mem.c.
 *
 * Every fact comes from a file through the root mapping, so a recorded tree gives the answers
 * of its machine; syscalls and CPUID only add to a finding when ctx->live is set.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PB_X86 1
#endif

#include "env.h"

#define CS_DIR "/sys/devices/system/clocksource/clocksource0"
#define PMU_DIR "/sys/bus/event_source/devices"
#define TSC_EXPECTED "constant_tsc nonstop_tsc"
/* What a clock read costs, measured on the development VM (a KVM guest, clocksource tsc):
 * clock_gettime() through the vDSO and forced through the syscall, and rdtsc. */
#define VDSO_NS "22 ns"
#define SYSCALL_NS "246 ns"
#define RDTSC_NS "10 ns"
#define MONO_COST "measured on the development VM: " VDSO_NS " per read, against " RDTSC_NS \
	" for rdtsc"

/* ---- helpers ---------------------------------------------------------------------------- */

/* A kernel object name (clocksource, hypervisor type): letters, digits, '_' and '-'. */
static int is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

/*
 * The flags line of cpu's block in /proc/cpuinfo (cpu -1: the first block). Returns 1 with the
 * flags, 0 when the block has none (not x86), -ENOENT for no such CPU, -errno if unreadable.
 */
static int cpuinfo_flags(int cpu, char *flags, size_t len)
{
	FILE *f = pb_fopen("/proc/cpuinfo");
	char *line = NULL, *colon;
	size_t cap = 0;
	int in = 0, found = -ENOENT, n;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "processor", 9)) {
			if (in)
				break;	/* the next CPU: ours had no flags line */
			in = cpu < 0 || (sscanf(colon + 1, "%d", &n) == 1 && n == cpu);
			found = in ? 0 : found;
		} else if (in && !strncmp(line, "flags", 5)) {
			snprintf(flags, len, "%s", colon + 1 + (colon[1] == ' '));
			flags[strcspn(flags, "\n")] = '\0';
			found = 1;
			break;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* ---- timer ------------------------------------------------------------------------------ */

static void check_clocksource(struct pb_env_ctx *ctx)
{
	/* Paravirtual clocks keep clock_gettime in the vDSO; the slow ones make it a syscall. */
	static const char pv[] = "kvm-clock hyperv_clocksource_tsc_page xen";
	static const char slow[] = "hpet acpi_pm jiffies refined-jiffies pit";
	static const char to_tsc[] = "echo tsc | sudo tee " CS_DIR "/current_clocksource";
	char cur[64], avail[256] = "?";
	struct pbench_check *c;
	int err = pb_read_file(CS_DIR "/current_clocksource", cur, sizeof(cur)), tsc;

	if (err < 0 || !is_name(cur)) {
		pb_check_unknown(ctx, "clock.source", -1, CS_DIR "/current_clocksource",
				 err < 0 ? err : -EINVAL);
		return;
	}
	if (pb_read_file(CS_DIR "/available_clocksource", avail, sizeof(avail)) < 0)
		snprintf(avail, sizeof(avail), "?");
	tsc = has_word(avail, "tsc");
	if (!strcmp(cur, "tsc") || !strcmp(cur, "arch_sys_counter")) {
		pb_report(ctx, "clock.source", -1, PBENCH_CHECK_OK, NULL, "%s", cur);
		return;
	}
	if (has_word(pv, cur)) {
		c = pb_report(ctx, "clock.source", -1, PBENCH_CHECK_INFO, "tsc",
			      "%s (available: %s)", cur, avail);
		pb_advise(c, "a paravirtual clock: clock_gettime stays in the vDSO (no syscall) "
			  "but does more work per read than with the TSC", tsc ? to_tsc : NULL);
		return;
	}
	if (has_word(slow, cur)) {
		c = pb_report(ctx, "clock.source", -1, PBENCH_CHECK_BAD, "tsc",
			      "%s (available: %s)", cur, avail);
		pb_check_set(c, c->why, "clock_gettime cannot use the vDSO with the %s "
			     "clocksource and becomes a syscall (measured on the development VM: "
			     SYSCALL_NS " per call forced through the syscall, against " VDSO_NS
			     " through the vDSO; reading %s itself comes on top and could not be "
			     "measured there), with a coarse resolution", cur, cur);
		pb_advise(c, NULL, tsc ? to_tsc : "the kernel marked the TSC unstable; if the TSC "
			  "is invariant (clock.tsc ok), add \"tsc=reliable\" to GRUB_CMDLINE_LINUX "
			  "in /etc/default/grub, then sudo update-grub and reboot");
		return;
	}
	pb_report(ctx, "clock.source", -1, PBENCH_CHECK_INFO, NULL, "%s (not known to pbench; "
		  "available: %s)", cur, avail);
}

static void check_tsc_cpu(struct pb_env_ctx *ctx, int cpu, int inv)
{
	char flags[4096], extra[96];
	struct pbench_check *c;
	int err = cpuinfo_flags(cpu, flags, sizeof(flags)), cons, nonstop, status;

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
	cons = has_word(flags, "constant_tsc");
	nonstop = has_word(flags, "nonstop_tsc");
	snprintf(extra, sizeof(extra), "%s%s%s%s", has_word(flags, "tsc_known_freq") ?
		 " tsc_known_freq" : "", has_word(flags, "tsc_reliable") ? " tsc_reliable" : "",
		 inv < 0 ? "" : "; CPUID invariant TSC ", inv < 0 ? "" : inv ? "yes" : "no");
	if (!has_word(flags, "tsc")) {
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
static void check_arm_counter(struct pb_env_ctx *ctx, int cpu)
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

void pb_check_timer(struct pb_env_ctx *ctx)
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

/* ---- counters --------------------------------------------------------------------------- */

static void check_paranoid(struct pb_env_ctx *ctx, const struct pb_proc_status *st)
{
	static const char expected[] = "<= 1 (or root / CAP_PERFMON)";
	static const char fix[] = "sudo sysctl -w kernel.perf_event_paranoid=1, or sudo setcap "
				  "cap_perfmon+ep $(which pbench)";
	int v, err = pbench_perf_paranoid(&v), priv = pb_has_cap(st, PB_CAP_PERFMON);
	const char *who;
	struct pbench_check *c;

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
static void check_user_access(struct pb_env_ctx *ctx, const char *pmu)
{
	static const char file[] = "/proc/sys/kernel/perf_user_access";
	struct pbench_check *c;
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

static void check_rdpmc(struct pb_env_ctx *ctx, const char *pmu)
{
	char path[128];
	struct pbench_check *c;
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
		pb_check_set(c, c->fix, "echo 1 | sudo tee %s", path);
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
	if (status != PBENCH_EVENT_OK && pbench_counters_read(cs, &k, 1) == 1)
		snprintf(why, len, "%s", k.reason);
	pbench_counters_free(cs);
	return status;
}

static void check_pmu(struct pb_env_ctx *ctx, const char *pmu)
{
	char reason[192] = "", path[128], what[96] = "no cpu PMU in " PMU_DIR;
	int st = ctx->live ? try_cycles(reason, sizeof(reason)) : PBENCH_EVENT_OK;
	struct pbench_check *c;
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

static void check_sample_rate(struct pb_env_ctx *ctx)
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

void pb_check_counters(struct pb_env_ctx *ctx)
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

/* ---- virtualization --------------------------------------------------------------------- */

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
static int hypervisor(struct pb_env_ctx *ctx, char *what, size_t len)
{
	char flags[4096], type[32] = "", cpuid[64] = "";
	int f = cpuinfo_flags(-1, flags, sizeof(flags));
	int flag = f == 1 && has_word(flags, "hypervisor");

	if (pb_read_file("/sys/hypervisor/type", type, sizeof(type)) < 0 || !is_name(type))
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

static void check_hypervisor(struct pb_env_ctx *ctx, int vm, const char *what)
{
	struct pbench_check *c;

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

static void check_steal_cpu(struct pb_env_ctx *ctx, int cpu, int vm)
{
	const struct pb_cpu_times *a, *b;
	double boot, win = -1, share;
	char wtext[64] = "", btext[32];
	struct pbench_check *c;

	if (cpu < 0 || cpu >= PB_MAX_CPUS || !ctx->t1[cpu].valid) {
		pb_report(ctx, "virt.steal", cpu, PBENCH_CHECK_UNKNOWN, NULL, "no cpu%d line in "
			  "/proc/stat", cpu);
		return;
	}
	a = &ctx->t0[cpu];
	b = &ctx->t1[cpu];
	boot = total_ticks(b) > 0 ? 100.0 * (double)b->steal / total_ticks(b) : 0;
	if (ctx->window_ms > 0 && total_ticks(b) > total_ticks(a)) {
		win = b->steal > a->steal ? 100.0 * (double)(b->steal - a->steal) /
					    (total_ticks(b) - total_ticks(a)) : 0;
		snprintf(wtext, sizeof(wtext), "%.2f%% over the last %.0f ms, ", win,
			 ctx->window_ms);
	}
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

void pb_check_virtualization(struct pb_env_ctx *ctx)
{
	char what[192];
	int vm = hypervisor(ctx, what, sizeof(what));

	check_hypervisor(ctx, vm, what);
	for (int i = 0; i < ctx->ncpus; i++)
		check_steal_cpu(ctx, ctx->cpus[i], vm);
}
