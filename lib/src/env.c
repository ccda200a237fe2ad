/* SPDX-License-Identifier: MIT */
/*
 * pbench_env_check(): runs the check groups (env_*.c) for the target CPUs and collects their
 * findings; picks the CPU a prepared run would use; parses CPU lists. Also the readers and
 * the ways of reporting that the groups share (env.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "env.h"

#define WINDOW_MS 200

struct pbench_env {
	struct pbench_check *v;
	int n, cap;
	int *cpus;
	int ncpus;
	char pick_reason[256];
};

static const struct {
	const char *group;
	void (*fn)(struct pb_env_ctx *ctx);
} groups[] = {
	{ "frequency", pb_check_frequency },
	{ "topology", pb_check_topology },
	{ "isolation", pb_check_isolation },
	{ "interrupts", pb_check_interrupts },
	{ "scheduler", pb_check_scheduler },
	{ "scheduler", pb_check_cgroup },	/* right after: the group's lines stay together */
	{ "memory", pb_check_memory },
	{ "timer", pb_check_timer },
	{ "counters", pb_check_counters },
	{ "virtualization", pb_check_virtualization },
};

/* ---- findings --------------------------------------------------------------------------- */

struct pbench_check *pb_check(struct pb_env_ctx *ctx, const char *id, int cpu, int status)
{
	struct pbench_env *e = ctx->env;
	struct pbench_check *c;

	static struct pbench_check scratch;	/* absorbs the writes of a dropped finding */

	if (e->n == e->cap) {
		int cap = e->cap ? e->cap * 2 : 64;
		void *p = realloc(e->v, (size_t)cap * sizeof(*e->v));

		if (!p)
			return &scratch;	/* out of memory: the finding is dropped */
		e->v = p;
		e->cap = cap;
	}
	c = &e->v[e->n++];
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->id = id;
	c->group = ctx->group;
	c->status = status;
	c->cpu = cpu;
	return c;
}

void pb_check_set(struct pbench_check *c, char *field, const char *fmt, ...)
{
	size_t len = field == c->expected ? sizeof(c->expected)
		     : field == c->value ? sizeof(c->value)
		     : field == c->why ? sizeof(c->why) : sizeof(c->fix);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(field, len, fmt, ap);
	va_end(ap);
}

struct pbench_check *pb_report(struct pb_env_ctx *ctx, const char *id, int cpu, int status,
			       const char *expected, const char *fmt, ...)
{
	struct pbench_check *c = pb_check(ctx, id, cpu, status);
	va_list ap;

	if (expected)
		pb_check_set(c, c->expected, "%s", expected);
	va_start(ap, fmt);
	vsnprintf(c->value, sizeof(c->value), fmt, ap);
	va_end(ap);
	return c;
}

void pb_advise(struct pbench_check *c, const char *why, const char *fix)
{
	if (why)
		pb_check_set(c, c->why, "%s", why);
	if (fix)
		pb_check_set(c, c->fix, "%s", fix);
}

struct pbench_check *pb_check_unknown(struct pb_env_ctx *ctx, const char *id, int cpu,
				      const char *what, int err)
{
	/* The parsers' -EINVAL and -ERANGE: the file was read, its content makes no sense. */
	if (err == -EINVAL || err == -ERANGE)
		return pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL,
				 "unexpected content in %s", what);
	return pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot read %s: %s", what,
			 pbench_strerror(err));
}

/* ---- readers ---------------------------------------------------------------------------- */

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

int pb_cpulist_to_set(const char *list, unsigned char *set)
{
	const char *p = list;
	int n = 0;

	memset(set, 0, PB_MAX_CPUS / 8);
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;	/* an empty list is a valid, empty set */
	for (;;) {
		char *end;
		long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtol(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtol(end + 1, &end, 10);
		}
		if (*end == ':')	/* "0-15:2/4" group syntax: not used by these files */
			return -EINVAL;
		if (lo < 0 || hi < lo || hi >= PB_MAX_CPUS)
			return hi < lo ? -EINVAL : -ERANGE;
		for (long c = lo; c <= hi; c++) {
			if (!pb_cpu_in(set, (int)c))
				n++;
			pb_cpu_put(set, (int)c, 1);
		}
		p = end;
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			return n;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

int pb_read_cpulist(const char *path, unsigned char *set)
{
	char buf[4096];
	int n = pb_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	/* nohz_full reads "(null)" when the kernel never allocated its mask, that is without a
	 * nohz_full= parameter (drivers/base/cpu.c prints the NULL mask with %*pbl). */
	if (!strcmp(buf, "(null)")) {
		memset(set, 0, PB_MAX_CPUS / 8);
		return 0;
	}
	return pb_cpulist_to_set(buf, set);
}

void pb_cpuset_format(const unsigned char *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < PB_MAX_CPUS && n < len; c++) {
		int e = c;

		if (!pb_cpu_in(set, c))
			continue;
		while (e + 1 < PB_MAX_CPUS && pb_cpu_in(set, e + 1))
			e++;
		n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c,
				      e);
		c = e;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

void pb_quiet_cpus(unsigned char *set)
{
	unsigned char nohz[PB_MAX_CPUS / 8];

	if (pb_read_cpulist("/sys/devices/system/cpu/isolated", set) < 0)
		memset(set, 0, PB_MAX_CPUS / 8);
	if (pb_read_cpulist("/sys/devices/system/cpu/nohz_full", nohz) > 0)
		for (int i = 0; i < PB_MAX_CPUS / 8; i++)
			set[i] |= nohz[i];
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

double pb_busy_share(const struct pb_env_ctx *ctx, int cpu)
{
	const struct pb_cpu_times *a, *b;
	double idle, total;

	if (cpu < 0 || cpu >= PB_MAX_CPUS || !ctx->t0 || !ctx->t1 || !ctx->t1[cpu].valid)
		return -1;
	a = &ctx->t0[cpu];
	b = &ctx->t1[cpu];
	idle = (double)(b->idle + b->iowait) - (double)(a->idle + a->iowait);
	total = idle + (double)(b->user + b->nice + b->system + b->irq + b->softirq + b->steal) -
		(double)(a->user + a->nice + a->system + a->irq + a->softirq + a->steal);
	return total > 0 ? 1 - idle / total : -1;
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

int pbench_cpulist_parse(const char *list, int *cpus, int max, int limit)
{
	unsigned char *set;
	int n, k = 0;

	if (!list || !cpus || max <= 0)
		return -EINVAL;
	set = malloc(PB_MAX_CPUS / 8);
	if (!set)
		return -ENOMEM;
	n = pb_cpulist_to_set(list, set);
	if (n == 0 && n >= 0)
		n = -EINVAL;	/* "--cpu ''" names no CPU */
	for (int c = 0; n > 0 && c < PB_MAX_CPUS; c++) {
		if (!pb_cpu_in(set, c))
			continue;
		if (c >= limit || k >= max) {
			n = -ERANGE;
			break;
		}
		cpus[k++] = c;
	}
	free(set);
	return n < 0 ? n : k;
}

int pbench_cpus_allowed(char *buf, size_t len)
{
	unsigned char set[PB_MAX_CPUS / 8] = { 0 };
	cpu_set_t mask;

	if (!buf || !len)
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(mask), &mask) < 0) {
		snprintf(buf, len, "unknown");
		return -errno;
	}
	for (int c = 0; c < PB_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			set[c / 8] |= (unsigned char)(1u << (c % 8));
	pb_cpuset_format(set, buf, len);
	return 0;
}

int pbench_cpus_present(char *buf, size_t len)
{
	int n;

	pb_recorded_begin();	/* the range a check's --cpu accepts: the recorded machine's */
	n = pb_read_file("/sys/devices/system/cpu/present", buf, len);
	pb_recorded_end();
	return n < 0 ? n : 0;
}

/* ---- /proc/stat window ------------------------------------------------------------------ */

static int read_proc_stat(struct pb_cpu_times *t, int max)
{
	FILE *f = pb_fopen("/proc/stat");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct pb_cpu_times x;
		int cpu;

		if (pb_parse_cpu_times(line, &cpu, &x) < 4 || cpu >= max)
			continue;
		t[cpu] = x;
		if (cpu + 1 > n)
			n = cpu + 1;
	}
	fclose(f);
	return n;
}

static void measure_window(struct pb_env_ctx *ctx)
{
	struct timespec ts = { 0, WINDOW_MS * 1000000L };

	ctx->t0 = calloc(PB_MAX_CPUS, sizeof(*ctx->t0));
	ctx->t1 = calloc(PB_MAX_CPUS, sizeof(*ctx->t1));
	if (!ctx->t0 || !ctx->t1)
		return;
	ctx->ncpu_times = read_proc_stat(ctx->t0, PB_MAX_CPUS);
	if (ctx->ncpu_times <= 0 || (ctx->flags & PBENCH_ENV_NO_WINDOW) || !ctx->live) {
		/* A recorded tree has one /proc/stat: the "window" is the time since boot. */
		memcpy(ctx->t1, ctx->t0, PB_MAX_CPUS * sizeof(*ctx->t0));
		memset(ctx->t0, 0, PB_MAX_CPUS * sizeof(*ctx->t0));
		for (int i = 0; i < PB_MAX_CPUS; i++)
			ctx->t0[i].valid = ctx->t1[i].valid;
		return;
	}
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	read_proc_stat(ctx->t1, PB_MAX_CPUS);
	ctx->window_ms = WINDOW_MS;
}

/* ---- picking the CPU -------------------------------------------------------------------- */

/* Live facts (syscalls, instructions) are used only when the files read are the live ones:
 * outside the checks, or inside them with no recorded tree. */
static int is_live(unsigned flags)
{
	return (flags & PBENCH_ENV_LIVE) || !pb_recorded_active();
}

/* The busy share for picking: a CPU /proc/stat says nothing about counts as idle. */
static double load(const struct pb_env_ctx *ctx, int cpu)
{
	double busy = pb_busy_share(ctx, cpu);

	return busy < 0 ? 0 : busy;
}

static int pick(struct pb_env_ctx *ctx, char *why, size_t len)
{
	unsigned char online[PB_MAX_CPUS / 8], isolated[PB_MAX_CPUS / 8], sib[PB_MAX_CPUS / 8];
	cpu_set_t allowed;
	int have_affinity = 0, best = -1, best_sibs = 0, n_online;
	double best_busy = 2;

	n_online = pb_read_cpulist("/sys/devices/system/cpu/online", online);
	if (n_online <= 0)
		return n_online < 0 ? n_online : -ENOENT;
	if (ctx->live && sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		have_affinity = 1;
#define USABLE(c) (pb_cpu_in(online, c) && (!have_affinity || CPU_ISSET(c, &allowed)))
	if (pb_read_cpulist("/sys/devices/system/cpu/isolated", isolated) > 0) {
		for (int c = 0; c < PB_MAX_CPUS; c++) {
			if (pb_cpu_in(isolated, c) && USABLE(c)) {
				snprintf(why, len, "CPU %d is isolated (isolcpus)", c);
				return c;
			}
		}
	}
	for (int c = 1; c < PB_MAX_CPUS; c++) {
		char path[96];
		double busy;
		int sibs = 0;

		if (!USABLE(c))
			continue;
		busy = load(ctx, c);
		/* A busy SMT sibling shares the core's pipeline: count its load too. */
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		if (pb_read_cpulist(path, sib) > 1)
			for (int s = 0; s < PB_MAX_CPUS; s++)
				if (s != c && pb_cpu_in(sib, s) && pb_cpu_in(online, s)) {
					busy += load(ctx, s);
					sibs++;
				}
		if (busy < best_busy - 0.02) {	/* 2%: within noise, keep the lower number */
			best_busy = busy;
			best = c;
			best_sibs = sibs;
		}
	}
#undef USABLE
	if (best < 0) {
		snprintf(why, len, "CPU 0 is the only CPU this process may use");
		return 0;
	}
	snprintf(why, len, "no isolated CPU; CPU %d is the least busy CPU other than CPU 0: "
		 "%.0f%% busy%s%s", best, best_busy * 100,
		 best_sibs ? " with its SMT sibling" : "",
		 ctx->window_ms > 0 ? " over the last 200 ms" : " since boot");
	return best;
}

int pbench_cpu_pick(char *why, size_t len)
{
	struct pbench_env env = { 0 };
	struct pb_env_ctx ctx = { .env = &env, .live = !pb_recorded_active() };
	char buf[256];
	int cpu;

	measure_window(&ctx);
	cpu = ctx.t0 && ctx.t1 ? pick(&ctx, buf, sizeof(buf)) : -ENOMEM;
	if (why && len)
		snprintf(why, len, "%s", cpu >= 0 ? buf : "");
	free(ctx.t0);
	free(ctx.t1);
	return cpu;
}

/* ---- the run ---------------------------------------------------------------------------- */

static int env_check(struct pbench_env **out, const int *cpus, int ncpus, unsigned flags)
{
	struct pbench_env *e = calloc(1, sizeof(*e));
	struct pb_env_ctx ctx = { .env = e, .flags = flags, .live = is_live(flags) };
	unsigned char present[PB_MAX_CPUS / 8];
	int err = 0;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	measure_window(&ctx);
	if (!ctx.t0 || !ctx.t1) {
		err = -ENOMEM;
		goto out_free;
	}
	if (cpus && ncpus > 0) {
		int np = pb_read_cpulist("/sys/devices/system/cpu/present", present);

		for (int i = 0; i < ncpus; i++)
			if (np > 0 ? !pb_cpu_in(present, cpus[i]) : cpus[i] < 0) {
				err = -EINVAL;
				goto out_free;
			}
		e->cpus = malloc((size_t)ncpus * sizeof(int));
		if (!e->cpus) {
			err = -ENOMEM;
			goto out_free;
		}
		memcpy(e->cpus, cpus, (size_t)ncpus * sizeof(int));
		e->ncpus = ncpus;
	} else {
		int c = pick(&ctx, e->pick_reason, sizeof(e->pick_reason));

		if (c < 0) {
			err = c;
			goto out_free;
		}
		e->cpus = malloc(sizeof(int));
		if (!e->cpus) {
			err = -ENOMEM;
			goto out_free;
		}
		e->cpus[0] = c;
		e->ncpus = 1;
	}
	ctx.cpus = e->cpus;
	ctx.ncpus = e->ncpus;
	for (size_t g = 0; g < PB_ARRAY_SIZE(groups); g++) {
		ctx.group = groups[g].group;
		groups[g].fn(&ctx);
	}
	free(ctx.t0);
	free(ctx.t1);
	*out = e;
	return 0;

out_free:
	free(ctx.t0);
	free(ctx.t1);
	pbench_env_free(e);
	return err;
}

int pbench_env_check(struct pbench_env **out, const int *cpus, int ncpus, unsigned flags)
{
	int err;

	if (!(flags & PBENCH_ENV_LIVE))
		pb_recorded_begin();
	err = env_check(out, cpus, ncpus, flags);
	if (!(flags & PBENCH_ENV_LIVE))
		pb_recorded_end();
	return err;
}

void pbench_env_free(struct pbench_env *e)
{
	if (!e)
		return;
	free(e->v);
	free(e->cpus);
	free(e);
}

int pbench_env_nr(const struct pbench_env *e)
{
	return e->n;
}

const struct pbench_check *pbench_env_get(const struct pbench_env *e, int i)
{
	return i >= 0 && i < e->n ? &e->v[i] : NULL;
}

int pbench_env_cpus(const struct pbench_env *e, const int **cpus)
{
	*cpus = e->cpus;
	return e->ncpus;
}

const char *pbench_env_pick_reason(const struct pbench_env *e)
{
	return e->pick_reason;
}
