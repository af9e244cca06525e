// SPDX-License-Identifier: MIT
/*
 * pp_lhist.c - a log-linear histogram of round-trip times: the figures of
 * pp_stats and the bins of pp_hist in constant memory (see pp_lhist.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_hist.h"
#include "pp_lhist.h"
#include "pp_stats.h"

size_t pp_lhist_size(void)
{
	return sizeof(struct pp_lhist) + PP_LHIST_NBUCKETS * sizeof(uint64_t);
}

struct pp_lhist *pp_lhist_create(void)
{
	struct pp_lhist *h = calloc(1, pp_lhist_size());

	if (!h)
		return NULL;
	h->min = UINT64_MAX;
	return h;
}

void pp_lhist_destroy(struct pp_lhist *h)
{
	free(h);
}

void pp_lhist_record_overflow(struct pp_lhist *h, uint64_t ns)
{
	h->n++;
	h->overflow++;
	h->sum += ns;
	h->big_sq += (long double)ns * (long double)ns;
}

/*
 * The buckets that may hold counts: those of min to max (max taken below
 * the limit).  False when there are none (no values, or only overflow).
 */
static int used_range(const struct pp_lhist *h, size_t *first, size_t *last)
{
	if (h->n == h->overflow)
		return 0;
	*first = pp_lhist_index(h->min);
	*last = pp_lhist_index(h->max < PP_LHIST_LIMIT ? h->max :
							 PP_LHIST_LIMIT - 1);
	return 1;
}

void pp_lhist_reset(struct pp_lhist *h)
{
	size_t first, last;

	if (used_range(h, &first, &last))
		memset(&h->count[first], 0,
		       (last - first + 1) * sizeof(h->count[0]));
	h->n = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->overflow = 0;
	h->sum = 0;
	h->sumsq = 0;
	h->big_sq = 0.0L;
}

void pp_lhist_merge(struct pp_lhist *dst, const struct pp_lhist *src)
{
	size_t first, last, i;

	if (used_range(src, &first, &last))
		for (i = first; i <= last; i++)
			dst->count[i] += src->count[i];
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->overflow += src->overflow;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	dst->big_sq += src->big_sq;
}

void pp_lhist_bucket(size_t idx, uint64_t *lo, uint64_t *width)
{
	/* idx = (shift << 10) + top, top in [1024, 2048) once shift > 0 */
	unsigned int shift = (unsigned int)(idx >> PP_LHIST_SUB_BITS);
	uint64_t top;

	shift = shift ? shift - 1 : 0;
	top = idx - ((size_t)shift << PP_LHIST_SUB_BITS);
	*lo = top << shift;
	*width = 1ULL << shift;
}

/* The value a bucket stands for: its midpoint, clamped to [min, max]. */
static uint64_t bucket_value(const struct pp_lhist *h, size_t idx)
{
	uint64_t lo, width, v;

	pp_lhist_bucket(idx, &lo, &width);
	v = lo + width / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

uint64_t pp_lhist_rank(const struct pp_lhist *h, uint64_t rank)
{
	uint64_t seen = 0;
	size_t first, last, i;

	if (!h->n)
		return 0;
	if (used_range(h, &first, &last))
		for (i = first; i <= last; i++) {
			seen += h->count[i];
			if (seen >= rank)
				return bucket_value(h, i);
		}
	return h->max;
}

uint64_t pp_lhist_percentile(const struct pp_lhist *h, double p)
{
	if (!h->n)
		return 0;
	return pp_lhist_rank(h, pp_stats_nearest_rank(h->n, p));
}

static double ns_to_us(long double ns)
{
	return (double)(ns / 1000.0L);
}

/* The population variance, in ns^2. */
static long double variance(const struct pp_lhist *h)
{
	long double mean = (long double)h->sum / (long double)h->n, var;

#ifdef __SIZEOF_INT128__
	if (!h->overflow) {
		/*
		 * Exact integers: with sum = n a + b, the squares of the
		 * deviations from the integer a add up to
		 * sumsq - a (sum + b), a value in [0, sumsq], so the modular
		 * arithmetic of unsigned __int128 gives it exactly.  Then
		 * those from the mean add up to that less b^2 / n.
		 */
		pp_lhist_acc a = h->sum / h->n, b = h->sum % h->n;
		pp_lhist_acc m2a = h->sumsq - a * (h->sum + b);

		var = ((long double)m2a -
		       (long double)b * (long double)b / (long double)h->n) /
		      (long double)h->n;
		return var > 0.0L ? var : 0.0L;
	}
#endif
	var = ((long double)h->sumsq + h->big_sq) / (long double)h->n -
	      mean * mean;
	return var > 0.0L ? var : 0.0L;
}

int pp_lhist_stats(const struct pp_lhist *h, struct pp_stats *s)
{
	long double median;
	uint64_t n;

	if (!h || !s || !h->n)
		return EINVAL;
	n = h->n;
	if (n % 2)
		median = (long double)pp_lhist_rank(h, n / 2 + 1);
	else
		median = ((long double)pp_lhist_rank(h, n / 2) +
			  (long double)pp_lhist_rank(h, n / 2 + 1)) /
			 2.0L;

	*s = (struct pp_stats){
		.n = (size_t)n,
		.min = ns_to_us(h->min),
		.max = ns_to_us(h->max),
		.mean = ns_to_us((long double)h->sum / (long double)n),
		.stdev = ns_to_us(sqrtl(variance(h))),
		.median = ns_to_us(median),
		.p50 = ns_to_us(pp_lhist_percentile(h, 50.0)),
		.p90 = ns_to_us(pp_lhist_percentile(h, 90.0)),
		.p99 = ns_to_us(pp_lhist_percentile(h, 99.0)),
		.p999 = ns_to_us(pp_lhist_percentile(h, 99.9)),
	};
	return 0;
}

/* Count @count values of @ns in the bin of @out that holds it. */
static void add_to_bin(struct pp_hist *out, uint64_t ns, uint64_t count)
{
	uint64_t idx = (ns - out->lo) / out->width;

	if (idx < out->nbins)
		out->count[idx] += count;
	else
		out->overflow += count;
}

int pp_lhist_hist(const struct pp_lhist *h, unsigned int nbins,
		  struct pp_hist *out)
{
	size_t first, last, i;
	uint64_t hi;

	if (!h || !out || !h->n || nbins < 1 || nbins > PP_HIST_MAX_BINS)
		return EINVAL;
	memset(out, 0, sizeof(*out));
	out->n = (size_t)h->n;
	out->min = h->min;
	out->max = h->max;
	hi = pp_lhist_percentile(h, 99.9);
	out->width =
		pp_hist_nice_width(h->min, hi, nbins, &out->lo, &out->nbins);
	/* Values past the range are somewhere in [2^42, max]: max's bin. */
	add_to_bin(out, h->max, h->overflow);
	if (!used_range(h, &first, &last))
		return 0;
	for (i = first; i <= last; i++)
		if (h->count[i])
			add_to_bin(out, bucket_value(h, i), h->count[i]);
	return 0;
}
