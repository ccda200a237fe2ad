// SPDX-License-Identifier: MIT
/*
 * Where a set's time goes (issue 36, opts.profile): each timed run of a command (not a
 * warm-up run, not the contest's check) started under a profile (profile/) that samples its
 * whole process tree, one profile a run; after all the runs (or between two, when those held
 * pass HELD_MAX), never inside a timed span, the profiles are symbolized into the set's stack
 * table (stacks/) and freed, and the figures read from it: per symbol, per DSO, what the profile could not see. Then the getters
 * (pbench_runs_profile_*), the folded stacks, and the parts of the text, JSON, CSV and
 * Markdown writers that carry it (nothing at all when opts.profile is off).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/base.h"
#include "base/abi.h"
#include "base/jsonutil.h"
#include "profile/profile.h"
#include "stacks/stacks.h"
#include "runs/runs_inner.h"

/* The profiles of a set's runs held until the end of the runs take at most this much: past it,
 * those held are symbolized into the table between two runs (never in a timed span), so a
 * long set in DWARF mode (about 6 KiB a sample) does not hold them all. */
#define HELD_MAX ((size_t)256 << 20)

struct pb_prof_set {
	struct pb_profile **runs;	/* a slot a run (set->cap), until symbolized */
	size_t held;			/* their store's bytes */
	struct pb_stacks *t;		/* made for set->cap runs, trimmed to nruns */
	struct pb_stacks_figs figs;
	int have_figs, nruns, kernel;
	uint64_t samples, lost, throttled, cut;
	long rate_before, rate_after;
	const char *kernel_why;
	char *caveats;
	const char *status;
};

struct pb_runs_prof {
	struct pb_profile_opts po;
	char *event, *dirs_buf;
	char **dirs;
	struct pb_prof_set set[2];
};

const char *pbench_profile_mode_name(int mode)
{
	static const char *const names[] = { "off", "fp", "dwarf" };

	return mode >= 0 && mode <= PBENCH_PROFILE_DWARF ? names[mode] : NULL;
}

static const char *event_of(const struct pbench_runs *r)
{
	return r->prof->event ? r->prof->event : "cpu-clock";
}

static int split_dirs(struct pb_runs_prof *p, const char *dirs)
{
	size_t n = 2;

	if (!dirs || !*dirs)
		return 0;
	p->dirs_buf = strdup(dirs);
	for (const char *c = dirs; *c; c++)
		n += *c == ':';
	p->dirs = calloc(n, sizeof(*p->dirs));
	if (!p->dirs_buf || !p->dirs)
		return -ENOMEM;
	n = 0;
	for (char *save = NULL, *d = strtok_r(p->dirs_buf, ":", &save); d;
	     d = strtok_r(NULL, ":", &save))
		p->dirs[n++] = d;
	return 0;
}

int pb_runs_profile_init(struct pbench_runs *r)
{
	struct pb_runs_prof *p;
	struct pb_profile *probe;
	int err;

	if (!r->o.profile)
		return 0;
	p = r->prof = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if ((r->o.profile_event && !(p->event = strdup(r->o.profile_event))) ||
	    split_dirs(p, r->o.debug_dirs))
		return -ENOMEM;
	r->o.profile_event = p->event;
	r->o.debug_dirs = p->dirs_buf;
	p->po = (struct pb_profile_opts){ .event = p->event, .freq = (uint64_t)r->o.profile_freq,
					  .dwarf = r->o.profile == PBENCH_PROFILE_DWARF };
	for (int s = 0; s < r->nsets; s++) {
		p->set[s].runs = calloc((size_t)r->sets[s].cap, sizeof(*p->set[s].runs));
		p->set[s].kernel = 1;
		if (!p->set[s].runs)
			return -ENOMEM;
	}
	/* the event's name checked now, before anything runs */
	err = pb_profile_new(&probe, &p->po);
	pb_profile_free(probe);
	return err;
}

void pb_runs_profile_free(struct pbench_runs *r)
{
	struct pb_runs_prof *p = r->prof;

	if (!p)
		return;
	for (int s = 0; s < 2; s++) {
		struct pb_prof_set *ps = &p->set[s];

		for (int i = 0; ps->runs && i < r->sets[s].cap; i++)
			pb_profile_free(ps->runs[i]);
		free(ps->runs);
		pb_stacks_free(ps->t);
		pb_stacks_figures_free(&ps->figs);
		free(ps->caveats);
	}
	free(p->event);
	free(p->dirs_buf);
	free(p->dirs);
	free(p);
	r->prof = NULL;
}

int pb_runs_profiling(const struct pbench_runs *r)
{
	return r->prof && !r->run_kind;
}

int pb_runs_profile_start(struct pbench_runs *r, const struct pbench_child_opts *copts,
			  struct pb_profile **p, struct pbench_child **ch)
{
	int err = pb_profile_new(p, &r->prof->po);

	if (!err)
		err = pb_profile_start(*p, ch, r->subject.argv, copts, r->stderr_fd);
	if (err) {
		pb_profile_free(*p);
		*p = NULL;
		return pb_fail_msg(err, "cannot profile '%s': %s", r->subject.argv[0],
				   pbench_strerror(err));
	}
	return 0;
}

static void say(char **buf, const char *fmt, ...)
{
	char line[512], *n;
	va_list ap;
	size_t len = *buf ? strlen(*buf) : 0;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = realloc(*buf, len + strlen(line) + 2);
	if (!n)
		return;
	strcpy(n + len, line);
	strcat(n, "\n");
	*buf = n;
}

/* What the runs' profiles could not see, summed over them. */
static void caveats(struct pbench_runs *r, struct pb_prof_set *ps, const char *kernel_why,
		    long rate_before, long rate_after)
{
	const char *why = NULL, *kwhy = pb_stacks_kernel_why(ps->t);
	uint64_t ucut = pb_stacks_unwind_cut(ps->t, &why);

	if (kernel_why)
		say(&ps->caveats, "%s", kernel_why);
	else if (kwhy)
		say(&ps->caveats, "kernel frames not named: %s (sysctl kernel.kptr_restrict=0 "
		    "allows it, as root)", kwhy);
	if (ps->lost)
		say(&ps->caveats, "%llu records lost (the ring filled): the figures miss them",
		    (unsigned long long)ps->lost);
	if (ps->throttled)
		say(&ps->caveats, "sampling throttled %llu times (perf_event_max_sample_rate): "
		    "fewer samples, the shares still fair", (unsigned long long)ps->throttled);
	if (rate_before > 0 && rate_after > 0 && rate_after < rate_before)
		say(&ps->caveats, "the kernel lowered perf_event_max_sample_rate from %ld to %ld "
		    "during the runs", rate_before, rate_after);
	if (ps->cut)
		say(&ps->caveats, "%llu of %llu samples' call chains may be cut short%s%s%s: their "
		    "callers' totals are low", (unsigned long long)ps->cut,
		    (unsigned long long)ps->samples, ucut ? " (the last: " : "",
		    ucut && why ? why : "", ucut ? ")" : "");
	if (!ps->samples)
		say(&ps->caveats, "no samples: the command ran for less than a sampling period");
	(void)r;
}

/* The profiles held in slots [0, n) of set s symbolized into its table, in the order of their
 * runs, and freed: what they could not see summed first. */
static void fold(struct pbench_runs *r, int s, int n)
{
	struct pb_prof_set *ps = &r->prof->set[s];
	struct pb_profile_stats st;
	int err;

	for (int i = 0; i < n; i++) {
		if (!ps->runs[i])
			continue;
		pb_profile_stats(ps->runs[i], &st);
		ps->samples += st.samples;
		ps->lost += st.lost + st.lost_samples;
		ps->throttled += st.throttled;
		ps->cut += st.cut;
		if (!st.kernel) {
			ps->kernel = 0;
			ps->kernel_why = pb_intern(st.kernel_why);
		}
		if (!ps->nruns)
			ps->rate_before = st.max_rate_before;
		ps->rate_after = st.max_rate_after;
		err = ps->t ? 0 : pb_stacks_new(&ps->t, r->sets[s].cap,
						(const char *const *)r->prof->dirs);
		if (!err)
			err = pb_stacks_add(ps->t, ps->nruns, ps->runs[i]);
		if (err && !ps->status)
			ps->status = pb_intern(pbench_strerror(err));
		ps->nruns++;
		pb_profile_free(ps->runs[i]);
		ps->runs[i] = NULL;
	}
	ps->held = 0;
}

/* Run i of set's profile kept (the run is set->runs[i], the one it replaces freed), after
 * the runs before it were symbolized when those held are too many. */
void pb_runs_profile_keep(struct pbench_runs *r, const struct pb_set *set, int i,
			  struct pb_profile *p)
{
	int s = (int)(set - r->sets);
	struct pb_prof_set *ps = &r->prof->set[s];
	struct pb_profile_stats st;

	pb_profile_end(p);
	pb_profile_stats(p, &st);
	if (ps->held + st.store_bytes > HELD_MAX)
		fold(r, s, i);
	pb_profile_free(ps->runs[i]);
	ps->runs[i] = p;
	ps->held += st.store_bytes;
}

/* Set s's profiles symbolized into its table, the figures made, the profiles freed. */
static void analyze_set(struct pbench_runs *r, int s)
{
	struct pb_prof_set *ps = &r->prof->set[s];

	fold(r, s, r->sets[s].done);
	if (!ps->nruns || !ps->t)
		return;
	pb_stacks_trim(ps->t, ps->nruns);
	ps->have_figs = !pb_stacks_figures(ps->t, &ps->figs);
	caveats(r, ps, ps->kernel_why, ps->rate_before, ps->rate_after);
}

void pb_runs_profile_analyze(struct pbench_runs *r)
{
	for (int s = 0; r->prof && s < r->nsets; s++)
		analyze_set(r, s);
}

const struct pb_stacks *pb_runs_profile_table(const struct pbench_runs *r, int s)
{
	if (!r || !r->prof || s < 0 || s >= r->nsets || !r->prof->set[s].have_figs)
		return NULL;
	return r->prof->set[s].t;
}

/* ---- getters -------------------------------------------------------------------------------- */

static const struct pb_prof_set *set_of(const struct pbench_runs *r, int s)
{
	if (!r || !r->prof || s < 0 || s >= r->nsets)
		return NULL;
	return &r->prof->set[s];
}

static int is_time(const struct pbench_runs *r)
{
	const char *e = event_of(r);

	return !strcmp(e, "cpu-clock") || !strcmp(e, "task-clock");
}

int pbench_runs_profile_info(const struct pbench_runs *r, int s, struct pbench_profile_info *out)
{
	const struct pb_prof_set *ps = set_of(r, s);
	struct pbench_profile_info o = { .size = sizeof(o) };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_profile_info, 0, "{ .size = sizeof(out) }")))
		return err;
	if (!ps)
		return r && !r->prof ? -ENOENT : pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	o.mode = r->o.profile;
	o.event = event_of(r);
	o.unit = is_time(r) ? "ns" : "events";
	o.freq = r->o.profile_freq > 0 ? r->o.profile_freq : PB_PROFILE_FREQ;
	o.runs = ps->nruns;
	o.samples = ps->samples;
	o.lost = ps->lost;
	o.throttled = ps->throttled;
	o.cut = ps->cut;
	o.per_run = ps->have_figs ? ps->figs.per_run_mean : NAN;
	o.per_run_lo = ps->have_figs ? ps->figs.per_run_lo : NAN;
	o.per_run_hi = ps->have_figs ? ps->figs.per_run_hi : NAN;
	o.kernel = ps->kernel;
	o.caveats = ps->caveats ? ps->caveats : "";
	o.nr_symbols = ps->have_figs ? (int)ps->figs.nsyms : 0;
	o.nr_dsos = ps->have_figs ? (int)ps->figs.ndsos : 0;
	o.status = ps->status ? ps->status : !ps->nruns ? "no run was profiled" : NULL;
	pb_copy_out(out, &o, sizeof(o));
	return 0;
}

static void fill_symbol(const struct pb_prof_set *ps, const struct pb_stacks_fig *f, int dso,
			struct pbench_profile_symbol *o)
{
	struct pb_stack_sym y = { 0 };

	if (!dso)
		pb_stacks_sym(ps->t, f->sym, &y);
	*o = (struct pbench_profile_symbol){
		.size = sizeof(*o), .name = dso ? f->dso : y.name, .dso = f->dso,
		.file = y.file, .line = y.line, .kernel = y.kernel, .unknown = y.unknown,
		.why = y.why, .self = f->self_mean, .self_lo = f->self_lo, .self_hi = f->self_hi,
		.total = f->total_mean, .total_lo = f->total_lo, .total_hi = f->total_hi,
		.self_pct = f->self_pct, .total_pct = f->total_pct,
		.self_samples = f->self_samples, .total_samples = f->total_samples };
}

static int get_fig(const struct pbench_runs *r, int s, int i, int dso,
		   struct pbench_profile_symbol *out)
{
	const struct pb_prof_set *ps = set_of(r, s);
	struct pbench_profile_symbol o;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_profile_symbol, 0, "{ .size = sizeof(out) }")))
		return err;
	if (!ps)
		return r && !r->prof ? -ENOENT : pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	if (!ps->have_figs || i < 0 || (size_t)i >= (dso ? ps->figs.ndsos : ps->figs.nsyms))
		return -ENOENT;
	fill_symbol(ps, dso ? &ps->figs.dsos[i] : &ps->figs.syms[i], dso, &o);
	pb_copy_out(out, &o, sizeof(o));
	return 0;
}

int pbench_runs_profile_symbol(const struct pbench_runs *r, int s, int i,
			       struct pbench_profile_symbol *out)
{
	return get_fig(r, s, i, 0, out);
}

int pbench_runs_profile_dso(const struct pbench_runs *r, int s, int i,
			    struct pbench_profile_symbol *out)
{
	return get_fig(r, s, i, 1, out);
}

int pbench_runs_write_folded(const struct pbench_runs *r, int s, FILE *f)
{
	const struct pb_prof_set *ps = set_of(r, s);
	int err;

	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	if (!ps)
		return r && !r->prof ? -ENOENT : pb_fail(-EINVAL, "%s(): no set %d", __func__, s);
	if (!ps->t)
		return -ENOENT;
	err = pb_stacks_write_folded(ps->t, f);
	return err ? err : pb_stream_end(f);
}

const struct pb_stacks *pb_runs_profile_stacks(const struct pbench_runs *r, int s)
{
	const struct pb_prof_set *ps = set_of(r, s);

	return ps && ps->have_figs ? ps->t : NULL;
}

/* ---- the writers' parts --------------------------------------------------------------------- */

static int top_of(const struct pbench_runs *r, size_t n)
{
	size_t top = r->o.profile_top > 0 ? (size_t)r->o.profile_top : PBENCH_RUNS_DEFAULT_PROFILE_TOP;

	return (int)(n < top ? n : top);
}

/* A DSO's file name ("[kernel.kallsyms]", "//anon" as they are); a source file's name. */
static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return !path ? "" : b && b[1] && path[0] != '[' && strncmp(path, "//", 2) ? b + 1 : path;
}

/* "201.2 ms (200.1-202.3)" or "201.2 ms (n/a: 1 run)" */
static const char *per_run(char *buf, size_t len, double v, double lo, double hi,
			   const char *unit)
{
	char a[32], b[32], c[32];

	pb_format_figure(a, sizeof(a), v, unit);
	if (isfinite(lo) && isfinite(hi))
		snprintf(buf, len, "%s (%s - %s)", a, pb_format_figure(b, sizeof(b), lo, unit),
			 pb_format_figure(c, sizeof(c), hi, unit));
	else
		snprintf(buf, len, "%s (n/a: 1 run)", a);
	return buf;
}

static void sym_label(char *buf, size_t len, const struct pbench_profile_symbol *y)
{
	snprintf(buf, len, "%s%s%s", y->name, y->unknown ? " in " : "",
		 y->unknown ? base_name(y->dso) : "");
}

static void text_symbols(const struct pbench_runs *r, int s, const char *unit, FILE *f)
{
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	const struct pb_prof_set *ps = &r->prof->set[s];
	int top = top_of(r, ps->figs.nsyms);
	char a[80], b[80], sp[16], tp[16], name[300], src[300];

	fprintf(f, "  %6s  %-34s %6s  %-34s %s\n", "self", "self a run (95% interval)", "total",
		"total a run", "symbol  [DSO]  source");
	for (int i = 0; i < top; i++) {
		pbench_runs_profile_symbol(r, s, i, &y);
		sym_label(name, sizeof(name), &y);
		if (y.file)
			snprintf(src, sizeof(src), "  %s:%u", base_name(y.file), y.line);
		else if (y.unknown && y.why)	/* never dropped: said with why */
			snprintf(src, sizeof(src), "  (%s)", y.why);
		else
			*src = 0;
		/* "[kernel.kallsyms]" is bracketed already, as perf names it */
		fprintf(f, y.dso && y.dso[0] == '[' ? "  %6s  %-34s %6s  %-34s %s  %s%s\n" :
			"  %6s  %-34s %6s  %-34s %s  [%s]%s\n",
			pb_format_pct(sp, sizeof(sp), y.self_pct, 1),
			per_run(a, sizeof(a), y.self, y.self_lo, y.self_hi, unit),
			pb_format_pct(tp, sizeof(tp), y.total_pct, 1),
			per_run(b, sizeof(b), y.total, y.total_lo, y.total_hi, unit), name,
			base_name(y.dso), src);
	}
	if ((size_t)top < ps->figs.nsyms)
		fprintf(f, "  (%zu more symbols: --profile-top N, or the JSON has them all)\n",
			ps->figs.nsyms - (size_t)top);
}

static void text_dsos(const struct pbench_runs *r, int s, const char *unit, FILE *f)
{
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	const struct pb_prof_set *ps = &r->prof->set[s];
	char a[80], sp[16];

	fprintf(f, "  per DSO (self):\n");
	for (size_t i = 0; i < ps->figs.ndsos; i++) {
		pbench_runs_profile_dso(r, s, (int)i, &y);
		if (!y.self_samples)	/* only callers in it: their totals are in the table */
			continue;
		fprintf(f, "  %6s  %-34s %s\n", pb_format_pct(sp, sizeof(sp), y.self_pct, 1),
			per_run(a, sizeof(a), y.self, y.self_lo, y.self_hi, unit), y.dso);
	}
}

/* Set s's profile as the text report shows it, after the set's table. */
int pb_runs_profile_text(const struct pbench_runs *r, int s, FILE *f)
{
	struct pbench_profile_info in = { .size = sizeof(in) };
	char a[80];
	const char *unit, *c;

	if (!r->prof || pbench_runs_profile_info(r, s, &in))
		return 0;
	fprintf(f, "\nProfile%s%s%s: %s at %g Hz, %s, %d run%s, %llu samples (%llu lost, %llu "
		"throttled)\n", r->nsets > 1 ? " (" : "",
		r->nsets > 1 ? pbench_runs_mode_name(r->sets[s].mode) : "", r->nsets > 1 ? ")" : "",
		in.event, in.freq, in.mode == PBENCH_PROFILE_DWARF ?
		"DWARF unwinding" : "frame pointers", in.runs, in.runs == 1 ? "" : "s",
		(unsigned long long)in.samples, (unsigned long long)in.lost,
		(unsigned long long)in.throttled);
	if (in.status) {
		fprintf(f, "  no profile: %s\n", in.status);
		return ferror(f) ? -EIO : 0;
	}
	unit = !strcmp(in.unit, "ns") ? "ns" : "";
	fprintf(f, "  sampled a run: %s\n", per_run(a, sizeof(a), in.per_run, in.per_run_lo,
						     in.per_run_hi, unit));
	text_symbols(r, s, unit, f);
	text_dsos(r, s, unit, f);
	for (c = in.caveats; *c;) {
		const char *e = strchr(c, '\n');
		int n = e ? (int)(e - c) : (int)strlen(c);

		fprintf(f, "  note: %.*s\n", n, c);
		c += n + (e != NULL);
	}
	return ferror(f) ? -EIO : 0;
}

static json_t *sym_json(const struct pbench_profile_symbol *y, int dso)
{
	json_t *j = json_object();
	int b = 0, *bad = &b;

	if (!dso) {
		SET(j, "name", json_string(y->name));
		SET(j, "dso", json_string(y->dso));
		SET(j, "file", pb_json_str_or_null(y->file));
		SET(j, "line", y->file ? json_integer(y->line) : json_null());
		SET(j, "kernel", json_boolean(y->kernel));
		SET(j, "unknown", json_boolean(y->unknown));
		SET(j, "why", pb_json_str_or_null(y->why));
	} else {
		SET(j, "dso", json_string(y->dso));
	}
	SET(j, "self", num(y->self));
	SET(j, "self_lo", num(y->self_lo));
	SET(j, "self_hi", num(y->self_hi));
	SET(j, "self_pct", num(y->self_pct));
	SET(j, "self_samples", unum(y->self_samples));
	if (!dso) {
		SET(j, "total", num(y->total));
		SET(j, "total_lo", num(y->total_lo));
		SET(j, "total_hi", num(y->total_hi));
		SET(j, "total_pct", num(y->total_pct));
		SET(j, "total_samples", unum(y->total_samples));
	}
	return j;
}

/* What a profile's JSON says of its runs whatever holds it (a set's, a contest entrant's):
 * runs, samples, lost, throttled, cut, kernel, per_run, status and the caveats, a line each. */
void pb_runs_profile_info_json(struct json_t *j, const struct pbench_profile_info *in, int *bad)
{
	json_t *cav = json_array();

	SET(j, "runs", json_integer(in->runs));
	SET(j, "samples", unum(in->samples));
	SET(j, "lost", unum(in->lost));
	SET(j, "throttled", unum(in->throttled));
	SET(j, "cut", unum(in->cut));
	SET(j, "kernel", json_boolean(in->kernel));
	SET(j, "per_run", num(in->per_run));
	SET(j, "status", pb_json_str_or_null(in->status));
	for (const char *c = in->caveats; c && *c;) {
		const char *e = strchr(c, '\n');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		APPEND(cav, json_stringn(c, n));
		c += n + (e != NULL);
	}
	SET(j, "caveats", cav);
}

/* Set s's "profile" object of the JSON (NULL when opts.profile is off). */
json_t *pb_runs_profile_json(const struct pbench_runs *r, int s)
{
	struct pbench_profile_info in = { .size = sizeof(in) };
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	json_t *j, *syms, *dsos;
	int b = 0, *bad = &b;

	if (!r->prof || pbench_runs_profile_info(r, s, &in))
		return NULL;
	j = json_object();
	syms = json_array();
	dsos = json_array();
	SET(j, "mode", json_string(pbench_profile_mode_name(in.mode)));
	SET(j, "event", json_string(in.event));
	SET(j, "unit", json_string(in.unit));
	SET(j, "freq_hz", num(in.freq));
	pb_runs_profile_info_json(j, &in, bad);
	SET(j, "per_run_lo", num(in.per_run_lo));
	SET(j, "per_run_hi", num(in.per_run_hi));
	for (int i = 0; !pbench_runs_profile_symbol(r, s, i, &y); i++)
		APPEND(syms, sym_json(&y, 0));
	for (int i = 0; !pbench_runs_profile_dso(r, s, i, &y); i++)
		APPEND(dsos, sym_json(&y, 1));
	SET(j, "symbols", syms);
	SET(j, "dsos", dsos);
	return j;
}

/* Set s's symbols as CSV rows after the runs' (a section of its own). */
int pb_runs_profile_csv(const struct pbench_runs *r, int s, FILE *f)
{
	struct pbench_profile_symbol y = { .size = sizeof(y) };

	if (!r->prof || !set_of(r, s) || !r->prof->set[s].have_figs)
		return 0;
	fprintf(f, "\nprofile_set,symbol,dso,file,line,self,self_lo,self_hi,self_pct,total,"
		"total_lo,total_hi,total_pct,self_samples,total_samples\n");
	for (int i = 0; !pbench_runs_profile_symbol(r, s, i, &y); i++) {
		fprintf(f, "%d,", s);
		pb_csv_text(f, y.name);
		fputc(',', f);
		pb_csv_text(f, y.dso);
		fputc(',', f);
		pb_csv_text(f, y.file ? y.file : "");
		fprintf(f, ",%u,%.6g,%.6g,%.6g,%.4f,%.6g,%.6g,%.6g,%.4f,%llu,%llu\n", y.line, y.self,
			y.self_lo, y.self_hi, y.self_pct, y.total, y.total_lo, y.total_hi,
			y.total_pct, (unsigned long long)y.self_samples,
			(unsigned long long)y.total_samples);
	}
	return ferror(f) ? -EIO : 0;
}

/* Set s's top symbols as a GitHub table. */
int pb_runs_profile_markdown(const struct pbench_runs *r, int s, FILE *f)
{
	struct pbench_profile_symbol y = { .size = sizeof(y) };
	const char *unit;
	char a[80], b[80], sp[16], tp[16], name[300];
	int top;

	if (!r->prof || !set_of(r, s) || !r->prof->set[s].have_figs)
		return 0;
	unit = is_time(r) ? "ns" : "";
	top = top_of(r, r->prof->set[s].figs.nsyms);
	fprintf(f, "\n| self | self a run | total | total a run | symbol | DSO | source |\n"
		"|---:|---:|---:|---:|:---|:---|:---|\n");
	for (int i = 0; i < top && !pbench_runs_profile_symbol(r, s, i, &y); i++) {
		sym_label(name, sizeof(name), &y);
		if (y.file)
			snprintf(a + 40, 40, "%s:%u", base_name(y.file), y.line);
		else
			a[40] = 0;
		fprintf(f, "| %s | %s | %s | %s | `%s` | %s | %s |\n",
			pb_format_pct(sp, sizeof(sp), y.self_pct, 1),
			per_run(a, 40, y.self, y.self_lo, y.self_hi, unit),
			pb_format_pct(tp, sizeof(tp), y.total_pct, 1),
			per_run(b, sizeof(b), y.total, y.total_lo, y.total_hi, unit), name,
			base_name(y.dso), a + 40);
	}
	return ferror(f) ? -EIO : 0;
}
