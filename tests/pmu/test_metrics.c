/* SPDX-License-Identifier: MIT */
/*
 * Derived metrics on real counters (issue 23): pbench stat -M on the xor workload, whose loop
 * is a fixed number of instructions an iteration. Under -icount shift=0 an instruction is a ns
 * of virtual time and QEMU's cycle counter is that time: instructions per iteration is a whole
 * number, the same at two sizes, IPC is 1, GHz 1. The guest has no branch events:
 * branch-miss % is n/a with the reason. Ten hardware events on six counters (plus the cycle
 * counter): the metric's events, tied in one group, count in one window (never apart) while
 * the events multiplex. The text block is printed as the README shows it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

static json_t *event_of(json_t *root, const char *name)
{
	json_t *a = json_object_get(json_array_get(json_object_get(root, "modes"), 0),
				    "event_summary");

	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *m = json_array_get(a, i);

		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name))
			return m;
	}
	return NULL;
}

static double mean_of(json_t *m)
{
	json_t *v = json_object_get(m, "mean");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *stat_json(const char *iters, const char *metrics, const char *events)
{
	char *argv[] = { "/bin/pbench", "stat", "--workload", "xor", "--iterations",
			 (char *)iters, "--mode", "unprepared", "-r", "3", "-M", (char *)metrics,
			 "--json", events ? "-e" : NULL, (char *)events, NULL };

	return run_json(argv);
}

static void exact(void)
{
	json_t *a = stat_json("1000000", "ipc,ghz,per-iteration,branches,stalls", NULL);
	json_t *u = stat_json("1000000", "per-iteration", "instructions:u,cycles:u");
	json_t *b = stat_json("3000000", "per-iteration", "instructions:u,cycles:u");
	double ka, kb, ipc, ghz;
	json_t *br;

	if (!ok(a && b && u, "pbench stat -M ... --json ran three times"))
		goto out;
	/* with -e instructions:u the loop's own instructions; beside the default events it
	 * takes their instructions, the kernel's interrupts included */
	diag("insn-per-iter on the default instructions (kernel included): %.6f",
	     mean_of(metric_of(a, "insn-per-iter")));
	ka = mean_of(metric_of(u, "insn-per-iter"));
	kb = mean_of(metric_of(b, "insn-per-iter"));
	diag("insn-per-iter: %.6f at 1e6 iterations, %.6f at 3e6", ka, kb);
	ok(fabs(ka - round(ka)) < 1e-3 && round(ka) >= 1 && fabs(ka - kb) < 1e-3,
	   "instructions:u per iteration is a whole number k (%.0f, to 3 decimals), the "
	   "same at two sizes", round(ka));
	ipc = mean_of(metric_of(a, "ipc"));
	ghz = mean_of(metric_of(a, "ghz"));
	diag("ipc %.6f, ghz %.6f, cycles-per-iter %.6f", ipc, ghz,
	     mean_of(metric_of(a, "cycles-per-iter")));
	ok(fabs(ipc - 1) < 5e-4, "IPC is 1.000 (cycles are virtual time under icount)");
	ok(fabs(ghz - 1) < 5e-3, "GHz is 1.000 (one cycle a ns of virtual time)");
	br = metric_of(a, "branch-miss-pct");
	diag("branch-miss-pct: %s", json_string_value(json_object_get(br, "reason")) ?: "(made)");
	ok(br && json_is_string(json_object_get(br, "reason")) &&
	   strstr(json_string_value(json_object_get(br, "reason")), "branch"),
	   "branch-miss %% is n/a with the reason (the guest has no branch events)");
	br = metric_of(a, "frontend-stall-pct");
	diag("frontend-stall-pct %.4f, backend-stall-pct %.4f", mean_of(br),
	     mean_of(metric_of(a, "backend-stall-pct")));
	ok(br && isfinite(mean_of(br)), "frontend stall %% made from the guest's counts");
out:
	json_decref(a);
	json_decref(u);
	json_decref(b);
}

/* Six raw events first (one group: QEMU leaves these common events unimplemented, they count
 * 0), then the metrics' tied group {instructions,cycles,stalled-cycles-frontend,-backend}: ten
 * events, nine of them on the six event counters, so the groups take turns; the metric's
 * events still share one window. */
static void ten_events(void)
{
	json_t *r = stat_json("1000000", "ipc,stalls", "r1,r2,r3,r4,r5,r6");
	json_t *ins, *ipc;

	if (!ok(r != NULL, "ten events: pbench stat -e (6 raw) -M ipc,stalls ran"))
		return;
	ins = event_of(r, "instructions");
	ipc = metric_of(r, "ipc");
	diag("instructions: %d of %d runs multiplexed, running %.1f%%; ipc %.6f, apart in %d runs",
	     (int)json_integer_value(json_object_get(ins, "multiplexed")),
	     (int)json_integer_value(json_object_get(ins, "runs")),
	     json_number_value(json_object_get(ins, "running_pct")), mean_of(ipc),
	     (int)json_integer_value(json_object_get(ipc, "apart")));
	ok(ins && json_integer_value(json_object_get(ins, "multiplexed")) > 0,
	   "ten events: the events multiplex (instructions scaled)");
	ok(ipc && json_integer_value(json_object_get(ipc, "apart")) == 0 &&
	   json_integer_value(json_object_get(ipc, "runs")) == 3 && fabs(mean_of(ipc) - 1) < 5e-3,
	   "ten events: ipc's events in one group, never apart, IPC still 1");
	ipc = metric_of(r, "frontend-stall-pct");
	ok(ipc && json_integer_value(json_object_get(ipc, "apart")) == 0,
	   "ten events: frontend-stall-pct's events in one group");
	json_decref(r);
}

/* The text as a person reads it, each line a diag line (the README quotes it). */
static void text(void)
{
	char *argv[] = { "/bin/pbench", "stat", "--workload", "xor", "--iterations", "1000000",
			 "--mode", "unprepared", "-r", "5", "-M", "ipc,ghz,per-iteration,stalls,"
			 "branches", NULL };
	char line[512];
	int status = -1, seen = 0;
	pid_t pid;
	FILE *f = run_piped(argv, &pid);

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "counters:", 9))
			seen = 1;
		else if (!*line)
			seen = seen ? 2 : 0;
		if (seen == 1 || !strncmp(line, "pbench stat:", 12))
			diag("stat| %s", line);
	}
	if (f)
		fclose(f);
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status) && seen,
	   "text: pbench stat -M prints the counter block");
}

int main(void)
{
	tap_init("metrics");
	exact();
	ten_events();
	text();
	return tap_done();
}
