/* SPDX-License-Identifier: MIT */
/* A set of runs as text: what pbench stat prints. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "measure/measure.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "runs/runs_inner.h"

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

static void fmt_status(const struct pb_run *r, char *buf, size_t len)
{
	if (r->timed_out)
		snprintf(buf, len, "timed out (killed)");
	else if (r->signaled)
		snprintf(buf, len, "killed by signal %d (%s)", r->term_signal,
			 strsignal(r->term_signal));
	else
		snprintf(buf, len, "exit %d", r->exit_status);
}

static void fmt_value(const struct pbench_count *k, char *buf, size_t len)
{
	if (k->status == PBENCH_EVENT_NOT_SUPPORTED || k->status == PBENCH_EVENT_NO_PERMISSION ||
	    k->status == PBENCH_EVENT_NOT_COUNTED)
		snprintf(buf, len, "-");
	else if (is_time_event(k->name)) {
		/* in its own unit: 52.27 us, not 0.052 ms */
		int n = pbench_format_ns(buf, len, k->scaled, 4);

		if (n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, "%s%s", k->is_scaled ? "*" : "",
				 k->user_only ? " u" : "");
	}
	else
		snprintf(buf, len, "%.0f%s%s", k->scaled, k->is_scaled ? "*" : "",
			 k->user_only ? " u" : "");
}

static int col_width(const char *name)
{
	int w = (int)strlen(name);

	return w < 12 ? 12 : w;
}

/* The runs as asked, before any ran: "20 runs, prepared", "runs until ± 1% (10 to 1000)...". */
static void asked(const struct pbench_runs *r, char *buf, size_t len)
{
	const struct pbench_runs_opts *o = &r->o;
	char each[96];

	if (o->target_sem_pct > 0)
		snprintf(each, sizeof(each), "runs until the standard error is %.2g%% of the mean "
			 "(%d to %ld)", o->target_sem_pct, PBENCH_RUNS_SEM_MIN_RUNS, o->runs);
	else
		snprintf(each, sizeof(each), "%ld run%s", o->runs, o->runs == 1 ? "" : "s");
	if (o->mode == PBENCH_RUNS_CONTRAST)
		snprintf(buf, len, "%s unprepared, then as many prepared", each);
	else
		snprintf(buf, len, "%s, %s", each, pbench_runs_mode_name(o->mode));
}

/* The command's warm-up runs and hyperfine's helpers, when there are any: one line. */
static void print_helpers(FILE *f, const struct pbench_runs *r)
{
	char **const helper[] = { r->setup, r->prerun, r->cleanup };
	static const char *const what[] = { "setup", "prepare (before each run)", "cleanup" };
	const char *sep = "";

	if (!r->o.warmup_runs && !r->setup && !r->prerun && !r->cleanup)
		return;
	fprintf(f, "around the runs: ");
	if (r->o.warmup_runs) {
		fprintf(f, "%ld warm-up run%s before each mode's, not kept", r->o.warmup_runs,
			r->o.warmup_runs == 1 ? "" : "s");
		sep = "; ";
	}
	for (int k = 0; k < 3; k++) {
		size_t n;
		char *line;

		if (!helper[k])
			continue;
		n = pb_shell_quote(NULL, 0, helper[k]) + 1;
		line = malloc(n);
		if (line)
			pb_shell_quote(line, n, helper[k]);
		fprintf(f, "%s%s: %s", sep, what[k], line ? line : helper[k][0]);
		free(line);
		sep = "; ";
	}
	fputc('\n', f);
}

/* The default events this machine cannot count, left out (pbench_runs_left_out()): said once,
 * each reason once with the events it holds for: "events: cycles and instructions left out of
 * the defaults: not supported by this CPU/VM (ENOENT): ...; -e names them to count them anyway". */
static void print_left_out(FILE *f, const struct pbench_runs *r)
{
	int said[PB_RUNS_MAX_LEFT_OUT] = { 0 };

	for (int i = 0; i < r->nleft; i++) {
		int n = 0, k = 0;

		if (said[i])
			continue;
		for (int j = i; j < r->nleft; j++)
			n += !strcmp(r->left_reason[j], r->left_reason[i]);
		fprintf(f, "events: ");
		for (int j = i; j < r->nleft; j++) {
			if (strcmp(r->left_reason[j], r->left_reason[i]))
				continue;
			said[j] = 1;
			k++;
			fprintf(f, "%s%s", k == 1 ? "" : k == n ? " and " : ", ", r->left_name[j]);
		}
		fprintf(f, " left out of the defaults: %s (named with -e, %s stay%s in the report with this reason)\n",
			*r->left_reason[i] ? r->left_reason[i] : "cannot be counted here",
			n == 1 ? "it" : "they", n == 1 ? "s" : "");
	}
}

/* What ran and the clock; before (the runs as asked) or after the runs (as done). */
static void print_header(FILE *f, const struct pbench_runs *r, int before)
{
	const struct pbench_clock_info *ci = &r->ci;
	char *const *cmd = r->subject.argv;
	char runs[160];

	if (before)
		asked(r, runs, sizeof(runs));
	else if (r->nsets == 2)
		snprintf(runs, sizeof(runs), "%d run%s unprepared, then %d prepared",
			 r->sets[0].done, r->sets[0].done == 1 ? "" : "s", r->sets[1].done);
	else
		snprintf(runs, sizeof(runs), "%d run%s, %s", r->sets[0].done,
			 r->sets[0].done == 1 ? "" : "s", pbench_runs_mode_name(r->sets[0].mode));
	if (cmd) {
		/* as a shell would take it back: sh -c 'gzip -c big.log > /dev/null' */
		size_t n = pb_shell_quote(NULL, 0, cmd) + 1;
		char *line = malloc(n);

		if (line)
			pb_shell_quote(line, n, cmd);
		fprintf(f, "pbench stat: %s, %s\n", line ? line : cmd[0], runs);
		free(line);
	} else {
		char wl[128];

		pb_runs_subject_desc(r, wl, sizeof(wl));
		fprintf(f, "pbench stat: %s, %s\n", wl, runs);
	}
	fprintf(f, "clock: %s, %.3f MHz (%s), read %.1f ns, begin+end %.1f ns, resolution %.1f ns\n",
	       pbench_clock_kind_name(ci->kind), (double)ci->hz / 1e6,
	       pbench_freq_source_name(ci->freq_source), ci->read_cost_ns, ci->region_cost_ns,
	       ci->resolution_ns);
	print_helpers(f, r);
	print_left_out(f, r);
}

/* How the set ran: sentences continued 2 columns in, the steps' rows at their text's column. */
static void print_preparation(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	struct pb_line l;

	if (s->mode == PBENCH_RUNS_UNPREPARED) {
		pb_wrapf(f, r->o.text_width, 2, "\nunprepared: no pinning, %s %s %d as started, "
			 "no warm-up\n", s->policy_name,
			 s->policy == SCHED_FIFO || s->policy == SCHED_RR ? "priority" : "nice",
			 s->prio_value);
		return;
	}
	pb_wrapf(f, r->o.text_width, 2, "\nprepared: CPU %d (%s)", s->cpu, s->cpu_reason);
	for (int i = 0; i < PBENCH_PREPARE_STEP_NR; i++)
		pb_wrapf(f, r->o.text_width, 2 + 9 + 1 + 14 + 1, "  %-9s %-14s %s",
			 pbench_prepare_step_name(s->steps[i].step),
			 pbench_prepare_status_name(s->steps[i].status), s->step_what[i]);
	f = pb_line_open(&l, f, r->o.text_width, PB_HANG(2));
	fprintf(f, "priority: %s %s %d", s->policy_name, s->policy == SCHED_FIFO ||
	       s->policy == SCHED_RR ? "priority" : "nice", s->prio_value);
	if (s->prio.probed || s->prio.cached)
		fprintf(f, " (AUTO probe%s: %d runs spread %.2f%% at the lowest nice, %d runs "
			"%.2f%% under SCHED_FIFO)", s->prio.cached ? " kept from this boot, "
			"--reprobe to time again" : "", s->prio.nice_runs, s->prio.nice_spread_pct,
			s->prio.fifo_runs, s->prio.fifo_spread_pct);
	fprintf(f, "; warm-up %.0f ms\n", s->warmup_ms);
	if (s->prio.rest_pct > 0) {
		fprintf(f, "rest: %.1f%% of each run after it (of short runs, once 1 ms is owed), "
		       "%.0f ms in all, so that the fair server (or RT throttling) never has to "
		       "preempt a SCHED_FIFO run", s->prio.rest_pct, s->rest_ms);
		if (s->rests_skipped)
			fprintf(f, "; %d of the %d rests owed not taken: no other task was "
				"runnable", s->rests_skipped, s->rests_owed);
		fprintf(f, "\n");
	}
	if (r->subject.argv && r->o.ncpus > 0) {
		fprintf(f, "the command ran prepared on CPUs");
		for (int i = 0; i < r->o.ncpus; i++)
			fprintf(f, "%s%d", i ? "," : " ", r->o.cpus[i]);
		fprintf(f, " (its affinity), with the scheduling policy it inherits through "
		       "fork/exec\n");
	} else if (r->subject.argv) {
		fprintf(f, "the command ran prepared: a child inherits the CPU affinity and the "
		       "scheduling policy through fork/exec\n");
	}
	if (s->restored_by)
		fprintf(f, "restored: by the %s handler, then again after the runs\n",
		       s->restored_by == SIGINT ? "SIGINT" : "SIGTERM");
	else
		fprintf(f, "restored after the runs: %s\n", s->restore_err ?
		       pbench_strerror(s->restore_err) : "affinity, priority, memory policy and lock");
	pb_line_close(&l);
}

/* The speed column (the throughput reference's factors) when they varied during the set. */
static int speed_varied(const struct pb_set *s)
{
	struct pbench_speed_summary sum = { .size = sizeof(sum) };

	return !pb_runs_speed_summary(s, &sum) && sum.range >= PBENCH_SPEED_VARIED;
}

static void print_runs(FILE *f, const struct pbench_runs *r, const struct pb_set *s, int *scaled,
		       int *user_only)
{
	int nr = r->nr, speed = speed_varied(s);
	char buf[64];

	/* ticks raw (the clock's own unit, exact); the time scaled as the other time columns
	 * are, to 6 significant digits (the JSON and CSV keep the integer ns) */
	fprintf(f, "\n%5s %14s %12s", "run", "ticks", "time");
	for (int e = 0; e < nr; e++)
		if (s->runs[0].counts[e].status <= PBENCH_EVENT_NOT_COUNTED)
			fprintf(f, "  %*s", col_width(s->runs[0].counts[e].name),
			       s->runs[0].counts[e].name);
	fprintf(f, "  %3s %5s%s  status\n", "cpu", "irqs", speed ? "  speed" : "");
	for (int i = 0; i < s->done; i++) {
		const struct pb_run *run = &s->runs[i];

		pbench_format_ns(buf, sizeof(buf), (double)run->ns, 6);
		fprintf(f, "%5d %14llu %12s", i + 1, (unsigned long long)run->ticks, buf);
		for (int e = 0; e < nr; e++) {
			if (s->runs[0].counts[e].status > PBENCH_EVENT_NOT_COUNTED)
				continue;
			fmt_value(&run->counts[e], buf, sizeof(buf));
			*scaled |= run->counts[e].is_scaled;
			*user_only |= run->counts[e].user_only;
			fprintf(f, "  %*s", col_width(run->counts[e].name), buf);
		}
		if (run->have_cpu_noise)
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)run->cpu_noise.irq_total);
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, "  %3d %5s", run->cpu, buf);
		if (speed && isfinite(run->speed))
			fprintf(f, "  %4.2fx", run->speed);
		else if (speed)
			fprintf(f, "  %5s", "-");
		fmt_status(run, buf, sizeof(buf));
		fprintf(f, "  %s\n", buf);
	}
}

/* A metric's value in its unit: "0.987 CPUs utilized", "2.504 K/sec", "1.23 insn per cycle". */
static void fmt_metric(char *buf, size_t len, const struct pbench_metric_summary *m)
{
	double v = m->mean;

	if (!strcmp(m->unit, "/sec"))
		snprintf(buf, len, "%8.3f %s/sec", v >= 1e6 ? v / 1e6 : v >= 1e3 ? v / 1e3 : v,
			 v >= 1e6 ? "M" : v >= 1e3 ? "K" : "");
	else if (!strcmp(m->unit, "%"))
		snprintf(buf, len, "%7.2f%% %s", v, m->label);
	else if (!strcmp(m->unit, "slots"))
		snprintf(buf, len, "%7.1f%% %s", 100 * v, m->label);
	else if (!strcmp(m->unit, "GHz"))
		snprintf(buf, len, "%8.3f GHz", v);
	else
		snprintf(buf, len, "%8.3f %s", v, m->label);
}

/* One line of the block, without trailing blanks. */
static void put_line(FILE *f, char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		line[--n] = 0;
	fprintf(f, "%s\n", line);
}

#define APPEND(buf, ...) snprintf((buf) + strlen(buf), sizeof(buf) - strlen(buf), __VA_ARGS__)

static void print_metric_line(FILE *f, const struct pbench_metric_summary *m)
{
	char v[96], line[640];

	snprintf(line, sizeof(line), "%20s  %-24s ", "", "");
	if (m->reason) {
		APPEND(line, "# n/a: %s (%s)", m->reason, m->name);
		put_line(f, line);
		return;
	}
	fmt_metric(v, sizeof(v), m);
	APPEND(line, "# %-30s", v);
	if (isfinite(m->sem_pct))
		APPEND(line, "  ( +- %5.2f%% )", m->sem_pct);
	if (m->apart)
		APPEND(line, "  (its events multiplexed apart in %d of %d runs: estimates of "
		       "different windows)", m->apart, m->runs);
	put_line(f, line);
}

/* perf stat's block after the runs: each event's mean, its metric and "+- SEM%", then the
 * metrics no event carries. */
static void print_counter_block(FILE *f, const struct pbench_runs *r, int s)
{
	int nm = pbench_runs_nr_metrics(r), nr = pbench_runs_nr_events(r);
	unsigned char *said = calloc((size_t)(nm ? nm : 1), 1);

	if (!said || (!nr && !nm)) {
		free(said);
		return;
	}
	fprintf(f, "\ncounters: mean over the runs, +- its standard error (perf stat's)\n");
	for (int e = 0; e < nr; e++) {
		struct pbench_event_summary k = { .size = sizeof(k) };
		char v[64], line[640];
		int shown = 0;

		pbench_runs_event_summary(r, s, e, &k);
		if (k.status > PBENCH_EVENT_NOT_COUNTED)
			continue;	/* said once in the notes */
		if (!k.counted)
			snprintf(v, sizeof(v), "<not counted>");
		else if (*k.unit)
			pbench_format_ns(v, sizeof(v), k.mean, 5);
		else
			pb_format_count(v, sizeof(v), k.mean);
		snprintf(line, sizeof(line), "%20s  %-24s ", v, k.name);
		for (int m = 0; m < nm && !shown; m++) {
			struct pbench_metric_summary ms = { .size = sizeof(ms) };
			const char *anchor;

			pbench_runs_metric(r, s, m, &ms);
			anchor = pb_metric_anchor(pb_metric_find(ms.name));
			if (said[m] || !anchor || strcmp(anchor, k.name) || ms.reason)
				continue;
			said[m] = shown = 1;
			fmt_metric(v, sizeof(v), &ms);
			APPEND(line, "# %-30s", v);
		}
		if (!shown)
			APPEND(line, "  %-30s", "");
		if (k.counted && isfinite(k.sem_pct))
			APPEND(line, "  ( +- %5.2f%% )", k.sem_pct);
		if (k.multiplexed)
			APPEND(line, "  (%.2f%%: multiplexed, an estimate)", k.running_pct);
		if (k.counted && k.counted < k.runs)
			APPEND(line, "  (counted in %d of %d runs)", k.counted, k.runs);
		put_line(f, line);
	}
	for (int m = 0; m < nm; m++) {
		struct pbench_metric_summary ms = { .size = sizeof(ms) };

		if (said[m])
			continue;
		pbench_runs_metric(r, s, m, &ms);
		print_metric_line(f, &ms);
	}
	free(said);
}

static void print_outliers(FILE *f, const struct pb_set *s)
{
	char lo[32], hi[32];

	if (!s->have_summary)
		return;
	if (s->measured < 2) {
		fprintf(f, "outliers: n/a (a single run: no spread to judge one by)\n");
		return;
	}
	pbench_format_ns(lo, sizeof(lo), s->fence_lo, 4);
	pbench_format_ns(hi, sizeof(hi), s->fence_hi, 4);
	/* A time is never below 0: a lower fence there is no fence, and is not printed as one. */
	if (s->fence_lo < 0)
		fprintf(f, "outliers: %d (Tukey fences: above %s; none below, q1 - 1.5 IQR is under "
			"0)\n", s->outliers, hi);
	else
		fprintf(f, "outliers: %d (Tukey fences %s to %s)\n", s->outliers, lo, hi);
	for (int i = 0; i < s->done; i++)
		if (s->runs[i].outlier)
			fprintf(f, "  run %d: %s\n", i + 1, s->runs[i].cause);
}

static const char *pct_or_na(char *buf, size_t len, double pct);

/* A value of the metric decided on (--metric): a time, a count, a metric in its unit. */
static void fmt_target(char *buf, size_t len, const struct pbench_runs *r, double v)
{
	const char *unit = pb_runs_target_unit(r);

	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (!strcmp(unit, "ns"))
		pbench_format_ns(buf, len, v, 5);
	else if (r->target_e >= 0)
		pb_format_count(buf, len, v);
	else
		snprintf(buf, len, "%.6g%s%s", v, *unit ? " " : "", unit);
}

/* --metric: the outliers are told on it (its Tukey fences), each with its cause. */
static void print_metric_outliers(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	char lo[48], hi[48];

	if (!s->have_summary)
		return;
	if (!s->have_mv || s->s_mv.n < 2) {
		fprintf(f, "outliers: n/a (fewer than 2 runs with %s: no spread to judge one by)\n",
			pb_runs_target_name(r));
		return;
	}
	fmt_target(lo, sizeof(lo), r, s->mfence_lo);
	fmt_target(hi, sizeof(hi), r, s->mfence_hi);
	fprintf(f, "outliers: %d on %s (Tukey fences %s to %s)\n", s->outliers,
		pb_runs_target_name(r), lo, hi);
	for (int i = 0; i < s->done; i++) {
		if (!s->runs[i].outlier)
			continue;
		fmt_target(lo, sizeof(lo), r, s->mv[i]);	/* its value, then its time's cause */
		fprintf(f, "  run %d: %s %s; time %s\n", i + 1, pb_runs_target_name(r), lo,
			s->runs[i].cause);
	}
}

/* --metric: the summary the set is judged on, after the time's. */
static void print_metric_summary(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	const struct pbench_summary *m = &s->s_mv;
	char mn[48], md[48], mean[48], mx[48], sem[32], cv[32];

	if (!s->mv)
		return;
	if (!s->have_mv) {
		fprintf(f, "metric %s: n/a (not made in any run)\n", pb_runs_target_name(r));
		return;
	}
	fmt_target(mn, sizeof(mn), r, m->min);
	fmt_target(md, sizeof(md), r, m->median);
	fmt_target(mean, sizeof(mean), r, m->mean);
	fmt_target(mx, sizeof(mx), r, m->max);
	fprintf(f, "metric %s (decided on): %zu runs, min %s, median %s, mean %s +- %s, max %s, "
		"cv %s\n", pb_runs_target_name(r), (size_t)m->n, mn, md, mean,
		pct_or_na(sem, sizeof(sem), m->mean ? 100 * m->sem / fabs(m->mean) : NAN), mx,
		pct_or_na(cv, sizeof(cv), m->cv_pct));
}

/* "12.345 ms", "52.27 us", "850.0 ns" (5 significant digits in the unit that fits), or
 * "n/a" for what the runs cannot give (the spread of a single run). */
static const char *time_or_na(char *buf, size_t len, double ns)
{
	if (isfinite(ns))
		pbench_format_ns(buf, len, ns, 5);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

static const char *pct_or_na(char *buf, size_t len, double pct)
{
	if (isfinite(pct))
		snprintf(buf, len, "%.2f%%", pct);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

/* The command's own waiting, when its typical run blocks and is never preempted: said once, so
 * that the outliers' causes, told beyond it, are read right. */
static void print_own_wait(FILE *f, const struct pb_set *s)
{
	char w[32], tm[32], pr[48];

	if (s->wait_untold_ns > 0) {	/* NaN: not this case */
		pbench_format_ns(w, sizeof(w), s->wait_untold_ns, 2);
		fprintf(f, "waiting: a typical run is off the CPU %s; whether it blocked or was "
			"preempted is not known without the context-switches event (-e "
			"context-switches): getrusage's counts hold pbench's own switches before "
			"the exec and at the exit too%s\n", w,
			s->outliers ? "; the outliers are told beyond it" : "");
		return;
	}
	if (!isfinite(s->own_wait_ns))
		return;
	pbench_format_ns(w, sizeof(w), s->own_wait_ns, 2);
	if (s->own_blocks == 1)
		snprintf(tm, sizeof(tm), "once");
	else
		snprintf(tm, sizeof(tm), "%llu times", (unsigned long long)s->own_blocks);
	if (s->own_preempted)
		snprintf(pr, sizeof(pr), "preempted %llu time%s",
			 (unsigned long long)s->own_preempted, s->own_preempted == 1 ? "" : "s");
	fprintf(f, "waiting: a typical run is off the CPU %s, blocked %s and %s: %s, in every run "
		"alike%s\n", w, tm, s->own_preempted ? pr : "never preempted",
		s->own_preempted ? "the command's own waiting (a sleep, I/O, a child) and the CPU "
		"taken from it" : "the command's own waiting (a sleep, I/O, a child), not noise",
		s->outliers ? "; the outliers are told beyond it" : "");
}

static void print_summary(FILE *f, const struct pb_set *s)
{
	const struct pbench_summary *m = &s->s_ns;
	char mn[32], md[32], mean[32], mx[32], sd[32], cv[32], sp[32], out[160] = "";

	if (s->done > s->measured)	/* the rule of pb_run_measured(), said */
		snprintf(out, sizeof(out), " (of %d: %d left out, %s)", s->done,
			 s->done - s->measured, PB_RUN_LEFT_OUT);
	if (!s->have_summary) {
		if (*out)
			fprintf(f, "summary: none: 0 runs%s\n", out);
		return;
	}
	fprintf(f, "summary: %d run%s%s, time min %s, median %s, mean %s, max %s, stddev %s, "
	       "cv %s, spread %s%s%s\n", s->measured, s->measured == 1 ? "" : "s", out,
	       time_or_na(mn, sizeof(mn), m->min), time_or_na(md, sizeof(md), m->median),
	       time_or_na(mean, sizeof(mean), m->mean), time_or_na(mx, sizeof(mx), m->max),
	       isfinite(m->stddev) ? (pbench_format_ns(sd, sizeof(sd), m->stddev, 3), sd) : "n/a",
	       pct_or_na(cv, sizeof(cv), m->cv_pct),
	       pct_or_na(sp, sizeof(sp), m->spread_pct),
	       s->measured == 1 ? " (one run: no spread; -r 2 or more for one)" : "",
	       s->failed ? " (some runs failed: see status)" : "");
}

/* Under the summary, where the reader looks: a prepared result that is not the command's
 * own time (the CPU was busy, or task-clock far below the wall time). */
static void print_caution(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	char buf[512];
	int u = pb_runs_unreliable(s);

	if (u && pbench_runs_caution(r, (int)(s - r->sets), buf, sizeof(buf)) > 0)
		fprintf(f, "%s: %s\n", u & PB_UNRELIABLE_BUSY ? "unreliable" : "caution", buf);
	/* A busy reading before the runs that the runs' own counts contradict: said, not
	 * blamed (issue 37). */
	if (!(u & PB_UNRELIABLE_BUSY) && s->mode == PBENCH_RUNS_PREPARED && s->prepared &&
	    s->cpu_busy >= PBENCH_CPU_BUSY)
		fprintf(f, "note: every CPU this process may use was busy before the runs (CPU %d, "
			"the least busy, %.0f%% over the 200 ms before them); the runs show no sign "
			"of it: task-clock %.4f of the wall time%s\n", s->cpu, s->cpu_busy * 100,
			pb_runs_task_clock_share(s), isfinite(s->typ.switches) ?
			", no context switch within a typical run" : "");
}

/*
 * hyperfine's [User: 1.3 ms, System: 0.5 ms]: the means over the runs, from getrusage. For short
 * runs the sum is said exact and the split not (PB_SPLIT_SAMPLED_WORDS): `true` read "user 640
 * us, system 57.0 us" for an exec that is mostly the kernel's work.
 */
static void print_cpu_time(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	double u = pb_runs_mean_field(s, offsetof(struct pb_run, user_ns)),
	       k = pb_runs_mean_field(s, offsetof(struct pb_run, system_ns));
	char a[32], b[32], sum[32];

	if (!isfinite(u) || !isfinite(k))
		return;
	pbench_format_ns(a, sizeof(a), u, 3);
	pbench_format_ns(b, sizeof(b), k, 3);
	fprintf(f, "cpu time: user %s, system %s (means over the runs, getrusage of %s)", a, b,
		r->subject.argv ? "the command and the children it waited for" : "the thread");
	if (u + k < PB_SPLIT_SAMPLED_NS) {
		pbench_format_ns(sum, sizeof(sum), u + k, 3);
		fprintf(f, "; their sum %s is exact, the split is not: " PB_SPLIT_SAMPLED_WORDS, sum);
	}
	fputc('\n', f);
}

/*
 * The speed over the set, as what each reference reads (issue 27): the clock (latency-bound)
 * and the core's issue throughput available to this thread; which of them varied
 * (pbench_speed_explain()), or both steady; where and what reading them cost.
 */
static void print_speed(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	struct pbench_speed_summary m = { .size = sizeof(m) }, k = { .size = sizeof(k) };
	double cost = pb_runs_speed_cost(s);
	char c[32] = "n/a", a[32], b[32], why[640];
	int clock;

	if (isfinite(cost))
		pbench_format_ns(c, sizeof(c), cost, 2);
	if (pb_runs_speed_summary(s, &m)) {
		fprintf(f, "speed: n/a (the references were not read)\n");
		return;
	}
	clock = !pb_runs_clock_summary(s, &k);
	if (pbench_speed_explain(why, sizeof(why), &m, clock ? &k : NULL) > 0)
		fprintf(f, "speed: %s", why);
	else if (clock && k.source == PBENCH_SPEED_SOURCE_PMU)
		fprintf(f, "speed: steady: the CPU's clock (%s) %.2fx to %.2fx of its best, %s "
			"%.2fx to %.2fx", PB_SPEED_PMU_CLOCK, k.min, k.max, PB_SPEED_THROUGHPUT,
			m.min, m.max);
	else if (clock)
		fprintf(f, "speed: steady: the clock %.2fx to %.2fx of its best, %s %.2fx to %.2fx",
			k.min, k.max, PB_SPEED_THROUGHPUT, m.min, m.max);
	else
		fprintf(f, "speed: steady: %s %.2fx to %.2fx of its best, the clock not read",
			PB_SPEED_THROUGHPUT, m.min, m.max);
	/* Only where the throughput is blamed and explains the spread, and narrows it: a factor
	 * read wrong on a run it did not slow widens it instead. */
	if (!clock && m.corr >= 0.8 && m.spread_at_one_speed_pct < m.spread_pct) {
		pb_format_pct(a, sizeof(a), m.spread_pct, -1);
		pb_format_pct(b, sizeof(b), m.spread_at_one_speed_pct, -1);
		fprintf(f, "; at one throughput their spread of %s would be %s", a, b);
	}
	fprintf(f, " (read before and after each run%s, %s a run outside the timed span)\n",
		r->subject.argv ? " on the CPU the command ended on" : "", c);
}

/* With --target-sem: what stopped the runs. For a command: the harness's own cost. */
static void print_stop_and_cost(FILE *f, const struct pbench_runs *r, const struct pb_set *s)
{
	const struct pbench_runs_opts *o = &r->o;

	if (o->target_sem_pct > 0) {
		const char *why = s->stop == PBENCH_RUNS_STOP_TARGET ? "reached" :
				  s->stop == PBENCH_RUNS_STOP_TIME ? "not reached within --max-time" :
				  "not reached within the most runs (-r)";

		fprintf(f, "target: standard error ± %.2g%% of the mean %s: ± %.2g%% after %d runs "
		       "in %.1f s\n", o->target_sem_pct, why, s->sem_pct, s->done, s->elapsed_s);
	}
	if (r->subject.argv) {
		double setup = pb_runs_median_field(s, offsetof(struct pb_run, setup_ns)),
		       exec = pb_runs_median_field(s, offsetof(struct pb_run, exec_ns));
		char a[32] = "n/a", b[32];

		if (isfinite(setup))
			pbench_format_ns(a, sizeof(a), setup, 3);
		fprintf(f, "harness: %s a run to start the command (before the timed span), ", a);
		if (isfinite(exec)) {
			pbench_format_ns(b, sizeof(b), exec, 3);
			fprintf(f, "%s in exec until pbench sees it done (inside it); medians\n",
				b);
		} else {
			fprintf(f, "time in exec n/a (pbench and the command share one CPU: pbench sees "
			       "exec only once the command yields); medians\n");
		}
	}
}

static void print_event_notes(FILE *f, const struct pbench_runs *r, const struct pb_set *s,
			      int scaled, int user_only)
{
	for (int e = 0; e < r->nr; e++) {
		const struct pbench_count *k = &s->runs[0].counts[e];

		if (k->status > PBENCH_EVENT_NOT_COUNTED)
			fprintf(f, "%-20s <%s> %s\n", k->name, pb_event_status_text(k->status),
				k->reason);
	}
	for (int e = 0; e < r->nr; e++) {
		const struct pbench_count *k = &s->runs[s->done - 1].counts[e];

		if (k->status == PBENCH_EVENT_NOT_COUNTED)
			fprintf(f, "%-20s <%s> %s\n", k->name,
				pb_event_status_text(PBENCH_EVENT_NOT_COUNTED), k->reason);
	}
	if (scaled)
		fprintf(f, "* scaled: the event shared a counter (multiplexed); the value is "
		       "estimated from the time it ran\n");
	if (user_only) {
		int paranoid = -1;

		pbench_counters_paranoid(&paranoid);
		fprintf(f, "u user space only: kernel.perf_event_paranoid is %d, so the kernel's share "
		       "is not counted; fix: sysctl -w kernel.perf_event_paranoid=1, or "
		       "CAP_PERFMON\n", paranoid);
	}
}

static void contrast_row(FILE *f, const char *label, const struct pb_set *u, const struct pb_set *p,
			 size_t off)
{
	fprintf(f, "  %-13s", label);
	for (const struct pb_set *s = u; s; s = s == u ? p : NULL)
		fprintf(f, " %14.0f %14.0f", *(const double *)((const char *)&s->s_ticks + off),
		       *(const double *)((const char *)&s->s_ns + off));
	fprintf(f, "\n");
}

static void print_contrast(FILE *f, const struct pbench_runs *r)
{
	const struct pb_set *u = pb_runs_set_of(r, PBENCH_RUNS_UNPREPARED), *p = pb_runs_set_of(r, PBENCH_RUNS_PREPARED);
	double sr, cr;
	char verdict[PB_RUNS_VERDICT_LEN], a[32], b[32];
	struct pb_line l;

	if (!pb_runs_contrast(r, &sr, &cr, verdict, sizeof(verdict)))
		return;
	fprintf(f, "\ncontrast: %d unprepared runs, %d prepared\n", u->done, p->done);
	fprintf(f, "  %-13s %29s %29s\n", "", "unprepared", "prepared");
	fprintf(f, "  %-13s %14s %14s %14s %14s\n", "", "ticks", "ns", "ticks", "ns");
	contrast_row(f, "min", u, p, offsetof(struct pbench_summary, min));
	contrast_row(f, "max", u, p, offsetof(struct pbench_summary, max));
	contrast_row(f, "median", u, p, offsetof(struct pbench_summary, median));
	contrast_row(f, "trimmed mean", u, p, offsetof(struct pbench_summary, trimmed_mean));
	pb_format_pct(a, sizeof(a), u->s_ns.spread_pct, -1);
	pb_format_pct(b, sizeof(b), p->s_ns.spread_pct, -1);
	fprintf(f, "  %-13s %29s %29s\n", "spread", a, b);
	pb_format_pct(a, sizeof(a), u->s_ns.cv_pct, -1);
	pb_format_pct(b, sizeof(b), p->s_ns.cv_pct, -1);
	fprintf(f, "  %-13s %29s %29s\n", "cv", a, b);
	f = pb_line_open(&l, f, r->o.text_width, PB_HANG(2));
	fprintf(f, "ratio unprepared/prepared: spread ");
	/* Three significant digits below 10: a ratio of 0.039 is not "0.0x". */
	fprintf(f, !isfinite(sr) ? "- (no prepared spread)" : sr < 10 ? "%.3gx" : "%.1fx", sr);
	fprintf(f, ", cv ");
	fprintf(f, !isfinite(cr) ? "- (no prepared variation)\n" : cr < 10 ? "%.3gx\n" : "%.1fx\n",
	       cr);
	fprintf(f, "verdict: %s\n", verdict);
	pb_line_close(&l);
}

/* The head's lines, each continued 2 columns in. */
static void write_head(FILE *f, const struct pbench_runs *r, int before)
{
	struct pb_line l;

	print_header(pb_line_open(&l, f, r->o.text_width, PB_HANG(2)), r, before);
	pb_line_close(&l);
}

int pbench_runs_write_head(const struct pbench_runs *r, FILE *f)
{
	if (!r || !f)
		return -EINVAL;
	write_head(f, r, !r->ran);
	return pb_stream_end(f);
}

int pbench_runs_write_text(const struct pbench_runs *r, FILE *f)
{
	if (!r || !f)
		return -EINVAL;
	write_head(f, r, 0);
	return pbench_runs_write_body(r, f);
}

/* What a set's runs came to, after their table: sentences, each line continued 2 columns
 * further in than it starts. */
static void print_findings(FILE *f, const struct pbench_runs *r, const struct pb_set *s,
			   int notes, int scaled, int user_only)
{
	struct pb_line l;

	f = pb_line_open(&l, f, r->o.text_width, PB_HANG(2));
	if (notes)	/* the events are the same in both sets */
		print_event_notes(f, r, s, scaled, user_only);
	print_own_wait(f, s);
	if (s->mv)
		print_metric_outliers(f, r, s);
	else
		print_outliers(f, s);
	print_summary(f, s);
	print_metric_summary(f, r, s);
	print_caution(f, r, s);
	print_cpu_time(f, r, s);
	print_speed(f, r, s);
	print_stop_and_cost(f, r, s);
	pb_line_close(&l);
}

int pbench_runs_write_body(const struct pbench_runs *r, FILE *f)
{
	if (!r || !f)
		return -EINVAL;
	for (int i = 0; i < r->nsets; i++) {
		const struct pb_set *s = &r->sets[i];
		int scaled = 0, user_only = 0;

		if (s->mode == PBENCH_RUNS_PREPARED && !s->prepared) {
			fprintf(f, "\nprepared: not done (interrupted %s)\n",
				s->cut ? "before the runs" : "while preparing");
			pb_runs_intervals_text(r, s, f);	/* a check run cut short */
			continue;
		}
		print_preparation(f, r, s);
		if (!s->done) {
			fprintf(f, "no runs\n");
			pb_runs_intervals_text(r, s, f);	/* a run cut short */
			continue;
		}
		print_runs(f, r, s, &scaled, &user_only);
		print_counter_block(f, r, i);
		print_findings(f, r, s, i == r->nsets - 1, scaled, user_only);
		pb_runs_intervals_text(r, s, f);	/* opts.interval_ms: each run over time */
		pb_runs_profile_text(r, i, f);		/* opts.profile: where the time went */
	}
	print_contrast(f, r);
	/* pb_runs_attach_memory(): the command's allocations, after its times */
	if (r->mem && pb_mem_runs_write_text(r->mem, r->nr_mem, f))
		return ferror(f) ? pb_stream_end(f) : -EIO;
	return pb_stream_end(f);
}
