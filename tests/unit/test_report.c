/* SPDX-License-Identifier: MIT */
/* Measured numbers are printed with the digits the measurement supports, and no more. */
#include <criterion/criterion.h>
#include <math.h>

#include "internal.h"

Test(report, value_and_error)
{
	static const struct {
		double value, err;
		const char *unit, *want;
	} rows[] = {
		{ 12.3456, 0.0123, NULL, "12.346 ± 0.012" },	/* 2 significant digits of err */
		{ 12.3456, 0.15, NULL, "12.35 ± 0.15" },
		{ 1234.6, 56.7, NULL, "1235 ± 57" },
		{ 1234.6, 567, NULL, "1230 ± 570" },		/* rounded, no exponent notation */
		{ 1.2345e6, 1.5e3, "ns", "1.2345 ± 0.0015 ms" },	/* scaled by the value */
		{ 830.4, 2.25, "ns", "830.4 ± 2.2 ns" },
		{ 54.577e6, 0.026e6, "ns", "54.577 ± 0.026 ms" },
		{ 2.5e9, 1e7, "ns", "2.500 ± 0.010 s" },
		{ 42.0, 0, NULL, "42" },				/* no error: 6 significant */
		{ 3.14159265, NAN, "cycles", "3.14159 cycles" },
	};
	char buf[64];

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		pbench_format_value(buf, sizeof(buf), rows[i].value, rows[i].err, rows[i].unit);
		cr_assert_str_eq(buf, rows[i].want, "row %zu: '%s'", i, buf);
	}
}

Test(report, ns_with_digits)
{
	static const struct {
		double ns;
		int digits;
		const char *want;
	} rows[] = {
		{ 123456, 3, "123 us" },
		{ 123456, 2, "123 us" },	/* integer part kept, never 1.2e+02 */
		{ 1234567, 4, "1.235 ms" },
		{ 0.75, 2, "0.75 ns" },
		{ 999, 3, "999 ns" },
		{ 1000, 3, "1.00 us" },
		{ 3.2e9, 2, "3.2 s" },
	};
	char buf[64];

	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		pbench_format_ns(buf, sizeof(buf), rows[i].ns, rows[i].digits);
		cr_assert_str_eq(buf, rows[i].want, "row %zu: '%s'", i, buf);
	}
}
