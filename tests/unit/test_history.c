/* SPDX-License-Identifier: MIT */
/*
 * The history store (lib/src/history/, issue 24) through its public API, on real SQLite files
 * in a temporary directory: every field read back as added, the JSON byte for byte, the
 * schema's version and a newer one refused untouched, two writers at once, a writer killed
 * inside its transaction, a writer locked out past its timeout, corrupt and truncated files,
 * and change points found on a stored series with a step but never across a change of machine.
 * sqlite3.h is included to play the part of another program writing the file (a newer pbench,
 * a foreign database) and to check the file's integrity independently of pbench.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

static char dir[256];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-history-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

/* Remove what the test made: the directory's files, one level of subdirectories. */
static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(history, .init = setup, .fini = teardown);

static const char *path_in(const char *name)
{
	static char p[4][320];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* A record with a fixed machine (so that tests do not depend on this one's). */
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

static int64_t sql_count(const char *file, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	cr_assert_eq(sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static const char *sql_text(const char *file, const char *sql)
{
	static char text[64];
	sqlite3 *db;
	sqlite3_stmt *st;

	text[0] = 0;
	cr_assert_eq(sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(text, sizeof(text), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return text;
}

static void integrity_ok(const char *file)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	cr_assert_eq(sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static const char json_doc[] = "{\n  \"schema\": 2, \"name\": \"caf\xc3\xa9 \\\"q\\\"\",\t"
			       "\"values\": [1.5e-9, -0, 1e308],\r\n  \"trailing\": \" \" }  \n";

Test(history, every_field_read_back)
{
	const double runs[] = { 101.5, 99.25, 100.0, 250.0 };
	const int noisy[] = { 0, 0, -1, 1 };
	struct pbench_history_record r = rec_at("parse", "abc123", 100.125, "6.1.0-test");
	struct pbench_history_record got = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_history_series s = { .size = sizeof(s) };
	struct pbench_history *h;
	const char *file = path_in("sub/h.db");
	int64_t id;

	r.dirty = 1;
	r.time_ns = 1700000000123456789LL;
	r.n_runs = 4;
	r.run_values = runs;
	r.run_noisy = noisy;
	r.json = json_doc;
	r.hi = NAN;
	cr_assert_eq(pbench_history_open(&h, file, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_history_schema(h), PBENCH_HISTORY_SCHEMA);
	id = pbench_history_add(h, &r);
	cr_assert_gt(id, 0, "%s", pbench_strerror((int)id));
	cr_assert_eq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_series_get(h, 0, &s), 0);
	cr_assert_str_eq(s.name, "parse");
	cr_assert_str_eq(s.metric, "time_ns");
	cr_assert_str_eq(s.cpu_model, "Test CPU 9000");
	cr_assert_str_eq(s.microcode, "0xdead");
	cr_assert_str_eq(s.kernel, "6.1.0-test");
	cr_assert_str_eq(s.governor, "performance");
	cr_assert_str_eq(s.smt, "off");
	cr_assert_str_eq(s.isolation, "2-3");
	cr_assert_str_eq(s.virt, "bare metal");
	cr_assert_str_eq(s.pbench_version, "0.1.0");
	cr_assert_eq(strlen(s.fingerprint), 16);
	cr_assert_eq(s.points, 1);
	cr_assert_eq(s.first_ns, r.time_ns);
	cr_assert_eq(s.last_ns, r.time_ns);
	cr_assert_eq(pbench_history_points(h, s.id), 1);
	cr_assert_eq(pbench_history_point_get(h, 0, &got), 0);
	cr_assert_eq(got.id, id);
	cr_assert_eq(got.series_id, s.id);
	cr_assert_str_eq(got.name, "parse");
	cr_assert_str_eq(got.unit, "ns");
	cr_assert_str_eq(got.rev, "abc123");
	cr_assert_eq(got.dirty, 1);
	cr_assert_str_eq(got.branch, "main");
	cr_assert_eq(got.time_ns, r.time_ns);
	cr_assert_eq(got.value, 100.125);
	cr_assert_eq(got.lo, r.lo);
	cr_assert(isnan(got.hi));
	cr_assert_eq(got.n_runs, 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(got.run_values[i], runs[i]);
		cr_assert_eq(got.run_noisy[i], noisy[i]);
	}
	cr_assert_eq(memcmp(got.json, json_doc, sizeof(json_doc)), 0, "the JSON is not kept byte "
		     "for byte: %s", got.json);
	cr_assert_str_eq(got.fingerprint, s.fingerprint);
	cr_assert_str_eq(got.isolation, "2-3");
	pbench_history_close(h);
}

Test(history, machine_fingerprint_and_series)
{
	struct pbench_history_record a = rec_at("x", "r1", 1, "k1"), b = rec_at("x", "r2", 2, "k2");
	struct pbench_history_record mine = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_history_record got = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_history_series s1 = { .size = sizeof(s1) }, s2 = { .size = sizeof(s2) };
	struct pbench_history *h;
	struct utsname u;
	int n;

	cr_assert_eq(pbench_history_open(&h, path_in("h.db"), NULL), 0);
	cr_assert_gt(pbench_history_add(h, &a), 0);
	cr_assert_gt(pbench_history_add(h, &a), 0);
	cr_assert_gt(pbench_history_add(h, &b), 0);
	mine.name = "x";
	mine.metric = "time_ns";
	mine.value = 3;
	cr_assert_gt(pbench_history_add(h, &mine), 0, "%s", pbench_strerror(-1));
	n = pbench_history_series_count(h);
	cr_assert_eq(n, 3, "a series per machine: %d", n);
	cr_assert_eq(pbench_history_series_get(h, 0, &s1), 0);
	cr_assert_eq(pbench_history_series_get(h, 1, &s2), 0);
	cr_assert_str_neq(s1.fingerprint, s2.fingerprint);
	cr_assert_eq(s1.points + s2.points, 3);
	cr_assert_eq(pbench_history_series_get(h, 3, &s1), -EINVAL);
	/* The machine's own fingerprint where the fields are left NULL. */
	cr_assert_eq(pbench_history_series_get(h, 2, &s1), 0);
	cr_assert_eq(pbench_history_points(h, s1.id), 1);
	cr_assert_eq(pbench_history_point_get(h, 0, &got), 0);
	cr_assert_eq(uname(&u), 0);
	cr_assert_str_eq(got.kernel, u.release);
	cr_assert_str_eq(got.pbench_version, pbench_version());
	cr_assert_str_eq(got.rev, "");
	cr_assert(isnan(got.lo), "lo is not known: NaN, not 0");
	/* Stable: the same fields give the same hash (the same series again). */
	cr_assert_gt(pbench_history_add(h, &mine), 0);
	cr_assert_eq(pbench_history_series_count(h), 3);
	cr_assert_eq(pbench_history_points(h, 999), -ENOENT);
	pbench_history_close(h);
}

/* Issue 37: the drift between occasions of one commit on this machine (pbench_history_drift()):
 * the points of another machine, of a dirty tree and a commit measured once left out; the sd
 * of the logs pooled around each commit's mean, on occasions - commits degrees of freedom. */
Test(history, drift_between_occasions_of_one_commit)
{
	static const double v[2][3] = { { 100, 101, 99 }, { 200, 204, 196 } };
	static const char *const rev[2] = { "c1", "c2" };
	struct pbench_history_drift d = { .size = sizeof(d) };
	struct pbench_history_record other = rec_at("x", "c1", 500, "k1");
	struct pbench_history *h;
	double ss = 0;

	cr_assert_eq(pbench_history_open(&h, path_in("d.db"), NULL), 0);
	cr_expect_eq(pbench_history_drift(h, "x", &d), -ENOENT, "no series yet");
	cr_expect_eq(d.series_id, 0);
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < 3; k++) {
			struct pbench_history_record r = { .size = sizeof(r), .name = "x",
							   .metric = "time_ns", .rev = rev[c],
							   .value = v[c][k] };

			cr_assert_gt(pbench_history_add(h, &r), 0, "%s", pbench_strerror(-1));
		}
	cr_assert_gt(pbench_history_add(h, &other), 0);	/* another machine: not here */
	cr_assert_gt(pbench_history_add(h, &(struct pbench_history_record){ .size =
		sizeof(struct pbench_history_record), .name = "x", .metric = "time_ns", .rev = "c1",
		.dirty = 1, .value = 150 }), 0);		/* a dirty tree: not c1's code */
	cr_assert_gt(pbench_history_add(h, &(struct pbench_history_record){ .size =
		sizeof(struct pbench_history_record), .name = "x", .metric = "time_ns", .rev = "c3",
		.value = 300 }), 0);				/* measured once: no drift to see */
	cr_assert_eq(pbench_history_drift(h, "x", &d), 0, "%s", pbench_strerror(-1));
	for (int c = 0; c < 2; c++) {
		double m = (log(v[c][0]) + log(v[c][1]) + log(v[c][2])) / 3;

		for (int k = 0; k < 3; k++)
			ss += (log(v[c][k]) - m) * (log(v[c][k]) - m);
	}
	cr_expect_eq(d.occasions, 6);
	cr_expect_eq(d.commits, 2);
	cr_expect_gt(d.series_id, 0);
	cr_expect_float_eq(d.sd, sqrt(ss / 4), 1e-12, "%g against %g", d.sd, sqrt(ss / 4));
	/* a point that kept its runs: their median, which a slow run (5000) does not move */
	for (int k = 0; k < 2; k++) {
		static const double runs[2][3] = { { 100, 100.5, 5000 }, { 100.5, 100, 99.5 } };
		struct pbench_history_record r = { .size = sizeof(r), .name = "y",
						   .metric = "time_ns", .rev = "c1", .n_runs = 3,
						   .run_values = runs[k], .value = 1766.8 };

		cr_assert_gt(pbench_history_add(h, &r), 0, "%s", pbench_strerror(-1));
	}
	cr_assert_eq(pbench_history_drift(h, "y", &d), 0, "%s", pbench_strerror(-1));
	cr_expect_eq(d.occasions, 2);
	cr_expect_float_eq(d.sd, (log(100.5) - log(100)) / sqrt(2), 1e-12, "%g", d.sd);
	cr_expect_eq(pbench_history_drift(h, "nosuch", &d), -ENOENT);
	cr_expect_eq(pbench_history_drift(NULL, "x", &d), -EINVAL);
	cr_expect_eq(pbench_history_drift(h, "x", NULL), -EINVAL);
	pbench_history_close(h);
}

Test(history, bad_arguments)
{
	struct pbench_history_record r = rec_at("", "r", 1, "k");
	struct pbench_history_opts bad = { 0 };
	struct pbench_history *h;
	double nan_run = NAN;

	cr_assert_eq(pbench_history_open(&h, path_in("h.db"), &bad), -EINVAL);
	cr_assert_null(h);
	cr_assert_eq(pbench_history_open(&h, "", NULL), -EINVAL);
	cr_assert_eq(pbench_history_open(&h, path_in("h.db"), NULL), 0);
	cr_assert_eq(pbench_history_add(h, &r), -EINVAL);
	cr_assert(strstr(pbench_strerror(-EINVAL), "name"), "%s", pbench_strerror(-EINVAL));
	r.name = "n";
	r.value = NAN;
	cr_assert_eq(pbench_history_add(h, &r), -EINVAL);
	r.n_runs = 1;
	r.run_values = &nan_run;
	cr_assert_eq(pbench_history_add(h, &r), -EINVAL);
	cr_assert_eq(pbench_history_series_count(h), 0, "nothing stored by a refused add");
	pbench_history_close(h);
	cr_assert_eq(pbench_history_open(&h, path_in("no/such/dir/h.db"), NULL), -ENOENT,
		     "only one level of directory is made");
}

Test(history, default_path_makes_only_its_directory)
{
	struct pbench_history *h;
	char cwd[512];
	struct stat st;
	DIR *d;
	struct dirent *e;
	int others = 0;

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(pbench_history_open(&h, NULL, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(stat(PBENCH_HISTORY_DEFAULT_PATH, &st), 0);
	pbench_history_close(h);
	d = opendir(".");
	while ((e = readdir(d)))
		others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			  strcmp(e->d_name, ".pbench");
	closedir(d);
	cr_assert_eq(others, 0, "nothing but .pbench made");
	cr_assert_eq(chdir(cwd), 0);
}

/* The file's version set by another program: a newer pbench's. */
static void set_version(const char *file, const char *v)
{
	char sql[128];
	sqlite3 *db;

	snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%s' WHERE key = 'schema_version'", v);
	cr_assert_eq(sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static char *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	char *buf = malloc(1 << 20);

	cr_assert_not_null(f);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

Test(history, schema_version_and_newer_refused)
{
	struct pbench_history_record r = rec_at("x", "r", 1, "k");
	struct pbench_history *h;
	const char *file = path_in("h.db");
	size_t n1, n2;
	char *before, *after;
	int rc;

	cr_assert_eq(pbench_history_open(&h, file, NULL), 0);
	cr_assert_gt(pbench_history_add(h, &r), 0);
	pbench_history_close(h);
	cr_assert_eq(sql_count(file, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
			       "'schema_version'"), PBENCH_HISTORY_SCHEMA);
	set_version(file, "99");
	before = slurp(file, &n1);
	rc = pbench_history_open(&h, file, NULL);
	cr_assert_eq(rc, -PBENCH_ENEWER_SCHEMA, "%d %s", rc, pbench_strerror(rc));
	cr_assert_null(h);
	cr_assert(strstr(pbench_strerror(rc), "version 99"), "%s", pbench_strerror(rc));
	cr_assert_null(strchr(pbench_strerror(rc), '\n'), "one line");
	after = slurp(file, &n2);
	cr_assert(n1 == n2 && !memcmp(before, after, n1), "a newer store is left untouched");
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records"), 1);
	free(before);
	free(after);
}

/* Append n records from a child process of its own: its exit status is the first error. */
static pid_t writer(const char *file, const char *name, int n)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct pbench_history_opts o = PBENCH_HISTORY_OPTS_INIT;
		struct pbench_history *h;
		char rev[32];

		o.busy_timeout_s = 30;
		int orc = pbench_history_open(&h, file, &o);
		if (orc) {
			fprintf(stderr, "writer %s: %s\n", name, pbench_strerror(orc));
			_exit(10);
		}
		for (int i = 0; i < n; i++) {
			struct pbench_history_record r = rec_at(name, rev, 100 + i, "k");

			snprintf(rev, sizeof(rev), "%s-%d", name, i);
			if (pbench_history_add(h, &r) <= 0)
				_exit(11);
		}
		pbench_history_close(h);
		_exit(0);
	}
	return pid;
}

Test(history, two_writers_at_once)
{
	const char *file = path_in("h.db");
	pid_t a, b;
	int st;

	/* No store yet: both make it at once, one of them its schema. */
	a = writer(file, "a", 200);
	b = writer(file, "b", 200);
	cr_assert_eq(waitpid(a, &st, 0), a);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer a: %d", st);
	cr_assert_eq(waitpid(b, &st, 0), b);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer b: %d", st);
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records"), 400);
	cr_assert_eq(sql_count(file, "SELECT count(DISTINCT rev) FROM records"), 400);
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM series"), 2);
	cr_assert_str_eq(sql_text(file, "PRAGMA journal_mode"), "wal");
	integrity_ok(file);
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

/* A child appending one record with 50 runs, stopped inside its transaction. */
static pid_t stopped_writer(const char *file)
{
	int fd[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		struct pbench_history_record r = rec_at("x", "half", 5, "k");
		struct pbench_history *h;
		double runs[50];

		close(fd[0]);
		hook_fd = fd[1];
		for (int i = 0; i < 50; i++)
			runs[i] = 5 + i * 0.01;
		r.n_runs = 50;
		r.run_values = runs;
		r.json = "{\"half\": true}";
		if (pbench_history_open(&h, file, NULL))
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

static void add_some(const char *file, int n)
{
	struct pbench_history *h;
	double runs[3] = { 1, 2, 3 };

	cr_assert_eq(pbench_history_open(&h, file, NULL), 0);
	for (int i = 0; i < n; i++) {
		struct pbench_history_record r = rec_at("x", "whole", 2, "k");

		r.n_runs = 3;
		r.run_values = runs;
		cr_assert_gt(pbench_history_add(h, &r), 0);
	}
	pbench_history_close(h);
}

Test(history, killed_writer_leaves_no_half_record)
{
	const char *file = path_in("h.db");
	struct pbench_history *h;
	pid_t pid;
	int st;

	add_some(file, 3);
	pid = stopped_writer(file);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	cr_assert_eq(pbench_history_open(&h, file, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_points(h, 1), 3, "no half record");
	pbench_history_close(h);
	integrity_ok(file);
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM runs"), 9, "no run of the killed one");
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records WHERE rev = 'half'"), 0);
	add_some(file, 1);
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records"), 4);
}

Test(history, locked_past_the_timeout)
{
	struct pbench_history_opts o = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history_record r = rec_at("x", "late", 1, "k");
	const char *file = path_in("h.db");
	struct pbench_history *h;
	struct timespec t0, t1;
	double waited;
	int64_t rc;
	pid_t pid;
	int st;

	add_some(file, 1);
	pid = stopped_writer(file);
	o.busy_timeout_s = 0.3;
	cr_assert_eq(pbench_history_open(&h, file, &o), 0, "readers and opening are not blocked");
	cr_assert_eq(pbench_history_series_count(h), 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pbench_history_add(h, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	cr_assert_eq(rc, -EBUSY, "%lld %s", (long long)rc, pbench_strerror((int)rc));
	cr_assert(strstr(pbench_strerror((int)rc), "locked"), "%s", pbench_strerror((int)rc));
	cr_assert_geq(waited, 0.25, "gave up after %.3f s, before the timeout", waited);
	cr_assert_gt(pbench_history_add(h, &r), 0, "the lock is gone with its writer");
	pbench_history_close(h);
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records"), 2);
}

Test(history, corrupt_files)
{
	const char *garbage = path_in("garbage.db"), *foreign = path_in("foreign.db");
	struct pbench_history *h;
	sqlite3 *db;
	FILE *f = fopen(garbage, "w");
	int rc;

	for (int i = 0; i < 300; i++)
		fputs("this is not a database at all\n", f);
	fclose(f);
	rc = pbench_history_open(&h, garbage, NULL);
	cr_assert_eq(rc, -PBENCH_ECORRUPT, "%d %s", rc, pbench_strerror(rc));
	cr_assert_null(strchr(pbench_strerror(rc), '\n'));
	cr_assert_eq(sqlite3_open(foreign, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t (a)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	rc = pbench_history_open(&h, foreign, NULL);
	cr_assert_eq(rc, -PBENCH_ECORRUPT, "another program's database: %d %s", rc,
		     pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "not a pbench history"), "%s", pbench_strerror(rc));
}

Test(history, truncated_file)
{
	const char *file = path_in("h.db");
	struct pbench_history *h;
	static char big[3000];
	struct stat st;
	int rc;

	memset(big, 'j', sizeof(big) - 1);
	cr_assert_eq(pbench_history_open(&h, file, NULL), 0);
	for (int i = 0; i < 200; i++) {
		struct pbench_history_record r = rec_at("x", "r", 1 + i, "k");

		r.json = big;
		cr_assert_gt(pbench_history_add(h, &r), 0);
	}
	pbench_history_close(h);
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(truncate(file, st.st_size / 3), 0);
	rc = pbench_history_open(&h, file, NULL);
	if (!rc) {
		rc = pbench_history_series_count(h);
		if (rc >= 0)
			rc = pbench_history_points(h, 1);
		pbench_history_close(h);
	}
	cr_assert_eq(rc, -PBENCH_ECORRUPT, "%d %s", rc, pbench_strerror(rc));
}

/* Records of 20 kB added to file until one fails: its exit status is the number stored, 200
 * and up when the failure was not err with its one line (in a child: the limits are its). */
static int fill_up(const char *file, int err, const char *words)
{
	struct pbench_history *h;
	static char big[20000];
	int64_t rc = 0;
	int n = 0;

	memset(big, 'z', sizeof(big) - 1);
	if (pbench_history_open(&h, file, NULL))
		return 201;
	while (n < 100) {
		struct pbench_history_record r = rec_at("x", "r", 1, "k");

		r.json = big;
		if ((rc = pbench_history_add(h, &r)) <= 0)
			break;
		n++;
	}
	if (rc != err)
		return 202;
	if (!strstr(pbench_strerror((int)rc), words) || strchr(pbench_strerror((int)rc), '\n'))
		return 203;
	pbench_history_close(h);
	return n;
}

/* In the child of a full disk: what fill_up() stored is all there, whole (the tmpfs is the
 * child's own mount, gone with it). */
static int full_tmpfs(void)
{
	char sub[300], file[320];
	int n;

	snprintf(sub, sizeof(sub), "%s/full", dir);
	snprintf(file, sizeof(file), "%s/h.db", sub);
	if (mkdir(sub, 0700) ||
	    (unshare(CLONE_NEWNS) && unshare(CLONE_NEWUSER | CLONE_NEWNS)) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", sub, "tmpfs", 0, "size=256k"))
		return 150;
	n = fill_up(file, -ENOSPC, "full");
	if (n >= 100 || n < 1)
		return n >= 200 ? n : 204;
	if (fill_up(file, -ENOSPC, "full") >= 200)	/* still full: said again */
		return 205;
	return 0;
}

Test(history, full_disk)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(full_tmpfs());
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 150)
		cr_skip_test("cannot mount a small tmpfs here (needs root or user namespaces)");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a full disk: %d", WEXITSTATUS(st));
}

/* A write cut short by the file size limit (RLIMIT_FSIZE, as a full disk cuts it): -EFBIG,
 * and every record stored whole, the failed one not at all. */
Test(history, file_size_limit)
{
	const char *file = path_in("h.db");
	pid_t pid;
	int st;

	add_some(file, 1);
	pid = fork();
	if (pid == 0) {
		struct rlimit lim = { 256 * 1024 + 100, 256 * 1024 + 100 };

		signal(SIGXFSZ, SIG_IGN);
		_exit(setrlimit(RLIMIT_FSIZE, &lim) ? 206 : fill_up(file, -EFBIG, "file size limit"));
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) > 0 && WEXITSTATUS(st) < 100,
		  "not -EFBIG with its one line: %d", WEXITSTATUS(st));
	integrity_ok(file);
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records"), 1 + WEXITSTATUS(st),
		     "every record added whole, the failed one not at all");
}

/* A stored series: n points at level a then n at level b, each with 5 runs; kernel k2 for the
 * second half when it is not NULL. */
static int64_t store_step(struct pbench_history *h, int n, double a, double b, const char *k2)
{
	struct pbench_history_series s = { .size = sizeof(s) };

	for (int i = 0; i < 2 * n; i++) {
		double level = i < n ? a : b, runs[5];
		char rev[16];
		struct pbench_history_record r = rec_at("step", rev, level, i < n || !k2 ? "k1" : k2);

		snprintf(rev, sizeof(rev), "c%d", i);
		for (int k = 0; k < 5; k++)
			runs[k] = level * (1 + 0.004 * sin(i * 1.7 + k * 2.3));
		r.time_ns = 1000000000LL * (i + 1);
		r.n_runs = 5;
		r.run_values = runs;
		r.value = level * (1 + 0.003 * sin(i * 1.7));
		cr_assert_gt(pbench_history_add(h, &r), 0);
	}
	cr_assert_geq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_series_get(h, 0, &s), 0);
	return s.id;
}

Test(history, change_point_on_a_step)
{
	struct pbench_history_change c = { .size = sizeof(c) };
	struct pbench_history *h;
	int64_t sid;
	int n, seg = 0;

	cr_assert_eq(pbench_history_open(&h, path_in("h.db"), NULL), 0);
	sid = store_step(h, 30, 100, 110, NULL);
	n = pbench_history_changes(h, sid, NULL, &seg);
	cr_assert_eq(n, 1, "%d %s", n, pbench_strerror(n));
	cr_assert_eq(seg, 1);
	cr_assert_eq(pbench_history_change_get(h, 0, &c), 0);
	cr_assert_eq(c.index, 30);
	cr_assert_str_eq(c.rev_before, "c29");
	cr_assert_str_eq(c.rev_after, "c30");
	cr_assert_eq(c.direction, 1);
	cr_assert_eq(c.time_ns, 31000000000LL);
	cr_assert(fabs(c.rel - 0.10) < 0.01, "rel %g", c.rel);
	cr_assert(c.rel_lo <= c.rel && c.rel <= c.rel_hi && c.rel_lo > 0.05, "[%g, %g]",
		  c.rel_lo, c.rel_hi);
	cr_assert_lt(c.p, 0.001);
	cr_assert_eq(pbench_history_change_get(h, 1, &c), -EINVAL);
	/* The same series without a step: none. */
	pbench_history_close(h);
	cr_assert_eq(pbench_history_open(&h, path_in("flat.db"), NULL), 0);
	sid = store_step(h, 30, 100, 100, NULL);
	cr_assert_eq(pbench_history_changes(h, sid, NULL, NULL), 0);
	pbench_history_close(h);
}

Test(history, no_change_across_a_fingerprint_change)
{
	struct pbench_history_changes_opts o = PBENCH_HISTORY_CHANGES_OPTS_INIT;
	struct pbench_history *h;
	int64_t sid;
	int n, seg = 0;

	cr_assert_eq(pbench_history_open(&h, path_in("h.db"), NULL), 0);
	sid = store_step(h, 30, 100, 110, "k2");
	cr_assert_eq(pbench_history_series_count(h), 2, "a series per machine");
	n = pbench_history_changes(h, sid, NULL, &seg);
	cr_assert_eq(n, 0, "a change across machines: %d", n);
	cr_assert_eq(seg, 2, "the fingerprint change starts a segment");
	cr_assert_eq(pbench_history_points(h, sid), 30);
	o.p = 0.7;
	cr_assert_eq(pbench_history_changes(h, sid, &o, NULL), -EINVAL);
	pbench_history_close(h);
}

Test(history, git_commit)
{
	char rev[64], branch[256];
	int dirty = -1, rc;

	rc = pbench_history_git(NULL, rev, sizeof(rev), branch, sizeof(branch), &dirty);
	if (rc == -PBENCH_ENOT_FOUND)
		cr_skip_test("git is not installed: %s", pbench_strerror(rc));
	if (rc == -ENOENT)
		cr_skip_test("this checkout has no .git (a tarball?): %s", pbench_strerror(rc));
	cr_assert_eq(rc, 0, "%s", pbench_strerror(rc));
	cr_assert_eq(strlen(rev), 40, "%s", rev);
	cr_assert_eq(strspn(rev, "0123456789abcdef"), 40, "%s", rev);
	cr_assert_gt(strlen(branch), 0);
	cr_assert(dirty == 0 || dirty == 1);
	cr_assert_eq(pbench_history_git(dir, rev, sizeof(rev), branch, sizeof(branch), &dirty),
		     -ENOENT, "a directory that is not a git tree");
	cr_assert_eq(pbench_history_git(NULL, rev, 8, branch, sizeof(branch), &dirty),
		     -ENAMETOOLONG);
}

Test(history, read_only)
{
	struct pbench_history_opts o = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history_record r = rec_at("x", "r", 1, "k");
	const char *file = path_in("h.db");
	struct pbench_history *h;
	struct stat st;
	int rc;

	o.read_only = 1;
	rc = pbench_history_open(&h, path_in("missing/h.db"), &o);
	cr_assert_eq(rc, -ENOENT, "%d %s", rc, pbench_strerror(rc));
	cr_assert_neq(stat(path_in("missing"), &st), 0, "read-only makes nothing");
	add_some(file, 2);
	cr_assert_eq(pbench_history_open(&h, file, &o), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_history_series_count(h), 1);
	cr_assert_eq(pbench_history_points(h, 1), 2);
	cr_assert_eq(pbench_history_add(h, &r), -EROFS);
	pbench_history_close(h);
}

/* The writer that takes a format writes what the writer of that name does, byte for byte,
 * and refuses a format that is none. */
Test(history, write_by_format_is_the_named_writer)
{
	struct pbench_history_changes_opts co = PBENCH_HISTORY_CHANGES_OPTS_INIT;
	struct pbench_history *h;
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa, *fb;

	cr_assert_eq(pbench_history_open(&h, path_in("w.db"), NULL), 0);
	for (int i = 0; i < 4; i++) {
		char rev[8];
		struct pbench_history_record r;

		snprintf(rev, sizeof(rev), "r%d", i);
		r = rec_at("s", rev, 100 + i, "6.1");
		cr_assert_gt(pbench_history_add(h, &r), 0);
	}
	for (int fmt = PBENCH_REPORT_FORMAT_JSON; fmt <= PBENCH_REPORT_FORMAT_TEXT; fmt++) {
		fa = open_memstream(&a, &na);
		fb = open_memstream(&b, &nb);
		cr_assert_eq(pbench_history_write(h, "s", &co, fmt, fa), 0, "format %d", fmt);
		cr_assert_eq(fmt == PBENCH_REPORT_FORMAT_JSON ? pbench_history_write_json(h, "s", &co, fb) :
			     fmt == PBENCH_REPORT_FORMAT_CSV ? pbench_history_write_csv(h, "s", &co, fb) :
			     fmt == PBENCH_REPORT_FORMAT_MARKDOWN ?
			     pbench_history_write_markdown(h, "s", &co, fb) :
			     fmt == PBENCH_REPORT_FORMAT_SVG ? pbench_history_plot_svg(h, "s", &co, fb) :
			     pbench_history_write_text(h, "s", &co, fb), 0);
		fclose(fa);
		fclose(fb);
		cr_expect(na > 0 && na == nb && !memcmp(a, b, na), "format %d: %zu against %zu bytes",
			  fmt, na, nb);
		free(a);
		free(b);
	}
	cr_expect_eq(pbench_history_write(h, "s", &co, PBENCH_REPORT_FORMAT_TEXT + 1, stdout),
		     -EINVAL);
	pbench_history_close(h);
}

/* ---- pbench_history_import_writer(): a report recorded through its writer ---------------- */

static int writer_calls;

/* A hyperfine document of two commands, written only when asked for JSON. */
static int hf_writer(void *arg, int fmt, FILE *f)
{
	writer_calls++;
	if (fmt != PBENCH_REPORT_FORMAT_JSON)
		return -EINVAL;
	fprintf(f, "{\"results\": [{\"command\": \"%s\", \"times\": [0.1, 0.3]}, "
		"{\"command\": \"b\", \"times\": [0.2]}]}", (const char *)arg);
	return 0;
}

/* Writes half a document, then fails as a writer does. */
static int failing_writer(void *arg, int fmt, FILE *f)
{
	(void)arg, (void)fmt;
	writer_calls++;
	fputs("{\"results\": [{\"command\": \"a\", \"times\": [0.1", f);
	return -ENOSPC;
}

/* The series of the store at file named name: its points (-1: no such series). */
static int series_points(const char *file, const char *name, struct pbench_history_record *last)
{
	struct pbench_history *h;
	struct pbench_history_series s = { .size = sizeof(s) };
	int n, points = -1;

	cr_assert_eq(pbench_history_open(&h, file, NULL), 0, "%s", pbench_strerror(-1));
	n = pbench_history_series_count(h);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(pbench_history_series_get(h, i, &s), 0);
		if (strcmp(s.name, name))
			continue;
		points = pbench_history_points(h, s.id);
		*last = (struct pbench_history_record)PBENCH_HISTORY_RECORD_INIT;
		cr_assert_eq(pbench_history_point_get(h, points - 1, last), 0);
		last->run_values = NULL;	/* the history's, gone at the close */
		last->rev = strcmp(last->rev, "r7") ? "other" : "r7";
	}
	pbench_history_close(h);
	return points;
}

Test(history, import_writer_records_and_reads_back)
{
	struct pbench_history_import_opts io = PBENCH_HISTORY_IMPORT_OPTS_INIT;
	struct pbench_history_record r;
	const char *file = path_in("rec/h.db");

	io.rev = "r7";
	writer_calls = 0;
	cr_assert_eq(pbench_history_import_writer(file, "hf", hf_writer, "a", &io), 2,
		     "%s", pbench_strerror(-1));
	cr_assert_eq(writer_calls, 1);
	cr_assert_eq(series_points(file, "hf/a", &r), 1, "the first command's series, one point");
	cr_assert(fabs(r.value - 2e8) < 1e-3, "its mean in ns: %g", r.value);
	cr_assert_eq(r.n_runs, 2);
	cr_assert_str_eq(r.rev, "r7", "the import options reach the import");
	cr_assert_eq(series_points(file, "hf/b", &r), 1, "the second command's");
	cr_assert_eq(pbench_history_import_writer(file, "hf", hf_writer, "a", &io), 2);
	cr_assert_eq(series_points(file, "hf/a", &r), 2, "recorded again: a second point");
	cr_assert_eq(pbench_history_import_writer(file, NULL, hf_writer, "a", &io), -EINVAL);
	cr_assert_eq(pbench_history_import_writer(file, "hf", NULL, "a", &io), -EINVAL);
}

Test(history, import_writer_honours_PBENCH_HISTORY)
{
	struct pbench_history_record r;
	const char *env = path_in("env/h.db"), *old = getenv("PBENCH_HISTORY");
	char cwd[512], *saved = old ? strdup(old) : NULL;
	struct stat st;

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	setenv("PBENCH_HISTORY", env, 1);
	cr_assert_eq(pbench_history_import_writer(NULL, "hf", hf_writer, "x", NULL), 2,
		     "%s", pbench_strerror(-1));
	cr_assert_eq(series_points(env, "hf/x", &r), 1, "recorded in $PBENCH_HISTORY's store");
	cr_assert_neq(stat(PBENCH_HISTORY_DEFAULT_PATH, &st), 0, "not in the default one");
	setenv("PBENCH_HISTORY", "", 1);
	cr_assert_eq(pbench_history_import_writer(NULL, "hf", hf_writer, "y", NULL), 2);
	cr_assert_eq(stat(PBENCH_HISTORY_DEFAULT_PATH, &st), 0, "empty: the default path");
	cr_assert_eq(series_points(env, "hf/y", &r), -1, "and not $PBENCH_HISTORY's");
	unsetenv("PBENCH_HISTORY");
	cr_assert_eq(series_points(NULL, "hf/y", &r), 1, "unset: the default path");
	if (saved)
		setenv("PBENCH_HISTORY", saved, 1);
	free(saved);
	cr_assert_eq(chdir(cwd), 0);
}

Test(history, import_writer_that_fails_records_nothing)
{
	struct pbench_history_record r;
	const char *file = path_in("fail/h.db");
	struct stat st;

	writer_calls = 0;
	cr_assert_eq(pbench_history_import_writer(file, "hf", failing_writer, NULL, NULL), -ENOSPC);
	cr_assert_eq(writer_calls, 1);
	cr_assert_neq(stat(path_in("fail"), &st), 0, "the store is not even made");
	cr_assert_eq(pbench_history_import_writer(file, "hf", hf_writer, "a", NULL), 2);
	cr_assert_eq(pbench_history_import_writer(file, "hf", failing_writer, NULL, NULL), -ENOSPC);
	cr_assert_eq(series_points(file, "hf/a", &r), 1, "the failed one added no point");
}

/* ---- the store's path: links in a shared directory, what is not a file, read-only --------- */

#define NOBODY 65534

/* A link at path to target, owned by owner as if that user had made it. */
static void link_of(const char *target, const char *path, uid_t owner)
{
	cr_assert_eq(symlink(target, path), 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(lchown(path, owner, owner), 0, "%s: %s", path, strerror(errno));
}

/* nobody's link in a sticky world-writable directory: no store made where it points (a file
 * or a directory on the way), said with the link's owner; our own link is followed. */
Test(history, another_users_link_is_not_followed)
{
	const char *shared = path_in("tmp"), *target = path_in("new.db");
	struct pbench_history *h;
	struct stat st;
	char link[400], evil[400];
	int rc;

	if (geteuid() != 0)
		cr_skip_test("not root: a link of another user is made with lchown(), root's");
	cr_assert_eq(mkdir(shared, 0700), 0);
	cr_assert_eq(chmod(shared, 01777), 0);
	snprintf(link, sizeof(link), "%s/h.db", shared);
	link_of(target, link, NOBODY);
	rc = pbench_history_open(&h, link, NULL);
	cr_assert_eq(rc, -EACCES, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "h.db' is a link owned by uid 65534") &&
		  !strchr(pbench_strerror(rc), '\n'), "%s", pbench_strerror(rc));
	cr_assert_neq(lstat(target, &st), 0, "no store where the link points");
	snprintf(evil, sizeof(evil), "%s/evil", shared);
	link_of(dir, evil, NOBODY);
	snprintf(evil, sizeof(evil), "%s/evil/new.db", shared);
	cr_assert_eq(pbench_history_open(&h, evil, NULL), -EACCES);
	cr_assert_neq(lstat(target, &st), 0, "none through a directory's link either");
	/* A link planted where SQLite's WAL will be (SQLite does not follow it: said first). */
	snprintf(evil, sizeof(evil), "%s/w.db-wal", shared);
	link_of(target, evil, NOBODY);
	snprintf(evil, sizeof(evil), "%s/w.db", shared);
	rc = pbench_history_open(&h, evil, NULL);
	cr_assert_eq(rc, -EACCES, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "w.db-wal' is a symbolic link"), "%s",
		  pbench_strerror(rc));
	cr_assert_neq(lstat(target, &st), 0, "nothing where the WAL's link points");
	cr_assert_eq(unlink(link), 0);
	link_of(target, link, 0);
	cr_assert_eq(pbench_history_open(&h, link, NULL), 0, "%s", pbench_strerror(-1));
	pbench_history_close(h);
	cr_assert_eq(lstat(target, &st), 0, "our own link: the store where it points");
	cr_assert(S_ISREG(st.st_mode));
}

/* A FIFO (which held the open) or a directory ("I/O error") as the store: said what it is. */
Test(history, a_store_that_is_not_a_file, .timeout = 30)
{
	struct pbench_history_opts ro = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history *h;
	int rc;

	ro.read_only = 1;
	cr_assert_eq(mkfifo(path_in("fifo.db"), 0600), 0);
	cr_assert_eq(mkdir(path_in("dir.db"), 0700), 0);
	for (int r = 0; r < 2; r++) {
		rc = pbench_history_open(&h, path_in("fifo.db"), r ? &ro : NULL);
		cr_assert_eq(rc, -EINVAL, "%d %s", rc, pbench_strerror(rc));
		cr_assert(strstr(pbench_strerror(rc), "is a FIFO, not a regular file"), "%s",
			  pbench_strerror(rc));
		rc = pbench_history_open(&h, path_in("dir.db"), r ? &ro : NULL);
		cr_assert_eq(rc, -EISDIR, "%d %s", rc, pbench_strerror(rc));
		cr_assert(strstr(pbench_strerror(rc), "is a directory"), "%s", pbench_strerror(rc));
	}
}

/* A version no pbench will reach: out of range, not "no schema version". */
Test(history, schema_version_out_of_range)
{
	const char *file = path_in("h.db");
	struct pbench_history *h;
	int rc;

	add_some(file, 1);
	set_version(file, "999999999");
	rc = pbench_history_open(&h, file, NULL);
	cr_assert_eq(rc, -PBENCH_ENEWER_SCHEMA, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "999999999, out of range"), "%s",
		  pbench_strerror(rc));
	cr_assert_eq(sql_count(file, "SELECT count(*) FROM records"), 1);
}

/* Another user reads a store in a directory only its owner writes (no -shm can be made
 * beside it): read, not refused. */
Test(history, read_by_another_user_in_a_read_only_directory)
{
	const char *sub = path_in("store"), *file = path_in("store/h.db");
	pid_t pid;
	int st;

	if (geteuid() != 0)
		cr_skip_test("not root: the reader is another user (setuid)");
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	add_some(file, 2);
	cr_assert_eq(chmod(file, 0644), 0);
	pid = fork();
	if (pid == 0) {
		struct pbench_history_opts o = PBENCH_HISTORY_OPTS_INIT;
		struct pbench_history *h;

		o.read_only = 1;
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		if (pbench_history_open(&h, file, &o)) {
			fprintf(stderr, "%s\n", pbench_strerror(-1));
			_exit(101);
		}
		_exit(pbench_history_series_count(h) == 1 && pbench_history_points(h, 1) == 2 ?
		      0 : 102);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reader: %d", WEXITSTATUS(st));
}

/* In a child with its own mount: a store on a tmpfs remounted read-only. A writer is told
 * EROFS (it was ENOENT, "cannot open"), a reader reads. */
static int read_only_mount(void)
{
	struct pbench_history_opts ro = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history *h;
	char sub[300], file[320], fresh[320];
	int rc;

	snprintf(sub, sizeof(sub), "%s/ro", dir);
	snprintf(file, sizeof(file), "%s/h.db", sub);
	snprintf(fresh, sizeof(fresh), "%s/new.db", sub);
	if (mkdir(sub, 0700) ||
	    (unshare(CLONE_NEWNS) && unshare(CLONE_NEWUSER | CLONE_NEWNS)) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", sub, "tmpfs", 0, "size=1m"))
		return 150;
	if (pbench_history_open(&h, file, NULL))
		return 200;
	for (int i = 0; i < 2; i++) {
		struct pbench_history_record r = rec_at("x", "r", 1, "k");

		if (pbench_history_add(h, &r) <= 0)
			return 200;
	}
	pbench_history_close(h);
	if (mount(NULL, sub, NULL, MS_REMOUNT | MS_RDONLY, NULL))
		return 150;
	for (int i = 0; i < 2; i++) {
		rc = pbench_history_open(&h, i ? fresh : file, NULL);
		if (rc != -EROFS || !strstr(pbench_strerror(rc), "read-only file system"))
			return 201 + i;
	}
	ro.read_only = 1;
	if (pbench_history_open(&h, file, &ro))
		return 203;
	rc = pbench_history_points(h, 1);
	pbench_history_close(h);
	return rc == 2 ? 0 : 204;
}

Test(history, store_on_a_read_only_mount)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(read_only_mount());
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 150)
		cr_skip_test("cannot mount a tmpfs read-only here (needs root or user namespaces)");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "read-only mount: %d", WEXITSTATUS(st));
}

/* What a writer checks before it measures anything (stat and compare --record): refused
 * without making or opening a thing; a store a writer can make passes, and is not made. */
Test(history, path_checked_before_anything_is_made, .timeout = 30)
{
	const char *fifo = path_in("fifo.db"), *deep = path_in("no/such/h.db");
	const char *one = path_in("sub/h.db"), *sub = path_in("sub");
	struct stat st;
	char link[400];
	int rc;

	cr_assert_eq(pbench_history_path_check(dir), -EISDIR, "%s", pbench_strerror(-1));
	rc = pbench_history_path_check(deep);
	cr_assert_eq(rc, -ENOENT, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "no directory '") && !strchr(pbench_strerror(rc),
									      '\n'),
		  "%s", pbench_strerror(rc));
	cr_assert_neq(stat(path_in("no"), &st), 0, "nothing made");
	cr_assert_eq(pbench_history_path_check(one), 0, "%s", pbench_strerror(-1));
	cr_assert_neq(stat(sub, &st), 0, "the store's directory is made by the open, not here");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	rc = pbench_history_path_check(fifo);	/* said at once: the check opens nothing */
	cr_assert_eq(rc, -EINVAL, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "a FIFO"), "%s", pbench_strerror(rc));
	cr_assert_eq(pbench_history_path_check("postgresql://u@127.0.0.1:1/db"), 0,
		     "a server's URI: connecting is the open's");
	if (geteuid() != 0)
		cr_skip_test("not root: a link of another user is made with lchown(), root's");
	cr_assert_eq(mkdir(path_in("tmp"), 0700), 0);
	cr_assert_eq(chmod(path_in("tmp"), 01777), 0);
	snprintf(link, sizeof(link), "%s/h.db", path_in("tmp"));
	link_of(path_in("new.db"), link, NOBODY);
	rc = pbench_history_path_check(link);
	cr_assert_eq(rc, -EACCES, "%d %s", rc, pbench_strerror(rc));
	cr_assert(strstr(pbench_strerror(rc), "is a link owned by uid 65534"), "%s",
		  pbench_strerror(rc));
	cr_assert_neq(lstat(path_in("new.db"), &st), 0, "nothing where the link points");
}
