/* SPDX-License-Identifier: MIT */
/*
 * The base module (lib/src/base/): what every other file may use, declared for the files of
 * the library. Errors and the log (log.c), the one check and copy of a caller's versioned
 * struct, the /sys and /proc reader (sysfs.c), reason strings (intern.c), enum names
 * (names.c), the raw perf_event_open (sys_perf.c), prose wrapped at a width (wrap.c), number
 * formatting, CSV and Markdown (format.c), CPU lists (cpulist.c), SVG helpers (plot.c), the
 * reader of an input file and the rule of its numbers (input.c).
 * JSON (jsonutil.h) and /proc/interrupts (irq_table.h) have their own headers. Never
 * installed.
 */
#ifndef PBENCH_BASE_BASE_H
#define PBENCH_BASE_BASE_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "pbench.h"

#define PB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* log.c */
/* s as it may be printed, into out (len bytes, cut before a character or an escape that
 * does not fit): control characters, bytes that are not UTF-8 and the code points that
 * reorder or hide text (C1, bidi marks, embeddings, overrides, isolates) as \xHH or \uHHHH,
 * and (backslash 1) a backslash as \\: valid UTF-8 with no control character, so that no
 * input forges a line, restyles a terminal or breaks a JSON, XML or OpenMetrics document.
 * Returns the bytes written. pb_fail() passes every message through it (backslash 0). */
size_t pb_text_show(char *out, size_t len, const char *s, int backslash);
/* 0 when s is UTF-8 (controls 1: and holds nothing pb_text_show() escapes but a backslash:
 * no C0, DEL, C1, bidi mark, embedding, override or isolate), else -(the 1-based offset of
 * its first bad byte). */
int pb_text_check(const char *s, int controls);
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
/* pb_fail() whose text is the whole message, said as a person reads it: pbench_strerror(err)
 * gives it without the code's generic text in front ("'x' failed before any timed run: exit
 * 1; ...", "unknown metric 'x' ...": the failures of runs, a contest and event names, which
 * pbench stat and compare print as they are). */
int pb_fail_msg(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The end of every writer on a FILE *: flush it and return 0, or the error of the write that
 * failed (-ENOSPC for a full disk, -EPIPE, ...; -EIO only when none is known), so a caller
 * can say why. */
int pb_stream_end(FILE *f);
void pb_fail_clear(void);
/* This thread's detail kept across a step that may fail on its own and whose failure does not
 * count (a cleanup after an earlier failure): pb_fail_save() before it, pb_fail_restore()
 * after, so the call still returns its first failure with that failure's words. */
#define PB_FAIL_LEN 4096
struct pb_fail_saved {
	int err, whole;
	char text[PB_FAIL_LEN];
};
void pb_fail_save(struct pb_fail_saved *s);
void pb_fail_restore(const struct pb_fail_saved *s);
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

/* pb_copy_in(), pb_copy_out(): the one way to copy a caller's versioned struct; PB_HAS_FIELD:
 * whether the caller's struct is large enough to hold field f. */
#include "base/abi.h"

#define PB_HAS_FIELD(p, f) ((p)->size >= offsetof(__typeof__(*(p)), f) + sizeof((p)->f))

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
 * a prepared state is restored on (PBENCH_PREPARE_SIGNALS), and those the command line's stop
 * flag catches (cli/support/stop.c). Not SIGPIPE (a write's error) nor those of a fault of the
 * thread itself. */
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

/* output.c: path with every symbolic link followed, one name at a time, into *out (malloc'd;
 * a name that does not exist yet and what follows it kept as they are), refusing as the
 * kernel's protected_symlinks rule does whatever fs.protected_symlinks says: a link in a
 * sticky world-writable directory owned by neither geteuid() nor the directory's owner is
 * -EACCES (pb_fail: the link, its owner, why). -ELOOP past 40 links. /proc's links to a pipe
 * or a terminal (/dev/stdout) are left to the kernel. What is opened at *out afterwards
 * should be opened with O_NOFOLLOW. A text: a directory on it replaced by a link after the
 * walk is followed by a later open (pbench_output_open() holds the directory instead). */
int pb_path_resolve(const char *path, char **out);

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
/* Recorded trees (PBENCH_SYSFS_ROOT, PBENCH_PROCFS_ROOT) are read only between begin and end
 * (the checks); pb_recorded_everywhere(1) extends that to every read, for unit tests of the
 * live readers on recorded data. pb_recorded_set(): either variable is set. */
void pb_recorded_begin(void);
void pb_recorded_end(void);
void pb_recorded_everywhere(int on);
int pb_recorded_set(void);
/* Reads go to a recorded tree right now (inside a check, or everywhere for unit tests). */
int pb_recorded_active(void);

/* input.c: printf into a caller's reason buffer why of len bytes (nothing when why is NULL
 * or len 0), for the functions that still hand their reason back that way. */
void pb_why_set(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* cpulist.c: CPU sets as bitmaps of PB_MAX_CPUS bits. */
#define PB_MAX_CPUS 4096
/* Parse a cpulist into a bitmap of PB_MAX_CPUS bits; returns the count, or -EINVAL (not a
 * cpulist) or -ERANGE (a CPU beyond PB_MAX_CPUS). */
int pb_cpulist_to_set(const char *list, unsigned char *set);
static inline int pb_cpu_in(const unsigned char *set, int cpu)
{
	return cpu >= 0 && cpu < PB_MAX_CPUS && (set[cpu / 8] >> (cpu % 8)) & 1;
}
/* Add cpu to the bitmap (on) or take it out. */
static inline void pb_cpu_put(unsigned char *set, int cpu, int on)
{
	if (cpu < 0 || cpu >= PB_MAX_CPUS)
		return;
	if (on)
		set[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
	else
		set[cpu / 8] &= (unsigned char)~(1u << (cpu % 8));
}
/* How many CPUs the bitmap holds. */
static inline int pb_cpuset_count(const unsigned char *set)
{
	int n = 0;

	for (int i = 0; i < PB_MAX_CPUS / 8; i++)
		n += __builtin_popcount(set[i]);
	return n;
}
/* A bitmap as the kernel prints a cpulist ("0-1,4-7"); "none" for the empty set. */
void pb_cpuset_format(const unsigned char *set, char *buf, size_t len);

/* input.c: the one reader of an input a user hands pbench (analyze's samples, the history's
 * documents) and the one rule of the numbers in it. */
/* The most an input file may hold: more is not samples or a document (/dev/zero). JSON is
 * parsed whole by jansson, at 10 to 13 times its size in memory, so it is bounded lower. */
#define PB_INPUT_MAX ((size_t)64 << 20)
#define PB_INPUT_JSON_MAX ((size_t)16 << 20)
/* How long a FIFO may go without a writer before its reader gives up on it, in ms. */
#define PB_INPUT_FIFO_WAIT_MS 1000
/* The whole of the file at path ("-": stdin) in *text (malloc'd, NUL-terminated after its
 * *len bytes), read blocking once open. 0, or with why (cut to wlen) one line naming path:
 * -errno of open or read, -EISDIR, -EAGAIN (a FIFO no program wrote to in
 * PB_INPUT_FIFO_WAIT_MS), -EFBIG (more than max bytes), -ENOMEM. A read a signal interrupts
 * goes on, unless stop (may be NULL: never) is set then: the error is -EINTR. */
int pb_input_read(const char *path, size_t max, const volatile int *stop, char **text,
		  size_t *len, char *why, size_t wlen);
/* The first NUL byte of text, or NULL; *line (when not NULL) its line, from 1. */
const char *pb_input_nul(const char *text, size_t len, size_t *line);
/* The number the len bytes at s spell, spaces around it aside: pbench_format_parse()'s grammar
 * (no hex, no inf or nan). 0 and *x (a subnormal too: pb_input_value() refuses it), -ERANGE
 * for what strtod takes as inf, nan or out of range ("not a finite number"), -EINVAL for the
 * rest ("not a number"). */
int pb_input_number(const char *s, size_t len, double *x);
/* The one rule of a value read: 0 when x is finite and not subnormal (and, a time, not
 * negative), else what it is, which pb_input_value_why() says ("is subnormal, ..."). */
enum { PB_INPUT_NOT_FINITE = 1, PB_INPUT_SUBNORMAL, PB_INPUT_NEGATIVE };
int pb_input_value(double x, int time);
const char *pb_input_value_why(int code);

/* Per-CPU times from a "cpuN ..." line of /proc/stat, in USER_HZ ticks. */
struct pb_cpu_times {
	unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
	int valid;
};
/* Parse one line of /proc/stat: for "cpuN v0 v1 ..." set *cpu and the fields present (valid
 * set), and return how many values it has (steal is the 8th, from Linux 2.6.11); -1 for any
 * other line (the "cpu " total, intr, ctxt...). The line is not modified. */
int pb_parse_cpu_times(const char *line, int *cpu, struct pb_cpu_times *t);

/* The library's one copy of a reason string, valid for the life of the process ("" for NULL
 * or ""): what a struct pbench_count's reason points to (intern.c). */
const char *pb_intern(const char *s);

/* names.c: an event's status in text, as perf stat spells it ("not supported"); the text
 * writers put it between < and >. */
const char *pb_event_status_text(int status);

/* sys_perf.c: the raw system call. */
int pb_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags);

/*
 * wrap.c: text written to f as a paragraph wrapped at width columns, ending with a newline,
 * the way the text writers print their prose (a finding's why and fix, an outlier's cause, a
 * note): a line breaks only at a space, never inside a word (a command, a path or a URL stays
 * whole; a word longer than the width gets a line of its own), nor between a number and its
 * unit ("8.13 ms"), and only past the indent; continuation lines start with indent spaces (at
 * most width / 2). The text's leading spaces are kept, a '\n' in it starts a new line.
 * Columns are characters (UTF-8), ANSI colour sequences take none. width 0: the text as it
 * is, unwrapped. Errors: -EINVAL (f or text NULL, a negative width or indent), -EIO (writing
 * to f failed). The command line's messages wrap by it too (cli/support/term.c).
 */
int pb_format_wrap(FILE *f, const char *text, int width, int indent);
/* wrap.c: pb_format_wrap() of a printf format (the text may be any length). */
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
/* format.c: a count as perf stat prints it: grouped by thousands ("1,234,567"), two
 * decimals below 100. */
void pb_format_count(char *buf, size_t len, double v);
/* format.c: a figure as a person reads it, never in exponent notation where fixed notation
 * fits: unit "ns" a time in its unit with 4 significant digits ("69.00 ms"); any other value
 * grouped by thousands from 1,000 ("26,700", "-1,234,568"), a whole number as it is ("75"),
 * 4 significant digits otherwise ("75.33", "0.04618"), then " unit" when unit is not empty;
 * %.4g only past 1e15 or below 1e-9; "n/a" when not finite. Returns buf. */
const char *pb_format_figure(char *buf, size_t len, double v, const char *unit);
/* format.c: a percentage with `digits` decimals, or (digits < 0) with the precision its size
 * needs (157%, 4.3%, 0.53%, 0.0004%); %.3g from 1e6 %; "n/a" when not finite. Returns buf. */
const char *pb_format_pct(char *buf, size_t len, double pct, int digits);
/* format.c: s as it may be printed (what analyze shows of a name): pb_text_show() with its
 * backslashes doubled, malloc'd; NULL: out of memory. */
char *pb_text_shown(const char *s);
/* format.c: a p-value as the reports print it: "%.2g", "< 1e-300" below PB_P_TINY (a p of 0
 * is only "beyond what a double tells"), "n/a" when NaN. Returns buf. */
#define PB_P_TINY 1e-300
const char *pb_format_p(char *buf, size_t len, double p);
/* format.c: a CSV field, quoted (quotes doubled) when it holds a comma, a quote or a line
 * break (RFC 4180). */
void pb_csv_text(FILE *f, const char *s);
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

/* plot.c: SVG text with &<>" escaped (control characters dropped), and a round axis step
 * (1, 2, 2.5, 5 or 10 x 10^k) at or above raw. */
void pb_svg_text(FILE *f, const char *s);
double pb_nice_step(double raw);

#endif
