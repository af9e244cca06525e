// SPDX-License-Identifier: MIT
/*
 * test_explain.c - pp_explain: every failed completion status has a cause
 * an engineer can act on, and the ones users meet most say the right thing.
 */
#include <check.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_explain.h"

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
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(suite)
