/* SPDX-License-Identifier: MIT */
/*
 * The findings of the checks: how a check group reports one (pb_check, pb_report, ...), and
 * the public accessors of the set pbench_check() returns.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "check/check.h"

/* The empty text of a finding's field that was not set (never freed). */
static const char none[] = "";

/* Room for each text field, as the fields had when they were arrays (longer text is cut
 * there, so the reports stay as they were). */
static size_t room(const struct pbench_check_finding *c, const char *const *field)
{
	return field == &c->expected ? 128 : field == &c->value ? 256 : 512;
}

static void text_free(const char *s)
{
	if (s && s != none)
		free((char *)s);
}

static void check_release(struct pbench_check_finding *c)
{
	text_free(c->value);
	text_free(c->expected);
	text_free(c->why);
	text_free(c->fix);
}

struct pbench_check_finding *pb_check(struct pb_check_ctx *ctx, const char *id, int cpu, int status)
{
	struct pbench_check *e = ctx->env;
	struct pbench_check_finding *c;

	static struct pbench_check_finding scratch;	/* absorbs the writes of a dropped finding */

	if (e->n == e->cap) {
		int cap = e->cap ? e->cap * 2 : 64;
		void *p = realloc(e->v, (size_t)cap * sizeof(*e->v));

		if (!p) {
			check_release(&scratch);	/* out of memory: the finding is dropped */
			scratch.value = scratch.expected = scratch.why = scratch.fix = none;
			return &scratch;
		}
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
	c->value = c->expected = c->why = c->fix = none;
	return c;
}

void pb_check_vset(struct pbench_check_finding *c, const char **field, const char *fmt, va_list ap)
{
	char buf[512];
	char *s;

	vsnprintf(buf, room(c, field), fmt, ap);
	s = *buf ? strdup(buf) : NULL;	/* out of memory: the field stays empty */
	text_free(*field);
	*field = s ? s : none;
}

void pb_check_set(struct pbench_check_finding *c, const char **field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pb_check_vset(c, field, fmt, ap);
	va_end(ap);
}

struct pbench_check_finding *pb_report(struct pb_check_ctx *ctx, const char *id, int cpu, int status,
			       const char *expected, const char *fmt, ...)
{
	struct pbench_check_finding *c = pb_check(ctx, id, cpu, status);
	va_list ap;

	if (expected)
		pb_check_set(c, &c->expected, "%s", expected);
	va_start(ap, fmt);
	pb_check_vset(c, &c->value, fmt, ap);
	va_end(ap);
	return c;
}

void pb_advise(struct pbench_check_finding *c, const char *why, const char *fix)
{
	if (why)
		pb_check_set(c, &c->why, "%s", why);
	if (fix)
		pb_check_set(c, &c->fix, "%s", fix);
}

struct pbench_check_finding *pb_check_unknown(struct pb_check_ctx *ctx, const char *id, int cpu,
				      const char *what, int err)
{
	/* The parsers' -EINVAL and -ERANGE: the file was read, its content makes no sense. */
	if (err == -EINVAL || err == -ERANGE)
		return pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL,
				 "unexpected content in %s", what);
	return pb_report(ctx, id, cpu, PBENCH_CHECK_UNKNOWN, NULL, "cannot read %s: %s", what,
			 pbench_strerror(err));
}

void pbench_check_free(struct pbench_check *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->n; i++)
		check_release(&e->v[i]);
	free(e->v);
	free(e->cpus);
	free(e);
}

int pbench_check_nr(const struct pbench_check *e)
{
	return e->n;
}

const struct pbench_check_finding *pbench_check_get(const struct pbench_check *e, int i)
{
	return i >= 0 && i < e->n ? &e->v[i] : NULL;
}

int pbench_check_cpus(const struct pbench_check *e, const int **cpus)
{
	*cpus = e->cpus;
	return e->ncpus;
}

const char *pbench_check_pick_reason(const struct pbench_check *e)
{
	return e->pick_reason;
}

/*
 * How to add params to the kernel command line of this machine: grubby on Red Hat and Fedora
 * kernels (".el9", ".fc39" in the release); GRUB's /etc/default/grub where this machine has
 * one; otherwise the boot loader in general (systemd-boot, a VM's boot arguments...). A
 * recorded tree says nothing of the recorded machine's /etc: no file is named for it.
 */
const char *pb_boot_fix(struct pb_check_ctx *ctx, char *buf, size_t len, const char *params)
{
	char rel[128] = "";
	int redhat = 0;

	pb_read_file("/proc/sys/kernel/osrelease", rel, sizeof(rel));
	for (const char *p = strchr(rel, '.'); p; p = strchr(p + 1, '.'))
		redhat |= (!strncmp(p, ".el", 3) || !strncmp(p, ".fc", 3)) &&
			  isdigit((unsigned char)p[3]);
	if (redhat)
		snprintf(buf, len, "sudo grubby --update-kernel=ALL --args=\"%s\", then reboot",
			 params);
	else if (ctx->live && access("/etc/default/grub", F_OK) == 0)
		snprintf(buf, len, "add \"%s\" to GRUB_CMDLINE_LINUX in /etc/default/grub, then "
			 "sudo update-grub and reboot", params);
	else
		snprintf(buf, len, "add \"%s\" to the kernel command line of your boot loader (or "
			 "of the VM's boot arguments), then reboot", params);
	return buf;
}
