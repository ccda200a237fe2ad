/* SPDX-License-Identifier: MIT */
/*
 * Checks: memory (THP, KSM, swap, NUMA placement, ASLR, and the limits and capabilities that
 * prepared mode needs to lock memory and run SCHED_FIFO).
 *
 * Every fact comes from a file through the root mapping, so a recorded tree gives the answers
 * of its machine; syscalls only add to a finding when ctx->live is set.
 */
#include <errno.h>
/* libnuma's numaif.h, not linux/mempolicy.h: both define the MPOL_ names. */
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "base/base.h"
#include "check/check.h"

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6	/* Linux 6.9; older uapi headers lack it */
#endif

#define NODE_DIR "/sys/devices/system/node"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* ---- helpers ---------------------------------------------------------------------------- */

/* The word in brackets of a sysfs choice file ("always [madvise] never"). */
static int bracketed(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (!b || b == a + 1 || (size_t)(b - a) > len)
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
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

/* ---- THP, KSM, swap --------------------------------------------------------------------- */

static void check_thp(struct pb_check_ctx *ctx)
{
	char buf[256], en[32], df[32] = "?", size[48] = "";
	struct pbench_check_finding *c;
	long pmd;
	int err = pb_read_file(THP_DIR "/enabled", buf, sizeof(buf));

	if (err == -ENOENT) {
		pb_report(ctx, "mem.thp", -1, PBENCH_CHECK_INFO, NULL, "no " THP_DIR ": this "
			  "kernel has no transparent huge pages");
		return;
	}
	if (err < 0 || bracketed(buf, en, sizeof(en))) {
		pb_check_unknown(ctx, "mem.thp", -1, THP_DIR "/enabled", err < 0 ? err : -EINVAL);
		return;
	}
	if (pb_read_file(THP_DIR "/defrag", buf, sizeof(buf)) >= 0)
		bracketed(buf, df, sizeof(df));
	if (!strcmp(en, "always")) {
		c = pb_report(ctx, "mem.thp", -1, PBENCH_CHECK_WARN, "enabled=madvise or never",
			      "enabled=always defrag=%s", df);
		if (!pb_read_num(THP_DIR "/hpage_pmd_size", &pmd) && pmd > 0) {
			strcpy(size, " of ");
			kib_text((unsigned long long)pmd / 1024, size + 4, sizeof(size) - 4);
		}
		pb_check_set(c, &c->why, "any large anonymous mapping may get huge pages%s: a "
			     "huge-page fault zeroes the whole page at once (measured on the "
			     "development VM: 160-180 us for a 2 MiB fault, 1.0-1.4 us for a "
			     "4 KiB one), khugepaged collapses pages in the background, and "
			     "whether a run gets huge pages (fewer TLB misses) changes from run "
			     "to run", size);
		pb_advise(c, NULL, "echo madvise | sudo tee " THP_DIR "/enabled");
	} else if (!strcmp(df, "always") && strcmp(en, "never")) {
		c = pb_report(ctx, "mem.thp", -1, PBENCH_CHECK_INFO, "defrag=madvise",
			      "enabled=%s defrag=always", en);
		pb_advise(c, "a huge-page fault in a madvise()d region stalls on direct compaction "
			  "when no free huge page is at hand",
			  "echo madvise | sudo tee " THP_DIR "/defrag");
	} else {
		pb_report(ctx, "mem.thp", -1, PBENCH_CHECK_OK, NULL, "enabled=%s defrag=%s", en,
			  df);
	}
}

static void check_ksm(struct pb_check_ctx *ctx)
{
	struct pbench_check_finding *c;
	long run;
	int err = pb_read_long("/sys/kernel/mm/ksm/run", &run);

	if (err == -ENOENT) {
		pb_report(ctx, "mem.ksm", -1, PBENCH_CHECK_INFO, NULL, "no /sys/kernel/mm/ksm: "
			  "this kernel has no KSM");
	} else if (err || run < 0 || run > 2) {
		pb_check_unknown(ctx, "mem.ksm", -1, "/sys/kernel/mm/ksm/run", err ? err : -EINVAL);
	} else if (run == 1) {
		c = pb_report(ctx, "mem.ksm", -1, PBENCH_CHECK_WARN, "0",
			      "run=1 (ksmd merging pages)");
		pb_advise(c, "ksmd scans memory on some CPU and merges identical pages; a write to "
			  "a merged page takes a copy-on-write fault inside the timed region",
			  "echo 0 | sudo tee /sys/kernel/mm/ksm/run");
	} else {
		pb_report(ctx, "mem.ksm", -1, PBENCH_CHECK_OK, NULL, "run=%ld (%s)", run,
			  run ? "stopped, pages unmerged" : "off");
	}
}

static void check_swap(struct pb_check_ctx *ctx)
{
	FILE *f = pb_fopen("/proc/swaps");
	unsigned long long size = 0, used = 0, s, u;
	char line[512], sz[32], us[32], swp[32] = "?";
	struct pbench_check_finding *c;
	long swappiness;
	int n = 0, bad;

	if (!f) {
		pb_check_unknown(ctx, "mem.swap", -1, "/proc/swaps", -errno);
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
		pb_check_unknown(ctx, "mem.swap", -1, "/proc/swaps", -EINVAL);
		return;
	}
	if (!pb_read_long("/proc/sys/vm/swappiness", &swappiness))
		snprintf(swp, sizeof(swp), "%ld", swappiness);
	if (!n) {
		pb_report(ctx, "mem.swap", -1, PBENCH_CHECK_OK, NULL, "no swap (swappiness %s)",
			  swp);
		return;
	}
	kib_text(size, sz, sizeof(sz));
	kib_text(used, us, sizeof(us));
	c = pb_report(ctx, "mem.swap", -1, used ? PBENCH_CHECK_WARN : PBENCH_CHECK_INFO, "no swap",
		      "%d swap area%s, %s, %s used, swappiness %s", n, n > 1 ? "s" : "", sz, us,
		      swp);
	pb_advise(c, "the kernel may page out the benchmark's memory; touching it again is a "
		  "major fault that waits for the swap device, inside a timed region",
		  "sudo swapoff -a (until reboot; or sudo sysctl -w vm.swappiness=1 to keep swap "
		  "as a last resort)");
}

/* ---- NUMA ------------------------------------------------------------------------------- */

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

	if (get_mempolicy(&mode, mask, 1024UL, NULL, 0) < 0)
		return -errno;
	mode &= 0xff;	/* the mode flags (static/relative nodes, numa balancing) are above */
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
	/* 6 is MPOL_WEIGHTED_INTERLEAVE (Linux 6.9), newer than libnuma 2.0.16's header. */
	snprintf(text, len, "policy %s", mode == MPOL_INTERLEAVE || mode == 6 ? "interleave"
									      : "other");
	return 0;
}

/* Why memory on another node costs more, with the firmware's distances from node when the
 * kernel shows them: nodeN/distance holds ACPI SLIT values, where a node's own is 10. */
static void numa_why(struct pbench_check_finding *c, int node, int local)
{
	char path[96], dist[160] = "", d[96];

	snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", node);
	if (pb_read_file(path, d, sizeof(d)) > 0 && strspn(d, "0123456789 ") == strlen(d))
		snprintf(dist, sizeof(dist), " (node%d/distance: %s, where 10 is local)", node, d);
	pb_check_set(c, &c->why, "%s: each cache miss to another node's memory costs more than one "
		     "to node %d's%s", local ? "under 5% of the node is free, so new pages come "
		     "from another node" : "memory is placed on another node", node, dist);
}

static void check_numa_cpu(struct pb_check_ctx *ctx, const unsigned char *nodes, int nnodes,
			   const struct pb_proc_status *st, int cpu)
{
	unsigned long long total, free_kib;
	char fr[32], tot[32], pol[96] = "policy not recorded", mem[80] = "free memory unknown";
	unsigned char allowed[PB_MAX_CPUS / 8];
	struct pbench_check_finding *c;
	int node = node_of_cpu(nodes, cpu, &total, &free_kib), local = 1, low;

	if (node < 0) {
		pb_report(ctx, "mem.numa_local", cpu, PBENCH_CHECK_UNKNOWN, NULL, "CPU %d is in no "
			  NODE_DIR "/node*/cpulist", cpu);
		return;
	}
	if (total) {
		kib_text(free_kib, fr, sizeof(fr));
		kib_text(total, tot, sizeof(tot));
		snprintf(mem, sizeof(mem), "%s free of %s", fr, tot);
	}
	if (nnodes == 1) {
		pb_report(ctx, "mem.numa_local", cpu, PBENCH_CHECK_OK, NULL,
			  "single node (node %d: %s)", node, mem);
		return;
	}
	if (ctx->live && (local = policy_local(node, pol, sizeof(pol))) < 0)
		snprintf(pol, sizeof(pol), "get_mempolicy: %s", pbench_strerror(local));
	if (st->mems[0] && pb_cpulist_to_set(st->mems, allowed) > 0 && !pb_cpu_in(allowed, node)) {
		snprintf(pol, sizeof(pol), "cpuset allows memory only on nodes %.40s", st->mems);
		local = 0;
	}
	low = total && free_kib * 20 < total;
	c = pb_report(ctx, "mem.numa_local", cpu, !local || low ? PBENCH_CHECK_WARN :
		      PBENCH_CHECK_OK, NULL, "node %d of %d: %s; %s", node, nnodes, mem, pol);
	if (local && !low)
		return;
	numa_why(c, node, local);
	if (local)
		pb_check_set(c, &c->fix, "sync; echo 3 | sudo tee /proc/sys/vm/drop_caches (frees "
			     "page cache), or measure on a CPU of a node with free memory");
	else
		pb_check_set(c, &c->fix, "numactl --cpunodebind=%d --membind=%d CMD", node, node);
}

static void check_numa(struct pb_check_ctx *ctx, const struct pb_proc_status *st)
{
	unsigned char nodes[PB_MAX_CPUS / 8];
	int n = pb_read_cpulist(NODE_DIR "/online", nodes);

	for (int i = 0; i < ctx->ncpus; i++) {
		if (n == -ENOENT)
			pb_report(ctx, "mem.numa_local", ctx->cpus[i], PBENCH_CHECK_INFO, NULL,
				  "no " NODE_DIR "/online: no NUMA information (a kernel without "
				  "NUMA has none)");
		else if (n <= 0)
			pb_check_unknown(ctx, "mem.numa_local", ctx->cpus[i], NODE_DIR "/online",
					 n ? n : -EINVAL);
		else
			check_numa_cpu(ctx, nodes, n, st, ctx->cpus[i]);
	}
}

/* ---- ASLR, limits, capabilities --------------------------------------------------------- */

static void check_aslr(struct pb_check_ctx *ctx)
{
	static const char *const what[] = { "off", "stack, mmap and vDSO randomized",
					    "stack, mmap, vDSO and heap randomized" };
	struct pbench_check_finding *c;
	long v;
	int err = pb_read_long("/proc/sys/kernel/randomize_va_space", &v);
	int persona = ctx->live ? personality(0xffffffff) : -1;

	if (err || v < 0 || v > 2) {
		pb_check_unknown(ctx, "aslr", -1, "/proc/sys/kernel/randomize_va_space",
				 err ? err : -EINVAL);
	} else if (!v) {
		pb_report(ctx, "aslr", -1, PBENCH_CHECK_OK, NULL, "randomize_va_space 0 (off)");
	} else if (persona != -1 && (persona & ADDR_NO_RANDOMIZE)) {
		pb_report(ctx, "aslr", -1, PBENCH_CHECK_OK, NULL, "randomize_va_space %ld, but "
			  "this process runs with ADDR_NO_RANDOMIZE (setarch -R)", v);
	} else {
		c = pb_report(ctx, "aslr", -1, PBENCH_CHECK_INFO,
			      "0, or setarch -R for the measured command",
			      "randomize_va_space %ld (%s)%s", v, what[v],
			      ctx->live ? "; this process is randomized" : "");
		pb_advise(c, "code, stack and heap addresses change from run to run, and with them "
			  "cache set conflicts, TLB reach and branch alignment, so two runs of the "
			  "same binary can take different times",
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
	  "threads preempt it, and each preemption adds the other task's time on the CPU to a "
	  "sample",
	  "echo \"$USER - rtprio 99\" | sudo tee -a /etc/security/limits.conf, then log in again "
	  "(ulimit -r shows 99)", PB_CAP_SYS_NICE, 0 },
	{ "limits.memlock", "Max locked memory", "CAP_IPC_LOCK", "unlimited",
	  "ulimit -l unlimited in the shell that starts pbench",
	  "prepared mode locks the process's memory (mlockall) so that no page fault or reclaim "
	  "lands in a timed region; beyond the limit that fails and the memory stays pageable",
	  "echo \"$USER - memlock unlimited\" | sudo tee -a /etc/security/limits.conf, then log "
	  "in again (ulimit -l shows unlimited)", PB_CAP_IPC_LOCK, 1 },
};

static void check_limit(struct pb_check_ctx *ctx, const struct pb_proc_status *st,
			const struct limit *l)
{
	long long soft, hard;
	char s[32], h[32];
	struct pbench_check_finding *c;
	int err = read_limit(l->line, &soft, &hard), cap = pb_has_cap(st, l->cap_bit);

	if (err == -EBADMSG || err == -EINVAL) {
		pb_report(ctx, l->id, -1, PBENCH_CHECK_UNKNOWN, NULL, "no valid '%s' line in "
			  "/proc/self/limits", l->line);
		return;
	}
	if (err) {
		pb_check_unknown(ctx, l->id, -1, "/proc/self/limits", err);
		return;
	}
	limit_text(soft, l->bytes, s, sizeof(s));
	limit_text(hard, l->bytes, h, sizeof(h));
#define ENOUGH(v) (l->bytes ? (v) < 0 : (v) != 0)
	if (cap == 1) {
		pb_report(ctx, l->id, -1, PBENCH_CHECK_OK, NULL, "soft %s, hard %s; %s lifts it", s,
			  h, st->have_cap ? l->cap : "root");
	} else if (ENOUGH(soft)) {
		pb_report(ctx, l->id, -1, PBENCH_CHECK_OK, NULL, "soft %s, hard %s", s, h);
	} else if (ENOUGH(hard)) {
		c = pb_report(ctx, l->id, -1, PBENCH_CHECK_INFO, l->expected, "soft %s, hard %s: "
			      "the process must raise its soft limit first", s, h);
		pb_advise(c, NULL, l->raise);
	} else if (cap < 0) {
		pb_report(ctx, l->id, -1, PBENCH_CHECK_UNKNOWN, NULL, "soft %s, hard %s; unknown "
			  "whether the process is privileged (no Uid/CapEff in /proc/self/status)",
			  s, h);
	} else {
		c = pb_report(ctx, l->id, -1, PBENCH_CHECK_WARN, l->expected,
			      "soft %s, hard %s (%s %s)", s, h, st->have_uid && st->euid == 0 ?
			      "root without" : "not root, no", l->cap);
		pb_advise(c, l->why, l->fix);
	}
#undef ENOUGH
}

static void check_caps(struct pb_check_ctx *ctx, const struct pb_proc_status *st)
{
	const char *lock = (st->capeff >> PB_CAP_IPC_LOCK) & 1 ? "yes" : "no";
	long long soft = 0, hard;
	struct pbench_check_finding *c;

	if (!st->have_cap) {
		pb_report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_UNKNOWN, NULL, "no CapEff line in "
			  "/proc/self/status");
	} else if ((st->capeff >> PB_CAP_SYS_NICE) & 1) {
		pb_report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_OK, NULL, "CAP_SYS_NICE yes, "
			  "CAP_IPC_LOCK %s", lock);
	} else if (!read_limit("Max realtime priority", &soft, &hard) && soft != 0) {
		pb_report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_INFO, NULL, "CAP_SYS_NICE no, "
			  "CAP_IPC_LOCK %s; the rtprio limit allows SCHED_FIFO without it", lock);
	} else {
		c = pb_report(ctx, "caps.sys_nice", -1, PBENCH_CHECK_WARN, "CAP_SYS_NICE and "
			      "CAP_IPC_LOCK", "CAP_SYS_NICE no, CAP_IPC_LOCK %s", lock);
		pb_advise(c, "without CAP_SYS_NICE (and with an rtprio limit of 0) prepared mode "
			  "cannot raise the measuring thread to SCHED_FIFO, so other tasks preempt "
			  "it mid-sample; CAP_IPC_LOCK lets it lock memory beyond the memlock "
			  "limit",
			  "sudo setcap cap_sys_nice,cap_ipc_lock+ep $(which pbench) (or the "
			  "benchmark binary)");
	}
}

void pb_check_memory(struct pb_check_ctx *ctx)
{
	struct pb_proc_status st;

	pb_read_status("self", &st);
	check_thp(ctx);
	check_ksm(ctx);
	check_swap(ctx);
	check_numa(ctx, &st);
	check_aslr(ctx);
	for (size_t i = 0; i < PB_ARRAY_SIZE(limits); i++)
		check_limit(ctx, &st, &limits[i]);
	check_caps(ctx, &st);
}
