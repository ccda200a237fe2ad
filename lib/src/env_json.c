/* SPDX-License-Identifier: MIT */
/*
 * The findings of pbench_env_check() as JSON (what pbench check --json writes), and the
 * verdict on them. The host block names the machine that ran the check; "tree" says when
 * the findings are about a recorded tree instead.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "jsonutil.h"

const char *pbench_env_verdict(const struct pbench_env *env)
{
	int warn = 0;

	for (int i = 0; i < pbench_env_nr(env); i++) {
		int s = pbench_env_get(env, i)->status;

		if (s == PBENCH_CHECK_BAD)
			return "unfit";
		warn |= s == PBENCH_CHECK_WARN;
	}
	return warn ? "noisy" : "ready";
}

static json_t *check_json(const struct pbench_check *c, int *bad)
{
	json_t *j = json_object();

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "id", json_string(c->id));
	SET(j, "group", json_string(c->group));
	SET(j, "status", json_string(pbench_check_status_name(c->status)));
	SET(j, "cpu", c->cpu >= 0 ? json_integer(c->cpu) : json_null());
	SET(j, "value", json_string(c->value));
	SET(j, "expected", pb_json_str_or_null(c->expected));
	SET(j, "why", pb_json_str_or_null(c->why));
	SET(j, "fix", pb_json_str_or_null(c->fix));
	return j;
}

/* The recorded tree the findings come from, or null for the live machine. */
static json_t *tree_json(void)
{
	const char *s = getenv("PBENCH_SYSFS_ROOT"), *p = getenv("PBENCH_PROCFS_ROOT");

	if (!pb_recorded_set())
		return json_null();
	return json_pack("{s:o, s:o}", "sysfs_root", pb_json_str_or_null(s),
			 "procfs_root", pb_json_str_or_null(p));
}

int pbench_env_write_json(const struct pbench_env *env, FILE *f)
{
	int counts[PBENCH_CHECK_UNKNOWN + 1] = { 0 }, ncpus, b = 0, *bad = &b;
	json_t *root, *cpus, *checks, *sum;
	const int *cpu;

	if (!env || !f)
		return -EINVAL;
	root = json_object();
	cpus = json_array();
	checks = json_array();
	sum = json_object();
	if (!root || !cpus || !checks || !sum) {
		json_decref(root);
		json_decref(cpus);
		json_decref(checks);
		json_decref(sum);
		return -ENOMEM;
	}
	pb_json_head_doc(root, bad);
	SET(root, "tree", tree_json());
	ncpus = pbench_env_cpus(env, &cpu);
	for (int i = 0; i < ncpus; i++)
		APPEND(cpus, json_integer(cpu[i]));
	SET(root, "cpus", cpus);
	SET(root, "cpu_pick_reason", pb_json_str_or_null(pbench_env_pick_reason(env)));
	for (int i = 0; i < pbench_env_nr(env); i++) {
		const struct pbench_check *c = pbench_env_get(env, i);

		APPEND(checks, check_json(c, bad));
		counts[c->status]++;
	}
	SET(root, "checks", checks);
	for (int s = PBENCH_CHECK_OK; s <= PBENCH_CHECK_UNKNOWN; s++)
		SET(sum, pbench_check_status_name(s), json_integer(counts[s]));
	SET(root, "summary", sum);
	SET(root, "verdict", json_string(pbench_env_verdict(env)));
	if (b) {
		json_decref(root);
		return -ENOMEM;
	}
	return pb_json_dump(root, f);
}
