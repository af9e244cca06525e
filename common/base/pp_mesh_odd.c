// SPDX-License-Identifier: MIT
/*
 * pp_mesh_odd.c - the odd one out of a mesh (pp_mesh_odd.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

static double rtt(uint32_t n, const double *us, uint32_t a, uint32_t b)
{
	return us[pp_mesh_pair_index(n, a, b)];
}

/* e(i): the median of the triangles of @i over evenly spread others. */
static double estimate(uint32_t n, const double *us, uint32_t i, uint32_t *peer,
		       double *tri)
{
	uint32_t m = n - 1 < PP_MESH_ODD_PEERS ? n - 1 : PP_MESH_ODD_PEERS;
	uint32_t j, k, t = 0;

	for (j = 0; j < m; j++) {
		/* the j-th of m ranks spread over the n - 1 others */
		uint32_t o = (uint32_t)((uint64_t)j * (n - 1) / m);

		peer[j] = o >= i ? o + 1 : o;
	}
	for (j = 0; j < m; j++)
		for (k = j + 1; k < m; k++) {
			double x = rtt(n, us, i, peer[j]) +
				   rtt(n, us, i, peer[k]) -
				   rtt(n, us, peer[j], peer[k]);

			if (isfinite(x))
				tri[t++] = x / 2;
		}
	return pp_mesh_median(tri, t);
}

int pp_mesh_odd_judge(uint32_t n, const double *pair_us, double *added_us,
		      bool *slow, struct pp_mesh_odd *res)
{
	size_t npairs = (size_t)n * (n > 0 ? n - 1 : 0) / 2;
	uint32_t m = PP_MESH_ODD_PEERS, i;
	double *all, *e, *tri, thr;
	uint32_t *peer;
	int ret = ENOMEM;

	res->matrix_median_us = NAN;
	res->baseline_us = NAN;
	res->nslow = 0;
	for (i = 0; i < n; i++) {
		added_us[i] = NAN;
		slow[i] = false;
	}
	all = calloc(npairs + 1, sizeof(*all));
	e = calloc((size_t)n + 1, sizeof(*e));
	tri = calloc((size_t)m * m / 2 + 1, sizeof(*tri));
	peer = calloc(m, sizeof(*peer));
	if (!all || !e || !tri || !peer)
		goto out;
	ret = 0;
	for (i = 0; i < npairs; i++)
		all[i] = pair_us[i];
	res->matrix_median_us = pp_mesh_median(all, (uint32_t)npairs);
	if (n < 3)
		goto out;
	for (i = 0; i < n; i++)
		e[i] = estimate(n, pair_us, i, peer, tri);
	for (i = 0; i < n; i++)
		all[i] = e[i];
	res->baseline_us = lower_median(all, n);
	if (!isfinite(res->baseline_us))
		goto out;
	thr = fmax(PP_MESH_ODD_MIN_US, res->baseline_us);
	for (i = 0; i < n; i++) {
		if (!isfinite(e[i]))
			continue;
		added_us[i] = e[i] - res->baseline_us;
		slow[i] = added_us[i] >= thr;
		res->nslow += slow[i];
	}
out:
	free(all);
	free(e);
	free(tri);
	free(peer);
	return ret;
}
