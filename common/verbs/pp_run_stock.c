// SPDX-License-Identifier: MIT
/*
 * pp_run_stock.c - the loop variant toward a stock rdma-core tool
 * (docs/interop.md): plain sends known by their arrival, the stock -c
 * rule, and the server of a stock srq client.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pp_clock.h"
#include "pp_rdmacore.h"
#include "pp_run_general.h"
#include "pp_run_loop.h"
#include "pp_run_rec.h"
#include "pp_run_stock.h"
#include "pp_run_wait.h"
#include "pp_run_wc.h"

/* Stock srq server: what each QP has in hand (srq_server()). */
struct stock_qp {
	uint32_t waiting;  /* messages that await their reply */
	bool busy;	   /* a reply not completed yet */
	int64_t got_ns;	   /* when the last message arrived */
	int64_t last_send; /* when the last reply was posted; 0: none yet */
};

/* The state of srq_server(), in struct run's priv. */
struct srq_server {
	struct stock_qp *qp; /* per QP */
	uint64_t arrived;    /* messages received */
	uint64_t replied;    /* replies completed */
};

/*
 * -c with a stock peer: its server checks the byte at each page of the last
 * message for 0 (pp_rdmacore_chk_ok()); its replies echo our message.
 * @n: the message's number, for the error line
 */
static int check(struct run *s, uint64_t n)
{
	const uint8_t *data = s->got_data;
	const uint8_t *sent = s->r->send_buf;
	size_t len = s->r->attr.size, off;
	long page = sysconf(_SC_PAGESIZE);

	if (!s->cfg->is_server) {
		for (off = 0; off < len && data[off] == sent[off]; off++)
			;
		if (off == len)
			return 0;
		pp_err_set(
			s->err,
			"reply %llu from the server does not echo the message at byte %zu: sent 0x%02x, got 0x%02x",
			(unsigned long long)n, off, sent[off], data[off]);
		return EILSEQ;
	}
	if (pp_rdmacore_chk_ok(data, len, page > 0 ? (size_t)page : 0, &off))
		return 0;
	pp_err_set(
		s->err,
		"message %llu from the client fails the stock -c check at byte %zu: expected 0x00, got 0x%02x (does the client run with -c?)",
		(unsigned long long)n, off, data[off]);
	return EILSEQ;
}

/* A stock peer's message is known only by its arrival (docs/interop.md). */
static int take(struct run *s, const struct ibv_wc *wc)
{
	struct srq_server *st = s->priv;
	uint64_t n;
	uint32_t q;

	s->got_data = pp_run_recv_data(s, wc);
	if (st) {
		for (q = 0; q < s->r->num_qps; q++)
			if (s->r->qp[q]->qp_num == wc->qp_num)
				break;
		if (q == s->r->num_qps) {
			pp_err_set(s->err,
				   "a message arrived on an unknown QP 0x%06x",
				   wc->qp_num);
			return EPROTO;
		}
		st->qp[q].waiting++;
		st->qp[q].got_ns = pp_clock_ns();
		n = st->arrived++;
		return s->cfg->validate ? check(s, n) : 0;
	}
	if (s->got) {
		pp_err_set(
			s->err,
			"two messages arrived at iteration %llu, where the stock peer keeps one in flight (does it run the command line printed above?)",
			(unsigned long long)s->iter);
		return EPROTO;
	}
	s->got = true;
	s->got_seq = s->want;
	s->got_ns = pp_clock_ns();
	return s->cfg->validate ? check(s, s->iter) : 0;
}

/* The message is checked before its receive is posted again. */
static int on_recv(struct run *s, const struct ibv_wc *wc)
{
	int ret = pp_run_check_len(s, wc);

	if (!ret)
		ret = take(s, wc);
	return ret ? ret : pp_run_repost(s, wc);
}

static void on_send(struct run *s, const struct ibv_wc *wc)
{
	struct srq_server *st = s->priv;

	s->send_busy = false;
	if (st) {
		st->qp[PP_WRID_QP(wc->wr_id)].busy = false;
		st->replied++;
	}
}

/* What a stock peer's buffer holds before the first send. */
static void begin(struct run *s)
{
	struct pp_res *r = s->r;
	bool validate = s->cfg->validate;
	long page = sysconf(_SC_PAGESIZE);

	if (validate)
		pp_rdmacore_chk_fill(r->send_buf, r->attr.size,
				     page > 0 ? (size_t)page : 0);
	else
		memset(r->send_buf, PP_RDMACORE_CHK_FILL, r->attr.size);
}

/*
 * -c: a stock client sends its buffer as filled at the start; a stock
 * server's reply is its buffer: the message it just received.
 */
static void fill(struct run *s, uint32_t seq, bool from_server)
{
	(void)seq;
	if (!from_server)
		return;
	memcpy(s->r->send_buf, s->got_data, s->r->attr.size);
}

/*
 * The server of a stock srq client (docs/interop.md): the client sends on
 * every QP at once and counts completed sends, so up to one message per QP
 * is in hand at a time and a few beyond -n may come.  Reply on the QP each
 * message came in on, once that QP's last reply completed: -n replies in
 * all; then stop when -n messages came and the replies completed.
 */
static int srq_server(struct run *s)
{
	struct srq_server st = { 0 };
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	int64_t start = 0, now;
	uint64_t sent = 0;
	uint32_t q;
	int ret = 0;

	st.qp = calloc(s->r->num_qps, sizeof(*st.qp));
	if (!st.qp) {
		pp_err_set(s->err, "out of memory");
		return ENOMEM;
	}
	s->priv = &st;
	while (st.arrived < cfg->iters || st.replied < cfg->iters) {
		s->iter = sent;
		ret = pp_run_wait_cq(s, INT64_MAX);
		if (ret)
			goto out;
		for (q = 0; q < s->r->num_qps && sent < cfg->iters; q++) {
			struct stock_qp *p = &st.qp[q];

			if (!p->waiting || p->busy)
				continue;
			if (!start)
				start = p->got_ns;
			if (p->last_send)
				pp_run_record(s, p->last_send, p->got_ns);
			if (cfg->validate)
				fill(s, (uint32_t)sent, true);
			now = pp_clock_ns();
			ret = pp_res_post_send(s->r, q, (uint32_t)sent);
			if (ret) {
				pp_err_set(
					s->err,
					"post send at iteration %llu failed: %s",
					(unsigned long long)sent,
					strerror(ret));
				goto out;
			}
			p->waiting--;
			p->busy = true;
			p->last_send = now;
			pp_run_note_post(res, now, NULL);
			sent++;
		}
	}
out:
	now = pp_clock_ns();
	res->completed = st.replied;
	if (start)
		res->seconds = (double)(now - start) / 1e9;
	free(st.qp);
	s->priv = NULL;
	return ret;
}

static int server(struct run *s)
{
	if (s->r->tr->stock_xchg == PP_STOCK_SRQ_RECS)
		return srq_server(s);
	return pp_run_server_loop(s);
}

const struct pp_run_loop pp_run_loop_stock = {
	.begin = begin,
	.on_recv = on_recv,
	.on_send = on_send,
	.fill = fill,
	.client = pp_run_client_loop,
	.server = server,
};
