/* SPDX-License-Identifier: MIT */
/* Built-in workloads: known work to measure when no command is given: the xor loop (the
 * core's arithmetic, no memory) and the memory walk (one cache miss per step). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base/base.h"

uint64_t pbench_workload_xor(uint64_t iterations, uint64_t seed)
{
	uint64_t r = 0;

	for (uint64_t i = 0; i < iterations; i++) {
		r ^= i ^ seed;
		/* Keep the loop a loop: without this the compiler folds it to a closed form. */
		__asm__ volatile("" : "+r"(r));
	}
	return r;
}

/* The one place the built-in workloads' default sizes are defined (runs, contests and the
 * CLI's help all ask here): about 0.1 s of xor, 30 ms of memwalk at the 150 ns a step
 * measured here. */
uint64_t pbench_workload_default_iterations(int kind)
{
	return kind == PBENCH_WORKLOAD_MEMWALK ? 200000ULL : kind == PBENCH_WORKLOAD_XOR ?
	       100000000ULL : 0;
}

/*
 * The memory walk: one random cycle through every 64-byte line of a buffer, each line holding
 * the address of the next. Every step is a load whose address depends on the one before, to
 * a line chosen at random: the prefetchers cannot guess it, and out-of-order execution cannot
 * overlap it, so a buffer well over the last-level cache makes each step one cache miss (and,
 * over 2 MiB pages, mostly one TLB miss).
 */
#define LINE 64

struct pbench_walk {
	void **lines;		/* n lines of LINE bytes; lines[i * LINE / sizeof(void *)] */
	size_t n, bytes;
	void **pos;		/* where the next call starts: the walk goes on round the cycle */
};

/* xorshift64*: enough randomness to defeat a prefetcher, reproducible from the seed. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

int pbench_walk_new(struct pbench_walk **out, size_t bytes, uint64_t seed)
{
	struct pbench_walk *w;
	uint32_t *order;
	size_t n = bytes / LINE, stride = LINE / sizeof(void *);
	uint64_t s = seed ? seed : 0x9E3779B97F4A7C15ULL;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (n < 2 || n > UINT32_MAX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	order = malloc(n * sizeof(*order));
	if (!w || !order)
		goto nomem;
	w->bytes = n * LINE;
	w->n = n;
	w->lines = mmap(NULL, w->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->lines == MAP_FAILED)
		goto nomem;
	/* Sattolo's shuffle gives a single cycle through all n lines, so no walk gets stuck in
	 * a short loop that fits in the cache. */
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_rand(&s) % i);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* order[] is now a permutation with one cycle: line i points to line order[i]. Writing
	 * every line also faults the whole buffer in before anything is timed. */
	for (size_t i = 0; i < n; i++)
		w->lines[i * stride] = &w->lines[(size_t)order[i] * stride];
	free(order);
	w->pos = &w->lines[0];
	*out = w;
	return 0;
nomem:
	free(order);
	if (w && w->lines && w->lines != MAP_FAILED)
		munmap(w->lines, w->bytes);
	free(w);
	return -ENOMEM;
}

uint64_t pbench_walk_run(struct pbench_walk *w, uint64_t steps)
{
	void **p = w->pos;

	for (uint64_t i = 0; i < steps; i++)
		p = (void **)*p;
	w->pos = p;
	/* The line reached: depends on every load, so none can be dropped. */
	return (uint64_t)((char *)p - (char *)w->lines) / LINE;
}

size_t pbench_walk_bytes(const struct pbench_walk *w)
{
	return w ? w->bytes : 0;
}

void pbench_walk_free(struct pbench_walk *w)
{
	if (!w)
		return;
	munmap(w->lines, w->bytes);
	free(w);
}

size_t pbench_walk_default_bytes(void)
{
	char buf[64];
	size_t llc = 0, best = 64UL << 20;

	/* The largest cache CPU 0 reports (index3 is the L3 on x86), times 4. */
	for (int i = 0; i < 8; i++) {
		char path[96];
		unsigned long long v;
		char unit = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (pb_read_file(path, buf, sizeof(buf)) < 0)
			continue;
		if (sscanf(buf, "%llu%c", &v, &unit) < 1)
			continue;
		v *= unit == 'K' ? 1024ULL : unit == 'M' ? 1024ULL * 1024 : 1;
		if (v > llc)
			llc = (size_t)v;
	}
	if (llc && 4 * llc > best)
		best = 4 * llc;
	return best;
}
