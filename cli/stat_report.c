/* SPDX-License-Identifier: MIT */
/*
 * pbench stat's report: each set of runs (unprepared, prepared) as a table with what was done
 * to prepare it, its outliers and their causes, its summary; the two side by side in contrast
 * mode; and the runs as an SVG plot. JSON is in stat_json.c, CSV in stat_csv.c.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pbench.h"
#include "cmds.h"
#include "stat.h"

/* ---- analysis --------------------------------------------------------------------------- */

void stat_set_analyze(struct stat_set *s)
{
	double *ns, *ticks, iqr, median;
	unsigned flags = s->policy == SCHED_FIFO ? PBENCH_CAUSE_FIFO : 0;
	int n = s->done;

	s->have_summary = 0;
	if (!n)
		return;
	ns = malloc((size_t)n * sizeof(*ns));
	ticks = malloc((size_t)n * sizeof(*ticks));
	s->s_ns.size = s->s_ticks.size = sizeof(struct pbench_summary);
	for (int i = 0; ns && ticks && i < n; i++) {
		ns[i] = (double)s->runs[i].ns;
		ticks[i] = (double)s->runs[i].ticks;
	}
	if (ns && ticks && !pbench_stats_summary(ns, (size_t)n, NULL, &s->s_ns) &&
	    !pbench_stats_summary(ticks, (size_t)n, NULL, &s->s_ticks))
		s->have_summary = 1;
	free(ns);
	free(ticks);
	if (!s->have_summary)
		return;
	/* Tukey's fences, as pbench_stats_summary counts its outliers; none from one run. */
	iqr = s->s_ns.q3 - s->s_ns.q1;
	s->fence_lo = n < 2 ? NAN : s->s_ns.q1 - 1.5 * iqr;
	s->fence_hi = n < 2 ? NAN : s->s_ns.q3 + 1.5 * iqr;
	median = s->s_ns.median;
	for (int i = 0; i < n; i++) {
		struct run *r = &s->runs[i];
		double x = (double)r->ns;

		r->outlier = x < s->fence_lo || x > s->fence_hi;
		if (!r->outlier)
			continue;
		s->outliers++;
		pbench_noise_cause(r->cause, sizeof(r->cause), x - median, &r->noise,
				   r->have_cpu_noise ? &r->cpu_noise : NULL, flags);
	}
}

void stat_workload_desc(const struct stat_opts *o, char *buf, size_t len)
{
	if (o->workload == WL_WALK)
		snprintf(buf, len, "built-in workload 'memwalk' (%lld steps over %zu MiB)",
			 o->iterations, o->walk_bytes >> 20);
	else
		snprintf(buf, len, "built-in workload 'xor' (%lld iterations)", o->iterations);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double stat_median_field(const struct stat_set *s, size_t off)
{
	uint64_t *v = malloc((size_t)(s->done ? s->done : 1) * sizeof(*v));
	double m = NAN;
	int n = 0;

	for (int i = 0; v && i < s->done; i++) {
		uint64_t x = *(const uint64_t *)((const char *)&s->runs[i] + off);

		if (x && !s->runs[i].timed_out)
			v[n++] = x;
	}
	if (n) {
		qsort(v, (size_t)n, sizeof(*v), cmp_u64);
		m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	}
	free(v);
	return m;
}

const struct stat_set *stat_set_of(const struct stat_report *rep, int kind)
{
	for (int s = 0; s < rep->nsets; s++)
		if (rep->sets[s]->kind == kind)
			return rep->sets[s];
	return NULL;
}

/* A percentage with two significant digits, and never in exponent form. */
static void fmt_pct(char *buf, size_t len, double x)
{
	if (!isfinite(x))
		snprintf(buf, len, "-");
	else if (x >= 10)
		snprintf(buf, len, "%.0f%%", x);
	else if (x >= 1)
		snprintf(buf, len, "%.1f%%", x);
	else if (x >= 0.001)
		snprintf(buf, len, "%.2g%%", x);
	else
		snprintf(buf, len, "%.4f%%", x);
}

/*
 * The contrast of the two sets: ratios of spreads and of CVs (unprepared / prepared) and a
 * verdict from those numbers only. 0 when there is no contrast to make.
 */
int stat_contrast_of(const struct stat_report *rep, double *spread_ratio, double *cv_ratio,
		       char *verdict, size_t len)
{
	const struct stat_set *u = stat_set_of(rep, MODE_UNPREPARED), *p = stat_set_of(rep, MODE_PREPARED);
	char su[32], sp[32];

	if (!u || !p || !u->have_summary || !p->have_summary || u->done < 2 || p->done < 2)
		return 0;
	*spread_ratio = p->s_ns.spread_pct > 0 ? u->s_ns.spread_pct / p->s_ns.spread_pct : NAN;
	*cv_ratio = p->s_ns.cv_pct > 0 ? u->s_ns.cv_pct / p->s_ns.cv_pct : NAN;
	fmt_pct(su, sizeof(su), u->s_ns.spread_pct);
	fmt_pct(sp, sizeof(sp), p->s_ns.spread_pct);
	if (!isfinite(*spread_ratio))
		snprintf(verdict, len, "prepared runs did not vary at all (0%% spread) against %s "
			 "unprepared", su);
	else if (*spread_ratio >= 1)
		snprintf(verdict, len, "prepared runs spread %s against %s unprepared: %.1fx "
			 "tighter", sp, su, *spread_ratio);
	else
		snprintf(verdict, len, "prepared runs spread %s against %s unprepared: %.1fx "
			 "wider, preparing did not steady this workload here", sp, su,
			 1 / *spread_ratio);
	return 1;
}

/* ---- text ------------------------------------------------------------------------------- */

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

static void fmt_status(const struct run *r, char *buf, size_t len)
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
	else if (is_time_event(k->name))
		snprintf(buf, len, "%.3f ms%s%s", k->scaled / 1e6, k->is_scaled ? "*" : "",
			 k->user_only ? " u" : "");
	else
		snprintf(buf, len, "%.0f%s%s", k->scaled, k->is_scaled ? "*" : "",
			 k->user_only ? " u" : "");
}

static int col_width(const char *name)
{
	int w = (int)strlen(name);

	return w < 12 ? 12 : w;
}

static void print_header(const struct stat_report *rep)
{
	const struct stat_opts *o = rep->o;
	const struct pbench_clock_info *ci = rep->ci;
	char runs[96];

	if (rep->nsets == 2)
		snprintf(runs, sizeof(runs), "%d run%s unprepared, then %d prepared",
			 rep->sets[0]->done, rep->sets[0]->done == 1 ? "" : "s", rep->sets[1]->done);
	else
		snprintf(runs, sizeof(runs), "%d run%s, %s", rep->sets[0]->done,
			 rep->sets[0]->done == 1 ? "" : "s", stat_mode_name(rep->sets[0]->kind));
	if (o->cmd) {
		printf("pbench stat: '");
		for (char **a = o->cmd; *a; a++)
			printf("%s%s", a == o->cmd ? "" : " ", *a);
		printf("', %s\n", runs);
	} else {
		char wl[128];

		stat_workload_desc(o, wl, sizeof(wl));
		printf("pbench stat: %s, %s\n", wl, runs);
	}
	printf("clock: %s, %.3f MHz (%s), read %.1f ns, begin+end %.1f ns, resolution %.1f ns\n",
	       pbench_clock_kind_name(ci->kind), (double)ci->hz / 1e6,
	       pbench_freq_source_name(ci->freq_source), ci->read_cost_ns, ci->region_cost_ns,
	       ci->resolution_ns);
}

static void print_preparation(const struct stat_report *rep, const struct stat_set *s)
{
	if (s->kind == MODE_UNPREPARED) {
		printf("\nunprepared: no pinning, %s %s %d as started, no warm-up\n",
		       s->policy_name, s->policy == SCHED_FIFO || s->policy == SCHED_RR ?
		       "priority" : "nice", s->prio_value);
		return;
	}
	printf("\nprepared: CPU %d (%s)\n", s->cpu, s->cpu_reason);
	for (int i = 0; i < PBENCH_PREP_NR_STEPS; i++)
		printf("  %-9s %-14s %s\n", pbench_prep_step_name(s->steps[i].step),
		       pbench_step_status_name(s->steps[i].status), s->steps[i].what);
	printf("priority: %s %s %d", s->policy_name, s->policy == SCHED_FIFO ||
	       s->policy == SCHED_RR ? "priority" : "nice", s->prio_value);
	if (s->prio.probed)
		printf(" (AUTO probe: %d runs spread %.2f%% at the lowest nice, %d runs %.2f%% "
		       "under SCHED_FIFO)", s->prio.nice_runs, s->prio.nice_spread_pct,
		       s->prio.fifo_runs, s->prio.fifo_spread_pct);
	printf("; warm-up %.0f ms\n", s->warmup_ms);
	if (s->prio.rest_pct > 0)
		printf("rest: %.1f%% of each run after it, %.0f ms in all, so that the fair server "
		       "(or RT throttling) never has to preempt a SCHED_FIFO run\n",
		       s->prio.rest_pct, s->rest_ms);
	if (rep->o->cmd)
		printf("the command ran prepared: a child inherits the CPU affinity and the "
		       "scheduling policy through fork/exec\n");
	if (s->restored_by)
		printf("restored: by the %s handler, then again after the runs\n",
		       s->restored_by == SIGINT ? "SIGINT" : "SIGTERM");
	else
		printf("restored after the runs: %s\n", s->restore_err ?
		       pbench_strerror(s->restore_err) : "affinity, priority, memory policy and lock");
}

static void print_runs(const struct stat_report *rep, const struct stat_set *s, int *scaled,
		       int *user_only)
{
	int nr = rep->nr;
	char buf[64];

	printf("\n%5s %14s %14s", "run", "ticks", "time_ns");
	for (int e = 0; e < nr; e++)
		if (s->runs[0].counts[e].status <= PBENCH_EVENT_NOT_COUNTED)
			printf("  %*s", col_width(s->runs[0].counts[e].name),
			       s->runs[0].counts[e].name);
	printf("  %3s %5s  status\n", "cpu", "irqs");
	for (int i = 0; i < s->done; i++) {
		const struct run *r = &s->runs[i];

		printf("%5d %14llu %14llu", i + 1, (unsigned long long)r->ticks,
		       (unsigned long long)r->ns);
		for (int e = 0; e < nr; e++) {
			if (s->runs[0].counts[e].status > PBENCH_EVENT_NOT_COUNTED)
				continue;
			fmt_value(&r->counts[e], buf, sizeof(buf));
			*scaled |= r->counts[e].is_scaled;
			*user_only |= r->counts[e].user_only;
			printf("  %*s", col_width(r->counts[e].name), buf);
		}
		if (r->have_cpu_noise)
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->cpu_noise.irq_total);
		else
			snprintf(buf, sizeof(buf), "-");
		printf("  %3d %5s", r->cpu, buf);
		fmt_status(r, buf, sizeof(buf));
		printf("  %s\n", buf);
	}
}

static void print_outliers(const struct stat_set *s)
{
	char lo[32], hi[32];

	if (!s->have_summary)
		return;
	if (s->done < 2) {
		printf("outliers: n/a (a single run: no spread to judge one by)\n");
		return;
	}
	pbench_format_ns(lo, sizeof(lo), s->fence_lo, 4);
	pbench_format_ns(hi, sizeof(hi), s->fence_hi, 4);
	printf("outliers: %d (Tukey fences %s to %s)\n", s->outliers, lo, hi);
	for (int i = 0; i < s->done; i++)
		if (s->runs[i].outlier)
			printf("  run %d: %s\n", i + 1, s->runs[i].cause);
}

/* "12.345 ms", or "n/a" for what the runs cannot give (the spread of a single run). */
static const char *ms_or_na(char *buf, size_t len, double ns)
{
	if (isfinite(ns))
		snprintf(buf, len, "%.3f ms", ns / 1e6);
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

static void print_summary(const struct stat_set *s)
{
	const struct pbench_summary *m = &s->s_ns;
	char sd[32], cv[32], sp[32];

	if (!s->have_summary)
		return;
	printf("summary: %d run%s, time min %.3f ms, median %.3f ms, mean %.3f ms, max %.3f ms, "
	       "stddev %s, cv %s, spread %s%s%s\n", s->done, s->done == 1 ? "" : "s",
	       m->min / 1e6, m->median / 1e6, m->mean / 1e6, m->max / 1e6,
	       ms_or_na(sd, sizeof(sd), m->stddev), pct_or_na(cv, sizeof(cv), m->cv_pct),
	       pct_or_na(sp, sizeof(sp), m->spread_pct),
	       s->done == 1 ? " (one run: no spread; -r 2 or more for one)" : "",
	       s->failed ? " (some runs failed: see status)" : "");
}

/* With --target-sem: what stopped the runs. For a command: the harness's own cost. */
static void print_stop_and_cost(const struct stat_report *rep, const struct stat_set *s)
{
	const struct stat_opts *o = rep->o;

	if (o->target_sem_pct > 0) {
		const char *why = s->stop == STOP_TARGET ? "reached" :
				  s->stop == STOP_BUDGET ? "not reached within --max-time" :
				  "not reached within the most runs (-r)";

		printf("target: standard error ± %.2g%% of the mean %s: ± %.2g%% after %d runs "
		       "in %.1f s\n", o->target_sem_pct, why, s->sem_pct, s->done, s->elapsed_s);
	}
	if (o->cmd) {
		double setup = stat_median_field(s, offsetof(struct run, setup_ns)),
		       exec = stat_median_field(s, offsetof(struct run, exec_ns));
		char a[32] = "n/a", b[32];

		if (isfinite(setup))
			pbench_format_ns(a, sizeof(a), setup, 3);
		printf("harness: %s a run to fork and set up the counters (before the timed span), ",
		       a);
		if (isfinite(exec)) {
			pbench_format_ns(b, sizeof(b), exec, 3);
			printf("%s from the release to exec done (inside it); medians\n", b);
		} else {
			printf("release to exec n/a (pbench and the command share one CPU: pbench sees "
			       "exec only once the command yields); medians\n");
		}
	}
}

static void print_event_notes(const struct stat_report *rep, const struct stat_set *s,
			      int scaled, int user_only)
{
	for (int e = 0; e < rep->nr; e++) {
		const struct pbench_count *k = &s->runs[0].counts[e];

		if (k->status > PBENCH_EVENT_NOT_COUNTED)
			printf("%-20s <%s> %s\n", k->name,
			       k->status == PBENCH_EVENT_NOT_SUPPORTED ? "not supported"
								       : "no permission",
			       k->reason);
	}
	for (int e = 0; e < rep->nr; e++) {
		const struct pbench_count *k = &s->runs[s->done - 1].counts[e];

		if (k->status == PBENCH_EVENT_NOT_COUNTED)
			printf("%-20s <not counted> %s\n", k->name, k->reason);
	}
	if (scaled)
		printf("* scaled: the event shared a counter (multiplexed); the value is "
		       "estimated from the time it ran\n");
	if (user_only) {
		int paranoid = -1;

		pbench_perf_paranoid(&paranoid);
		printf("u user space only: kernel.perf_event_paranoid is %d, so the kernel's share "
		       "is not counted; fix: sysctl -w kernel.perf_event_paranoid=1, or "
		       "CAP_PERFMON\n", paranoid);
	}
}

static void contrast_row(const char *label, const struct stat_set *u, const struct stat_set *p,
			 size_t off)
{
	printf("  %-13s", label);
	for (const struct stat_set *s = u; s; s = s == u ? p : NULL)
		printf(" %14.0f %14.0f", *(const double *)((const char *)&s->s_ticks + off),
		       *(const double *)((const char *)&s->s_ns + off));
	printf("\n");
}

static void print_contrast(const struct stat_report *rep)
{
	const struct stat_set *u = stat_set_of(rep, MODE_UNPREPARED), *p = stat_set_of(rep, MODE_PREPARED);
	double sr, cr;
	char verdict[256], a[32], b[32];

	if (!stat_contrast_of(rep, &sr, &cr, verdict, sizeof(verdict)))
		return;
	printf("\ncontrast: %d unprepared runs, %d prepared\n", u->done, p->done);
	printf("  %-13s %29s %29s\n", "", "unprepared", "prepared");
	printf("  %-13s %14s %14s %14s %14s\n", "", "ticks", "ns", "ticks", "ns");
	contrast_row("min", u, p, offsetof(struct pbench_summary, min));
	contrast_row("max", u, p, offsetof(struct pbench_summary, max));
	contrast_row("median", u, p, offsetof(struct pbench_summary, median));
	contrast_row("trimmed mean", u, p, offsetof(struct pbench_summary, trimmed_mean));
	fmt_pct(a, sizeof(a), u->s_ns.spread_pct);
	fmt_pct(b, sizeof(b), p->s_ns.spread_pct);
	printf("  %-13s %29s %29s\n", "spread", a, b);
	fmt_pct(a, sizeof(a), u->s_ns.cv_pct);
	fmt_pct(b, sizeof(b), p->s_ns.cv_pct);
	printf("  %-13s %29s %29s\n", "cv", a, b);
	printf("ratio unprepared/prepared: spread ");
	/* Three significant digits below 10: a ratio of 0.039 is not "0.0x". */
	printf(!isfinite(sr) ? "- (no prepared spread)" : sr < 10 ? "%.3gx" : "%.1fx", sr);
	printf(", cv ");
	printf(!isfinite(cr) ? "- (no prepared variation)\n" : cr < 10 ? "%.3gx\n" : "%.1fx\n",
	       cr);
	printf("verdict: %s\n", verdict);
}

void stat_print_text(const struct stat_report *rep)
{
	print_header(rep);
	for (int i = 0; i < rep->nsets; i++) {
		const struct stat_set *s = rep->sets[i];
		int scaled = 0, user_only = 0;

		if (s->kind == MODE_PREPARED && !s->prepared) {
			printf("\nprepared: not done (interrupted while preparing)\n");
			continue;
		}
		print_preparation(rep, s);
		if (!s->done) {
			printf("no runs\n");
			continue;
		}
		print_runs(rep, s, &scaled, &user_only);
		if (i == rep->nsets - 1)	/* the events are the same in both sets */
			print_event_notes(rep, s, scaled, user_only);
		print_outliers(s);
		print_summary(s);
		print_stop_and_cost(rep, s);
	}
	print_contrast(rep);
}

/* ---- plot ------------------------------------------------------------------------------- */

/* Unprepared in orange, prepared in blue, whichever is shown. */
static const char *const set_color[] = { "#d95f02", "#1f6fb4" };

int stat_write_plot(const struct stat_report *rep, FILE *f)
{
	const struct stat_opts *o = rep->o;
	struct pbench_plot_series ser[2];
	double *ns[2] = { 0 };
	unsigned char *out[2] = { 0 };
	const char **cause[2] = { 0 };
	char names[2][64], title[512];
	size_t off;
	int rc = EXIT_OK, err = -ENOMEM;

	for (int i = 0; i < rep->nsets; i++) {
		const struct stat_set *s = rep->sets[i];
		size_t n = (size_t)s->done;

		ns[i] = calloc(n ? n : 1, sizeof(*ns[i]));
		out[i] = calloc(n ? n : 1, sizeof(*out[i]));
		cause[i] = calloc(n ? n : 1, sizeof(*cause[i]));
		if (!ns[i] || !out[i] || !cause[i])
			goto out;
		for (size_t k = 0; k < n; k++) {
			ns[i][k] = (double)s->runs[k].ns;
			out[i][k] = s->runs[k].outlier != 0;
			cause[i][k] = s->runs[k].cause;
		}
		if (s->kind == MODE_PREPARED && s->prepared)
			snprintf(names[i], sizeof(names[i]), "prepared, CPU %d", s->cpu);
		else
			snprintf(names[i], sizeof(names[i]), "%s", stat_mode_name(s->kind));
		ser[i] = (struct pbench_plot_series){ .size = sizeof(ser[i]), .name = names[i],
			.color = set_color[s->kind == MODE_PREPARED], .ns = ns[i], .n = n,
			.outlier = out[i], .cause = cause[i] };
	}
	if (o->cmd) {
		off = (size_t)snprintf(title, sizeof(title), "pbench stat:");
		for (char **a = o->cmd; *a && off < sizeof(title); a++)
			off += (size_t)snprintf(title + off, sizeof(title) - off, " %s", *a);
	} else {
		char wl[128];

		stat_workload_desc(o, wl, sizeof(wl));
		snprintf(title, sizeof(title), "pbench stat: %s, %s", wl, stat_mode_name(o->mode));
	}
	err = pbench_plot_runs_svg(f, title, ser, rep->nsets);
out:
	if (err) {
		cli_error("cannot write the plot '%s': %s", o->plot, pbench_strerror(err));
		rc = EXIT_RUNTIME;
	}
	for (int i = 0; i < 2; i++) {
		free(ns[i]);
		free(out[i]);
		free(cause[i]);
	}
	return rc;
}
