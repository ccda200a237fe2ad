/* SPDX-License-Identifier: MIT */
/* compare_commands.c - is B faster than A, and how sure: ./compare_commands ["CMD A" "CMD B"]
 * (each command split at spaces; by default two sleeps, 20 ms and 24 ms) */
#include <stdio.h>
#include <string.h>

#include <pbench.h>

/* "sleep 0.02" -> { "sleep", "0.02", NULL }: words at spaces, in place. */
static void words(char *line, char **argv, int max)
{
	int n = 0;

	for (char *w = strtok(line, " "); w && n < max - 1; w = strtok(NULL, " "))
		argv[n++] = w;
	argv[n] = NULL;
}

int main(int argc, char **argv)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest_entrant ea = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest_entrant eb = PBENCH_CONTEST_ENTRANT_INIT;
	char a_line[256] = "sleep 0.02", b_line[256] = "sleep 0.024", verdict[512];
	char *a[16], *b[16];
	struct pbench_contest *c = NULL;
	int err;

	if (argc == 3) {
		snprintf(a_line, sizeof(a_line), "%s", argv[1]);
		snprintf(b_line, sizeof(b_line), "%s", argv[2]);
	}
	words(a_line, a, 16);
	words(b_line, b, 16);
	o.mode = PBENCH_RUNS_UNPREPARED;	/* no pinning, no warm-up: short, for make test */
	o.events = "task-clock,context-switches";
	o.max_time_s = 10;
	ea.name = "a";
	ea.argv = a;
	eb.name = "b";
	eb.argv = b;
	err = pbench_contest_new(&c, &o);
	if (!err)
		err = pbench_contest_add(c, &ea);
	if (err >= 0)
		err = pbench_contest_add(c, &eb);
	if (err >= 0)
		err = pbench_contest_run(c);
	if (!err)
		err = pbench_contest_verdict_text(c, 1, verdict, sizeof(verdict));
	if (err) {
		fprintf(stderr, "compare_commands: %s\n", pbench_strerror(err));
		pbench_contest_free(c);
		return 1;
	}
	printf("%s\n", verdict);	/* "b is 1.2x slower than a (99.9% interval ...)" */
	pbench_contest_free(c);
	return 0;
}
