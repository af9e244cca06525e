/* SPDX-License-Identifier: MIT */
/*
 * pp_run_wait.h - the waits: the CQ polled (or the completion channel
 * slept on) until a completion, a deadline, the signal or the peer's DONE
 * or ERROR; the look at a Write's last byte.
 */
#ifndef PP_RUN_WAIT_H
#define PP_RUN_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "pp_clock.h"
#include "pp_run_loop.h"

#define PP_POLL_BATCH 16
#define PP_SPINS_PER_CLOCK 256 /* empty polls between clock reads */
#define PP_PEEK_NS 1000000LL   /* look at the socket once a ms */

/**
 * pp_run_clock_deadline() - pp_deadline() on the loop's clock (pp_clock.h)
 * @timeout_ms: from now; negative: none
 *
 * Return: the deadline, or INT64_MAX.
 */
static inline int64_t pp_run_clock_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return INT64_MAX;
	return pp_clock_ns() + (int64_t)timeout_ms * 1000000;
}

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
 * pp_run_wait_send() - process completions until the signaled send is done
 * @s: the run (@s->send_busy: a signaled send is outstanding)
 *
 * Inline: the general server loop asks it once per round trip.
 *
 * Return: 0, or what pp_run_wait_cq() failed with.
 */
static inline int pp_run_wait_send(struct run *s)
{
	int ret;

	while (s->send_busy) {
		ret = pp_run_wait_cq(s, INT64_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pp_run_look_around() - what is looked at every PP_SPINS_PER_CLOCK empty
 * polls (each wake-up with -e): progress since the last look moves the
 * no-progress deadline; then the signal, @loss_deadline and -T
 * @s: the run
 * @now: the clock, just read
 * @loss_deadline: a lossy client's deadline for the awaited reply, or
 *                 INT64_MAX
 *
 * Return: 0; ETIME (@loss_deadline passed); ECANCELED
 * (pp_run_interrupted()); ETIMEDOUT (-T, with @s->err set); the errors of
 * pp_run_alive_due().
 */
int pp_run_look_around(struct run *s, int64_t now, int64_t loss_deadline);

/**
 * pp_run_alive_due() - a Read or atomics client: ALIVE to the passive server
 * when s->alive_every has passed since the last one (else nothing)
 * @s: the run
 * @now: the clock, just read
 * @done: the iterations finished, warm-up too
 *
 * Return: 0, or the errors of pp_hs_send_alive() with @s->err set.
 */
int pp_run_alive_due(struct run *s, int64_t now, uint64_t done);

/**
 * pp_run_peek_due() - polling: a look at the socket once a PP_PEEK_NS, for
 * the peer's DONE or ERROR
 * @s: the run
 * @now: the clock, just read
 *
 * Return: 0; PP_RUN_PEER_DONE (the DONE is in s->res); or an error with
 * @s->err set (ECONNABORTED: the peer's ERROR; ECONNRESET).
 */
int pp_run_peek_due(struct run *s, int64_t now);

/**
 * pp_run_interrupted() - SIGINT or SIGTERM came: say where the run stopped
 * @s: the run
 *
 * Return: ECANCELED, with @s->err set.
 */
int pp_run_interrupted(struct run *s);

#define PP_WRITE_SPINS 64 /* Write: looks at the last byte per poll */

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

#endif /* PP_RUN_WAIT_H */
