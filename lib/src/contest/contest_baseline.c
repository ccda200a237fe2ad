/* SPDX-License-Identifier: MIT */
/*
 * What a baseline was measured as, against what this contest measures: its mode, its command
 * (or workload), its events and the machine (pbench compare --baseline). Times of another
 * mode or machine are not the same quantity, and a gate over them would judge the setting,
 * not the build; read from the file's JSON (pbench stat's or pbench compare's), here, once.
 * A baseline on a metric (--metric) is read here too: its runs' counts of that event, or the
 * derived metric made from them as a live run's is.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "base/base.h"
#include "counters/counters.h"
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

int pbench_contest_baseline_check(const struct pbench_contest *c, const char *path,
				  const char *name, char *diffs, size_t len)
{
	json_t *root, *subject, *events, *now = NULL;
	const char *mode, *ours;
	char a[512], b[512], line[1200], *why = diffs;
	size_t at = 0;
	int diff = 0;

	if (!c || !path || !diffs || !len)
		return pb_fail(-EINVAL, "%s(): c, path or diffs is NULL, or len 0", __func__);
	why[0] = 0;
	root = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(root)) {
		json_decref(root);
		return pb_fail(-EINVAL, "%s(): '%s' is not JSON", __func__, path);
	}
	mode = json_string_value(json_object_get(root, "mode"));
	ours = c->o.mode == PBENCH_RUNS_PREPARED ? "prepared" : "unprepared";
	if (mode && strcmp(mode, "contrast") && strcmp(mode, ours)) {
		snprintf(line, sizeof(line), "it was measured %s, this run is %s", mode, ours);
		say(why, len, &at, line);
		diff |= PBENCH_BASELINE_DIFF_MODE;
	}
	pb_contest_baseline_of(root, name, &subject, &events);
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

/* ---- a baseline on a metric (pbench_contest_opts.metric) ------------------------------------ */

/* The events a baseline's runs counted, for the error that names what it has. */
static void counted_names(json_t *runs, char *buf, size_t len)
{
	json_t *counters = json_object_get(json_array_get(runs, 0), "counters"), *v;
	const char *key;
	size_t at = 0;

	buf[0] = 0;
	json_object_foreach(counters, key, v)
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", key);
}

static int metric_values(const char *path, json_t *root, const char *name, const char *metric,
			 double **out, size_t *n, char *why, size_t wlen)
{
	json_t *subject, *runs = pb_contest_baseline_runs(root, name, &subject), *run;
	double iterations = json_number_value(json_object_get(subject, "iterations"));
	size_t i, failed = 0;
	char has[512];

	*out = malloc((json_array_size(runs) + 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	json_array_foreach(runs, i, run) {
		double v;

		if (json_is_true(json_object_get(run, "timed_out")))
			continue;	/* PB_RUN_LEFT_OUT */
		failed += json_integer_value(json_object_get(run, "exit_status")) ||
			  json_is_integer(json_object_get(run, "signal"));
		v = pb_contest_run_value(run, metric, iterations);
		if (!isfinite(v) || v < 0) {
			counted_names(runs, has, sizeof(has));
			snprintf(why, wlen, "the baseline '%s' has no per-run values of '%s' (run %zu): "
				 "its runs counted %s; measure it again with --metric %s", path,
				 metric, i + 1, *has ? has : "no event", metric);
			return -ENOMSG;
		}
		(*out)[(*n)++] = v;
	}
	if (!json_is_array(runs) || *n < 2) {
		snprintf(why, wlen, "the baseline '%s' has no runs to take %s from (two at least)",
			 path, metric);
		return -ENOMSG;
	}
	if (failed) {
		snprintf(why, wlen, "the baseline '%s': %zu runs failed (exited non-zero or were "
			 "killed): its values are of failures", path, failed);
		return -ENOMSG;
	}
	return 0;
}

int pbench_contest_baseline_read(const char *path, const char *name, const char *metric,
				 double **out, size_t *n, char *warn, size_t warnlen)
{
	char why[1024] = "";	/* as pbench compare said them */
	json_error_t jerr;
	json_t *root;
	int err;

	if (!metric || !strcasecmp(metric, "wall-time"))
		return pbench_samples_baseline(path, name, out, n, warn, warnlen);
	pb_fail_clear();
	if (!path || !out || !n || !warn || !warnlen)
		return pb_fail(-EINVAL, "%s(): an argument is NULL or 0", __func__);
	*out = NULL;
	*n = 0;
	warn[0] = 0;
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(root)) {
		json_decref(root);
		return pb_fail_msg(-EINVAL, "the baseline '%s' is not pbench's JSON: %s", path,
				   jerr.text);
	}
	err = metric_values(path, root, name, metric, out, n, why, sizeof(why));
	json_decref(root);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
		if (*why)
			return pb_fail_msg(err, "%s", why);
	}
	return err;
}
