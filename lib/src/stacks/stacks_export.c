// SPDX-License-Identifier: MIT
/*
 * A stack table as the exporters' input (issue 36, item 4, and item 5's differential graph):
 * profile/export.h's pb_xstack, pb_xframe and pb_xdso over the table's stacks, symbols and
 * DSOs, for pb_flame_write_svg() and pb_pprof_write(). A frame is one per symbol and kind
 * (called, inlined into its caller, the root of a stack cut short), shared by every stack that
 * holds it, as export.h asks. A stack's value is the mean run's by default: a set's flame
 * graph is where the time of its mean run went, in the unit of a run's figures (ns of
 * cpu-clock), its widths the shares of pbench's table; the sum over the runs on request.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/export.h"
#include "stacks/stacks.h"

#define KIND_INLINED 1
#define KIND_CUT 2

/* The DSO of a path, added when new (pointers compare: the table's strings are pooled). */
static const struct pb_xdso *dso_of(struct pb_stacks_x *x, const char *path, size_t cap)
{
	for (size_t i = 0; i < x->ndsos; i++)
		if (x->dsos[i].path == path)
			return &x->dsos[i];
	if (x->ndsos == cap)
		return NULL;
	x->dsos[x->ndsos] = (struct pb_xdso){ .path = path };
	return &x->dsos[x->ndsos++];
}

/* The frame of symbol y as kind, made at its first use. */
static const struct pb_xframe *frame_of(const struct pb_stacks *t, struct pb_stacks_x *x,
					unsigned char *made, uint32_t y, int kind,
					const struct pb_stacks_xmark *marks, size_t ns)
{
	struct pb_xframe *fr = &x->frames[(size_t)y * 4 + kind];
	struct pb_stack_sym s;

	if (made[(size_t)y * 4 + kind])
		return fr;
	if (pb_stacks_sym(t, y, &s))
		return NULL;
	*fr = (struct pb_xframe){ .name = s.unknown ? NULL : s.name,
				  .dso = dso_of(x, s.dso, ns), .file = s.file, .line = s.line,
				  .flags = (kind & KIND_INLINED ? PB_XF_INLINED : 0) |
					   (kind & KIND_CUT ? PB_XF_CUT : 0) |
					   (s.kernel ? PB_XF_KERNEL : 0),
				  .change = marks ? marks[y].change : NAN,
				  .significant = marks ? marks[y].significant : 0 };
	made[(size_t)y * 4 + kind] = 1;
	return fr;
}

/* A frame for a process's name (comm), the root of its stacks: one per name and cut flag,
 * after the symbols' frames in x->frames. */
static const struct pb_xframe *comm_of(struct pb_stacks_x *x, size_t base, size_t *ncomm,
				       size_t cap, const char *comm, int cut)
{
	unsigned fl = cut ? PB_XF_CUT : 0;

	for (size_t i = 0; i < *ncomm; i++)
		if (x->frames[base + i].name == comm && x->frames[base + i].flags == fl)
			return &x->frames[base + i];
	if (*ncomm == cap)
		return NULL;
	x->frames[base + *ncomm] = (struct pb_xframe){ .name = comm, .flags = fl, .change = NAN };
	return &x->frames[base + (*ncomm)++];
}

int pb_stacks_to_x(const struct pb_stacks *t, unsigned flags,
		   const struct pb_stacks_xmark *marks, struct pb_stacks_x *out)
{
	size_t ns = pb_stacks_nr_syms(t), nst = pb_stacks_nr(t), nrefs = 0, ncomm = 0;
	int nr = pb_stacks_nruns(t), comm = (flags & PB_STACKS_X_COMM) != 0;
	double div = flags & PB_STACKS_X_SUM ? 1 : nr;
	unsigned char *made;
	struct pb_stack st;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nst; i++)
		if (!pb_stacks_at(t, i, &st))
			nrefs += st.nframes + (size_t)comm;
	made = calloc(ns * 4 + 1, 1);
	out->frames = calloc(ns * 4 + (comm ? nst : 0) + 1, sizeof(*out->frames));
	out->refs = calloc(nrefs + 1, sizeof(*out->refs));
	out->dsos = calloc(ns + 1, sizeof(*out->dsos));
	out->stacks = calloc(nst + 1, sizeof(*out->stacks));
	if (!made || !out->frames || !out->refs || !out->dsos || !out->stacks)
		goto nomem;
	nrefs = 0;
	for (size_t i = 0; i < nst; i++) {
		struct pb_xstack *xs = &out->stacks[out->n];
		const struct pb_xframe **refs = out->refs + nrefs;
		double v = 0;
		int k = 0;

		if (pb_stacks_at(t, i, &st))
			continue;
		for (int r = 0; r < nr; r++)
			v += st.values[r];
		if (!(v > 0))
			continue;	/* only in runs trimmed away */
		if (comm && !(refs[k++] = comm_of(out, ns * 4, &ncomm, nst, st.comm, st.cut)))
			goto nomem;
		for (size_t j = 0; j < st.nframes; j++) {
			int kind = (j && st.inlined[j] ? KIND_INLINED : 0) |
				   (!j && !comm && st.cut ? KIND_CUT : 0);

			refs[k] = frame_of(t, out, made, st.frames[j], kind, marks, ns);
			if (!refs[k++])
				goto nomem;
		}
		*xs = (struct pb_xstack){ .frames = refs, .n = k, .value = v / div,
					  .samples = (double)st.samples / div,
					  .change = NAN };
		if (marks && st.nframes) {
			xs->change = marks[st.frames[st.nframes - 1]].change;
			xs->significant = marks[st.frames[st.nframes - 1]].significant;
		}
		out->total += xs->value;
		out->samples += xs->samples;
		nrefs += (size_t)k;
		out->n++;
	}
	free(made);
	return 0;
nomem:
	free(made);
	pb_stacks_x_free(out);
	return -ENOMEM;
}

void pb_stacks_x_free(struct pb_stacks_x *x)
{
	free(x->stacks);
	free(x->frames);
	free(x->refs);
	free(x->dsos);
	memset(x, 0, sizeof(*x));
}
