/* SPDX-License-Identifier: MIT */
/*
 * Transcripts for a person (issue 23's closing note, the README's counter block): the whole
 * output of the commands the suite checks, each line a "# show:" diagnostic on the console.
 * Built into the guest only with PBENCH_PMU_SHOW=1 (tests/pmu/run.sh), so the default suite
 * is unchanged; each command's exit status is a check, the numbers are the other programs'.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

/* Run argv (stdout and stderr on one pipe), every line a diagnostic; 1 when it exited 0. */
static int show(char *const argv[], const char *force_pmu)
{
	char line[1024], cmd[1024] = "";
	int fds[2], status = -1;
	FILE *f;
	pid_t pid;

	for (int i = 0; argv[i]; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%s%s%s", i ? " " : "",
			 strchr(argv[i], ' ') ? "'" : "", i ? argv[i] : "pbench",
			 strchr(argv[i], ' ') ? "'" : "");
	diag("$ %s%s%s%s", force_pmu ? "LIBPFM_FORCE_PMU=" : "", force_pmu ? force_pmu : "",
	     force_pmu ? " " : "", cmd);
	if (pipe(fds))
		return 0;
	pid = fork();
	if (pid == 0) {
		if (force_pmu) {
			setenv("LIBPFM_FORCE_PMU", force_pmu, 1);
			setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
		}
		setenv("COLUMNS", "100", 1);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		diag("| %s", line);
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status);
}

#define SHOW(what, ...)								\
	do {									\
		char *argv_[] = { "/bin/pbench", __VA_ARGS__, NULL };		\
		ok(show(argv_, NULL), "%s", what);				\
	} while (0)

/* pbench_measure of a function of exactly 10 adds, its events per call (no CLI for it). */
__attribute__((noinline)) static void fn10(void *ctx)
{
	(void)ctx;
	__asm__ volatile(".rept 10\n\tadd x9, x9, #1\n.endr" : : : "x9");
}

static void measure(void)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_result *r;
	int err;

	diag("$ pbench_measure(fn10, events \"instructions:u,cycles:u\"), "
	     "pbench_result_write_text()");
	o.warmup_ms = 5;
	o.budget_ms = 300;
	o.events = "instructions:u,cycles:u";
	err = pbench_measure(&r, fn10, NULL, &o);
	if (!ok(err == 0, "pbench_measure (%s)", pbench_strerror(err)))
		return;
	{
		char *buf = NULL, *save = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (m) {
			pbench_result_write_text(r, m, "fn10 (10 adds)");
			fclose(m);
		}
		for (char *l = buf ? strtok_r(buf, "\n", &save) : NULL; l;
		     l = strtok_r(NULL, "\n", &save))
			diag("| %s", l);
		free(buf);
	}
	pbench_result_free(r);
}

int main(void)
{
	tap_init("show");
	SHOW("stat --workload: insn per iteration k, IPC, GHz", "stat", "--workload", "xor",
	     "--iterations", "1000000", "--mode", "unprepared", "-r", "5", "-e",
	     "instructions:u,cycles:u", "-M", "per-iteration,ipc,ghz");
	SHOW("stat --workload, default events: stalls, branch-miss n/a", "stat", "--workload",
	     "xor", "--iterations", "1000000", "--mode", "unprepared", "-r", "5", "-M",
	     "ipc,ghz,per-iteration,stalls,branches");
	measure();
	SHOW("ten events on six counters", "stat", "--workload", "xor", "--iterations",
	     "1000000", "--mode", "unprepared", "-r", "3", "-e", "r1,r2,r3,r4,r5,r6", "-M",
	     "ipc,stalls");
	SHOW("compare --metric instructions:u, N and 1.01 N", "compare", "--mode", "unprepared",
	     "--metric", "instructions:u", "--min-runs", "3", "-n", "a", "-n", "b",
	     "/tests/loop 10000000", "/tests/loop 10100000");
	SHOW("compare --metric instructions:u, N and N", "compare", "--mode", "unprepared",
	     "--metric", "instructions:u", "--min-runs", "3", "-n", "a", "-n", "b",
	     "/tests/loop 10000000", "/tests/loop 10000000");
	SHOW("stat -I 10", "stat", "--mode", "unprepared", "-r", "1", "-I", "10", "-e",
	     "instructions:u,cycles", "--", "/tests/loop", "30000000");
	SHOW("stat -M l1d-mpki,topdown: n/a with the reason", "stat", "--workload", "xor",
	     "--iterations", "100000", "--mode", "unprepared", "-r", "2", "-M",
	     "l1d-mpki,topdown");
	SHOW("list --metrics (arm_n1, this guest)", "list", "--metrics");
	{
		static const char *const pmus[] = { "arm_n2", "arm_v1", "arm_v2" };

		for (size_t i = 0; i < sizeof(pmus) / sizeof(*pmus); i++) {
			char *argv[] = { "/bin/pbench", "list", "--metrics", NULL };

			ok(show(argv, pmus[i]), "list --metrics, LIBPFM_FORCE_PMU=%s", pmus[i]);
		}
	}
	return tap_done();
}
