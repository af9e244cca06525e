// SPDX-License-Identifier: MIT
/*
 * test_thresh.c - --expect-mtu and --max-rtt (pp_thresh.h): when each
 * flags a run, and the one line that names the side, its figures and the
 * fix; and pp_netdev_mtu() (pp_dev.h) over a made-up sysfs.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_dev.h"
#include "pp_thresh.h"

static char line[512];

static const struct pp_thresh_side server_1024 = {
	.name = "the server",
	.known = true,
	.active_mtu = 1024,
	.netdev_mtu = 1500,
};
static const struct pp_thresh_side client_4096 = {
	.name = "the client",
	.known = true,
	.active_mtu = 4096,
	.netdev_mtu = 9000,
};

START_TEST(mtu_not_below)
{
	line[0] = '\0';
	ck_assert(!pp_thresh_mtu(0, 1024, 0, &server_1024, &client_4096, line,
				 sizeof(line)));
	ck_assert(!pp_thresh_mtu(1024, 1024, 0, &server_1024, &client_4096,
				 line, sizeof(line)));
	ck_assert(!pp_thresh_mtu(512, 1024, 0, &server_1024, &client_4096, line,
				 sizeof(line)));
	ck_assert_str_eq(line, "");
}
END_TEST

/* The lower side is named, whichever place it has. */
START_TEST(mtu_lower_side)
{
	ck_assert(pp_thresh_mtu(4096, 1024, 0, &server_1024, &client_4096, line,
				sizeof(line)));
	ck_assert_str_eq(
		line,
		"path MTU 1024 is below --expect-mtu 4096: the active MTU of the server is 1024 (netdev MTU 1500), of the client 4096: raise its netdev MTU to at least 4200 (4096 and the RoCE headers), or give --expect-mtu 1024");
	ck_assert(pp_thresh_mtu(2048, 1024, 0, &client_4096, &server_1024, line,
				sizeof(line)));
	ck_assert_str_eq(
		line,
		"path MTU 1024 is below --expect-mtu 2048: the active MTU of the server is 1024 (netdev MTU 1500), of the client 4096: raise its netdev MTU to at least 2152 (2048 and the RoCE headers), or give --expect-mtu 1024");
}
END_TEST

START_TEST(mtu_both_sides)
{
	struct pp_thresh_side c = server_1024;

	c.name = "the client";
	c.netdev_mtu = 0;
	ck_assert(pp_thresh_mtu(4096, 1024, 0, &server_1024, &c, line,
				sizeof(line)));
	ck_assert_str_eq(
		line,
		"path MTU 1024 is below --expect-mtu 4096: the active MTU of both the server (netdev MTU 1500) and the client (netdev MTU unknown) is 1024: raise both sides' netdev MTU to at least 4200 (4096 and the RoCE headers), or give --expect-mtu 1024");
}
END_TEST

START_TEST(mtu_infiniband)
{
	struct pp_thresh_side a = server_1024, b = client_4096;

	a.ib = b.ib = true;
	a.netdev_mtu = b.netdev_mtu = 0;
	ck_assert(pp_thresh_mtu(4096, 1024, 0, &b, &a, line, sizeof(line)));
	ck_assert_str_eq(
		line,
		"path MTU 1024 is below --expect-mtu 4096: the active MTU of the server is 1024 (InfiniBand: no netdev), of the client 4096: raise its port MTU to 4096 (the subnet manager sets it), or give --expect-mtu 1024");
}
END_TEST

/* -m below both active MTUs set the path MTU: -m is named, not a port. */
START_TEST(mtu_asked)
{
	struct pp_thresh_side a = client_4096;

	a.name = "the server";
	ck_assert(pp_thresh_mtu(4096, 1024, 1024, &a, &client_4096, line,
				sizeof(line)));
	ck_assert_str_eq(
		line,
		"path MTU 1024 is below --expect-mtu 4096: -m 1024 set it (active MTU 4096 on the server, 4096 on the client): give -m 4096 or drop -m, or give --expect-mtu 1024");
	/* -m equal to the lower active MTU: the port is the cause */
	ck_assert(pp_thresh_mtu(4096, 1024, 1024, &server_1024, &client_4096,
				line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "the active MTU of the server"));
}
END_TEST

START_TEST(mtu_stock_peer)
{
	struct pp_thresh_side me = client_4096, peer = { .name = "the peer" };

	ck_assert(pp_thresh_mtu(4096, 1024, 1024, &me, &peer, line,
				sizeof(line)));
	ck_assert_str_eq(
		line,
		"path MTU 1024 is below --expect-mtu 4096: -m 1024, which the stock exchange cannot negotiate; the client's active MTU is 4096 (netdev MTU 9000), the stock peer's active MTU and netdev MTU cannot be known: give -m 4096 on both sides if both ports allow it, or --expect-mtu 1024");
}
END_TEST

START_TEST(rtt)
{
	ck_assert(!pp_thresh_rtt(0, 50, 4096, 0, line, sizeof(line)));
	ck_assert(!pp_thresh_rtt(20, 20, 4096, 0, line, sizeof(line)));
	ck_assert(!pp_thresh_rtt(20, 19.9, 4096, 0, line, sizeof(line)));
	ck_assert(pp_thresh_rtt(20, 25.31, 4096, 0, line, sizeof(line)));
	ck_assert_str_eq(
		line,
		"median round trip 25.310 usec is above --max-rtt 20 usec (size 4096)");
	ck_assert(pp_thresh_rtt(0.001, 8.5, 64, 3, line, sizeof(line)));
	ck_assert_str_eq(
		line,
		"median round trip 8.500 usec is above --max-rtt 0.001 usec (size 64; 3 larger sizes too)");
}
END_TEST

/* ROOT/sys/class/net/NAME/mtu holding @text. */
static void fake_mtu(const char *root, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/net/%s", root, name);
	ck_assert_int_eq(
		system(strcat(strcpy((char[600]){ 0 }, "mkdir -p "), path)), 0);
	strcat(path, "/mtu");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(netdev_mtu_sysfs)
{
	char root[] = "/tmp/pp_thresh_XXXXXX";
	uint32_t mtu = 7;

	ck_assert_ptr_nonnull(mkdtemp(root));
	fake_mtu(root, "va", "1500\n");
	fake_mtu(root, "bad", "many\n");
	fake_mtu(root, "tail", "1500x\n");
	ck_assert_int_eq(pp_netdev_mtu(root, "va", &mtu), 0);
	ck_assert_uint_eq(mtu, 1500);
	ck_assert_int_eq(pp_netdev_mtu(root, "", &mtu), ENODEV);
	ck_assert_int_eq(pp_netdev_mtu(root, "absent", &mtu), ENOENT);
	ck_assert_int_eq(pp_netdev_mtu(root, "bad", &mtu), EPROTO);
	ck_assert_int_eq(pp_netdev_mtu(root, "tail", &mtu), EPROTO);
	ck_assert_uint_eq(mtu, 1500);
	ck_assert_int_eq(
		system(strcat(strcpy((char[600]){ 0 }, "rm -rf "), root)), 0);
}
END_TEST

static Suite *thresh_suite(void)
{
	Suite *s = suite_create("thresh");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, mtu_not_below);
	tcase_add_test(tc, mtu_lower_side);
	tcase_add_test(tc, mtu_both_sides);
	tcase_add_test(tc, mtu_infiniband);
	tcase_add_test(tc, mtu_asked);
	tcase_add_test(tc, mtu_stock_peer);
	tcase_add_test(tc, rtt);
	tcase_add_test(tc, netdev_mtu_sysfs);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(thresh_suite)
