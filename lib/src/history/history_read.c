/* SPDX-License-Identifier: MIT */
/*
 * Reading the history back: the series with their machines, and the points of a series with
 * every run, kept in the history object so that the caller takes them one at a time
 * (versioned structs, never an array) and their strings stay valid until the next read.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "history/history.h"

/* The columns of a point, in the order of POINT_COLS; the machine's from the join, the
 * document from its table (schema 2), else the record's own json (a record of schema 1). */
#define POINT_COLS "r.id, r.series_id, s.name, s.metric, r.unit, r.rev, r.dirty, r.branch, " \
	"r.time_ns, r.value, r.lo, r.hi, r.n_runs, coalesce(d.json, r.json), m.cpu_model, m.microcode, m.kernel, " \
	"m.governor, m.smt, m.isolation, m.virt, m.pbench_version, m.fingerprint"

static char *dup_col(const struct pb_hv *v, int *err)
{
	char *s = strdup(v->type == PB_HV_TEXT && v->s ? v->s : "");

	if (!s)
		*err = -ENOMEM;
	return s;
}

static void point_release(struct pb_hpoint *p)
{
	for (size_t i = 0; i < sizeof(p->strs) / sizeof(p->strs[0]); i++)
		free(p->strs[i]);
	free(p->runs);
	free(p->noisy);
}

void pb_history_points_free(struct pbench_history *h)
{
	for (size_t i = 0; i < h->npoints; i++)
		point_release(&h->points[i]);
	free(h->points);
	h->points = NULL;
	h->npoints = 0;
}

struct reading {
	struct pbench_history *h;
	size_t cap;
};

static int point_row(const struct pb_hv *c, int n, void *arg)
{
	struct reading *rd = arg;
	struct pbench_history *h = rd->h;
	struct pb_hpoint *p;
	int err = 0, k = 0;

	if (n < 23)
		return -PBENCH_ECORRUPT;
	if (h->npoints == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 64;
		struct pb_hpoint *np = realloc(h->points, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		h->points = np;
		rd->cap = cap;
	}
	p = &h->points[h->npoints++];
	memset(p, 0, sizeof(*p));
	p->rec.size = sizeof(p->rec);
	p->rec.id = c[0].i;
	p->rec.series_id = c[1].i;
	p->rec.name = p->strs[k++] = dup_col(&c[2], &err);
	p->rec.metric = p->strs[k++] = dup_col(&c[3], &err);
	p->rec.unit = p->strs[k++] = dup_col(&c[4], &err);
	p->rec.rev = p->strs[k++] = dup_col(&c[5], &err);
	p->rec.dirty = (int)c[6].i;
	p->rec.branch = p->strs[k++] = dup_col(&c[7], &err);
	p->rec.time_ns = c[8].i;
	p->rec.value = c[9].type == PB_HV_NULL ? NAN : c[9].d;
	p->rec.lo = c[10].type == PB_HV_NULL ? NAN : c[10].d;
	p->rec.hi = c[11].type == PB_HV_NULL ? NAN : c[11].d;
	p->rec.n_runs = (size_t)c[12].i;
	p->rec.json = c[13].type == PB_HV_NULL ? NULL : (p->strs[k++] = dup_col(&c[13], &err));
	p->rec.cpu_model = p->strs[k++] = dup_col(&c[14], &err);
	p->rec.microcode = p->strs[k++] = dup_col(&c[15], &err);
	p->rec.kernel = p->strs[k++] = dup_col(&c[16], &err);
	p->rec.governor = p->strs[k++] = dup_col(&c[17], &err);
	p->rec.smt = p->strs[k++] = dup_col(&c[18], &err);
	p->rec.isolation = p->strs[k++] = dup_col(&c[19], &err);
	p->rec.virt = p->strs[k++] = dup_col(&c[20], &err);
	p->rec.pbench_version = p->strs[k++] = dup_col(&c[21], &err);
	p->rec.fingerprint = p->strs[k++] = dup_col(&c[22], &err);
	return err;
}

/* The points by record id, to find a run's point: ids[i] is point idx[i]'s record. */
struct by_id {
	struct pbench_history *h;
	int64_t *ids;
	size_t *idx;
};

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int run_row(const struct pb_hv *c, int n, void *arg)
{
	struct by_id *b = arg;
	const int64_t *hit;
	struct pb_hpoint *p;
	int64_t i;

	if (n < 4)
		return -PBENCH_ECORRUPT;
	hit = bsearch(&c[0].i, b->ids, b->h->npoints, sizeof(*b->ids), cmp_id);
	if (!hit)	/* a record appended since the points were read: not one of them */
		return 0;
	p = &b->h->points[b->idx[hit - b->ids]];
	i = c[1].i;
	if (i < 0 || (size_t)i >= p->rec.n_runs)
		return pb_fail(-PBENCH_ECORRUPT, "history: record %lld has a run %lld of %zu",
			       (long long)p->rec.id, (long long)i, p->rec.n_runs);
	p->runs[i] = c[2].type == PB_HV_NULL ? NAN : c[2].d;
	p->noisy[i] = (int)c[3].i;
	return 0;
}

static int alloc_runs(struct pb_hpoint *p)
{
	size_t n = p->rec.n_runs ? p->rec.n_runs : 1;

	p->runs = malloc(n * sizeof(*p->runs));
	p->noisy = malloc(n * sizeof(*p->noisy));
	if (!p->runs || !p->noisy)
		return -ENOMEM;
	for (size_t i = 0; i < p->rec.n_runs; i++) {
		p->runs[i] = NAN;
		p->noisy[i] = -1;
	}
	p->rec.run_values = p->runs;
	p->rec.run_noisy = p->noisy;
	return 0;
}

/* The runs of every point read, in one query of the same where (one per point would be a
 * round trip each on a server: seconds for a 10,000-point series). */
static int read_runs(struct pbench_history *h, const char *where, const struct pb_hv *args,
		     int nargs)
{
	struct by_id b = { .h = h };
	int64_t (*pairs)[2];
	char sql[1024];
	int rc = 0;

	for (size_t i = 0; i < h->npoints && !rc; i++)
		rc = alloc_runs(&h->points[i]);
	if (rc || !h->npoints)
		return rc;
	pairs = malloc(h->npoints * sizeof(*pairs));
	b.ids = malloc(h->npoints * sizeof(*b.ids));
	b.idx = malloc(h->npoints * sizeof(*b.idx));
	if (!pairs || !b.ids || !b.idx) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < h->npoints; i++) {
		pairs[i][0] = h->points[i].rec.id;
		pairs[i][1] = (int64_t)i;
	}
	qsort(pairs, h->npoints, sizeof(*pairs), cmp_id);
	for (size_t i = 0; i < h->npoints; i++) {
		b.ids[i] = pairs[i][0];
		b.idx[i] = (size_t)pairs[i][1];
	}
	snprintf(sql, sizeof(sql), "SELECT u.record_id, u.idx, u.value, u.noisy FROM runs u "
		 "JOIN records r ON r.id = u.record_id JOIN series s ON s.id = r.series_id "
		 "JOIN machines m ON m.id = s.machine_id WHERE %s", where);
	rc = h->be->query(h->db, sql, args, nargs, run_row, &b);
out:
	free(pairs);
	free(b.ids);
	free(b.idx);
	return rc;
}

/* The points a query of POINT_COLS selects (after "SELECT POINT_COLS FROM ... "), with their
 * runs: the count, or a negative error (the points read before are gone either way). */
int pb_history_read_points(struct pbench_history *h, const char *where, const struct pb_hv *args,
			   int nargs)
{
	struct reading rd = { .h = h };
	char sql[1024];
	int rc;

	pb_history_points_free(h);
	snprintf(sql, sizeof(sql), "SELECT " POINT_COLS " FROM records r JOIN series s ON "
		 "s.id = r.series_id JOIN machines m ON m.id = s.machine_id LEFT JOIN documents "
		 "d ON d.id = r.document_id WHERE %s ORDER BY r.time_ns, r.id", where);
	rc = h->be->query(h->db, sql, args, nargs, point_row, &rd);
	if (!rc)
		rc = read_runs(h, where, args, nargs);
	if (rc) {
		pb_history_points_free(h);
		return rc;
	}
	return (int)h->npoints;
}

int pbench_history_points(struct pbench_history *h, int64_t series_id)
{
	int n;

	if (!h)
		return pb_fail(-EINVAL, "%s(): h is NULL", __func__);
	n = pb_history_read_points(h, "r.series_id = $1", &PB_HV_I(series_id), 1);
	if (n == 0)
		return pb_fail(-ENOENT, "%s(): no series %lld in the history", __func__,
			       (long long)series_id);
	return n;
}

int pbench_history_point_get(struct pbench_history *h, int i,
			     struct pbench_history_record *out)
{
	int rc = PB_CHECK_STRUCT(out, pbench_history_record, 0, NULL);

	if (rc)
		return rc;
	if (!h || i < 0 || (size_t)i >= h->npoints)
		return pb_fail(-EINVAL, "%s(): point %d of %zu (call pbench_history_points() "
			       "first)", __func__, i, h ? h->npoints : 0);
	pb_copy_out(out, &h->points[i].rec, sizeof(h->points[i].rec));
	return 0;
}

void pb_history_series_free(struct pbench_history *h)
{
	for (size_t i = 0; i < h->nseries; i++)
		for (size_t k = 0; k < sizeof(h->series[i].strs) / sizeof(char *); k++)
			free(h->series[i].strs[k]);
	free(h->series);
	h->series = NULL;
	h->nseries = 0;
}

static int series_row(const struct pb_hv *c, int n, void *arg)
{
	struct reading *rd = arg;
	struct pbench_history *h = rd->h;
	struct pb_hseries *s;
	const char **f[11];
	int err = 0;

	if (n < 15)
		return -PBENCH_ECORRUPT;
	if (h->nseries == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 16;
		struct pb_hseries *ns = realloc(h->series, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		h->series = ns;
		rd->cap = cap;
	}
	s = &h->series[h->nseries++];
	memset(s, 0, sizeof(*s));
	s->s.size = sizeof(s->s);
	s->s.id = c[0].i;
	f[0] = &s->s.name, f[1] = &s->s.metric, f[2] = &s->s.fingerprint;
	f[3] = &s->s.cpu_model, f[4] = &s->s.microcode, f[5] = &s->s.kernel;
	f[6] = &s->s.governor, f[7] = &s->s.smt, f[8] = &s->s.isolation, f[9] = &s->s.virt;
	f[10] = &s->s.pbench_version;
	for (int k = 0; k < 11; k++)
		*f[k] = s->strs[k] = dup_col(&c[k + 1], &err);
	s->s.points = (size_t)c[12].i;
	s->s.first_ns = c[13].i;
	s->s.last_ns = c[14].i;
	return err;
}

int pbench_history_series_count(struct pbench_history *h)
{
	struct reading rd;
	int rc;

	if (!h)
		return pb_fail(-EINVAL, "%s(): h is NULL", __func__);
	pb_history_series_free(h);
	rd = (struct reading){ .h = h };
	rc = h->be->query(h->db, "SELECT s.id, s.name, s.metric, m.fingerprint, m.cpu_model, "
			  "m.microcode, m.kernel, m.governor, m.smt, m.isolation, m.virt, "
			  "m.pbench_version, count(r.id), coalesce(min(r.time_ns), 0), "
			  "coalesce(max(r.time_ns), 0) FROM series s JOIN machines m ON "
			  "m.id = s.machine_id LEFT JOIN records r ON r.series_id = s.id "
			  "GROUP BY s.id, m.id ORDER BY s.name, s.metric, min(r.time_ns), s.id",
			  NULL, 0, series_row, &rd);
	if (rc) {
		pb_history_series_free(h);
		return rc;
	}
	return (int)h->nseries;
}

int pbench_history_series_get(struct pbench_history *h, int i,
			      struct pbench_history_series *out)
{
	int rc = PB_CHECK_STRUCT(out, pbench_history_series, 0, NULL);

	if (rc)
		return rc;
	if (!h || i < 0 || (size_t)i >= h->nseries)
		return pb_fail(-EINVAL, "%s(): series %d of %zu (call "
			       "pbench_history_series_count() first)", __func__, i,
			       h ? h->nseries : 0);
	pb_copy_out(out, &h->series[i].s, sizeof(h->series[i].s));
	return 0;
}
