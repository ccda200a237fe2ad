/* SPDX-License-Identifier: MIT */
/*
 * A profile's exports for other tools and for people (issue 36, item 4 and 5's differential
 * graph), over a generic input any stack table can give: a list of stacks, each a list of
 * frames from the root to the leaf with a value. profile_flame.c draws a flame graph (SVG,
 * FlameGraph's layout: the root at the bottom, names in the wide frames and as tooltips);
 * profile_pprof.c writes pprof's profile.proto, gzipped, for `go tool pprof`, Pyroscope and
 * Parca (protobuf-c and zlib; PPROF=0 builds refuse it with the reason). Internal: nothing
 * here is exported; the caller owns every string and frame, read only during the call.
 *
 * Frames follow the symbols module (symbols/symbols.h): a function's inline frames are frames
 * of their own, each flagged PB_XF_INLINED ("inlined into the frame before it", root first:
 * the function, then what was inlined into it); kernel frames are flagged PB_XF_KERNEL and
 * come before the user's nearest the leaf (as a chain has them); a frame whose function is
 * not known has name NULL (drawn "[unknown]", with its DSO). A stack cut short (symbols'
 * unwinder gave up, the kernel's depth limit) has PB_XF_CUT on its root frame: both writers
 * then put it under a frame of its own, "[stack cut short]", never passing it off as a
 * complete chain.
 */
#ifndef PBENCH_PROFILE_EXPORT_H
#define PBENCH_PROFILE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PB_XF_INLINED 1u	/* inlined into the frame before it (its caller, root first) */
#define PB_XF_KERNEL 2u		/* kernel code */
#define PB_XF_CUT 4u		/* on frames[0]: the chain was cut short, the callers unknown */

/* The name of the extra root frame of a cut stack, in both writers. */
#define PB_XCUT_NAME "[stack cut short]"

/* A DSO a frame is in: a path or a name such as "[kernel.kallsyms]", "[vdso]"; its build-id
 * in hex (NULL: not known). pprof's mappings are one per distinct pb_xdso pointer, so the
 * caller gives one per DSO (its address range where it has one, else 0, 0). */
struct pb_xdso {
	const char *path;
	const char *build_id;
	uint64_t start, limit, offset;	/* where it was mapped, for pprof (0: not known) */
};

/* One frame. A caller keeps one per distinct frame (symbol, inline position, line) and
 * shares it among the stacks that hold it: pprof's writer looks a frame's function up by the
 * frame's address before its strings, and the flame graph's tooltip shows the file and line
 * of the first frame merged into a box. change and significant are the differential flame
 * graph's: the tested change of this frame's symbol, B's time over A's (NaN: not tested), and
 * 1 when the test found it significant (only those are coloured). A caller with no test
 * leaves change NaN. */
struct pb_xframe {
	const char *name;		/* the function; NULL: not known */
	const struct pb_xdso *dso;	/* NULL: not known */
	const char *file;		/* source file (NULL: not known) */
	unsigned line;			/* its line (0: not known); a caller's frame: the call's */
	unsigned flags;			/* PB_XF_* */
	uint64_t addr;			/* the address for pprof (0: not known) */
	double change;
	int significant;
};

/* One distinct stack: frames[0] the root, frames[n - 1] the leaf; value in the unit the
 * options name (ns of cpu-clock, or events), samples the samples behind it (a sum over runs
 * or a mean a run, as the caller's figures are). change/significant: as a frame's, for the
 * leaf's self time on this stack; the flame graph uses them for a leaf frame whose own change
 * is NaN. n == 0 is allowed (drawn as the root's self time). */
struct pb_xstack {
	const struct pb_xframe *const *frames;
	int n;
	double value;
	double samples;
	double change;
	int significant;
};

/* profile_utf8.c: the length in bytes of the UTF-8 character at s (s[0] not NUL), or 0 when
 * s does not start a valid one (an overlong form, a surrogate, past U+10FFFF, a stray
 * continuation byte); xml: also 0 for what XML 1.0 cannot hold (controls but tab and newline,
 * U+FFFE, U+FFFF). */
int pb_utf8_len(const unsigned char *s, int xml);

/* profile_flame.c */
struct pb_flame_opts {
	const char *title;	/* NULL: "Flame graph" */
	const char *subtitle;	/* the caller's words: command, runs, samples, event; NULL none */
	const char *unit;	/* of the values: "ns" (drawn as time) or an event's name; NULL ns */
	int width;		/* pixels (0: 1200) */
	double min_px;		/* frames narrower are not drawn, their value kept in their
				 * parent's width (0: 0.5) */
	int differential;	/* 1: colour by the change (red slower, blue faster, grey not
				 * significant), widths from the stacks given (B's) */
};
/* The stacks merged into a tree (frames equal by name, DSO and kind: kernel, inlined) and
 * drawn: a frame's width is its value's share of the total, its callees above it. 0, -EINVAL
 * (a negative or non-finite value, a frame NULL), -ENOMEM, or the write's error. */
int pb_flame_write_svg(FILE *f, const struct pb_xstack *stacks, size_t n,
		       const struct pb_flame_opts *opts);

/* profile_pprof.c */
struct pb_pprof_opts {
	const char *value_type;	/* sample_type[1]: NULL "cpu" */
	const char *value_unit;	/* its unit: NULL "nanoseconds" */
	const char *period_type;	/* NULL: value_type */
	const char *period_unit;	/* NULL: value_unit */
	int64_t period;		/* events between samples (cpu-clock at 4 kHz: 250000 ns) */
	int64_t time_ns;	/* when it was recorded, ns since the epoch (0: not said) */
	int64_t duration_ns;	/* what it covers (0: not said) */
	const char *const *comments;	/* NULL-terminated lines pprof shows as they are */
	int level;		/* gzip's level (0: 6) */
};
/* The stacks as pprof's profile.proto (sample_type [samples count, value_type value_unit],
 * the value the default), gzipped, into f. Samples' values are rounded to integers. Frames
 * equal in function, file and line share a Function; a run of a function with its inline
 * frames is one Location with a Line each (innermost first, as pprof reads them); a DSO is a
 * Mapping (its build-id). 0, -EINVAL, -ENOMEM, -ENOTSUP (built without protobuf-c: PPROF=0),
 * -EIO (zlib), or the write's error. */
int pb_pprof_write(FILE *f, const struct pb_xstack *stacks, size_t n,
		   const struct pb_pprof_opts *opts);

#endif
