// SPDX-License-Identifier: MIT
/*
 * The stack table (issue 36): each profiled run's samples symbolized after the runs, never in
 * a timed span, into unique stacks of named frames with a value per run. The symbolizer
 * (symbols/) is one for all the runs, so a DSO is read once and its addresses are cached
 * across runs; each run's processes get their address spaces from the maps the sampler
 * recorded, a forked child's through its parent's (pb_profile_map_of()). A frame is a symbol
 * (DSO and name, the key every figure is matched by), inline frames kept as perf does; what
 * could not be named is "[unknown]" of its DSO, never dropped.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "profile/profile.h"
#include "symbols/symbols.h"
#include "stacks/stacks.h"

#define MAX_FRAMES 512

/* A string pool: each distinct string once, so symbols compare by pointer. */
struct pool {
	char **v;
	size_t n, cap;		/* cap: a power of 2, open addressing */
};

struct line_w {
	uint32_t sym;
	const char *file;
	unsigned line;
	double self_w, any_w;
};

struct sym_e {
	struct pb_stack_sym s;
	double best_self, best_any;
};

struct stack_e {
	size_t at, n;		/* frames[at..at+n) */
	const char *comm;
	size_t vals;		/* values[vals..vals+nruns) */
	uint64_t samples;
	int cut;
};

struct pb_stacks {
	int nruns;		/* the values' stride a stack */
	int used;		/* the runs the figures read (pb_stacks_trim()) */
	struct pb_syms *syms;
	struct pool strs;
	struct sym_e *sym;
	size_t nsym, capsym;
	uint32_t *symh;		/* hash of syms: index + 1, 0 empty */
	size_t caphs;
	struct line_w *lines;
	size_t nlines, caplines;
	uint32_t *lineh;
	size_t caplh;
	struct stack_e *st;
	size_t nst, capst;
	uint32_t *sth;
	size_t capsh;
	uint32_t *frames;
	unsigned char *inl;
	size_t nframes, capframes;
	double *values;
	size_t nvalues, capvalues;
	uint64_t unwind_cut;
	const char *unwind_why;
	/* the user leaves' places: a DSO and file offset, its samples (for --annotate) */
	struct leaf_e { const char *dso; uint64_t off, samples; } *leaf;
	size_t nleaf, capleaf;
	uint32_t *leafh;
	size_t caplfh;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int grow(void **v, size_t *cap, size_t need, size_t each)
{
	size_t c = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*v, c * each);
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

static const char *intern(struct pool *p, const char *s)
{
	size_t i;

	if (!s)
		return NULL;
	if (2 * (p->n + 1) > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		char **v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k < p->cap; k++)
			if (p->v[k]) {
				for (i = hash_str(p->v[k]) & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
					;
				v[i] = p->v[k];
			}
		free(p->v);
		p->v = v;
		p->cap = cap;
	}
	for (i = hash_str(s) & (p->cap - 1); p->v[i]; i = (i + 1) & (p->cap - 1))
		if (!strcmp(p->v[i], s))
			return p->v[i];
	p->v[i] = strdup(s);
	if (p->v[i])
		p->n++;
	return p->v[i];
}

/* An index table (index + 1 a slot) rebuilt at twice the size when half full. */
static int rehash(uint32_t **h, size_t *cap, size_t n, uint64_t (*key)(const void *, size_t),
		  const void *arg)
{
	size_t c = *cap ? *cap : 256;
	uint32_t *v;

	if (2 * (n + 1) <= *cap)
		return 0;
	while (2 * (n + 1) > c)
		c *= 2;
	v = calloc(c, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		size_t i = key(arg, k) & (c - 1);

		while (v[i])
			i = (i + 1) & (c - 1);
		v[i] = (uint32_t)k + 1;
	}
	free(*h);
	*h = v;
	*cap = c;
	return 0;
}

static uint64_t sym_key(const struct pb_stacks *t, const char *name, const char *dso)
{
	(void)t;
	return mix(mix(0, (uintptr_t)name), (uintptr_t)dso);
}

static uint64_t sym_key_at(const void *arg, size_t k)
{
	const struct pb_stacks *t = arg;

	return sym_key(t, t->sym[k].s.name, t->sym[k].s.dso);
}

/* The symbol (name, dso), added when new: its index, or -ENOMEM. */
static long sym_id(struct pb_stacks *t, const char *name, const char *dso, int kernel,
		   int unknown, const char *why)
{
	size_t i;

	if (rehash(&t->symh, &t->caphs, t->nsym, sym_key_at, t))
		return -ENOMEM;
	for (i = sym_key(t, name, dso) & (t->caphs - 1); t->symh[i]; i = (i + 1) & (t->caphs - 1)) {
		const struct sym_e *e = &t->sym[t->symh[i] - 1];

		if (e->s.name == name && e->s.dso == dso)
			return t->symh[i] - 1;
	}
	if (grow((void **)&t->sym, &t->capsym, t->nsym + 1, sizeof(*t->sym)))
		return -ENOMEM;
	t->sym[t->nsym] = (struct sym_e){ .s = { .name = name, .dso = dso, .why = why,
						 .kernel = kernel, .unknown = unknown },
					  .best_self = -1, .best_any = -1 };
	t->symh[i] = (uint32_t)++t->nsym;
	return (long)t->nsym - 1;
}

static uint64_t line_key(uint32_t sym, const char *file, unsigned line)
{
	return mix(mix(mix(1, sym), (uintptr_t)file), line);
}

static uint64_t line_key_at(const void *arg, size_t k)
{
	const struct pb_stacks *t = arg;

	return line_key(t->lines[k].sym, t->lines[k].file, t->lines[k].line);
}

/* A frame's line weighed (leaf: its self; any place: total), the symbol's hottest line
 * kept. */
static int weigh_line(struct pb_stacks *t, uint32_t sym, const char *file, unsigned line,
		      int leaf, double w)
{
	struct line_w *l;
	struct sym_e *e = &t->sym[sym];
	size_t i;

	if (!file)
		return 0;
	if (rehash(&t->lineh, &t->caplh, t->nlines, line_key_at, t))
		return -ENOMEM;
	for (i = line_key(sym, file, line) & (t->caplh - 1); t->lineh[i]; i = (i + 1) & (t->caplh - 1)) {
		l = &t->lines[t->lineh[i] - 1];
		if (l->sym == sym && l->file == file && l->line == line)
			break;
	}
	if (!t->lineh[i]) {
		if (grow((void **)&t->lines, &t->caplines, t->nlines + 1, sizeof(*t->lines)))
			return -ENOMEM;
		t->lines[t->nlines] = (struct line_w){ sym, file, line, 0, 0 };
		t->lineh[i] = (uint32_t)++t->nlines;
	}
	l = &t->lines[t->lineh[i] - 1];
	l->any_w += w;
	l->self_w += leaf ? w : 0;
	if (l->self_w > e->best_self || (l->self_w == e->best_self && l->any_w > e->best_any)) {
		e->best_self = l->self_w;
		e->best_any = l->any_w;
		e->s.file = file;
		e->s.line = line;
	}
	return 0;
}

static uint64_t stack_key(const struct pb_stacks *t, const char *comm, const uint32_t *f,
			  const unsigned char *inl, size_t n)
{
	uint64_t h = mix(2, (uintptr_t)comm);

	for (size_t i = 0; i < n; i++)
		h = mix(h, f[i] * 2ULL + inl[i]);
	(void)t;
	return h;
}

static uint64_t stack_key_at(const void *arg, size_t k)
{
	const struct pb_stacks *t = arg;
	const struct stack_e *s = &t->st[k];

	return stack_key(t, s->comm, t->frames + s->at, t->inl + s->at, s->n);
}

/* The stack (comm, f[0..n) root first), added when new: its index or -ENOMEM. */
static long stack_id(struct pb_stacks *t, const char *comm, const uint32_t *f,
		     const unsigned char *inl, size_t n)
{
	struct stack_e *s;
	size_t i;

	if (rehash(&t->sth, &t->capsh, t->nst, stack_key_at, t))
		return -ENOMEM;
	for (i = stack_key(t, comm, f, inl, n) & (t->capsh - 1); t->sth[i];
	     i = (i + 1) & (t->capsh - 1)) {
		s = &t->st[t->sth[i] - 1];
		if (s->comm == comm && s->n == n && !memcmp(t->frames + s->at, f, n * sizeof(*f)) &&
		    !memcmp(t->inl + s->at, inl, n))
			return t->sth[i] - 1;
	}
	if (grow((void **)&t->st, &t->capst, t->nst + 1, sizeof(*t->st)) ||
	    grow((void **)&t->frames, &t->capframes, t->nframes + n, sizeof(*t->frames)))
		return -ENOMEM;
	{
		size_t cap = t->capframes;
		unsigned char *v = realloc(t->inl, cap ? cap : 1);

		if (!v)
			return -ENOMEM;
		t->inl = v;
	}
	if (grow((void **)&t->values, &t->capvalues, t->nvalues + (size_t)t->nruns,
		 sizeof(*t->values)))
		return -ENOMEM;
	memcpy(t->frames + t->nframes, f, n * sizeof(*f));
	memcpy(t->inl + t->nframes, inl, n);
	memset(t->values + t->nvalues, 0, (size_t)t->nruns * sizeof(*t->values));
	t->st[t->nst] = (struct stack_e){ .at = t->nframes, .n = n, .comm = comm,
					  .vals = t->nvalues };
	t->nframes += n;
	t->nvalues += (size_t)t->nruns;
	t->sth[i] = (uint32_t)++t->nst;
	return (long)t->nst - 1;
}

int pb_stacks_new(struct pb_stacks **out, int nruns, const char *const *debug_dirs)
{
	struct pb_stacks *t;
	int err;

	*out = NULL;
	if (nruns < 1)
		return pb_fail(-EINVAL, "%s(): nruns is %d", __func__, nruns);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->nruns = t->used = nruns;
	err = pb_syms_new(&t->syms, debug_dirs);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

void pb_stacks_free(struct pb_stacks *t)
{
	if (!t)
		return;
	pb_syms_free(t->syms);
	for (size_t i = 0; i < t->strs.cap; i++)
		free(t->strs.v[i]);
	free(t->strs.v);
	free(t->sym);
	free(t->symh);
	free(t->lines);
	free(t->lineh);
	free(t->st);
	free(t->sth);
	free(t->frames);
	free(t->inl);
	free(t->values);
	free(t->leaf);
	free(t->leafh);
	free(t);
}

/* ---- one profile --------------------------------------------------------------------------- */

/* The address spaces of one profile's processes: pid to space, made at a pid's first use. */
struct spaces {
	struct pb_stacks *t;
	const struct pb_profile *p;
	uint32_t pid[256];
	struct pb_space *sp[256];
	int n;
};

static struct pb_space *space_of(struct spaces *ss, uint32_t pid)
{
	struct pb_profile_map m;
	struct pb_space *sp;

	for (int i = 0; i < ss->n; i++)
		if (ss->pid[i] == pid)
			return ss->sp[i];
	if (ss->n == 256 || pb_space_new(ss->t->syms, (pid_t)pid, &sp))
		return ss->n ? ss->sp[0] : NULL;
	for (size_t i = 0; i < pb_profile_nr_maps(ss->p); i++) {
		if (pb_profile_map_at(ss->p, i, &m) || m.pid != pid)
			continue;
		struct pb_map pm = { .start = m.start, .end = m.end, .pgoff = m.pgoff,
				     .path = m.path, .build_id = m.build_id,
				     .build_id_size = m.build_id_size };
		if (m.start < m.end)
			pb_space_add_map(sp, &pm);
	}
	ss->pid[ss->n] = pid;
	ss->sp[ss->n] = sp;
	return ss->sp[ss->n++];
}

/* The space whose maps hold a user address of pid at time (its own, or its parent's at the
 * fork), else pid's own. */
static struct pb_space *space_for(struct spaces *ss, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct pb_profile_map m;

	if (!pb_profile_map_of(ss->p, pid, ip, time, &m))
		return space_of(ss, m.pid);
	return space_of(ss, pid);
}

/* A sample's chain, leaf first: its addresses (ready to look up: a return address less one)
 * and how many are the kernel's. In DWARF mode the user part unwound by CFI. */
static size_t chain_of(struct spaces *ss, const struct pb_profile_sample *s, uint64_t *ips,
		       unsigned *nkernel, int *cut)
{
	size_t n = 0, nu = 0;
	const char *why = NULL;

	*cut = s->cut;
	*nkernel = 0;
	for (unsigned j = 0; j < s->nkernel && n < MAX_FRAMES; j++, (*nkernel)++)
		ips[n++] = j ? s->ips[j] - 1 : s->ips[j];
	if (s->regs && s->regs_abi && s->stack) {
		struct pb_space *sp = space_for(ss, s->pid, s->nips > s->nkernel ?
						s->ips[s->nkernel] : 0, s->time_ns);

		if (sp && !pb_space_unwind(sp, s->regs, s->regs_mask, s->stack, s->stack_len,
					   ips + n, MAX_FRAMES - n, &nu, &why)) {
			if (why) {
				*cut = 1;
				ss->t->unwind_cut++;
				ss->t->unwind_why = intern(&ss->t->strs, why);
			}
			return n + nu;
		}
		*cut = 1;
	}
	for (unsigned j = s->nkernel; j < s->nips && n < MAX_FRAMES; j++)
		ips[n++] = j != s->nkernel ? s->ips[j] - 1 : s->ips[j];
	return n;
}

/* The frames of a chain, leaf first (inline frames before their function), into f and inl
 * (inl[k]: frame k was inlined into frame k+1). Their count, or -ENOMEM. */
static long frames_of(struct spaces *ss, const struct pb_profile_sample *s, const uint64_t *ips,
		      size_t n, unsigned nkernel, uint32_t *f, unsigned char *inl,
		      const char **files, unsigned *lines)
{
	struct pb_stacks *t = ss->t;
	size_t k = 0;

	for (size_t i = 0; i < n && k < MAX_FRAMES; i++) {
		int kernel = i < nkernel;
		struct pb_space *sp = kernel ? space_of(ss, s->pid) :
				      space_for(ss, s->pid, ips[i], s->time_ns);
		const struct pb_sym *sym;

		if (!sp || pb_space_lookup(sp, ips[i], &sym))
			return -ENOMEM;
		const char *dso = intern(&t->strs, sym->dso ? sym->dso : "[unknown]");
		if (!sym->n || !sym->frames[0].function) {
			long id = sym_id(t, intern(&t->strs, "[unknown]"), dso, kernel, 1,
					 intern(&t->strs, sym->why));

			if (id < 0)
				return id;
			files[k] = NULL;
			lines[k] = 0;
			inl[k] = 0;
			f[k++] = (uint32_t)id;
			continue;
		}
		for (size_t j = 0; j < sym->n && k < MAX_FRAMES; j++) {
			const struct pb_frame *fr = &sym->frames[j];
			long id = sym_id(t, intern(&t->strs, fr->function), dso, kernel, 0, NULL);

			if (id < 0)
				return id;
			files[k] = intern(&t->strs, fr->file);
			lines[k] = fr->line;
			inl[k] = j + 1 < sym->n;
			f[k++] = (uint32_t)id;
		}
	}
	return (long)k;
}

static uint64_t leaf_key(const char *dso, uint64_t off)
{
	return mix(mix(3, (uintptr_t)dso), off);
}

static uint64_t leaf_key_at(const void *arg, size_t k)
{
	const struct pb_stacks *t = arg;

	return leaf_key(t->leaf[k].dso, t->leaf[k].off);
}

/* A sample's user leaf at file offset off of dso counted. */
static int count_leaf(struct pb_stacks *t, const char *dso, uint64_t off)
{
	size_t i;

	if (rehash(&t->leafh, &t->caplfh, t->nleaf, leaf_key_at, t))
		return -ENOMEM;
	for (i = leaf_key(dso, off) & (t->caplfh - 1); t->leafh[i]; i = (i + 1) & (t->caplfh - 1)) {
		struct leaf_e *e = &t->leaf[t->leafh[i] - 1];

		if (e->dso == dso && e->off == off) {
			e->samples++;
			return 0;
		}
	}
	if (grow((void **)&t->leaf, &t->capleaf, t->nleaf + 1, sizeof(*t->leaf)))
		return -ENOMEM;
	t->leaf[t->nleaf] = (struct leaf_e){ dso, off, 1 };
	t->leafh[i] = (uint32_t)++t->nleaf;
	return 0;
}

/* One sample into the table. */
static int add_sample(struct spaces *ss, int run, const struct pb_profile_sample *s)
{
	static __thread uint64_t ips[MAX_FRAMES];
	static __thread uint32_t f[MAX_FRAMES], root[MAX_FRAMES];
	static __thread unsigned char inl[MAX_FRAMES], rinl[MAX_FRAMES];
	static __thread const char *files[MAX_FRAMES];
	static __thread unsigned lines[MAX_FRAMES];
	struct pb_stacks *t = ss->t;
	unsigned nkernel;
	int cut, err;
	size_t n = chain_of(ss, s, ips, &nkernel, &cut);
	long k = frames_of(ss, s, ips, n, nkernel, f, inl, files, lines), id;
	const char *comm = intern(&t->strs, pb_profile_comm(ss->p, s->pid));

	if (k < 0)
		return (int)k;
	if (k > 0 && n > 0 && !nkernel && !t->sym[f[0]].s.unknown) {
		struct pb_profile_map m;

		if (!pb_profile_map_of(ss->p, s->pid, ips[0], s->time_ns, &m) && ips[0] >= m.start &&
		    (err = count_leaf(t, t->sym[f[0]].s.dso, ips[0] - m.start + m.pgoff)))
			return err;
	}
	for (long i = 0; i < k; i++) {
		root[i] = f[k - 1 - i];
		/* root first: frame i inlined into frame i-1 (its caller) */
		rinl[i] = inl[k - 1 - i];
		err = weigh_line(t, f[i], files[i], lines[i], i == 0, (double)s->period);
		if (err)
			return err;
	}
	id = stack_id(t, comm ? comm : intern(&t->strs, "[unknown]"), root, rinl, (size_t)k);
	if (id < 0)
		return (int)id;
	t->values[t->st[id].vals + (size_t)run] += (double)s->period;
	t->st[id].samples++;
	t->st[id].cut |= cut;
	return 0;
}

int pb_stacks_add(struct pb_stacks *t, int run, const struct pb_profile *p)
{
	struct spaces *ss;
	struct pb_profile_sample s;
	int err = 0;

	if (run < 0 || run >= t->nruns)
		return -ERANGE;
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	ss->t = t;
	ss->p = p;
	for (size_t i = 0; i < pb_profile_nr(p) && !err; i++)
		if (!pb_profile_sample_at(p, i, &s))
			err = add_sample(ss, run, &s);
	for (int i = 0; i < ss->n; i++)
		pb_space_free(ss->sp[i]);
	free(ss);
	return err;
}

int pb_stacks_put(struct pb_stacks *t, int run, const char *comm, const char *const *names,
		  const char *const *dsos, const unsigned char *kinds, size_t n, int cut,
		  double value, uint64_t samples)
{
	uint32_t f[MAX_FRAMES];
	unsigned char inl[MAX_FRAMES];
	long id;

	if (run < 0 || run >= t->nruns)
		return -ERANGE;
	if (!n || n > MAX_FRAMES)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const char *name = intern(&t->strs, names[i] ? names[i] : "[unknown]");
		const char *dso = intern(&t->strs, dsos && dsos[i] ? dsos[i] : "[unknown]");

		if (!name || !dso)
			return -ENOMEM;
		id = sym_id(t, name, dso, kinds && (kinds[i] & PB_STACKS_KERNEL), !names[i], NULL);
		if (id < 0)
			return (int)id;
		f[i] = (uint32_t)id;
		inl[i] = i && kinds && (kinds[i] & PB_STACKS_INLINED);
	}
	comm = intern(&t->strs, comm ? comm : "[unknown]");
	if (!comm)
		return -ENOMEM;
	id = stack_id(t, comm, f, inl, n);
	if (id < 0)
		return (int)id;
	t->values[t->st[id].vals + (size_t)run] += value;
	t->st[id].samples += samples;
	t->st[id].cut |= cut != 0;
	return 0;
}

/* ---- reads --------------------------------------------------------------------------------- */

int pb_stacks_nruns(const struct pb_stacks *t)
{
	return t->used;
}

void pb_stacks_trim(struct pb_stacks *t, int n)
{
	if (n >= 1 && n <= t->nruns)
		t->used = n;
}

size_t pb_stacks_nr(const struct pb_stacks *t)
{
	return t->nst;
}

int pb_stacks_at(const struct pb_stacks *t, size_t i, struct pb_stack *out)
{
	const struct stack_e *s;

	if (i >= t->nst)
		return -ERANGE;
	s = &t->st[i];
	*out = (struct pb_stack){ .nframes = s->n, .frames = t->frames + s->at,
				  .inlined = t->inl + s->at, .comm = s->comm,
				  .values = t->values + s->vals, .samples = s->samples,
				  .cut = s->cut };
	return 0;
}

size_t pb_stacks_nr_syms(const struct pb_stacks *t)
{
	return t->nsym;
}

int pb_stacks_sym(const struct pb_stacks *t, uint32_t i, struct pb_stack_sym *out)
{
	if (i >= t->nsym)
		return -ERANGE;
	*out = t->sym[i].s;
	return 0;
}

uint64_t pb_stacks_unwind_cut(const struct pb_stacks *t, const char **why)
{
	if (why)
		*why = t->unwind_why;
	return t->unwind_cut;
}

size_t pb_stacks_nr_leaves(const struct pb_stacks *t)
{
	return t->nleaf;
}

int pb_stacks_leaf(const struct pb_stacks *t, size_t i, const char **dso, uint64_t *off,
		   uint64_t *samples)
{
	if (i >= t->nleaf)
		return -ERANGE;
	*dso = t->leaf[i].dso;
	*off = t->leaf[i].off;
	*samples = t->leaf[i].samples;
	return 0;
}

const char *pb_stacks_kernel_why(const struct pb_stacks *t)
{
	return pb_syms_kernel_why(t->syms);
}

/* A frame's name for FlameGraph: ';' and ' ' are its separators, so replaced. */
static void put_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == ' ' || *s == '\n' ? '_' : *s, f);
}

int pb_stacks_write_folded(const struct pb_stacks *t, FILE *f)
{
	for (size_t i = 0; i < t->nst; i++) {
		const struct stack_e *s = &t->st[i];

		put_name(f, s->comm);
		for (size_t k = 0; k < s->n; k++) {
			const struct pb_stack_sym *y = &t->sym[t->frames[s->at + k]].s;

			fputc(';', f);
			put_name(f, y->name);
			if (y->unknown) {
				fputs("_in_", f);
				put_name(f, y->dso);
			}
			if (t->inl[s->at + k])
				fputs("_[i]", f);
			else if (y->kernel)
				fputs("_[k]", f);
		}
		fprintf(f, " %llu\n", (unsigned long long)s->samples);
	}
	return ferror(f) ? -EIO : 0;
}
