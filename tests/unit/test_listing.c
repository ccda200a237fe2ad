/* SPDX-License-Identifier: MIT */
/*
 * The machine code of a function (lib/src/listing/listing.c, listing_elf.c; show_code of measure.c
 * and compare_fns.c). The functions disassembled are in listing_target.c, built -O2 without
 * sanitizers by its own rule: a loop the compiler deleted must be shown as a `ret` with no
 * jump back, a loop it kept with one. objdump is a dependency (make test installs binutils).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "testutil.h"
#include "listing_target.h"

static struct pbench_measure_opts quick(void)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;

	o.warmup_ms = 20;
	o.budget_ms = 150;
	return o;
}

static struct pbench_listing *listing_of(const void *addr)
{
	struct pbench_listing_opts o = { .size = sizeof(o), .addr = addr };
	struct pbench_listing *l;

	cr_assert_eq(pbench_listing_new(&l, &o), 0);
	cr_assert_not_null(l);
	return l;
}

static struct pbench_listing *listing_named(const char *file, const char *symbol,
					    const char *objdump)
{
	struct pbench_listing_opts o = { .size = sizeof(o), .file = file, .symbol = symbol,
					 .objdump = objdump };
	struct pbench_listing *l;

	cr_assert_eq(pbench_listing_new(&l, &o), 0);
	cr_assert_not_null(l);
	return l;
}

/* Whether some instruction of l starts with mnemonic (after "addr:  "). */
static int has_insn(const struct pbench_listing *l, const char *mnemonic)
{
	for (size_t i = 0; i < pbench_listing_nr(l); i++) {
		const char *s = strstr(pbench_listing_line(l, i), ":  ");

		if (s && !strncmp(s + 3, mnemonic, strlen(mnemonic)))
			return 1;
	}
	return 0;
}

static char *text_of(const struct pbench_listing *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pbench_listing_write_text(l, f), 0);
	fclose(f);
	return buf;
}

static void expect_deleted_loop(const struct pbench_listing *l)
{
	cr_assert_eq(pbench_listing_status(l), PBENCH_LISTING_OK, "%s",
		     pbench_listing_reason(l));
	cr_expect_null(pbench_listing_reason(l));
	cr_expect_str_eq(pbench_listing_symbol(l), "listing_deleted");
	/* ret, or a padded ret (rep ret, endbr64 first): nothing of a loop */
	cr_expect_leq(pbench_listing_nr(l), 2, "%zu instructions", pbench_listing_nr(l));
	cr_expect(has_insn(l, "ret") || has_insn(l, "rep ret") || has_insn(l, "repz ret"),
		  "first line: %s", pbench_listing_line(l, 0));
	cr_expect_eq(pbench_listing_backward_jumps(l), 0);
}

Test(listing, a_deleted_loop_is_a_ret)
{
	struct pbench_listing *l = listing_of((const void *)listing_deleted);
	char *text;

	expect_deleted_loop(l);
	cr_expect_gt(pbench_listing_size(l), 0);
	text = text_of(l);
	cr_expect(strstr(text, "machine code of listing_deleted"), "%s", text);
	cr_expect(strstr(text, "no jump back: no loop"), "%s", text);
	free(text);
	pbench_listing_free(l);
}

Test(listing, a_kept_loop_jumps_back)
{
	struct pbench_listing *l = listing_of((const void *)listing_loop);
	char *text;

	cr_assert_eq(pbench_listing_status(l), PBENCH_LISTING_OK, "%s",
		     pbench_listing_reason(l));
	cr_expect_str_eq(pbench_listing_symbol(l), "listing_loop");
	cr_expect_gt(pbench_listing_nr(l), 3);
	cr_expect_geq(pbench_listing_backward_jumps(l), 1);
	cr_expect(has_insn(l, "ret"));
	text = text_of(l);
	cr_expect(strstr(text, "jumps back: a loop"), "%s", text);
	free(text);
	pbench_listing_free(l);
}

/* By name in the file, as pbench stat --annotate finds a command's function: the same code
 * as by address. */
Test(listing, by_name_as_by_address)
{
	struct pbench_listing *a = listing_of((const void *)listing_loop);
	struct pbench_listing *n = listing_named("/proc/self/exe", "listing_loop", NULL);

	cr_assert_eq(pbench_listing_status(n), PBENCH_LISTING_OK, "%s",
		     pbench_listing_reason(n));
	cr_expect_eq(pbench_listing_address(n), pbench_listing_address(a));
	cr_expect_eq(pbench_listing_size(n), pbench_listing_size(a));
	cr_assert_eq(pbench_listing_nr(n), pbench_listing_nr(a));
	for (size_t i = 0; i < pbench_listing_nr(n); i++)
		cr_expect_str_eq(pbench_listing_line(n, i), pbench_listing_line(a, i));
	pbench_listing_free(a);
	pbench_listing_free(n);
}

/* An exported function of a shared object: its dynamic symbol, its file the library's. */
Test(listing, a_function_of_libc)
{
	struct pbench_listing *l = listing_of((const void *)labs);

	cr_assert_eq(pbench_listing_status(l), PBENCH_LISTING_OK, "%s",
		     pbench_listing_reason(l));
	cr_expect(strstr(pbench_listing_file(l), "libc"), "%s", pbench_listing_file(l));
	cr_expect_gt(pbench_listing_nr(l), 0);
	pbench_listing_free(l);
}

Test(listing, no_symbol_says_why)
{
	struct pbench_listing *l = listing_named("/proc/self/exe", "listing_no_such_function",
						 NULL);
	char *text;

	cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_SYMBOL);
	cr_assert_not_null(pbench_listing_reason(l));
	cr_expect(strstr(pbench_listing_reason(l), "'listing_no_such_function'"), "%s",
		  pbench_listing_reason(l));
	cr_expect_eq(pbench_listing_nr(l), 0);
	text = text_of(l);
	cr_expect(strstr(text, "machine code: n/a: no function 'listing_no_such_function'"),
		  "%s", text);
	free(text);
	pbench_listing_free(l);

	/* A name the compiler would have cloned: the clone is suggested. */
	l = listing_named("/proc/self/exe", "listing", NULL);
	cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_SYMBOL);
	pbench_listing_free(l);

	/* Memory that is no object's code. */
	{
		void *heap = malloc(16);

		l = listing_of(heap);
		cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_SYMBOL);
		cr_expect(strstr(pbench_listing_reason(l), "no loaded object"), "%s",
			  pbench_listing_reason(l));
		pbench_listing_free(l);
		free(heap);
	}
}

Test(listing, no_objdump_or_no_elf_says_why)
{
	struct pbench_listing *l = listing_named("/proc/self/exe", "listing_loop",
						 "/nonexistent/objdump");
	char path[] = "/tmp/pbench-listing-XXXXXX";
	int fd;

	cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_OBJDUMP);
	cr_expect(strstr(pbench_listing_reason(l), "binutils"), "%s", pbench_listing_reason(l));
	cr_expect_eq(pbench_listing_nr(l), 0);
	pbench_listing_free(l);

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "#!/bin/sh\necho not ELF, long enough to have a header\n", 53), 53);
	close(fd);
	l = listing_named(path, "main", NULL);
	cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_FILE, "%s",
		     pbench_listing_reason(l));
	cr_expect(strstr(pbench_listing_reason(l), "not an ELF file"), "%s",
		  pbench_listing_reason(l));
	pbench_listing_free(l);
	unlink(path);

	l = listing_named("/nonexistent/prog", "main", NULL);
	cr_expect_eq(pbench_listing_status(l), PBENCH_LISTING_NO_FILE);
	pbench_listing_free(l);
}

Test(listing, bad_arguments)
{
	struct pbench_listing_opts o = { .size = sizeof(o) };
	struct pbench_listing *l = (struct pbench_listing *)&o;

	cr_expect_eq(pbench_listing_new(&l, &o), -EINVAL);
	cr_expect_null(l);
	cr_expect_eq(pbench_listing_new(&l, NULL), -EINVAL);
	cr_expect_eq(pbench_listing_new(NULL, &o), -EINVAL);
	o.file = "/proc/self/exe";
	cr_expect_eq(pbench_listing_new(&l, &o), -EINVAL);	/* a file without a name */
	o.size = 0;
	o.addr = (const void *)listing_loop;
	cr_expect_eq(pbench_listing_new(&l, &o), -EINVAL);
	cr_expect_eq(pbench_listing_write_text(NULL, stdout), -EINVAL);
	cr_expect_eq(pbench_listing_nr(NULL), 0);
	cr_expect_null(pbench_listing_line(NULL, 0));
}

/* objdump runs as a child: nothing of it stays open. */
Test(listing, leaves_no_descriptor)
{
	int before = count_fds();

	for (int i = 0; i < 3; i++)
		pbench_listing_free(listing_of((const void *)listing_loop));
	cr_expect_eq(count_fds(), before);
}

/* ---- with pbench_measure and pbench_compare --------------------------------------------- */

/* The "optimized away" warning comes with the code that says why, unasked. Whether a body
 * of nothing is told from the empty batch is timing: with the other lane of make test on the
 * second vCPU, one measurement in a few came out NOISY|CLAMPED (0x18) without SUSPICIOUS, so
 * three tries, each a new measurement, counted when they were needed. */
Test(listing, measure_shows_the_deleted_loop_with_its_warning)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r = NULL;
	unsigned flags = 0;
	char *buf = NULL;
	size_t len = 0;
	int tries;
	FILE *f;

	for (tries = 1; tries <= 3; tries++) {
		pbench_result_free(r);
		cr_assert_eq(pbench_measure(&r, listing_deleted, NULL, &o), 0);
		flags = pbench_result_flags(r);
		if (flags & PBENCH_RESULT_SUSPICIOUS)
			break;
	}
	if (!(flags & PBENCH_RESULT_SUSPICIOUS))
		pbench_result_free(r);
	cr_assert(flags & PBENCH_RESULT_SUSPICIOUS, "flags %#x after 3 tries", flags);
	cr_assert_not_null(pbench_result_listing(r), "no listing with the warning");
	expect_deleted_loop(pbench_result_listing(r));
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_result_write_text(r, f, "deleted"), 0);
	fclose(f);
	cr_expect(strstr(buf, "optimized away"), "%s", buf);
	cr_expect(strstr(buf, "machine code of listing_deleted"), "%s", buf);
	cr_expect(strstr(buf, "ret"), "%s", buf);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_result_write_json(r, f, "deleted"), 0);
	fclose(f);
	cr_expect(strstr(buf, "\"listing\": {") || strstr(buf, "\"listing\":{"), "%.300s", buf);
	cr_expect(strstr(buf, "\"backward_jumps\": 0") || strstr(buf, "\"backward_jumps\":0"));
	free(buf);
	pbench_result_free(r);

	/* show_code -1: never, warning or not. */
	o.show_code = -1;
	cr_assert_eq(pbench_measure(&r, listing_deleted, NULL, &o), 0);
	cr_expect_null(pbench_result_listing(r));
	pbench_result_free(r);
	TEST_RETRIED("listing::measure_shows_the_deleted_loop_with_its_warning", tries);
}

Test(listing, measure_shows_a_loop_when_asked_only)
{
	struct listing_ctx c = { .n = 2000, .seed = 1 };
	struct pbench_measure_opts o = quick();
	struct pbench_result *r;

	cr_assert_eq(pbench_measure(&r, listing_loop, &c, &o), 0);
	cr_expect_not(pbench_result_flags(r) & PBENCH_RESULT_SUSPICIOUS);
	cr_expect_null(pbench_result_listing(r), "code shown unasked, without a warning");
	pbench_result_free(r);

	o.show_code = 1;
	cr_assert_eq(pbench_measure(&r, listing_loop, &c, &o), 0);
	cr_assert_not_null(pbench_result_listing(r));
	cr_expect_geq(pbench_listing_backward_jumps(pbench_result_listing(r)), 1);
	pbench_result_free(r);
}

Test(listing, compare_shows_both_sides)
{
	struct listing_ctx c = { .n = 500, .seed = 1 };
	struct pbench_measure_opts mo = quick();
	struct pbench_compare_opts co = { .size = sizeof(co), .measure = &mo };
	struct pbench_comparison cmp = { .size = sizeof(cmp) };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	mo.show_code = 1;
	cr_assert_eq(pbench_compare(listing_deleted, NULL, listing_loop, &c, &co, &cmp), 0);
	cr_assert_not_null(cmp.listing_a);
	cr_assert_not_null(cmp.listing_b);
	expect_deleted_loop(cmp.listing_a);
	cr_expect_geq(pbench_listing_backward_jumps(cmp.listing_b), 1);
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_comparison_write_text(&cmp, f, "deleted", "loop"), 0);
	fclose(f);
	cr_expect(strstr(buf, "machine code of listing_deleted"), "%s", buf);
	cr_expect(strstr(buf, "machine code of listing_loop"), "%s", buf);
	free(buf);
	pbench_comparison_release(&cmp);
	cr_expect_null(cmp.listing_a);
}

/* ---- samples ------------------------------------------------------------------------------ */

#define REC "tests/data/listing/"

/* The samples of a real sampled run of prog-x86_64 (tests/data/listing/record.sh), counted
 * per instruction line of churn: each line's count, its share and the totals as the recording
 * script counted them, independently of pbench. */
Test(listing, recorded_samples_counted_per_line)
{
	struct pbench_listing *l;
	uint64_t addrs[4096], a, in_fn = 0, total = 0, want_in, want_total;
	size_t n = 0, line = 0;
	unsigned long long x, c;
	double pct;
	char word[32], *text;
	FILE *f;

#if !defined(__x86_64__)
	cr_skip_test("the recorded program is x86-64 code");
#endif
	f = fopen(REC "churn.samples", "r");
	cr_assert_not_null(f);
	while (n < ARRAY_SIZE(addrs) && fscanf(f, "%llx", &x) == 1)
		addrs[n++] = x;
	fclose(f);
	cr_assert_gt(n, 100);
	l = listing_named(REC "prog-x86_64", "churn", NULL);
	cr_assert_eq(pbench_listing_status(l), PBENCH_LISTING_OK, "%s",
		     pbench_listing_reason(l));
	cr_expect_not_null(pbench_listing_samples_reason(l), "not sampled yet: a reason");
	cr_expect_eq(pbench_listing_samples(l, &in_fn, &total), 0);
	/* In two halves: the counts add up. */
	cr_assert_eq(pbench_listing_add_samples(l, addrs, n / 2), 0);
	cr_assert_eq(pbench_listing_add_samples(l, addrs + n / 2, n - n / 2), 0);
	cr_expect_null(pbench_listing_samples_reason(l));
	cr_assert_eq(pbench_listing_samples(l, &in_fn, &total), 1);
	text = text_of(l);

	f = fopen(REC "churn.expected", "r");
	cr_assert_not_null(f);
	while (fscanf(f, "%31s", word) == 1) {
		if (!strcmp(word, "in_function") || !strcmp(word, "total")) {
			cr_assert_eq(fscanf(f, "%llu", &c), 1);
			if (word[0] == 'i')
				want_in = c;
			else
				want_total = c;
			continue;
		}
		cr_assert_eq(fscanf(f, "%llu %lf", &c, &pct), 2);
		a = strtoull(word, NULL, 16);
		cr_assert_lt(line, pbench_listing_nr(l));
		cr_expect_eq(strtoull(pbench_listing_line(l, line), NULL, 16), a);
		cr_expect_eq(pbench_listing_line_samples(l, line), c, "line %s: %llu samples, "
			     "want %llu", pbench_listing_line(l, line),
			     (unsigned long long)pbench_listing_line_samples(l, line), c);
		if (c) {	/* its share, as the text prints it: "66.33%  11b4:  ..." */
			char share[64];

			snprintf(share, sizeof(share), "%.2f%%  %s", pct, word);
			cr_expect(strstr(text, share), "no '%s' in\n%s", share, text);
		}
		line++;
	}
	fclose(f);
	cr_expect_eq(line, pbench_listing_nr(l));
	cr_expect_eq(in_fn, want_in);
	cr_expect_eq(total, want_total);
	cr_expect_lt(in_fn, total, "the recording has samples outside churn (stir's)");
	cr_expect(strstr(text, "<- hottest"), "%s", text);
	free(text);
	pbench_listing_free(l);
}

/* A sampled run of the test's own kept loop: its samples land in the loop. */
Test(listing, sampled_run_lands_in_the_loop)
{
	struct pbench_listing *l = listing_named(REC "prog-x86_64", "churn", NULL);
	char *argv[] = { REC "prog-x86_64", "20000000", NULL };
	uint64_t in_fn = 0, total = 0, in_loop = 0;

#if !defined(__x86_64__)
	cr_skip_test("the recorded program is x86-64 code");
#endif
	cr_assert_eq(pbench_listing_sample(l, argv, 0, 0), 0);
	if (pbench_listing_samples_reason(l))
		cr_skip_test("no sampling here: %s", pbench_listing_samples_reason(l));
	cr_assert_eq(pbench_listing_samples(l, &in_fn, &total), 1);
	cr_expect_gt(in_fn, 10, "%llu of %llu samples in churn", (unsigned long long)in_fn,
		     (unsigned long long)total);
	/* The loop's body: the lines from the jump back's target to the jump. */
	for (size_t i = 0; i < pbench_listing_nr(l); i++)
		if (strstr(pbench_listing_line(l, i), "imul") ||
		    strstr(pbench_listing_line(l, i), "add"))
			in_loop += pbench_listing_line_samples(l, i);
	cr_expect_geq(in_loop * 10, in_fn * 9, "%llu of %llu in the loop's arithmetic",
		      (unsigned long long)in_loop, (unsigned long long)in_fn);
	pbench_listing_free(l);
}

/* A run longer than the timeout is ended then, and its samples so far are kept, said. */
Test(listing, sampled_run_ended_at_the_timeout)
{
	struct pbench_listing *l = listing_named(REC "prog-x86_64", "churn", NULL);
	char *argv[] = { REC "prog-x86_64", "100000000000", NULL };	/* minutes */
	uint64_t in_fn = 0, t0 = pbench_ticks();
	char *text;

#if !defined(__x86_64__)
	cr_skip_test("the recorded program is x86-64 code");
#endif
	cr_assert_eq(pbench_listing_sample(l, argv, 0, 0.3), 0);
	cr_expect_lt(pbench_ticks_to_ns_f(pbench_ticks() - t0), 20e9, "not ended at 0.3 s");
	if (pbench_listing_samples_reason(l))
		cr_skip_test("no sampling here: %s", pbench_listing_samples_reason(l));
	cr_assert_eq(pbench_listing_samples(l, &in_fn, NULL), 1);
	cr_expect_gt(in_fn, 0);
	text = text_of(l);
	cr_expect(strstr(text, "the run ended after 0.3 s (the timeout)"), "%s", text);
	free(text);
	cr_expect_eq(pbench_listing_sample(l, argv, 0, -1), -EINVAL);
	pbench_listing_free(l);
}

/* --annotate's call: the function of the command's program, sampled over one run of it; a
 * command that cannot start is left to the caller's runs (1, nothing made). */
Test(listing, annotate_a_command)
{
	struct pbench_listing_opts o = { .size = sizeof(o), .symbol = "churn" };
	char *argv[] = { REC "prog-x86_64", "20000000", NULL };
	char *missing[] = { "pbench-no-such-command", NULL };
	struct pbench_listing *l = NULL;
	uint64_t in_fn = 0;

	cr_assert_eq(pbench_listing_annotate(&l, missing, &o, 0), 1);
	cr_assert_null(l);
	cr_assert_eq(pbench_listing_annotate(&l, argv, NULL, 0), -EINVAL);
	cr_assert_null(l);
#if !defined(__x86_64__)
	cr_skip_test("the recorded program is x86-64 code");
#endif
	cr_assert_eq(pbench_listing_annotate(&l, argv, &o, 0), 0);
	cr_assert_not_null(l);
	cr_expect_str_eq(pbench_listing_symbol(l), "churn");
	cr_expect_gt(pbench_listing_nr(l), 0);
	if (!pbench_listing_samples_reason(l)) {
		cr_expect_eq(pbench_listing_samples(l, &in_fn, NULL), 1);
		cr_expect_gt(in_fn, 0, "the run was sampled");
	}
	pbench_listing_free(l);
}

/* What one writer wrote, as a string (free it). */
static char *written(int (*w)(const struct pbench_runs *, const struct pbench_listing *, int,
			      FILE *), const struct pbench_runs *r,
		     const struct pbench_listing *l, int fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(w(r, l, fmt, f), 0, "format %d", fmt);
	fclose(f);
	return buf;
}

static int annotated(const struct pbench_runs *r, const struct pbench_listing *l, int fmt,
		     FILE *f)
{
	return pbench_runs_write_annotated(r, l, "churn", fmt, 0, f);
}

static int annotated_body(const struct pbench_runs *r, const struct pbench_listing *l, int fmt,
			  FILE *f)
{
	return pbench_runs_write_annotated(r, l, "churn", fmt, PBENCH_RUNS_WRITE_BODY, f);
}

/* By hand: the runs' writer of that format, then the listing where it goes. */
static int by_hand(const struct pbench_runs *r, const struct pbench_listing *l, int fmt,
		   FILE *f)
{
	int body = fmt == -PBENCH_REPORT_FORMAT_TEXT - 1;

	fmt = body ? PBENCH_REPORT_FORMAT_TEXT : fmt;
	if (fmt == PBENCH_REPORT_FORMAT_JSON)
		return pbench_runs_write_json_annotated(r, l, f);
	if (body ? pbench_runs_write_body(r, f) : pbench_runs_write(r, fmt, f))
		return -EIO;
	if (l && fmt == PBENCH_REPORT_FORMAT_MARKDOWN)
		return fputs("\n", f) < 0 ? -EIO : pbench_listing_write_markdown(l, f);
	if (l && fmt == PBENCH_REPORT_FORMAT_TEXT)
		return fputs("\n--annotate churn:\n", f) < 0 ? -EIO : pbench_listing_write_text(l, f);
	return 0;
}

/* Two runs of the built-in workload, unprepared, task-clock counted: a report to write. */
static struct pbench_runs *two_runs(void)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	struct pbench_runs *r;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.iterations = 1000;
	o.runs = 2;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	return r;
}

/* stat --annotate's report: each format as its writer, the listing under the text (headed by
 * the name asked for) and the Markdown, in the JSON, not in the CSV or the plot; the text's
 * body alone when its head went out first. */
Test(listing, runs_report_with_the_listing)
{
	struct pbench_listing *l = listing_named(REC "prog-x86_64", "churn", NULL);
	struct pbench_runs *r;
	char *a, *b;

	r = two_runs();
	for (int fmt = PBENCH_REPORT_FORMAT_JSON; fmt <= PBENCH_REPORT_FORMAT_TEXT; fmt++) {
		for (int with = 0; with < 2; with++) {
			a = written(annotated, r, with ? l : NULL, fmt);
			b = written(by_hand, r, with ? l : NULL, fmt);
			cr_expect_str_eq(a, b, "format %d, listing %d", fmt, with);
			free(a);
			free(b);
		}
	}
	a = written(annotated_body, r, l, PBENCH_REPORT_FORMAT_TEXT);
	b = written(by_hand, r, l, -PBENCH_REPORT_FORMAT_TEXT - 1);
	cr_expect_str_eq(a, b, "the body");
	cr_expect(strstr(a, "\n--annotate churn:\n"), "%s", a);
	free(a);
	free(b);
	cr_expect_eq(pbench_runs_write_annotated(r, l, "churn", PBENCH_REPORT_FORMAT_TEXT + 1, 0,
						 stdout), -EINVAL);
	pbench_runs_free(r);
	pbench_listing_free(l);
}

/* stat --annotate A --annotate B --json: every listing in "annotations", in order, each with the
 * name asked (its symbol when no name is given), a listing never made as null; the first also
 * "annotate", as pbench_runs_write_json_annotated() writes one (before, the JSON had the first
 * alone). */
Test(listing, runs_json_with_several_listings)
{
	struct pbench_listing *l[3] = { listing_named(REC "prog-x86_64", "churn", NULL),
					listing_named(REC "prog-x86_64", "no_such_fn", NULL), NULL };
	const char *names[3] = { "churn", "no_such_fn", "never" };
	const struct pbench_listing *const *cl = (const struct pbench_listing *const *)l;
	struct pbench_runs *r;
	json_t *d, *a, *one;
	char *buf = NULL, *first = NULL;
	size_t len = 0, flen = 0;
	FILE *f;

	r = two_runs();
	cr_assert_not_null(f = open_memstream(&buf, &len));
	cr_assert_eq(pbench_runs_write_json_listings(r, cl, names, 3, f), 0);
	fclose(f);
	cr_assert_not_null(d = json_loads(buf, 0, NULL), "%s", buf);
	a = json_object_get(d, "annotations");
	cr_assert_eq(json_array_size(a), 3, "%s", buf);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "asked")), "churn");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "symbol")), "churn");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "asked")),
			 "no_such_fn");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "status")),
			 "no-symbol");
	cr_expect(json_is_null(json_array_get(a, 2)), "a listing never made is null");
	/* the first as annotate: the one-listing writer's, and with asked added, annotations[0] */
	cr_assert_not_null(f = open_memstream(&first, &flen));
	cr_assert_eq(pbench_runs_write_json_annotated(r, l[0], f), 0);
	fclose(f);
	one = json_loads(first, 0, NULL);
	cr_assert_not_null(one);
	cr_expect(json_equal(json_object_get(d, "annotate"), json_object_get(one, "annotate")));
	cr_expect_eq(json_array_size(json_object_get(one, "annotations")), 1);
	json_object_set_new(json_object_get(one, "annotate"), "asked", json_string("churn"));
	cr_expect(json_equal(json_object_get(one, "annotate"), json_array_get(a, 0)));
	/* names NULL: each listing's symbol; bad arguments */
	cr_expect_eq(pbench_runs_write_json_listings(r, NULL, NULL, 1, stdout), -EINVAL);
	cr_expect_eq(pbench_runs_write_json_listings(r, cl, NULL, -1, stdout), -EINVAL);
	cr_expect_eq(pbench_runs_write_json_listings(NULL, cl, NULL, 1, stdout), -EINVAL);
	json_decref(one);
	json_decref(d);
	free(first);
	free(buf);
	pbench_runs_free(r);
	pbench_listing_free(l[0]);
	pbench_listing_free(l[1]);
}
