// SPDX-License-Identifier: MIT
/*
 * pp_run_fast.c - the lean loop (docs/measurement.md, "The hot loop"): the
 * client's and the server's, for a send of ours, an RDMA Read, an RDMA
 * Write, where pp_run_fast_fits().
 */
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>

#include "pp_clock.h"
#include "pp_pattern.h"
#include "pp_run_fast.h"
#include "pp_run_rec.h"
#include "pp_run_wait.h"
#include "pp_run_wc.h"
#include "pp_signal.h"

bool pp_run_fast_fits(const struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	/* a send of ours: pp_run() sets fast_len for ours without -c only */
	bool send = s->fast_len && s->sig_every == PP_TX_DEPTH;
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
	uint64_t alive_at;  /* Read: when ALIVE may be due (s->next_alive) */
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

/* One poll's completions: the reply or a send inline, else pp_run_on_wc(). */
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
		ret = pp_run_on_wc(s, w);
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
 * client_fast() every PP_SPINS_PER_CLOCK empty polls: pp_run_look_around()
 * and pp_run_peek_due() for iteration @i, whose reply (sent at tick @t0,
 * due within @loss_ns; @wait: not come, not lost yet) may be lost:
 * FAST_LOST then.
 */
static int fast_look(struct run *s, uint64_t i, uint64_t t0, bool wait,
		     int64_t loss_ns)
{
	int64_t now = pp_clock_ns();
	int ret;

	s->iter = i;
	ret = pp_run_look_around(
		s, now, wait ? pp_clock_ns_of(t0) + loss_ns : INT64_MAX);
	if (ret == ETIME)
		return FAST_LOST;
	return ret ? ret : pp_run_peek_due(s, now);
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
	int64_t d, now;
	int ret;

	if (pp_signal_caught()) {
		s->iter = i;
		return pp_run_interrupted(s);
	}
	t0 = pp_clock_ticks();
	*t0p = t0;
	if (t0 >= f->end)
		return FAST_TIME_UP;
	if (op == FAST_READ && t0 >= f->alive_at) {
		/* the passive server hears this, else nothing of the run */
		now = pp_clock_ns_of(t0);
		ret = pp_run_alive_due(s, now, i);
		if (ret)
			return ret;
		f->alive_at = t0 + (uint64_t)((double)(s->next_alive - now) /
					      f->scale);
	}
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
			pp_lhist_record(f->h, pp_run_ticks_to_ns(f->tgot - t0,
								 f->scale));
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
		.post = r->attr.new_send ? pp_res_post_new :
					   r->qp[0]->context->ops.post_send,
		.cq = r->cq,
		.qp = r->qp[0],
		.h = s->cur,
		.samples = res->samples ? res->samples + res->nsamples : NULL,
		.scale = pp_clock.ns_per_tick,
		.loss_ns = INT64_MAX / 2,
		.end = UINT64_MAX,
		.alive_at = s->alive_every ? 0 : UINT64_MAX,
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
 * The client's loop in the common case (pp_run_fast_fits(): ours, one QP,
 * no -c, polling, no --interval, the cycle counter), written for it
 * (docs/measurement.md, "The hot loop").  It measures what the general
 * loop measures, at the same points, but keeps the clock in ticks and
 * converts the sample only (the time inside ibv_post_send() is summed in
 * ticks and converted once); it polls the CQ itself and takes the awaited
 * reply and the send's completion inline, anything else (an error, a late
 * reply) through pp_run_on_wc().  The signal and -D are looked at once per
 * round trip; the signal again, the deadlines (-T, a lost reply) and the peer's
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
					       pp_run_abandoned_ns(cfg);
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
		i = pp_run_iter_of(s, want);
		if (pp_signal_caught()) {
			s->iter = i;
			ret = pp_run_interrupted(s);
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
			i = pp_run_iter_of(s, seq);
		if (i >= total) {
			ret = pp_run_beyond(s, i, total);
			goto out;
		}
		if (i > cfg->warmup && last_send) {
			/* as pp_run_server_loop(): no round trip, no run time */
			d = f.tgot - last_send;
			if (seq != want || (int64_t)d >= abandoned) {
				lost += d;
			} else if (f.h) {
				pp_lhist_record(f.h,
						pp_run_ticks_to_ns(d, scale));
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
	s->iter = pp_run_iter_of(s, want);
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

int pp_run_send_fast(struct run *s)
{
	return s->cfg->is_server ? server_fast(s, FAST_SEND) :
				   client_fast(s, FAST_SEND);
}
