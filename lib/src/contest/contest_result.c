/* SPDX-License-Identifier: MIT */
/*
 * What a contest found (contest.c has the object and the test): each entrant against the
 * reference, the verdict in words, the events compared, the regression gate, and the getters.
 * Ratios are said as people act on them, "1.23x faster" or "1.12x slower", never as a
 * percentage above 100.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"
#include "stats/samples.h"
#include "counters/counters.h"
#include "measure/measure.h"
#include "runs/runs.h"
#include "contest/contest.h"

static const struct pb_entrant *at(const struct pbench_contest *c, int i)
{
	return c && i >= 0 && i < c->n ? &c->e[i] : NULL;
}

int pbench_contest_info(const struct pbench_contest *c, struct pbench_contest_info *out)
{
	struct pbench_contest_info x = { 0 };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_contest_info, 0, NULL)))
		return err;
	if (!c)
		return pb_fail(-EINVAL, "%s(): c is NULL", __func__);
	x.size = out->size;
	x.order = c->o.order;
	x.mode = c->o.mode;
	x.nr_entrants = c->n;
	x.reference = c->o.reference;
	x.rounds = c->rounds;
	x.elapsed_s = c->elapsed_s;
	x.stop = c->stop;
	x.confidence = c->o.confidence;
	x.look_confidence = c->look_level;
	x.same_pct = c->o.same_pct;
	x.checked = c->checked;
	x.seed = c->o.seed;
	x.duet_cpus[0] = c->duet_cpus[0];
	x.duet_cpus[1] = c->duet_cpus[1];
	x.nr_events = c->n && c->e[0].r ? pbench_runs_nr_events(c->e[0].r) : 0;
	for (int i = 0; !x.nr_events && i < c->n; i++)
		x.nr_events = c->e[i].r ? pbench_runs_nr_events(c->e[i].r) : 0;
	pb_copy_out(out, &x, sizeof(x));
	return 0;
}

int pbench_contest_result(const struct pbench_contest *c, int i,
			  struct pbench_contest_result *out)
{
	const struct pb_entrant *e = at(c, i);
	struct pbench_contest_result x = { 0 };
	int ref, err;

	if ((err = PB_CHECK_STRUCT(out, pbench_contest_result, 0, NULL)))
		return err;
	if (!e)
		return pb_fail(-EINVAL, "%s(): no entrant %d", __func__, i);
	ref = i == c->o.reference;
	x.size = out->size;
	x.name = e->name;
	x.stored = !e->r;
	x.runs = e->set ? pb_runs_set_done(e->set) : (long)(c->metric ? e->mn : e->n);
	x.failed = e->set ? pb_runs_set_failed(e->set) : 0;
	x.verdict = ref ? 0 : e->verdict ? e->verdict : PBENCH_VERDICT_UNDECIDED;
	x.ratio = ref ? 1 : e->have_w ? e->w.ratio : NAN;
	x.ratio_lo = ref || !e->have_w ? NAN : e->w.ratio_lo;
	x.ratio_hi = ref || !e->have_w ? NAN : e->w.ratio_hi;
	x.p = ref || !e->have_w ? NAN : e->w.p;
	x.p_same = ref ? NAN : e->p_same;
	x.decided_round = e->decided_round;
	x.decided_s = e->decided_round ? e->decided_s : NAN;
	x.need_s = ref ? NAN : e->need_s;
	x.nr_looks = (int)e->nlooks;
	x.checked = e->checked;
	x.check_exited = e->exited;
	x.check_exit_status = e->exit_status;
	x.check_signaled = e->signaled;
	x.check_term_signal = e->term_signal;
	x.check_stdout_bytes = e->bytes;
	x.check_stdout_hash = e->hash;
	pb_copy_out(out, &x, sizeof(x));
	return 0;
}

int pbench_contest_entrant_stop(const struct pbench_contest *c, int i)
{
	const struct pb_entrant *e = at(c, i);

	return e ? e->own_stop : pb_fail(-EINVAL, "%s(): no entrant %d", __func__, i);
}

int pbench_contest_summary(const struct pbench_contest *c, int i, struct pbench_summary *ns)
{
	const struct pb_entrant *e = at(c, i);
	struct pbench_summary s = { .size = sizeof(s) };
	int err;

	if ((err = PB_CHECK_STRUCT(ns, pbench_summary, 0, NULL)))
		return err;
	if (!e)
		return pb_fail(-EINVAL, "%s(): no entrant %d", __func__, i);
	if (!e->n)
		return -ENODATA;
	err = pbench_stats_summary(e->x, e->n, NULL, &s);
	if (err)
		return err;
	pb_copy_out(ns, &s, sizeof(s));
	return 0;
}

const struct pbench_runs *pbench_contest_runs(const struct pbench_contest *c, int i)
{
	const struct pb_entrant *e = at(c, i);

	return e ? e->r : NULL;
}

int pbench_contest_look(const struct pbench_contest *c, int i, int k,
			struct pbench_contest_look *out)
{
	const struct pb_entrant *e = at(c, i);
	struct pbench_contest_look x = { 0 };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_contest_look, 0, NULL)))
		return err;
	if (!e || k < 0 || (size_t)k >= e->nlooks)
		return pb_fail(-EINVAL, "%s(): no look %d of entrant %d", __func__, k, i);
	x.size = out->size;
	x.round = e->looks[k].round;
	x.elapsed_s = e->looks[k].elapsed_s;
	x.ratio = e->looks[k].ratio;
	x.ratio_lo = e->looks[k].lo;
	x.ratio_hi = e->looks[k].hi;
	pb_copy_out(out, &x, sizeof(x));
	return 0;
}

/* ---- in words ------------------------------------------------------------------------------- */

/* A ratio of 1 or more with the digits that tell 1.01 from 1.00. */
/* A ratio or a bound of its interval: three decimals near 1; the order of magnitude where a
 * few rounds leave the interval that wide (at 99.9% with 2 rounds: 1e-34 to 4e33). */
void pb_contest_fmt_ratio(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		snprintf(buf, len, "n/a");
	else if (r > 0 && (r < 0.001 || r >= 1000))
		snprintf(buf, len, "%.2g", r);
	else
		snprintf(buf, len, r < 10 ? "%.3f" : r < 100 ? "%.2f" : "%.1f", r);
}
#define fmt_x pb_contest_fmt_ratio

/* An interval too wide to say anything: with two or three rounds at 99.9% its bounds are
 * beyond any ratio a run could have (1e-34 and 4e33, or past a double). */
int pb_contest_unbounded(double lo, double hi)
{
	return !(lo > 0) || !isfinite(hi) || hi / lo > 1e6;
}

/* "99.9%" for a level of 0.999. */
static void fmt_level(char *buf, size_t len, double level)
{
	snprintf(buf, len, "%.10g%%", level * 100);
}

/* ---- a metric's words (pbench_contest_opts.metric) ------------------------------------------- */

static void fmt_duration(char *buf, size_t len, double s);

/* A ratio on a metric: four decimals (exact counts tell 1.0100 from 1.0099). */
static void fmt_x4(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		snprintf(buf, len, "n/a");
	else if (r > 0 && (r < 0.001 || r >= 1000))
		snprintf(buf, len, "%.3g", r);
	else
		snprintf(buf, len, "%.4f", r);
}

/* "retires" for the instructions, "takes" for a time event, "counts" for another event, "has"
 * for a derived metric. */
static const char *metric_verb(const struct pbench_contest *c)
{
	if (!strncmp(c->metric, "instructions", 12) || !strncasecmp(c->metric, "inst_retired", 12))
		return "retires";
	if (!strncmp(c->metric, "task-clock", 10) || !strncmp(c->metric, "cpu-clock", 9))
		return "takes";
	return pb_metric_find(c->metric) >= 0 ? "has" : "counts";
}

/* Which side of 1 is worse: higher for a cost (the time, counts, misses), lower for ipc. */
static const char *metric_judgement(const struct pbench_contest *c, double r)
{
	int higher = r > 1;

	return higher == !c->higher_better ? (higher ? "higher: worse" : "lower: worse") :
	       (higher ? "higher: better" : "lower: better");
}

/* The verdict on a metric: "b retires 1.0100x the instructions:u of a (99.9% interval
 * 1.0100-1.0100), higher: worse, decided after 10 rounds in 0.4 s"; the same or undecided
 * likewise. The ratio is always b's over a's, never turned into a speed-up. */
static void metric_verdict(const struct pbench_contest *c, int i, char *buf, size_t len)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	char r[32], a[32], b[32], lv[32], need[64], iv[128];

	snprintf(lv, sizeof(lv), "%.10g%%", c->o.confidence * 100);
	fmt_x4(r, sizeof(r), e->w.ratio);
	fmt_x4(a, sizeof(a), e->w.ratio_lo);
	fmt_x4(b, sizeof(b), e->w.ratio_hi);
	if (e->have_w && pb_contest_unbounded(e->w.ratio_lo, e->w.ratio_hi))
		snprintf(iv, sizeof(iv), "no %s interval can be bounded from %ld rounds", lv,
			 c->rounds);
	else
		snprintf(iv, sizeof(iv), "%s interval %s-%s", lv, a, b);
	if (!e->have_w) {
		snprintf(buf, len, "undecided: %s and %s have too few runs with %s to compare "
			 "(%ld rounds)", e->name, ref->name, c->metric, c->rounds);
	} else if (e->verdict == PBENCH_VERDICT_SAME) {
		snprintf(buf, len, "%s and %s have the same %s within %.3g%% (%s interval of the ratio "
			 "%s-%s), decided after %ld rounds in %.1f s", e->name, ref->name,
			 c->metric, c->o.same_pct, lv, a, b, e->decided_round, e->decided_s);
	} else if (e->verdict == PBENCH_VERDICT_FASTER || e->verdict == PBENCH_VERDICT_SLOWER) {
		snprintf(buf, len, "%s %s %sx the %s of %s (%s), %s, decided after %ld rounds in "
			 "%.1f s", e->name, metric_verb(c), r, c->metric, ref->name, iv,
			 metric_judgement(c, e->w.ratio), e->decided_round, e->decided_s);
	} else {
		fmt_duration(need, sizeof(need), e->need_s);
		snprintf(buf, len, "undecided: %s %s %sx the %s of %s (%s) after %ld rounds in "
			 "%.1f s; at this difference a verdict would likely take %s%s", e->name,
			 metric_verb(c), r, c->metric, ref->name, iv, c->rounds, c->elapsed_s, need,
			 isfinite(e->need_s) ? " more" : "");
	}
}

void pb_contest_ratio_words(const struct pbench_contest *c, int i, char *words, size_t wlen,
			    char *interval, size_t ilen)
{
	const struct pb_entrant *e = &c->e[i];
	double r = e->w.ratio, lo = e->w.ratio_lo, hi = e->w.ratio_hi;
	char a[32], b[32], x[32], lv[32];

	fmt_level(lv, sizeof(lv), c->o.confidence);
	if (!e->have_w) {
		snprintf(words, wlen, "n/a");
		snprintf(interval, ilen, "(too few runs for an interval)");
		return;
	}
	if (r < 1) {	/* faster: the speed-up and its interval, 1 / the ratio's */
		fmt_x(x, sizeof(x), 1 / r);
		fmt_x(a, sizeof(a), 1 / hi);
		fmt_x(b, sizeof(b), 1 / lo);
	} else {
		fmt_x(x, sizeof(x), r);
		fmt_x(a, sizeof(a), lo);
		fmt_x(b, sizeof(b), hi);
	}
	snprintf(words, wlen, "%sx %s", x, r < 1 ? "faster" : "slower");
	if (pb_contest_unbounded(lo, hi))
		snprintf(interval, ilen, "(no %s interval can be bounded from %ld rounds)", lv,
			 c->rounds);
	else
		snprintf(interval, ilen, "(%s interval %s-%s)", lv, a, b);
}

static void fmt_duration(char *buf, size_t len, double s)
{
	if (!isfinite(s))
		snprintf(buf, len, "%s", isinf(s) ? "no end (no difference seen to size it)" : "n/a");
	else if (s < 120)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.0f days", s / 86400);
}

static void undecided_text(const struct pbench_contest *c, int i, char *buf, size_t len)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	char r[32], a[32], b[32], lv[32], need[64];

	if (!e->have_w) {
		snprintf(buf, len, "undecided: %s and %s have too few runs to compare (%ld "
			 "rounds)", e->name, ref->name, c->rounds);
		return;
	}
	fmt_level(lv, sizeof(lv), c->o.confidence);
	fmt_x(r, sizeof(r), e->w.ratio);
	fmt_x(a, sizeof(a), e->w.ratio_lo);
	fmt_x(b, sizeof(b), e->w.ratio_hi);
	fmt_duration(need, sizeof(need), e->need_s);
	if (pb_contest_unbounded(e->w.ratio_lo, e->w.ratio_hi))
		snprintf(buf, len, "undecided: %s takes %s times as long as %s after %ld rounds "
			 "in %.1f s, too few to bound a %s interval or to tell how many more a "
			 "verdict needs", e->name, r, ref->name, c->rounds, c->elapsed_s, lv);
	else
		snprintf(buf, len, "undecided: %s takes %s times as long as %s (%s interval "
			 "%s-%s) after %ld rounds in %.1f s; at this difference a verdict would "
			 "likely take %s%s", e->name, r, ref->name, lv, a, b, c->rounds,
			 c->elapsed_s, need, isfinite(e->need_s) ? " more" : "");
}

/* ---- against a stored baseline --------------------------------------------------------------- */

/* The gate's estimate against a stored reference, on times adjusted by the speed readings
 * (pb_contest_gate_factors()), what they were adjusted by in words, and the side the host's
 * issue throughput moved (a gate decided only where it cannot explain the shift). */
struct stored_est {
	struct pb_gate_est g;
	int side;
	char reading[400], note[300];
};

/* What the times were adjusted by: "each run's clock reading (today's clock at 0.62x of the
 * baseline's) and its throughput reading beyond the clock at 0.35 of its effect (...)". */
static void reading_words(char *buf, size_t len, const struct pb_gate_factors *f)
{
	size_t at = (size_t)snprintf(buf, len, "each run's clock reading (today's clock at %.2fx "
				     "of the baseline's", f->host_clk);

	if (at < len && f->share < 0.9)	/* only the time on a CPU scales */
		at += (size_t)snprintf(buf + at, len - at, ", on the %.0f%% of each run the command "
				       "was on a CPU", f->share * 100);
	if (at < len && f->follows)
		snprintf(buf + at, len - at, ") and its throughput reading beyond the clock at "
			 "%.2f of its effect, as this command's times follow it (the issue "
			 "throughput at %.2fx of the baseline's)", f->slope, f->host_thr);
	else if (at < len)
		snprintf(buf + at, len - at, ")");
}

static int stored_estimate(const struct pbench_contest *c, int i, struct stored_est *s)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	const struct pb_gate_drift d = { .sd = c->o.occasion_sd, .occasions = c->o.occasions,
					 .commits = c->o.occasion_commits };
	struct pb_gate_factors f;
	int err = pb_contest_gate_factors(c, i, &f);

	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	reading_words(s->reading, sizeof(s->reading), &f);
	err = pb_stats_gate_estimate(ref->x, f.base_f, ref->n, e->x, f.now_f, e->n,
				     c->o.confidence, PBENCH_STATS_GATE_RESIDUAL_PCT, &d, &s->g);
	s->g.host = f.host_clk;
	if (f.why_not && !s->g.adjusted)
		s->g.why_not = f.why_not;
	s->side = s->g.adjusted ? f.side : 0;
	if (s->side)
		snprintf(s->note, sizeof(s->note), "; the issue throughput available to this "
			 "thread was %.2fx the baseline's, and on this kind of machine that slows a "
			 "command by more than the reading says: %s is not concluded against it",
			 f.host_thr, s->side < 0 ? "a regression" : "no regression");
	pb_contest_gate_factors_free(&f);
	return err;
}

/* The gate's rule, undecided where the host's throughput could explain the shift. */
static int stored_rule(const struct stored_est *s, double pct)
{
	int rc = pb_stats_gate_decide(&s->g, pct);

	return (s->side < 0 && rc == 1) || (s->side > 0 && rc == 0) ? 2 : rc;
}

/* The gate against a stored reference in words, "NAME: ..." ("undecided: NAME: ..."). */
static int stored_gate(const struct pbench_contest *c, int i, double pct, char *why, size_t len)
{
	struct stored_est s;
	char g[2048];
	int rc, err = stored_estimate(c, i, &s);

	if (err)
		return err;
	rc = stored_rule(&s, pct);
	if (rc == 2 && pb_stats_gate_decide(&s.g, pct) != 2) {	/* the host's throughput */
		snprintf(why, len, "undecided: %s: %.3fx the baseline's time (%.10g%% interval "
			 "%.4g-%.4g), %s the +-%.1f%% that times measured at another moment move by "
			 "once adjusted (times adjusted by %s)%s; for a sure gate compare the old and "
			 "the new build interleaved (pbench compare OLD NEW)", c->e[i].name,
			 exp(s.g.est), c->o.confidence * 100, exp(s.g.lo), exp(s.g.hi),
			 s.side < 0 ? "beyond" : "even with", expm1(s.g.allow) * 100, s.reading,
			 s.note);
		return rc;
	}
	pb_stats_gate_words(&s.g, rc, pct, c->o.confidence, s.reading, g, sizeof(g));
	if (rc == 2)	/* the word first */
		snprintf(why, len, "undecided: %s: %s%s", c->e[i].name, g + 11, s.note);
	else
		snprintf(why, len, "%s: %s%s", c->e[i].name, g, s.note);
	return rc;
}

/* The headline against a stored reference, as the gate judges (pct 0, both ways): slower or
 * faster only when the allowance for the occasion cannot explain it, else undecided. */
static int stored_headline(const struct pbench_contest *c, int i, char *buf, size_t len)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	struct stored_est s;
	const struct pb_gate_est *g = &s.g;
	int err = stored_estimate(c, i, &s), slower, faster;
	char x[32], lv[32], adj[800];

	if (err)
		return err;
	slower = g->lo - g->allow > 0 && s.side >= 0;
	faster = g->hi + g->allow < 0 && s.side <= 0;
	fmt_level(lv, sizeof(lv), c->o.confidence);
	if (g->adjusted)
		snprintf(adj, sizeof(adj), "times adjusted by %s%s", s.reading, s.note);
	else
		snprintf(adj, sizeof(adj), "times not adjusted for the machine's speed: %s",
			 g->why_not ? g->why_not : "no readings");
	fmt_x(x, sizeof(x), exp(faster ? -g->est : g->est));	/* faster: as a speed-up */
	if (!slower && !faster && (g->lo - g->allow > 0 || g->hi + g->allow < 0))
		snprintf(buf, len, "undecided: %s takes %sx the time of %s (%s interval "
			 "%.4g-%.4g), beyond the +-%.1f%% that times measured at another moment move "
			 "by here, but the host's issue throughput moved between the two (%s); for a "
			 "verdict compare the old and the new build interleaved (pbench compare OLD "
			 "NEW)", e->name, x, ref->name, lv, exp(g->lo), exp(g->hi),
			 expm1(g->allow) * 100, adj);
	else if (slower || faster)
		snprintf(buf, len, "%s is %sx %s than %s (%s interval %.4g-%.4g of its time, beyond "
			 "the +-%.1f%% that times measured at another moment move by; %s)", e->name,
			 x, slower ? "slower" : "faster", ref->name, lv, exp(g->lo), exp(g->hi),
			 expm1(g->allow) * 100, adj);
	else
		snprintf(buf, len, "undecided: %s takes %sx the time of %s (%s interval "
			 "%.4g-%.4g), within the +-%.1f%% that times measured at another moment move "
			 "by here (%s); for a verdict compare the old and the new build interleaved "
			 "(pbench compare OLD NEW)", e->name, x, ref->name, lv, exp(g->lo),
			 exp(g->hi), expm1(g->allow) * 100, adj);
	return 0;
}

int pbench_contest_verdict_text(const struct pbench_contest *c, int i, char *buf, size_t len)
{
	const struct pb_entrant *e = at(c, i), *ref;
	char words[64], iv[96], lv[32], a[32], b[32];

	if (!e || !buf || !len || i == c->o.reference)
		return -EINVAL;
	ref = &c->e[c->o.reference];
	if (c->metric) {
		metric_verdict(c, i, buf, len);
		return 0;
	}
	if (!ref->r && e->r && e->n >= 2 && ref->n >= 2 && !stored_headline(c, i, buf, len))
		return 0;
	switch (e->verdict) {
	case PBENCH_VERDICT_FASTER:
	case PBENCH_VERDICT_SLOWER:
		pb_contest_ratio_words(c, i, words, sizeof(words), iv, sizeof(iv));
		snprintf(buf, len, "%s is %s than %s %s, decided after %ld rounds in %.1f s",
			 e->name, words, ref->name, iv, e->decided_round, e->decided_s);
		return 0;
	case PBENCH_VERDICT_SAME:
		fmt_level(lv, sizeof(lv), c->o.confidence);
		fmt_x(a, sizeof(a), e->w.ratio_lo);
		fmt_x(b, sizeof(b), e->w.ratio_hi);
		snprintf(buf, len, "%s and %s take the same time within %.3g%% (%s interval of "
			 "the ratio %s-%s), decided after %ld rounds in %.1f s", e->name, ref->name,
			 c->o.same_pct, lv, a, b, e->decided_round, e->decided_s);
		return 0;
	}
	undecided_text(c, i, buf, len);
	return 0;
}

/* A metric measured in time, or over it (per second, GHz, CPUs): it moves with the machine
 * between occasions as the time does; a count or a ratio of counts does not. */
static int time_like(const char *unit)
{
	return !unit || !strcmp(unit, "ns") || !strcmp(unit, "/sec") || !strcmp(unit, "GHz") ||
	       !strcmp(unit, "CPUs");
}

/* pbench_contest_slower() on a metric: worse is higher, or lower where higher is better. */
static int metric_slower(const struct pbench_contest *c, int i, double pct, char *why,
			 size_t len)
{
	const struct pb_entrant *e = &c->e[i], *ref = &c->e[c->o.reference];
	double limit = 1 + pct / 100;
	char words[512];
	int rc;

	if (!ref->r && e->mn >= 2) {	/* a stored baseline */
		char g[1024];

		rc = pb_stats_gate_on(ref->mx, ref->mn, e->mx, e->mn, pct, c->o.confidence,
				      c->metric, c->higher_better,
				      time_like(c->metric_unit) ? 15.0 : 0, g, sizeof(g));
		if (rc < 0)
			snprintf(why, len, "cannot tell whether %s is worse than the baseline on %s: "
				 "a value is 0 or not a number", e->name, c->metric);
		else if (rc == 2 && !strncmp(g, "undecided: ", 11))
			snprintf(why, len, "undecided: %s: %s", e->name, g + 11);
		else
			snprintf(why, len, "%s: %s", e->name, g);
		return rc < 0 ? 0 : rc;
	}
	if (!e->have_w) {
		snprintf(why, len, "cannot tell whether %s is worse than %s on %s: too few runs to "
			 "compare", e->name, ref->name, c->metric);
		return 0;
	}
	metric_verdict(c, i, words, sizeof(words));
	rc = c->higher_better ? e->w.ratio_hi < 1 / limit : e->w.ratio_lo > limit;
	if (rc)
		snprintf(why, len, "worse by more than %.3g%% on %s: %s", pct, c->metric, words);
	else
		snprintf(why, len, "not surely worse by more than %.3g%% on %s: %s", pct,
			 c->metric, words);
	return rc;
}

int pbench_contest_slower(const struct pbench_contest *c, int i, double pct, char *line,
			  size_t len)
{
	const struct pb_entrant *e = at(c, i), *ref;
	double limit = 1 + pct / 100;
	char words[64], iv[96], *why = line;

	if (!e || i == c->o.reference)
		return pb_fail(-EINVAL, "%s(): entrant %d is %s", __func__, i,
			       e ? "the reference" : "not one of the contest's");
	if (!(pct >= 0) || !isfinite(pct) || (!line && len))
		return pb_fail(-EINVAL, "%s(): pct is %g (want >= 0), or line is NULL with len %zu",
			       __func__, pct, len);
	ref = &c->e[c->o.reference];
	if (c->metric)
		return metric_slower(c, i, pct, why, len);
	if (!ref->r && e->n >= 2)	/* a stored baseline: measured at another moment */
		return stored_gate(c, i, pct, why, len);
	if (!e->have_w) {
		snprintf(why, len, "cannot tell whether %s is slower than %s: too few runs to "
			 "compare", e->name, ref->name);
		return 0;
	}
	pb_contest_ratio_words(c, i, words, sizeof(words), iv, sizeof(iv));
	if (e->w.ratio_lo > limit) {
		snprintf(why, len, "%s is %s than %s %s: slower by more than %.3g%%", e->name,
			 words, ref->name, iv, pct);
		return 1;
	}
	if (e->w.ratio_lo > 1)
		snprintf(why, len, "%s is %s than %s %s: not surely by more than %.3g%%",
			 e->name, words, ref->name, iv, pct);
	else
		snprintf(why, len, "%s is not significantly slower than %s: %s %s", e->name,
			 ref->name, words, iv);
	return 0;
}

/* ---- events --------------------------------------------------------------------------------- */

/* The number of events the entrants that run count (0 when none runs). */
static int nr_events_of(const struct pbench_contest *c)
{
	for (int i = 0; c && i < c->n; i++)
		if (c->e[i].r)
			return pbench_runs_nr_events(c->e[i].r);
	return 0;
}

const char *pbench_contest_event_name(const struct pbench_contest *c, int e)
{
	for (int i = 0; c && i < c->n; i++)
		if (c->e[i].r)
			return pbench_runs_event_name(c->e[i].r, e);
	return NULL;
}

/* Event ev's counts over an entrant's runs (timed-out ones left out): the counted values, the
 * worst status and its reason. */
static double *event_values(const struct pb_entrant *e, int ev, size_t *n, int *status,
			    const char **reason)
{
	const struct pb_set *s = e->set;
	int done = pb_runs_set_done(s);
	double *v = malloc((size_t)(done ? done : 1) * sizeof(*v));

	*n = 0;
	*status = PBENCH_EVENT_OK;
	*reason = "";
	for (int k = 0; v && k < done; k++) {
		struct pb_run_status run = pb_runs_status(pb_runs_run_at(s, k));
		const struct pbench_count *cnt = &run.counts[ev];

		if (!pb_run_measured(run.timed_out))
			continue;
		if (cnt->status > *status) {
			*status = cnt->status;
			*reason = cnt->reason;
		}
		if (cnt->status <= PBENCH_EVENT_MULTIPLEXED)
			v[(*n)++] = cnt->scaled;
	}
	return v;
}

static int all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return 0;
	return 1;
}

/* The ratio of the means of a against b, its interval from the log when every count is
 * positive, else from the difference (its lower end kept at 0: a ratio of counts is not
 * negative); no interval where neither varies. */
static void event_ratio(const struct pbench_contest *c, const double *a, size_t na,
			const double *b, size_t nb, struct pbench_contest_event *x)
{
	int log_scale = all_positive(a, na) && all_positive(b, nb);
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = c->look_level > 0 ?
					c->look_level : c->o.confidence,
					.flags = log_scale ? PBENCH_STATS_LOG : 0 };
	struct pbench_welch w = { .size = sizeof(w) };
	double ma = 0, mb = 0;

	for (size_t i = 0; i < na; i++)
		ma += a[i] / (double)na;
	for (size_t i = 0; i < nb; i++)
		mb += b[i] / (double)nb;
	x->ratio = mb > 0 ? ma / mb : NAN;
	if (!isfinite(x->ratio) || na < 2 || nb < 2 || pbench_stats_welch(a, na, b, nb, &so, &w))
		return;
	x->p = w.p;
	x->ratio_lo = fmax(0, w.ratio_lo);
	x->ratio_hi = w.ratio_hi;
	if (log_scale)
		x->ratio = w.ratio;	/* the geometric means', as the interval's */
}

/* Event ev's values of entrant e: its runs' counts, or a stored entrant's from its file (by
 * the name the live entrants count it as); NULL with *n 0 when it has none. */
static double *side_values(const struct pbench_contest *c, const struct pb_entrant *e, int ev,
			   size_t *n, int *status, const char **reason)
{
	size_t missing;
	double *v;

	if (e->r)
		return event_values(e, ev, n, status, reason);
	v = pb_contest_stored_values(e, pbench_contest_event_name(c, ev), n, &missing);
	*status = missing ? PBENCH_EVENT_NOT_COUNTED : PBENCH_EVENT_OK;
	*reason = !e->stored_runs ? "the baseline's file holds no runs, only times" :
		  !*n ? "the baseline's runs did not count it" :
		  missing ? "some of the baseline's runs did not count it" : "";
	return v;
}

int pbench_contest_event(const struct pbench_contest *c, int i, int ev,
			 struct pbench_contest_event *out)
{
	const struct pb_entrant *e = at(c, i), *ref;
	struct pbench_contest_event x = { 0 };
	double *a, *b = NULL;
	size_t na, nb = 0;
	int st, sb, err;
	const char *rb;

	if ((err = PB_CHECK_STRUCT(out, pbench_contest_event, 0, NULL)))
		return err;
	if (!e || (!e->r && !e->stored_runs) || ev < 0 ||
	    ev >= (int)nr_events_of(c))
		return pb_fail(-EINVAL, "%s(): no event %d of entrant %d", __func__, ev, i);
	ref = &c->e[c->o.reference];
	x.size = out->size;
	x.name = pbench_contest_event_name(c, ev);
	x.mean = x.ratio = x.ratio_lo = x.ratio_hi = x.p = NAN;
	a = side_values(c, e, ev, &na, &st, &x.reason);
	if (!a && na)
		return -ENOMEM;
	x.status = st;
	if (!na && st <= PBENCH_EVENT_MULTIPLEXED) {
		/* nothing read is not "ok": no run of this entrant was measured */
		x.status = PBENCH_EVENT_NOT_COUNTED;
		x.reason = !e->r ? "the baseline's runs did not count it" :
			   pb_runs_set_done(e->set) ?
			   "no run of it was measured (each one was killed at the timeout)" :
			   "it has no runs";
	}
	if (na) {
		x.mean = 0;
		for (size_t k = 0; k < na; k++)
			x.mean += a[k] / (double)na;
	}
	if ((ref->r || ref->stored_runs) && i != c->o.reference && na &&
	    (b = side_values(c, ref, ev, &nb, &sb, &rb)) && nb)
		event_ratio(c, a, na, b, nb, &x);
	free(a);
	free(b);
	pb_copy_out(out, &x, sizeof(x));
	return 0;
}

/* A derived metric of entrant i: pbench_runs_metric() of its set, or for a stored entrant the
 * same metric made from the counts its file holds (named as the live entrants have it). */
int pb_contest_metric(const struct pbench_contest *c, int i, int m,
		      struct pbench_metric_summary *k)
{
	const struct pb_entrant *e = at(c, i);
	struct pbench_summary s = { .size = sizeof(s) };
	size_t n, missing;
	double *v;
	int err = -ENODATA;

	if (!e || (!e->r && !e->stored_runs))
		return -EINVAL;
	if (e->r)
		return pbench_runs_metric(e->r, 0, m, k);
	for (int j = 0; j < c->n && err; j++)
		err = c->e[j].r ? pbench_runs_metric(c->e[j].r, 0, m, k) : err;
	if (err || k->reason)
		return err;
	v = pb_contest_stored_values(e, k->name, &n, &missing);
	k->runs = (int)n;
	k->apart = 0;
	k->mean = k->sem_pct = k->median = k->min = k->max = k->stddev = k->cv_pct = NAN;
	if (!n || pbench_stats_summary(v, n, NULL, &s))
		k->reason = "n/a: the baseline's runs do not have the events it is made from";
	else {
		k->mean = s.mean;
		k->sem_pct = n > 1 && s.mean ? 100 * s.sem / fabs(s.mean) : NAN;
		k->median = s.median;
		k->min = s.min;
		k->max = s.max;
		k->stddev = s.stddev;
		k->cv_pct = s.mean ? s.cv_pct : NAN;
	}
	free(v);
	return 0;
}

/* ---- memory per call (PBENCH_CONTEST_COUNT_MEMORY) ------------------------------------------ */

int pbench_contest_mem_status(const struct pbench_contest *c, int i, const char **reason)
{
	if (!c || i < 0 || i >= c->n)
		return -EINVAL;
	if (reason)
		*reason = c->e[i].mem_status == PBENCH_MEM_COUNTED ? NULL : c->e[i].mem_reason;
	return c->e[i].mem_status;
}

int pb_contest_mem_figures(const struct pb_entrant *e, int kind, double **out)
{
	double *x;

	if (e->mem_status != PBENCH_MEM_COUNTED || !e->nmem)
		return -ENODATA;
	x = calloc(e->nmem, sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (size_t k = 0; k < e->nmem; k++) {
		const struct pb_mem_counts *m = &e->mem[k];

		x[k] = kind == PBENCH_MEM_ALLOCS ? (double)m->allocs :
		       kind == PBENCH_MEM_FREES ? (double)m->frees :
		       kind == PBENCH_MEM_BYTES ? (double)m->bytes : (double)m->peak;
	}
	*out = x;
	return 0;
}

int pbench_contest_mem(const struct pbench_contest *c, int i, int kind,
		       struct pbench_mem_comparison *out)
{
	double *xa = NULL, *xb = NULL;
	const struct pb_entrant *ref;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_mem_comparison, 0, NULL)))
		return err;
	if (!c || i < 0 || i >= c->n || kind < PBENCH_MEM_ALLOCS || kind > PBENCH_MEM_PEAK)
		return pb_fail(-EINVAL, "%s(): no entrant %d, or kind %d is not a PBENCH_MEM_*",
			       __func__, i, kind);
	ref = &c->e[c->o.reference];
	err = pb_contest_mem_figures(ref, kind, &xa);
	if (!err)
		err = pb_contest_mem_figures(&c->e[i], kind, &xb);
	if (!err)
		err = pb_mem_compare_x(xa, ref->nmem, xb, c->e[i].nmem, kind,
				       pb_contest_confidence(c), c->o.same_pct, out);
	free(xa);
	free(xb);
	return err;
}
