/* SPDX-License-Identifier: MIT */
/* scan/scan.h - parameter scans (issue 38): what the module's files share. The object is in
 * scan_inner.h (the module's own files only). */
#ifndef PB_SCAN_H
#define PB_SCAN_H

#include <stdio.h>

#include "pbench.h"

struct pbench_scan;

/* scan_plot.c: the SVG of the time against the one parameter. */
int pb_scan_svg(const struct pbench_scan *s, FILE *f);

#endif
