/* SPDX-License-Identifier: MIT */
/* What every JSON writer of the library shares beyond jsonutil.h's inlines: the one shape of a
 * summary, and writing a document out. A leaf: it calls nothing of the library. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "base/base.h"
#include "base/jsonutil.h"

json_t *pb_json_summary(const struct pbench_summary *s, const char *suffix, int *bad)
{
	static const struct {
		const char *key;
		size_t off;
	} in_unit[] = {
#define F(k) { #k, offsetof(struct pbench_summary, k) }
		F(mean), F(sem), F(ci_lo), F(ci_hi), F(median), F(min), F(max), F(q1), F(q3),
		F(trimmed_mean), F(stddev), F(mad),
#undef F
	};
	json_t *j = json_object();
	char key[64];

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "n", unum(s->n));
	for (size_t i = 0; i < PB_ARRAY_SIZE(in_unit); i++) {
		snprintf(key, sizeof(key), "%s%s", in_unit[i].key, suffix);
		SET(j, key, num(*(const double *)((const char *)s + in_unit[i].off)));
	}
	SET(j, "ci_level", num(s->ci_level));
	SET(j, "cv_pct", num(s->cv_pct));
	SET(j, "spread_pct", num(s->spread_pct));
	SET(j, "outliers_low_mild", unum(s->outliers_low_mild));
	SET(j, "outliers_low_severe", unum(s->outliers_low_severe));
	SET(j, "outliers_high_mild", unum(s->outliers_high_mild));
	SET(j, "outliers_high_severe", unum(s->outliers_high_severe));
	SET(j, "mvalue", num(s->mvalue));
	SET(j, "bimodal", json_boolean(s->bimodal));
	return j;
}

/* jansson's writes, with the errno of the one that failed kept: a large chunk goes past
 * stdio's buffer, so the flush after it has nothing to fail on and cannot tell ENOSPC. */
struct dump_to {
	FILE *f;
	int err;
};

static int dump_chunk(const char *buf, size_t len, void *arg)
{
	struct dump_to *to = arg;

	errno = 0;
	if (fwrite(buf, 1, len, to->f) == len)
		return 0;
	to->err = errno ? -errno : -EIO;
	return -1;
}

int pb_json_dump(json_t *root, int bad, FILE *f)
{
	struct dump_to to = { .f = f };
	int err;

	if (bad || !root) {
		json_decref(root);
		return -ENOMEM;
	}
	/* jansson's 17 significant digits: every number reads back as the same double
	 * (0.95 is written 0.94999999999999996, which is that double) */
	err = json_dump_callback(root, dump_chunk, &to, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (to.err)
		return to.err;
	if (err)
		return -ENOMEM;	/* jansson's own failure, not a write's */
	errno = 0;
	if (fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return pb_stream_end(f);
}

json_t *pb_json_mem_figure(const struct pbench_summary *s, int exact, int *bad)
{
	json_t *j = json_object();

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "exact", json_boolean(exact));
	SET(j, "mean", num(s->mean));
	SET(j, "summary", pb_json_summary(s, "", bad));
	return j;
}
