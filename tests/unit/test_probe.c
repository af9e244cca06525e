// SPDX-License-Identifier: MIT
/*
 * test_probe.c - pp_probe: --probe's pairing rules over GID tables of real
 * shapes (the two hosts of the issue: eth0, a VLAN, IPv6 global; RoCE v1
 * and v2 on one NIC; InfiniBand), the MTUs tried, and the step a failed
 * row is charged to.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_hs.h"
#include "pp_probe.h"
#include "pp_qp.h"

#define V1 PP_GID_TYPE_ROCE_V1
#define V2 PP_GID_TYPE_ROCE_V2
#define IB PP_GID_TYPE_IB
#define MAX_ENTRIES 16

struct spec {
	int index;
	uint8_t type;
	const char *addr; /* NULL: an empty slot */
	const char *ndev;
};

static int build(const struct spec *s, int n, struct pp_gid_entry *tbl)
{
	int i;

	memset(tbl, 0, sizeof(*tbl) * MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		tbl[i].index = s[i].index;
		tbl[i].type = s[i].type;
		if (s[i].addr) {
			ck_assert_int_eq(
				inet_pton(AF_INET6, s[i].addr, tbl[i].raw), 1);
			tbl[i].populated = true;
		}
		snprintf(tbl[i].ndev, sizeof(tbl[i].ndev), "%s",
			 s[i].ndev ? s[i].ndev : "");
	}
	return n;
}

#define T(x) x, (int)(sizeof(x) / sizeof(x[0]))

/* Host A of the bed: eth0, eth0.100 (same MAC: same fe80), IPv6. */
static const struct spec host_a[] = {
	{ 0, V2, "fe80::5054:ff:fe12:3401", "eth0" },
	{ 1, V2, "::ffff:10.99.1.1", "eth0" },
	{ 2, V2, "fd00:99:1::1", "eth0" },
	{ 3, V2, "::ffff:10.99.2.1", "eth0.100" },
	{ 4, V2, "fe80::5054:ff:fe12:3401", "eth0.100" },
	{ 5, V2, "fd00:99:2::1", "eth0.100" },
	{ 6, V2, NULL, NULL }, /* an empty slot */
};

/* Host B, its entries in another order (a table may come so). */
static const struct spec host_b[] = {
	{ 5, V2, "fd00:99:2::2", "eth0.100" },
	{ 0, V2, "fe80::5054:ff:fe12:3402", "eth0" },
	{ 1, V2, "::ffff:10.99.1.2", "eth0" },
	{ 2, V2, "fd00:99:1::2", "eth0" },
	{ 3, V2, "::ffff:10.99.2.2", "eth0.100" },
	{ 4, V2, "fe80::5054:ff:fe12:3402", "eth0.100" },
};

/* A NIC with both RoCE versions of each address. */
static const struct spec dual[] = {
	{ 0, V1, "fe80::1", "eth0" },
	{ 1, V2, "fe80::1", "eth0" },
	{ 2, V1, "::ffff:10.0.0.5", "eth0" },
	{ 3, V2, "::ffff:10.0.0.5", "eth0" },
};

static const struct spec v2_only[] = {
	{ 0, V2, "fe80::2", "eth0" },
	{ 1, V2, "::ffff:10.0.0.6", "eth0" },
	{ 2, V2, "2001:db8::6", "eth0" },
};

static const struct spec ib_port[] = {
	{ 0, IB, "fe80::2:c903:a:1b2c", NULL },
};

/* The expected pairs, as "local index-remote index" joined by spaces. */
static void expect_pairs(const struct spec *l, int nl, const struct spec *r,
			 int nr, const char *want)
{
	struct pp_gid_entry lt[MAX_ENTRIES], rt[MAX_ENTRIES];
	struct pp_probe_pair p[64];
	char got[512] = "";
	size_t n, i, used = 0;

	build(l, nl, lt);
	build(r, nr, rt);
	n = pp_probe_pairs(lt, nl, rt, nr, p, 64);
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(got + used, sizeof(got) - used,
					 "%s%d-%d", i ? " " : "",
					 lt[p[i].local].index,
					 rt[p[i].remote].index);
	ck_assert_str_eq(got, want);
}

/* Same family only; link-local with link-local; no subnet rule. */
START_TEST(two_hosts)
{
	expect_pairs(T(host_a), T(host_b),
		     "0-0 0-4 1-1 1-3 2-2 2-5 3-1 3-3 4-0 4-4 5-2 5-5");
}
END_TEST

/* RoCE v1 pairs with v1 only, v2 with v2 only. */
START_TEST(same_type)
{
	expect_pairs(T(dual), T(v2_only), "1-0 3-1");
	expect_pairs(T(dual), T(dual), "0-0 1-1 2-2 3-3");
}
END_TEST

/* InfiniBand GIDs and empty slots pair with nothing. */
START_TEST(not_roce)
{
	expect_pairs(T(ib_port), T(ib_port), "");
	expect_pairs(T(ib_port), T(v2_only), "");
}
END_TEST

START_TEST(compatible)
{
	struct pp_gid_entry a[MAX_ENTRIES], b[MAX_ENTRIES];

	build(T(host_a), a);
	build(T(host_b), b);
	/* IPv4 eth0 with IPv4 on B's VLAN: tried (no subnet rule) */
	ck_assert(pp_probe_compatible(&a[1], &b[4]));
	/* global IPv6 with link-local: not */
	ck_assert(!pp_probe_compatible(&a[2], &b[1]));
	ck_assert(!pp_probe_compatible(&a[0], &b[3]));
	/* IPv4 with IPv6: not */
	ck_assert(!pp_probe_compatible(&a[1], &b[3]));
	/* an empty slot: not */
	ck_assert(!pp_probe_compatible(&a[6], &b[1]));
	ck_assert(!pp_probe_compatible(&b[1], &a[6]));
}
END_TEST

/* The room given bounds the pairs. */
START_TEST(pairs_room)
{
	struct pp_gid_entry a[MAX_ENTRIES], b[MAX_ENTRIES];
	struct pp_probe_pair p[3];

	build(T(host_a), a);
	build(T(host_b), b);
	ck_assert_uint_eq(pp_probe_pairs(a, 7, b, 6, p, 3), 3);
	ck_assert_uint_eq(pp_probe_pairs(a, 0, b, 6, p, 3), 0);
}
END_TEST

static const struct mtu_case {
	uint32_t local, remote;
	const char *want;
} mtu_cases[] = {
	{ 1024, 4096, "256 512 1024" },
	{ 4096, 512, "256 512" },
	{ 4096, 4096, "256 512 1024 2048 4096" },
	{ 256, 1024, "256" },
	{ 0, 2048, "256 512 1024 2048" }, /* one side not known */
	{ 0, 0, "" },
};

START_TEST(mtus)
{
	const struct mtu_case *c = &mtu_cases[_i];
	uint32_t m[PP_PROBE_MTUS];
	char got[64] = "";
	size_t n, i, used = 0;

	n = pp_probe_mtus(c->local, c->remote, m);
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%u",
					 i ? " " : "", m[i]);
	ck_assert_str_eq(got, c->want);
}
END_TEST

static const struct step_case {
	int phase, ret;
	const char *msg;
	uint64_t completed;
	enum pp_probe_step want;
} step_cases[] = {
	{ 0, 0, "", 0, PP_PROBE_OK },
	{ 0, ECONNREFUSED, "connect to 10.99.1.2 port 18515 failed", 0,
	  PP_PROBE_HANDSHAKE },
	{ 0, ECONNABORTED,
	  "GID index 9 of rxe0:1 is empty; populated: 0, 1 (see --show-gids)",
	  0, PP_PROBE_HANDSHAKE },
	{ 1, ENETUNREACH,
	  "modify QP 0x000011 to RTR failed: Network is unreachable (is the GID index right on both sides (-g)? ...)",
	  0, PP_PROBE_RTR },
	{ 1, ECONNABORTED, /* the server's RTR, in its ERROR */
	  "modify QP 0x000012 to RTR failed: No route to host (...)", 0,
	  PP_PROBE_RTR },
	{ 1, EINVAL, "modify QP 0x000011 to RTS failed: Invalid argument", 0,
	  PP_PROBE_RTS },
	{ 1, ETIMEDOUT, "no READY from the server within 1500 ms", 0,
	  PP_PROBE_HANDSHAKE },
	{ 2, EIO, "send completion failed: transport retry counter exceeded", 0,
	  PP_PROBE_FIRST },
	{ 2, ETIMEDOUT, "no completion within 1500 ms", 0, PP_PROBE_FIRST },
	{ 2, EIO, "send completion failed: ...", 7, PP_PROBE_RUN },
	{ 2, EILSEQ, "data mismatch at byte 3", 0, PP_PROBE_DATA },
};

START_TEST(step_of)
{
	const struct step_case *c = &step_cases[_i];

	ck_assert_int_eq(pp_probe_step_of(c->phase, c->ret, c->msg,
					  c->completed),
			 c->want);
}
END_TEST

START_TEST(step_names)
{
	ck_assert_str_eq(pp_probe_step_name(PP_PROBE_OK), "ok");
	ck_assert_str_eq(pp_probe_step_name(PP_PROBE_RTR), "RTR");
	ck_assert_str_eq(pp_probe_step_name(PP_PROBE_FIRST),
			 "first completion");
	ck_assert_str_eq(pp_probe_step_name(PP_PROBE_DEADLINE), "row deadline");
}
END_TEST

/*
 * The failure reasons below the probe's table: one code per reason, the
 * same for reasons that differ only in hexadecimal numbers (a QPN).
 */
START_TEST(notes)
{
	static struct pp_probe_notes n;
	char many[32];
	size_t i;

	memset(&n, 0, sizeof(n));
	ck_assert_uint_eq(
		pp_probe_note(
			&n,
			"send completion failed at iteration 0: transport retry counter exceeded (status 12, vendor error 0x81, QP 0x000011, wr_id 2): the peer's NIC did not acknowledge"),
		1);
	ck_assert_uint_eq(
		pp_probe_note(
			&n,
			"send completion failed at iteration 0: transport retry counter exceeded (status 12, vendor error 0x81, QP 0x0000a3, wr_id 2): the peer's NIC did not acknowledge"),
		1);
	ck_assert_str_eq(
		n.text[0],
		"send completion failed at iteration 0: transport retry counter exceeded (status 12, vendor error 0x..., QP 0x..., wr_id 2): the peer's NIC did not acknowledge");
	ck_assert_uint_eq(
		pp_probe_note(
			&n,
			"modify QP 0x000013 to RTR failed: Network is unreachable"),
		2);
	ck_assert_uint_eq(
		pp_probe_note(
			&n,
			"send completion failed at iteration 1: transport retry counter exceeded (status 12, vendor error 0x81, QP 0x000011, wr_id 2): the peer's NIC did not acknowledge"),
		3);
	ck_assert_str_eq(
		n.text[1],
		"modify QP 0x... to RTR failed: Network is unreachable");
	/* a hex digit run without 0x, and "0x" alone, are kept */
	ck_assert_uint_eq(pp_probe_note(&n, "GID fe80::1 0x"), 4);
	ck_assert_str_eq(n.text[3], "GID fe80::1 0x");
	/* full: a known reason keeps its code, a new one gets 0 */
	for (i = n.n; i < PP_PROBE_NOTES; i++) {
		snprintf(many, sizeof(many), "reason %zu", i);
		ck_assert_uint_eq(pp_probe_note(&n, many), i + 1);
	}
	ck_assert_uint_eq(pp_probe_note(&n, "one more"), 0);
	ck_assert_uint_eq(
		pp_probe_note(
			&n,
			"modify QP 0x0000ff to RTR failed: Network is unreachable"),
		2);
}
END_TEST

/* A loss earns a row a second try; a refusal or a mismatch does not. */
START_TEST(try_again)
{
	ck_assert(pp_probe_try_again(PP_PROBE_FIRST));
	ck_assert(pp_probe_try_again(PP_PROBE_RUN));
	ck_assert(!pp_probe_try_again(PP_PROBE_OK));
	ck_assert(!pp_probe_try_again(PP_PROBE_HANDSHAKE));
	ck_assert(!pp_probe_try_again(PP_PROBE_RTR));
	ck_assert(!pp_probe_try_again(PP_PROBE_RTS));
	ck_assert(!pp_probe_try_again(PP_PROBE_DATA));
	ck_assert(!pp_probe_try_again(PP_PROBE_DEADLINE));
}
END_TEST

/* --probe's rows give up sooner on a path that never acknowledges. */
START_TEST(short_retry)
{
	struct pp_qp_cfg c = {
		.transport = PP_TR_RC,
		.ib_port = 1,
		.path_mtu = 1024,
		.qp_timeout = PP_DEFAULT_QP_TIMEOUT,
		.retry_count = PP_DEFAULT_RETRY_COUNT,
		.rnr_retry = PP_DEFAULT_RNR_RETRY,
		.short_retry = true,
	};
	struct ibv_qp_attr a;

	ck_assert(pp_qp_attr(&c, PP_QP_RTS, 0x123, NULL, &a) &
		  IBV_QP_RETRY_CNT);
	ck_assert_uint_eq(a.retry_cnt, PP_QP_SHORT_RETRY);
	ck_assert_uint_eq(a.timeout, 14);
	/* a --retry-count below the probe's is kept */
	c.retry_count = 1;
	pp_qp_attr(&c, PP_QP_RTS, 0x123, NULL, &a);
	ck_assert_uint_eq(a.retry_cnt, 1);
	c.retry_count = PP_DEFAULT_RETRY_COUNT;
	c.short_retry = false;
	pp_qp_attr(&c, PP_QP_RTS, 0x123, NULL, &a);
	ck_assert_uint_eq(a.retry_cnt, 7);
}
END_TEST

/* The server's GIDS: populated entries only, in order, with netdevs. */
START_TEST(gids_message)
{
	struct pp_gid_entry tbl[MAX_ENTRIES];
	struct pp_conn srv = { .is_server = true, .timeout_ms = 2000 };
	struct pp_conn cl = { .timeout_ms = 2000 };
	struct pp_err err = { .msg = "" };
	struct pp_msg *m = malloc(sizeof(*m));
	int fds[2];

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	srv.fd = fds[0];
	cl.fd = fds[1];
	build(T(host_a), tbl);
	ck_assert_int_eq(pp_hs_send_gids(&srv, tbl, 7, &err), 0);
	ck_assert_int_eq(pp_hs_recv(&cl, PP_MSG_GIDS, m, &err), 0);
	ck_assert_uint_eq(m->u.gids.count, 6); /* the empty slot 6 left out */
	ck_assert_uint_eq(m->u.gids.g[3].index, 3);
	ck_assert_uint_eq(m->u.gids.g[3].gid_type, V2);
	ck_assert_str_eq(m->u.gids.g[3].netdev, "eth0.100");
	ck_assert_mem_eq(m->u.gids.g[3].gid, tbl[3].raw, 16);
	/* nothing populated: the client gets an ERROR naming why */
	ck_assert_int_eq(pp_hs_send_gids(&srv, &tbl[6], 1, &err), ENODATA);
	ck_assert_int_eq(pp_hs_recv(&cl, PP_MSG_GIDS, m, &err), ECONNABORTED);
	ck_assert_str_eq(err.msg, "no populated GID to send to the client");
	close(fds[0]);
	close(fds[1]);
	free(m);
}
END_TEST

#define N(x) (int)(sizeof(x) / sizeof(x[0]))

static Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("pairs");

	tcase_add_test(tc, two_hosts);
	tcase_add_test(tc, same_type);
	tcase_add_test(tc, not_roce);
	tcase_add_test(tc, compatible);
	tcase_add_test(tc, pairs_room);
	suite_add_tcase(s, tc);
	tc = tcase_create("mtus");
	tcase_add_loop_test(tc, mtus, 0, N(mtu_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("steps");
	tcase_add_loop_test(tc, step_of, 0, N(step_cases));
	tcase_add_test(tc, step_names);
	tcase_add_test(tc, notes);
	suite_add_tcase(s, tc);
	tc = tcase_create("rows");
	tcase_add_test(tc, short_retry);
	tcase_add_test(tc, try_again);
	tcase_add_test(tc, gids_message);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(probe_suite)
