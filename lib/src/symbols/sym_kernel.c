/* SPDX-License-Identifier: MIT */
/*
 * The kernel's symbols from /proc/kallsyms, for the kernel addresses of a profile's samples:
 * its text symbols (t, T, w, W) sorted by address, each with its module ("[ext4]") or none.
 * Read once, when the first kernel address is looked up (it takes tens of ms: the kernel makes
 * the file as it is read). With kptr_restrict hiding them every address reads 0: that is said
 * (hidden), never taken for symbols at address 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "symbols/symbols_inner.h"

struct ktext {
	char *p;
	size_t len, cap;
};

/* s into t (with its NUL), its offset into *off. */
static int text_add(struct ktext *t, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1 << 20;
		char *p;

		while (cap < t->len + n)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(t->p, cap)))
			return -ENOMEM;
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	*off = (uint32_t)t->len;
	t->len += n;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct pb_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line "ADDR TYPE NAME [MODULE]" into k (text symbols only). 1 taken, 0 skipped. */
static int ksym_line(struct pb_ksyms *k, struct ktext *t, size_t *cap, char *line)
{
	char type, name[512], mod[128] = "";
	uint64_t addr;
	uint32_t mod_off = 0;
	struct pb_ksym *e;

	if (sscanf(line, "%" SCNx64 " %c %511s [%127[^]]", &addr, &type, name, mod) < 3)
		return 0;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	if (k->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;

		if (!(e = realloc(k->sym, ncap * sizeof(*e))))
			return -ENOMEM;
		k->sym = e;
		*cap = ncap;
	}
	e = &k->sym[k->n];
	e->addr = addr;
	if (text_add(t, name, &e->name) || (mod[0] && text_add(t, mod, &mod_off)))
		return -ENOMEM;
	e->mod = mod_off;
	k->n++;
	return 1;
}

int pb_ksyms_read(struct pb_ksyms *k)
{
	struct ktext t = { 0 };
	size_t cap = 0, len = 0, nonzero = 0;
	char *line = NULL;
	uint32_t empty;
	int err = 0;
	FILE *f = pb_fopen("/proc/kallsyms");

	memset(k, 0, sizeof(*k));
	if (!f)
		return pb_fail(-errno, "/proc/kallsyms: %s", strerror(errno));
	if (text_add(&t, "", &empty))
		err = -ENOMEM;
	while (!err && getline(&line, &len, f) > 0) {
		int r = ksym_line(k, &t, &cap, line);

		if (r < 0)
			err = r;
		else if (r && k->sym[k->n - 1].addr)
			nonzero++;
	}
	free(line);
	fclose(f);
	k->text = t.p;
	if (err) {
		pb_ksyms_release(k);
		return err;
	}
	k->hidden = k->n > 0 && nonzero == 0;
	qsort(k->sym, k->n, sizeof(*k->sym), ksym_cmp);
	return 0;
}

long pb_ksyms_find(const struct pb_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (k->hidden || !k->n || addr < k->sym[0].addr)
		return -1;
	while (hi - lo > 1) {	/* sym[lo].addr <= addr, and addr < sym[hi].addr if hi < n */
		size_t mid = lo + (hi - lo) / 2;

		if (k->sym[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

void pb_ksyms_release(struct pb_ksyms *k)
{
	free(k->sym);
	free(k->text);
	memset(k, 0, sizeof(*k));
}
