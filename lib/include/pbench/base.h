/* SPDX-License-Identifier: MIT */
/* pbench/base.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_BASE
#define PBENCH_H_BASE

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PBENCH_API __attribute__((visibility("default")))
#else
#define PBENCH_API
#endif

#define PBENCH_VERSION_MAJOR 0
#define PBENCH_VERSION_MINOR 1
#define PBENCH_VERSION_PATCH 0
#define PBENCH_VERSION_STRING "0.1.0"
/* The "schema" of every JSON document pbench writes: it changes when a field changes meaning
 * or is removed (schema/<document>.schema.json describe each document). */
#define PBENCH_JSON_SCHEMA 2

/*
 * Versioned structs. A struct the caller fills (options) or receives (results) across the
 * ABI starts with `size_t size`, set by the caller to sizeof the struct of the pbench.h it was
 * built with (the *_OPTS_INIT macros set it); new fields are only ever added at the end, so a
 * program keeps working with a newer library, and a newer program with an older one:
 * - in (options): the library reads the fields the caller's struct has; a field an older
 *   struct does not have takes its default, what the struct's *_OPTS_INIT gives. A newer
 *   struct's fields past the library's own are not read.
 * - out (results): an older, smaller struct gets the fields it knows and nothing is written
 *   past its size; a newer, larger one gets all the library's fields and the rest of it
 *   zeroed, and its .size is set to the bytes the library filled (so a field past .size was
 *   not filled: unknown to this library, not 0).
 * A .size of 0 or below the size field is refused with -EINVAL (pbench_strerror() says which
 * argument). Such structs are handed out one at a time (pbench_counters_get(i, &one)), never
 * as an array of the library's stride, and are never embedded by value in front of other
 * fields of a public struct.
 */

/*
 * One vocabulary for every function:
 * - A constructor makes an object the library allocates and hands over: pbench_<noun>_new(),
 *   pbench_<noun>_open(), or a verb constructor of lib/names.txt (pbench_measure() makes a
 *   pbench_result, pbench_prepare() a pbench_prepared, pbench_region_result() a
 *   pbench_result, pbench_command_split() an argv). Its output comes FIRST
 *   (`struct pbench_<noun> **out`, then what it is made from); it returns 0 or a negative
 *   error, with *out NULL on an error unless its comment says otherwise; the caller owns the
 *   object and ends it with pbench_<noun>_free() (NULL is a no-op).
 * - Every other function takes the object it acts on first, then its inputs, then its
 *   outputs LAST: a caller's struct to fill (a versioned struct, .size set; e.g.
 *   pbench_compare(a, ctx_a, b, ctx_b, opts, &out), whose details the caller releases with
 *   pbench_comparison_release()), or pointers to fill. A writer takes what it writes first,
 *   then the FILE *, then its labels.
 * - Strings and pointers a function returns, or leaves in a struct it fills, are owned by the
 *   object they came from and valid until that object is freed (a struct's own comment says
 *   when they are the library's, valid for the life of the process); never free them.
 * - Every options struct has its PBENCH_<NOUN>_OPTS_INIT (the defaults, .size set), and opts
 *   NULL means those defaults.
 * - Names say what they are: "compare" is the comparison of two functions in this process
 *   (pbench_compare(), a pbench_comparison); commands run against each other are a contest
 *   (pbench_contest, what the `pbench compare` command runs). "prepare" is prepared mode
 *   (pbench_prepare(), PBENCH_RUNS_PREPARED: pinning, priority, warm-up); the command run
 *   before each run is the `prepare` option of the runs and contest options, as hyperfine's
 *   --prepare (the library calls it the prerun command inside).
 */

/* The version of the library actually linked (may differ from the header's). */
PBENCH_API const char *pbench_version(void);

/* ---------------------------------------------------------------------------------------------
 * Errors and diagnostics
 */

/* pbench's own error codes; functions return them negated. They start above any errno value. */
enum pbench_error {
	PBENCH_EUNKNOWN_EVENT = 10000,	/* an event name that neither libpfm4 nor sysfs knows */
	PBENCH_EBAD_EVENT_LIST,		/* empty or malformed event list ("a,,b", trailing comma) */
	PBENCH_EDUP_EVENT,		/* the same event listed twice */
	PBENCH_ENO_EVENTS,		/* no event of a request could be opened */
	PBENCH_ENOT_FOUND,		/* a command that is not found in PATH */
	PBENCH_ENOT_EXEC,		/* a command that exists but cannot be executed */
	PBENCH_EPFM,			/* libpfm4 failed to initialize or encode */
	PBENCH_EBUSY_REGION,		/* start/stop out of order */
	PBENCH_ENO_RDPMC,		/* user-space counter read not available for this event */
	PBENCH_EDIFFERENT,		/* compared functions do not compute the same thing */
	PBENCH_EBAD_INTERP,		/* a script's #! interpreter (or a binary's loader) is missing */
	PBENCH_ECORRUPT,		/* a history store that is corrupt, truncated or not pbench's */
	PBENCH_ENEWER_SCHEMA,		/* a history store written by a newer pbench: not touched */
	PBENCH_ECMD_FAILED,		/* a command exited non-zero or was killed in its check
					 * run, before any timed run: nothing was measured */
	PBENCH_ELAST
};

/*
 * Text for a negative (or positive) error code: an errno or a PBENCH_E* value. The one way
 * the library says why a call failed: every call returns 0 (or a count) or a negative error,
 * no object keeps a message of its own and no call fills a caller's buffer with its reason.
 * A failing call that knows which argument was wrong and why leaves that detail with the
 * calling thread and sends it to the log callback (pbench_log_set()): at PBENCH_LOG_ERROR for
 * a struct the caller passed with a bad .size or as NULL, at PBENCH_LOG_DEBUG otherwise. Then,
 * while err is the code that call returned, pbench_strerror(err) gives the detail with the
 * generic text, e.g. "invalid argument: pbench_measure(): opts: .size is 0 (set .size =
 * sizeof(struct pbench_measure_opts) or start from PBENCH_MEASURE_OPTS_INIT)", or the detail
 * alone where it is a sentence for people, as pbench prints it: "unknown event 'cylces' (did
 * you mean 'cycles'?)", "'false' failed before any timed run: exit 1; its stderr was empty";
 * for any other code, the generic text ("Cannot allocate memory"). Call it right after the
 * failing call: the next call of this thread that fails with a detail replaces it, and a call
 * that takes options or a struct to fill forgets it once its arguments pass (a getter such as
 * pbench_contest_info() too). The text is the library's (thread-local or static) until then.
 */
PBENCH_API const char *pbench_strerror(int err);

enum pbench_log_level { PBENCH_LOG_ERROR, PBENCH_LOG_WARN, PBENCH_LOG_INFO, PBENCH_LOG_DEBUG };
typedef void (*pbench_log_fn)(int level, const char *msg, void *arg);

/* Route the library's diagnostics to fn (NULL: drop them). Not thread-safe against itself. */
PBENCH_API void pbench_log_set(pbench_log_fn fn, void *arg);
/*
 * "Did you mean": the index of the word of candidates[0..n-1] nearest to word, for the
 * messages about a mistyped name. Nearness is the edit distance, case ignored: the fewest
 * letters added, removed or changed, or two neighbours swapped. Returns -1 when no word is
 * within a third of word's length (2 for a shorter word), when two different words are
 * equally near (the choice would be a guess), or when word is empty. NULL candidates are
 * skipped; words longer than 255 bytes match nothing. Never fails otherwise.
 */
PBENCH_API int pbench_suggest(const char *word, const char *const *candidates, int n);
/*
 * The formats of a report, for the writers that take one (pbench_runs_write(),
 * pbench_contest_write()): each the document of the writer of that name (output.h says what
 * is stable in each). TEXT last, so that the files' formats count from 0.
 */
enum pbench_report_format {
	PBENCH_REPORT_FORMAT_JSON,
	PBENCH_REPORT_FORMAT_CSV,
	PBENCH_REPORT_FORMAT_MARKDOWN,
	PBENCH_REPORT_FORMAT_SVG,
	PBENCH_REPORT_FORMAT_TEXT,
};

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_BASE */
