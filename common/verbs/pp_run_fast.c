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
#include <net/if.h>

#include "pp_clock.h"
#include "pp_explain.h"
#include "pp_hist.h"
#include "pp_run_loop.h"
#include "pp_signal.h"
#include "pp_stats.h"
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

	/*
	 * The clock's calibration (about 10 ms) comes before this side says
	 * READY: after it, the peer's first message may come at once, and
	 * would wait inside its round trip for the calibration to end.
	 */
	pp_clock_init();
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
	pp_lhist_destroy(res->lhist);
	res->lhist = NULL;
}

bool pp_run_keeps_lhist(const struct pp_run_cfg *cfg)
{
	return !cfg->keep_raw &&
	       (cfg->duration_ns || cfg->iters > PP_LHIST_RAW_LIMIT);
}

int pp_run_stats(const struct pp_run_result *res, struct pp_stats *st)
{
	if (res->lhist)
		return pp_lhist_stats(res->lhist, st);
	return pp_stats_compute(res->samples, res->nsamples, st);
}

int pp_run_hist(const struct pp_run_result *res, unsigned int nbins,
		struct pp_hist *out)
{
	if (res->lhist)
		return pp_lhist_hist(res->lhist, nbins, out);
	if (!res->nsamples)
		return EINVAL;
	return pp_hist_compute(res->samples, res->nsamples, nbins, out);
}

/*
 * Write once to every page of @len bytes at @p, each byte written the one
 * read (the contents stay), before the loop: the first write to a fresh
 * page is a page fault, and the loop must not take one per 512 samples.
 * In the emulated guest a fault costs about 8 us, now and then
 * milliseconds (docs/measurement.md, "Memory touched before the loop").
 */
static void touch_pages(void *p, size_t len)
{
	volatile uint8_t *b = p;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;

	for (off = 0; off < len; off += page)
		b[off] = b[off];
}

int pp_run_record_begin(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	size_t n = cfg->iters ? cfg->iters : 1;

	s->cur = NULL;
	s->next_interval = cfg->interval_ns > 0 ? INT64_MIN : INT64_MAX;
	if (!pp_run_keeps_lhist(cfg)) {
		res->samples = calloc(n, sizeof(*res->samples));
		if (!res->samples)
			goto nomem;
		touch_pages(res->samples, n * sizeof(*res->samples));
		return 0;
	}
	res->lhist = pp_lhist_create();
	if (!res->lhist)
		goto nomem;
	touch_pages(res->lhist, pp_lhist_size());
	/* --interval: the interval's own, added to the run's as it ends */
	s->cur = cfg->interval_ns > 0 ? pp_lhist_create() : res->lhist;
	if (!s->cur)
		goto nomem;
	if (s->cur != res->lhist)
		touch_pages(s->cur, pp_lhist_size());
	return 0;
nomem:
	pp_run_free(res);
	s->cur = NULL;
	pp_err_set(
		s->err,
		"cannot keep %llu round-trip samples in memory (lower -n or -D)",
		(unsigned long long)cfg->iters);
	return ENOMEM;
}

/* The figures of the interval under way, handed out; the next one begins. */
static void interval_end(struct run *s, int64_t to)
{
	struct pp_run_result *res = s->res;
	struct pp_run_interval iv = {
		.index = ++s->interval_index,
		.size = res->size,
		.start_s = (double)(s->interval_start - s->rec_start) / 1e9,
		.end_s = (double)(to - s->rec_start) / 1e9,
	};
	struct pp_stats st;

	if (s->cur) {
		iv.samples = s->cur->n;
		if (!pp_lhist_stats(s->cur, &st))
			iv.stats = &st;
		if (s->cur != res->lhist) {
			pp_lhist_merge(res->lhist, s->cur);
			pp_lhist_reset(s->cur);
		}
	} else {
		iv.samples = res->nsamples - s->interval_first;
		if (iv.samples &&
		    !pp_stats_compute(res->samples + s->interval_first,
				      iv.samples, &st))
			iv.stats = &st;
		s->interval_first = res->nsamples;
	}
	s->interval_start = to;
	if (s->cfg->on_interval)
		s->cfg->on_interval(s->cfg->interval_arg, &iv);
}

void pp_run_interval_tick(struct run *s, int64_t from, int64_t to)
{
	int64_t step = s->cfg->interval_ns;

	if (s->next_interval == INT64_MIN) {
		/* the first sample: the first interval starts with it */
		s->rec_start = from;
		s->interval_start = from;
		s->next_interval = from + step;
		if (to < s->next_interval)
			return;
	}
	interval_end(s, to);
	/* on the grid of the first start; a pause skips boundaries */
	while (s->next_interval <= to)
		s->next_interval += step;
}

void pp_run_record_end(struct run *s)
{
	struct pp_run_result *res = s->res;

	if (s->cfg->interval_ns > 0 && s->next_interval != INT64_MIN &&
	    (s->cur ? s->cur->n : res->nsamples > s->interval_first))
		interval_end(s, s->last_to);
	if (s->cur && s->cur != res->lhist) {
		pp_lhist_merge(res->lhist, s->cur);
		pp_lhist_destroy(s->cur);
	}
	s->cur = NULL;
	if (res->lhist && !res->lhist->n) {
		pp_lhist_destroy(res->lhist); /* no samples: as raw, none */
		res->lhist = NULL;
	}
	/* -D reserved room for the fastest device: give back the rest */
	if (res->samples && res->nsamples < s->cfg->iters) {
		uint64_t *smaller = realloc(
			res->samples, (res->nsamples ? res->nsamples : 1) *
					      sizeof(*res->samples));

		if (smaller)
			res->samples = smaller;
	}
}

uint32_t pp_run_data_off(const struct run *s)
{
	return s->r->tr->datagram ? PP_GRH_LEN : 0;
}

const uint8_t *pp_run_recv_data(const struct run *s, const struct ibv_wc *wc)
{
	return pp_res_recv_data(s->r, wc->wr_id) + pp_run_data_off(s);
}

/* Post the receives that replace the completed ones, all at once. */
static int flush_recv(struct run *s, uint32_t qp_index)
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
	return flush_recv(s, PP_WRID_QP(wc->wr_id));
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

/* -c, ours: the pattern of message @seq from its sender. */
static void fill(struct run *s, uint32_t seq, bool from_server)
{
	pp_pattern_fill(s->r->send_buf, s->r->msg_size, seq, from_server);
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

static void on_send(struct run *s, const struct ibv_wc *wc)
{
	(void)wc;
	s->send_busy = false;
}

static int on_wc(struct run *s, const struct ibv_wc *wc)
{
	bool recv = PP_WRID_IS_RECV(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		char why[320], port[64], ndev[IF_NAMESIZE];
		struct pp_explain_ctx ctx = {
			.recv = recv,
			.grh = s->r->sgid_index >= 0, /* pp_res_connect() */
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
		/* ... or its network device, which it follows a moment late */
		if (ctx.grh &&
		    !pp_qp_gid_netdev(s->r->ctx, s->r->attr.ib_port,
				      (unsigned int)s->r->sgid_index, ndev,
				      &ctx.netdev_state) &&
		    ndev[0])
			ctx.netdev = ndev;

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

/*
 * The common completion of ours, taken inline: the reply (client) or
 * message (server) awaited, with its number and length right, or a send.
 * Anything else goes the long way (on_wc()): errors, UD's late replies,
 * the stock variant.
 */
static bool take_fast(struct run *s, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS)
		return false;
	if (!PP_WRID_IS_RECV(wc->wr_id)) {
		s->send_busy = false;
		return true;
	}
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || s->got ||
	    ntohl(wc->imm_data) != s->want || wc->byte_len != s->fast_len)
		return false;
	s->heard = true;
	s->got = true;
	s->got_seq = s->want;
	s->got_ns = pp_clock_ns();
	return true;
}

/* The @n completions one poll returned (n < 0: the poll failed). */
static int take_batch(struct run *s, struct ibv_wc *wc, int n)
{
	int i, ret;

	if (n < 0) {
		pp_err_set(s->err, "poll CQ failed");
		return EIO;
	}
	s->heard = false;
	for (i = 0; i < n; i++) {
		if (s->fast_len && take_fast(s, &wc[i])) {
			if (PP_WRID_IS_RECV(wc[i].wr_id)) {
				ret = pp_run_repost(s, &wc[i]);
				if (ret)
					return ret;
			}
			continue;
		}
		ret = on_wc(s, &wc[i]);
		if (ret)
			return ret;
	}
	/*
	 * A UD send completes whether or not anyone receives it: on the
	 * lossy client only a reply shows that the server is still there.
	 * The deadline moves when pp_run_wait_cq() next reads the clock.
	 */
	if (s->heard || !s->lossy || s->cfg->is_server)
		s->progressed = true;
	return 0;
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
 * What is looked at every PP_SPINS_PER_CLOCK empty polls (each wake-up with
 * -e), the clock read as @now: progress since the last look moves the
 * no-progress deadline; then the signal, @loss_deadline (ETIME) and -T.
 */
static int look_around(struct run *s, int64_t now, int64_t loss_deadline)
{
	if (s->progressed) {
		s->progressed = false;
		s->progress_deadline =
			now + (s->cfg->timeout_ms < 0 ?
				       INT64_MAX / 2 :
				       (int64_t)s->cfg->timeout_ms * 1000000);
	}
	if (pp_signal_caught())
		return interrupted(s);
	if (now >= loss_deadline)
		return ETIME;
	if (now >= s->progress_deadline)
		return timed_out(s);
	return 0;
}

/* Polling: a look at the socket once a PP_PEEK_NS, for DONE or ERROR. */
static int peek_due(struct run *s, int64_t now)
{
	if (now < s->next_peek)
		return 0;
	s->next_peek = now + PP_PEEK_NS;
	return pp_sock_readable(s->c->fd) ? peek_peer(s) : 0;
}

int pp_run_wait_cq(struct run *s, int64_t loss_deadline)
{
	struct ibv_wc wc[PP_POLL_BATCH];
	struct ibv_cq *cq = s->r->cq;
	unsigned int spins = 0;
	int64_t now;
	int n, ret;

	for (;;) {
		/* an empty poll costs the poll and the tests below */
		n = ibv_poll_cq(cq, PP_POLL_BATCH, wc);
		if (n)
			return take_batch(s, wc, n);
		if (s->v->ready && s->v->ready(s))
			return 0;
		if (!s->cfg->use_event && ++spins % PP_SPINS_PER_CLOCK)
			continue;
		now = pp_clock_ns();
		ret = look_around(s, now, loss_deadline);
		if (ret)
			return ret;
		if (s->cfg->use_event) {
			int64_t until = loss_deadline < s->progress_deadline ?
						loss_deadline :
						s->progress_deadline;

			ret = wait_event(s, until);
			if (ret && ret != ETIME)
				return ret;
			continue;
		}
		ret = peek_due(s, now);
		if (ret)
			return ret;
	}
}

/*
 * A measured send took @from to @to inside ibv_post_send(): on a NIC the
 * doorbell, on Soft-RoCE the protocol work too (docs/measurement.md).
 */
void pp_run_note_post(struct pp_run_result *res, int64_t from, int64_t to,
		      int64_t *start)
{
	uint64_t ns = pp_run_sample_ns(from, to);

	if (start && !*start)
		*start = to;
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
	ret = ibv_post_send(r->qp[q], &s->swr, &bad);
	if (!ret && signaled) {
		r->unsignaled = 0;
		s->send_busy = true;
	}
	return ret;
}

/* The send of message @seq, its number in the immediate data. */
static int post_send(struct run *s, uint32_t seq)
{
	struct pp_res *r = s->r;
	uint32_t q = r->num_qps > 1 ? (uint32_t)(iter_of(s, seq) % r->num_qps) :
				      0;
	int ret = pp_run_post_swr(s, q, htonl(seq));

	if (ret)
		pp_err_set(s->err, "post send at iteration %u failed: %s", seq,
			   strerror(ret));
	return ret;
}

int pp_run_wait_send(struct run *s)
{
	int ret;

	while (s->send_busy) {
		ret = pp_run_wait_cq(s, INT64_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

bool pp_run_fast_fits(const struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	bool send = s->v == &pp_run_loop_ours && s->fast_len &&
		    s->sig_every == PP_TX_DEPTH;
	bool read = s->r->attr.op == PP_OP_READ;
	/* Write: its sends signaled as ours (write_begin()) */
	bool write = s->r->attr.op == PP_OP_WRITE &&
		     s->sig_every == PP_TX_DEPTH;

	return (send || read || write) && s->r->num_qps == 1 &&
	       !cfg->validate && !cfg->use_event && cfg->interval_ns <= 0 &&
	       pp_clock.ticks;
}

#define FAST_TIME_UP (-2) /* fast_round(): -D is up */
#define FAST_LOST (-3)	  /* fast_look(): the reply is lost */

/* The round trip of the lean loops. */
enum fast_op {
	FAST_SEND,  /* a send, and the peer's reply */
	FAST_READ,  /* an RDMA Read and its completion */
	FAST_WRITE, /* an RDMA Write, and the peer's into our buffer */
};

/* client_fast()'s state: the loop's own, in locals, and the run's. */
struct fast {
	struct run *s;
	/* the provider's entry points, as ibv_poll_cq()/ibv_post_send() */
	int (*poll)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	int (*post)(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad);
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct pp_lhist *h; /* the histogram, or NULL: samples */
	uint64_t *samples;  /* in ticks, converted after the loop (pp_run()) */
	double scale;	    /* ns per tick */
	int64_t loss_ns;    /* a lossy reply's deadline after its send */
	uint64_t end;	    /* -D: when it is up, in ticks */
	uint64_t lost;	    /* ticks spent waiting for lost replies ... */
	uint64_t tail_lost; /* ... of which since completion tail_from */
	uint64_t tail_from;
	uint64_t post_sum;	 /* ticks inside ibv_post_send() ... */
	uint64_t post_max;	 /* ... and the longest */
	uint64_t tgot;		 /* when the reply came (the last one) */
	uint64_t tfirst;	 /* when the first measured post returned */
	uint64_t completed;	 /* measured round trips ... */
	uint64_t posts;		 /* ... and sends */
	struct ibv_recv_wr *rwr; /* rx_batch receives, chained */
	/* Write: the last byte of our message and of the peer's */
	uint8_t *flag_out;
	const uint8_t *flag_in;
	uint64_t size;	   /* the message size (pp_write_flag()) */
	uint8_t want_flag; /* the flag of the peer's message awaited */
	bool server;
	uint32_t fast_len, rx_batch, sig_flags, unsig_flags;
	uint32_t unsignaled, pending;
	uint32_t got_seq; /* server: the message's number (fast_take()) */
	bool busy, lossy;
};

/* The completions of one poll: the reply or a send inline, else on_wc(). */
static inline __attribute__((always_inline)) int
fast_take(struct fast *f, const struct ibv_wc *wc, int n, uint64_t i,
	  uint32_t want_be, bool *got, enum fast_op op)
{
	struct run *s = f->s;
	int k, ret;

	for (k = 0; k < n; k++) {
		const struct ibv_wc *w = &wc[k];
		bool ok = w->status == IBV_WC_SUCCESS;

		if (ok && !PP_WRID_IS_RECV(w->wr_id)) {
			f->busy = false;
			if (op == FAST_READ) { /* the read is the round trip */
				f->tgot = pp_clock_ticks();
				*got = true;
			}
			if (!f->lossy)
				s->progressed = true;
			continue;
		}
		if (ok && w->imm_data == want_be &&
		    w->byte_len == f->fast_len &&
		    (w->wc_flags & IBV_WC_WITH_IMM) && !*got) {
			f->tgot = pp_clock_ticks();
			*got = true;
			s->progressed = true;
			if (++f->pending < f->rx_batch)
				continue;
			f->pending = 0;
			ret = pp_res_post_recv_wr(s->r, 0, f->rwr);
			if (ret) {
				pp_err_set(s->err, "repost receive failed: %s",
					   strerror(ret));
				return ret;
			}
			continue;
		}
		/* the long way, with the run's state in s */
		s->iter = i;
		s->want = ntohl(want_be);
		s->got = *got;
		s->send_busy = f->busy;
		s->rx_pending = f->pending;
		s->heard = false;
		ret = on_wc(s, w);
		f->busy = s->send_busy;
		f->pending = s->rx_pending;
		if (s->heard)
			s->progressed = true;
		if (ret)
			return ret;
		/* the server on UD, UC: a message past a gap (take()) */
		if (s->got && !*got) {
			f->tgot = pp_clock_ticks();
			f->got_seq = s->got_seq;
			*got = true;
		}
	}
	return 0;
}

/*
 * client_fast() every PP_SPINS_PER_CLOCK empty polls: look_around() and
 * peek_due() for iteration @i, whose reply (sent at tick @t0, due within
 * @loss_ns; @wait: not come, not lost yet) may be lost: FAST_LOST then.
 */
static int fast_look(struct run *s, uint64_t i, uint64_t t0, bool wait,
		     int64_t loss_ns)
{
	int64_t now = pp_clock_ns();
	int ret;

	s->iter = i;
	ret = look_around(s, now,
			  wait ? pp_clock_ns_of(t0) + loss_ns : INT64_MAX);
	if (ret == ETIME)
		return FAST_LOST;
	return ret ? ret : peek_due(s, now);
}

/* A sample in ticks, in ns (0 if the counter went back, between cores). */
static inline uint64_t ticks_to_ns(uint64_t ticks, double scale)
{
	int64_t d = (int64_t)ticks;

	return d > 0 ? (uint64_t)((double)d * scale) : 0;
}

/*
 * Post the send of message @seq (its number @want_be), the write of
 * message @seq (its flag last), or the read of iteration @i: every
 * PP_TX_DEPTH-th send or write signaled, every read; @t0, the clock before
 * the post, times ibv_post_send() when @measured; the return of the
 * @first measured post is the start of the run's time (f->tfirst).
 */
static inline __attribute__((always_inline)) int
fast_post(struct fast *f, uint64_t i, uint32_t seq, uint32_t want_be,
	  bool measured, bool first, enum fast_op op, uint64_t t0)
{
	struct run *s = f->s;
	struct ibv_send_wr *bad;
	int64_t d;
	int ret;

	if (op == FAST_READ) {
		f->busy = true; /* every read is signaled: pp_res_send_wr() */
	} else {
		if (op == FAST_SEND)
			s->swr.imm_data = want_be;
		else /* the peer's write back showed ours landed: free */
			*f->flag_out = pp_write_flag(f->size, seq, f->server);
		if (++f->unsignaled < PP_TX_DEPTH) {
			s->swr.send_flags = f->unsig_flags;
		} else {
			s->swr.send_flags = f->sig_flags;
			f->unsignaled = 0;
			f->busy = true;
		}
	}
	ret = f->post(f->qp, &s->swr, &bad);
	if (ret) {
		if (op != FAST_SEND)
			pp_err_set(s->err,
				   "post RDMA %s at iteration %llu failed: %s",
				   pp_op_name(s->r->attr.op),
				   (unsigned long long)i, strerror(ret));
		else
			pp_err_set(s->err,
				   "post send at iteration %u failed: %s", seq,
				   strerror(ret));
		return ret;
	}
	if (measured) {
		uint64_t now = pp_clock_ticks();

		if (first) /* "The run's start", docs/measurement.md */
			f->tfirst = now;
		d = (int64_t)(now - t0);
		if (d > 0) {
			f->post_sum += (uint64_t)d;
			if ((uint64_t)d > f->post_max)
				f->post_max = (uint64_t)d;
		}
		f->posts++;
	}
	return 0;
}

/*
 * Poll until message @want_be (iteration @i) came, *got, or was lost,
 * *gone (@t0: when its wait began; f->loss_ns after it), and no send is
 * awaited; Write: until the peer's message landed (pp_write_landed()), and
 * no write is awaited; 0, or PP_RUN_PEER_DONE, or an error with the run's
 * err set.
 */
static inline __attribute__((always_inline)) int
fast_wait(struct fast *f, uint64_t i, uint32_t want_be, enum fast_op op,
	  uint64_t t0, bool *got, bool *gone)
{
	struct run *s = f->s;
	int (*poll)(struct ibv_cq * cq, int n, struct ibv_wc *wc) = f->poll;
	struct ibv_cq *cq = f->cq;
	struct ibv_wc wc[PP_POLL_BATCH];
	unsigned int spins = 0;
	int n, ret;

	for (;;) {
		if (op == FAST_WRITE && !*got &&
		    pp_write_landed(f->flag_in, f->want_flag)) {
			f->tgot = pp_clock_ticks();
			*got = true;
			s->progressed = true;
			if (!f->busy)
				return 0;
		}
		n = poll(cq, PP_POLL_BATCH, wc);
		if (n > 0) {
			ret = fast_take(f, wc, n, i, want_be, got, op);
			if (ret)
				return ret;
			if ((*got || *gone) && !f->busy)
				return 0;
			continue;
		}
		if (n < 0) {
			pp_err_set(s->err, "poll CQ failed");
			return EIO;
		}
		if (++spins % PP_SPINS_PER_CLOCK)
			continue;
		ret = fast_look(s, i, t0, !(*got || *gone), f->loss_ns);
		if (ret == FAST_LOST) {
			*gone = true; /* its send may still be awaited */
			ret = 0;
		}
		if (ret)
			return ret;
		if ((*got || *gone) && !f->busy)
			return 0;
	}
}

/*
 * One round trip of client_fast(), message @i, measured or not, the
 * @first measured one or not (inlined for each, so that the warm-up's
 * tests and the start's cost nothing in the others), of operation @op:
 * *t0 is when it was sent; 0, or PP_RUN_PEER_DONE, or an error with the
 * run's err set.
 */
static inline __attribute__((always_inline)) int
fast_round(struct fast *f, uint64_t i, bool measured, bool first,
	   enum fast_op op, uint64_t *t0p)
{
	struct run *s = f->s;
	uint32_t seq = s->cfg->first_seq + (uint32_t)i;
	uint32_t want_be = htonl(seq);
	bool got = false, gone = false;
	uint64_t t0;
	int64_t d;
	int ret;

	if (pp_signal_caught()) {
		s->iter = i;
		return interrupted(s);
	}
	t0 = pp_clock_ticks();
	*t0p = t0;
	if (t0 >= f->end)
		return FAST_TIME_UP;
	if (op == FAST_WRITE)
		f->want_flag = pp_write_flag(f->size, seq, true);
	ret = fast_post(f, i, seq, want_be, measured, first, op, t0);
	if (ret)
		return ret;
	/* until the reply came (or was lost) and no send is awaited */
	ret = fast_wait(f, i, want_be, op, t0, &got, &gone);
	if (ret)
		return ret;
	if (!got) {
		/* the time spent waiting in vain is not run time */
		if (measured) {
			d = (int64_t)(pp_clock_ticks() - t0);
			f->lost += (uint64_t)d;
			/* ... nor is it inside the run if no reply follows */
			if (f->tail_from != f->completed) {
				f->tail_from = f->completed;
				f->tail_lost = 0;
			}
			f->tail_lost += (uint64_t)d;
		}
		s->res->lost++;
		return 0;
	}
	if (measured) {
		/* ticks, converted after the loop: pp_run() */
		if (f->h)
			pp_lhist_record(f->h,
					ticks_to_ns(f->tgot - t0, f->scale));
		else
			f->samples[f->completed] = f->tgot - t0;
		f->completed++;
	}
	return 0;
}

/*
 * The lean loops' state from the run's (client_fast(), server_fast()):
 * @rwr and @rsge, the chain of receives posted again and again (one
 * receive buffer: no -c), and the send built for QP 0.
 */
static void fast_begin(struct run *s, struct fast *f, struct ibv_recv_wr *rwr,
		       struct ibv_sge *rsge)
{
	struct pp_run_result *res = s->res;
	struct pp_res *r = s->r;

	*f = (struct fast){
		.s = s,
		.poll = r->cq->context->ops.poll_cq,
		.post = r->qp[0]->context->ops.post_send,
		.cq = r->cq,
		.qp = r->qp[0],
		.h = s->cur,
		.samples = res->samples ? res->samples + res->nsamples : NULL,
		.scale = pp_clock.ns_per_tick,
		.loss_ns = INT64_MAX / 2,
		.end = UINT64_MAX,
		.rwr = rwr,
		.fast_len = s->fast_len,
		.rx_batch = s->rx_batch,
		.sig_flags = r->send_flags,
		.unsig_flags = r->send_flags & ~IBV_SEND_SIGNALED,
		.unsignaled = r->unsignaled,
		.pending = s->rx_pending,
		.busy = s->send_busy,
	};
	if (r->attr.op == PP_OP_WRITE) {
		f->flag_out = r->send_buf + r->msg_size - 1;
		f->flag_in = r->recv_buf + r->msg_size - 1;
		f->size = r->msg_size;
		f->server = s->cfg->is_server;
	}
	pp_res_recv_wr(r, 0, rwr, s->rx_batch, rsge);
	if (s->swr_qp != 0) {
		pp_res_send_wr(r, 0, &s->swr, &s->ssge);
		s->swr_qp = 0;
	}
}

/*
 * ... and back into the run, with the @recorded samples (in ticks,
 * converted by pp_run()) and the time inside ibv_post_send().
 */
static void fast_end(struct fast *f, uint64_t recorded)
{
	struct run *s = f->s;
	struct pp_run_result *res = s->res;
	uint64_t ns = (uint64_t)((double)f->post_max * f->scale);

	s->send_busy = f->busy;
	s->rx_pending = f->pending;
	s->r->unsignaled = f->unsignaled;
	if (!f->h) {
		s->ticks_from = res->nsamples;
		res->nsamples += recorded;
		s->ticks_to = res->nsamples;
	}
	res->posts += f->posts;
	res->post_ns += (uint64_t)((double)f->post_sum * f->scale);
	if (ns > res->post_max_ns)
		res->post_max_ns = ns;
}

/*
 * The client's loop in the common case (client_fast_fits(): ours, one QP,
 * no -c, polling, no --interval, the cycle counter), written for it
 * (docs/measurement.md, "The hot loop").  It measures what the general
 * loop measures, at the same points, but keeps the clock in ticks and
 * converts the sample only (the time inside ibv_post_send() is summed in
 * ticks and converted once); it polls the CQ itself and takes the awaited
 * reply and the send's completion inline, anything else (an error, a late
 * reply) through on_wc().  The signal and -D are looked at once per round
 * trip; the signal again, the deadlines (-T, a lost reply) and the peer's
 * DONE every PP_SPINS_PER_CLOCK empty polls, as pp_run_wait_cq() does.
 */
static inline __attribute__((always_inline)) int client_fast(struct run *s,
							     enum fast_op op)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	struct fast f;
	uint64_t total = cfg->warmup + cfg->iters, i, t0 = 0;
	struct ibv_recv_wr rwr[PP_RECV_CHAIN];
	struct ibv_sge rsge[PP_RECV_CHAIN];
	int ret = 0;

	fast_begin(s, &f, rwr, rsge);
	f.lossy = s->lossy;
	if (s->lossy && op == FAST_SEND) /* Write: as write_client() */
		f.loss_ns = (int64_t)cfg->loss_timeout_ms * 1000000;
	for (i = 0; i < cfg->warmup; i++) {
		ret = fast_round(&f, i, false, false, op, &t0);
		if (ret)
			break;
	}
	/*
	 * The first measured round apart: the run's time starts when its post
	 * has returned, as the stock tools' (docs/measurement.md, "The run's
	 * start"), and -D at that post.
	 */
	if (!ret && i < total) {
		ret = fast_round(&f, i, true, true, op, &t0);
		if (cfg->duration_ns)
			f.end = t0 +
				(uint64_t)((double)cfg->duration_ns / f.scale);
		if (!ret)
			i++;
	}
	for (; !ret && i < total; i++) {
		ret = fast_round(&f, i, true, false, op, &t0);
		if (ret)
			break;
	}
	if (ret == FAST_TIME_UP)
		ret = 0;
	s->iter = i;
	fast_end(&f, f.completed);
	res->completed += f.completed;
	/*
	 * From the first measured post's return to the last reply, losses
	 * left out: those before it (the lost rounds after it, if any, are
	 * the tail).
	 */
	if (f.completed) {
		s->last_to = pp_clock_ns_of(f.tgot);
		res->seconds =
			(double)(f.tgot - f.tfirst - f.lost +
				 (f.tail_from == f.completed ? f.tail_lost :
							       0)) *
			f.scale / 1e9;
	}
	return ret;
}

int pp_run_read_fast(struct run *s)
{
	return client_fast(s, FAST_READ);
}

int pp_run_client_loop(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t t0, start = 0, end = INT64_MAX, lost_ns = 0;
	int64_t last = 0, last_lost_ns = 0;
	uint32_t seq;
	bool measured;
	int ret = 0;

	if (pp_run_fast_fits(s))
		return client_fast(s, FAST_SEND);
	for (i = 0; i < total; i++) {
		seq = cfg->first_seq + (uint32_t)i;
		measured = i >= cfg->warmup;
		s->iter = i;
		if (pp_signal_caught()) {
			ret = interrupted(s);
			break;
		}
		if (cfg->validate)
			s->v->fill(s, seq, false);
		s->want = seq;
		s->got = false;
		t0 = pp_clock_ns();
		if (i == cfg->warmup) {
			if (cfg->duration_ns)
				end = t0 + cfg->duration_ns;
		} else if (t0 >= end) {
			break; /* -D: time is up */
		}
		ret = post_send(s, seq);
		if (ret)
			break;
		if (measured)
			pp_run_note_post(res, t0, pp_clock_ns(), &start);
		while (!s->got) {
			ret = pp_run_wait_cq(
				s, s->lossy ?
					   t0 + (int64_t)cfg->loss_timeout_ms *
							   1000000 :
					   INT64_MAX);
			if (ret)
				break;
		}
		if (ret == ETIME)
			ret = 0;
		if (ret)
			break;
		if (s->send_busy) {
			ret = pp_run_wait_send(s);
			if (ret)
				break;
		}
		if (!s->got) {
			/* the time spent waiting in vain is not run time */
			if (measured)
				lost_ns += pp_clock_ns() - t0;
			res->lost++;
			continue;
		}
		if (measured) {
			pp_run_record(s, t0, s->got_ns);
			res->completed++;
			last = s->got_ns;
			last_lost_ns = lost_ns;
		}
	}
	/* from the first measured post's return to the last reply, no losses */
	if (last)
		res->seconds = (double)(last - start - last_lost_ns) / 1e9;
	return ret;
}

/*
 * The server: a wait for a message this long (ns) had the client give up
 * on an iteration (UD, UC; half its deadline), else INT64_MAX.
 */
static int64_t server_abandoned_ns(const struct pp_run_cfg *cfg)
{
	return cfg->loss_timeout_ms > 0 ?
		       (int64_t)cfg->loss_timeout_ms * 500000 :
		       INT64_MAX;
}

/* The server: message of iteration @i, past the run's @total, is an error. */
static int server_beyond(struct run *s, uint64_t i, uint64_t total)
{
	pp_err_set(s->err, "message %llu arrived, beyond the %llu of the run",
		   (unsigned long long)i, (unsigned long long)total);
	return EPROTO;
}

/*
 * The server's loop in the client_fast() case (pp_run_fast_fits()): what
 * pp_run_server_loop() does, or for Write what write_server()
 * (pp_run_rdma.c) does, with its clock in ticks, its samples stored in
 * ticks (converted after the loop), the awaited message and the send's
 * completion taken inline (fast_wait()), the receives reposted from one
 * chain and the reply posted through the provider's entry point.
 */
static inline __attribute__((always_inline)) int server_fast(struct run *s,
							     enum fast_op op)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	double scale = pp_clock.ns_per_tick;
	struct fast f;
	uint64_t total = cfg->warmup + cfg->iters, i, recorded = 0;
	uint64_t start = 0, last_send = 0, lost = 0, d;
	/* Write: every wait a round trip, as write_server() */
	int64_t abandoned = op == FAST_WRITE ? INT64_MAX :
					       server_abandoned_ns(cfg);
	struct ibv_recv_wr rwr[PP_RECV_CHAIN];
	struct ibv_sge rsge[PP_RECV_CHAIN];
	uint32_t want = cfg->first_seq, seq;
	bool got, gone;
	int ret;

	if (abandoned != INT64_MAX) /* in ticks */
		abandoned = (int64_t)((double)abandoned / scale);

	/* no loss deadline (f.loss_ns): it waits for the next message */
	fast_begin(s, &f, rwr, rsge);
	for (;;) {
		i = iter_of(s, want);
		if (pp_signal_caught()) {
			s->iter = i;
			ret = interrupted(s);
			goto out;
		}
		/* the message, and the completion of a signaled send before */
		got = gone = false;
		f.got_seq = want;
		s->got = false;
		if (op == FAST_WRITE)
			f.want_flag = pp_write_flag(f.size, want, false);
		ret = fast_wait(&f, i, htonl(want), op, 0, &got, &gone);
		if (ret)
			goto out;
		seq = f.got_seq;
		if (seq != want)
			i = iter_of(s, seq);
		if (i >= total) {
			ret = server_beyond(s, i, total);
			goto out;
		}
		if (i > cfg->warmup && last_send) {
			/* as pp_run_server_loop(): no round trip, no run time */
			d = f.tgot - last_send;
			if (seq != want || (int64_t)d >= abandoned) {
				lost += d;
			} else if (f.h) {
				pp_lhist_record(f.h, ticks_to_ns(d, scale));
			} else {
				f.samples[recorded] = d;
				recorded++;
			}
		} else if (i >= cfg->warmup && !start) {
			start = f.tgot;
		}
		last_send = pp_clock_ticks();
		ret = fast_post(&f, i, seq, htonl(seq), i >= cfg->warmup, false,
				op, last_send);
		if (ret)
			goto out;
		if (i >= cfg->warmup)
			res->completed++;
		want = seq + 1;
		if (i + 1 >= total)
			break;
	}
	if (f.busy) {
		got = true;
		gone = false;
		ret = fast_wait(&f, i, htonl(want), op, 0, &got, &gone);
		if (!ret)
			last_send = pp_clock_ticks();
	}
out:
	s->iter = iter_of(s, want);
	s->want = want;
	fast_end(&f, recorded);
	/* as pp_run_server_loop(), in ticks */
	if (start && last_send > start + lost)
		res->seconds = (double)(last_send - start - lost) * scale / 1e9;
	return ret;
}

int pp_run_write_fast(struct run *s)
{
	return s->cfg->is_server ? server_fast(s, FAST_WRITE) :
				   client_fast(s, FAST_WRITE);
}

int pp_run_server_loop(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t start = 0, last_send = 0, lost_ns = 0;
	int64_t abandoned_ns = server_abandoned_ns(cfg);
	uint32_t seq;
	int ret = 0;

	if (pp_run_fast_fits(s))
		return server_fast(s, FAST_SEND);
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
			ret = server_beyond(s, i, total);
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
				pp_run_record(s, last_send, s->got_ns);
		} else if (i >= cfg->warmup && !start) {
			start = s->got_ns;
		}
		ret = pp_run_wait_send(s);
		if (ret)
			goto out;
		if (cfg->validate)
			s->v->fill(s, seq, true);
		last_send = pp_clock_ns();
		ret = post_send(s, seq);
		if (ret)
			goto out;
		if (i >= cfg->warmup) {
			pp_run_note_post(res, last_send, pp_clock_ns(), NULL);
			res->completed++;
		}
		s->want = seq + 1;
		if (i + 1 >= total)
			break;
	}
	ret = pp_run_wait_send(s);
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
	size_t k;
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
	/*
	 * Sends signaled one in PP_TX_DEPTH (the send queue's depth): ours,
	 * on one QP (the signaled one retires the unsignaled before it on its
	 * own queue only), without -c (which rewrites the buffer); the stock
	 * variant counts its send completions.
	 */
	s.sig_every = s.v == &pp_run_loop_ours && !cfg->validate &&
				      r->num_qps == 1 ?
			      PP_TX_DEPTH :
			      1;
	s.swr_qp = UINT32_MAX;
	/* -c: every message through on_recv(), which checks it */
	if (s.v == &pp_run_loop_ours && !cfg->validate)
		s.fast_len = r->msg_size + pp_run_data_off(&s);
	s.rx_batch = (r->srq || r->num_qps == 1) &&
				     r->attr.rx_depth >= 4 * PP_RECV_CHAIN ?
			     PP_RECV_CHAIN :
			     1;
	ret = pp_run_record_begin(&s);
	if (ret)
		return ret;
	if (s.v->begin)
		s.v->begin(&s);
	ret = cfg->is_server ? s.v->server(&s) : s.v->client(&s);
	if (ret == PP_RUN_PEER_DONE)
		ret = 0;
	/* client_fast()'s samples, in ticks in its loop, as perftest keeps
	 * its cycles: the conversion is after the loop, with the sort */
	for (k = s.ticks_from; k < s.ticks_to; k++)
		res->samples[k] =
			ticks_to_ns(res->samples[k], pp_clock.ns_per_tick);
	pp_run_record_end(&s);
	/* the receives of a batch not complete yet: the next size needs them */
	if (s.rx_pending) {
		int fret = flush_recv(&s, 0);

		if (!ret)
			ret = fret;
	}
	return ret;
}
