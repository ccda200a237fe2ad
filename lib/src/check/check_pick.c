/* SPDX-License-Identifier: MIT */
/*
 * The CPU a prepared run would use: an isolated one if any, else the least busy one over a
 * short /proc/stat window (the same window the checks read loads from), CPU 0 included when
 * it is clearly the quietest (it keeps the tick and the housekeeping: not on a tie).
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "check/check.h"

#define WINDOW_MS 200

static int read_proc_stat(struct pb_cpu_times *t, int max)
{
	FILE *f = pb_fopen("/proc/stat");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct pb_cpu_times x;
		int cpu;

		if (pb_parse_cpu_times(line, &cpu, &x) < 4 || cpu >= max)
			continue;
		t[cpu] = x;
		if (cpu + 1 > n)
			n = cpu + 1;
	}
	fclose(f);
	return n;
}

void pb_check_window(struct pb_check_ctx *ctx)
{
	struct timespec ts = { 0, WINDOW_MS * 1000000L };

	ctx->t0 = calloc(PB_MAX_CPUS, sizeof(*ctx->t0));
	ctx->t1 = calloc(PB_MAX_CPUS, sizeof(*ctx->t1));
	if (!ctx->t0 || !ctx->t1)
		return;
	ctx->ncpu_times = read_proc_stat(ctx->t0, PB_MAX_CPUS);
	if (ctx->ncpu_times <= 0 || (ctx->flags & PBENCH_CHECK_NO_WINDOW) || !ctx->live) {
		/* A recorded tree has one /proc/stat: the "window" is the time since boot, from
		 * zeros to what was read. The two tables swap places rather than copying all
		 * PB_MAX_CPUS entries (~300 KiB touched per check otherwise): past the CPUs read,
		 * both are calloc's zeros. */
		struct pb_cpu_times *got = ctx->t0;

		ctx->t0 = ctx->t1;
		ctx->t1 = got;
		for (int i = 0; i < ctx->ncpu_times; i++)
			ctx->t0[i].valid = ctx->t1[i].valid;
		return;
	}
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	read_proc_stat(ctx->t1, PB_MAX_CPUS);
	ctx->window_ms = WINDOW_MS;
}

double pb_busy_share(const struct pb_check_ctx *ctx, int cpu)
{
	const struct pb_cpu_times *a, *b;
	double idle, total;

	if (cpu < 0 || cpu >= PB_MAX_CPUS || !ctx->t0 || !ctx->t1 || !ctx->t1[cpu].valid)
		return -1;
	a = &ctx->t0[cpu];
	b = &ctx->t1[cpu];
	idle = (double)(b->idle + b->iowait) - (double)(a->idle + a->iowait);
	total = idle + (double)(b->user + b->nice + b->system + b->irq + b->softirq + b->steal) -
		(double)(a->user + a->nice + a->system + a->irq + a->softirq + a->steal);
	return total > 0 ? 1 - idle / total : -1;
}

/* The busy share for picking: a CPU /proc/stat says nothing about counts as idle. */
static double load(const struct pb_check_ctx *ctx, int cpu)
{
	double busy = pb_busy_share(ctx, cpu);

	return busy < 0 ? 0 : busy;
}

/* The busy share of c with its SMT siblings' (a busy sibling shares the core's pipeline);
 * *sibs gets how many online siblings it has. */
static double core_load(const struct pb_check_ctx *ctx, int c, const unsigned char *online,
			int *sibs)
{
	unsigned char sib[PB_MAX_CPUS / 8];
	double busy = load(ctx, c);
	char path[96];

	*sibs = 0;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 c);
	if (pb_read_cpulist(path, sib) > 1)
		for (int s = 0; s < PB_MAX_CPUS; s++)
			if (s != c && pb_cpu_in(sib, s) && pb_cpu_in(online, s)) {
				busy += load(ctx, s);
				(*sibs)++;
			}
	return busy;
}

int pb_pick_steadiest(const struct pb_pick_probe *p, int n, int dflt, char *why, size_t len)
{
	double fast = INFINITY, score[PB_PICK_MAX_PROBED], worst = INFINITY;
	int best = dflt, worst_i = dflt;

	why[0] = '\0';
	for (int i = 0; i < n && i < PB_PICK_MAX_PROBED; i++)
		if (p[i].fast_ns > 0 && p[i].slow_ns > 0)
			fast = fmin(fast, p[i].fast_ns);
	if (!isfinite(fast))
		return dflt;
	for (int i = 0; i < n && i < PB_PICK_MAX_PROBED; i++) {
		score[i] = p[i].fast_ns > 0 && p[i].slow_ns > 0 ? fast / p[i].slow_ns : NAN;
		if (score[i] < worst) {
			worst = score[i];
			worst_i = i;
		}
	}
	/* Another CPU than the least busy one only when clearly steadier: a probe this short
	 * has a few percent of its own noise. */
	for (int i = 0; i < n && i < PB_PICK_MAX_PROBED; i++)
		if (score[i] > (isfinite(score[best]) ? score[best] : 0) * PB_PICK_STEADIER)
			best = i;
	if (worst * PBENCH_SPEED_VARIED > 1)
		snprintf(why, len, "CPU %d, the first: all %d ran steady by the reference loop "
			 "(slowest %.2fx of the best)", p[best].cpu, n, worst);
	else if (best != worst_i)
		snprintf(why, len, "CPU %d, the steadiest by the reference loop: %.2fx of the best "
			 "at its slowest, CPU %d %.2fx", p[best].cpu, score[best], p[worst_i].cpu,
			 worst);
	else
		snprintf(why, len, "CPU %d, the first: all %d ran unsteady by the reference loop "
			 "(CPU %d at %.2fx of the best)", p[best].cpu, n, p[worst_i].cpu, worst);
	return best;
}

/* Probe the candidates' speed and take the steadiest; *why gets the clause. */
static int probe_candidates(struct pb_pick_probe *p, int n, int dflt, char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		struct pbench_cpu_speed s = { .size = sizeof(s) };

		p[i].fast_ns = p[i].slow_ns = NAN;
		if (pbench_cpu_speed_probe(p[i].cpu, PB_PICK_PROBE_S, &s) || !s.iterations)
			continue;
		p[i].fast_ns = s.best_ns / (double)s.iterations;
		p[i].slow_ns = p[i].fast_ns / s.min;
	}
	return pb_pick_steadiest(p, n, dflt, why, len);
}

/* Another CPU than CPU 0 online and allowed (allowed NULL: any). */
static int any_other(const unsigned char *online, const cpu_set_t *allowed)
{
	for (int c = 1; c < PB_MAX_CPUS; c++)
		if (pb_cpu_in(online, c) && (!allowed || CPU_ISSET(c, allowed)))
			return 1;
	return 0;
}

int pb_check_pick(struct pb_check_ctx *ctx, char *why, size_t len)
{
	unsigned char online[PB_MAX_CPUS / 8], isolated[PB_MAX_CPUS / 8];
	struct pb_pick_probe cand[PB_PICK_MAX_PROBED];
	cpu_set_t allowed;
	int have_affinity = 0, best = -1, best_sibs = 0, n_online, nc = 0, at = 0;
	double best_busy = 2;
	char steady[160] = "";

	n_online = pb_read_cpulist("/sys/devices/system/cpu/online", online);
	if (n_online <= 0)
		return n_online < 0 ? n_online : -ENOENT;
	if (ctx->live && sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		have_affinity = 1;
#define USABLE(c) (pb_cpu_in(online, c) && (!have_affinity || CPU_ISSET(c, &allowed)))
	if (pb_read_cpulist("/sys/devices/system/cpu/isolated", isolated) > 0) {
		for (int c = 0; c < PB_MAX_CPUS; c++) {
			if (pb_cpu_in(isolated, c) && USABLE(c)) {
				snprintf(why, len, "CPU %d is isolated (isolcpus)", c);
				ctx->pick_busy = load(ctx, c);
				return c;
			}
		}
	}
	/* CPU 0 last: it keeps the tick and the housekeeping, so it is taken only when clearly
	 * quieter than every other (by more than the 2% of noise), not on a tie. */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 1; k <= PB_MAX_CPUS; k++) {
			int sibs, c = k % PB_MAX_CPUS;
			double busy;

			if (!USABLE(c))
				continue;
			busy = core_load(ctx, c, online, &sibs);
			/* 2%: within noise, keep the lower number */
			if (pass == 0 && busy < best_busy - 0.02) {
				best_busy = busy;
				best = c;
				best_sibs = sibs;
			} else if (pass == 1 && busy <= best_busy + 0.02 && nc < PB_PICK_MAX_PROBED &&
				   (c != 0 || best == 0)) {	/* CPU 0 not on a tie */
				at = c == best ? nc : at;
				cand[nc++].cpu = c;
			}
		}
#undef USABLE
	if (best < 0 || (best == 0 && !any_other(online, have_affinity ? &allowed : NULL))) {
		snprintf(why, len, "CPU 0 is the only CPU this process may use");
		return 0;
	}
	ctx->pick_busy = best_busy;
	/* Equally idle CPUs: the steadiest by the reference loop, measured live. */
	if (nc > 1 && ctx->live && ctx->window_ms > 0)
		best = cand[probe_candidates(cand, nc, at, steady, sizeof(steady))].cpu;
	if (steady[0])
		snprintf(why, len, "no isolated CPU; %d CPUs are the least busy "
			 "(%.0f%% busy%s%s, %.1f s of reference loop each): %s", nc, best_busy * 100,
			 best_sibs ? " with SMT siblings" : "", " over the last 200 ms",
			 PB_PICK_PROBE_S, steady);
	else
		snprintf(why, len, "no isolated CPU; CPU %d is the least busy CPU%s: "
			 "%.0f%% busy%s%s", best, best ? "" : ", by more than 2% (CPU 0 keeps the tick)",
			 best_busy * 100,
			 best_sibs ? " with its SMT sibling" : "",
			 ctx->window_ms > 0 ? " over the last 200 ms" : " since boot");
	return best;
}

int pb_cpu_pick(char *why, size_t len, double *busy)
{
	struct pbench_check env = { 0 };
	struct pb_check_ctx ctx = { .env = &env, .live = !pb_recorded_active(), .pick_busy = -1 };
	char buf[256];
	int cpu;

	pb_check_window(&ctx);
	cpu = ctx.t0 && ctx.t1 ? pb_check_pick(&ctx, buf, sizeof(buf)) : -ENOMEM;
	if (busy)
		*busy = cpu >= 0 && ctx.pick_busy >= 0 && ctx.window_ms > 0 ? ctx.pick_busy : NAN;
	if (why && len)
		snprintf(why, len, "%s", cpu >= 0 ? buf : "");
	free(ctx.t0);
	free(ctx.t1);
	return cpu;
}

int pbench_cpu_pick(char *reason, size_t len)
{
	return pb_cpu_pick(reason, len, NULL);
}
