/* SPDX-License-Identifier: MIT */
/*
 * count.c - the minimal correct use of libpbench: count and time one region of this thread.
 *
 *   cc count.c $(pkg-config --cflags --libs pbench) -o count && ./count
 *   ./count -v                 (the library's diagnostics on stderr, through its log callback)
 *
 * Exit status: 0 measured (even if some events could not be counted), 1 a run-time error,
 * 2 a bad event name.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pbench.h>

#define EVENTS "task-clock,context-switches,page-faults,instructions"
#define NR_EVENTS 4
#define BUF_BYTES (4u << 20)

/* Make the compiler (GCC or Clang) assume p's memory is read and written here, so it can
 * neither skip the buffer stores nor fold the sum into a constant or move it out of the region. */
static void escape(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#define PROG "count"

/* -v: the library's diagnostics (an event it could not open and why, a warning about the
 * measurement) on stderr, through the log callback. */
static void log_to_stderr(int level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s: %s: %s\n", PROG, level == PBENCH_LOG_ERROR ? "error" :
		level == PBENCH_LOG_WARN ? "warning" : level == PBENCH_LOG_INFO ? "info" : "debug",
		msg);
}

int main(int argc, char **argv)
{
	struct pbench_counters_opts opts = { .size = sizeof(opts), .pid = 0, .cpu = -1 };
	struct pbench_count counts[NR_EVENTS];
	struct pbench_counters *c;
	size_t n = BUF_BYTES / sizeof(uint64_t);
	uint64_t *buf, sum = 0, t0, t1;
	int err, nr, counting = 1, rc = 1;

	if (argc > 1 && !strcmp(argv[1], "-v"))
		pbench_log_set(log_to_stderr, NULL);

	/* Structs crossing the ABI carry their size: the library can grow them safely. */
	for (int i = 0; i < NR_EVENTS; i++)
		counts[i].size = sizeof(counts[i]);

	/* Name errors fail the whole open; events this machine cannot count do not. */
	err = pbench_counters_open(&c, EVENTS, &opts);
	if (err == -PBENCH_EUNKNOWN_EVENT || err == -PBENCH_EBAD_EVENT_LIST ||
	    err == -PBENCH_EDUP_EVENT) {
		fprintf(stderr, "count: %s\n", pbench_strerror(err));
		return 2;
	}
	if (err == -PBENCH_ENO_EVENTS) {
		/* c is still set: it holds every event's reason, which is worth printing. */
		fprintf(stderr, "count: nothing countable here; timing only\n");
		counting = 0;
	} else if (err) {
		fprintf(stderr, "count: cannot open counters: %s\n", pbench_strerror(err));
		return 1;
	}

	/* Allocated before the region; its pages are first touched inside it, on purpose, so
	 * that page-faults has something to count (about one per 4 KiB page, fewer with THP). */
	buf = malloc(BUF_BYTES);
	if (!buf) {
		perror("count: malloc");
		goto out_free_counters;
	}
	/* Opened disabled: enabling here keeps the open's own cost out of the counts. */
	if (counting && ((err = pbench_counters_enable(c)) || (err = pbench_counters_start(c)))) {
		fprintf(stderr, "count: cannot start counting: %s\n", pbench_strerror(err));
		goto out_free_buf;
	}
	/* Counters outside, clock inside: the timed region is exactly the work. */
	t0 = pbench_ticks_begin();
	for (size_t i = 0; i < n; i++)
		buf[i] = i * UINT64_C(0x9e3779b97f4a7c15);
	escape(buf);
	for (size_t i = 0; i < n; i++)
		sum += buf[i];
	escape(&sum);
	t1 = pbench_ticks_end();
	/* Nothing was opened: a read only fills in each event's status and reason. */
	nr = counting ? pbench_counters_stop(c) : pbench_counters_read(c);
	/* One event at a time, each into a struct of this program's size. */
	for (int i = 0; nr >= 0 && i < NR_EVENTS; i++)
		nr = counting ? pbench_counters_delta(c, i, &counts[i])
			      : pbench_counters_get(c, i, &counts[i]);
	if (nr >= 0)
		nr = NR_EVENTS;
	if (nr < 0) {
		fprintf(stderr, "count: cannot read counters: %s\n", pbench_strerror(nr));
		goto out_free_buf;
	}

	/* The first conversion may calibrate the TSC (up to ~0.5 s): after the region, never in. */
	printf("region: %" PRIu64 " ticks = %" PRIu64 " ns (sum 0x%" PRIx64 ")\n", t1 - t0,
	       pbench_ticks_to_ns(t1 - t0), sum);
	for (int i = 0; i < nr; i++) {
		const struct pbench_count *k = &counts[i];

		/* Only ok and multiplexed carry a number; the rest carry a reason instead. */
		if (k->status == PBENCH_EVENT_OK)
			printf("  %-18s %20.0f%s\n", k->name, k->scaled,
			       k->user_only ? "  (user space only: perf_event_paranoid)" : "");
		else if (k->status == PBENCH_EVENT_MULTIPLEXED)
			printf("  %-18s %20.0f  (scaled: on a counter %.1f%% of the time)\n",
			       k->name, k->scaled,
			       100.0 * (double)k->time_running / (double)k->time_enabled);
		else
			printf("  %-18s <%s> %s\n", k->name, pbench_event_status_name(k->status),
			       k->reason);
	}
	rc = 0;
out_free_buf:
	free(buf);
out_free_counters:
	pbench_counters_free(c);
	return rc;
}
