// SPDX-License-Identifier: MIT
/*
 * rc_pingpong - ping-pong over a Reliable Connection queue pair (or, with
 * --uc, an Unreliable Connection one).
 *
 * RC: one QP each side, connected to the other; the hardware acknowledges
 * and retransmits, so a message is delivered once or the QP fails.  UC: the
 * same connection set-up without acknowledgements (RTR and RTS carry no
 * retry or atomic attributes; see common/verbs/pp_qp.c).
 *
 * Run it with no host to be the server; give the server's host to be the
 * client.  The client's options decide the run; the server adopts them.
 */
#include "pp_main.h"

int main(int argc, char **argv)
{
	return pp_tool_main(PP_TOOL_RC, argc, argv);
}
