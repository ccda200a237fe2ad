/* SPDX-License-Identifier: MIT */
/*
 * The history's strings and the gate's arithmetic (issue 34, items 9 and 14), through the
 * public API on SQLite files in a temporary directory: a name, metric, unit, commit or branch
 * that is not UTF-8 or holds a control character or a bidi override is refused by
 * pbench_history_add() (every importer goes through it), a name is at most
 * PBENCH_HISTORY_NAME_MAX bytes (PostgreSQL's limit, tests/history_pg/), and a store that
 * already holds such strings (written here with sqlite3, as an older pbench did) gives
 * reports that are valid UTF-8 without control characters, a JSON that parses; the gate
 * finds a 17x step between values near DBL_MAX, says a change of negative values in absolute
 * terms, and prints a p below 1e-300 as such.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

static char dir[256];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-histtext-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(history_text, .init = setup, .fini = teardown);

static const char *path_in(const char *name)
{
	static char p[320];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static struct pbench_history_record rec(const char *name, const char *rev, double value)
{
	struct pbench_history_record r = PBENCH_HISTORY_RECORD_INIT;

	r.name = name;
	r.metric = "value";
	r.rev = rev;
	r.branch = "main";
	r.value = value;
	r.cpu_model = "Test CPU 9000";
	r.microcode = "0xdead";
	r.kernel = "k1";
	r.governor = "performance";
	r.smt = "off";
	r.isolation = "";
	r.virt = "bare metal";
	r.pbench_version = "0.1.0";
	return r;
}

static int64_t add(struct pbench_history *h, struct pbench_history_record r)
{
	return pbench_history_add(h, &r);
}

Test(history_text, bad_strings_refused_at_input)
{
	static const char *const bad[] = { "a\xff" "b", "x\x1b[31mred", "bidi\xe2\x80\xaeok",
					   "line\nforged", "c1 \xc2\x9b" "c1", "del\x7f" };
	char name[PBENCH_HISTORY_NAME_MAX + 2];
	struct pbench_history_record r;
	struct pbench_history *h;
	int64_t id;

	cr_assert_eq(pbench_history_open(&h, path_in("h.db"), NULL), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		id = add(h, rec(bad[i], "c1", 1));
		cr_assert_eq(id, -EINVAL, "name %zu: %lld", i, (long long)id);
		cr_assert_null(strchr(pbench_strerror((int)id), '\n'), "%s",
			       pbench_strerror((int)id));
		cr_assert_null(strchr(pbench_strerror((int)id), '\x1b'), "%s",
			       pbench_strerror((int)id));
		cr_assert_eq(add(h, rec("ok", bad[i], 1)), -EINVAL, "rev %zu", i);
		r = rec("ok", "c1", 1);
		r.branch = bad[i];
		cr_assert_eq(pbench_history_add(h, &r), -EINVAL, "branch %zu", i);
		r = rec("ok", "c1", 1);
		r.unit = bad[i];
		cr_assert_eq(pbench_history_add(h, &r), -EINVAL, "unit %zu", i);
		r = rec("ok", "c1", 1);
		r.metric = bad[i];
		cr_assert_eq(pbench_history_add(h, &r), -EINVAL, "metric %zu", i);
	}
	id = add(h, rec("a\xff" "b", "c1", 1));
	cr_assert_not_null(strstr(pbench_strerror((int)id), "'a\\xffb'"), "shown as analyze "
			   "shows it: %s", pbench_strerror((int)id));
	cr_assert_gt(add(h, rec("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "r\xc3\xa9v", 1)), 0);
	memset(name, 'n', sizeof(name));
	name[PBENCH_HISTORY_NAME_MAX + 1] = 0;
	id = add(h, rec(name, "c1", 1));
	cr_assert_eq(id, -EINVAL);
	cr_assert_not_null(strstr(pbench_strerror((int)id), "1025 bytes"), "%s",
			   pbench_strerror((int)id));
	name[PBENCH_HISTORY_NAME_MAX] = 0;
	cr_assert_gt(add(h, rec(name, "c1", 1)), 0, "a name of PBENCH_HISTORY_NAME_MAX bytes");
	cr_assert_eq(pbench_history_series_count(h), 2);
	pbench_history_close(h);
}

static void sql(const char *file, const char *q)
{
	sqlite3 *db;
	char *err = NULL;

	cr_assert_eq(sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, &err), SQLITE_OK, "%s: %s", q, err);
	sqlite3_close(db);
}

/* The text is UTF-8 with no control character but a line feed (and tabs), no bidi mark. */
static void plain(const char *what, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ?
			     3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		unsigned cp = len == 1 ? c : len ? c & (0x7f >> len) : 0;

		cr_assert_neq(len, 0, "%s: byte %zu (%#x) starts no UTF-8 character", what, i, c);
		cr_assert_leq(i + len, n, "%s: byte %zu: a cut character", what, i);
		for (size_t k = 1; k < len; k++) {
			cr_assert_eq((unsigned char)s[i + k] & 0xc0, 0x80, "%s: byte %zu", what,
				     i + k);
			cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
		}
		cr_assert(cp >= 0x20 || cp == '\n' || cp == '\t', "%s: control %#x at byte %zu",
			  what, cp, i);
		cr_assert(cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f) &&
			  !(cp >= 0x202a && cp <= 0x202e) && !(cp >= 0x2066 && cp <= 0x2069),
			  "%s: U+%04X at byte %zu", what, cp, i);
		i += len;
	}
}

/* A store written by a pbench that took anything: the strings put there with sqlite3. */
Test(history_text, a_store_holding_bad_strings_reports_them_shown)
{
	static const int fmts[] = { PBENCH_REPORT_FORMAT_TEXT, PBENCH_REPORT_FORMAT_JSON,
				    PBENCH_REPORT_FORMAT_MARKDOWN, PBENCH_REPORT_FORMAT_CSV,
				    PBENCH_REPORT_FORMAT_SVG };
	const char *file = path_in("old.db");
	struct pbench_history *h;
	char *buf;
	size_t n;
	FILE *f;

	cr_assert_eq(pbench_history_open(&h, file, NULL), 0);
	for (int i = 0; i < 12; i++)
		cr_assert_gt(add(h, rec("victim", "r1", i < 6 ? 10 : 20 + 0.01 * i)), 0);
	pbench_history_close(h);
	sql(file, "UPDATE series SET name = CAST(X'61FF621B5B33316D0A666F72676564E280AE' AS TEXT),"
		  " metric = CAST(X'76616CFE7C' AS TEXT);"
		  "UPDATE records SET rev = CAST(X'7265760A1B5D303B7469746C6507FF60' AS TEXT),"
		  " branch = CAST(X'6272C0AF' AS TEXT), unit = CAST(X'3C7C1B' AS TEXT);"
		  "UPDATE machines SET cpu_model = CAST(X'4350551BFF' AS TEXT);");
	cr_assert_eq(pbench_history_open(&h, file, NULL), 0);
	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		f = open_memstream(&buf, &n);
		cr_assert_eq(pbench_history_write(h, "a\xff" "b\x1b[31m\nforged\xe2\x80\xae", NULL,
						  fmts[k], f), 0, "format %d: %s", fmts[k],
			     pbench_strerror(-1));
		fclose(f);
		plain("report", buf, n);
		if (fmts[k] == PBENCH_REPORT_FORMAT_JSON) {
			json_error_t e;
			json_t *j = json_loadb(buf, n, 0, &e);

			cr_assert_not_null(j, "not JSON: %s", e.text);
			cr_assert_str_eq(json_string_value(json_object_get(j, "name")),
					 "a\\xffb\\x1b[31m\\x0aforged\\u202e");
			json_decref(j);
		}
		if (fmts[k] == PBENCH_REPORT_FORMAT_TEXT)
			cr_assert_not_null(strstr(buf, "series 'a\\xffb\\x1b[31m\\x0aforged\\u202e'"),
					   "%s", buf);
		if (fmts[k] == PBENCH_REPORT_FORMAT_MARKDOWN)	/* every table row 5 cells */
			for (char *l = strstr(buf, "| # |"); l; l = strchr(l + 1, '\n')) {
				int pipes = 0;

				for (char *p = l + (*l == '\n'); *p && *p != '\n'; p++)
					pipes += *p == '|' && p[-1] != '\\';
				cr_assert(pipes == 6 || pipes == 0, "a row of %d cells: %.80s",
					  pipes - 1, l);
			}
		free(buf);
	}
	f = open_memstream(&buf, &n);
	cr_assert_eq(pbench_history_write_list(h, f), 0);
	fclose(f);
	plain("list", buf, n);
	n = 0;
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		n++;
	cr_assert_eq(n, 2, "a header and one series, a line each: %s", buf);
	cr_assert_null(strstr(buf, "\nforged"), "a forged line: %s", buf);
	free(buf);
	f = open_memstream(&buf, &n);
	cr_assert_eq(pbench_history_write_openmetrics(h, f), 0);
	fclose(f);
	plain("openmetrics", buf, n);
	free(buf);
	pbench_history_close(h);
}

/* A series of nv values v then nw values w, a little noise on each, in a new store. */
static void series(struct pbench_history *h, const char *name, int nv, double v, int nw,
		   double w)
{
	for (int i = 0; i < nv + nw; i++) {
		double x = i < nv ? v : w;
		char rev[16];

		snprintf(rev, sizeof(rev), "c%d", i);
		cr_assert_gt(add(h, rec(name, rev, x + fabs(x) * 1e-3 * sin(i * 1.7))), 0);
	}
}

static void verdict(struct pbench_history *h, const char *name,
		    struct pbench_history_verdict *v)
{
	v->size = sizeof(*v);
	cr_assert_eq(pbench_history_check(h, name, NULL, 5, 0, v), 0, "%s", pbench_strerror(-1));
}

Test(history_text, gate_near_dbl_max)
{
	struct pbench_history_verdict v;
	struct pbench_history_change c = { .size = sizeof(c) };
	struct pbench_history_series s = { .size = sizeof(s) };
	struct pbench_history *h;

	cr_assert_eq(pbench_history_open(&h, path_in("big.db"), NULL), 0);
	series(h, "big", 30, 1e307, 10, 1.7e308);
	verdict(h, "big", &v);
	cr_assert(v.found && v.regression, "a 17x step: %s", v.line);
	cr_assert(fabs(v.rel - 16) < 0.1, "rel %g: %s", v.rel, v.line);
	cr_assert_eq(pbench_history_series_get(h, 0, &s), 0);
	cr_assert_eq(pbench_history_changes(h, s.id, NULL, NULL), 1);
	cr_assert_eq(pbench_history_change_get(h, 0, &c), 0);
	cr_assert(fabs(c.mean_before / 1e307 - 1) < 0.01 && fabs(c.mean_after / 1.7e308 - 1) < 0.01,
		  "means %g %g", c.mean_before, c.mean_after);
	/* and near the smallest normal numbers, where squares underflow */
	series(h, "tiny", 30, 1e-300, 10, 2e-300);
	verdict(h, "tiny", &v);
	cr_assert(v.found && v.regression && fabs(v.rel - 1) < 0.01, "%s", v.line);
	pbench_history_close(h);
}

Test(history_text, gate_on_negative_values)
{
	struct pbench_history_verdict v;
	struct pbench_history *h;

	cr_assert_eq(pbench_history_open(&h, path_in("neg.db"), NULL), 0);
	series(h, "down", 30, -1, 10, -2);
	verdict(h, "down", &v);
	cr_assert(v.found && !v.regression, "%s", v.line);
	cr_assert(isnan(v.rel), "no relative size against a negative level: %g", v.rel);
	cr_assert_null(strstr(v.line, "below the threshold"), "%s", v.line);
	cr_assert_null(strstr(v.line, "+100"), "%s", v.line);
	cr_assert_not_null(strstr(v.line, "from -1"), "%s", v.line);
	series(h, "up", 30, -2, 10, -1);
	verdict(h, "up", &v);
	cr_assert(v.found && v.regression, "a rise from a negative level: %s", v.line);
	cr_assert_not_null(strstr(v.line, "no relative size"), "%s", v.line);
	cr_assert_null(strstr(v.line, "-50"), "%s", v.line);
	pbench_history_close(h);
}

Test(history_text, p_below_1e_300_printed_as_such)
{
	struct pbench_history_verdict v;
	struct pbench_history *h;
	char *buf;
	size_t n;
	FILE *f;

	cr_assert_eq(pbench_history_open(&h, path_in("p.db"), NULL), 0);
	/* two constant levels of 1,000 points: the change test's bound on p underflows to 0
	 * (issue 37: levels of 30 and 10 points get a bound of ~4e-5, a gate's below) */
	for (int i = 0; i < 2000; i++)
		cr_assert_gt(add(h, rec("const", "c", i < 1000 ? 1 : 2)), 0);
	for (int i = 0; i < 40; i++)
		cr_assert_gt(add(h, rec("short", "c", i < 30 ? 1 : 2)), 0);
	verdict(h, "short", &v);
	cr_assert(v.found && v.regression, "%s", v.line);
	cr_assert_null(strstr(v.line, "(p 0)"), "%s", v.line);
	f = open_memstream(&buf, &n);
	cr_assert_eq(pbench_history_write_text(h, "const", NULL, f), 0);
	fclose(f);
	cr_assert_null(strstr(buf, "(p 0)"), "%s", buf);
	cr_assert_not_null(strstr(buf, "(p < 1e-300)"), "%s", buf);
	free(buf);
	pbench_history_close(h);
}

/* An error quotes a name or a document's bytes: still one line of text (pb_fail() shows what
 * it quotes as pbench analyze shows names). Found by tests/fuzz/fuzz_history.c. */
Test(history_text, an_import_error_is_one_line_of_text)
{
	static const char doc[] = "{\"results\": [\x1b[2J\n\xff\xe2\x80\xae]}";
	static const char csv[] = "1\n2\n\x1b[31mthree\xe2\x80\xae\n";
	struct pbench_history *h;
	const char *msg;
	int n;

	cr_assert_eq(pbench_history_open(&h, path_in("e.db"), NULL), 0);
	n = pbench_history_import(h, "x\nforged \x1b]0;t\x07\xff", doc, sizeof(doc) - 1, NULL);
	cr_assert_eq(n, -EINVAL, "%d", n);
	msg = pbench_strerror(n);
	cr_assert_null(strchr(msg, '\n'), "%s", msg);
	plain("the error", msg, strlen(msg));
	cr_assert_not_null(strstr(msg, "x\\x0aforged \\x1b]0;t\\x07\\xff"), "%s", msg);
	n = pbench_history_import(h, "v", csv, sizeof(csv) - 1, NULL);
	cr_assert_eq(n, -EINVAL, "%d", n);
	plain("the error", pbench_strerror(n), strlen(pbench_strerror(n)));
	pbench_history_close(h);
}
