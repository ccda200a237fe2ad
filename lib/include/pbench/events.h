/* SPDX-License-Identifier: MIT */
/* pbench/events.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_EVENTS
#define PBENCH_H_EVENTS

#include "speed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Events (events.c resolves, events_names.c lists and suggests, events_list.c probes): names
 * to perf_event_attr, via libpfm4 and sysfs PMU descriptions
 */

enum pbench_event_status {
	PBENCH_EVENT_OK = 0,		/* counted all the time it was enabled */
	PBENCH_EVENT_MULTIPLEXED,	/* counted part of the time: scaled value is an estimate */
	PBENCH_EVENT_NOT_COUNTED,	/* opened but never scheduled on a counter */
	PBENCH_EVENT_NOT_SUPPORTED,	/* this CPU/VM/kernel cannot count it */
	PBENCH_EVENT_NO_PERMISSION,	/* perf_event_paranoid, capabilities or seccomp forbid it */
};

PBENCH_API const char *pbench_event_status_name(int status);

enum pbench_event_kind {
	PBENCH_EVENT_HARDWARE = 1,	/* needs a hardware PMU (cycles, raw PMU events) */
	PBENCH_EVENT_SOFTWARE,		/* kernel software event (task-clock, page-faults...) */
	PBENCH_EVENT_PMU,		/* a sysfs PMU event such as msr/tsc/ */
	PBENCH_EVENT_OTHER,		/* tracepoint, breakpoint... */
};

/* "hardware", "software", "pmu" or "other". */
PBENCH_API const char *pbench_event_kind_name(int kind);

/* One entry of an event list (pbench_event_list_get()). */
struct pbench_event_desc {
	size_t size;
	/* The strings: never NULL, owned by the list (base.h). */
	const char *name;		/* the name to pass to pbench_counters_open() */
	const char *pmu;		/* "perf", "software", "msr", or a libpfm4 PMU name */
	const char *desc;
	int kind;			/* enum pbench_event_kind */
	int status;			/* enum pbench_event_status, from trying to open it now */
	int error;			/* -errno of the failed open, 0 when it opened */
	const char *reason;		/* why it does not open, with the fix where there is one */
	int user_read;			/* 1: a region's start/stop read it in user space */
	const char *read_reason;	/* if not, why ("" when user_read or not opened) */
};

enum pbench_list_flags {
	PBENCH_LIST_ALL = 1 << 0,	/* also every libpfm4 event of the detected hardware PMUs */
	PBENCH_LIST_NO_PROBE = 1 << 1,	/* do not try to open the events: status is not filled */
};

/*
 * List events: the generic perf names, the software events, the sysfs PMU events and, with
 * PBENCH_LIST_ALL, the libpfm4 events of the detected PMUs, each probed (unless
 * PBENCH_LIST_NO_PROBE). Returns the number of entries or a negative error; the entries are
 * read one at a time with pbench_event_list_get() into the caller's struct of the caller's
 * size, as libpfm4 hands out its events, so that struct pbench_event_desc can grow.
 */
struct pbench_event_list;
PBENCH_API int pbench_event_list_new(struct pbench_event_list **out, unsigned flags);
PBENCH_API int pbench_event_list_nr(const struct pbench_event_list *l);
/* Entry i into out (out->size set). Errors: -EINVAL (NULL, out->size 0, i out of range). */
PBENCH_API int pbench_event_list_get(const struct pbench_event_list *l, int i,
				     struct pbench_event_desc *out);
PBENCH_API void pbench_event_list_free(struct pbench_event_list *l);

enum pbench_event_list_write_flags {
	PBENCH_EVENT_LIST_WRITE_COLOR = 1 << 0,	/* ANSI colours for the statuses */
};
/* What pbench list prints: the events by source with each one's status and reason, the
 * counts, and a note when no hardware PMU is exposed; and the same in JSON (schema
 * PBENCH_JSON_SCHEMA, with the host).
 * Errors: -EINVAL, -ENOMEM, -EIO (writing to f failed). */
PBENCH_API int pbench_event_list_write_text(const struct pbench_event_list *l, FILE *f,
					    unsigned flags);
PBENCH_API int pbench_event_list_write_json(const struct pbench_event_list *l, FILE *f);

/*
 * The known event name nearest to name (edit distance), for "did you mean" messages, or NULL.
 * The pointer stays valid until the next call from any thread.
 */
PBENCH_API const char *pbench_event_suggest(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_EVENTS */
