/* SPDX-License-Identifier: MIT */
/*
 * What a baseline was measured as, against what this contest measures: its mode, its command
 * (or workload), its events and the machine (pbench compare --baseline). Times of another
 * mode or machine are not the same quantity, and a gate over them would judge the setting,
 * not the build; read from the file's JSON (pbench stat's or pbench compare's), here, once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "contest/contest.h"
#include "runs/runs.h"

/* The event names of a JSON events[] array, comma-joined, into buf. */
static void event_names(const json_t *arr, char *buf, size_t len)
{
	size_t i, at = 0;
	json_t *e;

	buf[0] = 0;
	json_array_foreach(arr, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (n && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", n);
	}
}

/* The subject in words: "the xor workload, 40000000 iterations", "'make -j2'". */
static void subject_words(const json_t *s, char *buf, size_t len)
{
	const char *kind = json_string_value(json_object_get(s, "kind"));
	json_t *argv = json_object_get(s, "argv"), *w;
	size_t i, at = 0;

	if (kind && !strcmp(kind, "workload")) {
		snprintf(buf, len, "the %s workload, %lld iterations",
			 json_string_value(json_object_get(s, "name")) ?
			 json_string_value(json_object_get(s, "name")) : "?",
			 (long long)json_integer_value(json_object_get(s, "iterations")));
		return;
	}
	at = (size_t)snprintf(buf, len, "'");
	json_array_foreach(argv, i, w)
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "",
					       json_string_value(w) ? json_string_value(w) : "?");
	if (at < len)
		snprintf(buf + at, len - at, "'");
}

static void say(char *why, size_t len, size_t *at, const char *what)
{
	if (*at < len)
		*at += (size_t)snprintf(why + *at, len - *at, "%s%s", *at ? "; " : "", what);
}

/* The machine's fingerprint fields of the file's host against this one's. */
static int other_machine(const json_t *host, char *buf, size_t len)
{
	struct pbench_host h = { .size = sizeof(h) };
	const char *key[] = { "hostname", "kernel", "arch", "cpu_model" };
	const char *now[4];

	if (!json_is_object(host) || pbench_host_info(&h))
		return 0;
	now[0] = h.hostname, now[1] = h.kernel, now[2] = h.arch, now[3] = h.cpu_model;
	for (int k = 0; k < 4; k++) {
		const char *then = json_string_value(json_object_get(host, key[k]));

		if (then && now[k] && strcmp(then, now[k])) {
			snprintf(buf, len, "it was measured on another machine (%s '%s', here '%s')",
				 key[k], then, now[k]);
			return 1;
		}
	}
	if (json_is_integer(json_object_get(host, "cpus_online")) && h.cpus_online > 0 &&
	    json_integer_value(json_object_get(host, "cpus_online")) != h.cpus_online) {
		snprintf(buf, len, "it was measured with %lld CPUs online, here %d",
			 (long long)json_integer_value(json_object_get(host, "cpus_online")),
			 h.cpus_online);
		return 1;
	}
	return 0;
}

/* The set the baseline's times come from: stat's document, or compare's entrant named name
 * (else its first run entrant). */
static void baseline_of(json_t *root, const char *name, json_t **subject, json_t **events)
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

int pbench_contest_baseline_check(const struct pbench_contest *c, const char *path,
				  const char *name, char *why, size_t len)
{
	json_t *root, *subject, *events, *now = NULL;
	const char *mode, *ours;
	char a[512], b[512], line[1200];
	size_t at = 0;
	int diff = 0;

	if (!c || !path || !why || !len)
		return -EINVAL;
	why[0] = 0;
	root = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	mode = json_string_value(json_object_get(root, "mode"));
	ours = c->o.mode == PBENCH_RUNS_PREPARED ? "prepared" : "unprepared";
	if (mode && strcmp(mode, "contrast") && strcmp(mode, ours)) {
		snprintf(line, sizeof(line), "it was measured %s, this run is %s", mode, ours);
		say(why, len, &at, line);
		diff |= PBENCH_BASELINE_DIFF_MODE;
	}
	baseline_of(root, name, &subject, &events);
	for (int i = 0; i < c->n && !now; i++)
		if (c->e[i].r)
			now = pb_runs_subject_json(c->e[i].r);
	if (json_is_object(subject) && now && !json_equal(subject, now)) {
		subject_words(subject, a, sizeof(a));
		subject_words(now, b, sizeof(b));
		snprintf(line, sizeof(line), "its command was %s, this one is %s", a, b);
		say(why, len, &at, line);
		diff |= PBENCH_BASELINE_DIFF_COMMAND;
	}
	json_decref(now);
	event_names(events, a, sizeof(a));
	if (json_is_array(events) && c->events && strcmp(a, c->events)) {
		snprintf(line, sizeof(line), "its events were %s, these are %s", *a ? a : "none",
			 c->events);
		say(why, len, &at, line);
		diff |= PBENCH_BASELINE_DIFF_EVENTS;
	}
	if (other_machine(json_object_get(root, "host"), line, sizeof(line))) {
		say(why, len, &at, line);
		diff |= PBENCH_BASELINE_DIFF_MACHINE;
	}
	json_decref(root);
	return diff;
}
