/* SPDX-License-Identifier: MIT */
/*
 * A parameter scan's writers (issue 38): the table of the points with the fit in words
 * (text), JSON (schema/scan.schema.json, with the host block every document has), CSV and
 * Markdown; pbench_scan_write() picks one, or the SVG of scan_plot.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "scan/scan_inner.h"

static void text_side(const struct pbench_scan *sr, const struct pb_scan_side *sd, FILE *f)
{
	const struct pbench_scan *s = sr;
	char m[32], lo[32], hi[32], line[1024];

	fprintf(f, "  %-24s %12s   %-28s %5s%s\n", "point", "mean", "interval of the mean", "runs",
		sd != sr->side ? "   over the first" : "");
	for (int i = 0; i < s->npoints; i++) {
		const char *name = s->pname[i] ? s->pname[i] : "";
		char iv[80];

		if (!sd->have[i]) {
			fprintf(f, "  %-24s %12s\n", name, "n/a");
			continue;
		}
		snprintf(iv, sizeof(iv), "%s - %s (%.4g%%)", pb_scan_fmt_ns(lo, sizeof(lo), sd->sum[i].ci_lo),
			 pb_scan_fmt_ns(hi, sizeof(hi), sd->sum[i].ci_hi), 100 * sd->sum[i].ci_level);
		fprintf(f, "  %-24s %12s   %-28s %5zu", name, pb_scan_fmt_ns(m, sizeof(m), sd->sum[i].mean),
			iv, sd->sum[i].n);
		if (sd != sr->side && isfinite(sd->ratio[i]))
			fprintf(f, "   %.3fx (%.3f-%.3f)", sd->ratio[i], sd->ratio_lo[i],
				sd->ratio_hi[i]);
		fprintf(f, "\n");
	}
	if (!sd->fitted) {
		fprintf(f, "\nfit: %s\n", s->np == 1 ? "n/a" : "one parameter at a time (n/a with "
			"several)");
		return;
	}
	pb_scan_fit_words(sr, sd, line, sizeof(line));
	fprintf(f, "\n%s\n", line);
	if (sd->fit.model != PBENCH_FIT_MODEL_NONE)
		fprintf(f, "fit: residual %.3g%% of the mean, reduced chi-square %.3g, n^k's power "
			"%.3g (%.3g-%.3g), %zu points\n", sd->fit.residual_pct, sd->fit.chi2_red,
			sd->fit.k, sd->fit.k_lo, sd->fit.k_hi, sd->fit.n);
	if (sd->fit.chi2_red > 10)	/* Birge's ratio: no model's curve goes through the points */
		fprintf(f, "fit: the points stray from every curve %.3g times more than their runs "
			"vary (the reduced chi-square): a step, a drift or another cost, not a growth "
			"a model names\n", sd->fit.chi2_red);
}

static void write_text(const struct pbench_scan *sr, FILE *f)
{
	const struct pbench_scan *s = sr;

	int seq = sr->ci.order == PBENCH_CONTEST_ORDER_SEQUENTIAL;

	fprintf(f, "scan of %s: %d points%s, %ld rounds, the %s %s (seed %llu), %.1f s\n",
		s->np == 1 ? s->p[0].name : "several parameters", s->npoints,
		sr->nsides > 1 ? " for each command" : "", sr->ci.rounds,
		sr->nsides > 1 ? "commands at every point" : "points",
		seq ? "one after the other (--order sequential: a drift bends the curve)" :
		"in a fresh random order each round", (unsigned long long)sr->ci.seed,
		sr->ci.elapsed_s);
	for (int k = 0; k < sr->nsides; k++) {
		if (sr->nsides > 1)
			fprintf(f, "\n%s:", sr->side[k].name);
		fprintf(f, "\n");
		text_side(sr, &sr->side[k], f);
	}
}

static void json_num(FILE *f, const char *key, double v, int comma)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.10g%s", key, v, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json_fit(const struct pbench_scan *sr, const struct pb_scan_side *sd, FILE *f)
{
	const struct pbench_fit *x = &sd->fit;
	char words[1024];

	if (!sd->fitted) {
		fprintf(f, "  \"fit\": null\n");
		return;
	}
	pb_scan_fit_words(sr, sd, words, sizeof(words));
	fprintf(f, "  \"fit\": {\"model\": ");
	json_str(f, pbench_fit_model_name(x->model));
	fprintf(f, ", \"runner_up\": ");
	json_str(f, pbench_fit_model_name(x->runner_up));
	fprintf(f, ", \"inconclusive\": %s, ", x->inconclusive ? "true" : "false");
	json_num(f, "confidence", x->confidence, 1);
	json_num(f, "a_ns", x->a, 1);
	json_num(f, "a_lo_ns", x->a_lo, 1);
	json_num(f, "a_hi_ns", x->a_hi, 1);
	json_num(f, "b_ns", x->b, 1);
	json_num(f, "b_lo_ns", x->b_lo, 1);
	json_num(f, "b_hi_ns", x->b_hi, 1);
	json_num(f, "k", x->k, 1);
	json_num(f, "k_lo", x->k_lo, 1);
	json_num(f, "k_hi", x->k_hi, 1);
	json_num(f, "aicc", x->aicc, 1);
	json_num(f, "evidence_ratio", x->evidence_ratio, 1);
	json_num(f, "residual_pct", x->residual_pct, 1);
	json_num(f, "chi2_red", x->chi2_red, 1);
	json_num(f, "range_needed", x->range_needed, 1);
	fprintf(f, "\"reason\": ");
	if (x->reason)
		json_str(f, x->reason);
	else
		fprintf(f, "null");
	fprintf(f, ", \"words\": ");
	json_str(f, words);
	fprintf(f, "}\n");
}

/* The points of side sd and its fit: "points": [...], "fit": {...} */
static void json_side(const struct pbench_scan *sr, const struct pb_scan_side *sd, FILE *f)
{
	const struct pbench_scan *s = sr;

	fprintf(f, "  \"points\": [\n");
	for (int i = 0; i < s->npoints; i++) {
		const struct pbench_summary *m = &sd->sum[i];

		fprintf(f, "    {\"values\": {");
		for (int k = 0; k < s->np; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_str(f, s->p[k].name);
			fprintf(f, ": %.15g", pbench_scan_value(s, i, k));
		}
		fprintf(f, "}, \"runs\": %zu, ", sd->have[i] ? m->n : 0);
		json_num(f, "mean_ns", sd->have[i] ? m->mean : NAN, 1);
		json_num(f, "median_ns", sd->have[i] ? m->median : NAN, 1);
		json_num(f, "sem_ns", sd->have[i] ? m->sem : NAN, 1);
		json_num(f, "ci_lo_ns", sd->have[i] ? m->ci_lo : NAN, 1);
		json_num(f, "ci_hi_ns", sd->have[i] ? m->ci_hi : NAN, 1);
		json_num(f, "ci_level", sd->have[i] ? m->ci_level : NAN, 1);
		if (sd != sr->side) {
			json_num(f, "ratio", sd->ratio[i], 1);
			json_num(f, "ratio_lo", sd->ratio_lo[i], 1);
			json_num(f, "ratio_hi", sd->ratio_hi[i], 1);
		}
		fprintf(f, "\"outliers\": %zu}%s\n", sd->have[i] ? m->outliers_low_mild +
			m->outliers_low_severe + m->outliers_high_mild + m->outliers_high_severe : 0,
			i + 1 < s->npoints ? "," : "");
	}
	fprintf(f, "  ],\n");
	write_json_fit(sr, sd, f);
}

/* The host block every document has (pb_json_host()), on one line. */
static void write_host(FILE *f)
{
	json_t *h = pb_json_host();
	char *t = h ? json_dumps(h, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	fprintf(f, "%s", t ? t : "null");
	free(t);
	json_decref(h);
}

/* One parameter set's document: "points" and "fit" at the top (stat), or one object of
 * each in "sides" (compare: the first is the one the ratios are over). */
static void write_json(const struct pbench_scan *sr, FILE *f)
{
	const struct pbench_scan *s = sr;

	fprintf(f, "{\n  \"schema\": %d, \"pbench_version\": ", PBENCH_JSON_SCHEMA);
	json_str(f, pbench_version());
	fprintf(f, ", \"document\": \"scan\",\n  \"host\": ");
	write_host(f);
	fprintf(f, ",\n  \"parameters\": [");
	for (int k = 0; k < s->np; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, s->p[k].name);
	}
	fprintf(f, "],\n  \"rounds\": %ld, \"seed\": %llu, \"order\": \"%s\", "
		"\"confidence\": %g,\n", sr->ci.rounds, (unsigned long long)sr->ci.seed,
		pbench_contest_order_name(sr->ci.order), sr->confidence);
	if (sr->nsides == 1) {
		json_side(sr, sr->side, f);
	} else {
		fprintf(f, "  \"sides\": [\n");
		for (int k = 0; k < sr->nsides; k++) {
			fprintf(f, "  {\"name\": ");
			json_str(f, sr->side[k].name);
			fprintf(f, ",\n");
			json_side(sr, &sr->side[k], f);
			fprintf(f, "  }%s\n", k + 1 < sr->nsides ? "," : "");
		}
		fprintf(f, "  ]\n");
	}
	fprintf(f, "}\n");
}

static void write_table(const struct pbench_scan *sr, FILE *f, int md)
{
	const struct pbench_scan *s = sr;
	const char *sep = md ? " | " : ",";
	int cmd = sr->nsides > 1;

	fprintf(f, "%s%s", md ? "| " : "", cmd ? "command" : "");
	fprintf(f, "%s", cmd ? sep : "");
	for (int k = 0; k < s->np; k++)
		fprintf(f, "%s%s", s->p[k].name, sep);
	fprintf(f, "mean_ns%smedian_ns%ssem_ns%sci_lo_ns%sci_hi_ns%sruns%s\n", sep, sep, sep, sep,
		sep, md ? " |" : "");
	for (int k = 0; md && k < s->np + 6 + cmd; k++)
		fprintf(f, "|---%s", k + 1 == s->np + 6 + cmd ? "|\n" : "");
	for (int k = 0; k < sr->nsides; k++) {
		const struct pb_scan_side *sd = &sr->side[k];

		for (int i = 0; i < s->npoints; i++) {
			const struct pbench_summary *m = &sd->sum[i];
			const char *na = md ? "n/a" : "";

			fprintf(f, "%s", md ? "| " : "");
			if (cmd)
				fprintf(f, "%s%s", sd->name, sep);
			for (int p = 0; p < s->np; p++)
				fprintf(f, "%.15g%s", pbench_scan_value(s, i, p), sep);
			if (sd->have[i])
				fprintf(f, "%.6g%s%.6g%s%.4g%s%.6g%s%.6g%s%zu%s\n", m->mean, sep,
					m->median, sep, m->sem, sep, m->ci_lo, sep, m->ci_hi, sep, m->n,
					md ? " |" : "");
			else
				fprintf(f, "%s%s%s%s%s%s%s%s%s%s0%s\n", na, sep, na, sep, na, sep, na, sep,
					na, sep, md ? " |" : "");
		}
	}
	for (int k = 0; md && k < sr->nsides; k++) {
		char words[1024];

		if (!sr->side[k].fitted)
			continue;
		pb_scan_fit_words(sr, &sr->side[k], words, sizeof(words));
		fprintf(f, "\n%s%s%s\n", cmd ? sr->side[k].name : "", cmd ? ": " : "", words);
	}
}


int pbench_scan_write(const struct pbench_scan *s, int fmt, FILE *f)
{
	if (!s || !f)
		return pb_fail(-EINVAL, "%s(): s or f is NULL", __func__);
	if (!s->collected)
		return pb_fail(-ENODATA, "%s(): the scan has not run", __func__);
	switch (fmt) {
	case PBENCH_REPORT_FORMAT_JSON:		write_json(s, f); break;
	case PBENCH_REPORT_FORMAT_CSV:		write_table(s, f, 0); break;
	case PBENCH_REPORT_FORMAT_MARKDOWN:	write_table(s, f, 1); break;
	case PBENCH_REPORT_FORMAT_SVG:
		if (s->np != 1)
			return pb_fail(-EINVAL, "%s(): the SVG draws a scan of one parameter, this one "
				       "has %d", __func__, s->np);
		return pb_scan_svg(s, f);
	case PBENCH_REPORT_FORMAT_TEXT:		write_text(s, f); break;
	default:
		return pb_fail(-EINVAL, "%s(): fmt %d is not a report format", __func__, fmt);
	}
	return pb_stream_end(f);
}
