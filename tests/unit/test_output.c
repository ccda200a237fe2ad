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

#define SCRATCH_NAME "output"
#include "scratch.h"

TestSuite(output, .init = make_dir, .fini = remove_dir);

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

/* The race after the walk: a directory on the path that another user owns (nobody's d in a
 * sticky /tmp) is renamed away and replaced by nobody's link to a directory of root's between
 * the open and the commit. The output holds its directory from the open on, so the report goes
 * into the directory that was walked (now d.moved), never where the link points. */
Test(output, directory_swapped_for_a_link_after_the_open)
{
	char shared[128], d[160], moved[160], secret[160], path[200], put_there[200];
	struct pbench_output *o;
	int rc;

	need_root();
	shared_dir(shared, sizeof(shared), "tmp", 01777, 0);
	snprintf(d, sizeof(d), "%s/d", shared);
	cr_assert_eq(mkdir(d, 0755), 0);
	cr_assert_eq(chown(d, NOBODY, NOBODY), 0);
	shared_dir(secret, sizeof(secret), "rootonly", 0700, 0);
	snprintf(path, sizeof(path), "%s/o.json", d);
	for (int fresh = 0; fresh < 2; fresh++) {
		if (!fresh)
			put(path, "old");	/* a file to replace, then none: both renames */
		rc = pbench_output_open(&o, path);
		cr_assert_eq(rc, 0, "%d %s", rc, pbench_strerror(rc));
		fputs("report", pbench_output_file(o));
		snprintf(moved, sizeof(moved), "%s/d.moved%d", shared, fresh);
		cr_assert_eq(rename(d, moved), 0, "%s", strerror(errno));
		link_of(secret, d, NOBODY);
		rc = pbench_output_close(o, 1);
		cr_assert_eq(rc, 0, "%d %s", rc, pbench_strerror(rc));
		snprintf(put_there, sizeof(put_there), "%s/o.json", secret);
		cr_assert_neq(access(put_there, F_OK), 0, "the report went through nobody's link");
		{
			DIR *s = opendir(secret);
			struct dirent *e;

			cr_assert_not_null(s);
			while ((e = readdir(s)))
				cr_assert(!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."),
					  "'%s' made in the root-only directory", e->d_name);
			closedir(s);
		}
		snprintf(put_there, sizeof(put_there), "%s/o.json", moved);
		cr_assert_str_eq(get(put_there), "report", "in the directory that was walked");
		/* d again nobody's directory, without the file */
		cr_assert_eq(unlink(d), 0);
		cr_assert_eq(rename(moved, d), 0);
		cr_assert_eq(unlink(path), 0);
	}
}
