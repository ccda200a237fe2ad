/* SPDX-License-Identifier: MIT */
/*
 * Counting what pbench did not start (issue 39): one counter set (counters.c) per row of a
 * target, as perf stat's -p, -t, -a, -C and -G open them: a row per thread of the processes
 * given (their children from then on inherited), per thread given, per CPU (everything that
 * runs there), or per online CPU for a cgroup v2's tasks (PERF_FLAG_PID_CGROUP). Nothing is
 * stopped or traced: the counters are opened on the running tasks. pbench_target_check() says
 * before anything opens what would refuse it (no such process, a zombie, another user's, the
 * perf_event_paranoid setting), in one sentence naming the setting to change.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "counters/counters.h"

#define MAX_TARGETS 1024

struct row {
	struct pbench_counters *c;
	int cpu;
	pid_t pid, tid;
	const char *comm;		/* pb_intern()'s */
	int core, socket, node, die;
};

struct pbench_target {
	int kind;
	int nr_rows;
	struct row *rows;
	pid_t pids[MAX_TARGETS];	/* PIDS/TIDS: the ones given */
	int nr_pids;
	int cgroup_fd;
};

/* ---- what the options name --------------------------------------------------------------- */

/* "1,2,3" to pids; -EINVAL said with the word that is not a pid. */
static int parse_pids(const char *list, pid_t *pids, int max)
{
	const char *p = list;
	int n = 0;

	if (!list || !*list)
		return pb_fail_msg(-EINVAL, "no PID given: -p PID[,PID...]");
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > 0x7fffffffL || (*end && *end != ','))
			return pb_fail_msg(-EINVAL, "'%s' is not a list of PIDs (PID[,PID...], "
					   "each a number above 0)", list);
		if (n == max)
			return pb_fail_msg(-ERANGE, "more than %d PIDs in '%s'", max, list);
		pids[n++] = (pid_t)v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return pb_fail_msg(-EINVAL, "'%s' ends with a comma", list);
	}
	return n;
}

/* The state letter of /proc/PID/stat (R, S, Z...), its owner's uid in *uid; -ESRCH when
 * there is no such process. */
static int task_state(pid_t pid, uid_t *uid)
{
	char path[64], buf[512], *rp;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pb_read_file(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	rp = strrchr(buf, ')');
	if (!rp || rp[1] != ' ' || !rp[2])
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (uid && pb_path(buf, sizeof(buf), path) == 0 && stat(buf, &st) == 0)
		*uid = st.st_uid;
	return (unsigned char)rp[2];
}

static const char *task_comm(pid_t pid, pid_t tid)
{
	char path[96], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (pb_read_file(path, buf, sizeof(buf)) < 0)
		return "";
	return pb_intern(buf);
}

static long paranoid(void)
{
	long v = 2;

	pb_read_long("/proc/sys/kernel/perf_event_paranoid", &v);
	return v;
}

/* Where cgroup v2 is mounted (/proc/mounts' first cgroup2 line), else /sys/fs/cgroup. */
static void cgroup2_root(char *buf, size_t len)
{
	FILE *f = pb_fopen("/proc/mounts");
	char line[1024], dev[256], dir[768], type[64];

	snprintf(buf, len, "/sys/fs/cgroup");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %767s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			break;
		}
	if (f)
		fclose(f);
}

/* The cgroup's directory: an absolute path, or one under cgroup v2's mount (perf's -G). */
static int cgroup_open(const char *name)
{
	char path[4096], root[1024];
	int fd;

	if (!name || !*name)
		return pb_fail_msg(-EINVAL, "no cgroup given: -G NAME (a cgroup v2 directory)");
	cgroup2_root(root, sizeof(root));
	if (name[0] == '/' && !access(name, F_OK))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", root, name + (name[0] == '/'));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pb_fail_msg(-errno, "cgroup '%s': %s: %s (a cgroup v2 directory: its path "
				   "under %s, or absolute)", name, path, strerror(errno), root);
	return fd;
}

/* The CPUs list names ("" or NULL: every online CPU) into set; their count or an error. */
static int target_cpus(const char *list, unsigned char *set)
{
	unsigned char online[PB_MAX_CPUS / 8] = { 0 };
	char buf[4096];
	int n;

	if (pb_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    pb_cpulist_to_set(buf, online) <= 0)
		return pb_fail_msg(-EIO, "cannot read the online CPUs "
				   "(/sys/devices/system/cpu/online)");
	if (!list || !*list) {
		memcpy(set, online, sizeof(online));
		return pb_cpuset_count(set);
	}
	n = pb_cpulist_to_set(list, set);
	if (n <= 0)
		return pb_fail_msg(-EINVAL, "'%s' is not a CPU list (such as 0-3,6)", list);
	for (int c = 0; c < PB_MAX_CPUS; c++)
		if (pb_cpu_in(set, c) && !pb_cpu_in(online, c))
			return pb_fail_msg(-EINVAL, "CPU %d of '%s' is not online (online: %s)",
					   c, list, buf);
	return n;
}

/* ---- the check before anything opens ---------------------------------------------------- */

/* A software event on pid/cpu, opened and closed: the kernel's own answer to "may I". */
static int try_access(pid_t pid, int cpu, unsigned long flags)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1,
				     .exclude_kernel = 1, .exclude_hv = 1 };
	int fd = pb_perf_event_open(&a, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int check_task(int kind, pid_t pid)
{
	const char *what = kind == PBENCH_TARGET_TIDS ? "thread" : "process";
	uid_t uid = (uid_t)-1;
	int st = task_state(pid, &uid), err;
	long yama = 0;

	if (st == -ESRCH)
		return pb_fail_msg(-ESRCH, "no %s %d (it does not exist, or has ended)", what,
				   (int)pid);
	if (st == 'Z' || st == 'X')
		return pb_fail_msg(-ESRCH, "%s %d is a zombie (it has exited; its parent has not "
				   "reaped it): there is nothing left to count", what, (int)pid);
	err = try_access(pid, -1, 0);
	pb_read_long("/proc/sys/kernel/yama/ptrace_scope", &yama);
	if ((err == -EACCES || err == -EPERM) && uid != geteuid())
		return pb_fail_msg(err, "%s %d belongs to uid %d, not to you (uid %d): run pbench as "
				   "that user, or as root (CAP_PERFMON and CAP_SYS_PTRACE)", what,
				   (int)pid, (int)uid, (int)geteuid());
	if ((err == -EACCES || err == -EPERM) && yama > 0)
		return pb_fail_msg(err, "no permission to count %s %d: kernel.yama.ptrace_scope is "
				   "%ld; sysctl -w kernel.yama.ptrace_scope=0, or run as root",
				   what, (int)pid, yama);
	if (err == -EACCES || err == -EPERM)
		return pb_fail_msg(err, "no permission to count %s %d: kernel.perf_event_paranoid "
				   "is %ld; sysctl -w kernel.perf_event_paranoid=2 (or lower), or run "
				   "as root", what, (int)pid, paranoid());
	if (err == -ESRCH)
		return pb_fail_msg(-ESRCH, "no %s %d (it ended while being checked)", what,
				   (int)pid);
	if (err)
		return pb_fail_msg(err, "cannot count %s %d: %s", what, (int)pid, strerror(-err));
	return 0;
}

static int check_cpu_wide(const char *what, pid_t pid, int cpu, unsigned long flags)
{
	int err = try_access(pid, cpu, flags);

	if (err == -EACCES || err == -EPERM)
		return pb_fail_msg(err, "counting %s needs kernel.perf_event_paranoid at 0 or "
				   "below for a user without CAP_PERFMON (it is %ld): "
				   "sysctl -w kernel.perf_event_paranoid=0, or run as root",
				   what, paranoid());
	if (err)
		return pb_fail_msg(err, "cannot count %s on CPU %d: %s", what, cpu,
				   strerror(-err));
	return 0;
}

static int first_cpu(const unsigned char *set)
{
	for (int c = 0; c < PB_MAX_CPUS; c++)
		if (pb_cpu_in(set, c))
			return c;
	return -1;
}

int pbench_target_check(const struct pbench_target_opts *opts)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	unsigned char set[PB_MAX_CPUS / 8] = { 0 };
	pid_t pids[MAX_TARGETS];
	int n, err, fd;

	if (!opts)
		return pb_fail(-EINVAL, "%s(): opts is NULL", __func__);
	if ((err = PB_CHECK_STRUCT(opts, pbench_target_opts, 0, "PBENCH_TARGET_OPTS_INIT")))
		return err;
	pb_copy_in(&o, sizeof(o), opts);
	switch (o.kind) {
	case PBENCH_TARGET_PIDS:
	case PBENCH_TARGET_TIDS:
		n = parse_pids(o.list, pids, MAX_TARGETS);
		for (int i = 0; i < n; i++)
			if ((err = check_task(o.kind, pids[i])))
				return err;
		return n < 0 ? n : 0;
	case PBENCH_TARGET_CPUS:
		n = target_cpus(o.list, set);
		return n < 0 ? n : check_cpu_wide(o.list && *o.list ? "CPUs (-C)" :
						  "the whole machine (-a)", -1, first_cpu(set), 0);
	case PBENCH_TARGET_CGROUP:
		if ((n = target_cpus(NULL, set)) < 0)
			return n;
		if ((fd = cgroup_open(o.list)) < 0)
			return fd;
		err = check_cpu_wide("a cgroup (-G)", fd, first_cpu(set), PERF_FLAG_PID_CGROUP);
		close(fd);
		return err;
	}
	return pb_fail(-EINVAL, "%s(): opts->kind is %d (enum pbench_target_kind)", __func__,
		       o.kind);
}

/* ---- opening ----------------------------------------------------------------------------- */

static int add_row(struct pbench_target *t, const char *events, pid_t pid, int cpu,
		   unsigned flags, struct row *info)
{
	struct pbench_counters_opts co = PBENCH_COUNTERS_OPTS_INIT;
	struct row *r = realloc(t->rows, (size_t)(t->nr_rows + 1) * sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	t->rows = r;
	co.pid = pid;
	co.cpu = cpu;
	co.flags = flags | PBENCH_COUNTERS_QUIET;
	err = pbench_counters_open(&info->c, events, &co);
	if (err && err != -PBENCH_ENO_EVENTS) {
		pbench_counters_free(info->c);
		return err;
	}
	r[t->nr_rows++] = *info;
	return 0;
}

/* The CPU's core, socket and NUMA node (-1 when /sys does not say). */
static void cpu_topology(struct row *r)
{
	char path[128], buf[64];
	long v;

	r->core = r->socket = r->node = r->die = -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/die_id", r->cpu);
	if (!pb_read_long(path, &v))
		r->die = (int)v;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_id", r->cpu);
	if (!pb_read_long(path, &v))
		r->core = (int)v;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
		 r->cpu);
	if (!pb_read_long(path, &v))
		r->socket = (int)v;
	for (int n = 0; n < 1024; n++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", n);
		if (pb_read_file(path, buf, sizeof(buf)) < 0) {
			if (n > 64)
				break;
			continue;
		}
		unsigned char set[PB_MAX_CPUS / 8] = { 0 };

		if (pb_cpulist_to_set(buf, set) > 0 && pb_cpu_in(set, r->cpu)) {
			r->node = n;
			break;
		}
	}
}

static int open_cpus(struct pbench_target *t, const char *events, const struct pbench_target_opts *o)
{
	unsigned char set[PB_MAX_CPUS / 8] = { 0 };
	int n = target_cpus(o->kind == PBENCH_TARGET_CGROUP ? NULL : o->list, set), err;
	unsigned flags = o->counter_flags;
	pid_t pid = -1;

	if (n < 0)
		return n;
	if (o->kind == PBENCH_TARGET_CGROUP) {
		if ((t->cgroup_fd = cgroup_open(o->list)) < 0)
			return t->cgroup_fd;
		pid = t->cgroup_fd;
		flags |= PBENCH_COUNTERS_CGROUP;
	}
	for (int c = 0; c < PB_MAX_CPUS; c++) {
		struct row r = { .cpu = c, .pid = -1, .tid = -1, .comm = "" };

		if (!pb_cpu_in(set, c))
			continue;
		cpu_topology(&r);
		if ((err = add_row(t, events, pid, c, flags, &r)))
			return err;
	}
	return 0;
}

/* Every thread of process pid (PIDS), or the thread pid (TIDS); a thread that ended between
 * the listing and its open is left out. */
static int open_task(struct pbench_target *t, const char *events, pid_t pid, unsigned flags,
		     int whole)
{
	char path[64], dir[4096];
	struct dirent *de;
	DIR *d;
	int err = 0, before = t->nr_rows;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!whole || pb_path(dir, sizeof(dir), path) || !(d = opendir(dir))) {
		struct row r = { .cpu = -1, .pid = pid, .tid = pid, .core = -1, .socket = -1,
				 .node = -1, .die = -1,
				 .comm = task_comm(pid, pid) };

		return add_row(t, events, pid, -1, flags, &r);
	}
	while (!err && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct row r = { .cpu = -1, .pid = pid, .tid = tid, .core = -1, .socket = -1,
				 .node = -1, .die = -1 };

		if (tid <= 0)
			continue;
		r.comm = task_comm(pid, tid);
		err = add_row(t, events, tid, -1, flags, &r);
		if (err == -ESRCH)
			err = 0;
	}
	closedir(d);
	if (!err && t->nr_rows == before)
		return pb_fail_msg(-ESRCH, "process %d ended before it could be counted", (int)pid);
	return err;
}

int pbench_target_new(struct pbench_target **out, const char *events,
		       const struct pbench_target_opts *opts)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	struct pbench_target *t;
	int err = 0;

	if (!out || !opts)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, out ? "opts" : "out");
	*out = NULL;
	if ((err = pbench_target_check(opts)))
		return err;
	pb_copy_in(&o, sizeof(o), opts);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->kind = o.kind;
	t->cgroup_fd = -1;
	if (o.kind == PBENCH_TARGET_CPUS || o.kind == PBENCH_TARGET_CGROUP) {
		err = open_cpus(t, events, &o);
	} else {
		t->nr_pids = parse_pids(o.list, t->pids, MAX_TARGETS);
		for (int i = 0; !err && i < t->nr_pids; i++)
			err = open_task(t, events, t->pids[i],
					o.counter_flags | (o.kind == PBENCH_TARGET_PIDS ?
							   PBENCH_COUNTERS_INHERIT : 0),
					o.kind == PBENCH_TARGET_PIDS);
	}
	if (err) {
		pbench_target_free(t);
		return err;
	}
	*out = t;
	return 0;
}

void pbench_target_free(struct pbench_target *t)
{
	if (!t)
		return;
	for (int r = 0; r < t->nr_rows; r++)
		pbench_counters_free(t->rows[r].c);
	if (t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	free(t->rows);
	free(t);
}

/* ---- counting and reading ---------------------------------------------------------------- */

static int each(struct pbench_target *t, int (*fn)(struct pbench_counters *))
{
	int err, first = 0;

	if (!t)
		return pb_fail(-EINVAL, "target is NULL");
	for (int r = 0; r < t->nr_rows; r++)
		if ((err = fn(t->rows[r].c)) < 0 && err != -ESRCH && !first)
			first = err;
	return first;
}

int pbench_target_enable(struct pbench_target *t)
{
	return each(t, pbench_counters_enable);
}

int pbench_target_disable(struct pbench_target *t)
{
	return each(t, pbench_counters_disable);
}

int pbench_target_reset(struct pbench_target *t)
{
	return each(t, pbench_counters_reset);
}

int pbench_target_read(struct pbench_target *t)
{
	return each(t, pbench_counters_read);
}

int pbench_target_nr_rows(const struct pbench_target *t)
{
	return t ? t->nr_rows : -EINVAL;
}

int pbench_target_nr_events(const struct pbench_target *t)
{
	return t && t->nr_rows ? pbench_counters_nr(t->rows[0].c) : -EINVAL;
}

const char *pbench_target_name(const struct pbench_target *t, int i)
{
	return t && t->nr_rows ? pbench_counters_name(t->rows[0].c, i) : NULL;
}

int pbench_target_row(const struct pbench_target *t, int r, struct pbench_target_row *out)
{
	struct pbench_target_row row = { .size = sizeof(row) };
	int err;

	if (!t || r < 0 || r >= t->nr_rows)
		return pb_fail(-EINVAL, "%s(): no row %d", __func__, r);
	if ((err = PB_CHECK_STRUCT(out, pbench_target_row, 0, "{ .size = sizeof(...) }")))
		return err;
	row.cpu = t->rows[r].cpu;
	row.pid = t->rows[r].pid;
	row.tid = t->rows[r].tid;
	row.comm = t->rows[r].comm;
	row.core = t->rows[r].core;
	row.socket = t->rows[r].socket;
	row.node = t->rows[r].node;
	row.die = t->rows[r].die;
	pb_copy_out(out, &row, sizeof(row));
	return 0;
}

int pbench_target_get(const struct pbench_target *t, int r, int i, struct pbench_count *out)
{
	if (!t || r < 0 || r >= t->nr_rows)
		return pb_fail(-EINVAL, "%s(): no row %d", __func__, r);
	return pbench_counters_get(t->rows[r].c, i, out);
}

int pbench_target_alive(const struct pbench_target *t)
{
	int n = 0;

	if (!t)
		return -EINVAL;
	if (t->kind == PBENCH_TARGET_CPUS || t->kind == PBENCH_TARGET_CGROUP)
		return 1;
	for (int i = 0; i < t->nr_pids; i++) {
		int st = task_state(t->pids[i], NULL);

		n += st > 0 && st != 'Z' && st != 'X';
	}
	return n;
}
