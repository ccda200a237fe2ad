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

/* The figure's fit and the caches among the points (of the time, and of the figure). */
static void text_extra(const struct pbench_scan *s, const struct pb_scan_side *sd, FILE *f)
{
	char line[1024];

	if (s->figure && s->np == 1) {
		pb_scan_fig_fit_words(s, sd, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (s->ncache)
		fprintf(f, "\ncaches of cpu0 (sysfs) among the points of %s, in bytes:\n",
			s->p[s->bytes_k].name);
	for (int c = 0; c < s->ncache; c++)
		for (int fig = 0; fig <= (s->figure ? 1 : 0); fig++) {
			pb_scan_cache_words(s, sd, c, fig, line, sizeof(line));
			if (fig && !strstr(line, "leaves it"))
				break;	/* outside the points: said once */
			fprintf(f, "  %s\n", line);
		}
}

static void text_side(const struct pbench_scan *sr, const struct pb_scan_side *sd, FILE *f)
{
	const struct pbench_scan *s = sr;
	char m[32], lo[32], hi[32], line[1024];

	fprintf(f, "  %-24s %12s   %-28s %5s", "point", "mean", "interval of the mean", "runs");
	if (s->own_stops)
		fprintf(f, s->figure ? "   %-12s" : "   %s", "stopped by");
	if (s->figure)
		fprintf(f, "   %14.14s a run (interval)", s->figure);
	fprintf(f, "%s\n", sd != sr->side ? "   over the first" : "");
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
		if (s->own_stops) {
			char st[32];

			fprintf(f, s->figure ? "   %-12s" : "   %s",
				pb_scan_stop_words(s, sd, i, st, sizeof(st)));
		}
		if (s->figure && sd->fig_have[i])
			fprintf(f, "   %14.6g (%.4g - %.4g)", sd->fig[i].mean, sd->fig[i].ci_lo,
				sd->fig[i].ci_hi);
		else if (s->figure)
			fprintf(f, "   %14s", "n/a");
		if (sd != sr->side && isfinite(sd->ratio[i]))
			fprintf(f, "   %.3fx (%.3f-%.3f)", sd->ratio[i], sd->ratio_lo[i],
				sd->ratio_hi[i]);
		fprintf(f, "\n");
	}
	if (!sd->fitted) {
		fprintf(f, "\nfit: %s\n", s->np == 1 ? "n/a" : "one parameter at a time (n/a with "
			"several)");
		text_extra(sr, sd, f);
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
	text_extra(sr, sd, f);
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

/* The figure's fit and the caches: "figure_fit": {...}, "caches": [...], (only with them) */
static void json_extra(const struct pbench_scan *s, const struct pb_scan_side *sd, FILE *f)
{
	const struct pbench_fit *x = &sd->fig_fit;
	char words[1024];

	if (s->figure && s->np == 1) {
		pb_scan_fig_fit_words(s, sd, words, sizeof(words));
		fprintf(f, "  \"figure_fit\": {\"model\": ");
		json_str(f, sd->fig_fitted ? pbench_fit_model_name(x->model) : "none");
		fprintf(f, ", \"runner_up\": ");
		json_str(f, sd->fig_fitted ? pbench_fit_model_name(x->runner_up) : "none");
		fprintf(f, ", \"inconclusive\": %s, ", sd->fig_fitted && x->inconclusive ? "true" :
			"false");
		json_num(f, "a", sd->fig_fitted ? x->a : NAN, 1);
		json_num(f, "b", sd->fig_fitted ? x->b : NAN, 1);
		json_num(f, "b_lo", sd->fig_fitted ? x->b_lo : NAN, 1);
		json_num(f, "b_hi", sd->fig_fitted ? x->b_hi : NAN, 1);
		json_num(f, "evidence_ratio", sd->fig_fitted ? x->evidence_ratio : NAN, 1);
		fprintf(f, "\"words\": ");
		json_str(f, words);
		fprintf(f, "},\n");
	}
	if (!s->ncache)
		return;
	fprintf(f, "  \"caches\": [\n");
	for (int c = 0; c < s->ncache; c++) {
		fprintf(f, "    {\"name\": \"%s\", \"level\": %d, \"llc\": %s, \"bytes\": %.0f",
			s->cache[c].name, s->cache[c].level, s->cache[c].llc ? "true" : "false",
			s->cache[c].bytes);
		for (int fig = 0; fig <= (s->figure ? 1 : 0); fig++) {
			double r, lo, hi;
			int i, j, brk = pb_scan_cache_break(s, sd, c, fig, &i, &j, &r, &lo, &hi);
			const char *pre = fig ? "figure_" : "time_";

			if (!fig) {
				fprintf(f, ", ");
				json_num(f, "below", i >= 0 ? pbench_scan_value(s, i, s->bytes_k) : NAN, 1);
				json_num(f, "above", j >= 0 ? pbench_scan_value(s, j, s->bytes_k) : NAN, 0);
			}
			char key[32];

			fprintf(f, ", ");
			snprintf(key, sizeof(key), "%sratio", pre);
			json_num(f, key, r, 1);
			snprintf(key, sizeof(key), "%sratio_lo", pre);
			json_num(f, key, lo, 1);
			snprintf(key, sizeof(key), "%sratio_hi", pre);
			json_num(f, key, hi, 1);
			fprintf(f, "\"%sbreak\": %s", pre, brk ? "true" : "false");
		}
		fprintf(f, "}%s\n", c + 1 < s->ncache ? "," : "");
	}
	fprintf(f, "  ],\n");
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
		if (s->own_stops)
			fprintf(f, "\"stopped\": \"%s\", ", pb_scan_stop_name(sd->stopped[i]));
		if (s->figure) {
			const struct pbench_summary *g = &sd->fig[i];
			int h = sd->fig_have[i];

			json_num(f, "figure_mean", h ? g->mean : NAN, 1);
			json_num(f, "figure_sem", h ? g->sem : NAN, 1);
			json_num(f, "figure_ci_lo", h ? g->ci_lo : NAN, 1);
			json_num(f, "figure_ci_hi", h ? g->ci_hi : NAN, 1);
			fprintf(f, "\"figure_runs\": %zu, ", h ? g->n : 0);
		}
		fprintf(f, "\"outliers\": %zu}%s\n", sd->have[i] ? m->outliers_low_mild +
			m->outliers_low_severe + m->outliers_high_mild + m->outliers_high_severe : 0,
			i + 1 < s->npoints ? "," : "");
	}
	fprintf(f, "  ],\n");
	json_extra(sr, sd, f);
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
	if (sr->figure) {
		fprintf(f, "  \"figure\": ");
		json_str(f, sr->figure);
		fprintf(f, ",\n");
	}
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
	int cmd = sr->nsides > 1, fcols = (s->figure ? 2 : 0) + (s->own_stops ? 1 : 0);

	fprintf(f, "%s%s", md ? "| " : "", cmd ? "command" : "");
	fprintf(f, "%s", cmd ? sep : "");
	for (int k = 0; k < s->np; k++)
		fprintf(f, "%s%s", s->p[k].name, sep);
	fprintf(f, "mean_ns%smedian_ns%ssem_ns%sci_lo_ns%sci_hi_ns%sruns", sep, sep, sep, sep, sep);
	if (s->figure)
		fprintf(f, "%s%s_mean%s%s_sem", sep, s->figure, sep, s->figure);
	if (s->own_stops)
		fprintf(f, "%sstopped", sep);
	fprintf(f, "%s\n", md ? " |" : "");
	for (int k = 0; md && k < s->np + 6 + cmd + fcols; k++)
		fprintf(f, "|---%s", k + 1 == s->np + 6 + cmd + fcols ? "|\n" : "");
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
				fprintf(f, "%.6g%s%.6g%s%.4g%s%.6g%s%.6g%s%zu", m->mean, sep,
					m->median, sep, m->sem, sep, m->ci_lo, sep, m->ci_hi, sep, m->n);
			else
				fprintf(f, "%s%s%s%s%s%s%s%s%s%s0", na, sep, na, sep, na, sep, na, sep,
					na, sep);
			if (s->figure && sd->fig_have[i])
				fprintf(f, "%s%.6g%s%.4g", sep, sd->fig[i].mean, sep, sd->fig[i].sem);
			else if (s->figure)
				fprintf(f, "%s%s%s%s", sep, na, sep, na);
			if (s->own_stops)
				fprintf(f, "%s%s", sep, pb_scan_stop_name(sd->stopped[i]));
			fprintf(f, "%s\n", md ? " |" : "");
		}
	}
	for (int k = 0; md && k < sr->nsides; k++) {
		char words[1024];

		if (!sr->side[k].fitted)
			continue;
		pb_scan_fit_words(sr, &sr->side[k], words, sizeof(words));
		fprintf(f, "\n%s%s%s\n", cmd ? sr->side[k].name : "", cmd ? ": " : "", words);
		if (s->figure) {
			pb_scan_fig_fit_words(sr, &sr->side[k], words, sizeof(words));
			fprintf(f, "\n%s%s%s\n", cmd ? sr->side[k].name : "", cmd ? ": " : "", words);
		}
		for (int c = 0; c < s->ncache; c++)
			for (int fig = 0; fig <= (s->figure ? 1 : 0); fig++) {
				pb_scan_cache_words(sr, &sr->side[k], c, fig, words, sizeof(words));
				if (fig && !strstr(words, "leaves it"))
					break;
				fprintf(f, "%s- %s\n", c || fig ? "" : "\n", words);
			}
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
