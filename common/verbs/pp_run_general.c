// SPDX-License-Identifier: MIT
/*
 * pp_run_general.c - the general loops, the client's and the server's, of
 * ours and of the stock variant: every QP count, -c, -e, --interval; the
 * lean loop where it fits.
 */
#include "pp_clock.h"
#include "pp_run_fast.h"
#include "pp_run_general.h"
#include "pp_run_rec.h"
#include "pp_run_wait.h"
#include "pp_run_wc.h"
#include "pp_signal.h"

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
		return pp_run_send_fast(s);
	for (i = 0; i < total; i++) {
		seq = cfg->first_seq + (uint32_t)i;
		measured = i >= cfg->warmup;
		s->iter = i;
		if (pp_signal_caught()) {
			ret = pp_run_interrupted(s);
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
		ret = pp_run_post_send(s, seq);
		if (ret)
			break;
		if (measured)
			pp_run_note_post(res, t0, &start);
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

int pp_run_server_loop(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t start = 0, last_send = 0, lost_ns = 0;
	int64_t abandoned_ns = pp_run_abandoned_ns(cfg);
	uint32_t seq;
	int ret = 0;

	if (pp_run_fast_fits(s))
		return pp_run_send_fast(s);
	s->want = cfg->first_seq;
	for (;;) {
		s->iter = pp_run_iter_of(s, s->want);
		if (pp_signal_caught()) {
			ret = pp_run_interrupted(s);
			goto out;
		}
		s->got = false;
		while (!s->got) {
			ret = pp_run_wait_cq(s, INT64_MAX);
			if (ret)
				goto out;
		}
		seq = s->got_seq;
		i = pp_run_iter_of(s, seq);
		if (i >= total) {
			ret = pp_run_beyond(s, i, total);
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
		ret = pp_run_post_send(s, seq);
		if (ret)
			goto out;
		if (i >= cfg->warmup) {
			pp_run_note_post(res, last_send, NULL);
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
	.on_recv = pp_run_ours_on_recv,
	.on_send = pp_run_ours_on_send,
	.fill = pp_run_ours_fill,
	.client = pp_run_client_loop,
	.server = pp_run_server_loop,
};
