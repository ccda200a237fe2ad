/* SPDX-License-Identifier: MIT */
/*
 * The pbench binary on arm64 with a PMU: `pbench check` reports the arm64 timer and counter
 * checks (arch_sys_counter, CNTVCT_EL0, perf_user_access; no CPUID), and `pbench list` says
 * which way each hardware event is read, user space or read() with the reason.
 */
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

int main(void)
{
	tap_init("cli");
	check();
	list();
	return tap_done();
}
