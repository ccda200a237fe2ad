/* SPDX-License-Identifier: MIT */
/* Errors, the log callback and the version: what every other file reports through. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static pbench_log_fn log_fn;
static void *log_arg;
static __thread char last_error[512];

const char *pbench_version(void)
{
	return PBENCH_VERSION_STRING;
}

void pbench_log_set(pbench_log_fn fn, void *arg)
{
	log_fn = fn;
	log_arg = arg;
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
	log_fn(level, msg, log_arg);
}

void pb_set_last_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *pbench_counters_last_error(void)
{
	return last_error;
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
};

const char *pbench_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= PBENCH_EUNKNOWN_EVENT && err < PBENCH_ELAST)
		return pb_errors[err - PBENCH_EUNKNOWN_EVENT];
	return strerror(err);
}
