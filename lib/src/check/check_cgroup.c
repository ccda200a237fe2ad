/* SPDX-License-Identifier: MIT */
/*
 * Checks of the scheduler group that read cgroups: the CPU quota (cpu.max, or cfs_quota_us on
 * v1) on the way from this process's cgroup to the root, with its throttling counts, and the
 * cpuset the target CPU must be in. Both v2 and v1 hierarchies; a container sees its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "check/check.h"

#define OK PBENCH_CHECK_OK
#define INFO PBENCH_CHECK_INFO
#define WARN PBENCH_CHECK_WARN
#define BAD PBENCH_CHECK_BAD

#define CG_PATH 1024

struct cg {
	int v2;			/* the unified hierarchy is mounted at /sys/fs/cgroup */
	char path[CG_PATH];	/* this process's cgroup (v2) or its cpu controller's (v1) */
	char setpath[CG_PATH];	/* v1: the cpuset controller's */
	const char *cpu_base;	/* where the cpu controller is mounted */
};

static int cg_find(struct cg *cg)
{
	static const char *const v1[] = {
		"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct,cpu",
	};
	FILE *f = pb_fopen("/proc/self/cgroup");
	char line[CG_PATH + 128], ctl[160];

	if (!f)
		return -errno;
	cg->v2 = pb_exists("/sys/fs/cgroup/cgroup.controllers");
	cg->cpu_base = cg->v2 ? "/sys/fs/cgroup" : NULL;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		b[strcspn(b, "\n")] = '\0';
		if (b[1] == '/' && !b[2])
			b[1] = '\0';	/* the root is the empty path */
		snprintf(ctl, sizeof(ctl), ",%.*s,", (int)(b - a - 1), a + 1);
		if (cg->v2 ? !strncmp(line, "0::", 3) : strstr(ctl, ",cpu,") != NULL)
			snprintf(cg->path, sizeof(cg->path), "%s", b + 1);
		if (!cg->v2 && strstr(ctl, ",cpuset,"))
			snprintf(cg->setpath, sizeof(cg->setpath), "%s", b + 1);
	}
	fclose(f);
	for (size_t i = 0; !cg->cpu_base && i < PB_ARRAY_SIZE(v1); i++)
		cg->cpu_base = pb_exists(v1[i]) ? v1[i] : NULL;
	return 0;
}

/* One level up: "/a/b" -> "/a" -> "" (the root). 0 when already at the root. */
static int cg_up(char *at)
{
	char *slash = strrchr(at, '/');

	if (!at[0])
		return 0;
	*(slash ? slash : at) = '\0';
	return 1;
}

/* base/at/file at the nearest level from at up to the root: 0 (at is that level), or
 * -ENOENT. */
static int cg_read_up(const char *base, char *at, const char *file, char *buf, size_t len)
{
	char full[CG_PATH + 128];

	do {
		snprintf(full, sizeof(full), "%s%s/%s", base, at, file);
		if (pb_read_file(full, buf, len) >= 0)
			return 0;
	} while (cg_up(at));
	return -ENOENT;
}

/* A level's quota: 1 and q/per ("150000 100000"; v1: cfs_quota_us > 0), 0 for none ("max
 * 100000", -1), -EINVAL for anything else. */
static int cg_quota(const struct cg *cg, const char *at, const char *buf, long long *q,
		    long long *per)
{
	char full[CG_PATH + 128], *end;
	long v;

	if (cg->v2 && sscanf(buf, "%lld %lld", q, per) == 2)
		return *q > 0 && *per > 0 ? 1 : -EINVAL;
	if (cg->v2)
		return sscanf(buf, "max %lld", per) == 1 ? 0 : -EINVAL;
	*q = strtoll(buf, &end, 10);
	if (end == buf || *end || *q == 0 || *q < -1)
		return -EINVAL;
	snprintf(full, sizeof(full), "%s%s/cpu.cfs_period_us", cg->cpu_base, at);
	if (*q < 0)
		return 0;
	if (pb_read_long(full, &v) || v <= 0)
		return -EINVAL;
	*per = v;
	return 1;
}

static void check_quota(struct pb_check_ctx *ctx, const struct cg *cg)
{
	const char *id = "cgroup.cpu_quota", *file = cg->v2 ? "cpu.max" : "cpu.cfs_quota_us";
	struct { char at[CG_PATH], best[CG_PATH], full[CG_PATH + 128]; } *w = malloc(sizeof(*w));
	char *at = w ? w->at : NULL, *best = w ? w->best : NULL, *full = w ? w->full : NULL;
	char buf[64], raw[64] = "", bad[240] = "";
	struct pbench_check_finding *c;
	long long q, per, bq = 0, bper = 0, thr, thr_us;
	int found = 0, err;

	if (!w)
		return;
	/* Every level's quota applies: report the tightest on the way up to the root. */
	snprintf(at, CG_PATH, "%s", cg->path);
	do {
		if (!cg->cpu_base)
			break;
		snprintf(full, CG_PATH + 128, "%s%s/%s", cg->cpu_base, at, file);
		if (pb_read_file(full, buf, sizeof(buf)) < 0)
			continue;
		if (!found++)
			snprintf(raw, sizeof(raw), "%s", buf);
		err = cg_quota(cg, at, buf, &q, &per);
		if (err < 0 && !bad[0])
			snprintf(bad, sizeof(bad), "%.100s at %.100s: \"%.30s\"", file,
				 at[0] ? at : "/", buf);
		if (err <= 0 || (bper && q * bper >= bq * per))
			continue;
		bq = q;
		bper = per;
		snprintf(raw, sizeof(raw), "%s", buf);
		snprintf(best, CG_PATH, "%s", at);
	} while (cg_up(at));
	if (bad[0])
		pb_report(ctx, id, -1, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse %s", bad);
	else if (!found)
		pb_report(ctx, id, -1, INFO, NULL, "no %s on the way from cgroup %.200s to the "
			  "root (cpu controller not enabled): no CPU quota", file,
			  cg->path[0] ? cg->path : "/");
	else if (!bper)
		pb_report(ctx, id, -1, OK, NULL, "no quota (%s %s)", file, raw);
	if (bad[0] || !found || !bper)
		goto out;
	snprintf(full, CG_PATH + 128, "%s%s/cpu.stat", cg->cpu_base, best);
	thr = pb_read_field(full, "nr_throttled");
	thr_us = cg->v2 ? pb_read_field(full, "throttled_usec")
			: pb_read_field(full, "throttled_time") / 1000;
	c = pb_report(ctx, id, -1, thr > 0 ? BAD : WARN, "no quota", "%.2f CPUs (%s %s at %.100s); "
		      "throttled %lld times, %.1f s", (double)bq / bper, file, raw,
		      best[0] ? best : "/", thr < 0 ? 0 : thr, thr_us < 0 ? 0 : thr_us / 1e6);
	pb_check_set(c, &c->why, "once the cgroup has used %lld us of CPU time in a %lld us period "
		     "all its tasks stop until the period ends: a sample can stall for up to %lld "
		     "ms", bq, bper, bper / 1000);
	pb_check_set(c, &c->fix, "on the host: echo %s | sudo tee %s%.300s/%s (a container: run it "
		     "without --cpus, or without a Kubernetes CPU limit)", cg->v2 ? "max" : "-1",
		     cg->cpu_base, best, file);
out:
	free(w);
}

static void check_cpuset(struct pb_check_ctx *ctx, const struct cg *cg, int cpu)
{
	const char *id = "cgroup.cpuset", *base = cg->v2 ? "/sys/fs/cgroup" :
		"/sys/fs/cgroup/cpuset";
	struct pbench_check_finding *c;
	unsigned char set[PB_MAX_CPUS / 8];
	char buf[4096], *at = malloc(CG_PATH), list[256];
	int err = -ENOMEM, in;

	for (int i = 0; at && err && i < (cg->v2 ? 1 : 2); i++) {
		snprintf(at, CG_PATH, "%s", cg->v2 ? cg->path : cg->setpath);
		err = cg_read_up(base, at, cg->v2 ? "cpuset.cpus.effective" :
				 i ? "cpuset.cpus" : "cpuset.effective_cpus", buf, sizeof(buf));
	}
	if (err == -ENOENT)
		pb_report(ctx, id, cpu, INFO, NULL, "no cpuset files for this cgroup: no cpuset "
			  "limit");
	if (err)
		goto out;
	if (pb_cpulist_to_set(buf, set) < 0) {
		pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot parse the cpuset of "
			  "%.200s: \"%.30s\"", at[0] ? at : "/", buf);
		goto out;
	}
	pb_cpuset_format(set, list, sizeof(list));
	in = pb_cpu_in(set, cpu);
	c = pb_report(ctx, id, cpu, in ? OK : BAD, "CPU in the cpuset", "%s CPU %d (cpuset %s at "
		      "%.150s)", in ? "includes" : "excludes", cpu, list, at[0] ? at : "/");
	if (in)
		goto out;
	pb_check_set(c, &c->why, "this process's cgroup may not run on CPU %d: pinning there "
		     "fails and a measurement lands on another CPU", cpu);
	pb_check_set(c, &c->fix, "measure on a CPU of the cpuset (--cpu %s), or widen it on the "
		     "host (docker run --cpuset-cpus, or the cgroup's cpuset.cpus)", list);
out:
	free(at);
}

void pb_check_cgroup(struct pb_check_ctx *ctx)
{
	struct cg *cg = calloc(1, sizeof(*cg));
	int err;

	if (!cg)
		return;
	err = cg_find(cg);
	if (err)
		pb_check_unknown(ctx, "cgroup.cpu_quota", -1, "/proc/self/cgroup", err);
	else
		check_quota(ctx, cg);
	for (int i = 0; i < ctx->ncpus; i++) {
		if (err)
			pb_check_unknown(ctx, "cgroup.cpuset", ctx->cpus[i], "/proc/self/cgroup",
					 err);
		else
			check_cpuset(ctx, cg, ctx->cpus[i]);
	}
	free(cg);
}
