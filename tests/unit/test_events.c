/* SPDX-License-Identifier: MIT */
/*
 * Event names to perf_event_attr: libpfm4 names (here and, through LIBPFM_FORCE_PMU, for
 * CPUs this machine is not), sysfs PMU names (live, and on recorded trees of other machines),
 * suggestions and the event list.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "counters/counters.h"

/* The recorded PMU trees below are read by the event resolver, a live reader. */
__attribute__((constructor)) static void recorded_trees_everywhere(void)
{
	pb_recorded_everywhere(1);
}

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

struct row {
	const char *name;
	uint32_t type;
	uint64_t config, config1;
	int kind;
	const char *source;
};

static void check_rows(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pb_event ev;
		int err = pb_event_resolve(rows[i].name, &ev);

		cr_assert_eq(err, 0, "'%s': %s", rows[i].name, pbench_strerror(err));
		cr_assert_eq(ev.attr.type, rows[i].type, "'%s' type %u", rows[i].name, ev.attr.type);
		cr_assert_eq(ev.attr.config, rows[i].config, "'%s' config %#llx (%s)", rows[i].name,
			     (unsigned long long)ev.attr.config, rows[i].source);
		cr_assert_eq(ev.attr.config1, rows[i].config1, "'%s' config1 %#llx", rows[i].name,
			     (unsigned long long)ev.attr.config1);
		cr_assert_eq(ev.kind, rows[i].kind, "'%s' kind %d", rows[i].name, ev.kind);
	}
}

/* Expected values: include/uapi/linux/perf_event.h (perf_hw_id, perf_sw_ids). */
Test(events, generic_and_software_names)
{
	static const struct row rows[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, PBENCH_EVENT_HARDWARE, "uapi" },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, PBENCH_EVENT_HARDWARE, "uapi" },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0, PBENCH_EVENT_HARDWARE, "uapi" },
		{ "perf::cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, PBENCH_EVENT_HARDWARE, "uapi" },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0, PBENCH_EVENT_SOFTWARE, "uapi" },
		{ "Task-Clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, PBENCH_EVENT_SOFTWARE, "case-insensitive" },
	};

	check_rows(rows, PB_ARRAY_SIZE(rows));
}

Test(events, counts_kernel_too_unless_asked)
{
	struct pb_event ev;

	/* context-switches happen in the kernel: excluding it would always read 0. */
	cr_assert_eq(pb_event_resolve("context-switches", &ev), 0);
	cr_assert_eq(ev.attr.exclude_kernel, 0);
	cr_assert_eq(ev.attr.exclude_user, 0);
	cr_assert_eq(pb_event_resolve("cycles:u", &ev), 0);
	cr_assert_eq(ev.attr.exclude_kernel, 1, "the :u modifier excludes the kernel");
}

/* Hardware names of a CPU this machine is not: libpfm4's LIBPFM_FORCE_PMU, as its own
 * validation tests do. Expected codes: Intel SDM vol. 3B, Skylake event tables. */
Test(events, libpfm_names_for_skylake)
{
	static const struct row rows[] = {
		{ "INST_RETIRED:ANY_P", PERF_TYPE_RAW, 0xc0, 0, PBENCH_EVENT_HARDWARE, "SDM: C0H umask 00H" },
		{ "skl::INST_RETIRED:ANY_P", PERF_TYPE_RAW, 0xc0, 0, PBENCH_EVENT_HARDWARE, "pmu-qualified" },
		{ "BR_MISP_RETIRED:ALL_BRANCHES", PERF_TYPE_RAW, 0xc5, 0, PBENCH_EVENT_HARDWARE, "SDM: C5H umask 00H" },
		{ "MEM_LOAD_RETIRED:L3_MISS", PERF_TYPE_RAW, 0x20d1, 0, PBENCH_EVENT_HARDWARE, "SDM: D1H umask 20H" },
		{ "UOPS_ISSUED:ANY", PERF_TYPE_RAW, 0x010e, 0, PBENCH_EVENT_HARDWARE, "SDM: 0EH umask 01H" },
	};

	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	check_rows(rows, PB_ARRAY_SIZE(rows));
}

Test(events, libpfm_names_for_zen4)
{
	/* AMD PPR for family 19h: RETIRED_INSTRUCTIONS is PMCx0C0, branches PMCx0C2. */
	static const struct row rows[] = {
		{ "RETIRED_INSTRUCTIONS", PERF_TYPE_RAW, 0xc0, 0, PBENCH_EVENT_HARDWARE, "PPR PMCx0C0" },
		{ "amd64_fam19h_zen4::RETIRED_BRANCH_INSTRUCTIONS", PERF_TYPE_RAW, 0xc2, 0, PBENCH_EVENT_HARDWARE, "PPR PMCx0C2" },
	};

	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	check_rows(rows, PB_ARRAY_SIZE(rows));
}

/* sysfs names on the recorded Intel tree: format fields, aliases, modifiers. */
Test(events, sysfs_names_intel_tree)
{
	static const struct row rows[] = {
		{ "cpu/event=0xc0,umask=0x01/", 4, 0x1c0, 0, PBENCH_EVENT_HARDWARE, "event 0-7, umask 8-15" },
		{ "cpu/event=0x3c,inv,cmask=1/", 4, 0x0180003c, 0, PBENCH_EVENT_HARDWARE, "inv bit 23, cmask 24-31" },
		{ "cpu/cycles-t/", 4, 0x10000003cull, 0, PBENCH_EVENT_HARDWARE, "alias: event=0x3c,in_tx=1" },
		{ "cpu/mem-loads/", 4, 0x1cd, 3, PBENCH_EVENT_HARDWARE, "alias with ldlat in config1" },
		{ "cpu/instructions/", 4, 0xc0, 0, PBENCH_EVENT_HARDWARE, "alias" },
	};
	struct pb_event ev;

	setenv("PBENCH_SYSFS_ROOT", FIXTURES "/pmu-intel-skl", 1);
	check_rows(rows, PB_ARRAY_SIZE(rows));
	cr_assert_eq(pb_event_resolve("cpu/event=0xc0/u", &ev), 0);
	cr_assert_eq(ev.attr.exclude_kernel, 1);
	cr_assert_eq(pb_event_resolve("cpu/event=0xc0/k", &ev), 0);
	cr_assert_eq(ev.attr.exclude_user, 1);
	/* Errors: a value wider than its field, an unknown term, a bad modifier. */
	cr_assert_eq(pb_event_resolve("cpu/event=0x1c0/", &ev), -PBENCH_EUNKNOWN_EVENT);
	cr_assert_eq(pb_event_resolve("cpu/nosuch=1/", &ev), -PBENCH_EUNKNOWN_EVENT);
	cr_assert_eq(pb_event_resolve("cpu/event=0xc0/x", &ev), -PBENCH_EUNKNOWN_EVENT);
	cr_assert_eq(pb_event_resolve("cpu/event=zz/", &ev), -PBENCH_EUNKNOWN_EVENT);
	cr_assert_eq(pb_event_resolve("msr/tsc/", &ev), -PBENCH_EUNKNOWN_EVENT,
		     "the recorded tree has no msr PMU");
}

/* AMD's event field is split: bits 0-7 and 32-35 of config. */
Test(events, sysfs_split_field_amd_tree)
{
	static const struct row rows[] = {
		{ "cpu/event=0x1c2,umask=0x3/", 4, 0x1000003c2ull, 0, PBENCH_EVENT_HARDWARE, "0xc2 low, 0x1 at bit 32" },
		{ "cpu/event=0xfff/", 4, 0xf000000ffull, 0, PBENCH_EVENT_HARDWARE, "all 12 bits" },
		{ "cpu/branch-instructions/", 4, 0xc2, 0, PBENCH_EVENT_HARDWARE, "alias" },
	};
	struct pb_event ev;

	setenv("PBENCH_SYSFS_ROOT", FIXTURES "/pmu-amd-zen", 1);
	check_rows(rows, PB_ARRAY_SIZE(rows));
	cr_assert_eq(pb_event_resolve("cpu/event=0x1000/", &ev), -PBENCH_EUNKNOWN_EVENT,
		     "13 bits do not fit a 12-bit field");
}

/* The reconstructed AMD Zen 3 host (amd-workstation: Ryzen 9 5950X, kernel 6.8) has the PMUs
 * that kernel registers there: cpu (arch/x86/events/amd/core.c, the Zen 2 event map for
 * family 19h), msr with tsc, aperf, mperf and irperf (msr.c: no smi or pperf, which are
 * Intel's), power with energy-pkg only (rapl.c's AMD model), amd_df and amd_l3
 * (amd/uncore.c, family 19h formats) and the two IBS PMUs (amd/ibs.c). */
Test(events, sysfs_names_amd_zen_host_tree)
{
	static const struct row rows[] = {
		{ "msr/tsc/", 10, 0x00, 0, PBENCH_EVENT_PMU, "msr.c: event=0x00" },
		{ "msr/aperf/", 10, 0x01, 0, PBENCH_EVENT_PMU, "msr.c: event=0x01" },
		{ "msr/mperf/", 10, 0x02, 0, PBENCH_EVENT_PMU, "msr.c: event=0x02" },
		{ "msr/irperf/", 10, 0x06, 0, PBENCH_EVENT_PMU, "msr.c: event=0x06" },
		{ "power/energy-pkg/", 11, 0x02, 0, PBENCH_EVENT_PMU, "rapl.c: event=0x02" },
		{ "cpu/cache-misses/", 4, 0x964, 0, PBENCH_EVENT_HARDWARE, "Zen 2 map: 0x0964" },
		{ "cpu/cache-references/", 4, 0xff60, 0, PBENCH_EVENT_HARDWARE, "Zen 2 map: 0xff60" },
		{ "cpu/stalled-cycles-frontend/", 4, 0xa9, 0, PBENCH_EVENT_HARDWARE, "Zen 2 map" },
		{ "ibs_op/cnt_ctl=1/", 9, 1ull << 19, 0, PBENCH_EVENT_PMU, "cnt_ctl config:19" },
		{ "ibs_fetch/rand_en=1/", 8, 1ull << 57, 0, PBENCH_EVENT_PMU, "rand_en config:57" },
		/* DF events are 14 bits: 0-7, then 32-35, then 59-60 */
		{ "amd_df/event=0x3207,umask=0x38/", 12, 0x07 | 0x38ull << 8 | 0x2ull << 32 |
		  0x3ull << 59, 0, PBENCH_EVENT_PMU, "event14 split in three" },
		{ "amd_l3/event=0x04,umask=0xff,enallcores=1,enallslices=1,threadmask=3/", 13,
		  0x04 | 0xffull << 8 | 1ull << 46 | 1ull << 47 | 3ull << 56, 0, PBENCH_EVENT_PMU,
		  "family 19h L3 format" },
	};
	static const char *const absent[] = {
		"msr/smi/", "msr/pperf/", "msr/ptsc/", "msr/cpu_thermal_margin/",	/* not on Zen 3 */
		"power/energy-cores/", "power/energy-ram/",	/* AMD RAPL in 6.8: the package only */
		"cpu/ref-cycles/", "cpu/stalled-cycles-backend/",	/* Zen 4's, Zen 1's */
		"amd_df/event=0x4000/",			/* 15 bits in a 14-bit field */
		"amd_l3/sliceid=8/",			/* 4 bits in a 3-bit field */
		"ibs_op/l3missonly=1/",			/* Zen 4's IBS extension */
	};
	struct pb_event ev;

	setenv("PBENCH_SYSFS_ROOT", FIXTURES "/amd-workstation/sys", 1);
	check_rows(rows, PB_ARRAY_SIZE(rows));
	for (size_t i = 0; i < PB_ARRAY_SIZE(absent); i++)
		cr_assert_eq(pb_event_resolve(absent[i], &ev), -PBENCH_EUNKNOWN_EVENT, "'%s'",
			     absent[i]);
}

/* The sysfs names a tree gives the event list: each PMU's events/, without the .scale and
 * .unit files beside them; "want" is every such name the tree has, in any order. */
static void expect_sysfs_names(const char *sysfs, const char *const *want, size_t nwant)
{
	struct pbench_event_desc *v;
	struct pbench_event_list *l;
	size_t found = 0;
	int n;

	setenv("PBENCH_SYSFS_ROOT", sysfs, 1);
	n = pbench_event_list_new(&l, PBENCH_LIST_NO_PROBE);
	cr_assert_gt(n, 0);
	v = calloc((size_t)n, sizeof(*v));
	cr_assert_not_null(v);
	for (int i = 0; i < n; i++) {
		size_t k;

		v[i].size = sizeof(v[i]);
		cr_assert_eq(pbench_event_list_get(l, i, &v[i]), 0);
		if (!strchr(v[i].name, '/'))
			continue;
		for (k = 0; k < nwant && strcmp(v[i].name, want[k]); k++)
			;
		cr_assert_lt(k, nwant, "%s: '%s' listed, not in the tree", sysfs, v[i].name);
		cr_assert_eq(v[i].kind, strncmp(v[i].name, "cpu/", 4) ? PBENCH_EVENT_PMU
								       : PBENCH_EVENT_HARDWARE,
			     "'%s' kind %d", v[i].name, v[i].kind);
		found++;
	}
	cr_assert_eq(found, nwant, "%s: %zu of the tree's %zu sysfs names listed", sysfs, found,
		     nwant);
	pbench_event_list_free(l);
	free(v);
}

Test(events, list_names_of_amd_trees)
{
	static const char *const zen_host[] = {
		"msr/tsc/", "msr/aperf/", "msr/mperf/", "msr/irperf/", "power/energy-pkg/",
		"cpu/cpu-cycles/", "cpu/instructions/", "cpu/cache-references/",
		"cpu/cache-misses/", "cpu/branch-instructions/", "cpu/branch-misses/",
		"cpu/stalled-cycles-frontend/",
	};
	static const char *const amd_vm[] = { "msr/tsc/" };	/* the msr PMU alone */

	expect_sysfs_names(FIXTURES "/amd-workstation/sys", zen_host, PB_ARRAY_SIZE(zen_host));
	expect_sysfs_names(FIXTURES "/vm-amd-epyc/sys", amd_vm, PB_ARRAY_SIZE(amd_vm));
}

Test(events, live_msr_tsc)
{
	struct pb_event ev;
	long type;

	if (pb_read_long("/sys/bus/event_source/devices/msr/type", &type))
		cr_skip_test("no msr PMU on this kernel");
	cr_assert_eq(pb_event_resolve("msr/tsc/", &ev), 0);
	cr_assert_eq(ev.attr.type, (uint32_t)type);
	cr_assert_eq(ev.attr.config, 0, "msr/events/tsc is event=0x00");
	cr_assert_eq(ev.kind, PBENCH_EVENT_PMU);
	cr_assert_eq(pb_event_resolve("msr/event=0x00/", &ev), 0);
	cr_assert_eq(ev.attr.type, (uint32_t)type);
}

Test(events, suggestions)
{
	static const struct {
		const char *typo, *expect;
	} rows[] = {
		{ "cylces", "cycles" },
		{ "instrutcions", "instructions" },
		{ "task-clok", "task-clock" },
		{ "contex-switches", "context-switches" },
		{ "pagefaults", "page-faults" },
		{ "qqqqqqqqqqqqqqqqqqqq", NULL },
	};

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		const char *s = pbench_event_suggest(rows[i].typo);

		if (!rows[i].expect)
			cr_assert_null(s, "'%s' suggested '%s'", rows[i].typo, s);
		else
			cr_assert(s && !strcmp(s, rows[i].expect), "'%s': got '%s', want '%s'",
				  rows[i].typo, s ? s : "(none)", rows[i].expect);
	}
}

/* The list, one entry at a time into an array of this test's struct size; its strings are
 * the list's, valid until *lp is freed. */
static int list_events(unsigned flags, struct pbench_event_desc **out,
		       struct pbench_event_list **lp)
{
	struct pbench_event_list *l;
	int n = pbench_event_list_new(&l, flags);

	cr_assert_geq(n, 0);
	cr_assert_eq(pbench_event_list_nr(l), n);
	*out = calloc((size_t)n + 1, sizeof(**out));
	cr_assert_not_null(*out);
	for (int i = 0; i < n; i++) {
		(*out)[i].size = sizeof((*out)[i]);
		cr_assert_eq(pbench_event_list_get(l, i, &(*out)[i]), 0);
	}
	(*out)[n].size = sizeof((*out)[n]);
	cr_assert_eq(pbench_event_list_get(l, n, &(*out)[n]), -EINVAL);
	*lp = l;
	return n;
}

Test(events, list_probes_each_event)
{
	struct pbench_event_desc *v, *all;
	struct pbench_event_list *l, *l_all;
	int n, n_all, found_tc = 0, found_cycles = 0;

	n = list_events(0, &v, &l);
	cr_assert_gt(n, 20);
	for (int i = 0; i < n; i++) {
		if (!strcmp(v[i].name, "task-clock")) {
			found_tc = 1;
			cr_assert_eq(v[i].status, PBENCH_EVENT_OK);
			cr_assert_eq(v[i].kind, PBENCH_EVENT_SOFTWARE);
		}
		if (!strcmp(v[i].name, "cycles")) {
			found_cycles = 1;
			cr_assert_eq(v[i].kind, PBENCH_EVENT_HARDWARE);
			if (!pbench_cpu_has_pmu()) {
				cr_assert_eq(v[i].status, PBENCH_EVENT_NOT_SUPPORTED);
				cr_assert_not_null(strstr(v[i].reason, "ENOENT"));
			}
		}
		if (v[i].status != PBENCH_EVENT_OK)
			cr_assert_neq(v[i].reason[0], '\0', "'%s' fails without a reason", v[i].name);
	}
	cr_assert(found_tc && found_cycles);
	n_all = list_events(PBENCH_LIST_ALL | PBENCH_LIST_NO_PROBE, &all, &l_all);
	cr_assert_geq(n_all, n);
	for (int i = 0; i < n_all; i++)
		cr_assert(all[i].name && all[i].pmu && all[i].desc && all[i].reason &&
			  all[i].read_reason, "entry %d: a NULL string", i);
	pbench_event_list_free(l);
	pbench_event_list_free(l_all);
	free(v);
	free(all);
}

Test(events, names_of_enums)
{
	cr_assert_str_eq(pbench_event_status_name(PBENCH_EVENT_OK), "ok");
	cr_assert_str_eq(pbench_event_status_name(PBENCH_EVENT_MULTIPLEXED), "multiplexed");
	cr_assert_str_eq(pbench_event_status_name(PBENCH_EVENT_NOT_COUNTED), "not-counted");
	cr_assert_str_eq(pbench_event_status_name(PBENCH_EVENT_NOT_SUPPORTED), "not-supported");
	cr_assert_str_eq(pbench_event_status_name(PBENCH_EVENT_NO_PERMISSION), "no-permission");
	cr_assert_str_eq(pbench_event_kind_name(PBENCH_EVENT_PMU), "pmu");
	cr_assert_str_eq(pbench_strerror(-PBENCH_EDUP_EVENT), "event listed twice");
	cr_assert_str_eq(pbench_strerror(-ENOENT), strerror(ENOENT));
}

Test(events, open_reasons_name_the_fix)
{
	struct pb_event ev;
	char buf[256];

	cr_assert_eq(pb_event_resolve("task-clock", &ev), 0);
	pb_open_reason(&ev, -EACCES, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "perf_event_paranoid"), "%s", buf);
	cr_assert_not_null(strstr(buf, "CAP_PERFMON"), "%s", buf);
	cr_assert_eq(pb_open_status(-EACCES), PBENCH_EVENT_NO_PERMISSION);
	cr_assert_eq(pb_open_status(-EPERM), PBENCH_EVENT_NO_PERMISSION);
	cr_assert_eq(pb_open_status(-ENOENT), PBENCH_EVENT_NOT_SUPPORTED);
	pb_open_reason(&ev, -EMFILE, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "ulimit"), "%s", buf);
}

/* A VM without a PMU is told which events do work: msr/tsc/ only where the kernel has it. */
Test(events, no_pmu_reason_names_only_what_exists)
{
	struct pb_event ev;
	char buf[256];

	cr_assert_eq(pb_event_resolve("cycles", &ev), 0);
	/* msr/tsc/ is named only to a user it opens for (root, or perf_event_paranoid < 2): a
	 * tree's paranoid of 1 keeps the result from depending on who runs the test. */
	setenv("PBENCH_PROCFS_ROOT", FIXTURES "/tuned-server/proc", 1);	/* paranoid 1 */
	setenv("PBENCH_SYSFS_ROOT", FIXTURES "/vm-kvm-2cpu/sys", 1);	/* has msr/events/tsc */
	pb_open_reason(&ev, -ENOENT, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "software events and msr/tsc/ work"), "%s", buf);
	setenv("PBENCH_SYSFS_ROOT", FIXTURES "/container-quota/sys", 1);	/* msr PMU, no tsc */
	pb_open_reason(&ev, -ENOENT, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "software events work"), "%s", buf);
	cr_assert_null(strstr(buf, "msr/tsc/"), "%s", buf);
	setenv("PBENCH_SYSFS_ROOT", FIXTURES "/vm-amd-epyc/sys", 1);	/* AMD's msr: tsc only */
	pb_open_reason(&ev, -ENOENT, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "software events and msr/tsc/ work"), "%s", buf);
}
