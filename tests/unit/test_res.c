// SPDX-License-Identifier: MIT
/*
 * test_res.c - pp_res's arithmetic that needs no device: the length of the
 * MR, checked against what the process can allocate.  There is no 32-bit
 * build here, so the 32-bit case is the same function with a 32-bit
 * SIZE_MAX as its bound.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "check_main.h"
#include "pp_params.h"
#include "pp_res.h"

#define PAGE 4096
#define MAX32 UINT32_MAX

START_TEST(buf_len_sum)
{
	size_t len = 0;

	ck_assert_int_eq(pp_res_buf_len(1, 1, 1, PAGE, SIZE_MAX, &len), 0);
	ck_assert_uint_eq(len, PAGE + 1);
	ck_assert_int_eq(pp_res_buf_len(4096, 4136, 500, PAGE, SIZE_MAX, &len),
			 0);
	ck_assert_uint_eq(len, 4096 + 4136 * 500);
}
END_TEST

/* -s 2G: the send area and one receive area are 4 GiB, past 32 bits. */
START_TEST(buf_len_32bit)
{
	size_t len = 7;

	ck_assert_int_eq(pp_res_buf_len(PP_MAX_SIZE, (uint32_t)PP_MAX_SIZE, 1,
					PAGE, MAX32, &len),
			 EOVERFLOW);
	ck_assert_uint_eq(len, 7);
	/* -c on UD: a receive area per receive, 65536 of 2 KiB */
	ck_assert_int_eq(pp_res_buf_len(1024, 1064, PP_MAX_RX_DEPTH, PAGE,
					MAX32, &len),
			 0);
	ck_assert_int_eq(pp_res_buf_len(1U << 20, (1U << 20) + 40,
					PP_MAX_RX_DEPTH, PAGE, MAX32, &len),
			 EOVERFLOW);
	/* the same on 64 bits fits */
	ck_assert_int_eq(pp_res_buf_len(PP_MAX_SIZE, (uint32_t)PP_MAX_SIZE, 1,
					PAGE, UINT64_MAX, &len),
			 SIZE_MAX > MAX32 ? 0 : EOVERFLOW);
	/* the page rounding itself cannot wrap */
	ck_assert_int_eq(pp_res_buf_len(UINT64_MAX, 1, 1, PAGE, UINT64_MAX,
					&len),
			 EOVERFLOW);
}
END_TEST

static Suite *res_suite(void)
{
	Suite *s = suite_create("res");
	TCase *tc = tcase_create("buf_len");

	tcase_add_test(tc, buf_len_sum);
	tcase_add_test(tc, buf_len_32bit);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(res_suite)
