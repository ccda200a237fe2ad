/* SPDX-License-Identifier: MIT */
/* The subcommands, and the few helpers every one of them uses (defined in pbench.c). */
#ifndef PBENCH_CLI_CMDS_H
#define PBENCH_CLI_CMDS_H

#include <stdio.h>

int cmd_analyze(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_jitter(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);

/* Exit codes of pbench. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* "pbench: error: <msg>" on stderr, one line. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hint: <msg>" on stderr. */
void cli_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a whole decimal integer in [lo, hi]; 0 on success, -1 otherwise. */
int cli_parse_long(const char *s, long lo, long hi, long *out);
/* 1 if color output to this stream is wanted (a TTY and NO_COLOR unset). */
int cli_color(FILE *f);

#endif
