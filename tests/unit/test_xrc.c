// SPDX-License-Identifier: MIT
/*
 * test_xrc.c - what XRC adds, without a device: the address records and the
 * HELLO of an XRC run through the wire codec, every xrc_pingpong option
 * bound, and the attribute sets of the two XRC QP types at each transition,
 * checked against the values the toolkit uses and against the kernel's rule
 * table (ib_modify_qp_is_ok() in drivers/infiniband/core/verbs.c).
 *
 * The "device" case needs an RDMA device without XRC (Soft-RoCE) and is left
 * out where there is none; tests/e2e/xrc_unsupported.sh runs it in the guest
 * (CK_RUN_CASE=device) and checks that it ran.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "check_main.h"
#include "pp_dev.h"
#include "pp_hs.h"
#include "pp_opts.h"
#include "pp_qp.h"
#include "pp_res.h"
#include "pp_wire.h"

/* Big enough for the largest message; static: each test runs in a child. */
static uint8_t buf[PP_WIRE_MAX_MSG];
static struct pp_msg in, out;

/* ------------------------------------------------------------- records */

/* An ADDRS message of @count XRC addresses, all fields distinct. */
static void xrc_addrs(struct pp_msg *m, uint32_t count)
{
	uint32_t i;
	int j;

	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_ADDRS;
	m->u.addrs.count = count;
	for (i = 0; i < count; i++) {
		struct pp_addr *a = &m->u.addrs.addr[i];

		a->lid = 0;
		a->qpn = 0x000100 + i;	   /* send QP */
		a->tgt_qpn = 0x000900 + i; /* receive QP */
		a->srqn = 0x000042;	   /* one SRQ for all */
		a->psn = (0x5a0000 + i * 3) & PP_PSN_MASK;
		for (j = 0; j < 16; j++)
			a->gid[j] = (uint8_t)(0xf0 ^ (i + j));
	}
}

/* Encode @m, decode it back into @out; both steps must succeed. */
static void roundtrip(const struct pp_msg *m)
{
	const char *why = NULL;
	struct pp_hdr hdr;
	size_t len = 0;
	int ret;

	ret = pp_wire_encode(m, buf, sizeof(buf), &len);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(len, PP_WIRE_HDR_LEN + pp_wire_body_len(m));
	ret = pp_wire_decode_hdr(buf, &hdr, &why);
	ck_assert_msg(ret == 0, "header: %d (%s)", ret, why ? why : "");
	memset(&out, 0xa5, sizeof(out));
	ret = pp_wire_decode_body(&hdr, buf + PP_WIRE_HDR_LEN, &out, &why);
	ck_assert_msg(ret == 0, "body: %d (%s)", ret, why ? why : "");
	ck_assert_int_eq(out.type, m->type);
}

static void assert_addr_eq(const struct pp_addr *a, const struct pp_addr *b)
{
	ck_assert_uint_eq(a->lid, b->lid);
	ck_assert_uint_eq(a->qpn, b->qpn);
	ck_assert_uint_eq(a->psn, b->psn);
	ck_assert_uint_eq(a->srqn, b->srqn);
	ck_assert_uint_eq(a->tgt_qpn, b->tgt_qpn);
	ck_assert_mem_eq(a->gid, b->gid, 16);
}

START_TEST(test_addrs_roundtrip)
{
	static const uint32_t counts[] = { 1, 2, 16, PP_MAX_QPS };
	uint32_t i, k;

	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		xrc_addrs(&in, counts[k]);
		roundtrip(&in);
		ck_assert_uint_eq(out.u.addrs.count, counts[k]);
		for (i = 0; i < counts[k]; i++)
			assert_addr_eq(&out.u.addrs.addr[i],
				       &in.u.addrs.addr[i]);
	}
}
END_TEST

/* The largest 24-bit SRQ number and target QPN pass both ways. */
START_TEST(test_addrs_24bit_max)
{
	xrc_addrs(&in, 3);
	in.u.addrs.addr[0].srqn = PP_PSN_MASK;
	in.u.addrs.addr[1].tgt_qpn = PP_PSN_MASK;
	in.u.addrs.addr[2].srqn = 0;
	in.u.addrs.addr[2].tgt_qpn = 0;
	roundtrip(&in);
	ck_assert_uint_eq(out.u.addrs.addr[0].srqn, 0xffffff);
	ck_assert_uint_eq(out.u.addrs.addr[1].tgt_qpn, 0xffffff);
	ck_assert_uint_eq(out.u.addrs.addr[2].srqn, 0);
	ck_assert_uint_eq(out.u.addrs.addr[2].tgt_qpn, 0);
}
END_TEST

/*
 * One bit above 24: the encoder refuses to send it (EINVAL), and the decoder
 * refuses the bytes a broken peer would send (EPROTO, naming the field).
 */
static void expect_field_refused(int field, const char *reason)
{
	const uint32_t too_big = PP_PSN_MASK + 1;
	const char *why = NULL;
	struct pp_hdr hdr;
	size_t len = 0;
	uint8_t *rec;
	int ret;

	xrc_addrs(&in, 2);
	if (field == 0)
		in.u.addrs.addr[1].srqn = too_big;
	else
		in.u.addrs.addr[1].tgt_qpn = too_big;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &len), EINVAL);

	/* Encode a good one, then patch the field in record 1. */
	xrc_addrs(&in, 2);
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &len), 0);
	/* body: count u32, then records: lid, rsvd, qpn, psn, srqn, tgt_qpn */
	rec = buf + PP_WIRE_HDR_LEN + 4 + PP_WIRE_ADDR_LEN;
	rec += field == 0 ? 12 : 16;
	rec[0] = 0x01; /* big-endian 0x01xxxxxx */
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &hdr, &why), 0);
	ret = pp_wire_decode_body(&hdr, buf + PP_WIRE_HDR_LEN, &out, &why);
	ck_assert_int_eq(ret, EPROTO);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, reason);
}

START_TEST(test_addrs_srqn_over_24bit)
{
	expect_field_refused(0, "srqn out of range");
}
END_TEST

START_TEST(test_addrs_tgt_qpn_over_24bit)
{
	expect_field_refused(1, "tgt_qpn out of range");
}
END_TEST

static void caps_xrc(struct pp_port_caps *c)
{
	*c = (struct pp_port_caps){
		.devname = "mlx5_0",
		.ib_port = 1,
		.link_layer = IBV_LINK_LAYER_INFINIBAND,
		.lid = 7,
		.active_mtu = 4096,
		.max_mtu = 4096,
		.max_msg_sz = 1U << 30,
		.max_mr_size = ~0ULL,
		.max_qp_wr = 32768,
		.max_srq_wr = 32767,
		.max_qp = 1 << 17,
		.max_cqe = 1 << 22,
		.gid_tbl_len = 256,
		.xrc = true,
	};
}

/* -q travels in HELLO's num_qps, with the XRC tool and transport. */
START_TEST(test_hello_xrc)
{
	struct pp_port_caps caps;
	struct pp_opts o;
	struct pp_err err;

	pp_opts_init(&o, PP_TOOL_XRC, "xrc_pingpong");
	o.num_qps = 24;
	o.rx_depth = 8;
	caps_xrc(&caps);
	memset(&in, 0, sizeof(in));
	in.type = PP_MSG_HELLO;
	pp_hello_build(&o, &caps, -1, PP_GID_TYPE_NONE, &in.u.hello);
	ck_assert_uint_eq(in.u.hello.tool, PP_TOOL_XRC);
	ck_assert_uint_eq(in.u.hello.transport, PP_TR_XRC);
	ck_assert_uint_eq(in.u.hello.num_qps, 24);
	ck_assert_uint_eq(in.u.hello.gid_index, PP_GID_INDEX_NONE);
	ck_assert_int_eq(pp_hello_check(&in.u.hello, &caps, &err), 0);
	roundtrip(&in);
	ck_assert_uint_eq(out.u.hello.tool, PP_TOOL_XRC);
	ck_assert_uint_eq(out.u.hello.transport, PP_TR_XRC);
	ck_assert_uint_eq(out.u.hello.num_qps, 24);
	ck_assert_uint_eq(out.u.hello.rx_depth, 8);
}
END_TEST

/* A server without -q adopts the client's number of QPs. */
START_TEST(test_hello_adopt_num_qps)
{
	struct pp_hello mine, client, agreed;
	struct pp_port_caps caps;
	struct pp_opts srv, cl;
	struct pp_err err;

	caps_xrc(&caps);
	pp_opts_init(&srv, PP_TOOL_XRC, "xrc_pingpong");
	pp_opts_init(&cl, PP_TOOL_XRC, "xrc_pingpong");
	cl.num_qps = 16;
	pp_hello_build(&srv, &caps, -1, PP_GID_TYPE_NONE, &mine);
	pp_hello_build(&cl, &caps, -1, PP_GID_TYPE_NONE, &client);
	pp_err_clear(&err);
	ck_assert_msg(pp_hello_adopt(&srv, &caps, &mine, &client, &agreed,
				     &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(agreed.transport, PP_TR_XRC);
	ck_assert_uint_eq(agreed.num_qps, 16);
}
END_TEST

/* A device without XRC is refused, naming the device. */
START_TEST(test_hello_no_xrc_device)
{
	struct pp_port_caps caps;
	struct pp_hello h;
	struct pp_opts o;
	struct pp_err err;

	pp_opts_init(&o, PP_TOOL_XRC, "xrc_pingpong");
	caps_xrc(&caps);
	caps.xrc = false;
	pp_hello_build(&o, &caps, -1, PP_GID_TYPE_NONE, &h);
	pp_err_clear(&err);
	ck_assert_int_eq(pp_hello_check(&h, &caps, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "XRC"));
	ck_assert_ptr_nonnull(strstr(err.msg, "not supported"));
	ck_assert_ptr_nonnull(strstr(err.msg, "mlx5_0"));
}
END_TEST

/* ------------------------------------------------------------- options */

#define MAX_ARGS 16

static int parse(struct pp_opts *o, enum pp_tool tool, const char *line,
		 struct pp_err *err)
{
	static char text[512];
	static char *argv[MAX_ARGS + 1];
	char *tok, *save = NULL;
	int argc = 0;

	snprintf(text, sizeof(text), "xrc_pingpong %s", line);
	for (tok = strtok_r(text, " ", &save); tok && argc < MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pp_opts_init(o, tool, "xrc_pingpong");
	pp_err_clear(err);
	return pp_opts_parse(o, argc, argv, err);
}

static void ok(struct pp_opts *o, const char *line)
{
	struct pp_err err;
	int ret = parse(o, PP_TOOL_XRC, line, &err);

	ck_assert_msg(ret == 0, "'%s': %d %s", line, ret, err.msg);
}

static void bad(enum pp_tool tool, const char *line, int errnum,
		const char *needle)
{
	struct pp_opts o;
	struct pp_err err;
	int ret = parse(&o, tool, line, &err);

	ck_assert_msg(ret == errnum, "'%s': got %d (%s), want %d", line, ret,
		      err.msg, errnum);
	ck_assert_msg(strstr(err.msg, needle), "'%s': '%s' lacks '%s'", line,
		      err.msg, needle);
}

START_TEST(test_opt_num_qps)
{
	struct pp_opts o;

	ok(&o, "");
	ck_assert_uint_eq(o.num_qps, 1);
	ok(&o, "-q 1");
	ck_assert_uint_eq(o.num_qps, 1);
	ok(&o, "-q 1024");
	ck_assert_uint_eq(o.num_qps, PP_MAX_QPS);
	ok(&o, "--num-qp=7");
	ck_assert_uint_eq(o.num_qps, 7);
	/* one SRQ serves every receive QP: -r may be below -q */
	ok(&o, "-q 64 -r 1");
	bad(PP_TOOL_XRC, "-q 0", ERANGE, "1..1024");
	bad(PP_TOOL_XRC, "-q 1025", ERANGE, "-q/--num-qp 1025");
	bad(PP_TOOL_XRC, "-q -1", EINVAL, "-q/--num-qp");
	bad(PP_TOOL_XRC, "-q 4x", EINVAL, "whole number");
	bad(PP_TOOL_XRC, "-q", EINVAL, "needs a value");
}
END_TEST

START_TEST(test_opt_rx_depth)
{
	struct pp_opts o;

	ok(&o, "-r 1");
	ck_assert_uint_eq(o.rx_depth, 1);
	ok(&o, "-r 65536");
	ck_assert_uint_eq(o.rx_depth, PP_MAX_RX_DEPTH);
	bad(PP_TOOL_XRC, "-r 0", ERANGE, "1..65536");
	bad(PP_TOOL_XRC, "-r 65537", ERANGE, "-r/--rx-depth 65537");
}
END_TEST

START_TEST(test_opt_size)
{
	struct pp_opts o;

	ok(&o, "");
	ck_assert_uint_eq(o.size, 4096);
	ok(&o, "-s 1");
	ck_assert_uint_eq(o.size, 1);
	ok(&o, "-s 2G");
	ck_assert_uint_eq(o.size, PP_MAX_SIZE);
	bad(PP_TOOL_XRC, "-s 0", ERANGE, "-s/--size 0");
	bad(PP_TOOL_XRC, "-s 2147483649", ERANGE, "-s/--size");
	bad(PP_TOOL_XRC, "-s 1T", EINVAL, "K, M or G");
}
END_TEST

START_TEST(test_opt_mtu)
{
	struct pp_opts o;

	ok(&o, "");
	ck_assert_uint_eq(o.mtu, 0);
	ok(&o, "-m 256");
	ck_assert_uint_eq(o.mtu, 256);
	ok(&o, "-m 4096");
	ck_assert_uint_eq(o.mtu, 4096);
	bad(PP_TOOL_XRC, "-m 1000", EINVAL, "not an IB MTU");
	bad(PP_TOOL_XRC, "-m 8192", EINVAL, "not an IB MTU");
	bad(PP_TOOL_XRC, "-m 128", EINVAL, "not an IB MTU");
}
END_TEST

START_TEST(test_opt_iters)
{
	struct pp_opts o;

	ok(&o, "-n 1");
	ck_assert_uint_eq(o.iters, 1);
	ok(&o, "-n 100000000");
	ck_assert_uint_eq(o.iters, PP_MAX_ITERS);
	bad(PP_TOOL_XRC, "-n 0", ERANGE, "-n/--iters 0");
	bad(PP_TOOL_XRC, "-n 100000001", ERANGE, "1..100000000");
}
END_TEST

START_TEST(test_opt_sl)
{
	struct pp_opts o;

	ok(&o, "-l 0");
	ck_assert_uint_eq(o.sl, 0);
	ok(&o, "-l 15");
	ck_assert_uint_eq(o.sl, 15);
	bad(PP_TOOL_XRC, "-l 16", ERANGE, "0..15");
}
END_TEST

START_TEST(test_opt_gid_idx)
{
	struct pp_opts o;

	ok(&o, "");
	ck_assert_int_eq(o.gid_index, -1);
	ok(&o, "-g 0");
	ck_assert_int_eq(o.gid_index, 0);
	ok(&o, "-g 255");
	ck_assert_int_eq(o.gid_index, 255);
	bad(PP_TOOL_XRC, "-g 256", ERANGE, "0..255");
}
END_TEST

START_TEST(test_opt_xrc_domain)
{
	struct pp_opts o;

	ok(&o, "");
	ck_assert_ptr_null(o.xrcd_path);
	ok(&o, "--xrc-domain /dev/shm/my.xrcd");
	ck_assert_str_eq(o.xrcd_path, "/dev/shm/my.xrcd");
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_XRC_DOMAIN));
	ok(&o, "--xrc-domain=rel/path server1");
	ck_assert_str_eq(o.xrcd_path, "rel/path");
	ck_assert_str_eq(o.host, "server1");
	bad(PP_TOOL_XRC, "--xrc-domain=", EINVAL, "non-empty file name");
	bad(PP_TOOL_XRC, "--xrc-domain", EINVAL, "needs a value");
	/* the other tools have no XRC domain */
	bad(PP_TOOL_RC, "--xrc-domain /tmp/x", EINVAL, "unknown option");
	bad(PP_TOOL_SRQ, "--xrc-domain /tmp/x", EINVAL, "unknown option");
	bad(PP_TOOL_UD, "--xrc-domain /tmp/x", EINVAL, "unknown option");
}
END_TEST

START_TEST(test_opt_refused)
{
	bad(PP_TOOL_XRC, "--uc", EINVAL, "unknown option '--uc'");
	bad(PP_TOOL_XRC, "--uc", EINVAL, "xrc_pingpong");
	bad(PP_TOOL_XRC, "-Z", EINVAL, "unknown option '-Z'");
	bad(PP_TOOL_XRC, "host1 host2", EINVAL, "too many arguments");
}
END_TEST

START_TEST(test_opt_usage)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	pp_opts_usage(f, PP_TOOL_XRC, "xrc_pingpong");
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(text, "--xrc-domain=FILE"));
	ck_assert_ptr_nonnull(strstr(text, PP_XRCD_PATH_HELP));
	ck_assert_ptr_nonnull(strstr(text, "-q, --num-qp=N"));
	ck_assert_ptr_null(strstr(text, "--uc"));
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	pp_opts_usage(f, PP_TOOL_SRQ, "srq_pingpong");
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_null(strstr(text, "xrc-domain"));
	free(text);
}
END_TEST

/* ------------------------------------------------------- QP attributes */

#define M_INIT \
	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define M_RTR_PATH                                                      \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
	 IBV_QP_RQ_PSN)
#define M_RESPONDER (IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define M_RTS                                                               \
	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)

static const struct pp_addr peer = {
	.lid = 0x0011,
	.qpn = 0x000123,     /* the peer's send QP */
	.psn = 0xabcdef,     /* its send PSN */
	.srqn = 0x000077,    /* its SRQ */
	.tgt_qpn = 0x000456, /* its receive QP */
	.gid = { 0xfe, 0x80, [15] = 0x01 },
};

static struct pp_qp_cfg xrc_cfg(bool recv, bool grh)
{
	return (struct pp_qp_cfg){
		.transport = PP_TR_XRC,
		.ib_port = 2,
		.path_mtu = 2048,
		.sl = 3,
		.use_grh = grh,
		.sgid_index = grh ? 5 : 0,
		.hop_limit = 64,
		.pkey_index = 3,
		.qp_timeout = PP_DEFAULT_QP_TIMEOUT,
		.retry_count = PP_DEFAULT_RETRY_COUNT,
		.rnr_retry = PP_DEFAULT_RNR_RETRY,
		.xrc_recv = recv,
	};
}

START_TEST(test_attr_init)
{
	struct ibv_qp_attr a;
	struct pp_qp_cfg c;
	int recv, mask;

	for (recv = 0; recv <= 1; recv++) {
		c = xrc_cfg(recv, false);
		mask = pp_qp_attr(&c, PP_QP_INIT, 0, NULL, &a);
		ck_assert_int_eq(mask, M_INIT);
		ck_assert_int_eq(a.qp_state, IBV_QPS_INIT);
		ck_assert_uint_eq(a.pkey_index, 3);
		ck_assert_uint_eq(a.port_num, 2);
		ck_assert_uint_eq(a.qp_access_flags, 0);
		ck_assert_uint_eq(a.qkey, 0);
	}
}
END_TEST

static void assert_path(const struct ibv_qp_attr *a, bool grh)
{
	ck_assert_int_eq(a->qp_state, IBV_QPS_RTR);
	ck_assert_int_eq(a->path_mtu, IBV_MTU_2048);
	ck_assert_uint_eq(a->rq_psn, 0xabcdef);
	ck_assert_uint_eq(a->ah_attr.dlid, 0x0011);
	ck_assert_uint_eq(a->ah_attr.sl, 3);
	ck_assert_uint_eq(a->ah_attr.port_num, 2);
	ck_assert_uint_eq(a->ah_attr.is_global, grh);
	if (grh) {
		ck_assert_mem_eq(a->ah_attr.grh.dgid.raw, peer.gid, 16);
		ck_assert_uint_eq(a->ah_attr.grh.sgid_index, 5);
		ck_assert_uint_eq(a->ah_attr.grh.hop_limit, 64);
	}
}

/* The send QP: a requester only; its RTR goes to the peer's receive QP. */
START_TEST(test_attr_send_rtr)
{
	struct ibv_qp_attr a;
	struct pp_qp_cfg c;
	int grh, mask;

	for (grh = 0; grh <= 1; grh++) {
		c = xrc_cfg(false, grh);
		mask = pp_qp_attr(&c, PP_QP_RTR, 0x111111, &peer, &a);
		ck_assert_int_eq(mask, M_RTR_PATH);
		ck_assert_uint_eq(a.dest_qp_num, peer.tgt_qpn);
		ck_assert_uint_eq(a.max_dest_rd_atomic, 0);
		ck_assert_uint_eq(a.min_rnr_timer, 0);
		assert_path(&a, grh);
	}
}
END_TEST

/* The receive QP: a responder; its RTR goes to the peer's send QP. */
START_TEST(test_attr_recv_rtr)
{
	struct ibv_qp_attr a;
	struct pp_qp_cfg c;
	int grh, mask;

	for (grh = 0; grh <= 1; grh++) {
		c = xrc_cfg(true, grh);
		mask = pp_qp_attr(&c, PP_QP_RTR, 0x111111, &peer, &a);
		ck_assert_int_eq(mask, M_RTR_PATH | M_RESPONDER);
		ck_assert_uint_eq(a.dest_qp_num, peer.qpn);
		/* sends: no RDMA Read or atomic to answer */
		ck_assert_uint_eq(a.max_dest_rd_atomic, 0);
		ck_assert_uint_eq(a.min_rnr_timer, 12);
		assert_path(&a, grh);
		/* the server of a read answers one at a time */
		c.op = PP_OP_READ;
		c.is_server = true;
		pp_qp_attr(&c, PP_QP_RTR, 0x111111, &peer, &a);
		ck_assert_uint_eq(a.max_dest_rd_atomic, 1);
	}
}
END_TEST

START_TEST(test_attr_send_rts)
{
	struct pp_qp_cfg c = xrc_cfg(false, true);
	struct ibv_qp_attr a;
	int mask;

	mask = pp_qp_attr(&c, PP_QP_RTS, 0x222222, &peer, &a);
	ck_assert_int_eq(mask, M_RTS);
	ck_assert_int_eq(a.qp_state, IBV_QPS_RTS);
	ck_assert_uint_eq(a.sq_psn, 0x222222);
	ck_assert_uint_eq(a.timeout, 14);
	ck_assert_uint_eq(a.retry_cnt, 7);
	ck_assert_uint_eq(a.rnr_retry, 7);
	ck_assert_uint_eq(a.max_rd_atomic, 0);
	/* the agreed --qp-timeout, --retry-count, --rnr-retry */
	c.qp_timeout = 8;
	c.retry_count = 2;
	c.rnr_retry = 0;
	pp_qp_attr(&c, PP_QP_RTS, 0x222222, &peer, &a);
	ck_assert_uint_eq(a.timeout, 8);
	ck_assert_uint_eq(a.retry_cnt, 2);
	ck_assert_uint_eq(a.rnr_retry, 0);
	c.qp_timeout = PP_DEFAULT_QP_TIMEOUT;
	c.retry_count = PP_DEFAULT_RETRY_COUNT;
	c.rnr_retry = PP_DEFAULT_RNR_RETRY;
	/* the client of an atomic has one outstanding */
	c.op = PP_OP_FETCH_ADD;
	pp_qp_attr(&c, PP_QP_RTS, 0x222222, &peer, &a);
	ck_assert_uint_eq(a.max_rd_atomic, 1);
	c.is_server = true;
	pp_qp_attr(&c, PP_QP_RTS, 0x222222, &peer, &a);
	ck_assert_uint_eq(a.max_rd_atomic, 0);
}
END_TEST

/*
 * The receive QP has no send queue, yet it goes to RTS as rdma-core's
 * xsrq_pingpong takes it: the timeout and its send PSN, nothing else.
 */
START_TEST(test_attr_recv_rts)
{
	struct pp_qp_cfg c = xrc_cfg(true, true);
	struct ibv_qp_attr a;

	memset(&a, 0x5a, sizeof(a));
	ck_assert_int_eq(pp_qp_attr(&c, PP_QP_RTS, 0x222222, &peer, &a),
			 IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT);
	ck_assert_int_eq(a.qp_state, IBV_QPS_RTS);
	ck_assert_uint_eq(a.sq_psn, 0x222222);
	ck_assert_uint_eq(a.timeout, 14);
	ck_assert_uint_eq(a.retry_cnt, 0);
	ck_assert_uint_eq(a.max_rd_atomic, 0);
}
END_TEST

/*
 * The kernel's ib_modify_qp_is_ok() table for the two XRC types: the mask
 * must hold every required bit and nothing beyond required | optional.  A
 * mistake here is EINVAL from ibv_modify_qp() on the first XRC device.
 */
struct kernel_rule {
	bool recv;
	enum pp_qp_step step;
	int req;
	int opt;
};

static const struct kernel_rule kernel_rules[] = {
	{ false, PP_QP_INIT,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ true, PP_QP_INIT,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ false, PP_QP_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ true, PP_QP_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ true, PP_QP_RTS, IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ false, PP_QP_RTS,
	  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		  IBV_QP_MAX_QP_RD_ATOMIC,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE },
};

START_TEST(test_attr_kernel_rules)
{
	const struct kernel_rule *k = &kernel_rules[_i];
	struct pp_qp_cfg c = xrc_cfg(k->recv, true);
	struct ibv_qp_attr a;
	int mask;

	mask = pp_qp_attr(&c, k->step, 1, &peer, &a);
	ck_assert_msg((mask & k->req) == k->req,
		      "%s %s: mask 0x%x lacks required 0x%x",
		      k->recv ? "recv" : "send", pp_qp_step_name(k->step), mask,
		      k->req & ~mask);
	ck_assert_msg(!(mask & ~(k->req | k->opt | IBV_QP_STATE)),
		      "%s %s: mask 0x%x has bits the kernel refuses: 0x%x",
		      k->recv ? "recv" : "send", pp_qp_step_name(k->step), mask,
		      mask & ~(k->req | k->opt | IBV_QP_STATE));
	ck_assert(mask & IBV_QP_STATE);
}
END_TEST

/* xrc_recv is an XRC setting: RC, UC and UD ignore it, byte for byte. */
START_TEST(test_attr_other_transports_unchanged)
{
	static const enum pp_transport trs[] = { PP_TR_RC, PP_TR_UC, PP_TR_UD,
						 PP_TR_SRQ };
	static const enum pp_qp_step steps[] = { PP_QP_INIT, PP_QP_RTR,
						 PP_QP_RTS };
	struct ibv_qp_attr a0, a1;
	size_t t, s;

	for (t = 0; t < sizeof(trs) / sizeof(trs[0]); t++) {
		for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
			struct pp_qp_cfg c0 = xrc_cfg(false, true), c1;
			int m0, m1;

			c0.transport = trs[t];
			c1 = c0;
			c1.xrc_recv = true;
			m0 = pp_qp_attr(&c0, steps[s], 9, &peer, &a0);
			m1 = pp_qp_attr(&c1, steps[s], 9, &peer, &a1);
			ck_assert_int_ne(m0, 0);
			ck_assert_int_eq(m0, m1);
			ck_assert_mem_eq(&a0, &a1, sizeof(a0));
			if (steps[s] == PP_QP_RTR && trs[t] != PP_TR_UD)
				ck_assert_uint_eq(a0.dest_qp_num, peer.qpn);
		}
	}
}
END_TEST

/* ------------------------------------------------- on a device, no XRC */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* $PP_DEV, or the first device; NULL when there is none. */
static struct ibv_device *find_device(struct ibv_device **list)
{
	const char *want = getenv("PP_DEV");
	int i;

	for (i = 0; list && list[i]; i++)
		if (!want || !strcmp(ibv_get_device_name(list[i]), want))
			return list[i];
	return NULL;
}

/*
 * pp_res_create() for XRC on a device without it: it gets as far as the
 * domain, fails with EOPNOTSUPP and one line naming the device, and
 * releases what it had (the domain file stays, the descriptor does not).
 */
START_TEST(test_res_create_without_xrc)
{
	static const uint8_t gid[16];
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = find_device(list);
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	char dir[] = "/tmp/pp-xrcd.XXXXXX", file[64], want[128];
	struct pp_res_attr a = {
		.transport = PP_TR_XRC,
		.num_qps = 4,
		.size = 64,
		.rx_depth = 8,
		.ib_port = 1,
		.xrcd_path = file,
	};
	struct pp_err err;
	struct pp_res *r;
	struct stat st;
	int fds;

	ck_assert_ptr_nonnull(dev);
	ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(ibv_query_device(ctx, &da), 0);
	ck_assert_msg(!(da.device_cap_flags & IBV_DEVICE_XRC),
		      "%s has XRC: this case is for a device without it",
		      ibv_get_device_name(dev));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/domain", dir);

	fds = count_fds();
	pp_err_clear(&err);
	errno = 0;
	r = pp_res_create(ctx, &a, gid, 0, &err);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	snprintf(want, sizeof(want),
		 "XRC: not supported by device %s (open XRC domain failed: ",
		 ibv_get_device_name(dev));
	ck_assert_msg(!strncmp(err.msg, want, strlen(want)), "got '%s'",
		      err.msg);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);

	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
}
END_TEST

static bool have_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	bool found = find_device(list) != NULL;

	if (list)
		ibv_free_device_list(list);
	return found;
}

static Suite *xrc_suite(void)
{
	Suite *s = suite_create("xrc");
	TCase *tc;

	tc = tcase_create("records");
	tcase_add_test(tc, test_addrs_roundtrip);
	tcase_add_test(tc, test_addrs_24bit_max);
	tcase_add_test(tc, test_addrs_srqn_over_24bit);
	tcase_add_test(tc, test_addrs_tgt_qpn_over_24bit);
	tcase_add_test(tc, test_hello_xrc);
	tcase_add_test(tc, test_hello_adopt_num_qps);
	tcase_add_test(tc, test_hello_no_xrc_device);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_add_test(tc, test_opt_num_qps);
	tcase_add_test(tc, test_opt_rx_depth);
	tcase_add_test(tc, test_opt_size);
	tcase_add_test(tc, test_opt_mtu);
	tcase_add_test(tc, test_opt_iters);
	tcase_add_test(tc, test_opt_sl);
	tcase_add_test(tc, test_opt_gid_idx);
	tcase_add_test(tc, test_opt_xrc_domain);
	tcase_add_test(tc, test_opt_refused);
	tcase_add_test(tc, test_opt_usage);
	suite_add_tcase(s, tc);

	tc = tcase_create("qp_attr");
	tcase_add_test(tc, test_attr_init);
	tcase_add_test(tc, test_attr_send_rtr);
	tcase_add_test(tc, test_attr_recv_rtr);
	tcase_add_test(tc, test_attr_send_rts);
	tcase_add_test(tc, test_attr_recv_rts);
	tcase_add_loop_test(tc, test_attr_kernel_rules, 0,
			    sizeof(kernel_rules) / sizeof(kernel_rules[0]));
	tcase_add_test(tc, test_attr_other_transports_unchanged);
	suite_add_tcase(s, tc);

	if (have_device()) {
		tc = tcase_create("device");
		tcase_add_test(tc, test_res_create_without_xrc);
		suite_add_tcase(s, tc);
	} else {
		printf("no RDMA device: case \"device\" left out (tests/e2e/xrc_unsupported.sh runs it)\n");
	}
	return s;
}

PP_CHECK_MAIN(xrc_suite)
