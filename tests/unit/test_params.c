// SPDX-License-Identifier: MIT
/*
 * test_params.c - the parameter list (pp_params.h) is consistent: its HELLO
 * fields do not overlap each other or the port's fields and fit the body,
 * its flag bits are distinct, every default is within its wire range, and
 * every parameter survives the codec.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_opts.h"
#include "pp_wire.h"

/* The port's fields of HELLO, as docs/dev/protocol.md lists them. */
static const struct {
	size_t off, len;
} port_fields[] = {
	{ 0, 1 },  { 1, 1 },  { 2, 2 },	 { 33, 1 }, { 34, 2 },
	{ 36, 2 }, { 38, 1 }, { 58, 2 }, { 60, 4 },
};

START_TEST(test_no_overlap)
{
	unsigned int owner[PP_WIRE_HELLO_LEN] = { 0 };
	const struct pp_hello *h = NULL;
	unsigned int row = 0;
	size_t i, k;

	(void)h;
	for (i = 0; i < sizeof(port_fields) / sizeof(port_fields[0]); i++)
		for (k = 0; k < port_fields[i].len; k++)
			owner[port_fields[i].off + k] = 100;
#define MARK(name, opt, type, off, ...)                                     \
	row++;                                                              \
	ck_assert_uint_le((off) + sizeof(h->name), PP_WIRE_HELLO_LEN);      \
	for (k = 0; k < sizeof(h->name); k++) {                             \
		ck_assert_msg(!owner[(off) + k], "%s overlaps at byte %zu", \
			      #name, (size_t)(off) + k);                    \
		owner[(off) + k] = row;                                     \
	}
	PP_PARAMS(MARK, PP_PARAM_NONE, PP_PARAM_NONE)
#undef MARK
	ck_assert_uint_ge(row, 12);
}
END_TEST

START_TEST(test_flag_bits)
{
	unsigned int seen = 0, n = 0;

#define BIT(name, opt, bit_name, bit, ...)                  \
	ck_assert_uint_eq(bit_name, bit);                   \
	ck_assert_uint_eq((bit) & ((bit)-1), 0);            \
	ck_assert_msg(!(seen & (bit)), "%s reused", #name); \
	seen |= (bit);                                      \
	n++;
	PP_PARAMS(PP_PARAM_NONE, BIT, PP_PARAM_NONE)
#undef BIT
	ck_assert_uint_eq(seen | PP_F_GIDS | PP_F_GRH, PP_F_ALL);
	ck_assert_uint_eq(seen & (PP_F_GIDS | PP_F_GRH), 0);
	ck_assert_uint_eq(n, 4);
}
END_TEST

/* @h encodes, and decodes to the very same HELLO. */
static void round_trip(const struct pp_hello *h)
{
	static uint8_t buf[PP_WIRE_MAX_MSG];
	static struct pp_msg m, back;
	struct pp_hdr hdr;
	const char *why = "";
	size_t len;

	m = (struct pp_msg){ .type = PP_MSG_HELLO, .u.hello = *h };
	ck_assert_int_eq(pp_wire_encode(&m, buf, sizeof(buf), &len), 0);
	ck_assert_int_eq(pp_wire_decode_hdr(buf, &hdr, &why), 0);
	ck_assert_int_eq(pp_wire_decode_body(&hdr, buf + PP_WIRE_HDR_LEN, &back,
					     &why),
			 0);
	ck_assert_mem_eq(&back.u.hello, h, sizeof(*h));
}

/* Each tool's defaults make a HELLO that the decoder accepts. */
START_TEST(test_defaults_encode)
{
	struct pp_msg m = { .type = PP_MSG_HELLO };
	struct pp_opts o;

	pp_opts_init(&o, (enum pp_tool)_i, "t");
	m.u.hello = (struct pp_hello){
		.tool = (uint8_t)o.tool,
		.transport = (uint8_t)o.transport,
		.active_mtu = 1024,
		.gid_index = PP_GID_INDEX_NONE,
		.timeout_ms = o.timeout_ms,
	};
#define COPY(name, ...) m.u.hello.name = o.name;
	PP_PARAMS(COPY, PP_PARAM_NONE, PP_PARAM_NONE)
#undef COPY
	round_trip(&m.u.hello);
}
END_TEST

/* Each parameter at a distinct value comes back as it went. */
START_TEST(test_each_round_trip)
{
	struct pp_msg m = { .type = PP_MSG_HELLO };

	m.u.hello = (struct pp_hello){
		.tool = PP_TOOL_SRQ,
		.transport = PP_TR_SRQ,
		.flags = PP_F_ALL,
		.active_mtu = 2048,
		.gid_index = 7,
		.mtu = 512,
		.size = PP_MAX_SIZE,
		.iters = PP_MAX_ITERS,
		.rx_depth = PP_MAX_RX_DEPTH,
		.num_qps = PP_MAX_QPS,
		.sl = PP_MAX_SL,
		.warmup = PP_MAX_WARMUP,
		.duration_s = PP_MAX_DURATION_S,
		.hop_limit = PP_MAX_HOP_LIMIT,
		.tclass = PP_MAX_TCLASS,
		.pkey = 0xffff,
		.timeout_ms = PP_WIRE_TIMEOUT_MAX_MS,
		.flow_label = PP_MAX_FLOW_LABEL,
	};
	round_trip(&m.u.hello);
}
END_TEST

static Suite *params_suite(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("list");

	tcase_add_test(tc, test_no_overlap);
	tcase_add_test(tc, test_flag_bits);
	tcase_add_loop_test(tc, test_defaults_encode, PP_TOOL_RC,
			    PP_TOOL_XRC + 1);
	tcase_add_test(tc, test_each_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(params_suite)
