// SPDX-License-Identifier: MIT
/*
 * pbench stat --annotate FUNCTION (issue 36, item 4), kept out of cmd_stat.c: several
 * functions (the option again, or names joined by commas), each a listing of its machine code
 * with its share of the samples. Without --profile, as before: each function of the command's
 * program, read before the runs, with one more sampled run of the command for it. With
 * --profile, from the profile's own samples after the runs, no run more: each function found
 * among the profile's symbols in whichever file the command ran it from (its program, a shared
 * library), else in the program. A name that is not there says so with the nearest one
 * (pbench_suggest(): "did you mean"), from the file's names and the profile's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"

int cli_annotate_option(struct cli_annotate *a, const char *arg)
{
	const char *p = arg;

	do {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char **v;

		if (!len) {
			cli_error("empty function name for --annotate");
			return -1;
		}
		v = realloc(a->names, (size_t)(a->n + 1) * sizeof(*v));
		if (!v || !(v[a->n] = strndup(p, len))) {
			a->names = v ? v : a->names;
			cli_error("out of memory");
			return -1;
		}
		a->names = v;
		a->n++;
		p = e ? e + 1 : NULL;
	} while (p);
	return 0;
}

static int make_slots(struct cli_annotate *a)
{
	if (!a->l && a->n && !(a->l = calloc((size_t)a->n, sizeof(*a->l)))) {
		cli_error("out of memory");
		return -1;
	}
	return 0;
}

int cli_annotate_before(struct cli_annotate *a, char *const argv[], double timeout_s,
			int profile, const volatile int *stop)
{
	if (!a->n || profile)
		return 0;
	if (make_slots(a))
		return EXIT_RUNTIME;
	for (int i = 0; i < a->n; i++) {
		struct pbench_listing_opts lo = { .size = sizeof(lo), .symbol = a->names[i],
						  .stop = stop };
		int err = pbench_listing_annotate(&a->l[i], argv, &lo, timeout_s);

		/* 1: a command that cannot start, said by the runs as for any; -EINTR: stopped,
		 * and the runs that follow say "interrupted" */
		if (err == 1 || err == -EINTR)
			break;
		if (err < 0) {
			cli_error("--annotate %s: %s", a->names[i], pbench_strerror(err));
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* The profile's DSO of the function name (set 0's symbols); else, when the profile has a symbol
 * near it (pbench_suggest(): a mistyped name), that symbol's DSO, its name in *near (the
 * listing of that file then says "did you mean"); else NULL. */
static const char *dso_of(const struct pbench_runs *r, const char *name, const char **near)
{
	struct pbench_profile_info info = { .size = sizeof(info) };
	const char **names, **dsos, *dso = NULL;
	int n, k;

	*near = NULL;
	if (pbench_runs_profile_info(r, 0, &info) || info.nr_symbols <= 0)
		return NULL;
	n = info.nr_symbols;
	names = calloc((size_t)n, sizeof(*names));
	dsos = calloc((size_t)n, sizeof(*dsos));
	for (int i = 0; names && dsos && i < n; i++) {
		struct pbench_profile_symbol y = { .size = sizeof(y) };

		/* a file's function: not the kernel's, not an address nothing names */
		if (pbench_runs_profile_symbol(r, 0, i, &y) || y.unknown || y.kernel ||
		    !y.dso || y.dso[0] != '/')
			continue;
		if (!strcmp(y.name, name)) {
			dso = y.dso;
			break;
		}
		names[i] = y.name;
		dsos[i] = y.dso;
	}
	if (!dso && names && dsos && (k = pbench_suggest(name, names, n)) >= 0) {
		*near = names[k];
		dso = dsos[k];
	}
	free(names);
	free(dsos);
	return dso;
}

int cli_annotate_after(struct cli_annotate *a, const struct pbench_runs *r, char *const argv[],
		       int profile)
{
	char path[4096];

	if (!a->n || !profile)
		return 0;
	if (make_slots(a))
		return EXIT_RUNTIME;
	for (int i = 0; i < a->n; i++) {
		const char *near, *dso = dso_of(r, a->names[i], &near);
		struct pbench_listing_opts lo = { .size = sizeof(lo), .symbol = a->names[i] };
		int err;

		if (!dso && pbench_command_resolve(argv[0], path, sizeof(path)))
			continue;	/* the runs said why it cannot start */
		lo.file = dso ? dso : path;
		err = pbench_listing_new(&a->l[i], &lo);
		if (!err)
			err = pbench_runs_profile_annotate(r, 0, a->l[i]);
		if (err && err != -ENOENT) {
			cli_error("--annotate %s: %s", a->names[i], pbench_strerror(err));
			return EXIT_RUNTIME;
		}
		/* the file's own did-you-mean is in the listing's reason; the profile's, when it
		 * ran the near name from another file, is said here */
		if (near && pbench_listing_status(a->l[i]) != PBENCH_LISTING_OK &&
		    !strstr(pbench_listing_reason(a->l[i]), "did you mean"))
			cli_hint("--annotate %s: did you mean '%s'? (in the profile)", a->names[i],
				 near);
	}
	return 0;
}

int cli_annotate_write(const struct cli_annotate *a, const struct pbench_runs *r, int fmt,
		       unsigned flags, FILE *f)
{
	const struct pbench_listing *first = a->n && a->l ? a->l[0] : NULL;
	int err;

	if (fmt == PBENCH_REPORT_FORMAT_JSON)	/* every listing, in "annotations" */
		return pbench_runs_write_json_listings(r, (const struct pbench_listing *const *)a->l,
						       (const char *const *)a->names,
						       a->l ? a->n : 0, f);
	err = pbench_runs_write_annotated(r, first, first ? a->names[0] : NULL, fmt, flags, f);
	if (fmt != PBENCH_REPORT_FORMAT_TEXT && fmt != PBENCH_REPORT_FORMAT_MARKDOWN)
		return err;
	for (int i = 1; !err && a->l && i < a->n; i++) {
		if (!a->l[i])
			continue;
		if (fmt == PBENCH_REPORT_FORMAT_MARKDOWN) {
			fputs("\n", f);
			err = pbench_listing_write_markdown(a->l[i], f);
		} else {
			fprintf(f, "\n--annotate %s:\n", a->names[i]);
			err = pbench_listing_write_text(a->l[i], f);
		}
	}
	return err;
}

void cli_annotate_release(struct cli_annotate *a)
{
	for (int i = 0; i < a->n; i++) {
		if (a->l)
			pbench_listing_free(a->l[i]);
		free(a->names[i]);
	}
	free(a->l);
	free(a->names);
	*a = (struct cli_annotate){ 0 };
}
