// SPDX-License-Identifier: MIT
/*
 * test_dev.c - pp_dev's pure rules: a P_Key's index in made-up P_Key
 * tables (the tables of two hosts differ: the index is looked up on each
 * side, never carried), and the list a refusal names.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "pp_dev.h"
#include "pp_params.h"

/* Two hosts' tables: the same partitions at other indexes. */
static const uint16_t host_a[] = { 0xffff, 0x8001, 0x8002, 0x0003 };
static const uint16_t host_b[] = { 0xffff, 0x0000, 0x8003, 0x8002, 0x8001 };
/* Partition 5, as a limited and as a full member. */
static const uint16_t both[] = { 0xffff, 0x0005, 0x8005 };

START_TEST(pkey_find_per_host)
{
	/* 0x8002 is index 2 on A and index 3 on B */
	ck_assert_int_eq(pp_pkey_find(host_a, 4, 0x8002), 2);
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x8002), 3);
	ck_assert_int_eq(pp_pkey_find(host_a, 4, 0x8001), 1);
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x8001), 4);
	ck_assert_int_eq(pp_pkey_find(host_a, 4, 0xffff), 0);
	/* index 2 names other partitions on the two hosts */
	ck_assert_uint_ne(host_a[2], host_b[2]);
}
END_TEST

START_TEST(pkey_find_membership)
{
	/* a limited member (bit 15 clear) of partition 3 on A */
	ck_assert_int_eq(pp_pkey_find(host_a, 4, 0x8003), 3);
	ck_assert_int_eq(pp_pkey_find(host_a, 4, 0x0003), 3);
	/* the exact value first, then the other membership */
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x0003), 2);
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x7fff), 0);
	/* both memberships in the table: each finds its own entry */
	ck_assert_int_eq(pp_pkey_find(both, 3, 0x8005), 2);
	ck_assert_int_eq(pp_pkey_find(both, 3, 0x0005), 1);
}
END_TEST

START_TEST(pkey_find_absent)
{
	ck_assert_int_eq(pp_pkey_find(host_a, 4, 0x8004), -1);
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x0004), -1);
	/* partition 0 is never a member, not even of an empty entry */
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x0000), -1);
	ck_assert_int_eq(pp_pkey_find(host_b, 5, 0x8000), -1);
	ck_assert_int_eq(pp_pkey_find(host_a, 0, 0xffff), -1);
	/* only the first n entries count */
	ck_assert_int_eq(pp_pkey_find(host_b, 4, 0x8001), -1);
}
END_TEST

START_TEST(pkey_list_text)
{
	char buf[64];

	ck_assert_str_eq(pp_pkey_list(host_b, 5, buf, sizeof(buf)),
			 "0xffff, 0x8003, 0x8002, 0x8001");
	ck_assert_str_eq(pp_pkey_list(host_b + 1, 1, buf, sizeof(buf)), "none");
	/* cut short: it says so */
	ck_assert_str_eq(pp_pkey_list(host_b, 5, buf, 20), "0xffff, 0x8003...");
}
END_TEST

START_TEST(pkey_valid_text)
{
	ck_assert(pp_pkey_valid(0xffff));
	ck_assert(pp_pkey_valid(0x0001));
	ck_assert(!pp_pkey_valid(0x8000));
	ck_assert(!pp_pkey_valid(0));
	ck_assert(!pp_pkey_valid(0x10001));
	ck_assert_str_eq(pp_pkey_text(0x8001), "0x8001");
	ck_assert_str_eq(pp_pkey_text(7), "0x0007");
}
END_TEST

static Suite *dev_suite(void)
{
	Suite *s = suite_create("dev");
	TCase *tc = tcase_create("pkey");

	tcase_add_test(tc, pkey_find_per_host);
	tcase_add_test(tc, pkey_find_membership);
	tcase_add_test(tc, pkey_find_absent);
	tcase_add_test(tc, pkey_list_text);
	tcase_add_test(tc, pkey_valid_text);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(dev_suite)
