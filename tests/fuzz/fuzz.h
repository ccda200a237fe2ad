/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target shares. A target is tests/fuzz/fuzz_NAME.c defining
 * LLVMFuzzerTestOneInput(); `make fuzz` links it with libFuzzer (clang), `make test` links it
 * with replay.c, which feeds it each file of tests/fuzz/corpus/NAME/ under ASan+UBSan.
 */
#ifndef PBENCH_FUZZ_H
#define PBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A promise of the code under test that does not hold: say which, and crash, so that the
 * fuzzer keeps the input and the replay fails on it. */
#define fuzz_assert(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: '%s' does not hold: ", __FILE__,	\
				__LINE__, #cond);				\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

/* The input as the C string a parser would get from a file read into a buffer: a NUL byte
 * ends it there, as it does for them. Never NULL (out of memory aborts). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The next line of *pos (its '\n' replaced by NUL), or NULL at the end. */
static inline char *fuzz_next_line(char **pos)
{
	char *s = *pos, *nl;

	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = s + strlen(s);
	}
	return s;
}

#endif
