/* SPDX-License-Identifier: MIT */
/*
 * The process module (lib/src/process/): the commands pbench runs, declared for the files of
 * the library. A command line's words and a command found as execvp would (command.c); a
 * command started, counted from its exec (child_start.c), waited for (child.c), and ended with
 * everything it left running (child_end.c, beside child_watcher.c, pbench's thread while
 * commands run). The files' own insides are process/process_inner.h. Never installed.
 */
#ifndef PBENCH_PROCESS_PROCESS_H
#define PBENCH_PROCESS_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pbench.h"

/* command.c: a copy of a NULL-terminated argv (NULL: out of memory), and its release. */
char **pb_argv_dup(char *const *argv);
void pb_argv_free(char **v);

/* child_start.c: pbench_child_start() with the command's stderr on stderr_fd (> 0; quiet or not):
 * the check run keeps it, to say why a command failed. stay: the caller sleeps in its wait
 * until the command ends (no timeout, no intervals, no profile to drain): pbench's thread
 * stays on the command's CPU when it is above the command there (child_watcher.c), which
 * spares each run's end two moves between CPUs. */
int pb_child_start_stderr(struct pbench_child **out, char *const argv[],
			  const struct pbench_child_opts *in, int stderr_fd, int stay);
/* child_start.c: pb_child_start_stderr() (stderr_fd -1: as pbench_child_start()) always with
 * the handshake (fork; the child blocked before exec), and before_exec(pid, arg) called on the
 * blocked child's pid once its own counters are open, before its release: where a caller opens
 * what it arms on the command's pid (the profile's sampling events, enable_on_exec). With
 * opts->counters (the caller's inherited set) its start is taken just before the release, as
 * late as it can be. An error of before_exec ends the child and is returned. */
int pb_child_start_hooked(struct pbench_child **out, char *const argv[],
			  const struct pbench_child_opts *in, int stderr_fd,
			  int (*before_exec)(pid_t pid, void *arg), void *arg);
/* child.c: the command's release in pbench's ticks, where its run's time starts (the child's
 * clock just before execve when started with vfork). */
uint64_t pb_child_t0(const struct pbench_child *ch);
/* child.c: 1 when timeout_s (> 0) has passed since the command's release: a command seen
 * ended only then is taken for one that timed out. */
/* pidfd_open(2), Linux 5.3: a descriptor that polls readable when the process ends (-1 and
 * errno: ENOSYS before 5.3, ESRCH when it is gone); child.c. */
int pb_pidfd_open(pid_t pid);
int pb_child_past(const struct pbench_child *ch, double timeout_s);
/* child.c: fn(arg) when pbench_child_wait() has reaped the command and read its counts,
 * before it ends what the command left running (the sweep, up to its grace period, is not
 * the run's: a caller's window on the CPU's noise closes there). */
void pb_child_on_end(struct pbench_child *ch, void (*fn)(void *), void *arg);
/* child.c: the command's pid while it runs (0 once reaped). */
pid_t pb_child_pid(const struct pbench_child *ch);
/* child.c: the CPU the command's process was on when it ended (read while a zombie, before
 * it was reaped: /proc/PID/stat's processor); -1 before that or when it could not be read. A
 * command with processes of its own: its main process's CPU, the others' are not known. */
int pb_child_last_cpu(const struct pbench_child *ch);
/* child.c: a helper command (hyperfine's setup, prepare, cleanup) run to its end, output to
 * /dev/null (quiet 1) or pbench's own: 0 when it exited 0; 1 when *stop ended the wait (it
 * was ended, with its group); -ECANCELED when it failed, or an error of starting it, said
 * whole by pb_fail_msg() ("the setup command 'x' exited with status 1"). argv NULL: nothing
 * to run, 0. */
int pb_child_helper(char *const *argv, int quiet, const volatile int *stop, const char *what);
/* child.c: a command run to its end with its stdout kept (in a memfd: no pipe to drain
 * while it runs), its stderr to /dev/null, ended after timeout_s (0: none): 0 with *out its
 * whole output, NUL-terminated (free()), at most max bytes, and *res how it ended; or the
 * error of starting or waiting for it (*out NULL), -EFBIG past max, -ENOMEM. listing.c runs
 * objdump with it, history_git.c git. */
int pb_child_output(char *const argv[], double timeout_s, size_t max, char **out,
		    struct pbench_child_result *res);
/* command.c: a helper command found now (pbench_command_resolve()) and copied into *out
 * (pb_argv_free()); argv NULL: *out NULL, 0. Errors of resolving it, -EINVAL (empty), -ENOMEM,
 * said whole by pb_fail_msg() ("the setup command 'x': command not found"). */
int pb_command_copy(char *const *argv, char ***out, const char *what);

#endif
