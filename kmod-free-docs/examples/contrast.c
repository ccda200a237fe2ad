/* SPDX-License-Identifier: MIT */
/* contrast.c - the same work unprepared, then on a prepared core, side by side:
 * ./contrast [-v] [CMD...] (-v: the library's diagnostics on stderr, through its log callback) */
#include <stdio.h>
#include <string.h>

#include <pbench.h>

#define PROG "contrast"

/* -v: the library's diagnostics (an event it could not open and why, a warning about the
 * measurement) on stderr, through the log callback. */
static void log_to_stderr(int level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s: %s: %s\n", PROG, level == PBENCH_LOG_ERROR ? "error" :
		level == PBENCH_LOG_WARN ? "warning" : level == PBENCH_LOG_INFO ? "info" : "debug",
		msg);
}

int main(int argc, char **argv)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;	/* 20 runs a set, 1.2 s warm-up */
	struct pbench_runs *r;
	double spread_ratio;
	int err;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		pbench_log_set(log_to_stderr, NULL);
		argc--;
		argv++;
	}
	o.mode = PBENCH_RUNS_CONTRAST;
	o.argv = argc > 1 ? argv + 1 : NULL;	/* a command, or the built-in xor loop */
	o.events = "task-clock,context-switches";
	o.runs = 5, o.warmup_ms = 100, o.iterations = 20000000;	/* short, for make test */
	err = pbench_runs_new(&r, &o);
	if (!err)
		err = pbench_runs_run(r);
	if (!err)
		err = pbench_runs_write_text(r, stdout);
	if (!err && !pbench_runs_contrast(r, &spread_ratio, NULL, NULL, 0))
		printf("prepared runs spread %.3gx less\n", spread_ratio);
	if (err)
		fprintf(stderr, "contrast: %s\n", pbench_strerror(err));
	pbench_runs_free(r);
	return err ? 1 : 0;
}
