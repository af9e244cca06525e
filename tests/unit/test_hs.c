// SPDX-License-Identifier: MIT
/*
 * test_hs.c - the handshake: the pure adoption rules table by table, then
 * real client and server processes over 127.0.0.1 and ::1.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "caps_fixture.h"
#include "pp_hs.h"
#include "pp_res.h"
#include "pp_run.h"
#include "pp_sock.h"
#include "pp_time.h"

#define LL_IB 1
#define LL_ETH 2
#define CHILD_ALARM_S 10

/* ---------------------------------------------------------------- pure */

static void caps_init(struct pp_port_caps *c, uint32_t active_mtu)
{
	caps_fixture(c, active_mtu);
}

/* A side of @tool with default options, its port at @active_mtu. */
struct side {
	struct pp_opts o;
	struct pp_port_caps caps;
	struct pp_hello h;
	bool no_gid; /* on RoCE too: a side without a GID */
};

/* A side's HELLO: on RoCE a GID (index 0, RoCE v2), which RoCE needs. */
static void side_hello(struct side *s)
{
	bool roce = s->caps.link_layer == LL_ETH && !s->no_gid;

	pp_hello_build(&s->o, &s->caps, roce ? 0 : -1,
		       roce ? PP_GID_TYPE_ROCE_V2 : PP_GID_TYPE_NONE, &s->h);
}

static void side_init(struct side *s, enum pp_tool tool, uint32_t active_mtu)
{
	pp_opts_init(&s->o, tool, "test_hs");
	caps_init(&s->caps, active_mtu);
	s->no_gid = false;
	side_hello(s);
}

/* Rebuild the HELLO after a change of options or port. */
static void side_rebuild(struct side *s)
{
	side_hello(s);
}

static void set_opt(struct pp_opts *o, enum pp_opt_id id)
{
	o->set |= PP_OPT_BIT(id);
}

#define ck_assert_err(e, want)                                              \
	ck_assert_msg(strstr((e)->msg, (want)), "'%s' not in '%s'", (want), \
		      (e)->msg)

static int adopt(const struct side *srv, const struct side *cl,
		 struct pp_hello *agreed, struct pp_err *err)
{
	return pp_hello_adopt(&srv->o, &srv->caps, &srv->h, &cl->h, agreed,
			      err);
}

START_TEST(build_copies_options)
{
	struct pp_port_caps caps;
	struct pp_hello h;
	struct pp_opts o;

	pp_opts_init(&o, PP_TOOL_SRQ, "t");
	caps_init(&caps, 2048);
	caps.link_layer = LL_IB;
	o.validate = true;
	o.mtu = 1024;
	o.size = 777;
	o.iters = 12;
	o.rx_depth = 33;
	o.num_qps = 7;
	o.sl = 5;
	o.qp_timeout = 0;
	o.retry_count = 3;
	o.rnr_retry = 6;
	pp_hello_build(&o, &caps, -1, PP_GID_TYPE_NONE, &h);
	ck_assert_uint_eq(h.tool, PP_TOOL_SRQ);
	ck_assert_uint_eq(h.transport, PP_TR_SRQ);
	ck_assert_uint_eq(h.flags, PP_F_VALIDATE);
	ck_assert_uint_eq(h.mtu, 1024);
	ck_assert_uint_eq(h.size, 777);
	ck_assert_uint_eq(h.iters, 12);
	ck_assert_uint_eq(h.rx_depth, 33);
	ck_assert_uint_eq(h.num_qps, 7);
	ck_assert_uint_eq(h.sl, 5);
	ck_assert_uint_eq(h.qp_timeout, 0);
	ck_assert_uint_eq(h.retry_count, 3);
	ck_assert_uint_eq(h.rnr_retry, 6);
	ck_assert_uint_eq(h.link_layer, LL_IB);
	ck_assert_uint_eq(h.active_mtu, 2048);
	ck_assert_uint_eq(h.gid_index, PP_GID_INDEX_NONE);
	ck_assert_uint_eq(h.gid_type, PP_GID_TYPE_NONE);

	o.validate = false;
	pp_hello_build(&o, &caps, 3, PP_GID_TYPE_ROCE_V2, &h);
	ck_assert_uint_eq(h.flags, 0);
	ck_assert_uint_eq(h.gid_index, 3);
	ck_assert_uint_eq(h.gid_type, PP_GID_TYPE_ROCE_V2);
}
END_TEST

START_TEST(adopt_client_params)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	side_init(&srv, PP_TOOL_RC, 1024);
	side_init(&cl, PP_TOOL_RC, 4096);
	srv.o.size = 1024; /* defaults, not set explicitly: adopted */
	srv.o.iters = 5;
	pp_hello_build(&srv.o, &srv.caps, 1, PP_GID_TYPE_ROCE_V2, &srv.h);
	cl.o.transport = PP_TR_UC;
	cl.o.size = 8192;
	cl.o.iters = 77;
	cl.o.rx_depth = 100;
	cl.o.sl = 3;
	cl.o.validate = true;
	cl.o.hop_limit = 5;
	cl.o.tclass = 106;
	cl.o.flow_label = 0x12345;
	cl.o.pkey = 0x8001;
	cl.o.timeout_ms = 1500;
	cl.o.qp_timeout = 10;
	cl.o.retry_count = 1;
	cl.o.rnr_retry = 0;
	cl.caps.link_layer = LL_ETH;
	pp_hello_build(&cl.o, &cl.caps, 0, PP_GID_TYPE_ROCE_V1, &cl.h);
	ck_assert_uint_eq(srv.h.hop_limit, 64);	 /* the server's default */
	ck_assert_uint_eq(srv.h.qp_timeout, 14); /* the server's defaults */
	ck_assert_uint_eq(srv.h.retry_count, 7);
	ck_assert_uint_eq(srv.h.rnr_retry, 7);

	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	ck_assert_uint_eq(agreed.tool, PP_TOOL_RC);
	ck_assert_uint_eq(agreed.transport, PP_TR_UC);
	ck_assert_uint_eq(agreed.size, 8192);
	ck_assert_uint_eq(agreed.iters, 77);
	ck_assert_uint_eq(agreed.rx_depth, 100);
	ck_assert_uint_eq(agreed.sl, 3);
	/* both sides have a GID: a GRH both ways */
	ck_assert_uint_eq(agreed.flags, PP_F_VALIDATE | PP_F_GRH);
	ck_assert_uint_eq(agreed.mtu, 1024);
	ck_assert_uint_eq(agreed.hop_limit, 5);
	ck_assert_uint_eq(agreed.tclass, 106);
	ck_assert_uint_eq(agreed.flow_label, 0x12345);
	ck_assert_uint_eq(agreed.pkey, 0x8001);
	/* the client's -T: the deadline both sides' waits follow */
	ck_assert_uint_eq(agreed.timeout_ms, 1500);
	/* the client's RTS attributes: both sides' RC QPs give up alike */
	ck_assert_uint_eq(agreed.qp_timeout, 10);
	ck_assert_uint_eq(agreed.retry_count, 1);
	ck_assert_uint_eq(agreed.rnr_retry, 0);
	/* The server's own port fields. */
	ck_assert_uint_eq(agreed.active_mtu, 1024);
	ck_assert_uint_eq(agreed.gid_index, 1);
	ck_assert_uint_eq(agreed.gid_type, PP_GID_TYPE_ROCE_V2);
}
END_TEST

/* --trace's "parameters:" line: every parameter by its label. */
START_TEST(hello_describe)
{
	struct pp_hello h = {
		.tool = PP_TOOL_RC,
		.transport = PP_TR_RC,
		.flags = PP_F_VALIDATE | PP_F_NO_INLINE,
		.size = 4096,
		.iters = 1000,
		.pkey = 0xffff,
		.duration_s = 5,
		.rx_depth = 500,
		.sl = 2,
		.hop_limit = 64,
		.tclass = 106,
		.flow_label = 0xabcde,
		.num_qps = 1,
		.qp_timeout = 10,
		.retry_count = 1,
		.rnr_retry = 7,
	};
	char buf[512], small[10];

	ck_assert_str_eq(
		pp_hello_describe(&h, buf, sizeof(buf)),
		"operation send, size 4096, size sweep (-a) off, iterations 1000, duration 5 s, warm-up 0, rx depth 500, MTU auto, SL 2, hop limit 64, traffic class 106, P_Key 0xffff, flow label 703710, QPs 1, QP timeout 10, retry count 1, RNR retry 7, data validation on, inline sends off, port counters off");
	h.mtu = 1024;
	ck_assert_ptr_nonnull(strstr(pp_hello_describe(&h, buf, sizeof(buf)),
				     ", MTU 1024, "));
	/* cut, never overrun */
	ck_assert_str_eq(pp_hello_describe(&h, small, sizeof(small)),
			 "operation");
	/* the operation by its name */
	h.op = PP_OP_FETCH_ADD;
	ck_assert_ptr_nonnull(strstr(pp_hello_describe(&h, buf, sizeof(buf)),
				     "operation fetch-add, size 4096"));
}
END_TEST

START_TEST(adopt_explicit_equal_is_fine)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	side_init(&srv, PP_TOOL_SRQ, 1024);
	side_init(&cl, PP_TOOL_SRQ, 1024);
	set_opt(&srv.o, PP_OPT_SIZE);
	set_opt(&srv.o, PP_OPT_ITERS);
	set_opt(&srv.o, PP_OPT_NUM_QPS);
	set_opt(&srv.o, PP_OPT_RX_DEPTH);
	set_opt(&srv.o, PP_OPT_SL);
	set_opt(&srv.o, PP_OPT_CHECK);
	set_opt(&srv.o, PP_OPT_QP_TIMEOUT);
	set_opt(&srv.o, PP_OPT_RETRY_COUNT);
	set_opt(&srv.o, PP_OPT_RNR_RETRY);
	ck_assert_msg(adopt(&srv, &cl, &agreed, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(agreed.num_qps, 16);
}
END_TEST

/*
 * --counters is not a parameter the server imposes: given on the server
 * alone it reads its own port and refuses nobody; given by the client, the
 * server adopts it (and sends its deltas in COUNTERS).
 */
START_TEST(adopt_counters)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	side_init(&srv, PP_TOOL_RC, 1024);
	side_init(&cl, PP_TOOL_RC, 1024);
	set_opt(&srv.o, PP_OPT_COUNTERS);
	srv.o.counters = true;
	side_rebuild(&srv);
	ck_assert_msg(adopt(&srv, &cl, &agreed, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(agreed.flags & PP_F_COUNTERS, 0);

	cl.o.counters = true;
	side_rebuild(&cl);
	ck_assert_uint_eq(cl.h.flags, PP_F_COUNTERS);
	ck_assert_msg(adopt(&srv, &cl, &agreed, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(agreed.flags & PP_F_COUNTERS, PP_F_COUNTERS);

	side_init(&srv, PP_TOOL_RC, 1024);
	ck_assert_msg(adopt(&srv, &cl, &agreed, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(agreed.flags & PP_F_COUNTERS, PP_F_COUNTERS);
}
END_TEST

/* Path MTU: the client's -m, else the smaller active MTU. */
static const struct {
	uint32_t cl_active, srv_active, cl_mtu, want; /* want 0: refused */
	const char *msg;
} mtu_cases[] = {
	{ 4096, 1024, 0, 1024, NULL },
	{ 512, 1024, 0, 512, NULL },
	{ 2048, 2048, 0, 2048, NULL },
	{ 4096, 4096, 512, 512, NULL },
	{ 1024, 4096, 2048, 0,
	  "MTU: client asks 2048, client port active MTU 1024: use -m 1024 or less, or raise the client's netdev MTU (RoCE needs about 2152 bytes for 2048)" },
	{ 4096, 1024, 2048, 0,
	  "MTU: client asks 2048, server port active MTU 1024: use -m 1024 or less, or raise the server's netdev MTU (RoCE needs about 2152 bytes for 2048)" },
};

START_TEST(adopt_path_mtu)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;
	int rc;

	side_init(&srv, PP_TOOL_RC, mtu_cases[_i].srv_active);
	side_init(&cl, PP_TOOL_RC, mtu_cases[_i].cl_active);
	cl.o.mtu = mtu_cases[_i].cl_mtu;
	side_rebuild(&cl);
	rc = adopt(&srv, &cl, &agreed, &err);
	if (mtu_cases[_i].want) {
		ck_assert_msg(rc == 0, "%s", err.msg);
		ck_assert_uint_eq(agreed.mtu, mtu_cases[_i].want);
	} else {
		ck_assert_int_eq(rc, EINVAL);
		ck_assert_err(&err, mtu_cases[_i].msg);
	}
}
END_TEST

/*
 * --expect-mtu is no parameter: each side's goes in its HELLO and the
 * server's answer carries the server's own (and its netdev MTU), so both
 * judge; a server's value never refuses a client's.
 */
START_TEST(adopt_expect_mtu)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	side_init(&srv, PP_TOOL_RC, 1024);
	side_init(&cl, PP_TOOL_RC, 4096);
	srv.o.expect_mtu = 4096;
	set_opt(&srv.o, PP_OPT_EXPECT_MTU);
	side_rebuild(&srv);
	srv.h.netdev_mtu = 1500;
	cl.o.expect_mtu = 2048;
	side_rebuild(&cl);
	cl.h.netdev_mtu = 9000;
	ck_assert_uint_eq(cl.h.expect_mtu, 2048);
	ck_assert_msg(adopt(&srv, &cl, &agreed, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(agreed.mtu, 1024);
	ck_assert_uint_eq(agreed.expect_mtu, 4096);
	ck_assert_uint_eq(agreed.netdev_mtu, 1500);
	ck_assert_uint_eq(agreed.active_mtu, 1024);
	/* a server without it answers 0: the client's alone counts */
	srv.o.expect_mtu = 0;
	side_rebuild(&srv);
	ck_assert_msg(adopt(&srv, &cl, &agreed, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(agreed.expect_mtu, 0);
}
END_TEST

/* One mismatch: the server set an option the client asks otherwise. */
struct mismatch {
	enum pp_tool srv_tool, cl_tool;
	void (*apply)(struct side *srv, struct side *cl);
	const char *msg;
};

static void mm_size(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_SIZE);
	srv->o.size = 1024;
	cl->o.size = 4096;
}

static void mm_iters(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_ITERS);
	srv->o.iters = 5;
	cl->o.iters = 1000;
}

static void mm_mtu(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_MTU);
	srv->o.mtu = 512;
	cl->o.mtu = 1024;
}

static void mm_mtu_auto(struct side *srv, struct side *cl)
{
	(void)cl;
	set_opt(&srv->o, PP_OPT_MTU);
	srv->o.mtu = 512;
}

static void mm_rx_depth(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_RX_DEPTH);
	srv->o.rx_depth = 64;
	cl->o.rx_depth = 500;
}

static void mm_qps(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_NUM_QPS);
	srv->o.num_qps = 4;
	cl->o.num_qps = 16;
}

static void mm_sl(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_SL);
	srv->o.sl = 2;
	cl->o.sl = 0;
}

/* Issue 14: the GRH and the partition, negotiated like the others. */
static void mm_hop_limit(struct side *srv, struct side *cl)
{
	(void)cl;
	set_opt(&srv->o, PP_OPT_HOP_LIMIT);
	srv->o.hop_limit = 2;
}

static void mm_tclass(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_TCLASS);
	srv->o.tclass = 0;
	cl->o.tclass = 106;
}

static void mm_flow_label(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_FLOW_LABEL);
	srv->o.flow_label = 0xfffff;
	cl->o.flow_label = 1;
}

/* The RTS attributes, given on the server, must be what the client asks. */
static void mm_qp_timeout(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_QP_TIMEOUT);
	srv->o.qp_timeout = 10;
	cl->o.qp_timeout = 0;
}

static void mm_retry_count(struct side *srv, struct side *cl)
{
	(void)cl;
	set_opt(&srv->o, PP_OPT_RETRY_COUNT);
	srv->o.retry_count = 1;
}

static void mm_rnr_retry(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_RNR_RETRY);
	srv->o.rnr_retry = 7;
	cl->o.rnr_retry = 3;
}

/* The P_Key value is compared, not an index into two different tables. */
static void mm_pkey(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_PKEY);
	srv->o.pkey = 0x8002;
	cl->o.pkey = 0x8001;
}

/* RoCE needs a GRH: a client without a GID is refused before RTR. */
static void mm_grh_roce(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->no_gid = true;
}

static void mm_uc(struct side *srv, struct side *cl)
{
	(void)cl;
	set_opt(&srv->o, PP_OPT_UC);
	srv->o.transport = PP_TR_UC;
}

/* Issue 17: the operation is adopted; an explicit one must match. */
static void mm_op(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_OP);
	srv->o.op = PP_OP_WRITE;
	cl->o.op = PP_OP_READ;
}

/* A HELLO the client's parser would have refused: the server refuses it. */
static void mm_op_uc_read(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->o.transport = PP_TR_UC;
	cl->o.op = PP_OP_READ;
}

static void mm_op_ud_write(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->o.op = PP_OP_WRITE;
}

static void mm_op_atomic_size(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->o.op = PP_OP_FETCH_ADD;
	cl->o.size = 16;
}

static void mm_op_atomic_sweep(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->o.op = PP_OP_CMP_SWAP;
	cl->o.size = 8;
	cl->o.sweep = true;
	cl->o.set |= PP_OPT_BIT(PP_OPT_SIZE);
}

static void mm_op_server_events(struct side *srv, struct side *cl)
{
	srv->o.use_event = true;
	cl->o.op = PP_OP_WRITE;
}

static void mm_check(struct side *srv, struct side *cl)
{
	(void)cl;
	set_opt(&srv->o, PP_OPT_CHECK);
	srv->o.validate = true;
}

static void mm_none(struct side *srv, struct side *cl)
{
	(void)srv;
	(void)cl;
}

static void mm_foreign_transport(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->o.transport = PP_TR_UD;
}

static void mm_ud_size(struct side *srv, struct side *cl)
{
	(void)srv;
	cl->o.size = 2048;
}

static void mm_xrc(struct side *srv, struct side *cl)
{
	(void)cl;
	srv->caps.xrc = false;
}

static void mm_srq_none(struct side *srv, struct side *cl)
{
	(void)cl;
	srv->caps.max_srq_wr = 0;
}

static void mm_max_qp_wr(struct side *srv, struct side *cl)
{
	(void)cl;
	srv->caps.max_qp_wr = 100;
}

static void mm_max_qp(struct side *srv, struct side *cl)
{
	srv->caps.max_qp = 8;
	cl->o.num_qps = 16;
}

static void mm_link_layer(struct side *srv, struct side *cl)
{
	srv->caps.link_layer = LL_IB;
	cl->caps.link_layer = LL_ETH;
}

static void mm_warmup(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_WARMUP);
	srv->o.warmup = 10;
	cl->o.warmup = 20;
}

static void mm_duration(struct side *srv, struct side *cl)
{
	(void)cl;
	set_opt(&srv->o, PP_OPT_DURATION);
	srv->o.duration_s = 5;
}

static void mm_sweep(struct side *srv, struct side *cl)
{
	(void)srv;
	set_opt(&srv->o, PP_OPT_SWEEP);
	srv->o.sweep = true;
	(void)cl;
}

static void mm_inline(struct side *srv, struct side *cl)
{
	set_opt(&srv->o, PP_OPT_NO_INLINE);
	srv->o.no_inline = true;
	(void)cl;
}

static void mm_sweep_top(struct side *srv, struct side *cl)
{
	/* -a without -s asks for the default top, 8 MiB */
	set_opt(&srv->o, PP_OPT_SIZE);
	set_opt(&srv->o, PP_OPT_SWEEP);
	srv->o.sweep = true;
	cl->o.sweep = true;
}

static const struct mismatch mismatches[] = {
	{ PP_TOOL_RC, PP_TOOL_RC, mm_warmup, "warm-up: client 20, server 10" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_duration,
	  "duration: client 0 s, server 5 s" },
	{ PP_TOOL_UD, PP_TOOL_UD, mm_sweep,
	  "size sweep (-a): client off, server on" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_inline,
	  "inline sends: client on, server off" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_sweep_top,
	  "size: client 8388608, server 4096" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_size, "size: client 4096, server 1024" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_iters,
	  "iterations: client 1000, server 5" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_mtu, "MTU: client 1024, server 512" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_mtu_auto, "MTU: client auto, server 512" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_rx_depth,
	  "rx depth: client 500, server 64" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_qps, "QPs: client 16, server 4" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_sl, "SL: client 0, server 2" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_hop_limit,
	  "hop limit: client 64, server 2" },
	{ PP_TOOL_UD, PP_TOOL_UD, mm_tclass,
	  "traffic class: client 106, server 0" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_flow_label,
	  "flow label: client 1, server 1048575" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_pkey,
	  "P_Key: client 0x8001, server 0x8002" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_qp_timeout,
	  "QP timeout: client 0, server 10" },
	{ PP_TOOL_XRC, PP_TOOL_XRC, mm_retry_count,
	  "retry count: client 7, server 1" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_rnr_retry,
	  "RNR retry: client 3, server 7" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_grh_roce,
	  "GRH: RoCE needs a GRH, and the client has no GID (give -g; see --show-gids)" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_uc, "transport: client rc, server uc" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_check,
	  "data validation: client off, server on" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_op,
	  "operation: client read, server write" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_op_uc_read,
	  "--op read: not on uc: an unreliable connection carries Send and RDMA Write only (no RDMA Read or atomics on UC)" },
	{ PP_TOOL_UD, PP_TOOL_UD, mm_op_ud_write,
	  "--op write: not on ud: a datagram transport carries Send only (no remote memory access on UD)" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_op_atomic_size,
	  "--op fetch-add: an atomic works on one aligned 8-byte word: use -s 8 (asked -s 16)" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_op_atomic_sweep,
	  "--op cmp-swap: an atomic works on one aligned 8-byte word: use -s 8 without -a" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_op_server_events,
	  "operation write with the server's -e/--events" },
	{ PP_TOOL_RC, PP_TOOL_UD, mm_none,
	  "transport binary: client ud_pingpong, server rc_pingpong" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_foreign_transport,
	  "transport: client ud, server rc" },
	{ PP_TOOL_UD, PP_TOOL_UD, mm_ud_size,
	  "size: 2048 is larger than the MTU 1024 (UD messages must fit in one MTU; use -s 1024 or less)" },
	{ PP_TOOL_XRC, PP_TOOL_XRC, mm_xrc,
	  "XRC: not supported by device rxe0" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_srq_none,
	  "SRQ: not supported by device rxe0" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_max_qp_wr,
	  "rx depth: 500 asked, device rxe0 max QP WRs 100" },
	{ PP_TOOL_SRQ, PP_TOOL_SRQ, mm_max_qp,
	  "QPs: 16 asked, device rxe0 max QPs 8" },
	{ PP_TOOL_RC, PP_TOOL_RC, mm_link_layer,
	  "link layer: client Ethernet, server InfiniBand" },
};

#define N_MISMATCHES ((int)(sizeof(mismatches) / sizeof(mismatches[0])))

static void mismatch_sides(int i, struct side *srv, struct side *cl)
{
	side_init(srv, mismatches[i].srv_tool, 1024);
	side_init(cl, mismatches[i].cl_tool, 1024);
	mismatches[i].apply(srv, cl);
	side_rebuild(srv);
	side_rebuild(cl);
}

START_TEST(adopt_mismatch)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	mismatch_sides(_i, &srv, &cl);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);
	ck_assert_err(&err, mismatches[_i].msg);
	ck_assert(!err.remote);
}
END_TEST

/* Issue 6: what the HELLO carries for -a, -D, --warmup, --no-inline. */
START_TEST(build_measure)
{
	struct side cl;

	side_init(&cl, PP_TOOL_RC, 1024);
	ck_assert_uint_eq(cl.h.flags, 0);
	ck_assert_uint_eq(cl.h.warmup, 0);
	ck_assert_uint_eq(cl.h.duration_s, 0);

	cl.o.sweep = true;
	cl.o.warmup = 7;
	cl.o.no_inline = true;
	cl.o.duration_s = 3;
	side_rebuild(&cl);
	ck_assert_uint_eq(cl.h.flags, PP_F_SWEEP | PP_F_NO_INLINE);
	ck_assert_uint_eq(cl.h.size, PP_SWEEP_TOP); /* no -s: the default top */
	ck_assert_uint_eq(cl.h.warmup, 7);
	ck_assert_uint_eq(cl.h.duration_s, 3);
	ck_assert_uint_eq(cl.h.iters, 3 * PP_DURATION_RATE); /* the cap */

	set_opt(&cl.o, PP_OPT_SIZE);
	cl.o.size = 65536;
	cl.o.duration_s = PP_MAX_DURATION_S;
	side_rebuild(&cl);
	ck_assert_uint_eq(cl.h.size, 65536); /* -s is the top */
	ck_assert_uint_eq(cl.h.iters, PP_MAX_ITERS);

	side_init(&cl, PP_TOOL_UD, 1024);
	cl.o.sweep = true;
	side_rebuild(&cl);
	ck_assert_uint_eq(cl.h.size, 4096); /* cut to the path MTU later */
}
END_TEST

/* The server takes the client's measurement parameters as they are. */
START_TEST(adopt_measure)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	side_init(&srv, PP_TOOL_UD, 1024);
	side_init(&cl, PP_TOOL_UD, 2048);
	cl.o.sweep = true;
	cl.o.warmup = 50;
	cl.o.duration_s = 2;
	cl.o.validate = true;
	side_rebuild(&cl);
	/* a UD sweep's top above the MTU is no error: the sweep stops there */
	ck_assert_int_eq(pp_hello_check(&cl.h, &cl.caps, &err), 0);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	ck_assert_uint_eq(agreed.flags, PP_F_SWEEP | PP_F_VALIDATE | PP_F_GRH);
	ck_assert_uint_eq(agreed.warmup, 50);
	ck_assert_uint_eq(agreed.duration_s, 2);
	ck_assert_uint_eq(agreed.mtu, 1024);
}
END_TEST

static void expect_sizes(const struct pp_hello *h, const uint64_t *want,
			 size_t n)
{
	uint64_t got[PP_SWEEP_MAX];
	size_t i, m;

	m = pp_sweep_sizes(h, got);
	ck_assert_uint_eq(m, n);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(got[i], want[i]);
}

START_TEST(sweep_sizes)
{
	static const uint64_t one[] = { 4096 };
	static const uint64_t to64[] = { 1, 2, 4, 8, 16, 32, 64 };
	static const uint64_t to100[] = { 1, 2, 4, 8, 16, 32, 64, 100 };
	static const uint64_t ud[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
	static const uint64_t single[] = { 1 };
	struct pp_hello h = {
		.transport = PP_TR_RC,
		.size = 4096,
		.mtu = 1024,
	};
	uint64_t got[PP_SWEEP_MAX];
	size_t n;

	expect_sizes(&h, one, 1); /* no -a: the size alone */
	h.flags = PP_F_SWEEP;
	h.size = 64;
	expect_sizes(&h, to64, 7);
	h.size = 100; /* a top that is not a power of two comes last */
	expect_sizes(&h, to100, 8);
	h.size = 1;
	expect_sizes(&h, single, 1);
	/* UD stops at the path MTU whatever the top */
	h.transport = PP_TR_UD;
	h.size = 4096;
	h.mtu = 512;
	expect_sizes(&h, ud, 10);
	/* RC is not cut by the MTU: 1 B .. 8 MiB is 24 sizes */
	h.transport = PP_TR_RC;
	h.size = PP_SWEEP_TOP;
	n = pp_sweep_sizes(&h, got);
	ck_assert_uint_eq(n, 24);
	ck_assert_uint_eq(got[23], PP_SWEEP_TOP);
	/* the largest size there can be still fits */
	h.size = PP_MAX_SIZE;
	n = pp_sweep_sizes(&h, got);
	ck_assert_uint_le(n, PP_SWEEP_MAX);
	ck_assert_uint_eq(got[n - 1], PP_MAX_SIZE);
	/* strides of message numbers: every size's numbers fit in 32 bits */
	ck_assert_uint_ge(PP_SEQ_STRIDE, PP_MAX_ITERS + PP_MAX_WARMUP);
	ck_assert_uint_le((uint64_t)PP_SEQ_STRIDE * PP_SWEEP_MAX,
			  (uint64_t)UINT32_MAX + 1);
}
END_TEST

START_TEST(check_limits)
{
	struct pp_port_caps caps;
	struct pp_hello h;
	struct pp_opts o;
	struct pp_err err;

	pp_opts_init(&o, PP_TOOL_RC, "t");
	caps_init(&caps, 1024);
	pp_hello_build(&o, &caps, -1, PP_GID_TYPE_NONE, &h);
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);

	h.mtu = 4096;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(
		&err,
		"MTU: 4096 asked, port rxe0:1 active MTU 1024: use -m 1024 or less, or raise this host's netdev MTU (RoCE needs about 4200 bytes for 4096)");
	caps.link_layer = LL_IB;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(
		&err,
		"MTU: 4096 asked, port rxe0:1 active MTU 1024: use -m 1024 or less, or raise this host's port MTU (the subnet manager sets it)");
	caps.link_layer = LL_ETH;
	h.mtu = 1024;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);

	caps.max_msg_sz = 1000;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "size: 4096");
	ck_assert_err(&err, "1000");
	caps.max_msg_sz = 0; /* unknown: not a limit */
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);

	caps.max_mr_size = 2048;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "size: 4096");
	ck_assert_err(&err, "2048");
	caps.max_mr_size = 0;

	caps.max_qp_wr = 499;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "rx depth: 500 asked, device rxe0 max QP WRs 499");
	caps.max_qp_wr = 500;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);

	h.transport = PP_TR_SRQ;
	caps.max_srq_wr = 200;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "rx depth: 500 asked, device rxe0 max SRQ WRs 200");
	caps.max_srq_wr = 0;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "SRQ: not supported by device rxe0");
	caps.max_srq_wr = 1000;

	h.num_qps = 9;
	caps.max_qp = 8;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "QPs: 9 asked, device rxe0 max QPs 8");
	caps.max_qp = 9;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);

	h.transport = PP_TR_XRC;
	caps.xrc = false;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "XRC: not supported by device rxe0");
	caps.xrc = true;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);
}
END_TEST

/*
 * Atomics on a device whose atomic_cap is IBV_ATOMIC_NONE: refused on the
 * side that lacks them (the client's own check on the answer, or the
 * server's on the HELLO), before any QP; the other operations run.
 */
START_TEST(check_atomic_cap)
{
	static const enum pp_op ops[] = { PP_OP_SEND,	   PP_OP_WRITE,
					  PP_OP_WRITE_IMM, PP_OP_READ,
					  PP_OP_FETCH_ADD, PP_OP_CMP_SWAP };
	struct ibv_device_attr da = {
		.max_mr_size = ~0ULL,
		.max_qp = 4096,
		.max_qp_wr = 16384,
		.max_cqe = 65536,
		.atomic_cap = IBV_ATOMIC_NONE,
	};
	struct ibv_port_attr pa = {
		.state = IBV_PORT_ACTIVE,
		.link_layer = IBV_LINK_LAYER_ETHERNET,
		.active_mtu = IBV_MTU_1024,
		.max_mtu = IBV_MTU_4096,
		.max_msg_sz = 1U << 31,
		.gid_tbl_len = 16,
	};
	struct side srv, cl;
	struct pp_hello agreed;
	struct pp_err err;
	size_t i;

	side_init(&srv, PP_TOOL_RC, 1024);
	side_init(&cl, PP_TOOL_RC, 1024);
	cl.o.size = PP_OP_ATOMIC_SIZE;
	pp_dev_caps_fill(&da, &pa, &srv.caps);
	ck_assert(srv.caps.no_atomics);
	ck_assert_uint_eq(srv.caps.active_mtu, 1024);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		cl.o.op = ops[i];
		side_rebuild(&cl);
		pp_err_clear(&err);
		if (!pp_op_atomic(ops[i])) {
			ck_assert_int_eq(pp_hello_check(&cl.h, &srv.caps, &err),
					 0);
			ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
			continue;
		}
		/* the client's device lacks them: its check on the answer */
		ck_assert_int_eq(pp_hello_check(&cl.h, &srv.caps, &err),
				 EINVAL);
		ck_assert_err(
			&err,
			"device rxe0 has no atomic operations (atomic_cap is IBV_ATOMIC_NONE): use --op send, write, write-imm or read, or a device with atomics");
		ck_assert_err(&err, pp_op_name(ops[i]));
		/* the server's device lacks them: its answer to the HELLO */
		ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);
		ck_assert_err(&err, "atomic_cap is IBV_ATOMIC_NONE");
	}
	/* a device with atomics, for its own HCA or across the host: run */
	da.atomic_cap = IBV_ATOMIC_HCA;
	pp_dev_caps_fill(&da, &pa, &srv.caps);
	ck_assert(!srv.caps.no_atomics);
	cl.o.op = PP_OP_FETCH_ADD;
	side_rebuild(&cl);
	ck_assert_int_eq(pp_hello_check(&cl.h, &srv.caps, &err), 0);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	da.atomic_cap = IBV_ATOMIC_GLOB;
	pp_dev_caps_fill(&da, &pa, &srv.caps);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
}
END_TEST

/* Several QPs in one run: only where they share a receive queue. */
START_TEST(check_one_qp)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	struct pp_hello agreed;
	struct side srv, cl;
	struct pp_err err;
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		bool many = tools[i] == PP_TOOL_SRQ || tools[i] == PP_TOOL_XRC;

		side_init(&srv, tools[i], 1024);
		side_init(&cl, tools[i], 1024);
		if (tools[i] == PP_TOOL_UD)
			cl.o.size = 1024;
		side_rebuild(&cl);
		/* a HELLO no option of ours makes for RC, UC or UD */
		cl.h.num_qps = 2;
		ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err),
				 many ? 0 : EINVAL);
		if (many)
			continue;
		ck_assert_err(&err, "QPs: 2 asked, ");
		ck_assert_err(
			&err,
			" runs one QP (several QPs are srq_pingpong's and xrc_pingpong's -q)");
		cl.h.num_qps = 1;
		ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	}
	side_init(&srv, PP_TOOL_RC, 1024);
	side_init(&cl, PP_TOOL_RC, 1024);
	cl.o.transport = PP_TR_UC;
	side_rebuild(&cl);
	cl.h.num_qps = 3;
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);
	ck_assert_err(&err, "QPs: 3 asked, uc runs one QP");
	cl.h.num_qps = 0;
	ck_assert_int_eq(pp_hello_check(&cl.h, &srv.caps, &err), EINVAL);
}
END_TEST

/* The CQ holds every receive and send that can flush into it. */
START_TEST(check_cqe)
{
	struct pp_hello agreed;
	struct side srv, cl;
	struct pp_err err;

	ck_assert_uint_eq(pp_res_cqe(pp_transport_of(PP_TR_RC), 1, 500), 516);
	ck_assert_uint_eq(pp_res_cqe(pp_transport_of(PP_TR_UD), 1, 500), 516);
	/* one shared receive queue, a send queue per QP */
	ck_assert_uint_eq(pp_res_cqe(pp_transport_of(PP_TR_SRQ), 4, 500), 564);
	ck_assert_uint_eq(pp_res_cqe(pp_transport_of(PP_TR_XRC), 4, 500), 564);
	/* a receive queue per QP, were there several */
	ck_assert_uint_eq(pp_res_cqe(pp_transport_of(PP_TR_RC), 2, 500), 1032);

	side_init(&srv, PP_TOOL_SRQ, 1024);
	side_init(&cl, PP_TOOL_SRQ, 1024);
	cl.o.num_qps = 4;
	side_rebuild(&cl);
	srv.caps.max_cqe = 563;
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);
	ck_assert_err(
		&err,
		"CQ: 564 entries needed (-r 500, -q 4), device rxe0 max CQ entries 563 (lower -r or -q)");
	srv.caps.max_cqe = 564;
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
}
END_TEST

/*
 * What a client's run makes the server allocate, zero and pin: both areas,
 * a buffer per receive (-c on UC, UD), a sweep's largest size; at most the
 * server's --max-mem.
 */
START_TEST(adopt_max_mem)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), bytes;
	struct pp_hello agreed;
	struct side srv, cl;
	struct pp_err err;
	char want[512];

	side_init(&srv, PP_TOOL_RC, 1024);
	ck_assert_uint_eq(srv.o.max_mem, 1ULL << 30);
	side_init(&cl, PP_TOOL_RC, 1024);
	ck_assert_int_eq(pp_hello_mem(&cl.h, page, &bytes), 0);
	ck_assert_uint_eq(bytes, page + 4096); /* 4096 B: a page each */
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);

	/* -s 2G: both areas, 4 GiB */
	cl.o.size = 2ULL << 30;
	side_rebuild(&cl);
	ck_assert_int_eq(pp_hello_mem(&cl.h, page, &bytes), 0);
	ck_assert_uint_eq(bytes, 4ULL << 30);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"server memory limit: the client's -s 2147483648 needs 4294967296 bytes of buffers, the server allows 1073741824 per client (lower -s, or start the server with --max-mem 4294967296 or more)");
	srv.o.max_mem = 4ULL << 30;
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	srv.o.max_mem = (4ULL << 30) - 1;
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);

	/* --uc -a -c: 500 receive buffers of the sweep's top, 8 MiB */
	srv.o.max_mem = 1ULL << 30;
	side_init(&cl, PP_TOOL_RC, 1024);
	cl.o.transport = PP_TR_UC;
	cl.o.sweep = true;
	cl.o.validate = true;
	side_rebuild(&cl);
	ck_assert(pp_hello_buf_per_recv(&cl.h));
	ck_assert_int_eq(pp_hello_mem(&cl.h, page, &bytes), 0);
	ck_assert_uint_eq(bytes, 501ULL * (8ULL << 20));
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), EINVAL);
	snprintf(
		want, sizeof(want),
		"server memory limit: the client's -s 8388608 -a -c (a buffer per receive) needs %llu bytes of buffers, the server allows 1073741824 per client (lower -s or -r, or start the server with --max-mem %llu or more)",
		501ULL * (8ULL << 20), 501ULL * (8ULL << 20));
	ck_assert_str_eq(err.msg, want);
	/* without -c: one receive area */
	cl.o.validate = false;
	side_rebuild(&cl);
	ck_assert(!pp_hello_buf_per_recv(&cl.h));
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);

	/* UD -a -c: the sweep stops at the path MTU, a GRH per receive */
	side_init(&srv, PP_TOOL_UD, 1024);
	side_init(&cl, PP_TOOL_UD, 1024);
	cl.o.sweep = true;
	cl.o.validate = true;
	side_rebuild(&cl);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	ck_assert_int_eq(pp_hello_mem(&agreed, page, &bytes), 0);
	ck_assert_uint_eq(bytes, page + 500ULL * (1024 + 40));
}
END_TEST

START_TEST(check_ud_mtu)
{
	struct pp_port_caps caps;
	struct pp_hello h;
	struct pp_opts o;
	struct pp_err err;

	pp_opts_init(&o, PP_TOOL_UD, "t");
	caps_init(&caps, 2048);
	o.size = 2048;
	pp_hello_build(&o, &caps, -1, PP_GID_TYPE_NONE, &h);
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);
	h.size = 2049;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "size: 2049 is larger than the MTU 2048");
	/* The MTU in use is -m when given. */
	h.size = 1024;
	h.mtu = 512;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_err(&err, "use -s 512 or less");
	/* RC messages span many MTUs. */
	h.transport = PP_TR_RC;
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), 0);
}
END_TEST

/* ------------------------------------------------------------- sockets */

static const char *const hosts[] = { "127.0.0.1", "::1" };

struct result {
	int rc;
	bool remote;
	char msg[PP_ERR_LEN];
};

/* What a child does with its end; returns 0 or an errno, fills @err. */
typedef int (*side_fn)(const struct pp_conn *c, const void *arg,
		       struct pp_err *err);

struct child {
	pid_t pid;
	int rd; /* the child's struct result */
};

/* Listen on a free port of @bind_addr: 20000.. from our pid, skip taken. */
static uint32_t listen_free(const char *bind_addr, int *lfd)
{
	uint32_t base = (uint32_t)getpid() % 20000, port;
	struct pp_err err;
	int i, rc;

	for (i = 0; i < 200; i++) {
		port = 20000 + (base + (uint32_t)i * 101) % 20000;
		rc = pp_sock_listen(bind_addr, port, lfd, &err);
		if (!rc)
			return port;
		ck_assert_msg(rc == EADDRINUSE, "listen: %s", err.msg);
	}
	ck_abort_msg("no free TCP port");
	return 0;
}

static void write_result(int wfd, int rc, const struct pp_err *err)
{
	struct result r = { .rc = rc, .remote = err->remote };

	memcpy(r.msg, err->msg, sizeof(r.msg));
	if (write(wfd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(2);
}

/* Fork a server that accepts one client on @lfd and runs @fn. */
static struct child start_server(int lfd, side_fn fn, const void *arg,
				 int timeout_ms)
{
	struct child ch;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ch.pid = fork();
	ck_assert_int_ge(ch.pid, 0);
	if (ch.pid == 0) {
		struct pp_err err = { .msg = "" };
		struct pp_conn c = { .is_server = true,
				     .timeout_ms = timeout_ms };
		int rc;

		alarm(CHILD_ALARM_S);
		close(p[0]);
		rc = pp_sock_accept(lfd, pp_deadline(5000), &c.fd, NULL, 0);
		if (rc)
			pp_err_set(&err, "accept: %s", strerror(rc));
		else
			rc = fn(&c, arg, &err);
		write_result(p[1], rc, &err);
		_exit(rc ? 1 : 0);
	}
	close(p[1]);
	close(lfd);
	ch.rd = p[0];
	return ch;
}

/* The child's result and exit status. */
static int collect(struct child *ch, struct result *r)
{
	struct pollfd pfd = { .fd = ch->rd, .events = POLLIN };
	int status;

	memset(r, 0, sizeof(*r));
	ck_assert_msg(poll(&pfd, 1, 8000) == 1, "child gave no result");
	ck_assert_int_eq(read(ch->rd, r, sizeof(*r)), (ssize_t)sizeof(*r));
	close(ch->rd);
	ck_assert_int_eq(waitpid(ch->pid, &status, 0), ch->pid);
	ck_assert_msg(WIFEXITED(status), "child died, status %#x", status);
	return WEXITSTATUS(status);
}

static void connect_to(const char *host, uint32_t port, int timeout_ms,
		       struct pp_conn *c)
{
	struct pp_err err;
	int rc;

	*c = (struct pp_conn){ .is_server = false, .timeout_ms = timeout_ms };
	rc = pp_sock_connect(host, port, pp_deadline(3000), &c->fd, &err);
	ck_assert_msg(rc == 0, "connect: %s", err.msg);
}

static void addr_fill(struct pp_addr *a, uint32_t n, uint32_t seed)
{
	uint32_t i;

	memset(a, 0, n * sizeof(*a));
	for (i = 0; i < n; i++) {
		a[i].lid = (uint16_t)(seed + i);
		a[i].qpn = (seed << 8) + i;
		a[i].psn = (seed << 4) + i;
		a[i].gid[15] = (uint8_t)i;
	}
}

/* A whole handshake: the server adopts, then ADDRS, READY, DONE. */
/* The server's port counters in the closing exchange of a full run. */
static const struct pp_counters_delta full_run_counters = {
	.dev = "rxe0",
	.port = 1,
	.n = 2,
	.d = { { .name = "rcvd_seq_err", .delta = 3 },
	       { .name = "sent_pkts",
		 .flags = PP_CTR_WRAPPED,
		 .delta = 1ULL << 33 } },
};

static int srv_full_run(const struct pp_conn *c, const void *arg,
			struct pp_err *err)
{
	struct pp_addr mine[2], theirs[2], want[2];
	struct pp_done done = { .completed = 7 }, peer_done;
	struct pp_hello agreed;
	struct side srv;
	int rc;

	(void)arg;
	side_init(&srv, PP_TOOL_SRQ, 1024);
	rc = pp_hs_server_hello(c, &srv.o, &srv.caps, &srv.h, &agreed, NULL,
				err);
	if (rc)
		return rc;
	if (agreed.size != 8192 || agreed.iters != 42 || agreed.mtu != 1024 ||
	    agreed.transport != PP_TR_SRQ ||
	    agreed.flags != (PP_F_VALIDATE | PP_F_GRH) || agreed.num_qps != 2) {
		pp_err_set(err, "agreed size %llu iters %llu mtu %u",
			   (unsigned long long)agreed.size,
			   (unsigned long long)agreed.iters, agreed.mtu);
		return EDOM;
	}
	addr_fill(mine, 2, 200);
	addr_fill(want, 2, 100);
	rc = pp_hs_exchange_addrs(c, mine, theirs, 2, err);
	if (rc)
		return rc;
	if (memcmp(theirs, want, sizeof(want))) {
		pp_err_set(err, "client's addresses differ");
		return EDOM;
	}
	rc = pp_hs_sync(c, err);
	if (rc)
		return rc;
	rc = pp_hs_done(c, &done, &peer_done, err);
	if (rc)
		return rc;
	if (peer_done.completed != 42) {
		pp_err_set(err, "client's DONE: %llu",
			   (unsigned long long)peer_done.completed);
		return EDOM;
	}
	return pp_hs_counters(c, &full_run_counters, NULL, err);
}

/* bind address (NULL: dual stack), host to connect to */
static const char *const full_runs[][2] = {
	{ NULL, "127.0.0.1" },	      { NULL, "::1" },
	{ "127.0.0.1", "127.0.0.1" }, { "::1", "::1" },
	{ "localhost", "localhost" },
};

START_TEST(sock_full_run)
{
	struct pp_addr mine[2], theirs[2], want[2];
	struct pp_done done = { .completed = 42 }, peer_done;
	struct pp_counters_delta *ctr = calloc(1, sizeof(*ctr));
	struct pp_hello agreed;
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	struct side cl;
	uint32_t port;
	int lfd, status;

	ck_assert_ptr_nonnull(ctr);
	port = listen_free(full_runs[_i][0], &lfd);
	ch = start_server(lfd, srv_full_run, NULL, 3000);

	/* two QPs: a transport that has several (SRQ) */
	side_init(&cl, PP_TOOL_SRQ, 4096);
	cl.o.size = 8192;
	cl.o.iters = 42;
	cl.o.num_qps = 2;
	cl.o.validate = true;
	side_rebuild(&cl);
	connect_to(full_runs[_i][1], port, 3000, &c);
	ck_assert_msg(pp_hs_client_hello(&c, &cl.h, &agreed, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(agreed.mtu, 1024);
	ck_assert_uint_eq(agreed.active_mtu, 1024); /* the server's port */
	ck_assert_uint_eq(agreed.size, 8192);
	addr_fill(mine, 2, 100);
	addr_fill(want, 2, 200);
	ck_assert_msg(pp_hs_exchange_addrs(&c, mine, theirs, 2, &err) == 0,
		      "%s", err.msg);
	ck_assert_mem_eq(theirs, want, sizeof(want));
	ck_assert_msg(pp_hs_sync(&c, &err) == 0, "%s", err.msg);
	ck_assert_msg(pp_hs_done(&c, &done, &peer_done, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(peer_done.completed, 7);
	ck_assert_msg(pp_hs_counters(&c, NULL, ctr, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(ctr->dev, "rxe0");
	ck_assert_uint_eq(ctr->n, 2);
	ck_assert_str_eq(ctr->d[1].name, "sent_pkts");
	ck_assert_uint_eq(ctr->d[1].delta, 1ULL << 33);
	ck_assert_uint_eq(ctr->d[1].flags, PP_CTR_WRAPPED);
	close(c.fd);
	free(ctr);

	status = collect(&ch, &r);
	ck_assert_msg(status == 0 && r.rc == 0, "server: %d %s", r.rc, r.msg);
}
END_TEST

static int srv_mismatch(const struct pp_conn *c, const void *arg,
			struct pp_err *err)
{
	const int *i = arg;
	struct pp_hello agreed;
	struct side srv, cl;

	mismatch_sides(*i, &srv, &cl);
	return pp_hs_server_hello(c, &srv.o, &srv.caps, &srv.h, &agreed, NULL,
				  err);
}

/* Every mismatch, over IPv4 and IPv6: both sides print the same line. */
START_TEST(sock_mismatch_both_sides)
{
	int i = _i / 2;
	struct pp_hello agreed;
	struct side srv, cl;
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_mismatch, &i, 3000);
	mismatch_sides(i, &srv, &cl);
	connect_to(hosts[_i % 2], port, 3000, &c);
	rc = pp_hs_client_hello(&c, &cl.h, &agreed, &err);
	close(c.fd);

	ck_assert_int_eq(rc, ECONNABORTED);
	ck_assert(err.remote);
	ck_assert_err(&err, mismatches[i].msg);
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_int_eq(r.rc, EINVAL);
	ck_assert_msg(strstr(r.msg, mismatches[i].msg), "server: %s", r.msg);
	ck_assert_str_eq(r.msg, err.msg);
}
END_TEST

static int srv_hello_only(const struct pp_conn *c, const void *arg,
			  struct pp_err *err)
{
	struct pp_hello agreed;
	struct side srv;

	(void)arg;
	side_init(&srv, PP_TOOL_RC, 1024);
	return pp_hs_server_hello(c, &srv.o, &srv.caps, &srv.h, &agreed, NULL,
				  err);
}

START_TEST(sock_client_closes_early)
{
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_hello_only, NULL, 3000);
	connect_to(hosts[_i], port, 3000, &c);
	close(c.fd);
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_int_eq(r.rc, ECONNRESET);
	ck_assert_str_eq(
		r.msg, "the client closed the connection before sending HELLO");
}
END_TEST

static int srv_close_at_once(const struct pp_conn *c, const void *arg,
			     struct pp_err *err)
{
	(void)arg;
	(void)err;
	close(c->fd);
	return 0;
}

START_TEST(sock_server_closes_early)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	struct side cl;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_close_at_once, NULL, 3000);
	connect_to(hosts[_i], port, 3000, &c);
	ck_assert_int_eq(collect(&ch, &r), 0); /* closed before we send */
	side_init(&cl, PP_TOOL_RC, 1024);
	rc = pp_hs_client_hello(&c, &cl.h, &agreed, &err);
	close(c.fd);
	ck_assert_int_eq(rc, ECONNRESET);
	ck_assert_msg(strstr(err.msg, "the server closed the connection") ||
			      strstr(err.msg,
				     "sending HELLO to the server failed"),
		      "%s", err.msg);
}
END_TEST

/* A listener that never accepts: the kernel completes the connection. */
START_TEST(sock_peer_never_answers)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct pp_conn c;
	struct side cl;
	uint32_t port;
	int64_t t0;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	connect_to(hosts[_i], port, 300, &c);
	side_init(&cl, PP_TOOL_RC, 1024);
	t0 = pp_now_ns();
	rc = pp_hs_client_hello(&c, &cl.h, &agreed, &err);
	t0 = pp_now_ns() - t0;
	close(c.fd);
	close(lfd);
	ck_assert_int_eq(rc, ETIMEDOUT);
	ck_assert_err(&err, "no HELLO from the server within 300 ms");
	ck_assert_msg(t0 >= 250000000 && t0 < 2000000000LL, "took %lld ns",
		      (long long)t0);
}
END_TEST

START_TEST(sock_port_in_use)
{
	static const char *const binds[] = { NULL, "127.0.0.1", "::1" };
	struct pp_err err;
	char want[64];
	uint32_t port;
	int lfd, lfd2 = -1;

	port = listen_free(binds[_i], &lfd);
	ck_assert_int_eq(pp_sock_listen(binds[_i], port, &lfd2, &err),
			 EADDRINUSE);
	snprintf(want, sizeof(want), "TCP port %u", port);
	ck_assert_err(&err, want);
	ck_assert_err(&err, "already in use");
	ck_assert_int_eq(lfd2, -1);
	close(lfd);
}
END_TEST

START_TEST(sock_unresolvable)
{
	struct pp_err err;
	int fd = -1;

	ck_assert_int_eq(pp_sock_connect("no-such-host.invalid", 18515,
					 pp_deadline(2000), &fd, &err),
			 EADDRNOTAVAIL);
	ck_assert_err(&err, "cannot resolve 'no-such-host.invalid'");
	ck_assert_int_eq(pp_sock_listen("no-such-host.invalid", 18515, &fd,
					&err),
			 EADDRNOTAVAIL);
	ck_assert_err(&err,
		      "cannot resolve bind address 'no-such-host.invalid'");
	ck_assert_int_eq(fd, -1);
}
END_TEST

/* A port nobody listens on: taken from the free range, then released. */
static uint32_t dead_port(void)
{
	uint32_t port;
	int lfd;

	port = listen_free(NULL, &lfd);
	close(lfd);
	return port;
}

START_TEST(sock_refused)
{
	struct pp_err err;
	char want[80];
	uint32_t port = dead_port();
	int64_t t0 = pp_now_ns();
	int fd = -1;

	ck_assert_int_eq(pp_sock_connect(hosts[_i], port, pp_deadline(300), &fd,
					 &err),
			 ECONNREFUSED);
	t0 = pp_now_ns() - t0;
	ck_assert_msg(t0 < 1000000000LL, "took %lld ns", (long long)t0);
	ck_assert_msg(t0 >= 150000000LL, "no retry: %lld ns", (long long)t0);
	snprintf(want, sizeof(want),
		 _i ? "no server at [::1]:%u" : "no server at 127.0.0.1:%u",
		 port);
	ck_assert_err(&err, want);
	ck_assert_err(&err, "connection refused");
	ck_assert_int_eq(fd, -1);
}
END_TEST

/*
 * A refusal already waiting when the deadline has passed is still a refusal,
 * not a timeout: a late process (load, valgrind) once got ETIMEDOUT here.
 */
START_TEST(sock_refused_at_deadline)
{
	struct pp_err err;
	uint32_t port = dead_port();
	int fd = -1;

	ck_assert_int_eq(pp_sock_connect(hosts[_i], port, pp_now_ns(), &fd,
					 &err),
			 ECONNREFUSED);
	ck_assert_err(&err, "connection refused");
	ck_assert_int_eq(fd, -1);
}
END_TEST

/* A child that listens on @port after @us and takes one client. */
static pid_t serve_later(uint32_t port, useconds_t us)
{
	struct pp_err err;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int lfd, cfd;

		alarm(CHILD_ALARM_S);
		usleep(us);
		if (pp_sock_listen(NULL, port, &lfd, &err))
			_exit(1);
		if (pp_sock_accept(lfd, pp_deadline(3000), &cfd, NULL, 0))
			_exit(1);
		_exit(0);
	}
	return pid;
}

/* serve_later()'s child took its client and ended well. */
static void served(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A client started just before its server connects on a retry. */
START_TEST(sock_server_starts_late)
{
	struct pp_err err;
	uint32_t port = dead_port();
	int fd;
	pid_t pid;

	pid = serve_later(port, 300000);
	ck_assert_msg(pp_sock_connect("127.0.0.1", port, pp_deadline(3000), &fd,
				      &err) == 0,
		      "%s", err.msg);
	close(fd);
	served(pid);
}
END_TEST

/*
 * A mesh rank's connect to rank 0 waits like the documents say: a name that
 * does not resolve (yet) is tried again until the deadline, not given up at
 * once; a server that starts late is reached; the last error is named.
 */
START_TEST(sock_connect_patient)
{
	struct pp_err err;
	uint32_t port = dead_port();
	int64_t t0 = pp_now_ns();
	int fd = -1;
	pid_t pid;

	ck_assert_int_eq(pp_sock_connect_patient("no-such-host.invalid", 18515,
						 pp_deadline(1200), &fd, &err),
			 EADDRNOTAVAIL);
	t0 = pp_now_ns() - t0;
	ck_assert_msg(t0 >= 1100000000LL, "gave up after %lld ns",
		      (long long)t0);
	ck_assert_msg(t0 < 3000000000LL, "took %lld ns", (long long)t0);
	ck_assert_err(&err, "cannot resolve 'no-such-host.invalid'");
	ck_assert_int_eq(fd, -1);

	pid = serve_later(port, 700000);
	ck_assert_msg(pp_sock_connect_patient("127.0.0.1", port,
					      pp_deadline(3000), &fd,
					      &err) == 0,
		      "%s", err.msg);
	close(fd);
	served(pid);
}
END_TEST

/*
 * A mesh pair's server takes only the client with the pair's token: a
 * stray that sends other bytes, and one that sends nothing within its
 * second, are closed and counted, and the peer behind them is taken.
 */
START_TEST(sock_accept_token)
{
	const uint64_t token = 0x0123456789abcdefULL;
	struct pp_conn wrong, silent, right;
	unsigned int strays = 99;
	uint8_t b[8];
	int lfd, fd = -1;
	uint32_t port;

	port = listen_free("127.0.0.1", &lfd);
	connect_to("127.0.0.1", port, 3000, &wrong);
	ck_assert_int_eq(pp_sock_write_all(wrong.fd, "PPNG\0\0\0\1", 8,
					   pp_deadline(1000)),
			 0);
	connect_to("127.0.0.1", port, 3000, &silent);
	connect_to("127.0.0.1", port, 3000, &right);
	ck_assert_int_eq(pp_sock_send_token(right.fd, token, pp_deadline(1000)),
			 0);
	ck_assert_int_eq(pp_sock_accept_token(lfd, token, pp_deadline(3000),
					      200, &fd, NULL, 0, &strays),
			 0);
	ck_assert_uint_eq(strays, 2);
	/* the peer's connection, its token read: what follows is HELLO's */
	ck_assert_int_eq(pp_sock_write_all(right.fd, "HELLO...", 8,
					   pp_deadline(1000)),
			 0);
	ck_assert_int_eq(pp_sock_read_all(fd, b, 8, pp_deadline(1000)), 0);
	ck_assert_mem_eq(b, "HELLO...", 8);
	close(fd);
	/* only a stray, then nothing: the deadline, with the stray counted */
	close(wrong.fd);
	connect_to("127.0.0.1", port, 3000, &wrong);
	ck_assert_int_eq(
		pp_sock_send_token(wrong.fd, token + 1, pp_deadline(1000)), 0);
	ck_assert_int_eq(pp_sock_accept_token(lfd, token, pp_deadline(500), 200,
					      &fd, NULL, 0, &strays),
			 ETIMEDOUT);
	ck_assert_uint_eq(strays, 1);
	close(wrong.fd);
	close(silent.fd);
	close(right.fd);
	close(lfd);
}
END_TEST

/* A connection taken without waiting, and none waiting: EAGAIN at once. */
START_TEST(sock_accept_ready)
{
	struct pp_conn c;
	int lfd, fd = -1;
	uint32_t port;
	int64_t t0;

	port = listen_free("127.0.0.1", &lfd);
	t0 = pp_now_ns();
	ck_assert_int_eq(pp_sock_accept_ready(lfd, &fd), EAGAIN);
	ck_assert_msg(pp_now_ns() - t0 < 100000000LL, "it waited");
	connect_to("127.0.0.1", port, 3000, &c);
	usleep(50000);
	ck_assert_int_eq(pp_sock_accept_ready(lfd, &fd), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pp_sock_accept_ready(lfd, &fd), EAGAIN);
	close(fd);
	close(c.fd);
	close(lfd);
}
END_TEST

START_TEST(sock_readable_and_io)
{
	char peer[64] = "", buf[8];
	struct pp_conn c;
	uint32_t port;
	int lfd, sfd;

	port = listen_free(NULL, &lfd);
	connect_to(hosts[_i], port, 300, &c);
	ck_assert_int_eq(pp_sock_accept(lfd, pp_deadline(1000), &sfd, peer,
					sizeof(peer)),
			 0);
	ck_assert_str_eq(peer, _i ? "::1" : "::ffff:127.0.0.1");
	ck_assert(!pp_sock_readable(sfd));
	ck_assert_int_eq(
		pp_sock_write_all(c.fd, "pingpong", 8, pp_deadline(1000)), 0);
	ck_assert_int_eq(pp_sock_read_all(sfd, buf, 4, pp_deadline(1000)), 0);
	ck_assert_mem_eq(buf, "ping", 4);
	ck_assert(pp_sock_readable(sfd));
	/* Four bytes left, eight asked: a timeout, not a short success. */
	ck_assert_int_eq(pp_sock_read_all(sfd, buf, 8, pp_deadline(100)),
			 ETIMEDOUT);
	close(c.fd);
	ck_assert(pp_sock_readable(sfd)); /* EOF counts */
	ck_assert_int_eq(pp_sock_read_all(sfd, buf, 1, pp_deadline(1000)),
			 ECONNRESET);
	ck_assert_int_eq(pp_sock_accept(lfd, pp_deadline(100), &sfd, NULL, 0),
			 ETIMEDOUT);
	close(sfd);
	close(lfd);
}
END_TEST

/* A raw peer: connect, write @out, read back the server's ERROR. */
static void raw_exchange(uint32_t port, const void *out, size_t out_len,
			 struct pp_msg *m)
{
	uint8_t buf[PP_WIRE_HDR_LEN + PP_WIRE_ERROR_LEN];
	struct pp_conn c;
	struct pp_hdr hdr;
	const char *why = "";

	connect_to("127.0.0.1", port, 3000, &c);
	ck_assert_int_eq(
		pp_sock_write_all(c.fd, out, out_len, pp_deadline(1000)), 0);
	ck_assert_int_eq(
		pp_sock_read_all(c.fd, buf, sizeof(buf), pp_deadline(3000)), 0);
	close(c.fd);
	ck_assert_msg(pp_wire_decode_hdr(buf, &hdr, &why) == 0, "%s", why);
	ck_assert_uint_eq(hdr.type, PP_MSG_ERROR);
	ck_assert_msg(pp_wire_decode_body(&hdr, buf + PP_WIRE_HDR_LEN, m,
					  &why) == 0,
		      "%s", why);
}

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, (uint16_t)(v >> 16));
	be16(p + 2, (uint16_t)v);
}

START_TEST(sock_version_mismatch)
{
	uint8_t hdr[PP_WIRE_HDR_LEN + PP_WIRE_HELLO_LEN] = { 0 };
	const char *want = "protocol version: client 8, server 7";
	struct result r;
	struct child ch;
	struct pp_msg m;
	uint32_t port;
	int lfd;

	be32(hdr, PP_WIRE_MAGIC);
	be16(hdr + 4, PP_WIRE_VERSION + 1);
	be16(hdr + 6, PP_MSG_HELLO);
	be32(hdr + 8, PP_WIRE_HELLO_LEN);
	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_hello_only, NULL, 3000);
	raw_exchange(port, hdr, sizeof(hdr), &m);
	ck_assert_str_eq(m.u.error.text, want);
	ck_assert_uint_eq(m.u.error.code, EPROTONOSUPPORT);
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_int_eq(r.rc, EPROTONOSUPPORT);
	ck_assert_str_eq(r.msg, want);
}
END_TEST

/* A server of the next version answers with a header the client cannot read. */
static int srv_next(const struct pp_conn *c, const void *arg,
		    struct pp_err *err)
{
	uint8_t out[PP_WIRE_HDR_LEN + PP_WIRE_ERROR_LEN] = { 0 };
	uint8_t in[PP_WIRE_HDR_LEN + PP_WIRE_HELLO_LEN];
	const bool *send_error = arg;
	int rc;

	(void)err;
	rc = pp_sock_read_all(c->fd, in, sizeof(in), pp_deadline(3000));
	if (rc)
		return rc;
	be32(out, PP_WIRE_MAGIC);
	be16(out + 4, PP_WIRE_VERSION + 1);
	if (*send_error) {
		be16(out + 6, PP_MSG_ERROR);
		be32(out + 8, PP_WIRE_ERROR_LEN);
		be32(out + 12, EPROTONOSUPPORT);
		strcpy((char *)out + 16,
		       "protocol version: client 7, server 8");
		return pp_sock_write_all(c->fd, out, sizeof(out),
					 pp_deadline(3000));
	}
	be16(out + 6, PP_MSG_HELLO);
	be32(out + 8, PP_WIRE_HELLO_LEN);
	return pp_sock_write_all(c->fd, out, PP_WIRE_HDR_LEN,
				 pp_deadline(3000));
}

START_TEST(sock_client_sees_new_server)
{
	const bool send_error = _i;
	struct pp_hello agreed;
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	struct side cl;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_next, &send_error, 3000);
	side_init(&cl, PP_TOOL_RC, 1024);
	connect_to("::1", port, 3000, &c);
	rc = pp_hs_client_hello(&c, &cl.h, &agreed, &err);
	close(c.fd);
	ck_assert_int_eq(collect(&ch, &r), 0);
	ck_assert_str_eq(err.msg, "protocol version: client 7, server 8");
	if (send_error) {
		ck_assert_int_eq(rc, ECONNABORTED);
		ck_assert(err.remote);
	} else {
		ck_assert_int_eq(rc, EPROTONOSUPPORT);
		ck_assert(!err.remote);
	}
}
END_TEST

START_TEST(sock_garbage)
{
	const char junk[] = "GET / HTTP/1.0\r\n\r\n";
	const char *want = "bad HELLO from the client: bad magic";
	struct result r;
	struct child ch;
	struct pp_msg m;
	uint32_t port;
	int lfd;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_hello_only, NULL, 3000);
	raw_exchange(port, junk, sizeof(junk) - 1, &m);
	ck_assert_str_eq(m.u.error.text, want);
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_int_eq(r.rc, EPROTO);
	ck_assert_str_eq(r.msg, want);
}
END_TEST

START_TEST(sock_wrong_type)
{
	struct pp_msg m = { .type = PP_MSG_READY };
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_hello_only, NULL, 3000);
	connect_to("127.0.0.1", port, 3000, &c);
	ck_assert_int_eq(pp_hs_send(&c, &m, &err), 0);
	rc = pp_hs_recv(&c, PP_MSG_HELLO, &m, &err);
	close(c.fd);
	ck_assert_int_eq(rc, ECONNABORTED);
	ck_assert_str_eq(err.msg, "expected HELLO from the client, got READY");
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_int_eq(r.rc, EPROTO);
	ck_assert_str_eq(r.msg, err.msg);
}
END_TEST

static int srv_addrs4(const struct pp_conn *c, const void *arg,
		      struct pp_err *err)
{
	struct pp_addr mine[4], theirs[4];

	(void)arg;
	addr_fill(mine, 4, 1);
	return pp_hs_exchange_addrs(c, mine, theirs, 4, err);
}

START_TEST(sock_addrs_count_mismatch)
{
	const char *want = "the client sent 16 QP addresses, expected 4";
	struct pp_addr mine[16], theirs[16];
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_addrs4, NULL, 3000);
	connect_to(hosts[_i], port, 3000, &c);
	addr_fill(mine, 16, 9);
	rc = pp_hs_exchange_addrs(&c, mine, theirs, 16, &err);
	close(c.fd);
	ck_assert_int_eq(rc, ECONNABORTED);
	ck_assert(err.remote);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_int_eq(r.rc, EPROTO);
	ck_assert_str_eq(r.msg, want);
}
END_TEST

/* A raw server that answers ADDRS with a count the client did not send. */
static int srv_addrs_short(const struct pp_conn *c, const void *arg,
			   struct pp_err *err)
{
	struct pp_msg m;
	int rc;

	(void)arg;
	rc = pp_hs_recv(c, PP_MSG_ADDRS, &m, err);
	if (rc)
		return rc;
	m.u.addrs.count = 4;
	return pp_hs_send(c, &m, err);
}

START_TEST(sock_addrs_count_from_server)
{
	struct pp_addr mine[16], theirs[16];
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_addrs_short, NULL, 3000);
	connect_to("127.0.0.1", port, 3000, &c);
	addr_fill(mine, 16, 9);
	rc = pp_hs_exchange_addrs(&c, mine, theirs, 16, &err);
	close(c.fd);
	ck_assert_int_eq(rc, EPROTO);
	ck_assert_str_eq(err.msg,
			 "the server sent 4 QP addresses, expected 16");
	ck_assert_int_eq(collect(&ch, &r), 0);
}
END_TEST

/* The peer's ERROR during the run ends the wait for READY or DONE. */
static int srv_error_then_close(const struct pp_conn *c, const void *arg,
				struct pp_err *err)
{
	struct pp_msg m;
	int rc;

	(void)arg;
	rc = pp_hs_recv(c, PP_MSG_READY, &m, err);
	if (rc)
		return rc;
	pp_hs_send_error(c, EIO, "completion error:\tretry exceeded\n\xff");
	return 0;
}

START_TEST(sock_error_during_sync)
{
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_error_then_close, NULL, 3000);
	connect_to("127.0.0.1", port, 3000, &c);
	rc = pp_hs_sync(&c, &err);
	close(c.fd);
	ck_assert_int_eq(collect(&ch, &r), 0);
	ck_assert_int_eq(rc, ECONNABORTED);
	ck_assert(err.remote);
	ck_assert_str_eq(err.msg, "completion error:?retry exceeded??");
}
END_TEST

/* ---------------------------------------------------------------- sockets */

/* accept(2)'s transient errors are retried; out of descriptors backs off. */
START_TEST(accept_retry_rule)
{
	static const int again[] = { EINTR,	 EAGAIN,     ECONNABORTED,
				     ENETDOWN,	 EPROTO,     ENOPROTOOPT,
				     EHOSTDOWN,	 ENONET,     EHOSTUNREACH,
				     EOPNOTSUPP, ENETUNREACH };
	static const int back_off[] = { EMFILE, ENFILE, ENOBUFS, ENOMEM };
	static const int fatal[] = { EBADF, EINVAL, ENOTSOCK, EFAULT };
	size_t i;

	for (i = 0; i < sizeof(again) / sizeof(again[0]); i++)
		ck_assert_int_eq(pp_sock_accept_retry(again[i]),
				 PP_ACCEPT_AGAIN);
	for (i = 0; i < sizeof(back_off) / sizeof(back_off[0]); i++)
		ck_assert_int_eq(pp_sock_accept_retry(back_off[i]),
				 PP_ACCEPT_BACK_OFF);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		ck_assert_int_eq(pp_sock_accept_retry(fatal[i]),
				 PP_ACCEPT_FATAL);
}
END_TEST

static int spare_fd = -1;

static void free_spare(int sig)
{
	(void)sig;
	close(spare_fd);
}

/*
 * A server out of descriptors when a client comes: accept() fails with
 * EMFILE; the server waits and accepts the client once a descriptor is
 * free again (here 300 ms later), instead of giving up.
 */
START_TEST(sock_accept_emfile)
{
	struct sigaction sa = { .sa_handler = free_spare };
	struct itimerval later = { .it_value = { .tv_usec = 300000 } };
	struct rlimit rl = { .rlim_cur = 64, .rlim_max = 64 };
	struct pp_conn c;
	int lfd, fd = -1, rc, first = -1;
	uint32_t port;

	port = listen_free("127.0.0.1", &lfd);
	connect_to("127.0.0.1", port, 3000, &c);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	while ((rc = dup(0)) >= 0) {
		if (first < 0)
			first = rc;
		spare_fd = rc;
	}
	ck_assert_int_eq(errno, EMFILE);
	ck_assert_int_ge(spare_fd, 0);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &later, NULL), 0);
	rc = pp_sock_accept(lfd, pp_deadline(3000), &fd, NULL, 0);
	ck_assert_msg(rc == 0, "accept: %s", strerror(rc));
	ck_assert_int_ge(fd, 0);
	/* still out of descriptors at the deadline: EMFILE, not a hang */
	ck_assert_int_lt(dup(0), 0);
	close(c.fd);
	connect_to("127.0.0.1", port, 3000, &c);
	close(fd);
	ck_assert_int_ge(dup(0), 0); /* the only free one: taken again */
	rc = pp_sock_accept(lfd, pp_deadline(300), &fd, NULL, 0);
	ck_assert_int_eq(rc, EMFILE);
	/* free them again: LeakSanitizer opens /proc files at exit */
	for (rc = first; rc < 64; rc++)
		close(rc);
}
END_TEST

/* The deadline of each of several addresses: a share of the time left. */
START_TEST(connect_share)
{
	ck_assert_int_eq(pp_sock_share(1000, 4000, 3), 2000);
	ck_assert_int_eq(pp_sock_share(1000, 4000, 1), 4000);
	ck_assert_int_eq(pp_sock_share(1000, 4000, 0), 4000);
	ck_assert_int_eq(pp_sock_share(5000, 4000, 2), 4000);
	ck_assert(pp_sock_share(1000, INT64_MAX, 2) == INT64_MAX);
}
END_TEST

/*
 * Two addresses: the first never answers (a listener whose queue is full
 * drops the SYN), the second listens.  The client gets there within the
 * same deadline, instead of giving up with the first one's timeout.
 */
START_TEST(sock_connect_next_address)
{
	struct sockaddr_in a[2], peer;
	struct addrinfo ai[2];
	socklen_t len = sizeof(a[0]);
	int full, queued, good, fd = -1, rc;
	struct pp_conn c;
	uint32_t port;
	int64_t t0;
	int i;

	full = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a[0], 0, sizeof(a[0]));
	a[0].sin_family = AF_INET;
	a[0].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(full, (struct sockaddr *)&a[0], sizeof(a[0])), 0);
	ck_assert_int_eq(listen(full, 0), 0);
	ck_assert_int_eq(getsockname(full, (struct sockaddr *)&a[0], &len), 0);
	/* fill its queue: one connection nobody accepts */
	connect_to("127.0.0.1", ntohs(a[0].sin_port), 3000, &c);
	queued = c.fd;
	port = listen_free("127.0.0.1", &good);
	a[1] = a[0];
	a[1].sin_port = htons((uint16_t)port);
	memset(ai, 0, sizeof(ai));
	for (i = 0; i < 2; i++) {
		ai[i].ai_family = AF_INET;
		ai[i].ai_socktype = SOCK_STREAM;
		ai[i].ai_addr = (struct sockaddr *)&a[i];
		ai[i].ai_addrlen = sizeof(a[i]);
	}
	ai[0].ai_next = &ai[1];
	t0 = pp_now_ns();
	rc = pp_sock_connect_list(ai, pp_deadline(3000), &fd);
	ck_assert_msg(rc == 0, "connect: %s", strerror(rc));
	/* the first had its half, 1.5 s, and the second the rest */
	ck_assert_int_ge(pp_now_ns() - t0, 1400000000LL);
	ck_assert_int_lt(pp_now_ns() - t0, 2500000000LL);
	len = sizeof(peer);
	ck_assert_int_eq(getpeername(fd, (struct sockaddr *)&peer, &len), 0);
	ck_assert_uint_eq(ntohs(peer.sin_port), port);
	close(fd);
	/* the silent one alone: a timeout at the deadline */
	ai[0].ai_next = NULL;
	rc = pp_sock_connect_list(ai, pp_deadline(300), &fd);
	ck_assert_int_eq(rc, ETIMEDOUT);
	close(queued);
	close(full);
	close(good);
}
END_TEST

/* ---------------------------------------------------------------- GRH */

#define NONE PP_GID_INDEX_NONE

/* The rule of both link layers: both sides use a GRH, or neither does. */
static const struct {
	uint8_t ll;
	uint16_t cl, sv;
	int rc;
	bool grh;
	const char *why;
} grh_cases[] = {
	{ LL_IB, 0, 0, 0, true, "both sides have a GID" },
	/* -g on one side only: no GRH either way (the other has no GID) */
	{ LL_IB, 0, NONE, 0, false,
	  "the server has no GID: give -g on both sides for a GRH" },
	{ LL_IB, NONE, 3, 0, false,
	  "the client has no GID: give -g on both sides for a GRH" },
	{ LL_IB, NONE, NONE, 0, false,
	  "neither side has a GID: give -g on both sides for a GRH" },
	{ LL_ETH, 1, 2, 0, true, "both sides have a GID" },
	{ LL_ETH, NONE, 2, EINVAL, false,
	  "RoCE needs a GRH, and the client has no GID (give -g; see --show-gids)" },
	{ LL_ETH, 1, NONE, EINVAL, false,
	  "RoCE needs a GRH, and the server has no GID (give -g; see --show-gids)" },
};

START_TEST(grh_rule)
{
	bool grh = !grh_cases[_i].grh;
	char why[128];

	ck_assert_int_eq(pp_grh_decide(grh_cases[_i].ll, grh_cases[_i].cl,
				       grh_cases[_i].sv, &grh, why,
				       sizeof(why)),
			 grh_cases[_i].rc);
	ck_assert_int_eq(grh, grh_cases[_i].grh);
	ck_assert_str_eq(why, grh_cases[_i].why);
}
END_TEST

/* InfiniBand, -g on the client only: the server's answer says no GRH. */
START_TEST(adopt_grh_one_side)
{
	struct pp_hello agreed;
	struct pp_err err;
	struct side srv, cl;

	side_init(&srv, PP_TOOL_RC, 1024);
	side_init(&cl, PP_TOOL_RC, 1024);
	srv.caps.link_layer = LL_IB;
	cl.caps.link_layer = LL_IB;
	side_rebuild(&srv);
	pp_hello_build(&cl.o, &cl.caps, 0, PP_GID_TYPE_IB, &cl.h);
	cl.h.flags |= PP_F_GRH; /* a client's bit is not a decision */
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	ck_assert_uint_eq(agreed.flags & PP_F_GRH, 0);
	/* and the other way round */
	pp_hello_build(&srv.o, &srv.caps, 0, PP_GID_TYPE_IB, &srv.h);
	side_rebuild(&cl);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	ck_assert_uint_eq(agreed.flags & PP_F_GRH, 0);
	/* both: a GRH */
	pp_hello_build(&cl.o, &cl.caps, 0, PP_GID_TYPE_IB, &cl.h);
	ck_assert_int_eq(adopt(&srv, &cl, &agreed, &err), 0);
	ck_assert_uint_eq(agreed.flags & PP_F_GRH, PP_F_GRH);
}
END_TEST

/* A server whose answer breaks the rule: a GRH while it has no GID. */
static int srv_grh_wrong(const struct pp_conn *c, const void *arg,
			 struct pp_err *err)
{
	struct pp_msg m;
	int rc;

	(void)arg;
	rc = pp_hs_server_recv_hello(c, &m.u.hello, err);
	if (rc)
		return rc;
	m.type = PP_MSG_HELLO;
	m.u.hello.gid_index = PP_GID_INDEX_NONE;
	m.u.hello.gid_type = PP_GID_TYPE_NONE;
	m.u.hello.flags |= PP_F_GRH;
	m.u.hello.mtu = 1024; /* the path MTU the answer names */
	rc = pp_hs_send(c, &m, err);
	if (rc)
		return rc;
	return pp_hs_recv(c, PP_MSG_ADDRS, &m, err);
}

START_TEST(sock_client_checks_grh)
{
	struct pp_hello agreed;
	struct side cl;
	struct pp_err err;
	struct pp_conn c;
	struct result r;
	struct child ch;
	uint32_t port;
	int lfd, rc;

	port = listen_free(NULL, &lfd);
	ch = start_server(lfd, srv_grh_wrong, NULL, 3000);
	side_init(&cl, PP_TOOL_RC, 1024);
	cl.caps.link_layer = LL_IB;
	pp_hello_build(&cl.o, &cl.caps, 0, PP_GID_TYPE_IB, &cl.h);
	connect_to("127.0.0.1", port, 3000, &c);
	rc = pp_hs_client_hello(&c, &cl.h, &agreed, &err);
	close(c.fd);
	ck_assert_int_eq(rc, EPROTO);
	ck_assert_str_eq(
		err.msg,
		"GRH: the server says yes, the client no (the server has no GID: give -g on both sides for a GRH)");
	/* the server was told why */
	ck_assert_int_eq(collect(&ch, &r), 1);
	ck_assert_str_eq(r.msg, err.msg);
}
END_TEST

/* Keepalive bounds that fit -T: half silent, then up to 3 probes. */
START_TEST(keepalive_bounds)
{
	static const struct {
		uint32_t ms;
		int idle, intvl, cnt;
	} c[] = {
		{ 5000, 3, 1, 3 },
		{ 1000, 1, 1, 1 },
		{ 1, 1, 1, 1 },
		{ 4000, 2, 1, 2 },
		{ 10000, 5, 2, 3 },
		{ 60000, 30, 10, 3 },
		{ 3600000, 1800, 600, 3 },
	};
	struct pp_keepalive ka;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		pp_sock_keepalive_for(c[i].ms, &ka);
		ck_assert_int_eq(ka.idle_s, c[i].idle);
		ck_assert_int_eq(ka.intvl_s, c[i].intvl);
		ck_assert_int_eq(ka.cnt, c[i].cnt);
		/* noticed within the timeout, rounded up to whole seconds */
		ck_assert_int_le((ka.idle_s + ka.cnt * ka.intvl_s) * 1000,
				 (int)c[i].ms + 2000);
	}
}
END_TEST

/* A TCP connection over the loopback: the accepted side, @c the other. */
static int loopback_accepted(int *lfd, struct pp_conn *c)
{
	uint32_t port = listen_free("127.0.0.1", lfd);
	int fd = -1;

	connect_to("127.0.0.1", port, 3000, c);
	ck_assert_int_eq(pp_sock_accept(*lfd, pp_deadline(3000), &fd, NULL, 0),
			 0);
	return fd;
}

/* A socket option of @fd, as the kernel reads it back. */
static int sockopt(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	ck_assert_int_eq(getsockopt(fd, level, name, &v, &len), 0);
	return v;
}

/* ... and on a real connection, as the kernel reads them back. */
START_TEST(sock_keepalive_set)
{
	struct pp_conn c;
	int lfd, fd = loopback_accepted(&lfd, &c);

	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 0); /* off */
	ck_assert_int_eq(pp_sock_keepalive(fd, 10000), 0);
	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 5);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 2);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPCNT), 3);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 0);
	close(fd);
	close(c.fd);
	close(lfd);
}
END_TEST

/* The mesh's control connections: keepalive and a user timeout, both -T. */
START_TEST(sock_silent_peer_set)
{
	struct pp_conn c;
	int lfd, fd = loopback_accepted(&lfd, &c);

	ck_assert_int_eq(pp_sock_silent_peer(fd, 5000), 0);
	ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 3);
	ck_assert_int_eq(sockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT), 5000);
	close(fd);
	close(c.fd);
	close(lfd);
}
END_TEST

/* ------------------------------------------------ the passive server's wait */

/* One message of the client's, encoded onto @fd. */
static void feed(int fd, const struct pp_msg *m)
{
	uint8_t b[PP_WIRE_MAX_MSG];
	size_t n;

	ck_assert_int_eq(pp_wire_encode(m, b, sizeof(b), &n), 0);
	ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
}

static void feed_alive(int fd, uint64_t done)
{
	struct pp_msg m = { .type = PP_MSG_ALIVE, .u.alive.done = done };

	feed(fd, &m);
}

static void feed_done(int fd, uint64_t completed)
{
	struct pp_msg m = { .type = PP_MSG_DONE,
			    .u.done.completed = completed };

	feed(fd, &m);
}

/* A server's end @c of a socket pair; the client's end in *@peer. */
static void wait_pair(struct pp_conn *c, int *peer)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	*c = (struct pp_conn){ .fd = sv[0],
			       .is_server = true,
			       .timeout_ms = 1000 };
	*peer = sv[1];
}

/*
 * A client that says it is alive every 100 ms for 700 ms, then DONE: the
 * server with the client's -T of 300 ms waits it out (each ALIVE moves its
 * deadline) and takes the DONE.
 */
START_TEST(wait_done_alive)
{
	struct pp_err err = { .msg = "" };
	struct pp_conn c;
	struct pp_done d;
	int peer, k, st;
	pid_t pid;

	wait_pair(&c, &peer);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		for (k = 1; k <= 7; k++) {
			usleep(100000);
			feed_alive(peer, (uint64_t)k);
		}
		feed_done(peer, 5);
		_exit(0);
	}
	ck_assert_msg(pp_hs_wait_done(&c, 300, 10, "read", &d, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(d.completed, 5);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	close(peer);
	close(c.fd);
}
END_TEST

/*
 * A client that stops (SIGSTOP: its kernel keeps the connection up) after
 * three iterations: the server ends at the client's -T, naming it.
 */
START_TEST(wait_done_silent)
{
	struct pp_err err = { .msg = "" };
	struct pp_conn c;
	struct pp_done d;
	int64_t t0, ms;
	int peer;

	wait_pair(&c, &peer);
	feed_alive(peer, 3);
	t0 = pp_now_ns();
	ck_assert_int_eq(pp_hs_wait_done(&c, 300, 10, "read", &d, &err),
			 ETIMEDOUT);
	ms = (pp_now_ns() - t0) / 1000000;
	ck_assert_int_ge(ms, 300);
	ck_assert_int_lt(ms, 700);
	ck_assert_str_eq(
		err.msg,
		"the client sent nothing for 300 ms during its read run, after 3 of 10 iterations: stopped, or its host gone (a running client says it is alive every 100 ms)");
	close(peer);
	close(c.fd);
}
END_TEST

/* What a hostile or broken client sends instead: each refused, named. */
static const struct {
	const char *what;
	int rc;
	const char *msg;
} bad_alive[] = {
	{ "backwards", EPROTO,
	  "bad ALIVE from the client: 2 iterations done, after 5, of a run of 10" },
	{ "too many", EPROTO,
	  "bad ALIVE from the client: 11 iterations done, after 0, of a run of 10" },
	{ "short body", EBADMSG,
	  "bad ALIVE from the client: bad length for message type" },
	{ "another type", EPROTO, "expected DONE from the client, got READY" },
	{ "closed", ECONNRESET,
	  "the client closed the connection during its read run, after 4 of 10 iterations" },
};

START_TEST(wait_done_bad)
{
	static const uint8_t short_alive[] = {
		0x50, 0x50, 0x4e, 0x47, 0x00, 0x07, 0x00, 0x08,
		0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
	};
	struct pp_msg ready = { .type = PP_MSG_READY };
	struct pp_err err = { .msg = "" };
	struct pp_conn c;
	struct pp_done d;
	int peer;

	wait_pair(&c, &peer);
	switch (_i) {
	case 0:
		feed_alive(peer, 5);
		feed_alive(peer, 2);
		break;
	case 1:
		feed_alive(peer, 11);
		break;
	case 2:
		ck_assert_int_eq(write(peer, short_alive, sizeof(short_alive)),
				 (ssize_t)sizeof(short_alive));
		break;
	case 3:
		feed(peer, &ready);
		break;
	default:
		feed_alive(peer, 4);
		close(peer);
		peer = -1;
	}
	ck_assert_int_eq(pp_hs_wait_done(&c, 3000, 10, "read", &d, &err),
			 bad_alive[_i].rc);
	ck_assert_str_eq(err.msg, bad_alive[_i].msg);
	if (peer >= 0)
		close(peer);
	close(c.fd);
}
END_TEST

static Suite *hs_suite(void)
{
	Suite *s = suite_create("hs");
	TCase *pure = tcase_create("pure");
	TCase *sock = tcase_create("sock");

	tcase_add_test(pure, build_copies_options);
	tcase_add_test(pure, build_measure);
	tcase_add_test(pure, adopt_measure);
	tcase_add_test(pure, sweep_sizes);
	tcase_add_test(pure, adopt_client_params);
	tcase_add_test(pure, hello_describe);
	tcase_add_test(pure, adopt_explicit_equal_is_fine);
	tcase_add_test(pure, adopt_counters);
	tcase_add_test(pure, adopt_expect_mtu);
	tcase_add_loop_test(pure, adopt_path_mtu, 0,
			    (int)(sizeof(mtu_cases) / sizeof(mtu_cases[0])));
	tcase_add_loop_test(pure, adopt_mismatch, 0, N_MISMATCHES);
	tcase_add_test(pure, check_limits);
	tcase_add_test(pure, check_ud_mtu);
	tcase_add_test(pure, check_atomic_cap);
	tcase_add_test(pure, check_one_qp);
	tcase_add_test(pure, check_cqe);
	tcase_add_test(pure, adopt_max_mem);
	tcase_add_loop_test(pure, grh_rule, 0,
			    (int)(sizeof(grh_cases) / sizeof(grh_cases[0])));
	tcase_add_test(pure, adopt_grh_one_side);
	suite_add_tcase(s, pure);

	tcase_set_timeout(sock, 15);
	tcase_add_loop_test(sock, sock_full_run, 0,
			    (int)(sizeof(full_runs) / sizeof(full_runs[0])));
	tcase_add_loop_test(sock, sock_mismatch_both_sides, 0,
			    2 * N_MISMATCHES);
	tcase_add_loop_test(sock, sock_client_closes_early, 0, 2);
	tcase_add_loop_test(sock, sock_server_closes_early, 0, 2);
	tcase_add_loop_test(sock, sock_peer_never_answers, 0, 2);
	tcase_add_loop_test(sock, sock_port_in_use, 0, 3);
	tcase_add_test(sock, sock_unresolvable);
	tcase_add_loop_test(sock, sock_refused, 0, 2);
	tcase_add_loop_test(sock, sock_refused_at_deadline, 0, 2);
	tcase_add_test(sock, sock_server_starts_late);
	tcase_add_test(sock, sock_connect_patient);
	tcase_add_test(sock, sock_accept_ready);
	tcase_add_test(sock, sock_accept_token);
	tcase_add_loop_test(sock, sock_readable_and_io, 0, 2);
	tcase_add_test(sock, sock_version_mismatch);
	tcase_add_loop_test(sock, sock_client_sees_new_server, 0, 2);
	tcase_add_test(sock, sock_garbage);
	tcase_add_test(sock, sock_wrong_type);
	tcase_add_loop_test(sock, sock_addrs_count_mismatch, 0, 2);
	tcase_add_test(sock, sock_addrs_count_from_server);
	tcase_add_test(sock, sock_error_during_sync);
	tcase_add_test(pure, accept_retry_rule);
	tcase_add_test(pure, connect_share);
	tcase_add_test(pure, keepalive_bounds);
	tcase_add_test(sock, sock_keepalive_set);
	tcase_add_test(sock, sock_silent_peer_set);
	tcase_add_test(sock, sock_accept_emfile);
	tcase_add_test(sock, sock_connect_next_address);
	tcase_add_test(sock, sock_client_checks_grh);
	tcase_add_test(sock, wait_done_alive);
	tcase_add_test(sock, wait_done_silent);
	tcase_add_loop_test(sock, wait_done_bad, 0,
			    (int)(sizeof(bad_alive) / sizeof(bad_alive[0])));
	suite_add_tcase(s, sock);
	return s;
}

PP_CHECK_MAIN(hs_suite)
