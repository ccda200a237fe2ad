/* SPDX-License-Identifier: MIT */
/*
 * The machine code of a function: found by address (dladdr1, then the object's own symbol
 * table) or by name (listing_elf.c), disassembled by binutils' objdump between the function's
 * first and last byte. objdump runs through pb_child_output() (the child API, its stdout in a
 * memfd, so that a long listing cannot fill a pipe nobody reads while it is waited for; no
 * shell).
 *
 * Every way of failing ends in a status and a reason with its fix, never in an empty listing:
 * a benchmark whose warning says "optimized away?" needs to see the code or why it cannot.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process.h"
#include "listing/listing.h"

#define OBJDUMP_TIMEOUT_S 30
#define MAX_OUTPUT (16u << 20)		/* a function of 16 MiB of text is not one */

static int set_reason(struct pbench_listing *l, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_reason(struct pbench_listing *l, int status, const char *fmt, ...)
{
	va_list ap;
	int n;

	l->status = status;
	free(l->reason);
	va_start(ap, fmt);
	n = vasprintf(&l->reason, fmt, ap);
	va_end(ap);
	if (n < 0) {
		l->reason = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* ---- finding the function ------------------------------------------------------------- */

/* The symbol of a file's function (name, or the address in the file when name is NULL). */
static int find_in_file(struct pbench_listing *l, const char *name, uint64_t addr)
{
	struct pb_elf_sym s;
	int err = pb_elf_find(l->file, name, addr, &s);

	switch (err) {
	case 0:
		break;
	case -ESRCH:
		if (!name)
			return set_reason(l, PBENCH_LISTING_NO_SYMBOL, "no function symbol at "
					  "0x%" PRIx64 " in '%s'%s", addr, l->file, s.has_symtab ?
					  "" : " (stripped: no .symtab): a static function of a "
					  "stripped binary has no name; build it without -s and "
					  "do not strip it");
		if (s.like[0])
			return set_reason(l, PBENCH_LISTING_NO_SYMBOL, "no function '%s' in '%s' "
					  "(did you mean '%s'? the compiler renames a static "
					  "function it clones)", name, l->file, s.like);
		if (s.near[0])
			return set_reason(l, PBENCH_LISTING_NO_SYMBOL, "no function '%s' in '%s': "
					  "did you mean '%s'?", name, l->file, s.near);
		return set_reason(l, PBENCH_LISTING_NO_SYMBOL, "no function '%s' in '%s'%s",
				  name, l->file, s.has_symtab ? ": check the name (nm lists "
				  "them); a static function may have been inlined into its caller "
				  "(mark it noinline)" : " (stripped: only exported functions "
				  "have names left): build it without -s and do not strip it");
	case -ENODATA:
		return set_reason(l, PBENCH_LISTING_NO_SYMBOL, "'%s' has no symbol table "
				  "(stripped): build it without -s and do not strip it", l->file);
	case -ENOEXEC:
		return set_reason(l, PBENCH_LISTING_NO_FILE, "'%s' is not an ELF file of this "
				  "machine: give the program itself, not a script or a wrapper",
				  l->file);
	default:
		return set_reason(l, PBENCH_LISTING_NO_FILE, "cannot read '%s': %s", l->file,
				  strerror(-err));
	}
	l->symbol = strdup(s.name);
	if (!l->symbol)
		return -ENOMEM;
	l->address = s.value;
	l->size = s.size;
	return 0;
}

/* A function of this process: its object (the main program is /proc/self/exe, a live fact
 * of this process, not a recorded tree) and its address in that file (minus the load bias
 * of a PIE or shared object, l_addr, which is 0 for a fixed-address executable). */
static int find_in_process(struct pbench_listing *l, const void *addr)
{
	const ElfW(Sym) *sym = NULL;
	struct link_map *map = NULL;
	char self[4096];
	Dl_info info;
	uint64_t fa;
	ssize_t n;

	if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return set_reason(l, PBENCH_LISTING_NO_SYMBOL, "%p is in no loaded object (code "
				  "made at run time?): there is no file to disassemble", addr);
	fa = (uint64_t)(uintptr_t)addr - (uint64_t)map->l_addr;
	if (map->l_name && map->l_name[0]) {
		l->file = strdup(map->l_name);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0)
			return set_reason(l, PBENCH_LISTING_NO_FILE, "cannot find this program's "
					  "file (/proc/self/exe): %s", strerror(errno));
		self[n] = '\0';
		l->file = strdup(self);
	}
	if (!l->file)
		return -ENOMEM;
	/* An exported function: the dynamic symbol, with its size, without reading the file. */
	if (dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && info.dli_sname &&
	    sym->st_size && (uintptr_t)addr >= (uintptr_t)info.dli_saddr &&
	    (uintptr_t)addr < (uintptr_t)info.dli_saddr + sym->st_size) {
		l->symbol = strdup(info.dli_sname);
		if (!l->symbol)
			return -ENOMEM;
		l->address = (uint64_t)(uintptr_t)info.dli_saddr - (uint64_t)map->l_addr;
		l->size = sym->st_size;
		return 0;
	}
	/* A static function, or one of a program not linked with -rdynamic: .symtab. */
	return find_in_file(l, NULL, fa);
}

/* ---- running objdump -------------------------------------------------------------------- */

/* Whether an objdump line "addr:\tinsn" jumps back inside [start, end) of the function:
 * 1 yes, 0 no. Calls are not jumps. */
static int is_backward(const char *insn, uint64_t addr, uint64_t start, uint64_t end)
{
	const char *p = insn, *op;
	uint64_t to;
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	/* Prefixes objdump prints before a jump (bnd jmp, notrack jmp). */
	if (!strncmp(p, "bnd ", 4) || !strncmp(p, "notrack ", 8))
		p = strchr(p, ' ') + 1;
	/* Calls, and what takes an address without going there (x86 lea, arm64 adr). */
	if (!strncmp(p, "call", 4) || !strncmp(p, "bl ", 3) || !strncmp(p, "blr", 3) ||
	    !strncmp(p, "lea", 3) || !strncmp(p, "adr", 3))
		return 0;
	op = strpbrk(p, " \t");
	if (!op)
		return 0;
	/* The target as objdump writes it: "1130 <f+0x10>", a whole operand before " <" (not
	 * the address in a "# 1130 <f>" comment of a memory operand). */
	for (const char *q = op; (q = strstr(q, " <")); q++) {
		const char *h = q;

		while (h > op && isxdigit((unsigned char)h[-1]))
			h--;
		if (h == q || (h[-1] != ' ' && h[-1] != '\t' && h[-1] != ',') ||
		    memchr(op, '#', (size_t)(h - op)) || strstr(op, "//"))
			continue;
		to = strtoull(h, &e, 16);
		if (e == q)
			return to >= start && to < end && to <= addr;
	}
	return 0;
}

static int add_line(struct pbench_listing *l, uint64_t addr, const char *insn)
{
	char **lines = realloc(l->lines, (l->nr + 1) * sizeof(*lines));
	uint64_t *addrs;

	if (!lines)
		return -ENOMEM;
	l->lines = lines;
	addrs = realloc(l->addrs, (l->nr + 1) * sizeof(*addrs));
	if (!addrs)
		return -ENOMEM;
	l->addrs = addrs;
	addrs[l->nr] = addr;
	if (asprintf(&lines[l->nr], "%" PRIx64 ":  %s", addr, insn) < 0)
		return -ENOMEM;
	l->nr++;
	l->backward += is_backward(insn, addr, l->address, l->address + l->size);
	return 0;
}

/* objdump's instruction lines ("    1139:\tjne    1130 <f+0x10>"), the rest left out. */
static int parse(struct pbench_listing *l, char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *e, *tab;
		uint64_t a;
		int err;

		while (*line == ' ')
			line++;
		a = strtoull(line, &e, 16);
		if (e == line || *e != ':' || !(tab = strchr(e, '\t')))
			continue;
		tab++;
		if (!*tab || !strncmp(tab, "(bad)", 5))
			continue;
		err = add_line(l, a, tab);
		if (err)
			return err;
	}
	return 0;
}

static int run_objdump(struct pbench_listing *l, const char *objdump)
{
	struct pbench_child_result res = { .size = sizeof(res) };
	char from[40], to[40], *argv[7], *text;
	int err;

	snprintf(from, sizeof(from), "--start-address=0x%" PRIx64, l->address);
	snprintf(to, sizeof(to), "--stop-address=0x%" PRIx64, l->address + l->size);
	argv[0] = (char *)objdump;
	argv[1] = "-d";
	argv[2] = "--no-show-raw-insn";
	argv[3] = from;
	argv[4] = to;
	argv[5] = l->file;
	argv[6] = NULL;
	err = pb_child_output(argv, OBJDUMP_TIMEOUT_S, MAX_OUTPUT, &text, &res);
	if (err == -PBENCH_ENOT_FOUND || err == -PBENCH_ENOT_EXEC || err == -ENOENT)
		return set_reason(l, PBENCH_LISTING_NO_OBJDUMP, "cannot run '%s' (%s): install "
				  "binutils (apt-get install binutils)", objdump,
				  pbench_strerror(err));
	if (err == -ENOMEM)
		return err;
	if (err || !res.exited || res.exit_status) {
		free(text);
		return set_reason(l, PBENCH_LISTING_FAILED, "'%s -d %s' failed (%s): run it to "
				  "see why", objdump, l->file, err ? pbench_strerror(err) :
				  res.exited ? "a non-zero exit status" : "killed by a signal");
	}
	err = parse(l, text);
	free(text);
	if (!err && !l->nr)
		return set_reason(l, PBENCH_LISTING_FAILED, "objdump printed no instruction of "
				  "'%s' in '%s' (0x%" PRIx64 "-0x%" PRIx64 "): run it to see why",
				  l->symbol, l->file, l->address, l->address + l->size);
	return err;
}

/* ---- the object ------------------------------------------------------------------------- */

int pbench_listing_new(struct pbench_listing **out, const struct pbench_listing_opts *opts)
{
	struct pbench_listing_opts o = { 0 };
	struct pbench_listing *l;
	int err;

	pb_fail_clear();
	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if ((err = PB_CHECK_STRUCT(opts, pbench_listing_opts, 0, NULL)))
		return err;
	pb_copy_in(&o, sizeof(o), opts);
	if (!o.addr && (!o.file || !o.symbol || !*o.symbol))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->stop = o.stop;
	if (o.addr) {
		err = find_in_process(l, o.addr);
	} else {
		/* The file's own path: objdump would open its own /proc/self/exe. */
		l->file = realpath(o.file, NULL);
		if (!l->file)
			l->file = strdup(o.file);
		err = l->file ? find_in_file(l, o.symbol, 0) : -ENOMEM;
	}
	if (!err && l->status == PBENCH_LISTING_OK && !l->size)
		err = set_reason(l, PBENCH_LISTING_FAILED, "the symbol '%s' has no size (written "
				 "in assembly without .size?): its end is not known", l->symbol);
	if (!err && l->status == PBENCH_LISTING_OK)
		err = run_objdump(l, o.objdump && *o.objdump ? o.objdump : "objdump");
	if (err) {
		pbench_listing_free(l);
		return err;
	}
	*out = l;
	return 0;
}

void pbench_listing_free(struct pbench_listing *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++)
		free(l->lines[i]);
	free(l->lines);
	free(l->addrs);
	free(l->hits);
	free(l->no_samples);
	free(l->reason);
	free(l->file);
	free(l->symbol);
	free(l);
}

int pbench_listing_status(const struct pbench_listing *l)
{
	return l ? l->status : PBENCH_LISTING_FAILED;
}

const char *pbench_listing_reason(const struct pbench_listing *l)
{
	return l ? l->reason : NULL;
}

const char *pbench_listing_symbol(const struct pbench_listing *l)
{
	return l ? l->symbol : NULL;
}

const char *pbench_listing_file(const struct pbench_listing *l)
{
	return l ? l->file : NULL;
}

uint64_t pbench_listing_address(const struct pbench_listing *l)
{
	return l ? l->address : 0;
}

uint64_t pbench_listing_size(const struct pbench_listing *l)
{
	return l ? l->size : 0;
}

size_t pbench_listing_nr(const struct pbench_listing *l)
{
	return l ? l->nr : 0;
}

const char *pbench_listing_line(const struct pbench_listing *l, size_t i)
{
	return l && i < l->nr ? l->lines[i] : NULL;
}

size_t pbench_listing_backward_jumps(const struct pbench_listing *l)
{
	return l ? l->backward : 0;
}

/* ---- samples ------------------------------------------------------------------------- */

int pb_listing_no_samples(struct pbench_listing *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(l->no_samples);
	va_start(ap, fmt);
	n = vasprintf(&l->no_samples, fmt, ap);
	va_end(ap);
	if (n < 0) {
		l->no_samples = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The line whose instruction holds file address a: the last line starting at or before it
 * (the lines are in address order, as objdump prints them). */
static size_t line_of(const struct pbench_listing *l, uint64_t a)
{
	size_t lo = 0, hi = l->nr;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->addrs[mid] <= a)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int pbench_listing_add_samples(struct pbench_listing *l, const uint64_t *addrs, size_t n)
{
	if (!l || (n && !addrs) || l->status != PBENCH_LISTING_OK || !l->nr)
		return -EINVAL;
	if (!l->hits) {
		l->hits = calloc(l->nr, sizeof(*l->hits));
		if (!l->hits)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		l->total++;
		/* Before the first instruction (padding objdump did not print) is not in it. */
		if (addrs[i] < l->addrs[0] || addrs[i] >= l->address + l->size)
			continue;
		l->hits[line_of(l, addrs[i])]++;
		l->in_function++;
	}
	return 0;
}

uint64_t pbench_listing_line_samples(const struct pbench_listing *l, size_t i)
{
	return l && l->hits && i < l->nr ? l->hits[i] : 0;
}

int pbench_listing_samples(const struct pbench_listing *l, uint64_t *in_function,
			   uint64_t *total)
{
	if (!l || !l->hits)
		return 0;
	if (in_function)
		*in_function = l->in_function;
	if (total)
		*total = l->total;
	return 1;
}

const char *pbench_listing_samples_reason(const struct pbench_listing *l)
{
	if (l && l->hits)
		return NULL;
	if (l && l->no_samples)
		return l->no_samples;
	return "not sampled: the samples come from a run of a command of its own "
	       "(pbench_listing_sample(), pbench stat --annotate)";
}

/* ---- writers ---------------------------------------------------------------------------- */

/* What the code says about loops, in words: a loop's body with no jump back was deleted or
 * fully unrolled. */
static const char *loops_words(const struct pbench_listing *l)
{
	return l->backward ? "jumps back: a loop" : "no jump back: no loop";
}

/* The line with the most samples (the first of equals); nr when none has any. */
static size_t hottest(const struct pbench_listing *l)
{
	size_t best = l->nr;

	for (size_t i = 0; l->hits && i < l->nr; i++)
		if (l->hits[i] && (best == l->nr || l->hits[i] > l->hits[best]))
			best = i;
	return best;
}

/* "samples: 812 of 1034 in churn (78.5%), cpu-clock every 100 us", or why none. */
static void samples_head(const struct pbench_listing *l, FILE *f, const char *indent)
{
	char pct[32];

	if (!l->hits) {
		if (l->no_samples)
			fprintf(f, "%sno samples: %s\n", indent, l->no_samples);
		return;
	}
	fprintf(f, "%ssamples: %" PRIu64 " of %" PRIu64 " in %s (%s)", indent, l->in_function,
		l->total, l->symbol, pb_format_pct(pct, sizeof(pct), l->total ?
		100.0 * (double)l->in_function / (double)l->total : NAN, 1));
	if (l->period_ns)
		fprintf(f, ", cpu-clock every %g us", (double)l->period_ns / 1000);
	if (l->lost)
		fprintf(f, ", %" PRIu64 " lost", l->lost);
	if (l->cut_s > 0)
		fprintf(f, ", the run ended after %g s (the timeout)", l->cut_s);
	fprintf(f, "%s\n", l->in_function ? "" : ": none in the function (too short a run, or "
		"the function was not called)");
}

/* Line i, with its share of the function's samples in front when sampled. */
static void write_line(const struct pbench_listing *l, size_t i, size_t hot, FILE *f,
		       const char *indent)
{
	if (!l->hits || !l->in_function) {
		fprintf(f, "%s%s\n", indent, l->lines[i]);
		return;
	}
	if (l->hits[i])
		fprintf(f, "%s%6.2f%%  %s%s\n", indent,
			100.0 * (double)l->hits[i] / (double)l->in_function, l->lines[i],
			i == hot ? "   <- hottest" : "");
	else
		fprintf(f, "%s         %s\n", indent, l->lines[i]);
}

int pbench_listing_write_text(const struct pbench_listing *l, FILE *f)
{
	size_t hot;

	if (!l || !f)
		return -EINVAL;
	if (l->status != PBENCH_LISTING_OK) {
		fprintf(f, "  machine code: n/a: %s\n", l->reason);
	} else {
		hot = hottest(l);
		fprintf(f, "  machine code of %s (%s, %" PRIu64 " bytes, %zu instructions, "
			"%s):\n", l->symbol, l->file, l->size, l->nr, loops_words(l));
		samples_head(l, f, "  ");
		for (size_t i = 0; i < l->nr; i++)
			write_line(l, i, hot, f, "    ");
	}
	return pb_stream_end(f);
}

int pbench_listing_write_markdown(const struct pbench_listing *l, FILE *f)
{
	if (!l || !f)
		return -EINVAL;
	if (l->status != PBENCH_LISTING_OK) {
		fputs("Machine code: n/a: ", f);
		pb_md_text(f, l->reason);
		fputs("\n", f);
	} else {
		fputs("Machine code of ", f);
		pb_md_code(f, l->symbol);
		fprintf(f, " (%" PRIu64 " bytes, %zu instructions, %s):\n\n", l->size,
			l->nr, loops_words(l));
		if (l->hits || l->no_samples) {
			samples_head(l, f, "");
			fputs("\n", f);
		}
		fputs("```\n", f);
		for (size_t i = 0, hot = hottest(l); i < l->nr; i++)
			write_line(l, i, hot, f, "");
		fputs("```\n", f);
	}
	return pb_stream_end(f);
}

static const char *status_word(int status)
{
	static const char *const words[] = {
		[PBENCH_LISTING_OK] = "ok", [PBENCH_LISTING_NO_SYMBOL] = "no-symbol",
		[PBENCH_LISTING_NO_FILE] = "no-file", [PBENCH_LISTING_NO_OBJDUMP] = "no-objdump",
		[PBENCH_LISTING_FAILED] = "failed",
	};

	return status >= 0 && status <= PBENCH_LISTING_FAILED ? words[status] : "failed";
}

/* The samples: how many, of what event, and per line (the lines' order). */
static json_t *samples_json(const struct pbench_listing *l)
{
	json_t *per = json_array();

	if (!l->hits || !per) {
		json_decref(per);
		return l->hits ? NULL : json_null();
	}
	for (size_t i = 0; i < l->nr; i++)
		if (json_array_append_new(per, json_integer((json_int_t)l->hits[i]))) {
			json_decref(per);
			return NULL;
		}
	return json_pack("{s:s, s:o, s:I, s:I, s:o}", "event", "cpu-clock", "period_ns",
			 l->period_ns ? json_integer((json_int_t)l->period_ns) : json_null(),
			 "in_function", (json_int_t)l->in_function,
			 "total", (json_int_t)l->total, "per_line", per);
}

json_t *pb_listing_json(const struct pbench_listing *l)
{
	json_t *lines = json_array(), *o;
	int bad = 0;

	if (!lines)
		return NULL;
	for (size_t i = 0; i < l->nr; i++)
		bad |= json_array_append_new(lines, json_string(l->lines[i]));
	o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}",
		      "status", status_word(l->status),
		      "reason", l->reason ? json_string(l->reason) : json_null(),
		      "symbol", l->symbol ? json_string(l->symbol) : json_null(),
		      "file", l->file ? json_string(l->file) : json_null(),
		      "address", l->symbol ? json_integer((json_int_t)l->address) : json_null(),
		      "size_bytes", l->symbol ? json_integer((json_int_t)l->size) : json_null(),
		      "lines", lines, "backward_jumps", (json_int_t)l->backward,
		      "samples", samples_json(l),
		      "no_samples_reason", l->hits ? json_null() :
		      json_string(pbench_listing_samples_reason(l)));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
