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
 * -M l1d-mpki,topdown` says n/a with that reason, never a number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <perfmon/pfmlib_perf_event.h>

#include "util.h"

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
		diag("%-20s %-18s events %s; n/a: %s", pmu, m.name, *m.events ? m.events : "-",
		     m.reason ?: "(none)");
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

static json_t *metric_of(json_t *root, const char *name)
{
	json_t *a = json_object_get(json_array_get(json_object_get(root, "modes"), 0), "metrics");

	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *m = json_array_get(a, i);

		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name))
			return m;
	}
	return NULL;
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

int main(void)
{
	tap_init("metrics_arm");
	pmu_rows(NULL, 0);
	pmu_rows("arm_n1", 0);
	pmu_rows("arm_n2", 1);
	pmu_rows("arm_v1", 1);
	pmu_rows("arm_v2", 1);
	guest_pmu();
	stat_na();
	return tap_done();
}
