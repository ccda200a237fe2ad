/* SPDX-License-Identifier: MIT */
/*
 * The command line's support library (build/libpbench-cli.a, the files of cli/support/): what
 * only a command line needs, kept out of libpbench.so as curl's tool keeps its helpers (its
 * src/tool_ files) out of libcurl. Linked into pbench only, before libpbench.a; never
 * installed, no ABI: its functions are cli_*, and may change with the CLI. They use the public API (pbench.h); a file
 * that needs an internal helper of the library's base module says so in its top comment and
 * includes base/base.h, nothing else of lib/src (tests/layers/run.sh checks both).
 */
#ifndef PBENCH_CLI_SUPPORT_H
#define PBENCH_CLI_SUPPORT_H

#include <stddef.h>
#include <stdio.h>

#include "pbench.h"

/* ---- the stop flag of a harness (stop.c) -----------------------------------------------------
 * A signal that would end the process from outside (a Ctrl-C, a closed terminal's SIGHUP, a
 * supervisor's SIGTERM...) sets the flag instead, for as long as the harness runs, so that
 * the work it gives the flag to (the opts' stop of runs, contests, the jitter probe, a
 * listing's sampling, a history import) ends what it started, puts a prepared CPU back and
 * leaves the report to be written. Whether the process then dies of the signal is the
 * caller's (cli_stop_die()).
 */
/*
 * Every signal whose default action ends the process and that comes from outside (SIGHUP,
 * SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, the real-time ones...: those
 * PBENCH_PREPARE_SIGNALS restores a prepared state on; not SIGPIPE, a write's error, nor a
 * fault of the thread itself) sets the flag to its number instead (the first one; 0 while none
 * came). A signal ignored when this is called (nohup) stays ignored. SIGCONT, when its action
 * is the default, is counted too (the process continues all the same; the calls it interrupts
 * are restarted): cli_stop_resumed(). Call it from one thread, before the harness's own
 * threads start. Returns the flag.
 */
const volatile int *cli_stop_catch(void);
/* The count of SIGCONTs since cli_stop_catch() (a run that sees it change was stopped with its
 * harness, SIGSTOP or SIGTSTP, and holds the stop): the opts' resumed of runs and contests. */
const volatile unsigned *cli_stop_resumed(void);
/* Every signal's earlier action back; the signal that set the flag (0: none). */
int cli_stop_restore(void);
/* End the process of signal sig (stdio flushed, its default action, unblocked): returns
 * -EINVAL only for a signal whose default does not end it (SIGCHLD, SIGCONT) or no signal. */
int cli_stop_die(int sig);

/* ---- terminals (term.c) --------------------------------------------------------------------- */
/*
 * The width prose written to f wraps at (the opts' text_width of runs, contests and the jitter
 * probe, the width of pbench_check_write_text() and pbench_samples_write_text()), as git's
 * term_columns(): COLUMNS when set to a whole number from 0 to 10000 (0: no wrapping; how a
 * script or a test gets wrapped text from a pipe), else a terminal's width (80 when it cannot
 * be read), else 0.
 */
int cli_term_width(FILE *f);
/* 1 when colour on f is wanted (the writers' *_COLOR flags): a terminal, NO_COLOR unset. */
int cli_term_color(FILE *f);
/* text written to f as a paragraph wrapped at width columns (0: not wrapped), by the rule of
 * the library's text writers (a line breaks only at a space, never inside a word nor between
 * a number and its unit; a '\n' starts a new line), continuation lines indented by indent (at
 * most width / 2): 0, or -EINVAL (f or text NULL, width or indent < 0), -EIO. */
int cli_wrap(FILE *f, const char *text, int width, int indent);
/* The library's log callback for pbench_log_set(): "PREFIX: LEVEL: MSG" on stderr (prefix a
 * const char *, NULL: "pbench"). */
void cli_log_stderr(int level, const char *msg, void *prefix);

/* ---- words of the command line (words.c) ---------------------------------------------------- */
/* " (did you mean 'PREFIXname'?)" in buf (cut to len) for the candidate nearest to word
 * (pbench_suggest()), else "": its index, or -1; -EINVAL for a NULL buf or len 0. */
int cli_suggest_text(const char *word, const char *const *candidates, int n, const char *prefix,
		     char *buf, size_t len);
/* word as one of names[0..n-1]: its index; else -ENOENT with why "it is one of a, b or c (did
 * you mean 'b'?)"; -EINVAL for a NULL argument or len 0. */
int cli_suggest_choice(const char *word, const char *const *names, int n, char *why, size_t len);
/* cli_parse_in()'s flag beside pbench_format_parse()'s: more than 0 (taken off before the
 * library's parse sees the flags). */
#define CLI_PARSE_POSITIVE (1u << 16)
/*
 * s as a number (pbench_format_parse()'s flags) in [lo, hi] (with CLI_PARSE_POSITIVE, more
 * than 0 too) into *out: 0; else its error with what was expected in why ("a whole number
 * from 1 to 10", "a number more than 0 and at most 100 (a percentage)"); -EINVAL for a NULL out
 * or why, or len 0.
 */
int cli_parse_in(const char *s, unsigned flags, double lo, double hi, double *out, char *why,
		 size_t len);
/* cli_cpus_parse_words()'s flags: the present CPUs, not those pbench may run on. */
enum { CLI_CPUS_PRESENT = 1 << 0 };
/*
 * The CPU list given to option opt (a list such as 2 or 0-3,6) into cpus[0..max-1], checked
 * against the CPUs this process may run on (CLI_CPUS_PRESENT: the present ones), at most most
 * of them (0: any number; who names what takes them): their number; else why, in a command
 * line's words, and -EINVAL (not a list, too many), -ERANGE (a CPU outside the set).
 */
int cli_cpus_parse_words(const char *list, const char *opt, unsigned flags, int most,
			 const char *who, int *cpus, int max, char *why, size_t len);
/* A command line as *argv (its words, pbench_command_split(); shell 1: /bin/sh -c line): 0, or
 * -EINVAL (a quote not closed), -ENODATA (empty), -ENOMEM, said in why (what: "--setup"...). */
int cli_command_words(char ***argv, const char *line, int shell, const char *what, char *why,
		      size_t len);
/* 1 with why in buf when a word of argv is shell syntax (| > && ;...) that no shell will read:
 * taken for the program or an argument; 0 when none is; -EINVAL. */
int cli_command_syntax(char *const *argv, char *buf, size_t len);
/* 1 with where a command not found was looked for in buf (a path that is no file, a file in
 * the current directory that PATH does not hold: "./name"); 0 for a bare name; -EINVAL. */
int cli_command_where(const char *cmd, char *buf, size_t len);

/* ---- progress lines (progress.c) ------------------------------------------------------------ */
/* p as the one line a progress display shows: "prepared: run 7 of 20, 27.3 ms ± 0.41%, 0.4 s
 * left", "unprepared: preparing (...)", "...: warm-up runs (not kept)"; cut to fit len.
 * 0, or -EINVAL (p, its phase or buf NULL, len 0). */
int cli_runs_progress_text(const struct pbench_runs_progress *p, char *buf, size_t len);
/* p as one line: "round 12, time ratio 1.031 (1.012-1.050), about 3.2 s left", or the phase
 * ("running the setup command"...; "instructions:u ratio" on a metric); cut to fit len. 0, or -EINVAL (p, its phase or buf NULL,
 * len 0). */
int cli_contest_progress_text(const struct pbench_contest_progress *p, char *buf, size_t len);

/* ---- the outputs of one report (outputs.c) ---------------------------------------------------
 * A set of formats, each to a file or to stdout, opened together before anything is measured,
 * each written by the caller's writer and put in place only when complete (pbench_output_*()).
 * A call that fails for a reason a person must read leaves one-line messages
 * (cli_outputs_message()), named by the label the caller gave each output (the option that
 * asked for it, such as "--json"). Use: _new(), _add() for each output asked for, _open()
 * before measuring, _write() once the report is ready, _close(, 1) (or 0 to keep every old
 * file as it was), _free().
 */
struct cli_outputs;

/* An empty set. Errors: -EINVAL (out NULL), -ENOMEM. */
int cli_outputs_new(struct cli_outputs **out);
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
int cli_outputs_add(struct cli_outputs *s, int fmt, const char *path, const char *label);
/* The format on stdout, or -1 when none is (a caller then prints its text there). */
int cli_outputs_stdout(const struct cli_outputs *s);
/* 1 when format fmt was asked for, on stdout or to a file (fmt -1: any format); else 0. */
int cli_outputs_wants(const struct cli_outputs *s, int fmt);
/*
 * Open every output (cli_output_open_all()): the one on stdout first, then the files in the
 * order of enum pbench_report_format. Two that would write one file: -EEXIST, message "<label>
 * and <label> both write to '<path>': give each its own file"; a path that cannot be written:
 * its error, message "cannot write <noun> '<path>': <pbench_strerror()>" (noun: "the JSON",
 * "the CSV file", "the Markdown", "the plot", "the text"). Then none is open and no file
 * touched. Errors also: -EINVAL (s NULL), -EBUSY (open already).
 */
int cli_outputs_open(struct cli_outputs *s);
/*
 * write(arg, fmt, f) for each open output, in the order above, each even when one before it
 * failed; write returns 0 or the error of the write that failed. Returns 0, or the first
 * error. A file that failed: message "cannot write <noun> '<path>': <why>" (none for -EPIPE,
 * a reader that went away). A failure on stdout is returned and kept for
 * cli_outputs_stdout_error(), with no message: stdout keeps its error flag, for the one
 * check of stdout a caller makes before it exits. Errors also: -EINVAL, -EBADF (not open).
 */
int cli_outputs_write(struct cli_outputs *s, int (*write)(void *arg, int fmt, FILE *f), void *arg);
/* 0, or the error of the last cli_outputs_write() to stdout that failed since _open(). */
int cli_outputs_stdout_error(const struct cli_outputs *s);
/*
 * Close every output: with commit 1, each one written without an error is put in place
 * (pbench_output_close()); every other file is left as the old one was, and nothing new is
 * in its directory. Returns 0 or the first error of putting one in place, with a message
 * "cannot write <noun> '<path>': <why>" for each (none for -EPIPE). The set may be opened
 * again. Errors also: -EINVAL (s NULL).
 */
int cli_outputs_close(struct cli_outputs *s, int commit);
/* The i-th message (from 0) the last call on s left, or NULL after the last: owned by s,
 * valid until the next call on s. */
const char *cli_outputs_message(const struct cli_outputs *s, int i);
/* Close (without commit: old files stay as they were) and free s; NULL is ignored. */
void cli_outputs_free(struct cli_outputs *s);
/*
 * Open the n outputs of one report at once, one a format (paths[i] NULL: not asked for;
 * outs[i] is then NULL). Two that would write the same file (the same name, two names of one
 * existing regular file, "-" twice; a device such as /dev/null may be given twice) are
 * refused before any is opened: -EEXIST, which[0] and which[1] the two indexes. Then each is
 * opened (pbench_output_open()): its error with which[0] its index, and none left open.
 * Returns 0 when all are open; each is then closed by pbench_output_close(). -EINVAL (outs,
 * paths or which NULL, n < 0) before anything is written through them.
 */
int cli_output_open_all(struct pbench_output **outs, const char *const *paths, int n,
			int which[2]);
/*
 * Whether path suits a report in format fmt (enum pbench_report_format), before it is opened:
 * the SVG plot's file is named *.svg (any case), so that what opens it knows it; "-", a device
 * or a pipe are taken as they are, and the other formats take any name. 0, or -EINVAL with
 * why (cut to len): "name the file 'NAME.svg', not 'PATH'"; -EINVAL for a NULL path or why,
 * or len 0.
 */
int cli_output_check_name(const char *path, int fmt, char *why, size_t len);

#endif
