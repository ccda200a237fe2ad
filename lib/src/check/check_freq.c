/* SPDX-License-Identifier: MIT */
/*
 * Checks: frequency (cpufreq governor, min/max, EPP, turbo, thermal throttling, power source,
 * idle states). The topology group (SMT) is in check_topology.c.
 *
 * On a quiet machine a clock that moves while the benchmark runs is the largest source of
 * run-to-run spread, so every knob that lets it move is reported with the command that pins it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "check/check.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define PSY_DIR "/sys/class/power_supply"
#define NO_CPUFREQ "no cpufreq: frequency is controlled elsewhere (e.g. by the hypervisor)"
/* Exit latency above which an idle state counts as deep: C1E is 10 us, C3 and deeper states
 * longer (the tables in drivers/idle/intel_idle.c). */
#define DEEP_IDLE_US 10
#define MAX_IDLE_STATES 16	/* the kernel's CPUIDLE_STATE_MAX is 10 */

/* ---- readers ---------------------------------------------------------------------------- */

/*
 * The entries of a /sys directory (all, or the policyN ones), sorted: their count, or -errno.
 * Free with free_list().
 */
static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int is_policy(const struct dirent *d)
{
	return !strncmp(d->d_name, "policy", 6);
}

static int list_dir(const char *dir, int (*filter)(const struct dirent *), struct dirent ***v)
{
	char real[4096];
	int n, err = pb_path(real, sizeof(real), dir);

	*v = NULL;
	if (err)
		return err;
	n = scandir(real, v, filter, alphasort);
	return n < 0 ? -errno : n;
}

static void free_list(struct dirent **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- cpufreq policies ------------------------------------------------------------------- */

struct policy {
	char dir[96];		/* CPU_DIR "/cpufreq/policy3", or CPU_DIR "/cpu3/cpufreq" */
	char desc[64];		/* "intel_pstate active", "acpi-cpufreq", ... */
	int active;		/* a driver in active mode: the CPU picks its own clock */
	long min_khz, max_khz;	/* the hardware's range (cpuinfo_*), 0 when unknown */
};

/* affected_cpus is "0 1 2 3" (cpufreq_show_cpus), not a cpulist. */
static int policy_has_cpu(const char *dir, int cpu)
{
	char path[160], buf[4096], *p, *end;

	snprintf(path, sizeof(path), "%s/affected_cpus", dir);
	if (pb_read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	for (p = buf; *p; p = end) {
		long c;

		while (*p == ' ' || *p == ',')
			p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		c = strtol(p, &end, 10);
		if (c == cpu)
			return 1;
	}
	return 0;
}

/* intel_pstate or amd-pstate mode: the status file, else what the driver's name implies. */
static void describe_driver(struct policy *p, const char *drv)
{
	int intel = !strncmp(drv, "intel_", 6), amd = !strncmp(drv, "amd-pstate", 10);
	char path[64], st[32];

	snprintf(p->desc, sizeof(p->desc), "%s", *drv ? drv : "unknown driver");
	if (!intel && !amd)
		return;
	snprintf(path, sizeof(path), CPU_DIR "/%s/status", intel ? "intel_pstate" : "amd_pstate");
	if (pb_read_word(path, st, sizeof(st)) ||
	    (strcmp(st, "active") && strcmp(st, "passive") && strcmp(st, "guided")))
		/* intel_pstate and amd-pstate-epp are the drivers of active mode */
		snprintf(st, sizeof(st), "%s", !strcmp(drv, "intel_pstate") ||
			 !strcmp(drv, "amd-pstate-epp") ? "active" : "passive");
	p->active = !strcmp(st, "active");
	snprintf(p->desc, sizeof(p->desc), "%s %s", intel ? "intel_pstate" : "amd-pstate", st);
}

/*
 * The cpufreq policy of cpu: 1 found, 0 no cpufreq at all, -ENOENT policies exist but none
 * lists this CPU. cpuN/cpufreq is a symlink to ../cpufreq/policyM on kernels since 4.3; before
 * that the first CPU of a policy had a real directory there.
 */
static int find_policy(int cpu, struct policy *p)
{
	char path[96], file[160], real[4096], target[256], drv[48] = "";
	struct dirent **names;
	int found = 0, n;
	ssize_t len;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq", cpu);
	if (!pb_path(real, sizeof(real), path)) {
		len = readlink(real, target, sizeof(target) - 1);
		if (len > 0) {
			const char *base;

			target[len] = '\0';
			base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
			if (!strncmp(base, "policy", 6) && strlen(base) < 24) {
				snprintf(p->dir, sizeof(p->dir), CPU_DIR "/cpufreq/%s", base);
				found = pb_exists(p->dir);
			}
		} else if (errno == EINVAL && policy_has_cpu(path, cpu)) {
			snprintf(p->dir, sizeof(p->dir), "%s", path);
			found = 1;
		}
	}
	if (!found) {
		n = list_dir(CPU_DIR "/cpufreq", is_policy, &names);
		for (int i = 0; i < n && !found; i++) {
			snprintf(p->dir, sizeof(p->dir), CPU_DIR "/cpufreq/%.32s",
				 names[i]->d_name);
			found = policy_has_cpu(p->dir, cpu);
		}
		free_list(names, n);
		if (!found)
			return n > 0 || pb_exists(path) ? -ENOENT : 0;
	}
	snprintf(file, sizeof(file), "%s/scaling_driver", p->dir);
	if (pb_read_word(file, drv, sizeof(drv)))
		drv[0] = '\0';
	describe_driver(p, drv);
	snprintf(file, sizeof(file), "%s/cpuinfo_min_freq", p->dir);
	if (pb_read_num(file, &p->min_khz))
		p->min_khz = 0;
	snprintf(file, sizeof(file), "%s/cpuinfo_max_freq", p->dir);
	if (pb_read_num(file, &p->max_khz) || p->max_khz < p->min_khz)
		p->max_khz = p->min_khz = 0;
	return 1;
}

/* The finding when cpu has no policy: info without cpufreq, unknown when it should have one. */
static int no_policy(struct pb_check_ctx *ctx, const char *id, int cpu, struct policy *p)
{
	int r = find_policy(cpu, p);
	struct pbench_check_finding *c;

	if (r > 0)
		return 0;
	c = pb_check(ctx, id, cpu, r == 0 ? PBENCH_CHECK_INFO : PBENCH_CHECK_UNKNOWN);
	if (r == 0)
		pb_check_set(c, &c->value, NO_CPUFREQ);
	else
		pb_check_set(c, &c->value, "no cpufreq policy lists CPU %d (looked for "
			     "cpu%d/cpufreq and cpufreq/policy*/affected_cpus)", cpu, cpu);
	return 1;
}

static const char *governor_why(const char *gov, const struct policy *p, char *buf, size_t len)
{
	char range[64] = "";

	if (p->max_khz > 0)
		snprintf(range, sizeof(range), " between %ld and %ld MHz", p->min_khz / 1000,
			 p->max_khz / 1000);
	if (!strcmp(gov, "powersave") && p->active)
		snprintf(buf, len, "in %s mode powersave lets the CPU pick its clock%s from the "
			 "load and the energy-performance preference: it ramps up only after work "
			 "starts and drops between runs, so short runs and first iterations run "
			 "slower", p->desc, range);
	else if (!strcmp(gov, "powersave"))
		snprintf(buf, len, "powersave holds the CPU at its lowest frequency%s: steady, "
			 "but far from how the code runs at normal speed", range);
	else
		snprintf(buf, len, "%s moves the clock%s with the load it sampled last: a "
			 "benchmark starts slow and speeds up as it runs, and anything else "
			 "running changes its speed", gov, range);
	return buf;
}

static void check_governor(struct pb_check_ctx *ctx, int cpu)
{
	char path[160], gov[32], why[400];
	struct pbench_check_finding *c;
	struct policy p;
	int err;

	if (no_policy(ctx, "cpufreq.governor", cpu, &p))
		return;
	snprintf(path, sizeof(path), "%s/scaling_governor", p.dir);
	err = pb_read_word(path, gov, sizeof(gov));
	if (!err && !isalpha((unsigned char)gov[0]))
		err = -EINVAL;
	if (err) {
		pb_check_unknown(ctx, "cpufreq.governor", cpu, path, err);
		return;
	}
	if (!strcmp(gov, "performance") || !strcmp(gov, "userspace")) {
		/* userspace runs at the frequency someone wrote to scaling_setspeed: fixed too */
		c = pb_check(ctx, "cpufreq.governor", cpu, gov[0] == 'p' ? PBENCH_CHECK_OK
									 : PBENCH_CHECK_INFO);
	} else {
		c = pb_check(ctx, "cpufreq.governor", cpu, PBENCH_CHECK_WARN);
		pb_check_set(c, &c->why, "%s", governor_why(gov, &p, why, sizeof(why)));
		pb_check_set(c, &c->fix, "echo performance | sudo tee %s/scaling_governor "
			     "(all CPUs: sudo cpupower frequency-set -g performance)", p.dir);
	}
	pb_check_set(c, &c->value, "%s (%s)", gov, p.desc);
	pb_check_set(c, &c->expected, "performance");
}

static void check_min_max(struct pb_check_ctx *ctx, int cpu)
{
	char path[160], gov[32];
	struct pbench_check_finding *c;
	struct policy p;
	long lo, hi;
	int err;

	if (no_policy(ctx, "cpufreq.min_max", cpu, &p))
		return;
	snprintf(path, sizeof(path), "%s/scaling_min_freq", p.dir);
	err = pb_read_num(path, &lo);
	if (!err && lo > 0) {
		snprintf(path, sizeof(path), "%s/scaling_max_freq", p.dir);
		err = pb_read_num(path, &hi);
	}
	if (err || lo <= 0 || hi <= 0) {
		pb_check_unknown(ctx, "cpufreq.min_max", cpu, path, err ? err : -EINVAL);
		return;
	}
	snprintf(path, sizeof(path), "%s/scaling_governor", p.dir);
	if (pb_read_word(path, gov, sizeof(gov)))
		gov[0] = '\0';
	if (lo == hi) {
		c = pb_check(ctx, "cpufreq.min_max", cpu, PBENCH_CHECK_OK);
		pb_check_set(c, &c->value, "min = max = %ld MHz", lo / 1000);
	} else if (!strcmp(gov, "performance")) {
		/* The performance governor (and intel_pstate/amd-pstate in performance mode)
		 * requests the maximum; the minimum only matters to the other governors. */
		c = pb_check(ctx, "cpufreq.min_max", cpu, PBENCH_CHECK_OK);
		pb_check_set(c, &c->value, "min %ld MHz, max %ld MHz (performance runs at max)",
			     lo / 1000, hi / 1000);
	} else {
		c = pb_check(ctx, "cpufreq.min_max", cpu, PBENCH_CHECK_WARN);
		pb_check_set(c, &c->value, "min %ld MHz, max %ld MHz", lo / 1000, hi / 1000);
		pb_check_set(c, &c->why, "the clock may sit anywhere between %ld and %ld MHz: the "
			     "same code can take up to %.1fx as long at the bottom of the range as "
			     "at the top", lo / 1000, hi / 1000, (double)hi / (double)lo);
		pb_check_set(c, &c->fix, "echo %ld | sudo tee %s/scaling_min_freq", hi, p.dir);
	}
	pb_check_set(c, &c->expected, "min = max");
}

static void check_epp(struct pb_check_ctx *ctx, int cpu)
{
	char path[160], epp[32];
	struct pbench_check_finding *c;
	struct policy p;
	long raw = -1;
	int err;

	if (no_policy(ctx, "cpufreq.epp", cpu, &p))
		return;
	snprintf(path, sizeof(path), "%s/energy_performance_preference", p.dir);
	err = pb_read_word(path, epp, sizeof(epp));
	if (err == -ENOENT) {
		c = pb_check(ctx, "cpufreq.epp", cpu, PBENCH_CHECK_INFO);
		pb_check_set(c, &c->value, "no energy_performance_preference (%s has none)", p.desc);
		return;
	}
	/* A word, or the raw 0-255 hint (0 is performance) written by a tool. */
	if (!err && isdigit((unsigned char)epp[0]) && pb_read_num(path, &raw))
		err = -EINVAL;
	if (!err && raw < 0)
		for (const char *s = epp; *s; s++)
			if (!islower((unsigned char)*s) && *s != '_')
				err = -EINVAL;
	if (err || raw > 255) {
		pb_check_unknown(ctx, "cpufreq.epp", cpu, path, err ? err : -EINVAL);
		return;
	}
	if (raw == 0 || !strcmp(epp, "performance")) {
		c = pb_check(ctx, "cpufreq.epp", cpu, PBENCH_CHECK_OK);
	} else {
		c = pb_check(ctx, "cpufreq.epp", cpu, PBENCH_CHECK_WARN);
		pb_check_set(c, &c->why, "the energy-performance preference '%s' asks the CPU to "
			     "save energy: it lowers the clock sooner and raises it later than "
			     "'performance' does, so short or bursty runs vary more", epp);
		pb_check_set(c, &c->fix, "echo performance | sudo tee %s/"
			     "energy_performance_preference", p.dir);
	}
	pb_check_set(c, &c->value, "%s (%s)", epp, p.desc);
	pb_check_set(c, &c->expected, "performance");
}

/* ---- turbo ------------------------------------------------------------------------------ */

/* The command that turns turbo off here (per-policy boost files when nothing else). */
static const char *turbo_off_cmd(void)
{
	if (pb_exists(CPU_DIR "/intel_pstate/no_turbo"))
		return "echo 1 | sudo tee " CPU_DIR "/intel_pstate/no_turbo";
	if (pb_exists(CPU_DIR "/cpufreq/boost"))
		return "echo 0 | sudo tee " CPU_DIR "/cpufreq/boost";
	return "echo 0 | sudo tee " CPU_DIR "/cpufreq/policy*/boost";
}

/* Why turbo matters, with the range cpu boosts across when its policy has intel_pstate's
 * base_frequency next to cpuinfo_max_freq (the highest turbo frequency). */
static void turbo_why(struct pbench_check_finding *c, int cpu)
{
	char path[160];
	struct policy p;
	long base = 0;

	if (find_policy(cpu, &p) > 0 && p.max_khz > 0) {
		snprintf(path, sizeof(path), "%s/base_frequency", p.dir);
		if (pb_read_num(path, &base) || base >= p.max_khz)
			base = 0;
	}
	if (base > 0)
		pb_check_set(c, &c->why, "turbo lets CPU %d run anywhere from %ld MHz "
			     "(base_frequency) up to %ld MHz (cpuinfo_max_freq), as far as "
			     "temperature and the number of busy cores allow: the clock depends on "
			     "both, so results differ from run to run and drift as the chip heats",
			     cpu, base / 1000, p.max_khz / 1000);
	else
		pb_check_set(c, &c->why, "turbo raises the clock above the base frequency as far as "
			     "temperature and the number of busy cores allow: the clock depends on "
			     "both, so results differ from run to run and drift as the chip heats");
}

/* Per-policy boost files (cpufreq core, 6.x): 1 or 0 for on or off, -1 when there are none. */
static int policy_boost(char *src, size_t len, int *npolicies)
{
	struct dirent **names;
	int n = list_dir(CPU_DIR "/cpufreq", is_policy, &names), on = 0, off = 0;

	*npolicies = n > 0 ? n : 0;
	for (int i = 0; i < n; i++) {
		char path[160];
		long v;

		snprintf(path, sizeof(path), CPU_DIR "/cpufreq/%.32s/boost", names[i]->d_name);
		if (!pb_read_num(path, &v) && v <= 1) {
			on += v == 1;
			off += v == 0;
		}
	}
	free_list(names, n);
	snprintf(src, len, "boost 1 in %d of %d policies", on, on + off);
	return on + off ? on > 0 : -1;
}

static void check_turbo(struct pb_check_ctx *ctx)
{
	static const struct {
		const char *name;
		long on;	/* the value that means turbo is on */
	} knobs[] = { { "intel_pstate/no_turbo", 0 }, { "cpufreq/boost", 1 } };
	char st[32], src[64], path[64], fix[128] = "";
	struct pbench_check_finding *c;
	int on = -1, npolicies = 0;

	for (size_t i = 0; i < PB_ARRAY_SIZE(knobs) && on < 0; i++) {
		long v;
		int err;

		snprintf(path, sizeof(path), CPU_DIR "/%s", knobs[i].name);
		err = pb_read_num(path, &v);
		if (err == -ENOENT)
			continue;
		if (err || v > 1) {
			pb_check_unknown(ctx, "cpufreq.turbo", -1, path, err ? err : -EINVAL);
			return;
		}
		snprintf(src, sizeof(src), "%s %ld", knobs[i].name, v);
		snprintf(fix, sizeof(fix), "echo %d | sudo tee %s", !knobs[i].on, path);
		on = v == knobs[i].on;
	}
	if (on < 0)
		on = policy_boost(src, sizeof(src), &npolicies);
	if (on >= 0) {
		c = pb_check(ctx, "cpufreq.turbo", -1, on ? PBENCH_CHECK_WARN : PBENCH_CHECK_OK);
		pb_check_set(c, &c->value, "%s (%s)", on ? "on" : "off", src);
		pb_check_set(c, &c->expected, "off");
		if (on) {
			turbo_why(c, ctx->cpus[0]);
			pb_check_set(c, &c->fix, "%s", fix[0] ? fix : turbo_off_cmd());
		}
		return;
	}
	c = pb_check(ctx, "cpufreq.turbo", -1, PBENCH_CHECK_INFO);
	if (!pb_read_word(CPU_DIR "/amd_pstate/status", st, sizeof(st)))
		pb_check_set(c, &c->value, "amd-pstate %s exports no boost switch: turbo can only "
			     "be seen and set in the firmware setup (Core Performance Boost)", st);
	else if (npolicies == 0 && !pb_exists(CPU_DIR "/intel_pstate"))
		pb_check_set(c, &c->value, NO_CPUFREQ);
	else
		pb_check_set(c, &c->value, "nothing to read: no intel_pstate/no_turbo, "
			     "cpufreq/boost or cpufreq/policy*/boost");
}

/* ---- thermal, power, idle --------------------------------------------------------------- */

static void check_throttle(struct pb_check_ctx *ctx, int cpu)
{
	static const char *const kinds[] = { "core", "package" };
	char path[2][128], val[96] = "";
	struct pbench_check_finding *c;
	long n[2] = { -1, -1 }, total = 0;
	int found = 0;

	for (int k = 0; k < 2; k++) {
		int err;

		snprintf(path[k], sizeof(path[k]),
			 CPU_DIR "/cpu%d/thermal_throttle/%s_throttle_count", cpu, kinds[k]);
		err = pb_read_num(path[k], &n[k]);
		if (err == -ENOENT) {
			n[k] = -1;
			continue;
		}
		if (err) {
			pb_check_unknown(ctx, "thermal.throttle", cpu, path[k], err);
			return;
		}
		pb_appendf(val, sizeof(val), "%s%s %ld", found ? ", " : "", kinds[k], n[k]);
		total += n[k];
		found++;
	}
	if (!found) {
		c = pb_check(ctx, "thermal.throttle", cpu, PBENCH_CHECK_INFO);
		pb_check_set(c, &c->value, "no cpu%d/thermal_throttle counters (the kernel has them "
			     "for Intel CPUs only, and not in VMs)", cpu);
		return;
	}
	c = pb_check(ctx, "thermal.throttle", cpu, total ? PBENCH_CHECK_WARN : PBENCH_CHECK_OK);
	pb_check_set(c, &c->value, "%s throttling events since boot", val);
	pb_check_set(c, &c->expected, "0");
	if (!total)
		return;
	pb_check_set(c, &c->why, "the CPU has slowed itself down to stay under its temperature "
		     "limit: a run that hits the limit runs slower. Compare the counts before and "
		     "after a run; one that grew means that run was throttled");
	pb_check_set(c, &c->fix, "cut the heat: %s, improve the cooling, and watch "
		     "grep . %s/cpu%d/thermal_throttle/*_count", turbo_off_cmd(), CPU_DIR, cpu);
}

struct psy_state {
	int sources_on, sources_off, bat_dis, bat_chg, nbat, nsys, unreadable;
	char sys[160], ignored[96];
};

static void psy_one(struct psy_state *s, const char *name)
{
	char path[400], type[32], word[32];
	long online;

	snprintf(path, sizeof(path), PSY_DIR "/%s/scope", name);
	if (!pb_read_word(path, word, sizeof(word)) && !strcmp(word, "Device")) {
		/* a mouse's or a headset's battery: it does not power this machine */
		pb_appendf(s->ignored, sizeof(s->ignored), "%s%s", s->ignored[0] ? ", " : "", name);
		return;
	}
	snprintf(path, sizeof(path), PSY_DIR "/%s/type", name);
	if (pb_read_word(path, type, sizeof(type))) {
		s->unreadable++;
		return;
	}
	s->nsys++;
	if (!strcmp(type, "Battery") || !strcmp(type, "UPS")) {
		snprintf(path, sizeof(path), PSY_DIR "/%s/status", name);
		if (pb_read_word(path, word, sizeof(word)))
			snprintf(word, sizeof(word), "status unknown");
		s->nbat++;
		s->bat_dis += !strcmp(word, "Discharging");
		s->bat_chg += !strcmp(word, "Charging") || !strcmp(word, "Full") ||
			      !strcmp(word, "Not charging");
		pb_appendf(s->sys, sizeof(s->sys), "%s%s %s", s->sys[0] ? ", " : "", name, word);
		return;
	}
	/* Mains, USB (type-C ports), Wireless: "online" says whether they feed the machine. */
	snprintf(path, sizeof(path), PSY_DIR "/%s/online", name);
	if (pb_read_num(path, &online) || online > 2) {
		s->unreadable++;
		return;
	}
	s->sources_on += online > 0;
	s->sources_off += online == 0;
	pb_appendf(s->sys, sizeof(s->sys), "%s%s %s", s->sys[0] ? ", " : "", name,
		   online ? "online" : "offline");
}

static void check_power(struct pb_check_ctx *ctx)
{
	struct psy_state s = { 0 };
	struct pbench_check_finding *c;
	struct dirent **names;
	int n = list_dir(PSY_DIR, not_dot, &names);

	if (n < 0 && n != -ENOENT) {
		pb_check_unknown(ctx, "power.ac", -1, PSY_DIR, n);
		return;
	}
	for (int i = 0; i < n; i++)
		psy_one(&s, names[i]->d_name);
	free_list(names, n);
	if (s.sources_on || s.bat_chg) {
		c = pb_check(ctx, "power.ac", -1, PBENCH_CHECK_OK);
		pb_check_set(c, &c->value, "on mains (%s)", s.sys);
	} else if (s.bat_dis || (s.nbat && s.sources_off)) {
		c = pb_check(ctx, "power.ac", -1, PBENCH_CHECK_WARN);
		pb_check_set(c, &c->value, "on battery (%s)", s.sys);
		pb_check_set(c, &c->why, "on battery the firmware and the OS lower the power "
			     "limits and favour saving energy: the sustained clock is lower and "
			     "changes as the battery drains or the power profile switches");
		pb_check_set(c, &c->fix, "plug in the AC adapter before measuring");
	} else if (!s.nsys && !s.unreadable) {
		c = pb_check(ctx, "power.ac", -1, PBENCH_CHECK_INFO);
		pb_check_set(c, &c->value, "no power supply (desktop, server or VM)%s%s",
			     s.ignored[0] ? "; ignored device batteries: " : "", s.ignored);
	} else {
		c = pb_check(ctx, "power.ac", -1, s.unreadable ? PBENCH_CHECK_UNKNOWN
							   : PBENCH_CHECK_INFO);
		if (s.unreadable)
			pb_check_set(c, &c->value, "cannot read the type or state of %d supplies in "
				     PSY_DIR "%s%s", s.unreadable, s.sys[0] ? "; the others: " : "",
				     s.sys);
		else
			pb_check_set(c, &c->value, "power source unclear (%s)", s.sys);
	}
	if (c->status != PBENCH_CHECK_INFO && c->status != PBENCH_CHECK_UNKNOWN)
		pb_check_set(c, &c->expected, "on mains");
}

struct idle_state {
	char name[32];
	long latency;
	int disabled;
};

/* The target CPU's idle states: their count, or a negative error with *bad the file's path. */
static int read_idle_states(int cpu, struct idle_state *st, char *bad, size_t len)
{
	int n = 0, err;

	for (int k = 0; k < MAX_IDLE_STATES; k++) {
		long dis;

		snprintf(bad, len, CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu, k);
		err = pb_read_word(bad, st[n].name, sizeof(st[n].name));
		if (err == -ENOENT)
			break;
		if (!err) {
			snprintf(bad, len, CPU_DIR "/cpu%d/cpuidle/state%d/latency", cpu, k);
			err = pb_read_num(bad, &st[n].latency);
		}
		if (!err) {
			snprintf(bad, len, CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, k);
			err = pb_read_num(bad, &dis);
		}
		if (err)
			return err;
		st[n].disabled = dis != 0;
		n++;
	}
	return n;
}

static void check_cpuidle(struct pb_check_ctx *ctx, int cpu)
{
	struct idle_state st[MAX_IDLE_STATES];
	char drv[32], path[128], val[256], deep[64] = "", off[64] = "";
	const char *param = NULL;
	struct pbench_check_finding *c;
	char boot[512];
	long worst = -1;
	int n, err;

	err = pb_read_word(CPU_DIR "/cpuidle/current_driver", drv, sizeof(drv));
	if (err && err != -ENOENT) {
		pb_check_unknown(ctx, "cpuidle.states", cpu, CPU_DIR "/cpuidle/current_driver",
				 err);
		return;
	}
	n = read_idle_states(cpu, st, path, sizeof(path));
	if (n < 0) {
		pb_check_unknown(ctx, "cpuidle.states", cpu, path, n);
		return;
	}
	if (err)
		snprintf(drv, sizeof(drv), "%s", n ? "unknown driver" : "no cpuidle driver");
	if (n == 0) {
		c = pb_check(ctx, "cpuidle.states", cpu, PBENCH_CHECK_INFO);
		pb_check_set(c, &c->value, "%s%s: no idle states for CPU %d, idle uses the "
			     "architecture's default (halt)", err ? "" : "driver ", drv, cpu);
		return;
	}
	snprintf(val, sizeof(val), "%s; enabled:", drv);
	for (int k = 0; k < n; k++) {
		if (st[k].disabled) {
			pb_appendf(off, sizeof(off), "%s%s", off[0] ? ", " : "", st[k].name);
			continue;
		}
		pb_appendf(val, sizeof(val), " %s %ld us,", st[k].name, st[k].latency);
		if (st[k].latency > DEEP_IDLE_US) {
			pb_appendf(deep, sizeof(deep), " %d", k);
			worst = st[k].latency > worst ? st[k].latency : worst;
		}
	}
	if (val[strlen(val) - 1] == ',')
		val[strlen(val) - 1] = '\0';
	if (off[0])
		pb_appendf(val, sizeof(val), "; disabled: %s", off);
	c = pb_check(ctx, "cpuidle.states", cpu, deep[0] ? PBENCH_CHECK_WARN : PBENCH_CHECK_OK);
	pb_check_set(c, &c->value, "%s", val);
	pb_check_set(c, &c->expected, "no enabled state with exit latency > %d us", DEEP_IDLE_US);
	if (!deep[0])
		return;
	if (!strcmp(drv, "intel_idle"))
		param = "intel_idle.max_cstate=1";
	else if (!strcmp(drv, "acpi_idle"))
		param = "processor.max_cstate=1";
	pb_check_set(c, &c->why, "waking from a deep idle state takes up to %ld us: every wake-up "
		     "after a sleep, a timer or blocking I/O pays it, and deep states also flush "
		     "the core's caches", worst);
	pb_check_set(c, &c->fix, "for s in%s; do echo 1 | sudo tee %s/cpu%d/cpuidle/state$s/"
		     "disable; done%s%s (or, per process: keep /dev/cpu_dma_latency open with 0 "
		     "written to it while measuring)", deep, CPU_DIR, cpu,
		     param ? "; persistent: " : "",
		     param ? pb_boot_fix(ctx, boot, sizeof(boot), param) : "");
}

void pb_check_frequency(struct pb_check_ctx *ctx)
{
	for (int i = 0; i < ctx->ncpus; i++)
		check_governor(ctx, ctx->cpus[i]);
	for (int i = 0; i < ctx->ncpus; i++)
		check_min_max(ctx, ctx->cpus[i]);
	for (int i = 0; i < ctx->ncpus; i++)
		check_epp(ctx, ctx->cpus[i]);
	check_turbo(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_throttle(ctx, ctx->cpus[i]);
	check_power(ctx);
	for (int i = 0; i < ctx->ncpus; i++)
		check_cpuidle(ctx, ctx->cpus[i]);
}

