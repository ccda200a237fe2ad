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
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Our headers first: their linux/perf_event.h makes libpfm4 skip its own older copy. */
#include "base/base.h"
#include "counters/counters.h"

#include <perfmon/pfmlib_perf_event.h>

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

/* libpfm4 writes its own diagnostics to stderr only when the user asks, with LIBPFM_VERBOSE
 * or LIBPFM_DEBUG in the environment (read by pfm_initialize()); pbench never sets them. */
static void pfm_init_once(void)
{
	pfm_status = pfm_initialize();
	if (pfm_status != PFM_SUCCESS)	/* once, not at every name that needs it */
		pb_log(PBENCH_LOG_ERROR, "libpfm4: %s", pfm_strerror(pfm_status));
}

int pb_pfm_init(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	return pfm_status == PFM_SUCCESS ? 0 : -PBENCH_EPFM;
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

	if (ret) {
		ev->why = pfm_strerror(pfm_status);
		return ret;
	}
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &ev->attr;
	/* Kernel and user, like perf stat: software events such as context-switches happen in
	 * the kernel and read 0 when it is excluded. Permission problems fall back to user-only
	 * at open time. */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		ev->why = pfm_strerror(ret);
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
		if (pbench_counters_paranoid(&paranoid) == 0)
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
		if (ev->kind == PBENCH_EVENT_HARDWARE && !pbench_cpu_has_pmu()) {
			char tsc[32];
			/* Name msr/tsc/ as an alternative only where this kernel has it and this
			 * user may open it: the msr PMU cannot leave the kernel out, which
			 * perf_event_paranoid 2 asks of an unprivileged user. */
			int msr = pb_read_file("/sys/bus/event_source/devices/msr/events/tsc",
					       tsc, sizeof(tsc)) >= 0 &&
				  (geteuid() == 0 || (pbench_counters_paranoid(&paranoid) == 0 &&
						      paranoid < 2));

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

/* The length of an event's name without its modifiers (":u"): cycles and cycles:u are one
 * event to the kernel's counters (an event list refuses both). */
static size_t stem(const char *name, size_t len)
{
	const char *colon = memchr(name, ':', len);

	return colon && !memchr(name, '/', len) && strspn(colon + 1, "ukhGHpPS") ==
	       len - (size_t)(colon - name) - 1 ? (size_t)(colon - name) : len;
}

int pb_event_same(const char *a, size_t alen, const char *b, size_t blen)
{
	return stem(a, alen) == stem(b, blen) && !strncasecmp(a, b, stem(b, blen));
}
