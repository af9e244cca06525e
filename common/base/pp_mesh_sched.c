// SPDX-License-Identifier: MIT
/*
 * pp_mesh_sched.c - the round-robin "circle" schedule (pp_mesh_sched.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

const char *pp_mesh_pairs_name(enum pp_mesh_pairs m)
{
	switch (m) {
	case PP_MESH_PAIRS_DEFAULT:
		return "default";
	case PP_MESH_PAIRS_ALL:
		return "all";
	case PP_MESH_PAIRS_RAIL:
		return "rail";
	case PP_MESH_PAIRS_REMOTE:
		return "remote";
	}
	return "?";
}

int pp_mesh_pairs_parse(const char *s, enum pp_mesh_pairs *out)
{
	enum pp_mesh_pairs m;

	for (m = PP_MESH_PAIRS_ALL; m <= PP_MESH_PAIRS_REMOTE; m++)
		if (!strcmp(s, pp_mesh_pairs_name(m))) {
			*out = m;
			return 0;
		}
	return EINVAL;
}

/*
 * Pair @k of round @r of the circle of @m: false when it is the centre's
 * and the centre does not exist (@m odd).
 */
static bool circle_pair(uint32_t m, uint32_t r, uint32_t k, uint32_t *x,
			uint32_t *y)
{
	uint32_t c = m + m % 2 - 1;

	if (!k) {
		*x = c;
		*y = r;
		return c < m;
	}
	*x = (r + k) % c;
	*y = (r + c - k) % c;
	return true;
}

bool pp_mesh_plan_selected(const struct pp_mesh_plan *p, uint32_t a, uint32_t b)
{
	if (a == b || a >= p->n || b >= p->n)
		return false;
	if (p->mode == PP_MESH_PAIRS_ALL)
		return true;
	if (p->host[a] == PP_MESH_HOST_NONE ||
	    p->host[b] == PP_MESH_HOST_NONE || p->host[a] == p->host[b])
		return false;
	return p->mode == PP_MESH_PAIRS_REMOTE || p->local[a] == p->local[b];
}

/* Raw round @r: every pair the plan's layout puts there, selected or not. */
static uint32_t raw_round(const struct pp_mesh_plan *p, uint32_t r,
			  struct pp_mesh_pair *out)
{
	uint32_t k = 0, g, i, m, x, y, half;

	if (p->mode == PP_MESH_PAIRS_RAIL) {
		/* each rail's circle, side by side */
		for (g = 0; g < p->ngroups; g++) {
			const uint32_t *rk = p->order + p->start[g];

			m = p->start[g + 1] - p->start[g];
			if (r >= pp_mesh_rounds(m))
				continue;
			for (i = 0; i < (m + m % 2) / 2; i++)
				if (circle_pair(m, r, i, &x, &y))
					put(out, &k, rk[x], rk[y]);
		}
		return k;
	}
	if (p->mode == PP_MESH_PAIRS_REMOTE && p->by_hosts) {
		/* host round r / width; rank i meets rank i + t mod width */
		uint32_t hr = r / p->width, t = r % p->width, j;

		m = p->ngroups;
		half = (m + m % 2) / 2;
		for (i = 0; i < half; i++) {
			uint32_t sa, sb;

			if (!circle_pair(m, hr, i, &x, &y))
				continue;
			sa = p->start[x + 1] - p->start[x];
			sb = p->start[y + 1] - p->start[y];
			for (g = 0; g < sa; g++) {
				j = (g + t) % p->width;
				if (j < sb)
					put(out, &k, p->order[p->start[x] + g],
					    p->order[p->start[y] + j]);
			}
		}
		return k;
	}
	return pp_mesh_round(p->n, r, out);
}

static uint32_t raw_rounds(const struct pp_mesh_plan *p)
{
	uint32_t g, most = 0, m;

	if (p->mode == PP_MESH_PAIRS_RAIL) {
		for (g = 0; g < p->ngroups; g++) {
			m = pp_mesh_rounds(p->start[g + 1] - p->start[g]);
			most = m > most ? m : most;
		}
		return most;
	}
	if (p->mode == PP_MESH_PAIRS_REMOTE && p->by_hosts)
		return pp_mesh_rounds(p->ngroups) * p->width;
	return pp_mesh_rounds(p->n);
}

/* The selected pairs of raw round @r, in place. */
static uint32_t raw_selected(const struct pp_mesh_plan *p, uint32_t r,
			     struct pp_mesh_pair *out)
{
	uint32_t np = raw_round(p, r, out), i, k = 0;

	for (i = 0; i < np; i++)
		if (pp_mesh_plan_selected(p, out[i].a, out[i].b))
			out[k++] = out[i];
	return k;
}

/*
 * The raw rounds that hold a selected pair, into a new p->raw; the plan's
 * rounds and selected pairs.  Return: 0 or ENOMEM.
 */
static int fill_raw(struct pp_mesh_plan *p, struct pp_mesh_pair *tmp)
{
	uint32_t r, nr = raw_rounds(p), np;

	p->raw = malloc((nr + 1) * sizeof(*p->raw));
	if (!p->raw)
		return ENOMEM;
	p->rounds = 0;
	p->selected = 0;
	for (r = 0; r < nr; r++) {
		np = raw_selected(p, r, tmp);
		if (!np)
			continue;
		p->raw[p->rounds++] = r;
		p->selected += np;
	}
	return 0;
}

static int by_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The ranks with a host grouped by @key (a rail: the local index; a
 * host: its id), each group in rank order: p->order, p->start, p->width.
 */
static int group_by(struct pp_mesh_plan *p, const uint32_t *key)
{
	uint64_t *kr = malloc(p->n * sizeof(*kr));
	uint32_t i, k = 0;

	if (!kr)
		return ENOMEM;
	for (i = 0; i < p->n; i++)
		if (p->host[i] != PP_MESH_HOST_NONE)
			kr[k++] = (uint64_t)key[i] << 32 | i;
	qsort(kr, k, sizeof(*kr), by_u64);
	p->ngroups = 0;
	p->width = 0;
	for (i = 0; i < k; i++) {
		p->order[i] = (uint32_t)kr[i];
		if (!i || kr[i] >> 32 != kr[i - 1] >> 32)
			p->start[p->ngroups++] = i;
	}
	p->start[p->ngroups] = k;
	for (i = 0; i < p->ngroups; i++)
		if (p->start[i + 1] - p->start[i] > p->width)
			p->width = p->start[i + 1] - p->start[i];
	free(kr);
	return 0;
}

int pp_mesh_plan_make(struct pp_mesh_plan *p, enum pp_mesh_pairs mode,
		      uint32_t n, const uint32_t *host, const uint32_t *local)
{
	struct pp_mesh_pair *tmp = NULL;
	uint32_t *raw1, rounds, i;
	uint64_t sel;
	int ret = ENOMEM;

	memset(p, 0, sizeof(*p));
	if (n < 2 || n > PP_MESH_MAX_RANKS ||
	    (mode != PP_MESH_PAIRS_ALL && mode != PP_MESH_PAIRS_RAIL &&
	     mode != PP_MESH_PAIRS_REMOTE))
		return EINVAL;
	p->mode = mode;
	p->n = n;
	p->host = malloc(n * sizeof(*p->host));
	p->local = malloc(n * sizeof(*p->local));
	p->order = malloc(n * sizeof(*p->order));
	p->start = malloc((n + 1) * sizeof(*p->start));
	tmp = malloc((n / 2 + 1) * sizeof(*tmp));
	if (!p->host || !p->local || !p->order || !p->start || !tmp)
		goto out;
	for (i = 0; i < n; i++) {
		p->host[i] = host ? host[i] : 0;
		p->local[i] = local ? local[i] : 0;
	}
	if (mode != PP_MESH_PAIRS_ALL &&
	    group_by(p, mode == PP_MESH_PAIRS_RAIL ? p->local : p->host))
		goto out;
	if (fill_raw(p, tmp))
		goto out;
	if (mode == PP_MESH_PAIRS_REMOTE && p->ngroups >= 2 &&
	    (uint64_t)pp_mesh_rounds(p->ngroups) * p->width < p->rounds) {
		/* the circle of the hosts, when it takes fewer rounds */
		raw1 = p->raw;
		rounds = p->rounds;
		sel = p->selected;
		p->by_hosts = true;
		if (fill_raw(p, tmp)) {
			p->raw = raw1;
			goto out;
		}
		if (p->rounds >= rounds) {
			free(p->raw);
			p->raw = raw1;
			p->rounds = rounds;
			p->selected = sel;
			p->by_hosts = false;
		} else {
			free(raw1);
		}
	}
	ret = 0;
out:
	free(tmp);
	if (ret)
		pp_mesh_plan_free(p);
	return ret;
}

void pp_mesh_plan_free(struct pp_mesh_plan *p)
{
	free(p->host);
	free(p->local);
	free(p->order);
	free(p->start);
	free(p->raw);
	memset(p, 0, sizeof(*p));
}

uint32_t pp_mesh_plan_round(const struct pp_mesh_plan *p, uint32_t round,
			    struct pp_mesh_pair *out)
{
	if (round >= p->rounds)
		return 0;
	return raw_selected(p, p->raw[round], out);
}
