/* SPDX-License-Identifier: MIT */
/*
 * pp_run_loop.h - inside pp_run(): the state of one run (struct run) and
 * the hooks of a loop variant (struct pp_run_loop); types and two rules
 * read off the state, no code of its own.
 *
 * A variant is the protocol of the messages: ours (pp_run_general.h: each
 * message carries its number as immediate data, -c is our pattern), the
 * stock rdma-core tools' (pp_run_stock.c: plain sends known by their
 * arrival, -c is their rule, an srq server of their own) or a one-sided
 * operation's (pp_run_rdma.c).  pp_run_cfg.loop chooses it; the shared
 * machinery (pp_run_rec.h: the samples; pp_run_wc.h: work requests and
 * completions; pp_run_wait.h: the waits; pp_run_fast.h: the lean loop;
 * pp_run_general.h: the general loops) calls the variant's hooks, so no
 * loop tests which peer it talks to.  Only the run's own modules include
 * this header.
 */
#ifndef PP_RUN_LOOP_H
#define PP_RUN_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "pp_err.h"
#include "pp_hs.h"
#include "pp_res.h"
#include "pp_run_types.h"

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
	 * pp_run_wait_cq() (pp_run_wait.h) after each empty poll; sets got,
	 * got_seq, got_ns.
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
	/* a Read or atomics client: ALIVE this often (ns; 0: never), next */
	int64_t alive_every;
	int64_t next_alive;
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
	/* where samples go (pp_run_record(), pp_run_rec.h) */
	struct pp_lhist *cur;  /* NULL: res->samples; else the interval's
				 histogram, or res->lhist without --interval */
	int64_t next_interval; /* --interval: the next boundary (INT64_MIN:
				  before the first sample); else INT64_MAX */
	int64_t rec_start;     /* --interval: the first sample's start */
	int64_t interval_start;
	int64_t last_to;       /* --interval: the last sample's end */
	size_t interval_first; /* raw: the interval's first sample */
	uint64_t interval_index;
	/* the lean loop (docs/dev/loop.md) */
	struct ibv_send_wr swr; /* the send, built once per size */
	struct ibv_sge ssge;	/* ... and its buffer */
	uint32_t swr_qp;	/* the QP swr is for */
	uint32_t sig_every;	/* one send in this many is signaled */
	uint32_t rx_batch;	/* receives reposted this many at once */
	uint32_t rx_pending;	/* receives completed, not reposted yet */
	uint32_t fast_len;	/* ours: the length of a message taken inline
			      (pp_run_take_fast()); 0 (-c, stock): every
			      completion pp_run_on_wc() */
	bool progressed;	/* progress since the deadline last moved */
	size_t ticks_from;	/* the lean loop: res->samples in ticks from */
	size_t ticks_to;	/* ... here to here, converted after it */
};

#define PP_RUN_PEER_DONE (-1) /* internal: the peer's DONE came */

/* The iteration that message @seq belongs to, counted from the warm-up. */
static inline uint64_t pp_run_iter_of(const struct run *s, uint32_t seq)
{
	return (uint32_t)(seq - s->cfg->first_seq);
}

/*
 * The server: a wait for a message this long (ns) had the client give up
 * on an iteration (UD, UC; half its deadline), else INT64_MAX.
 */
static inline int64_t pp_run_abandoned_ns(const struct pp_run_cfg *cfg)
{
	return cfg->loss_timeout_ms > 0 ?
		       (int64_t)cfg->loss_timeout_ms * 500000 :
		       INT64_MAX;
}

#endif /* PP_RUN_LOOP_H */
