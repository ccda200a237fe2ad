/* SPDX-License-Identifier: MIT */
/*
 * A text writer's prose wrapped at the caller's text_width (output.h), on a recorded machine's
 * findings: the words of the unwrapped text, in order, every line within the width. The rule
 * of the wrapping itself, row by row: tests/unit/test_cli_wrap.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *env_text(struct pbench_check *env, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pbench_check_write_text(env, f, 0, width), 0);
	fclose(f);
	return buf;
}

/* The findings of a recorded laptop at 90 columns: every line fits (the longest word, a
 * sysfs path in a fix, ends at column 84), the words are those of the unwrapped text in the
 * same order, and width 0 is that unwrapped text, with lines over 200 columns. */
Test(wrap, env_text)
{
	struct pbench_check *env = NULL;
	char *flat, *wrapped90, *save = NULL;
	size_t longest = 0;

	use_tree("intel-laptop");
	cr_assert_eq(pbench_check(&env, NULL, 0, PBENCH_CHECK_NO_WINDOW), 0);
	flat = env_text(env, 0);
	wrapped90 = env_text(env, 90);
	cr_expect_eq(pbench_check_write_text(env, stdout, 0, -1), -EINVAL);
	cr_expect_eq(pbench_check_write_text(NULL, stdout, 0, 90), -EINVAL);
	pbench_check_free(env);
	for (char *p = flat, *w = wrapped90; *p || *w;) {	/* the same words */
		p += strspn(p, " \n");
		w += strspn(w, " \n");
		cr_assert_eq(strcspn(p, " \n"), strcspn(w, " \n"), "at '%.40s' / '%.40s'", p, w);
		cr_assert_eq(strncmp(p, w, strcspn(p, " \n")), 0, "at '%.40s' / '%.40s'", p, w);
		p += strcspn(p, " \n");
		w += strcspn(w, " \n");
	}
	for (char *line = strtok_r(flat, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		longest = strlen(line) > longest ? strlen(line) : longest;
	cr_expect_gt(longest, 200);
	for (char *line = strtok_r(wrapped90, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		cr_expect_leq(strlen(line), 90, "'%s'", line);
	free(flat);
	free(wrapped90);
}
