/* SPDX-License-Identifier: MIT */
/*
 * The symbols module (lib/src/symbols/): addresses of a sampled process turned into names
 * after the runs (never inside a timed span), and a sampled user stack unwound by DWARF CFI.
 * On libdw/libdwfl (elfutils), the library perf itself uses for both. Internal: no export yet.
 *
 * A pb_syms is the symbolizer of many processes: the debug directories, the DSOs it has seen
 * (one per build-id, or per path, device, inode, size and mtime where the file has none),
 * each with a cache of its addresses' symbols, and the kernel's symbols. A pb_space is one
 * process's address space on it: its maps (from the sampler's MMAP2 records, or
 * /proc/PID/maps), its JIT map. Not thread-safe: one thread at a time per pb_syms.
 *
 * Names are as libdw gives them: a C++ name is demangled through __cxa_demangle when
 * libstdc++ is in the process or can be loaded (pb_syms_demangles() says which), else left
 * mangled. What cannot be symbolized is a pb_sym whose function is NULL with its DSO named
 * ("[unknown] in libfoo.so"), never dropped.
 */
#ifndef PBENCH_SYMBOLS_SYMBOLS_H
#define PBENCH_SYMBOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pb_syms;
struct pb_space;

/* One mapping of a process, as PERF_RECORD_MMAP2 gives it: [start, end) maps the file at
 * path from file offset pgoff; build_id (build_id_size bytes, 0: not given) is checked against
 * the file's when given (a file changed since the run is not symbolized from the new one).
 * A path that is not a file ("[heap]", "//anon", "[vdso]", "") maps nothing to symbolize
 * except through the JIT map. */
struct pb_map {
	uint64_t start, end, pgoff;
	const char *path;
	const unsigned char *build_id;
	size_t build_id_size;
};

/* One frame of a symbolized address: the function (NULL: not known), the source file and
 * line (NULL and 0: not known), inlined: this frame's code was inlined into the next one. */
struct pb_frame {
	const char *function;
	const char *file;
	unsigned line;
	int inlined;
};

/* What an address is: n frames, innermost first (the inlined ones, then the function they
 * were inlined into, last), in the DSO named (a path, "[kernel.kallsyms]", "[module]",
 * "[JIT] /tmp/perf-PID.map", or the map's own name: "[vdso]", "//anon", "[unknown]" where no
 * map holds the address). Owned by the pb_syms, valid until pb_syms_free(). why: NULL, or
 * why the function is not known ("no symbol", "build-id differs", "kernel addresses hidden
 * (kptr_restrict)", ...). */
struct pb_sym {
	const char *dso;
	size_t n;
	const struct pb_frame *frames;
	const char *why;
};

/* symbols.c */
/* A symbolizer. debug_dirs: NULL, or a NULL-terminated list of directories looked in for
 * debug files, by build-id (DIR/.build-id/xx/yyyy.debug) and by .gnu_debuglink name, after
 * the file's own directory, its .debug and /usr/lib/debug. -ENOMEM, -EINVAL (pb_fail). */
int pb_syms_new(struct pb_syms **out, const char *const *debug_dirs);
void pb_syms_free(struct pb_syms *s);
/* 1 when C++ names are demangled (__cxa_demangle found), 0 when they are left mangled. */
int pb_syms_demangles(struct pb_syms *s);
/* NULL when the kernel's symbols were read (or not needed yet), else why not:
 * "/proc/kallsyms: ...", "kernel addresses hidden (kptr_restrict)". */
const char *pb_syms_kernel_why(struct pb_syms *s);
/* Lookups done and those answered from the cache, for the benchmark. */
void pb_syms_counts(const struct pb_syms *s, uint64_t *lookups, uint64_t *hits);

/* A process's address space on s (pid: the process's, used for /proc/PID/maps, the JIT map's
 * name and libdwfl's thread). Freed by pb_space_free() or with s. */
int pb_space_new(struct pb_syms *s, pid_t pid, struct pb_space **out);
void pb_space_free(struct pb_space *sp);
/* One mapping (its strings copied). A file that cannot be opened or read as ELF is kept: its
 * addresses are "[unknown] in PATH" with the reason. -ENOMEM, -EINVAL (start >= end). */
int pb_space_add_map(struct pb_space *sp, const struct pb_map *m);
/* A forked child's space (pid): a copy of parent's maps (the files reopened; their DSOs and
 * caches are the parent's), as PERF_RECORD_FORK asks; an exec is a new space. -ENOMEM. */
int pb_space_fork(struct pb_space *parent, pid_t pid, struct pb_space **out);
/* Every executable mapping of /proc/PID/maps (through pb_fopen: PBENCH_PROCFS_ROOT), for
 * tests and for a process still running. -errno of the open (pb_fail). */
int pb_space_read_maps(struct pb_space *sp);
/* The JIT's map dir/perf-PID.map (dir NULL: /tmp), read only when it is a regular file, not a
 * link, owned by uid (the process's user): its "START SIZE name" lines name the addresses no
 * file maps. 0 when there is none; -EACCES (a link, another owner), -errno (pb_fail). */
int pb_space_read_jit(struct pb_space *sp, const char *dir, uid_t uid);
/* The symbol of addr (a user address of this process, or a kernel one: the top bit set and
 * no map of the space holds it) into *out. The first lookup of an address of a DSO reads it;
 * every later one, in any space with the same DSO at any address, is a cache hit. 0, or
 * -ENOMEM. PERF_CONTEXT_* markers (from (uint64_t)-4095 up) are no addresses: the caller
 * skips them (looked up, they are "[unknown]" saying so). */
int pb_space_lookup(struct pb_space *sp, uint64_t addr, const struct pb_sym **out);

/* unwind.c */
/* The perf_event_attr.sample_regs_user for DWARF unwinding on this machine (x86_64: the
 * general registers, perf's PERF_REGS_MASK without the segment ones; arm64: x0-x30, sp, pc);
 * 0 where unwinding is not built (another architecture). */
uint64_t pb_unwind_regs_mask(void);
/* A sampled user stack unwound by CFI. regs: the values of the registers in mask, in the
 * order of its bits (PERF_SAMPLE_REGS_USER's layout; at least SP and IP), stack: the copy of
 * size bytes from SP upward (PERF_SAMPLE_STACK_USER's, size its dyn_size), of a process of
 * this machine's own ABI (a sample whose abi is not PERF_SAMPLE_REGS_ABI_64 on a 64-bit
 * machine is the caller's to skip: its registers are laid out otherwise). Fills ips[0..*n)
 * (at most max) innermost first: ips[0] is the sampled IP, the others return addresses less
 * one (inside the call, as perf gives them, for pb_space_lookup()). *cut: NULL when the chain
 * reached its outermost frame (CFI said so), else why it stopped, valid until the space's
 * next unwind ("the stack copy ended (...)", "more than N frames", "after ADDR: " and
 * libdwfl's reason, such as no CFI for the next frame): a cut chain is never complete. Frames
 * of code without CFI may come from libdwfl's frame-pointer fallback (x86_64).
 * 0, or -EINVAL (no SP or IP in mask; the space has no file libdwfl can unwind on),
 * -ENOTSUP (not this architecture; built without libdw) (pb_fail). */
int pb_space_unwind(struct pb_space *sp, const uint64_t *regs, uint64_t mask, const void *stack,
		    size_t size, uint64_t *ips, size_t max, size_t *n, const char **cut);

#endif
