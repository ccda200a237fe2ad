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
 * killed at --timeout are skipped), the library's result (samples[].ns_per_iter), hyperfine's
 * (--export-json: one set per command) and Google Benchmark's (one set per run_name; the
 * aggregates are skipped). A pbench comparison keeps summaries, not samples: it adds no set
 * and pbench_samples_note() says what it holds.
 */
struct pbench_samples;

PBENCH_API int pbench_samples_new(struct pbench_samples **out);
/*
 * Read the sets in text (len bytes; name labels them, as a file name would). Returns the
 * number of sets added (0 for a comparison), or -EINVAL (not a number, not valid JSON, a
 * format this does not know: why says where and why), -EILSEQ (a NUL byte), -ENODATA (no
 * samples), -ENOMEM. why may be NULL.
 */
PBENCH_API int pbench_samples_add_text(struct pbench_samples *s, const char *text, size_t len,
				       const char *name, const char *unit, char *why,
				       size_t wlen);
PBENCH_API int pbench_samples_nr(const struct pbench_samples *s);
PBENCH_API const char *pbench_samples_name(const struct pbench_samples *s, int i);
/* "ns" for times, the label given for plain numbers, or NULL. */
PBENCH_API const char *pbench_samples_unit(const struct pbench_samples *s, int i);
/* The values of set i and their number, in the order read. */
PBENCH_API const double *pbench_samples_values(const struct pbench_samples *s, int i,
					       size_t *n);
/* What the last input that held no samples was, or NULL. */
PBENCH_API const char *pbench_samples_note(const struct pbench_samples *s);
PBENCH_API void pbench_samples_free(struct pbench_samples *s);

/*
 * The reports of pbench analyze (samples_report.c): each set's summary (95% intervals) and the
 * first set compared with each other one: Welch's t-test, Mann-Whitney U, the ratio of the
 * means (first / other) with its 99.9% interval and the verdict (pbench_stats_verdict(), same
 * within 1%); two constant sets get a sentence instead of a test. Text as pbench analyze
 * prints it; JSON (schema PBENCH_JSON_SCHEMA): inputs[] with each summary and its samples,
 * comparisons[]; Markdown: a table with a row per set. Errors: -EINVAL (NULL, a set of fewer
 * than 2 samples), -ENODATA (no set), -ENOMEM, -EIO (writing to f failed), and
 * pbench_stats_summary()'s.
 */
PBENCH_API int pbench_samples_write_text(const struct pbench_samples *s, FILE *f);
PBENCH_API int pbench_samples_write_json(const struct pbench_samples *s, FILE *f);
PBENCH_API int pbench_samples_write_markdown(const struct pbench_samples *s, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_SAMPLES */
