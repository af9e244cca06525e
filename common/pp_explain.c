// SPDX-License-Identifier: MIT
/*
 * pp_explain.c - the likely causes of a failed work completion: a table.
 */
#include <infiniband/verbs.h>
#include <stdio.h>

#include "pp_explain.h"

/* Not used by these tools: seen only from a broken device or provider. */
#define UNUSED_BY_US \
	"a feature these tools do not use: a device or driver fault; check the kernel log (dmesg)"

static const char *const causes[] = {
	[IBV_WC_LOC_LEN_ERR] =
		"a message longer than the buffer posted for it: do both sides use the same -s?",
	[IBV_WC_LOC_QP_OP_ERR] =
		"this QP refused the work request (more inline data than it was created for, or an operation its type does not allow): a bug, please report it with --trace",
	[IBV_WC_LOC_EEC_OP_ERR] = UNUSED_BY_US,
	[IBV_WC_LOC_PROT_ERR] =
		"a buffer outside its memory region, or a wrong lkey: a bug, please report it with --trace",
	[IBV_WC_WR_FLUSH_ERR] =
		"the QP was in the error state already: this completion only follows an earlier failure; look for the first error, here or at the peer",
	[IBV_WC_MW_BIND_ERR] = UNUSED_BY_US,
	[IBV_WC_BAD_RESP_ERR] =
		"the peer answered with a response that does not fit the request: a peer of another protocol or a NIC fault; run both sides with --trace",
	[IBV_WC_LOC_ACCESS_ERR] =
		"this side's memory region lacks the access the operation needs: a bug, please report it with --trace",
	[IBV_WC_REM_INV_REQ_ERR] =
		"the peer found the request invalid: a message larger than its receive buffer (the same -s on both sides?), or an operation its QP does not allow",
	[IBV_WC_REM_ACCESS_ERR] =
		"the peer refused the access: a wrong rkey or remote address, or its memory region lacks the access the operation needs",
	[IBV_WC_REM_OP_ERR] =
		"the peer could not complete the operation (its receive failed, or its QP is in the error state): see the peer's own message",
	[IBV_WC_RNR_RETRY_EXC_ERR] =
		"the peer had no receive posted, retry after retry: its receive queue ran empty (raise -r there) or its tool stopped",
	[IBV_WC_LOC_RDD_VIOL_ERR] = UNUSED_BY_US,
	[IBV_WC_REM_INV_RD_REQ_ERR] =
		"the peer refused an RDMA Read or atomic: its QP takes none (max_dest_rd_atomic 0) or its memory region lacks remote read or atomic access",
	[IBV_WC_REM_ABORT_ERR] =
		"the peer aborted the operation: see the peer's own message",
	[IBV_WC_INV_EECN_ERR] = UNUSED_BY_US,
	[IBV_WC_INV_EEC_STATE_ERR] = UNUSED_BY_US,
	[IBV_WC_FATAL_ERR] =
		"the device reported a fatal error: check the port state (ibv_devinfo) and the kernel log (dmesg)",
	[IBV_WC_RESP_TIMEOUT_ERR] =
		"no response from the peer in time: the peer host gone, a link down on the path, or a congested path",
	[IBV_WC_GENERAL_ERR] =
		"the device reported an unspecified error: check the port state (ibv_devinfo) and the kernel log (dmesg)",
	[IBV_WC_TM_ERR] = UNUSED_BY_US,
	[IBV_WC_TM_RNDV_INCOMPLETE] = UNUSED_BY_US,
};

/*
 * Retry exceeded: the requester sent, timed out and resent retry_cnt times
 * without an ACK.  Nothing came back at all, so the cause is on the path or
 * at the far end.  (On RoCE the kernel sets the GRH hop limit from the
 * route, whatever the QP asked, so a hop limit is not the cause there.)
 */
static void retry_exceeded(const struct pp_explain_ctx *ctx, char *buf,
			   size_t len)
{
	snprintf(
		buf, len,
		"the peer's NIC did not acknowledge: %s, a link down on the path, or the peer host gone",
		ctx->grh ?
			"a wrong GID or route between the hosts (-g, --show-gids on both)" :
			"a wrong LID or a path the subnet manager moved");
}

/*
 * A one-sided operation the peer refused: name what was asked of it, the
 * rkey first, since a wrong one is the usual cause.
 */
static void remote_refused(int status, const struct pp_explain_ctx *ctx,
			   char *buf, size_t len)
{
	const char *why;

	if (status == IBV_WC_REM_ACCESS_ERR)
		why = "a wrong rkey or address (they come from the peer's ADDRS), or the peer's MR or QP lacks the access this operation needs";
	else if (status == IBV_WC_REM_INV_RD_REQ_ERR)
		why = "the peer's QP takes no RDMA Read or atomic (max_dest_rd_atomic 0), or its MR lacks remote read or atomic access";
	else
		why = "the peer's QP does not allow this operation (its access flags), or the length or alignment is wrong (an atomic: 8 bytes, aligned)";
	snprintf(
		buf, len,
		"the peer refused the %s at rkey 0x%x, address 0x%llx, %u bytes: %s",
		ctx->op, ctx->rkey, (unsigned long long)ctx->raddr, ctx->len,
		why);
}

static const char *port_state_name(int state)
{
	switch (state) {
	case IBV_PORT_DOWN:
		return "DOWN";
	case IBV_PORT_INIT:
		return "INIT (no subnet manager yet?)";
	case IBV_PORT_ARMED:
		return "ARMED";
	case IBV_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	}
	return "not active";
}

char *pp_explain_wc(int status, const struct pp_explain_ctx *ctx, char *buf,
		    size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	if (ctx->port_state && ctx->port_state != IBV_PORT_ACTIVE)
		snprintf(
			buf, len,
			"port %s is %s now: its link or network device went down (ibv_devinfo, ip link)",
			ctx->port ? ctx->port : "?",
			port_state_name(ctx->port_state));
	else if (status == IBV_WC_RETRY_EXC_ERR)
		retry_exceeded(ctx, buf, len);
	else if (ctx->op && !ctx->recv &&
		 (status == IBV_WC_REM_ACCESS_ERR ||
		  status == IBV_WC_REM_INV_REQ_ERR ||
		  status == IBV_WC_REM_INV_RD_REQ_ERR))
		remote_refused(status, ctx, buf, len);
	else if (status == IBV_WC_LOC_LEN_ERR && !ctx->recv)
		snprintf(
			buf, len,
			"a message longer than this QP or port takes (UD: one path MTU at most)");
	else if (status > IBV_WC_SUCCESS &&
		 (size_t)status < sizeof(causes) / sizeof(causes[0]) &&
		 causes[status])
		snprintf(buf, len, "%s", causes[status]);
	return buf;
}
