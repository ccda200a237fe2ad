/* SPDX-License-Identifier: MIT */
/*
 * A function's events per call (pbench_measure() with opts.events): each event's per-call
 * count (the empty batch's subtracted, as the time is) summarized over the samples, as
 * pbench_runs_event_summary() does over a set's runs: Google Benchmark's per-iteration
 * counters with perf stat's "+- x%".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "measure/measure.h"

int pbench_result_event_summary(const struct pbench_result *r, int e,
				struct pbench_event_summary *out)
{
	struct pbench_event_summary o = { .size = sizeof(o) };
	struct pbench_summary s = { .size = sizeof(s) };
	double *x, run_sum = 0;
	size_t n = 0;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_event_summary, 0, NULL)))
		return err;
	if (!r || e < 0 || e >= r->nr_events)
		return pb_fail(-EINVAL, "%s(): no event %d in the result", __func__, e);
	x = calloc(r->nr ? r->nr : 1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	o.unit = "";
	o.reason = "";
	o.status = PBENCH_EVENT_OK;
	for (size_t i = 0; i < r->nr; i++) {
		const struct pbench_count *k = &r->counts[i * (size_t)r->nr_events + (size_t)e];

		o.name = k->name;
		o.runs++;
		o.user_only |= k->user_only;
		if (k->status > PBENCH_EVENT_MULTIPLEXED || !k->time_running) {
			o.status = k->status > PBENCH_EVENT_NOT_COUNTED ? k->status : o.status;
			if (k->reason && *k->reason)
				o.reason = k->reason;
			continue;
		}
		o.counted++;
		o.multiplexed += k->is_scaled;
		run_sum += k->time_enabled ? 100.0 * (double)k->time_running /
					     (double)k->time_enabled : 100.0;
		x[n++] = k->scaled;
	}
	if (o.status == PBENCH_EVENT_OK)
		o.status = !o.counted ? PBENCH_EVENT_NOT_COUNTED : o.multiplexed ?
			   PBENCH_EVENT_MULTIPLEXED : PBENCH_EVENT_OK;
	if (o.status <= PBENCH_EVENT_MULTIPLEXED)
		o.reason = "";
	o.running_pct = o.counted ? run_sum / o.counted : NAN;
	o.mean = o.sem_pct = o.median = o.min = o.max = o.stddev = o.cv_pct = NAN;
	if (n && !pbench_stats_summary(x, n, NULL, &s)) {
		o.mean = s.mean;
		o.median = s.median;
		o.min = s.min;
		o.max = s.max;
		if (n > 1) {
			o.stddev = s.stddev;
			o.sem_pct = s.mean ? 100.0 * s.sem / fabs(s.mean) : NAN;
			o.cv_pct = s.mean ? 100.0 * s.stddev / fabs(s.mean) : NAN;
		}
	}
	free(x);
	if (!o.name)
		o.name = "";
	pb_copy_out(out, &o, sizeof(o));
	return 0;
}
