/* SPDX-License-Identifier: MIT */
/*
 * The main() that make test links each fuzz target with (instead of libFuzzer's): every file
 * named, or found in a directory named, is read and given to LLVMFuzzerTestOneInput() once,
 * in name order. Built with the normal compiler under ASan+UBSan, so any input the fuzzer ever
 * kept, crashes included, is run again on every make test without clang.
 *
 *   replay_NAME tests/fuzz/corpus/NAME	prints "N inputs in S s"; exit 0, or the crash
 *
 * A crash names the input it happened on; an input that runs longer than TIMEOUT seconds is
 * a hang and fails too.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#define TIMEOUT 10

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_SANITIZER 1
#endif
#endif
#ifdef HAVE_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

static char current[4096];

static void say_current(const char *what)
{
	/* Only async-signal-safe calls: this runs from signal handlers. */
	static const char pre[] = "replay: ";
	size_t n = strlen(current);

	if (write(2, pre, sizeof(pre) - 1) < 0 || write(2, what, strlen(what)) < 0 ||
	    write(2, current, n) < 0 || write(2, "\n", 1) < 0)
		return;
}

static void on_death(void)
{
	say_current("crashed on ");
}

static void on_signal(int sig)
{
	say_current(sig == SIGALRM ? "timed out on " : "crashed on ");
	signal(sig, SIG_DFL);
	if (sig == SIGALRM)
		_exit(1);
	raise(sig);
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			unsigned char *p = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!p) {
				fprintf(stderr, "replay: out of memory reading '%s'\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* libFuzzer hands the target a buffer of exactly the input's size: so do we, so that
	 * ASan sees a read past its end. */
	{
		unsigned char *exact = realloc(buf, len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		buf = exact;
	}
	snprintf(current, sizeof(current), "%s", path);
	alarm(TIMEOUT);
	LLVMFuzzerTestOneInput(buf, len);
	alarm(0);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Run a file, or every file of a directory; the number run, or -1. */
static int run_path(const char *path)
{
	struct dirent **v;
	struct stat st;
	int n, count = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path) ? -1 : 1;
	n = scandir(path, &v, not_hidden, by_name);
	if (n < 0) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/%s", path, v[i]->d_name);
		if (count >= 0 && stat(sub, &st) == 0 && S_ISREG(st.st_mode))
			count = run_file(sub) ? -1 : count + 1;
		free(v[i]);
	}
	free(v);
	return count;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	int total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
#ifdef HAVE_SANITIZER
	__sanitizer_set_death_callback(on_death);
#else
	(void)on_death;
#endif
	signal(SIGABRT, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGALRM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 1; i < argc; i++) {
		int n = run_path(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!total) {
		fprintf(stderr, "replay: no input in the corpus: every target keeps at least its "
			"seeds\n");
		return 1;
	}
	printf("%d inputs in %.2f s\n", total,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
