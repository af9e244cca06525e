// SPDX-License-Identifier: MIT
/*
 * pp_mesh_odd.c - the odd one out of a mesh (pp_mesh_odd.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_mesh_odd.h"
#include "pp_mesh_sched.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pp_mesh_median(double *v, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* The lower median: of an even count, the smaller middle value. */
double pp_mesh_odd_dof(uint64_t pairs, uint32_t n)
{
	double free_ = (double)pairs - n - 1;

	if (!pairs)
		return 1;
	return sqrt((double)pairs / (free_ >= 1 ? free_ : 1));
}

static double lower_median(double *v, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_double);
	return v[(k - 1) / 2];
}

/* The @i-th value of @v, whose values are @stride bytes apart. */
static double at(const double *v, size_t stride, size_t i)
{
	return *(const double *)(const void *)((const char *)v + i * stride);
}

/* The pairs left out of the triangles: slow links, sorted by index. */
struct links {
	size_t *k;
	size_t n;
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static bool is_link(const struct links *l, size_t k)
{
	return l && l->n && bsearch(&k, l->k, l->n, sizeof(k), cmp_size);
}

/* A pair's median; NaN for a pair in @l (left out). */
static double rtt(uint32_t n, const double *us, size_t stride, uint32_t a,
		  uint32_t b, const struct links *l)
{
	size_t k = pp_mesh_pair_index(n, a, b);

	return is_link(l, k) ? NAN : at(us, stride, k);
}

/* A double's bits, in the order of the values. */
static uint64_t order_key(double d)
{
	union {
		double d;
		uint64_t u;
	} x = { .d = d };

	return x.u >> 63 ? ~x.u : x.u | 1ULL << 63;
}

static double from_key(uint64_t key)
{
	union {
		uint64_t u;
		double d;
	} x = { .u = key >> 63 ? key & ~(1ULL << 63) : ~key };

	return x.d;
}

/*
 * The @k-th smallest (from 0) finite value of @v without a copy: the
 * values' ordered bits, 16 at a time, counted in @cnt (65536 entries).
 */
static double kth(const double *v, size_t stride, size_t n, uint64_t k,
		  uint64_t *cnt)
{
	uint64_t prefix = 0, mask = 0, key;
	size_t i;
	int shift, b;

	for (shift = 48; shift >= 0; shift -= 16) {
		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (i = 0; i < n; i++) {
			double x = at(v, stride, i);

			if (!isfinite(x))
				continue;
			key = order_key(x);
			if ((key & mask) == prefix)
				cnt[(key >> shift) & 0xffff]++;
		}
		for (b = 0; b < 65535 && k >= cnt[b]; b++)
			k -= cnt[b];
		prefix |= (uint64_t)b << shift;
		mask |= 0xffffULL << shift;
	}
	return from_key(prefix);
}

/* pp_mesh_median() of strided values, exact, in O(1) memory. */
static double median_strided(const double *v, size_t stride, size_t n,
			     uint64_t *cnt)
{
	uint64_t k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += isfinite(at(v, stride, i));
	if (!k)
		return NAN;
	if (k % 2)
		return kth(v, stride, n, k / 2, cnt);
	return (kth(v, stride, n, k / 2 - 1, cnt) +
		kth(v, stride, n, k / 2, cnt)) /
	       2;
}

/* e(i): the median of the triangles of @i over evenly spread others. */
/* The m others of rank @i that its estimate looks at, spread evenly. */
static uint32_t spread_peers(uint32_t n, uint32_t i, uint32_t *peer)
{
	uint32_t m = n - 1 < PP_MESH_ODD_PEERS ? n - 1 : PP_MESH_ODD_PEERS;
	uint32_t j;

	for (j = 0; j < m; j++) {
		/* the j-th of m ranks spread over the n - 1 others */
		uint32_t o = (uint32_t)((uint64_t)j * (n - 1) / m);

		peer[j] = o >= i ? o + 1 : o;
	}
	return m;
}

static double estimate(uint32_t n, const double *us, size_t stride, uint32_t i,
		       uint32_t *peer, double *tri, const struct links *l)
{
	uint32_t m = spread_peers(n, i, peer);
	uint32_t j, k, t = 0;

	for (j = 0; j < m; j++)
		for (k = j + 1; k < m; k++) {
			double x = rtt(n, us, stride, i, peer[j], l) +
				   rtt(n, us, stride, i, peer[k], l) -
				   rtt(n, us, stride, peer[j], peer[k], l);

			if (isfinite(x))
				tri[t++] = x / 2;
		}
	return pp_mesh_median(tri, t);
}

/*
 * s: 1.4826 x the median of |rtt(i,j) - e(i) - e(j)| over each rank's
 * spread peers (pp_mesh_odd.h); 0 when no pair has all three.
 */
static double noise(uint32_t n, const double *us, size_t stride,
		    const double *e, uint32_t *peer, double *r,
		    const struct links *l)
{
	uint32_t i, j, m;
	size_t t = 0;

	for (i = 0; i < n; i++) {
		m = spread_peers(n, i, peer);
		for (j = 0; j < m; j++) {
			double x = rtt(n, us, stride, i, peer[j], l) - e[i] -
				   e[peer[j]];

			if (isfinite(x))
				r[t++] = fabs(x);
		}
	}
	return t ? 1.4826 * pp_mesh_median(r, (uint32_t)t) : 0;
}

/*
 * The slow links, by the rows' medians (pp_mesh_odd.h): m(i) the median of
 * rank i's pairs (at least 3, else none), M the median of the m(i); a pair
 * whose median exceeds m(a) + m(b) - M by max(MIN, M / 2, z x s') is one.
 * @row and @buf: n and n x PP_MESH_ODD_PEERS + n doubles.
 */
static int find_links(uint32_t n, const double *us, size_t stride,
		      uint32_t *peer, double *row, double *buf, struct links *l,
		      size_t *npairs, struct pp_mesh_odd *res)
{
	uint32_t i, j, t, m;
	size_t r = 0, judged = 0, cap = 0;
	double x, med, s, bar;

	for (i = 0; i < n; i++) {
		for (j = 0, t = 0; j < n; j++)
			if (j != i &&
			    isfinite(x = rtt(n, us, stride, i, j, NULL)))
				buf[t++] = x;
		judged += t;
		row[i] = t >= 3 ? pp_mesh_median(buf, t) : NAN;
	}
	*npairs = judged / 2;
	memcpy(buf, row, n * sizeof(*row));
	med = pp_mesh_median(buf, n);
	res->row_median_us = med;
	if (!isfinite(med))
		return 0;
	for (i = 0; i < n; i++) {
		m = spread_peers(n, i, peer);
		for (j = 0; j < m; j++) {
			x = rtt(n, us, stride, i, peer[j], NULL) -
			    (row[i] + row[peer[j]] - med);
			if (isfinite(x))
				buf[r++] = fabs(x);
		}
	}
	s = r ? 1.4826 * pp_mesh_median(buf, (uint32_t)r) : 0;
	judged /= 2;
	res->link_noise_us = fmax(PP_MESH_ODD_NOISE_K,
				  judged ? sqrt(2 * log(judged / 0.01)) : 0) *
			     s * pp_mesh_odd_dof(judged, n);
	bar = fmax(fmax(PP_MESH_ODD_MIN_US, med / 2), res->link_noise_us);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			x = rtt(n, us, stride, i, j, NULL) -
			    (row[i] + row[j] - med);
			if (!(x >= bar))
				continue;
			if (l->n == cap) {
				size_t *k;

				if (cap == PP_MESH_ODD_LINKS)
					goto out;
				cap = cap ? cap * 2 : 64;
				k = realloc(l->k, cap * sizeof(*k));
				if (!k)
					return ENOMEM;
				l->k = k;
			}
			l->k[l->n++] = pp_mesh_pair_index(n, i, j);
		}
out:
	if (l->n)
		qsort(l->k, l->n, sizeof(*l->k), cmp_size);
	return 0;
}

int pp_mesh_odd_judge_strided(uint32_t n, const double *pair_us, size_t stride,
			      double *added_us, bool *slow, double *row_us,
			      struct pp_mesh_odd *res)
{
	size_t npairs = (size_t)n * (n > 0 ? n - 1 : 0) / 2;
	uint32_t m = PP_MESH_ODD_PEERS, i;
	double *all, *e, *tri;
	struct links links = { 0 };
	size_t finite = 0;
	uint32_t judged;
	uint64_t *cnt;
	uint32_t *peer;
	int ret = ENOMEM;

	res->matrix_median_us = NAN;
	res->baseline_us = NAN;
	res->noise_us = NAN;
	res->bar_us = NAN;
	res->row_median_us = NAN;
	res->link_noise_us = NAN;
	res->nslow = 0;
	for (i = 0; i < n; i++) {
		added_us[i] = NAN;
		slow[i] = false;
		if (row_us)
			row_us[i] = NAN;
	}
	/* room for the e(i), the rows, then the residuals of noise() */
	all = calloc((size_t)n * m + n + 1, sizeof(*all));
	cnt = calloc(65536, sizeof(*cnt));
	e = calloc((size_t)n + 1, sizeof(*e));
	tri = calloc((size_t)m * m / 2 + 1, sizeof(*tri));
	peer = calloc(m, sizeof(*peer));
	if (!all || !cnt || !e || !tri || !peer)
		goto out;
	ret = 0;
	res->matrix_median_us = median_strided(pair_us, stride, npairs, cnt);
	if (n < 3)
		goto out;
	/* the rows in @row_us, or in e until the estimates take it */
	ret = find_links(n, pair_us, stride, peer, row_us ? row_us : e, all,
			 &links, &finite, res);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		e[i] = estimate(n, pair_us, stride, i, peer, tri, &links);
	for (i = 0; i < n; i++)
		all[i] = e[i];
	res->baseline_us = lower_median(all, n);
	if (!isfinite(res->baseline_us))
		goto out;
	for (i = 0, judged = 0; i < n; i++)
		judged += isfinite(e[i]);
	res->noise_us = noise(n, pair_us, stride, e, peer, all, &links) *
			pp_mesh_odd_dof(finite - links.n, judged);
	res->bar_us = fmax(fmax(PP_MESH_ODD_MIN_US, res->baseline_us),
			   PP_MESH_ODD_NOISE_K * res->noise_us);
	for (i = 0; i < n; i++) {
		if (!isfinite(e[i]))
			continue;
		added_us[i] = e[i] - res->baseline_us;
		slow[i] = added_us[i] >= res->bar_us;
		res->nslow += slow[i];
	}
out:
	free(links.k);
	free(all);
	free(cnt);
	free(e);
	free(tri);
	free(peer);
	return ret;
}

int pp_mesh_odd_judge(uint32_t n, const double *pair_us, double *added_us,
		      bool *slow, struct pp_mesh_odd *res)
{
	return pp_mesh_odd_judge_strided(n, pair_us, sizeof(*pair_us), added_us,
					 slow, NULL, res);
}
