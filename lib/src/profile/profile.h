/* SPDX-License-Identifier: MIT */
/*
 * The profile module (lib/src/profile/): where a command's time goes, sampled over one timed
 * run of its whole process tree (issue 36's first layer), declared for the files of the
 * library. Nothing here is exported yet: the runs and the contest take it up later.
 *
 * One profile is one run. pb_profile_new() resolves the event and the options; pb_profile_start()
 * starts the command with the child API's handshake and arms the sampling events on its pid
 * before its release (enable_on_exec, inherit: its threads and children are sampled into the
 * same buffers); pb_profile_wait() waits for it, copying the rings out as they fill (only a
 * copy inside the timed span); then the records are parsed, after the run: the samples (their
 * call chains; in DWARF mode the user registers and a copy of the user stack, for an unwinder),
 * the maps of each process (with their build-ids), the processes and threads, the samples
 * lost and the throttling. The folded-stack writer gives FlameGraph's format, over raw
 * addresses or through a symbolizer's callback. The files: profile_ring.c (the events and their
 * rings), profile_data.c (the compact store and its reads), profile_parse.c (records into the
 * store), profile.c (a run), profile_folded.c (the writer). Never installed.
 */
#ifndef PBENCH_PROFILE_PROFILE_H
#define PBENCH_PROFILE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pbench.h"

#define PB_PROFILE_FREQ 4000		/* samples a second: perf record's default */
#define PB_PROFILE_STACK 8192		/* DWARF mode: bytes of user stack copied a sample */

struct pb_profile;

/* What to sample with. Zeroed: cpu-clock at 4 kHz, frame-pointer chains, user and kernel
 * where the kernel allows it. */
struct pb_profile_opts {
	const char *event;	/* NULL: cpu-clock (a timer: no PMU needed); else a name the
				 * counters resolve (pb_event_resolve(): libpfm4, pmu/.../) */
	uint64_t freq;		/* samples a second (0: PB_PROFILE_FREQ) */
	uint64_t period;	/* > 0: a sample every period events, instead of freq */
	int dwarf;		/* 1: also the user registers and stack (DWARF unwinding) */
	uint32_t stack_bytes;	/* DWARF: user stack bytes a sample (0: PB_PROFILE_STACK) */
	int user_only;		/* 1: leave the kernel out even where it may be sampled */
	unsigned ring_pages;	/* data pages of a CPU's ring, a power of 2 (0: 128, DWARF 512) */
};

/* One sample as the store gives it back; the pointers are the profile's, valid until it is
 * freed. */
struct pb_profile_sample {
	uint32_t pid, tid;
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint64_t period;	/* events since the last sample (cpu-clock: ns) */
	const uint64_t *ips;	/* the call chain, leaf first, the kernel's context markers
				 * taken out: ips[0..nkernel-1] in the kernel, then the user's;
				 * after the first, return addresses */
	unsigned nips, nkernel;
	int cut;		/* 1: the chain may be cut short (the kernel's depth limit;
				 * a user chain missing below a kernel one) */
	/* DWARF mode (NULL, 0 otherwise): the registers of the user context (regs_mask's bits
	 * in order: asm/perf_regs.h), a copy of the user stack from its pointer up */
	uint64_t regs_abi;	/* PERF_SAMPLE_REGS_ABI_*: 0 no registers (a kernel thread) */
	uint64_t regs_mask;
	const uint64_t *regs;
	unsigned nregs;
	const unsigned char *stack;
	size_t stack_len;
	int stack_full;		/* 1: the copy filled stack_bytes: deeper frames not copied */
};

/* A mapping of a file (or [vdso], anonymous code) in one process, as the kernel reported it. */
struct pb_profile_map {
	uint32_t pid;
	uint64_t start, end;	/* [start, end) in the process */
	uint64_t pgoff;		/* file offset of start */
	uint64_t time_ns;	/* when it was made (0: before the run) */
	const char *path;
	const unsigned char *build_id;	/* NULL where the kernel gave none */
	unsigned build_id_size;
	uint32_t prot;
};

/* What a run's profile holds and what it could not. */
struct pb_profile_stats {
	const char *event;		/* as asked ("cpu-clock") */
	uint64_t freq, period;		/* the one asked (the other 0) */
	int dwarf;
	int kernel;			/* 1: the kernel is sampled; 0: hidden, kernel_why says */
	const char *kernel_why;
	int rings;			/* CPUs with a ring */
	unsigned ring_pages;		/* data pages a ring */
	uint64_t samples;		/* kept */
	uint64_t lost;			/* records the kernel could not write (PERF_RECORD_LOST) */
	uint64_t lost_samples;		/* PERF_RECORD_LOST_SAMPLES (the PMU's) */
	uint64_t throttled, unthrottled;	/* PERF_RECORD_THROTTLE, UNTHROTTLE */
	uint64_t cut;			/* samples whose chain may be cut short */
	uint64_t bad;			/* records that did not parse */
	long max_rate_before, max_rate_after;	/* perf_event_max_sample_rate (-1: unread) */
	uint64_t drains;		/* copies of the rings while the command ran */
	uint64_t copy_ns;		/* pbench's time copying them then (its thread's, beside
					 * the command: the only work of pbench in the span) */
	uint64_t parse_ns;		/* the parse, after the run */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC, as the samples' times: the events
					 * armed, just before the command's release; the end
					 * of the wait (0: not there yet) */
	size_t raw_bytes;		/* bytes copied out of the rings */
	size_t store_bytes;		/* the samples' store: per sample, store_bytes / samples */
	size_t nmaps, ntasks;		/* maps; FORK and EXIT records */
};

/* profile.c */
/* A profile for one run, nothing opened yet: opts (NULL: the defaults) checked and the event
 * resolved. 0, -EINVAL (opts, with why), -PBENCH_EUNKNOWN_EVENT, -ENOMEM. */
int pb_profile_new(struct pb_profile **out, const struct pb_profile_opts *opts);
void pb_profile_free(struct pb_profile *p);
/* argv started as pb_child_start_stderr() starts it (copts, stderr_fd), with the handshake:
 * the sampling events opened on its pid for every CPU, armed for its exec, their rings
 * mapped, before the release. A profile starts once. 0 or the error: of opening the events
 * (-EACCES, -EPERM: perf_event_paranoid or seccomp; -ENOENT, -EOPNOTSUPP: no such event
 * here), of mapping the rings, of the start; with why (pbench_strerror()). */
int pb_profile_start(struct pb_profile *p, struct pbench_child **ch, char *const argv[],
		     const struct pbench_child_opts *copts, int stderr_fd);
/* pbench_child_wait_timeout(ch, timeout_s, res), the rings copied out whenever a quarter of
 * one fills (poll on its descriptor and on the command's pidfd) and once more after it
 * ended; then the events are closed and the records parsed (pb_profile_end()). Its return:
 * the wait's (-EINTR: the command still runs and nothing is ended; call again). */
int pb_profile_wait(struct pb_profile *p, struct pbench_child *ch, double timeout_s,
		    struct pbench_child_result *res);
/* The last copy, the events closed, the records parsed (once; a second call does nothing):
 * for a caller that waited by itself. 0, -ENOMEM. */
int pb_profile_end(struct pb_profile *p);
/* A whole run: start, wait, the child freed (ended if it still ran: a signal's handler
 * interrupted the wait, -EINTR, with the samples until then kept). 0 or the first error. */
int pb_profile_run(struct pb_profile *p, char *const argv[],
		   const struct pbench_child_opts *copts, double timeout_s,
		   struct pbench_child_result *res);

/* profile_parse.c: records as a ring holds them (n bytes: a recorded ring, a test's) parsed
 * into p, a profile not started (its options say what a sample holds), which then counts as
 * ended. 0, -EINVAL, -ENOMEM; a malformed record is counted (stats' bad), not an error. */
int pb_profile_parse_raw(struct pb_profile *p, const void *buf, size_t n);

/* profile_data.c: reading a profile back, after pb_profile_end(). */
size_t pb_profile_nr(const struct pb_profile *p);
/* Sample i into *out: 0, -ERANGE. */
int pb_profile_sample_at(const struct pb_profile *p, size_t i, struct pb_profile_sample *out);
size_t pb_profile_nr_maps(const struct pb_profile *p);
int pb_profile_map_at(const struct pb_profile *p, size_t i, struct pb_profile_map *out);
/* The map that held ip in process pid at time_ns: its own maps made by then (after its last
 * exec), else its parent's at the fork. 0, -ENOENT. A binary search to the process's own
 * maps and tasks (they are sorted by process, then time: pb_profile_map_at()'s order), then
 * a scan of those. */
int pb_profile_map_of(const struct pb_profile *p, uint32_t pid, uint64_t ip, uint64_t time_ns,
		      struct pb_profile_map *out);
/* The command name of pid (its last COMM; a forked child's that did not exec, its parent's),
 * or NULL. */
const char *pb_profile_comm(const struct pb_profile *p, uint32_t pid);
void pb_profile_stats(const struct pb_profile *p, struct pb_profile_stats *out);
/* What the profile could not see, in words, a line each ("\n"-terminated) into buf (cut to
 * len): the kernel hidden, records lost, the sampling throttled, the kernel's
 * perf_event_max_sample_rate lowered during the run, chains that may be cut short, stack
 * copies that filled their size, records that did not parse, no samples at all. The number
 * of lines; 0 when there is nothing to say. */
int pb_profile_caveats(const struct pb_profile *p, char *buf, size_t len);

/* profile_folded.c: the folded stacks FlameGraph, inferno and speedscope read, one line a
 * distinct stack, "root;...;leaf count", sorted. A frame is named by sym when it gives a
 * name (its return > 0 with buf filled, NUL-terminated), else raw: "0x<address>" and, in
 * the kernel, "_[k]" after it (FlameGraph's mark). is_return: ip is a return address (the
 * caller's frame: a symbolizer looks up ip - 1). PB_FOLDED_COMM: the process's command
 * name as the root frame; PB_FOLDED_PERIOD: counts are the samples' periods summed (cpu-clock:
 * ns), not samples. 0, -ENOMEM, or the write's error. */
#define PB_FOLDED_COMM 1
#define PB_FOLDED_PERIOD 2
typedef int (*pb_profile_sym_fn)(void *arg, const struct pb_profile *p, uint32_t pid,
				 uint64_t time_ns, uint64_t ip, int kernel, int is_return,
				 char *buf, size_t len);
int pb_profile_write_folded(const struct pb_profile *p, FILE *f, unsigned flags,
			    pb_profile_sym_fn sym, void *arg);

#endif
