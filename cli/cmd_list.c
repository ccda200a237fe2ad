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

/* The library's list, one entry at a time into an array of our own struct's size. */
static int list_events(const struct pbench_event_list *l, struct pbench_event_desc **out)
{
	int n = pbench_event_list_nr(l);

	*out = calloc((size_t)(n ? n : 1), sizeof(**out));
	for (int i = 0; *out && i < n; i++) {
		(*out)[i].size = sizeof((*out)[i]);
		pbench_event_list_get(l, i, &(*out)[i]);
	}
	return *out ? n : -ENOMEM;
}

static void section_of(const struct pbench_event_desc *d, char *buf, size_t len)
{
	if (!strcmp(d->pmu, "perf"))
		snprintf(buf, len, "%s", d->kind == PBENCH_EVENT_SOFTWARE ? "software events"
									  : "hardware events");
	else if (strchr(d->name, '/'))
		snprintf(buf, len, "kernel PMU events (sysfs)");
	else
		snprintf(buf, len, "%s events (libpfm4)", d->pmu);
}

static void print_text(const struct pbench_event_desc *v, int n, const int *counts, FILE *f)
{
	char last[96] = "", sec[96];
	const char *prev_reason = "";
	int color = cli_color(f), w = 24;

	for (int i = 0; i < n; i++)
		if ((int)strlen(v[i].name) > w)
			w = (int)strlen(v[i].name);

	for (int i = 0; i < n; i++) {
		const char *st = pbench_event_status_name(v[i].status);
		const char *reason = v[i].reason;
		char how[224];

		/* Counted: which way a region reads a hardware event (user space or read()). */
		if (v[i].status == PBENCH_EVENT_OK && v[i].kind != PBENCH_EVENT_SOFTWARE &&
		    !*reason) {
			snprintf(how, sizeof(how), "%s%s", v[i].user_read ? "read in user space" :
				 "read with read(): ", v[i].user_read ? "" : v[i].read_reason);
			reason = how;
		}

		section_of(&v[i], sec, sizeof(sec));
		if (strcmp(sec, last)) {
			fprintf(f, "%s%s:\n", i ? "\n" : "", sec);
			memcpy(last, sec, sizeof(last));
			prev_reason = "";
		}
		/* A long reason shared by a run of events is written out once. */
		if (*reason && !strcmp(reason, prev_reason))
			reason = "(as above)";
		else
			prev_reason = reason;
		if (!*reason)
			fprintf(f, color ? "  %-*s \033[32m%s\033[0m\n" : "  %-*s %s\n", w, v[i].name, st);
		else if (color)
			fprintf(f, "  %-*s %s%-14s\033[0m %s\n", w, v[i].name,
			       v[i].status == PBENCH_EVENT_OK ? "\033[32m" : "\033[33m", st,
			       reason);
		else
			fprintf(f, "  %-*s %-14s %s\n", w, v[i].name, st, reason);
	}
	fprintf(f, "\n%d events: %d ok, %d not supported, %d no permission\n", n,
	       counts[PBENCH_EVENT_OK], counts[PBENCH_EVENT_NOT_SUPPORTED],
	       counts[PBENCH_EVENT_NO_PERMISSION]);
	if (!pbench_cpu_has_pmu()) {
		int tsc = 0;

		/* msr/tsc/ is named only when this machine's list has it opening. */
		for (int i = 0; i < n; i++)
			tsc |= !strcmp(v[i].name, "msr/tsc/") && v[i].status == PBENCH_EVENT_OK;
		fprintf(f, "note: no hardware PMU is exposed here (a VM without PMU passthrough?): "
		       "hardware events cannot be counted; the software events%s can\n",
		       tsc ? " and msr/tsc/" : "");
	}
}

/* The list in each format asked for (cli_out_write). */
struct list_report {
	const struct pbench_event_list *l;
	const struct pbench_event_desc *v;
	int n;
	const int *counts;
};

static int write_report(void *arg, int fmt, FILE *f)
{
	const struct list_report *r = arg;

	if (fmt == CLI_FMT_JSON)
		return pbench_event_list_write_json(r->l, f);
	print_text(r->v, r->n, r->counts, f);
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
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
	struct pbench_event_desc *v;
	struct cli_out out;
	int all = 0, c, n, rc, counts[PBENCH_EVENT_NO_PERMISSION + 1] = { 0 };

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
			cli_option_error(c, argv, "list");
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
	n = pbench_event_list_new(&l, all ? PBENCH_LIST_ALL : 0);
	if (n >= 0 && (n = list_events(l, &v)) < 0)
		pbench_event_list_free(l);
	if (n < 0) {
		cli_error("cannot list events: %s", pbench_strerror(n));
		return cli_out_close(&out, 0, EXIT_RUNTIME);
	}
	for (int i = 0; i < n; i++)
		counts[v[i].status]++;
	rc = cli_out_write(&out, write_report, &(struct list_report){ l, v, n, counts });
	free(v);
	pbench_event_list_free(l);
	return cli_out_close(&out, 1, rc);
}
