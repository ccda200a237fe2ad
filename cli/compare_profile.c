// SPDX-License-Identifier: MIT
/*
 * pbench compare's profile options (issue 36), kept out of cmd_compare.c: --profile (every
 * timed run of every command sampled, and which function got slower), --profile-fdr PCT (the
 * false discovery rate of the symbols flagged), and stat's --profile-freq, --profile-event,
 * --call-graph, --debug-dir, parsed by cli/profile.c.
 */
#include <stdlib.h>

#include "pbench.h"
#include "cmds.h"

int cli_compare_profile_option(struct cli_compare_profile *p, int c, const char *arg)
{
	if (c == CLI_CPROF_FDR) {
		p->p.given = 1;
		return cli_number("--profile-fdr", "percentage", arg, 0.001, 50, CLI_NUM_POSITIVE,
				  &p->fdr_pct) ? -1 : 0;
	}
	if (c == CLI_PROF_TOP || c == CLI_PROF_FOLDED)
		return 1;
	return cli_profile_option(&p->p, c, arg);
}

int cli_compare_profile_apply(struct cli_compare_profile *p, struct pbench_contest_opts *co)
{
	if (p->p.given && !p->p.on) {
		cli_error("--profile-fdr, --profile-freq, --profile-event, --call-graph and "
			  "--debug-dir are --profile's: give --profile too");
		return EXIT_USAGE;
	}
	if (!p->p.on)
		return 0;
	co->profile = p->p.mode ? p->p.mode : PBENCH_PROFILE_FP;
	co->profile_freq = p->p.freq;
	co->profile_event = p->p.event;
	co->debug_dirs = p->p.dirs;
	co->profile_fdr = p->fdr_pct / 100;
	return 0;
}
