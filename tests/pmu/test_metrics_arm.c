/* SPDX-License-Identifier: MIT */
/*
 * The Arm rows of the metric table (issue 23) where they can be checked: in the arm64 guest,
 * whose libpfm4 has the Arm PMUs (an x86 build of libpfm4 has none, so LIBPFM_FORCE_PMU=arm_*
 * cannot work on the host). For libpfm4's arm_n1 (the guest's own identity) and, forced,
 * arm_n2, arm_v1 and arm_v2: which events l1d-mpki and topdown level 1 open, each name
 * encoded by libpfm4 to Arm's architectural event number (Arm ARM, "common architectural and
 * microarchitectural events": L1D_CACHE_REFILL 0x03, CPU_CYCLES 0x11, OP_RETIRED 0x3a,
 * OP_SPEC 0x3b, STALL_SLOT_BACKEND 0x3d, STALL_SLOT_FRONTEND 0x3e, STALL_SLOT 0x3f); the N1
 * has no STALL_SLOT events, so topdown is n/a there with that reason. Then what QEMU's PMUv3
 * really counts: L1D_CACHE_REFILL and the STALL_SLOT events are not implemented (the kernel's
 * events/ lists what PMCEID says; a raw number opens anyway and counts 0), so `pbench stat
 * -M l1d-mpki,topdown` says n/a with that reason, never a number. And the topdown values from
 * known counts (no CPU here counts them): a recorded sysfs PMU that implements the slot events
 * and says its slots, N2's 5 and V2's 8, the library's own calc (internal: pb_metric_value).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The library's headers first: their linux/perf_event.h makes libpfm4 skip its older copy. */
#include "base/base.h"
#include "counters/counters.h"
#include "util.h"

#include <perfmon/pfmlib_perf_event.h>

#define ARM_TD "CPU_CYCLES,STALL_SLOT_FRONTEND,STALL_SLOT_BACKEND,STALL_SLOT,OP_RETIRED,OP_SPEC"
#define TD_NR 4

static const char *const topdown[TD_NR] = { "topdown-retiring", "topdown-bad-spec",
					    "topdown-frontend", "topdown-backend" };

static const struct { const char *name; unsigned code; } arm_codes[] = {
	{ "L1D_CACHE_REFILL", 0x03 }, { "CPU_CYCLES", 0x11 }, { "OP_RETIRED", 0x3a },
	{ "OP_SPEC", 0x3b }, { "STALL_SLOT_BACKEND", 0x3d }, { "STALL_SLOT_FRONTEND", 0x3e },
	{ "STALL_SLOT", 0x3f },
};

static int get(const char *name, struct pbench_metric_info *m)
{
	for (int i = 0; i < pbench_metric_nr(); i++) {
		m->size = sizeof(*m);
		if (!pbench_metric_get(i, m) && !strcmp(m->name, name))
			return 0;
	}
	return -1;
}

/* Each libpfm4 name of events encodes to its architectural number on the PMU forced (or this
 * one); "instructions" is the generic perf event. 1 when all do. */
static int codes_ok(const char *pmu, const char *events)
{
	char *copy = strdup(events), *save = NULL;
	int good = 1;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;
		unsigned want = 0x10000;

		if (!strcmp(w, "instructions"))
			continue;
		for (size_t i = 0; i < sizeof(arm_codes) / sizeof(*arm_codes); i++)
			if (!strcmp(arm_codes[i].name, w))
				want = arm_codes[i].code;
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = &attr;
		if (pfm_get_os_event_encoding(w, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS ||
		    attr.type != PERF_TYPE_RAW || attr.config != want) {
			diag("%s: %s encodes to type %u config 0x%llx, not raw 0x%02x", pmu, w,
			     attr.type, (unsigned long long)attr.config, want);
			good = 0;
		}
	}
	free(copy);
	return good;
}

/* In a child with LIBPFM_FORCE_PMU=pmu (NULL: this CPU's own): the rows, printed; exit 0 when
 * they are as expected (has_slots: the PMU has STALL_SLOT events). */
static int rows(const char *pmu, int has_slots)
{
	struct pbench_metric_info m = { .size = sizeof(m) };
	int good = 1;

	if (pmu) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	}
	pmu = pmu ? pmu : "arm_n1 (this guest)";
	if (pfm_initialize() != PFM_SUCCESS || get("l1d-mpki", &m))
		return 1;
	diag("%-20s %-18s events %s; n/a: %s", pmu, m.name, m.events, m.reason ?: "(none)");
	good &= !strcmp(m.events, "L1D_CACHE_REFILL,instructions") && codes_ok(pmu, m.events);
	/* QEMU's PMUv3 does not implement it: the kernel lists no l1d_cache_refill */
	good &= m.reason && strstr(m.reason, "does not implement L1D_CACHE_REFILL") != NULL;
	for (int t = 0; t < TD_NR; t++) {
		if (get(topdown[t], &m))
			return 1;
		if (!t)	/* the four share their events and their reason */
			diag("%-20s %-18s events %s; n/a: %s", pmu, "topdown-*", *m.events ?
			     m.events : "-", m.reason ?: "(none)");
		if (has_slots)
			good &= !strcmp(m.events, ARM_TD) && codes_ok(pmu, m.events) && m.reason &&
				(strstr(m.reason, "does not implement STALL_SLOT") ||
				 strstr(m.reason, "caps/slots"));
		else
			good &= !*m.events && m.reason && strstr(m.reason, "STALL_SLOT") &&
				strstr(m.reason, "arm_n1");
	}
	return good ? 0 : 1;
}

static void pmu_rows(const char *pmu, int has_slots)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(rows(pmu, has_slots));
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "%s: l1d-mpki opens L1D_CACHE_REFILL "
	   "(0x03), topdown %s; n/a here as QEMU's PMU implements neither", pmu ? pmu :
	   "arm_n1 (this guest)", has_slots ? "the STALL_SLOT events with OP_RETIRED/OP_SPEC" :
	   "n/a: the N1 has no STALL_SLOT events");
}

/* What the guest's PMU lists, and an unimplemented event opened raw: it counts 0. */
static void guest_pmu(void)
{
	char buf[256], line[1024] = "";
	static const char *const ev[] = { "cpu_cycles", "inst_retired", "l1d_cache_refill",
					  "stall_slot", "stall_frontend", "op_spec" };
	struct pbench_count k[2];
	struct pbench_counters *c;
	int fd, n;

	for (size_t i = 0; i < sizeof(ev) / sizeof(*ev); i++) {
		snprintf(buf, sizeof(buf), "/sys/bus/event_source/devices/armv8_pmuv3/events/%s",
			 ev[i]);
		fd = open(buf, O_RDONLY);
		n = fd >= 0 ? (int)read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n - 1 : 0] = 0;
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s=%s", ev[i],
			 n > 0 ? buf : "(absent)");
	}
	fd = open("/sys/bus/event_source/devices/armv8_pmuv3/caps/slots", O_RDONLY);
	n = fd >= 0 ? (int)read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n - 1 : 0] = 0;
	diag("guest PMU events:%s; caps/slots %s", line, n > 0 ? buf : "(absent)");
	c = open_set("instructions:u,L1D_CACHE_REFILL:u", 0);
	if (!ok(c != NULL, "L1D_CACHE_REFILL:u opens (a raw event number)"))
		return;
	n = count_loop(c, 1000000, k);
	diag("over loop3(1e6): instructions:u %.0f, L1D_CACHE_REFILL:u %.0f (running %llu ns)",
	     k[0].scaled, k[1].scaled, (unsigned long long)k[1].time_running);
	ok(n == 2 && k[0].scaled >= 3e6 && k[1].scaled == 0 && k[1].time_running > 0,
	   "L1D_CACHE_REFILL:u counts 0 on a counter: a number the metric must not be made of");
	pbench_counters_free(c);
}

static void stat_na(void)
{
	char *argv[] = { "/bin/pbench", "stat", "--workload", "xor", "--iterations", "100000",
			 "--mode", "unprepared", "-r", "2", "-M", "l1d-mpki,topdown", "--json",
			 NULL };
	json_t *root = run_json(argv), *m;
	const char *why;
	int good = 1;

	if (!ok(root != NULL, "pbench stat -M l1d-mpki,topdown --json ran"))
		return;
	m = metric_of(root, "l1d-mpki");
	why = json_string_value(json_object_get(m, "reason"));
	diag("stat: l1d-mpki: mean %s, n/a: %s", json_is_null(json_object_get(m, "mean")) ?
	     "null" : "a number", why ?: "(none)");
	good &= m && json_is_null(json_object_get(m, "mean")) && why &&
		strstr(why, "L1D_CACHE_REFILL");
	for (int t = 0; t < TD_NR; t++) {
		m = metric_of(root, topdown[t]);
		why = json_string_value(json_object_get(m, "reason"));
		good &= m && json_is_null(json_object_get(m, "mean")) && why &&
			strstr(why, "STALL_SLOT");
	}
	diag("stat: topdown-retiring: n/a: %s", why ?: "(none)");
	ok(good, "pbench stat: l1d-mpki and topdown are n/a with the reason, never a number");
	json_decref(root);
}

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	return f && fputs(text, f) >= 0 && !fclose(f) ? 0 : -1;
}

/* A PMU that implements the slot events and has `slots` a cycle, recorded under root. */
static int record_pmu(const char *root, const char *dev, int slots)
{
	static const char *const ev[][2] = {
		{ "cpu_cycles", "0x0011" }, { "inst_retired", "0x0008" },
		{ "op_retired", "0x003a" }, { "op_spec", "0x003b" },
		{ "stall_slot_backend", "0x003d" }, { "stall_slot_frontend", "0x003e" },
		{ "stall_slot", "0x003f" },
	};
	char path[512], text[64];
	const char *dirs[] = { "bus", "bus/event_source", "bus/event_source/devices" };

	mkdir(root, 0755);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", root, dev);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/events", root, dev);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/caps", root, dev);
	mkdir(path, 0755);
	for (size_t i = 0; i < sizeof(ev) / sizeof(*ev); i++) {
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/events/%s", root, dev,
			 ev[i][0]);
		snprintf(text, sizeof(text), "event=%s\n", ev[i][1]);
		if (put(path, text))
			return -1;
	}
	if (slots) {
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/caps/slots", root, dev);
		snprintf(text, sizeof(text), "0x%08x\n", slots);
		if (put(path, text))
			return -1;
	}
	return 0;
}

/* In a child: LIBPFM_FORCE_PMU=pmu on a recorded PMU with `slots`; the four topdown values of
 * v (CPU_CYCLES, STALL_SLOT_FRONTEND, _BACKEND, STALL_SLOT, OP_RETIRED, OP_SPEC) against
 * want[] (retiring, bad-spec, frontend, backend), or with no slots: n/a saying caps/slots. */
static int values(const char *pmu, const char *root, int slots, const double *v,
		  const double *want)
{
	int good = 1;

	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	setenv("PBENCH_SYSFS_ROOT", root, 1);
	pb_recorded_everywhere(1);
	for (int t = 0; t < TD_NR; t++) {
		int m = pb_metric_find(topdown[t]);
		const char *why, *ev = pb_metric_events(m, &why);
		double x = pb_metric_value(pb_metric_calc(m), v, 6, 1e6, 0);

		diag("%s, %d slots: %-17s %.6f (want %.6f)%s%s", pmu, slots, topdown[t], x,
		     want ? want[t] : NAN, why ? "; n/a: " : "", why ? why : "");
		if (want)
			good &= ev && !why && fabs(x - want[t]) < 1e-12;
		else
			good &= !ev && why && strstr(why, "caps/slots") != NULL;
	}
	return good ? 0 : 1;
}

static void topdown_values(void)
{
	/* cycles 1000; STALL_SLOT = frontend + backend slots; 90% of the ops issued retire */
	static const double v[6] = { 1000, 1500, 1000, 2500, 1800, 2000 };
	/* N2, 5 slots: frontend and STALL_SLOT less one slot a cycle: (1500 - 1000) / 5000,
	 * 1000 / 5000, issued 1 - 1500 / 5000 = 0.7 split 0.9 : 0.1 */
	static const double n2[TD_NR] = { 0.63, 0.07, 0.1, 0.2 };
	/* V2, 8 slots: 1500 / 8000, 1000 / 8000, issued 1 - 2500 / 8000 = 0.6875 */
	static const double v2[TD_NR] = { 0.61875, 0.06875, 0.1875, 0.125 };
	static const struct { const char *pmu, *dev; int slots; const double *want; } c[] = {
		{ "arm_n2", "armv9_neoverse_n2", 5, n2 },
		{ "arm_v2", "armv9_neoverse_v2", 8, v2 },
		{ "arm_v1", "armv8_neoverse_v1", 0, NULL },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		char root[64];
		int status = -1;
		pid_t pid;

		snprintf(root, sizeof(root), "/tmp/arm-sys-%zu", i);
		if (!ok(!record_pmu(root, c[i].dev, c[i].slots), "recorded %s PMU", c[i].dev))
			continue;
		pid = fork();
		if (pid == 0)
			_exit(values(c[i].pmu, root, c[i].slots, v, c[i].want));
		if (pid > 0)
			waitpid(pid, &status, 0);
		ok(WIFEXITED(status) && !WEXITSTATUS(status), "%s: topdown %s", c[i].pmu,
		   c[i].want ? "retiring, bad speculation, frontend and backend bound from known "
		   "counts (SBSA; N2 less one slot a cycle)" : "n/a: the PMU says no slots");
	}
}

int main(void)
{
	tap_init("metrics_arm");
	topdown_values();	/* first: its children force a PMU, before libpfm4 starts here */
	pmu_rows(NULL, 0);
	pmu_rows("arm_n1", 0);
	pmu_rows("arm_n2", 1);
	pmu_rows("arm_v1", 1);
	pmu_rows("arm_v2", 1);
	guest_pmu();
	stat_na();
	return tap_done();
}
