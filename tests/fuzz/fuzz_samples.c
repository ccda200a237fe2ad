/* SPDX-License-Identifier: MIT */
/*
 * The library's sample reader (pbench_samples_add_text, samples.c), what pbench analyze reads:
 * plain numbers, pbench JSON of every mode, the library's result and comparison JSON,
 * hyperfine's and Google Benchmark's. Given the input as bytes, so that the NUL-byte error is
 * reached. It must end in a documented error with a reason, or give as many sets as it says,
 * each named and holding finite values; and leak nothing (the replay's LeakSanitizer).
 */
#include "fuzz.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "pbench.h"

static void read_as(const uint8_t *data, size_t size, const char *unit)
{
	struct pbench_samples *s;
	int n;

	fuzz_assert(pbench_samples_new(&s) == 0, "out of memory");
	n = pbench_samples_add_text(s, (const char *)data, size, "fuzz", unit);
	if (n < 0) {
		fuzz_assert(n == -EINVAL || n == -EILSEQ || n == -ENODATA || n == -ENOMEM,
			    "error %d", n);
		/* a reason: the reader's words, not the code's own (strerror's) */
		fuzz_assert(strcmp(pbench_strerror(n), strerror(-n)), "error %d without a reason",
			    n);
	} else {
		fuzz_assert(n == pbench_samples_nr(s), "%d sets said, %d held", n,
			    pbench_samples_nr(s));
		fuzz_assert(n > 0 || pbench_samples_note(s), "no set and no note");
		for (int i = 0; i < n; i++) {
			size_t k;
			const double *x = pbench_samples_values(s, i, &k);

			fuzz_assert(pbench_samples_name(s, i), "set %d has no name", i);
			fuzz_assert(k > 0 && x, "set %d is empty", i);
			for (size_t j = 0; j < k; j++)
				fuzz_assert(isfinite(x[j]), "set %d value %zu: %g", i, j, x[j]);
		}
	}
	pbench_samples_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_as(data, size, NULL);
	read_as(data, size, "ms");
	return 0;
}
