// SPDX-License-Identifier: MIT
/*
 * pp_session.c - the steps every tool takes, in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "pp_gid.h"
#include "pp_report.h"
#include "pp_show.h"
#include "pp_session.h"
#include "pp_sock.h"
#include "pp_stats.h"
#include "pp_time.h"

/* Use entry @idx of the port's GID table, for the reason @why. */
static void use_gid(struct pp_session *s, int idx)
{
	memcpy(s->gid, s->gids[idx].raw, 16);
	s->gid_type = s->gids[idx].type;
	s->gid_index = idx;
	pp_trace_step(&s->trace, "%s", s->gid_reason);
}

/* Read the port's GID table; a -g must name one of its populated entries. */
static int open_gid(struct pp_session *s)
{
	char ip[64];
	int idx = s->o->gid_index, ret;

	s->gid_index = -1;
	s->gids = pp_show_gid_table(s->ctx, s->caps.ib_port, &s->ngids);
	if (!s->gids) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(&s->err, "read the GID table of %s:%u failed: %s",
			   s->caps.devname, s->caps.ib_port, strerror(ret));
		return ret;
	}
	if (idx < 0)
		return 0;
	ret = pp_gid_check_index(s->gids, s->ngids, idx, s->caps.devname,
				 s->caps.ib_port, &s->err);
	if (ret)
		return ret;
	snprintf(s->gid_reason, sizeof(s->gid_reason),
		 "GID index %d: %s, %s (given with -g)", idx,
		 pp_gid_type_name(s->gids[idx].type),
		 pp_gid_ip(s->gids[idx].raw, ip, sizeof(ip)));
	use_gid(s, idx);
	return 0;
}

/*
 * No -g: on Ethernet, choose a GID for the address family of the TCP
 * connection to the peer (pp_gid_choose() has the rules); on InfiniBand,
 * no GRH.
 */
static int choose_gid(struct pp_session *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int family = AF_UNSPEC, idx, ret;

	if (s->o->gid_index >= 0)
		return 0;
	if (!getpeername(s->conn.fd, (struct sockaddr *)&ss, &len))
		family = pp_gid_sockaddr_family(
			ss.ss_family,
			ss.ss_family == AF_INET6 ?
				((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr :
				NULL);
	ret = pp_gid_choose(s->gids, s->ngids, s->caps.link_layer, family, &idx,
			    s->gid_reason, sizeof(s->gid_reason));
	if (ret) {
		pp_err_set(&s->err, "port %s:%u: %s", s->caps.devname,
			   s->caps.ib_port, s->gid_reason);
		return ret;
	}
	if (idx >= 0) {
		s->gid_auto = true;
		use_gid(s, idx);
	}
	return 0;
}

int pp_session_open(struct pp_session *s, struct pp_opts *o)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->lfd = -1;
	s->conn = (struct pp_conn){
		.fd = -1,
		.is_server = !o->host,
		.timeout_ms = (int)o->timeout_ms,
	};
	pp_trace_init(&s->trace, o->trace ? stderr : NULL);
	s->conn.trace = &s->trace;
	s->ctx = pp_dev_open(o->ib_devname, (uint8_t)o->ib_port, &s->err);
	if (!s->ctx)
		return errno;
	pp_trace_step(&s->trace, "open device %s",
		      ibv_get_device_name(s->ctx->device));
	ret = pp_dev_query(s->ctx, (uint8_t)o->ib_port, &s->caps, &s->err);
	if (ret)
		return ret;
	pp_trace_step(
		&s->trace,
		"query port %u: %s, LID 0x%04x, active MTU %u, max MTU %u",
		s->caps.ib_port,
		s->caps.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
								"InfiniBand",
		s->caps.lid, s->caps.active_mtu, s->caps.max_mtu);
	ret = open_gid(s);
	if (ret)
		return ret;
	if (o->transport == PP_TR_XRC && !s->caps.xrc) {
		pp_err_set(
			&s->err,
			"XRC: not supported by device %s (XRC needs a device with XRC domains, such as mlx5)",
			s->caps.devname);
		return EOPNOTSUPP;
	}
	return 0;
}

/* A step failed after the connection was up: tell the peer, once. */
static int tell_peer(struct pp_session *s, int ret)
{
	if (ret && s->conn.fd >= 0 && !s->peer_told && !s->err.remote &&
	    ret != ECONNRESET && ret != EPIPE) {
		pp_hs_send_error(&s->conn, ret, s->err.msg);
		s->peer_told = true;
	}
	return ret;
}

int pp_session_connect(struct pp_session *s)
{
	struct pp_opts *o = s->o;
	int ret;

	if (!s->conn.is_server) {
		ret = pp_sock_connect(o->host, o->port,
				      pp_deadline((int)o->timeout_ms),
				      &s->conn.fd, &s->err);
		if (ret)
			return ret;
		pp_trace_step(&s->trace, "connected to %s port %u", o->host,
			      o->port);
		ret = choose_gid(s);
		if (ret)
			return tell_peer(s, ret);
		pp_hello_build(o, &s->caps, s->gid_index, s->gid_type,
			       &s->mine);
		/*
		 * The server checks the request against both ports; what only
		 * this side knows (its own limits) is checked on the answer,
		 * so that a refusal is reported on both sides either way.
		 */
		ret = pp_hs_client_hello(&s->conn, &s->mine, &s->agreed,
					 &s->err);
		if (!ret)
			ret = pp_hello_check(&s->agreed, &s->caps, &s->err);
		return tell_peer(s, ret);
	}
	if (s->conn.fd < 0) {
		ret = pp_session_accept(s);
		if (ret)
			return ret;
	}
	pp_trace_step(&s->trace, "accepted a client from %s", s->peer_addr);
	ret = choose_gid(s);
	if (ret)
		return tell_peer(s, ret);
	pp_hello_build(o, &s->caps, s->gid_index, s->gid_type, &s->mine);
	ret = pp_hs_server_hello(&s->conn, o, &s->caps, &s->mine, &s->agreed,
				 &s->err);
	s->peer_told = ret != 0; /* the server's HELLO step tells the client */
	return ret;
}

int pp_session_setup(struct pp_session *s)
{
	const struct pp_hello *p = &s->agreed;
	struct pp_res_attr ra = {
		.transport = (enum pp_transport)p->transport,
		.num_qps = p->num_qps,
		.size = p->size,
		.rx_depth = p->rx_depth,
		.max_cqe = s->caps.max_cqe,
		.ib_port = s->caps.ib_port,
		.use_event = s->o->use_event,
		.use_grh = s->gid_index >= 0,
		.gid_index = s->gid_index,
		.xrcd_path = s->o->xrcd_path,
		.trace = &s->trace,
	};
	int ret;

	s->qcfg = (struct pp_qp_cfg){
		.transport = ra.transport,
		.ib_port = s->caps.ib_port,
		.path_mtu = p->mtu,
		.sl = p->sl,
		.use_grh = ra.use_grh,
		.sgid_index = (uint8_t)(ra.use_grh ? s->gid_index : 0),
		.trace = &s->trace,
	};
	s->res = pp_res_create(s->ctx, &ra, s->gid, s->caps.lid, &s->err);
	if (!s->res)
		return tell_peer(s, errno);
	s->remote = calloc(s->res->num_qps, sizeof(*s->remote));
	if (!s->remote) {
		pp_err_set(&s->err, "out of memory");
		return tell_peer(s, ENOMEM);
	}
	ret = pp_hs_exchange_addrs(&s->conn, s->res->local, s->remote,
				   s->res->num_qps, &s->err);
	/* The client compares GID types: the server's is in its HELLO. */
	if (!ret && !s->conn.is_server && s->gid_index >= 0 &&
	    s->agreed.gid_type != PP_GID_TYPE_NONE)
		ret = pp_gid_check_pair(s->gid_type, pp_gid_family(s->gid),
					s->agreed.gid_type,
					pp_gid_family(s->remote[0].gid),
					&s->err);
	if (!ret)
		ret = pp_run_prepare(s->res, &s->err);
	if (!ret)
		ret = pp_res_connect(s->res, &s->qcfg, s->remote, &s->err);
	if (!ret)
		ret = pp_hs_sync(&s->conn, &s->err);
	if (!ret)
		pp_trace_step(&s->trace, "both sides ready: %u QP%s at RTS",
			      s->res->num_qps, s->res->num_qps > 1 ? "s" : "");
	return tell_peer(s, ret);
}

int pp_session_run(struct pp_session *s)
{
	struct pp_run_cfg rc = {
		.is_server = s->conn.is_server,
		.iters = s->agreed.iters,
		.validate = s->agreed.flags & PP_F_VALIDATE,
		.use_event = s->o->use_event,
		.timeout_ms = (int)s->o->timeout_ms,
		.loss_timeout_ms =
			s->agreed.transport == PP_TR_UD ?
				pp_run_loss_timeout_ms((int)s->o->timeout_ms) :
				0,
	};
	struct pp_done mine = { 0 };
	struct pp_msg m = { .type = PP_MSG_DONE };
	int ret;

	ret = pp_run(s->res, &s->conn, &rc, &s->result, &s->err);
	if (ret)
		return tell_peer(s, ret);
	mine.completed = s->result.completed;
	mine.lost = s->result.lost;
	if (s->result.peer_done) {
		s->peer_done = s->result.peer_result;
		m.u.done = mine;
		ret = pp_hs_send(&s->conn, &m, &s->err);
	} else {
		ret = pp_hs_done(&s->conn, &mine, &s->peer_done, &s->err);
	}
	if (ret)
		return tell_peer(s, ret);
	/* Both sides know the outcome from DONE: no ERROR follows it. */
	if (s->conn.is_server && s->peer_done.lost) {
		pp_err_set(&s->err, "lost %llu of %llu iterations",
			   (unsigned long long)s->peer_done.lost,
			   (unsigned long long)rc.iters);
		s->err.remote = true; /* printed as "client: lost ..." */
		return ETIMEDOUT;
	}
	if (s->result.completed + s->result.lost < rc.iters) {
		pp_err_set(&s->err,
			   "the %s ended the run after %llu of %llu iterations",
			   pp_peer_name(&s->conn),
			   (unsigned long long)s->result.completed,
			   (unsigned long long)rc.iters);
		return EPROTO;
	}
	if (s->result.lost) {
		pp_err_set(
			&s->err,
			"lost %llu of %llu iterations (no reply within %d ms)",
			(unsigned long long)s->result.lost,
			(unsigned long long)rc.iters, rc.loss_timeout_ms);
		return ETIMEDOUT;
	}
	return 0;
}

void pp_session_close(struct pp_session *s)
{
	pp_session_end_client(s);
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	if (s->ctx)
		ibv_close_device(s->ctx);
	s->ctx = NULL;
	free(s->gids);
	s->gids = NULL;
}

void pp_session_print_addrs(const struct pp_session *s, FILE *f)
{
	uint32_t i;

	if (s->gid_index >= 0)
		fprintf(f, "  %s%s\n", s->gid_reason,
			s->gid_auto ? " (chosen automatically; -g to choose)" :
				      "");
	for (i = 0; i < s->res->num_qps; i++)
		pp_report_addr(f, "local", &s->res->local[i]);
	for (i = 0; i < s->res->num_qps; i++)
		pp_report_addr(f, "remote", &s->remote[i]);
}

void pp_session_print_result(const struct pp_session *s, FILE *f)
{
	const struct pp_run_result *r = &s->result;
	struct pp_stats st;

	pp_report_totals(f, s->agreed.size, r->completed, r->seconds);
	if (!pp_stats_compute(r->samples, r->nsamples, &st))
		pp_report_stats(f, &st, s->agreed.size, r->completed,
				r->seconds);
}

void pp_session_print_error(const struct pp_session *s, FILE *f)
{
	if (s->err.remote)
		fprintf(f, "%s: %s: %s\n", s->o->prog, pp_peer_name(&s->conn),
			s->err.msg);
	else
		fprintf(f, "%s: %s\n", s->o->prog, s->err.msg);
}

int pp_exit_status(int ret)
{
	if (!ret)
		return PP_EXIT_OK;
	if (ret == ECANCELED)
		return PP_EXIT_INTR;
	return ret == EILSEQ ? PP_EXIT_DATA : PP_EXIT_FAIL;
}
