/* SPDX-License-Identifier: MIT */
/*
 * pbench history: the measurements kept by --record and `history add`, their change points,
 * the CI gate and the OpenMetrics export. The library does all of it (pbench/history.h).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

static void history_usage(FILE *f)
{
	fprintf(f, PB_HELP_HISTORY, PBENCH_HISTORY_DEFAULT_PATH, PBENCH_HISTORY_THRESHOLD_PCT,
		PBENCH_HISTORY_GATE_LAST, PBENCH_HISTORY_CHANGES_DEFAULT_WINDOW,
		PBENCH_HISTORY_CHANGES_DEFAULT_P);
}

struct hist {
	const char **args, *path, *commit, *name;
	int nargs, om, cpu_time;
	double threshold;
	long last, window;
	struct pbench_history_changes_opts co;
	struct pbench_history *h;
};

enum { OPT_HISTORY = 256, OPT_COMMIT, OPT_THRESHOLD, OPT_LAST, OPT_WINDOW, OPT_P, OPT_OM,
       OPT_CPU_TIME };

static int history_option(int c, const char *arg, void *ctx)
{
	struct hist *a = ctx;

	if (c == 1 || c == OPT_HISTORY || c == OPT_COMMIT)
		*(c == 1 ? &a->args[a->nargs++] : c == OPT_HISTORY ? &a->path : &a->commit) = arg;
	else if (c == OPT_OM || c == OPT_CPU_TIME)
		*(c == OPT_OM ? &a->om : &a->cpu_time) = 1;
	else if (c == OPT_THRESHOLD)
		return cli_number("--threshold", "percentage", arg, 0, 10000,
				  CLI_NUM_PCT | CLI_NUM_POSITIVE, &a->threshold) ? -1 : 0;
	else if (c == OPT_LAST || c == OPT_WINDOW)
		return cli_long(c == OPT_LAST ? "--last" : "--window", "point count", arg,
				c == OPT_LAST ? 1 : 4 * PBENCH_HISTORY_CHANGES_DEFAULT_MIN_SEGMENT,
				c == OPT_LAST ? 1000000 : PBENCH_HISTORY_CHANGES_MAX_WINDOW,
				c == OPT_LAST ? &a->last : &a->window) ? -1 : 0;
	else if (c == OPT_P)
		return cli_number("--p-value", "p-value", arg, 0, 0.49, CLI_NUM_POSITIVE,
				  &a->co.p) ? -1 : 0;
	return c == 1 || c == OPT_HISTORY || c == OPT_COMMIT || c == OPT_OM || c == OPT_CPU_TIME ?
	       0 : 1;
}

/* The store: --history, else the library's (PBENCH_HISTORY, else the default). 0 or
 * EXIT_RUNTIME, said. */
static int open_store(struct pbench_history **h, const char *path, int read_only)
{
	struct pbench_history_opts ho = PBENCH_HISTORY_OPTS_INIT;
	int err;

	ho.read_only = read_only;
	if (!(err = pbench_history_open(h, path && *path ? path : NULL, &ho)))
		return 0;
	cli_error("%s", pbench_strerror(err));
	if (err == -ENOENT)
		cli_hint("'pbench stat --record NAME ...' or 'pbench history add NAME FILE' makes it");
	return EXIT_RUNTIME;
}

int cli_history_drift(const struct cli_run *r, const char *name, double *sd, int *occasions,
		      int *commits)
{
	struct pbench_history_opts ho = PBENCH_HISTORY_OPTS_INIT;
	struct pbench_history_drift d = { .size = sizeof(d) };
	struct pbench_history *h;
	int err;

	ho.read_only = 1;
	err = pbench_history_open(&h, r->history && *r->history ? r->history : NULL, &ho);
	if (!err) {
		err = pbench_history_drift(h, name, &d);
		if (err == -ENOENT)
			cli_warn("--occasions %s: %s: the gate keeps its fixed allowance for another "
				 "moment", name, pbench_strerror(err));
		pbench_history_close(h);
	} else if (err == -ENOENT) {
		cli_warn("--occasions %s: %s: the gate keeps its fixed allowance for another "
			 "moment", name, pbench_strerror(err));
	}
	if (err && err != -ENOENT) {
		cli_error("--occasions %s: %s", name, pbench_strerror(err));
		return EXIT_RUNTIME;
	}
	if (!err) {
		*sd = d.sd;
		*occasions = d.occasions;
		*commits = d.commits;
	}
	return EXIT_OK;
}

int cli_record_check(const struct cli_run *r)
{
	int rc;

	if (!r->record)
		return EXIT_OK;
	if (!*r->record) {
		cli_error("--record: the series' NAME is empty");
		return EXIT_USAGE;
	}
	rc = pbench_history_path_check(r->history && *r->history ? r->history : NULL);
	if (rc) {
		cli_error("--history: %s", pbench_strerror(rc));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_record(const struct cli_run *r, int (*write)(void *arg, int fmt, FILE *f), void *arg)
{
	struct pbench_history_import_opts io = PBENCH_HISTORY_IMPORT_OPTS_INIT;
	int n;

	io.rev = r->commit;
	io.stop = cli_stop;	/* a Ctrl-C of the command: nothing recorded */
	n = pbench_history_import_writer(r->history && *r->history ? r->history : NULL, r->record,
					 write, arg, &io);
	if (n > 0)
		fprintf(stderr, "pbench: recorded '%s' in the history (%d series)\n", r->record, n);
	else if (n < 0)
		cli_error("cannot record '%s': %s", r->record, pbench_strerror(n));
	return n < 0 ? EXIT_RUNTIME : EXIT_OK;
}

static int write_show(void *arg, int fmt, FILE *f)
{
	struct hist *a = arg;

	return pbench_history_write(a->h, a->name, &a->co, fmt, f);
}

/* Each name through the gate (check), or shown (show): one line each for the gate. */
static int names(struct hist *a, struct cli_out *out, int check)
{
	int rc = EXIT_OK;

	for (int i = 1; i < a->nargs && rc != EXIT_USAGE; i++) {
		struct pbench_history_verdict v = { .size = sizeof(v) };
		int err = pbench_history_check(a->h, a->name = a->args[i], &a->co, a->threshold,
					       (int)a->last, &v);

		if (err) {
			cli_error("%s", pbench_strerror(err));
			return err == -ENOENT || err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		}
		if (check)
			printf("%s\n", v.line);
		rc = check ? (v.regression ? EXIT_RUNTIME : rc) : cli_out_write(out, write_show, a);
	}
	return rc;
}

/*
 * Each file imported whole or not at all (one transaction each). Under the stop flag
 * (cli_stop_catch(), the import's opts.stop): a SIGINT or SIGTERM (or any signal that would
 * end pbench) during an import rolls it back, said ("nothing added, the store is as it was"),
 * and the files after it are not read; exit 1, or the death of any other signal once said,
 * as the measuring commands do.
 */
static int add(struct hist *a)
{
	struct pbench_history_import_opts io = PBENCH_HISTORY_IMPORT_OPTS_INIT;
	const volatile int *stop = cli_stop_catch();
	int rc = EXIT_OK, sig;

	io.rev = a->commit;
	io.cpu_time = a->cpu_time;
	io.stop = stop;
	for (int i = 2; i < a->nargs && rc == EXIT_OK; i++) {
		int n = pbench_history_import_file(a->h, a->args[1], a->args[i], &io);

		if (n < 0) {
			cli_error("%s", pbench_strerror(n));
			rc = n == -EINVAL || n == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME;
			break;
		}
		printf("%s: %d record%s added to '%s'\n", a->args[i], n, n == 1 ? "" : "s",
		       a->args[1]);
		if (*stop && i + 1 < a->nargs) {
			cli_error("interrupted by signal %d: the files after '%s' were not added",
				  *stop, a->args[i]);
			rc = EXIT_RUNTIME;
		}
	}
	sig = cli_stop_restore();
	if (sig && rc == EXIT_OK) {	/* after the last commit: all of it is in */
		cli_error("interrupted by signal %d once every file was added", sig);
		rc = EXIT_RUNTIME;
	}
	if (sig && sig != SIGINT && sig != SIGTERM)
		cli_stop_die(sig);	/* returns only for a signal that does not end it */
	return rc;
}

static int run(struct hist *a, struct cli_out *out)
{
	static const char *const subs[] = { "list", "show", "add", "check", "export" };
	int sub = a->nargs ? cli_choice("the subcommand", a->args[0], subs, 5) : 0, rc, err;
	static const int min_args[] = { 0, 2, 3, 2, 0 };

	if (sub < 0)
		return EXIT_USAGE;
	if (a->nargs < min_args[sub] || (sub == 4 && !a->om) ||
	    (sub != 1 && cli_out_wants(out, -1))) {
		cli_error("%s", sub == 4 && !a->om ? "history export: give the format, "
			  "--openmetrics" : sub != 1 && cli_out_wants(out, -1) ? "--json, --csv, "
			  "--markdown and --plot are options of 'pbench history show'" : sub == 2 ?
			  "history add: give a NAME and one FILE or more" : "give the series' NAME");
		return EXIT_USAGE;
	}
	if (sub == 1 && a->nargs > 2 && cli_out_wants(out, -1)) {
		cli_error("--json, --csv, --markdown and --plot show one series: give one NAME");
		return EXIT_USAGE;
	}
	a->co.window = (size_t)a->window;
	if ((rc = open_store(&a->h, a->path, sub != 2)))
		return rc;
	rc = sub == 0 ? (pbench_history_write_list(a->h, stdout) ? EXIT_RUNTIME : 0) :
	     sub == 2 ? add(a) : sub == 4 ? (pbench_history_write_openmetrics(a->h, stdout) ?
					     EXIT_RUNTIME : 0) : names(a, out, sub == 3);
	/* main() says a failed stdout by errno: the write's (ENOSPC), not the close's. */
	err = errno;
	pbench_history_close(a->h);
	errno = err;
	return rc;
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "history", required_argument, NULL, OPT_HISTORY },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "last", required_argument, NULL, OPT_LAST },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "p-value", required_argument, NULL, OPT_P },
		{ "openmetrics", no_argument, NULL, OPT_OM },
		{ "cpu-time", no_argument, NULL, OPT_CPU_TIME },
		{ "help", no_argument, NULL, 'h' },
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	struct hist a = { .args = calloc((size_t)argc + 1, sizeof(char *)),
			  .co = PBENCH_HISTORY_CHANGES_OPTS_INIT };
	struct cli_out out;
	int rc;

	if (!a.args)
		return EXIT_RUNTIME;
	cli_out_init(&out, "history", CLI_OUT_JSON | CLI_OUT_CSV | CLI_OUT_MARKDOWN | CLI_OUT_PLOT,
		     CLI_OUT_DASH);
	rc = cli_options(argc, argv, "-:h", opts, &out, history_usage, history_option, &a);
	while (!rc && optind < argc)
		a.args[a.nargs++] = argv[optind++];
	if (!rc && !(rc = cli_out_open(&out)))
		rc = cli_out_close(&out, 1, run(&a, &out));
	else
		rc = rc < 0 ? EXIT_USAGE : rc == 1 ? EXIT_OK : rc;
	free(a.args);
	return rc;
}
