/* SPDX-License-Identifier: MIT */
/*
 * The profile (lib/src/profile/, issue 36) in the emulated guest, where time is instructions:
 * with -icount shift=0 (run.sh boots with it) one instruction is one ns of virtual time, so a
 * cpu-clock sample falls every P ns of the task's time, and with cycles:u QEMU's PMU raises
 * the cycle counter's overflow interrupt every N user instructions, on the instruction (an
 * event counter's, instructions:u, only at the next exception: tried, said, skipped). The
 * command is tests/data/profile/shares (cross-built static, not stripped, into /data by
 * run.sh) with one round: alpha, beta and gamma_ each called once, running the same
 * 4-instruction loop 5, 3 and 2 million times (as aarch64-linux-gnu-objdump shows; measured
 * here, not trusted).
 *
 * What "exact" means. A function's call is one stretch of the sampling grid: the number of
 * grid points in a stretch of length L is floor(L/period) or ceil(L/period), so a count is
 * within one sample of L/period, the one sample being the function's boundaries (it has one
 * call: two boundaries, which together cost at most one sample).
 *  - cycles:u, N = 100,000: L is the function's user instructions, iterations x k plus
 *    the call's few (under 64), k the loop's instructions an iteration, from two counted runs
 *    of 1 and 2 rounds; so each count is floor or ceil of L/N, and the run's total is
 *    floor(T/N) for the T user instructions counted in a run without sampling (the same
 *    work: the static program's runs differ by a few instructions of its C library's
 *    start-up, so within one).
 *  - cpu-clock, P = 100,000 ns: L is the function's time, its user instructions plus the
 *    kernel's in its context (each sample's interrupt, the scheduler's tick), which spreads
 *    over the three in proportion to their time; the period in user instructions is then P
 *    less the kernel's share (printed). So the shares are exact, not L/P: a count n_f of N3
 *    in the three is against N3 x w_f (w_f = 0.5, 0.3, 0.2, the instruction shares), and
 *    with n_f = L_f/P' + e_f, |e_f| < 1, n_f - w_f N3 = (1 - w_f) e_f - w_f (the others' e):
 *    under 1 + w_f. A sample in the kernel counts for the user function it interrupted.
 * Also: main among the callers of every sample in the three (frame pointers, the kernel's
 * walk), and DWARF mode's arm64 registers (perf's mask: x0-x30, SP, PC) collected and
 * consistent. They are not unwound here: the unwinder is libdw's, and the static cross build
 * has none (DW=0); the test reads the stack copy itself. Addresses become functions through
 * the program's own .symtab and program headers, read here (no nm in the guest).
 */
#include <asm/perf_regs.h>
#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbench.h"
#include "profile/profile.h"
#include "tap.h"

#define SHARES "/data/shares"
#define SHARES_NOFP "/data/shares-nofp"
#define PERIOD 100000		/* cpu-clock ns, instructions:u instructions */
#define DWARF_PERIOD 1000000
#define ROUND 10000000		/* shares.c's iterations a round: 1 round is "run 10" */

enum { ALPHA, BETA, GAMMA, MAIN, NFN };
static const char *const fn_name[NFN] = { "alpha", "beta", "gamma_", "main" };
static const double w[3] = { 0.5, 0.3, 0.2 };
static const uint64_t iters[3] = { ROUND / 10 * 5, ROUND / 10 * 3, ROUND / 10 * 2 };

struct prog {
	const char *path;
	uint64_t start[NFN], size[NFN];
	struct { uint64_t offset, filesz, vaddr; } seg[16];
	int nseg;
};

/* The program's PT_LOAD segments and its functions from .symtab (ELF64, as built). */
static int prog_load(struct prog *g, const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long len;
	int found = 0;

	memset(g, 0, sizeof(*g));
	g->path = path;
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < (long)sizeof(Elf64_Ehdr) ||
	    fseek(f, 0, SEEK_SET) || !(b = malloc((size_t)len)) ||
	    fread(b, 1, (size_t)len, f) != (size_t)len) {
		diag("cannot read %s", path);
		if (f)
			fclose(f);
		free(b);
		return 0;
	}
	fclose(f);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(b + eh->e_phoff);
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);

	for (int i = 0; i < eh->e_phnum && g->nseg < 16; i++)
		if (ph[i].p_type == PT_LOAD) {
			g->seg[g->nseg].offset = ph[i].p_offset;
			g->seg[g->nseg].filesz = ph[i].p_filesz;
			g->seg[g->nseg++].vaddr = ph[i].p_vaddr;
		}
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[i].sh_offset);
		const char *str = (const char *)(b + sh[sh[i].sh_link].sh_offset);

		for (size_t s = 0; s < sh[i].sh_size / sizeof(*sym); s++)
			for (int k = 0; k < NFN; k++)
				if (ELF64_ST_TYPE(sym[s].st_info) == STT_FUNC &&
				    !strcmp(str + sym[s].st_name, fn_name[k])) {
					g->start[k] = sym[s].st_value;
					g->size[k] = sym[s].st_size;
					found++;
				}
	}
	free(b);
	return found == NFN && g->nseg > 0;
}

/* The function of the program holding ip in pid at time t: ALPHA..MAIN, NFN another of its
 * own, -1 outside it. */
static int fn_of(const struct pb_profile *p, const struct prog *g, uint32_t pid, uint64_t t,
		 uint64_t ip)
{
	struct pb_profile_map m;
	uint64_t off;

	if (pb_profile_map_of(p, pid, ip, t, &m) || strcmp(m.path, g->path))
		return -1;
	off = ip - m.start + m.pgoff;
	for (int s = 0; s < g->nseg; s++) {
		if (off < g->seg[s].offset || off - g->seg[s].offset >= g->seg[s].filesz)
			continue;
		uint64_t addr = off - g->seg[s].offset + g->seg[s].vaddr;

		for (int i = 0; i < NFN; i++)
			if (addr >= g->start[i] && addr - g->start[i] < g->size[i])
				return i;
		return NFN;
	}
	return -1;
}

/* User instructions of argv from its exec to its exit (a counter armed enable_on_exec on the
 * child held before its exec); 0 on failure. */
static uint64_t count_user(char *const argv[])
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS, .disabled = 1,
				     .enable_on_exec = 1, .inherit = 1, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int go[2], fd = -1, status;
	uint64_t v = 0;
	pid_t pid;
	char c = 0;

	if (pipe(go))
		return 0;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	if (pid > 0)
		fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	if (fd < 0)
		diag("count %s: perf_event_open: %s", argv[0], strerror(errno));
	if (pid > 0 && write(go[1], &c, 1) != 1)
		diag("count %s: cannot release it", argv[0]);
	close(go[1]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	if (fd >= 0)
		close(fd);
	return v;
}

/* argv sampled with o into a profile (NULL when it failed, said). */
static struct pb_profile *sampled(const struct pb_profile_opts *o, char *const argv[])
{
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pb_profile *p = NULL;
	int err = pb_profile_new(&p, o);

	if (!err)
		err = pb_profile_run(p, argv, NULL, 60, &res);
	if (err || !res.exited || res.exit_status) {
		diag("%s sampled with %s: %s", argv[0], o->event ? o->event : "cpu-clock",
		     err ? pbench_strerror(err) : "did not exit 0");
		pb_profile_free(p);
		return NULL;
	}
	return p;
}

struct tally {
	size_t n, in_fn[NFN + 1], outside, kernel_leaf, in3, with_main;
};

/* Each sample to the program's function it was in: a sample in the kernel to the user
 * instruction it entered the kernel from (the user part of its chain). */
static void tally(const struct pb_profile *p, const struct prog *g, struct tally *t)
{
	struct pb_profile_sample s;

	memset(t, 0, sizeof(*t));
	t->n = pb_profile_nr(p);
	for (size_t i = 0; i < t->n; i++) {
		pb_profile_sample_at(p, i, &s);
		t->kernel_leaf += s.nkernel > 0;
		int f = s.nips > s.nkernel ? fn_of(p, g, s.pid, s.time_ns, s.ips[s.nkernel]) : -1;

		if (f < 0) {
			t->outside++;
			continue;
		}
		t->in_fn[f]++;
		if (f > GAMMA)
			continue;
		t->in3++;
		for (unsigned j = s.nkernel + 1; j < s.nips; j++)
			if (fn_of(p, g, s.pid, s.time_ns, s.ips[j]) == MAIN) {
				t->with_main++;
				break;
			}
	}
}

static void say_stats(const char *what, const struct pb_profile *p, const struct tally *t)
{
	struct pb_profile_stats st;

	pb_profile_stats(p, &st);
	diag("%s: %zu samples (%zu with a kernel leaf, %zu outside the program), alpha %zu beta "
	     "%zu gamma_ %zu main %zu other %zu; lost %llu, throttled %llu, drains %llu", what,
	     t->n, t->kernel_leaf, t->outside, t->in_fn[ALPHA], t->in_fn[BETA], t->in_fn[GAMMA],
	     t->in_fn[MAIN], t->in_fn[NFN], (unsigned long long)st.lost,
	     (unsigned long long)st.throttled, (unsigned long long)st.drains);
	ok(st.lost == 0 && st.lost_samples == 0 && st.throttled == 0 && st.bad == 0,
	   "%s: nothing lost, throttled or malformed", what);
}

/* k: the loop's instructions an iteration, from the user instructions of 1 and 2 rounds. */
static uint64_t loop_k(uint64_t *t1)
{
	char *r1[] = { SHARES, "run", "10", NULL }, *r2[] = { SHARES, "run", "20", NULL };
	uint64_t a = count_user(r1), b = count_user(r2), a2 = count_user(r1), k;

	*t1 = a;
	k = b > a ? (b - a + ROUND / 2) / ROUND : 0;
	diag("user instructions: 1 round %llu (again %llu), 2 rounds %llu: %llu a round, k = %llu",
	     (unsigned long long)a, (unsigned long long)a2, (unsigned long long)b,
	     (unsigned long long)(b - a), (unsigned long long)k);
	ok(a && (a > a2 ? a - a2 : a2 - a) < 64, "the program's user instructions the same every "
	   "run within a few (%llu, %llu: its C library's start-up varies)", (unsigned long long)a,
	   (unsigned long long)a2);
	ok(k && b - a >= k * ROUND && b - a < k * ROUND + 256, "a round is %llu iterations of k = "
	   "%llu instructions and a few (%llu)", (unsigned long long)ROUND,
	   (unsigned long long)k, (unsigned long long)(b - a - k * ROUND));
	return k;
}

static void cpu_clock(const struct prog *g, uint64_t k)
{
	char *argv[] = { SHARES, "run", "10", NULL };
	struct pb_profile_opts o = { .period = PERIOD };
	struct pb_profile *p = sampled(&o, argv);
	struct tally t;

	if (!ok(p != NULL, "cpu-clock every %d ns: sampled", PERIOD))
		return;
	tally(p, g, &t);
	say_stats("cpu-clock", p, &t);
	for (int f = 0; f < 3; f++) {
		double want = (double)t.in3 * w[f], d = (double)t.in_fn[f] - want;

		ok(fabs(d) < 1 + w[f], "cpu-clock: %s %zu samples of %zu, want %.1f (%.0f%%) within "
		   "%.1f: off by %+.1f", fn_name[f], t.in_fn[f], t.in3, want, 100 * w[f], 1 + w[f],
		   d);
	}
	if (t.in3)
		diag("cpu-clock: %.1f user instructions a sample in the three (the period %d ns "
		     "less the kernel's time in the task: %.1f a sample)",
		     (double)(k * ROUND) / (double)t.in3, PERIOD,
		     PERIOD - (double)(k * ROUND) / (double)t.in3);
	ok(t.in3 > 0 && t.with_main == t.in3, "frame pointers: main among the callers of %zu of "
	   "the %zu samples in the three", t.with_main, t.in3);
	pb_profile_free(p);
}

/* A hardware event every PERIOD user events, where QEMU raises the PMU's overflow interrupt
 * on the instruction: cycles:u (the cycle counter, PMCCNTR_EL0, which under icount counts
 * virtual ns: in user space, user instructions). Each count floor or ceil of L/N, the total
 * floor(T/N) within one (T varies by a few instructions between runs). An event counter
 * (instructions:u, PMEVCNTR<n>_EL0) overflows in QEMU 7.2 without the interrupt until the next
 * exception (the tick): then the counts are not exact, which is said and skipped. */
static void hardware(const struct prog *g, uint64_t k, uint64_t total, const char *ev)
{
	char *argv[] = { SHARES, "run", "10", NULL };
	struct pb_profile_opts o = { .event = ev, .period = PERIOD, .user_only = 1 };
	struct pb_profile *p = sampled(&o, argv);
	struct tally t;

	if (!p) {
		skip("%s every %d: the guest's PMU does not sample it", ev, PERIOD);
		return;
	}
	tally(p, g, &t);
	say_stats(ev, p, &t);
	if (total && t.n + 2 < total / PERIOD) {
		skip("%s: %zu samples where %llu overflows happened: QEMU raised the overflow "
		     "interrupt late (at the next exception, not on the instruction): exactness "
		     "not testable with this counter", ev, t.n,
		     (unsigned long long)(total / PERIOD));
		ok(t.in3 > 0 && t.in3 <= t.n, "%s: samples in the three (%zu of %zu)", ev, t.in3,
		   t.n);
		pb_profile_free(p);
		return;
	}
	for (int f = 0; f < 3; f++) {
		uint64_t lo = iters[f] * k / PERIOD, hi = (iters[f] * k + 64 + PERIOD - 1) / PERIOD;

		ok(t.in_fn[f] >= lo && t.in_fn[f] <= hi, "%s: %s %zu samples, want %llu x %llu / %d "
		   "= %.2f: %llu or %llu", ev, fn_name[f], t.in_fn[f], (unsigned long long)iters[f],
		   (unsigned long long)k, PERIOD, (double)(iters[f] * k) / PERIOD,
		   (unsigned long long)lo, (unsigned long long)hi);
	}
	ok(t.kernel_leaf == 0, "%s: no sample in the kernel (%zu)", ev, t.kernel_leaf);
	ok(total && (uint64_t)llabs((long long)t.n - (long long)(total / PERIOD)) <= 1,
	   "%s: %zu samples in all, the run's %llu user instructions / %d = %llu", ev, t.n,
	   (unsigned long long)total, PERIOD, (unsigned long long)(total / PERIOD));
	ok(t.in3 > 0 && t.with_main == t.in3, "%s: main among the callers of %zu of %zu", ev,
	   t.with_main, t.in3);
	pb_profile_free(p);
}

/* DWARF mode on the program without frame pointers: the registers of perf's arm64 mask. */
static void dwarf(void)
{
	char *argv[] = { SHARES_NOFP, "run", "10", NULL };
	struct pb_profile_opts o = { .period = DWARF_PERIOD, .dwarf = 1 };
	struct pb_profile_sample s;
	struct pb_profile *p;
	struct prog g;
	size_t user = 0, abi = 0, pc = 0, sp = 0, lr = 0, main_ret = 0;
	uint64_t mask = (UINT64_C(1) << PERF_REG_ARM64_MAX) - 1;

	if (!ok(prog_load(&g, SHARES_NOFP), "%s: its functions from its .symtab", SHARES_NOFP))
		return;
	p = sampled(&o, argv);
	if (!ok(p != NULL, "DWARF mode, cpu-clock every %d ns: sampled", DWARF_PERIOD))
		return;
	for (size_t i = 0; i < pb_profile_nr(p); i++) {
		pb_profile_sample_at(p, i, &s);
		int f = s.nkernel ? -1 : fn_of(p, &g, s.pid, s.time_ns, s.ips[0]);

		if (f < 0 || f > GAMMA)
			continue;
		user++;
		abi += s.regs_abi == PERF_SAMPLE_REGS_ABI_64 && s.regs_mask == mask &&
		       s.nregs == PERF_REG_ARM64_MAX && s.regs;
		if (!s.regs || s.nregs != PERF_REG_ARM64_MAX)
			continue;
		uint64_t vsp = s.regs[PERF_REG_ARM64_SP];

		pc += s.regs[PERF_REG_ARM64_PC] == s.ips[0];
		/* The copy starts at SP: aligned as the ABI wants, and holds the stack's top. */
		sp += vsp && vsp % 16 == 0 && s.stack_len >= 64;
		/* alpha and the others are not leaves: LR still holds the return into work */
		lr += fn_of(p, &g, s.pid, s.time_ns, s.regs[PERF_REG_ARM64_LR]) >= 0;
		for (size_t off = 0; off + 8 <= s.stack_len; off += 8) {
			uint64_t v;

			memcpy(&v, s.stack + off, 8);
			if (fn_of(p, &g, s.pid, s.time_ns, v) == MAIN) {
				main_ret++;
				break;
			}
		}
	}
	diag("DWARF: %zu samples, %zu in the three: ABI 64 with the %d registers %zu, PC the "
	     "sample's %zu, SP 16-aligned with a stack copy %zu, LR in the program %zu, main's "
	     "return address in the copy %zu (not unwound: no libdw in the static build)",
	     pb_profile_nr(p), user, PERF_REG_ARM64_MAX, abi, pc, sp, lr, main_ret);
	ok(user >= 20, "DWARF: %zu samples in the three", user);
	ok(abi == user, "DWARF: every sample has ABI 64 and x0-x30, SP, PC (%zu of %zu)", abi,
	   user);
	ok(pc == user && lr == user, "DWARF: PC the sample's address, LR in the program's text "
	   "(%zu, %zu of %zu)", pc, lr, user);
	ok(sp == user && main_ret == user, "DWARF: SP aligned, the stack copy from it holds "
	   "main's return address (%zu, %zu of %zu)", sp, main_ret, user);
	pb_profile_free(p);
}

int main(void)
{
	struct prog g;
	uint64_t k, total = 0;

	tap_init("profile");
	if (!ok(prog_load(&g, SHARES), "%s: alpha, beta, gamma_ and main from its .symtab",
		SHARES))
		return tap_done();
	k = loop_k(&total);
	cpu_clock(&g, k);
	hardware(&g, k, total, "cycles:u");
	hardware(&g, k, total, "instructions:u");
	dwarf();
	return tap_done();
}
