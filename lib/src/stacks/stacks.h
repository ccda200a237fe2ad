/* SPDX-License-Identifier: MIT */
/*
 * The stacks module (lib/src/stacks/): the profiles of a set's timed runs (lib/src/profile/)
 * symbolized after the runs (lib/src/symbols/) into one table of unique stacks of named
 * frames, each with its value in every run (cpu-clock, task-clock: ns, the samples' periods
 * summed; another event: its count), and the figures read from it: per symbol (matched by DSO
 * and name) its self and total value per run, their mean with an interval over the runs, its
 * share; per DSO. Between profile and runs (issue 36); the runs take it up. Files: stacks.c
 * (the table, the symbolization of a profile into it, the folded writer), stacks_figures.c
 * (per symbol and per DSO).
 */
#ifndef PBENCH_STACKS_STACKS_H
#define PBENCH_STACKS_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pb_profile;
struct pb_stacks;
struct pb_xstack;
struct pb_xframe;
struct pb_xdso;

/* One frame's symbol: what the table counts by (its DSO and name; an address nothing named
 * is "[unknown]" in its DSO, unknown 1, why says why). */
struct pb_stack_sym {
	const char *name, *dso, *why;
	const char *file;	/* the source line of its hottest address (NULL, 0: none) */
	unsigned line;
	int kernel, unknown;
};

/* One unique stack: nframes symbols, root first (frames[0] the outermost, the last the leaf),
 * inlined[i] 1 when frame i was inlined into frame i-1; comm the process's name; values[run]
 * (nruns of them), samples over all runs. */
struct pb_stack {
	size_t nframes;
	const uint32_t *frames;
	const unsigned char *inlined;
	const char *comm;
	const double *values;
	uint64_t samples;
	int cut;		/* some of its samples' chains may be cut short */
};

/* stacks.c */
/* A table for nruns runs; debug_dirs NULL or NULL-terminated (pb_syms_new()). -ENOMEM,
 * -EINVAL, the symbolizer's error (-ENOTSUP: built without libdw). */
int pb_stacks_new(struct pb_stacks **out, int nruns, const char *const *debug_dirs);
void pb_stacks_free(struct pb_stacks *t);
/* Run run's profile (ended) symbolized into the table: its samples' chains (frame pointers,
 * or in DWARF mode the user stack unwound by CFI) looked up frame by frame, inline frames
 * kept. 0, -ENOMEM, -ERANGE. */
int pb_stacks_add(struct pb_stacks *t, int run, const struct pb_profile *p);
/* The runs read (nruns, or what pb_stacks_trim() left): a table made for the most runs a set
 * may have, before their count is known, is trimmed to the runs added. */
int pb_stacks_nruns(const struct pb_stacks *t);
void pb_stacks_trim(struct pb_stacks *t, int n);
size_t pb_stacks_nr(const struct pb_stacks *t);
int pb_stacks_at(const struct pb_stacks *t, size_t i, struct pb_stack *out);
size_t pb_stacks_nr_syms(const struct pb_stacks *t);
int pb_stacks_sym(const struct pb_stacks *t, uint32_t i, struct pb_stack_sym *out);
/* Samples whose user chain was cut short by the unwinder (DWARF), and why the last was. */
uint64_t pb_stacks_unwind_cut(const struct pb_stacks *t, const char **why);
/* The places of the samples' user leaves (where the sampled thread was, in a function that
 * has a name): leaf i's DSO (as its symbols'), its file offset in it, its samples over all
 * runs; for an annotation of a function's instructions by the same samples. -ERANGE. */
size_t pb_stacks_nr_leaves(const struct pb_stacks *t);
int pb_stacks_leaf(const struct pb_stacks *t, size_t i, const char **dso, uint64_t *off,
		   uint64_t *samples);
/* Why the kernel's symbols could not be read (NULL: they were, or none was needed). */
const char *pb_stacks_kernel_why(const struct pb_stacks *t);
/* FlameGraph's folded stacks of all runs: "comm;root;...;leaf samples" a unique stack,
 * inline frames marked "_[i]", the kernel's "_[k]", an unknown frame "[unknown] in DSO".
 * 0 or -EIO. */
int pb_stacks_write_folded(const struct pb_stacks *t, FILE *f);
/* A stack given by its frames' names, root first (names[i] NULL: "[unknown]"; dsos NULL or
 * dsos[i] NULL: "[unknown]"; kinds NULL, or per frame PB_STACKS_INLINED: inlined into frame
 * i-1, PB_STACKS_KERNEL), cut: its chain cut short; value added to run run's, samples to its
 * count: for tests, and a table made from another's. 0, -ENOMEM, -ERANGE (run), -EINVAL (n 0
 * or past 512). */
#define PB_STACKS_INLINED 1u
#define PB_STACKS_KERNEL 2u
int pb_stacks_put(struct pb_stacks *t, int run, const char *comm, const char *const *names,
		  const char *const *dsos, const unsigned char *kinds, size_t n, int cut,
		  double value, uint64_t samples);

/* stacks_figures.c: per symbol and per DSO, after every run was added. */
struct pb_stacks_fig {
	uint32_t sym;			/* pb_stacks_sym()'s index (per DSO: -1) */
	const char *dso;
	double self_mean, self_lo, self_hi;	/* per run; lo, hi NaN below 2 runs */
	double total_mean, total_lo, total_hi;
	double self_pct, total_pct;	/* of all runs' sampled value */
	uint64_t self_samples, total_samples;
};
struct pb_stacks_figs {
	struct pb_stacks_fig *syms;	/* by self, highest first */
	size_t nsyms;
	struct pb_stacks_fig *dsos;	/* by self (all their symbols' self), highest first */
	size_t ndsos;
	double per_run_mean, per_run_lo, per_run_hi;	/* the sampled value of a run */
	double sum;				/* over every run */
	uint64_t samples;
};
int pb_stacks_figures(const struct pb_stacks *t, struct pb_stacks_figs *out);
void pb_stacks_figures_free(struct pb_stacks_figs *f);

/* stacks_export.c: the table as the exporters' input (profile/export.h): the flame graph's
 * SVG and pprof's profile.proto. One pb_xframe a distinct frame (a symbol; as inlined into
 * its caller; as the root of a stack cut short: PB_XF_CUT), shared by the stacks that hold it,
 * its file and line the symbol's hottest (the table keeps no addresses: addr 0); one pb_xdso a
 * DSO (its path; build-id not kept: NULL). A stack's value: PB_STACKS_X_MEAN (the default) the
 * mean run's (the sum over the runs read divided by their count: a set's graph is its mean
 * run's, in ns of a run), PB_STACKS_X_SUM all runs' together; its samples likewise. Stacks
 * with no value in the runs read are left out. PB_STACKS_X_COMM: the process's name (comm)
 * as the root frame of every stack, as FlameGraph's folded stacks have it. */
#define PB_STACKS_X_MEAN 0u
#define PB_STACKS_X_SUM 1u
#define PB_STACKS_X_COMM 2u

/* The differential graph's mark of a symbol (pb_stacks_sym()'s index): its tested change (B's
 * time over A's, NaN: not tested) and 1 when significant; put on each of its frames and on
 * the stacks it is the leaf of. */
struct pb_stacks_xmark {
	double change;
	int significant;
};

struct pb_stacks_x {
	struct pb_xstack *stacks;
	size_t n;
	double total;		/* the stacks' values summed */
	double samples;		/* their samples summed */
	/* owned: */
	struct pb_xframe *frames;	/* 4 a symbol, those used referenced */
	const struct pb_xframe **refs;
	struct pb_xdso *dsos;
	size_t ndsos;
};
/* t's stacks into *out (flags PB_STACKS_X_*); marks NULL, or one per symbol
 * (pb_stacks_nr_syms()) for the differential graph. 0, -ENOMEM. out is valid while t is
 * (strings are the table's); freed by pb_stacks_x_free(). */
int pb_stacks_to_x(const struct pb_stacks *t, unsigned flags,
		   const struct pb_stacks_xmark *marks, struct pb_stacks_x *out);
void pb_stacks_x_free(struct pb_stacks_x *x);

#endif
