// SPDX-License-Identifier: MIT
/*
 * test_feat.c - the refusals of rdma-core's letters (-o, -O, -P, -t, -j,
 * -U) over made-up device features: each names the letter, the device and
 * the capability that is missing; a device that has them lets the run go
 * on (ODP), or says the letter is not used yet (-t, -j).
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "check_main.h"
#include "pp_feat.h"
#include "pp_opts.h"

/* The options of @tool with the letters @line (parsed as the tool would). */
static void opts_of(struct pp_opts *o, enum pp_tool tool, char *line)
{
	char *argv[16] = { "prog" };
	int argc = 1;
	struct pp_err err;
	char *tok;

	for (tok = strtok(line, " "); tok && argc < 15; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	pp_opts_init(o, tool, "prog");
	pp_err_clear(&err);
	ck_assert_msg(!pp_opts_parse(o, argc, argv, &err), "%s", err.msg);
}

/* @line on @f must be refused with a message holding @s1 and @s2. */
static void refused(enum pp_tool tool, const char *line,
		    const struct pp_dev_feats *f, const char *s1,
		    const char *s2)
{
	struct pp_opts o;
	struct pp_err err;
	char buf[128];
	int ret;

	snprintf(buf, sizeof(buf), "%s", line);
	opts_of(&o, tool, buf);
	pp_err_clear(&err);
	ret = pp_feat_check(&o, f, "dev9", &err);
	ck_assert_msg(ret == EOPNOTSUPP, "'%s': got %d", line, ret);
	ck_assert_msg(strstr(err.msg, s1) && strstr(err.msg, s2),
		      "'%s': '%s' lacks '%s' or '%s'", line, err.msg, s1, s2);
	ck_assert_msg(strstr(err.msg, "dev9") || strstr(err.msg, "version"),
		      "'%s': '%s' names no device", line, err.msg);
}

static void allowed(enum pp_tool tool, const char *line,
		    const struct pp_dev_feats *f)
{
	struct pp_opts o;
	struct pp_err err;
	char buf[128];
	int ret;

	snprintf(buf, sizeof(buf), "%s", line);
	opts_of(&o, tool, buf);
	pp_err_clear(&err);
	ret = pp_feat_check(&o, f, "dev9", &err);
	ck_assert_msg(ret == 0, "'%s': refused: %s", line, err.msg);
}

#define RC_SR (IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV)

/* Soft-RoCE: no ODP, no timestamps, no device memory. */
START_TEST(test_none)
{
	const struct pp_dev_feats none = { 0 };
	struct pp_opts o;
	char line[] = "-o";

	refused(PP_TOOL_RC, "-o", &none,
		"-o/--odp: device dev9 has no On-Demand Paging",
		"IBV_ODP_SUPPORT not in odp_caps.general_caps");
	refused(PP_TOOL_RC, "-O", &none,
		"-O/--iodp: device dev9 has no On-Demand Paging",
		"general_caps");
	refused(PP_TOOL_RC, "-o -P", &none, "-o/--odp", "no On-Demand Paging");
	refused(PP_TOOL_SRQ, "-o", &none, "-o/--odp", "no On-Demand Paging");
	refused(PP_TOOL_RC, "-t", &none,
		"-t/--ts: device dev9 has no completion timestamps",
		"completion_timestamp_mask is 0");
	refused(PP_TOOL_RC, "-j", &none,
		"-j/--dm: device dev9 has no device memory",
		"max_dm_size is 0");
	refused(PP_TOOL_RC, "-U", &none, "-U/--allow-cc-unprotected",
		"does not implement it");
	/* nothing asked: nothing checked */
	allowed(PP_TOOL_RC, "", &none);
	allowed(PP_TOOL_RC, "-c -e", &none);
	opts_of(&o, PP_TOOL_RC, line);
	ck_assert(pp_feat_wanted(&o));
}
END_TEST

START_TEST(test_odp_bits)
{
	struct pp_dev_feats f = {
		.odp_general = IBV_ODP_SUPPORT,
		.odp_rc = RC_SR,
	};

	allowed(PP_TOOL_RC, "-o", &f);
	allowed(PP_TOOL_RC, "-o -P", &f);
	refused(PP_TOOL_RC, "-O", &f, "-O/--iodp: device dev9 has no implicit",
		"IBV_ODP_SUPPORT_IMPLICIT");
	f.odp_general |= IBV_ODP_SUPPORT_IMPLICIT;
	allowed(PP_TOOL_RC, "-O -P", &f);
	/* an SRQ receives through SRQ_RECV */
	refused(PP_TOOL_SRQ, "-o", &f, "does not cover srq send",
		"rc_odp_caps lacks SRQ_RECV");
	f.odp_rc |= IBV_ODP_SUPPORT_SRQ_RECV;
	allowed(PP_TOOL_SRQ, "-o", &f);
	/* the operation's own bit */
	refused(PP_TOOL_RC, "-o --op write", &f, "does not cover rc write",
		"rc_odp_caps lacks WRITE");
	refused(PP_TOOL_RC, "-o --op read", &f, "rc read", "lacks READ");
	refused(PP_TOOL_RC, "-o --op fetch-add", &f, "rc fetch-add",
		"lacks ATOMIC");
	f.odp_rc |= IBV_ODP_SUPPORT_WRITE;
	allowed(PP_TOOL_RC, "-o --op write", &f);
	allowed(PP_TOOL_RC, "-o --op write-imm", &f);
	/* each transport its own field */
	refused(PP_TOOL_RC, "--uc -o", &f, "does not cover uc send",
		"uc_odp_caps lacks SEND|RECV");
	f.odp_uc = RC_SR;
	allowed(PP_TOOL_RC, "--uc -o", &f);
	refused(PP_TOOL_XRC, "-o", &f, "does not cover xrc send",
		"xrc_odp_caps lacks SEND|SRQ_RECV");
	f.odp_xrc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV;
	allowed(PP_TOOL_XRC, "-o", &f);
}
END_TEST

/* A device with them: -t and -j are not used by this version yet. */
START_TEST(test_ts_dm_present)
{
	const struct pp_dev_feats f = {
		.ts_mask = 0xffffffffffffULL,
		.max_dm_size = 128 * 1024,
	};

	refused(PP_TOOL_RC, "-t", &f,
		"-t/--ts: device dev9 has completion timestamps",
		"run without -t");
	refused(PP_TOOL_RC, "-j", &f, "-j/--dm: device dev9 has device memory",
		"run without -j");
}
END_TEST

static Suite *feat_suite(void)
{
	Suite *s = suite_create("feat");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_odp_bits);
	tcase_add_test(tc, test_ts_dm_present);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(feat_suite)
