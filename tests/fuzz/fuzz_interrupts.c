/* SPDX-License-Identifier: MIT */
/*
 * /proc/interrupts and /proc/softirqs (the same layout): the header through pb_irq_column(),
 * every row through pb_irq_parse_line(), for a few CPUs, the way both callers do it: the noise
 * probe (noise.c) with lines cut at '\n', the irq.affinity check (check_irq.c) with getline()'s
 * lines that keep it.
 */
#include "fuzz.h"

#include <limits.h>

#include "base/irq_table.h"

static void parse_as(const char *text, int cpu, int keep_newline)
{
	char *copy = strdup(text), *pos = copy, *header, *line;
	int col;

	if (!copy)
		abort();
	header = fuzz_next_line(&pos);
	if (!header) {
		free(copy);
		return;
	}
	col = pb_irq_column(header, cpu);
	fuzz_assert(col >= -1, "column %d", col);
	while ((line = fuzz_next_line(&pos))) {
		struct pb_irq_row r;
		int has_colon = strchr(line, ':') != NULL, err;
		char *l = line;

		if (keep_newline) {
			size_t n = strlen(line);

			l = malloc(n + 2);
			if (!l)
				abort();
			memcpy(l, line, n);
			memcpy(l + n, "\n", 2);
		}
		memset(&r, 0x5a, sizeof(r));
		err = pb_irq_parse_line(l, col, &r);
		fuzz_assert(err == (has_colon ? 0 : -1), "a row is a line with a colon: %d", err);
		if (!err) {
			fuzz_assert(memchr(r.label, '\0', sizeof(r.label)) &&
				    memchr(r.name, '\0', sizeof(r.name)), "unterminated label or name");
			fuzz_assert(!strchr(r.name, '\n'), "a name with a newline: '%s'", r.name);
			fuzz_assert(col >= 0 || r.count == 0, "a count without a column");
		}
		if (l != line)
			free(l);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int cpus[] = { 0, 1, 2, 3, 7, 31, 4095, INT_MAX };
	char *text = fuzz_cstr(data, size);

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		parse_as(text, cpus[i], i & 1);
	free(text);
	return 0;
}
