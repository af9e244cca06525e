// SPDX-License-Identifier: MIT
/*
 * pp_mesh_verdict.c - the mesh's verdicts (pp_mesh_verdict.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_mesh_odd.h"
#include "pp_mesh_sched.h"
#include "pp_mesh_verdict.h"
#include "pp_mesh_wire.h"

enum pair_class { P_NOT_RUN, P_PASSED, P_FAILED };

/* What a host's ranks add up to. */
struct host_sum {
	uint32_t first;		 /* its lowest rank */
	uint32_t sj, ss;	 /* ranks judged slow or not, of them slow */
	double lo, hi, sum;	 /* of the judged ranks' added */
	uint64_t spass, in_pass; /* their pairs passed; inside the host */
	uint32_t fj, ff;	 /* ranks that ran a pair, of them failing */
	uint64_t ffail, in_fail; /* the failing ranks' pairs; inside */
};

struct work {
	const struct pp_mesh_verdict_in *in;
	struct pp_mesh_verdicts *out;
	uint32_t *passed, *ran; /* n: pairs that count (not across a cut) */
	bool *failing;		/* n */
	uint32_t *rail;		/* n: rail index; UINT32_MAX: none */
	uint32_t nrails;
	bool *cut;	     /* nrails x nrails: no path between the two */
	struct host_sum *hs; /* n, by host id */
};

const char *pp_mesh_verdict_kind_name(unsigned int kind)
{
	static const char *const names[PP_MESH_VERDICT_KINDS] = {
		[PP_MESH_VERDICT_RAILS_KIND] = "rails",
		[PP_MESH_VERDICT_HOST] = "host",
		[PP_MESH_VERDICT_NIC] = "nic",
		[PP_MESH_VERDICT_LINK] = "link",
	};

	return kind < PP_MESH_VERDICT_KINDS ? names[kind] : "?";
}

const char *pp_mesh_verdict_state_name(unsigned int state)
{
	static const char *const names[PP_MESH_VERDICT_STATES] = {
		[PP_MESH_VERDICT_SLOW] = "slow",
		[PP_MESH_VERDICT_FAILING] = "failing",
		[PP_MESH_VERDICT_NO_PATH] = "no_path",
	};

	return state < PP_MESH_VERDICT_STATES ? names[state] : "?";
}

static enum pair_class classify(const struct pp_mesh_verdict_in *in, size_t k,
				double *us)
{
	uint8_t code = *((const uint8_t *)in->code + k * in->code_stride);

	*us = *(const double *)(const void *)((const char *)in->pair_us +
					      k * in->us_stride);
	if (isfinite(*us))
		return P_PASSED; /* with a median: ran (a flagged code too) */
	switch (code) {
	case PP_MESH_OK: /* no median: a pair not selected (--mesh-pairs) */
		return P_NOT_RUN;
	case PP_MESH_CONNECT:
	case PP_MESH_RTR:
	case PP_MESH_RTS:
	case PP_MESH_FIRST:
	case PP_MESH_RUN_FAIL:
	case PP_MESH_DATA:
		return P_FAILED;
	case PP_MESH_TIMEOUT:
		return in->stopped ? P_NOT_RUN : P_FAILED;
	default: /* GONE, ABSENT, DEV: the rank is named; others: not run */
		return P_NOT_RUN;
	}
}

/* The pair @k of @a < @b as the verdicts count it (P_NOT_RUN: not). */
static enum pair_class counted(const struct work *w, uint32_t a, uint32_t b,
			       size_t k, double *us)
{
	const struct pp_mesh_verdict_in *in = w->in;
	uint32_t ra = w->rail[a], rb = w->rail[b];

	if (in->out[a] || in->out[b])
		return P_NOT_RUN;
	if (w->nrails && ra != rb && w->cut[ra * w->nrails + rb])
		return P_NOT_RUN; /* explained by its rails */
	return classify(in, k, us);
}

static double score(const struct pp_mesh_verdict *v)
{
	return v->state == PP_MESH_VERDICT_SLOW ? v->added_us :
						  (double)v->pairs;
}

/* Keep @v among its kind and state's strongest; count it either way. */
static void keep(struct pp_mesh_verdicts *out, const struct pp_mesh_verdict *v)
{
	uint32_t *kept = &out->kept[v->kind][v->state], i, low = 0;
	struct pp_mesh_verdict *k = out->v[v->kind][v->state];

	out->found[v->kind][v->state]++;
	out->total++;
	if (*kept < PP_MESH_VERDICT_KEEP) {
		k[(*kept)++] = *v;
		return;
	}
	for (i = 1; i < *kept; i++)
		if (score(&k[i]) < score(&k[low]))
			low = i;
	if (score(v) > score(&k[low]))
		k[low] = *v;
}

static int by_score(const void *x, const void *y)
{
	const struct pp_mesh_verdict *p = x, *q = y;
	double a = score(p), b = score(q);

	if (a != b)
		return a > b ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return (a > b) - (a < b);
}

static struct pp_mesh_verdict verdict(uint8_t kind, uint8_t state, uint32_t a,
				      uint32_t b)
{
	return (struct pp_mesh_verdict){ .kind = kind,
					 .state = state,
					 .a = a,
					 .b = b,
					 .added_us = NAN,
					 .expect_us = NAN };
}

/*
 * The rails: each rank's rail index; two rails without a path between them
 * (every pair across them that ran failed, most pairs within each passed)
 * are cut, with a verdict.  Return: 0 or ENOMEM.
 */
static int judge_rails(struct work *w)
{
	const struct pp_mesh_verdict_in *in = w->in;
	uint32_t n = in->n, i, a, b, r, s, nr = 0, *sorted;
	uint64_t *same_ran = NULL, *same_pass, *x_ran, *x_fail;
	size_t k = 0;
	double us;

	for (i = 0; i < n; i++)
		w->rail[i] = UINT32_MAX;
	sorted = calloc(n, sizeof(*sorted));
	if (!sorted)
		return ENOMEM;
	for (i = 0; i < n; i++)
		if (!in->out[i])
			sorted[nr++] = in->rail[i];
	qsort(sorted, nr, sizeof(*sorted), cmp_u32);
	for (i = 0, r = 0; i < nr; i++)
		if (!r || sorted[r - 1] != sorted[i])
			sorted[r++] = sorted[i];
	nr = r;
	if (nr < 2 || nr > PP_MESH_VERDICT_RAILS)
		goto out;
	for (i = 0; i < n; i++) {
		const uint32_t *p;

		if (in->out[i])
			continue;
		p = bsearch(&in->rail[i], sorted, nr, sizeof(*sorted), cmp_u32);
		w->rail[i] = (uint32_t)(p - sorted);
	}
	same_ran = calloc(2 * nr + 2 * (size_t)nr * nr, sizeof(*same_ran));
	w->cut = calloc((size_t)nr * nr, sizeof(*w->cut));
	if (!same_ran || !w->cut) {
		free(sorted);
		free(same_ran);
		return ENOMEM;
	}
	same_pass = same_ran + nr;
	x_ran = same_pass + nr;
	x_fail = x_ran + (size_t)nr * nr;
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++, k++) {
			enum pair_class c;

			if (in->out[a] || in->out[b])
				continue;
			c = classify(in, k, &us);
			if (c == P_NOT_RUN)
				continue;
			r = w->rail[a];
			s = w->rail[b];
			if (r == s) {
				same_ran[r]++;
				same_pass[r] += c == P_PASSED;
				continue;
			}
			if (r > s) {
				uint32_t t = r;

				r = s;
				s = t;
			}
			x_ran[r * nr + s]++;
			x_fail[r * nr + s] += c == P_FAILED;
		}
	w->nrails = nr;
	for (r = 0; r < nr; r++)
		for (s = r + 1; s < nr; s++) {
			struct pp_mesh_verdict v;
			uint64_t xr = x_ran[r * nr + s];

			if (!xr || x_fail[r * nr + s] != xr ||
			    same_pass[r] * 2 <= same_ran[r] ||
			    same_pass[s] * 2 <= same_ran[s])
				continue;
			w->cut[r * nr + s] = w->cut[s * nr + r] = true;
			v = verdict(PP_MESH_VERDICT_RAILS_KIND,
				    PP_MESH_VERDICT_NO_PATH, sorted[r],
				    sorted[s]);
			v.pairs = xr;
			keep(w->out, &v);
		}
out:
	free(sorted);
	free(same_ran);
	return 0;
}

/* Each rank's pairs that count, passed and run; inside its host too. */
static void count_pairs(struct work *w)
{
	const struct pp_mesh_verdict_in *in = w->in;
	uint32_t n = in->n, a, b;
	size_t k = 0;
	double us;

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++, k++) {
			enum pair_class c = counted(w, a, b, k, &us);
			bool p = c == P_PASSED;

			if (c == P_NOT_RUN)
				continue;
			w->ran[a]++;
			w->ran[b]++;
			w->passed[a] += p;
			w->passed[b] += p;
			if (in->host[a] == in->host[b]) {
				w->hs[in->host[a]].in_pass += p;
				w->hs[in->host[a]].in_fail += !p;
			}
		}
}

/*
 * Rank @i, which passed none of its pairs: is it failing, that is, are more
 * than half of its failed pairs with a rank that passed one?
 */
static bool is_failing(const struct work *w, uint32_t i)
{
	uint32_t n = w->in->n, j, good = 0;
	double us;

	if (w->passed[i] || w->ran[i] < 2)
		return false;
	for (j = 0; j < n; j++) {
		uint32_t a = j < i ? j : i, b = j < i ? i : j;

		if (j == i || counted(w, a, b, pp_mesh_pair_index(n, a, b),
				      &us) != P_FAILED)
			continue;
		good += w->passed[j] > 0;
	}
	return good * 2 > w->ran[i];
}

/* The slow and failing ranks, by host: a NIC's verdicts or its host's. */
static void judge_ranks(struct work *w)
{
	const struct pp_mesh_verdict_in *in = w->in;
	uint32_t n = in->n, i;

	for (i = 0; i < n; i++) {
		struct host_sum *h = &w->hs[in->host[i]];

		if (in->out[i])
			continue;
		if (h->first == UINT32_MAX)
			h->first = i;
		if (isfinite(in->added_us[i])) {
			h->sj++;
			if (in->slow[i]) {
				h->ss++;
				h->lo = fmin(h->lo, in->added_us[i]);
				h->hi = fmax(h->hi, in->added_us[i]);
				h->sum += in->added_us[i];
			}
			h->spass += w->passed[i];
		}
		if (w->ran[i]) {
			h->fj++;
			w->failing[i] = is_failing(w, i);
			if (w->failing[i]) {
				h->ff++;
				h->ffail += w->ran[i];
			}
		}
	}
	for (i = 0; i < n; i++) {
		const struct host_sum *h = &w->hs[i];
		struct pp_mesh_verdict v;

		if (h->sj >= 2 && h->ss == h->sj &&
		    h->hi <= h->lo * PP_MESH_VERDICT_SAME_FACTOR) {
			v = verdict(PP_MESH_VERDICT_HOST, PP_MESH_VERDICT_SLOW,
				    h->first, h->first);
			v.host_ranks = h->sj;
			v.pairs = h->spass - h->in_pass;
			v.added_us = h->sum / h->ss;
			keep(w->out, &v);
		}
		if (h->fj >= 2 && h->ff == h->fj) {
			v = verdict(PP_MESH_VERDICT_HOST,
				    PP_MESH_VERDICT_FAILING, h->first,
				    h->first);
			v.host_ranks = h->fj;
			v.pairs = h->ffail - h->in_fail;
			keep(w->out, &v);
		}
	}
	for (i = 0; i < n; i++) {
		const struct host_sum *h = &w->hs[in->host[i]];
		struct pp_mesh_verdict v;

		if (in->out[i])
			continue;
		if (in->slow[i] && isfinite(in->added_us[i]) &&
		    !(h->sj >= 2 && h->ss == h->sj &&
		      h->hi <= h->lo * PP_MESH_VERDICT_SAME_FACTOR)) {
			v = verdict(PP_MESH_VERDICT_NIC, PP_MESH_VERDICT_SLOW,
				    i, i);
			v.host_ranks = h->sj;
			v.pairs = w->passed[i];
			v.added_us = in->added_us[i];
			keep(w->out, &v);
		}
		if (w->failing[i] && !(h->fj >= 2 && h->ff == h->fj)) {
			v = verdict(PP_MESH_VERDICT_NIC,
				    PP_MESH_VERDICT_FAILING, i, i);
			v.host_ranks = h->fj;
			v.pairs = w->ran[i];
			keep(w->out, &v);
		}
	}
}

/* Did rank @i pass more than half of its pairs other than one? */
static bool passes_most(const struct work *w, uint32_t i)
{
	return w->ran[i] >= 2 && (uint64_t)w->passed[i] * 2 > w->ran[i] - 1;
}

/* The links: failed with two good ends, or slower than its ends say. */
static void judge_links(struct work *w)
{
	const struct pp_mesh_verdict_in *in = w->in;
	uint32_t n = in->n, a, b;
	double us, thr = NAN;
	size_t k = 0;

	if (isfinite(in->baseline_us))
		thr = fmax(fmax(PP_MESH_ODD_MIN_US, in->baseline_us),
			   in->link_noise_us);
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++, k++) {
			enum pair_class c = counted(w, a, b, k, &us);
			struct pp_mesh_verdict v;
			double expect;

			if (c == P_FAILED && passes_most(w, a) &&
			    passes_most(w, b)) {
				v = verdict(PP_MESH_VERDICT_LINK,
					    PP_MESH_VERDICT_FAILING, a, b);
				v.code = *((const uint8_t *)in->code +
					   k * in->code_stride);
				v.pairs = 1;
				v.a_passed = w->passed[a];
				v.a_ran = w->ran[a] - 1;
				v.b_passed = w->passed[b];
				v.b_ran = w->ran[b] - 1;
				keep(w->out, &v);
				continue;
			}
			/* a slow end explains its pairs: not a link */
			if (c != P_PASSED || !isfinite(us) || !isfinite(thr) ||
			    in->slow[a] || in->slow[b])
				continue;
			expect = in->row_us ? in->row_us[a] + in->row_us[b] -
						      in->row_median_us :
					      NAN;
			if (!isfinite(expect) || us - expect < thr)
				continue;
			v = verdict(PP_MESH_VERDICT_LINK, PP_MESH_VERDICT_SLOW,
				    a, b);
			v.pairs = 1;
			v.added_us = us - expect;
			v.expect_us = expect;
			keep(w->out, &v);
		}
}

int pp_mesh_verdict_judge(const struct pp_mesh_verdict_in *in,
			  struct pp_mesh_verdicts *out)
{
	struct work w = { .in = in, .out = out };
	uint32_t n = in->n, kd, st, i;
	int ret = ENOMEM;

	memset(out, 0, sizeof(*out));
	if (n < 3)
		return 0;
	w.passed = calloc(n, sizeof(*w.passed));
	w.ran = calloc(n, sizeof(*w.ran));
	w.failing = calloc(n, sizeof(*w.failing));
	w.rail = calloc(n, sizeof(*w.rail));
	w.hs = calloc(n, sizeof(*w.hs));
	if (!w.passed || !w.ran || !w.failing || !w.rail || !w.hs)
		goto out;
	for (i = 0; i < n; i++)
		w.hs[i] = (struct host_sum){ .first = UINT32_MAX,
					     .lo = INFINITY,
					     .hi = -INFINITY };
	ret = judge_rails(&w);
	if (ret)
		goto out;
	count_pairs(&w);
	judge_ranks(&w);
	judge_links(&w);
	for (kd = 0; kd < PP_MESH_VERDICT_KINDS; kd++)
		for (st = 0; st < PP_MESH_VERDICT_STATES; st++)
			qsort(out->v[kd][st], out->kept[kd][st],
			      sizeof(out->v[kd][st][0]), by_score);
out:
	free(w.passed);
	free(w.ran);
	free(w.failing);
	free(w.rail);
	free(w.cut);
	free(w.hs);
	return ret;
}
