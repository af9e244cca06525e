// SPDX-License-Identifier: MIT
/*
 * pp_mangen - write the OPTIONS section of a tool's man page from the option
 * table, so the man pages quote the same defaults as --help; or, given
 * "exit-status", the EXIT STATUS section from pp_exit_docs[].
 *
 * Usage: pp_mangen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong|exit-status
 */
#include <stdio.h>
#include <string.h>

#include "pp_err.h"
#include "pp_opts.h"

int main(int argc, char **argv)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "exit-status")) {
		for (i = 0; i < pp_exit_ndocs; i++)
			printf("**%d**\n:   %s\n\n", pp_exit_docs[i].status,
			       pp_exit_docs[i].text);
		return 0;
	}
	for (i = 0; argc == 2 && i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!strcmp(argv[1], pp_tool_name(tools[i]))) {
			pp_opts_write_man(stdout, tools[i]);
			return 0;
		}
	}
	fprintf(stderr,
		"usage: pp_mangen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong|exit-status\n");
	return 2;
}
