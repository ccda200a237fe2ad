/* SPDX-License-Identifier: MIT */
/*
 * The text of samples read from files (stats/samples_report.c analyzes them and writes their
 * JSON and Markdown): each set's summary as pbench_summary_write_text() says a summary (this
 * module's report.c), then the comparisons; and the writer of any report format.
 */
#include <errno.h>
#include <stdio.h>

#include "base/base.h"
#include "measure/measure.h"

/* The summaries' rows continue at the values' column (2 + 13 + 1). */
int pbench_samples_write_text(const struct pbench_samples *s, FILE *f, int text_width)
{
	int n = pb_samples_analyzed(s);
	struct pb_line l;
	FILE *g;

	if (!s || !f || !n || text_width < 0)
		return -EINVAL;
	g = pb_line_open(&l, f, text_width, PB_HANG(14));
	for (int i = 0; i < n; i++) {
		struct pbench_summary sum = { .size = sizeof(sum) };
		size_t left_out = pb_samples_left_out(s, i), failed = pbench_samples_failed(s, i);

		if (i)
			fputc('\n', g);
		pbench_samples_summary(s, i, &sum);
		pbench_summary_write_text(&sum, g, pbench_samples_name(s, i),
					  pbench_samples_unit(s, i));
		if (left_out)	/* the rule of pb_run_measured(), said */
			fprintf(g, "  %-13s %zu run%s, %s\n", "left out", left_out,
				left_out == 1 ? "" : "s", PB_RUN_LEFT_OUT);
		if (failed)
			fprintf(g, "  %-13s %zu of the runs exited non-zero or were killed: "
				"their times are of failures\n", "failed", failed);
	}
	pb_line_close(&l);
	pb_samples_write_comparisons(s, text_width, f);
	return pb_stream_end(f);
}

int pbench_samples_write(const struct pbench_samples *s, int fmt, FILE *f)
{
	switch (fmt) {
	case PBENCH_REPORT_FORMAT_JSON:
		return pbench_samples_write_json(s, f);
	case PBENCH_REPORT_FORMAT_MARKDOWN:
		return pbench_samples_write_markdown(s, f);
	case PBENCH_REPORT_FORMAT_TEXT:
		return pbench_samples_write_text(s, f, 0);
	}
	return pb_fail(-EINVAL, "%s(): no report format %d", __func__, fmt);
}
