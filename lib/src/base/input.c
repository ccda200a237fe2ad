/* SPDX-License-Identifier: MIT */
/*
 * The one reader of what a user hands pbench to read (issue 34): pbench analyze's samples
 * (stats/samples.c) and the documents `pbench history add` imports (history_import.c) are
 * read by the same code with the same bounds. A file is read whole, up to a cap (more is
 * not samples or a document: /dev/zero, a disk image), a FIFO no program writes to is given
 * up after a second instead of waited on forever, a directory is said; a number in text is
 * pbench_format_parse()'s grammar (no hex, no inf or nan); a value is finite and not
 * subnormal, and a time is not negative.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

void pb_why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* The whole of fd into *text (*len bytes, NUL-terminated past them): 0, -ENOMEM, -EFBIG past
 * max bytes, or -errno of read(2). */
static int read_fd(int fd, size_t max, const volatile int *stop, char **text, size_t *len)
{
	size_t cap = max < 65536 ? max + 2 : 65536, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t r = read(fd, buf + n, cap - n - 1);

		if (r < 0 && errno == EINTR && !(stop && *stop))	/* a Ctrl-C ends it */
			continue;
		if (r <= 0) {
			int err = r < 0 ? -errno : 0;

			if (err)
				free(buf);
			else
				buf[n] = '\0';
			*text = err ? NULL : buf;
			*len = n;
			return err;
		}
		n += (size_t)r;
		if (n > max) {
			free(buf);
			return -EFBIG;
		}
		if (n == cap - 1) {	/* at most one byte past the limit, to see it passed */
			size_t grow = cap * 2 > max + 2 ? max + 2 : cap * 2;
			char *nb = realloc(buf, grow);

			if (!nb)
				free(buf);
			buf = nb;
			cap = grow;
		}
	}
	return -ENOMEM;
}

/* A named FIFO opened without blocking (a plain open would wait for a writer forever, without
 * a word): its first data or its writer's end within PB_INPUT_FIFO_WAIT_MS, then read as any
 * file; -EAGAIN when no program writes to it. Linux reports no POLLHUP before a first writer. */
static int fifo_wait_writer(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, PB_INPUT_FIFO_WAIT_MS);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -EAGAIN;
}

int pb_input_read(const char *path, size_t max, const volatile int *stop, char **text,
		  size_t *len, char *why, size_t wlen)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : STDIN_FILENO;
	struct stat st;
	int err, flags;

	*text = NULL;
	*len = 0;
	if (fd < 0) {
		err = -errno;
		pb_why_set(why, wlen, "cannot open '%s': %s", path, strerror(-err));
		return err;
	}
	err = fstat(fd, &st) < 0 ? -errno : 0;
	if (!err && S_ISDIR(st.st_mode)) {
		pb_why_set(why, wlen, "'%s' is a directory: give a file", path);
		err = -EISDIR;
	} else if (!err && fd != STDIN_FILENO && S_ISFIFO(st.st_mode) &&
		   (err = fifo_wait_writer(fd))) {
		if (err == -EAGAIN)
			pb_why_set(why, wlen, "'%s' is a FIFO that no program wrote to in %d ms: start "
				"its writer first (or pipe the input in)", path,
				PB_INPUT_FIFO_WAIT_MS);
	} else if (!err) {
		/* read blocking, as any file (a FIFO once its writer is there) */
		flags = fcntl(fd, F_GETFL);
		if (flags >= 0 && (flags & O_NONBLOCK))
			fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
		err = read_fd(fd, max, stop, text, len);
		if (err == -EFBIG)
			pb_why_set(why, wlen, "'%s' holds more than %zu MiB, the most pbench reads of an "
				"input: not samples or a document", name, max >> 20);
		else if (err == -ENOMEM)
			pb_why_set(why, wlen, "%s: out of memory", name);
	}
	if (err && err != -EISDIR && err != -EAGAIN && err != -EFBIG && err != -ENOMEM)
		pb_why_set(why, wlen, "cannot read '%s': %s", name, strerror(-err));
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}

const char *pb_input_nul(const char *text, size_t len, size_t *line)
{
	const char *nul = memchr(text, '\0', len);

	if (nul && line) {
		*line = 1;
		for (const char *p = text; (p = memchr(p, '\n', (size_t)(nul - p))); p++)
			++*line;
	}
	return nul;
}

int pb_input_number(const char *s, size_t len, double *x)
{
	char buf[128], *end;
	double v;
	int err;

	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!(err = pbench_format_parse(buf, 0, x)))
		return 0;
	errno = 0;
	v = strtod(buf, &end);
	if (err == -ERANGE && fpclassify(v) == FP_SUBNORMAL) {
		*x = v;		/* a number, which pb_input_value() says is too small */
		return 0;
	}
	/* inf, nan, 1e999: numbers to strtod, not finite; 0x10 is not one of pbench's */
	if (err == -ERANGE || (end == buf + len && !isfinite(v) && !strpbrk(buf, "xX")))
		return -ERANGE;
	return -EINVAL;
}

int pb_input_value(double x, int time)
{
	if (!isfinite(x))
		return PB_INPUT_NOT_FINITE;
	if (fpclassify(x) == FP_SUBNORMAL)
		return PB_INPUT_SUBNORMAL;
	if (time && x < 0)
		return PB_INPUT_NEGATIVE;
	return 0;
}

const char *pb_input_value_why(int code)
{
	switch (code) {
	case PB_INPUT_NOT_FINITE:
		return "is not a finite number";
	case PB_INPUT_SUBNORMAL:
		return "is subnormal, too small to compute with (under 2.2e-308)";
	case PB_INPUT_NEGATIVE:
		return "is negative: not a time";
	}
	return "is a number";
}
