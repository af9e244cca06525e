/* SPDX-License-Identifier: MIT */
/*
 * pp_interop.h - --rdma-core: run against the stock rdma-core tools
 * (ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong,
 * ibv_xsrq_pingpong) in either role, with their out-of-band records
 * (pp_rdmacore.h) and their data loops (docs/interop.md).
 *
 * Nothing is negotiated: this side prints the command line the stock peer
 * must run, and both sides must be given the same -s, -n, -m, -q and -g.
 *
 *   client (us or stock)                 server (us or stock)
 *   record(s)                       ->   read, bring the QPs to RTS
 *                                   <-   record(s)
 *   "done" (not xsrq), close        ->   read, close
 *   RTR, RTS; data loop                  data loop
 *   xsrq only: "END"                ->   "END" back, close
 *
 * The exchange functions below work on any connected socket, so they are
 * tested over a socketpair; pp_exchange_stock puts them in a session.
 */
#ifndef PP_INTEROP_H
#define PP_INTEROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_err.h"
#include "pp_opts.h"
#include "pp_wire.h"

#define PP_INTEROP_MTU 1024U /* the stock tools' default -m */

/* One side's end of the out-of-band connection to a stock tool. */
struct pp_interop_link {
	int fd;
	bool is_server; /* this side's role */
	enum pp_transport transport;
	int timeout_ms; /* for each record or token */
};

/**
 * pp_interop_stock_name() - the stock tool that speaks @t
 * @t: the transport
 *
 * Return: "ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong",
 * "ibv_srq_pingpong", "ibv_xsrq_pingpong", or "?" outside the enum.
 */
const char *pp_interop_stock_name(enum pp_transport t);

/**
 * pp_interop_check_opts() - can @o run against a stock tool at all?
 * @o: parsed options with @o->rdma_core set
 * @err: one line naming the option and what to do
 *
 * Return: 0; EINVAL (srq -q above 256, xrc -q other than 1, xrc with -c,
 * --persistent).
 */
int pp_interop_check_opts(const struct pp_opts *o, struct pp_err *err);

/**
 * pp_interop_path_mtu() - the path MTU of a run against a stock tool
 * @o: the options
 *
 * Return: -m when given, else PP_INTEROP_MTU (the stock default); 0 for UD,
 * which has no path MTU.
 */
uint32_t pp_interop_path_mtu(const struct pp_opts *o);

/**
 * pp_interop_peer_cmd() - the command line the stock peer must run
 * @o: this side's options
 * @gid_index: the GID index this side uses, or -1 (then no -g)
 * @buf: output, NUL-terminated
 * @len: room in @buf
 *
 * "ibv_rc_pingpong -s 4096 -n 1000 -m 1024 -g 1 -c", with -p when the port
 * is not 18515, -q for srq, and "<this-host>" last when this side is the
 * server (the stock client needs its address).
 *
 * Return: 0; ENOSPC (@len too small; @buf holds a cut line).
 */
int pp_interop_peer_cmd(const struct pp_opts *o, int gid_index, char *buf,
			size_t len);

/**
 * pp_interop_send_addrs() - write this side's record(s), one write() each
 * @l: the link
 * @mine: the @n addresses (XRC: tgt_qpn, qpn, srqn filled)
 * @n: 1, or for srq 1..PP_RDMACORE_SRQ_RECS
 * @err: one line on failure
 *
 * rc, uc, ud: one 52-byte record; srq: 256 of them, the unused ones the
 * record of an all-zero address; xrc: one 66-byte record.
 *
 * Return: 0; EINVAL (an address that does not fit a record); ETIMEDOUT;
 * EPIPE or ECONNRESET (the peer is gone).
 */
int pp_interop_send_addrs(const struct pp_interop_link *l,
			  const struct pp_addr *mine, uint32_t n,
			  struct pp_err *err);

/**
 * pp_interop_recv_addrs() - read and check the peer's record(s)
 * @l: the link
 * @theirs: the @n addresses
 * @n: the number of QPs this side has; srq: the peer's records in use must
 *     be as many
 * @err: one line on failure, naming the stock tool and what is wrong
 *
 * Return: 0; EBADMSG or EPROTO (a malformed record); EPROTO (srq: another
 * -q); ETIMEDOUT; ECONNRESET (EOF before the whole record).
 */
int pp_interop_recv_addrs(const struct pp_interop_link *l,
			  struct pp_addr *theirs, uint32_t n,
			  struct pp_err *err);

/**
 * pp_interop_send_done() - the client's "done" after the records
 * @l: the link
 * @err: one line on failure
 *
 * Return: 0; ETIMEDOUT; EPIPE or ECONNRESET.
 */
int pp_interop_send_done(const struct pp_interop_link *l, struct pp_err *err);

/**
 * pp_interop_recv_done() - the server reads the client's "done"
 * @l: the link
 * @err: one line on failure
 *
 * Return: 0; EPROTO (other bytes); ETIMEDOUT; ECONNRESET.
 */
int pp_interop_recv_done(const struct pp_interop_link *l, struct pp_err *err);

/**
 * pp_interop_end() - the xsrq ending: the client writes "END" and waits for
 * the server's; the server waits for the client's and answers it
 * @l: the link (still open after the run)
 * @err: one line on failure
 *
 * Return: 0; EPROTO (not the token); ETIMEDOUT; ECONNRESET (the peer closed
 * first); EPIPE.
 */
int pp_interop_end(const struct pp_interop_link *l, struct pp_err *err);

/*
 * The stock exchange of a session (pp_session.h): nothing is negotiated
 * (this side's options, with the path MTU of pp_interop_path_mtu()); the
 * line "rdma-core mode: the peer must run: ..." is printed first; then the
 * records in the stock order, and the stock loop variant of the run
 * (pp_run.h).  A failure in the data loop adds that the stock peer, which
 * never times out, must be stopped by hand.
 */
struct pp_exchange;
extern const struct pp_exchange pp_exchange_stock;

#endif /* PP_INTEROP_H */
