/* SPDX-License-Identifier: MIT */
/*
 * The command line's outputs (cli/support/outputs.c, term.c): the outputs of one report, their
 * paths checked together (one file twice refused, links resolved) and named for their format,
 * with the caller's labels in messages; a terminal's width and colour. On the library's
 * pbench_output (tests/unit/test_output.c).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"
#include "testutil.h"

#define SCRATCH_NAME "cli-output"
#include "scratch.h"

TestSuite(cli_output, .init = make_dir, .fini = remove_dir);

/* Several outputs of one report (cli_output_open_all): one file given twice, under two
 * names of it, or stdout twice is refused before anything opens; /dev/null twice is fine; a
 * path that cannot be opened leaves none open and nothing in the directory. */
Test(cli_output, open_all_refuses_one_file_twice)
{
	struct pbench_output *outs[3];
	char a[128], link_a[128], bad[160];
	int which[2];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(link_a, sizeof(link_a), "%s/b.json", dir);
	snprintf(bad, sizeof(bad), "%s/no/such/dir.csv", dir);
	put(a, "old");
	cr_assert_eq(link(a, link_a), 0);
	{
		const char *const twice[] = { a, NULL, link_a }, *const dash[] = { "-", "-" },
				  *const null[] = { "/dev/null", "/dev/null" },
				  *const missing[] = { a, bad };

		cr_assert_eq(cli_output_open_all(outs, twice, 3, which), -EEXIST);
		cr_assert(which[0] == 0 && which[1] == 2, "which %d %d", which[0], which[1]);
		cr_assert_eq(cli_output_open_all(outs, dash, 2, which), -EEXIST);
		cr_assert_eq(cli_output_open_all(outs, missing, 2, which), -ENOENT);
		cr_assert(which[0] == 1 && !outs[0] && !outs[1], "none left open");
		cr_assert_eq(entries(), 2, "nothing new in the directory");
		cr_assert_eq(cli_output_open_all(outs, null, 2, which), 0);
		cr_assert_eq(pbench_output_close(outs[0], 1), 0);
		cr_assert_eq(pbench_output_close(outs[1], 1), 0);
	}
	cr_assert_str_eq(get(a), "old");
}

/* Two outputs that name one file differently, before it exists: "./", a link, "x/..". */
Test(cli_output, open_all_compares_the_paths_links_resolved)
{
	struct pbench_output *outs[2];
	char a[128], other[4][160];
	int which[2];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(other[0], sizeof(other[0]), "%s/./a.json", dir);
	snprintf(other[1], sizeof(other[1]), "%s/l.json", dir);
	snprintf(other[2], sizeof(other[2]), "%s/sub/../a.json", dir);
	snprintf(other[3], sizeof(other[3]), "%s//a.json", dir);
	cr_assert_eq(symlink("a.json", other[1]), 0);
	{
		char sub[160];

		snprintf(sub, sizeof(sub), "%s/sub", dir);
		cr_assert_eq(mkdir(sub, 0700), 0);
	}
	for (int i = 0; i < 4; i++) {
		const char *const paths[] = { a, other[i] };

		cr_assert_eq(cli_output_open_all(outs, paths, 2, which), -EEXIST, "%s",
			     other[i]);
		cr_assert(which[0] == 0 && which[1] == 1 && !outs[0] && !outs[1]);
	}
	{
		char b[128];
		const char *paths[] = { a, b };

		snprintf(b, sizeof(b), "%s/b.json", dir);
		cr_assert_eq(cli_output_open_all(outs, paths, 2, which), 0);
		cr_assert_eq(pbench_output_close(outs[0], 0), 0);
		cr_assert_eq(pbench_output_close(outs[1], 0), 0);
	}
}

/* The plot's file is named .svg (any case); "-", a device and the other formats take any
 * name; what it should be called is said. */
Test(cli_output, a_plot_file_is_named_svg)
{
	char why[256];

	cr_expect_eq(cli_output_check_name("a/p.svg", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), 0);
	cr_expect_eq(cli_output_check_name("P.SVG", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), 0);
	cr_expect_eq(cli_output_check_name("-", PBENCH_REPORT_FORMAT_SVG, why, sizeof(why)), 0);
	cr_expect_eq(cli_output_check_name("/dev/null", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), 0);
	cr_expect_eq(cli_output_check_name("r.json", PBENCH_REPORT_FORMAT_JSON, why,
					      sizeof(why)), 0);
	cr_expect_eq(cli_output_check_name("d.x/plot.png", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "name the file 'd.x/plot.svg', not 'd.x/plot.png'");
	cr_expect_eq(cli_output_check_name("d.x/plot", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "name the file 'd.x/plot.svg', not 'd.x/plot'");
	cr_expect_eq(cli_output_check_name(NULL, PBENCH_REPORT_FORMAT_SVG, why, sizeof(why)),
		     -EINVAL);
}

/* ---- cli_outputs: the outputs of one report, with the caller's labels in messages -------- */

/* The writer of the tests: "<fmt>" to f; the format in fail fails (-ENOSPC) half-way. */
static int fail = -1;

static int write_fmt(void *arg, int fmt, FILE *f)
{
	(void)arg;
	fprintf(f, "new %d", fmt);
	if (fmt == fail)
		return -ENOSPC;
	return fflush(f) ? -errno : 0;
}

static const char *msg(const struct cli_outputs *s, int i)
{
	const char *m = cli_outputs_message(s, i);

	return m ? m : "(none)";
}

/* One format on stdout: a second one is refused as it is given, named by both labels; the
 * same one again adds nothing; wants() and stdout() say what was asked. */
Test(cli_output, outputs_refuse_two_formats_on_stdout)
{
	struct cli_outputs *s;

	cr_assert_eq(cli_outputs_new(&s), 0);
	cr_assert_eq(cli_outputs_stdout(s), -1);
	cr_assert_eq(cli_outputs_wants(s, -1), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "-", "--json"), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "-", "--export-json"), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, "-", "--csv"), -EEXIST);
	cr_assert_str_eq(msg(s, 0), "--json and --csv cannot both write to stdout: give one of "
			 "them a file");
	cr_assert_null(cli_outputs_message(s, 1));
	cr_assert_eq(cli_outputs_stdout(s), PBENCH_REPORT_FORMAT_JSON);
	cr_assert(cli_outputs_wants(s, PBENCH_REPORT_FORMAT_JSON) && cli_outputs_wants(s, -1));
	cr_assert_eq(cli_outputs_wants(s, PBENCH_REPORT_FORMAT_CSV), 0, "the refused one");
	cli_outputs_free(s);
}

/* Bad paths said as they are given: an empty name, SVG to a file not named .svg. */
Test(cli_output, outputs_refuse_bad_names)
{
	struct cli_outputs *s;

	cr_assert_eq(cli_outputs_new(&s), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "", "--json"), -EINVAL);
	cr_assert_str_eq(msg(s, 0), "--json needs a file name, or '-' for stdout");
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_SVG, "out/p.json", "--plot"),
		     -EINVAL);
	cr_assert_str_eq(msg(s, 0), "--plot writes SVG: name the file 'out/p.svg', not "
			 "'out/p.json'");
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_SVG, "p.SVG", NULL), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_SVG, "/dev/null", NULL), 0);
	cr_assert_eq(cli_outputs_add(s, 7, "x", NULL), -EINVAL);
	cli_outputs_free(s);
}

/* Two outputs to one file (two names of it): refused at open, named by their labels, with
 * nothing opened; a path that cannot be written: refused at open, before any write, with
 * the old files as they were and nothing new in the directory. */
Test(cli_output, outputs_refused_at_open_before_anything_is_written)
{
	struct cli_outputs *s;
	char a[128], link_a[128], bad[160], want[400];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(link_a, sizeof(link_a), "%s/b.csv", dir);
	snprintf(bad, sizeof(bad), "%s/no/such/dir.csv", dir);
	put(a, "old");
	cr_assert_eq(link(a, link_a), 0);
	cr_assert_eq(cli_outputs_new(&s), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, link_a, "--export-csv"), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, a, "--json"), 0);
	cr_assert_eq(cli_outputs_open(s), -EEXIST);
	snprintf(want, sizeof(want), "--json and --export-csv both write to '%s': give each its "
		 "own file", link_a);
	cr_assert_str_eq(msg(s, 0), want);
	cr_assert_eq(cli_outputs_write(s, write_fmt, NULL), -EBADF, "nothing is open");
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, bad, "--export-csv"), 0);
	cr_assert_eq(cli_outputs_open(s), -ENOENT);
	snprintf(want, sizeof(want), "cannot write the CSV file '%s': ", bad);
	cr_assert(!strncmp(msg(s, 0), want, strlen(want)), "%s", msg(s, 0));
	cr_assert_eq(cli_outputs_close(s, 1), 0);
	cli_outputs_free(s);
	cr_assert_str_eq(get(a), "old");
	cr_assert_eq(entries(), 2, "nothing new in the directory");
}

/* A writer that fails leaves that old file as it was (said, named by its format); the other
 * output is put in place; a format given a file twice writes the later path only. */
Test(cli_output, outputs_failed_write_keeps_the_old_file)
{
	struct cli_outputs *s;
	char a[128], b[128], c[128], want[300];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.csv", dir);
	snprintf(c, sizeof(c), "%s/c.csv", dir);
	put(a, "old");
	put(c, "old");
	cr_assert_eq(cli_outputs_new(&s), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, a, "--export-json"), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, b, "--export-csv"), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, c, "--export-csv"), 0);
	cr_assert_eq(cli_outputs_open(s), 0);
	fail = PBENCH_REPORT_FORMAT_CSV;
	cr_assert_eq(cli_outputs_write(s, write_fmt, NULL), -ENOSPC);
	fail = -1;
	snprintf(want, sizeof(want), "cannot write the CSV file '%s': No space left on device", c);
	cr_assert_str_eq(msg(s, 0), want);
	cr_assert_null(cli_outputs_message(s, 1), "one message: %s", msg(s, 1));
	cr_assert_eq(cli_outputs_stdout_error(s), 0);
	cr_assert_eq(cli_outputs_close(s, 1), 0);
	cr_assert_str_eq(get(a), "new 0");
	cr_assert_str_eq(get(c), "old", "the failed one is left as it was");
	cr_assert_neq(access(b, F_OK), 0, "the CSV path given first is not written");
	cr_assert_eq(entries(), 2, "nothing new in the directory");
	cli_outputs_free(s);
}

/* A failure on stdout is returned and kept (no message: the caller's check of stdout says
 * it); a file is written all the same. */
Test(cli_output, outputs_stdout_failure_reported)
{
	struct cli_outputs *s;
	char a[128];
	int full = open("/dev/full", O_WRONLY), saved = dup(STDOUT_FILENO);

	if (full < 0)
		cr_skip_test("no /dev/full here");
	snprintf(a, sizeof(a), "%s/a.csv", dir);
	cr_assert_eq(cli_outputs_new(&s), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "-", "--json"), 0);
	cr_assert_eq(cli_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, a, "--export-csv"), 0);
	cr_assert_eq(cli_outputs_open(s), 0);
	fflush(stdout);
	cr_assert_eq(dup2(full, STDOUT_FILENO), STDOUT_FILENO);
	cr_assert_eq(cli_outputs_write(s, write_fmt, NULL), -ENOSPC);
	clearerr(stdout);
	cr_assert_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	cr_assert_null(cli_outputs_message(s, 0), "%s", msg(s, 0));
	cr_assert_eq(cli_outputs_stdout_error(s), -ENOSPC);
	cr_assert_eq(cli_outputs_close(s, 1), 0);
	cr_assert_str_eq(get(a), "new 1");
	cli_outputs_free(s);
	close(full);
	close(saved);
}

/* cli_term_width(): COLUMNS first (a whole number 0-10000), else a terminal's width, else
 * 0 for a file or a pipe; cli_term_color(): never on a file or a pipe. */
Test(cli_output, width_and_color_of_a_stream)
{
	FILE *f = tmpfile();

	cr_assert(f);
	setenv("COLUMNS", "57", 1);
	cr_assert_eq(cli_term_width(f), 57);
	setenv("COLUMNS", "0", 1);
	cr_assert_eq(cli_term_width(f), 0);
	setenv("COLUMNS", "wide", 1);
	cr_assert_eq(cli_term_width(f), 0, "not a number, and not a terminal");
	setenv("COLUMNS", "20000", 1);
	cr_assert_eq(cli_term_width(f), 0, "out of range, and not a terminal");
	unsetenv("COLUMNS");
	cr_assert_eq(cli_term_width(f), 0);
	cr_assert_eq(cli_term_width(NULL), 0);
	unsetenv("NO_COLOR");
	cr_assert_eq(cli_term_color(f), 0, "a file is not a terminal");
	cr_assert_eq(cli_term_color(NULL), 0);
	fclose(f);
}
