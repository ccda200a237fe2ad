/* SPDX-License-Identifier: MIT */
/*
 * The records a run's rings held, read after the run into the profile's store: SAMPLE (its
 * fields in the order of include/uapi/linux/perf_event.h for the sample_type profile.c asks:
 * IP, TID, TIME, PERIOD, CALLCHAIN, then in DWARF mode REGS_USER and STACK_USER), MMAP2 and
 * MMAP, COMM, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE and UNTHROTTLE. Every other record
 * carries sample_id_all's trailer (TID, TIME: pid, tid, time, the last 16 bytes). A record
 * shorter than its fields is counted as bad and skipped, never read past.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "profile/profile.h"
#include "profile/profile_inner.h"

/* A record being read: cur moves forward, end is where it stops. */
struct rd {
	const unsigned char *cur, *end;
};

static int take(struct rd *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->cur) < n)
		return -1;
	if (out)
		memcpy(out, r->cur, n);
	r->cur += n;
	return 0;
}

static int take64(struct rd *r, uint64_t *v)
{
	return take(r, v, 8);
}

/* The chain's frames into the store, the context markers (PERF_CONTEXT_KERNEL, _USER...)
 * taken out: kernel frames first, as the kernel writes them. */
static int take_chain(struct pb_profile *p, struct rd *r, struct pb_prof_sample *s)
{
	uint64_t nr, ip = 0, ctx = PERF_CONTEXT_USER;
	void *v = p->ips;
	int err;

	if (take64(r, &nr) || nr > (uint64_t)(r->end - r->cur) / 8)
		return -1;
	err = pb_prof_grow(&v, &p->cap_ips, p->nips + nr, sizeof(*p->ips));
	p->ips = v;
	if (err)
		return err;
	s->chain = (uint32_t)p->nips;
	for (uint64_t i = 0; i < nr; i++) {
		take64(r, &ip);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip;
			continue;
		}
		if (s->nips == UINT16_MAX)
			continue;
		p->ips[p->nips++] = ip;
		s->nips++;
		if (ctx == PERF_CONTEXT_KERNEL && s->nkernel < UINT8_MAX)
			s->nkernel++;
	}
	/* the kernel's depth limit reached (markers aside), or kernel frames alone: the user
	 * part of the command's chain missing (the user stack unreadable, a task exiting) */
	if (s->nips >= p->max_stack || (s->nips && s->nkernel == s->nips))
		s->flags |= PB_PROF_CUT;
	return 0;
}

/* DWARF mode: the user registers and the stack copy, appended to the blob. */
static int take_user(struct pb_profile *p, struct rd *r, struct pb_prof_sample *s)
{
	uint64_t abi = 0, size = 0, dyn = 0, pad = 0;
	const unsigned char *regs, *stack;
	struct pb_prof_buf *b = &p->blob;
	int err;

	if (take64(r, &abi))
		return -1;
	regs = r->cur;
	if (abi && take(r, NULL, 8 * (size_t)p->nregs))
		return -1;
	if (take64(r, &size) || size > (uint64_t)(r->end - r->cur) || size > p->o.stack_bytes)
		return -1;
	stack = r->cur;
	take(r, NULL, (size_t)size);
	if (size && (take64(r, &dyn) || dyn > size))
		return -1;
	if (size && dyn == size)
		s->flags |= PB_PROF_STACK_FULL;
	err = pb_prof_buf_put(b, &abi, 8);
	if (!err && abi)
		err = pb_prof_buf_put(b, regs, 8 * (size_t)p->nregs);
	if (!err)
		err = pb_prof_buf_put(b, &dyn, 8);
	if (!err)
		err = pb_prof_buf_put(b, stack, (size_t)dyn);
	if (!err)
		err = pb_prof_buf_put(b, &pad, (8 - dyn % 8) % 8);
	return err;
}

static int on_sample(struct pb_profile *p, struct rd *r)
{
	struct pb_prof_sample s = { 0 };
	uint64_t ip;
	size_t at = p->blob.n, frames = p->nips;
	void *v = p->s;
	int err;

	if (take64(r, &ip) || take(r, &s.pid, 4) || take(r, &s.tid, 4) || take64(r, &s.time) ||
	    take64(r, &s.period))
		return -1;
	err = take_chain(p, r, &s);
	if (!err && p->o.dwarf)
		err = take_user(p, r, &s);
	if (err) {
		p->nips = frames;	/* its frames taken back */
		p->blob.n = at;
		return err;
	}
	err = pb_prof_grow(&v, &p->cap_s, p->ns + 1, sizeof(*p->s));
	p->s = v;
	if (!err && p->o.dwarf) {
		size_t cap = p->cap_s;

		v = realloc(p->dwarf_at, cap * sizeof(*p->dwarf_at));
		err = v ? 0 : -ENOMEM;
		if (v)
			p->dwarf_at = v;
	}
	if (err)
		return err;
	if (p->dwarf_at)
		p->dwarf_at[p->ns] = at;
	p->cut += s.flags & PB_PROF_CUT;
	p->s[p->ns++] = s;
	return 0;
}

/* The trailer of sample_id_all (pid, tid, time): the record's time. */
static uint64_t trailer_time(const struct rd *r)
{
	uint64_t t = 0;

	if (r->end - r->cur >= 16)
		memcpy(&t, r->end - 8, 8);
	return t;
}

/*
 * MMAP2: pid, tid, addr, len, pgoff, then maj, min, ino, ino_generation or (misc's
 * PERF_RECORD_MISC_MMAP_BUILD_ID) the build-id's size, 3 reserved bytes and 20 bytes of it,
 * prot, flags, the name (NUL-padded to 8). MMAP: pid, tid, addr, len, pgoff, the name.
 */
static int on_mmap(struct pb_profile *p, struct rd *r, const struct perf_event_header *h)
{
	struct pb_prof_map m = { 0 };
	uint32_t tid, ids[6];
	uint64_t t = trailer_time(r);
	void *v = p->maps;
	int err;

	if (take(r, &m.pid, 4) || take(r, &tid, 4) || take64(r, &m.start) || take64(r, &m.len) ||
	    take64(r, &m.pgoff))
		return -1;
	if (h->type == PERF_RECORD_MMAP2) {
		if (take(r, ids, 24) || take(r, &m.prot, 4) || take(r, NULL, 4))
			return -1;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			unsigned char *b = (unsigned char *)ids;

			m.build_id_size = b[0] <= 20 ? b[0] : 20;
			memcpy(m.build_id, b + 4, m.build_id_size);
		}
	}
	if (r->end - r->cur < 16)
		return -1;
	m.time = t;
	m.path = pb_prof_str(p, (const char *)r->cur, (size_t)(r->end - r->cur - 16));
	err = pb_prof_grow(&v, &p->cap_maps, p->nmaps + 1, sizeof(*p->maps));
	p->maps = v;
	if (err || m.path == UINT32_MAX)
		return -ENOMEM;
	p->maps[p->nmaps++] = m;
	return 0;
}

static int add_task(struct pb_profile *p, const struct pb_prof_task *k)
{
	void *v = p->tasks;
	int err = pb_prof_grow(&v, &p->cap_tasks, p->ntasks + 1, sizeof(*p->tasks));

	p->tasks = v;
	if (!err)
		p->tasks[p->ntasks++] = *k;
	return err;
}

/* FORK, EXIT: pid, ppid, tid, ptid, time. COMM: pid, tid, the name. */
static int on_task(struct pb_profile *p, struct rd *r, const struct perf_event_header *h)
{
	struct pb_prof_task k = { 0 };

	if (h->type == PERF_RECORD_COMM) {
		if (take(r, &k.pid, 4) || take(r, &k.tid, 4) || r->end - r->cur < 16)
			return -1;
		k.kind = PB_TASK_COMM;
		k.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		k.time = trailer_time(r);
		k.comm = pb_prof_str(p, (const char *)r->cur, (size_t)(r->end - r->cur - 16));
		if (k.comm == UINT32_MAX)
			return -ENOMEM;
		return add_task(p, &k);
	}
	if (take(r, &k.pid, 4) || take(r, &k.ppid, 4) || take(r, &k.tid, 4) ||
	    take(r, &k.ptid, 4) || take64(r, &k.time))
		return -1;
	k.kind = h->type == PERF_RECORD_FORK ? PB_TASK_FORK : PB_TASK_EXIT;
	return add_task(p, &k);
}

/* One record: 0, -1 (malformed: counted), -ENOMEM. */
static int on_record(struct pb_profile *p, const struct perf_event_header *h,
		     const unsigned char *body)
{
	struct rd r = { body, body + h->size - sizeof(*h) };
	uint64_t v[2];

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, &r);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(p, &r, h);
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return on_task(p, &r, h);
	case PERF_RECORD_LOST:		/* id, lost */
		if (take(&r, v, 16))
			return -1;
		p->lost += v[1];
		return 0;
	case PERF_RECORD_LOST_SAMPLES:	/* lost */
		if (take64(&r, v))
			return -1;
		p->lost_samples += v[0];
		return 0;
	case PERF_RECORD_THROTTLE:
		p->throttled++;
		return 0;
	case PERF_RECORD_UNTHROTTLE:
		p->unthrottled++;
		return 0;
	}
	return 0;	/* a record this reader does not keep */
}

static int parse_ring(struct pb_profile *p, const struct pb_prof_buf *b)
{
	size_t at = 0;

	while (b->n - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		int err;

		memcpy(&h, b->v + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > b->n - at) {
			p->bad++;
			return 0;	/* nothing after it can be found */
		}
		err = on_record(p, &h, b->v + at + sizeof(h));
		if (err == -ENOMEM)
			return err;
		p->bad += err != 0;
		at += h.size;
	}
	return 0;
}

/* Maps and tasks by process, then time: a lookup finds a process's own at once. */
static int map_order(const void *a, const void *b)
{
	const struct pb_prof_map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int task_order(const void *a, const void *b)
{
	const struct pb_prof_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static void index_store(struct pb_profile *p)
{
	if (p->nmaps)
		qsort(p->maps, p->nmaps, sizeof(*p->maps), map_order);
	if (p->ntasks)
		qsort(p->tasks, p->ntasks, sizeof(*p->tasks), task_order);
}

int pb_prof_parse(struct pb_profile *p)
{
	int err = 0;

	/* each ring's copy freed once read: the store and one copy at a time, at most */
	for (int i = 0; i < p->nrings; i++) {
		if (!err)
			err = parse_ring(p, &p->rings[i].raw);
		free(p->rings[i].raw.v);
		p->rings[i].raw = (struct pb_prof_buf){ 0 };
	}
	index_store(p);
	return err;
}

int pb_profile_parse_raw(struct pb_profile *p, const void *buf, size_t n)
{
	struct pb_prof_buf b = { (unsigned char *)(uintptr_t)buf, n, n };
	int err;

	if (!p || (!buf && n))
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, !p ? "p" : "buf");
	if (p->state == 1)
		return pb_fail(-EINVAL, "%s(): the profile is running", __func__);
	p->state = 2;
	err = parse_ring(p, &b);
	index_store(p);
	return err;
}
