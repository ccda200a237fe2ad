/* SPDX-License-Identifier: MIT */
/*
 * The sampling events of a profile and their rings. An inherited event that follows a task
 * on every CPU cannot be mapped (the kernel refuses it: its children would write to one
 * buffer from several CPUs at once), so the event is opened once a CPU on the command's pid,
 * as perf record does, and each ring mapped. What a ring holds is only copied out while the
 * command runs (a memcpy into a growing buffer: no parsing inside the timed span), and read
 * after it. A kernel that refuses the kernel's samples (perf_event_paranoid 2 without
 * CAP_PERFMON) gets the user's alone, said; one without build-ids in its mmap2 records (before
 * 5.12) gets the maps without them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "counters/counters.h"
#include "profile/profile.h"
#include "profile/profile_inner.h"

/* The event on (pid, cpu), the attribute relaxed where this kernel refuses a part of it:
 * the kernel (permission), then build-ids (unknown bit). The fd or -errno. */
static int open_one(struct pb_profile *p, pid_t pid, int cpu)
{
	long paranoid = -1;
	int fd;

	for (;;) {
		fd = pb_perf_event_open(&p->attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return fd;
		if ((errno == EACCES || errno == EPERM) && !p->attr.exclude_kernel) {
			pb_read_long("/proc/sys/kernel/perf_event_paranoid", &paranoid);
			p->attr.exclude_kernel = 1;
			p->attr.exclude_callchain_kernel = 1;
			p->kernel = 0;
			p->kernel_why = paranoid >= 2 ?
				"the kernel is not sampled: perf_event_paranoid is 2 or more and "
				"pbench has no CAP_PERFMON (sysctl kernel.perf_event_paranoid=1 allows it)" :
				"the kernel is not sampled: the kernel refused it (seccomp, a "
				"container's or an LSM's policy)";
		} else if (errno == EINVAL && p->attr.build_id) {
			p->attr.build_id = 0;	/* before Linux 5.12 */
		} else {
			return -errno;
		}
	}
}

/* Ring r's buffer, of the profile's ring_pages data pages. 0 or -errno. */
static int map_one(struct pb_profile *p, struct pb_prof_ring *r)
{
	size_t len = (size_t)sysconf(_SC_PAGESIZE) * (p->o.ring_pages + 1);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	r->page = m;
	r->len = len;
	r->data_size = len - (size_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* The event on (pid, cpu) into r, its ring mapped: where the memory lock limit refuses the
 * ring, the event is opened again for a ring half as large (not below 8 pages), with the
 * wake-up at a quarter of it (the kernel sets a ring's watermark when it is mapped, from the
 * event's attribute). 0; 1 when the event cannot be opened on this CPU (*open_err); or the
 * error of mapping. */
static int open_ring(struct pb_profile *p, pid_t pid, int cpu, struct pb_prof_ring *r,
		     int *open_err)
{
	long pg = sysconf(_SC_PAGESIZE);
	int err;

	for (;;) {
		r->fd = open_one(p, pid, cpu);
		if (r->fd < 0) {
			*open_err = r->fd;
			return 1;	/* an offline CPU */
		}
		r->cpu = cpu;
		err = map_one(p, r);
		if (!err)
			return 0;
		close(r->fd);
		r->fd = -1;
		if ((err != -EPERM && err != -ENOMEM) || p->o.ring_pages <= 8)
			return err;
		p->o.ring_pages /= 2;
		p->attr.wakeup_watermark = (uint32_t)((size_t)pg * p->o.ring_pages / 4);
	}
}

/* Why the event could not be opened (the counters' words for it) or its ring mapped. */
static int fail_open(const struct pb_profile *p, int err, int mapping)
{
	struct pb_event ev = { .attr = p->attr, .kind = p->kind };
	char why[256];

	snprintf(ev.name, sizeof(ev.name), "%s", p->event);
	if (mapping)
		snprintf(why, sizeof(why), "%s: the memory lock limit (ulimit -l, "
			 "kernel.perf_event_mlock_kb) may forbid its %u pages", strerror(-err),
			 p->o.ring_pages);
	else if ((err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV) &&
		 p->kind == PBENCH_EVENT_HARDWARE && !pbench_cpu_has_pmu())
		snprintf(why, sizeof(why), "no hardware PMU is exposed (a VM without PMU "
			 "passthrough?): cpu-clock, the default, samples without one");
	else
		pb_open_reason(&ev, err, why, sizeof(why));
	return pb_fail(err, "the sampling event '%s' cannot be %s here: %s%s", p->event,
		       mapping ? "mapped" : "opened", why, err == -EINVAL && !mapping ?
		       " (a frequency above kernel.perf_event_max_sample_rate?)" : "");
}

int pb_prof_rings_open(struct pb_profile *p, pid_t pid)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int first_err = 0, err;

	if (ncpu < 1)
		ncpu = 1;
	p->rings = calloc((size_t)ncpu, sizeof(*p->rings));
	if (!p->rings)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int open_err = 0;

		err = open_ring(p, pid, cpu, &p->rings[p->nrings], &open_err);
		if (err < 0)
			return fail_open(p, err, 1);
		if (err)
			first_err = first_err ? first_err : open_err;
		else
			p->nrings++;
	}
	if (!p->nrings)
		return fail_open(p, first_err ? first_err : -ENODEV, 0);
	return 0;
}

/* What ring r holds since the last copy, appended to its raw bytes (a record may wrap around
 * the end of the buffer: the two pieces are copied in order). */
static int drain_one(struct pb_profile *p, struct pb_prof_ring *r)
{
	const unsigned char *data = (const unsigned char *)r->page + r->page->data_offset;
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	size_t at = (size_t)(tail % r->data_size), n = (size_t)(head - tail), first;
	int err;

	if (!n)
		return 0;
	first = r->data_size - at < n ? r->data_size - at : n;
	err = pb_prof_buf_put(&r->raw, data + at, first);
	if (!err)
		err = pb_prof_buf_put(&r->raw, data, n - first);
	if (err)
		return err;
	p->raw_bytes += n;
	__atomic_store_n(&r->page->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

int pb_prof_rings_drain(struct pb_profile *p)
{
	int err = 0;

	for (int i = 0; i < p->nrings && !err; i++)
		if (p->rings[i].page)
			err = drain_one(p, &p->rings[i]);
	return err;
}

void pb_prof_rings_close(struct pb_profile *p)
{
	for (int i = 0; i < p->nrings; i++) {
		struct pb_prof_ring *r = &p->rings[i];

		if (r->page)
			munmap(r->page, r->len);
		if (r->fd > 0)
			close(r->fd);
		r->page = NULL;
		r->fd = -1;
	}
}
