/* SPDX-License-Identifier: MIT */
/*
 * Memory per call (lib/src/measure/mem.c, measure_mem.c, the shim lib/shim/mem.c): the counts of a
 * function whose allocations are known, exactly; nothing counted outside the counted batches
 * (not the first call, the warm-up, the timed samples, setup or setup_each, nor another
 * thread); two functions compared on bytes and allocations.
 *
 * The binary is linked with -lpbench-mem. Under ASan the sanitizer's malloc comes first in
 * the link order, so the shim would never be called: the binary then runs itself again with
 * the shim preloaded, as a user of a sanitized program would (and ASan told that its runtime
 * not being first is meant).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"
#include "measure/measure.h"	/* pb_mem_runs_count(): the runs behind stat --memory */

__attribute__((constructor)) static void shim_first(int argc, char **argv)
{
	void *shim = dlsym(RTLD_DEFAULT, "pbench_mem_shim");
	void *first = dlsym(RTLD_DEFAULT, "malloc");
	Dl_info di, dm;
	char env[4096];

	(void)argc;
	/* The malloc every call reaches: is it the shim's (the same file as its symbol)? */
	if (!shim || !dladdr(shim, &di) || !di.dli_fname || getenv("PBENCH_TEST_MEM_AGAIN"))
		return;
	if (dladdr(first, &dm) && dm.dli_fbase == di.dli_fbase)
		return;
	setenv("PBENCH_TEST_MEM_AGAIN", "1", 1);
	setenv("LD_PRELOAD", di.dli_fname, 1);
	snprintf(env, sizeof(env), "%s%sverify_asan_link_order=0",
		 getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
		 getenv("ASAN_OPTIONS") ? ":" : "");
	setenv("ASAN_OPTIONS", env, 1);
	execv("/proc/self/exe", argv);
}

/* As a command run with the shim preloaded (the command tests below): allocate as told, and
 * exit before Criterion starts. */
static void *(*volatile child_malloc)(size_t) = malloc;

__attribute__((constructor)) static void as_command(void)
{
	const char *mode = getenv("PBENCH_TEST_MEM_CHILD");
	void *p[3];

	if (!mode)
		return;
	if (!strcmp(mode, "3")) {
		for (int i = 0; i < 3; i++)
			p[i] = child_malloc(100);
		for (int i = 0; i < 3; i++)
			free(p[i]);
	} else if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			for (int i = 0; i < 1000; i++)
				free(child_malloc(100));
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	_exit(0);
}

/* Short runs: the counts, not the times, are under test. */
static struct pbench_measure_opts quick(void)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;

	o.warmup_ms = 20;
	o.min_sample_ms = 0.2;
	o.budget_ms = 200;
	o.min_samples = 10;
	o.max_samples = 40;
	o.count_memory = 1;
	return o;
}

/* Through volatile pointers: the compiler may delete an allocation whose block is only freed. */
static void *(*volatile do_malloc)(size_t) = malloc;
static void *(*volatile do_aligned_alloc)(size_t, size_t) = aligned_alloc;

/* Exactly three mallocs of 100 bytes, freed: 3, 3, 300 per call. */
__attribute__((noinline)) static void three(void *ctx)
{
	void *p[3];

	(void)ctx;
	for (int i = 0; i < 3; i++)
		p[i] = do_malloc(100);
	pbench_do_not_optimize(p[0]);
	for (int i = 0; i < 3; i++)
		free(p[i]);
}

__attribute__((noinline)) static void none(void *ctx)
{
	(void)ctx;
	pbench_clobber();
}

__attribute__((noinline)) static void heavy(void *ctx)
{
	void *p[8];

	(void)ctx;
	for (int i = 0; i < 8; i++)
		p[i] = do_malloc(256);
	pbench_do_not_optimize(p[0]);
	for (int i = 0; i < 8; i++)
		free(p[i]);
}

static struct pbench_result *measure(pbench_fn fn, void *ctx, struct pbench_measure_opts *o)
{
	struct pbench_result *r = NULL;

	cr_assert_eq(pbench_measure(&r, fn, ctx, o), 0);
	cr_assert_eq(pbench_result_mem_status(r), PBENCH_MEM_COUNTED, "not counted: %s",
		     pbench_result_mem_reason(r));
	return r;
}

static void expect_exact(const struct pbench_result *r, int kind, double want)
{
	struct pbench_summary s = { .size = sizeof(s) };
	int exact = -1;

	cr_assert_eq(pbench_result_mem_summary(r, kind, &s, &exact), 0);
	cr_expect_eq(exact, 1, "%s: not the same in every sample (mean %g, min %g, max %g)",
		     pbench_mem_kind_name(kind), s.mean, s.min, s.max);
	cr_expect_eq(s.mean, want, "%s: %g per call, not %g", pbench_mem_kind_name(kind), s.mean,
		     want);
}

/* The batches counted are as many as the samples taken, min_samples (10) at most: a sample
 * that a stalled CPU made long ends the 200 ms budget before the 10th (pinned to a CPU a
 * SCHED_FIFO task held 200 ms of every 250: 1 measurement in 10 took 5 samples, so 5
 * batches). Up to 3 measurements, each afresh, until one took 10 samples; the last judged. */
Test(mem, three_mallocs_of_100_bytes_exactly)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r = NULL;
	struct pbench_mem m = { .size = sizeof(m) };
	size_t samples = 0;
	uint64_t n;
	int tries = 0;

	while (tries++ < 3 && samples < 10) {
		pbench_result_free(r);
		r = measure(three, NULL, &o);
		samples = pbench_result_nr_samples(r);
		if (samples < 10)
			cr_log_info("try %d: %zu samples in the budget", tries, samples);
	}
	n = pbench_result_iterations(r);

	expect_exact(r, PBENCH_MEM_ALLOCS, 3);
	expect_exact(r, PBENCH_MEM_FREES, 3);
	expect_exact(r, PBENCH_MEM_BYTES, 300);
	cr_assert_eq(pbench_result_mem(r, 0, &m), 0);
	cr_expect_eq(m.allocs, 3 * n);
	cr_expect_eq(m.bytes, 300 * n);
	/* Three blocks live at once, in usable sizes: at least the 300 asked, less than a
	 * page (they are freed each call, so the peak does not grow with the calls). */
	cr_expect(m.peak_bytes >= 300 && m.peak_bytes < 4096, "peak %lld",
		  (long long)m.peak_bytes);
	/* min_samples batches, untimed, after the samples. */
	cr_expect_eq(pbench_result_mem_nr_batches(r), samples < 10 ? samples : 10, "%zu batches "
		     "after %zu samples", pbench_result_mem_nr_batches(r), samples);
	cr_expect_geq(samples, 10, "%zu samples in 3 measurements of a 200 ms budget", samples);
	cr_expect_eq(pbench_result_mem(r, 10, &m), -EINVAL);
	pbench_result_free(r);
	TEST_RETRIED("mem::three_mallocs_of_100_bytes_exactly", tries - 1);
}

/* Everything outside the samples allocates, in amounts no sample can be confused with. */
static _Atomic int outside;

static void alloc_outside(void *ctx)
{
	void **p = ctx;

	free(*p);
	*p = do_malloc(1000);
	outside++;
}

static atomic_int stop;

static void *other_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		free(do_malloc(64));
	return NULL;
}

Test(mem, nothing_counted_outside_samples)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r;
	void *held = NULL;
	pthread_t th;

	o.setup = alloc_outside;
	o.teardown = alloc_outside;
	cr_assert_eq(pthread_create(&th, NULL, other_thread, NULL), 0);
	r = measure(three, &held, &o);
	expect_exact(r, PBENCH_MEM_ALLOCS, 3);
	expect_exact(r, PBENCH_MEM_BYTES, 300);
	pbench_result_free(r);

	/* Each call timed alone, with an allocating setup_each and teardown_each. */
	o.setup = o.teardown = NULL;
	o.setup_each = alloc_outside;
	o.teardown_each = alloc_outside;
	o.max_samples = 12;
	r = measure(three, &held, &o);
	expect_exact(r, PBENCH_MEM_ALLOCS, 3);
	expect_exact(r, PBENCH_MEM_FREES, 3);
	expect_exact(r, PBENCH_MEM_BYTES, 300);
	pbench_result_free(r);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	free(held);
	cr_expect(outside > 0);
}

Test(mem, allocation_free_is_exactly_zero)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r = measure(none, NULL, &o);
	struct pbench_mem m = { .size = sizeof(m) };

	expect_exact(r, PBENCH_MEM_ALLOCS, 0);
	expect_exact(r, PBENCH_MEM_BYTES, 0);
	cr_assert_eq(pbench_result_mem(r, 0, &m), 0);
	cr_expect_eq(m.peak_bytes, 0);
	pbench_result_free(r);
}

/* calloc, realloc (a free and an allocation), the aligned allocators, reallocarray. */
__attribute__((noinline)) static void every_allocator(void *ctx)
{
	void *a = calloc(2, 10), *b = NULL, *c = do_aligned_alloc(64, 128), *d;

	(void)ctx;
	a = realloc(a, 4000);			/* 1 alloc + 1 free, 4000 bytes */
	cr_assert_eq(posix_memalign(&b, 64, 50), 0);
	d = reallocarray(NULL, 3, 10);		/* a malloc of 30 */
	pbench_do_not_optimize(d);
	free(a);
	free(b);
	free(c);
	free(d);
	free(NULL);				/* not a free */
}

Test(mem, every_allocator_counted)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r = measure(every_allocator, NULL, &o);

	expect_exact(r, PBENCH_MEM_ALLOCS, 5);
	expect_exact(r, PBENCH_MEM_FREES, 5);
	expect_exact(r, PBENCH_MEM_BYTES, 20 + 128 + 4000 + 50 + 30);
	pbench_result_free(r);
}

Test(mem, compare_heavy_and_free)
{
	struct pbench_measure_opts mo = quick();
	struct pbench_compare_opts co = { .size = sizeof(co), .measure = &mo };
	struct pbench_comparison c = { .size = sizeof(c) };

	mo.budget_ms = 300;
	cr_assert_eq(pbench_compare(three, NULL, heavy, NULL, &co, &c), 0);
	cr_assert_eq(c.mem_status, PBENCH_MEM_COUNTED, "%s", c.mem_reason);
	cr_assert_not_null(c.mem_bytes);
	cr_assert_not_null(c.mem_allocs);
	/* heavy: 8 x 256 = 2048 bytes, three: 300. Exact on both sides. */
	cr_expect_eq(c.mem_bytes->a, 300);
	cr_expect_eq(c.mem_bytes->b, 2048);
	cr_expect(c.mem_bytes->a_exact && c.mem_bytes->b_exact);
	cr_expect_float_eq(c.mem_bytes->ratio, 2048.0 / 300, 1e-12);
	cr_expect_eq(c.mem_bytes->ratio_lo, c.mem_bytes->ratio);
	cr_expect_eq(c.mem_bytes->verdict, PBENCH_VERDICT_FASTER, "a allocates less");
	cr_expect_float_eq(c.mem_allocs->ratio, 8.0 / 3, 1e-12);
	pbench_comparison_release(&c);

	/* Allocation-free against heavy: no ratio to a zero, still a verdict. */
	c = (struct pbench_comparison){ .size = sizeof(c) };
	cr_assert_eq(pbench_compare(heavy, NULL, none, NULL, &co, &c), 0);
	cr_assert_not_null(c.mem_bytes);
	cr_expect_eq(c.mem_bytes->b, 0);
	cr_expect_eq(c.mem_bytes->verdict, PBENCH_VERDICT_SLOWER, "a allocates more");
	cr_expect_eq(c.mem_bytes->ratio, 0);
	pbench_comparison_release(&c);
}

/* A count that varies: Welch, an interval around the ratio. */
static unsigned long calls;

__attribute__((noinline)) static void sometimes(void *ctx)
{
	(void)ctx;
	/* One allocation every 7th call, with a jitter of its own per call, so that batches
	 * differ. */
	if (++calls % 7 == 0 || (calls * 2654435761u) % 1000 < 3)
		free(do_malloc(32));
}

Test(mem, varying_counts_have_an_interval)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *a, *b;
	struct pbench_mem_comparison c = { .size = sizeof(c) };
	struct pbench_summary s = { .size = sizeof(s) };
	int exact = -1;

	o.iterations = 1000;
	o.min_samples = o.max_samples = 20;
	a = measure(sometimes, NULL, &o);
	b = measure(three, NULL, &o);
	cr_assert_eq(pbench_result_mem_summary(a, PBENCH_MEM_ALLOCS, &s, &exact), 0);
	cr_expect_eq(exact, 0);
	cr_expect(s.mean > 0.1 && s.mean < 0.2, "%g", s.mean);
	cr_assert_eq(pbench_mem_compare(a, b, PBENCH_MEM_ALLOCS, 0.999, 1, &c), 0);
	cr_expect_eq(c.a_exact, 0);
	cr_expect_eq(c.b_exact, 1);
	cr_expect(c.ratio_lo < c.ratio && c.ratio < c.ratio_hi, "%g [%g, %g]", c.ratio,
		  c.ratio_lo, c.ratio_hi);
	cr_expect_eq(c.verdict, PBENCH_VERDICT_FASTER);
	cr_expect(c.p < 0.001);
	pbench_result_free(a);
	pbench_result_free(b);
}

Test(mem, off_and_bad_arguments)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r = NULL;
	struct pbench_summary s = { .size = sizeof(s) };
	struct pbench_mem m = { .size = sizeof(m) };

	o.count_memory = 0;
	cr_assert_eq(pbench_measure(&r, three, NULL, &o), 0);
	cr_expect_eq(pbench_result_mem_status(r), PBENCH_MEM_OFF);
	cr_expect_null(pbench_result_mem_reason(r));
	cr_expect_eq(pbench_result_mem(r, 0, &m), -ENODATA);
	cr_expect_eq(pbench_result_mem_summary(r, PBENCH_MEM_BYTES, &s, NULL), -ENODATA);
	cr_expect_eq(pbench_result_mem_summary(r, 99, &s, NULL), -EINVAL);
	cr_expect_str_eq(pbench_mem_status_name(PBENCH_MEM_NOT_INTERPOSED), "not_interposed");
	pbench_result_free(r);
}

/* The reports say "exactly" for exact counts, and the JSON carries each batch. */
Test(mem, reports)
{
	struct pbench_measure_opts o = quick();
	struct pbench_result *r = measure(three, NULL, &o);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pbench_result_write_text(r, f, "three"), 0);
	cr_assert_eq(pbench_result_write_json(r, f, "three"), 0);
	fclose(f);
	cr_expect_not_null(strstr(buf, "allocations   exactly 3 per call"), "%s", buf);
	cr_expect_not_null(strstr(buf, "allocated     exactly 300 B per call"), "%s", buf);
	cr_expect_not_null(strstr(buf, "untimed batches of"), "%s", buf);
	cr_expect_not_null(strstr(buf, "\"status\": \"counted\""), "%s", buf);
	cr_expect_not_null(strstr(buf, "\"exact\": true"), "%s", buf);
	cr_expect_not_null(strstr(buf, "\"batches\": ["), "%s", buf);
	free(buf);
	pbench_result_free(r);
}

/* ---- a command, through the preloaded shim ------------------------------------------------ */

/* Run this binary as a command in mode (as_command) with f's environment: its status. */
static int run_as_command(struct pbench_mem_file *f, const char *mode, struct pbench_mem *m,
			  unsigned *others)
{
	extern char **environ;
	char *const *env, **base, var[64];
	size_t n = 0;
	pid_t pid;
	int st;

	while (environ[n])
		n++;
	base = calloc(n + 2, sizeof(*base));
	cr_assert_not_null(base);
	memcpy(base, environ, n * sizeof(*base));
	snprintf(var, sizeof(var), "PBENCH_TEST_MEM_CHILD=%s", mode);
	base[n] = var;
	cr_assert_eq(pbench_mem_file_env(f, base, &env), 0);
	free(base);
	pbench_mem_file_reset(f);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char *argv[] = { "test_mem", NULL };

		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the command failed");
	m->size = sizeof(*m);
	return pbench_mem_file_read(f, m, others);
}

Test(mem, command_counts_its_own_process)
{
	struct pbench_mem zero = { .size = sizeof(zero) }, three_m = { .size = sizeof(three_m) },
			  forked = { .size = sizeof(forked) };
	struct pbench_mem_file *f = NULL;
	unsigned others = 99;

	cr_assert_eq(pbench_mem_file_new(&f), 0, "libpbench-mem.so not found");
	cr_assert_not_null(strstr(pbench_mem_file_shim(f), "libpbench-mem.so"));
	cr_assert_eq(run_as_command(f, "0", &zero, &others), PBENCH_MEM_COUNTED);
	cr_expect_eq(others, 0);
	cr_assert_eq(run_as_command(f, "3", &three_m, &others), PBENCH_MEM_COUNTED);
	/* The same start either way: the difference is the three mallocs exactly. */
	cr_expect_eq(three_m.allocs - zero.allocs, 3, "%llu - %llu",
		     (unsigned long long)three_m.allocs, (unsigned long long)zero.allocs);
	cr_expect_eq(three_m.frees - zero.frees, 3);
	cr_expect_eq(three_m.bytes - zero.bytes, 300);
	/* A forked child's thousand allocations are not the command's; it is counted apart. */
	cr_assert_eq(run_as_command(f, "fork", &forked, &others), PBENCH_MEM_COUNTED);
	cr_expect_eq(others, 1);
	cr_expect(forked.allocs - zero.allocs < 100, "%llu allocations: the child's counted?",
		  (unsigned long long)(forked.allocs - zero.allocs));
	pbench_mem_file_free(f);
}

Test(mem, command_not_countable)
{
	char dir[] = "/tmp/pbench-mem-XXXXXX", path[64], cmd[160];
	struct pbench_mem m = { .size = sizeof(m) };
	struct pbench_mem_file *f = NULL;
	const char *why = "unset";
	char *const *env;
	FILE *s;
	pid_t pid;

	cr_expect_eq(pbench_mem_command_status("/bin/true", &why), PBENCH_MEM_COUNTED);
	cr_expect_null(why);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/script", dir);
	s = fopen(path, "w");
	cr_assert_not_null(s);
	fputs("#!/bin/sh\ntrue\n", s);
	fclose(s);
	chmod(path, 0755);
	cr_expect_eq(pbench_mem_command_status(path, &why), PBENCH_MEM_COUNTED, "%s", why);
	s = fopen(path, "w");
	fputs("true\n", s);
	fclose(s);
	cr_expect_eq(pbench_mem_command_status(path, &why), PBENCH_MEM_NOT_LOADED);
	if (access("/sbin/ldconfig", X_OK) == 0 &&
	    pbench_mem_command_status("/sbin/ldconfig", &why) == PBENCH_MEM_STATIC) {
		/* And run, it never loads the shim: not counted, not 0. */
		cr_assert_eq(pbench_mem_file_new(&f), 0);
		cr_assert_eq(pbench_mem_file_env(f, NULL, &env), 0);
		pid = fork();
		if (pid == 0) {
			char *argv[] = { "ldconfig", "--version", NULL };
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			execve("/sbin/ldconfig", argv, env);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		cr_expect_eq(pbench_mem_file_read(f, &m, NULL), PBENCH_MEM_NOT_LOADED);
		pbench_mem_file_free(f);
	} else {
		cr_log_info("no static /sbin/ldconfig here: the static case is checked on the "
			    "setuid copy only");
	}
	snprintf(path, sizeof(path), "%s/true", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/true %s", path);
	cr_assert_eq(system(cmd), 0);
	if (getuid() == 0 && chown(path, 65534, 65534) == 0 && chmod(path, 04755) == 0)
		cr_expect_eq(pbench_mem_command_status(path, &why), PBENCH_MEM_SETUID);
	else
		cr_log_info("not root: the setuid case is not checked");
	/* Owned by the caller, setuid changes nothing: the loader preloads. */
	if (chown(path, getuid(), getgid()) == 0 && chmod(path, 04755) == 0)
		cr_expect_eq(pbench_mem_command_status(path, &why), PBENCH_MEM_COUNTED);
	unlink(path);
	snprintf(path, sizeof(path), "%s/script", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- functions in a contest (PBENCH_CONTEST_COUNT_MEMORY) --------------------------------- */

Test(mem, contest_functions)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_mem_comparison m = { .size = sizeof(m) };
	struct pbench_contest *c;
	const char *why = "unset";
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	e.workload = PBENCH_WORKLOAD_FN;
	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.max_rounds = 12;
	o.flags = PBENCH_CONTEST_COUNT_MEMORY | PBENCH_CONTEST_FULL_BUDGET;
	cr_assert_eq(pbench_contest_new(&c, &o), 0);
	e.name = "three";
	e.fn = three;
	cr_assert_eq(pbench_contest_add(c, &e), 0);
	e.name = "heavy";
	e.fn = heavy;
	cr_assert_eq(pbench_contest_add(c, &e), 1);
	ASSERT_OK(pbench_contest_run(c));
	cr_assert_eq(pbench_contest_mem_status(c, 1, &why), PBENCH_MEM_COUNTED, "%s", why);
	cr_assert_eq(pbench_contest_mem(c, 1, PBENCH_MEM_BYTES, &m), 0);
	cr_expect_eq(m.a, 300);
	cr_expect_eq(m.b, 2048);
	cr_expect(m.a_exact && m.b_exact);
	cr_expect_eq(m.verdict, PBENCH_VERDICT_FASTER, "the reference allocates less");
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_write_text(c, f), 0);
	fclose(f);
	cr_expect_not_null(strstr(buf, "heavy allocates 6.83x the bytes of three per call (exact)"),
			   "%s", buf);
	free(buf);
	/* The JSON: each function's calls per call, heavy against three. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	cr_assert_eq(pbench_contest_write_json(c, f), 0);
	fclose(f);
	{
		json_t *root = json_loads(buf, 0, NULL), *es, *three_m, *heavy_m, *vs;

		cr_assert_not_null(root, "%s", buf);
		es = json_object_get(root, "entrants");
		three_m = json_object_get(json_array_get(es, 0), "calls_memory");
		heavy_m = json_object_get(json_array_get(es, 1), "calls_memory");
		vs = json_object_get(json_array_get(es, 1), "memory_vs_reference");
		cr_expect_str_eq(json_string_value(json_object_get(heavy_m, "status")), "counted");
		cr_expect(json_is_true(json_object_get(json_object_get(three_m, "bytes_per_call"),
							"exact")));
		cr_expect_eq(json_real_value(json_object_get(json_object_get(three_m,
					"bytes_per_call"), "mean")), 300);
		cr_expect_eq(json_real_value(json_object_get(json_object_get(heavy_m,
					"bytes_per_call"), "mean")), 2048);
		cr_expect_eq(json_real_value(json_object_get(json_object_get(three_m,
					"allocs_per_call"), "mean")), 3);
		cr_expect(json_is_null(json_object_get(json_array_get(es, 0),
						       "memory_vs_reference")));
		cr_expect_eq(json_real_value(json_object_get(json_object_get(vs, "bytes"),
							     "b_per_call")), 2048);
		cr_expect(json_is_null(json_object_get(json_array_get(es, 1), "memory")),
			  "no command memory for a function");
		json_decref(root);
	}
	free(buf);
	pbench_contest_free(c);
}

/* Commands counted in alternation: one that runs is counted in every run, exactly alike; one
 * that is not there is not run and says why; runs the stop flag left out are not 0. */
Test(mem, runs_count_of_commands)
{
	char *a[] = { "/bin/sh", "-c", "exit 0", NULL }, *b[] = { "pbench-no-such-command", NULL };
	char *const *argv[] = { a, b };
	struct pbench_mem_run ra[3], rb[3];
	struct pbench_mem_run *const runs[] = { ra, rb };
	volatile int stopped = 0;

	cr_assert_eq(pb_mem_runs_count(argv, 2, 3, 1, &stopped, runs), 0);
	for (int r = 0; r < 3; r++) {
		cr_assert_eq(ra[r].status, PBENCH_MEM_COUNTED, "run %d: %s", r,
			     ra[r].reason ? ra[r].reason : "");
		cr_expect_gt(ra[r].allocs, 0u);
		cr_expect_eq(ra[r].allocs, ra[0].allocs, "the same shell, the same allocations");
		cr_expect_neq(rb[r].status, PBENCH_MEM_COUNTED);
		cr_expect_not_null(rb[r].reason);
	}
	stopped = 1;
	cr_assert_eq(pb_mem_runs_count(argv, 1, 2, 1, &stopped, runs), 1);
	cr_expect_neq(ra[0].status, PBENCH_MEM_COUNTED, "not run, so not counted");
	cr_expect_str_eq(ra[0].reason, "not run: stopped before it");
	cr_assert_eq(pb_mem_runs_count(argv, 0, 2, 1, NULL, runs), -EINVAL);
}
