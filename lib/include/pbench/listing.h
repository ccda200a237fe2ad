/* SPDX-License-Identifier: MIT */
/* pbench/listing.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_LISTING
#define PBENCH_H_LISTING

#include "child.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * The machine code of a function (listing.c, listing_elf.c)
 *
 * A benchmark of a loop the compiler deleted measures nothing; its code shows it (a `ret`
 * alone, no jump back). A listing is one function's instructions as binutils' objdump
 * disassembles them from its object file: a function of this process found by its address
 * (dladdr, then the file's own symbol table for a static function), or a function of any ELF
 * file found by its name (.symtab, then .dynsym). objdump runs as a child (never a shell);
 * it is a dependency of pbench (Debian's binutils). When the code cannot be shown, the listing
 * says why and what to do, and has no lines: it is never an empty listing without a reason.
 */
struct pbench_listing;

enum pbench_listing_status {
	PBENCH_LISTING_OK = 0,		/* disassembled: the lines are its instructions */
	PBENCH_LISTING_NO_SYMBOL,	/* no function symbol there, or by that name (a static
					 * function of a stripped binary, a name inlined away) */
	PBENCH_LISTING_NO_FILE,		/* the object file cannot be read, or is not ELF */
	PBENCH_LISTING_NO_OBJDUMP,	/* objdump cannot be run (binutils not installed) */
	PBENCH_LISTING_FAILED,		/* objdump failed, or printed no instruction */
};

struct pbench_listing_opts {
	size_t size;
	/* Either a function of this process: */
	const void *addr;
	/* or a function of an ELF file, by name (addr NULL): */
	const char *file;
	const char *symbol;
	const char *objdump;		/* NULL: "objdump", found along PATH */
	/* Set (by a signal handler) while pbench_listing_sample() runs the command: the run
	 * is ended, with what it started, and the call returns -EINTR. NULL: never. */
	const volatile int *stop;
};

/* Its size set, the rest NULL: set addr, or file and symbol. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_LISTING_OPTS_INIT \
	([] { struct pbench_listing_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_LISTING_OPTS_INIT { .size = sizeof(struct pbench_listing_opts) }
#endif

/*
 * Find the function and disassemble it. Returns 0 with *out set also when the code cannot be
 * shown: pbench_listing_status() and pbench_listing_reason() say why. Errors: -EINVAL (no
 * opts, neither addr nor file and symbol, opts->size 0), -ENOMEM.
 */
PBENCH_API int pbench_listing_new(struct pbench_listing **out,
				  const struct pbench_listing_opts *opts);
PBENCH_API void pbench_listing_free(struct pbench_listing *l);
PBENCH_API int pbench_listing_status(const struct pbench_listing *l);
/* Why the code is not shown, and the fix (one line); NULL when it is. */
PBENCH_API const char *pbench_listing_reason(const struct pbench_listing *l);
/* The function's name (as the symbol table has it), its object file, its address in that file
 * (not in memory) and its size in bytes; NULL or 0 when not found. */
PBENCH_API const char *pbench_listing_symbol(const struct pbench_listing *l);
PBENCH_API const char *pbench_listing_file(const struct pbench_listing *l);
PBENCH_API uint64_t pbench_listing_address(const struct pbench_listing *l);
PBENCH_API uint64_t pbench_listing_size(const struct pbench_listing *l);
/* The instructions, one line each as objdump prints them ("1139:  jne  1130 <f+0x10>"). */
PBENCH_API size_t pbench_listing_nr(const struct pbench_listing *l);
PBENCH_API const char *pbench_listing_line(const struct pbench_listing *l, size_t i);
/* Jumps to an address at or before their own inside the function: a loop's back edges. A
 * loop that is in the source and has none here was unrolled away or deleted. */
PBENCH_API size_t pbench_listing_backward_jumps(const struct pbench_listing *l);
/*
 * Where the time goes in the function: run argv once more (its output to /dev/null, not one
 * of any measured runs), sampled by the cpu-clock software event every period_ns (0: 100 us;
 * a timer, so no PMU is needed) with PERF_SAMPLE_IP, inherited by everything the command
 * starts; each sample in the listing's file counts for the line of its instruction. A run
 * longer than timeout_s (0: no limit) is ended then, its samples kept. Returns 0 also when
 * sampling is not possible here: pbench_listing_samples_reason() says why. Errors: -EINVAL,
 * -ENOMEM, -EINTR (opts.stop was set: the run ended, no samples kept), and those of
 * pbench_child_start() for argv.
 */
PBENCH_API int pbench_listing_sample(struct pbench_listing *l, char *const argv[],
				     uint64_t period_ns, double timeout_s);
/*
 * What pbench stat --annotate shows: the listing of function opts->symbol in the program the
 * command argv runs (argv[0] found as exec would, pbench_command_resolve(); opts->file and
 * addr are not read), then pbench_listing_sample() of one more run of argv (timeout_s as
 * there). Returns 0 with *out set, also when the code cannot be shown or sampled (the status
 * and the reasons say why); 1 with *out NULL when argv[0] is not a command that can start
 * (the caller's own runs of it say why); -EINTR (opts->stop set: *out set, without samples),
 * -EINVAL (out, argv, argv[0] or opts->symbol NULL), -ENOMEM, and pbench_listing_sample()'s
 * errors with *out set. Free *out with pbench_listing_free() in every case.
 */
PBENCH_API int pbench_listing_annotate(struct pbench_listing **out, char *const argv[],
				       const struct pbench_listing_opts *opts, double timeout_s);
/* Samples at file addresses addrs[0..n-1] (as a sampled run gives them, or recorded): each
 * counts for the line whose instruction holds it when it lies in the function, and towards
 * the total in any case. -EINVAL (no code listed, addrs NULL), -ENOMEM. */
PBENCH_API int pbench_listing_add_samples(struct pbench_listing *l, const uint64_t *addrs,
					  size_t n);
/* 1 and the samples in the function and in all when sampled; 0 when not (nothing set). */
PBENCH_API int pbench_listing_samples(const struct pbench_listing *l, uint64_t *in_function,
				      uint64_t *total);
/* The samples of line i (0 when not sampled). */
PBENCH_API uint64_t pbench_listing_line_samples(const struct pbench_listing *l, size_t i);
/* Why no instruction is marked with its share of the samples; NULL when sampled. */
PBENCH_API const char *pbench_listing_samples_reason(const struct pbench_listing *l);
/* The listing for people, each line indented by two spaces (text), or as a fenced code block
 * (Markdown); the reason in place of the code when it cannot be shown. -EINVAL, -EIO. */
PBENCH_API int pbench_listing_write_text(const struct pbench_listing *l, FILE *f);
PBENCH_API int pbench_listing_write_markdown(const struct pbench_listing *l, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_LISTING */
