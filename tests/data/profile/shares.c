/* SPDX-License-Identifier: MIT */
/*
 * A program whose time is known to be where it is: three functions, alpha, beta and gamma,
 * run the same loop (a multiply-add on one register: every iteration the same instructions,
 * the same dependency, so the same time) 5, 3 and 2 times as often: 50%, 30% and 20% of its
 * instructions, and of its time. The calls take turns in rounds (a slower CPU for a moment
 * slows all three alike, round after round). Built by the Makefile alone with fixed flags (-O1, with frame
 * pointers, and a copy without), never with a sanitizer: test_profile and bench_profile sample
 * it (lib/src/profile/).
 *
 * usage: shares [run|threads|fork] [MILLIONS] [K]
 *   run      the work once, in this thread (MILLIONS of iterations in all, default 400)
 *   threads  the work in K threads (default 3) at once, main only waiting
 *   fork     the work in K processes forked (default 2) and in this one, at once
 * With SHARES_REPORT set, it prints the nanoseconds the work took on stdout: its wall time
 * (CLOCK_MONOTONIC), then the CPU time of its threads (CLOCK_PROCESS_CPUTIME_ID).
 *
 * Variants for pbench compare --profile (tests/cli/t_compare_profile.sh), built with -D:
 * SHARES_BETA_MORE: beta runs 4 million iterations a round instead of 3 (1.33x its work, the
 * others the same); SHARES_DELTA: a fourth function, delta, runs 1 million more a round.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Global (nm and the test find them by name), so declared. */
uint64_t done(uint64_t x);
uint64_t alpha(uint64_t n, uint64_t x);
uint64_t beta(uint64_t n, uint64_t x);
uint64_t gamma_(uint64_t n, uint64_t x);

/* Iterations of a round: 5, 3 and 2 million, a few ms each. A sample every 250 us falls in
 * long stretches of one function, so a function's count is off by at most a sample at each
 * change of function (120 in a run of 400 million: 0.1 points of its share), where rounds
 * shorter than the sampling period would alias with it (50/31.25/18.75 for rounds of exactly
 * 160 us). */
#define ROUND 10000000

/* The loop each function runs: the asm keeps the compiler from folding it into a formula. */
#define LOOP(n, x)                                                             \
	for (uint64_t i = 0; i < (n); i++) {                                   \
		(x) = (x) * 6364136223846793005ULL + 1442695040888963407ULL;   \
		__asm__ volatile("" : "+r"(x));                                \
	}

/* Called once a call of each: the three are not leaves, so that GCC, which leaves a leaf
 * without a frame even with -fno-omit-frame-pointer, gives each its frame and the kernel's
 * frame-pointer walk finds their caller. */
__attribute__((noinline)) uint64_t done(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) uint64_t alpha(uint64_t n, uint64_t x)
{
	LOOP(n, x);
	return done(x);
}

__attribute__((noinline)) uint64_t beta(uint64_t n, uint64_t x)
{
	LOOP(n, x);
	return done(x);
}

__attribute__((noinline)) uint64_t gamma_(uint64_t n, uint64_t x)
{
	LOOP(n, x);
	return done(x);
}

#ifdef SHARES_BETA_MORE
#define BETA_TENTHS 4
#else
#define BETA_TENTHS 3
#endif

#ifdef SHARES_DELTA
uint64_t delta(uint64_t n, uint64_t x);

__attribute__((noinline)) uint64_t delta(uint64_t n, uint64_t x)
{
	LOOP(n, x);
	return done(x);
}
#endif

static uint64_t millions = 400;
static volatile uint64_t sink;

static void *work(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg, rounds = millions * 1000000 / ROUND;

	for (uint64_t r = 0; r < rounds; r++) {
		x = alpha(ROUND / 10 * 5, x);
		x = beta(ROUND / 10 * BETA_TENTHS, x);
		x = gamma_(ROUND / 10 * 2, x);
#ifdef SHARES_DELTA
		x = delta(ROUND / 10, x);
#endif
	}
	sink = x;
	return NULL;
}

static void in_threads(int k)
{
	pthread_t t[64];

	for (int i = 0; i < k && i < 64; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 1)))
			exit(1);
	for (int i = 0; i < k && i < 64; i++)
		pthread_join(t[i], NULL);
}

static void in_processes(int k)
{
	for (int i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid < 0)
			exit(1);
		if (pid == 0) {
			work((void *)(uintptr_t)(i + 2));
			_exit(0);
		}
	}
	work((void *)1);
	while (wait(NULL) > 0)
		;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";
	int k = argc > 3 ? atoi(argv[3]) : !strcmp(mode, "fork") ? 2 : 3;
	struct timespec a, b, ca, cb;

	if (argc > 2)
		millions = strtoull(argv[2], NULL, 10);
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	if (!strcmp(mode, "threads"))
		in_threads(k);
	else if (!strcmp(mode, "fork"))
		in_processes(k);
	else
		work((void *)1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (getenv("SHARES_REPORT"))
		printf("%lld %lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
		       (b.tv_nsec - a.tv_nsec), (long long)(cb.tv_sec - ca.tv_sec) * 1000000000LL +
		       (cb.tv_nsec - ca.tv_nsec));
	return 0;
}
