// SPDX-License-Identifier: MIT
/*
 * xrc_pingpong - ping-pong over eXtended Reliable Connection queue pairs.
 *
 * XRC: send (initiator) QPs and receive (target) QPs in an XRC domain;
 * receives come from an XRC SRQ that each send names by its number.
 */
#include "pp_main.h"

int main(int argc, char **argv)
{
	return pp_tool_main(PP_TOOL_XRC, argc, argv);
}
