/* SPDX-License-Identifier: MIT */
/*
 * AUTO's priority decision kept for this boot (PBENCH_PREPARE_PRIORITY_CACHE): the probe takes
 * over two seconds and finds the same thing on the same CPU of the same boot, so the decision
 * and the probe's figures are kept in the user's cache directory,
 * $XDG_CACHE_HOME/pbench/priority (else ~/.cache/pbench/priority), one line per CPU and kind
 * of work, with the boot id. Lines of other boots are dropped when the file is written again.
 * The file is pbench's own; it is written whole (pbench_output_open) or not at all.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/base.h"
#include "prepare/prepare.h"

#define LINE_MAX_LEN 256

static int boot_id(char *buf, size_t len)
{
	int err = pb_read_file("/proc/sys/kernel/random/boot_id", buf, len);

	if (err < 0)
		return err;
	buf[strcspn(buf, "\n")] = 0;
	return strlen(buf) >= 32 ? 0 : -ENODATA;
}

/* The cache file's path; with mkdir, its directories are made (pbench's own, 0700). */
static int cache_path(char *buf, size_t len, int mkdir_too)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[4096];

	if (xdg && *xdg == '/')
		snprintf(dir, sizeof(dir), "%s/pbench", xdg);
	else if (home && *home == '/')
		snprintf(dir, sizeof(dir), "%s/.cache/pbench", home);
	else
		return -ENOENT;
	if (mkdir_too) {
		char *slash = strrchr(dir, '/');

		*slash = 0;
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
		*slash = '/';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
	}
	if ((size_t)snprintf(buf, len, "%s/priority", dir) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static const char *work_kind(const struct pbench_prepared *p)
{
	return p->o.warmup_fn ? "fn" : "xor";
}

/* A spread of runs probed: finite and not negative with 2 runs or more; NaN with none. */
static int spread_ok(int runs, double pct)
{
	return runs >= 2 ? isfinite(pct) && pct >= 0 : runs == 0 && isnan(pct);
}

/* A line's figures as the probe could have made them (the file is the user's to edit or
 * break): anything else is not used, and the probe runs again. */
static int line_ok(int mode, double ns, double fs, int nr, int fr, double run, double t)
{
	double now = (double)time(NULL);

	return spread_ok(nr, ns) && nr >= 2 && spread_ok(fr, fs) &&
	       (mode != PBENCH_PRIORITY_FIFO || fr >= 2) && isfinite(run) && run > 0 &&
	       isfinite(t) && t > 0 && t <= now + 60;
}

int pb_prio_cache_get(struct pbench_prepared *p, int *mode, double *when)
{
	char path[4096], boot[64], line[LINE_MAX_LEN], b[64], kind[8];
	int found = 0, cpu, m, nr, fr;
	double ns, fs, run, t;
	FILE *f;

	if (boot_id(boot, sizeof(boot)) || cache_path(path, sizeof(path), 0))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d %7s %d %lf %lf %d %d %lf %lf", b, &cpu, kind, &m, &ns,
			   &fs, &nr, &fr, &run, &t) == 10 && !strcmp(b, boot) && cpu == p->cpu &&
		    !strcmp(kind, work_kind(p)) &&
		    (m == PBENCH_PRIORITY_NICE || m == PBENCH_PRIORITY_FIFO)) {
			if (!line_ok(m, ns, fs, nr, fr, run, t)) {
				pb_log(PBENCH_LOG_DEBUG, "priority cache '%s': a line for CPU %d "
				       "with figures no probe makes, not used", path, cpu);
				continue;
			}
			*mode = m;
			*when = t;
			p->prio.nice_spread_pct = ns;
			p->prio.fifo_spread_pct = fs;
			p->prio.nice_runs = nr;
			p->prio.fifo_runs = fr;
			p->prio.run_ms = run;
			found = 1;
		}
	fclose(f);
	return found;
}

/* Copy the lines of this boot other than this CPU's and kind's to out. */
static void keep_others(FILE *out, const char *path, const char *boot,
			const struct pbench_prepared *p)
{
	char line[LINE_MAX_LEN], b[64], kind[8];
	FILE *f = fopen(path, "re");
	int cpu;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d %7s", b, &cpu, kind) == 3 && !strcmp(b, boot) &&
		    (cpu != p->cpu || strcmp(kind, work_kind(p))) && strchr(line, '\n'))
			fputs(line, out);
	fclose(f);
}

int pb_prio_cache_put(const struct pbench_prepared *p, int mode)
{
	char path[4096], boot[64];
	struct pbench_output *o;
	FILE *f;
	int err;

	if ((err = boot_id(boot, sizeof(boot))) || (err = cache_path(path, sizeof(path), 1)))
		return err;
	err = pbench_output_open(&o, path);
	if (err)
		return err;
	f = pbench_output_file(o);
	keep_others(f, path, boot, p);
	fprintf(f, "%s %d %s %d %.17g %.17g %d %d %.17g %.0f\n", boot, p->cpu, work_kind(p), mode,
		p->prio.nice_spread_pct, p->prio.fifo_spread_pct, p->prio.nice_runs,
		p->prio.fifo_runs, p->prio.run_ms, (double)time(NULL));
	return pbench_output_close(o, 1);
}
