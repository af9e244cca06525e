// SPDX-License-Identifier: MIT
/*
 * test_version.c - unit tests of pp_version and of -V/--version parsing.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_opts.h"
#include "pp_version.h"

static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD, PP_TOOL_SRQ,
				      PP_TOOL_XRC };

START_TEST(test_from_path)
{
	static const struct {
		const char *path;
		const char *want; /* NULL: refused */
	} cases[] = {
		{ "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0",
		  "1.14.44.0" },
		{ "libibverbs.so.1.14.44.0", "1.14.44.0" },
		{ "/lib64/libibverbs.so.1", "1" },
		{ "/opt/rdma/lib/libibverbs.so.1.15.55.0", "1.15.55.0" },
		{ "/usr/lib/libibverbs.so", NULL },
		{ "/usr/lib/libibverbs.so.", NULL },
		{ "/usr/lib/libibverbs.so.1.0-debug", NULL },
		{ "/usr/lib/libibverbs.so..1", NULL },
		{ "/usr/lib/libmlx5.so.1.24.44.0", NULL },
		{ "/usr/lib/libibverbs.so.1/libc.so.6", NULL },
		{ "", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32] = "untouched";
		bool ok = pp_version_from_path(cases[i].path, buf, sizeof(buf));

		ck_assert_msg(ok == (cases[i].want != NULL), "'%s': got %d",
			      cases[i].path, ok);
		ck_assert_str_eq(buf, ok ? cases[i].want : "untouched");
	}
}
END_TEST

START_TEST(test_from_path_too_long)
{
	char buf[5] = "abcd";

	ck_assert(!pp_version_from_path("libibverbs.so.1.14.44.0", buf,
					sizeof(buf)));
	ck_assert_str_eq(buf, "abcd");
	ck_assert(pp_version_from_path("libibverbs.so.1.14", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "1.14");
}
END_TEST

/* The version in the name of the libibverbs file that /proc/self/maps shows. */
static bool mapped_ibverbs(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		found = pp_version_from_path(path, buf, len);
	}
	fclose(f);
	return found;
}

/* The version of the libibverbs mapped, once loaded for sure. */
START_TEST(test_get_runtime)
{
	struct pp_version v;
	char want[64];
	void *h;

	pp_version_get(&v);
	if (!mapped_ibverbs(want, sizeof(want)))
		ck_assert_str_eq(v.ibverbs, PP_VERSION_UNKNOWN);
	else
		ck_assert_str_eq(v.ibverbs, want);

	h = dlopen("libibverbs.so.1", RTLD_NOW);
	ck_assert_msg(h, "dlopen libibverbs.so.1: %s", dlerror());
	ck_assert(mapped_ibverbs(want, sizeof(want)));
	pp_version_get(&v);
	ck_assert_str_eq(v.ibverbs, want);
	ck_assert_str_ne(v.ibverbs, PP_VERSION_UNKNOWN);
	dlclose(h);
}
END_TEST

START_TEST(test_get_build)
{
	struct pp_version v;

	pp_version_get(&v);
	ck_assert_ptr_nonnull(v.project);
	ck_assert_ptr_nonnull(v.git);
	ck_assert_ptr_nonnull(v.ibverbs_built);
	ck_assert_str_ne(v.project, PP_VERSION_UNKNOWN);
	ck_assert_str_ne(v.ibverbs_built, PP_VERSION_UNKNOWN);
	ck_assert(v.git[0]);
}
END_TEST

/* "rc_pingpong 0.1.0 (git aef06da) libibverbs 1.14.44.0", one line. */
START_TEST(test_write_format)
{
	regex_t re;
	size_t i;

	ck_assert_int_eq(
		regcomp(&re,
			"^[a-z]+_pingpong [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ([0-9a-zA-Z._+-]+)\\) libibverbs ([0-9][0-9.]*|unknown)\n$",
			REG_EXTENDED),
		0);
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *text = NULL, want[32];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		ck_assert_ptr_nonnull(f);
		pp_version_write(f, tools[i]);
		fclose(f);
		ck_assert_msg(regexec(&re, text, 0, NULL, 0) == 0,
			      "bad --version line: '%s'", text);
		snprintf(want, sizeof(want), "%s ", pp_tool_name(tools[i]));
		ck_assert_msg(!strncmp(text, want, strlen(want)), "'%s'", text);
		free(text);
	}
	regfree(&re);
}
END_TEST

static int parse_line(struct pp_opts *o, enum pp_tool tool, char *line)
{
	char *argv[16], *save = NULL, *tok;
	struct pp_err err;
	int argc = 0;

	argv[argc++] = "prog";
	for (tok = strtok_r(line, " ", &save); tok && argc < 15;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pp_opts_init(o, tool, "prog");
	return pp_opts_parse(o, argc, argv, &err);
}

/* -V and --version on every tool; like --help they stop parsing. */
START_TEST(test_parse_version)
{
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char l1[] = "--version", l2[] = "-V", l3[] = "-V -s 0 a b c";
		char l4[] = "-s 64 --version";
		struct pp_opts o;

		ck_assert_int_eq(parse_line(&o, tools[i], l1), 0);
		ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_VERSION));
		ck_assert_int_eq(parse_line(&o, tools[i], l2), 0);
		ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_VERSION));
		ck_assert_int_eq(parse_line(&o, tools[i], l3), 0);
		ck_assert(o.set & PP_OPT_BIT(PP_OPT_VERSION));
		ck_assert_int_eq(parse_line(&o, tools[i], l4), 0);
		ck_assert(o.set & PP_OPT_BIT(PP_OPT_VERSION));
		ck_assert(!o.help);
	}
}
END_TEST

static Suite *version_suite(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_from_path);
	tcase_add_test(tc, test_from_path_too_long);
	tcase_add_test(tc, test_get_runtime);
	tcase_add_test(tc, test_get_build);
	tcase_add_test(tc, test_write_format);
	tcase_add_test(tc, test_parse_version);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(version_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
