/* SPDX-License-Identifier: MIT */
/*
 * Counter sets: events opened with perf_event_open in as few groups as the kernel accepts.
 *
 * Every group uses read_format GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING, so one read()
 * returns all of its events with the times needed to tell multiplexing apart. An event that
 * cannot join an existing group (another PMU, too many events) leads a new group; an event
 * that cannot be opened at all stays in the set with its status and the reason.
 *
 * Hardware events counted on the calling thread are also mapped (their perf page), so that
 * start/stop can read them in user space (mmap.c). On PMUs that describe it (arm64's
 * `rdpmc` format bit, config1:1), user access has to be asked for at open, and 64-bit
 * counters with `long` (config1:0) where the PMU has them; each event keeps why it is read
 * with read() instead, for pbench_counters_rdpmc_reason().
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "counters/counters.h"
#include "counters/counts.h"

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING)

struct snap {
	uint64_t value, enabled, running;
};

struct pb_counter {
	struct pb_event ev;
	int fd;			/* -1 when not opened */
	int group;		/* index into groups, -1 when not opened */
	uint64_t id;		/* PERF_EVENT_IOC_ID */
	int open_status;	/* OK, NOT_SUPPORTED or NO_PERMISSION */
	int error;		/* -errno of the failed open */
	int user_only;		/* kernel excluded to get past perf_event_paranoid */
	const char *reason;	/* why it did not open (pb_intern()'s), "" if it did */
	void *page;		/* mmap page of hardware events, for rdpmc */
	const char *no_rdpmc;	/* why it is never read in user space, NULL if it can be */
	int tie;		/* "{a,b}" in the list: 1 the first of a tied group, 2 the
				 * others (metrics.c: events counted in one window) */
	struct snap start, delta;
};

struct pb_group {
	int leader;		/* index of the leader counter */
	int nr;			/* events in the group */
	uint64_t *buf;		/* read() buffer: nr, ena, run, {value, id} x nr */
};

#define MAX_ANCHORS 8

struct pbench_counters {
	struct snap *read_snaps;	/* the last read (pbench_counters_read), one per event */
	int have_read;			/* read_snaps holds a read */
	pid_t pid;
	int cpu;
	unsigned flags;
	int nr;
	struct pb_counter *ctr;
	int nr_groups;
	struct pb_group *groups;
	int tie_group;		/* the group the tied events being opened join, or -1 */
	int rdpmc;		/* every opened event has a mapped page */
	int user_reads;		/* the last snapshot: 1 user space, 0 read(), -1 none yet */
	char why[320];		/* why the last snapshot took read() (the set's reason) */
	int state;		/* 0 idle, 1 started, 2 stopped */
	size_t page_size;
	int nr_anchors;		/* see open_anchors() */
	int anchor_fd[MAX_ANCHORS];
	uint32_t anchor_type[MAX_ANCHORS];
};

/* ---- parsing the list ------------------------------------------------------------------- */

/* Split "a,b,pmu/x=1,y=2/,c" on the commas that are outside a pmu/.../ spec. Returns the
 * number of names (malloc'ed copies in *names) or a negative error. */
static int split_events(const char *list, char ***names)
{
	char **v = NULL;
	int n = 0, err = 0;
	const char *p = list;

	*names = NULL;
	if (!list)
		return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "no event list (NULL)");
	for (;;) {
		const char *start = p, *end;
		int slashes = 0;
		size_t len;
		char *name, **nv;

		while (*p && (*p != ',' || (slashes & 1))) {
			if (*p == '/')
				slashes++;
			p++;
		}
		end = p;
		while (start < end && isspace((unsigned char)*start))
			start++;
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
		len = (size_t)(end - start);
		if (!len) {
			err = pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, *list ? "malformed event "
					  "list '%s': empty name between commas" :
					  "empty event list", list);
			break;
		}
		if (slashes & 1) {
			err = pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed event '%.*s': "
					  "unbalanced '/'", (int)len, start);
			break;
		}
		name = strndup(start, len);
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!name || !nv) {
			free(name);
			if (nv)
				v = nv;
			err = -ENOMEM;
			break;
		}
		v = nv;
		v[n++] = name;
		if (!*p)
			break;
		p++;
	}
	if (err) {
		for (int i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return err;
	}
	*names = v;
	return n;
}

/*
 * The braces of list (names, n of them, as split_events() made them): "{a,b}" ties a and b into
 * one group, as perf stat's -e does. perf's parser refuses a group left open, a '}' that closes
 * none, a group inside a group and an empty one; so does this, before anything opens, naming
 * the name where it went wrong (0, or -PBENCH_EBAD_EVENT_LIST).
 */
static int check_groups(const char *list, char *const *names, int n)
{
	int open = -1;	/* the name that opened the group in progress */

	for (int i = 0; i < n; i++) {
		const char *s = names[i];
		size_t len = strlen(s);
		int opens = *s == '{', closes = len > (size_t)opens && s[len - 1] == '}';

		if (opens && s[1] == '{')
			return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed event list "
					   "'%s': a group inside a group at '%s' (groups do "
					   "not nest: one '{' before a group's first event)",
					   list, s);
		if (opens && open >= 0)
			return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed event list "
					   "'%s': '%s' opens a group inside the group '%s' "
					   "opened (groups do not nest: close it with '}' "
					   "first)", list, s, names[open]);
		if (!strcmp(s, "{}") || (len == 1 && (opens || *s == '}')) ||
		    (closes && len >= 2 && s[len - 2] == '}'))
			return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed event list "
					   "'%s': '%s' %s", list, s, !strcmp(s, "{}") ?
					   "is an empty group (name its events inside the "
					   "braces)" : len == 1 ? "is a brace without an event "
					   "(put it against the event's name: '{a,b}')" :
					   "closes a group twice (one '}' after its last "
					   "event)");
		if (opens)
			open = i;
		if (closes && open < 0)
			return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed event list "
					   "'%s': the '}' of '%s' closes no group (open it with "
					   "'{' before its first event, or drop the '}')",
					   list, s);
		if (closes)
			open = -1;
	}
	if (open >= 0)
		return pb_fail_msg(-PBENCH_EBAD_EVENT_LIST, "malformed event list '%s': the "
				   "group opened at '%s' is not closed (end its last event "
				   "with '}')", list, names[open]);
	return 0;
}

static int same_event(const struct pb_event *a, const struct pb_event *b)
{
	return a->attr.type == b->attr.type && a->attr.config == b->attr.config &&
	       a->attr.config1 == b->attr.config1 && a->attr.config2 == b->attr.config2;
}

/* ---- opening ---------------------------------------------------------------------------- */

/* Events that happen in the kernel by nature: counted in user space only they read 0, which
 * would be an invented number, so they get no user-only fallback. */
static int kernel_side_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		a->config == PERF_COUNT_SW_CPU_MIGRATIONS ||
		a->config == PERF_COUNT_SW_CGROUP_SWITCHES);
}

/* Can this event be read in user space at all? NULL if so, else the reason. */
static const char *rdpmc_refusal(const struct pbench_counters *c, const struct pb_counter *ctr)
{
	struct perf_event_attr a = ctr->ev.attr;

	if (ctr->ev.kind != PBENCH_EVENT_HARDWARE && ctr->ev.kind != PBENCH_EVENT_PMU)
		return "a software event: its count is kept by the kernel";
	/* A PMU named in sysfs: only a CPU PMU with a rdpmc format field (arm64's). */
	if (ctr->ev.kind == PBENCH_EVENT_PMU && pb_pmu_user_read_bits(&a, 0) <= 0)
		return "not a CPU PMU event: no user-space read";
	if (c->flags & PBENCH_COUNTERS_NO_RDPMC)
		return "user-space reads turned off (PBENCH_COUNTERS_NO_RDPMC)";
	if (c->pid != 0)
		return "counted in another task: only the task itself can read its counters";
	if (c->flags & PBENCH_COUNTERS_INHERIT)
		return "counted with inherit: the children's counts are only in read()";
	if (!pb_arch_user_read())
		return "no user-space counter read on this architecture";
	return NULL;
}

static int open_attr(struct pbench_counters *c, struct perf_event_attr *attr, int group_fd)
{
	unsigned long f = PERF_FLAG_FD_CLOEXEC |
			  ((c->flags & PBENCH_COUNTERS_CGROUP) ? PERF_FLAG_PID_CGROUP : 0);
	int fd = pb_perf_event_open(attr, c->pid, c->cpu, group_fd, f);

	return fd >= 0 ? fd : -errno;
}

/* Open with the PMU's user-access bits when it has them: rdpmc and long first, then rdpmc
 * alone (64-bit counters exist only on some PMUs: EOPNOTSUPP elsewhere), then neither (the
 * event still counts, read with read()). */
static int open_user_read(struct pbench_counters *c, struct pb_counter *ctr,
			  struct perf_event_attr *attr, int group_fd)
{
	struct perf_event_attr a = *attr;
	int bits, fd;

	if (ctr->no_rdpmc || (bits = pb_pmu_user_read_bits(&a, 1)) <= 0)
		return open_attr(c, attr, group_fd);
	fd = open_attr(c, &a, group_fd);
	if (fd >= 0 || (fd != -EOPNOTSUPP && fd != -EINVAL))
		return fd;
	if (bits & PB_USER_READ_LONG) {
		a = *attr;
		pb_pmu_user_read_bits(&a, 0);
		fd = open_attr(c, &a, group_fd);
		if (fd >= 0 || (fd != -EOPNOTSUPP && fd != -EINVAL))
			return fd;
	}
	fd = open_attr(c, attr, group_fd);
	if (fd >= 0)
		ctr->no_rdpmc = "the PMU refused its rdpmc format bit for this event";
	return fd;
}

static int try_open(struct pbench_counters *c, struct pb_counter *ctr, int group_fd)
{
	struct perf_event_attr attr = ctr->ev.attr;
	int fd, first_err;

	attr.size = sizeof(attr);
	attr.read_format = READ_FORMAT;
	attr.inherit = !!(c->flags & PBENCH_COUNTERS_INHERIT);
	attr.enable_on_exec = !!(c->flags & PBENCH_COUNTERS_ENABLE_ON_EXEC);
	/* Members follow their leader; only a leader carries the disabled bit. */
	attr.disabled = group_fd < 0 && !(c->flags & PBENCH_COUNTERS_START_ENABLED);
	/* A disabled leader on the calling thread also gets enable_on_exec. It changes nothing
	 * here (the fds close on exec, and nothing is inherited), but the arm PMU driver's
	 * group check skips disabled events unless they are enabled on exec: without it a
	 * group of one more event than the PMU has counters opens and then never runs. */
	if (attr.disabled && c->pid == 0 && ctr->ev.kind != PBENCH_EVENT_SOFTWARE)
		attr.enable_on_exec = 1;
	if (c->flags & PBENCH_COUNTERS_USER_ONLY)
		attr.exclude_kernel = attr.exclude_hv = 1;

	ctr->user_only = 0;
	fd = open_user_read(c, ctr, &attr, group_fd);
	if (fd >= 0)
		return fd;
	first_err = fd;
	if ((fd == -EACCES || fd == -EPERM) && !attr.exclude_kernel &&
	    !kernel_side_event(&attr)) {
		/* perf_event_paranoid >= 2 forbids counting the kernel: count user space, and
		 * say so in every count of this event (user_only). */
		attr.exclude_kernel = attr.exclude_hv = 1;
		fd = open_user_read(c, ctr, &attr, group_fd);
		if (fd >= 0) {
			ctr->user_only = 1;
			return fd;
		}
		/* The kernel checks permission before it looks for a PMU: past the permission,
		 * an event that does not exist here (no hardware PMU: ENOENT) is the true cause,
		 * as perf's "<not supported>" says; permission would not help. */
		if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV)
			return fd;
	}
	/* The permission problem is the one to report, not what the fallback ran into
	 * (msr events, for one, cannot exclude the kernel at all: EINVAL). */
	return first_err;
}

static int add_group(struct pbench_counters *c, int leader)
{
	struct pb_group *g = realloc(c->groups, (size_t)(c->nr_groups + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	c->groups = g;
	g[c->nr_groups].leader = leader;
	g[c->nr_groups].nr = 0;
	g[c->nr_groups].buf = NULL;
	return c->nr_groups++;
}

static void map_page(struct pbench_counters *c, struct pb_counter *ctr)
{
	void *p;

	if (ctr->no_rdpmc)
		return;
	p = mmap(NULL, c->page_size, PROT_READ, MAP_SHARED, ctr->fd, 0);
	if (p != MAP_FAILED)
		ctr->page = p;
	else
		ctr->no_rdpmc = "its perf page could not be mapped";
}

static int open_one(struct pbench_counters *c, int i)
{
	struct pb_counter *ctr = &c->ctr[i];
	int fd = -1, g;

	ctr->no_rdpmc = rdpmc_refusal(c, ctr);
	/* Tied events ("{a,b,c}") join only their own group, which starts at the first of
	 * them; one the PMU has no counter left for starts the next group (split as perf stat
	 * splits a metric group), and the rest join that one. Untied ones join any. */
	if (ctr->tie == 1)
		c->tie_group = -1;
	if (ctr->tie == 2 && c->tie_group >= 0) {
		g = c->tie_group;
		fd = try_open(c, ctr, c->ctr[c->groups[g].leader].fd);
	} else if (!ctr->tie) {
		for (g = 0; g < c->nr_groups; g++) {
			fd = try_open(c, ctr, c->ctr[c->groups[g].leader].fd);
			if (fd >= 0 || fd == -EMFILE || fd == -ESRCH)
				break;
		}
	}
	if (fd < 0 && fd != -EMFILE && fd != -ESRCH) {
		fd = try_open(c, ctr, -1);
		if (fd >= 0) {
			g = add_group(c, i);
			if (g < 0) {
				close(fd);
				return g;
			}
			if (ctr->tie)
				c->tie_group = g;
		}
	}
	if (fd == -EMFILE || fd == -ESRCH || fd == -ENOMEM)
		return fd;
	if (fd < 0) {
		char why[192];

		ctr->error = fd;
		ctr->open_status = pb_open_status(fd);
		pb_open_reason(&ctr->ev, fd, why, sizeof(why));
		ctr->reason = pb_intern(why);
		if (!(c->flags & PBENCH_COUNTERS_QUIET))
			pb_log(PBENCH_LOG_INFO, "event '%s' not opened: %s", ctr->ev.name, why);
		return 0;
	}
	ctr->fd = fd;
	ctr->group = g;
	c->groups[g].nr++;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ctr->id) < 0)
		return -errno;
	map_page(c, ctr);
	return 0;
}

static int alloc_buffers(struct pbench_counters *c)
{
	int all_pages = 1, opened = 0;

	for (int g = 0; g < c->nr_groups; g++) {
		c->groups[g].buf = calloc(3 + 2 * (size_t)c->groups[g].nr, sizeof(uint64_t));
		if (!c->groups[g].buf)
			return -ENOMEM;
	}
	c->read_snaps = calloc((size_t)c->nr, sizeof(*c->read_snaps));
	if (!c->read_snaps)
		return -ENOMEM;
	for (int i = 0; i < c->nr; i++) {
		if (c->ctr[i].fd < 0)
			continue;
		opened++;
		if (!c->ctr[i].page)
			all_pages = 0;
	}
	c->rdpmc = opened && all_pages;
	return opened;
}

/* "{a,b}" in the list ties a, b into one group: the braces off the names, each event's tie
 * (1 first, 2 the others) into c->ctr. */
static void untie(struct pbench_counters *c, char **names)
{
	int open = 0;

	for (int i = 0; i < c->nr; i++) {
		char *s = names[i];
		size_t len;

		if (*s == '{') {
			memmove(s, s + 1, strlen(s));
			open = 1;
			c->ctr[i].tie = 1;
		} else if (open) {
			c->ctr[i].tie = 2;
		}
		len = strlen(s);
		if (len && s[len - 1] == '}') {
			s[len - 1] = 0;
			open = 0;
		}
	}
}

/* Resolve each name into c->ctr (c->nr of them), refusing the same event twice; the error
 * says which name, and suggests a known one for a typo. */
static int resolve_all(struct pbench_counters *c, char **names)
{
	/* All of them before the first error: pbench_counters_free closes every fd >= 0, and
	 * calloc's 0 would be the caller's stdin (found by tests/fuzz/fuzz_events.c). */
	for (int i = 0; i < c->nr; i++) {
		c->ctr[i].fd = -1;
		c->ctr[i].group = -1;
	}
	for (int i = 0; i < c->nr; i++) {
		int err = pb_event_resolve(names[i], &c->ctr[i].ev);

		if (err && c->ctr[i].ev.why)	/* the one line of libpfm4's, for the name asked */
			pb_log(PBENCH_LOG_DEBUG, "libpfm4: '%s': %s", names[i], c->ctr[i].ev.why);
		if (err == -PBENCH_EUNKNOWN_EVENT) {
			const char *s = pbench_event_suggest(names[i]);

			if (s)
				return pb_fail_msg(err, "unknown event '%s' (did you mean "
						   "'%s'?)", names[i], s);
			return pb_fail_msg(err, "unknown event '%s' (see 'pbench list')",
					   names[i]);
		}
		if (err)
			return pb_fail_msg(err, "event '%s' cannot be resolved: libpfm4: %s",
					   names[i], c->ctr[i].ev.why ? c->ctr[i].ev.why :
					   "failed");
		for (int j = 0; j < i; j++) {
			if (!same_event(&c->ctr[j].ev, &c->ctr[i].ev))
				continue;
			if (!strcasecmp(names[i], names[j]))
				return pb_fail_msg(-PBENCH_EDUP_EVENT, "event '%s' is listed "
						   "twice", names[i]);
			return pb_fail_msg(-PBENCH_EDUP_EVENT, "event '%s' is the same "
					   "event as '%s'", names[i], names[j]);
		}
	}
	return 0;
}

/*
 * A set inherited from the calling thread needs a non-inherited event beside it. The kernel
 * marks a child's perf context a clone of its parent's when every event of the parent was
 * inherited, and then swaps the two contexts instead of switching them when one task follows
 * the other on a CPU; events that wait for an exec get lost that way. Measured here (kernel
 * 6.18): with INHERIT|ENABLE_ON_EXEC on pbench's thread, the first two children of
 * /bin/true were counted and every one after them counted 0. With a disabled event beside the
 * set that is not inherited, no child's context is a clone: every one counted. Kernels before
 * 6.2 have a context per kind of PMU (the arm64 guest's 6.1 lost the third run's
 * instructions:u with only a software anchor): one anchor per type of event in the set, a
 * disabled copy of its first event (the dummy event for software ones).
 */
static int open_anchors(struct pbench_counters *c)
{
	for (int i = 0; i < c->nr; i++) {
		struct perf_event_attr attr = c->ctr[i].ev.attr;
		int k, fd;

		if (c->ctr[i].fd < 0)
			continue;
		for (k = 0; k < c->nr_anchors && c->anchor_type[k] != attr.type; k++)
			;
		if (k < c->nr_anchors || k == MAX_ANCHORS)
			continue;
		if (attr.type == PERF_TYPE_SOFTWARE) {
			memset(&attr, 0, sizeof(attr));
			attr.type = PERF_TYPE_SOFTWARE;
			attr.config = PERF_COUNT_SW_DUMMY;
		}
		attr.size = sizeof(attr);
		attr.disabled = 1;
		attr.inherit = 0;
		attr.enable_on_exec = 0;
		attr.read_format = 0;
		if (c->ctr[i].user_only)
			attr.exclude_kernel = attr.exclude_hv = 1;
		fd = pb_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return pb_fail(-errno, "a set inherited from this thread needs a "
				       "disabled copy of '%s' beside it, which could not "
				       "be opened: %s", c->ctr[i].ev.name,
				       strerror(errno));
		c->anchor_fd[k] = fd;
		c->anchor_type[k] = attr.type;
		c->nr_anchors++;
	}
	return 0;
}

int pbench_counters_open(struct pbench_counters **out, const char *events,
			 const struct pbench_counters_opts *opts)
{
	struct pbench_counters_opts o = PBENCH_COUNTERS_OPTS_INIT;
	struct pbench_counters *c;
	char **names = NULL;
	int n, err = 0, opened;

	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if (opts && (err = PB_CHECK_STRUCT(opts, pbench_counters_opts, 0,
					   "PBENCH_COUNTERS_OPTS_INIT")))
		return err;
	if (opts)
		pb_copy_in(&o, sizeof(o), opts);
	pb_fail_clear();
	n = split_events(events, &names);
	if (n < 0)
		return n;
	if ((err = check_groups(events, names, n)))
		goto out_names;
	c = calloc(1, sizeof(*c));
	if (!c) {
		err = -ENOMEM;
		goto out_names;
	}
	c->user_reads = -1;
	c->page_size = (size_t)sysconf(_SC_PAGESIZE);
	c->pid = o.pid;
	c->cpu = o.cpu;
	c->flags = o.flags;
	c->ctr = calloc((size_t)n, sizeof(*c->ctr));
	if (!c->ctr) {
		err = -ENOMEM;
		goto out_free;
	}
	c->nr = n;
	c->tie_group = -1;
	untie(c, names);
	err = resolve_all(c, names);
	if (err)
		goto out_free;
	for (int i = 0; i < n; i++) {
		err = open_one(c, i);
		if (err)
			goto out_free;
	}
	opened = alloc_buffers(c);
	if (opened < 0) {
		err = opened;
		goto out_free;
	}
	if (opened && (c->flags & PBENCH_COUNTERS_INHERIT) && c->pid == 0 && c->cpu == -1 &&
	    (err = open_anchors(c)))
		goto out_free;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	*out = c;
	return opened ? 0 : -PBENCH_ENO_EVENTS;

out_free:
	pbench_counters_free(c);
out_names:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

void pbench_counters_free(struct pbench_counters *c)
{
	if (!c)
		return;
	/* Members before leaders: the reverse of the order they were opened in. */
	for (int i = c->nr - 1; i >= 0; i--) {
		if (c->ctr[i].page)
			munmap(c->ctr[i].page, c->page_size);
		if (c->ctr[i].fd >= 0)
			close(c->ctr[i].fd);
	}
	for (int k = 0; k < c->nr_anchors; k++)
		close(c->anchor_fd[k]);
	for (int g = 0; g < c->nr_groups; g++)
		free(c->groups[g].buf);
	free(c->read_snaps);
	free(c->groups);
	free(c->ctr);
	free(c);
}

/* ---- queries ---------------------------------------------------------------------------- */

int pbench_counters_nr(const struct pbench_counters *c)
{
	return c->nr;
}

int pbench_counters_nr_groups(const struct pbench_counters *c)
{
	return c->nr_groups;
}

const char *pbench_counters_name(const struct pbench_counters *c, int i)
{
	return i >= 0 && i < c->nr ? c->ctr[i].ev.name : NULL;
}

int pbench_counters_open_status(const struct pbench_counters *c, int i)
{
	return i >= 0 && i < c->nr ? c->ctr[i].open_status : -EINVAL;
}

int pbench_counters_uses_rdpmc(const struct pbench_counters *c, int i)
{
	if (i < 0 || i >= c->nr || !c->rdpmc || !c->ctr[i].page)
		return 0;
	/* Before the first snapshot: whether the kernel offers it at all. */
	if (c->user_reads < 0)
		return !!((volatile struct perf_event_mmap_page *)c->ctr[i].page)->cap_user_rdpmc;
	return c->user_reads;
}

const char *pbench_counters_rdpmc_reason(const struct pbench_counters *c, int i)
{
	if (i < 0 || i >= c->nr)
		return "no such event";
	if (c->ctr[i].fd < 0)
		return "not opened";
	if (c->ctr[i].no_rdpmc)
		return c->ctr[i].no_rdpmc;
	if (pbench_counters_uses_rdpmc(c, i))
		return "";
	if (!c->rdpmc)
		return "read() with the set: another of its events cannot be read in user space";
	if (c->user_reads < 0)
		return "the kernel offers no user-space read of it (cap_user_rdpmc 0)";
	return c->why;
}

/* ---- control ---------------------------------------------------------------------------- */

static int group_ioctl(struct pbench_counters *c, unsigned long req)
{
	for (int g = 0; g < c->nr_groups; g++)
		if (ioctl(c->ctr[c->groups[g].leader].fd, req, PERF_IOC_FLAG_GROUP) < 0)
			return -errno;
	return 0;
}

int pbench_counters_enable(struct pbench_counters *c)
{
	return group_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int pbench_counters_disable(struct pbench_counters *c)
{
	return group_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

int pbench_counters_reset(struct pbench_counters *c)
{
	return group_ioctl(c, PERF_EVENT_IOC_RESET);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* One read() per group; each event's (value, enabled, running) into snaps[i]. */
static int read_groups(struct pbench_counters *c, struct snap *snaps, size_t stride)
{
	for (int g = 0; g < c->nr_groups; g++) {
		struct pb_group *grp = &c->groups[g];
		size_t len = (3 + 2 * (size_t)grp->nr) * sizeof(uint64_t);
		ssize_t n = read(c->ctr[grp->leader].fd, grp->buf, len);

		if (n < 0)
			return -errno;
		if ((size_t)n < 3 * sizeof(uint64_t) || grp->buf[0] > (uint64_t)grp->nr)
			return -EIO;
		/* The kernel returns the leader then the members in the order they joined, which
		 * is the set's order; the ids confirm it, and a mismatch falls back to a search. */
		for (uint64_t k = 0, i = (uint64_t)grp->leader; k < grp->buf[0]; k++, i++) {
			uint64_t value = grp->buf[3 + 2 * k], id = grp->buf[4 + 2 * k];
			struct snap *s;

			while (i < (uint64_t)c->nr && c->ctr[i].group != g)
				i++;
			if (i >= (uint64_t)c->nr || c->ctr[i].id != id) {
				for (i = 0; i < (uint64_t)c->nr; i++)
					if (c->ctr[i].group == g && c->ctr[i].id == id)
						break;
				if (i == (uint64_t)c->nr)
					return -EIO;
			}
			s = (struct snap *)((char *)snaps + i * stride);
			s->value = value;
			s->enabled = grp->buf[1];
			s->running = grp->buf[2];
		}
	}
	return 0;
}

void pbench_count_scale(struct pbench_count *k)
{
	/* An older caller's struct without the fields this fills is left as it is. */
	if (!k || k->size < offsetof(struct pbench_count, is_scaled) + sizeof(k->is_scaled))
		return;
	k->is_scaled = 0;
	k->scaled = (double)k->value;
	if (k->status != PBENCH_EVENT_OK && k->status != PBENCH_EVENT_MULTIPLEXED &&
	    k->status != PBENCH_EVENT_NOT_COUNTED)
		return;
	if (k->time_running == 0) {
		k->status = PBENCH_EVENT_NOT_COUNTED;
		k->reason = k->time_enabled ? "never scheduled on a counter (too many events, or "
					      "the PMU is in use)"
					    : "never enabled";
		return;
	}
	if (k->time_running < k->time_enabled) {
		k->status = PBENCH_EVENT_MULTIPLEXED;
		k->scaled = (double)k->value * ((double)k->time_enabled / (double)k->time_running);
		k->is_scaled = 1;
		k->reason = "";
		return;
	}
	k->status = PBENCH_EVENT_OK;
	k->reason = "";
}

static void fill_count(const struct pb_counter *ctr, const struct snap *s,
		       struct pbench_count *k)
{
	k->name = ctr->ev.name;
	k->error = ctr->error;
	k->user_only = ctr->user_only;
	k->value = k->time_enabled = k->time_running = 0;
	k->scaled = 0;
	k->is_scaled = 0;
	k->reason = "";
	if (ctr->fd < 0) {
		k->status = ctr->open_status;
		k->reason = ctr->reason ? ctr->reason : "";
		return;
	}
	k->status = PBENCH_EVENT_OK;
	k->value = s->value;
	k->time_enabled = s->enabled;
	k->time_running = s->running;
	pbench_count_scale(k);
}

int pb_counters_read(struct pbench_counters *c, struct pbench_count *counts, int n)
{
	int err = pbench_counters_read(c);

	if (err < 0)
		return err;
	for (int i = 0; i < n && i < c->nr; i++) {
		counts[i].size = sizeof(counts[i]);
		fill_count(&c->ctr[i], &c->read_snaps[i], &counts[i]);
	}
	return n < c->nr ? n : c->nr;
}

int pbench_counters_read(struct pbench_counters *c)
{
	int err;

	if (!c)
		return pb_fail(-EINVAL, "%s(): c is NULL", __func__);
	err = read_groups(c, c->read_snaps, sizeof(*c->read_snaps));
	if (err)
		return err;
	c->have_read = 1;
	return c->nr;
}

/* The door of the getters: c set, i an event of it, out a struct pbench_count of any size. */
static int check_get(const struct pbench_counters *c, int i, struct pbench_count *out,
		     const char *fn)
{
	int err;

	if (!c)
		return pb_fail(-EINVAL, "%s(): c is NULL", fn);
	if ((err = pb_check_struct(fn, "out", "pbench_count", out, 0, NULL)))
		return err;
	if (i < 0 || i >= c->nr)
		return pb_fail(-EINVAL, "%s(): i is %d, not an event of the set (0 to %d)", fn, i,
			       c->nr - 1);
	return 0;
}

int pbench_counters_get(const struct pbench_counters *c, int i, struct pbench_count *out)
{
	struct pbench_count k = { .size = sizeof(k) };
	int err = check_get(c, i, out, __func__);

	if (err)
		return err;
	if (!c->have_read)
		return pb_fail(-EAGAIN, "%s(): nothing read yet (pbench_counters_read() first)",
			       __func__);
	fill_count(&c->ctr[i], &c->read_snaps[i], &k);
	pb_copy_out(out, &k, sizeof(k));
	return 0;
}

/* Snapshot of every opened event into snap at byte offset `field` of each counter: user space
 * when every page allows it, else one read() per group. */
/* Why the page of ctr could not be read in user space just now, into c->why. */
static void explain_page(struct pbench_counters *c, const struct pb_counter *ctr)
{
	const volatile struct perf_event_mmap_page *pc = ctr->page;
	long access = -1;

	if (!pc->cap_user_rdpmc) {
		snprintf(c->why, sizeof(c->why), "the kernel offers no user-space read of '%s' "
			 "(cap_user_rdpmc 0; on x86: /sys/bus/event_source/devices/cpu/rdpmc is "
			 "0)", ctr->ev.name);
		return;
	}
	if (!pb_read_long("/proc/sys/kernel/perf_user_access", &access) && access == 0) {
		snprintf(c->why, sizeof(c->why), "kernel.perf_user_access is 0 (the page offers "
			 "no counter index; fix: sysctl -w kernel.perf_user_access=1)");
		return;
	}
	snprintf(c->why, sizeof(c->why), "'%s' was not on a counter when read (index 0: "
		 "multiplexed, or the PMU is in use)", ctr->ev.name);
}

/* Snapshot of every opened event into snap at byte offset `field` of each counter: user space
 * when every page allows it, else one read() per group. */
static int snapshot(struct pbench_counters *c, size_t field)
{
	if (c->rdpmc) {
		int i;

		for (i = 0; i < c->nr; i++) {
			struct pb_counter *ctr = &c->ctr[i];
			struct pb_page_read r;
			struct snap *s = (struct snap *)((char *)ctr + field);

			if (ctr->fd < 0)
				continue;
			if (pb_page_read(ctr->page, pb_rdpmc, pb_rdtsc, &r))
				break;	/* not on a counter right now: take the syscall path */
			s->value = r.value;
			s->enabled = r.enabled;
			s->running = r.running;
		}
		if (i == c->nr) {
			c->user_reads = 1;
			return 0;
		}
		/* Outside the timed part's hot path: only when falling back. */
		if (c->user_reads != 0)
			explain_page(c, &c->ctr[i]);
		c->user_reads = 0;
	}
	return read_groups(c, (struct snap *)((char *)c->ctr + field), sizeof(*c->ctr));
}

int pbench_counters_start(struct pbench_counters *c)
{
	int err;

	if (c->state == 1)
		return -PBENCH_EBUSY_REGION;
	err = snapshot(c, offsetof(struct pb_counter, start));
	if (err)
		return err;
	c->state = 1;
	return 0;
}

int pbench_counters_stop(struct pbench_counters *c)
{
	int err;

	if (c->state != 1)
		return -PBENCH_EBUSY_REGION;
	err = snapshot(c, offsetof(struct pb_counter, delta));
	if (err)
		return err;
	for (int i = 0; i < c->nr; i++) {
		struct pb_counter *ctr = &c->ctr[i];

		ctr->delta.value -= ctr->start.value;
		ctr->delta.enabled -= ctr->start.enabled;
		ctr->delta.running -= ctr->start.running;
	}
	c->state = 2;
	return 0;
}

int pb_counters_so_far(struct pbench_counters *c, struct pbench_count *counts, int n)
{
	int err;

	if (c->state != 1)
		return -PBENCH_EBUSY_REGION;
	/* read(), as the start of a set with inherit was taken (rdpmc_refusal()) */
	err = read_groups(c, c->read_snaps, sizeof(*c->read_snaps));
	if (err)
		return err;
	for (int i = 0; i < n && i < c->nr; i++) {
		const struct pb_counter *ctr = &c->ctr[i];
		struct snap s = c->read_snaps[i];

		s.value -= ctr->start.value;
		s.enabled -= ctr->start.enabled;
		s.running -= ctr->start.running;
		counts[i].size = sizeof(counts[i]);
		fill_count(ctr, &s, &counts[i]);
	}
	return n < c->nr ? n : c->nr;
}

int pb_counters_delta(const struct pbench_counters *c, struct pbench_count *counts, int n)
{
	if (c->state != 2)
		return -PBENCH_EBUSY_REGION;
	for (int i = 0; i < n && i < c->nr; i++) {
		counts[i].size = sizeof(counts[i]);
		fill_count(&c->ctr[i], &c->ctr[i].delta, &counts[i]);
	}
	return n < c->nr ? n : c->nr;
}

int pbench_counters_delta(const struct pbench_counters *c, int i, struct pbench_count *out)
{
	struct pbench_count k = { .size = sizeof(k) };
	int err = check_get(c, i, out, __func__);

	if (err)
		return err;
	if (c->state != 2)
		return -PBENCH_EBUSY_REGION;
	fill_count(&c->ctr[i], &c->ctr[i].delta, &k);
	pb_copy_out(out, &k, sizeof(k));
	return 0;
}
