/* SPDX-License-Identifier: MIT */
/*
 * pbench stat, measuring: the runs of each set (unprepared, or prepared with the library's
 * pbench_prepare()), each run's counters and noise, the stop rule, the progress line, then the
 * reports (stat_report.c, stat_csv.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"
#include "stat.h"

static volatile sig_atomic_t interrupted;

static volatile sig_atomic_t timed_out;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/* --timeout: SIGALRM after s seconds (0 cancels); no SA_RESTART, so the wait returns. */
static void arm_timeout(double s)
{
	struct itimerval it = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };

	if (s > 0) {
		timed_out = 0;
		sigaction(SIGALRM, &sa, NULL);
		it.it_value.tv_sec = (time_t)s;
		it.it_value.tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6);
		if (!it.it_value.tv_sec && !it.it_value.tv_usec)
			it.it_value.tv_usec = 1;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Name errors and unknown commands are the user's to fix: exit 2 with the reason. */
static int report_start_error(int err, const struct stat_opts *o)
{
	switch (-err) {
	case PBENCH_EUNKNOWN_EVENT:
	case PBENCH_EBAD_EVENT_LIST:
	case PBENCH_EDUP_EVENT:
		cli_error("%s", pbench_counters_last_error());
		cli_hint("'pbench list' shows the events that can be counted here");
		return EXIT_USAGE;
	case PBENCH_ENOT_FOUND:
		cli_error("command '%s' not found", o->cmd[0]);
		cli_hint("check the name, or give its path");
		return EXIT_USAGE;
	case PBENCH_ENOT_EXEC:
		cli_error("command '%s' cannot be executed (not an executable file, or no "
			  "permission)", o->cmd[0]);
		return EXIT_USAGE;
	case PBENCH_EBAD_INTERP: {
		char path[4096], interp[256];

		if (pbench_command_resolve(o->cmd[0], path, sizeof(path)) == -PBENCH_EBAD_INTERP &&
		    pbench_command_interp(path, interp, sizeof(interp)) == 1)
			cli_error("command '%s' cannot run: its interpreter '%s' (its #! line) is "
				  "not found or not executable", o->cmd[0], interp);
		else
			cli_error("command '%s' cannot run: its interpreter or dynamic loader is "
				  "missing", o->cmd[0]);
		return EXIT_USAGE;
	}
	}
	cli_error("cannot start: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

static int run_workload(struct pbench_counters *c, int nr, const struct stat_opts *o,
			struct pbench_walk *walk, struct run *r)
{
	int counting = pbench_counters_nr_groups(c) > 0;
	uint64_t t0, t1;
	int err;

	if (!counting) {
		/* Nothing could be opened: the read fills in each event's status and reason. */
		err = pbench_counters_read(c, r->counts, nr);
		if (err < 0)
			return err;
	} else {
		err = pbench_counters_start(c);
		if (err)
			return err;
	}
	if (walk) {
		t0 = pbench_ticks_begin();
		r->result = pbench_walk_run(walk, (uint64_t)o->iterations);
		t1 = pbench_ticks_end();
	} else {
		t0 = pbench_ticks_begin();
		r->result = pbench_workload_xor((uint64_t)o->iterations, t0);
		t1 = pbench_ticks_end();
	}
	if (counting) {
		err = pbench_counters_stop(c);
		if (err)
			return err;
		err = pbench_counters_delta(c, r->counts, nr);
		if (err < 0)
			return err;
	}
	r->ticks = t1 - t0;
	r->ns = pbench_ticks_to_ns(r->ticks);
	r->exited = 1;
	return 0;
}

/*
 * What a command's child opens: only the events pbench's own set could open. The others'
 * status and reason come from that set, so that a run does not try (and fail) to open them
 * again: on this VM cycles and instructions cost 60-90 us a run that way, measured by
 * bench/bench_stat_cost.
 */
struct child_plan {
	char *events;			/* comma-separated, or NULL: nothing to open */
	int *map;			/* child event k is event map[k] of the set */
	int nc;
	struct pbench_count *tmpl;	/* every event's status and reason from the set */
	struct pbench_count *tmp;	/* the child's counts, nc of them */
};

static int plan_child(struct child_plan *cp, struct pbench_counters *self, int nr)
{
	size_t len = 1;

	memset(cp, 0, sizeof(*cp));
	cp->map = calloc((size_t)(nr ? nr : 1), sizeof(*cp->map));
	cp->tmpl = calloc((size_t)(nr ? nr : 1), sizeof(*cp->tmpl));
	cp->tmp = calloc((size_t)(nr ? nr : 1), sizeof(*cp->tmp));
	if (!cp->map || !cp->tmpl || !cp->tmp)
		return -ENOMEM;
	for (int e = 0; e < nr; e++) {
		cp->tmpl[e].size = sizeof(cp->tmpl[e]);
		len += strlen(pbench_counters_name(self, e)) + 1;
	}
	if (nr)
		pbench_counters_read(self, cp->tmpl, nr);
	cp->events = calloc(1, len);
	if (!cp->events)
		return -ENOMEM;
	for (int e = 0; e < nr; e++) {
		if (pbench_counters_open_status(self, e) != PBENCH_EVENT_OK)
			continue;
		if (cp->nc)
			strcat(cp->events, ",");
		strcat(cp->events, pbench_counters_name(self, e));
		cp->map[cp->nc++] = e;
	}
	return 0;
}

static void plan_free(struct child_plan *cp)
{
	free(cp->events);
	free(cp->map);
	free(cp->tmpl);
	free(cp->tmp);
}

static int run_command(const struct stat_opts *o, const struct child_plan *cp, int nr,
		       struct run *r)
{
	struct pbench_child_opts copts = { .size = sizeof(copts),
					   .events = cp->nc ? cp->events : NULL,
					   .quiet = o->quiet };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	int err;

	uint64_t t0;

	fflush(stdout);
	t0 = pbench_ticks();
	err = pbench_child_start(&ch, o->cmd, &copts);
	if (err)
		return err;
	arm_timeout(o->timeout_s);
	/* Ctrl-C (the handler sets interrupted) or --timeout: kill and reap the child now
	 * rather than wait for a command that may never end; any other signal: keep waiting. */
	while ((err = pbench_child_wait(ch, &res)) == -EINTR && !interrupted && !timed_out)
		;
	arm_timeout(0);
	if (err == -EINTR && timed_out && !interrupted) {
		pbench_child_free(ch);	/* SIGKILL and reap */
		/* Its counters were never read: no number is printed for them. */
		for (int e = 0; e < nr; e++) {
			r->counts[e].status = PBENCH_EVENT_NOT_COUNTED;
			snprintf(r->counts[e].reason, sizeof(r->counts[e].reason),
				 "the run was killed at --timeout");
		}
		r->timed_out = 1;
		r->signaled = 1;
		r->term_signal = SIGKILL;
		r->ticks = pbench_ticks() - t0;
		r->ns = pbench_ticks_to_ns(r->ticks);
		return 0;
	}
	for (int e = 0; e < nr; e++)
		r->counts[e] = cp->tmpl[e];
	if (!err && pbench_child_counters(ch)) {
		for (int k = 0; k < cp->nc; k++)
			cp->tmp[k].size = sizeof(cp->tmp[k]);
		err = pbench_counters_read(pbench_child_counters(ch), cp->tmp, cp->nc);
		for (int k = 0; err >= 0 && k < cp->nc; k++)
			r->counts[cp->map[k]] = cp->tmp[k];
	}
	pbench_child_free(ch);
	if (err < 0)
		return err;
	r->ticks = res.ticks;
	r->ns = res.ns;
	r->setup_ns = pbench_ticks_to_ns(res.setup_ticks);
	r->exec_ns = pbench_ticks_to_ns(res.exec_ticks);
	r->exited = res.exited;
	r->exit_status = res.exit_status;
	r->signaled = res.signaled;
	r->term_signal = res.term_signal;
	r->left_behind = res.left_behind;
	return 0;
}

/* ---- noise ------------------------------------------------------------------------------ */

/* What every run uses: one noise probe per CPU, made when a run first lands there; for a
 * command, what its child opens. */
struct run_ctx {
	struct pbench_cpu_probe **p;
	int n;
	struct child_plan plan;
};

static struct pbench_cpu_probe *probe_for(struct run_ctx *pr, int cpu)
{
	if (cpu < 0 || cpu >= pr->n)
		return NULL;
	if (!pr->p[cpu] && pbench_cpu_probe_new(&pr->p[cpu], cpu))
		pr->p[cpu] = NULL;
	return pr->p[cpu];
}

static int find_event(const struct run *r, int nr, const char *a, const char *b)
{
	for (int e = 0; e < nr; e++)
		if (r->counts[e].name && (!strcmp(r->counts[e].name, a) ||
					  (b && !strcmp(r->counts[e].name, b))) &&
		    r->counts[e].status <= PBENCH_EVENT_MULTIPLEXED)
			return e;
	return -1;
}

/*
 * The run's own noise: context switches and faults from getrusage (the thread's for the
 * workload, the reaped children's for a command), migrations and the time not running from
 * the cpu-migrations and task-clock events when they were counted. A command's task-clock
 * sums its processes, so a parallel one may show none not running: the clamp at 0 says
 * "unknown to be more", not "none".
 */
static void fill_noise(struct run *r, int nr, const struct rusage *a, const struct rusage *b)
{
	int tc = find_event(r, nr, "task-clock", NULL);
	int mig = find_event(r, nr, "cpu-migrations", "migrations");

	r->noise.ctx_involuntary = (uint64_t)(b->ru_nivcsw - a->ru_nivcsw);
	r->noise.ctx_voluntary = (uint64_t)(b->ru_nvcsw - a->ru_nvcsw);
	r->noise.minor_faults = (uint64_t)(b->ru_minflt - a->ru_minflt);
	r->noise.major_faults = (uint64_t)(b->ru_majflt - a->ru_majflt);
	r->noise.not_running_ns = tc >= 0 ? fmax(0, (double)r->ns - r->counts[tc].scaled) : NAN;
	r->have_migrations = mig >= 0;
	r->noise.migrations = mig >= 0 ? (uint64_t)r->counts[mig].scaled : 0;
}

static void current_priority(struct stat_set *set)
{
	struct sched_param sp;

	set->policy = sched_getscheduler(0);
	set->policy_name = pbench_sched_policy_name(set->policy);
	if ((set->policy == SCHED_FIFO || set->policy == SCHED_RR) && !sched_getparam(0, &sp))
		set->prio_value = sp.sched_priority;
	else
		set->prio_value = getpriority(PRIO_PROCESS, 0);
}

/* ---- the stop rule and the progress line -------------------------------------------------- */

/* Mean and standard error (% of the mean) of the finished runs; runs killed at --timeout are
 * not measurements. Returns how many runs that is. */
static int set_estimate(const struct stat_set *set, double *mean, double *sem_pct)
{
	double m = 0, m2 = 0;
	int n = 0;

	for (int i = 0; i < set->done; i++) {
		double x = (double)set->runs[i].ns, d;

		if (set->runs[i].timed_out)
			continue;
		n++;
		d = x - m;
		m += d / n;
		m2 += d * (x - m);
	}
	*mean = m;
	*sem_pct = n > 1 && m > 0 ? sqrt(m2 / (n - 1) / n) / m * 100 : NAN;
	return n;
}

/* With -r: the count. With --target-sem: the target reached after at least SEM_MIN_RUNS, or
 * the time budget or the run cap (-r) used up; set->stop says which. */
static int set_finished(const struct stat_opts *o, struct stat_set *set, double elapsed_s)
{
	double mean, sem;
	int n;

	if (!(o->target_sem_pct > 0)) {
		set->stop = STOP_RUNS;
		return set->done >= o->runs;
	}
	n = set_estimate(set, &mean, &sem);
	set->sem_pct = sem;
	if (n >= SEM_MIN_RUNS && sem <= o->target_sem_pct)
		set->stop = STOP_TARGET;
	else if (set->done >= o->runs)
		set->stop = STOP_MAX_RUNS;
	else if (elapsed_s >= o->max_time_s)
		set->stop = STOP_BUDGET;
	else
		return 0;
	return 1;
}

/*
 * On a terminal only, and only when nothing else writes there (the built-in workload, or a
 * command with -q): "prepared: run 7 of 20, 27.3 ms ± 0.41%, 0.4 s left". Written between
 * runs, never during one.
 */
static void progress(const struct stat_opts *o, const struct stat_set *set, double elapsed_s)
{
	const char *dim = o->color ? "\033[2m" : "", *end = o->color ? "\033[0m" : "";
	char est[64] = "", left[64] = "", of[32] = "";
	double mean, sem, per_run = set->done ? elapsed_s / set->done : NAN, rest = NAN;
	int n;

	if (!o->progress)
		return;
	n = set_estimate(set, &mean, &sem);
	if (n) {
		char m[32];

		pbench_format_ns(m, sizeof(m), mean, 3);
		snprintf(est, sizeof(est), isfinite(sem) ? ", %s ± %.2g%%" : ", %s", m, sem);
	}
	if (o->target_sem_pct > 0) {
		/* The SEM falls as 1/sqrt(n): the runs the target needs at this spread. */
		double need = isfinite(sem) && sem > 0 ? n * (sem / o->target_sem_pct) *
			      (sem / o->target_sem_pct) : NAN;

		snprintf(of, sizeof(of), " (target ± %.2g%%)", o->target_sem_pct);
		if (isfinite(need) && isfinite(per_run))
			rest = fmin(fmax(need, SEM_MIN_RUNS) - n, (double)(o->runs - set->done)) *
			       per_run;
		rest = fmin(isfinite(rest) ? rest : INFINITY, o->max_time_s - elapsed_s);
	} else {
		snprintf(of, sizeof(of), " of %ld", o->runs);
		rest = per_run * (double)(o->runs - set->done);
	}
	if (isfinite(rest) && rest >= 0)
		snprintf(left, sizeof(left), ", %.1f s left", rest);
	fprintf(stderr, "\r\033[K%s%s: run %d%s%s%s%s", dim, stat_mode_name(set->kind),
		set->done + 1, of, est, left, end);
	fflush(stderr);
}

static void progress_note(const struct stat_opts *o, const char *what)
{
	if (!o->progress)
		return;
	fprintf(stderr, o->color ? "\r\033[K\033[2m%s\033[0m" : "\r\033[K%s", what);
	fflush(stderr);
}

static void progress_clear(const struct stat_opts *o)
{
	if (o->progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* ---- the runs ----------------------------------------------------------------------------- */

/*
 * The runs of one set. Each run's CPU noise is probed on the CPU it ran on: the prepared CPU,
 * or for unprepared runs the CPU pbench was on when the run started (sched_getcpu()). That is
 * an approximation: an unprepared workload may migrate mid-run, and a command may start on
 * another CPU than pbench's.
 */
static int run_set(const struct stat_opts *o, struct pbench_counters *self, int nr,
		   struct stat_set *set, struct run_ctx *pr)
{
	uint64_t t_start = pbench_ticks();
	double elapsed = 0;

	while (!interrupted && !set_finished(o, set, elapsed)) {
		struct run *r = &set->runs[set->done];
		struct pbench_cpu_probe *probe;
		struct rusage ru0, ru1;
		int who = o->cmd ? RUSAGE_CHILDREN : RUSAGE_THREAD, err;

		progress(o, set, elapsed);
		r->counts = set->counts + (size_t)set->done * (size_t)nr;
		for (int e = 0; e < nr; e++)
			r->counts[e].size = sizeof(r->counts[e]);
		r->cpu = set->kind == MODE_PREPARED ? set->cpu : sched_getcpu();
		r->cpu_noise.size = sizeof(r->cpu_noise);
		probe = probe_for(pr, r->cpu);
		r->have_cpu_noise = probe && pbench_cpu_probe_begin(probe) == 0;
		getrusage(who, &ru0);
		if (o->cmd)
			err = run_command(o, &pr->plan, nr, r);
		else
			err = run_workload(self, nr, o, set->walk, r);
		getrusage(who, &ru1);
		if (r->have_cpu_noise)
			r->have_cpu_noise = pbench_cpu_probe_end(probe, &r->cpu_noise) == 0;
		/* Names from the set that outlives the runs (a child's set is freed per run). */
		for (int e = 0; e < nr; e++)
			r->counts[e].name = pbench_counters_name(self, e);
		if (interrupted)
			break;	/* the run the interrupt cut short is not a measurement */
		if (err) {
			progress_clear(o);
			return report_start_error(err, o);
		}
		fill_noise(r, nr, &ru0, &ru1);
		/* Under FIFO where the fair server can preempt: the waiting normal tasks run
		 * now, outside the timed span, instead of during a run. */
		if (set->prep)
			set->rest_ms += pbench_prepared_rest(set->prep, (double)r->ns) / 1e6;
		set->done++;
		set->failed += r->signaled || r->exit_status;
		elapsed = pbench_ticks_to_ns_f(pbench_ticks() - t_start) / 1e9;
	}
	set->elapsed_s = elapsed;
	progress_clear(o);
	return EXIT_OK;
}

static int make_walk(const struct stat_opts *o, struct stat_set *set)
{
	int err;

	if (o->cmd || o->workload != WL_WALK)
		return EXIT_OK;
	err = pbench_walk_new(&set->walk, o->walk_bytes, 0);
	if (err) {
		cli_error("cannot make the memory walk's %zu MiB buffer: %s", o->walk_bytes >> 20,
			  pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* ---- preparing ---------------------------------------------------------------------------- */

/* Two prepared runs on one CPU take turns on it: say so (as pbench jitter does). */
static void warn_rival(int cpu, const char *tense)
{
	int pid = pbench_cpu_rival(cpu);

	if (pid)
		cli_warn("another pbench (pid %d) %s pinned to CPU %d too: the two take turns on it "
			 "and each measures the other; let one finish first, or give them different "
			 "CPUs with --cpu", pid, tense, cpu);
}

/* Prepare, run, restore (the library's handlers restore on SIGINT/SIGTERM as well). */
static int run_prepared(const struct stat_opts *o, struct pbench_counters *self, int nr,
			struct stat_set *set, struct run_ctx *pr)
{
	struct pbench_prepare_opts popts = PBENCH_PREPARE_OPTS_INIT;
	struct pbench_prepared *p;
	int err, rc;

	popts.cpu = o->cpu;
	popts.warmup_ms = o->warmup_ms;
	popts.flags = PBENCH_PREPARE_SIGNALS;
	progress_note(o, "prepared: preparing (pin, memory, priority probe, warm-up)");
	err = pbench_prepare(&p, &popts);
	progress_clear(o);
	if (err == -EINTR)
		return EXIT_OK;	/* interrupted while preparing: everything was restored */
	if (err) {
		cli_error("cannot prepare%s: %s", o->cpu >= 0 ? " the CPU" : "",
			  pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	set->prepared = 1;
	set->cpu = pbench_prepared_cpu(p);
	snprintf(set->cpu_reason, sizeof(set->cpu_reason), "%s", pbench_prepared_cpu_reason(p));
	for (int s = 0; s < PBENCH_PREP_NR_STEPS; s++) {
		const struct pbench_prep_outcome *po = pbench_prepared_step(p, s);

		if (po)
			set->steps[s] = *po;
	}
	set->prio.size = sizeof(set->prio);
	pbench_prepared_priority(p, &set->prio);
	set->policy = set->prio.policy;
	set->policy_name = set->prio.policy_name;
	set->prio_value = set->prio.value;
	set->warmup_ms = pbench_prepared_warmup_ms(p);
	/* The walk's buffer is made now: on the prepared CPU's node, and locked. */
	rc = make_walk(o, set);
	set->prep = p;
	warn_rival(set->cpu, "is");
	if (!rc)
		rc = run_set(o, self, nr, set, pr);
	set->prep = NULL;
	warn_rival(set->cpu, "was");
	pbench_walk_free(set->walk);
	set->walk = NULL;
	set->restore_err = pbench_prepared_restore(p);
	set->restored_by = pbench_prepared_signal(p);
	pbench_prepared_free(p);
	return rc;
}

static int alloc_set(struct stat_set *set, int kind, long runs, int nr)
{
	memset(set, 0, sizeof(*set));
	set->kind = kind;
	set->cpu = -1;
	set->runs = calloc((size_t)runs, sizeof(*set->runs));
	set->counts = calloc((size_t)runs * (size_t)(nr ? nr : 1), sizeof(*set->counts));
	return set->runs && set->counts ? 0 : -1;
}

/* The checks of the CPU the prepared runs used (or would use): no windowed checks. */
static void env_for(struct stat_report *rep, const struct stat_opts *o)
{
	const struct stat_set *last = rep->sets[rep->nsets - 1];
	int cpu = last && last->prepared ? last->cpu : o->cpu;
	const int *cpus;

	if (pbench_env_check(&rep->env, cpu >= 0 ? &cpu : NULL, cpu >= 0,
			     PBENCH_ENV_NO_WINDOW | PBENCH_ENV_LIVE)) {
		rep->env = NULL;
		return;
	}
	rep->env_cpu = pbench_env_cpus(rep->env, &cpus) > 0 ? cpus[0] : -1;
}

/* A command that leaves processes running: they were ended after each run; say so once. */
static void warn_left_behind(const struct stat_report *rep, const struct stat_opts *o)
{
	int runs = 0, procs = 0;

	for (int s = 0; s < rep->nsets; s++)
		for (int i = 0; i < rep->sets[s]->done; i++) {
			runs += rep->sets[s]->runs[i].left_behind > 0;
			procs += rep->sets[s]->runs[i].left_behind;
		}
	if (runs)
		cli_warn("'%s' left %d process%s running after %d run%s (background jobs or "
			 "daemons): pbench ended them after each run (SIGTERM, then SIGKILL)",
			 o->cmd[0], procs, procs == 1 ? "" : "es", runs, runs == 1 ? "" : "s");
}

/* ---- the reports -------------------------------------------------------------------------- */

/* Each report asked for; one that cannot be written does not keep the others (the text above
 * all) from being printed. */
static int write_reports(const struct stat_report *rep, const struct stat_opts *o)
{
	struct cli_output *out = o->out;
	/* JSON or CSV to stdout take the text's place. */
	int text = !(o->json && !strcmp(o->json, "-")) && !(o->csv && !strcmp(o->csv, "-"));
	int rc = EXIT_OK, wrc;

	if (out[OUT_JSON].out) {
		wrc = stat_write_json(rep, cli_output_file(&out[OUT_JSON]));
		out[OUT_JSON].written = wrc == EXIT_OK;
		rc = rc ? rc : wrc;
	}
	if (text)
		stat_print_text(rep);
	if (out[OUT_CSV].out) {
		wrc = stat_write_csv(rep, cli_output_file(&out[OUT_CSV]));
		out[OUT_CSV].written = wrc == EXIT_OK;
		rc = rc ? rc : wrc;
	}
	if (out[OUT_PLOT].out) {
		wrc = stat_write_plot(rep, cli_output_file(&out[OUT_PLOT]));
		out[OUT_PLOT].written = wrc == EXIT_OK;
		rc = rc ? rc : wrc;
	}
	return rc;
}

/* ---- main ------------------------------------------------------------------------------- */

int stat_measure(const struct stat_opts *op)
{
	const struct stat_opts o = *op;
	struct pbench_counters_opts copts = { .size = sizeof(copts), .cpu = -1 };
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	struct pbench_counters *self = NULL;
	struct sigaction old_int, old_term;
	struct stat_set sets[2] = { 0 };
	struct stat_report rep = { .o = &o, .ci = &ci, .env_cpu = -1 };
	struct run_ctx pr = { 0 };
	int rc, err, nr = 0, done = 0, failed = 0;
	long cpus_conf;

	/* The command is checked before anything is prepared or run: a typo is exit 2 at once,
	 * with nothing changed. */
	if (o.cmd) {
		char path[4096];

		err = pbench_command_resolve(o.cmd[0], path, sizeof(path));
		if (err)
			return report_start_error(err, &o);
	}
	/* Names are checked, and what this machine can count is learned, before anything runs. */
	err = pbench_counters_open(&self, o.events, &copts);
	if (err && err != -PBENCH_ENO_EVENTS)
		return report_start_error(err, &o);
	nr = pbench_counters_nr(self);
	if (o.cmd && plan_child(&pr.plan, self, nr)) {
		cli_error("out of memory");
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* For a command the set only names the events (the child has its own); it is never
	 * enabled. With nothing countable it is kept for its reasons but never started. */
	if (!o.cmd && err != -PBENCH_ENO_EVENTS && (err = pbench_counters_enable(self))) {
		cli_error("cannot enable the counters: %s", pbench_strerror(err));
		pbench_counters_free(self);
		return EXIT_RUNTIME;
	}
	err = pbench_clock_info(&ci);
	if (err) {
		cli_error("cannot determine the clock: %s", pbench_strerror(err));
		pbench_counters_free(self);
		return EXIT_RUNTIME;
	}
	if (o.mode != MODE_PREPARED)
		rep.sets[rep.nsets++] = &sets[0];
	if (o.mode != MODE_UNPREPARED)
		rep.sets[rep.nsets++] = &sets[1];
	cpus_conf = sysconf(_SC_NPROCESSORS_CONF);
	pr.n = cpus_conf > 0 && cpus_conf <= CPU_SETSIZE ? (int)cpus_conf : 0;
	pr.p = calloc((size_t)(pr.n ? pr.n : 1), sizeof(*pr.p));
	if (alloc_set(&sets[0], MODE_UNPREPARED, o.runs, nr) ||
	    alloc_set(&sets[1], MODE_PREPARED, o.runs, nr) || !pr.p) {
		cli_error("out of memory for %ld runs", o.runs);
		rc = EXIT_RUNTIME;
		goto out;
	}

	/* Ours first: the prepared state's handlers restore, then hand the signal on to it. */
	interrupted = 0;
	cli_catch(SIGINT, on_signal, &old_int);
	cli_catch(SIGTERM, on_signal, &old_term);
	rc = EXIT_OK;
	if (o.mode != MODE_PREPARED) {
		current_priority(&sets[0]);
		rc = make_walk(&o, &sets[0]);
		if (!rc)
			rc = run_set(&o, self, nr, &sets[0], &pr);
		pbench_walk_free(sets[0].walk);
		sets[0].walk = NULL;
	}
	if (!rc && o.mode != MODE_UNPREPARED && !interrupted)
		rc = run_prepared(&o, self, nr, &sets[1], &pr);
	if (rc)
		goto out_signals;
	for (int s = 0; s < rep.nsets; s++) {
		stat_set_analyze(rep.sets[s]);
		done += rep.sets[s]->done;
		failed += rep.sets[s]->failed;
	}
	rep.nr = nr;
	warn_left_behind(&rep, &o);
	if (done) {
		env_for(&rep, &o);
		rc = write_reports(&rep, &o);
	}
	if (interrupted) {
		cli_error("interrupted after %d of %ld runs", done, o.runs * rep.nsets);
		rc = EXIT_RUNTIME;
	} else if (failed) {
		cli_error("%d of %d runs of '%s' failed (see the status column)", failed, done,
			  o.cmd[0]);
		rc = EXIT_RUNTIME;
	} else if (sets[1].restore_err) {
		cli_error("the prepared state was not fully restored: %s",
			  pbench_strerror(sets[1].restore_err));
		rc = EXIT_RUNTIME;
	}
out_signals:
	cli_uncatch(SIGINT, &old_int);
	cli_uncatch(SIGTERM, &old_term);
out:
	pbench_env_free(rep.env);
	for (int c = 0; pr.p && c < pr.n; c++)
		pbench_cpu_probe_free(pr.p[c]);
	free(pr.p);
	plan_free(&pr.plan);
	for (int s = 0; s < 2; s++) {
		free(sets[s].counts);
		free(sets[s].runs);
	}
	pbench_counters_free(self);
	return rc;
}
