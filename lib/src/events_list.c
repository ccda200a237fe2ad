/* SPDX-License-Identifier: MIT */
/*
 * pbench_event_list_new(): every known name (events_names.c), each probed by opening it as a
 * counter set would, with its status, the reason when it cannot count, and how it is read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "jsonutil.h"

/* Open the event the way pbench_counters_open would (same fallbacks, same reasons). */
static void probe_event(struct pbench_event_desc *d)
{
	struct pbench_count k = { .size = sizeof(k) };
	struct pbench_counters *c;
	struct pb_event ev;
	int err = pb_event_resolve(d->name, &ev);

	if (!err)
		err = pbench_counters_open(&c, d->name, NULL);
	if (err && err != -PBENCH_ENO_EVENTS) {
		d->status = PBENCH_EVENT_NOT_SUPPORTED;
		d->error = err;
		snprintf(d->reason, sizeof(d->reason), "cannot be encoded: %s",
			 pbench_strerror(err));
		return;
	}
	d->status = pbench_counters_open_status(c, 0);
	if (d->status == PBENCH_EVENT_OK) {
		/* Which way a region reads it: one start/stop on the enabled event. */
		pbench_counters_enable(c);
		pbench_counters_start(c);
		pbench_counters_stop(c);
		d->user_read = pbench_counters_uses_rdpmc(c, 0);
		snprintf(d->read_reason, sizeof(d->read_reason), "%s",
			 pbench_counters_rdpmc_reason(c, 0));
		pbench_counters_disable(c);
	}
	if (pbench_counters_read(c, &k, 1) == 1) {
		int paranoid = -1;

		if (d->status != PBENCH_EVENT_OK) {
			d->error = k.error;
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
	struct pbench_event_desc *v;
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
	if (!l || !out || !out->size || i < 0 || i >= l->n)
		return -EINVAL;
	pb_copy_out(out, &l->v[i], sizeof(l->v[i]));
	return 0;
}

void pbench_event_list_free(struct pbench_event_list *l)
{
	if (!l)
		return;
	free(l->v);
	free(l);
}

/* ---- the list as JSON ------------------------------------------------------------------------ */

static json_t *event_json(const struct pbench_event_desc *d, int *bad)
{
	json_t *e = json_object();

	if (!e) {
		*bad = -1;
		return NULL;
	}
	SET(e, "name", json_string(d->name));
	SET(e, "pmu", json_string(d->pmu));
	SET(e, "kind", json_string(pbench_event_kind_name(d->kind)));
	SET(e, "status", json_string(pbench_event_status_name(d->status)));
	SET(e, "errno", d->error ? json_integer(-d->error) : json_null());
	SET(e, "reason", pb_json_str_or_null(d->reason));
	SET(e, "read", d->status != PBENCH_EVENT_OK ? json_null() :
	    json_string(d->user_read ? "user" : "syscall"));
	SET(e, "read_reason", pb_json_str_or_null(d->read_reason));
	SET(e, "description", json_string(d->desc));
	return e;
}

int pbench_event_list_write_json(const struct pbench_event_list *l, FILE *f)
{
	json_t *root, *arr, *sum;
	int counts[PBENCH_EVENT_NO_PERMISSION + 1] = { 0 }, b = 0, *bad = &b;

	if (!l || !f)
		return -EINVAL;
	root = json_object();
	arr = json_array();
	sum = json_object();
	if (!root || !arr || !sum) {
		json_decref(root);
		json_decref(arr);
		json_decref(sum);
		return -ENOMEM;
	}
	pb_json_head_doc(root, bad);
	SET(root, "hardware_pmu", json_boolean(pbench_cpu_has_pmu()));
	for (int i = 0; i < l->n; i++) {
		APPEND(arr, event_json(&l->v[i], bad));
		if (l->v[i].status >= 0 && l->v[i].status <= PBENCH_EVENT_NO_PERMISSION)
			counts[l->v[i].status]++;
	}
	SET(root, "events", arr);
	for (int s = PBENCH_EVENT_OK; s <= PBENCH_EVENT_NO_PERMISSION; s++)
		if (s != PBENCH_EVENT_MULTIPLEXED && s != PBENCH_EVENT_NOT_COUNTED)
			SET(sum, pbench_event_status_name(s), json_integer(counts[s]));
	SET(root, "summary", sum);
	if (b) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, f);
}
