// SPDX-License-Identifier: MIT
/*
 * pp_run_fast.c - the lean loop (docs/dev/loop.md): the
 * client's and the server's, for a send of ours, an RDMA Read, an RDMA
 * Write, an atomic, where pp_run_fast_fits().
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
	/* a read or an atomic: the client's alone (request_client()) */
	bool request = pp_op_client_only(s->r->attr.op);
	/* Write: its sends signaled as ours (write_begin()) */
	bool write = s->r->attr.op == PP_OP_WRITE &&
		     s->sig_every == PP_TX_DEPTH;

	return (send || request || write) && s->r->num_qps == 1 &&
	       !cfg->validate && !cfg->use_event && cfg->interval_ns <= 0;
}

#define FAST_TIME_UP (-2) /* fast_round(): -D is up */
#define FAST_LOST (-3)	  /* fast_look(): the reply is lost */
/*
 * The rounds of a read, an atomic or a write look at the signal and at
 * f->due this often, at least (rounds_look())
 */
#define PP_FAST_LOOK_NS 100000000.0

/*
 * The round trip of the lean loops, and their clock: FAST_MONO or'ed in,
 * CLOCK_MONOTONIC (fast_now()), else the cycle counter.  A constant in
 * each loop: one copy of the loop for each.
 */
enum fast_op {
	FAST_SEND,	/* a send, and the peer's reply */
	FAST_READ,	/* an RDMA Read and its completion */
	FAST_WRITE,	/* an RDMA Write, and the peer's into our buffer */
	FAST_FETCH_ADD, /* a fetch-and-add and its completion */
	FAST_CMP_SWAP,	/* a compare-and-swap and its completion */
	FAST_MONO = 8,	/* or'ed in: the clock is CLOCK_MONOTONIC */
};

/* @op without its clock */
static inline int fast_kind(enum fast_op op)
{
	return (int)op & ~FAST_MONO;
}

/*
 * The clock is CLOCK_MONOTONIC: a round trip starts where the last one
 * ended (f->chained), and no post is timed, so that it is read once per
 * round trip (docs/measurement.md, "The clock")
 */
static inline bool fast_mono(enum fast_op op)
{
	return ((int)op & FAST_MONO) != 0;
}

/* The clock of the loop of @op: pp_clock_now(). */
static inline __attribute__((always_inline)) uint64_t fast_now(enum fast_op op)
{
	return pp_clock_now(!fast_mono(op));
}

/* An atomic: its old value comes back, and is checked. */
static inline bool fast_atomic(enum fast_op op)
{
	return fast_kind(op) == FAST_FETCH_ADD ||
	       fast_kind(op) == FAST_CMP_SWAP;
}

/* A read or an atomic: the request's completion is the round trip. */
static inline bool fast_request(enum fast_op op)
{
	return fast_kind(op) == FAST_READ || fast_atomic(op);
}

/* client_fast()'s state: the loop's own, in locals, and the run's. */
struct fast {
	struct run *s;
	/* the provider's entry points, as ibv_poll_cq()/ibv_post_send() */
	int (*poll)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	int (*post)(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad);
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct pp_lhist *h;  /* the histogram, or NULL: samples */
	uint64_t *samples;   /* in ticks, converted after the loop (pp_run()) */
	double scale;	     /* ns per tick */
	int64_t loss_ns;     /* a lossy reply's deadline after its send */
	uint64_t end;	     /* -D: when it is up, in ticks */
	uint64_t alive_at;   /* Read: when ALIVE may be due (s->next_alive) */
	uint64_t due;	     /* the sooner of the two (fast_due()) */
	uint64_t look_ticks; /* PP_FAST_LOOK_NS, in ticks (rounds_look()) */
	uint64_t lost;	     /* ticks spent waiting for lost replies ... */
	uint64_t tail_lost;  /* ... of which since completion tail_from */
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
	/* ... and what it is in message 0 (pp_write_flag_at()) */
	uint8_t out_base, in_base;
	uint8_t want_flag; /* the flag of the peer's message awaited */
	/*
	 * An atomic: where its old value lands, the value the next one finds
	 * (atomic k finds k * step: pp_op_atomic_word()), and the iteration
	 * PP_TEST_CORRUPT flips (pp_run_corrupt()), or UINT64_MAX.  The
	 * landing area holds the value atomic k - 1 found until atomic k
	 * writes it, which is never k's: so no atomic's lost write passes
	 * (before atomic 0, a value unlike 0)
	 */
	uint8_t *old_in;
	uint64_t word, step, corrupt_at;
	struct ibv_wc wc; /* request_rounds()'s poll */
	uint32_t fast_len, rx_batch, sig_flags, unsig_flags;
	uint32_t unsignaled, pending;
	uint32_t got_seq; /* server: the message's number (fast_take()) */
	bool busy, lossy;
	/* FAST_MONO: f->tgot ended the last round trip, and starts the next */
	bool chained;
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
			if (fast_request(op)) { /* the round trip */
				f->tgot = fast_now(op);
				*got = true;
			}
			if (!f->lossy)
				s->progressed = true;
			continue;
		}
		if (ok && w->imm_data == want_be &&
		    w->byte_len == f->fast_len &&
		    (w->wc_flags & IBV_WC_WITH_IMM) && !*got) {
			f->tgot = fast_now(op);
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
			f->tgot = fast_now(op);
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
	int64_t now = pp_clock_look_ns();
	int ret;

	s->iter = i;
	ret = pp_run_look_around(
		s, now, wait ? pp_clock_ns_of(t0) + loss_ns : INT64_MAX);
	if (ret == ETIME)
		return FAST_LOST;
	return ret ? ret : pp_run_peek_due(s, now);
}

/*
 * The round trip of iteration @i began at @t0, past f->due: -D is up
 * (FAST_TIME_UP), or a read's or an atomic's ALIVE is due; f->due again.
 */
static int fast_due(struct fast *f, uint64_t i, uint64_t t0)
{
	struct run *s = f->s;
	int64_t now;
	int ret;

	if (t0 >= f->end)
		return FAST_TIME_UP;
	if (t0 >= f->alive_at) {
		/* the passive server hears this, else nothing of the run */
		now = pp_clock_ns_of(t0);
		ret = pp_run_alive_due(s, now, i);
		if (ret)
			return ret;
		f->alive_at = t0 + (uint64_t)((double)(s->next_alive - now) /
					      f->scale);
	}
	f->due = f->end < f->alive_at ? f->end : f->alive_at;
	return 0;
}

/* A post of iteration @i (message @seq) failed with @ret: say so. */
static int fast_post_failed(struct run *s, uint64_t i, uint32_t seq,
			    enum fast_op op, int ret)
{
	if (fast_kind(op) != FAST_SEND)
		pp_err_set(s->err, "post %s%s at iteration %llu failed: %s",
			   fast_atomic(op) ? "" : "RDMA ",
			   pp_op_name(s->r->attr.op), (unsigned long long)i,
			   strerror(ret));
	else
		pp_err_set(s->err, "post send at iteration %u failed: %s", seq,
			   strerror(ret));
	return ret;
}

/*
 * A measured post took @d ticks: its sum and maximum.  The cycle counter
 * of the lean loops (pp_clock.ticks: constant and in step on every CPU)
 * does not go back, so @d is not tested: a negative one could only come
 * from counters out of step, and would count as such, never as the maximum.
 */
static inline __attribute__((always_inline)) void fast_post_time(struct fast *f,
								 int64_t d)
{
	f->post_sum += (uint64_t)d;
	if (d > (int64_t)f->post_max)
		f->post_max = (uint64_t)d;
}

/*
 * An atomic: the value it must find, *@word (atomic k finds k * step: f->word,
 * or request_rounds()'s copy of it in a register), the next one's, and a
 * compare-and-swap's operands (the value it finds, the next).
 */
static inline __attribute__((always_inline)) uint64_t
fast_atomic_next(struct fast *f, enum fast_op op, uint64_t *word)
{
	uint64_t expect = *word;

	*word += f->step;
	if (fast_kind(op) == FAST_CMP_SWAP) {
		f->s->swr.wr.atomic.compare_add = expect;
		f->s->swr.wr.atomic.swap = *word;
	}
	return expect;
}

/* ... did it find @expect?  *@old: what it found. */
static inline __attribute__((always_inline)) bool
fast_atomic_found(const struct fast *f, uint64_t expect, uint64_t *old)
{
	memcpy(old, f->old_in, sizeof(*old));
	return *old == expect;
}

/*
 * ... so what atomic @i returned is always checked (request_client()),
 * after the PP_TEST_CORRUPT hook
 */
static inline __attribute__((always_inline)) int
fast_atomic_check(struct fast *f, uint64_t i, uint64_t expect)
{
	uint64_t old;

	if (i == f->corrupt_at)
		pp_run_corrupt(f->s, f->old_in, sizeof(old), i);
	if (!fast_atomic_found(f, expect, &old))
		return pp_run_atomic_bad(f->s, i, old, expect);
	return 0;
}

/*
 * Post the send of message @seq (its number @want_be), the write of
 * message @seq (its flag last), or the read of iteration @i: every
 * PP_TX_DEPTH-th send or write signaled, every read; @t0, the clock before
 * the post, times ibv_post_send() when @measured (not under FAST_MONO);
 * the return of the @first measured post is the start of the run's time
 * (f->tfirst).
 */
static inline __attribute__((always_inline)) int
fast_post(struct fast *f, uint64_t i, uint32_t seq, uint32_t want_be,
	  bool measured, bool first, enum fast_op op, uint64_t t0)
{
	struct run *s = f->s;
	struct ibv_send_wr *bad;
	int ret;

	if (fast_request(op)) {
		/* every read and atomic is signaled: pp_res_send_wr() */
		f->busy = true;
	} else {
		if (fast_kind(op) == FAST_SEND)
			s->swr.imm_data = want_be;
		else /* the peer's write back showed ours landed: free */
			*f->flag_out = pp_write_flag_at(f->out_base, seq);
		if (++f->unsignaled < PP_TX_DEPTH) {
			s->swr.send_flags = f->unsig_flags;
		} else {
			s->swr.send_flags = f->sig_flags;
			f->unsignaled = 0;
			f->busy = true;
		}
	}
	ret = f->post(f->qp, &s->swr, &bad);
	if (ret)
		return fast_post_failed(s, i, seq, op, ret);
	if (measured && fast_mono(op)) {
		/* no post timed: the run's start alone is read */
		if (first)
			f->tfirst = fast_now(op);
	} else if (measured) {
		uint64_t now = fast_now(op);

		if (first) /* "The run's start", docs/measurement.md */
			f->tfirst = now;
		fast_post_time(f, (int64_t)(now - t0));
		f->posts++;
	}
	return 0;
}

_Static_assert(IBV_WC_SUCCESS == 0, "fast_one_success() takes 0 as success");

/*
 * Whether a poll's @n and first completion @wc are one completion, a
 * success: the request's own, or a write's, as such a client posts no
 * receive (pp_op_uses_recv()); a test of both at once.
 */
static inline __attribute__((always_inline)) bool
fast_one_success(int n, const struct ibv_wc *wc)
{
	return !(((uint32_t)n ^ 1U) | (uint32_t)wc->status);
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

	if (fast_request(op)) {
		/*
		 * A read's or an atomic's completion is the one awaited: one
		 * poll for it alone first (no batch to fill)
		 */
		n = poll(cq, 1, wc);
		if (fast_one_success(n, wc)) {
			f->tgot = fast_now(op);
			f->busy = false;
			*got = true;
			s->progressed = true;
			return 0;
		}
		if (n > 0) {
			ret = fast_take(f, wc, n, i, want_be, got, op);
			if (ret)
				return ret;
		}
	}
	for (;;) {
		if (fast_kind(op) == FAST_WRITE && !*got &&
		    pp_write_landed(f->flag_in, f->want_flag)) {
			f->tgot = fast_now(op);
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
	/* a message's number: a read's or an atomic's has none */
	uint32_t seq = fast_request(op) ? 0 : s->cfg->first_seq + (uint32_t)i;
	uint32_t want_be = fast_request(op) ? 0 : htonl(seq);
	bool got = false, gone = false;
	uint64_t t0, expect = 0;
	int64_t d;
	int ret;

	if (pp_signal_caught()) {
		s->iter = i;
		return pp_run_interrupted(s);
	}
	/* FAST_MONO: where the last round trip ended, if it did */
	t0 = fast_mono(op) && f->chained ? f->tgot : fast_now(op);
	if (first)
		*t0p = t0;
	if (t0 >= f->due) {
		ret = fast_due(f, i, t0);
		if (ret)
			return ret;
	}
	if (fast_kind(op) == FAST_WRITE)
		f->want_flag = pp_write_flag_at(f->in_base, seq);
	if (fast_atomic(op))
		expect = fast_atomic_next(f, op, &f->word);
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
			d = (int64_t)(fast_now(op) - t0);
			f->lost += (uint64_t)d;
			/* ... nor is it inside the run if no reply follows */
			if (f->tail_from != f->completed) {
				f->tail_from = f->completed;
				f->tail_lost = 0;
			}
			f->tail_lost += (uint64_t)d;
		}
		s->res->lost++;
		if (fast_mono(op))
			f->chained = false;
		return 0;
	}
	if (fast_mono(op))
		f->chained = true;
	if (fast_atomic(op)) {
		ret = fast_atomic_check(f, i, expect);
		if (ret)
			return ret;
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
 * request_rounds()'s and write_rounds()'s rare cases, out of their loops:
 * a round of @op (fast_round(), measured) ...
 */
#define SLOW_ROUND(o)                                         \
	case o:                                               \
		return fast_round(f, i, true, false, o, &t0); \
	case o | FAST_MONO:                                   \
		return fast_round(f, i, true, false, o | FAST_MONO, &t0)

static __attribute__((noinline)) int slow_round(struct fast *f, uint64_t i,
						enum fast_op op)
{
	uint64_t t0;

	switch ((int)op) {
		SLOW_ROUND(FAST_FETCH_ADD);
		SLOW_ROUND(FAST_CMP_SWAP);
		SLOW_ROUND(FAST_WRITE);
	default:
		break;
	}
	if (fast_mono(op))
		return fast_round(f, i, true, false, FAST_READ | FAST_MONO,
				  &t0);
	return fast_round(f, i, true, false, FAST_READ, &t0);
}

/*
 * ... a write's wait (posted at @t0) when its peer's write had not landed
 * at the first looks, or its completion was not the first poll's (@got:
 * the peer's write landed, at f->tgot): fast_wait() (f->tgot: when it
 * landed); @op: FAST_WRITE, and its clock
 */
static __attribute__((noinline)) int write_slow_wait(struct fast *f, uint64_t i,
						     uint64_t t0, bool got,
						     enum fast_op op)
{
	bool gone = false;
	int ret;

	ret = fast_wait(f, i, 0, op, t0, &got, &gone);
	if (!ret && !got) { /* lossy: write_rounds() is not */
		pp_err_set(f->s->err, "RDMA write %llu: no write back",
			   (unsigned long long)i);
		ret = EIO;
	}
	return ret;
}

/*
 * ... and the wait for its completion (posted at @t0) when the first poll
 * found @n completions in f->wc, not one success: as fast_wait() after its
 * first poll (f->tgot: when it came); @op: the request, and its clock
 */
static __attribute__((noinline)) int request_slow_wait(struct fast *f, int n,
						       uint64_t i, uint64_t t0,
						       enum fast_op op)
{
	bool got = false, gone = false;
	int ret = 0;

	f->busy = true;
	if (n > 0)
		ret = fast_take(f, &f->wc, n, i, 0, &got, op);
	if (!ret && (!got || f->busy))
		ret = fast_wait(f, i, 0, op, t0, &got, &gone);
	if (!ret && !got) { /* a lossy request: none is */
		pp_err_set(f->s->err, "%s %llu: no completion",
			   pp_op_name(f->s->r->attr.op), (unsigned long long)i);
		ret = EIO;
	}
	return ret;
}

/*
 * request_rounds()'s and write_rounds()'s samples since @first, up to
 * @sample, into f (a read's or an atomic's posts too: fast_post() counts
 * a write's)
 */
static inline __attribute__((always_inline)) void
rounds_count(struct fast *f, enum fast_op op, const uint64_t *sample,
	     const uint64_t *first)
{
	uint64_t k = (uint64_t)(sample - first);

	if (fast_request(op) && !fast_mono(op))
		f->posts += k;
	f->completed += k;
	f->s->progressed |= k != 0;
}

/*
 * ... and their hand-off of round @i to slow_round(), their locals in f
 * before it and from it after: *@sample and *@first, *@tgot and
 * *@chained, *@word (an atomic's next value; NULL: a write has none)
 */
static inline __attribute__((always_inline)) int
rounds_slow(struct fast *f, uint64_t i, enum fast_op op, uint64_t **sample,
	    uint64_t **first, uint64_t *tgot, bool *chained, uint64_t *word)
{
	int ret;

	rounds_count(f, op, *sample, *first);
	if (word)
		f->word = *word;
	if (fast_mono(op)) {
		f->tgot = *tgot;
		f->chained = *chained;
	}
	ret = slow_round(f, i, op);
	*sample = *first = f->samples + f->completed;
	*tgot = f->tgot;
	*chained = f->chained;
	if (word)
		*word = f->word;
	return ret;
}

/*
 * A round of request_rounds() or write_rounds() that began at @t0, past
 * their next look: when the next is due (at most PP_FAST_LOOK_NS on), or
 * 0 when this round is slow_round()'s (the signal, or f->due: -D, ALIVE).
 * So the rounds between two looks test one deadline, not the signal too.
 */
static __attribute__((noinline)) uint64_t rounds_look(const struct fast *f,
						      uint64_t t0)
{
	uint64_t next = t0 + f->look_ticks;

	if (pp_signal_caught() || t0 >= f->due)
		return 0;
	return next < f->due ? next : f->due;
}

/*
 * The measured round trips @*ip to @to of a read or an atomic, their
 * samples raw (no histogram): fast_round()'s steps, with the clock
 * readings, the sample's place, an atomic's next value and the completion
 * in locals, so that they stay in registers.  A round that is not plain
 * takes fast_round()'s way: the signal or f->due (-D, ALIVE) at a look
 * (rounds_look()); after its post, a poll that finds no completion or
 * another than the request's success.  *ip: the round it stopped at.
 */
static inline __attribute__((always_inline)) int
request_rounds(struct fast *f, uint64_t *ip, uint64_t to, enum fast_op op)
{
	struct run *s = f->s;
	struct ibv_send_wr *wr = &s->swr, *bad;
	uint64_t *sample = f->samples + f->completed, *first = sample;
	uint64_t i, t0, tgot = f->tgot, look = 0, word = f->word, expect = 0;
	uint64_t old;
	bool chained = f->chained;
	int n, ret = 0;

	for (i = *ip; i < to; i++) {
		t0 = fast_mono(op) && chained ? tgot : fast_now(op);
		if (__builtin_expect(t0 >= look, 0)) {
			look = rounds_look(f, t0);
			if (t0 >= look) {
				ret = rounds_slow(f, i, op, &sample, &first,
						  &tgot, &chained, &word);
				if (ret)
					break;
				continue;
			}
		}
		if (fast_atomic(op))
			expect = fast_atomic_next(f, op, &word);
		ret = f->post(f->qp, wr, &bad);
		if (__builtin_expect(ret != 0, 0)) {
			ret = fast_post_failed(s, i, 0, op, ret);
			break;
		}
		if (!fast_mono(op))
			fast_post_time(f, (int64_t)(fast_now(op) - t0));
		n = f->poll(f->cq, 1, &f->wc);
		if (__builtin_expect(!fast_one_success(n, &f->wc), 0)) {
			s->progressed |= sample != first;
			ret = request_slow_wait(f, n, i, t0, op);
			if (ret)
				break;
			tgot = f->tgot;
		} else {
			tgot = fast_now(op);
		}
		/* fast_atomic_check() without its hook: @to stops before */
		if (fast_atomic(op) &&
		    __builtin_expect(!fast_atomic_found(f, expect, &old), 0)) {
			ret = pp_run_atomic_bad(s, i, old, expect);
			break;
		}
		*sample++ = tgot - t0;
		chained = true;
	}
	rounds_count(f, op, sample, first);
	f->tgot = tgot;
	f->chained = chained;
	f->word = word;
	*ip = i;
	return ret;
}

/*
 * The measured round trips @*ip to @to of an RDMA Write client that does
 * not lose (RC), their samples raw: as request_rounds(), fast_round()'s
 * steps with the clock readings and the sample's place in locals; the
 * post is fast_post()'s; a round whose peer's write is there at the first
 * look, and its completion (if signaled) at the first poll, ends there;
 * any other waits in fast_wait() (write_slow_wait()), whose looks are
 * pp_write_landed()'s: the instruction count's looks (cgsplit.py).
 */
static inline __attribute__((always_inline)) int
write_rounds(struct fast *f, uint64_t *ip, uint64_t to, enum fast_op op)
{
	struct run *s = f->s;
	uint64_t *sample = f->samples + f->completed, *first = sample;
	uint64_t i, t0, tgot = f->tgot, look = 0;
	uint32_t seq = s->cfg->first_seq + (uint32_t)*ip;
	bool landed, chained = f->chained;
	int n, ret = 0;

	for (i = *ip; i < to; i++, seq++) {
		t0 = fast_mono(op) && chained ? tgot : fast_now(op);
		if (__builtin_expect(t0 >= look, 0)) {
			look = rounds_look(f, t0);
			if (t0 >= look) {
				ret = rounds_slow(f, i, op, &sample, &first,
						  &tgot, &chained, NULL);
				if (ret)
					break;
				continue;
			}
		}
		f->want_flag = pp_write_flag_at(f->in_base, seq);
		ret = fast_post(f, i, seq, 0, true, false, op, t0);
		if (ret)
			break;
		/* one look: more are fast_wait()'s (pp_write_landed()) */
		landed = __atomic_load_n(f->flag_in, __ATOMIC_ACQUIRE) ==
			 f->want_flag;
		if (__builtin_expect(landed, 1)) {
			tgot = fast_now(op);
			/* a signaled write's completion: one poll for it */
			n = f->busy ? f->poll(f->cq, 1, &f->wc) : 0;
			if (__builtin_expect(!f->busy, 1) ||
			    fast_one_success(n, &f->wc)) {
				f->busy = false;
				*sample++ = tgot - t0;
				chained = true;
				continue;
			}
			f->tgot = tgot;
			if (n > 0) {
				ret = fast_take(f, &f->wc, n, i, 0, &landed,
						op);
				if (ret)
					break;
			}
		}
		s->progressed |= sample != first;
		ret = write_slow_wait(f, i, t0, landed, op);
		if (ret)
			break;
		tgot = f->tgot;
		*sample++ = tgot - t0;
		chained = true;
	}
	rounds_count(f, op, sample, first);
	f->tgot = tgot;
	f->chained = chained;
	*ip = i;
	return ret;
}

/*
 * The lean loops' state from the run's (client_fast(), server_fast()):
 * @rwr and @rsge, the chain of receives posted again and again (one
 * receive buffer: no -c), and the send built for QP 0.
 */
static inline __attribute__((always_inline)) void
fast_begin(struct run *s, struct fast *f, struct ibv_recv_wr *rwr,
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
		.due = s->alive_every ? 0 : UINT64_MAX,
		.look_ticks = (uint64_t)((double)PP_FAST_LOOK_NS /
					 pp_clock.ns_per_tick),
		.corrupt_at = UINT64_MAX,
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
		bool server = s->cfg->is_server;

		f->flag_out = r->send_buf + r->msg_size - 1;
		f->flag_in = r->recv_buf + r->msg_size - 1;
		f->out_base = pp_pattern_byte(r->msg_size - 1, 0, server);
		f->in_base = pp_pattern_byte(r->msg_size - 1, 0, !server);
	}
	if (pp_op_atomic(r->attr.op)) {
		f->old_in = r->recv_buf;
		f->word = pp_op_atomic_word(r->attr.op, 0);
		f->step = pp_op_atomic_word(r->attr.op, 1);
		f->corrupt_at = s->cfg->corrupt ? s->cfg->corrupt_seq :
						  UINT64_MAX;
		memset(f->old_in, 0xff, PP_OP_ATOMIC_SIZE);
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
static inline __attribute__((always_inline)) void fast_end(struct fast *f,
							   uint64_t recorded)
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
 * no -c, polling, no --interval), written for it (docs/dev/loop.md).  It measures what the general loop measures, at the
 * same points (under FAST_MONO: from the last arrival, fast_mono()), but
 * keeps the clock in ticks (FAST_MONO: ns) and
 * converts the sample only (the time inside ibv_post_send() is summed in
 * ticks and converted once); it polls the CQ itself and takes the awaited
 * reply and the send's completion inline, anything else (an error, a late
 * reply) through pp_run_on_wc().  The signal and -D are looked at once per
 * round trip (the rounds of a read, an atomic or a write: at least every
 * PP_FAST_LOOK_NS, rounds_look()); the signal again, the deadlines (-T, a
 * lost reply) and the peer's DONE every PP_SPINS_PER_CLOCK empty polls, as
 * pp_run_wait_cq() does.
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
	if (s->lossy &&
	    fast_kind(op) == FAST_SEND) /* Write: as write_client() */
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
		if (cfg->duration_ns) {
			f.end = t0 +
				(uint64_t)((double)cfg->duration_ns / f.scale);
			f.due = f.end < f.alive_at ? f.end : f.alive_at;
		}
		if (!ret)
			i++;
	}
	/* PP_TEST_CORRUPT's round is fast_round()'s (fast_atomic_check()) */
	if (!ret && fast_request(op) && !f.h)
		ret = request_rounds(
			&f, &i, f.corrupt_at < total ? f.corrupt_at : total,
			op);
	if (!ret && fast_kind(op) == FAST_WRITE && !f.h && !f.lossy)
		ret = write_rounds(&f, &i, total, op);
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

/*
 * client_fast() for each request, and each clock (@ticks: the cycle
 * counter, else FAST_MONO), a function of its own
 */
#define FAST_CLIENT(name, op)                                                \
	static __attribute__((noinline)) int name(struct run *s, bool ticks) \
	{                                                                    \
		return ticks ? client_fast(s, op) : name##_mono(s);          \
	}
#define FAST_CLIENT_MONO(name, op)                                      \
	static __attribute__((noinline)) int name##_mono(struct run *s) \
	{                                                               \
		return client_fast(s, op | FAST_MONO);                  \
	}

FAST_CLIENT_MONO(client_read, FAST_READ)
FAST_CLIENT(client_read, FAST_READ)
FAST_CLIENT_MONO(client_fetch_add, FAST_FETCH_ADD)
FAST_CLIENT(client_fetch_add, FAST_FETCH_ADD)
FAST_CLIENT_MONO(client_cmp_swap, FAST_CMP_SWAP)
FAST_CLIENT(client_cmp_swap, FAST_CMP_SWAP)

int pp_run_request_fast(struct run *s)
{
	switch (s->r->attr.op) {
	case PP_OP_FETCH_ADD:
		return client_fetch_add(s, pp_clock.ticks);
	case PP_OP_CMP_SWAP:
		return client_cmp_swap(s, pp_clock.ticks);
	default:
		break;
	}
	return client_read(s, pp_clock.ticks);
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
	int64_t abandoned = fast_kind(op) == FAST_WRITE ?
				    INT64_MAX :
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
		if (fast_kind(op) == FAST_WRITE)
			f.want_flag = pp_write_flag_at(f.in_base, want);
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
		/* FAST_MONO: the reply's round trip starts at this arrival */
		last_send = fast_mono(op) ? f.tgot : fast_now(op);
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
			last_send = fast_now(op);
	} else if (fast_mono(op)) {
		last_send =
			fast_now(op); /* the run's end: after the last post */
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

/* the Write client, a function of its own (its registers its own) */
FAST_CLIENT_MONO(client_write, FAST_WRITE)
FAST_CLIENT(client_write, FAST_WRITE)

/* the loops under CLOCK_MONOTONIC, functions of their own */
static __attribute__((noinline)) int write_fast_mono(struct run *s)
{
	return s->cfg->is_server ? server_fast(s, FAST_WRITE | FAST_MONO) :
				   client_write_mono(s);
}

static __attribute__((noinline)) int send_fast_mono(struct run *s)
{
	return s->cfg->is_server ? server_fast(s, FAST_SEND | FAST_MONO) :
				   client_fast(s, FAST_SEND | FAST_MONO);
}

int pp_run_write_fast(struct run *s)
{
	if (!pp_clock.ticks)
		return write_fast_mono(s);
	return s->cfg->is_server ? server_fast(s, FAST_WRITE) :
				   client_write(s, true);
}

int pp_run_send_fast(struct run *s)
{
	if (!pp_clock.ticks)
		return send_fast_mono(s);
	return s->cfg->is_server ? server_fast(s, FAST_SEND) :
				   client_fast(s, FAST_SEND);
}
