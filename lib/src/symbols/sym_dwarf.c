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
#include <stdlib.h>

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

size_t pb_dwarf_frames(struct Dwfl_Module *mod, uint64_t addr, struct pb_frame *f, size_t max)
{
	GElf_Sym sym;
	GElf_Off off;
	Dwarf_Addr bias = 0;
	Dwarf_Die *scopes = NULL, *cu;
	int idx[MAX_SCOPES], ln = 0, ns = 0;
	const char *elfname = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	const char *file = line ? dwfl_lineinfo(line, NULL, &ln, NULL, NULL, NULL) : NULL;
	size_t k = 0;

	if (!max)
		return 0;
	if ((cu = dwfl_module_addrdie(mod, addr, &bias)))
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
#else
typedef int pb_sym_dwarf_not_built;	/* DW=0 */
#endif
