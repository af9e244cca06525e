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
#include "pp_explain.h"
#include "pp_run_loop.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_time.h"

#define PP_POLL_BATCH 16
#define PP_SPINS_PER_CLOCK 256 /* empty polls between clock reads */
#define PP_PEEK_NS 1000000LL   /* look at the socket once a ms */

/* pp_deadline() on the loop's clock (pp_clock.h). */
static int64_t clock_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return INT64_MAX;
	return pp_clock_ns() + (int64_t)timeout_ms * 1000000;
}

/*
 * Should the thread move between the two readings to a CPU whose cycle
 * counter lags by more than the round trip (not seen on synchronised
 * counters), the difference is negative: 0 then, not 2^64 - x.
 */
uint64_t pp_run_sample_ns(int64_t from, int64_t to)
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
	/* read: the server's data, there before the client's first read */
	if (r->attr.op == PP_OP_READ && r->attr.is_server)
		pp_pattern_fill(r->send_buf, r->attr.size, PP_READ_SEQ, true);
	/* write, read, atomics: nothing is received */
	for (i = 0;
	     pp_op_uses_recv(r->attr.op) && i < (shared ? 1 : r->num_qps);
	     i++) {
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

uint32_t pp_run_data_off(const struct run *s)
{
	return s->r->tr->datagram ? PP_GRH_LEN : 0;
}

int pp_run_repost(struct run *s, const struct ibv_wc *wc)
{
	int ret = pp_res_post_recv(s->r, PP_WRID_QP(wc->wr_id), 1);

	if (ret)
		pp_err_set(s->err, "repost receive failed: %s", strerror(ret));
	return ret;
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

/* Ours: every message carries its number; accept the one awaited. */
static int on_recv(struct run *s, const struct ibv_wc *wc)
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
	ret = pp_run_repost(s, wc);
	if (ret)
		return ret;
	/* a late reply to a message counted as lost, maybe of another size */
	if (s->lossy && seq < s->want)
		return 0;
	ret = pp_run_check_len(s, wc);
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
		return 0;
	}
	pp_err_set(s->err, "reply %u arrived while %u was expected", seq,
		   s->want);
	return EPROTO;
}

static void on_send(struct run *s, const struct ibv_wc *wc)
{
	(void)wc;
	s->send_busy = false;
}

static int on_wc(struct run *s, const struct ibv_wc *wc)
{
	bool recv = PP_WRID_IS_RECV(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		char why[320], port[64];
		struct pp_explain_ctx ctx = {
			.recv = recv,
			.grh = s->r->hop_limit != 0, /* pp_res_connect() */
			.port = port,
		};
		struct ibv_port_attr pa;
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
		/* a port that went down explains the failure best */
		snprintf(port, sizeof(port), "%s:%u",
			 ibv_get_device_name(s->r->ctx->device),
			 s->r->attr.ib_port);
		if (!ibv_query_port(s->r->ctx, s->r->attr.ib_port, &pa))
			ctx.port_state = pa.state;

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

int pp_run_interrupted(struct run *s)
{
	return interrupted(s);
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

int pp_run_wait_cq(struct run *s, int64_t loss_deadline)
{
	unsigned int spins = 0;
	int64_t now;
	int ret;

	for (;;) {
		ret = poll_batch(s);
		if (ret != EAGAIN)
			return ret;
		if (s->v->ready && s->v->ready(s))
			return 0;
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

/* -c, ours: the pattern of message @seq from its sender. */
static void fill(struct run *s, uint32_t seq, bool from_server)
{
	pp_pattern_fill(s->r->send_buf, s->r->msg_size, seq, from_server);
}

static int check_data(struct run *s, uint32_t seq, bool from_server)
{
	const uint8_t *data = s->r->recv_buf + pp_run_data_off(s);
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

/*
 * A measured send took @from to @to inside ibv_post_send(): on a NIC the
 * doorbell, on Soft-RoCE the protocol work too (docs/measurement.md).
 */
void pp_run_note_post(struct pp_run_result *res, int64_t from, int64_t to)
{
	uint64_t ns = pp_run_sample_ns(from, to);

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
		ret = pp_run_wait_cq(s, INT64_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

int pp_run_client_loop(struct run *s)
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
		if (cfg->validate)
			s->v->fill(s, seq, false);
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
			pp_run_note_post(res, t0, pp_clock_ns());
		while (!s->got) {
			ret = pp_run_wait_cq(
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
				pp_run_sample_ns(t0, s->got_ns);
			res->completed++;
			res->seconds =
				(double)(s->got_ns - start - lost_ns) / 1e9;
		}
		if (cfg->validate) {
			ret = s->v->check(s, seq, true);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int pp_run_server_loop(struct run *s)
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
			ret = pp_run_wait_cq(s, INT64_MAX);
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
					pp_run_sample_ns(last_send, s->got_ns);
		} else if (i >= cfg->warmup && !start) {
			start = s->got_ns;
		}
		if (cfg->validate) {
			ret = s->v->check(s, seq, false);
			if (ret)
				goto out;
		}
		ret = wait_send(s);
		if (ret)
			goto out;
		if (cfg->validate)
			s->v->fill(s, seq, true);
		last_send = pp_clock_ns();
		ret = post_send(s, seq);
		if (ret)
			goto out;
		if (i >= cfg->warmup) {
			pp_run_note_post(res, last_send, pp_clock_ns());
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

const struct pp_run_loop pp_run_loop_ours = {
	.on_recv = on_recv,
	.on_send = on_send,
	.fill = fill,
	.check = check_data,
	.client = pp_run_client_loop,
	.server = pp_run_server_loop,
};

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
		.v = cfg->loop ? cfg->loop : &pp_run_loop_ours,
		.res = res,
		.err = err,
		.lossy = r->tr->lossy && cfg->loss_timeout_ms > 0,
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
	if (s.v->begin)
		s.v->begin(&s);
	ret = cfg->is_server ? s.v->server(&s) : s.v->client(&s);
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
