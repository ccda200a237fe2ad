/* SPDX-License-Identifier: MIT */
/*
 * Prose wrapped at a width (cli_wrap, cli/support/term.c, on the library's own rule in
 * lib/src/base/wrap.c): one row per case, the text, the width and the indent, and the lines
 * expected, worked out by hand (a line holds at most width columns; it breaks only at a space
 * past the indent).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "testutil.h"

static char *wrapped(const char *text, int width, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(cli_wrap(f, text, width, indent), 0, "%s", text);
	fclose(f);
	return buf;
}

Test(cli_wrap, table)
{
	static const struct {
		const char *text;
		int width, indent;
		const char *expect;
	} rows[] = {
		/* fits: as it is */
		{ "a short line", 80, 4, "a short line\n" },
		/* exactly the width (12) fits; one more column breaks */
		{ "aaaaa bbbbbb", 12, 2, "aaaaa bbbbbb\n" },
		{ "aaaaa bbbbbbb", 12, 2, "aaaaa\n  bbbbbbb\n" },
		/* the hanging indent on every continuation; the spaces at a break go */
		{ "one two three four five six", 10, 2, "one two\n  three\n  four\n  five six\n" },
		{ "one   two three", 9, 0, "one   two\nthree\n" },
		/* the text's own indent is kept and is not a break point */
		{ "      why: the scheduler moves tasks", 22, 11,
		  "      why: the\n           scheduler\n           moves tasks\n" },
		/* a word longer than the width: a line of its own, whole */
		{ "fix: echo 1 > /sys/devices/system/cpu/cpu1/online now", 20, 5,
		  "fix: echo 1 >\n     /sys/devices/system/cpu/cpu1/online\n     now\n" },
		/* a long first word is not broken before the indent (no gain) */
		{ "  https://example.org/a/very/long/address and more", 16, 4,
		  "  https://example.org/a/very/long/address\n    and more\n" },
		/* width 0: the text unchanged, however long */
		{ "a b  c   d e f g h i j k l m n o p q r s t u v w x y z  ", 0, 4,
		  "a b  c   d e f g h i j k l m n o p q r s t u v w x y z  \n" },
		/* trailing spaces past the width go */
		{ "abc def   ", 7, 0, "abc def\n" },
		/* a '\n' starts a new line; each line wraps with the same indent */
		{ "aa bb cc\n  dd ee ff", 6, 3, "aa bb\n   cc\n  dd\n   ee\n   ff\n" },
		/* UTF-8 characters are one column each (± is two bytes) */
		{ "1.0 \xc2\xb1 0.1 ns", 12, 0, "1.0 \xc2\xb1 0.1 ns\n" },
		/* colour sequences take no column */
		{ "\033[33mwarn\033[0m abcdef", 11, 2, "\033[33mwarn\033[0m abcdef\n" },
		/* an indent over half the width is cut to half */
		{ "aaaa bbbb cccc", 8, 7, "aaaa\n    bbbb\n    cccc\n" },
		{ "", 10, 2, "\n" },
		/* a number keeps its unit ("8.13 ms" is one word), even with punctuation */
		{ "longest 8.13 ms", 12, 2, "longest\n  8.13 ms\n" },
		{ "took 4.1 us, then", 10, 0, "took\n4.1 us,\nthen\n" },
		/* but not a word that is not a unit, nor a unit after a word */
		{ "ran 3 times", 6, 0, "ran 3\ntimes\n" },
		{ "ab ms cd", 4, 0, "ab\nms\ncd\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *got = wrapped(rows[i].text, rows[i].width, rows[i].indent);

		cr_expect_str_eq(got, rows[i].expect, "row %zu: '%s' at %d, indent %d", i,
				 rows[i].text, rows[i].width, rows[i].indent);
		free(got);
	}
}

/* A line over the width is one whose last word starts at the indent or before it, where no
 * break would shorten it: at every width. */
Test(cli_wrap, never_over_width_but_a_word)
{
	const char *text = "the scheduler puts other tasks on CPU 1 and balances load onto it; "
			   "each preemption of the measured code by another task costs a context "
			   "switch: echo 1 | sudo tee /sys/devices/system/cpu/isolated_cpus_long_name";

	for (int width = 1; width <= 120; width++) {
		int indent = width / 2 < 6 ? width / 2 : 6, n = 0;
		char *got = wrapped(text, width, indent), *save = NULL;

		for (char *line = strtok_r(got, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save), n++) {
			const char *sp = strrchr(line, ' ');

			if ((int)strlen(line) > width)
				cr_expect(!sp || sp - line < indent, "width %d: '%s'", width, line);
		}
		cr_expect_gt(n, width < 60 ? 2 : 1, "width %d: %d lines", width, n);
		free(got);
	}
}

Test(cli_wrap, errors)
{
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	cr_expect_eq(cli_wrap(NULL, "x", 80, 0), -EINVAL);
	cr_expect_eq(cli_wrap(f, NULL, 80, 0), -EINVAL);
	cr_expect_eq(cli_wrap(f, "x", -1, 0), -EINVAL);
	cr_expect_eq(cli_wrap(f, "x", 80, -1), -EINVAL);
	fclose(f);
}
