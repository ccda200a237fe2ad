/* SPDX-License-Identifier: MIT */
/*
 * bench_export: what a profile's exports cost (lib/src/profile/export.h, issue 36): STACKS
 * distinct stacks (8 to 40 frames from the root, over FUNCS functions in three DSOs, a tenth
 * of the frames inlined, a twentieth the kernel's) written as a flame graph (SVG) and as
 * pprof's profile.proto, gzipped, each to a temporary file. Timed on CLOCK_MONOTONIC, the
 * best of REPS; memory: the peak resident size above what it was before the write (VmHWM
 * after less VmRSS before, the peak reset through /proc/self/clear_refs; "n/a" where the
 * kernel refuses that). Exit 0 when it measured, 1 when a writer failed (the reason printed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pbench.h"
#include "profile/export.h"

#define STACKS 100000
#define FUNCS 5000
#define REPS 3

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* kB of /proc/self/status's field ("VmRSS:"), -1 when unread. */
static long status_kb(const char *field)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = strtol(line + strlen(field), NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/* 0 when the peak was reset to the present size. */
static int peak_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	int ok = f && fputs("5", f) >= 0;

	return f && !fclose(f) && ok ? 0 : -1;
}

typedef int (*writer_fn)(FILE *, const struct pb_xstack *, size_t, const void *);

static int svg_w(FILE *f, const struct pb_xstack *s, size_t n, const void *o)
{
	return pb_flame_write_svg(f, s, n, o);
}

static int pprof_w(FILE *f, const struct pb_xstack *s, size_t n, const void *o)
{
	return pb_pprof_write(f, s, n, o);
}

static int measure(const char *what, writer_fn w, const void *opts,
		   const struct pb_xstack *st, size_t n)
{
	char path[] = "/tmp/pbench-bench-export-XXXXXX";
	double best = INFINITY;
	long grow = -1;
	struct stat sb = { 0 };
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("bench_export: mkstemp");
		return -1;
	}
	close(fd);
	for (int r = 0; r < REPS; r++) {
		FILE *f = fopen(path, "w");
		long before = status_kb("VmRSS:");
		int reset = peak_reset(), err;
		double t0 = now_s();

		err = f ? w(f, st, n, opts) : -errno;
		if (f && fclose(f) && !err)
			err = -EIO;
		if (err) {
			fprintf(stderr, "bench_export: %s: %s\n", what, pbench_strerror(err));
			unlink(path);
			return -1;
		}
		best = fmin(best, now_s() - t0);
		if (!reset && before >= 0 && status_kb("VmHWM:") >= before)
			grow = status_kb("VmHWM:") - before;
	}
	stat(path, &sb);
	unlink(path);
	printf("  %-22s %8.3f s   %7.1f MB written   ", what, best, (double)sb.st_size / 1e6);
	if (grow >= 0)
		printf("peak memory +%.1f MB\n", (double)grow / 1024);
	else
		printf("peak memory n/a (/proc/self/clear_refs refused)\n");
	return 0;
}

int main(void)
{
	static const struct pb_xdso dsos[] = {
		{ "/usr/bin/prog", "0123456789abcdef0123456789abcdef01234567", 0x400000, 0x800000, 0 },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", "89abcdef", 0, 0, 0 },
		{ "[kernel.kallsyms]", NULL, 0, 0, 0 },
	};
	struct pb_xframe *fr = calloc(FUNCS, sizeof(*fr));
	char (*names)[48] = calloc(FUNCS, sizeof(*names));
	struct pb_xstack *st = calloc(STACKS, sizeof(*st));
	const struct pb_xframe **chain = calloc((size_t)STACKS * 40, sizeof(*chain));
	struct pb_flame_opts fo = { .title = "bench_export", .subtitle = "100,000 stacks" };
	struct pb_pprof_opts po = { .period = 250000 };
	size_t used = 0, frames = 0;
	int rc = 0;

	if (!fr || !names || !st || !chain)
		return 1;
	for (unsigned i = 0; i < FUNCS; i++) {
		unsigned kind = rnd(20);

		snprintf(names[i], sizeof(names[i]), "ns::function_%u<int>", i);
		fr[i] = (struct pb_xframe){ names[i], &dsos[kind == 0 ? 2 : kind < 8 ? 1 : 0],
					    "src/file.c", i % 900 + 1,
					    (kind == 0 ? PB_XF_KERNEL : 0) | (rnd(10) ? 0 : PB_XF_INLINED),
					    0x400000 + 16ull * i, NAN, 0 };
	}
	for (size_t i = 0; i < STACKS; i++) {
		int n = 8 + (int)rnd(33);

		st[i] = (struct pb_xstack){ chain + used, n, 1000.0 + rnd(1000000), 1 + rnd(50),
					    NAN, 0 };
		chain[used++] = &fr[0];	/* one root: main */
		for (int k = 1; k < n; k++)	/* fan out slowly: shared prefixes, as real stacks */
			chain[used++] = &fr[k < 4 ? rnd(8 * (unsigned)k) : rnd(FUNCS)];
		frames += (size_t)n;
	}
	printf("bench_export: %d stacks (%zu frames, %d functions), best of %d:\n", STACKS,
	       frames, FUNCS, REPS);
	if (measure("flame graph (SVG)", svg_w, &fo, st, STACKS) ||
	    measure("pprof (profile.proto.gz)", pprof_w, &po, st, STACKS))
		rc = 1;
	free(fr), free(names), free(st), free(chain);
	return rc;
}
