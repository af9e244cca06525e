/* SPDX-License-Identifier: MIT */
/*
 * pp_run_loop.h - inside pp_run(): the state of one run, the completion
 * machinery every loop shares (pp_run.c), and the loop variants.
 *
 * A variant is the protocol of the messages: ours (pp_run.c: each message
 * carries its number as immediate data, -c is our pattern) or the stock
 * rdma-core tools' (pp_run_stock.c: plain sends known by their arrival, -c
 * is their rule, an srq server of their own).  pp_run_cfg.loop chooses it;
 * the shared machinery calls the variant's hooks, so no loop tests which
 * peer it talks to.  Only pp_run.c, pp_run_stock.c and pp_run_rdma.c (the
 * one-sided operations) include this header.
 */
#ifndef PP_RUN_LOOP_H
#define PP_RUN_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "pp_lhist.h"
#include "pp_run.h"

struct run;

/* The hooks of a loop variant. */
struct pp_run_loop {
	/* before the first message: fill the send buffer (may be NULL) */
	void (*begin)(struct run *s);
	/* a receive completed with success: take the message */
	int (*on_recv)(struct run *s, const struct ibv_wc *wc);
	/* a send completed with success */
	void (*on_send)(struct run *s, const struct ibv_wc *wc);
	/*
	 * -c: write message @seq before it is sent (client and server); a
	 * received message is checked by on_recv(), before its receive is
	 * posted again
	 */
	void (*fill)(struct run *s, uint32_t seq, bool from_server);
	int (*client)(struct run *s); /* the client's loop */
	int (*server)(struct run *s); /* the server's loop */
	/*
	 * May be NULL.  A message that arrives without a completion (an RDMA
	 * Write polled in memory): has the awaited one come?  Asked by
	 * pp_run_wait_cq() after each empty poll; sets got, got_seq, got_ns.
	 */
	bool (*ready)(struct run *s);
};

/* The state of one run. */
struct run {
	struct pp_res *r;
	const struct pp_conn *c;
	const struct pp_run_cfg *cfg;
	const struct pp_run_loop *v;
	struct pp_run_result *res;
	struct pp_err *err;
	bool lossy; /* UD, UC: a message may never come */
	int64_t progress_deadline;
	int64_t next_peek;
	uint64_t iter;	/* for messages: the iteration under way */
	bool send_busy; /* a send not completed yet */
	uint32_t want;	/* client: the reply awaited; server: the
				   lowest message number still acceptable */
	bool got;	/* a wanted message has arrived */
	uint32_t got_seq;
	int64_t got_ns;
	const uint8_t *got_data; /* stock -c: the data of the last message */
	bool heard;		 /* a receive completed in the last batch */
	void *priv;		 /* the variant's own state */
	/* where samples go (pp_run_record()) */
	struct pp_lhist *cur;  /* NULL: res->samples; else the interval's
				 histogram, or res->lhist without --interval */
	int64_t next_interval; /* --interval: the next boundary (INT64_MIN:
				  before the first sample); else INT64_MAX */
	int64_t rec_start;     /* --interval: the first sample's start */
	int64_t interval_start;
	int64_t last_to;       /* --interval: the last sample's end */
	size_t interval_first; /* raw: the interval's first sample */
	uint64_t interval_index;
	/* the lean loop (docs/measurement.md, "The hot loop") */
	struct ibv_send_wr swr; /* the send, built once per size */
	struct ibv_sge ssge;	/* ... and its buffer */
	uint32_t swr_qp;	/* the QP swr is for */
	uint32_t sig_every;	/* one send in this many is signaled */
	uint32_t rx_batch;	/* receives reposted this many at once */
	uint32_t rx_pending;	/* receives completed, not reposted yet */
	uint32_t fast_len;	/* ours: the length of a message taken inline
			      (take_fast()); 0 (-c, stock): every completion
			      on_wc() */
	bool progressed;	/* progress since the deadline last moved */
	size_t ticks_from;	/* client_fast(): res->samples in ticks from */
	size_t ticks_to;	/* ... here to here, converted after it */
};

/**
 * pp_run_sample_ns() - a round trip from two readings of the clock
 * @from: the earlier reading
 * @to: the later one
 *
 * Return: @to - @from, or 0 when the thread moved to a CPU whose counter
 * lags (not 2^64 - x).
 */
uint64_t pp_run_sample_ns(int64_t from, int64_t to);

/**
 * pp_run_interval_tick() - --interval: start the first interval, or end
 * the one under way; pp_run_record() calls it
 * @s: the run
 * @from: the start of the sample just recorded
 * @to: its end
 */
void pp_run_interval_tick(struct run *s, int64_t from, int64_t to);

/**
 * pp_run_record() - record one round trip: the only way loops store one
 * @s: the run
 * @from: the clock when it started (the send posted)
 * @to: the clock when it ended (the reply polled)
 *
 * Into res->samples or the histogram (pp_run_keeps_lhist()); with
 * --interval, a sample that ends at or past the boundary ends the interval
 * (its figures handed to cfg->on_interval before this returns).
 */
static inline void pp_run_record(struct run *s, int64_t from, int64_t to)
{
	uint64_t ns = pp_run_sample_ns(from, to);

	if (s->cur)
		pp_lhist_record(s->cur, ns);
	else
		s->res->samples[s->res->nsamples++] = ns;
	s->last_to = to;
	if (__builtin_expect(to >= s->next_interval, 0))
		pp_run_interval_tick(s, from, to);
}

/**
 * pp_run_record_begin() - the room for a run's samples: raw or histogram
 * @s: the run, with res and cfg set (res zeroed but for size)
 *
 * Return: 0, or ENOMEM with @s->err set.
 */
int pp_run_record_begin(struct run *s);

/**
 * pp_run_record_end() - after the loop: the last interval, the histogram
 * of the run complete, unused room given back
 * @s: the run
 */
void pp_run_record_end(struct run *s);

/**
 * pp_run_data_off() - where the data starts in the receive buffer
 * @s: the run
 *
 * Return: the GRH room of a datagram transport, else 0.
 */
uint32_t pp_run_data_off(const struct run *s);

/**
 * pp_run_recv_data() - the data of the message that receive @wc completed:
 * in its own buffer (pp_res_attr.buf_per_recv), past the GRH room for UD
 * @s: the run
 * @wc: the receive's completion
 */
const uint8_t *pp_run_recv_data(const struct run *s, const struct ibv_wc *wc);

/**
 * pp_run_repost() - post the receive that replaces the completed one
 * @s: the run
 * @wc: the receive's completion
 *
 * Return: 0 or the errno of the post, with @s->err set.
 */
int pp_run_repost(struct run *s, const struct ibv_wc *wc);

/**
 * pp_run_check_len() - is the message received as long as the run's size?
 * @s: the run
 * @wc: the receive's completion
 *
 * Return: 0, or EPROTO with @s->err naming both lengths.
 */
int pp_run_check_len(struct run *s, const struct ibv_wc *wc);

/**
 * pp_run_wait_cq() - process at least one completion
 * @s: the run
 * @loss_deadline: a lossy client's deadline for the awaited reply;
 *                 INT64_MAX otherwise
 *
 * Return: 0 (also when the variant's ready() said yes); ETIME when
 * @loss_deadline passed first; PP_RUN_PEER_DONE (the peer's DONE came); or
 * an error with @s->err set.
 */
int pp_run_wait_cq(struct run *s, int64_t loss_deadline);

/**
 * pp_run_post_swr() - post the run's send work request on QP @q
 * @s: the run; s->swr is built once per QP (pp_res_send_wr()) and kept
 * @q: the QP's index
 * @imm_be: the immediate data, big-endian (ignored by operations without)
 *
 * One post in s->sig_every is signaled and sets s->send_busy; the others
 * are retired by it: the peer's next message (or write) shows that it got
 * ours, so the buffer is free again without a completion.
 *
 * Return: 0, or what ibv_post_send() failed with (the caller says which
 * operation and iteration).
 */
int pp_run_post_swr(struct run *s, uint32_t q, uint32_t imm_be);

/**
 * pp_run_wait_send() - process completions until the signaled send is done
 * @s: the run (@s->send_busy: a signaled send is outstanding)
 *
 * Return: 0, or what pp_run_wait_cq() failed with.
 */
int pp_run_wait_send(struct run *s);

/**
 * pp_run_interrupted() - SIGINT or SIGTERM came: say where the run stopped
 * @s: the run
 *
 * Return: ECANCELED, with @s->err set.
 */
int pp_run_interrupted(struct run *s);

#define PP_RUN_PEER_DONE (-1) /* internal: the peer's DONE came */
#define PP_WRITE_SPINS 64     /* Write: looks at the last byte per poll */

/*
 * Write: has the peer's message landed, its last byte @flag now @want?  Up
 * to PP_WRITE_SPINS looks; the caller polls the CQ once between calls (the
 * general loop's write_ready(), the lean one's fast_wait()).
 */
static inline bool pp_write_landed(const uint8_t *flag, uint8_t want)
{
	unsigned int k;

	for (k = 0; k < PP_WRITE_SPINS; k++)
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == want)
			return true;
	return false;
}

/**
 * pp_run_note_post() - count one measured send and its time inside
 * ibv_post_send()
 * @res: the result
 * @from: the clock before the post
 * @to: the clock after it
 * @start: a client's run time start, or NULL (a server's): set to @to
 *         while 0, so that the run's time starts when its first measured
 *         post has returned, as the stock tools' (docs/measurement.md)
 */
void pp_run_note_post(struct pp_run_result *res, int64_t from, int64_t to,
		      int64_t *start);

/**
 * pp_run_server_loop() - the server's loop: reply to each message (the
 * lean one where pp_run_fast_fits())
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_server_loop(struct run *s);

/**
 * pp_run_fast_fits() - can the client, or the server, take the lean loop
 * (docs/measurement.md, "The hot loop"): a send with our protocol, an
 * RDMA Read or an RDMA Write, on one QP, without -c, polling, without
 * --interval, with the cycle counter?
 * @s: the run
 */
bool pp_run_fast_fits(const struct run *s);

/**
 * pp_run_read_fast() - the lean loop for RDMA Read (pp_run_fast_fits()):
 * post the read, poll for its completion, measure; the send loop's own
 * code with the read as its round trip
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_read_fast(struct run *s);

/**
 * pp_run_write_fast() - the lean loop for RDMA Write (pp_run_fast_fits()),
 * the client's or the server's: write the message, spin on the last byte
 * of the peer's, measure; the send loops' own code with the write and the
 * peer's write as the round trip
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_write_fast(struct run *s);

/**
 * pp_run_client_loop() - the client's loop: send, await the reply, measure
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_client_loop(struct run *s);

#endif /* PP_RUN_LOOP_H */
