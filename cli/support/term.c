/* SPDX-License-Identifier: MIT */
/*
 * What a command line writes to a terminal: its width and whether it wants colour (as git's
 * term_columns() and the NO_COLOR convention), prose wrapped at that width, and the library's
 * log said on stderr.
 * Internal helper: the wrapping is the library's own (pb_format_wrap(), base/base.h), the rule
 * every text writer of the library wraps by, so that pbench's messages and its reports break
 * their lines alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/base.h"
#include "support.h"

int cli_term_width(FILE *f)
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

int cli_term_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return f && isatty(fileno(f)) && !(nc && *nc);
}

int cli_wrap(FILE *f, const char *text, int width, int indent)
{
	return pb_format_wrap(f, text, width, indent);
}

void cli_log_stderr(int level, const char *msg, void *prefix)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };

	fprintf(stderr, "%s: %s: %s\n", prefix ? (const char *)prefix : "pbench",
		level >= 0 && level <= PBENCH_LOG_DEBUG ? names[level] : "log", msg ? msg : "");
}
