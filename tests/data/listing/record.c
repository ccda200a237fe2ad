/* SPDX-License-Identifier: MIT */
/*
 * Record the samples of a real sampled run for test_listing: the file addresses the sampler
 * (lib/src/listing/listing_sample.c) attributes to the program's own code, one hex address a line on
 * stdout, through its internal recording hook. Built and run by record.sh, which says how.
 */
#include <inttypes.h>
#include <stdio.h>

#include "pbench.h"
#include "listing/listing.h"

static void dump(const struct pbench_listing *l, const uint64_t *addrs, size_t n)
{
	(void)l;
	for (size_t i = 0; i < n; i++)
		printf("%" PRIx64 "\n", addrs[i]);
}

/* record PROGRAM FUNCTION ARGS...: sample one run of PROGRAM ARGS... */
int main(int argc, char **argv)
{
	struct pbench_listing_opts o = { .size = sizeof(o) };
	struct pbench_listing *l;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: record PROGRAM FUNCTION [ARGS...]\n");
		return 2;
	}
	o.file = argv[1];
	o.symbol = argv[2];
	err = pbench_listing_new(&l, &o);
	if (err || pbench_listing_status(l) != PBENCH_LISTING_OK) {
		fprintf(stderr, "record: %s\n", err ? pbench_strerror(err) :
			pbench_listing_reason(l));
		return 1;
	}
	pb_listing_record_hook = dump;
	argv[2] = argv[1];
	err = pbench_listing_sample(l, argv + 2, 0, 0);
	if (err || pbench_listing_samples_reason(l)) {
		fprintf(stderr, "record: %s\n", err ? pbench_strerror(err) :
			pbench_listing_samples_reason(l));
		return 1;
	}
	pbench_listing_free(l);
	return 0;
}
