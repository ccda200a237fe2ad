/* SPDX-License-Identifier: MIT */
/*
 * A sampled user stack unwound afterwards by DWARF CFI, as perf's --call-graph dwarf does:
 * the registers and the copy of the stack a sample carries (PERF_SAMPLE_REGS_USER,
 * PERF_SAMPLE_STACK_USER) are the initial state of a libdwfl thread (dwfl_attach_state) whose
 * memory is the stack copy, and, for an address outside it, the mapped ELF files' loaded
 * segments. libdwfl walks the frames by .eh_frame/.debug_frame; the chain ends complete only
 * when CFI says a frame is the outermost. A read past the copy's end, a PC without CFI or a
 * chain longer than the caller's array is a cut, said with its reason.
 */
#ifdef PBENCH_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "symbols/symbols.h"
#include "symbols/symbols_inner.h"

#if defined(__x86_64__)
/* perf's x86 registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 (0..23);
 * perf's DWARF mask is all of them but the segment ones DS, ES, FS and GS. */
#define REG_SP 7
#define REG_IP 8
#define REGS_MASK (((1ull << 24) - 1) & ~(0xfull << 12))
/* DWARF's x86_64 numbers 0..16 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip) in perf's. */
static const int perf_reg_of[] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23 };
#elif defined(__aarch64__)
/* perf's arm64 registers: x0..x30, sp, pc (0..32); DWARF's: x0..x30, sp (0..31). */
#define REG_SP 31
#define REG_IP 32
#define REGS_MASK ((1ull << 33) - 1)
static const int perf_reg_of[] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				   11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
				   22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
#endif

#ifdef REGS_MASK
uint64_t pb_unwind_regs_mask(void)
{
	return REGS_MASK;
}

/* The value of perf register r in a sample's regs, or -1 when mask lacks it. */
static int reg_get(const struct pb_unwind_state *u, int r, uint64_t *v)
{
	if (!(u->mask >> r & 1))
		return -1;
	*v = u->regs[__builtin_popcountll(u->mask & ((1ull << r) - 1))];
	return 0;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pb_space *sp = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = sp;
	return sp->pid;
}

/* 8 bytes at addr of a loaded segment of the mapped file holding addr. */
static int elf_read(struct pb_space *sp, uint64_t addr, Dwarf_Word *out)
{
	const struct pb_smap *m = pb_space_map_at(sp, addr);
	Dwarf_Addr bias;
	Elf *elf;
	size_t n, size;
	const char *raw;

	if (!m || !m->mod || !(elf = dwfl_module_getelf(m->mod, &bias)) ||
	    elf_getphdrnum(elf, &n) || !(raw = elf_rawfile(elf, &size)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t v = addr - bias;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || v < ph.p_vaddr ||
		    v - ph.p_vaddr + 8 > ph.p_filesz || ph.p_offset + (v - ph.p_vaddr) + 8 > size)
			continue;
		memcpy(out, raw + ph.p_offset + (v - ph.p_vaddr), 8);
		return 0;
	}
	return -1;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pb_space *sp = arg;
	struct pb_unwind_state *u = &sp->uw;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp <= u->size && u->size - (addr - u->sp) >= 8) {
		memcpy(result, u->stack + (addr - u->sp), 8);
		return true;
	}
	if (!elf_read(sp, addr, result))
		return true;
	if (addr >= u->sp && !u->past)
		u->past = addr;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct pb_space *sp = arg;
	uint64_t v;

	for (size_t i = 0; i < PB_ARRAY_SIZE(perf_reg_of); i++) {
		Dwarf_Word w;

		if (reg_get(&sp->uw, perf_reg_of[i], &v))
			continue;
		w = v;
		if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
			return false;
	}
	if (reg_get(&sp->uw, REG_IP, &v))
		return false;
	dwfl_thread_state_register_pc(thread, v);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pb_unwind_state *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->n == u->max) {
		u->full = 1;
		return DWARF_CB_ABORT;
	}
	u->ips[u->n++] = activation ? pc : pc - 1;
	return DWARF_CB_OK;
}

/* Why the walk stopped, into u->why (NULL: it reached the outermost frame). A read past the
 * copy's end cuts the chain even when libdwfl ends it as complete: past a failed read of
 * CFI's, its frame-pointer fallback (x86_64) ends the walk without an error. */
static const char *cut_reason(struct pb_unwind_state *u, int rc)
{
	if (rc == 0 && !u->past && !u->full)
		return NULL;
	if (u->full)
		snprintf(u->why, sizeof(u->why), "more than %zu frames", u->max);
	else if (u->past)
		snprintf(u->why, sizeof(u->why), "the stack copy ended (%zu bytes from SP %#" PRIx64
			 ", read at %#" PRIx64 ")", u->size, u->sp, u->past);
	else
		snprintf(u->why, sizeof(u->why), "after %#" PRIx64 ": %s",
			 u->n ? u->ips[u->n - 1] : 0, dwfl_errmsg(-1));
	return u->why;
}

int pb_space_unwind(struct pb_space *sp, const uint64_t *regs, uint64_t mask, const void *stack,
		    size_t size, uint64_t *ips, size_t max, size_t *n, const char **cut)
{
	struct pb_unwind_state *u = &sp->uw;
	int rc;

	*n = 0;
	*cut = NULL;
	if (!(mask >> REG_SP & 1) || !(mask >> REG_IP & 1))
		return pb_fail(-EINVAL, "pb_space_unwind(): mask %#" PRIx64 " lacks SP or IP", mask);
	if (!u->attached) {
		if (!dwfl_attach_state(sp->dwfl, NULL, sp->pid, &callbacks, sp))
			return pb_fail(-EINVAL, "pb_space_unwind(): libdwfl cannot unwind this "
				       "space: %s", dwfl_errmsg(-1));
		u->attached = 1;
	}
	u->regs = regs;
	u->mask = mask;
	u->stack = stack;
	u->size = stack ? size : 0;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	u->past = 0;
	u->full = 0;
	reg_get(u, REG_SP, &u->sp);
	rc = dwfl_getthread_frames(sp->dwfl, sp->pid, frame_cb, u);
	*n = u->n;
	*cut = cut_reason(u, rc);
	return 0;
}
#else
uint64_t pb_unwind_regs_mask(void)
{
	return 0;
}

int pb_space_unwind(struct pb_space *sp, const uint64_t *regs, uint64_t mask, const void *stack,
		    size_t size, uint64_t *ips, size_t max, size_t *n, const char **cut)
{
	(void)sp, (void)regs, (void)mask, (void)stack, (void)size, (void)ips, (void)max;
	*n = 0;
	*cut = "not built for this architecture";
	return pb_fail(-ENOTSUP, "pb_space_unwind(): DWARF unwinding is built for x86_64 and "
		       "arm64 only");
}
#endif
#else
typedef int pb_unwind_not_built;	/* DW=0: symbols_none.c stands in */
#endif
