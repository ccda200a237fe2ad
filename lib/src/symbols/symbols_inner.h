/* SPDX-License-Identifier: MIT */
/*
 * The symbols module's own structs and what only its files call (symbols.h says what the
 * module is). libdwfl's objects are named by their struct tags (struct Dwfl, struct
 * Dwfl_Module), so that this header compiles where libdw is not built in (DW=0).
 */
#ifndef PBENCH_SYMBOLS_SYMBOLS_INNER_H
#define PBENCH_SYMBOLS_SYMBOLS_INNER_H

#include <stdint.h>
#include <sys/types.h>

#include "symbols/symbols.h"

struct Dwfl;
struct Dwfl_Module;

/* sym_kernel.c: /proc/kallsyms, text symbols sorted by address. */
struct pb_ksym {
	uint64_t addr;
	uint32_t name, mod;	/* offsets into text; mod 0: the kernel itself */
};
struct pb_ksyms {
	struct pb_ksym *sym;
	size_t n;
	char *text;		/* names, NUL-separated; offset 0 is "" */
	int hidden;		/* every address read 0: kptr_restrict hides them */
};
/* Read /proc/kallsyms (pb_fopen) into k. 0, -errno of the open (pb_fail), -ENOMEM. */
int pb_ksyms_read(struct pb_ksyms *k);
/* The index of the symbol holding addr (the last at or below it), or -1 (below the first). */
long pb_ksyms_find(const struct pb_ksyms *k, uint64_t addr);
void pb_ksyms_release(struct pb_ksyms *k);

/* sym_jit.c: a JIT's perf map, "START SIZE name" a line (hex, hex, the rest). */
struct pb_jit_entry {
	uint64_t start, end;
	char *name;
};
/* dir/perf-PID.map (dir NULL: /tmp) into *out (sorted by start, *n entries; malloc'd, freed
 * by pb_jit_free), read only if it is a regular file, not a link, owned by uid. 0 with *n 0
 * when there is none; -EACCES (pb_fail: a link, another owner), -errno, -ENOMEM. */
int pb_jit_read(const char *dir, pid_t pid, uid_t uid, struct pb_jit_entry **out, size_t *n,
		char *path, size_t path_len);
void pb_jit_free(struct pb_jit_entry *e, size_t n);

/* sym_dwarf.c: a DSO's function symbols (.symtab, else .dynsym; the debug file's where the
 * file is stripped), sorted by file address: libdwfl looks a symbol up by a walk of the whole
 * table (1 ms an address in libc), this by a binary search. */
struct pb_tsym {
	uint64_t addr, size;	/* file address (the runtime one less the load bias) */
	uint32_t name;		/* offset into text */
	uint32_t rank;		/* among aliases, lower is preferred: global, weak, local */
};
struct pb_symtab {
	struct pb_tsym *sym;
	size_t n;
	char *text;
	int built;
};
/* The table of mod (loaded at bias) into t. 0, -ENOMEM. */
int pb_symtab_build(struct Dwfl_Module *mod, uint64_t bias, struct pb_symtab *t);
/* The name of the function holding file address a, or NULL. */
const char *pb_symtab_find(const struct pb_symtab *t, uint64_t a);
void pb_symtab_release(struct pb_symtab *t);
/* The frames of addr in mod, innermost first (the inlined ones, then their function), at most
 * max: names as DWARF gives them (mangled), the outermost elfname when given (the symbol
 * table's name for it); files and names owned by libdwfl. Returns how many (0: nothing known
 * of addr). */
size_t pb_dwarf_frames(struct Dwfl_Module *mod, uint64_t addr, const char *elfname,
		       struct pb_frame *f, size_t max);

/* symbols.c: a DSO's symbols by address in the file's own addresses (its vaddrs: the same in
 * every process, whatever its load bias), open addressing. */
struct pb_cache {
	uint64_t *key;
	const struct pb_sym **val;
	size_t cap, used;	/* cap a power of two, 0 before the first insert */
};

struct pb_dso {
	char *id;		/* build-id in hex, or "path dev ino size mtime" */
	char *path;
	struct pb_cache cache;
	struct pb_symtab symtab;
};

/* One mapping of a space: addresses [start, end) are the DSO's (or name's) at start - bias. */
struct pb_smap {
	uint64_t start, end, pgoff, bias;
	struct pb_dso *dso;	/* NULL: no file to read (anon, [vdso], unreadable: why) */
	char *name;
	const char *why;
	struct Dwfl_Module *mod;
	const struct pb_sym *unknown;	/* "[unknown] in name", made on first need */
};

/* What the unwinder reads during one pb_space_unwind() (unwind.c). */
struct pb_unwind_state {
	const uint64_t *regs;
	uint64_t mask;
	const unsigned char *stack;
	size_t size;
	uint64_t sp;
	uint64_t *ips;
	size_t max, n;
	uint64_t past;		/* an address read past the stack copy's end (0: none) */
	int full;		/* more frames than max */
	int attached;
	char why[192];		/* the last cut's reason */
};

struct pb_space {
	struct pb_syms *s;
	pid_t pid;
	struct Dwfl *dwfl;
	struct pb_smap *map;
	size_t n, cap;
	int sorted;
	struct pb_jit_entry *jit;
	size_t n_jit;
	const struct pb_sym **jit_sym;	/* made on first lookup */
	const char *jit_dso;
	struct pb_unwind_state uw;
	struct pb_space *next;
};

/* A pb_space's map holding addr, or NULL (symbols.c). */
const struct pb_smap *pb_space_map_at(struct pb_space *sp, uint64_t addr);

#endif
