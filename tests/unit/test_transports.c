// SPDX-License-Identifier: MIT
/*
 * test_transports.c - the rules that are UD's or SRQ's alone: option bounds
 * of ud_pingpong and srq_pingpong, what the server adopts for them, and the
 * UD per-iteration deadline.  What test_opts.c and test_hs.c already cover
 * for every tool is not repeated here.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "caps_fixture.h"
#include "pp_hs.h"
#include "pp_opts.h"
#include "pp_run.h"

#define LL_ETH 2

#define ck_assert_err(e, want)                                              \
	ck_assert_msg(strstr((e)->msg, (want)), "'%s' not in '%s'", (want), \
		      (e)->msg)

/* ------------------------------------------------------------- options */

/* Parse @line (space-separated, at most 15 words) for @tool. */
static int parse(struct pp_opts *o, enum pp_tool tool, const char *line,
		 struct pp_err *err)
{
	static char buf[256];
	char *argv[17] = { "prog" }, *tok, *save = NULL;
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 16;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pp_opts_init(o, tool, "prog");
	pp_err_clear(err);
	return pp_opts_parse(o, argc, argv, err);
}

START_TEST(srq_qps_and_rx_depth)
{
	struct pp_opts o;
	struct pp_err err;

	/* -q 64 with the default rx depth of 500: fine */
	ck_assert_msg(parse(&o, PP_TOOL_SRQ, "-q 64", &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(o.num_qps, 64);
	ck_assert_uint_eq(o.rx_depth, 500);
	ck_assert_msg(parse(&o, PP_TOOL_SRQ, "-q 64 -r 500", &err) == 0, "%s",
		      err.msg);
	/* one receive per QP at least: -r equal to -q is the smallest */
	ck_assert_msg(parse(&o, PP_TOOL_SRQ, "-q 64 -r 64", &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(parse(&o, PP_TOOL_SRQ, "-q 64 -r 63", &err), EINVAL);
	ck_assert_err(&err, "-r/--rx-depth 63 is smaller than -q/--num-qp 64");
	/* the largest -q needs a larger -r than the default */
	ck_assert_int_eq(parse(&o, PP_TOOL_SRQ, "-q 1024", &err), EINVAL);
	ck_assert_err(&err, "-r/--rx-depth 500");
	ck_assert_err(&err, "raise -r or lower -q");
	ck_assert_msg(parse(&o, PP_TOOL_SRQ, "-q 1024 -r 1024", &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(o.num_qps, PP_MAX_QPS);
	ck_assert_int_eq(parse(&o, PP_TOOL_SRQ, "-q 1025 -r 2000", &err),
			 ERANGE);
	ck_assert_err(&err, "1..1024");
	/* the default: 16 QPs */
	ck_assert_msg(parse(&o, PP_TOOL_SRQ, "", &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(o.num_qps, 16);
	ck_assert_int_eq(o.transport, PP_TR_SRQ);
}
END_TEST

START_TEST(ud_options)
{
	struct pp_opts o;
	struct pp_err err;

	/* one QP, the MTU of the path: neither can be chosen */
	ck_assert_int_eq(parse(&o, PP_TOOL_UD, "-q 4", &err), EINVAL);
	ck_assert_err(&err, "unknown option");
	ck_assert_int_eq(parse(&o, PP_TOOL_UD, "-m 2048", &err), EINVAL);
	ck_assert_err(&err, "unknown option");
	ck_assert_msg(parse(&o, PP_TOOL_UD, "-s 1 -r 1 -c -e", &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(o.size, 1);
	ck_assert_uint_eq(o.rx_depth, 1);
	ck_assert_uint_eq(o.num_qps, 1);
	ck_assert_uint_eq(o.mtu, 0);
	/* a size above any MTU is the port's to refuse, not the parser's */
	ck_assert_msg(parse(&o, PP_TOOL_UD, "-s 8192", &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(o.size, 8192);
}
END_TEST

/* ------------------------------------------------------------ adoption */

struct side {
	struct pp_opts o;
	struct pp_port_caps caps;
	struct pp_hello h;
};

static void side_init(struct side *s, enum pp_tool tool, uint32_t active_mtu,
		      uint64_t size)
{
	pp_opts_init(&s->o, tool, "test_transports");
	s->o.size = size;
	caps_fixture(&s->caps, active_mtu);
	s->caps.xrc = false;
	pp_hello_build(&s->o, &s->caps, 1, PP_GID_TYPE_ROCE_V2, &s->h);
}

/* UD: the size must fit the path MTU, the smaller of the two active MTUs. */
static const struct {
	uint32_t cl_active, srv_active;
	uint64_t size;
	uint32_t path_mtu; /* in the answer, or named in the refusal */
	bool ok;
} ud_cases[] = {
	{ 1024, 1024, 1, 1024, true },	   { 1024, 1024, 1024, 1024, true },
	{ 1024, 1024, 1025, 1024, false }, { 4096, 1024, 1024, 1024, true },
	{ 4096, 1024, 1025, 1024, false }, { 1024, 4096, 1024, 1024, true },
	{ 1024, 4096, 1025, 1024, false }, { 4096, 4096, 4096, 4096, true },
	{ 4096, 4096, 4097, 4096, false }, { 256, 2048, 257, 256, false },
};

START_TEST(ud_size_against_path_mtu)
{
	struct side srv, cl;
	struct pp_hello agreed;
	struct pp_err err;
	char want[128];
	int rc;

	side_init(&srv, PP_TOOL_UD, ud_cases[_i].srv_active, 1024);
	side_init(&cl, PP_TOOL_UD, ud_cases[_i].cl_active, ud_cases[_i].size);
	rc = pp_hello_adopt(&srv.o, &srv.caps, &srv.h, &cl.h, &agreed, &err);
	if (ud_cases[_i].ok) {
		ck_assert_msg(rc == 0, "%s", err.msg);
		ck_assert_uint_eq(agreed.transport, PP_TR_UD);
		ck_assert_uint_eq(agreed.size, ud_cases[_i].size);
		ck_assert_uint_eq(agreed.mtu, ud_cases[_i].path_mtu);
		ck_assert_uint_eq(agreed.num_qps, 1);
		/* and the client accepts the answer on its own port */
		ck_assert_msg(pp_hello_check(&agreed, &cl.caps, &err) == 0,
			      "%s", err.msg);
		return;
	}
	ck_assert_int_eq(rc, EINVAL);
	snprintf(
		want, sizeof(want),
		"size: %llu is larger than the MTU %u (UD messages must fit in one MTU; use -s %u or less)",
		(unsigned long long)ud_cases[_i].size, ud_cases[_i].path_mtu,
		ud_cases[_i].path_mtu);
	ck_assert_str_eq(err.msg, want);
	ck_assert(!err.remote);
}
END_TEST

/* An explicit -s on a UD server is compared before the MTU is. */
START_TEST(ud_server_size_explicit)
{
	struct side srv, cl;
	struct pp_hello agreed;
	struct pp_err err;

	side_init(&srv, PP_TOOL_UD, 1024, 512);
	srv.o.set |= PP_OPT_BIT(PP_OPT_SIZE);
	side_init(&cl, PP_TOOL_UD, 1024, 2048);
	ck_assert_int_eq(pp_hello_adopt(&srv.o, &srv.caps, &srv.h, &cl.h,
					&agreed, &err),
			 EINVAL);
	ck_assert_str_eq(err.msg, "size: client 2048, server 512");
	side_init(&cl, PP_TOOL_UD, 1024, 512);
	ck_assert_msg(pp_hello_adopt(&srv.o, &srv.caps, &srv.h, &cl.h, &agreed,
				     &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(agreed.size, 512);
}
END_TEST

START_TEST(srq_adopts_qps_and_depth)
{
	static const uint32_t qps[] = { 1, 16, 64 };
	struct side srv, cl;
	struct pp_hello agreed;
	struct pp_err err;
	size_t i;

	for (i = 0; i < sizeof(qps) / sizeof(qps[0]); i++) {
		side_init(&srv, PP_TOOL_SRQ, 1024, 4096);
		side_init(&cl, PP_TOOL_SRQ, 1024, 4096);
		cl.h.num_qps = qps[i];
		cl.h.rx_depth = 2 * qps[i];
		cl.h.flags = PP_F_VALIDATE;
		ck_assert_msg(pp_hello_adopt(&srv.o, &srv.caps, &srv.h, &cl.h,
					     &agreed, &err) == 0,
			      "%s", err.msg);
		ck_assert_uint_eq(agreed.transport, PP_TR_SRQ);
		ck_assert_uint_eq(agreed.num_qps, qps[i]);
		ck_assert_uint_eq(agreed.rx_depth, 2 * qps[i]);
		/* RoCE: both sides have a GID, so both use a GRH */
		ck_assert_uint_eq(agreed.flags, PP_F_VALIDATE | PP_F_GRH);
		/* SRQ messages are RC messages: larger than the MTU is fine */
		ck_assert_uint_eq(agreed.size, 4096);
	}
	/* the SRQ holds -r receives: the device's SRQ limit applies */
	side_init(&srv, PP_TOOL_SRQ, 1024, 4096);
	srv.caps.max_srq_wr = 100;
	side_init(&cl, PP_TOOL_SRQ, 1024, 4096);
	ck_assert_int_eq(pp_hello_adopt(&srv.o, &srv.caps, &srv.h, &cl.h,
					&agreed, &err),
			 EINVAL);
	ck_assert_err(&err, "rx depth: 500 asked, device rxe0 max SRQ WRs 100");
	/* an srq client against a ud server */
	side_init(&srv, PP_TOOL_UD, 1024, 1024);
	ck_assert_int_eq(pp_hello_adopt(&srv.o, &srv.caps, &srv.h, &cl.h,
					&agreed, &err),
			 EINVAL);
	ck_assert_str_eq(
		err.msg,
		"transport binary: client srq_pingpong, server ud_pingpong");
}
END_TEST

/* ------------------------------------------------------------ UD loss */

START_TEST(ud_loss_deadline)
{
	/* a fifth of -T, at most 1 s, at least 1 ms */
	ck_assert_int_eq(pp_run_loss_timeout_ms(5000), 1000);
	ck_assert_int_eq(pp_run_loss_timeout_ms(3600000), 1000);
	ck_assert_int_eq(pp_run_loss_timeout_ms(1000), 200);
	ck_assert_int_eq(pp_run_loss_timeout_ms(3000), 600);
	ck_assert_int_eq(pp_run_loss_timeout_ms(4), 1);
	ck_assert_int_eq(pp_run_loss_timeout_ms(0), 1);
	/* always shorter than the run's no-progress timeout */
	for (int t = 1000; t <= 3600000; t += 1000)
		ck_assert_int_lt(pp_run_loss_timeout_ms(t), t);
}
END_TEST

static Suite *transports_suite(void)
{
	Suite *s = suite_create("transports");
	TCase *tc = tcase_create("ud_srq");

	tcase_add_test(tc, srq_qps_and_rx_depth);
	tcase_add_test(tc, ud_options);
	tcase_add_loop_test(tc, ud_size_against_path_mtu, 0,
			    (int)(sizeof(ud_cases) / sizeof(ud_cases[0])));
	tcase_add_test(tc, ud_server_size_explicit);
	tcase_add_test(tc, srq_adopts_qps_and_depth);
	tcase_add_test(tc, ud_loss_deadline);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(transports_suite)
