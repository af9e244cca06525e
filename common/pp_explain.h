/* SPDX-License-Identifier: MIT */
/*
 * pp_explain.h - what a failed work completion most likely means, in words
 * an engineer can act on: pure functions over the completion's status and
 * what the run knows of its path.
 *
 * A completion status names what the NIC saw ("transport retry counter
 * exceeded"), not why; the likely causes depend on the transport (only a
 * reliable QP waits for acknowledgements) and on this side's port (a port
 * a port that went down explains any status).  Every status of enum
 * ibv_wc_status has an entry; docs/troubleshooting.md is the long form of
 * the same table.
 */
#ifndef PP_EXPLAIN_H
#define PP_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the run knows when a completion fails. */
struct pp_explain_ctx {
	bool recv;	  /* the failed work request was a receive */
	bool grh;	  /* the path has a GRH (RoCE, or -g on InfiniBand) */
	const char *port; /* "rxe0:1", for the port's own line */
	int port_state;	  /* enum ibv_port_state read after the failure; 0:
			   * not known */
	/* a one-sided operation (pp_op.h): its name, or NULL for a send */
	const char *op;
	uint32_t rkey;	/* ... the peer's rkey it used */
	uint64_t raddr; /* ... the peer's address */
	uint32_t len;	/* ... and the bytes asked */
};

/**
 * pp_explain_wc() - the likely causes of a failed completion, and what to do
 * @status: the completion's enum ibv_wc_status (not IBV_WC_SUCCESS)
 * @ctx: what the run knows of the failed request and its path
 * @buf: output: one line without a final period ("the peer's NIC did not
 *       acknowledge: a wrong GID or route (...), a link down on the path,
 *       or the peer host gone"); "" when nothing useful is known
 * @len: room in @buf
 *
 * Return: @buf.
 */
char *pp_explain_wc(int status, const struct pp_explain_ctx *ctx, char *buf,
		    size_t len);

#endif /* PP_EXPLAIN_H */
