// SPDX-License-Identifier: MIT
/*
 * test_transport.c - the transport table: one row per transport, in the
 * order of the enum, each with the facts the modules read from it.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_op.h"
#include "pp_transport.h"

START_TEST(test_rows_in_enum_order)
{
	unsigned int t;

	for (t = PP_TR_FIRST; t <= PP_TR_LAST; t++) {
		const struct pp_transport_desc *d = pp_transport_get(t);

		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(d->id, t);
		ck_assert_ptr_eq(pp_transport_of(t), d);
		ck_assert(pp_tool_valid(d->tool));
		ck_assert_uint_ge(d->default_qps, 1);
		ck_assert(d->ops & PP_OP_BIT(PP_OP_SEND));
		/* every QP takes INIT, RTR and RTS, in that state */
		ck_assert(d->mask[PP_QP_INIT] & IBV_QP_STATE);
		ck_assert(d->mask[PP_QP_RTR] & IBV_QP_STATE);
		ck_assert(d->mask[PP_QP_RTS] & IBV_QP_SQ_PSN);
	}
	ck_assert_ptr_null(pp_transport_get(0));
	ck_assert_ptr_null(pp_transport_get(PP_TR_LAST + 1));
	ck_assert_ptr_null(pp_transport_get(255));
	ck_assert_uint_eq(pp_transport_of(0)->id, PP_TR_RC);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(pp_transport_name(PP_TR_RC), "rc");
	ck_assert_str_eq(pp_transport_name(PP_TR_UC), "uc");
	ck_assert_str_eq(pp_transport_name(PP_TR_UD), "ud");
	ck_assert_str_eq(pp_transport_name(PP_TR_SRQ), "srq");
	ck_assert_str_eq(pp_transport_name(PP_TR_XRC), "xrc");
	ck_assert_str_eq(pp_transport_name((enum pp_transport)0), "unknown");
	ck_assert_str_eq(pp_transport_name((enum pp_transport)9), "unknown");
	ck_assert_str_eq(pp_transport_name((enum pp_transport)99), "unknown");
	ck_assert_str_eq(pp_transport_of(PP_TR_XRC)->stock_tool,
			 "ibv_xsrq_pingpong");
	ck_assert_str_eq(pp_transport_of(PP_TR_UC)->stock_tool,
			 "ibv_uc_pingpong");
	ck_assert_str_eq(pp_tool_name(PP_TOOL_SRQ), "srq_pingpong");
	ck_assert_str_eq(pp_tool_name((enum pp_tool)0), "unknown");
	ck_assert_str_eq(pp_tool_name((enum pp_tool)5), "unknown");
}
END_TEST

START_TEST(test_tools)
{
	ck_assert_uint_eq(pp_transport_of_tool(PP_TOOL_RC), PP_TR_RC);
	ck_assert_uint_eq(pp_transport_of_tool(PP_TOOL_UD), PP_TR_UD);
	ck_assert_uint_eq(pp_transport_of_tool(PP_TOOL_SRQ), PP_TR_SRQ);
	ck_assert_uint_eq(pp_transport_of_tool(PP_TOOL_XRC), PP_TR_XRC);
	/* rc_pingpong runs UC too (--uc) */
	ck_assert_uint_eq(pp_transport_of(PP_TR_UC)->tool, PP_TOOL_RC);
	ck_assert_uint_eq(pp_transport_of(PP_TR_SRQ)->default_qps, 16);
	ck_assert_uint_eq(pp_transport_of(PP_TR_XRC)->default_qps, 1);
}
END_TEST

START_TEST(test_facts)
{
	const struct pp_transport_desc *ud = pp_transport_of(PP_TR_UD);
	const struct pp_transport_desc *uc = pp_transport_of(PP_TR_UC);
	const struct pp_transport_desc *xrc = pp_transport_of(PP_TR_XRC);
	const struct pp_transport_desc *srq = pp_transport_of(PP_TR_SRQ);

	ck_assert(ud->lossy && ud->datagram && !ud->reliable);
	ck_assert_int_eq(ud->qp_type, IBV_QPT_UD);
	ck_assert_uint_eq(ud->ops, PP_OP_BIT(PP_OP_SEND));
	ck_assert(!uc->reliable && uc->lossy);
	ck_assert_uint_eq(uc->ops, PP_OP_BIT(PP_OP_SEND) |
					   PP_OP_BIT(PP_OP_WRITE) |
					   PP_OP_BIT(PP_OP_WRITE_IMM));
	ck_assert(srq->srq && !srq->xrc && srq->reliable);
	ck_assert(xrc->srq && xrc->xrc && xrc->reliable);
	ck_assert_int_eq(xrc->qp_type, IBV_QPT_XRC_SEND);
	ck_assert(pp_transport_of(PP_TR_RC)->ops & PP_OP_BIT(PP_OP_FETCH_ADD));
	ck_assert(pp_transport_of(PP_TR_RC)->ops & PP_OP_BIT(PP_OP_CMP_SWAP));
	ck_assert(pp_transport_of(PP_TR_RC)->ops & PP_OP_BIT(PP_OP_READ));
	ck_assert_int_eq(srq->stock_xchg, PP_STOCK_SRQ_RECS);
	ck_assert_int_eq(xrc->stock_xchg, PP_STOCK_XRC_REC);
	ck_assert_int_eq(ud->stock_xchg, PP_STOCK_REC);
}
END_TEST

START_TEST(test_masks)
{
	const struct pp_transport_desc *ud = pp_transport_of(PP_TR_UD);
	const struct pp_transport_desc *rc = pp_transport_of(PP_TR_RC);
	const struct pp_transport_desc *uc = pp_transport_of(PP_TR_UC);
	const struct pp_transport_desc *xrc = pp_transport_of(PP_TR_XRC);

	ck_assert(ud->mask[PP_QP_INIT] & IBV_QP_QKEY);
	ck_assert(!(ud->mask[PP_QP_INIT] & IBV_QP_ACCESS_FLAGS));
	ck_assert_int_eq(ud->mask[PP_QP_RTR], IBV_QP_STATE);
	ck_assert(rc->mask[PP_QP_RTR] & IBV_QP_MIN_RNR_TIMER);
	ck_assert(!(uc->mask[PP_QP_RTR] & IBV_QP_MIN_RNR_TIMER));
	ck_assert(!(uc->mask[PP_QP_RTS] & IBV_QP_RETRY_CNT));
	/* XRC: the send QP has no responder, the receive QP no send queue */
	ck_assert(!(xrc->mask[PP_QP_RTR] & IBV_QP_MAX_DEST_RD_ATOMIC));
	ck_assert(xrc->recv_mask[PP_QP_RTR] & IBV_QP_MAX_DEST_RD_ATOMIC);
	ck_assert_int_eq(xrc->recv_mask[PP_QP_RTS],
			 IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT);
	ck_assert_int_eq(rc->recv_mask[PP_QP_RTS], 0);
}
END_TEST

/* The operations each transport carries, and an atomic's size. */
START_TEST(transport_rules)
{
	static const struct {
		enum pp_transport tr;
		enum pp_op op;
		const char *refusal; /* NULL: allowed */
	} rows[] = {
		{ PP_TR_RC, PP_OP_SEND, NULL },
		{ PP_TR_RC, PP_OP_WRITE, NULL },
		{ PP_TR_RC, PP_OP_READ, NULL },
		{ PP_TR_RC, PP_OP_CMP_SWAP, NULL },
		{ PP_TR_UC, PP_OP_WRITE, NULL },
		{ PP_TR_UC, PP_OP_WRITE_IMM, NULL },
		{ PP_TR_UC, PP_OP_READ,
		  "--op read: not on uc: an unreliable connection carries Send and RDMA Write only (no RDMA Read or atomics on UC)" },
		{ PP_TR_UC, PP_OP_FETCH_ADD, "--op fetch-add: not on uc: " },
		{ PP_TR_UD, PP_OP_SEND, NULL },
		{ PP_TR_UD, PP_OP_WRITE,
		  "--op write: not on ud: a datagram transport carries Send only (no remote memory access on UD)" },
		{ PP_TR_UD, PP_OP_READ, "--op read: not on ud: " },
		{ PP_TR_SRQ, PP_OP_READ, NULL },
		{ PP_TR_XRC, PP_OP_WRITE_IMM, NULL },
	};
	char buf[256];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t size = pp_op_atomic(rows[i].op) ? 8 : 4096;
		int ret = pp_transport_op_check(pp_transport_of(rows[i].tr),
						rows[i].op, size, false, buf,
						sizeof(buf));

		if (!rows[i].refusal) {
			ck_assert_msg(!ret, "row %zu refused: %s", i, buf);
			continue;
		}
		ck_assert_int_eq(ret, EINVAL);
		ck_assert_msg(!strncmp(buf, rows[i].refusal,
				       strlen(rows[i].refusal)),
			      "row %zu: '%s'", i, buf);
	}
	ck_assert_int_eq(pp_transport_op_check(pp_transport_of(PP_TR_RC),
					       PP_OP_LAST + 1, 8, false, buf,
					       sizeof(buf)),
			 EINVAL);
	ck_assert_ptr_nonnull(strstr(buf, "unknown operation"));
}
END_TEST

START_TEST(atomic_size)
{
	const struct pp_transport_desc *rc = pp_transport_of(PP_TR_RC);
	char buf[256];

	ck_assert_int_eq(pp_transport_op_check(rc, PP_OP_FETCH_ADD, 8, false,
					       buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(pp_transport_op_check(rc, PP_OP_FETCH_ADD, 4, false,
					       buf, sizeof(buf)),
			 EINVAL);
	ck_assert_str_eq(
		buf,
		"--op fetch-add: an atomic works on one aligned 8-byte word: use -s 8 (asked -s 4)");
	ck_assert_int_eq(pp_transport_op_check(rc, PP_OP_CMP_SWAP, 8, true, buf,
					       sizeof(buf)),
			 EINVAL);
	ck_assert_ptr_nonnull(strstr(buf, "use -s 8 without -a"));
	/* other operations take any size */
	ck_assert_int_eq(pp_transport_op_check(rc, PP_OP_READ, 1, true, buf,
					       sizeof(buf)),
			 0);
}
END_TEST

static Suite *transport_suite(void)
{
	Suite *s = suite_create("transport");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_rows_in_enum_order);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_tools);
	tcase_add_test(tc, test_facts);
	tcase_add_test(tc, test_masks);
	tcase_add_test(tc, transport_rules);
	tcase_add_test(tc, atomic_size);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(transport_suite)
