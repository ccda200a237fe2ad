/* SPDX-License-Identifier: MIT */
/*
 * Memory of a command: the allocator shim preloaded into it (LD_PRELOAD) counts its process
 * into a small shared file (lib/shim/memshim.h: struct pb_mem_file) that pbench made, zeroes
 * before each run and reads after it. The file is a memfd, opened by the command through
 * /proc/<pbench>/fd/<n>: nothing is left in a directory when pbench dies.
 *
 * Whose allocations count: the last image of the process pbench started (env, nice, taskset
 * and shells that exec their last command keep the pid: the image they exec is the command,
 * and the wrapper's own allocations are not its). When that last exec'd image never loaded
 * the shim (LD_PRELOAD cleared, a static or setuid program), or its malloc is its own, the
 * run is "not counted", never the earlier image's counts or 0. Processes it forks are not
 * counted (the shim's fork handler, or a page wiped on fork for a raw fork syscall, stops
 * them, and a child that execs finds the file claimed): the file says how many there were,
 * each pid once, so a report can say "and N child processes, not counted".
 *
 * What cannot be counted is said before anything runs: a statically linked command has no
 * dynamic loader to preload into (no PT_INTERP), and the loader ignores LD_PRELOAD in a
 * set-user-ID or set-group-ID command that changes the IDs (AT_SECURE: the file's owner or
 * group differs from the caller's).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/base.h"
#include "base/jsonutil.h"
#include "measure/measure.h"
#include "../../shim/memshim.h"

struct pbench_mem_file {
	int fd;
	struct pb_mem_file *rec;
	char path[64];			/* /proc/<pid>/fd/<fd> */
	char shim[PATH_MAX];
	char **env;			/* the last pbench_mem_file_env(), owned */
};

/* 1: the ELF file has a PT_INTERP (a dynamic loader to preload into), 0: none, -errno. */
static int elf_has_interp(int fd)
{
	unsigned char id[EI_NIDENT];
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
	uint64_t off;
	size_t n, sz;

	if (pread(fd, id, sizeof(id), 0) != (ssize_t)sizeof(id))
		return -ENOEXEC;
	if (memcmp(id, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (id[EI_CLASS] == ELFCLASS64) {
		if (pread(fd, &e64, sizeof(e64), 0) != (ssize_t)sizeof(e64))
			return -ENOEXEC;
		off = e64.e_phoff, n = e64.e_phnum, sz = e64.e_phentsize;
	} else {
		if (pread(fd, &e32, sizeof(e32), 0) != (ssize_t)sizeof(e32))
			return -ENOEXEC;
		off = e32.e_phoff, n = e32.e_phnum, sz = e32.e_phentsize;
	}
	for (size_t i = 0; i < n && i < 4096; i++) {
		uint32_t type;	/* p_type is the first word in both classes */

		if (pread(fd, &type, sizeof(type), (off_t)(off + i * sz)) != (ssize_t)sizeof(type))
			return -ENOEXEC;
		if (type == PT_INTERP)
			return 1;
	}
	return 0;
}

static int file_status(const char *path, const char **reason)
{
	struct stat st;
	int fd, has;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	has = elf_has_interp(fd);
	close(fd);
	if ((st.st_mode & S_ISUID && st.st_uid != getuid()) ||
	    (st.st_mode & S_ISGID && st.st_gid != getgid())) {
		*reason = "a set-user-ID or set-group-ID command: the dynamic loader ignores "
			  "LD_PRELOAD in it";
		return PBENCH_MEM_SETUID;
	}
	if (has == 0) {
		*reason = "a statically linked command: there is no dynamic loader to preload "
			  "the allocator shim into";
		return PBENCH_MEM_STATIC;
	}
	if (has < 0) {
		*reason = "not an ELF executable";
		return PBENCH_MEM_NOT_LOADED;
	}
	*reason = NULL;
	return PBENCH_MEM_COUNTED;
}

int pbench_mem_command_status(const char *path, const char **reason)
{
	char interp[PATH_MAX];
	const char *why = NULL;
	int err;

	if (!path || !reason)
		return -EINVAL;
	/* A script runs in its interpreter: that is the process the shim would load into. */
	err = pbench_command_interp(path, interp, sizeof(interp));
	if (err < 0)
		return err;
	err = file_status(err ? interp : path, &why);
	*reason = why;
	return err;
}

/* PBENCH_MEM_SHIM; else the shim this process has loaded; else the one next to the running
 * binary (the build tree: build/pbench and build/libpbench-mem.so), in ../lib from it (an
 * installed tree), or in the directory the library was built for. */
static int shim_find(char *out, size_t len)
{
	const char *env = getenv("PBENCH_MEM_SHIM");
	char exe[PATH_MAX], *slash;
	const char *const rel[] = { "/libpbench-mem.so", "/../lib/libpbench-mem.so" };
	ssize_t n;

	void *own = dlsym(RTLD_DEFAULT, "pbench_mem_shim");
	Dl_info di;

	if (env && *env) {
		if (access(env, R_OK))
			return -errno;
		snprintf(out, len, "%s", env);
		return 0;
	}
	/* The shim this process runs on (a program linked with -lpbench-mem, the tests); its
	 * name made absolute (a relative LD_LIBRARY_PATH gives a relative one). */
	if (own && dladdr(own, &di) && di.dli_fname && strchr(di.dli_fname, '/')) {
		char *real = realpath(di.dli_fname, NULL);
		int fits = real && (size_t)snprintf(out, len, "%s", real) < len;

		free(real);
		if (fits)
			return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < PB_ARRAY_SIZE(rel); i++) {
			if ((size_t)snprintf(out, len, "%s%s", exe, rel[i]) < len &&
			    !access(out, R_OK)) {
				char *real = realpath(out, NULL);

				if (real) {
					snprintf(out, len, "%s", real);
					free(real);
				}
				return 0;
			}
		}
	}
#ifdef PBENCH_LIBDIR
	if ((size_t)snprintf(out, len, "%s/libpbench-mem.so", PBENCH_LIBDIR) < len &&
	    !access(out, R_OK))
		return 0;
#endif
	return -ENOENT;
}

int pbench_mem_file_new(struct pbench_mem_file **out)
{
	struct pbench_mem_file *f;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	err = shim_find(f->shim, sizeof(f->shim));
	if (err)
		goto out_free;
	f->fd = memfd_create("pbench-mem", MFD_CLOEXEC);
	if (f->fd < 0) {
		err = -errno;
		goto out_free;
	}
	if (ftruncate(f->fd, sizeof(*f->rec))) {
		err = -errno;
		goto out_close;
	}
	f->rec = mmap(NULL, sizeof(*f->rec), PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->rec == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	snprintf(f->path, sizeof(f->path), "/proc/%d/fd/%d", (int)getpid(), f->fd);
	pbench_mem_file_reset(f);
	*out = f;
	return 0;
out_close:
	close(f->fd);
out_free:
	free(f);
	return err;
}

const char *pbench_mem_file_shim(const struct pbench_mem_file *f)
{
	return f ? f->shim : NULL;
}

void pbench_mem_file_reset(struct pbench_mem_file *f)
{
	if (!f)
		return;
	/* Magic last: a shim never sees a record half zeroed as valid. */
	__atomic_store_n(&f->rec->magic, 0, __ATOMIC_SEQ_CST);
	memset((char *)f->rec + sizeof(f->rec->magic), 0, sizeof(*f->rec) - sizeof(f->rec->magic));
	__atomic_store_n(&f->rec->magic, PB_MEM_FILE_MAGIC, __ATOMIC_SEQ_CST);
}

/* The environment with name=value set (replacing one there), appended to env[0..n-1]. */
static int env_set(char **env, size_t *n, const char *name, const char *value, const char *join)
{
	size_t nl = strlen(name);
	const char *old = NULL;
	size_t i;
	char *s;

	for (i = 0; i < *n; i++)
		if (!strncmp(env[i], name, nl) && env[i][nl] == '=')
			break;
	if (i < *n)
		old = env[i] + nl + 1;
	/* LD_PRELOAD: ours first, the user's after it (both load; ours gets malloc). */
	if (old && join && *old) {
		if (asprintf(&s, "%s=%s%s%s", name, value, join, old) < 0)
			return -ENOMEM;
	} else if (asprintf(&s, "%s=%s", name, value) < 0) {
		return -ENOMEM;
	}
	if (i == *n)
		(*n)++;
	else
		free(env[i]);
	env[i] = s;
	return 0;
}

int pbench_mem_file_env(struct pbench_mem_file *f, char *const *envp, char *const **out)
{
	size_t n = 0, have = 0;
	char **env;
	int err;

	if (!f || !out)
		return -EINVAL;
	if (!envp)
		envp = environ;
	while (envp[have])
		have++;
	env = calloc(have + 3, sizeof(*env));
	if (!env)
		return -ENOMEM;
	for (; n < have; n++) {
		env[n] = strdup(envp[n]);
		if (!env[n]) {
			err = -ENOMEM;
			goto out_free;
		}
	}
	err = env_set(env, &n, "LD_PRELOAD", f->shim, ":");
	if (!err)
		err = env_set(env, &n, "PBENCH_MEM_FILE", f->path, NULL);
	if (err)
		goto out_free;
	pbench_command_free(f->env);
	f->env = env;
	*out = env;
	return 0;
out_free:
	pbench_command_free(env);
	return err;
}

int pbench_mem_file_read(const struct pbench_mem_file *f, struct pbench_mem *out,
			 unsigned *others)
{
	struct pbench_mem m = { .size = sizeof(m) };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_mem, 0, NULL)))
		return err;
	if (!f)
		return pb_fail(-EINVAL, "%s(): f is NULL", __func__);
	if (others)
		*others = __atomic_load_n(&f->rec->others, __ATOMIC_SEQ_CST);
	/* No process loaded the shim; or the owner's last exec never did (the counts are an
	 * earlier image's, not the command's); or the last image has its own allocator. */
	if (!__atomic_load_n(&f->rec->owner, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&f->rec->exec_pending, __ATOMIC_SEQ_CST))
		return PBENCH_MEM_NOT_LOADED;
	if (!__atomic_load_n(&f->rec->own_malloc, __ATOMIC_SEQ_CST))
		return PBENCH_MEM_NOT_INTERPOSED;
	m.allocs = __atomic_load_n(&f->rec->c.allocs, __ATOMIC_SEQ_CST);
	m.frees = __atomic_load_n(&f->rec->c.frees, __ATOMIC_SEQ_CST);
	m.bytes = __atomic_load_n(&f->rec->c.bytes, __ATOMIC_SEQ_CST);
	m.peak_bytes = __atomic_load_n(&f->rec->c.peak, __ATOMIC_SEQ_CST);
	pb_copy_out(out, &m, sizeof(m));
	return PBENCH_MEM_COUNTED;
}

void pbench_mem_file_free(struct pbench_mem_file *f)
{
	if (!f)
		return;
	pbench_command_free(f->env);
	munmap(f->rec, sizeof(*f->rec));
	close(f->fd);
	free(f);
}

/* ---- counted runs of a command -------------------------------------------------------- */

/* One counted run; *stop (may be NULL) set while it runs ends it (with its group and what it
 * left): 1 then, out saying it was not counted. */
static int file_run(struct pbench_mem_file *f, char *const argv[], int quiet,
		    const volatile int *stop, struct pbench_mem_run *out)
{
	struct pbench_mem_run res = { .size = sizeof(res) };
	struct pbench_mem m = { .size = sizeof(m) };
	struct pbench_child_result cr = { .size = sizeof(cr) };
	struct pbench_child_opts co = { .size = sizeof(co), .quiet = quiet };
	struct pbench_child *ch;
	struct rusage ru;
	char *const *env;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_mem_run, 0, NULL)))
		return err;
	if (!f || !argv || !argv[0])
		return pb_fail(-EINVAL, "%s(): %s", __func__, !f ? "f is NULL" : "no command (argv)");
	err = pbench_mem_file_env(f, NULL, &env);
	if (err)
		return err;
	co.envp = env;
	pbench_mem_file_reset(f);
	if (!getrusage(RUSAGE_SELF, &ru))
		res.rss_floor_kib = (uint64_t)ru.ru_maxrss;
	/* Through the child API: its own process group, and whatever it leaves running ended
	 * with it, as for a timed run. */
	err = pbench_child_start(&ch, argv, &co);
	if (err)
		return err;
	do
		err = pbench_child_wait(ch, &cr);
	while (err == -EINTR && !(stop && *stop));
	pbench_child_free(ch);	/* ends it when stopped */
	if (err == -EINTR) {
		res.status = PBENCH_MEM_NOT_LOADED;
		res.reason = "stopped during the run";
		pb_copy_out(out, &res, sizeof(res));
		return 1;
	}
	if (err)
		return err;
	res.exit_status = cr.exited ? cr.exit_status : -1;
	res.term_signal = cr.signaled ? cr.term_signal : 0;
	/* The largest resident set (KiB) of the command and the children it waited for. */
	res.max_rss_kib = cr.max_rss_kib;
	res.status = pbench_mem_file_read(f, &m, &res.others);
	if (res.status == PBENCH_MEM_NOT_LOADED && f->rec->owner)
		res.reason = "the command drops the preload: its last exec'd image did not load "
			     "the allocator shim (LD_PRELOAD or PBENCH_MEM_FILE cleared, or a static "
			     "or set-user-ID program), and an earlier image's counts are not the "
			     "command's";
	else if (res.status == PBENCH_MEM_NOT_LOADED)
		res.reason = "no process loaded the allocator shim (a command that clears "
			     "LD_PRELOAD, or execs a static or setuid program?)";
	else if (res.status == PBENCH_MEM_NOT_INTERPOSED)
		res.reason = f->rec->c.allocs || f->rec->c.frees ?
			     "the command has its own malloc: only some of its calls reached the "
			     "shim" :
			     "no call reached the shim: the command has its own malloc (the "
			     "allocator shim is not its allocator)";
	if (res.status == PBENCH_MEM_COUNTED) {
		res.allocs = m.allocs;
		res.frees = m.frees;
		res.bytes = m.bytes;
		res.peak_bytes = m.peak_bytes;
	}
	pb_copy_out(out, &res, sizeof(res));
	return 0;
}

int pbench_mem_file_run(struct pbench_mem_file *f, char *const argv[], int quiet,
			struct pbench_mem_run *out)
{
	return file_run(f, argv, quiet, NULL, out);
}

int pb_mem_runs_count(char *const *const argv[], int ncmd, int n, int quiet,
			  const volatile int *stop, struct pbench_mem_run *const runs[])
{
	struct pbench_mem_file *f = NULL;
	int countable = 0, err = 0, *ok;
	char path[4096];

	if (!argv || !runs || ncmd < 1 || n < 1)
		return -EINVAL;
	for (int i = 0; i < ncmd; i++)
		if (!argv[i] || !argv[i][0] || !runs[i])
			return -EINVAL;
	ok = calloc((size_t)ncmd, sizeof(*ok));
	if (!ok)
		return -ENOMEM;
	/* Every run says why it was not counted until it is: a command that cannot be, or a
	 * run the stop flag left out, is never a 0. */
	for (int i = 0; i < ncmd; i++) {
		const char *why = NULL;
		int st = pbench_command_resolve(argv[i][0], path, sizeof(path));

		st = st ? st : pbench_mem_command_status(path, &why);
		ok[i] = st == PBENCH_MEM_COUNTED;
		countable += ok[i];
		for (int r = 0; r < n; r++)
			runs[i][r] = (struct pbench_mem_run){
				.size = sizeof(runs[i][r]),
				.status = ok[i] || st < 0 ? PBENCH_MEM_NOT_LOADED : st,
				.reason = ok[i] ? "not run: stopped before it" :
					  why ? why : pbench_strerror(st) };
	}
	if (countable)
		err = pbench_mem_file_new(&f);
	for (int r = 0; r < n && countable && !err && !(stop && *stop); r++)
		for (int i = 0; i < ncmd && !err; i++)
			if (ok[i])
				err = file_run(f, argv[i], quiet, stop, &runs[i][r]);
	pbench_mem_file_free(f);
	free(ok);
	return err < 0 ? err : err || (stop && *stop) ? 1 : 0;
}

/* One figure over the runs: "exactly N" when every run counted the same. */
static void runs_figure(char *buf, size_t len, const double *x, int n, const char *unit,
			const char *per)
{
	struct pbench_summary s = { .size = sizeof(s) };
	char v[96];
	int exact = 1;

	for (int i = 1; i < n; i++)
		exact &= x[i] == x[0];
	if (exact) {
		snprintf(buf, len, "exactly %.15g%s%s %s", x[0], *unit ? " " : "", unit, per);
		return;
	}
	if (pbench_stats_summary(x, (size_t)n, NULL, &s)) {
		snprintf(buf, len, "n/a");
		return;
	}
	pbench_format_value(v, sizeof(v), s.mean, s.sem, NULL);
	snprintf(buf, len, "%s%s%s %s (min %.15g, max %.15g)", v, *unit ? " " : "", unit, per,
		 s.min, s.max);
}

static void row(FILE *f, int md, const char *what, const char *value)
{
	if (md)
		fprintf(f, "| %s | %s |\n", what, value);
	else
		fprintf(f, "  %-13s %s\n", what, value);
}

/* ru_maxrss is the command's own only above pbench's peak, which exec carries into it. */
static void rss_figure(char *buf, size_t len, const struct pbench_mem_run *runs, const double *x,
		       int n)
{
	uint64_t floor = 0;
	int above = 1;

	for (int i = 0; i < n; i++) {
		floor = runs[i].rss_floor_kib > floor ? runs[i].rss_floor_kib : floor;
		above &= runs[i].max_rss_kib > runs[i].rss_floor_kib;
	}
	if (above) {
		runs_figure(buf, len, x, n, "KiB", "per run (wait4 ru_maxrss: the largest of the "
			    "command and the children it waited for; the shim loaded)");
		return;
	}
	snprintf(buf, len, "at most %llu KiB: not above pbench's own peak, which the kernel "
		 "carries into the command's ru_maxrss across exec (only a larger peak is the "
		 "command's)", (unsigned long long)floor);
}

static int write_runs(const struct pbench_mem_run *runs, int n, FILE *f, int md)
{
	const char *why = NULL;
	unsigned others = 0;
	char buf[320];
	int counted = 0;
	double *x;

	if (!runs || n < 1 || !f)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		counted += runs[i].status == PBENCH_MEM_COUNTED;
		others = runs[i].others > others ? runs[i].others : others;
		if (runs[i].status != PBENCH_MEM_COUNTED && !why)
			why = runs[i].reason;
	}
	x = calloc((size_t)n, sizeof(*x));
	if (!x)
		return -ENOMEM;
	if (md)
		fprintf(f, "\n### Memory of the command\n\n%d more run%s with the allocator shim "
			"preloaded (untimed).\n\n| figure | value |\n|---|---|\n", n,
			n == 1 ? "" : "s");
	else
		fprintf(f, "memory of the command, in %d more run%s with the allocator shim "
			"preloaded (untimed):\n", n, n == 1 ? "" : "s");
	if (counted < n) {
		snprintf(buf, sizeof(buf), "not counted: %s", why ? why : counted ?
			 "the shim was not loaded in every run" : "no process loaded the shim");
		row(f, md, "allocations", buf);
		if (!counted && why)
			goto out;	/* not run at all */
	} else {
		static const struct { const char *what, *unit, *per; } fig[] = {
			{ "allocations", "", "per run" },
			{ "frees", "", "per run" },
			{ "allocated", "B", "per run" },
			{ "peak live", "B", "per run (net heap growth, usable sizes)" },
		};

		for (int k = 0; k < 4; k++) {
			for (int i = 0; i < n; i++)
				x[i] = k == 0 ? (double)runs[i].allocs : k == 1 ? (double)runs[i].frees :
				       k == 2 ? (double)runs[i].bytes : (double)runs[i].peak_bytes;
			runs_figure(buf, sizeof(buf), x, n, fig[k].unit, fig[k].per);
			row(f, md, fig[k].what, buf);
		}
		if (others) {
			snprintf(buf, sizeof(buf), "%s%u process%s the command started, not counted",
				 others >= PB_MEM_OTHERS_MAX ? "at least " : "", others,
				 others == 1 ? "" : "es");
			row(f, md, "children", buf);
		}
	}
	for (int i = 0; i < n; i++)
		x[i] = (double)runs[i].max_rss_kib;
	rss_figure(buf, sizeof(buf), runs, x, n);
	row(f, md, "peak RSS", buf);
out:
	free(x);
	fflush(f);
	return pb_stream_end(f);
}

int pb_mem_runs_write_text(const struct pbench_mem_run *runs, int n, FILE *f)
{
	return write_runs(runs, n, f, 0);
}

int pb_mem_runs_write_markdown(const struct pbench_mem_run *runs, int n, FILE *f)
{
	return write_runs(runs, n, f, 1);
}

int pb_mem_runs_compare(const struct pbench_mem_run *a, int na, const struct pbench_mem_run *b,
			    int nb, int kind, double confidence, double same_threshold_pct,
			    struct pbench_mem_comparison *out)
{
	double *x;
	int err;

	if (!a || !b || na < 1 || nb < 1 || kind < PBENCH_MEM_ALLOCS || kind > PBENCH_MEM_PEAK)
		return -EINVAL;
	for (int i = 0; i < na; i++)
		if (a[i].status != PBENCH_MEM_COUNTED)
			return -ENODATA;
	for (int i = 0; i < nb; i++)
		if (b[i].status != PBENCH_MEM_COUNTED)
			return -ENODATA;
	x = calloc((size_t)(na + nb), sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (int i = 0; i < na + nb; i++) {
		const struct pbench_mem_run *r = i < na ? &a[i] : &b[i - na];

		x[i] = kind == PBENCH_MEM_ALLOCS ? (double)r->allocs :
		       kind == PBENCH_MEM_FREES ? (double)r->frees :
		       kind == PBENCH_MEM_BYTES ? (double)r->bytes : (double)r->peak_bytes;
	}
	err = pb_mem_compare_x(x, (size_t)na, x + na, (size_t)nb, kind, confidence,
			       same_threshold_pct, out);
	free(x);
	return err;
}

/* ---- a command's counted runs as JSON (pbench stat's and compare's "memory") ---------------- */

/* One figure over the runs: exact when every run counted the same, its mean and summary. */
json_t *pb_mem_figure_json(const double *x, int n, int *bad)
{
	struct pbench_summary s = { .size = sizeof(s) };
	int exact = 1;

	for (int i = 1; i < n; i++)
		exact &= x[i] == x[0];
	if (pbench_stats_summary(x, (size_t)n, NULL, &s))
		return json_null();
	return pb_json_mem_figure(&s, exact, bad);
}

static json_t *run_json(const struct pbench_mem_run *r, int *bad)
{
	int counted = r->status == PBENCH_MEM_COUNTED;
	json_t *j = json_object();

	if (!j) {
		*bad = -1;
		return NULL;
	}
	SET(j, "status", json_string(pbench_mem_status_name(r->status)));
	SET(j, "reason", pb_json_str_or_null(r->reason));
	SET(j, "exit_status", r->exit_status >= 0 ? json_integer(r->exit_status) : json_null());
	SET(j, "signal", r->term_signal ? json_integer(r->term_signal) : json_null());
	SET(j, "allocs", counted ? unum(r->allocs) : json_null());
	SET(j, "frees", counted ? unum(r->frees) : json_null());
	SET(j, "bytes", counted ? unum(r->bytes) : json_null());
	SET(j, "peak_bytes", counted ? json_integer((json_int_t)r->peak_bytes) : json_null());
	SET(j, "others", json_integer((json_int_t)r->others));
	SET(j, "max_rss_kib", r->max_rss_kib ? unum(r->max_rss_kib) : json_null());
	SET(j, "rss_floor_kib", r->max_rss_kib ? unum(r->rss_floor_kib) : json_null());
	return j;
}

json_t *pb_mem_runs_json(const struct pbench_mem_run *runs, int n, int *bad)
{
	static const char *const fig[] = { "allocs_per_run", "frees_per_run", "bytes_per_run",
					   "peak_bytes" };
	int counted = 0, status = PBENCH_MEM_COUNTED, rss = 0, bound = 0;
	const char *why = NULL;
	unsigned others = 0;
	json_t *j, *each;
	double *x;

	if (!runs || n < 1)
		return json_null();
	for (int i = 0; i < n; i++) {
		counted += runs[i].status == PBENCH_MEM_COUNTED;
		others = runs[i].others > others ? runs[i].others : others;
		if (runs[i].status != PBENCH_MEM_COUNTED && status == PBENCH_MEM_COUNTED) {
			status = runs[i].status;
			why = runs[i].reason;
		}
		rss += runs[i].max_rss_kib > 0;
		bound |= runs[i].max_rss_kib > 0 && runs[i].max_rss_kib <= runs[i].rss_floor_kib;
	}
	x = calloc((size_t)n, sizeof(*x));
	j = json_object();
	each = json_array();
	if (!x || !j || !each) {
		free(x);
		json_decref(j);
		json_decref(each);
		*bad = -1;
		return NULL;
	}
	SET(j, "runs", json_integer(n));
	SET(j, "status", json_string(pbench_mem_status_name(status)));
	SET(j, "reason", pb_json_str_or_null(why));
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < n; i++)
			x[i] = k == 0 ? (double)runs[i].allocs : k == 1 ? (double)runs[i].frees :
			       k == 2 ? (double)runs[i].bytes : (double)runs[i].peak_bytes;
		SET(j, fig[k], counted == n ? pb_mem_figure_json(x, n, bad) : json_null());
	}
	SET(j, "children_not_counted", json_integer((json_int_t)others));
	for (int i = 0; i < n; i++)
		x[i] = (double)runs[i].max_rss_kib;
	SET(j, "max_rss_kib", rss == n ? pb_mem_figure_json(x, n, bad) : json_null());
	SET(j, "max_rss_is_bound", json_boolean(bound));
	for (int i = 0; i < n; i++)
		APPEND(each, run_json(&runs[i], bad));
	SET(j, "each", each);
	free(x);
	return j;
}
