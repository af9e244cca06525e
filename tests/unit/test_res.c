// SPDX-License-Identifier: MIT
/*
 * test_res.c - pp_res's parts that need no device: the length of the MR,
 * checked against what the process can allocate, and the XRC domain file
 * (a FIFO or a symlink in its place).  There is no 32-bit
 * build here, so the 32-bit case is the same function with a 32-bit
 * SIZE_MAX as its bound.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A temporary directory for the XRC domain file cases. */
static char dir[64];

static void tmp_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_res.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/*
 * Another user's FIFO where the XRC domain file goes: refused at once (an
 * open without O_NONBLOCK waited for a writer for ever: the alarm ends it).
 */
START_TEST(xrcd_fifo_refused)
{
	struct pp_err err = { .msg = "" };
	char path[128];
	int fd = 7;

	tmp_dir();
	snprintf(path, sizeof(path), "%s/xrcd", dir);
	ck_assert_int_eq(mkfifo(path, 0666), 0);
	alarm(3);
	ck_assert_int_eq(pp_res_xrcd_file(path, true, &fd, &err), EINVAL);
	alarm(0);
	ck_assert_int_eq(fd, -1);
	ck_assert_msg(strstr(err.msg, "is not a regular file"), "%s", err.msg);
	/* given by name too */
	ck_assert_int_eq(pp_res_xrcd_file(path, false, &fd, &err), EINVAL);
	unlink(path);
	/* a directory */
	ck_assert_int_eq(pp_res_xrcd_file(dir, false, &fd, &err), EISDIR);
	rmdir(dir);
}
END_TEST

START_TEST(xrcd_regular_file)
{
	struct pp_err err = { .msg = "" };
	char path[128], link_path[128];
	struct stat st;
	int fd = -1;

	tmp_dir();
	snprintf(path, sizeof(path), "%s/xrcd", dir);
	ck_assert_int_eq(pp_res_xrcd_file(path, true, &fd, &err), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	close(fd);
	/* the default file may not be a symlink (to someone's file) */
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	ck_assert_int_eq(symlink(path, link_path), 0);
	ck_assert_int_eq(pp_res_xrcd_file(link_path, true, &fd, &err), ELOOP);
	ck_assert_int_eq(pp_res_xrcd_file(link_path, false, &fd, &err), 0);
	close(fd);
	unlink(link_path);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *res_suite(void)
{
	Suite *s = suite_create("res");
	TCase *tc = tcase_create("buf_len");

	tcase_add_test(tc, buf_len_sum);
	tcase_add_test(tc, buf_len_32bit);
	tcase_add_test(tc, xrcd_fifo_refused);
	tcase_add_test(tc, xrcd_regular_file);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(res_suite)
