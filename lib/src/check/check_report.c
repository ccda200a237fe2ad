/* SPDX-License-Identifier: MIT */
/* What pbench check prints of the findings (check_findings.c): text, and JSON. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "check/check.h"

static void count(const struct pbench_check *env, int *counts)
{
	memset(counts, 0, sizeof(int) * (PBENCH_CHECK_UNKNOWN + 1));
	for (int i = 0; i < pbench_check_nr(env); i++)
		counts[pbench_check_get(env, i)->status]++;
}

const char *pbench_check_verdict(const struct pbench_check *env)
{
	int counts[PBENCH_CHECK_UNKNOWN + 1];

	if (!env)
		return "unknown";
	count(env, counts);
	if (counts[PBENCH_CHECK_BAD])
		return "unfit";
	if (counts[PBENCH_CHECK_WARN])
		return "noisy";
	return "ready";
}

static void write_head(const struct pbench_check *env, int width, FILE *f)
{
	const int *cpus;
	int ncpus = pbench_check_cpus(env, &cpus);
	struct pb_line l;
	FILE *g = pb_line_open(&l, f, width, 4);

	fprintf(g, "pbench check: CPU%s ", ncpus > 1 ? "s" : "");
	for (int i = 0; i < ncpus; i++)
		fprintf(g, "%s%d", i ? "," : "", cpus[i]);
	if (*pbench_check_pick_reason(env))
		fprintf(g, " (%s)", pbench_check_pick_reason(env));
	fprintf(g, "\n");
	pb_line_close(&l);
}

/* A finding's line, then its why and fix: continuation lines at the column of the value, and
 * of the why's and the fix's text. */
static void write_check(const struct pbench_check_finding *c, int w, int ncpus, int color, int width,
			FILE *f)
{
	static const char *const colors[] = {
		[PBENCH_CHECK_OK] = "\033[32m", [PBENCH_CHECK_INFO] = "\033[36m",
		[PBENCH_CHECK_WARN] = "\033[33m", [PBENCH_CHECK_BAD] = "\033[31m",
		[PBENCH_CHECK_UNKNOWN] = "\033[35m",
	};
	int loud = c->status == PBENCH_CHECK_WARN || c->status == PBENCH_CHECK_BAD;
	char where[16] = "";
	struct pb_line l;
	FILE *g;

	if (c->cpu >= 0 && ncpus > 1)
		snprintf(where, sizeof(where), "cpu%d ", c->cpu);
	g = pb_line_open(&l, f, width, 2 + 7 + 1 + w + 2);
	fprintf(g, "  %s%-7s%s %-*s  %s%s", color ? colors[c->status] : "",
		pbench_check_status_name(c->status), color ? "\033[0m" : "", w, c->id, where,
		c->value);
	if (c->expected[0] && loud)
		fprintf(g, " (want: %s)", c->expected);
	fprintf(g, "\n");
	pb_line_close(&l);
	if (loud && c->why[0])
		pb_wrapf(f, width, 2 + 7 + 6, "  %*s why: %s", 7, "", c->why);
	if (loud && c->fix[0])
		pb_wrapf(f, width, 2 + 7 + 6, "  %*s fix: %s", 7, "", c->fix);
}

int pbench_check_write_text(const struct pbench_check *env, FILE *f, unsigned flags, int text_width)
{
	int counts[PBENCH_CHECK_UNKNOWN + 1], w = 0, ncpus;
	const char *group = "";
	const int *cpus;

	if (!env || !f || (flags & ~PBENCH_CHECK_WRITE_COLOR) || text_width < 0)
		return -EINVAL;
	ncpus = pbench_check_cpus(env, &cpus);
	write_head(env, text_width, f);
	for (int i = 0; i < pbench_check_nr(env); i++)
		if ((int)strlen(pbench_check_get(env, i)->id) > w)
			w = (int)strlen(pbench_check_get(env, i)->id);
	for (int i = 0; i < pbench_check_nr(env); i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (strcmp(c->group, group)) {
			fprintf(f, "\n%s\n", c->group);
			group = c->group;
		}
		write_check(c, w, ncpus, flags & PBENCH_CHECK_WRITE_COLOR, text_width, f);
	}
	count(env, counts);
	fprintf(f, "\nsummary: %d ok, %d warn, %d bad, %d info, %d unknown: %s\n",
		counts[PBENCH_CHECK_OK], counts[PBENCH_CHECK_WARN], counts[PBENCH_CHECK_BAD],
		counts[PBENCH_CHECK_INFO], counts[PBENCH_CHECK_UNKNOWN], pbench_check_verdict(env));
	return pb_stream_end(f);
}

static json_t *check_json(const struct pbench_check_finding *c, int *bad)
{
	json_t *j = json_object();

	SET(j, "id", json_string(c->id));
	SET(j, "group", json_string(c->group));
	SET(j, "status", json_string(pbench_check_status_name(c->status)));
	SET(j, "cpu", c->cpu >= 0 ? json_integer(c->cpu) : json_null());
	SET(j, "value", json_string(c->value));
	SET(j, "expected", c->expected[0] ? json_string(c->expected) : json_null());
	SET(j, "why", c->why[0] ? json_string(c->why) : json_null());
	SET(j, "fix", c->fix[0] ? json_string(c->fix) : json_null());
	return j;
}

/* The recorded tree the findings are about (the host block names the machine that ran the
 * check), or null for the live machine. */
static json_t *tree_json(void)
{
	const char *s = getenv("PBENCH_SYSFS_ROOT"), *p = getenv("PBENCH_PROCFS_ROOT");

	if (!pb_recorded_set())
		return json_null();
	return json_pack("{s:o, s:o}", "sysfs_root", pb_json_str_or_null(s),
			 "procfs_root", pb_json_str_or_null(p));
}

int pbench_check_write_json(const struct pbench_check *env, FILE *f)
{
	int counts[PBENCH_CHECK_UNKNOWN + 1], b = 0, *bad = &b, ncpus;
	json_t *root, *arr, *checks, *sum;
	const int *cpu;

	if (!env || !f)
		return -EINVAL;
	root = json_object();
	arr = json_array();
	checks = json_array();
	sum = json_object();
	if (root)
		pb_json_head(root, 0, bad);
	SET(root, "tree", tree_json());
	ncpus = pbench_check_cpus(env, &cpu);
	for (int i = 0; i < ncpus; i++)
		APPEND(arr, json_integer(cpu[i]));
	SET(root, "cpus", arr);
	SET(root, "cpu_pick_reason", *pbench_check_pick_reason(env) ?
	    json_string(pbench_check_pick_reason(env)) : json_null());
	for (int i = 0; i < pbench_check_nr(env); i++)
		APPEND(checks, check_json(pbench_check_get(env, i), bad));
	SET(root, "checks", checks);
	count(env, counts);
	for (int s = PBENCH_CHECK_OK; s <= PBENCH_CHECK_UNKNOWN; s++)
		SET(sum, pbench_check_status_name(s), json_integer(counts[s]));
	SET(root, "summary", sum);
	SET(root, "verdict", json_string(pbench_check_verdict(env)));
	return pb_json_dump(root, b, f);
}
