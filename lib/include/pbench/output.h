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
/*
 * Open the n outputs of one report at once, one a format (paths[i] NULL: not asked for;
 * outs[i] is then NULL). Two that would write the same file (the same name, two names of one
 * existing regular file, "-" twice; a device such as /dev/null may be given twice) are
 * refused before any is opened: -EEXIST, which[0] and which[1] the two indexes. Then each is
 * opened (pbench_output_open()): its error with which[0] its index, and none left open.
 * Returns 0 when all are open; each is then closed by pbench_output_close().
 */
PBENCH_API int pbench_output_open_all(struct pbench_output **outs, const char *const *paths,
				      int n, int which[2]);
/*
 * Whether path suits a report in format fmt (enum pbench_report_format), before it is opened:
 * the SVG plot's file is named *.svg (any case), so that what opens it knows it; "-", a device
 * or a pipe are taken as they are, and the other formats take any name. 0, or -EINVAL with
 * why (cut to len): "name the file 'NAME.svg', not 'PATH'"; -EINVAL for a NULL path or why,
 * or len 0.
 */
PBENCH_API int pbench_output_check_name(const char *path, int fmt, char *why, size_t len);
/*
 * The width prose written to f wraps at (the writers' *_wrap_at()), as git's term_columns():
 * COLUMNS when set to a whole number from 0 to 10000 (0: no wrapping; how a script or a test
 * gets wrapped text from a pipe), else a terminal's width (80 when it cannot be read), else 0.
 */
PBENCH_API int pbench_output_width(FILE *f);
/* 1 when colour on f is wanted (the writers' *_COLOR flags): a terminal, NO_COLOR unset. */
PBENCH_API int pbench_output_color(FILE *f);

/*
 * The outputs of one report (outputs.c): a set of formats, each to a file or to stdout, opened
 * together before anything is measured, each written by the caller's writer and put in place
 * only when complete. The library never prints: a call that fails for a reason a person must
 * read leaves one-line messages (pbench_outputs_message()), named by the label the caller gave
 * each output (the option that asked for it, such as "--json"), for the caller to print.
 * Use: _new(), _add() for each output asked for, _open() before measuring, _write() once the
 * report is ready, _close(, 1) (or 0 to keep every old file as it was), _free().
 */
struct pbench_outputs;

/* An empty set. Errors: -EINVAL (out NULL), -ENOMEM. */
PBENCH_API int pbench_outputs_new(struct pbench_outputs **out);
/*
 * Format fmt (enum pbench_report_format) to path ("-": stdout), asked for by label (NULL: the
 * format's noun, "the JSON"). At most one format goes to stdout: another one is -EEXIST with
 * the message "<label> and <label> cannot both write to stdout: give one of them a file";
 * the same format to stdout again adds nothing. A format given a file again: the later path
 * and label replace the earlier (the last one given counts, as a command line's options do).
 * Nothing is opened yet. Refused with a message (-EINVAL): an empty path ("<label> needs a
 * file name, or '-' for stdout"), and SVG to a regular file (or a new one) whose name does not
 * end in .svg ("<label> writes SVG: name the file 'x.svg', not 'x'"); stdout, a device or a
 * pipe are taken as they are. Errors also: -EINVAL (s or path NULL, fmt not a format), -EBUSY
 * (the set is open), -ENOMEM.
 */
PBENCH_API int pbench_outputs_add(struct pbench_outputs *s, int fmt, const char *path,
				  const char *label);
/* The format on stdout, or -1 when none is (a caller then prints its text there). */
PBENCH_API int pbench_outputs_stdout(const struct pbench_outputs *s);
/* 1 when format fmt was asked for, on stdout or to a file (fmt -1: any format); else 0. */
PBENCH_API int pbench_outputs_wants(const struct pbench_outputs *s, int fmt);
/*
 * Open every output (pbench_output_open_all()): the one on stdout first, then the files in the
 * order of enum pbench_report_format. Two that would write one file: -EEXIST, message "<label>
 * and <label> both write to '<path>': give each its own file"; a path that cannot be written:
 * its error, message "cannot write <noun> '<path>': <pbench_strerror()>" (noun: "the JSON",
 * "the CSV file", "the Markdown", "the plot", "the text"). Then none is open and no file
 * touched. Errors also: -EINVAL (s NULL), -EBUSY (open already).
 */
PBENCH_API int pbench_outputs_open(struct pbench_outputs *s);
/*
 * write(arg, fmt, f) for each open output, in the order above, each even when one before it
 * failed; write returns 0 or the error of the write that failed. Returns 0, or the first
 * error. A file that failed: message "cannot write <noun> '<path>': <why>" (none for -EPIPE,
 * a reader that went away). A failure on stdout is returned and kept for
 * pbench_outputs_stdout_error(), with no message: stdout keeps its error flag, for the one
 * check of stdout a caller makes before it exits. Errors also: -EINVAL, -EBADF (not open).
 */
PBENCH_API int pbench_outputs_write(struct pbench_outputs *s,
				    int (*write)(void *arg, int fmt, FILE *f), void *arg);
/* 0, or the error of the last pbench_outputs_write() to stdout that failed since _open(). */
PBENCH_API int pbench_outputs_stdout_error(const struct pbench_outputs *s);
/*
 * Close every output: with commit 1, each one written without an error is put in place
 * (pbench_output_close()); every other file is left as the old one was, and nothing new is
 * in its directory. Returns 0 or the first error of putting one in place, with a message
 * "cannot write <noun> '<path>': <why>" for each (none for -EPIPE). The set may be opened
 * again. Errors also: -EINVAL (s NULL).
 */
PBENCH_API int pbench_outputs_close(struct pbench_outputs *s, int commit);
/* The i-th message (from 0) the last call on s left, or NULL after the last: owned by s,
 * valid until the next call on s. */
PBENCH_API const char *pbench_outputs_message(const struct pbench_outputs *s, int i);
/* Close (without commit: old files stay as they were) and free s; NULL is ignored. */
PBENCH_API void pbench_outputs_free(struct pbench_outputs *s);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_OUTPUT */
