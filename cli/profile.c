// SPDX-License-Identifier: MIT
/*
 * pbench stat's profile options (issue 36), kept out of cmd_stat.c: --profile (every timed
 * run sampled), --profile-freq HZ, --profile-event NAME, --call-graph fp|dwarf, --profile-top
 * N, --debug-dir DIR (again for more), and the exports, each written whole as every output:
 * --export-folded FILE (FlameGraph's folded stacks), --flamegraph FILE.svg (a flame graph
 * drawn by pbench), --export-pprof FILE (pprof's gzipped profile.proto). A file holds one
 * set's profile but the folded stacks, which are lines: those of each set follow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"

static const char *const call_graphs[] = { "fp", "dwarf" };

/* The exports, in CLI_PROF_FOLDED's order. */
static const struct {
	const char *option;
	int (*write)(const struct pbench_runs *r, int s, FILE *f);
	int one_set;		/* 1: the file holds one set's profile */
} exports[3] = {
	{ "--export-folded", pbench_runs_write_folded, 0 },
	{ "--flamegraph", pbench_runs_write_flamegraph, 1 },
	{ "--export-pprof", pbench_runs_write_pprof, 1 },
};

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

	if (c < CLI_PROF_ON || c > CLI_PROF_PPROF)
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
	case CLI_PROF_FLAME:
	case CLI_PROF_PPROF:
		if (!*arg) {
			cli_error("empty file name for %s", exports[c - CLI_PROF_FOLDED].option);
			return -1;
		}
		p->export[c - CLI_PROF_FOLDED] = arg;
		return 0;
	}
	return 1;
}

int cli_profile_apply(struct cli_profile *p, struct pbench_runs_opts *ro)
{
	int err;

	if (p->given && !p->on) {
		cli_error("--profile-freq, --profile-event, --call-graph, --profile-top, "
			  "--debug-dir, --export-folded, --flamegraph and --export-pprof are "
			  "--profile's: give --profile too");
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
	for (int i = 0; i < 3; i++)
		if (p->export[i] && (err = pbench_output_open(&p->out[i], p->export[i]))) {
			cli_error("cannot write %s '%s': %s", exports[i].option, p->export[i],
				  pbench_strerror(err));
			return EXIT_USAGE;
		}
	return 0;
}

/* Export i: every set's profile (one_set: the first that has one, the others said), then the
 * file put in place. */
static int write_one(struct cli_profile *p, int i, const struct pbench_runs *r)
{
	int err = 0, wrote = 0;

	for (int s = 0; s < pbench_runs_nr_sets(r) && !err; s++) {
		if (wrote && exports[i].one_set) {
			struct pbench_profile_info info = { .size = sizeof(info) };

			if (!pbench_runs_profile_info(r, s, &info) && !info.status)
				cli_warn("%s '%s': holds the first set's profile only",
					 exports[i].option, p->export[i]);
			break;
		}
		int e = exports[i].write(r, s, pbench_output_file(p->out[i]));

		wrote += !e;
		err = e == -ENOENT ? 0 : e;
	}
	if (!err)
		err = pbench_output_close(p->out[i], 1);
	else
		pbench_output_close(p->out[i], 0);
	p->out[i] = NULL;
	if (err) {
		cli_error("cannot write %s '%s': %s", exports[i].option, p->export[i],
			  pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	if (!wrote)
		cli_warn("%s '%s': no profile to write (no run was profiled)", exports[i].option,
			 p->export[i]);
	return 0;
}

int cli_profile_write(struct cli_profile *p, const struct pbench_runs *r)
{
	int rc = 0;

	for (int i = 0; i < 3; i++)
		if (p->out[i]) {
			int e = write_one(p, i, r);

			rc = rc ? rc : e;
		}
	return rc;
}

void cli_profile_release(struct cli_profile *p)
{
	for (int i = 0; i < 3; i++) {
		if (p->out[i])
			pbench_output_close(p->out[i], 0);
		p->out[i] = NULL;
	}
	free(p->dirs);
	p->dirs = NULL;
}
