/* SPDX-License-Identifier: MIT */
/*
 * A command line as argv, split into words as a POSIX shell splits them, without running one:
 * what pbench stat's and pbench compare's commands and their setup, prepare and cleanup are
 * given as (hyperfine's convention: each command one argument), or, with --shell, the line
 * given whole to /bin/sh -c. And a command found as execvp would find it, before anything
 * runs: its file, its #! interpreter, and why it cannot run in words.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

void pbench_command_free(char **argv)
{
	pb_argv_free(argv);
}

int pbench_command_interp(const char *path, char *interp, size_t len)
{
	char buf[256];
	ssize_t n;
	size_t k;
	int fd;

	if (!path || !interp || !len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	for (k = 2; buf[k] == ' ' || buf[k] == '\t'; k++)
		;
	n = (ssize_t)strcspn(buf + k, " \t\n");
	if (!n)
		return 0;
	snprintf(interp, len, "%.*s", (int)n, buf + k);
	return 1;
}

/* A script whose #! interpreter is missing: exec would say ENOENT, which reads as "no such
 * command" for a command that is right there. */
static int check_interp(const char *path)
{
	char interp[256];
	struct stat st;

	if (pbench_command_interp(path, interp, sizeof(interp)) != 1)
		return 0;
	if (stat(interp, &st) < 0 || S_ISDIR(st.st_mode) || access(interp, X_OK) < 0)
		return -PBENCH_EBAD_INTERP;
	return 0;
}

/* Find cmd as execvp would; path gets the file to exec. */
int pbench_command_resolve(const char *cmd, char *path, size_t len)
{
	const char *dirs, *p;
	struct stat st;
	int saw_eacces = 0;

	if (!cmd || !*cmd)
		return -PBENCH_ENOT_FOUND;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return -PBENCH_ENOT_FOUND;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return -PBENCH_ENOT_EXEC;
		snprintf(path, len, "%s", cmd);
		return check_interp(path);
	}
	dirs = getenv("PATH");
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (p = dirs;; p++) {
		const char *end = strchrnul(p, ':');
		int n = end == p ? snprintf(path, len, "./%s", cmd)
				 : snprintf(path, len, "%.*s/%s", (int)(end - p), p, cmd);

		if (n > 0 && (size_t)n < len && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return check_interp(path);
			saw_eacces = 1;
		}
		if (!*end)
			break;
		p = end;
	}
	return saw_eacces ? -PBENCH_ENOT_EXEC : -PBENCH_ENOT_FOUND;
}

int pbench_command_explain(const char *cmd, int err, char *buf, size_t len)
{
	char path[4096], interp[256];

	if (!cmd || !buf || !len)
		return -EINVAL;
	switch (-err) {
	case PBENCH_ENOT_FOUND:
		snprintf(buf, len, "command '%s' not found", cmd);
		return 1;
	case PBENCH_ENOT_EXEC:
		snprintf(buf, len, "command '%s' cannot be executed (not an executable file, or "
			 "no permission)", cmd);
		return 1;
	case PBENCH_EBAD_INTERP:
		/* the #! line read again: the file may have changed since err was found */
		if (pbench_command_resolve(cmd, path, sizeof(path)) == -PBENCH_EBAD_INTERP &&
		    pbench_command_interp(path, interp, sizeof(interp)) == 1)
			snprintf(buf, len, "command '%s' cannot run: its interpreter '%s' (its #! "
				 "line) is not found or not executable", cmd, interp);
		else
			snprintf(buf, len, "command '%s' cannot run: its interpreter or dynamic "
				 "loader is missing", cmd);
		return 1;
	}
	return 0;
}

int pb_command_copy(char *const *argv, char ***out, const char *what)
{
	char path[4096];
	int err;

	*out = NULL;
	if (!argv)
		return 0;
	if (!argv[0])
		return pb_fail_msg(-EINVAL, "the %s command is empty", what);
	err = pbench_command_resolve(argv[0], path, sizeof(path));
	if (err)
		return pb_fail_msg(err, "the %s command '%s': %s", what, argv[0],
				   pbench_strerror(err));
	*out = pb_argv_dup(argv);
	return *out ? 0 : pb_fail_msg(-ENOMEM, "out of memory");
}
