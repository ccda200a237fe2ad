// SPDX-License-Identifier: MIT
/*
 * A stack table as the exporters' input (lib/src/stacks/stacks_export.c, issue 36; internal,
 * so whitebox): a table of two runs made by hand (pb_stacks_put()) converted to pb_xstack:
 * the mean run's values (the sum on request), one frame a symbol and kind shared by the
 * stacks, inline frames flagged, the cut stack's root flagged, the kernel's frames flagged, an
 * unknown frame's name NULL with its DSO, one DSO a path, the comm as root on request, the
 * differential marks on the frames and the leaf's stacks, stacks only in trimmed runs left
 * out; and both exporters take the result (the SVG names alpha, pprof's file is gzip).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "testutil.h"
#include "profile/export.h"
#include "stacks/stacks.h"

static struct pb_stacks *t;

static const char *const prog = "/usr/bin/prog", *const libc = "/lib/libc.so.6";

/* main;alpha 600 (run 0) + 400 (run 1); main;alpha;helper(inlined) 100 + 100;
 * main;beta;memcpy 200 + 0; main;beta;[unknown] in libc 0 + 100; a kernel leaf under beta
 * 50 + 50; a cut stack worker 100 + 100. */
static void make(int nruns)
{
	const char *a[] = { "main", "alpha", "helper" }, *da[] = { prog, prog, prog };
	const char *b[] = { "main", "beta", "memcpy" }, *db[] = { prog, prog, libc };
	const char *u[] = { "main", "beta", NULL }, *k[] = { "main", "beta", "do_syscall_64" };
	const char *dk[] = { prog, prog, "[kernel.kallsyms]" };
	const char *w[] = { "worker" }, *dw[] = { prog };
	const unsigned char inl[] = { 0, 0, PB_STACKS_INLINED }, kern[] = { 0, 0, PB_STACKS_KERNEL };

	cr_assert_eq(pb_stacks_new(&t, nruns, NULL), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pb_stacks_put(t, 0, "prog", a, da, NULL, 2, 0, 600, 6), 0);
	cr_assert_eq(pb_stacks_put(t, 1, "prog", a, da, NULL, 2, 0, 400, 4), 0);
	cr_assert_eq(pb_stacks_put(t, 0, "prog", a, da, inl, 3, 0, 100, 1), 0);
	cr_assert_eq(pb_stacks_put(t, 1, "prog", a, da, inl, 3, 0, 100, 1), 0);
	cr_assert_eq(pb_stacks_put(t, 0, "prog", b, db, NULL, 3, 0, 200, 2), 0);
	cr_assert_eq(pb_stacks_put(t, 1, "prog", u, db, NULL, 3, 0, 100, 1), 0);
	cr_assert_eq(pb_stacks_put(t, 0, "prog", k, dk, kern, 3, 0, 50, 1), 0);
	cr_assert_eq(pb_stacks_put(t, 1, "prog", k, dk, kern, 3, 0, 50, 1), 0);
	cr_assert_eq(pb_stacks_put(t, 0, "prog", w, dw, NULL, 1, 1, 100, 1), 0);
	cr_assert_eq(pb_stacks_put(t, 1, "prog", w, dw, NULL, 1, 0, 100, 1), 0);
	if (nruns > 2)	/* a stack only in a run trimmed away */
		cr_assert_eq(pb_stacks_put(t, 2, "prog", b, db, NULL, 2, 0, 999, 9), 0);
}

/* The stack whose leaf is named leaf (NULL: the unknown), with n frames. */
static const struct pb_xstack *find(const struct pb_stacks_x *x, const char *leaf, int n)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct pb_xstack *s = &x->stacks[i];
		const char *name = s->frames[s->n - 1]->name;

		if (s->n == n && (leaf ? name && !strcmp(name, leaf) : !name))
			return s;
	}
	return NULL;
}

Test(stacks_export, put_refused)
{
	const char *a[] = { "main" };

	cr_assert_eq(pb_stacks_new(&t, 2, NULL), 0);
	cr_expect_eq(pb_stacks_put(t, 2, "p", a, NULL, NULL, 1, 0, 1, 1), -ERANGE);
	cr_expect_eq(pb_stacks_put(t, -1, "p", a, NULL, NULL, 1, 0, 1, 1), -ERANGE);
	cr_expect_eq(pb_stacks_put(t, 0, "p", a, NULL, NULL, 0, 0, 1, 1), -EINVAL);
	pb_stacks_free(t);
}

Test(stacks_export, mean_run)
{
	struct pb_stacks_x x;
	const struct pb_xstack *s;

	make(3);
	pb_stacks_trim(t, 2);
	cr_assert_eq(pb_stacks_to_x(t, PB_STACKS_X_MEAN, NULL, &x), 0);
	cr_expect_eq(x.n, 6, "%zu stacks (the trimmed run's left out)", x.n);
	/* the mean run: (600+400 + 200 + 200 + 100 + 100 + 200) / 2 */
	cr_expect(fabs(x.total - 900) < 1e-9, "total %g", x.total);
	s = find(&x, "alpha", 2);
	cr_assert_not_null(s);
	cr_expect(fabs(s->value - 500) < 1e-9 && fabs(s->samples - 5) < 1e-9, "%g %g", s->value,
		  s->samples);
	cr_expect_eq(s->frames[0]->flags, 0);
	cr_expect_str_eq(s->frames[0]->dso->path, prog);
	cr_expect(isnan(s->change));
	/* shared frames: main and alpha of the inlined stack are the same objects */
	const struct pb_xstack *h = find(&x, "helper", 3);
	cr_assert_not_null(h);
	cr_expect_eq(h->frames[0], s->frames[0]);
	cr_expect_eq(h->frames[1], s->frames[1]);
	cr_expect_eq(h->frames[2]->flags, PB_XF_INLINED);
	cr_expect(fabs(h->value - 100) < 1e-9);
	/* memcpy in libc, one DSO object per path */
	const struct pb_xstack *m = find(&x, "memcpy", 3);
	const struct pb_xstack *u = find(&x, NULL, 3);
	cr_assert(m && u);
	cr_expect_str_eq(m->frames[2]->dso->path, libc);
	cr_expect_eq(m->frames[2]->dso, u->frames[2]->dso);
	cr_expect_eq(m->frames[1], u->frames[1]);
	cr_expect(fabs(m->value - 100) < 1e-9 && fabs(u->value - 50) < 1e-9);
	const struct pb_xstack *k = find(&x, "do_syscall_64", 3);
	cr_assert_not_null(k);
	cr_expect_eq(k->frames[2]->flags, PB_XF_KERNEL);
	cr_expect_str_eq(k->frames[2]->dso->path, "[kernel.kallsyms]");
	cr_expect_eq(x.ndsos, 3);
	pb_stacks_x_free(&x);
	pb_stacks_free(t);
}

Test(stacks_export, sum_comm_marks)
{
	struct pb_stacks_x x;
	struct pb_stacks_xmark *mk;
	const struct pb_xstack *s;
	struct pb_stack_sym y;

	make(2);
	mk = calloc(pb_stacks_nr_syms(t), sizeof(*mk));
	cr_assert_not_null(mk);
	for (uint32_t i = 0; i < pb_stacks_nr_syms(t); i++) {
		pb_stacks_sym(t, i, &y);
		mk[i].change = strcmp(y.name, "beta") ? NAN : 1.33;
		mk[i].significant = !strcmp(y.name, "beta");
		if (!strcmp(y.name, "memcpy"))
			mk[i] = (struct pb_stacks_xmark){ 0.9, 0 };
	}
	cr_assert_eq(pb_stacks_to_x(t, PB_STACKS_X_SUM | PB_STACKS_X_COMM, mk, &x), 0);
	cr_expect(fabs(x.total - 1800) < 1e-9, "total %g", x.total);
	s = find(&x, "memcpy", 4);
	cr_assert_not_null(s);
	cr_expect_str_eq(s->frames[0]->name, "prog");
	cr_expect_null(s->frames[0]->dso);
	cr_expect(fabs(s->value - 200) < 1e-9);
	cr_expect(fabs(s->frames[2]->change - 1.33) < 1e-9 && s->frames[2]->significant);
	cr_expect(fabs(s->change - 0.9) < 1e-9 && !s->significant);
	s = find(&x, "worker", 2);
	cr_assert_not_null(s);
	cr_expect_eq(s->frames[0]->flags, PB_XF_CUT, "the cut stack's root (its comm) is flagged");
	cr_expect_eq(s->frames[1]->flags, 0);
	cr_expect_neq(s->frames[0], find(&x, "alpha", 3)->frames[0]);
	pb_stacks_x_free(&x);
	free(mk);
	pb_stacks_free(t);
}

Test(stacks_export, cut_root)
{
	struct pb_stacks_x x;
	const struct pb_xstack *s;

	make(2);
	cr_assert_eq(pb_stacks_to_x(t, 0, NULL, &x), 0);
	s = find(&x, "worker", 1);
	cr_assert_not_null(s);
	cr_expect_eq(s->frames[0]->flags, PB_XF_CUT, "the cut stack's root is flagged");
	pb_stacks_x_free(&x);
	pb_stacks_free(t);
}

Test(stacks_export, exporters_take_it)
{
	struct pb_stacks_x x;
	struct pb_flame_opts fo = { .title = "t" };
	struct pb_pprof_opts po = { .period = 250000 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	make(2);
	cr_assert_eq(pb_stacks_to_x(t, 0, NULL, &x), 0);
	f = open_memstream(&buf, &len);
	cr_assert_eq(pb_flame_write_svg(f, x.stacks, x.n, &fo), 0, "%s", pbench_strerror(-1));
	fclose(f);
	cr_expect(strstr(buf, ">alpha") || strstr(buf, "alpha ("), "no alpha in the SVG");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	err = pb_pprof_write(f, x.stacks, x.n, &po);
	fclose(f);
	if (err != -ENOTSUP) {
		cr_expect_eq(err, 0, "%s", pbench_strerror(err));
		cr_expect(len > 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b);
	}
	free(buf);
	pb_stacks_x_free(&x);
	pb_stacks_free(t);
}
