// SPDX-License-Identifier: MIT
/*
 * pp_run.c - the ping-pong loop, for every transport.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "pp_clock.h"
#include "pp_rdmacore.h"
#include "pp_explain.h"
#include "pp_run.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_time.h"

#define PP_POLL_BATCH 16
#define PP_SPINS_PER_CLOCK 256 /* empty polls between clock reads */
#define PP_PEEK_NS 1000000LL   /* look at the socket once a ms */
#define PP_RUN_PEER_DONE (-1)  /* internal: the peer's DONE came */

/* Stock srq server: what each QP has in hand (run_stock_srq_server()). */
struct stock_qp {
	uint32_t waiting;  /* messages that await their reply */
	bool busy;	   /* a reply not completed yet */
	int64_t got_ns;	   /* when the last message arrived */
	int64_t last_send; /* when the last reply was posted; 0: none yet */
};

struct run {
	struct pp_res *r;
	const struct pp_conn *c;
	const struct pp_run_cfg *cfg;
	struct pp_run_result *res;
	struct pp_err *err;
	bool lossy; /* UD: a message may never come */
	int64_t progress_deadline;
	int64_t next_peek;
	uint64_t iter;	/* for messages: the iteration under way */
	bool send_busy; /* a send not completed yet */
	uint32_t want;	/* client: the reply awaited; server: the
				   lowest message number still acceptable */
	bool got;	/* a wanted message has arrived */
	uint32_t got_seq;
	int64_t got_ns;
	bool heard;	     /* a receive completed in the last batch */
	struct stock_qp *sq; /* stock srq server only: per QP */
	uint64_t arrived;    /* ... messages received */
	uint64_t replied;    /* ... replies completed */
};

/* pp_deadline() on the loop's clock (pp_clock.h). */
static int64_t clock_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return INT64_MAX;
	return pp_clock_ns() + (int64_t)timeout_ms * 1000000;
}

/*
 * A round trip from two readings of the clock.  Should the thread move
 * between them to a CPU whose cycle counter lags by more than the round
 * trip (not seen on synchronised counters), the difference is negative: 0
 * then, not 2^64 - x.
 */
static uint64_t sample_ns(int64_t from, int64_t to)
{
	return to > from ? (uint64_t)(to - from) : 0;
}

uint8_t pp_pattern_byte(size_t off, uint64_t seq, bool from_server)
{
	uint64_t x = off * 7 + (off >> 8) * 13 + seq * 29 +
		     (from_server ? 101 : 0) + 1;

	return (uint8_t)x;
}

void pp_pattern_fill(uint8_t *buf, size_t len, uint64_t seq, bool from_server)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pp_pattern_byte(i, seq, from_server);
}

bool pp_pattern_check(const uint8_t *buf, size_t len, uint64_t seq,
		      bool from_server, size_t *bad_off)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != pp_pattern_byte(i, seq, from_server)) {
			*bad_off = i;
			return false;
		}
	}
	return true;
}

int pp_run_prepare(struct pp_res *r, struct pp_err *err)
{
	bool shared = r->srq != NULL;
	uint32_t i;
	int ret;

	if (r->channel) {
		int fl = fcntl(r->channel->fd, F_GETFL);

		if (fl < 0 ||
		    fcntl(r->channel->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
			ret = errno;
			pp_err_set(err, "completion channel: %s",
				   strerror(ret));
			return ret;
		}
	}
	for (i = 0; i < (shared ? 1 : r->num_qps); i++) {
		ret = pp_res_post_recv(r, i, r->attr.rx_depth);
		if (ret) {
			pp_err_set(err, "post %u receives failed: %s",
				   r->attr.rx_depth, strerror(ret));
			return ret;
		}
	}
	return 0;
}

void pp_run_free(struct pp_run_result *res)
{
	free(res->samples);
	res->samples = NULL;
	res->nsamples = 0;
}

static uint32_t data_off(const struct run *s)
{
	return s->r->attr.transport == PP_TR_UD ? PP_GRH_LEN : 0;
}

/* A stock peer's message is known only by its arrival (docs/interop.md). */
static int on_recv_stock(struct run *s, const struct ibv_wc *wc)
{
	uint32_t q;

	if (s->sq) {
		for (q = 0; q < s->r->num_qps; q++)
			if (s->r->qp[q]->qp_num == wc->qp_num)
				break;
		if (q == s->r->num_qps) {
			pp_err_set(s->err,
				   "a message arrived on an unknown QP 0x%06x",
				   wc->qp_num);
			return EPROTO;
		}
		s->sq[q].waiting++;
		s->sq[q].got_ns = pp_clock_ns();
		s->arrived++;
		return 0;
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
	return 0;
}

static int on_recv(struct run *s, const struct ibv_wc *wc)
{
	uint32_t qi = PP_WRID_QP(wc->wr_id);
	uint32_t want_len = s->r->msg_size + data_off(s);
	uint32_t seq = ntohl(wc->imm_data);
	int ret;

	if (!s->cfg->stock && !(wc->wc_flags & IBV_WC_WITH_IMM)) {
		pp_err_set(
			s->err,
			"a message without its iteration number arrived on QP 0x%06x (is the peer one of this toolkit's tools?)",
			wc->qp_num);
		return EPROTO;
	}
	ret = pp_res_post_recv(s->r, qi, 1);
	if (ret) {
		pp_err_set(s->err, "repost receive failed: %s", strerror(ret));
		return ret;
	}
	/* a late reply to a message counted as lost, maybe of another size */
	if (!s->cfg->stock && s->lossy && seq < s->want)
		return 0;
	if (wc->byte_len != want_len) {
		pp_err_set(
			s->err,
			"a message of %u bytes arrived, expected %u (do both sides use the same -s?)",
			wc->byte_len - data_off(s), want_len - data_off(s));
		return EPROTO;
	}
	if (s->cfg->stock)
		return on_recv_stock(s, wc);
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
		return 0;
	}
	pp_err_set(s->err, "reply %u arrived while %u was expected", seq,
		   s->want);
	return EPROTO;
}

static int on_wc(struct run *s, const struct ibv_wc *wc)
{
	bool recv = PP_WRID_IS_RECV(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		char why[320], port[64];
		struct pp_explain_ctx ctx = {
			.recv = recv,
			.grh = s->r->attr.use_grh,
			.port = port,
		};
		struct ibv_port_attr pa;

		/* a port that went down explains the failure best */
		snprintf(port, sizeof(port), "%s:%u",
			 ibv_get_device_name(s->r->ctx->device),
			 s->r->attr.ib_port);
		if (!ibv_query_port(s->r->ctx, s->r->attr.ib_port, &pa))
			ctx.port_state = pa.state;

		pp_err_set(
			s->err,
			"%s completion failed at iteration %llu: %s (status %d, vendor error 0x%x, QP 0x%06x, wr_id %llu): %s",
			recv ? "receive" : "send", (unsigned long long)s->iter,
			ibv_wc_status_str(wc->status), wc->status,
			wc->vendor_err, wc->qp_num,
			(unsigned long long)wc->wr_id,
			pp_explain_wc(wc->status, &ctx, why, sizeof(why)));
		return EIO;
	}
	if (!recv) {
		s->send_busy = false;
		if (s->sq) {
			s->sq[PP_WRID_QP(wc->wr_id)].busy = false;
			s->replied++;
		}
		return 0;
	}
	s->heard = true;
	return on_recv(s, wc);
}

/* The peer said something during the run: DONE ends it, ERROR fails it. */
static int peek_peer(struct run *s)
{
	struct pp_msg m;
	int ret;

	ret = pp_hs_recv(s->c, PP_MSG_DONE, &m, s->err);
	if (!ret) {
		s->res->peer_done = true;
		s->res->peer_result = m.u.done;
		return PP_RUN_PEER_DONE;
	}
	if (ret == ECONNRESET)
		pp_err_set(
			s->err,
			"the %s closed the connection during the run, at iteration %llu of %llu",
			pp_peer_name(s->c), (unsigned long long)s->iter,
			(unsigned long long)s->cfg->iters);
	return ret;
}

static int timed_out(struct run *s)
{
	if (s->lossy && !s->cfg->is_server) {
		pp_err_set(
			s->err,
			"no reply from the server for %d ms, at iteration %llu of %llu (%llu lost; is the server still running? raise -T/--timeout on slow links)",
			s->cfg->timeout_ms, (unsigned long long)s->iter,
			(unsigned long long)s->cfg->iters,
			(unsigned long long)s->res->lost);
		return ETIMEDOUT;
	}
	pp_err_set(
		s->err,
		"nothing completed for %d ms, at iteration %llu of %llu (is the %s still running? raise -T/--timeout on slow links)",
		s->cfg->timeout_ms, (unsigned long long)s->iter,
		(unsigned long long)s->cfg->iters, pp_peer_name(s->c));
	return ETIMEDOUT;
}

/* SIGINT or SIGTERM: stop where the run is (pp_signal.h). */
static int interrupted(struct run *s)
{
	pp_err_set(s->err, "interrupted by %s at iteration %llu of %llu",
		   pp_signal_name(pp_signal_caught()),
		   (unsigned long long)s->iter,
		   (unsigned long long)s->cfg->iters);
	return ECANCELED;
}

static int poll_batch(struct run *s)
{
	struct ibv_wc wc[PP_POLL_BATCH];
	int n, i, ret;

	n = ibv_poll_cq(s->r->cq, PP_POLL_BATCH, wc);
	if (n < 0) {
		pp_err_set(s->err, "poll CQ failed");
		return EIO;
	}
	s->heard = false;
	for (i = 0; i < n; i++) {
		ret = on_wc(s, &wc[i]);
		if (ret)
			return ret;
	}
	/*
	 * A UD send completes whether or not anyone receives it: on the
	 * lossy client only a reply shows that the server is still there.
	 */
	if (n && (s->heard || !s->lossy || s->cfg->is_server))
		s->progress_deadline = clock_deadline(s->cfg->timeout_ms);
	return n ? 0 : EAGAIN;
}

/* Sleep on the completion channel and the socket until @until. */
static int wait_event(struct run *s, int64_t until)
{
	struct pollfd pfd[2] = {
		{ .fd = s->r->channel->fd, .events = POLLIN },
		{ .fd = s->c->fd, .events = POLLIN },
	};
	int64_t left = until - pp_clock_ns();
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret;

	if (left <= 0)
		return ETIME;
	if (pp_signal_caught())
		return 0; /* wait_cq() looks at it next */
	ret = poll(pfd, 2, (int)((left + 999999) / 1000000));
	if (ret < 0)
		return errno == EINTR ? 0 : errno;
	if (pfd[1].revents)
		return peek_peer(s);
	if (!pfd[0].revents)
		return 0;
	if (ibv_get_cq_event(s->r->channel, &cq, &cq_ctx))
		return errno == EAGAIN ? 0 : errno;
	ibv_ack_cq_events(cq, 1);
	ret = ibv_req_notify_cq(cq, 0);
	if (ret)
		pp_err_set(s->err, "arm CQ notification failed: %s",
			   strerror(ret));
	return ret;
}

/*
 * Process at least one completion.  Return 0; ETIME when @loss_deadline
 * passed first; PP_RUN_PEER_DONE; or an error.
 */
static int wait_cq(struct run *s, int64_t loss_deadline)
{
	unsigned int spins = 0;
	int64_t now;
	int ret;

	for (;;) {
		ret = poll_batch(s);
		if (ret != EAGAIN)
			return ret;
		if (!s->cfg->use_event && ++spins % PP_SPINS_PER_CLOCK)
			continue;
		now = pp_clock_ns();
		if (pp_signal_caught())
			return interrupted(s);
		if (now >= loss_deadline)
			return ETIME;
		if (now >= s->progress_deadline)
			return timed_out(s);
		if (s->cfg->use_event) {
			int64_t until = loss_deadline < s->progress_deadline ?
						loss_deadline :
						s->progress_deadline;

			ret = wait_event(s, until);
			if (ret && ret != ETIME)
				return ret;
			continue;
		}
		if (now >= s->next_peek) {
			s->next_peek = now + PP_PEEK_NS;
			if (pp_sock_readable(s->c->fd)) {
				ret = peek_peer(s);
				if (ret)
					return ret;
			}
		}
	}
}

/*
 * -c with a stock peer: its server checks the byte at each page of the last
 * message for 0 (pp_rdmacore_chk_ok()); its replies echo our message.
 */
static int check_stock(struct run *s, uint64_t seq, bool from_server)
{
	const uint8_t *data = s->r->recv_buf + data_off(s);
	const uint8_t *sent = s->r->send_buf;
	size_t len = s->r->attr.size, off;
	long page = sysconf(_SC_PAGESIZE);

	if (from_server) {
		for (off = 0; off < len && data[off] == sent[off]; off++)
			;
		if (off == len)
			return 0;
		pp_err_set(
			s->err,
			"reply %llu from the server does not echo the message at byte %zu: sent 0x%02x, got 0x%02x",
			(unsigned long long)seq, off, sent[off], data[off]);
		return EILSEQ;
	}
	if (pp_rdmacore_chk_ok(data, len, page > 0 ? (size_t)page : 0, &off))
		return 0;
	pp_err_set(
		s->err,
		"message %llu from the client fails the stock -c check at byte %zu: expected 0x00, got 0x%02x (does the client run with -c?)",
		(unsigned long long)seq, off, data[off]);
	return EILSEQ;
}

/* What a stock peer's buffer holds before the first send. */
static void stock_fill(struct pp_res *r, bool validate)
{
	long page = sysconf(_SC_PAGESIZE);

	if (validate)
		pp_rdmacore_chk_fill(r->send_buf, r->attr.size,
				     page > 0 ? (size_t)page : 0);
	else
		memset(r->send_buf, PP_RDMACORE_CHK_FILL, r->attr.size);
}

/* A stock server's reply is its buffer: the message it just received. */
static void stock_echo(struct run *s)
{
	memcpy(s->r->send_buf, s->r->recv_buf + data_off(s), s->r->attr.size);
}

static int check_data(struct run *s, uint32_t seq, bool from_server)
{
	const uint8_t *data = s->r->recv_buf + data_off(s);
	size_t off;

	if (s->cfg->stock)
		return check_stock(s, seq, from_server);
	if (pp_pattern_check(data, s->r->msg_size, seq, from_server, &off))
		return 0;
	pp_err_set(
		s->err,
		"data mismatch in message %u from the %s at byte %zu: expected 0x%02x, got 0x%02x",
		seq, from_server ? "server" : "client", off,
		pp_pattern_byte(off, seq, from_server), data[off]);
	return EILSEQ;
}

/*
 * A measured send took @from to @to inside ibv_post_send(): on a NIC the
 * doorbell, on Soft-RoCE the protocol work too (docs/measurement.md).
 */
static void note_post(struct pp_run_result *res, int64_t from, int64_t to)
{
	uint64_t ns = sample_ns(from, to);

	res->posts++;
	res->post_ns += ns;
	if (ns > res->post_max_ns)
		res->post_max_ns = ns;
}

/* The iteration that message @seq belongs to, counted from the warm-up. */
static uint64_t iter_of(const struct run *s, uint32_t seq)
{
	return (uint32_t)(seq - s->cfg->first_seq);
}

static int post_send(struct run *s, uint32_t seq)
{
	int ret;

	ret = pp_res_post_send(
		s->r, (uint32_t)(iter_of(s, seq) % s->r->num_qps), seq);
	if (ret) {
		pp_err_set(s->err, "post send at iteration %u failed: %s", seq,
			   strerror(ret));
		return ret;
	}
	s->send_busy = true;
	return 0;
}

static int wait_send(struct run *s)
{
	int ret;

	while (s->send_busy) {
		ret = wait_cq(s, INT64_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

static int run_client(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t t0, start = 0, end = INT64_MAX, lost_ns = 0;
	uint32_t seq;
	bool measured;
	int ret;

	for (i = 0; i < total; i++) {
		seq = cfg->first_seq + (uint32_t)i;
		measured = i >= cfg->warmup;
		s->iter = i;
		if (pp_signal_caught())
			return interrupted(s);
		if (cfg->validate && !cfg->stock)
			pp_pattern_fill(s->r->send_buf, s->r->msg_size, seq,
					false);
		s->want = seq;
		s->got = false;
		t0 = pp_clock_ns();
		if (i == cfg->warmup) {
			start = t0;
			if (cfg->duration_ns)
				end = t0 + cfg->duration_ns;
		} else if (t0 >= end) {
			break; /* -D: time is up */
		}
		ret = post_send(s, seq);
		if (ret)
			return ret;
		if (measured)
			note_post(res, t0, pp_clock_ns());
		while (!s->got) {
			ret = wait_cq(
				s, s->lossy ?
					   t0 + (int64_t)cfg->loss_timeout_ms *
							   1000000 :
					   INT64_MAX);
			if (ret == ETIME)
				break;
			if (ret)
				return ret;
		}
		ret = wait_send(s);
		if (ret)
			return ret;
		if (!s->got) {
			/* the time spent waiting in vain is not run time */
			if (measured)
				lost_ns += pp_clock_ns() - t0;
			res->lost++;
			continue;
		}
		if (measured) {
			res->samples[res->nsamples++] =
				sample_ns(t0, s->got_ns);
			res->completed++;
			res->seconds =
				(double)(s->got_ns - start - lost_ns) / 1e9;
		}
		if (cfg->validate) {
			ret = check_data(s, seq, true);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int run_server(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t start = 0, last_send = 0, lost_ns = 0;
	/* UD: a wait this long had the client give up on an iteration */
	int64_t abandoned_ns = cfg->loss_timeout_ms > 0 ?
				       (int64_t)cfg->loss_timeout_ms * 500000 :
				       INT64_MAX;
	uint32_t seq;
	int ret = 0;

	s->want = cfg->first_seq;
	for (;;) {
		s->iter = iter_of(s, s->want);
		if (pp_signal_caught()) {
			ret = interrupted(s);
			goto out;
		}
		s->got = false;
		while (!s->got) {
			ret = wait_cq(s, INT64_MAX);
			if (ret)
				goto out;
		}
		seq = s->got_seq;
		i = iter_of(s, seq);
		if (i >= total) {
			pp_err_set(
				s->err,
				"message %llu arrived, beyond the %llu of the run",
				(unsigned long long)i,
				(unsigned long long)total);
			ret = EPROTO;
			goto out;
		}
		if (i > cfg->warmup && last_send) {
			/*
			 * UD: a message lost on its way here (a gap in the
			 * numbers), or a wait of half the client's deadline or
			 * more (the reply was lost and the client waited in
			 * vain), is no round trip and not run time, as on the
			 * client.
			 */
			if (seq != s->want ||
			    s->got_ns - last_send >= abandoned_ns)
				lost_ns += s->got_ns - last_send;
			else
				res->samples[res->nsamples++] =
					sample_ns(last_send, s->got_ns);
		} else if (i >= cfg->warmup && !start) {
			start = s->got_ns;
		}
		if (cfg->validate) {
			ret = check_data(s, seq, false);
			if (ret)
				goto out;
		}
		ret = wait_send(s);
		if (ret)
			goto out;
		if (cfg->validate && cfg->stock)
			stock_echo(s);
		else if (cfg->validate)
			pp_pattern_fill(s->r->send_buf, s->r->msg_size, seq,
					true);
		last_send = pp_clock_ns();
		ret = post_send(s, seq);
		if (ret)
			goto out;
		if (i >= cfg->warmup) {
			note_post(res, last_send, pp_clock_ns());
			res->completed++;
		}
		s->want = seq + 1;
		if (i + 1 >= total)
			break;
	}
	ret = wait_send(s);
	if (!ret)
		last_send = pp_clock_ns();
out:
	/*
	 * From the first measured message to the last reply: a run that the
	 * client's DONE or an error ended does not count the wait for it.
	 */
	if (start && last_send > start + lost_ns)
		res->seconds = (double)(last_send - start - lost_ns) / 1e9;
	return ret;
}

/*
 * The server of a stock srq client (docs/interop.md): the client sends on
 * every QP at once and counts completed sends, so up to one message per QP
 * is in hand at a time and a few beyond -n may come.  Reply on the QP each
 * message came in on, once that QP's last reply completed: -n replies in
 * all; then stop when -n messages came and the replies completed.
 */
static int run_stock_srq_server(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	int64_t start = 0, now;
	uint64_t sent = 0;
	uint32_t q;
	int ret = 0;

	s->sq = calloc(s->r->num_qps, sizeof(*s->sq));
	if (!s->sq) {
		pp_err_set(s->err, "out of memory");
		return ENOMEM;
	}
	while (s->arrived < cfg->iters || s->replied < cfg->iters) {
		s->iter = sent;
		ret = wait_cq(s, INT64_MAX);
		if (ret)
			goto out;
		for (q = 0; q < s->r->num_qps && sent < cfg->iters; q++) {
			struct stock_qp *p = &s->sq[q];

			if (!p->waiting || p->busy)
				continue;
			if (!start)
				start = p->got_ns;
			if (p->last_send)
				res->samples[res->nsamples++] =
					sample_ns(p->last_send, p->got_ns);
			if (cfg->validate) {
				ret = check_data(s, (uint32_t)sent, false);
				if (ret)
					goto out;
				stock_echo(s);
			}
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
			note_post(res, now, pp_clock_ns());
			sent++;
		}
	}
out:
	now = pp_clock_ns();
	res->completed = s->replied;
	if (start)
		res->seconds = (double)(now - start) / 1e9;
	free(s->sq);
	s->sq = NULL;
	return ret;
}

int pp_run_loss_timeout_ms(int timeout_ms)
{
	int ms = timeout_ms / 5;

	if (ms > PP_LOSS_TIMEOUT_MAX_MS)
		ms = PP_LOSS_TIMEOUT_MAX_MS;
	return ms > 0 ? ms : 1;
}

int pp_run(struct pp_res *r, const struct pp_conn *c,
	   const struct pp_run_cfg *cfg, struct pp_run_result *res,
	   struct pp_err *err)
{
	struct run s;
	int ret;

	pp_clock_init();
	s = (struct run){
		.r = r,
		.c = c,
		.cfg = cfg,
		.res = res,
		.err = err,
		.lossy = r->attr.transport == PP_TR_UD &&
			 cfg->loss_timeout_ms > 0,
		.progress_deadline = clock_deadline(cfg->timeout_ms),
		.next_peek = pp_clock_ns() + PP_PEEK_NS,
	};

	memset(res, 0, sizeof(*res));
	res->size = r->msg_size;
	res->samples = calloc(cfg->iters, sizeof(*res->samples));
	if (!res->samples) {
		pp_err_set(
			err,
			"cannot keep %llu round-trip samples in memory (lower -n or -D)",
			(unsigned long long)cfg->iters);
		return ENOMEM;
	}
	if (cfg->stock)
		stock_fill(r, cfg->validate);
	if (cfg->stock && cfg->is_server && r->attr.transport == PP_TR_SRQ)
		ret = run_stock_srq_server(&s);
	else
		ret = cfg->is_server ? run_server(&s) : run_client(&s);
	if (ret == PP_RUN_PEER_DONE)
		ret = 0;
	/* -D reserved room for the fastest device: give back the rest */
	if (res->nsamples < cfg->iters) {
		uint64_t *smaller = realloc(
			res->samples, (res->nsamples ? res->nsamples : 1) *
					      sizeof(*res->samples));

		if (smaller)
			res->samples = smaller;
	}
	return ret;
}
