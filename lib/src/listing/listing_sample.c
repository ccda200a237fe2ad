/* SPDX-License-Identifier: MIT */
/*
 * Where a command spends its time in a function: one run of its own, sampled by the cpu-clock
 * software event (a timer: it needs no PMU, so it works in VMs that have none) with
 * PERF_SAMPLE_IP. The event is opened on pbench's own thread with inherit, before the child
 * API forks the command, so the command inherits it from its first instruction; the kernel
 * writes an inherited event's records into the parent event's ring buffer. pbench's own
 * samples (its pid) are left out, and so are the child's before exec: a sample counts only
 * when its address lies in a mapping of the listing's file that the kernel reported
 * (PERF_RECORD_MMAP2) for that process, which exec makes. The address in memory becomes the
 * address in the file through the mapping's file offset and the ELF's program headers. And
 * both for a command as pbench stat --annotate asks (pbench_listing_annotate()).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "listing/listing.h"

#define RING_PAGES 32			/* 128 KiB a CPU, drained every 5 ms: within perf_event_mlock_kb */
#define DRAIN_S 0.005
#define MAX_MAPS 64
#define MAX_SEGS 16
#define MAX_HITS (16u << 20)		/* samples kept: 27 minutes of a thread at 10 kHz */

struct map {
	uint32_t pid;
	uint64_t start, len, pgoff, time;
};

struct hit {
	uint32_t pid;
	uint64_t ip, time;
};

struct ring {
	int fd;
	struct perf_event_mmap_page *page;
	size_t len, data_size;
};

struct sampler {
	const char *file;
	uint32_t self;
	struct ring *rings;		/* one per CPU: an inherited event is mapped per CPU */
	int nrings;
	struct map maps[MAX_MAPS];
	int nmaps;
	struct { uint64_t offset, filesz, vaddr; } segs[MAX_SEGS];	/* the file's PT_LOAD */
	int nsegs;
	struct hit *hits;		/* the command's samples, attributed after the run */
	size_t nr, alloc;
	uint64_t lost;			/* records the kernel could not write */
	int err;
};

/* The file's PT_LOAD segments, read once: a file offset becomes a file address through the
 * segment that holds it. */
static int load_segments(struct sampler *s)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	int fd = open(s->file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && eh.e_phentsize == sizeof(ph)) {
		for (int i = 0; i < eh.e_phnum && s->nsegs < MAX_SEGS; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD)
				s->segs[s->nsegs++] = (typeof(s->segs[0])){ ph.p_offset,
									    ph.p_filesz,
									    ph.p_vaddr };
		}
	}
	close(fd);
	return s->nsegs ? 0 : -ENOEXEC;
}

static int offset_to_addr(const struct sampler *s, uint64_t off, uint64_t *addr)
{
	for (int i = 0; i < s->nsegs; i++) {
		if (off >= s->segs[i].offset && off - s->segs[i].offset < s->segs[i].filesz) {
			*addr = off - s->segs[i].offset + s->segs[i].vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

static void keep(struct sampler *s, uint32_t pid, uint64_t ip, uint64_t time)
{
	if (s->nr == s->alloc) {
		size_t alloc = s->alloc ? 2 * s->alloc : 4096;
		struct hit *p = alloc > MAX_HITS ? NULL : realloc(s->hits, alloc * sizeof(*p));

		if (!p) {
			s->lost++;	/* past the cap: counted as lost, said */
			return;
		}
		s->hits = p;
		s->alloc = alloc;
	}
	s->hits[s->nr++] = (struct hit){ pid, ip, time };
}

/*
 * A mapping of the listing's file in one of the command's processes. After pgoff: maj, min,
 * ino, ino_generation (or a build id), prot, flags, the name; then the sample_id of
 * sample_id_all, whose last field is the time (PERF_SAMPLE_TID | PERF_SAMPLE_TIME).
 */
static void on_mmap2(struct sampler *s, const unsigned char *rec, size_t len)
{
	const struct { struct perf_event_header h; uint32_t pid, tid; uint64_t addr, len, pgoff; }
		*m = (const void *)rec;
	size_t off = sizeof(*m) + 4 * 4 + 2 * 8;
	const char *name = (const char *)rec + off;
	uint64_t time;

	if (len < off + 16 || m->pid == s->self || s->nmaps == MAX_MAPS)
		return;
	if (!memchr(name, '\0', len - off - 16) || strcmp(name, s->file))
		return;
	memcpy(&time, rec + len - 8, sizeof(time));
	s->maps[s->nmaps++] = (struct map){ m->pid, m->addr, m->len, m->pgoff, time };
}

static void on_sample(struct sampler *s, const unsigned char *rec)
{
	const struct { struct perf_event_header h; uint64_t ip; uint32_t pid, tid; uint64_t time; }
		*smp = (const void *)rec;

	if (smp->pid != s->self)
		keep(s, smp->pid, smp->ip, smp->time);
}

/* Read every record the kernel has written to ring r since the last drain. */
static void drain(struct sampler *s, struct ring *r)
{
	const unsigned char *data = (const unsigned char *)r->page + r->page->data_offset;
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	unsigned char rec[4096];

	while (tail < head) {
		struct perf_event_header h;
		size_t at = (size_t)(tail % r->data_size), first;

		/* a record may wrap around the end of the buffer: copy it out whole */
		first = r->data_size - at < sizeof(h) ? r->data_size - at : sizeof(h);
		memcpy(&h, data + at, first);
		memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h))
			break;
		if (h.size <= sizeof(rec)) {
			first = r->data_size - at < h.size ? r->data_size - at : h.size;
			memcpy(rec, data + at, first);
			memcpy(rec + first, data, h.size - first);
			if (h.type == PERF_RECORD_SAMPLE && h.size >= 32)
				on_sample(s, rec);
			else if (h.type == PERF_RECORD_MMAP2)
				on_mmap2(s, rec, h.size);
			else if (h.type == PERF_RECORD_LOST && h.size >= 24)
				s->lost += ((const uint64_t *)(rec + sizeof(h)))[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct sampler *s)
{
	for (int i = 0; i < s->nrings; i++)
		drain(s, &s->rings[i]);
}

static void close_rings(struct sampler *s)
{
	for (int i = 0; i < s->nrings; i++) {
		munmap(s->rings[i].page, s->rings[i].len);
		close(s->rings[i].fd);
	}
	free(s->rings);
	s->rings = NULL;
	s->nrings = 0;
}

/*
 * The sampling event on this thread, inherited by the children it forks, one per CPU: the
 * kernel refuses to map the buffer of an inherited event that follows a task on every CPU.
 * 0 with at least one open, else the first error.
 */
static int open_rings(struct sampler *s, uint64_t period_ns)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.inherit = 1, .mmap = 1, .mmap2 = 1, .sample_id_all = 1, .exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long pg = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int first_err = 0;

	if (ncpu < 1)
		ncpu = 1;
	s->rings = calloc((size_t)ncpu, sizeof(*s->rings));
	if (!s->rings)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct ring *r = &s->rings[s->nrings];
		int fd = pb_perf_event_open(&attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		void *p;

		if (fd < 0) {
			first_err = first_err ? first_err : -errno;
			continue;	/* an offline CPU */
		}
		r->len = (size_t)pg * (RING_PAGES + 1);
		p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			first_err = first_err ? first_err : -errno;
			close(fd);
			continue;
		}
		r->fd = fd;
		r->page = p;
		r->data_size = (size_t)pg * RING_PAGES;
		s->nrings++;
	}
	return s->nrings ? 0 : first_err ? first_err : -ENODEV;
}

/* Start argv, drain the buffers until it ends. The child API's timeout counts from the
 * command's start, so each wait asks for 5 ms more than has passed. */
static int sampled_run(struct sampler *s, char *const argv[], double timeout_s,
		       const volatile int *stop)
{
	struct pbench_child_opts co = { .size = sizeof(co), .quiet = PBENCH_CHILD_OUTPUT_NULL };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	uint64_t t0 = pbench_ticks();
	double waited;
	int err;

	err = pbench_child_start(&ch, argv, &co);
	if (err)
		return err;
	do {
		waited = pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
		err = pbench_child_wait_timeout(ch, waited + DRAIN_S, &res);
		drain_all(s);
		if (stop && *stop)
			err = -EINTR;
	} while ((err == -ETIMEDOUT || err == -EINTR) && !(timeout_s > 0 && waited >= timeout_s) &&
		 !(stop && *stop));
	pbench_child_free(ch);	/* ends it after the timeout, or stopped */
	drain_all(s);
	return err;
}

/* The file address of a sample of the command: in a mapping of the file that its process
 * had made by then. 0, or -ENOENT for a sample elsewhere. */
static int file_addr(const struct sampler *s, const struct hit *h, uint64_t *addr)
{
	for (int i = 0; i < s->nmaps; i++) {
		const struct map *m = &s->maps[i];

		if (m->pid == h->pid && h->time >= m->time && h->ip >= m->start &&
		    h->ip - m->start < m->len)
			return offset_to_addr(s, h->ip - m->start + m->pgoff, addr);
	}
	return -ENOENT;
}

void (*pb_listing_record_hook)(const struct pbench_listing *l, const uint64_t *addrs, size_t n);

/* A sampled run of argv: the file addresses of the samples taken in l->file's code go to
 * pbench_listing_add_samples(); -ENOMEM, -errno of starting argv, or 0 with l->no_samples set
 * when sampling is not possible here. */
static int sample_run(struct pbench_listing *l, char *const argv[], uint64_t period_ns,
		      double timeout_s)
{
	struct sampler s = { .file = l->file, .self = (uint32_t)getpid() };
	uint64_t *addrs = NULL, others = 0;
	size_t n = 0;
	int err;

	err = load_segments(&s);
	if (err)
		return pb_listing_no_samples(l, "cannot read the program headers of '%s' (%s)",
					     l->file, strerror(-err));
	err = open_rings(&s, period_ns);
	if (err) {
		close_rings(&s);
		return err == -ENOMEM ? err : pb_listing_no_samples(l, "the cpu-clock sampling "
			"event cannot be opened and mapped here (%s): perf_event_paranoid, "
			"seccomp or the memory lock limit may forbid it", strerror(-err));
	}
	err = sampled_run(&s, argv, timeout_s, l->stop);
	close_rings(&s);
	if (err == -ETIMEDOUT) {	/* its samples until then are as good as any */
		l->cut_s = timeout_s;
		err = 0;
	}
	if (!err && s.nr && !(addrs = malloc(s.nr * sizeof(*addrs))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < s.nr; i++) {
		if (!file_addr(&s, &s.hits[i], &addrs[n]))
			n++;
		else
			others++;
	}
	if (!err && !s.nmaps)
		err = pb_listing_no_samples(l, "the command never mapped '%s' (a wrapper that "
					    "runs another program?)", l->file);
	else if (!err && pb_listing_record_hook)
		pb_listing_record_hook(l, addrs, n);
	if (!err && s.nmaps)
		err = pbench_listing_add_samples(l, addrs, n);
	if (!err && s.nmaps) {
		l->total += others;	/* the command's samples outside l's file */
		l->period_ns = period_ns;
		l->lost = s.lost;
	}
	free(addrs);
	free(s.hits);
	return err;
}

int pbench_listing_sample(struct pbench_listing *l, char *const argv[], uint64_t period_ns,
			  double timeout_s)
{
	if (!l || !argv || !argv[0] || !(timeout_s >= 0))
		return -EINVAL;
	if (l->status != PBENCH_LISTING_OK)
		return pb_listing_no_samples(l, "no code to mark: %s", l->reason);
	return sample_run(l, argv, period_ns ? period_ns : 100000, timeout_s);
}

int pb_listing_add_offsets(struct pbench_listing *l, const uint64_t *offs,
			   const uint64_t *counts, size_t n, uint64_t others, uint64_t period_ns,
			   const char *no_samples)
{
	struct sampler s = { .file = l->file };
	uint64_t a, out = 0;
	int err;

	if (l->status != PBENCH_LISTING_OK)
		return pb_listing_no_samples(l, "no code to mark: %s", l->reason);
	if (!n)
		return pb_listing_no_samples(l, "%s", no_samples);
	err = load_segments(&s);
	if (err)
		return pb_listing_no_samples(l, "cannot read the program headers of '%s' (%s)",
					     l->file, strerror(-err));
	for (size_t i = 0; i < n && !err; i++) {
		if (offset_to_addr(&s, offs[i], &a)) {
			out += counts[i];
			continue;
		}
		for (uint64_t k = 0; k < counts[i] && !err; k++)
			err = pbench_listing_add_samples(l, &a, 1);
	}
	if (!err) {
		l->total += others + out;
		l->period_ns = period_ns;
	}
	return err;
}

int pbench_listing_annotate(struct pbench_listing **out, char *const argv[],
			    const struct pbench_listing_opts *opts, double timeout_s)
{
	struct pbench_listing_opts lo = PBENCH_LISTING_OPTS_INIT;
	char path[4096];
	int err;

	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if ((err = PB_CHECK_STRUCT(opts, pbench_listing_opts, 0, "PBENCH_LISTING_OPTS_INIT")))
		return err;
	if (!argv || !argv[0] || !opts->symbol)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, !argv ? "argv" :
			       !argv[0] ? "argv[0]" : "opts->symbol");
	if (pbench_command_resolve(argv[0], path, sizeof(path)))
		return 1;
	pb_copy_in(&lo, sizeof(lo), opts);
	lo.file = path;
	lo.addr = NULL;
	err = pbench_listing_new(out, &lo);
	if (!err)	/* without code to mark, it only says so (no_samples_reason) */
		err = pbench_listing_sample(*out, argv, 0, timeout_s);
	return err;
}
