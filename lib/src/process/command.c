/* SPDX-License-Identifier: MIT */
/*
 * A command line as argv, split into words as a POSIX shell splits them, without running one:
 * what pbench stat's and pbench compare's commands and their setup, prepare and cleanup are
 * given as (hyperfine's convention: each command one argument), or, with --shell, the line
 * given whole to /bin/sh -c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "process/process.h"

char **pb_argv_dup(char *const *argv)
{
	size_t n = 0;
	char **v;

	while (argv[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		if (!(v[i] = strdup(argv[i]))) {
			while (i--)
				free(v[i]);
			free(v);
			return NULL;
		}
	return v;
}

void pb_argv_free(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

/* One quoted or plain piece of a word into w at *k; p past it, or NULL on an unterminated
 * quote. As sh reads them, without expansion: '...' literally, "..." with \" \\ \$ \` as the
 * character after the backslash, and outside quotes a backslash takes the next character. */
static const char *piece(const char *p, char *w, size_t *k)
{
	char q = *p;

	if (q == '\'' || q == '"') {
		for (p++; *p && *p != q; p++) {
			if (q == '"' && *p == '\\' && p[1] && strchr("\"\\$`", p[1]))
				p++;
			w[(*k)++] = *p;
		}
		return *p ? p + 1 : NULL;
	}
	if (*p == '\\' && p[1])
		p++;
	w[(*k)++] = *p;
	return p + 1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int pbench_command_split(char ***argv, const char *line)
{
	size_t len, n = 0;
	const char *p = line;
	char **v, *w;
	int err = 0;

	if (!argv)
		return -EINVAL;
	*argv = NULL;
	if (!line)
		return -EINVAL;
	len = strlen(line);
	v = calloc(len / 2 + 2, sizeof(*v));
	w = malloc(len + 1);
	if (!v || !w)
		err = -ENOMEM;
	while (!err) {
		size_t k = 0;

		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		while (p && *p && !is_blank(*p))
			p = piece(p, w, &k);
		if (!p) {
			err = -EINVAL;
			break;
		}
		w[k] = '\0';
		if (!(v[n++] = strdup(w)))
			err = -ENOMEM;
	}
	free(w);
	if (!err && !n)
		err = -ENODATA;
	if (err) {
		pb_argv_free(v);
		return err;
	}
	*argv = v;
	return 0;
}

int pbench_command_shell(char ***argv, const char *line)
{
	char **v;

	if (!argv || !line)
		return -EINVAL;
	v = calloc(4, sizeof(*v));
	if (!v || !(v[0] = strdup("/bin/sh")) || !(v[1] = strdup("-c")) ||
	    !(v[2] = strdup(line))) {
		pb_argv_free(v);
		return -ENOMEM;
	}
	*argv = v;
	return 0;
}

int pbench_command_words(char ***argv, const char *line, int shell, const char *what,
			 char *why, size_t len)
{
	int err;

	if (!argv || !line || !what || !why || !len)
		return -EINVAL;
	err = shell ? pbench_command_shell(argv, line) : pbench_command_split(argv, line);
	if (err == -EINVAL)
		snprintf(why, len, "%s '%s' has a quote that is not closed", what, line);
	else if (err == -ENODATA)
		snprintf(why, len, "%s '%s' is empty: give a command to run", what, line);
	else if (err)
		snprintf(why, len, "out of memory");
	else
		why[0] = '\0';
	return err;
}

void pbench_command_free(char **argv)
{
	pb_argv_free(argv);
}

/* The shell operator w is or starts with (the longest first), or NULL. */
static const char *operator_of(const char *w)
{
	static const char *const ops[] = { ">>", "&&", "||", ">", "<", "|", ";" };

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(w, ops[k], strlen(ops[k])))
			return ops[k];
	return NULL;
}

int pbench_command_syntax(char *const *argv, char *buf, size_t len)
{
	if (!argv || !argv[0] || !buf || !len)
		return -EINVAL;
	for (int i = 0; argv[i]; i++) {
		const char *op = operator_of(argv[i]);

		if (!op)
			continue;
		if (!i)
			snprintf(buf, len, "'%s' is shell syntax, but no shell runs this command: "
				 "it is taken for the program's name", argv[i]);
		else
			snprintf(buf, len, "'%s' is shell syntax, but no shell runs this command: "
				 "%s gets %s%s%s as an argument", op, argv[0], strcmp(op, argv[i]) ?
				 "'" : "it", strcmp(op, argv[i]) ? argv[i] : "",
				 strcmp(op, argv[i]) ? "'" : "");
		return 1;
	}
	return 0;
}
