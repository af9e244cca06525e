// SPDX-License-Identifier: MIT
/*
 * test_wire.c - the handshake codec: round trips, golden bytes written by
 * hand from the layout in pp_wire.h, every malformed case with its errno and
 * its reason, and a deterministic garbage loop.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_wire.h"

/* Big enough for the largest message; static: each test runs in a child. */
static uint8_t buf[PP_WIRE_MAX_MSG + 64];
static struct pp_msg in, out;

static const struct pp_hello good_hello = {
	.tool = PP_TOOL_RC,
	.transport = PP_TR_RC,
	.flags = PP_F_VALIDATE,
	.mtu = 1024,
	.size = 4096,
	.iters = 1000,
	.rx_depth = 500,
	.num_qps = 1,
	.sl = 0,
	.link_layer = 1,
	.active_mtu = 4096,
	.gid_index = 3,
	.gid_type = PP_GID_TYPE_ROCE_V2,
	.hop_limit = 64,
	.pkey = 0xffff,
	.timeout_ms = 5000,
	.qp_timeout = 14,
	.retry_count = 7,
	.rnr_retry = 7,
};

static void set_be(uint8_t *p, size_t width, uint64_t v)
{
	while (width--) {
		p[width] = (uint8_t)v;
		v >>= 8;
	}
}

static void make_hdr(struct pp_hdr *h, uint16_t version, uint16_t type,
		     uint32_t len)
{
	h->magic = PP_WIRE_MAGIC;
	h->version = version;
	h->type = type;
	h->len = len;
}

static void hello_msg(struct pp_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_HELLO;
	m->u.hello = good_hello;
}

static void addrs_msg(struct pp_msg *m, uint32_t count)
{
	uint32_t i;
	int j;

	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_ADDRS;
	m->u.addrs.count = count;
	for (i = 0; i < count; i++) {
		struct pp_addr *a = &m->u.addrs.addr[i];

		a->lid = (uint16_t)(i + 1);
		a->qpn = 0x100 + i;
		a->psn = (0xabc000 + i) & PP_PSN_MASK;
		a->srqn = i;
		a->tgt_qpn = 0x200 + i;
		for (j = 0; j < 16; j++)
			a->gid[j] = (uint8_t)(i * 16 + j);
		a->rkey = 0x1000 + i;
		a->vaddr = 0x7f0000000000ULL + (uint64_t)i * 4096;
	}
}

static void gids_msg(struct pp_msg *m, uint32_t count)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_GIDS;
	m->u.gids.count = count;
	for (i = 0; i < count; i++) {
		struct pp_wire_gid *g = &m->u.gids.g[i];

		g->index = (uint8_t)(i * (PP_WIRE_GIDS_MAX / count));
		g->gid_type = (uint8_t)(i % 4);
		snprintf(g->netdev, sizeof(g->netdev), "eth%u.%u", i, 100 + i);
		memset(g->gid, (int)i, sizeof(g->gid));
	}
}

/* Two counters of rxe0 port 1: one moved, one unreadable. */
static void counters_msg(struct pp_msg *m)
{
	struct pp_counters_delta *d = &m->u.counters;

	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_COUNTERS;
	strcpy(d->dev, "rxe0");
	d->port = 1;
	d->skipped = 2;
	d->n = 2;
	strcpy(d->d[0].name, "rcvd_seq_err");
	d->d[0].dir = PP_COUNTERS_HW;
	d->d[0].delta = 17;
	strcpy(d->d[1].name, "sent_pkts");
	d->d[1].dir = PP_COUNTERS_HW;
	d->d[1].flags = PP_CTR_UNREADABLE;
	d->d[1].err = EINVAL;
}

static void done_msg(struct pp_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_DONE;
	m->u.done.status = 0;
	m->u.done.completed = 1000;
	m->u.done.lost = 2;
}

static void error_msg(struct pp_msg *m, const char *text)
{
	memset(m, 0, sizeof(*m));
	m->type = PP_MSG_ERROR;
	m->u.error.code = EINVAL;
	strcpy(m->u.error.text, text);
}

static void assert_hello_eq(const struct pp_hello *a, const struct pp_hello *b)
{
	ck_assert_uint_eq(a->tool, b->tool);
	ck_assert_uint_eq(a->transport, b->transport);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_uint_eq(a->mtu, b->mtu);
	ck_assert_uint_eq(a->size, b->size);
	ck_assert_uint_eq(a->iters, b->iters);
	ck_assert_uint_eq(a->rx_depth, b->rx_depth);
	ck_assert_uint_eq(a->num_qps, b->num_qps);
	ck_assert_uint_eq(a->sl, b->sl);
	ck_assert_uint_eq(a->link_layer, b->link_layer);
	ck_assert_uint_eq(a->active_mtu, b->active_mtu);
	ck_assert_uint_eq(a->gid_index, b->gid_index);
	ck_assert_uint_eq(a->gid_type, b->gid_type);
	ck_assert_uint_eq(a->peer_gid_index, b->peer_gid_index);
	ck_assert_uint_eq(a->hop_limit, b->hop_limit);
	ck_assert_uint_eq(a->tclass, b->tclass);
	ck_assert_uint_eq(a->pkey, b->pkey);
	ck_assert_uint_eq(a->timeout_ms, b->timeout_ms);
	ck_assert_uint_eq(a->netdev_mtu, b->netdev_mtu);
	ck_assert_uint_eq(a->expect_mtu, b->expect_mtu);
	ck_assert_uint_eq(a->flow_label, b->flow_label);
	ck_assert_uint_eq(a->warmup, b->warmup);
	ck_assert_uint_eq(a->duration_s, b->duration_s);
	ck_assert_uint_eq(a->op, b->op);
	ck_assert_uint_eq(a->qp_timeout, b->qp_timeout);
	ck_assert_uint_eq(a->retry_count, b->retry_count);
	ck_assert_uint_eq(a->rnr_retry, b->rnr_retry);
}

static void assert_addr_eq(const struct pp_addr *a, const struct pp_addr *b)
{
	ck_assert_uint_eq(a->lid, b->lid);
	ck_assert_uint_eq(a->qpn, b->qpn);
	ck_assert_uint_eq(a->psn, b->psn);
	ck_assert_uint_eq(a->srqn, b->srqn);
	ck_assert_uint_eq(a->tgt_qpn, b->tgt_qpn);
	ck_assert_mem_eq(a->gid, b->gid, sizeof(a->gid));
	ck_assert_uint_eq(a->rkey, b->rkey);
	ck_assert_uint_eq(a->vaddr, b->vaddr);
}

static void assert_counters_eq(const struct pp_counters_delta *a,
			       const struct pp_counters_delta *b)
{
	unsigned int i;

	ck_assert_str_eq(a->dev, b->dev);
	ck_assert_uint_eq(a->port, b->port);
	ck_assert_int_eq(a->no_dirs, b->no_dirs);
	ck_assert_uint_eq(a->skipped, b->skipped);
	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		ck_assert_str_eq(a->d[i].name, b->d[i].name);
		ck_assert_uint_eq(a->d[i].dir, b->d[i].dir);
		ck_assert_uint_eq(a->d[i].flags, b->d[i].flags);
		ck_assert_int_eq(a->d[i].err, b->d[i].err);
		ck_assert_uint_eq(a->d[i].delta, b->d[i].delta);
	}
}

static void assert_msg_eq(const struct pp_msg *a, const struct pp_msg *b)
{
	uint32_t i;

	ck_assert_int_eq(a->type, b->type);
	switch (a->type) {
	case PP_MSG_HELLO:
		assert_hello_eq(&a->u.hello, &b->u.hello);
		break;
	case PP_MSG_ADDRS:
		ck_assert_uint_eq(a->u.addrs.count, b->u.addrs.count);
		for (i = 0; i < a->u.addrs.count; i++)
			assert_addr_eq(&a->u.addrs.addr[i],
				       &b->u.addrs.addr[i]);
		break;
	case PP_MSG_READY:
		break;
	case PP_MSG_DONE:
		ck_assert_uint_eq(a->u.done.status, b->u.done.status);
		ck_assert_uint_eq(a->u.done.completed, b->u.done.completed);
		ck_assert_uint_eq(a->u.done.lost, b->u.done.lost);
		break;
	case PP_MSG_ERROR:
		ck_assert_uint_eq(a->u.error.code, b->u.error.code);
		ck_assert_str_eq(a->u.error.text, b->u.error.text);
		break;
	case PP_MSG_COUNTERS:
		assert_counters_eq(&a->u.counters, &b->u.counters);
		break;
	case PP_MSG_GIDS:
		ck_assert_uint_eq(a->u.gids.count, b->u.gids.count);
		for (i = 0; i < a->u.gids.count; i++) {
			const struct pp_wire_gid *x = &a->u.gids.g[i];
			const struct pp_wire_gid *y = &b->u.gids.g[i];

			ck_assert_uint_eq(x->index, y->index);
			ck_assert_uint_eq(x->gid_type, y->gid_type);
			ck_assert_str_eq(x->netdev, y->netdev);
			ck_assert_mem_eq(x->gid, y->gid, sizeof(x->gid));
		}
		break;
	case PP_MSG_ALIVE:
		ck_assert_uint_eq(a->u.alive.done, b->u.alive.done);
		break;
	default:
		ck_abort_msg("unexpected type %d", a->type);
	}
}

/* Encode @m into buf and return the length, failing the test on error. */
static size_t encode_ok(const struct pp_msg *m)
{
	size_t n = 0;

	ck_assert_int_eq(pp_wire_encode(m, buf, sizeof(buf), &n), 0);
	ck_assert_uint_eq(n, PP_WIRE_HDR_LEN + pp_wire_body_len(m));
	return n;
}

static void roundtrip(const struct pp_msg *m)
{
	const char *why = NULL;
	struct pp_hdr h;
	size_t n = encode_ok(m);

	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), 0);
	ck_assert_uint_eq(h.magic, PP_WIRE_MAGIC);
	ck_assert_uint_eq(h.version, PP_WIRE_VERSION);
	ck_assert_uint_eq(h.type, m->type);
	ck_assert_uint_eq(h.len, n - PP_WIRE_HDR_LEN);
	memset(&out, 0xa5, sizeof(out));
	ck_assert_int_eq(
		pp_wire_decode_body(&h, buf + PP_WIRE_HDR_LEN, &out, &why), 0);
	assert_msg_eq(m, &out);
}

/* Decode buf[0..] as a header followed by its body; expect @err and @why. */
static void expect_body_err(const struct pp_hdr *h, int err, const char *why)
{
	const char *got = NULL;

	ck_assert_int_eq(
		pp_wire_decode_body(h, buf + PP_WIRE_HDR_LEN, &out, &got), err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, why);
}

/* Decode the header in buf (accepted) and expect the body to fail. */
static void expect_msg_err(int err, const char *why)
{
	const char *got = NULL;
	struct pp_hdr h;

	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &got), 0);
	expect_body_err(&h, err, why);
}

static void expect_hdr_err(int err, const char *why, struct pp_hdr *h)
{
	const char *got = NULL;

	ck_assert_int_eq(pp_wire_decode_hdr(buf, h, &got), err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, why);
}

/* ---- body_len and round trips ---- */

START_TEST(test_body_len)
{
	hello_msg(&in);
	ck_assert_uint_eq(pp_wire_body_len(&in), 72);
	addrs_msg(&in, 1);
	ck_assert_uint_eq(pp_wire_body_len(&in), 52);
	addrs_msg(&in, 3);
	ck_assert_uint_eq(pp_wire_body_len(&in), 4 + 3 * 48);
	gids_msg(&in, 2);
	ck_assert_uint_eq(pp_wire_body_len(&in), 4 + 2 * 36);
	/* 13 + "rxe0" + 13 + "rcvd_seq_err" + 13 + "sent_pkts" */
	counters_msg(&in);
	ck_assert_uint_eq(pp_wire_body_len(&in), 13 + 4 + 13 + 12 + 13 + 9);
	in.type = PP_MSG_READY;
	ck_assert_uint_eq(pp_wire_body_len(&in), 0);
	done_msg(&in);
	ck_assert_uint_eq(pp_wire_body_len(&in), 24);
	error_msg(&in, "x");
	ck_assert_uint_eq(pp_wire_body_len(&in), 248);
	in.type = PP_MSG_ALIVE;
	ck_assert_uint_eq(pp_wire_body_len(&in), 8);
	in.type = (enum pp_msg_type)9;
	ck_assert_uint_eq(pp_wire_body_len(&in), 0);
}
END_TEST

START_TEST(test_rt_hello)
{
	hello_msg(&in);
	roundtrip(&in);
}
END_TEST

START_TEST(test_rt_hello_min)
{
	hello_msg(&in);
	in.u.hello = (struct pp_hello){
		.tool = PP_TOOL_RC,
		.transport = PP_TR_RC,
		.flags = 0,
		.mtu = 0,
		.size = PP_MIN_SIZE,
		.iters = 1,
		.rx_depth = 1,
		.num_qps = 1,
		.sl = 0,
		.link_layer = 0,
		.active_mtu = 256,
		.gid_index = 0,
		.gid_type = PP_GID_TYPE_NONE,
		.hop_limit = 1,
		.tclass = 0,
		.pkey = 1,
		.flow_label = 0,
		.timeout_ms = 1,
	};
	roundtrip(&in);
}
END_TEST

START_TEST(test_rt_hello_max)
{
	hello_msg(&in);
	in.u.hello = (struct pp_hello){
		.tool = PP_TOOL_XRC,
		.transport = PP_TR_XRC,
		.flags = PP_F_ALL,
		.mtu = 4096,
		.size = PP_MAX_SIZE,
		.iters = PP_MAX_ITERS,
		.rx_depth = PP_MAX_RX_DEPTH,
		.num_qps = PP_MAX_QPS,
		.sl = 15,
		.link_layer = 2,
		.active_mtu = 4096,
		.gid_index = PP_GID_INDEX_NONE,
		.gid_type = PP_GID_TYPE_ROCE_V2,
		.peer_gid_index = 255,
		.hop_limit = PP_MAX_HOP_LIMIT,
		.tclass = PP_MAX_TCLASS,
		.pkey = 0xffff,
		.flow_label = PP_MAX_FLOW_LABEL,
		.timeout_ms = PP_WIRE_TIMEOUT_MAX_MS,
	};
	roundtrip(&in);
	in.u.hello.gid_index = 255;
	roundtrip(&in);
}
END_TEST

START_TEST(test_rt_addrs_one)
{
	addrs_msg(&in, 1);
	roundtrip(&in);
}
END_TEST

START_TEST(test_rt_addrs_max)
{
	uint32_t i;

	addrs_msg(&in, PP_MAX_QPS);
	for (i = 0; i < PP_MAX_QPS; i += 7) {
		in.u.addrs.addr[i].lid = 0xffff;
		in.u.addrs.addr[i].qpn = PP_PSN_MASK;
		in.u.addrs.addr[i].psn = PP_PSN_MASK;
		in.u.addrs.addr[i].srqn = PP_PSN_MASK;
		in.u.addrs.addr[i].tgt_qpn = PP_PSN_MASK;
		memset(in.u.addrs.addr[i].gid, 0xff, 16);
	}
	roundtrip(&in);
	ck_assert_uint_eq(out.u.addrs.addr[PP_MAX_QPS - 1].gid[15],
			  (uint8_t)((PP_MAX_QPS - 1) * 16 + 15));
	ck_assert_uint_eq(out.u.addrs.addr[7].qpn, 0xffffff);
}
END_TEST

START_TEST(test_rt_ready)
{
	memset(&in, 0, sizeof(in));
	in.type = PP_MSG_READY;
	ck_assert_uint_eq(encode_ok(&in), PP_WIRE_HDR_LEN);
	roundtrip(&in);
}
END_TEST

START_TEST(test_rt_done)
{
	done_msg(&in);
	roundtrip(&in);
	in.u.done.status = 1;
	in.u.done.completed = PP_MAX_ITERS;
	in.u.done.lost = PP_MAX_ITERS;
	roundtrip(&in);
}
END_TEST

START_TEST(test_rt_error)
{
	char full[PP_WIRE_TEXT_LEN + 1];
	int i;

	error_msg(&in, "");
	roundtrip(&in);
	error_msg(&in, "protocol version: client 2, server 1 ~!");
	in.u.error.code = 0xffffffffU;
	roundtrip(&in);
	for (i = 0; i < PP_WIRE_TEXT_LEN; i++)
		full[i] = (char)(0x20 + i % 95);
	full[PP_WIRE_TEXT_LEN] = '\0';
	error_msg(&in, full);
	roundtrip(&in);
	ck_assert_uint_eq(strlen(out.u.error.text), PP_WIRE_TEXT_LEN);
}
END_TEST

/* ---- golden bytes, from the layout comment in pp_wire.h ---- */

/* Hand-written: one row per group of fields, as in the layout comment. */
/* clang-format off */
static const uint8_t golden_hello[] = {
	/* header: "PPNG", version 7, type 1, length 72 */
	0x50, 0x50, 0x4e, 0x47, 0x00, 0x07, 0x00, 0x01, 0x00, 0x00, 0x00, 0x48,
	/* 0 tool, 1 transport, 2 flags (validate, sweep, no inline), 4 mtu 1024 */
	0x04, 0x05, 0x00, 0x07, 0x00, 0x00, 0x04, 0x00,
	/* 8 size 0x12345678 */
	0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78,
	/* 16 iters 100000000 */
	0x00, 0x00, 0x00, 0x00, 0x05, 0xf5, 0xe1, 0x00,
	/* 24 rx_depth 65536, 28 num_qps 515 */
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03,
	/* 32 sl 15, 33 link_layer 2, 34 active_mtu 4096, 36 gid_index 0xab,
	 * 38 gid_type 3, 39 reserved */
	0x0f, 0x02, 0x10, 0x00, 0x00, 0xab, 0x03, 0x00,
	/* 40 warmup 1000000, 44 duration_s 3600 */
	0x00, 0x0f, 0x42, 0x40, 0x00, 0x00, 0x0e, 0x10,
	/* 48 hop_limit 64, 49 tclass 0x6a, 50 pkey 0x8234,
	 * 52 flow_label 0xabcde */
	0x40, 0x6a, 0x82, 0x34, 0x00, 0x0a, 0xbc, 0xde,
	/* 56 op 5 (cmp-swap), 57 reserved, 58 peer_gid_index 0xcd,
	 * 60 timeout_ms 1500 */
	0x05, 0, 0x00, 0xcd, 0x00, 0x00, 0x05, 0xdc,
	/* 64 qp_timeout 31, 65 retry_count 1, 66 rnr_retry 6, 67 reserved,
	 * 68 netdev_mtu 9000, 70 expect_mtu 2048 */
	0x1f, 0x01, 0x06, 0, 0x23, 0x28, 0x08, 0x00,
};
/* clang-format on */

static const struct pp_hello golden_hello_val = {
	.tool = 4,
	.transport = 5,
	.flags = 7,
	.mtu = 1024,
	.size = 0x12345678,
	.iters = 100000000,
	.rx_depth = 65536,
	.num_qps = 515,
	.sl = 15,
	.link_layer = 2,
	.active_mtu = 4096,
	.gid_index = 0xab,
	.gid_type = 3,
	.warmup = 1000000,
	.duration_s = 3600,
	.hop_limit = 64,
	.tclass = 0x6a,
	.pkey = 0x8234,
	.flow_label = 0xabcde,
	.peer_gid_index = 0xcd,
	.timeout_ms = 1500,
	.op = 5,
	.qp_timeout = 31,
	.retry_count = 1,
	.rnr_retry = 6,
	.netdev_mtu = 9000,
	.expect_mtu = 2048,
};

/* clang-format off */
static const uint8_t golden_addrs[] = {
	/* header: "PPNG", version 7, type 2, length 52 */
	0x50, 0x50, 0x4e, 0x47, 0x00, 0x07, 0x00, 0x02, 0x00, 0x00, 0x00, 0x34,
	/* count 1 */
	0x00, 0x00, 0x00, 0x01,
	/* lid 0x1234, reserved, qpn 0xabcdef */
	0x12, 0x34, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef,
	/* psn 0x123456, srqn 0x654321, tgt_qpn 0xfedcba */
	0x00, 0x12, 0x34, 0x56, 0x00, 0x65, 0x43, 0x21, 0x00, 0xfe, 0xdc, 0xba,
	/* gid fe80::211:22ff:fe33:4455 */
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x11, 0x22, 0xff,
	0xfe, 0x33, 0x44, 0x55,
	/* rkey 0x89abcdef, vaddr 0x00007f0123456789 */
	0x89, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x7f, 0x01, 0x23, 0x45, 0x67, 0x89,
};

static const uint8_t golden_gids[] = {
	/* header: "PPNG", version 7, type 7, length 76 */
	0x50, 0x50, 0x4e, 0x47, 0x00, 0x07, 0x00, 0x07, 0x00, 0x00, 0x00, 0x4c,
	/* count 2, reserved */
	0x00, 0x02, 0x00, 0x00,
	/* index 1, type RoCE v2, reserved, netdev "eth0.100" */
	0x01, 0x03, 0x00, 0x00, 'e', 't', 'h', '0', '.', '1', '0', '0',
	0, 0, 0, 0, 0, 0, 0, 0,
	/* gid ::ffff:10.99.1.1 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 1, 1,
	/* index 7, type IB, reserved, netdev none, gid fe80::1 */
	0x07, 0x01, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
};
/* clang-format on */

static const struct pp_addr golden_addr_val = {
	.lid = 0x1234,
	.qpn = 0xabcdef,
	.psn = 0x123456,
	.srqn = 0x654321,
	.tgt_qpn = 0xfedcba,
	.gid = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe,
		 0x33, 0x44, 0x55 },
	.rkey = 0x89abcdef,
	.vaddr = 0x00007f0123456789ULL,
};

START_TEST(test_golden_hello)
{
	const char *why = NULL;
	struct pp_hdr h;
	size_t n;

	ck_assert_uint_eq(sizeof(golden_hello), PP_WIRE_HDR_LEN + 72);
	memset(&in, 0, sizeof(in));
	in.type = PP_MSG_HELLO;
	in.u.hello = golden_hello_val;
	n = encode_ok(&in);
	ck_assert_uint_eq(n, sizeof(golden_hello));
	ck_assert_mem_eq(buf, golden_hello, sizeof(golden_hello));

	memcpy(buf, golden_hello, sizeof(golden_hello));
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), 0);
	ck_assert_int_eq(pp_wire_decode_body(&h, buf + 12, &out, &why), 0);
	assert_msg_eq(&in, &out);
}
END_TEST

START_TEST(test_golden_addrs)
{
	const char *why = NULL;
	struct pp_hdr h;
	size_t n;

	ck_assert_uint_eq(sizeof(golden_addrs), PP_WIRE_HDR_LEN + 52);
	memset(&in, 0, sizeof(in));
	in.type = PP_MSG_ADDRS;
	in.u.addrs.count = 1;
	in.u.addrs.addr[0] = golden_addr_val;
	n = encode_ok(&in);
	ck_assert_uint_eq(n, sizeof(golden_addrs));
	ck_assert_mem_eq(buf, golden_addrs, sizeof(golden_addrs));

	memcpy(buf, golden_addrs, sizeof(golden_addrs));
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), 0);
	ck_assert_int_eq(pp_wire_decode_body(&h, buf + 12, &out, &why), 0);
	assert_msg_eq(&in, &out);
}
END_TEST

/* ALIVE: a client's count of 0x0102030405060708 iterations done. */
static const uint8_t golden_alive[] = {
	0x50, 0x50, 0x4e, 0x47, 0x00, 0x07, 0x00, 0x08, 0x00, 0x00,
	0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
};

START_TEST(test_golden_alive)
{
	const char *why = NULL;
	struct pp_hdr h;

	memset(&in, 0, sizeof(in));
	in.type = PP_MSG_ALIVE;
	in.u.alive.done = 0x0102030405060708ULL;
	ck_assert_uint_eq(encode_ok(&in), sizeof(golden_alive));
	ck_assert_mem_eq(buf, golden_alive, sizeof(golden_alive));
	memcpy(buf, golden_alive, sizeof(golden_alive));
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), 0);
	ck_assert_int_eq(pp_wire_decode_body(&h, buf + 12, &out, &why), 0);
	assert_msg_eq(&in, &out);
	/* a body of 4 bytes, as if done were 32 bits: refused by its length */
	set_be(buf + 8, 4, 4);
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), EBADMSG);
	ck_assert_str_eq(why, "bad length for message type");
}
END_TEST

/* ---- header errors ---- */

START_TEST(test_golden_gids)
{
	static const uint8_t v4[16] = { 0, 0, 0,    0,	  0,  0,  0, 0,
					0, 0, 0xff, 0xff, 10, 99, 1, 1 };
	static const uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					0,    0,    0, 0, 0, 0, 0, 1 };
	const char *why = NULL;
	struct pp_hdr h;
	size_t n;

	ck_assert_uint_eq(sizeof(golden_gids), PP_WIRE_HDR_LEN + 76);
	memset(&in, 0, sizeof(in));
	in.type = PP_MSG_GIDS;
	in.u.gids.count = 2;
	in.u.gids.g[0].index = 1;
	in.u.gids.g[0].gid_type = PP_GID_TYPE_ROCE_V2;
	strcpy(in.u.gids.g[0].netdev, "eth0.100");
	memcpy(in.u.gids.g[0].gid, v4, 16);
	in.u.gids.g[1].index = 7;
	in.u.gids.g[1].gid_type = PP_GID_TYPE_IB;
	memcpy(in.u.gids.g[1].gid, ll, 16);
	n = encode_ok(&in);
	ck_assert_uint_eq(n, sizeof(golden_gids));
	ck_assert_mem_eq(buf, golden_gids, sizeof(golden_gids));

	memcpy(buf, golden_gids, sizeof(golden_gids));
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), 0);
	ck_assert_int_eq(pp_wire_decode_body(&h, buf + 12, &out, &why), 0);
	assert_msg_eq(&in, &out);
}
END_TEST

START_TEST(test_hdr_bad_magic)
{
	struct pp_hdr h;

	hello_msg(&in);
	encode_ok(&in);
	buf[3] = 'H'; /* "PPNH" */
	expect_hdr_err(EPROTO, "bad magic", &h);
	/* magic is checked before the version */
	set_be(buf + 4, 2, 2);
	expect_hdr_err(EPROTO, "bad magic", &h);
}
END_TEST

START_TEST(test_hdr_bad_version)
{
	struct pp_hdr h;

	hello_msg(&in);
	encode_ok(&in);
	set_be(buf + 4, 2, PP_WIRE_VERSION + 1);
	memset(&h, 0, sizeof(h));
	expect_hdr_err(EPROTONOSUPPORT, "unsupported protocol version", &h);
	ck_assert_uint_eq(h.magic, PP_WIRE_MAGIC);
	ck_assert_uint_eq(h.version, PP_WIRE_VERSION + 1);
	ck_assert_uint_eq(h.type, PP_MSG_HELLO);
	ck_assert_uint_eq(h.len, 72);
	set_be(buf + 4, 2, 0);
	expect_hdr_err(EPROTONOSUPPORT, "unsupported protocol version", &h);
	ck_assert_uint_eq(h.version, 0);
}
END_TEST

START_TEST(test_hdr_unknown_type)
{
	static const uint16_t types[] = { 0, 9, 0x0100, 0xffff };
	struct pp_hdr h;
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(&in, 0, sizeof(in));
		in.type = PP_MSG_READY;
		encode_ok(&in);
		set_be(buf + 6, 2, types[i]);
		expect_hdr_err(EBADMSG, "unknown message type", &h);
		ck_assert_uint_eq(h.type, types[i]);
	}
}
END_TEST

static const struct {
	uint16_t type;
	uint32_t len;
	bool ok;
} len_table[] = {
	{ PP_MSG_HELLO, 72, true },
	{ PP_MSG_HELLO, 68, false }, /* a version-6 HELLO */
	{ PP_MSG_HELLO, 71, false },
	{ PP_MSG_HELLO, 73, false },
	{ PP_MSG_HELLO, 0, false },
	{ PP_MSG_READY, 0, true },
	{ PP_MSG_READY, 1, false },
	{ PP_MSG_DONE, 24, true },
	{ PP_MSG_DONE, 23, false },
	{ PP_MSG_DONE, 64, false },
	{ PP_MSG_ERROR, 248, true },
	{ PP_MSG_ERROR, 247, false },
	{ PP_MSG_ERROR, 249, false },
	{ PP_MSG_ADDRS, 52, true },
	{ PP_MSG_ADDRS, 100, true },
	{ PP_MSG_ADDRS, PP_WIRE_MAX_BODY, true },
	{ PP_MSG_ADDRS, 0, false },
	{ PP_MSG_ADDRS, 4, false },
	{ PP_MSG_ADDRS, 40, false }, /* a version-3 record */
	{ PP_MSG_ADDRS, 51, false },
	{ PP_MSG_ADDRS, 53, false },
	{ PP_MSG_ADDRS, 99, false },
	{ PP_MSG_ADDRS, PP_WIRE_MAX_BODY + 48, false },
	{ PP_MSG_ADDRS, 0xffffffffU, false },
	{ PP_MSG_ADDRS, 4 + 48 * 100000U, false }, /* records, but too many */
	{ PP_MSG_COUNTERS, PP_COUNTERS_WIRE_HDR + 1, true },
	{ PP_MSG_COUNTERS, PP_COUNTERS_WIRE_MAX, true },
	{ PP_MSG_COUNTERS, 0, false },
	{ PP_MSG_COUNTERS, PP_COUNTERS_WIRE_HDR, false },
	{ PP_MSG_COUNTERS, PP_COUNTERS_WIRE_MAX + 1, false },
	{ PP_MSG_GIDS, 40, true },
	{ PP_MSG_GIDS, PP_WIRE_GIDS_MAX_BODY, true },
	{ PP_MSG_GIDS, 4, false },
	{ PP_MSG_GIDS, 39, false },
	{ PP_MSG_GIDS, 41, false },
	{ PP_MSG_GIDS, PP_WIRE_GIDS_MAX_BODY + 36, false },
	{ PP_MSG_ALIVE, 8, true },
	{ PP_MSG_ALIVE, 0, false },
	{ PP_MSG_ALIVE, 7, false },
	{ PP_MSG_ALIVE, 9, false },
	{ PP_MSG_ALIVE, 24, false }, /* a DONE's length */
};

START_TEST(test_hdr_length)
{
	const char *why = NULL;
	struct pp_hdr h;

	set_be(buf, 4, PP_WIRE_MAGIC);
	set_be(buf + 4, 2, PP_WIRE_VERSION);
	set_be(buf + 6, 2, len_table[_i].type);
	set_be(buf + 8, 4, len_table[_i].len);
	if (len_table[_i].ok) {
		ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), 0);
		ck_assert_uint_eq(h.len, len_table[_i].len);
	} else {
		expect_hdr_err(EBADMSG, "bad length for message type", &h);
	}
}
END_TEST

/* ---- decode_body given a header with a wrong length or type ---- */

START_TEST(test_body_short_long)
{
	const char *why = NULL;
	struct pp_hdr h;

	hello_msg(&in);
	encode_ok(&in);
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_HELLO, 24);
	expect_body_err(&h, EBADMSG, "bad length for message type");
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_HELLO, 73);
	expect_body_err(&h, EBADMSG, "bad length for message type");
	/* a header that claims 64 bytes for a DONE */
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_DONE, 64);
	expect_body_err(&h, EBADMSG, "bad length for message type");
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_READY, 64);
	expect_body_err(&h, EBADMSG, "bad length for message type");
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_ADDRS, 64);
	expect_body_err(&h, EBADMSG, "bad length for message type");
	make_hdr(&h, PP_WIRE_VERSION, 0, 64);
	expect_body_err(&h, EBADMSG, "unknown message type");
	/* the same bytes under the right header are fine */
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_HELLO, 72);
	ck_assert_int_eq(pp_wire_decode_body(&h, buf + 12, &out, &why), 0);
}
END_TEST

/* ---- HELLO: each field out of range, patched into good wire bytes ---- */

static const struct {
	size_t off;   /* in the body */
	size_t width; /* bytes */
	uint64_t val;
	const char *why;
} hello_bad[] = {
	{ 0, 1, 0, "tool out of range" },
	{ 0, 1, 5, "tool out of range" },
	{ 0, 1, 0xff, "tool out of range" },
	{ 1, 1, 0, "transport out of range" },
	{ 1, 1, 6, "transport out of range" },
	{ 2, 2, 0x0040, "unknown flags" },
	{ 50, 2, 0, "pkey out of range" },
	{ 50, 2, 0x8000, "pkey out of range" },
	{ 2, 2, 0x8001, "unknown flags" },
	{ 4, 4, 128, "mtu out of range" },
	{ 4, 4, 257, "mtu out of range" },
	{ 4, 4, 3072, "mtu out of range" },
	{ 4, 4, 8192, "mtu out of range" },
	{ 4, 4, 0x80000000U, "mtu out of range" },
	{ 8, 8, 0, "size out of range" },
	{ 8, 8, PP_MAX_SIZE + 1, "size out of range" },
	{ 8, 8, UINT64_MAX, "size out of range" },
	{ 16, 8, 0, "iters out of range" },
	{ 16, 8, PP_MAX_ITERS + 1, "iters out of range" },
	{ 24, 4, 0, "rx_depth out of range" },
	{ 24, 4, PP_MAX_RX_DEPTH + 1, "rx_depth out of range" },
	{ 28, 4, 0, "num_qps out of range" },
	{ 28, 4, PP_MAX_QPS + 1, "num_qps out of range" },
	{ 32, 1, 16, "sl out of range" },
	{ 33, 1, 3, "link_layer out of range" },
	{ 34, 2, 0, "active_mtu out of range" },
	{ 34, 2, 128, "active_mtu out of range" },
	{ 34, 2, 1000, "active_mtu out of range" },
	{ 34, 2, 8192, "active_mtu out of range" },
	{ 36, 2, 256, "gid_index out of range" },
	{ 36, 2, 0xfffe, "gid_index out of range" },
	{ 38, 1, 4, "gid_type out of range" },
	{ 39, 1, 1, "reserved field not zero" },
	{ 40, 4, PP_MAX_WARMUP + 1, "warmup out of range" },
	{ 40, 4, 0xffffffffU, "warmup out of range" },
	{ 44, 4, PP_MAX_DURATION_S + 1, "duration out of range" },
	{ 44, 4, 0x80000000U, "duration out of range" },
	{ 48, 1, 0, "hop_limit out of range" },
	{ 52, 4, PP_MAX_FLOW_LABEL + 1, "flow_label out of range" },
	{ 52, 4, 0xffffffffU, "flow_label out of range" },
	{ 56, 1, 6, "op out of range" },
	{ 56, 1, 0x80, "op out of range" },
	{ 57, 1, 1, "reserved field not zero" },
	{ 58, 2, 256, "peer_gid_index out of range" },
	{ 58, 2, 0xfffe, "peer_gid_index out of range" },
	{ 60, 4, 0, "timeout out of range" },
	{ 60, 4, PP_WIRE_TIMEOUT_MAX_MS + 1, "timeout out of range" },
	{ 60, 4, 0xffffffffU, "timeout out of range" },
	{ 64, 1, PP_MAX_QP_TIMEOUT + 1, "qp_timeout out of range" },
	{ 64, 1, 0xff, "qp_timeout out of range" },
	{ 65, 1, PP_MAX_RETRY_COUNT + 1, "retry_count out of range" },
	{ 66, 1, PP_MAX_RNR_RETRY + 1, "rnr_retry out of range" },
	{ 67, 1, 1, "reserved field not zero" },
};

#define N_HELLO_BAD (int)(sizeof(hello_bad) / sizeof(hello_bad[0]))

START_TEST(test_hello_bad_field)
{
	hello_msg(&in);
	encode_ok(&in);
	set_be(buf + 12 + hello_bad[_i].off, hello_bad[_i].width,
	       hello_bad[_i].val);
	expect_msg_err(EPROTO, hello_bad[_i].why);
}
END_TEST

/* Set the struct field at wire offset @off; false for reserved bytes. */
static bool hello_set(struct pp_hello *h, size_t off, uint64_t v)
{
	switch (off) {
	case 0:
		h->tool = (uint8_t)v;
		break;
	case 1:
		h->transport = (uint8_t)v;
		break;
	case 2:
		h->flags = (uint16_t)v;
		break;
	case 4:
		h->mtu = (uint32_t)v;
		break;
	case 8:
		h->size = v;
		break;
	case 16:
		h->iters = v;
		break;
	case 24:
		h->rx_depth = (uint32_t)v;
		break;
	case 28:
		h->num_qps = (uint32_t)v;
		break;
	case 32:
		h->sl = (uint8_t)v;
		break;
	case 33:
		h->link_layer = (uint8_t)v;
		break;
	case 34:
		h->active_mtu = (uint16_t)v;
		break;
	case 36:
		h->gid_index = (uint16_t)v;
		break;
	case 38:
		h->gid_type = (uint8_t)v;
		break;
	case 40:
		h->warmup = (uint32_t)v;
		break;
	case 44:
		h->duration_s = (uint32_t)v;
		break;
	case 58:
		h->peer_gid_index = (uint16_t)v;
		break;
	case 64:
		h->qp_timeout = (uint8_t)v;
		break;
	case 65:
		h->retry_count = (uint8_t)v;
		break;
	case 66:
		h->rnr_retry = (uint8_t)v;
		break;
	default:
		return false;
	}
	return true;
}

START_TEST(test_encode_hello_bad_field)
{
	size_t n = 0;

	hello_msg(&in);
	if (!hello_set(&in.u.hello, hello_bad[_i].off, hello_bad[_i].val)) {
		/* only the reserved bytes have no struct field */
		ck_assert(hello_bad[_i].off == 39 || hello_bad[_i].off >= 48);
		ck_assert(hello_bad[_i].off < 64 || hello_bad[_i].off > 66);
		return;
	}
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
}
END_TEST

/* The hello_set() mapping really reaches the encoder: a good value passes. */
START_TEST(test_encode_hello_set_sane)
{
	hello_msg(&in);
	ck_assert(hello_set(&in.u.hello, 36, PP_GID_INDEX_NONE));
	ck_assert(hello_set(&in.u.hello, 4, 0));
	roundtrip(&in);
	ck_assert_uint_eq(out.u.hello.gid_index, PP_GID_INDEX_NONE);
	ck_assert_uint_eq(out.u.hello.mtu, 0);
}
END_TEST

/* ---- ADDRS ---- */

START_TEST(test_addrs_count_mismatch)
{
	addrs_msg(&in, 2);
	encode_ok(&in);
	set_be(buf + 12, 4, 1);
	expect_msg_err(EBADMSG, "count does not match length");
	set_be(buf + 12, 4, 3);
	expect_msg_err(EBADMSG, "count does not match length");
}
END_TEST

START_TEST(test_addrs_count_range)
{
	struct pp_hdr h;

	addrs_msg(&in, 1);
	encode_ok(&in);
	set_be(buf + 12, 4, 0);
	expect_msg_err(EPROTO, "count out of range");
	set_be(buf + 12, 4, PP_MAX_QPS + 1);
	expect_msg_err(EPROTO, "count out of range");
	/* a body really holding 1025 records: the length is refused first */
	make_hdr(&h, PP_WIRE_VERSION, PP_MSG_ADDRS,
		 4 + PP_WIRE_ADDR_LEN * (PP_MAX_QPS + 1));
	expect_body_err(&h, EBADMSG, "bad length for message type");
}
END_TEST

static const struct {
	size_t off; /* in the record */
	size_t width;
	uint64_t val;
	const char *why;
} addr_bad[] = {
	{ 2, 2, 1, "reserved field not zero" },
	{ 2, 2, 0x8000, "reserved field not zero" },
	{ 4, 4, 0x1000000, "qpn out of range" },
	{ 4, 4, 0xffffffff, "qpn out of range" },
	{ 8, 4, 0x1000000, "psn out of range" },
	{ 12, 4, 0x1000000, "srqn out of range" },
	{ 16, 4, 0x1000000, "tgt_qpn out of range" },
};

#define N_ADDR_BAD (int)(sizeof(addr_bad) / sizeof(addr_bad[0]))

START_TEST(test_addrs_bad_field)
{
	uint32_t rec;

	/* in the first, a middle and the last of three records */
	for (rec = 0; rec < 3; rec++) {
		addrs_msg(&in, 3);
		encode_ok(&in);
		set_be(buf + 12 + 4 + rec * PP_WIRE_ADDR_LEN + addr_bad[_i].off,
		       addr_bad[_i].width, addr_bad[_i].val);
		expect_msg_err(EPROTO, addr_bad[_i].why);
	}
}
END_TEST

START_TEST(test_encode_addrs_bad)
{
	size_t n = 0;

	addrs_msg(&in, 0);
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	addrs_msg(&in, PP_MAX_QPS);
	in.u.addrs.count = PP_MAX_QPS + 1;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	addrs_msg(&in, 4);
	in.u.addrs.addr[3].qpn = 0x1000000;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	addrs_msg(&in, 4);
	in.u.addrs.addr[2].psn = 0x1000000;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	addrs_msg(&in, 4);
	in.u.addrs.addr[1].srqn = 0x1000000;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	addrs_msg(&in, 4);
	in.u.addrs.addr[0].tgt_qpn = 0x1000000;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	ck_assert_uint_eq(n, 0); /* untouched on failure */
}
END_TEST

/* ---- DONE ---- */

START_TEST(test_done_bad)
{
	size_t n = 0;

	done_msg(&in);
	encode_ok(&in);
	set_be(buf + 12, 4, 2);
	expect_msg_err(EPROTO, "status out of range");
	encode_ok(&in);
	set_be(buf + 12 + 4, 4, 1);
	expect_msg_err(EPROTO, "reserved field not zero");
	encode_ok(&in);
	set_be(buf + 12 + 8, 8, PP_MAX_ITERS + 1);
	expect_msg_err(EPROTO, "completed out of range");
	encode_ok(&in);
	set_be(buf + 12 + 16, 8, PP_MAX_ITERS + 1);
	expect_msg_err(EPROTO, "lost out of range");

	in.u.done.status = 2;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	done_msg(&in);
	in.u.done.completed = PP_MAX_ITERS + 1;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	done_msg(&in);
	in.u.done.lost = UINT64_MAX;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
}
END_TEST

/* ---- ERROR ---- */

START_TEST(test_error_text_bad)
{
	error_msg(&in, "abc");
	encode_ok(&in);
	buf[12 + 4 + 1] = 0x01;
	expect_msg_err(EPROTO, "text not printable");
	buf[12 + 4 + 1] = 0x7f;
	expect_msg_err(EPROTO, "text not printable");
	buf[12 + 4 + 1] = 0x80;
	expect_msg_err(EPROTO, "text not printable");
	buf[12 + 4 + 1] = '\n';
	expect_msg_err(EPROTO, "text not printable");
	buf[12 + 4 + 1] = 'b';
	buf[12 + 4 + 5] = 'x'; /* after the NUL at 3 */
	expect_msg_err(EPROTO, "text not NUL-padded");
	buf[12 + 4 + 5] = 0;
	buf[12 + 4 + PP_WIRE_TEXT_LEN - 1] = 0xff;
	expect_msg_err(EPROTO, "text not NUL-padded");
}
END_TEST

START_TEST(test_error_under_other_version)
{
	const char *why = NULL;
	struct pp_hdr h;
	int v;

	/* the next version and the one before */
	for (v = PP_WIRE_VERSION - 1; v <= PP_WIRE_VERSION + 1; v += 2) {
		error_msg(&in, "protocol version: client 5, server 4");
		encode_ok(&in);
		set_be(buf + 4, 2, (uint64_t)v);
		ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why),
				 EPROTONOSUPPORT);
		ck_assert_uint_eq(h.version, v);
		ck_assert_int_eq(pp_wire_decode_body(&h, buf + 12, &out, &why),
				 0);
		assert_msg_eq(&in, &out);
	}

	/* but only ERROR: anything else under another version is refused */
	hello_msg(&in);
	encode_ok(&in);
	set_be(buf + 4, 2, PP_WIRE_VERSION + 1);
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &h, &why), EPROTONOSUPPORT);
	expect_body_err(&h, EPROTONOSUPPORT, "unsupported protocol version");
	make_hdr(&h, PP_WIRE_VERSION + 1, PP_MSG_READY, 0);
	expect_body_err(&h, EPROTONOSUPPORT, "unsupported protocol version");
	/* and the ERROR body keeps its fixed length under any version */
	make_hdr(&h, PP_WIRE_VERSION + 1, PP_MSG_ERROR, 300);
	expect_body_err(&h, EBADMSG, "bad length for message type");
}
END_TEST

START_TEST(test_encode_error_bad)
{
	size_t n = 0;

	error_msg(&in, "tab\there");
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	error_msg(&in, "caf\xc3\xa9");
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	error_msg(&in, "del\x7f");
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	/* 245 characters, no NUL inside the array: too long */
	error_msg(&in, "");
	memset(in.u.error.text, 'a', sizeof(in.u.error.text));
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	ck_assert_uint_eq(n, 0);
	/* 244 is fine */
	in.u.error.text[PP_WIRE_TEXT_LEN] = '\0';
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), 0);
}
END_TEST

START_TEST(test_encode_unknown_type)
{
	size_t n = 0;

	memset(&in, 0, sizeof(in));
	in.type = (enum pp_msg_type)0;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	in.type = (enum pp_msg_type)9;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
}
END_TEST

/* ---- GIDS ---- */

START_TEST(test_rt_gids)
{
	gids_msg(&in, 1);
	roundtrip(&in);
	gids_msg(&in, 5);
	roundtrip(&in);
	/* a netdev of all 16 characters has no NUL on the wire */
	strcpy(in.u.gids.g[2].netdev, "abcdefghijklmnop");
	roundtrip(&in);
	gids_msg(&in, PP_WIRE_GIDS_MAX);
	roundtrip(&in);
	ck_assert_uint_eq(out.u.gids.g[255].index, 255);
}
END_TEST

START_TEST(test_gids_bad)
{
	size_t n = 0;
	uint8_t *r1 = buf + 12 + 4 + 36; /* the second record */

	gids_msg(&in, 3);
	encode_ok(&in);
	set_be(buf + 12, 2, 2);
	expect_msg_err(EBADMSG, "count does not match length");
	encode_ok(&in);
	set_be(buf + 12 + 2, 2, 1);
	expect_msg_err(EPROTO, "reserved field not zero");
	encode_ok(&in);
	r1[0] = 0; /* the first record's index is 0 too */
	expect_msg_err(EPROTO, "gid index out of order");
	encode_ok(&in);
	r1[1] = 4;
	expect_msg_err(EPROTO, "gid_type out of range");
	encode_ok(&in);
	r1[3] = 1;
	expect_msg_err(EPROTO, "reserved field not zero");
	encode_ok(&in);
	r1[4 + 1] = ' ';
	expect_msg_err(EPROTO, "netdev not printable");
	encode_ok(&in);
	r1[4 + 1] = '/';
	expect_msg_err(EPROTO, "netdev not printable");
	encode_ok(&in);
	r1[4 + 15] = 'x'; /* after the NUL that ends "eth1.101" */
	expect_msg_err(EPROTO, "netdev not NUL-padded");

	gids_msg(&in, 3);
	in.u.gids.g[2].index = in.u.gids.g[1].index;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	gids_msg(&in, 3);
	in.u.gids.g[0].gid_type = 4;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	gids_msg(&in, 3);
	strcpy(in.u.gids.g[0].netdev, "eth 0");
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	gids_msg(&in, 1);
	in.u.gids.count = 0;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	in.u.gids.count = PP_WIRE_GIDS_MAX + 1;
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* ---- COUNTERS: the body is pp_counters' byte form (test_counters.c) ---- */

START_TEST(test_rt_counters)
{
	counters_msg(&in);
	roundtrip(&in);
	ck_assert_uint_eq(out.u.counters.d[0].delta, 17);
	ck_assert_int_eq(out.u.counters.d[1].err, EINVAL);
	/* no directories, no counters */
	memset(&in.u.counters, 0, sizeof(in.u.counters));
	strcpy(in.u.counters.dev, "mlx5_0");
	in.u.counters.port = 2;
	in.u.counters.no_dirs = true;
	roundtrip(&in);
}
END_TEST

START_TEST(test_counters_bad)
{
	size_t n = 0;

	counters_msg(&in);
	encode_ok(&in);
	buf[12] = 9; /* the byte form's own version */
	expect_msg_err(EPROTO, "counters: another version");
	encode_ok(&in);
	buf[12 + 4 + 3] = 0; /* port 0 */
	expect_msg_err(EPROTO, "counters: port out of range");
	/* records out of order: refused by the encoder as by the decoder */
	counters_msg(&in);
	strcpy(in.u.counters.d[1].name, "a_first");
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	/* a name too long to encode */
	counters_msg(&in);
	memset(in.u.counters.d[0].name, 'x', sizeof(in.u.counters.d[0].name));
	ck_assert_int_eq(pp_wire_encode(&in, buf, sizeof(buf), &n), EINVAL);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_encode_enospc)
{
	size_t need, n;
	int t;

	for (t = PP_MSG_HELLO; t <= PP_MSG_ALIVE; t++) {
		switch (t) {
		case PP_MSG_ALIVE:
			memset(&in, 0, sizeof(in));
			in.type = PP_MSG_ALIVE;
			in.u.alive.done = 7;
			break;
		case PP_MSG_COUNTERS:
			counters_msg(&in);
			break;
		case PP_MSG_GIDS:
			gids_msg(&in, 3);
			break;
		case PP_MSG_HELLO:
			hello_msg(&in);
			break;
		case PP_MSG_ADDRS:
			addrs_msg(&in, 5);
			break;
		case PP_MSG_READY:
			memset(&in, 0, sizeof(in));
			in.type = PP_MSG_READY;
			break;
		case PP_MSG_DONE:
			done_msg(&in);
			break;
		default:
			error_msg(&in, "x");
		}
		need = PP_WIRE_HDR_LEN + pp_wire_body_len(&in);
		memset(buf, 0xee, sizeof(buf));
		n = 0;
		ck_assert_int_eq(pp_wire_encode(&in, buf, need - 1, &n),
				 ENOSPC);
		ck_assert_uint_eq(n, 0);
		ck_assert_uint_eq(buf[0], 0xee); /* nothing written */
		ck_assert_int_eq(pp_wire_encode(&in, buf, 0, &n), ENOSPC);
		ck_assert_int_eq(pp_wire_encode(&in, buf, need, &n), 0);
		ck_assert_uint_eq(n, need);
		ck_assert_uint_eq(buf[need], 0xee); /* nothing past the end */
	}
}
END_TEST

/* ---- garbage ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64: the same sequence on every libc */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint8_t gbuf[PP_WIRE_HDR_LEN + 4 + 36 * 4 + 256];
static uint8_t rebuf[PP_WIRE_MAX_MSG];

static size_t garbage_fixed_len(uint16_t type)
{
	switch (type) {
	case PP_MSG_HELLO:
		return 64;
	case PP_MSG_ADDRS:
		return 4 + PP_WIRE_ADDR_LEN * (1 + rng() % 4);
	case PP_MSG_GIDS:
		return 4 + PP_WIRE_GID_LEN * (1 + rng() % 4);
	case PP_MSG_DONE:
		return 24;
	case PP_MSG_ERROR:
		return 248;
	case PP_MSG_ALIVE:
		return 8;
	}
	return rng() % 64;
}

/* One sample message of each type, as mutation seeds. */
static size_t garbage_seed(int i)
{
	size_t n = 0;

	switch (i % 7) {
	case 0:
		hello_msg(&in);
		break;
	case 1:
		addrs_msg(&in, 3);
		break;
	case 2:
		memset(&in, 0, sizeof(in));
		in.type = PP_MSG_READY;
		break;
	case 3:
		done_msg(&in);
		break;
	case 4:
		counters_msg(&in);
		break;
	case 5:
		gids_msg(&in, 3);
		break;
	default:
		error_msg(&in, "peer says no");
	}
	ck_assert_int_eq(pp_wire_encode(&in, gbuf, sizeof(gbuf), &n), 0);
	return n;
}

START_TEST(test_garbage)
{
	int ok = 0, failed = 0, i, hrc, brc, k;
	const char *why;
	struct pp_hdr h;
	size_t avail, j, n;
	uint16_t type;

	rng_state = 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < 10000; i++) {
		switch (i % 3) {
		case 0: /* pure noise */
			avail = PP_WIRE_HDR_LEN + rng() % 300;
			for (j = 0; j < avail; j++)
				gbuf[j] = (uint8_t)rng();
			break;
		case 1: /* a plausible header, a noise body */
			type = (uint16_t)(rng() % 10);
			avail = PP_WIRE_HDR_LEN + garbage_fixed_len(type);
			set_be(gbuf, 4, PP_WIRE_MAGIC);
			set_be(gbuf + 4, 2, rng() % 8 ? 1 : 2);
			set_be(gbuf + 6, 2, type);
			set_be(gbuf + 8, 4, avail - PP_WIRE_HDR_LEN);
			for (j = PP_WIRE_HDR_LEN; j < avail; j++)
				gbuf[j] = rng() % 4 ? 0 : (uint8_t)rng();
			break;
		default: /* a good message with a few bytes changed */
			avail = garbage_seed(i);
			for (k = 0; avail && k < 1 + (int)(rng() % 3); k++)
				gbuf[rng() % avail] = (uint8_t)rng();
		}

		why = NULL;
		hrc = pp_wire_decode_hdr(gbuf, &h, &why);
		if (hrc && hrc != EPROTONOSUPPORT) {
			ck_assert_ptr_nonnull(why);
			failed++;
			continue;
		}
		if (h.len > avail - PP_WIRE_HDR_LEN) {
			failed++; /* a caller would not read past its buffer */
			continue;
		}
		why = NULL;
		brc = pp_wire_decode_body(&h, gbuf + PP_WIRE_HDR_LEN, &out,
					  &why);
		if (brc) {
			ck_assert_ptr_nonnull(why);
			failed++;
			continue;
		}
		/* accepted: must be exactly what the encoder makes of it */
		ok++;
		ck_assert_int_eq(pp_wire_encode(&out, rebuf, sizeof(rebuf), &n),
				 0);
		ck_assert_uint_eq(n, PP_WIRE_HDR_LEN + h.len);
		if (hrc == 0)
			ck_assert_mem_eq(rebuf, gbuf, n);
		else /* an ERROR under another version: the body is the same */
			ck_assert_mem_eq(rebuf + PP_WIRE_HDR_LEN,
					 gbuf + PP_WIRE_HDR_LEN, h.len);
	}
	/* the loop must have exercised both outcomes */
	ck_assert_int_gt(ok, 200);
	ck_assert_int_gt(failed, 500);
}
END_TEST

static Suite *wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc;

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_body_len);
	tcase_add_test(tc, test_rt_hello);
	tcase_add_test(tc, test_rt_hello_min);
	tcase_add_test(tc, test_rt_hello_max);
	tcase_add_test(tc, test_rt_addrs_one);
	tcase_add_test(tc, test_rt_addrs_max);
	tcase_add_test(tc, test_rt_ready);
	tcase_add_test(tc, test_rt_done);
	tcase_add_test(tc, test_rt_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("golden");
	tcase_add_test(tc, test_golden_hello);
	tcase_add_test(tc, test_golden_addrs);
	tcase_add_test(tc, test_golden_gids);
	tcase_add_test(tc, test_golden_alive);
	suite_add_tcase(s, tc);

	tc = tcase_create("header");
	tcase_add_test(tc, test_hdr_bad_magic);
	tcase_add_test(tc, test_hdr_bad_version);
	tcase_add_test(tc, test_hdr_unknown_type);
	tcase_add_loop_test(tc, test_hdr_length, 0,
			    (int)(sizeof(len_table) / sizeof(len_table[0])));
	tcase_add_test(tc, test_body_short_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("hello");
	tcase_add_loop_test(tc, test_hello_bad_field, 0, N_HELLO_BAD);
	tcase_add_loop_test(tc, test_encode_hello_bad_field, 0, N_HELLO_BAD);
	tcase_add_test(tc, test_encode_hello_set_sane);
	suite_add_tcase(s, tc);

	tc = tcase_create("addrs");
	tcase_add_test(tc, test_addrs_count_mismatch);
	tcase_add_test(tc, test_addrs_count_range);
	tcase_add_loop_test(tc, test_addrs_bad_field, 0, N_ADDR_BAD);
	tcase_add_test(tc, test_encode_addrs_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("done_error");
	tcase_add_test(tc, test_done_bad);
	tcase_add_test(tc, test_error_text_bad);
	tcase_add_test(tc, test_error_under_other_version);
	tcase_add_test(tc, test_encode_error_bad);
	tcase_add_test(tc, test_encode_unknown_type);
	tcase_add_test(tc, test_rt_gids);
	tcase_add_test(tc, test_gids_bad);
	tcase_add_test(tc, test_rt_counters);
	tcase_add_test(tc, test_counters_bad);
	tcase_add_test(tc, test_encode_enospc);
	suite_add_tcase(s, tc);

	tc = tcase_create("garbage");
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);

	return s;
}

PP_CHECK_MAIN(wire_suite)
