/* SPDX-License-Identifier: MIT */
/* Internals shared between the library's files. Never installed. */
#ifndef PBENCH_INTERNAL_H
#define PBENCH_INTERNAL_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pbench.h"

#define PB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* log.c */
void pb_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A failing call says which argument and why: pb_fail() keeps the text as this thread's
 * detail of err (pbench_strerror(err) then gives it), sends it to the log callback and returns
 * err (negative); logged at debug level, since the library itself takes another way after
 * some failures (pb_check_struct() below logs an error: only a caller gets a struct wrong).
 * The text starts with the public function's name, "pbench_measure(): ...",
 * or with the error's own words ("unknown event 'cylces' ..."). pb_fail_clear() forgets it: at
 * the start of a public call that may leave one, so that a later failure without a detail is
 * not shown with an earlier one's.
 */
int pb_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The end of every writer on a FILE *: flush it and return 0, or the error of the write that
 * failed (-ENOSPC for a full disk, -EPIPE, ...; -EIO only when none is known), so a caller
 * can say why. */
int pb_stream_end(FILE *f);
void pb_fail_clear(void);
/* pb_fail() that also sets pbench_counters_last_error() (the name errors of an event list),
 * and its clearing at the start of pbench_counters_open(). */
int pb_set_last_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pb_clear_last_error(void);
/*
 * The check of a caller's versioned struct (its size_t size first) at the door of a public
 * function: 0 when p is set and its .size is at least min (and holds the size field itself);
 * otherwise -EINVAL through pb_fail(), naming the function, the argument and the struct, and
 * the fix (the _INIT macro when the struct has one, init; NULL when not). A struct that
 * passes clears an older detail (pb_fail_clear()).
 * PB_CHECK_STRUCT(opts, pbench_measure_opts, 0, "PBENCH_MEASURE_OPTS_INIT") in a public
 * function; pb_check_struct() itself where the check is in a helper of several.
 */
int pb_check_struct(const char *fn, const char *arg, const char *type, const void *p,
		    size_t min, const char *init);
#define PB_CHECK_STRUCT(p, type, min, init) \
	pb_check_struct(__func__, #p, #type, (p), (min), (init))
/* compare_fns.c: a comparison's writers check it with this (fn: the writer). */
int pb_comparison_check(const struct pbench_comparison *c, const char *fn);

/* sysfs.c: every read of /sys and /proc goes through these. */
/* Map "/sys/..." or "/proc/..." to the root from PBENCH_SYSFS_ROOT / PBENCH_PROCFS_ROOT. */
int pb_path(char *buf, size_t len, const char *path);
/* Read a whole small file into buf (NUL-terminated, trailing newline stripped). Returns the
 * length or -errno. */
int pb_read_file(const char *path, char *buf, size_t len);
/* The whole text of an open file from offset 0, as pb_read_file gives it: for a file read
 * again and again through a kept descriptor (the noise probe's /proc files: that saves the
 * open and close, 10 of 41 us for /proc/interrupts on the development VM). */
int pb_read_fd(int fd, char *buf, size_t len);
/* Read a file holding one integer. */
int pb_read_long(const char *path, long *value);
/* fopen() through the root mapping (for line-by-line reads of larger files). */
FILE *pb_fopen(const char *path);

/* Per-CPU times from a "cpuN ..." line of /proc/stat, in USER_HZ ticks. */
struct pb_cpu_times {
	unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
	int valid;
};
/* Parse one line of /proc/stat: for "cpuN v0 v1 ..." set *cpu and the fields present (valid
 * set), and return how many values it has (steal is the 8th, from Linux 2.6.11); -1 for any
 * other line (the "cpu " total, intr, ctxt...). The line is not modified. */
/* pb_copy_in(), pb_copy_out(): the one way to copy a caller's versioned struct. */
#include "base/abi.h"
/* The signals a thread pbench starts blocks, so that the caller's handlers run in the
 * caller's thread (and interrupt its waits): all but those the kernel sends for a fault of
 * the thread itself. */
static inline void pb_sigset_async(sigset_t *s)
{
	sigfillset(s);
	sigdelset(s, SIGSEGV);
	sigdelset(s, SIGBUS);
	sigdelset(s, SIGFPE);
	sigdelset(s, SIGILL);
	sigdelset(s, SIGTRAP);
	sigdelset(s, SIGSYS);
	sigdelset(s, SIGABRT);
}

/* The signals whose default action ends the process and that arrive from outside (a closed
 * terminal's SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGALRM, the real-time ones...): those
 * a prepared state is restored on (PBENCH_PREPARE_SIGNALS). Not SIGPIPE (a write's error)
 * nor those of a fault of the thread itself. */
static inline void pb_sigset_stop(sigset_t *s)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
				    SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
				    SIGSTKFLT };

	sigemptyset(s);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(s, sigs[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(s, sig);
}

/*
 * The one rule of every summary of runs: pbench stat's and compare's, and pbench analyze's (and
 * a baseline's) of their JSON. A run killed at the timeout was cut short, not measured: it is
 * left out of the summary, its outlier fences and its counts, and the summary says so
 * (PB_RUN_LEFT_OUT). A run that failed (exit non-zero, a signal) ran to its end: it is kept,
 * and the failure is said beside the summary (and in pbench's exit status). As hyperfine
 * keeps failed runs with -i and perf stat -r keeps them.
 */
static inline int pb_run_measured(int timed_out)
{
	return !timed_out;
}
#define PB_RUN_LEFT_OUT "killed at the timeout: cut short, not measured"

#define PB_HAS_FIELD(p, f) ((p)->size >= offsetof(__typeof__(*(p)), f) + sizeof((p)->f))

/* How much stricter a sequential comparison's boundary is than one look's (Pocock): see
 * pbench_stats_verdict(). */
#define PB_VERDICT_LOOK_FACTOR 10

/* The library's one copy of a reason string, valid for the life of the process ("" for NULL
 * or ""): what a struct pbench_count's reason points to (intern.c). */
const char *pb_intern(const char *s);

/* Recorded trees (PBENCH_SYSFS_ROOT, PBENCH_PROCFS_ROOT) are read only between begin and end
 * (the checks); pb_recorded_everywhere(1) extends that to every read, for unit tests of the
 * live readers on recorded data. pb_recorded_set(): either variable is set. */
/* Another process's thread named comm (NULL: this process's name) pinned to cpu alone: its
 * pid, or 0 (rival.c). */
pid_t pb_cpu_rival(int cpu, const char *comm);
void pb_recorded_begin(void);
void pb_recorded_end(void);
void pb_recorded_everywhere(int on);
int pb_recorded_set(void);
/* Reads go to a recorded tree right now (inside a check, or everywhere for unit tests). */
int pb_recorded_active(void);
int pb_parse_cpu_times(const char *line, int *cpu, struct pb_cpu_times *t);

/* plot.c: SVG text with &<>" escaped (control characters dropped), and a round axis step
 * (1, 2, 2.5, 5 or 10 x 10^k) at or above raw. */
void pb_svg_text(FILE *f, const char *s);
double pb_nice_step(double raw);

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
/* names.c: an event's status in text, as perf stat spells it ("not supported"); the text
 * writers put it between < and >. */
const char *pb_event_status_text(int status);

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

/* noise.c: p takes the last text of /proc/interrupts that any probe of with's group read,
 * while the interrupt total has not moved since (the probes of one set of runs, one a CPU);
 * 0 or -errno. irq_reads: how many times p read the file (for the tests). */
int pb_cpu_probe_share(struct pbench_cpu_probe *p, struct pbench_cpu_probe *with);
unsigned long long pb_cpu_probe_irq_reads(const struct pbench_cpu_probe *p);

/* sys_perf.c: the raw system call. */
int pb_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags);

/* Thread-local last error text for name errors. */
/* wrap.c: pbench_format_wrap() of a printf format (the text may be any length). */
int pb_wrapf(FILE *f, int width, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* wrap.c: a line (or lines) written by several calls, then wrapped onto f: write them to what
 * pb_line_open() returns (f itself when width is 0: nothing changes), each ending in '\n', and
 * pb_line_close() writes them wrapped. indent PB_HANG(n): each line's continuations at its own
 * leading spaces and n more (a paragraph of several lines at different depths). */
#define PB_HANG(n) (-(n))
struct pb_line {
	FILE *f, *m;
	char *buf;
	size_t len;
	int width, indent;
};
FILE *pb_line_open(struct pb_line *l, FILE *f, int width, int indent);
int pb_line_close(struct pb_line *l);
/* format.c: a percentage with `digits` decimals, or (digits < 0) with the precision its size
 * needs (157%, 4.3%, 0.53%, 0.0004%); %.3g from 1e6 %; "n/a" when not finite. Returns buf. */
const char *pb_format_pct(char *buf, size_t len, double pct, int digits);
/* format.c: a CSV field, quoted (quotes doubled) when it holds a comma, a quote or a line
 * break (RFC 4180). */
void pb_csv_text(FILE *f, const char *s);
/* command.c: a copy of a NULL-terminated argv (NULL: out of memory), and its release. */
char **pb_argv_dup(char *const *argv);
void pb_argv_free(char **v);
/* child.c: a helper command (hyperfine's setup, prepare, cleanup) run to its end, output to
 * /dev/null (quiet 1) or pbench's own: 0 when it exited 0; 1 when *stop ended the wait (it
 * was ended, with its group); -ECANCELED when it failed, or an error of starting it, with why
 * in words ("the setup command 'x' exited with status 1"). argv NULL: nothing to run, 0. */
int pb_child_helper(char *const *argv, int quiet, const volatile int *stop, const char *what,
		    char *why, size_t len);
/* child.c: a helper command found now (pbench_command_resolve()) and copied into *out
 * (pb_argv_free()); argv NULL: *out NULL, 0. Errors of resolving it, -EINVAL (empty), -ENOMEM,
 * with why in words. */
int pb_command_copy(char *const *argv, char ***out, const char *what, char *why, size_t len);
/* format.c: argv as a POSIX shell would read it back (an argument with anything but
 * [A-Za-z0-9_@%+=:,./-] in single quotes, a quote as '\''), in buf (cut at len - 1); returns
 * the length the whole needs, as snprintf does. */
size_t pb_shell_quote(char *buf, size_t len, char *const *argv);
/* format.c: how many times larger, f >= 1, as people say it: "1.003x", "2.35x", "11.3x",
 * "150x"; "n/a" when f is not a positive number. */
const char *pb_format_factor(char *buf, size_t len, double f);
/* format.c, Markdown: the time unit (ns, us, ms, s) for values around ns and its scale; s
 * as a code span (a pipe escaped for a table cell); s as text, Markdown's characters escaped;
 * the decimals that keep 2 significant digits of err (3 when err is not a number above 0). */
double pb_md_time_unit(double ns, const char **name);
void pb_md_code(FILE *f, const char *s);
void pb_md_text(FILE *f, const char *s);
int pb_md_decimals(double err);

/* speed.c: the reference loop (n iterations; returns its result so it cannot be dropped), one
 * timed pass of it in ns, the iterations for a pass of about target_ns on this CPU, and
 * Pearson's r (NaN below 3 pairs or when either does not vary). */
uint64_t pb_speed_loop(uint64_t n, uint64_t seed);
double pb_speed_pass(uint64_t iterations);
uint64_t pb_speed_calibrate(double target_ns);
double pb_speed_pearson(const double *x, const double *y, size_t n);
/* What r of the times against 1/speed says: "the speed explains the spread" (>= 0.8), "part
 * of the spread" (>= 0.5), else "not what spread the runs". */
const char *pb_speed_corr_words(double r);

/* mem.c: the allocator shim (lib/shim/memshim.h), looked up once. pb_mem_open returns an enum
 * pbench_mem_status (PBENCH_MEM_COUNTED, or why not in *reason, and logged). Then begin
 * zeroes c and counts this thread's allocations into it until end; pause and resume leave
 * out what runs between them (setup_each), and do nothing when no window is open. */
struct pb_mem_counts;
int pb_mem_open(const char **reason);
void pb_mem_begin(struct pb_mem_counts *c);
void pb_mem_end(void);
void pb_mem_pause(void);
void pb_mem_resume(void);
/* Two sets of one memory figure compared (pbench_mem_compare's rule): exact when every value
 * of a side is the same, Welch otherwise. -EINVAL, and pbench_stats_summary's errors. */
int pb_mem_compare_x(const double *xa, size_t na, const double *xb, size_t nb, int kind,
		     double confidence, double same_threshold_pct,
		     struct pbench_mem_comparison *out);

#endif
