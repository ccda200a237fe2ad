/* SPDX-License-Identifier: MIT */
/*
 * The history's documents and transactions (issue 34), through the public API on real SQLite
 * files: a document is stored once however many records it makes (a Google Benchmark file of
 * 2,000 benchmarks made 649 MB of copies), an import is all or nothing (a bad line 4, an
 * entry that cannot be read, a signal that sets the caller's stop flag (opts.stop) leave the
 * store as it was, and the import run again adds the whole set once), a document that yields no record
 * is refused, --commit reaches CSV lines that name none, Google Benchmark's interleaved
 * entries grouped by benchmark, and a store of schema 1 (written here with sqlite3, as the
 * pbench of that schema wrote it) brought to schema 2 with its records and their documents
 * readable. sqlite3.h plays the other program: it writes the old store and counts rows.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

static char dir[256], path[300];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-history-tx-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.db", dir);
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(history_tx, .init = setup, .fini = teardown);

static int64_t sql_count(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static int import_into(const char *name, const char *text,
		       const struct pbench_history_import_opts *o)
{
	struct pbench_history *h;
	int n;

	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	n = pbench_history_import(h, name, text, strlen(text), o);
	pbench_history_close(h);
	return n;
}

static const struct pbench_history_import_opts rev_x = { .size = sizeof(rev_x), .rev = "x" };

/* The points of series name (its first metric) into the history h: their number; point i's
 * record in r. */
static int points_of(struct pbench_history *h, const char *name, int i,
		     struct pbench_history_record *r)
{
	int n = pbench_history_series_count(h);

	for (int k = 0; k < n; k++) {
		struct pbench_history_series s = { .size = sizeof(s) };

		cr_assert_eq(pbench_history_series_get(h, k, &s), 0);
		if (strcmp(s.name, name))
			continue;
		int np = pbench_history_points(h, s.id);

		r->size = sizeof(*r);
		if (i < np)
			cr_assert_eq(pbench_history_point_get(h, i, r), 0);
		return np;
	}
	return 0;
}

static off_t file_size(void)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	return st.st_size;
}

/* A Google Benchmark document of n benchmarks of 2 iterations each. */
static char *gbench_doc(int n)
{
	size_t cap = 200 + (size_t)n * 300, len = 0;
	char *doc = malloc(cap);

	len += (size_t)snprintf(doc, cap, "{\"context\": {\"date\": \"2026-05-02T10:11:12Z\", "
				"\"host_name\": \"h\"}, \"benchmarks\": [");
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			len += (size_t)snprintf(doc + len, cap - len, "%s{\"name\": \"BM_%d\", "
						"\"run_name\": \"BM_%d\", \"run_type\": "
						"\"iteration\", \"iterations\": 1000, \"real_time\":"
						" %d, \"cpu_time\": %d, \"time_unit\": \"ns\"}",
						i || k ? ", " : "", i, i, 100 + k, 99 + k);
	snprintf(doc + len, cap - len, "]}");
	return doc;
}

/* 500 benchmarks of one document: the store grows by about the document once (it grew by 500
 * copies of it), and every record reads it back whole. */
Test(history_tx, a_document_is_stored_once)
{
	char *doc = gbench_doc(500);
	size_t len = strlen(doc);
	struct pbench_history_record r;
	struct pbench_history *h;
	off_t before, grew;

	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	pbench_history_close(h);
	before = file_size();
	cr_assert_eq(import_into("g", doc, &rev_x), 500);
	grew = file_size() - before;	/* the WAL is checkpointed into the file at the close */
	cr_assert_lt(grew, (off_t)(2 * len + 500 * 400), "a document of %zu bytes made 500 "
		     "records and %lld bytes of store: more than one copy", len, (long long)grew);
	cr_assert_eq(sql_count("SELECT count(*) FROM documents"), 1);
	cr_assert_eq(sql_count("SELECT count(*) FROM records WHERE json IS NOT NULL"), 0);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	cr_assert_eq(points_of(h, "g/BM_0", 0, &r), 1);
	cr_assert_str_eq(r.json, doc, "the document read back byte for byte");
	cr_assert_eq(points_of(h, "g/BM_499", 0, &r), 1);
	cr_assert_str_eq(r.json, doc);
	cr_assert(r.n_runs == 2 && r.run_values[0] == 100 && r.run_values[1] == 101);
	pbench_history_close(h);
	/* the same document again: its records, not another copy */
	cr_assert_eq(import_into("g", doc, &rev_x), 500);
	cr_assert_eq(sql_count("SELECT count(*) FROM documents"), 1);
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 1000);
	free(doc);
}

/* pbench_history_add() with rec->json (stat --record's path) stores it in documents too: the
 * same text twice is one row, another text another. */
Test(history_tx, add_keeps_its_document_once)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT, got;
	struct pbench_history *h;
	const char *a = "{\"doc\": \"a\"}", *b = "{\"doc\": \"b\"}";
	char copy[32];

	r.name = "x", r.metric = "time_ns", r.value = 1;
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	r.json = a;
	cr_assert_gt(pbench_history_add(h, &r), 0);
	snprintf(copy, sizeof(copy), "%s", a);	/* the same text at another address */
	r.json = copy;
	cr_assert_gt(pbench_history_add(h, &r), 0);
	r.json = b;
	cr_assert_gt(pbench_history_add(h, &r), 0);
	r.json = NULL;
	cr_assert_gt(pbench_history_add(h, &r), 0);
	cr_assert_eq(points_of(h, "x", 2, &got), 4);
	cr_assert_str_eq(got.json, b);
	cr_assert_eq(points_of(h, "x", 3, &got), 4);
	cr_assert_null(got.json, "a record without a document has none");
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM documents"), 2);
	cr_assert_eq(sql_count("SELECT count(*) FROM records WHERE document_id IS NULL"), 1);
}

/* A malformed line 4: nothing kept (it kept lines 1-3), -EINVAL; the file fixed and imported
 * again: every line once. */
Test(history_tx, a_bad_line_keeps_nothing_and_a_rerun_adds_all_once)
{
	struct pbench_history_record r;
	struct pbench_history *h;
	int rc;

	cr_assert_eq(import_into("keep", "7\n", NULL), 1, "a record before: it stays");
	rc = import_into("v", "c1,1\nc2,2\nc3,3\nc4,four\nc5,5\n", NULL);
	cr_assert_eq(rc, -EINVAL, "%d", rc);
	cr_assert(strstr(pbench_strerror(rc), "line 4"), "%s", pbench_strerror(rc));
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 1, "the lines before line 4 "
		     "were kept");
	cr_assert_eq(sql_count("SELECT count(*) FROM series WHERE name = 'v'"), 0);
	cr_assert_eq(import_into("v", "c1,1\nc2,2\nc3,3\nc4,4\nc5,5\n", NULL), 5);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	cr_assert_eq(points_of(h, "v", 4, &r), 5, "the re-run adds the set once");
	cr_assert_str_eq(r.rev, "c5");
	pbench_history_close(h);
	/* the same for a document: the third benchmark cannot be read, the first two are not
	 * kept */
	rc = import_into("g", "{\"benchmarks\": [{\"name\": \"A\", \"real_time\": 1}, {\"name\": "
			 "\"B\", \"real_time\": 2}, {\"name\": \"C\", \"real_time\": \"x\"}]}",
			 &rev_x);
	cr_assert_eq(rc, -EINVAL, "%d", rc);
	cr_assert(strstr(pbench_strerror(rc), "entry 2"), "%s", pbench_strerror(rc));
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 6);
	cr_assert_eq(sql_count("SELECT count(*) FROM documents"), 0, "nor its document");
}

/* {"results": []} and the like add nothing: an error that says so, not "0 records". */
Test(history_tx, a_document_of_nothing_is_refused)
{
	static const char *const docs[] = { "{\"results\": []}", "{\"benchmarks\": []}",
					    "{\"modes\": []}", "{\"entrants\": []}" };

	for (int i = 0; i < 4; i++) {
		int rc = import_into("e", docs[i], &rev_x);

		cr_assert_eq(rc, -EINVAL, "%s: %d", docs[i], rc);
		cr_assert(strstr(pbench_strerror(rc), "nothing to add"), "%s",
			  pbench_strerror(rc));
		cr_assert_null(strchr(pbench_strerror(rc), '\n'));
	}
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 0);
}

/* --commit (opts->rev) for the CSV lines that name no commit; a line's own commit wins. */
Test(history_tx, commit_reaches_value_lines)
{
	struct pbench_history_import_opts o = { .size = sizeof(o), .rev = "abc" };
	struct pbench_history_record r;
	struct pbench_history *h;

	cr_assert_eq(import_into("v", "5\n6\n", &o), 2);
	cr_assert_eq(import_into("w", "own,7\n", &o), 1);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	cr_assert_eq(points_of(h, "v", 1, &r), 2);
	cr_assert_str_eq(r.rev, "abc", "a value-only line takes --commit");
	cr_assert_eq(points_of(h, "w", 0, &r), 1);
	cr_assert_str_eq(r.rev, "own");
	pbench_history_close(h);
}

/* Google Benchmark's entries of several benchmarks interleaved (repetitions, aggregates):
 * each benchmark at its first entry, with its own iterations in order. */
Test(history_tx, gbench_interleaved)
{
	static const char doc[] = "{\"benchmarks\": ["
		"{\"run_name\": \"B\", \"run_type\": \"iteration\", \"real_time\": 1},"
		"{\"run_name\": \"A\", \"run_type\": \"iteration\", \"real_time\": 10},"
		"{\"run_name\": \"B\", \"run_type\": \"iteration\", \"real_time\": 2},"
		"{\"name\": \"C\", \"real_time\": 100},"
		"{\"run_name\": \"A\", \"run_type\": \"iteration\", \"real_time\": 20},"
		"{\"run_name\": \"B\", \"run_type\": \"iteration\", \"real_time\": 3},"
		"{\"run_name\": \"A\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\","
		" \"real_time\": 15}]}";
	struct pbench_history_record r;
	struct pbench_history *h;

	cr_assert_eq(import_into("g", doc, &rev_x), 3);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	cr_assert_eq(points_of(h, "g/B", 0, &r), 1);
	cr_assert(r.n_runs == 3 && r.run_values[0] == 1 && r.run_values[1] == 2 &&
		  r.run_values[2] == 3, "%zu runs", r.n_runs);
	cr_assert_eq(points_of(h, "g/A", 0, &r), 1);
	cr_assert(r.n_runs == 2 && r.run_values[1] == 20 && r.value == 15);
	cr_assert_eq(points_of(h, "g/C", 0, &r), 1);
	cr_assert(r.n_runs == 1 && r.value == 100);
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT min(r.id) FROM records r JOIN series s ON s.id = "
			       "r.series_id WHERE s.name = 'g/B'"), 1, "B first, as in the file");
}

static int raised, raise_at;

/* The log inside the import's transaction: SIGINT at the raise_at-th record written. */
static void raise_inside(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	if (strstr(msg, "not committed yet") && ++raised == raise_at)
		raise(SIGINT);
}

/* The caller's stop flag, set by its handler of SIGINT (as pbench's, cli/support/stop.c). */
static volatile int stop_flag;

static void on_sigint(int sig)
{
	if (!stop_flag)
		stop_flag = sig;
}

/* A Ctrl-C during an import given the caller's stop flag (`pbench history add`): the import is
 * rolled back whole, said, and the store is as it was. */
Test(history_tx, a_signal_rolls_the_import_back)
{
	struct pbench_history_import_opts io = PBENCH_HISTORY_IMPORT_OPTS_INIT;
	struct pbench_history *h;
	struct sigaction old;
	int rc;

	cr_assert_eq(import_into("keep", "7\n", NULL), 1);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	raise_at = 3;
	/* make test's lanes run in the background, where sh ignores SIGINT: the test's own
	 * handler, whatever the disposition it was started with */
	cr_assert_eq(sigaction(SIGINT, &(struct sigaction){ .sa_handler = on_sigint }, &old), 0);
	pbench_log_set(raise_inside, NULL);
	stop_flag = 0;
	io.stop = &stop_flag;
	rc = pbench_history_import(h, "v", "1\n2\n3\n4\n5\n6\n", 12, &io);
	pbench_log_set(NULL, NULL);
	sigaction(SIGINT, &old, NULL);
	cr_assert_eq(stop_flag, SIGINT, "the signal was caught");
	cr_assert_eq(raised, 3, "the import went on after the signal: %d records", raised);
	cr_assert_eq(rc, -EINTR, "%d", rc);
	cr_assert(strstr(pbench_strerror(rc), "nothing added"), "%s", pbench_strerror(rc));
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT count(*) FROM records"), 1, "the store as it was");
	/* an import not given the flag is not stopped by it (a set flag stops one given it) */
	cr_assert_eq(import_into("v", "1\n2\n", NULL), 2);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	cr_assert_eq(pbench_history_import(h, "w", "1\n", 2, &io), -EINTR);
	pbench_history_close(h);
}

/* Schema 1's tables and version, as that pbench made them (its step 1, verbatim). */
static const char schema1[] =
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE machines (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE,"
	" cpu_model TEXT NOT NULL, microcode TEXT NOT NULL, kernel TEXT NOT NULL,"
	" governor TEXT NOT NULL, smt TEXT NOT NULL, isolation TEXT NOT NULL,"
	" virt TEXT NOT NULL, pbench_version TEXT NOT NULL);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, name TEXT NOT NULL, metric TEXT NOT NULL,"
	" machine_id INTEGER NOT NULL REFERENCES machines(id), UNIQUE (name, metric, machine_id));"
	"CREATE TABLE records (id INTEGER PRIMARY KEY,"
	" series_id INTEGER NOT NULL REFERENCES series(id), time_ns BIGINT NOT NULL,"
	" rev TEXT NOT NULL, dirty INTEGER NOT NULL, branch TEXT NOT NULL, unit TEXT NOT NULL,"
	" value DOUBLE PRECISION, lo DOUBLE PRECISION, hi DOUBLE PRECISION,"
	" n_runs INTEGER NOT NULL, json TEXT);"
	"CREATE INDEX records_series ON records (series_id, time_ns, id);"
	"CREATE TABLE runs (record_id INTEGER NOT NULL REFERENCES records(id),"
	" idx INTEGER NOT NULL, value DOUBLE PRECISION NOT NULL, noisy INTEGER NOT NULL,"
	" PRIMARY KEY (record_id, idx));"
	"INSERT INTO meta (key, value) VALUES ('schema_version', '1');"
	"INSERT INTO machines VALUES (1, '0123456789abcdef', 'Old CPU', '', 'k', '', '', '', '',"
	" '0.1.0');"
	"INSERT INTO series VALUES (1, 'old', 'time_ns', 1);"
	"INSERT INTO records VALUES (1, 1, 1000, 'r1', 0, 'main', 'ns', 5, NULL, NULL, 2,"
	" '{\"old\": 1}');"
	"INSERT INTO records VALUES (2, 1, 2000, 'r2', 0, 'main', 'ns', 6, NULL, NULL, 0, NULL);"
	"INSERT INTO runs VALUES (1, 0, 4, 0), (1, 1, 6, 1);";

/* A store of schema 1 opened by this pbench: migrated to 2, its records read as they were
 * (the document of each, or none), and a new record with its document beside them. */
Test(history_tx, schema_1_store_migrated_and_readable)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT, got;
	struct pbench_history *h;
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, schema1, NULL, NULL, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(db));
	sqlite3_close(db);
	cr_assert_eq(pbench_history_open(&h, path, NULL), 0);
	cr_assert_eq(pbench_history_schema(h), 2);
	cr_assert_eq(points_of(h, "old", 0, &got), 2);
	cr_assert_str_eq(got.json, "{\"old\": 1}", "a schema-1 record's own document");
	cr_assert(got.n_runs == 2 && got.run_values[1] == 6 && got.run_noisy[1] == 1);
	cr_assert_str_eq(got.rev, "r1");
	cr_assert_eq(points_of(h, "old", 1, &got), 2);
	cr_assert_null(got.json);
	r.name = "new", r.metric = "time_ns", r.value = 7, r.time_ns = 3000, r.rev = "r3";
	r.json = "{\"new\": 1}";
	cr_assert_gt(pbench_history_add(h, &r), 0);
	cr_assert_eq(points_of(h, "new", 0, &got), 1);
	cr_assert_str_eq(got.json, "{\"new\": 1}");
	cr_assert_eq(points_of(h, "old", 0, &got), 2);
	cr_assert_str_eq(got.json, "{\"old\": 1}");
	pbench_history_close(h);
	cr_assert_eq(sql_count("SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
			       "'schema_version'"), 2);
	cr_assert_eq(sql_count("SELECT count(*) FROM documents"), 1);
}
