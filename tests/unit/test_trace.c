// SPDX-License-Identifier: MIT
/*
 * test_trace.c - pp_trace: the exact text of --trace for the transitions
 * pp_qp_attr() builds, the mask names, and that an off trace writes nothing.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_qp.h"
#include "pp_trace.h"

/* A clock that steps through fixed times, in ns. */
static const int64_t ticks[] = { 1234000, 1354000, 2000000, 2500600 };
static unsigned int tick;

static int64_t fake_clock(void)
{
	return ticks[tick < 4 ? tick++ : 3];
}

struct sink {
	char *text;
	size_t len;
	FILE *f;
};

static void trace_start(struct pp_trace *tr, struct sink *s)
{
	s->text = NULL;
	s->f = open_memstream(&s->text, &s->len);
	ck_assert_ptr_nonnull(s->f);
	pp_trace_init(tr, s->f);
	ck_assert(tr->on);
	tr->clock = fake_clock;
	tr->t0 = 0;
	tr->last = 1114000;
	tick = 0;
}

/* Close the stream; the text is the caller's to free. */
static char *trace_text(struct sink *s)
{
	fclose(s->f);
	return s->text;
}

static void remote_init(struct pp_addr *r)
{
	*r = (struct pp_addr){ .lid = 0, .qpn = 0x12, .psn = 0xabcdef };
	ck_assert_int_eq(inet_pton(AF_INET6, "::ffff:10.99.0.1", r->gid), 1);
}

static const struct pp_qp_cfg rc_roce = {
	.transport = PP_TR_RC,
	.ib_port = 1,
	.path_mtu = 1024,
	.sl = 0,
	.use_grh = true,
	.sgid_index = 1,
	.hop_limit = 64,
	.traffic_class = 0x6a,
	.flow_label = 0xabcde,
	.qp_timeout = PP_DEFAULT_QP_TIMEOUT,
	.retry_count = PP_DEFAULT_RETRY_COUNT,
	.rnr_retry = PP_DEFAULT_RNR_RETRY,
};

START_TEST(rc_rtr)
{
	struct ibv_qp_attr attr;
	struct pp_trace tr;
	struct pp_addr remote;
	struct sink s;
	char *text;
	int mask;

	/* the server of a read: it answers one RDMA Read at a time */
	struct pp_qp_cfg cfg = rc_roce;

	cfg.op = PP_OP_READ;
	cfg.is_server = true;
	remote_init(&remote);
	mask = pp_qp_attr(&cfg, PP_QP_RTR, 0x123456, &remote, &attr);
	trace_start(&tr, &s);
	pp_trace_qp(&tr, 0x11, pp_qp_step_name(PP_QP_RTR), &attr, mask);
	text = trace_text(&s);
	ck_assert_str_eq(
		text,
		"[   1.234 ms +0.120] modify QP 0x000011 to RTR\n"
		"    qp_state                  RTR\n"
		"    ah_attr.dlid              0x0000\n"
		"    ah_attr.sl                0\n"
		"    ah_attr.src_path_bits     0\n"
		"    ah_attr.static_rate       0\n"
		"    ah_attr.port_num          1\n"
		"    ah_attr.is_global         1 (a GRH in every packet)\n"
		"    ah_attr.grh.dgid          ::ffff:10.99.0.1\n"
		"    ah_attr.grh.sgid_index    1\n"
		"    ah_attr.grh.hop_limit     64\n"
		"    ah_attr.grh.traffic_class 106\n"
		"    ah_attr.grh.flow_label    0xabcde\n"
		"    path_mtu                  1024 bytes (IBV_MTU_1024)\n"
		"    rq_psn                    0xabcdef\n"
		"    min_rnr_timer             12 (0.64 ms)\n"
		"    max_dest_rd_atomic        1\n"
		"    dest_qp_num               0x000012\n"
		"    mask                      IBV_QP_STATE|IBV_QP_AV|IBV_QP_PATH_MTU|IBV_QP_RQ_PSN|IBV_QP_MIN_RNR_TIMER|IBV_QP_MAX_DEST_RD_ATOMIC|IBV_QP_DEST_QPN\n");
	free(text);
}
END_TEST

START_TEST(rc_rts)
{
	struct ibv_qp_attr attr;
	struct pp_trace tr;
	struct sink s;
	char *text;
	int mask;

	/* the client of a read: one RDMA Read outstanding */
	struct pp_qp_cfg cfg = rc_roce;

	cfg.op = PP_OP_READ;
	mask = pp_qp_attr(&cfg, PP_QP_RTS, 0x123456, NULL, &attr);
	trace_start(&tr, &s);
	pp_trace_qp(&tr, 0x11, pp_qp_step_name(PP_QP_RTS), &attr, mask);
	text = trace_text(&s);
	ck_assert_str_eq(
		text,
		"[   1.234 ms +0.120] modify QP 0x000011 to RTS\n"
		"    qp_state                  RTS\n"
		"    timeout                   14 (4.096 us * 2^14 = 67.1 ms)\n"
		"    retry_cnt                 7\n"
		"    rnr_retry                 7 (infinite)\n"
		"    max_rd_atomic             1\n"
		"    sq_psn                    0x123456\n"
		"    mask                      IBV_QP_STATE|IBV_QP_TIMEOUT|IBV_QP_RETRY_CNT|IBV_QP_RNR_RETRY|IBV_QP_MAX_QP_RD_ATOMIC|IBV_QP_SQ_PSN\n");
	free(text);
}
END_TEST

/* -u 10 --retry-count 1 --rnr-retry 3: the RTS attributes that --trace shows. */
START_TEST(rc_rts_chosen)
{
	struct ibv_qp_attr attr;
	struct pp_trace tr;
	struct sink s;
	char *text;
	int mask;
	struct pp_qp_cfg cfg = rc_roce;

	cfg.qp_timeout = 10;
	cfg.retry_count = 1;
	cfg.rnr_retry = 3;
	mask = pp_qp_attr(&cfg, PP_QP_RTS, 0x123456, NULL, &attr);
	ck_assert_uint_eq(attr.timeout, 10);
	ck_assert_uint_eq(attr.retry_cnt, 1);
	ck_assert_uint_eq(attr.rnr_retry, 3);
	trace_start(&tr, &s);
	pp_trace_qp(&tr, 0x11, pp_qp_step_name(PP_QP_RTS), &attr, mask);
	text = trace_text(&s);
	ck_assert_str_eq(
		text,
		"[   1.234 ms +0.120] modify QP 0x000011 to RTS\n"
		"    qp_state                  RTS\n"
		"    timeout                   10 (4.096 us * 2^10 = 4.2 ms)\n"
		"    retry_cnt                 1\n"
		"    rnr_retry                 3\n"
		"    max_rd_atomic             0\n"
		"    sq_psn                    0x123456\n"
		"    mask                      IBV_QP_STATE|IBV_QP_TIMEOUT|IBV_QP_RETRY_CNT|IBV_QP_RNR_RETRY|IBV_QP_MAX_QP_RD_ATOMIC|IBV_QP_SQ_PSN\n");
	free(text);
	/* -u 0: no timeout at all */
	cfg.qp_timeout = 0;
	pp_qp_attr(&cfg, PP_QP_RTS, 0x123456, NULL, &attr);
	ck_assert_uint_eq(attr.timeout, 0);
}
END_TEST

START_TEST(ud_init)
{
	struct pp_qp_cfg cfg = { .transport = PP_TR_UD, .ib_port = 1 };
	struct ibv_qp_attr attr;
	struct pp_trace tr;
	struct sink s;
	char *text;
	int mask;

	mask = pp_qp_attr(&cfg, PP_QP_INIT, 0, NULL, &attr);
	trace_start(&tr, &s);
	pp_trace_qp(&tr, 0x2a, pp_qp_step_name(PP_QP_INIT), &attr, mask);
	text = trace_text(&s);
	ck_assert_str_eq(
		text,
		"[   1.234 ms +0.120] modify QP 0x00002a to INIT\n"
		"    qp_state                  INIT\n"
		"    pkey_index                0\n"
		"    port_num                  1\n"
		"    qkey                      0x11111111\n"
		"    mask                      IBV_QP_STATE|IBV_QP_PKEY_INDEX|IBV_QP_PORT|IBV_QP_QKEY\n");
	free(text);
}
END_TEST

/* What pp_qp_attr() never sets, decoded all the same. */
START_TEST(decode_other)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_READ,
		.path_mtu = 9,
		.timeout = 0,
		.rnr_retry = 6,
		.min_rnr_timer = 0,
		.ah_attr = { .dlid = 0x1b, .sl = 3, .port_num = 2 },
	};
	int mask = IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_TIMEOUT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER;
	struct pp_trace tr;
	struct sink s;
	char *text;

	trace_start(&tr, &s);
	pp_trace_qp(&tr, 0xffffff, "INIT", &attr, mask);
	text = trace_text(&s);
	ck_assert_str_eq(
		text,
		"[   1.234 ms +0.120] modify QP 0xffffff to INIT\n"
		"    qp_access_flags           0x5 (IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_READ)\n"
		"    ah_attr.dlid              0x001b\n"
		"    ah_attr.sl                3\n"
		"    ah_attr.src_path_bits     0\n"
		"    ah_attr.static_rate       0\n"
		"    ah_attr.port_num          2\n"
		"    ah_attr.is_global         0 (no GRH)\n"
		"    path_mtu                  9 (not an IB MTU)\n"
		"    timeout                   0 (infinite)\n"
		"    rnr_retry                 6\n"
		"    min_rnr_timer             0 (655.36 ms)\n"
		"    mask                      IBV_QP_ACCESS_FLAGS|IBV_QP_AV|IBV_QP_PATH_MTU|IBV_QP_TIMEOUT|IBV_QP_RNR_RETRY|IBV_QP_MIN_RNR_TIMER\n");
	free(text);
}
END_TEST

START_TEST(steps_and_msgs)
{
	struct pp_trace tr;
	struct sink s;
	char *text;

	trace_start(&tr, &s);
	pp_trace_step(&tr, "open device %s", "rxe0");
	pp_trace_msg(&tr, "sent", "HELLO", 76);
	pp_trace_msg(&tr, "received", "HELLO", 76);
	pp_trace_step(&tr, "GID index %d", 1);
	text = trace_text(&s);
	ck_assert_str_eq(text,
			 "[   1.234 ms +0.120] open device rxe0\n"
			 "[   1.354 ms +0.120] sent HELLO (76 bytes)\n"
			 "[   2.000 ms +0.646] received HELLO (76 bytes)\n"
			 "[   2.501 ms +0.501] GID index 1\n");
	free(text);
}
END_TEST

START_TEST(mask_names)
{
	char buf[256], small[20];

	ck_assert_str_eq(pp_trace_mask_names(0, buf, sizeof(buf)), "0");
	ck_assert_str_eq(pp_trace_mask_names(IBV_QP_STATE, buf, sizeof(buf)),
			 "IBV_QP_STATE");
	ck_assert_str_eq(pp_trace_mask_names(IBV_QP_DEST_QPN | IBV_QP_STATE |
						     IBV_QP_RATE_LIMIT,
					     buf, sizeof(buf)),
			 "IBV_QP_STATE|IBV_QP_DEST_QPN|IBV_QP_RATE_LIMIT");
	ck_assert_str_eq(pp_trace_mask_names(IBV_QP_CAP | (1 << 30), buf,
					     sizeof(buf)),
			 "IBV_QP_CAP|0x40000000");
	ck_assert_str_eq(pp_trace_mask_names(1 << 29, buf, sizeof(buf)),
			 "0x20000000");
	/* Cut, never overrun. */
	pp_trace_mask_names(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU, small,
			    sizeof(small));
	ck_assert_uint_lt(strlen(small), sizeof(small));
	ck_assert(!strncmp(small, "IBV_QP_STATE|IBV_QP", 19));
}
END_TEST

START_TEST(off_writes_nothing)
{
	struct ibv_qp_attr attr;
	struct pp_trace tr;
	struct pp_addr remote;
	struct sink s;
	char *text;
	int mask;

	remote_init(&remote);
	mask = pp_qp_attr(&rc_roce, PP_QP_RTR, 1, &remote, &attr);
	/* No FILE: off. */
	pp_trace_init(&tr, NULL);
	ck_assert(!tr.on);
	pp_trace_step(&tr, "x");
	pp_trace_qp(&tr, 1, "RTR", &attr, mask);
	pp_trace_msg(&tr, "sent", "HELLO", 76);
	/* A FILE, but switched off: nothing reaches it either. */
	trace_start(&tr, &s);
	tr.on = false;
	pp_trace_step(&tr, "open device %s", "rxe0");
	pp_trace_qp(&tr, 1, "RTR", &attr, mask);
	pp_trace_msg(&tr, "sent", "HELLO", 76);
	text = trace_text(&s);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_str_eq(text, "");
	ck_assert_uint_eq(tick, 0); /* not even the clock was read */
	free(text);
	/* A NULL trace is off too. */
	pp_trace_step(NULL, "x");
	pp_trace_qp(NULL, 1, "RTR", &attr, mask);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("qp");

	tcase_add_test(tc, rc_rtr);
	tcase_add_test(tc, rc_rts);
	tcase_add_test(tc, rc_rts_chosen);
	tcase_add_test(tc, ud_init);
	tcase_add_test(tc, decode_other);
	suite_add_tcase(s, tc);
	tc = tcase_create("sink");
	tcase_add_test(tc, steps_and_msgs);
	tcase_add_test(tc, mask_names);
	tcase_add_test(tc, off_writes_nothing);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(trace_suite)
