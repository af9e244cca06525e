/* SPDX-License-Identifier: MIT */
/*
 * pp_run_fast.h - the lean loop (docs/dev/loop.md): one
 * QP, polling, no -c, no --interval, under either clock; the client's and
 * the server's, for a send of ours, an RDMA Read and an RDMA Write.
 */
#ifndef PP_RUN_FAST_H
#define PP_RUN_FAST_H

#include <stdbool.h>

#include "pp_run_loop.h"

/**
 * pp_run_fast_fits() - can the client, or the server, take the lean loop
 * (docs/dev/loop.md): a send with our protocol, an
 * RDMA Read or an RDMA Write, on one QP, without -c, polling, without
 * --interval (under either clock: pp_clock.h)?
 * @s: the run
 */
bool pp_run_fast_fits(const struct run *s);

/**
 * pp_run_request_fast() - the lean loop for an RDMA Read or an atomic
 * (pp_run_fast_fits()): post it, poll for its completion, measure; the
 * send loop's own code with the request as its round trip; an atomic's
 * old value checked each time, as request_client() does
 * @s: the run
 *
 * Return: 0 or an error with @s->err set (EILSEQ: an atomic returned a
 * value other than its own, pp_run_atomic_bad()).
 */
int pp_run_request_fast(struct run *s);

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
 * pp_run_send_fast() - the lean loop for a send of ours
 * (pp_run_fast_fits()), the client's or the server's: what
 * pp_run_client_loop() and pp_run_server_loop() do, its clock in ticks,
 * the awaited completion and the send's taken inline
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_send_fast(struct run *s);

#endif /* PP_RUN_FAST_H */
