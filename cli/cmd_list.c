/* SPDX-License-Identifier: MIT */
/* pbench list: the events, and whether each opens on this machine right now, and why not. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench list [--all] [--json]\n"
		"\n"
		"Lists the generic perf events, the software events and the sysfs PMU events, each\n"
		"with whether it can be counted here now (ok, not-supported, no-permission) and why.\n"
		"\n"
		"  -a, --all    also every libpfm4 event of the detected hardware PMUs\n"
		"      --json   JSON on stdout (schema 1)\n"
		"  -h, --help   this help\n");
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct pbench_event_list *l;
	int all = 0, json = 0, c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ajh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = 1; break;
		case 'j': json = 1; break;
		case 'h': list_usage(stdout); return EXIT_OK;
		default:
			cli_option_error(c, argv, "list");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s' for 'pbench list'", argv[optind]);
		return EXIT_USAGE;
	}
	err = pbench_event_list_new(&l, all ? PBENCH_LIST_ALL : 0);
	if (err < 0) {
		cli_error("cannot list events: %s", pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	err = json ? pbench_event_list_write_json(l, stdout) :
		     pbench_event_list_write_text(l, stdout, cli_color(stdout) ?
						  PBENCH_EVENT_LIST_WRITE_COLOR : 0);
	pbench_event_list_free(l);
	if (err) {
		cli_error("cannot write the list: %s", pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
