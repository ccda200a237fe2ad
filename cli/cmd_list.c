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
		"usage: pbench list [--all] [--json] [--export-json FILE]\n"
		"\n"
		"Lists the generic perf events, the software events and the sysfs PMU events, each\n"
		"with whether it can be counted here now (ok, not-supported, no-permission) and why.\n"
		"\n"
		"  -a, --all              also every libpfm4 event of the detected hardware PMUs\n");
	cli_out_usage(f, CLI_OUT_JSON, NULL, 25);
	fprintf(f, "  -h, --help             this help\n"
		"\n"
		"examples:\n"
		"  pbench list                            what opens here, and why not\n"
		"  pbench list --all | grep -i cache      every libpfm4 name of this CPU\n");
}

/* The list in each format asked for (cli_out_write): the library's writers. */
static int write_report(void *arg, int fmt, FILE *f)
{
	const struct pbench_event_list *l = arg;

	if (fmt == CLI_FMT_JSON)
		return pbench_event_list_write_json(l, f);
	return pbench_event_list_write_text(l, f, cli_color(f) ? PBENCH_EVENT_LIST_WRITE_COLOR : 0);
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	struct pbench_event_list *l;
	struct cli_out out;
	int all = 0, c, err, rc;

	optind = 1;
	opterr = 0;
	cli_out_init(&out, "list", CLI_OUT_JSON, CLI_OUT_NO_ARGS);
	while ((c = getopt_long(argc, argv, "+:ah", opts, NULL)) != -1) {
		int taken = cli_out_option(&out, c, optarg, argc, argv);

		if (taken < 0)
			return EXIT_USAGE;
		if (taken)
			continue;
		switch (c) {
		case 'a': all = 1; break;
		case 'h': list_usage(stdout); return EXIT_OK;
		default:
			cli_option_error(c, argv, "list", opts, CLI_OUT_JSON);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s' for 'pbench list'", argv[optind]);
		return EXIT_USAGE;
	}
	rc = cli_out_open(&out);
	if (rc)
		return rc;
	err = pbench_event_list_new(&l, all ? PBENCH_LIST_ALL : 0);
	if (err < 0) {
		cli_error("cannot list events: %s", pbench_strerror(err));
		return cli_out_close(&out, 0, EXIT_RUNTIME);
	}
	rc = cli_out_write(&out, write_report, l);
	pbench_event_list_free(l);
	return cli_out_close(&out, 1, rc);
}
