/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean": the known word nearest to a mistyped one. One rule for every list pbench
 * knows (event names, commands, options, the values of an option), so that a typo gets the
 * same kind of answer wherever it is made. A leaf: it knows no list of its own; the callers
 * give theirs (events_names.c the event names, the CLI its tables).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pbench.h"

#define MAX_WORD 255

static int lower_eq(char a, char b)
{
	return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* The optimal string alignment distance, case ignored: the fewest letters added, removed or
 * changed, or neighbours swapped ("cylces" is 1 from "cycles"). Three rows of the table. */
static int distance(const char *a, size_t la, const char *b, size_t lb)
{
	int rows[3][MAX_WORD + 1], *prev2 = rows[0], *prev = rows[1], *row = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *t;

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int best = prev[j - 1] + !lower_eq(a[i - 1], b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && lower_eq(a[i - 1], b[j - 2]) &&
			    lower_eq(a[i - 2], b[j - 1]) && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			row[j] = best;
		}
		t = prev2;
		prev2 = prev;
		prev = row;
		row = t;
	}
	return prev[lb];
}

static int same_word(const char *a, const char *b)
{
	while (*a && lower_eq(*a, *b)) {
		a++;
		b++;
	}
	return !*a && !*b;
}

int pbench_suggest(const char *word, const char *const *candidates, int n)
{
	size_t len = word ? strlen(word) : 0;
	int best = -1, best_d = 0, tie = 0, limit = (int)len / 3;

	if (!len || len > MAX_WORD || !candidates)
		return -1;
	if (limit < 2)
		limit = 2;
	for (int i = 0; i < n; i++) {
		const char *c = candidates[i];
		size_t lc = c ? strlen(c) : 0;
		int d;

		/* the distance is at least the difference of the lengths */
		if (!lc || lc > MAX_WORD || (lc > len ? lc - len : len - lc) > (size_t)limit)
			continue;
		d = distance(word, len, c, lc);
		if (d > limit)
			continue;
		if (best < 0 || d < best_d) {
			best = i;
			best_d = d;
			tie = 0;
		} else if (d == best_d && !same_word(c, candidates[best])) {
			tie = 1;
		}
	}
	return tie ? -1 : best;
}

