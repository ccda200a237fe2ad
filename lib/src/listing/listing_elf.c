/* SPDX-License-Identifier: MIT */
/*
 * A function's symbol in an ELF file: by name, or by the file address it contains. Read here
 * rather than through nm or objdump -t, so that the reasons differ: a file that is not ELF, a
 * stripped file (no symbol table at all), a name that is not in its table. Only the native
 * class (ElfW): the code shown is that of a program this machine runs.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listing/listing.h"

#if __ELF_NATIVE_CLASS == 64
#define PB_ELFCLASS ELFCLASS64
#define PB_ST_TYPE(i) ELF64_ST_TYPE(i)
#else
#define PB_ELFCLASS ELFCLASS32
#define PB_ST_TYPE(i) ELF32_ST_TYPE(i)
#endif

struct elf_map {
	const unsigned char *p;
	size_t len;
};

static int elf_map_open(struct elf_map *m, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
		close(fd);
		return -ENOEXEC;
	}
	m->len = (size_t)st.st_size;
	m->p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
	err = m->p == MAP_FAILED ? -errno : 0;
	close(fd);
	return err;
}

/* The section headers, checked to lie inside the file; NULL for a file that is not ours. */
static const ElfW(Shdr) *elf_sections(const struct elf_map *m, size_t *nr)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)m->p;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != PB_ELFCLASS ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)))
		return NULL;
	*nr = eh->e_shnum;
	if (eh->e_shoff > m->len || *nr > (m->len - eh->e_shoff) / sizeof(ElfW(Shdr)))
		return NULL;
	return (const ElfW(Shdr) *)(m->p + eh->e_shoff);
}

static int is_function(const ElfW(Sym) *s)
{
	int type = PB_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF;
}

/* Look in one symbol table (a SYMTAB or DYNSYM section) for name, or for the function
 * containing addr when name is NULL. 1 found, 0 not. */
static int table_find(const struct elf_map *m, const ElfW(Shdr) *sh, size_t nsh,
		      const ElfW(Shdr) *tab, const char *name, uint64_t addr,
		      struct pb_elf_sym *out)
{
	const ElfW(Shdr) *strs;
	const ElfW(Sym) *syms;
	size_t n;

	if (tab->sh_link >= nsh || tab->sh_offset > m->len ||
	    tab->sh_size > m->len - tab->sh_offset)
		return 0;
	strs = &sh[tab->sh_link];
	if (strs->sh_offset > m->len || strs->sh_size > m->len - strs->sh_offset)
		return 0;
	syms = (const ElfW(Sym) *)(m->p + tab->sh_offset);
	n = tab->sh_size / sizeof(*syms);
	for (size_t i = 0; i < n; i++) {
		const ElfW(Sym) *s = &syms[i];
		const char *sname;

		if (!is_function(s) || s->st_name >= strs->sh_size)
			continue;
		sname = (const char *)m->p + strs->sh_offset + s->st_name;
		if (!memchr(sname, '\0', strs->sh_size - s->st_name))
			continue;
		if (name ? strcmp(sname, name) != 0 :
		    !(addr >= s->st_value && (addr < s->st_value + s->st_size ||
					      (!s->st_size && addr == s->st_value))))
			continue;
		out->value = s->st_value;
		out->size = s->st_size;
		strncpy(out->name, sname, sizeof(out->name) - 1);
		out->name[sizeof(out->name) - 1] = '\0';
		return 1;
	}
	return 0;
}

/* A function name that starts with name and a dot: what GCC makes of a static function it
 * cloned (name.constprop.0, name.part.0, name.isra.0), for the hint. */
static void table_like(const struct elf_map *m, const ElfW(Shdr) *sh, size_t nsh,
		       const ElfW(Shdr) *tab, const char *name, struct pb_elf_sym *out)
{
	const ElfW(Shdr) *strs;
	const ElfW(Sym) *syms;
	size_t len = strlen(name), n;

	if (out->like[0] || tab->sh_link >= nsh || tab->sh_offset > m->len ||
	    tab->sh_size > m->len - tab->sh_offset)
		return;
	strs = &sh[tab->sh_link];
	if (strs->sh_offset > m->len || strs->sh_size > m->len - strs->sh_offset)
		return;
	syms = (const ElfW(Sym) *)(m->p + tab->sh_offset);
	n = tab->sh_size / sizeof(*syms);
	for (size_t i = 0; i < n; i++) {
		const char *sname;

		if (!is_function(&syms[i]) || syms[i].st_name >= strs->sh_size)
			continue;
		sname = (const char *)m->p + strs->sh_offset + syms[i].st_name;
		if (memchr(sname, '\0', strs->sh_size - syms[i].st_name) &&
		    !strncmp(sname, name, len) && sname[len] == '.') {
			strncpy(out->like, sname, sizeof(out->like) - 1);
			return;
		}
	}
}

/* The function name of the tables nearest to name (pbench_suggest(): a mistyped one), into
 * out->near; nothing when none is near or two are as near. */
static void tables_near(const struct elf_map *m, const ElfW(Shdr) *sh, size_t nsh,
			const char *name, struct pb_elf_sym *out)
{
	const char **v = NULL;
	size_t n = 0, cap = 0;
	int k;

	for (size_t i = 0; i < nsh; i++) {
		const ElfW(Shdr) *tab = &sh[i], *strs;
		const ElfW(Sym) *syms;

		if ((tab->sh_type != SHT_SYMTAB && tab->sh_type != SHT_DYNSYM) ||
		    tab->sh_link >= nsh || tab->sh_offset > m->len ||
		    tab->sh_size > m->len - tab->sh_offset)
			continue;
		strs = &sh[tab->sh_link];
		if (strs->sh_offset > m->len || strs->sh_size > m->len - strs->sh_offset)
			continue;
		syms = (const ElfW(Sym) *)(m->p + tab->sh_offset);
		for (size_t j = 0; j < tab->sh_size / sizeof(*syms); j++) {
			const char *sname;

			if (!is_function(&syms[j]) || syms[j].st_name >= strs->sh_size)
				continue;
			sname = (const char *)m->p + strs->sh_offset + syms[j].st_name;
			if (!memchr(sname, '\0', strs->sh_size - syms[j].st_name) || !*sname)
				continue;
			if (n == cap) {
				size_t c = cap ? 2 * cap : 256;
				const char **nv = realloc(v, c * sizeof(*v));

				if (!nv || c > INT_MAX) {
					free(nv ? nv : v);
					return;
				}
				v = nv;
				cap = c;
			}
			/* the same name in .symtab and .dynsym is one candidate, not two */
			int dup = 0;
			for (size_t d = n; d-- > 0 && !dup && n - d < 4096;)
				dup = !strcmp(v[d], sname);
			if (!dup)
				v[n++] = sname;
		}
	}
	k = n ? pbench_suggest(name, v, (int)n) : -1;
	if (k >= 0) {
		strncpy(out->near, v[k], sizeof(out->near) - 1);
		out->near[sizeof(out->near) - 1] = '\0';
	}
	free(v);
}

int pb_elf_find(const char *path, const char *name, uint64_t addr, struct pb_elf_sym *out)
{
	const ElfW(Shdr) *sh;
	struct elf_map m = { 0 };
	int tables = 0, found = 0, err;
	size_t nsh = 0;

	memset(out, 0, sizeof(*out));
	err = elf_map_open(&m, path);
	if (err)
		return err;
	sh = elf_sections(&m, &nsh);
	if (!sh) {
		munmap((void *)m.p, m.len);
		return -ENOEXEC;
	}
	out->type = ((const ElfW(Ehdr) *)m.p)->e_type;
	/* .symtab first: it has the static functions, .dynsym only the exported ones. */
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i < nsh && !found; i++) {
			if (sh[i].sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			tables |= 1 << pass;
			found = table_find(&m, sh, nsh, &sh[i], name, addr, out);
		}
	}
	for (size_t i = 0; !found && name && i < nsh; i++)
		if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM)
			table_like(&m, sh, nsh, &sh[i], name, out);
	if (!found && name && !out->like[0])
		tables_near(&m, sh, nsh, name, out);
	out->has_symtab = tables & 1;
	munmap((void *)m.p, m.len);
	return found ? 0 : tables ? -ESRCH : -ENODATA;
}
