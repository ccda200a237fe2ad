/* SPDX-License-Identifier: MIT */
/*
 * The PostgreSQL backend of the history (issue 24), through libpq: one server that a fleet of
 * CI runners appends to at once, with the SQLite store's schema and SQL (history_schema.c's
 * statements; the two phrases SQLite spells its own way are translated below). Every wait is
 * bounded: connecting (connect_timeout, 10 s unless the URI says), a lock (lock_timeout, the
 * busy timeout), a statement (statement_timeout, 60 s unless the server or the URI set one) and
 * the server's answer itself (polled here, the statement timeout + 5 s: a stopped server is an
 * error, never a hang). Each error is one line naming the store without its password.
 * Built where libpq is (PBENCH_HAVE_LIBPQ, the Makefile's PG=1); elsewhere (a static or cross
 * build) a store's URI is refused with the reason.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "history/history.h"

/* Whether path names a PostgreSQL store rather than a file. */
int pb_history_is_pg(const char *path)
{
	return !strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11);
}

/*
 * Where a URI's passwords are, found in its raw text before any decoding (libpq's own
 * reading of an oddly encoded one is no guide: "s3cr%zzet" is refused, "pass%77ord=x" is a
 * password): the userinfo's, from the first ':' after "://" to the last '@' (a password may
 * hold '@', '/' or '?': a URI with an '@' elsewhere loses more to "***", never less), and
 * the value of each query parameter whose name, percent-decoded, is "password" in any case.
 */
static const char *authority(const char *uri)
{
	const char *p = strstr(uri, "://");

	return p ? p + 3 : uri;
}

static void user_password(const char *uri, const char **b, const char **e)
{
	const char *host = authority(uri), *at = strrchr(host, '@');
	const char *colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;

	*b = colon ? colon + 1 : NULL;
	*e = colon ? at : NULL;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* [s, s + n) percent-decoded into out (len bytes; cut there); a bad escape kept as is. */
static void decode(const char *s, size_t n, char *out, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < len; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			out[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = 0;
}

/* The query parameter at p (up to '&' or the end) is a password: its value's length, else
 * -1. */
static int query_password(const char *p)
{
	size_t n = strcspn(p, "&"), eq = strcspn(p, "=&");
	char key[32];

	if (eq >= n || eq > 3 * 8)
		return -1;
	decode(p, eq, key, sizeof(key));
	return strcasecmp(key, "password") ? -1 : (int)(n - eq - 1);
}

/* The start of the query: the first '?' after the userinfo's '@' (or after "://"). */
static const char *query_of(const char *uri)
{
	const char *b, *e, *q;

	user_password(uri, &b, &e);
	q = strchr(e ? e : authority(uri), '?');
	return q ? q + 1 : NULL;
}

/* The URI as errors show it: every password (above) is "***". */
static void redact(const char *uri, char *out, size_t len)
{
	const char *b, *e, *q = query_of(uri);
	size_t n = 0;

	user_password(uri, &b, &e);
	for (const char *p = uri; *p && n + 13 < len;) {
		int v = q && p >= q && (p == q || p[-1] == '&') ? query_password(p) : -1;

		if (p == b) {
			n += (size_t)snprintf(out + n, len - n, "***");
			p = e;
		} else if (v >= 0) {
			size_t k = strcspn(p, "=") + 1;

			n += (size_t)snprintf(out + n, len - n, "%.*s***", (int)(k < 40 ? k : 40), p);
			p += k + (size_t)v;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = 0;
}

#ifdef PBENCH_HAVE_LIBPQ
/* The passwords of uri as they may appear in libpq's messages: raw, decoded, and the
 * userinfo's split at its '@' (libpq splits at the first one: the rest reads as a host). */
#define SECRETS 12
struct secrets {
	char s[SECRETS][128];	/* a longer one is cut: its start is found all the same */
	int n;
};

static void secret_add(struct secrets *x, const char *p, size_t n)
{
	if (x->n + 2 > SECRETS || !n)
		return;
	snprintf(x->s[x->n++], sizeof(x->s[0]), "%.*s", (int)(n < 127 ? n : 127), p);
	decode(p, n, x->s[x->n], sizeof(x->s[0]));
	x->n += strcmp(x->s[x->n], x->s[x->n - 1]) && *x->s[x->n];
}

static void secrets_of(const char *uri, struct secrets *x)
{
	const char *b, *e, *q = query_of(uri);

	x->n = 0;
	user_password(uri, &b, &e);
	if (b) {
		secret_add(x, b, (size_t)(e - b));
		for (const char *p = b; p < e; p += strcspn(p, "@") + 1)
			secret_add(x, p, (size_t)(memchr(p, '@', (size_t)(e - p)) ?
						 (const char *)memchr(p, '@', (size_t)(e - p)) - p :
						 e - p));
	}
	for (const char *p = q; p && *p; p += strcspn(p, "&") + (p[strcspn(p, "&")] != 0)) {
		int v = query_password(p);

		if (v >= 0)
			secret_add(x, p + strcspn(p, "=") + 1, (size_t)v);
		if (!p[strcspn(p, "&")])
			break;
	}
}

/* msg (libpq's) as errors may show it: left out when it holds a password of x. */
static const char *scrubbed(const struct secrets *x, const char *msg)
{
	for (int i = 0; i < x->n; i++)
		if (strstr(msg, x->s[i]))
			return "(libpq's reason left out: it quotes the password)";
	return msg;
}

#include <libpq-fe.h>

/* The types of libpq's text results the rows need (pg_type's oids, stable since 7.x). */
#define OID_BOOL 16
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_OID 26
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700

/* A lock every migration takes (pg_advisory_xact_lock), so that two pbench making one store at
 * once do not both create its tables: "pbench" in ASCII. */
#define SCHEMA_LOCK "112983143900776"

struct pb_hdb {
	PGconn *c;
	char name[512];			/* the URI without its password */
	struct secrets secret;		/* its passwords, never shown (scrubbed()) */
	int wait_ms;			/* the server's answer: statement timeout + 5 s */
	int broken;			/* the connection is in no known state: no more calls */
	char status[32];		/* the last command's tag ("COMMIT", "ROLLBACK") */
};

/* libpq's message in one line: its newlines and tabs as spaces, the end trimmed. */
static const char *one_line(const char *msg, char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = msg ? msg : ""; *p && n + 1 < len; p++)
		if (*p != '\n' && *p != '\t' && *p != '\r')
			buf[n++] = *p;
		else if (n && buf[n - 1] != ' ')
			buf[n++] = ' ';
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
	return buf;
}

/* The error of a failed result, by its SQLSTATE, in one line about the store. */
static int fail_res(struct pb_hdb *d, const PGresult *r, const char *what)
{
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	const char *pm = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char msg[512];

	one_line(scrubbed(&d->secret, pm ? pm : PQerrorMessage(d->c)), msg, sizeof(msg));
	if (!st)
		st = PQstatus(d->c) == CONNECTION_BAD ? "08006" : "";
	if (!strcmp(st, "55P03") || !strcmp(st, "40P01") || !strcmp(st, "40001"))
		return pb_fail(-EBUSY, "history '%s': %s: locked by another writer past the "
			       "timeout (%s)", d->name, what, msg);
	if (!strcmp(st, "57014"))
		return pb_fail(-ETIMEDOUT, "history '%s': %s: past the statement timeout (%s)",
			       d->name, what, msg);
	if (!strcmp(st, "53100"))
		return pb_fail(-ENOSPC, "history '%s': %s: the server's disk is full (%s)",
			       d->name, what, msg);
	if (!strcmp(st, "53200"))
		return pb_fail(-ENOMEM, "history '%s': %s: the server is out of memory (%s)",
			       d->name, what, msg);
	if (!strcmp(st, "25006"))
		return pb_fail(-EROFS, "history '%s': %s: read-only (%s)", d->name, what, msg);
	if (!strcmp(st, "42501") || !strncmp(st, "28", 2))
		return pb_fail(-EACCES, "history '%s': %s: permission denied (%s)", d->name, what,
			       msg);
	if (!strncmp(st, "XX00", 4))
		return pb_fail(-PBENCH_ECORRUPT, "history '%s': %s: the server says its data is "
			       "corrupt (%s)", d->name, what, msg);
	if (!strncmp(st, "08", 2) || !strncmp(st, "57P", 3)) {
		d->broken = 1;
		return pb_fail(-ECONNRESET, "history '%s': %s: the connection to the server was "
			       "lost (%s)", d->name, what, msg);
	}
	return pb_fail(-EIO, "history '%s': %s: %s (SQLSTATE %s)", d->name, what, msg, st);
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait up to the deadline for the socket (events); 0, or the error said. */
static int wait_socket(struct pb_hdb *d, short events, int64_t deadline, const char *what)
{
	struct pollfd p = { .fd = PQsocket(d->c), .events = events };
	int left = (int)(deadline - now_ms()), rc;

	if (p.fd < 0)
		return pb_fail(-ECONNRESET, "history '%s': %s: no connection to the server",
			       d->name, what);
	do
		rc = poll(&p, 1, left > 0 ? left : 0);
	while (rc < 0 && errno == EINTR && (left = (int)(deadline - now_ms())) > 0);
	if (rc > 0)
		return 0;
	d->broken = 1;
	if (rc < 0)
		return pb_fail(-errno, "history '%s': %s: poll: %s", d->name, what,
			       strerror(errno));
	return pb_fail(-ETIMEDOUT, "history '%s': %s: the server did not answer in %d s "
		       "(stopped, overloaded or unreachable?)", d->name, what, d->wait_ms / 1000);
}

static void to_row(const PGresult *r, int row, struct pb_hv *v, int ncol)
{
	for (int i = 0; i < ncol; i++) {
		const char *s = PQgetvalue(r, row, i);

		memset(&v[i], 0, sizeof(v[i]));
		if (PQgetisnull(r, row, i)) {
			v[i].type = PB_HV_NULL;
			v[i].d = NAN;
			continue;
		}
		switch (PQftype(r, i)) {
		case OID_INT8: case OID_INT4: case OID_INT2: case OID_OID:
			v[i].type = PB_HV_INT;
			v[i].i = strtoll(s, NULL, 10);
			v[i].d = (double)v[i].i;
			break;
		case OID_BOOL:
			v[i].type = PB_HV_INT;
			v[i].i = *s == 't';
			v[i].d = (double)v[i].i;
			break;
		case OID_FLOAT8: case OID_FLOAT4: case OID_NUMERIC:
			v[i].type = PB_HV_REAL;	/* strtod reads "NaN" and "Infinity" too */
			v[i].d = strtod(s, NULL);
			v[i].i = pb_hv_int_of(v[i].d);	/* 1e308: not a cast past int64 */
			break;
		default:
			v[i].type = PB_HV_TEXT;
			v[i].s = s;
		}
	}
}

/* The results of what was sent: each row to fn, the first error kept (and said), every
 * result read so that the connection is ready for the next command. */
static int results(struct pb_hdb *d, const char *what, pb_hrow_fn fn, void *arg)
{
	int64_t deadline = now_ms() + d->wait_ms;
	struct pb_hv cols[32];
	PGresult *r;
	int err = 0, f, w;

	while ((f = PQflush(d->c)) == 1)
		if ((w = wait_socket(d, POLLOUT | POLLIN, deadline, what)) ||
		    !PQconsumeInput(d->c))
			return w ? w : fail_res(d, NULL, what);
	if (f < 0)
		return fail_res(d, NULL, what);
	/* err keeps the first error of the results: the waits for the rest (the server's
	 * ReadyForQuery after an error) have their own. */
	for (;;) {
		while (PQisBusy(d->c)) {
			if ((w = wait_socket(d, POLLIN, deadline, what)))
				return w;
			if (!PQconsumeInput(d->c))
				return err ? err : fail_res(d, NULL, what);
		}
		if (!(r = PQgetResult(d->c)))
			break;
		switch (PQresultStatus(r)) {
		case PGRES_TUPLES_OK: {
			int n = PQnfields(r) > 32 ? 32 : PQnfields(r);

			for (int row = 0; row < PQntuples(r) && fn && !err; row++) {
				to_row(r, row, cols, n);
				err = fn(cols, n, arg);
			}
			break;
		}
		case PGRES_COMMAND_OK:
			snprintf(d->status, sizeof(d->status), "%s", PQcmdStatus(r));
			break;
		default:
			if (!err)
				err = fail_res(d, r, what);
		}
		PQclear(r);
	}
	return err;
}

static int usable(struct pb_hdb *d, const char *what)
{
	if (d->broken)
		return pb_fail(-ECONNRESET, "history '%s': %s: the connection failed before; "
			       "open the store again", d->name, what);
	return 0;
}

static int pg_exec_sql(struct pb_hdb *d, const char *sql, const char *what)
{
	int rc = usable(d, what);

	if (rc)
		return rc;
	if (!PQsendQuery(d->c, sql))
		return fail_res(d, NULL, what);
	return results(d, what, NULL, NULL);
}

/* SQLite's spelling in history_schema.c and PostgreSQL's: an id a row gets by itself (SQLite's
 * INTEGER PRIMARY KEY is its 64-bit rowid), and the references to one (64 bits too). */
static const char *const dialect[][2] = {
	{ "INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" },
	{ "INTEGER NOT NULL REFERENCES", "BIGINT NOT NULL REFERENCES" },
};

static int pg_exec(struct pb_hdb *d, const char *sql)
{
	size_t cap = strlen(sql) * 3 + 1, n = 0;
	char *out = malloc(cap);
	int rc;

	if (!out)
		return -ENOMEM;
	while (*sql) {
		size_t k = 0;

		while (k < sizeof(dialect) / sizeof(dialect[0]) &&
		       strncmp(sql, dialect[k][0], strlen(dialect[k][0])))
			k++;
		if (k < sizeof(dialect) / sizeof(dialect[0])) {
			n += (size_t)snprintf(out + n, cap - n, "%s", dialect[k][1]);
			sql += strlen(dialect[k][0]);
		} else {
			out[n++] = *sql++;
		}
	}
	out[n] = 0;
	rc = pg_exec_sql(d, out, "write");
	free(out);
	return rc;
}

static int pg_query(struct pb_hdb *d, const char *sql, const struct pb_hv *args, int nargs,
		    pb_hrow_fn fn, void *arg)
{
	char buf[32][40];
	const char *vals[32];
	int rc = usable(d, "query");

	if (rc)
		return rc;
	if (nargs > 32)
		return pb_fail(-EINVAL, "history: a statement of %d parameters (32 at most)", nargs);
	for (int i = 0; i < nargs; i++) {
		vals[i] = buf[i];
		switch (args[i].type) {
		case PB_HV_INT:
			snprintf(buf[i], sizeof(buf[i]), "%lld", (long long)args[i].i);
			break;
		case PB_HV_REAL:	/* NaN is NULL, as SQLite stores it */
			if (isnan(args[i].d))
				vals[i] = NULL;
			else if (isinf(args[i].d))
				vals[i] = args[i].d > 0 ? "Infinity" : "-Infinity";
			else
				snprintf(buf[i], sizeof(buf[i]), "%.17g", args[i].d);
			break;
		case PB_HV_TEXT:
			vals[i] = args[i].s;
			break;
		default:
			vals[i] = NULL;
		}
	}
	if (!PQsendQueryParams(d->c, sql, nargs, NULL, nargs ? vals : NULL, NULL, NULL, 0))
		return fail_res(d, NULL, "query");
	return results(d, "query", fn, arg);
}

static void pg_close(struct pb_hdb *d)
{
	if (!d)
		return;
	PQfinish(d->c);
	free(d);
}

/* The server's notices (a table that exists, ...) at debug level: the library never prints. */
static void notice(void *arg, const char *msg)
{
	char buf[512];

	pb_log(PBENCH_LOG_DEBUG, "history '%s': server: %s", ((struct pb_hdb *)arg)->name,
	       one_line(msg, buf, sizeof(buf)));
}

static int timeout_row(const struct pb_hv *col, int ncol, void *arg)
{
	*(int64_t *)arg = ncol && col[0].type == PB_HV_TEXT ? strtoll(col[0].s, NULL, 10) : 0;
	return 0;
}

/* The session's timeouts: the lock's (the busy timeout), the statement's (the server's or
 * the URI's, or 60 s, at least twice the lock's), and the client's wait derived from it. */
static int session(struct pb_hdb *d, const struct pbench_history_opts *o)
{
	double busy = o->busy_timeout_s > 0 ? o->busy_timeout_s : 5;
	int64_t lock_ms = busy * 1000 > 1e9 ? 1000000000 : (int64_t)(busy * 1000), st_ms = 0;
	char sql[256];
	int rc;

	lock_ms = lock_ms < 1 ? 1 : lock_ms;
	rc = pg_query(d, "SELECT setting FROM pg_catalog.pg_settings WHERE name = "
		      "'statement_timeout'", NULL, 0, timeout_row, &st_ms);
	if (rc)
		return rc;
	if (st_ms <= 0)
		st_ms = lock_ms * 2 > 60000 ? lock_ms * 2 : 60000;
	/* UTF-8 whatever the URI (client_encoding=LATIN1) or PGCLIENTENCODING say: pbench's
	 * strings are UTF-8 (pbench_history_add() refuses others), and "café" read as LATIN1
	 * would be another series than SQLite's. */
	snprintf(sql, sizeof(sql), "SET lock_timeout = %lld; SET statement_timeout = %lld; "
		 "SET client_min_messages = warning; SET client_encoding = 'UTF8'%s",
		 (long long)lock_ms, (long long)st_ms,
		 o->read_only ? "; SET default_transaction_read_only = on" : "");
	d->wait_ms = st_ms + 5000 > 1000000000 ? 1000000000 : (int)(st_ms + 5000);
	return pg_exec_sql(d, sql, "open");
}

/* A URI libpq cannot read is the caller's mistake (-EINVAL), not a server's refusal. */
static int check_uri(struct pb_hdb *d, const char *path)
{
	char *err = NULL, msg[512];
	PQconninfoOption *opts = PQconninfoParse(path, &err);
	int rc = 0;

	if (!opts)
		rc = pb_fail(err ? -EINVAL : -ENOMEM, "history '%s': not a PostgreSQL URI libpq "
			     "can read: %s", d->name, one_line(scrubbed(&d->secret, err ? err :
									"out of memory"),
							      msg, sizeof(msg)));
	PQconninfoFree(opts);
	PQfreemem(err);
	return rc;
}

static int pg_open(struct pb_hdb **out, const char *path, const struct pbench_history_opts *o)
{
	/* Ours first: the URI's own settings (dbname, expanded) come after and win. */
	const char *keys[] = { "connect_timeout", "application_name", "dbname", NULL };
	const char *vals[] = { "10", "pbench", path, NULL };
	struct pb_hdb *d = calloc(1, sizeof(*d));
	char msg[512];
	int rc;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	redact(path, d->name, sizeof(d->name));
	secrets_of(path, &d->secret);
	d->wait_ms = 15000;
	if ((rc = check_uri(d, path))) {
		free(d);
		return rc;
	}
	d->c = PQconnectdbParams(keys, vals, 1);
	if (!d->c) {
		free(d);
		return -ENOMEM;
	}
	if (PQstatus(d->c) != CONNECTION_OK) {
		rc = pb_fail(-ECONNREFUSED, "history '%s': cannot connect: %s", d->name,
			     one_line(scrubbed(&d->secret, PQerrorMessage(d->c)), msg,
				      sizeof(msg)));
		pg_close(d);
		return rc;
	}
	PQsetNoticeProcessor(d->c, notice, d);
	if ((rc = PQsetnonblocking(d->c, 1) ? fail_res(d, NULL, "open") : session(d, o))) {
		pg_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

/* READ COMMITTED whatever the server's default: each statement sees what other writers
 * committed before it, which the series' INSERT ... ON CONFLICT DO NOTHING then SELECT needs
 * (history.c: two runners making one series at once both find the one that was made). */
static int pg_begin(struct pb_hdb *d)
{
	return pg_exec_sql(d, "BEGIN ISOLATION LEVEL READ COMMITTED", "begin");
}

/* A migration: one at a time, the version read again under the lock (history_schema.c). */
static int pg_lock_schema(struct pb_hdb *d)
{
	return pg_exec_sql(d, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", "lock the schema");
}

static int pg_commit(struct pb_hdb *d)
{
	int rc = pg_exec_sql(d, "COMMIT", "commit");

	if (!rc && strcmp(d->status, "COMMIT"))
		rc = pb_fail(-EIO, "history '%s': commit: the server rolled the transaction back "
			     "(%s)", d->name, d->status);
	return rc;
}

static void pg_rollback(struct pb_hdb *d)
{
	if (!d->broken && PQtransactionStatus(d->c) != PQTRANS_IDLE)
		pg_exec_sql(d, "ROLLBACK", "rollback");
}

static int count_row(const struct pb_hv *col, int ncol, void *arg)
{
	*(int64_t *)arg = ncol ? col[0].i : 0;
	return 0;
}

/* No table in the schema the store's tables go to (the first of the search path). */
static int pg_empty(struct pb_hdb *d)
{
	int64_t n = 0;
	int rc = pg_query(d, "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = "
			  "current_schema()", NULL, 0, count_row, &n);

	return rc < 0 ? rc : n == 0;
}

const struct pb_hbackend pb_history_pg = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.query = pg_query,
	.begin = pg_begin,
	.lock_schema = pg_lock_schema,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.empty = pg_empty,
};

#else /* !PBENCH_HAVE_LIBPQ */

static int pg_open(struct pb_hdb **out, const char *path, const struct pbench_history_opts *o)
{
	char name[512];

	(void)o;
	*out = NULL;
	redact(path, name, sizeof(name));
	return pb_fail(-ENOTSUP, "history '%s': this pbench was built without libpq, so it has "
		       "no PostgreSQL store: install libpq-dev and rebuild (make PG=1)", name);
}

const struct pb_hbackend pb_history_pg = { .name = "postgresql", .open = pg_open };

#endif
