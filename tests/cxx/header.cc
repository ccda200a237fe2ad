// SPDX-License-Identifier: MIT
// pbench.h from C++: built by tests/cxx/run.sh against the installed header and library with
// -std=c++17 and -std=c++20, -Wall -Wextra -Werror -pedantic, by g++ and clang++. The option
// initializers give the same defaults as in C (pbench.h documents them), and a call through
// each kind of struct works.
#include <pbench.h>

#include <cstdio>
#include <cstring>

static int failed;

static void check(bool ok, const char *what)
{
	if (!ok) {
		std::printf("FAIL %s\n", what);
		failed = 1;
	}
}

static void work(void *ctx)
{
	unsigned *n = static_cast<unsigned *>(ctx);

	*n += 1;
	pbench_do_not_optimize(*n);
}

int main()
{
	struct pbench_measure_opts mo = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_runs_opts ro = PBENCH_RUNS_OPTS_INIT;
	struct pbench_jitter_opts jo = PBENCH_JITTER_OPTS_INIT;
	struct pbench_prepare_opts po = PBENCH_PREPARE_OPTS_INIT;
	struct pbench_compare_opts co = PBENCH_COMPARE_OPTS_INIT;
	struct pbench_comparison cmp = PBENCH_COMPARISON_INIT;
	struct pbench_counters_opts ko = PBENCH_COUNTERS_OPTS_INIT;
	struct pbench_child_opts ho = PBENCH_CHILD_OPTS_INIT;
	struct pbench_listing_opts lo = PBENCH_LISTING_OPTS_INIT;
	struct pbench_stats_opts so = PBENCH_STATS_OPTS_INIT;
	struct pbench_contest_opts to = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_history_import_opts io = PBENCH_HISTORY_IMPORT_OPTS_INIT;
	struct pbench_contest_entrant te = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_history_record hr = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_plot_series ps = PBENCH_PLOT_SERIES_INIT;
	struct pbench_summary s = {};
	struct pbench_result *r = nullptr;
	const double x[] = { 1, 2, 3, 4 };
	unsigned calls = 0;

	check(io.size == sizeof(io) && io.rev == nullptr && io.time_ns == 0 && io.cpu_time == 0,
	      "PBENCH_HISTORY_IMPORT_OPTS_INIT");
	check(mo.size == sizeof(mo) && mo.warmup_ms == 1200 && mo.min_sample_ms == 1 &&
	      mo.target_sem_pct == 1 && mo.min_samples == 10 && mo.max_samples == 100000 &&
	      mo.budget_ms == 10000 && mo.built_optimized == PBENCH_CALLER_OPTIMIZED + 1 &&
	      mo.iterations == 0 && mo.events == nullptr, "PBENCH_MEASURE_OPTS_INIT");
	check(ro.size == sizeof(ro) && ro.mode == PBENCH_RUNS_PREPARED && ro.cpu == -1 &&
	      ro.warmup_ms == 1200 && ro.runs == 20 && ro.argv == nullptr,
	      "PBENCH_RUNS_OPTS_INIT");
	check(jo.size == sizeof(jo) && jo.duration_s == 5, "PBENCH_JITTER_OPTS_INIT");
	check(po.size == sizeof(po) && po.cpu == -1 && po.priority == PBENCH_PRIORITY_AUTO &&
	      po.warmup_ms == 1200, "PBENCH_PREPARE_OPTS_INIT");
	check(co.size == sizeof(co) && co.confidence == 0.999 && co.same_threshold_pct == 1 &&
	      co.measure == nullptr, "PBENCH_COMPARE_OPTS_INIT");
	check(cmp.size == sizeof(cmp) && cmp.priv == nullptr, "PBENCH_COMPARISON_INIT");
	check(ko.size == sizeof(ko) && ko.cpu == -1 && ko.pid == 0, "PBENCH_COUNTERS_OPTS_INIT");
	check(ho.size == sizeof(ho) && ho.events == nullptr, "PBENCH_CHILD_OPTS_INIT");
	check(lo.size == sizeof(lo) && lo.addr == nullptr, "PBENCH_LISTING_OPTS_INIT");
	check(so.size == sizeof(so) && so.ci_level == 0.95, "PBENCH_STATS_OPTS_INIT");
	check(to.size == sizeof(to) && to.cpu == -1 && to.duet_cpus[1] == -1 &&
	      to.max_time_s == 60, "PBENCH_CONTEST_OPTS_INIT");
	check(te.size == sizeof(te) && te.argv == nullptr && te.stored_ns == nullptr,
	      "PBENCH_CONTEST_ENTRANT_INIT");
	check(hr.size == sizeof(hr) && hr.name == nullptr && hr.n_runs == 0,
	      "PBENCH_HISTORY_RECORD_INIT");
	check(ps.size == sizeof(ps) && ps.ns == nullptr && ps.n == 0, "PBENCH_PLOT_SERIES_INIT");

	s.size = sizeof(s);
	check(pbench_stats_summary(x, 4, nullptr, &s) == 0 && s.mean == 2.5 && s.n == 4,
	      "pbench_stats_summary");
	mo.warmup_ms = 0;
	mo.budget_ms = 50;
	check(pbench_measure(&r, work, &calls, &mo) == 0 && calls > 0 &&
	      pbench_result_nr_samples(r) > 0, "pbench_measure");
	pbench_result_free(r);
	std::printf("pbench %s from C++ %ld: %s\n", pbench_version(), static_cast<long>(__cplusplus),
		    failed ? "failed" : "ok");
	return failed;
}
