/* SPDX-License-Identifier: MIT */
/*
 * pbench analyze: the summary pbench uses, for samples from anywhere (one number per line, or
 * the JSON of pbench, hyperfine or Google Benchmark); with two inputs, their comparison.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"

#define CONFIDENCE 0.999
#define SAME_PCT 1.0		/* the ratio within 1% of 1 is "the same" */

static void analyze_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench analyze [--json] [--unit UNIT] [FILE...]\n"
		"\n"
		"Summarizes samples: one number per line (blank lines and # comments skipped), or\n"
		"the JSON that pbench writes (stat in every mode, the library's result; a\n"
		"comparison is recognized and said to keep no samples), hyperfine (--export-json)\n"
		"or Google Benchmark (--benchmark_format=json). FILE '-' or no FILE reads stdin.\n"
		"With two inputs or more (files, or a file holding several sets), the first is\n"
		"compared with each other one: Welch's t-test, Mann-Whitney U, and the ratio of the\n"
		"means with its %.1f%% interval.\n"
		"\n"
		"  -u, --unit UNIT   unit of plain numbers: ns, us, ms or s (times are then shown\n"
		"                    in scaled units); anything else is printed as a label\n"
		"      --json        JSON on stdout (schema 1)\n"
		"  -h, --help        this help\n", CONFIDENCE * 100);
}

/* Read a whole file (or stdin) into memory. 0, or an exit code after the message. */
static int slurp(const char *path, char **text, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	size_t cap = 65536, n = 0;
	struct stat st;
	char *buf;

	*text = NULL;
	if (fd < 0) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_error("'%s' is a directory: give a file of samples", path);
		close(fd);
		return EXIT_USAGE;
	}
	buf = malloc(cap);
	while (buf) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_error("cannot read '%s': %s", path, strerror(errno));
			free(buf);
			if (fd != STDIN_FILENO)
				close(fd);
			return EXIT_RUNTIME;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (!buf) {
		cli_error("out of memory reading '%s'", path);
		return EXIT_RUNTIME;
	}
	*text = buf;
	*len = n;
	return 0;
}

static int read_input(struct pbench_samples *in, const char *path, const char *unit)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	int before = pbench_samples_nr(in), rc, err;
	char why[512] = "", *text;
	size_t len;

	rc = slurp(path, &text, &len);
	if (rc)
		return rc;
	err = pbench_samples_add_text(in, text, len, name, unit, why, sizeof(why));
	free(text);
	if (err == -ENOMEM) {
		cli_error("%s", why);
		return EXIT_RUNTIME;
	}
	if (err < 0) {
		cli_error("%s", why);
		return EXIT_USAGE;
	}
	if (!err && pbench_samples_note(in))
		printf("%s\n", pbench_samples_note(in));
	for (int k = before; k < pbench_samples_nr(in); k++) {
		size_t n;

		pbench_samples_values(in, k, &n);
		if (n == 1) {
			cli_error("%s: a single sample: nothing to summarize (need 2 or more)",
				  pbench_samples_name(in, k));
			return EXIT_USAGE;
		}
	}
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "unit", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct pbench_samples *in = NULL;
	const char *unit = NULL;
	int json = 0, c, rc = EXIT_USAGE, err;
	char why[512];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ju:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'u': unit = optarg; break;
		case 'h': analyze_usage(stdout); return EXIT_OK;
		default:
			cli_option_error(c, argv, "analyze");
			return EXIT_USAGE;
		}
	}
	if (pbench_samples_new(&in)) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (optind == argc && (rc = read_input(in, "-", unit)))
		goto out;
	for (int i = optind; i < argc; i++)
		if ((rc = read_input(in, argv[i], unit)))
			goto out;
	rc = EXIT_OK;
	if (!pbench_samples_nr(in))
		goto out;	/* only comparisons, said above */
	err = pbench_samples_analyze(in, CONFIDENCE, SAME_PCT, why, sizeof(why));
	if (err) {
		cli_error("%s", why);
		rc = err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
		goto out;
	}
	err = json ? pbench_samples_write_json(in, stdout) : pbench_samples_write_text(in, stdout);
	if (err) {
		cli_error("cannot write the %s: %s", json ? "JSON" : "analysis", pbench_strerror(err));
		rc = EXIT_RUNTIME;
	}
out:
	pbench_samples_free(in);
	return rc;
}
