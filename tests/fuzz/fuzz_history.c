/* SPDX-License-Identifier: MIT */
/*
 * The history's importers and everything that reads their records back (issue 34): the input
 * is a document given to pbench_history_import() (pbench stat's or compare's JSON, hyperfine's,
 * Google Benchmark's, CSV or one value a line: the importer tells them apart) in a store in
 * memory (SQLite's ":memory:"; a file in a directory of this process's own where that is
 * refused), three times: under a plain name, under a name of the input's first bytes (what
 * pbench_history_add() refuses: not UTF-8, control characters), and with --cpu-time and a
 * commit. Then every series through every writer (text, JSON, Markdown, CSV, the SVG plot),
 * the list, the OpenMetrics export, the gate and the change points. It must end in an error
 * of one line, or give reports that hold what their formats promise: a JSON that parses,
 * text, Markdown and SVG in UTF-8 with no control character but the line feed and the tab
 * (nothing can forge a line or restyle a terminal), an OpenMetrics export in UTF-8 that ends
 * with "# EOF", a gate's verdict in one such line; and leak nothing.
 */
#include "fuzz.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <unistd.h>

#include "pbench.h"

/* s[0..n) is UTF-8; controls: and holds no control character but '\n' and '\t'. */
static void utf8(const char *what, const char *s, size_t n, int controls)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ?
			     3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		unsigned cp = len == 1 ? c : len ? c & (0x7fu >> len) : 0;
		static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };

		fuzz_assert(len && i + len <= n, "%s: byte %zu (%#x) is not UTF-8", what, i, c);
		for (size_t k = 1; k < len; k++) {
			fuzz_assert(((unsigned char)s[i + k] & 0xc0) == 0x80, "%s: byte %zu", what,
				    i + k);
			cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
		}
		fuzz_assert(cp >= least[len] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff),
			    "%s: U+%X at byte %zu", what, cp, i);
		fuzz_assert(!controls || cp >= 0x20 || cp == '\n' || cp == '\t',
			    "%s: control %#x at byte %zu", what, cp, i);
		fuzz_assert(!controls || (cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f) &&
					  !(cp >= 0x202a && cp <= 0x202e) &&
					  !(cp >= 0x2066 && cp <= 0x2069)),
			    "%s: U+%04X at byte %zu", what, cp, i);
		i += len;
	}
}

static void one_line(const char *what, const char *s)
{
	fuzz_assert(s && *s && !strchr(s, '\n'), "%s: not one line: %s", what, s ? s : "NULL");
	utf8(what, s, strlen(s), 1);
}

/* The error of rc: negative, and said in one line. */
static void an_error(const char *what, int rc)
{
	fuzz_assert(rc < 0, "%s: %d", what, rc);
	one_line(what, pbench_strerror(rc));
}

typedef int (*writer_fn)(void *arg, FILE *f);

struct series_arg {
	struct pbench_history *h;
	const char *name;
	int fmt;
};

static int write_series(void *arg, FILE *f)
{
	struct series_arg *a = arg;

	return pbench_history_write(a->h, a->name, NULL, a->fmt, f);
}

static int write_list(void *arg, FILE *f)
{
	return pbench_history_write_list(arg, f);
}

static int write_om(void *arg, FILE *f)
{
	return pbench_history_write_openmetrics(arg, f);
}

/* What write(arg, f) writes, into *len bytes (malloc'd); its return in *rc. */
static char *written(writer_fn write, void *arg, size_t *len, int *rc)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	fuzz_assert(f, "open_memstream: out of memory");
	*rc = write(arg, f);
	fclose(f);
	return buf;
}

static void reports(struct pbench_history *h, const char *name)
{
	static const int fmts[] = { PBENCH_REPORT_FORMAT_TEXT, PBENCH_REPORT_FORMAT_JSON,
				    PBENCH_REPORT_FORMAT_MARKDOWN, PBENCH_REPORT_FORMAT_CSV,
				    PBENCH_REPORT_FORMAT_SVG };
	struct pbench_history_verdict v = { .size = sizeof(v) };
	struct series_arg a = { h, name, 0 };
	size_t len;
	char *out;
	int rc;

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		a.fmt = fmts[k];
		out = written(write_series, &a, &len, &rc);
		if (rc) {
			an_error("a report", rc);
		} else if (fmts[k] == PBENCH_REPORT_FORMAT_JSON) {
			json_error_t e;
			json_t *j = json_loadb(out, len, 0, &e);

			fuzz_assert(j, "the JSON does not parse: %s", e.text);
			fuzz_assert(json_is_array(json_object_get(j, "points")), "no points");
			json_decref(j);
		} else {
			utf8("a report", out, len, fmts[k] != PBENCH_REPORT_FORMAT_CSV);
		}
		free(out);
	}
	rc = pbench_history_check(h, name, NULL, 0, 0, &v);
	if (rc) {
		an_error("the gate", rc);
	} else {
		one_line("the gate's line", v.line);
		fuzz_assert(!v.regression || v.found, "a regression not found");
		fuzz_assert(v.found || isnan(v.rel), "rel %g without a change", v.rel);
	}
}

static struct pbench_history *store(void)
{
	static char dir[64], path[96];
	struct pbench_history *h = NULL;
	int rc = pbench_history_open(&h, ":memory:", NULL);

	if (!rc)
		return h;
	if (!*dir) {
		snprintf(dir, sizeof(dir), "/tmp/pbench-fuzz-history-XXXXXX");
		fuzz_assert(mkdtemp(dir), "mkdtemp");
		snprintf(path, sizeof(path), "%s/h.db", dir);
	}
	unlink(path);
	rc = pbench_history_open(&h, path, NULL);
	fuzz_assert(rc == 0, "no store: %s", pbench_strerror(rc));
	return h;
}

static void import(struct pbench_history *h, const char *name, const uint8_t *data,
		   size_t size, int cpu_time)
{
	struct pbench_history_import_opts io = PBENCH_HISTORY_IMPORT_OPTS_INIT;
	int n;

	io.rev = cpu_time ? "0123456789abcdef" : "";	/* "": not git's HEAD, no child */
	io.cpu_time = cpu_time;
	io.time_ns = cpu_time ? 1700000000000000000LL : 0;
	n = pbench_history_import(h, name, (const char *)data, size, &io);
	if (n <= 0)
		an_error("the import", n ? n : -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pbench_history *h = store();
	char name[25];
	size_t len;
	char *out;
	int n, rc;

	snprintf(name, sizeof(name), "%.*s", (int)(size < 24 ? size : 24), (const char *)data);
	import(h, "fuzz", data, size, 0);
	if (*name)
		import(h, name, data, size, 0);
	import(h, "cpu", data, size, 1);
	n = pbench_history_series_count(h);
	fuzz_assert(n >= 0, "series count %d", n);
	out = written(write_list, h, &len, &rc);
	fuzz_assert(rc == 0, "the list: %s", pbench_strerror(rc));
	utf8("the list", out, len, 1);
	free(out);
	out = written(write_om, h, &len, &rc);
	fuzz_assert(rc == 0, "OpenMetrics: %s", pbench_strerror(rc));
	utf8("OpenMetrics", out, len, 0);
	fuzz_assert(len >= 6 && !memcmp(out + len - 6, "# EOF\n", 6), "OpenMetrics' end");
	free(out);
	for (int i = 0; i < n && i < 8; i++) {
		struct pbench_history_series s = { .size = sizeof(s) };
		char *sname;
		int k;

		fuzz_assert(pbench_history_series_get(h, i, &s) == 0, "series %d", i);
		k = pbench_history_changes(h, s.id, NULL, NULL);
		fuzz_assert(k >= 0, "changes: %s", pbench_strerror(k));
		for (int j = 0; j < k; j++) {
			struct pbench_history_change c = { .size = sizeof(c) };

			fuzz_assert(pbench_history_change_get(h, j, &c) == 0, "change %d", j);
			fuzz_assert(c.index > 0 && c.p >= 0 && c.p <= 1, "change %d: index %d p %g",
				    j, c.index, c.p);
		}
		sname = strdup(s.name);	/* the series' strings go with the next read */
		fuzz_assert(sname, "out of memory");
		reports(h, sname);
		free(sname);
	}
	pbench_history_close(h);
	return 0;
}
