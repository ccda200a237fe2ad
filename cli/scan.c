/* SPDX-License-Identifier: MIT */
/*
 * Parameter scans of pbench stat (issue 38): -P NAME MIN MAX with -D STEP, --log2 or --geom
 * FACTOR, -L NAME a,b,c, several of them (the cartesian product), {NAME} put in the command's
 * words; without a command, the built-in workload's --iterations scanned. Every point is an
 * entrant of one contest (pbench_contest_*), so the points run interleaved, in a fresh random
 * order each round, never one after the other: a machine that drifts during the scan spreads
 * the drift over every point instead of bending the curve. Each point's summary is the
 * contest's (its runs, outliers and readings as any set of runs); how the time grows with the
 * one parameter scanned is the library's fit (pbench_stats_fit()).
 *
 * This file parses the options, lays the points out (their values, {NAME} put in each
 * command) and hands them to the library's scan (pbench_scan_*: the contest, the fit and
 * every writer: text, JSON, CSV, Markdown, --plot's SVG); what is left here is plumbing.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

/* ---- the options -------------------------------------------------------------------------- */

static int scan_error(const char *fmt, const char *a, const char *b)
{
	cli_error(fmt, a, b);
	return -1;
}

/* -P NAME MIN MAX: MIN and MAX are the two words after getopt's argument. */
static int add_range(struct cli_scan *s, const char *name)
{
	struct cli_scan_param *p;

	if (s->np == CLI_SCAN_MAX_PARAMS)
		return scan_error("-P %s: more than 4 parameters scanned at once%s", name, "");
	if (optind + 1 >= s->argc)
		return scan_error("-P %s needs MIN and MAX: -P %s MIN MAX", name, name);
	p = &s->p[s->np];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->range = 1;
	if (cli_number("-P", "minimum", s->argv[optind], -1e15, 1e15, 0, &p->lo) ||
	    cli_number("-P", "maximum", s->argv[optind + 1], -1e15, 1e15, 0, &p->hi))
		return -1;
	optind += 2;
	s->np++;
	return 0;
}

/* -L NAME a,b,c */
static int add_list(struct cli_scan *s, const char *arg)
{
	struct cli_scan_param *p;
	const char *comma;

	if (s->np == CLI_SCAN_MAX_PARAMS)
		return scan_error("-L %s: more than 4 parameters scanned at once%s", arg, "");
	if (optind >= s->argc)
		return scan_error("-L %s needs its values: -L %s a,b,c", arg, arg);
	p = &s->p[s->np];
	memset(p, 0, sizeof(*p));
	p->name = arg;
	p->list = s->argv[optind++];
	for (const char *v = p->list; v; v = comma ? comma + 1 : NULL) {
		char word[64];
		size_t len;

		comma = strchr(v, ',');
		len = comma ? (size_t)(comma - v) : strlen(v);
		if (p->nv == CLI_SCAN_MAX_POINTS)
			return scan_error("-L %s: more values than the %s a scan runs", arg, "256");
		if (!len || len >= sizeof(word))
			return scan_error("-L %s: an empty or too long value in '%s'", arg, p->list);
		memcpy(word, v, len);
		word[len] = 0;
		if (cli_number("-L", "value", word, -1e15, 1e15, 0, &p->v[p->nv]))
			return -1;
		p->nv++;
	}
	s->np++;
	return 0;
}

/* -D, --log2, --geom: the step of the last -P. */
static int set_step(struct cli_scan *s, int c, const char *arg)
{
	struct cli_scan_param *p = s->np ? &s->p[s->np - 1] : NULL;
	const char *opt = c == 'D' ? "-D" : c == CLI_SCAN_LOG2 ? "--log2" : "--geom";

	if (!p || !p->range)
		return scan_error("%s sets the step of a -P NAME MIN MAX: give it after the -P%s",
				  opt, "");
	if (p->step > 0 || p->factor > 0)
		return scan_error("-P %s: one step only (-D, --log2 or --geom), %s is a second", p->name,
				  opt);
	if (c == CLI_SCAN_LOG2) {
		p->factor = 2;
		return 0;
	}
	if (c == 'D')
		return cli_number("-D", "step", arg, 0, 1e15, CLI_NUM_POSITIVE, &p->step) ? -1 : 0;
	if (cli_number("--geom", "factor", arg, 1, 1e6, 0, &p->factor))
		return -1;
	if (p->factor <= 1)
		return scan_error("invalid factor '%s' for --geom: it must be above 1%s", arg, "");
	return 0;
}

int cli_scan_option(struct cli_scan *s, int c, const char *arg)
{
	switch (c) {
	case 'P':
		return add_range(s, arg) ? -1 : 1;
	case 'L':
		return add_list(s, arg) ? -1 : 1;
	case 'D':
	case CLI_SCAN_LOG2:
	case CLI_SCAN_GEOM:
		return set_step(s, c, arg) ? -1 : 1;
	case CLI_SCAN_BYTES:
		s->bytes = arg;
		return 1;
	}
	return 0;
}

/* ---- the points ----------------------------------------------------------------------------- */

static int whole(double v)
{
	return v == floor(v) && fabs(v) < 1e15;
}

/* A range's values: MIN, MIN + STEP ... or MIN, MIN x FACTOR ..., up to MAX. */
static int expand_range(struct cli_scan_param *p)
{
	int round = whole(p->lo) && whole(p->hi) && (p->step == 0 || whole(p->step));
	char lo[32], hi[32];

	snprintf(lo, sizeof(lo), "%.15g", p->lo);
	snprintf(hi, sizeof(hi), "%.15g", p->hi);
	if (p->lo > p->hi) {
		cli_error("-P %s %s %s: MIN is above MAX", p->name, lo, hi);
		return -1;
	}
	if (p->factor > 0 && p->lo <= 0) {
		cli_error("-P %s %s %s: a geometric scan (--log2, --geom) needs MIN above 0",
			  p->name, lo, hi);
		return -1;
	}
	if (!(p->factor > 0) && !(p->step > 0))
		p->step = 1;	/* hyperfine's default */
	p->nv = 0;
	for (long i = 0;; i++) {
		double v = p->factor > 0 ? p->lo * pow(p->factor, (double)i) : p->lo + p->step * i;

		v = round ? floor(v + 0.5) : v;
		if (v > p->hi * (1 + 1e-12) + 1e-12)
			break;
		if (p->nv && v == p->v[p->nv - 1])
			continue;
		if (p->nv == CLI_SCAN_MAX_POINTS) {
			cli_error("-P %s %s %s: more than the %d points a scan runs (a larger -D, or "
				  "--log2)", p->name, lo, hi, CLI_SCAN_MAX_POINTS);
			return -1;
		}
		p->v[p->nv++] = v;
	}
	return 0;
}

/* Where {NAME} appears: 2 in a helper's line, 1 in a word of argv, 0 nowhere. */
static int named_in(const char *name, char *const *argv, const char *const *lines, int nlines)
{
	char tag[80];

	snprintf(tag, sizeof(tag), "{%s}", name);
	for (int i = 0; i < nlines; i++)
		if (lines[i] && strstr(lines[i], tag))
			return 2;
	for (int i = 0; argv && argv[i]; i++)
		if (strstr(argv[i], tag))
			return 1;
	return 0;
}

static int check_names(struct cli_scan *s, char *const *argv, const struct cli_run *run)
{
	for (int i = 0; i < s->np; i++) {
		int where = named_in(s->p[i].name, argv, run->helper, 3);

		for (int j = 0; j < i; j++)
			if (!strcmp(s->p[i].name, s->p[j].name)) {
				cli_error("%s is scanned twice: one -P or -L per name", s->p[i].name);
				return -1;
			}
		if (argv && !where) {
			cli_error("{%s} is not in the command: put it where the value goes "
				  "(-- ./prog {%s})", s->p[i].name, s->p[i].name);
			return -1;
		}
	}
	if (!argv && s->np != 1) {
		cli_error("without a command, a scan is of the workload's --iterations: one -P or "
			  "-L only");
		return -1;
	}
	return 0;
}

/* The points: the cartesian product, the last parameter varying fastest. */
static int expand(struct cli_scan *s, char *const *argv, const struct cli_run *run)
{
	double total = 1;

	for (int i = 0; i < s->np; i++) {
		if (s->p[i].range && expand_range(&s->p[i]))
			return -1;
		total *= s->p[i].nv;
	}
	if (total > CLI_SCAN_MAX_POINTS) {
		cli_error("the scan has %.0f points, more than the %d it runs: fewer values, or a "
			  "larger step", total, CLI_SCAN_MAX_POINTS);
		return -1;
	}
	s->npoints = (int)total;
	if (s->npoints < 2) {
		cli_error("the scan has %d point: a scan needs 2 or more", s->npoints);
		return -1;
	}
	return check_names(s, argv, run);
}

/* The value of parameter k at point i. */
static double value_at(const struct cli_scan *s, int i, int k)
{
	int div = 1;

	for (int j = s->np - 1; j > k; j--)
		div *= s->p[j].nv;
	return s->p[k].v[(i / div) % s->p[k].nv];
}

/* word with every {NAME} of point i put in: a new string. */
static char *substitute(const struct cli_scan *s, int i, const char *word)
{
	size_t cap = strlen(word) * 4 + 64, len = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	while (*word) {
		int k, done = 0;

		for (k = 0; k < s->np && !done; k++) {
			size_t n = strlen(s->p[k].name);

			if (word[0] == '{' && !strncmp(word + 1, s->p[k].name, n) && word[n + 1] == '}') {
				char v[40];
				int m = snprintf(v, sizeof(v), "%.15g", value_at(s, i, k));

				if (len + m + 1 > cap && !(out = realloc(out, cap = cap * 2 + m)))
					return NULL;
				memcpy(out + len, v, m);
				len += m;
				word += n + 2;
				done = 1;
			}
		}
		if (done)
			continue;
		if (len + 2 > cap && !(out = realloc(out, cap *= 2)))
			return NULL;
		out[len++] = *word++;
	}
	out[len] = 0;
	return out;
}

/* "n=1000" or "n=1000,threads=4": the point's name. */
static void point_name(const struct cli_scan *s, int i, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int k = 0; k < s->np && at < len; k++)
		at += snprintf(buf + at, len - at, "%s%s=%.15g", k ? "," : "", s->p[k].name,
			       value_at(s, i, k));
}

/* ---- the scan: the library's, the points' commands made here ---------------------------------- */

/* One scan's run: the library's scan, and what the CLI makes its points from. */
struct scan_run {
	struct cli_scan *s;
	struct pbench_scan *scan;
	int nsides;
	char *const *argv[CLI_RUN_MAX_SIDES];	/* each side's command (NULL: the workload) */
	/* --setup, --prepare, --cleanup with a {NAME}: one of each per point (and side), the
	 * entrant's own (pbench_contest_entrant.setup...); NULL: none, or the contest's */
	char *const *helper[3];
	const char *names[CLI_RUN_MAX_SIDES];	/* compare's labels of the sides (stat: NULL) */
	int workload;			/* without a command */
	double target_sem_pct, max_time_s;	/* each point's own stop (stat: --target-sem,
						 * --max-time) */
};

static void scan_progress(const struct pbench_contest_progress *p, void *arg)
{
	char line[256];

	cli_progress(arg, strcmp(p->phase, "done") &&
		     !cli_contest_progress_text(p, line, sizeof(line)) ? line : NULL, 1);
}

static void contest_opts(const struct scan_run *sr, const struct pbench_runs_opts *ro,
			 const struct cli_run *run, struct pbench_contest_opts *co)
{
	co->mode = ro->mode;
	co->cpu = ro->cpu;
	co->warmup_ms = ro->warmup_ms;
	co->timeout_s = ro->timeout_s;
	co->warmup_runs = ro->warmup_runs;
	co->events = ro->events;
	co->metrics = ro->metrics;
	co->metric = ro->metric;
	co->setup = run->argv[0];
	co->prerun = run->argv[1];
	co->cleanup = run->argv[2];
	/* every point ro->runs times (-r), within --max-time per point if given: each point's
	 * own stop (pbench_contest_entrant.max_time_s, its runs' time), and twice the sum of
	 * them for the whole scan (what runs between the runs: forks, helpers) */
	co->min_rounds = co->max_rounds = ro->runs;
	co->max_time_s = ro->max_time_s > 0 ? 2 * ro->max_time_s * sr->s->npoints : 0;
	co->confidence = PBENCH_STATS_DEFAULT_CONFIDENCE;
	co->flags |= ro->flags & PBENCH_RUNS_REPROBE ? PBENCH_CONTEST_REPROBE : 0;
}

/* What the command line adds to every scan's contest: its signals, the cached priority,
 * Ctrl-C, the terminal's width (the library adds a fixed budget, no output check). */
static void scan_flags(struct pbench_contest_opts *co)
{
	co->flags |= PBENCH_CONTEST_SIGNALS | PBENCH_CONTEST_PRIORITY_CACHE;
	co->stop = cli_stop;
	co->resumed = cli_stop_resumed();
	co->text_width = cli_term_width(stdout);
}

/* The helpers whose words name a scanned parameter become each point's own: taken from the
 * contest's options into sr->helper. */
static void point_helpers(struct scan_run *sr, struct pbench_contest_opts *co)
{
	char *const **h[3] = { &co->setup, &co->prerun, &co->cleanup };

	for (int k = 0; k < 3; k++)
		for (int p = 0; *h[k] && p < sr->s->np; p++)
			if (named_in(sr->s->p[p].name, *h[k], NULL, 0)) {
				sr->helper[k] = *h[k];
				*h[k] = NULL;
				break;
			}
}

/* argv with every {NAME} of point i put in (a NULL-ended array, free_words()), or NULL. */
static char **point_words(const struct cli_scan *s, int i, char *const *argv)
{
	char **words;
	int n = 0;

	while (argv[n])
		n++;
	if (!(words = calloc(n + 1, sizeof(*words))))
		return NULL;
	for (int w = 0; w < n; w++)
		if (!(words[w] = substitute(s, i, argv[w]))) {
			while (w--)
				free(words[w]);
			free(words);
			return NULL;
		}
	return words;
}

static void free_words(char **words)
{
	for (int w = 0; words && words[w]; w++)
		free(words[w]);
	free(words);
}

/* "A n=1000": point i of side k's name, for the messages. */
static void entrant_name(const struct scan_run *sr, int i, int k, char *buf, size_t len)
{
	char pname[256];

	point_name(sr->s, i, pname, sizeof(pname));
	snprintf(buf, len, "%s%s%s", sr->names[k] ? sr->names[k] : "", sr->names[k] ? " " : "",
		 pname);
}

/* Point i of side k as an entrant: its command with {NAME} put in, or the workload's
 * iterations; its own helpers with {NAME} put in. */
static int add_point(struct scan_run *sr, int i, int k)
{
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	char **words = NULL, **hw[3] = { NULL, NULL, NULL };
	char name[320];
	int err = -ENOMEM;

	entrant_name(sr, i, k, name, sizeof(name));
	for (int h = 0; h < 3; h++)
		if (sr->helper[h] && !(hw[h] = point_words(sr->s, i, sr->helper[h])))
			goto nomem;
	e.target_sem_pct = sr->target_sem_pct;
	e.max_time_s = sr->max_time_s;
	e.setup = hw[0];
	e.prerun = hw[1];
	e.cleanup = hw[2];
	if (sr->argv[k]) {
		if (!(e.argv = words = point_words(sr->s, i, sr->argv[k])))
			goto nomem;
	} else {
		double v = value_at(sr->s, i, 0);

		e.workload = sr->workload;
		if (!whole(v) || v < 1) {
			cli_error("--iterations %.15g (%s): the workload's iterations are whole "
				  "numbers from 1", v, name);
			err = -EINVAL;
			goto out;
		}
		e.iterations = (uint64_t)v;
	}
	err = pbench_scan_add(sr->scan, i, k, &e);
	if (err < 0)
		cli_error("%s: %s", name, pbench_strerror(err));
	goto out;
nomem:
	cli_error("out of memory");
out:
	free_words(words);
	for (int h = 0; h < 3; h++)
		free_words(hw[h]);
	return err < 0 ? -1 : 0;
}

/* The library's scan made, its parameters and points added: 0, or the exit code. */
static int scan_make(struct scan_run *sr, const struct pbench_contest_opts *co)
{
	struct pbench_scan_opts so = PBENCH_SCAN_OPTS_INIT;
	int err;

	so.contest = co;
	so.nr_sides = sr->nsides;
	so.side_names = sr->names;
	so.bytes_param = sr->s->bytes;
	if (sr->s->bytes && (sr->s->np != 1 || strcmp(sr->s->p[0].name, sr->s->bytes))) {
		cli_error("--scan-bytes %s: the one parameter scanned (-P or -L) in bytes, "
			  "its name", sr->s->bytes);
		return EXIT_USAGE;
	}
	if ((err = pbench_scan_new(&sr->scan, &so))) {
		cli_error("%s", pbench_strerror(err));
		return cli_event_error(err) || err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	for (int k = 0; k < sr->s->np; k++)
		if ((err = pbench_scan_add_param(sr->scan, sr->s->p[k].name, sr->s->p[k].v,
						 sr->s->p[k].nv)) < 0) {
			cli_error("%s", pbench_strerror(err));
			return EXIT_USAGE;
		}
	for (int i = 0; i < sr->s->npoints; i++)
		for (int k = 0; k < sr->nsides; k++)
			if (add_point(sr, i, k))
				return EXIT_USAGE;
	return 0;
}

static int scan_write(void *arg, int fmt, FILE *f)
{
	const struct scan_run *sr = arg;

	if (fmt == CLI_FMT_PLOT && sr->s->np != 1) {
		cli_error("--plot draws a scan of one parameter");
		return -1;
	}
	return pbench_scan_write(sr->scan, fmt, f);
}

/* Each finding once: the points share a CPU and a command, and often the same words. */
static int scan_outcome(const struct scan_run *sr, int err, int rc)
{
	const struct pbench_contest *c = pbench_scan_contest(sr->scan);
	char why[640], said[640] = "";
	int kind;

	for (int k = 0; (kind = pbench_contest_outcome(c, err == -EINTR || *cli_stop ?
						       PBENCH_OUTCOME_INTERRUPTED : 0, -1, k, why,
						       sizeof(why))) > 0; k++) {
		if (k && !strcmp(why, said))
			continue;
		snprintf(said, sizeof(said), "%s", why);
		rc = cli_outcome(kind, why) ? EXIT_RUNTIME : rc;
	}
	return rc;
}

static int scan_measure(struct scan_run *sr, struct pbench_contest_opts co, struct cli_out *out)
{
	struct cli_progress prog = { sr->nsides > 1 ? "compare" : "stat", cli_term_color(stderr),
				     0 };
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	char why[640];
	int err, rc;

	scan_flags(&co);
	point_helpers(sr, &co);
	if (isatty(STDERR_FILENO)) {
		co.progress = scan_progress;
		co.progress_arg = &prog;
	}
	if ((rc = scan_make(sr, &co)))
		return rc;
	fflush(stdout);
	err = pbench_scan_run(sr->scan);
	snprintf(why, sizeof(why), "%s", pbench_strerror(err));
	pbench_contest_info(pbench_scan_contest(sr->scan), &ci);
	if ((err && err != -EINTR) || (err == -EINTR && !ci.rounds)) {
		cli_error("%s", err == -EINTR ? "interrupted before the first round" : why);
		return EXIT_RUNTIME;
	}
	for (int k = 0; sr->s->np == 1 && k < sr->nsides; k++) {
		struct pbench_fit fit = { .size = sizeof(fit) };
		int ferr = pbench_scan_fit(sr->scan, k, &fit);

		if (ferr)
			cli_warn("no fit: %s", pbench_strerror(ferr));
	}
	rc = cli_out_write(out, scan_write, sr);
	return scan_outcome(sr, err, rc);
}

int cli_scan_stat(struct cli_scan *s, const struct pbench_runs_opts *ro, struct cli_run *run,
		  struct cli_out *out)
{
	struct pbench_contest_opts co = PBENCH_CONTEST_OPTS_INIT;
	struct scan_run sr = { .s = s, .nsides = 1 };
	int rc;

	if (expand(s, ro->argv, run))
		return EXIT_USAGE;
	if (ro->mode == PBENCH_RUNS_CONTRAST) {
		cli_error("a scan runs one mode: --mode prepared or unprepared, not contrast");
		return EXIT_USAGE;
	}
	if (ro->interval_ms > 0 || run->memory_runs) {
		cli_error("-I and --memory are not yet for a scan: -r N runs at every point (or "
			  "--target-sem)");
		return EXIT_USAGE;
	}
	if ((rc = cli_run_helpers(run, 0, 1)))
		return rc;
	sr.argv[0] = ro->argv;
	sr.workload = ro->workload;
	/* each point stops on its own: its SEM at --target-sem (at most -r runs), its runs'
	 * time at --max-time; the others go on */
	sr.target_sem_pct = ro->target_sem_pct;
	sr.max_time_s = ro->max_time_s > 0 ? ro->max_time_s : 0;
	contest_opts(&sr, ro, run, &co);
	if (sr.target_sem_pct > 0)
		co.min_rounds = 2;
	rc = cli_out_open(out);
	if (!rc)
		rc = cli_out_close(out, 1, scan_measure(&sr, co, out));
	pbench_scan_free(sr.scan);
	return rc;
}

int cli_scan_compare(struct cli_scan *s, const struct pbench_contest_opts *co, char **argv[],
		     int nsides, const char *const *names, const char *const *lines,
		     struct cli_run *run, struct cli_out *out)
{
	struct pbench_contest_opts sco = *co;
	struct scan_run sr = { .s = s, .nsides = nsides };
	int rc;

	for (int k = 0; k < nsides; k++)
		if (expand(s, argv[k], run))
			return EXIT_USAGE;
	if (!nsides || co->order == PBENCH_CONTEST_ORDER_DUET || run->memory_runs ||
	    s->npoints * nsides > CLI_SCAN_MAX_POINTS) {
		cli_error("a scan compares commands (not a baseline, a duet, the workloads or --memory),"
			  " at most %d runs of points in all", CLI_SCAN_MAX_POINTS);
		return EXIT_USAGE;
	}
	for (int k = 0; k < nsides; k++) {
		sr.argv[k] = argv[k];
		sr.names[k] = names[k] ? names[k] : lines[k];
	}
	if (co->confidence <= 0)
		sco.confidence = PBENCH_STATS_DEFAULT_CONFIDENCE;
	/* a fixed number of rounds: --max-runs when given, else 20; --max-time per point */
	sco.min_rounds = sco.max_rounds = co->max_rounds == PBENCH_CONTEST_DEFAULT_MAX_ROUNDS ?
					  20 : co->max_rounds;
	sco.max_time_s = run->max_time_s > 0 ? run->max_time_s * s->npoints : 0;
	rc = cli_out_open(out);
	if (!rc)
		rc = cli_out_close(out, 1, scan_measure(&sr, sco, out));
	pbench_scan_free(sr.scan);
	return rc;
}
