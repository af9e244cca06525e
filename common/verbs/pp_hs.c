// SPDX-License-Identifier: MIT
/*
 * pp_hs.c - the handshake: HELLO, ADDRS, READY, DONE and ALIVE over the TCP
 * connection, and the pure rules by which the server adopts or refuses the
 * client's parameters.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pp_gid.h"
#include "pp_hs.h"
#include "pp_res.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_time.h"

const char *pp_peer_name(const struct pp_conn *c)
{
	return c->is_server ? "client" : "server";
}

static const char *msg_name(unsigned int type)
{
	switch (type) {
	case PP_MSG_HELLO:
		return "HELLO";
	case PP_MSG_ADDRS:
		return "ADDRS";
	case PP_MSG_READY:
		return "READY";
	case PP_MSG_DONE:
		return "DONE";
	case PP_MSG_ERROR:
		return "ERROR";
	case PP_MSG_COUNTERS:
		return "COUNTERS";
	case PP_MSG_GIDS:
		return "GIDS";
	case PP_MSG_ALIVE:
		return "ALIVE";
	}
	return "an unknown message";
}

static const char *link_layer_name(unsigned int ll)
{
	const char *name = pp_link_layer_name(ll);

	return name ? name : "unspecified";
}

static const char *on_off(bool on)
{
	return on ? "on" : "off";
}

void pp_hello_build(const struct pp_opts *o, const struct pp_port_caps *caps,
		    int gid_index, uint8_t gid_type, struct pp_hello *h)
{
	*h = (struct pp_hello){
		.tool = (uint8_t)o->tool,
		.transport = (uint8_t)o->transport,
		.link_layer = caps->link_layer,
		.active_mtu = (uint16_t)caps->active_mtu,
		.gid_index = gid_index < 0 ? PP_GID_INDEX_NONE :
					     (uint16_t)gid_index,
		.gid_type = gid_type,
		.peer_gid_index = PP_GID_INDEX_NONE,
		.timeout_ms = o->timeout_ms < 1 ? 1 :
			      o->timeout_ms > PP_WIRE_TIMEOUT_MAX_MS ?
						  PP_WIRE_TIMEOUT_MAX_MS :
						  o->timeout_ms,
		.expect_mtu = (uint16_t)o->expect_mtu,
	};
#define BUILD_NUM(name, ...) h->name = o->name;
#define BUILD_FLAG(name, opt, bit_name, ...) h->flags |= o->name ? bit_name : 0;
	PP_PARAMS(BUILD_NUM, BUILD_FLAG, PP_PARAM_NONE)
#undef BUILD_NUM
#undef BUILD_FLAG
	/* -a without -s: the default top of a sweep */
	if (o->sweep && !(o->set & PP_OPT_BIT(PP_OPT_SIZE)))
		h->size = pp_transport_of(o->transport)->datagram ?
				  4096 :
				  PP_SWEEP_TOP;
	/* -D: the iterations are the cap on samples */
	if (o->duration_s) {
		h->iters = (uint64_t)o->duration_s * PP_DURATION_RATE;
		if (h->iters > PP_MAX_ITERS)
			h->iters = PP_MAX_ITERS;
	}
}

size_t pp_sweep_sizes(const struct pp_hello *h, uint64_t *sizes)
{
	uint64_t top = h->size, s;
	size_t n = 0;

	if (!(h->flags & PP_F_SWEEP)) {
		sizes[0] = h->size;
		return 1;
	}
	if (pp_transport_of(h->transport)->datagram && h->mtu && top > h->mtu)
		top = h->mtu;
	for (s = 1; s <= top && n < PP_SWEEP_MAX; s *= 2)
		sizes[n++] = s;
	if (sizes[n - 1] != top && n < PP_SWEEP_MAX)
		sizes[n++] = top;
	return n;
}

bool pp_hello_buf_per_recv(const struct pp_hello *h)
{
	return (h->flags & PP_F_VALIDATE) && h->op == PP_OP_SEND &&
	       pp_transport_of(h->transport)->lossy;
}

int pp_hello_mem(const struct pp_hello *h, uint64_t page, uint64_t *bytes)
{
	uint64_t sizes[PP_SWEEP_MAX];
	size_t n = pp_sweep_sizes(h, sizes);

	return pp_res_mem(pp_transport_of(h->transport), sizes[n - 1],
			  h->rx_depth, pp_hello_buf_per_recv(h), page, bytes);
}

/*
 * What to do about an MTU @asked above a port's @active one: a smaller -m,
 * or a larger port MTU.  On RoCE the port's active MTU follows the netdev's
 * MTU, which must hold the RoCE headers too (4200 bytes give 4096: rxe,
 * mlx5); on InfiniBand the subnet manager sets it.
 */
static const char *mtu_fix(char *buf, size_t len, const char *side,
			   uint8_t link_layer, uint32_t asked, uint32_t active)
{
	if (link_layer == IBV_LINK_LAYER_INFINIBAND)
		snprintf(
			buf, len,
			"use -m %u or less, or raise %s port MTU (the subnet manager sets it)",
			active, side);
	else
		snprintf(
			buf, len,
			"use -m %u or less, or raise %s netdev MTU (RoCE needs about %u bytes for %u)",
			active, side, asked + 104, asked);
	return buf;
}

int pp_hello_check(const struct pp_hello *h, const struct pp_port_caps *caps,
		   struct pp_err *err)
{
	const struct pp_transport_desc *tr = pp_transport_of(h->transport);
	const char *dev = caps->devname;
	char fix[128], why[256];
	uint32_t mtu;

	/* the transport's operations: the same rule the client's parser has */
	if (pp_transport_op_check(tr, h->op, h->size, h->flags & PP_F_SWEEP,
				  why, sizeof(why))) {
		pp_err_set(err, "%s", why);
		return EINVAL;
	}

	/* the atomics run on both devices: each must have them */
	if (pp_op_atomic(h->op) && caps->no_atomics) {
		pp_err_set(
			err,
			"operation %s: device %s has no atomic operations (atomic_cap is IBV_ATOMIC_NONE): use --op send, write, write-imm or read, or a device with atomics",
			pp_op_name(h->op), dev);
		return EINVAL;
	}
	if (h->mtu && caps->active_mtu && h->mtu > caps->active_mtu) {
		pp_err_set(err, "MTU: %u asked, port %s:%u active MTU %u: %s",
			   h->mtu, dev, caps->ib_port, caps->active_mtu,
			   mtu_fix(fix, sizeof(fix), "this host's",
				   caps->link_layer, h->mtu, caps->active_mtu));
		return EINVAL;
	}
	if (caps->max_msg_sz && h->size > caps->max_msg_sz) {
		pp_err_set(
			err,
			"size: %llu asked, port %s:%u largest message %u (use -s %u or less)",
			(unsigned long long)h->size, dev, caps->ib_port,
			caps->max_msg_sz, caps->max_msg_sz);
		return EINVAL;
	}
	if (caps->max_mr_size && h->size > caps->max_mr_size) {
		pp_err_set(
			err,
			"size: %llu asked, device %s largest MR %llu (use -s %llu or less)",
			(unsigned long long)h->size, dev,
			(unsigned long long)caps->max_mr_size,
			(unsigned long long)caps->max_mr_size);
		return EINVAL;
	}
	if (tr->xrc && !caps->xrc) {
		pp_err_set(err, "XRC: not supported by device %s", dev);
		return EINVAL;
	}
	if (tr->srq) {
		if (!caps->max_srq_wr) {
			pp_err_set(err, "SRQ: not supported by device %s", dev);
			return EINVAL;
		}
		if (h->rx_depth > caps->max_srq_wr) {
			pp_err_set(
				err,
				"rx depth: %u asked, device %s max SRQ WRs %u (use -r %u or less)",
				h->rx_depth, dev, caps->max_srq_wr,
				caps->max_srq_wr);
			return EINVAL;
		}
	} else if (caps->max_qp_wr && h->rx_depth > caps->max_qp_wr) {
		pp_err_set(
			err,
			"rx depth: %u asked, device %s max QP WRs %u (use -r %u or less)",
			h->rx_depth, dev, caps->max_qp_wr, caps->max_qp_wr);
		return EINVAL;
	}
	/* several QPs share one receive queue: only SRQ and XRC have that */
	if (h->num_qps != 1 && !tr->srq) {
		pp_err_set(
			err,
			"QPs: %u asked, %s runs one QP (several QPs are srq_pingpong's and xrc_pingpong's -q)",
			h->num_qps, tr->name);
		return EINVAL;
	}
	if (caps->max_qp && h->num_qps > caps->max_qp) {
		pp_err_set(
			err,
			"QPs: %u asked, device %s max QPs %u (use -q %u or less)",
			h->num_qps, dev, caps->max_qp, caps->max_qp);
		return EINVAL;
	}
	if (caps->max_cqe &&
	    pp_res_cqe(tr, h->num_qps, h->rx_depth) > caps->max_cqe) {
		pp_err_set(
			err,
			"CQ: %llu entries needed (-r %u, -q %u), device %s max CQ entries %u (lower -r or -q)",
			(unsigned long long)pp_res_cqe(tr, h->num_qps,
						       h->rx_depth),
			h->rx_depth, h->num_qps, dev, caps->max_cqe);
		return EINVAL;
	}
	mtu = h->mtu ? h->mtu : caps->active_mtu;
	/* a UD sweep stops at the MTU (pp_sweep_sizes()) */
	if (tr->datagram && mtu && h->size > mtu && !(h->flags & PP_F_SWEEP)) {
		pp_err_set(
			err,
			"size: %llu is larger than the MTU %u (UD messages must fit in one MTU; use -s %u or less)",
			(unsigned long long)h->size, mtu, mtu);
		return EINVAL;
	}
	return 0;
}

/* Does @tr belong to @tool?  rc_pingpong runs RC or (--uc) UC. */
static bool tool_has_transport(unsigned int tool, unsigned int tr)
{
	const struct pp_transport_desc *d = pp_transport_get(tr);

	return d && d->tool == tool;
}

static bool is_set(const struct pp_opts *o, enum pp_opt_id id)
{
	return o->set & PP_OPT_BIT(id);
}

/*
 * A number of a mismatch line: "auto" for an automatic 0, a name when the
 * parameter has names, else the number and the unit.
 */
static const char *fmt_value(char *buf, size_t len, uint64_t v,
			     enum pp_zero zero, const char *unit,
			     pp_param_names_fn names)
{
	if (names)
		snprintf(buf, len, "%s", names(v));
	else if (!v && zero == PP_ZERO_AUTO)
		snprintf(buf, len, "auto");
	else
		snprintf(buf, len, "%llu%s", (unsigned long long)v, unit);
	return buf;
}

char *pp_hello_describe(const struct pp_hello *h, char *buf, size_t len)
{
	size_t used = 0;
	char v[32];
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
#define DESCRIBE(label, text)                                   \
	if (used < len) {                                       \
		w = snprintf(buf + used, len - used, "%s%s %s", \
			     used ? ", " : "", label, text);    \
		used += w > 0 ? (size_t)w : 0;                  \
	}
#define DESCRIBE_NUM(name, opt, type, off, valid, zero, wname, label, unit, \
		     json, jnull, dflt, names)                              \
	DESCRIBE(label, fmt_value(v, sizeof(v), h->name, zero, unit, names))
#define DESCRIBE_FLAG(name, opt, bit_name, bit, inverted, label, ...) \
	DESCRIBE(label, on_off((!(h->flags & bit_name)) == (inverted)))
	PP_PARAMS(DESCRIBE_NUM, DESCRIBE_FLAG, PP_PARAM_NONE)
#undef DESCRIBE_NUM
#undef DESCRIBE_FLAG
#undef DESCRIBE
	return buf;
}

/*
 * An option the server set explicitly must equal the client's: each
 * parameter of PP_PARAMS in turn, then the transport (--uc).
 */
static int check_explicit(const struct pp_opts *srv, const struct pp_hello *cl,
			  struct pp_err *err)
{
	char a[32], b[32];

#define MATCH_NUM(name, opt, type, off, valid, zero, wname, label, unit, json, \
		  jnull, dflt, names)                                          \
	if (is_set(srv, opt) && cl->name != srv->name) {                       \
		pp_err_set(err, label ": client %s, server %s",                \
			   fmt_value(a, sizeof(a), cl->name, zero, unit,       \
				     names),                                   \
			   fmt_value(b, sizeof(b), srv->name, zero, unit,      \
				     names));                                  \
		return EINVAL;                                                 \
	}
#define MATCH_FLAG(name, opt, bit_name, bit, inverted, label, json, match)  \
	if ((match) && is_set(srv, opt) &&                                  \
	    !(cl->flags & bit_name) != !srv->name) {                        \
		pp_err_set(err, label ": client %s, server %s",             \
			   on_off((!(cl->flags & bit_name)) == (inverted)), \
			   on_off(srv->name != (inverted)));                \
		return EINVAL;                                              \
	}
	PP_PARAMS(MATCH_NUM, MATCH_FLAG, PP_PARAM_NONE)
#undef MATCH_NUM
#undef MATCH_FLAG
	if (is_set(srv, PP_OPT_UC) && cl->transport != srv->transport) {
		pp_err_set(err, "transport: client %s, server %s",
			   pp_transport_name(cl->transport),
			   pp_transport_name(srv->transport));
		return EINVAL;
	}
	return 0;
}

/*
 * The buffers a client's run makes the server allocate, zero and pin: at
 * most --max-mem (a client must not make a server pin all its memory).
 */
static int check_mem(const struct pp_opts *srv, const struct pp_hello *h,
		     struct pp_err *err)
{
	uint64_t bytes = UINT64_MAX;
	long page = sysconf(_SC_PAGESIZE);

	if (!srv->max_mem)
		return 0;
	if (pp_hello_mem(h, page > 0 ? (uint64_t)page : 4096, &bytes) ||
	    bytes > srv->max_mem) {
		if (bytes == UINT64_MAX)
			pp_err_set(
				err,
				"server memory limit: the client's -s %llu%s needs more buffer memory than the server can address (lower -s, or -r with -c)",
				(unsigned long long)h->size,
				(h->flags & PP_F_SWEEP) ? " -a" : "");
		else
			pp_err_set(
				err,
				"server memory limit: the client's -s %llu%s%s needs %llu bytes of buffers, the server allows %llu per client (lower -s%s, or start the server with --max-mem %llu or more)",
				(unsigned long long)h->size,
				(h->flags & PP_F_SWEEP) ? " -a" : "",
				pp_hello_buf_per_recv(h) ?
					" -c (a buffer per receive)" :
					"",
				(unsigned long long)bytes,
				(unsigned long long)srv->max_mem,
				pp_hello_buf_per_recv(h) ? " or -r" : "",
				(unsigned long long)bytes);
		return EINVAL;
	}
	return 0;
}

int pp_grh_decide(uint8_t link_layer, uint16_t client_gid, uint16_t server_gid,
		  bool *grh, char *why, size_t len)
{
	bool cl = client_gid != PP_GID_INDEX_NONE;
	bool sv = server_gid != PP_GID_INDEX_NONE;
	const char *none = !cl && !sv ? "neither side has a GID" :
			   !cl	      ? "the client has no GID" :
					"the server has no GID";

	*grh = cl && sv;
	if (*grh) {
		snprintf(why, len, "both sides have a GID");
		return 0;
	}
	if (link_layer == IBV_LINK_LAYER_ETHERNET) {
		snprintf(why, len,
			 "RoCE needs a GRH, and %s (give -g; see --show-gids)",
			 none);
		return EINVAL;
	}
	snprintf(why, len, "%s: give -g on both sides for a GRH", none);
	return 0;
}

int pp_hello_adopt(const struct pp_opts *srv, const struct pp_port_caps *caps,
		   const struct pp_hello *mine, const struct pp_hello *client,
		   struct pp_hello *agreed, struct pp_err *err)
{
	struct pp_hello h;
	uint32_t path_mtu;
	char fix[128], why[128];
	bool grh;
	int rc;

	if (client->tool != srv->tool) {
		pp_err_set(err, "transport binary: client %s, server %s",
			   pp_tool_name(client->tool), pp_tool_name(srv->tool));
		return EINVAL;
	}
	if (!tool_has_transport(srv->tool, client->transport)) {
		pp_err_set(err, "transport: client %s, server %s",
			   pp_transport_name(client->transport),
			   pp_transport_name(srv->transport));
		return EINVAL;
	}
	rc = check_explicit(srv, client, err);
	if (rc)
		return rc;
	if (srv->use_event && pp_op_polls_memory(client->op)) {
		pp_err_set(
			err,
			"operation %s with the server's -e/--events: the client's write completes nothing on the server, so there is no event to sleep on (use --op write-imm, or drop -e on the server)",
			pp_op_name(client->op));
		return EINVAL;
	}

	if (client->mtu) {
		if (client->active_mtu && client->mtu > client->active_mtu) {
			pp_err_set(
				err,
				"MTU: client asks %u, client port active MTU %u: %s",
				client->mtu, client->active_mtu,
				mtu_fix(fix, sizeof(fix), "the client's",
					client->link_layer, client->mtu,
					client->active_mtu));
			return EINVAL;
		}
		if (caps->active_mtu && client->mtu > caps->active_mtu) {
			pp_err_set(
				err,
				"MTU: client asks %u, server port active MTU %u: %s",
				client->mtu, caps->active_mtu,
				mtu_fix(fix, sizeof(fix), "the server's",
					caps->link_layer, client->mtu,
					caps->active_mtu));
			return EINVAL;
		}
		path_mtu = client->mtu;
	} else {
		path_mtu = client->active_mtu;
		if (!path_mtu ||
		    (caps->active_mtu && caps->active_mtu < path_mtu))
			path_mtu = caps->active_mtu;
	}

	h = *client;
	h.mtu = path_mtu;
	rc = pp_hello_check(&h, caps, err);
	if (rc)
		return rc;
	if (client->link_layer && caps->link_layer &&
	    client->link_layer != caps->link_layer) {
		pp_err_set(err, "link layer: client %s, server %s",
			   link_layer_name(client->link_layer),
			   link_layer_name(caps->link_layer));
		return EINVAL;
	}

	rc = check_mem(srv, &h, err);
	if (rc)
		return rc;

	if (pp_grh_decide(caps->link_layer, client->gid_index, mine->gid_index,
			  &grh, why, sizeof(why))) {
		pp_err_set(err, "GRH: %s", why);
		return EINVAL;
	}
	h.flags &= (uint16_t)~PP_F_GRH;
	if (grh)
		h.flags |= PP_F_GRH;
	h.link_layer = mine->link_layer;
	h.active_mtu = mine->active_mtu;
	h.gid_index = mine->gid_index;
	h.gid_type = mine->gid_type;
	h.netdev_mtu = mine->netdev_mtu;
	h.expect_mtu = mine->expect_mtu;
	*agreed = h;
	pp_err_clear(err);
	return 0;
}

/* "5 s", or "300 ms" when the timeout is not whole seconds. */
static void fmt_timeout(char *buf, size_t len, int ms)
{
	if (ms >= 1000 && ms % 1000 == 0)
		snprintf(buf, len, "%d s", ms / 1000);
	else
		snprintf(buf, len, "%d ms", ms);
}

void pp_hs_host_gone(const struct pp_conn *c, const char *when,
		     struct pp_err *err)
{
	pp_err_set(
		err,
		"the %s's host stopped answering %s (TCP gave up on the connection: the host crashed or powered off, or the network between is cut)",
		pp_peer_name(c), when);
}

/* pp_hs_host_gone() while sending or waiting for a message of @type. */
static void host_gone(const struct pp_conn *c, const char *doing,
		      unsigned int type, struct pp_err *err)
{
	char when[64];

	snprintf(when, sizeof(when), "%s %s", doing, msg_name(type));
	pp_hs_host_gone(c, when, err);
}

int pp_hs_send(const struct pp_conn *c, const struct pp_msg *m,
	       struct pp_err *err)
{
	uint8_t buf[PP_WIRE_MAX_MSG];
	size_t len;
	int rc;

	rc = pp_wire_encode(m, buf, sizeof(buf), &len);
	if (!rc)
		rc = pp_sock_write_all(c->fd, buf, len,
				       pp_deadline(c->timeout_ms));
	if (!rc)
		pp_trace_msg(c->trace, "sent", msg_name(m->type), len);
	if (rc == ETIMEDOUT)
		pp_err_set(
			err,
			"sending %s to the %s failed: %s (is the peer stuck? raise -T/--timeout)",
			msg_name(m->type), pp_peer_name(c), strerror(rc));
	else if (rc == EHOSTDOWN || rc == EHOSTUNREACH)
		host_gone(c, "while this side sent", m->type, err);
	else if (rc == ECANCELED)
		pp_err_set(err, "interrupted by %s while sending %s to the %s",
			   pp_signal_name(pp_signal_caught()),
			   msg_name(m->type), pp_peer_name(c));
	else if (rc)
		pp_err_set(err, "sending %s to the %s failed: %s",
			   msg_name(m->type), pp_peer_name(c), strerror(rc));
	return rc;
}

/* The message of a failed read of a message of @type. */
static void recv_err(const struct pp_conn *c, int rc, unsigned int type,
		     struct pp_err *err)
{
	char t[32];

	if (rc == ETIMEDOUT) {
		fmt_timeout(t, sizeof(t), c->timeout_ms);
		pp_err_set(
			err,
			"no %s from the %s within %s (is the peer running? raise -T/--timeout)",
			msg_name(type), pp_peer_name(c), t);
	} else if (rc == ECONNRESET) {
		pp_err_set(err,
			   "the %s closed the connection before sending %s",
			   pp_peer_name(c), msg_name(type));
	} else if (rc == EHOSTDOWN || rc == EHOSTUNREACH) {
		host_gone(c, "while this side waited for", type, err);
	} else if (rc == ECANCELED) {
		pp_err_set(err,
			   "interrupted by %s while waiting for %s from the %s",
			   pp_signal_name(pp_signal_caught()), msg_name(type),
			   pp_peer_name(c));
	} else {
		pp_err_set(err, "receiving %s from the %s failed: %s",
			   msg_name(type), pp_peer_name(c), strerror(rc));
	}
}

/* The peer's ERROR: its text is the line to report, as the peer does. */
static int remote_error(const struct pp_msg *m, struct pp_err *err)
{
	if (m->u.error.text[0])
		pp_err_set(err, "%s", m->u.error.text);
	else
		pp_err_set(err, "the peer stopped with error %u",
			   m->u.error.code);
	if (err)
		err->remote = true;
	return ECONNABORTED;
}

/* A header of another version: its ERROR is still readable; else name both. */
static int other_version(const struct pp_conn *c, const struct pp_hdr *hdr,
			 int64_t deadline, struct pp_msg *m, struct pp_err *err)
{
	uint8_t body[PP_WIRE_ERROR_LEN];
	const char *why;
	unsigned int cl, sv;

	if (hdr->type == PP_MSG_ERROR && hdr->len == PP_WIRE_ERROR_LEN &&
	    !pp_sock_read_all(c->fd, body, sizeof(body), deadline) &&
	    !pp_wire_decode_body(hdr, body, m, &why))
		return remote_error(m, err);

	cl = c->is_server ? hdr->version : PP_WIRE_VERSION;
	sv = c->is_server ? PP_WIRE_VERSION : hdr->version;
	pp_err_set(err, "protocol version: client %u, server %u", cl, sv);
	return EPROTONOSUPPORT;
}

/* pp_hs_recv() of a message of @type, or of @alt. */
static int recv_either(const struct pp_conn *c, enum pp_msg_type type,
		       enum pp_msg_type alt, struct pp_msg *m,
		       struct pp_err *err)
{
	int64_t deadline = pp_deadline(c->timeout_ms);
	uint8_t buf[PP_WIRE_MAX_MSG];
	const char *why = "";
	struct pp_hdr hdr;
	int rc;

	rc = pp_sock_read_all(c->fd, buf, PP_WIRE_HDR_LEN, deadline);
	if (rc) {
		recv_err(c, rc, type, err);
		return rc;
	}
	rc = pp_wire_decode_hdr(buf, &hdr, &why);
	if (rc == EPROTONOSUPPORT)
		return other_version(c, &hdr, deadline, m, err);
	if (rc) {
		pp_err_set(err, "bad %s from the %s: %s",
			   msg_name(hdr.type == alt ? alt : type),
			   pp_peer_name(c), why);
		return rc;
	}
	if (hdr.len > PP_WIRE_MAX_BODY) { /* decode_hdr promises otherwise */
		pp_err_set(err, "bad %s from the %s: body of %u bytes",
			   msg_name(type), pp_peer_name(c), hdr.len);
		return EBADMSG;
	}
	if (hdr.len) {
		rc = pp_sock_read_all(c->fd, buf + PP_WIRE_HDR_LEN, hdr.len,
				      deadline);
		if (rc) {
			recv_err(c, rc, type, err);
			return rc;
		}
	}
	if (hdr.type != type && hdr.type != alt && hdr.type != PP_MSG_ERROR) {
		pp_err_set(err, "expected %s from the %s, got %s",
			   msg_name(type), pp_peer_name(c), msg_name(hdr.type));
		return EPROTO;
	}
	rc = pp_wire_decode_body(&hdr, buf + PP_WIRE_HDR_LEN, m, &why);
	if (rc) {
		pp_err_set(err, "bad %s from the %s: %s", msg_name(hdr.type),
			   pp_peer_name(c), why);
		return rc;
	}
	pp_trace_msg(c->trace, "received", msg_name(hdr.type),
		     PP_WIRE_HDR_LEN + hdr.len);
	if (m->type == PP_MSG_ERROR)
		return remote_error(m, err);
	pp_err_clear(err);
	return 0;
}

int pp_hs_recv(const struct pp_conn *c, enum pp_msg_type type, struct pp_msg *m,
	       struct pp_err *err)
{
	return recv_either(c, type, type, m, err);
}

int pp_hs_send_alive(const struct pp_conn *c, uint64_t done, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_ALIVE, .u.alive.done = done };

	return pp_hs_send(c, &m, err);
}

/* The client's ALIVE: its count only grows, up to the run's iterations. */
static int alive_ok(const struct pp_alive *a, uint64_t *last, uint64_t total,
		    struct pp_err *err)
{
	if (a->done < *last || a->done > total) {
		pp_err_set(
			err,
			"bad ALIVE from the client: %llu iterations done, after %llu, of a run of %llu",
			(unsigned long long)a->done, (unsigned long long)*last,
			(unsigned long long)total);
		return EPROTO;
	}
	*last = a->done;
	return 0;
}

int pp_hs_wait_done(const struct pp_conn *c, int client_ms, uint64_t total,
		    const char *what, struct pp_done *done, struct pp_err *err)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int64_t deadline = pp_deadline(client_ms), left;
	uint64_t last = 0;
	struct pp_msg m;
	int ret;

	for (;;) {
		if (pp_signal_caught()) {
			pp_err_set(err, "interrupted by %s during the run",
				   pp_signal_name(pp_signal_caught()));
			return ECANCELED;
		}
		left = deadline == INT64_MAX ?
			       PP_HS_WAIT_POLL_MS :
			       (deadline - pp_now_ns() + 999999) / 1000000;
		if (left <= 0) {
			pp_err_set(
				err,
				"the client sent nothing for %d ms during its %s run, after %llu of %llu iterations: stopped, or its host gone (a running client says it is alive every %d ms)",
				client_ms, what, (unsigned long long)last,
				(unsigned long long)total,
				pp_hs_alive_every_ms(client_ms));
			return ETIMEDOUT;
		}
		ret = poll(&pfd, 1,
			   left < PP_HS_WAIT_POLL_MS ? (int)left :
						       PP_HS_WAIT_POLL_MS);
		if (ret < 0 && errno != EINTR) {
			ret = errno;
			pp_err_set(err, "poll the connection failed: %s",
				   strerror(ret));
			return ret;
		}
		if (ret <= 0)
			continue;
		ret = recv_either(c, PP_MSG_DONE, PP_MSG_ALIVE, &m, err);
		if (ret == ECONNRESET)
			pp_err_set(
				err,
				"the client closed the connection during its %s run, after %llu of %llu iterations",
				what, (unsigned long long)last,
				(unsigned long long)total);
		else if (ret == EHOSTDOWN || ret == EHOSTUNREACH)
			pp_hs_host_gone(c, "during the run", err);
		if (ret)
			return ret;
		if (m.type == PP_MSG_DONE) {
			*done = m.u.done;
			return 0;
		}
		ret = alive_ok(&m.u.alive, &last, total, err);
		if (ret)
			return ret;
		deadline = pp_deadline(client_ms);
	}
}

void pp_hs_send_error(const struct pp_conn *c, int code, const char *text)
{
	struct pp_msg m = { .type = PP_MSG_ERROR };
	size_t i;

	m.u.error.code = code < 0 ? 0 : (uint32_t)code;
	if (!text || !*text)
		text = "error";
	for (i = 0; i < PP_WIRE_TEXT_LEN && text[i]; i++) {
		unsigned char ch = (unsigned char)text[i];

		m.u.error.text[i] = ch < 0x20 || ch > 0x7e ? '?' : (char)ch;
	}
	m.u.error.text[i] = '\0';
	if (text[i]) /* cut: say so (the whole line is printed here) */
		memcpy(m.u.error.text + PP_WIRE_TEXT_LEN - 3, "...", 3);
	(void)pp_hs_send(c, &m, NULL);
}

/* Is a failure of pp_hs_recv() something to tell the peer about? */
static bool is_protocol_error(int rc)
{
	return rc == EPROTO || rc == EBADMSG || rc == EPROTONOSUPPORT;
}

/*
 * The field of @ans that differs from @asked, or NULL.  The server answers
 * with what was asked, and an automatic parameter (the MTU) with the value
 * it chose.
 */
static const char *answer_differs(const struct pp_hello *asked,
				  const struct pp_hello *ans)
{
	uint64_t v;

	if (ans->tool != asked->tool)
		return "transport binary";
	if (ans->transport != asked->transport)
		return "transport";
	if (ans->timeout_ms != asked->timeout_ms)
		return "timeout";
#define ANSWER_NUM(name, opt, type, off, valid, zero, wname, label, ...)  \
	v = ans->name;                                                    \
	if ((zero) == PP_ZERO_AUTO ?                                      \
		    !v || !(valid) || (asked->name && v != asked->name) : \
		    v != asked->name)                                     \
		return label;
#define ANSWER_FLAG(name, opt, bit_name, bit, inverted, label, ...) \
	if ((ans->flags ^ asked->flags) & bit_name)                 \
		return label;
	PP_PARAMS(ANSWER_NUM, ANSWER_FLAG, PP_PARAM_NONE)
#undef ANSWER_NUM
#undef ANSWER_FLAG
	return NULL;
}

/* The client: the server's GRH decision must be the rule's (both or neither). */
static int grh_answer_ok(const struct pp_hello *mine,
			 const struct pp_hello *ans, struct pp_err *err)
{
	bool grh, said = ans->flags & PP_F_GRH;
	char why[128];

	if (pp_grh_decide(mine->link_layer, mine->gid_index, ans->gid_index,
			  &grh, why, sizeof(why))) {
		pp_err_set(err, "GRH: %s", why);
		return EINVAL;
	}
	if (grh != said) {
		pp_err_set(err, "GRH: the server says %s, the client %s (%s)",
			   said ? "yes" : "no", grh ? "yes" : "no", why);
		return EPROTO;
	}
	return 0;
}

int pp_hs_client_hello(const struct pp_conn *c, const struct pp_hello *mine,
		       struct pp_hello *agreed, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_HELLO, .u.hello = *mine };
	const char *field;
	int rc;

	rc = pp_hs_send(c, &m, err);
	if (rc)
		return rc;
	rc = pp_hs_recv(c, PP_MSG_HELLO, &m, err);
	if (rc) {
		if (is_protocol_error(rc))
			pp_hs_send_error(c, rc, err ? err->msg : NULL);
		return rc;
	}
	field = answer_differs(mine, &m.u.hello);
	if (field) {
		pp_err_set(err, "server answered with other parameters: %s",
			   field);
		pp_hs_send_error(c, EPROTO, err ? err->msg : field);
		return EPROTO;
	}
	rc = grh_answer_ok(mine, &m.u.hello, err);
	if (rc) {
		pp_hs_send_error(c, rc, err ? err->msg : "GRH");
		return rc;
	}
	*agreed = m.u.hello;
	return 0;
}

int pp_hs_server_recv_hello(const struct pp_conn *c, struct pp_hello *client,
			    struct pp_err *err)
{
	struct pp_err e = { .msg = "" };
	struct pp_msg m;
	int rc;

	/* A local pp_err so the line can be sent even when @err is NULL. */
	rc = pp_hs_recv(c, PP_MSG_HELLO, &m, &e);
	if (rc) {
		if (is_protocol_error(rc) || rc == ECANCELED)
			pp_hs_send_error(c, rc, e.msg);
	} else {
		*client = m.u.hello;
	}
	if (err)
		*err = e;
	return rc;
}

int pp_hs_server_answer(const struct pp_conn *c, const struct pp_opts *srv,
			const struct pp_port_caps *caps,
			const struct pp_hello *mine,
			const struct pp_hello *client, struct pp_hello *agreed,
			struct pp_err *err)
{
	struct pp_err e = { .msg = "" };
	struct pp_msg m;
	int rc;

	rc = pp_hello_adopt(srv, caps, mine, client, agreed, &e);
	if (rc) {
		pp_hs_send_error(c, rc, e.msg);
		goto out;
	}
	m = (struct pp_msg){ .type = PP_MSG_HELLO, .u.hello = *agreed };
	rc = pp_hs_send(c, &m, &e);
out:
	if (err)
		*err = e;
	return rc;
}

int pp_hs_server_hello(const struct pp_conn *c, const struct pp_opts *srv,
		       const struct pp_port_caps *caps,
		       const struct pp_hello *mine, struct pp_hello *agreed,
		       struct pp_hello *client, struct pp_err *err)
{
	struct pp_hello h;
	int rc;

	rc = pp_hs_server_recv_hello(c, &h, err);
	if (rc)
		return rc;
	if (client)
		*client = h;
	return pp_hs_server_answer(c, srv, caps, mine, &h, agreed, err);
}

int pp_hs_send_gids(const struct pp_conn *c, const struct pp_gid_entry *tbl,
		    int n, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_GIDS };
	struct pp_wire_gid *g;
	int i;

	for (i = 0; i < n && m.u.gids.count < PP_WIRE_GIDS_MAX; i++) {
		if (!tbl[i].populated || tbl[i].index < 0 ||
		    tbl[i].index > (int)PP_MAX_GID_IDX ||
		    pp_gid_family(tbl[i].raw) == PP_GID_FAM_NONE)
			continue;
		g = &m.u.gids.g[m.u.gids.count++];
		g->index = (uint8_t)tbl[i].index;
		g->gid_type = tbl[i].type;
		snprintf(g->netdev, sizeof(g->netdev), "%.*s",
			 PP_WIRE_NETDEV_LEN, tbl[i].ndev);
		memcpy(g->gid, tbl[i].raw, sizeof(g->gid));
	}
	if (!m.u.gids.count) {
		pp_err_set(err, "no populated GID to send to the %s",
			   pp_peer_name(c));
		pp_hs_send_error(c, ENODATA, err ? err->msg : NULL);
		return ENODATA;
	}
	return pp_hs_send(c, &m, err);
}

int pp_hs_exchange_addrs(const struct pp_conn *c, const struct pp_addr *mine,
			 struct pp_addr *theirs, uint32_t n, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_ADDRS };
	struct pp_err e = { .msg = "" };
	int rc;

	if (n < 1 || n > PP_MAX_QPS) {
		pp_err_set(err, "cannot send %u QP addresses (1..%u)", n,
			   PP_MAX_QPS);
		return EINVAL;
	}
	m.u.addrs.count = n;
	memcpy(m.u.addrs.addr, mine, n * sizeof(*mine));

	if (!c->is_server) {
		rc = pp_hs_send(c, &m, &e);
		if (rc)
			goto out;
	}
	rc = pp_hs_recv(c, PP_MSG_ADDRS, &m, &e);
	if (rc) {
		if (is_protocol_error(rc))
			pp_hs_send_error(c, rc, e.msg);
		goto out;
	}
	if (m.u.addrs.count != n) {
		pp_err_set(&e, "the %s sent %u QP addresses, expected %u",
			   pp_peer_name(c), m.u.addrs.count, n);
		pp_hs_send_error(c, EPROTO, e.msg);
		rc = EPROTO;
		goto out;
	}
	memcpy(theirs, m.u.addrs.addr, n * sizeof(*theirs));
	if (c->is_server) {
		m.type = PP_MSG_ADDRS;
		m.u.addrs.count = n;
		memcpy(m.u.addrs.addr, mine, n * sizeof(*mine));
		rc = pp_hs_send(c, &m, &e);
	}
out:
	if (err)
		*err = e;
	return rc;
}

int pp_hs_sync(const struct pp_conn *c, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_READY };
	int rc;

	rc = pp_hs_send(c, &m, err);
	if (rc)
		return rc;
	return pp_hs_recv(c, PP_MSG_READY, &m, err);
}

int pp_hs_done(const struct pp_conn *c, const struct pp_done *mine,
	       struct pp_done *theirs, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_DONE, .u.done = *mine };
	int rc;

	if (!c->is_server) {
		rc = pp_hs_send(c, &m, err);
		if (rc)
			return rc;
	}
	rc = pp_hs_recv(c, PP_MSG_DONE, &m, err);
	if (rc)
		return rc;
	*theirs = m.u.done;
	if (c->is_server) {
		m = (struct pp_msg){ .type = PP_MSG_DONE, .u.done = *mine };
		rc = pp_hs_send(c, &m, err);
	}
	return rc;
}

int pp_hs_counters(const struct pp_conn *c,
		   const struct pp_counters_delta *mine,
		   struct pp_counters_delta *theirs, struct pp_err *err)
{
	struct pp_msg m = { .type = PP_MSG_COUNTERS };
	int rc;

	if (c->is_server) {
		m.u.counters = *mine;
		return pp_hs_send(c, &m, err);
	}
	rc = pp_hs_recv(c, PP_MSG_COUNTERS, &m, err);
	if (rc) {
		if (is_protocol_error(rc))
			pp_hs_send_error(c, rc, err ? err->msg : NULL);
		return rc;
	}
	*theirs = m.u.counters;
	return 0;
}
