/* SPDX-License-Identifier: MIT */
/*
 * pp_explain.h - what a failed work completion or QP transition most likely
 * means, in words an engineer can act on: pure functions over the status
 * (or errno) and what the run knows of its path.
 *
 * A completion status names what the NIC saw ("transport retry counter
 * exceeded"), not why; the likely causes depend on the transport (only a
 * reliable QP waits for acknowledgements) and on this side's port (a port
 * that went down explains any status).  Every status of enum ibv_wc_status
 * has an entry; docs/troubleshooting.md is the long form of the same table.
 */
#ifndef PP_EXPLAIN_H
#define PP_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the run knows when a completion fails. */
struct pp_explain_ctx {
	bool recv;	    /* the failed work request was a receive */
	bool grh;	    /* the path has a GRH (RoCE, or -g on InfiniBand) */
	const char *port;   /* "rxe0:1", for the port's own line */
	int port_state;	    /* enum ibv_port_state read after the failure; 0:
			   * not known */
	const char *netdev; /* the GRH's GID's network device; NULL: none */
	int netdev_state;   /* ... its enum pp_explain_netdev then */
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

/* The state of a GID's network device, as far as it is known. */
enum pp_explain_netdev {
	PP_NETDEV_UNKNOWN = 0,
	PP_NETDEV_UP,	      /* up, with carrier */
	PP_NETDEV_DOWN,	      /* administratively down (ip link set X down) */
	PP_NETDEV_NO_CARRIER, /* up, but its link is down */
};

/* What the bring-up knows when a QP transition fails (pp_qp.c). */
struct pp_explain_qp {
	int step;		 /* enum pp_qp_step: 0 INIT, 1 RTR, 2 RTS */
	bool datagram;		 /* UD: its RTR names no peer */
	bool ethernet;		 /* the port's link layer is Ethernet (RoCE) */
	bool grh;		 /* the RTR's address vector has a GRH */
	const char *port;	 /* "rxe0:1" */
	int port_state;		 /* enum ibv_port_state read after the failure;
			   * 0: not known */
	unsigned int sgid_index; /* the GID index of the GRH */
	bool gid_empty;		 /* that entry of the table is empty now */
	const char *netdev;	 /* the GID's network device; NULL: not known */
	int netdev_state;	 /* enum pp_explain_netdev */
	unsigned int path_mtu;	 /* the path MTU asked for, bytes */
	unsigned int active_mtu; /* the port's active MTU; 0: not known */
	unsigned int pkey_index; /* the P_Key index asked for */
	unsigned int pkey_tbl_len; /* the port's P_Key table; 0: not known */
};

/**
 * pp_explain_qp() - the likely causes of a failed QP transition
 * (ibv_modify_qp() to INIT, RTR or RTS), and what to do
 * @err: the errno the transition failed with
 * @q: what the bring-up knows of the QP, its port and its GID
 * @buf: output: one line without a final period ("GID index 1 is on eth0,
 *       which is down: bring it up (ip link set eth0 up) or choose the GID
 *       of an interface that is up (--show-gids)"); never empty
 * @len: room in @buf
 *
 * The most specific fact wins: a port that is not active, then (RTR) no
 * GRH on RoCE, an empty GID, its netdev down, a path MTU above the active
 * one; then the errno (ETIMEDOUT, ENETUNREACH, EHOSTUNREACH: the kernel
 * could not resolve the peer's GID to a MAC address; ENOMEM, ENODEV, EIO,
 * EPERM); then what the step usually needs.
 *
 * Return: @buf.
 */
char *pp_explain_qp(int err, const struct pp_explain_qp *q, char *buf,
		    size_t len);

#endif /* PP_EXPLAIN_H */
