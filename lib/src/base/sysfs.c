/* SPDX-License-Identifier: MIT */
/*
 * The one way the library reads /sys and /proc. Inside the checks (pbench_check(), between
 * pb_recorded_begin() and pb_recorded_end()), PBENCH_SYSFS_ROOT=DIR makes /sys/X read as DIR/X
 * and PBENCH_PROCFS_ROOT=DIR makes /proc/X read as DIR/X, so checks can run on recorded trees of
 * other machines. Everything else (noise probes, CPU picking for a run, jitter, event listing)
 * always reads the live machine: a measurement is never attributed from a recording. Facts that
 * come from syscalls or instructions do not pass through here.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

static __thread int recorded_depth;
static int recorded_always;

void pb_recorded_begin(void)
{
	recorded_depth++;
}

void pb_recorded_end(void)
{
	recorded_depth--;
}

void pb_recorded_everywhere(int on)
{
	recorded_always = on;
}

int pb_recorded_active(void)
{
	return (recorded_depth || recorded_always) && pb_recorded_set();
}

int pb_recorded_set(void)
{
	const char *s = getenv("PBENCH_SYSFS_ROOT"), *p = getenv("PBENCH_PROCFS_ROOT");

	return (s && *s) || (p && *p);
}

static const char *root_for(const char *path, size_t *skip)
{
	const char *root = NULL;

	if (!recorded_depth && !recorded_always)
		return NULL;
	if (!strncmp(path, "/sys/", 5) || !strcmp(path, "/sys")) {
		root = getenv("PBENCH_SYSFS_ROOT");
		*skip = 4;
	} else if (!strncmp(path, "/proc/", 6) || !strcmp(path, "/proc")) {
		root = getenv("PBENCH_PROCFS_ROOT");
		*skip = 5;
	}
	return root && *root ? root : NULL;
}

int pb_path(char *buf, size_t len, const char *path)
{
	size_t skip = 0;
	const char *root = root_for(path, &skip);
	int n;

	if (root)
		n = snprintf(buf, len, "%s%s", root, path + skip);
	else
		n = snprintf(buf, len, "%s", path);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

FILE *pb_fopen(const char *path)
{
	char real[4096];
	int err = pb_path(real, sizeof(real), path);

	if (err) {
		errno = -err;
		return NULL;
	}
	return fopen(real, "re");
}

int pb_read_fd(int fd, char *buf, size_t len)
{
	ssize_t n, total = 0;

	if (!len)
		return -EINVAL;
	while ((size_t)total < len - 1) {
		n = pread(fd, buf + total, len - 1 - total, (off_t)total);
		if (n < 0 && errno == ESPIPE)	/* a file that is not seekable: once, by read */
			n = read(fd, buf + total, len - 1 - total);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	while (total > 0 && (buf[total - 1] == '\n' || buf[total - 1] == ' '))
		buf[--total] = '\0';
	return (int)total;
}

int pb_read_file(const char *path, char *buf, size_t len)
{
	char real[4096];
	int fd, n = pb_path(real, sizeof(real), path);

	if (n)
		return n;
	if (!len)
		return -EINVAL;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pb_read_fd(fd, buf, len);
	close(fd);
	return n;
}

int pb_read_long(const char *path, long *value)
{
	char buf[64], *end;
	int n = pb_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*value = strtol(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int pbench_counters_paranoid(int *value)
{
	long v;
	int err = pb_read_long("/proc/sys/kernel/perf_event_paranoid", &v);

	if (err)
		return err;
	*value = (int)v;
	return 0;
}

int pbench_cpu_has_pmu(void)
{
	char pattern[4096];
	glob_t g;
	int found = 0;

	/* "cpu" on most x86, "cpu_core"/"cpu_atom" on hybrid Intel, "armv8_*" on arm64. */
	if (pb_path(pattern, sizeof(pattern), "/sys/bus/event_source/devices/cpu*"))
		return 0;
	if (glob(pattern, 0, NULL, &g) == 0) {
		found = g.gl_pathc > 0;
		globfree(&g);
	}
	if (!found && !pb_path(pattern, sizeof(pattern), "/sys/bus/event_source/devices/armv*") &&
	    glob(pattern, 0, NULL, &g) == 0) {
		found = g.gl_pathc > 0;
		globfree(&g);
	}
	return found;
}

int pb_parse_cpu_times(const char *line, int *cpu, struct pb_cpu_times *t)
{
	int n;

	if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
		return -1;
	memset(t, 0, sizeof(*t));
	n = sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", cpu, &t->user,
		   &t->nice, &t->system, &t->idle, &t->iowait, &t->irq, &t->softirq, &t->steal);
	if (n < 1 || *cpu < 0)
		return -1;
	t->valid = n > 1;
	return n - 1;
}
