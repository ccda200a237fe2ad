/* SPDX-License-Identifier: MIT */
/*
 * The figure a set of runs or a contest is judged on (pbench_runs_opts.metric, -m), checked as
 * a name before any event opens: a derived metric joins the metrics asked, an event joins the
 * event list (or takes the place of the same counter under other modifiers, so that the figure
 * asked for is the one counted), and a name that is neither is said with its "did you mean".
 * Events and metrics share the rule of names that makes cycles:u the counter cycles is
 * (pb_event_same(), events.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"
#include "counters/counters.h"

/* The entry of the event list that is name, or the same counter with other modifiers (-1: none,
 * -2: only another modifier's), and that entry as written into one. */
static int list_entry(const char *list, const char *name, char *one, size_t len)
{
	int other = 0;

	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ","), k = n;
		const char *q = p;

		while (k && (*q == '{' || *q == ' '))
			q++, k--;
		while (k && (q[k - 1] == '}' || q[k - 1] == ' '))
			k--;
		snprintf(one, len, "%.*s", (int)k, q);
		if (!strcasecmp(one, name))
			return 0;
		if (pb_event_same(one, strlen(one), name, strlen(name)))
			other = 1;
		p += n + (p[n] == ',');
	}
	return other ? -2 : -1;
}

/* events with the entry that is name's counter under other modifiers written as name
 * ("instructions" becomes "instructions:u": the figure asked for is the one counted). */
static char *replace_entry(const char *events, const char *name)
{
	size_t cap = strlen(events) + strlen(name) + 2, at = 0;
	char *out = calloc(1, cap), one[160];
	int done = 0;

	for (const char *p = events; out && *p;) {
		size_t n = strcspn(p, ",");
		char entry[160];

		snprintf(entry, sizeof(entry), "%.*s", (int)n, p);
		if (!done && list_entry(entry, name, one, sizeof(one)) == -2) {
			const char *s = strstr(entry, one);

			at += (size_t)snprintf(out + at, cap - at, "%s%.*s%s%s", at ? "," : "",
					       (int)(s - entry), entry, name, s + strlen(one));
			done = 1;
		} else {
			at += (size_t)snprintf(out + at, cap - at, "%s%s", at ? "," : "", entry);
		}
		p += n + (p[n] == ',');
	}
	return out;
}

/* A target that is neither an event nor a metric, said with the nearest name of either. */
static int unknown_target(const char *target)
{
	const char *names[64], *ev = pbench_event_suggest(target);
	int n = 0, k;

	for (int m = 0; m < pbench_metric_nr() && n < 64; m++)
		names[n++] = pb_metric_name(m);
	names[n++] = "wall-time";
	k = pbench_suggest(target, names, n);
	if (k >= 0 || ev)
		return pb_fail_msg(-PBENCH_EUNKNOWN_EVENT, "unknown metric '%s': neither an "
				   "event nor a derived metric (did you mean '%s'?)", target,
				   k >= 0 ? names[k] : ev);
	return pb_fail_msg(-PBENCH_EUNKNOWN_EVENT, "unknown metric '%s': neither an event "
			   "nor a derived metric (see 'pbench list' and 'pbench list "
			   "--metrics')", target);
}

int pb_metric_target_request(const char *target, const char *events, const char *metrics,
			     char **events_out, char **metrics_out)
{
	struct pb_event ev;
	char one[160];
	int err;

	*events_out = *metrics_out = NULL;
	if ((err = pb_metric_list_check(metrics)))	/* before the target joins it */
		return err;
	if (!target || !strcasecmp(target, "wall-time"))
		return 0;
	if (!*target || strchr(target, ','))
		return pb_fail_msg(-PBENCH_EUNKNOWN_EVENT, "the metric '%s' is not one name: "
				   "give one event or one derived metric", target);
	if (pb_metric_find(target) >= 0) {
		if (asprintf(metrics_out, "%s%s%s", metrics ? metrics : "", metrics ? "," : "",
			     target) < 0) {
			*metrics_out = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	err = pb_event_resolve(target, &ev);
	if (err == -PBENCH_EUNKNOWN_EVENT)
		return unknown_target(target);
	if (err)
		return pb_fail_msg(err, "the metric '%s' cannot be resolved: libpfm4: %s",
				   target, ev.why ? ev.why : pbench_strerror(err));
	switch (list_entry(events, target, one, sizeof(one))) {
	case 0:
		return 0;
	case -2:
		*events_out = replace_entry(events, target);
		return *events_out ? 0 : -ENOMEM;
	}
	if (asprintf(events_out, "%s%s%s", events, *events ? "," : "", target) < 0) {
		*events_out = NULL;
		return -ENOMEM;
	}
	return 0;
}
