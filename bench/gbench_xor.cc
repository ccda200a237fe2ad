// SPDX-License-Identifier: MIT
//
// gbench_xor: the xor loop of libpbench (pbench_workload_xor) timed by Google Benchmark the way
// its users write it, and, with --pbench, by pbench_measure() with its defaults. bench_measure
// runs this program as a child, once per tool and size, and compares the two answers.
//
// Usage: gbench_xor [--benchmark_* flags] [ITERATIONS...]    Google Benchmark (default sizes
//                                                           when none are given)
//        gbench_xor --pbench ITERATIONS [SEM_PCT BUDGET_MS]  pbench_measure (its defaults, or
//                                                           this target and budget): one line
//        gbench_xor --calibrate NS...                       the iteration count of a call of
//                                                           about NS ns, one line each
//
// Why both tools run from this one binary: a loop's speed depends on where the linker puts it.
// The xor loop is 19 bytes; placed across a 64-byte line it ran at 0.55 ns an iteration on the
// development VM (AMD EPYC), placed within one at 0.28 ns, in the same function from the same
// libpbench.a linked into two programs. Timing it from two binaries would compare layouts, not
// harnesses. Here both tools call the same bytes at the same address, built with the same
// flags; only the harness around the call differs.
#include <benchmark/benchmark.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "pbench.h"

static const uint64_t seed = 0x9e3779b97f4a7c15ull;

// ---- Google Benchmark --------------------------------------------------------------------

static void bm_xor(benchmark::State &state)
{
	const uint64_t n = static_cast<uint64_t>(state.range(0));

	for (auto _ : state)
		benchmark::DoNotOptimize(pbench_workload_xor(n, seed));
}

// ---- pbench -------------------------------------------------------------------------------

struct xor_ctx {
	uint64_t n;
};

static void xor_fn(void *ctx)
{
	uint64_t r = pbench_workload_xor(static_cast<xor_ctx *>(ctx)->n, seed);

	pbench_do_not_optimize(r);
}

static double now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

// One line, read by bench_measure: key=value, times in ns per call. sem_pct and budget_ms 0:
// the defaults.
static int run_pbench(uint64_t n, double sem_pct, double budget_ms)
{
	struct pbench_measure_opts opts = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_result *r;
	xor_ctx ctx = { n };
	double t0, wall;
	int err;

	if (sem_pct > 0)
		opts.target_sem_pct = sem_pct;
	if (budget_ms > 0)
		opts.budget_ms = budget_ms;
	t0 = now_ns();
	err = pbench_measure(&r, xor_fn, &ctx, &opts);
	wall = now_ns() - t0;
	if (err) {
		std::fprintf(stderr, "gbench_xor: error: pbench_measure: %s\n",
			     pbench_strerror(err));
		return 1;
	}
	const struct pbench_summary *s = pbench_result_summary(r);
	std::printf("pbench n=%" PRIu64 " mean_ns=%.9g sem_ns=%.9g samples=%zu", n, s->mean, s->sem,
		    s->n);
	std::printf(" iterations=%" PRIu64 " overhead_ns=%.9g stop=%s flags=%u wall_ns=%.0f\n",
		    pbench_result_iterations(r), pbench_result_overhead_ns(r),
		    pbench_stop_rule_name(pbench_result_stop_rule(r)), pbench_result_flags(r), wall);
	pbench_result_free(r);
	return 0;
}

// ---- sizes --------------------------------------------------------------------------------

// ns per call over at least 20 ms of calls (at least one call), the clock read between
// batches that double, so that its ~20 ns are spread over many short calls.
static double ns_per_call(uint64_t n)
{
	double t0 = now_ns(), t;
	uint64_t calls = 0;

	for (uint64_t batch = 1;; batch *= 2) {
		for (uint64_t i = 0; i < batch; i++)
			benchmark::DoNotOptimize(pbench_workload_xor(n, seed));
		calls += batch;
		t = now_ns() - t0;
		if (t >= 20e6)
			return t / (double)calls;
	}
}

// The iteration count of a call lasting about target_ns, in this binary (see the top).
static uint64_t size_for(double target_ns)
{
	double n = 1000;

	for (int round = 0; round < 3; round++)
		n = std::fmax(1, std::round(n * target_ns / ns_per_call((uint64_t)n)));
	return (uint64_t)n;
}

// ---- main ---------------------------------------------------------------------------------

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = std::strtod(s, &end);
	if (errno || *end || end == s || !(*out > 0)) {
		std::fprintf(stderr, "gbench_xor: error: bad number '%s'\n", s);
		return -1;
	}
	return 0;
}

static int parse_count(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = std::strtoll(s, &end, 10);
	if (errno || *end || end == s || *out < 1) {
		std::fprintf(stderr, "gbench_xor: error: bad count '%s'\n", s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const int64_t defaults[] = { 36, 3600, 360000, 180000000 };
	double sem_pct = 0, budget_ms = 0;
	long long n;
	int nr = 0;

	if (argc >= 2 && !std::strcmp(argv[1], "--pbench")) {
		if ((argc != 3 && argc != 5) || parse_count(argv[2], &n) ||
		    (argc == 5 && (parse_double(argv[3], &sem_pct) ||
				   parse_double(argv[4], &budget_ms)))) {
			std::fprintf(stderr, "usage: gbench_xor --pbench ITERATIONS "
				     "[SEM_PCT BUDGET_MS]\n");
			return 2;
		}
		return run_pbench((uint64_t)n, sem_pct, budget_ms);
	}
	if (argc >= 2 && !std::strcmp(argv[1], "--calibrate")) {
		for (int i = 2; i < argc; i++) {
			if (parse_count(argv[i], &n))
				return 2;
			std::printf("%" PRIu64 "\n", size_for((double)n));
		}
		return 0;
	}

	benchmark::Initialize(&argc, argv);
	// What Initialize left: the sizes.
	for (int i = 1; i < argc; i++) {
		if (parse_count(argv[i], &n))
			return 2;
		benchmark::RegisterBenchmark("xor", bm_xor)->Arg(n);
		nr++;
	}
	if (!nr)
		for (int64_t d : defaults)
			benchmark::RegisterBenchmark("xor", bm_xor)->Arg(d);
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
