/* SPDX-License-Identifier: MIT */
/* Checks: memory, timer, counters, virtualization. (being written) */
#include "env.h"

void pb_check_memory(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

void pb_check_timer(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

void pb_check_counters(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

void pb_check_virtualization(struct pb_env_ctx *ctx)
{
	(void)ctx;
}

