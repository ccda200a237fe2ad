/* SPDX-License-Identifier: MIT */
/*
 * Every event name this machine knows, unprobed: libpfm4's generic perf names (and with
 * PBENCH_LIST_ALL every event of the detected PMUs), and the sysfs PMUs' events/; and the
 * known name closest to a mistyped one. Above name resolution (events.c), below the counter
 * sets (counters.c), whose errors suggest names; the probed listing is events_list.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Our headers first: their linux/perf_event.h makes libpfm4 skip its own older copy. */
#include "base/base.h"
#include "counters/counters.h"
#include "counters/event_entry.h"

#include <perfmon/pfmlib_perf_event.h>

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* ---- the names ----------------------------------------------------------------------------- */

struct list {
	struct pb_event_entry *v;
	int n, cap;
};

static struct pb_event_entry *list_add(struct list *l)
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
	l->v[l->n].d.size = sizeof(l->v[0].d);
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
		struct pb_event_entry *d;

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
		struct pb_event_entry *d;
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
			struct pb_event_entry *d;

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

/* Stable insertion sort by kind (n is small: the generic perf events). */
static void sort_by_kind(struct pb_event_entry *v, int n)
{
	for (int i = 1; i < n; i++) {
		struct pb_event_entry t = v[i];
		int j = i;

		while (j > 0 && v[j - 1].d.kind > t.d.kind) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
	}
}

int pb_events_names(struct pb_event_entry **out, unsigned flags)
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
			l.v[i].d.kind = ev.kind;
	}
	/* libpfm4 lists the cache events after the software ones: keep each kind together. */
	sort_by_kind(l.v, perf_n);
	for (int i = 0; i < l.n; i++)
		pb_event_entry_link(&l.v[i]);
	*out = l.v;
	return l.n;
}

/* ---- suggestions ------------------------------------------------------------------------- */

/* Each name, and for a name qualified with its PMU ("amd64_fam19h_zen4::RETIRED_INSTRUCTIONS")
 * its short form too when the typo has none, so that "RETIRED_INSTRUCTION" finds it; the
 * nearest by suggest.c's rule. */
const char *pbench_event_suggest(const char *name)
{
	static __thread char best[128];
	struct pb_event_entry *v;
	const char **cand;
	int n, k;

	n = pb_events_names(&v, PBENCH_LIST_ALL);
	if (n <= 0)
		return NULL;
	cand = calloc(2 * (size_t)n, sizeof(*cand));
	for (int i = 0; cand && i < n; i++) {
		const char *short_name = strstr(v[i].name, "::");

		cand[2 * i] = v[i].name;
		if (short_name && !strstr(name, "::"))
			cand[2 * i + 1] = short_name + 2;
	}
	k = cand ? pbench_suggest(name, cand, 2 * n) : -1;
	if (k >= 0)
		snprintf(best, sizeof(best), "%s", v[k / 2].name);
	free(cand);
	free(v);
	return k >= 0 ? best : NULL;
}
