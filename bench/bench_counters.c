/* SPDX-License-Identifier: MIT */
/*
 * bench_counters: what reading a counter group costs, and how many syscalls it takes, for 1
 * and for 4 software events on the calling thread, all measured in this run.
 *
 * Target (the issue): a group read is one syscall whatever the number of events. We do not
 * take that from the code: the syscalls are counted by the kernel, with a counter on the
 * raw_syscalls:sys_enter tracepoint of this thread, and checked first on a known number of
 * getppid() calls. When the tracepoint cannot be opened the reason is printed, never a number.
 *
 * Timing: the variants run in blocks of BLOCK operations, interleaved round after round with
 * a rotating first variant, so a slow period of the shared host hits them all alike. Each
 * block is timed as a whole with CLOCK_MONOTONIC_RAW; we print the minimum (the cost when
 * nothing interfered: noise only adds time) and the median of the per-block costs.
 *
 * Order matters: the timing runs before the tracepoint is opened. An open sys_enter
 * tracepoint turns on syscall tracing work for every task, which would slow the very reads
 * being timed.
 *
 * Exits 0 when every figure could be measured or explained, 1 only when a call that must
 * work (reading an opened group) fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

#define BLOCK 200		/* operations per timed block */
#define ROUNDS 600		/* blocks per variant */
#define WARMUP_NS 200000000ull	/* interleaved rounds run and discarded first */
#define SYSCALL_OPS 1000	/* operations per syscall count */

#define EVENTS_1 "task-clock"
#define EVENTS_4 "task-clock,context-switches,page-faults,cpu-migrations"
#define MAX_EVENTS 4

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
#define SYS_ENTER_ID "events/raw_syscalls/sys_enter/id"

static struct pbench_count counts[MAX_EVENTS];

struct variant {
	const char *name;
	int (*op)(struct pbench_counters *c);
	struct pbench_counters *c;
	double *ns;		/* per-block ns per operation, ROUNDS of them */
	struct pbench_summary sum;
	double syscalls;	/* per operation, valid when counted */
	int counted;
};

static struct variant variants[5];
static int nr_variants;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int op_read(struct pbench_counters *c)
{
	int n = pbench_counters_read(c);

	return n < 0 ? n : 0;
}

static int op_start_stop(struct pbench_counters *c)
{
	int err = pbench_counters_start(c);

	return err ? err : pbench_counters_stop(c);
}

static int op_getppid(struct pbench_counters *c)
{
	(void)c;
	return syscall(SYS_getppid) < 0 ? -errno : 0;
}

/* ---- the counter sets ------------------------------------------------------------------ */

/* Why event 0 of a set that did not open (or -errno text when the set itself failed). */
static const char *open_reason(struct pbench_counters *c, int err)
{
	counts[0].size = sizeof(counts[0]);
	if (c && pbench_counters_read(c) > 0 && !pbench_counters_get(c, 0, &counts[0]) &&
	    counts[0].reason[0])
		return counts[0].reason;
	return pbench_strerror(err);
}

static struct pbench_counters *open_set(const char *events)
{
	struct pbench_counters_opts opts = { .size = sizeof(opts), .pid = 0, .cpu = -1 };
	struct pbench_counters *c;
	int err = pbench_counters_open(&c, events, &opts);

	if (err) {
		printf("'%s': not measured: %s\n", events, open_reason(c, err));
		pbench_counters_free(c);
		return NULL;
	}
	for (int i = 0; i < pbench_counters_nr(c); i++) {
		if (pbench_counters_open_status(c, i) != PBENCH_EVENT_OK) {
			counts[i].size = sizeof(counts[i]);
			if (pbench_counters_read(c) < 0 || pbench_counters_get(c, i, &counts[i]))
				counts[i].reason = "(not read)";
			printf("'%s': not measured: '%s' did not open: %s\n", events,
			       pbench_counters_name(c, i), counts[i].reason);
			pbench_counters_free(c);
			return NULL;
		}
	}
	err = pbench_counters_enable(c);
	if (err) {
		printf("'%s': not measured: enable: %s\n", events, pbench_strerror(err));
		pbench_counters_free(c);
		return NULL;
	}
	return c;
}

/* The user-space read path, where a hardware PMU offers it; NULL and *why otherwise. */
static struct pbench_counters *open_rdpmc(const char **why)
{
	struct pbench_counters *c;

	if (!pbench_cpu_has_pmu()) {
		*why = "no hardware PMU on this machine (no /sys/bus/event_source/devices/cpu*)";
		return NULL;
	}
	c = open_set("instructions");
	if (!c) {
		*why = "'instructions' did not open (above)";
		return NULL;
	}
	if (pbench_counters_uses_rdpmc(c, 0) != 1) {
		*why = "pbench_counters_uses_rdpmc() is 0 for 'instructions' (no user-readable "
		       "counter page: see /sys/bus/event_source/devices/cpu/rdpmc)";
		pbench_counters_free(c);
		return NULL;
	}
	return c;
}

static void add_variant(const char *name, int (*op)(struct pbench_counters *c),
			struct pbench_counters *c)
{
	struct variant *v = &variants[nr_variants++];

	v->name = name;
	v->op = op;
	v->c = c;
}

/* ---- timing ----------------------------------------------------------------------------- */

static int run_block(struct variant *v, int round)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < BLOCK; i++) {
		int err = v->op(v->c);

		if (err) {
			fprintf(stderr, "bench_counters: error: %s: %s\n", v->name,
				pbench_strerror(err));
			return err;
		}
	}
	if (round >= 0)
		v->ns[round] = (double)(now_ns() - t0) / BLOCK;
	return 0;
}

/* One round: every variant once, starting with variant `first` so none always goes first. */
static int run_round(int first, int round)
{
	for (int k = 0; k < nr_variants; k++) {
		int err = run_block(&variants[(first + k) % nr_variants], round);

		if (err)
			return err;
	}
	return 0;
}

static int time_variants(void)
{
	uint64_t t_end = now_ns() + WARMUP_NS;
	int round, err;

	for (int k = 0; k < nr_variants; k++) {
		variants[k].ns = calloc(ROUNDS, sizeof(double));
		if (!variants[k].ns)
			return -ENOMEM;
	}
	/* Time-based warm-up: caches, branch predictors and the kernel's paths settle first. */
	for (round = 0; now_ns() < t_end; round++) {
		err = run_round(round % nr_variants, -1);
		if (err)
			return err;
	}
	for (round = 0; round < ROUNDS; round++) {
		err = run_round(round % nr_variants, round);
		if (err)
			return err;
	}
	for (int k = 0; k < nr_variants; k++) {
		variants[k].sum.size = sizeof(variants[k].sum);
		err = pbench_stats_summary(variants[k].ns, ROUNDS, NULL, &variants[k].sum);
		if (err)
			return err;
	}
	return 0;
}

/* ---- counting syscalls ------------------------------------------------------------------ */

/* The id is read live, not through pb_read_file: PBENCH_SYSFS_ROOT points at recorded trees
 * of other machines, and a tracepoint id is only meaningful for the running kernel. */
static int read_id(const char *dir, long *id)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, SYS_ENTER_ID);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%ld", id) == 1 && *id > 0;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

struct id_reply {
	long id;
	int err;
	char step[48];
};

/*
 * When tracefs is not mounted (as on the development VMs), a child mounts it in a mount
 * namespace of its own, reads the id and exits: the namespace goes with it. Tracepoint ids
 * are global to the kernel, so the parent can use the id; neither the parent nor the system
 * sees the mount.
 */
static int id_from_private_mount(long *id, char *why, size_t len)
{
	struct id_reply r = { .err = 0 };
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		close(pfd[0]);
		if (unshare(CLONE_NEWNS)) {
			r.err = -errno;
			snprintf(r.step, sizeof(r.step), "unshare(CLONE_NEWNS)");
		} else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			r.err = -errno;
			snprintf(r.step, sizeof(r.step), "making / private");
		} else if (mount("tracefs", tracefs_dirs[0], "tracefs", 0, NULL)) {
			r.err = -errno;
			snprintf(r.step, sizeof(r.step), "mount tracefs");
		} else if ((r.err = read_id(tracefs_dirs[0], &r.id))) {
			snprintf(r.step, sizeof(r.step), "read %s", SYS_ENTER_ID);
		}
		_exit(write(pfd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(pfd[1]);
	n = read(pfd[0], &r, sizeof(r));
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(r)) {
		r.err = -EIO;
		snprintf(r.step, sizeof(r.step), "child gave no answer");
	}
	if (r.err) {
		snprintf(why, len, "no raw_syscalls:sys_enter id under %s or %s, and a private "
			 "tracefs mount failed: %s: %s", tracefs_dirs[0], tracefs_dirs[1], r.step,
			 pbench_strerror(r.err));
		return r.err;
	}
	*id = r.id;
	return 0;
}

/* Open a counter of this thread's syscalls, disabled. Returns the fd, or -1 and *why. */
static int open_syscall_counter(char *why, size_t len, char *src, size_t srclen)
{
	struct perf_event_attr attr;
	long id = 0;
	int err = -ENOENT, fd;

	for (size_t i = 0; i < PB_ARRAY_SIZE(tracefs_dirs) && err; i++) {
		err = read_id(tracefs_dirs[i], &id);
		if (!err)
			snprintf(src, srclen, "%s", tracefs_dirs[i]);
	}
	if (err) {
		err = id_from_private_mount(&id, why, len);
		if (err)
			return -1;
		snprintf(src, srclen, "a child's private tracefs mount");
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.disabled = 1;
	fd = pb_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open raw_syscalls:sys_enter (id %ld): %s", id,
			 strerror(errno));
		return -1;
	}
	return fd;
}

/*
 * Syscalls made by ops operations of v. The ioctl that disables the counter is itself counted
 * (its sys_enter fires while the counter is still on), so an empty enable/disable pair is
 * measured as the baseline and subtracted rather than assumed to be 1.
 */
static int count_syscalls(int fd, struct variant *v, int ops, double *out)
{
	uint64_t total[2];

	for (int pass = 0; pass < 2; pass++) {
		int n = pass ? ops : 0;

		if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
		for (int i = 0; i < n; i++) {
			int err = v->op(v->c);

			if (err) {
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
				return err;
			}
		}
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
			return -errno;
		if (read(fd, &total[pass], sizeof(total[pass])) != sizeof(total[pass]))
			return -EIO;
	}
	*out = ((double)total[1] - (double)total[0]) / ops;
	return 0;
}

/* Count every variant's syscalls. Returns 0, or -1 with *why when nothing was counted. */
static int count_all(char *why, size_t len)
{
	struct variant check = { "getppid()", op_getppid, NULL };
	char src[96];
	double per;
	int fd, err;

	fd = open_syscall_counter(why, len, src, sizeof(src));
	if (fd < 0)
		return -1;
	/* The instrument first: it must see exactly the syscalls we know we make. */
	err = count_syscalls(fd, &check, SYSCALL_OPS, &per);
	if (err || per != 1.0) {
		if (err)
			snprintf(why, len, "counting getppid(): %s", pbench_strerror(err));
		else
			snprintf(why, len, "the tracepoint counter saw %.3f syscalls per getppid()",
				 per);
		close(fd);
		return -1;
	}
	printf("syscalls: raw_syscalls:sys_enter on this thread (id from %s), "
	       "check: %.3f per getppid()\n", src, per);
	for (int k = 0; k < nr_variants; k++) {
		err = count_syscalls(fd, &variants[k], SYSCALL_OPS, &variants[k].syscalls);
		if (err) {
			snprintf(why, len, "%s: %s", variants[k].name, pbench_strerror(err));
			close(fd);
			return -1;
		}
		variants[k].counted = 1;
	}
	close(fd);
	return 0;
}

/* ---- report ----------------------------------------------------------------------------- */

static void print_table(void)
{
	printf("%-40s %10s %10s %10s\n", "", "min ns", "median ns", "syscalls");
	for (int k = 0; k < nr_variants; k++) {
		struct variant *v = &variants[k];
		char sc[16] = "-";

		if (v->counted)
			snprintf(sc, sizeof(sc), "%.3f", v->syscalls);
		printf("%-40s %10.1f %10.1f %10s\n", v->name, v->sum.min, v->sum.median, sc);
	}
}

/* The syscall target is exact: any other syscall made inside pbench_counters_read (an
 * allocator growing its heap, say) is paid by the caller too, so it counts against it. */
static void print_targets(struct variant *r1, struct variant *r4, int groups4)
{
	if (!r1 || !r4) {
		printf("TARGET one syscall per group read: not measured (a set did not open)\n");
		return;
	}
	printf("TARGET 4 events in one group: %d group(s) -> %s\n", groups4,
	       groups4 == 1 ? "ok" : "NOT MET");
	if (!r1->counted || !r4->counted) {
		printf("TARGET one syscall per group read: not measured (see above)\n");
		return;
	}
	printf("TARGET one syscall per group read: 1 event %.3f, 4 events %.3f -> %s\n",
	       r1->syscalls, r4->syscalls,
	       r1->syscalls == 1.0 && r4->syscalls == 1.0 ? "ok" : "NOT MET");
}

int main(void)
{
	struct pbench_counters *c1, *c4, *cp;
	struct variant *r1 = NULL, *r4 = NULL;
	const char *no_rdpmc = NULL;
	char why[256];
	int groups4 = 0, err, ret = 0;

	printf("bench_counters: cost of a counter-group read on this thread, %d blocks x %d\n",
	       ROUNDS, BLOCK);
	for (int i = 0; i < MAX_EVENTS; i++)
		counts[i].size = sizeof(counts[i]);
	c1 = open_set(EVENTS_1);
	c4 = open_set(EVENTS_4);
	cp = open_rdpmc(&no_rdpmc);
	if (c1) {
		r1 = &variants[nr_variants];
		add_variant("read, 1 event (task-clock)", op_read, c1);
	}
	if (c4) {
		groups4 = pbench_counters_nr_groups(c4);
		r4 = &variants[nr_variants];
		add_variant("read, 4 software events", op_read, c4);
	}
	if (c1)
		add_variant("start+stop, 1 event", op_start_stop, c1);
	if (c4)
		add_variant("start+stop, 4 events", op_start_stop, c4);
	if (cp)
		add_variant("start+stop via rdpmc, instructions", op_start_stop, cp);
	if (!nr_variants)
		goto out;

	err = time_variants();
	if (err) {
		fprintf(stderr, "bench_counters: error: %s\n", pbench_strerror(err));
		ret = 1;
		goto out;
	}
	if (count_all(why, sizeof(why)))
		printf("syscalls per read: not measured (%s)\n", why);
	print_table();
	if (!cp)
		printf("rdpmc: not measured: %s\n", no_rdpmc);
	print_targets(r1, r4, groups4);
out:
	for (int k = 0; k < nr_variants; k++)
		free(variants[k].ns);
	pbench_counters_free(cp);
	pbench_counters_free(c4);
	pbench_counters_free(c1);
	return ret;
}
