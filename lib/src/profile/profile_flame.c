/* SPDX-License-Identifier: MIT */
/*
 * A flame graph drawn by pbench (issue 36, item 4; item 5's differential one): the stacks
 * merged into a tree, each frame a rectangle whose width is its value's share, its callees
 * above it, the root at the bottom (FlameGraph's layout), read as a picture with no script:
 * names written in the frames wide enough for them, and each frame's full name, DSO, value,
 * share and samples in its <title> (the tooltip a browser shows). Colours are fixed by the
 * name (the same function is the same colour in every graph): warm for the program's code,
 * green for libraries' (a DSO named *.so*), blue for the kernel's, grey for what is not known.
 * In the differential mode the widths are the stacks' (B's) and the colour is the tested
 * change alone: red slower, blue faster, deeper the larger; grey where it is not significant
 * or was not tested. A frame narrower than min_px is not drawn, nor its callees; its value
 * stays in its parent's width. Names are escaped for XML and bytes that are not UTF-8 are
 * replaced, so a C++ template or a raw byte cannot break the file (base's pb_svg_text()
 * escapes but neither checks UTF-8 nor cuts a name at a character count, which this needs).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "profile/export.h"

#define FRAME_H 16		/* a frame's height, with its 1-pixel gap */
#define PAD_X 10.0
#define TOP 58			/* the title, the subtitle and the ruler's space */
#define BOTTOM 42		/* the legend */
#define FONT 12
#define CHAR_W (FONT * 0.59)	/* Verdana's mean advance at 12 px, as FlameGraph counts */
#define KIND_CUT 0x100u		/* the extra root frame of cut stacks */
#define KIND_ROOT 0x200u

struct node {
	const struct pb_xframe *fr;	/* the first frame merged into it: name, DSO, file */
	unsigned kind;
	uint32_t parent, depth, kids, nkids;
	double total, self, samples, change;
	int sig;
};

static const struct pb_xframe root_frame = { .name = "all" };
static const struct pb_xframe cut_frame = { .name = PB_XCUT_NAME };

struct tree {
	struct node *v;
	size_t n, cap;
	uint32_t *hash;		/* node index + 1, 0 empty */
	size_t hcap;
	uint32_t *kidv;
};

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static const char *dso_path(const struct pb_xdso *d)
{
	return d ? d->path : NULL;
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static uint64_t key_hash(uint32_t parent, const char *name, const char *dso, unsigned kind)
{
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);

	h = fnv(h ^ (name ? 1 : 2), name);
	h = fnv(h ^ 0xff, dso);
	return (h ^ kind) * 0x9e3779b97f4a7c15ull;
}

static int tree_grow_hash(struct tree *t)
{
	size_t cap = t->hcap ? t->hcap * 2 : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 1; i < t->n; i++) {	/* the root is in no table */
		const struct node *nd = &t->v[i];
		size_t j = key_hash(nd->parent, nd->fr->name, dso_path(nd->fr->dso), nd->kind) &
			   (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

/* The child of parent with this name, DSO and kind: found, or made. Its index, or -ENOMEM. */
static long tree_child(struct tree *t, uint32_t parent, const struct pb_xframe *fr,
		       unsigned kind)
{
	const char *name = fr->name;
	const struct pb_xdso *dso = fr->dso;
	size_t j;

	if ((t->n + 1) * 2 > t->hcap && tree_grow_hash(t))
		return -ENOMEM;
	j = key_hash(parent, name, dso_path(dso), kind) & (t->hcap - 1);
	for (; t->hash[j]; j = (j + 1) & (t->hcap - 1)) {
		struct node *nd = &t->v[t->hash[j] - 1];

		if (nd->parent == parent && nd->kind == kind && str_eq(nd->fr->name, name) &&
		    str_eq(dso_path(nd->fr->dso), dso_path(dso)))
			return (long)(t->hash[j] - 1);
	}
	if (t->n >= UINT32_MAX - 1)
		return pb_fail(-ENOMEM, "pb_flame_write_svg(): more than %u frames", UINT32_MAX - 2);
	if (t->n == t->cap) {
		size_t cap = t->cap * 2;
		struct node *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct node){ .fr = fr, .kind = kind, .parent = parent,
				    .depth = t->v[parent].depth + 1, .change = NAN };
	t->hash[j] = (uint32_t)t->n + 1;
	return (long)t->n++;
}

static int stack_check(const struct pb_xstack *s, size_t i)
{
	if (!isfinite(s->value) || s->value < 0)
		return pb_fail(-EINVAL, "pb_flame_write_svg(): stacks[%zu].value is %g, not a "
			       "value of 0 or more", i, s->value);
	if (s->n < 0 || (s->n > 0 && !s->frames))
		return pb_fail(-EINVAL, "pb_flame_write_svg(): stacks[%zu] has %d frames at %p",
			       i, s->n, (const void *)s->frames);
	for (int k = 0; k < s->n; k++)
		if (!s->frames[k])
			return pb_fail(-EINVAL, "pb_flame_write_svg(): stacks[%zu].frames[%d] is "
				       "NULL", i, k);
	return 0;
}

/* One stack into the tree: its value added along its path, its leaf's self time. */
static int tree_add(struct tree *t, const struct pb_xstack *s)
{
	uint32_t at = 0;
	long c;

	t->v[0].total += s->value;
	t->v[0].samples += s->samples;
	if (s->n > 0 && (s->frames[0]->flags & PB_XF_CUT)) {
		if ((c = tree_child(t, at, &cut_frame, KIND_CUT)) < 0)
			return (int)c;
		at = (uint32_t)c;
		t->v[at].total += s->value;
		t->v[at].samples += s->samples;
	}
	for (int k = 0; k < s->n; k++) {
		const struct pb_xframe *fr = s->frames[k];
		struct node *nd;

		c = tree_child(t, at, fr, fr->flags & (PB_XF_INLINED | PB_XF_KERNEL));
		if (c < 0)
			return (int)c;
		at = (uint32_t)c;
		nd = &t->v[at];
		nd->total += s->value;
		nd->samples += s->samples;
		if (isfinite(fr->change)) {
			nd->change = fr->change;
			nd->sig = fr->significant;
		}
	}
	t->v[at].self += s->value;
	if (at && s->n > 0 && isnan(t->v[at].change) && isfinite(s->change)) {
		t->v[at].change = s->change;
		t->v[at].sig = s->significant;
	}
	return 0;
}

static int kid_cmp(const void *a, const void *b, void *arg)
{
	const struct node *v = arg, *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];
	int c;

	if ((x->kind & KIND_CUT) != (y->kind & KIND_CUT))
		return x->kind & KIND_CUT ? 1 : -1;
	c = strcmp(x->fr->name ? x->fr->name : "", y->fr->name ? y->fr->name : "");
	if (!c)
		c = strcmp(dso_path(x->fr->dso) ? dso_path(x->fr->dso) : "",
			   dso_path(y->fr->dso) ? dso_path(y->fr->dso) : "");
	return c ? c : (int)x->kind - (int)y->kind;
}

/* Each node's children, sorted by name (FlameGraph's order: a picture that does not move). */
static int tree_kids(struct tree *t)
{
	uint32_t *fill;

	t->kidv = malloc((t->n ? t->n : 1) * sizeof(*t->kidv));
	fill = calloc(t->n, sizeof(*fill));
	if (!t->kidv || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 1; i < t->n; i++)
		t->v[t->v[i].parent].nkids++;
	for (size_t i = 0, off = 0; i < t->n; i++) {
		t->v[i].kids = (uint32_t)off;
		off += t->v[i].nkids;
	}
	for (size_t i = 1; i < t->n; i++) {
		struct node *p = &t->v[t->v[i].parent];

		t->kidv[p->kids + fill[t->v[i].parent]++] = (uint32_t)i;
	}
	free(fill);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].nkids > 1)
			qsort_r(t->kidv + t->v[i].kids, t->v[i].nkids, sizeof(uint32_t), kid_cmp, t->v);
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->v);
	free(t->hash);
	free(t->kidv);
}

static int tree_build(struct tree *t, const struct pb_xstack *stacks, size_t n)
{
	int err;

	*t = (struct tree){ 0 };
	t->cap = 1024;
	if (!(t->v = malloc(t->cap * sizeof(*t->v))))
		return -ENOMEM;
	t->v[0] = (struct node){ .fr = &root_frame, .kind = KIND_ROOT, .change = NAN };
	t->n = 1;
	for (size_t i = 0; i < n; i++)
		if ((err = stack_check(&stacks[i], i)))
			return err;
	for (size_t i = 0; i < n; i++)
		if ((err = tree_add(t, &stacks[i])))
			return err;
	return tree_kids(t);
}

/* ---- the picture ---- */

struct draw {
	FILE *f;
	const struct pb_flame_opts *o;
	const struct tree *t;
	double scale;		/* pixels a unit of value */
	double full;		/* the root's width */
	unsigned maxdepth;
	size_t drawn, hidden;
};

/* s as XML text, at most max characters (then ".."), escaped; a byte that does not start a
 * valid character is U+FFFD. */
static void xml_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0;

	for (; *p; chars++) {
		int n = pb_utf8_len(p, 1);

		if (chars == max) {
			fputs("..", f);
			return;
		}
		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else if (n)
			fwrite(p, 1, (size_t)n, f);
		else
			fputs("\xef\xbf\xbd", f);
		p += n ? n : 1;
	}
}

static size_t utf8_chars(const char *s)
{
	size_t c = 0;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; c++) {
		int n = pb_utf8_len(p, 1);

		p += n ? n : 1;
	}
	return c;
}

static const char *shown_name(const struct node *nd)
{
	return nd->fr->name ? nd->fr->name : "[unknown]";
}

static int is_library(const struct pb_xdso *d)
{
	const char *base = d && d->path ? strrchr(d->path, '/') : NULL;

	base = base ? base + 1 : d && d->path ? d->path : "";
	return strstr(base, ".so") != NULL || !strncmp(base, "[vdso", 5);
}

/* Colour by kind, varied by the name's hash so neighbours differ and a name keeps its colour. */
static void colour_kind(const struct node *nd, char *buf, size_t len)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, nd->fr->name);
	double v1 = (double)(h & 0xff) / 255, v2 = (double)((h >> 8) & 0xff) / 255;
	int r, g, b;

	if (nd->kind & (KIND_ROOT | KIND_CUT) || !nd->fr->name) {
		r = g = b = 200 + (int)(20 * v1);
	} else if (nd->kind & PB_XF_KERNEL) {		/* blue */
		r = 80 + (int)(60 * v1), g = 140 + (int)(60 * v2), b = 230;
	} else if (is_library(nd->fr->dso)) {		/* green */
		r = 90 + (int)(70 * v1), g = 195 + (int)(40 * v2), b = 80 + (int)(40 * v1);
	} else {					/* warm: FlameGraph's "hot" */
		r = 205 + (int)(50 * v2), g = (int)(230 * v1), b = (int)(55 * v2);
	}
	if (nd->kind & PB_XF_INLINED) {			/* lighter: code inlined into its caller */
		r += (255 - r) / 3, g += (255 - g) / 3, b += (255 - b) / 3;
	}
	snprintf(buf, len, "#%02x%02x%02x", r, g, b);
}

#define DIFF_GREY "#d0d0d0"

/* The differential colour: red (B slower) or blue (B faster), deeper as the change grows to
 * 2x, from a quarter of the way so a small significant change is still seen; grey otherwise. */
static void colour_change(const struct node *nd, char *buf, size_t len)
{
	double t;
	int c;

	if (!nd->sig || !isfinite(nd->change) || nd->change <= 0 || nd->change == 1) {
		snprintf(buf, len, DIFF_GREY);
		return;
	}
	t = fmin(1, 0.25 + 0.75 * fabs(log(nd->change)) / log(2));
	c = (int)lround(230 * (1 - t));
	if (nd->change > 1)
		snprintf(buf, len, "#ff%02x%02x", c, c);
	else
		snprintf(buf, len, "#%02x%02xff", c, c);
}

static void put_value(FILE *f, const struct draw *d, double v)
{
	char buf[64], pct[32];
	double all = d->t->v[0].total;

	fputs(pb_format_figure(buf, sizeof(buf), v, d->o->unit ? d->o->unit : "ns"), f);
	if (all > 0)
		fprintf(f, " (%s)", pb_format_pct(pct, sizeof(pct), 100 * v / all, -1));
}

static void put_change(FILE *f, const struct node *nd)
{
	char buf[32];

	if (!isfinite(nd->change) || nd->change <= 0) {
		fputs("\nchange: not tested", f);
		return;
	}
	fprintf(f, "\nchange: B/A %.4g, %s %s, %s", nd->change,
		pb_format_factor(buf, sizeof(buf), nd->change >= 1 ? nd->change : 1 / nd->change),
		nd->change >= 1 ? "slower" : "faster",
		nd->sig ? "significant" : "not significant");
}

/* The tooltip: the full name, where it is, its value and share, its own part, its samples. */
static void put_title(FILE *f, const struct draw *d, const struct node *nd)
{
	char buf[64];

	fputs("<title>", f);
	xml_text(f, shown_name(nd), SIZE_MAX);
	if (nd->kind & KIND_CUT)
		fputs("\nthe callers of these stacks are not known: the chain was cut short", f);
	if (nd->kind & PB_XF_INLINED)
		fputs(" (inlined)", f);
	if (nd->kind & PB_XF_KERNEL)
		fputs(" [kernel]", f);
	if (nd->fr->dso && nd->fr->dso->path) {
		fputs("\nin ", f);
		xml_text(f, nd->fr->dso->path, SIZE_MAX);
	}
	if (nd->fr->file) {
		fputc('\n', f);
		xml_text(f, nd->fr->file, SIZE_MAX);
		if (nd->fr->line)
			fprintf(f, ":%u", nd->fr->line);
	}
	fputc('\n', f);
	put_value(f, d, nd->total);
	if (nd->self > 0 && nd->nkids) {
		fputs(", self ", f);
		put_value(f, d, nd->self);
	}
	pb_format_count(buf, sizeof(buf), nd->samples);
	fprintf(f, "\n%s samples", buf);
	if (d->o->differential)
		put_change(f, nd);
	fputs("</title>", f);
}

static void draw_node(struct draw *d, const struct node *nd, double x, double w)
{
	FILE *f = d->f;
	double y = TOP + (double)(d->maxdepth - nd->depth) * FRAME_H;
	size_t fit = w > 6 ? (size_t)((w - 6) / CHAR_W) : 0;
	char fill[16];

	if (d->o->differential)
		colour_change(nd, fill, sizeof(fill));
	else
		colour_kind(nd, fill, sizeof(fill));
	fputs("<g>", f);
	put_title(f, d, nd);
	fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/>", PAD_X + x, y, w, FRAME_H - 1, fill);
	if (fit >= 3) {
		size_t len = utf8_chars(shown_name(nd));

		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", PAD_X + x + 3, y + FRAME_H - 4.5);
		xml_text(f, shown_name(nd), len <= fit ? len : fit - 2);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
	d->drawn++;
}

/* Every node wide enough, depth first (an explicit stack: a chain may be thousands deep):
 * draw (f non-NULL) or only find the deepest drawn. */
static int walk(struct draw *d, int paint)
{
	const struct tree *t = d->t;
	struct item { uint32_t i; double x; } *st = malloc(64 * sizeof(*st));
	size_t top = 0, cap = 64;

	if (!st)
		return -ENOMEM;
	st[top++] = (struct item){ 0, 0 };
	while (top) {
		struct item it = st[--top];
		const struct node *nd = &t->v[it.i];
		double w = it.i ? nd->total * d->scale : d->full, x = it.x;

		if (!paint && nd->depth > d->maxdepth)
			d->maxdepth = nd->depth;
		if (paint)
			draw_node(d, nd, it.x, w);
		if (top + nd->nkids > cap) {	/* at most the children along one path */
			struct item *v = realloc(st, (cap = 2 * (top + nd->nkids)) * sizeof(*st));

			if (!v) {
				free(st);
				return -ENOMEM;
			}
			st = v;
		}
		for (uint32_t k = 0; k < nd->nkids; k++) {
			const struct node *c = &t->v[t->kidv[nd->kids + k]];
			double cw = c->total * d->scale;

			if (cw >= d->o->min_px)
				st[top++] = (struct item){ t->kidv[nd->kids + k], x };
			else if (paint)
				d->hidden++;
			x += cw;
		}
	}
	free(st);
	return 0;
}

static void put_head(struct draw *d, int width, int height)
{
	FILE *f = d->f;
	const char *title = d->o->title ? d->o->title : "Flame graph";

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, height, width, height);
	fputs("<title>", f);
	xml_text(f, title, SIZE_MAX);
	fputs("</title>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n",
		width, height);
	fprintf(f, "<g font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"%d\" "
		"fill=\"#000000\">\n", FONT);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"17\" text-anchor=\"middle\">",
		width / 2);
	xml_text(f, title, SIZE_MAX);
	fputs("</text>\n", f);
	if (d->o->subtitle) {
		fprintf(f, "<text x=\"%d\" y=\"42\" fill=\"#555555\" text-anchor=\"middle\">",
			width / 2);
		xml_text(f, d->o->subtitle, SIZE_MAX);
		fputs("</text>\n", f);
	}
}

static void legend_box(FILE *f, double x, int y, const char *fill, const char *what)
{
	fprintf(f, "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%.0f\" y=\"%d\">%s</text>\n", x, y, fill, x + 16, y + 10, what);
}

static void put_legend(struct draw *d, int width, int height)
{
	FILE *f = d->f;
	int y = height - BOTTOM + 14;
	char buf[160];

	if (d->o->differential) {
		legend_box(f, PAD_X, y, "#ff5050", "B slower (significant)");
		legend_box(f, PAD_X + 190, y, "#5050ff", "B faster (significant)");
		legend_box(f, PAD_X + 380, y, DIFF_GREY, "not significant, or not tested");
		fprintf(f, "<text x=\"%.0f\" y=\"%d\" fill=\"#555555\">widths: B's; colour: the "
			"tested change of the frame's own time, deeper the larger (2x and "
			"more)</text>\n", PAD_X, y + 26);
	} else {
		legend_box(f, PAD_X, y, "#e8783a", "program");
		legend_box(f, PAD_X + 110, y, "#7ad27a", "libraries");
		legend_box(f, PAD_X + 220, y, "#6eaae6", "kernel");
		legend_box(f, PAD_X + 330, y, "#d2d2d2", "not known, cut short");
		fprintf(f, "<text x=\"%.0f\" y=\"%d\" fill=\"#555555\">widths: each frame's share "
			"of the total, its callees above it; hover a frame for its name and "
			"figures</text>\n", PAD_X, y + 26);
	}
	if (d->hidden) {
		snprintf(buf, sizeof(buf), "%zu frames narrower than %.2g px not drawn, nor "
			 "their callees (in their callers' widths)", d->hidden, d->o->min_px);
		fprintf(f, "<text x=\"%.0f\" y=\"%d\" fill=\"#555555\" text-anchor=\"end\">%s"
			"</text>\n", width - PAD_X, y + 10, buf);
	}
}

int pb_flame_write_svg(FILE *f, const struct pb_xstack *stacks, size_t n,
		       const struct pb_flame_opts *opts)
{
	struct pb_flame_opts o = opts ? *opts : (struct pb_flame_opts){ 0 };
	struct draw d = { .f = f, .o = &o };
	struct tree t;
	int width, height, err;

	if (!f || (n && !stacks))
		return pb_fail(-EINVAL, "pb_flame_write_svg(): %s is NULL", f ? "stacks" : "f");
	if (o.width <= 0)
		o.width = 1200;
	if (o.width < 200 || !isfinite(o.min_px) || o.min_px < 0)
		return pb_fail(-EINVAL, "pb_flame_write_svg(): opts->width %d (200 or more) or "
			       "min_px %g (0 or more)", o.width, o.min_px);
	if (o.min_px == 0)
		o.min_px = 0.5;
	width = o.width;
	if ((err = tree_build(&t, stacks, n))) {
		tree_free(&t);
		return err;
	}
	d.t = &t;
	d.full = width - 2 * PAD_X;
	d.scale = t.v[0].total > 0 ? d.full / t.v[0].total : 0;	/* 0: the root alone */
	if ((err = walk(&d, 0)))
		goto out;
	height = TOP + (int)(d.maxdepth + 1) * FRAME_H + BOTTOM;
	put_head(&d, width, height);
	if ((err = walk(&d, 1)))
		goto out;
	put_legend(&d, width, height);
	fputs("</g>\n</svg>\n", f);
	err = pb_stream_end(f);
out:
	tree_free(&t);
	return err;
}
