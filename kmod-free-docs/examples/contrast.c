/* SPDX-License-Identifier: MIT */
/* contrast.c - the same work unprepared, then on a prepared core, side by side: ./contrast [CMD] */
#include <stdio.h>

#include <pbench.h>

int main(int argc, char **argv)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;	/* 20 runs a set, 1.2 s warm-up */
	struct pbench_runs *r;
	double spread_ratio;
	int err;

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
		fprintf(stderr, "contrast: %s\n", r ? pbench_runs_error(r) : pbench_strerror(err));
	pbench_runs_free(r);
	return err ? 1 : 0;
}
