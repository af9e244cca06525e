// SPDX-License-Identifier: MIT
/*
 * pp_main.c - the sequence of steps every tool runs.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "pp_interop.h"
#include "pp_main.h"
#include "pp_session.h"
#include "pp_signal.h"
#include "pp_show.h"

/* A persistent server names the client a line is about. */
static void print_error(const struct pp_session *s)
{
	if (s->o->persistent && s->peer_addr[0])
		fprintf(stderr, "%s: client %s: %s\n", s->o->prog, s->peer_addr,
			s->err.msg);
	else
		pp_session_print_error(s, stderr);
}

/* One run with one peer: connect, set up, run; print what there is. */
static int run_one(struct pp_session *s)
{
	int ret;

	ret = pp_session_connect(s);
	if (!ret)
		ret = pp_session_setup(s);
	if (!ret) {
		pp_session_print_addrs(s, stdout);
		fflush(stdout); /* a log shows the run has started */
		ret = pp_session_run(s);
	}
	if (s->result.completed)
		pp_session_print_result(s, stdout);
	fflush(stdout);
	if (ret)
		print_error(s);
	return ret;
}

/*
 * --persistent: one client after another, each with fresh resources, until
 * SIGINT or SIGTERM.  A client that fails costs one line on stderr and the
 * server goes on.  Return: 0 when stopped between clients; ECANCELED when
 * the signal stopped a client's run; the errno of listen or accept.
 */
static int serve(struct pp_session *s)
{
	unsigned long served = 0, failed = 0;
	int ret;

	for (;;) {
		ret = pp_session_accept(s);
		if (ret == ECANCELED) {
			ret = 0; /* between clients: a clean stop */
			break;
		}
		if (ret) {
			print_error(s);
			return ret;
		}
		ret = run_one(s);
		served++;
		failed += ret != 0;
		pp_session_end_client(s);
		if (ret == ECANCELED)
			break;
	}
	printf("stopped by %s after %lu clients (%lu failed)\n",
	       pp_signal_name(pp_signal_caught()), served, failed);
	return ret;
}

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

	ret = pp_signal_install();
	if (ret) {
		fprintf(stderr, "%s: cannot catch SIGINT: %s\n", o.prog,
			strerror(ret));
		return PP_EXIT_FAIL;
	}
	if (o.rdma_core)
		return pp_interop_main(&o, stdout, stderr);
	ret = pp_session_open(&s, &o);
	if (ret)
		pp_session_print_error(&s, stderr);
	else if (o.persistent && !o.host)
		ret = serve(&s);
	else
		ret = run_one(&s);
	pp_session_close(&s);
	return pp_exit_status(ret);
}
