// SPDX-License-Identifier: MIT
/*
 * test_opts.c - unit tests of pp_opts: defaults, parsing, errors, --help.
 */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_opts.h"

#define MAX_ARGS 32

/* A command line in writable storage, as getopt_long may permute it. */
struct cmdline {
	int argc;
	char *argv[MAX_ARGS + 1];
	char buf[1024];
};

/* Split @line on spaces into @cl; argv[0] is "prog". */
static void cmdline_make(struct cmdline *cl, const char *line)
{
	char *tok, *save = NULL;

	snprintf(cl->buf, sizeof(cl->buf), "prog %s", line);
	cl->argc = 0;
	for (tok = strtok_r(cl->buf, " ", &save); tok && cl->argc < MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		cl->argv[cl->argc++] = tok;
	cl->argv[cl->argc] = NULL;
}

/* Init @o for @tool and parse @line; returns what pp_opts_parse returned. */
static int parse(struct pp_opts *o, enum pp_tool tool, const char *line,
		 struct pp_err *err)
{
	static struct cmdline cl;

	pp_opts_init(o, tool, "prog");
	pp_err_clear(err);
	cmdline_make(&cl, line);
	return pp_opts_parse(o, cl.argc, cl.argv, err);
}

/* @line must fail with @errnum and a message holding @s1 and @s2. */
static void expect_fail(enum pp_tool tool, const char *line, int errnum,
			const char *s1, const char *s2)
{
	struct pp_opts o;
	struct pp_err err;
	int ret;

	ret = parse(&o, tool, line, &err);
	ck_assert_msg(ret == errnum, "'%s': got %d (%s), want %d", line, ret,
		      err.msg, errnum);
	ck_assert_msg(err.msg[0], "'%s': no message", line);
	ck_assert_msg(!strchr(err.msg, '\n'), "'%s': newline in '%s'", line,
		      err.msg);
	ck_assert_msg(strstr(err.msg, s1), "'%s': '%s' lacks '%s'", line,
		      err.msg, s1);
	if (s2)
		ck_assert_msg(strstr(err.msg, s2), "'%s': '%s' lacks '%s'",
			      line, err.msg, s2);
}

static void expect_ok(struct pp_opts *o, enum pp_tool tool, const char *line)
{
	struct pp_err err;
	int ret;

	ret = parse(o, tool, line, &err);
	ck_assert_msg(ret == 0, "'%s': got %d: %s", line, ret, err.msg);
}

/* The usage text of @tool, malloc'ed. */
static char *usage_of(enum pp_tool tool)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	pp_opts_usage(f, tool, pp_tool_name(tool));
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(text);
	return text;
}

/* Each run of blanks and newlines in @text becomes one space. */
static void squeeze_spaces(char *text)
{
	char *w = text;
	const char *r;

	for (r = text; *r; r++) {
		if (isspace((unsigned char)*r)) {
			if (w == text || w[-1] != ' ')
				*w++ = ' ';
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

START_TEST(test_defaults_common)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	struct pp_opts o;
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		pp_opts_init(&o, tools[i], "prog");
		ck_assert_int_eq(o.tool, tools[i]);
		ck_assert_str_eq(o.prog, "prog");
		ck_assert_ptr_null(o.host);
		ck_assert_ptr_null(o.bind_addr);
		ck_assert_ptr_null(o.ib_devname);
		ck_assert_uint_eq(o.port, 18515);
		ck_assert_uint_eq(o.ib_port, 1);
		ck_assert_uint_eq(o.mtu, 0);
		ck_assert_uint_eq(o.rx_depth, 500);
		ck_assert_uint_eq(o.iters, 1000);
		ck_assert_uint_eq(o.sl, 0);
		ck_assert_uint_eq(o.hop_limit, 64);
		ck_assert_uint_eq(o.tclass, 0);
		ck_assert_uint_eq(o.flow_label, 0);
		ck_assert_uint_eq(o.pkey_index, 0);
		ck_assert_int_eq(o.gid_index, -1);
		ck_assert_uint_eq(o.timeout_ms, 5000);
		ck_assert(!o.use_event);
		ck_assert(!o.validate);
		ck_assert(!o.help);
		ck_assert_uint_eq(o.set, 0);
	}
}
END_TEST

START_TEST(test_defaults_per_tool)
{
	struct pp_opts o;

	pp_opts_init(&o, PP_TOOL_RC, "rc");
	ck_assert_int_eq(o.transport, PP_TR_RC);
	ck_assert_uint_eq(o.size, 4096);
	ck_assert_uint_eq(o.num_qps, 1);

	pp_opts_init(&o, PP_TOOL_UD, "ud");
	ck_assert_int_eq(o.transport, PP_TR_UD);
	ck_assert_uint_eq(o.size, 1024);
	ck_assert_uint_eq(o.num_qps, 1);

	pp_opts_init(&o, PP_TOOL_SRQ, "srq");
	ck_assert_int_eq(o.transport, PP_TR_SRQ);
	ck_assert_uint_eq(o.size, 4096);
	ck_assert_uint_eq(o.num_qps, 16);

	pp_opts_init(&o, PP_TOOL_XRC, "xrc");
	ck_assert_int_eq(o.transport, PP_TR_XRC);
	ck_assert_uint_eq(o.size, 4096);
	ck_assert_uint_eq(o.num_qps, 1);
}
END_TEST

START_TEST(test_parse_empty)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "");
	ck_assert_ptr_null(o.host);
	ck_assert_uint_eq(o.set, 0);
	ck_assert_uint_eq(o.size, 4096);
}
END_TEST

START_TEST(test_parse_short_forms)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_SRQ,
		  "-p 9000 -d mlx5_0 -i 2 -s 64 -m 1024 -r 100 -n 50 -l 3 -e "
		  "-g 3 -c -q 4 -b 10.0.0.1 -T 30 server1");
	ck_assert_uint_eq(o.port, 9000);
	ck_assert_str_eq(o.ib_devname, "mlx5_0");
	ck_assert_uint_eq(o.ib_port, 2);
	ck_assert_uint_eq(o.size, 64);
	ck_assert_uint_eq(o.mtu, 1024);
	ck_assert_uint_eq(o.rx_depth, 100);
	ck_assert_uint_eq(o.iters, 50);
	ck_assert_uint_eq(o.sl, 3);
	ck_assert(o.use_event);
	ck_assert_int_eq(o.gid_index, 3);
	ck_assert(o.validate);
	ck_assert_uint_eq(o.num_qps, 4);
	ck_assert_str_eq(o.bind_addr, "10.0.0.1");
	ck_assert_uint_eq(o.timeout_ms, 30000);
	ck_assert_str_eq(o.host, "server1");
	ck_assert_int_eq(o.transport, PP_TR_SRQ);
	ck_assert(!o.help);
}
END_TEST

START_TEST(test_parse_long_forms)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_XRC,
		  "--port=9001 --ib-dev rxe0 --ib-port=3 --size 2K --mtu=2048 "
		  "--rx-depth=64 --iters 7 --sl=15 --events --gid-idx=255 "
		  "--chk --num-qp=8 --bind=::1 --timeout=3600 peer");
	ck_assert_uint_eq(o.port, 9001);
	ck_assert_str_eq(o.ib_devname, "rxe0");
	ck_assert_uint_eq(o.ib_port, 3);
	ck_assert_uint_eq(o.size, 2048);
	ck_assert_uint_eq(o.mtu, 2048);
	ck_assert_uint_eq(o.rx_depth, 64);
	ck_assert_uint_eq(o.iters, 7);
	ck_assert_uint_eq(o.sl, 15);
	ck_assert(o.use_event);
	ck_assert_int_eq(o.gid_index, 255);
	ck_assert(o.validate);
	ck_assert_uint_eq(o.num_qps, 8);
	ck_assert_str_eq(o.bind_addr, "::1");
	ck_assert_uint_eq(o.timeout_ms, 3600000);
	ck_assert_str_eq(o.host, "peer");
}
END_TEST

START_TEST(test_parse_host_anywhere)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "peer -n 5");
	ck_assert_str_eq(o.host, "peer");
	ck_assert_uint_eq(o.iters, 5);
}
END_TEST

START_TEST(test_parse_flags_cluster)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_UD, "-ec -g 3");
	ck_assert(o.use_event);
	ck_assert(o.validate);
	ck_assert_int_eq(o.gid_index, 3);
	ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_EVENTS) |
					 PP_OPT_BIT(PP_OPT_CHECK) |
					 PP_OPT_BIT(PP_OPT_GID_IDX));
}
END_TEST

/* --show-gids and --trace: flags every tool takes, off by default. */
START_TEST(test_parse_inspect_flags)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	struct pp_opts o;
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		expect_ok(&o, tools[i], "");
		ck_assert(!o.show_gids && !o.trace);
		expect_ok(&o, tools[i], "--show-gids --trace host");
		ck_assert(o.show_gids && o.trace);
		ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_SHOW_GIDS) |
						 PP_OPT_BIT(PP_OPT_TRACE));
	}
	expect_fail(PP_TOOL_RC, "--trace=1", EINVAL, "--trace",
		    "takes no value");
}
END_TEST

START_TEST(test_parse_uc)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "--uc host");
	ck_assert_int_eq(o.transport, PP_TR_UC);
	ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_UC));
	ck_assert_str_eq(o.host, "host");

	expect_ok(&o, PP_TOOL_RC, "host");
	ck_assert_int_eq(o.transport, PP_TR_RC);
}
END_TEST

/* Issue 17: --op, a word; each transport's rule at the command line. */
START_TEST(test_parse_op)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "host");
	ck_assert_uint_eq(o.op, PP_OP_SEND);
	expect_ok(&o, PP_TOOL_RC, "--op write-imm -e host");
	ck_assert_uint_eq(o.op, PP_OP_WRITE_IMM);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_OP));
	expect_ok(&o, PP_TOOL_RC, "--op=read -a -s 1M host");
	ck_assert_uint_eq(o.op, PP_OP_READ);
	expect_ok(&o, PP_TOOL_RC, "--uc --op write");
	/* an atomic without -s: its 8 bytes */
	expect_ok(&o, PP_TOOL_SRQ, "--op fetch-add host");
	ck_assert_uint_eq(o.op, PP_OP_FETCH_ADD);
	ck_assert_uint_eq(o.size, 8);
	expect_ok(&o, PP_TOOL_RC, "--op cmp-swap -s 8");

	expect_fail(PP_TOOL_RC, "--op rdma-write", EINVAL,
		    "invalid value 'rdma-write' for --op: expected send, write",
		    NULL);
	expect_fail(
		PP_TOOL_RC, "--uc --op read", EINVAL,
		"--op read: not on uc: an unreliable connection carries Send and RDMA Write only",
		NULL);
	expect_fail(
		PP_TOOL_UD, "--op write-imm", EINVAL,
		"--op write-imm: not on ud: a datagram transport carries Send only",
		NULL);
	expect_fail(PP_TOOL_RC, "--op fetch-add -s 16", EINVAL,
		    "use -s 8 (asked -s 16)", NULL);
	expect_fail(PP_TOOL_RC, "--op cmp-swap -a", EINVAL,
		    "use -s 8 without -a", NULL);
	expect_fail(PP_TOOL_RC, "--op write -e", EINVAL, "no event to sleep on",
		    "--op write-imm");
	expect_fail(PP_TOOL_RC, "--op read --rdma-core", EINVAL,
		    "--op is not available with --rdma-core", NULL);
}
END_TEST

START_TEST(test_parse_size_suffixes)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "-s 1M");
	ck_assert_uint_eq(o.size, 1048576);
	expect_ok(&o, PP_TOOL_RC, "-s 0x10");
	ck_assert_uint_eq(o.size, 16);
	expect_ok(&o, PP_TOOL_RC, "-s 1G");
	ck_assert_uint_eq(o.size, 1073741824);
	expect_ok(&o, PP_TOOL_RC, "-s 2G");
	ck_assert_uint_eq(o.size, PP_MAX_SIZE);
	expect_ok(&o, PP_TOOL_RC, "-s 4k");
	ck_assert_uint_eq(o.size, 4096);
	expect_ok(&o, PP_TOOL_RC, "--size=1");
	ck_assert_uint_eq(o.size, 1);
}
END_TEST

START_TEST(test_parse_bounds_inclusive)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_SRQ,
		  "-p 1 -i 255 -l 0 -r 65536 -q 1024 -n 100000000 -T 1");
	ck_assert_uint_eq(o.port, 1);
	ck_assert_uint_eq(o.ib_port, 255);
	ck_assert_uint_eq(o.rx_depth, PP_MAX_RX_DEPTH);
	ck_assert_uint_eq(o.num_qps, PP_MAX_QPS);
	ck_assert_uint_eq(o.iters, PP_MAX_ITERS);
	ck_assert_uint_eq(o.timeout_ms, 1000);
	expect_ok(&o, PP_TOOL_RC, "-p 65535 -g 0 -m 256");
	ck_assert_uint_eq(o.port, 65535);
	ck_assert_int_eq(o.gid_index, 0);
	ck_assert_uint_eq(o.mtu, 256);
}
END_TEST

START_TEST(test_parse_set_mask)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "-s 64 --iters=3 -e host");
	ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_SIZE) |
					 PP_OPT_BIT(PP_OPT_ITERS) |
					 PP_OPT_BIT(PP_OPT_EVENTS));
	/* an option given with its default value is still "given" */
	expect_ok(&o, PP_TOOL_RC, "-p 18515");
	ck_assert_uint_eq(o.set, PP_OPT_BIT(PP_OPT_PORT));
}
END_TEST

START_TEST(test_parse_help)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "--help");
	ck_assert(o.help);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_HELP));
	expect_ok(&o, PP_TOOL_UD, "-h");
	ck_assert(o.help);
	/* help stops parsing: later errors are not reached */
	expect_ok(&o, PP_TOOL_RC, "-h -s 0 a b c");
	ck_assert(o.help);
}
END_TEST

START_TEST(test_parse_twice)
{
	struct pp_opts o;
	struct pp_err err;

	expect_ok(&o, PP_TOOL_RC, "-s 100 hostA");
	ck_assert_uint_eq(o.size, 100);
	ck_assert_str_eq(o.host, "hostA");
	ck_assert_int_eq(parse(&o, PP_TOOL_RC, "-s", &err), EINVAL);
	expect_ok(&o, PP_TOOL_RC, "-n 9 hostB");
	ck_assert_uint_eq(o.size, 4096);
	ck_assert_uint_eq(o.iters, 9);
	ck_assert_str_eq(o.host, "hostB");
	/* a cluster cut short must not leak into the next parse */
	ck_assert_int_eq(parse(&o, PP_TOOL_RC, "-ex", &err), EINVAL);
	expect_ok(&o, PP_TOOL_RC, "-c");
	ck_assert(o.validate);
	ck_assert(!o.use_event);
}
END_TEST

START_TEST(test_err_not_a_number)
{
	expect_fail(PP_TOOL_RC, "-s abc", EINVAL, "-s/--size", "'abc'");
	expect_fail(PP_TOOL_RC, "-s 12x", EINVAL, "-s/--size", "12x");
	expect_fail(PP_TOOL_RC, "--iters=-5", EINVAL, "-n/--iters", "-5");
	expect_fail(PP_TOOL_RC, "-p +1", EINVAL, "-p/--port", "+1");
	expect_fail(PP_TOOL_RC, "-p 1K", EINVAL, "-p/--port", "1K");
	expect_fail(PP_TOOL_RC, "-s 16E", EINVAL, "-s/--size", "16E");
	expect_fail(PP_TOOL_RC, "--size=", EINVAL, "-s/--size", "''");
}
END_TEST

START_TEST(test_err_out_of_range)
{
	expect_fail(PP_TOOL_RC, "-s 0", ERANGE, "-s/--size 0", "2147483648");
	expect_fail(PP_TOOL_RC, "-s 3G", ERANGE, "-s/--size 3G", "1..");
	expect_fail(PP_TOOL_RC, "-l 16", ERANGE, "-l/--sl 16", "0..15");
	expect_fail(PP_TOOL_RC, "-p 0", ERANGE, "-p/--port 0", "1..65535");
	expect_fail(PP_TOOL_RC, "-p 70000", ERANGE, "-p/--port 70000",
		    "1..65535");
	expect_fail(PP_TOOL_RC, "-i 0", ERANGE, "-i/--ib-port 0", "1..255");
	expect_fail(PP_TOOL_RC, "-n 0", ERANGE, "-n/--iters 0", "1..");
	expect_fail(PP_TOOL_SRQ, "-q 0", ERANGE, "-q/--num-qp 0", "1..1024");
	expect_fail(PP_TOOL_XRC, "-q 2000", ERANGE, "-q/--num-qp 2000",
		    "1..1024");
	expect_fail(PP_TOOL_RC, "-r 0", ERANGE, "-r/--rx-depth 0", "1..65536");
	expect_fail(PP_TOOL_RC, "-g 256", ERANGE, "-g/--gid-idx 256", "0..255");
	expect_fail(PP_TOOL_RC, "-T 0", ERANGE, "-T/--timeout 0", "1..3600");
	expect_fail(PP_TOOL_RC, "-n 99999999999999999999", ERANGE, "-n/--iters",
		    "99999999999999999999");
}
END_TEST

START_TEST(test_err_mtu)
{
	expect_fail(PP_TOOL_RC, "-m 1000", EINVAL, "-m/--mtu 1000",
		    "256, 512, 1024, 2048 or 4096");
	expect_fail(PP_TOOL_SRQ, "--mtu=8192", EINVAL, "-m/--mtu 8192", "4096");
	expect_fail(PP_TOOL_XRC, "-m 0", EINVAL, "-m/--mtu 0", "256");
	expect_fail(PP_TOOL_RC, "-m big", EINVAL, "-m/--mtu", "big");
}
END_TEST

/* --expect-mtu and --max-rtt: parsed, stored, and each bad value refused. */
START_TEST(test_thresholds)
{
	struct pp_opts o;
	double v;

	expect_ok(&o, PP_TOOL_RC, "--expect-mtu 4096 --max-rtt 2.5 host");
	ck_assert_uint_eq(o.expect_mtu, 4096);
	ck_assert(o.max_rtt_us == 2.5);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_EXPECT_MTU));
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_MAX_RTT));
	expect_ok(&o, PP_TOOL_UD, "--expect-mtu=256 --max-rtt=0.001 host");
	ck_assert_uint_eq(o.expect_mtu, 256);
	ck_assert(o.max_rtt_us == 0.001);
	expect_ok(&o, PP_TOOL_XRC, "--expect-mtu 1024"); /* a server judges */
	ck_assert_uint_eq(o.expect_mtu, 1024);
	/* the mesh's rank 0 judges each pair: no host, yet --max-rtt */
	expect_ok(&o, PP_TOOL_SRQ, "--mesh --max-rtt 30");
	ck_assert(o.max_rtt_us == 30.0);
	expect_ok(&o, PP_TOOL_RC, "--mesh --expect-mtu 4096");
	ck_assert_uint_eq(o.expect_mtu, 4096);
	expect_ok(&o, PP_TOOL_RC, "host");
	ck_assert_uint_eq(o.expect_mtu, 0);
	ck_assert(o.max_rtt_us == 0.0);

	expect_fail(PP_TOOL_RC, "--expect-mtu 1500 host", EINVAL,
		    "--expect-mtu 1500 is not an IB MTU",
		    "256, 512, 1024, 2048 or 4096");
	expect_fail(PP_TOOL_RC, "--expect-mtu big host", EINVAL,
		    "invalid value 'big' for --expect-mtu", "4096");
	expect_fail(PP_TOOL_RC, "--max-rtt 0 host", ERANGE,
		    "--max-rtt 0 is out of range", "more than 0");
	expect_fail(PP_TOOL_RC, "--max-rtt 0.000 host", ERANGE,
		    "--max-rtt 0.000 is out of range", "more than 0");
	expect_fail(PP_TOOL_RC, "--max-rtt 3600000001 host", ERANGE,
		    "--max-rtt 3600000001 is out of range", "3600000000");
	expect_fail(PP_TOOL_RC, "--max-rtt -2 host", EINVAL,
		    "invalid value '-2' for --max-rtt", "such as 25 or 2.5");
	expect_fail(PP_TOOL_RC, "--max-rtt 1e3 host", EINVAL,
		    "invalid value '1e3' for --max-rtt", "microseconds");
	expect_fail(PP_TOOL_RC, "--max-rtt 2.5us host", EINVAL,
		    "invalid value '2.5us' for --max-rtt", "microseconds");
	expect_fail(PP_TOOL_RC, "--max-rtt . host", EINVAL,
		    "invalid value '.' for --max-rtt", "microseconds");
	expect_fail(PP_TOOL_RC, "--max-rtt", EINVAL, "--max-rtt",
		    "needs a value");
	expect_fail(PP_TOOL_RC, "--max-rtt 20", EINVAL,
		    "--max-rtt is a client option", "give it to the client");
	expect_fail(PP_TOOL_RC, "--expect-mtu 4096 --probe host", EINVAL,
		    "--expect-mtu is not available with --probe", NULL);

	ck_assert_int_eq(pp_parse_usec("12", &v), 0);
	ck_assert(v == 12.0);
	ck_assert_int_eq(pp_parse_usec("12.", &v), 0);
	ck_assert(v == 12.0);
	ck_assert_int_eq(pp_parse_usec(".5", &v), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(pp_parse_usec("", &v), EINVAL);
	ck_assert_int_eq(pp_parse_usec(" 1", &v), EINVAL);
	ck_assert_int_eq(pp_parse_usec("+1", &v), EINVAL);
	ck_assert_int_eq(pp_parse_usec("0x10", &v), EINVAL);
	ck_assert_int_eq(pp_parse_usec("1.2.3", &v), EINVAL);
	ck_assert_int_eq(pp_parse_usec(NULL, &v), EINVAL);
	ck_assert_int_eq(pp_parse_usec("3600000000", &v), 0);
}
END_TEST

START_TEST(test_err_missing_value)
{
	expect_fail(PP_TOOL_RC, "-s", EINVAL, "-s/--size", "needs a value");
	expect_fail(PP_TOOL_RC, "host --iters", EINVAL, "-n/--iters",
		    "needs a value");
	expect_fail(PP_TOOL_RC, "-ec -d", EINVAL, "-d/--ib-dev",
		    "needs a value");
}
END_TEST

START_TEST(test_err_unknown)
{
	expect_fail(PP_TOOL_RC, "-x", EINVAL, "unknown option", "'-x'");
	expect_fail(PP_TOOL_RC, "--foo", EINVAL, "unknown option", "'--foo'");
	expect_fail(PP_TOOL_RC, "--foo=3", EINVAL, "unknown option", "'--foo'");
	expect_fail(PP_TOOL_RC, "--uc=1", EINVAL, "--uc", "takes no value");
	expect_fail(PP_TOOL_RC, "--i 3", EINVAL, "ambiguous", "--ib-port");
}
END_TEST

START_TEST(test_err_not_for_tool)
{
	expect_fail(PP_TOOL_RC, "-q 2", EINVAL, "unknown option", "'-q'");
	expect_fail(PP_TOOL_RC, "--num-qp=2", EINVAL, "unknown option",
		    "'--num-qp'");
	expect_fail(PP_TOOL_UD, "--uc", EINVAL, "unknown option", "'--uc'");
	expect_fail(PP_TOOL_SRQ, "--uc", EINVAL, "unknown option", "'--uc'");
	expect_fail(PP_TOOL_UD, "-m 1024", EINVAL, "unknown option '-m'",
		    "UD has no path MTU option");
	expect_fail(PP_TOOL_UD, "--mtu=1024", EINVAL, "unknown option '--mtu'",
		    "must fit the port's active MTU");
	expect_fail(PP_TOOL_UD, "--mt=1024", EINVAL, "unknown option '--mt'",
		    "see --help");
	expect_fail(PP_TOOL_UD, "-s 0", ERANGE, "out of range",
		    "up to the path MTU (at most 4096)");
	expect_fail(PP_TOOL_RC, "-s 0", ERANGE, "out of range",
		    "allowed 1..2147483648");
	expect_fail(PP_TOOL_UD, "-q 1", EINVAL, "unknown option", "'-q'");
}
END_TEST

START_TEST(test_err_positionals)
{
	expect_fail(PP_TOOL_RC, "a b", EINVAL, "too many arguments", "'b'");
	expect_fail(PP_TOOL_RC, "-n 5 a -e b", EINVAL, "too many arguments",
		    "'b'");
}
END_TEST

START_TEST(test_err_empty_strings)
{
	struct pp_opts o;
	struct pp_err err;
	char *argv[] = { "prog", "-d", "", NULL };
	char *argv2[] = { "prog", "", NULL };
	char *argv3[] = { "prog", "--bind=", NULL };

	pp_opts_init(&o, PP_TOOL_RC, "prog");
	ck_assert_int_eq(pp_opts_parse(&o, 3, argv, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "-d/--ib-dev"));
	pp_opts_init(&o, PP_TOOL_RC, "prog");
	ck_assert_int_eq(pp_opts_parse(&o, 2, argv2, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "host"));
	pp_opts_init(&o, PP_TOOL_RC, "prog");
	ck_assert_int_eq(pp_opts_parse(&o, 2, argv3, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "-b/--bind"));
}
END_TEST

START_TEST(test_err_srq_rx_depth)
{
	struct pp_opts o;

	expect_fail(PP_TOOL_SRQ, "-r 8 -q 16", EINVAL, "-r/--rx-depth 8",
		    "-q/--num-qp 16");
	/* the default rx depth against a large -q */
	expect_fail(PP_TOOL_SRQ, "-q 1000", EINVAL, "-r/--rx-depth 500",
		    "-q/--num-qp 1000");
	expect_ok(&o, PP_TOOL_SRQ, "-r 16 -q 16");
	ck_assert_uint_eq(o.rx_depth, 16);
	/* the rule is srq's: xrc takes a small rx depth */
	expect_ok(&o, PP_TOOL_XRC, "-r 8 -q 16");
	ck_assert_uint_eq(o.num_qps, 16);
}
END_TEST

START_TEST(test_u64_edges)
{
	uint64_t v = 7;

	ck_assert_int_eq(pp_parse_u64("18446744073709551615", false, 0,
				      UINT64_MAX, &v),
			 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(pp_parse_u64("0xffffffffffffffff", false, 0,
				      UINT64_MAX, &v),
			 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(pp_parse_u64("0", false, 0, 10, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(pp_parse_u64("0X1f", false, 0, 100, &v), 0);
	ck_assert_uint_eq(v, 31);
	ck_assert_int_eq(pp_parse_u64("010", false, 0, 100, &v), 0);
	ck_assert_uint_eq(v, 10); /* decimal, never octal */

	v = 7;
	ck_assert_int_eq(pp_parse_u64("18446744073709551616", false, 0,
				      UINT64_MAX, &v),
			 ERANGE);
	ck_assert_int_eq(pp_parse_u64("0x10000000000000000", false, 0,
				      UINT64_MAX, &v),
			 ERANGE);
	ck_assert_int_eq(pp_parse_u64("0x", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("0x0x1", false, 0, UINT64_MAX, &v),
			 EINVAL);
	ck_assert_int_eq(pp_parse_u64(" 1", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("1 ", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("+1", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("-1", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("1K", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("16E", true, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("1KK", true, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("K", true, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64("1.5", false, 0, UINT64_MAX, &v), EINVAL);
	ck_assert_int_eq(pp_parse_u64(NULL, false, 0, UINT64_MAX, &v), EINVAL);
	/* syntax errors win over overflow */
	ck_assert_int_eq(pp_parse_u64("99999999999999999999x", false, 0,
				      UINT64_MAX, &v),
			 EINVAL);
	ck_assert_int_eq(pp_parse_u64("5", false, 6, 10, &v), ERANGE);
	ck_assert_int_eq(pp_parse_u64("11", false, 6, 10, &v), ERANGE);
	ck_assert_uint_eq(v, 7); /* untouched on failure */
}
END_TEST

START_TEST(test_u64_suffixes)
{
	uint64_t v = 0;

	ck_assert_int_eq(pp_parse_u64("1k", true, 0, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 1024);
	ck_assert_int_eq(pp_parse_u64("3M", true, 0, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 3ULL << 20);
	ck_assert_int_eq(pp_parse_u64("5g", true, 0, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 5ULL << 30);
	ck_assert_int_eq(pp_parse_u64("0x10K", true, 0, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 16384);
	/* 2^34 G = 2^64: overflows on the multiplication */
	ck_assert_int_eq(pp_parse_u64("17179869184G", true, 0, UINT64_MAX, &v),
			 ERANGE);
	ck_assert_int_eq(pp_parse_u64("17179869183G", true, 0, UINT64_MAX, &v),
			 0);
	ck_assert_uint_eq(v, 17179869183ULL << 30);
	ck_assert_int_eq(pp_parse_u64("2K", true, 0, 2047, &v), ERANGE);
}
END_TEST

/* The transports' names are pp_transport's (test_transport.c). */
START_TEST(test_names)
{
	ck_assert_str_eq(pp_tool_name(PP_TOOL_RC), "rc_pingpong");
	ck_assert_str_eq(pp_tool_name(PP_TOOL_UD), "ud_pingpong");
	ck_assert_str_eq(pp_tool_name(PP_TOOL_SRQ), "srq_pingpong");
	ck_assert_str_eq(pp_tool_name(PP_TOOL_XRC), "xrc_pingpong");
	ck_assert_str_eq(pp_tool_name((enum pp_tool)0), "unknown");
	ck_assert_str_eq(pp_tool_name((enum pp_tool)5), "unknown");
}
END_TEST

START_TEST(test_mtu_valid)
{
	uint32_t m;
	unsigned int n = 0;

	for (m = 0; m <= 8192; m++)
		if (pp_mtu_valid(m))
			n++;
	ck_assert_uint_eq(n, 5);
	ck_assert(pp_mtu_valid(256));
	ck_assert(pp_mtu_valid(512));
	ck_assert(pp_mtu_valid(1024));
	ck_assert(pp_mtu_valid(2048));
	ck_assert(pp_mtu_valid(4096));
	ck_assert(!pp_mtu_valid(UINT32_MAX));
}
END_TEST

/* Every line of @text is under 80 columns. */
static void assert_narrow(const char *text)
{
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n");

		ck_assert_msg(len < 80, "line of %zu columns: '%.*s'", len,
			      (int)len, line);
		line += len;
		if (*line)
			line++;
	}
}

START_TEST(test_usage_rc)
{
	static const char *const has[] = {
		"Usage:",
		"rc_pingpong [options] <host>",
		"--port=N",
		"--ib-dev=NAME",
		"--ib-port=N",
		"--size=N",
		"--mtu=N",
		"--rx-depth=N",
		"--iters=N",
		"--sl=N",
		"--events",
		"--gid-idx=N",
		"--chk",
		"--uc",
		"--bind=ADDR",
		"--timeout=",
		"--help",
		"-s, --size=N",
		"(default 18515)",
		"(default 4096)",
		"(default 500)",
		"(default 1000)",
		"(default 5)",
		"(default: on RoCE, chosen and printed; on IB,\n",
		" none)\n",
		"-o, --odp ",
		"-O, --iodp ",
		"-P, --prefetch ",
		"-t, --ts ",
		"-j, --dm ",
		"-U, --allow-cc-unprotected ",
		"-N, --new_send ",
		"--show-gids",
		"--trace",
		"(default: first device\n",
		"with an active port)\n",
		"--op=OP",
		"(default send)",
	};
	char *text = usage_of(PP_TOOL_RC);
	size_t i;

	for (i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		ck_assert_msg(strstr(text, has[i]), "rc usage lacks '%s'",
			      has[i]);
	ck_assert_ptr_null(strstr(text, "--num-qp"));
	ck_assert_ptr_null(strstr(text, "-q,"));
	assert_narrow(text);
	free(text);
}
END_TEST

START_TEST(test_usage_ud)
{
	char *text = usage_of(PP_TOOL_UD);

	ck_assert_ptr_nonnull(strstr(text, "--size=N"));
	ck_assert_ptr_nonnull(strstr(text, "(default 1024)"));
	ck_assert_ptr_null(strstr(text, "(default 4096)"));
	ck_assert_ptr_null(strstr(text, "--mtu"));
	ck_assert_ptr_null(strstr(text, "--uc"));
	ck_assert_ptr_null(strstr(text, "--num-qp"));
	assert_narrow(text);
	free(text);
}
END_TEST

START_TEST(test_usage_srq_xrc)
{
	char *text = usage_of(PP_TOOL_SRQ);

	ck_assert_ptr_nonnull(strstr(text, "-q, --num-qp=N"));
	ck_assert_ptr_nonnull(strstr(text, "(default 16)"));
	ck_assert_ptr_nonnull(strstr(text, "--mtu=N"));
	ck_assert_ptr_nonnull(strstr(text, "smaller active MTU"));
	ck_assert_ptr_null(strstr(text, "--uc"));
	assert_narrow(text);
	free(text);

	text = usage_of(PP_TOOL_XRC);
	ck_assert_ptr_nonnull(strstr(text, "--num-qp=N"));
	ck_assert_ptr_nonnull(strstr(text, "(default 18515)"));
	ck_assert_ptr_null(strstr(text, "--uc"));
	assert_narrow(text);
	free(text);
}
END_TEST

/* Every option that parses for a tool is in its usage, and vice versa. */
START_TEST(test_usage_matches_parser)
{
	static const char *const longs[] = {
		"port",	 "ib-dev", "ib-port", "size",	 "mtu", "rx-depth",
		"iters", "sl",	   "events",  "gid-idx", "chk", "num-qp",
		"uc",	 "bind",   "timeout", "help",
	};
	static const char *const vals[] = {
		"1",  "x", "1",	 "1", "1024", "64", "1", "1",
		NULL, "1", NULL, "2", NULL,   "a",  "1", NULL,
	};
	enum pp_tool tool;
	size_t i;

	for (tool = PP_TOOL_RC; tool <= PP_TOOL_XRC; tool++) {
		char *text = usage_of(tool);

		for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
			char line[64], opt[32];
			struct pp_opts o;
			struct pp_err err;
			bool parses, listed;

			snprintf(line, sizeof(line), "--%s%s%s", longs[i],
				 vals[i] ? "=" : "", vals[i] ? vals[i] : "");
			parses = parse(&o, tool, line, &err) == 0;
			/* "--size=N ..." or a flag: "--chk   fill ..." */
			snprintf(opt, sizeof(opt), "--%s%s", longs[i],
				 vals[i] ? "=" : " ");
			listed = strstr(text, opt) != NULL;
			ck_assert_msg(parses == listed,
				      "%s: '%s' parses %d, listed %d (%s)",
				      pp_tool_name(tool), line, parses, listed,
				      err.msg);
		}
		free(text);
	}
}
END_TEST

/*
 * @got, one option's text as --help or the man page printed it (blanks
 * squeezed), is the option's whole help of the table and then its default,
 * if any, whole: a cut line fails here.
 */
static void expect_whole_help(const char *where, const struct pp_opt_info *in,
			      const char *got)
{
	size_t hl = strlen(in->help);
	const char *rest = got + hl, *p;
	char want[256];

	ck_assert_msg(!strncmp(got, in->help, hl),
		      "%s: --%s's help is cut or changed: '%s'", where,
		      in->name, got);
	if (!*rest)
		return;
	if (in->unset) {
		snprintf(want, sizeof(want), " (default: %s)", in->unset);
		ck_assert_msg(!strcmp(rest, want),
			      "%s: --%s's default is cut: '%s', not '%s'",
			      where, in->name, rest, want);
		return;
	}
	ck_assert_msg(!strncmp(rest, " (default ", 10),
		      "%s: --%s: '%s' after its help", where, in->name, rest);
	for (p = rest + 10; isalnum((unsigned char)*p) || *p == '-'; p++)
		;
	ck_assert_msg(p > rest + 10 && !strcmp(p, ")"),
		      "%s: --%s's default is cut: '%s'", where, in->name, rest);
}

/*
 * Walk the option table: every option a tool accepts is in its --help, in
 * the table's order, with its whole text and default on lines of at most 79
 * columns; and whole in the man page's OPTIONS.
 */
START_TEST(test_usage_whole)
{
	static struct pp_opt_info info[PP_OPT_COUNT];
	enum pp_tool tool;

	for (tool = PP_TOOL_RC; tool <= PP_TOOL_XRC; tool++) {
		size_t n = pp_opts_list(tool, info), k = 0, i, len = 0;
		char *usage = usage_of(tool), *man = NULL, *line, *save = NULL;
		char *got = NULL;
		FILE *f;

		for (line = strtok_r(usage, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			const char *name = NULL, *p;

			ck_assert_msg(strlen(line) <= 79,
				      "%s: a line of %zu: %s",
				      pp_tool_name(tool), strlen(line), line);
			if (!strncmp(line, "  -", 3) && line[3] != '-')
				name = line + 6; /* "  -p, --port=N" */
			else if (!strncmp(line, "      --", 8))
				name = line + 6;
			if (!name) {
				/* a continuation of the option before */
				if (got && line[0] == ' ') {
					got = realloc(got,
						      strlen(got) +
							      strlen(line) + 2);
					ck_assert_ptr_nonnull(got);
					strcat(got, " ");
					strcat(got, line);
				}
				continue;
			}
			if (got) {
				squeeze_spaces(got);
				expect_whole_help(pp_tool_name(tool),
						  &info[k - 1], got);
				free(got);
			}
			ck_assert_msg(k < n, "%s: more options than the table",
				      pp_tool_name(tool));
			ck_assert_msg(!strncmp(name + 2, info[k].name,
					       strlen(info[k].name)),
				      "%s: '%s' where --%s was due",
				      pp_tool_name(tool), line, info[k].name);
			p = name + strcspn(name, " ");
			p += strspn(p, " ");
			got = strdup(p);
			ck_assert_ptr_nonnull(got);
			k++;
		}
		ck_assert_ptr_nonnull(got);
		squeeze_spaces(got);
		expect_whole_help(pp_tool_name(tool), &info[k - 1], got);
		free(got);
		ck_assert_uint_eq(k, n);
		free(usage);

		f = open_memstream(&man, &len);
		ck_assert_ptr_nonnull(f);
		pp_opts_write_man(f, tool);
		ck_assert_int_eq(fclose(f), 0);
		for (i = 0; i < n; i++) {
			char key[64], *at, *end;

			snprintf(key, sizeof(key), "**\\-\\-%s**",
				 info[i].name);
			at = strstr(man, key);
			ck_assert_msg(at, "man %s: no --%s", pp_tool_name(tool),
				      info[i].name);
			at = strstr(at, "\n:   ");
			ck_assert_ptr_nonnull(at);
			at += 5;
			end = strstr(at, "\n\n");
			ck_assert_ptr_nonnull(end);
			*end = '\0';
			expect_whole_help("man page", &info[i], at);
			*end = '\n';
		}
		free(man);
	}
}
END_TEST

/* The man page's OPTIONS come from the same table and defaults as --help. */
START_TEST(test_man_matches_usage)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	static const char *const names[] = { "port",	  "ib-dev", "size",
					     "mtu",	  "num-qp", "uc",
					     "show-gids", "trace" };
	size_t t, i;

	for (t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
		char *usage = usage_of(tools[t]), *man = NULL, want[64];
		size_t len = 0;
		FILE *f = open_memstream(&man, &len);

		ck_assert_ptr_nonnull(f);
		pp_opts_write_man(f, tools[t]);
		fclose(f);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			bool in_usage, in_man;

			snprintf(want, sizeof(want), "--%s", names[i]);
			in_usage = strstr(usage, want) != NULL;
			snprintf(want, sizeof(want), "**\\-\\-%s**", names[i]);
			in_man = strstr(man, want) != NULL;
			ck_assert_msg(in_usage == in_man, "%s: --%s %s",
				      pp_tool_name(tools[t]), names[i],
				      in_usage ? "missing from the man page" :
						 "only in the man page");
		}
		ck_assert_ptr_nonnull(strstr(man, "(default 18515)"));
		ck_assert_ptr_nonnull(strstr(man, "(default 1000)"));
		free(man);
		free(usage);
	}
}
END_TEST

/* Issue 6: the measurement options. */
START_TEST(test_parse_measure)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "");
	ck_assert_uint_eq(o.warmup, 0);
	ck_assert(!o.sweep);
	ck_assert_uint_eq(o.duration_s, 0);
	ck_assert(!o.json);
	ck_assert(!o.histogram);
	ck_assert_ptr_null(o.samples_path);
	ck_assert(!o.no_inline);

	expect_ok(
		&o, PP_TOOL_UD,
		"-a -D 7 --warmup 100 --json --histogram --samples /tmp/x --no-inline h");
	ck_assert(o.sweep);
	ck_assert_uint_eq(o.duration_s, 7);
	ck_assert_uint_eq(o.warmup, 100);
	ck_assert(o.json);
	ck_assert(o.histogram);
	ck_assert_str_eq(o.samples_path, "/tmp/x");
	ck_assert(o.no_inline);
	ck_assert_str_eq(o.host, "h");
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_SWEEP));
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_WARMUP));

	expect_ok(&o, PP_TOOL_SRQ, "--all --duration=3600 --warmup=1000000");
	ck_assert(o.sweep);
	ck_assert_uint_eq(o.duration_s, PP_MAX_DURATION_S);
	ck_assert_uint_eq(o.warmup, PP_MAX_WARMUP);
	expect_ok(&o, PP_TOOL_XRC, "--warmup 0 -a -s 64K");
	ck_assert_uint_eq(o.size, 65536);
}
END_TEST

START_TEST(test_err_measure)
{
	expect_fail(PP_TOOL_RC, "-D 0", ERANGE, "-D/--duration 0", "1..3600");
	expect_fail(PP_TOOL_RC, "-D 3601", ERANGE, "-D/--duration", "1..3600");
	expect_fail(PP_TOOL_RC, "--warmup 1000001", ERANGE, "--warmup",
		    "0..1000000");
	expect_fail(PP_TOOL_RC, "--warmup x", EINVAL, "--warmup",
		    "whole number");
	expect_fail(PP_TOOL_RC, "-n 10 -D 1", EINVAL, "-n/--iters",
		    "-D/--duration");
	expect_fail(PP_TOOL_RC, "-D 1 -n 10", EINVAL, "give one", NULL);
	expect_fail(PP_TOOL_RC, "--samples=", EINVAL, "--samples", "file name");
	expect_fail(PP_TOOL_RC, "--json=1", EINVAL, "--json", "takes no value");
	/* the stock wire format cannot carry them */
	expect_fail(PP_TOOL_RC, "--rdma-core -a", EINVAL, "-a/--all",
		    "--rdma-core");
	expect_fail(PP_TOOL_UD, "--warmup 5 --rdma-core", EINVAL, "--warmup",
		    "--rdma-core");
	expect_fail(PP_TOOL_SRQ, "--rdma-core -D 2", EINVAL, "-D/--duration",
		    NULL);
}
END_TEST

/* --probe: rc_pingpong's client only; what it chooses itself is refused. */
START_TEST(test_probe)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "--probe host");
	ck_assert(o.probe);
	ck_assert_str_eq(o.host, "host");
	expect_ok(&o, PP_TOOL_RC, "--probe -n 5 --json -T 3 -d rxe0 host");
	ck_assert(o.probe && o.json);
	expect_ok(&o, PP_TOOL_RC, "host");
	ck_assert(!o.probe);
	expect_fail(PP_TOOL_RC, "--probe", EINVAL, "--probe is a client option",
		    "--persistent");
	expect_fail(PP_TOOL_RC, "--probe -g 1 host", EINVAL,
		    "-g/--gid-idx is not available with --probe", NULL);
	expect_fail(PP_TOOL_RC, "--probe -m 1024 host", EINVAL, "-m/--mtu",
		    "--probe");
	expect_fail(PP_TOOL_RC, "--probe --uc host", EINVAL, "--uc", "--probe");
	expect_fail(PP_TOOL_RC, "--probe --persistent host", EINVAL,
		    "--persistent", "--probe");
	expect_fail(PP_TOOL_RC, "--probe -a host", EINVAL, "-a/--all",
		    "--probe");
	expect_fail(PP_TOOL_RC, "--probe --rdma-core host", EINVAL, "--probe",
		    "--rdma-core");
	expect_fail(PP_TOOL_UD, "--probe host", EINVAL,
		    "unknown option '--probe' for ud_pingpong", NULL);
	expect_fail(PP_TOOL_SRQ, "--probe host", EINVAL, "unknown option",
		    NULL);
	expect_fail(PP_TOOL_XRC, "--probe host", EINVAL, "unknown option",
		    NULL);
}
END_TEST

/* Issue 14: the GRH and the partition, with their bounds and defaults. */
START_TEST(test_grh_options)
{
	struct pp_opts o;
	char *text;

	expect_ok(
		&o, PP_TOOL_UD,
		"--hop-limit 255 --tclass 0xb8 --flow-label 0xfffff --pkey-index 65535");
	ck_assert_uint_eq(o.hop_limit, 255);
	ck_assert_uint_eq(o.tclass, 0xb8);
	ck_assert_uint_eq(o.flow_label, 0xfffff);
	ck_assert_uint_eq(o.pkey_index, 65535);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_HOP_LIMIT));
	expect_fail(PP_TOOL_RC, "--hop-limit 0", ERANGE, "--hop-limit 0",
		    "1..255");
	expect_fail(PP_TOOL_RC, "--tclass 256", ERANGE, "--tclass", "0..255");
	expect_fail(PP_TOOL_RC, "--flow-label 0x100000", ERANGE, "--flow-label",
		    "0..1048575");
	expect_fail(PP_TOOL_RC, "--pkey-index 65536", ERANGE, "--pkey-index",
		    "0..65535");
	/* the partition by its P_Key: each side finds its own index */
	expect_ok(&o, PP_TOOL_RC, "--pkey 0x8001");
	ck_assert_uint_eq(o.pkey, 0x8001);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_PKEY));
	expect_ok(&o, PP_TOOL_RC, "--pkey 1");
	ck_assert_uint_eq(o.pkey, 1);
	expect_fail(PP_TOOL_RC, "--pkey 0x8000", EINVAL, "--pkey 0x8000",
		    "partition 0 is not a partition");
	expect_fail(PP_TOOL_RC, "--pkey 0", ERANGE, "--pkey", "1..65535");
	expect_fail(PP_TOOL_RC, "--pkey 0x10000", ERANGE, "--pkey", NULL);
	expect_fail(PP_TOOL_RC, "--pkey 0xffff --pkey-index 1", EINVAL,
		    "--pkey and --pkey-index both given", NULL);
	text = usage_of(PP_TOOL_RC);
	ck_assert_ptr_nonnull(strstr(text, "--pkey=PKEY"));
	/* the help column moves with the longest option: read it unwrapped */
	squeeze_spaces(text);
	ck_assert_ptr_nonnull(
		strstr(text, "(default: the P_Key at --pkey-index)"));
	free(text);
	text = usage_of(PP_TOOL_SRQ);
	ck_assert_ptr_nonnull(strstr(text, "--hop-limit=N"));
	ck_assert_ptr_nonnull(strstr(text, "(default 64)"));
	ck_assert_ptr_nonnull(strstr(text, "--flow-label=N"));
	free(text);
}
END_TEST

/* The RTS attributes of the reliable QPs: -u, --retry-count, --rnr-retry. */
START_TEST(test_qp_retry_options)
{
	struct pp_opts o;
	char *text;

	/* the defaults: rdma-core's examples' 14, 7, 7 */
	expect_ok(&o, PP_TOOL_RC, "host");
	ck_assert_uint_eq(o.qp_timeout, 14);
	ck_assert_uint_eq(o.retry_count, 7);
	ck_assert_uint_eq(o.rnr_retry, 7);
	ck_assert(!(o.set & PP_OPT_BIT(PP_OPT_QP_TIMEOUT)));
	expect_ok(&o, PP_TOOL_RC, "--qp-timeout 10 --retry-count 1 host");
	ck_assert_uint_eq(o.qp_timeout, 10);
	ck_assert_uint_eq(o.retry_count, 1);
	ck_assert_uint_eq(o.rnr_retry, 7);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_QP_TIMEOUT));
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_RETRY_COUNT));
	ck_assert(!(o.set & PP_OPT_BIT(PP_OPT_RNR_RETRY)));
	/* the bounds, both ends; perftest's -u for the timeout */
	expect_ok(&o, PP_TOOL_SRQ, "-u 0 --retry-count 0 --rnr-retry 0");
	ck_assert_uint_eq(o.qp_timeout, 0);
	ck_assert_uint_eq(o.retry_count, 0);
	ck_assert_uint_eq(o.rnr_retry, 0);
	expect_ok(&o, PP_TOOL_XRC, "-u 31 --retry-count=7 --rnr-retry 7");
	ck_assert_uint_eq(o.qp_timeout, 31);
	ck_assert_uint_eq(o.retry_count, 7);
	ck_assert_uint_eq(o.rnr_retry, 7);
	expect_fail(PP_TOOL_RC, "--qp-timeout 32", ERANGE,
		    "--qp-timeout 32 is out of range: allowed 0..31", NULL);
	expect_fail(PP_TOOL_RC, "-u 32", ERANGE,
		    "-u/--qp-timeout 32 is out of range: allowed 0..31", NULL);
	expect_fail(PP_TOOL_SRQ, "--retry-count 8", ERANGE,
		    "--retry-count 8 is out of range: allowed 0..7", NULL);
	expect_fail(PP_TOOL_XRC, "--rnr-retry 8", ERANGE,
		    "--rnr-retry 8 is out of range: allowed 0..7", NULL);
	expect_fail(PP_TOOL_RC, "--rnr-retry -1", EINVAL,
		    "invalid value '-1' for --rnr-retry", NULL);
	expect_fail(PP_TOOL_RC, "--retry-count", EINVAL, "--retry-count",
		    "needs a value");
	/* no acknowledgements, nothing to time out: UD and UC refuse them */
	expect_fail(PP_TOOL_UD, "--qp-timeout 10", EINVAL,
		    "unknown option '--qp-timeout' for ud_pingpong",
		    "UD sends are never acknowledged");
	expect_fail(PP_TOOL_UD, "-u 10", EINVAL, "unknown option '-u'",
		    "UD sends are never acknowledged");
	expect_fail(PP_TOOL_UD, "--retry-count=1", EINVAL,
		    "unknown option '--retry-count'",
		    "UD sends are never acknowledged");
	expect_fail(PP_TOOL_UD, "--rnr-retry 1", EINVAL,
		    "unknown option '--rnr-retry'",
		    "UD sends are never acknowledged");
	expect_fail(PP_TOOL_RC, "--uc --retry-count 1", EINVAL,
		    "--uc and --retry-count both given",
		    "UC sends are never acknowledged");
	expect_fail(PP_TOOL_RC, "--uc -u 3", EINVAL,
		    "--uc and -u/--qp-timeout both given", NULL);
	expect_fail(PP_TOOL_RC, "--uc --rnr-retry 3", EINVAL,
		    "--uc and --rnr-retry both given", NULL);
	/* the stock wire format cannot carry them */
	expect_fail(PP_TOOL_RC, "--rdma-core --qp-timeout 10", EINVAL,
		    "-u/--qp-timeout is not available with --rdma-core", NULL);
	expect_fail(PP_TOOL_SRQ, "--rdma-core --retry-count 1", EINVAL,
		    "--retry-count is not available with --rdma-core", NULL);
	expect_fail(PP_TOOL_XRC, "--rdma-core --rnr-retry 1", EINVAL,
		    "--rnr-retry is not available with --rdma-core", NULL);
	/* --help: the letter, the bounds' meaning and the default */
	text = usage_of(PP_TOOL_RC);
	squeeze_spaces(text);
	ck_assert_ptr_nonnull(strstr(text, "-u, --qp-timeout=N"));
	ck_assert_ptr_nonnull(strstr(text, "0 waits for ever (default 14)"));
	ck_assert_ptr_nonnull(strstr(text, "--retry-count=N"));
	ck_assert_ptr_nonnull(strstr(text, "--rnr-retry=N"));
	ck_assert_ptr_nonnull(strstr(text, "7 for ever (default 7)"));
	free(text);
	text = usage_of(PP_TOOL_UD);
	ck_assert_ptr_null(strstr(text, "qp-timeout"));
	ck_assert_ptr_null(strstr(text, "retry"));
	free(text);
}
END_TEST

START_TEST(test_measure_rdma_core_output)
{
	struct pp_opts o;

	/* how this side reports is its own business: the stock mode is a
	 * session like ours, with its document, histogram and samples */
	expect_ok(&o, PP_TOOL_RC, "--rdma-core --json");
	ck_assert(o.json && o.rdma_core);
	expect_ok(&o, PP_TOOL_SRQ, "--rdma-core --histogram --samples f");
	ck_assert(o.histogram && o.samples_path && o.rdma_core);
}
END_TEST

START_TEST(test_measure_rdma_core_inline)
{
	struct pp_opts o;

	/* --no-inline is this side's own business: allowed with a stock peer */
	expect_ok(&o, PP_TOOL_RC, "--rdma-core --no-inline");
	ck_assert(o.no_inline && o.rdma_core);
}
END_TEST

/* Issue 15: --counters, every tool, both roles; with a stock peer too. */
START_TEST(test_parse_counters)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	struct pp_opts o;
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		expect_ok(&o, tools[i], "");
		ck_assert(!o.counters);
		expect_ok(&o, tools[i], "--counters");
		ck_assert(o.counters && !o.host);
		ck_assert(o.set & PP_OPT_BIT(PP_OPT_COUNTERS));
		expect_ok(&o, tools[i], "--counters h");
		ck_assert(o.counters);
		ck_assert_str_eq(o.host, "h");
	}
	/* each side reads its own port: a stock peer does not prevent it */
	expect_ok(&o, PP_TOOL_RC, "--rdma-core --counters h");
	ck_assert(o.counters && o.rdma_core);
}
END_TEST

/* rdma-core v64's letters: rc's -o -O -P -t -j -U, srq's and xrc's -o. */
START_TEST(test_parse_stock_letters)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "");
	ck_assert(!o.odp && !o.iodp && !o.prefetch && !o.ts && !o.dm &&
		  !o.cc_unprotected);
	expect_ok(&o, PP_TOOL_RC, "-o h");
	ck_assert(o.odp && !o.iodp);
	expect_ok(&o, PP_TOOL_RC, "-O");
	ck_assert(o.odp && o.iodp); /* implicit ODP is ODP */
	expect_ok(&o, PP_TOOL_RC, "-oP");
	ck_assert(o.odp && o.prefetch);
	expect_ok(&o, PP_TOOL_RC, "--odp --prefetch --ts");
	ck_assert(o.odp && o.prefetch && o.ts);
	expect_ok(&o, PP_TOOL_RC, "-t -j");
	ck_assert(o.ts && o.dm && !o.odp);
	expect_ok(&o, PP_TOOL_RC, "--iodp");
	ck_assert(o.iodp);
	expect_ok(&o, PP_TOOL_RC, "-U");
	ck_assert(o.cc_unprotected);
	expect_ok(&o, PP_TOOL_RC, "-N -c h");
	ck_assert(o.new_send && o.validate && !o.odp);
	expect_ok(&o, PP_TOOL_RC, "--new_send --rdma-core");
	ck_assert(o.new_send && o.rdma_core);
	expect_ok(&o, PP_TOOL_RC, "--allow-cc-unprotected");
	ck_assert(o.cc_unprotected);
	expect_ok(&o, PP_TOOL_SRQ, "-o");
	ck_assert(o.odp);
	expect_ok(&o, PP_TOOL_XRC, "--odp");
	ck_assert(o.odp);
	/* each side's own memory: allowed toward a stock peer */
	expect_ok(&o, PP_TOOL_RC, "--rdma-core -o h");
	ck_assert(o.odp && o.rdma_core);

	/* rdma-core's rules between them */
	expect_fail(PP_TOOL_RC, "-o -j", EINVAL, "-j/--dm and -o/--odp",
		    "cannot be on demand");
	expect_fail(PP_TOOL_RC, "-O -j", EINVAL, "-j/--dm and -O/--iodp",
		    "cannot be on demand");
	expect_fail(PP_TOOL_RC, "-U -o", EINVAL, "-U/--allow-cc-unprotected",
		    "cannot be on demand");
	expect_fail(PP_TOOL_RC, "-U -j", EINVAL, "-U/--allow-cc-unprotected",
		    "cannot be device memory");
	expect_fail(PP_TOOL_RC, "-P", EINVAL, "-P/--prefetch needs -o/--odp",
		    "On-Demand-Paging MR");
	expect_fail(PP_TOOL_RC, "--dm=1", EINVAL, "--dm", "takes no value");
	/* the stock tools that lack them */
	expect_fail(PP_TOOL_UD, "-o", EINVAL, "unknown option", "'-o'");
	expect_fail(PP_TOOL_SRQ, "-O", EINVAL, "unknown option", "'-O'");
	expect_fail(PP_TOOL_SRQ, "-t", EINVAL, "unknown option", "'-t'");
	expect_fail(PP_TOOL_XRC, "-j", EINVAL, "unknown option", "'-j'");
	expect_fail(PP_TOOL_UD, "-N", EINVAL, "unknown option", "'-N'");
}
END_TEST

/* xrc: ibv_xsrq_pingpong's --num_tests is our -n; our -c stays --chk. */
START_TEST(test_parse_xrc_stock_names)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_XRC, "--num_tests 7 h");
	ck_assert_uint_eq(o.iters, 7);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_ITERS));
	expect_ok(&o, PP_TOOL_XRC, "--num_tests=0x10 -c");
	ck_assert_uint_eq(o.iters, 16);
	ck_assert(o.validate);
	expect_fail(PP_TOOL_XRC, "--num_tests 0", ERANGE, "--num_tests",
		    "allowed 1..");
	expect_fail(PP_TOOL_XRC, "--num_tests 5 -D 2", EINVAL, "-n/--iters",
		    "-D/--duration");
	expect_fail(PP_TOOL_RC, "--num_tests 5", EINVAL, "unknown option",
		    "'--num_tests'");
}
END_TEST

/*
 * xrc: ibv_xsrq_pingpong's -c/--clients is our --clients (long name only: our
 * -c stays --chk), a server's count of clients, 1..PP_MAX_CLIENTS.
 */
START_TEST(test_parse_xrc_clients)
{
	struct pp_opts o;
	char *text;

	expect_ok(&o, PP_TOOL_XRC, "");
	ck_assert_uint_eq(o.clients, 0);
	expect_ok(&o, PP_TOOL_XRC, "--clients 3");
	ck_assert_uint_eq(o.clients, 3);
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_CLIENTS));
	ck_assert(!o.validate);
	expect_ok(&o, PP_TOOL_XRC, "--clients=1024 -c --num_tests 5");
	ck_assert_uint_eq(o.clients, PP_MAX_CLIENTS);
	ck_assert(o.validate);
	ck_assert_uint_eq(o.iters, 5);
	expect_ok(&o, PP_TOOL_XRC, "--clients 0x2 --rdma-core -g 1");
	ck_assert_uint_eq(o.clients, 2);
	ck_assert(o.rdma_core);

	expect_fail(PP_TOOL_XRC, "--clients 0", ERANGE,
		    "--clients 0 is out of range", "allowed 1..1024");
	expect_fail(PP_TOOL_XRC, "--clients 1025", ERANGE,
		    "--clients 1025 is out of range", "allowed 1..1024");
	expect_fail(PP_TOOL_XRC, "--clients -1", EINVAL,
		    "invalid value '-1' for --clients", "whole number");
	expect_fail(PP_TOOL_XRC, "--clients 3k", EINVAL,
		    "invalid value '3k' for --clients", NULL);
	expect_fail(PP_TOOL_XRC, "--clients", EINVAL,
		    "option --clients needs a value", NULL);
	expect_fail(PP_TOOL_XRC, "--clients 3 node1", EINVAL,
		    "--clients is a server option",
		    "drop --clients 3 on the client of host 'node1'");
	expect_fail(PP_TOOL_XRC, "--clients 3 --persistent", EINVAL,
		    "--persistent and --clients both given", "give one");
	expect_fail(PP_TOOL_XRC, "--mesh --clients 3", EINVAL,
		    "--clients is not available with --mesh", NULL);
	/* our -c is --chk, and takes no value */
	expect_ok(&o, PP_TOOL_XRC, "-c 3");
	ck_assert(o.validate);
	ck_assert_uint_eq(o.clients, 0);
	ck_assert_str_eq(o.host, "3");
	/* another tool: one line naming the tool that has it */
	expect_fail(PP_TOOL_RC, "--clients 3", EINVAL,
		    "unknown option '--clients' for rc_pingpong",
		    "only xrc_pingpong has it");
	expect_fail(PP_TOOL_SRQ, "--clients=3", EINVAL,
		    "unknown option '--clients' for srq_pingpong",
		    "only xrc_pingpong has it");
	expect_fail(PP_TOOL_UD, "--clients 3", EINVAL,
		    "unknown option '--clients' for ud_pingpong",
		    "only xrc_pingpong has it");
	expect_fail(PP_TOOL_RC, "--num-qp 3", EINVAL,
		    "unknown option '--num-qp' for rc_pingpong",
		    "only srq_pingpong and xrc_pingpong have it");

	text = usage_of(PP_TOOL_XRC);
	ck_assert_ptr_nonnull(strstr(text, "    --clients=N"));
	ck_assert_ptr_nonnull(strstr(text, "ibv_xsrq_pingpong's -c/--clients"));
	assert_narrow(text);
	free(text);
	text = usage_of(PP_TOOL_RC);
	ck_assert_ptr_null(strstr(text, "--clients"));
	free(text);
}
END_TEST

/* --mesh's rails: -d's lists and auto, --mesh-pairs, and their refusals. */
START_TEST(test_parse_mesh_rails)
{
	struct pp_opts o;

	expect_ok(&o, PP_TOOL_RC, "--mesh -d mlx5_0,mlx5_1");
	ck_assert_str_eq(o.ib_devname, "mlx5_0,mlx5_1");
	ck_assert_int_eq(o.mesh_pairs, PP_MESH_PAIRS_DEFAULT);
	expect_ok(&o, PP_TOOL_UD, "--mesh -d auto --mesh-pairs remote");
	ck_assert_str_eq(o.ib_devname, "auto");
	ck_assert_int_eq(o.mesh_pairs, PP_MESH_PAIRS_REMOTE);
	expect_ok(&o, PP_TOOL_SRQ, "--mesh-pairs=all --mesh");
	ck_assert_int_eq(o.mesh_pairs, PP_MESH_PAIRS_ALL);
	expect_ok(&o, PP_TOOL_XRC, "--mesh --mesh-pairs rail -d rxe0");
	ck_assert_int_eq(o.mesh_pairs, PP_MESH_PAIRS_RAIL);
	/* one device is not a list, with or without --mesh */
	expect_ok(&o, PP_TOOL_RC, "-d rxe0");
	expect_fail(
		PP_TOOL_RC, "-d mlx5_0,mlx5_1", EINVAL,
		"-d mlx5_0,mlx5_1 names a device per rank of a host, which needs --mesh",
		"give one device");
	expect_fail(PP_TOOL_RC, "-d auto node1", EINVAL,
		    "-d auto names a device per rank of a host", NULL);
	expect_fail(PP_TOOL_RC, "--mesh -d a,,b", EINVAL,
		    "an empty name in the list", "-d mlx5_0,mlx5_1");
	expect_fail(PP_TOOL_RC, "--mesh -d a,b,", EINVAL,
		    "an empty name in the list", NULL);
	expect_fail(PP_TOOL_RC, "--mesh -d a,b,a", EINVAL, "names a twice",
		    NULL);
	expect_fail(PP_TOOL_RC, "--mesh --mesh-pairs rails", EINVAL,
		    "invalid value 'rails' for --mesh-pairs",
		    "expected rail, all or remote");
	expect_fail(PP_TOOL_RC, "--mesh --mesh-pairs=", EINVAL,
		    "invalid value '' for --mesh-pairs", NULL);
	expect_fail(PP_TOOL_RC, "--mesh-pairs rail", EINVAL,
		    "--mesh-pairs needs --mesh", NULL);
}
END_TEST

START_TEST(test_parse_mesh_prom)
{
	struct pp_opts o;
	char *text;

	expect_ok(&o, PP_TOOL_RC, "--mesh --mesh-size 4");
	ck_assert_ptr_null(o.mesh_prom);
	expect_ok(&o, PP_TOOL_UD, "--mesh --mesh-prom /var/lib/x/mesh.prom");
	ck_assert_str_eq(o.mesh_prom, "/var/lib/x/mesh.prom");
	ck_assert(o.set & PP_OPT_BIT(PP_OPT_MESH_PROM));
	expect_fail(PP_TOOL_RC, "--mesh-prom m.prom", EINVAL,
		    "--mesh-prom needs --mesh", "add --mesh, or drop it");
	expect_fail(PP_TOOL_XRC, "--mesh --mesh-prom=", EINVAL,
		    "invalid value '' for --mesh-prom",
		    "expected a non-empty file name");
	expect_fail(PP_TOOL_SRQ, "--mesh --mesh-prom", EINVAL,
		    "option --mesh-prom needs a value", NULL);
	text = usage_of(PP_TOOL_SRQ);
	ck_assert_ptr_nonnull(strstr(text, "    --mesh-prom=FILE"));
	ck_assert_ptr_nonnull(strstr(text, "Prometheus"));
	assert_narrow(text);
	free(text);
}
END_TEST

static Suite *opts_suite(void)
{
	Suite *s = suite_create("opts");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_defaults_common);
	tcase_add_test(tc, test_defaults_per_tool);
	tcase_add_test(tc, test_parse_empty);
	tcase_add_test(tc, test_parse_short_forms);
	tcase_add_test(tc, test_parse_long_forms);
	tcase_add_test(tc, test_parse_host_anywhere);
	tcase_add_test(tc, test_parse_flags_cluster);
	tcase_add_test(tc, test_parse_uc);
	tcase_add_test(tc, test_parse_inspect_flags);
	tcase_add_test(tc, test_parse_measure);
	tcase_add_test(tc, test_err_measure);
	tcase_add_test(tc, test_probe);
	tcase_add_test(tc, test_measure_rdma_core_inline);
	tcase_add_test(tc, test_parse_counters);
	tcase_add_test(tc, test_qp_retry_options);
	tcase_add_test(tc, test_measure_rdma_core_output);
	tcase_add_test(tc, test_grh_options);
	tcase_add_test(tc, test_man_matches_usage);
	tcase_add_test(tc, test_parse_size_suffixes);
	tcase_add_test(tc, test_parse_bounds_inclusive);
	tcase_add_test(tc, test_parse_set_mask);
	tcase_add_test(tc, test_parse_help);
	tcase_add_test(tc, test_parse_twice);
	tcase_add_test(tc, test_err_not_a_number);
	tcase_add_test(tc, test_err_out_of_range);
	tcase_add_test(tc, test_err_mtu);
	tcase_add_test(tc, test_thresholds);
	tcase_add_test(tc, test_err_missing_value);
	tcase_add_test(tc, test_err_unknown);
	tcase_add_test(tc, test_err_not_for_tool);
	tcase_add_test(tc, test_err_positionals);
	tcase_add_test(tc, test_err_empty_strings);
	tcase_add_test(tc, test_err_srq_rx_depth);
	tcase_add_test(tc, test_u64_edges);
	tcase_add_test(tc, test_u64_suffixes);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_mtu_valid);
	tcase_add_test(tc, test_usage_rc);
	tcase_add_test(tc, test_usage_ud);
	tcase_add_test(tc, test_parse_op);
	tcase_add_test(tc, test_parse_stock_letters);
	tcase_add_test(tc, test_parse_xrc_stock_names);
	tcase_add_test(tc, test_parse_xrc_clients);
	tcase_add_test(tc, test_parse_mesh_rails);
	tcase_add_test(tc, test_usage_srq_xrc);
	tcase_add_test(tc, test_parse_mesh_prom);
	tcase_add_test(tc, test_usage_matches_parser);
	tcase_add_test(tc, test_usage_whole);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(opts_suite)
