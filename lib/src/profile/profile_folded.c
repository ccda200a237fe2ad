/* SPDX-License-Identifier: MIT */
/*
 * A profile as folded stacks, the text FlameGraph's stackcollapse scripts make and
 * flamegraph.pl, inferno and speedscope read: a line a distinct stack, its frames from the
 * root to the leaf joined by ';', a space and its count. Each sample's line is made (its
 * frames named by the caller's symbolizer, or raw addresses), the lines sorted, and equal
 * ones summed. A name's ';' or newline would break the format: they become ':' and ' '.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "profile/profile.h"

struct line {
	char *s;
	uint64_t w;
};

struct text {
	char *v;
	size_t n, cap;
};

static int text_add(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->n + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		char *v;

		while (cap < t->n + n + 1)
			cap *= 2;
		v = realloc(t->v, cap);
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	memcpy(t->v + t->n, s, n + 1);
	t->n += n;
	return 0;
}

/* One frame's name into buf: the symbolizer's, with the format's separators replaced, or
 * the raw address. */
static void frame_name(const struct pb_profile *p, const struct pb_profile_sample *s,
		       unsigned j, pb_profile_sym_fn sym, void *arg, char *buf, size_t len)
{
	int kernel = j < s->nkernel, is_return = j != 0 && j != s->nkernel;

	if (sym && sym(arg, p, s->pid, s->time_ns, s->ips[j], kernel, is_return, buf, len) > 0) {
		buf[len - 1] = '\0';
		for (char *c = buf; *c; c++)
			*c = *c == ';' ? ':' : *c == '\n' || *c == '\r' ? ' ' : *c;
		return;
	}
	snprintf(buf, len, "0x%" PRIx64 "%s", s->ips[j], kernel ? "_[k]" : "");
}

/* Sample i's line, root first, into *out (malloc'ed). */
static int sample_line(const struct pb_profile *p, size_t i, unsigned flags,
		       pb_profile_sym_fn sym, void *arg, char **out)
{
	struct pb_profile_sample s;
	struct text t = { 0 };
	char name[512];
	int err = 0;

	pb_profile_sample_at(p, i, &s);
	if (flags & PB_FOLDED_COMM) {
		const char *comm = pb_profile_comm(p, s.pid);

		if (comm)
			snprintf(name, sizeof(name), "%s", comm);
		else
			snprintf(name, sizeof(name), "[pid %" PRIu32 "]", s.pid);
		for (char *c = name; *c; c++)
			*c = *c == ';' ? ':' : *c == ' ' ? '_' : *c;
		err = text_add(&t, name);
	}
	for (unsigned j = s.nips; !err && j-- > 0;) {
		frame_name(p, &s, j, sym, arg, name, sizeof(name));
		if (t.n)
			err = text_add(&t, ";");
		if (!err)
			err = text_add(&t, name);
	}
	if (!err && !t.n)
		err = text_add(&t, "[no frames]");
	if (err) {
		free(t.v);
		return err;
	}
	*out = t.v;
	return 0;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

static void lines_free(struct line *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i].s);
	free(l);
}

int pb_profile_write_folded(const struct pb_profile *p, FILE *f, unsigned flags,
			    pb_profile_sym_fn sym, void *arg)
{
	size_t n = pb_profile_nr(p);
	struct line *l = calloc(n ? n : 1, sizeof(*l));
	struct pb_profile_sample s;
	int err = l ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !err; i++) {
		pb_profile_sample_at(p, i, &s);
		l[i].w = flags & PB_FOLDED_PERIOD ? s.period : 1;
		err = sample_line(p, i, flags, sym, arg, &l[i].s);
	}
	if (err) {
		lines_free(l, n);
		return err;
	}
	qsort(l, n, sizeof(*l), by_text);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		uint64_t w = l[i].w;

		for (; j < n && !strcmp(l[j].s, l[i].s); j++)
			w += l[j].w;
		fprintf(f, "%s %" PRIu64 "\n", l[i].s, w);
		i = j;
	}
	lines_free(l, n);
	return pb_stream_end(f);
}
