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
 * This file parses the options, lays the points out, runs the contest and writes the table of
 * the points, the fit in words, JSON, CSV, Markdown and the SVG of --plot (the writers are here
 * for now, not yet the library's).
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
		if (where == 2) {
			cli_error("{%s} in --setup, --prepare or --cleanup: a scan runs them once for "
				  "every point (not yet one per point)", s->p[i].name);
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

/* ---- the contest of the points ---------------------------------------------------------------- */

/* One command of the scan (stat: one; compare: each side), at every point. */
struct scan_side {
	const char *name;		/* compare's label of the side (stat: NULL) */
	char *const *argv;		/* NULL: the workload */
	struct pbench_summary sum[CLI_SCAN_MAX_POINTS];
	int have[CLI_SCAN_MAX_POINTS];
	struct pbench_fit fit;
	int fitted;			/* 1: one parameter, fit computed */
	/* sides after the first: its time over the first's at each point (geometric means,
	 * Welch on the logs), NaN when not measured */
	double ratio[CLI_SCAN_MAX_POINTS], ratio_lo[CLI_SCAN_MAX_POINTS],
	       ratio_hi[CLI_SCAN_MAX_POINTS];
};

struct scan_run {
	struct cli_scan *s;
	struct pbench_contest *c;
	struct pbench_contest_info ci;
	int nsides;
	struct scan_side side[CLI_RUN_MAX_SIDES];
	int workload;			/* without a command */
	double confidence;
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
	/* every point ro->runs times (-r), within --max-time per point if given */
	co->min_rounds = co->max_rounds = ro->runs;
	co->max_time_s = ro->max_time_s > 0 ? ro->max_time_s * sr->s->npoints : 0;
	co->confidence = sr->confidence;
	co->flags |= ro->flags & PBENCH_RUNS_REPROBE ? PBENCH_CONTEST_REPROBE : 0;
}

/* What every scan's contest has: the points compared to nothing (a fixed number of rounds),
 * their outputs not compared (each point does other work), stopped by Ctrl-C. */
static void scan_flags(struct pbench_contest_opts *co)
{
	co->flags |= PBENCH_CONTEST_SIGNALS | PBENCH_CONTEST_PRIORITY_CACHE |
		     PBENCH_CONTEST_NO_CHECK | PBENCH_CONTEST_FULL_BUDGET;
	co->reference = 0;
	co->stop = cli_stop;
	co->resumed = cli_stop_resumed();
	co->text_width = cli_term_width(stdout);
}

/* Point i of side k as an entrant: its command with {NAME} put in, or the workload's
 * iterations. Entrant i * nsides + k. */
static int add_point(struct scan_run *sr, int i, int k)
{
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	char *const *argv = sr->side[k].argv;
	char name[320], pname[256], **words = NULL;
	int n = 0, err;

	point_name(sr->s, i, pname, sizeof(pname));
	snprintf(name, sizeof(name), "%s%s%s", sr->side[k].name ? sr->side[k].name : "",
		 sr->side[k].name ? " " : "", pname);
	e.name = name;
	if (argv) {
		while (argv[n])
			n++;
		words = calloc(n + 1, sizeof(*words));
		for (int w = 0; words && w < n; w++)
			if (!(words[w] = substitute(sr->s, i, argv[w])))
				n = -1;
		if (!words || n < 0) {
			cli_error("out of memory");
			err = -ENOMEM;
			goto out;
		}
		e.argv = words;
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
	err = pbench_contest_add(sr->c, &e);
	if (err < 0)
		cli_error("%s: %s", name, pbench_strerror(err));
out:
	for (int w = 0; words && w < n; w++)
		free(words[w]);
	free(words);
	return err < 0 ? -1 : 0;
}

/* Side b's time over side a's at entrant pair (ia, ib): Welch on the logs of the runs. */
static void ratio_at(struct scan_run *sr, int ia, int ib, double *r, double *lo, double *hi)
{
	const struct pbench_runs *ra = pbench_contest_runs(sr->c, ia), *rb = pbench_contest_runs(sr->c, ib);
	double *a = calloc(2 * 10000, sizeof(double)), *b = a ? a + 10000 : NULL;
	struct pbench_stats_opts so = PBENCH_STATS_OPTS_INIT;
	struct pbench_welch w = { .size = sizeof(w) };
	size_t na = 0, nb = 0;

	*r = *lo = *hi = NAN;
	for (int j = 0; a && ra && na < 10000; j++) {
		struct pbench_run run = { .size = sizeof(run) };

		if (pbench_runs_get(ra, 0, j, &run))
			break;
		if (!run.timed_out && run.ns > 0)
			a[na++] = (double)run.ns;
	}
	for (int j = 0; b && rb && nb < 10000; j++) {
		struct pbench_run run = { .size = sizeof(run) };

		if (pbench_runs_get(rb, 0, j, &run))
			break;
		if (!run.timed_out && run.ns > 0)
			b[nb++] = (double)run.ns;
	}
	so.ci_level = sr->confidence;
	so.flags = PBENCH_STATS_LOG;
	if (a && !pbench_stats_welch(b, nb, a, na, &so, &w)) {
		*r = w.ratio;
		*lo = w.ratio_lo;
		*hi = w.ratio_hi;
	}
	free(a);
}

static void collect_side(struct scan_run *sr, int k)
{
	double x[CLI_SCAN_MAX_POINTS], y[CLI_SCAN_MAX_POINTS], sem[CLI_SCAN_MAX_POINTS];
	struct scan_side *sd = &sr->side[k];
	size_t m = 0;

	for (int i = 0; i < sr->s->npoints; i++) {
		sd->sum[i].size = sizeof(sd->sum[i]);
		sd->have[i] = !pbench_contest_summary(sr->c, i * sr->nsides + k, &sd->sum[i]);
		sd->ratio[i] = sd->ratio_lo[i] = sd->ratio_hi[i] = NAN;
		if (k)
			ratio_at(sr, i * sr->nsides, i * sr->nsides + k, &sd->ratio[i],
				 &sd->ratio_lo[i], &sd->ratio_hi[i]);
		if (!sd->have[i])
			continue;
		x[m] = value_at(sr->s, i, 0);
		y[m] = sd->sum[i].mean;
		sem[m++] = sd->sum[i].sem;
	}
	sd->fit.size = sizeof(sd->fit);
	sd->fitted = sr->s->np == 1 && !pbench_stats_fit(x, y, sem, m, sr->confidence, &sd->fit);
	if (sr->s->np == 1 && !sd->fitted)
		cli_warn("no fit: %s", pbench_strerror(-EINVAL));
}

static void collect(struct scan_run *sr)
{
	for (int k = 0; k < sr->nsides; k++)
		collect_side(sr, k);
}

static int scan_write(void *arg, int fmt, FILE *f);

static int scan_measure(struct scan_run *sr, struct pbench_contest_opts co, struct cli_out *out)
{
	struct cli_progress prog = { sr->nsides > 1 ? "compare" : "stat", cli_term_color(stderr),
				     0 };
	char why[640], said[640] = "";
	int err, rc = EXIT_OK, kind;

	scan_flags(&co);
	if (isatty(STDERR_FILENO)) {
		co.progress = scan_progress;
		co.progress_arg = &prog;
	}
	if ((err = pbench_contest_new(&sr->c, &co))) {
		cli_error("%s", pbench_strerror(err));
		return cli_event_error(err) || err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	for (int i = 0; i < sr->s->npoints; i++)
		for (int k = 0; k < sr->nsides; k++)
			if (add_point(sr, i, k))
				return EXIT_USAGE;
	fflush(stdout);
	err = pbench_contest_run(sr->c);
	snprintf(why, sizeof(why), "%s", pbench_strerror(err));
	sr->ci.size = sizeof(sr->ci);
	pbench_contest_info(sr->c, &sr->ci);
	if ((err && err != -EINTR) || (err == -EINTR && !sr->ci.rounds)) {
		cli_error("%s", err == -EINTR ? "interrupted before the first round" : why);
		return EXIT_RUNTIME;
	}
	collect(sr);
	rc = cli_out_write(out, scan_write, sr);
	/* each finding once: the points share a CPU and a command, and often the same words */
	for (int k = 0; (kind = pbench_contest_outcome(sr->c, err == -EINTR || *cli_stop ?
						       PBENCH_OUTCOME_INTERRUPTED : 0, -1, k, why,
						       sizeof(why))) > 0; k++) {
		if (k && !strcmp(why, said))
			continue;
		snprintf(said, sizeof(said), "%s", why);
		rc = cli_outcome(kind, why) ? EXIT_RUNTIME : rc;
	}
	return rc;
}

int cli_scan_stat(struct cli_scan *s, const struct pbench_runs_opts *ro, struct cli_run *run,
		  struct cli_out *out)
{
	struct pbench_contest_opts co = PBENCH_CONTEST_OPTS_INIT;
	struct scan_run *sr;
	int rc;

	if (expand(s, ro->argv, run))
		return EXIT_USAGE;
	if (ro->mode == PBENCH_RUNS_CONTRAST) {
		cli_error("a scan runs one mode: --mode prepared or unprepared, not contrast");
		return EXIT_USAGE;
	}
	if (ro->interval_ms > 0 || ro->target_sem_pct > 0 || run->memory_runs) {
		cli_error("-I, --target-sem and --memory are not yet for a scan: -r N runs at every "
			  "point");
		return EXIT_USAGE;
	}
	if ((rc = cli_run_helpers(run, 0, 1)))
		return rc;
	if (!(sr = calloc(1, sizeof(*sr)))) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	sr->s = s;
	sr->nsides = 1;
	sr->side[0].argv = ro->argv;
	sr->workload = ro->workload;
	sr->confidence = PBENCH_STATS_DEFAULT_CONFIDENCE;
	contest_opts(sr, ro, run, &co);
	rc = cli_out_open(out);
	if (!rc)
		rc = cli_out_close(out, 1, scan_measure(sr, co, out));
	pbench_contest_free(sr->c);
	free(sr);
	return rc;
}

/* ---- the reports ------------------------------------------------------------------------------ */

/* A time in ns for people: "12.1 ns", "1.02 ms"; under 1 ns in ns with 3 digits. */
static const char *fmt_ns(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "n/a");
	else if (fabs(ns) < 1)
		snprintf(buf, len, "%.3g ns", ns);
	else
		pbench_format_ns(buf, len, ns, 3);
	return buf;
}

/* "10^4" for a large ratio, "2.3" for a small one. */
static const char *fmt_ratio(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		snprintf(buf, len, "more than 10^300");
	else if (r >= 1000)
		snprintf(buf, len, "10^%d", (int)floor(log10(r)));
	else
		snprintf(buf, len, "%.3g", r);
	return buf;
}

/* "n log2 n", "n^2", "log2 n": what b multiplies, in words. */
static const char *g_words(const struct pbench_fit *f, int model, double k, char *buf, size_t len)
{
	const char *n = f ? "n" : "n";

	switch (model) {
	case PBENCH_FIT_MODEL_LOGN:	snprintf(buf, len, "log2 %s", n); break;
	case PBENCH_FIT_MODEL_NLOGN:	snprintf(buf, len, "%s log2 %s", n, n); break;
	case PBENCH_FIT_MODEL_NK:	snprintf(buf, len, "%s^%.3g", n, k); break;
	default:			snprintf(buf, len, "%s", pbench_fit_model_name(model));
	}
	return buf;
}

/* The fit in words, one paragraph (no newline at its end). */
/* "constant: 4.21 ms (99.9% interval ...)" or "12.1 ns x n log2 n + 1.02 ms (99.9% interval
 * of b ...)": the model's curve with its interval. */
static size_t curve_words(const struct pbench_fit *f, char *out, size_t len)
{
	char b[32], lo[32], hi[32], a[32], g[32];

	fmt_ns(a, sizeof(a), f->a);
	if (f->model == PBENCH_FIT_MODEL_1)
		return snprintf(out, len, "constant: %s (%.4g%% interval %s-%s)", a,
				100 * f->confidence, fmt_ns(lo, sizeof(lo), f->a_lo),
				fmt_ns(hi, sizeof(hi), f->a_hi));
	fmt_ns(b, sizeof(b), f->b);
	return snprintf(out, len, "%s x %s %s %s (%.4g%% interval of b %s-%s)", b,
			g_words(f, f->model, f->k, g, sizeof(g)), f->a < 0 ? "-" : "+",
			fmt_ns(a, sizeof(a), fabs(f->a)), 100 * f->confidence,
			fmt_ns(lo, sizeof(lo), f->b_lo), fmt_ns(hi, sizeof(hi), f->b_hi));
}

/* The fit in words, one paragraph (no newline at its end): what it grows as, or that the range
 * cannot tell (then the likeliest curve, and how wide a scan would tell). */
static void fit_words(const struct scan_run *sr, const struct scan_side *sd, char *out,
		      size_t len)
{
	const struct pbench_fit *f = &sd->fit;
	const struct cli_scan_param *p = &sr->s->p[0];
	const char *m = pbench_fit_model_name(f->model), *ru = pbench_fit_model_name(f->runner_up);
	char r[40], top[40], c[320];
	size_t at;

	if (f->model == PBENCH_FIT_MODEL_NONE) {
		snprintf(out, len, "fit: n/a: %s", f->reason);
		return;
	}
	fmt_ratio(r, sizeof(r), f->evidence_ratio);
	curve_words(f, c, sizeof(c));
	if (f->inconclusive) {
		snprintf(top, sizeof(top), "%.15g", f->range_needed);
		snprintf(out, len, "inconclusive between O(%s) and O(%s) over %s %.15g-%.15g: %s is "
			 "only %s times less likely; the likeliest, %s%s%s%s%s", m, ru, p->name,
			 p->v[0], p->v[p->nv - 1], ru, r, c,
			 isfinite(f->range_needed) ? "; a scan up to about " : "",
			 isfinite(f->range_needed) ? p->name : "",
			 isfinite(f->range_needed) ? " = " : "",
			 isfinite(f->range_needed) ? top : "");
		at = strlen(out);
		if (isfinite(f->range_needed) && at < len)
			snprintf(out + at, len - at, " would tell them apart");
		return;
	}
	if (f->model == PBENCH_FIT_MODEL_1) {
		snprintf(out, len, "%s; no growth told from the noise over %s %.15g-%.15g (the "
			 "runner-up, O(%s), has no b above 0 at %.4g%%)", c, p->name, p->v[0],
			 p->v[p->nv - 1], ru, 100 * f->confidence);
		return;
	}
	snprintf(out, len, "grows as %s: %s; %s is %s times less likely",
		 f->model == PBENCH_FIT_MODEL_NK ? "a power" : m, c, ru, r);
}

static void text_side(const struct scan_run *sr, const struct scan_side *sd, FILE *f)
{
	const struct cli_scan *s = sr->s;
	char m[32], lo[32], hi[32], line[1024];

	fprintf(f, "  %-24s %12s   %-28s %5s%s\n", "point", "mean", "interval of the mean", "runs",
		sd != sr->side ? "   over the first" : "");
	for (int i = 0; i < s->npoints; i++) {
		char name[256], iv[80];

		point_name(s, i, name, sizeof(name));
		if (!sd->have[i]) {
			fprintf(f, "  %-24s %12s\n", name, "n/a");
			continue;
		}
		snprintf(iv, sizeof(iv), "%s - %s (%.4g%%)", fmt_ns(lo, sizeof(lo), sd->sum[i].ci_lo),
			 fmt_ns(hi, sizeof(hi), sd->sum[i].ci_hi), 100 * sd->sum[i].ci_level);
		fprintf(f, "  %-24s %12s   %-28s %5zu", name, fmt_ns(m, sizeof(m), sd->sum[i].mean),
			iv, sd->sum[i].n);
		if (sd != sr->side && isfinite(sd->ratio[i]))
			fprintf(f, "   %.3fx (%.3f-%.3f)", sd->ratio[i], sd->ratio_lo[i],
				sd->ratio_hi[i]);
		fprintf(f, "\n");
	}
	if (!sd->fitted) {
		fprintf(f, "\nfit: %s\n", s->np == 1 ? "n/a" : "one parameter at a time (n/a with "
			"several)");
		return;
	}
	fit_words(sr, sd, line, sizeof(line));
	fprintf(f, "\n%s\n", line);
	if (sd->fit.model != PBENCH_FIT_MODEL_NONE)
		fprintf(f, "fit: residual %.3g%% of the mean, reduced chi-square %.3g, n^k's power "
			"%.3g (%.3g-%.3g), %zu points\n", sd->fit.residual_pct, sd->fit.chi2_red,
			sd->fit.k, sd->fit.k_lo, sd->fit.k_hi, sd->fit.n);
	if (sd->fit.chi2_red > 10)	/* Birge's ratio: no model's curve goes through the points */
		fprintf(f, "fit: the points stray from every curve %.3g times more than their runs "
			"vary (the reduced chi-square): a step, a drift or another cost, not a growth "
			"a model names\n", sd->fit.chi2_red);
}

static void write_text(const struct scan_run *sr, FILE *f)
{
	const struct cli_scan *s = sr->s;

	int seq = sr->ci.order == PBENCH_CONTEST_ORDER_SEQUENTIAL;

	fprintf(f, "scan of %s: %d points%s, %ld rounds, the %s %s (seed %llu), %.1f s\n",
		s->np == 1 ? s->p[0].name : "several parameters", s->npoints,
		sr->nsides > 1 ? " for each command" : "", sr->ci.rounds,
		sr->nsides > 1 ? "commands at every point" : "points",
		seq ? "one after the other (--order sequential: a drift bends the curve)" :
		"in a fresh random order each round", (unsigned long long)sr->ci.seed,
		sr->ci.elapsed_s);
	for (int k = 0; k < sr->nsides; k++) {
		if (sr->nsides > 1)
			fprintf(f, "\n%s:", sr->side[k].name);
		fprintf(f, "\n");
		text_side(sr, &sr->side[k], f);
	}
}

static void json_num(FILE *f, const char *key, double v, int comma)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.10g%s", key, v, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json_fit(const struct scan_run *sr, const struct scan_side *sd, FILE *f)
{
	const struct pbench_fit *x = &sd->fit;
	char words[1024];

	if (!sd->fitted) {
		fprintf(f, "  \"fit\": null\n");
		return;
	}
	fit_words(sr, sd, words, sizeof(words));
	fprintf(f, "  \"fit\": {\"model\": ");
	json_str(f, pbench_fit_model_name(x->model));
	fprintf(f, ", \"runner_up\": ");
	json_str(f, pbench_fit_model_name(x->runner_up));
	fprintf(f, ", \"inconclusive\": %s, ", x->inconclusive ? "true" : "false");
	json_num(f, "confidence", x->confidence, 1);
	json_num(f, "a_ns", x->a, 1);
	json_num(f, "a_lo_ns", x->a_lo, 1);
	json_num(f, "a_hi_ns", x->a_hi, 1);
	json_num(f, "b_ns", x->b, 1);
	json_num(f, "b_lo_ns", x->b_lo, 1);
	json_num(f, "b_hi_ns", x->b_hi, 1);
	json_num(f, "k", x->k, 1);
	json_num(f, "k_lo", x->k_lo, 1);
	json_num(f, "k_hi", x->k_hi, 1);
	json_num(f, "aicc", x->aicc, 1);
	json_num(f, "evidence_ratio", x->evidence_ratio, 1);
	json_num(f, "residual_pct", x->residual_pct, 1);
	json_num(f, "chi2_red", x->chi2_red, 1);
	json_num(f, "range_needed", x->range_needed, 1);
	fprintf(f, "\"reason\": ");
	if (x->reason)
		json_str(f, x->reason);
	else
		fprintf(f, "null");
	fprintf(f, ", \"words\": ");
	json_str(f, words);
	fprintf(f, "}\n");
}

/* The points of side sd and its fit: "points": [...], "fit": {...} */
static void json_side(const struct scan_run *sr, const struct scan_side *sd, FILE *f)
{
	const struct cli_scan *s = sr->s;

	fprintf(f, "  \"points\": [\n");
	for (int i = 0; i < s->npoints; i++) {
		const struct pbench_summary *m = &sd->sum[i];

		fprintf(f, "    {\"values\": {");
		for (int k = 0; k < s->np; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_str(f, s->p[k].name);
			fprintf(f, ": %.15g", value_at(s, i, k));
		}
		fprintf(f, "}, \"runs\": %zu, ", sd->have[i] ? m->n : 0);
		json_num(f, "mean_ns", sd->have[i] ? m->mean : NAN, 1);
		json_num(f, "median_ns", sd->have[i] ? m->median : NAN, 1);
		json_num(f, "sem_ns", sd->have[i] ? m->sem : NAN, 1);
		json_num(f, "ci_lo_ns", sd->have[i] ? m->ci_lo : NAN, 1);
		json_num(f, "ci_hi_ns", sd->have[i] ? m->ci_hi : NAN, 1);
		json_num(f, "ci_level", sd->have[i] ? m->ci_level : NAN, 1);
		if (sd != sr->side) {
			json_num(f, "ratio", sd->ratio[i], 1);
			json_num(f, "ratio_lo", sd->ratio_lo[i], 1);
			json_num(f, "ratio_hi", sd->ratio_hi[i], 1);
		}
		fprintf(f, "\"outliers\": %zu}%s\n", sd->have[i] ? m->outliers_low_mild +
			m->outliers_low_severe + m->outliers_high_mild + m->outliers_high_severe : 0,
			i + 1 < s->npoints ? "," : "");
	}
	fprintf(f, "  ],\n");
	write_json_fit(sr, sd, f);
}

/* One parameter set's document: "points" and "fit" at the top (stat), or one object of
 * each in "sides" (compare: the first is the one the ratios are over). */
static void write_json(const struct scan_run *sr, FILE *f)
{
	const struct cli_scan *s = sr->s;

	fprintf(f, "{\n  \"schema\": %d, \"pbench_version\": ", PBENCH_JSON_SCHEMA);
	json_str(f, pbench_version());
	fprintf(f, ", \"document\": \"scan\",\n  \"parameters\": [");
	for (int k = 0; k < s->np; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, s->p[k].name);
	}
	fprintf(f, "],\n  \"rounds\": %ld, \"seed\": %llu, \"order\": \"%s\", "
		"\"confidence\": %g,\n", sr->ci.rounds, (unsigned long long)sr->ci.seed,
		pbench_contest_order_name(sr->ci.order), sr->confidence);
	if (sr->nsides == 1) {
		json_side(sr, sr->side, f);
	} else {
		fprintf(f, "  \"sides\": [\n");
		for (int k = 0; k < sr->nsides; k++) {
			fprintf(f, "  {\"name\": ");
			json_str(f, sr->side[k].name);
			fprintf(f, ",\n");
			json_side(sr, &sr->side[k], f);
			fprintf(f, "  }%s\n", k + 1 < sr->nsides ? "," : "");
		}
		fprintf(f, "  ]\n");
	}
	fprintf(f, "}\n");
}

static void write_table(const struct scan_run *sr, FILE *f, int md)
{
	const struct cli_scan *s = sr->s;
	const char *sep = md ? " | " : ",";
	int cmd = sr->nsides > 1;

	fprintf(f, "%s%s", md ? "| " : "", cmd ? "command" : "");
	fprintf(f, "%s", cmd ? sep : "");
	for (int k = 0; k < s->np; k++)
		fprintf(f, "%s%s", s->p[k].name, sep);
	fprintf(f, "mean_ns%smedian_ns%ssem_ns%sci_lo_ns%sci_hi_ns%sruns%s\n", sep, sep, sep, sep,
		sep, md ? " |" : "");
	for (int k = 0; md && k < s->np + 6 + cmd; k++)
		fprintf(f, "|---%s", k + 1 == s->np + 6 + cmd ? "|\n" : "");
	for (int k = 0; k < sr->nsides; k++) {
		const struct scan_side *sd = &sr->side[k];

		for (int i = 0; i < s->npoints; i++) {
			const struct pbench_summary *m = &sd->sum[i];
			const char *na = md ? "n/a" : "";

			fprintf(f, "%s", md ? "| " : "");
			if (cmd)
				fprintf(f, "%s%s", sd->name, sep);
			for (int p = 0; p < s->np; p++)
				fprintf(f, "%.15g%s", value_at(s, i, p), sep);
			if (sd->have[i])
				fprintf(f, "%.6g%s%.6g%s%.4g%s%.6g%s%.6g%s%zu%s\n", m->mean, sep,
					m->median, sep, m->sem, sep, m->ci_lo, sep, m->ci_hi, sep, m->n,
					md ? " |" : "");
			else
				fprintf(f, "%s%s%s%s%s%s%s%s%s%s0%s\n", na, sep, na, sep, na, sep, na, sep,
					na, sep, md ? " |" : "");
		}
	}
	for (int k = 0; md && k < sr->nsides; k++) {
		char words[1024];

		if (!sr->side[k].fitted)
			continue;
		fit_words(sr, &sr->side[k], words, sizeof(words));
		fprintf(f, "\n%s%s%s\n", cmd ? sr->side[k].name : "", cmd ? ": " : "", words);
	}
}

/* ---- --plot: time against the parameter ---------------------------------------------------- */

#define PW 720
#define PH 440
#define ML 80
#define MR 20
#define MT 40
#define MB 50

struct axis {
	double lo, hi;
	int log;
	int from, to;		/* pixels */
};

static double to_px(const struct axis *a, double v)
{
	double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) :
		   (v - a->lo) / (a->hi - a->lo);

	return a->from + t * (a->to - a->from);
}

static void axis_set(struct axis *a, double lo, double hi, int from, int to)
{
	a->log = lo > 0 && hi / lo >= 8;
	if (!a->log) {
		double pad = (hi - lo) * 0.05 + (hi == lo ? fabs(hi) * 0.1 + 1 : 0);

		lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
		hi += pad;
	} else {
		lo /= 1.2;
		hi *= 1.2;
	}
	a->lo = lo;
	a->hi = hi;
	a->from = from;
	a->to = to;
}

/* Ticks: decades on a log axis, 5 steps on a linear one. */
static void ticks(FILE *f, const struct axis *a, int vertical, int ns)
{
	double v[12];
	int n = 0;
	char t[32];

	if (a->log) {	/* decades; 1, 2 and 5 of each when the axis spans fewer than 3 */
		for (double d = pow(10, floor(log10(a->lo))); d <= a->hi && n < 12; d *= 10)
			for (int m = 1; m <= 5 && n < 12; m += m == 1 ? 1 : 3)
				if ((m == 1 || a->hi / a->lo < 1000) && d * m >= a->lo && d * m <= a->hi)
					v[n++] = d * m;
	} else {	/* 1, 2 or 5 times a power of 10, about 5 of them */
		double raw = (a->hi - a->lo) / 5, p10 = pow(10, floor(log10(raw))), step;

		step = raw / p10 < 1.5 ? p10 : raw / p10 < 3.5 ? 2 * p10 : raw / p10 < 7.5 ? 5 * p10 :
		       10 * p10;
		for (double u = ceil(a->lo / step) * step; u <= a->hi && n < 12; u += step)
			v[n++] = u;
	}
	for (int i = 0; i < n; i++) {
		double p = to_px(a, v[i]);

		if (ns)
			fmt_ns(t, sizeof(t), v[i]);
		else
			snprintf(t, sizeof(t), "%.4g", v[i]);
		if (vertical)
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
				"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n",
				ML, p, PW - MR, p, ML - 6, p + 4, t);
		else
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
				"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n",
				p, MT, p, PH - MB, p, PH - MB + 16, t);
	}
}

static void curve(FILE *f, const struct axis *ax, const struct axis *ay, int model, double k,
		  double a, double b, const char *style)
{
	fprintf(f, "<polyline fill=\"none\" %s points=\"", style);
	for (int i = 0; i <= 100; i++) {
		double x = ax->log ? ax->lo * pow(ax->hi / ax->lo, i / 100.0) :
			   ax->lo + (ax->hi - ax->lo) * i / 100.0, y;

		if (x <= 0)
			continue;
		y = pbench_fit_eval(model, k, a, b, x);
		if (!isfinite(y) || (ay->log && y <= 0))
			continue;
		if (y < ay->lo || y > ay->hi)	/* off the plot: not drawn */
			continue;
		fprintf(f, "%.1f,%.1f ", to_px(ax, x), to_px(ay, y));
	}
	fprintf(f, "\"/>\n");
}

static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
				       "#e377c2", "#7f7f7f", "#17becf" };

/* Side k's points with their intervals, its fit and (one side only) the runner-up. */
static void svg_side(const struct scan_run *sr, int k, const struct axis *ax,
		     const struct axis *ay, FILE *f)
{
	const struct scan_side *sd = &sr->side[k];
	const struct cli_scan *s = sr->s;
	char style[80];
	int y = MT + 14 + 14 * k * (sr->nsides > 1 ? 1 : 2);

	snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"2\"", colors[k]);
	if (sd->fitted && sd->fit.model != PBENCH_FIT_MODEL_NONE) {
		curve(f, ax, ay, sd->fit.model, sd->fit.k, sd->fit.a, sd->fit.b, style);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">", ML + 10, y,
			colors[k]);
		if (sd->name)
			fprintf(f, "%s: ", sd->name);
		fprintf(f, "fit O(%s)</text>\n", pbench_fit_model_name(sd->fit.model));
		if (sr->nsides == 1) {
			curve(f, ax, ay, sd->fit.runner_up, sd->fit.runner_k, sd->fit.runner_a,
			      sd->fit.runner_b, "stroke=\"#d62728\" stroke-dasharray=\"5,4\"");
			fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#d62728\">"
				"runner-up: O(%s)</text>\n", ML + 10, y + 14,
				pbench_fit_model_name(sd->fit.runner_up));
		}
	}
	for (int i = 0; i < s->npoints; i++) {
		double x, y0, y1;

		if (!sd->have[i])
			continue;
		x = to_px(ax, value_at(s, i, 0));
		y0 = to_px(ay, fmax(sd->sum[i].ci_lo, ay->lo));
		y1 = to_px(ay, sd->sum[i].ci_hi);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s=%.15g: %.6g ns"
			"</title></circle>\n", x, y0, x, y1, x, to_px(ay, sd->sum[i].mean), colors[k],
			s->p[0].name, value_at(s, i, 0), sd->sum[i].mean);
	}
}

static void write_svg(const struct scan_run *sr, FILE *f)
{
	const struct cli_scan *s = sr->s;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	struct axis ax, ay;
	char words[1024] = "", esc[2048];
	size_t e = 0;

	for (int k = 0; k < sr->nsides; k++)
		for (int i = 0; i < s->npoints; i++) {
			if (!sr->side[k].have[i])
				continue;
			xlo = fmin(xlo, value_at(s, i, 0));
			xhi = fmax(xhi, value_at(s, i, 0));
			ylo = fmin(ylo, sr->side[k].sum[i].ci_lo);
			yhi = fmax(yhi, sr->side[k].sum[i].ci_hi);
		}
	if (!isfinite(xlo))
		xlo = 1, xhi = 2, ylo = 1, yhi = 2;
	axis_set(&ax, xlo, xhi, ML, PW - MR);
	axis_set(&ay, ylo > 0 ? ylo : 0, yhi, PH - MB, MT);
	if (sr->nsides == 1 && sr->side[0].fitted)
		fit_words(sr, sr->side, words, sizeof(words));
	for (const char *c = words; *c && e + 8 < sizeof(esc); c++)
		e += *c == '<' ? (size_t)snprintf(esc + e, 5, "&lt;") : *c == '&' ?
		     (size_t)snprintf(esc + e, 6, "&amp;") : (esc[e] = *c, 1);
	esc[e] = 0;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/"
		"svg\" version=\"1.1\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"18\" font-size=\"13\">time against %s (%s x, %s y)</text>\n"
		"<text x=\"%d\" y=\"32\" font-size=\"10\">%.150s</text>\n", PW, PH, ML,
		s->p[0].name, ax.log ? "log" : "linear", ay.log ? "log" : "linear", ML, esc);
	ticks(f, &ax, 0, 0);
	ticks(f, &ay, 1, 1);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n",
		(ML + PW - MR) / 2, PH - 12, s->p[0].name);
	for (int k = 0; k < sr->nsides; k++)
		svg_side(sr, k, &ax, &ay, f);
	fprintf(f, "</svg>\n");
}

static int scan_write(void *arg, int fmt, FILE *f)
{
	const struct scan_run *sr = arg;

	switch (fmt) {
	case CLI_FMT_JSON:	write_json(sr, f); break;
	case CLI_FMT_CSV:	write_table(sr, f, 0); break;
	case CLI_FMT_MARKDOWN:	write_table(sr, f, 1); break;
	case CLI_FMT_PLOT:
		if (sr->s->np != 1) {
			cli_error("--plot draws a scan of one parameter");
			return -1;
		}
		write_svg(sr, f);
		break;
	default:		write_text(sr, f);
	}
	return ferror(f) ? -EIO : 0;
}

int cli_scan_compare(struct cli_scan *s, const struct pbench_contest_opts *co, char **argv[],
		     int nsides, const char *const *names, const char *const *lines,
		     struct cli_run *run, struct cli_out *out)
{
	struct pbench_contest_opts sco = *co;
	struct scan_run *sr;
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
	if (!(sr = calloc(1, sizeof(*sr)))) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	sr->s = s;
	sr->nsides = nsides;
	for (int k = 0; k < nsides; k++) {
		sr->side[k].argv = argv[k];
		sr->side[k].name = names[k] ? names[k] : lines[k];
	}
	sr->confidence = co->confidence > 0 ? co->confidence : PBENCH_STATS_DEFAULT_CONFIDENCE;
	/* a fixed number of rounds: --max-runs when given, else 20; --max-time per point */
	sco.min_rounds = sco.max_rounds = co->max_rounds == PBENCH_CONTEST_DEFAULT_MAX_ROUNDS ?
					  20 : co->max_rounds;
	sco.max_time_s = run->max_time_s > 0 ? run->max_time_s * s->npoints : 0;
	rc = cli_out_open(out);
	if (!rc)
		rc = cli_out_close(out, 1, scan_measure(sr, sco, out));
	pbench_contest_free(sr->c);
	free(sr);
	return rc;
}
