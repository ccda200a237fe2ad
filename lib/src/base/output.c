/* SPDX-License-Identifier: MIT */
/*
 * Output files written whole or not at all. A regular file (or a path that does not exist
 * yet) is written to an unnamed O_TMPFILE in the same directory, given a name only when the
 * report is complete and renamed over the target: until then, and after any failure, an old
 * file is exactly as it was and nothing new is in the directory. Anything else (a device, a
 * FIFO, a terminal, a socket, "-") is written to directly and never truncated or removed. A
 * writable file in a directory pbench may not write to is written to an unnamed temporary file
 * elsewhere and copied over the file once complete: truncated then, never before. So is a
 * file with more than one (hard) link, so that every name of it gets the new report: a rename
 * would give the path a new inode and leave the other names the old data.
 * The only path this file ever removes is the temporary name it made itself a moment before,
 * when the rename that should consume it fails (or, without O_TMPFILE, its own mkostemp file).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "base/base.h"

#define MAX_LINKS 40		/* symlinks followed before giving up, as the kernel's ELOOP */

struct pbench_output {
	FILE *f;
	int kind;		/* OUT_STDOUT, OUT_DIRECT or OUT_WHOLE */
	int nofollow;		/* O_NOFOLLOW: target is no link (but /proc's to a pipe or tty) */
	int named;		/* OUT_WHOLE: tmp already has a name in the directory */
	char *target;		/* OUT_WHOLE: the regular file (symlinks resolved) */
	char *tmp;		/* OUT_WHOLE: the temporary's name once it has one */
};

/* OUT_COPY: a writable file in a directory pbench cannot write: the report goes to an
 * unnamed temporary file elsewhere and is copied over the file only when complete. */
enum { OUT_STDOUT, OUT_DIRECT, OUT_WHOLE, OUT_COPY };

/* dir and base of path: "a/b" -> "a", "b"; "b" -> ".", "b". The caller frees *dir. */
static int split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*dir = strdup(".");
		*base = path;
	} else {
		*dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
		*base = slash + 1;
	}
	return *dir ? 0 : -ENOMEM;
}

/* The kernel's protected_symlinks rule, kept by pbench itself whatever fs.protected_symlinks
 * says: a link in a sticky, world-writable directory (/tmp) is followed only when its owner
 * is the follower or the directory's owner. Anyone may plant a link there; root following
 * it would write where the planter chose. */
static int link_refused(const char *dir, const char *link, const struct stat *ls)
{
	struct stat ds;

	if (stat(dir, &ds) < 0 || !(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) ||
	    ls->st_uid == geteuid() || ls->st_uid == ds.st_uid)
		return 0;
	return pb_fail(-EACCES, "'%s' is a link owned by uid %u in the sticky directory '%s': "
		       "pbench does not follow it (the kernel's protected_symlinks rule); remove "
		       "it or write elsewhere", link, (unsigned)ls->st_uid, dir);
}

/* *done += "/" name (no slash after "/" or before the first name of a relative path), or one
 * level up for "..": *done has no link in it, so its parent is what its text says. */
static int path_push(char **done, size_t *len, const char *name, size_t n)
{
	char *p = *done;

	if (n == 2 && !memcmp(name, "..", 2) && *len && strcmp(p, "/") && strcmp(p, "..") &&
	    (*len < 3 || strcmp(p + *len - 3, "/.."))) {
		char *slash = strrchr(p, '/');

		*len = !slash ? 0 : slash == p ? 1 : (size_t)(slash - p);
		p[*len] = 0;
		return 0;
	}
	p = realloc(p, *len + n + 2);
	if (!p)
		return -ENOMEM;
	*done = p;
	if (*len && p[*len - 1] != '/')
		p[(*len)++] = '/';
	memcpy(p + *len, name, n);
	*len += n;
	p[*len] = 0;
	return 0;
}

/* A link of /proc to a pipe, a terminal, a socket (/dev/stdout's /proc/self/fd/1): its text
 * ("pipe:[123]") names nothing, the kernel's open follows it. /proc is not a shared
 * directory. */
static int proc_device(const char *path)
{
	struct statfs fs;
	struct stat st;
	const char *base;
	char *dir;
	int yes;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode) || split_path(path, &dir, &base))
		return 0;
	yes = statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC && stat(path, &st) == 0 &&
	      !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
	free(dir);
	return yes;
}

int pb_path_resolve(const char *path, char **out)
{
	char *done, *todo = strdup(path), *dir;
	size_t len, at = 0;
	int hops = 0, err = 0;

	*out = NULL;
	done = strdup(path[0] == '/' ? "/" : "");
	if (!todo || !done) {
		free(todo);
		free(done);
		return -ENOMEM;
	}
	len = strlen(done);
	while (!err && todo[at]) {
		char link[PATH_MAX], *more;
		struct stat ls;
		size_t n;
		ssize_t r;

		while (todo[at] == '/')
			at++;
		n = strcspn(todo + at, "/");
		if (!n)
			break;
		if (n == 1 && todo[at] == '.') {
			at++;
			continue;
		}
		if ((err = path_push(&done, &len, todo + at, n)))
			break;
		at += n;
		if (lstat(done, &ls) < 0) {
			/* Missing (or not to be looked at): the rest as it is, for the open to
			 * create or to fail on with its own error. */
			at += strspn(todo + at, "/");
			if (todo[at])
				err = path_push(&done, &len, todo + at, strlen(todo + at));
			break;
		}
		if (!S_ISLNK(ls.st_mode))
			continue;
		if (!todo[at] && proc_device(done))
			break;	/* the kernel's own link: O_NOFOLLOW is not used on it */
		/* A link: its directory is done without its last name. */
		dir = strndup(done, len - n > 1 ? len - n - 1 : len - n);
		if (!dir) {
			err = -ENOMEM;
			break;
		}
		err = link_refused(*dir ? dir : ".", done, &ls);
		free(dir);
		if (!err && ++hops > MAX_LINKS)
			err = pb_fail(-ELOOP, "'%s': more than %d symbolic links to follow", path,
				      MAX_LINKS);
		if (!err && (r = readlink(done, link, sizeof(link) - 1)) < 0)
			err = -errno;
		if (err)
			break;
		link[r] = 0;
		more = malloc((size_t)r + strlen(todo + at) + 1);
		if (!more) {
			err = -ENOMEM;
			break;
		}
		sprintf(more, "%s%s", link, todo + at);	/* the link's text, then what was left */
		free(todo);
		todo = more;
		at = 0;
		len = link[0] == '/' ? 1 : len - n > 1 ? len - n - 1 : len - n;
		if (link[0] == '/')
			done[0] = '/';
		done[len] = 0;
	}
	/* "." or "a/.." is "."; "dir/" keeps its slash (a file there is an error) */
	if (!err && (!len || (*todo && todo[strlen(todo) - 1] == '/' && strcmp(done, "/"))))
		err = path_push(&done, &len, len ? "" : ".", len ? 0 : 1);
	free(todo);
	if (err) {
		free(done);
		return err;
	}
	*out = done;
	return 0;
}

/* How long a FIFO may go without a reader before an output to it is refused, in ms. */
#define FIFO_WAIT_MS 1000

/* Opened without blocking: a FIFO no program reads would hold a plain open forever, without a
 * word. ENXIO (no reader yet) is tried again for FIFO_WAIT_MS, then said as -ENXIO; the stream
 * then blocks as any file's. */
static int open_direct(struct pbench_output *o, const char *path)
{
	int fd, flags;

	for (int waited = 0;; waited += 10) {
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | o->nofollow);
		if (fd >= 0 || errno != ENXIO || waited >= FIFO_WAIT_MS)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	if (fd < 0 && errno == ENXIO)
		return pb_fail(-ENXIO, "'%s' is a FIFO that no program read in %d ms: start its "
			       "reader first", path, FIFO_WAIT_MS);
	if (fd < 0)
		return -errno;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		close(fd);
		return -errno;
	}
	o->kind = OUT_DIRECT;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

/* The unnamed file in the target's directory, with the old file's mode where there is one. */
static int open_whole(struct pbench_output *o, const struct stat *old)
{
	const char *base;
	char *dir;
	int fd, err = split_path(o->target, &dir, &base);

	if (err)
		return err;
	if (!*base) {
		free(dir);
		return -EISDIR;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* No O_TMPFILE on this filesystem: a named temporary of our own instead. */
		o->tmp = malloc(strlen(dir) + strlen(base) + 32);
		if (!o->tmp) {
			free(dir);
			return -ENOMEM;
		}
		sprintf(o->tmp, "%s/.%s.pbench-XXXXXX", dir, base);
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd >= 0) {
			mode_t mask = umask(0);

			umask(mask);
			o->named = 1;
			fchmod(fd, 0666 & ~mask);
		}
	}
	err = fd < 0 ? -errno : 0;
	free(dir);
	if (err)
		return err;
	if (old) {
		fchmod(fd, old->st_mode & 07777);
		if (geteuid() == 0 && (old->st_uid != 0 || old->st_gid != 0) &&
		    fchown(fd, old->st_uid, old->st_gid) < 0)
			pb_log(PBENCH_LOG_DEBUG, "output: cannot keep the owner of '%s': %s",
			       o->target, strerror(errno));
	}
	o->kind = OUT_WHOLE;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

int pbench_output_open(struct pbench_output **out, const char *path)
{
	struct pbench_output *o;
	struct stat st;
	int err, exists;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path || !*path)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		o->kind = OUT_STDOUT;
		o->f = stdout;
		*out = o;
		return 0;
	}
	/* Every link on the path followed here, as the kernel's protected_symlinks rule
	 * allows: what is opened then is no link (O_NOFOLLOW: one planted since is refused,
	 * and a rename replaces a link, not what it names). */
	err = pb_path_resolve(path, &o->target);
	if (err)
		goto out_free;
	o->nofollow = proc_device(o->target) ? 0 : O_NOFOLLOW;
	exists = (o->nofollow ? lstat : stat)(o->target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (exists && !S_ISREG(st.st_mode))
		err = open_direct(o, o->target);
	else if (exists && access(o->target, W_OK) < 0)
		err = -errno;	/* as a shell's '>' would: a read-only file stays as it is */
	else if (exists && st.st_nlink > 1)
		err = -EMLINK;	/* hard links: a rename would leave the others the old data */
	else
		err = open_whole(o, exists ? &st : NULL);
	if (exists && (err == -EACCES || err == -EROFS || err == -EPERM || err == -EMLINK) &&
	    access(o->target, W_OK) == 0) {
		o->kind = OUT_COPY;
		o->f = tmpfile();
		err = o->f ? 0 : -errno;
		if (o->f)
			fcntl(fileno(o->f), F_SETFD, FD_CLOEXEC);
	}
	if (err)
		goto out_free;
	*out = o;
	return 0;

out_free:
	free(o->tmp);
	free(o->target);
	free(o);
	return err;
}

FILE *pbench_output_file(struct pbench_output *o)
{
	return o ? o->f : NULL;
}

/* Give the unnamed file a name next to the target, then rename it over the target. */
static int put_in_place(struct pbench_output *o)
{
	char proc[64];
	int err = 0;

	if (!o->named) {
		size_t len = strlen(o->target) + 32;

		o->tmp = malloc(len);
		if (!o->tmp)
			return -ENOMEM;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(o->f));
		for (int tries = 0; tries < 100; tries++) {
			snprintf(o->tmp, len, "%s.pbench-%u-%d", o->target, (unsigned)getpid(),
				 tries);
			/* Through /proc for anyone; AT_EMPTY_PATH where /proc is not mounted
			 * (it needs CAP_DAC_READ_SEARCH). */
			if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0 ||
			    (errno == ENOENT && linkat(fileno(o->f), "", AT_FDCWD, o->tmp,
						       AT_EMPTY_PATH) == 0)) {
				o->named = 1;
				break;
			}
			if (errno != EEXIST)
				return -errno;
		}
		if (!o->named)
			return -EEXIST;
	}
	if (rename(o->tmp, o->target) < 0) {
		err = -errno;
		unlink(o->tmp);	/* the name made above, in this call: nobody else's file */
	}
	o->named = 0;
	return err;
}

/* OUT_COPY: the whole report over the target, truncated only now that it is complete. */
static int copy_over(struct pbench_output *o)
{
	char buf[65536];
	size_t n;
	int fd, err = 0;

	rewind(o->f);
	fd = open(o->target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | o->nofollow);
	if (fd < 0)
		return -errno;
	while (!err && (n = fread(buf, 1, sizeof(buf), o->f)) > 0)
		for (size_t at = 0; at < n && !err;) {
			ssize_t w = write(fd, buf + at, n - at);

			if (w < 0 && errno != EINTR)
				err = -errno;
			else if (w > 0)
				at += (size_t)w;
		}
	if (!err && ferror(o->f))
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int pbench_output_close(struct pbench_output *o, int commit)
{
	int err = 0;

	if (!o)
		return -EINVAL;
	errno = 0;
	if (fflush(o->f) == EOF || ferror(o->f))
		err = -(errno ? errno : EIO);
	if (o->kind == OUT_WHOLE && commit && !err)
		err = put_in_place(o);
	if (o->kind == OUT_COPY && commit && !err)
		err = copy_over(o);
	if (o->kind == OUT_WHOLE && o->named)
		unlink(o->tmp);	/* our own mkostemp file, never renamed */
	if (o->kind != OUT_STDOUT && fclose(o->f) == EOF && !err)
		err = -(errno ? errno : EIO);
	free(o->tmp);
	free(o->target);
	free(o);
	return commit ? err : 0;
}

/* ---- the outputs of one report: several formats, never two to one file ------------------ */

/* path as one text for each file, existing or not: its links followed and its directory
 * absolute ("./a", "a" and a link to "a" are one file before any of them exists); path itself
 * where that cannot be done (the open says why). */
static char *file_key(const char *path)
{
	char *r, *dir, *real, *key = NULL;
	const char *base;

	if (pb_path_resolve(path, &r))
		return strdup(path);
	if (split_path(r, &dir, &base))
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

int pbench_output_open_all(struct pbench_output **outs, const char *const *paths, int n,
			   int which[2])
{
	int err = 0;

	which[0] = which[1] = -1;
	for (int i = 0; i < n; i++)
		outs[i] = NULL;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i && paths[i]; k++)
			if (paths[k] && same_file(paths[k], paths[i])) {
				which[0] = k;
				which[1] = i;
				return pb_fail(-EEXIST, "%s(): paths[%d] and paths[%d] both write to "
					       "'%s'", __func__, k, i, paths[i]);
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

int pbench_output_check_name(const char *path, int fmt, char *why, size_t len)
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

int pbench_output_width(FILE *f)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	double n;

	if (c && *c && !pbench_format_parse(c, PBENCH_FORMAT_PARSE_INT, &n) && n >= 0 &&
	    n <= 10000)
		return (int)n;
	if (!f || !isatty(fileno(f)))
		return 0;
	return !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col ? ws.ws_col : 80;
}

int pbench_output_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return f && isatty(fileno(f)) && !(nc && *nc);
}
