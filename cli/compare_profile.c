// SPDX-License-Identifier: MIT
/*
 * pbench compare's profile options (issue 36), kept out of cmd_compare.c: --profile (every
 * timed run of every command sampled, and which function got slower), --profile-fdr PCT (the
 * false discovery rate of the symbols flagged), and stat's --profile-freq, --profile-event,
 * --call-graph, --debug-dir, parsed by cli/profile.c; --flamegraph FILE.svg, the differential
 * flame graph of the first challenger against the reference (written whole, as every output).
 */
#include <errno.h>
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
	if (c == CLI_PROF_FLAME) {
		p->p.given = 1;
		if (!*arg) {
			cli_error("empty file name for --flamegraph");
			return -1;
		}
		p->flame = arg;
		return 0;
	}
	if (c == CLI_PROF_TOP || c == CLI_PROF_FOLDED || c == CLI_PROF_PPROF)
		return 1;
	return cli_profile_option(&p->p, c, arg);
}

int cli_compare_profile_apply(struct cli_compare_profile *p, struct pbench_contest_opts *co)
{
	int err;

	if (p->p.given && !p->p.on) {
		cli_error("--profile-fdr, --profile-freq, --profile-event, --call-graph, "
			  "--debug-dir and --flamegraph are --profile's: give --profile too");
		return EXIT_USAGE;
	}
	if (!p->p.on)
		return 0;
	co->profile = p->p.mode ? p->p.mode : PBENCH_PROFILE_FP;
	co->profile_freq = p->p.freq;
	co->profile_event = p->p.event;
	co->debug_dirs = p->p.dirs;
	co->profile_fdr = p->fdr_pct / 100;
	if (p->flame && (err = pbench_output_open(&p->flame_out, p->flame))) {
		cli_error("cannot write --flamegraph '%s': %s", p->flame, pbench_strerror(err));
		return EXIT_USAGE;
	}
	return 0;
}

int cli_compare_profile_write(struct cli_compare_profile *p, const struct pbench_contest *c,
			      int reference)
{
	int err, i = reference ? 0 : 1;

	if (!p->flame_out)
		return 0;
	err = pbench_contest_write_flamegraph(c, i, pbench_output_file(p->flame_out));
	if (err) {
		pbench_output_close(p->flame_out, 0);
		p->flame_out = NULL;
		if (err == -ENOENT) {
			cli_warn("--flamegraph '%s': no profile to draw (no run was profiled)",
				 p->flame);
			return 0;
		}
		cli_error("cannot write --flamegraph '%s': %s", p->flame, pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	err = pbench_output_close(p->flame_out, 1);
	p->flame_out = NULL;
	if (err) {
		cli_error("cannot write --flamegraph '%s': %s", p->flame, pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	return 0;
}

void cli_compare_profile_release(struct cli_compare_profile *p)
{
	if (p->flame_out)
		pbench_output_close(p->flame_out, 0);
	p->flame_out = NULL;
	cli_profile_release(&p->p);
}
