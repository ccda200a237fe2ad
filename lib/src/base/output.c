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
 * The directory is walked to once, at the open, one name at a time (links followed only as
 * the kernel's protected_symlinks rule allows), and held as a descriptor: everything after
 * (the temporary, its name, the rename, a direct open) is done in that directory by name,
 * whatever is renamed or replaced on the path meanwhile (another user's directory in /tmp
 * swapped for a link to /root leads nowhere).
 * The only path this file ever removes is the temporary name it made itself a moment before,
 * when the rename that should consume it fails (or, without O_TMPFILE, its own named
 * temporary).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
	int dir;		/* the target's directory (O_PATH), held from the open on */
	char *base;		/* the target's name in dir */
	char *target;		/* the path of the target (symlinks resolved), for messages */
	char *tmp;		/* OUT_WHOLE: the temporary's name in dir once it has one */
};

/* OUT_COPY: a writable file in a directory pbench cannot write: the report goes to an
 * unnamed temporary file elsewhere and is copied over the file only when complete. */
enum { OUT_STDOUT, OUT_DIRECT, OUT_WHOLE, OUT_COPY };

/* The kernel's protected_symlinks rule, kept by pbench itself whatever fs.protected_symlinks
 * says: a link in a sticky, world-writable directory (/tmp) is followed only when its owner
 * is the follower or the directory's owner. Anyone may plant a link there; root following
 * it would write where the planter chose. dirfd is the directory, dir and link their text. */
static int link_refused(int dirfd, const char *dir, const char *link, const struct stat *ls)
{
	struct stat ds;

	if (fstat(dirfd, &ds) < 0 || !(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) ||
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
 * directory. name is a link in dirfd. */
static int proc_device(int dirfd, const char *name)
{
	struct statfs fs;
	struct stat st;

	return fstatfs(dirfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC &&
	       fstatat(dirfd, name, &st, 0) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* A path walked one name at a time as the kernel's lookup walks it, each directory opened
 * (O_PATH, O_NOFOLLOW) from the one before, each link read from its own descriptor and
 * followed only when link_refused() allows: what the walk decides is about the very files it
 * then holds, not about a name that may be replaced between a look and an open. */
struct walk {
	char *done;		/* the text walked, no link in it (pb_path_resolve()'s *out) */
	size_t len;
	int fd;			/* the directory done names so far (or done's directory) */
	int stopped;		/* -errno of a name on the way that could not be opened */
	char *base;		/* the last name, in fd, unless it is ".", ".." or ends in '/' */
	int device;		/* base is /proc's link to a pipe or a terminal */
};

static void walk_free(struct walk *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->done);
	free(w->base);
	w->fd = -1;
	w->done = w->base = NULL;
}

/* fd -> a directory opened from it, or "/" (name NULL) */
static int walk_to(struct walk *w, const char *name)
{
	int fd = name ? openat(w->fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC) :
			open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(w->fd);
	w->fd = fd;
	return 0;
}

/* What a walk has still to read: the path's text, each link's text put in front of its rest */
struct walk_todo {
	const char *path;	/* as given (for the messages) */
	char *text;
	size_t at;		/* where the next name (or its slashes) begins in text */
	int hops;		/* links followed */
};

/* What walk_step() did with a name: go on at the next one, or at the new text (a link's),
 * stop the walk where it is (the rest: walk_path() adds it as it is), or stop it there. */
enum walk_next { WALK_NEXT, WALK_AGAIN, WALK_REST, WALK_STOP };

/* name in w->fd, opened without following it: a directory first (O_DIRECTORY: an automount
 * point is mounted, as in the kernel's own walk), else the name itself: a link is opened, not
 * followed. The descriptor (errno of its open kept: -1), ls->st_mode S_IFDIR if a directory,
 * else 0. */
static int walk_open(const struct walk *w, const char *name, struct stat *ls)
{
	int fd;

	ls->st_mode = 0;
	fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		ls->st_mode = S_IFDIR;
	else if (errno == ENOTDIR || errno == ELOOP)
		fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* A name that is no link, held in fd (closed, or kept as w->fd): the last is w->base (unless
 * a '/' follows it), one on the way must be a directory, into which the walk goes. */
static enum walk_next walk_into(struct walk *w, int fd, const struct stat *ls, const char *name,
				int last, int slash, int *err)
{
	if (last && !slash && !(w->base = strdup(name)))
		*err = -ENOMEM;
	else if (!last && !S_ISDIR(ls->st_mode))
		w->stopped = -ENOTDIR;
	else if (!last) {
		close(w->fd);
		w->fd = fd;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	return last || w->stopped ? WALK_REST : WALK_NEXT;
}

/* A link of n bytes, held in fd (closed), the last name of w->done: followed if
 * link_refused() allows and it is within MAX_LINKS, its text put in front of the rest of t's.
 * Its directory is done without its last name, and w->fd. */
static enum walk_next walk_follow(struct walk *w, struct walk_todo *t, size_t n, int fd,
				  const struct stat *ls, int *err)
{
	char link[PATH_MAX], *more;
	char *dir = strndup(w->done, w->len - n > 1 ? w->len - n - 1 : w->len - n);
	ssize_t r = 0;		/* read only when readlinkat() set it */

	*err = !dir ? -ENOMEM : link_refused(w->fd, *dir ? dir : ".", w->done, ls);
	free(dir);
	if (!*err && ++t->hops > MAX_LINKS)
		*err = pb_fail(-ELOOP, "'%s': more than %d symbolic links to follow", t->path,
			       MAX_LINKS);
	if (!*err && (r = readlinkat(fd, "", link, sizeof(link) - 1)) < 0)
		*err = -errno;
	close(fd);
	if (*err)
		return WALK_STOP;
	link[r] = 0;
	t->at += n;
	more = malloc((size_t)r + strlen(t->text + t->at) + 1);
	if (!more) {
		*err = -ENOMEM;
		return WALK_STOP;
	}
	sprintf(more, "%s%s", link, t->text + t->at);	/* the link's text, then what was left */
	free(t->text);
	t->text = more;
	t->at = 0;
	w->len = link[0] == '/' ? 1 : w->len - n > 1 ? w->len - n - 1 : w->len - n;
	if (link[0] == '/')
		w->done[0] = '/';
	w->done[w->len] = 0;
	if (link[0] == '/' && (w->stopped = walk_to(w, NULL)))
		return WALK_REST;
	return WALK_AGAIN;
}

/* The next name of t (after its slashes: t->at at its start, *np its length) into the walk. */
static enum walk_next walk_step(struct walk *w, struct walk_todo *t, size_t *np, int *err)
{
	char name[NAME_MAX + 1];
	const char *s;
	size_t n, next;
	struct stat ls;
	int fd, last, slash;

	t->at += strspn(t->text + t->at, "/");
	s = t->text + t->at;
	n = *np = strcspn(s, "/");
	if (!n)
		return WALK_STOP;
	next = t->at + n + strspn(s + n, "/");
	last = !t->text[next];
	slash = s[n] == '/';
	if (n == 1 && s[0] == '.') {
		t->at = next;
		return WALK_NEXT;
	}
	if ((*err = path_push(&w->done, &w->len, s, n)))
		return WALK_STOP;
	if (n == 2 && !memcmp(s, "..", 2)) {
		if ((w->stopped = walk_to(w, "..")))
			return WALK_REST;
		t->at = next;
		return WALK_NEXT;
	}
	if (n > NAME_MAX) {
		w->stopped = -ENAMETOOLONG;
		return WALK_REST;
	}
	memcpy(name, s, n);
	name[n] = 0;
	fd = walk_open(w, name, &ls);
	if (fd < 0 || (!ls.st_mode && fstat(fd, &ls) < 0)) {
		/* Missing (or not to be looked at): the rest as it is, for the open to create
		 * or to fail on with its own error. */
		if (!last)
			w->stopped = -errno;
		else if (!slash && !(w->base = strdup(name)))
			*err = -ENOMEM;
		if (fd >= 0)
			close(fd);
		return WALK_REST;
	}
	if (!S_ISLNK(ls.st_mode)) {
		if (walk_into(w, fd, &ls, name, last, slash, err) == WALK_REST)
			return WALK_REST;
		t->at = next;
		return WALK_NEXT;
	}
	if (last && !slash && proc_device(w->fd, name)) {
		close(fd);	/* the kernel's own link: O_NOFOLLOW is not used on it */
		w->device = 1;
		if (!(w->base = strdup(name)))
			*err = -ENOMEM;
		return WALK_STOP;
	}
	return walk_follow(w, t, n, fd, &ls, err);
}

static int walk_path(const char *path, struct walk *w)
{
	struct walk_todo t = { .path = path, .text = strdup(path) };
	int err = 0;

	*w = (struct walk){ .done = strdup(path[0] == '/' ? "/" : ""), .fd = -1 };
	if (!t.text || !w->done) {
		free(t.text);
		walk_free(w);
		return -ENOMEM;
	}
	w->len = strlen(w->done);
	w->fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0)
		err = -errno;
	while (!err && t.text[t.at]) {
		size_t n = 0;
		enum walk_next step = walk_step(w, &t, &n, &err);

		if (step == WALK_NEXT || step == WALK_AGAIN)
			continue;
		if (step == WALK_REST) {
			t.at += n;
			t.at += strspn(t.text + t.at, "/");
			if (!err && t.text[t.at])
				err = path_push(&w->done, &w->len, t.text + t.at,
						strlen(t.text + t.at));
		}
		break;
	}
	/* "." or "a/.." is "."; "dir/" keeps its slash (a file there is an error) */
	if (!err && (!w->len ||
		     (*t.text && t.text[strlen(t.text) - 1] == '/' && strcmp(w->done, "/"))))
		err = path_push(&w->done, &w->len, w->len ? "" : ".", w->len ? 0 : 1);
	free(t.text);
	if (err)
		walk_free(w);
	return err;
}

int pb_path_resolve(const char *path, char **out)
{
	struct walk w;
	int err = walk_path(path, &w);

	*out = NULL;
	if (err)
		return err;
	*out = w.done;
	w.done = NULL;
	walk_free(&w);
	return 0;
}

/* How long a FIFO may go without a reader before an output to it is refused, in ms. */
#define FIFO_WAIT_MS 1000

/* Opened without blocking: a FIFO no program reads would hold a plain open forever, without a
 * word. ENXIO (no reader yet) is tried again for FIFO_WAIT_MS, then said as -ENXIO; the stream
 * then blocks as any file's. */
static int open_direct(struct pbench_output *o)
{
	int fd, flags;

	for (int waited = 0;; waited += 10) {
		fd = openat(o->dir, o->base, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			    o->nofollow);
		if (fd >= 0 || errno != ENXIO || waited >= FIFO_WAIT_MS)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	if (fd < 0 && errno == ENXIO)
		return pb_fail(-ENXIO, "'%s' is a FIFO that no program read in %d ms: start its "
			       "reader first", o->target, FIFO_WAIT_MS);
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

/* A named temporary of our own in the directory, where the filesystem has no O_TMPFILE:
 * ".NAME.pbench-XXXXXX", made by us (O_EXCL) and removed by us. */
static int open_named(struct pbench_output *o)
{
	size_t len = strlen(o->base) + 32;
	int fd = -1;

	o->tmp = malloc(len);
	if (!o->tmp)
		return -ENOMEM;
	for (int tries = 0; tries < 100; tries++) {
		unsigned r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			r = (unsigned)ts.tv_nsec ^ (unsigned)getpid() * 2654435761u;
		}
		snprintf(o->tmp, len, ".%s.pbench-%06x", o->base, r & 0xffffff);
		fd = openat(o->dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd >= 0)
		o->named = 1;
	return fd < 0 ? -errno : fd;
}

/* The unnamed file in the target's directory, with the old file's mode where there is one. */
static int open_whole(struct pbench_output *o, const struct stat *old)
{
	int fd = openat(o->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		fd = open_named(o);	/* no O_TMPFILE on this filesystem */
	else if (fd < 0)
		fd = -errno;
	if (fd < 0)
		return fd;
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

/* Only what the open made is ended: the stream, our own named temporary, the directory. */
static void output_free(struct pbench_output *o)
{
	if (o->kind == OUT_WHOLE && o->named)
		unlinkat(o->dir, o->tmp, 0);	/* our own named temporary, never renamed */
	if (o->dir >= 0)
		close(o->dir);
	free(o->tmp);
	free(o->base);
	free(o->target);
	free(o);
}

int pbench_output_open(struct pbench_output **out, const char *path)
{
	struct pbench_output *o;
	struct walk w;
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
	o->dir = -1;
	if (!strcmp(path, "-")) {
		o->kind = OUT_STDOUT;
		o->f = stdout;
		*out = o;
		return 0;
	}
	/* Every link on the path followed here, as the kernel's protected_symlinks rule
	 * allows, and the directory held: what is opened then is no link (O_NOFOLLOW: one
	 * planted since is refused, and a rename replaces a link, not what it names), in the
	 * directory walked to, whatever its path names by then. */
	err = walk_path(path, &w);
	if (err)
		goto out_free;
	o->dir = w.fd;
	o->base = w.base;
	o->target = w.done;
	err = w.stopped ? w.stopped : !o->base ? -EISDIR : 0;
	if (err)
		goto out_free;
	o->nofollow = w.device ? 0 : O_NOFOLLOW;
	exists = fstatat(o->dir, o->base, &st, w.device ? 0 : AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (exists && !S_ISREG(st.st_mode))
		err = open_direct(o);
	else if (exists && faccessat(o->dir, o->base, W_OK, 0) < 0)
		err = -errno;	/* as a shell's '>' would: a read-only file stays as it is */
	else if (exists && st.st_nlink > 1)
		err = -EMLINK;	/* hard links: a rename would leave the others the old data */
	else
		err = open_whole(o, exists ? &st : NULL);
	if (exists && (err == -EACCES || err == -EROFS || err == -EPERM || err == -EMLINK) &&
	    faccessat(o->dir, o->base, W_OK, 0) == 0) {
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
	output_free(o);
	return err;
}

FILE *pbench_output_file(struct pbench_output *o)
{
	return o ? o->f : NULL;
}

/* Give the unnamed file a name next to the target, then rename it over the target: both in
 * the directory held since the open. */
static int put_in_place(struct pbench_output *o)
{
	char proc[64];
	int err = 0;

	if (!o->named) {
		size_t len = strlen(o->base) + 32;

		o->tmp = malloc(len);
		if (!o->tmp)
			return -ENOMEM;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(o->f));
		for (int tries = 0; tries < 100; tries++) {
			snprintf(o->tmp, len, "%s.pbench-%u-%d", o->base, (unsigned)getpid(),
				 tries);
			/* Through /proc for anyone; AT_EMPTY_PATH where /proc is not mounted
			 * (it needs CAP_DAC_READ_SEARCH). */
			if (linkat(AT_FDCWD, proc, o->dir, o->tmp, AT_SYMLINK_FOLLOW) == 0 ||
			    (errno == ENOENT && linkat(fileno(o->f), "", o->dir, o->tmp,
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
	if (renameat(o->dir, o->tmp, o->dir, o->base) < 0) {
		err = -errno;
		/* the name made above, in this call: nobody else's file */
		unlinkat(o->dir, o->tmp, 0);
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
	fd = openat(o->dir, o->base, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | o->nofollow);
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
	if (o->kind != OUT_STDOUT && fclose(o->f) == EOF && !err)
		err = -(errno ? errno : EIO);
	output_free(o);
	return commit ? err : 0;
}
