/* SPDX-License-Identifier: MIT */
/*
 * JSON reports (schema/result.schema.json, comparison.schema.json): the full data of a result
 * or a comparison, for tools. Every field
 * name is snake_case with its unit in the name (_ns, _pct); a number that is not finite (a NaN
 * "unknown", a ratio to a mean of 0) is written as null, never as a number it is not.
 *
 * The text reports round to what the measurement supports; the JSON keeps every double as
 * computed, so that a reader can redo any figure from the samples.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "listing/listing.h"
#include "measure/measure.h"


/*
 * What the result keeps of the options it was measured with. The result does not keep the
 * warm-up, sample length, target, sample limits, budget or a fixed iteration count (measure.h
 * has no field for them): those are null, "unknown", rather than the defaults they may not be.
 */
static json_t *settings_json(const struct pbench_result *r, int *bad)
{
	static const char *const unknown[] = { "warmup_ms", "min_sample_ms", "target_sem_pct",
					       "min_samples", "max_samples", "budget_ms",
					       "iterations" };
	const struct pbench_measure_opts *o = &r->settings;
	json_t *j = json_object(), *ev;

	if (!j) {
		*bad = -1;
		return NULL;
	}
	if (r->has_settings) {
		SET(j, "warmup_ms", num(o->warmup_ms));
		SET(j, "min_sample_ms", num(o->min_sample_ms));
		SET(j, "target_sem_pct", num(o->target_sem_pct));
		SET(j, "min_samples", unum(o->min_samples));
		SET(j, "max_samples", unum(o->max_samples));
		SET(j, "budget_ms", num(o->budget_ms));
		/* 0 asked for an automatic count; the count used is "iterations" at the top. */
		SET(j, "iterations", o->iterations ? unum(o->iterations) : json_null());
		SET(j, "count_memory", json_boolean(o->count_memory));
	} else {
		/* The region API: the caller decided all of it. */
		for (size_t i = 0; i < PB_ARRAY_SIZE(unknown); i++)
			SET(j, unknown[i], json_null());
		SET(j, "count_memory", json_null());
	}
	SET(j, "keep_overhead", json_boolean(r->keep_overhead));
	ev = r->nr_events ? json_array() : json_null();
	for (int e = 0; ev && e < r->nr_events; e++)
		APPEND(ev, json_string(r->names[e]));
	SET(j, "events", ev);
	return j;
}

static json_t *flags_json(unsigned flags, int *bad)
{
	static const struct {
		unsigned flag;
		const char *name;
	} names[] = {
		{ PBENCH_RESULT_SUSPICIOUS, "suspicious" },
		{ PBENCH_RESULT_UNOPTIMIZED, "unoptimized" },
		{ PBENCH_RESULT_OVERHEAD_DOMINATES, "overhead_dominates" },
		{ PBENCH_RESULT_NOISY, "noisy" },
		{ PBENCH_RESULT_CLAMPED, "clamped" },
		{ PBENCH_RESULT_SETUP_PER_BATCH, "setup_per_batch" },
	};
	json_t *j = json_array();

	for (size_t i = 0; j && i < PB_ARRAY_SIZE(names); i++)
		if (flags & names[i].flag)
			APPEND(j, json_string(names[i].name));
	return j;
}

static json_t *noise_json(const struct pbench_noise *nz, int *bad)
{
	json_t *j = json_object();

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "ctx_involuntary", unum(nz->ctx_involuntary));
	SET(j, "ctx_voluntary", unum(nz->ctx_voluntary));
	SET(j, "migrations", unum(nz->migrations));
	SET(j, "minor_faults", unum(nz->minor_faults));
	SET(j, "major_faults", unum(nz->major_faults));
	SET(j, "not_running_ns", num(nz->not_running_ns));	/* NaN: task-clock not counted */
	return j;
}

/*
 * One event of one sample: null when the event could not be opened (events[] says why, once);
 * else raw over the whole sample, per_iter as the result has it (minus the empty batch's
 * unless keep_overhead), and the share of the sample it was counting; value and per_iter are
 * null when it did not count in this sample.
 */
static json_t *count_json(const struct pbench_count *k, int *bad)
{
	int counted = k->status == PBENCH_EVENT_OK || k->status == PBENCH_EVENT_MULTIPLEXED;
	json_t *j;

	if (k->status == PBENCH_EVENT_NOT_SUPPORTED || k->status == PBENCH_EVENT_NO_PERMISSION)
		return json_null();
	j = json_object();
	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "value", counted ? unum(k->value) : json_null());
	SET(j, "per_iter", counted ? num(k->scaled) : json_null());
	SET(j, "running_pct", k->time_enabled ? num(100.0 * (double)k->time_running /
						    (double)k->time_enabled) : json_null());
	return j;
}

/* The events once: whether each opened and why not, and whether it counts user space only. */
static json_t *events_json(const struct pbench_result *r, int *bad)
{
	json_t *a = json_array();

	for (int e = 0; a && e < r->nr_events; e++) {
		const struct pbench_count *k = &r->counts[e];
		int opened = k->status != PBENCH_EVENT_NOT_SUPPORTED &&
			     k->status != PBENCH_EVENT_NO_PERMISSION;

		APPEND(a, json_pack("{s:s, s:s, s:o, s:b}", "name", r->names[e], "status",
				    pbench_event_status_name(opened ? PBENCH_EVENT_OK : k->status),
				    "reason", opened ? json_null() : pb_json_str_or_null(k->reason),
				    "user_only", k->user_only));
	}
	if (!a)
		*bad = -1;
	return a;
}

/* ---- memory per call ---------------------------------------------------------------------- */

/* Each counted batch's counts, whole. */
static json_t *mem_batches_json(const struct pbench_result *r, int *bad)
{
	struct pbench_mem m = { .size = sizeof(m) };
	json_t *a = json_array();

	for (size_t i = 0; a && i < pbench_result_mem_nr_batches(r); i++) {
		if (pbench_result_mem(r, i, &m))
			break;
		APPEND(a, json_pack("{s:o, s:o, s:o, s:I}", "allocs", unum(m.allocs), "frees",
				    unum(m.frees), "bytes", unum(m.bytes), "peak_bytes",
				    (json_int_t)m.peak_bytes));
	}
	if (!a)
		*bad = -1;
	return a;
}

static json_t *mem_figure_json(const struct pbench_result *r, int kind, int *bad)
{
	struct pbench_summary s = { .size = sizeof(s) };
	int exact = 0;

	if (pbench_result_mem_summary(r, kind, &s, &exact))
		return json_null();
	return pb_json_mem_figure(&s, exact, bad);
}

/* What was counted per call (the peak per sample), or the status and why not. */
static json_t *memory_json(const struct pbench_result *r, int *bad)
{
	const char *reason = pbench_result_mem_reason(r);
	json_t *j;

	if (r->mem_status == PBENCH_MEM_OFF)
		return json_null();
	j = json_object();
	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "status", json_string(pbench_mem_status_name(r->mem_status)));
	SET(j, "reason", reason ? json_string(reason) : json_null());
	SET(j, "allocs_per_call", mem_figure_json(r, PBENCH_MEM_ALLOCS, bad));
	SET(j, "frees_per_call", mem_figure_json(r, PBENCH_MEM_FREES, bad));
	SET(j, "bytes_per_call", mem_figure_json(r, PBENCH_MEM_BYTES, bad));
	SET(j, "peak_bytes", mem_figure_json(r, PBENCH_MEM_PEAK, bad));
	SET(j, "batch_calls", r->mem_nr ? unum(r->iterations) : json_null());
	SET(j, "batches", mem_batches_json(r, bad));
	return j;
}

static json_t *sample_json(const struct pbench_result *r, size_t i, int *bad)
{
	const struct pbench_sample *s = &r->samples[i];
	json_t *j = json_object(), *cs = json_object();

	if (!j || !cs) {
		json_decref(j);
		json_decref(cs);
		*bad = -1;
		return NULL;
	}
	SET(j, "ticks", unum(s->ticks));
	SET(j, "iterations", unum(s->iterations));
	SET(j, "ns_per_iter", num(s->ns_per_iter));
	SET(j, "noise", noise_json(&r->noise[i], bad));
	for (int e = 0; e < r->nr_events; e++)
		SET(cs, r->names[e], count_json(&r->counts[i * (size_t)r->nr_events + e], bad));
	SET(j, "counters", cs);
	return j;
}

/* The label as a JSON string: NULL gives null, text that is not UTF-8 gives -EINVAL. */
static int label_json(const char *label, json_t **out)
{
	json_t *raw;

	*out = label ? json_string(label) : json_null();
	if (*out)
		return 0;
	if (!label || !(raw = json_string_nocheck(label)))
		return -ENOMEM;
	json_decref(raw);
	return -EINVAL;
}

int pbench_result_write_json(const struct pbench_result *r, FILE *f, const char *label)
{
	json_t *root, *samples, *lab;
	int err, b = 0, *bad = &b;

	if (!r || !f)
		return -EINVAL;
	err = label_json(label, &lab);
	if (err)
		return err;
	root = json_object();
	samples = json_array();
	if (!root || !samples) {
		json_decref(lab);
		json_decref(root);
		json_decref(samples);
		return -ENOMEM;
	}
	pb_json_head(root, 1, bad);
	SET(root, "label", lab);
	SET(root, "settings", settings_json(r, bad));
	SET(root, "events", r->nr && r->nr_events ? events_json(r, bad) : json_array());
	SET(root, "iterations", unum(r->iterations));
	SET(root, "overhead_ns_per_iter", num(pbench_result_overhead_ns(r)));
	SET(root, "stop_rule", json_string(pbench_stop_rule_name(r->stop_rule)));
	SET(root, "flags", flags_json(r->flags, bad));
	SET(root, "listing", r->listing ? pb_listing_json(r->listing) : json_null());
	SET(root, "summary", r->nr ? pb_json_summary(&r->summary, "_ns", bad) : json_null());
	SET(root, "memory", memory_json(r, bad));
	for (size_t i = 0; i < r->nr && !b; i++)
		APPEND(samples, sample_json(r, i, bad));
	SET(root, "samples", samples);
	if (b) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, 0, f);
}

static json_t *welch_json(const struct pbench_welch *w, int *bad)
{
	json_t *j = json_object();

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "t", num(w->t));
	SET(j, "df", num(w->df));
	SET(j, "p", num(w->p));
	SET(j, "diff_ns", num(w->diff));
	SET(j, "diff_lo_ns", num(w->diff_lo));
	SET(j, "diff_hi_ns", num(w->diff_hi));
	return j;
}

json_t *pb_mem_comparison_json(const struct pbench_mem_comparison *m, int *bad)
{
	json_t *j = json_object();

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "verdict", json_string(pbench_verdict_name(m->verdict)));
	SET(j, "a_per_call", num(m->a));
	SET(j, "b_per_call", num(m->b));
	SET(j, "a_exact", json_boolean(m->a_exact));
	SET(j, "b_exact", json_boolean(m->b_exact));
	SET(j, "ratio_b_to_a", num(m->ratio));
	SET(j, "ratio_lo", num(m->ratio_lo));
	SET(j, "ratio_hi", num(m->ratio_hi));
	SET(j, "p", num(m->p));
	return j;
}

/* Both sides on bytes and allocations per call; null when not asked for. */
static json_t *comparison_memory_json(const struct pbench_comparison *c, int *bad)
{
	json_t *j;

	if (c->size < offsetof(struct pbench_comparison, mem_reason) + sizeof(c->mem_reason) ||
	    c->mem_status == PBENCH_MEM_OFF)
		return json_null();
	j = json_object();
	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "status", json_string(pbench_mem_status_name(c->mem_status)));
	SET(j, "reason", c->mem_reason ? json_string(c->mem_reason) : json_null());
	SET(j, "bytes", c->mem_bytes ? pb_mem_comparison_json(c->mem_bytes, bad) : json_null());
	SET(j, "allocs", c->mem_allocs ? pb_mem_comparison_json(c->mem_allocs, bad) : json_null());
	return j;
}

static int has_listings(const struct pbench_comparison *c)
{
	return c->size >= offsetof(struct pbench_comparison, listing_b) + sizeof(c->listing_b);
}

int pbench_comparison_write_json(const struct pbench_comparison *c, FILE *f,
				 const char *label_a, const char *label_b)
{
	json_t *root, *la = NULL, *lb = NULL;
	int err, b = 0, *bad = &b;

	if ((err = pb_comparison_check(c, __func__)))
		return err;
	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	err = label_json(label_a, &la);
	if (!err)
		err = label_json(label_b, &lb);
	root = err ? NULL : json_object();
	if (!root) {
		json_decref(la);
		json_decref(lb);
		return err ? err : -ENOMEM;
	}
	pb_json_head(root, 1, bad);
	SET(root, "label_a", la);
	SET(root, "label_b", lb);
	SET(root, "verdict", json_string(pbench_verdict_name(c->verdict)));
	SET(root, "pairs", unum(c->pairs));
	/* A caller's struct from before these fields: null, in the same shape. */
	if (c->size >= offsetof(struct pbench_comparison, same_threshold_pct) + sizeof(double)) {
		SET(root, "confidence", num(c->confidence));
		SET(root, "same_threshold_pct", num(c->same_threshold_pct));
	} else {
		SET(root, "confidence", json_null());
		SET(root, "same_threshold_pct", json_null());
	}
	SET(root, "ratio", num(c->ratio));
	SET(root, "ratio_lo", num(c->ratio_lo));
	SET(root, "ratio_hi", num(c->ratio_hi));
	/* b against a, the direction of every ratio shown; null from an older caller's struct */
	if (c->size >= offsetof(struct pbench_comparison, verdict_b) + sizeof(c->verdict_b)) {
		SET(root, "ratio_b_to_a", num(c->ratio_b_to_a));
		SET(root, "ratio_b_to_a_lo", num(c->ratio_b_to_a_lo));
		SET(root, "ratio_b_to_a_hi", num(c->ratio_b_to_a_hi));
		SET(root, "verdict_b", json_string(pbench_verdict_name(c->verdict_b)));
	} else {
		SET(root, "ratio_b_to_a", json_null());
		SET(root, "ratio_b_to_a_lo", json_null());
		SET(root, "ratio_b_to_a_hi", json_null());
		SET(root, "verdict_b", json_null());
	}
	/* No interval means no test was run (too few samples, no variance): null, not zeros. */
	SET(root, "welch", c->welch && isfinite(c->ratio_lo) ? welch_json(c->welch, bad)
							   : json_null());
	SET(root, "a", pb_json_summary(c->a, "_ns", bad));
	SET(root, "b", pb_json_summary(c->b, "_ns", bad));
	/* The machine code of each side, when asked for or called for (show_code). */
	if (has_listings(c)) {
		SET(root, "listing_a", c->listing_a ? pb_listing_json(c->listing_a) : json_null());
		SET(root, "listing_b", c->listing_b ? pb_listing_json(c->listing_b) : json_null());
	} else {
		SET(root, "listing_a", json_null());
		SET(root, "listing_b", json_null());
	}
	SET(root, "memory", comparison_memory_json(c, bad));
	if (b) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, 0, f);
}
