/* SPDX-License-Identifier: MIT */
/*
 * Formatting measured numbers: never more digits than the measurement supports. The error
 * gets two significant digits (one would round a 0.15 error to 0.1 or 0.2, a 50% swing), and
 * the value is cut at the same decimal place. A leaf: every report, plot and explanation
 * formats through here, and this file calls nothing of the library. Its inverse is here too:
 * the one grammar numbers given by people (options, settings) are read with.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static const struct {
	const char *name;
	double scale;
} time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

/* The largest unit in which |ns| is at least 1. */
static int time_unit_for(double ns)
{
	int u = 0;

	ns = fabs(ns);
	while (u + 1 < (int)PB_ARRAY_SIZE(time_units) && ns >= time_units[u + 1].scale)
		u++;
	return u;
}

int pbench_format_value(char *buf, size_t len, double value, double err, const char *unit)
{
	const char *uname = "";
	int decimals;

	if (unit && !strcmp(unit, "ns")) {
		int u = time_unit_for(value);

		value /= time_units[u].scale;
		err /= time_units[u].scale;
		uname = time_units[u].name;
	} else if (unit && *unit) {
		uname = unit;
	}
	if (!isfinite(value))
		return snprintf(buf, len, "%g%s%s", value, *uname ? " " : "", uname);
	if (!(err > 0) || !isfinite(err))
		return snprintf(buf, len, "%.6g%s%s", value, *uname ? " " : "", uname);
	/* An error far beyond the value, or magnitudes fixed notation would print in hundreds of
	 * digits: significant digits instead of rounding the value to the error's place. */
	if (err > 10 * fabs(value) || fabs(value) >= 1e15 || err >= 1e15)
		return snprintf(buf, len, "%.3g ± %.2g%s%s", value, err, *uname ? " " : "", uname);
	/* Decimal places that keep 2 significant digits of err. Above the units digit, round
	 * both to that power of ten instead of printing an exponent: "1230 ± 570". */
	decimals = 1 - (int)floor(log10(err));
	if (decimals < 0) {
		double scale = pow(10, -decimals);

		value = round(value / scale) * scale;
		err = round(err / scale) * scale;
		decimals = 0;
	}
	if (decimals > 12)
		decimals = 12;
	return snprintf(buf, len, "%.*f ± %.*f%s%s", decimals, value, decimals, err,
			*uname ? " " : "", uname);
}

int pbench_format_ns(char *buf, size_t len, double ns, int digits)
{
	int u = time_unit_for(ns), decimals;
	double v = ns / time_units[u].scale;

	if (digits < 1)
		digits = 1;
	if (digits > 17)
		digits = 17;
	/* Fixed notation: "123 us", never "1.2e+02 us"; digits beyond the integer part are
	 * not invented as zeros either, they are simply not printed. */
	decimals = v != 0 && isfinite(v) ? digits - 1 - (int)floor(log10(fabs(v))) : digits - 1;
	if (decimals < 0)
		decimals = 0;
	return snprintf(buf, len, "%.*f %s", decimals, v, time_units[u].name);
}

const char *pb_format_pct(char *buf, size_t len, double pct, int digits)
{
	if (!isfinite(pct))
		snprintf(buf, len, "n/a");
	else if (fabs(pct) >= 1e6)
		snprintf(buf, len, "%.3g%%", pct);
	else if (digits >= 0)
		snprintf(buf, len, "%.*f%%", digits, pct);
	else if (fabs(pct) >= 10)
		snprintf(buf, len, "%.0f%%", pct);
	else if (fabs(pct) >= 1)
		snprintf(buf, len, "%.1f%%", pct);
	else if (fabs(pct) >= 0.001)
		snprintf(buf, len, "%.2g%%", pct);
	else
		snprintf(buf, len, "%.4f%%", pct);
	return buf;
}

/* ---- commands as a shell would take them back ------------------------------------------------- */

/* Characters a POSIX shell reads literally outside quotes. */
static int shell_safe(const char *a)
{
	if (!*a)
		return 0;
	for (; *a; a++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_@%+=:,./-", *a))
			return 0;
	return 1;
}

size_t pb_shell_quote(char *buf, size_t len, char *const *argv)
{
	size_t n = 0;

#define PUT(c) do { if (n + 1 < len) buf[n] = (c); n++; } while (0)
	for (char *const *a = argv; a && *a; a++) {
		if (a != argv)
			PUT(' ');
		if (shell_safe(*a)) {
			for (const char *p = *a; *p; p++)
				PUT(*p);
			continue;
		}
		PUT('\'');
		for (const char *p = *a; *p; p++) {
			if (*p == '\'') {	/* end the quote, an escaped quote, quote again */
				PUT('\'');
				PUT('\\');
				PUT('\'');
			}
			PUT(*p);
		}
		PUT('\'');
	}
#undef PUT
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

/* A count as perf stat prints it: grouped by thousands ("1,234,567"), two decimals below 100. */
void pb_format_count(char *buf, size_t len, double v)
{
	char raw[64];
	size_t n, k = 0, lead;

	if (v < 100) {
		snprintf(buf, len, "%.2f", v);
		return;
	}
	snprintf(raw, sizeof(raw), "%.0f", v);
	n = strlen(raw);
	lead = n % 3 ? n % 3 : 3;
	for (size_t i = 0; i < n && k + 2 < len; i++) {
		if (i && (i - lead) % 3 == 0 && i >= lead)
			buf[k++] = ',';
		buf[k++] = raw[i];
	}
	buf[k] = 0;
}

const char *pb_format_figure(char *buf, size_t len, double v, const char *unit)
{
	const char *sp = unit && *unit ? " " : "", *u = unit ? unit : "";
	double a = fabs(v);
	char num[64];

	if (!isfinite(v)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (unit && !strcmp(unit, "ns")) {
		pbench_format_ns(buf, len, v, 4);
		return buf;
	}
	if (a == 0) {
		snprintf(num, sizeof(num), "0");
	} else if (a >= 1e15 || a < 1e-9) {
		snprintf(num, sizeof(num), "%.4g", v);
	} else if (a < 999.5 && a == floor(a)) {	/* a whole number: no decimals invented */
		snprintf(num, sizeof(num), "%.0f", v);
	} else if (a >= 999.5) {	/* rounds to 1,000 or more */
		pb_format_count(num + 1, sizeof(num) - 1, a);
		num[0] = '-';
		memmove(num, v < 0 ? num : num + 1, strlen(num + 1) + (v < 0 ? 2 : 1));
	} else {
		int d = 3 - (int)floor(log10(a));

		if (d < 0)
			d = 0;
		snprintf(num, sizeof(num), "%.*f", d, v);
		/* 999.96 at 1 decimal is "1000.0": the rounding carried, one decimal less */
		if (fabs(strtod(num, NULL)) >= pow(10, (int)floor(log10(a)) + 1) && d > 0)
			snprintf(num, sizeof(num), "%.*f", d - 1, v);
	}
	snprintf(buf, len, "%s%s%s", num, sp, u);
	return buf;
}

/* ---- text as it may be printed -------------------------------------------------------------- */

/* A name (read from a file, or from a store) as it may be printed (pb_text_show(), log.c).
 * NULL: out of memory. */
char *pb_text_shown(const char *name)
{
	size_t n = strlen(name) * 6 + 1;
	char *out = malloc(n);

	if (out)
		pb_text_show(out, n, name, 1);
	return out;
}

const char *pb_format_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "n/a");
	else if (p < PB_P_TINY)
		snprintf(buf, len, "< %g", PB_P_TINY);
	else
		snprintf(buf, len, "%.2g", p);
	return buf;
}

/* ---- Markdown ----------------------------------------------------------------------------------- */

double pb_md_time_unit(double ns, const char **name)
{
	int u = isfinite(ns) ? time_unit_for(ns) : 0;

	*name = time_units[u].name;
	return time_units[u].scale;
}

void pb_md_code(FILE *f, const char *s)
{
	/* A backtick inside is fenced by two; a pipe would end the table's cell. */
	const char *fence = strchr(s, '`') ? "``" : "`";

	fprintf(f, "%s%s", fence, *fence && strchr(s, '`') ? " " : "");
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fprintf(f, "%s%s", strlen(fence) == 2 ? " " : "", fence);
}

void pb_md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\*_`[]<>", *s))
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

int pb_md_decimals(double err)
{
	int d;

	if (!(err > 0) || !isfinite(err))
		return 3;
	d = 1 - (int)floor(log10(err));
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

const char *pb_format_factor(char *buf, size_t len, double f)
{
	if (!isfinite(f) || f <= 0)
		snprintf(buf, len, "n/a");
	else if (f < 1.1)	/* 1.003x, not "1.00x" for a difference of 0.3% */
		snprintf(buf, len, "%.3fx", f);
	else if (f < 10)
		snprintf(buf, len, "%.2fx", f);
	else if (f < 100)
		snprintf(buf, len, "%.1fx", f);
	else
		snprintf(buf, len, "%.0fx", f);
	return buf;
}

void pb_csv_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The grammar of pbench_format_parse(): [+-]digits[.digits][e[+-]digits], nothing before or
 * after (no spaces, no hex, no inf or nan), with a trailing '%' only where the caller reads a
 * percentage. strtod does the conversion once the text is known to be of that form.
 */
int pbench_format_parse(const char *s, unsigned flags, double *out)
{
	const char *p = s;
	size_t len;
	char *end;
	double v;
	int digits = 0;

	if (!s || !*s || !out)
		return -EINVAL;
	len = strlen(s);
	if ((flags & PBENCH_FORMAT_PARSE_PCT) && s[len - 1] == '%')
		len--;
	if (p < s + len && (*p == '+' || *p == '-'))
		p++;
	for (; p < s + len && isdigit((unsigned char)*p); p++)
		digits++;
	if (p < s + len && *p == '.')
		for (p++; p < s + len && isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return -EINVAL;
	if (p < s + len && (*p == 'e' || *p == 'E')) {
		const char *e = ++p;

		if (p < s + len && (*p == '+' || *p == '-'))
			p++;
		e = p;
		while (p < s + len && isdigit((unsigned char)*p))
			p++;
		if (p == e)
			return -EINVAL;
	}
	if (p != s + len)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + len || !isfinite(v) || (errno == ERANGE && v != 0))
		return -ERANGE;
	if ((flags & PBENCH_FORMAT_PARSE_INT) && v != floor(v))
		return -EINVAL;
	*out = v;
	return 0;
}

