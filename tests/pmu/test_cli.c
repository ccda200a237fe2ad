/* SPDX-License-Identifier: MIT */
/*
 * The pbench binary on arm64 with a PMU: `pbench check` reports the arm64 timer and counter
 * checks (arch_sys_counter, CNTVCT_EL0, perf_user_access; no CPUID), `pbench list` says
 * which way each hardware event is read, user space or read() with the reason, `pbench
 * compare` compares instruction counts, which are exact here, and `pbench stat` reads the
 * clock from cycles over task-clock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

static json_t *check_of(json_t *root, const char *id)
{
	json_t *a = json_object_get(root, "checks");

	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *c = json_array_get(a, i);

		if (!strcmp(json_string_value(json_object_get(c, "id")) ?: "", id))
			return c;
	}
	return NULL;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

static void check(void)
{
	char *argv[] = { "/bin/pbench", "check", "--json", NULL };
	json_t *root = run_json(argv), *c;

	if (!ok(root != NULL, "check: pbench check --json ran"))
		return;
	c = check_of(root, "clock.source");
	diag("clock.source: %s %s", str(c, "status"), str(c, "value"));
	ok(c && !strcmp(str(c, "status"), "ok") && strstr(str(c, "value"), "arch_sys_counter"),
	   "check: clock.source ok, arch_sys_counter");
	c = check_of(root, "clock.tsc");
	diag("clock.tsc: %s %s", str(c, "status"), str(c, "value"));
	ok(c && !strcmp(str(c, "status"), "ok") && strstr(str(c, "value"), "CNTVCT_EL0") &&
	   strstr(str(c, "value"), "62.500 MHz"), "check: clock.tsc names the generic timer "
	   "at 62.5 MHz");
	c = check_of(root, "perf.rdpmc");
	diag("perf.rdpmc: %s %s", str(c, "status"), str(c, "value"));
	ok(c && !strcmp(str(c, "status"), "ok") && strstr(str(c, "value"), "perf_user_access 1"),
	   "check: perf.rdpmc ok from perf_user_access");
	c = check_of(root, "perf.pmu");
	diag("perf.pmu: %s %s", str(c, "status"), str(c, "value"));
	ok(c && !strcmp(str(c, "status"), "ok") && strstr(str(c, "value"), "armv8_pmuv3"),
	   "check: perf.pmu ok, armv8_pmuv3");
	json_decref(root);
}

/* The "read" and "read_reason" of event name in `pbench list --json`. */
static int list_read(const char *name, char *read, size_t rl, char *why, size_t wl)
{
	char *argv[] = { "/bin/pbench", "list", "--json", NULL };
	json_t *root = run_json(argv), *a;
	int found = 0;

	a = json_object_get(root, "events");
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *e = json_array_get(a, i);

		if (strcmp(str(e, "name"), name))
			continue;
		snprintf(read, rl, "%s", str(e, "read"));
		snprintf(why, wl, "%s", str(e, "read_reason"));
		found = 1;
	}
	json_decref(root);
	return found;
}

static void list(void)
{
	char read[32], why[256];

	ok(list_read("instructions", read, sizeof(read), why, sizeof(why)) &&
	   !strcmp(read, "user"), "list: instructions read in user space (%s)", read);
	ok(list_read("cycles", read, sizeof(read), why, sizeof(why)) && !strcmp(read, "user"),
	   "list: cycles read in user space (%s)", read);
	ok(list_read("task-clock", read, sizeof(read), why, sizeof(why)) &&
	   !strcmp(read, "syscall") && strstr(why, "software"), "list: task-clock read with "
	   "read() (%s)", why);
	write_sysctl("/proc/sys/kernel/perf_user_access", "0");
	ok(list_read("instructions", read, sizeof(read), why, sizeof(why)) &&
	   !strcmp(read, "syscall") && strstr(why, "perf_user_access"), "list: with "
	   "perf_user_access=0, instructions read with read(): %s", why);
	write_sysctl("/proc/sys/kernel/perf_user_access", "1");
}

/* Event e's object among an entrant's events in pbench compare's JSON. */
static json_t *event_of(json_t *root, int entrant, const char *name)
{
	json_t *a = json_object_get(json_array_get(json_object_get(root, "entrants"), entrant),
				    "events");

	for (size_t i = 0; i < json_array_size(a); i++)
		if (!strcmp(str(json_array_get(a, i), "name"), name))
			return json_array_get(a, i);
	return NULL;
}

/* The built-in xor loop is a whole number of instructions an iteration (5 in this build):
 * twice the iterations, twice the instructions, to the few hundred of the call around it. */
static void compare(void)
{
	char *argv[] = { "/bin/pbench", "compare", "--json", "--mode", "unprepared", "-e",
			 "instructions:u", "--workload", "xor", "--iterations", "1000000",
			 "--iterations", "2000000", "--max-runs", "12", "--full-budget", NULL };
	json_t *root = run_json(argv), *a, *b;
	double ra, rb, r, per;

	if (!ok(root != NULL, "compare: pbench compare --json ran"))
		return;
	a = event_of(root, 0, "instructions:u");
	b = event_of(root, 1, "instructions:u");
	ra = json_number_value(json_object_get(a, "mean"));
	rb = json_number_value(json_object_get(b, "mean"));
	r = json_number_value(json_object_get(b, "ratio"));
	per = (rb - ra) / 1e6;
	diag("compare: instructions:u a run %.0f and %.0f, ratio %.6f, %.6f an iteration", ra,
	     rb, r, per);
	ok(a && b && !strcmp(str(b, "status"), "ok") && per >= 3 && fabs(per - round(per)) < 1e-4 &&
	   fabs(r - 2) < 0.001, "compare: instructions:u, a whole number an iteration more for "
	   "the million more, and a ratio of 2 (+- 0.001)");
	ok(!strcmp(str(json_array_get(json_object_get(root, "verdicts"), 0), "verdict"),
		   "slower"), "compare: twice the iterations is slower");
	json_decref(root);
}

/*
 * The CPU's clock from the PMU (issue 27 item 1): under -icount shift=0 cycles are QEMU's
 * virtual time, one a ns, so each run's cycles over its task-clock is 1 GHz, its factor
 * against the best run's 1, and the mode's clock the PMU's.
 */
static void stat_clock(void)
{
	char *argv[] = { "/bin/pbench", "stat", "--json", "--mode", "unprepared", "-e",
			 "cycles,task-clock", "--workload", "xor", "--iterations", "1000000", "-r",
			 "8", NULL };
	json_t *root = run_json(argv), *mode, *runs, *pmu;
	double lo = INFINITY, hi = 0;
	size_t n = 0, have = 0;

	if (!ok(root != NULL, "stat: pbench stat -e cycles,task-clock --json ran"))
		return;
	mode = json_array_get(json_object_get(root, "modes"), 0);
	runs = json_object_get(mode, "runs");
	pmu = json_object_get(json_object_get(mode, "speed"), "clock_pmu");
	for (n = 0; n < json_array_size(runs); n++) {
		json_t *f = json_object_get(json_array_get(runs, n), "clock_pmu");

		if (!json_is_number(f))
			continue;
		have++;
		lo = fmin(lo, json_number_value(f));
		hi = fmax(hi, json_number_value(f));
	}
	diag("stat: %zu runs, %zu with a PMU clock factor, %.6f to %.6f; best %.6f GHz; clock "
	     "source %s", n, have, lo, hi, json_number_value(json_object_get(pmu, "best_ghz")),
	     str(json_object_get(mode, "speed"), "clock_source"));
	ok(n == 8 && have == n && lo >= 0.995 && hi <= 1.0 + 1e-12, "stat: every run's PMU clock "
	   "factor (cycles over task-clock against the best run's) within 0.5%% of 1");
	ok(fabs(json_number_value(json_object_get(pmu, "best_ghz")) - 1) < 0.01, "stat: the best "
	   "run's cycles over task-clock is 1 GHz (+- 1%%): one cycle a ns of virtual time");
	ok(!strcmp(str(json_object_get(mode, "speed"), "clock_source"), "pmu"), "stat: the mode's "
	   "clock source is the PMU");
	json_decref(root);
}

int main(void)
{
	tap_init("cli");
	check();
	list();
	compare();
	stat_clock();
	return tap_done();
}
