// SPDX-License-Identifier: MIT
/*
 * test_mesh_report.c - the odd one out (pp_mesh_odd) on made-up matrices,
 * and what rank 0 prints (pp_mesh_report): the matrix and its legend, the
 * host table and the facts that differ, the odd ones out, the JSON
 * document and the SVG heatmap.
 */
#define _GNU_SOURCE /* asprintf */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check_main.h"
#include "pp_err.h"
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

/* The matrix median read in place is the median of a copy, exactly. */
/*
 * The matrix's noise raises the bar: the rail pairs of 4 emulated hosts x 2
 * NICs on the Soft-RoCE bed (usec; NaN: another rail), which wander by
 * half.  By max(5 usec, B) alone node01:rxe1 (rank 1) came out slow, by
 * 2,258 usec against B = 2,130.5, by chance; a delay of 200 ms on one NIC
 * stands far above the noise and is still found.
 */
START_TEST(odd_noise_bar)
{
	static const double rail[][3] = {
		{ 0, 2, 5628 }, { 0, 4, 5684 }, { 0, 6, 5584 }, { 2, 4, 7194 },
		{ 2, 6, 7718 }, { 4, 6, 3737 }, { 1, 3, 6995 }, { 1, 5, 8110 },
		{ 1, 7, 5227 }, { 3, 5, 6287 }, { 3, 7, 5083 }, { 5, 7, 4560 },
	};
	double us[28], added[8];
	bool slow[8];
	struct pp_mesh_odd r;
	uint32_t i;

	for (i = 0; i < 28; i++)
		us[i] = NAN;
	for (i = 0; i < 12; i++)
		us[pp_mesh_pair_index(8, (uint32_t)rail[i][0],
				      (uint32_t)rail[i][1])] = rail[i][2];
	ck_assert_int_eq(pp_mesh_odd_judge(8, us, added, slow, &r), 0);
	ck_assert(fabs(r.baseline_us - 2130.5) < 0.1);
	ck_assert(fabs(added[1] - 2258) < 0.1);
	/* 1,199 usec left by the model, x 2 for 12 pairs fitted by 9 values */
	ck_assert_msg(r.noise_us > 2300 && r.noise_us < 2500, "%f", r.noise_us);
	ck_assert(r.bar_us > 3000);
	ck_assert_uint_eq(r.nslow, 0);
	/* 200 ms more on rank 5's NIC: its three pairs */
	us[pp_mesh_pair_index(8, 1, 5)] += 200000;
	us[pp_mesh_pair_index(8, 3, 5)] += 200000;
	us[pp_mesh_pair_index(8, 5, 7)] += 200000;
	ck_assert_int_eq(pp_mesh_odd_judge(8, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.nslow, 1);
	ck_assert(slow[5]);
}
END_TEST

/* A deterministic normal draw (Box-Muller over xorshift64). */
static double draw_normal(uint64_t *x)
{
	double u, v;

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	u = ((double)(*x >> 11) + 1) / 9007199254740994.0;
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	v = ((double)(*x >> 11) + 1) / 9007199254740994.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * The meshes K was read off (pp_mesh_odd.c): no slow rank, each pair's
 * median 4,000 usec plus 1,000 x (e^g - 1), g normal (log-normal noise,
 * heavier-tailed than a fabric's), full meshes and rails (rank i on rail
 * i % rails, only pairs within a rail).  At most 1 mesh in 200 names a
 * rank; with K = 3 throughout, 2 rails of 4 named one in 27, 4 rails
 * of 4 one in 13, a full mesh of 4 one in 42.
 */
START_TEST(odd_k_calibrated)
{
	static const struct {
		uint32_t n, rails, peers;
		double k;
	} cfg[] = {
		{ 4, 1, 3, 15 },     { 8, 2, 3, 11 },  { 12, 3, 3, 10.2 },
		{ 16, 4, 3, 9.857 }, { 5, 1, 4, 6.5 }, { 10, 2, 4, 6.5 },
		{ 6, 1, 5, 6 },	     { 12, 2, 5, 6 },  { 7, 1, 6, 4.5 },
		{ 16, 2, 7, 4.5 },   { 9, 1, 8, 3 },   { 20, 2, 9, 3 },
	};
	const uint32_t meshes = 2000;
	uint64_t x = 88172645463325252ULL;
	double us[190], added[20];
	bool slow[20];
	struct pp_mesh_odd r;
	uint32_t c, t, a, b, named;

	for (c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		uint32_t n = cfg[c].n;

		for (t = 0, named = 0; t < meshes; t++) {
			for (a = 0; a < n; a++)
				for (b = a + 1; b < n; b++)
					us[pp_mesh_pair_index(n, a, b)] =
						a % cfg[c].rails !=
								b % cfg[c].rails ?
							NAN :
							4000 + 1000 * (exp(draw_normal(
									       &x)) -
								       1);
			ck_assert_int_eq(
				pp_mesh_odd_judge(n, us, added, slow, &r), 0);
			named += r.nslow > 0;
		}
		ck_assert_uint_eq(r.peers, cfg[c].peers);
		ck_assert_msg(fabs(r.noise_k - cfg[c].k) < 0.01, "%u: K %f", n,
			      r.noise_k);
		ck_assert_msg(named * 200 <= meshes,
			      "%u ranks, %u rails: %u of %u meshes name a rank",
			      n, cfg[c].rails, named, meshes);
	}
	/* fewer than 3 peers: not judged */
	ck_assert(isinf(pp_mesh_odd_k(2, 3, 3)));
	ck_assert(pp_mesh_odd_k(200, 20000, 201) == PP_MESH_ODD_NOISE_K);
}
END_TEST

/*
 * 1,024 ranks on 8 rails, pairs within a rail only: each estimate looks at
 * 32 peers of its own rail (spread over all ranks, 4 in 32 would be), and
 * one NIC adding 20 usec is the one found, by how much it adds.
 */
START_TEST(odd_rails_at_scale)
{
	const uint32_t n = 1024;
	size_t np = (size_t)n * (n - 1) / 2;
	double *us = calloc(np, sizeof(*us)),
	       *added = calloc(n, sizeof(*added));
	bool *slow = calloc(n, sizeof(*slow));
	uint64_t x = 2463534242ULL;
	struct pp_mesh_odd r;
	uint32_t a, b;

	ck_assert(us && added && slow);
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			us[pp_mesh_pair_index(n, a, b)] =
				a % 8 != b % 8 ?
					NAN :
					3 + 0.05 * draw_normal(&x) +
						(a == 37 || b == 37 ? 20 : 0);
	ck_assert_int_eq(pp_mesh_odd_judge(n, us, added, slow, &r), 0);
	ck_assert_uint_eq(r.peers, 32);
	ck_assert_uint_eq(r.nslow, 1);
	ck_assert(slow[37]);
	ck_assert_msg(fabs(added[37] - 20) < 0.2, "%f", added[37]);
	free(us);
	free(added);
	free(slow);
}
END_TEST

/* The matrix median of a copy (to PP_MESH_ODD_COPY pairs), then in place. */
START_TEST(odd_median_in_place)
{
	static const uint32_t sizes[] = { 3, 10, 17, 24, 31, 38, 91, 92, 101 };
	uint32_t n, i, s, seed = 12345;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t np = (size_t)sizes[s] * (sizes[s] - 1) / 2;
		double *us = calloc(np, sizeof(*us)),
		       *copy = calloc(np, sizeof(*copy)), added[101];
		bool slow[101];

		n = sizes[s];
		struct pp_mesh_odd r;

		for (i = 0; i < np; i++) {
			seed = seed * 1103515245 + 12345;
			us[i] = seed % 7 == 0 ? NAN :
						(seed >> 8) % 100000 / 7.0;
			copy[i] = us[i];
		}
		ck_assert_int_eq(pp_mesh_odd_judge(n, us, added, slow, &r), 0);
		ck_assert_msg(r.matrix_median_us ==
				      pp_mesh_median(copy, (uint32_t)np),
			      "%u ranks: %.17g", n, r.matrix_median_us);
		free(us);
		free(copy);
	}
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
	if (doc) { /* pair 0-1's sides say where their time went */
		res.times_us[PP_MESH_T_START] = 1000 * (r + 1);
		res.times_us[PP_MESH_T_DEVICE] = 20000;
		res.times_us[PP_MESH_T_HANDSHAKE] = 3000;
		res.times_us[PP_MESH_T_QP] = 4000;
		res.times_us[PP_MESH_T_LOOP] = 30000 + 2000 * r;
	}
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
	ck_assert_str_eq(v.ranks[0].label, "node1:rxe0#0");
	ck_assert_str_eq(v.ranks[2].label, "node2:rxe0");
	t = render(&v, 0);
	/* a column is 12 wide: its header cut to 11 */
	ck_assert_msg(
		strstr(t,
		       "                   node1:rxe0# node1:rxe0#  node2:rxe0\n"
		       "   0  node1:rxe0#0           -        31.2        1234\n"
		       "   1  node1:rxe0#1        31.2           -         RTR\n"
		       "   2  node2:rxe0          1234         RTR           -\n"),
		"%s", t);
	ck_assert_ptr_nonnull(strstr(t, "; RTR a QP's move to RTR\n"));
	ck_assert_ptr_null(strstr(t, "; CONN")); /* only codes shown */
	ck_assert_ptr_nonnull(strstr(
		t,
		"  differs: node2:rxe0 (rank 2): active MTU 1024, the others 4096\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"  failed: node1:rxe0#1 - node2:rxe0 at RTR (a QP's move to RTR)\n"
		"      node1:rxe0#1: modify QP 0x000011 to RTR failed: Invalid argument\n"
		"      node2:rxe0: server: modify QP 0x000011 to RTR failed: Invalid argument\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"a pair's time, mean (largest) of 2 sides: process start 1.5 ms (2.0), device open 20.0 ms (20.0), handshake 3.0 ms (3.0), QP bring-up 4.0 ms (4.0), loop 31.0 ms (32.0)\n"
		"all pairs: 3 of 3\n"
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
		"\"role\":\"client\",\"reported\":true,\"step\":\"ok\",\"error\":null,\"time_ms\":{\"start\":2,\"device\":20,\"handshake\":3,\"qp\":4,\"loop\":32},\"doc\":{\"role\":\"client\"}"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"pair_time_ms\":{\"sides\":2,\"mean\":{\"start\":1.5,\"device\":20,\"handshake\":3,\"qp\":4,\"loop\":31},\"max\":{\"start\":2,\"device\":20,\"handshake\":3,\"qp\":4,\"loop\":32}}"));
	ck_assert_ptr_nonnull(strstr(t, "\"doc\":null"));
	/* the pair kept without detail: two sides that reported, no doc */
	ck_assert_ptr_nonnull(strstr(
		t,
		"{\"a\":0,\"b\":2,\"round\":1,\"result\":\"ok\",\"passed\":true,\"median_usec\":1234.5,\"path_mtu\":1024,\"why\":null,\"sides\":[{\"rank\":0,\"role\":\"server\",\"reported\":true,\"step\":\"ok\",\"error\":null,\"time_ms\":null,\"doc\":null}"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"cells\":[[\"-\",\"31.2\",\"1234\"]\n,[\"31.2\",\"-\",\"RTR\"]"));
	ck_assert_ptr_nonnull(strstr(
		t, "\"failed_pairs\":[{\"a\":1,\"b\":2,\"result\":\"RTR\"}]"));
	ck_assert_ptr_nonnull(strstr(t, "\"exit_status\":1}}\n"));
	/* 3 ranks: each has 2 others, too few to judge a rank's share */
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"baseline_usec\":null,\"noise_usec\":null,\"noise_k\":null,\"bar_usec\":null,"));
	free(t);
	t = render(&v, 2);
	ck_assert_ptr_nonnull(
		strstr(t, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	ck_assert_ptr_nonnull(
		strstr(t, "node1:rxe0#1 - node2:rxe0: RTR</title>"));
	ck_assert_ptr_nonnull(strstr(t, "fill=\"#202020\""));
	ck_assert_ptr_nonnull(strstr(t, "</svg>\n"));
	free(t);
	pp_mesh_view_free(&v);
}
END_TEST

/*
 * Four ranks judged by --expect-mtu 4096 and --max-rtt 50: rank 2's port
 * runs at 1024 (netdev 1500), the others at 4096 (netdev 9000); pair 0-3
 * is slow.  @fail: pair 1-3 fails at RTR instead.  With @json, the
 * document is begun before the pairs are settled, as rank 0 does.
 */
static void build_thresh(struct pp_mesh_view *v, bool fail, bool judge,
			 FILE *json)
{
	static struct pp_mesh_rank ranks[4];
	static struct pp_mesh_cell cells[6];
	uint32_t i, a, b;

	memset(ranks, 0, sizeof(ranks));
	memset(cells, 0, sizeof(cells));
	for (i = 0; i < 4; i++) {
		struct pp_mesh_join *j = &ranks[i].facts;

		ranks[i].joined = true;
		snprintf(j->host, sizeof(j->host), "node%u.example.com", i);
		j->link_layer = 2; /* Ethernet: RoCE */
		j->active_mtu = i == 2 ? 1024 : 4096;
		j->netdev_mtu = i == 2 ? 1500 : 9000;
		j->gid_index = -1;
	}
	for (i = 0; i < 6; i++)
		cells[i].median_us = NAN;
	*v = (struct pp_mesh_view){
		.tool = "rc_pingpong",
		.transport = "rc",
		.n = 4,
		.rounds = 3,
		.ranks = ranks,
		.cells = cells,
		.expect_mtu = judge ? 4096 : 0,
		.max_rtt_us = judge ? 50 : 0,
		.rtt_size = 4096,
	};
	if (json)
		ck_assert_int_eq(pp_mesh_view_begin_json(v, json), 0);
	for (a = 0; a < 4; a++)
		for (b = a + 1; b < 4; b++) {
			uint32_t mtu = a == 2 || b == 2 ? 1024 : 4096;
			bool bad = fail && a == 1 && b == 3;

			ran(v, a, b, a);
			side(v, a, b, bad ? PP_MESH_RTR : PP_MESH_OK, false,
			     bad ? "RTR failed" : "", NAN, mtu, NULL);
			side(v, b, a, bad ? PP_MESH_CONNECT : PP_MESH_OK, bad,
			     bad ? "server: RTR failed" : "",
			     a == 0 && b == 3 ? 80.5 : 30, mtu, NULL);
			pp_mesh_view_settle(v, a, b);
		}
}

START_TEST(report_thresholds)
{
	struct pp_mesh_view v;
	const struct pp_mesh_cell *c;
	char *t = NULL, *js = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&js, &len);

	ck_assert_ptr_nonnull(f);
	build_thresh(&v, false, true, f);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	/* exactly rank 2's pairs are MTU; 0-3 is SLOW; the rest pass */
	ck_assert_uint_eq(v.cells[pp_mesh_pair_index(4, 0, 2)].code,
			  PP_MESH_MTU);
	ck_assert_uint_eq(v.cells[pp_mesh_pair_index(4, 1, 2)].code,
			  PP_MESH_MTU);
	ck_assert_uint_eq(v.cells[pp_mesh_pair_index(4, 2, 3)].code,
			  PP_MESH_MTU);
	ck_assert_uint_eq(v.cells[pp_mesh_pair_index(4, 0, 3)].code,
			  PP_MESH_SLOW);
	ck_assert_uint_eq(v.cells[pp_mesh_pair_index(4, 0, 1)].code,
			  PP_MESH_OK);
	ck_assert_uint_eq(v.cells[pp_mesh_pair_index(4, 1, 3)].code,
			  PP_MESH_OK);
	/* a flagged pair ran: its median and path MTU stay */
	c = &v.cells[pp_mesh_pair_index(4, 0, 3)];
	ck_assert(c->median_us == 80.5);
	c = &v.cells[pp_mesh_pair_index(4, 1, 2)];
	ck_assert(c->median_us == 30);
	ck_assert_uint_eq(c->path_mtu, 1024);
	ck_assert_uint_eq(v.passed, 2);
	ck_assert_uint_eq(v.nflagged, 4);
	ck_assert_uint_eq(v.flagged[PP_MESH_MTU], 3);
	ck_assert_uint_eq(v.flagged[PP_MESH_SLOW], 1);
	ck_assert_uint_eq(v.failed, 0);
	ck_assert_int_eq(v.exit_status, 4);
	t = render(&v, 0);
	ck_assert_msg(strstr(t,
			     "   1  node1    30.0       -     MTU    30.0\n"),
		      "%s", t);
	ck_assert_msg(
		strstr(t,
		       "; MTU the path MTU is below --expect-mtu; SLOW the median is above --max-rtt\n"),
		"%s", t);
	/* the line names rank 2's side, its active MTU and netdev MTU */
	ck_assert_msg(
		strstr(t,
		       "  flagged: node1 - node2 at MTU (the path MTU is below --expect-mtu): path MTU 1024 is below --expect-mtu 4096: the active MTU of node2 (rank 2) is 1024 (netdev MTU 1500), of node1 (rank 1) 4096: raise its netdev MTU to at least 4200 (4096 and the RoCE headers), or give --expect-mtu 1024\n"),
		"%s", t);
	ck_assert_msg(
		strstr(t,
		       "  flagged: node0 - node3 at SLOW (the median is above --max-rtt): median round trip 80.500 usec is above --max-rtt 50 usec (size 4096)\n"),
		"%s", t);
	ck_assert_msg(
		strstr(t,
		       "mesh: 4 of 4 ranks joined, 6 pairs: 2 passed, 4 flagged (MTU 3, SLOW 1), 0 failed, in "),
		"%s", t);
	ck_assert_ptr_null(strstr(t, "no failure on this side"));
	free(t);
	ck_assert_int_eq(pp_mesh_view_end_json(&v), 0);
	fclose(f);
	t = js;
	ck_assert_msg(pp_json_valid(t), "%s", t);
	ck_assert_ptr_nonnull(
		strstr(t, "\"expect_mtu\":4096,\"max_rtt_usec\":50}"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"{\"a\":0,\"b\":3,\"round\":0,\"result\":\"SLOW\",\"passed\":false,\"median_usec\":80.5,\"path_mtu\":4096,\"why\":\"median round trip 80.500 usec"));
	ck_assert_ptr_nonnull(strstr(t, "\"netdev_mtu\":1500"));
	ck_assert_ptr_nonnull(
		strstr(t, "\"median_usec\":[[null,30,30,80.5]\n"));
	ck_assert_ptr_nonnull(
		strstr(t, "\"passed\":2,\"flagged\":4,\"failed\":0,"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"failed_pairs\":[],\"flagged_pairs\":[{\"a\":0,\"b\":2,\"result\":\"MTU\"},{\"a\":0,\"b\":3,\"result\":\"SLOW\"},"));
	ck_assert_ptr_nonnull(strstr(t, "\"exit_status\":4}}\n"));
	free(t);
	t = render(&v, 2);
	ck_assert_ptr_nonnull(strstr(t, "node0 - node3: SLOW</title>"));
	ck_assert_ptr_nonnull(strstr(t, "fill=\"#8e44ad\" stroke"));
	ck_assert_ptr_null(strstr(t, "fill=\"#202020\" stroke"));
	free(t);
	pp_mesh_view_free(&v);

	/* a failure besides the flags: 1 wins */
	build_thresh(&v, true, true, NULL);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_uint_eq(v.failed, 1);
	ck_assert_uint_eq(v.nflagged, 4);
	ck_assert_int_eq(v.exit_status, 1);
	pp_mesh_view_free(&v);

	/* no thresholds given: every pair passes, 0, no "flagged" */
	build_thresh(&v, false, false, NULL);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_uint_eq(v.passed, 6);
	ck_assert_uint_eq(v.nflagged, 0);
	/*
	 * but pair 0-3 is 50.5 usec above the others, whose rows say 30: a
	 * slow link, not its ends, and 4
	 */
	ck_assert_uint_eq(v.verdicts->total, 1);
	ck_assert_int_eq(v.exit_status, 4);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "verdict: slow link node0 (rank 0) - node3 (rank 3): 80.5 usec, 50.5 usec more than its two ends predict (30.0 usec)"),
		"%s", t);
	ck_assert_ptr_nonnull(strstr(t, "6 pairs: 6 passed, 0 failed, in"));
	free(t);
	pp_mesh_view_free(&v);
}
END_TEST

/* @n ranks "h0", "h1", ..., joined, every pair unsettled. */
static void big(struct pp_mesh_view *v, uint32_t n)
{
	size_t np = (size_t)n * (n - 1) / 2, k;
	uint32_t i;

	*v = (struct pp_mesh_view){ .tool = "rc_pingpong",
				    .transport = "rc",
				    .what = "send, 2 bytes, 1000 iterations",
				    .root = "h0",
				    .port = 18515,
				    .n = n,
				    .rounds = n - 1,
				    .pair_ms = 31000,
				    .bound_s = 100,
				    .elapsed_s = 1 };
	v->ranks = calloc(n, sizeof(*v->ranks));
	v->cells = calloc(np, sizeof(*v->cells));
	ck_assert(v->ranks && v->cells);
	for (k = 0; k < np; k++)
		v->cells[k].median_us = NAN;
	for (i = 0; i < n; i++) {
		struct pp_mesh_join *j = &v->ranks[i].facts;

		v->ranks[i].joined = true;
		snprintf(j->host, sizeof(j->host), "h%u", i);
		strcpy(j->dev, "rxe0");
		j->ib_port = 1;
		j->active_mtu = 4096;
		j->gid_index = -1;
		strcpy(j->version, "0.1.0 (abc)");
	}
}

static void big_free(struct pp_mesh_view *v)
{
	pp_mesh_view_free(v);
	free(v->ranks);
	free(v->cells);
}

/* A pair that ran and passed at @us. */
static void pass(struct pp_mesh_view *v, uint32_t a, uint32_t b, double us)
{
	ran(v, a, b, 0);
	side(v, a, b, PP_MESH_OK, false, "", NAN, 4096, NULL);
	side(v, b, a, PP_MESH_OK, false, "", us, 4096, NULL);
	pp_mesh_view_settle(v, a, b);
}

static unsigned int count_lines(const char *t, size_t *longest)
{
	unsigned int n = 0;
	const char *p = t, *nl;

	*longest = 0;
	for (; (nl = strchr(p, '\n')); p = nl + 1, n++)
		if ((size_t)(nl - p) > *longest)
			*longest = (size_t)(nl - p);
	return n;
}

/* The text report's bound, whatever N (docs/mesh.md). */
#define TEXT_LINES_MAX 500

/*
 * 1,024 ranks without a device: one line for the ranks, one group (4
 * lines) for the 523,776 pairs, no matrix; the text within its bound.
 */
START_TEST(report_grouped)
{
	struct pp_mesh_view v;
	uint32_t a, b, i;
	size_t longest;
	char *t, why[80];

	big(&v, 1024);
	for (i = 0; i < v.n; i++)
		strcpy(v.ranks[i].facts.error,
		       "no RDMA device found (ibv_get_device_list: 0 devices)");
	for (a = 0; a < v.n; a++)
		for (b = a + 1; b < v.n; b++) {
			ran(&v, a, b, 0);
			snprintf(why, sizeof(why),
				 "no RDMA device found (rank %u)", a);
			side(&v, a, b, PP_MESH_DEVICE, false, why, NAN, 0,
			     NULL);
			snprintf(why, sizeof(why),
				 "no RDMA device found (rank %u)", b);
			side(&v, b, a, PP_MESH_DEVICE, false, why, NAN, 0,
			     NULL);
			pp_mesh_view_settle(&v, a, b);
		}
	ck_assert_uint_eq(v.store->ngroups, 1);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "\n  device: no RDMA device found (ibv_get_device_list: 0 devices): 1,024 of 1,024 ranks, e.g. h0:rxe0 (rank 0), h1:rxe0 (rank 1), h2:rxe0 (rank 2)\n"),
		"%s", t);
	ck_assert_msg(
		strstr(t,
		       "\n  failed: 523,776 pairs at DEV (the RDMA device or port could not be opened), e.g. h0:rxe0 - h1:rxe0, h0:rxe0 - h2:rxe0, h0:rxe0 - h3:rxe0; the first:\n"
		       "      h0:rxe0: no RDMA device found (rank 0)\n"
		       "      h1:rxe0: no RDMA device found (rank 1)\n"),
		"%s", t);
	ck_assert_ptr_null(strstr(t, "median round trip (usec) of each pair"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"1,024 ranks: too many for a matrix 160 columns wide; --json has the matrix, --mesh-svg draws it\n"));
	ck_assert_uint_le(count_lines(t, &longest), 60);
	free(t);
	big_free(&v);
}
END_TEST

/*
 * Every pair of 40 fails with a reason of its own: 16 printed whole, then
 * the count of the others; with every list at its longest the text stays
 * within TEXT_LINES_MAX lines at 64 ranks (the host table's longest) and
 * at 1,024.
 */
static void worst_case(struct pp_mesh_view *v, uint32_t n)
{
	uint32_t a, b, i;
	char why[80];

	big(v, n);
	for (i = 0; i < n; i++) {
		struct pp_mesh_join *j = &v->ranks[i].facts;
		char name[8] = { (char)('a' + i % 26),
				 (char)('a' + i / 26 % 26),
				 (char)('a' + i / 676 % 26), 0 };

		if (i % 4 == 1)
			snprintf(j->error, sizeof(j->error), "device %s failed",
				 name);
		if (i % 4 == 2) {
			v->ranks[i].gone = true;
			snprintf(v->ranks[i].gone_why,
				 sizeof(v->ranks[i].gone_why), "gone %s", name);
		}
		if (i % 4 == 3)
			v->ranks[i].joined = false;
		j->active_mtu = 1024 + i; /* each differs */
		snprintf(j->version, sizeof(j->version), "v-%s", name);
	}
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			size_t k = pp_mesh_pair_index(n, a, b);
			char name[8] = { (char)('a' + k % 26),
					 (char)('a' + k / 26 % 26),
					 (char)('a' + k / 676 % 26),
					 (char)('a' + k / 17576 % 26), 0 };

			if (k >= 1000) { /* enough to fill the store */
				v->cells[k].code = PP_MESH_OK;
				v->cells[k].median_us = 20;
				continue;
			}
			ran(v, a, b, 0);
			snprintf(why, sizeof(why), "failure %s", name);
			side(v, a, b, PP_MESH_RTR, false, why, NAN, 0, NULL);
			side(v, b, a, PP_MESH_RTR, false, why, NAN, 0, NULL);
			pp_mesh_view_settle(v, a, b);
		}
	ck_assert_int_eq(pp_mesh_view_judge(v), 0);
}

START_TEST(report_capped)
{
	static const uint32_t sizes[] = { 40, 64, 1024 };
	struct pp_mesh_view v;
	unsigned int lines, i, failed = 0;
	size_t longest;
	const char *p;
	char *t;

	for (i = 0; i < 3; i++) {
		worst_case(&v, sizes[i]);
		ck_assert_uint_eq(v.store->ngroups, PP_MESH_GROUPS);
		t = render(&v, 0);
		lines = count_lines(t, &longest);
		ck_assert_msg(lines <= TEXT_LINES_MAX, "%u ranks: %u lines",
			      sizes[i], lines);
		ck_assert_uint_le(longest, 2000);
		if (sizes[i] == 40) {
			for (p = t; (p = strstr(p, "\n  failed: ")); p++)
				failed++;
			/* 16 reasons whole (a line each and its sides) */
			ck_assert_uint_eq(failed, PP_MESH_GROUPS + 1);
			ck_assert_msg(
				strstr(t,
				       "\n  failed: and 764 more pairs of other reasons (--json's pairs has each)\n"),
				"%s", t);
			ck_assert_ptr_nonnull(strstr(
				t, "\n  failed: h0:rxe0 - h1:rxe0 at RTR ("));
			ck_assert_ptr_nonnull(
				strstr(t, "\n      h1:rxe0: failure aaaa\n"));
		}
		if (sizes[i] == 1024)
			ck_assert_msg(
				strstr(t,
				       "\n  differs: and 491 more ranks' active MTU (--json's hosts has each)\n"),
				"%s", t);
		printf("%u ranks, every list at its longest: %u lines, the longest %zu characters\n",
		       sizes[i], lines, longest);
		free(t);
		big_free(&v);
	}
}
END_TEST

/* 14 ranks' matrix (labels h13:rxe0) fits 160 columns, 15 ranks' does not. */
START_TEST(report_matrix_switch)
{
	struct pp_mesh_view v;
	uint32_t n, a, b;
	size_t longest;
	char *t;

	for (n = 14; n <= 15; n++) {
		big(&v, n);
		for (a = 0; a < n; a++)
			for (b = a + 1; b < n; b++)
				pass(&v, a, b,
				     20 + (a == 7 || b == 7 ? 500 : 0) +
					     (a + b) % 3 * 0.5);
		ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
		t = render(&v, 0);
		count_lines(t, &longest);
		if (n == 14) {
			ck_assert(pp_mesh_matrix_fits(&v));
			ck_assert_ptr_nonnull(strstr(
				t, "median round trip (usec) of each pair"));
			ck_assert_uint_le(longest, PP_MESH_TEXT_COLS);
		} else {
			ck_assert(!pp_mesh_matrix_fits(&v));
			ck_assert_ptr_null(strstr(
				t, "median round trip (usec) of each pair"));
			/* the slow rank first, its worst pair, what it adds */
			ck_assert_msg(
				strstr(t,
				       "  rank  label              passed   failed worst usec (with)            adds usec\n"
				       "     7  h7:rxe0                14        0      521.0 h1:rxe0               500.2\n"),
				"%s", t);
			ck_assert_ptr_nonnull(strstr(t, "slowest pairs:\n  h"));
		}
		free(t);
		big_free(&v);
	}
}
END_TEST

/*
 * Python's json module reads @text and runs @checks (statements over the
 * document d); 77 without python3.
 */
static int python_check(const char *text, const char *checks)
{
	char *cmd = NULL;
	FILE *p;
	int st;

	if (system("command -v python3 >/dev/null 2>&1"))
		return 77;
	ck_assert_int_gt(asprintf(&cmd,
				  "python3 -c '"
				  "import json, sys\n"
				  "text = sys.stdin.read()\n"
				  "d = json.loads(text)\n"
				  "%s\n'",
				  checks),
			 0);
	p = popen(cmd, "w");
	ck_assert_ptr_nonnull(p);
	fputs(text, p);
	st = pclose(p);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * 40 ranks with --json: pairs settled in any order, some left to the end,
 * rank 5's failed; the streamed document parses and has every pair once,
 * a line a pair, both sides' documents.
 */
START_TEST(report_json_streamed)
{
	struct pp_mesh_view v;
	char *t = NULL, doc[64];
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);
	uint32_t a, b;
	int ret;

	ck_assert_ptr_nonnull(f);
	big(&v, 40);
	ck_assert_int_eq(pp_mesh_view_begin_json(&v, f), 0);
	fflush(f);
	ck_assert_msg(strstr(t, "\"pairs\":[\n"), "%s", t); /* at once */
	for (a = v.n; a-- > 0;)
		for (b = v.n; b-- > a + 1;) {
			if ((a + b) % 7 == 0)
				continue; /* left open: settled at the end */
			ran(&v, a, b, a + b);
			snprintf(doc, sizeof(doc),
				 "{\"role\":\"server\",\"b\":%u}", b);
			side(&v, a, b,
			     a == 5 || b == 5 ? PP_MESH_RTR : PP_MESH_OK, false,
			     a == 5 || b == 5 ? "RTR failed" : "", NAN, 4096,
			     doc);
			snprintf(doc, sizeof(doc),
				 "{\"role\":\"client\",\"a\":%u}", a);
			side(&v, b, a,
			     a == 5 || b == 5 ? PP_MESH_RTR : PP_MESH_OK, false,
			     a == 5 || b == 5 ? "RTR failed" : "", 30 + a, 4096,
			     doc);
			if ((a + b) % 5)
				pp_mesh_view_settle(&v, a, b);
		}
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(pp_mesh_view_end_json(&v), 0);
	fclose(f);
	ret = python_check(
		t,
		"pairs = d[\"pairs\"]\n"
		"assert sorted((p[\"a\"], p[\"b\"]) for p in pairs) == [(a, b) for a in range(40) for b in range(a + 1, 40)]\n"
		"for p in pairs:\n"
		"    if (p[\"a\"] + p[\"b\"]) % 7 == 0:\n"
		"        assert p[\"result\"] == \"ok\" and p[\"round\"] is None and not p[\"sides\"][0][\"doc\"], p\n"
		"        continue\n"
		"    five = 5 in (p[\"a\"], p[\"b\"])\n"
		"    assert p[\"passed\"] != five and p[\"result\"] == (\"RTR\" if five else \"ok\"), p\n"
		"    assert p[\"sides\"][0][\"doc\"] == {\"role\": \"server\", \"b\": p[\"b\"]}, p\n"
		"    assert p[\"sides\"][1][\"doc\"] == {\"role\": \"client\", \"a\": p[\"a\"]}, p\n"
		"    assert five or p[\"median_usec\"] == 30 + p[\"a\"], p\n"
		"lines = text.split(\"\\n\")\n"
		"assert len(lines) > 780 and max(len(x) for x in lines) < 4000, len(lines)\n"
		"assert d[\"summary\"][\"failed\"] == 33 == sum(not p[\"passed\"] for p in pairs) and len(d[\"hosts\"]) == 40\n"
		"assert d[\"summary\"][\"elapsed_s\"] == 1\n"
		"assert list(d) == [\"mesh\", \"pairs\", \"hosts\", \"matrix\", \"summary\"], list(d)\n");
	if (ret == 77)
		ck_abort_msg("python3 is needed to parse the document");
	ck_assert_msg(ret == 0, "the document failed the checks");
	free(t);
	big_free(&v);
}
END_TEST

static unsigned int count_of(const char *t, const char *what)
{
	size_t len = strlen(what);
	unsigned int n = 0;

	/* not strstr() in a loop: ASan's strict_string_checks reads the whole
	 * rest of a 10 MB picture at each call */
	for (; *t; t++)
		if (*t == *what && !strncmp(t, what, len))
			n++;
	return n;
}

/* Up to 256 ranks a square a pair; 300 ranks in blocks of 3 x 3. */
START_TEST(report_svg_blocks)
{
	static const uint32_t sizes[] = { 256, 300 };
	struct pp_mesh_view v;
	uint32_t a, b, i;
	char *t;

	for (i = 0; i < 2; i++) {
		big(&v, sizes[i]);
		for (a = 0; a < v.n; a++)
			for (b = a + 1; b < v.n; b++) {
				struct pp_mesh_cell *c =
					&v.cells[pp_mesh_pair_index(v.n, a, b)];

				c->code = a == 10 && b == 200 ? PP_MESH_RTR :
								PP_MESH_OK;
				c->median_us = 20 + (a == 250 || b == 250) * 50;
			}
		ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
		t = render(&v, 2);
		if (v.n == 256) {
			ck_assert_uint_eq(count_of(t, "<title>"), 256 * 256);
			ck_assert_ptr_nonnull(
				strstr(t, "h10:rxe0 - h200:rxe0: RTR</title>"));
		} else {
			ck_assert_uint_eq(count_of(t, "<title>"), 100 * 100);
			ck_assert_msg(
				strstr(t,
				       "fill=\"#202020\"><title>ranks 9-11 - ranks 198-200: 9 pairs, 1 failed (first RTR), slowest 20.0 usec</title>"),
				"%.3000s", t);
			/* the diagonal's block: 3 pairs among 3 ranks */
			ck_assert_ptr_nonnull(strstr(
				t,
				"<title>ranks 0-2 - ranks 0-2: 3 pairs, slowest 20.0 usec</title>"));
			/* the slow rank's blocks are the slowest colour */
			ck_assert_ptr_nonnull(strstr(
				t,
				"fill=\"#ff0040\"><title>ranks 249-251 - ranks 0-2: 9 pairs, slowest 70.0 usec</title>"));
			ck_assert_ptr_nonnull(
				strstr(t, "a square is 3 x 3 pairs"));
		}
		ck_assert_ptr_nonnull(strstr(t, "</svg>\n"));
		free(t);
		big_free(&v);
	}
}
END_TEST

START_TEST(cell_size)
{
	/* 8.4 million pairs at 4,096 ranks: 134 MB at 16 bytes */
	ck_assert_uint_le(sizeof(struct pp_mesh_cell), 16);
}
END_TEST

/*
 * Rank 0's storage at 1,024 ranks with every pair failed and --json:
 * malloc'd bytes in use after each round (the pairs' sides and documents
 * held, before they are settled), against the cells and the rank table.
 * Prints the growth per rank and per pair.
 */
/*
 * 40 ranks on 20 hosts of two NICs (h<i/2>:mlx5_<i%2>), every pair 30 usec;
 * rank 5 adds 2,000 usec to each of its pairs, the pair 10 - 30 alone
 * 2,000 usec; with @fail, the pair 12 - 33 fails at RTR.
 */
static void verdict_mesh(struct pp_mesh_view *v, bool fail)
{
	uint32_t a, b;

	big(v, 40);
	for (a = 0; a < v->n; a++) {
		struct pp_mesh_join *j = &v->ranks[a].facts;

		snprintf(j->host, sizeof(j->host), "h%u.example.com", a / 2);
		snprintf(j->dev, sizeof(j->dev), "mlx5_%u", a % 2);
	}
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++) {
			if (fail && a == 12 && b == 33) {
				ran(v, a, b, 0);
				side(v, a, b, PP_MESH_RTR, false,
				     "modify QP to RTR failed", NAN, 0, NULL);
				side(v, b, a, PP_MESH_CONNECT, true,
				     "server: modify QP to RTR failed", NAN, 0,
				     NULL);
				pp_mesh_view_settle(v, a, b);
				continue;
			}
			pass(v, a, b,
			     30 + (a == 5 || b == 5 ? 2000 : 0) +
				     (a == 10 && b == 30 ? 2000 : 0));
		}
}

/* The verdicts in the text and the JSON; the exit status they make. */
START_TEST(report_verdicts)
{
	struct pp_mesh_view v;
	char *t;

	verdict_mesh(&v, false);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(v.exit_status, PP_EXIT_FLAGGED);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "odd ones out:\n"
		       "  no failure; the verdicts follow\n"
		       "\n"
		       "verdict: slow NIC h2:mlx5_1 (rank 5) adds 2000 usec to each of its 39 pairs (matrix median 30.0 usec); h2's other NICs are fine: h2:mlx5_0 (rank 4)\n"
		       "verdict: slow link h5:mlx5_0 (rank 10) - h15:mlx5_0 (rank 30): 2030 usec, 2000 usec more than its two ends predict (30.0 usec); both ends are fine with their other pairs\n"
		       "\n"),
		"%s", t);
	ck_assert_ptr_null(strstr(t, "  slow: ")); /* the verdict says it */
	free(t);
	t = render(&v, 1);
	ck_assert_msg(pp_json_valid(t), "%s", t);
	ck_assert_msg(
		strstr(t,
		       "\"verdicts\":[{\"kind\":\"nic\",\"state\":\"slow\",\"host\":\"h2.example.com\",\"device\":\"mlx5_1\",\"ranks\":[5],\"ends\":null,\"rails\":null,\"host_nics\":2,\"pairs\":39,\"added_usec\":2000,\"expected_usec\":null,\"result\":null},"
		       "{\"kind\":\"link\",\"state\":\"slow\",\"host\":null,\"device\":null,\"ranks\":[10,30],\"ends\":[{\"rank\":10,\"host\":\"h5.example.com\",\"device\":\"mlx5_0\"},{\"rank\":30,\"host\":\"h15.example.com\",\"device\":\"mlx5_0\"}],\"rails\":null,\"host_nics\":null,\"pairs\":1,\"added_usec\":2000,\"expected_usec\":30,\"result\":null}],"
		       "\"verdicts_left_off\":0,"),
		"%s", t);
	ck_assert_ptr_nonnull(strstr(t, "\"exit_status\":4}"));
	free(t);
	big_free(&v);
	/* a failed pair: its link's verdict, and 1 wins over 4 */
	verdict_mesh(&v, true);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(v.exit_status, PP_EXIT_FAIL);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "verdict: failing link h6:mlx5_0 (rank 12) - h16:mlx5_1 (rank 33) at RTR (a QP's move to RTR), while both ends pass their other pairs (38 of 38, 38 of 38)\n"),
		"%s", t);
	free(t);
	t = render(&v, 1);
	ck_assert_msg(
		strstr(t,
		       "{\"kind\":\"link\",\"state\":\"failing\",\"host\":null,\"device\":null,\"ranks\":[12,33],"),
		"%s", t);
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"pairs\":1,\"added_usec\":null,\"expected_usec\":null,\"result\":\"RTR\"}"));
	free(t);
	big_free(&v);
	/* both NICs of host h2 slow: the host; no verdict at all: 0 */
	big(&v, 8);
	{
		uint32_t a, b;

		for (a = 0; a < v.n; a++)
			snprintf(v.ranks[a].facts.host,
				 sizeof(v.ranks[a].facts.host), "h%u", a / 2);
		for (a = 0; a < v.n; a++)
			for (b = a + 1; b < v.n; b++)
				pass(&v, a, b,
				     30 + (a / 2 == 2 ? 500 : 0) +
					     (b / 2 == 2 ? 500 : 0));
	}
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(v.exit_status, PP_EXIT_FLAGGED);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "\nverdict: slow host h2: its 2 NICs (ranks 4, 5) add about 500.0 usec each to their 13 pairs (matrix median 30.0 usec)\n\n"),
		"%s", t);
	free(t);
	big_free(&v);
	big(&v, 8);
	{
		uint32_t a, b;

		for (a = 0; a < v.n; a++)
			for (b = a + 1; b < v.n; b++)
				pass(&v, a, b,
				     30 + (a == 3 || b == 3 ? 700 : 0));
	}
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(v.exit_status, PP_EXIT_FLAGGED);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "\nverdict: slow NIC h3:rxe0 (rank 3, the host's only NIC in this mesh) adds 700.0 usec to each of its 7 pairs (matrix median 30.0 usec)\n\n"),
		"%s", t);
	free(t);
	big_free(&v);
	big(&v, 8);
	{
		uint32_t a, b;

		for (a = 0; a < v.n; a++)
			for (b = a + 1; b < v.n; b++)
				pass(&v, a, b, 30);
	}
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(v.exit_status, PP_EXIT_OK);
	t = render(&v, 1);
	ck_assert_ptr_nonnull(
		strstr(t, "\"verdicts\":[],\"verdicts_left_off\":0,"));
	free(t);
	big_free(&v);
}
END_TEST

/* Bytes malloc'd and in use, mmap'd blocks included. */
static size_t in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

START_TEST(store_growth)
{
	const uint32_t n = 1024;
	struct pp_mesh_pair *pairs = calloc(n / 2, sizeof(*pairs));
	struct pp_mesh_view v;
	size_t base, peak = 0, after, np = (size_t)n * (n - 1) / 2;
	uint32_t r, k, np_round;
	char doc[1024], why[96];
	FILE *f = fopen("/dev/null", "w");

	ck_assert(pairs && f);
	memset(doc, 'x', sizeof(doc));
	memcpy(doc, "{\"x\":\"", 6);
	memcpy(doc + sizeof(doc) - 3, "\"}", 3);
	base = in_use();
	big(&v, n);
	after = in_use();
	ck_assert_int_eq(pp_mesh_view_begin_json(&v, f), 0);
	for (r = 0; r < pp_mesh_rounds(n); r++) {
		size_t now;

		np_round = pp_mesh_round(n, r, pairs);
		for (k = 0; k < np_round; k++) {
			uint32_t a = pairs[k].a, b = pairs[k].b;

			ran(&v, a, b, r);
			snprintf(
				why, sizeof(why),
				"modify QP 0x%06x to RTR failed: Invalid argument",
				a);
			side(&v, a, b, PP_MESH_RTR, false, why, NAN, 0, doc);
			side(&v, b, a, PP_MESH_CONNECT, true, why, NAN, 0, doc);
		}
		now = in_use();
		if (now > peak)
			peak = now;
		for (k = 0; k < np_round; k++)
			pp_mesh_view_settle(&v, pairs[k].a, pairs[k].b);
	}
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_int_eq(pp_mesh_view_end_json(&v), 0);
	printf("store at %u ranks, every pair failed, --json: cells and ranks %zu bytes (%zu a pair, %zu a rank), peak %zu bytes in use: %.0f bytes a rank above the cells and rank table\n",
	       n, after - base, sizeof(struct pp_mesh_cell),
	       sizeof(struct pp_mesh_rank), peak - base,
	       (double)(peak - after) / n);
	/* flat: a few KB a rank above the cells, whatever the pairs */
	ck_assert_uint_le(peak - after, (size_t)n * 8192);
	ck_assert_uint_le(after - base,
			  np * sizeof(struct pp_mesh_cell) +
				  n * sizeof(struct pp_mesh_rank) + 65536);
	fclose(f);
	free(pairs);
	big_free(&v);
}
END_TEST

/*
 * Two hosts of two NICs in rail mode: the rails' pairs run, the four
 * others are '.' in the matrix, out of --json's pairs, a neutral square in
 * the SVG, neither passed nor failed; the labels host:device.
 */
START_TEST(report_rails)
{
	static struct pp_mesh_rank ranks[4];
	static struct pp_mesh_cell cells[6];
	static const char *const dev[2] = { "mlx5_0", "mlx5_1" };
	struct pp_mesh_view v;
	uint32_t i, a, b;
	char *t = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	memset(ranks, 0, sizeof(ranks));
	memset(cells, 0, sizeof(cells));
	for (i = 0; i < 4; i++) {
		struct pp_mesh_join *j = &ranks[i].facts;

		cells[i].median_us = NAN;
		ranks[i].joined = true;
		ranks[i].local = i % 2;
		snprintf(j->host, sizeof(j->host), "n%u.example.com",
			 i / 2 + 1);
		strcpy(j->dev, dev[i % 2]);
		j->local = i % 2;
		j->ib_port = 1;
		j->active_mtu = 4096;
		j->gid_index = -1;
		strcpy(j->version, "0.1.0 (abc)");
	}
	cells[4].median_us = cells[5].median_us = NAN;
	v = (struct pp_mesh_view){ .tool = "rc_pingpong",
				   .transport = "rc",
				   .launcher = PP_MESH_SLURM,
				   .n = 4,
				   .pairs = PP_MESH_PAIRS_RAIL,
				   .rounds = 1,
				   .ranks = ranks,
				   .cells = cells };
	f = open_memstream(&t, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pp_mesh_view_begin_json(&v, f), 0);
	for (a = 0; a < 4; a++)
		for (b = a + 1; b < 4; b++)
			if (a % 2 != b % 2 || a / 2 == b / 2)
				pp_mesh_view_unselect(&v, a, b);
	pass(&v, 0, 2, 25);
	pass(&v, 1, 3, 27.5);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_uint_eq(v.passed, 2);
	ck_assert_uint_eq(v.failed, 0);
	ck_assert_uint_eq(v.not_selected, 4);
	ck_assert_uint_eq(v.selected, 2);
	ck_assert_int_eq(v.exit_status, 0);
	ck_assert_str_eq(v.ranks[1].label, "n1:mlx5_1");
	ck_assert_int_eq(pp_mesh_view_end_json(&v), 0);
	fclose(f);
	ret = python_check(
		t,
		"assert [(p[\"a\"], p[\"b\"]) for p in d[\"pairs\"]] == [(0, 2), (1, 3)], d[\"pairs\"]\n"
		"assert d[\"mesh\"][\"pair_mode\"] == \"rail\"\n"
		"assert d[\"matrix\"][\"labels\"] == [\"n1:mlx5_0\", \"n1:mlx5_1\", \"n2:mlx5_0\", \"n2:mlx5_1\"]\n"
		"assert d[\"matrix\"][\"cells\"][0] == [\"-\", \".\", \"25.0\", \".\"], d[\"matrix\"][\"cells\"]\n"
		"assert d[\"matrix\"][\"median_usec\"][0][1] is None\n"
		"assert [(h[\"host\"], h[\"device\"], h[\"local\"]) for h in d[\"hosts\"]] == [(\"n1.example.com\", \"mlx5_0\", 0), (\"n1.example.com\", \"mlx5_1\", 1), (\"n2.example.com\", \"mlx5_0\", 0), (\"n2.example.com\", \"mlx5_1\", 1)]\n"
		"s = d[\"summary\"]\n"
		"assert (s[\"pairs\"], s[\"passed\"], s[\"failed\"], s[\"not_selected\"], s[\"exit_status\"]) == (2, 2, 0, 4, 0), s\n"
		"assert s[\"failed_pairs\"] == []\n");
	if (ret == 77)
		ck_abort_msg("python3 is needed to parse the document");
	ck_assert_msg(ret == 0, "the document failed the checks:\n%s", t);
	free(t);
	t = render(&v, 0);
	ck_assert_msg(
		strstr(t,
		       "   0  n1:mlx5_0          -          .       25.0          .\n"
		       "   1  n1:mlx5_1          .          -          .       27.5\n"),
		"%s", t);
	ck_assert_ptr_nonnull(strstr(
		t, "; . a pair not selected (--mesh-pairs rail): not run\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"\nrail pairs: 2 of 6 (ranks of one local index on different hosts; the others not run)\n"
		"mesh: 4 of 4 ranks joined, 2 pairs: 2 passed, 0 failed"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"     1  n1.example.com   mlx5_1       1    1   4096  none"));
	ck_assert_ptr_nonnull(strstr(t, "odd ones out:\n  none\n"));
	free(t);
	t = render(&v, 2);
	ck_assert_ptr_nonnull(strstr(
		t,
		"fill=\"#f2f2f2\" stroke=\"white\"><title>n1:mlx5_0 - n1:mlx5_1: .</title>"));
	ck_assert_ptr_nonnull(
		strstr(t, "not selected (--mesh-pairs): not run"));
	ck_assert_uint_eq(count_of(t, "fill=\"#202020\" stroke"), 0);
	free(t);
	/* a rank whose device did not open fails the mesh, pairs or none */
	strcpy(ranks[3].facts.error, "local index 1 is beyond -d mlx5_0");
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert_uint_eq(v.dev_failed, 1);
	ck_assert_int_eq(v.exit_status, 1);
	pp_mesh_view_free(&v);
}
END_TEST

static Suite *mesh_report_suite(void)
{
	Suite *s = suite_create("mesh_report");
	TCase *tc = tcase_create("core"), *scale = tcase_create("scale");

	tcase_add_test(tc, odd_one_slow_host);
	tcase_add_test(tc, odd_two_slow_of_four);
	tcase_add_test(tc, odd_none_and_limits);
	tcase_add_test(tc, median_rule);
	tcase_add_test(tc, odd_noise_bar);
	tcase_add_test(tc, odd_median_in_place);
	tcase_add_test(tc, report_text);
	tcase_add_test(tc, report_json_svg);
	tcase_add_test(tc, report_thresholds);
	tcase_add_test(tc, report_matrix_switch);
	tcase_add_test(tc, report_json_streamed);
	tcase_add_test(tc, report_svg_blocks);
	tcase_add_test(tc, report_rails);
	tcase_add_test(tc, cell_size);
	tcase_add_test(tc, report_verdicts);
	/* 1,024 ranks, half a million pairs each */
	tcase_add_test(scale, odd_k_calibrated);
	tcase_add_test(scale, odd_rails_at_scale);
	tcase_add_test(scale, report_grouped);
	tcase_add_test(scale, report_capped);
	tcase_add_test(scale, store_growth);
	tcase_set_timeout(scale, 300);
	tcase_set_timeout(tc,
			  60); /* the SVG of 300 ranks: seconds under ASan */
	tcase_set_tags(scale, "scale"); /* valgrind.sh leaves it out */
	suite_add_tcase(s, scale);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(mesh_report_suite)
