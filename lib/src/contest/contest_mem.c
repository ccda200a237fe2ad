/* SPDX-License-Identifier: MIT */
/* pbench compare --memory in the library, as function memory runs are: every entrant's
 * command run again, untimed, with the allocator shim preloaded, after the rounds, and the
 * counts kept with the contest for its reports. */
#include <errno.h>
#include <stdlib.h>

#include "base/base.h"
#include "measure/measure.h"
#include "contest/contest.h"

int pbench_contest_count_memory(struct pbench_contest *c, int n)
{
	struct pbench_mem_run **runs;
	char *const **argv;
	int err = 0;

	if (!c || n < 1 || c->n < 1)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !c ? "c is NULL" : n < 1 ?
			       "n is less than 1" : "no entrant");
	for (int i = 0; i < c->n; i++)
		if (!c->e[i].r || !pb_runs_argv(c->e[i].r))
			return pb_fail(-EINVAL, "%s(): entrant %d is not a command", __func__, i);
	runs = calloc((size_t)c->n, sizeof(*runs));
	argv = calloc((size_t)c->n, sizeof(*argv));
	for (int i = 0; runs && argv && i < c->n && !err; i++) {
		argv[i] = pb_runs_argv(c->e[i].r);
		runs[i] = calloc((size_t)n, sizeof(*runs[i]));
		err = runs[i] ? 0 : -ENOMEM;
	}
	if (!runs || !argv)
		err = -ENOMEM;
	if (!err)
		err = pb_mem_runs_count(argv, c->n, n, !(c->o.flags & PBENCH_CONTEST_SHOW_OUTPUT),
					    c->o.stop, runs);
	/* stopped (1): the runs done are kept, each one not done says so */
	for (int i = 0; i < c->n && err >= 0; i++) {
		int e = pb_contest_attach_memory(c, i, runs[i], n);

		err = e < 0 ? e : err;
	}
	for (int i = 0; runs && i < c->n; i++)
		free(runs[i]);
	free(runs);
	free(argv);
	return err;
}
