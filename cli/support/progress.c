/* SPDX-License-Identifier: MIT */
/* The progress of a set of runs or of a contest as one line of text, for the progress
 * callbacks of pbench stat and compare (shown on a terminal). On the public API only. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pbench.h"
#include "support.h"

int cli_runs_progress_text(const struct pbench_runs_progress *p, char *buf, size_t len)
{
	char est[128] = "", left[64] = "", of[32] = "", m[32];
	const char *mode = p ? pbench_runs_mode_name(p->mode) : "";
	/* a caller's struct from before the metric has no metric */
	const char *metric = p && p->size >= offsetof(struct pbench_runs_progress, metric) +
			     sizeof(p->metric) ? p->metric : NULL;

	if (!p || !p->phase || !buf || !len)
		return -EINVAL;
	if (!strcmp(p->phase, "preparing"))
		return snprintf(buf, len, "%s: preparing (pin, memory, priority probe, warm-up)",
				mode) < 0 ? -EINVAL : 0;
	if (!strcmp(p->phase, "warm-up"))
		return snprintf(buf, len, "%s: warm-up runs (not kept)", mode) < 0 ? -EINVAL : 0;
	if (isfinite(p->mean_ns)) {
		pbench_format_ns(m, sizeof(m), p->mean_ns, 3);
		snprintf(est, sizeof(est), isfinite(p->sem_pct) ? ", %s ± %.2g%%%s%.64s" : ", %s",
			 m, p->sem_pct, metric ? " on " : "", metric ? metric : "");
	}
	if (p->target_sem_pct > 0)
		snprintf(of, sizeof(of), " (target ± %.2g%%)", p->target_sem_pct);
	else
		snprintf(of, sizeof(of), " of %ld", p->runs);
	if (isfinite(p->left_s))
		snprintf(left, sizeof(left), ", %.1f s left", p->left_s);
	return snprintf(buf, len, "%s: run %d%s%s%s", mode, p->run + 1, of, est, left) < 0 ?
	       -EINVAL : 0;
}

int cli_contest_progress_text(const struct pbench_contest_progress *p, char *buf, size_t len)
{
	static const struct { const char *phase, *words; } says[] = {
		{ "check", "running each command once to check they do the same work" },
		{ "setup", "running the setup command" },
		{ "preparing", "preparing (pin, memory, priority probe, warm-up)" },
		{ "warm-up", "warm-up runs" },
	};
	char ratio[160] = "", left[48] = "";
	/* a caller's struct from before the metric has no metric */
	const char *metric = p && p->size >= offsetof(struct pbench_contest_progress, metric) +
			     sizeof(p->metric) ? p->metric : NULL;

	if (!p || !p->phase || !buf || !len)
		return -EINVAL;
	for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++)
		if (!strcmp(p->phase, says[k].phase))
			return snprintf(buf, len, "%s", says[k].words) < 0 ? -EINVAL : 0;
	if (isfinite(p->ratio))
		snprintf(ratio, sizeof(ratio), ", %.64s ratio %.3f (%.3f-%.3f)",
			 metric ? metric : "time", p->ratio, p->ratio_lo, p->ratio_hi);
	if (isfinite(p->left_s))
		snprintf(left, sizeof(left), ", about %.1f s left", p->left_s);
	return snprintf(buf, len, "round %ld%s%s", p->round + 1, ratio, left) < 0 ? -EINVAL : 0;
}
