/* SPDX-License-Identifier: MIT */
/*
 * Addresses to names, on libdwfl: the symbolizer (its DSOs, each DSO's cache, the kernel's
 * symbols), a process's address space (its maps, each file reported to libdwfl at its load
 * bias), and the lookup: the ELF symbol, the inline chain (dwarf_getscopes: the inlined
 * subroutines around the address, each one's call site the next frame's line), the source
 * line (dwfl_module_getsrc). The cache is keyed by the DSO and the address in the file's own
 * terms (address less load bias), so a DSO symbolized in one run's process is a hit in every
 * other run's, whatever their ASLR. Debug files are libdwfl's standard search: by build-id
 * under each absolute directory of the path, then by .gnu_debuglink.
 */
#ifdef PBENCH_HAVE_LIBDW
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "symbols/symbols.h"
#include "symbols/symbols_inner.h"

/* The deepest inline chain kept for one address; a deeper one keeps its innermost frames
 * and its function. */
#define MAX_FRAMES 32
/* PERF_CONTEXT_MAX, (uint64_t)-4095: from there up a call chain's entries are markers. */
#define PERF_CONTEXT_MARK ((uint64_t)-4095)

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

struct pb_syms {
	Dwfl_Callbacks cb;
	char *debug_path;
	struct pb_dso **dso;
	size_t n_dso, cap_dso;
	struct arena_block *arena;
	struct pb_ksyms k;
	int k_state;			/* 0: not read yet, 1: read, -errno: failed */
	const char *k_why;
	const struct pb_sym **ksym;	/* per kallsyms entry, made on its first lookup */
	struct pb_sym k_unknown, unmapped, marker;
	struct pb_space *spaces;
	void *stdcxx;
	demangle_fn demangle;
	uint64_t lookups, hits;
};

static const struct pb_frame no_frame;

/* ---- strings and records owned by the symbolizer ------------------------------------------ */

static void *arena_alloc(struct pb_syms *s, size_t n)
{
	struct arena_block *b = s->arena;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->next = s->arena;
		b->used = 0;
		b->cap = cap;
		s->arena = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

static const char *arena_str(struct pb_syms *s, const char *str)
{
	size_t n;
	char *p;

	if (!str)
		return NULL;
	n = strlen(str) + 1;
	if ((p = arena_alloc(s, n)))
		memcpy(p, str, n);
	return p;
}

/* A name into the arena: without a symbol version ("__libc_start_main@@GLIBC_2.34" is
 * __libc_start_main, as perf shows it), a C++ name demangled. */
static const char *sym_name(struct pb_syms *s, const char *name)
{
	char plain[1024], *d;
	const char *out;
	size_t n;
	int st = -1;

	if (!name)
		return NULL;
	n = strcspn(name, "@");
	if (name[n] && n > 0 && n < sizeof(plain)) {
		memcpy(plain, name, n);
		plain[n] = 0;
		name = plain;
	}
	if (!s->demangle || strncmp(name, "_Z", 2))
		return arena_str(s, name);
	d = s->demangle(name, NULL, NULL, &st);
	out = arena_str(s, st == 0 && d ? d : name);
	free(d);
	return out;
}

/* A pb_sym of n frames in the arena (frames copied), or NULL. */
static const struct pb_sym *sym_make(struct pb_syms *s, const char *dso, const struct pb_frame *f,
				     size_t n, const char *why)
{
	struct pb_sym *sym = arena_alloc(s, sizeof(*sym) + n * sizeof(*f));
	struct pb_frame *fr;

	if (!sym)
		return NULL;
	fr = (struct pb_frame *)(sym + 1);
	memcpy(fr, f, n * sizeof(*f));
	*sym = (struct pb_sym){ .dso = dso, .n = n, .frames = fr, .why = why };
	return sym;
}

/* ---- the symbolizer ------------------------------------------------------------------------ */

/* libdwfl's path: the file's directory, its .debug, /usr/lib/debug, then the caller's. */
static int debug_path(struct pb_syms *s, const char *const *dirs)
{
	size_t len = strlen(":.debug:/usr/lib/debug") + 1;
	char *p;

	for (size_t i = 0; dirs && dirs[i]; i++) {
		if (dirs[i][0] != '/' || strchr(dirs[i], ':'))
			return pb_fail(-EINVAL, "pb_syms_new(): debug_dirs[%zu] is '%s': an absolute "
				       "directory without ':' is needed", i, dirs[i]);
		len += strlen(dirs[i]) + 1;
	}
	if (!(p = malloc(len)))
		return -ENOMEM;
	strcpy(p, ":.debug:/usr/lib/debug");
	for (size_t i = 0; dirs && dirs[i]; i++) {
		strcat(p, ":");
		strcat(p, dirs[i]);
	}
	s->debug_path = p;
	return 0;
}

/* __cxa_demangle from libstdc++ when the process has it or it can be loaded. */
static void demangler_find(struct pb_syms *s)
{
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");

	if (!f && (s->stdcxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
		f = dlsym(s->stdcxx, "__cxa_demangle");
	s->demangle = (demangle_fn)f;
}

int pb_syms_new(struct pb_syms **out, const char *const *debug_dirs)
{
	struct pb_syms *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	if ((err = debug_path(s, debug_dirs))) {
		free(s);
		return err;
	}
	elf_version(EV_CURRENT);
	s->cb.find_elf = dwfl_linux_proc_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.debuginfo_path = &s->debug_path;
	s->unmapped = (struct pb_sym){ .dso = "[unknown]", .n = 1, .frames = &no_frame,
				       .why = "no map holds the address" };
	s->k_unknown = (struct pb_sym){ .dso = "[kernel.kallsyms]", .n = 1, .frames = &no_frame };
	s->marker = (struct pb_sym){ .dso = "[unknown]", .n = 1, .frames = &no_frame,
				     .why = "a PERF_CONTEXT_* marker of a call chain, not an address" };
	demangler_find(s);
	*out = s;
	return 0;
}

void pb_syms_free(struct pb_syms *s)
{
	if (!s)
		return;
	while (s->spaces)
		pb_space_free(s->spaces);
	for (size_t i = 0; i < s->n_dso; i++) {
		free(s->dso[i]->id);
		free(s->dso[i]->path);
		free(s->dso[i]->cache.key);
		free(s->dso[i]->cache.val);
		pb_symtab_release(&s->dso[i]->symtab);
		free(s->dso[i]);
	}
	free(s->dso);
	for (struct arena_block *b = s->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	pb_ksyms_release(&s->k);
	free(s->ksym);
	if (s->stdcxx)
		dlclose(s->stdcxx);
	free(s->debug_path);
	free(s);
}

int pb_syms_demangles(struct pb_syms *s)
{
	return s->demangle != NULL;
}

const char *pb_syms_kernel_why(struct pb_syms *s)
{
	return s->k_state == 0 ? NULL : s->k_why;
}

void pb_syms_counts(const struct pb_syms *s, uint64_t *lookups, uint64_t *hits)
{
	*lookups = s->lookups;
	*hits = s->hits;
}

/* ---- a DSO's cache ------------------------------------------------------------------------- */

static size_t cache_slot(const struct pb_cache *c, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (c->cap - 1);
}

static const struct pb_sym *cache_get(const struct pb_cache *c, uint64_t key)
{
	if (!c->cap)
		return NULL;
	for (size_t i = cache_slot(c, key);; i = (i + 1) & (c->cap - 1)) {
		if (!c->val[i])
			return NULL;
		if (c->key[i] == key)
			return c->val[i];
	}
}

static int cache_put(struct pb_cache *c, uint64_t key, const struct pb_sym *val)
{
	if ((c->used + 1) * 2 > c->cap) {	/* at most half full */
		struct pb_cache n = { .cap = c->cap ? c->cap * 2 : 256 };

		n.key = malloc(n.cap * sizeof(*n.key));
		n.val = calloc(n.cap, sizeof(*n.val));
		if (!n.key || !n.val) {
			free(n.key);
			free(n.val);
			return -ENOMEM;
		}
		for (size_t i = 0; i < c->cap; i++)
			if (c->val[i])
				cache_put(&n, c->key[i], c->val[i]);
		free(c->key);
		free(c->val);
		*c = n;
	}
	size_t i = cache_slot(c, key);

	while (c->val[i])
		i = (i + 1) & (c->cap - 1);
	c->key[i] = key;
	c->val[i] = val;
	c->used++;
	return 0;
}

/* The DSO of this id, made on first sight. */
static struct pb_dso *dso_get(struct pb_syms *s, const char *id, const char *path)
{
	struct pb_dso *d;

	for (size_t i = 0; i < s->n_dso; i++)
		if (!strcmp(s->dso[i]->id, id))
			return s->dso[i];
	if (s->n_dso == s->cap_dso) {
		size_t cap = s->cap_dso ? s->cap_dso * 2 : 16;
		struct pb_dso **p = realloc(s->dso, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->dso = p;
		s->cap_dso = cap;
	}
	if (!(d = calloc(1, sizeof(*d))) || !(d->id = strdup(id)) || !(d->path = strdup(path))) {
		if (d)
			free(d->id);
		free(d);
		return NULL;
	}
	s->dso[s->n_dso++] = d;
	return d;
}

/* ---- a process's address space ------------------------------------------------------------ */

int pb_space_new(struct pb_syms *s, pid_t pid, struct pb_space **out)
{
	struct pb_space *sp = calloc(1, sizeof(*sp));

	*out = NULL;
	if (!sp)
		return -ENOMEM;
	if (!(sp->dwfl = dwfl_begin(&s->cb))) {
		free(sp);
		return pb_fail(-ENOMEM, "pb_space_new(): libdwfl: %s", dwfl_errmsg(-1));
	}
	sp->s = s;
	sp->pid = pid;
	sp->sorted = 1;
	sp->next = s->spaces;
	s->spaces = sp;
	*out = sp;
	return 0;
}

void pb_space_free(struct pb_space *sp)
{
	struct pb_space **p;

	if (!sp)
		return;
	for (p = &sp->s->spaces; *p && *p != sp; p = &(*p)->next)
		;
	if (*p)
		*p = sp->next;
	dwfl_end(sp->dwfl);
	for (size_t i = 0; i < sp->n; i++)
		free(sp->map[i].name);
	free(sp->map);
	pb_jit_free(sp->jit, sp->n_jit);
	free(sp->jit_sym);
	free(sp);
}

/* The load bias of the mapping: the segment holding file offset pgoff placed at start. */
static int elf_bias(Elf *elf, const struct pb_map *m, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_offset & ~(page - 1)) <= m->pgoff && m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start + ph.p_offset - m->pgoff - ph.p_vaddr;
			return 0;
		}
	}
	return -1;
}

/* The DSO's identity: its build-id in hex, else its path and stat. *why when refused. */
static int elf_id(Elf *elf, const struct pb_map *m, const struct stat *st, char *id, size_t len,
		  const char **why)
{
	const void *bits;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);

	if (n > 0 && m->build_id_size &&
	    ((size_t)n != m->build_id_size || memcmp(bits, m->build_id, (size_t)n))) {
		*why = "build-id differs: the file changed since the run";
		return -1;
	}
	if (n > 0 && (size_t)n * 2 < len) {
		for (ssize_t i = 0; i < n; i++)
			sprintf(id + 2 * i, "%02x", ((const unsigned char *)bits)[i]);
		return 0;
	}
	snprintf(id, len, "%s\t%ju\t%ju\t%jd\t%jd.%09ld", m->path, (uintmax_t)st->st_dev,
		 (uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
		 st->st_mtim.tv_nsec);
	return 0;
}

/* The file of m opened: its DSO, load bias and libdwfl module into e, or e->why. */
static void map_open(struct pb_space *sp, const struct pb_map *m, struct pb_smap *e)
{
	char id[4200];
	struct stat st;
	Elf *elf = NULL;
	/* not blocking: a FIFO put at the path since the run would hold the open forever */
	int fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	e->why = "cannot open the file";
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || elf_kind(elf) != ELF_K_ELF) {
		e->why = fd < 0 ? "cannot open the file" : "not an ELF file";
		goto fail;
	}
	if (elf_bias(elf, m, &e->bias)) {
		e->why = "no loaded segment at the map's offset";
		goto fail;
	}
	if (elf_id(elf, m, &st, id, sizeof(id), &e->why))
		goto fail;
	elf_end(elf);
	elf = NULL;
	for (size_t i = 0; i < sp->n; i++) {	/* the same file at the same bias: one module */
		if (sp->map[i].dso && !strcmp(sp->map[i].dso->id, id) && sp->map[i].bias == e->bias) {
			close(fd);
			e->dso = sp->map[i].dso;
			e->mod = sp->map[i].mod;
			e->why = NULL;
			return;
		}
	}
	if (!(e->dso = dso_get(sp->s, id, m->path))) {
		e->why = "out of memory";
		goto fail;
	}
	dwfl_report_begin_add(sp->dwfl);
	e->mod = dwfl_report_elf(sp->dwfl, m->path, m->path, fd, e->bias, true);
	dwfl_report_end(sp->dwfl, NULL, NULL);
	if (!e->mod) {
		e->dso = NULL;
		e->why = arena_str(sp->s, dwfl_errmsg(-1));
		goto fail;
	}
	e->why = NULL;
	return;
fail:
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static int is_file(const char *path)
{
	return path && path[0] == '/';
}

int pb_space_add_map(struct pb_space *sp, const struct pb_map *m)
{
	struct pb_smap e = { .start = m->start, .end = m->end, .pgoff = m->pgoff };

	if (m->start >= m->end)
		return pb_fail(-EINVAL, "pb_space_add_map(): start %#" PRIx64 " is not below end %#"
			       PRIx64, m->start, m->end);
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 32;
		struct pb_smap *p = realloc(sp->map, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sp->map = p;
		sp->cap = cap;
	}
	if (!(e.name = strdup(m->path ? m->path : "")))
		return -ENOMEM;
	if (is_file(m->path))
		map_open(sp, m, &e);
	else
		e.why = "no file behind the map (anonymous memory, [vdso], ...)";
	if (sp->n && e.start < sp->map[sp->n - 1].start)
		sp->sorted = 0;
	sp->map[sp->n++] = e;
	return 0;
}

int pb_space_fork(struct pb_space *parent, pid_t pid, struct pb_space **out)
{
	struct pb_space *sp;
	int err = pb_space_new(parent->s, pid, &sp);

	for (size_t i = 0; !err && i < parent->n; i++) {
		const struct pb_smap *m = &parent->map[i];

		err = pb_space_add_map(sp, &(struct pb_map){ .start = m->start, .end = m->end,
							     .pgoff = m->pgoff, .path = m->name });
	}
	if (err) {
		pb_space_free(sp);
		sp = NULL;
	}
	*out = sp;
	return err;
}

/* "START-END PERMS OFFSET DEV INODE PATH": the executable maps only, as perf records them. */
int pb_space_read_maps(struct pb_space *sp)
{
	char path[64], *line = NULL;
	size_t len = 0;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)sp->pid);
	if (!(f = pb_fopen(path)))
		return pb_fail(-errno, "pb_space_read_maps(): %s: %s", path, strerror(errno));
	while (!err && getline(&line, &len, f) > 0) {
		struct pb_map m = { 0 };
		char perms[8];
		int at = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*u %n", &m.start,
			   &m.end, perms, &m.pgoff, &at) < 4 || !at || !strchr(perms, 'x'))
			continue;
		m.path = line + at;
		err = pb_space_add_map(sp, &m);
	}
	free(line);
	fclose(f);
	return err;
}

int pb_space_read_jit(struct pb_space *sp, const char *dir, uid_t uid)
{
	char path[4200], dso[4300];
	int err;

	pb_jit_free(sp->jit, sp->n_jit);
	free(sp->jit_sym);
	sp->jit_sym = NULL;
	err = pb_jit_read(dir, sp->pid, uid, &sp->jit, &sp->n_jit, path, sizeof(path));
	if (err || !sp->n_jit)
		return err;
	if (!(sp->jit_sym = calloc(sp->n_jit, sizeof(*sp->jit_sym))))
		return -ENOMEM;
	snprintf(dso, sizeof(dso), "[JIT] %s", path);
	if (!(sp->jit_dso = arena_str(sp->s, dso)))
		return -ENOMEM;
	return 0;
}

static int smap_cmp(const void *a, const void *b)
{
	const struct pb_smap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

const struct pb_smap *pb_space_map_at(struct pb_space *sp, uint64_t addr)
{
	size_t lo = 0, hi = sp->n;

	if (!sp->sorted) {
		qsort(sp->map, sp->n, sizeof(*sp->map), smap_cmp);
		sp->sorted = 1;
	}
	while (lo < hi) {	/* the last map starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (sp->map[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= sp->map[lo - 1].end)
		return NULL;
	return &sp->map[lo - 1];
}

/* ---- the lookup ---------------------------------------------------------------------------- */

/* kallsyms read on the first kernel address. */
static void kernel_read(struct pb_syms *s)
{
	char why[256];
	int err = pb_ksyms_read(&s->k);

	s->k_state = err ? err : 1;
	if (err) {
		snprintf(why, sizeof(why), "/proc/kallsyms: %s", strerror(-err));
		s->k_why = arena_str(s, why);
	} else if (s->k.hidden) {
		s->k_why = "kernel addresses hidden (kptr_restrict)";
	} else if (!s->k.n) {
		s->k_why = "/proc/kallsyms: no text symbol";
	} else if (!(s->ksym = calloc(s->k.n, sizeof(*s->ksym)))) {
		s->k_why = "out of memory";
	}
	s->k_unknown.why = s->k_why ? s->k_why : "below the kernel's first symbol";
}

static const struct pb_sym *kernel_sym(struct pb_syms *s, uint64_t addr)
{
	long i;
	const struct pb_ksym *k;
	struct pb_frame f = { 0 };
	const char *dso = "[kernel.kallsyms]";
	char mod[160];

	if (!s->k_state)
		kernel_read(s);
	if (!s->ksym || (i = pb_ksyms_find(&s->k, addr)) < 0)
		return &s->k_unknown;
	if (s->ksym[i])
		return s->ksym[i];
	k = &s->k.sym[i];
	f.function = s->k.text + k->name;
	if (k->mod) {
		snprintf(mod, sizeof(mod), "[%s]", s->k.text + k->mod);
		dso = arena_str(s, mod);
	}
	return dso ? (s->ksym[i] = sym_make(s, dso, &f, 1, NULL)) : NULL;
}

static int jit_cmp_addr(const void *key, const void *e)
{
	uint64_t a = *(const uint64_t *)key;
	const struct pb_jit_entry *j = e;

	return a < j->start ? -1 : a >= j->end;
}

/* The JIT map's symbol of addr, or NULL. */
static const struct pb_sym *jit_sym(struct pb_space *sp, uint64_t addr, int *nomem)
{
	const struct pb_jit_entry *j;
	struct pb_frame f = { 0 };
	size_t i;

	if (!sp->n_jit ||
	    !(j = bsearch(&addr, sp->jit, sp->n_jit, sizeof(*sp->jit), jit_cmp_addr)))
		return NULL;
	i = (size_t)(j - sp->jit);
	if (!sp->jit_sym[i]) {
		f.function = arena_str(sp->s, j->name);
		if (!f.function || !(sp->jit_sym[i] = sym_make(sp->s, sp->jit_dso, &f, 1, NULL)))
			*nomem = 1;
	}
	return sp->jit_sym[i];
}

/* "[unknown] in the map's file", with why. */
static const struct pb_sym *map_unknown(struct pb_space *sp, struct pb_smap *m, const char *why)
{
	const char *dso;

	if (!m->unknown && (dso = arena_str(sp->s, m->name[0] ? m->name : "//anon")))
		m->unknown = sym_make(sp->s, dso, &no_frame, 1, why);
	return m->unknown;
}

/* What libdw says of addr in the map's module, made a pb_sym (names demangled, copied). */
static const struct pb_sym *dso_sym(struct pb_space *sp, struct pb_smap *m, uint64_t addr)
{
	struct pb_syms *s = sp->s;
	struct pb_frame f[MAX_FRAMES];
	size_t n;

	if (!m->dso->symtab.built && pb_symtab_build(m->mod, m->bias, &m->dso->symtab))
		return NULL;
	n = pb_dwarf_frames(m->mod, addr, pb_symtab_find(&m->dso->symtab, addr - m->bias), f,
			    MAX_FRAMES);

	if (!n || !f[n - 1].function)
		return map_unknown(sp, m, "no symbol");
	for (size_t i = 0; i < n; i++) {
		f[i].function = sym_name(s, f[i].function);
		f[i].file = arena_str(s, f[i].file);
	}
	return sym_make(s, m->dso->path, f, n, NULL);
}

int pb_space_lookup(struct pb_space *sp, uint64_t addr, const struct pb_sym **out)
{
	struct pb_syms *s = sp->s;
	struct pb_smap *m;
	const struct pb_sym *sym;
	int nomem = 0;

	s->lookups++;
	m = (struct pb_smap *)pb_space_map_at(sp, addr);
	if (addr >= PERF_CONTEXT_MARK) {
		sym = &s->marker;
	} else if (addr >> 63 && !m) {	/* the kernel's half ([vsyscall] is a map) */
		sym = kernel_sym(s, addr);
	} else if (!m || !m->dso) {
		sym = jit_sym(sp, addr, &nomem);
		if (!sym && !nomem)
			sym = m ? map_unknown(sp, m, m->why) : &s->unmapped;
	} else if ((sym = cache_get(&m->dso->cache, addr - m->bias))) {
		s->hits++;
	} else if ((sym = dso_sym(sp, m, addr)) &&
		   cache_put(&m->dso->cache, addr - m->bias, sym)) {
		sym = NULL;
	}
	*out = sym;
	return sym ? 0 : pb_fail(-ENOMEM, "pb_space_lookup(): out of memory at %#" PRIx64, addr);
}
#else
typedef int pb_symbols_not_built;	/* DW=0: symbols_none.c stands in */
#endif
