/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean" (pbench_suggest, lib/src/base/suggest.c): one row per case, the word, its
 * candidates and the one expected, or none. The distances are worked out by hand in each
 * row's comment; the limit is a third of the word's length, at least 2.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "testutil.h"

#define MAX_CAND 8

static const char *const commands[] = { "analyze", "check", "compare", "jitter", "list", "stat",
					NULL };
static const char *const options[] = { "runs", "events", "mode", "warmup", "warmup-ms", "cpu",
				       NULL };
static const char *const modes[] = { "unprepared", "prepared", "contrast", NULL };

Test(suggest, table)
{
	static const struct {
		const char *word;
		const char *const *cand;	/* NULL-ended */
		const char *expect;		/* NULL: no suggestion */
	} rows[] = {
		{ "stats", commands, "stat" },		/* 1: a letter added */
		{ "chek", commands, "check" },		/* 1: a letter left out */
		{ "comapre", commands, "compare" },	/* 1: two neighbours swapped */
		{ "STAT", commands, "stat" },		/* 0: case is ignored */
		{ "ls", commands, "list" },		/* 2, the limit of a short word */
		{ "st", commands, NULL },		/* 2 from stat and 2 from list: a guess */
		{ "frobnicate", commands, NULL },	/* 3 at most for 10 letters: none is */
		{ "runz", options, "runs" },		/* 1 */
		{ "warmupms", options, "warmup-ms" },	/* 1 (warmup is 2) */
		{ "prepard", modes, "prepared" },	/* 1 (unprepared is 3) */
		{ "contarst", modes, "contrast" },	/* 1: a swap is one edit, not two */
		{ "nprepared", modes, NULL },		/* 1 from both unprepared and prepared */
		{ "", modes, NULL },			/* nothing to compare */
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		int n = 0, k;

		while (rows[i].cand[n])
			n++;
		k = pbench_suggest(rows[i].word, rows[i].cand, n);
		if (!rows[i].expect)
			cr_expect_eq(k, -1, "'%s': suggested '%s', want none", rows[i].word,
				     k >= 0 ? rows[i].cand[k] : "");
		else
			cr_expect(k >= 0 && !strcmp(rows[i].cand[k], rows[i].expect),
				  "'%s': got '%s', want '%s'", rows[i].word,
				  k >= 0 ? rows[i].cand[k] : "(none)", rows[i].expect);
	}
}

/* The edges of the rule, each row with its own candidates: the index expected, or -1. */
Test(suggest, edges)
{
	static const struct {
		const char *word;
		const char *cand[MAX_CAND];
		int n, expect;
	} rows[] = {
		/* a swap is 1, so "ba" beats "abcd" (2); counted as two edits they would tie */
		{ "ab", { "abcd", "ba" }, 2, 1 },
		/* the same word twice (case aside) is no choice to guess between */
		{ "cylces", { "cycles", "CYCLES" }, 2, 0 },
		/* NULL candidates are skipped */
		{ "cylces", { NULL, "cycles" }, 2, 1 },
		/* 12 letters: 4 changes are near enough, 5 are not */
		{ "abcdefghijkl", { "abcdefghWXYZ" }, 1, 0 },
		{ "abcdefghijkl", { "abcdefgVWXYZ" }, 1, -1 },
		/* 2 letters: 2 added are near enough, 3 are not */
		{ "xy", { "xyzw" }, 1, 0 },
		{ "xy", { "xyzwv" }, 1, -1 },
		/* the nearest wins over a farther one within the limit, wherever it is */
		{ "memwalck", { "xor", "memwalk" }, 2, 1 },
		/* no candidates */
		{ "stat", { NULL }, 0, -1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		cr_expect_eq(pbench_suggest(rows[i].word, rows[i].cand, rows[i].n), rows[i].expect,
			     "row %zu ('%s')", i, rows[i].word);
}

/* Words too long to be names match nothing, and NULLs are no crash. */
Test(suggest, bounds)
{
	char w[300];
	const char *cand[] = { w };

	memset(w, 'a', sizeof(w) - 1);
	w[sizeof(w) - 1] = '\0';
	cr_expect_eq(pbench_suggest(w, cand, 1), -1);
	cr_expect_eq(pbench_suggest(NULL, cand, 1), -1);
	cr_expect_eq(pbench_suggest("stat", NULL, 3), -1);
}

