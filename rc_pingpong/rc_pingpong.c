// SPDX-License-Identifier: MIT
/*
 * rc_pingpong - ping-pong over a Reliable Connection (or, with --uc, an
 * Unreliable Connection) queue pair.
 *
 * Run it with no host to be the server; give the server's host to be the
 * client.  The client's options decide the run; the server adopts them.
 */
#include <libgen.h>
#include <stdio.h>

#include "pp_session.h"

int main(int argc, char **argv)
{
	struct pp_session s = { 0 };
	struct pp_opts o;
	int ret;

	pp_opts_init(&o, PP_TOOL_RC, basename(argv[0]));
	ret = pp_opts_parse(&o, argc, argv, &s.err);
	if (ret) {
		fprintf(stderr, "%s: %s\n", o.prog, s.err.msg);
		return PP_EXIT_USAGE;
	}
	if (o.help) {
		pp_opts_usage(stdout, PP_TOOL_RC, o.prog);
		return PP_EXIT_OK;
	}

	ret = pp_session_open(&s, &o);
	if (!ret)
		ret = pp_session_connect(&s);
	if (!ret)
		ret = pp_session_setup(&s);
	if (!ret) {
		pp_session_print_addrs(&s, stdout);
		ret = pp_session_run(&s);
	}
	if (s.result.completed)
		pp_session_print_result(&s, stdout);
	if (ret)
		pp_session_print_error(&s, stderr);
	pp_session_close(&s);
	return pp_exit_status(ret);
}
