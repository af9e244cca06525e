// SPDX-License-Identifier: MIT
/*
 * pp_run_rec.c - the record of a run: its round trips, raw or in a
 * histogram, and the figures of each --interval.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "pp_clock.h"
#include "pp_hist.h"
#include "pp_run_rec.h"
#include "pp_stats.h"

void pp_run_free(struct pp_run_result *res)
{
	free(res->samples);
	res->samples = NULL;
	res->nsamples = 0;
	pp_lhist_destroy(res->lhist);
	res->lhist = NULL;
}

bool pp_run_keeps_lhist(const struct pp_run_cfg *cfg)
{
	return !cfg->keep_raw &&
	       (cfg->duration_ns || cfg->iters > PP_LHIST_RAW_LIMIT);
}

int pp_run_stats(const struct pp_run_result *res, struct pp_stats *st)
{
	if (res->lhist)
		return pp_lhist_stats(res->lhist, st);
	return pp_stats_compute(res->samples, res->nsamples, st);
}

int pp_run_hist(const struct pp_run_result *res, unsigned int nbins,
		struct pp_hist *out)
{
	if (res->lhist)
		return pp_lhist_hist(res->lhist, nbins, out);
	if (!res->nsamples)
		return EINVAL;
	return pp_hist_compute(res->samples, res->nsamples, nbins, out);
}

/*
 * Write once to every page of @len bytes at @p, each byte written the one
 * read (the contents stay), before the loop: the first write to a fresh
 * page is a page fault, and the loop must not take one per 512 samples.
 * In the emulated guest a fault costs about 8 us, now and then
 * milliseconds (docs/measurement.md, "Memory touched before the loop").
 */
static void touch_pages(void *p, size_t len)
{
	volatile uint8_t *b = p;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;

	for (off = 0; off < len; off += page)
		b[off] = b[off];
}

int pp_run_record_begin(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	size_t n = cfg->iters ? cfg->iters : 1;

	s->cur = NULL;
	s->next_interval = cfg->interval_ns > 0 ? INT64_MIN : INT64_MAX;
	if (!pp_run_keeps_lhist(cfg)) {
		res->samples = calloc(n, sizeof(*res->samples));
		if (!res->samples)
			goto nomem;
		touch_pages(res->samples, n * sizeof(*res->samples));
		return 0;
	}
	res->lhist = pp_lhist_create();
	if (!res->lhist)
		goto nomem;
	touch_pages(res->lhist, pp_lhist_size());
	/* --interval: the interval's own, added to the run's as it ends */
	s->cur = cfg->interval_ns > 0 ? pp_lhist_create() : res->lhist;
	if (!s->cur)
		goto nomem;
	if (s->cur != res->lhist)
		touch_pages(s->cur, pp_lhist_size());
	return 0;
nomem:
	pp_run_free(res);
	s->cur = NULL;
	pp_err_set(
		s->err,
		"cannot keep %llu round-trip samples in memory (lower -n or -D)",
		(unsigned long long)cfg->iters);
	return ENOMEM;
}

/* The figures of the interval under way, handed out; the next one begins. */
static void interval_end(struct run *s, int64_t to)
{
	struct pp_run_result *res = s->res;
	struct pp_run_interval iv = {
		.index = ++s->interval_index,
		.size = res->size,
		.start_s = (double)(s->interval_start - s->rec_start) / 1e9,
		.end_s = (double)(to - s->rec_start) / 1e9,
	};
	struct pp_stats st;

	if (s->cur) {
		iv.samples = s->cur->n;
		if (!pp_lhist_stats(s->cur, &st))
			iv.stats = &st;
		if (s->cur != res->lhist) {
			pp_lhist_merge(res->lhist, s->cur);
			pp_lhist_reset(s->cur);
		}
	} else {
		iv.samples = res->nsamples - s->interval_first;
		if (iv.samples &&
		    !pp_stats_compute(res->samples + s->interval_first,
				      iv.samples, &st))
			iv.stats = &st;
		s->interval_first = res->nsamples;
	}
	s->interval_start = to;
	if (s->cfg->on_interval)
		s->cfg->on_interval(s->cfg->interval_arg, &iv);
}

void pp_run_interval_tick(struct run *s, int64_t from, int64_t to)
{
	int64_t step = s->cfg->interval_ns;

	if (s->next_interval == INT64_MIN) {
		/* the first sample: the first interval starts with it */
		s->rec_start = from;
		s->interval_start = from;
		s->next_interval = from + step;
		if (to < s->next_interval)
			return;
	}
	interval_end(s, to);
	/* on the grid of the first start; a pause skips boundaries */
	while (s->next_interval <= to)
		s->next_interval += step;
}

void pp_run_record_end(struct run *s)
{
	struct pp_run_result *res = s->res;
	size_t k;

	/* the lean loop's samples, in ticks in its loop, as perftest keeps
	 * its cycles: the conversion is after the loop, with the sort */
	for (k = s->ticks_from; k < s->ticks_to; k++)
		res->samples[k] = pp_run_ticks_to_ns(res->samples[k],
						     pp_clock.ns_per_tick);
	if (s->cfg->interval_ns > 0 && s->next_interval != INT64_MIN &&
	    (s->cur ? s->cur->n : res->nsamples > s->interval_first))
		interval_end(s, s->last_to);
	if (s->cur && s->cur != res->lhist) {
		pp_lhist_merge(res->lhist, s->cur);
		pp_lhist_destroy(s->cur);
	}
	s->cur = NULL;
	if (res->lhist && !res->lhist->n) {
		pp_lhist_destroy(res->lhist); /* no samples: as raw, none */
		res->lhist = NULL;
	}
	/* -D reserved room for the fastest device: give back the rest */
	if (res->samples && res->nsamples < s->cfg->iters) {
		uint64_t *smaller = realloc(
			res->samples, (res->nsamples ? res->nsamples : 1) *
					      sizeof(*res->samples));

		if (smaller)
			res->samples = smaller;
	}
}
