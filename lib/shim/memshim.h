/* SPDX-License-Identifier: MIT */
/*
 * The interface between libpbench and libpbench-mem.so, the allocator shim (lib/shim/mem.c).
 * Never installed: the library finds the shim at run time (dlsym of pbench_mem_shim), and a
 * command finds it through LD_PRELOAD, so both sides of this header ship together.
 *
 * Why a shim of its own rather than malloc defined in libpbench: a program linked with
 * libpbench would then always run on an interposed allocator, even where nothing is counted;
 * under AddressSanitizer, whose runtime comes first in the link order, libpbench's malloc is
 * never called at all; and a command needs the same counting preloaded into a process that
 * knows nothing of libpbench. One shim serves the function and the command alike.
 */
#ifndef PBENCH_MEMSHIM_H
#define PBENCH_MEMSHIM_H

#include <stdint.h>
#include <sys/types.h>

#define PB_MEM_SHIM_VERSION 2

/* What one counting window saw. bytes: asked for (malloc(100) is 100). live and peak are in
 * the allocator's usable sizes (what malloc_usable_size says), since a free does not say how
 * much was asked: live is the net growth since the window opened (negative when it frees
 * older blocks), peak its highest value. realloc(p, n) of a live p is one free and one
 * allocation of n bytes; realloc(p, 0) is a free; realloc(NULL, n) a malloc. */
struct pb_mem_counts {
	uint64_t allocs, frees, bytes;
	int64_t live, peak;
};

/*
 * The record a command's shim writes into: a small shared file named by PBENCH_MEM_FILE,
 * created and zeroed by pbench before the command starts. The first process that loads the
 * shim with owner 0 claims it (its pid). Only the process's last image is counted: an image
 * its owner exec()s that loads the shim again (env, nice, taskset as wrappers: same pid)
 * zeroes c and counts its own. An exec of the owner sets exec_pending first (the shim's exec
 * wrappers), and the image that loads the shim clears it: still set after the command ended,
 * the last image never loaded the shim (LD_PRELOAD cleared, a static or setuid program), and
 * c is another image's, not the command's. own_malloc is 0 when the last image's malloc,
 * calloc, realloc or free is not the shim's (the program defines its own: its calls never
 * reach the shim).
 *
 * Every other process (children the command forks, with fork() or a raw syscall, or spawns)
 * is not counted; its pid goes into pids once (a fork and the exec that follows it are one
 * child), and others says how many there were, at most PB_MEM_OTHERS_MAX (then "at least").
 */
#define PB_MEM_FILE_MAGIC 0x70626d656d320a00ULL	/* "pbmem2\n" */
#define PB_MEM_OTHERS_MAX 1024
struct pb_mem_file {
	uint64_t magic;
	int32_t owner;			/* pid of the counted process, 0 until claimed */
	uint32_t others;		/* other processes that loaded the shim (distinct pids) */
	struct pb_mem_counts c;		/* updated atomically (the command may have threads) */
	uint32_t images;		/* images of the owner that loaded the shim */
	int32_t exec_pending;		/* the owner exec()ed, no image has loaded the shim since */
	int32_t own_malloc;		/* 1: the last image's allocator is the shim */
	uint32_t npids;			/* slots of pids taken (may pass PB_MEM_OTHERS_MAX) */
	int32_t pids[PB_MEM_OTHERS_MAX];
};

struct pb_mem_shim {
	int version;
	/* Count the calling thread's calls into c until called again with NULL. The counts
	 * are the caller's to zero before. */
	void (*count)(struct pb_mem_counts *c);
};

/* Exported by libpbench-mem.so. */
const struct pb_mem_shim *pbench_mem_shim(void);

#endif
