/* SPDX-License-Identifier: MIT */
/*
 * check_main.h - the main() of every suite: run it (fork mode, so a crash is
 * one failed test) and exit 1 when a test failed.
 */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int pp_check_run(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* main() of a suite built by @suite_fn. */
#define PP_CHECK_MAIN(suite_fn)                  \
	int main(void)                           \
	{                                        \
		return pp_check_run(suite_fn()); \
	}

#endif /* CHECK_MAIN_H */
