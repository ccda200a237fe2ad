/* SPDX-License-Identifier: MIT */
/*
 * TAP-like output of the emulated-PMU suite: "ok N - prog: what", "not ok N - ...",
 * "ok N # SKIP ...", "# diagnostics". tests/pmu/run.sh counts these lines on the guest's
 * console; a program that dies before its plan line ("1..N") counts as a failure.
 */
#ifndef PB_PMU_TAP_H
#define PB_PMU_TAP_H

#include <stdarg.h>
#include <stdio.h>

static const char *tap_prog = "?";
static int tap_n, tap_failed;

static inline void tap_init(const char *prog)
{
	tap_prog = prog;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

__attribute__((format(printf, 2, 3)))
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - %s: ", cond ? "" : "not ", ++tap_n, tap_prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2)))
static inline void skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - %s # SKIP ", ++tap_n, tap_prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", tap_prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The plan line last (TAP allows it at the end): its absence tells the host the program died. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
