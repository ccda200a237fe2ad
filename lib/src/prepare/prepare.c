/* SPDX-License-Identifier: MIT */
/*
 * Preparing a measurement: pin the calling thread to one CPU, keep its memory on that CPU's
 * NUMA node, lock the process's memory, page in the stack, raise the priority (SCHED_FIFO only
 * where a probe shows it helps), warm up; and put everything back afterwards.
 *
 * What changes is an attribute of this thread (affinity, scheduling policy and nice, memory
 * policy) or of this process (the memory lock), never of the system. The state is saved
 * before the first change; restore_raw() puts back what is marked changed, with raw system
 * calls only, so the same code serves pbench_prepared_restore() and the signal handler
 * (SIGINT, SIGTERM, SIGHUP and every other signal that would end the process). syscall(2)
 * is not in POSIX's async-signal-safe list, but in glibc it is a stub around the syscall
 * instruction that touches nothing but errno, which the handler saves.
 *
 * The priority step (nice, SCHED_FIFO, and the probe that chooses between them) is in
 * prepare_prio.c; what both use (the clock in ms, a step's outcome, the work's runs) in
 * prepare_step.c.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "counters/counters.h"
#include "check/check.h"
#include "prepare/prepare.h"

#define DEFAULT_FIFO_PRIORITY 50
#define DEFAULT_STACK_KIB 256
#define MAX_STACK_KIB (1024 * 1024)
#define STACK_MARGIN (64 * 1024)	/* left untouched above the guard page */
#define WARMUP_CHUNK_MS 1.0
#define WARMUP_WINDOW 25		/* chunks per window */
#define WARMUP_STABLE_WINDOWS 4		/* compared, the last ones */
#define WARMUP_WINDOW_RANK 2		/* a window's speed: its third-fastest chunk */
#define WARMUP_STABLE_PCT 1.0		/* their speeds within this, in % */
#define WARMUP_MIN_MS 100.0		/* never less, whatever the windows say */
#define WARMUP_CLOCK_NS 10000.0		/* a pass of the clock's reference after each chunk */

static const struct pbench_prepare_opts defaults = PBENCH_PREPARE_OPTS_INIT;

/* ---- saved state and its restore -------------------------------------------------------- */

/* Async-signal-safe: syscalls, getpid, and the flags. Returns the first -errno. */
static int restore_raw(struct pbench_prepared *p, int in_handler)
{
	/* In a forked copy, the thread ids are the parent's: restore the calling thread. */
	int self = getpid() == p->pid;
	pid_t tid = self ? p->tid : 0;
	int err = 0;

	if (p->sched_changed) {
		if (syscall(SYS_sched_setattr, tid, &p->saved_attr, 0) == 0)
			p->sched_changed = 0;
		else if (!err)
			err = -errno;
	}
	if (p->mpol_changed) {
		/* Only a thread can set its own memory policy. */
		if (!self || syscall(SYS_gettid) == p->tid) {
			if (syscall(SYS_set_mempolicy, p->saved_mpol, p->saved_nodes,
				    PB_NODE_BITS + 1) == 0)
				p->mpol_changed = 0;
			else if (!err)
				err = -errno;
		} else if (!in_handler && !err) {
			err = -EINVAL;	/* left for a restore from the right thread */
		}
	}
	if (p->locked) {
		if (syscall(SYS_munlockall) == 0)
			p->locked = 0;
		else if (!err)
			err = -errno;
	}
	if (p->pinned) {
		if (syscall(SYS_sched_setaffinity, tid, sizeof(p->saved_mask), &p->saved_mask) == 0)
			p->pinned = 0;
		else if (!err)
			err = -errno;
	}
	return err;
}

static int save_state(struct pbench_prepared *p)
{
	int err;

	p->pid = getpid();
	p->tid = (pid_t)syscall(SYS_gettid);
	if (sched_getaffinity(0, sizeof(p->saved_mask), &p->saved_mask))
		return -errno;
	err = pb_sched_getattr(0, &p->saved_attr);
	if (err)
		return err;
	/* Restoring sets exactly what was read: the fields get_params() fills, and the
	 * reset-on-fork flag, which is the only flag it reports. */
	p->saved_attr.size = sizeof(p->saved_attr);
	p->saved_attr.flags &= PB_SCHED_FLAG_RESET_ON_FORK;
	if (numa_available() >= 0 &&
	    syscall(SYS_get_mempolicy, &p->saved_mpol, p->saved_nodes, PB_NODE_BITS + 1, NULL, 0))
		return -errno;
	return 0;
}

/* ---- signals ---------------------------------------------------------------------------- */

static _Atomic(struct pbench_prepared *) sig_owner;
/* The handled signals (pb_sigset_stop(): every one that would end the process, from SIGHUP
 * to the real-time ones), each with the action it had before. */
static struct sigaction old_acts[NSIG];
static sigset_t handled;

static struct sigaction *old_action(int sig)
{
	return &old_acts[sig];
}

static void on_signal(int sig);

/* Put back the previous handler of each signal whose handler is still ours. */
static void handlers_uninstall(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction cur;

		if (sigismember(&handled, sig) == 1 && sigaction(sig, NULL, &cur) == 0 &&
		    cur.sa_handler == on_signal)
			sigaction(sig, old_action(sig), NULL);
	}
}

static void on_signal(int sig)
{
	int saved_errno = errno;
	struct pbench_prepared *p = atomic_exchange(&sig_owner, NULL);

	if (p) {
		restore_raw(p, 1);
		p->signal = sig;
		handlers_uninstall();
	} else {
		/* A release is uninstalling the handlers: the previous one is in old_action. */
		sigaction(sig, old_action(sig), NULL);
	}
	/* Blocked until this handler returns, then delivered as it was before preparing. */
	raise(sig);
	errno = saved_errno;
}

static int handlers_install(struct pbench_prepared *p)
{
	struct pbench_prepared *none = NULL;
	struct sigaction sa;

	if (!atomic_compare_exchange_strong(&sig_owner, &none, p))
		return -EBUSY;
	pb_sigset_stop(&handled);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_mask = handled;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction *old = old_action(sig);

		if (sigismember(&handled, sig) != 1)
			continue;
		/* A signal ignored before stays ignored: nothing to restore on. One the caller
		 * handles stays the caller's, unless it asks to stop (INT, TERM, HUP, QUIT): a
		 * SIGPROF, SIGALRM or SIGUSR1 handler may well be for something else (a
		 * profiler's ticks) and must not undo the preparation. */
		if (sigaction(sig, NULL, old) ||
		    (old->sa_handler != SIG_IGN &&
		     (old->sa_handler == SIG_DFL || sig == SIGINT || sig == SIGTERM ||
		      sig == SIGHUP || sig == SIGQUIT) &&
		     sigaction(sig, &sa, NULL))) {
			int err = -errno;

			handlers_uninstall();
			atomic_store(&sig_owner, NULL);
			return err;
		}
	}
	p->handlers = 1;
	return 0;
}

/* Restore with the handled signals blocked in this thread, so that their handler cannot run
 * halfway through; a signal that arrives meanwhile is delivered afterwards, as it was
 * before. */
static int restore(struct pbench_prepared *p)
{
	sigset_t block, old;
	int err;

	pb_sigset_stop(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (p->handlers) {
		struct pbench_prepared *me = p;

		/* Still the owner (no signal came): the handlers are this object's. */
		if (atomic_compare_exchange_strong(&sig_owner, &me, NULL))
			handlers_uninstall();
		p->handlers = 0;
	}
	err = restore_raw(p, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* ---- the steps -------------------------------------------------------------------------- */

static void step_pin(struct pbench_prepared *p)
{
	cpu_set_t one;

	if (p->o.flags & PBENCH_PREPARE_NO_PIN) {
		pb_outcome(p, PBENCH_PREPARE_STEP_PIN, PBENCH_PREPARE_SKIPPED, 0, "not asked");
		return;
	}
	CPU_ZERO(&one);
	CPU_SET(p->cpu, &one);
	if (CPU_EQUAL(&one, &p->saved_mask)) {
		pb_outcome(p, PBENCH_PREPARE_STEP_PIN, PBENCH_PREPARE_DONE, 0,
			   "CPU %d (already the only CPU "
			"of the thread's affinity)", p->cpu);
		return;
	}
	p->pinned = 1;
	if (sched_setaffinity(0, sizeof(one), &one)) {
		int err = -errno;

		p->pinned = 0;
		pb_outcome(p, PBENCH_PREPARE_STEP_PIN, pb_step_status(err), err,
			"cannot pin to CPU %d: %s", p->cpu, pbench_strerror(err));
		return;
	}
	pb_outcome(p, PBENCH_PREPARE_STEP_PIN, PBENCH_PREPARE_DONE, 0,
		   "pinned to CPU %d (was on %d CPUs)",
		p->cpu, CPU_COUNT(&p->saved_mask));
}

/* The node of a CPU: its sysfs directory holds a link "node<N>". Not libnuma's
 * numa_node_of_cpu(), which prints and exits when its bitmask allocation fails. */
static int node_of_cpu(int cpu)
{
	char path[96], real[4096];
	struct dirent *e;
	DIR *d;
	int node = -ENOENT;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	if (pb_path(real, sizeof(real), path) || !(d = opendir(real)))
		return -ENOENT;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
			node = atoi(e->d_name + 4);
			break;
		}
	closedir(d);
	return node;
}

static void step_numa(struct pbench_prepared *p)
{
	unsigned long nodes[PB_NODE_BITS / (8 * sizeof(unsigned long))] = { 0 };
	const size_t bits = 8 * sizeof(unsigned long);
	int node, err;

	if (p->o.flags & PBENCH_PREPARE_NO_NUMA) {
		pb_outcome(p, PBENCH_PREPARE_STEP_NUMA, PBENCH_PREPARE_SKIPPED, 0, "not asked");
		return;
	}
	if (numa_available() < 0) {
		pb_outcome(p, PBENCH_PREPARE_STEP_NUMA, PBENCH_PREPARE_NOT_AVAILABLE, -ENOSYS,
			"this kernel has no NUMA memory policy (get_mempolicy fails)");
		return;
	}
	node = node_of_cpu(p->cpu);
	if (node < 0 || node >= PB_NODE_BITS) {
		pb_outcome(p, PBENCH_PREPARE_STEP_NUMA, PBENCH_PREPARE_NOT_AVAILABLE, -ENOENT,
			"the NUMA node of CPU %d is not known (no node link in sysfs)", p->cpu);
		return;
	}
	nodes[node / bits] = 1UL << (node % bits);
	p->mpol_changed = 1;
	if (syscall(SYS_set_mempolicy, MPOL_BIND, nodes, PB_NODE_BITS + 1)) {
		err = -errno;
		p->mpol_changed = 0;
		pb_outcome(p, PBENCH_PREPARE_STEP_NUMA, pb_step_status(err), err,
			   "cannot bind memory to "
			"node %d: %s (outside the cpuset's mems?)", node, pbench_strerror(err));
		return;
	}
	/* Pages already there stay where they are: only new allocations follow the policy. */
	pb_outcome(p, PBENCH_PREPARE_STEP_NUMA, PBENCH_PREPARE_DONE, 0,
		   "new memory bound to node %d, CPU "
		"%d's (%d node%s)", node, p->cpu, numa_num_configured_nodes(),
		numa_num_configured_nodes() == 1 ? "" : "s");
}

/* This process's own status (live, whatever PBENCH_PROCFS_ROOT says): VmLck and VmSize in
 * kB, whether CAP_IPC_LOCK is effective. -1 for what is not there. */
static void self_status(long *vmlck, long *vmsize, int *cap_ipc_lock)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	*vmlck = *vmsize = -1;
	*cap_ipc_lock = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (!strncmp(line, "VmLck:", 6))
			*vmlck = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmSize:", 7))
			*vmsize = strtol(line + 7, NULL, 10);
		else if (sscanf(line, "CapEff: %llx", &caps) == 1)
			*cap_ipc_lock = (caps >> 14) & 1;	/* CAP_IPC_LOCK */
	}
	fclose(f);
}

static void step_mlock(struct pbench_prepared *p)
{
	long before, after, vmsize;
	int cap, err;
	struct rlimit rl;

	if (p->o.flags & PBENCH_PREPARE_NO_MLOCK) {
		pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_SKIPPED, 0, "not asked");
		return;
	}
	self_status(&before, &vmsize, &cap);
	if (before > 0) {
		/* munlockall() on release would unlock what someone else locked. */
		pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_SKIPPED, 0,
			   "%ld kB of memory are "
			"already locked: left as it is", before);
		return;
	}
	p->locked = 1;
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		err = -errno;
		p->locked = 0;
		if (getrlimit(RLIMIT_MEMLOCK, &rl))
			rl.rlim_cur = RLIM_INFINITY;
		/* ENOMEM is the limit's refusal when the process is not exempt from it. */
		if (err == -EPERM || (err == -ENOMEM && cap == 0 && rl.rlim_cur != RLIM_INFINITY)) {
			pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_NOT_PERMITTED, err,
				"mlockall needs CAP_IPC_LOCK or a memlock limit (ulimit -l, now "
				"%llu kB) above the process's %ld kB",
				(unsigned long long)rl.rlim_cur / 1024, vmsize);
		} else {
			pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_FAILED, err,
				   "mlockall: %s",
				pbench_strerror(err));
		}
		return;
	}
	self_status(&after, &vmsize, &cap);
	if (after < 0)
		pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_DONE, 0,
			   "mlockall done (VmLck not "
			"readable)");
	else if (after == 0)
		/* AddressSanitizer intercepts mlockall and does nothing: locking its shadow
		 * memory (terabytes of reserved address space) would take all of RAM. */
		pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_NOT_AVAILABLE, 0,
			   "mlockall returned "
			"success but nothing is locked (a sanitizer's interceptor?)");
	else
		pb_outcome(p, PBENCH_PREPARE_STEP_MLOCK, PBENCH_PREPARE_DONE, 0,
			   "%ld kB locked, and all "
			"future memory (mlockall)", after);
}

/* noinline: the array is this frame's, below the caller's. */
__attribute__((noinline)) static void touch_stack(size_t len)
{
	char buf[len];
	volatile char *v = buf;

	for (size_t i = 0; i < len; i += 4096)
		v[i] = 0;
	v[len - 1] = 0;
}

static void step_stack(struct pbench_prepared *p)
{
	size_t want = (p->o.stack_kib ? p->o.stack_kib : DEFAULT_STACK_KIB) * 1024, room;
	pthread_attr_t attr;
	void *lo;
	size_t size;
	char *here = __builtin_frame_address(0);

	if (p->o.flags & PBENCH_PREPARE_NO_STACK) {
		pb_outcome(p, PBENCH_PREPARE_STEP_STACK, PBENCH_PREPARE_SKIPPED, 0, "not asked");
		return;
	}
	if (pthread_getattr_np(pthread_self(), &attr)) {
		pb_outcome(p, PBENCH_PREPARE_STEP_STACK, PBENCH_PREPARE_FAILED, -EINVAL,
			"the thread's stack bounds are not known");
		return;
	}
	if (pthread_attr_getstack(&attr, &lo, &size))
		lo = here;	/* no room: skipped below */
	pthread_attr_destroy(&attr);
	room = here > (char *)lo + STACK_MARGIN ? (size_t)(here - (char *)lo) - STACK_MARGIN : 0;
	if (room < 4096) {
		pb_outcome(p, PBENCH_PREPARE_STEP_STACK, PBENCH_PREPARE_SKIPPED, 0,
			   "no stack left to touch");
		return;
	}
	if (want > room)
		want = room & ~(size_t)4095;
	touch_stack(want);
	pb_outcome(p, PBENCH_PREPARE_STEP_STACK, PBENCH_PREPARE_DONE, 0,
		   "%zu KiB touched below the current "
		"frame", want / 1024);
}

/* The window's speed: its chunk of rank WARMUP_WINDOW_RANK from the fastest (sorts them). */
static double window_speed(double *x, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
			double t = x[j];

			x[j] = x[j - 1];
			x[j - 1] = t;
		}
	return x[n > WARMUP_WINDOW_RANK ? WARMUP_WINDOW_RANK : n - 1];
}

/* The spread in % of the last WARMUP_STABLE_WINDOWS windows' speeds; NaN for none. */
static double windows_spread(const double *win)
{
	double lo = INFINITY, hi = 0;

	for (int i = 0; i < WARMUP_STABLE_WINDOWS; i++) {
		lo = fmin(lo, win[i]);
		hi = fmax(hi, win[i]);
	}
	return lo > 0 && isfinite(hi) ? (hi - lo) / lo * 100 : NAN;
}

/*
 * Warm up in chunks of WARMUP_CHUNK_MS, each followed by one pass of the clock's reference
 * (pb_clock_loop: a dependent multiply-add chain, latency-bound); every WARMUP_WINDOW chunks
 * make a window, its clock the third-fastest pass (the tenth of them the CPU ran fastest:
 * what it does when nothing slows it, one or two odd passes aside), and likewise its work's
 * speed. Stable: the last WARMUP_STABLE_WINDOWS windows' clocks within WARMUP_STABLE_PCT of
 * each other, after WARMUP_MIN_MS. Bounded by left (the fixed time). Returns 1 when stable;
 * *drift gets the clock's spread over the last windows in %, *work_drift the work's (NaN
 * before enough).
 *
 * A ramp of the clock (the governor, turbo) or its fall (heat) moves the clock's passes: not
 * stable while it lasts. The work's own speed (a throughput-bound loop, like the built-in xor
 * loop) also falls when something outside the VM shares the physical core (an SMT sibling on
 * the host), with the clock unchanged: judged by the work, the warm-up ran to its 1.2 s bound
 * in 2 of 3 invocations on the development VM ("spread 99.37%") while the clock was steady.
 */
static int warm_until_stable(struct pbench_prepared *p, struct pb_work *w, double left,
			     double *drift, double *work_drift)
{
	double chunk[WARMUP_WINDOW], clk[WARMUP_WINDOW], win[WARMUP_STABLE_WINDOWS];
	double wwin[WARMUP_STABLE_WINDOWS], start = pb_now_ms();
	uint64_t clock_iters = pb_clock_calibrate(WARMUP_CLOCK_NS);
	int nc = 0, nw = 0, fixed = p->o.flags & PBENCH_PREPARE_FIXED_WARMUP;

	*drift = *work_drift = NAN;
	while (pb_now_ms() - start < left && !p->signal) {
		double t = pb_work_run(w);

		clk[nc] = pb_clock_pass(clock_iters);
		/* Under FIFO with the runs' rests: a warm-up that kept the waiting normal tasks
		 * off the CPU would have the fair server preempt the first runs after it. */
		pb_rest_ms(t * pbench_prepared_rest_ns(p, 1e6) / 1e6);
		chunk[nc++] = t;
		if (nc < WARMUP_WINDOW)
			continue;
		win[nw % WARMUP_STABLE_WINDOWS] = window_speed(clk, nc);
		wwin[nw++ % WARMUP_STABLE_WINDOWS] = window_speed(chunk, nc);
		nc = 0;
		if (nw < WARMUP_STABLE_WINDOWS)
			continue;
		*drift = windows_spread(win);
		*work_drift = windows_spread(wwin);
		if (!fixed && *drift <= WARMUP_STABLE_PCT &&
		    pb_now_ms() - start + p->busy_ms >= WARMUP_MIN_MS)
			return 1;
	}
	return 0;
}

/* What the warm-up saw, after its length: stable or not by the clock, and the work. */
static void warmup_words(const struct pbench_prepared *p, char *buf, size_t len, double left,
			 double drift, double work_drift)
{
	int fixed = p->o.flags & PBENCH_PREPARE_FIXED_WARMUP, n = 0;
	const int ms = (int)(WARMUP_WINDOW * WARMUP_CHUNK_MS);

	if (p->warmup_stable)
		n = snprintf(buf, len, ": stable by the clock's reference (a latency-bound chain; "
			     "the fastest of the last %d windows of %d ms within %.2f%%, under "
			     "%.0f%%)", WARMUP_STABLE_WINDOWS, ms, drift, WARMUP_STABLE_PCT);
	else if (left > 0 && !isfinite(drift) && !fixed)
		n = snprintf(buf, len, ", the most asked: too few windows of %d ms to tell "
			     "whether the clock was stable", ms);
	else if (left > 0 && !fixed)
		n = snprintf(buf, len, ", the most asked: the clock not stable by its reference "
			     "(a latency-bound chain; the fastest of the last %d windows of %d ms "
			     "spread %.2f%%, over %.0f%%)", WARMUP_STABLE_WINDOWS, ms, drift,
			     WARMUP_STABLE_PCT);
	if (isfinite(work_drift) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; the work's own speed spread %.2f%% over "
			 "them (the share of the core this thread got, or the work itself)",
			 work_drift);
}

static void step_warmup(struct pbench_prepared *p, struct pb_work *w)
{
	double start = pb_now_ms(), left = p->o.warmup_ms - p->busy_ms, drift = NAN;
	double work_drift = NAN;
	const char *how = "";
	char buf[320] = "";
	int stable = 0;

	if (p->o.warmup_ms == 0) {
		pb_outcome(p, PBENCH_PREPARE_STEP_WARMUP, PBENCH_PREPARE_SKIPPED, 0, "0 ms asked");
		return;
	}
	if (left > 0) {
		pb_work_calibrate(w, WARMUP_CHUNK_MS);
		stable = warm_until_stable(p, w, left, &drift, &work_drift);
	}
	p->warmup_done_ms = p->busy_ms + (pb_now_ms() - start);
	p->warmup_stable = stable;
	p->warmup_drift_pct = drift;
	warmup_words(p, buf, sizeof(buf), left, drift, work_drift);
	if (p->busy_ms > 0)
		how = " (the priority probe's runs included)";
	pb_outcome(p, PBENCH_PREPARE_STEP_WARMUP, PBENCH_PREPARE_DONE, 0, "%.0f ms of %s on CPU "
		   "%d%s%s", p->warmup_done_ms, w->fn ? "the caller's function" :
		   "the built-in xor loop", p->cpu, how, buf);
}

/* ---- the public calls ------------------------------------------------------------------- */

static int opts_resolve(const struct pbench_prepare_opts *in, struct pbench_prepare_opts *o)
{
	static const char fn[] = "pbench_prepare";
	int err;
	const unsigned known = PBENCH_PREPARE_SIGNALS | PBENCH_PREPARE_NO_PIN |
			       PBENCH_PREPARE_NO_NUMA | PBENCH_PREPARE_NO_MLOCK |
			       PBENCH_PREPARE_NO_STACK | PBENCH_PREPARE_PRIORITY_CACHE |
			       PBENCH_PREPARE_REPROBE | PBENCH_PREPARE_FIXED_WARMUP;

	*o = defaults;
	if (in) {
		if ((err = pb_check_struct(fn, "opts", "pbench_prepare_opts", in, 0,
					   "PBENCH_PREPARE_OPTS_INIT")))
			return err;
		/* An older, smaller struct keeps the defaults of the fields it does not have
		 * (pb_copy_in). */
		pb_copy_in(o, sizeof(*o), in);
	}
	if (o->cpu < -1 || o->cpu >= CPU_SETSIZE)
		return pb_fail(-EINVAL, "%s(): opts->cpu %d is not a CPU (or -1)", fn, o->cpu);
	if (o->priority < PBENCH_PRIORITY_AUTO || o->priority > PBENCH_PRIORITY_FIFO)
		return pb_fail(-EINVAL, "%s(): opts->priority %d is not a PBENCH_PRIORITY_*", fn,
			       o->priority);
	if (o->fifo_priority < 0 || o->fifo_priority > 99)
		return pb_fail(-EINVAL, "%s(): opts->fifo_priority %d is not 0 to 99", fn,
			       o->fifo_priority);
	if (!(o->warmup_ms >= 0 && isfinite(o->warmup_ms)))
		return pb_fail(-EINVAL, "%s(): opts->warmup_ms is %g, not a time of 0 or more", fn,
			       o->warmup_ms);
	if (o->stack_kib > MAX_STACK_KIB || (o->flags & ~known))
		return pb_fail(-EINVAL, "%s(): %s", fn, o->flags & ~known ? "opts->flags has bits "
			       "that are not PBENCH_PREPARE_* flags" : "opts->stack_kib is too large");
	if (o->fifo_priority == 0)
		o->fifo_priority = DEFAULT_FIFO_PRIORITY;
	return 0;
}

static int choose_cpu(struct pbench_prepared *p)
{
	p->cpu_busy = NAN;
	if (p->o.cpu >= 0) {
		if (!CPU_ISSET(p->o.cpu, &p->saved_mask))
			return -EINVAL;
		p->cpu = p->o.cpu;
		snprintf(p->cpu_reason, sizeof(p->cpu_reason), "CPU %d as asked", p->cpu);
		return 0;
	}
	p->cpu = pb_cpu_pick(p->cpu_reason, sizeof(p->cpu_reason), &p->cpu_busy);
	if (p->cpu >= 0 && (p->cpu >= CPU_SETSIZE || !CPU_ISSET(p->cpu, &p->saved_mask)))
		return -EINVAL;	/* picked from recorded trees (PBENCH_SYSFS_ROOT)? */
	return p->cpu < 0 ? p->cpu : 0;
}

int pbench_prepare(struct pbench_prepared **out, const struct pbench_prepare_opts *opts)
{
	struct pbench_prepared *p;
	struct pb_work w;
	int err;

	pb_fail_clear();
	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	err = opts_resolve(opts, &p->o);
	if (!err)
		err = save_state(p);
	if (!err)
		err = choose_cpu(p);
	if (!err && (p->o.flags & PBENCH_PREPARE_SIGNALS))
		err = handlers_install(p);
	if (err) {
		free(p);
		return err;
	}
	for (int i = 0; i < PBENCH_PREPARE_STEP_NR; i++) {
		p->steps[i].size = sizeof(p->steps[i]);
		p->steps[i].step = i;
		p->steps[i].status = PBENCH_PREPARE_SKIPPED;
		p->steps[i].what = p->what[i];
	}
	p->prio.size = sizeof(p->prio);
	w = (struct pb_work){ .fn = p->o.warmup_fn, .ctx = p->o.warmup_ctx };

	/* Memory policy and lock after the pin, so that what they fault in is local; the
	 * priority after the memory, so that paging in does not run at FIFO priority. */
	step_pin(p);
	if (!p->signal)
		step_numa(p);
	if (!p->signal)
		step_mlock(p);
	if (!p->signal)
		step_stack(p);
	if (!p->signal)
		pb_step_priority(p, &w);
	if (!p->signal)
		step_warmup(p, &w);
	if (p->signal) {
		/* The handler restored, and the caller's handler returned; a step may have
		 * changed something after the handler ran. */
		restore(p);
		free(p);
		return -EINTR;
	}
	pb_log(PBENCH_LOG_DEBUG, "prepared on CPU %d: %s", p->cpu,
	       p->steps[PBENCH_PREPARE_STEP_PRIORITY].what);
	*out = p;
	return 0;
}

double pbench_prepared_cpu_busy(const struct pbench_prepared *p)
{
	return p ? p->cpu_busy : NAN;
}

int pbench_prepared_restore(struct pbench_prepared *p)
{
	return p ? restore(p) : -EINVAL;
}

void pbench_prepared_free(struct pbench_prepared *p)
{
	if (!p)
		return;
	restore(p);
	free(p);
}

/* The getters on no object: as the rest of the API, said and refused, never dereferenced. */
static int no_prepared(const char *fn)
{
	return pb_fail(-EINVAL, "%s(): p is NULL", fn);
}

int pbench_prepared_cpu(const struct pbench_prepared *p)
{
	return p ? p->cpu : no_prepared(__func__);
}

const char *pbench_prepared_cpu_reason(const struct pbench_prepared *p)
{
	if (!p) {
		no_prepared(__func__);
		return NULL;
	}
	return p->cpu_reason;
}

const struct pbench_prepared_step *pbench_prepared_step(const struct pbench_prepared *p, int step)
{
	if (!p) {
		no_prepared(__func__);
		return NULL;
	}
	return step >= 0 && step < PBENCH_PREPARE_STEP_NR ? &p->steps[step] : NULL;
}

int pbench_prepared_priority(const struct pbench_prepared *p, struct pbench_prepared_priority *out)
{
	int err;

	if (!p)
		return no_prepared(__func__);
	if ((err = PB_CHECK_STRUCT(out, pbench_prepared_priority, 0, NULL)))
		return err;
	pb_copy_out(out, &p->prio, sizeof(p->prio));
	return 0;
}

double pbench_prepared_rest_ns(const struct pbench_prepared *p, double run_ns)
{
	if (!p || !(run_ns > 0) || !isfinite(run_ns) || p->prio.policy != SCHED_FIFO)
		return 0;
	return run_ns * p->rest_ratio;
}

double pbench_prepared_rest(const struct pbench_prepared *p, double run_ns)
{
	double ns = pbench_prepared_rest_ns(p, run_ns), t0;

	if (!(ns > 0))
		return 0;
	t0 = pb_now_ms();
	pb_rest_ms(ns / 1e6);
	return (pb_now_ms() - t0) * 1e6;
}

double pbench_prepared_warmup_ms(const struct pbench_prepared *p)
{
	if (!p) {
		no_prepared(__func__);
		return NAN;	/* not 0: that would say "no warm-up was asked" */
	}
	return p->warmup_done_ms;
}

int pbench_prepared_signal(const struct pbench_prepared *p)
{
	return p ? p->signal : no_prepared(__func__);
}

