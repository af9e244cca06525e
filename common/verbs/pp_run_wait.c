// SPDX-License-Identifier: MIT
/*
 * pp_run_wait.c - the waits of the general loops: the CQ polled (or the
 * completion channel slept on), the deadlines, the signal and the peer's
 * DONE or ERROR looked at.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "pp_clock.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_run_wait.h"
#include "pp_run_wc.h"

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
	else if (ret == EHOSTDOWN || ret == EHOSTUNREACH) {
		char when[64], why[320];

		/* TCP gave up because this side's own link went down */
		if (pp_run_link_down(s, why, sizeof(why))) {
			pp_err_set(
				s->err,
				"TCP gave up on the connection during the run, at iteration %llu: %s",
				(unsigned long long)s->iter, why);
			return ret;
		}
		snprintf(when, sizeof(when),
			 "during the run, at iteration %llu",
			 (unsigned long long)s->iter);
		pp_hs_host_gone(s->c, when, s->err);
	}
	return ret;
}

static int timed_out(struct run *s)
{
	char why[320];

	/* a link that went down here is the cause, and this side can tell */
	if (pp_run_link_down(s, why, sizeof(why))) {
		pp_err_set(
			s->err,
			"nothing completed for %d ms, at iteration %llu of %llu: %s",
			s->cfg->timeout_ms, (unsigned long long)s->iter,
			(unsigned long long)s->cfg->iters, why);
		return ETIMEDOUT;
	}
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

int pp_run_interrupted(struct run *s)
{
	pp_err_set(s->err, "interrupted by %s at iteration %llu of %llu",
		   pp_signal_name(pp_signal_caught()),
		   (unsigned long long)s->iter,
		   (unsigned long long)s->cfg->iters);
	return ECANCELED;
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
		if (s->fast_len && pp_run_take_fast(s, &wc[i])) {
			if (PP_WRID_IS_RECV(wc[i].wr_id)) {
				ret = pp_run_repost(s, &wc[i]);
				if (ret)
					return ret;
			}
			continue;
		}
		ret = pp_run_on_wc(s, &wc[i]);
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

int pp_run_look_around(struct run *s, int64_t now, int64_t loss_deadline)
{
	int ret;

	if (s->progressed) {
		s->progressed = false;
		s->progress_deadline =
			now + (s->cfg->timeout_ms < 0 ?
				       INT64_MAX / 2 :
				       (int64_t)s->cfg->timeout_ms * 1000000);
	}
	if (pp_signal_caught())
		return pp_run_interrupted(s);
	ret = pp_run_alive_due(s, now, s->iter);
	if (ret)
		return ret;
	if (now >= loss_deadline)
		return ETIME;
	if (now >= s->progress_deadline)
		return timed_out(s);
	return 0;
}

int pp_run_alive_due(struct run *s, int64_t now, uint64_t done)
{
	if (!s->alive_every || now < s->next_alive)
		return 0;
	s->next_alive = now + s->alive_every;
	return pp_hs_send_alive(s->c, done, s->err);
}

int pp_run_peek_due(struct run *s, int64_t now)
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
		now = pp_clock_look_ns();
		ret = pp_run_look_around(s, now, loss_deadline);
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
		ret = pp_run_peek_due(s, now);
		if (ret)
			return ret;
	}
}
