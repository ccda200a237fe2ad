/* SPDX-License-Identifier: MIT */
/*
 * /proc/stat, line by line through pb_parse_cpu_times(), as the checks' window (env.c) and the
 * noise probe's steal time (noise.c) read it.
 */
#include "fuzz.h"

#include "base/base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *pos = text, *line;

	while ((line = fuzz_next_line(&pos))) {
		struct pb_cpu_times t;
		int cpu = -1, n = pb_parse_cpu_times(line, &cpu, &t);

		fuzz_assert(n >= -1 && n <= 8, "'%s': %d fields", line, n);
		if (n < 0)
			continue;
		fuzz_assert(cpu >= 0, "'%s': CPU %d", line, cpu);
		fuzz_assert(t.valid == (n > 0), "'%s': valid %d with %d fields", line, t.valid, n);
	}
	free(text);
	return 0;
}
