/* SPDX-License-Identifier: MIT */
/* pbench list: the events, and whether each opens on this machine right now, and why not. */
#include <getopt.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

static void list_usage(FILE *f)
{
	fputs(PB_HELP_LIST, f);
}

/* The list in each format asked for (cli_out_write): the library's writers. */
static int write_report(void *arg, int fmt, FILE *f)
{
	const struct pbench_event_list *l = arg;

	if (fmt == CLI_FMT_JSON)
		return pbench_event_list_write_json(l, f);
	return pbench_event_list_write_text(l, f, cli_term_color(f) ? PBENCH_EVENT_LIST_WRITE_COLOR : 0);
}

static int list_option(int c, const char *arg, void *all)
{
	(void)arg;
	if (c != 'a' && c != 'M')
		return 1;
	*(int *)all |= c == 'a' ? 1 : 2;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "metrics", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	struct pbench_event_list *l;
	struct cli_out out;
	int all = 0, err, rc;

	cli_out_init(&out, "list", CLI_OUT_JSON, CLI_OUT_NO_ARGS);
	rc = cli_options(argc, argv, "+:aMh", opts, &out, list_usage, list_option, &all);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	rc = cli_out_open(&out);
	if (rc)
		return rc;
	if (all & 2)	/* the derived metrics, text only */
		return cli_out_close(&out, 1, pbench_metric_list_write_text(stdout) ?
				     EXIT_RUNTIME : EXIT_OK);
	err = pbench_event_list_new(&l, all & 1 ? PBENCH_LIST_ALL : 0);
	if (err < 0) {
		cli_error("cannot list events: %s", pbench_strerror(err));
		return cli_out_close(&out, 0, EXIT_RUNTIME);
	}
	rc = cli_out_write(&out, write_report, l);
	pbench_event_list_free(l);
	return cli_out_close(&out, 1, rc);
}
