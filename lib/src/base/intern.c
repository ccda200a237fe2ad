/* SPDX-License-Identifier: MIT */
/*
 * Reason strings the library hands out as const char *: each distinct text is kept once, for
 * the life of the process, so that a count or a sample carries a pointer (8 bytes) instead of
 * a copy of its reason in every record, and the pointer stays valid after the counter set it
 * came from is freed (a command's child set is freed after each run).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define MAX_KEPT 4096	/* distinct reasons; a program that makes more gets the last one */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *kept[MAX_KEPT];
static int nkept;

const char *pb_intern(const char *s)
{
	static const char too_many[] = "(the reason was not kept: too many distinct reasons)";
	const char *found = NULL;

	if (!s || !*s)
		return "";
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nkept && !found; i++)
		if (!strcmp(kept[i], s))
			found = kept[i];
	if (!found && nkept < MAX_KEPT && (found = strdup(s)))
		kept[nkept++] = found;
	pthread_mutex_unlock(&lock);
	return found ? found : too_many;
}
