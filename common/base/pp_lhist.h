/* SPDX-License-Identifier: MIT */
/*
 * pp_lhist.h - a log-linear histogram of round-trip times, for runs too long
 * to keep every sample.
 *
 * Layout (HDR-style).  PP_LHIST_SUB_BITS = 10, so S = 1024 sub-buckets:
 *
 *   - values 0 .. 2047 ns have one bucket each (exact);
 *   - from 2048 ns on, each power of two [2^e, 2^(e+1)) is cut into 1024
 *     equal buckets of width 2^(e - 10) ns: 2 ns from 2048, 4 ns from 4096,
 *     ..., 2^31 ns in the last octave [2^41, 2^42);
 *   - values of 2^42 ns (73 minutes, above the longest -T, 3600 s) or more
 *     are counted in one overflow count.
 *
 * The bucket of v is found with one count-leading-zeros, a shift and an
 * add: with shift = max(0, floor(log2 v) - 10), the index is
 * (shift << 10) + (v >> shift).  That is PP_LHIST_NBUCKETS = 33 x 1024 =
 * 33792 buckets.
 *
 * Error bound.  A bucket [lo, lo + w) reports its value as lo + w / 2 (its
 * midpoint; lo itself when w is 1).  Any value v in it is at most w / 2 away,
 * and v >= lo >= 1024 w, so the reported value is within w / 2 / (1024 w) =
 * 2^-11 (0.0489 %) of v; below 2048 ns it is exact.  A percentile is found
 * with the nearest-rank rule of pp_stats.h on the bucket counts: the bucket
 * that holds the sample of that rank is the bucket of the very sample that
 * pp_stats_compute() would report, so every percentile is within 2^-11 of
 * the raw-sample figure (then clamped to [min, max], which only brings it
 * closer).  The median of an even count, the mean of two such values, is
 * within the same bound.  A rank that falls among the overflow values
 * reports max: no bound there, beyond being a value >= 2^42 ns that is <=
 * max.
 *
 * min, max and n are exact.  The sum is kept as an exact integer, so mean
 * is exact up to the rounding of one long double division.  The sum of
 * squares of values below 2^42 ns is an exact integer too (when the
 * compiler has unsigned __int128, as GCC and Clang do on 64-bit targets),
 * and stdev is computed from the exact integers: its only error is the
 * rounding of a few long double operations (relative 2^-64 on x86-64).  The
 * squares of overflow values (and all squares without __int128) are summed
 * in long double: then stdev comes from E[v^2] - mean^2, with a relative
 * error of about 2^-64 x (mean^2 + stdev^2) / stdev^2 in the variance.  The
 * integers cannot wrap in any real run: the samples are successive round
 * trips, so their sum is below the run's wall-clock time in ns (2^64 ns is
 * 584 years), and the in-range squares sum to at most 2^42 times that.
 *
 * Memory: one allocation of pp_lhist_size() bytes, 270 KB (33792 counts of
 * 8 bytes and a small header), whatever the number of samples.  Recording
 * never allocates and uses no floating point.
 *
 * The struct is open so that pp_lhist_record() can be inlined into the hot
 * loop; read its fields, but change it only through these functions.
 */
#ifndef PP_LHIST_H
#define PP_LHIST_H

#include <stddef.h>
#include <stdint.h>

struct pp_hist;
struct pp_stats;

#define PP_LHIST_SUB_BITS 10
#define PP_LHIST_SUB (1U << PP_LHIST_SUB_BITS) /* sub-buckets per octave */
#define PP_LHIST_RANGE_BITS 42
#define PP_LHIST_LIMIT (1ULL << PP_LHIST_RANGE_BITS) /* overflow from here */
#define PP_LHIST_NBUCKETS \
	((size_t)(PP_LHIST_RANGE_BITS - PP_LHIST_SUB_BITS + 1) * PP_LHIST_SUB)

/*
 * Above this many samples of one size, a run is meant to keep a pp_lhist
 * instead of raw samples (8 MB of them); the caller decides.
 */
#define PP_LHIST_RAW_LIMIT 1000000ULL

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 pp_lhist_acc;
#else
typedef long double pp_lhist_acc;
#endif

struct pp_lhist {
	uint64_t n;	    /* values recorded, overflow included */
	uint64_t min;	    /* exact; UINT64_MAX while n is 0 */
	uint64_t max;	    /* exact; 0 while n is 0 */
	uint64_t overflow;  /* values >= PP_LHIST_LIMIT */
	pp_lhist_acc sum;   /* of all values, exact */
	pp_lhist_acc sumsq; /* of the squares of values < PP_LHIST_LIMIT */
	long double big_sq; /* of the squares of the overflow values */
	uint64_t count[];   /* PP_LHIST_NBUCKETS */
};

/**
 * pp_lhist_index() - the bucket of a value
 * @ns: a value below PP_LHIST_LIMIT
 *
 * Return: its bucket, 0..PP_LHIST_NBUCKETS - 1 (past the end for @ns at or
 * above the limit: pp_lhist_record() counts those apart).
 */
static inline size_t pp_lhist_index(uint64_t ns)
{
	/* floor(log2(max(ns, 1024))) - 10, never negative, no clz of 0 */
	unsigned int shift = 63 - PP_LHIST_SUB_BITS -
			     (unsigned int)__builtin_clzll(ns | PP_LHIST_SUB);

	return ((size_t)shift << PP_LHIST_SUB_BITS) + (size_t)(ns >> shift);
}

/**
 * pp_lhist_record_overflow() - count a value past the range
 * @h: the histogram
 * @ns: the value, >= PP_LHIST_LIMIT (min and max already updated)
 *
 * The rare case of pp_lhist_record(), out of line; call that instead.
 */
void pp_lhist_record_overflow(struct pp_lhist *h, uint64_t ns);

/**
 * pp_lhist_record() - count one value
 * @h: the histogram
 * @ns: the value, in nanoseconds
 *
 * O(1), no allocation, no floating point: meant for the hot loop.
 */
static inline void pp_lhist_record(struct pp_lhist *h, uint64_t ns)
{
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	if (__builtin_expect(ns >= PP_LHIST_LIMIT, 0)) {
		pp_lhist_record_overflow(h, ns);
		return;
	}
	h->n++;
	h->sum += ns;
	h->sumsq += (pp_lhist_acc)ns * ns;
	h->count[pp_lhist_index(ns)]++;
}

/**
 * pp_lhist_size() - the bytes one histogram takes
 *
 * Return: the size of the one allocation pp_lhist_create() makes.
 */
size_t pp_lhist_size(void);

/**
 * pp_lhist_create() - an empty histogram
 *
 * Return: the histogram, to be freed with pp_lhist_destroy(), or NULL with
 * errno ENOMEM.
 */
struct pp_lhist *pp_lhist_create(void);

/**
 * pp_lhist_destroy() - free a histogram
 * @h: from pp_lhist_create(), or NULL
 */
void pp_lhist_destroy(struct pp_lhist *h);

/**
 * pp_lhist_reset() - empty a histogram, to count the next interval
 * @h: the histogram
 *
 * Clears only the buckets between those of min and max, so an interval of
 * narrow spread resets quickly.
 */
void pp_lhist_reset(struct pp_lhist *h);

/**
 * pp_lhist_merge() - add the counts of @src to @dst
 * @dst: the histogram added to (an interval's to the run's total, say)
 * @src: the histogram added; may be @dst
 *
 * Afterwards @dst is what recording the values of both would have made.
 */
void pp_lhist_merge(struct pp_lhist *dst, const struct pp_lhist *src);

/**
 * pp_lhist_bucket() - the values a bucket holds
 * @idx: the bucket, 0..PP_LHIST_NBUCKETS - 1
 * @lo: set to its smallest value, ns
 * @width: set to its width, ns (a power of two): it holds [@lo, @lo + @width)
 */
void pp_lhist_bucket(size_t idx, uint64_t *lo, uint64_t *width);

/**
 * pp_lhist_rank() - the value of the sample of a given rank
 * @h: the histogram
 * @rank: 1-based, 1..@h->n
 *
 * Return: the midpoint of the bucket that holds the sample of rank @rank in
 * ascending order, clamped to [min, max]; max when that sample is an
 * overflow value or @rank exceeds n; 0 when @h is empty.
 */
uint64_t pp_lhist_rank(const struct pp_lhist *h, uint64_t rank);

/**
 * pp_lhist_percentile() - nearest-rank percentile, the rule of pp_stats.h
 * @h: the histogram
 * @p: the percentile, 0 < @p <= 100
 *
 * Return: pp_lhist_rank() of rank ceil(@p / 100 * n), within 2^-11 of the
 * raw-sample percentile pp_percentile() gives; 0 when @h is empty.
 */
uint64_t pp_lhist_percentile(const struct pp_lhist *h, double p);

/**
 * pp_lhist_stats() - the figures pp_stats_compute() gives for raw samples
 * @h: the histogram
 * @s: filled as pp_stats_compute() fills it, so reports are shared
 *
 * n, min, max exact; mean and stdev as the header comment says; median and
 * percentiles within 2^-11 of the raw-sample figures.
 *
 * Return: 0; EINVAL (@h is empty, or a NULL pointer).
 */
int pp_lhist_stats(const struct pp_lhist *h, struct pp_stats *s);

/**
 * pp_lhist_hist() - the --histogram bins of pp_hist_compute() from @h
 * @h: the histogram
 * @nbins: most bins wanted, 1..PP_HIST_MAX_BINS
 * @out: filled as pp_hist_compute() fills it, for pp_hist_print()
 *
 * The bin layout is pp_hist's: equal "nice" widths from min to p99.9 (here
 * the histogram's p99.9) and an overflow bin.  Each bucket's count goes to
 * the bin that holds the bucket's midpoint (clamped to [min, max]), so
 * below 2048 ns the counts are those of pp_hist_compute() on the raw
 * samples; above, a value within a bucket width (2^-10 of it) of a bin edge
 * may be counted in the next bin.  Overflow values (>= 2^42 ns) are counted
 * in the bin of max.
 *
 * Return: 0; EINVAL (@h is empty, @nbins out of range, a NULL pointer).
 */
int pp_lhist_hist(const struct pp_lhist *h, unsigned int nbins,
		  struct pp_hist *out);

#endif /* PP_LHIST_H */
