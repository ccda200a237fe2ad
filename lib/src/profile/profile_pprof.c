/* SPDX-License-Identifier: MIT */
/*
 * A profile as pprof's profile.proto, gzipped (issue 36, item 4): what `go tool pprof`,
 * Pyroscope and Parca read. Written from pprof's documented schema (pprof.proto beside this
 * file, made into C by protobuf-c's compiler at build time) and compressed by zlib; built
 * without protobuf-c (PPROF=0: a static or cross build), a refusal with the reason.
 *
 * The tables: strings (entry 0 is ""), a Function per distinct name and source file, a
 * Location per distinct chain position (its DSO's mapping, its address, and its lines: a
 * function's inline frames are Lines of one Location, the innermost first, as pprof reads
 * them), a Mapping per DSO (its build-id; the program's first), a Sample per stack (its
 * locations leaf first; values: samples, then the value in the caller's unit). A frame whose
 * function is not known is a Location with no Line (pprof says its DSO and address). Each
 * table is a hash of its keys, as bytes, so equal frames from many stacks are one entry.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "profile/export.h"

#ifndef PBENCH_HAVE_PROTOBUF_C

int pb_pprof_write(FILE *f, const struct pb_xstack *stacks, size_t n,
		   const struct pb_pprof_opts *opts)
{
	(void)f, (void)stacks, (void)n, (void)opts;
	return pb_fail(-ENOTSUP, "pb_pprof_write(): pbench was built without protobuf-c and zlib "
		       "(PPROF=0): no pprof export");
}

#else

#include <zlib.h>

#include "pprof.pb-c.h"

/* Keys as bytes, copied into one arena; an entry's index is its id less one. */
struct map {
	struct ent { size_t off, len; uint64_t h; } *e;
	size_t n, cap;
	uint32_t *slot;		/* entry index + 1, 0 empty */
	size_t scap;
	char *arena;
	size_t alen, acap;
};

static uint64_t bytes_hash(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static int map_rehash(struct map *m)
{
	size_t cap = m->scap ? m->scap * 2 : 256;
	uint32_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t j = m->e[i].h & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(m->slot);
	m->slot = s;
	m->scap = cap;
	return 0;
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *nv;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(nv = realloc(*v, c * size)))
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

/* The index of key (found, or added: *added 1). -ENOMEM. */
static long map_get(struct map *m, const void *key, size_t len, int *added)
{
	uint64_t h = bytes_hash(key, len);
	size_t j;

	*added = 0;
	if ((m->n + 1) * 2 > m->scap && map_rehash(m))
		return -ENOMEM;
	for (j = h & (m->scap - 1); m->slot[j]; j = (j + 1) & (m->scap - 1)) {
		const struct ent *e = &m->e[m->slot[j] - 1];

		if (e->h == h && e->len == len && !memcmp(m->arena + e->off, key, len))
			return (long)m->slot[j] - 1;
	}
	if (m->n >= UINT32_MAX - 1 || grow((void **)&m->e, &m->cap, m->n + 1, sizeof(*m->e)) ||
	    grow((void **)&m->arena, &m->acap, m->alen + len + 8, 1))
		return -ENOMEM;
	memcpy(m->arena + m->alen, key, len);
	m->e[m->n] = (struct ent){ m->alen, len, h };
	m->alen += (len + 7) & ~(size_t)7;	/* the next key aligned for uint64_t */
	m->slot[j] = (uint32_t)m->n + 1;
	*added = 1;
	return (long)m->n++;
}

static const void *map_key(const struct map *m, size_t i)
{
	return m->arena + m->e[i].off;
}

static void map_free(struct map *m)
{
	free(m->e);
	free(m->slot);
	free(m->arena);
}

/* A mapping's figures besides its DSO. */
struct mapinfo {
	const struct pb_xdso *dso;
	int functions, filenames, lines, inlines;
};

struct pp {
	struct map strs, funcs, locs, maps;
	struct map fcache;	/* a frame's address to its function */
	long *fids;
	size_t fids_cap;
	struct mapinfo *mi;
	size_t mi_cap;
	uint64_t *ids;		/* the samples' location ids, leaf first, stack after stack */
	size_t nids, ids_cap;
	size_t *first;		/* stack i's ids: ids[first[i]..first[i + 1]) */
	uint64_t cut_loc;	/* the "[stack cut short]" location (0: none yet) */
	uint64_t *key;		/* a location's key being made */
	size_t main_at;		/* the map entry of the program's DSO */
	size_t key_cap;
};

/* s with each byte that does not start a UTF-8 character as U+FFFD (malloc'd), or NULL. */
static char *utf8_fixed(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *v = malloc(3 * n + 1);

	for (const unsigned char *c = (const unsigned char *)s; v && *c;) {
		int k = pb_utf8_len(c, 0);

		if (k)
			memcpy(v + o, c, (size_t)k), o += (size_t)k, c += k;
		else
			memcpy(v + o, "\xef\xbf\xbd", 3), o += 3, c++;
	}
	if (v)
		v[o] = '\0';
	return v;
}

static int utf8_ok(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c;) {
		int k = pb_utf8_len(c, 0);

		if (!k)
			return 0;
		c += k;
	}
	return 1;
}

/* The string table's index of s (NULL: 0, ""), -1 out of memory. proto3's strings are UTF-8:
 * a name that is not is written with U+FFFD for its stray bytes. */
static int64_t str_id(struct pp *p, const char *s)
{
	char *fixed = NULL;
	int added;
	long i;

	if (!s || !*s)
		return 0;
	if (!utf8_ok(s) && !(s = fixed = utf8_fixed(s)))
		return -1;
	i = map_get(&p->strs, s, strlen(s) + 1, &added);
	free(fixed);
	return i < 0 ? -1 : i;
}

/* The function of frame fr (its name and file): looked up by the frame's address first, as
 * the caller's frames are shared by many stacks; by its strings the first time. */
static long func_id(struct pp *p, const struct pb_xframe *fr)
{
	int64_t k[2];
	int added;
	long i, c = map_get(&p->fcache, &fr, sizeof(fr), &added);

	if (c < 0 || grow((void **)&p->fids, &p->fids_cap, p->fcache.n, sizeof(*p->fids)))
		return -ENOMEM;
	if (!added)
		return p->fids[c];
	k[0] = str_id(p, fr->name);
	k[1] = str_id(p, fr->file);
	if (k[0] < 0 || k[1] < 0)
		return -ENOMEM;
	i = map_get(&p->funcs, k, sizeof(k), &added);
	if (i < 0)
		return i;
	return p->fids[c] = i + 1;
}

static int is_library(const struct pb_xdso *d)
{
	const char *b = d && d->path ? strrchr(d->path, '/') : NULL;

	b = b ? b + 1 : d && d->path ? d->path : "[";
	return strstr(b, ".so") != NULL || b[0] == '[';
}

/* The mappings, one a DSO in the order first met, the program's (the first DSO that is not a
 * library or a [name]) given id 1, as pprof expects mapping[0] to be. */
static int maps_collect(struct pp *p, const struct pb_xstack *stacks, size_t n)
{
	int added;

	p->main_at = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < stacks[i].n; k++) {
			const struct pb_xdso *d = stacks[i].frames[k]->dso;
			long m;

			if (!d)
				continue;
			if ((m = map_get(&p->maps, &d, sizeof(d), &added)) < 0)
				return -ENOMEM;
			if (!added)
				continue;
			if (grow((void **)&p->mi, &p->mi_cap, p->maps.n, sizeof(*p->mi)))
				return -ENOMEM;
			p->mi[m] = (struct mapinfo){ .dso = d };
			if (p->main_at == SIZE_MAX && !is_library(d))
				p->main_at = (size_t)m;
		}
	if (p->main_at == SIZE_MAX)
		p->main_at = 0;
	return 0;
}

/* The id of the mapping of map entry m: the program's 1, the others in order after it. */
static uint64_t map_entry_id(const struct pp *p, size_t m)
{
	return m == p->main_at ? 1 : m < p->main_at ? m + 2 : m + 1;
}

/* The map entry of d (a DSO maps_collect() saw), or -1 for none. */
static long map_entry(struct pp *p, const struct pb_xdso *d)
{
	int added;

	return d ? map_get(&p->maps, &d, sizeof(d), &added) : -1;
}

/* The location of frames[a..b) (a function and the frames inlined into it, root first): its
 * key is its mapping, address and lines (function, line), the innermost first. Its id, or
 * -ENOMEM. */
static long loc_id(struct pp *p, const struct pb_xframe *const *fr, int a, int b)
{
	long m = map_entry(p, fr[a]->dso);
	size_t nk = 3;
	int added;
	long i;

	if (grow((void **)&p->key, &p->key_cap, 3 + 2 * (size_t)(b - a), sizeof(*p->key)))
		return -ENOMEM;
	p->key[0] = m < 0 ? 0 : map_entry_id(p, (size_t)m);
	p->key[1] = fr[b - 1]->addr ? fr[b - 1]->addr : fr[a]->addr;
	for (int k = b - 1; k >= a; k--) {
		long fid;

		if (!fr[k]->name)
			continue;
		if ((fid = func_id(p, fr[k])) < 0)
			return fid;
		p->key[nk++] = (uint64_t)fid;
		p->key[nk++] = fr[k]->line;
		if (m >= 0) {
			struct mapinfo *mi = &p->mi[m];

			mi->functions = 1;
			mi->filenames |= fr[k]->file != NULL;
			mi->lines |= fr[k]->line != 0;
			mi->inlines |= (fr[k]->flags & PB_XF_INLINED) != 0;
		}
	}
	p->key[2] = (nk - 3) / 2;
	i = map_get(&p->locs, p->key, nk * sizeof(*p->key), &added);
	return i < 0 ? i : i + 1;
}

/* The id of the location of cut stacks' extra root frame. */
static long cut_id(struct pp *p)
{
	static const struct pb_xframe cut = { .name = PB_XCUT_NAME };
	const struct pb_xframe *fr = &cut;

	if (!p->cut_loc) {
		long id = loc_id(p, &fr, 0, 1);

		if (id < 0)
			return id;
		p->cut_loc = (uint64_t)id;
	}
	return (long)p->cut_loc;
}

/* Stack s's locations, leaf first, appended to ids. */
static int stack_ids(struct pp *p, const struct pb_xstack *s)
{
	int b = s->n;

	if (grow((void **)&p->ids, &p->ids_cap, p->nids + (size_t)s->n + 1, sizeof(*p->ids)))
		return -ENOMEM;
	while (b > 0) {		/* from the leaf: a group ends at b, starts at its function */
		int a = b - 1;
		long id;

		while (a > 0 && (s->frames[a]->flags & PB_XF_INLINED))
			a--;
		if ((id = loc_id(p, s->frames, a, b)) < 0)
			return (int)id;
		p->ids[p->nids++] = (uint64_t)id;
		b = a;
	}
	if (s->n > 0 && (s->frames[0]->flags & PB_XF_CUT)) {
		long id = cut_id(p);

		if (id < 0)
			return (int)id;
		p->ids[p->nids++] = (uint64_t)id;
	}
	return 0;
}

/* What the messages are made of, freed together. */
struct msgs {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType vt[2], period;
	Perftools__Profiles__ValueType *vtp[2];
	Perftools__Profiles__Function *fv, **fp;
	Perftools__Profiles__Location *lv, **lp;
	Perftools__Profiles__Line *linev, **linep;
	Perftools__Profiles__Mapping *mv, **mp;
	Perftools__Profiles__Sample *sv, **sp;
	int64_t *values, *comments;
	char **strs;
};

static void msgs_free(struct msgs *g)
{
	free(g->fv), free(g->fp), free(g->lv), free(g->lp), free(g->linev), free(g->linep);
	free(g->mv), free(g->mp), free(g->sv), free(g->sp), free(g->values), free(g->comments);
	free(g->strs);
}

static int functions_make(struct pp *p, struct msgs *g)
{
	size_t n = p->funcs.n;

	g->fv = calloc(n ? n : 1, sizeof(*g->fv));
	g->fp = calloc(n ? n : 1, sizeof(*g->fp));
	if (!g->fv || !g->fp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const int64_t *k = map_key(&p->funcs, i);

		perftools__profiles__function__init(&g->fv[i]);
		g->fv[i].id = i + 1;
		g->fv[i].name = g->fv[i].system_name = k[0];
		g->fv[i].filename = k[1];
		g->fp[i] = &g->fv[i];
	}
	g->prof.n_function = n;
	g->prof.function = g->fp;
	return 0;
}

static int locations_make(struct pp *p, struct msgs *g)
{
	size_t n = p->locs.n, nl = 0, at = 0;

	for (size_t i = 0; i < n; i++)
		nl += ((const uint64_t *)map_key(&p->locs, i))[2];
	g->lv = calloc(n ? n : 1, sizeof(*g->lv));
	g->lp = calloc(n ? n : 1, sizeof(*g->lp));
	g->linev = calloc(nl ? nl : 1, sizeof(*g->linev));
	g->linep = calloc(nl ? nl : 1, sizeof(*g->linep));
	if (!g->lv || !g->lp || !g->linev || !g->linep)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *k = map_key(&p->locs, i);
		Perftools__Profiles__Location *l = &g->lv[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = k[0];
		l->address = k[1];
		l->n_line = k[2];
		l->line = g->linep + at;
		for (size_t j = 0; j < k[2]; j++, at++) {
			perftools__profiles__line__init(&g->linev[at]);
			g->linev[at].function_id = k[3 + 2 * j];
			g->linev[at].line = (int64_t)k[4 + 2 * j];
			g->linep[at] = &g->linev[at];
		}
		g->lp[i] = l;
	}
	g->prof.n_location = n;
	g->prof.location = g->lp;
	return 0;
}

/* The mappings; their strings are interned first (strings_make() comes after). */
static int mappings_make(struct pp *p, struct msgs *g)
{
	size_t n = p->maps.n;

	g->mv = calloc(n ? n : 1, sizeof(*g->mv));
	g->mp = calloc(n ? n : 1, sizeof(*g->mp));
	if (!g->mv || !g->mp)
		return -ENOMEM;
	for (size_t m = 0; m < n; m++) {
		const struct mapinfo *mi = &p->mi[m];
		uint64_t id = map_entry_id(p, m);
		Perftools__Profiles__Mapping *v = &g->mv[id - 1];

		perftools__profiles__mapping__init(v);
		v->id = id;
		v->memory_start = mi->dso->start;
		v->memory_limit = mi->dso->limit;
		v->file_offset = mi->dso->offset;
		v->filename = str_id(p, mi->dso->path);
		v->build_id = str_id(p, mi->dso->build_id);
		if (v->filename < 0 || v->build_id < 0)
			return -ENOMEM;
		v->has_functions = mi->functions;
		v->has_filenames = mi->filenames;
		v->has_line_numbers = mi->lines;
		v->has_inline_frames = mi->inlines;
		g->mp[id - 1] = v;
	}
	g->prof.n_mapping = n;
	g->prof.mapping = g->mp;
	return 0;
}

static int samples_make(struct pp *p, struct msgs *g, const struct pb_xstack *stacks,
			size_t n)
{
	g->sv = calloc(n ? n : 1, sizeof(*g->sv));
	g->sp = calloc(n ? n : 1, sizeof(*g->sp));
	g->values = calloc(n ? 2 * n : 1, sizeof(*g->values));
	if (!g->sv || !g->sp || !g->values)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		Perftools__Profiles__Sample *s = &g->sv[i];

		perftools__profiles__sample__init(s);
		s->n_location_id = p->first[i + 1] - p->first[i];
		s->location_id = p->ids + p->first[i];
		s->n_value = 2;
		s->value = g->values + 2 * i;
		s->value[0] = llround(stacks[i].samples);
		s->value[1] = llround(stacks[i].value);
		g->sp[i] = s;
	}
	g->prof.n_sample = n;
	g->prof.sample = g->sp;
	return 0;
}

/* The sample types, the period, the comments: strings interned; then the string table. */
static int header_make(struct pp *p, struct msgs *g, const struct pb_pprof_opts *o)
{
	const char *vt = o->value_type ? o->value_type : "cpu";
	const char *vu = o->value_unit ? o->value_unit : "nanoseconds";
	size_t nc = 0;

	while (o->comments && o->comments[nc])
		nc++;
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&g->vt[i]);
		g->vtp[i] = &g->vt[i];
	}
	perftools__profiles__value_type__init(&g->period);
	g->vt[0].type = str_id(p, "samples");
	g->vt[0].unit = str_id(p, "count");
	g->vt[1].type = str_id(p, vt);
	g->vt[1].unit = str_id(p, vu);
	g->period.type = str_id(p, o->period_type ? o->period_type : vt);
	g->period.unit = str_id(p, o->period_unit ? o->period_unit : vu);
	if (!(g->comments = calloc(nc ? nc : 1, sizeof(*g->comments))))
		return -ENOMEM;
	for (size_t i = 0; i < nc; i++)
		if ((g->comments[i] = str_id(p, o->comments[i])) < 0)
			return -ENOMEM;
	if (g->vt[0].type < 0 || g->vt[0].unit < 0 || g->vt[1].type < 0 || g->vt[1].unit < 0 ||
	    g->period.type < 0 || g->period.unit < 0)
		return -ENOMEM;
	g->prof.n_sample_type = 2;
	g->prof.sample_type = g->vtp;
	g->prof.period_type = &g->period;
	g->prof.period = o->period;
	g->prof.time_nanos = o->time_ns;
	g->prof.duration_nanos = o->duration_ns;
	g->prof.default_sample_type = g->vt[1].type;
	g->prof.n_comment = nc;
	g->prof.comment = g->comments;
	return 0;
}

/* The string table, last: every string is interned by now; the arena moves no more. */
static int strings_make(struct pp *p, struct msgs *g)
{
	if (!(g->strs = calloc(p->strs.n, sizeof(*g->strs))))
		return -ENOMEM;
	for (size_t i = 0; i < p->strs.n; i++)
		g->strs[i] = (char *)map_key(&p->strs, i);
	g->prof.n_string_table = p->strs.n;
	g->prof.string_table = g->strs;
	return 0;
}

/* buf (n bytes) gzipped into f. */
static int gzip_write(FILE *f, const uint8_t *buf, size_t n, int level)
{
	unsigned char out[65536];
	z_stream z = { 0 };
	int zr;

	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return pb_fail(-EIO, "pb_pprof_write(): zlib's deflateInit2() failed (level %d)",
			       level);
	z.next_in = (unsigned char *)buf;
	do {	/* whole in one pass, by the chunks avail_in (a uInt) takes */
		size_t left = n - (size_t)((const uint8_t *)z.next_in - buf);
		int fl;

		z.avail_in = left > (1u << 30) ? 1u << 30 : (uInt)left;
		fl = left > (1u << 30) ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, fl);
			if (zr == Z_STREAM_ERROR)
				break;
			fwrite(out, 1, sizeof(out) - z.avail_out, f);
		} while (z.avail_out == 0);
	} while (zr == Z_OK);
	deflateEnd(&z);
	if (zr != Z_STREAM_END)
		return pb_fail(-EIO, "pb_pprof_write(): zlib's deflate() failed (%d)", zr);
	return 0;
}

static int input_check(const struct pb_xstack *stacks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pb_xstack *s = &stacks[i];

		if (!isfinite(s->value) || !isfinite(s->samples) || fabs(s->value) > 9e18 ||
		    fabs(s->samples) > 9e18)
			return pb_fail(-EINVAL, "pb_pprof_write(): stacks[%zu]: value %g, samples %g "
				       "(finite, within an int64)", i, s->value, s->samples);
		if (s->n < 0 || (s->n && !s->frames))
			return pb_fail(-EINVAL, "pb_pprof_write(): stacks[%zu] has %d frames at %p",
				       i, s->n, (const void *)s->frames);
		for (int k = 0; k < s->n; k++)
			if (!s->frames[k])
				return pb_fail(-EINVAL, "pb_pprof_write(): stacks[%zu].frames[%d] "
					       "is NULL", i, k);
	}
	return 0;
}

/* The tables: mappings, then each stack's locations (functions and strings on the way). */
static int tables_make(struct pp *p, const struct pb_xstack *stacks, size_t n)
{
	int added, err;

	if (map_get(&p->strs, "", 1, &added) < 0)	/* string_table[0] */
		return -ENOMEM;
	if ((err = maps_collect(p, stacks, n)))
		return err;
	if (!(p->first = malloc((n + 1) * sizeof(*p->first))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		p->first[i] = p->nids;
		if ((err = stack_ids(p, &stacks[i])))
			return err;
	}
	p->first[n] = p->nids;
	return 0;
}

static int pack_write(FILE *f, struct msgs *g, int level)
{
	size_t size = perftools__profiles__profile__get_packed_size(&g->prof);
	uint8_t *buf = malloc(size ? size : 1);
	int err;

	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(&g->prof, buf);
	err = gzip_write(f, buf, size, level);
	free(buf);
	return err;
}

int pb_pprof_write(FILE *f, const struct pb_xstack *stacks, size_t n,
		   const struct pb_pprof_opts *opts)
{
	struct pb_pprof_opts o = opts ? *opts : (struct pb_pprof_opts){ 0 };
	struct pp p = { 0 };
	struct msgs g = { 0 };
	int err;

	if (!f || (n && !stacks))
		return pb_fail(-EINVAL, "pb_pprof_write(): %s is NULL", f ? "stacks" : "f");
	if (o.level < 0 || o.level > 9)
		return pb_fail(-EINVAL, "pb_pprof_write(): opts->level is %d, not 0 to 9", o.level);
	if ((err = input_check(stacks, n)))
		return err;
	perftools__profiles__profile__init(&g.prof);
	if (!(err = tables_make(&p, stacks, n)) && !(err = functions_make(&p, &g)) &&
	    !(err = locations_make(&p, &g)) && !(err = mappings_make(&p, &g)) &&
	    !(err = samples_make(&p, &g, stacks, n)) && !(err = header_make(&p, &g, &o)) &&
	    !(err = strings_make(&p, &g)) && !(err = pack_write(f, &g, o.level ? o.level : 6)))
		err = pb_stream_end(f);
	msgs_free(&g);
	map_free(&p.strs), map_free(&p.funcs), map_free(&p.locs), map_free(&p.maps);
	map_free(&p.fcache);
	free(p.mi), free(p.ids), free(p.first), free(p.key), free(p.fids);
	return err;
}

#endif
