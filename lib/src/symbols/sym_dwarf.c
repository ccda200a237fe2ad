/* SPDX-License-Identifier: MIT */
/*
 * What DWARF says of one address of a module: the function-like scopes around it, innermost
 * first (each inlined subroutine, then the subprogram it was inlined into: the DIEs holding
 * the innermost scope dwarf_getscopes finds, by dwarf_getscopes_die, as eu-addr2line -i),
 * each inlined one's call site (DW_AT_call_file, DW_AT_call_line) the line of the frame
 * around it, and the address's own line (dwfl_module_getsrc) the innermost frame's. The
 * outermost frame is named by the ELF symbol table when it has the address (the name the
 * linker and perf use; mangled for C++), else by DWARF. Names are the linkage name when DWARF
 * has one (so C++ names can be demangled whole), else DW_AT_name, through abstract origins.
 */
#ifdef PBENCH_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols_inner.h"

/* The deepest chain looked at. */
#define MAX_SCOPES 64

static int is_function(Dwarf_Die *d)
{
	int t = dwarf_tag(d);

	return t == DW_TAG_subprogram || t == DW_TAG_inlined_subroutine;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
	return n;
}

/* Where the inlined subroutine inl was called from, into f. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, struct pb_frame *f)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &line) == 0)
		f->line = (unsigned)line;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &file) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nf) == 0 && file < nf)
		f->file = dwarf_filesrc(files, file, NULL, NULL);
}

/* The indexes of the function-like scopes, innermost first, up to the first subprogram; past
 * max, the innermost max - 1 and the outermost. */
static size_t function_scopes(Dwarf_Die *scopes, int ns, int *idx, size_t max)
{
	size_t k = 0;

	for (int i = 0; i < ns; i++) {
		if (!is_function(&scopes[i]))
			continue;
		if (k < max)
			idx[k++] = i;
		else
			idx[max - 1] = i;
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	return k;
}

/* The CU holding addr. libdwfl finds it by .debug_aranges, which clang does not emit by
 * default and elfutils before 0.191 does not make up: where the file has none, each CU's
 * ranges are tried (where it has them, an address they miss is in no CU: PLT, assembly). */
static Dwarf_Die *cu_of(struct Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	Dwarf *dw;
	Dwarf_Aranges *ar;
	size_t n;

	if (cu || !(dw = dwfl_module_getdwarf(mod, bias)) ||
	    (dwarf_getaranges(dw, &ar, &n) == 0 && n > 0))
		return cu;
	while ((cu = dwfl_module_nextcu(mod, cu, bias)))
		if (dwarf_haspc(cu, addr - *bias) > 0)
			return cu;
	return NULL;
}

/* The file and line of addr, by libdwfl or (no aranges) from its CU's line table. */
static const char *line_of(struct Dwfl_Module *mod, Dwarf_Die *cu, uint64_t addr,
			   Dwarf_Addr bias, int *ln)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	Dwarf_Line *l;

	*ln = 0;
	if (line)
		return dwfl_lineinfo(line, NULL, ln, NULL, NULL, NULL);
	if (!cu || !(l = dwarf_getsrc_die(cu, addr - bias)) || dwarf_lineno(l, ln))
		return NULL;
	return dwarf_linesrc(l, NULL, NULL);
}

size_t pb_dwarf_frames(struct Dwfl_Module *mod, uint64_t addr, const char *elfname,
		       struct pb_frame *f, size_t max)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *scopes = NULL, *cu;
	int idx[MAX_SCOPES], ln = 0, ns = 0;
	const char *file;
	size_t k = 0;

	if (!max)
		return 0;
	cu = cu_of(mod, addr, &bias);
	file = line_of(mod, cu, addr, bias, &ln);
	if (cu)
		ns = dwarf_getscopes(cu, addr - bias, &scopes);
	if (ns > 0) {	/* past an inlined instance, getscopes goes to its abstract definition */
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		ns = dwarf_getscopes_die(&inner, &scopes);
	}
	if (ns > 0)
		k = function_scopes(scopes, ns, idx, max < MAX_SCOPES ? max : MAX_SCOPES);
	f[0] = (struct pb_frame){ .file = file, .line = ln > 0 ? (unsigned)ln : 0 };
	for (size_t j = 0; j < k; j++) {
		Dwarf_Die *d = &scopes[idx[j]];

		if (j > 0) {
			f[j] = (struct pb_frame){ 0 };
			if (dwarf_tag(&scopes[idx[j - 1]]) == DW_TAG_inlined_subroutine)
				call_site(cu, &scopes[idx[j - 1]], &f[j]);
		}
		f[j].function = die_name(d);
		f[j].inlined = dwarf_tag(d) == DW_TAG_inlined_subroutine && j + 1 < k;
	}
	if (!k)
		k = 1;
	if (elfname && (k == 1 || !f[k - 1].inlined))
		f[k - 1].function = elfname;
	free(scopes);
	return f[0].function || f[0].file || k > 1 ? k : 0;
}

/* ---- the symbol table ---------------------------------------------------------------------- */

struct tbuild {
	struct pb_symtab *t;
	size_t cap, len, tcap;
};

static int tsym_add(struct tbuild *b, const GElf_Sym *sym, uint64_t addr, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info);
	size_t n = strlen(name) + 1;
	struct pb_symtab *t = b->t;

	if (t->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct pb_tsym *p = realloc(t->sym, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->sym = p;
		b->cap = cap;
	}
	if (b->len + n > b->tcap) {
		size_t cap = b->tcap ? b->tcap * 2 : 65536;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(t->text, cap)))
			return -ENOMEM;
		t->text = p;
		b->tcap = cap;
	}
	memcpy(t->text + b->len, name, n);
	t->sym[t->n++] = (struct pb_tsym){ .addr = addr, .size = sym->st_size,
					   .name = (uint32_t)b->len,
					   .rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2 };
	b->len += n;
	return 0;
}

/* By address; at one address the larger first (the function over a label in it), then the
 * name perf would choose among aliases: global over weak over local, fewer leading
 * underscores, shorter (__libc_start_main over __libc_start_main_alias_2). */
static int tsym_cmp(const void *a, const void *b, void *text)
{
	const struct pb_tsym *x = a, *y = b;
	const char *nx = (const char *)text + x->name, *ny = (const char *)text + y->name;
	size_t ux = strspn(nx, "_"), uy = strspn(ny, "_");

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strlen(nx) < strlen(ny) ? -1 : strlen(nx) > strlen(ny) ? 1 : strcmp(nx, ny);
}

int pb_symtab_build(struct Dwfl_Module *mod, uint64_t bias, struct pb_symtab *t)
{
	struct tbuild b = { .t = t };
	int n = dwfl_module_getsymtab(mod);

	t->built = 1;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (tsym_add(&b, &sym, addr - bias, name)) {
			pb_symtab_release(t);
			t->built = 1;
			return -ENOMEM;
		}
	}
	if (t->n)	/* a stripped file has none: t->sym is NULL, which qsort_r may not take */
		qsort_r(t->sym, t->n, sizeof(*t->sym), tsym_cmp, t->text);
	return 0;
}

const char *pb_symtab_find(const struct pb_symtab *t, uint64_t a)
{
	size_t lo = 0, hi = t->n;
	const struct pb_tsym *s;

	while (lo < hi) {	/* the first symbol above a */
		size_t mid = lo + (hi - lo) / 2;

		if (t->sym[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* the symbols at the same address: the first (largest) holding a */
	s = &t->sym[lo - 1];
	while (s > t->sym && s[-1].addr == s->addr)
		s--;
	if (s->size && a >= s->addr + s->size)
		return NULL;
	return t->text + s->name;
}

void pb_symtab_release(struct pb_symtab *t)
{
	free(t->sym);
	free(t->text);
	memset(t, 0, sizeof(*t));
}
#else
typedef int pb_sym_dwarf_not_built;	/* DW=0 */
#endif
