/* SPDX-License-Identifier: MIT */
/*
 * Contests (pbench_contest_*, pbench compare): verdicts on work of known ratios, the same work
 * shown the same, the output check, stored times, a duet, the order and the stop rules, the
 * helper commands, the writers read back. Real runs of the built-in xor loop, functions and
 * commands; small sizes, unprepared, so that each test takes a second or less.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

/* ~6 ms of the xor loop here: long enough that a preemption (a few ms on a busy machine, runs
 * are unprepared here) does not swamp the ratio of two runs */
#define XOR_N 20000000ULL

static struct pbench_contest_opts quick_opts(void)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock,context-switches";
	o.max_time_s = 10;
	return o;
}

static int add_xor(struct pbench_contest *c, const char *name, uint64_t n)
{
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;

	e.name = name;
	e.workload = PBENCH_WORKLOAD_XOR;
	e.iterations = n;
	return pbench_contest_add(c, &e);
}

static int add_cmd(struct pbench_contest *c, const char *name, char **argv)
{
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;

	e.name = name;
	e.argv = argv;
	return pbench_contest_add(c, &e);
}

static struct pbench_contest_result result(const struct pbench_contest *c, int i)
{
	struct pbench_contest_result r = { .size = sizeof(r) };

	cr_assert_eq(pbench_contest_result(c, i, &r), 0);
	return r;
}

/* Twice the work: "b is slower", its interval around 2 and above 0, decided once the rule
 * allows (20 rounds here), long before the budget; the reference's figures are 1 and none.
 * (The contest stops at the first look whose interval leaves 1 out: its lower end is then
 * close to 1 whatever the ratio, so only the ratio is held to be near 2.) */
Test(contest, twice_the_work_is_slower_by_about_2)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	struct pbench_contest_result a, b;
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	char text[512];

	o.min_rounds = 20;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(add_xor(c, "a", XOR_N), 0);
	cr_assert_eq(add_xor(c, "b", 2 * XOR_N), 1);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_eq(pbench_contest_info(c, &ci), 0);
	cr_assert_eq(ci.stop, PBENCH_CONTEST_STOP_DECIDED);
	cr_assert_geq(ci.rounds, 20, "decided before the rule's 20 rounds");
	cr_assert_lt(ci.rounds, 200);
	b = result(c, 1);
	a = result(c, 0);
	cr_assert_eq(b.verdict, PBENCH_VERDICT_SLOWER);
	cr_assert(b.ratio > 1.6 && b.ratio < 2.5 && b.ratio_lo > 1 && b.ratio_lo <= b.ratio &&
		  b.ratio <= b.ratio_hi, "ratio %.3f (%.3f-%.3f)", b.ratio, b.ratio_lo,
		  b.ratio_hi);
	cr_assert_lt(b.p, 1e-4);
	cr_assert_eq(b.decided_round, ci.rounds);
	cr_assert_eq(a.verdict, 0);
	cr_assert_eq(a.ratio, 1);
	cr_assert(isnan(a.ratio_lo));
	cr_assert_eq(a.runs, ci.rounds);
	cr_assert_eq(b.runs, ci.rounds);
	cr_assert_eq(pbench_contest_verdict_text(c, 1, text, sizeof(text)), 0);
	cr_assert(!strncmp(text, "b is ", 5) && strstr(text, "x slower than a (99.9% interval "),
		  "%s", text);
	cr_assert_eq(pbench_contest_verdict_text(c, 0, text, sizeof(text)), -EINVAL);
	pbench_contest_free(c);
}

/* The speed-up is said the other way round: a is the slower one here, b "faster". And task-
 * clock, compared as an event, says about the same ratio as the times. */
Test(contest, half_the_work_is_faster_and_events_agree)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_event ev = { .size = sizeof(ev) };
	struct pbench_contest *c;
	struct pbench_contest_result b;
	char text[512];

	o.min_rounds = 20;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(add_xor(c, "a", 2 * XOR_N), 0);
	cr_assert_eq(add_xor(c, "b", XOR_N), 1);
	ASSERT_OK(pbench_contest_run(c));
	b = result(c, 1);
	cr_assert_eq(b.verdict, PBENCH_VERDICT_FASTER);
	cr_assert(b.ratio > 0.35 && b.ratio < 0.65, "ratio %.3f", b.ratio);
	pbench_contest_verdict_text(c, 1, text, sizeof(text));
	cr_assert(strstr(text, "b is ") && strstr(text, "x faster than a"), "%s", text);
	cr_assert_str_eq(pbench_contest_event_name(c, 0), "task-clock");
	cr_assert_eq(pbench_contest_event(c, 1, 0, &ev), 0);
	cr_assert_eq(ev.status, PBENCH_EVENT_OK);
	cr_assert(ev.ratio > 0.35 && ev.ratio < 0.65, "task-clock ratio %.3f", ev.ratio);
	cr_assert(ev.ratio_lo > 0 && ev.ratio_lo <= ev.ratio && ev.ratio <= ev.ratio_hi);
	cr_assert_eq(pbench_contest_event(c, 1, 9, &ev), -EINVAL);
	pbench_contest_free(c);
}

/* The CPU's own speed around every run, read with one reference loop for all the entrants
 * and put on one scale: each entrant's runs have factors, and the documents show one loop
 * (the same iterations, the same best reading) for both. */
Test(contest, the_speed_of_every_run_on_one_scale)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_speed_summary m[2];
	struct pbench_contest *c;
	json_error_t jerr;
	json_t *doc, *set[2];
	FILE *f = tmpfile();

	o.max_rounds = 8;
	cr_assert_not_null(f);
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(add_xor(c, "a", XOR_N / 4), 0);
	cr_assert_eq(add_xor(c, "b", XOR_N / 2), 1);
	ASSERT_OK(pbench_contest_run(c));
	for (int i = 0; i < 2; i++) {
		m[i].size = sizeof(m[i]);
		cr_assert_eq(pbench_runs_speed(pbench_contest_runs(c, i), 0, &m[i]), 0,
			     "entrant %d: no speed factors", i);
		/* a reading caught in a burst is left out (pbench_speed_factors()) */
		cr_assert(m[i].n >= 5 && m[i].n <= 8, "entrant %d: %d of 8 runs with a factor", i,
			  m[i].n);
		cr_assert(m[i].min > 0 && m[i].min <= m[i].median && m[i].median <= m[i].max);
	}
	cr_assert_eq(pbench_contest_write_json(c, f), 0);
	rewind(f);
	doc = json_loadf(f, 0, &jerr);
	cr_assert_not_null(doc, "%s", jerr.text);
	for (int i = 0; i < 2; i++) {
		set[i] = json_object_get(json_object_get(json_array_get(json_object_get(doc,
			"entrants"), (size_t)i), "set"), "speed");
		cr_assert(json_is_object(set[i]), "entrant %d: no speed in its set", i);
	}
	cr_assert_eq(json_integer_value(json_object_get(set[0], "ref_iterations")),
		     json_integer_value(json_object_get(set[1], "ref_iterations")),
		     "two reference loops");
	cr_assert_gt(json_integer_value(json_object_get(set[0], "ref_iterations")), 0);
	cr_assert_eq(json_real_value(json_object_get(set[0], "ref_best_ns")),
		     json_real_value(json_object_get(set[1], "ref_best_ns")));
	json_decref(doc);
	fclose(f);
	pbench_contest_free(c);
}

/* The same work against itself within 20%: the same, never faster or slower; its interval
 * lies within the margin. */
Test(contest, the_same_work_is_the_same_within_the_margin)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	struct pbench_contest_result b;

	o.same_pct = 20;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "a", XOR_N);
	add_xor(c, "b", XOR_N);
	ASSERT_OK(pbench_contest_run(c));
	b = result(c, 1);
	cr_assert_eq(b.verdict, PBENCH_VERDICT_SAME, "verdict %d, ratio %.4f (%.4f-%.4f)",
		     b.verdict, b.ratio, b.ratio_lo, b.ratio_hi);
	cr_assert(b.ratio_lo >= 1 / 1.2 && b.ratio_hi <= 1.2);
	cr_assert_lt(b.p_same, 1e-4);
	pbench_contest_free(c);
}

/* With no margin asked: 1% (PBENCH_CONTEST_OPTS_INIT, as pbench_compare()'s), so that the same
 * work against itself can end "same" instead of running to the budget; two entrants given the
 * same name are told apart by their place ("a #1", "a #2"), a third of another name keeps its
 * own, in the results, the verdict and the JSON. */
Test(contest, a_default_margin_and_distinct_labels)
{
	struct pbench_contest_opts o = quick_opts(), d = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_contest *c;
	char text[512], *json = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(d.same_pct, 1);
	o.max_rounds = 10;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "a", XOR_N);
	add_xor(c, "b", XOR_N);
	add_xor(c, "a", XOR_N);
	ASSERT_OK(pbench_contest_run(c));
	pbench_contest_info(c, &ci);
	cr_assert_str_eq(result(c, 0).name, "a #1");
	cr_assert_str_eq(result(c, 1).name, "b");
	cr_assert_str_eq(result(c, 2).name, "a #3");
	pbench_contest_verdict_text(c, 2, text, sizeof(text));
	cr_assert(strstr(text, "a #3") && strstr(text, "a #1"), "%s", text);
	f = open_memstream(&json, &len);
	cr_assert_eq(pbench_contest_write_json(c, f), 0);
	fclose(f);
	cr_assert(strstr(json, "\"same_pct\": 1") && strstr(json, "\"name\": \"a #3\""), "%.300s",
		  json);
	free(json);
	pbench_contest_free(c);
}

/* The plot's rounds axis: labels 0, s, 2s, ... at even steps, as many as cover the rounds, and
 * a dot for every look of entrant i at its round on that axis (the x of round r read off the
 * labels' positions). */
static void assert_rounds_axis(const char *svg, const struct pbench_contest *c, int i)
{
	const char *g = strstr(svg, "<g id=\"rounds-ticks\""), *end, *p;
	double x[64], v[64], step, per_round;
	char id[32];
	int n = 0, k = 0;
	long rounds = 0;

	cr_assert_not_null(g, "no rounds-ticks group");
	end = strstr(g, "</g>");
	for (p = g; (p = strstr(p, "<text x=\"")) && p < end; p++) {
		cr_assert_lt(n, 64);
		cr_assert_eq(sscanf(p, "<text x=\"%lf\" y=\"%*[^\"]\">%lf<", &x[n], &v[n]), 2,
			     "%.60s", p);
		n++;
	}
	cr_assert_geq(n, 3, "%d labels on the rounds axis", n);
	cr_assert_float_eq(v[0], 0, 1e-9);
	step = v[1] - v[0];
	cr_assert_geq(step, 1);
	per_round = (x[1] - x[0]) / step;
	cr_assert_gt(per_round, 0);
	for (int t = 1; t < n; t++) {
		cr_assert_float_eq(v[t] - v[t - 1], step, 1e-9, "uneven labels");
		cr_assert_float_eq(x[t] - x[t - 1], step * per_round, 0.15, "uneven tick spacing");
	}
	snprintf(id, sizeof(id), "<g id=\"looks-%d\"", i);
	g = strstr(svg, id);
	cr_assert_not_null(g, "no %s", id);
	end = strstr(g, "</g>");
	for (p = g; (p = strstr(p, "<circle cx=\"")) && p < end; p++, k++) {
		struct pbench_contest_look l = { .size = sizeof(l) };
		double cx;

		cr_assert_eq(pbench_contest_look(c, i, k, &l), 0, "more dots than looks");
		cr_assert_eq(sscanf(p, "<circle cx=\"%lf\"", &cx), 1);
		cr_assert_float_eq(cx, x[0] + (double)l.round * per_round, 0.15,
				   "look %d (round %ld) at x %g", k, l.round, cx);
		rounds = l.round;
	}
	cr_assert_eq(k, result(c, i).nr_looks, "a dot for every look");
	cr_assert_gt(v[n - 1] + step, (double)rounds, "the labels stop short of round %ld", rounds);
	cr_assert_lt(v[n - 1] - step, (double)rounds, "labels past round %ld", rounds);
}

/* The plot to a string. */
static char *plot_of(const struct pbench_contest *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pbench_contest_plot_svg(c, f), 0);
	fclose(f);
	return buf;
}

/* The verdict over the plot (the first texts, bold, 13 px or more): each line fits the
 * 960 px page at 0.62 em a character, and together they are the verdict's text. */
static void assert_title_fits(const char *svg, const char *verdict)
{
	char all[1024] = "";
	const char *p = svg;
	int lines = 0, size;

	while ((p = strstr(p, "<text ")) && lines < 3) {
		const char *gt = strchr(p, '>'), *fs = strstr(p, "font-size=\""), *end;

		cr_assert_not_null(gt);
		if (!fs || fs > gt || sscanf(fs, "font-size=\"%d\"", &size) != 1 || size < 13 ||
		    !strstr(p, "font-weight=\"bold\"") || strstr(p, "font-weight=\"bold\"") > gt)
			break;
		end = strstr(gt, "</text>");
		cr_assert_not_null(end);
		cr_assert_leq((double)(end - gt - 1) * 0.62 * size, 960 - 20, "a title line of %d "
			      "characters at %d px: '%.*s'", (int)(end - gt - 1), size,
			      (int)(end - gt - 1), gt + 1);
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%.*s", lines ? " " : "",
			 (int)(end - gt - 1), gt + 1);
		lines++;
		p = end;
	}
	cr_assert_str_eq(all, verdict);
}

/* Without a margin, the same work runs to the end of the budget: undecided, with the time a
 * verdict would likely need (or none known), and the rounds the budget allowed. */
Test(contest, undecided_at_the_budget)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_contest *c;
	struct pbench_contest_result b;
	char text[512], *svg;

	o.max_rounds = 30;
	o.same_pct = 0;		/* a difference only: the same work cannot decide */
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "a", XOR_N);
	add_xor(c, "b", XOR_N);
	cr_assert_eq(pbench_contest_run(c), 0);
	pbench_contest_info(c, &ci);
	b = result(c, 1);
	if (b.verdict != PBENCH_VERDICT_UNDECIDED)
		cr_skip_test("the same work came out %s (ratio %.4f): the 1 in 1000 a test at "
			     "99.9%% allows, or a loaded machine", pbench_verdict_name(b.verdict),
			     b.ratio);
	cr_assert_eq(ci.stop, PBENCH_CONTEST_STOP_MAX_ROUNDS);
	cr_assert_eq(ci.rounds, 30);
	cr_assert(b.need_s > 0 || isinf(b.need_s), "need %.3g s", b.need_s);
	/* looks at rounds 10, 12, 15, 18, 22, 27 (each a fifth more rounds), and a last one at
	 * the end of the budget, on all 30 */
	cr_assert_eq(b.nr_looks, 7, "%d looks", b.nr_looks);
	pbench_contest_verdict_text(c, 1, text, sizeof(text));
	cr_assert(!strncmp(text, "undecided: b takes ", 19), "%s", text);
	svg = plot_of(c);
	assert_title_fits(svg, text);
	assert_rounds_axis(svg, c, 1);
	free(svg);
	pbench_contest_free(c);
}

static uint64_t digest_of(void *ctx)
{
	return *(uint64_t *)ctx;
}

static void noop(void *ctx)
{
	(void)ctx;
}

/* Commands that exit differently or print differently, and functions whose digests differ,
 * are refused before anything is timed; asked not to check, they are compared. */
Test(contest, the_output_check_refuses_different_work)
{
	char *echo_a[] = { "sh", "-c", "echo a", NULL }, *echo_b[] = { "sh", "-c", "echo b", NULL };
	char *t[] = { "true", NULL }, *f[] = { "false", NULL };
	uint64_t one = 1, two = 2;
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_entrant fa = PBENCH_CONTEST_ENTRANT_INIT, fb;
	struct pbench_contest *c;

	fa.workload = PBENCH_WORKLOAD_FN;
	fa.fn = noop;
	fa.ctx = &one;
	fa.digest = digest_of;
	fb = fa;
	o.max_rounds = 12;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "a", echo_a);
	add_cmd(c, "b", echo_b);
	cr_assert_eq(pbench_contest_run(c), -PBENCH_EDIFFERENT);
	cr_assert(strstr(pbench_strerror(-PBENCH_EDIFFERENT), "their output differs"), "%s",
		  pbench_strerror(-PBENCH_EDIFFERENT));
	cr_assert_eq(result(c, 0).runs, 0, "a run was kept");
	pbench_contest_free(c);

	/* A command that fails (exit non-zero, killed) is said at once, with the last line of
	 * its stderr, before any timed run; the same failure on both sides too. */
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "true", t);
	add_cmd(c, "false", f);
	cr_assert_eq(pbench_contest_run(c), -PBENCH_ECMD_FAILED);
	cr_assert_str_eq(pbench_strerror(-PBENCH_ECMD_FAILED), "'false' failed before any timed "
			 "run: exit 1; its stderr was empty");
	cr_assert_eq(result(c, 0).runs, 0, "a run was kept");
	cr_assert_eq(result(c, 1).runs, 0, "a run was kept");
	pbench_contest_free(c);
	{
		char *gz[] = { "gzip", "-c", "/dev/null", ">", "/dev/null", NULL };

		cr_assert_eq(pbench_contest_new(&c, &o), 0);
		add_cmd(c, NULL, gz);
		add_cmd(c, NULL, gz);
		cr_assert_eq(pbench_contest_run(c), -PBENCH_ECMD_FAILED);
		cr_assert_str_eq(pbench_strerror(-PBENCH_ECMD_FAILED), "'gzip -c /dev/null > "
				 "/dev/null #1' failed before any timed run: exit 1; the last "
				 "line of its stderr: 'gzip: >: No such file or directory'");
		pbench_contest_free(c);
	}

	fb.ctx = &two;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	pbench_contest_add(c, &fa);
	pbench_contest_add(c, &fb);
	cr_assert_eq(pbench_contest_run(c), -PBENCH_EDIFFERENT);
	pbench_contest_free(c);

	o.flags = PBENCH_CONTEST_NO_CHECK;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "a", echo_a);
	add_cmd(c, "b", echo_b);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_geq(result(c, 1).runs, 10);
	cr_assert_eq(result(c, 1).checked, 0);
	pbench_contest_free(c);
	assert_no_children();
}

/* The same output passes, and the check says what it saw. */
Test(contest, the_output_check_passes_the_same_output)
{
	char *a[] = { "sh", "-c", "echo same", NULL }, *b[] = { "echo", "same", NULL };
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_contest *c;
	struct pbench_contest_result r;

	o.max_rounds = 10;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "sh", a);
	add_cmd(c, "echo", b);
	ASSERT_OK(pbench_contest_run(c));
	pbench_contest_info(c, &ci);
	cr_assert_eq(ci.checked, 1);
	r = result(c, 1);
	cr_assert(r.checked && r.check_exited && r.check_exit_status == 0);
	cr_assert_eq(r.check_stdout_bytes, 5);
	cr_assert_eq(r.check_stdout_hash, result(c, 0).check_stdout_hash);
	pbench_contest_free(c);
	assert_no_children();
}

/* Stored times as the reference (a baseline): never run, compared with the live runs. */
Test(contest, stored_times_are_the_reference)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	struct pbench_contest_entrant s = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_summary sum = { .size = sizeof(sum) };
	double stored[20];

	s.name = "baseline";
	/* Against stored times the rounds run the whole budget (no sequential stop against
	 * another occasion): 40 rounds, not the 10 s of quick_opts(). */
	o.max_rounds = 40;
	/* 1 s, a tenth of a percent of spread: far slower than XOR_N xor iterations */
	for (int i = 0; i < 20; i++)
		stored[i] = 1e9 * (1 + 0.001 * (i % 5));
	s.stored_ns = stored;
	s.nr_stored = 20;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(pbench_contest_add(c, &s), 0);
	add_xor(c, "today", XOR_N);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_eq(result(c, 0).stored, 1);
	cr_assert_eq(result(c, 0).runs, 20);
	cr_assert_null(pbench_contest_runs(c, 0));
	cr_assert_not_null(pbench_contest_runs(c, 1));
	cr_assert_eq(result(c, 1).verdict, PBENCH_VERDICT_FASTER);
	cr_assert_eq(pbench_contest_summary(c, 0, &sum), 0);
	cr_assert_eq(sum.min, 1e9);
	pbench_contest_free(c);
	/* stored times as the challenger of a live reference: Welch, there are no rounds */
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "today", XOR_N);
	cr_assert_eq(pbench_contest_add(c, &s), 1);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_eq(result(c, 1).verdict, PBENCH_VERDICT_SLOWER);
	pbench_contest_free(c);
	/* fewer than two stored times, or one that is not a time */
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	s.nr_stored = 1;
	cr_assert_eq(pbench_contest_add(c, &s), -EINVAL);
	stored[1] = -1;
	s.nr_stored = 2;
	cr_assert_eq(pbench_contest_add(c, &s), -EINVAL);
	pbench_contest_free(c);
}

/* Against stored times (a baseline from another moment) the gate allows for the moment
 * (pbench_stats_gate(), tested on stored samples in test_stats): today's xor, far faster than
 * the stored second, is no regression; the baseline's file is read for what it was measured
 * as: another mode, another workload, other events, each said. */
Test(contest, a_baseline_gate_and_what_it_was_measured_as)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	struct pbench_contest_entrant s = PBENCH_CONTEST_ENTRANT_INIT;
	char path[] = "/tmp/pbench-test-baseline-XXXXXX", why[1024];
	static const char doc[] = "{\"schema\": 1, \"pbench_version\": \"0.1.0\", \"mode\": "
		"\"prepared\", \"subject\": {\"kind\": \"workload\", \"name\": \"xor\", "
		"\"argv\": null, \"iterations\": 5, \"bytes\": null}, \"events\": [{\"name\": "
		"\"task-clock\"}], \"modes\": [{\"mode\": \"prepared\", \"runs\": [{\"ns\": 1e9}, "
		"{\"ns\": 1.001e9}]}]}";
	double stored[20];
	int fd, d;

	s.name = "baseline";
	o.max_rounds = 40;	/* the whole budget against stored times: 40 rounds, not 10 s */
	for (int i = 0; i < 20; i++)
		stored[i] = 1e9 * (1 + 0.001 * (i % 5));
	s.stored_ns = stored;
	s.nr_stored = 20;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(pbench_contest_add(c, &s), 0);
	add_xor(c, "today", XOR_N);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	d = pbench_contest_baseline_check(c, path, "today", why, sizeof(why));
	unlink(path);
	cr_expect_eq(d, PBENCH_BASELINE_DIFF_MODE | PBENCH_BASELINE_DIFF_COMMAND |
		     PBENCH_BASELINE_DIFF_EVENTS, "%d: %s", d, why);
	cr_expect(strstr(why, "it was measured prepared, this run is unprepared") &&
		  strstr(why, "its command was the xor workload, 5 iterations") &&
		  strstr(why, "its events were task-clock, these are task-clock,context-switches"),
		  "%s", why);
	cr_expect_eq(pbench_contest_baseline_check(c, "/nonexistent/x.json", NULL, why,
						   sizeof(why)), -EINVAL);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_eq(pbench_contest_slower(c, 1, 2, why, sizeof(why)), 0, "%s", why);
	cr_expect(strstr(why, "today: not slower than the baseline by more than 2%"), "%s", why);
	pbench_contest_free(c);
}

/* The gate: twice as slow is a regression beyond 10% and not beyond 500% (a fixed budget of
 * 30 rounds and one look, so that the interval is not cut at the first look that decides). */
Test(contest, the_regression_gate)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	char why[512];

	o.max_rounds = 30;
	o.flags = PBENCH_CONTEST_FULL_BUDGET;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "old", XOR_N);
	add_xor(c, "new", 2 * XOR_N);
	cr_assert_eq(pbench_contest_run(c), 0);
	cr_assert_eq(pbench_contest_slower(c, 1, 10, why, sizeof(why)), 1);
	cr_assert(strstr(why, "new is ") && strstr(why, "slower by more than 10%"), "%s", why);
	cr_assert_eq(pbench_contest_slower(c, 1, 500, why, sizeof(why)), 0);
	cr_assert(strstr(why, "not surely by more than 500%"), "%s", why);
	cr_assert_eq(pbench_contest_slower(c, 0, 10, why, sizeof(why)), -EINVAL);
	cr_assert_eq(pbench_contest_slower(c, 1, -1, why, sizeof(why)), -EINVAL);
	pbench_contest_free(c);
}

static void stop_after_3(const struct pbench_contest_progress *p, void *arg)
{
	if (p->round >= 3)
		*(volatile int *)arg = 1;
}

/* The stop flag ends it after the round under way: -EINTR, what was measured kept. */
Test(contest, the_stop_flag_ends_it)
{
	static volatile int stop;
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_contest *c;

	stop = 0;
	o.stop = &stop;
	o.progress = stop_after_3;
	o.progress_arg = (void *)&stop;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "a", XOR_N);
	add_xor(c, "b", XOR_N);
	cr_assert_eq(pbench_contest_run(c), -EINTR);
	pbench_contest_info(c, &ci);
	cr_assert_eq(ci.stop, PBENCH_CONTEST_STOP_INTERRUPTED);
	cr_assert_eq(ci.rounds, 3);
	cr_assert_eq(result(c, 0).runs, 3);
	cr_assert_eq(pbench_contest_run(c), -EALREADY);
	pbench_contest_free(c);
}

/* Functions that note who ran, in order: the order of the runs seen from inside. */
static char order_log[4096];
static int order_n;

static void note(void *ctx)
{
	if (order_n < (int)sizeof(order_log) - 1)
		order_log[order_n++] = *(const char *)ctx;
	pbench_workload_xor(XOR_N, 1);
}

static struct pbench_contest *noting(struct pbench_contest_opts *o)
{
	static const char a = 'a', b = 'b';
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest *c;

	e.workload = PBENCH_WORKLOAD_FN;
	e.fn = note;
	order_n = 0;
	memset(order_log, 0, sizeof(order_log));
	cr_assert_eq(pbench_contest_new(&c, o), 0);
	e.name = "a";
	e.ctx = (void *)&a;
	cr_assert_eq(pbench_contest_add(c, &e), 0);
	e.name = "b";
	e.ctx = (void *)&b;
	cr_assert_eq(pbench_contest_add(c, &e), 1);
	return c;
}

/* Interleaved: each round runs both, once each, and the order changes between rounds (a
 * fixed ab or ba in 40 rounds would be a 1 in 2^39 chance). */
Test(contest, interleaved_rounds_run_each_once_in_random_order)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	int ab = 0;

	o.max_rounds = 40;
	o.flags = PBENCH_CONTEST_FULL_BUDGET;
	c = noting(&o);
	cr_assert_eq(pbench_contest_run(c), 0);
	cr_assert_eq(order_n, 80, "%d runs", order_n);
	for (int r = 0; r < 40; r++) {
		cr_assert_neq(order_log[2 * r], order_log[2 * r + 1], "round %d: %.2s", r,
			      order_log + 2 * r);
		ab += order_log[2 * r] == 'a';
	}
	cr_assert(ab > 0 && ab < 40, "the same order in every round: %s", order_log);
	cr_assert_eq(result(c, 1).nr_looks, 1, "a fixed budget looks once, at the end");
	pbench_contest_free(c);
}

/* Sequential: all runs of a, then all of b, each its share; one test at the end, at the
 * confidence asked (no correction for looks); the stop is the budget. */
Test(contest, sequential_order_looks_once)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_contest *c;
	char want[41];

	o.order = PBENCH_CONTEST_ORDER_SEQUENTIAL;
	o.max_rounds = 20;
	c = noting(&o);
	cr_assert_eq(pbench_contest_run(c), 0);
	memset(want, 'a', 20);
	memset(want + 20, 'b', 20);
	want[40] = 0;
	cr_assert_str_eq(order_log, want);
	pbench_contest_info(c, &ci);
	cr_assert_eq(ci.stop, PBENCH_CONTEST_STOP_MAX_ROUNDS);
	cr_assert_eq(result(c, 1).nr_looks, 1);
	cr_assert_leq(fabs(ci.look_confidence - 0.999), 1e-12);
	pbench_contest_free(c);
}

/* Setup once, prepare before each run (the check's and the warm-up's too), cleanup once;
 * each is a real command writing to a file. */
Test(contest, setup_prepare_cleanup)
{
	char path[] = "/tmp/test_contest.XXXXXX", cmd[3][256], buf[4096];
	char *setup[] = { "sh", "-c", cmd[0], NULL }, *prep[] = { "sh", "-c", cmd[1], NULL };
	char *clean[] = { "sh", "-c", cmd[2], NULL }, *t[] = { "true", NULL };
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	int fd = mkstemp(path), preps = 0;
	ssize_t n;

	cr_assert_geq(fd, 0);
	snprintf(cmd[0], sizeof(cmd[0]), "echo S >> %s", path);
	snprintf(cmd[1], sizeof(cmd[1]), "echo P >> %s", path);
	snprintf(cmd[2], sizeof(cmd[2]), "echo C >> %s", path);
	o.setup = setup;
	o.prerun = prep;
	o.cleanup = clean;
	o.warmup_runs = 1;
	o.max_rounds = 10;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "a", t);
	add_cmd(c, "b", t);
	ASSERT_OK(pbench_contest_run(c));
	pbench_contest_free(c);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	cr_assert_gt(n, 0);
	buf[n] = 0;
	for (char *p = buf; (p = strstr(p, "P\n")); p += 2)
		preps++;
	cr_assert(!strncmp(buf, "S\n", 2) && !strcmp(buf + n - 2, "C\n"), "%s", buf);
	/* 2 warm-ups (the first warm-up round is the output check: issue 37) + 2 x 10 rounds */
	cr_assert_eq(preps, 22, "%d prepare runs", preps);
	assert_no_children();
}

/* A setup that fails ends it before anything runs, with the command and its status. */
Test(contest, a_failing_setup_is_an_error)
{
	char *setup[] = { "false", NULL }, *t[] = { "true", NULL };
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;

	o.setup = setup;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "a", t);
	add_cmd(c, "b", t);
	cr_assert_eq(pbench_contest_run(c), -ECANCELED);
	cr_assert(strstr(pbench_strerror(-ECANCELED),
			 "the setup command 'false' exited with status 1"),
		  "%s", pbench_strerror(-ECANCELED));
	cr_assert_eq(result(c, 0).runs, 0);
	pbench_contest_free(c);
}

/* A duet: both commands at once on two CPUs, swapped each round; each run's CPU is the one
 * it was pinned to, alternating; the pairs are what is tested. 20 and 50 ms (2.5x): under
 * make test's other lane 10 ms slept 14-20 ms and 30 ms against it came out 1.3-1.47x. */
Test(contest, duet_runs_both_at_once_and_swaps_cpus)
{
	char *a[] = { "sleep", "0.02", NULL }, *b[] = { "sleep", "0.05", NULL };
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_run r0 = { .size = sizeof(r0) }, r1 = { .size = sizeof(r1) };
	struct pbench_contest *c;
	struct pbench_contest_result rb;
	uint64_t t0;
	double wall;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		cr_skip_test("a duet needs two CPUs");
	o.order = PBENCH_CONTEST_ORDER_DUET;
	ASSERT_OK(pbench_contest_new(&c, &o));
	add_cmd(c, "a", a);
	add_cmd(c, "b", b);
	t0 = pbench_ticks();
	ASSERT_OK(pbench_contest_run(c));
	wall = pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
	pbench_contest_info(c, &ci);
	rb = result(c, 1);
	cr_assert_eq(rb.verdict, PBENCH_VERDICT_SLOWER);
	cr_assert(rb.ratio > 1.5 && rb.ratio < 4, "ratio %.3f", rb.ratio);
	cr_assert_neq(ci.duet_cpus[0], ci.duet_cpus[1]);
	/* at the same time: the rounds took about b's time each (50 ms), not a's and b's (70) */
	cr_assert_lt(wall, ci.rounds * 0.060 + 0.5, "%ld rounds took %.2f s", ci.rounds, wall);
	pbench_runs_get(pbench_contest_runs(c, 0), 0, 0, &r0);
	pbench_runs_get(pbench_contest_runs(c, 0), 0, 1, &r1);
	cr_assert_eq(r0.cpu, ci.duet_cpus[0]);
	cr_assert_eq(r1.cpu, ci.duet_cpus[1]);
	pbench_runs_get(pbench_contest_runs(c, 1), 0, 0, &r0);
	cr_assert_eq(r0.cpu, ci.duet_cpus[1]);
	pbench_contest_free(c);
	assert_no_children();
}

/* The outcome in words, one at a time: an entrant's failed runs, then the gate for each
 * entrant against the reference (a note when it passes); an interruption ends the list
 * before the gate; bad arguments refused. */
Test(contest, outcome_one_at_a_time)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	char *ok[] = { "true", NULL }, *bad[] = { "sh", "-c", "exit 3", NULL }, why[2048];

	o.flags = PBENCH_CONTEST_NO_CHECK;
	o.max_rounds = 3;
	o.min_rounds = 3;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(add_cmd(c, "good", ok), 0);
	cr_assert_eq(add_cmd(c, "bad", bad), 1);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_eq(pbench_contest_outcome(c, 0, -1, 0, why, sizeof(why)), PBENCH_OUTCOME_ERROR);
	cr_expect_str_eq(why, "3 of 3 runs of 'bad' failed (exited non-zero or were killed): its "
			 "times are of failures");
	cr_expect_eq(pbench_contest_outcome(c, 0, -1, 1, why, sizeof(why)), 0, "saw: %s", why);
	cr_expect_str_empty(why);
	/* the gate: one line for 'bad' (not for the reference), a note or a regression */
	cr_assert_gt(pbench_contest_outcome(c, 0, 1000, 1, why, sizeof(why)), 0);
	cr_expect(strstr(why, "regression: "), "saw: %s", why);
	cr_expect_eq(pbench_contest_outcome(c, 0, 1000, 2, why, sizeof(why)), 0, "saw: %s", why);
	cr_assert_eq(pbench_contest_outcome(c, PBENCH_OUTCOME_INTERRUPTED, 1000, 1, why,
					    sizeof(why)), PBENCH_OUTCOME_ERROR);
	cr_expect_str_eq(why, "interrupted after 3 rounds");
	cr_expect_eq(pbench_contest_outcome(c, PBENCH_OUTCOME_INTERRUPTED, 1000, 2, why,
					    sizeof(why)), 0, "the gate after an interruption");
	cr_expect_eq(pbench_contest_outcome(NULL, 0, -1, 0, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_contest_outcome(c, 0, -1, -1, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_contest_outcome(c, 0, -1, 0, NULL, 1), -EINVAL);
	pbench_contest_free(c);
}

/* A duet refuses at once what it cannot run: its CPUs without the duet order, an entrant
 * that is not a command, a third command. */
Test(contest, duet_refuses_what_it_cannot_run)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	char *t[] = { "true", NULL };

	o.duet_cpus[0] = 0;
	cr_assert_eq(pbench_contest_new(&c, &o), -EINVAL);
	cr_expect_str_eq(pbench_strerror(-EINVAL), "--duet-cpus picks the CPUs of a duet: give "
			 "--duet too");
	pbench_contest_free(c);
	o = quick_opts();
	o.order = PBENCH_CONTEST_ORDER_DUET;
	if (pbench_contest_new(&c, &o) == -EINVAL) {
		pbench_contest_free(c);
		cr_skip_test("a duet needs two CPUs pbench may run on");
	}
	cr_assert_eq(add_xor(c, "w", 1000), -EINVAL);
	cr_expect_str_eq(pbench_strerror(-EINVAL), "a duet runs two commands at the same time: "
			 "built-in workloads are compared interleaved");
	cr_assert_eq(pbench_contest_add(c, &(struct pbench_contest_entrant){
		.size = sizeof(struct pbench_contest_entrant), .stored_ns = (double[]){ 1, 2 },
		.nr_stored = 2 }), -EINVAL);
	cr_expect(strstr(pbench_strerror(-EINVAL), "a baseline's times cannot run again"));
	cr_assert_eq(add_cmd(c, "a", t), 0);
	cr_assert_eq(add_cmd(c, "b", t), 1);
	cr_assert_eq(add_cmd(c, "c", t), -EINVAL);
	cr_expect_str_eq(pbench_strerror(-EINVAL), "a duet runs two commands at the same time: "
			 "give exactly two");
	pbench_contest_free(c);
}

/* What cannot be run is refused with the reason. */
Test(contest, bad_options_and_entrants)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c = NULL;
	char *missing[] = { "pbench-no-such-command", NULL }, *t[] = { "true", NULL };

	o.order = PBENCH_CONTEST_ORDER_DUET;
	o.duet_cpus[0] = o.duet_cpus[1] = 0;
	cr_assert_eq(pbench_contest_new(&c, &o), -EINVAL);
	cr_assert(strstr(pbench_strerror(-EINVAL), "the same (0)"), "%s", pbench_strerror(-EINVAL));
	pbench_contest_free(c);
	o = quick_opts();
	o.confidence = 1;
	cr_assert_eq(pbench_contest_new(&c, &o), -EINVAL);
	pbench_contest_free(c);
	o = quick_opts();
	o.events = "cylces";
	cr_assert_eq(pbench_contest_new(&c, &o), -PBENCH_EUNKNOWN_EVENT);
	pbench_contest_free(c);
	o = quick_opts();
	o.prerun = missing;
	cr_assert_eq(pbench_contest_new(&c, &o), -PBENCH_ENOT_FOUND);
	pbench_contest_free(c);
	o = quick_opts();
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(add_cmd(c, "x", missing), -PBENCH_ENOT_FOUND);
	cr_assert_eq(add_cmd(c, "a", t), 0);
	cr_assert_eq(pbench_contest_run(c), -EINVAL, "one entrant");
	pbench_contest_free(c);
	o.reference = 5;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_cmd(c, "a", t);
	add_cmd(c, "b", t);
	cr_assert_eq(pbench_contest_run(c), -EINVAL, "reference out of range");
	pbench_contest_free(c);
}

/* The writers, read back: the JSON's times are the runs kept, pbench_samples reads them as a
 * set per entrant; the text starts with the verdict; the CSV has a line a run; the SVG is
 * whole; the Markdown is a table with the verdict under it. */
Test(contest, the_writers_read_back)
{
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest *c;
	struct pbench_samples *s;
	char *buf = NULL, line[512];
	size_t len = 0, n;
	FILE *f;
	json_t *root;
	json_error_t jerr;

	o.max_rounds = 30;
	o.flags = PBENCH_CONTEST_FULL_BUDGET;	/* one look: the interval is not cut at 1 */
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	add_xor(c, "a", XOR_N);
	add_xor(c, "b", 2 * XOR_N);
	cr_assert_eq(pbench_contest_run(c), 0);
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_write_json(c, f), 0);
	fclose(f);
	root = json_loadb(buf, len, 0, &jerr);
	cr_assert_not_null(root, "%s", jerr.text);
	cr_assert_eq(json_integer_value(json_object_get(root, "schema")), PBENCH_JSON_SCHEMA);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(root, "verdicts"), 0), "verdict")), "slower");
	cr_assert_eq(json_array_size(json_object_get(json_array_get(json_object_get(root,
		"entrants"), 1), "times_ns")), (size_t)result(c, 1).runs);
	json_decref(root);
	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_assert_eq(pbench_samples_add_text(s, buf, len, "x.json", NULL), 2);
	cr_assert_str_eq(pbench_samples_name(s, 1), "b");
	cr_assert_not_null(pbench_samples_values(s, 1, &n));
	cr_assert_eq(n, (size_t)result(c, 1).runs);
	pbench_samples_free(s);
	free(buf);

	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_write_text(c, f), 0);
	fclose(f);
	pbench_contest_verdict_text(c, 1, line, sizeof(line));
	cr_assert(!strncmp(buf, line, strlen(line)), "the text does not start with the verdict");
	free(buf);
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_write_csv(c, f), 0);
	fclose(f);
	n = 0;
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		n++;
	cr_assert_eq(n, 1 + (size_t)(result(c, 0).runs + result(c, 1).runs));
	cr_assert(!strncmp(buf, "name,entrant,run,ns,ticks,exit_status,signal,timed_out,cpu,"
			   "task-clock,context-switches\n", 87), "%.90s", buf);
	free(buf);
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_plot_svg(c, f), 0);
	fclose(f);
	cr_assert(strstr(buf, "<svg") && strstr(buf, "</svg>\n") && strstr(buf, "<polygon"));
	assert_rounds_axis(buf, c, 1);
	free(buf);
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_write_markdown(c, f), 0);
	fclose(f);
	cr_assert(!strncmp(buf, "| Command | Runs |", 18) && strstr(buf, "\n- b is "), "%s", buf);
	free(buf);
	pbench_contest_free(c);
}

/* A baseline given with its file (stored_file): its runs' counts are the stored entrant's
 * events, so each live event has its ratio to them with an interval, and the baseline its own
 * mean; an event its runs did not count says so; without the file, no events (as before). On
 * a metric the file's wall times are kept beside the metric's values. */
Test(contest, a_baseline_file_gives_its_events)
{
	static const char doc[] = "{\"schema\": 2, \"mode\": \"unprepared\", \"subject\": "
		"{\"kind\": \"workload\", \"name\": \"xor\", \"argv\": null, \"iterations\": 5, "
		"\"bytes\": null}, \"modes\": [{\"mode\": \"unprepared\", \"runs\": ["
		"{\"ns\": 1e6, \"counters\": {\"task-clock\": {\"scaled\": 5e5}}}, "
		"{\"ns\": 1.1e6, \"counters\": {\"task-clock\": {\"scaled\": 6e5}}}, "
		"{\"ns\": 1.2e6, \"timed_out\": true, \"counters\": {}}, "
		"{\"ns\": 1.3e6, \"counters\": {\"task-clock\": {\"scaled\": 7e5}}}]}]}";
	char path[] = "/tmp/pbench-test-basefile-XXXXXX";
	double stored[3] = { 1e6, 1.1e6, 1.3e6 }, vals[3] = { 5e5, 6e5, 7e5 };
	struct pbench_contest_opts o = quick_opts();
	struct pbench_contest_entrant s = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest_event x = { .size = sizeof(x) };
	struct pbench_summary sum = { .size = sizeof(sum) };
	struct pbench_contest *c;
	int fd = mkstemp(path);

	s.name = "baseline";
	s.stored_ns = stored;
	s.nr_stored = 3;
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	o.max_rounds = 6;
	for (int with = 0; with < 2; with++) {
		s.stored_file = with ? path : NULL;
		cr_assert_eq(pbench_contest_new(&c, &o), 0);
		cr_assert_eq(pbench_contest_add(c, &s), 0);
		add_xor(c, "today", XOR_N);
		ASSERT_OK(pbench_contest_run(c));
		cr_assert_str_eq(pbench_contest_event_name(c, 0), "task-clock");
		cr_expect_eq(pbench_contest_event(c, 0, 0, &x), with ? 0 : -EINVAL);
		cr_expect(!with || (x.status == PBENCH_EVENT_OK && fabs(x.mean - 6e5) < 1e-6),
			  "baseline's task-clock: status %d, mean %g", x.status, x.mean);
		cr_expect(!with || (pbench_contest_event(c, 0, 1, &x) == 0 &&
				    x.status == PBENCH_EVENT_NOT_COUNTED && x.reason &&
				    strstr(x.reason, "baseline's runs did not count it")),
			  "context-switches of the baseline: %d %s", x.status, x.reason);
		cr_assert_eq(pbench_contest_event(c, 1, 0, &x), 0);
		if (with)
			cr_expect(isfinite(x.ratio) && x.ratio_lo <= x.ratio &&
				  x.ratio <= x.ratio_hi, "%g (%g-%g)", x.ratio, x.ratio_lo,
				  x.ratio_hi);
		else
			cr_expect(isnan(x.ratio), "no file, no ratio: %g", x.ratio);
		pbench_contest_free(c);
	}
	/* on a metric: the stored values are task-clock's, the file gives the times */
	o.metric = "task-clock";
	s.stored_ns = vals;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	cr_assert_eq(pbench_contest_add(c, &s), 0);
	add_xor(c, "today", XOR_N);
	ASSERT_OK(pbench_contest_run(c));
	cr_expect_eq(result(c, 0).runs, 3);
	cr_assert_eq(pbench_contest_summary(c, 0, &sum), 0);
	cr_expect(sum.n == 3 && sum.min == 1e6 && sum.max == 1.3e6, "%zu %g %g", sum.n, sum.min,
		  sum.max);
	pbench_contest_free(c);
	unlink(path);
}
