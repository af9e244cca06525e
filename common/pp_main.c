// SPDX-License-Identifier: MIT
/*
 * pp_main.c - the sequence of steps every tool runs.
 */
#include <libgen.h>
#include <stdio.h>

#include "pp_main.h"
#include "pp_session.h"
#include "pp_show.h"

int pp_tool_main(enum pp_tool tool, int argc, char **argv)
{
	struct pp_session s = { 0 };
	struct pp_opts o;
	int ret;

	pp_opts_init(&o, tool, basename(argv[0]));
	ret = pp_opts_parse(&o, argc, argv, &s.err);
	if (ret) {
		fprintf(stderr, "%s: %s\n", o.prog, s.err.msg);
		return PP_EXIT_USAGE;
	}
	if (o.help) {
		pp_opts_usage(stdout, tool, o.prog);
		return PP_EXIT_OK;
	}
	if (o.show_gids) {
		ret = pp_show_gids(
			stdout, o.ib_devname,
			(o.set & (1u << PP_OPT_IB_PORT)) ? o.ib_port : 0,
			&s.err);
		if (ret)
			fprintf(stderr, "%s: %s\n", o.prog, s.err.msg);
		return ret ? PP_EXIT_FAIL : PP_EXIT_OK;
	}

	ret = pp_session_open(&s, &o);
	if (!ret)
		ret = pp_session_connect(&s);
	if (!ret)
		ret = pp_session_setup(&s);
	if (!ret) {
		pp_session_print_addrs(&s, stdout);
		fflush(stdout); /* a log shows the run has started */
		ret = pp_session_run(&s);
	}
	if (s.result.completed)
		pp_session_print_result(&s, stdout);
	if (ret)
		pp_session_print_error(&s, stderr);
	pp_session_close(&s);
	return pp_exit_status(ret);
}
