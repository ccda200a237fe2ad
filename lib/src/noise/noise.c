/* SPDX-License-Identifier: MIT */
/*
 * Noise attribution: what happened on one CPU during a run (interrupts by source from
 * /proc/interrupts, softirqs from /proc/softirqs, steal from /proc/stat), and the one-line
 * cause of an outlier run computed from those numbers and the task's own (struct pbench_noise).
 * The rows of /proc/interrupts are parsed by irq_table.c, shared with the irq.affinity check.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "base/irq_table.h"
#include "noise/noise.h"

/* ---- the per-CPU probe ------------------------------------------------------------------- */

/* One file's rows for the probe's CPU, as begin saw them. */
struct table {
	struct pb_irq_row *row;
	int n, cap;
	int ok;			/* begin read it and found the CPU's column */
};

/* The files read, each through a descriptor kept open from its first read. */
enum { F_INTERRUPTS, F_SOFTIRQS, F_STAT, F_NR };
static const char *const file_path[F_NR] = { "/proc/interrupts", "/proc/softirqs", "/proc/stat" };

struct pbench_cpu_probe {
	int cpu;
	int begun;
	int fd[F_NR];		/* -1 until first read */
	char *real[F_NR];	/* the path each was opened by */
	char *buf;		/* the text of the file being read; reused */
	size_t cap;
	struct table irq, soft;
	unsigned long long steal;
	int steal_ok;
	/*
	 * /proc/stat's "intr" total (every interrupt of every CPU, /proc/interrupts' rows
	 * included) read just before irq's rows were: while a later reading of the total is the
	 * same, no row moved and the rows stand for now. /proc/interrupts is by far the dearest
	 * file (40 us a read on the development VM, the others 4-6 us): a run or a gap between
	 * runs with no interrupt anywhere needs no new reading of it.
	 */
	unsigned long long intr_at_rows;
	int rows_valid;
	unsigned long long irq_reads;	/* /proc/interrupts readings (for the tests) */
	/* The total /proc/stat gave just before the tables are read (begin, end). */
	unsigned long long intr_now;
	int have_intr_now;
	struct irq_share *share;	/* with the probes of other CPUs, or NULL */
};

/*
 * The last text of /proc/interrupts any probe of a group read, with the interrupt total read
 * just before it: a probe of another CPU whose rows are old takes its column from that text
 * while the total has not moved since, instead of reading the file again. Unprepared runs move
 * between CPUs, a probe for each: without it each run read the rows twice (its CPU's probe
 * last read them runs ago), 1.9 readings a run on two CPUs instead of 1.
 */
struct irq_share {
	char *text;
	size_t cap;
	char *path;		/* the file it was read from (a recorded tree's root may change) */
	unsigned long long intr;
	int valid;
	int refs;
};

#define BUF_MIN 65536

/* Read the file into the probe's buffer; 0 or -errno. Growing the buffer is allowed at begin
 * only: at end a file that no longer fits sets *cut (its tail is missing). */
static int read_text(struct pbench_cpu_probe *p, int file, int grow, int *cut)
{
	char real[4096];
	int err = pb_path(real, sizeof(real), file_path[file]);

	if (err)
		return err;
	/* Kept while the path stays the same (a recorded tree's root may change between the
	 * beginning and the end of a window: the tests' edited copies). */
	if (p->fd[file] >= 0 && strcmp(real, p->real[file])) {
		close(p->fd[file]);
		p->fd[file] = -1;
	}
	if (p->fd[file] < 0) {
		char *copy = strdup(real);

		if (!copy)
			return -ENOMEM;
		p->fd[file] = open(real, O_RDONLY | O_CLOEXEC);
		if (p->fd[file] < 0) {
			free(copy);
			return -errno;
		}
		free(p->real[file]);
		p->real[file] = copy;
	}
	for (;;) {
		int n = pb_read_fd(p->fd[file], p->buf, p->cap);
		char *bigger;

		if (n < 0)
			return n;
		/* A full buffer may hide more; the kernel's files end in at most a newline,
		 * so anything close to full is taken as cut. */
		if ((size_t)n + 64 < p->cap)
			return 0;
		if (!grow) {
			*cut = 1;
			return 0;
		}
		bigger = realloc(p->buf, p->cap * 2);
		if (!bigger)
			return -ENOMEM;
		p->buf = bigger;
		p->cap *= 2;
	}
}

/* The next line of the text at *pos, terminated in place; NULL at the end. */
static char *next_line(char **pos)
{
	char *s = *pos, *nl;

	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = s + strlen(s);
	}
	return s;
}

/* *buf holds at least len bytes (grown when not); 0, or -ENOMEM with *buf as it was. */
static int fit(char **buf, size_t *cap, size_t len)
{
	char *b;

	if (len <= *cap)
		return 0;
	b = realloc(*buf, len);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = len;
	return 0;
}

/* /proc/interrupts' text just read into p->buf (whole: not cut), kept in the group's share
 * with the total read before it. */
static void share_keep(struct pbench_cpu_probe *p, int cut)
{
	struct irq_share *sh = p->share;
	size_t len;

	if (!sh)
		return;
	sh->valid = 0;
	if (cut || !p->have_intr_now || !p->real[F_INTERRUPTS])
		return;
	len = strlen(p->buf) + 1;
	if (fit(&sh->text, &sh->cap, len))
		return;
	if (!sh->path || strcmp(sh->path, p->real[F_INTERRUPTS])) {
		char *path = strdup(p->real[F_INTERRUPTS]);

		if (!path)
			return;
		free(sh->path);
		sh->path = path;
	}
	memcpy(sh->text, p->buf, len);
	sh->intr = p->intr_now;
	sh->valid = 1;
}

/* 1 when the share holds the text of /proc/interrupts as it is now (the total read just now
 * is the one read before that text, from the same file), copied into p->buf; else 0. */
static int share_take(struct pbench_cpu_probe *p)
{
	struct irq_share *sh = p->share;
	char real[4096];
	size_t len;

	if (!sh || !sh->valid || !p->have_intr_now || sh->intr != p->intr_now ||
	    pb_path(real, sizeof(real), file_path[F_INTERRUPTS]) || strcmp(real, sh->path))
		return 0;
	len = strlen(sh->text) + 1;
	if (fit(&p->buf, &p->cap, len))
		return 0;
	memcpy(p->buf, sh->text, len);
	return 1;
}

/* Take a table's rows for the probe's CPU into t (begin): from the file, or for
 * /proc/interrupts from the group's share when it is current (*read: whether the file was
 * read). */
static int snap_table(struct pbench_cpu_probe *p, int file, struct table *t, int *read)
{
	char *pos, *hdr, *line;
	int err = 0, col, lines = 1;

	t->ok = 0;
	t->n = 0;
	*read = !(file == F_INTERRUPTS && share_take(p));
	if (*read)
		err = read_text(p, file, 1, NULL);
	if (err)
		return err;
	if (*read && file == F_INTERRUPTS)
		share_keep(p, 0);
	pos = p->buf;
	hdr = next_line(&pos);
	col = hdr ? pb_irq_column(hdr, p->cpu) : -1;
	if (col < 0)
		return -ENOENT;
	for (const char *c = pos; *c; c++)
		lines += *c == '\n';
	if (lines > t->cap) {
		struct pb_irq_row *r = realloc(t->row, (size_t)(lines + 16) * sizeof(*r));

		if (!r)
			return -ENOMEM;
		t->row = r;
		t->cap = lines + 16;
	}
	while ((line = next_line(&pos)) && t->n < t->cap)
		if (!pb_irq_parse_line(line, col, &t->row[t->n]))
			t->n++;
	t->ok = 1;
	return 0;
}

/* The row of t labelled like r: most often at the same index as at begin. */
static const struct pb_irq_row *find_row(const struct table *t, int hint, const char *label)
{
	if (hint < t->n && !strcmp(t->row[hint].label, label))
		return &t->row[hint];
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->row[i].label, label))
			return &t->row[i];
	return NULL;
}

/* Keep the PBENCH_NOISE_TOP biggest sources, biggest first (equal counts: first seen). */
static void top_add(struct pbench_noise_source *top, const struct pb_irq_row *r, uint64_t n)
{
	char label[16], name[48];	/* cut where the fields were cut when they were arrays */
	int i = PBENCH_NOISE_TOP - 1;

	if (!n || top[i].count >= n)
		return;
	for (; i > 0 && top[i - 1].count < n; i--)
		top[i] = top[i - 1];
	/* The library's copies, for the life of the process: a run's noise outlives its probe.
	 * Allocated only the first time a row is among the busiest. */
	snprintf(label, sizeof(label), "%s", r->label);
	snprintf(name, sizeof(name), "%s", r->name);
	top[i].label = pb_intern(label);
	top[i].name = pb_intern(name);
	top[i].count = n;
}

/* x86's inter-processor interrupts, and arm64's numbered IPI rows ("IPI0:"). */
static int is_ipi(const char *label)
{
	static const char *const ipi[] = { "RES", "CAL", "TLB", "IWI", "PLT", "CST" };

	if (!strncmp(label, "IPI", 3) && isdigit((unsigned char)label[3]))
		return 1;
	for (size_t i = 0; i < PB_ARRAY_SIZE(ipi); i++)
		if (!strcmp(label, ipi[i]))
			return 1;
	return 0;
}

static void add_irq(struct pbench_cpu_noise *o, const struct pb_irq_row *r, uint64_t n)
{
	/* ERR and MIS are machine-wide counts with one column, not CPU0's. */
	if (!strcmp(r->label, "ERR") || !strcmp(r->label, "MIS"))
		return;
	o->irq_total += n;
	if (isdigit((unsigned char)r->label[0])) {
		o->irq_device += n;
		top_add(o->irq_top, r, n);
	} else if (!strcmp(r->label, "LOC")) {
		o->irq_timer += n;
	} else if (is_ipi(r->label)) {
		o->irq_ipi += n;
		top_add(o->ipi_top, r, n);
	} else {
		o->irq_other += n;
	}
}

static void add_softirq(struct pbench_cpu_noise *o, const struct pb_irq_row *r, uint64_t n)
{
	o->softirq_total += n;
	top_add(o->softirq_top, r, n);
}

/* The deltas of a table against begin's rows, each handed to add(), the rows then moved to
 * the counts read (*fresh: 1 when every row was found again, uncut); 0 or -errno. */
static int diff_table(struct pbench_cpu_probe *p, int file, struct table *t,
		      struct pbench_cpu_noise *o,
		      void (*add)(struct pbench_cpu_noise *, const struct pb_irq_row *, uint64_t),
		      int *fresh)
{
	struct pb_irq_row r;
	char *pos, *hdr, *line;
	int cut = 0, err = read_text(p, file, 0, &cut), col, i = 0, found = 0, parsed = 0;

	if (err)
		return err;
	if (file == F_INTERRUPTS)
		share_keep(p, cut);
	pos = p->buf;
	hdr = next_line(&pos);
	/* Columns can move when a CPU goes on or offline: find ours again. */
	col = hdr ? pb_irq_column(hdr, p->cpu) : -1;
	if (col < 0)
		return -ENOENT;
	if (cut)
		o->flags |= PBENCH_CPU_NOISE_CUT;
	*fresh = 0;
	for (; (line = next_line(&pos)); i++) {
		struct pb_irq_row *b;

		if (pb_irq_parse_line(line, col, &r))
			continue;
		parsed++;
		b = (struct pb_irq_row *)find_row(t, i, r.label);
		/* A row that appeared during the run counted from zero within it. */
		if (b && r.count < b->count) {
			o->flags |= PBENCH_CPU_NOISE_BACKWARDS;
			continue;
		}
		add(o, &r, r.count - (b ? b->count : 0));
		if (b) {
			b->count = r.count;
			found++;
		}
	}
	*fresh = !cut && found == t->n && parsed == t->n;
	return 0;
}

/* steal of cpu in /proc/stat, in USER_HZ ticks: 0, -ENOENT (no line, or a kernel without
 * the field), or the read error. *intr: the "intr" line's total, when *have_intr. */
static int read_steal(struct pbench_cpu_probe *p, int grow, int *cut, unsigned long long *steal,
		      unsigned long long *intr, int *have_intr)
{
	char *pos, *line;
	int err = read_text(p, F_STAT, grow, cut), found = -ENOENT;

	*have_intr = 0;
	if (err)
		return err;
	for (pos = p->buf; (line = next_line(&pos));) {
		struct pb_cpu_times t;
		int cpu, n;

		if (!strncmp(line, "intr ", 5)) {
			char *end;

			*intr = strtoull(line + 5, &end, 10);
			*have_intr = end > line + 5;
			break;	/* after every cpu line; the rest is not needed */
		}
		/* Only the probe's CPU parsed in full: a machine of 128 CPUs has 128 lines. */
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]) ||
		    atoi(line + 3) != p->cpu)
			continue;
		n = pb_parse_cpu_times(line, &cpu, &t);
		if (n < 0 || cpu != p->cpu)
			continue;
		found = n < 8 ? -ENOENT : 0;
		if (!found)
			*steal = t.steal;
	}
	return found;
}

int pbench_cpu_probe_new(struct pbench_cpu_probe **out, int cpu)
{
	struct pbench_cpu_probe *p;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (cpu < 0)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cpu = cpu;
	for (int f = 0; f < F_NR; f++)
		p->fd[f] = -1;
	p->cap = BUF_MIN;
	p->buf = malloc(p->cap);
	if (!p->buf) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void pbench_cpu_probe_free(struct pbench_cpu_probe *p)
{
	if (!p)
		return;
	for (int f = 0; f < F_NR; f++) {
		if (p->fd[f] >= 0)
			close(p->fd[f]);
		free(p->real[f]);
	}
	if (p->share && !--p->share->refs) {
		free(p->share->text);
		free(p->share->path);
		free(p->share);
	}
	free(p->irq.row);
	free(p->soft.row);
	free(p->buf);
	free(p);
}

int pb_cpu_probe_share(struct pbench_cpu_probe *p, struct pbench_cpu_probe *with)
{
	if (!p || !with || p == with || p->share)
		return -EINVAL;
	if (!with->share) {
		with->share = calloc(1, sizeof(*with->share));
		if (!with->share)
			return -ENOMEM;
		with->share->refs = 1;
	}
	p->share = with->share;
	p->share->refs++;
	return 0;
}

unsigned long long pb_cpu_probe_irq_reads(const struct pbench_cpu_probe *p)
{
	return p ? p->irq_reads : 0;
}

int pbench_cpu_probe_begin(struct pbench_cpu_probe *p)
{
	unsigned long long intr = 0;
	int e1 = 0, e2, e3, have_intr, read;

	if (!p)
		return -EINVAL;
	p->begun = 0;
	/* /proc/stat first: its interrupt total is read before the rows it vouches for. */
	e3 = read_steal(p, 1, NULL, &p->steal, &intr, &have_intr);
	p->steal_ok = !e3;
	p->intr_now = intr;
	p->have_intr_now = have_intr;
	if (!(have_intr && p->rows_valid && p->irq.ok && intr == p->intr_at_rows)) {
		e1 = snap_table(p, F_INTERRUPTS, &p->irq, &read);
		p->irq_reads += read;
		p->rows_valid = !e1 && have_intr;
		p->intr_at_rows = intr;
	}
	e2 = snap_table(p, F_SOFTIRQS, &p->soft, &read);
	if (e1 == -ENOMEM || e2 == -ENOMEM || e3 == -ENOMEM)
		return -ENOMEM;
	if (e1 && e2 && e3)
		return e1;
	p->begun = 1;
	return 0;
}

int pbench_cpu_probe_end(struct pbench_cpu_probe *p, struct pbench_cpu_noise *out)
{
	struct pbench_cpu_noise o = { .size = sizeof(o) };
	unsigned long long steal = 0, intr = 0;
	int cut = 0, err = 0, e, es, have_intr = 0, fresh = 0;
	long hz;

	if ((err = PB_CHECK_STRUCT(out, pbench_cpu_noise, 0, NULL)))
		return err;
	if (!p)
		return pb_fail(-EINVAL, "%s(): p is NULL", __func__);
	if (!p->begun)
		return -PBENCH_EBUSY_REGION;
	p->begun = 0;
	o.cpu = p->cpu;
	o.steal_ns = NAN;
	/* /proc/stat first: when its interrupt total has not moved since the rows were read, no
	 * interrupt came, on any CPU, and the rows are read again only when it has. */
	es = p->steal_ok ? read_steal(p, 0, &cut, &steal, &intr, &have_intr) : -ENOENT;
	p->intr_now = intr;
	p->have_intr_now = have_intr && !cut;
	if (p->irq.ok && p->rows_valid && have_intr && intr == p->intr_at_rows) {
		e = 0;	/* every delta is 0; the rows stand */
	} else if (p->irq.ok) {
		e = diff_table(p, F_INTERRUPTS, &p->irq, &o, add_irq, &fresh);
		p->irq_reads++;
		p->rows_valid = !e && fresh && have_intr;
		p->intr_at_rows = intr;
	} else {
		e = -ENOENT;
	}
	if (e) {
		o.flags |= PBENCH_CPU_NOISE_NO_IRQ;
		o.irq_total = o.irq_timer = o.irq_ipi = o.irq_other = o.irq_device = 0;
		memset(o.irq_top, 0, sizeof(o.irq_top));
		memset(o.ipi_top, 0, sizeof(o.ipi_top));
		err = e;
	}
	e = p->soft.ok ? diff_table(p, F_SOFTIRQS, &p->soft, &o, add_softirq, &fresh) :
			 -ENOENT;
	if (e) {
		o.flags |= PBENCH_CPU_NOISE_NO_SOFTIRQ;
		o.softirq_total = 0;
		memset(o.softirq_top, 0, sizeof(o.softirq_top));
		err = err ? err : e;
	}
	e = es;
	hz = sysconf(_SC_CLK_TCK);
	if (!e && hz > 0) {
		if (steal < p->steal)
			o.flags |= PBENCH_CPU_NOISE_BACKWARDS;
		else
			o.steal_ticks = steal - p->steal;
		o.steal_ns = (double)o.steal_ticks * 1e9 / (double)hz;
	}
	if (e || hz <= 0) {
		o.flags |= PBENCH_CPU_NOISE_NO_STEAL;
		err = err ? err : e ? e : -EINVAL;
	}
	if (cut)
		o.flags |= PBENCH_CPU_NOISE_CUT;
	pb_copy_out(out, &o, sizeof(o));
	/* Something was measured: the flags say what was not. */
	if ((o.flags & PBENCH_CPU_NOISE_NO_IRQ) && (o.flags & PBENCH_CPU_NOISE_NO_SOFTIRQ) &&
	    (o.flags & PBENCH_CPU_NOISE_NO_STEAL))
		return err;
	return 0;
}

/* ---- the cause of an outlier ------------------------------------------------------------- */

/* The fair server (a deadline server for normal tasks, kernel 6.12+) runs them for up to
 * 50 ms per 1 s period even against SCHED_FIFO: a FIFO run that was preempted and lost about
 * that long lost it to the fair server. */
#define FAIR_SERVER_NS 50e6
#define FAIR_SERVER_SLACK_NS 5e6
#define PB_CAUSE_UNSEEN "on the CPU all along by task-clock: slowed by what the kernel cannot " \
	"see (the hypervisor, an SMT sibling, the clock speed) or by the work itself"
/* The same for a command that waits on its own (PBENCH_CAUSE_OWN_WAIT): task-clock says it was
 * off the CPU no longer than a typical run, not that it was on it all along. */
#define PB_CAUSE_UNSEEN_OWN "off the CPU no longer than a typical run's waiting: slowed " \
	"by what the kernel cannot see (the hypervisor, an SMT sibling, the clock speed) or by " \
	"the work itself"
/* The same, where the reference around the run (the clock's, or the throughput's: %s) says
 * the speed was not it. */
#define PB_CAUSE_USUAL_SPEED "%s, and %s (%.2fx its best by %s) " \
	"explains under half of it: the work itself, a change of speed between the two " \
	"readings, or what the reference cannot see (shared caches, memory bandwidth)"
/* PBENCH_CAUSE_TYPICAL: the task's numbers are beyond a typical run's, within the timed span;
 * the extra time was on the CPU (task-clock rose %s of the %s excess). */
#define PB_CAUSE_ON_CPU "on the CPU for the extra time by task-clock (it rose %s of the +%s)"
#define PB_CAUSE_UNSEEN_TYPICAL PB_CAUSE_ON_CPU ": slowed by what the kernel cannot see (the " \
	"hypervisor, an SMT sibling, the clock speed) or by the work itself"
/* Before the scheduler's clause of such numbers. */
#define PB_CAUSE_BEYOND "beyond a typical run, "
/* Where the reference loop says the CPU ran slower and the kernel saw nothing. */
#define PB_CAUSE_HOST "nothing the kernel saw: host contention on a VM, or the clock"

struct text {
	char *buf;
	size_t len;
	int n;			/* as snprintf: what the whole text needs */
	const char *lead;	/* before a clause's first item (NULL: nothing) */
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	size_t at = (size_t)t->n < t->len ? (size_t)t->n : t->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf ? t->buf + at : NULL, t->len - at, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->n += n;
}

/* ", " between the items of a clause, "; " between clauses. */
static void item(struct text *t, int *items, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void item(struct text *t, int *items, const char *fmt, ...)
{
	char s[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	put(t, "%s%s%s", *items ? ", " : "", !*items && t->lead ? t->lead : "", s);
	if (!*items)
		t->lead = NULL;	/* said once, before the first item said */
	++*items;
}

static const char *times(uint64_t n, char *buf, size_t len)
{
	if (n == 1)
		return "once";
	snprintf(buf, len, "%llu times", (unsigned long long)n);
	return buf;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The scheduler's part: not running, preempted, blocked, migrated, major faults; on_cpu: the
 * extra time was on the CPU (PBENCH_CAUSE_TYPICAL), and the switches, which cost it under a
 * tenth, are not its cause. */
static int sched_clause(struct text *t, double excess_ns, const struct pbench_noise *task,
			unsigned flags, int on_cpu)
{
	char ns[32], tm[32];
	int items = 0;
	double nr = task->not_running_ns;
	const char *lead = t->lead;

	/* With the command's own waiting these items say "beyond" in their own words; the lead
	 * is then for the rest only when none of them was said. */
	if (flags & PBENCH_CAUSE_OWN_WAIT)
		t->lead = NULL;


	/* A gap of a few ns between wall time and task-clock is how they are read, not a
	 * cause: not running is named once it is 1% of the excess. */
	if (isfinite(nr) && nr > 0 && nr >= fabs(excess_ns) / 100) {
		pbench_format_ns(ns, sizeof(ns), nr, 2);
		item(t, &items, (flags & PBENCH_CAUSE_OWN_WAIT) ?
		     "%s off the CPU beyond a typical run's waiting" : "%s not running", ns);
	}
	if (task->ctx_involuntary && !on_cpu)
		item(t, &items, "preempted %s%s%s", times(task->ctx_involuntary, tm, sizeof(tm)),
		     (flags & PBENCH_CAUSE_TYPICAL) && (flags & PBENCH_CAUSE_OWN_WAIT) ?
		     " more than a typical run" : "",
		     (flags & PBENCH_CAUSE_FIFO) && isfinite(nr) &&
		     fabs(nr - FAIR_SERVER_NS) <= FAIR_SERVER_SLACK_NS ? " (fair server)" : "");
	if (on_cpu)
		;
	else if (task->ctx_voluntary && (flags & PBENCH_CAUSE_OWN_WAIT))
		item(t, &items, "blocked %s more than a typical run",
		     times(task->ctx_voluntary, tm, sizeof(tm)));
	else if (task->ctx_voluntary)
		item(t, &items, "blocked %s", times(task->ctx_voluntary, tm, sizeof(tm)));
	if (flags & PBENCH_CAUSE_OWN_WAIT)
		t->lead = items ? NULL : lead;
	if (task->migrations)
		item(t, &items, "migrated %s", times(task->migrations, tm, sizeof(tm)));
	if (task->major_faults)
		item(t, &items, "%llu major fault%s", (unsigned long long)task->major_faults,
		     plural(task->major_faults));
	return items;
}

/* The interrupts on the CPU: devices (named), timer, IPIs, the other per-CPU rows. */
static int irq_clause(struct text *t, const struct pbench_cpu_noise *cpu)
{
	char names[3 * 52] = "";
	int items = 0;
	size_t n = 0;

	for (int i = 0; i < PBENCH_NOISE_TOP && cpu->irq_top[i].count && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      cpu->irq_top[i].name);
	if (cpu->irq_device)
		item(t, &items, "%llu device interrupt%s%s%s%s",
		     (unsigned long long)cpu->irq_device, plural(cpu->irq_device),
		     *names ? " (" : "", names, *names ? ")" : "");
	if (cpu->irq_timer)
		item(t, &items, "%llu timer interrupt%s", (unsigned long long)cpu->irq_timer,
		     plural(cpu->irq_timer));
	if (cpu->irq_ipi)
		item(t, &items, "%llu IPI%s", (unsigned long long)cpu->irq_ipi,
		     plural(cpu->irq_ipi));
	if (cpu->irq_other)
		item(t, &items, "%llu other interrupt%s", (unsigned long long)cpu->irq_other,
		     plural(cpu->irq_other));
	return items;
}

/* The length of one of /proc/stat's steal ticks in cpu's counts (10 ms at USER_HZ 100). */
static double steal_tick_ns(const struct pbench_cpu_noise *cpu)
{
	return cpu->steal_ticks && isfinite(cpu->steal_ns) ?
	       cpu->steal_ns / (double)cpu->steal_ticks : 0;
}

int pb_noise_steal_range(uint64_t n, double *lo, double *hi)
{
	*lo = n ? (double)(n - 1) : 0;
	*hi = n ? (double)(n + 1) : 0;
	return n > 0 && n < 10;
}

void pb_noise_steal_note(char *buf, size_t len, uint64_t n)
{
	long hz = sysconf(_SC_CLK_TCK);
	char tick[32];

	pbench_format_ns(tick, sizeof(tick), hz > 0 ? 1e9 / (double)hz : NAN, 1);
	snprintf(buf, len, " (/proc/stat counts steal in %s ticks: %llu moved)", tick,
		 (unsigned long long)n);
}

/* The steal the count proves (pb_noise_steal_range()'s low end). */
static double steal_surely_ns(const struct pbench_cpu_noise *cpu)
{
	double lo, hi;

	pb_noise_steal_range(cpu->steal_ticks, &lo, &hi);
	return lo * steal_tick_ns(cpu);
}

void pb_noise_steal_words(char *buf, size_t len, uint64_t ticks, double ns)
{
	double tick = ticks && isfinite(ns) ? ns / (double)ticks : 0, lo, hi;
	char a[32], b[32];
	int digits = 1;

	if (!(tick > 0)) {
		snprintf(buf, len, "none");
		return;
	}
	if (!pb_noise_steal_range(ticks, &lo, &hi)) {
		for (uint64_t k = ticks; k >= 10; k /= 10)
			digits++;
		pbench_format_ns(buf, len, ns, digits);
		return;
	}
	pbench_format_ns(a, sizeof(a), lo * tick, 1);
	pbench_format_ns(b, sizeof(b), hi * tick, 1);
	if (ticks == 1)
		snprintf(buf, len, "up to %s", b);
	else
		snprintf(buf, len, "between %s and %s", a, b);
}

/*
 * "up to 20 ms stolen by the hypervisor (/proc/stat counts steal in 10 ms ticks: 1 moved)"
 * (pb_noise_steal_words()). A count of 1 during a run of 0.8 ms said "10 ms stolen" before,
 * more than the run lasted, where its task-clock said it ran all along.
 */
static int steal_clause(struct text *t, const struct pbench_cpu_noise *cpu)
{
	char words[80], note[80];
	double lo, hi;

	if (!(steal_tick_ns(cpu) > 0))
		return 0;
	pb_noise_steal_words(words, sizeof(words), cpu->steal_ticks, cpu->steal_ns);
	put(t, "%s%s stolen by the hypervisor", t->lead ? t->lead : "", words);
	t->lead = NULL;
	if (pb_noise_steal_range(cpu->steal_ticks, &lo, &hi)) {
		pb_noise_steal_note(note, sizeof(note), cpu->steal_ticks);
		put(t, "%s", note);
	}
	return 1;
}

/* Slower, yet running the whole time as far as the guest kernel knows: what is left is what it
 * cannot see. Only when not running explains under a tenth of the excess, and the steal the
 * ticks prove does too; a preemption beyond a typical run's (PBENCH_CAUSE_TYPICAL) that cost
 * under a tenth does not change it. */
static int unseen(double excess_ns, const struct pbench_noise *task,
		  const struct pbench_cpu_noise *cpu, unsigned flags)
{
	return excess_ns > 0 && isfinite(task->not_running_ns) &&
	       task->not_running_ns < excess_ns / 10 &&
	       (!task->ctx_involuntary || (flags & PBENCH_CAUSE_TYPICAL)) &&
	       !task->major_faults && steal_surely_ns(cpu) < excess_ns / 10;
}

/* The kernel's clauses (scheduler, interrupts, steal) after what t holds; their count. */
static int kernel_clauses(struct text *t, int clauses, double excess_ns,
			  const struct pbench_noise *task, const struct pbench_cpu_noise *cpu,
			  unsigned flags)
{
	int on_cpu = (flags & PBENCH_CAUSE_TYPICAL) && unseen(excess_ns, task, cpu, flags);
	double nr = isfinite(task->not_running_ns) ? task->not_running_ns : 0;
	/* By size of effect: the two that are times (not running, steal) by their size, the
	 * interrupts, whose cost is not measured, after the scheduler's part. */
	int steal_first = isfinite(cpu->steal_ns) && cpu->steal_ticks && cpu->steal_ns > nr;

	/* Beyond a typical run: said once before the first clause, or by each of the
	 * scheduler's items with the command's own waiting, whose words say it already (the
	 * lead then before the first other item, when none of them was said: sched_clause()). */
	t->lead = (flags & PBENCH_CAUSE_TYPICAL) ? PB_CAUSE_BEYOND : NULL;

	if (steal_first) {
		if (clauses)
			put(t, "; ");
		clauses += steal_clause(t, cpu);
	}
	for (int part = 0; part < 3; part++) {
		int at = t->n, got;

		if (clauses)
			put(t, "; ");
		got = part == 0 ? sched_clause(t, excess_ns, task, flags, on_cpu) :
		      part == 1 ? irq_clause(t, cpu) : steal_first ? 0 : steal_clause(t, cpu);
		if (!got) {
			/* Take back the separator. */
			t->n = at;
			if (t->buf && (size_t)at < t->len)
				t->buf[at] = '\0';
		}
		clauses += got;
	}
	t->lead = NULL;
	return clauses;
}

/* The line; speed is the speed references' clause when it explains the run, else NULL, and
 * usual the reference loop's factor when it was read and does not explain it (else NaN). */
static int cause_line(char *buf, size_t len, double excess_ns, const struct pbench_noise *task,
		      const struct pbench_cpu_noise *cpu, unsigned flags, const char *speed,
		      double usual)
{
	struct text t = { buf, buf ? len : 0, 0 };
	struct pbench_noise none = { .size = sizeof(none), .not_running_ns = NAN }, own;
	struct pbench_cpu_noise quiet = { .size = sizeof(quiet), .steal_ns = NAN };
	char ex[32], rose[32] = "", on_cpu[160];
	int clauses = 0, hidden;

	if ((!buf && len) || !isfinite(excess_ns))
		return -EINVAL;
	if (buf && len)
		buf[0] = '\0';
	if (task && task->size < sizeof(size_t))
		return -EINVAL;
	if (task) {	/* an older caller's struct: the fields it lacks are not known */
		own = none;
		pb_copy_in(&own, sizeof(own), task);
		task = &own;
	}
	task = task ? task : &none;
	cpu = cpu ? cpu : &quiet;
	hidden = unseen(excess_ns, task, cpu, flags);
	pbench_format_ns(ex, sizeof(ex), fabs(excess_ns), 3);
	if (hidden)
		pbench_format_ns(rose, sizeof(rose), excess_ns - task->not_running_ns, 3);
	if (flags & PBENCH_CAUSE_TYPICAL)
		snprintf(on_cpu, sizeof(on_cpu), PB_CAUSE_ON_CPU, rose, ex);
	else
		snprintf(on_cpu, sizeof(on_cpu), "%s", (flags & PBENCH_CAUSE_OWN_WAIT) ?
			 "off the CPU no longer than a typical run's waiting" :
			 "on the CPU all along by task-clock");
	put(&t, "%s%s: ", excess_ns < 0 ? "-" : "+", ex);
	if (speed) {
		put(&t, "%s%s", speed, hidden ? "; " PB_CAUSE_HOST : "");
		clauses++;
	} else if (excess_ns < 0) {
		/* What the kernel saw does not make a run faster: it is said as what the run
		 * went through all the same, after what it is. */
		int at;

		put(&t, "faster than the typical run");
		at = t.n;
		put(&t, "; it went through all the same: ");
		if (!kernel_clauses(&t, 0, excess_ns, task, cpu, flags)) {
			t.n = at;
			if (t.buf && (size_t)at < t.len)
				t.buf[at] = '\0';
		}
		return t.n;
	}
	clauses = kernel_clauses(&t, clauses, excess_ns, task, cpu, flags);
	if (hidden && !speed) {
		if (isfinite(usual))
			put(&t, "%s" PB_CAUSE_USUAL_SPEED, clauses ? "; " : "", on_cpu,
			    (flags & PBENCH_CAUSE_CLOCK) ? "the clock" :
			    "the core's issue throughput available to this thread", usual,
			    !(flags & PBENCH_CAUSE_CLOCK) ? "the throughput reference before/after" :
			    (flags & PBENCH_CAUSE_CLOCK_PMU) ? "cycles over task-clock, the PMU's, "
			    "over the run" : "the latency-bound reference before/after");
		else if (flags & PBENCH_CAUSE_TYPICAL)
			put(&t, "%s" PB_CAUSE_UNSEEN_TYPICAL, clauses ? "; " : "", rose, ex);
		else
			put(&t, "%s%s", clauses ? "; " : "", (flags & PBENCH_CAUSE_OWN_WAIT) ?
			    PB_CAUSE_UNSEEN_OWN : PB_CAUSE_UNSEEN);
		clauses++;
	}
	if (!clauses)
		put(&t, "no noise recorded");
	return t.n;
}

int pbench_noise_cause(char *buf, size_t len, double excess_ns, const struct pbench_noise *task,
		       const struct pbench_cpu_noise *cpu, unsigned flags)
{
	return cause_line(buf, len, excess_ns, task, cpu, flags, NULL, NAN);
}

/*
 * The part of the excess the speed explains: the run took run_ns at factor speed, and would
 * have taken run_ns * speed / typical at a typical run's speed. It explains the run when
 * that is at least half the excess, either way.
 */
static int speed_explains(double excess_ns, double run_ns, double speed, double typical)
{
	double part;

	if (!(speed > 0) || !(typical > 0) || !isfinite(speed) || !isfinite(typical) ||
	    !(run_ns > 0))
		return 0;
	part = run_ns - run_ns * speed / typical;
	return excess_ns > 0 ? part >= excess_ns / 2 : excess_ns < 0 && part <= excess_ns / 2;
}

int pbench_noise_cause_speed(char *buf, size_t len, double excess_ns, double run_ns,
			     double speed, double typical, const struct pbench_noise *task,
			     const struct pbench_cpu_noise *cpu, unsigned flags)
{
	char clause[192], ty[48] = "";

	if (!speed_explains(excess_ns, run_ns, speed, typical))
		return cause_line(buf, len, excess_ns, task, cpu, flags, NULL,
				  speed > 0 && isfinite(speed) && typical > 0 && isfinite(typical) ?
				  speed : NAN);
	/* The typical run's speed when it was not the best itself. */
	if (typical * PBENCH_SPEED_VARIED < 1 || speed > typical)
		snprintf(ty, sizeof(ty), "; %.2fx in a typical run", typical);
	if (flags & PBENCH_CAUSE_CLOCK)
		snprintf(clause, sizeof(clause), "the clock ran at %.2fx its best (%s%s)", speed,
			 (flags & PBENCH_CAUSE_CLOCK_PMU) ? "cycles over task-clock, the PMU's, over "
			 "the run" : "latency-bound reference before/after", ty);
	else
		snprintf(clause, sizeof(clause), "the core's issue throughput available to this "
			 "thread was %.2fx its best (throughput reference before/after%s)", speed,
			 ty);
	return cause_line(buf, len, excess_ns, task, cpu, flags, clause, NAN);
}
