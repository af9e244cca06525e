// SPDX-License-Identifier: MIT
/*
 * pp_run.c - the ping-pong itself: a run's state set up, handed to the loop
 * variant, its samples finished; the receives posted before READY.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "pp_clock.h"
#include "pp_pattern.h"
#include "pp_run.h"
#include "pp_run_general.h"
#include "pp_run_loop.h"
#include "pp_run_rec.h"
#include "pp_run_wait.h"
#include "pp_run_wc.h"

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
		.progress_deadline = pp_run_clock_deadline(cfg->timeout_ms),
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
	pp_run_record_end(&s);
	/* the receives of a batch not complete yet: the next size needs them */
	if (s.rx_pending) {
		int fret = pp_run_flush_recv(&s, 0);

		if (!ret)
			ret = fret;
	}
	return ret;
}
