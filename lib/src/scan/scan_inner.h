/* SPDX-License-Identifier: MIT */
/* scan/scan_inner.h - the scan object, for the scan module's own files. */
#ifndef PB_SCAN_INNER_H
#define PB_SCAN_INNER_H

#include "scan/scan.h"

struct pb_scan_param {
	char *name;
	double v[PBENCH_SCAN_MAX_POINTS];
	int nv;
};

/* One command of the scan (stat: one; compare: each side), at every point. */
struct pb_scan_side {
	char *name;			/* compare's label of the side (stat: NULL) */
	struct pbench_summary sum[PBENCH_SCAN_MAX_POINTS];
	int have[PBENCH_SCAN_MAX_POINTS];
	struct pbench_fit fit;
	int fitted;			/* 1: one parameter, fit computed */
	int fit_err;			/* pbench_stats_fit()'s error (one parameter) */
	double ratio[PBENCH_SCAN_MAX_POINTS], ratio_lo[PBENCH_SCAN_MAX_POINTS],
	       ratio_hi[PBENCH_SCAN_MAX_POINTS];
	/* the figure (scan_figure.c): an event's count or a metric a run, at every point */
	struct pbench_summary fig[PBENCH_SCAN_MAX_POINTS];
	int fig_have[PBENCH_SCAN_MAX_POINTS];
	struct pbench_fit fig_fit;
	int fig_fitted;
	int stopped[PBENCH_SCAN_MAX_POINTS];	/* enum pbench_contest_entrant_stop */
};

/* A data or unified cache of cpu0 (sysfs), for a parameter in bytes. */
struct pb_scan_cache {
	int level;
	char name[16];			/* "L1d", "L2", "L3" */
	double bytes;
	int llc;			/* the last level */
};
#define PB_SCAN_MAX_CACHES 6

/* fn's argument at one point */
struct pb_scan_call {
	struct pbench_scan *s;
	double value;
};

struct pbench_scan {
	struct pbench_scan_opts o;
	struct pbench_contest_opts co;
	int np, npoints, nsides, nadded, collected;
	struct pb_scan_param p[PBENCH_SCAN_MAX_PARAMS];
	struct pb_scan_side side[PBENCH_SCAN_MAX_SIDES];
	char *pname[PBENCH_SCAN_MAX_POINTS];	/* the points' names */
	struct pb_scan_call call[PBENCH_SCAN_MAX_POINTS];
	long fn_failed;			/* fn's non-zero returns */
	struct pbench_contest *c;
	struct pbench_contest_info ci;
	double confidence;
	char *figure;			/* the event or metric shown beside the time (NULL: none) */
	int bytes_k;			/* the parameter in bytes (opts.bytes_param), or -1 */
	struct pb_scan_cache cache[PB_SCAN_MAX_CACHES];
	int ncache;
	int own_stops;			/* an entrant has its own stop (target_sem_pct, max_time_s) */
};

/* scan.c */
/* How point i of side sd stopped, for people: "SEM 0.87%", "its max-time", "the rounds". */
const char *pb_scan_stop_words(const struct pbench_scan *s, const struct pb_scan_side *sd, int i,
			       char *buf, size_t len);
/* The same for JSON, CSV and Markdown: "target_sem", "max_time", "rounds". */
const char *pb_scan_stop_name(int stop);
const char *pb_scan_fmt_ns(char *buf, size_t len, double ns);
void pb_scan_fit_words(const struct pbench_scan *s, const struct pb_scan_side *sd, char *out,
		       size_t len);

/* scan_figure.c */
/* pbench_stats_fit() at the scan's confidence; a parameter of 0 or less: no model, and why. */
int pb_scan_fit(const struct pbench_scan *s, const double *x, const double *y,
		const double *sem, size_t m, struct pbench_fit *fit);
void pb_scan_figure_collect(struct pbench_scan *s);
void pb_scan_caches_read(struct pbench_scan *s);
/* Cache c's place in the scan of side sd: the points i < j around its size (-1: none), the
 * ratio of the slope (the cost of a byte more) from i to j over the slope from the point
 * before i to i, with its interval (of the figure when fig, else of the time); 1 when it
 * breaks (the interval above 1). */
int pb_scan_cache_break(const struct pbench_scan *s, const struct pb_scan_side *sd, int c,
			int fig, int *i, int *j, double *r, double *lo, double *hi);
/* One line for cache c ("L1d 48 KiB: the working set leaves it between n=32768 and n=65536:
 * the time per n 1.9x (1.8-2.0), a break"), no newline. */
void pb_scan_cache_words(const struct pbench_scan *s, const struct pb_scan_side *sd, int c,
			 int fig, char *out, size_t len);
const char *pb_scan_fmt_bytes(char *buf, size_t len, double b);
/* "grows as O(n): ..." of the figure's fit, plain numbers. */
void pb_scan_fig_fit_words(const struct pbench_scan *s, const struct pb_scan_side *sd, char *out,
			   size_t len);

#endif
