/* SPDX-License-Identifier: MIT */
/*
 * pp_run.h - the ping-pong itself: pp_run() sets up a run's state, hands it
 * to the loop variant, and finishes its samples; pp_run_prepare() before
 * READY.
 *
 * The client sends message i (its number travels as immediate data), waits
 * for the server's reply i and records the round trip; the server replies to
 * each message on the same connection.  With N QPs, message i uses QP
 * i mod N on both sides.  Receives are posted ahead and reposted as they
 * complete.  In polling mode nothing inside an iteration makes a system call
 * or allocates: the clock is the cycle counter (pp_clock.h), or
 * CLOCK_MONOTONIC read once per round trip in the lean loop, the deadline is
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
#include "pp_run_types.h"

#define PP_LOSS_TIMEOUT_MAX_MS 1000 /* UD: longest wait for one reply */

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

#endif /* PP_RUN_H */
