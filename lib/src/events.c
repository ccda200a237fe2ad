/* SPDX-License-Identifier: MIT */
/*
 * Event names to perf_event_attr. Two sources:
 *  - libpfm4 (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT_EXT): the generic perf names
 *    (cycles, task-clock...), the events of the detected hardware PMU (RETIRED_INSTRUCTIONS,
 *    amd64_fam19h_zen4::RETIRED_INSTRUCTIONS), with their umasks and modifiers;
 *  - the kernel's sysfs PMU descriptions for "pmu/term,term=value/" names (msr/tsc/,
 *    cpu/event=0xc0,umask=0x1/): type from devices/PMU/type, aliases from events/, bit fields
 *    from format/.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* internal.h first: its linux/perf_event.h makes libpfm4 skip its own older copy. */
#include "internal.h"

#include <perfmon/pfmlib_perf_event.h>

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init_once(void)
{
	pfm_status = pfm_initialize();
}

int pb_pfm_init(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_status != PFM_SUCCESS) {
		pb_log(PBENCH_LOG_ERROR, "libpfm4: %s", pfm_strerror(pfm_status));
		return -PBENCH_EPFM;
	}
	return 0;
}

static int kind_of_type(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return PBENCH_EVENT_HARDWARE;
	case PERF_TYPE_SOFTWARE:
		return PBENCH_EVENT_SOFTWARE;
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return PBENCH_EVENT_OTHER;
	}
	return PBENCH_EVENT_PMU;
}

/* ---- sysfs PMU names: "pmu/term[=value][,term...]/[modifiers]" ---------------------------- */

/* Set the bits of value into the fields a format file describes, e.g. "config:0-7,32-35". */
static int apply_format(struct perf_event_attr *attr, const char *format, uint64_t value)
{
	const char *colon = strchr(format, ':');
	const char *p;
	uint64_t *field;
	size_t flen;

	if (!colon)
		return -EINVAL;
	flen = (size_t)(colon - format);
	if (flen == 6 && !strncmp(format, "config", 6))
		field = (uint64_t *)&attr->config;
	else if (flen == 7 && !strncmp(format, "config1", 7))
		field = (uint64_t *)&attr->config1;
	else if (flen == 7 && !strncmp(format, "config2", 7))
		field = (uint64_t *)&attr->config2;
	else
		return -EINVAL;
	for (p = colon + 1; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi > 63 || hi < lo)
				return -EINVAL;
		}
		for (unsigned long bit = lo; bit <= hi; bit++) {
			if (value & 1)
				*field |= UINT64_C(1) << bit;
			else
				*field &= ~(UINT64_C(1) << bit);
			value >>= 1;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	/* Bits left over do not fit the field: perf refuses such a value, and so do we. */
	return value ? -ERANGE : 0;
}

static int apply_terms(struct perf_event_attr *attr, const char *pmu, char *terms, int depth);

static int apply_term(struct perf_event_attr *attr, const char *pmu, char *term, int depth)
{
	char path[512], buf[512];
	char *eq = strchr(term, '=');
	uint64_t value = 1;

	if (eq) {
		char *end;

		*eq = '\0';
		errno = 0;
		value = strtoull(eq + 1, &end, 0);
		if (errno || end == eq + 1 || *end)
			return -PBENCH_EUNKNOWN_EVENT;
	}
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format/%s", pmu, term);
	if (pb_read_file(path, buf, sizeof(buf)) > 0)
		return apply_format(attr, buf, value) ? -PBENCH_EUNKNOWN_EVENT : 0;
	/* Not a format field: an event alias, whose file holds more terms. */
	if (eq || depth > 0)
		return -PBENCH_EUNKNOWN_EVENT;
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/events/%s", pmu, term);
	if (pb_read_file(path, buf, sizeof(buf)) <= 0)
		return -PBENCH_EUNKNOWN_EVENT;
	return apply_terms(attr, pmu, buf, depth + 1);
}

static int apply_terms(struct perf_event_attr *attr, const char *pmu, char *terms, int depth)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int err = apply_term(attr, pmu, t, depth);

		if (err)
			return err;
		n++;
	}
	return n ? 0 : -PBENCH_EUNKNOWN_EVENT;
}

static int resolve_sysfs(const char *name, struct pb_event *ev)
{
	char pmu[64], terms[256], path[512];
	const char *s1 = strchr(name, '/'), *s2;
	long type;
	size_t n;

	s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	if (!s1 || !s2 || s1 == name)
		return -PBENCH_EUNKNOWN_EVENT;
	n = (size_t)(s1 - name);
	if (n >= sizeof(pmu) || (size_t)(s2 - s1 - 1) >= sizeof(terms))
		return -PBENCH_EUNKNOWN_EVENT;
	memcpy(pmu, name, n);
	pmu[n] = '\0';
	memcpy(terms, s1 + 1, (size_t)(s2 - s1 - 1));
	terms[s2 - s1 - 1] = '\0';
	if (strchr(pmu, '.'))
		return -PBENCH_EUNKNOWN_EVENT;
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/type", pmu);
	if (pb_read_long(path, &type))
		return -PBENCH_EUNKNOWN_EVENT;
	ev->attr.type = (uint32_t)type;
	if (apply_terms(&ev->attr, pmu, terms, 0))
		return -PBENCH_EUNKNOWN_EVENT;
	for (const char *m = s2 + 1; *m; m++) {
		if (*m == 'u')
			ev->attr.exclude_kernel = ev->attr.exclude_hv = 1;
		else if (*m == 'k')
			ev->attr.exclude_user = ev->attr.exclude_hv = 1;
		else
			return -PBENCH_EUNKNOWN_EVENT;
	}
	ev->kind = kind_of_type(ev->attr.type);
	return 0;
}

/* ---- user-space read bits ------------------------------------------------------------- */

/* The sysfs PMU of attr's events into name: the one whose type is attr->type, or for the
 * generic types (hardware, cache, raw) the first one with a `rdpmc` format field. */
static int pmu_of_attr(const struct perf_event_attr *attr, char *name, size_t len)
{
	int generic = attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
		      attr->type == PERF_TYPE_RAW;
	char path[4096], buf[64];
	struct dirent *d;
	int found = 0;
	DIR *dir;

	if (pb_path(path, sizeof(path), SYSFS_PMUS) || !(dir = opendir(path)))
		return 0;
	while (!found && (d = readdir(dir))) {
		char f[512];
		long type;

		if (d->d_name[0] == '.' || strlen(d->d_name) > 200)
			continue;
		if (generic) {
			snprintf(f, sizeof(f), SYSFS_PMUS "/%s/format/rdpmc", d->d_name);
			found = pb_read_file(f, buf, sizeof(buf)) > 0;
		} else {
			snprintf(f, sizeof(f), SYSFS_PMUS "/%s/type", d->d_name);
			found = !pb_read_long(f, &type) && type == (long)attr->type;
		}
		if (found)
			snprintf(name, len, "%s", d->d_name);
	}
	closedir(dir);
	return found;
}

int pb_pmu_user_read_bits(struct perf_event_attr *attr, int want_long)
{
	char pmu[256], path[512], fmt[128];
	int bits = 0;

	if (!pmu_of_attr(attr, pmu, sizeof(pmu)))
		return 0;
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format/rdpmc", pmu);
	if (pb_read_file(path, fmt, sizeof(fmt)) <= 0 || apply_format(attr, fmt, 1))
		return 0;
	bits = PB_USER_READ_RDPMC;
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format/long", pmu);
	if (want_long && pb_read_file(path, fmt, sizeof(fmt)) > 0 && !apply_format(attr, fmt, 1))
		bits |= PB_USER_READ_LONG;
	return bits;
}

/* ---- libpfm4 names ---------------------------------------------------------------------- */

static int resolve_pfm(const char *name, struct pb_event *ev)
{
	pfm_perf_encode_arg_t arg;
	int ret = pb_pfm_init();

	if (ret)
		return ret;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &ev->attr;
	/* Kernel and user, like perf stat: software events such as context-switches happen in
	 * the kernel and read 0 when it is excluded. Permission problems fall back to user-only
	 * at open time. */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		pb_log(PBENCH_LOG_DEBUG, "libpfm4: '%s': %s", name, pfm_strerror(ret));
		return -PBENCH_EUNKNOWN_EVENT;
	}
	ev->attr.size = sizeof(ev->attr);
	ev->kind = kind_of_type(ev->attr.type);
	return 0;
}

int pb_event_resolve(const char *name, struct pb_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (strlen(name) >= sizeof(ev->name))
		return -PBENCH_EUNKNOWN_EVENT;
	strcpy(ev->name, name);
	ev->attr.size = sizeof(ev->attr);
	if (strchr(name, '/'))
		return resolve_sysfs(name, ev);
	return resolve_pfm(name, ev);
}

/* ---- reasons ----------------------------------------------------------------------------- */

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EMFILE: return "EMFILE";
	case ENOSPC: return "ENOSPC";
	case EBUSY: return "EBUSY";
	case ESRCH: return "ESRCH";
	case E2BIG: return "E2BIG";
	case ENOSYS: return "ENOSYS";
	}
	return "errno";
}

int pb_open_status(int err)
{
	if (err < 0)
		err = -err;
	return err == EACCES || err == EPERM ? PBENCH_EVENT_NO_PERMISSION
					     : PBENCH_EVENT_NOT_SUPPORTED;
}

void pb_open_reason(const struct pb_event *ev, int err, char *buf, size_t len)
{
	int paranoid = 0;

	if (err < 0)
		err = -err;
	switch (err) {
	case EACCES:
	case EPERM:
		if (pbench_perf_paranoid(&paranoid) == 0)
			snprintf(buf, len,
				 "no permission (%s): kernel.perf_event_paranoid is %d; fix: "
				 "sysctl -w kernel.perf_event_paranoid=1, or give the program "
				 "CAP_PERFMON (setcap cap_perfmon+ep)",
				 errno_name(err), paranoid);
		else
			snprintf(buf, len, "no permission (%s): perf_event_open is forbidden "
				 "here (seccomp or a container?)", errno_name(err));
		return;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->kind == PBENCH_EVENT_HARDWARE && !pbench_has_cpu_pmu()) {
			char tsc[32];
			/* Name msr/tsc/ as an alternative only where this kernel has it. */
			int msr = pb_read_file("/sys/bus/event_source/devices/msr/events/tsc",
					       tsc, sizeof(tsc)) >= 0;

			snprintf(buf, len,
				 "not supported by this CPU/VM (%s): no hardware PMU is exposed "
				 "(a VM without PMU passthrough); software events%s work",
				 errno_name(err), msr ? " and msr/tsc/" : "");
		} else
			snprintf(buf, len, "not supported by this CPU/VM (%s)", errno_name(err));
		return;
	case EINVAL:
		if (ev->kind == PBENCH_EVENT_PMU)
			snprintf(buf, len, "not supported with these settings by this PMU (EINVAL); "
				 "some PMUs (msr) cannot exclude the kernel or user space: drop a "
				 ":u or :k modifier");
		else
			snprintf(buf, len, "not supported with these settings by this kernel/PMU "
				 "(EINVAL)");
		return;
	case EMFILE:
		snprintf(buf, len, "too many open files (EMFILE): raise ulimit -n");
		return;
	case ENOSPC:
	case EBUSY:
		snprintf(buf, len, "no free counter (%s): the PMU is in use", errno_name(err));
		return;
	}
	snprintf(buf, len, "%s (%s)", strerror(err), errno_name(err));
}

const char *pbench_event_status_name(int status)
{
	switch (status) {
	case PBENCH_EVENT_OK: return "ok";
	case PBENCH_EVENT_MULTIPLEXED: return "multiplexed";
	case PBENCH_EVENT_NOT_COUNTED: return "not-counted";
	case PBENCH_EVENT_NOT_SUPPORTED: return "not-supported";
	case PBENCH_EVENT_NO_PERMISSION: return "no-permission";
	}
	return "unknown";
}

const char *pbench_event_kind_name(int kind)
{
	switch (kind) {
	case PBENCH_EVENT_HARDWARE: return "hardware";
	case PBENCH_EVENT_SOFTWARE: return "software";
	case PBENCH_EVENT_PMU: return "pmu";
	case PBENCH_EVENT_OTHER: return "other";
	}
	return "unknown";
}

/* ---- listing ----------------------------------------------------------------------------- */

struct list {
	struct pbench_event_desc *v;
	int n, cap;
};

static struct pbench_event_desc *list_add(struct list *l)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		void *p = realloc(l->v, (size_t)cap * sizeof(*l->v));

		if (!p)
			return NULL;
		l->v = p;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].size = sizeof(l->v[0]);
	return &l->v[l->n++];
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* An event that needs a unit mask (no default) is listed once per umask, as the name that
 * encodes: "pmu::EVENT:UMASK". */
static int add_umasks(struct list *l, const pfm_pmu_info_t *pinfo, int idx,
		      const pfm_event_info_t *einfo)
{
	for (int a = 0; a < einfo->nattrs; a++) {
		pfm_event_attr_info_t ainfo;
		struct pbench_event_desc *d;

		memset(&ainfo, 0, sizeof(ainfo));
		ainfo.size = sizeof(ainfo);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) != PFM_SUCCESS ||
		    ainfo.type != PFM_ATTR_UMASK)
			continue;
		d = list_add(l);
		if (!d)
			return -ENOMEM;
		snprintf(d->name, sizeof(d->name), "%.40s::%.50s:%.30s", pinfo->name, einfo->name,
			 ainfo.name);
		snprintf(d->pmu, sizeof(d->pmu), "%s", pinfo->name);
		snprintf(d->desc, sizeof(d->desc), "%s", ainfo.desc ? ainfo.desc : "");
	}
	return 0;
}

/* The events of one libpfm4 PMU. aliases_only: the perf PMU, whose events appear both as
 * PERF_COUNT_* and under perf's own names; only the latter are listed, in lower case. */
static int pfm_pmu_events(struct list *l, int pmu, int aliases_only)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;

	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
		return 0;
	for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
		struct pbench_event_desc *d;
		struct pb_event ev;

		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
			continue;
		if (aliases_only && !strncmp(einfo.name, "PERF_COUNT_", 11))
			continue;
		d = list_add(l);
		if (!d)
			return -ENOMEM;
		if (aliases_only) {
			snprintf(d->name, sizeof(d->name), "%s", einfo.name);
			lower(d->name);
		} else {
			/* Qualified with the PMU so the name resolves unambiguously. */
			snprintf(d->name, sizeof(d->name), "%.60s::%.60s", pinfo.name, einfo.name);
			if (pb_event_resolve(d->name, &ev)) {
				l->n--;
				if (add_umasks(l, &pinfo, i, &einfo))
					return -ENOMEM;
				continue;
			}
		}
		snprintf(d->pmu, sizeof(d->pmu), "%s", pinfo.name);
		snprintf(d->desc, sizeof(d->desc), "%s", einfo.desc ? einfo.desc : "");
	}
	return 0;
}

static int sysfs_pmu_events(struct list *l)
{
	char path[4096];
	DIR *devs, *evs;
	struct dirent *pe, *ee;

	if (pb_path(path, sizeof(path), SYSFS_PMUS))
		return 0;
	devs = opendir(path);
	if (!devs)
		return 0;
	while ((pe = readdir(devs))) {
		char epath[4096];

		if (pe->d_name[0] == '.')
			continue;
		if (snprintf(epath, sizeof(epath), "%s/%s/events", path, pe->d_name) >=
		    (int)sizeof(epath))
			continue;
		evs = opendir(epath);
		if (!evs)
			continue;
		while ((ee = readdir(evs))) {
			struct pbench_event_desc *d;

			if (ee->d_name[0] == '.' || strchr(ee->d_name, '.'))
				continue;	/* .scale, .unit, .per-pkg, .snapshot */
			d = list_add(l);
			if (!d) {
				closedir(evs);
				closedir(devs);
				return -ENOMEM;
			}
			snprintf(d->name, sizeof(d->name), "%.60s/%.60s/", pe->d_name, ee->d_name);
			snprintf(d->pmu, sizeof(d->pmu), "%.60s", pe->d_name);
			snprintf(d->desc, sizeof(d->desc), "sysfs event of the %.60s PMU", pe->d_name);
		}
		closedir(evs);
	}
	closedir(devs);
	return 0;
}

/* Open the event the way pbench_counters_open would (same fallbacks, same reasons). */
static void probe_event(struct pbench_event_desc *d)
{
	struct pbench_count k = { .size = sizeof(k) };
	struct pbench_counters *c;
	struct pb_event ev;
	int err = pb_event_resolve(d->name, &ev);

	if (!err)
		err = pbench_counters_open(&c, d->name, NULL);
	if (err && err != -PBENCH_ENO_EVENTS) {
		d->status = PBENCH_EVENT_NOT_SUPPORTED;
		d->error = err;
		snprintf(d->reason, sizeof(d->reason), "cannot be encoded: %s",
			 pbench_strerror(err));
		return;
	}
	d->status = pbench_counters_open_status(c, 0);
	if (d->status == PBENCH_EVENT_OK) {
		/* Which way a region reads it: one start/stop on the enabled event. */
		pbench_counters_enable(c);
		pbench_counters_start(c);
		pbench_counters_stop(c);
		d->user_read = pbench_counters_uses_rdpmc(c, 0);
		snprintf(d->read_reason, sizeof(d->read_reason), "%s",
			 pbench_counters_rdpmc_reason(c, 0));
		pbench_counters_disable(c);
	}
	if (pbench_counters_read(c, &k, 1) == 1) {
		int paranoid = -1;

		if (d->status != PBENCH_EVENT_OK) {
			d->error = k.error;
			snprintf(d->reason, sizeof(d->reason), "%s", k.reason);
		} else if (k.user_only) {
			pbench_perf_paranoid(&paranoid);
			snprintf(d->reason, sizeof(d->reason), "user space only: "
				 "kernel.perf_event_paranoid is %d", paranoid);
		}
	}
	pbench_counters_free(c);
}

/* Stable insertion sort by kind (n is small: the generic perf events). */
static void sort_by_kind(struct pbench_event_desc *v, int n)
{
	for (int i = 1; i < n; i++) {
		struct pbench_event_desc t = v[i];
		int j = i;

		while (j > 0 && v[j - 1].kind > t.kind) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
	}
}

int pbench_events_list(struct pbench_event_desc **out, unsigned flags)
{
	struct list l = { 0 };
	int pmu, err, perf_n;

	*out = NULL;
	err = pb_pfm_init();
	if (err)
		return err;
	err = pfm_pmu_events(&l, PFM_PMU_PERF_EVENT, 1);
	perf_n = l.n;
	if (!err)
		err = sysfs_pmu_events(&l);
	if (!err && (flags & PBENCH_LIST_ALL)) {
		pfm_for_all_pmus(pmu) {
			if (pmu == PFM_PMU_PERF_EVENT || pmu == PFM_PMU_PERF_EVENT_RAW)
				continue;
			err = pfm_pmu_events(&l, pmu, 0);
			if (err)
				break;
		}
	}
	if (err) {
		free(l.v);
		return err;
	}
	for (int i = 0; i < l.n; i++) {
		struct pb_event ev;

		if (!pb_event_resolve(l.v[i].name, &ev))
			l.v[i].kind = ev.kind;
	}
	/* libpfm4 lists the cache events after the software ones: keep each kind together. */
	sort_by_kind(l.v, perf_n);
	for (int i = 0; i < l.n; i++) {
		if (!(flags & PBENCH_LIST_NO_PROBE))
			probe_event(&l.v[i]);
	}
	*out = l.v;
	return l.n;
}

/* ---- suggestions ------------------------------------------------------------------------- */

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[129];

	if (la > 128 || lb > 128)
		return 1 << 20;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = diag + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *pbench_event_suggest(const char *name)
{
	static __thread char best[128];
	struct pbench_event_desc *v;
	int n, best_d = 1 << 20, limit;

	n = pbench_events_list(&v, PBENCH_LIST_ALL | PBENCH_LIST_NO_PROBE);
	if (n <= 0)
		return NULL;
	for (int i = 0; i < n; i++) {
		const char *cand = v[i].name, *short_name = strstr(cand, "::");
		int d = edit_distance(name, cand);

		/* "RETIRED_INSTRUCTION" should find "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS". */
		if (short_name && !strstr(name, "::")) {
			int d2 = edit_distance(name, short_name + 2);

			if (d2 < d)
				d = d2;
		}
		if (d < best_d) {
			best_d = d;
			snprintf(best, sizeof(best), "%s", cand);
		}
	}
	free(v);
	limit = (int)strlen(name) / 3;
	if (limit < 2)
		limit = 2;
	return best_d <= limit ? best : NULL;
}
