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
#include "counters/counters.h"
#include "measure/measure.h"

int pbench_result_event_summary(const struct pbench_result *r, int e,
				struct pbench_event_summary *out)
{
	struct pbench_event_summary o = { .size = sizeof(o) };
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
		/* a run that could not count says why (not supported...), as the open did */
		if (!pb_event_counted(k) && k->status > PBENCH_EVENT_NOT_COUNTED)
			o.status = k->status;
		pb_event_summary_add(&o, k, x, &n, &run_sum);
	}
	pb_event_summary_end(&o, x, n, run_sum);
	free(x);
	if (!o.name)
		o.name = "";
	pb_copy_out(out, &o, sizeof(o));
	return 0;
}
