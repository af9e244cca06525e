// SPDX-License-Identifier: MIT
/*
 * test_hist.c - pp_hist: bin edges, counts, the overflow bin, a single
 * value, and the text with its bars.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_hist.h"

static uint64_t sum_counts(const struct pp_hist *h)
{
	uint64_t sum = h->overflow;
	unsigned int i;

	for (i = 0; i < h->nbins; i++)
		sum += h->count[i];
	return sum;
}

/* pp_hist_print() into memory; the caller frees the text. */
static char *render(const struct pp_hist *h, unsigned int bar)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	pp_hist_print(f, h, bar);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* The number of '#' on line @line (0 is the header) of @text. */
static int bar_len(const char *text, int line)
{
	const char *p = text;
	int n = 0;

	while (line-- > 0) {
		p = strchr(p, '\n');
		ck_assert_ptr_nonnull(p);
		p++;
	}
	for (; *p && *p != '\n'; p++)
		n += *p == '#';
	return n;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* 1000..1999 ns: p99.9 is 1998, twenty bins of 50 ns from 1000. */
START_TEST(test_edges_round)
{
	uint64_t v[1000];
	struct pp_hist h;
	unsigned int i;

	for (i = 0; i < 1000; i++)
		v[i] = 1999 - i; /* descending: input order must not matter */
	ck_assert_int_eq(pp_hist_compute(v, 1000, 20, &h), 0);
	ck_assert_uint_eq(h.n, 1000);
	ck_assert_uint_eq(h.min, 1000);
	ck_assert_uint_eq(h.max, 1999);
	ck_assert_uint_eq(h.lo, 1000);
	ck_assert_uint_eq(h.width, 50);
	ck_assert_uint_eq(h.nbins, 20);
	for (i = 0; i < 20; i++)
		ck_assert_uint_eq(h.count[i], 50);
	ck_assert_uint_eq(h.overflow, 0);
	ck_assert_uint_eq(v[0], 1999); /* not modified */
}
END_TEST

/* A width is 1, 2 or 5 times a power of ten; the first edge a multiple. */
START_TEST(test_edges_nice_width)
{
	uint64_t v[] = { 12345, 13000, 14000, 20000, 30999 };
	struct pp_hist h;

	/* p99.9 of 5 is the max: cover [12345, 30999] in at most 10 bins. */
	ck_assert_int_eq(pp_hist_compute(v, 5, 10, &h), 0);
	ck_assert_uint_eq(h.width, 2000);
	ck_assert_uint_eq(h.lo, 12000);
	ck_assert_uint_eq(h.nbins, 10);	  /* [12000, 32000) */
	ck_assert_uint_eq(h.count[0], 2); /* 12345, 13000 */
	ck_assert_uint_eq(h.count[1], 1); /* 14000 */
	ck_assert_uint_eq(h.count[4], 1); /* 20000 */
	ck_assert_uint_eq(h.count[9], 1); /* 30999 */
	ck_assert_uint_eq(h.overflow, 0);

	/* Five bins: 5000 would need [10000, 35000) = 5 bins. */
	ck_assert_int_eq(pp_hist_compute(v, 5, 5, &h), 0);
	ck_assert_uint_eq(h.width, 5000);
	ck_assert_uint_eq(h.lo, 10000);
	ck_assert_uint_eq(h.nbins, 5);
}
END_TEST

/* Counts sum to n; each sample is in the bin its edges say. */
START_TEST(test_counts_sum_to_n)
{
	enum { N = 5000 };
	uint64_t *v = malloc(N * sizeof(*v)), x = 88172645463325252ULL;
	uint64_t expect[PP_HIST_MAX_BINS + 1] = { 0 }, edge_hi;
	struct pp_hist h;
	unsigned int i, b;

	ck_assert_ptr_nonnull(v);
	for (i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 5..25 us, and 4 samples (< 0.1 %) far out. */
		v[i] = 5000 + x % 20000 + (i % 1250 == 7 ? 1000000 : 0);
	}
	ck_assert_int_eq(pp_hist_compute(v, N, 32, &h), 0);
	ck_assert_uint_le(h.nbins, 32);
	ck_assert_uint_ge(h.nbins, 1);
	ck_assert_uint_eq(sum_counts(&h), N);
	ck_assert_uint_le(h.lo, h.min);
	for (i = 0; i < N; i++) {
		for (b = 0; b < h.nbins; b++)
			if (v[i] >= h.lo + b * h.width &&
			    v[i] < h.lo + (b + 1) * h.width)
				break;
		expect[b]++; /* b == nbins: overflow */
	}
	for (b = 0; b < h.nbins; b++)
		ck_assert_uint_eq(h.count[b], expect[b]);
	ck_assert_uint_eq(h.overflow, expect[h.nbins]);
	/* The 4 outliers are above p99.9: they (and only they) overflow. */
	ck_assert_uint_eq(h.overflow, 4);
	edge_hi = h.lo + h.nbins * h.width;
	ck_assert_uint_gt(edge_hi, 24999);
	free(v);
}
END_TEST

/* One slow sample goes to the overflow bin, not into a stretched bin. */
START_TEST(test_overflow_bin)
{
	uint64_t v[1000];
	struct pp_hist h;
	char *text, *last;
	unsigned int i;

	for (i = 0; i < 999; i++)
		v[i] = 10000 + i; /* 10.000 .. 10.998 us */
	v[999] = 1000000;	  /* 1 ms */
	ck_assert_int_eq(pp_hist_compute(v, 1000, 20, &h), 0);
	ck_assert_uint_eq(h.max, 1000000);
	ck_assert_uint_eq(h.overflow, 1);
	ck_assert_uint_eq(h.width, 50); /* from 10000 to p99.9 = 10998 */
	ck_assert_uint_eq(h.lo, 10000);
	ck_assert_uint_eq(h.nbins, 20);
	ck_assert_uint_eq(sum_counts(&h), 1000);

	text = render(&h, 50);
	ck_assert_int_eq(count_lines(text), 1 + 20 + 1);
	last = strrchr(text, '>');
	ck_assert_ptr_nonnull(last);
	ck_assert_str_eq(last, ">       11.000 -     1000.000          1 #\n");
	ck_assert_ptr_nonnull(strstr(text, "overflow from 11.000\n"));
	free(text);

	/* No overflow line when the overflow bin is empty. */
	v[999] = 10999;
	ck_assert_int_eq(pp_hist_compute(v, 1000, 20, &h), 0);
	ck_assert_uint_eq(h.overflow, 0);
	text = render(&h, 50);
	ck_assert_ptr_null(strchr(text, '>'));
	free(text);
}
END_TEST

START_TEST(test_single_value)
{
	uint64_t v[] = { 1500, 1500, 1500 };
	struct pp_hist h;
	char *text, expect[256], bar[51];

	ck_assert_int_eq(pp_hist_compute(v, 3, 20, &h), 0);
	ck_assert_uint_eq(h.nbins, 1);
	ck_assert_uint_eq(h.width, 1);
	ck_assert_uint_eq(h.lo, 1500);
	ck_assert_uint_eq(h.count[0], 3);
	ck_assert_uint_eq(h.overflow, 0);

	memset(bar, '#', 50);
	bar[50] = '\0';
	snprintf(
		expect, sizeof(expect),
		"histogram usec: n 3, 1 bin of 0.001 from 1.500, overflow from 1.501\n"
		"         1.500 -        1.501          3 %s\n",
		bar);
	text = render(&h, 50);
	ck_assert_str_eq(text, expect);
	free(text);

	/* One sample, one bin. */
	ck_assert_int_eq(pp_hist_compute(v, 1, 1, &h), 0);
	ck_assert_uint_eq(h.nbins, 1);
	ck_assert_uint_eq(h.count[0], 1);
}
END_TEST

/* Bars: the fullest bin is @bar long, others in proportion, at least 1. */
START_TEST(test_bar_scaling)
{
	uint64_t v[152];
	struct pp_hist h;
	char *text;
	unsigned int i, n = 0;

	for (i = 0; i < 100; i++)
		v[n++] = 1000;
	for (i = 0; i < 50; i++)
		v[n++] = 1001;
	v[n++] = 1002;
	v[n++] = 1004; /* 1003 stays empty; p99.9 of 152 is the max */
	ck_assert_int_eq(pp_hist_compute(v, n, 20, &h), 0);
	ck_assert_uint_eq(h.nbins, 5);
	ck_assert_uint_eq(h.width, 1);

	text = render(&h, 50);
	ck_assert_int_eq(count_lines(text), 6);
	ck_assert_int_eq(bar_len(text, 1), 50); /* 100 */
	ck_assert_int_eq(bar_len(text, 2), 25); /* 50 */
	ck_assert_int_eq(bar_len(text, 3), 1);	/* 1: rounds to 0, shown */
	ck_assert_int_eq(bar_len(text, 4), 0);	/* empty */
	ck_assert_int_eq(bar_len(text, 5), 1);
	ck_assert_ptr_nonnull(
		strstr(text, "         1.003 -        1.004          0\n"));
	free(text);

	text = render(&h, 10);
	ck_assert_int_eq(bar_len(text, 1), 10);
	ck_assert_int_eq(bar_len(text, 2), 5);
	free(text);
}
END_TEST

START_TEST(test_einval)
{
	uint64_t v[] = { 1 };
	struct pp_hist h;

	ck_assert_int_eq(pp_hist_compute(v, 0, 20, &h), EINVAL);
	ck_assert_int_eq(pp_hist_compute(NULL, 1, 20, &h), EINVAL);
	ck_assert_int_eq(pp_hist_compute(v, 1, 0, &h), EINVAL);
	ck_assert_int_eq(pp_hist_compute(v, 1, PP_HIST_MAX_BINS + 1, &h),
			 EINVAL);
	ck_assert_int_eq(pp_hist_compute(v, 1, PP_HIST_MAX_BINS, &h), 0);
}
END_TEST

/* Huge values do not overflow the edge arithmetic. */
START_TEST(test_huge_values)
{
	uint64_t v[] = { UINT64_MAX - 10, UINT64_MAX - 5, UINT64_MAX };
	struct pp_hist h;

	ck_assert_int_eq(pp_hist_compute(v, 3, 20, &h), 0);
	ck_assert_uint_eq(sum_counts(&h), 3);
	ck_assert_uint_eq(h.overflow, 0);
	ck_assert_uint_eq(h.count[h.nbins - 1], 1);

	v[0] = 0;
	ck_assert_int_eq(pp_hist_compute(v, 3, 1, &h), 0);
	ck_assert_uint_eq(sum_counts(&h), 3);
}
END_TEST

static Suite *hist_suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, test_edges_round);
	tcase_add_test(tc, test_edges_nice_width);
	tcase_add_test(tc, test_counts_sum_to_n);
	tcase_add_test(tc, test_overflow_bin);
	tcase_add_test(tc, test_single_value);
	tcase_add_test(tc, test_bar_scaling);
	tcase_add_test(tc, test_einval);
	tcase_add_test(tc, test_huge_values);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(hist_suite)
