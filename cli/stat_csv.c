/* SPDX-License-Identifier: MIT */
/*
 * pbench stat's runs as CSV: one line per run of each mode, a header naming every column,
 * times in ns and ticks, each event's value (empty when it was not counted: the JSON has the
 * reason), the noise the run saw, and an outlier's cause. RFC 4180 quoting.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pbench.h"
#include "cmds.h"
#include "stat.h"

/* A field that may hold commas or quotes: quoted, quotes doubled. */
static void csv_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_u64(FILE *f, uint64_t v, int known)
{
	if (known)
		fprintf(f, ",%llu", (unsigned long long)v);
	else
		fputc(',', f);
}

static void csv_real(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.17g", v);
	else
		fputc(',', f);
}

static void csv_header(FILE *f, const struct stat_report *rep)
{
	fputs("mode,run,cpu,ticks,ns,exit_status,signal,timed_out", f);
	for (int e = 0; e < rep->nr; e++) {
		fputc(',', f);
		csv_text(f, rep->sets[0]->runs[0].counts[e].name);
	}
	fputs(",ctx_involuntary,ctx_voluntary,migrations,minor_faults,major_faults,"
	      "not_running_ns,irqs,irq_timer,irq_ipi,irq_device,softirqs,steal_ns,setup_ns,"
	      "exec_ns,outlier,cause\n", f);
}

static void csv_run(FILE *f, const struct stat_report *rep, const struct stat_set *s, int i)
{
	const struct run *r = &s->runs[i];
	const struct pbench_cpu_noise *c = &r->cpu_noise;
	int cn = r->have_cpu_noise, irq = cn && !(c->flags & PBENCH_CPU_NOISE_NO_IRQ);

	fprintf(f, "%s,%d,%d,%llu,%llu", stat_mode_name(s->kind), i + 1, r->cpu,
		(unsigned long long)r->ticks, (unsigned long long)r->ns);
	csv_u64(f, (uint64_t)r->exit_status, r->exited);
	csv_u64(f, (uint64_t)r->term_signal, r->signaled);
	fprintf(f, ",%d", r->timed_out);
	for (int e = 0; e < rep->nr; e++) {
		const struct pbench_count *k = &r->counts[e];

		if (k->status <= PBENCH_EVENT_MULTIPLEXED)
			csv_real(f, k->scaled);
		else
			fputc(',', f);
	}
	csv_u64(f, r->noise.ctx_involuntary, 1);
	csv_u64(f, r->noise.ctx_voluntary, 1);
	csv_u64(f, r->noise.migrations, r->have_migrations);
	csv_u64(f, r->noise.minor_faults, 1);
	csv_u64(f, r->noise.major_faults, 1);
	csv_real(f, r->noise.not_running_ns);
	csv_u64(f, c->irq_total, irq);
	csv_u64(f, c->irq_timer, irq);
	csv_u64(f, c->irq_ipi, irq);
	csv_u64(f, c->irq_device, irq);
	csv_u64(f, c->softirq_total, cn && !(c->flags & PBENCH_CPU_NOISE_NO_SOFTIRQ));
	csv_real(f, cn ? c->steal_ns : NAN);
	csv_u64(f, r->setup_ns, rep->o->cmd && r->setup_ns);
	csv_u64(f, r->exec_ns, rep->o->cmd && r->exec_ns);
	fprintf(f, ",%d,", r->outlier);
	csv_text(f, r->outlier ? r->cause : "");
	fputc('\n', f);
}

int stat_write_csv(const struct stat_report *rep, FILE *f)
{

	csv_header(f, rep);
	for (int s = 0; s < rep->nsets; s++)
		for (int i = 0; i < rep->sets[s]->done; i++)
			csv_run(f, rep, rep->sets[s], i);
	if (ferror(f) || fflush(f) == EOF) {
		cli_error("cannot write the CSV file '%s': %s", rep->o->csv, strerror(errno));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
