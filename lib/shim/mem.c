/* SPDX-License-Identifier: MIT */
/*
 * libpbench-mem.so: the allocator shim that counts allocations for pbench (memshim.h).
 *
 * It defines malloc, calloc, realloc, reallocarray, free and the aligned allocators, each
 * forwarding to the next definition (glibc's, or a sanitizer's) found with dlsym(RTLD_NEXT);
 * C++ new and delete reach them through libstdc++'s calls to malloc and free, and glibc's own
 * allocations (strdup, fopen) through glibc's support for an interposed malloc. It counts only
 * while a window is open: a thread that libpbench set counting (a sample of a measured
 * function), or the whole process of a command run with PBENCH_MEM_FILE set. Otherwise each
 * call costs one load of a global and a branch on top of the allocator's own work.
 *
 * For a command it also wraps the exec family, to mark in the record that the counted process
 * is about to become another image (memshim.h says what pbench makes of it), and checks at
 * start that the program's malloc is this one.
 *
 * Built without sanitizers (the Makefile): an instrumented malloc would be ASan's business.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "memshim.h"

#define API __attribute__((visibility("default")))
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)

static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static void *(*next_valloc)(size_t);
static void *(*next_pvalloc)(size_t);
static size_t (*next_usable)(void *);

/*
 * dlsym itself may allocate (glibc's dlerror state uses calloc) before the next malloc is
 * known: those few allocations come from this arena, each with its size in front, and are
 * never given back.
 */
static _Alignas(16) char arena[16384];
static atomic_size_t arena_used;
static atomic_int resolving;

static void *arena_alloc(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15);
	size_t at = atomic_fetch_add(&arena_used, need);

	if (at + need > sizeof(arena))
		return NULL;
	*(size_t *)(arena + at) = n;
	return arena + at + 16;
}

static int in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

static void resolve(void)
{
	atomic_store(&resolving, 1);
	next_malloc = dlsym(RTLD_NEXT, "malloc");
	next_calloc = dlsym(RTLD_NEXT, "calloc");
	next_realloc = dlsym(RTLD_NEXT, "realloc");
	next_free = dlsym(RTLD_NEXT, "free");
	next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	next_memalign = dlsym(RTLD_NEXT, "memalign");
	next_valloc = dlsym(RTLD_NEXT, "valloc");
	next_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	next_usable = dlsym(RTLD_NEXT, "malloc_usable_size");
	atomic_store(&resolving, 0);
}

/* ---- the counting windows ------------------------------------------------------------- */

/* Non-zero while any window is open: the only thing an allocation reads when none is. */
static atomic_int windows;
/* The calling thread's window (a sample), counted without atomics: only it writes there. */
static __thread struct pb_mem_counts *thread_counts __attribute__((tls_model("initial-exec")));
/* The command's window: the whole process, any thread, atomically. */
static struct pb_mem_file *proc_file;
/*
 * Whether this is still the process that owns proc_file: a child made by a raw fork syscall
 * ran no fork handler and still has it. The pid would tell (the raw syscall, since a libc that
 * caches the pid would not see a raw fork), but a getpid per allocation costs microseconds on
 * a VM: a page the kernel wipes in any forked child (MADV_WIPEONFORK, Linux 4.14) costs a
 * load. Where that is refused, the pid. A vfork child shares this memory and the page: its
 * allocations before its exec (which POSIX leaves undefined) are counted as the owner's.
 */
static int32_t proc_pid;
static volatile int32_t *fork_guard;	/* 1 in the owner, 0 in a forked child */
static int32_t foreign_seen;

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

static int32_t raw_getpid(void)
{
	return (int32_t)syscall(SYS_getpid);
}

static void guard_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = page > 0 ? (size_t)page : 4096;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	if (madvise(p, len, MADV_WIPEONFORK)) {
		munmap(p, len);
		return;
	}
	*(volatile int32_t *)p = 1;
	fork_guard = p;
}

/* pid, a process other than the owner, into f's set once. */
static void others_add(struct pb_mem_file *f, int32_t pid)
{
	uint32_t n = __atomic_load_n(&f->npids, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n && i < PB_MEM_OTHERS_MAX; i++)
		if (__atomic_load_n(&f->pids[i], __ATOMIC_RELAXED) == pid)
			return;
	i = __atomic_fetch_add(&f->npids, 1, __ATOMIC_ACQ_REL);
	if (i < PB_MEM_OTHERS_MAX) {
		__atomic_store_n(&f->pids[i], pid, __ATOMIC_RELEASE);
		__atomic_add_fetch(&f->others, 1, __ATOMIC_RELAXED);
	}
}

static void count_thread(struct pb_mem_counts *c)
{
	if (c && !thread_counts)
		atomic_fetch_add(&windows, 1);
	else if (!c && thread_counts)
		atomic_fetch_sub(&windows, 1);
	thread_counts = c;
}

static const struct pb_mem_shim shim = {
	.version = PB_MEM_SHIM_VERSION,
	.count = count_thread,
};

API const struct pb_mem_shim *pbench_mem_shim(void)
{
	return &shim;
}

static size_t usable(void *p)
{
	return next_usable ? next_usable(p) : 0;
}

static void note(struct pb_mem_counts *c, int64_t allocs, int64_t frees, size_t bytes,
		 int64_t delta)
{
	c->allocs += (uint64_t)allocs;
	c->frees += (uint64_t)frees;
	c->bytes += bytes;
	c->live += delta;
	if (c->live > c->peak)
		c->peak = c->live;
}

static void note_shared(struct pb_mem_counts *c, int64_t allocs, int64_t frees, size_t bytes,
			int64_t delta)
{
	int64_t live, peak;

	__atomic_add_fetch(&c->allocs, (uint64_t)allocs, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->frees, (uint64_t)frees, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->bytes, bytes, __ATOMIC_RELAXED);
	live = __atomic_add_fetch(&c->live, delta, __ATOMIC_RELAXED);
	peak = __atomic_load_n(&c->peak, __ATOMIC_RELAXED);
	while (live > peak && !__atomic_compare_exchange_n(&c->peak, &peak, live, 1,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* An allocation of bytes (p its block, NULL when it failed), a free of old (its usable size
 * taken before it was freed), or both for a realloc. */
static void count(void *p, size_t bytes, size_t old_usable, int freed)
{
	int64_t delta = (p ? (int64_t)usable(p) : 0) - (int64_t)old_usable;

	struct pb_mem_file *f = proc_file;
	int32_t pid;

	if (thread_counts) {
		note(thread_counts, p != NULL, freed, p ? bytes : 0, delta);
		return;
	}
	if (!f)
		return;
	if (likely(fork_guard)) {
		if (likely(*fork_guard)) {
			note_shared(&f->c, p != NULL, freed, p ? bytes : 0, delta);
			return;
		}
		/* A forked child that ran no fork handler: its memory is its own. */
		proc_file = NULL;
		atomic_fetch_sub(&windows, 1);
		others_add(f, raw_getpid());
		return;
	}
	pid = raw_getpid();
	if (pid == proc_pid) {
		note_shared(&f->c, p != NULL, freed, p ? bytes : 0, delta);
	} else if (pid != foreign_seen) {
		/* Only what is this process's own: a vfork child shares our globals. */
		foreign_seen = pid;
		others_add(f, pid);
	}
}

/* ---- the allocator -------------------------------------------------------------------- */

API void *malloc(size_t n)
{
	void *p;

	if (unlikely(!next_malloc)) {
		if (atomic_load(&resolving))
			return arena_alloc(n);
		resolve();
	}
	p = next_malloc(n);
	if (unlikely(atomic_load_explicit(&windows, memory_order_relaxed)))
		count(p, n, 0, 0);
	return p;
}

API void *calloc(size_t nmemb, size_t size)
{
	void *p;

	if (unlikely(!next_calloc)) {
		if (atomic_load(&resolving)) {
			if (size && nmemb > SIZE_MAX / size)
				return NULL;
			/* The arena is static: zero already, and never reused. */
			return arena_alloc(nmemb * size);
		}
		resolve();
	}
	p = next_calloc(nmemb, size);
	if (unlikely(atomic_load_explicit(&windows, memory_order_relaxed)))
		count(p, nmemb * size, 0, 0);
	return p;
}

API void free(void *p)
{
	size_t old;

	if (!p || unlikely(in_arena(p)))
		return;
	if (unlikely(!next_free))
		resolve();
	if (unlikely(atomic_load_explicit(&windows, memory_order_relaxed))) {
		old = usable(p);
		next_free(p);
		count(NULL, 0, old, 1);
		return;
	}
	next_free(p);
}

API void *realloc(void *p, size_t n)
{
	size_t old = 0;
	void *np;

	if (unlikely(in_arena(p))) {
		size_t had = *(size_t *)((char *)p - 16);

		np = malloc(n);
		if (np)
			memcpy(np, p, had < n ? had : n);
		return np;
	}
	if (unlikely(!next_realloc)) {
		if (atomic_load(&resolving))
			return p ? NULL : arena_alloc(n);
		resolve();
	}
	if (!atomic_load_explicit(&windows, memory_order_relaxed))
		return next_realloc(p, n);
	old = p ? usable(p) : 0;
	np = next_realloc(p, n);
	if (!p)				/* a malloc */
		count(np, n, 0, 0);
	else if (!n)			/* glibc frees p: a free */
		count(NULL, 0, old, 1);
	else if (np)			/* moved or resized in place: a free and an allocation */
		count(np, n, old, 1);
	return np;			/* failed: p untouched, nothing to count */
}

API void *reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, nmemb * size);
}

/* The aligned allocators: one shape, four signatures. */
#define COUNTED(call, n)                                                               \
	do {                                                                           \
		if (unlikely(!next_malloc))                                            \
			resolve();                                                     \
		p = call;                                                              \
		if (unlikely(atomic_load_explicit(&windows, memory_order_relaxed)))    \
			count(p, n, 0, 0);                                             \
	} while (0)

API int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;
	int err;

	if (unlikely(!next_posix_memalign))
		resolve();
	err = next_posix_memalign(out, align, n);
	p = err ? NULL : *out;
	if (unlikely(atomic_load_explicit(&windows, memory_order_relaxed)) && p)
		count(p, n, 0, 0);
	return err;
}

API void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	COUNTED(next_aligned_alloc(align, n), n);
	return p;
}

API void *memalign(size_t align, size_t n)
{
	void *p;

	COUNTED(next_memalign(align, n), n);
	return p;
}

API void *valloc(size_t n)
{
	void *p;

	COUNTED(next_valloc(n), n);
	return p;
}

API void *pvalloc(size_t n)
{
	void *p;

	COUNTED(next_pvalloc(n), n);
	return p;
}

/* ---- a command's process -------------------------------------------------------------- */

/* After fork the child shares the file's mapping but is not the process counted. */
static void forked(void)
{
	struct pb_mem_file *f = proc_file;

	if (!f)
		return;
	proc_file = NULL;
	atomic_fetch_sub(&windows, 1);
	others_add(f, raw_getpid());
}

/*
 * The exec family: the owner's exec says, before it, that an image is coming; the image clears
 * it when it loads the shim (shim_init). Every public entry point, since glibc's execvp and
 * execv call its execve internally, past any interposition. An exec made by a raw syscall is
 * not seen.
 */
static void exec_mark(int on)
{
	struct pb_mem_file *f = proc_file;

	if (f && raw_getpid() == proc_pid)
		__atomic_store_n(&f->exec_pending, on, __ATOMIC_SEQ_CST);
}

static void *next_sym(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

/* Call the next definition of name, typed as fn, with the exec marked around it. */
#define EXEC_NEXT(fn, name, ...)                                                       \
	do {                                                                           \
		static void *slot;                                                     \
		fn next = (fn)next_sym(&slot, name);                                   \
		int r;                                                                 \
                                                                                       \
		if (!next) {                                                           \
			errno = ENOSYS;                                                \
			return -1;                                                     \
		}                                                                      \
		exec_mark(1);                                                          \
		r = next(__VA_ARGS__);                                                 \
		exec_mark(0);                                                          \
		return r;                                                              \
	} while (0)

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

API int execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_NEXT(execve_fn, "execve", path, argv, envp);
}

API int execv(const char *path, char *const argv[])
{
	EXEC_NEXT(execv_fn, "execv", path, argv);
}

API int execvp(const char *file, char *const argv[])
{
	EXEC_NEXT(execv_fn, "execvp", file, argv);
}

API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_NEXT(execve_fn, "execvpe", file, argv, envp);
}

API int fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_NEXT(fexecve_fn, "fexecve", fd, argv, envp);
}

API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	EXEC_NEXT(execveat_fn, "execveat", dirfd, path, argv, envp, flags);
}

/* execl, execlp, execle: their arguments as an array, to the wrappers above. */
static size_t count_args(const char *arg, va_list ap)
{
	size_t n = 1;

	if (!arg)
		return 0;
	while (va_arg(ap, const char *))
		n++;
	return n;
}

#define EXECL_ARGV(argv, arg)                                                          \
	va_list ap;                                                                    \
	size_t n;                                                                      \
                                                                                       \
	va_start(ap, arg);                                                             \
	n = count_args(arg, ap);                                                       \
	va_end(ap);                                                                    \
	if (n > 1 << 16) {                                                             \
		errno = E2BIG;                                                         \
		return -1;                                                             \
	}                                                                              \
	char *argv[n + 1];                                                             \
	argv[0] = (char *)arg;                                                         \
	va_start(ap, arg);                                                             \
	for (size_t i = 1; i <= n; i++)                                                \
		argv[i] = va_arg(ap, char *);                                          \
	argv[n] = NULL

API int execl(const char *path, const char *arg, ...)
{
	EXECL_ARGV(argv, arg);
	va_end(ap);
	return execv(path, argv);
}

API int execlp(const char *file, const char *arg, ...)
{
	EXECL_ARGV(argv, arg);
	va_end(ap);
	return execvp(file, argv);
}

API int execle(const char *path, const char *arg, ...)
{
	char *const *envp;

	EXECL_ARGV(argv, arg);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* 1 when the process's malloc, calloc, realloc and free are this shim's: a program that
 * defines its own comes first, and its calls never reach the shim. */
static int own_allocator(void)
{
	static const char *const names[] = { "malloc", "calloc", "realloc", "free" };
	Dl_info self, got;

	if (!dladdr((void *)count_thread, &self))
		return 1;	/* cannot tell: say nothing against it */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *p = dlsym(RTLD_DEFAULT, names[i]);

		if (!p || !dladdr(p, &got) || got.dli_fbase != self.dli_fbase)
			return 0;
	}
	return 1;
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *path = getenv("PBENCH_MEM_FILE");
	int32_t pid = raw_getpid(), none = 0;
	struct pb_mem_file *f;
	int fd;

	if (!next_malloc)
		resolve();
	if (!path || !*path)
		return;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return;
	if (f->magic != PB_MEM_FILE_MAGIC) {
		munmap(f, sizeof(*f));
		return;
	}
	/* The first process claims it; an image its owner exec()ed counts in its place. */
	if (!__atomic_compare_exchange_n(&f->owner, &none, pid, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) &&
	    none != pid) {
		others_add(f, pid);
		munmap(f, sizeof(*f));
		return;
	}
	/* Only the last image is the command: the earlier ones' counts go (no thread of theirs
	 * is left after the exec). */
	memset(&f->c, 0, sizeof(f->c));
	__atomic_store_n(&f->own_malloc, own_allocator(), __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&f->images, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&f->exec_pending, 0, __ATOMIC_SEQ_CST);
	pthread_atfork(NULL, NULL, forked);
	guard_init();
	proc_pid = pid;
	proc_file = f;
	atomic_fetch_add(&windows, 1);
}
