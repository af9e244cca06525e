// SPDX-License-Identifier: MIT
/*
 * pp_explain.c - the likely causes of a failed work completion (a table)
 * and of a failed QP transition (the facts the bring-up read, in order).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>

#include "pp_explain.h"
#include "pp_transport.h"

/* Not used by these tools: seen only from a broken device or provider. */
#define UNUSED_BY_US \
	"a feature these tools do not use: a device or driver fault; check the kernel log (dmesg)"

static const char *const causes[] = {
	[IBV_WC_LOC_LEN_ERR] =
		"a message longer than the buffer posted for it: do both sides use the same -s?",
	[IBV_WC_LOC_QP_OP_ERR] =
		"this QP refused the work request (more inline data than it was created for, or an operation its type does not allow), or Soft-RoCE found no route to the peer (ip route get): if the route is there, a bug, please report it with --trace",
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
	else if (ctx->netdev && (ctx->netdev_state == PP_NETDEV_DOWN ||
				 ctx->netdev_state == PP_NETDEV_NO_CARRIER))
		snprintf(
			buf, len,
			"network device %s of port %s %s: nothing goes through its GIDs (ip link show %s)",
			ctx->netdev, ctx->port ? ctx->port : "?",
			ctx->netdev_state == PP_NETDEV_DOWN ?
				"is down now" :
				"has lost its carrier now (cable, switch port or the peer's end)",
			ctx->netdev);
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

/* What the kernel and the device say whatever the step: nothing to tune. */
static bool errno_cause(int err, char *buf, size_t len)
{
	switch (err) {
	case ENOMEM:
		snprintf(
			buf, len,
			"the kernel or the device ran out of memory for this QP: fewer QPs (-q) or a smaller -r, and check dmesg");
		return true;
	case ENODEV:
	case EIO:
		snprintf(
			buf, len,
			"the device failed or was removed during the bring-up: check ibv_devinfo and dmesg");
		return true;
	case EPERM:
	case EACCES:
		snprintf(
			buf, len,
			"the kernel refused an attribute this user may not set: run with the rights the device needs (its /dev/infiniband files), or as root to compare");
		return true;
	}
	return false;
}

/* RTR of a connected QP on RoCE: the kernel resolves the peer's MAC. */
static bool resolve_cause(int err, const struct pp_explain_qp *q, char *buf,
			  size_t len)
{
	const char *dev = q->netdev ? q->netdev : "its netdev";

	switch (err) {
	case ETIMEDOUT:
		snprintf(
			buf, len,
			"the kernel could not resolve the peer's GID to a MAC address in time: the peer's IP address does not answer ARP or neighbour discovery on %s (is the peer up and on that subnet? ping -I %s PEER-IP, ip neigh)",
			dev, dev);
		return true;
	case ENETUNREACH:
		snprintf(
			buf, len,
			"no route from GID index %u (on %s) to the peer's address: ip route get PEER-IP; choose with -g the GID of the interface that reaches the peer (--show-gids)",
			q->sgid_index, dev);
		return true;
	case EHOSTUNREACH:
		snprintf(
			buf, len,
			"the peer's address is unreachable from %s (neighbour resolution failed): ping -I %s PEER-IP, ip neigh; is the peer host up?",
			dev, dev);
		return true;
	case EADDRNOTAVAIL:
		snprintf(
			buf, len,
			"GID index %u has no usable address on %s now: choose a populated GID (--show-gids)",
			q->sgid_index, dev);
		return true;
	}
	return false;
}

/* The GID of the GRH: empty, or on a netdev that is down. */
static bool gid_cause(const struct pp_explain_qp *q, char *buf, size_t len)
{
	const char *dev = q->netdev ? q->netdev : "its network device";

	if (q->gid_empty) {
		snprintf(
			buf, len,
			"GID index %u of port %s is empty now: its address was removed from the network device; choose a populated GID (--show-gids) or restore the address",
			q->sgid_index, q->port ? q->port : "?");
		return true;
	}
	if (q->netdev_state == PP_NETDEV_DOWN) {
		snprintf(
			buf, len,
			"GID index %u is on %s, which is down: bring it up (ip link set %s up) or choose the GID of an interface that is up (--show-gids)",
			q->sgid_index, dev, dev);
		return true;
	}
	if (q->netdev_state == PP_NETDEV_NO_CARRIER) {
		snprintf(
			buf, len,
			"GID index %u is on %s, whose link is down (no carrier: cable, switch port or the peer's end): ip link show %s",
			q->sgid_index, dev, dev);
		return true;
	}
	return false;
}

static void rtr_cause(int err, const struct pp_explain_qp *q, char *buf,
		      size_t len)
{
	if (q->datagram) {
		snprintf(
			buf, len,
			"a UD QP's RTR sets no path, so the device or driver refused the state change itself: check dmesg and ibv_devinfo -v");
		return;
	}
	if (q->ethernet && !q->grh) {
		snprintf(
			buf, len,
			"on RoCE a GRH is mandatory: give a GID index with -g (see --show-gids)");
		return;
	}
	if (q->grh && gid_cause(q, buf, len))
		return;
	if (q->active_mtu && q->path_mtu > q->active_mtu) {
		snprintf(
			buf, len,
			"path MTU %u is above port %s's active MTU %u: -m %u or less, or raise the netdev's MTU on both hosts",
			q->path_mtu, q->port ? q->port : "?", q->active_mtu,
			q->active_mtu);
		return;
	}
	if (q->ethernet && resolve_cause(err, q, buf, len))
		return;
	if (errno_cause(err, buf, len))
		return;
	if (q->ethernet)
		snprintf(
			buf, len,
			"is the GID index right on both sides (-g, --show-gids)? the same RoCE version and address family at both ends, on interfaces that reach each other; is -m within both ports' active MTU?");
	else
		snprintf(
			buf, len,
			"on InfiniBand: is the peer's LID right (0 until a subnet manager has run: is one running? ibv_devinfo shows the port's LID and state)? is -m within both ports' active MTU?");
}

char *pp_explain_qp(int err, const struct pp_explain_qp *q, char *buf,
		    size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	if (q->step != PP_QP_INIT && q->port_state &&
	    q->port_state != IBV_PORT_ACTIVE) {
		snprintf(
			buf, len,
			"port %s is %s: its link or network device is down (ibv_devinfo, ip link)",
			q->port ? q->port : "?",
			port_state_name(q->port_state));
		return buf;
	}
	switch (q->step) {
	case PP_QP_INIT:
		if (err == EINVAL && q->pkey_tbl_len &&
		    q->pkey_index >= q->pkey_tbl_len)
			snprintf(
				buf, len,
				"P_Key index %u is outside port %s's table of %u: --pkey-index %u or less (ibv_devinfo -v lists the P_Keys)",
				q->pkey_index, q->port ? q->port : "?",
				q->pkey_tbl_len, q->pkey_tbl_len - 1);
		else if (!errno_cause(err, buf, len))
			snprintf(
				buf, len,
				"the device refused the port number or the P_Key index: is -i a port of this device (ibv_devinfo lists them)? is --pkey-index within its P_Key table?");
		break;
	case PP_QP_RTR:
		rtr_cause(err, q, buf, len);
		break;
	default:
		if (!errno_cause(err, buf, len))
			snprintf(
				buf, len,
				"the device refused the send side's attributes (timeout 14, retry count 7, RNR retry 7, one outstanding RDMA Read): its limits are lower or the QP did not reach RTR; check ibv_devinfo -v (max_qp_rd_atom) and dmesg");
		break;
	}
	return buf;
}
