/* SPDX-License-Identifier: MIT */
/*
 * The symbols module where libdw is not built in (DW=0: a static or cross build, whose
 * sysroot has no libdw): every space refused with the reason, so a profile says why it has
 * no names and no DWARF call chains instead of failing to link.
 */
#ifndef PBENCH_HAVE_LIBDW
#include <errno.h>
#include <stdlib.h>

#include "base/base.h"
#include "symbols/symbols.h"

struct pb_syms {
	int unused;
};

int pb_syms_new(struct pb_syms **out, const char *const *debug_dirs)
{
	(void)debug_dirs;
	*out = NULL;
	return pb_fail(-ENOTSUP, "pb_syms_new(): pbench was built without libdw (DW=0): no "
		       "symbols, no DWARF unwinding");
}

void pb_syms_free(struct pb_syms *s)
{
	free(s);
}

int pb_syms_demangles(struct pb_syms *s)
{
	(void)s;
	return 0;
}

const char *pb_syms_kernel_why(struct pb_syms *s)
{
	(void)s;
	return "built without libdw";
}

void pb_syms_counts(const struct pb_syms *s, uint64_t *lookups, uint64_t *hits)
{
	(void)s;
	*lookups = *hits = 0;
}

int pb_space_new(struct pb_syms *s, pid_t pid, struct pb_space **out)
{
	(void)s, (void)pid;
	*out = NULL;
	return -ENOTSUP;
}

void pb_space_free(struct pb_space *sp)
{
	(void)sp;
}

int pb_space_add_map(struct pb_space *sp, const struct pb_map *m)
{
	(void)sp, (void)m;
	return -ENOTSUP;
}

int pb_space_fork(struct pb_space *parent, pid_t pid, struct pb_space **out)
{
	(void)parent, (void)pid;
	*out = NULL;
	return -ENOTSUP;
}

int pb_space_read_maps(struct pb_space *sp)
{
	(void)sp;
	return -ENOTSUP;
}

int pb_space_read_jit(struct pb_space *sp, const char *dir, uid_t uid)
{
	(void)sp, (void)dir, (void)uid;
	return -ENOTSUP;
}

int pb_space_lookup(struct pb_space *sp, uint64_t addr, const struct pb_sym **out)
{
	(void)sp, (void)addr;
	*out = NULL;
	return -ENOTSUP;
}

uint64_t pb_unwind_regs_mask(void)
{
	return 0;
}

int pb_space_unwind(struct pb_space *sp, const uint64_t *regs, uint64_t mask, const void *stack,
		    size_t size, uint64_t *ips, size_t max, size_t *n, const char **cut)
{
	(void)sp, (void)regs, (void)mask, (void)stack, (void)size, (void)ips, (void)max;
	*n = 0;
	*cut = "built without libdw";
	return -ENOTSUP;
}
#else
typedef int pb_symbols_none_unused;	/* libdw is built in: symbols.c and unwind.c */
#endif
