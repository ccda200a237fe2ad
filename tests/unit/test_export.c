/* SPDX-License-Identifier: MIT */
/*
 * The profile's exports (lib/src/profile/export.h, issue 36; not exported yet, so whitebox):
 * hand-made stacks drawn as a flame graph and written as pprof's profile.proto. The SVG: it
 * parses (xmllint --noout, where installed), each frame's rectangle has its name and a width
 * proportional to its value (within the 0.01 px the file rounds to), the tooltip says the
 * DSO, the value and share, names are escaped (a C++ template), narrow frames are left out
 * with their value kept in the parent, a cut stack is under its own frame; differential: only
 * significant changes coloured, red slower and blue faster. pprof: the file gunzips (zlib) and
 * decodes (protobuf-c's generated unpack) to the same stacks (inline frames as Lines of one
 * Location, the innermost first), the same totals and self values per function, mappings with
 * build-ids (the program's first), and where Go is installed `go tool pprof -top` reads the
 * same flat and cum time per function. Random stacks (deep, wide, UTF-8 and invalid bytes) for
 * no crash, under ASan in make test's second build: the SVG still parses, pprof's strings are
 * UTF-8.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"
#include "profile/export.h"

#ifdef PBENCH_HAVE_PROTOBUF_C
#include <zlib.h>
#include "pprof.pb-c.h"
#endif

static const struct pb_xdso prog = { "/usr/bin/prog", "abcd1234", 0x400000, 0x500000, 0 };
static const struct pb_xdso libc = { "/lib/x86_64-linux-gnu/libc.so.6", "ef015678", 0, 0, 0 };
static const struct pb_xdso kern = { "[kernel.kallsyms]", NULL, 0, 0, 0 };

#define F(name, dso, file, line, flags, addr) { name, dso, file, line, flags, addr, NAN, 0 }
static struct pb_xframe f_main = F("main", &prog, "main.c", 10, 0, 0x401000);
static struct pb_xframe f_alpha = F("alpha", &prog, "a.c", 5, 0, 0x401100);
static struct pb_xframe f_helper = F("helper", &prog, "a.h", 7, PB_XF_INLINED, 0x401110);
static struct pb_xframe f_beta = F("beta", &prog, "b.c", 3, 0, 0x401200);
static struct pb_xframe f_memcpy = F("memcpy", &libc, NULL, 0, 0, 0x1234);
static struct pb_xframe f_tmpl = F("std::vector<int>::push_back<A&B>", &prog, NULL, 0, 0, 0x401300);
static struct pb_xframe f_sys = F("do_syscall_64", &kern, NULL, 0, PB_XF_KERNEL, 0);
static struct pb_xframe f_unk = F(NULL, &libc, NULL, 0, 0, 0x9999);
static struct pb_xframe f_cutroot = F("worker", &prog, NULL, 0, PB_XF_CUT, 0x401400);

static const struct pb_xframe *const s1[] = { &f_main, &f_alpha };
static const struct pb_xframe *const s2[] = { &f_main, &f_alpha, &f_helper };
static const struct pb_xframe *const s3[] = { &f_main, &f_beta, &f_memcpy };
static const struct pb_xframe *const s4[] = { &f_main, &f_tmpl };
static const struct pb_xframe *const s5[] = { &f_main, &f_beta, &f_sys };
static const struct pb_xframe *const s6[] = { &f_main, &f_beta, &f_unk };
static const struct pb_xframe *const s7[] = { &f_cutroot };

#define S(fr, v) { fr, (int)ARRAY_SIZE(fr), v, (v) / 250000.0, NAN, 0 }
/* 1,000,000 ns in all: main 900,000 (alpha 600,000, helper 100,000 of it; beta 250,000 of
 * which memcpy 150,000, the kernel 50,000, unknown 50,000; the template 50,000), and a cut
 * stack's worker 100,000. */
static struct pb_xstack stacks[] = {
	S(s1, 500000), S(s2, 100000), S(s3, 150000), S(s4, 50000), S(s5, 50000), S(s6, 50000),
	S(s7, 100000),
};

/* The SVG of stacks into a string (malloc'd). */
static char *svg_of(const struct pb_xstack *st, size_t n, const struct pb_flame_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pb_flame_write_svg(f, st, n, o), 0, "%s", pbench_strerror(-1));
	fclose(f);
	return buf;
}

/* The <g> of the frame whose tooltip starts with name (escaped as the file has it): its
 * rect's width and fill. 0 when there is none. */
static int frame_of(const char *svg, const char *name, double *width, char *fill)
{
	char key[256];
	const char *p, *r;

	snprintf(key, sizeof(key), "<title>%s", name);
	for (p = strstr(svg, key); p; p = strstr(p + 1, key)) {
		char c = p[strlen(key)];

		if (c == '\n' || c == ' ' || c == '<')	/* the whole name, not a prefix */
			break;
	}
	if (!p || !(r = strstr(p, "<rect ")))
		return 0;
	cr_assert_eq(sscanf(strstr(r, "width=\"") + 7, "%lf", width), 1);
	if (fill)
		cr_assert_eq(sscanf(strstr(r, "fill=\"") + 6, "%15[^\"]", fill), 1);
	return 1;
}

static int have(const char *cmd)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "command -v %s >/dev/null 2>&1", cmd);
	return system(buf) == 0;
}

/* xmllint --noout on svg: 0 parsed, -1 no xmllint, else its status. */
static int xml_check(const char *svg)
{
	char path[] = "/tmp/pbench-test-export-XXXXXX", cmd[128];
	int fd, rc;

	if (!have("xmllint"))
		return -1;
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	rc = system(cmd);
	unlink(path);
	return rc;
}

Test(export, svg_widths_names_tooltips)
{
	struct pb_flame_opts o = { .title = "prog <x> & y", .subtitle = "10 runs, 4,000 samples" };
	char *svg = svg_of(stacks, ARRAY_SIZE(stacks), &o);
	static const struct { const char *name; double value; } want[] = {
		{ "all", 1e6 }, { "main", 9e5 }, { "alpha", 6e5 }, { "helper", 1e5 },
		{ "beta", 2.5e5 }, { "memcpy", 1.5e5 }, { "do_syscall_64", 5e4 },
		{ "[unknown]", 5e4 }, { "std::vector&lt;int&gt;::push_back&lt;A&amp;B&gt;", 5e4 },
		{ "[stack cut short]", 1e5 }, { "worker", 1e5 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		double w;

		cr_assert(frame_of(svg, want[i].name, &w, NULL), "no frame %s", want[i].name);
		cr_expect(fabs(w - want[i].value / 1e6 * 1180) <= 0.01, "%s: width %g, want %g",
			  want[i].name, w, want[i].value / 1e6 * 1180);
	}
	cr_expect_null(strstr(svg, "vector<int>"), "a name not escaped");
	cr_expect_not_null(strstr(svg, "prog &lt;x&gt; &amp; y"), "the title");
	cr_expect_not_null(strstr(svg, "10 runs, 4,000 samples"), "the subtitle");
	cr_expect_not_null(strstr(svg, "<title>alpha\nin /usr/bin/prog\na.c:5\n"), "alpha's tooltip");
	cr_expect_not_null(strstr(svg, "(60%), self "), "alpha's share and self time");
	cr_expect_not_null(strstr(svg, "<title>helper (inlined)\n"), "an inline frame said");
	cr_expect_not_null(strstr(svg, "<title>do_syscall_64 [kernel]\nin [kernel.kallsyms]"));
	cr_expect_not_null(strstr(svg, ">alpha</text>"), "a wide frame's name written in it");
	cr_expect_not_null(strstr(svg, "(25%)\n1.00 samples"), "beta: 0.6 + 0.2 + 0.2 samples");
	cr_expect_not_null(strstr(svg, ">program</text>"), "the legend");
	{	/* colours: warm for the program, green for libraries, blue for the kernel; the
		 * same name the same colour in another graph */
		unsigned r, g, b;
		char fill[16], again[16];
		double w;
		char *other = svg_of(stacks, 2, NULL);

		cr_assert(frame_of(svg, "alpha", &w, fill) && sscanf(fill, "#%2x%2x%2x", &r, &g, &b) == 3);
		cr_expect(r >= 200 && b < 60, "alpha, the program's: %s", fill);
		cr_assert(frame_of(other, "alpha", &w, again));
		cr_expect_str_eq(fill, again, "alpha's colour moved");
		free(other);
		cr_assert(frame_of(svg, "memcpy", &w, fill) && sscanf(fill, "#%2x%2x%2x", &r, &g, &b) == 3);
		cr_expect(g > r && g > b, "memcpy, a library's: %s", fill);
		cr_assert(frame_of(svg, "do_syscall_64", &w, fill) &&
			  sscanf(fill, "#%2x%2x%2x", &r, &g, &b) == 3);
		cr_expect(b > r && b > g, "the kernel's: %s", fill);
	}
	if (xml_check(svg) == -1)
		cr_log_info("xmllint is not installed: the SVG is not parsed");
	else
		cr_expect_eq(xml_check(svg), 0, "xmllint --noout failed");
	free(svg);
}

Test(export, svg_narrow_frames_dropped_but_counted)
{
	static struct pb_xframe tiny = F("tiny_fn", &prog, NULL, 0, 0, 0);
	static const struct pb_xframe *const st[] = { &f_main, &tiny };
	struct pb_xstack two[] = { S(s1, 1e9), S(st, 100) };
	struct pb_flame_opts o = { .min_px = 1 };
	char *svg = svg_of(two, 2, &o);
	double w;

	cr_expect_null(strstr(svg, "tiny_fn"), "a frame of 1.2e-4 px drawn");
	cr_assert(frame_of(svg, "main", &w, NULL));
	cr_expect(fabs(w - 1180) < 0.01, "main keeps tiny_fn's value: width %g", w);
	cr_expect_not_null(strstr(svg, "1 frames narrower than 1 px not drawn"));
	free(svg);
}

Test(export, svg_differential_colours_only_significant)
{
	struct pb_flame_opts o = { .differential = 1 };
	char *svg, fill[16];
	double w;

	f_beta.change = 1.33, f_beta.significant = 1;
	f_alpha.change = 0.8, f_alpha.significant = 1;
	f_memcpy.change = 1.5, f_memcpy.significant = 0;
	stacks[5].change = 0.5, stacks[5].significant = 1;	/* the unknown leaf's own */
	svg = svg_of(stacks, ARRAY_SIZE(stacks), &o);
	f_beta.change = f_alpha.change = f_memcpy.change = stacks[5].change = NAN;
	cr_assert(frame_of(svg, "beta", &w, fill));
	cr_expect(!strncmp(fill, "#ff", 3) && strcmp(fill, "#ffffff"), "beta (1.33x) %s", fill);
	cr_expect_not_null(strstr(svg, "change: B/A 1.33, 1.33x slower, significant"));
	cr_assert(frame_of(svg, "alpha", &w, fill));
	cr_expect(strlen(fill) == 7 && !strcmp(fill + 5, "ff") && strncmp(fill, "#ff", 3),
		  "alpha (0.8x) %s", fill);
	cr_assert(frame_of(svg, "memcpy", &w, fill));
	cr_expect_str_eq(fill, "#d0d0d0", "memcpy, not significant");
	cr_expect_not_null(strstr(svg, "1.50x slower, not significant"));
	cr_assert(frame_of(svg, "main", &w, fill));
	cr_expect_str_eq(fill, "#d0d0d0", "main, not tested");
	cr_assert(frame_of(svg, "[unknown]", &w, fill));
	cr_expect(strlen(fill) == 7 && !strcmp(fill + 5, "ff"), "the stack's own change %s", fill);
	cr_expect_not_null(strstr(svg, "B slower (significant)"), "the legend");
	cr_expect_not_null(strstr(svg, "widths: B's"), "the legend says the widths are B's");
	free(svg);
}

Test(export, refusals)
{
	static const struct pb_xframe *const nul[] = { &f_main, NULL };
	struct pb_xstack bad[] = { S(s1, NAN) }, badf[] = { { nul, 2, 1, 1, NAN, 0 } };
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	cr_expect_eq(pb_flame_write_svg(f, bad, 1, NULL), -EINVAL);
	cr_expect_not_null(strstr(pbench_strerror(-EINVAL), "stacks[0].value is nan"));
	cr_expect_eq(pb_flame_write_svg(f, badf, 1, NULL), -EINVAL);
#ifdef PBENCH_HAVE_PROTOBUF_C
	cr_expect_eq(pb_pprof_write(f, badf, 1, NULL), -EINVAL);
#endif
	cr_expect_eq(pb_flame_write_svg(f, NULL, 0, NULL), 0, "nothing to draw is a graph");
	fclose(f);
}

#ifdef PBENCH_HAVE_PROTOBUF_C
/* The pprof file of stacks, gunzipped and unpacked. */
static Perftools__Profiles__Profile *pprof_of(const struct pb_xstack *st, size_t n,
					      const struct pb_pprof_opts *o)
{
	char *gz = NULL;
	size_t gzlen = 0, cap = 1 << 20;
	FILE *f = open_memstream(&gz, &gzlen);
	unsigned char *raw = malloc(cap);
	z_stream z = { 0 };
	Perftools__Profiles__Profile *pr;

	cr_assert_not_null(f);
	cr_assert_eq(pb_pprof_write(f, st, n, o), 0, "%s", pbench_strerror(-1));
	fclose(f);
	cr_assert(gzlen > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b,
		  "not gzip");
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)gzlen;
	for (;;) {
		int zr;

		z.next_out = raw + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			break;
		cr_assert(zr == Z_OK || zr == Z_BUF_ERROR, "inflate: %d", zr);
		raw = realloc(raw, cap *= 2);
	}
	pr = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	free(raw);
	free(gz);
	cr_assert_not_null(pr, "the profile does not decode");
	return pr;
}

static const char *str(const Perftools__Profiles__Profile *pr, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < pr->n_string_table, "string %lld", (long long)i);
	return pr->string_table[i];
}

static const Perftools__Profiles__Location *loc(const Perftools__Profiles__Profile *pr,
						 uint64_t id)
{
	cr_assert(id >= 1 && id <= pr->n_location);
	cr_assert_eq(pr->location[id - 1]->id, id);
	return pr->location[id - 1];
}

static const char *fname(const Perftools__Profiles__Profile *pr, uint64_t id)
{
	cr_assert(id >= 1 && id <= pr->n_function);
	cr_assert_eq(pr->function[id - 1]->id, id);
	return str(pr, pr->function[id - 1]->name);
}

/* Sample i's frames root first, as "a;b;c" (a Location's Lines in reverse: the innermost is
 * first in pprof); a Location with no Line is "?". */
static void sample_path(const Perftools__Profiles__Profile *pr, size_t i, char *buf, size_t len)
{
	const Perftools__Profiles__Sample *s = pr->sample[i];

	buf[0] = '\0';
	for (size_t k = s->n_location_id; k-- > 0;) {
		const Perftools__Profiles__Location *l = loc(pr, s->location_id[k]);

		if (!l->n_line)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s?", buf[0] ? ";" : "");
		for (size_t j = l->n_line; j-- > 0;)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ";" : "",
				 fname(pr, l->line[j]->function_id));
	}
}

Test(export, pprof_decodes_to_the_same_stacks)
{
	static const char *const comments[] = { "pbench stat --profile -- prog", NULL };
	struct pb_pprof_opts o = { .period = 250000, .time_ns = 1800000000000000000,
				   .duration_ns = 2000000000, .comments = comments };
	Perftools__Profiles__Profile *pr = pprof_of(stacks, ARRAY_SIZE(stacks), &o);
	static const char *const paths[] = {
		"main;alpha", "main;alpha;helper", "main;beta;memcpy",
		"main;std::vector<int>::push_back<A&B>", "main;beta;do_syscall_64",
		"main;beta;?", "[stack cut short];worker",
	};
	char buf[512];

	cr_assert_str_eq(str(pr, 0), "");
	cr_assert_eq(pr->n_sample_type, 2);
	cr_expect_str_eq(str(pr, pr->sample_type[0]->type), "samples");
	cr_expect_str_eq(str(pr, pr->sample_type[0]->unit), "count");
	cr_expect_str_eq(str(pr, pr->sample_type[1]->type), "cpu");
	cr_expect_str_eq(str(pr, pr->sample_type[1]->unit), "nanoseconds");
	cr_expect_str_eq(str(pr, pr->period_type->type), "cpu");
	cr_expect_eq(pr->period, 250000);
	cr_expect_eq(pr->duration_nanos, 2000000000);
	cr_expect_eq(pr->time_nanos, 1800000000000000000);
	cr_assert_eq(pr->n_comment, 1);
	cr_expect_str_eq(str(pr, pr->comment[0]), comments[0]);
	cr_assert_eq(pr->n_sample, ARRAY_SIZE(stacks));
	for (size_t i = 0; i < pr->n_sample; i++) {
		sample_path(pr, i, buf, sizeof(buf));
		cr_expect_str_eq(buf, paths[i]);
		cr_expect_eq(pr->sample[i]->n_value, 2);
		cr_expect_eq(pr->sample[i]->value[1], (int64_t)stacks[i].value);
		cr_expect_eq(pr->sample[i]->value[0], llround(stacks[i].samples));
	}
	perftools__profiles__profile__free_unpacked(pr, NULL);
}

/* Per function: the value of the samples it is in (once a sample) and of those it is the
 * leaf of (the innermost Line of the first Location). */
static void totals(const Perftools__Profiles__Profile *pr, const char *name, double *total,
		   double *self)
{
	*total = *self = 0;
	for (size_t i = 0; i < pr->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pr->sample[i];
		int in = 0;

		for (size_t k = 0; k < s->n_location_id; k++) {
			const Perftools__Profiles__Location *l = loc(pr, s->location_id[k]);

			for (size_t j = 0; j < l->n_line; j++)
				if (!strcmp(fname(pr, l->line[j]->function_id), name)) {
					in = 1;
					if (k == 0 && j == 0)
						*self += (double)s->value[1];
				}
		}
		if (in)
			*total += (double)s->value[1];
	}
}

Test(export, pprof_functions_inline_lines_mappings)
{
	Perftools__Profiles__Profile *pr = pprof_of(stacks, ARRAY_SIZE(stacks), NULL);
	static const struct { const char *name; double total, self; } want[] = {
		{ "main", 9e5, 0 }, { "alpha", 6e5, 5e5 }, { "helper", 1e5, 1e5 },
		{ "beta", 2.5e5, 0 }, { "memcpy", 1.5e5, 1.5e5 }, { "do_syscall_64", 5e4, 5e4 },
		{ "std::vector<int>::push_back<A&B>", 5e4, 5e4 }, { "worker", 1e5, 1e5 },
		{ "[stack cut short]", 1e5, 0 },
	};
	const Perftools__Profiles__Location *l;
	int inl = 0;

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		double t, s;

		totals(pr, want[i].name, &t, &s);
		cr_expect_eq(t, want[i].total, "%s: total %g, want %g", want[i].name, t, want[i].total);
		cr_expect_eq(s, want[i].self, "%s: self %g, want %g", want[i].name, s, want[i].self);
	}
	/* main;alpha;helper: helper is inlined into alpha: one Location, helper's Line first */
	l = loc(pr, pr->sample[1]->location_id[0]);
	cr_assert_eq(pr->sample[1]->n_location_id, 2, "alpha and helper are one location");
	cr_assert_eq(l->n_line, 2);
	cr_expect_str_eq(fname(pr, l->line[0]->function_id), "helper");
	cr_expect_eq(l->line[0]->line, 7);
	cr_expect_str_eq(fname(pr, l->line[1]->function_id), "alpha");
	cr_expect_eq(l->line[1]->line, 5);
	cr_expect_eq(l->address, 0x401110);
	cr_expect_eq(pr->sample[0]->location_id[1], pr->sample[1]->location_id[1],
		     "main's location shared");
	cr_expect_neq(pr->sample[0]->location_id[0], pr->sample[1]->location_id[0],
		      "alpha alone is another location than alpha with helper inlined");
	/* the mappings: the program's first, each with its build-id */
	cr_assert_eq(pr->n_mapping, 3);
	cr_expect_str_eq(str(pr, pr->mapping[0]->filename), "/usr/bin/prog");
	cr_expect_str_eq(str(pr, pr->mapping[0]->build_id), "abcd1234");
	cr_expect_eq(pr->mapping[0]->memory_start, 0x400000);
	cr_expect_eq(pr->mapping[0]->memory_limit, 0x500000);
	for (size_t m = 0; m < pr->n_mapping; m++) {
		const char *fn = str(pr, pr->mapping[m]->filename);

		cr_expect_eq(pr->mapping[m]->id, m + 1);
		if (!strcmp(fn, libc.path))
			cr_expect_str_eq(str(pr, pr->mapping[m]->build_id), "ef015678");
		else if (!strcmp(fn, kern.path))
			cr_expect_str_eq(str(pr, pr->mapping[m]->build_id), "");
		inl += pr->mapping[m]->has_inline_frames;
	}
	cr_expect_eq(inl, 1, "only the program has inline frames");
	cr_expect(pr->mapping[0]->has_functions && pr->mapping[0]->has_line_numbers);
	l = loc(pr, pr->sample[5]->location_id[0]);	/* the unknown frame: no line */
	cr_expect_eq(l->n_line, 0);
	cr_expect_eq(l->address, 0x9999);
	cr_expect_str_eq(str(pr, pr->mapping[l->mapping_id - 1]->filename), libc.path);
	cr_expect_eq(pr->default_sample_type, pr->sample_type[1]->type);
	perftools__profiles__profile__free_unpacked(pr, NULL);
}

/* pprof's own reader, where Go is installed: `go tool pprof -top` of the file gives each
 * function's flat (self) and cum (total) time as written. */
Test(export, pprof_read_by_go_tool_pprof, .timeout = 120)
{
	static const struct { const char *name; double flat, cum; } want[] = {
		{ "main", 0, 9e5 }, { "alpha", 5e5, 6e5 }, { "helper (inline)", 1e5, 1e5 },
		{ "beta", 0, 2.5e5 }, { "memcpy", 1.5e5, 1.5e5 }, { "worker", 1e5, 1e5 },
		{ "[stack cut short]", 0, 1e5 }, { "do_syscall_64", 5e4, 5e4 },
	};
	char dir[] = "/tmp/pbench-test-pprof-XXXXXX", path[128], cmd[512], line[512];
	int found[ARRAY_SIZE(want)] = { 0 };
	FILE *f, *out;

	if (!have("go") || system("go tool -n pprof >/dev/null 2>&1"))
		cr_skip_test("go (its tool pprof) is not installed: pprof's own reader not run");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	cr_assert_eq(pb_pprof_write(f, stacks, ARRAY_SIZE(stacks), NULL), 0);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && HOME=%s GOCACHE=%s/cache go tool pprof -top -unit=ns "
		 "-nodecount=100 p.pb.gz 2>%s/err", dir, dir, dir, dir);
	cr_assert_not_null(out = popen(cmd, "r"));
	while (fgets(line, sizeof(line), out)) {
		char *e, name[256];
		double flat = strtod(line, &e), cum;

		if (e != line && !strncmp(e, "ns", 2))
			e += 2;
		if (e == line || sscanf(e, "%*s %*s %lf%*s %*s %255[^\n]", &cum, name) != 2)
			continue;	/* a header line */
		for (size_t i = 0; i < ARRAY_SIZE(want); i++)
			if (!strcmp(name, want[i].name)) {
				found[i] = 1;
				cr_expect_eq(flat, want[i].flat, "%s: flat %g", name, flat);
				cr_expect_eq(cum, want[i].cum, "%s: cum %g", name, cum);
			}
	}
	cr_expect_eq(pclose(out), 0, "go tool pprof failed (%s/err)", dir);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		cr_expect(found[i], "go tool pprof -top has no %s", want[i].name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}
#else
Test(export, pprof_refused_without_protobuf_c)
{
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	cr_expect_eq(pb_pprof_write(f, stacks, ARRAY_SIZE(stacks), NULL), -ENOTSUP);
	fclose(f);
}
#endif

/* ---- random stacks ---- */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static char *random_name(void)
{
	static const char *const parts[] = { "f", "grüße", "函数", "🔥", "<T>", "&", "\"q\"",
					     "\xff\xfe", "\xc3", "a;b", "\x01", "std::map<K, V>",
					     "\xed\xa0\x80", "\xef\xbf\xbe", "x" };
	size_t n = 1 + rnd(6), len = 0;
	char *s = calloc(1, 256);

	for (size_t i = 0; i < n; i++) {
		const char *p = parts[rnd(ARRAY_SIZE(parts))];

		if (len + strlen(p) + 1 < 256) {
			strcat(s, p);
			len += strlen(p);
		}
	}
	return s;
}

Test(export, random_stacks_no_crash, .timeout = 120)
{
	enum { NAMES = 300, FRAMES = 2000, STACKS = 3000 };
	static const struct pb_xdso dsos[] = { { "/bin/p", "01" }, { "/lib/libx.so.1", NULL },
					       { "[kernel.kallsyms]", NULL }, { "\xff<", "&" } };
	char **names = calloc(NAMES, sizeof(*names));
	struct pb_xframe *fr = calloc(FRAMES, sizeof(*fr));
	struct pb_xstack *st = calloc(STACKS, sizeof(*st));
	const struct pb_xframe **chains = calloc((size_t)STACKS * 40 + 5000, sizeof(*chains));
	size_t used = 0;
	char *svg;

	for (int i = 0; i < NAMES; i++)
		names[i] = random_name();
	for (int i = 0; i < FRAMES; i++)
		fr[i] = (struct pb_xframe){ rnd(20) ? names[rnd(NAMES)] : NULL,
			rnd(10) ? &dsos[rnd(ARRAY_SIZE(dsos))] : NULL, rnd(2) ? names[rnd(NAMES)] : NULL,
			rnd(100), rnd(8), rnd(3) ? rnd(1u << 30) : 0, rnd(3) ? 0.5 + rnd(200) / 100.0 : NAN,
			(int)rnd(2) };
	for (int i = 0; i < STACKS; i++) {
		int n = i == 0 ? 5000 : (int)rnd(40) + 0;	/* one deep chain, the rest up to 40 */

		st[i] = (struct pb_xstack){ chains + used, n, rnd(4) ? rnd(1000000) : 0, rnd(100),
					    NAN, (int)rnd(2) };
		for (int k = 0; k < n; k++)
			chains[used++] = &fr[i == 0 ? (unsigned)(k % FRAMES) : rnd(i % 7 ? 40 : FRAMES)];
	}
	for (int diff = 0; diff < 2; diff++) {
		struct pb_flame_opts o = { .differential = diff, .title = names[0],
					   .subtitle = names[1] };

		svg = svg_of(st, STACKS, &o);
		cr_expect(xml_check(svg) <= 0, "xmllint refused the random graph");
		free(svg);
	}
#ifdef PBENCH_HAVE_PROTOBUF_C
	{
		Perftools__Profiles__Profile *pr = pprof_of(st, STACKS, NULL);

		size_t bad = 0;

		cr_expect_eq(pr->n_sample, STACKS);
		cr_expect_eq(pr->sample[0]->n_location_id > 0, 1);
		for (size_t i = 0; i < pr->n_string_table; i++)	/* proto3: UTF-8 strings */
			for (const unsigned char *c = (const unsigned char *)pr->string_table[i]; *c;) {
				int k = pb_utf8_len(c, 0);

				bad += !k;
				c += k ? k : 1;
			}
		cr_expect_eq(bad, 0, "%zu bytes of pprof's strings are not UTF-8", bad);
		perftools__profiles__profile__free_unpacked(pr, NULL);
	}
#endif
	for (int i = 0; i < NAMES; i++)
		free(names[i]);
	free(names), free(fr), free(st), free(chains);
}
