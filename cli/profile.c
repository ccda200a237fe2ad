// SPDX-License-Identifier: MIT
/*
 * pbench stat's profile options (issue 36), kept out of cmd_stat.c: --profile (every timed
 * run sampled), --profile-freq HZ, --profile-event NAME, --call-graph fp|dwarf, --profile-top
 * N, --debug-dir DIR (again for more), --export-folded FILE (FlameGraph's folded stacks,
 * written whole as every output).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"

static const char *const call_graphs[] = { "fp", "dwarf" };

static int add_dir(struct cli_profile *p, const char *dir)
{
	size_t n = p->dirs ? strlen(p->dirs) + 1 : 0;
	char *v;

	if (!*dir || strchr(dir, ':')) {
		cli_error("--debug-dir '%s': give one directory a time, not empty and without ':'",
			  dir);
		return -1;
	}
	v = realloc(p->dirs, n + strlen(dir) + 1);
	if (!v) {
		cli_error("out of memory");
		return -1;
	}
	if (n)
		v[n - 1] = ':';
	strcpy(v + n, dir);
	p->dirs = v;
	return 0;
}

int cli_profile_option(struct cli_profile *p, int c, const char *arg)
{
	int k;

	if (c < CLI_PROF_ON || c > CLI_PROF_FOLDED)
		return 1;
	p->given |= c != CLI_PROF_ON;
	switch (c) {
	case CLI_PROF_ON:
		p->on = 1;
		return 0;
	case CLI_PROF_FREQ:
		return cli_number("--profile-freq", "rate (Hz)", arg, 1, 1e6, CLI_NUM_POSITIVE,
				  &p->freq) ? -1 : 0;
	case CLI_PROF_EVENT:
		if (!*arg) {
			cli_error("empty event name for --profile-event");
			return -1;
		}
		p->event = arg;
		return 0;
	case CLI_PROF_CALL_GRAPH:
		k = cli_choice("--call-graph", arg, call_graphs, 2);
		if (k < 0)
			return -1;
		p->mode = k ? PBENCH_PROFILE_DWARF : PBENCH_PROFILE_FP;
		return 0;
	case CLI_PROF_TOP:
		return cli_long("--profile-top", "count", arg, 1, 100000, &p->top) ? -1 : 0;
	case CLI_PROF_DEBUG_DIR:
		return add_dir(p, arg);
	case CLI_PROF_FOLDED:
		if (!*arg) {
			cli_error("empty file name for --export-folded");
			return -1;
		}
		p->folded = arg;
		return 0;
	}
	return 1;
}

int cli_profile_apply(struct cli_profile *p, struct pbench_runs_opts *ro)
{
	int err;

	if (p->given && !p->on) {
		cli_error("--profile-freq, --profile-event, --call-graph, --profile-top, "
			  "--debug-dir and --export-folded are --profile's: give --profile too");
		return EXIT_USAGE;
	}
	if (!p->on)
		return 0;
	if (!ro->argv) {
		cli_error("--profile samples a command: give the command after --");
		return EXIT_USAGE;
	}
	ro->profile = p->mode ? p->mode : PBENCH_PROFILE_FP;
	ro->profile_freq = p->freq;
	ro->profile_event = p->event;
	ro->profile_top = (int)p->top;
	ro->debug_dirs = p->dirs;
	if (p->folded && (err = pbench_output_open(&p->out, p->folded))) {
		cli_error("cannot write --export-folded '%s': %s", p->folded, pbench_strerror(err));
		return EXIT_USAGE;
	}
	return 0;
}

int cli_profile_write(struct cli_profile *p, const struct pbench_runs *r)
{
	int err = 0, wrote = 0;

	if (!p->out)
		return 0;
	for (int s = 0; s < pbench_runs_nr_sets(r) && !err; s++) {
		int e = pbench_runs_write_folded(r, s, pbench_output_file(p->out));

		wrote += !e;
		err = e == -ENOENT ? 0 : e;
	}
	if (!err)
		err = pbench_output_close(p->out, 1);
	else
		pbench_output_close(p->out, 0);
	p->out = NULL;
	if (err) {
		cli_error("cannot write --export-folded '%s': %s", p->folded, pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	if (!wrote)
		cli_warn("--export-folded '%s': no profile to write (no run was profiled)",
			 p->folded);
	return 0;
}

void cli_profile_release(struct cli_profile *p)
{
	if (p->out)
		pbench_output_close(p->out, 0);
	free(p->dirs);
	p->out = NULL;
	p->dirs = NULL;
}
