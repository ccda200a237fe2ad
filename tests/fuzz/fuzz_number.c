/* SPDX-License-Identifier: MIT */
/*
 * The one number grammar of every option (pbench_format_parse() in lib/src/base/format.c): 0
 * only for text of the form [+-]digits[.digits][e[+-]digits] ('%' at the end only with
 * PBENCH_FORMAT_PARSE_PCT), and then a finite value, whole with PBENCH_FORMAT_PARSE_INT; a
 * negative error with *out untouched for anything else.
 */
#include "fuzz.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>

#include "pbench.h"

/* The grammar, written again the plain way, to hold the parser to. */
static int grammar(const char *s, unsigned flags)
{
	size_t len = strlen(s), i = 0, digits = 0;

	if ((flags & PBENCH_FORMAT_PARSE_PCT) && len && s[len - 1] == '%')
		len--;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < len && isdigit((unsigned char)s[i]))
		i++, digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			digits++;
	if (!digits)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t e;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		e = i;
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i == e)
			return 0;
	}
	return i == len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	for (unsigned flags = 0; flags < 4; flags++) {
		double v = 12345.678;
		int err = pbench_format_parse(s, flags, &v);

		if (err) {
			fuzz_assert(err == -EINVAL || err == -ERANGE, "'%s' flags %u: %d", s, flags, err);
			fuzz_assert(v == 12345.678, "'%s' flags %u: *out changed on failure", s,
				    flags);
			continue;
		}
		fuzz_assert(grammar(s, flags), "'%s' flags %u: accepted outside the grammar", s,
			    flags);
		fuzz_assert(isfinite(v), "'%s' flags %u: %g", s, flags, v);
		fuzz_assert(!(flags & PBENCH_FORMAT_PARSE_INT) || v == floor(v), "'%s': %g is not whole", s, v);
	}
	free(s);
	return 0;
}
