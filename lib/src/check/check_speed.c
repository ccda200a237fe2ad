/* SPDX-License-Identifier: MIT */
/*
 * Checks, speed group: the issue throughput a thread gets on the target CPU (the throughput
 * reference, not the clock), measured live (speed_probe.c). Stability: the reference loop for
 * a second in slices, what its speed did and what the kernel saw
 * meanwhile. Co-location: the loop alone, then while another CPU spins; a slowdown means the
 * two share a physical core. Both measure this machine now, so they report nothing on a
 * recorded tree or without the checks' window (PBENCH_CHECK_NO_WINDOW): no number from a
 * recording is ever presented as a measurement.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "check/check.h"

#define STABILITY_S 1.0
#define SHARING_S 0.8
#define MAX_STABILITY_CPUS 4	/* a second each */
#define MAX_OTHERS 3		/* co-location: the first target against this many others */
#define BAD_RANGE 1.5
#define BURSTS_PCT 5.0	/* short slow bursts adding this much time: not steady */

/* What the kernel saw during the probe, in words. */
static void kernel_saw(const struct pbench_cpu_speed *s, char *buf, size_t len)
{
	char nr[32];

	pbench_format_ns(nr, sizeof(nr), s->not_running_ns, 2);
	snprintf(buf, len, "%s%llu interrupt%s, %s steal, preempted %llu time%s (%s not running)",
		 s->have_irqs ? "" : "? ", (unsigned long long)s->irqs, s->irqs == 1 ? "" : "s",
		 !isfinite(s->steal_ns) ? "unknown" : s->steal_ns > 0 ? "some" : "no",
		 (unsigned long long)s->ctx_involuntary, s->ctx_involuntary == 1 ? "" : "s", nr);
}

static void check_stability(struct pb_check_ctx *ctx, int cpu)
{
	struct pbench_cpu_speed s = { .size = sizeof(s) };
	struct pbench_check_finding *c;
	char saw[160];
	int err = pbench_cpu_speed_probe(cpu, STABILITY_S, &s), status;

	if (err) {
		pb_report(ctx, "speed.stability", cpu, PBENCH_CHECK_UNKNOWN, NULL,
			  "cannot probe CPU %d: %s", cpu, err == -EBUSY ? "the probe hardly ran "
			  "(the CPU is busy with other work)" : pbench_strerror(err));
		return;
	}
	kernel_saw(&s, saw, sizeof(saw));
	if (s.range < PBENCH_SPEED_VARIED && s.burst_pct < BURSTS_PCT) {
		pb_report(ctx, "speed.stability", cpu, PBENCH_CHECK_OK, NULL,
			  "steady: %.2fx to %.2fx of its best over %.1f s, bursts %.1f%% (reference "
			  "loop in %d slices, measured live)", s.min, s.max, s.seconds, s.burst_pct,
			  s.slices);
		return;
	}
	status = s.range >= BAD_RANGE ? PBENCH_CHECK_BAD : PBENCH_CHECK_WARN;
	c = pb_report(ctx, "speed.stability", cpu, status, "steady within 10%",
		      "changed by up to %.2fx within %.1f s: %.2fx to %.2fx of its best, %d "
		      "change%s, %.0f ms slow, bursts shorter than a slice %.1f%% (reference loop, "
		      "measured live); the kernel saw %s", s.range, s.seconds, s.min, s.max,
		      s.changes, s.changes == 1 ? "" : "s", s.slow_ms, s.burst_pct, saw);
	pb_advise(c, "this CPU ran slower for stretches in a way the guest kernel cannot see (a "
		  "slice's median pass of a register-only loop, which interrupts and preemption "
		  "do not move): the host gave its physical core to other work (another guest, "
		  "an SMT sibling the guest cannot see), or the clock changed (turbo, thermal "
		  "limit, power cap); a run in a slow stretch takes that much longer, and no "
		  "preparation inside this machine removes it",
		  "read each run's speed factor (pbench stat prints it when it varies); compare "
		  "alternatives in one invocation, interleaved, so both see the same host; or "
		  "measure on a dedicated host (dedicated-CPU instance, bare metal at a fixed "
		  "clock)");
}

static void report_sharing(struct pb_check_ctx *ctx, int cpu, const struct pbench_cpu_sharing *h)
{
	struct pbench_check_finding *c;

	if (h->kind == PBENCH_CPU_SHARING_NONE && h->alone_range >= PBENCH_SPEED_VARIED) {
		pb_report(ctx, "speed.colocation", cpu, PBENCH_CHECK_INFO, NULL, "cannot tell "
			  "against CPU %d: the throughput a thread got here changed %.2fx during the probe "
			  "(%.2fx while running, %.2fx per wall second, measured live)", h->other,
			  h->alone_range, h->slowdown, h->wall_slowdown);
		return;
	}
	if (h->kind == PBENCH_CPU_SHARING_NONE || h->kind == PBENCH_CPU_SHARING_PREEMPTION) {
		pb_report(ctx, "speed.colocation", cpu, h->kind ? PBENCH_CHECK_INFO :
			  PBENCH_CHECK_OK, NULL, "%s while CPU %d spins: %.2fx while running, "
			  "%.2fx per wall second%s (measured live)", h->kind ? "slower" :
			  "no shared core", h->other, h->slowdown, h->wall_slowdown, h->kind ?
			  ", by preemption the kernel saw (other work moved here): not a shared "
			  "core" : "");
		return;
	}
	c = pb_report(ctx, "speed.colocation", cpu, PBENCH_CHECK_WARN, "no slowdown",
		      h->kind == PBENCH_CPU_SHARING_CORE ?
		      "%.2fx slower while CPU %d spins, nothing the kernel saw: the two share a "
		      "physical core (measured live)" :
		      "%.2fx less work per second while CPU %d spins, at full speed while running: "
		      "the host runs the two vCPUs on one physical CPU by turns (measured live)",
		      h->kind == PBENCH_CPU_SHARING_CORE ? h->slowdown : h->wall_slowdown, h->other);
	pb_advise(c, "work on the other CPU slows every run on this one, and preparing this CPU "
		  "(pinning, priority) does nothing about it: the hypervisor hides the sharing "
		  "(SMT siblings, or an overcommitted host)",
		  "keep the other CPU idle while measuring, or measure on a CPU that shares with "
		  "none (pbench check --cpu N probes each); on a VM, ask for dedicated cores");
}

static int severity(int kind)
{
	return kind == PBENCH_CPU_SHARING_CORE ? 3 : kind == PBENCH_CPU_SHARING_HOST ? 2 :
	       kind == PBENCH_CPU_SHARING_PREEMPTION;
}

static void check_colocation(struct pb_check_ctx *ctx, int cpu)
{
	struct pbench_cpu_sharing worst = { .size = sizeof(worst), .wall_slowdown = NAN };
	cpu_set_t allowed;
	int others = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	for (int o = 0; o < CPU_SETSIZE && others < MAX_OTHERS; o++) {
		struct pbench_cpu_sharing h = { .size = sizeof(h) };
		int err;

		if (o == cpu || !CPU_ISSET(o, &allowed))
			continue;
		others++;
		if ((err = pbench_cpu_sharing_probe(cpu, o, SHARING_S, &h))) {
			pb_report(ctx, "speed.colocation", cpu, PBENCH_CHECK_UNKNOWN, NULL,
				  "cannot probe CPU %d against CPU %d: %s", cpu, o,
				  pbench_strerror(err));
			return;
		}
		/* The other CPU that slows this one most: what the kernel cannot see first. */
		if (!isfinite(worst.wall_slowdown) || severity(h.kind) > severity(worst.kind) ||
		    (h.kind == worst.kind && h.wall_slowdown > worst.wall_slowdown))
			worst = h;
	}
	if (!others)
		pb_report(ctx, "speed.colocation", cpu, PBENCH_CHECK_INFO, NULL, "no other CPU "
			  "this process may use: nothing to share a core with");
	else
		report_sharing(ctx, cpu, &worst);
}

void pb_check_speed(struct pb_check_ctx *ctx)
{
	if (!ctx->live || (ctx->flags & PBENCH_CHECK_NO_WINDOW))
		return;
	for (int i = 0; i < ctx->ncpus; i++) {
		if (i < MAX_STABILITY_CPUS)
			check_stability(ctx, ctx->cpus[i]);
		else
			pb_report(ctx, "speed.stability", ctx->cpus[i], PBENCH_CHECK_INFO, NULL,
				  "not probed: a second each for the first %d target CPUs only",
				  MAX_STABILITY_CPUS);
	}
	if (ctx->ncpus > 0)
		check_colocation(ctx, ctx->cpus[0]);
}
