// SPDX-License-Identifier: MIT
/*
 * pp_session.c - the steps every tool takes, in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "pp_report.h"
#include "pp_session.h"
#include "pp_sock.h"
#include "pp_stats.h"
#include "pp_time.h"

static bool gid_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, 16);
}

static bool gid_v4_mapped(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, 12);
}

/*
 * No -g on an Ethernet port: a GRH is mandatory, so pick a GID.  Prefer a
 * RoCE v2 GID with an IPv4-mapped address, then any RoCE v2 GID that is not
 * link-local, then any RoCE v2 GID, then the first populated one.
 */
static int choose_gid(struct pp_session *s)
{
	int best = -1, best_rank = 0, i;
	uint8_t gid[16], type;

	for (i = 0; i < s->caps.gid_tbl_len; i++) {
		int rank;

		if (pp_dev_gid(s->ctx, s->caps.ib_port, i, gid, &type) ||
		    gid_zero(gid))
			continue;
		if (type != PP_GID_TYPE_ROCE_V2)
			rank = 1;
		else if (gid_v4_mapped(gid))
			rank = 4;
		else if (gid[0] != 0xfe || (gid[1] & 0xc0) != 0x80)
			rank = 3;
		else
			rank = 2;
		if (rank > best_rank) {
			best = i;
			best_rank = rank;
		}
	}
	if (best < 0) {
		pp_err_set(
			&s->err,
			"port %s:%u is Ethernet (RoCE) but has no GID: give the interface an IP address, or choose a GID with -g",
			s->caps.devname, s->caps.ib_port);
		return ENODATA;
	}
	s->gid_auto = true;
	return best;
}

static int open_gid(struct pp_session *s)
{
	int idx = s->o->gid_index, ret;

	if (idx < 0 && s->caps.link_layer != IBV_LINK_LAYER_ETHERNET) {
		s->gid_index = -1;
		return 0;
	}
	if (idx < 0) {
		idx = choose_gid(s);
		if (idx < 0)
			return ENODATA;
	}
	ret = pp_dev_gid(s->ctx, s->caps.ib_port, idx, s->gid, &s->gid_type);
	if (!ret && gid_zero(s->gid))
		ret = ENODATA;
	if (ret == EINVAL)
		pp_err_set(
			&s->err,
			"GID index %d is out of range: port %s:%u has %d entries (see ibv_devinfo -v)",
			idx, s->caps.devname, s->caps.ib_port,
			s->caps.gid_tbl_len);
	else if (ret == ENODATA)
		pp_err_set(
			&s->err,
			"GID index %d of port %s:%u is empty (see ibv_devinfo -v for the populated ones)",
			idx, s->caps.devname, s->caps.ib_port);
	else if (ret)
		pp_err_set(&s->err, "query GID %d of %s:%u failed: %s", idx,
			   s->caps.devname, s->caps.ib_port, strerror(ret));
	s->gid_index = idx;
	return ret;
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
	s->ctx = pp_dev_open(o->ib_devname, (uint8_t)o->ib_port, &s->err);
	if (!s->ctx)
		return errno;
	ret = pp_dev_query(s->ctx, (uint8_t)o->ib_port, &s->caps, &s->err);
	if (ret)
		return ret;
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
	pp_hello_build(o, &s->caps, s->gid_index, s->gid_type, &s->mine);
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
	ret = pp_sock_listen(o->bind_addr, o->port, &s->lfd, &s->err);
	if (ret)
		return ret;
	ret = pp_sock_accept(s->lfd, INT64_MAX, &s->conn.fd, s->peer_addr,
			     sizeof(s->peer_addr));
	if (ret) {
		pp_err_set(&s->err, "accept on TCP port %u failed: %s", o->port,
			   strerror(ret));
		return ret;
	}
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
	};
	int ret;

	s->qcfg = (struct pp_qp_cfg){
		.transport = ra.transport,
		.ib_port = s->caps.ib_port,
		.path_mtu = p->mtu,
		.sl = p->sl,
		.use_grh = ra.use_grh,
		.sgid_index = (uint8_t)(ra.use_grh ? s->gid_index : 0),
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
	if (!ret)
		ret = pp_run_prepare(s->res, &s->err);
	if (!ret)
		ret = pp_res_connect(s->res, &s->qcfg, s->remote, &s->err);
	if (!ret)
		ret = pp_hs_sync(&s->conn, &s->err);
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
	pp_run_free(&s->result);
	free(s->remote);
	s->remote = NULL;
	pp_res_destroy(s->res);
	s->res = NULL;
	if (s->conn.fd >= 0)
		close(s->conn.fd);
	if (s->lfd >= 0)
		close(s->lfd);
	s->conn.fd = s->lfd = -1;
	if (s->ctx)
		ibv_close_device(s->ctx);
	s->ctx = NULL;
}

void pp_session_print_addrs(const struct pp_session *s, FILE *f)
{
	char gid[64];
	uint32_t i;

	if (s->gid_index >= 0)
		fprintf(f, "  GID index %d: %s%s\n", s->gid_index,
			pp_format_gid(s->gid, gid, sizeof(gid)),
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
	return ret == EILSEQ ? PP_EXIT_DATA : PP_EXIT_FAIL;
}
