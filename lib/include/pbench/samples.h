/* SPDX-License-Identifier: MIT */
/* pbench/samples.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_SAMPLES
#define PBENCH_H_SAMPLES

#include "output.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Samples from files (samples.c): what pbench analyze summarizes
 *
 * Text is one number per line (blank lines and # comments skipped; unit "ns", "us", "ms" or
 * "s" makes them times in ns, anything else is kept as a label), or JSON: pbench stat's in
 * every mode (a contrast gives two sets, "NAME (unprepared)" and "NAME (prepared)"; runs
 * killed at --timeout are skipped), pbench compare's (one set per command, by its name), the
 * library's result (samples[].ns_per_iter), hyperfine's
 * (--export-json: one set per command) and Google Benchmark's (one set per benchmark name,
 * each repetition a sample, as its compare.py reads it; the aggregates are left out). A pbench comparison keeps summaries, not samples: it adds no set
 * and pbench_samples_note() says what it holds.
 */
struct pbench_samples;

PBENCH_API int pbench_samples_new(struct pbench_samples **out);
/*
 * Read the sets in text (len bytes; name labels them, as a file name would). Returns the
 * number of sets added (0 for a comparison), or -EINVAL (not a number, not valid JSON, a
 * format this does not know, a negative time), -EFBIG (JSON over 16 MiB: it is parsed whole,
 * at 10 times its size in memory or more), -EILSEQ (a NUL byte), -ENODATA (no samples),
 * -ENOMEM; pbench_strerror() of the error says where and why ("data.txt:3: 'x' is not a
 * number").
 */
PBENCH_API int pbench_samples_add_text(struct pbench_samples *s, const char *text, size_t len,
				       const char *name, const char *unit);
/*
 * The same of a file's whole contents (path "-": standard input, named "stdin"; otherwise
 * named by its path). Also -errno of open(2) or read(2), -EISDIR (a directory), -EFBIG (over
 * 64 MiB: not samples); pbench_strerror() of the error says which file and why.
 */
PBENCH_API int pbench_samples_add_file(struct pbench_samples *s, const char *path,
				       const char *unit);
/* Which time of Google Benchmark's JSON the inputs read from now on give: "real_time" (the
 * default) or "cpu_time", as compare.py reports both. -EINVAL for anything else. */
PBENCH_API int pbench_samples_gbench_metric(struct pbench_samples *s, const char *metric);
PBENCH_API int pbench_samples_nr(const struct pbench_samples *s);
/* Set i's name, as it may be printed: control characters, bytes that are not UTF-8 and the
 * bidi and C1 code points of the input are written \xHH or \uHHHH (a backslash \\), so that
 * no file can forge an output line. */
PBENCH_API const char *pbench_samples_name(const struct pbench_samples *s, int i);
/* "ns" for times, the label given for plain numbers, or NULL. */
PBENCH_API const char *pbench_samples_unit(const struct pbench_samples *s, int i);
/* The values of set i and their number, in the order read. */
PBENCH_API const double *pbench_samples_values(const struct pbench_samples *s, int i,
					       size_t *n);
/* How many of set i's values are the times of runs that failed (exited non-zero or were
 * killed), as pbench's JSON marks them (pbench stat's runs, pbench compare's entrants); 0 for
 * other inputs and no such set. Those runs are kept in the values, as stat keeps them in its
 * summary; runs killed at the timeout are not values at all. */
PBENCH_API size_t pbench_samples_failed(const struct pbench_samples *s, int i);
/* What the last input read warns of, or NULL: pbench JSON of a schema this library does not
 * know (not 1 to PBENCH_JSON_SCHEMA) or written by a newer (or unknown) pbench version, read
 * as far as this library knows how. */
PBENCH_API const char *pbench_samples_warning(const struct pbench_samples *s);
/* What the last input that held no samples was, or NULL. */
PBENCH_API const char *pbench_samples_note(const struct pbench_samples *s);
/*
 * A baseline's times (pbench compare --baseline): the file at path, the JSON of pbench compare
 * or pbench stat, read by pbench_samples_add_file(); its one set of times, or the one named
 * name (may be NULL), into *out (malloc'd, ns; the caller frees it) and *n. The set must be
 * times (unit "ns") of two runs at least, none of them failed. warn (warnlen bytes) gets
 * what the file warns of (pbench_samples_warning()) or "": an output, as *out and *n.
 * Errors, pbench_strerror() of the error saying which in a sentence: -EINVAL (path is not a
 * baseline: not pbench's JSON, no times), -ENOMSG (no set named name, or a set that cannot
 * be one), -EIO (the file cannot be read), -ENOMEM.
 */
PBENCH_API int pbench_samples_baseline(const char *path, const char *name, double **out,
				       size_t *n, char *warn, size_t warnlen);

/*
 * What pbench analyze reports: each set's summary (the 95% interval of its mean) and the first
 * set against each other one: Welch's t-test, Mann-Whitney U, the ratio of the means with its
 * interval at confidence, and pbench_stats_verdict()'s verdict with same_pct. Two constant sets
 * get no test (the reports say so in words). Call when the sets are read; again after more are.
 * Errors (pbench_strerror() of the error says which): -EINVAL (confidence outside (0, 1), same_pct < 0, or
 * one set of one value and nothing else: "NAME: a single sample: nothing to summarize (need 2
 * or more)"), -ENODATA (no sets), -ENOMEM, and a set's summary or test error.
 */
PBENCH_API int pbench_samples_analyze(struct pbench_samples *s, double confidence,
				      double same_pct);
/* Set i's summary (out->size set; a smaller, older struct gets its part). -EINVAL: no such
 * set, or not analyzed. */
PBENCH_API int pbench_samples_summary(const struct pbench_samples *s, int i,
				      struct pbench_summary *out);
/* The analysis in text; in JSON (schema PBENCH_JSON_SCHEMA: the host, inputs[] each with its
 * summary and samples, comparisons[]); and in Markdown, a table with a row per set (mean ±
 * standard deviation, median, min, max, CV, and the first set against it: the factor faster
 * or slower, the ratio and its interval). The text is wrapped at text_width columns (0: not
 * wrapped), as every text writer wraps (output.h): a summary's rows continued at their values'
 * column, the comparisons' verdicts 2 columns in. -EINVAL before pbench_samples_analyze() (and
 * for text_width < 0), -ENOMEM, -EIO (writing to f failed). */
PBENCH_API int pbench_samples_write_text(const struct pbench_samples *s, FILE *f,
					 int text_width);
PBENCH_API int pbench_samples_write_json(const struct pbench_samples *s, FILE *f);
PBENCH_API int pbench_samples_write_markdown(const struct pbench_samples *s, FILE *f);
/* The analysis in format fmt (enum pbench_report_format: text, JSON or Markdown): the writer
 * of that name (the text not wrapped). Its errors, or -EINVAL for another fmt. */
PBENCH_API int pbench_samples_write(const struct pbench_samples *s, int fmt, FILE *f);
PBENCH_API void pbench_samples_free(struct pbench_samples *s);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_SAMPLES */
