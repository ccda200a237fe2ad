/* SPDX-License-Identifier: MIT */
/* Internals of a function's listing (listing.c, listing_elf.c, listing_sample.c). Never
 * installed. */
#ifndef PBENCH_LISTING_H
#define PBENCH_LISTING_H

#include <jansson.h>

#include "pbench.h"

struct pbench_listing {
	int status;			/* enum pbench_listing_status */
	char *reason;			/* NULL when status is OK */
	char *file, *symbol;
	uint64_t address, size;		/* in the file */
	char **lines;
	uint64_t *addrs;		/* each line's address in the file */
	size_t nr;
	size_t backward;		/* jumps back inside the function */
	/* Samples of the instruction pointer (pbench_listing_sample, _add_samples): */
	uint64_t *hits;			/* per line; NULL until sampled */
	uint64_t in_function, total;	/* samples in the function, of all taken */
	uint64_t period_ns;		/* cpu-clock's sampling period; 0: given by the caller */
	uint64_t lost;			/* sample records the kernel or pbench could not keep */
	double cut_s;			/* > 0: the sampled run was ended after this long */
	char *no_samples;		/* why there are none (NULL: the default reason) */
	const volatile int *stop;	/* opts.stop: ends a sampled run */
};

/* A function symbol found in an ELF file. */
struct pb_elf_sym {
	uint64_t value, size;		/* its address in the file, its size in bytes */
	char name[256];
	char like[256];			/* by name, not found: name.constprop.0 and the like */
	char near[256];			/* by name, not found: the function name nearest to it
					 * (pbench_suggest()), or "" */
	int type;			/* the file's e_type (ET_EXEC, ET_DYN) */
	int has_symtab;			/* a .symtab, not only the .dynsym */
};

/* The function named name (addr when name is NULL: the function containing that file
 * address) in the ELF file at path: 0; -ESRCH not in its symbol tables, -ENODATA no symbol
 * table at all (stripped of .dynsym too), -ENOEXEC not an ELF file of this machine's class,
 * -errno opening it. */
int pb_elf_find(const char *path, const char *name, uint64_t addr, struct pb_elf_sym *out);

/* Recording hook (tests/data/listing/record.c, linked with the static library): when set,
 * given the file addresses of a sampled run's samples in the listing's file, before they are
 * counted. Not exported: the recorded data of the tests come from the real sampler. */
extern void (*pb_listing_record_hook)(const struct pbench_listing *l, const uint64_t *addrs,
				      size_t n);
/* Set why there are no samples (-ENOMEM). */
int pb_listing_no_samples(struct pbench_listing *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* listing_sample.c: samples given as file offsets in the listing's file (a profile's: offs[i]
 * counts[i] times), others more outside it: marked on the lines as a sampled run's, period_ns
 * the sampling's (0: not cpu-clock's); n 0: no_samples says why there are none. 0, -ENOMEM. */
int pb_listing_add_offsets(struct pbench_listing *l, const uint64_t *offs,
			   const uint64_t *counts, size_t n, uint64_t others, uint64_t period_ns,
			   const char *no_samples);

/* The listing as a JSON object (schema/common.schema.json#/$defs/listing); NULL: no memory. */
json_t *pb_listing_json(const struct pbench_listing *l);

#endif
