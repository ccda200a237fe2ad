/* SPDX-License-Identifier: MIT */
/*
 * Derived metrics (issue 23) through the public API: which events each metric opens on x86
 * CPUs this machine is not (libpfm4's LIBPFM_FORCE_PMU with LIBPFM_ENCODE_INACTIVE, as its own
 * validation does: Skylake, Icelake, Zen 3, Zen 4), each PMU-specific name resolved by libpfm4
 * (vendor names: Intel SDM vol. 3B event tables, AMD PPR for family 19h); and on this machine
 * the per-event summaries and the software metrics of a set of runs, their per-run series,
 * and a metric whose events cannot count here said n/a with the reason.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "testutil.h"

struct row {
	const char *metric;
	const char *events;		/* NULL: n/a on this PMU */
	const char *why;		/* a word the n/a reason must have */
};

#define ICL_TD "TOPDOWN:SLOTS,UOPS_RETIRED:SLOTS,IDQ_UOPS_NOT_DELIVERED:CORE," \
	       "TOPDOWN:BACKEND_BOUND_SLOTS"
#define ZEN4_TD "CYCLES_NOT_IN_HALT,RETIRED_OPS,DISPATCH_STALLS_1:FE_NO_OPS," \
		"DISPATCH_STALLS_1:BE_STALLS,OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:" \
		"OPCACHE:LOOP_BUFFER"

static int find(const char *name)
{
	for (int i = 0; i < pbench_metric_nr(); i++) {
		struct pbench_metric_info m = { .size = sizeof(m) };

		cr_assert_eq(pbench_metric_get(i, &m), 0);
		if (!strcmp(m.name, name))
			return i;
	}
	cr_assert_fail("no metric '%s'", name);
	return -1;
}

/* Each name libpfm4 must know on the forced PMU: opening it resolves the name (-ENO_EVENTS:
 * known, not countable here), an unknown one fails with -PBENCH_EUNKNOWN_EVENT. */
static void resolves(const char *events)
{
	char *copy = strdup(events), *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct pbench_counters *c = NULL;
		int err;

		if (!strcmp(w, "instructions") || !strcmp(w, "cycles"))
			continue;	/* the generic perf events, not the forced PMU's */
		err = pbench_counters_open(&c, w, NULL);
		cr_expect(err == 0 || err == -PBENCH_ENO_EVENTS, "libpfm4 does not know '%s' "
			  "(%s)", w, pbench_strerror(err));
		pbench_counters_free(c);
	}
	free(copy);
}

static void check_rows(const char *pmu, const struct row *rows, size_t n)
{
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	for (size_t i = 0; i < n; i++) {
		struct pbench_metric_info m = { .size = sizeof(m) };

		cr_assert_eq(pbench_metric_get(find(rows[i].metric), &m), 0);
		printf("%-22s %-18s %s\n", pmu, m.name, *m.events ? m.events : m.reason);
		if (rows[i].events) {
			cr_expect_str_eq(m.events, rows[i].events, "%s on %s", m.name, pmu);
			cr_expect_null(m.reason);
			resolves(m.events);
		} else {
			cr_expect_str_empty(m.events, "%s on %s: n/a", m.name, pmu);
			cr_expect(m.reason && strstr(m.reason, rows[i].why), "%s on %s: %s", m.name,
				  pmu, m.reason ? m.reason : "(no reason)");
		}
	}
}

Test(metrics, skylake)
{
	static const struct row rows[] = {
		{ "ipc", "instructions,cycles", NULL },
		{ "l1d-mpki", "L1D:REPLACEMENT,instructions", NULL },	/* SDM: 51H umask 01H */
		{ "llc-mpki", "LONGEST_LAT_CACHE:MISS,instructions", NULL },	/* 2EH umask 41H */
		{ "topdown-retiring", NULL, "TOPDOWN.SLOTS" },
		{ "topdown-backend", NULL, "TOPDOWN.SLOTS" },
	};

	check_rows("skl", rows, sizeof(rows) / sizeof(rows[0]));
}

Test(metrics, icelake)
{
	static const struct row rows[] = {
		{ "l1d-mpki", "L1D:REPLACEMENT,instructions", NULL },
		{ "llc-mpki", "LONGEST_LAT_CACHE:MISS,instructions", NULL },
		{ "topdown-retiring", ICL_TD, NULL },	/* SDM: TOPDOWN.SLOTS fixed counter 3 */
		{ "topdown-bad-spec", ICL_TD, NULL },
		{ "topdown-frontend", ICL_TD, NULL },
		{ "topdown-backend", ICL_TD, NULL },
	};

	check_rows("icl", rows, sizeof(rows) / sizeof(rows[0]));
}

Test(metrics, zen3)
{
	static const struct row rows[] = {
		{ "l1d-mpki", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:INT_CACHE:EXT_CACHE_LCL:"
		  "MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT,instructions", NULL },	/* PPR PMCx044 */
		{ "llc-mpki", NULL, "amd_l3" },
		{ "topdown-retiring", NULL, "Zen 4" },
	};

	check_rows("amd64_fam19h_zen3", rows, sizeof(rows) / sizeof(rows[0]));
}

Test(metrics, zen4)
{
	static const struct row rows[] = {
		{ "l1d-mpki", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:"
		  "DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR,instructions", NULL },	/* umask 5FH */
		{ "llc-mpki", NULL, "amd_l3" },
		{ "topdown-retiring", ZEN4_TD, NULL },	/* PPR: PMCx1A0, PMCx0C1, PMCx0AA */
		{ "topdown-bad-spec", ZEN4_TD, NULL },
		{ "topdown-backend", ZEN4_TD, NULL },
	};

	check_rows("amd64_fam19h_zen4", rows, sizeof(rows) / sizeof(rows[0]));
}

Test(metrics, table_bounds)
{
	struct pbench_metric_info m = { .size = sizeof(m) };

	cr_assert_gt(pbench_metric_nr(), 15);
	cr_assert_eq(pbench_metric_get(pbench_metric_nr(), &m), -ENOENT);
	cr_assert_eq(pbench_metric_get(-1, &m), -ENOENT);
	cr_assert_eq(pbench_metric_get(0, NULL), -EINVAL);
	for (int i = 0; i < pbench_metric_nr(); i++) {
		cr_assert_eq(pbench_metric_get(i, &m), 0);
		cr_assert(*m.name && *m.group && *m.formula && *m.trust, "metric %d", i);
	}
}

static int metric_index(const struct pbench_runs *r, const char *name)
{
	for (int m = 0; m < pbench_runs_nr_metrics(r); m++) {
		struct pbench_metric_summary s = { .size = sizeof(s) };

		cr_assert_eq(pbench_runs_metric(r, 0, m, &s), 0);
		if (!strcmp(s.name, name))
			return m;
	}
	return -1;
}

/* On this machine: a command's runs, their event summaries and software metrics. */
Test(metrics, runs_summaries)
{
	char *argv[] = { "/bin/true", NULL };
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	struct pbench_event_summary k = { .size = sizeof(k) };
	struct pbench_metric_summary ms = { .size = sizeof(ms) };
	struct pbench_runs *r;
	double v[4];
	int m, e;

	o.argv = argv;
	o.mode = PBENCH_RUNS_UNPREPARED;
	o.runs = 4;
	o.events = "task-clock,page-faults";
	o.metrics = "cpus-utilized,faults-per-sec,ipc";
	cr_assert_eq(pbench_runs_new(&r, &o), 0, "%s", pbench_strerror(-EINVAL));
	ASSERT_OK(pbench_runs_run(r));
	for (e = 0; e < pbench_runs_nr_events(r); e++)
		if (!strcmp(pbench_runs_event_name(r, e), "task-clock"))
			break;
	cr_assert_eq(pbench_runs_event_summary(r, 0, e, &k), 0);
	cr_expect_str_eq(k.unit, "ns");
	cr_expect_eq(k.runs, 4);
	cr_expect_eq(k.counted, 4);
	cr_expect_eq(k.status, PBENCH_EVENT_OK);
	cr_expect(k.min > 0 && k.min <= k.median && k.median <= k.max && k.mean > 0);
	cr_expect(isfinite(k.sem_pct) && k.sem_pct >= 0);
	m = metric_index(r, "cpus-utilized");
	cr_assert_geq(m, 0, "cpus-utilized is not among the metrics");
	cr_assert_eq(pbench_runs_metric(r, 0, m, &ms), 0);
	cr_expect_null(ms.reason);
	cr_expect_eq(ms.runs, 4);
	cr_expect(ms.mean > 0.05 && ms.mean <= 1.2, "cpus-utilized %g", ms.mean);
	cr_assert_eq(pbench_runs_values(r, 0, "cpus-utilized", v, 4), 4);
	for (int i = 0; i < 4; i++)
		cr_expect(v[i] >= ms.min && v[i] <= ms.max, "run %d: %g", i, v[i]);
	cr_assert_eq(pbench_runs_values(r, 0, "page-faults", v, 4), 4);
	cr_expect(v[0] > 0, "page-faults of run 1: %g", v[0]);
	cr_expect_eq(pbench_runs_values(r, 0, "no-such-thing", v, 4), -ENOENT);
	m = metric_index(r, "ipc");
	cr_assert_geq(m, 0, "ipc, asked for, is not among the metrics");
	cr_assert_eq(pbench_runs_metric(r, 0, m, &ms), 0);
	if (!ms.reason)
		cr_skip_test("this machine has a hardware PMU: ipc was made (%g)", ms.mean);
	cr_expect_eq(ms.runs, 0);
	cr_expect(strstr(ms.reason, "not supported"), "n/a reason: %s", ms.reason);
	cr_expect(isnan(ms.mean), "never a number for n/a");
	pbench_runs_free(r);
}

Test(metrics, unknown_name)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	struct pbench_runs *r = NULL;

	o.metrics = "ipc,nonsense";
	o.mode = PBENCH_RUNS_UNPREPARED;
	cr_expect_eq(pbench_runs_new(&r, &o), -PBENCH_EUNKNOWN_EVENT);
	cr_expect(strstr(pbench_strerror(-PBENCH_EUNKNOWN_EVENT), "nonsense"), "%s",
		  pbench_strerror(-PBENCH_EUNKNOWN_EVENT));
	pbench_runs_free(r);
}

/* A metric list (opts.metrics, -M) with an empty name in it is refused before anything opens,
 * saying where the empty name is; so is an empty list (it asked for nothing, silently, before:
 * strtok_r skipped the empty names). With a --metric that joins the list too. */
Test(metrics, list_with_an_empty_name)
{
	static const struct {
		const char *metrics, *metric, *msg;
	} rows[] = {
		{ "", NULL, "empty metric list (-M takes names or groups" },
		{ ",", NULL, "malformed metric list ',': empty name before the first comma" },
		{ "ghz,,ipc", NULL, "malformed metric list 'ghz,,ipc': empty name between commas" },
		{ "ghz,", NULL, "malformed metric list 'ghz,': empty name after the last comma" },
		{ ",cpus-utilized", NULL, "malformed metric list ',cpus-utilized': empty name before" },
		{ "", "ipc", "empty metric list" },
		{ "ghz,,ipc", "task-clock", "'ghz,,ipc': empty name between commas" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
		struct pbench_runs *r = NULL;
		int err;

		o.mode = PBENCH_RUNS_UNPREPARED;
		o.workload = PBENCH_WORKLOAD_XOR;
		o.iterations = 1000;
		o.runs = 2;
		o.metrics = rows[i].metrics;
		o.metric = rows[i].metric;
		err = pbench_runs_new(&r, &o);
		cr_expect_eq(err, -PBENCH_EBAD_EVENT_LIST, "-M '%s' --metric %s: got %d (%s)",
			     rows[i].metrics, rows[i].metric, err, pbench_strerror(err));
		cr_expect(strstr(pbench_strerror(err), rows[i].msg),
			  "-M '%s': '%s' lacks '%s'", rows[i].metrics, pbench_strerror(err),
			  rows[i].msg);
		pbench_runs_free(r);
	}
}

/* One rule for names, libpfm4's: case aside. --metric TASK-CLOCK beside -e task-clock is that
 * event, decided on (it was appended to the list, then refused as "listed twice"); a value
 * asked for by name in capitals is found; -e TASK-CLOCK still counts task-clock. */
Test(metrics, names_case_aside)
{
	static const struct {
		const char *events, *metric, *ask;
	} rows[] = {
		{ "task-clock", "TASK-CLOCK", "task-clock" },
		{ "task-clock,page-faults", "Page-Faults", "PAGE-FAULTS" },
		{ "TASK-CLOCK", "task-clock", "Task-Clock" },
		{ "task-clock", "CPUS-UTILIZED", "cpus-utilized" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
		struct pbench_runs *r = NULL;
		double v[2];
		int err;

		o.mode = PBENCH_RUNS_UNPREPARED;
		o.workload = PBENCH_WORKLOAD_XOR;
		o.iterations = 1000;
		o.runs = 2;
		o.events = rows[i].events;
		o.metric = rows[i].metric;
		err = pbench_runs_new(&r, &o);
		cr_expect_eq(err, 0, "-e %s --metric %s: %s", rows[i].events, rows[i].metric,
			     pbench_strerror(err));
		if (err)
			continue;
		cr_expect_eq(pbench_runs_nr_events(r), 1 + (strchr(rows[i].events, ',') != NULL),
			     "-e %s --metric %s: the metric is one of the events, not another",
			     rows[i].events, rows[i].metric);
		ASSERT_OK(pbench_runs_run(r));
		cr_expect_eq(pbench_runs_values(r, 0, rows[i].ask, v, 2), 2, "'%s' by name: %s",
			     rows[i].ask, pbench_strerror(-ENOENT));
		pbench_runs_free(r);
	}
}

/* "{a,b}" ties events into a group of their own (what a metric's events get): the names lose
 * the braces; untied, the software events share one group. */
Test(metrics, tied_groups)
{
	struct pbench_counters *c;

	cr_assert_eq(pbench_counters_open(&c, "task-clock,cpu-clock,page-faults", NULL), 0);
	cr_expect_eq(pbench_counters_nr_groups(c), 1, "untied: one group");
	pbench_counters_free(c);
	ASSERT_OK(pbench_counters_open(&c, "task-clock,{cpu-clock,page-faults}", NULL));
	cr_expect_eq(pbench_counters_nr(c), 3);
	cr_expect_str_eq(pbench_counters_name(c, 1), "cpu-clock");
	cr_expect_str_eq(pbench_counters_name(c, 2), "page-faults");
	cr_expect_eq(pbench_counters_nr_groups(c), 2, "the tied pair in a group of its own");
	pbench_counters_free(c);
	cr_assert_eq(pbench_counters_open(&c, "{task-clock},{cpu-clock},{page-faults}", NULL), 0);
	cr_expect_eq(pbench_counters_nr_groups(c), 3, "three groups of one");
	pbench_counters_free(c);
}

/* pbench list --metrics under a forced PMU: the events named, none opened (libpfm4 then knows
 * no generic perf event, so a probe would call task-clock unknown). */
Test(metrics, list_forced)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	setenv("LIBPFM_FORCE_PMU", "icl", 1);
	cr_assert_not_null(f);
	cr_assert_eq(pbench_metric_list_write_text(f), 0);
	fclose(f);
	cr_expect(strstr(buf, "libpfm4's PMU here: icl, forced by LIBPFM_FORCE_PMU"), "%s", buf);
	cr_expect(strstr(buf, "  topdown-retiring     topdown        named\n"), "%s", buf);
	cr_expect(strstr(buf, "  cpus-utilized        default        named\n"), "%s", buf);
	cr_expect(strstr(buf, "events: " ICL_TD "\n"), "%s", buf);
	cr_expect_null(strstr(buf, "unknown event"), "%s", buf);
	free(buf);
}
