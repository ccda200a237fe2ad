/* SPDX-License-Identifier: MIT */
/*
 * Derived metrics (perf stat's "# 1.23 insn per cycle"): the table of what pbench can derive
 * from counted events, which events each needs on this CPU (generic perf events, or the
 * events libpfm4 names for the detected PMU: the L1D and LLC misses, topdown level 1), and
 * one run's value from its counts. Each metric is made from one run's counts and then
 * summarized over the runs (runs/runs_summary.c), so that it has an interval as an event has.
 * The event list a set of metrics needs keeps each metric's hardware events in one group
 * ("{a,b}" in the list, counters.c), so that they count in the same time window.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Our headers first: their linux/perf_event.h makes libpfm4 skip its own older copy. */
#include "base/base.h"
#include "counters/counters.h"

#include <perfmon/pfmlib.h>

enum calc {
	C_PER_WALL,		/* v0 (ns) / wall ns */
	C_PER_SEC,		/* v0 / (v1 ns / 1e9): perf's "/sec" on task-clock */
	C_GHZ,			/* v0 / v1 (cycles per ns) */
	C_RATIO,		/* v0 / v1 */
	C_PCT,			/* 100 v0 / v1 */
	C_PER_KILO,		/* 1000 v0 / v1 */
	C_PER_ITER,		/* v0 / iterations */
	C_TD_ICL_RETIRING,	/* Intel: v1 / v0 with v0 TOPDOWN.SLOTS */
	C_TD_ICL_FRONTEND,	/* v2 / v0 */
	C_TD_ICL_BACKEND,	/* v3 / v0 */
	C_TD_ICL_BADSPEC,	/* 1 - the three others */
	C_TD_ZEN4_RETIRING,	/* AMD Zen 4: v1 / (6 v0), v0 cycles */
	C_TD_ZEN4_FRONTEND,	/* v2 / (6 v0) */
	C_TD_ZEN4_BACKEND,	/* v3 / (6 v0) */
	C_TD_ZEN4_BADSPEC,	/* (v4 - v1) / (6 v0) */
	C_TD_ARM_RETIRING,	/* Arm SBSA: v4 / v5 x (1 - stall), stall = v3 / (slots v0) */
	C_TD_ARM_FRONTEND,	/* v1 / (slots v0) */
	C_TD_ARM_BACKEND,	/* v2 / (slots v0) */
	C_TD_ARM_BADSPEC,	/* (1 - v4 / v5) x (1 - stall) */
};
/* Or'ed into an Arm topdown calc: Neoverse N2, whose STALL_SLOT and STALL_SLOT_FRONTEND count
 * one slot a cycle too many (perf's neoverse-n2-v2 metrics take cpu_cycles off them where the
 * PMU has 5 slots). */
#define TD_ARM_N2 0x100

/* The events of a metric on one family of PMUs: pmu is a libpfm4 PMU name or several
 * separated by spaces ("arm_n1 arm_n2"); NULL: the generic perf events, the same on every
 * CPU. */
struct variant {
	const char *pmu;
	const char *events;
	int calc;
};

#define MAX_VARIANTS 8

struct metric {
	const char *name, *group, *label, *formula, *unit, *anchor, *trust, *na;
	struct variant v[MAX_VARIANTS];
};

#define GENERIC(ev, c) { { NULL, ev, c } }

#define ICL_PMUS(c) { "icl", ICL_TD, c }, { "icx", ICL_TD, c }, { "spr", ICL_TD, c }
#define ICL_TD "TOPDOWN:SLOTS,UOPS_RETIRED:SLOTS,IDQ_UOPS_NOT_DELIVERED:CORE," \
	       "TOPDOWN:BACKEND_BOUND_SLOTS"
#define ZEN4_TD "CYCLES_NOT_IN_HALT,RETIRED_OPS,DISPATCH_STALLS_1:FE_NO_OPS," \
		"DISPATCH_STALLS_1:BE_STALLS,OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:" \
		"LOOP_BUFFER"
/* Arm's SBSA level 1 (perf's arch/arm64/sbsa.json): the STALL_SLOT events of PMUv3.4, with
 * the slots a cycle from the PMU (PMMIR_EL1.SLOTS, sysfs caps/slots); OP_RETIRED / OP_SPEC
 * splits the slots that issued into retiring and bad speculation. The Neoverse N1 and the
 * older cores have no slot events. */
#define ARM_TD "CPU_CYCLES,STALL_SLOT_FRONTEND,STALL_SLOT_BACKEND,STALL_SLOT,OP_RETIRED,OP_SPEC"
#define ARM_TD_PMUS "arm_v1 arm_v2 arm_n3 arm_v3"
#define ARM_PMUS(c) { "arm_n2", ARM_TD, (c) | TD_ARM_N2 }, { ARM_TD_PMUS, ARM_TD, c }
/* libpfm4's Armv8/v9 core PMUs, each with the architectural L1D_CACHE_REFILL (event 0x03) */
#define ARM_L1D_PMUS "arm_ac53 arm_ac55 arm_ac57 arm_ac72 arm_ac76 arm_xgene arm_thunderx2 " \
		     "arm_a64fx arm_kunpeng arm_n1 arm_n2 arm_n3 arm_v1 arm_v2 arm_v3"
#define TD_NA "this CPU's PMU has no slot events pbench knows through libpfm4: Intel's " \
	      "TOPDOWN.SLOTS (Icelake and later: icl, icx, spr), AMD Zen 4's dispatch slots " \
	      "or Arm's STALL_SLOT events (PMUv3.4: Neoverse N2, V1, V2; not the N1)"
#define TD_TRUST "the slots of one group, without multiplexing; a fraction of all issue " \
		 "slots, the four adding up to 1"

static const struct metric metrics[] = {
	{ "cpus-utilized", "default", "CPUs utilized", "task-clock / wall time", "CPUs",
	  "task-clock", "always: task-clock is the kernel's own accounting of the time on a CPU",
	  NULL, GENERIC("task-clock", C_PER_WALL) },
	{ "cs-per-sec", "default", "context switches per second", "context-switches / "
	  "task-clock", "/sec", "context-switches", "always (a software event); per second "
	  "of task-clock, as perf stat's", NULL, GENERIC("context-switches,task-clock",
							 C_PER_SEC) },
	{ "migrations-per-sec", "default", "migrations per second", "cpu-migrations / "
	  "task-clock", "/sec", "cpu-migrations", "always (a software event)", NULL,
	  GENERIC("cpu-migrations,task-clock", C_PER_SEC) },
	{ "faults-per-sec", "default", "page faults per second", "page-faults / task-clock",
	  "/sec", "page-faults", "always (a software event)", NULL,
	  GENERIC("page-faults,task-clock", C_PER_SEC) },
	{ "ghz", "cycles", "GHz", "cycles / task-clock", "GHz", "cycles", "when cycles is not "
	  "multiplexed; in a VM the cycles of the vCPU's time, in QEMU's TCG virtual time",
	  NULL, GENERIC("cycles,task-clock", C_GHZ) },
	{ "ipc", "cycles", "insn per cycle", "instructions / cycles", "", "instructions",
	  "when both count in one group (same window); under QEMU -icount both are virtual "
	  "time, so IPC is 1", NULL, GENERIC("instructions,cycles", C_RATIO) },
	{ "cpi", "cycles", "cycles per insn", "cycles / instructions", "", NULL, "as ipc",
	  NULL, GENERIC("cycles,instructions", C_RATIO) },
	{ "branch-miss-pct", "branches", "of all branches", "100 * branch-misses / branches",
	  "%", "branch-misses", "when both count in one group; the CPU's own idea of a branch",
	  NULL, GENERIC("branch-misses,branches", C_PCT) },
	{ "branch-mpki", "branches", "branch misses per 1000 insn", "1000 * branch-misses / "
	  "instructions", "MPKI", NULL, "when both count in one group", NULL,
	  GENERIC("branch-misses,instructions", C_PER_KILO) },
	{ "cache-miss-pct", "cache", "of all cache refs", "100 * cache-misses / "
	  "cache-references", "%", "cache-misses", "the kernel maps these to the last-level "
	  "cache on x86, to L1D or L2 on Arm: read it beside the CPU's definition", NULL,
	  GENERIC("cache-misses,cache-references", C_PCT) },
	{ "l1d-mpki", "cache", "L1D misses per 1000 insn", "1000 * L1D misses / instructions",
	  "MPKI", NULL, "the CPU's L1D refill event (Intel L1D.REPLACEMENT, AMD data cache "
	  "fills, Arm L1D_CACHE_REFILL), which counts prefetches too",
	  "libpfm4 names no L1D miss event for this CPU's PMU",
	  { { ARM_L1D_PMUS, "L1D_CACHE_REFILL,instructions", C_PER_KILO },
	    { "skl", "L1D:REPLACEMENT,instructions", C_PER_KILO },
	    { "icl", "L1D:REPLACEMENT,instructions", C_PER_KILO },
	    { "icx", "L1D:REPLACEMENT,instructions", C_PER_KILO },
	    { "spr", "L1D:REPLACEMENT,instructions", C_PER_KILO },
	    { "amd64_fam19h_zen3", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:INT_CACHE:"
	      "EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT,instructions", C_PER_KILO },
	    { "amd64_fam19h_zen4", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:LOCAL_CCX:"
	      "NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR,"
	      "instructions", C_PER_KILO } } },
	{ "llc-mpki", "cache", "LLC misses per 1000 insn", "1000 * LLC misses / instructions",
	  "MPKI", NULL, "Intel's LONGEST_LAT_CACHE.MISS counts the core's demand and prefetch "
	  "misses of the L3", "pbench has no per-core last-level cache miss event for this "
	  "CPU's PMU (AMD counts the L3 in its own amd_l3 PMU, per CCX, not per task; Arm's "
	  "LL_CACHE_MISS_RD is not in its table)",
	  { { "skl", "LONGEST_LAT_CACHE:MISS,instructions", C_PER_KILO },
	    { "icl", "LONGEST_LAT_CACHE:MISS,instructions", C_PER_KILO },
	    { "icx", "LONGEST_LAT_CACHE:MISS,instructions", C_PER_KILO },
	    { "spr", "LONGEST_LAT_CACHE:MISS,instructions", C_PER_KILO } } },
	{ "frontend-stall-pct", "stalls", "frontend cycles idle", "100 * "
	  "stalled-cycles-frontend / cycles", "%", "stalled-cycles-frontend", "where the kernel "
	  "maps the event (Arm STALL_FRONTEND, older AMD); Intel has none", NULL,
	  GENERIC("stalled-cycles-frontend,cycles", C_PCT) },
	{ "backend-stall-pct", "stalls", "backend cycles idle", "100 * stalled-cycles-backend "
	  "/ cycles", "%", "stalled-cycles-backend", "as frontend-stall-pct", NULL,
	  GENERIC("stalled-cycles-backend,cycles", C_PCT) },
	{ "topdown-retiring", "topdown", "retiring", "retired slots / all slots", "slots",
	  NULL, TD_TRUST, TD_NA,
	  { ICL_PMUS(C_TD_ICL_RETIRING), { "amd64_fam19h_zen4", ZEN4_TD, C_TD_ZEN4_RETIRING },
	  ARM_PMUS(C_TD_ARM_RETIRING) } },
	{ "topdown-bad-spec", "topdown", "bad speculation", "Intel: 1 - the three others; "
	  "AMD: (dispatched - retired ops) / slots; Arm: (1 - OP_RETIRED / OP_SPEC) x the "
	  "slots that issued", "slots", NULL, TD_TRUST, TD_NA,
	  { ICL_PMUS(C_TD_ICL_BADSPEC), { "amd64_fam19h_zen4", ZEN4_TD, C_TD_ZEN4_BADSPEC },
	  ARM_PMUS(C_TD_ARM_BADSPEC) } },
	{ "topdown-frontend", "topdown", "frontend bound", "slots the frontend left empty / "
	  "all slots", "slots", NULL, TD_TRUST, TD_NA,
	  { ICL_PMUS(C_TD_ICL_FRONTEND), { "amd64_fam19h_zen4", ZEN4_TD, C_TD_ZEN4_FRONTEND },
	  ARM_PMUS(C_TD_ARM_FRONTEND) } },
	{ "topdown-backend", "topdown", "backend bound", "slots stalled by the backend / all "
	  "slots", "slots", NULL, TD_TRUST, TD_NA,
	  { ICL_PMUS(C_TD_ICL_BACKEND), { "amd64_fam19h_zen4", ZEN4_TD, C_TD_ZEN4_BACKEND },
	  ARM_PMUS(C_TD_ARM_BACKEND) } },
	{ "insn-per-iter", "per-iteration", "insn per iteration", "instructions:u / iterations",
	  "", NULL, "for the built-in workloads; the loop's own with -e instructions:u (exact "
	  "under QEMU -icount but for the counters' start and stop spread over the "
	  "iterations); beside the default events it takes their instructions, the kernel's "
	  "interrupts included", "not a built-in workload: no iteration count",
	  GENERIC("instructions:u", C_PER_ITER) },
	{ "cycles-per-iter", "per-iteration", "cycles per iteration", "cycles:u / iterations",
	  "", NULL, "as insn-per-iter", "not a built-in workload: no iteration count",
	  GENERIC("cycles:u", C_PER_ITER) },
};

#define NR_METRICS ((int)(sizeof(metrics) / sizeof(metrics[0])))

int pbench_metric_nr(void)
{
	return NR_METRICS;
}

/* The libpfm4 PMU this machine's events resolve on (the first present hardware PMU other than
 * the generic perf ones), or NULL. LIBPFM_FORCE_PMU makes it the forced one. */
static const char *present_pmu(void)
{
	static char name[64];

	if (pb_pfm_init())
		return NULL;
	name[0] = 0;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    !pi.name || !strncmp(pi.name, "perf", 4) || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(name, sizeof(name), "%s", pi.name);
		return name;
	}
	return NULL;
}

/* 1 if pmu is one of the space-separated names of list. */
static int pmu_in(const char *list, const char *pmu)
{
	size_t len = strlen(pmu);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " ");

		if (n == len && !strncmp(p, pmu, n))
			return 1;
		p += n + (p[n] == ' ');
	}
	return 0;
}

/* The variant of metric m for this CPU: the generic one, or the one of the present PMU. */
static const struct variant *variant_of(int m)
{
	const struct metric *mt = &metrics[m];
	const char *pmu = NULL;
	int looked = 0;

	for (int k = 0; k < MAX_VARIANTS && mt->v[k].events; k++) {
		if (!mt->v[k].pmu)
			return &mt->v[k];
		if (!looked++)
			pmu = present_pmu();
		if (pmu && pmu_in(mt->v[k].pmu, pmu))
			return &mt->v[k];
	}
	return NULL;
}

/*
 * The Arm core PMU of this machine as the kernel describes it (arm_pmuv3: armv8_pmuv3,
 * armv8_neoverse_n1, armv9_neoverse_n2...). Its events/ directory lists the architectural
 * events the CPU implements (PMCEID0/1_EL0; the kernel hides the others), while a raw event
 * number opens whether implemented or not and then counts 0 (QEMU's PMUv3 implements a few:
 * no L1D_CACHE_REFILL). caps/slots is PMMIR_EL1.SLOTS, the issue slots a cycle (0 or absent
 * before PMUv3.4). Read once.
 */
static struct {
	char name[64];			/* "" : no Arm core PMU here */
	unsigned char common[0x40];	/* event n (0x00-0x3f) implemented */
	long slots;
} arm;
static pthread_once_t arm_once = PTHREAD_ONCE_INIT;

static void arm_events(void)
{
	char sys[512], path[4096], buf[128];
	struct dirent *d;
	DIR *dir;

	snprintf(sys, sizeof(sys), "/sys/bus/event_source/devices/%s/events", arm.name);
	if (pb_path(path, sizeof(path), sys) || !(dir = opendir(path)))
		return;
	while ((d = readdir(dir))) {
		char f[512];
		const char *e;

		if (d->d_name[0] == '.' || strlen(d->d_name) > 200)
			continue;
		snprintf(f, sizeof(f), "/sys/bus/event_source/devices/%s/events/%s", arm.name,
			 d->d_name);
		if (pb_read_file(f, buf, sizeof(buf)) > 0 && (e = strstr(buf, "event=")))
		{
			unsigned long n = strtoul(e + 6, NULL, 0);

			if (n < sizeof(arm.common))
				arm.common[n] = 1;
		}
	}
	closedir(dir);
}

static void arm_read(void)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;

	if (pb_path(path, sizeof(path), "/sys/bus/event_source/devices") ||
	    !(dir = opendir(path)))
		return;
	while ((d = readdir(dir)))
		if ((!strncmp(d->d_name, "armv8_", 6) || !strncmp(d->d_name, "armv9_", 6)) &&
		    strlen(d->d_name) < sizeof(arm.name)) {
			snprintf(arm.name, sizeof(arm.name), "%s", d->d_name);
			break;
		}
	closedir(dir);
	if (!arm.name[0])
		return;
	arm_events();
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps/slots", arm.name);
	if (pb_read_long(path, &arm.slots))
		arm.slots = 0;
}

/* Why variant v cannot be made on this Arm CPU (into why, 1), or 0: an architectural event
 * of its list that the PMU does not implement (it would count 0, never a miss), or topdown
 * without the PMU's slots a cycle. Nothing to say on a machine without an Arm core PMU. */
static int arm_missing(const struct variant *v, char *why, size_t len)
{
	pthread_once(&arm_once, arm_read);
	if (!arm.name[0])
		return 0;
	for (const char *p = v->events; *p;) {
		size_t n = strcspn(p, ",");
		struct pb_event ev;
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n + (p[n] == ',');
		if (pb_event_resolve(name, &ev) || ev.attr.type != PERF_TYPE_RAW ||
		    ev.attr.config >= sizeof(arm.common) || arm.common[ev.attr.config])
			continue;
		snprintf(why, len, "this CPU's PMU does not implement %s (event 0x%02llx: not "
			 "among /sys/bus/event_source/devices/%s/events, from PMCEID0/1_EL0); "
			 "opened, it would count 0", name, (unsigned long long)ev.attr.config,
			 arm.name);
		return 1;
	}
	if ((v->calc & ~TD_ARM_N2) >= C_TD_ARM_RETIRING && arm.slots <= 0) {
		snprintf(why, len, "this CPU's PMU does not say its issue slots a cycle "
			 "(/sys/bus/event_source/devices/%s/caps/slots, PMMIR_EL1.SLOTS)",
			 arm.name);
		return 1;
	}
	return 0;
}

/* Metric m's events (or NULL) and why it cannot be made here (or NULL): *reason set when the
 * PMU has no variant of it, or its variant's events cannot count here. */
static const char *events_of(int m, const char **reason)
{
	const struct variant *v = variant_of(m);
	char why[400];

	*reason = NULL;
	if (!v) {
		const char *pmu = present_pmu();

		snprintf(why, sizeof(why), "%s (libpfm4's PMU here: %s)", metrics[m].na,
			 pmu ? pmu : "none detected");
		*reason = pb_intern(why);
		return NULL;
	}
	if (v->pmu && arm_missing(v, why, sizeof(why)))
		*reason = pb_intern(why);
	return v->events;
}

const char *pb_metric_events(int m, const char **reason)
{
	const char *ev;

	*reason = NULL;
	if (m < 0 || m >= NR_METRICS)
		return NULL;
	ev = events_of(m, reason);
	return *reason ? NULL : ev;
}

int pb_metric_calc(int m)
{
	const struct variant *v = m >= 0 && m < NR_METRICS ? variant_of(m) : NULL;

	return v ? v->calc : -1;
}

const char *pb_metric_name(int m)
{
	return m >= 0 && m < NR_METRICS ? metrics[m].name : NULL;
}

const char *pb_metric_anchor(int m)
{
	return m >= 0 && m < NR_METRICS ? metrics[m].anchor : NULL;
}

const char *pb_metric_label(int m)
{
	return m >= 0 && m < NR_METRICS ? metrics[m].label : NULL;
}

const char *pb_metric_unit(int m)
{
	return m >= 0 && m < NR_METRICS ? metrics[m].unit : NULL;
}

int pb_metric_per_iteration(int m)
{
	return m >= 0 && m < NR_METRICS && !strcmp(metrics[m].group, "per-iteration");
}

/* The metrics whose higher value is the better one: the work done per cycle, the clock's
 * speed, the share of slots that retired. Every other metric, as the time, is better lower
 * (cpus-utilized too: the CPUs a command burns for its work). A gate fails on the worse side. */
int pb_metric_higher_better(int m)
{
	static const char *const higher[] = { "ipc", "ghz", "topdown-retiring" };

	for (size_t k = 0; m >= 0 && m < NR_METRICS && k < sizeof(higher) / sizeof(*higher); k++)
		if (!strcmp(metrics[m].name, higher[k]))
			return 1;
	return 0;
}

int pb_metric_find(const char *name)
{
	for (int m = 0; name && m < NR_METRICS; m++)
		if (!strcasecmp(metrics[m].name, name))
			return m;
	return -1;
}

int pb_metric_list_check(const char *list)
{
	const char *p = list;
	size_t n;

	if (!list)
		return 0;
	if (!*list)
		return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "empty metric list (-M takes names "
				   "or groups, one comma between each: 'pbench list "
				   "--metrics' shows them)");
	for (;; p += n + 1) {
		n = strcspn(p, ",");
		if (!n)
			return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed metric list "
					   "'%s': empty name %s (-M takes names or groups, "
					   "one comma between each)", list, p == list ?
					   "before the first comma" : !p[0] ?
					   "after the last comma" : "between commas");
		if (!p[n])
			return 0;
	}
}

/* The metrics a comma-separated list of names and groups selects, into sel[NR_METRICS]. */
int pb_metric_select(const char *list, unsigned char *sel)
{
	char *copy, *save = NULL;
	int err = pb_metric_list_check(list);

	if (err)
		return err;
	if (!list || !(copy = strdup(list)))
		return list ? -ENOMEM : -EINVAL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int hit = 0;

		for (int m = 0; m < NR_METRICS; m++)
			if (!strcasecmp(w, metrics[m].name) || !strcasecmp(w, metrics[m].group) ||
			    !strcasecmp(w, "all"))
				sel[m] = hit = 1;
		if (!hit) {
			err = pb_fail_msg(-PBENCH_EUNKNOWN_EVENT, "unknown metric '%s' (see "
					  "'pbench list --metrics' for the names and groups)",
					  w);
			break;
		}
	}
	free(copy);
	return err;
}

/* Arm's SBSA topdown level 1 from v = CPU_CYCLES, STALL_SLOT_FRONTEND, STALL_SLOT_BACKEND,
 * STALL_SLOT, OP_RETIRED, OP_SPEC and the PMU's slots a cycle. */
static double arm_topdown(int calc, const double *v, int nv)
{
	double slots, fe, stall, fix;

	pthread_once(&arm_once, arm_read);
	if (nv < 6 || v[0] <= 0 || v[5] <= 0 || arm.slots <= 0)
		return NAN;
	slots = (double)arm.slots * v[0];
	fix = calc & TD_ARM_N2 && arm.slots == 5 ? v[0] : 0;
	fe = (v[1] - fix) / slots;
	stall = (v[3] - fix) / slots;
	switch (calc & ~TD_ARM_N2) {
	case C_TD_ARM_RETIRING:
		return v[4] / v[5] * (1 - stall);
	case C_TD_ARM_FRONTEND:
		return fe;
	case C_TD_ARM_BACKEND:
		return v[2] / slots;
	case C_TD_ARM_BADSPEC:
		return (1 - v[4] / v[5]) * (1 - stall);
	}
	return NAN;
}

double pb_metric_value(int calc, const double *v, int nv, double wall_ns, double iterations)
{
	double slots;

	if (nv < 1)
		return NAN;
	switch (calc) {
	case C_PER_WALL:
		return wall_ns > 0 ? v[0] / wall_ns : NAN;
	case C_PER_SEC:
		return nv > 1 && v[1] > 0 ? v[0] / (v[1] / 1e9) : NAN;
	case C_GHZ:
	case C_RATIO:
		return nv > 1 && v[1] > 0 ? v[0] / v[1] : NAN;
	case C_PCT:
		return nv > 1 && v[1] > 0 ? 100.0 * v[0] / v[1] : NAN;
	case C_PER_KILO:
		return nv > 1 && v[1] > 0 ? 1000.0 * v[0] / v[1] : NAN;
	case C_PER_ITER:
		return iterations > 0 ? v[0] / iterations : NAN;
	}
	if ((calc & ~TD_ARM_N2) >= C_TD_ARM_RETIRING)
		return arm_topdown(calc, v, nv);
	if (calc >= C_TD_ICL_RETIRING && calc <= C_TD_ICL_BADSPEC) {
		if (nv < 4 || v[0] <= 0)
			return NAN;
		switch (calc) {
		case C_TD_ICL_RETIRING:
			return v[1] / v[0];
		case C_TD_ICL_FRONTEND:
			return v[2] / v[0];
		case C_TD_ICL_BACKEND:
			return v[3] / v[0];
		default:
			return 1.0 - (v[1] + v[2] + v[3]) / v[0];
		}
	}
	if (nv < 5 || v[0] <= 0)
		return NAN;
	slots = 6.0 * v[0];	/* Zen 4 dispatches 6 ops a cycle (PPR 19h model 11h) */
	switch (calc) {
	case C_TD_ZEN4_RETIRING:
		return v[1] / slots;
	case C_TD_ZEN4_FRONTEND:
		return v[2] / slots;
	case C_TD_ZEN4_BACKEND:
		return v[3] / slots;
	case C_TD_ZEN4_BADSPEC:
		return (v[4] - v[1]) / slots;
	}
	return NAN;
}

int pbench_metric_get(int i, struct pbench_metric_info *out)
{
	struct pbench_metric_info one = { .size = sizeof(one) };
	const struct metric *mt;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_metric_info, 0, NULL)))
		return err;
	if (i < 0 || i >= NR_METRICS)
		return -ENOENT;
	mt = &metrics[i];
	one.name = mt->name;
	one.group = mt->group;
	one.label = mt->label;
	one.formula = mt->formula;
	one.unit = mt->unit;
	one.trust = mt->trust;
	one.events = events_of(i, &one.reason);
	if (!one.events)
		one.events = "";
	one.available = -1;
	one.higher_is_better = pb_metric_higher_better(i);
	pb_copy_out(out, &one, sizeof(one));
	return 0;
}

/* Whether metric i's events open here: each opened on the calling thread, disabled, closed. */
int pbench_metric_probe(int i, struct pbench_metric_info *out)
{
	struct pbench_counters *c = NULL;
	struct pbench_counters_opts o = PBENCH_COUNTERS_OPTS_INIT;
	int err = pbench_metric_get(i, out), n;

	if (err)
		return err;
	if (!*out->events || out->reason) {
		out->available = 0;
		return 0;
	}
	o.flags |= PBENCH_COUNTERS_QUIET;
	err = pbench_counters_open(&c, out->events, &o);
	if (err && err != -PBENCH_ENO_EVENTS) {
		out->available = 0;
		out->reason = pb_intern(pbench_strerror(err));
		return 0;
	}
	out->available = 1;
	n = pbench_counters_nr(c);
	pbench_counters_read(c);
	for (int e = 0; e < n; e++) {
		struct pbench_count k = { .size = sizeof(k) };
		char why[320];

		if (pbench_counters_open_status(c, e) == PBENCH_EVENT_OK)
			continue;
		pbench_counters_get(c, e, &k);
		snprintf(why, sizeof(why), "%s: %s", pbench_counters_name(c, e),
			 k.reason && *k.reason ? k.reason :
			 pbench_event_status_name(pbench_counters_open_status(c, e)));
		out->available = 0;
		out->reason = pb_intern(why);
		break;
	}
	pbench_counters_free(c);
	return 0;
}

int pbench_metric_list_write_text(FILE *f)
{
	const char *pmu = present_pmu(), *forced = getenv("LIBPFM_FORCE_PMU");

	if (!f)
		return -EINVAL;
	/* A forced PMU is not this CPU's, and libpfm4 then knows no generic perf event: its
	 * events are named, not opened (libpfm4's own tests encode them this way). */
	forced = forced && *forced ? forced : NULL;
	fprintf(f, "metrics (-M NAME or GROUP; libpfm4's PMU here: %s%s)\n", pmu ? pmu :
		"none detected, generic perf events only", forced ? ", forced by "
		"LIBPFM_FORCE_PMU: the events each would open, none opened" : "");
	for (int i = 0; i < NR_METRICS; i++) {
		struct pbench_metric_info m = { .size = sizeof(m) };

		if (forced)
			pbench_metric_get(i, &m);
		else
			pbench_metric_probe(i, &m);
		fprintf(f, "  %-20s %-14s %s\n", m.name, m.group, m.available > 0 ? "yes" :
			m.available < 0 && !m.reason ? "named" : "n/a");
		fprintf(f, "      %s%s%s = %s\n", m.label, *m.unit ? ", " : "", m.unit, m.formula);
		if (*m.events)
			fprintf(f, "      events: %s\n", m.events);
		if (m.available <= 0 && m.reason)
			fprintf(f, "      n/a: %s\n", m.reason);
		fprintf(f, "      trust: %s\n", m.trust);
	}
	return pb_stream_end(f);
}

/* The entry of list that is name (modifiers aside): 1 and *at, *at_len set; else 0. */
static int find_in(const char *list, const char *name, size_t len, const char **at,
		   size_t *at_len)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		while (n && (*p == '{'))
			p++, n--;
		if (n && p[n - 1] == '}')
			n--;
		if (pb_event_same(p, n, name, len)) {
			*at = p;
			*at_len = n;
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int in_list(const char *list, const char *name, size_t len)
{
	const char *at;
	size_t n;

	return find_in(list, name, len, &at, &n);
}

static int is_software(const char *name, size_t len)
{
	static const char *const sw[] = { "task-clock", "cpu-clock", "context-switches",
					  "cpu-migrations", "page-faults", "major-faults",
					  "minor-faults" };

	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (strlen(sw[i]) == len && !strncmp(sw[i], name, len))
			return 1;
	return 0;
}

/* Append name (len bytes) to buf after sep when the list has it nowhere yet. */
static void add_name(char *buf, size_t cap, const char *sep, const char *name, size_t len)
{
	size_t n = strlen(buf);

	if (in_list(buf, name, len))
		return;
	snprintf(buf + n, cap - n, "%s%.*s", n ? sep : "", (int)len, name);
}

/* Clusters: the metrics sel selects that share a hardware event, in the order of the table;
 * cluster[m] for each metric (-1: not selected). How many clusters. */
static int metric_clusters(const unsigned char *sel, int *cluster)
{
	int nc = 0;

	for (int m = 0; m < NR_METRICS; m++) {
		const char *reason, *ev = sel[m] ? pb_metric_events(m, &reason) : NULL;

		cluster[m] = -1;
		for (int k = 0; ev && k < m && cluster[m] < 0; k++) {
			const char *ek = cluster[k] >= 0 ? pb_metric_events(k, &reason) : NULL;

			for (const char *p = ev; ek && *p && cluster[m] < 0;) {
				size_t n = strcspn(p, ",");

				if (!is_software(p, n) && in_list(ek, p, n))
					cluster[m] = cluster[k];
				p += n + (p[n] == ',');
			}
		}
		if (ev && cluster[m] < 0)
			cluster[m] = nc++;
	}
	return nc;
}

/* The hardware events of each cluster tied into one group ("{a,b}"), each as base writes it
 * (cycles:u), appended to hw (cap bytes). */
static void cluster_groups(const char *base, const int *cluster, int nc, char *hw, size_t cap)
{
	for (int c = 0; c < nc; c++) {
		size_t start = strlen(hw);

		for (int m = 0; m < NR_METRICS; m++) {
			const char *reason, *ev = cluster[m] == c ? pb_metric_events(m, &reason) : NULL;

			for (const char *p = ev; p && *p;) {
				size_t n = strcspn(p, ",");

				const char *as = p;
				size_t an = n;

				find_in(base, p, n, &as, &an);	/* as the caller wrote it: cycles:u */
				if (!is_software(p, n))
					add_name(hw, cap, ",", as, an);
				p += n + (p[n] == ',');
			}
		}
		if (strlen(hw) > start) {	/* brace the cluster's events */
			memmove(hw + start + 1 + (start > 0), hw + start + (start > 0),
				strlen(hw + start + (start > 0)) + 1);
			hw[start + (start > 0)] = '{';
			strcat(hw, "}");
		}
	}
}

/*
 * The event list base plus what the selected metrics need: each metric's hardware events tied
 * into one group ("{cycles,instructions}"), the metrics sharing an event in the same one; its
 * software events (never multiplexed) untied. An event of base that a tied group holds moves
 * there. *out is malloc'ed. 0 or -ENOMEM.
 */
int pb_metric_event_list(const char *base, const unsigned char *sel, char **out)
{
	size_t cap = (base ? strlen(base) : 0) + 2;
	int cluster[NR_METRICS], nc;
	char *hw, *buf;

	for (int m = 0; m < NR_METRICS; m++) {
		const char *reason, *ev = sel[m] ? pb_metric_events(m, &reason) : NULL;

		if (ev)
			cap += strlen(ev) + 4;
	}
	hw = calloc(1, cap);
	buf = calloc(1, cap * 2);
	if (!hw || !buf) {
		free(hw);
		free(buf);
		return -ENOMEM;
	}
	nc = metric_clusters(sel, cluster);
	cluster_groups(base, cluster, nc, hw, cap);
	/* base without what the groups hold, then the metrics' software events, the groups */
	for (const char *p = base; p && *p;) {
		size_t n = strcspn(p, ",");

		if (!in_list(hw, p, n))
			add_name(buf, cap * 2, ",", p, n);
		p += n + (p[n] == ',');
	}
	for (int m = 0; m < NR_METRICS; m++) {
		const char *reason, *ev = cluster[m] >= 0 ? pb_metric_events(m, &reason) : NULL;

		for (const char *p = ev; p && *p;) {
			size_t n = strcspn(p, ",");

			if (is_software(p, n))
				add_name(buf, cap * 2, ",", p, n);
			p += n + (p[n] == ',');
		}
	}
	if (*hw)
		snprintf(buf + strlen(buf), cap * 2 - strlen(buf), "%s%s", *buf ? "," : "", hw);
	free(hw);
	*out = buf;
	return 0;
}

void pb_figures(const double *x, size_t n, double *mean, double *sem_pct, double *median,
		double *min, double *max, double *stddev, double *cv_pct)
{
	struct pbench_summary s = { .size = sizeof(s) };

	*mean = *sem_pct = *median = *min = *max = *stddev = *cv_pct = NAN;
	if (!n || pbench_stats_summary(x, n, NULL, &s))
		return;
	*mean = s.mean;
	*median = s.median;
	*min = s.min;
	*max = s.max;
	if (n > 1) {
		*stddev = s.stddev;
		*sem_pct = s.mean ? 100.0 * s.sem / fabs(s.mean) : NAN;
		*cv_pct = s.mean ? 100.0 * s.stddev / fabs(s.mean) : NAN;
	}
}

int pb_event_counted(const struct pbench_count *k)
{
	return k->status <= PBENCH_EVENT_MULTIPLEXED && k->time_running > 0;
}

void pb_event_summary_add(struct pbench_event_summary *o, const struct pbench_count *k,
			  double *x, size_t *n, double *run_sum)
{
	o->runs++;
	o->user_only |= k->user_only;
	if (!pb_event_counted(k)) {
		if (k->reason && *k->reason)
			o->reason = k->reason;
		return;
	}
	o->counted++;
	o->multiplexed += k->is_scaled;
	*run_sum += k->time_enabled ? 100.0 * (double)k->time_running / (double)k->time_enabled :
		    100.0;
	x[(*n)++] = k->scaled;
}

void pb_event_summary_end(struct pbench_event_summary *o, const double *x, size_t n,
			  double run_sum)
{
	if (o->status == PBENCH_EVENT_OK)
		o->status = !o->counted ? PBENCH_EVENT_NOT_COUNTED : o->multiplexed ?
			    PBENCH_EVENT_MULTIPLEXED : PBENCH_EVENT_OK;
	if (o->status <= PBENCH_EVENT_MULTIPLEXED)
		o->reason = "";
	o->running_pct = o->counted ? run_sum / o->counted : NAN;
	pb_figures(x, n, &o->mean, &o->sem_pct, &o->median, &o->min, &o->max, &o->stddev,
		   &o->cv_pct);
}
