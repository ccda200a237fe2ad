/* SPDX-License-Identifier: MIT */
/* Checks: isolation, interrupts, scheduler. (being written) */
#include "env.h"

void pb_check_isolation(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

void pb_check_interrupts(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

void pb_check_scheduler(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

