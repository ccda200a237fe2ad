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
};

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
};

/* scan.c */
const char *pb_scan_fmt_ns(char *buf, size_t len, double ns);
void pb_scan_fit_words(const struct pbench_scan *s, const struct pb_scan_side *sd, char *out,
		       size_t len);

#endif
