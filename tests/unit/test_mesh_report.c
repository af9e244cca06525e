// SPDX-License-Identifier: MIT
/*
 * test_mesh_report.c - the odd one out (pp_mesh_odd) on made-up matrices,
 * and what rank 0 prints (pp_mesh_report): the matrix and its legend, the
 * host table and the facts that differ, the odd ones out, the JSON
 * document and the SVG heatmap.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_gid.h"
#include "pp_json.h"
#include "pp_mesh_odd.h"
#include "pp_mesh_report.h"
#include "pp_mesh_sched.h"

/* rtt(i,j) = 2 * half + add[i] + add[j] + a small fixed wobble. */
static double *made_up(uint32_t n, double half, const double *add)
{
	double *us = calloc((size_t)n * (n - 1) / 2, sizeof(*us));
	uint32_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			us[pp_mesh_pair_index(n, i, j)] =
				2 * half + add[i] + add[j] +
				((i * 7 + j * 3) % 5) * 0.4;
	return us;
}

START_TEST(odd_one_slow_host)
{
	double add[6] = { 0, 0, 0, 2000, 0, 0 }, added[6];
	bool slow[6];
	struct pp_mesh_odd r;
	double *us = made_up(6, 15, add);
	uint32_t i;

	ck_assert_int_eq(pp_mesh_odd_judge(6, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.nslow, 1);
	for (i = 0; i < 6; i++)
		ck_assert_msg(slow[i] == (i == 3), "rank %u", i);
	ck_assert(fabs(added[3] - 2000) < 5);
	ck_assert(fabs(r.baseline_us - 15) < 3);
	/* 10 pairs of ~31 us, 5 of ~2031 */
	ck_assert(r.matrix_median_us > 29 && r.matrix_median_us < 34);
	free(us);
}
END_TEST

/* Two slow hosts of four: each slow pair is explained by its two ends. */
START_TEST(odd_two_slow_of_four)
{
	double add[4] = { 0, 500, 0, 500 }, added[4];
	bool slow[4];
	struct pp_mesh_odd r;
	double *us = made_up(4, 20, add);

	ck_assert_int_eq(pp_mesh_odd_judge(4, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.nslow, 2);
	ck_assert(!slow[0] && slow[1] && !slow[2] && slow[3]);
	free(us);
}
END_TEST

START_TEST(odd_none_and_limits)
{
	double add[8] = { 0 }, added[8];
	bool slow[8];
	struct pp_mesh_odd r;
	double *us = made_up(8, 10, add);
	uint32_t i;

	/* only the wobble: nobody */
	ck_assert_int_eq(pp_mesh_odd_judge(8, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.nslow, 0);
	/* 4 usec more on one host: under PP_MESH_ODD_MIN_US and B */
	free(us);
	add[5] = 4;
	us = made_up(8, 10, add);
	ck_assert_int_eq(pp_mesh_odd_judge(8, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.nslow, 0);
	/* failed pairs are left out, the rest is still judged */
	free(us);
	add[5] = 300;
	us = made_up(8, 10, add);
	us[pp_mesh_pair_index(8, 0, 5)] = NAN;
	us[pp_mesh_pair_index(8, 1, 2)] = NAN;
	ck_assert_int_eq(pp_mesh_odd_judge(8, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.nslow, 1);
	ck_assert(slow[5]);
	/* a rank whose every pair failed is not judged */
	for (i = 0; i < 8; i++)
		if (i != 6)
			us[pp_mesh_pair_index(8, i, 6)] = NAN;
	ck_assert_int_eq(pp_mesh_odd_judge(8, us, added, slow, &r), 0);
	ck_assert(isnan(added[6]) && !slow[6]);
	free(us);
	/* two ranks: nothing to tell apart */
	us = made_up(2, 10, add);
	ck_assert_int_eq(pp_mesh_odd_judge(2, us, added, slow, &r), 0);
	ck_assert(isnan(added[0]) && isnan(added[1]));
	ck_assert(fabs(r.matrix_median_us - 21.2) < 1e-9); /* 20 + wobble */
	free(us);
}
END_TEST

START_TEST(median_rule)
{
	double v[] = { 5, NAN, 1, 3, 2 }, w[] = { NAN, NAN };

	ck_assert(pp_mesh_median(v, 5) == 2.5);
	ck_assert(isnan(pp_mesh_median(w, 2)));
}
END_TEST

/* A side's RESULT: @step, @reason, a median (client), a document. */
static void side(struct pp_mesh_view *v, uint32_t r, uint32_t peer,
		 uint8_t step, bool remote, const char *reason, double us,
		 uint32_t mtu, const char *doc)
{
	struct pp_mesh_result res = { .peer = peer,
				      .step = step,
				      .remote = remote,
				      .path_mtu = mtu,
				      .gid_index = -1 };

	res.median_ns = isfinite(us) ? (uint64_t)llround(us * 1000) :
				       UINT64_MAX;
	snprintf(res.reason, sizeof(res.reason), "%s", reason);
	res.doc = doc;
	res.doc_len = doc ? (uint32_t)strlen(doc) : 0;
	ck_assert_int_eq(pp_mesh_view_side(v, r, peer, &res), 0);
}

/* A pair run, both sides reported, settled. */
static void ran(struct pp_mesh_view *v, uint32_t a, uint32_t b, uint32_t round)
{
	struct pp_mesh_cell *c = &v->cells[pp_mesh_pair_index(v->n, a, b)];

	c->ran = true;
	c->round = round;
}

/*
 * Three ranks on two hosts; pair 1-2 failed at RTR.  With @json, the
 * document is begun on it before the pairs are settled.
 */
static void build(struct pp_mesh_view *v, FILE *json)
{
	static struct pp_mesh_rank ranks[3];
	static struct pp_mesh_cell cells[3];
	uint32_t i;

	memset(ranks, 0, sizeof(ranks));
	memset(cells, 0, sizeof(cells));
	for (i = 0; i < 3; i++) {
		struct pp_mesh_join *j = &ranks[i].facts;

		cells[i].median_us = NAN;
		ranks[i].joined = true;
		snprintf(j->host, sizeof(j->host), "%s",
			 i < 2 ? "node1.example.com" : "node2");
		strcpy(j->dev, "rxe0");
		j->ib_port = 1;
		j->active_mtu = i == 2 ? 1024 : 4096;
		j->gid_index = 1;
		j->gid_type = PP_GID_TYPE_ROCE_V2;
		j->gid_family = PP_GID_FAM_IPV4;
		strcpy(j->gid, "::ffff:10.0.0.1");
		strcpy(j->gid_reason, "given with -g");
		strcpy(j->version, "0.1.0 (abc)");
	}
	*v = (struct pp_mesh_view){
		.tool = "rc_pingpong",
		.transport = "rc",
		.what = "send, 4096 bytes, 1000 iterations",
		.launcher = PP_MESH_SLURM,
		.root = "node1",
		.port = 18515,
		.n = 3,
		.rounds = 3,
		.pair_ms = 31000,
		.bound_s = 108,
		.elapsed_s = 2.5,
		.ranks = ranks,
		.cells = cells,
	};
	if (json)
		ck_assert_int_eq(pp_mesh_view_begin_json(v, json), 0);
	ran(v, 0, 1, 0);
	side(v, 0, 1, PP_MESH_OK, false, "", NAN, 4096, "{not json");
	side(v, 1, 0, PP_MESH_OK, false, "", 31.25, 4096,
	     "{\"role\":\"client\"}");
	pp_mesh_view_settle(v, 0, 1);
	ck_assert_ptr_null(v->store->open[0]); /* nothing kept of it */
	/* a pass without documents (no --json) */
	ran(v, 0, 2, 1);
	side(v, 2, 0, PP_MESH_OK, false, "", 1234.5, 1024, NULL);
	side(v, 0, 2, PP_MESH_OK, false, "", NAN, 1024, NULL);
	pp_mesh_view_settle(v, 2, 0);
	ran(v, 1, 2, 2);
	side(v, 1, 2, PP_MESH_RTR, false,
	     "modify QP 0x000011 to RTR failed: Invalid argument", NAN, 0,
	     NULL);
	side(v, 2, 1, PP_MESH_CONNECT, true,
	     "server: modify QP 0x000011 to RTR failed: Invalid argument", NAN,
	     0, NULL);
	pp_mesh_view_settle(v, 1, 2);
	pp_mesh_view_settle(v, 1, 2); /* twice: nothing more */
}

static char *render(struct pp_mesh_view *v, int kind)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	if (kind == 0)
		pp_mesh_print_text(v, f);
	else if (kind == 1)
		ck_assert_int_eq(pp_mesh_write_json(v, f), 0);
	else
		ck_assert_int_eq(pp_mesh_write_svg(v, f), 0);
	fclose(f);
	return out;
}

START_TEST(report_text)
{
	struct pp_mesh_view v;
	char *t;

	build(&v, NULL);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_uint_eq(v.passed, 2);
	ck_assert_uint_eq(v.failed, 1);
	ck_assert_int_eq(v.exit_status, 1);
	ck_assert_str_eq(v.ranks[0].label, "node1#0");
	ck_assert_str_eq(v.ranks[2].label, "node2");
	t = render(&v, 0);
	ck_assert_msg(strstr(t, "               node1#0  node1#1    node2\n"
				"   0  node1#0        -     31.2     1234\n"
				"   1  node1#1     31.2        -      RTR\n"
				"   2  node2       1234      RTR        -\n"),
		      "%s", t);
	ck_assert_ptr_nonnull(strstr(t, "; RTR a QP's move to RTR\n"));
	ck_assert_ptr_null(strstr(t, "; CONN")); /* only codes shown */
	ck_assert_ptr_nonnull(strstr(
		t,
		"  differs: node2 (rank 2): active MTU 1024, the others 4096\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"  failed: node1#1 - node2 at RTR (a QP's move to RTR)\n"
		"      node1#1: modify QP 0x000011 to RTR failed: Invalid argument\n"
		"      node2: server: modify QP 0x000011 to RTR failed: Invalid argument\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"mesh: 3 of 3 ranks joined, 3 pairs: 2 passed, 1 failed, in 2.5 s (bound 108 s)\n"));
	free(t);
	pp_mesh_view_free(&v);
}
END_TEST

START_TEST(report_json_svg)
{
	struct pp_mesh_view v;
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	ck_assert_ptr_nonnull(f);
	build(&v, f);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(pp_mesh_view_end_json(&v), 0);
	fclose(f);
	ck_assert_msg(pp_json_valid(t), "%s", t);
	ck_assert_ptr_nonnull(strstr(t, "{\"mesh\":{\"schema\":1,"));
	ck_assert_ptr_nonnull(strstr(t, "\"launcher\":\"slurm\""));
	/* the client's own document copied in; a bad one is null */
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"role\":\"client\",\"reported\":true,\"step\":\"ok\",\"error\":null,\"doc\":{\"role\":\"client\"}"));
	ck_assert_ptr_nonnull(strstr(t, "\"doc\":null"));
	/* the pair kept without detail: two sides that reported, no doc */
	ck_assert_ptr_nonnull(strstr(
		t,
		"{\"a\":0,\"b\":2,\"round\":1,\"result\":\"ok\",\"passed\":true,\"median_usec\":1234.5,\"path_mtu\":1024,\"why\":null,\"sides\":[{\"rank\":0,\"role\":\"server\",\"reported\":true,\"step\":\"ok\",\"error\":null,\"doc\":null}"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"cells\":[[\"-\",\"31.2\",\"1234\"]\n,[\"31.2\",\"-\",\"RTR\"]"));
	ck_assert_ptr_nonnull(strstr(
		t, "\"failed_pairs\":[{\"a\":1,\"b\":2,\"result\":\"RTR\"}]"));
	ck_assert_ptr_nonnull(strstr(t, "\"exit_status\":1}}\n"));
	free(t);
	t = render(&v, 2);
	ck_assert_ptr_nonnull(
		strstr(t, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	ck_assert_ptr_nonnull(strstr(t, "node1#1 - node2: RTR</title>"));
	ck_assert_ptr_nonnull(strstr(t, "fill=\"#202020\""));
	ck_assert_ptr_nonnull(strstr(t, "</svg>\n"));
	free(t);
	pp_mesh_view_free(&v);
}
END_TEST

static Suite *mesh_report_suite(void)
{
	Suite *s = suite_create("mesh_report");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, odd_one_slow_host);
	tcase_add_test(tc, odd_two_slow_of_four);
	tcase_add_test(tc, odd_none_and_limits);
	tcase_add_test(tc, median_rule);
	tcase_add_test(tc, report_text);
	tcase_add_test(tc, report_json_svg);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(mesh_report_suite)
