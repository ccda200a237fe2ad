/* SPDX-License-Identifier: MIT */
/*
 * pbench_output: a report written whole or not at all. A regular file is replaced only on
 * commit (an old one stays as it was otherwise, and nothing new appears in the directory),
 * keeps its mode, and a symlink to it stays a symlink; anything else is written directly and
 * never removed; every descriptor is close-on-exec.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pbench-output-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(output, .init = make_dir, .fini = remove_dir);

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

Test(output, regular_file_replaced_only_on_commit)
{
	struct pbench_output *o;
	char path[128];

	snprintf(path, sizeof(path), "%s/r.json", dir);
	put(path, "old");
	chmod(path, 0640);
	cr_assert_eq(pbench_output_open(&o, path), 0);
	fputs("new report", pbench_output_file(o));
	fflush(pbench_output_file(o));
	cr_assert_str_eq(get(path), "old", "the old file stays until the report is complete");
	cr_assert_eq(entries(), 1, "nothing new in the directory while writing");
	cr_assert_eq(fcntl(fileno(pbench_output_file(o)), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(pbench_output_close(o, 1), 0);
	cr_assert_str_eq(get(path), "new report");
	cr_assert_eq(entries(), 1, "no temporary name left");
	{
		struct stat st;

		cr_assert_eq(stat(path, &st), 0);
		cr_assert_eq(st.st_mode & 0777, 0640, "the old file's mode is kept");
	}
}

Test(output, discarded_leaves_the_old_file_and_creates_nothing)
{
	struct pbench_output *o;
	char path[128], fresh[128];

	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh.json", dir);
	put(path, "old");
	cr_assert_eq(pbench_output_open(&o, path), 0);
	fputs("half a report", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 0), 0);
	cr_assert_str_eq(get(path), "old");
	cr_assert_eq(pbench_output_open(&o, fresh), 0);
	fputs("half", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 0), 0);
	cr_assert_eq(access(fresh, F_OK), -1, "a discarded new file never appears");
	cr_assert_eq(entries(), 1);
}

Test(output, symlink_kept_target_written)
{
	struct pbench_output *o;
	char target[128], link[128];

	snprintf(target, sizeof(target), "%s/t.csv", dir);
	snprintf(link, sizeof(link), "%s/l.csv", dir);
	put(target, "old");
	cr_assert_eq(symlink("t.csv", link), 0);
	cr_assert_eq(pbench_output_open(&o, link), 0);
	fputs("new", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 1), 0);
	{
		struct stat st;

		cr_assert_eq(lstat(link, &st), 0);
		cr_assert(S_ISLNK(st.st_mode), "the symlink is still a symlink");
	}
	cr_assert_str_eq(get(target), "new");
}

Test(output, devices_and_fifos_written_directly_never_removed)
{
	struct pbench_output *o;
	char fifo[128];
	struct stat st;
	int rd;

	cr_assert_eq(pbench_output_open(&o, "/dev/null"), 0);
	fputs("x", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 0), 0, "discarding a device removes nothing");
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	cr_assert_geq(rd, 0);
	cr_assert_eq(pbench_output_open(&o, fifo), 0);
	fputs("through the fifo", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 1), 0);
	{
		char buf[64] = "";
		ssize_t n = read(rd, buf, sizeof(buf) - 1);

		cr_assert_eq(n, 16);
		cr_assert_str_eq(buf, "through the fifo");
	}
	close(rd);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO is still there");
}

Test(output, bad_paths_refused_at_open)
{
	struct pbench_output *o;
	char missing[128];

	snprintf(missing, sizeof(missing), "%s/no/such/dir/x.json", dir);
	cr_assert_eq(pbench_output_open(&o, missing), -ENOENT);
	cr_assert_null(o);
	cr_assert_eq(pbench_output_open(&o, dir), -EISDIR);
	cr_assert_eq(pbench_output_open(&o, ""), -EINVAL);
	cr_assert_eq(pbench_output_open(&o, NULL), -EINVAL);
	cr_assert_eq(entries(), 0);
}

Test(output, stdout_is_not_closed)
{
	struct pbench_output *o;

	cr_assert_eq(pbench_output_open(&o, "-"), 0);
	cr_assert_eq(pbench_output_file(o), stdout);
	cr_assert_eq(pbench_output_close(o, 1), 0);
	cr_assert_neq(fcntl(STDOUT_FILENO, F_GETFD), -1, "stdout is still open");
}

Test(output, write_error_reported_and_old_file_kept)
{
	struct pbench_output *o;

	if (access("/dev/full", W_OK))
		cr_skip_test("no /dev/full here");
	cr_assert_eq(pbench_output_open(&o, "/dev/full"), 0);
	fputs("no space", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 1), -ENOSPC);
}

/* A writable file in a directory that is not: copied over once complete, not before. Root
 * writes any directory, so only a user sees this path. */
Test(output, writable_file_in_a_read_only_directory)
{
	struct pbench_output *o;
	char sub[128], path[160];

	if (geteuid() == 0)
		cr_skip_test("root writes any directory: run as a user to test this path");
	snprintf(sub, sizeof(sub), "%s/ro", dir);
	snprintf(path, sizeof(path), "%s/ro/r.csv", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	put(path, "old");
	cr_assert_eq(chmod(sub, 0555), 0);
	cr_assert_eq(pbench_output_open(&o, path), 0);
	fputs("new", pbench_output_file(o));
	fflush(pbench_output_file(o));
	cr_assert_str_eq(get(path), "old");
	cr_assert_eq(pbench_output_close(o, 1), 0);
	cr_assert_str_eq(get(path), "new");
	chmod(sub, 0755);
}

/* Several outputs of one report (pbench_output_open_all): one file given twice, under two
 * names of it, or stdout twice is refused before anything opens; /dev/null twice is fine; a
 * path that cannot be opened leaves none open and nothing in the directory. */
Test(output, open_all_refuses_one_file_twice)
{
	struct pbench_output *outs[3];
	char a[128], link_a[128], bad[160];
	int which[2];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(link_a, sizeof(link_a), "%s/b.json", dir);
	snprintf(bad, sizeof(bad), "%s/no/such/dir.csv", dir);
	put(a, "old");
	cr_assert_eq(link(a, link_a), 0);
	{
		const char *const twice[] = { a, NULL, link_a }, *const dash[] = { "-", "-" },
				  *const null[] = { "/dev/null", "/dev/null" },
				  *const missing[] = { a, bad };

		cr_assert_eq(pbench_output_open_all(outs, twice, 3, which), -EEXIST);
		cr_assert(which[0] == 0 && which[1] == 2, "which %d %d", which[0], which[1]);
		cr_assert_eq(pbench_output_open_all(outs, dash, 2, which), -EEXIST);
		cr_assert_eq(pbench_output_open_all(outs, missing, 2, which), -ENOENT);
		cr_assert(which[0] == 1 && !outs[0] && !outs[1], "none left open");
		cr_assert_eq(entries(), 2, "nothing new in the directory");
		cr_assert_eq(pbench_output_open_all(outs, null, 2, which), 0);
		cr_assert_eq(pbench_output_close(outs[0], 1), 0);
		cr_assert_eq(pbench_output_close(outs[1], 1), 0);
	}
	cr_assert_str_eq(get(a), "old");
}

/* The plot's file is named .svg (any case); "-", a device and the other formats take any
 * name; what it should be called is said. */
Test(output, a_plot_file_is_named_svg)
{
	char why[256];

	cr_expect_eq(pbench_output_check_name("a/p.svg", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), 0);
	cr_expect_eq(pbench_output_check_name("P.SVG", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), 0);
	cr_expect_eq(pbench_output_check_name("-", PBENCH_REPORT_FORMAT_SVG, why, sizeof(why)), 0);
	cr_expect_eq(pbench_output_check_name("/dev/null", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), 0);
	cr_expect_eq(pbench_output_check_name("r.json", PBENCH_REPORT_FORMAT_JSON, why,
					      sizeof(why)), 0);
	cr_expect_eq(pbench_output_check_name("d.x/plot.png", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "name the file 'd.x/plot.svg', not 'd.x/plot.png'");
	cr_expect_eq(pbench_output_check_name("d.x/plot", PBENCH_REPORT_FORMAT_SVG, why,
					      sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "name the file 'd.x/plot.svg', not 'd.x/plot'");
	cr_expect_eq(pbench_output_check_name(NULL, PBENCH_REPORT_FORMAT_SVG, why, sizeof(why)),
		     -EINVAL);
}

/* ---- pbench_outputs: the outputs of one report, with the caller's labels in messages ----- */

/* The writer of the tests: "<fmt>" to f; the format in fail fails (-ENOSPC) half-way. */
static int fail = -1;

static int write_fmt(void *arg, int fmt, FILE *f)
{
	(void)arg;
	fprintf(f, "new %d", fmt);
	if (fmt == fail)
		return -ENOSPC;
	return fflush(f) ? -errno : 0;
}

static const char *msg(const struct pbench_outputs *s, int i)
{
	const char *m = pbench_outputs_message(s, i);

	return m ? m : "(none)";
}

/* One format on stdout: a second one is refused as it is given, named by both labels; the
 * same one again adds nothing; wants() and stdout() say what was asked. */
Test(output, outputs_refuse_two_formats_on_stdout)
{
	struct pbench_outputs *s;

	cr_assert_eq(pbench_outputs_new(&s), 0);
	cr_assert_eq(pbench_outputs_stdout(s), -1);
	cr_assert_eq(pbench_outputs_wants(s, -1), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "-", "--json"), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "-", "--export-json"), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, "-", "--csv"), -EEXIST);
	cr_assert_str_eq(msg(s, 0), "--json and --csv cannot both write to stdout: give one of "
			 "them a file");
	cr_assert_null(pbench_outputs_message(s, 1));
	cr_assert_eq(pbench_outputs_stdout(s), PBENCH_REPORT_FORMAT_JSON);
	cr_assert(pbench_outputs_wants(s, PBENCH_REPORT_FORMAT_JSON) && pbench_outputs_wants(s, -1));
	cr_assert_eq(pbench_outputs_wants(s, PBENCH_REPORT_FORMAT_CSV), 0, "the refused one");
	pbench_outputs_free(s);
}

/* Bad paths said as they are given: an empty name, SVG to a file not named .svg. */
Test(output, outputs_refuse_bad_names)
{
	struct pbench_outputs *s;

	cr_assert_eq(pbench_outputs_new(&s), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "", "--json"), -EINVAL);
	cr_assert_str_eq(msg(s, 0), "--json needs a file name, or '-' for stdout");
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_SVG, "out/p.json", "--plot"),
		     -EINVAL);
	cr_assert_str_eq(msg(s, 0), "--plot writes SVG: name the file 'out/p.svg', not "
			 "'out/p.json'");
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_SVG, "p.SVG", NULL), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_SVG, "/dev/null", NULL), 0);
	cr_assert_eq(pbench_outputs_add(s, 7, "x", NULL), -EINVAL);
	pbench_outputs_free(s);
}

/* Two outputs to one file (two names of it): refused at open, named by their labels, with
 * nothing opened; a path that cannot be written: refused at open, before any write, with
 * the old files as they were and nothing new in the directory. */
Test(output, outputs_refused_at_open_before_anything_is_written)
{
	struct pbench_outputs *s;
	char a[128], link_a[128], bad[160], want[400];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(link_a, sizeof(link_a), "%s/b.csv", dir);
	snprintf(bad, sizeof(bad), "%s/no/such/dir.csv", dir);
	put(a, "old");
	cr_assert_eq(link(a, link_a), 0);
	cr_assert_eq(pbench_outputs_new(&s), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, link_a, "--export-csv"), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, a, "--json"), 0);
	cr_assert_eq(pbench_outputs_open(s), -EEXIST);
	snprintf(want, sizeof(want), "--json and --export-csv both write to '%s': give each its "
		 "own file", link_a);
	cr_assert_str_eq(msg(s, 0), want);
	cr_assert_eq(pbench_outputs_write(s, write_fmt, NULL), -EBADF, "nothing is open");
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, bad, "--export-csv"), 0);
	cr_assert_eq(pbench_outputs_open(s), -ENOENT);
	snprintf(want, sizeof(want), "cannot write the CSV file '%s': ", bad);
	cr_assert(!strncmp(msg(s, 0), want, strlen(want)), "%s", msg(s, 0));
	cr_assert_eq(pbench_outputs_close(s, 1), 0);
	pbench_outputs_free(s);
	cr_assert_str_eq(get(a), "old");
	cr_assert_eq(entries(), 2, "nothing new in the directory");
}

/* A writer that fails leaves that old file as it was (said, named by its format); the other
 * output is put in place; a format given a file twice writes the later path only. */
Test(output, outputs_failed_write_keeps_the_old_file)
{
	struct pbench_outputs *s;
	char a[128], b[128], c[128], want[300];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.csv", dir);
	snprintf(c, sizeof(c), "%s/c.csv", dir);
	put(a, "old");
	put(c, "old");
	cr_assert_eq(pbench_outputs_new(&s), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, a, "--export-json"), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, b, "--export-csv"), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, c, "--export-csv"), 0);
	cr_assert_eq(pbench_outputs_open(s), 0);
	fail = PBENCH_REPORT_FORMAT_CSV;
	cr_assert_eq(pbench_outputs_write(s, write_fmt, NULL), -ENOSPC);
	fail = -1;
	snprintf(want, sizeof(want), "cannot write the CSV file '%s': No space left on device", c);
	cr_assert_str_eq(msg(s, 0), want);
	cr_assert_null(pbench_outputs_message(s, 1), "one message: %s", msg(s, 1));
	cr_assert_eq(pbench_outputs_stdout_error(s), 0);
	cr_assert_eq(pbench_outputs_close(s, 1), 0);
	cr_assert_str_eq(get(a), "new 0");
	cr_assert_str_eq(get(c), "old", "the failed one is left as it was");
	cr_assert_neq(access(b, F_OK), 0, "the CSV path given first is not written");
	cr_assert_eq(entries(), 2, "nothing new in the directory");
	pbench_outputs_free(s);
}

/* A failure on stdout is returned and kept (no message: the caller's check of stdout says
 * it); a file is written all the same. */
Test(output, outputs_stdout_failure_reported)
{
	struct pbench_outputs *s;
	char a[128];
	int full = open("/dev/full", O_WRONLY), saved = dup(STDOUT_FILENO);

	if (full < 0)
		cr_skip_test("no /dev/full here");
	snprintf(a, sizeof(a), "%s/a.csv", dir);
	cr_assert_eq(pbench_outputs_new(&s), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_JSON, "-", "--json"), 0);
	cr_assert_eq(pbench_outputs_add(s, PBENCH_REPORT_FORMAT_CSV, a, "--export-csv"), 0);
	cr_assert_eq(pbench_outputs_open(s), 0);
	fflush(stdout);
	cr_assert_eq(dup2(full, STDOUT_FILENO), STDOUT_FILENO);
	cr_assert_eq(pbench_outputs_write(s, write_fmt, NULL), -ENOSPC);
	clearerr(stdout);
	cr_assert_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	cr_assert_null(pbench_outputs_message(s, 0), "%s", msg(s, 0));
	cr_assert_eq(pbench_outputs_stdout_error(s), -ENOSPC);
	cr_assert_eq(pbench_outputs_close(s, 1), 0);
	cr_assert_str_eq(get(a), "new 1");
	pbench_outputs_free(s);
	close(full);
	close(saved);
}

/* pbench_output_width(): COLUMNS first (a whole number 0-10000), else a terminal's width, else
 * 0 for a file or a pipe; pbench_output_color(): never on a file or a pipe. */
Test(output, width_and_color_of_a_stream)
{
	FILE *f = tmpfile();

	cr_assert(f);
	setenv("COLUMNS", "57", 1);
	cr_assert_eq(pbench_output_width(f), 57);
	setenv("COLUMNS", "0", 1);
	cr_assert_eq(pbench_output_width(f), 0);
	setenv("COLUMNS", "wide", 1);
	cr_assert_eq(pbench_output_width(f), 0, "not a number, and not a terminal");
	setenv("COLUMNS", "20000", 1);
	cr_assert_eq(pbench_output_width(f), 0, "out of range, and not a terminal");
	unsetenv("COLUMNS");
	cr_assert_eq(pbench_output_width(f), 0);
	cr_assert_eq(pbench_output_width(NULL), 0);
	unsetenv("NO_COLOR");
	cr_assert_eq(pbench_output_color(f), 0, "a file is not a terminal");
	cr_assert_eq(pbench_output_color(NULL), 0);
	fclose(f);
}

/* ---- links in a shared directory: the kernel's protected_symlinks rule, kept by pbench ---- */

#define NOBODY 65534

/* dir/NAME made with mode (chmod: the sticky bit survives the umask) and owner. */
static void shared_dir(char *buf, size_t len, const char *name, mode_t mode, uid_t owner)
{
	snprintf(buf, len, "%s/%s", dir, name);
	cr_assert_eq(mkdir(buf, 0700), 0);
	cr_assert_eq(chmod(buf, mode), 0);
	cr_assert_eq(chown(buf, owner, owner), 0);
}

/* A link at path to target, owned by owner as if that user had made it. */
static void link_of(const char *target, const char *path, uid_t owner)
{
	cr_assert_eq(symlink(target, path), 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(lchown(path, owner, owner), 0, "%s: %s", path, strerror(errno));
}

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("not root: a link of another user is made with lchown(), root's");
}

/* nobody's link in a sticky world-writable directory, to a file of ours or a directory of
 * ours on the way: refused with its owner and why, the file as it was, nothing made. */
Test(output, another_users_link_in_a_sticky_dir_is_not_followed)
{
	char shared[128], secret[128], link[160], evil[160], path[200], made[160];
	struct pbench_output *o = (void *)1;
	struct stat st;
	int rc;

	need_root();
	shared_dir(shared, sizeof(shared), "tmp", 01777, 0);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	put(secret, "root's");
	snprintf(link, sizeof(link), "%s/o.json", shared);
	link_of(secret, link, NOBODY);
	rc = pbench_output_open(&o, link);
	cr_assert_eq(rc, -EACCES, "%d %s", rc, pbench_strerror(rc));
	cr_assert_null(o);
	cr_assert(strstr(pbench_strerror(rc), "o.json' is a link owned by uid 65534 in the "
		  "sticky directory") && !strchr(pbench_strerror(rc), '\n'), "%s",
		  pbench_strerror(rc));
	cr_assert_str_eq(get(secret), "root's");
	/* A link to a directory, anywhere on the path; and through ".." after it. */
	snprintf(evil, sizeof(evil), "%s/evil", shared);
	link_of(dir, evil, NOBODY);
	snprintf(made, sizeof(made), "%s/made.json", dir);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/evil/%smade.json", shared, i ? "../evil/" : "");
		rc = pbench_output_open(&o, path);
		cr_assert_eq(rc, -EACCES, "%s: %d %s", path, rc, pbench_strerror(rc));
		cr_assert(strstr(pbench_strerror(rc), "/evil' is a link owned by uid 65534"), "%s",
			  pbench_strerror(rc));
		cr_assert_neq(stat(made, &st), 0, "nothing made where the link points");
	}
	/* A link to a link: the second is nobody's. */
	snprintf(path, sizeof(path), "%s/mine.json", shared);
	link_of("o.json", path, 0);
	cr_assert_eq(pbench_output_open(&o, path), -EACCES);
	cr_assert_str_eq(get(secret), "root's");
}

/* What the rule allows is followed as before: our own link, a link of the directory's
 * owner, a link in a directory that is not sticky or not world-writable. */
Test(output, links_the_rule_allows_are_followed)
{
	static const struct { const char *dir; mode_t mode; uid_t dir_owner, link_owner; } c[] = {
		{ "own", 01777, 0, 0 },
		{ "owners", 01777, NOBODY, NOBODY },
		{ "notsticky", 0777, 0, NOBODY },
		{ "notshared", 01755, 0, NOBODY },
	};

	need_root();
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char d[128], target[160], link[160];
		struct pbench_output *o;
		int rc;

		shared_dir(d, sizeof(d), c[i].dir, c[i].mode, c[i].dir_owner);
		snprintf(target, sizeof(target), "%s/%s.json", dir, c[i].dir);
		snprintf(link, sizeof(link), "%s/o.json", d);
		put(target, "old");
		link_of(target, link, c[i].link_owner);
		rc = pbench_output_open(&o, link);
		cr_assert_eq(rc, 0, "%s: %d %s", c[i].dir, rc, pbench_strerror(rc));
		fputs("new", pbench_output_file(o));
		cr_assert_eq(pbench_output_close(o, 1), 0);
		cr_assert_str_eq(get(target), "new", "%s", c[i].dir);
	}
}

/* Two outputs that name one file differently, before it exists: "./", a link, "x/..". */
Test(output, open_all_compares_the_paths_links_resolved)
{
	struct pbench_output *outs[2];
	char a[128], other[4][160];
	int which[2];

	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(other[0], sizeof(other[0]), "%s/./a.json", dir);
	snprintf(other[1], sizeof(other[1]), "%s/l.json", dir);
	snprintf(other[2], sizeof(other[2]), "%s/sub/../a.json", dir);
	snprintf(other[3], sizeof(other[3]), "%s//a.json", dir);
	cr_assert_eq(symlink("a.json", other[1]), 0);
	{
		char sub[160];

		snprintf(sub, sizeof(sub), "%s/sub", dir);
		cr_assert_eq(mkdir(sub, 0700), 0);
	}
	for (int i = 0; i < 4; i++) {
		const char *const paths[] = { a, other[i] };

		cr_assert_eq(pbench_output_open_all(outs, paths, 2, which), -EEXIST, "%s",
			     other[i]);
		cr_assert(which[0] == 0 && which[1] == 1 && !outs[0] && !outs[1]);
	}
	{
		char b[128];
		const char *paths[] = { a, b };

		snprintf(b, sizeof(b), "%s/b.json", dir);
		cr_assert_eq(pbench_output_open_all(outs, paths, 2, which), 0);
		cr_assert_eq(pbench_output_close(outs[0], 0), 0);
		cr_assert_eq(pbench_output_close(outs[1], 0), 0);
	}
}

/* /dev/stdout into a pipe is /proc/self/fd/1, a link whose text ("pipe:[123]") names no file:
 * written directly (it said ENOENT). */
Test(output, proc_link_to_a_pipe_is_written)
{
	struct pbench_output *o;
	char path[64], buf[16] = "";
	int p[2];

	cr_assert_eq(pipe(p), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	cr_assert_eq(pbench_output_open(&o, path), 0, "%s", pbench_strerror(-1));
	fputs("hi\n", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 1), 0);
	close(p[1]);
	cr_assert_eq(read(p[0], buf, sizeof(buf) - 1), 3);
	cr_assert_str_eq(buf, "hi\n");
	close(p[0]);
}

/* Links followed one name at a time as the kernel does: ".." after a link is the parent of
 * what it names, a relative link is read from its own directory, a chain ends at the file. */
Test(output, links_on_the_path_followed_as_the_kernel_does)
{
	char p[4][160];
	struct pbench_output *o;

	snprintf(p[0], sizeof(p[0]), "%s/sub/deeper", dir);
	snprintf(p[1], sizeof(p[1]), "%s/sub", dir);
	cr_assert_eq(mkdir(p[1], 0700), 0);
	cr_assert_eq(mkdir(p[0], 0700), 0);
	snprintf(p[2], sizeof(p[2]), "%s/l", dir);
	cr_assert_eq(symlink("sub/deeper", p[2]), 0);
	snprintf(p[3], sizeof(p[3]), "%s/sub/chain.json", dir);
	cr_assert_eq(symlink("../l/../x.json", p[3]), 0);
	/* dir/sub/chain.json -> dir/l/../x.json = dir/sub/deeper/../x.json = dir/sub/x.json */
	cr_assert_eq(pbench_output_open(&o, p[3]), 0, "%s", pbench_strerror(-1));
	fputs("new", pbench_output_file(o));
	cr_assert_eq(pbench_output_close(o, 1), 0);
	snprintf(p[0], sizeof(p[0]), "%s/sub/x.json", dir);
	cr_assert_str_eq(get(p[0]), "new");
	cr_assert_eq(access(p[3], F_OK) == 0 && readlink(p[3], p[1], sizeof(p[1])) > 0, 1,
		     "the link is still a link");
}
