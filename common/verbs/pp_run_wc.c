// SPDX-License-Identifier: MIT
/*
 * pp_run_wc.c - work requests and their completions: sends posted,
 * receives reposted, each completion taken (errors explained, the variant's
 * hooks called), and our protocol's hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <net/if.h>

#include "pp_clock.h"
#include "pp_explain.h"
#include "pp_pattern.h"
#include "pp_run_wc.h"

uint32_t pp_run_data_off(const struct run *s)
{
	return s->r->tr->datagram ? PP_GRH_LEN : 0;
}

const uint8_t *pp_run_recv_data(const struct run *s, const struct ibv_wc *wc)
{
	return pp_res_recv_data(s->r, wc->wr_id) + pp_run_data_off(s);
}

int pp_run_flush_recv(struct run *s, uint32_t qp_index)
{
	uint32_t n = s->rx_pending;
	int ret;

	s->rx_pending = 0;
	ret = pp_res_post_recv(s->r, qp_index, n);
	if (ret)
		pp_err_set(s->err, "repost receive failed: %s", strerror(ret));
	return ret;
}

/*
 * One receive queue (one QP, or the SRQ) deep enough: reposted
 * PP_RECV_CHAIN at a time, in one verb call; else each one at once.
 */
int pp_run_repost(struct run *s, const struct ibv_wc *wc)
{
	if (++s->rx_pending < s->rx_batch)
		return 0;
	return pp_run_flush_recv(s, PP_WRID_QP(wc->wr_id));
}

int pp_run_check_len(struct run *s, const struct ibv_wc *wc)
{
	uint32_t off = pp_run_data_off(s);

	if (wc->byte_len == s->r->msg_size + off)
		return 0;
	pp_err_set(
		s->err,
		"a message of %u bytes arrived, expected %u (do both sides use the same -s?)",
		wc->byte_len - off, s->r->msg_size);
	return EPROTO;
}
void pp_run_ours_fill(struct run *s, uint32_t seq, bool from_server)
{
	pp_pattern_fill(s->r->send_buf, s->r->msg_size, seq, from_server);
	pp_run_corrupt(s, s->r->send_buf, s->r->msg_size, seq);
}

void pp_run_corrupt(const struct run *s, uint8_t *buf, size_t len, uint64_t seq)
{
	if (s->cfg->corrupt && len && seq == s->cfg->corrupt_seq)
		buf[s->cfg->corrupt_off % len] ^= 0xff;
}

/* -c, ours: is @data the pattern of message @seq from its sender? */
static int check_data(struct run *s, const uint8_t *data, uint32_t seq,
		      bool from_server)
{
	size_t off;

	if (pp_pattern_check(data, s->r->msg_size, seq, from_server, &off))
		return 0;
	pp_err_set(
		s->err,
		"data mismatch in message %u from the %s at byte %zu: expected 0x%02x, got 0x%02x",
		seq, from_server ? "server" : "client", off,
		pp_pattern_byte(off, seq, from_server), data[off]);
	return EILSEQ;
}

/* Ours: message @seq, not a late reply: accept it if it is the one awaited. */
static int take(struct run *s, const struct ibv_wc *wc, uint32_t seq)
{
	int ret = pp_run_check_len(s, wc);

	if (ret)
		return ret;
	if (s->cfg->is_server ? seq >= s->want : seq == s->want) {
		if (s->got && !s->lossy) {
			pp_err_set(
				s->err,
				"message %u arrived before the reply to %u was sent",
				seq, s->got_seq);
			return EPROTO;
		}
		s->got = true;
		s->got_seq = seq;
		s->got_ns = pp_clock_ns();
		if (s->cfg->is_server && !s->lossy && seq != s->want) {
			pp_err_set(
				s->err,
				"message %u arrived while %u was expected (out of order)",
				seq, s->want);
			return EPROTO;
		}
		return s->cfg->validate ? check_data(s, pp_run_recv_data(s, wc),
						     seq, !s->cfg->is_server) :
					  0;
	}
	pp_err_set(s->err, "reply %u arrived while %u was expected", seq,
		   s->want);
	return EPROTO;
}

int pp_run_ours_on_recv(struct run *s, const struct ibv_wc *wc)
{
	uint32_t seq = ntohl(wc->imm_data);
	int ret;

	if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		pp_err_set(
			s->err,
			"a message without its iteration number arrived on QP 0x%06x (is the peer one of this toolkit's tools?)",
			wc->qp_num);
		return EPROTO;
	}
	/* a late reply to a message counted as lost, maybe of another size */
	if (!(s->lossy && seq < s->want)) {
		ret = take(s, wc, seq);
		if (ret)
			return ret;
	}
	/*
	 * Only once the data is checked: with a buffer per receive (-c on a
	 * lossy transport), what lands on this one's buffer next is the
	 * receive posted in its turn, after this (pp_res_recv_wr()).  A
	 * buffer that every receive shares would be overwritten by a message
	 * that came while this one was being checked: a lossy client sends
	 * its next message without a reply, as when this side is stopped.
	 */
	return pp_run_repost(s, wc);
}

void pp_run_ours_on_send(struct run *s, const struct ibv_wc *wc)
{
	(void)wc;
	s->send_busy = false;
}

/*
 * The state of the run's port and of its GID's network device into @ctx
 * (@port and @ndev its buffers): a port or netdev that went down explains a
 * failure best.
 */
static void link_state(struct run *s, struct pp_explain_ctx *ctx, char *port,
		       size_t port_len, char ndev[IF_NAMESIZE])
{
	struct ibv_port_attr pa;

	snprintf(port, port_len, "%s:%u",
		 ibv_get_device_name(s->r->ctx->device), s->r->attr.ib_port);
	ctx->port = port;
	if (!ibv_query_port(s->r->ctx, s->r->attr.ib_port, &pa))
		ctx->port_state = pa.state;
	/* ... or its network device, which it follows a moment late */
	if (ctx->grh &&
	    !pp_qp_gid_netdev(s->r->ctx, s->r->attr.ib_port,
			      (unsigned int)s->r->sgid_index, ndev,
			      &ctx->netdev_state) &&
	    ndev[0])
		ctx->netdev = ndev;
}

bool pp_run_link_down(struct run *s, char *buf, size_t len)
{
	char port[64], ndev[IF_NAMESIZE];
	struct pp_explain_ctx ctx = {
		.grh = s->r->sgid_index >= 0, /* pp_res_connect() */
	};

	link_state(s, &ctx, port, sizeof(port), ndev);
	if ((!ctx.port_state || ctx.port_state == IBV_PORT_ACTIVE) &&
	    !(ctx.netdev && (ctx.netdev_state == PP_NETDEV_DOWN ||
			     ctx.netdev_state == PP_NETDEV_NO_CARRIER)))
		return false;
	pp_explain_wc(IBV_WC_GENERAL_ERR, &ctx, buf, len);
	return true;
}

int pp_run_on_wc(struct run *s, const struct ibv_wc *wc)
{
	bool recv = PP_WRID_IS_RECV(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		char why[320], port[64], ndev[IF_NAMESIZE];
		struct pp_explain_ctx ctx = {
			.recv = recv,
			.grh = s->r->sgid_index >= 0, /* pp_res_connect() */
		};
		uint32_t qp = PP_WRID_QP(wc->wr_id);

		/* a one-sided operation: what it asked of the peer */
		if (pp_op_remote(s->r->attr.op) && qp < s->r->num_qps) {
			ctx.op = pp_op_name(s->r->attr.op);
			ctx.rkey = s->r->remote[qp].rkey;
			ctx.raddr = s->r->remote[qp].vaddr;
			ctx.len = pp_op_atomic(s->r->attr.op) ?
					  PP_OP_ATOMIC_SIZE :
					  s->r->msg_size;
		}
		link_state(s, &ctx, port, sizeof(port), ndev);

		pp_err_set(
			s->err,
			"%s completion failed at iteration %llu: %s (status %d, vendor error 0x%x, QP 0x%06x, wr_id %llu): %s",
			recv   ? "receive" :
			ctx.op ? ctx.op :
				 "send",
			(unsigned long long)s->iter,
			ibv_wc_status_str(wc->status), wc->status,
			wc->vendor_err, wc->qp_num,
			(unsigned long long)wc->wr_id,
			pp_explain_wc(wc->status, &ctx, why, sizeof(why)));
		return EIO;
	}
	if (!recv) {
		s->v->on_send(s, wc);
		return 0;
	}
	s->heard = true;
	return s->v->on_recv(s, wc);
}

int pp_run_post_swr(struct run *s, uint32_t q, uint32_t imm_be)
{
	struct pp_res *r = s->r;
	struct ibv_send_wr *bad;
	bool signaled = ++r->unsignaled >= s->sig_every;
	int ret;

	if (q != s->swr_qp) {
		pp_res_send_wr(r, q, &s->swr, &s->ssge);
		s->swr_qp = q;
	}
	s->swr.imm_data = imm_be;
	if (signaled)
		s->swr.send_flags |= IBV_SEND_SIGNALED;
	else
		s->swr.send_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
	ret = pp_res_post(r, r->qp[q], &s->swr, &bad);
	if (!ret && signaled) {
		r->unsignaled = 0;
		s->send_busy = true;
	}
	return ret;
}

int pp_run_post_send(struct run *s, uint32_t seq)
{
	struct pp_res *r = s->r;
	uint32_t q = r->num_qps > 1 ?
			     (uint32_t)(pp_run_iter_of(s, seq) % r->num_qps) :
			     0;
	int ret = pp_run_post_swr(s, q, htonl(seq));

	if (ret)
		pp_err_set(s->err, "post send at iteration %u failed: %s", seq,
			   strerror(ret));
	return ret;
}

int pp_run_beyond(struct run *s, uint64_t i, uint64_t total)
{
	pp_err_set(s->err, "message %llu arrived, beyond the %llu of the run",
		   (unsigned long long)i, (unsigned long long)total);
	return EPROTO;
}

int pp_run_atomic_bad(struct run *s, uint64_t k, uint64_t old, uint64_t expect)
{
	pp_err_set(
		s->err, "%s %llu returned %llu, expected %llu (%s)",
		pp_op_name(s->r->attr.op), (unsigned long long)k,
		(unsigned long long)old, (unsigned long long)expect,
		s->r->attr.op == PP_OP_CMP_SWAP ?
			"each compare-and-swap finds the value the one before it swapped in" :
			"fetch-and-add k finds k times the addend");
	return EILSEQ;
}
