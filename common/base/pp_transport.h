/* SPDX-License-Identifier: MIT */
/*
 * pp_transport.h - one descriptor per transport: every fact about RC, UC,
 * UD, SRQ and XRC that a module needs, in one table (pp_transport.c).
 *
 * A module that needs to know "does this transport ..." reads the
 * descriptor; it never tests the transport's value itself.  Adding a
 * transport is one row there (docs/dev/architecture.md has the checklist).
 */
#ifndef PP_TRANSPORT_H
#define PP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* The four binaries.  Values travel on the wire: never renumber. */
enum pp_tool {
	PP_TOOL_RC = 1,
	PP_TOOL_UD = 2,
	PP_TOOL_SRQ = 3,
	PP_TOOL_XRC = 4,
};

/* The transport of a run.  Values travel on the wire: never renumber. */
enum pp_transport {
	PP_TR_RC = 1,
	PP_TR_UC = 2,
	PP_TR_UD = 3,
	PP_TR_SRQ = 4, /* RC QPs receiving from one shared receive queue */
	PP_TR_XRC = 5,
};

/* XRC: the domain file without --xrc-domain (%u: uid), and as --help shows */
#define PP_XRCD_PATH_FMT "/tmp/xrc_pingpong.%u.domain"
#define PP_XRCD_PATH_HELP "/tmp/xrc_pingpong.UID.domain"

#define PP_TR_FIRST PP_TR_RC
#define PP_TR_LAST PP_TR_XRC

/* The bit of an operation (enum pp_op, pp_op.h) in .ops. */
#define PP_OP_BIT(op) (1u << (op))

/* The transitions of a QP, in order (pp_qp.h). */
enum pp_qp_step { PP_QP_INIT, PP_QP_RTR, PP_QP_RTS, PP_QP_NSTEPS };

/* How the stock tool exchanges addresses (docs/interop.md). */
enum pp_stock_xchg {
	PP_STOCK_REC,	   /* one 52-byte record each way */
	PP_STOCK_SRQ_RECS, /* 256 records each way, the unused ones zero */
	PP_STOCK_XRC_REC,  /* one 66-byte record; "END" after the run */
};

struct pp_transport_desc {
	enum pp_transport id;
	const char *name;	       /* "rc": messages, --json, --trace */
	const char *stock_tool;	       /* rdma-core's example that speaks it */
	enum pp_stock_xchg stock_xchg; /* ... and its address exchange */
	enum pp_tool tool;	       /* the binary that runs it */
	uint32_t default_qps;	       /* -q when not given */
	enum ibv_qp_type qp_type;
	bool reliable; /* acknowledged and retransmitted by the hardware */
	bool srq;      /* receives are posted to a shared receive queue */
	bool lossy;    /* a message may be lost: the client counts losses */
	/*
	 * Datagrams: a message fits one path MTU, each receive has room for
	 * a GRH ahead of the data, an address handle per peer, a Q_Key.
	 */
	bool datagram;
	bool xrc;	  /* a send QP and a receive QP per connection */
	unsigned int ops; /* PP_OP_BIT()s of the operations it allows */
	/*
	 * The ibv_modify_qp() masks of each transition (enum pp_qp_step) of
	 * its QP (XRC: of the send QP); a step with mask 0 is not taken.
	 */
	int mask[PP_QP_NSTEPS];
	int recv_mask[PP_QP_NSTEPS]; /* XRC: of the receive QP; else 0 */
};

/**
 * pp_transport_get() - the descriptor of @t
 * @t: a transport; any value (from the wire, too)
 *
 * Return: the descriptor, or NULL when @t is not one of enum pp_transport.
 */
const struct pp_transport_desc *pp_transport_get(unsigned int t);

/**
 * pp_transport_of() - the descriptor of @t, for a value known to be valid
 * @t: one of enum pp_transport
 *
 * Return: the descriptor; for a value outside the enum, the one of RC (a
 * caller that may see any value uses pp_transport_get()).
 */
const struct pp_transport_desc *pp_transport_of(enum pp_transport t);

/**
 * pp_transport_of_tool() - the transport a binary runs by default
 * @tool: the binary
 *
 * Return: the first transport of the table that @tool runs; PP_TR_RC for a
 * value outside enum pp_tool.
 */
enum pp_transport pp_transport_of_tool(enum pp_tool tool);

/**
 * pp_transport_name() - short lowercase name ("rc", "uc", "ud", "srq", "xrc")
 * @t: the transport; any value
 *
 * Return: a static string; "unknown" for values outside the enum.
 */
const char *pp_transport_name(enum pp_transport t);

/**
 * pp_tool_name() - the binary's name ("rc_pingpong", ...)
 * @t: the tool; any value
 *
 * Return: a static string; "unknown" for values outside the enum.
 */
const char *pp_tool_name(enum pp_tool t);

/**
 * pp_tool_valid() - is @tool one of enum pp_tool?
 * @tool: any value (from the wire, too)
 */
bool pp_tool_valid(unsigned int tool);

/**
 * pp_transport_op_check() - may @op (pp_op.h) run on @tr with these
 * parameters?
 * @tr: the transport
 * @op: the operation; any value
 * @size: the message size (the largest of a sweep)
 * @sweep: -a
 * @buf: output: the rule that refuses it, one line without a final period
 *       ("--op read: UC has no RDMA Read or atomics ...")
 * @len: room in @buf
 *
 * The rules: the transport's .ops bits (UC: Send and RDMA Write; UD: Send
 * only, a datagram has no remote memory access); an atomic is 8 bytes
 * exactly (-s 8, no -a).
 *
 * Return: 0, or EINVAL with @buf set.
 */
int pp_transport_op_check(const struct pp_transport_desc *tr, unsigned int op,
			  uint64_t size, bool sweep, char *buf, size_t len);

#endif /* PP_TRANSPORT_H */
