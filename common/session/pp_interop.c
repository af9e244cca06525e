// SPDX-License-Identifier: MIT
/*
 * pp_interop.c - --rdma-core: the stock tools' exchange and run order.
 * docs/interop.md is the reference for every step here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "pp_interop.h"
#include "pp_rdmacore.h"
#include "pp_run_stock.h"
#include "pp_session.h"
#include "pp_sock.h"
#include "pp_time.h"

const char *pp_interop_stock_name(enum pp_transport t)
{
	const struct pp_transport_desc *d = pp_transport_get(t);

	return d ? d->stock_tool : "?";
}

/* How the stock tool of @t exchanges addresses. */
static enum pp_stock_xchg xchg(enum pp_transport t)
{
	return pp_transport_of(t)->stock_xchg;
}

int pp_interop_check_opts(const struct pp_opts *o, struct pp_err *err)
{
	if (o->persistent) {
		pp_err_set(
			err,
			"--persistent does not apply to --rdma-core: a stock tool runs once");
		return EINVAL;
	}
	/* the stock tool refuses num_qp >= MAX_QP, its record count */
	if (xchg(o->transport) == PP_STOCK_SRQ_RECS &&
	    o->num_qps >= PP_RDMACORE_SRQ_RECS) {
		pp_err_set(
			err,
			"-q %u: ibv_srq_pingpong takes fewer than %u QPs (use -q %u or less)",
			o->num_qps, PP_RDMACORE_SRQ_RECS,
			PP_RDMACORE_SRQ_RECS - 1);
		return EINVAL;
	}
	if (xchg(o->transport) == PP_STOCK_XRC_REC && o->num_qps != 1) {
		pp_err_set(
			err,
			"-q %u: ibv_xsrq_pingpong has one QP pair per client (use -q 1)",
			o->num_qps);
		return EINVAL;
	}
	if (xchg(o->transport) == PP_STOCK_XRC_REC && o->validate) {
		pp_err_set(
			err,
			"-c: ibv_xsrq_pingpong does not validate data (its -c is the number of clients: our --clients)");
		return EINVAL;
	}
	return 0;
}

uint32_t pp_interop_path_mtu(const struct pp_opts *o)
{
	if (pp_transport_of(o->transport)->datagram)
		return 0;
	return o->mtu ? o->mtu : PP_INTEROP_MTU;
}

/* Append to @buf; remember in @*ret that it did not fit. */
static void append(char *buf, size_t len, size_t *used, int *ret,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void append(char *buf, size_t len, size_t *used, int *ret,
		   const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*ret)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *used) {
		*ret = ENOSPC;
		return;
	}
	*used += (size_t)w;
}

int pp_interop_peer_cmd(const struct pp_opts *o, int gid_index, char *buf,
			size_t len)
{
	uint32_t mtu = pp_interop_path_mtu(o);
	size_t used = 0;
	int ret = 0;

	if (!len)
		return ENOSPC;
	buf[0] = '\0';
	append(buf, len, &used, &ret, "%s",
	       pp_interop_stock_name(o->transport));
	if (o->port != PP_RDMACORE_PORT)
		append(buf, len, &used, &ret, " -p %u", o->port);
	append(buf, len, &used, &ret, " -s %llu -n %llu",
	       (unsigned long long)o->size, (unsigned long long)o->iters);
	if (mtu)
		append(buf, len, &used, &ret, " -m %u", mtu);
	if (xchg(o->transport) == PP_STOCK_SRQ_RECS)
		append(buf, len, &used, &ret, " -q %u", o->num_qps);
	if (gid_index >= 0)
		append(buf, len, &used, &ret, " -g %d", gid_index);
	if (o->validate)
		append(buf, len, &used, &ret, " -c");
	if (!o->host)
		append(buf, len, &used, &ret, " <this-host>");
	return ret;
}

static const char *peer_role(const struct pp_interop_link *l)
{
	return l->is_server ? "client" : "server";
}

/* One line for a failed read or write of @what. */
static int io_error(const struct pp_interop_link *l, int ret, bool reading,
		    const char *what, struct pp_err *err)
{
	const char *tool = pp_interop_stock_name(l->transport);

	if (ret == ETIMEDOUT)
		pp_err_set(
			err,
			"%s %s the stock %s timed out after %d ms (is the peer %s, started with the options above? raise -T/--timeout)",
			reading ? "reading" : "writing", what,
			reading ? "from" : "to", l->timeout_ms, tool);
	else if (ret == ECONNRESET && reading)
		pp_err_set(
			err,
			"the stock %s closed the connection before its whole %s arrived (did %s fail? see its output)",
			peer_role(l), what, tool);
	else
		pp_err_set(err, "%s %s %s the stock %s failed: %s",
			   reading ? "reading" : "writing", what,
			   reading ? "from" : "to", peer_role(l),
			   strerror(ret));
	return ret;
}

static int write_rec(const struct pp_interop_link *l, const char *buf,
		     size_t len, const char *what, struct pp_err *err)
{
	int ret;

	ret = pp_sock_write_all(l->fd, buf, len, pp_deadline(l->timeout_ms));
	return ret ? io_error(l, ret, false, what, err) : 0;
}

static int read_rec(const struct pp_interop_link *l, char *buf, size_t len,
		    const char *what, struct pp_err *err)
{
	int ret;

	ret = pp_sock_read_all(l->fd, buf, len, pp_deadline(l->timeout_ms));
	return ret ? io_error(l, ret, true, what, err) : 0;
}

static int malformed(const struct pp_interop_link *l, int ret, const char *what,
		     const char *why, struct pp_err *err)
{
	pp_err_set(err, "malformed %s from the stock %s: %s (is the peer %s?)",
		   what, peer_role(l), why,
		   pp_interop_stock_name(l->transport));
	return ret;
}

int pp_interop_send_addrs(const struct pp_interop_link *l,
			  const struct pp_addr *mine, uint32_t n,
			  struct pp_err *err)
{
	static const struct pp_addr zero;
	char rec[PP_RDMACORE_XRC_LEN];
	uint32_t i, count = 1;
	int ret;

	if (xchg(l->transport) == PP_STOCK_XRC_REC) {
		ret = pp_rdmacore_encode_xrc(mine, rec, sizeof(rec));
		if (ret)
			goto out_encode;
		return write_rec(l, rec, PP_RDMACORE_XRC_LEN, "XRC record",
				 err);
	}
	if (xchg(l->transport) == PP_STOCK_SRQ_RECS) {
		if (!n || n > PP_RDMACORE_SRQ_RECS) {
			pp_err_set(err, "%u QPs do not fit %u records", n,
				   PP_RDMACORE_SRQ_RECS);
			return EINVAL;
		}
		count = PP_RDMACORE_SRQ_RECS;
	}
	/* srq: one write() per record, as the stock tool writes them */
	for (i = 0; i < count; i++) {
		ret = pp_rdmacore_encode(i < n ? &mine[i] : &zero, rec,
					 sizeof(rec));
		if (ret)
			goto out_encode;
		ret = write_rec(l, rec, PP_RDMACORE_REC_LEN, "address record",
				err);
		if (ret)
			return ret;
	}
	return 0;

out_encode:
	pp_err_set(err, "this side's address does not fit a stock record");
	return ret;
}

int pp_interop_recv_addrs(const struct pp_interop_link *l,
			  struct pp_addr *theirs, uint32_t n,
			  struct pp_err *err)
{
	char rec[PP_RDMACORE_XRC_LEN];
	struct pp_addr *all;
	uint32_t count, bad;
	const char *why;
	char *buf;
	int ret;

	if (xchg(l->transport) == PP_STOCK_XRC_REC) {
		ret = read_rec(l, rec, PP_RDMACORE_XRC_LEN, "XRC record", err);
		if (ret)
			return ret;
		ret = pp_rdmacore_decode_xrc(rec, PP_RDMACORE_XRC_LEN, theirs,
					     &why);
		return ret ? malformed(l, ret, "XRC record", why, err) : 0;
	}
	if (xchg(l->transport) != PP_STOCK_SRQ_RECS) {
		ret = read_rec(l, rec, PP_RDMACORE_REC_LEN, "address record",
			       err);
		if (ret)
			return ret;
		ret = pp_rdmacore_decode(rec, PP_RDMACORE_REC_LEN, theirs,
					 &why);
		return ret ? malformed(l, ret, "address record", why, err) : 0;
	}
	buf = malloc(PP_RDMACORE_SRQ_LEN);
	all = calloc(PP_RDMACORE_SRQ_RECS, sizeof(*all));
	if (!buf || !all) {
		pp_err_set(err, "out of memory");
		ret = ENOMEM;
		goto out_free;
	}
	ret = read_rec(l, buf, PP_RDMACORE_SRQ_LEN, "256 address records", err);
	if (ret)
		goto out_free;
	ret = pp_rdmacore_decode_srq(buf, PP_RDMACORE_SRQ_LEN, all, &count,
				     &bad, &why);
	if (ret) {
		pp_err_set(
			err,
			"malformed address record %u from the stock %s: %s (is the peer ibv_srq_pingpong?)",
			bad, peer_role(l), why);
		goto out_free;
	}
	if (count != n) {
		pp_err_set(
			err,
			"the stock %s has %u QPs, this side %u: give both the same -q",
			peer_role(l), count, n);
		ret = EPROTO;
		goto out_free;
	}
	memcpy(theirs, all, n * sizeof(*all));
out_free:
	free(all);
	free(buf);
	return ret;
}

int pp_interop_send_done(const struct pp_interop_link *l, struct pp_err *err)
{
	char tok[PP_RDMACORE_DONE_LEN];

	pp_rdmacore_put_done(tok);
	return write_rec(l, tok, sizeof(tok), "\"done\"", err);
}

int pp_interop_recv_done(const struct pp_interop_link *l, struct pp_err *err)
{
	char tok[PP_RDMACORE_DONE_LEN];
	const char *why;
	int ret;

	ret = read_rec(l, tok, sizeof(tok), "\"done\"", err);
	if (ret)
		return ret;
	ret = pp_rdmacore_check_done(tok, sizeof(tok), &why);
	return ret ? malformed(l, ret, "token", why, err) : 0;
}

int pp_interop_end(const struct pp_interop_link *l, struct pp_err *err)
{
	char mine[PP_RDMACORE_END_LEN], tok[PP_RDMACORE_END_LEN];
	const char *why;
	int ret;

	pp_rdmacore_put_end(mine);
	if (!l->is_server) {
		ret = write_rec(l, mine, sizeof(mine), "\"END\"", err);
		if (ret)
			return ret;
	}
	ret = read_rec(l, tok, sizeof(tok), "\"END\"", err);
	if (ret)
		return ret;
	ret = pp_rdmacore_check_end(tok, sizeof(tok), &why);
	if (ret)
		return malformed(l, ret, "token", why, err);
	if (l->is_server)
		ret = write_rec(l, mine, sizeof(mine), "\"END\"", err);
	return ret;
}

/* --- the exchange of a session (pp_session.h) ------------------------ */

/* The link to the stock peer over the session's connection @fd. */
static struct pp_interop_link link_of(const struct pp_session *s, int fd)
{
	return (struct pp_interop_link){
		.fd = fd,
		.is_server = s->conn.is_server,
		.transport = s->o->transport,
		.timeout_ms = (int)s->o->timeout_ms,
	};
}

/*
 * Nothing is negotiated: this side's options are the run's, with the stock
 * path MTU.  Print the command line the stock peer must run.
 */
static int agree(struct pp_session *s)
{
	FILE *f = s->progress ? s->progress : stderr;
	char cmd[256];
	int ret;

	pp_hello_build(s->o, &s->caps, s->gid_index, s->gid_type, &s->mine);
	s->mine.mtu = pp_interop_path_mtu(s->o);
	s->agreed = s->mine;
	ret = pp_hello_check(&s->mine, &s->caps, &s->err);
	if (ret)
		return ret;
	pp_interop_peer_cmd(s->o, s->gid_index, cmd, sizeof(cmd));
	fprintf(f, "rdma-core mode: the peer must run: %s\n", cmd);
	fflush(f);
	return 0;
}

/* RoCE needs a GRH, and a stock peer uses one only when given -g. */
static int check_peer_gid(struct pp_session *s)
{
	if (s->caps.link_layer != IBV_LINK_LAYER_ETHERNET ||
	    pp_rdmacore_wants_grh(s->remote[0].gid))
		return 0;
	pp_err_set(
		&s->err,
		"the stock %s sent no GID, and RoCE needs one: start it with -g %d",
		s->conn.is_server ? "client" : "server", s->gid_index);
	return EPROTO;
}

static int connect_qps_checked(struct pp_session *s)
{
	int ret = check_peer_gid(s);

	return ret ? ret : pp_session_connect_qps(s);
}

static int tcp_connect(struct pp_session *s)
{
	struct pp_opts *o = s->o;

	if (!s->conn.is_server)
		return pp_sock_connect(o->host, o->port,
				       pp_deadline((int)o->timeout_ms),
				       &s->conn.fd, &s->err);
	return pp_session_accept(s);
}

/*
 * The stock order: receives posted first; the client speaks first; the
 * server is at RTS before it answers; the client moves its QPs after "done".
 */
static int connect_qps(struct pp_session *s)
{
	struct pp_interop_link l;
	bool xrc = xchg(s->o->transport) == PP_STOCK_XRC_REC;
	int ret;

	ret = pp_run_prepare(s->res, &s->err);
	if (!ret)
		ret = tcp_connect(s);
	if (ret)
		return ret;
	l = link_of(s, s->conn.fd);
	if (s->conn.is_server) {
		ret = pp_interop_recv_addrs(&l, s->remote, s->res->num_qps,
					    &s->err);
		if (!ret)
			ret = connect_qps_checked(s);
		if (!ret)
			ret = pp_interop_send_addrs(&l, s->res->local,
						    s->res->num_qps, &s->err);
		if (!ret && !xrc)
			ret = pp_interop_recv_done(&l, &s->err);
	} else {
		ret = pp_interop_send_addrs(&l, s->res->local, s->res->num_qps,
					    &s->err);
		if (!ret)
			ret = pp_interop_recv_addrs(&l, s->remote,
						    s->res->num_qps, &s->err);
		if (!ret && !xrc)
			ret = pp_interop_send_done(&l, &s->err);
		if (!ret)
			ret = connect_qps_checked(s);
	}
	if (ret)
		return ret;
	/*
	 * The stock peer says nothing during the run: the run does not watch
	 * the connection.  rc, uc, ud, srq: nothing more is said on it; xsrq:
	 * "END" after the run.
	 */
	if (xrc)
		s->stock_fd = s->conn.fd;
	else
		close(s->conn.fd);
	s->conn.fd = -1;
	s->data_phase = true;
	return 0;
}

static void run_cfg(const struct pp_session *s, struct pp_run_cfg *rc)
{
	/* xsrq: the server sends first, the client answers */
	if (xchg(s->o->transport) == PP_STOCK_XRC_REC)
		rc->is_server = !s->conn.is_server;
	rc->loss_timeout_ms = 0; /* the stock loop counts no losses */
	rc->loop = &pp_run_loop_stock;
}

/* A failure in the data loop: the stock peer will not notice it. */
static void run_failed(struct pp_session *s)
{
	char msg[sizeof(s->err.msg)];

	if (!s->data_phase)
		return;
	snprintf(msg, sizeof(msg), "%s", s->err.msg);
	pp_err_set(&s->err, "%s (%s does not time out: stop it by hand)", msg,
		   pp_interop_stock_name(s->o->transport));
}

static int size_done(struct pp_session *s, const struct pp_run_cfg *rc,
		     struct pp_run_result *r)
{
	struct pp_interop_link l = link_of(s, s->stock_fd);
	int ret;

	s->data_phase = false;
	if (xchg(s->o->transport) == PP_STOCK_XRC_REC) {
		ret = pp_interop_end(&l, &s->err);
		if (ret)
			return ret;
	}
	if (r->completed < rc->iters) {
		pp_err_set(&s->err,
			   "the run ended after %llu of %llu iterations",
			   (unsigned long long)r->completed,
			   (unsigned long long)rc->iters);
		return EPROTO;
	}
	return 0;
}

const struct pp_exchange pp_exchange_stock = {
	.agree = agree,
	.connect_qps = connect_qps,
	.run_cfg = run_cfg,
	.run_failed = run_failed,
	.size_done = size_done,
	.grh_toward = pp_rdmacore_wants_grh,
	.plain_send = true,
	.accepts_late = true,
};
