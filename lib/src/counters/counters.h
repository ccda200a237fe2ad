/* SPDX-License-Identifier: MIT */
/*
 * The counters module (lib/src/counters/): the clock (clock.c), the user-space read of a perf
 * mmap page (mmap.c), event names to attributes (events.c, events_names.c) and the speed
 * references (speed.c: the clock's and the issue throughput's), declared for the files of the
 * library. Never installed.
 */
#ifndef PBENCH_COUNTERS_COUNTERS_H
#define PBENCH_COUNTERS_COUNTERS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pbench.h"

/* clock.c */
/* CPUID 0x80000007 EDX[8], the invariant TSC bit: 1 or 0; -1 where there is no CPUID. */
int pb_cpuid_invariant_tsc(void);
/* Exact floor(ticks * mult / 2^shift) without overflow (128-bit product). */
uint64_t pb_mul_shift(uint64_t ticks, uint64_t mult, uint32_t shift);
/* mult/shift for a clock of hz ticks per second such that ns = ticks*mult >> shift. */
void pb_mult_shift_for_hz(uint64_t hz, uint64_t *mult, uint32_t *shift);
/* Frequency from the perf page's time_mult/time_shift: 1e9 * 2^shift / mult, rounded. */
uint64_t pb_hz_from_perf(uint32_t time_mult, uint16_t time_shift);
/* Frequency from CPUID 0x15 (denominator, numerator, crystal Hz); 0 when not enumerated.
 * Leaf 0x16 is not used: it gives the nominal frequency, not the TSC's. */
uint64_t pb_hz_from_cpuid15(uint32_t eax, uint32_t ebx, uint32_t ecx);

/* mmap.c: the user-space read of a perf mmap page (kernel ABI, libperf's sequence). */
struct pb_page_read {
	uint64_t value;		/* count = offset + sign-extended pmc */
	uint64_t enabled;
	uint64_t running;
};
/* Sign-extend the low width bits of a raw PMC value (1 <= width <= 64). */
int64_t pb_pmc_sign_extend(uint64_t raw, unsigned width);
/* The time_enabled/running extrapolation term: time_offset + cyc*time_mult >> time_shift,
 * with the cap_user_time_short adjustment when time_mask is non-zero. */
uint64_t pb_page_time_delta(uint64_t cyc, uint32_t time_mult, uint16_t time_shift,
			    uint64_t time_offset, uint64_t time_cycles, uint64_t time_mask);
/* Read one page. rdpmc(idx) and rdtsc() are the instruction readers (tests pass recorded
 * values). Returns 0, or -PBENCH_ENO_RDPMC if the page has no user-readable counter now. */
int pb_page_read(const volatile struct perf_event_mmap_page *pc,
		 uint64_t (*rdpmc)(uint32_t idx), uint64_t (*rdtsc)(void),
		 struct pb_page_read *out);
/* The counter of page index idx + 1 (x86 rdpmc; arm64 PMEVCNTR<idx>_EL0, PMCCNTR_EL0 for 31)
 * and the clock of the page's time fields (TSC; arm64 CNTVCT_EL0). */
uint64_t pb_rdpmc(uint32_t idx);
uint64_t pb_rdtsc(void);
/* 1 if this build can read counters in user space at all (x86-64, arm64). */
int pb_arch_user_read(void);

/* events.c */
struct pb_event {
	char name[128];			/* as the user wrote it */
	struct perf_event_attr attr;
	int kind;			/* enum pbench_event_kind */
	const char *why;		/* libpfm4's reason a name did not resolve (its static
					 * string), or NULL */
};
/* Resolve one name to an attr. Returns 0, -PBENCH_EUNKNOWN_EVENT or -PBENCH_EPFM. It does not
 * log: enumerating the names for a suggestion resolves hundreds, and libpfm4 refuses tens of
 * them on a machine with a PMU (33 lines for one typo on a Zen 4); the caller says what the
 * user asked about (ev->why). */
int pb_event_resolve(const char *name, struct pb_event *ev);
int pb_pfm_init(void);
/* The rule of names events and metrics share: a (alen bytes) and b (blen bytes) name one
 * counter to the kernel, case and modifiers (":u") aside (cycles:u is cycles; a PMU's
 * "pmu/.../" names keep theirs). libpfm4 resolves names regardless of case (TASK-CLOCK is
 * task-clock): a counter listed twice, a metric's event found in a list, the figure asked for
 * (pb_metric_target_request()) all follow it. */
int pb_event_same(const char *a, size_t alen, const char *b, size_t blen);

/* events_names.c: pb_events_names() is in counters/event_entry.h. */
/* Set the user-access format bits of attr's PMU where it has them (arm64: `rdpmc` config1:1,
 * and with want_long `long` config1:0, 64-bit counters). Returns the PB_USER_READ_* bits set;
 * 0 when the PMU has no rdpmc field (x86 needs none; other PMUs cannot be read). */
#define PB_USER_READ_RDPMC 1
#define PB_USER_READ_LONG 2
int pb_pmu_user_read_bits(struct perf_event_attr *attr, int want_long);
/* Reason text for a failed perf_event_open of ev with errno err; fills buf. */
void pb_open_reason(const struct pb_event *ev, int err, char *buf, size_t len);
/* Status for a failed open (NOT_SUPPORTED or NO_PERMISSION). */
int pb_open_status(int err);

/* speed.c: the reference loop (n iterations; returns its result so it cannot be dropped), one
 * timed pass of it in ns, and the iterations for a pass of about target_ns on this CPU. */
uint64_t pb_speed_loop(uint64_t n, uint64_t seed);
double pb_speed_pass(uint64_t iterations);
/* speed.c: the clock's reference, a dependent chain of multiply-add (latency-bound: the clock's
 * speed, not the share of the core's issue slots this thread gets), and one timed pass in ns. */
uint64_t pb_clock_loop(uint64_t n, uint64_t seed);
double pb_clock_pass(uint64_t iterations);
uint64_t pb_clock_calibrate(double target_ns);
uint64_t pb_speed_calibrate(double target_ns);
/* speed.c: pbench_speed_new() with both references calibrated to pass_ns a pass instead of
 * PBENCH_SPEED_LOOP_NS (the runs' readings around each run: shorter, as they are taken a run). */
int pb_speed_new_pass(struct pbench_speed **out, double pass_ns);
/* What r of the times against 1/factor says: "it explains the spread" (>= 0.8), "part of the
 * spread" (>= 0.5), else "not what spread the runs". */
const char *pb_speed_corr_words(double r);
/* speed.c: what the two references read, in the words every sentence about them uses (issue
 * 27): the throughput reference's is not the CPU's speed, the clock's is. */
#define PB_SPEED_THROUGHPUT "the core's issue throughput available to this thread"
#define PB_SPEED_SIBLING "contention from a sibling sharing the core"
/* speed.c: what took the core's issue slots while the clock held, as far as this machine
 * knows (issue 37): PB_SPEED_SIBLING where a CPU has a sibling thread (topology's
 * thread_siblings_list, or smt/active), else on a guest (/proc/cpuinfo's hypervisor flag)
 * PB_SPEED_HOST_SIBLING, else PB_SPEED_NO_SIBLING: never a sibling the topology says is absent.
 * Read through sysfs.c (recorded trees). */
#define PB_SPEED_HOST_SIBLING "this guest sees one thread per core: the host may run another " \
	"guest's thread on this core's sibling"
#define PB_SPEED_NO_SIBLING "not a sibling (one thread per core here): what took the core's " \
	"issue slots is not known"
const char *pb_speed_sibling_words(void);
/* speed.c: what a clock's factors were read from, in words: PB_SPEED_PMU_CLOCK for a summary
 * whose source is the PMU, else "latency-bound reference". */
#define PB_SPEED_PMU_CLOCK "cycles over task-clock, the PMU's"
const char *pb_speed_clock_words(const struct pbench_speed_summary *c);
/* speed.c: "the CPU's clock varied 1.33x ..." or "<PB_SPEED_THROUGHPUT> varied ..." as
 * pbench_speed_explain() says it of set summaries, for a line over several sets (the
 * contest's, a verdict's): which reference varied most plainly. 1: the clock varied; 0: the
 * throughput did with the clock steady or not read; -1: neither. */
int pb_speed_which(const struct pbench_speed_summary *thr, const struct pbench_speed_summary *clk);
/* speed.c: pbench_speed_read() and pbench_speed_read_clock() given the reading taken just
 * before on this CPU (near_ns; NaN: none): the passes stop at the first within 1% of it
 * (read_one()). */
int pb_speed_read_near(struct pbench_speed *s, double near_ns, double *ns, double *cost_ns);
int pb_speed_read_clock_near(struct pbench_speed *s, double near_ns, double *ns,
			     double *cost_ns);
/* The clock reference's iterations a pass (0 until its first reading): with its best
 * reading, its ns an iteration, comparable between invocations (a baseline and today). */
uint64_t pb_speed_clock_iterations(const struct pbench_speed *s);


/* metrics.c: the metric table. The events metric m needs on this CPU (NULL with *reason when
 * it cannot be made here), how its value is made (pb_metric_value()'s calc; -1: n/a), its
 * name, the event perf stat prints it beside (NULL: a line of its own), label and unit;
 * whether it is per iteration of a built-in workload; a name to its index (-1); a list of
 * names and groups to sel[pbench_metric_nr()] (-PBENCH_EUNKNOWN_EVENT, said by pb_fail());
 * one run's value from its events' scaled counts v (in the order of its events), the run's
 * wall time and iterations (NaN: cannot be made). */
const char *pb_metric_events(int m, const char **reason);
int pb_metric_calc(int m);
const char *pb_metric_name(int m);
const char *pb_metric_anchor(int m);
const char *pb_metric_label(int m);
const char *pb_metric_unit(int m);
int pb_metric_per_iteration(int m);
int pb_metric_find(const char *name);
int pb_metric_higher_better(int m);
/* A list of metric names and groups (opts.metrics, -M) as a list: not empty, no empty name
 * between its commas (NULL: none asked, 0). 0 or -PBENCH_EBAD_EVENT_LIST with its line. */
int pb_metric_list_check(const char *list);
int pb_metric_select(const char *list, unsigned char *sel);
double pb_metric_value(int calc, const double *v, int nv, double wall_ns, double iterations);
/* metrics_names.c: the figure decided on (pbench_runs_opts.metric, a contest's), a
 * name, before the events open: the event list and the metrics that count it (*events_out,
 * *metrics_out malloc'ed, NULL: as given), or the name error (-PBENCH_EUNKNOWN_EVENT, its "did
 * you mean" said by pb_fail_msg()). NULL or "wall-time": the wall time, 0. */
int pb_metric_target_request(const char *target, const char *events, const char *metrics,
			     char **events_out, char **metrics_out);
/* The list base plus the events of the metrics sel selects, each metric's hardware events
 * tied into one group ("{a,b}"); *out malloc'ed. 0, -ENOMEM. */
int pb_metric_event_list(const char *base, const unsigned char *sel, char **out);

/* The figures of n values (metrics.c): the mean, its SEM in % of it, the median, min, max,
 * stddev and CV; NaN where n cannot give them (none; the spread of one). */
void pb_figures(const double *x, size_t n, double *mean, double *sem_pct, double *median,
		double *min, double *max, double *stddev, double *cv_pct);
/* An event's summary over runs (pbench_runs_event_summary(), pbench_result_event_summary()),
 * a run's count at a time: pb_event_summary_add() counts run k into o, its scaled value into
 * x[(*n)++] when it was counted (and its running share into *run_sum); pb_event_summary_end()
 * then sets the status from what was counted, the running share and the figures. */
int pb_event_counted(const struct pbench_count *k);
void pb_event_summary_add(struct pbench_event_summary *o, const struct pbench_count *k,
			  double *x, size_t *n, double *run_sum);
void pb_event_summary_end(struct pbench_event_summary *o, const double *x, size_t n,
			  double run_sum);

#endif
