/* SPDX-License-Identifier: MIT */
/*
 * The runs plot is well-formed XML (tags balanced, text escaped), draws one dot per run, gives
 * each outlier a <title> with its cause, and reports bad input and write errors.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *plot_to_string(const struct pbench_plot_series *s, int n, const char *title,
			    int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	const struct pbench_plot_series *p[8];

	cr_assert_not_null(f);
	cr_assert_leq(n, 8);
	for (int i = 0; i < n; i++)
		p[i] = &s[i];
	*err = pbench_plot_runs_svg(p, n, f, title);
	fclose(f);
	return buf;
}

/* Balanced tags by a stack, every '&' an entity, no raw '<' in text or attributes. */
static void assert_well_formed(const char *x)
{
	char stack[64][32];
	int depth = 0, roots = 0;

	for (const char *p = x; *p; p++) {
		if (*p == '&') {
			cr_assert(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) ||
				  !strncmp(p, "&gt;", 4) || !strncmp(p, "&quot;", 6),
				  "a bare '&' at '%.20s'", p);
			continue;
		}
		if (*p != '<')
			continue;
		const char *end = strchr(p, '>');

		cr_assert_not_null(end, "unterminated tag at '%.20s'", p);
		if (p[1] == '?' || p[1] == '!') {
			p = end;
			continue;
		}
		cr_assert_null(memchr(p + 1, '<', (size_t)(end - p - 1)), "'<' inside a tag");
		if (p[1] == '/') {
			size_t n = strcspn(p + 2, " >");

			cr_assert(depth > 0, "closing tag with nothing open");
			depth--;
			cr_assert(strlen(stack[depth]) == n && !strncmp(stack[depth], p + 2, n),
				  "</%.*s> closes <%s>", (int)n, p + 2, stack[depth]);
		} else if (end[-1] != '/') {
			size_t n = strcspn(p + 1, " />");

			cr_assert(depth < 64 && n < 32);
			roots += depth == 0;
			memcpy(stack[depth], p + 1, n);
			stack[depth++][n] = 0;
		}
		p = end;
	}
	cr_assert_eq(depth, 0, "%d tags left open", depth);
	cr_assert_eq(roots, 1, "one root element");
	cr_assert(strstr(x, "<svg ") && !strstr(x, "<script"));
}

/* The circles inside <g id="runs-IDX" ...> ... </g>. */
static int dots(const char *x, int idx)
{
	char id[32];
	const char *g, *end;
	int n = 0;

	snprintf(id, sizeof(id), "<g id=\"runs-%d\"", idx);
	g = strstr(x, id);
	cr_assert_not_null(g, "no %s", id);
	end = strstr(g, "</g>");
	for (const char *p = g; (p = strstr(p, "<circle ")) && p < end; p++)
		n++;
	return n;
}

Test(plot, runs_outliers_and_escaping)
{
	static const double a[] = { 27.8e6, 27.9e6, 48.1e6, 27.7e6, 28.0e6, 27.85e6 };
	static const unsigned char aout[] = { 0, 0, 1, 0, 0, 0 };
	static const char *const acause[] = { NULL, NULL, "+20 ms: preempted <3 times> & more",
					      NULL, NULL, NULL };
	static const double b[] = { 27.60e6, 27.61e6, 27.60e6, 27.95e6 };
	static const unsigned char bout[] = { 0, 0, 0, 1 };
	static const char *const bcause[] = { "", "", "", "+350 us: 7 timer interrupts" };
	const struct pbench_plot_series s[] = {
		{ .size = sizeof(s[0]), .name = "unprepared", .color = "#d95f02", .ns = a,
		  .n = ARRAY_SIZE(a), .outlier = aout, .cause = acause },
		{ .size = sizeof(s[0]), .name = "prepared \"CPU 3\"", .ns = b,
		  .n = ARRAY_SIZE(b), .outlier = bout, .cause = bcause },
	};
	int err;
	char *x = plot_to_string(s, 2, "a & b <plot>", &err);

	cr_assert_eq(err, 0);
	assert_well_formed(x);
	cr_assert_eq(dots(x, 0), 6);
	cr_assert_eq(dots(x, 1), 4);
	cr_assert_not_null(strstr(x, "<title>run 3: 48.10 ms: +20 ms: preempted &lt;3 times&gt; "
				     "&amp; more</title>"), "%s", x);
	cr_assert_not_null(strstr(x, "<title>run 4: 27.95 ms: +350 us: 7 timer interrupts"
				     "</title>"));
	cr_assert_not_null(strstr(x, "a &amp; b &lt;plot&gt;"));
	cr_assert_not_null(strstr(x, "prepared &quot;CPU 3&quot;"));
	cr_assert_null(strstr(x, "preempted <3"));
	cr_assert_not_null(strstr(x, "time per run (ms)"));
	cr_assert_not_null(strstr(x, "font-family=\"sans-serif\""));
	cr_assert_not_null(strstr(x, ">outlier (hover: its cause)</text>"));
	free(x);
}

/* One series, no outlier arrays, all runs the same time: still a plot with a usable axis. */
Test(plot, single_flat_series)
{
	static const double a[] = { 1500, 1500, 1500 };
	struct pbench_plot_series s = PBENCH_PLOT_SERIES_INIT;
	int err;
	char *x;

	s.ns = a;
	s.n = 3;
	x = plot_to_string(&s, 1, NULL, &err);
	cr_assert_eq(err, 0);
	assert_well_formed(x);
	cr_assert_eq(dots(x, 0), 3);
	cr_assert_not_null(strstr(x, "series 1"));
	cr_assert_not_null(strstr(x, "time per run (us)"));
	cr_assert_null(strstr(x, "nan"));
	cr_assert_null(strstr(x, "inf"));
	cr_assert_null(strstr(x, ">outlier"), "a legend entry for a mark the plot lacks");
	free(x);
}

/* The legend lists the outlier mark iff some run of some series is one: flags all 0 in both
 * series, then one run of the second series flagged. */
Test(plot, outlier_legend_iff_outliers)
{
	static const double a[] = { 10e6, 11e6, 10.5e6 }, b[] = { 9e6, 9.1e6, 30e6 };
	unsigned char aout[3] = { 0 }, bout[3] = { 0 };
	struct pbench_plot_series s[] = {
		{ .size = sizeof(s[0]), .name = "unprepared", .ns = a, .n = 3, .outlier = aout },
		{ .size = sizeof(s[0]), .name = "prepared", .ns = b, .n = 3, .outlier = bout },
	};
	int err;
	char *x = plot_to_string(s, 2, "t", &err);

	cr_assert_eq(err, 0);
	cr_assert_null(strstr(x, ">outlier"), "no run is an outlier, yet the legend has one");
	cr_assert_null(strstr(x, "r=\"5.5\""), "no ringed dot either");
	free(x);
	bout[2] = 1;
	x = plot_to_string(s, 2, "t", &err);
	cr_assert_eq(err, 0);
	assert_well_formed(x);
	cr_assert_not_null(strstr(x, ">outlier (hover: its cause)</text>"));
	cr_assert_not_null(strstr(x, "<title>run 3: 30.00 ms: outlier</title>"), "%s", x);
	free(x);
}

/* A title of a long command line stays on the page: its text at its font size (0.62 em a
 * character, bold) fits 960 px, smaller than the 17 px of a short one, and it keeps its start,
 * escaped, cut with "..." where even 11 px would not fit. */
Test(plot, long_title_fits_the_page)
{
	static const double a[] = { 1e6, 1.1e6 };
	const struct pbench_plot_series s = { .size = sizeof(s), .ns = a, .n = 2 };
	const size_t lens[] = { 20, 90, 120, 400 };

	for (size_t k = 0; k < ARRAY_SIZE(lens); k++) {
		char title[512], *x, *t, *end;
		int err, size;

		memset(title, 'w', lens[k]);
		memcpy(title, "pbench stat: a&b ", 17);
		title[lens[k]] = 0;
		x = plot_to_string(&s, 1, title, &err);
		cr_assert_eq(err, 0);
		assert_well_formed(x);
		t = strstr(x, "<text x=\"480\" y=\"26\"");
		cr_assert_not_null(t);
		cr_assert_eq(sscanf(strstr(t, "font-size="), "font-size=\"%d\"", &size), 1);
		t = strchr(t, '>') + 1;
		end = strstr(t, "</text>");
		cr_assert(!strncmp(t, "pbench stat: a&amp;b www", 24), "%.30s", t);
		/* "&amp;" is one character on the page */
		cr_assert_leq((double)(end - t - 4) * 0.62 * size, 960 - 20,
			      "%zu characters at %d px", lens[k], size);
		cr_assert(lens[k] > 60 || size == 17, "a short title at %d px", size);
		cr_assert_geq(size, 11);
		cr_assert_eq(!strncmp(end - 3, "...", 3), lens[k] > 140, "%zu characters: '%.*s'",
			     lens[k], (int)(end - t), t);
		free(x);
	}
}

/* Series of a newer, larger struct (a program built against a later pbench.h) side by side with
 * one of this size: each is read by its own size, not by an array's stride. */
Test(plot, series_of_other_sizes)
{
	static const double a[] = { 1e6, 2e6 }, b[] = { 3e6, 4e6, 5e6 };
	struct { struct pbench_plot_series s; double more[4]; } newer = {
		.s = { .size = sizeof(newer), .name = "newer", .ns = a, .n = 2 },
		.more = { -1, -1, -1, -1 } };
	const struct pbench_plot_series now = { .size = sizeof(now), .name = "now", .ns = b, .n = 3 };
	const struct pbench_plot_series *p[2] = { &newer.s, &now };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pbench_plot_runs_svg(p, 2, f, "t"), 0);
	fclose(f);
	cr_assert_not_null(strstr(buf, "now (3 runs)"), "the second series read whole");
	cr_assert_not_null(strstr(buf, "newer (2 runs)"));
	free(buf);
}

Test(plot, bad_input)
{
	static const double ok[] = { 1, 2 }, bad[] = { 1, NAN };
	struct pbench_plot_series s = { .size = sizeof(s), .ns = ok, .n = 2 };
	const struct pbench_plot_series *sp = &s;
	static const struct {
		size_t size, n;
		const double *ns;
		int nseries;
		const char *why;
	} rows[] = {
		{ 0, 2, ok, 1, "size 0" },
		{ sizeof(struct pbench_plot_series), 2, NULL, 1, "no times" },
		{ sizeof(struct pbench_plot_series), 2, bad, 1, "a NaN time" },
		{ sizeof(struct pbench_plot_series), 0, ok, 1, "no runs at all" },
		{ sizeof(struct pbench_plot_series), 2, ok, 0, "no series" },
		{ sizeof(struct pbench_plot_series), 2, ok, 9, "too many series" },
	};
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct pbench_plot_series *many[9];

		s.size = rows[i].size;
		s.n = rows[i].n;
		s.ns = rows[i].ns;
		for (int k = 0; k < 9; k++)
			many[k] = &s;
		cr_assert_eq(pbench_plot_runs_svg(many, rows[i].nseries, f, "t"), -EINVAL, "%s",
			     rows[i].why);
	}
	s = (struct pbench_plot_series){ .size = sizeof(s), .ns = ok, .n = 2 };
	cr_assert_eq(pbench_plot_runs_svg(&sp, 1, NULL, "t"), -EINVAL);
	cr_assert_eq(pbench_plot_runs_svg(NULL, 1, f, "t"), -EINVAL);
	fclose(f);
}

Test(plot, write_error)
{
	static const double a[] = { 1e6, 2e6 };
	const struct pbench_plot_series s = { .size = sizeof(s), .ns = a, .n = 2 }, *sp = &s;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		cr_skip_test("no /dev/full here");
	cr_assert_eq(pbench_plot_runs_svg(&sp, 1, f, "t"), -ENOSPC);
	fclose(f);
}
