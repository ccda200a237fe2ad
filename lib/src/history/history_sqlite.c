/* SPDX-License-Identifier: MIT */
/*
 * The SQLite backend of the history: one file, WAL so that parallel CI jobs append to it at
 * once, a busy timeout so that a writer waits for another instead of failing, BEGIN
 * IMMEDIATE so that the wait happens at the start of a record and never half-way, and each
 * SQLite error turned into one line and one distinct error (corrupt, locked, full, refused).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <sqlite3.h>

#include "base/base.h"
#include "history/history.h"

/* Statements kept prepared, by their text: parsing one costs more than running it (an append
 * runs ten: 250 us each without the cache, mostly sqlite3_prepare_v2()). */
#define STMT_CACHE 32

struct pb_hdb {
	sqlite3 *db;
	char *path;
	struct {
		char *sql;
		sqlite3_stmt *st;
	} cache[STMT_CACHE];
	int ncache;
};

static int io_error(struct pb_hdb *d, const char *path, const char *what, const char *msg)
{
	int e = d && d->db ? sqlite3_system_errno(d->db) : 0;
	struct rlimit lim;

	if (e == ENOSPC || e == EDQUOT)
		return pb_fail(-ENOSPC, "history '%s': %s: the disk is full (%s)", path, what,
			       strerror(e));
	/* SQLite's errno is the last of its calls, not always the write's: a process with a
	 * file size limit (ulimit -f) was most likely stopped by it. */
	if (e == EFBIG || (!getrlimit(RLIMIT_FSIZE, &lim) && lim.rlim_cur != RLIM_INFINITY))
		return pb_fail(-EFBIG, "history '%s': %s: a write failed under the file size "
			       "limit (ulimit -f)", path, what);
	return pb_fail(-EIO, "history '%s': %s: I/O error (%s)", path, what, msg);
}

/* The error of SQLite's result rc, said in one line about the file. */
static int fail(struct pb_hdb *d, int rc, const char *what)
{
	int e;
	const char *msg = d && d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc);
	const char *path = d && d->path ? d->path : "";

	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return pb_fail(-PBENCH_ECORRUPT, "history '%s': %s: the file is corrupt or not a "
			       "database (%s)", path, what, msg);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return pb_fail(-EBUSY, "history '%s': %s: locked by another writer past the "
			       "timeout (%s)", path, what, msg);
	case SQLITE_FULL:
		return pb_fail(-ENOSPC, "history '%s': %s: the disk is full (%s)", path, what, msg);
	case SQLITE_READONLY:
		return pb_fail(-EROFS, "history '%s': %s: read-only (%s)", path, what, msg);
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return pb_fail(-EACCES, "history '%s': %s: permission denied (%s)", path, what,
			       msg);
	case SQLITE_CANTOPEN:	/* the system's reason where it had one: not always "missing" */
		e = d && d->db ? sqlite3_system_errno(d->db) : 0;
		if (e == EROFS || e == EACCES || e == EPERM || e == EISDIR || e == ENOTDIR ||
		    e == ELOOP)
			return pb_fail(e == EPERM ? -EACCES : -e, "history '%s': %s: cannot open "
				       "(%s)", path, what, strerror(e));
		return pb_fail(-ENOENT, "history '%s': %s: cannot open (%s)", path, what, msg);
	case SQLITE_NOMEM:
		return pb_fail(-ENOMEM, "history '%s': %s: out of memory", path, what);
	case SQLITE_IOERR:	/* what the system said, where it was a full disk or a limit */
		return io_error(d, path, what, msg);
	default:
		return pb_fail(-EIO, "history '%s': %s: %s", path, what, msg);
	}
}

static void sq_close(struct pb_hdb *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->ncache; i++) {
		sqlite3_finalize(d->cache[i].st);
		free(d->cache[i].sql);
	}
	sqlite3_close_v2(d->db);
	free(d->path);
	free(d);
}

static int sq_exec(struct pb_hdb *d, const char *sql)
{
	int rc = sqlite3_exec(d->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail(d, rc, "write");
}

/* The store opened read-only as a file nobody writes (URI immutable=1): no -shm, no lock, no
 * journal. Only for a reader that could not open it otherwise: a writer's commits still in
 * its -wal file are not seen. */
static int reopen_immutable(struct pb_hdb *d, const char *path, int flags)
{
	size_t n = strlen(path);
	char *uri = malloc(3 * n + 32), *u = uri;
	int rc;

	if (!uri)
		return -ENOMEM;
	u += sprintf(u, "file:");
	for (const char *p = path; *p; p++)	/* what a URI's path may not hold, escaped */
		u += strchr("%?#", *p) ? sprintf(u, "%%%02X", (unsigned char)*p) :
		     sprintf(u, "%c", *p);
	sprintf(u, "?immutable=1");
	rc = sqlite3_open_v2(uri, &d->db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW |
			     SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return fail(d, rc, "open");
	sqlite3_extended_result_codes(d->db, 0);
	pb_log(PBENCH_LOG_DEBUG, "history '%s': read as an immutable file (no -shm may be made "
	       "beside it)", path);
	return sq_exec(d, "SELECT count(*) FROM sqlite_master");
}

/* The file into WAL mode, once, by its first writer. Two writers making a new file at once
 * both ask for it, and SQLite answers the one that loses "locked" (or a short read of the
 * header the other is writing) at once, without its busy handler: asked again, every 10 ms
 * within the busy timeout of t seconds (seen in test_history's two_writers_at_once, 1 run
 * in 40). */
static int set_wal(struct pb_hdb *d, double t)
{
	struct timespec nap = { .tv_nsec = 10000000 };
	int rc;

	for (double waited = 0;; waited += 0.01) {
		rc = sqlite3_exec(d->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
				  "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
		if ((rc != SQLITE_BUSY && rc != SQLITE_IOERR) || waited >= t)
			break;
		nanosleep(&nap, NULL);
	}
	return rc == SQLITE_OK ? 0 : fail(d, rc, "write");
}

static int sq_open(struct pb_hdb **out, const char *path, const struct pbench_history_opts *o)
{
	int flags = o->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	double t = o->busy_timeout_s > 0 ? o->busy_timeout_s : 5;
	struct pb_hdb *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return -ENOMEM;
	}
	/* path is the store's with its links followed (pb_path_resolve()): one put there since
	 * is not followed. */
	rc = sqlite3_open_v2(path, &d->db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
			     NULL);
	if (rc != SQLITE_OK) {
		rc = fail(d, rc, "open");
		sq_close(d);
		return rc;
	}
	sqlite3_extended_result_codes(d->db, 0);
	sqlite3_busy_timeout(d->db, t * 1000 > 1e9 ? 1000000000 : (int)(t * 1000));
	/* WAL is a property of the file: set once by its first writer, kept after. A query of
	 * the schema first, so that a file that is not a database says so here. */
	rc = sq_exec(d, "SELECT count(*) FROM sqlite_master");
	if (rc && o->read_only && (rc == -EROFS || rc == -ENOENT || rc == -EACCES)) {
		/* A reader where it may not make the WAL's -shm file (another user's store in
		 * a directory they alone write, a read-only mount): read as it is on disk. */
		sqlite3_close_v2(d->db);
		d->db = NULL;
		rc = reopen_immutable(d, path, flags);
	}
	if (!rc && !o->read_only)
		rc = set_wal(d, t);
	if (rc) {
		sq_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

static int bind(struct pb_hdb *d, sqlite3_stmt *st, const struct pb_hv *args, int nargs)
{
	int rc = SQLITE_OK;

	for (int i = 0; i < nargs && rc == SQLITE_OK; i++) {
		switch (args[i].type) {
		case PB_HV_INT:
			rc = sqlite3_bind_int64(st, i + 1, args[i].i);
			break;
		case PB_HV_REAL:	/* NaN is stored as NULL by SQLite, read back as NaN */
			rc = sqlite3_bind_double(st, i + 1, args[i].d);
			break;
		case PB_HV_TEXT:
			rc = args[i].s ? sqlite3_bind_text(st, i + 1, args[i].s, -1, SQLITE_STATIC)
				       : sqlite3_bind_null(st, i + 1);
			break;
		default:
			rc = sqlite3_bind_null(st, i + 1);
		}
	}
	return rc == SQLITE_OK ? 0 : fail(d, rc, "bind");
}

static void column(sqlite3_stmt *st, int i, struct pb_hv *v)
{
	memset(v, 0, sizeof(*v));
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		v->type = PB_HV_INT;
		v->i = sqlite3_column_int64(st, i);
		v->d = (double)v->i;
		break;
	case SQLITE_FLOAT:
		v->type = PB_HV_REAL;
		v->d = sqlite3_column_double(st, i);
		/* a value past int64 (1e308) has no integer: the cast would be undefined */
		v->i = v->d > -9.2e18 && v->d < 9.2e18 ? (int64_t)v->d : v->d > 0 ? INT64_MAX : v->d < 0 ?
		       INT64_MIN : 0;
		break;
	case SQLITE_TEXT:
	case SQLITE_BLOB:
		v->type = PB_HV_TEXT;
		v->s = (const char *)sqlite3_column_text(st, i);
		break;
	default:
		v->type = PB_HV_NULL;
		v->d = __builtin_nan("");
	}
}

/* The statement of sql, prepared once (*kept 1) or for this call only (*kept 0: the cache
 * is full). */
static int prepare(struct pb_hdb *d, const char *sql, sqlite3_stmt **st, int *kept)
{
	char *copy;
	int rc;

	for (int i = 0; i < d->ncache; i++)
		if (!strcmp(d->cache[i].sql, sql)) {
			*st = d->cache[i].st;
			*kept = 1;
			return 0;
		}
	rc = sqlite3_prepare_v2(d->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK)
		return fail(d, rc, "read");
	*kept = 0;
	if (d->ncache < STMT_CACHE && (copy = strdup(sql))) {
		d->cache[d->ncache].sql = copy;
		d->cache[d->ncache++].st = *st;
		*kept = 1;
	}
	return 0;
}

static int sq_query(struct pb_hdb *d, const char *sql, const struct pb_hv *args, int nargs,
		    pb_hrow_fn fn, void *arg)
{
	struct pb_hv cols[32];
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_DONE, err, kept = 0;

	if ((err = prepare(d, sql, &st, &kept)))
		return err;
	err = bind(d, st, args, nargs);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);

		n = n > 32 ? 32 : n;
		for (int i = 0; i < n; i++)
			column(st, i, &cols[i]);
		if (fn)
			err = fn(cols, n, arg);
	}
	if (!err && rc != SQLITE_DONE)
		err = fail(d, rc, "query");
	if (kept) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	} else {
		sqlite3_finalize(st);
	}
	return err;
}

static int sq_begin(struct pb_hdb *d)
{
	return sq_exec(d, "BEGIN IMMEDIATE");
}

static int sq_commit(struct pb_hdb *d)
{
	return sq_exec(d, "COMMIT");
}

static void sq_rollback(struct pb_hdb *d)
{
	if (!sqlite3_get_autocommit(d->db))
		sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
}

static int count_row(const struct pb_hv *col, int ncol, void *arg)
{
	*(int64_t *)arg = ncol ? col[0].i : 0;
	return 0;
}

static int sq_empty(struct pb_hdb *d)
{
	int64_t n = 0;
	int rc = sq_query(d, "SELECT count(*) FROM sqlite_master", NULL, 0, count_row, &n);

	return rc < 0 ? rc : n == 0;
}

const struct pb_hbackend pb_history_sqlite = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.exec = sq_exec,
	.query = sq_query,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.empty = sq_empty,
};
