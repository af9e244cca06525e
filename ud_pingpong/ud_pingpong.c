// SPDX-License-Identifier: MIT
/*
 * ud_pingpong - ping-pong over Unreliable Datagram queue pairs.
 *
 * UD: no connection; each send names the peer by an address handle, its QPN
 * and the Q_Key.  A message must fit one path MTU, and every receive has 40
 * bytes of room for the GRH before the data.  Datagrams can be lost: each
 * iteration has a deadline, and lost ones are counted and fail the run.
 */
#include "pp_main.h"

int main(int argc, char **argv)
{
	return pp_tool_main(PP_TOOL_UD, argc, argv);
}
