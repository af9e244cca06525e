// SPDX-License-Identifier: MIT
/*
 * pp_mangen - write the OPTIONS section of a tool's man page from the option
 * table, so the man pages quote the same defaults as --help.
 *
 * Usage: pp_mangen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong
 */
#include <stdio.h>
#include <string.h>

#include "pp_opts.h"

int main(int argc, char **argv)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	size_t i;

	for (i = 0; argc == 2 && i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!strcmp(argv[1], pp_tool_name(tools[i]))) {
			pp_opts_write_man(stdout, tools[i]);
			return 0;
		}
	}
	fprintf(stderr,
		"usage: pp_mangen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong\n");
	return 2;
}
