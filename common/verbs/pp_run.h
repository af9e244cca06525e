/* SPDX-License-Identifier: MIT */
/*
 * pp_run.h - the ping-pong itself.
 *
 * The client sends message i (its number travels as immediate data), waits
 * for the server's reply i and records the round trip; the server replies to
 * each message on the same connection.  With N QPs, message i uses QP
 * i mod N on both sides.  Receives are posted ahead and reposted as they
 * complete.  In polling mode nothing inside an iteration makes a system call
 * or allocates: the clock is the cycle counter (pp_clock.h), the deadline is
 * looked at once per 256 empty polls and the socket to the peer once a
 * millisecond.  Warm-up iterations come first and are not measured.
 *
 * UD and UC may lose a message or its reply.  The client gives each iteration a
 * deadline (pp_run_loss_timeout_ms()); an iteration without its reply by then
 * is counted as lost and the run goes on with the next one.  A reply that
 * comes later carries an older number than the one awaited and is dropped.
 * Lost iterations are not samples and their time is not run time.  The server
 * answers any message numbered at or above the one it expects; its loop ends
 * with the last message or with the client's DONE.  It leaves out of its
 * figures, likewise, a wait before a message that follows a gap in the
 * numbers or that lasted half the client's deadline or more: the client gave
 * up on an iteration during it.
 */
#ifndef PP_RUN_H
#define PP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_err.h"
#include "pp_hs.h"
#include "pp_res.h"

#define PP_LOSS_TIMEOUT_MAX_MS 1000 /* UD: longest wait for one reply */

/*
 * Message numbers of size k of a sweep start at k * PP_SEQ_STRIDE, so that
 * a late UD reply is never taken for one of another size: a stride holds
 * PP_MAX_WARMUP + PP_MAX_ITERS numbers, and PP_SWEEP_MAX strides fit in the
 * 32 bits of the immediate data.
 */
#define PP_SEQ_STRIDE 130150524U /* 2^32 / PP_SWEEP_MAX */

struct pp_hist;
struct pp_lhist;
struct pp_stats;

/*
 * The figures of one --interval (pp_run_cfg.interval_ns): the round trips
 * recorded since the previous one ended.  Every sample of the run belongs
 * to exactly one interval; the last one is cut short by the end of the run.
 */
struct pp_run_interval {
	uint64_t index;	  /* 1, 2, ... within one size */
	uint64_t size;	  /* message size */
	double start_s;	  /* from the start of the first measured round trip */
	double end_s;	  /* ... to the end of the last one of the interval */
	uint64_t samples; /* round trips recorded in it */
	const struct pp_stats *stats; /* their figures; NULL when none */
};

struct pp_run_cfg {
	bool is_server;
	uint64_t iters;	 /* measured iterations; -D: the most there may be */
	uint32_t warmup; /* iterations before them, not measured */
	int64_t duration_ns; /* client: stop measuring after this; 0: iters */
	uint32_t first_seq;  /* number of the first message (a warm-up one) */
	bool validate;	     /* fill and check the data pattern */
	bool use_event;	     /* sleep on the completion channel */
	int timeout_ms;	     /* fail when nothing (UD client: no reply) comes */
	int loss_timeout_ms; /* UD: a reply later is lost; 0: none may be */
	/* the loop variant: NULL or &pp_run_loop_ours, or &pp_run_loop_stock */
	const struct pp_run_loop *loop;
	/* --samples: keep every raw sample, even where a pp_lhist would do */
	bool keep_raw;
	/* --interval: the figures of each interval of this long; 0: none */
	int64_t interval_ns;
	/* ... handed, as each interval ends, to this (may be NULL) */
	void (*on_interval)(void *arg, const struct pp_run_interval *iv);
	void *interval_arg;
};

/*
 * The loop variants (pp_run_loop.h).  Ours: every message carries its
 * number as immediate data; -c is our pattern (pp_pattern_fill()).  Stock,
 * toward an rdma-core tool (docs/interop.md): messages carry no number
 * (plain sends, pp_res_attr.plain_send); -c is the stock rule
 * (pp_rdmacore_chk_fill(); the server checks each message with
 * pp_rdmacore_chk_ok(), the client that each reply echoes its message); an
 * srq server takes up to one message per QP at once and replies on the QP
 * it came in on, -n replies in all.
 */
struct pp_run_loop;
extern const struct pp_run_loop pp_run_loop_ours;
extern const struct pp_run_loop pp_run_loop_stock;

/*
 * The data the server of a read offers: pp_pattern_fill() of this message
 * number from the server, the same for every read and every size.
 */
#define PP_READ_SEQ 0U

/**
 * pp_run_loop_of_op() - the loop variant of a one-sided operation
 * (pp_run_rdma.c)
 * @op: the run's operation
 *
 * Write: each side polls its buffer's last byte for the peer's write.
 * Read, atomics: the client posts and waits for its completion; the server
 * waits for the client's DONE and takes no part.  Send and write-imm are
 * ours (a receive completes for each message).
 *
 * Return: the variant, or NULL for ours.
 */
const struct pp_run_loop *pp_run_loop_of_op(enum pp_op op);

struct pp_run_result {
	uint64_t size;	      /* message size of the run */
	uint64_t completed;   /* measured iterations completed */
	uint64_t lost;	      /* UD: iterations (warm-up too) whose message was
			       lost */
	double seconds;	      /* wall time of completed measured iterations */
	uint64_t posts;	      /* measured sends posted ... */
	uint64_t post_ns;     /* ... the time spent inside ibv_post_send() */
	uint64_t post_max_ns; /* ... and the longest one */
	uint64_t *samples;    /* round trips in ns; free with pp_run_free() */
	size_t nsamples;
	/*
	 * Instead of samples (NULL then, nsamples 0), past pp_run_keeps_lhist():
	 * the round trips in a log-linear histogram of constant size
	 * (pp_lhist.h); read the figures with pp_run_stats()/pp_run_hist().
	 */
	struct pp_lhist *lhist;
	bool peer_done;		    /* the peer's DONE arrived during the run */
	struct pp_done peer_result; /* ... and said this */
};

/**
 * pp_run() - run the ping-pong on connected resources
 * @r: resources, QPs at RTS, receives posted (pp_run_prepare())
 * @c: the TCP connection, watched for the peer's ERROR or DONE
 * @cfg: what to run
 * @res: the result, also on failure (iterations completed so far)
 * @err: one line on failure
 *
 * Return: 0; EIO (a completion with an error status: @err names it, with
 * ibv_wc_status_str() and the work request); EILSEQ (-c found data that
 * does not match: @err names iteration, offset, expected and received
 * bytes); EPROTO (a message out of order); ETIMEDOUT (nothing completed for
 * @cfg->timeout_ms, or on a lossy client no reply came for that long: @err
 * says at which iteration); ECONNABORTED (the peer sent ERROR:
 * @err->remote); ECONNRESET (the peer closed the connection); ECANCELED
 * (SIGINT or SIGTERM, pp_signal.h: "interrupted by SIGINT at iteration 12
 * of 1000"; the signal is noticed within about a millisecond); ENOMEM;
 * another errno from a verb.  Lost UD or UC iterations alone are no error: they
 * are counted in @res->lost.
 */
int pp_run(struct pp_res *r, const struct pp_conn *c,
	   const struct pp_run_cfg *cfg, struct pp_run_result *res,
	   struct pp_err *err);

/**
 * pp_run_loss_timeout_ms() - the UD per-iteration deadline for a -T timeout
 * @timeout_ms: the no-progress timeout of the run (-T/--timeout)
 *
 * A fifth of @timeout_ms, so that several losses in a row are counted before
 * the run gives up on the peer, and at most PP_LOSS_TIMEOUT_MAX_MS: far above
 * any round trip, short enough that a few losses cost seconds, not minutes.
 *
 * Return: the deadline in ms, at least 1.
 */
int pp_run_loss_timeout_ms(int timeout_ms);

/**
 * pp_run_prepare() - before READY: calibrate the loop's clock
 * (pp_clock_init()); post the first receives of every QP (or of the SRQ),
 * when the operation receives (send, write-imm); on the server of a read,
 * fill the data the client reads (pattern PP_READ_SEQ)
 * @r: resources, QPs created (receives may be posted from INIT on)
 * @err: one line on failure
 *
 * Return: 0 or the errno of the post.
 */
int pp_run_prepare(struct pp_res *r, struct pp_err *err);

/**
 * pp_run_keeps_lhist() - does a run keep a histogram instead of samples?
 * @cfg: the run
 *
 * A run of -D, or of more than PP_LHIST_RAW_LIMIT measured iterations,
 * keeps its round trips in a pp_lhist (270 KB whatever the length; every
 * percentile within 2^-11 of the raw-sample figure), unless --samples asks
 * for every raw sample (@cfg->keep_raw).
 *
 * Return: true when pp_run() fills @res->lhist, not @res->samples.
 */
bool pp_run_keeps_lhist(const struct pp_run_cfg *cfg);

/**
 * pp_run_stats() - the latency figures of a result, raw or histogram
 * @res: a result of pp_run()
 * @st: filled (pp_stats_compute() or pp_lhist_stats())
 *
 * Return: 0; EINVAL (no samples); ENOMEM.
 */
int pp_run_stats(const struct pp_run_result *res, struct pp_stats *st);

/**
 * pp_run_hist() - the --histogram bins of a result, raw or histogram
 * @res: a result of pp_run()
 * @nbins: most bins wanted
 * @out: filled (pp_hist_compute() or pp_lhist_hist())
 *
 * Return: 0; EINVAL (no samples); ENOMEM.
 */
int pp_run_hist(const struct pp_run_result *res, unsigned int nbins,
		struct pp_hist *out);

/**
 * pp_run_free() - release the samples of @res
 * @res: a result of pp_run()
 */
void pp_run_free(struct pp_run_result *res);

/**
 * pp_pattern_fill() - write the data pattern of message @seq from one side
 * @buf: the message
 * @len: its size
 * @seq: the iteration
 * @from_server: which side sends it
 */
void pp_pattern_fill(uint8_t *buf, size_t len, uint64_t seq, bool from_server);

/**
 * pp_pattern_check() - does @buf hold the pattern pp_pattern_fill() wrote?
 * @buf: the message received
 * @len: its size
 * @seq: the iteration
 * @from_server: which side sent it
 * @bad_off: the first offset that differs, when it returns false
 *
 * Return: true when every byte matches.
 */
bool pp_pattern_check(const uint8_t *buf, size_t len, uint64_t seq,
		      bool from_server, size_t *bad_off);

/**
 * pp_pattern_byte() - the byte at @off of message @seq from one side
 * @off: offset in the message
 * @seq: the iteration
 * @from_server: which side sends it
 *
 * Inline: the lean Write loop computes two flags per round trip.
 */
static inline uint8_t pp_pattern_byte(size_t off, uint64_t seq,
				      bool from_server)
{
	uint64_t x = off * 7 + (off >> 8) * 13 + seq * 29 +
		     (from_server ? 101 : 0) + 1;

	return (uint8_t)x;
}

/**
 * pp_write_flag() - the last byte of RDMA Write message @seq: the receiver
 * polls for it (pp_run_rdma.c)
 * @size: the message size, at least 1
 * @seq: the message number
 * @from_server: which side writes it
 *
 * Return: pp_pattern_byte() of the last byte, or 0x80 where that is 0:
 * never 0 (a fresh buffer), and never the flag of @seq - 1.
 */
static inline uint8_t pp_write_flag(uint64_t size, uint32_t seq,
				    bool from_server)
{
	uint8_t b = pp_pattern_byte(size - 1, seq, from_server);

	return b ? b : 0x80;
}

#endif /* PP_RUN_H */
