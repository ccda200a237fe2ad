/* SPDX-License-Identifier: MIT */
/*
 * The small layer every command shares (like curl's tool helpers): messages, the one number
 * parser of every option, option errors, signals, and output files opened before anything
 * is measured and put in place only when complete.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("pbench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_hint(const char *fmt, ...)
{
	va_list ap;

	fputs("hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("pbench: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

/* ---- numbers -------------------------------------------------------------------------------- */

/*
 * The one grammar of every numeric option: [+-]digits[.digits][e[+-]digits], nothing before
 * or after (no spaces, no hex, no inf or nan), with a trailing '%' only where the option is a
 * percentage. strtod does the conversion once the text is known to be of that form.
 */
int cli_parse_number(const char *s, unsigned flags, double *out)
{
	const char *p = s;
	size_t len;
	char *end;
	double v;
	int digits = 0;

	if (!s || !*s)
		return -1;
	len = strlen(s);
	if ((flags & CLI_NUM_PCT) && s[len - 1] == '%')
		len--;
	if (p < s + len && (*p == '+' || *p == '-'))
		p++;
	for (; p < s + len && isdigit((unsigned char)*p); p++)
		digits++;
	if (p < s + len && *p == '.')
		for (p++; p < s + len && isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return -1;
	if (p < s + len && (*p == 'e' || *p == 'E')) {
		const char *e = ++p;

		if (p < s + len && (*p == '+' || *p == '-'))
			p++;
		e = p;
		while (p < s + len && isdigit((unsigned char)*p))
			p++;
		if (p == e)
			return -1;
	}
	if (p != s + len)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + len || !isfinite(v) || (errno == ERANGE && v != 0))
		return -1;
	if ((flags & CLI_NUM_INT) && v != floor(v))
		return -1;
	*out = v;
	return 0;
}

int cli_number(const char *opt, const char *what, const char *s, double lo, double hi,
	       unsigned flags, double *out)
{
	double v;

	if (!cli_parse_number(s, flags, &v) && v >= lo && v <= hi &&
	    (!(flags & CLI_NUM_POSITIVE) || v > 0)) {
		*out = v;
		return 0;
	}
	if (flags & CLI_NUM_INT)
		cli_error("invalid %s '%s' for %s: expected a whole number from %.15g to %.15g",
			  what, s, opt, lo, hi);
	else if (flags & CLI_NUM_POSITIVE)
		cli_error("invalid %s '%s' for %s: expected a number more than 0 and at most "
			  "%.15g%s", what, s, opt, hi, flags & CLI_NUM_PCT ? " (a percentage)" : "");
	else
		cli_error("invalid %s '%s' for %s: expected a number from %.15g to %.15g", what,
			  s, opt, lo, hi);
	return -1;
}

int cli_long(const char *opt, const char *what, const char *s, long lo, long hi, long *out)
{
	double v;

	if (cli_number(opt, what, s, (double)lo, (double)hi, CLI_NUM_INT, &v))
		return -1;
	*out = (long)v;
	return 0;
}

/* ---- options -------------------------------------------------------------------------------- */

int cli_option_error(int c, char **argv, const char *cmd)
{
	const char *opt = argv[optind - 1];

	if (c == ':') {
		if (optopt && (!opt || strncmp(opt, "--", 2)))
			cli_error("option '-%c' needs a value", optopt);
		else
			cli_error("option '%.*s' needs a value", (int)strcspn(opt, "="), opt);
		cli_hint("'pbench %s -h' shows the options", cmd);
		return -1;
	}
	if (optopt && (!opt || strncmp(opt, "--", 2)))
		cli_error("unknown option '-%c' for 'pbench %s'", optopt, cmd);
	else
		cli_error("unknown option '%.*s' for 'pbench %s'", (int)strcspn(opt, "="), opt,
			  cmd);
	cli_hint("'pbench %s -h' shows the options", cmd);
	return -1;
}

/* ---- signals -------------------------------------------------------------------------------- */

/* SIGINT or SIGTERM ignored when pbench started (nohup, a shell's background job) stays so. */
void cli_catch(int sig, void (*fn)(int), struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = fn };

	sigaction(sig, NULL, old);
	if (old->sa_handler != SIG_IGN)
		sigaction(sig, &sa, NULL);
}

void cli_uncatch(int sig, const struct sigaction *old)
{
	sigaction(sig, old, NULL);
}

/* ---- output files --------------------------------------------------------------------------- */

/* Two outputs that would write the same file: the same name, the same existing file, or
 * both standard output. Devices (/dev/null twice) do no harm and are allowed. */
static int same_target(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	if (!strcmp(a, b))
		return !(stat(a, &sa) == 0 && !S_ISREG(sa.st_mode));
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISREG(sa.st_mode) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_outputs_open(struct cli_output *outs, int n)
{
	for (int i = 0; i < n; i++)
		if (outs[i].path && !*outs[i].path) {
			cli_error("%s needs a file name, or '-' for stdout", outs[i].opt);
			return EXIT_USAGE;
		}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i && outs[i].path; k++)
			if (outs[k].path && same_target(outs[i].path, outs[k].path)) {
				cli_error("%s and %s both write to '%s': give each its own file",
					  outs[k].opt, outs[i].opt, outs[i].path);
				return EXIT_USAGE;
			}
	for (int i = 0; i < n; i++) {
		int err;

		if (!outs[i].path)
			continue;
		err = pbench_output_open(&outs[i].out, outs[i].path);
		if (err) {
			cli_error("cannot write %s '%s': %s", outs[i].what, outs[i].path,
				  pbench_strerror(err));
			cli_outputs_close(outs, n, 0, EXIT_USAGE);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

FILE *cli_output_file(const struct cli_output *o)
{
	return o->out ? pbench_output_file(o->out) : NULL;
}

int cli_outputs_close(struct cli_output *outs, int n, int commit, int rc)
{
	for (int i = 0; i < n; i++) {
		int err;

		if (!outs[i].out)
			continue;
		err = pbench_output_close(outs[i].out, commit && outs[i].written);
		outs[i].out = NULL;
		if (err && err != -EPIPE) {
			cli_error("cannot write %s '%s': %s", outs[i].what, outs[i].path,
				  pbench_strerror(err));
			rc = rc ? rc : EXIT_RUNTIME;
		} else if (err) {
			rc = rc ? rc : EXIT_RUNTIME;
		}
	}
	return rc;
}

/* ---- recorded trees ------------------------------------------------------------------------- */

void cli_note_live(const char *cmd)
{
	const char *s = getenv("PBENCH_SYSFS_ROOT"), *p = getenv("PBENCH_PROCFS_ROOT");

	if ((s && *s) || (p && *p))
		cli_warn("'pbench %s' measures the live machine: PBENCH_SYSFS_ROOT and "
			 "PBENCH_PROCFS_ROOT are read by 'pbench check' only", cmd);
}
