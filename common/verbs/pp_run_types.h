/* SPDX-License-Identifier: MIT */
/*
 * pp_run_types.h - what a run is given and what it gives back: its
 * configuration, its result, the figures of one --interval; types only.
 */
#ifndef PP_RUN_TYPES_H
#define PP_RUN_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_wire.h"

/*
 * Message numbers of size k of a sweep start at k * PP_SEQ_STRIDE, so that
 * a late UD reply is never taken for one of another size: a stride holds
 * PP_MAX_WARMUP + PP_MAX_ITERS numbers, and PP_SWEEP_MAX strides fit in the
 * 32 bits of the immediate data.
 */
#define PP_SEQ_STRIDE 130150524U /* 2^32 / PP_SWEEP_MAX */

struct pp_lhist;
struct pp_run_loop;
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
	/*
	 * the client's -T (HELLO; 0: unknown, -T then): a Read or atomics
	 * client sends ALIVE every third of it, and the passive server waits
	 * that long for one (pp_hs_wait_done())
	 */
	int client_timeout_ms;
	/*
	 * the loop variant: NULL or &pp_run_loop_ours (pp_run_general.h),
	 * &pp_run_loop_stock (pp_run_stock.h), pp_run_loop_of_op()
	 * (pp_run_rdma.h)
	 */
	const struct pp_run_loop *loop;
	/* --samples: keep every raw sample, even where a pp_lhist would do */
	bool keep_raw;
	/* --interval: the figures of each interval of this long; 0: none */
	int64_t interval_ns;
	/* ... handed, as each interval ends, to this (may be NULL) */
	void (*on_interval)(void *arg, const struct pp_run_interval *iv);
	void *interval_arg;
	/*
	 * A test hook (PP_TEST_CORRUPT, pp_session.c; docs/dev/testing.md): with
	 * -c, message corrupt_seq carries byte corrupt_off (mod its length)
	 * flipped (pp_run_corrupt())
	 */
	bool corrupt;
	uint32_t corrupt_seq;
	uint64_t corrupt_off;
};

struct pp_run_result {
	uint64_t size;	      /* message size of the run */
	uint64_t completed;   /* measured iterations completed */
	uint64_t lost;	      /* UD: iterations (warm-up too) whose message was
			       lost */
	double seconds;	      /* wall time of completed measured iterations */
	uint64_t posts;	      /* measured sends posted ... */
	uint64_t post_ns;     /* ... the time spent inside ibv_post_send() */
	uint64_t post_max_ns; /* ... and the longest one */
	uint64_t *samples;    /* round trips in ns; free with pp_run_free()
			       (pp_run_rec.h) */
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

#endif /* PP_RUN_TYPES_H */
