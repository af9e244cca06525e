// SPDX-License-Identifier: MIT
/*
 * test_stats.c - pp_stats (percentiles, median, stdev) and pp_report (the
 * exact text of every line the tools print).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_gid.h"
#include "pp_report.h"
#include "pp_stats.h"

#define EPS 1e-9

/* A fixed xorshift64 so the shuffle is the same on every libc. */
static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void shuffle(uint64_t *v, size_t n, uint64_t seed)
{
	size_t i, j;
	uint64_t t;

	for (i = n - 1; i > 0; i--) {
		j = (size_t)(rng_next(&seed) % (i + 1));
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* 1..1000 us, shuffled with a fixed seed. */
static void fill_thousand(uint64_t *v)
{
	size_t i;

	for (i = 0; i < 1000; i++)
		v[i] = (i + 1) * 1000;
	shuffle(v, 1000, 0x9e3779b97f4a7c15ULL);
}

/*
 * RENDER(CALL): return what CALL, a report function printing to the stream
 * f, prints, as text the caller frees.  Each render_*() is one of these.
 */
#define RENDER(call)                                  \
	do {                                          \
		char *buf = NULL;                     \
		size_t len = 0;                       \
		FILE *f = open_memstream(&buf, &len); \
		ck_assert_ptr_nonnull(f);             \
		call;                                 \
		ck_assert_int_eq(fclose(f), 0);       \
		return buf;                           \
	} while (0)

static char *render_path_mtu(uint32_t path, uint32_t asked, uint32_t srv,
			     uint32_t cl)
{
	RENDER(pp_report_path_mtu(f, path, asked, srv, cl));
}

static char *render_addr(const char *label, const struct pp_addr *a)
{
	RENDER(pp_report_addr(f, label, a));
}

static char *render_totals(uint64_t size, uint64_t iters, double seconds)
{
	RENDER(pp_report_totals(f, size, iters, seconds));
}

static char *render_stats(const struct pp_stats *s, uint64_t size,
			  uint64_t iters, double seconds)
{
	RENDER(pp_report_stats(f, s, size, iters, seconds));
}

START_TEST(test_single_sample)
{
	uint64_t v[] = { 1000 };
	struct pp_stats s;

	ck_assert_int_eq(pp_stats_compute(v, 1, &s), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_double_eq_tol(s.min, 1.0, EPS);
	ck_assert_double_eq_tol(s.max, 1.0, EPS);
	ck_assert_double_eq_tol(s.mean, 1.0, EPS);
	ck_assert_double_eq_tol(s.median, 1.0, EPS);
	ck_assert_double_eq_tol(s.p50, 1.0, EPS);
	ck_assert_double_eq_tol(s.p90, 1.0, EPS);
	ck_assert_double_eq_tol(s.p99, 1.0, EPS);
	ck_assert_double_eq_tol(s.p999, 1.0, EPS);
	ck_assert_double_eq_tol(s.stdev, 0.0, EPS);
}
END_TEST

START_TEST(test_one_to_ten)
{
	uint64_t v[10];
	struct pp_stats s;
	size_t i;

	for (i = 0; i < 10; i++)
		v[i] = (10 - i) * 1000; /* descending: sorting matters */
	ck_assert_int_eq(pp_stats_compute(v, 10, &s), 0);
	ck_assert_uint_eq(s.n, 10);
	ck_assert_double_eq_tol(s.min, 1.0, EPS);
	ck_assert_double_eq_tol(s.max, 10.0, EPS);
	ck_assert_double_eq_tol(s.mean, 5.5, EPS);
	ck_assert_double_eq_tol(s.median, 5.5, EPS);
	ck_assert_double_eq_tol(s.p50, 5.0, EPS);
	ck_assert_double_eq_tol(s.p90, 9.0, EPS);
	ck_assert_double_eq_tol(s.p99, 10.0, EPS);
	ck_assert_double_eq_tol(s.p999, 10.0, EPS);
	ck_assert_double_eq_tol(s.stdev, 2.8723, 1e-3);
	ck_assert_double_eq_tol(s.stdev, sqrt(8.25), EPS);
}
END_TEST

START_TEST(test_thousand_shuffled)
{
	uint64_t v[1000];
	struct pp_stats s;

	fill_thousand(v);
	ck_assert_uint_ne(v[0], 1000); /* really shuffled */
	ck_assert_int_eq(pp_stats_compute(v, 1000, &s), 0);
	ck_assert_double_eq_tol(s.min, 1.0, EPS);
	ck_assert_double_eq_tol(s.max, 1000.0, EPS);
	ck_assert_double_eq_tol(s.mean, 500.5, EPS);
	ck_assert_double_eq_tol(s.median, 500.5, EPS);
	ck_assert_double_eq_tol(s.p50, 500.0, EPS);
	ck_assert_double_eq_tol(s.p90, 900.0, EPS);
	ck_assert_double_eq_tol(s.p99, 990.0, EPS);
	ck_assert_double_eq_tol(s.p999, 999.0, EPS);
	ck_assert_double_eq_tol(s.stdev, sqrt((1000.0 * 1000.0 - 1) / 12.0),
				1e-6);
}
END_TEST

START_TEST(test_median_odd_even)
{
	uint64_t odd[] = { 3000, 1000, 2000 };
	uint64_t even[] = { 4000, 1000, 3000, 2000 };
	struct pp_stats s;

	ck_assert_int_eq(pp_stats_compute(odd, 3, &s), 0);
	ck_assert_double_eq_tol(s.median, 2.0, EPS);
	ck_assert_double_eq_tol(s.p50, 2.0, EPS);

	ck_assert_int_eq(pp_stats_compute(even, 4, &s), 0);
	ck_assert_double_eq_tol(s.median, 2.5, EPS);
	ck_assert_double_eq_tol(s.p50, 2.0, EPS); /* nearest rank stays */
}
END_TEST

START_TEST(test_empty_is_einval)
{
	uint64_t v[] = { 1 };
	struct pp_stats s;

	ck_assert_int_eq(pp_stats_compute(v, 0, &s), EINVAL);
}
END_TEST

START_TEST(test_huge_values)
{
	static uint64_t v[1000];
	uint64_t top[] = { UINT64_MAX, UINT64_MAX - 1000 };
	struct pp_stats s;
	size_t i;

	/* 1e15 ns each: a uint64_t sum of 1000 would not overflow yet ... */
	for (i = 0; i < 1000; i++)
		v[i] = 1000000000000000ULL + i;
	ck_assert_int_eq(pp_stats_compute(v, 1000, &s), 0);
	ck_assert_double_eq_tol(s.mean, 1e12 + 0.4995, 1e-3);
	ck_assert_double_eq_tol(s.min, 1e12, 1e-3);
	ck_assert_double_eq_tol(s.max, 1e12 + 0.999, 1e-3);
	ck_assert_double_eq_tol(
		s.stdev, sqrt((1000.0 * 1000.0 - 1) / 12.0) / 1000.0, 1e-6);

	/* ... but two samples near UINT64_MAX would. */
	ck_assert_int_eq(pp_stats_compute(top, 2, &s), 0);
	ck_assert_double_eq_tol(s.mean / ((double)UINT64_MAX / 1000.0), 1.0,
				1e-12);
	ck_assert_double_eq_tol(s.median / ((double)UINT64_MAX / 1000.0), 1.0,
				1e-12);
	ck_assert(s.stdev < 1.0); /* 0.5 us, not garbage from wraparound */
}
END_TEST

START_TEST(test_sort_wide_range)
{
	/* Differences that do not fit an int: a subtracting comparator fails. */
	uint64_t v[] = { 1ULL << 32, 1000, UINT64_MAX, 3ULL << 31, 2000 };
	struct pp_stats s;

	ck_assert_int_eq(pp_stats_compute(v, 5, &s), 0);
	ck_assert_double_eq_tol(s.min, 1.0, EPS);
	ck_assert_double_eq_tol(s.p50, (double)(1ULL << 32) / 1000.0, EPS);
	ck_assert_double_eq_tol(s.median, (double)(1ULL << 32) / 1000.0, EPS);
	ck_assert_double_eq_tol(s.p90 / ((double)UINT64_MAX / 1000.0), 1.0,
				1e-12);
	ck_assert_double_eq_tol(s.max / ((double)UINT64_MAX / 1000.0), 1.0,
				1e-12);
}
END_TEST

START_TEST(test_input_not_modified)
{
	uint64_t v[1000], copy[1000];
	struct pp_stats s;

	fill_thousand(v);
	memcpy(copy, v, sizeof(v));
	ck_assert_int_eq(pp_stats_compute(v, 1000, &s), 0);
	ck_assert_int_eq(memcmp(v, copy, sizeof(v)), 0);
}
END_TEST

START_TEST(test_percentile_ranks)
{
	uint64_t v[1000];
	size_t i;

	for (i = 0; i < 1000; i++)
		v[i] = i + 1; /* value == 1-based rank */
	ck_assert_uint_eq(pp_percentile(v, 1000, 100.0), 1000);
	ck_assert_uint_eq(pp_percentile(v, 1000, 1e-9), 1);
	ck_assert_uint_eq(pp_percentile(v, 1000, 0.1), 1);
	ck_assert_uint_eq(pp_percentile(v, 1000, 0.10001), 2);
	ck_assert_uint_eq(pp_percentile(v, 1000, 99.9), 999);
	ck_assert_uint_eq(pp_percentile(v, 1000, 99.0), 990);
	ck_assert_uint_eq(pp_percentile(v, 100, 7.0),
			  7); /* 7.000000000000001 */
	ck_assert_uint_eq(pp_percentile(v, 4, 50.0), 2);
	ck_assert_uint_eq(pp_percentile(v, 4, 25.0), 1);
	ck_assert_uint_eq(pp_percentile(v, 4, 25.001), 2);
	ck_assert_uint_eq(pp_percentile(v, 1, 0.5), 1);
	ck_assert_uint_eq(pp_percentile(v, 1, 100.0), 1);
}
END_TEST

START_TEST(test_format_gid)
{
	uint8_t zero[16] = { 0 };
	uint8_t ib[16] = { 0xfe, 0x80, 0,    0,	   0,	 0,    0,    0,
			   0x00, 0x02, 0xc9, 0x03, 0x00, 0x01, 0x23, 0x45 };
	char buf[46];

	ck_assert_ptr_eq(pp_gid_format(zero, buf, sizeof(buf)), buf);
	ck_assert_str_eq(buf, "::");
	ck_assert_str_eq(pp_gid_format(ib, buf, sizeof(buf)),
			 "fe80::2:c903:1:2345");
	/* Too small: empty text, not an overrun. */
	ck_assert_str_eq(pp_gid_format(ib, buf, 4), "");
}
END_TEST

START_TEST(test_report_addr_local_v4mapped)
{
	struct pp_addr a = {
		.lid = 0,
		.qpn = 0x11,
		.psn = 0x1a2b3c,
		.gid = { [10] = 0xff,
			 [11] = 0xff,
			 [12] = 10,
			 [13] = 99,
			 [14] = 0,
			 [15] = 1 },
	};
	char *out = render_addr("local", &a);

	ck_assert_str_eq(
		out,
		"  local address:  LID 0x0000, QPN 0x000011, PSN 0x1a2b3c, GID ::ffff:10.99.0.1\n");
	free(out);
}
END_TEST

/* The path MTU and where it came from: both active MTUs, and -m if given. */
START_TEST(test_report_path_mtu)
{
	char *out = render_path_mtu(1024, 0, 1024, 4096);

	ck_assert_str_eq(
		out,
		"  path MTU 1024 (server active 1024, client active 4096)\n");
	free(out);
	out = render_path_mtu(512, 512, 1024, 4096);
	ck_assert_str_eq(
		out,
		"  path MTU 512 (-m 512; server active 1024, client active 4096)\n");
	free(out);
}
END_TEST

START_TEST(test_report_addr_remote_zero_gid)
{
	struct pp_addr a = {
		.lid = 0x1234,
		.qpn = 0xabcdef,
		.psn = 1,
	};
	char *out = render_addr("remote", &a);

	ck_assert_str_eq(
		out,
		"  remote address: LID 0x1234, QPN 0xabcdef, PSN 0x000001, GID ::\n");
	free(out);
}
END_TEST

START_TEST(test_report_addr_xrc)
{
	struct pp_addr a = {
		.lid = 7,
		.qpn = 0x000123,
		.psn = 0xffffff,
		.srqn = 0x42,
		.tgt_qpn = 0x99,
	};
	char *out = render_addr("local", &a);

	ck_assert_str_eq(
		out,
		"  local address:  LID 0x0007, QPN 0x000123, PSN 0xffffff, GID ::, SRQN 0x000042, TQPN 0x000099\n");
	free(out);
}
END_TEST

START_TEST(test_report_totals)
{
	char *out = render_totals(4096, 1000, 0.2);

	ck_assert_str_eq(out,
			 "8192000 bytes in 0.20 seconds = 327.68 Mbit/sec\n"
			 "1000 iters in 0.20 seconds = 200.00 usec/iter\n");
	free(out);
}
END_TEST

START_TEST(test_report_totals_zero_seconds)
{
	char *out = render_totals(4096, 1000, 0.0);

	ck_assert_str_eq(out, "8192000 bytes in 0.00 seconds = 0.00 Mbit/sec\n"
			      "1000 iters in 0.00 seconds = 0.00 usec/iter\n");
	free(out);
}
END_TEST

START_TEST(test_report_stats_submicro)
{
	uint64_t v[] = { 1234, 1234, 1234 };
	struct pp_stats s;
	char *out;

	ck_assert_int_eq(pp_stats_compute(v, 3, &s), 0);
	out = render_stats(&s, 64, 1000, 0.5);
	ck_assert_str_eq(
		out,
		"latency usec: n 3 min 1.234 median 1.234 mean 1.234 stdev 0.000 p90 1.234 p99 1.234 p99.9 1.234 max 1.234\n"
		"rate: 2.05 Mbit/sec, 4000 msg/sec\n");
	free(out);
}
END_TEST

START_TEST(test_report_stats_fields)
{
	struct pp_stats s = {
		.n = 1000,
		.min = 0.123,
		.max = 4.5,
		.mean = 1.5,
		.stdev = 0.25,
		.median = 1.234,
		.p50 = 1.2,
		.p90 = 2.5,
		.p99 = 3.001,
		.p999 = 4.0,
	};
	char *out = render_stats(&s, 4096, 1000, 0.2);

	ck_assert_str_eq(
		out,
		"latency usec: n 1000 min 0.123 median 1.234 mean 1.500 stdev 0.250 p90 2.500 p99 3.001 p99.9 4.000 max 4.500\n"
		"rate: 327.68 Mbit/sec, 10000 msg/sec\n");
	free(out);
	out = render_stats(&s, 4096, 1000, 0.0);
	ck_assert_ptr_nonnull(strstr(out, "rate: 0.00 Mbit/sec, 0 msg/sec\n"));
	free(out);
}
END_TEST

static char *render_post(uint64_t posts, uint64_t post_ns, uint64_t max_ns)
{
	RENDER(pp_report_post(f, posts, post_ns, max_ns));
}

/* The mean of 3 posts (1.000, 2.000, 3.500 usec) and the longest one. */
START_TEST(test_report_post)
{
	char *out = render_post(3, 6500, 3500);

	ck_assert_str_eq(out, "post_send usec: n 3 mean 2.167 max 3.500\n");
	free(out);
	out = render_post(0, 0, 0);
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("compute");
	TCase *tr = tcase_create("report");

	tcase_add_test(tc, test_single_sample);
	tcase_add_test(tc, test_report_path_mtu);
	tcase_add_test(tc, test_one_to_ten);
	tcase_add_test(tc, test_thousand_shuffled);
	tcase_add_test(tc, test_median_odd_even);
	tcase_add_test(tc, test_empty_is_einval);
	tcase_add_test(tc, test_huge_values);
	tcase_add_test(tc, test_sort_wide_range);
	tcase_add_test(tc, test_input_not_modified);
	tcase_add_test(tc, test_percentile_ranks);
	suite_add_tcase(s, tc);

	tcase_add_test(tr, test_format_gid);
	tcase_add_test(tr, test_report_addr_local_v4mapped);
	tcase_add_test(tr, test_report_addr_remote_zero_gid);
	tcase_add_test(tr, test_report_addr_xrc);
	tcase_add_test(tr, test_report_totals);
	tcase_add_test(tr, test_report_totals_zero_seconds);
	tcase_add_test(tr, test_report_stats_submicro);
	tcase_add_test(tr, test_report_stats_fields);
	tcase_add_test(tr, test_report_post);
	suite_add_tcase(s, tr);
	return s;
}

PP_CHECK_MAIN(stats_suite)
