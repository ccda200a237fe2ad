/* SPDX-License-Identifier: MIT */
/*
 * The symbols module (lib/src/symbols/), whitebox: nothing calls it through the API yet.
 * Addresses of this program's functions (symbols_target.c, whose addresses nm gives too), of
 * libsymtest.so which it links, of a stripped copy of that library whose debug file is found
 * by build-id in a directory the test gives, the inline chain and lines of -O2 -g code, a C++
 * name demangled, the kernel's symbols, a JIT map and what cannot be symbolized (never
 * dropped). Then the call chain of symtest_c, built without frame pointers, unwound by CFI
 * from its registers and a copy of its stack (and cut short when the copy is), and the chains
 * of real samples: perf_event_open on this thread with PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER, each sample in the leaf unwound to its two callers.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "symbols_target.h"
#include "testutil.h"

static struct pb_syms *syms;
static struct pb_space *self;

static void self_space(const char *const *dirs)
{
	cr_assert_eq(pb_syms_new(&syms, dirs), 0);
	cr_assert_eq(pb_space_new(syms, getpid(), &self), 0);
	cr_assert_eq(pb_space_read_maps(self), 0);
}

static void done(void)
{
	pb_syms_free(syms);
	syms = NULL;
	self = NULL;
}

static const struct pb_sym *lookup(struct pb_space *sp, uint64_t addr)
{
	const struct pb_sym *s = NULL;

	cr_assert_eq(pb_space_lookup(sp, addr, &s), 0);
	cr_assert_not_null(s);
	cr_assert_geq(s->n, 1);
	return s;
}

static const char *fn(const struct pb_sym *s)
{
	return s->frames[s->n - 1].function ? s->frames[s->n - 1].function : "[unknown]";
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);

	return s && a >= b && !strcmp(s + a - b, tail);
}

/* A command's output into buf; 0 when it ran and said something. */
static int run_out(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(buf, 1, len - 1, p) : 0;

	buf[n] = 0;
	return p && pclose(p) == 0 && n ? 0 : -1;
}

static int have(const char *tool)
{
	char cmd[128], out[512];

	snprintf(cmd, sizeof(cmd), "command -v %s", tool);
	return !run_out(cmd, out, sizeof(out));
}

Test(symbols, program_functions_as_nm_names_them, .fini = done)
{
	char out[8192], cmd[600], name[128];
	uint64_t vaddr, c_vaddr = 0, bias;
	int found = 0;

	if (!have("nm"))
		cr_skip_test("nm is not installed (binutils)");
	self_space(NULL);
	snprintf(cmd, sizeof(cmd), "nm --defined-only /proc/%d/exe | grep ' T symtest_'",
		 (int)getpid());
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 0, "nm found no symtest_ function");
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		if (sscanf(l, "%" SCNx64 " T %127s", &vaddr, name) == 2 && !strcmp(name, "symtest_c"))
			c_vaddr = vaddr;
	cr_assert_neq(c_vaddr, 0);
	bias = (uint64_t)(uintptr_t)symtest_c - c_vaddr;
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 0);
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		const struct pb_sym *s;

		if (sscanf(l, "%" SCNx64 " T %127s", &vaddr, name) != 2 || strstr(name, "_pc"))
			continue;
		s = lookup(self, vaddr + bias + 1);
		cr_expect_str_eq(fn(s), name, "nm's %s at %#" PRIx64 " is '%s'", name, vaddr, fn(s));
		cr_expect(ends_with(s->dso, "/test_symbols"), "dso '%s'", s->dso);
		found++;
	}
	cr_expect_geq(found, 4, "nm gave %d symtest_ functions", found);
}

Test(symbols, shared_library_function_and_line, .fini = done)
{
	const struct pb_sym *s;

	self_space(NULL);
	s = lookup(self, (uint64_t)(uintptr_t)symlib_work + 1);
	cr_assert_str_eq(fn(s), "symlib_work");
	cr_expect(ends_with(s->dso, "/libsymtest.so"), "dso '%s'", s->dso);
	cr_expect(ends_with(s->frames[0].file, "symbols_lib.c"), "file '%s'", s->frames[0].file);
	cr_expect_gt(s->frames[0].line, 0);
	s = lookup(self, (uint64_t)(uintptr_t)symlib_hidden_addr() + 1);
	cr_expect_str_eq(fn(s), "symlib_hidden");
}

/* libsymtest.so's executable mapping in this process, as MMAP2 would give it. */
static int lib_map(struct pb_map *m, char *path, size_t len)
{
	char line[4200];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		char perms[8];
		int at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*u %n", &m->start,
			   &m->end, perms, &m->pgoff, &at) >= 4 && at && strchr(perms, 'x') &&
		    strstr(line, "/libsymtest.so")) {
			snprintf(path, len, "%s", line + at);
			path[strcspn(path, "\n")] = 0;
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* DIR/lib.so stripped, its debug file DIR/debug/.build-id/xx/yyyy.debug; DIR/link/linked.so
 * stripped, with a .gnu_debuglink to DIR/link/linked.debug beside it. */
static int stripped_copy(const char *lib, const char *dir)
{
	static char cmd[65536];

	snprintf(cmd, sizeof(cmd),
		 "set -e; id=$(readelf -n '%s' | sed -n 's/.*Build ID: *//p'); test -n \"$id\"; "
		 "d='%s/debug/.build-id/'$(echo $id | cut -c1-2); mkdir -p \"$d\"; "
		 "objcopy --only-keep-debug '%s' \"$d/$(echo $id | cut -c3-).debug\"; "
		 "objcopy --strip-all '%s' '%s/lib.so'; "
		 "! nm '%s/lib.so' 2>/dev/null | grep -q symlib_hidden; "
		 "mkdir '%s/link'; objcopy --only-keep-debug '%s' '%s/link/linked.debug'; "
		 "objcopy --strip-all --add-gnu-debuglink='%s/link/linked.debug' '%s' "
		 "'%s/link/linked.so'",
		 lib, dir, lib, lib, dir, dir, dir, lib, dir, dir, lib, dir);
	return system(cmd) == 0 ? 0 : -1;
}

Test(symbols, stripped_copy_named_from_its_debug_file, .fini = done)
{
	char dir[] = "/tmp/pbench-syms-XXXXXX", lib[4096], copy[4200], dbg[4200], cmd[4300];
	const char *dirs[] = { dbg, NULL };
	uint64_t hidden = (uint64_t)(uintptr_t)symlib_hidden_addr() + 1;
	struct pb_space *bare;
	struct pb_map m = { 0 };
	const struct pb_sym *s;

	if (!have("objcopy") || !have("readelf"))
		cr_skip_test("objcopy or readelf is not installed (binutils)");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(lib_map(&m, lib, sizeof(lib)), 0, "libsymtest.so is not mapped");
	cr_assert_eq(stripped_copy(lib, dir), 0, "no stripped copy of %s", lib);
	snprintf(copy, sizeof(copy), "%s/lib.so", dir);
	snprintf(dbg, sizeof(dbg), "%s/debug", dir);
	m.path = copy;
	/* without the debug directory the static function has no name */
	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, getpid(), &bare), 0);
	cr_assert_eq(pb_space_add_map(bare, &m), 0);
	s = lookup(bare, hidden);
	cr_expect_str_neq(fn(s), "symlib_hidden", "named without its debug file");
	cr_expect_str_eq(s->dso, copy);
	done();
	/* with it, named, with its line */
	cr_assert_eq(pb_syms_new(&syms, dirs), 0);
	cr_assert_eq(pb_space_new(syms, getpid(), &bare), 0);
	cr_assert_eq(pb_space_add_map(bare, &m), 0);
	s = lookup(bare, hidden);
	cr_expect_str_eq(fn(s), "symlib_hidden");
	cr_expect_str_eq(s->dso, copy);
	cr_expect(ends_with(s->frames[0].file, "symbols_lib.c"), "file '%s'", s->frames[0].file);
	done();
	/* a debug file found by its .gnu_debuglink name beside the file, no directory given */
	snprintf(copy, sizeof(copy), "%s/link/linked.so", dir);
	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, getpid(), &bare), 0);
	cr_assert_eq(pb_space_add_map(bare, &m), 0);
	s = lookup(bare, hidden);
	cr_expect_str_eq(fn(s), "symlib_hidden");
	cr_expect_str_eq(s->dso, copy);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

Test(symbols, inline_frames_and_their_lines, .fini = done)
{
	const struct pb_sym *s;

	self_space(NULL);
	s = lookup(self, (uint64_t)(uintptr_t)symtest_inline_pc);
	cr_assert_eq(s->n, 3, "%zu frames, innermost '%s'", s->n, s->frames[0].function);
	cr_expect_str_eq(s->frames[0].function, "symtest_inner");
	cr_expect_str_eq(s->frames[1].function, "symtest_middle");
	cr_expect_str_eq(s->frames[2].function, "symtest_outer");
	cr_expect(s->frames[0].inlined && s->frames[1].inlined && !s->frames[2].inlined);
	for (int i = 0; i < 3; i++)
		cr_expect(ends_with(s->frames[i].file, "symbols_target.c"), "frame %d file '%s'",
			  i, s->frames[i].file);
	cr_expect(s->frames[0].line > symtest_inner_first && s->frames[0].line < symtest_inner_last,
		  "inner's line %u not in (%u, %u)", s->frames[0].line, symtest_inner_first,
		  symtest_inner_last);
	cr_expect_eq(s->frames[1].line, symtest_middle_call);
	cr_expect_eq(s->frames[2].line, symtest_outer_call);
}

Test(symbols, cache_across_spaces_and_load_addresses, .fini = done)
{
	char lib[4096];
	struct pb_space *other;
	struct pb_map m = { 0 };
	const struct pb_sym *a, *b;
	uint64_t lookups, hits, off;

	self_space(NULL);
	cr_assert_eq(lib_map(&m, lib, sizeof(lib)), 0);
	a = lookup(self, (uint64_t)(uintptr_t)symlib_work + 2);
	cr_assert_eq(lookup(self, (uint64_t)(uintptr_t)symlib_work + 2), a);
	/* the same file placed 1 GiB higher in another process: the same DSO, a hit */
	off = (uint64_t)(uintptr_t)symlib_work + 2 - m.start;
	m.path = lib;
	m.start += 1ull << 30;
	m.end += 1ull << 30;
	cr_assert_eq(pb_space_new(syms, 1, &other), 0);
	cr_assert_eq(pb_space_add_map(other, &m), 0);
	b = lookup(other, m.start + off);
	cr_expect_eq(b, a, "%s in %s (%s), not %s in %s", fn(b), b->dso, b->why ? b->why : "", fn(a), a->dso);
	pb_syms_counts(syms, &lookups, &hits);
	cr_expect_eq(lookups, 3);
	cr_expect_eq(hits, 2);
	/* a forked child of the other: the same maps, the same DSO, a hit */
	cr_assert_eq(pb_space_fork(other, 2, &other), 0);
	cr_expect_eq(lookup(other, m.start + off), a);
	pb_syms_counts(syms, &lookups, &hits);
	cr_expect_eq(hits, 3);
}

Test(symbols, unknown_said_per_dso_never_dropped, .fini = done)
{
	struct pb_map anon = { .start = 0x10000, .end = 0x20000, .path = "//anon" };
	struct pb_map text = { .start = 0x30000, .end = 0x40000, .path = "/etc/hostname" };
	struct pb_map gone = { .start = 0x50000, .end = 0x60000, .path = "/nonexistent/libgone.so" };
	const struct pb_sym *s;

	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, 1, &self), 0);
	cr_assert_eq(pb_space_add_map(self, &anon), 0);
	cr_assert_eq(pb_space_add_map(self, &text), 0);
	cr_assert_eq(pb_space_add_map(self, &gone), 0);
	s = lookup(self, 0x10010);
	cr_expect_null(s->frames[0].function);
	cr_expect_str_eq(s->dso, "//anon");
	s = lookup(self, 0x30010);
	cr_expect_null(s->frames[0].function);
	cr_expect_str_eq(s->dso, "/etc/hostname");
	cr_expect_not_null(s->why);
	s = lookup(self, 0x50010);
	cr_expect_str_eq(s->dso, "/nonexistent/libgone.so");
	cr_expect_str_eq(s->why, "cannot open the file");
	s = lookup(self, 0x70000);
	cr_expect_null(s->frames[0].function);
	cr_expect_str_eq(s->dso, "[unknown]");
	s = lookup(self, (uint64_t)-512);	/* PERF_CONTEXT_USER: a marker, not the kernel's */
	cr_expect_str_eq(s->dso, "[unknown]");
	cr_expect(s->why && strstr(s->why, "PERF_CONTEXT"), "why '%s'", s->why);
	cr_expect_eq(pb_space_add_map(self, &(struct pb_map){ .start = 5, .end = 5 }), -EINVAL);
}

Test(symbols, kernel_from_kallsyms, .fini = done)
{
	char line[512], name[256], mod[128], mod_name[256] = "", mod_dso[140] = "", type;
	uint64_t addr = 0, mod_addr = 0, a, nonzero = 0;
	const struct pb_sym *s;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		cr_skip_test("/proc/kallsyms cannot be read here");
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%" SCNx64 " %c %255s [%127[^]]", &a, &type, name, mod);

		nonzero += n >= 3 && a;
		if (n == 3 && type == 'T' && !strcmp(name, "schedule"))
			addr = a;
		if (n == 4 && (type == 't' || type == 'T') && !mod_addr && a) {
			mod_addr = a;	/* a module's first text symbol (not an alias, we hope) */
			snprintf(mod_name, sizeof(mod_name), "%s", name);
			snprintf(mod_dso, sizeof(mod_dso), "[%s]", mod);
		}
	}
	fclose(f);
	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, 1, &self), 0);
	if (nonzero && !addr)
		cr_skip_test("this kernel's /proc/kallsyms has no text symbol 'schedule'");
	if (!addr) {	/* hidden: every address 0 */
		s = lookup(self, 0xffffffff81000000ull);
		cr_expect_null(s->frames[0].function);
		cr_expect_str_eq(pb_syms_kernel_why(syms), "kernel addresses hidden (kptr_restrict)");
		return;
	}
	s = lookup(self, addr + 1);
	cr_expect_str_eq(fn(s), "schedule");
	cr_expect_str_eq(s->dso, "[kernel.kallsyms]");
	cr_expect_null(pb_syms_kernel_why(syms));
	if (mod_addr) {
		s = lookup(self, mod_addr);
		cr_expect_str_eq(s->dso, mod_dso);
		cr_log_info("a module's symbol: %s in %s (kallsyms: %s)", fn(s), s->dso, mod_name);
	}
}

Test(symbols, jit_map_of_the_process_user_only, .fini = done)
{
	char dir[] = "/tmp/pbench-jit-XXXXXX", path[256], link[256], cmd[300];
	struct pb_map anon = { .start = 0x7000000, .end = 0x7100000, .path = "//anon" };
	const struct pb_sym *s;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, (int)getpid());
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "7000100 40 LazyCompile:~hot /app.js:3\n7000200 20 Stub:other\n");
	fclose(f);
	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, getpid(), &self), 0);
	cr_assert_eq(pb_space_add_map(self, &anon), 0);
	cr_assert_eq(pb_space_read_jit(self, dir, getuid() + 1), -EACCES, "another user's map");
	cr_assert_eq(pb_space_read_jit(self, dir, getuid()), 0);
	s = lookup(self, 0x7000110);
	cr_expect_str_eq(fn(s), "LazyCompile:~hot /app.js:3");
	cr_expect(ends_with(s->dso, path + 1), "dso '%s'", s->dso);
	s = lookup(self, 0x7000150);	/* between the two: the anonymous map's unknown */
	cr_expect_null(s->frames[0].function);
	snprintf(link, sizeof(link), "%s/real.map", dir);
	cr_assert_eq(rename(path, link), 0);
	cr_assert_eq(symlink(link, path), 0);
	cr_expect_eq(pb_space_read_jit(self, dir, getuid()), -EACCES, "a link was followed");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* The end of the mapping of this process holding addr (the stack's), or 0. */
static uint64_t map_end_of(uint64_t addr)
{
	char line[4200];
	uint64_t start, end, found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 && start <= addr &&
		    addr < end)
			found = end;
	if (f)
		fclose(f);
	return found;
}

#if defined(__x86_64__)
/* symtest_c's registers as PERF_SAMPLE_REGS_USER lays them out for this mask: perf's x86
 * BX (1), BP (6), SP (7), IP (8), R12-R15 (20-23): the callee-saved ones, IP and SP. */
#define CAPTURED_MASK (1ull << 1 | 1ull << 6 | 1ull << 7 | 1ull << 8 | 0xfull << 20)

static void captured_regs(uint64_t *r)
{
	const uint64_t *c = symtest_cap;	/* IP SP BP BX R12 R13 R14 R15 */
	uint64_t v[8] = { c[3], c[2], c[1], c[0], c[4], c[5], c[6], c[7] };

	memcpy(r, v, sizeof(v));
}
#endif

Test(symbols, unwind_without_frame_pointers_by_cfi, .fini = done)
{
#if !defined(__x86_64__)
	cr_skip_test("the test's capture of registers is written for x86_64 only");
#else
	uint64_t regs[8], ips[128];
	char chain[2048] = "";
	const char *want[] = { "symtest_c", "symtest_b", "symtest_a" }, *cut;
	size_t n = 0, short_n = 0;

	symtest_stack_end = map_end_of((uint64_t)(uintptr_t)__builtin_frame_address(0));
	cr_assert_neq(symtest_stack_end, 0);
	symtest_a();
	captured_regs(regs);
	self_space(NULL);
	cr_assert_eq(pb_space_unwind(self, regs, CAPTURED_MASK, symtest_stack, symtest_stack_size,
				     ips, ARRAY_SIZE(ips), &n, &cut), 0);
	cr_log_info("unwound %zu frames from a %zu-byte stack copy, %s", n, symtest_stack_size,
		    cut ? cut : "complete");
	cr_assert_geq(n, 4, "%zu frames (%s)", n, cut ? cut : "complete");
	for (size_t i = 0, at = 0; i < n && at < sizeof(chain) - 1; i++)
		at += (size_t)snprintf(chain + at, sizeof(chain) - at, "%s%s", i ? " < " : "",
				       fn(lookup(self, ips[i])));
	cr_log_info("the chain: %s", chain);
	if (!cut)	/* complete: CFI ended it at the program's entry */
		cr_expect_str_eq(fn(lookup(self, ips[n - 1])), "_start");
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		cr_expect_str_eq(fn(lookup(self, ips[i])), want[i], "frame %zu", i);
	cr_expect(ends_with(lookup(self, ips[3])->dso, "/test_symbols"), "symtest_a's caller in %s",
		  lookup(self, ips[3])->dso);
	/* 24 bytes of stack: symtest_c's frame at most, the chain cut and said so */
	cr_assert_eq(pb_space_unwind(self, regs, CAPTURED_MASK, symtest_stack, 24, ips,
				     ARRAY_SIZE(ips), &short_n, &cut), 0);
	cr_expect_not_null(cut, "a chain of %zu frames from 24 bytes said complete", short_n);
	cr_expect_lt(short_n, n);
	cr_expect_geq(short_n, 1);
	/* no SP in the mask: refused */
	cr_expect_eq(pb_space_unwind(self, regs, CAPTURED_MASK & ~(1ull << 7), symtest_stack, 24,
				     ips, ARRAY_SIZE(ips), &short_n, &cut), -EINVAL);
#endif
}

/* ---- a real sample: perf_event_open on this thread, the chain of its samples ---------------- */

#define RING_PAGES 64		/* data pages of the ring (a power of two) */
#define STACK_BYTES 4096	/* PERF_SAMPLE_STACK_USER's size */

struct ring {
	int fd;
	unsigned char *base;	/* the metadata page, then the data */
	size_t page;
};

/* task-clock every ms of this thread, user only, with the registers and the stack. */
static int ring_open(struct ring *r)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = pb_unwind_regs_mask();
	a.sample_stack_user = STACK_BYTES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->base = mmap(NULL, r->page * (1 + RING_PAGES), PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, 0);
	if (r->base == MAP_FAILED) {
		close(r->fd);
		return -errno;
	}
	return 0;
}

/* The samples whose IP is in symtest_spin_c: how many, and how many unwound to spin_c,
 * spin_b, spin_a in that order. */
static void ring_chains(struct ring *r, int *leaf, int *right)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	const unsigned char *data = r->base + r->page;
	size_t size = r->page * RING_PAGES, nregs = __builtin_popcountll(pb_unwind_regs_mask());
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = 0;
	static unsigned char rec[65536];

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;

		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (!h.size || tail + h.size > head)
			break;
		for (size_t i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		tail += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		const uint64_t *u = (const uint64_t *)(rec + sizeof(h)), *regs = u + 2;
		uint64_t ip = u[0], abi = u[1], ssize = regs[nregs], ips[64];
		const unsigned char *stack = (const unsigned char *)(regs + nregs + 1);
		uint64_t dyn = ssize ? *(const uint64_t *)(stack + ssize) : 0;
		const char *cut, *want[] = { "symtest_spin_c", "symtest_spin_b", "symtest_spin_a" };
		size_t n = 0;
		int ok = 1;

		if (!abi || strcmp(fn(lookup(self, ip)), want[0]))
			continue;
		(*leaf)++;
		cr_assert_eq(pb_space_unwind(self, regs, pb_unwind_regs_mask(), stack, dyn, ips,
					     ARRAY_SIZE(ips), &n, &cut), 0);
		for (size_t i = 0; i < 3; i++)
			ok &= n > i && !strcmp(fn(lookup(self, ips[i])), want[i]);
		*right += ok;
	}
}

Test(symbols, unwind_samples_of_perf_event_open, .fini = done)
{
	struct ring r;
	int err, leaf = 0, right = 0;

	if (!pb_unwind_regs_mask())
		cr_skip_test("DWARF unwinding is not built for this architecture");
	if ((err = ring_open(&r)))
		cr_skip_test("perf_event_open(task-clock, REGS_USER|STACK_USER) is refused here: %s",
			     strerror(-err));
	self_space(NULL);
	ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
	symtest_spin_a(30000000);
	ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_chains(&r, &leaf, &right);
	cr_log_info("%d samples in symtest_spin_c, %d unwound to spin_b and spin_a", leaf, right);
	cr_expect_geq(leaf, 1, "no sample fell in symtest_spin_c");
	cr_expect_eq(right, leaf, "%d of %d samples in the leaf unwound to its callers", right, leaf);
	munmap(r.base, r.page * (1 + RING_PAGES));
	close(r.fd);
}

Test(symbols, build_id_given_and_not_the_file_s, .fini = done)
{
	static const unsigned char other[20] = { 1, 2, 3 };
	char lib[4096];
	struct pb_map m = { 0 };
	const struct pb_sym *s;

	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, 1, &self), 0);
	cr_assert_eq(lib_map(&m, lib, sizeof(lib)), 0);
	m.path = lib;
	m.build_id = other;
	m.build_id_size = sizeof(other);
	cr_assert_eq(pb_space_add_map(self, &m), 0);
	s = lookup(self, (uint64_t)(uintptr_t)symlib_work + 1);
	cr_expect_null(s->frames[0].function, "named '%s' from a file of another build",
		       s->frames[0].function);
	cr_expect_str_eq(s->dso, lib);
	cr_expect_str_eq(s->why, "build-id differs: the file changed since the run");
}

Test(symbols, cxx_names_demangled, .fini = done)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	void *f = h ? dlsym(h, "_ZNSt9exceptionD2Ev") : NULL;
	const struct pb_sym *s;

	if (!f)
		cr_skip_test("libstdc++.so.6 is not installed (g++): no C++ function to name");
	self_space(NULL);
	cr_assert_eq(pb_syms_demangles(syms), 1, "libstdc++ is loaded, yet no __cxa_demangle");
	s = lookup(self, (uint64_t)(uintptr_t)f);
	cr_expect_str_eq(fn(s), "std::exception::~exception()");
	cr_expect(strstr(s->dso, "libstdc++"), "dso '%s'", s->dso);
	dlclose(h);
}

Test(symbols, kernel_hidden_or_unreadable_said, .fini = done)
{
	char dir[] = "/tmp/pbench-ksyms-XXXXXX", path[128], cmd[160];
	const struct pb_sym *s;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(setenv("PBENCH_PROCFS_ROOT", dir, 1), 0);
	/* no kallsyms at all */
	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, 1, &self), 0);
	s = lookup(self, 0xffffffff81000010ull);
	cr_expect_null(s->frames[0].function);
	cr_expect_str_eq(s->dso, "[kernel.kallsyms]");
	cr_expect(strstr(pb_syms_kernel_why(syms), "/proc/kallsyms: "), "why '%s'",
		  pb_syms_kernel_why(syms));
	done();
	/* kptr_restrict's zeros */
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "0000000000000000 T _stext\n0000000000000000 T schedule\n"
		   "0000000000000000 t ext4_sync_fs\t[ext4]\n");
	fclose(f);
	cr_assert_eq(pb_syms_new(&syms, NULL), 0);
	cr_assert_eq(pb_space_new(syms, 1, &self), 0);
	s = lookup(self, 0xffffffff81000010ull);
	cr_expect_null(s->frames[0].function, "named '%s' from hidden addresses",
		       s->frames[0].function);
	cr_expect_str_eq(pb_syms_kernel_why(syms), "kernel addresses hidden (kptr_restrict)");
	cr_expect_str_eq(s->why, "kernel addresses hidden (kptr_restrict)");
	unsetenv("PBENCH_PROCFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}
