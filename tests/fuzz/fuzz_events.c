/* SPDX-License-Identifier: MIT */
/*
 * Event lists, as -e takes them ("cycles,instructions:u,cpu/event=0xc0,umask=0x1/k"): the
 * splitter, each name through the resolver (libpfm4 names; sysfs PMU names on the recorded
 * PMUs of tests/fixtures and on this machine's), and, when every name resolves,
 * pbench_counters_open() itself, which must close every descriptor it opened.
 *
 * The splitter is static in counters.c, so this file includes counters.c: the static library
 * then never links its own counters.o, every symbol of which is already defined here.
 * A list with an unknown name is not opened: the error's suggestion lists every event of the
 * machine (15 ms here), which would slow the fuzzer a hundredfold for code that sees nothing
 * of the input but through an edit distance capped at 128 characters.
 */
#include "counters/counters.c"

#include <fcntl.h>

#include "fuzz.h"

#define MAX_OPEN 64	/* names in a list given to pbench_counters_open */

/* The sysfs roots to resolve on: recorded PMUs (deterministic), then this machine's (NULL). */
static const char *const roots[] = { "pmu-intel-skl", "pmu-amd-zen", NULL };

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	fuzz_assert(fd >= 0, "/dev/null: %s", strerror(errno));
	close(fd);
	return fd;
}

static void check_names(const char *list, char **names, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		fuzz_assert(len > 0, "'%s': name %d is empty", list, i);
		fuzz_assert(!isspace((unsigned char)names[i][0]) &&
			    !isspace((unsigned char)names[i][len - 1]),
			    "'%s': name '%s' is not trimmed", list, names[i]);
		total += len;
	}
	fuzz_assert(total <= strlen(list), "'%s': the names are longer than the list", list);
}

/* Resolve every name as pbench_counters_open would: 1 when all of them resolve. */
static int resolve_names(char **names, int n)
{
	int all = 1;

	for (int i = 0; i < n; i++) {
		struct pb_event ev;
		char reason[256];
		int err = pb_event_resolve(names[i], &ev);

		fuzz_assert(!err || err == -PBENCH_EUNKNOWN_EVENT || err == -PBENCH_EPFM,
			    "'%s': %d", names[i], err);
		if (err) {
			all = 0;
			continue;
		}
		fuzz_assert(!strcmp(ev.name, names[i]), "'%s' became '%s'", names[i], ev.name);
		fuzz_assert(ev.kind >= PBENCH_EVENT_HARDWARE && ev.kind <= PBENCH_EVENT_OTHER,
			    "'%s': kind %d", names[i], ev.kind);
		/* The text a failed open would print, for the errors it tells apart. */
		pb_open_reason(&ev, -ENOENT, reason, sizeof(reason));
		pb_open_reason(&ev, -EINVAL, reason, sizeof(reason));
	}
	return all;
}

static void open_list(const char *list, int n)
{
	struct pbench_counters *c = NULL;
	int before = lowest_free_fd(), after, err;

	err = pbench_counters_open(&c, list, NULL);
	if (err && err != -PBENCH_ENO_EVENTS) {
		fuzz_assert(!c, "'%s': an error (%d) and counters", list, err);
		fuzz_assert(err != -PBENCH_EUNKNOWN_EVENT, "'%s': every name resolved", list);
	} else {
		fuzz_assert(c && pbench_counters_nr(c) == n, "'%s': %d counters for %d names",
			    list, c ? pbench_counters_nr(c) : -1, n);
	}
	pbench_counters_free(c);
	after = lowest_free_fd();
	fuzz_assert(after >= before, "'%s': closed fd %d, which it never opened", list, after);
	fuzz_assert(after == before, "'%s': left fd %d open", list, before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *fixtures;
	char *list = fuzz_cstr(data, size), **names;
	int n = split_events(list, &names);

	if (!fixtures) {
		fixtures = getenv("PBENCH_FUZZ_FIXTURES");
		if (!fixtures)
			fixtures = "tests/fixtures";
	}
	fuzz_assert(n != 0, "'%s': no names and no error", list);
	if (n < 0) {
		fuzz_assert(n == -PBENCH_EBAD_EVENT_LIST, "'%s': %d", list, n);
		fuzz_assert(strcmp(pbench_strerror(n), "malformed event list"), "'%s': no message",
			    list);
		free(list);
		return 0;
	}
	check_names(list, names, n);
	/* Event names resolve on the live machine only, but for tests like this one. */
	pb_recorded_everywhere(1);
	for (size_t r = 0; r < PB_ARRAY_SIZE(roots); r++) {
		char root[4096];

		if (roots[r]) {
			snprintf(root, sizeof(root), "%s/%s", fixtures, roots[r]);
			setenv("PBENCH_SYSFS_ROOT", root, 1);
		} else {
			unsetenv("PBENCH_SYSFS_ROOT");
		}
		if (resolve_names(names, n) && n <= MAX_OPEN)
			open_list(list, n);
	}
	unsetenv("PBENCH_SYSFS_ROOT");
	pb_recorded_everywhere(0);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(list);
	return 0;
}
