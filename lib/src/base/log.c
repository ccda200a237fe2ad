/* SPDX-License-Identifier: MIT */
/*
 * Errors, the log callback and the version: what every other file reports through.
 *
 * A failing call says which argument and why once, in pb_fail(): the text goes to the log
 * callback and stays with the thread, and pbench_strerror() gives it for the code that call
 * returned. A bare code ("Invalid argument") left a new user searching the header for which
 * of five arguments was wrong (issue 26).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"

static pbench_log_fn log_fn;
static void *log_arg;
/* The detail of this thread's last failure that left one, the code it returned, and whether
 * it is the whole message (pb_fail_msg()) or follows the code's generic text. */
static __thread int detail_err;
static __thread int detail_whole;
static __thread char detail[PB_FAIL_LEN];
/* What pbench_strerror() returns for detail_err: its generic text and the detail. */
static __thread char detailed[PB_FAIL_LEN + 128];

const char *pbench_version(void)
{
	return PBENCH_VERSION_STRING;
}

void pbench_log_set(pbench_log_fn fn, void *arg)
{
	log_fn = fn;
	log_arg = arg;
}

static void log_text(int level, const char *msg)
{
	int saved = errno;

	if (log_fn)
		log_fn(level, msg, log_arg);
	errno = saved;
}

void pb_log(int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_text(level, msg);
}

/* ---- text as it may be printed -------------------------------------------------------------- */

/* The length of the UTF-8 sequence at p (at most n bytes) and its code point, or 0 when it
 * is not a valid, shortest one. */
static size_t utf8_at(const unsigned char *p, size_t n, unsigned *cp)
{
	size_t len = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 ? 2 : 0;
	static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (*p >= 0xf5 || !len || len > n)
		return 0;
	*cp = *p & (0x7f >> len);
	for (size_t k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[k] & 0x3f);
	}
	if (*cp < least[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* Code points that reorder or hide text on a terminal: the C1 controls, the bidi marks,
 * embeddings, overrides and isolates. */
static int invisible(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t pb_text_show(char *out, size_t len, const char *s, int backslash)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), at = 0;

	if (!len)
		return 0;
	while (*p) {
		unsigned cp = *p;
		size_t k = *p < 0x80 ? 1 : utf8_at(p, n - (size_t)(p - (const unsigned char *)s),
						   &cp);
		char esc[16];
		const char *put = esc;
		size_t w;

		if (*p == '\\' && backslash)
			w = (size_t)snprintf(esc, sizeof(esc), "\\\\");
		else if (*p < 0x20 || *p == 0x7f || !k)
			w = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *p), k = 1;
		else if (k > 1 && invisible(cp))
			w = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", cp);
		else
			put = (const char *)p, w = k;
		if (at + w >= len)	/* cut whole: never half a character or an escape */
			break;
		memcpy(out + at, put, w);
		at += w;
		p += k;
	}
	out[at] = '\0';
	return at;
}

int pb_text_check(const char *s, int controls)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		unsigned cp = p[i];
		size_t len = p[i] < 0x80 ? 1 : utf8_at(p + i, n - i, &cp);

		if (!len || (controls && (cp < 0x20 || cp == 0x7f || invisible(cp))))
			return -(int)(i + 1);
		i += len;
	}
	return 0;
}

/* At level: debug for pb_fail(), since the library itself calls functions that may fail and
 * takes another way (jitter's msr/smi/ on a CPU without it); error for a caller's struct,
 * which only a caller gets wrong. */
static int fail(int level, int err, int whole, const char *fmt, va_list ap)
{
	char raw[sizeof(detail)];

	if (err > 0)
		err = -err;
	/* One line of text whatever the message quotes (a name, a document's bytes): its
	 * control characters, bytes that are not UTF-8 and bidi marks as \xHH or \uHHHH. */
	vsnprintf(raw, sizeof(raw), fmt, ap);
	pb_text_show(detail, sizeof(detail), raw, 0);
	detail_err = err;
	detail_whole = whole;
	log_text(level, detail);
	return err;
}

int pb_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = fail(PBENCH_LOG_DEBUG, err, 0, fmt, ap);
	va_end(ap);
	return err;
}

int pb_fail_msg(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = fail(PBENCH_LOG_DEBUG, err, 1, fmt, ap);
	va_end(ap);
	return err;
}

static int fail_struct(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail_struct(const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fail(PBENCH_LOG_ERROR, -EINVAL, 0, fmt, ap);
	va_end(ap);
	return err;
}

void pb_fail_clear(void)
{
	detail_err = 0;
	detail_whole = 0;
	detail[0] = '\0';
}

void pb_fail_save(struct pb_fail_saved *s)
{
	s->err = detail_err;
	s->whole = detail_whole;
	memcpy(s->text, detail, sizeof(s->text));
}

void pb_fail_restore(const struct pb_fail_saved *s)
{
	detail_err = s->err;
	detail_whole = s->whole;
	memcpy(detail, s->text, sizeof(detail));
}

/* The size check of every struct a caller passes with its size_t size first. */
int pb_check_struct(const char *fn, const char *arg, const char *type, const void *p,
		    size_t min, const char *init)
{
	size_t size;

	if (!p)
		return fail_struct("%s(): %s is NULL", fn, arg);
	size = *(const size_t *)p;
	if (size == 0)
		return fail_struct( "%s(): %s: .size is 0 (set .size = sizeof(struct %s)%s%s)",
			       fn, arg, type, init ? " or start from " : "", init ? init : "");
	if (size < sizeof(size_t) || size < min)
		return fail_struct("%s(): %s: .size is %zu, smaller than the oldest struct %s "
			       "this library reads (%zu bytes; set .size = sizeof(struct %s))", fn,
			       arg, size, type, min > sizeof(size_t) ? min : sizeof(size_t), type);
	pb_fail_clear();	/* a call that got this far has nothing to do with an older detail */
	return 0;
}

static const char *const pb_errors[] = {
	[PBENCH_EUNKNOWN_EVENT - PBENCH_EUNKNOWN_EVENT] = "unknown event",
	[PBENCH_EBAD_EVENT_LIST - PBENCH_EUNKNOWN_EVENT] = "malformed event list",
	[PBENCH_EDUP_EVENT - PBENCH_EUNKNOWN_EVENT] = "event listed twice",
	[PBENCH_ENO_EVENTS - PBENCH_EUNKNOWN_EVENT] = "none of the events could be opened",
	[PBENCH_ENOT_FOUND - PBENCH_EUNKNOWN_EVENT] = "command not found",
	[PBENCH_ENOT_EXEC - PBENCH_EUNKNOWN_EVENT] = "command cannot be executed",
	[PBENCH_EPFM - PBENCH_EUNKNOWN_EVENT] = "libpfm4 error",
	[PBENCH_EBUSY_REGION - PBENCH_EUNKNOWN_EVENT] = "counted region started or stopped out of order",
	[PBENCH_ENO_RDPMC - PBENCH_EUNKNOWN_EVENT] = "user-space counter read not available",
	[PBENCH_EDIFFERENT - PBENCH_EUNKNOWN_EVENT] = "the compared functions give different results",
	/* In parentheses: clang warns of a string split over lines inside an array. */
	[PBENCH_EBAD_INTERP - PBENCH_EUNKNOWN_EVENT] = ("the command's interpreter (#!) or loader "
							"is missing"),
	[PBENCH_ECORRUPT - PBENCH_EUNKNOWN_EVENT] = "the history store is corrupt or not pbench's",
	[PBENCH_ENEWER_SCHEMA - PBENCH_EUNKNOWN_EVENT] = ("the history store is from a newer "
							  "pbench"),
	[PBENCH_ECMD_FAILED - PBENCH_EUNKNOWN_EVENT] = ("the command failed before any timed "
							"run"),
};

static const char *generic(int err)
{
	if (err >= PBENCH_EUNKNOWN_EVENT && err < PBENCH_ELAST)
		return pb_errors[err - PBENCH_EUNKNOWN_EVENT];
	return strerror(err);
}

const char *pbench_strerror(int err)
{
	const char *g;
	size_t n;

	if (err < 0)
		err = -err;
	g = generic(err);
	if (!err || -err != detail_err || !detail[0])
		return g;
	if (detail_whole)
		return detail;
	/* "unknown event 'cylces' ..." says its kind already; "Invalid argument" is lowercase
	 * in front of a detail, as every pbench message. */
	n = strlen(g);
	if (!strncasecmp(detail, g, n))
		return detail;
	snprintf(detailed, sizeof(detailed), "%s: %s", g, detail);
	detailed[0] = (char)tolower((unsigned char)detailed[0]);
	return detailed;
}

int pb_stream_end(FILE *f)
{
	int saved = errno, err;

	/* A writer's last bytes are still in the buffer: the flush that fails on them says why
	 * (ENOSPC, EPIPE, EDQUOT...). An error flag with nothing left to flush has no errno of
	 * its own: EIO then, and errno as it was (main() says stdout's failure by it). */
	errno = 0;
	if (fflush(f) != EOF && !ferror(f)) {
		errno = saved;
		return 0;
	}
	err = errno;
	if (!err)
		errno = saved;
	return -(err ? err : EIO);
}
