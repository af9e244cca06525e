// SPDX-License-Identifier: MIT
/*
 * pp_mesh_sched.c - the round-robin "circle" schedule (pp_mesh_sched.h).
 */
#include "pp_mesh_sched.h"

uint32_t pp_mesh_rounds(uint32_t n)
{
	if (n < 2)
		return 0;
	return n % 2 ? n : n - 1;
}

static void put(struct pp_mesh_pair *out, uint32_t *k, uint32_t x, uint32_t y)
{
	out[(*k)++] = (struct pp_mesh_pair){
		.a = x < y ? x : y,
		.b = x < y ? y : x,
	};
}

uint32_t pp_mesh_round(uint32_t n, uint32_t round, struct pp_mesh_pair *out)
{
	uint32_t m = n + n % 2, c = m - 1, k = 0, i;

	if (round >= pp_mesh_rounds(n))
		return 0;
	if (c < n) /* the centre is a real rank */
		put(out, &k, c, round);
	for (i = 1; i < m / 2; i++)
		put(out, &k, (round + i) % c, (round + c - i) % c);
	return k;
}

size_t pp_mesh_pair_index(uint32_t n, uint32_t a, uint32_t b)
{
	size_t lo = a < b ? a : b, hi = a < b ? b : a;

	/* pairs before row lo: sum over r < lo of (n - 1 - r) */
	return lo * (size_t)n - lo * (lo + 1) / 2 + (hi - lo - 1);
}
