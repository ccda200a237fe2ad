/* SPDX-License-Identifier: MIT */
/*
 * The readers the check groups share: one-word and numeric sysfs files, the kernel command
 * line, "key value" files, /proc/PID/status and capabilities, processes by name. All through
 * the root mapping of sysfs.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "check/check.h"

int pb_exists(const char *path)
{
	char real[4096];

	return !pb_path(real, sizeof(real), path) && access(real, F_OK) == 0;
}

int pb_read_word(const char *path, char *buf, size_t len)
{
	int n = pb_read_file(path, buf, len);

	if (n < 0)
		return n;
	if (n == 0 || (size_t)n >= len - 1)
		return -EINVAL;	/* empty, or longer than any name the kernel prints here */
	for (int i = 0; i < n; i++)
		if (!isgraph((unsigned char)buf[i]) && buf[i] != ' ')
			return -EINVAL;
	return 0;
}

int pb_read_num(const char *path, long *v)
{
	char buf[32], *end;
	int n = pb_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	*v = strtol(buf, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int pb_cmdline_param(const char *param, char *value, size_t len)
{
	char buf[4096], *tok, *save = NULL;
	size_t plen = strlen(param);
	int n = pb_read_file("/proc/cmdline", buf, sizeof(buf)), found = 0;

	if (n < 0)
		return n;
	if (len)
		value[0] = '\0';
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "--"))
			break;	/* what follows is for init, not the kernel */
		if (strncmp(tok, param, plen) || (tok[plen] != '=' && tok[plen] != '\0'))
			continue;
		if (len)
			snprintf(value, len, "%s", tok[plen] == '=' ? tok + plen + 1 : "");
		found = 1;	/* and go on: a later one overrides it */
	}
	return found;
}

long long pb_read_field(const char *path, const char *key)
{
	FILE *f = pb_fopen(path);
	char line[256];
	size_t kl = strlen(key);
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ')
			v = atoll(line + kl + 1);
	fclose(f);
	return v;
}

int pb_process_running(const char *comm)
{
	char path[4096], buf[64];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	if (pb_path(path, sizeof(path), "/proc"))
		return 0;
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		char p[300];

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(p, sizeof(p), "/proc/%.200s/comm", d->d_name);
		found = pb_read_file(p, buf, sizeof(buf)) > 0 && !strcmp(buf, comm);
	}
	closedir(dir);
	return found;
}

int pb_read_status(const char *pid, struct pb_proc_status *st)
{
	char path[300], line[640];
	FILE *f;
	long r;

	memset(st, 0, sizeof(*st));
	st->kthread = -1;
	snprintf(path, sizeof(path), "/proc/%.200s/status", pid);
	f = pb_fopen(path);
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "Name:", 5))
			snprintf(st->name, sizeof(st->name), "%s", v);
		else if (!strncmp(line, "Kthread:", 8))
			st->kthread = atoi(v);
		else if (!strncmp(line, "Uid:", 4) && sscanf(v, "%ld %ld", &r, &st->euid) == 2)
			st->have_uid = 1;
		else if (!strncmp(line, "CapEff:", 7) && sscanf(v, "%" SCNx64, &st->capeff) == 1)
			st->have_cap = 1;
		else if (!strncmp(line, "Cpus_allowed_list:", 18))
			snprintf(st->cpus, sizeof(st->cpus), "%s", v);
		else if (!strncmp(line, "Mems_allowed_list:", 18))
			sscanf(v, "%127s", st->mems);
	}
	fclose(f);
	return 0;
}

int pb_has_cap(const struct pb_proc_status *st, int bit)
{
	if (st->have_cap)
		return (int)((st->capeff >> bit) & 1);
	return st->have_uid && st->euid == 0 ? 1 : -1;
}

void pb_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* A kernel object name (clocksource, hypervisor type): letters, digits, '_' and '-'. */
int pb_is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return 0;
	return 1;
}

int pb_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

/*
 * The flags line of cpu's block in /proc/cpuinfo (cpu -1: the first block). Returns 1 with the
 * flags, 0 when the block has none (not x86), -ENOENT for no such CPU, -errno if unreadable.
 */
int pb_cpuinfo_flags(int cpu, char *flags, size_t len)
{
	FILE *f = pb_fopen("/proc/cpuinfo");
	char *line = NULL, *colon;
	size_t cap = 0;
	int in = 0, found = -ENOENT, n;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "processor", 9)) {
			if (in)
				break;	/* the next CPU: ours had no flags line */
			in = cpu < 0 || (sscanf(colon + 1, "%d", &n) == 1 && n == cpu);
			found = in ? 0 : found;
		} else if (in && !strncmp(line, "flags", 5)) {
			snprintf(flags, len, "%s", colon + 1 + (colon[1] == ' '));
			flags[strcspn(flags, "\n")] = '\0';
			found = 1;
			break;
		}
	}
	free(line);
	fclose(f);
	return found;
}
