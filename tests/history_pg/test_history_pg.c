/* SPDX-License-Identifier: MIT */
/*
 * The history store on a real PostgreSQL server (lib/src/history/history_pg.c, issue 24),
 * through the public API as test_history.c does on SQLite files: every field read back as
 * added, the schema's version and a newer one refused untouched, appenders in several
 * processes making one store and its series at once, a writer killed inside its transaction,
 * a writer locked out past its timeout while another series' appends go on, a server that is
 * not there, one that does not accept and one that stops answering (one-line errors, no
 * hang), change points on a stored series, and issue 34's: a document stored once, an import
 * all or nothing (a bad line, the connection lost in the middle), a store of schema 1
 * migrated. tests/history_pg/run.sh starts the server
 * and gives its URI in PBENCH_TEST_HISTORY_URI (a database the tests may create databases
 * from) and its postmaster's pid in PBENCH_TEST_PG_PID; each test works in a database of its
 * own, dropped after. libpq is used directly to play another program (a newer pbench) and to
 * count rows independently of pbench.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"

static char db[64];		/* this test's database */
static char uri[1024];		/* its URI */

/* The admin URI with another database (and extra parameters, "" for none). */
static void uri_of(char *out, size_t len, const char *dbname, const char *extra)
{
	const char *admin = getenv("PBENCH_TEST_HISTORY_URI");
	const char *host = strstr(admin, "://") + 3;
	const char *path = host + strcspn(host, "/?");
	const char *query = strchr(path, '?');

	snprintf(out, len, "%.*s/%s%s%s%s", (int)(path - admin), admin, dbname,
		 query ? query : "", *extra ? (query ? "&" : "?") : "", extra);
}

static PGconn *admin_conn(const char *u)
{
	PGconn *c = PQconnectdb(u);

	cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s: %s", u, PQerrorMessage(c));
	return c;
}

static void admin_exec(const char *u, const char *sql)
{
	PGconn *c = admin_conn(u);
	PGresult *r = PQexec(c, sql);

	cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
		  "%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}

static void setup(void)
{
	static int k;
	char sql[128];

	if (!getenv("PBENCH_TEST_HISTORY_URI"))
		cr_skip_test("no PostgreSQL server here: PBENCH_TEST_HISTORY_URI is not set "
			     "(tests/history_pg/run.sh starts one and sets it)");
	snprintf(db, sizeof(db), "pbench_t%d_%d", (int)getpid(), k++);
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", db);
	admin_exec(getenv("PBENCH_TEST_HISTORY_URI"), sql);
	uri_of(uri, sizeof(uri), db, "");
}

static void teardown(void)
{
	char sql[128];

	if (!getenv("PBENCH_TEST_HISTORY_URI"))
		return;
	snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)", db);
	admin_exec(getenv("PBENCH_TEST_HISTORY_URI"), sql);
}

TestSuite(history_pg, .init = setup, .fini = teardown, .timeout = 60);

static struct pbench_history_record rec_at(const char *name, const char *rev, double value,
					   const char *kernel)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;

	r.name = name;
	r.metric = "time_ns";
	r.unit = "ns";
	r.rev = rev;
	r.branch = "main";
	r.value = value;
	r.lo = value * 0.99;
	r.hi = value * 1.01;
	r.cpu_model = "Test CPU 9000";
	r.microcode = "0xdead";
	r.kernel = kernel;
	r.governor = "performance";
	r.smt = "off";
	r.isolation = "2-3";
	r.virt = "bare metal";
	r.pbench_version = "0.1.0";
	return r;
}

/* The first column of the first row of sql on this test's database, as text. */
static const char *sql_text(const char *sql)
{
	static char text[128];
	PGconn *c = admin_conn(uri);
	PGresult *r = PQexec(c, sql);

	cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", sql, PQerrorMessage(c));
	snprintf(text, sizeof(text), "%s", PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	PQfinish(c);
	return text;
}

static long long sql_count(const char *sql)
{
	return strtoll(sql_text(sql), NULL, 10);
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

static const char json_doc[] = "{\n  \"schema\": 2, \"name\": \"caf\xc3\xa9 \\\"q\\\"\",\t"
			       "\"values\": [1.5e-9, -0, 1e308],\r\n  \"trailing\": \" \" }  \n";

Test(history_pg, every_field_read_back)
{
	const double runs[] = { 101.5, 99.25, 100.0, 250.0 };
	const int noisy[] = { 0, 0, -1, 1 };
	struct pbench_history_record r = rec_at("parse", "abc123", 100.125, "6.1.0-test");
	struct pbench_history_record got = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_history_series s = { .size = sizeof(s) };
	struct pbench_history *h;
	int64_t id;

	r.dirty = 1;
	r.time_ns = 1700000000123456789LL;
	r.n_runs = 4;
	r.run_values = runs;
	r.run_noisy = noisy;
	r.json = json_doc;
	r.hi = NAN;
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_history_schema(h), PBENCH_HISTORY_SCHEMA);
	id = pbench_history_add(h, &r);
	cr_assert_gt(id, 0, "%s", pbench_strerror((int)id));
	cr_assert_eq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_series_get(h, 0, &s), 0);
	cr_assert_str_eq(s.name, "parse");
	cr_assert_str_eq(s.cpu_model, "Test CPU 9000");
	cr_assert_str_eq(s.kernel, "6.1.0-test");
	cr_assert_str_eq(s.virt, "bare metal");
	cr_assert_eq(strlen(s.fingerprint), 16);
	cr_assert_eq(s.points, 1);
	cr_assert_eq(s.first_ns, r.time_ns);
	cr_assert_eq(s.last_ns, r.time_ns);
	cr_assert_eq(pbench_history_points(h, s.id), 1);
	cr_assert_eq(pbench_history_point_get(h, 0, &got), 0);
	cr_assert_eq(got.id, id);
	cr_assert_eq(got.series_id, s.id);
	cr_assert_str_eq(got.unit, "ns");
	cr_assert_str_eq(got.rev, "abc123");
	cr_assert_eq(got.dirty, 1);
	cr_assert_str_eq(got.branch, "main");
	cr_assert_eq(got.time_ns, r.time_ns, "64-bit times: %lld", (long long)got.time_ns);
	cr_assert_eq(got.value, 100.125);
	cr_assert_eq(got.lo, r.lo, "a double kept to the bit: %.17g %.17g", got.lo, r.lo);
	cr_assert(isnan(got.hi));
	cr_assert_eq(got.n_runs, 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(got.run_values[i], runs[i]);
		cr_assert_eq(got.run_noisy[i], noisy[i]);
	}
	cr_assert_eq(memcmp(got.json, json_doc, sizeof(json_doc)), 0, "the JSON is not kept byte "
		     "for byte: %s", got.json);
	cr_assert_str_eq(got.fingerprint, s.fingerprint);
	cr_assert_eq(pbench_history_points(h, 999), -ENOENT);
	pbench_history_close(h);
	/* The same schema as SQLite's: its tables, and 64-bit ids. */
	cr_assert_eq(sql_count("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND "
			       "tablename IN ('meta', 'machines', 'series', 'records', 'runs')"), 5);
	cr_assert_str_eq(sql_text("SELECT data_type FROM information_schema.columns WHERE "
				  "table_name = 'records' AND column_name = 'id'"), "bigint");
}

Test(history_pg, schema_version_and_newer_refused)
{
	struct pbench_history_record r = rec_at("x", "r", 1, "k");
	struct pbench_history *h;
	int rc;

	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_gt(pbench_history_add(h, &r), 0);
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT value FROM meta WHERE key = 'schema_version'"),
		     PBENCH_HISTORY_SCHEMA);
	/* Opened again: nothing to migrate, nothing made twice. */
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	pbench_history_close(h);
	admin_exec(uri, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
	admin_exec(uri, "CREATE TABLE newer (a INTEGER)");
	rc = pbench_history_open(&h, uri, NULL);
	cr_assert_eq(rc, -PBENCH_ENEWER_SCHEMA, "%d %s", rc, pbench_strerror(rc));
	cr_assert_null(h);
	cr_assert(strstr(pbench_strerror(rc), "version 99"), "%s", pbench_strerror(rc));
	cr_assert_null(strchr(pbench_strerror(rc), '\n'), "one line");
	cr_assert_eq(sql_count("SELECT value FROM meta WHERE key = 'schema_version'"), 99,
		     "a newer store is left untouched");
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 1);
	cr_assert_eq(sql_count("SELECT count(*) FROM pg_tables WHERE tablename = 'newer'"), 1);
	/* Another program's tables, without pbench's meta: not a pbench history. */
	admin_exec(uri, "DROP TABLE runs, records, series, machines, meta");
	rc = pbench_history_open(&h, uri, NULL);
	cr_assert_eq(rc, -PBENCH_ECORRUPT, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "not a pbench history"), "%s", pbench_strerror(rc));
}

/* Append n records from a process of its own to series name and "shared": its exit status is
 * the first error (10 + where). */
static pid_t writer(const char *name, int n)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct pbench_history_opts o = PBENCH_HISTORY_OPTS_INIT;
		struct pbench_history *h;
		char rev[32];

		o.busy_timeout_s = 30;
		if (pbench_history_open(&h, uri, &o)) {
			fprintf(stderr, "writer %s: %s\n", name, pbench_strerror(-1));
			_exit(10);
		}
		for (int i = 0; i < n; i++) {
			struct pbench_history_record r = rec_at(i % 2 ? name : "shared", rev,
								100 + i, "k");
			int64_t id;

			snprintf(rev, sizeof(rev), "%s-%d", name, i);
			if ((id = pbench_history_add(h, &r)) <= 0) {
				fprintf(stderr, "writer %s: %s\n", name, pbench_strerror((int)id));
				_exit(11);
			}
		}
		pbench_history_close(h);
		_exit(0);
	}
	return pid;
}

Test(history_pg, appenders_at_once)
{
	const char *names[] = { "a", "b", "c", "d" };
	pid_t pid[4];
	int st;

	/* No store yet: all four make it at once (one of them its schema), and the series
	 * "shared" at once too. */
	for (int i = 0; i < 4; i++)
		pid[i] = writer(names[i], 100);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(waitpid(pid[i], &st, 0), pid[i]);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %s: status %#x",
			  names[i], st);
	}
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 400);
	cr_assert_eq(sql_count("SELECT count(DISTINCT rev) FROM records"), 400);
	cr_assert_eq(sql_count("SELECT count(*) FROM series"), 5, "a, b, c, d and shared once");
	cr_assert_eq(sql_count("SELECT count(*) FROM machines"), 1);
	cr_assert_eq(sql_count("SELECT count(*) FROM records r JOIN series s ON s.id = "
			       "r.series_id WHERE s.name = 'shared'"), 200);
	cr_assert_eq(sql_count("SELECT count(*) FROM meta"), 1);
}

static int hook_fd = -1;

/* The child's log: inside the transaction, say so to the parent and wait to be killed. */
static void stop_inside(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	if (strstr(msg, "not committed yet")) {
		if (write(hook_fd, "x", 1) != 1)
			_exit(12);
		for (;;)
			pause();
	}
}

/* A child appending one record of series name with 50 runs, stopped inside its transaction. */
static pid_t stopped_writer(const char *name)
{
	int fd[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		struct pbench_history_record r = rec_at(name, "half", 5, "k");
		struct pbench_history *h;
		double runs[50];

		close(fd[0]);
		hook_fd = fd[1];
		for (int i = 0; i < 50; i++)
			runs[i] = 5 + i * 0.01;
		r.n_runs = 50;
		r.run_values = runs;
		r.json = "{\"half\": true}";
		if (pbench_history_open(&h, uri, NULL))
			_exit(10);
		pbench_log_set(stop_inside, NULL);
		pbench_history_add(h, &r);
		_exit(13);	/* the hook never returns */
	}
	close(fd[1]);
	cr_assert_eq(read(fd[0], &c, 1), 1, "the writer did not reach its transaction");
	close(fd[0]);
	return pid;
}

static void add_some(const char *name, int n)
{
	struct pbench_history *h;
	double runs[3] = { 1, 2, 3 };

	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	for (int i = 0; i < n; i++) {
		struct pbench_history_record r = rec_at(name, "whole", 2, "k");

		r.n_runs = 3;
		r.run_values = runs;
		cr_assert_gt(pbench_history_add(h, &r), 0, "%s", pbench_strerror(-1));
	}
	pbench_history_close(h);
}

Test(history_pg, killed_writer_leaves_no_half_record)
{
	struct pbench_history *h;
	pid_t pid;
	int st;

	add_some("x", 3);
	pid = stopped_writer("x");
	/* Meanwhile, the other writers of the series go on: nothing waits for it. */
	add_some("x", 1);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_points(h, 1), 4, "no half record");
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM runs"), 12, "no run of the killed one");
	cr_assert_eq(sql_count("SELECT count(*) FROM records WHERE rev = 'half'"), 0);
	add_some("x", 1);
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 5);
}

Test(history_pg, locked_past_the_timeout)
{
	struct pbench_history_opts o = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history_record r = rec_at("new", "late", 1, "k");
	struct pbench_history_record other = rec_at("x", "on", 1, "k");
	struct pbench_history *h;
	struct timespec t0;
	double waited;
	int64_t rc;
	pid_t pid;
	int st;

	add_some("x", 1);
	/* A writer stopped while it makes the series "new": another that makes it too waits for
	 * it (the series' unique key), up to its busy timeout. */
	pid = stopped_writer("new");
	o.busy_timeout_s = 0.3;
	cr_assert_eq(pbench_history_open(&h, uri, &o), 0, "%s", pbench_strerror(-1));
	cr_assert_gt(pbench_history_add(h, &other), 0, "another series is not blocked: %s",
		     pbench_strerror(-1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pbench_history_add(h, &r);
	waited = since(&t0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	cr_assert_eq(rc, -EBUSY, "%lld %s", (long long)rc, pbench_strerror((int)rc));
	cr_assert(strstr(pbench_strerror((int)rc), "locked"), "%s", pbench_strerror((int)rc));
	cr_assert_null(strchr(pbench_strerror((int)rc), '\n'), "one line");
	cr_assert_geq(waited, 0.25, "gave up after %.3f s, before the timeout", waited);
	cr_assert_lt(waited, 20, "waited %.3f s for a 0.3 s timeout", waited);
	cr_assert_gt(pbench_history_add(h, &r), 0, "the lock is gone with its writer: %s",
		     pbench_strerror(-1));
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 3);
}

/* An open that fails fast enough, with a one-line error of err naming the store. */
static void open_fails(const char *u, int err, const char *words, double most_s)
{
	struct pbench_history *h = (struct pbench_history *)1;
	struct timespec t0;
	double took;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pbench_history_open(&h, u, NULL);
	took = since(&t0);
	cr_assert_eq(rc, err, "%s: %d %s", u, rc, pbench_strerror(rc));
	cr_assert_null(h);
	cr_assert(strstr(pbench_strerror(rc), words), "%s", pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "history 'postgres"), "%s", pbench_strerror(rc));
	cr_assert_null(strchr(pbench_strerror(rc), '\n'), "one line: %s", pbench_strerror(rc));
	cr_assert_lt(took, most_s, "took %.1f s", took);
}

Test(history_pg, no_server_there)
{
	char dir[] = "/tmp/pbench-nopg-XXXXXX", u[256];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(u, sizeof(u), "postgresql://pbench:s3cret@/db?host=%s&port=5432", dir);
	open_fails(u, -ECONNREFUSED, "cannot connect", 5);
	cr_assert_null(strstr(pbench_strerror(-1), "s3cret"), "the password is not shown: %s",
		       pbench_strerror(-1));
	cr_assert_eq(rmdir(dir), 0);
	uri_of(u, sizeof(u), "pbench_no_such_db", "password=s3cret");
	open_fails(u, -ECONNREFUSED, "pbench_no_such_db", 5);
	cr_assert_null(strstr(pbench_strerror(-1), "s3cret"), "%s", pbench_strerror(-1));
	/* Not a URI libpq reads: the caller's mistake, said before any connection. */
	open_fails("postgresql://pbench@/db?no_such_option=1", -EINVAL, "no_such_option", 1);
}

/* The postmaster stopped (SIGSTOP): a new connection is accepted by the kernel and never
 * answered; connect_timeout=2 ends the wait. */
Test(history_pg, server_not_accepting)
{
	const char *p = getenv("PBENCH_TEST_PG_PID");
	pid_t pm = p ? (pid_t)atoi(p) : 0;
	char u[1024];

	if (pm <= 0)
		cr_skip_test("no postmaster of this test's own to stop: PBENCH_TEST_PG_PID is not "
			     "set (tests/history_pg/run.sh sets it)");
	uri_of(u, sizeof(u), db, "connect_timeout=2");
	cr_assert_eq(kill(pm, SIGSTOP), 0);
	open_fails(u, -ECONNREFUSED, "timeout", 8);
	cr_assert_eq(kill(pm, SIGCONT), 0);
}

static int backend_pid(void)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT pid FROM pg_stat_activity WHERE datname = '%s' AND "
		 "application_name = 'pbench'", db);
	return (int)sql_count(sql);
}

/* A session whose server process stops answering: the statement timeout (2 s, given in the
 * URI) + 5 s, then a one-line error; the history is unusable after, and says so. */
Test(history_pg, server_stops_answering)
{
	struct pbench_history_record r = rec_at("x", "r", 1, "k");
	struct pbench_history *h;
	struct timespec t0;
	char u[1024];
	double took;
	int64_t rc;
	int pid;

	uri_of(u, sizeof(u), db, "options=-c%20statement_timeout%3D2000");
	cr_assert_eq(pbench_history_open(&h, u, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_gt(pbench_history_add(h, &r), 0, "%s", pbench_strerror(-1));
	pid = backend_pid();
	cr_assert_gt(pid, 0);
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pbench_history_add(h, &r);
	took = since(&t0);
	kill(pid, SIGCONT);
	cr_assert_eq(rc, -ETIMEDOUT, "%lld %s", (long long)rc, pbench_strerror((int)rc));
	cr_assert(strstr(pbench_strerror((int)rc), "did not answer in 7 s"), "%s",
		  pbench_strerror((int)rc));
	cr_assert(took > 6 && took < 12, "took %.1f s", took);
	rc = pbench_history_add(h, &r);
	cr_assert_eq(rc, -ECONNRESET, "%lld %s", (long long)rc, pbench_strerror((int)rc));
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 1);
}

/* The server gone under an open history: the next call's one-line error, no hang. */
Test(history_pg, connection_lost)
{
	struct pbench_history_record r = rec_at("x", "r", 1, "k");
	struct pbench_history *h;
	char sql[256];
	int64_t rc;

	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)", backend_pid());
	cr_assert_str_eq(sql_text(sql), "t");
	rc = pbench_history_add(h, &r);
	cr_assert_eq(rc, -ECONNRESET, "%lld %s", (long long)rc, pbench_strerror((int)rc));
	cr_assert(strstr(pbench_strerror((int)rc), "connection"), "%s", pbench_strerror((int)rc));
	cr_assert_null(strchr(pbench_strerror((int)rc), '\n'), "one line");
	pbench_history_close(h);
}

Test(history_pg, change_point_on_a_step)
{
	struct pbench_history_series s = { .size = sizeof(s) };
	struct pbench_history_change c = { .size = sizeof(c) };
	struct pbench_history *h;
	int n, seg = 0;

	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	for (int i = 0; i < 60; i++) {
		double level = i < 30 ? 100 : 110, runs[5];
		char rev[16];
		struct pbench_history_record r = rec_at("step", rev, level, "k1");

		snprintf(rev, sizeof(rev), "c%d", i);
		for (int k = 0; k < 5; k++)
			runs[k] = level * (1 + 0.004 * sin(i * 1.7 + k * 2.3));
		r.time_ns = 1000000000LL * (i + 1);
		r.n_runs = 5;
		r.run_values = runs;
		r.value = level * (1 + 0.003 * sin(i * 1.7));
		cr_assert_gt(pbench_history_add(h, &r), 0);
	}
	cr_assert_eq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_series_get(h, 0, &s), 0);
	n = pbench_history_changes(h, s.id, NULL, &seg);
	cr_assert_eq(n, 1, "%d %s", n, pbench_strerror(n));
	cr_assert_eq(pbench_history_change_get(h, 0, &c), 0);
	cr_assert_eq(c.index, 30);
	cr_assert_str_eq(c.rev_before, "c29");
	cr_assert_str_eq(c.rev_after, "c30");
	cr_assert(fabs(c.rel - 0.10) < 0.01, "rel %g", c.rel);
	pbench_history_close(h);
}

/* A name of PBENCH_HISTORY_NAME_MAX bytes fits the server's index on a series' key (a random
 * one: no compression helps it), one byte more is refused as SQLite's store refuses it, before
 * any statement; "café" is one series whatever client_encoding the URI asks for. */
Test(history_pg, names_as_on_sqlite)
{
	struct pbench_history_series s = { .size = sizeof(s) };
	char name[PBENCH_HISTORY_NAME_MAX + 2], u[1200];
	struct pbench_history *h;
	struct pbench_history_record r;
	int64_t id;

	for (size_t i = 0; i < sizeof(name) - 1; i++)
		name[i] = (char)('!' + (i * 7919 + i / 13 * 31) % 90);
	name[PBENCH_HISTORY_NAME_MAX + 1] = 0;
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	r = rec_at(name, "c1", 100, "k1");
	id = pbench_history_add(h, &r);
	cr_assert_eq(id, -EINVAL, "%lld", (long long)id);
	cr_assert_not_null(strstr(pbench_strerror((int)id), "more than 1024"), "%s",
			   pbench_strerror((int)id));
	name[PBENCH_HISTORY_NAME_MAX] = 0;
	id = pbench_history_add(h, &r);
	cr_assert_gt(id, 0, "%s", pbench_strerror((int)id));
	r = rec_at("caf\xc3\xa9", "c1", 100, "k1");
	id = pbench_history_add(h, &r);
	cr_assert_gt(id, 0, "%s", pbench_strerror((int)id));
	pbench_history_close(h);
	uri_of(u, sizeof(u), db, "client_encoding=LATIN1");
	cr_assert_eq(pbench_history_open(&h, u, NULL), 0, "%s", pbench_strerror(-1));
	r = rec_at("caf\xc3\xa9", "c2", 101, "k1");
	id = pbench_history_add(h, &r);
	cr_assert_gt(id, 0, "%s", pbench_strerror((int)id));
	cr_assert_eq(pbench_history_series_count(h), 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(pbench_history_series_get(h, i, &s), 0);
		if (strlen(s.name) < 100) {
			cr_assert_str_eq(s.name, "caf\xc3\xa9");
			cr_assert_eq(s.points, 2, "%zu", s.points);
		}
	}
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM series WHERE name = 'caf\xc3\xa9'"), 1);
}

/* Issue 34 on the server: a document of 40 benchmarks stored once and read back whole by
 * each record; a CSV with a bad line 4 keeps nothing. */
Test(history_pg, a_document_once_and_an_import_all_or_nothing)
{
	static const struct pbench_history_import_opts o = { .size = sizeof(o), .rev = "x" };
	struct pbench_history_series s = { .size = sizeof(s) };
	struct pbench_history_record got = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_history *h;
	char doc[8192];
	size_t len = 0;
	int rc;

	len += (size_t)snprintf(doc, sizeof(doc), "{\"benchmarks\": [");
	for (int i = 0; i < 40; i++)
		len += (size_t)snprintf(doc + len, sizeof(doc) - len, "%s{\"name\": \"B%d\", "
					"\"real_time\": %d}", i ? ", " : "", i, 10 + i);
	snprintf(doc + len, sizeof(doc) - len, "]}");
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	rc = pbench_history_import(h, "g", doc, strlen(doc), &o);
	cr_assert_eq(rc, 40, "%d %s", rc, pbench_strerror(rc));
	cr_assert_eq(pbench_history_series_count(h), 40);
	cr_assert_eq(pbench_history_series_get(h, 39, &s), 0);
	cr_assert_eq(pbench_history_points(h, s.id), 1);
	cr_assert_eq(pbench_history_point_get(h, 0, &got), 0);
	cr_assert_str_eq(got.json, doc, "the document read back byte for byte");
	rc = pbench_history_import(h, "v", "c1,1\nc2,2\nc3,3\nc4,four\nc5,5\n", 28, NULL);
	cr_assert_eq(rc, -EINVAL, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "line 4"), "%s", pbench_strerror(rc));
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM documents"), 1);
	cr_assert_eq(sql_count("SELECT count(*) FROM records WHERE json IS NOT NULL"), 0);
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 40, "nothing of the bad CSV");
}

static int lose_at, logged;

/* The log inside the import's transaction: the connection ended by the server (as a server
 * stopped or restarted ends it) at the lose_at-th record written. */
static void lose_inside(int level, const char *msg, void *arg)
{
	char sql[128];

	(void)level;
	(void)arg;
	if (strstr(msg, "not committed yet") && ++logged == lose_at) {
		snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)", backend_pid());
		cr_assert_str_eq(sql_text(sql), "t");
	}
}

/* The server lost in the middle of an import (it kept 1,915 of 3,000): nothing kept. */
Test(history_pg, connection_lost_mid_import)
{
	struct pbench_history *h;
	char csv[4096];
	size_t len = 0;
	int rc;

	for (int i = 0; i < 300; i++)
		len += (size_t)snprintf(csv + len, sizeof(csv) - len, "%d\n", 100 + i);
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	lose_at = 200;
	pbench_log_set(lose_inside, NULL);
	rc = pbench_history_import(h, "v", csv, len, NULL);
	pbench_log_set(NULL, NULL);
	pbench_history_close(h);
	cr_assert_eq(logged, 200, "the connection was lost at record 200, not %d", logged);
	cr_assert_eq(rc, -ECONNRESET, "%d %s", rc, pbench_strerror(rc));
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 0, "records of the lost import "
		     "were kept");
}

/* A store of schema 1 (its tables as that pbench made them on a server) opened by this one:
 * migrated to 2, its record's own document read as it was. */
Test(history_pg, schema_1_store_migrated_and_readable)
{
	struct pbench_history_record got = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_history *h;

	admin_exec(uri, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		   "CREATE TABLE machines (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY "
		   "KEY, fingerprint TEXT NOT NULL UNIQUE, cpu_model TEXT NOT NULL, microcode "
		   "TEXT NOT NULL, kernel TEXT NOT NULL, governor TEXT NOT NULL, smt TEXT NOT "
		   "NULL, isolation TEXT NOT NULL, virt TEXT NOT NULL, pbench_version TEXT NOT "
		   "NULL);"
		   "CREATE TABLE series (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "
		   "name TEXT NOT NULL, metric TEXT NOT NULL, machine_id BIGINT NOT NULL "
		   "REFERENCES machines(id), UNIQUE (name, metric, machine_id));"
		   "CREATE TABLE records (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
		   " series_id BIGINT NOT NULL REFERENCES series(id), time_ns BIGINT NOT NULL,"
		   " rev TEXT NOT NULL, dirty INTEGER NOT NULL, branch TEXT NOT NULL, unit TEXT "
		   "NOT NULL, value DOUBLE PRECISION, lo DOUBLE PRECISION, hi DOUBLE PRECISION,"
		   " n_runs INTEGER NOT NULL, json TEXT);"
		   "CREATE INDEX records_series ON records (series_id, time_ns, id);"
		   "CREATE TABLE runs (record_id BIGINT NOT NULL REFERENCES records(id),"
		   " idx INTEGER NOT NULL, value DOUBLE PRECISION NOT NULL, noisy INTEGER NOT "
		   "NULL, PRIMARY KEY (record_id, idx));"
		   "INSERT INTO meta VALUES ('schema_version', '1');"
		   "INSERT INTO machines VALUES (1, '0123456789abcdef', 'Old CPU', '', 'k', '', '',"
		   " '', '', '0.1.0');"
		   "INSERT INTO series VALUES (1, 'old', 'time_ns', 1);"
		   "INSERT INTO records VALUES (1, 1, 1000, 'r1', 0, 'main', 'ns', 5, NULL, NULL, 1,"
		   " '{\"old\": 1}');"
		   "INSERT INTO runs VALUES (1, 0, 5, 0);");
	cr_assert_eq(pbench_history_open(&h, uri, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_history_schema(h), 2);
	cr_assert_eq(pbench_history_points(h, 1), 1);
	cr_assert_eq(pbench_history_point_get(h, 0, &got), 0);
	cr_assert_str_eq(got.json, "{\"old\": 1}");
	cr_assert(got.n_runs == 1 && got.run_values[0] == 5);
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT value FROM meta WHERE key = 'schema_version'"), 2);
}

/* Run by tests/history_pg/run.sh after it stopped its server (PBENCH_TEST_PG_STOPPED=1): the
 * store's URI is now a socket that is not there. */
Test(history_pg_stopped, server_stopped)
{
	const char *u = getenv("PBENCH_TEST_HISTORY_URI");

	if (!u || !getenv("PBENCH_TEST_PG_STOPPED"))
		cr_skip_test("no stopped server of this test's own: PBENCH_TEST_PG_STOPPED is not "
			     "set (tests/history_pg/run.sh sets it once it stopped its server)");
	open_fails(u, -ECONNREFUSED, "cannot connect", 5);
}
