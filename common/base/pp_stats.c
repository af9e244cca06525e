// SPDX-License-Identifier: MIT
/*
 * pp_stats.c - latency statistics over per-iteration round-trip samples.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_stats.h"

/* Relative slack under which p / 100 * n counts as a whole number. */
#define PP_RANK_EPS 1e-9

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A product that lands within rounding error of a whole number (99.9 / 100
 * * 1000 is 999.0000000000001 in binary) is taken as that number, not the
 * next one.
 */
uint64_t pp_stats_nearest_rank(uint64_t n, double p)
{
	double x = p / 100.0 * (double)n;
	double r;

	if (!(x > 1.0)) /* also NaN */
		return 1;
	if (x >= (double)n)
		return n;
	r = nearbyint(x);
	if (fabs(x - r) <= PP_RANK_EPS * x)
		x = r;
	else
		x = ceil(x);
	if (x >= (double)n)
		return n;
	return (uint64_t)x;
}

uint64_t pp_percentile(const uint64_t *sorted, size_t n, double p)
{
	if (!sorted || !n)
		return 0;
	return sorted[pp_stats_nearest_rank(n, p) - 1];
}

static double ns_to_us(long double ns)
{
	return (double)(ns / 1000.0L);
}

uint64_t *pp_stats_sorted(const uint64_t *ns, size_t n)
{
	uint64_t *v;

	if (n > SIZE_MAX / sizeof(*v)) {
		errno = ENOMEM;
		return NULL;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, ns, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u64);
	return v;
}

int pp_stats_compute(const uint64_t *ns, size_t n, struct pp_stats *s)
{
	long double sum = 0.0L, mean, dev, sq = 0.0L, median;
	uint64_t *v;
	size_t i;

	if (!ns || !n || !s)
		return EINVAL;
	v = pp_stats_sorted(ns, n);
	if (!v)
		return ENOMEM;

	/*
	 * Two passes in long double (64-bit mantissa on x86): a thousand
	 * samples near 1e15 ns still sum exactly, and no uint64_t overflows.
	 */
	for (i = 0; i < n; i++)
		sum += (long double)v[i];
	mean = sum / (long double)n;
	for (i = 0; i < n; i++) {
		dev = (long double)v[i] - mean;
		sq += dev * dev;
	}

	if (n % 2)
		median = (long double)v[n / 2];
	else
		median = ((long double)v[n / 2 - 1] + (long double)v[n / 2]) /
			 2.0L;

	*s = (struct pp_stats){
		.n = n,
		.min = ns_to_us(v[0]),
		.max = ns_to_us(v[n - 1]),
		.mean = ns_to_us(mean),
		.stdev = ns_to_us(sqrtl(sq / (long double)n)),
		.median = ns_to_us(median),
		.p50 = ns_to_us(pp_percentile(v, n, 50.0)),
		.p90 = ns_to_us(pp_percentile(v, n, 90.0)),
		.p99 = ns_to_us(pp_percentile(v, n, 99.0)),
		.p999 = ns_to_us(pp_percentile(v, n, 99.9)),
	};
	free(v);
	return 0;
}
