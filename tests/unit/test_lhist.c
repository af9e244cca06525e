// SPDX-License-Identifier: MIT
/*
 * test_lhist.c - pp_lhist: the bucket layout and its error bound, the
 * figures against pp_stats_compute() on the same raw samples, the
 * nearest-rank rule, merge, reset, overflow, memory, and the --histogram
 * bins against pp_hist_compute().
 *
 * PP_LHIST_TEST_N (default 1000000) sets the samples per synthetic set and
 * PP_LHIST_TEST_BIG (default 10000000) the length of the long record loop,
 * so that valgrind can run the same tests on fewer.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_hist.h"
#include "pp_lhist.h"
#include "pp_stats.h"

/* The stated bound: a bucket's midpoint is within 2^-11 of its values. */
#define REL_ERR (1.0 / 2048.0)
/* Slack for the ns -> usec conversion of two different integers. */
#define FP_SLACK 1e-12

static size_t env_count(const char *name, size_t dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 10);
	ck_assert_msg(!*end && v >= 10, "%s: a count >= 10", name);
	return (size_t)v;
}

/* A fixed 64-bit LCG (Knuth's MMIX constants): the same on every libc. */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 11; /* 53 good bits */
}

/* Uniform in [0, 1). */
static double unit(uint64_t *x)
{
	return (double)lcg(x) / 9007199254740992.0; /* 2^53 */
}

enum set {
	SET_UNIFORM,
	SET_EXPONENTIAL,
	SET_BIMODAL,
	SET_CONSTANT,
	SET_OUTLIERS,
	SET_EDGES,
	SET_TINY,
	SET_LOG_UNIFORM,
	SET_COUNT
};

static const char *const set_names[SET_COUNT] = {
	"uniform",  "exponential", "bimodal", "constant",
	"outliers", "edges",	   "tiny",    "log-uniform",
};

/* Synthetic set @set of @n samples, all below PP_LHIST_LIMIT. */
static void fill_set(enum set set, uint64_t *v, size_t n)
{
	uint64_t x = 0x2545f4914f6cdd1dULL + (uint64_t)set, top = 0;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		switch (set) {
		case SET_UNIFORM: /* 1..50 us */
			v[i] = 1000 + lcg(&x) % 49000;
			break;
		case SET_EXPONENTIAL: /* 2 us + mean 8 us, a long tail */
			v[i] = 2000 + (uint64_t)(-8000.0 * log(1.0 - unit(&x)));
			break;
		case SET_BIMODAL: /* 3 us and 250 us */
			if (lcg(&x) & 1)
				v[i] = 2900 + lcg(&x) % 200;
			else
				v[i] = 245000 + lcg(&x) % 10000;
			break;
		case SET_CONSTANT:
			v[i] = 123457;
			break;
		case SET_OUTLIERS: /* 5 us, and 1 in 10^5 up to 4000 s */
			if (i % 100000 == 99999)
				v[i] = 1000000000ULL * (1 + i / 100000 % 4000);
			else
				v[i] = 4500 + lcg(&x) % 1000;
			break;
		case SET_EDGES: /* 2^k - 1, 2^k, 2^k + 1 and bucket edges */
			k = (int)(lcg(&x) % (PP_LHIST_RANGE_BITS - 1)) + 1;
			switch (i % 4) {
			case 0:
				v[i] = (1ULL << k) - 1;
				break;
			case 1:
				v[i] = 1ULL << k;
				break;
			case 2:
				v[i] = (1ULL << k) + 1;
				break;
			default: {
				uint64_t lo, w;

				pp_lhist_bucket(lcg(&x) % PP_LHIST_NBUCKETS,
						&lo, &w);
				v[i] = lcg(&x) & 1 ? lo : lo + w - 1;
			}
			}
			break;
		case SET_TINY: /* 0, 1, 2 ns, a few 3 */
			v[i] = lcg(&x) % 3 + (i % 1000 == 0);
			break;
		case SET_LOG_UNIFORM: /* 1 ns .. 2^41.9 ns, every octave */
			v[i] = (uint64_t)exp2(unit(&x) * 41.9);
			break;
		default:
			ck_abort();
		}
		if (v[i] > top)
			top = v[i];
	}
	/* once: in fork mode each assertion is a write to the parent */
	ck_assert_uint_lt(top, PP_LHIST_LIMIT);
}

static struct pp_lhist *record_all(const uint64_t *v, size_t n)
{
	struct pp_lhist *h = pp_lhist_create();
	size_t i;

	ck_assert_ptr_nonnull(h);
	for (i = 0; i < n; i++)
		pp_lhist_record(h, v[i]);
	return h;
}

/* @got is within the stated bound of @want, both in usec. */
static void assert_close(double got, double want, const char *what,
			 const char *set)
{
	ck_assert_msg(fabs(got - want) <= REL_ERR * want + FP_SLACK,
		      "%s %s: %.6f usec, raw %.6f usec", set, what, got, want);
}

/*
 * Every figure from the histogram against pp_stats_compute() on the raw
 * samples, and a range of percentiles against pp_percentile().
 */
START_TEST(test_against_raw)
{
	static const double ps[] = { 0.001, 0.1,   1,	   5,  10,   25,
				     50,    75,	   90,	   95, 99.0, 99.5,
				     99.9,  99.99, 99.999, 100 };
	const char *name = set_names[_i];
	size_t n = env_count("PP_LHIST_TEST_N", 1000000), i;
	uint64_t *v = malloc(n * sizeof(*v)), *sorted, got, want;
	struct pp_stats raw, hs;
	struct pp_lhist *h;

	ck_assert_ptr_nonnull(v);
	fill_set((enum set)_i, v, n);
	h = record_all(v, n);
	ck_assert_int_eq(pp_stats_compute(v, n, &raw), 0);
	ck_assert_int_eq(pp_lhist_stats(h, &hs), 0);

	ck_assert_uint_eq(hs.n, raw.n);
	ck_assert_uint_eq(h->n, n);
	ck_assert_uint_eq(h->overflow, 0);
	ck_assert(hs.min == raw.min); /* exact: the same integer */
	ck_assert(hs.max == raw.max);
	ck_assert_msg(fabs(hs.mean - raw.mean) <= 1e-9 * raw.mean + FP_SLACK,
		      "%s mean: %.9f, raw %.9f", name, hs.mean, raw.mean);
	ck_assert_msg(fabs(hs.stdev - raw.stdev) <= 1e-9 * raw.stdev + FP_SLACK,
		      "%s stdev: %.9f, raw %.9f", name, hs.stdev, raw.stdev);
	assert_close(hs.median, raw.median, "median", name);
	assert_close(hs.p50, raw.p50, "p50", name);
	assert_close(hs.p90, raw.p90, "p90", name);
	assert_close(hs.p99, raw.p99, "p99", name);
	assert_close(hs.p999, raw.p999, "p99.9", name);

	sorted = pp_stats_sorted(v, n);
	ck_assert_ptr_nonnull(sorted);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		got = pp_lhist_percentile(h, ps[i]);
		want = pp_percentile(sorted, n, ps[i]);
		/* The same bucket as the raw sample, so within the bound. */
		ck_assert_msg(pp_lhist_index(got) == pp_lhist_index(want),
			      "%s p%g: %llu ns, raw %llu ns", name, ps[i],
			      (unsigned long long)got,
			      (unsigned long long)want);
		ck_assert_msg(fabs((double)got - (double)want) <=
				      REL_ERR * (double)want,
			      "%s p%g: %llu ns, raw %llu ns", name, ps[i],
			      (unsigned long long)got,
			      (unsigned long long)want);
		ck_assert_uint_ge(got, sorted[0]);
		ck_assert_uint_le(got, sorted[n - 1]);
	}
	/* Below 2048 ns a bucket is one value: the figures are exact. */
	if (_i == SET_TINY) {
		ck_assert(hs.median == raw.median);
		ck_assert(hs.p90 == raw.p90 && hs.p999 == raw.p999);
	}
	free(sorted);
	pp_lhist_destroy(h);
	free(v);
}
END_TEST

/*
 * Every bucket: contiguous, holds [lo, lo + width), and its midpoint is
 * within 2^-11 of each of its values; the last one ends at the limit.
 */
START_TEST(test_layout)
{
	uint64_t lo, w, next = 0;
	size_t i;

	ck_assert_uint_eq(PP_LHIST_NBUCKETS, 33792);
	ck_assert_uint_eq(pp_lhist_index(0), 0);
	ck_assert_uint_eq(pp_lhist_index(1), 1);
	ck_assert_uint_eq(pp_lhist_index(2047), 2047);
	ck_assert_uint_eq(pp_lhist_index(2048), 2048);
	ck_assert_uint_eq(pp_lhist_index(2049), 2048);
	ck_assert_uint_eq(pp_lhist_index(2050), 2049);
	ck_assert_uint_eq(pp_lhist_index(PP_LHIST_LIMIT - 1),
			  PP_LHIST_NBUCKETS - 1);
	for (i = 0; i < PP_LHIST_NBUCKETS; i++) {
		pp_lhist_bucket(i, &lo, &w);
		/* contiguous, w a power of two, w / 2 <= lo / 2048 */
		ck_assert_msg(lo == next && pp_lhist_index(lo) == i &&
				      pp_lhist_index(lo + w - 1) == i &&
				      !(w & (w - 1)) &&
				      (i < 2 * PP_LHIST_SUB ?
					       w == 1 :
					       w / 2 * 2048 <= lo),
			      "bucket %zu: lo %llu width %llu", i,
			      (unsigned long long)lo, (unsigned long long)w);
		next = lo + w;
	}
	ck_assert_uint_eq(next, PP_LHIST_LIMIT);
}
END_TEST

/* The nearest-rank rule is pp_stats's, rounding cases included. */
START_TEST(test_rank_rule)
{
	static const double ps[] = { 1e-9, 0.1,	 0.10001, 7.0,	25.0,  25.001,
				     50.0, 90.0, 99.0,	  99.9, 99.99, 100.0 };
	static const size_t ns[] = { 1,	  2,   3,   4,	  7,	10,  99,
				     100, 101, 999, 1000, 1001, 2000 };
	uint64_t v[2000];
	size_t i, j, k;
	struct pp_lhist *h;

	for (i = 0; i < 2000; i++)
		v[i] = i + 1; /* value == rank, all in exact buckets */
	for (k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		h = record_all(v, ns[k]);
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
			ck_assert_msg(pp_lhist_percentile(h, ps[j]) ==
					      pp_percentile(v, ns[k], ps[j]),
				      "n %zu p%g", ns[k], ps[j]);
		pp_lhist_destroy(h);
	}
	h = record_all(v, 1000);
	ck_assert_uint_eq(pp_lhist_percentile(h, 99.9), 999);
	ck_assert_uint_eq(pp_lhist_rank(h, 1), 1);
	ck_assert_uint_eq(pp_lhist_rank(h, 1000), 1000);
	ck_assert_uint_eq(pp_lhist_rank(h, 5000), 1000); /* past n: max */
	pp_lhist_destroy(h);
}
END_TEST

/* The midpoint of a wide bucket, clamped to [min, max]. */
START_TEST(test_midpoint_clamped)
{
	struct pp_lhist *h = pp_lhist_create();
	struct pp_stats s;

	ck_assert_ptr_nonnull(h);
	/* 2^30 .. 2^30 + 2^20 - 1 is one bucket; its midpoint 2^30 + 2^19 */
	pp_lhist_record(h, (1ULL << 30) + 5);
	ck_assert_uint_eq(pp_lhist_percentile(h, 50), (1ULL << 30) + 5);
	pp_lhist_record(h, (1ULL << 30) + 1000000);
	pp_lhist_record(h, (1ULL << 30) + 7);
	ck_assert_uint_eq(pp_lhist_rank(h, 1), (1ULL << 30) + (1ULL << 19));
	/* max below the midpoint */
	pp_lhist_reset(h);
	pp_lhist_record(h, (1ULL << 30) + 100);
	pp_lhist_record(h, (1ULL << 30) + 3);
	ck_assert_uint_eq(pp_lhist_rank(h, 2), (1ULL << 30) + 100);
	ck_assert_int_eq(pp_lhist_stats(h, &s), 0);
	ck_assert(s.median <= s.max && s.median >= s.min);
	pp_lhist_destroy(h);
}
END_TEST

static void assert_same(const struct pp_lhist *a, const struct pp_lhist *b)
{
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->min, b->min);
	ck_assert_uint_eq(a->max, b->max);
	ck_assert_uint_eq(a->overflow, b->overflow);
	ck_assert(a->sum == b->sum);
	ck_assert(a->sumsq == b->sumsq);
	ck_assert(a->big_sq == b->big_sq);
	ck_assert_int_eq(memcmp(a->count, b->count,
				PP_LHIST_NBUCKETS * sizeof(a->count[0])),
			 0);
}

/* a += b of two halves equals recording all; merging empties is a no-op. */
START_TEST(test_merge)
{
	size_t n = env_count("PP_LHIST_TEST_N", 1000000), i, bad;
	uint64_t *v = malloc(n * sizeof(*v));
	struct pp_lhist *a, *b, *all, *empty = pp_lhist_create();
	struct pp_stats sa, sall;

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(empty);
	fill_set(SET_BIMODAL, v, n);
	v[n / 3] = 1; /* the min in the first half, the max in the second */
	v[n - 2] = 1ULL << 40;
	a = record_all(v, n / 2);
	b = record_all(v + n / 2, n - n / 2);
	all = record_all(v, n);
	pp_lhist_record(b, PP_LHIST_LIMIT + 1); /* overflow merges too */
	pp_lhist_record(all, PP_LHIST_LIMIT + 1);

	pp_lhist_merge(a, empty);
	ck_assert_uint_eq(a->n, n / 2);
	pp_lhist_merge(a, b);
	assert_same(a, all);
	ck_assert_int_eq(pp_lhist_stats(a, &sa), 0);
	ck_assert_int_eq(pp_lhist_stats(all, &sall), 0);
	ck_assert_int_eq(memcmp(&sa, &sall, sizeof(sa)), 0);

	pp_lhist_merge(empty, all); /* into an empty one */
	assert_same(empty, all);

	pp_lhist_merge(a, a); /* itself: every count doubles */
	ck_assert_uint_eq(a->n, 2 * all->n);
	ck_assert_uint_eq(a->overflow, 2);
	for (bad = 0, i = 0; i < PP_LHIST_NBUCKETS; i++)
		bad += a->count[i] != 2 * all->count[i];
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(a->min, 1);
	ck_assert_uint_eq(a->max, PP_LHIST_LIMIT + 1);

	pp_lhist_destroy(a);
	pp_lhist_destroy(b);
	pp_lhist_destroy(all);
	pp_lhist_destroy(empty);
	free(v);
}
END_TEST

/* After a reset: empty, no figures, and it counts again like a new one. */
START_TEST(test_reset)
{
	uint64_t v[] = { 0, 1, 5000, 5001, 1ULL << 35, PP_LHIST_LIMIT - 1 };
	struct pp_lhist *h = pp_lhist_create(), *fresh = pp_lhist_create();
	struct pp_stats s;
	size_t i;

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(fresh);
	ck_assert_int_eq(pp_lhist_stats(h, &s), EINVAL); /* empty */
	ck_assert_uint_eq(pp_lhist_percentile(h, 50), 0);
	for (i = 0; i < 6; i++)
		pp_lhist_record(h, v[i]);
	pp_lhist_record(h, UINT64_MAX);
	pp_lhist_reset(h);
	assert_same(h, fresh);
	ck_assert_uint_eq(h->min, UINT64_MAX);
	ck_assert_uint_eq(h->max, 0);
	ck_assert_int_eq(pp_lhist_stats(h, &s), EINVAL);

	pp_lhist_reset(h); /* twice, and only overflow values */
	pp_lhist_record(h, PP_LHIST_LIMIT);
	pp_lhist_reset(h);
	assert_same(h, fresh);

	for (i = 0; i < 6; i++) {
		pp_lhist_record(h, v[i]);
		pp_lhist_record(fresh, v[i]);
	}
	assert_same(h, fresh);
	pp_lhist_destroy(h);
	pp_lhist_destroy(fresh);
}
END_TEST

/* Values past the range: counted, max exact, ranks among them give max. */
START_TEST(test_overflow)
{
	uint64_t v[] = { 1000,
			 2000,
			 PP_LHIST_LIMIT - 1,
			 PP_LHIST_LIMIT,
			 PP_LHIST_LIMIT + 5,
			 UINT64_MAX };
	struct pp_lhist *h = pp_lhist_create();
	struct pp_stats raw, s;
	size_t i;

	ck_assert_ptr_nonnull(h);
	for (i = 0; i < 6; i++)
		pp_lhist_record(h, v[i]);
	ck_assert_uint_eq(h->n, 6);
	ck_assert_uint_eq(h->overflow, 3);
	ck_assert_uint_eq(h->min, 1000);
	ck_assert_uint_eq(h->max, UINT64_MAX);
	ck_assert_uint_eq(pp_lhist_rank(h, 2), 2000);
	ck_assert_uint_eq(pp_lhist_index(pp_lhist_rank(h, 3)),
			  PP_LHIST_NBUCKETS - 1);
	ck_assert_uint_eq(pp_lhist_rank(h, 4), UINT64_MAX);
	ck_assert_uint_eq(pp_lhist_percentile(h, 99), UINT64_MAX);

	ck_assert_int_eq(pp_stats_compute(v, 6, &raw), 0);
	ck_assert_int_eq(pp_lhist_stats(h, &s), 0);
	ck_assert_uint_eq(s.n, 6);
	ck_assert(s.min == raw.min);
	ck_assert(s.max == raw.max); /* UINT64_MAX ns, exact */
	ck_assert(s.p999 == raw.p999);
	ck_assert_double_eq_tol(s.mean / raw.mean, 1.0, 1e-12);
	ck_assert_double_eq_tol(s.stdev / raw.stdev, 1.0, 1e-6);
	pp_lhist_destroy(h);
}
END_TEST

/* One allocation of a stated size, whatever the samples. */
START_TEST(test_memory)
{
	size_t size = pp_lhist_size();

	ck_assert_uint_eq(size, sizeof(struct pp_lhist) +
					PP_LHIST_NBUCKETS * sizeof(uint64_t));
	ck_assert_uint_lt(size, 300 * 1000); /* 270 KB */
	ck_assert_uint_lt(size, 4 << 20);
}
END_TEST

/* The resident set of this process, in KB, from /proc/self/status. */
static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	ck_assert_int_gt(kb, 0);
	return kb;
}

/*
 * 10^7 records: every one counted, and the resident memory grows by the
 * histogram's 270 KB at most (raw samples would be 80 MB), page slack aside.
 */
START_TEST(test_long_loop)
{
	size_t n = env_count("PP_LHIST_TEST_BIG", 10000000), i;
	long before = rss_kb();
	struct pp_lhist *h = pp_lhist_create();
	uint64_t x = 42, total = 0;
	struct pp_stats s;

	ck_assert_ptr_nonnull(h);
	for (i = 0; i < n; i++)
		pp_lhist_record(h, 1500 + lcg(&x) % 100000);
	ck_assert_uint_eq(h->n, n);
	for (i = 0; i < PP_LHIST_NBUCKETS; i++)
		total += h->count[i];
	ck_assert_uint_eq(total, n);
	ck_assert_int_eq(pp_lhist_stats(h, &s), 0);
	ck_assert_uint_eq(s.n, n);
	ck_assert(s.min >= 1.5 && s.max < 101.5);
	ck_assert_int_lt(rss_kb() - before, 1024); /* KB */
	pp_lhist_destroy(h);
}
END_TEST

/* Below 2048 ns, the bins are exactly those of pp_hist_compute(). */
START_TEST(test_hist_exact)
{
	static uint64_t v[20000];
	struct pp_hist raw, got;
	struct pp_lhist *h;
	uint64_t x = 7;
	size_t i;

	for (i = 0; i < 20000; i++)
		v[i] = 1000 + lcg(&x) % 600 + (i % 997 == 0) * 400;
	h = record_all(v, 20000);
	ck_assert_int_eq(pp_hist_compute(v, 20000, 20, &raw), 0);
	ck_assert_int_eq(pp_lhist_hist(h, 20, &got), 0);
	ck_assert_uint_eq(got.n, raw.n);
	ck_assert_uint_eq(got.min, raw.min);
	ck_assert_uint_eq(got.max, raw.max);
	ck_assert_uint_eq(got.lo, raw.lo);
	ck_assert_uint_eq(got.width, raw.width);
	ck_assert_uint_eq(got.nbins, raw.nbins);
	ck_assert_uint_eq(got.overflow, raw.overflow);
	ck_assert_uint_gt(got.overflow, 0);
	ck_assert_int_eq(memcmp(got.count, raw.count, sizeof(got.count)), 0);

	ck_assert_int_eq(pp_lhist_hist(h, 0, &got), EINVAL);
	ck_assert_int_eq(pp_lhist_hist(h, PP_HIST_MAX_BINS + 1, &got), EINVAL);
	pp_lhist_reset(h);
	ck_assert_int_eq(pp_lhist_hist(h, 20, &got), EINVAL);
	pp_lhist_destroy(h);
}
END_TEST

/* Wide buckets: every value lands in a bin; overflow values in max's. */
START_TEST(test_hist_wide)
{
	size_t n = 100000, i;
	uint64_t *v = malloc(n * sizeof(*v)), sum;
	struct pp_hist raw, got;
	struct pp_lhist *h;

	ck_assert_ptr_nonnull(v);
	fill_set(SET_EXPONENTIAL, v, n);
	h = record_all(v, n);
	ck_assert_int_eq(pp_hist_compute(v, n, 20, &raw), 0);
	ck_assert_int_eq(pp_lhist_hist(h, 20, &got), 0);
	ck_assert_uint_eq(got.lo, raw.lo);
	ck_assert_uint_eq(got.width, raw.width);
	ck_assert_uint_eq(got.nbins, raw.nbins);
	for (sum = got.overflow, i = 0; i < got.nbins; i++) {
		sum += got.count[i];
		/* off only by the values near an edge */
		ck_assert_msg(llabs((long long)got.count[i] -
				    (long long)raw.count[i]) <=
				      (long long)raw.count[i] / 100 + 2,
			      "bin %zu: %llu, raw %llu", i,
			      (unsigned long long)got.count[i],
			      (unsigned long long)raw.count[i]);
	}
	ck_assert_uint_eq(sum, n);

	/* Only overflow values: one bin, at max. */
	pp_lhist_reset(h);
	pp_lhist_record(h, PP_LHIST_LIMIT + 10);
	pp_lhist_record(h, PP_LHIST_LIMIT + 20);
	ck_assert_int_eq(pp_lhist_hist(h, 20, &got), 0);
	ck_assert_uint_eq(got.n, 2);
	for (sum = got.overflow, i = 0; i < got.nbins; i++)
		sum += got.count[i];
	ck_assert_uint_eq(sum, 2);
	ck_assert_uint_eq(got.count[(got.max - got.lo) / got.width], 2);
	pp_lhist_destroy(h);
	free(v);
}
END_TEST

START_TEST(test_einval)
{
	struct pp_lhist *h = pp_lhist_create();
	struct pp_stats s;

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(pp_lhist_stats(NULL, &s), EINVAL);
	pp_lhist_record(h, 1);
	ck_assert_int_eq(pp_lhist_stats(h, NULL), EINVAL);
	ck_assert_int_eq(pp_lhist_hist(NULL, 20, NULL), EINVAL);
	pp_lhist_destroy(h);
	pp_lhist_destroy(NULL);
}
END_TEST

static Suite *lhist_suite(void)
{
	Suite *s = suite_create("lhist");
	TCase *tl = tcase_create("layout");
	TCase *tr = tcase_create("raw");
	TCase *to = tcase_create("ops");

	tcase_add_test(tl, test_layout);
	tcase_add_test(tl, test_rank_rule);
	tcase_add_test(tl, test_midpoint_clamped);
	tcase_add_test(tl, test_memory);
	suite_add_tcase(s, tl);

	tcase_add_loop_test(tr, test_against_raw, 0, SET_COUNT);
	suite_add_tcase(s, tr);

	tcase_add_test(to, test_merge);
	tcase_add_test(to, test_reset);
	tcase_add_test(to, test_overflow);
	tcase_add_test(to, test_long_loop);
	tcase_add_test(to, test_hist_exact);
	tcase_add_test(to, test_hist_wide);
	tcase_add_test(to, test_einval);
	suite_add_tcase(s, to);
	return s;
}

PP_CHECK_MAIN(lhist_suite)
