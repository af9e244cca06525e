// SPDX-License-Identifier: MIT
/*
 * test_mesh_verdict.c - the mesh's verdicts (pp_mesh_verdict) on made-up
 * matrices: a slow NIC, a slow host, a slow link, a failing link, NIC and
 * host, rails with no path between them, and meshes that deserve none
 * (healthy, noisy, everything failed, too few ranks).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_mesh_odd.h"
#include "pp_mesh_sched.h"
#include "pp_mesh_verdict.h"
#include "pp_mesh_wire.h"

#define NMAX 64

struct mesh {
	uint32_t n;
	double *us;
	uint8_t *code;
	uint32_t host[NMAX], rail[NMAX];
	bool out[NMAX];
	double added[NMAX], row[NMAX];
	bool slow[NMAX];
	struct pp_mesh_odd odd;
	struct pp_mesh_verdicts vd;
};

static size_t pix(const struct mesh *m, uint32_t a, uint32_t b)
{
	return pp_mesh_pair_index(m->n, a < b ? a : b, a < b ? b : a);
}

/*
 * @n ranks, @per_host on each host (ranks 0..per_host-1 on host 0, ...),
 * rail = the rank's index on its host; every pair passed at
 * rtt(i,j) = 30 + a small fixed wobble.
 */
static struct mesh *mesh_new(uint32_t n, uint32_t per_host)
{
	struct mesh *m = calloc(1, sizeof(*m));
	size_t np = (size_t)n * (n - 1) / 2;
	uint32_t i, j;

	ck_assert(m && n <= NMAX);
	m->n = n;
	m->us = calloc(np, sizeof(*m->us));
	m->code = calloc(np, sizeof(*m->code));
	ck_assert(m->us && m->code);
	for (i = 0; i < n; i++) {
		m->host[i] = i / per_host;
		m->rail[i] = i % per_host;
		for (j = i + 1; j < n; j++)
			m->us[pix(m, i, j)] = 30 + ((i * 7 + j * 3) % 5) * 0.4;
	}
	return m;
}

static void mesh_free(struct mesh *m)
{
	free(m->us);
	free(m->code);
	free(m);
}

/* Rank @r adds @us to each of its pairs. */
static void add_rank(struct mesh *m, uint32_t r, double us)
{
	uint32_t j;

	for (j = 0; j < m->n; j++)
		if (j != r)
			m->us[pix(m, r, j)] += us;
}

static void fail_pair(struct mesh *m, uint32_t a, uint32_t b, uint8_t code)
{
	m->us[pix(m, a, b)] = NAN;
	m->code[pix(m, a, b)] = code;
}

static void fail_rank(struct mesh *m, uint32_t r, uint8_t code)
{
	uint32_t j;

	for (j = 0; j < m->n; j++)
		if (j != r)
			fail_pair(m, r, j, code);
}

/* The odd-one-out rule, then the verdicts, as rank 0 runs them. */
static void judge(struct mesh *m, bool stopped)
{
	struct pp_mesh_verdict_in in = {
		.n = m->n,
		.pair_us = m->us,
		.us_stride = sizeof(*m->us),
		.code = m->code,
		.code_stride = 1,
		.host = m->host,
		.rail = m->rail,
		.out = m->out,
		.stopped = stopped,
		.added_us = m->added,
		.slow = m->slow,
	};

	ck_assert_int_eq(pp_mesh_odd_judge_strided(m->n, m->us, sizeof(*m->us),
						   m->added, m->slow, m->row,
						   &m->odd),
			 0);
	in.baseline_us = m->odd.baseline_us;
	in.row_us = m->row;
	in.row_median_us = m->odd.row_median_us;
	in.link_noise_us = m->odd.link_noise_us;
	in.bar_us = m->odd.bar_us;
	ck_assert_int_eq(pp_mesh_verdict_judge(&in, &m->vd), 0);
}

static const struct pp_mesh_verdict *only(const struct mesh *m, uint8_t kind,
					  uint8_t state)
{
	ck_assert_msg(m->vd.total == 1, "%llu verdicts, not 1",
		      (unsigned long long)m->vd.total);
	ck_assert_msg(m->vd.found[kind][state] == 1,
		      "the one verdict is not a %s %s",
		      pp_mesh_verdict_state_name(state),
		      pp_mesh_verdict_kind_name(kind));
	return &m->vd.v[kind][state][0];
}

START_TEST(healthy)
{
	struct mesh *m = mesh_new(40, 2);

	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	mesh_free(m);
}
END_TEST

/* Each pair +/-20 % at random: no verdict, with any seed of 30. */
START_TEST(noise)
{
	uint32_t seed, i, j, per;

	for (per = 1; per <= 2; per++)
		for (seed = 1; seed <= 30; seed++) {
			struct mesh *m = mesh_new(40, per);
			uint32_t x = seed * 2654435761u;

			for (i = 0; i < m->n; i++)
				for (j = i + 1; j < m->n; j++) {
					x = x * 1103515245 + 12345;
					m->us[pix(m, i, j)] =
						30 * (0.8 + 0.4 * (x >> 8) /
								    16777216.0);
				}
			judge(m, false);
			ck_assert_msg(m->vd.total == 0,
				      "seed %u, %u a host: %llu verdicts", seed,
				      per, (unsigned long long)m->vd.total);
			mesh_free(m);
		}
}
END_TEST

/*
 * --mesh-pairs rail: the pairs across rails did not run (code OK, no
 * median, as rank 0 leaves a pair not selected).  A slow NIC's evidence is
 * its rail pairs only, and the pairs not run are neither passed nor failed.
 */
START_TEST(rail_pairs_only)
{
	struct mesh *m = mesh_new(8, 2);
	const struct pp_mesh_verdict *v;
	uint32_t i, j;

	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			if (m->rail[i] != m->rail[j] ||
			    m->host[i] == m->host[j])
				m->us[pix(m, i, j)] = NAN;
	for (j = 1; j < 8; j += 2)
		if (j != 5)
			m->us[pix(m, 5, j)] += 2000;
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_SLOW);
	ck_assert_uint_eq(v->a, 5);
	ck_assert_uint_eq(v->pairs, 3);
	mesh_free(m);
}
END_TEST

/*
 * The rail pairs of the Soft-RoCE bed (4 hosts x 2 NICs, usec), wandering
 * by half under emulation: no verdict by chance; 200 ms more on one link
 * (netem on node03's eth1 toward node04's): that link alone.
 */
START_TEST(bed_rails_noise)
{
	static const double rail[][3] = {
		{ 0, 2, 5628 }, { 0, 4, 5684 }, { 0, 6, 5584 }, { 2, 4, 7194 },
		{ 2, 6, 7718 }, { 4, 6, 3737 }, { 1, 3, 6995 }, { 1, 5, 8110 },
		{ 1, 7, 5227 }, { 3, 5, 6287 }, { 3, 7, 5083 }, { 5, 7, 4560 },
	};
	struct mesh *m = mesh_new(8, 2);
	const struct pp_mesh_verdict *v;
	uint32_t i;

	for (i = 0; i < 28; i++)
		m->us[i] = NAN;
	for (i = 0; i < 12; i++)
		m->us[pix(m, (uint32_t)rail[i][0], (uint32_t)rail[i][1])] =
			rail[i][2];
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	m->us[pix(m, 5, 7)] += 200000;
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_SLOW);
	ck_assert(v->a == 5 && v->b == 7);
	mesh_free(m);
}
END_TEST

/* One NIC of a host of two adds 2,000 usec: that NIC, not its host. */
START_TEST(slow_nic)
{
	struct mesh *m = mesh_new(40, 2);
	const struct pp_mesh_verdict *v;

	add_rank(m, 5, 2000);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_SLOW);
	ck_assert_uint_eq(v->a, 5);
	ck_assert_uint_eq(v->host_ranks, 2);
	ck_assert_uint_eq(v->pairs, 39);
	ck_assert_msg(fabs(v->added_us - 2000) < 5, "%f", v->added_us);
	mesh_free(m);
	/* a host's only NIC: a NIC's verdict that knows no more */
	m = mesh_new(40, 1);
	add_rank(m, 7, 2000);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_SLOW);
	ck_assert_uint_eq(v->a, 7);
	ck_assert_uint_eq(v->host_ranks, 1);
	mesh_free(m);
}
END_TEST

/* Both NICs of a host add about as much: the host, once. */
START_TEST(slow_host)
{
	struct mesh *m = mesh_new(40, 2);
	const struct pp_mesh_verdict *v;

	add_rank(m, 4, 2000);
	add_rank(m, 5, 1900);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_HOST, PP_MESH_VERDICT_SLOW);
	ck_assert_uint_eq(v->a, 4);
	ck_assert_uint_eq(v->host_ranks, 2);
	ck_assert_uint_eq(v->pairs, 39 + 39 - 1);
	ck_assert_msg(fabs(v->added_us - 1950) < 5, "%f", v->added_us);
	mesh_free(m);
	/* by very different amounts: each NIC on its own */
	m = mesh_new(40, 2);
	add_rank(m, 4, 2000);
	add_rank(m, 5, 300);
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 2);
	ck_assert_uint_eq(
		m->vd.found[PP_MESH_VERDICT_NIC][PP_MESH_VERDICT_SLOW], 2);
	ck_assert_uint_eq(
		m->vd.v[PP_MESH_VERDICT_NIC][PP_MESH_VERDICT_SLOW][0].a,
		4); /* the most added first */
	mesh_free(m);
}
END_TEST

/*
 * One pair of 40 is 2,000 usec slower, both ends fine with everyone else:
 * the link, and neither end (their estimates hardly move).
 */
START_TEST(slow_link)
{
	uint32_t n, per;

	for (per = 1; per <= 2; per++)
		for (n = 6; n <= 40; n += 34) {
			struct mesh *m = mesh_new(n, per);
			const struct pp_mesh_verdict *v;
			uint32_t a = 1, b = n - 2;

			m->us[pix(m, a, b)] += 2000;
			judge(m, false);
			ck_assert_msg(!m->slow[a] && !m->slow[b],
				      "%u ranks: an end blamed", n);
			ck_assert_msg(
				fabs(m->added[a]) < 2 && fabs(m->added[b]) < 2,
				"%u ranks: the ends' estimates moved: %f %f", n,
				m->added[a], m->added[b]);
			v = only(m, PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_SLOW);
			ck_assert_uint_eq(v->a, a);
			ck_assert_uint_eq(v->b, b);
			ck_assert_uint_eq(v->pairs, 1);
			ck_assert_msg(fabs(v->added_us - 2000) < 5, "%f",
				      v->added_us);
			ck_assert_msg(fabs(v->expect_us - 30.8) < 2, "%f",
				      v->expect_us);
			mesh_free(m);
		}
}
END_TEST

/* The link rule's bar: max(PP_MESH_ODD_MIN_US, B), B = 15 here. */
START_TEST(slow_link_bar)
{
	struct mesh *m = mesh_new(40, 1);

	m->us[pix(m, 3, 17)] += 12; /* 12 + wobble < 15 */
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	m->us[pix(m, 3, 17)] += 6;
	judge(m, false);
	only(m, PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_SLOW);
	mesh_free(m);
	/*
	 * 4 ranks: each end has 3 pairs, one of them slow, and the rows'
	 * medians still name the link, not its ends (the bed's rails of 4)
	 */
	m = mesh_new(4, 1);
	m->us[pix(m, 2, 3)] += 2000;
	judge(m, false);
	ck_assert_uint_eq(
		only(m, PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_SLOW)->a, 2);
	mesh_free(m);
	/* 3 ranks: an end has 2 pairs, too few to tell: no link */
	m = mesh_new(3, 1);
	m->us[pix(m, 0, 1)] += 2000;
	judge(m, false);
	ck_assert_uint_eq(
		m->vd.found[PP_MESH_VERDICT_LINK][PP_MESH_VERDICT_SLOW], 0);
	mesh_free(m);
}
END_TEST

/*
 * Two slow links sharing a NIC (3 - 7 and 3 - 11, 2,000 usec each, in 40
 * ranks): two links, not the NIC: rank 3 is fine with 36 of its 38 other
 * peers, so its row and its triangles say it adds nothing; a NIC slow
 * with most of its peers would be the NIC (slow_nic).
 */
START_TEST(two_links_one_nic)
{
	struct mesh *m = mesh_new(40, 1);

	m->us[pix(m, 3, 7)] += 2000;
	m->us[pix(m, 3, 11)] += 2000;
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 2);
	ck_assert_uint_eq(
		m->vd.found[PP_MESH_VERDICT_LINK][PP_MESH_VERDICT_SLOW], 2);
	ck_assert(!m->slow[3]);
	mesh_free(m);
}
END_TEST

/* Of many slow links, the 16 slowest kept, the rest counted. */
START_TEST(slow_links_capped)
{
	struct mesh *m = mesh_new(40, 1);
	uint32_t i;

	for (i = 0; i < 20; i++) /* disjoint pairs: 2i, 2i + 1 */
		m->us[pix(m, 2 * i, 2 * i + 1)] += 1000 + 100 * i;
	judge(m, false);
	ck_assert_uint_eq(
		m->vd.found[PP_MESH_VERDICT_LINK][PP_MESH_VERDICT_SLOW], 20);
	ck_assert_uint_eq(
		m->vd.kept[PP_MESH_VERDICT_LINK][PP_MESH_VERDICT_SLOW],
		PP_MESH_VERDICT_KEEP);
	ck_assert_uint_eq(m->vd.total, 20);
	for (i = 0; i < PP_MESH_VERDICT_KEEP; i++)
		ck_assert_uint_eq(
			m->vd.v[PP_MESH_VERDICT_LINK][PP_MESH_VERDICT_SLOW][i].a,
			2 * (19 - i));
	mesh_free(m);
}
END_TEST

START_TEST(failing_link)
{
	struct mesh *m = mesh_new(40, 2);
	const struct pp_mesh_verdict *v;

	fail_pair(m, 3, 17, PP_MESH_RTR);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_FAILING);
	ck_assert_uint_eq(v->a, 3);
	ck_assert_uint_eq(v->b, 17);
	ck_assert_uint_eq(v->code, PP_MESH_RTR);
	ck_assert_uint_eq(v->a_passed, 38);
	ck_assert_uint_eq(v->a_ran, 38);
	mesh_free(m);
	/* three ranks: the two others passed */
	m = mesh_new(3, 1);
	fail_pair(m, 1, 2, PP_MESH_CONNECT);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_FAILING);
	ck_assert(v->a == 1 && v->b == 2);
	mesh_free(m);
}
END_TEST

START_TEST(failing_nic)
{
	struct mesh *m = mesh_new(40, 2);
	const struct pp_mesh_verdict *v;

	fail_rank(m, 5, PP_MESH_FIRST);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_FAILING);
	ck_assert_uint_eq(v->a, 5);
	ck_assert_uint_eq(v->host_ranks, 2);
	ck_assert_uint_eq(v->pairs, 39);
	mesh_free(m);
	/* a host's only NIC */
	m = mesh_new(40, 1);
	fail_rank(m, 9, PP_MESH_RTR);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_FAILING);
	ck_assert_uint_eq(v->a, 9);
	ck_assert_uint_eq(v->host_ranks, 1);
	mesh_free(m);
}
END_TEST

START_TEST(failing_host)
{
	struct mesh *m = mesh_new(40, 2);
	const struct pp_mesh_verdict *v;

	fail_rank(m, 4, PP_MESH_CONNECT);
	fail_rank(m, 5, PP_MESH_CONNECT);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_HOST, PP_MESH_VERDICT_FAILING);
	ck_assert_uint_eq(v->a, 4);
	ck_assert_uint_eq(v->host_ranks, 2);
	ck_assert_uint_eq(v->pairs, 39 + 39 - 1);
	mesh_free(m);
}
END_TEST

/* 4 hosts x 2 rails, every pair across the rails failed: the rails. */
START_TEST(rails_no_path)
{
	struct mesh *m = mesh_new(8, 2);
	const struct pp_mesh_verdict *v;
	uint32_t i, j;

	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			if (m->rail[i] != m->rail[j])
				fail_pair(m, i, j, PP_MESH_CONNECT);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_RAILS_KIND, PP_MESH_VERDICT_NO_PATH);
	ck_assert_uint_eq(v->a, 0);
	ck_assert_uint_eq(v->b, 1);
	ck_assert_uint_eq(v->pairs, 16);
	/* rail 1 fails within itself too: its NICs, not the rails */
	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			if (m->rail[i] == 1 && m->rail[j] == 1)
				fail_pair(m, i, j, PP_MESH_CONNECT);
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 4);
	ck_assert_uint_eq(
		m->vd.found[PP_MESH_VERDICT_NIC][PP_MESH_VERDICT_FAILING], 4);
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(
			m->vd.v[PP_MESH_VERDICT_NIC][PP_MESH_VERDICT_FAILING][i]
					.a %
				2,
			1);
	/*
	 * one rail: the same failures are half of each rank's pairs, which
	 * names no NIC (each passed some) and no link (its ends failed most)
	 */
	mesh_free(m);
	m = mesh_new(8, 2);
	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			if (m->rail[i] != m->rail[j])
				fail_pair(m, i, j, PP_MESH_CONNECT);
	memset(m->rail, 0, sizeof(m->rail));
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	mesh_free(m);
	/*
	 * 4 hosts x 3 rails, rails 0 and 1 cut: each of their ranks passes 7
	 * of its 11 pairs, so each pair across them would be a failing link;
	 * the rails explain them
	 */
	m = mesh_new(12, 3);
	for (i = 0; i < 12; i++)
		for (j = i + 1; j < 12; j++)
			if (m->rail[i] + m->rail[j] == 1)
				fail_pair(m, i, j, PP_MESH_RTR);
	judge(m, false);
	v = only(m, PP_MESH_VERDICT_RAILS_KIND, PP_MESH_VERDICT_NO_PATH);
	ck_assert(v->a == 0 && v->b == 1 && v->pairs == 16);
	mesh_free(m);
}
END_TEST

/* A mesh where every pair failed, a stopped one, one of 2 ranks: none. */
START_TEST(nothing_to_say)
{
	struct mesh *m = mesh_new(10, 1);
	uint32_t i;

	for (i = 0; i < 10; i++)
		fail_rank(m, i, PP_MESH_CONNECT);
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	mesh_free(m);
	/* stopped: the pairs not run are TIME, and count for nothing */
	m = mesh_new(10, 1);
	fail_rank(m, 3, PP_MESH_TIMEOUT);
	judge(m, true);
	ck_assert_uint_eq(m->vd.total, 0);
	judge(m, false); /* not stopped: TIME failed */
	only(m, PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_FAILING);
	mesh_free(m);
	/* a rank whose device failed: its pairs are named already */
	m = mesh_new(10, 2);
	fail_rank(m, 3, PP_MESH_DEVICE);
	m->out[3] = true;
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	mesh_free(m);
	m = mesh_new(2, 1);
	fail_pair(m, 0, 1, PP_MESH_RTR);
	judge(m, false);
	ck_assert_uint_eq(m->vd.total, 0);
	mesh_free(m);
}
END_TEST

static Suite *mesh_verdict_suite(void)
{
	Suite *s = suite_create("mesh_verdict");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, healthy);
	tcase_add_test(tc, noise);
	tcase_add_test(tc, rail_pairs_only);
	tcase_add_test(tc, bed_rails_noise);
	tcase_add_test(tc, slow_nic);
	tcase_add_test(tc, slow_host);
	tcase_add_test(tc, slow_link);
	tcase_add_test(tc, slow_link_bar);
	tcase_add_test(tc, two_links_one_nic);
	tcase_add_test(tc, slow_links_capped);
	tcase_add_test(tc, failing_link);
	tcase_add_test(tc, failing_nic);
	tcase_add_test(tc, failing_host);
	tcase_add_test(tc, rails_no_path);
	tcase_add_test(tc, nothing_to_say);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(mesh_verdict_suite)
