// SPDX-License-Identifier: MIT
/*
 * test_hugepages.c - --hugepages without a device: the option, and the
 * count of free 2 MiB pages read from made-up sysfs trees (a number, none,
 * garbage, a kernel without the page size).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "check_main.h"
#include "pp_opts.h"
#include "pp_res.h"

/* A tree under a fresh directory whose free_hugepages holds @text (NULL:
 * no such file); returns the root, which the test removes. */
static const char *tree(const char *text)
{
	static char root[64];
	char path[256], cmd[320];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/pp_huge.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s%s", root, root,
		 "/sys/kernel/mm/hugepages/hugepages-2048kB");
	ck_assert_int_eq(system(cmd), 0);
	if (text) {
		snprintf(path, sizeof(path), "%s%s", root, PP_HUGE_FREE_PATH);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(text, f);
		fclose(f);
	}
	return root;
}

START_TEST(test_free_count)
{
	unsigned long n = 99;

	ck_assert_int_eq(pp_res_huge_free(tree("12\n"), &n), 0);
	ck_assert_uint_eq(n, 12);
	ck_assert_int_eq(pp_res_huge_free(tree("0\n"), &n), 0);
	ck_assert_uint_eq(n, 0);
	n = 7;
	ck_assert_int_eq(pp_res_huge_free(tree("x\n"), &n), EINVAL);
	ck_assert_uint_eq(n, 7);
	ck_assert_int_eq(pp_res_huge_free(tree(NULL), &n), ENOENT);
	ck_assert_int_eq(pp_res_huge_free("/nonexistent/root", &n), ENOENT);
	ck_assert_int_eq(system("rm -rf /tmp/pp_huge.*"), 0);
}
END_TEST

START_TEST(test_option)
{
	char *argv[] = { "prog", "--hugepages", "h", NULL };
	struct pp_opts o;
	struct pp_err err;
	enum pp_tool t;

	for (t = PP_TOOL_RC; t <= PP_TOOL_XRC; t++) {
		pp_opts_init(&o, t, "prog");
		ck_assert(!o.hugepages);
		ck_assert_int_eq(pp_opts_parse(&o, 3, argv, &err), 0);
		ck_assert(o.hugepages);
		ck_assert(o.set & PP_OPT_BIT(PP_OPT_HUGEPAGES));
	}
}
END_TEST

static Suite *hugepages_suite(void)
{
	Suite *s = suite_create("hugepages");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_free_count);
	tcase_add_test(tc, test_option);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(hugepages_suite)
