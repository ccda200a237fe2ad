/* SPDX-License-Identifier: MIT */
/* What a contest says when it is done, one finding at a time (pbench_contest_outcome()): each
 * entrant's warnings and failures, an interruption, and the regression gate, so that every
 * caller says the same sentences in the same order instead of assembling them. */
#include <errno.h>
#include <stdio.h>

#include "base/base.h"
#include "runs/runs.h"
#include "contest/contest.h"

/* Entrant i's findings: its runs' warnings, failed runs, a state not restored, --strict. */
static void entrant(const struct pbench_contest *c, int i, unsigned flags, struct pb_outcome *o)
{
	struct pbench_contest_result r = { .size = sizeof(r) };
	const struct pbench_runs *runs = pbench_contest_runs(c, i);
	struct pbench_runs_set si = { .size = sizeof(si) };
	char why[1024];

	pbench_contest_result(c, i, &r);
	for (int k = 0; runs && pbench_runs_warning(runs, r.name, k, why, sizeof(why)) == 1; k++)
		pb_outcome_say(o, PBENCH_OUTCOME_WARNING, "%s", why);
	if (r.failed)
		pb_outcome_say(o, PBENCH_OUTCOME_ERROR, "%d of %ld runs of '%s' failed (exited "
			       "non-zero or were killed): its times are of failures", r.failed,
			       r.runs, r.name);
	if (runs && !pbench_runs_set_info(runs, 0, &si) && si.restore_err)
		pb_outcome_say(o, PBENCH_OUTCOME_ERROR, "the prepared state was not fully "
			       "restored: %s", pbench_strerror(si.restore_err));
	if (flags & PBENCH_OUTCOME_STRICT)
		pb_outcome_strict(o, runs);
}

int pbench_contest_outcome(const struct pbench_contest *c, unsigned flags, double fail_pct,
			   int k, char *buf, size_t len)
{
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pb_outcome o = { .k = k, .buf = buf, .len = len };

	if (!c || k < 0 || !buf || !len)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !c ? "c is NULL" : k < 0 ?
			       "k is negative" : "no buffer");
	*buf = 0;
	pbench_contest_info(c, &ci);
	for (int i = 0; i < ci.nr_entrants && !o.found; i++)
		entrant(c, i, flags, &o);
	if (flags & PBENCH_OUTCOME_INTERRUPTED) {
		pb_outcome_say(&o, PBENCH_OUTCOME_ERROR, "interrupted after %ld rounds", ci.rounds);
		return o.found;
	}
	for (int i = 0; fail_pct >= 0 && i < ci.nr_entrants && !o.found; i++) {
		char why[2048];
		int v;

		if (i == ci.reference)
			continue;
		v = pbench_contest_slower(c, i, fail_pct, why, sizeof(why));
		/* 2: a baseline's "undecided: ..."; a failure when the caller asked so */
		pb_outcome_say(&o, v == 1 ? PBENCH_OUTCOME_REGRESSION : v == 2 &&
			       (flags & PBENCH_OUTCOME_FAIL_UNDECIDED) ? PBENCH_OUTCOME_UNDECIDED :
			       PBENCH_OUTCOME_NOTE, "%s%s",
			       v == 1 ? "regression: " : v == 2 ? "" : "no regression: ", why);
	}
	return o.found;
}
