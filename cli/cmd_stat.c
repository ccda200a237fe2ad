/* SPDX-License-Identifier: MIT */
/*
 * pbench stat: run a command (or the built-in workload) N times, each run timed in ticks and
 * ns and counted with the requested events, and print every run and a summary.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pbench.h"
#include "cmds.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"
#define DEFAULT_RUNS 10
#define MAX_RUNS 1000000L
#define XOR_ITERATIONS 100000000ULL

struct run {
	uint64_t ticks, ns;
	uint64_t result;		/* the workload's result, kept so its work cannot be dropped */
	int exited, exit_status, signaled, term_signal;
	struct pbench_count *counts;	/* nr_events of them */
};

struct stat_opts {
	const char *events;
	long runs;
	const char *json;		/* NULL, "-" or a file name */
	int quiet;
	long long iterations;
	char **cmd;			/* NULL: the built-in workload */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench stat [-e EVENTS] [-r RUNS] [--json[=FILE]] [-q] [-- CMD ARGS...]\n"
		"\n"
		"Runs CMD (or, with no command, the built-in xor loop) RUNS times and prints each\n"
		"run's time in TSC ticks and ns with the counted events, then a summary. Events\n"
		"that cannot be counted here are shown with the reason, never as a number.\n"
		"\n"
		"  -e, --events LIST      comma-separated events (default: %s)\n"
		"  -r, --runs N           number of runs, 1 to %ld (default: %d)\n"
		"      --json[=FILE]      JSON (schema 1) to FILE, or to stdout instead of the text\n"
		"  -q, --quiet            discard the command's output\n"
		"      --iterations N     iterations of the built-in workload (default: %llu)\n"
		"  -h, --help             this help\n"
		"\n"
		"'pbench list' shows the events and whether each can be counted here.\n",
		DEFAULT_EVENTS, MAX_RUNS, DEFAULT_RUNS, XOR_ITERATIONS);
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "runs", required_argument, NULL, 'r' },
		{ "json", optional_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'r':
			if (cli_parse_long(optarg, 1, MAX_RUNS, &v)) {
				cli_error("invalid run count '%s' for -r: expected a whole number "
					  "from 1 to %ld", optarg, MAX_RUNS);
				return -1;
			}
			o->runs = v;
			break;
		case 'j':
			o->json = optarg ? optarg : "-";
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'i':
			if (cli_parse_long(optarg, 1, 1000000000000L, &v)) {
				cli_error("invalid iteration count '%s' for --iterations: expected a "
					  "whole number from 1 to 10^12", optarg);
				return -1;
			}
			o->iterations = v;
			break;
		case 'h':
			stat_usage(stdout);
			return 1;
		case ':':
			cli_error("option '%s' needs a value", argv[optind - 1]);
			return -1;
		default:
			cli_error("unknown option '%s' for 'pbench stat'", argv[optind - 1]);
			cli_hint("'pbench stat -h' shows the options");
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return 0;
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
	}
	cli_error("cannot start: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

static int run_workload(struct pbench_counters *c, int nr, const struct stat_opts *o,
			struct run *r)
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
	t0 = pbench_ticks_begin();
	r->result = pbench_workload_xor((uint64_t)o->iterations, t0);
	t1 = pbench_ticks_end();
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

static int run_command(const struct stat_opts *o, int nr, struct run *r)
{
	struct pbench_child_opts copts = { .size = sizeof(copts), .events = o->events,
					   .quiet = o->quiet };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	int err;

	fflush(stdout);
	err = pbench_child_start(&ch, o->cmd, &copts);
	if (err)
		return err;
	err = pbench_child_wait(ch, &res);
	if (!err && pbench_child_counters(ch))
		err = pbench_counters_read(pbench_child_counters(ch), r->counts, nr);
	pbench_child_free(ch);
	if (err < 0)
		return err;
	r->ticks = res.ticks;
	r->ns = res.ns;
	r->exited = res.exited;
	r->exit_status = res.exit_status;
	r->signaled = res.signaled;
	r->term_signal = res.term_signal;
	return 0;
}

/* ---- output ---------------------------------------------------------------------------- */

static int is_time_event(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

static void fmt_status(const struct run *r, char *buf, size_t len)
{
	if (r->signaled)
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

static void print_text(const struct stat_opts *o, const struct run *runs, int done, int nr,
		       const struct pbench_clock_info *ci)
{
	double *ns = malloc((size_t)done * sizeof(*ns));
	struct pbench_summary s = { .size = sizeof(s) };
	int scaled = 0, user_only = 0, failed = 0;
	char buf[64];

	if (o->cmd) {
		printf("pbench stat: '");
		for (char **a = o->cmd; *a; a++)
			printf("%s%s", a == o->cmd ? "" : " ", *a);
		printf("', %d run%s\n", done, done == 1 ? "" : "s");
	} else {
		printf("pbench stat: built-in workload 'xor' (%lld iterations), %d run%s\n",
		       o->iterations, done, done == 1 ? "" : "s");
	}
	printf("clock: %s, %.3f MHz (%s), read %.1f ns, begin+end %.1f ns, resolution %.1f ns\n\n",
	       pbench_clock_kind_name(ci->kind), (double)ci->hz / 1e6,
	       pbench_freq_source_name(ci->freq_source), ci->read_cost_ns, ci->region_cost_ns,
	       ci->resolution_ns);

	printf("%5s %14s %14s", "run", "ticks", "time_ns");
	for (int e = 0; e < nr; e++)
		if (runs[0].counts[e].status <= PBENCH_EVENT_NOT_COUNTED)
			printf("  %*s", col_width(runs[0].counts[e].name), runs[0].counts[e].name);
	printf("  status\n");
	for (int i = 0; i < done; i++) {
		const struct run *r = &runs[i];

		printf("%5d %14llu %14llu", i + 1, (unsigned long long)r->ticks,
		       (unsigned long long)r->ns);
		for (int e = 0; e < nr; e++) {
			if (runs[0].counts[e].status > PBENCH_EVENT_NOT_COUNTED)
				continue;
			fmt_value(&r->counts[e], buf, sizeof(buf));
			scaled |= r->counts[e].is_scaled;
			user_only |= r->counts[e].user_only;
			printf("  %*s", col_width(r->counts[e].name), buf);
		}
		fmt_status(r, buf, sizeof(buf));
		printf("  %s\n", buf);
		failed += r->signaled || r->exit_status;
		ns[i] = (double)r->ns;
	}
	for (int e = 0; e < nr; e++) {
		const struct pbench_count *k = &runs[0].counts[e];

		if (k->status > PBENCH_EVENT_NOT_COUNTED)
			printf("\n%-20s <%s> %s", k->name,
			       k->status == PBENCH_EVENT_NOT_SUPPORTED ? "not supported"
								       : "no permission",
			       k->reason);
	}
	for (int e = 0; e < nr; e++) {
		const struct pbench_count *k = &runs[done - 1].counts[e];

		if (k->status == PBENCH_EVENT_NOT_COUNTED)
			printf("\n%-20s <not counted> %s", k->name, k->reason);
	}
	printf("\n");
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
	if (ns && pbench_stats_summary(ns, (size_t)done, NULL, &s) == 0)
		printf("\nsummary: %d run%s, time min %.3f ms, median %.3f ms, mean %.3f ms, "
		       "max %.3f ms, stddev %.3f ms, cv %.2f%%, spread %.2f%%%s\n",
		       done, done == 1 ? "" : "s", s.min / 1e6, s.median / 1e6, s.mean / 1e6, s.max / 1e6,
		       s.stddev / 1e6, s.cv_pct, s.spread_pct,
		       failed ? " (some runs failed: see status)" : "");
	free(ns);
}

static json_t *count_json(const struct pbench_count *k)
{
	json_t *j = json_object();
	int counted = k->status <= PBENCH_EVENT_MULTIPLEXED;

	json_object_set_new(j, "value", counted ? json_integer((json_int_t)k->value) : json_null());
	json_object_set_new(j, "scaled", counted ? json_real(k->scaled) : json_null());
	json_object_set_new(j, "is_scaled", json_boolean(k->is_scaled));
	json_object_set_new(j, "user_only", json_boolean(k->user_only));
	json_object_set_new(j, "time_enabled_ns", json_integer((json_int_t)k->time_enabled));
	json_object_set_new(j, "time_running_ns", json_integer((json_int_t)k->time_running));
	json_object_set_new(j, "running_pct",
			    k->time_enabled ? json_real(100.0 * (double)k->time_running /
							(double)k->time_enabled)
					    : json_null());
	json_object_set_new(j, "status", json_string(pbench_event_status_name(k->status)));
	json_object_set_new(j, "reason", k->reason[0] ? json_string(k->reason) : json_null());
	return j;
}

static int write_json(const struct stat_opts *o, const struct run *runs, int done, int nr,
		      const struct pbench_clock_info *ci)
{
	json_t *root = json_object(), *clock = json_object(), *arr = json_array();
	struct pbench_summary s = { .size = sizeof(s) };
	double *ns = malloc((size_t)done * sizeof(*ns));
	int err;

	json_object_set_new(root, "schema", json_integer(1));
	json_object_set_new(root, "pbench_version", json_string(pbench_version()));
	if (o->cmd) {
		json_t *cmd = json_array();

		for (char **a = o->cmd; *a; a++)
			json_array_append_new(cmd, json_string(*a));
		json_object_set_new(root, "command", cmd);
	} else {
		json_t *w = json_object();

		json_object_set_new(w, "name", json_string("xor"));
		json_object_set_new(w, "iterations", json_integer(o->iterations));
		json_object_set_new(root, "workload", w);
	}
	json_object_set_new(clock, "kind", json_string(pbench_clock_kind_name(ci->kind)));
	json_object_set_new(clock, "hz", json_integer((json_int_t)ci->hz));
	json_object_set_new(clock, "freq_source",
			    json_string(pbench_freq_source_name(ci->freq_source)));
	json_object_set_new(clock, "read_cost_ns", json_real(ci->read_cost_ns));
	json_object_set_new(clock, "region_cost_ns", json_real(ci->region_cost_ns));
	json_object_set_new(clock, "resolution_ns", json_real(ci->resolution_ns));
	json_object_set_new(root, "clock", clock);
	json_object_set_new(root, "runs_requested", json_integer(o->runs));
	for (int i = 0; i < done; i++) {
		json_t *r = json_object(), *cs = json_object();

		json_object_set_new(r, "run", json_integer(i + 1));
		json_object_set_new(r, "ticks", json_integer((json_int_t)runs[i].ticks));
		json_object_set_new(r, "ns", json_integer((json_int_t)runs[i].ns));
		json_object_set_new(r, "exit_status", runs[i].exited ?
				    json_integer(runs[i].exit_status) : json_null());
		json_object_set_new(r, "signal", runs[i].signaled ?
				    json_integer(runs[i].term_signal) : json_null());
		for (int e = 0; e < nr; e++)
			json_object_set_new(cs, runs[i].counts[e].name, count_json(&runs[i].counts[e]));
		json_object_set_new(r, "counters", cs);
		json_array_append_new(arr, r);
		if (ns)
			ns[i] = (double)runs[i].ns;
	}
	json_object_set_new(root, "runs", arr);
	if (ns && done && pbench_stats_summary(ns, (size_t)done, NULL, &s) == 0) {
		json_t *sum = json_object();

		json_object_set_new(sum, "runs", json_integer(done));
		json_object_set_new(sum, "min_ns", json_real(s.min));
		json_object_set_new(sum, "median_ns", json_real(s.median));
		json_object_set_new(sum, "mean_ns", json_real(s.mean));
		json_object_set_new(sum, "max_ns", json_real(s.max));
		json_object_set_new(sum, "stddev_ns", json_real(s.stddev));
		json_object_set_new(sum, "cv_pct", json_real(s.cv_pct));
		json_object_set_new(sum, "spread_pct", json_real(s.spread_pct));
		json_object_set_new(root, "summary", sum);
	}
	free(ns);
	if (!strcmp(o->json, "-")) {
		err = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		err = json_dump_file(root, o->json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (err)
			cli_error("cannot write '%s'", o->json);
	}
	json_decref(root);
	return err ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- main ------------------------------------------------------------------------------- */

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .events = DEFAULT_EVENTS, .runs = DEFAULT_RUNS,
			       .iterations = XOR_ITERATIONS };
	struct pbench_counters_opts copts = { .size = sizeof(copts), .cpu = -1 };
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	struct pbench_counters *self = NULL;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct run *runs = NULL;
	struct pbench_count *counts = NULL;
	int rc, err, nr = 0, done = 0, failed = 0;

	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	if (o.json && strcmp(o.json, "-") && !*o.json) {
		cli_error("--json needs a file name, or '-' for stdout");
		return EXIT_USAGE;
	}

	/* Names are checked, and what this machine can count is learned, before anything runs. */
	err = pbench_counters_open(&self, o.events, &copts);
	if (err && err != -PBENCH_ENO_EVENTS)
		return report_start_error(err, &o);
	nr = pbench_counters_nr(self);
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
	runs = calloc((size_t)o.runs, sizeof(*runs));
	counts = calloc((size_t)o.runs * (size_t)nr, sizeof(*counts));
	if (!runs || (nr && !counts)) {
		cli_error("out of memory for %ld runs", o.runs);
		rc = EXIT_RUNTIME;
		goto out;
	}

	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (long i = 0; i < o.runs && !interrupted; i++) {
		struct run *r = &runs[i];

		r->counts = counts + i * nr;
		for (int e = 0; e < nr; e++)
			r->counts[e].size = sizeof(r->counts[e]);
		if (o.cmd)
			err = run_command(&o, nr, r);
		else
			err = run_workload(self, nr, &o, r);
		/* Names from the set that outlives the runs (a child's set is freed per run). */
		for (int e = 0; e < nr; e++)
			r->counts[e].name = pbench_counters_name(self, e);
		if (err) {
			rc = report_start_error(err, &o);
			goto out_signals;
		}
		if (interrupted)
			break;	/* the run the interrupt cut short is not a measurement */
		done++;
		failed += r->signaled || r->exit_status;
	}
	rc = EXIT_OK;
	if (done) {
		if (o.json)
			rc = write_json(&o, runs, done, nr, &ci);
		if (!o.json || strcmp(o.json, "-"))
			print_text(&o, runs, done, nr, &ci);
	}
	if (interrupted) {
		cli_error("interrupted after %d of %ld runs", done, o.runs);
		rc = EXIT_RUNTIME;
	} else if (failed) {
		cli_error("%d of %d runs of '%s' failed (see the status column)", failed, done,
			  o.cmd[0]);
		rc = EXIT_RUNTIME;
	}
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	free(counts);
	free(runs);
	pbench_counters_free(self);
	return rc;
}
