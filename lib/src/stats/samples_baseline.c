/* SPDX-License-Identifier: MIT */
/*
 * A baseline: the times a contest compares with, read from the JSON pbench compare or pbench
 * stat wrote before. Which set of the file is the baseline, and whether its times can be one
 * (times in ns, two runs at least, none of them failures), is decided here, once, for every
 * caller (pbench compare --baseline).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/samples.h"

/* The set to compare with: the only one, or the one named name; -1 with why filled. */
static int pick_set(const struct pbench_samples *s, const char *name, const char *path,
		    char *why, size_t wlen)
{
	int n = pbench_samples_nr(s), near;
	const char *each[64];
	char names[512] = "", dym[160] = "";
	size_t len = 0;

	if (n == 1)
		return 0;
	for (int i = 0; name && i < n; i++)
		if (!strcmp(pbench_samples_name(s, i), name))
			return i;
	for (int i = 0; i < n && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s'%s'", i ? ", " : "",
					pbench_samples_name(s, i));
	for (int i = 0; i < n && i < 64; i++)
		each[i] = pbench_samples_name(s, i);
	near = name ? pbench_suggest(name, each, n < 64 ? n : 64) : -1;
	if (near >= 0)
		snprintf(dym, sizeof(dym), " (did you mean '%s'?)", each[near]);
	snprintf(why, wlen, "the baseline '%s' holds %d sets of times (%s) and none is named '%s'%s: "
		 "name the command as one of them with -n", path, n, names, name ? name : "", dym);
	return -1;
}

/* Set k's times into *out, or -ENOMSG with why saying why they cannot be a baseline. */
static int take_times(const struct pbench_samples *s, int k, const char *path, double **out,
		      size_t *nout, char *why, size_t wlen)
{
	size_t n;
	const double *x = pbench_samples_values(s, k, &n);

	if (!pbench_samples_unit(s, k) || strcmp(pbench_samples_unit(s, k), "ns") || n < 2) {
		snprintf(why, wlen, "the baseline '%s': set '%s' is not times of two runs at least",
			 path, pbench_samples_name(s, k));
		return -ENOMSG;
	}
	if (pbench_samples_failed(s, k)) {	/* as a live run's failures are refused */
		snprintf(why, wlen, "the baseline '%s': %zu runs of '%s' failed (exited non-zero or "
			 "were killed): its times are of failures", path, pbench_samples_failed(s, k),
			 pbench_samples_name(s, k));
		return -ENOMSG;
	}
	*out = malloc(n * sizeof(**out));
	if (!*out) {
		snprintf(why, wlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(*out, x, n * sizeof(**out));
	*nout = n;
	return 0;
}

static int baseline(const char *path, const char *name, double **out, size_t *n, char *why,
		    size_t wlen, char *warn, size_t warnlen)
{
	struct pbench_samples *s = NULL;
	char buf[512] = "";
	int err, k;

	*out = NULL;
	*n = 0;
	warn[0] = why[0] = 0;
	err = pbench_samples_new(&s);
	if (!err)
		err = pb_samples_add_file(s, path, NULL, buf, sizeof(buf));
	if (err > 0 && pbench_samples_warning(s))
		snprintf(warn, warnlen, "%s", pbench_samples_warning(s));
	if (err < 0 && err != -EINVAL && err != -EILSEQ && err != -ENODATA) {
		snprintf(why, wlen, "cannot read the baseline: %s", buf);
		err = err == -ENOMEM ? err : -EIO;
	} else if (err <= 0) {
		snprintf(why, wlen, "the baseline %s", err < 0 && *buf ? buf : "holds no times");
		err = -EINVAL;
	} else {
		k = pick_set(s, name, path, why, wlen);
		err = k < 0 ? -ENOMSG : take_times(s, k, path, out, n, why, wlen);
	}
	pbench_samples_free(s);
	return err;
}

int pbench_samples_baseline(const char *path, const char *name, double **out, size_t *n,
			    char *warn, size_t warnlen)
{
	char why[1024] = "";	/* as pbench compare said them */

	pb_fail_clear();
	if (!path || !out || !n || !warn || !warnlen)
		return pb_fail(-EINVAL, "%s(): an argument is NULL or 0", __func__);
	return pb_samples_said(baseline(path, name, out, n, why, sizeof(why), warn, warnlen), why);
}
