// SPDX-License-Identifier: MIT
/*
 * test_explain.c - pp_explain: every failed completion status and every
 * failed QP transition has a cause an engineer can act on, and each says
 * the right thing.
 */
#include <check.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_explain.h"
#include "pp_transport.h"

static const struct pp_explain_ctx roce = { .grh = true,
					    .port = "rxe0:1",
					    .port_state = IBV_PORT_ACTIVE };
static const struct pp_explain_ctx ib = { .port = "mlx5_0:1" }; /* no GRH */
static const struct pp_explain_ctx roce_recv = { .recv = true, .grh = true };
static const struct pp_explain_ctx port_down = {
	.grh = true,
	.port = "rxe0:1",
	.port_state = IBV_PORT_DOWN,
};
/* The port still ACTIVE a moment after its network device went down (rxe
 * learns of it from a notifier that can run after its sends failed). */
static const struct pp_explain_ctx netdev_down = {
	.grh = true,
	.port = "rxe0:1",
	.port_state = IBV_PORT_ACTIVE,
	.netdev = "eth0",
	.netdev_state = PP_NETDEV_DOWN,
};
static const struct pp_explain_ctx no_carrier = {
	.grh = true,
	.port = "rxe0:1",
	.port_state = IBV_PORT_ACTIVE,
	.netdev = "eth0",
	.netdev_state = PP_NETDEV_NO_CARRIER,
};
static const struct pp_explain_ctx netdev_up = {
	.grh = true,
	.port = "rxe0:1",
	.port_state = IBV_PORT_ACTIVE,
	.netdev = "eth0",
	.netdev_state = PP_NETDEV_UP,
};
static const struct pp_explain_ctx both_down = {
	.grh = true,
	.port = "rxe0:1",
	.port_state = IBV_PORT_DOWN,
	.netdev = "eth0",
	.netdev_state = PP_NETDEV_DOWN,
};

/* Every status but success, up to the last one verbs.h defines. */
START_TEST(every_status)
{
	char buf[320];
	int status = _i;

	pp_explain_wc(status, &roce, buf, sizeof(buf));
	ck_assert_msg(strlen(buf) > 20, "status %d (%s): no explanation",
		      status, ibv_wc_status_str(status));
	ck_assert_msg(!strchr(buf, '\n'), "status %d: more than one line",
		      status);
	ck_assert_msg(buf[strlen(buf) - 1] != '.', "status %d: a final period",
		      status);
}
END_TEST

static const struct case_ {
	int status;
	const struct pp_explain_ctx *ctx;
	const char *want;
} cases[] = {
	{ IBV_WC_RETRY_EXC_ERR, &roce,
	  "the peer's NIC did not acknowledge: a wrong GID or route between the hosts (-g, --show-gids on both), a link down on the path, or the peer host gone" },
	/* the port went down: whatever the status (rxe: local QP operation
	 * error), that is what happened */
	{ IBV_WC_LOC_QP_OP_ERR, &port_down,
	  "port rxe0:1 is DOWN now: its link or network device went down (ibv_devinfo, ip link)" },
	{ IBV_WC_RETRY_EXC_ERR, &port_down,
	  "port rxe0:1 is DOWN now: its link or network device went down (ibv_devinfo, ip link)" },
	/* ... or its network device, before the port's state follows */
	{ IBV_WC_LOC_QP_OP_ERR, &netdev_down,
	  "network device eth0 of port rxe0:1 is down now: nothing goes through its GIDs (ip link show eth0)" },
	{ IBV_WC_RETRY_EXC_ERR, &no_carrier,
	  "network device eth0 of port rxe0:1 has lost its carrier now (cable, switch port or the peer's end): nothing goes through its GIDs (ip link show eth0)" },
	{ IBV_WC_LOC_QP_OP_ERR, &both_down,
	  "port rxe0:1 is DOWN now: its link or network device went down (ibv_devinfo, ip link)" },
	/* a device that is up says nothing: the status's own cause */
	{ IBV_WC_LOC_QP_OP_ERR, &netdev_up,
	  "this QP refused the work request (more inline data than it was created for, or an operation its type does not allow), or Soft-RoCE found no route to the peer (ip route get): if the route is there, a bug, please report it with --trace" },
	{ IBV_WC_RETRY_EXC_ERR, &ib,
	  "the peer's NIC did not acknowledge: a wrong LID or a path the subnet manager moved, a link down on the path, or the peer host gone" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, &roce,
	  "the peer had no receive posted, retry after retry: its receive queue ran empty (raise -r there) or its tool stopped" },
	{ IBV_WC_REM_ACCESS_ERR, &roce,
	  "the peer refused the access: a wrong rkey or remote address, or its memory region lacks the access the operation needs" },
	{ IBV_WC_WR_FLUSH_ERR, &roce,
	  "the QP was in the error state already: this completion only follows an earlier failure; look for the first error, here or at the peer" },
	{ IBV_WC_LOC_LEN_ERR, &roce_recv,
	  "a message longer than the buffer posted for it: do both sides use the same -s?" },
	{ IBV_WC_LOC_LEN_ERR, &roce,
	  "a message longer than this QP or port takes (UD: one path MTU at most)" },
	{ IBV_WC_REM_INV_REQ_ERR, &roce,
	  "the peer found the request invalid: a message larger than its receive buffer (the same -s on both sides?), or an operation its QP does not allow" },
};

START_TEST(named_causes)
{
	const struct case_ *c = &cases[_i];
	char buf[320];

	ck_assert_str_eq(pp_explain_wc(c->status, c->ctx, buf, sizeof(buf)),
			 c->want);
}
END_TEST

/* Nothing known: an empty line, never garbage; a short buffer is cut. */
/* Issue 17: a refused one-sided operation names what it asked for. */
START_TEST(remote_refusal_names_rkey)
{
	struct pp_explain_ctx ctx = roce;
	char buf[320];

	ctx.op = "write";
	ctx.rkey = 0x1a2b;
	ctx.raddr = 0x7f0012340000ULL;
	ctx.len = 4096;
	pp_explain_wc(IBV_WC_REM_ACCESS_ERR, &ctx, buf, sizeof(buf));
	ck_assert_msg(
		!strncmp(
			buf,
			"the peer refused the write at rkey 0x1a2b, address 0x7f0012340000, 4096 bytes: a wrong rkey",
			90),
		"'%s'", buf);
	ctx.op = "read";
	pp_explain_wc(IBV_WC_REM_INV_RD_REQ_ERR, &ctx, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "max_dest_rd_atomic 0"));
	ck_assert_ptr_nonnull(strstr(buf, "rkey 0x1a2b"));
	ctx.op = "fetch-add";
	pp_explain_wc(IBV_WC_REM_INV_REQ_ERR, &ctx, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "an atomic: 8 bytes, aligned"));
	/* a send's refusal is the table's */
	ctx.op = NULL;
	pp_explain_wc(IBV_WC_REM_ACCESS_ERR, &ctx, buf, sizeof(buf));
	ck_assert_ptr_null(strstr(buf, "rkey 0x"));
}
END_TEST

START_TEST(unknown_and_short)
{
	char buf[16];

	ck_assert_str_eq(pp_explain_wc(IBV_WC_SUCCESS, &roce, buf, sizeof(buf)),
			 "");
	ck_assert_str_eq(pp_explain_wc(1000, &roce, buf, sizeof(buf)), "");
	ck_assert_str_eq(pp_explain_wc(-1, &roce, buf, sizeof(buf)), "");
	pp_explain_wc(IBV_WC_RNR_RETRY_EXC_ERR, &roce, buf, sizeof(buf));
	ck_assert_str_eq(buf, "the peer had no");
	buf[0] = 'x';
	ck_assert_ptr_eq(pp_explain_wc(IBV_WC_FATAL_ERR, &roce, buf, 0), buf);
	ck_assert_int_eq(buf[0], 'x');
}
END_TEST

/* Each status's own explanation: a phrase only it has. */
static const struct {
	int status;
	const char *has;
} each_status[] = {
	{ IBV_WC_LOC_LEN_ERR, "the same -s" },
	{ IBV_WC_LOC_QP_OP_ERR, "this QP refused the work request" },
	{ IBV_WC_LOC_EEC_OP_ERR, "a feature these tools do not use" },
	{ IBV_WC_LOC_PROT_ERR, "a wrong lkey" },
	{ IBV_WC_WR_FLUSH_ERR, "look for the first error" },
	{ IBV_WC_MW_BIND_ERR, "a feature these tools do not use" },
	{ IBV_WC_BAD_RESP_ERR, "a response that does not fit the request" },
	{ IBV_WC_LOC_ACCESS_ERR, "this side's memory region lacks the access" },
	{ IBV_WC_REM_INV_REQ_ERR, "the peer found the request invalid" },
	{ IBV_WC_REM_ACCESS_ERR, "a wrong rkey or remote address" },
	{ IBV_WC_REM_OP_ERR, "the peer could not complete the operation" },
	{ IBV_WC_RETRY_EXC_ERR, "the peer's NIC did not acknowledge" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "the peer had no receive posted" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "a feature these tools do not use" },
	{ IBV_WC_REM_INV_RD_REQ_ERR,
	  "the peer refused an RDMA Read or atomic" },
	{ IBV_WC_REM_ABORT_ERR, "the peer aborted the operation" },
	{ IBV_WC_INV_EECN_ERR, "a feature these tools do not use" },
	{ IBV_WC_INV_EEC_STATE_ERR, "a feature these tools do not use" },
	{ IBV_WC_FATAL_ERR, "a fatal error" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "no response from the peer in time" },
	{ IBV_WC_GENERAL_ERR, "an unspecified error" },
	{ IBV_WC_TM_ERR, "a feature these tools do not use" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, "a feature these tools do not use" },
};

START_TEST(each_status_says)
{
	char buf[320];

	pp_explain_wc(each_status[_i].status, &roce_recv, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, each_status[_i].has),
		      "status %d (%s): \"%s\" lacks \"%s\"",
		      each_status[_i].status,
		      ibv_wc_status_str(each_status[_i].status), buf,
		      each_status[_i].has);
}
END_TEST

/* Failed transitions: a RoCE RC QP whose RTR had a GRH on GID 1 of eth0. */
static struct pp_explain_qp rtr(void)
{
	return (struct pp_explain_qp){
		.step = PP_QP_RTR,
		.ethernet = true,
		.grh = true,
		.port = "rxe0:1",
		.port_state = IBV_PORT_ACTIVE,
		.sgid_index = 1,
		.netdev = "eth0",
		.netdev_state = PP_NETDEV_UP,
		.path_mtu = 1024,
		.active_mtu = 1024,
		.pkey_tbl_len = 1,
	};
}

enum { /* what a case changes in rtr() */
       NO_GRH = 0x01,
       IB = 0x02, /* InfiniBand, without a GRH */
       UD = 0x04,
       GID_EMPTY = 0x08,
       NO_NETDEV = 0x10,
};

static const struct qp_case {
	int err;
	int step; /* enum pp_qp_step */
	unsigned int flags;
	int netdev_state;      /* 0: rtr()'s, up */
	int port_state;	       /* 0: rtr()'s, active */
	unsigned int path_mtu; /* 0: rtr()'s, 1024 */
	unsigned int pkey_index;
	const char *want;
} qp_cases[] = {
	{ EINVAL, PP_QP_RTR, NO_GRH, 0, 0, 0, 0,
	  "on RoCE a GRH is mandatory: give a GID index with -g (see --show-gids)" },
	{ EINVAL, PP_QP_RTR, 0, PP_NETDEV_DOWN, 0, 0, 0,
	  "GID index 1 is on eth0, which is down: bring it up (ip link set eth0 up) or choose the GID of an interface that is up (--show-gids)" },
	{ ENETUNREACH, PP_QP_RTR, 0, PP_NETDEV_NO_CARRIER, 0, 0, 0,
	  "GID index 1 is on eth0, whose link is down (no carrier: cable, switch port or the peer's end): ip link show eth0" },
	{ EINVAL, PP_QP_RTR, GID_EMPTY | NO_NETDEV, 0, 0, 0, 0,
	  "GID index 1 of port rxe0:1 is empty now: its address was removed from the network device; choose a populated GID (--show-gids) or restore the address" },
	{ EINVAL, PP_QP_RTR, 0, 0, 0, 4096, 0,
	  "path MTU 4096 is above port rxe0:1's active MTU 1024: -m 1024 or less, or raise the netdev's MTU on both hosts" },
	{ ETIMEDOUT, PP_QP_RTR, 0, 0, 0, 0, 0,
	  "the kernel could not resolve the peer's GID to a MAC address in time: the peer's IP address does not answer ARP or neighbour discovery on eth0 (is the peer up and on that subnet? ping -I eth0 PEER-IP, ip neigh)" },
	{ ENETUNREACH, PP_QP_RTR, 0, 0, 0, 0, 0,
	  "no route from GID index 1 (on eth0) to the peer's address: ip route get PEER-IP; choose with -g the GID of the interface that reaches the peer (--show-gids)" },
	{ EHOSTUNREACH, PP_QP_RTR, NO_NETDEV, 0, 0, 0, 0,
	  "the peer's address is unreachable from its netdev (neighbour resolution failed): ping -I its netdev PEER-IP, ip neigh; is the peer host up?" },
	{ EADDRNOTAVAIL, PP_QP_RTR, 0, 0, 0, 0, 0,
	  "GID index 1 has no usable address on eth0 now: choose a populated GID (--show-gids)" },
	{ EINVAL, PP_QP_RTR, 0, 0, 0, 0, 0,
	  "is the GID index right on both sides (-g, --show-gids)? the same RoCE version and address family at both ends, on interfaces that reach each other; is -m within both ports' active MTU?" },
	{ EINVAL, PP_QP_RTR, IB, 0, 0, 0, 0,
	  "on InfiniBand: is the peer's LID right (0 until a subnet manager has run: is one running? ibv_devinfo shows the port's LID and state)? is -m within both ports' active MTU?" },
	/* a resolution errno means nothing on InfiniBand */
	{ ETIMEDOUT, PP_QP_RTR, IB, 0, 0, 0, 0,
	  "on InfiniBand: is the peer's LID right (0 until a subnet manager has run: is one running? ibv_devinfo shows the port's LID and state)? is -m within both ports' active MTU?" },
	{ EINVAL, PP_QP_RTR, UD, 0, 0, 0, 0,
	  "a UD QP's RTR sets no path, so the device or driver refused the state change itself: check dmesg and ibv_devinfo -v" },
	/* the port went down: whatever the errno, that is what happened */
	{ EINVAL, PP_QP_RTR, 0, 0, IBV_PORT_DOWN, 0, 0,
	  "port rxe0:1 is DOWN: its link or network device is down (ibv_devinfo, ip link)" },
	{ EINVAL, PP_QP_RTS, 0, 0, IBV_PORT_INIT, 0, 0,
	  "port rxe0:1 is INIT (no subnet manager yet?): its link or network device is down (ibv_devinfo, ip link)" },
	{ ENOMEM, PP_QP_RTR, 0, 0, 0, 0, 0,
	  "the kernel or the device ran out of memory for this QP: fewer QPs (-q) or a smaller -r, and check dmesg" },
	{ EIO, PP_QP_RTS, 0, 0, 0, 0, 0,
	  "the device failed or was removed during the bring-up: check ibv_devinfo and dmesg" },
	{ ENODEV, PP_QP_INIT, 0, 0, 0, 0, 0,
	  "the device failed or was removed during the bring-up: check ibv_devinfo and dmesg" },
	{ EPERM, PP_QP_RTR, 0, 0, 0, 0, 0,
	  "the kernel refused an attribute this user may not set: run with the rights the device needs (its /dev/infiniband files), or as root to compare" },
	{ EINVAL, PP_QP_RTS, 0, 0, 0, 0, 0,
	  "the device refused the send side's attributes (timeout 14, retry count 7, RNR retry 7, one outstanding RDMA Read): its limits are lower or the QP did not reach RTR; check ibv_devinfo -v (max_qp_rd_atom) and dmesg" },
	{ EINVAL, PP_QP_INIT, 0, 0, 0, 0, 3,
	  "P_Key index 3 is outside port rxe0:1's table of 1: --pkey-index 0 or less (ibv_devinfo -v lists the P_Keys)" },
	{ EINVAL, PP_QP_INIT, 0, 0, 0, 0, 0,
	  "the device refused the port number or the P_Key index: is -i a port of this device (ibv_devinfo lists them)? is --pkey-index within its P_Key table?" },
	/* INIT does not depend on the port being up */
	{ EINVAL, PP_QP_INIT, 0, 0, IBV_PORT_DOWN, 0, 0,
	  "the device refused the port number or the P_Key index: is -i a port of this device (ibv_devinfo lists them)? is --pkey-index within its P_Key table?" },
};

START_TEST(qp_causes)
{
	const struct qp_case *c = &qp_cases[_i];
	struct pp_explain_qp q = rtr();
	char buf[400];

	q.step = c->step;
	q.grh = !(c->flags & (NO_GRH | IB));
	q.ethernet = !(c->flags & IB);
	q.datagram = c->flags & UD;
	q.gid_empty = c->flags & GID_EMPTY;
	if (c->flags & NO_NETDEV)
		q.netdev = NULL;
	if (c->netdev_state)
		q.netdev_state = c->netdev_state;
	if (c->port_state)
		q.port_state = c->port_state;
	if (c->path_mtu)
		q.path_mtu = c->path_mtu;
	q.pkey_index = c->pkey_index;
	ck_assert_str_eq(pp_explain_qp(c->err, &q, buf, sizeof(buf)), c->want);
	ck_assert(!strchr(buf, '\n'));
}
END_TEST

/* A short buffer is cut, never overrun; none at all is left alone. */
START_TEST(qp_short)
{
	struct pp_explain_qp q = rtr();
	char buf[16];

	q.grh = false;
	ck_assert_str_eq(pp_explain_qp(EINVAL, &q, buf, sizeof(buf)),
			 "on RoCE a GRH i");
	buf[0] = 'x';
	ck_assert_ptr_eq(pp_explain_qp(EINVAL, &q, buf, 0), buf);
	ck_assert_int_eq(buf[0], 'x');
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("explain");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, every_status, IBV_WC_LOC_LEN_ERR,
			    IBV_WC_TM_RNDV_INCOMPLETE + 1);
	tcase_add_loop_test(tc, named_causes, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, unknown_and_short);
	tcase_add_test(tc, remote_refusal_names_rkey);
	tcase_add_loop_test(
		tc, each_status_says, 0,
		(int)(sizeof(each_status) / sizeof(each_status[0])));
	tcase_add_loop_test(tc, qp_causes, 0,
			    (int)(sizeof(qp_cases) / sizeof(qp_cases[0])));
	tcase_add_test(tc, qp_short);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(suite)
