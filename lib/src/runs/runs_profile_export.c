// SPDX-License-Identifier: MIT
/*
 * A set's profile exported for other tools and for people (issue 36, item 4): the flame graph
 * (pbench_runs_write_flamegraph(): an SVG drawn by pbench, the mean run's stacks, so a
 * frame's width is its share of the table's and its tooltip's time is a run's) and pprof's
 * profile.proto (pbench_runs_write_pprof(): the stacks of all the runs summed, so a sample
 * count is a whole number and `go tool pprof -top`'s flat and cum shares are the table's self
 * and total shares). Both from the set's stack table (stacks/stacks_export.c) through the
 * writers of profile/export.h; the titles, pprof's period, duration and comments from the
 * set's figures (pbench_runs_profile_info()). And --annotate fed by the profile
 * (pbench_runs_profile_annotate()): the samples whose leaf is in the listing's file, at their
 * file offsets, marked on its instructions as a sampled run's would be.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "listing/listing.h"
#include "profile/export.h"
#include "stacks/stacks.h"
#include "runs/runs_inner.h"

/* The command, its words joined by spaces, cut at len - 4 with "...". */
static void command_of(const struct pbench_runs *r, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (char *const *a = r->subject.argv; a && *a && n < len; a++) {
		int k = snprintf(buf + n, len - n, "%s%s", n ? " " : "", *a);

		n += k > 0 ? (size_t)k : 0;
	}
	if (n >= len && len > 4)
		strcpy(buf + len - 4, "...");
	if (!buf[0])
		snprintf(buf, len, "the workload");
}

static int is_time(const char *event)
{
	return !strcmp(event, "cpu-clock") || !strcmp(event, "task-clock");
}

/* Set s's table and its info, or the error (-ENOENT: no profile). */
static int prepare(const struct pbench_runs *r, int s, FILE *f, const char *fn,
		   const struct pb_stacks **t, struct pbench_profile_info *info)
{
	int err;

	if (!f && strcmp(fn, "pbench_runs_profile_annotate"))
		return pb_fail(-EINVAL, "%s(): f is NULL", fn);
	*info = (struct pbench_profile_info){ .size = sizeof(*info) };
	err = pbench_runs_profile_info(r, s, info);
	if (err)
		return err;
	*t = pb_runs_profile_stacks(r, s);
	return *t ? 0 : -ENOENT;
}

int pbench_runs_write_flamegraph(const struct pbench_runs *r, int s, FILE *f)
{
	const struct pb_stacks *t;
	struct pbench_profile_info info;
	struct pb_stacks_x x;
	char cmd[200], sub[400];
	int err = prepare(r, s, f, __func__, &t, &info);

	if (err)
		return err;
	err = pb_stacks_to_x(t, PB_STACKS_X_MEAN, NULL, &x);
	if (err)
		return err;
	command_of(r, cmd, sizeof(cmd));
	snprintf(sub, sizeof(sub), "the mean run of %d: %llu samples of %s at %g Hz in all, "
		 "%s call graph", info.runs, (unsigned long long)info.samples, info.event,
		 info.freq, pbench_profile_mode_name(info.mode));
	struct pb_flame_opts o = { .title = cmd, .subtitle = sub,
				   .unit = is_time(info.event) ? "ns" : info.event };
	err = pb_flame_write_svg(f, x.stacks, x.n, &o);
	pb_stacks_x_free(&x);
	return err ? err : pb_stream_end(f);
}

/* The comments pprof shows: the command, the runs and samples, the caveats a line each. */
static char **comments_of(const struct pbench_runs *r, const struct pbench_profile_info *info,
			  const char *cmd)
{
	size_t n = 3;
	char **c;
	const char *p;

	for (p = info->caveats; *p; p++)
		n += *p == '\n';
	c = calloc(n + 1, sizeof(*c));
	if (!c)
		return NULL;
	n = 0;
	if (asprintf(&c[n++], "pbench --profile: %s", cmd) < 0 ||
	    asprintf(&c[n++], "%d runs summed, %llu samples of %s at %g Hz, %s call graph",
		     info->runs, (unsigned long long)info->samples, info->event, info->freq,
		     pbench_profile_mode_name(info->mode)) < 0)
		goto nomem;
	for (p = info->caveats; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (!(c[n++] = strndup(p, len)))
			goto nomem;
		p += len + (e != NULL);
	}
	(void)r;
	return c;
nomem:
	for (size_t i = 0; c[i]; i++)
		free(c[i]);
	free(c);
	return NULL;
}

int pbench_runs_write_pprof(const struct pbench_runs *r, int s, FILE *f)
{
	const struct pb_stacks *t;
	struct pbench_profile_info info;
	struct pb_stacks_x x;
	struct timespec now;
	char cmd[200], **comments;
	const struct pb_set *set;
	int err = prepare(r, s, f, __func__, &t, &info);

	if (err)
		return err;
	set = &r->sets[s];
	err = pb_stacks_to_x(t, PB_STACKS_X_SUM, NULL, &x);
	if (err)
		return err;
	command_of(r, cmd, sizeof(cmd));
	comments = comments_of(r, &info, cmd);
	if (!comments) {
		pb_stacks_x_free(&x);
		return -ENOMEM;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	int time = is_time(info.event);
	struct pb_pprof_opts o = {
		.value_type = time ? "cpu" : info.event,
		.value_unit = time ? "nanoseconds" : "count",
		/* cpu-clock's period is its nanoseconds between samples; an event's, sampled at a
		 * rate, varies: its mean over the samples */
		.period = (int64_t)llround(time ? 1e9 / info.freq :
					   x.samples > 0 ? x.total / x.samples : 0),
		/* the runs' start: the end of the last less the set's elapsed time */
		.time_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec -
			   (int64_t)llround(set->elapsed_s * 1e9),
		/* what the samples cover: the runs' timed spans summed */
		.duration_ns = set->have_summary && isfinite(set->s_ns.mean) ?
			       (int64_t)llround(set->s_ns.mean * info.runs) : 0,
		.comments = (const char *const *)comments,
	};
	err = pb_pprof_write(f, x.stacks, x.n, &o);
	for (size_t i = 0; comments[i]; i++)
		free(comments[i]);
	free(comments);
	pb_stacks_x_free(&x);
	return err ? err : pb_stream_end(f);
}

/* The same file: the same path, or the same file once both are resolved. */
static int same_file(const char *a, const char *b, const char *b_real)
{
	char ra[PATH_MAX];

	if (!strcmp(a, b))
		return 1;
	if (a[0] != '/' || !b_real || !realpath(a, ra))
		return 0;
	return !strcmp(ra, b_real);
}

int pbench_runs_profile_annotate(const struct pbench_runs *r, int s, struct pbench_listing *l)
{
	const struct pb_stacks *t;
	struct pbench_profile_info info;
	char real[PATH_MAX], why[512];
	const char *file, *dso, *last = NULL;
	uint64_t *offs = NULL, *counts = NULL, off, k, others, in_file = 0;
	size_t n = 0, nl;
	int err, last_same = 0;

	if (!l)
		return pb_fail(-EINVAL, "%s(): l is NULL", __func__);
	err = prepare(r, s, NULL, __func__, &t, &info);
	if (err)
		return err;
	file = pbench_listing_file(l);
	if (pbench_listing_status(l) != PBENCH_LISTING_OK || !file)
		return pb_listing_add_offsets(l, NULL, NULL, 0, 0, 0, "");
	nl = pb_stacks_nr_leaves(t);
	offs = malloc((nl ? nl : 1) * sizeof(*offs));
	counts = malloc((nl ? nl : 1) * sizeof(*counts));
	if (!offs || !counts) {
		free(offs), free(counts);
		return -ENOMEM;
	}
	const char *file_real = realpath(file, real) ? real : NULL;
	for (size_t i = 0; i < nl; i++) {
		pb_stacks_leaf(t, i, &dso, &off, &k);
		if (dso != last) {	/* the table's strings are pooled: a DSO is one pointer */
			last = dso;
			last_same = same_file(dso, file, file_real);
		}
		if (last_same) {
			offs[n] = off;
			counts[n++] = k;
			in_file += k;
		}
	}
	/* every other sample of the profile (other files, the kernel's) counts for the total */
	others = info.samples > in_file ? info.samples - in_file : 0;
	snprintf(why, sizeof(why), "the profile has no sample in '%s'", file);
	err = pb_listing_add_offsets(l, offs, counts, n, others,
				     is_time(info.event) ? (uint64_t)llround(1e9 / info.freq) : 0,
				     why);
	free(offs);
	free(counts);
	return err;
}
