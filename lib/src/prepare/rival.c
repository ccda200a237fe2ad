/* SPDX-License-Identifier: MIT */
/*
 * Another measurement on the same CPU: a thread of another process, named like ours and pinned
 * to that CPU alone, or of a command such a process runs there (pinned there alone, while that
 * pbench's thread may wait elsewhere). Two prepared runs (or two jitter probes) on one CPU
 * take turns on it and each measures the other; they are told so rather than left to wonder at
 * their numbers.
 * Of several rivals, one of the caller's own session (a pbench started from the same terminal
 * or script) is named first: it is the one the user most likely started, and the one a test
 * that starts its own rival looks for while other tests' pbench run beside it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "prepare/prepare.h"

/* Is thread tid of pid named comm (NULL: any name) and pinned to the CPU list want ("3")
 * alone? */
static int pinned_there(int pid, const char *tid, const char *comm, const char *want)
{
	char file[128], buf[64], line[512];
	int found = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/task/%.32s/comm", pid, tid);
	if (comm && (pb_read_file(file, buf, sizeof(buf)) < 0 || strcmp(buf, comm)))
		return 0;
	snprintf(file, sizeof(file), "/proc/%d/task/%.32s/status", pid, tid);
	if (!(f = pb_fopen(file)))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + 18;

		if (strncmp(line, "Cpus_allowed_list:", 18))
			continue;
		s += strspn(s, " \t");
		s[strcspn(s, "\n")] = '\0';
		found = !strcmp(s, want);
	}
	fclose(f);
	return found;
}

/* pid's parent when that is a process named comm other than this one (a pbench whose command
 * pid is: while its commands run, pbench's thread waits off their CPU,
 * process/child_watcher.c), else 0. */
static pid_t parent_named(int pid, const char *comm, pid_t self)
{
	char file[64], buf[512], *p;
	int ppid;

	snprintf(file, sizeof(file), "/proc/%d/stat", pid);
	if (pb_read_file(file, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid <= 1 || ppid == self)
		return 0;
	snprintf(file, sizeof(file), "/proc/%d/comm", ppid);
	return pb_read_file(file, buf, sizeof(buf)) >= 0 && !strcmp(buf, comm) ? ppid : 0;
}

pid_t pb_cpu_rival(int cpu, const char *comm)
{
	char want[16], own[64];
	pid_t self = getpid(), sid = getsid(0), found = 0, first = 0;
	struct dirent *p;
	DIR *d;

	if (!comm) {
		if (pb_read_file("/proc/self/comm", own, sizeof(own)) < 0)
			return 0;
		comm = own;
	}
	if (!(d = opendir("/proc")))
		return 0;
	snprintf(want, sizeof(want), "%d", cpu);
	while (!found && (p = readdir(d))) {
		int pid = atoi(p->d_name);
		char tasks[64];
		struct dirent *t;
		DIR *td;

		pid_t parent;

		if (pid <= 0 || pid == self)
			continue;
		snprintf(tasks, sizeof(tasks), "/proc/%d/task", pid);
		if (!(td = opendir(tasks)))
			continue;
		/* a command another pbench runs there counts as that pbench */
		parent = parent_named(pid, comm, self);
		while ((t = readdir(td)))
			if (t->d_name[0] != '.' &&
			    pinned_there(pid, t->d_name, parent ? NULL : comm, want)) {
				pid_t who = parent ? parent : pid;

				if (!first)
					first = who;
				if (getsid(who) == sid)
					found = who;
				break;
			}
		closedir(td);
	}
	closedir(d);
	return found ? found : first;
}

int pbench_cpu_rival(int cpu)
{
	return cpu < 0 ? 0 : (int)pb_cpu_rival(cpu, NULL);
}
