/* SPDX-License-Identifier: MIT */
/*
 * /init of the emulated-PMU guest: mount /proc, /sys, /dev and /tmp, allow user-space counter
 * reads (kernel.perf_user_access=1), run every /tests/test_* program in name order, then power
 * the machine off (QEMU exits). Each program prints TAP-like lines (tap.h) on the console; a
 * program killed by a signal, or exiting with a status other than 0 or 1, or silent past its
 * time limit, is reported here as "not ok".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_DIR "/tests"
#define TIME_LIMIT_S 120

static void write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, value, strlen(value)) < 0)
		printf("# init: cannot write %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf("# init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_test(const struct dirent *d)
{
	return !strncmp(d->d_name, "test_", 5);
}

static void run(const char *name)
{
	char path[512];
	struct timespec t0, t1;
	int status = 0;
	pid_t pid;

	snprintf(path, sizeof(path), TEST_DIR "/%s", name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { path, NULL };

		alarm(TIME_LIMIT_S);
		if (chdir(TEST_DIR))
			_exit(127);
		execv(path, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		printf("not ok - init: cannot run %s: %s\n", name, strerror(errno));
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# init: %s ran %.2f s (guest virtual time)\n", name,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	if (WIFSIGNALED(status))
		printf("not ok - init: %s killed by signal %d%s\n", name, WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (time limit)" : "");
	else if (WEXITSTATUS(status) > 1)
		printf("not ok - init: %s exited %d\n", name, WEXITSTATUS(status));
}

int main(void)
{
	struct dirent **list;
	struct utsname u;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	mount_fs("tmpfs", "/tmp", "tmpfs");
	write_file("/proc/sys/kernel/perf_user_access", "1");
	if (!uname(&u))
		printf("# init: %s %s %s\n", u.sysname, u.release, u.machine);
	n = scandir(TEST_DIR, &list, is_test, by_name);
	if (n < 0)
		printf("not ok - init: no %s: %s\n", TEST_DIR, strerror(errno));
	for (int i = 0; i < n; i++) {
		run(list[i]->d_name);
		free(list[i]);
	}
	printf("pmu-guest: done\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
