// SPDX-License-Identifier: MIT
/*
 * test_gid.c - pp_gid: the automatic GID choice over GID tables of real
 * shapes (rxe, a dual-stack RoCE NIC, RoCE v1 only, InfiniBand, empty), the
 * client/server GID check and the lists in error lines.
 *
 * The MTU rules (path MTU = the smaller active MTU, -m above a port's active
 * MTU refused) live in pp_hs.c and are tested in test_hs.c.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "check_main.h"
#include "pp_gid.h"

#define LL_IB 1
#define LL_ETH 2
#define V1 PP_GID_TYPE_ROCE_V1
#define V2 PP_GID_TYPE_ROCE_V2
#define IB PP_GID_TYPE_IB
#define MAX_ENTRIES 8

/* One populated GID: index, type, address text, netdev. */
struct spec {
	int index;
	uint8_t type;
	const char *addr;
	const char *ndev;
};

static void gid_raw(const char *text, uint8_t raw[16])
{
	ck_assert_msg(inet_pton(AF_INET6, text, raw) == 1, "bad GID %s", text);
}

/* A table of @n populated entries from @s. */
static int build(const struct spec *s, int n, struct pp_gid_entry *tbl)
{
	int i;

	memset(tbl, 0, sizeof(*tbl) * MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		tbl[i].index = s[i].index;
		tbl[i].type = s[i].type;
		tbl[i].populated = true;
		gid_raw(s[i].addr, tbl[i].raw);
		snprintf(tbl[i].ndev, sizeof(tbl[i].ndev), "%s",
			 s[i].ndev ? s[i].ndev : "");
	}
	return n;
}

/* Soft-RoCE on a veth with 10.99.0.1: what guest.sh's rxe0 shows. */
static const struct spec rxe[] = {
	{ 0, V2, "fe80::5c8b:51ff:fe1b:30c2", "va" },
	{ 1, V2, "::ffff:10.99.0.1", "va" },
};

/* A dual-stack RoCE NIC: each address as RoCE v1 and v2. */
static const struct spec dual[] = {
	{ 0, V1, "fe80::1", "eth0" },
	{ 1, V2, "fe80::1", "eth0" },
	{ 2, V1, "::ffff:10.0.0.5", "eth0" },
	{ 3, V2, "::ffff:10.0.0.5", "eth0" },
	{ 4, V1, "fd00::5", "eth0" },
	{ 5, V2, "fd00::5", "eth0" },
};

static const struct spec v6only[] = {
	{ 0, V2, "fe80::2", "eth1" },
	{ 1, V2, "2001:db8::1", "eth1" },
};

static const struct spec v1only[] = {
	{ 0, V1, "fe80::3", "eth2" },
	{ 1, V1, "::ffff:10.0.0.1", "eth2" },
};

static const struct spec ll_only[] = {
	{ 0, V2, "fe80::1", "va" },
};

/* An old kernel: GIDs without a type. */
static const struct spec untyped[] = {
	{ 0, IB, "fe80::1", NULL },
	{ 1, IB, "::ffff:10.0.0.9", NULL },
};

/* Entries out of index order: equal ranks go to the lowest index. */
static const struct spec shuffled[] = {
	{ 3, V2, "::ffff:10.0.0.3", "eth3" },
	{ 1, V2, "::ffff:10.0.0.1", "eth3" },
	{ 2, V2, "::ffff:10.0.0.2", "eth3" },
};

static const struct spec ib_port[] = {
	{ 0, IB, "fe80::2:c903:a:1b2c", NULL },
};

#define T(x) x, (int)(sizeof(x) / sizeof(x[0]))

/* The host of the issue: eth0 and a VLAN interface on it, each with its
 * own subnet, and an IPv6 global address (rxe's table on two guests). */
static const struct spec vlan[] = {
	{ 0, V2, "fe80::5054:ff:fe12:3401", "eth0" },
	{ 1, V2, "::ffff:10.99.1.1", "eth0" },
	{ 2, V2, "fd00::1", "eth0" },
	{ 3, V2, "::ffff:10.99.2.1", "eth0.100" },
	{ 4, V2, "fe80::5054:ff:fe12:3401", "eth0.100" },
};

/*
 * rxe's table has 1024 entries: an address added late can land above 255,
 * which a GRH's one-byte source GID index cannot hold.
 */
static const struct spec high[] = {
	{ 0, V2, "fe80::5c8b:51ff:fe1b:30c2", "va" },
	{ 300, V2, "::ffff:10.99.0.1", "va" },
	{ 1023, V2, "fd00::9", "va" },
};

static const struct spec high_only[] = {
	{ 256, V2, "::ffff:10.99.0.1", "va" },
};

/* Not on any table above: the loopback, a management network. */
#define LO4 "127.0.0.1"
#define LO6 "::1"

static const struct choose_case {
	const struct spec *s;
	int n;
	uint8_t ll;
	const char *local; /* the connection's local address; NULL: unknown */
	int ret;
	int index;
	const char *reason;
} choose_cases[] = {
	{ T(vlan), LL_ETH, "10.99.2.1", 0, 3,
	  "GID index 3: RoCE v2, IPv4 ::ffff:10.99.2.1 on eth0.100, the local address of this connection" },
	{ T(vlan), LL_ETH, "::ffff:10.99.2.1", 0, 3, /* dual-stack socket */
	  "GID index 3: RoCE v2, IPv4 ::ffff:10.99.2.1 on eth0.100, the local address of this connection" },
	{ T(vlan), LL_ETH, "10.99.1.1", 0, 1,
	  "GID index 1: RoCE v2, IPv4 ::ffff:10.99.1.1 on eth0, the local address of this connection" },
	{ T(vlan), LL_ETH, "fd00::1", 0, 2,
	  "GID index 2: RoCE v2, IPv6 fd00::1 on eth0, the local address of this connection" },
	{ T(vlan), LL_ETH, "fe80::5054:ff:fe12:3401", 0, 0,
	  "GID index 0: RoCE v2, IPv6 link-local fe80::5054:ff:fe12:3401 on eth0, the local address of this connection" },
	{ T(vlan), LL_ETH, LO4, 0, 1,
	  "GID index 1: RoCE v2, IPv4 ::ffff:10.99.1.1 on eth0, IPv4 like this connection, whose local address 127.0.0.1 is on no GID of this port" },
	{ T(rxe), LL_ETH, LO4, 0, 1,
	  "GID index 1: RoCE v2, IPv4 ::ffff:10.99.0.1 on va, IPv4 like this connection, whose local address 127.0.0.1 is on no GID of this port" },
	{ T(rxe), LL_ETH, LO6, 0, 1,
	  "GID index 1: RoCE v2, IPv4 ::ffff:10.99.0.1 on va (no RoCE v2 GID of this connection's IPv6 family; its local address ::1 is on no GID of this port)" },
	{ T(rxe), LL_ETH, NULL, 0, 1,
	  "GID index 1: RoCE v2, IPv4 ::ffff:10.99.0.1 on va, preferred (the connection's address is not known)" },
	{ T(dual), LL_ETH, LO4, 0, 3,
	  "GID index 3: RoCE v2, IPv4 ::ffff:10.0.0.5 on eth0, IPv4 like this connection, whose local address 127.0.0.1 is on no GID of this port" },
	{ T(dual), LL_ETH, LO6, 0, 5,
	  "GID index 5: RoCE v2, IPv6 fd00::5 on eth0, IPv6 like this connection, whose local address ::1 is on no GID of this port" },
	{ T(dual), LL_ETH, "fd00::5", 0, 5,
	  "GID index 5: RoCE v2, IPv6 fd00::5 on eth0, the local address of this connection" },
	{ T(v6only), LL_ETH, LO6, 0, 1,
	  "GID index 1: RoCE v2, IPv6 2001:db8::1 on eth1, IPv6 like this connection, whose local address ::1 is on no GID of this port" },
	{ T(v6only), LL_ETH, LO4, 0, 1,
	  "GID index 1: RoCE v2, IPv6 2001:db8::1 on eth1 (no RoCE v2 GID of this connection's IPv4 family; its local address 127.0.0.1 is on no GID of this port)" },
	{ T(v6only), LL_ETH, NULL, 0, 1,
	  "GID index 1: RoCE v2, IPv6 2001:db8::1 on eth1 (no RoCE v2 IPv4 GID)" },
	{ T(ll_only), LL_ETH, LO4, 0, 0,
	  "GID index 0: RoCE v2, IPv6 link-local fe80::1 on va (no routable RoCE v2 GID: link-local reaches only this link)" },
	{ T(v1only), LL_ETH, LO4, 0, 1,
	  "GID index 1: RoCE v1, IPv4 ::ffff:10.0.0.1 on eth2 (no RoCE v2 GID: RoCE v1 does not cross IP routers)" },
	{ T(v1only), LL_ETH, "10.0.0.1", 0, 1,
	  "GID index 1: RoCE v1, IPv4 ::ffff:10.0.0.1 on eth2, the local address of this connection (it has no RoCE v2 GID: RoCE v1 does not cross IP routers)" },
	{ T(untyped), LL_ETH, LO4, 0, 0,
	  "GID index 0: IB, IPv6 link-local fe80::1 (the port reports no GID types: the first populated GID)" },
	{ T(shuffled), LL_ETH, LO4, 0, 1,
	  "GID index 1: RoCE v2, IPv4 ::ffff:10.0.0.1 on eth3, IPv4 like this connection, whose local address 127.0.0.1 is on no GID of this port" },
	{ T(shuffled), LL_ETH, "10.0.0.2", 0, 2,
	  "GID index 2: RoCE v2, IPv4 ::ffff:10.0.0.2 on eth3, the local address of this connection" },
	{ T(high), LL_ETH, "10.99.0.1", 0, 0,
	  "GID index 0: RoCE v2, IPv6 link-local fe80::5c8b:51ff:fe1b:30c2 on va (no routable RoCE v2 GID: link-local reaches only this link); index 300 (RoCE v2 ::ffff:10.99.0.1) would be better, but an address vector takes indexes 0-255 only" },
	{ T(high), LL_ETH, "fe80::5c8b:51ff:fe1b:30c2", 0, 0,
	  "GID index 0: RoCE v2, IPv6 link-local fe80::5c8b:51ff:fe1b:30c2 on va, the local address of this connection" },
	{ T(high_only), LL_ETH, "10.99.0.1", ENODATA, -1,
	  "the port's GIDs all lie above index 255, which an address vector cannot take; index 256 (RoCE v2 ::ffff:10.99.0.1) would be better, but an address vector takes indexes 0-255 only (give the address to a netdev whose GID gets a lower index; see --show-gids)" },
	{ T(ib_port), LL_IB, LO4, 0, -1,
	  "no GID: InfiniBand routes by LID (give -g to use a GRH)" },
	{ T(rxe), 0, LO4, 0, -1, /* unspecified: an old IB provider */
	  "no GID: InfiniBand routes by LID (give -g to use a GRH)" },
	{ NULL, 0, LL_ETH, LO4, ENODATA, -1,
	  "the port is Ethernet (RoCE) but has no GID: give its network interface an IP address (see --show-gids)" },
};

/* @text as the sockaddr getsockname() gives: AF_INET for a.b.c.d, else
 * AF_INET6; NULL for NULL. */
static const struct sockaddr *local_addr(const char *text,
					 struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	if (!text)
		return NULL;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
	} else {
		ck_assert_msg(inet_pton(AF_INET6, text, &in6->sin6_addr) == 1,
			      "bad address %s", text);
		in6->sin6_family = AF_INET6;
	}
	return (const struct sockaddr *)ss;
}

START_TEST(choose)
{
	const struct choose_case *c = &choose_cases[_i];
	struct pp_gid_entry tbl[MAX_ENTRIES];
	struct sockaddr_storage ss;
	char reason[256];
	int n, index = 42, ret;

	n = build(c->s, c->n, tbl);
	ret = pp_gid_choose(tbl, n, c->ll, local_addr(c->local, &ss), &index,
			    reason, sizeof(reason));
	ck_assert_int_eq(ret, c->ret);
	ck_assert_int_eq(index, c->index);
	ck_assert_str_eq(reason, c->reason);
}
END_TEST

/* Empty slots in a real table's shape are skipped, whatever they hold. */
START_TEST(choose_skips_empty)
{
	struct pp_gid_entry tbl[MAX_ENTRIES];
	struct sockaddr_storage ss;
	char reason[256];
	int index, n;

	n = build(T(rxe), tbl);
	local_addr("10.99.0.1", &ss);
	tbl[1].populated = false; /* the IPv4 one goes away */
	tbl[n] = (struct pp_gid_entry){ .index = 2, .type = V2 };
	ck_assert_int_eq(pp_gid_choose(tbl, n + 1, LL_ETH,
				       (struct sockaddr *)&ss, &index, reason,
				       sizeof(reason)),
			 0);
	ck_assert_int_eq(index, 0);
	/* Every slot empty: ENODATA. */
	tbl[0].populated = false;
	ck_assert_int_eq(pp_gid_choose(tbl, n + 1, LL_ETH,
				       (struct sockaddr *)&ss, &index, reason,
				       sizeof(reason)),
			 ENODATA);
	ck_assert_int_eq(index, -1);
}
END_TEST

START_TEST(reason_cut)
{
	struct pp_gid_entry tbl[MAX_ENTRIES];
	char reason[12];
	int index, n;

	n = build(T(rxe), tbl);
	ck_assert_int_eq(pp_gid_choose(tbl, n, LL_ETH, NULL, &index, reason,
				       sizeof(reason)),
			 0);
	ck_assert_str_eq(reason, "GID index 1");
}
END_TEST

static const struct family_case {
	const char *gid;
	enum pp_gid_family fam;
	const char *ip;
} family_cases[] = {
	{ "::", PP_GID_FAM_NONE, "::" },
	{ "::ffff:10.99.0.1", PP_GID_FAM_IPV4, "10.99.0.1" },
	{ "::ffff:0.0.0.0", PP_GID_FAM_IPV4, "0.0.0.0" },
	{ "fe80::1", PP_GID_FAM_LINK_LOCAL, "fe80::1" },
	{ "febf::1", PP_GID_FAM_LINK_LOCAL, "febf::1" },
	{ "fec0::1", PP_GID_FAM_IPV6, "fec0::1" },
	{ "2001:db8::1", PP_GID_FAM_IPV6, "2001:db8::1" },
	{ "fd00::5", PP_GID_FAM_IPV6, "fd00::5" },
	{ "::1", PP_GID_FAM_IPV6, "::1" },
	{ "0:0:0:0:0:fffe:a00:1", PP_GID_FAM_IPV6, "::fffe:a00:1" },
};

START_TEST(family)
{
	const struct family_case *c = &family_cases[_i];
	char ip[PP_GID_TEXT_LEN];
	uint8_t raw[16];

	gid_raw(c->gid, raw);
	ck_assert_int_eq(pp_gid_family(raw), c->fam);
	ck_assert_str_eq(pp_gid_ip(raw, ip, sizeof(ip)), c->ip);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(pp_gid_family_name(PP_GID_FAM_IPV4), "IPv4");
	ck_assert_str_eq(pp_gid_family_name(PP_GID_FAM_IPV6), "IPv6");
	ck_assert_str_eq(pp_gid_family_name(PP_GID_FAM_LINK_LOCAL),
			 "IPv6 link-local");
	ck_assert_str_eq(pp_gid_family_name(PP_GID_FAM_NONE), "none");
	ck_assert_str_eq(pp_gid_type_name(PP_GID_TYPE_IB), "IB");
	ck_assert_str_eq(pp_gid_type_name(PP_GID_TYPE_ROCE_V1), "RoCE v1");
	ck_assert_str_eq(pp_gid_type_name(PP_GID_TYPE_ROCE_V2), "RoCE v2");
	ck_assert_str_eq(pp_gid_type_name(PP_GID_TYPE_NONE), "none");
	ck_assert_str_eq(pp_gid_type_name(77), "none");
}
END_TEST

START_TEST(sockaddr_family)
{
	uint8_t a[16];

	ck_assert_int_eq(pp_gid_sockaddr_family(AF_INET, NULL), AF_INET);
	gid_raw("::ffff:127.0.0.1", a);
	ck_assert_int_eq(pp_gid_sockaddr_family(AF_INET6, a), AF_INET);
	gid_raw("::1", a);
	ck_assert_int_eq(pp_gid_sockaddr_family(AF_INET6, a), AF_INET6);
	ck_assert_int_eq(pp_gid_sockaddr_family(AF_UNIX, NULL), AF_UNSPEC);
}
END_TEST

#define FAM_V4 PP_GID_FAM_IPV4
#define FAM_V6 PP_GID_FAM_IPV6
#define FAM_LL PP_GID_FAM_LINK_LOCAL
#define FAM_NONE PP_GID_FAM_NONE

static const struct pair_case {
	uint8_t ct;
	enum pp_gid_family cf;
	uint8_t st;
	enum pp_gid_family sf;
	const char *msg; /* NULL: they can talk */
} pair_cases[] = {
	{ V2, FAM_V4, V2, FAM_V4, NULL },
	{ V2, FAM_V6, V2, FAM_LL, NULL },
	{ V1, FAM_LL, V1, FAM_LL, NULL },
	{ IB, FAM_LL, IB, FAM_LL, NULL },
	{ PP_GID_TYPE_NONE, FAM_NONE, PP_GID_TYPE_NONE, FAM_NONE, NULL },
	{ PP_GID_TYPE_NONE, FAM_NONE, IB, FAM_LL, NULL },
	{ V2, FAM_V4, V1, FAM_V6,
	  "GID types differ: client RoCE v2 IPv4, server RoCE v1 IPv6: choose matching -g on both sides" },
	{ V1, FAM_V4, V2, FAM_V4,
	  "GID types differ: client RoCE v1 IPv4, server RoCE v2 IPv4: choose matching -g on both sides" },
	{ V2, FAM_V4, V2, FAM_V6,
	  "GID address families differ: client RoCE v2 IPv4, server RoCE v2 IPv6: choose matching -g on both sides" },
	{ V2, FAM_LL, V2, FAM_V4,
	  "GID address families differ: client RoCE v2 IPv6 link-local, server RoCE v2 IPv4: choose matching -g on both sides" },
};

START_TEST(check_pair)
{
	const struct pair_case *c = &pair_cases[_i];
	struct pp_err err = { .msg = "untouched" };
	int ret;

	ret = pp_gid_check_pair(c->ct, c->cf, c->st, c->sf, &err);
	if (!c->msg) {
		ck_assert_int_eq(ret, 0);
		ck_assert_str_eq(err.msg, "untouched");
		return;
	}
	ck_assert_int_eq(ret, EINVAL);
	ck_assert_str_eq(err.msg, c->msg);
}
END_TEST

START_TEST(populated_list)
{
	struct pp_gid_entry tbl[MAX_ENTRIES];
	char buf[64], small[10];
	int i, n;

	n = build(T(rxe), tbl);
	ck_assert_str_eq(pp_gid_populated_list(tbl, n, buf, sizeof(buf)),
			 "0, 1");
	tbl[0].populated = false;
	ck_assert_str_eq(pp_gid_populated_list(tbl, n, buf, sizeof(buf)), "1");
	tbl[1].populated = false;
	ck_assert_str_eq(pp_gid_populated_list(tbl, n, buf, sizeof(buf)),
			 "none");
	ck_assert_str_eq(pp_gid_populated_list(tbl, 0, buf, sizeof(buf)),
			 "none");
	n = build(T(dual), tbl);
	tbl[2].populated = false;
	ck_assert_str_eq(pp_gid_populated_list(tbl, n, buf, sizeof(buf)),
			 "0, 1, 3, 4, 5");
	/* Too long for the buffer: cut, and it says so. */
	for (i = 0; i < MAX_ENTRIES; i++)
		tbl[i] = (struct pp_gid_entry){ .index = 10 + i,
						.populated = true };
	ck_assert_str_eq(pp_gid_populated_list(tbl, MAX_ENTRIES, small,
					       sizeof(small)),
			 "10, ...");
	ck_assert_str_eq(pp_gid_populated_list(tbl, MAX_ENTRIES, buf, 5),
			 "...");
}
END_TEST

START_TEST(check_index)
{
	struct pp_gid_entry tbl[4] = { { 0 } };
	struct pp_err err;
	int i;

	for (i = 0; i < 4; i++)
		tbl[i].index = i;
	gid_raw(rxe[0].addr, tbl[0].raw);
	gid_raw(rxe[1].addr, tbl[1].raw);
	tbl[0].populated = tbl[1].populated = true;
	tbl[0].type = tbl[1].type = V2;

	ck_assert_int_eq(pp_gid_check_index(tbl, 4, 1, "rxe0", 1, &err), 0);
	ck_assert_int_eq(pp_gid_check_index(tbl, 4, 3, "rxe0", 1, &err),
			 ENODATA);
	ck_assert_str_eq(
		err.msg,
		"GID index 3 of rxe0:1 is empty; populated: 0, 1 (see --show-gids)");
	ck_assert_int_eq(pp_gid_check_index(tbl, 4, 7, "rxe0", 1, &err),
			 EINVAL);
	ck_assert_str_eq(
		err.msg,
		"GID index 7 is out of range: port rxe0:1 has 4 entries; populated: 0, 1 (see --show-gids)");
	ck_assert_int_eq(pp_gid_check_index(tbl, 4, -1, "rxe0", 1, &err),
			 EINVAL);
	/* Populated but all zero is empty too. */
	tbl[2].populated = true;
	ck_assert_int_eq(pp_gid_check_index(tbl, 4, 2, "rxe0", 1, &err),
			 ENODATA);
}
END_TEST

#define N(x) (int)(sizeof(x) / sizeof(x[0]))

static Suite *gid_suite(void)
{
	Suite *s = suite_create("gid");
	TCase *tc = tcase_create("choose");

	tcase_add_loop_test(tc, choose, 0, N(choose_cases));
	tcase_add_test(tc, choose_skips_empty);
	tcase_add_test(tc, reason_cut);
	suite_add_tcase(s, tc);
	tc = tcase_create("family");
	tcase_add_loop_test(tc, family, 0, N(family_cases));
	tcase_add_test(tc, names);
	tcase_add_test(tc, sockaddr_family);
	suite_add_tcase(s, tc);
	tc = tcase_create("checks");
	tcase_add_loop_test(tc, check_pair, 0, N(pair_cases));
	tcase_add_test(tc, populated_list);
	tcase_add_test(tc, check_index);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(gid_suite)
