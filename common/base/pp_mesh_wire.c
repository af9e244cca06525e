// SPDX-License-Identifier: MIT
/*
 * pp_mesh_wire.c - the records of the mesh's meeting at rank 0
 * (pp_mesh_wire.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pp_mesh_env.h"
#include "pp_mesh_sched.h"
#include "pp_mesh_wire.h"

/* A write cursor: @err sticks at the first overflow. */
struct wr {
	uint8_t *p;
	size_t room, used;
	int err;
};

static void put_bytes(struct wr *w, const void *b, size_t n)
{
	if (w->err)
		return;
	if (n > w->room - w->used) {
		w->err = EMSGSIZE;
		return;
	}
	if (n) /* a RESULT without a document has none: NULL */
		memcpy(w->p + w->used, b, n);
	w->used += n;
}

static void put_u(struct wr *w, uint64_t v, unsigned int bytes)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	put_bytes(w, b, bytes);
}

static void put_str(struct wr *w, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n >= max) {
		w->err = w->err ? w->err : EMSGSIZE;
		return;
	}
	put_u(w, n, 2);
	put_bytes(w, s, n);
}

/* A read cursor: @err sticks at the first short or bad field. */
struct rd {
	const uint8_t *p;
	size_t len, at;
	int err;
};

static uint64_t get_u(struct rd *r, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	if (r->err || bytes > r->len - r->at) {
		r->err = EPROTO;
		return 0;
	}
	for (i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->at + i];
	r->at += bytes;
	return v;
}

static bool printable(const uint8_t *s, size_t n, bool newline)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((s[i] < 0x20 && !(newline && s[i] == '\n')) || s[i] == 0x7f)
			return false;
	return true;
}

/* A string field into @out (room @max, NUL included). */
static void get_str(struct rd *r, char *out, size_t max)
{
	size_t n = (size_t)get_u(r, 2);

	if (r->err)
		return;
	if (n >= max || n > r->len - r->at ||
	    !printable(r->p + r->at, n, false)) {
		r->err = EPROTO;
		return;
	}
	memcpy(out, r->p + r->at, n);
	out[n] = '\0';
	r->at += n;
}

int pp_mesh_wire_header(const uint8_t *hdr, uint16_t *type, uint32_t *len)
{
	struct rd r = { .p = hdr, .len = PP_MESH_WIRE_HDR };
	uint32_t magic = (uint32_t)get_u(&r, 4);
	uint16_t ver = (uint16_t)get_u(&r, 2);

	*type = (uint16_t)get_u(&r, 2);
	*len = (uint32_t)get_u(&r, 4);
	if (magic != PP_MESH_WIRE_MAGIC || ver != PP_MESH_WIRE_VERSION ||
	    *type < PP_MESH_JOIN || *type > PP_MESH_END ||
	    *len > PP_MESH_WIRE_MAX)
		return EPROTO;
	return 0;
}

static void enc_body(const struct pp_mesh_msg *m, struct wr *w)
{
	const struct pp_mesh_join *j = &m->u.join;
	const struct pp_mesh_run *rn = &m->u.run;
	const struct pp_mesh_result *rs = &m->u.result;
	const struct pp_mesh_welcome *wl = &m->u.welcome;
	int i;

	switch (m->type) {
	case PP_MESH_JOIN:
		put_u(w, j->want_rank, 4);
		put_u(w, j->size, 4);
		put_u(w, j->tool, 1);
		put_u(w, j->transport, 1);
		put_u(w, j->ib_port, 1);
		put_u(w, j->gid_type, 1);
		put_u(w, j->link_layer, 1);
		put_u(w, j->gid_family, 1);
		put_u(w, (uint16_t)j->gid_index, 2);
		put_u(w, j->active_mtu, 4);
		put_u(w, j->local, 4);
		put_str(w, j->host, sizeof(j->host));
		put_str(w, j->dev, sizeof(j->dev));
		put_str(w, j->gid, sizeof(j->gid));
		put_str(w, j->gid_reason, sizeof(j->gid_reason));
		put_str(w, j->version, sizeof(j->version));
		put_str(w, j->error, sizeof(j->error));
		put_str(w, j->mesh_id, sizeof(j->mesh_id));
		put_u(w, j->netdev_mtu, 4);
		break;
	case PP_MESH_WELCOME:
		put_u(w, wl->rank, 4);
		put_u(w, wl->size, 4);
		put_u(w, wl->pair_ms, 4);
		put_u(w, wl->round_ms, 4);
		break;
	case PP_MESH_REFUSE:
		put_str(w, m->u.text, sizeof(m->u.text));
		break;
	case PP_MESH_RUN:
		put_u(w, rn->round, 4);
		put_u(w, rn->peer, 4);
		put_u(w, rn->role, 1);
		put_u(w, rn->port, 4);
		put_u(w, rn->pair_ms, 4);
		put_u(w, rn->token, 8);
		put_str(w, rn->peer_host, sizeof(rn->peer_host));
		break;
	case PP_MESH_IDLE:
		put_u(w, m->u.round, 4);
		break;
	case PP_MESH_RESULT:
		put_u(w, rs->round, 4);
		put_u(w, rs->peer, 4);
		put_u(w, rs->step, 1);
		put_u(w, rs->remote, 1);
		put_u(w, rs->path_mtu, 4);
		put_u(w, rs->ret, 4);
		put_u(w, rs->completed, 8);
		put_u(w, rs->median_ns, 8);
		put_u(w, (uint16_t)rs->gid_index, 2);
		put_u(w, rs->gid_type, 1);
		put_u(w, rs->gid_family, 1);
		put_str(w, rs->gid, sizeof(rs->gid));
		put_str(w, rs->gid_reason, sizeof(rs->gid_reason));
		put_str(w, rs->reason, sizeof(rs->reason));
		for (i = 0; i < PP_MESH_T_COUNT; i++)
			put_u(w, rs->times_us[i], 4);
		if (rs->doc_len > PP_MESH_DOC_MAX) {
			w->err = EMSGSIZE;
			break;
		}
		put_u(w, rs->doc_len, 4);
		put_bytes(w, rs->doc, rs->doc_len);
		break;
	case PP_MESH_END:
		put_u(w, m->u.end.status, 4);
		put_str(w, m->u.end.text, sizeof(m->u.end.text));
		break;
	default:
		w->err = EINVAL;
	}
}

int pp_mesh_wire_encode(const struct pp_mesh_msg *m, uint8_t *buf, size_t room,
			size_t *len)
{
	struct wr w = { .p = buf, .room = room };
	size_t body;

	put_u(&w, PP_MESH_WIRE_MAGIC, 4);
	put_u(&w, PP_MESH_WIRE_VERSION, 2);
	put_u(&w, m->type, 2);
	put_u(&w, 0, 4); /* the length, below */
	enc_body(m, &w);
	if (w.err)
		return w.err;
	body = w.used - PP_MESH_WIRE_HDR;
	buf[8] = (uint8_t)(body >> 24);
	buf[9] = (uint8_t)(body >> 16);
	buf[10] = (uint8_t)(body >> 8);
	buf[11] = (uint8_t)body;
	*len = w.used;
	return 0;
}

static void dec_join(struct rd *r, struct pp_mesh_join *j)
{
	j->want_rank = (uint32_t)get_u(r, 4);
	j->size = (uint32_t)get_u(r, 4);
	j->tool = (uint8_t)get_u(r, 1);
	j->transport = (uint8_t)get_u(r, 1);
	j->ib_port = (uint8_t)get_u(r, 1);
	j->gid_type = (uint8_t)get_u(r, 1);
	j->link_layer = (uint8_t)get_u(r, 1);
	j->gid_family = (uint8_t)get_u(r, 1);
	j->gid_index = (int16_t)(uint16_t)get_u(r, 2);
	j->active_mtu = (uint32_t)get_u(r, 4);
	j->local = (uint32_t)get_u(r, 4);
	get_str(r, j->host, sizeof(j->host));
	get_str(r, j->dev, sizeof(j->dev));
	get_str(r, j->gid, sizeof(j->gid));
	get_str(r, j->gid_reason, sizeof(j->gid_reason));
	get_str(r, j->version, sizeof(j->version));
	get_str(r, j->error, sizeof(j->error));
	get_str(r, j->mesh_id, sizeof(j->mesh_id));
	j->netdev_mtu = (uint32_t)get_u(r, 4);
	if (r->err)
		return;
	if ((j->want_rank != PP_MESH_RANK_ANY &&
	     j->want_rank >= PP_MESH_MAX_RANKS) ||
	    j->size < 2 || j->size > PP_MESH_MAX_RANKS || j->local >= j->size ||
	    !j->host[0] || !j->mesh_id[0] || j->gid_index < -1 ||
	    j->active_mtu > 4096)
		r->err = EPROTO;
}

static void dec_result(struct rd *r, struct pp_mesh_result *rs)
{
	uint8_t flags;
	int i;

	rs->round = (uint32_t)get_u(r, 4);
	rs->peer = (uint32_t)get_u(r, 4);
	rs->step = (uint8_t)get_u(r, 1);
	flags = (uint8_t)get_u(r, 1);
	rs->remote = flags & 1;
	rs->path_mtu = (uint32_t)get_u(r, 4);
	rs->ret = (uint32_t)get_u(r, 4);
	rs->completed = get_u(r, 8);
	rs->median_ns = get_u(r, 8);
	rs->gid_index = (int16_t)(uint16_t)get_u(r, 2);
	rs->gid_type = (uint8_t)get_u(r, 1);
	rs->gid_family = (uint8_t)get_u(r, 1);
	get_str(r, rs->gid, sizeof(rs->gid));
	get_str(r, rs->gid_reason, sizeof(rs->gid_reason));
	get_str(r, rs->reason, sizeof(rs->reason));
	for (i = 0; i < PP_MESH_T_COUNT; i++)
		rs->times_us[i] = (uint32_t)get_u(r, 4);
	rs->doc_len = (uint32_t)get_u(r, 4);
	if (r->err)
		return;
	if (rs->doc_len > PP_MESH_DOC_MAX || rs->doc_len > r->len - r->at ||
	    !printable(r->p + r->at, rs->doc_len, true)) {
		r->err = EPROTO;
		return;
	}
	rs->doc = (const char *)r->p + r->at;
	r->at += rs->doc_len;
	/* MTU and SLOW are rank 0's judgement, never a side's step */
	if (rs->step >= PP_MESH_MTU || (flags & ~1u) || rs->gid_index < -1 ||
	    rs->peer >= PP_MESH_MAX_RANKS || rs->path_mtu > 4096)
		r->err = EPROTO;
}

int pp_mesh_wire_decode(uint16_t type, const uint8_t *body, size_t len,
			struct pp_mesh_msg *m)
{
	struct rd r = { .p = body, .len = len };

	memset(m, 0, sizeof(*m));
	m->type = type;
	switch (type) {
	case PP_MESH_JOIN:
		dec_join(&r, &m->u.join);
		break;
	case PP_MESH_WELCOME:
		m->u.welcome.rank = (uint32_t)get_u(&r, 4);
		m->u.welcome.size = (uint32_t)get_u(&r, 4);
		m->u.welcome.pair_ms = (uint32_t)get_u(&r, 4);
		m->u.welcome.round_ms = (uint32_t)get_u(&r, 4);
		if (!r.err && (m->u.welcome.size < 2 ||
			       m->u.welcome.size > PP_MESH_MAX_RANKS ||
			       m->u.welcome.rank >= m->u.welcome.size))
			r.err = EPROTO;
		break;
	case PP_MESH_REFUSE:
		get_str(&r, m->u.text, sizeof(m->u.text));
		break;
	case PP_MESH_RUN:
		m->u.run.round = (uint32_t)get_u(&r, 4);
		m->u.run.peer = (uint32_t)get_u(&r, 4);
		m->u.run.role = (uint8_t)get_u(&r, 1);
		m->u.run.port = (uint32_t)get_u(&r, 4);
		m->u.run.pair_ms = (uint32_t)get_u(&r, 4);
		m->u.run.token = get_u(&r, 8);
		get_str(&r, m->u.run.peer_host, sizeof(m->u.run.peer_host));
		if (!r.err &&
		    (m->u.run.role > 3 || !m->u.run.port ||
		     m->u.run.port > 65535 || !m->u.run.peer_host[0] ||
		     m->u.run.peer >= PP_MESH_MAX_RANKS))
			r.err = EPROTO;
		break;
	case PP_MESH_IDLE:
		m->u.round = (uint32_t)get_u(&r, 4);
		break;
	case PP_MESH_RESULT:
		dec_result(&r, &m->u.result);
		break;
	case PP_MESH_END:
		m->u.end.status = (uint32_t)get_u(&r, 4);
		get_str(&r, m->u.end.text, sizeof(m->u.end.text));
		if (!r.err && m->u.end.status > 255)
			r.err = EPROTO;
		break;
	default:
		return EPROTO;
	}
	if (!r.err && r.at != len)
		r.err = EPROTO; /* bytes left over */
	return r.err;
}

static const struct {
	const char *name, *text;
} codes[PP_MESH_CODE_COUNT] = {
	[PP_MESH_OK] = { "ok", "passed" },
	[PP_MESH_CONNECT] = { "CONN", "connect (TCP, HELLO, ADDRS or READY)" },
	[PP_MESH_RTR] = { "RTR", "a QP's move to RTR" },
	[PP_MESH_RTS] = { "RTS", "a QP's move to RTS" },
	[PP_MESH_FIRST] = { "1ST",
			    "the first completion failed or never came" },
	[PP_MESH_RUN_FAIL] = { "RUN", "a later completion failed" },
	[PP_MESH_DATA] = { "DATA", "data check (-c) found a mismatch" },
	[PP_MESH_TIMEOUT] = { "TIME", "the pair did not end within its bound" },
	[PP_MESH_GONE] = { "GONE",
			   "a rank of the pair died or stopped answering" },
	[PP_MESH_ABSENT] = { "ABSENT", "a rank of the pair never joined" },
	[PP_MESH_DEVICE] = { "DEV",
			     "the RDMA device or port could not be opened" },
	[PP_MESH_MTU] = { "MTU", "the path MTU is below --expect-mtu" },
	[PP_MESH_SLOW] = { "SLOW", "the median is above --max-rtt" },
};

const char *pp_mesh_code_name(unsigned int code)
{
	return code < PP_MESH_CODE_COUNT ? codes[code].name : "?";
}

const char *pp_mesh_code_text(unsigned int code)
{
	return code < PP_MESH_CODE_COUNT ? codes[code].text : "?";
}

bool pp_mesh_code_ran(unsigned int code)
{
	return code == PP_MESH_OK || pp_mesh_code_flagged(code);
}

bool pp_mesh_code_flagged(unsigned int code)
{
	return code == PP_MESH_MTU || code == PP_MESH_SLOW;
}

static const struct {
	const char *key, *text;
} times[PP_MESH_T_COUNT] = {
	[PP_MESH_T_START] = { "start", "process start" },
	[PP_MESH_T_DEVICE] = { "device", "device open" },
	[PP_MESH_T_HANDSHAKE] = { "handshake", "handshake" },
	[PP_MESH_T_QP] = { "qp", "QP bring-up" },
	[PP_MESH_T_LOOP] = { "loop", "loop" },
};

const char *pp_mesh_time_name(unsigned int t, bool text)
{
	if (t >= PP_MESH_T_COUNT)
		return "?";
	return text ? times[t].text : times[t].key;
}
