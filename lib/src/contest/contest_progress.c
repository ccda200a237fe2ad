/* SPDX-License-Identifier: MIT */
/* The progress of a contest as one line of text, for a caller's progress callback (pbench
 * compare shows it on a terminal): what every caller would otherwise format alike. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "contest/contest.h"

int pbench_contest_progress_text(const struct pbench_contest_progress *p, char *buf, size_t len)
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
		return pb_fail(-EINVAL, "%s(): p, its phase or buf is NULL", __func__);
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
