/* SPDX-License-Identifier: MIT */
/*
 * The history's private parts (lib/src/history/): the store of issue 24 sits behind a small
 * backend interface, statements with $1..$n parameters and rows handed to a callback, so that
 * a second backend (PostgreSQL through libpq, history_pg.c) runs the same schema and the same
 * SQL. SQLite is the first (history_sqlite.c); the schema and its migrations (history_schema.c), the
 * reading of series and points (history_read.c), the change points (history_changes.c), git
 * (history_git.c) and the public calls (history.c) know only this interface.
 */
#ifndef PBENCH_HISTORY_H
#define PBENCH_HISTORY_H

#include <stdint.h>
#include <stddef.h>

#include "pbench.h"

/* One value bound to a statement or read from a row. */
enum pb_hv_type { PB_HV_NULL, PB_HV_INT, PB_HV_REAL, PB_HV_TEXT };
struct pb_hv {
	enum pb_hv_type type;
	int64_t i;
	double d;
	const char *s;			/* TEXT: valid during the row's callback only */
};
#define PB_HV_I(x) ((struct pb_hv){ .type = PB_HV_INT, .i = (x) })
#define PB_HV_D(x) ((struct pb_hv){ .type = PB_HV_REAL, .d = (x) })
#define PB_HV_S(x) ((struct pb_hv){ .type = PB_HV_TEXT, .s = (x) })
/* A REAL read as a row's integer (pb_hv.i): the nearest int64 (0 for NaN), never a cast past
 * int64's range (undefined: a 1e308 another program wrote). Both backends read REALs so. */
static inline int64_t pb_hv_int_of(double d)
{
	return d != d ? 0 : d >= 9223372036854775808.0 ? INT64_MAX :
	       d < -9223372036854775808.0 ? INT64_MIN : (int64_t)d;
}

/* A row of a query: ncol values; return 0 to go on, a negative error to stop with it. */
typedef int (*pb_hrow_fn)(const struct pb_hv *col, int ncol, void *arg);

struct pb_hdb;

/* A backend. Every call returns 0 or a negative error said through pb_fail() in one line:
 * -PBENCH_ECORRUPT, -EBUSY (locked past the timeout), -ENOSPC, -EACCES, -EROFS, -ENOMEM. */
struct pb_hbackend {
	const char *name;
	int (*open)(struct pb_hdb **out, const char *path, const struct pbench_history_opts *o);
	void (*close)(struct pb_hdb *db);
	/* Statements without parameters (schema), run in order. */
	int (*exec)(struct pb_hdb *db, const char *sql);
	/* One statement with args ($1..$n), fn called per row (NULL: rows ignored). */
	int (*query)(struct pb_hdb *db, const char *sql, const struct pb_hv *args, int nargs,
		     pb_hrow_fn fn, void *arg);
	/* A write transaction: begin takes the write lock at once (waiting up to the timeout). */
	int (*begin)(struct pb_hdb *db);
	/* Inside a transaction, before a migration reads the version again: wait for any other
	 * migration (NULL: begin's write lock already serializes them, as SQLite's does). */
	int (*lock_schema)(struct pb_hdb *db);
	int (*commit)(struct pb_hdb *db);
	void (*rollback)(struct pb_hdb *db);
	/* Whether the store holds any table at all (a new file). */
	int (*empty)(struct pb_hdb *db);
};

/* history_sqlite.c */
extern const struct pb_hbackend pb_history_sqlite;

/* history_pg.c: whether path is a postgresql:// or postgres:// URI, and its backend (one that
 * refuses to open where pbench was built without libpq). */
int pb_history_is_pg(const char *path);
extern const struct pb_hbackend pb_history_pg;

/* What pbench_history_points() read: one record per point, its strings owned here. */
struct pb_hpoint {
	struct pbench_history_record rec;
	char *strs[16];			/* what rec's strings point to */
	double *runs;
	int *noisy;
};

struct pb_hseries {
	struct pbench_history_series s;
	char *strs[11];
};

struct pbench_history {
	const struct pb_hbackend *be;
	struct pb_hdb *db;
	int schema;
	int read_only;
	struct pb_hseries *series;	/* pbench_history_series_count() */
	size_t nseries;
	struct pb_hpoint *points;	/* pbench_history_points() */
	size_t npoints;
	struct pbench_history_change *changes;	/* pbench_history_changes() */
	char **change_strs;
	size_t nchanges;
	char *verdict_strs[3];		/* pbench_history_check()'s (history_report.c) */
};

/* history.c: a machine's fingerprint, its fields and their stable hash. */
struct pb_hfp {
	const char *f[8];
	char buf[5][256];
	char hash[17];
};

/* history.c: what the records appended in one transaction share (pbench_history_import()'s:
 * a document all or nothing). The machine's fingerprint is read once, for the first record,
 * and its row made once: the records of a batch share the fingerprint fields they give (the
 * same pointers, env included). The document (rec->json) is stored once, in the documents
 * table, and every record of the batch that gives the same pointer refers to it. Zeroed,
 * then used by the pb_history_add_in() of one transaction only. */
struct pb_hbatch {
	int have_fp;
	const char *given[8];		/* the fingerprint fields of the first record */
	const struct pbench_check *env;
	struct pb_hfp fp;
	int64_t machine_id;
	const char *doc;		/* the document of doc_id */
	int64_t doc_id;
	/* The series of the last record (a CSV's lines are all one: two statements less a
	 * line, two round trips on a server); "" none, or a name too long to keep here. */
	char series_name[512], series_metric[128];
	int64_t series_id;
};

/* history.c: a write transaction (the backend's begin: the write lock, waiting up to the
 * timeout), after the checks of a writer (h not read-only; fn: the public call, for the
 * message). */
int pb_history_begin(struct pbench_history *h, const char *fn);
/* history.c: end the transaction of pb_history_begin(): commit when rc is 0, else roll back;
 * rc, or the commit's error (then rolled back too). */
int pb_history_end(struct pbench_history *h, int rc);
/* history.c: append rec inside the caller's transaction (pb_history_begin()), as
 * pbench_history_add() does in its own: the record's id, or a negative error (the caller then
 * rolls back). */
int64_t pb_history_add_in(struct pbench_history *h, const struct pbench_history_record *rec,
			  struct pb_hbatch *b);

/* history_schema.c: bring the store up to PBENCH_HISTORY_SCHEMA, or refuse it. */
int pb_history_schema(struct pbench_history *h);
/* history.c: this machine's fingerprint (16 hex digits and a NUL), as a record appended here
 * with no machine fields given would have it. */
void pb_history_fingerprint_here(char hash[17]);

/* history_read.c */
int pb_history_read_points(struct pbench_history *h, const char *sql, const struct pb_hv *args,
			   int nargs);
void pb_history_points_free(struct pbench_history *h);
void pb_history_series_free(struct pbench_history *h);

/* history_changes.c (also frees verdict_strs: they live as long as the changes) */
void pb_history_changes_free(struct pbench_history *h);

/* history_view.c: a series as the reports see it, found by name through the public calls
 * (any backend): its points and changes are h->points and h->changes. */
struct pb_hview {
	const char *name, *metric, *unit;
	int n, nchanges, segments;
	int *noisy, *judged;		/* per point: its runs judged noisy, and judged at all */
	int *segment;			/* per point: its machine's stretch, from 0 */
};
int pb_history_view(struct pbench_history *h, const char *name,
		    const struct pbench_history_changes_opts *opts, struct pb_hview *v);
void pb_history_view_free(struct pb_hview *v);
/* Point i is noisy: a fifth or more of its judged runs were judged noisy. */
int pb_history_view_noisy(const struct pb_hview *v, int i);
const struct pbench_history_record *pb_history_view_point(const struct pbench_history *h, int i);
const struct pbench_history_change *pb_history_view_change(const struct pbench_history *h,
							   int i);
const struct pbench_history_change *pb_history_view_change_at(const struct pbench_history *h,
							      int i);

/* history_report.c: a value in the series' unit ("13.8 ms" for ns), for the text and plot. */
void pb_history_value_text(char *buf, size_t len, double v, const char *unit);
/* history_report.c: a commit's first 12 bytes (not cutting a UTF-8 character) shown, "-" for
 * none, in buf of PB_HISTORY_REV_LEN; a time in ns since the epoch as "2026-05-28 20:26"
 * (UTC), "-" when it has none. Both return buf. */
#define PB_HISTORY_REV_LEN 80
const char *pb_history_short_rev(const char *rev, char *buf);
const char *pb_history_date_text(int64_t ns, char *buf, size_t len);
/* history_report.c: s (a name, a commit, a machine's field from the store) shown as analyze
 * shows names (pb_text_shown()), through esc (pb_md_code, pb_svg_text, ...; NULL: as is). */
void pb_history_put(FILE *f, const char *s, void (*esc)(FILE *f, const char *s));

#endif
