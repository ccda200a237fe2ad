/* SPDX-License-Identifier: MIT */
/*
 * The one number grammar of every option (cli_parse_number in cli/cli.c): 0 only for text of
 * the form [+-]digits[.digits][e[+-]digits] ('%' at the end only with CLI_NUM_PCT), and then a
 * finite value, whole with CLI_NUM_INT; -1 with *out untouched for anything else.
 */
#include "fuzz.h"

#include <ctype.h>
#include <math.h>

#include "../../cli/cli.c"

/* The grammar, written again the plain way, to hold the parser to. */
static int grammar(const char *s, unsigned flags)
{
	size_t len = strlen(s), i = 0, digits = 0;

	if ((flags & CLI_NUM_PCT) && len && s[len - 1] == '%')
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

	for (unsigned flags = 0; flags < 8; flags++) {
		double v = 12345.678;
		int err = cli_parse_number(s, flags, &v);

		if (err) {
			fuzz_assert(err == -1, "'%s' flags %u: %d", s, flags, err);
			fuzz_assert(v == 12345.678, "'%s' flags %u: *out changed on failure", s,
				    flags);
			continue;
		}
		fuzz_assert(grammar(s, flags), "'%s' flags %u: accepted outside the grammar", s,
			    flags);
		fuzz_assert(isfinite(v), "'%s' flags %u: %g", s, flags, v);
		fuzz_assert(!(flags & CLI_NUM_INT) || v == floor(v), "'%s': %g is not whole", s, v);
	}
	free(s);
	return 0;
}
