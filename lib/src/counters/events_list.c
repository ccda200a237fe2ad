/* SPDX-License-Identifier: MIT */
/*
 * pbench_event_list_new(): every known name (events_names.c), each probed by opening it as a
 * counter set would, with its status, the reason when it cannot count, and how it is read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "counters/counters.h"
#include "counters/counts.h"
#include "counters/event_entry.h"

/* Open the event the way pbench_counters_open would (same fallbacks, same reasons). */
static void probe_event(struct pb_event_entry *d)
{
	/* the list says each event's status: no diagnostic of its own for each one */
	struct pbench_counters_opts o = { .size = sizeof(o), .cpu = -1,
					  .flags = PBENCH_COUNTERS_QUIET };
	struct pbench_count k = { .size = sizeof(k) };
	struct pbench_counters *c;
	struct pb_event ev;
	int err = pb_event_resolve(d->name, &ev);

	if (!err)
		err = pbench_counters_open(&c, d->name, &o);
	if (err && err != -PBENCH_ENO_EVENTS) {
		d->d.status = PBENCH_EVENT_NOT_SUPPORTED;
		d->d.error = err;
		snprintf(d->reason, sizeof(d->reason), "cannot be encoded: %s",
			 pbench_strerror(err));
		return;
	}
	d->d.status = pbench_counters_open_status(c, 0);
	if (d->d.status == PBENCH_EVENT_OK) {
		/* Which way a region reads it: one start/stop on the enabled event. */
		pbench_counters_enable(c);
		pbench_counters_start(c);
		pbench_counters_stop(c);
		d->d.user_read = pbench_counters_uses_rdpmc(c, 0);
		snprintf(d->read_reason, sizeof(d->read_reason), "%s",
			 pbench_counters_rdpmc_reason(c, 0));
		pbench_counters_disable(c);
	}
	if (pb_counters_read(c, &k, 1) == 1) {
		int paranoid = -1;

		if (d->d.status != PBENCH_EVENT_OK) {
			d->d.error = k.error;
			snprintf(d->reason, sizeof(d->reason), "%s", k.reason);
		} else if (k.user_only) {
			pbench_counters_paranoid(&paranoid);
			snprintf(d->reason, sizeof(d->reason), "user space only: "
				 "kernel.perf_event_paranoid is %d", paranoid);
		}
	}
	pbench_counters_free(c);
}

struct pbench_event_list {
	struct pb_event_entry *v;
	int n;
};

int pbench_event_list_new(struct pbench_event_list **out, unsigned flags)
{
	struct pbench_event_list *l;
	int n;

	if (!out)
		return -EINVAL;
	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	n = pb_events_names(&l->v, flags);
	if (n < 0) {
		free(l);
		return n;
	}
	l->n = n;
	for (int i = 0; i < n && !(flags & PBENCH_LIST_NO_PROBE); i++)
		probe_event(&l->v[i]);
	*out = l;
	return n;
}

int pbench_event_list_nr(const struct pbench_event_list *l)
{
	return l ? l->n : 0;
}

int pbench_event_list_get(const struct pbench_event_list *l, int i, struct pbench_event_desc *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_event_desc, 0, NULL)))
		return err;
	if (!l || i < 0 || i >= l->n)
		return pb_fail(-EINVAL, "%s(): no event %d in the list", __func__, i);
	pb_copy_out(out, &l->v[i].d, sizeof(l->v[i].d));
	return 0;
}

void pbench_event_list_free(struct pbench_event_list *l)
{
	if (!l)
		return;
	free(l->v);
	free(l);
}
