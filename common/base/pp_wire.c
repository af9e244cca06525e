// SPDX-License-Identifier: MIT
/*
 * pp_wire.c - encoder and strict decoder of the handshake records.
 *
 * The range rules of each message live once, in the *_ok() predicates below:
 * the encoder refuses (EINVAL) what they refuse, the decoder reports it as
 * EPROTO.  Fields that exist only on the wire (reserved bytes, the NUL padding
 * of the ERROR text) are checked by the decoder alone, so that any body it
 * accepts re-encodes to the very same bytes.
 */
#include <errno.h>
#include <string.h>

#include "pp_be.h"
#include "pp_wire.h"

/* Offsets inside the header and the bodies; see the layout in pp_wire.h. */
#define HDR_MAGIC 0
#define HDR_VERSION 4
#define HDR_TYPE 6
#define HDR_LEN 8

/* HELLO: the fields of the sender's port; the parameters are in PP_PARAMS */
#define HELLO_TOOL 0
#define HELLO_TRANSPORT 1
#define HELLO_FLAGS 2
#define HELLO_LINK_LAYER 33
#define HELLO_ACTIVE_MTU 34
#define HELLO_GID_INDEX 36
#define HELLO_GID_TYPE 38
#define HELLO_PEER_GID_INDEX 58
#define HELLO_TIMEOUT_MS 60
#define HELLO_NETDEV_MTU 68
#define HELLO_EXPECT_MTU 70

#define ADDRS_COUNT 0
#define ADDRS_FIRST 4
#define ADDR_LID 0
#define ADDR_RESERVED 2
#define ADDR_QPN 4
#define ADDR_PSN 8
#define ADDR_SRQN 12
#define ADDR_TGT_QPN 16
#define ADDR_GID 20
#define ADDR_RKEY 36
#define ADDR_VADDR 40

#define GIDS_COUNT 0
#define GIDS_RESERVED 2
#define GIDS_FIRST 4
#define GID_INDEX 0
#define GID_TYPE 1
#define GID_RESERVED 2
#define GID_NETDEV 4
#define GID_GID 20

#define DONE_STATUS 0
#define DONE_RESERVED 4
#define DONE_COMPLETED 8
#define DONE_LOST 16

#define ERROR_CODE 0
#define ERROR_TEXT 4

#define IBV_LINK_LAYER_MAX 2 /* UNSPECIFIED, INFINIBAND, ETHERNET */

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Record @what in @why and fail: keeps the predicates one line per rule. */
static bool bad(const char **why, const char *what)
{
	*why = what;
	return false;
}

/*
 * Which bytes of the HELLO body carry a field; the others are reserved and
 * must be zero.
 */
static void hello_used(bool used[PP_WIRE_HELLO_LEN])
{
	static const struct {
		size_t off, len;
	} port_fields[] = {
		{ HELLO_TOOL, 1 },	 { HELLO_TRANSPORT, 1 },
		{ HELLO_FLAGS, 2 },	 { HELLO_LINK_LAYER, 1 },
		{ HELLO_ACTIVE_MTU, 2 }, { HELLO_GID_INDEX, 2 },
		{ HELLO_GID_TYPE, 1 },	 { HELLO_PEER_GID_INDEX, 2 },
		{ HELLO_TIMEOUT_MS, 4 }, { HELLO_NETDEV_MTU, 2 },
		{ HELLO_EXPECT_MTU, 2 },
	};
	const struct pp_hello *h = NULL;
	size_t i;

	memset(used, 0, PP_WIRE_HELLO_LEN);
	for (i = 0; i < sizeof(port_fields) / sizeof(port_fields[0]); i++)
		memset(used + port_fields[i].off, 1, port_fields[i].len);
#define USED_NUM(name, opt, type, off, ...) \
	memset(used + (off), 1, sizeof(h->name));
	PP_PARAMS(USED_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef USED_NUM
}

static bool hello_ok(const struct pp_hello *h, const char **why)
{
	uint64_t v;

	if (!pp_tool_valid(h->tool))
		return bad(why, "tool out of range");
	if (!pp_transport_get(h->transport))
		return bad(why, "transport out of range");
	if (h->flags & ~PP_F_ALL)
		return bad(why, "unknown flags");
#define CHECK_NUM(name, opt, type, off, valid, zero, wname, ...) \
	v = h->name;                                             \
	if (!(valid))                                            \
		return bad(why, wname " out of range");
	PP_PARAMS(CHECK_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef CHECK_NUM
	if (h->link_layer > IBV_LINK_LAYER_MAX)
		return bad(why, "link_layer out of range");
	if (!pp_mtu_valid(h->active_mtu))
		return bad(why, "active_mtu out of range");
	if (h->gid_index > PP_MAX_GID_IDX && h->gid_index != PP_GID_INDEX_NONE)
		return bad(why, "gid_index out of range");
	if (h->gid_type > PP_GID_TYPE_ROCE_V2)
		return bad(why, "gid_type out of range");
	if (h->peer_gid_index > PP_MAX_GID_IDX &&
	    h->peer_gid_index != PP_GID_INDEX_NONE)
		return bad(why, "peer_gid_index out of range");
	if (!PP_IN(h->timeout_ms, 1, PP_WIRE_TIMEOUT_MAX_MS))
		return bad(why, "timeout out of range");
	if (h->expect_mtu && !pp_mtu_valid(h->expect_mtu))
		return bad(why, "expect_mtu out of range");
	return true;
}

static bool addrs_count_ok(uint32_t count, const char **why)
{
	if (count < 1 || count > PP_MAX_QPS)
		return bad(why, "count out of range");
	return true;
}

static bool addr_ok(const struct pp_addr *a, const char **why)
{
	if (a->qpn > PP_PSN_MASK)
		return bad(why, "qpn out of range");
	if (a->psn > PP_PSN_MASK)
		return bad(why, "psn out of range");
	if (a->srqn > PP_PSN_MASK)
		return bad(why, "srqn out of range");
	if (a->tgt_qpn > PP_PSN_MASK)
		return bad(why, "tgt_qpn out of range");
	return true;
}

/* A netdev name: printable ASCII without space or '/', NUL-terminated. */
static bool netdev_ok(const char *s, const char **why)
{
	size_t i, n = strnlen(s, PP_WIRE_NETDEV_LEN + 1);

	if (n > PP_WIRE_NETDEV_LEN)
		return bad(why, "netdev too long");
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] > 0x7e ||
		    s[i] == '/')
			return bad(why, "netdev not printable");
	return true;
}

static bool gids_ok(const struct pp_msg *m, const char **why)
{
	uint32_t i;

	if (m->u.gids.count < 1 || m->u.gids.count > PP_WIRE_GIDS_MAX)
		return bad(why, "count out of range");
	for (i = 0; i < m->u.gids.count; i++) {
		if (i && m->u.gids.g[i].index <= m->u.gids.g[i - 1].index)
			return bad(why, "gid index out of order");
		if (m->u.gids.g[i].gid_type > PP_GID_TYPE_ROCE_V2)
			return bad(why, "gid_type out of range");
		if (!netdev_ok(m->u.gids.g[i].netdev, why))
			return false;
	}
	return true;
}

/*
 * The encoded length of a COUNTERS body (pp_counters.h's byte form), or 0
 * when a name or the device is too long to encode.
 */
static size_t counters_len(const struct pp_counters_delta *d)
{
	size_t n = strnlen(d->dev, sizeof(d->dev)), len, i, k;

	if (n > PP_COUNTERS_DEV_MAX || d->n > PP_COUNTERS_MAX)
		return 0;
	len = PP_COUNTERS_WIRE_HDR + n;
	for (i = 0; i < d->n; i++) {
		k = strnlen(d->d[i].name, sizeof(d->d[i].name));
		if (k > PP_COUNTERS_NAME_MAX)
			return 0;
		len += PP_COUNTERS_WIRE_REC + k;
	}
	return len;
}

static bool done_ok(const struct pp_done *d, const char **why)
{
	if (d->status > 1)
		return bad(why, "status out of range");
	if (d->completed > PP_MAX_ITERS)
		return bad(why, "completed out of range");
	if (d->lost > PP_MAX_ITERS)
		return bad(why, "lost out of range");
	return true;
}

/* The @n characters of an ERROR text before its terminating NUL. */
static bool text_ok(const char *s, size_t n, const char **why)
{
	size_t i;

	if (n > PP_WIRE_TEXT_LEN)
		return bad(why, "text too long");
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return bad(why, "text not printable");
	return true;
}

static bool msg_ok(const struct pp_msg *m, const char **why)
{
	const char *text;
	uint32_t i;

	switch (m->type) {
	case PP_MSG_HELLO:
		return hello_ok(&m->u.hello, why);
	case PP_MSG_ADDRS:
		if (!addrs_count_ok(m->u.addrs.count, why))
			return false;
		for (i = 0; i < m->u.addrs.count; i++)
			if (!addr_ok(&m->u.addrs.addr[i], why))
				return false;
		return true;
	case PP_MSG_READY:
		return true;
	case PP_MSG_DONE:
		return done_ok(&m->u.done, why);
	case PP_MSG_ERROR:
		text = m->u.error.text;
		return text_ok(text, strnlen(text, sizeof(m->u.error.text)),
			       why);
	case PP_MSG_COUNTERS:
		/* pp_counters_encode() checks the rest */
		if (!counters_len(&m->u.counters))
			return bad(why, "counters cannot be encoded");
		return true;
	case PP_MSG_GIDS:
		return gids_ok(m, why);
	case PP_MSG_ALIVE:
		return true;
	}
	return bad(why, "unknown message type");
}

/* Is @len the body length of a message of @type (known to the caller)? */
static bool body_len_ok(uint16_t type, uint32_t len)
{
	switch (type) {
	case PP_MSG_HELLO:
		return len == PP_WIRE_HELLO_LEN;
	case PP_MSG_ADDRS:
		return len >= 4 + PP_WIRE_ADDR_LEN && len <= PP_WIRE_MAX_BODY &&
		       (len - 4) % PP_WIRE_ADDR_LEN == 0;
	case PP_MSG_READY:
		return len == 0;
	case PP_MSG_DONE:
		return len == PP_WIRE_DONE_LEN;
	case PP_MSG_ERROR:
		return len == PP_WIRE_ERROR_LEN;
	case PP_MSG_COUNTERS:
		return len > PP_COUNTERS_WIRE_HDR &&
		       len <= PP_COUNTERS_WIRE_MAX;
	case PP_MSG_GIDS:
		return len >= 4 + PP_WIRE_GID_LEN &&
		       len <= PP_WIRE_GIDS_MAX_BODY &&
		       (len - 4) % PP_WIRE_GID_LEN == 0;
	case PP_MSG_ALIVE:
		return len == PP_WIRE_ALIVE_LEN;
	}
	return false;
}

static bool type_known(uint16_t type)
{
	return type >= PP_MSG_HELLO && type <= PP_MSG_ALIVE;
}

size_t pp_wire_body_len(const struct pp_msg *m)
{
	switch (m->type) {
	case PP_MSG_HELLO:
		return PP_WIRE_HELLO_LEN;
	case PP_MSG_ADDRS:
		return 4 + (size_t)PP_WIRE_ADDR_LEN * m->u.addrs.count;
	case PP_MSG_READY:
		return 0;
	case PP_MSG_DONE:
		return PP_WIRE_DONE_LEN;
	case PP_MSG_ERROR:
		return PP_WIRE_ERROR_LEN;
	case PP_MSG_COUNTERS:
		return counters_len(&m->u.counters);
	case PP_MSG_GIDS:
		return 4 + (size_t)PP_WIRE_GID_LEN * m->u.gids.count;
	case PP_MSG_ALIVE:
		return PP_WIRE_ALIVE_LEN;
	}
	return 0;
}

static void put_hello(uint8_t *p, const struct pp_hello *h)
{
	memset(p, 0, PP_WIRE_HELLO_LEN);
	p[HELLO_TOOL] = h->tool;
	p[HELLO_TRANSPORT] = h->transport;
	pp_put_be16(p + HELLO_FLAGS, h->flags);
	p[HELLO_LINK_LAYER] = h->link_layer;
	pp_put_be16(p + HELLO_ACTIVE_MTU, h->active_mtu);
	pp_put_be16(p + HELLO_GID_INDEX, h->gid_index);
	p[HELLO_GID_TYPE] = h->gid_type;
	pp_put_be16(p + HELLO_PEER_GID_INDEX, h->peer_gid_index);
	pp_put_be32(p + HELLO_TIMEOUT_MS, h->timeout_ms);
	pp_put_be16(p + HELLO_NETDEV_MTU, h->netdev_mtu);
	pp_put_be16(p + HELLO_EXPECT_MTU, h->expect_mtu);
#define PUT_NUM(name, opt, type, off, ...) \
	pp_put_be(p + (off), sizeof(h->name), h->name);
	PP_PARAMS(PUT_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef PUT_NUM
}

static void put_addr(uint8_t *p, const struct pp_addr *a)
{
	pp_put_be16(p + ADDR_LID, a->lid);
	pp_put_be16(p + ADDR_RESERVED, 0);
	pp_put_be32(p + ADDR_QPN, a->qpn);
	pp_put_be32(p + ADDR_PSN, a->psn);
	pp_put_be32(p + ADDR_SRQN, a->srqn);
	pp_put_be32(p + ADDR_TGT_QPN, a->tgt_qpn);
	memcpy(p + ADDR_GID, a->gid, sizeof(a->gid));
	pp_put_be32(p + ADDR_RKEY, a->rkey);
	pp_put_be64(p + ADDR_VADDR, a->vaddr);
}

static void put_gids(uint8_t *p, const struct pp_msg *m)
{
	const struct pp_wire_gid *g;
	uint8_t *r;
	uint32_t i;
	size_t n;

	pp_put_be16(p + GIDS_COUNT, (uint16_t)m->u.gids.count);
	pp_put_be16(p + GIDS_RESERVED, 0);
	for (i = 0; i < m->u.gids.count; i++) {
		g = &m->u.gids.g[i];
		r = p + GIDS_FIRST + (size_t)i * PP_WIRE_GID_LEN;
		r[GID_INDEX] = g->index;
		r[GID_TYPE] = g->gid_type;
		pp_put_be16(r + GID_RESERVED, 0);
		n = strnlen(g->netdev, PP_WIRE_NETDEV_LEN);
		memset(r + GID_NETDEV, 0, PP_WIRE_NETDEV_LEN);
		memcpy(r + GID_NETDEV, g->netdev, n);
		memcpy(r + GID_GID, g->gid, sizeof(g->gid));
	}
}

static void put_done(uint8_t *p, const struct pp_done *d)
{
	pp_put_be32(p + DONE_STATUS, d->status);
	pp_put_be32(p + DONE_RESERVED, 0);
	pp_put_be64(p + DONE_COMPLETED, d->completed);
	pp_put_be64(p + DONE_LOST, d->lost);
}

static void put_error(uint8_t *p, const struct pp_error_msg *e)
{
	size_t n = strnlen(e->text, PP_WIRE_TEXT_LEN);

	pp_put_be32(p + ERROR_CODE, e->code);
	memcpy(p + ERROR_TEXT, e->text, n);
	memset(p + ERROR_TEXT + n, 0, PP_WIRE_TEXT_LEN - n);
}

int pp_wire_encode(const struct pp_msg *m, uint8_t *buf, size_t len,
		   size_t *out_len)
{
	const char *why;
	size_t body;
	uint8_t *p;
	uint32_t i;

	if (!msg_ok(m, &why))
		return EINVAL;
	body = pp_wire_body_len(m);
	if (len < PP_WIRE_HDR_LEN + body)
		return ENOSPC;

	pp_put_be32(buf + HDR_MAGIC, PP_WIRE_MAGIC);
	pp_put_be16(buf + HDR_VERSION, PP_WIRE_VERSION);
	pp_put_be16(buf + HDR_TYPE, (uint16_t)m->type);
	pp_put_be32(buf + HDR_LEN, (uint32_t)body);
	p = buf + PP_WIRE_HDR_LEN;

	switch (m->type) {
	case PP_MSG_HELLO:
		put_hello(p, &m->u.hello);
		break;
	case PP_MSG_ADDRS:
		pp_put_be32(p + ADDRS_COUNT, m->u.addrs.count);
		for (i = 0; i < m->u.addrs.count; i++)
			put_addr(p + ADDRS_FIRST + (size_t)i * PP_WIRE_ADDR_LEN,
				 &m->u.addrs.addr[i]);
		break;
	case PP_MSG_READY:
		break;
	case PP_MSG_DONE:
		put_done(p, &m->u.done);
		break;
	case PP_MSG_ERROR:
		put_error(p, &m->u.error);
		break;
	case PP_MSG_COUNTERS: {
		size_t n;

		if (pp_counters_encode(&m->u.counters, p, body, &n) ||
		    n != body)
			return EINVAL;
		break;
	}
	case PP_MSG_GIDS:
		put_gids(p, m);
		break;
	case PP_MSG_ALIVE:
		pp_put_be64(p, m->u.alive.done);
		break;
	}
	*out_len = PP_WIRE_HDR_LEN + body;
	return 0;
}

int pp_wire_decode_hdr(const uint8_t *buf, struct pp_hdr *hdr, const char **why)
{
	hdr->magic = pp_get_be32(buf + HDR_MAGIC);
	hdr->version = pp_get_be16(buf + HDR_VERSION);
	hdr->type = pp_get_be16(buf + HDR_TYPE);
	hdr->len = pp_get_be32(buf + HDR_LEN);

	if (hdr->magic != PP_WIRE_MAGIC) {
		*why = "bad magic";
		return EPROTO;
	}
	if (hdr->version != PP_WIRE_VERSION) {
		*why = "unsupported protocol version";
		return EPROTONOSUPPORT;
	}
	if (!type_known(hdr->type)) {
		*why = "unknown message type";
		return EBADMSG;
	}
	if (!body_len_ok(hdr->type, hdr->len)) {
		*why = "bad length for message type";
		return EBADMSG;
	}
	return 0;
}

static int get_hello(const uint8_t *p, struct pp_hello *h, const char **why)
{
	bool used[PP_WIRE_HELLO_LEN];
	size_t i;

	memset(h, 0, sizeof(*h));
	h->tool = p[HELLO_TOOL];
	h->transport = p[HELLO_TRANSPORT];
	h->flags = pp_get_be16(p + HELLO_FLAGS);
	h->link_layer = p[HELLO_LINK_LAYER];
	h->active_mtu = pp_get_be16(p + HELLO_ACTIVE_MTU);
	h->gid_index = pp_get_be16(p + HELLO_GID_INDEX);
	h->gid_type = p[HELLO_GID_TYPE];
	h->peer_gid_index = pp_get_be16(p + HELLO_PEER_GID_INDEX);
	h->timeout_ms = pp_get_be32(p + HELLO_TIMEOUT_MS);
	h->netdev_mtu = pp_get_be16(p + HELLO_NETDEV_MTU);
	h->expect_mtu = pp_get_be16(p + HELLO_EXPECT_MTU);
#define GET_NUM(name, opt, type, off, ...) \
	h->name = (type)pp_get_be(p + (off), sizeof(h->name));
	PP_PARAMS(GET_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef GET_NUM

	if (!hello_ok(h, why))
		return EPROTO;
	hello_used(used);
	for (i = 0; i < PP_WIRE_HELLO_LEN; i++) {
		if (!used[i] && p[i]) {
			*why = "reserved field not zero";
			return EPROTO;
		}
	}
	return 0;
}

static int get_addrs(const uint8_t *p, uint32_t len, struct pp_msg *m,
		     const char **why)
{
	uint32_t count = pp_get_be32(p + ADDRS_COUNT);
	const uint8_t *r;
	struct pp_addr *a;
	uint32_t i;

	if (!addrs_count_ok(count, why))
		return EPROTO;
	if (count != (len - 4) / PP_WIRE_ADDR_LEN) {
		*why = "count does not match length";
		return EBADMSG;
	}
	m->u.addrs.count = count;
	for (i = 0; i < count; i++) {
		r = p + ADDRS_FIRST + (size_t)i * PP_WIRE_ADDR_LEN;
		a = &m->u.addrs.addr[i];
		memset(a, 0, sizeof(*a));
		a->lid = pp_get_be16(r + ADDR_LID);
		a->qpn = pp_get_be32(r + ADDR_QPN);
		a->psn = pp_get_be32(r + ADDR_PSN);
		a->srqn = pp_get_be32(r + ADDR_SRQN);
		a->tgt_qpn = pp_get_be32(r + ADDR_TGT_QPN);
		memcpy(a->gid, r + ADDR_GID, sizeof(a->gid));
		a->rkey = pp_get_be32(r + ADDR_RKEY);
		a->vaddr = pp_get_be64(r + ADDR_VADDR);
		if (pp_get_be16(r + ADDR_RESERVED)) {
			*why = "reserved field not zero";
			return EPROTO;
		}
		if (!addr_ok(a, why))
			return EPROTO;
	}
	return 0;
}

static int get_gids(const uint8_t *p, uint32_t len, struct pp_msg *m,
		    const char **why)
{
	const uint8_t *r, *nul;
	struct pp_wire_gid *g;
	uint32_t i;
	size_t n;

	m->u.gids.count = pp_get_be16(p + GIDS_COUNT);
	if (m->u.gids.count != (len - 4) / PP_WIRE_GID_LEN) {
		*why = "count does not match length";
		return EBADMSG;
	}
	if (pp_get_be16(p + GIDS_RESERVED)) {
		*why = "reserved field not zero";
		return EPROTO;
	}
	for (i = 0; i < m->u.gids.count; i++) {
		r = p + GIDS_FIRST + (size_t)i * PP_WIRE_GID_LEN;
		g = &m->u.gids.g[i];
		memset(g, 0, sizeof(*g));
		g->index = r[GID_INDEX];
		g->gid_type = r[GID_TYPE];
		nul = memchr(r + GID_NETDEV, 0, PP_WIRE_NETDEV_LEN);
		n = nul ? (size_t)(nul - (r + GID_NETDEV)) : PP_WIRE_NETDEV_LEN;
		memcpy(g->netdev, r + GID_NETDEV, n);
		memcpy(g->gid, r + GID_GID, sizeof(g->gid));
		if (pp_get_be16(r + GID_RESERVED)) {
			*why = "reserved field not zero";
			return EPROTO;
		}
		if (!all_zero(r + GID_NETDEV + n, PP_WIRE_NETDEV_LEN - n)) {
			*why = "netdev not NUL-padded";
			return EPROTO;
		}
	}
	return gids_ok(m, why) ? 0 : EPROTO;
}

static int get_done(const uint8_t *p, struct pp_done *d, const char **why)
{
	memset(d, 0, sizeof(*d));
	d->status = pp_get_be32(p + DONE_STATUS);
	d->completed = pp_get_be64(p + DONE_COMPLETED);
	d->lost = pp_get_be64(p + DONE_LOST);

	if (pp_get_be32(p + DONE_RESERVED)) {
		*why = "reserved field not zero";
		return EPROTO;
	}
	if (!done_ok(d, why))
		return EPROTO;
	return 0;
}

static int get_error(const uint8_t *p, struct pp_error_msg *e, const char **why)
{
	const uint8_t *text = p + ERROR_TEXT;
	const uint8_t *nul = memchr(text, 0, PP_WIRE_TEXT_LEN);
	size_t n = nul ? (size_t)(nul - text) : PP_WIRE_TEXT_LEN;

	memset(e, 0, sizeof(*e));
	e->code = pp_get_be32(p + ERROR_CODE);
	memcpy(e->text, text, n);

	if (!text_ok(e->text, n, why))
		return EPROTO;
	if (!all_zero(text + n, PP_WIRE_TEXT_LEN - n)) {
		*why = "text not NUL-padded";
		return EPROTO;
	}
	return 0;
}

int pp_wire_decode_body(const struct pp_hdr *hdr, const uint8_t *body,
			struct pp_msg *m, const char **why)
{
	/* Only the ERROR body is the same in every version. */
	if (hdr->version != PP_WIRE_VERSION && hdr->type != PP_MSG_ERROR) {
		*why = "unsupported protocol version";
		return EPROTONOSUPPORT;
	}
	if (!type_known(hdr->type)) {
		*why = "unknown message type";
		return EBADMSG;
	}
	if (!body_len_ok(hdr->type, hdr->len)) {
		*why = "bad length for message type";
		return EBADMSG;
	}

	m->type = (enum pp_msg_type)hdr->type;
	switch (m->type) {
	case PP_MSG_HELLO:
		return get_hello(body, &m->u.hello, why);
	case PP_MSG_ADDRS:
		return get_addrs(body, hdr->len, m, why);
	case PP_MSG_READY:
		return 0;
	case PP_MSG_DONE:
		return get_done(body, &m->u.done, why);
	case PP_MSG_ERROR:
		return get_error(body, &m->u.error, why);
	case PP_MSG_COUNTERS:
		return pp_counters_decode(body, hdr->len, &m->u.counters, why);
	case PP_MSG_GIDS:
		return get_gids(body, hdr->len, m, why);
	case PP_MSG_ALIVE:
		m->u.alive.done = pp_get_be64(body);
		return 0;
	}
	return EBADMSG; /* not reached: type_known() */
}
