/* SPDX-License-Identifier: MIT */
/*
 * One run's profile: the sampling event's attributes, the command started with the events
 * armed on its pid (the child API's handshake: it blocks before exec while they open, and
 * enable_on_exec starts them at its exec, so pbench's fork and the child's set-up are not in
 * it), the wait that copies the rings out as they fill, and the end that parses them.
 *
 * The rings are copied on a wake-up: the kernel wakes the poll when a quarter of a ring
 * holds records (watermark). A sample of tests/data/profile/shares (4 frames) takes 89 bytes
 * of a ring: a quarter of the default 512 KiB holds 1470, 0.37 s of a thread at 4 kHz. A
 * DWARF sample takes 8.4 KB (the stack copy is 8 KiB whatever the stack holds): a quarter of
 * its 2 MiB ring holds 62, 15 ms, and the whole ring 62 ms, the longest pbench's thread may
 * wait for a CPU before records are lost. Rings past the memory lock limit (an unprivileged
 * user's allowance is kernel.perf_event_mlock_kb, 516 KiB a CPU) are made smaller. A ring
 * that fills before it is copied drops records, which the kernel counts (PERF_RECORD_LOST):
 * said, never hidden. The kernel's perf_event_max_sample_rate, which it lowers by itself when
 * sampling takes too long, is read before and after the run.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/perf_regs.h>
#endif

#include "base/base.h"
#include "counters/counters.h"
#include "process/process.h"
#include "profile/profile.h"
#include "profile/profile_inner.h"

#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"
#define RING_PAGES 128		/* 512 KiB a CPU with 4 KiB pages */
#define RING_PAGES_DWARF 512	/* 2 MiB */
#define SLICE_MS 50		/* a look at the timeout, or the command without a pidfd */

/* The user registers DWARF unwinding starts from (libdw's, perf's --call-graph dwarf): the
 * general registers, the stack pointer and the instruction pointer. 0: not on this arch. */
static uint64_t unwind_regs(void)
{
#if defined(__x86_64__)
	uint64_t m = 0;

	for (int r = PERF_REG_X86_AX; r <= PERF_REG_X86_IP; r++)
		m |= UINT64_C(1) << r;
	for (int r = PERF_REG_X86_R8; r <= PERF_REG_X86_R15; r++)
		m |= UINT64_C(1) << r;
	return m;
#elif defined(__aarch64__)
	return (UINT64_C(1) << PERF_REG_ARM64_MAX) - 1;
#else
	return 0;
#endif
}

static int check_opts(struct pb_profile *p)
{
	struct pb_profile_opts *o = &p->o;

	if (!o->freq && !o->period)
		o->freq = PB_PROFILE_FREQ;
	if (!o->stack_bytes)
		o->stack_bytes = PB_PROFILE_STACK;
	if (!o->ring_pages)
		o->ring_pages = o->dwarf ? RING_PAGES_DWARF : RING_PAGES;
	if (o->ring_pages & (o->ring_pages - 1) || o->ring_pages < 8)
		return pb_fail(-EINVAL, "%s(): opts->ring_pages is %u, not a power of 2 of 8 or "
			       "more", "pb_profile_new", o->ring_pages);
	if (o->dwarf && (o->stack_bytes % 8 || o->stack_bytes > 65528))
		return pb_fail(-EINVAL, "%s(): opts->stack_bytes is %u: a multiple of 8 up to "
			       "65528 (the kernel's limit)", "pb_profile_new", o->stack_bytes);
	if (o->dwarf && !unwind_regs())
		return pb_fail(-EOPNOTSUPP, "%s(): DWARF mode: this build does not know the "
			       "unwinding registers of its architecture", "pb_profile_new");
	if (o->event && strlen(o->event) >= sizeof(p->event))
		return pb_fail(-EINVAL, "%s(): opts->event is %zu bytes long", "pb_profile_new",
			       strlen(o->event));
	return 0;
}

/* The event's type and config: cpu-clock by default, else as the counters resolve a name. */
static int resolve(struct pb_profile *p)
{
	struct pb_event ev;
	int err;

	snprintf(p->event, sizeof(p->event), "%s", p->o.event ? p->o.event : "cpu-clock");
	p->o.event = p->event;
	if (!strcmp(p->event, "cpu-clock")) {
		p->attr.type = PERF_TYPE_SOFTWARE;
		p->attr.config = PERF_COUNT_SW_CPU_CLOCK;
		p->kind = PBENCH_EVENT_SOFTWARE;
		return 0;
	}
	err = pb_event_resolve(p->event, &ev);
	if (err)
		return pb_fail(err, "unknown event '%s'%s%s", p->event, ev.why ? ": " : "",
			       ev.why ? ev.why : "");
	p->attr = ev.attr;
	p->kind = ev.kind;
	return 0;
}

/* What every sample and side record carries (profile.h says why each). */
static void set_attr(struct pb_profile *p, long pg)
{
	struct perf_event_attr *a = &p->attr;

	a->size = sizeof(*a);
	a->freq = !p->o.period;
	a->sample_freq = p->o.period ? p->o.period : p->o.freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	if (p->o.dwarf) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = unwind_regs();
		a->sample_stack_user = p->o.stack_bytes;
		p->nregs = (unsigned)__builtin_popcountll(a->sample_regs_user);
	}
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->build_id = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->exclude_kernel = p->o.user_only ? 1 : a->exclude_kernel;
	a->exclude_callchain_kernel = a->exclude_kernel;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)((size_t)pg * p->o.ring_pages / 4);
	p->kernel = !a->exclude_kernel;
	p->kernel_why = p->kernel ? NULL : p->o.user_only ? "the kernel is not sampled: asked" :
			"the kernel is not sampled: the event's name asks for user space only";
}

int pb_profile_new(struct pb_profile **out, const struct pb_profile_opts *opts)
{
	struct pb_profile *p;
	long stack = 127;
	int err;

	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (opts)
		p->o = *opts;
	err = check_opts(p);
	if (!err)
		err = resolve(p);
	if (err) {
		free(p);
		return err;
	}
	set_attr(p, sysconf(_SC_PAGESIZE));
	if (pb_read_long("/proc/sys/kernel/perf_event_max_stack", &stack) || stack < 1)
		stack = 127;
	p->max_stack = (unsigned)stack;
	p->max_rate_before = p->max_rate_after = -1;
	*out = p;
	return 0;
}

void pb_profile_free(struct pb_profile *p)
{
	if (!p)
		return;
	pb_prof_rings_close(p);
	for (int i = 0; i < p->nrings; i++)
		free(p->rings[i].raw.v);
	free(p->rings);
	pb_prof_data_free(p);
	free(p);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The hook the child API calls on the command's pid before its release. */
static int arm(pid_t pid, void *arg)
{
	struct pb_profile *p = arg;
	int err = pb_prof_rings_open(p, pid);

	p->start_ns = now_ns();
	return err;
}

int pb_profile_start(struct pb_profile *p, struct pbench_child **ch, char *const argv[],
		     const struct pbench_child_opts *copts, int stderr_fd)
{
	int err;

	if (!p || !ch)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, !p ? "p" : "ch");
	if (p->state)
		return pb_fail(-EINVAL, "%s(): the profile was started already: one a run",
			       __func__);
	p->state = 1;
	if (pb_read_long(MAX_RATE, &p->max_rate_before))
		p->max_rate_before = -1;
	err = pb_child_start_hooked(ch, argv, copts, stderr_fd, arm, p);
	if (err) {
		pb_prof_rings_close(p);
		p->state = 2;
	}
	return err;
}

/* Whether the command's process has ended (not reaped: pbench_child_wait() does that). */
static int ended(const struct pollfd *pid_pfd, pid_t pid)
{
	siginfo_t si = { 0 };

	if (pid_pfd->fd >= 0)
		return !!(pid_pfd->revents & POLLIN);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid;
}

/* The rings copied out, the time it took counted. */
static int timed_drain(struct pb_profile *p)
{
	uint64_t t0 = now_ns();
	int err = pb_prof_rings_drain(p);

	p->copy_ns += now_ns() - t0;
	return err;
}

/* Until the command's process ends (or timeout_s since its release): the rings copied out at
 * each wake-up. 0, -EINTR (a signal handler ran), -ENOMEM. pfd: the pidfd, then the rings. */
static int copy_while_running(struct pb_profile *p, struct pbench_child *ch, double timeout_s,
			      struct pollfd *pfd)
{
	pid_t pid = pb_child_pid(ch);
	int err;

	pfd[0] = (struct pollfd){ .fd = pb_pidfd_open(pid), .events = POLLIN };
	for (int i = 0; i < p->nrings; i++)
		pfd[1 + i] = (struct pollfd){ .fd = p->rings[i].fd, .events = POLLIN };
	for (;;) {
		int slice = pfd[0].fd < 0 || timeout_s > 0 ? SLICE_MS : -1;
		int rc = poll(pfd, (nfds_t)p->nrings + 1, slice);

		if (rc < 0 && errno == EINTR)
			err = -EINTR;
		else
			err = timed_drain(p);
		p->drains += rc > 0;
		if (err || ended(&pfd[0], pid) || (timeout_s > 0 && pb_child_past(ch, timeout_s)))
			break;
		for (int i = 1; i <= p->nrings; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;	/* the task it followed is gone: no more wake-ups */
	}
	if (pfd[0].fd >= 0)
		close(pfd[0].fd);
	return err;
}

int pb_profile_wait(struct pb_profile *p, struct pbench_child *ch, double timeout_s,
		    struct pbench_child_result *res)
{
	struct pollfd *pfd;
	int err, end_err;

	if (!p || !ch || p->state != 1)
		return pb_fail(-EINVAL, "%s(): %s", __func__, !p ? "p is NULL" : !ch ?
			       "ch is NULL" : "the profile is not running");
	pfd = calloc((size_t)p->nrings + 1, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	err = copy_while_running(p, ch, timeout_s, pfd);
	free(pfd);
	if (err == -EINTR)
		return err;
	if (!err)
		err = pbench_child_wait_timeout(ch, timeout_s, res);
	if (err == -EINTR)
		return err;
	p->end_ns = now_ns();
	end_err = pb_profile_end(p);
	return err ? err : end_err;
}

int pb_profile_end(struct pb_profile *p)
{
	int err;

	if (!p || p->state != 1)
		return 0;
	p->state = 2;
	err = pb_prof_rings_drain(p);
	pb_prof_rings_close(p);
	if (pb_read_long(MAX_RATE, &p->max_rate_after))
		p->max_rate_after = -1;
	if (!err) {
		uint64_t t0 = now_ns();

		err = pb_prof_parse(p);
		p->parse_ns = now_ns() - t0;
	}
	return err;
}

int pb_profile_run(struct pb_profile *p, char *const argv[],
		   const struct pbench_child_opts *copts, double timeout_s,
		   struct pbench_child_result *res)
{
	struct pbench_child *ch;
	int err = pb_profile_start(p, &ch, argv, copts, -1);

	if (err)
		return err;
	err = pb_profile_wait(p, ch, timeout_s, res);
	pbench_child_free(ch);	/* ends it when the wait did not (-EINTR, an error) */
	if (err == -EINTR)
		pb_profile_end(p);	/* what it sampled until then kept */
	return err;
}
