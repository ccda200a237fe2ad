/* SPDX-License-Identifier: MIT */
/*
 * bench_symbols: what symbolizing a profile's samples costs (lib/src/symbols/), the goal of
 * issue 36: 1 M samples' addresses in under a second with the cache warm.
 *
 * The addresses are those of a real process, this one: DISTINCT addresses spread evenly over
 * the executable mappings of libc and of this program (a profile's samples fall on few
 * distinct addresses; each is looked up many times). Timed, each on CLOCK_MONOTONIC:
 *   - the space: /proc/self/maps read and every file opened and reported to libdwfl (once per
 *     run's process);
 *   - cold: each distinct address looked up once (libdw reads the DWARF, the symbol table,
 *     the lines, the inline chain);
 *   - warm: SAMPLES lookups over those addresses in a scattered order (every one a hit);
 *   - another space: a second process's maps (as the next run's) at the same files, its
 *     lookups hits of the first's cache (per build-id and file address);
 *   - the kernel: the first kernel address (reads /proc/kallsyms), where it can be read.
 * Where binutils' addr2line is installed, the same libc addresses through one addr2line -f -i
 * process for comparison (the path perf report takes without libdw).
 * Exit 0 when it could measure, 1 when it could not (the reason is printed).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/symbols.h"

#define DISTINCT 1000
#define SAMPLES 1000000

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* An executable mapping of this process whose path holds name: [start, end), its offset. */
static int exec_map(const char *name, uint64_t *start, uint64_t *end, uint64_t *pgoff,
		    char *path, size_t len)
{
	char line[4200], perms[8];
	int at, found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*u %n", start, end,
			   perms, pgoff, &at) >= 4 && at && strchr(perms, 'x') && strstr(line, name)) {
			snprintf(path, len, "%s", line + at);
			path[strcspn(path, "\n")] = 0;
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* DISTINCT addresses: half over libc's text, half over this program's; libc's path and the
 * offset that makes its addresses file addresses (its text's vaddr is its file offset). */
static int pick(uint64_t *addr, char *libc, size_t len, uint64_t *libc_bias)
{
	uint64_t s[2], e[2], off[2];
	char self[4200];

	if (exec_map("/libc.so", &s[1], &e[1], &off[1], libc, len) ||
	    exec_map("bench_symbols", &s[0], &e[0], &off[0], self, sizeof(self)))
		return -1;
	for (int i = 0; i < DISTINCT; i++)
		addr[i] = s[i % 2] + (e[i % 2] - s[i % 2]) * (uint64_t)(i / 2) / (DISTINCT / 2);
	*libc_bias = s[1] - off[1];
	return 0;
}

/* The libc addresses through one addr2line process: its seconds, or -1. */
static double addr2line_s(const uint64_t *addr, const char *lib, uint64_t bias)
{
	char cmd[4400];
	double t0 = now_s();
	FILE *p;

	if (system("command -v addr2line >/dev/null 2>&1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' >/dev/null", lib);
	if (!(p = popen(cmd, "w")))
		return -1;
	for (int i = 1; i < DISTINCT; i += 2)
		fprintf(p, "%#" PRIx64 "\n", addr[i] - bias);
	return pclose(p) == 0 ? now_s() - t0 : -1;
}

static int lookups(struct pb_space *sp, const uint64_t *addr, long n, int scatter)
{
	const struct pb_sym *s;
	uint64_t x = 1;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if (pb_space_lookup(sp, addr[scatter ? (x >> 33) % DISTINCT : (uint64_t)i], &s))
			return -1;
	}
	return 0;
}

int main(void)
{
	static uint64_t addr[DISTINCT];
	struct pb_syms *syms;
	struct pb_space *sp, *next;
	uint64_t bias, nl, hits, kaddr = 0xffffffff81000000ull;
	const struct pb_sym *k;
	char libc[4200];
	double t0, t_space, t_cold, t_warm, t_next, t_kernel, t_a2l;

	if (pb_syms_new(&syms, NULL) || pb_space_new(syms, getpid(), &sp)) {
		printf("bench_symbols: not measured: the symbolizer could not start\n");
		return 1;
	}
	if (pick(addr, libc, sizeof(libc), &bias)) {
		printf("bench_symbols: not measured: no libc or program mapping found\n");
		return 1;
	}
	t0 = now_s();
	if (pb_space_read_maps(sp)) {
		printf("bench_symbols: not measured: /proc/self/maps could not be read\n");
		return 1;
	}
	t_space = now_s() - t0;
	t0 = now_s();
	lookups(sp, addr, DISTINCT, 0);
	t_cold = now_s() - t0;
	t0 = now_s();
	lookups(sp, addr, SAMPLES, 1);
	t_warm = now_s() - t0;
	t0 = now_s();
	if (pb_space_new(syms, getpid(), &next) || pb_space_read_maps(next) ||
	    lookups(next, addr, DISTINCT, 0))
		return 1;
	t_next = now_s() - t0;
	t0 = now_s();
	pb_space_lookup(sp, kaddr, &k);
	t_kernel = now_s() - t0;
	pb_syms_counts(syms, &nl, &hits);
	printf("bench_symbols: %d distinct addresses (libc and this program), %d samples\n",
	       DISTINCT, SAMPLES);
	printf("  space (maps read, files reported)  %8.2f ms\n", t_space * 1e3);
	printf("  cold: each address once            %8.2f ms  (%.1f us an address)\n",
	       t_cold * 1e3, t_cold * 1e6 / DISTINCT);
	printf("  warm: %d lookups             %8.2f ms  (%.1f ns a lookup; goal: under 1 s)\n",
	       SAMPLES, t_warm * 1e3, t_warm * 1e9 / SAMPLES);
	printf("  another process, same files        %8.2f ms  (space and %d lookups, all hits)\n",
	       t_next * 1e3, DISTINCT);
	printf("  kernel: first address (kallsyms)   %8.2f ms  %s\n", t_kernel * 1e3,
	       pb_syms_kernel_why(syms) ? pb_syms_kernel_why(syms) : k->frames[0].function);
	printf("  lookups %" PRIu64 ", cache hits %" PRIu64 "\n", nl, hits);
	if ((t_a2l = addr2line_s(addr, libc, bias)) >= 0)
		printf("  addr2line -f -i, %d libc addresses  %8.2f ms  (one process, for comparison)\n",
		       DISTINCT / 2, t_a2l * 1e3);
	else
		printf("  addr2line: not measured (binutils' addr2line is not installed)\n");
	pb_syms_free(syms);
	return 0;
}
