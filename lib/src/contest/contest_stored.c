/* SPDX-License-Identifier: MIT */
/*
 * A stored entrant's runs (pbench compare --baseline FILE): the set of runs a baseline file
 * holds (stat's document, or compare's entrant of that name) and each run's value of a figure
 * read from it, its wall time, an event's count or a derived metric made from its counts as a
 * live run's is. Below contest.c, so that an entrant added from a file keeps its runs from the
 * start, and the table, the events and the metrics of every writer give the baseline's figures
 * beside the live ones instead of n/a; contest_baseline.c reads its metric's values here too.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/base.h"
#include "counters/counters.h"
#include "contest/contest.h"

void pb_contest_baseline_of(json_t *root, const char *name, json_t **subject, json_t **events)
{
	json_t *arr = json_object_get(root, "entrants"), *e, *first = NULL;
	size_t i;

	*subject = json_object_get(root, "subject");
	*events = json_object_get(root, "events");
	json_array_foreach(arr, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (json_is_true(json_object_get(e, "stored")))
			continue;
		if (!first || (name && n && !strcmp(n, name)))
			first = e;
	}
	if (first) {
		*subject = json_object_get(first, "what");
		*events = json_object_get(first, "events");
	}
}

/* The counters key of a run that is name, or the same counter with other modifiers. */
static json_t *counter_of(json_t *counters, const char *name)
{
	const char *key;
	size_t stem = strcspn(name, ":");
	json_t *v;

	if ((v = json_object_get(counters, name)))
		return v;
	json_object_foreach(counters, key, v)
		if (strcspn(key, ":") == stem && !strncasecmp(key, name, stem) && !strchr(name, '/'))
			return v;
	return NULL;
}

double pb_contest_run_value(json_t *run, const char *metric, double iterations)
{
	json_t *counters = json_object_get(run, "counters");
	int m = pb_metric_find(metric);
	const char *reason, *ev;
	double v[8];
	int n = 0;

	if (m < 0) {
		json_t *k = json_object_get(counter_of(counters, metric), "scaled");

		return json_is_number(k) ? json_number_value(k) : NAN;
	}
	ev = pb_metric_events(m, &reason);
	for (const char *p = ev; p && *p && n < 8;) {
		size_t len = strcspn(p, ",");
		char name[160];
		json_t *k;

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		k = json_object_get(counter_of(counters, name), "scaled");
		if (!json_is_number(k))
			return NAN;
		v[n++] = json_number_value(k);
		p += len + (p[len] == ',');
	}
	return ev ? pb_metric_value(pb_metric_calc(m), v, n,
				    json_number_value(json_object_get(run, "ns")), iterations) : NAN;
}

json_t *pb_contest_baseline_runs(json_t *root, const char *name, json_t **subject)
{
	json_t *modes = json_object_get(root, "modes"), *m, *events;
	size_t i;

	*subject = json_object_get(root, "subject");
	if (json_is_array(modes)) {
		json_t *pick = json_array_get(modes, 0);

		json_array_foreach(modes, i, m)
			if (json_string_value(json_object_get(m, "mode")) &&
			    !strcmp(json_string_value(json_object_get(m, "mode")), "prepared"))
				pick = m;
		return json_object_get(pick, "runs");
	}
	if (json_is_array(json_object_get(root, "runs")))
		return json_object_get(root, "runs");
	pb_contest_baseline_of(root, name, subject, &events);
	json_array_foreach(json_object_get(root, "entrants"), i, m)
		if (json_object_get(m, "what") == *subject)
			return json_object_get(json_object_get(m, "set"), "runs");
	return NULL;
}

int pb_contest_stored_load(struct pb_entrant *n, const char *path, const char *name)
{
	json_t *root, *subject, *runs;
	struct stat st;

	/* read a second time: a pipe or a FIFO has given its bytes to the first reading */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -EINVAL;
	root = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	runs = pb_contest_baseline_runs(root, name, &subject);
	if (json_is_array(runs) && json_array_size(runs)) {
		n->stored_runs = json_incref(runs);
		n->stored_iterations = json_number_value(json_object_get(subject, "iterations"));
	}
	json_decref(root);
	return n->stored_runs ? 0 : -ENODATA;
}

void pb_contest_stored_free(struct pb_entrant *n)
{
	json_decref(n->stored_runs);
	n->stored_runs = NULL;
}

double *pb_contest_stored_values(const struct pb_entrant *e, const char *what, size_t *n,
				 size_t *missing)
{
	json_t *run;
	double *v;
	size_t i;

	*n = *missing = 0;
	if (!e->stored_runs)
		return NULL;
	v = malloc((json_array_size(e->stored_runs) + 1) * sizeof(*v));
	json_array_foreach(e->stored_runs, i, run) {
		double x;

		if (!v || json_is_true(json_object_get(run, "timed_out")))
			continue;	/* PB_RUN_LEFT_OUT */
		x = what ? pb_contest_run_value(run, what, e->stored_iterations) :
		    json_is_number(json_object_get(run, "ns")) &&
		    json_number_value(json_object_get(run, "ns")) > 0 ?
		    json_number_value(json_object_get(run, "ns")) : NAN;
		if (isfinite(x) && x >= 0)
			v[(*n)++] = x;
		else
			(*missing)++;
	}
	return v;
}
