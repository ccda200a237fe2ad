/* SPDX-License-Identifier: MIT */
/* loop N: run loop.h's 3-instruction loop N times and exit, for `pbench stat -- /tests/loop N`.
 * Callers pass N with the same number of digits (zero-padded) so parsing costs the same. */
#include <stdlib.h>

#include "loop.h"

int main(int argc, char **argv)
{
	unsigned long long n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;

	loop3(n ? n : 1);
	return 0;
}
