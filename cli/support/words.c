/* SPDX-License-Identifier: MIT */
/*
 * The words of a command line said back to the person who typed them: "did you mean", a
 * number out of its option's range, a CPU list pbench may not run on, a command line that
 * cannot be split, shell syntax no shell will read, where a command not found was looked
 * for. On the public API only (pbench_suggest(), pbench_format_parse(), pbench_cpus_*(),
 * pbench_command_split()...): the library gives the facts, these the sentences.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbench.h"
#include "support.h"

int cli_suggest_text(const char *word, const char *const *candidates, int n, const char *prefix,
		     char *buf, size_t len)
{
	int k;

	if (!buf || !len)
		return -EINVAL;
	*buf = 0;
	k = pbench_suggest(word, candidates, n);
	if (k >= 0)
		snprintf(buf, len, " (did you mean '%s%s'?)", prefix ? prefix : "", candidates[k]);
	return k;
}

int cli_suggest_choice(const char *word, const char *const *names, int n, char *why, size_t len)
{
	char list[256] = "", near[160];
	size_t used = 0;

	if (!word || !names || !why || !len)
		return -EINVAL;
	for (int k = 0; k < n; k++)
		if (names[k] && !strcmp(word, names[k]))
			return k;
	for (int k = 0; k < n && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
					 !k ? "" : k == n - 1 ? " or " : ", ", names[k]);
	cli_suggest_text(word, names, n, NULL, near, sizeof(near));
	snprintf(why, len, "it is one of %s%s", list, near);
	return -ENOENT;
}

int cli_parse_in(const char *s, unsigned flags, double lo, double hi, double *out, char *why,
		 size_t len)
{
	unsigned pos = flags & CLI_PARSE_POSITIVE;
	double v;
	int err;

	if (!out || !why || !len)
		return -EINVAL;
	err = pbench_format_parse(s, flags & ~pos, &v);
	if (!err && v >= lo && v <= hi && (!pos || v > 0)) {
		*out = v;
		return 0;
	}
	if (flags & PBENCH_FORMAT_PARSE_INT)
		snprintf(why, len, "a whole number from %.15g to %.15g", lo, hi);
	else if (pos)
		snprintf(why, len, "a number more than 0 and at most %.15g%s", hi,
			 flags & PBENCH_FORMAT_PARSE_PCT ? " (a percentage)" : "");
	else
		snprintf(why, len, "a number from %.15g to %.15g", lo, hi);
	return err ? err : -ERANGE;
}

int cli_cpus_parse_words(const char *list, const char *opt, unsigned flags, int most,
			 const char *who, int *cpus, int max, char *why, size_t len)
{
	int present = flags & CLI_CPUS_PRESENT, n, bad;
	const char *set_is = present ? "present CPUs are" : "pbench may run on CPUs";
	char set[256] = "";

	if (!list || !opt || !cpus || !why || !len)
		return -EINVAL;
	why[0] = '\0';
	if (present)
		pbench_cpus_present(set, sizeof(set));
	else
		pbench_cpus_allowed(set, sizeof(set));
	n = pbench_cpus_parse_in(list, set, cpus, max, &bad);
	if (n <= 0) {
		snprintf(why, len, "invalid CPU list '%s' for %s: %s; %s %s", list, opt,
			 n == -ERANGE ? "no such CPU" : "expected a list such as 2 or 0-3,6",
			 set_is, set[0] ? set : "unknown");
		return n < 0 ? n : -EINVAL;
	}
	if (bad >= 0) {
		snprintf(why, len, "CPU %d given to %s is %s: %s %s", bad, opt,
			 present ? "not present" : "not online or not allowed", set_is, set);
		return -ERANGE;
	}
	if (most > 0 && n > most) {
		if (most <= 2)
			snprintf(why, len, "invalid CPU list '%s' for %s: %s takes %s", list, opt,
				 who ? who : "this", most == 1 ? "one CPU" : "two CPUs");
		else
			snprintf(why, len, "invalid CPU list '%s' for %s: %s takes %d CPUs", list,
				 opt, who ? who : "this", most);
		return -EINVAL;
	}
	return n;
}

int cli_command_words(char ***argv, const char *line, int shell, const char *what, char *why,
		      size_t len)
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

/* The shell operator w is or starts with (the longest first), or NULL. */
static const char *operator_of(const char *w)
{
	static const char *const ops[] = { ">>", "&&", "||", ">", "<", "|", ";" };

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(w, ops[k], strlen(ops[k])))
			return ops[k];
	return NULL;
}

int cli_command_syntax(char *const *argv, char *buf, size_t len)
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

int cli_command_where(const char *cmd, char *buf, size_t len)
{
	char cwd[4096];
	struct stat st;

	if (!cmd || !buf || !len)
		return -EINVAL;
	if (cmd[0] == '/')
		snprintf(buf, len, "there is no file '%s': check the path", cmd);
	else if (strchr(cmd, '/'))
		snprintf(buf, len, "there is no file '%s' in %s (the current directory): check the "
			 "path", cmd, getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	else if (stat(cmd, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(buf, len, "'%s' is not in PATH; the file in the current directory is "
			 "'./%s'", cmd, cmd);
	else
		return 0;
	return 1;
}
