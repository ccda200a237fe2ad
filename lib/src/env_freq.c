/* SPDX-License-Identifier: MIT */
/* Checks: frequency, topology. (being written) */
#include "env.h"

void pb_check_frequency(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

void pb_check_topology(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

