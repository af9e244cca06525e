/* SPDX-License-Identifier: MIT */
/*
 * pp_stats.h - latency statistics over per-iteration round-trip samples.
 *
 * Percentiles use the nearest-rank rule: the p-th percentile of n sorted
 * samples is sample number ceil(p / 100 * n) (1-based), so it is always a
 * value that was measured.  The median of an even count is the mean of the
 * two middle samples.  stdev is the population standard deviation.
 */
#ifndef PP_STATS_H
#define PP_STATS_H

#include <stddef.h>
#include <stdint.h>

struct pp_stats {
	size_t n;   /* samples */
	double min; /* all in microseconds */
	double max;
	double mean;
	double stdev;
	double median;
	double p50;
	double p90;
	double p99;
	double p999;
};

/**
 * pp_stats_compute() - summarise @n samples
 * @ns: round-trip samples in nanoseconds, in any order (not modified)
 * @n: how many
 * @s: filled
 *
 * Return: 0; EINVAL (@n is 0); ENOMEM (no room to sort a copy).
 */
int pp_stats_compute(const uint64_t *ns, size_t n, struct pp_stats *s);

/**
 * pp_stats_sorted() - an ascending copy of @n samples
 * @ns: the samples (not modified)
 * @n: how many, at least 1
 *
 * Return: the copy, to be freed by the caller, or NULL with errno ENOMEM.
 */
uint64_t *pp_stats_sorted(const uint64_t *ns, size_t n);

/**
 * pp_percentile() - nearest-rank percentile of sorted samples
 * @sorted: ascending samples
 * @n: how many, at least 1
 * @p: the percentile, 0 < @p <= 100
 *
 * Return: the sample at rank ceil(@p / 100 * @n).
 */
uint64_t pp_percentile(const uint64_t *sorted, size_t n, double p);

/**
 * pp_stats_nearest_rank() - the 1-based nearest rank of percentile @p among
 * @n values: ceil(@p / 100 * @n), clamped to 1..@n
 * @n: how many values (at least 1)
 * @p: the percentile, 0..100
 *
 * Return: the rank; a product within 1e-9 (relative) of a whole number is
 * that number.
 */
uint64_t pp_stats_nearest_rank(uint64_t n, double p);

#endif /* PP_STATS_H */
