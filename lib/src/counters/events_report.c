/* SPDX-License-Identifier: MIT */
/* What pbench list prints of the event list (events_list.c): text, and JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "base/jsonutil.h"

static void count(const struct pbench_event_list *l, int *counts)
{
	struct pbench_event_desc d = { .size = sizeof(d) };

	memset(counts, 0, sizeof(int) * (PBENCH_EVENT_NO_PERMISSION + 1));
	for (int i = 0; i < pbench_event_list_nr(l); i++)
		if (!pbench_event_list_get(l, i, &d))
			counts[d.status]++;
}

static void section_of(const struct pbench_event_desc *d, char *buf, size_t len)
{
	if (!strcmp(d->pmu, "perf"))
		snprintf(buf, len, "%s", d->kind == PBENCH_EVENT_SOFTWARE ? "software events"
									  : "hardware events");
	else if (strchr(d->name, '/'))
		snprintf(buf, len, "kernel PMU events (sysfs)");
	else
		snprintf(buf, len, "%s events (libpfm4)", d->pmu);
}

/* The widest name, for the column. */
static int name_width(const struct pbench_event_list *l)
{
	struct pbench_event_desc d = { .size = sizeof(d) };
	int w = 24;

	for (int i = 0; i < pbench_event_list_nr(l); i++)
		if (!pbench_event_list_get(l, i, &d) && (int)strlen(d.name) > w)
			w = (int)strlen(d.name);
	return w;
}

/* One line; prev holds the reason of the line before (PREV_LEN bytes). */
#define PREV_LEN 256
static void write_event(const struct pbench_event_desc *d, int w, char *prev, int color, FILE *f)
{
	const char *st = pbench_event_status_name(d->status);
	const char *reason = d->reason;
	char how[224];

	/* Counted: which way a region reads a hardware event (user space or read()). */
	if (d->status == PBENCH_EVENT_OK && d->kind != PBENCH_EVENT_SOFTWARE && !*reason) {
		snprintf(how, sizeof(how), "%s%s", d->user_read ? "read in user space" :
			 "read with read(): ", d->user_read ? "" : d->read_reason);
		reason = how;
	}
	/* A long reason shared by a run of events is written out once. */
	if (*reason && !strcmp(reason, prev))
		reason = "(as above)";
	else
		snprintf(prev, PREV_LEN, "%s", reason);
	if (!*reason)
		fprintf(f, color ? "  %-*s \033[32m%s\033[0m\n" : "  %-*s %s\n", w, d->name, st);
	else if (color)
		fprintf(f, "  %-*s %s%-14s\033[0m %s\n", w, d->name,
			d->status == PBENCH_EVENT_OK ? "\033[32m" : "\033[33m", st, reason);
	else
		fprintf(f, "  %-*s %-14s %s\n", w, d->name, st, reason);
}

int pbench_event_list_write_text(const struct pbench_event_list *l, FILE *f, unsigned flags)
{
	struct pbench_event_desc d = { .size = sizeof(d) };
	int counts[PBENCH_EVENT_NO_PERMISSION + 1], w, n, tsc = 0;
	char last[96] = "", sec[96], prev[PREV_LEN] = "";

	if (!l || !f || (flags & ~PBENCH_EVENT_LIST_WRITE_COLOR))
		return -EINVAL;
	n = pbench_event_list_nr(l);
	w = name_width(l);
	for (int i = 0; i < n; i++) {
		if (pbench_event_list_get(l, i, &d))
			continue;
		section_of(&d, sec, sizeof(sec));
		if (strcmp(sec, last)) {
			fprintf(f, "%s%s:\n", i ? "\n" : "", sec);
			memcpy(last, sec, sizeof(last));
			prev[0] = 0;
		}
		write_event(&d, w, prev, flags & PBENCH_EVENT_LIST_WRITE_COLOR, f);
		/* msr/tsc/ is named below only when this machine's list has it opening. */
		tsc |= !strcmp(d.name, "msr/tsc/") && d.status == PBENCH_EVENT_OK;
	}
	count(l, counts);
	fprintf(f, "\n%d events: %d ok, %d not supported, %d no permission\n", n,
		counts[PBENCH_EVENT_OK], counts[PBENCH_EVENT_NOT_SUPPORTED],
		counts[PBENCH_EVENT_NO_PERMISSION]);
	if (!pbench_cpu_has_pmu())
		fprintf(f, "note: no hardware PMU is exposed here (a VM without PMU passthrough?): "
			"hardware events cannot be counted; the software events%s can\n",
			tsc ? " and msr/tsc/" : "");
	return pb_stream_end(f);
}

static json_t *event_json(const struct pbench_event_desc *d, int *bad)
{
	json_t *e = json_object();

	SET(e, "name", json_string(d->name));
	SET(e, "pmu", json_string(d->pmu));
	SET(e, "kind", json_string(pbench_event_kind_name(d->kind)));
	SET(e, "status", json_string(pbench_event_status_name(d->status)));
	SET(e, "errno", d->error ? json_integer(-d->error) : json_null());
	SET(e, "reason", d->reason[0] ? json_string(d->reason) : json_null());
	SET(e, "read", d->status != PBENCH_EVENT_OK ? json_null() :
	    json_string(d->user_read ? "user" : "syscall"));
	SET(e, "read_reason", d->read_reason[0] ? json_string(d->read_reason) : json_null());
	SET(e, "description", json_string(d->desc));
	return e;
}

int pbench_event_list_write_json(const struct pbench_event_list *l, FILE *f)
{
	struct pbench_event_desc d = { .size = sizeof(d) };
	int counts[PBENCH_EVENT_NO_PERMISSION + 1], b = 0, *bad = &b;
	json_t *root, *arr, *sum;

	if (!l || !f)
		return -EINVAL;
	root = json_object();
	arr = json_array();
	sum = json_object();
	if (root)
		pb_json_head(root, 0, bad);
	SET(root, "hardware_pmu", json_boolean(pbench_cpu_has_pmu()));
	for (int i = 0; i < pbench_event_list_nr(l); i++)
		if (!pbench_event_list_get(l, i, &d))
			APPEND(arr, event_json(&d, bad));
	SET(root, "events", arr);
	count(l, counts);
	for (int s = PBENCH_EVENT_OK; s <= PBENCH_EVENT_NO_PERMISSION; s++)
		if (s != PBENCH_EVENT_MULTIPLEXED && s != PBENCH_EVENT_NOT_COUNTED)
			SET(sum, pbench_event_status_name(s), json_integer(counts[s]));
	SET(root, "summary", sum);
	return pb_json_dump(root, b, f);
}
