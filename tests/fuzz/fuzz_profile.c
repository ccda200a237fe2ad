/* SPDX-License-Identifier: MIT */
/*
 * A profile's records as a ring holds them (lib/src/profile/profile_parse.c): the kernel
 * writes them, and a recorded ring may be read back, so a record that lies about its size or
 * its chain's length must be counted as bad and never read past. The first byte picks the
 * mode (bit 0: DWARF, the user registers and stack after each chain); the rest is the ring.
 * Then everything the store hands out is read back, and the folded stacks written.
 */
#include "fuzz.h"

#include <errno.h>

#include "profile/profile.h"

static void read_back(const struct pb_profile *p, int dwarf)
{
	struct pb_profile_stats st;
	struct pb_profile_sample s;
	struct pb_profile_map m;
	char why[2048];
	FILE *null = fopen("/dev/null", "w");

	pb_profile_stats(p, &st);
	fuzz_assert(st.samples == pb_profile_nr(p), "%llu samples, %zu kept",
		    (unsigned long long)st.samples, pb_profile_nr(p));
	for (size_t i = 0; i < st.samples; i++) {
		fuzz_assert(pb_profile_sample_at(p, i, &s) == 0, "sample %zu", i);
		fuzz_assert(s.nkernel <= s.nips, "%u kernel frames of %u", s.nkernel, s.nips);
		fuzz_assert(!dwarf || s.stack_len <= PB_PROFILE_STACK, "a stack of %zu bytes",
			    s.stack_len);
		if (s.nips)
			pb_profile_map_of(p, s.pid, s.ips[s.nips - 1], s.time_ns, &m);
		pb_profile_comm(p, s.pid);
	}
	for (size_t i = 0; i < pb_profile_nr_maps(p); i++) {
		fuzz_assert(pb_profile_map_at(p, i, &m) == 0, "map %zu", i);
		fuzz_assert(m.build_id_size <= 20, "a build-id of %u bytes", m.build_id_size);
		fuzz_assert(strlen(m.path) < 65536, "a path of %zu bytes", strlen(m.path));
	}
	pb_profile_caveats(p, why, sizeof(why));
	if (null) {
		fuzz_assert(pb_profile_write_folded(p, null, PB_FOLDED_COMM, NULL, NULL) == 0,
			    "the folded stacks");
		fclose(null);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_profile_opts o = { .dwarf = size && (data[0] & 1) };
	struct pb_profile *p;
	int err;

	if (!size || pb_profile_new(&p, &o))
		return 0;
	err = pb_profile_parse_raw(p, data + 1, size - 1);
	fuzz_assert(err == 0 || err == -ENOMEM, "parse: %d", err);
	if (!err)
		read_back(p, o.dwarf);
	pb_profile_free(p);
	return 0;
}
