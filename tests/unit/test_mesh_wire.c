// SPDX-License-Identifier: MIT
/*
 * test_mesh_wire.c - the records of the mesh's meeting at rank 0
 * (pp_mesh_wire): every type round trips, every shortened or lengthened
 * body is refused, hostile bytes are refused, random bytes never crash the
 * decoder; and pp_json_valid(), which guards the pair documents rank 0
 * copies into its own.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_json.h"
#include "pp_mesh_env.h"
#include "pp_mesh_wire.h"

#define ROOM (PP_MESH_WIRE_HDR + 16384)

static const char doc[] = "{\"schema\":1,\"x\":[1,2.5,null,\"a\\\"b\"]}\n";

static void sample(uint16_t type, struct pp_mesh_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	switch (type) {
	case PP_MESH_JOIN:
		m->u.join = (struct pp_mesh_join){
			.want_rank = 7,
			.size = 16,
			.tool = 1,
			.transport = 2,
			.ib_port = 1,
			.gid_type = 2,
			.link_layer = 2,
			.gid_family = 1,
			.gid_index = 1,
			.active_mtu = 4096,
			.local = 5,
			.netdev_mtu = 9000,
		};
		strcpy(m->u.join.host, "node07.example.com");
		strcpy(m->u.join.dev, "rxe0");
		strcpy(m->u.join.gid, "::ffff:10.99.1.7");
		strcpy(m->u.join.gid_reason, "GID index 1: RoCE v2, IPv4");
		strcpy(m->u.join.version, "0.1.0 (abc1234)");
		strcpy(m->u.join.mesh_id, "slurm 4242.0");
		break;
	case PP_MESH_WELCOME:
		m->u.welcome = (struct pp_mesh_welcome){ 3, 16, 31000, 36000 };
		break;
	case PP_MESH_REFUSE:
		strcpy(m->u.text, "rank 3 has joined already");
		break;
	case PP_MESH_RUN:
		m->u.run =
			(struct pp_mesh_run){ .round = 4,
					      .peer = 9,
					      .role = 1,
					      .port = 18525,
					      .pair_ms = 31000,
					      .token = 0x8badf00ddeadbeefULL };
		strcpy(m->u.run.peer_host, "10.99.1.9");
		break;
	case PP_MESH_IDLE:
		m->u.round = 12;
		break;
	case PP_MESH_RESULT:
		m->u.result = (struct pp_mesh_result){
			.round = 4,
			.peer = 9,
			.step = PP_MESH_RTR,
			.remote = true,
			.path_mtu = 1024,
			.ret = 22,
			.completed = 0,
			.median_ns = UINT64_MAX,
			.times_us = { 1800, 21000, 900, 4000000000U, 0 },
			.gid_index = 1,
			.gid_type = 2,
			.gid_family = 1,
			.doc = doc,
			.doc_len = sizeof(doc) - 1,
		};
		strcpy(m->u.result.gid, "::ffff:10.99.1.7");
		strcpy(m->u.result.gid_reason, "given with -g");
		strcpy(m->u.result.reason,
		       "server: modify QP 0x000011 to RTR failed: Invalid argument");
		break;
	case PP_MESH_END:
		m->u.end.status = 1;
		strcpy(m->u.end.text, "the mesh is over");
		break;
	}
}

START_TEST(round_trip_each_type)
{
	uint8_t buf[ROOM];
	struct pp_mesh_msg m, d;
	uint16_t type, t;
	uint32_t len;
	size_t n;

	for (t = PP_MESH_JOIN; t <= PP_MESH_END; t++) {
		sample(t, &m);
		ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n),
				 0);
		ck_assert_int_eq(pp_mesh_wire_header(buf, &type, &len), 0);
		ck_assert_uint_eq(type, t);
		ck_assert_uint_eq(len + PP_MESH_WIRE_HDR, n);
		ck_assert_int_eq(pp_mesh_wire_decode(
					 type, buf + PP_MESH_WIRE_HDR, len, &d),
				 0);
		if (t == PP_MESH_RESULT) {
			ck_assert_uint_eq(d.u.result.doc_len, sizeof(doc) - 1);
			ck_assert(
				!memcmp(d.u.result.doc, doc, sizeof(doc) - 1));
			d.u.result.doc = m.u.result.doc;
		}
		ck_assert_msg(!memcmp(&m.u, &d.u, sizeof(m.u)),
			      "type %u differs after the round trip", t);
	}
}
END_TEST

/* Every body one byte short, or one byte long, is refused. */
START_TEST(lengths_checked)
{
	uint8_t buf[ROOM + 1];
	struct pp_mesh_msg m, d;
	uint16_t t;
	size_t n, cut;

	for (t = PP_MESH_JOIN; t <= PP_MESH_END; t++) {
		sample(t, &m);
		ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n),
				 0);
		for (cut = 0; cut < n - PP_MESH_WIRE_HDR; cut++)
			ck_assert_msg(
				pp_mesh_wire_decode(t, buf + PP_MESH_WIRE_HDR,
						    cut, &d) == EPROTO,
				"type %u: %zu bytes accepted", t, cut);
		buf[n] = 0;
		ck_assert_int_eq(pp_mesh_wire_decode(t, buf + PP_MESH_WIRE_HDR,
						     n - PP_MESH_WIRE_HDR + 1,
						     &d),
				 EPROTO);
		/* a room one byte too small */
		ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, n - 1, &n),
				 EMSGSIZE);
	}
}
END_TEST

START_TEST(hostile_fields)
{
	uint8_t buf[ROOM], *b = buf + PP_MESH_WIRE_HDR;
	struct pp_mesh_msg m, d;
	uint16_t type, t;
	uint32_t len;
	size_t n;

	/* the header: magic, version, type, length */
	sample(PP_MESH_IDLE, &m);
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	buf[0] ^= 1;
	ck_assert_int_eq(pp_mesh_wire_header(buf, &type, &len), EPROTO);
	buf[0] ^= 1;
	buf[5] = PP_MESH_WIRE_VERSION - 1; /* a rank of the version before */
	ck_assert_int_eq(pp_mesh_wire_header(buf, &type, &len), EPROTO);
	buf[5] = PP_MESH_WIRE_VERSION;
	buf[7] = 0;
	ck_assert_int_eq(pp_mesh_wire_header(buf, &type, &len), EPROTO);
	buf[7] = 8;
	ck_assert_int_eq(pp_mesh_wire_header(buf, &type, &len), EPROTO);
	buf[7] = PP_MESH_IDLE;
	buf[8] = 0x7f; /* a body of 2 GiB */
	ck_assert_int_eq(pp_mesh_wire_header(buf, &type, &len), EPROTO);
	ck_assert_int_eq(pp_mesh_wire_decode(99, b, 4, &d), EPROTO);

	/* a control character in a string */
	sample(PP_MESH_REFUSE, &m);
	m.u.text[3] = '\n';
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_REFUSE, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);

	/* a string longer than its field: refused on both sides */
	sample(PP_MESH_JOIN, &m);
	memset(m.u.join.dev, 'd', sizeof(m.u.join.dev));
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n),
			 EMSGSIZE);
	m.u.join.dev[sizeof(m.u.join.dev) - 1] = '\0'; /* 63: fits */
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_JOIN, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 0);
	/* dev's length (after 24 fixed bytes and the 18-byte host) says 64 */
	b[44] = 0;
	b[45] = 64;
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_JOIN, b,
					     n - PP_MESH_WIRE_HDR + 1, &d),
			 EPROTO);

	/* values outside their range */
	sample(PP_MESH_JOIN, &m);
	m.u.join.mesh_id[0] = '\0'; /* a rank that names no mesh */
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_JOIN, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	sample(PP_MESH_JOIN, &m);
	m.u.join.local = 16; /* not below the size */
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_JOIN, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	m.u.join.local = 15;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_JOIN, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 0);
	ck_assert_uint_eq(d.u.join.local, 15);
	/* the local index sits after the active MTU: bytes 20..23 */
	ck_assert_uint_eq(b[23], 15);
	sample(PP_MESH_JOIN, &m);
	m.u.join.size = 1;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_JOIN, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	sample(PP_MESH_WELCOME, &m);
	m.u.welcome.rank = 16;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_WELCOME, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	sample(PP_MESH_RUN, &m);
	m.u.run.role = 4;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_RUN, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	sample(PP_MESH_RESULT, &m);
	m.u.result.step = PP_MESH_CODE_COUNT;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_RESULT, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	/* MTU and SLOW are rank 0's judgement: no side reports them */
	for (t = PP_MESH_MTU; t <= PP_MESH_SLOW; t++) {
		sample(PP_MESH_RESULT, &m);
		m.u.result.step = (uint8_t)t;
		ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n),
				 0);
		ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_RESULT, b,
						     n - PP_MESH_WIRE_HDR, &d),
				 EPROTO);
	}
	/* a NUL inside the document */
	sample(PP_MESH_RESULT, &m);
	m.u.result.doc = "{\"a\":\0}";
	m.u.result.doc_len = 7;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_RESULT, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
	sample(PP_MESH_END, &m);
	m.u.end.status = 256;
	ck_assert_int_eq(pp_mesh_wire_encode(&m, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_mesh_wire_decode(PP_MESH_END, b,
					     n - PP_MESH_WIRE_HDR, &d),
			 EPROTO);
}
END_TEST

static uint64_t rng(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Good records with random bytes changed: decoded or refused, no crash. */
START_TEST(fuzz_mutations)
{
	uint8_t buf[ROOM], *b = buf + PP_MESH_WIRE_HDR;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	struct pp_mesh_msg m, d;
	unsigned int i, k, ok = 0, bad = 0;
	size_t n;
	uint16_t t;

	for (i = 0; i < 200000; i++) {
		t = (uint16_t)(PP_MESH_JOIN + i % 7);
		sample(t, &m);
		if (pp_mesh_wire_encode(&m, buf, sizeof(buf), &n))
			ck_abort_msg("encode");
		for (k = 0; k < 1 + rng(&seed) % 4; k++)
			b[rng(&seed) % (n - PP_MESH_WIRE_HDR)] =
				(uint8_t)rng(&seed);
		n -= rng(&seed) % 3 == 0 ? rng(&seed) % 8 : 0;
		if (pp_mesh_wire_decode(t, b, n - PP_MESH_WIRE_HDR, &d))
			bad++;
		else
			ok++;
	}
	ck_assert_uint_gt(ok, 0);
	ck_assert_uint_gt(bad, 0);
}
END_TEST

START_TEST(code_names)
{
	ck_assert_str_eq(pp_mesh_code_name(PP_MESH_OK), "ok");
	ck_assert_str_eq(pp_mesh_code_name(PP_MESH_RTR), "RTR");
	ck_assert_str_eq(pp_mesh_code_name(PP_MESH_FIRST), "1ST");
	ck_assert_str_eq(pp_mesh_code_name(PP_MESH_GONE), "GONE");
	ck_assert_str_eq(pp_mesh_code_name(PP_MESH_MTU), "MTU");
	ck_assert_str_eq(pp_mesh_code_name(PP_MESH_SLOW), "SLOW");
	ck_assert_str_eq(pp_mesh_code_name(99), "?");
	ck_assert(pp_mesh_code_ran(PP_MESH_OK));
	ck_assert(pp_mesh_code_ran(PP_MESH_MTU));
	ck_assert(pp_mesh_code_ran(PP_MESH_SLOW));
	ck_assert(!pp_mesh_code_ran(PP_MESH_DEVICE));
	ck_assert(!pp_mesh_code_flagged(PP_MESH_OK));
	ck_assert(pp_mesh_code_flagged(PP_MESH_SLOW));
	ck_assert_str_eq(pp_mesh_code_text(PP_MESH_DATA),
			 "data check (-c) found a mismatch");
}
END_TEST

START_TEST(json_valid)
{
	static const char *const good[] = {
		"{}",
		"[]",
		" {\"a\": [1, -2.5e+3, true, false, null]} \n",
		"\"\\u00e9\\n\"",
		"0",
		"-0.5",
		"{\"a\":{\"b\":{}}}",
		"\"caf\xc3\xa9\"",
	};
	static const char *const bad[] = {
		"",	    "{",       "{\"a\"}",   "{\"a\":1,}", "[1,]",
		"01",	    "1.",      ".5",	    "+1",	  "tru",
		"\"\t\"",   "\"\\x\"", "\"\\u12\"", "{} {}",	  "{a:1}",
		"\"\xff\"", "nul",     "[1 2]",	    "\"abc",	  "{\"a\":1",
	};
	char deep[200];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(pp_json_valid(good[i]), "refused: %s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!pp_json_valid(bad[i]), "accepted: %s", bad[i]);
	memset(deep, '[', 100);
	memset(deep + 100, ']', 99);
	deep[199] = '\0';
	ck_assert(!pp_json_valid(deep)); /* unbalanced, and too deep */
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	deep[130] = '\0';
	ck_assert(!pp_json_valid(deep)); /* 65 deep */
	deep[129] = '\0';
	ck_assert(pp_json_valid(deep + 1)); /* 64 deep */
}
END_TEST

START_TEST(json_raw)
{
	struct pp_json j;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	pp_json_init(&j, f, false);
	pp_json_begin_object(&j);
	pp_json_key(&j, "ok");
	ck_assert_int_eq(pp_json_raw(&j, " {\"a\": 1}\n"), 0);
	pp_json_key(&j, "bad");
	ck_assert_int_eq(pp_json_raw(&j, "{\"a\": }"), EBADMSG);
	pp_json_null(&j); /* the writer goes on */
	pp_json_end_object(&j);
	ck_assert_int_eq(pp_json_finish(&j), 0);
	fclose(f);
	ck_assert_str_eq(out, "{\"ok\":{\"a\": 1},\"bad\":null}\n");
	free(out);
}
END_TEST

static Suite *mesh_wire_suite(void)
{
	Suite *s = suite_create("mesh_wire");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, round_trip_each_type);
	tcase_add_test(tc, lengths_checked);
	tcase_add_test(tc, hostile_fields);
	tcase_add_test(tc, fuzz_mutations);
	tcase_add_test(tc, code_names);
	tcase_add_test(tc, json_valid);
	tcase_add_test(tc, json_raw);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(mesh_wire_suite)
