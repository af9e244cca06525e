// SPDX-License-Identifier: MIT
/*
 * pp_transport.c - the transport table: one row per transport.
 *
 * The masks are the ones rdma-core's examples use, and the kernel's
 * ib_modify_qp_is_ok() requires (docs/bringup.md, docs/xrc.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "pp_op.h"
#include "pp_transport.h"

#define INIT_CONN \
	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define INIT_UD (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
/* RTR of a connected QP: the path and the peer */
#define RTR_CONN                                                        \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
	 IBV_QP_RQ_PSN)
/* ... and, with a responder, its limits */
#define RTR_RESP (RTR_CONN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_UNREL (IBV_QP_STATE | IBV_QP_SQ_PSN)
#define RTS_REL                                                             \
	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)
/* the XRC receive QP has no send queue: the kernel wants just these */
#define RTS_XRC_RECV (IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT)

#define OPS_UC                                            \
	(PP_OP_BIT(PP_OP_SEND) | PP_OP_BIT(PP_OP_WRITE) | \
	 PP_OP_BIT(PP_OP_WRITE_IMM))
#define OPS_RC                                                         \
	(OPS_UC | PP_OP_BIT(PP_OP_READ) | PP_OP_BIT(PP_OP_FETCH_ADD) | \
	 PP_OP_BIT(PP_OP_CMP_SWAP))

static const struct pp_transport_desc transports[] = {
	{
		.id = PP_TR_RC,
		.name = "rc",
		.stock_tool = "ibv_rc_pingpong",
		.tool = PP_TOOL_RC,
		.default_qps = 1,
		.qp_type = IBV_QPT_RC,
		.reliable = true,
		.ops = OPS_RC,
		.mask = { INIT_CONN, RTR_RESP, RTS_REL },
	},
	{
		.id = PP_TR_UC,
		.name = "uc",
		.stock_tool = "ibv_uc_pingpong",
		.tool = PP_TOOL_RC,
		.default_qps = 1,
		.qp_type = IBV_QPT_UC,
		.lossy = true, /* nothing resends a lost message */
		.ops = OPS_UC,
		.mask = { INIT_CONN, RTR_CONN, RTS_UNREL },
	},
	{
		.id = PP_TR_UD,
		.name = "ud",
		.stock_tool = "ibv_ud_pingpong",
		.tool = PP_TOOL_UD,
		.default_qps = 1,
		.qp_type = IBV_QPT_UD,
		.lossy = true,
		.datagram = true,
		.ops = PP_OP_BIT(PP_OP_SEND),
		.mask = { INIT_UD, IBV_QP_STATE, RTS_UNREL },
	},
	{
		.id = PP_TR_SRQ,
		.name = "srq",
		.stock_tool = "ibv_srq_pingpong",
		.stock_xchg = PP_STOCK_SRQ_RECS,
		.tool = PP_TOOL_SRQ,
		.default_qps = 16,
		.qp_type = IBV_QPT_RC,
		.reliable = true,
		.srq = true,
		.ops = OPS_RC,
		.mask = { INIT_CONN, RTR_RESP, RTS_REL },
	},
	{
		.id = PP_TR_XRC,
		.name = "xrc",
		.stock_tool = "ibv_xsrq_pingpong",
		.stock_xchg = PP_STOCK_XRC_REC,
		.tool = PP_TOOL_XRC,
		.default_qps = 1,
		.qp_type = IBV_QPT_XRC_SEND,
		.reliable = true,
		.srq = true,
		.xrc = true,
		.ops = OPS_RC,
		/* the send QP has no responder: no responder limits */
		.mask = { INIT_CONN, RTR_CONN, RTS_REL },
		.recv_mask = { INIT_CONN, RTR_RESP, RTS_XRC_RECV },
	},
};

#define NTRANSPORTS (sizeof(transports) / sizeof(transports[0]))
_Static_assert(NTRANSPORTS == PP_TR_LAST - PP_TR_FIRST + 1,
	       "one row per enum pp_transport, in order");

const struct pp_transport_desc *pp_transport_get(unsigned int t)
{
	if (t < PP_TR_FIRST || t > PP_TR_LAST)
		return NULL;
	return &transports[t - PP_TR_FIRST];
}

const struct pp_transport_desc *pp_transport_of(enum pp_transport t)
{
	const struct pp_transport_desc *d = pp_transport_get(t);

	return d ? d : &transports[0];
}

enum pp_transport pp_transport_of_tool(enum pp_tool tool)
{
	size_t i;

	for (i = 0; i < NTRANSPORTS; i++)
		if (transports[i].tool == tool)
			return transports[i].id;
	return PP_TR_RC;
}

const char *pp_transport_name(enum pp_transport t)
{
	const struct pp_transport_desc *d = pp_transport_get(t);

	return d ? d->name : "unknown";
}

bool pp_tool_valid(unsigned int tool)
{
	return tool >= PP_TOOL_RC && tool <= PP_TOOL_XRC;
}

const char *pp_tool_name(enum pp_tool t)
{
	static const char *const names[] = {
		[PP_TOOL_RC] = "rc_pingpong",
		[PP_TOOL_UD] = "ud_pingpong",
		[PP_TOOL_SRQ] = "srq_pingpong",
		[PP_TOOL_XRC] = "xrc_pingpong",
	};

	return pp_tool_valid(t) ? names[t] : "unknown";
}

/* Why @tr has no @op: its rule, in the words of docs/transports.md. */
static const char *transport_rule(const struct pp_transport_desc *tr)
{
	if (tr->datagram)
		return "a datagram transport carries Send only (no remote memory access on UD)";
	if (!tr->reliable)
		return "an unreliable connection carries Send and RDMA Write only (no RDMA Read or atomics on UC)";
	return "not allowed on this transport";
}

int pp_transport_op_check(const struct pp_transport_desc *tr, unsigned int op,
			  uint64_t size, bool sweep, char *buf, size_t len)
{
	if (op > PP_OP_LAST) {
		snprintf(buf, len, "--op %u: unknown operation (%s)", op,
			 pp_op_list());
		return EINVAL;
	}
	if (!(tr->ops & PP_OP_BIT(op))) {
		snprintf(buf, len, "--op %s: not on %s: %s", pp_op_name(op),
			 tr->name, transport_rule(tr));
		return EINVAL;
	}
	if (pp_op_atomic((enum pp_op)op) &&
	    (size != PP_OP_ATOMIC_SIZE || sweep)) {
		snprintf(
			buf, len,
			"--op %s: an atomic works on one aligned 8-byte word: use -s 8%s (asked %s%llu)",
			pp_op_name(op), sweep ? " without -a" : "",
			sweep ? "-a up to " : "-s ", (unsigned long long)size);
		return EINVAL;
	}
	return 0;
}
