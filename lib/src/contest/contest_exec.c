/* SPDX-License-Identifier: MIT */
/*
 * Running a contest: the setup command, the output check, preparing, the warm-up runs, the
 * rounds (interleaved in a fresh random order each, or one entrant after the other), the
 * cleanup command. A duet's rounds are contest_duet.c's; what both need (the helper commands,
 * progress, the budget) is contest_round.c's. Each run is one of its entrant's
 * pbench_runs set (pb_runs_one()), so it is timed, counted and probed as pbench stat's are.
 *
 * The random order of each round is RMIT (Abedi and Brecht, "Conducting Repeatable
 * Experiments in Highly Variable Cloud Computing Environments", ICPE 2017): a fixed order
 * puts whatever drifts (heat, the host's other tenants, a periodic job) on the same entrant at
 * the same place of every round; a fresh order spreads it over all of them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "measure/measure.h"
#include "runs/runs.h"
#include "contest/contest.h"

/* ---- one run -------------------------------------------------------------------------------- */

/* Entrant i's next run, after the prerun command (o.prerun): 0, 1 stopped, or an error
 * (pb_fail_msg()). */
static int run_one(struct pbench_contest *c, int i, int keep)
{
	struct pb_entrant *e = &c->e[i];
	int err = pb_contest_helper(c, c->prerun, "prepare");

	if (!err)
		err = pb_contest_helper(c, e->prerun, "prepare");
	if (err)
		return err;
	err = pb_runs_one(e->r, e->set, 0);
	if (err)
		return err;
	if (!keep) {
		pb_runs_forget(e->r, e->set);
		return 0;
	}
	return pb_contest_keep_time(c, i);
}

/* ---- the output check ----------------------------------------------------------------------- */

/* FNV-1a (64 bits) of what the descriptor holds, from its start. */
static int hash_fd(int fd, uint64_t *hash, uint64_t *bytes)
{
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t n;
	off_t off = 0;

	*bytes = 0;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		for (ssize_t k = 0; k < n; k++) {
			h ^= buf[k];
			h *= 0x100000001b3ULL;
		}
		off += n;
		*bytes += (uint64_t)n;
	}
	*hash = h;
	return n < 0 ? -errno : 0;
}

/* One run of a command with its stdout in memory: its status and the hash of its output. */
static int check_command(struct pbench_contest *c, struct pb_entrant *e)
{
	int fd = memfd_create("pbench-check", MFD_CLOEXEC), err;
	struct pb_run_status st;

	if (fd < 0)
		return -errno;
	err = pb_contest_helper(c, c->prerun, "prepare");
	if (!err)
		err = pb_contest_helper(c, e->prerun, "prepare");
	if (!err) {
		/* A command that fails here (exit non-zero, killed) is said at once, with the
		 * last line of its stderr, and nothing is timed (-PBENCH_ECMD_FAILED). */
		err = pb_runs_check(e->r, e->set, fd, e->name);
		if (err == -PBENCH_ECMD_FAILED)
			pb_runs_forget(e->r, e->set);
	}
	if (!err) {
		st = pb_runs_status(pb_runs_run_at(e->set, 0));
		e->exited = st.exited;
		e->exit_status = st.exit_status;
		e->signaled = st.signaled;
		e->term_signal = st.term_signal;
		err = hash_fd(fd, &e->hash, &e->bytes);
		e->checked = !err;
		pb_runs_forget(e->r, e->set);
	}
	close(fd);
	return err;
}

static void status_words(const struct pb_entrant *e, char *buf, size_t len)
{
	if (e->signaled)
		snprintf(buf, len, "killed by signal %d", e->term_signal);
	else
		snprintf(buf, len, "exit %d", e->exit_status);
}

/* e against the reference: the same status and the same output, or -PBENCH_EDIFFERENT. */
static int same_work(const struct pb_entrant *e, const struct pb_entrant *ref)
{
	char a[64], b[64];

	status_words(e, a, sizeof(a));
	status_words(ref, b, sizeof(b));
	if (strcmp(a, b))
		return pb_fail_msg(-PBENCH_EDIFFERENT, "'%s' and '%s' do different work: %s "
				   "against %s (the output check)", e->name, ref->name, a, b);
	if (e->hash != ref->hash || e->bytes != ref->bytes) {
		return pb_fail_msg(-PBENCH_EDIFFERENT, "'%s' and '%s' do different work: their "
				   "output differs (%llu bytes against %llu, FNV-1a %016llx against "
				   "%016llx; the output check)", e->name, ref->name,
				   (unsigned long long)e->bytes, (unsigned long long)ref->bytes,
				   (unsigned long long)e->hash, (unsigned long long)ref->hash);
	}
	return 0;
}

/* Commands: status and stdout; functions with a digest: one call, then the digest. Built-in
 * workloads of different sizes do different amounts of the same work: not checked. */
static int check_outputs(struct pbench_contest *c)
{
	const struct pb_entrant *ref = &c->e[c->o.reference];
	int err = 0, commands = 0;

	if (c->o.flags & PBENCH_CONTEST_NO_CHECK)
		return 0;
	pb_contest_progress(c, "check");
	for (int i = 0; i < c->n && !err; i++) {
		struct pb_entrant *e = &c->e[i];

		if (!e->r)
			continue;
		if (pb_runs_argv(e->r)) {
			commands++;
			err = check_command(c, e);
		} else if (e->digest && pb_runs_fn(e->r)) {
			pb_runs_fn(e->r)(e->ctx);
			e->hash = e->digest(e->ctx);
			e->checked = 1;
		}
	}
	for (int i = 0; i < c->n && !err; i++)
		if (i != c->o.reference && c->e[i].checked && ref->checked)
			err = same_work(&c->e[i], ref);
	c->checked = !err && commands > 0;
	return err;
}

/* ---- preparing and warming up --------------------------------------------------------------- */

static int first_live(const struct pbench_contest *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].r)
			return i;
	return -1;
}

/* One reference loop for all the entrants, calibrated once where they run: their CPU
 * speeds on one scale (a loop of its own each would differ in length). Without memory for
 * it, each makes its own at its first run, and their speeds are not compared. */
static void share_speed(struct pbench_contest *c)
{
	int j = first_live(c);

	for (int i = 0; j >= 0 && i < c->n; i++)
		if (c->e[i].r && pb_runs_share_speed(c->e[i].r, c->e[j].r))
			return;
}

/* Prepared: one CPU for all, pinned and prioritized once, each set told (a duet: the priority
 * only, which both commands inherit, each pinned to its own CPU); unprepared: each set notes
 * the priority it runs at. 0, 1 stopped, or an error (pb_fail_msg()). */
static int prepare_all(struct pbench_contest *c)
{
	int j = first_live(c), err;

	if (c->o.mode != PBENCH_RUNS_PREPARED) {
		for (int i = 0; i < c->n; i++)
			if (c->e[i].r)
				pb_runs_current_priority(c->e[i].set);
		share_speed(c);
		return 0;
	}
	pb_contest_progress(c, "preparing");
	err = pb_runs_prepare(c->e[j].r, c->e[j].set, pb_contest_is_duet(c) ?
			      PBENCH_PREPARE_NO_PIN | PBENCH_PREPARE_NO_NUMA : 0);
	if (err)
		return err;
	for (int i = 0; i < c->n; i++)
		if (c->e[i].r && i != j)
			pb_runs_share_prepared(c->e[i].set, c->e[j].set);
	share_speed(c);
	return 0;
}

static void unprepare_all(struct pbench_contest *c)
{
	int j = first_live(c);

	if (c->o.mode != PBENCH_RUNS_PREPARED || !pb_runs_set_preparing(c->e[j].set))
		return;
	pb_runs_unprepare(c->e[j].r, c->e[j].set);
	for (int i = 0; i < c->n; i++)
		if (c->e[i].r && i != j)
			pb_runs_share_prepared(c->e[i].set, c->e[j].set);
}

/* xorshift64: the rounds' orders. */
static uint64_t next_random(struct pbench_contest *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

/* The live entrants in a fresh random order (Fisher-Yates); how many. */
static int shuffled(struct pbench_contest *c, int *order)
{
	int n = 0;

	for (int i = 0; i < c->n; i++)
		if ((c->e[i].live || (i == c->o.reference && c->e[i].r)) && !c->e[i].own_stop)
			order[n++] = i;
	for (int k = n - 1; k > 0; k--) {
		int j = (int)(next_random(c) % (uint64_t)(k + 1)), t = order[k];

		order[k] = order[j];
		order[j] = t;
	}
	return n;
}

/* One round: each live entrant once, in a random order; *n gets how many ran. */
static int round_of(struct pbench_contest *c, int *order, int keep, int *n)
{
	*n = shuffled(c, order);
	for (int k = 0; k < *n; k++) {
		int err = run_one(c, order[k], keep);

		if (err)
			return err;
	}
	return 0;
}

/* The round's pairs: each challenger's run with the reference's of the same round, when both
 * are times (neither timed out). A drift slower than a round falls on both and cancels in
 * their ratio: the rounds are blocks, and the order within each is random. */
static int pair_round(struct pbench_contest *c, const int *order, int n)
{
	const struct pb_set *rs = c->e[c->o.reference].set;
	const struct pb_run *ref = rs && pb_runs_set_done(rs) ?
				   pb_runs_run_at(rs, pb_runs_set_done(rs) - 1) : NULL;
	int err = 0;

	if (ref && pb_runs_status(ref).timed_out)
		ref = NULL;
	for (int k = 0; k < n && ref && !err; k++) {
		struct pb_entrant *e = &c->e[order[k]];
		const struct pb_run *own = pb_runs_run_at(e->set, pb_runs_set_done(e->set) - 1);

		if (order[k] != c->o.reference && !pb_runs_status(own).timed_out)
			err = pb_contest_append_pair(e, pb_runs_run_value(c->e[c->o.reference].r,
									  ref),
						     pb_runs_run_value(e->r, own));
	}
	return err;
}

/* The warm-up rounds, the first of them the output check when the check waited for it
 * (checked_in_warmup: a command is not run once more only to be checked, issue 37). */
static int warm_up(struct pbench_contest *c, int *order, int checked_in_warmup)
{
	int err = 0, n;
	long w = 0;

	if (c->o.warmup_runs)
		pb_contest_progress(c, "warm-up");
	if (checked_in_warmup) {
		err = check_outputs(c);
		w = 1;
	}
	for (; w < c->o.warmup_runs && !err; w++)
		err = round_of(c, order, 0, &n);
	return err;
}

/* ---- the rounds ----------------------------------------------------------------------------- */

/* Whether the test is looked at as the rounds come (else once, at the end). */
static int looks_each_round(const struct pbench_contest *c)
{
	return !(c->o.flags & PBENCH_CONTEST_FULL_BUDGET);
}

static int interleaved(struct pbench_contest *c, int *order)
{
	uint64_t t0 = pbench_ticks();

	while (!pb_contest_stopped(c) && !pb_contest_budget_spent(c)) {
		int n, err = round_of(c, order, 1, &n);

		if (!err && !n) {	/* every entrant left on its own stop */
			c->stop = PBENCH_CONTEST_STOP_DECIDED;
			break;
		}
		if (!err && pb_contest_paired(c))
			err = pair_round(c, order, n);
		if (err)
			return err;
		c->rounds++;
		c->elapsed_s = pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
		if (looks_each_round(c) && pb_contest_look_if_due(c)) {
			c->stop = PBENCH_CONTEST_STOP_DECIDED;
			break;
		}
		pb_contest_progress(c, "rounds");
	}
	return 0;
}

/* One entrant after the other, each for its share of the budget; one look at the end. */
static int one_after_another(struct pbench_contest *c)
{
	uint64_t t0 = pbench_ticks();
	double share;
	int live = 0;

	for (int i = 0; i < c->n; i++)
		live += c->e[i].r != NULL;
	share = c->o.max_time_s > 0 ? c->o.max_time_s / live : INFINITY;
	for (int i = 0; i < c->n; i++) {
		uint64_t ti = pbench_ticks();
		struct pb_entrant *e = &c->e[i];

		while (e->r && !pb_contest_stopped(c) &&
		       pb_runs_set_done(e->set) < c->o.max_rounds &&
		       pbench_ticks_to_ns_f(pbench_ticks() - ti) / 1e9 < share) {
			int err = run_one(c, i, 1);

			if (err)
				return err;
			if (pb_runs_set_done(e->set) > c->rounds)
				c->rounds = pb_runs_set_done(e->set);
			c->elapsed_s = pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e9;
			pb_contest_progress(c, "rounds");
		}
	}
	c->stop = c->rounds >= c->o.max_rounds ? PBENCH_CONTEST_STOP_MAX_ROUNDS :
		  PBENCH_CONTEST_STOP_TIME;
	return 0;
}

/* ---- the contest ---------------------------------------------------------------------------- */

static int check_entrants(struct pbench_contest *c)
{
	int live = 0;

	for (int i = 0; i < c->n; i++)
		live += c->e[i].r != NULL;
	if (c->n < 2 || !live)
		return pb_fail_msg(-EINVAL, "a contest needs two entrants, one of them run at "
				   "least (%d, %d run)", c->n, live);
	if (c->o.reference >= c->n)
		return pb_fail_msg(-EINVAL, "the reference is entrant %d, and there are %d",
				   c->o.reference, c->n);
	if (pb_contest_is_duet(c) && (c->n != 2 || !c->e[0].r || !c->e[1].r ||
				      !pb_runs_argv(c->e[0].r) || !pb_runs_argv(c->e[1].r)))
		return pb_fail_msg(-EINVAL, "a duet runs two commands side by side: %s", c->n != 2 ?
				   "give two" : "built-in workloads, functions and stored times "
				   "run interleaved only");
	return 0;
}

/* Everything between the setup and the cleanup: 0, 1 stopped, or an error. */
static int contest_body(struct pbench_contest *c, int *order)
{
	/* With warm-up runs, the output check is the first warm-up round (its runs are not
	 * timed either); without, a run of its own before anything is prepared. */
	int in_warmup = c->o.warmup_runs > 0 && !(c->o.flags & PBENCH_CONTEST_NO_CHECK);
	int err = in_warmup ? 0 : check_outputs(c);
	struct pb_fail_saved saved;

	if (!err)
		err = prepare_all(c);
	for (int i = 0; i < c->n && !err; i++)
		if (c->e[i].r)
			err = pb_runs_make_walk(c->e[i].r, c->e[i].set);
	if (!err)
		err = warm_up(c, order, in_warmup);
	if (!err) {
		pb_contest_progress(c, "rounds");
		if (pb_contest_is_duet(c))
			err = pb_contest_duet(c);
		else if (c->o.order == PBENCH_CONTEST_ORDER_SEQUENTIAL)
			err = one_after_another(c);
		else
			err = interleaved(c, order);
	}
	pb_fail_save(&saved);	/* the failure's words, whatever the restore leaves */
	unprepare_all(c);
	for (int i = 0; i < c->n; i++)
		if (c->e[i].set)
			pb_runs_free_walk(c->e[i].set);
	pb_fail_restore(&saved);
	return err;
}

/* After the rounds: the one look of a fixed budget, or a last one on every round when the
 * budget ended them between looks (not after a stop: the rounds cut short are not looked
 * at); the CPU's speed in every run, on one scale for all the entrants (their runs took turns
 * on the same CPUs); each set's summary and outliers. */
static void conclude(struct pbench_contest *c)
{
	struct pbench_runs **rs = calloc((size_t)c->n, sizeof(*rs));

	if (c->rounds && (!looks_each_round(c) || c->o.order == PBENCH_CONTEST_ORDER_SEQUENTIAL ||
			  (c->stop != PBENCH_CONTEST_STOP_INTERRUPTED &&
			   c->stop != PBENCH_CONTEST_STOP_DECIDED && c->last_look < c->rounds)))
		pb_contest_look(c);
	if (rs) {
		for (int i = 0; i < c->n; i++)
			rs[i] = c->e[i].r;
		pb_runs_speed_factors_of(rs, c->n);
		free(rs);
	}
	for (int i = 0; i < c->n; i++)
		if (c->e[i].set) {
			pb_runs_set_elapsed(c->e[i].set, c->elapsed_s);
			pb_runs_analyze(c->e[i].set);
		}
	if (pb_contest_profile_analyze(c))	/* opts.profile: short of memory, none said */
		for (int i = 0; i < c->n; i++)
			pb_contest_profile_free(&c->e[i]);
}

/* The cleanup undoes the setup: whenever the setup ran, even after a stop or a failure,
 * whose message it keeps. */
static int cleanup(struct pbench_contest *c, int err)
{
	struct pb_fail_saved saved;
	int cerr;

	pb_fail_save(&saved);
	cerr = 0;
	for (int i = 0; i <= c->n; i++) {	/* every entrant's own, then the contest's */
		int one = pb_contest_helper(c, i < c->n ? c->e[i].cleanup : c->cleanup, "cleanup");

		cerr = cerr ? cerr : one;
	}
	if (err)
		pb_fail_restore(&saved);
	return cerr < 0 ? cerr : 0;
}

/* Untimed calls of each function entrant, in turn, each call in a counting window of its own:
 * as many as the rounds asked at least (10 when none), and never inside a timed run, since
 * counting costs each allocation some ns. */
static int count_memory(struct pbench_contest *c)
{
	size_t calls = c->o.min_rounds > 1 ? (size_t)c->o.min_rounds : 10;
	const char *reason = NULL;
	int status = -1;

	if (!(c->o.flags & PBENCH_CONTEST_COUNT_MEMORY))
		return 0;
	for (int i = 0; i < c->n; i++) {
		struct pb_entrant *e = &c->e[i];

		if (!e->fn)
			continue;
		if (status < 0)
			status = pb_mem_open(&reason);
		e->mem_status = status;
		e->mem_reason = reason;
		if (status != PBENCH_MEM_COUNTED)
			continue;
		e->mem = calloc(calls, sizeof(*e->mem));
		if (!e->mem)
			return -ENOMEM;
	}
	for (size_t k = 0; k < calls && status == PBENCH_MEM_COUNTED; k++) {
		for (int i = 0; i < c->n; i++) {
			struct pb_entrant *e = &c->e[i];

			if (!e->mem)
				continue;
			pb_mem_begin(&e->mem[k]);
			e->fn(e->ctx);
			pb_mem_end();
			e->nmem = k + 1;
		}
	}
	return 0;
}

int pbench_contest_run(struct pbench_contest *c)
{
	struct pb_fail_saved saved;
	int *order, err, cerr = 0;

	pb_fail_clear();
	if (!c)
		return pb_fail(-EINVAL, "%s(): c is NULL", __func__);
	if (c->ran)
		return pb_fail(-EALREADY, "%s(): the contest ran already (call it once)", __func__);
	err = check_entrants(c);
	if (err)
		return err;
	c->ran = 1;
	pb_contest_set_level(c);
	order = calloc((size_t)c->n, sizeof(*order));
	if (!order)
		return -ENOMEM;
	if (c->setup)
		pb_contest_progress(c, "setup");
	err = pb_contest_helper(c, c->setup, "setup");
	if (!err) {
		for (int i = 0; i < c->n && !err; i++)	/* the entrants' own, after it */
			err = pb_contest_helper(c, c->e[i].setup, "setup");
		if (!err)
			err = contest_body(c, order);
		if (err == 1 || pb_contest_stopped(c))
			c->stop = PBENCH_CONTEST_STOP_INTERRUPTED;
		else if (!err)
			err = count_memory(c);
		pb_fail_save(&saved);	/* the failure's words, whatever the look leaves */
		conclude(c);
		pb_fail_restore(&saved);
		cerr = cleanup(c, err);
	}
	pb_fail_save(&saved);
	pb_contest_progress(c, "done");	/* the caller's callback between the failure and here */
	free(order);
	pb_fail_restore(&saved);
	if (err == 1 || (!err && pb_contest_stopped(c)))
		return -EINTR;
	if (!err && !cerr)
		pb_fail_clear();
	return err ? err : cerr;
}
