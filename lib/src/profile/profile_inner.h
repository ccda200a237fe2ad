/* SPDX-License-Identifier: MIT */
/*
 * The insides of the profile module, for its own files only: a profile (struct pb_profile),
 * its rings and its compact store. Other modules use profile/profile.h.
 *
 * The store keeps a sample in 32 bytes (struct pb_prof_sample) and its frames in one array of
 * 8 bytes a frame: 64 bytes a sample of tests/data/profile/shares (4 frames; bench_profile),
 * 0.26 MB a second of a thread at 4 kHz. DWARF mode adds the registers and the part of each
 * sample's stack copy the kernel could fill (up to stack_bytes) in one blob, found through a
 * parallel array of offsets kept only in that mode: 1.4 to 6 KB a sample of shares, as its
 * stack's top (its environment) is near or far.
 */
#ifndef PBENCH_PROFILE_PROFILE_INNER_H
#define PBENCH_PROFILE_PROFILE_INNER_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* A growing array of bytes. */
struct pb_prof_buf {
	unsigned char *v;
	size_t n, cap;
};

/* One CPU's ring, and the bytes copied out of it, parsed after the run. */
struct pb_prof_ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *page;
	size_t len, data_size;
	struct pb_prof_buf raw;
};

struct pb_prof_sample {
	uint64_t time;
	uint64_t period;
	uint32_t pid, tid;
	uint32_t chain;		/* its first frame in ips */
	uint16_t nips;
	uint8_t nkernel;
	uint8_t flags;		/* PB_PROF_CUT, PB_PROF_STACK_FULL */
};
#define PB_PROF_CUT 1
#define PB_PROF_STACK_FULL 2

struct pb_prof_map {
	uint64_t start, len, pgoff, time;
	uint32_t pid, prot;
	uint32_t path;		/* offset in strs */
	uint8_t build_id_size;
	uint8_t build_id[20];
};

/* FORK and EXIT (exit 1) records, COMM ones (comm: the name's offset in strs; exec 1). */
struct pb_prof_task {
	uint64_t time;
	uint32_t pid, ppid, tid, ptid;
	uint32_t comm;
	uint8_t kind;		/* PB_TASK_FORK, PB_TASK_EXIT, PB_TASK_COMM */
	uint8_t exec;
};
enum { PB_TASK_FORK, PB_TASK_EXIT, PB_TASK_COMM };

struct pb_profile {
	struct pb_profile_opts o;
	char event[128];
	int kind;			/* enum pbench_event_kind: what an open's error means */
	struct perf_event_attr attr;
	int kernel;			/* the kernel sampled */
	const char *kernel_why;
	int state;			/* 0 new, 1 started, 2 ended */

	struct pb_prof_ring *rings;
	int nrings;
	uint64_t drains;
	uint64_t copy_ns, parse_ns;	/* pbench's copies during the run; the parse after it */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC: the events armed; the wait's end */

	struct pb_prof_sample *s;
	size_t ns, cap_s;
	uint64_t *ips;
	size_t nips, cap_ips;
	size_t *dwarf_at;		/* DWARF: each sample's entry in blob */
	struct pb_prof_buf blob;	/* abi, regs[nregs], stack length, stack bytes (padded to 8) */
	unsigned nregs;
	struct pb_prof_map *maps;
	size_t nmaps, cap_maps;
	struct pb_prof_task *tasks;
	size_t ntasks, cap_tasks;
	struct pb_prof_buf strs;

	uint64_t lost, lost_samples, throttled, unthrottled, cut, bad;
	long max_rate_before, max_rate_after;
	unsigned max_stack;		/* perf_event_max_stack: a chain this long may be cut */
	size_t raw_bytes;
};

/* profile_data.c: the store's growth (0, -ENOMEM) and its release. */
int pb_prof_buf_put(struct pb_prof_buf *b, const void *v, size_t n);
int pb_prof_grow(void **v, size_t *cap, size_t n, size_t size);
uint32_t pb_prof_str(struct pb_profile *p, const char *s, size_t len);
void pb_prof_data_free(struct pb_profile *p);

/* profile_ring.c: the events on pid, one a CPU, their rings mapped (0 with at least one, or
 * the first error: -errno, with why); a copy of what each ring holds into its raw buffer
 * (0, -ENOMEM); the rings unmapped and closed (their raw bytes kept). */
int pb_prof_rings_open(struct pb_profile *p, pid_t pid);
int pb_prof_rings_drain(struct pb_profile *p);
void pb_prof_rings_close(struct pb_profile *p);

/* profile_parse.c: every ring's raw records into the store, then the raw bytes freed. 0,
 * -ENOMEM. */
int pb_prof_parse(struct pb_profile *p);

#endif
