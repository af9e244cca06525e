// SPDX-License-Identifier: MIT
/*
 * pp_main.c - the sequence of steps every tool runs.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pp_interop.h"
#include "pp_doc.h"
#include "pp_json.h"
#include "pp_main.h"
#include "pp_mesh.h"
#include "pp_probe_run.h"
#include "pp_serve.h"
#include "pp_session.h"
#include "pp_signal.h"
#include "pp_show.h"
#include "pp_version.h"

/* The error line as printed after "prog: ", for stderr and --json. */
static const char *error_line(const struct pp_session *s, char *buf, size_t len)
{
	if ((s->o->persistent || s->o->clients) && !s->o->host &&
	    s->peer_addr[0])
		snprintf(buf, len, "client %s: %s", s->peer_addr, s->err.msg);
	else if (s->err.remote)
		snprintf(buf, len, "%s: %s", pp_peer_name(&s->conn),
			 s->err.msg);
	else
		snprintf(buf, len, "%s", s->err.msg);
	return buf;
}

/*
 * The exit status of a run that returned @ret: a run that ran whole exits
 * PP_EXIT_FLAGGED when a threshold flagged it (pp_session_thresholds()).
 */
static int exit_of(const struct pp_session *s, int ret)
{
	struct pp_session_thresh t;

	if (ret)
		return pp_exit_status(ret);
	pp_session_thresholds(s, &t);
	return t.mtu_below || t.rtt_above ? PP_EXIT_FLAGGED : PP_EXIT_OK;
}

/*
 * The end of a run, good or bad: --samples, the error line on stderr (or
 * the lines of the thresholds that flagged a run that ran), and with
 * --json the document.  Return: @ret, or the error of --samples.
 */
static int finish(struct pp_session *s, int ret)
{
	char line[sizeof(s->err.msg) + 96];
	struct pp_session_thresh t;
	int wret;

	if (s->o->samples_path && s->nresults) {
		wret = pp_session_write_samples(s);
		if (wret && !ret) {
			s->err.remote = false;
			ret = wret;
		}
	}
	if (ret)
		fprintf(stderr, "%s: %s\n", s->o->prog,
			error_line(s, line, sizeof(line)));
	pp_session_thresholds(s, &t);
	if (!ret && t.mtu_below)
		fprintf(stderr, "%s: %s\n", s->o->prog, t.mtu_line);
	if (!ret && t.rtt_above)
		fprintf(stderr, "%s: %s\n", s->o->prog, t.rtt_line);
	if (s->o->json)
		pp_doc_write(s, stdout, exit_of(s, ret),
			     ret ? error_line(s, line, sizeof(line)) : NULL);
	fflush(stdout);
	return ret;
}

/* One run with one peer: connect, set up, run; print what there is. */
static int run_one(struct pp_session *s)
{
	FILE *text = s->o->json ? NULL : stdout;
	int ret;

	s->progress = text;
	ret = pp_session_connect(s);
	if (!ret)
		ret = pp_session_setup(s);
	if (!ret && s->query_only) {
		/* a --probe's query: no run, no document */
		fprintf(text ? text : stderr,
			"client %s: sent the GID table (a --probe query)\n",
			s->peer_addr);
		fflush(text ? text : stderr);
		return 0;
	}
	if (!ret) {
		if (text) {
			pp_session_print_addrs(s, text);
			fflush(text); /* a log shows the run has started */
		}
		ret = pp_session_run(s);
	}
	if (text) {
		struct pp_session_thresh t;

		pp_session_print_result(s, text);
		pp_session_print_counters(s, text);
		pp_session_thresholds(s, &t);
		pp_session_print_thresholds(&t, text);
	}
	return finish(s, ret);
}

/* --show-gids, as text or (--json) as one document. */
static int show_gids(const struct pp_opts *o, struct pp_err *err)
{
	unsigned int port = (o->set & PP_OPT_BIT(PP_OPT_IB_PORT)) ? o->ib_port :
								    0;
	struct pp_json j;
	int ret, wret;

	if (!o->json) {
		ret = pp_show_gids(stdout, o->ib_devname, port, err);
	} else {
		pp_json_init(&j, stdout, false);
		ret = pp_show_gids_json(&j, o->ib_devname, port, err);
		wret = pp_json_finish(&j);
		if (!ret && wret) {
			ret = wret;
			pp_err_set(err, "writing JSON failed: %s",
				   strerror(ret));
		}
	}
	if (ret)
		fprintf(stderr, "%s: %s\n", o->prog, err->msg);
	return ret ? PP_EXIT_FAIL : PP_EXIT_OK;
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
	if (o.set & PP_OPT_BIT(PP_OPT_VERSION)) {
		pp_version_write(stdout, tool);
		return PP_EXIT_OK;
	}
	if (o.show_gids)
		return show_gids(&o, &s.err);

	if (o.samples_path) {
		/* find out now, not after the run, that the file cannot be */
		bool existed = !access(o.samples_path, F_OK);
		FILE *f = fopen(o.samples_path, "a");

		if (f && !existed)
			unlink(o.samples_path); /* a run that fails early: none */
		if (!f) {
			fprintf(stderr,
				"%s: --samples: cannot write %s: %s (give a writable path)\n",
				o.prog, o.samples_path, strerror(errno));
			return PP_EXIT_FAIL;
		}
		fclose(f);
	}
	ret = pp_signal_install();
	if (ret) {
		fprintf(stderr, "%s: cannot catch SIGINT: %s\n", o.prog,
			strerror(ret));
		return PP_EXIT_FAIL;
	}
	if (o.probe)
		return pp_probe_main(&o);
	if (o.mesh)
		return pp_mesh_main(&o);
	if (o.rdma_core) {
		ret = pp_interop_check_opts(&o, &s.err);
		if (ret) {
			fprintf(stderr, "%s: %s\n", o.prog, s.err.msg);
			return PP_EXIT_USAGE;
		}
	}
	ret = pp_session_open(
		&s, &o, o.rdma_core ? &pp_exchange_stock : &pp_exchange_ours);
	s.json_interval = pp_doc_interval;
	if (ret)
		ret = pp_exit_status(finish(&s, ret));
	else if ((o.persistent || o.clients) && !o.host)
		ret = pp_exit_status(pp_serve(&s, run_one, finish));
	else
		ret = exit_of(&s, run_one(&s));
	pp_session_close(&s);
	return ret;
}
