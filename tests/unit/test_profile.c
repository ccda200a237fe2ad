/* SPDX-License-Identifier: MIT */
/*
 * The profile of one run (lib/src/profile/, issue 36's sampling; not exported yet, so a
 * whitebox test of profile/profile.h). The command sampled is tests/data/profile/shares, built
 * by the Makefile beside this test (-O1; with frame pointers, and shares-nofp without): its
 * functions alpha, beta and gamma_ run the same loop 5, 3 and 2 times as often, so a correct
 * profile finds 50%, 30% and 20% of the samples in them (within 2 points), every sample's
 * address in the program's text, and with frame pointers main among each sample's callers.
 * Addresses become functions here through the program's own symbol table (nm -S) and program
 * headers: the symbolizer is another module's. Skips where perf_event_open refuses the event.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <limits.h>
#include <math.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"
#include "profile/profile.h"

enum { ALPHA, BETA, GAMMA, MAIN, NFN };
static const char *const fn_name[NFN] = { "alpha", "beta", "gamma_", "main" };
static const double want_pct[3] = { 50, 30, 20 };

/* The program's functions (file addresses) and its PT_LOAD segments. */
struct prog {
	char path[PATH_MAX];
	uint64_t start[NFN], size[NFN];
	struct { uint64_t offset, filesz, vaddr; } seg[16];
	int nseg;
};

static void prog_path(struct prog *g, const char *name)
{
	char self[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	cr_assert_not_null(slash);
	*slash = '\0';
	snprintf(g->path, sizeof(g->path), "%s/data/profile/%s", self, name);
	cr_assert_eq(access(g->path, X_OK), 0, "%s is not built (make %s)", g->path, g->path);
}

static void prog_segments(struct prog *g)
{
	FILE *f = fopen(g->path, "rb");
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;

	cr_assert_not_null(f);
	cr_assert_eq(fread(&eh, sizeof(eh), 1, f), 1);
	for (int i = 0; i < eh.e_phnum && g->nseg < 16; i++) {
		cr_assert_eq(fseek(f, (long)(eh.e_phoff + (size_t)i * eh.e_phentsize), SEEK_SET), 0);
		cr_assert_eq(fread(&ph, sizeof(ph), 1, f), 1);
		if (ph.p_type == PT_LOAD) {
			g->seg[g->nseg].offset = ph.p_offset;
			g->seg[g->nseg].filesz = ph.p_filesz;
			g->seg[g->nseg++].vaddr = ph.p_vaddr;
		}
	}
	fclose(f);
}

/* The program's path, functions (nm -S) and segments. */
static void prog_load(struct prog *g, const char *name)
{
	char cmd[PATH_MAX + 32], line[512], type, sym[256];
	unsigned long long addr, size;
	FILE *nm;

	memset(g, 0, sizeof(*g));
	prog_path(g, name);
	snprintf(cmd, sizeof(cmd), "nm -S '%s'", g->path);
	nm = popen(cmd, "r");
	cr_assert_not_null(nm, "nm cannot run (binutils)");
	while (fgets(line, sizeof(line), nm))
		if (sscanf(line, "%llx %llx %c %255s", &addr, &size, &type, sym) == 4)
			for (int i = 0; i < NFN; i++)
				if (!strcmp(sym, fn_name[i])) {
					g->start[i] = addr;
					g->size[i] = size;
				}
	pclose(nm);
	for (int i = 0; i < NFN; i++)
		cr_assert_gt(g->size[i], 0, "nm found no %s in %s", fn_name[i], g->path);
	prog_segments(g);
}

/* The function of the program that holds ip in process pid at time t: ALPHA..MAIN, NFN for
 * another of its functions, -1 outside the program. */
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

/* A run of argv sampled with opts into *p: 0, or skipped when this kernel refuses it. */
static void run_sampled(struct pb_profile **p, const struct pb_profile_opts *o,
			char *const argv[])
{
	struct pbench_child_result res = { .size = sizeof(res) };
	int err = pb_profile_new(p, o);

	cr_assert_eq(err, 0, "pb_profile_new: %s", pbench_strerror(err));
	err = pb_profile_run(*p, argv, NULL, 60, &res);
	if (err == -EACCES || err == -EPERM || err == -ENOENT || err == -ENODEV ||
	    err == -EOPNOTSUPP) {
		pb_profile_free(*p);
		*p = NULL;
		cr_skip_test("perf_event_open refused the sampling event here: %s",
			     pbench_strerror(err));
	}
	cr_assert_eq(err, 0, "pb_profile_run: %s", pbench_strerror(err));
	cr_assert(res.exited && res.exit_status == 0, "%s did not exit 0", argv[0]);
}

/* What the samples of a run say about the program. */
struct tally {
	size_t n, in_text, in_fn[NFN + 1], with_main, kernel_leaf;
};

static void tally(const struct pb_profile *p, const struct prog *g, struct tally *t)
{
	struct pb_profile_sample s;

	memset(t, 0, sizeof(*t));
	t->n = pb_profile_nr(p);
	for (size_t i = 0; i < t->n; i++) {
		cr_assert_eq(pb_profile_sample_at(p, i, &s), 0);
		if (s.nkernel) {
			t->kernel_leaf++;	/* in the kernel: its user frame is where it entered */
			continue;
		}
		cr_assert_gt(s.nips, 0);
		int f = fn_of(p, g, s.pid, s.time_ns, s.ips[0]);

		if (f < 0)
			continue;
		t->in_text++;
		t->in_fn[f]++;
		if (f > GAMMA)
			continue;
		for (unsigned j = 1; j < s.nips; j++)
			if (fn_of(p, g, s.pid, s.time_ns, s.ips[j]) == MAIN) {
				t->with_main++;
				break;
			}
	}
}

/* The shares of alpha, beta and gamma_ within 2 points of 50/30/20; the largest miss. */
static double shares_miss(const struct tally *t, double pct[3])
{
	size_t in3 = t->in_fn[ALPHA] + t->in_fn[BETA] + t->in_fn[GAMMA];
	double worst = 0;

	for (int i = 0; i < 3; i++) {
		pct[i] = in3 ? 100.0 * (double)t->in_fn[i] / (double)in3 : 0;
		if (fabs(pct[i] - want_pct[i]) > worst)
			worst = fabs(pct[i] - want_pct[i]);
	}
	return worst;
}

static void say(const char *what, const struct pb_profile *p, const struct tally *t,
		const double pct[3])
{
	struct pb_profile_stats st;

	pb_profile_stats(p, &st);
	cr_log_info("%s: %zu samples (%zu in the kernel), %zu in the program's text; alpha %.2f%% "
		    "beta %.2f%% gamma %.2f%% (want 50/30/20); main among the callers of %zu; lost "
		    "%llu, throttled %llu; %zu maps; %.1f bytes a sample stored, %zu raw; %llu "
		    "drains; max rate %ld -> %ld", what, t->n, t->kernel_leaf, t->in_text, pct[0],
		    pct[1], pct[2], t->with_main, (unsigned long long)st.lost,
		    (unsigned long long)st.throttled, st.nmaps,
		    t->n ? (double)st.store_bytes / (double)t->n : 0.0, st.raw_bytes,
		    (unsigned long long)st.drains, st.max_rate_before, st.max_rate_after);
}

/* Up to 3 tries, each afresh: the host may slow a vCPU for a moment in one. */
Test(profile, shares_with_frame_pointers)
{
	struct prog g;
	char *argv[] = { g.path, "run", "400", NULL };
	struct pb_profile_stats st;
	struct pb_profile *p = NULL;
	struct tally t;
	double pct[3], miss = 100;
	int tries = 0;

	prog_load(&g, "shares");
	while (tries++ < 3 && miss > 2) {
		pb_profile_free(p);
		run_sampled(&p, NULL, argv);
		tally(p, &g, &t);
		miss = shares_miss(&t, pct);
		say("shares, frame pointers", p, &t, pct);
	}
	pb_profile_stats(p, &st);
	cr_expect_str_eq(st.event, "cpu-clock");
	cr_expect_eq(st.freq, 4000);
	cr_expect_geq(t.n, 1000, "%zu samples of a 0.5 s run at 4 kHz", t.n);
	cr_expect_eq(st.lost, 0);
	cr_expect_eq(st.bad, 0);
	cr_expect_geq(t.in_text * 100, (t.n - t.kernel_leaf) * 99,
		      "%zu of %zu user samples in the program's text", t.in_text,
		      t.n - t.kernel_leaf);
	cr_expect_leq(miss, 2, "alpha %.2f%%, beta %.2f%%, gamma %.2f%%: want 50/30/20", pct[0],
		      pct[1], pct[2]);
	size_t in3 = t.in_fn[ALPHA] + t.in_fn[BETA] + t.in_fn[GAMMA];

	cr_expect_geq(t.with_main * 100, in3 * 99, "main found among the callers of %zu of %zu",
		      t.with_main, in3);
	pb_profile_free(p);
	TEST_RETRIED("profile::shares_with_frame_pointers", tries - 1);
}

/* The first user register the DWARF mode copies that is the instruction pointer (x86-64: IP,
 * the 9th of the mask; arm64: PC, the 33rd). -1 elsewhere. */
static int ip_reg(void)
{
#if defined(__x86_64__)
	return 8;
#elif defined(__aarch64__)
	return 32;
#else
	return -1;
#endif
}

/* Whether the stack copy of s holds a return address into main. */
static int stack_has_main(const struct pb_profile *p, const struct prog *g,
			  const struct pb_profile_sample *s)
{
	for (size_t o = 0; o + 8 <= s->stack_len; o += 8) {
		uint64_t v;

		memcpy(&v, s->stack + o, 8);
		if (fn_of(p, g, s->pid, s->time_ns, v) == MAIN)
			return 1;
	}
	return 0;
}

Test(profile, shares_without_frame_pointers_dwarf)
{
	struct prog g;
	char *argv[] = { g.path, "run", "400", NULL };
	struct pb_profile_opts o = { .dwarf = 1 };
	struct pb_profile_sample s;
	struct pb_profile_stats st;
	struct pb_profile *p = NULL;
	size_t regs_ok = 0, main_in_stack = 0, user = 0;
	struct tally t;
	double pct[3], miss = 100;
	int tries = 0;

	prog_load(&g, "shares-nofp");
	while (tries++ < 3 && miss > 2) {
		pb_profile_free(p);
		run_sampled(&p, &o, argv);
		tally(p, &g, &t);
		miss = shares_miss(&t, pct);
		say("shares-nofp, DWARF", p, &t, pct);
	}
	pb_profile_stats(p, &st);
	cr_expect_eq(st.lost, 0);
	cr_expect_leq(miss, 2, "alpha %.2f%%, beta %.2f%%, gamma %.2f%%: want 50/30/20", pct[0],
		      pct[1], pct[2]);
	for (size_t i = 0; i < t.n; i++) {
		pb_profile_sample_at(p, i, &s);
		int f = s.nkernel ? -1 : fn_of(p, &g, s.pid, s.time_ns, s.ips[0]);

		if (f < 0 || f > GAMMA)
			continue;
		user++;
		regs_ok += s.regs && ip_reg() >= 0 && s.regs[ip_reg()] == s.ips[0] && s.stack_len;
		main_in_stack += stack_has_main(p, &g, &s);
	}
	cr_log_info("DWARF: %zu samples in the three, registers' IP the sample's in %zu, main's "
		    "return address in the stack copy of %zu", user, regs_ok, main_in_stack);
	cr_expect_gt(user, 1000);
	cr_expect_eq(regs_ok, user);
	cr_expect_geq(main_in_stack * 100, user * 99);
	pb_profile_free(p);
	TEST_RETRIED("profile::shares_without_frame_pointers_dwarf", tries - 1);
}
