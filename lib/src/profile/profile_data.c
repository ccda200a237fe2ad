/* SPDX-License-Identifier: MIT */
/*
 * A profile's compact store and its reads: the samples (32 bytes each) and their frames, the
 * DWARF mode's registers and stack copies, the maps, the processes' forks, exits and names.
 * What is parsed into it is profile_parse.c's; this file only keeps and hands out.
 */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/profile_inner.h"

/* *v holds *cap items of size bytes: room for n more, doubling. 0, -ENOMEM. */
int pb_prof_grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap : 64;
	void *nv;

	if (n <= *cap)
		return 0;
	while (want < n)
		want *= 2;
	if (want > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, want * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = want;
	return 0;
}

int pb_prof_buf_put(struct pb_prof_buf *b, const void *v, size_t n)
{
	void *p = b->v;
	int err = pb_prof_grow(&p, &b->cap, b->n + n, 1);

	b->v = p;
	if (err)
		return err;
	if (n)
		memcpy(b->v + b->n, v, n);
	b->n += n;
	return 0;
}

/* s (len bytes, cut at a NUL) in the profile's strings, NUL-terminated: its offset; a path
 * met before (the same file mapped in several pieces, by several processes) is kept once.
 * UINT32_MAX when out of memory. */
uint32_t pb_prof_str(struct pb_profile *p, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);
	size_t n = nul ? (size_t)(nul - s) : len, at = p->strs.n;

	for (size_t i = p->nmaps; i-- > 0 && i + 8 >= p->nmaps;) {
		const char *old = (const char *)p->strs.v + p->maps[i].path;

		if (p->maps[i].path != UINT32_MAX && strlen(old) == n && !memcmp(old, s, n))
			return p->maps[i].path;
	}
	if (p->strs.n + n + 1 > UINT32_MAX)
		return UINT32_MAX;
	if (pb_prof_buf_put(&p->strs, s, n) || pb_prof_buf_put(&p->strs, "", 1))
		return UINT32_MAX;
	return (uint32_t)at;
}

void pb_prof_data_free(struct pb_profile *p)
{
	free(p->s);
	free(p->ips);
	free(p->dwarf_at);
	free(p->blob.v);
	free(p->maps);
	free(p->tasks);
	free(p->strs.v);
	p->s = NULL;
	p->ips = NULL;
	p->dwarf_at = NULL;
	p->blob.v = NULL;
	p->maps = NULL;
	p->tasks = NULL;
	p->strs.v = NULL;
	p->ns = p->nips = p->nmaps = p->ntasks = 0;
}

size_t pb_profile_nr(const struct pb_profile *p)
{
	return p ? p->ns : 0;
}

/* The DWARF mode's part of sample i: abi, regs, stack length, the stack (padded to 8). */
static void dwarf_part(const struct pb_profile *p, size_t i, struct pb_profile_sample *out)
{
	const unsigned char *e = p->blob.v + p->dwarf_at[i];
	uint64_t len;

	memcpy(&out->regs_abi, e, 8);
	out->regs_mask = p->attr.sample_regs_user;
	if (out->regs_abi) {
		out->regs = (const uint64_t *)(e + 8);
		out->nregs = p->nregs;
		e += 8 * p->nregs;
	}
	memcpy(&len, e + 8, 8);
	out->stack_len = (size_t)len;
	out->stack = len ? e + 16 : NULL;
}

int pb_profile_sample_at(const struct pb_profile *p, size_t i, struct pb_profile_sample *out)
{
	const struct pb_prof_sample *s;

	if (!p || !out || i >= p->ns)
		return -ERANGE;
	s = &p->s[i];
	memset(out, 0, sizeof(*out));
	out->pid = s->pid;
	out->tid = s->tid;
	out->time_ns = s->time;
	out->period = s->period;
	out->ips = p->ips ? p->ips + s->chain : NULL;	/* none: a chain of no frames */
	out->nips = s->nips;
	out->nkernel = s->nkernel;
	out->cut = !!(s->flags & PB_PROF_CUT);
	out->stack_full = !!(s->flags & PB_PROF_STACK_FULL);
	if (p->dwarf_at)
		dwarf_part(p, i, out);
	return 0;
}

size_t pb_profile_nr_maps(const struct pb_profile *p)
{
	return p ? p->nmaps : 0;
}

static void map_out(const struct pb_profile *p, const struct pb_prof_map *m,
		    struct pb_profile_map *out)
{
	out->pid = m->pid;
	out->start = m->start;
	out->end = m->start + m->len;
	out->pgoff = m->pgoff;
	out->time_ns = m->time;
	out->path = m->path == UINT32_MAX ? "" : (const char *)p->strs.v + m->path;
	out->build_id = m->build_id_size ? m->build_id : NULL;
	out->build_id_size = m->build_id_size;
	out->prot = m->prot;
}

int pb_profile_map_at(const struct pb_profile *p, size_t i, struct pb_profile_map *out)
{
	if (!p || !out || i >= p->nmaps)
		return -ERANGE;
	map_out(p, &p->maps[i], out);
	return 0;
}

/* The first of n items (size bytes each, sorted by pid, their pid at offset at) whose pid
 * is pid or above: a process's own maps or tasks start there (profile_parse.c sorts them). */
static size_t first_of(const void *v, size_t n, size_t size, size_t at, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t m;

		memcpy(&m, (const unsigned char *)v + mid * size + at, sizeof(m));
		if (m < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last exec of pid at or before t (0: none seen), and its parent at its fork (0: none
 * seen) with the fork's time. */
static uint64_t task_history(const struct pb_profile *p, uint32_t pid, uint64_t t,
			     uint32_t *ppid, uint64_t *fork_t)
{
	uint64_t exec_t = 0;
	size_t i = first_of(p->tasks, p->ntasks, sizeof(*p->tasks),
			    offsetof(struct pb_prof_task, pid), pid);

	*ppid = 0;
	for (; i < p->ntasks && p->tasks[i].pid == pid; i++) {
		const struct pb_prof_task *k = &p->tasks[i];

		if (k->kind == PB_TASK_COMM && k->exec && k->time <= t && k->time > exec_t)
			exec_t = k->time;
		else if (k->kind == PB_TASK_FORK && k->tid == pid && k->ppid != pid) {
			*ppid = k->ppid;
			*fork_t = k->time;
		}
	}
	return exec_t;
}

/* The newest map of pid holding ip made in [from, to]; NULL. */
static const struct pb_prof_map *map_in(const struct pb_profile *p, uint32_t pid, uint64_t ip,
					uint64_t from, uint64_t to)
{
	const struct pb_prof_map *best = NULL;
	size_t i = first_of(p->maps, p->nmaps, sizeof(*p->maps),
			    offsetof(struct pb_prof_map, pid), pid);

	for (; i < p->nmaps && p->maps[i].pid == pid; i++) {
		const struct pb_prof_map *m = &p->maps[i];

		if (ip >= m->start && ip - m->start < m->len && m->time >= from && m->time <= to &&
		    (!best || m->time >= best->time))
			best = m;
	}
	return best;
}

int pb_profile_map_of(const struct pb_profile *p, uint32_t pid, uint64_t ip, uint64_t time_ns,
		      struct pb_profile_map *out)
{
	/* a process's own maps since its exec, then its parent's up to the fork, and so on up
	 * (a fork copies the maps and the kernel reports nothing of them) */
	for (int depth = 0; p && depth < 64 && pid; depth++) {
		uint32_t ppid;
		uint64_t fork_t = 0, exec_t = task_history(p, pid, time_ns, &ppid, &fork_t);
		const struct pb_prof_map *m = map_in(p, pid, ip, exec_t, time_ns);

		if (m) {
			map_out(p, m, out);
			return 0;
		}
		if (exec_t || !ppid)
			break;
		pid = ppid;
		time_ns = fork_t;
	}
	return -ENOENT;
}

/* The last COMM of pid itself (its main thread), or NULL. */
static const struct pb_prof_task *own_comm(const struct pb_profile *p, uint32_t pid)
{
	const struct pb_prof_task *best = NULL;
	size_t i = first_of(p->tasks, p->ntasks, sizeof(*p->tasks),
			    offsetof(struct pb_prof_task, pid), pid);

	for (; i < p->ntasks && p->tasks[i].pid == pid; i++) {
		const struct pb_prof_task *k = &p->tasks[i];

		if (k->kind == PB_TASK_COMM && k->tid == pid && (!best || k->time >= best->time))
			best = k;
	}
	return best;
}

const char *pb_profile_comm(const struct pb_profile *p, uint32_t pid)
{
	/* a forked child that did not exec is named as its parent (no COMM is reported) */
	for (int depth = 0; p && depth < 64 && pid; depth++) {
		const struct pb_prof_task *k = own_comm(p, pid);
		uint32_t ppid;
		uint64_t fork_t;

		if (k)
			return (const char *)p->strs.v + k->comm;
		task_history(p, pid, UINT64_MAX, &ppid, &fork_t);
		pid = ppid;
	}
	return NULL;
}

void pb_profile_stats(const struct pb_profile *p, struct pb_profile_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->event = p->event;
	out->freq = p->o.period ? 0 : p->o.freq;
	out->period = p->o.period;
	out->dwarf = p->o.dwarf;
	out->kernel = p->kernel;
	out->kernel_why = p->kernel_why;
	out->rings = p->nrings;
	out->ring_pages = p->o.ring_pages;
	out->samples = p->ns;
	out->lost = p->lost;
	out->lost_samples = p->lost_samples;
	out->throttled = p->throttled;
	out->unthrottled = p->unthrottled;
	out->cut = p->cut;
	out->bad = p->bad;
	out->max_rate_before = p->max_rate_before;
	out->max_rate_after = p->max_rate_after;
	out->drains = p->drains;
	out->copy_ns = p->copy_ns;
	out->parse_ns = p->parse_ns;
	out->start_ns = p->start_ns;
	out->end_ns = p->end_ns;
	out->raw_bytes = p->raw_bytes;
	out->store_bytes = p->ns * sizeof(*p->s) + p->nips * sizeof(*p->ips) +
			   (p->dwarf_at ? p->ns * sizeof(*p->dwarf_at) + p->blob.n : 0);
	out->nmaps = p->nmaps;
	out->ntasks = p->ntasks;
}

/* A line more into buf (cut to len at its end). */
static int line(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int line(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = *at < len ? vsnprintf(buf + *at, len - *at, fmt, ap) : 0;
	va_end(ap);
	*at += n > 0 ? (size_t)n : 0;
	return 1;
}

static uint64_t stacks_full(const struct pb_profile *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->ns; i++)
		n += !!(p->s[i].flags & PB_PROF_STACK_FULL);
	return n;
}

int pb_profile_caveats(const struct pb_profile *p, char *buf, size_t len)
{
	size_t at = 0;
	uint64_t full = p->o.dwarf ? stacks_full(p) : 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (!p->kernel && p->kernel_why)
		n += line(buf, len, &at, "%s\n", p->kernel_why);
	if (!p->ns)
		n += line(buf, len, &at, "no samples: the command ran for less than a sampling "
			  "period, or was not sampled (an exec that gains privileges, setuid or "
			  "file capabilities, detaches the events)\n");
	if (p->lost)
		n += line(buf, len, &at, "%llu records lost: a ring filled before pbench copied it "
			  "(%u pages a CPU)\n", (unsigned long long)p->lost, p->o.ring_pages);
	if (p->lost_samples)
		n += line(buf, len, &at, "%llu samples lost by the PMU\n",
			  (unsigned long long)p->lost_samples);
	if (p->throttled)
		n += line(buf, len, &at, "the kernel throttled the sampling %llu times "
			  "(kernel.perf_event_max_sample_rate, perf_cpu_time_max_percent)\n",
			  (unsigned long long)p->throttled);
	if (p->max_rate_before > 0 && p->max_rate_after > 0 &&
	    p->max_rate_after < p->max_rate_before)
		n += line(buf, len, &at, "the kernel lowered perf_event_max_sample_rate from %ld "
			  "to %ld during the run: its sampling took too long\n",
			  p->max_rate_before, p->max_rate_after);
	if (p->cut)
		n += line(buf, len, &at, "%llu of %zu samples' call chains may be cut short (the "
			  "kernel's depth of %u frames, or no user frames)\n",
			  (unsigned long long)p->cut, p->ns, p->max_stack);
	if (full)
		n += line(buf, len, &at, "%llu of %zu samples' stack copies filled their %u bytes: "
			  "deeper frames are not in them\n", (unsigned long long)full, p->ns,
			  p->o.stack_bytes);
	if (p->bad)
		n += line(buf, len, &at, "%llu records did not parse\n",
			  (unsigned long long)p->bad);
	return n;
}
