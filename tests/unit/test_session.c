// SPDX-License-Identifier: MIT
/*
 * test_session.c - pp_session's steps that need no device: what a
 * --persistent server keeps and what it forgets between two clients, and
 * how many clients pp_serve() runs (--clients).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_interop.h"
#include "pp_mesh.h"
#include "pp_time.h"
#include "pp_serve.h"
#include "pp_session.h"

static struct pp_opts o;
static struct pp_session s;

/* A server that served a client on GID 3, chosen for it, with a GRH. */
static void served_one(int gid_opt)
{
	pp_opts_init(&o, PP_TOOL_RC, "rc_pingpong");
	o.gid_index = gid_opt;
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.lfd = -1;
	s.stock_fd = -1;
	s.conn.fd = -1;
	s.conn.is_server = true;
	s.gid_index = 3;
	memset(s.gid, 0xab, sizeof(s.gid));
	s.gid_type = PP_GID_TYPE_ROCE_V2;
	s.gid_auto = gid_opt < 0;
	strcpy(s.gid_reason,
	       "GID index 3: RoCE v2, 10.0.0.1 (asked by the client)");
	s.use_grh = true;
	strcpy(s.grh_why, "both sides have a GID");
}

/* The agreed -u, --retry-count, --rnr-retry reach the QPs' RTS attributes. */
/*
 * A mesh pair's bound grows with the bytes moved as well as the
 * iterations, and a bound at its cap still gives a deadline in the future.
 */
START_TEST(mesh_pair_bound)
{
	struct pp_opts mo;

	pp_opts_init(&mo, PP_TOOL_RC, "rc_pingpong");
	mo.timeout_ms = 5000;
	mo.iters = 1000;
	mo.warmup = 0;
	mo.size = 4096;
	ck_assert_uint_eq(pp_mesh_pair_bound_ms(&mo), 31000);
	mo.warmup = 100; /* warm-up iterations count too */
	ck_assert_uint_eq(pp_mesh_pair_bound_ms(&mo), 31100);
	/* -s 16M -n 100000: 100,000 x (1 ms + 32 MiB at 100 MB/s) */
	mo.warmup = 0;
	mo.size = 16 << 20;
	mo.iters = 100000;
	ck_assert_uint_eq(pp_mesh_pair_bound_ms(&mo),
			  100000ULL * (1 + 2 * (16 << 20) / 100000) + 30000);
	/* -n 100000000 -a: capped, and the deadline stays ahead */
	mo.size = 8 << 20;
	mo.iters = 100000000;
	mo.sweep = true;
	ck_assert_uint_eq(pp_mesh_pair_bound_ms(&mo), UINT32_MAX / 2);
	{
		/* a finite deadline about 24.9 days ahead, not "none" */
		int64_t now = pp_now_ns();
		int64_t d = pp_deadline_ms(
			(uint64_t)pp_mesh_pair_bound_ms(&mo) + 5000);

		ck_assert(d != INT64_MAX);
		ck_assert(d > now + 2147480000LL * 1000000);
		ck_assert(d < now + 2147500000LL * 1000000);
	}
}
END_TEST

START_TEST(qp_cfg_follows_agreed)
{
	static const struct pp_exchange plain = { 0 };
	struct ibv_qp_attr a;
	struct pp_qp_cfg c;

	served_one(-1);
	s.x = &plain;
	s.caps.ib_port = 1;
	s.agreed = (struct pp_hello){
		.tool = PP_TOOL_RC,
		.transport = PP_TR_RC,
		.mtu = 1024,
		.sl = 2,
		.hop_limit = 64,
		.qp_timeout = 10,
		.retry_count = 1,
		.rnr_retry = 0,
	};
	pp_session_qp_cfg(&s, &c);
	ck_assert_uint_eq(c.qp_timeout, 10);
	ck_assert_uint_eq(c.retry_count, 1);
	ck_assert_uint_eq(c.rnr_retry, 0);
	ck_assert_uint_eq(c.path_mtu, 1024);
	ck_assert_uint_eq(c.sl, 2);
	ck_assert(c.use_grh);
	ck_assert_uint_eq(c.sgid_index, 3);
	ck_assert(pp_qp_attr(&c, PP_QP_RTS, 1, NULL, &a) & IBV_QP_TIMEOUT);
	ck_assert_uint_eq(a.timeout, 10);
	ck_assert_uint_eq(a.retry_cnt, 1);
	ck_assert_uint_eq(a.rnr_retry, 0);
}
END_TEST

/* No -g: the next client's GID is chosen anew, from nothing. */
START_TEST(end_client_forgets_gid)
{
	static const uint8_t zero[16];

	served_one(-1);
	pp_session_end_client(&s);
	ck_assert_int_eq(s.gid_index, -1);
	ck_assert_mem_eq(s.gid, zero, sizeof(zero));
	ck_assert_uint_eq(s.gid_type, PP_GID_TYPE_NONE);
	ck_assert(!s.gid_auto);
	ck_assert_str_eq(s.gid_reason, "");
	ck_assert(!s.use_grh);
	ck_assert_str_eq(s.grh_why, "");
}
END_TEST

/* -g: the GID stays the one given, for every client. */
START_TEST(end_client_keeps_given_gid)
{
	served_one(3);
	pp_session_end_client(&s);
	ck_assert_int_eq(s.gid_index, 3);
	ck_assert_uint_eq(s.gid[0], 0xab);
	ck_assert_uint_eq(s.gid_type, PP_GID_TYPE_ROCE_V2);
	ck_assert(!s.use_grh); /* decided again with each client */
}
END_TEST

/*
 * UD: the server's "abandoned wait" is half the client's loss deadline,
 * which follows the client's -T (HELLO), whatever the server's own -T:
 * both orders of a server with -T 5 and a client with -T 1.
 */
static void ud_run(bool is_server, uint32_t own_ms, uint32_t client_ms,
		   struct pp_run_cfg *rc)
{
	pp_opts_init(&o, PP_TOOL_UD, "ud_pingpong");
	o.timeout_ms = own_ms;
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.conn.is_server = is_server;
	s.agreed.transport = PP_TR_UD;
	s.agreed.iters = 10;
	s.agreed.timeout_ms = client_ms;
	pp_session_run_cfg(&s, rc);
}

START_TEST(abandoned_wait_follows_client)
{
	struct pp_run_cfg rc;

	/* server -T 5, client -T 1: 1000 / 5 = 200 ms, half of it 100 ms */
	ud_run(true, 5000, 1000, &rc);
	ck_assert_int_eq(rc.loss_timeout_ms, 200);
	ck_assert_int_eq(rc.timeout_ms, 5000); /* its own no-progress bound */
	/* server -T 1, client -T 5: 5000 / 5 = 1000 ms */
	ud_run(true, 1000, 5000, &rc);
	ck_assert_int_eq(rc.loss_timeout_ms, 1000);
	/* the client: its own */
	ud_run(false, 1000, 1000, &rc);
	ck_assert_int_eq(rc.loss_timeout_ms, 200);
	/* RC loses nothing */
	ud_run(true, 5000, 1000, &rc);
	s.agreed.transport = PP_TR_RC;
	pp_session_run_cfg(&s, &rc);
	ck_assert_int_eq(rc.loss_timeout_ms, 0);
	/* the passive server's deadline (ALIVE) is the client's -T too */
	ck_assert_int_eq(rc.client_timeout_ms, 1000);
	ck_assert_int_eq(rc.timeout_ms, 5000);
}
END_TEST

/* --- pp_serve(): --clients, over an exchange that accepts late ------ */

/* The stock exchange's shape: pp_serve() leaves the accept to the run. */
static const struct pp_exchange late = { .accepts_late = true };

static int outcome[8]; /* what each client's run returns, in turn */
static unsigned int runs, reports;
static bool dirty; /* a run found the previous client's leftovers */

static bool no_client; /* the runs fail before their accept */

static int fake_run(struct pp_session *ss)
{
	if (ss->peer_addr[0] || ss->nresults)
		dirty = true;
	if (!no_client)
		snprintf(ss->peer_addr, sizeof(ss->peer_addr), "10.0.0.%u:4000",
			 runs + 1);
	ss->nresults = 0;
	return outcome[runs++];
}

static int fake_report(struct pp_session *ss, int ret)
{
	(void)ss;
	reports++;
	return ret;
}

/*
 * pp_serve() on a server with --clients @n (0: not given), the clients'
 * outcomes in outcome[], what it printed to stdout into @line.
 */
static int serve(uint32_t n, char *line, size_t len)
{
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t got;

	ck_assert_ptr_nonnull(tmp);
	pp_opts_init(&o, PP_TOOL_XRC, "xrc_pingpong");
	o.clients = n;
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.x = &late;
	s.lfd = -1;
	s.stock_fd = -1;
	s.conn.fd = -1;
	s.conn.is_server = true;
	runs = reports = 0;
	dirty = false;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fileno(tmp), STDOUT_FILENO), 0);
	ret = pp_serve(&s, fake_run, fake_report);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	got = fread(line, 1, len - 1, tmp);
	line[got] = '\0';
	fclose(tmp);
	ck_assert(!dirty);
	ck_assert_uint_eq(reports, 0);
	return ret;
}

START_TEST(serve_clients_all)
{
	char line[256];

	memset(outcome, 0, sizeof(outcome));
	ck_assert_int_eq(serve(3, line, sizeof(line)), 0);
	ck_assert_uint_eq(runs, 3);
	ck_assert_str_eq(line, "served 3 clients (0 failed)\n");
	/* without --clients, one client */
	ck_assert_int_eq(serve(0, line, sizeof(line)), 0);
	ck_assert_uint_eq(runs, 1);
	ck_assert_str_eq(line, "served 1 client (0 failed)\n");
}
END_TEST

/* A failed client costs its line; the others run; the first error counts. */
START_TEST(serve_clients_failed)
{
	char line[256];

	memset(outcome, 0, sizeof(outcome));
	outcome[1] = EPROTO;
	outcome[2] = ETIMEDOUT;
	ck_assert_int_eq(serve(4, line, sizeof(line)), EPROTO);
	ck_assert_uint_eq(runs, 4);
	ck_assert_str_eq(line, "served 4 clients (2 failed)\n");
}
END_TEST

/* A signal during a client's run ends the server there. */
START_TEST(serve_clients_stopped)
{
	char line[256];

	memset(outcome, 0, sizeof(outcome));
	outcome[1] = ECANCELED;
	ck_assert_int_eq(serve(3, line, sizeof(line)), ECANCELED);
	ck_assert_uint_eq(runs, 2);
	ck_assert_str_eq(
		line, "stopped by a signal after 2 of 3 clients (1 failed)\n");
}
END_TEST

/*
 * The stock server posts its receives before it accepts (its exchange's
 * connect_qps accepts); ours accepts, then HELLO.
 */
/*
 * A late accept's run that fails before any client came (its resources, the
 * listening socket) ends the server with that error, once: the next would
 * fail the same way.  Its line is the run's; no "served" line.
 */
START_TEST(serve_clients_fails_before_accept)
{
	char line[256];

	memset(outcome, 0, sizeof(outcome));
	outcome[0] = ENOMEM;
	no_client = true;
	ck_assert_int_eq(serve(3, line, sizeof(line)), ENOMEM);
	no_client = false;
	ck_assert_uint_eq(runs, 1);
	ck_assert_str_eq(line, "");
	ck_assert_str_eq(s.peer_addr, "");
}
END_TEST

START_TEST(serve_accepts_late_stock_only)
{
	ck_assert(pp_exchange_stock.accepts_late);
	ck_assert(!pp_exchange_ours.accepts_late);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *su = suite_create("session");
	TCase *tc = tcase_create("persistent");

	tcase_add_test(tc, end_client_forgets_gid);
	tcase_add_test(tc, end_client_keeps_given_gid);
	tcase_add_test(tc, abandoned_wait_follows_client);
	tcase_add_test(tc, qp_cfg_follows_agreed);
	tcase_add_test(tc, mesh_pair_bound);
	suite_add_tcase(su, tc);
	tc = tcase_create("clients");
	tcase_add_test(tc, serve_clients_all);
	tcase_add_test(tc, serve_clients_failed);
	tcase_add_test(tc, serve_clients_stopped);
	tcase_add_test(tc, serve_clients_fails_before_accept);
	tcase_add_test(tc, serve_accepts_late_stock_only);
	suite_add_tcase(su, tc);
	return su;
}

PP_CHECK_MAIN(session_suite)
