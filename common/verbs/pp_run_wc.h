/* SPDX-License-Identifier: MIT */
/*
 * pp_run_wc.h - work requests and their completions: sends posted,
 * receives reposted, each completion taken (errors explained, the variant's
 * hooks called), and our protocol's hooks (the number of each message in
 * its immediate data, -c with our pattern).
 */
#ifndef PP_RUN_WC_H
#define PP_RUN_WC_H

#include <stdbool.h>
#include <stdint.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "pp_clock.h"
#include "pp_run_loop.h"

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
 * pp_run_flush_recv() - post the receives that replace the completed ones
 * (s->rx_pending), all at once
 * @s: the run
 * @qp_index: the QP (or 0: the SRQ)
 *
 * Return: 0 or the errno of the post, with @s->err set.
 */
int pp_run_flush_recv(struct run *s, uint32_t qp_index);

/**
 * pp_run_on_wc() - take one completion the long way: a failed one
 * explained (pp_explain_wc()), a send handed to the variant's on_send(), a
 * receive to its on_recv()
 * @s: the run
 * @wc: the completion
 *
 * Return: 0; EIO (a failed completion, @s->err names it); or what on_recv()
 * returned.
 */
int pp_run_on_wc(struct run *s, const struct ibv_wc *wc);

/**
 * pp_run_take_fast() - the common completion of ours, taken inline: the
 * reply (client) or message (server) awaited, with its number and length
 * right, or a send
 * @s: the run (s->fast_len set: ours, without -c)
 * @wc: the completion
 *
 * Anything else goes the long way (pp_run_on_wc()): errors, UD's late
 * replies, the stock variant.  Inline: the general loops' wait
 * (pp_run_wait_cq()) takes every completion through it.
 *
 * Return: true when it took @wc (a receive still to be reposted).
 */
static inline bool pp_run_take_fast(struct run *s, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS)
		return false;
	if (!PP_WRID_IS_RECV(wc->wr_id)) {
		s->send_busy = false;
		return true;
	}
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || s->got ||
	    ntohl(wc->imm_data) != s->want || wc->byte_len != s->fast_len)
		return false;
	s->heard = true;
	s->got = true;
	s->got_seq = s->want;
	s->got_ns = pp_clock_ns();
	return true;
}

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
 * pp_run_post_send() - post the send of message @seq, its number in the
 * immediate data, on QP @seq mod the QPs
 * @s: the run
 * @seq: the message number
 *
 * Return: 0, or the errno of the post with @s->err set.
 */
int pp_run_post_send(struct run *s, uint32_t seq);

/**
 * pp_run_beyond() - the server: message of iteration @i, past the run's
 * @total, is an error
 * @s: the run
 * @i: the message's iteration
 * @total: the iterations of the run, warm-up included
 *
 * Return: EPROTO, with @s->err set.
 */
int pp_run_beyond(struct run *s, uint64_t i, uint64_t total);

/*
 * Our protocol's hooks (pp_run_loop_ours, pp_run_general.h): every message
 * carries its number as immediate data; on_recv() accepts the one awaited
 * (checked with our pattern under -c) and reposts its receive; on_send()
 * frees the send; fill() writes our pattern (pp_pattern_fill()).
 */
int pp_run_ours_on_recv(struct run *s, const struct ibv_wc *wc);
void pp_run_ours_on_send(struct run *s, const struct ibv_wc *wc);
void pp_run_ours_fill(struct run *s, uint32_t seq, bool from_server);

/**
 * pp_run_link_down() - is the run's port, or its GID's network device,
 * down? (what -T without progress can name as its cause)
 * @s: the run
 * @buf: the line that says so (pp_explain_wc()), when it returns true
 * @len: room in @buf
 *
 * Return: true when the port is not active or the netdev is down or has no
 * carrier.
 */
bool pp_run_link_down(struct run *s, char *buf, size_t len);

/**
 * pp_run_corrupt() - the PP_TEST_CORRUPT test hook: flip one byte of
 * message @seq, when it is the one the hook names (pp_run_cfg.corrupt)
 * @s: the run
 * @buf: the message's data (sent, or as it came back to a Read or an
 *       atomic, before its check)
 * @len: its length; 0: nothing to flip
 * @seq: its number, as the mismatch line prints it
 */
void pp_run_corrupt(const struct run *s, uint8_t *buf, size_t len,
		    uint64_t seq);

/**
 * pp_run_atomic_bad() - atomic @k returned @old where @expect was due: say
 * so (request_client()'s check, pp_run_rdma.c, and the lean loop's,
 * pp_run_fast.c)
 * @s: the run
 * @k: the iteration
 * @old: what came back
 * @expect: what it should have found
 *
 * Return: EILSEQ, with @s->err set.
 */
int pp_run_atomic_bad(struct run *s, uint64_t k, uint64_t old, uint64_t expect);

#endif /* PP_RUN_WC_H */
