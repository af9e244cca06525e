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

/* The others each rank's estimate looks at (pick_peers()). */
struct peers {
	uint32_t *p; /* rank i's at p[i * PP_MESH_ODD_PEERS] */
	uint32_t *m; /* how many rank i has */
	uint32_t *c; /* how many pairs of rank i passed */
};

/*
 * K by the peers a typical rank's estimate looks at, from 3 on
 * (pp_mesh_odd_k(); odd_k_calibrated in tests/unit/test_mesh_report.c
 * draws the meshes it was read off).  With 3 peers K also grows as the pairs beyond
 * the model, nu, get fewer: a full mesh of 4 has one.
 */
static const double k_by_peers[] = { 0, 0, 0, 9.0, 6.5, 6.0, 4.5, 4.5 };

double pp_mesh_odd_k(uint32_t peers, uint64_t pairs, uint32_t n)
{
	double nu = (double)pairs - n - 1;

	if (peers < PP_MESH_ODD_MIN_PEERS)
		return INFINITY;
	if (peers >= sizeof(k_by_peers) / sizeof(k_by_peers[0]))
		return PP_MESH_ODD_NOISE_K;
	if (peers == PP_MESH_ODD_MIN_PEERS)
		return k_by_peers[peers] + 6 / (nu >= 1 ? nu : 1);
	return k_by_peers[peers];
}

/* The pairs that passed: each is in its two ranks' counts. */
static uint64_t finite_pairs(uint32_t n, const struct peers *pr)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += pr->c[i];
	return sum / 2;
}

/* The lower median of the peers of the ranks with at least the least. */
static uint32_t typical_peers(uint32_t n, const uint32_t *m)
{
	uint32_t cnt[PP_MESH_ODD_PEERS + 1] = { 0 }, i, k = 0, seen = 0;

	for (i = 0; i < n; i++)
		if (m[i] >= PP_MESH_ODD_MIN_PEERS) {
			cnt[m[i]]++;
			k++;
		}
	for (i = 0; i <= PP_MESH_ODD_PEERS; i++) {
		seen += cnt[i];
		if (k && seen * 2 >= k)
			return i;
	}
	return 0;
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

/*
 * pp_mesh_median() of strided values, exact: of up to PP_MESH_ODD_COPY
 * values, a sorted copy; of more, in O(1) memory (kth()), whose 65,536
 * counters would cost a small mesh more than its pairs.
 */
static int median_strided(const double *v, size_t stride, size_t n, double *out)
{
	uint64_t k = 0, *cnt;
	size_t i;

	if (n <= PP_MESH_ODD_COPY) {
		double *copy = calloc(n + 1, sizeof(*copy));

		if (!copy)
			return ENOMEM;
		for (i = 0; i < n; i++)
			copy[i] = at(v, stride, i);
		*out = pp_mesh_median(copy, (uint32_t)n);
		free(copy);
		return 0;
	}
	for (i = 0; i < n; i++)
		k += isfinite(at(v, stride, i));
	*out = NAN;
	if (!k)
		return 0;
	cnt = calloc(65536, sizeof(*cnt));
	if (!cnt)
		return ENOMEM;
	if (k % 2)
		*out = kth(v, stride, n, k / 2, cnt);
	else
		*out = (kth(v, stride, n, k / 2 - 1, cnt) +
			kth(v, stride, n, k / 2, cnt)) /
		       2;
	free(cnt);
	return 0;
}

/*
 * The others each rank's estimate looks at: of the ranks it has a pair
 * with that passed, up to PP_MESH_ODD_PEERS spread evenly over them (on
 * rails, its own rail's; never a pair that failed or did not run).
 */
static void pick_peers(uint32_t n, const double *us, size_t stride,
		       struct peers *pr)
{
	uint32_t i, j, c, m, t, q;

	for (i = 0; i < n; i++) {
		uint32_t *peer = pr->p + (size_t)i * PP_MESH_ODD_PEERS;

		for (j = 0, c = 0; j < n; j++)
			c += j != i && isfinite(rtt(n, us, stride, i, j, NULL));
		m = c < PP_MESH_ODD_PEERS ? c : PP_MESH_ODD_PEERS;
		/* the q-th of m is the floor(q c / m)-th of the c */
		for (j = 0, t = 0, q = 0; j < n && q < m; j++) {
			if (j == i || !isfinite(rtt(n, us, stride, i, j, NULL)))
				continue;
			if (t++ == (uint32_t)((uint64_t)q * c / m))
				peer[q++] = j;
		}
		pr->m[i] = m;
		pr->c[i] = c;
	}
}

/* e(i): the median of the triangles of @i over its peers. */
static double estimate(uint32_t n, const double *us, size_t stride, uint32_t i,
		       const struct peers *pr, double *tri,
		       const struct links *l)
{
	const uint32_t *peer = pr->p + (size_t)i * PP_MESH_ODD_PEERS;
	uint32_t m = pr->m[i];
	uint32_t j, k, t = 0;

	if (m < PP_MESH_ODD_MIN_PEERS)
		return NAN;

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
		    const double *e, const struct peers *pr, double *r,
		    const struct links *l)
{
	uint32_t i, j;
	size_t t = 0;

	for (i = 0; i < n; i++) {
		const uint32_t *peer = pr->p + (size_t)i * PP_MESH_ODD_PEERS;

		for (j = 0; j < pr->m[i]; j++) {
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
		      const struct peers *pr, double noise_k, double *row,
		      double *buf, struct links *l, size_t *npairs,
		      struct pp_mesh_odd *res)
{
	uint32_t i, j, t;
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
		const uint32_t *peer = pr->p + (size_t)i * PP_MESH_ODD_PEERS;

		for (j = 0; j < pr->m[i]; j++) {
			x = rtt(n, us, stride, i, peer[j], NULL) -
			    (row[i] + row[peer[j]] - med);
			if (isfinite(x))
				buf[r++] = fabs(x);
		}
	}
	s = r ? 1.4826 * pp_mesh_median(buf, (uint32_t)r) : 0;
	judged /= 2;
	res->link_noise_us =
		fmax(noise_k, judged ? sqrt(2 * log(judged / 0.01)) : 0) * s *
		pp_mesh_odd_dof(judged, n);
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
	struct peers pr = { 0 };
	int ret = ENOMEM;

	res->matrix_median_us = NAN;
	res->baseline_us = NAN;
	res->noise_us = NAN;
	res->bar_us = NAN;
	res->row_median_us = NAN;
	res->link_noise_us = NAN;
	res->noise_k = INFINITY;
	res->peers = 0;
	res->nslow = 0;
	for (i = 0; i < n; i++) {
		added_us[i] = NAN;
		slow[i] = false;
		if (row_us)
			row_us[i] = NAN;
	}
	/* room for the e(i), the rows, then the residuals of noise() */
	all = calloc((size_t)n * m + n + 1, sizeof(*all));
	e = calloc((size_t)n + 1, sizeof(*e));
	tri = calloc((size_t)m * m / 2 + 1, sizeof(*tri));
	pr.p = calloc((size_t)n * m + 1, sizeof(*pr.p));
	pr.m = calloc((size_t)n + 1, sizeof(*pr.m));
	pr.c = calloc((size_t)n + 1, sizeof(*pr.c));
	if (!all || !e || !tri || !pr.p || !pr.m || !pr.c)
		goto out;
	ret = median_strided(pair_us, stride, npairs, &res->matrix_median_us);
	if (ret)
		goto out;
	if (n < 3)
		goto out;
	pick_peers(n, pair_us, stride, &pr);
	res->peers = typical_peers(n, pr.m);
	res->noise_k = pp_mesh_odd_k(res->peers, finite_pairs(n, &pr), n);
	/* the rows in @row_us, or in e until the estimates take it */
	ret = find_links(n, pair_us, stride, &pr, res->noise_k,
			 row_us ? row_us : e, all, &links, &finite, res);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		e[i] = estimate(n, pair_us, stride, i, &pr, tri, &links);
	for (i = 0; i < n; i++)
		all[i] = e[i];
	res->baseline_us = lower_median(all, n);
	if (!isfinite(res->baseline_us))
		goto out;
	for (i = 0, judged = 0; i < n; i++)
		judged += isfinite(e[i]);
	res->noise_us = noise(n, pair_us, stride, e, &pr, all, &links) *
			pp_mesh_odd_dof(finite - links.n, judged);
	res->bar_us = fmax(fmax(PP_MESH_ODD_MIN_US, res->baseline_us),
			   res->noise_k * res->noise_us);
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
	free(e);
	free(tri);
	free(pr.p);
	free(pr.m);
	free(pr.c);
	return ret;
}

int pp_mesh_odd_judge(uint32_t n, const double *pair_us, double *added_us,
		      bool *slow, struct pp_mesh_odd *res)
{
	return pp_mesh_odd_judge_strided(n, pair_us, sizeof(*pair_us), added_us,
					 slow, NULL, res);
}
