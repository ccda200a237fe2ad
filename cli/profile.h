/* SPDX-License-Identifier: MIT */
/*
 * The profile's options of pbench stat (issue 36: --profile and its company), parsed here so
 * that cmd_stat.c only hooks them in: cli/profile.c.
 */
#ifndef PBENCH_CLI_PROFILE_H
#define PBENCH_CLI_PROFILE_H

#include <stdio.h>

#include "pbench.h"

enum { CLI_PROF_ON = 0x4400, CLI_PROF_FREQ, CLI_PROF_EVENT, CLI_PROF_CALL_GRAPH, CLI_PROF_TOP,
       CLI_PROF_DEBUG_DIR, CLI_PROF_FOLDED };

#define CLI_PROFILE_OPTIONS \
	{ "profile", no_argument, NULL, CLI_PROF_ON }, \
	{ "profile-freq", required_argument, NULL, CLI_PROF_FREQ }, \
	{ "profile-event", required_argument, NULL, CLI_PROF_EVENT }, \
	{ "call-graph", required_argument, NULL, CLI_PROF_CALL_GRAPH }, \
	{ "profile-top", required_argument, NULL, CLI_PROF_TOP }, \
	{ "debug-dir", required_argument, NULL, CLI_PROF_DEBUG_DIR }, \
	{ "export-folded", required_argument, NULL, CLI_PROF_FOLDED }

struct cli_profile {
	int on, given;			/* --profile; another profile option given */
	int mode;			/* enum pbench_profile_mode of --call-graph (0: fp) */
	double freq;
	const char *event, *folded;
	long top;
	char *dirs;			/* --debug-dir's, joined by ':' */
	struct pbench_output *out;	/* --export-folded's file, opened before the runs */
};

/* c one of CLI_PROFILE_OPTIONS: 0 taken, -1 said, 1 not one. */
int cli_profile_option(struct cli_profile *p, int c, const char *arg);
/* Into the runs' options, and the checks: 0, or EXIT_USAGE after the message (a profile
 * option without --profile, --profile without a command, --export-folded's path). */
int cli_profile_apply(struct cli_profile *p, struct pbench_runs_opts *ro);
/* --export-folded written whole after the runs: 0, or EXIT_RUNTIME after the message. */
int cli_profile_write(struct cli_profile *p, const struct pbench_runs *r);
void cli_profile_release(struct cli_profile *p);

#endif
