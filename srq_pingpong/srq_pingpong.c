// SPDX-License-Identifier: MIT
/*
 * srq_pingpong - ping-pong over N RC queue pairs that share one receive
 * queue.
 *
 * SRQ: the receives of all N QPs come from one shared receive queue, which is
 * refilled as completions arrive; iteration i uses QP i mod N on both sides.
 */
#include "pp_main.h"

int main(int argc, char **argv)
{
	return pp_tool_main(PP_TOOL_SRQ, argc, argv);
}
