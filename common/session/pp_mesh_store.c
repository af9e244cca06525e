// SPDX-License-Identifier: MIT
/*
 * pp_mesh_store.c - what rank 0 keeps of a mesh's pairs (pp_mesh_report.h):
 * a 16-byte cell per pair, the two sides of each pair only while it runs,
 * and the failed pairs' reasons grouped in a store of fixed size.  A pair's
 * sides and documents go to the --json document when it is settled.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pp_mesh_report.h"
#include "pp_mesh_sched.h"
#include "pp_thresh.h"

_Static_assert(sizeof(struct pp_mesh_cell) <= 16,
	       "a cell per pair: 16 bytes, 8.4 million of them at 4,096 ranks");

struct pp_mesh_store *pp_mesh_store_get(struct pp_mesh_view *v)
{
	if (v->store)
		return v->store;
	v->store = calloc(1, sizeof(*v->store));
	if (!v->store)
		return NULL;
	v->store->open = calloc(v->n, sizeof(*v->store->open));
	if (!v->store->open) {
		free(v->store);
		v->store = NULL;
	}
	return v->store;
}

static void detail_free(struct pp_mesh_detail *d)
{
	if (!d)
		return;
	free(d->side[0].doc);
	free(d->side[1].doc);
	free(d);
}

static struct pp_mesh_detail *find(const struct pp_mesh_view *v, uint32_t a,
				   uint32_t b)
{
	struct pp_mesh_detail *d;

	if (!v->store)
		return NULL;
	d = v->store->open[a];
	return d && d->a == a && d->b == b ? d : NULL;
}

/* The detail of the pair a < b, made when it has none. */
static struct pp_mesh_detail *open_detail(struct pp_mesh_view *v, uint32_t a,
					  uint32_t b)
{
	struct pp_mesh_store *s = pp_mesh_store_get(v);
	struct pp_mesh_detail *d;

	if (!s)
		return NULL;
	d = s->open[a];
	if (d && d->a == a && d->b == b)
		return d;
	if (d) /* a pair of rank a left open: over now */
		pp_mesh_view_settle(v, d->a, d->b);
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->a = a;
	d->b = b;
	s->open[a] = d;
	return d;
}

int pp_mesh_view_side(struct pp_mesh_view *v, uint32_t rank, uint32_t peer,
		      const struct pp_mesh_result *res)
{
	uint32_t a = rank < peer ? rank : peer, b = rank < peer ? peer : rank;
	struct pp_mesh_detail *d = open_detail(v, a, b);
	struct pp_mesh_rank *k = &v->ranks[rank];
	struct pp_mesh_side *s;

	/* the GID its sessions use, once known, for the host table */
	if (res->gid_index >= 0 && res->gid_reason[0]) {
		k->facts.gid_index = res->gid_index;
		k->facts.gid_type = res->gid_type;
		k->facts.gid_family = res->gid_family;
		snprintf(k->facts.gid, sizeof(k->facts.gid), "%s", res->gid);
		snprintf(k->facts.gid_reason, sizeof(k->facts.gid_reason), "%s",
			 res->gid_reason);
	}
	if (res->times_us[PP_MESH_T_START]) {
		unsigned int t;

		for (t = 0; t < PP_MESH_T_COUNT; t++) {
			v->times.sum_us[t] += res->times_us[t];
			if (res->times_us[t] > v->times.max_us[t])
				v->times.max_us[t] = res->times_us[t];
		}
		v->times.sides++;
	}
	if (!d)
		return ENOMEM;
	s = &d->side[rank == a ? 0 : 1];
	free(s->doc);
	s->have = true;
	s->r = *res;
	s->r.doc = NULL;
	s->doc = NULL;
	if (res->doc_len && res->doc) {
		s->doc = malloc(res->doc_len + 1);
		if (s->doc) {
			memcpy(s->doc, res->doc, res->doc_len);
			s->doc[res->doc_len] = '\0';
		}
	}
	return 0;
}

void pp_mesh_view_why(struct pp_mesh_view *v, uint32_t a, uint32_t b,
		      const char *fmt, ...)
{
	struct pp_mesh_detail *d;
	va_list ap;

	if (a > b) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	v->cells[pp_mesh_pair_index(v->n, a, b)].why = true;
	d = open_detail(v, a, b);
	if (!d)
		return;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
}

bool pp_mesh_view_has_why(const struct pp_mesh_view *v, uint32_t a, uint32_t b)
{
	return v->cells[pp_mesh_pair_index(v->n, a, b)].why;
}

/* A pair's cell from its two sides. */
static void settle_code(struct pp_mesh_cell *cell,
			const struct pp_mesh_detail *d)
{
	const struct pp_mesh_side *s0, *s1, *bad = NULL;
	int i;

	if (!d || !d->side[0].have || !d->side[1].have) {
		cell->code = PP_MESH_GONE;
		return;
	}
	s0 = &d->side[0];
	s1 = &d->side[1];
	if (s0->r.step == PP_MESH_OK && s1->r.step == PP_MESH_OK) {
		cell->code = PP_MESH_OK;
		cell->median_us = s1->r.median_ns == UINT64_MAX ?
					  NAN :
					  (double)s1->r.median_ns / 1000;
		cell->path_mtu = (uint16_t)s1->r.path_mtu;
		return;
	}
	/* the side whose own step failed; of two, the earlier step */
	for (i = 0; i < 2; i++) {
		const struct pp_mesh_side *s = &d->side[i];

		if (s->r.step == PP_MESH_OK)
			continue;
		if (!bad || (bad->r.remote && !s->r.remote) ||
		    (bad->r.remote == s->r.remote && s->r.step < bad->r.step))
			bad = s;
	}
	cell->code = bad->r.step;
	cell->path_mtu =
		(uint16_t)(s1->r.path_mtu ? s1->r.path_mtu : s0->r.path_mtu);
}

/* Rank @r as a side of the MTU line: "node3 (rank 2)", its JOIN's MTUs. */
static void thresh_side(const struct pp_mesh_view *v, uint32_t r,
			struct pp_thresh_side *side, char *name, size_t len)
{
	const struct pp_mesh_join *f = &v->ranks[r].facts;

	snprintf(name, len, "%.*s (rank %u)", (int)strcspn(f->host, "."),
		 f->host, r);
	*side = (struct pp_thresh_side){
		.name = name,
		.known = true,
		.ib = f->link_layer == IBV_LINK_LAYER_INFINIBAND,
		.active_mtu = f->active_mtu,
		.netdev_mtu = f->netdev_mtu,
	};
}

/*
 * A pair that passed, against the thresholds: MTU (its path MTU below
 * --expect-mtu) before SLOW (its median above --max-rtt); the lines of
 * pp_thresh.h are rank 0's reason, both when both miss.
 */
static void settle_thresholds(struct pp_mesh_view *v, uint32_t a, uint32_t b,
			      struct pp_mesh_cell *cell)
{
	struct pp_thresh_side sa, sb;
	char na[PP_MESH_HOST_MAX + 32], nb[PP_MESH_HOST_MAX + 32];
	char mtu[PP_MESH_TEXT_MAX] = "", rtt[PP_MESH_TEXT_MAX] = "";
	bool below, above;

	if (cell->code != PP_MESH_OK)
		return;
	thresh_side(v, a, &sa, na, sizeof(na));
	thresh_side(v, b, &sb, nb, sizeof(nb));
	below = pp_thresh_mtu(v->expect_mtu, cell->path_mtu, v->asked_mtu, &sa,
			      &sb, mtu, sizeof(mtu));
	above = isfinite(cell->median_us) &&
		pp_thresh_rtt(v->max_rtt_us, cell->median_us, v->rtt_size, 0,
			      rtt, sizeof(rtt));
	if (!below && !above)
		return;
	cell->code = below ? PP_MESH_MTU : PP_MESH_SLOW;
	pp_mesh_view_why(v, a, b, "%s%s%s", below ? mtu : rtt,
			 below && above ? "; " : "", below && above ? rtt : "");
}

/* FNV-1a of @s with each run of digits (and 0x and its hex) as one '#'. */
static uint64_t hash_text(uint64_t h, const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s++;

		if (c == '0' && (*s == 'x' || *s == 'X') && s[1] &&
		    strchr("0123456789abcdefABCDEF", s[1])) {
			s++;
			while (*s && strchr("0123456789abcdefABCDEF", *s))
				s++;
			c = '#';
		} else if (c >= '0' && c <= '9') {
			while (*s >= '0' && *s <= '9')
				s++;
			c = '#';
		}
		h = (h ^ c) * 0x100000001b3ULL;
	}
	return (h ^ 0xff) * 0x100000001b3ULL; /* the end of a field */
}

static uint64_t reason_hash(const struct pp_mesh_cell *cell,
			    const struct pp_mesh_detail *d)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char step[8];
	int i;

	snprintf(step, sizeof(step), "%u", cell->code + 100u);
	h = hash_text(h, step);
	h = hash_text(h, d ? d->why : "");
	for (i = 0; i < 2; i++) {
		const struct pp_mesh_side *s = d ? &d->side[i] : NULL;

		if (!s || !s->have) {
			h = hash_text(h, "-");
			continue;
		}
		snprintf(step, sizeof(step), "%c%u", s->r.remote ? 'r' : 'l',
			 s->r.step + 100u);
		h = hash_text(h, step);
		/* a peer's echo of the failure: its step is enough */
		h = hash_text(h, s->r.remote ? "" : s->r.reason);
	}
	return h;
}

/* A failed pair's reasons into the store: its group, or a count. */
static void keep_reason(struct pp_mesh_view *v, uint32_t a, uint32_t b,
			const struct pp_mesh_cell *cell,
			const struct pp_mesh_detail *d)
{
	struct pp_mesh_store *s = pp_mesh_store_get(v);
	struct pp_mesh_group *g = NULL;
	uint64_t h;
	uint32_t i, k;

	if (!s)
		return;
	h = reason_hash(cell, d);
	for (i = 0; i < s->ngroups && !g; i++)
		if (s->group[i].hash == h && s->group[i].code == cell->code)
			g = &s->group[i];
	if (!g) {
		if (s->ngroups == PP_MESH_GROUPS) {
			s->other++;
			return;
		}
		g = &s->group[s->ngroups++];
		g->hash = h;
		g->code = cell->code;
	}
	if (g->count < PP_MESH_EXAMPLES) {
		k = (uint32_t)g->count;
		g->a[k] = a;
		g->b[k] = b;
		snprintf(g->why[k], sizeof(g->why[k]), "%s", d ? d->why : "");
		for (i = 0; i < 2; i++) {
			const struct pp_mesh_side *sd = d ? &d->side[i] : NULL;

			g->have[k][i] = sd && sd->have;
			snprintf(g->side[k][i], sizeof(g->side[k][i]), "%s",
				 sd && sd->have ? sd->r.reason : "");
		}
	}
	g->count++;
}

void pp_mesh_view_settle(struct pp_mesh_view *v, uint32_t a, uint32_t b)
{
	struct pp_mesh_cell *cell;
	struct pp_mesh_detail *d;

	if (a > b) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	cell = &v->cells[pp_mesh_pair_index(v->n, a, b)];
	if (cell->settled)
		return;
	d = find(v, a, b);
	if (cell->ran) {
		settle_code(cell, d);
		settle_thresholds(v, a, b, cell);
		d = find(v, a, b);
		if (cell->code == PP_MESH_GONE && !cell->why) {
			pp_mesh_view_why(v, a, b, "rank %u sent no result",
					 d && d->side[0].have ? b : a);
			d = find(v, a, b);
		}
	}
	cell->settled = true;
	/* a rank that never joined, or was gone before: named by rank */
	if (cell->code != PP_MESH_OK && cell->code != PP_MESH_ABSENT &&
	    (cell->code != PP_MESH_GONE || cell->ran))
		keep_reason(v, a, b, cell, d);
	if (v->store && v->store->json_f)
		pp_mesh_json_pair(v, &v->store->json, a, b, d);
	if (d) {
		v->store->open[a] = NULL;
		detail_free(d);
	}
}

void pp_mesh_view_unselect(struct pp_mesh_view *v, uint32_t a, uint32_t b)
{
	struct pp_mesh_cell *cell = &v->cells[pp_mesh_pair_index(v->n, a, b)];

	cell->unsel = true;
	cell->settled = true; /* nothing to wait for, nothing to write */
	cell->code = PP_MESH_OK;
	cell->median_us = NAN;
}

void pp_mesh_store_free(struct pp_mesh_view *v)
{
	uint32_t i;

	if (!v->store)
		return;
	for (i = 0; i < v->n; i++)
		detail_free(v->store->open[i]);
	free(v->store->open);
	free(v->store);
	v->store = NULL;
}
