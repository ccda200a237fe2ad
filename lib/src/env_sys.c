/* SPDX-License-Identifier: MIT */
/*
 * Checks: memory (THP, KSM, swap, NUMA placement, ASLR, the limits and capabilities prepared
 * mode needs), timer (clocksource, invariant TSC), counters (perf_event_paranoid, rdpmc, is
 * there a PMU, sample rate) and virtualization (hypervisor, steal time).
 *
 * Every fact comes from a file through the root mapping, so a recorded tree gives the answers
 * of its machine; syscalls and CPUID only add to a finding when ctx->live is set.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/mempolicy.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PB_X86 1
#endif

#include "env.h"

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6	/* Linux 6.9; older uapi headers lack it */
#endif

/* CapEff bits (include/uapi/linux/capability.h). */
#define CAP_BIT_IPC_LOCK 14
#define CAP_BIT_SYS_ADMIN 21
#define CAP_BIT_SYS_NICE 23
#define CAP_BIT_PERFMON 38

#define NODE_DIR "/sys/devices/system/node"
#define CS_DIR "/sys/devices/system/clocksource/clocksource0"
#define PMU_DIR "/sys/bus/event_source/devices"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* ---- helpers ---------------------------------------------------------------------------- */

/* A finding with its value; NULL (nothing to fill) when out of memory. */
static __attribute__((format(printf, 5, 6))) struct pbench_check *
report(struct pb_env_ctx *ctx, const char *id, int cpu, int status, const char *fmt, ...)
{
	struct pbench_check *c = pb_check(ctx, id, cpu, status);
	va_list ap;

	if (!c)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(c->value, sizeof(c->value), fmt, ap);
	va_end(ap);
	return c;
}

/* A file that could not be read, or that holds what its kernel never prints. */
static void unknown(struct pb_env_ctx *ctx, const char *id, int cpu, const char *path, int err)
{
	if (err == -EINVAL || err == -ERANGE || err == -EBADMSG)
		report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, "unexpected content in %s", path);
	else
		pb_check_unknown(ctx, id, cpu, path, err);
}

/* A kernel object name (clocksource, hypervisor type): letters, digits, '_' and '-'. */
static int is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static void advise(struct pbench_check *c, const char *expected, const char *why,
		   const char *fix)
{
	if (c && expected)
		pb_check_set(c, c->expected, "%s", expected);
	if (c && why)
		pb_check_set(c, c->why, "%s", why);
	if (c && fix)
		pb_check_set(c, c->fix, "%s", fix);
}

/* The word in brackets of a sysfs choice file ("always [madvise] never"). */
static int bracketed(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (!b || b == a + 1 || (size_t)(b - a) > len)
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

static void kib_text(unsigned long long kib, char *buf, size_t len)
{
	if (kib >= 10ULL << 20)
		snprintf(buf, len, "%.0f GiB", kib / 1048576.0);
	else if (kib >= 1ULL << 10)
		snprintf(buf, len, "%.0f MiB", kib / 1024.0);
	else
		snprintf(buf, len, "%llu KiB", kib);
}

/*
 * The flags line of cpu's block in /proc/cpuinfo (cpu -1: the first block). Returns 1 with the
 * flags, 0 when the block has none (not x86), -ENOENT for no such CPU, -errno if unreadable.
 */
static int cpuinfo_flags(int cpu, char *flags, size_t len)
{
	FILE *f = pb_fopen("/proc/cpuinfo");
	char *line = NULL, *colon;
	size_t cap = 0;
	int in = 0, found = -ENOENT, n;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "processor", 9)) {
			if (in)
				break;	/* the next CPU: ours had no flags line */
			in = cpu < 0 || (sscanf(colon + 1, "%d", &n) == 1 && n == cpu);
			found = in ? 0 : found;
		} else if (in && !strncmp(line, "flags", 5)) {
			snprintf(flags, len, "%s", colon + 1 + (colon[1] == ' '));
			flags[strcspn(flags, "\n")] = '\0';
			found = 1;
			break;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* What /proc/self/status says about this process's privileges. */
struct self_status {
	int have_uid, have_cap;
	long euid;
	uint64_t capeff;
	char mems[128];		/* Mems_allowed_list, "" if absent */
};

static void read_self_status(struct self_status *s)
{
	FILE *f = pb_fopen("/proc/self/status");
	char line[512];
	long r;

	memset(s, 0, sizeof(*s));
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %ld %ld", &r, &s->euid) == 2)
			s->have_uid = 1;
		else if (sscanf(line, "CapEff: %" SCNx64, &s->capeff) == 1)
			s->have_cap = 1;
		else if (!strncmp(line, "Mems_allowed_list:", 18))
			sscanf(line + 18, " %127s", s->mems);
	}
	if (f)
		fclose(f);
}

/* 1: the capability is effective (or root, when CapEff is not known), 0: not, -1: unknown. */
static int has_cap(const struct self_status *s, int bit)
{
	if (s->have_cap)
		return (int)((s->capeff >> bit) & 1);
	return s->have_uid && s->euid == 0 ? 1 : -1;
}

static int parse_limit(const char *s, long long *v)
{
	char *end;

	if (!strcmp(s, "unlimited")) {
		*v = -1;
		return 0;
	}
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end || end == s || *v < 0 ? -EINVAL : 0;
}

/* One line of /proc/self/limits: soft and hard, -1 for unlimited; -EBADMSG: no such line. */
static int read_limit(const char *name, long long *soft, long long *hard)
{
	FILE *f = pb_fopen("/proc/self/limits");
	char line[256], s[32], h[32];
	size_t n = strlen(name);
	int err = -EBADMSG;

	if (!f)
		return -errno;
	while (err == -EBADMSG && fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n) || line[n] != ' ')
			continue;
		err = sscanf(line + n, "%31s %31s", s, h) == 2 && !parse_limit(s, soft) &&
		      !parse_limit(h, hard) ? 0 : -EINVAL;
	}
	fclose(f);
	return err;
}

static void limit_text(long long v, int bytes, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "unlimited");
	else if (bytes)
		kib_text((unsigned long long)v / 1024, buf, len);
	else
		snprintf(buf, len, "%lld", v);
}

/* ---- memory ----------------------------------------------------------------------------- */

static void check_thp(struct pb_env_ctx *ctx)
{
	char buf[256], en[32], df[32] = "?";
	struct pbench_check *c;
	int err = pb_read_file(THP_DIR "/enabled", buf, sizeof(buf));

	if (err == -ENOENT) {
		report(ctx, "mem.thp", -1, PBENCH_CHECK_INFO, "no " THP_DIR ": this kernel has no "
		       "transparent huge pages");
		return;
	}
	if (err < 0 || bracketed(buf, en, sizeof(en))) {
		unknown(ctx, "mem.thp", -1, THP_DIR "/enabled", err < 0 ? err : -EINVAL);
		return;
	}
	if (pb_read_file(THP_DIR "/defrag", buf, sizeof(buf)) >= 0)
		bracketed(buf, df, sizeof(df));
	if (!strcmp(en, "always")) {
		c = report(ctx, "mem.thp", -1, PBENCH_CHECK_WARN, "enabled=always defrag=%s", df);
		advise(c, "enabled=madvise or never",
		       "any large anonymous mapping may get 2 MiB pages: a huge-page fault zeroes "
		       "2 MiB at once (tens of us instead of ~1 us), khugepaged collapses pages in "
		       "the background, and whether a run gets huge pages (fewer TLB misses) "
		       "changes from run to run",
		       "echo madvise | sudo tee " THP_DIR "/enabled");
	} else if (!strcmp(df, "always") && strcmp(en, "never")) {
		c = report(ctx, "mem.thp", -1, PBENCH_CHECK_INFO, "enabled=%s defrag=always", en);
		advise(c, "defrag=madvise", "a huge-page fault in a madvise()d region stalls on "
		       "direct compaction (up to ms) when no 2 MiB page is free",
		       "echo madvise | sudo tee " THP_DIR "/defrag");
	} else {
		report(ctx, "mem.thp", -1, PBENCH_CHECK_OK, "enabled=%s defrag=%s", en, df);
	}
}

static void check_ksm(struct pb_env_ctx *ctx)
{
	struct pbench_check *c;
	long run;
	int err = pb_read_long("/sys/kernel/mm/ksm/run", &run);

	if (err == -ENOENT) {
		report(ctx, "mem.ksm", -1, PBENCH_CHECK_INFO, "no /sys/kernel/mm/ksm: this kernel "
		       "has no KSM");
	} else if (err || run < 0 || run > 2) {
		unknown(ctx, "mem.ksm", -1, "/sys/kernel/mm/ksm/run", err ? err : -EINVAL);
	} else if (run == 1) {
		c = report(ctx, "mem.ksm", -1, PBENCH_CHECK_WARN, "run=1 (ksmd merging pages)");
		advise(c, "0", "ksmd scans memory on some CPU and merges identical pages; a write "
		       "to a merged page takes a copy-on-write fault inside the timed region",
		       "echo 0 | sudo tee /sys/kernel/mm/ksm/run");
	} else {
		report(ctx, "mem.ksm", -1, PBENCH_CHECK_OK, "run=%ld (%s)", run,
		       run ? "stopped, pages unmerged" : "off");
	}
}

static void check_swap(struct pb_env_ctx *ctx)
{
	FILE *f = pb_fopen("/proc/swaps");
	unsigned long long size = 0, used = 0, s, u;
	char line[512], sz[32], us[32], swp[32] = "?";
	struct pbench_check *c;
	long swappiness;
	int n = 0, bad;

	if (!f) {
		unknown(ctx, "mem.swap", -1, "/proc/swaps", -errno);
		return;
	}
	bad = !fgets(line, sizeof(line), f) || strncmp(line, "Filename", 8);
	while (!bad && fgets(line, sizeof(line), f)) {
		bad = sscanf(line, "%*s %*s %llu %llu", &s, &u) != 2;
		if (bad)
			break;
		size += s;
		used += u;
		n++;
	}
	fclose(f);
	if (bad) {
		unknown(ctx, "mem.swap", -1, "/proc/swaps", -EINVAL);
		return;
	}
	if (!pb_read_long("/proc/sys/vm/swappiness", &swappiness))
		snprintf(swp, sizeof(swp), "%ld", swappiness);
	if (!n) {
		report(ctx, "mem.swap", -1, PBENCH_CHECK_OK, "no swap (swappiness %s)", swp);
		return;
	}
	kib_text(size, sz, sizeof(sz));
	kib_text(used, us, sizeof(us));
	c = report(ctx, "mem.swap", -1, used ? PBENCH_CHECK_WARN : PBENCH_CHECK_INFO,
		   "%d swap area%s, %s, %s used, swappiness %s", n, n > 1 ? "s" : "", sz, us, swp);
	advise(c, "no swap", "the kernel may page out the benchmark's memory; touching it again "
	       "is a major fault (~10-100 us from an SSD, ms from a disk) inside a timed region",
	       "sudo swapoff -a (until reboot; or sudo sysctl -w vm.swappiness=1 to keep swap as "
	       "a last resort)");
}

/* Node of cpu (from nodeN/cpulist), and its memory in KiB; -ENOENT if no node lists it. */
static int node_of_cpu(const unsigned char *nodes, int cpu, unsigned long long *total,
		       unsigned long long *free_kib)
{
	unsigned char set[PB_MAX_CPUS / 8];
	char path[96], line[256];
	int node = -ENOENT, got = 0, n;
	FILE *f;

	for (n = 0; n < PB_MAX_CPUS && node < 0; n++) {
		snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", n);
		if (pb_cpu_in(nodes, n) && pb_read_cpulist(path, set) > 0 && pb_cpu_in(set, cpu))
			node = n;
	}
	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node);
	f = node >= 0 ? pb_fopen(path) : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d MemTotal: %llu kB", &n, total) == 2 && n == node)
			got |= 1;
		else if (sscanf(line, "Node %d MemFree: %llu kB", &n, free_kib) == 2 && n == node)
			got |= 2;
	}
	if (f)
		fclose(f);
	if (got != 3)
		*total = *free_kib = 0;
	return node;
}

/* Live only: does this process's memory policy keep memory on node? 1, 0, or -errno. */
static int policy_local(int node, char *text, size_t len)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))] = { 0 };
	const size_t bits = 8 * sizeof(unsigned long);
	int mode = 0, in;

	if (syscall(SYS_get_mempolicy, &mode, mask, 1024UL, NULL, 0UL) < 0)
		return -errno;
	mode &= ~MPOL_MODE_FLAGS;
	in = node < 1024 && ((mask[node / bits] >> (node % bits)) & 1);
	if (mode == MPOL_DEFAULT || mode == MPOL_LOCAL) {
		snprintf(text, len, "policy %s", mode ? "local" : "default (local)");
		return 1;
	}
	if (mode == MPOL_BIND || mode == MPOL_PREFERRED || mode == MPOL_PREFERRED_MANY) {
		snprintf(text, len, "policy %s %s node %d", mode == MPOL_BIND ? "bind" : "preferred",
			 in ? "includes" : "excludes", node);
		return in;
	}
	snprintf(text, len, "policy %s", mode == MPOL_INTERLEAVE ||
		 mode == MPOL_WEIGHTED_INTERLEAVE ? "interleave" : "other");
	return 0;
}

static void check_numa_cpu(struct pb_env_ctx *ctx, const unsigned char *nodes, int nnodes,
			   const struct self_status *st, int cpu)
{
	unsigned long long total, free_kib;
	char fr[32], tot[32], pol[96] = "policy not recorded", mem[80] = "free memory unknown";
	unsigned char allowed[PB_MAX_CPUS / 8];
	struct pbench_check *c;
	int node = node_of_cpu(nodes, cpu, &total, &free_kib), local = 1, low;

	if (node < 0) {
		report(ctx, "mem.numa_local", cpu, PBENCH_CHECK_UNKNOWN, "CPU %d is in no "
		       NODE_DIR "/node*/cpulist", cpu);
		return;
	}
	if (total) {
		kib_text(free_kib, fr, sizeof(fr));
		kib_text(total, tot, sizeof(tot));
		snprintf(mem, sizeof(mem), "%s free of %s", fr, tot);
	}
	if (nnodes == 1) {
		report(ctx, "mem.numa_local", cpu, PBENCH_CHECK_OK, "single node (node %d: %s)",
		       node, mem);
		return;
	}
	if (ctx->live && (local = policy_local(node, pol, sizeof(pol))) < 0)
		snprintf(pol, sizeof(pol), "get_mempolicy: %s", pbench_strerror(local));
	if (st->mems[0] && pb_cpulist_to_set(st->mems, allowed) > 0 && !pb_cpu_in(allowed, node)) {
		snprintf(pol, sizeof(pol), "cpuset allows memory only on nodes %.40s", st->mems);
		local = 0;
	}
	low = total && free_kib * 20 < total;
	c = report(ctx, "mem.numa_local", cpu, !local || low ? PBENCH_CHECK_WARN : PBENCH_CHECK_OK,
		   "node %d of %d: %s; %s", node, nnodes, mem, pol);
	if (!c || (local && !low))
		return;
	pb_check_set(c, c->why, "%s: each cache miss to another node's memory costs ~1.3-2x as "
		     "much as to node %d's", local ? "under 5% of the node is free, so new pages "
		     "come from another node" : "memory is placed on another node", node);
	if (local)
		pb_check_set(c, c->fix, "sync; echo 3 | sudo tee /proc/sys/vm/drop_caches (frees "
			     "page cache), or measure on a CPU of a node with free memory");
	else
		pb_check_set(c, c->fix, "numactl --cpunodebind=%d --membind=%d CMD", node, node);
}

static void check_numa(struct pb_env_ctx *ctx, const struct self_status *st)
{
	unsigned char nodes[PB_MAX_CPUS / 8];
	int n = pb_read_cpulist(NODE_DIR "/online", nodes);

	for (int i = 0; i < ctx->ncpus; i++) {
		if (n == -ENOENT)
			report(ctx, "mem.numa_local", ctx->cpus[i], PBENCH_CHECK_INFO, "no " NODE_DIR
			       "/online: no NUMA information (a kernel without NUMA has none)");
		else if (n <= 0)
			unknown(ctx, "mem.numa_local", ctx->cpus[i], NODE_DIR "/online",
				n ? n : -EINVAL);
		else
			check_numa_cpu(ctx, nodes, n, st, ctx->cpus[i]);
	}
}

static void check_aslr(struct pb_env_ctx *ctx)
{
	static const char *const what[] = { "off", "stack, mmap and vDSO randomized",
					    "stack, mmap, vDSO and heap randomized" };
	struct pbench_check *c;
	long v;
	int err = pb_read_long("/proc/sys/kernel/randomize_va_space", &v);
	int persona = ctx->live ? personality(0xffffffff) : -1;

	if (err || v < 0 || v > 2) {
		unknown(ctx, "aslr", -1, "/proc/sys/kernel/randomize_va_space",
			err ? err : -EINVAL);
	} else if (!v) {
		report(ctx, "aslr", -1, PBENCH_CHECK_OK, "randomize_va_space 0 (off)");
	} else if (persona != -1 && (persona & ADDR_NO_RANDOMIZE)) {
		report(ctx, "aslr", -1, PBENCH_CHECK_OK, "randomize_va_space %ld, but this process "
		       "runs with ADDR_NO_RANDOMIZE (setarch -R)", v);
	} else {
		c = report(ctx, "aslr", -1, PBENCH_CHECK_INFO, "randomize_va_space %ld (%s)%s", v,
			   what[v], ctx->live ? "; this process is randomized" : "");
		advise(c, "0, or setarch -R for the measured command",
		       "code, stack and heap addresses change from run to run, and with them cache "
		       "set conflicts, TLB reach and branch alignment: two runs of one binary can "
		       "differ by a few percent",
		       "setarch -R CMD (this command only), or sudo sysctl -w "
		       "kernel.randomize_va_space=0");
	}
}

/* A resource limit prepared mode needs, and the capability that lifts it. */
struct limit {
	const char *id, *line, *cap, *expected, *raise, *why, *fix;
	int cap_bit, bytes;	/* bytes: only "unlimited" is enough; else any non-zero value */
};

static const struct limit limits[] = {
	{ "limits.rtprio", "Max realtime priority", "CAP_SYS_NICE", ">= 1",
	  "ulimit -r 99 in the shell that starts pbench",
	  "prepared mode cannot make the measuring thread SCHED_FIFO: other tasks and kernel "
	  "threads preempt it, and each preemption adds a time slice (up to several ms) to a "
	  "sample",
	  "echo \"$USER - rtprio 99\" | sudo tee -a /etc/security/limits.conf, then log in again "
	  "(ulimit -r shows 99)", CAP_BIT_SYS_NICE, 0 },
	{ "limits.memlock", "Max locked memory", "CAP_IPC_LOCK", "unlimited",
	  "ulimit -l unlimited in the shell that starts pbench",
	  "prepared mode locks the process's memory (mlockall) so that no page fault or reclaim "
	  "lands in a timed region; beyond the limit that fails and the memory stays pageable",
	  "echo \"$USER - memlock unlimited\" | sudo tee -a /etc/security/limits.conf, then log "
	  "in again (ulimit -l shows unlimited)", CAP_BIT_IPC_LOCK, 1 },
};

static void check_limit(struct pb_env_ctx *ctx, const struct self_status *st,
			const struct limit *l)
{
	long long soft, hard;
	char s[32], h[32];
	struct pbench_check *c;
	int err = read_limit(l->line, &soft, &hard), cap = has_cap(st, l->cap_bit);

	if (err == -EBADMSG || err == -EINVAL) {
		report(ctx, l->id, -1, PBENCH_CHECK_UNKNOWN, "no valid '%s' line in "
		       "/proc/self/limits", l->line);
		return;
	}
	if (err) {
		unknown(ctx, l->id, -1, "/proc/self/limits", err);
		return;
	}
	limit_text(soft, l->bytes, s, sizeof(s));
	limit_text(hard, l->bytes, h, sizeof(h));
#define ENOUGH(v) (l->bytes ? (v) < 0 : (v) != 0)
	if (cap == 1) {
		report(ctx, l->id, -1, PBENCH_CHECK_OK, "soft %s, hard %s; %s lifts it", s, h,
		       st->have_cap ? l->cap : "root");
	} else if (ENOUGH(soft)) {
		report(ctx, l->id, -1, PBENCH_CHECK_OK, "soft %s, hard %s", s, h);
	} else if (ENOUGH(hard)) {
		c = report(ctx, l->id, -1, PBENCH_CHECK_INFO, "soft %s, hard %s: the process must "
			   "raise its soft limit first", s, h);
		advise(c, l->expected, NULL, l->raise);
	} else if (cap < 0) {
		report(ctx, l->id, -1, PBENCH_CHECK_UNKNOWN, "soft %s, hard %s; unknown whether the "
		       "process is privileged (no Uid/CapEff in /proc/self/status)", s, h);
	} else {
		c = report(ctx, l->id, -1, PBENCH_CHECK_WARN, "soft %s, hard %s (not root, no %s)", s,
			   h, l->cap);
		advise(c, l->expected, l->why, l->fix);
	}
#undef ENOUGH
}

static void check_caps(struct pb_env_ctx *ctx, const struct self_status *st)
{
	const char *lock = (st->capeff >> CAP_BIT_IPC_LOCK) & 1 ? "yes" : "no";
	long long soft = 0, hard;
	struct pbench_check *c;

	if (!st->have_cap) {
		report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_UNKNOWN, "no CapEff line in "
		       "/proc/self/status");
	} else if ((st->capeff >> CAP_BIT_SYS_NICE) & 1) {
		report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_OK, "CAP_SYS_NICE yes, CAP_IPC_LOCK %s",
		       lock);
	} else if (!read_limit("Max realtime priority", &soft, &hard) && soft != 0) {
		report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_INFO, "CAP_SYS_NICE no, CAP_IPC_LOCK "
		       "%s; the rtprio limit allows SCHED_FIFO without it", lock);
	} else {
		c = report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_WARN, "CAP_SYS_NICE no, "
			   "CAP_IPC_LOCK %s", lock);
		advise(c, "CAP_SYS_NICE and CAP_IPC_LOCK",
		       "without CAP_SYS_NICE (and with an rtprio limit of 0) prepared mode cannot "
		       "raise the measuring thread to SCHED_FIFO, so other tasks preempt it "
		       "mid-sample; CAP_IPC_LOCK lets it lock memory beyond the memlock limit",
		       "sudo setcap cap_sys_nice,cap_ipc_lock+ep $(which pbench) (or the benchmark "
		       "binary)");
	}
}

void pb_check_memory(struct pb_env_ctx *ctx)
{
	struct self_status st;

	read_self_status(&st);
	check_thp(ctx);
	check_ksm(ctx);
	check_swap(ctx);
	check_numa(ctx, &st);
	check_aslr(ctx);
	for (size_t i = 0; i < PB_ARRAY_SIZE(limits); i++)
		check_limit(ctx, &st, &limits[i]);
	check_caps(ctx, &st);
}

/* ---- timer ------------------------------------------------------------------------------ */

static void check_clocksource(struct pb_env_ctx *ctx)
{
	/* Paravirtual clocks keep clock_gettime in the vDSO; the slow ones make it a syscall. */
	static const char *const pv[] = { "kvm-clock", "hyperv_clocksource_tsc_page", "xen" };
	static const char *const slow[] = { "hpet", "acpi_pm", "jiffies", "refined-jiffies",
					    "pit" };
	char cur[64], avail[256] = "?";
	struct pbench_check *c = NULL;
	int err = pb_read_file(CS_DIR "/current_clocksource", cur, sizeof(cur)), tsc;

	if (err < 0 || !is_name(cur)) {
		unknown(ctx, "clock.source", -1, CS_DIR "/current_clocksource",
			err < 0 ? err : -EINVAL);
		return;
	}
	if (pb_read_file(CS_DIR "/available_clocksource", avail, sizeof(avail)) < 0)
		snprintf(avail, sizeof(avail), "?");
	tsc = has_word(avail, "tsc");
	if (!strcmp(cur, "tsc") || !strcmp(cur, "arch_sys_counter")) {
		report(ctx, "clock.source", -1, PBENCH_CHECK_OK, "%s", cur);
		return;
	}
	for (size_t i = 0; i < PB_ARRAY_SIZE(pv); i++)
		if (!strcmp(cur, pv[i]))
			c = report(ctx, "clock.source", -1, PBENCH_CHECK_INFO, "%s (available: %s)",
				   cur, avail);
	if (c) {
		advise(c, "tsc", "a paravirtual clock: clock_gettime stays in the vDSO (no "
		       "syscall), a few ns slower than the TSC",
		       tsc ? "echo tsc | sudo tee " CS_DIR "/current_clocksource" : NULL);
		return;
	}
	for (size_t i = 0; i < PB_ARRAY_SIZE(slow); i++)
		if (!strcmp(cur, slow[i]))
			c = report(ctx, "clock.source", -1, PBENCH_CHECK_BAD, "%s (available: %s)",
				   cur, avail);
	if (!c) {
		report(ctx, "clock.source", -1, PBENCH_CHECK_INFO, "%s (not known to pbench; "
		       "available: %s)", cur, avail);
		return;
	}
	advise(c, "tsc", "clock_gettime cannot use the vDSO with this clocksource and becomes a "
	       "syscall: ~0.5-1.5 us per read instead of ~20 ns, with a coarse resolution",
	       tsc ? "echo tsc | sudo tee " CS_DIR "/current_clocksource"
		   : "the kernel marked the TSC unstable; if the TSC is invariant (clock.tsc ok), "
		     "add \"tsc=reliable\" to GRUB_CMDLINE_LINUX in /etc/default/grub, then sudo "
		     "update-grub and reboot");
}

/* Live only: CPUID 0x80000007 EDX[8], the invariant TSC bit; -1 when not x86. */
static int cpuid_invariant_tsc(void)
{
#ifdef PB_X86
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__cpuid(0x80000007, a, b, c, d);
	return (d >> 8) & 1;
#else
	return -1;
#endif
}

static void check_tsc_cpu(struct pb_env_ctx *ctx, int cpu, int inv)
{
	char flags[4096], extra[96];
	struct pbench_check *c;
	int err = cpuinfo_flags(cpu, flags, sizeof(flags)), cons, nonstop;

	if (err == -ENOENT && pb_exists("/proc/cpuinfo")) {
		report(ctx, "clock.tsc", cpu, PBENCH_CHECK_UNKNOWN, "no processor %d in "
		       "/proc/cpuinfo", cpu);
		return;
	}
	if (err < 0) {
		unknown(ctx, "clock.tsc", cpu, "/proc/cpuinfo", err);
		return;
	}
	if (err == 0) {
		report(ctx, "clock.tsc", cpu, PBENCH_CHECK_INFO, "no x86 flags in /proc/cpuinfo: no "
		       "TSC; pbench times with CLOCK_MONOTONIC_RAW");
		return;
	}
	cons = has_word(flags, "constant_tsc");
	nonstop = has_word(flags, "nonstop_tsc");
	snprintf(extra, sizeof(extra), "%s%s%s%s", has_word(flags, "tsc_known_freq") ?
		 " tsc_known_freq" : "", has_word(flags, "tsc_reliable") ? " tsc_reliable" : "",
		 inv < 0 ? "" : "; CPUID invariant TSC ", inv < 0 ? "" : inv ? "yes" : "no");
	if (!has_word(flags, "tsc")) {
		c = report(ctx, "clock.tsc", cpu, PBENCH_CHECK_BAD, "no tsc flag%s", extra);
		advise(c, "constant_tsc nonstop_tsc", "there is no TSC: pbench times with "
		       "CLOCK_MONOTONIC_RAW (~20 ns per read, no cycle-level resolution)",
		       "measure on a CPU (or VM) that exposes an invariant TSC");
		return;
	}
	c = report(ctx, "clock.tsc", cpu, cons && nonstop && inv ? PBENCH_CHECK_OK : cons ?
		   PBENCH_CHECK_WARN : PBENCH_CHECK_BAD, "%sconstant_tsc %snonstop_tsc%s",
		   cons ? "" : "no ", nonstop ? "" : "no ", extra);
	if (!c || c->status == PBENCH_CHECK_OK)
		return;
	advise(c, "constant_tsc nonstop_tsc",
	       cons ? "the TSC may stop in deep C-states, so pbench does not trust it as a clock "
		      "and times with CLOCK_MONOTONIC_RAW (~20 ns per read instead of ~7-10 ns)"
		    : "the TSC rate follows the CPU frequency, so its ticks are not time: pbench "
		      "times with CLOCK_MONOTONIC_RAW (~20 ns per read)",
	       "in a VM, expose the invariant TSC (QEMU/KVM: -cpu host,+invtsc; libvirt: "
	       "<feature policy='require' name='invtsc'/>); on bare metal, a CPU without one "
	       "cannot be fixed");
}

void pb_check_timer(struct pb_env_ctx *ctx)
{
	int inv = ctx->live ? cpuid_invariant_tsc() : -1;

	check_clocksource(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_tsc_cpu(ctx, ctx->cpus[i], inv);
}

/* ---- counters --------------------------------------------------------------------------- */

static void check_paranoid(struct pb_env_ctx *ctx, const struct self_status *st)
{
	static const char fix[] = "sudo sysctl -w kernel.perf_event_paranoid=1, or sudo setcap "
				  "cap_perfmon+ep $(which pbench)";
	int v, err = pbench_perf_paranoid(&v), priv = has_cap(st, CAP_BIT_PERFMON);
	const char *who;
	struct pbench_check *c;

	if (priv == 0)
		priv = has_cap(st, CAP_BIT_SYS_ADMIN);
	who = priv ? "privileges unknown" : "not root, no CAP_PERFMON";
	if (err) {
		unknown(ctx, "perf.paranoid", -1, "/proc/sys/kernel/perf_event_paranoid", err);
	} else if (v <= 1) {
		report(ctx, "perf.paranoid", -1, PBENCH_CHECK_OK, "%d", v);
	} else if (priv == 1) {
		report(ctx, "perf.paranoid", -1, PBENCH_CHECK_OK, "%d (%s: not restricted)", v,
		       st->have_cap ? "CAP_PERFMON" : "root");
	} else if (v == 2) {
		c = report(ctx, "perf.paranoid", -1, PBENCH_CHECK_INFO, "2 (%s: user space only)",
			   who);
		advise(c, "<= 1 (or root / CAP_PERFMON)", "events count user space only (pbench "
		       "flags them user_only): what the measured code does in the kernel "
		       "(syscalls, page faults) is not counted", fix);
	} else {
		c = report(ctx, "perf.paranoid", -1, priv ? PBENCH_CHECK_WARN : PBENCH_CHECK_BAD,
			   "%d (%s; Debian/Ubuntu: no perf_event_open without CAP_PERFMON)", v, who);
		advise(c, "<= 1 (or root / CAP_PERFMON)", "Debian and Ubuntu kernels read 3 and "
		       "above as no perf_event_open at all without CAP_PERFMON: pbench then counts "
		       "nothing but time (not even page faults or context switches)", fix);
	}
}

/* The first CPU PMU (cpu, cpu_core, cpu_atom, armv8_*) into name: 1, 0 when there is none,
 * -errno when the PMU directory cannot be listed. */
static int cpu_pmu(char *name, size_t len)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	if (pb_path(path, sizeof(path), PMU_DIR))
		return -ENAMETOOLONG;
	if (!(dir = opendir(path)))
		return -errno;
	while (!found && (d = readdir(dir)))
		if (!strncmp(d->d_name, "cpu", 3) || !strncmp(d->d_name, "armv", 4))
			found = snprintf(name, len, "%s", d->d_name) < (int)len;
	closedir(dir);
	return found;
}

static void check_rdpmc(struct pb_env_ctx *ctx, const char *pmu)
{
	char path[128];
	struct pbench_check *c;
	long v;
	int err;

	snprintf(path, sizeof(path), PMU_DIR "/%s/rdpmc", pmu);
	err = pmu[0] ? pb_read_long(path, &v) : -ENOENT;
	if (!pmu[0]) {
		report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_INFO, "no cpu PMU in " PMU_DIR ": no "
		       "hardware counter to read");
	} else if (err == -ENOENT) {
		report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_INFO, "%s PMU has no rdpmc file: no "
		       "user-space counter reads", pmu);
	} else if (err || v < 0 || v > 2) {
		unknown(ctx, "perf.rdpmc", -1, path, err ? err : -EINVAL);
	} else if (v) {
		report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_OK, "%s: %ld (%s)", pmu, v,
		       v == 1 ? "tasks that opened an event" : "any task");
	} else {
		c = report(ctx, "perf.rdpmc", -1, PBENCH_CHECK_WARN, "%s: 0 (no user-space reads)",
			   pmu);
		advise(c, "1 or 2", "every pbench_counters_start/stop becomes a read() syscall "
		       "(~0.3-1 us, a kernel entry inside the timed region) instead of an rdpmc "
		       "(~20-40 ns)", NULL);
		if (c)
			pb_check_set(c, c->fix, "echo 1 | sudo tee %s", path);
	}
}

/* Live only: open cycles on this thread; the event status (-1: no set), reason in why. */
static int try_cycles(char *why, size_t len)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1 };
	struct pbench_count k = { .size = sizeof(k) };
	struct pbench_counters *cs = NULL;
	int err = pbench_counters_open(&cs, "cycles", &o), status;

	snprintf(why, len, "%s", pbench_strerror(err));
	if (!cs)
		return -1;
	status = pbench_counters_open_status(cs, 0);
	if (status != PBENCH_EVENT_OK && pbench_counters_read(cs, &k, 1) == 1)
		snprintf(why, len, "%s", k.reason);
	pbench_counters_free(cs);
	return status;
}

static void check_pmu(struct pb_env_ctx *ctx, const char *pmu)
{
	char reason[192] = "", path[128], what[96] = "no cpu PMU in " PMU_DIR;
	int st = ctx->live ? try_cycles(reason, sizeof(reason)) : PBENCH_EVENT_OK;
	struct pbench_check *c;
	long type;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	if (pmu[0] && !pb_read_long(path, &type))
		snprintf(what, sizeof(what), "%s PMU (type %ld)", pmu, type);
	else if (pmu[0])
		snprintf(what, sizeof(what), "%s PMU", pmu);
	if (st == PBENCH_EVENT_OK && (pmu[0] || ctx->live)) {
		report(ctx, "perf.pmu", -1, PBENCH_CHECK_OK, "%s%s", pmu[0] ? what : "a hardware "
		       "PMU", ctx->live ? "; cycles opens" : "");
		return;
	}
	if (st != PBENCH_EVENT_OK && st != PBENCH_EVENT_NOT_SUPPORTED) {
		/* Not allowed to try (perf.paranoid says why), or could not try at all. */
		report(ctx, "perf.pmu", -1, pmu[0] ? PBENCH_CHECK_INFO : PBENCH_CHECK_UNKNOWN,
		       "%s; cycles: %s", what, reason);
		return;
	}
	c = report(ctx, "perf.pmu", -1, PBENCH_CHECK_WARN, "%s%s%s", what,
		   reason[0] ? "; cycles: " : "", reason);
	advise(c, "a cpu PMU",
	       "no cycles, instructions or cache events: pbench can count only time and the "
	       "software events (task-clock, page-faults, context-switches, cpu-migrations)",
	       "in a KVM/QEMU guest, enable the vPMU (-cpu host,pmu=on; libvirt: <pmu "
	       "state='on'/>); many clouds cannot: measure on bare metal or an instance type "
	       "that exposes the PMU");
}

static void check_sample_rate(struct pb_env_ctx *ctx)
{
	long v;
	int err = pb_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &v);

	if (err || v <= 0)
		unknown(ctx, "perf.max_sample_rate", -1,
			"/proc/sys/kernel/perf_event_max_sample_rate", err ? err : -EINVAL);
	else if (v < 100000)
		report(ctx, "perf.max_sample_rate", -1, PBENCH_CHECK_INFO, "%ld (the kernel lowered "
		       "it from 100000: perf interrupts took too long on this machine)", v);
	else
		report(ctx, "perf.max_sample_rate", -1, PBENCH_CHECK_OK, "%ld", v);
}

void pb_check_counters(struct pb_env_ctx *ctx)
{
	struct self_status st;
	char pmu[64] = "";

	int err = cpu_pmu(pmu, sizeof(pmu));

	read_self_status(&st);
	check_paranoid(ctx, &st);
	if (err < 0) {
		unknown(ctx, "perf.rdpmc", -1, PMU_DIR, err);
		unknown(ctx, "perf.pmu", -1, PMU_DIR, err);
	} else {
		check_rdpmc(ctx, pmu);
		check_pmu(ctx, pmu);
	}
	check_sample_rate(ctx);
}

/* ---- virtualization --------------------------------------------------------------------- */

/* Live only: the CPUID hypervisor vendor (leaf 0x40000000), "" when CPUID reports none. */
static void cpuid_hypervisor(char *name, size_t len)
{
	name[0] = '\0';
#ifdef PB_X86
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 31))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (int i = 0; i < 12 && sig[i]; i++)
		sig[i] = isprint((unsigned char)sig[i]) ? sig[i] : '.';
	/* KVMKVMKVM (KVM, Firecracker), Microsoft Hv, VMwareVMware, XenVMMXenVMM, TCGTCGTCGTCG */
	snprintf(name, len, "CPUID vendor '%s'", sig);
#else
	(void)len;
#endif
}

/* 1 under a hypervisor, 0 not, -1 unknown; what says how it was seen. */
static int hypervisor(struct pb_env_ctx *ctx, char *what, size_t len)
{
	char flags[4096], type[32] = "", cpuid[64] = "";
	int f = cpuinfo_flags(-1, flags, sizeof(flags));
	int flag = f == 1 && has_word(flags, "hypervisor");

	if (pb_read_file("/sys/hypervisor/type", type, sizeof(type)) < 0 || !is_name(type))
		type[0] = '\0';
	if (ctx->live)
		cpuid_hypervisor(cpuid, sizeof(cpuid));
	if (flag || type[0] || cpuid[0]) {
		snprintf(what, len, "%s%s%s%s%s%s", cpuid, cpuid[0] && (flag || type[0]) ? "; " : "",
			 flag ? "hypervisor flag in /proc/cpuinfo" : "", flag && type[0] ? "; " : "",
			 type[0] ? "/sys/hypervisor/type " : "", type);
		return 1;
	}
	snprintf(what, len, "%s", f == 1 ? "no hypervisor flag in /proc/cpuinfo" :
		 f < 0 && f != -ENOENT ? "cannot read /proc/cpuinfo" :
		 "no x86 flags in /proc/cpuinfo and no /sys/hypervisor/type");
	return f == 1 ? 0 : -1;
}

static void check_hypervisor(struct pb_env_ctx *ctx, int vm, const char *what)
{
	struct pbench_check *c;

	if (vm <= 0) {
		report(ctx, "virt.hypervisor", -1, vm ? PBENCH_CHECK_UNKNOWN : PBENCH_CHECK_OK,
		       "%s%s", vm ? "" : "bare metal: ", what);
		return;
	}
	c = report(ctx, "virt.hypervisor", -1, PBENCH_CHECK_WARN, "virtual machine: %s", what);
	advise(c, "bare metal",
	       "the hypervisor can run other work on this vCPU's physical CPU (steal time), "
	       "takes VM exits for timers, interrupts and some instructions (each ~1-2 us), and "
	       "virtualizes the timer and the PMU, or hides the PMU",
	       "measure on bare metal, or on a dedicated-CPU instance (vCPUs pinned to their own "
	       "physical cores)");
}

static double total_ticks(const struct pb_cpu_times *t)
{
	return (double)t->user + t->nice + t->system + t->idle + t->iowait + t->irq +
	       t->softirq + t->steal;
}

static void check_steal_cpu(struct pb_env_ctx *ctx, int cpu, int vm)
{
	const struct pb_cpu_times *a, *b;
	double boot, win = -1, share;
	char wtext[64] = "", btext[32];
	struct pbench_check *c;

	if (cpu < 0 || cpu >= PB_MAX_CPUS || !ctx->t1[cpu].valid) {
		report(ctx, "virt.steal", cpu, PBENCH_CHECK_UNKNOWN, "no cpu%d line in /proc/stat",
		       cpu);
		return;
	}
	a = &ctx->t0[cpu];
	b = &ctx->t1[cpu];
	boot = total_ticks(b) > 0 ? 100.0 * (double)b->steal / total_ticks(b) : 0;
	if (ctx->window_ms > 0 && total_ticks(b) > total_ticks(a)) {
		win = b->steal > a->steal ? 100.0 * (double)(b->steal - a->steal) /
					    (total_ticks(b) - total_ticks(a)) : 0;
		snprintf(wtext, sizeof(wtext), "%.2f%% over the last %.0f ms, ", win,
			 ctx->window_ms);
	}
	if (boot == 0)
		snprintf(btext, sizeof(btext), "0%%");
	else if (boot < 0.01)
		snprintf(btext, sizeof(btext), "<0.01%%");
	else
		snprintf(btext, sizeof(btext), "%.2f%%", boot);
	share = win > boot ? win : boot;	/* steal comes in bursts: either one counts */
	c = report(ctx, "virt.steal", cpu, share > 1 ? PBENCH_CHECK_WARN : share > 0 ?
		   PBENCH_CHECK_INFO : PBENCH_CHECK_OK, "%s%s since boot%s", wtext, btext,
		   boot == 0 && vm == 1 ? " (a hypervisor that does not report steal time "
					   "also shows 0)" : "");
	if (share > 0)
		advise(c, "0%", "the hypervisor gave this vCPU's physical CPU to other work for "
		       "that share of the time: a timed region loses such time at random, in "
		       "slices of about a host tick (1-4 ms)",
		       "use a dedicated-CPU instance (no CPU overcommit) or pin the vCPUs to their "
		       "own host cores; or measure on bare metal");
}

void pb_check_virtualization(struct pb_env_ctx *ctx)
{
	char what[192];
	int vm = hypervisor(ctx, what, sizeof(what));

	check_hypervisor(ctx, vm, what);
	for (int i = 0; i < ctx->ncpus; i++)
		check_steal_cpu(ctx, ctx->cpus[i], vm);
}
