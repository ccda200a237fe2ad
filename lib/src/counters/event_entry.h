/* SPDX-License-Identifier: MIT */
/*
 * An entry of the event list as the library keeps it: the public struct pbench_event_desc,
 * whose strings point into the entry's own arrays (pb_event_entry_link()), so that they stay
 * valid until the list is freed (events_names.c fills it, events_list.c probes and hands it
 * out).
 */
#ifndef PB_COUNTERS_EVENT_ENTRY_H
#define PB_COUNTERS_EVENT_ENTRY_H

#include "pbench.h"

struct pb_event_entry {
	struct pbench_event_desc d;	/* its strings: the arrays below, once linked */
	char name[128];
	char pmu[64];
	char desc[256];
	char reason[192];
	char read_reason[192];
};

/* Point e->d's strings at e's arrays: once the entry stays where it is (after the list's
 * last realloc and sort). */
static inline void pb_event_entry_link(struct pb_event_entry *e)
{
	e->d.name = e->name;
	e->d.pmu = e->pmu;
	e->d.desc = e->desc;
	e->d.reason = e->reason;
	e->d.read_reason = e->read_reason;
}

/* events_names.c: every known event name with its kind, unprobed (pbench_event_list_new()
 * without the probe), each entry linked; count, or a negative error. */
int pb_events_names(struct pb_event_entry **out, unsigned flags);

#endif /* PB_COUNTERS_EVENT_ENTRY_H */
