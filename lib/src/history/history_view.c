/* SPDX-License-Identifier: MIT */
/*
 * A series as every report of it sees it (history_report.c, history_plot.c): found by its
 * name, its points and change points read once through the public calls (so that any backend
 * behind history/history.h serves them), each point's noise and segment worked out here.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "history/history.h"

void pb_history_view_free(struct pb_hview *v)
{
	free(v->noisy);
	free(v->judged);
	free(v->segment);
	memset(v, 0, sizeof(*v));
}

/* The series named name: of its metrics, the wall-clock time's (time_ns, real_time_ns) or a
 * CSV's value before any other, else the first. Its id, or -ENOENT. */
static int find(struct pbench_history *h, const char *name, struct pbench_history_series *s)
{
	int n = pbench_history_series_count(h), best = -1;

	for (int i = 0; i < n && best != 0; i++) {
		struct pbench_history_series t = { .size = sizeof(t) };

		if (pbench_history_series_get(h, i, &t) || strcmp(t.name, name))
			continue;
		if (best < 0 || !strcmp(t.metric, "time_ns") || !strcmp(t.metric, "real_time_ns") ||
		    !strcmp(t.metric, "value")) {
			*s = t;
			best = best < 0 && strcmp(t.metric, "time_ns") && strcmp(t.metric,
			       "real_time_ns") && strcmp(t.metric, "value") ? 1 : 0;
		}
	}
	if (best >= 0)
		return 0;
	return n < 0 ? n : pb_fail(-ENOENT, "history: no series '%s' (pbench history lists "
				   "them)", name);
}

int pb_history_view(struct pbench_history *h, const char *name,
		    const struct pbench_history_changes_opts *opts, struct pb_hview *v)
{
	struct pbench_history_series s = { .size = sizeof(s) };
	int rc, seg = 0;

	memset(v, 0, sizeof(*v));
	if (!h || !name)
		return pb_fail(-EINVAL, "history: no %s", h ? "series name" : "history");
	if ((rc = find(h, name, &s)))
		return rc;
	v->name = name;
	rc = pbench_history_changes(h, s.id, opts, &v->segments);
	if (rc < 0)
		return rc;
	v->nchanges = rc;
	v->n = (int)h->npoints;
	v->noisy = calloc((size_t)v->n + 1, sizeof(int));
	v->judged = calloc((size_t)v->n + 1, sizeof(int));
	v->segment = calloc((size_t)v->n + 1, sizeof(int));
	if (!v->noisy || !v->judged || !v->segment) {
		pb_history_view_free(v);
		return -ENOMEM;
	}
	for (int i = 0; i < v->n; i++) {
		const struct pbench_history_record *r = &h->points[i].rec;

		if (i && strcmp(r->fingerprint, h->points[i - 1].rec.fingerprint))
			seg++;
		v->segment[i] = seg;
		for (size_t k = 0; k < r->n_runs; k++) {
			v->judged[i] += r->run_noisy[k] >= 0;
			v->noisy[i] += r->run_noisy[k] > 0;
		}
	}
	v->metric = v->n ? h->points[0].rec.metric : "";
	v->unit = v->n ? h->points[v->n - 1].rec.unit : "";
	return 0;
}

int pb_history_view_noisy(const struct pb_hview *v, int i)
{
	return v->judged[i] && 5 * v->noisy[i] >= v->judged[i];
}

const struct pbench_history_record *pb_history_view_point(const struct pbench_history *h, int i)
{
	return &h->points[i].rec;
}

const struct pbench_history_change *pb_history_view_change(const struct pbench_history *h,
							   int i)
{
	return &h->changes[i];
}

/* The change that starts at point i, or NULL. */
const struct pbench_history_change *pb_history_view_change_at(const struct pbench_history *h,
							      int i)
{
	for (size_t k = 0; k < h->nchanges; k++)
		if (h->changes[k].index == i)
			return &h->changes[k];
	return NULL;
}
