/* SPDX-License-Identifier: MIT */
/*
 * Prose wrapped at the terminal's width, as git and cargo wrap theirs: every text writer that
 * prints a sentence (a finding's why and fix, an outlier's cause, a note) writes it through
 * here, so that one rule decides where a line breaks. A line breaks only at a space, never
 * inside a word: a command to copy, a path or a URL stays whole (a word longer than the width
 * goes on a line of its own), nor between a number and its unit. Width 0 writes the text as
 * it is, which is what a pipe or a file gets: scripts keep one finding per line. A leaf: it calls only the log (pb_fail()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"

/* The columns s[0..n) takes on a terminal: UTF-8 continuation bytes and ANSI colour
 * sequences ("\033[...m") take none. */
static int columns(const char *s, size_t n)
{
	int cols = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\033' && i + 1 < n && s[i + 1] == '[') {
			i += 2;
			while (i < n && !(s[i] >= '@' && s[i] <= '~'))
				i++;
			continue;
		}
		if ((c & 0xc0) != 0x80)
			cols++;
	}
	return cols;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* A unit s[0..n) that stays on the line of the number before it ("8.13 ms", not "8.13" and
 * "ms" a line apart): the unit, then at most punctuation. */
static int is_unit(const char *s, size_t n)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "MHz", "GHz", "KiB", "MiB",
					     "GiB" };

	while (n && strchr("),;:.", s[n - 1]))
		n--;
	for (size_t k = 0; k < PB_ARRAY_SIZE(units); k++)
		if (strlen(units[k]) == n && !strncmp(s, units[k], n))
			return 1;
	return 0;
}

/* The end of the word at s[i] (a number and its unit are one). */
static size_t word_end(const char *s, size_t n, size_t i)
{
	size_t next;

	while (i < n && !is_space(s[i]))
		i++;
	if (i + 1 < n && s[i] == ' ' && s[i - 1] >= '0' && s[i - 1] <= '9') {
		for (next = i + 1; next < n && !is_space(s[next]);)
			next++;
		if (is_unit(s + i + 1, next - i - 1))
			return next;
	}
	return i;
}

/* One line of text (no '\n' in s[0..n)), broken at spaces. */
static void wrap_line(FILE *f, const char *s, size_t n, int width, int indent)
{
	size_t i = 0;
	int col;

	while (i < n && is_space(s[i]))		/* the line's own indent is kept */
		i++;
	fwrite(s, 1, i, f);
	col = columns(s, i);
	while (i < n) {
		size_t gap = i, word;
		int gw, ww;

		while (i < n && is_space(s[i]))
			i++;
		word = i;
		i = word_end(s, n, i);
		gw = columns(s + gap, word - gap);
		ww = columns(s + word, i - word);
		if (word == i) {		/* trailing spaces: kept only where they fit */
			if (!width || col + gw <= width)
				fwrite(s + gap, 1, i - gap, f);
			break;
		}
		if (width > 0 && col + gw + ww > width && col + gw > indent) {
			/* a break helps only where the word would start past the indent; the
			 * spaces at it are dropped */
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			gap = word;
			gw = 0;
		}
		fwrite(s + gap, 1, i - gap, f);
		col += gw + ww;
	}
}

int pb_format_wrap(FILE *f, const char *text, int width, int indent)
{
	if (!f || !text)
		return pb_fail(-EINVAL, "pb_format_wrap(): %s is NULL", f ? "text" : "f");
	if (width < 0 || indent < 0)
		return pb_fail(-EINVAL, "pb_format_wrap(): %s is %d, want >= 0",
			       width < 0 ? "width" : "indent", width < 0 ? width : indent);
	if (width > 0 && indent > width / 2)	/* a few columns a line would be unreadable */
		indent = width / 2;
	for (const char *s = text;;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		wrap_line(f, s, n, width, indent);
		fputc('\n', f);
		if (!nl || !nl[1])
			break;
		s = nl + 1;
	}
	return ferror(f) ? -EIO : 0;
}

int pb_wrapf(FILE *f, int width, int indent, const char *fmt, ...)
{
	char buf[2048], *p = buf;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf)) {
		p = malloc((size_t)n + 1);
		va_start(ap, fmt);
		if (p) {
			vsnprintf(p, (size_t)n + 1, fmt, ap);
		} else {	/* no memory: the text unwrapped, rather than none */
			vfprintf(f, fmt, ap);
			fputc('\n', f);
		}
		va_end(ap);
		if (!p)
			return ferror(f) ? -EIO : 0;
	}
	rc = pb_format_wrap(f, p, width, indent);
	if (p != buf)
		free(p);
	return rc;
}

FILE *pb_line_open(struct pb_line *l, FILE *f, int width, int indent)
{
	*l = (struct pb_line){ .f = f, .width = width, .indent = indent };
	if (width > 0)
		l->m = open_memstream(&l->buf, &l->len);
	return l->m ? l->m : f;	/* no memory: the line unwrapped, rather than none */
}

/* Each line with its own hanging indent: its leading spaces and hang more. */
static int wrap_hanging(FILE *f, char *text, int width, int hang)
{
	int rc = 0;

	for (char *s = text; *s && !rc;) {
		char *nl = strchr(s, '\n');

		if (nl)
			*nl = '\0';
		rc = pb_format_wrap(f, s, width, (int)strspn(s, " ") + hang);
		s = nl ? nl + 1 : s + strlen(s);
	}
	return rc;
}

int pb_line_close(struct pb_line *l)
{
	int rc = 0;

	if (!l->m)
		return ferror(l->f) ? -EIO : 0;
	if (fclose(l->m) || !l->buf)
		rc = -ENOMEM;
	else if (l->len && l->indent < 0)
		rc = wrap_hanging(l->f, l->buf, l->width, -l->indent);
	else if (l->len)
		rc = pb_format_wrap(l->f, l->buf, l->width, l->indent);
	free(l->buf);
	*l = (struct pb_line){ .f = l->f };
	return rc;
}
