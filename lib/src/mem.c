/* SPDX-License-Identifier: MIT */
/*
 * Counting a sample's allocations through libpbench-mem.so (lib/shim/mem.c), found at run time
 * in this process: linked in (-lpbench-mem) or preloaded. Finding its symbol is not enough:
 * a sanitizer's runtime or another allocator linked before it gets the calls instead, so a
 * probe allocation, counted or not, decides.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "../shim/memshim.h"

static const struct pb_mem_shim *shim;
static int shim_status;
static const char *shim_reason;
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;
/* The window a pause closed, to open again on resume. */
static __thread struct pb_mem_counts *paused, *open_window;

/* Through a volatile pointer: the compiler may delete a malloc whose block is only freed. */
static void *(*volatile probe_malloc)(size_t) = malloc;

static void shim_find(void)
{
	const struct pb_mem_shim *(*get)(void);
	struct pb_mem_counts c = { 0 };
	void *p;

	shim_status = PBENCH_MEM_NOT_INTERPOSED;
	*(void **)&get = dlsym(RTLD_DEFAULT, "pbench_mem_shim");
	if (!get) {
		shim_reason = "the allocator is not interposed: libpbench-mem.so is not loaded "
			      "(link with -lpbench-mem, or run with LD_PRELOAD=libpbench-mem.so)";
		return;
	}
	shim = get();
	if (!shim || shim->version != PB_MEM_SHIM_VERSION) {
		shim = NULL;
		shim_reason = "libpbench-mem.so is of another version than libpbench";
		return;
	}
	shim->count(&c);
	p = probe_malloc(24);
	free(p);
	shim->count(NULL);
	if (!p || c.allocs != 1 || c.frees != 1 || c.bytes != 24) {
		shim = NULL;
		shim_reason = "the allocator is not interposed: libpbench-mem.so is loaded but "
			      "another malloc comes first (a sanitizer's runtime?): preload it with "
			      "LD_PRELOAD=libpbench-mem.so";
		return;
	}
	shim_status = PBENCH_MEM_COUNTED;
}

int pb_mem_open(const char **reason)
{
	pthread_once(&shim_once, shim_find);
	if (shim_status != PBENCH_MEM_COUNTED)
		pb_log(PBENCH_LOG_WARN, "memory: not counted: %s", shim_reason);
	*reason = shim_reason;
	return shim_status;
}

void pb_mem_begin(struct pb_mem_counts *c)
{
	*c = (struct pb_mem_counts){ 0 };
	open_window = c;
	shim->count(c);
}

void pb_mem_end(void)
{
	shim->count(NULL);
	open_window = NULL;
}

void pb_mem_pause(void)
{
	if (!open_window)
		return;
	paused = open_window;
	pb_mem_end();
}

void pb_mem_resume(void)
{
	if (!paused)
		return;
	open_window = paused;
	paused = NULL;
	shim->count(open_window);
}
