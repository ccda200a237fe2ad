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

static int list_option(int c, const char *arg, void *all)
{
	(void)arg;
	if (c != 'a')
		return 1;
	*(int *)all = 1;
	return 0;
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
	int all = 0, err, rc;

	cli_out_init(&out, "list", CLI_OUT_JSON, CLI_OUT_NO_ARGS);
	rc = cli_options(argc, argv, "+:ah", opts, &out, list_usage, list_option, &all);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
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
