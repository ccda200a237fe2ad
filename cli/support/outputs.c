/* SPDX-License-Identifier: MIT */
/*
 * The outputs of one report (cli_outputs): the formats a caller asked for, each to a file
 * or to stdout, checked as they are given (one format on stdout), opened before anything is
 * measured (two on one file, a path that cannot be written: refused then), each written by the
 * caller's writer and put in place only when complete (the library's pbench_output_*()). What
 * went wrong is kept as one-line messages named by the caller's labels (its option names), for
 * the caller to print.
 * Internal helper: two paths are one file when their links resolve alike, by the library's
 * own walk of a path (pb_path_resolve(), base/base.h: the rule pbench_output_open() follows),
 * so that what is refused here is what the open would do.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "support.h"

#define NFMT (PBENCH_REPORT_FORMAT_TEXT + 1)
#define NOUT (NFMT + 1)			/* the one on stdout, then a file a format */
#define NMSG NOUT

/* What a format is called in a message: "cannot write the JSON 'x.json'". */
static const char *const noun[NFMT] = {
	[PBENCH_REPORT_FORMAT_JSON] = "the JSON",
	[PBENCH_REPORT_FORMAT_CSV] = "the CSV file",
	[PBENCH_REPORT_FORMAT_MARKDOWN] = "the Markdown",
	[PBENCH_REPORT_FORMAT_SVG] = "the plot",
	[PBENCH_REPORT_FORMAT_TEXT] = "the text",
};

struct out_slot {
	int fmt;			/* -1: none */
	char *path, *label;
	struct pbench_output *file;	/* while open */
	int written;			/* the writer finished without an error */
};

struct cli_outputs {
	struct out_slot out[NOUT];	/* [0]: stdout; [1 + fmt]: fmt's file */
	int open;
	int stdout_err;			/* the last error of a write to stdout (never said) */
	int nmsg;
	char *msg[NMSG];
};

static void forget(struct cli_outputs *s)
{
	for (int i = 0; i < s->nmsg; i++)
		free(s->msg[i]);
	s->nmsg = 0;
}

/* One more message of the current call: err, which it returns. */
static int say(struct cli_outputs *s, int err, const char *fmt, ...)
{
	va_list ap;
	char *m;
	int n;

	if (s->nmsg == NMSG)
		return err;
	va_start(ap, fmt);
	n = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (n >= 0)
		s->msg[s->nmsg++] = m;
	return err;
}

int cli_outputs_new(struct cli_outputs **out)
{
	struct cli_outputs *s;

	if (!out)
		return -EINVAL;
	*out = s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (int i = 0; i < NOUT; i++)
		s->out[i].fmt = -1;
	return 0;
}

/* SVG goes to a file named .svg (cli_output_check_name()), said with the label. */
static int svg_named(struct cli_outputs *s, const char *path, const char *label)
{
	char why[8300];

	if (!cli_output_check_name(path, PBENCH_REPORT_FORMAT_SVG, why, sizeof(why)))
		return 0;
	return say(s, -EINVAL, "%s writes SVG: %s", label, why);
}

int cli_outputs_add(struct cli_outputs *s, int fmt, const char *path, const char *label)
{
	struct out_slot *o;
	char *p, *l;

	if (!s || fmt < 0 || fmt >= NFMT || !path)
		return -EINVAL;
	forget(s);
	if (s->open)
		return -EBUSY;
	if (!label)
		label = noun[fmt];
	if (!*path)
		return say(s, -EINVAL, "%s needs a file name, or '-' for stdout", label);
	if (fmt == PBENCH_REPORT_FORMAT_SVG && svg_named(s, path, label))
		return -EINVAL;
	o = !strcmp(path, "-") ? &s->out[0] : &s->out[1 + fmt];
	if (o == &s->out[0] && o->fmt == fmt)
		return 0;	/* that format on stdout already */
	if (o == &s->out[0] && o->fmt >= 0)
		return say(s, -EEXIST, "%s and %s cannot both write to stdout: give one of them a "
			   "file", o->label, label);
	p = strdup(path);
	l = strdup(label);
	if (!p || !l) {
		free(p);
		free(l);
		return -ENOMEM;
	}
	free(o->path);
	free(o->label);
	*o = (struct out_slot){ .fmt = fmt, .path = p, .label = l };
	return 0;
}

int cli_outputs_stdout(const struct cli_outputs *s)
{
	return s ? s->out[0].fmt : -1;
}

int cli_outputs_wants(const struct cli_outputs *s, int fmt)
{
	for (int i = 0; s && fmt == -1 && i < NOUT; i++)
		if (s->out[i].fmt >= 0)
			return 1;
	return s && fmt >= 0 && fmt < NFMT && (s->out[0].fmt == fmt || s->out[1 + fmt].fmt == fmt);
}

int cli_outputs_open(struct cli_outputs *s)
{
	struct pbench_output *file[NOUT];
	const char *path[NOUT];
	int which[2], err;

	if (!s)
		return -EINVAL;
	forget(s);
	if (s->open)
		return -EBUSY;
	for (int i = 0; i < NOUT; i++)
		path[i] = s->out[i].path;
	err = cli_output_open_all(file, path, NOUT, which);
	if (err == -EEXIST && which[1] >= 0)
		return say(s, err, "%s and %s both write to '%s': give each its own file",
			   s->out[which[0]].label, s->out[which[1]].label, path[which[1]]);
	if (err && which[0] >= 0)
		return say(s, err, "cannot write %s '%s': %s", noun[s->out[which[0]].fmt],
			   path[which[0]], pbench_strerror(err));
	if (err)
		return err;
	for (int i = 0; i < NOUT; i++) {
		s->out[i].file = file[i];
		s->out[i].written = 0;
	}
	s->open = 1;
	s->stdout_err = 0;
	return 0;
}

int cli_outputs_write(struct cli_outputs *s, int (*write)(void *arg, int fmt, FILE *f),
		      void *arg)
{
	int first = 0;

	if (!s || !write)
		return -EINVAL;
	forget(s);
	if (!s->open)
		return -EBADF;
	for (int i = 0; i < NOUT; i++) {
		struct out_slot *o = &s->out[i];
		int err = o->file ? write(arg, o->fmt, pbench_output_file(o->file)) : 0;

		o->written = o->file && !err;
		if (err && i == 0)
			s->stdout_err = err;
		else if (err && err != -EPIPE)
			say(s, err, "cannot write %s '%s': %s", noun[o->fmt], o->path,
			    pbench_strerror(err));
		first = first ? first : err;
	}
	return first;
}

int cli_outputs_stdout_error(const struct cli_outputs *s)
{
	return s ? s->stdout_err : -EINVAL;
}

int cli_outputs_close(struct cli_outputs *s, int commit)
{
	int first = 0;

	if (!s)
		return -EINVAL;
	forget(s);
	for (int i = 0; i < NOUT; i++) {
		struct out_slot *o = &s->out[i];
		int err = o->file ? pbench_output_close(o->file, commit && o->written) : 0;

		o->file = NULL;
		if (err && err != -EPIPE)
			say(s, err, "cannot write %s '%s': %s", noun[o->fmt], o->path,
			    pbench_strerror(err));
		first = first ? first : err;
	}
	s->open = 0;
	return first;
}

const char *cli_outputs_message(const struct cli_outputs *s, int i)
{
	return s && i >= 0 && i < s->nmsg ? s->msg[i] : NULL;
}

void cli_outputs_free(struct cli_outputs *s)
{
	if (!s)
		return;
	cli_outputs_close(s, 0);
	forget(s);
	for (int i = 0; i < NOUT; i++) {
		free(s->out[i].path);
		free(s->out[i].label);
	}
	free(s);
}

/* ---- several formats, never two to one file --------------------------------------------- */

/* path as one text for each file, existing or not: its links followed and its directory
 * absolute ("./a", "a" and a link to "a" are one file before any of them exists); path itself
 * where that cannot be done (the open says why). */
static char *file_key(const char *path)
{
	char *r, *dir, *real, *key = NULL, *slash;
	const char *base;

	if (pb_path_resolve(path, &r))
		return strdup(path);
	slash = strrchr(r, '/');
	dir = slash ? strndup(r, slash == r ? 1 : (size_t)(slash - r)) : strdup(".");
	base = slash ? slash + 1 : r;
	if (!dir)
		return r;
	real = realpath(dir, NULL);
	if (real && (key = malloc(strlen(real) + strlen(base) + 2)))
		sprintf(key, "%s/%s", real, base);
	free(real);
	free(dir);
	if (!key)
		return r;
	free(r);
	return key;
}

/* Two paths that would write the same file: the same name (after links, "." and ".."), the
 * same existing regular file, or both stdout. Devices (/dev/null twice) do no harm and are
 * allowed. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ka, *kb;
	int same;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	ka = file_key(a);
	kb = file_key(b);
	same = ka && kb ? !strcmp(ka, kb) : !strcmp(a, b);
	free(ka);
	free(kb);
	if (same)
		return !(stat(a, &sa) == 0 && !S_ISREG(sa.st_mode));
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISREG(sa.st_mode) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_output_open_all(struct pbench_output **outs, const char *const *paths, int n,
			int which[2])
{
	int err = 0;

	if (!outs || !paths || !which || n < 0)
		return -EINVAL;
	which[0] = which[1] = -1;
	for (int i = 0; i < n; i++)
		outs[i] = NULL;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i && paths[i]; k++)
			if (paths[k] && same_file(paths[k], paths[i])) {
				which[0] = k;
				which[1] = i;
				return -EEXIST;
			}
	for (int i = 0; i < n && !err; i++)
		if (paths[i] && (err = pbench_output_open(&outs[i], paths[i])))
			which[0] = i;
	for (int i = 0; i < n && err; i++) {
		pbench_output_close(outs[i], 0);
		outs[i] = NULL;
	}
	return err;
}

int cli_output_check_name(const char *path, int fmt, char *why, size_t len)
{
	const char *base, *dot;
	struct stat st;

	if (!path || !why || !len)
		return -EINVAL;
	*why = 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (fmt != PBENCH_REPORT_FORMAT_SVG || !strcmp(path, "-") ||
	    (dot && !strcasecmp(dot, ".svg")) ||
	    (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return 0;
	snprintf(why, len, "name the file '%.*s.svg', not '%s'",
		 (int)(dot && dot > base ? dot - path : (long)strlen(path)), path, path);
	return -EINVAL;
}
