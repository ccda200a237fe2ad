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

#define PB_MEM_SHIM_VERSION 1

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
 * shim with owner 0 claims it (its pid); a process image that the owner exec()s (env, nice,
 * taskset as wrappers) has the same pid and goes on counting into it. Every other process
 * (children the command forks or execs) only adds 1 to others: their allocations are not
 * counted, and the report says how many there were.
 */
#define PB_MEM_FILE_MAGIC 0x70626d656d310a00ULL	/* "pbmem1\n" */
struct pb_mem_file {
	uint64_t magic;
	int32_t owner;			/* pid of the counted process, 0 until claimed */
	uint32_t others;		/* other processes that loaded the shim */
	struct pb_mem_counts c;		/* updated atomically (the command may have threads) */
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
