/* SPDX-License-Identifier: MIT */
/*
 * virt.steal's window (check_virt.c, pb_steal_window()): /proc/stat counts steal in whole
 * ticks (USER_HZ, 10 ms at 100), so a window whose count moved n ticks had more than n - 1 and
 * less than n + 1 of them stolen. Under 10 ticks the words give that range and the severity
 * goes by what the ticks prove: one tick in a window of 200 ms read "5.00%" and warned, where
 * the steal may have been none. White-box: the window is read live only, and these are its
 * two readings set by hand.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "check/check.h"

/* A CPU's times with total ticks and steal ticks among them. */
static struct pb_cpu_times times(unsigned long long total, unsigned long long steal)
{
	return (struct pb_cpu_times){ .user = total - steal, .steal = steal, .valid = 1 };
}

Test(check_steal, window_in_whole_ticks)
{
	static const struct {
		unsigned long long steal0, total1, steal1;
		const char *want;	/* a format: %s, the tick's length */
		double proven;
	} rows[] = {
		{ 100, 1020, 100, "0.00%% over the last 200 ms, ", 0 },
		{ 100, 1020, 101, "up to 10%% over the last 200 ms (/proc/stat counts steal in %s "
		  "ticks: 1 moved), ", 0 },
		{ 100, 1020, 103, "between 10%% and 20%% over the last 200 ms (/proc/stat counts "
		  "steal in %s ticks: 3 moved), ", 10 },
		{ 100, 1020, 112, "60.00%% over the last 200 ms, ", 55 },
	};
	long hz = sysconf(_SC_CLK_TCK);
	char tick[32];

	cr_assert_gt(hz, 0);
	pbench_format_ns(tick, sizeof(tick), 1e9 / (double)hz, 1);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pb_cpu_times a = times(1000, rows[i].steal0),
				    b = times(rows[i].total1, rows[i].steal1);
		char buf[160], want[160];
		double proven = pb_steal_window(&a, &b, 200, buf, sizeof(buf));

		snprintf(want, sizeof(want), rows[i].want, tick);
		cr_expect_str_eq(buf, want, "row %zu: '%s'", i, buf);
		cr_expect(fabs(proven - rows[i].proven) < 1e-9, "row %zu: proven %g%%, want %g%%", i,
			  proven, rows[i].proven);
	}
}

Test(check_steal, no_tick_in_the_window)
{
	struct pb_cpu_times a = times(1000, 100);
	char buf[160] = "x";

	cr_expect_eq(pb_steal_window(&a, &a, 200, buf, sizeof(buf)), -1);
	cr_expect_str_eq(buf, "");
}
