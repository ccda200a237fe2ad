/* SPDX-License-Identifier: MIT */
/* pbench/output.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_OUTPUT
#define PBENCH_H_OUTPUT

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Output files (output.c): a report written whole, or not at all
 *
 * What a path given for output becomes:
 * - "-": stdout, flushed at the end and never closed;
 * - a regular file, or a path that does not exist yet: an unnamed temporary file in the same
 *   directory (symlinks followed to the file they name), renamed over the path only when
 *   pbench_output_close() commits. Until then, and after any failure, an old file is exactly
 *   as it was and nothing new appears in the directory. The old file's mode (and, for root,
 *   owner) is kept; a file that is not writable is refused, as a shell's '>' would. A file
 *   with more than one hard link (or in a directory pbench may not write to) is written to a
 *   temporary file elsewhere and copied over it once complete, in place, so that every link
 *   of it has the new report;
 * - anything else (a device such as /dev/null, a FIFO, a terminal, or a symlink to one):
 *   written directly, never truncated, never removed.
 * Descriptors are close-on-exec, so a measured command never inherits them.
 *
 * Every writer of the library on a FILE * (text, JSON, CSV, Markdown, SVG) returns the error
 * of the write that failed: -ENOSPC for a full disk, -EDQUOT, -EPIPE...; -EIO only where no
 * cause is known. "-EIO" in the writers' comments stands for that.
 *
 * The text writers wrap their prose (sentences, explanations, verdicts) at a width the caller
 * gives, text_width columns, 0 (the default) for none, one line each; negative is -EINVAL;
 * tables are never wrapped. An object made from options takes it there, once, for every text
 * it writes (pbench_runs_opts, pbench_contest_opts, pbench_jitter_opts: .text_width); one
 * made without takes it as its text writer's last argument (pbench_check_write_text(),
 * pbench_samples_write_text()). A terminal's width is the caller's to find (pbench's is
 * COLUMNS, else the terminal's, else 0 for a file or a pipe).
 *
 * The writers (pbench_*_write_text/_json/_csv/_markdown, pbench_*_plot_svg, and the parts
 * pbench_runs_write_head() and _body() for a caller that prints between them) are stable API:
 * the pbench CLI is their first client and uses nothing else, so another program gets the
 * same reports the same way. What is stable is the function: its arguments, ownership, errors
 * and the document it writes. The bytes are stable only where they are a format:
 * - JSON: the schema of each document (schema/<document>.schema.json); a field that changes
 *   meaning or goes away bumps PBENCH_JSON_SCHEMA, new fields may appear;
 * - CSV: the columns keep their names and order; new columns are only appended;
 * - text, Markdown and SVG are for people: their layout and wording may change in any
 *   release. A program reads the JSON (or the structs), not these.
 */
struct pbench_output;

/*
 * Open path for output: the checks a write would fail are made now (the directory exists and
 * is writable, the path is not a directory), so a caller can refuse a bad path before it
 * measures anything. Errors: -EINVAL (NULL or empty path), -EISDIR, -ENOMEM, -ELOOP, and the
 * open's -errno (-ENOENT: no such directory, -EACCES...).
 */
PBENCH_API int pbench_output_open(struct pbench_output **out, const char *path);
/* The stream to write the report to. */
PBENCH_API FILE *pbench_output_file(struct pbench_output *o);
/*
 * Finish and free o. commit 1: flush and, for a regular file, put it in place; returns 0, or
 * the -errno of the write or rename that failed (the old file then stays as it was). commit 0:
 * discard what was written (a regular file's target is left untouched); returns 0.
 */
PBENCH_API int pbench_output_close(struct pbench_output *o, int commit);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_OUTPUT */
