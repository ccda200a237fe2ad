/* SPDX-License-Identifier: MIT */
/*
 * What another module (the contest) reads of a runs object, its sets and their runs: runs.h's
 * accessors, so that the structs stay the module's own (runs_inner.h).
 */
#include <math.h>
#include <stddef.h>

#include "counters/counters.h"
#include "runs/runs_inner.h"

struct pb_set *pb_runs_set(struct pbench_runs *r, int s)
{
	return &r->sets[s];
}

int pb_runs_set_done(const struct pb_set *s)
{
	return s->done;
}

int pb_runs_set_failed(const struct pb_set *s)
{
	return s->failed;
}

const struct pb_run *pb_runs_run_at(const struct pb_set *s, int i)
{
	return &s->runs[i];
}

struct pb_run_status pb_runs_status(const struct pb_run *run)
{
	return (struct pb_run_status){
		.ns = run->ns, .ticks = run->ticks,
		.exited = run->exited, .exit_status = run->exit_status,
		.signaled = run->signaled, .term_signal = run->term_signal,
		.timed_out = run->timed_out, .cpu = run->cpu, .counts = run->counts,
		.speed = run->speed, .clock = run->clock,
		.not_running_ns = run->noise.not_running_ns,
	};
}

struct pb_set_how pb_runs_set_how(const struct pb_set *s)
{
	return (struct pb_set_how){
		.prepared = s->prepared, .cpu = s->cpu, .cpu_reason = s->cpu_reason,
		.policy_name = s->policy_name, .prio_value = s->prio_value,
		.restore_err = s->restore_err, .warmup_ms = s->warmup_ms,
	};
}

void pb_runs_cpu_time(const struct pb_set *s, double *user_ns, double *system_ns)
{
	*user_ns = pb_runs_mean_field(s, offsetof(struct pb_run, user_ns));
	*system_ns = pb_runs_mean_field(s, offsetof(struct pb_run, system_ns));
}

void pb_runs_set_elapsed(struct pb_set *s, double elapsed_s)
{
	s->elapsed_s = elapsed_s;
}

int pb_runs_set_preparing(const struct pb_set *s)
{
	return s->prep != NULL;
}

void pb_runs_free_walk(struct pb_set *s)
{
	pbench_walk_free(s->walk);
	s->walk = NULL;
}

char *const *pb_runs_argv(const struct pbench_runs *r)
{
	return r->subject.argv;
}

pbench_fn pb_runs_fn(const struct pbench_runs *r)
{
	return r->subject.fn;
}

struct pb_speed_best pb_runs_speed_best(const struct pbench_runs *r)
{
	return (struct pb_speed_best){
		.thr_ns = r->speed_best_ns, .clk_ns = r->clock_best_ns,
		.thr_iterations = (double)pbench_speed_iterations(r->speed),
		.clk_iterations = (double)pb_speed_clock_iterations(r->speed),
	};
}
