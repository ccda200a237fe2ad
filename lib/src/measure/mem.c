/* SPDX-License-Identifier: MIT */
/*
 * Counting a sample's allocations through libpbench-mem.so (lib/shim/mem.c), found at run time
 * in this process: linked in (-lpbench-mem) or preloaded. Finding its symbol is not enough:
 * a sanitizer's runtime or another allocator linked before it gets the calls instead, so a
 * probe allocation, counted or not, decides.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/base.h"
#include "measure/measure.h"
#include "../../shim/memshim.h"

static const struct pb_mem_shim *shim;
static int shim_status;
static const char *shim_reason;
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;
/* The window a pause closed, to open again on resume. */
static __thread struct pb_mem_counts *paused, *open_window;

/* Through a volatile pointer: the compiler may delete a malloc whose block is only freed. */
static void *(*volatile probe_malloc)(size_t) = malloc;

static void shim_find(void)
{
	const struct pb_mem_shim *(*get)(void);
	struct pb_mem_counts c = { 0 };
	void *p;

	shim_status = PBENCH_MEM_NOT_INTERPOSED;
	*(void **)&get = dlsym(RTLD_DEFAULT, "pbench_mem_shim");
	if (!get) {
		shim_reason = "the allocator is not interposed: libpbench-mem.so is not loaded "
			      "(link with -lpbench-mem, or run with LD_PRELOAD=libpbench-mem.so)";
		return;
	}
	shim = get();
	if (!shim || shim->version != PB_MEM_SHIM_VERSION) {
		shim = NULL;
		shim_reason = "libpbench-mem.so is of another version than libpbench";
		return;
	}
	shim->count(&c);
	p = probe_malloc(24);
	free(p);
	shim->count(NULL);
	if (!p || c.allocs != 1 || c.frees != 1 || c.bytes != 24) {
		shim = NULL;
		shim_reason = "the allocator is not interposed: libpbench-mem.so is loaded but "
			      "another malloc comes first (a sanitizer's runtime?): preload it with "
			      "LD_PRELOAD=libpbench-mem.so";
		return;
	}
	shim_status = PBENCH_MEM_COUNTED;
}

int pb_mem_open(const char **reason)
{
	pthread_once(&shim_once, shim_find);
	if (shim_status != PBENCH_MEM_COUNTED)
		pb_log(PBENCH_LOG_WARN, "memory: not counted: %s", shim_reason);
	*reason = shim_reason;
	return shim_status;
}

void pb_mem_begin(struct pb_mem_counts *c)
{
	*c = (struct pb_mem_counts){ 0 };
	open_window = c;
	shim->count(c);
}

void pb_mem_end(void)
{
	shim->count(NULL);
	open_window = NULL;
}

void pb_mem_pause(void)
{
	if (!open_window)
		return;
	paused = open_window;
	pb_mem_end();
}

void pb_mem_resume(void)
{
	if (!paused)
		return;
	open_window = paused;
	paused = NULL;
	shim->count(open_window);
}

/* ---- comparing two sets of counts ---------------------------------------------------------- */

/* Both sides exact: the ratio is known, the verdict is a comparison of two numbers. */
static void compare_exact(struct pbench_mem_comparison *c, double same_pct)
{
	c->ratio_lo = c->ratio_hi = c->ratio;
	c->p = NAN;
	if (c->a == c->b || (c->a > 0 && fabs(c->ratio - 1) * 100 <= same_pct))
		c->verdict = PBENCH_VERDICT_SAME;
	else
		c->verdict = c->a < c->b ? PBENCH_VERDICT_FASTER : PBENCH_VERDICT_SLOWER;
}

static int compare_welch(struct pbench_mem_comparison *c, const double *xa, size_t na,
			 const double *xb, size_t nb, double same_pct)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = c->confidence };
	struct pbench_welch w = { .size = sizeof(w) };
	int err = pbench_stats_welch(xa, na, xb, nb, &so, &w);

	if (err == -EINVAL) {		/* fewer than two samples a side */
		c->verdict = PBENCH_VERDICT_UNDECIDED;
		c->ratio_lo = c->ratio_hi = c->p = NAN;
		return 0;
	}
	if (err)
		return err;
	c->p = w.p;
	c->verdict = pbench_stats_verdict(&w, c->confidence, same_pct, 0);
	/* Welch's ratio is a / b; ours is b / a: the interval of b - a over a. */
	if (c->a > 0) {
		c->ratio_lo = 1 - w.diff_hi / c->a;
		c->ratio_hi = 1 - w.diff_lo / c->a;
		if (c->ratio_lo < 0)
			c->ratio_lo = 0;
	} else {
		c->ratio_lo = c->ratio_hi = NAN;
	}
	return 0;
}

int pb_mem_compare_x(const double *xa, size_t na, const double *xb, size_t nb, int kind,
		     double confidence, double same_threshold_pct,
		     struct pbench_mem_comparison *out)
{
	struct pbench_mem_comparison c = { .size = sizeof(c), .kind = kind,
					   .confidence = confidence, .a_exact = 1, .b_exact = 1 };
	struct pbench_summary sa = { .size = sizeof(sa) }, sb = { .size = sizeof(sb) };
	int err;

	if (!out || !out->size)	/* the public callers said which */
		return -EINVAL;
	if (!(confidence > 0 && confidence < 1))
		return pb_fail(-EINVAL, "memory comparison: confidence %g is not between 0 and 1",
			       confidence);
	if (!(same_threshold_pct >= 0))
		return pb_fail(-EINVAL, "memory comparison: same_threshold_pct %g is not a "
			       "percentage of 0 or more", same_threshold_pct);
	if (!na || !nb)
		return pb_fail(-EINVAL, "memory comparison: no figures for %s", !na ? "a" : "b");
	for (size_t i = 1; i < na; i++)
		c.a_exact &= xa[i] == xa[0];
	for (size_t i = 1; i < nb; i++)
		c.b_exact &= xb[i] == xb[0];
	err = pbench_stats_summary(xa, na, NULL, &sa);
	if (!err)
		err = pbench_stats_summary(xb, nb, NULL, &sb);
	if (err)
		return err;
	c.a = sa.mean;
	c.b = sb.mean;
	c.ratio = c.a > 0 ? c.b / c.a : NAN;
	if (c.a_exact && c.b_exact)
		compare_exact(&c, same_threshold_pct);
	else
		err = compare_welch(&c, xa, na, xb, nb, same_threshold_pct);
	if (!err)
		pb_copy_out(out, &c, sizeof(c));
	return err;
}
