/* SPDX-License-Identifier: MIT */
/*
 * The command line's sentences (cli/support/words.c, progress.c): "did you mean" and an
 * option's values, a number out of its range, a bad --cpu against this machine's sets and a
 * recorded one's, a command line that cannot be split, shell syntax no shell reads, where a
 * command not found was looked for, the progress lines of stat and compare; each exactly as
 * pbench prints it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "testutil.h"

/* The same in words, and a word checked against an option's values: found, or what it can be
 * with the nearest one. */
Test(cli_words, suggest_in_words_and_as_a_choice)
{
	static const char *const kinds[] = { "unprepared", "prepared", "contrast" };
	char buf[160];

	cr_expect_eq(cli_suggest_text("preprared", kinds, 3, "--", buf, sizeof(buf)), 1);
	cr_expect_str_eq(buf, " (did you mean '--prepared'?)");
	cr_expect_eq(cli_suggest_text("zzzzzzzz", kinds, 3, NULL, buf, sizeof(buf)), -1);
	cr_expect_str_empty(buf);
	cr_expect_eq(cli_suggest_text("x", kinds, 3, NULL, NULL, 0), -EINVAL);
	cr_expect_eq(cli_suggest_choice("contrast", kinds, 3, buf, sizeof(buf)), 2);
	cr_expect_eq(cli_suggest_choice("contrats", kinds, 3, buf, sizeof(buf)), -ENOENT);
	cr_expect_str_eq(buf, "it is one of unprepared, prepared or contrast (did you mean "
			 "'contrast'?)");
	cr_expect_eq(cli_suggest_choice("zzzzzzzz", kinds, 2, buf, sizeof(buf)), -ENOENT);
	cr_expect_str_eq(buf, "it is one of unprepared or prepared");
	cr_expect_eq(cli_suggest_choice(NULL, kinds, 3, buf, sizeof(buf)), -EINVAL);
}

/* A number in a range, and what was expected said when it is not. */
Test(cli_words, parse_number_in_a_range)
{
	double v = -1;
	char why[128];

	cr_assert_eq(cli_parse_in("7", PBENCH_FORMAT_PARSE_INT, 1, 10, &v, why,
				  sizeof(why)), 0);
	cr_expect_eq(v, 7);
	cr_expect_eq(cli_parse_in("11", PBENCH_FORMAT_PARSE_INT, 1, 10, &v, why,
				  sizeof(why)), -ERANGE);
	cr_expect_str_eq(why, "a whole number from 1 to 10");
	cr_expect_eq(v, 7, "untouched");
	cr_expect_eq(cli_parse_in("2.5", PBENCH_FORMAT_PARSE_INT, 1, 10, &v, why,
				  sizeof(why)), -EINVAL);
	cr_expect_eq(cli_parse_in("0", CLI_PARSE_POSITIVE |
				  PBENCH_FORMAT_PARSE_PCT, 0, 50, &v, why, sizeof(why)),
		     -ERANGE, "0 is not more than 0");
	cr_expect_str_eq(why, "a number more than 0 and at most 50 (a percentage)");
	cr_assert_eq(cli_parse_in("5%", CLI_PARSE_POSITIVE |
				  PBENCH_FORMAT_PARSE_PCT, 0, 50, &v, why, sizeof(why)), 0);
	cr_expect_eq(v, 5);
	cr_expect_eq(cli_parse_in("x", 0, 0, 0.5, &v, why, sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "a number from 0 to 0.5");
	cr_expect_eq(cli_parse_in("1", 0, 0, 2, NULL, why, sizeof(why)), -EINVAL);
	cr_expect_eq(cli_parse_in("1", 0, 0, 2, &v, why, 0), -EINVAL);
}

/* The words of a bad --cpu, each exactly as the CLI prints them, against this machine's sets. */
Test(cli_words, cpus_parse_words)
{
	char allowed[256] = "", present[256] = "", why[512], want[1024];
	int cpus[1024];

	pbench_cpus_allowed(allowed, sizeof(allowed));
	pbench_cpus_present(present, sizeof(present));
	cr_assert_eq(cli_cpus_parse_words("x", "--cpu", 0, 0, NULL, cpus, 1024, why,
					  sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "invalid CPU list 'x' for --cpu: expected a list such as 2 "
		 "or 0-3,6; pbench may run on CPUs %s", allowed[0] ? allowed : "unknown");
	cr_assert_str_eq(why, want);
	cr_assert_eq(cli_cpus_parse_words("5000", "--cpu", CLI_CPUS_PRESENT, 0, NULL, cpus,
					  1024, why, sizeof(why)), -ERANGE);
	snprintf(want, sizeof(want), "invalid CPU list '5000' for --cpu: no such CPU; present "
		 "CPUs are %s", present[0] ? present : "unknown");
	cr_assert_str_eq(why, want);
	/* CPU 1000 is on no machine this runs on: neither allowed nor present. */
	cr_assert_eq(cli_cpus_parse_words("1000", "--cpu", 0, 0, NULL, cpus, 1024, why,
					  sizeof(why)), -ERANGE);
	snprintf(want, sizeof(want), "CPU 1000 given to --cpu is not online or not allowed: "
		 "pbench may run on CPUs %s", allowed);
	cr_assert_str_eq(why, want);
	cr_assert_eq(cli_cpus_parse_words("1000", "--cpu", CLI_CPUS_PRESENT, 0, NULL, cpus,
					  1024, why, sizeof(why)), -ERANGE);
	snprintf(want, sizeof(want), "CPU 1000 given to --cpu is not present: present CPUs are %s",
		 present);
	cr_assert_str_eq(why, want);
	cr_assert_eq(cli_cpus_parse_words(NULL, "--cpu", 0, 0, NULL, cpus, 1024, why,
					  sizeof(why)), -EINVAL);
	/* Too many CPUs, on a recorded machine that has 32 present. */
	use_tree("amd-workstation");
	cr_assert_eq(cli_cpus_parse_words("3", "--cpu", CLI_CPUS_PRESENT, 1, "x", cpus,
					  1024, why, sizeof(why)), 1);
	cr_assert_eq(cpus[0], 3);
	cr_assert_eq(cli_cpus_parse_words("5-6,5", "--duet-cpus", CLI_CPUS_PRESENT, 2,
					  "a duet", cpus, 1024, why, sizeof(why)), 2);
	cr_assert_eq(cpus[1], 6);
	cr_assert_eq(cli_cpus_parse_words("0-2", "--duet-cpus", CLI_CPUS_PRESENT, 2,
					  "a duet", cpus, 1024, why, sizeof(why)), -EINVAL);
	cr_assert_str_eq(why, "invalid CPU list '0-2' for --duet-cpus: a duet takes two CPUs");
	cr_assert_eq(cli_cpus_parse_words("40", "--cpu", CLI_CPUS_PRESENT, 0, NULL, cpus,
					  1024, why, sizeof(why)), -ERANGE);
	cr_assert_str_eq(why, "CPU 40 given to --cpu is not present: present CPUs are 0-31");
	cr_assert_eq(cli_cpus_parse_words("0,0-1", "--cpu", CLI_CPUS_PRESENT, 1,
					  "'pbench compare'", cpus, 1024, why, sizeof(why)), -EINVAL);
	cr_assert_str_eq(why, "invalid CPU list '0,0-1' for --cpu: 'pbench compare' takes one CPU");
}

/* Where a command not found might be: a path said as a path, a file here not in PATH. */
Test(cli_words, command_where)
{
	char dir[] = "/tmp/pbench-test-XXXXXX", buf[4200], want[4200], cwd[4096];
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	fd = open("tool", O_CREAT | O_WRONLY, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(cli_command_where("tool", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "'tool' is not in PATH; the file in the current directory is "
			 "'./tool'");
	cr_assert_eq(cli_command_where("sub/tool", buf, sizeof(buf)), 1);
	snprintf(want, sizeof(want), "there is no file 'sub/tool' in %s (the current "
		 "directory): check the path", dir);
	cr_assert_str_eq(buf, want);
	cr_assert_eq(cli_command_where("/no/tool", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "there is no file '/no/tool': check the path");
	strcpy(buf, "untouched");
	cr_assert_eq(cli_command_where("pbench-no-such-tool", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "untouched");
	cr_assert_eq(cli_command_where(NULL, buf, sizeof(buf)), -EINVAL);
	unlink("tool");
	cr_assert_eq(chdir(cwd), 0);
	rmdir(dir);
}

/* A line that cannot be run, in words that name it: each sentence exactly, none on success. */
Test(cli_words, command_words)
{
	char **v = NULL, why[128];

	cr_assert_eq(cli_command_words(&v, "echo 'a", 0, "command", why, sizeof(why)),
		     -EINVAL);
	cr_assert_str_eq(why, "command 'echo 'a' has a quote that is not closed");
	cr_assert_null(v);
	cr_assert_eq(cli_command_words(&v, " \t", 0, "--setup", why, sizeof(why)), -ENODATA);
	cr_assert_str_eq(why, "--setup ' \t' is empty: give a command to run");
	cr_assert_eq(cli_command_words(&v, "echo 'a b'", 0, "command", why, sizeof(why)), 0);
	cr_assert_str_eq(why, "");
	cr_assert_str_eq(v[1], "a b");
	cr_assert_null(v[2]);
	pbench_command_free(v);
	/* With a shell the line is not split: an open quote is sh's to refuse. */
	cr_assert_eq(cli_command_words(&v, "echo 'a", 1, "command", why, sizeof(why)), 0);
	cr_assert_str_eq(v[2], "echo 'a");
	pbench_command_free(v);
	cr_assert_eq(cli_command_words(&v, "echo 'a", 0, "command", why, 10), -EINVAL);
	cr_assert_str_eq(why, "command '");
	cr_assert_eq(cli_command_words(&v, NULL, 0, "command", why, sizeof(why)), -EINVAL);
}

/* Shell syntax in a command run without a shell, as separate or leading words; a quoted one
 * ('a > b' as one word) is the program's own argument, not syntax. */
Test(cli_words, command_syntax)
{
	static const struct {
		const char *line;
		int found;
		const char *said;
	} rows[] = {
		{ "gzip -c f > /dev/null", 1, "'>' is shell syntax, but no shell runs this command: "
		  "gzip gets it as an argument" },
		{ "gzip -c f >/dev/null", 1, "'>' is shell syntax, but no shell runs this command: "
		  "gzip gets '>/dev/null' as an argument" },
		{ "cat f >> g", 1, "'>>'" },
		{ "wc -l < f", 1, "'<'" },
		{ "ls | wc", 1, "'|'" },
		{ "make && make install", 1, "'&&'" },
		{ "false || true", 1, "'||'" },
		{ "cd /tmp ; ls", 1, "';'" },
		{ "> f", 1, "'>' is shell syntax, but no shell runs this command: it is taken for the "
		  "program's name" },
		{ "echo 'a > b'", 0, NULL },
		{ "grep -c a=b f", 0, NULL },
		{ "echo a>b", 0, NULL },	/* inside a word: not a leading token */
	};
	char buf[256], **v;

	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		cr_assert_eq(pbench_command_split(&v, rows[k].line), 0);
		buf[0] = 0;
		cr_assert_eq(cli_command_syntax(v, buf, sizeof(buf)), rows[k].found, "%s",
			     rows[k].line);
		if (rows[k].said)
			cr_assert(!strncmp(buf, rows[k].said, strlen(rows[k].said)), "%s: %s",
				  rows[k].line, buf);
		pbench_command_free(v);
	}
	cr_assert_eq(cli_command_syntax(NULL, buf, sizeof(buf)), -EINVAL);
}

/* The progress line pbench stat shows, from fixed figures. */
Test(cli_words, runs_progress_text)
{
	struct pbench_runs_progress p = { .size = sizeof(p), .mode = PBENCH_RUNS_PREPARED,
					  .phase = "runs", .run = 6, .runs = 20, .mean_ns = 27.3e6,
					  .sem_pct = 0.41, .left_s = 0.4 };
	char buf[128];

	cr_assert_eq(cli_runs_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "prepared: run 7 of 20, 27.3 ms ± 0.41%, 0.4 s left");
	p.phase = "warm-up";
	cr_assert_eq(cli_runs_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "prepared: warm-up runs (not kept)");
	cr_expect_eq(cli_runs_progress_text(NULL, buf, sizeof(buf)), -EINVAL);
}

/* stat's progress line: the time, and the SEM of the metric the target is on. */
Test(cli_words, the_runs_progress_line_names_the_metric)
{
	struct pbench_runs_progress p = { .size = sizeof(p), .mode = PBENCH_RUNS_UNPREPARED,
					  .phase = "runs", .run = 6, .runs = 20, .mean_ns = 27.3e6,
					  .sem_pct = 0.41, .left_s = NAN, .metric = "page-faults" };
	char buf[160];

	cr_assert_eq(cli_runs_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "unprepared: run 7 of 20, 27.3 ms ± 0.41% on page-faults");
}

/* The progress line pbench compare shows, from fixed figures. */
Test(cli_words, contest_progress_text)
{
	struct pbench_contest_progress p = { .size = sizeof(p), .phase = "rounds", .round = 11,
					     .ratio = 1.012, .ratio_lo = 0.99, .ratio_hi = 1.03,
					     .left_s = 3.1 };
	char buf[128];

	cr_assert_eq(cli_contest_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "round 12, time ratio 1.012 (0.990-1.030), about 3.1 s left");
	p.phase = "setup";
	cr_assert_eq(cli_contest_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "running the setup command");
	cr_expect_eq(cli_contest_progress_text(&p, NULL, 0), -EINVAL);
}

/* The progress line names the figure of its ratio. */
Test(cli_words, the_progress_line_names_the_metric)
{
	struct pbench_contest_progress p = { .size = sizeof(p), .phase = "rounds", .round = 2,
					     .entrant = 1, .ratio = 1.01, .ratio_lo = 1.01,
					     .ratio_hi = 1.01, .left_s = NAN,
					     .metric = "instructions:u" };
	char buf[160];

	cr_assert_eq(cli_contest_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "round 3, instructions:u ratio 1.010 (1.010-1.010)");
	p.metric = NULL;
	cr_assert_eq(cli_contest_progress_text(&p, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "round 3, time ratio 1.010 (1.010-1.010)");
}
