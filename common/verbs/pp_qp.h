/* SPDX-License-Identifier: MIT */
/*
 * pp_qp.h - bringing a QP up by hand: RESET -> INIT -> RTR -> RTS.
 *
 * The attributes of each transition are built by pure functions, so the rules
 * (which attribute, which mask bit, for which transport) are unit-tested
 * without a device and shown by --trace; pp_qp_modify() applies them.  The
 * values are the ones rdma-core's examples use (docs/bringup.md says why):
 * RC RTR min_rnr_timer 12; RTS timeout, retry_cnt, rnr_retry from the
 * configuration (by default 14, 7, 7: rdma-core's examples); UD
 * qkey 0x11111111.  What the operation needs (pp_op.h) sets the rest:
 * qp_access_flags at INIT (0 for send), max_dest_rd_atomic at RTR (1 on the
 * server of read and atomics, else 0) and max_rd_atomic at RTS (1 on their
 * client, else 0).
 *
 * XRC splits a connection in two QPs of different types, and each type takes
 * its own attributes (docs/xrc.md):
 *
 *   XRC send (initiator)  INIT; RTR with the AV, MTU, destination (the peer's
 *                         receive QP) and rq_psn only; RTS as RC
 *   XRC receive (target)  INIT; RTR as RC (destination: the peer's send
 *                         QP); no RTS: it has no send queue
 */
#ifndef PP_QP_H
#define PP_QP_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "pp_err.h"
#include "pp_op.h"
#include "pp_transport.h"
#include "pp_trace.h"
#include "pp_wire.h"

#define PP_QKEY 0x11111111U
#define PP_GRH_LEN 40U /* room a UD receive needs before the data */
#define PP_QP_SHORT_RETRY 3

/* What the transitions need besides the peer's address. */
struct pp_qp_cfg {
	enum pp_transport transport;
	uint8_t ib_port;
	uint32_t path_mtu; /* bytes, agreed in the handshake */
	uint8_t sl;
	uint16_t pkey_index;   /* the P_Key's index in the port's table */
	bool use_grh;	       /* Ethernet link layer, or a GID index given */
	uint8_t sgid_index;    /* local GID index, when use_grh */
	uint8_t hop_limit;     /* GRH, when use_grh: hop limit (1..255) */
	uint8_t traffic_class; /* ... traffic class */
	uint32_t flow_label;   /* ... flow label, 20 bits */
	/*
	 * RTS of RC QPs, agreed in the handshake (-u, --retry-count,
	 * --rnr-retry): the local ACK timeout exponent (4.096 us * 2^N; 0:
	 * infinite), the resends after a timeout, the resends after an RNR
	 * NAK (7: infinite)
	 */
	uint8_t qp_timeout;
	uint8_t retry_count;
	uint8_t rnr_retry;
	/*
	 * RTS: retry at most PP_QP_SHORT_RETRY times (--probe's rows): a path
	 * that never acknowledges fails with "retry exceeded" in about
	 * 4 x 67 ms rather than 8 x 67 ms
	 */
	bool short_retry;
	/* XRC only: the receive (target) QP; false: the send (initiator) QP */
	bool xrc_recv;
	enum pp_op op; /* the operation: access flags, RDMA Read/atomic depth */
	bool is_server; /* which side (pp_op_qp_access(), pp_op_rd_atomic()) */
	struct pp_trace *trace; /* --trace: each transition shown; may be NULL */
};

/**
 * pp_qp_attr() - the attributes and mask of one transition
 * @cfg: the run's settings
 * @step: which transition
 * @local_psn: this QP's send PSN (used by RTS)
 * @remote: the peer QP's address (used by RTR; may be NULL otherwise)
 * @attr: filled (zeroed first)
 *
 * For XRC, @cfg->xrc_recv chooses the QP: the send QP's RTR goes to
 * @remote->tgt_qpn, the receive QP's to @remote->qpn.  The receive QP also
 * goes to RTS, with only the timeout and its send PSN (it has no send queue;
 * that is the mask the kernel requires and rdma-core's example uses).
 *
 * Return: the ibv_modify_qp() attribute mask.
 */
int pp_qp_attr(const struct pp_qp_cfg *cfg, enum pp_qp_step step,
	       uint32_t local_psn, const struct pp_addr *remote,
	       struct ibv_qp_attr *attr);

/**
 * pp_ah_attr() - the address vector to reach @remote
 * @cfg: the run's settings (port, SL, GRH)
 * @remote: the peer QP's address
 * @ah: filled (zeroed first); with @cfg->use_grh a GRH with @cfg's hop
 *      limit, traffic class and flow label
 */
void pp_ah_attr(const struct pp_qp_cfg *cfg, const struct pp_addr *remote,
		struct ibv_ah_attr *ah);

/**
 * pp_qp_step_name() - "INIT", "RTR" or "RTS"
 * @step: the transition
 */
const char *pp_qp_step_name(enum pp_qp_step step);

/**
 * pp_qp_modify() - apply one transition to @qp
 * @qp: the QP
 * @cfg: the run's settings
 * @step: which transition
 * @local_psn: this QP's send PSN
 * @remote: the peer QP's address (RTR)
 * @err: "modify QP 0x000011 to RTR failed: Invalid argument (its likely
 *       cause: pp_qp_explain())"; XRC names the QP's kind: "modify XRC
 *       receive QP 0x000012 to RTR ..."
 *
 * Return: 0 or the errno of ibv_modify_qp(); EINVAL, without calling it,
 * when the QP does not take @step.
 */
int pp_qp_modify(struct ibv_qp *qp, const struct pp_qp_cfg *cfg,
		 enum pp_qp_step step, uint32_t local_psn,
		 const struct pp_addr *remote, struct pp_err *err);

/**
 * pp_qp_explain() - why a transition or an address handle most likely
 * failed, from the port and the GID as they are now (pp_explain_qp())
 * @ctx: the device
 * @cfg: the run's settings (port, GID index, path MTU, P_Key index)
 * @step: the transition (an address handle: PP_QP_RTR)
 * @path: the call carried a path to the peer (an address vector)
 * @grh: ... with a GRH
 * @err: the errno it failed with
 * @buf: output, one line
 * @len: room in @buf
 *
 * Return: @buf.
 */
char *pp_qp_explain(struct ibv_context *ctx, const struct pp_qp_cfg *cfg,
		    enum pp_qp_step step, bool path, bool grh, int err,
		    char *buf, size_t len);

/**
 * pp_qp_gid_netdev() - the network device of a GID, and its state now
 * @ctx: the device
 * @ib_port: port number
 * @index: GID table index
 * @name: output, IF_NAMESIZE bytes: the device's name ("eth0"); "" when the
 *        entry names none
 * @state: output, enum pp_explain_netdev (PP_NETDEV_UNKNOWN when not known)
 *
 * A driver learns that its network device went down from a notifier that
 * can run after its sends have started failing (rxe: the route is gone
 * first), so the device's own flags name the cause before the port's state
 * does.
 *
 * Return: 0; ENODATA (the entry is empty now); another errno of the query.
 */
int pp_qp_gid_netdev(struct ibv_context *ctx, uint8_t ib_port,
		     unsigned int index, char *name, int *state);

#endif /* PP_QP_H */
