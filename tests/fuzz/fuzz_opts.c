// SPDX-License-Identifier: MIT
/*
 * fuzz_opts.c - libFuzzer harness of the command line parser (pp_opts.h).
 *
 * The input, split on NUL bytes, is an argv (after a fixed argv[0], at most
 * MAX_ARGS arguments; every argument in its own allocation so that
 * AddressSanitizer sees any read past its end).  It is parsed by each of the
 * four tools, on a fresh copy each time: getopt_long permutes argv.
 *
 * Invariants checked (abort() when one fails):
 * - success: every field within the bounds that pp_opts.h documents, the
 *   tool unchanged, strings non-empty and pointing into argv, the
 *   cross-option rules kept, no option of another tool applied;
 * - failure: EINVAL or ERANGE, and one non-empty line of error text with no
 *   newline or other control character.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_opts.h"

#define MAX_ARGS 16
#define TCP_PORT_MAX 65535U
#define IB_PORT_MAX 255U

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD, PP_TOOL_SRQ,
				      PP_TOOL_XRC };

static void fail(enum pp_tool tool, const char *what)
{
	fprintf(stderr, "fuzz_opts: %s: invariant broken: %s\n",
		pp_tool_name(tool), what);
	abort();
}

/* Is @s NULL, or one of the arguments (or inside one: "--bind=ADDR")? */
static bool in_argv(const char *s, int argc, char **argv)
{
	int i;

	if (!s)
		return true;
	for (i = 0; i < argc; i++)
		if (s >= argv[i] && s <= argv[i] + strlen(argv[i]))
			return true;
	return false;
}

static void check_str(enum pp_tool tool, const char *s, int argc, char **argv)
{
	if (s && !*s)
		fail(tool, "an empty string accepted");
	if (!in_argv(s, argc, argv))
		fail(tool, "a string that is not in argv");
}

static void check_ok(const struct pp_opts *o, enum pp_tool tool, int argc,
		     char **argv)
{
	if (o->tool != tool)
		fail(tool, "tool changed");
	if (o->port < 1 || o->port > TCP_PORT_MAX)
		fail(tool, "port out of range");
	if (o->ib_port < 1 || o->ib_port > IB_PORT_MAX)
		fail(tool, "ib_port out of range");
	if (o->size < PP_MIN_SIZE || o->size > PP_MAX_SIZE)
		fail(tool, "size out of range");
	if (o->mtu != 0 && !pp_mtu_valid(o->mtu))
		fail(tool, "mtu not an IB MTU");
	if (tool == PP_TOOL_UD && o->mtu != 0)
		fail(tool, "ud_pingpong took -m");
	if (o->rx_depth < 1 || o->rx_depth > PP_MAX_RX_DEPTH)
		fail(tool, "rx_depth out of range");
	if (o->iters < 1 || o->iters > PP_MAX_ITERS)
		fail(tool, "iters out of range");
	if (o->sl > PP_MAX_SL)
		fail(tool, "sl out of range");
	if (o->gid_index < -1 || o->gid_index > (int32_t)PP_MAX_GID_IDX)
		fail(tool, "gid_index out of range");
	if (o->num_qps < 1 || o->num_qps > PP_MAX_QPS)
		fail(tool, "num_qps out of range");
	if ((tool == PP_TOOL_RC || tool == PP_TOOL_UD) && o->num_qps != 1)
		fail(tool, "more than one QP for a single-QP tool");
	if (o->timeout_ms < 1000 || o->timeout_ms > PP_MAX_TIMEOUT_S * 1000)
		fail(tool, "timeout out of range");
	/* every bit used once the options fill the 64 (a shift by 64 is UB) */
	if (o->set &
	    ~(PP_OPT_COUNT >= 64 ? ~0ULL : (1ULL << (PP_OPT_COUNT % 64)) - 1))
		fail(tool, "set has a bit above PP_OPT_COUNT");
	switch (tool) {
	case PP_TOOL_RC:
		if (o->transport != PP_TR_RC && o->transport != PP_TR_UC)
			fail(tool, "transport not rc or uc");
		break;
	case PP_TOOL_UD:
		if (o->transport != PP_TR_UD)
			fail(tool, "transport not ud");
		break;
	case PP_TOOL_SRQ:
		if (o->transport != PP_TR_SRQ)
			fail(tool, "transport not srq");
		/* cross rule; --help and --version stop parsing before it is
		 * applied */
		if (!o->help && !(o->set & PP_OPT_BIT(PP_OPT_VERSION)) &&
		    o->rx_depth < o->num_qps)
			fail(tool, "rx_depth below num_qps");
		break;
	case PP_TOOL_XRC:
		if (o->transport != PP_TR_XRC)
			fail(tool, "transport not xrc");
		break;
	}
	if (tool != PP_TOOL_XRC && o->xrcd_path)
		fail(tool, "--xrc-domain applied");
	check_str(tool, o->host, argc, argv);
	check_str(tool, o->bind_addr, argc, argv);
	check_str(tool, o->ib_devname, argc, argv);
	check_str(tool, o->xrcd_path, argc, argv);
}

static void check_err(const struct pp_err *err, enum pp_tool tool, int ret)
{
	size_t n = strnlen(err->msg, sizeof(err->msg));
	size_t i;

	if (ret != EINVAL && ret != ERANGE)
		fail(tool, "undocumented errno");
	if (n == 0)
		fail(tool, "a failure with no message");
	if (n == sizeof(err->msg))
		fail(tool, "message not NUL-terminated");
	for (i = 0; i < n; i++)
		if ((unsigned char)err->msg[i] < 0x20 ||
		    (unsigned char)err->msg[i] == 0x7f)
			fail(tool,
			     "message has a newline or control character");
}

/* Split @data on NUL into @args (each its own allocation); the count. */
static int split(const uint8_t *data, size_t size, char **args)
{
	size_t start = 0, i;
	int n = 0;

	for (i = 0; i <= size && n < MAX_ARGS; i++) {
		if (i < size && data[i])
			continue;
		if (i == size && start == size && n)
			break; /* a trailing NUL ends the last argument */
		args[n] = malloc(i - start + 1);
		if (!args[n])
			break;
		memcpy(args[n], data + start, i - start);
		args[n][i - start] = '\0';
		n++;
		start = i + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args[MAX_ARGS];
	char *argv[MAX_ARGS + 2];
	char prog[] = "fuzz_opts";
	int nargs, argc, i;
	size_t t;

	nargs = size ? split(data, size, args) : 0;
	for (t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
		struct pp_opts o;
		struct pp_err err;
		int ret;

		argv[0] = prog;
		for (i = 0; i < nargs; i++)
			argv[i + 1] = args[i];
		argc = nargs + 1;
		argv[argc] = NULL;

		pp_opts_init(&o, tools[t], prog);
		pp_err_clear(&err);
		ret = pp_opts_parse(&o, argc, argv, &err);
		if (ret)
			check_err(&err, tools[t], ret);
		else
			check_ok(&o, tools[t], argc, argv);
	}
	for (i = 0; i < nargs; i++)
		free(args[i]);
	return 0;
}
