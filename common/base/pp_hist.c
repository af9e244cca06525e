// SPDX-License-Identifier: MIT
/*
 * pp_hist.c - a text histogram of round-trip samples: equal bins from the
 * minimum to p99.9, and an overflow bin.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_hist.h"
#include "pp_stats.h"

uint64_t pp_hist_nice_width(uint64_t lo, uint64_t hi, unsigned int nbins,
			    uint64_t *start, unsigned int *used)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	uint64_t mag = 1, w, s;
	size_t i;

	for (;;) {
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			w = steps[i] * mag;
			s = lo / w * w;
			if ((hi - s) / w < nbins) {
				*start = s;
				*used = (unsigned int)((hi - s) / w + 1);
				return w;
			}
		}
		if (mag > UINT64_MAX / 50)
			break;
		mag *= 10;
	}
	/* Only for ranges near 2^64 ns: plain equal bins from @lo. */
	w = (hi - lo) / nbins + 1;
	if (!w)
		w = UINT64_MAX;
	*start = lo;
	*used = (hi - lo) / w < nbins ? (unsigned int)((hi - lo) / w + 1) :
					nbins;
	return w;
}

int pp_hist_compute(const uint64_t *ns, size_t n, unsigned int nbins,
		    struct pp_hist *h)
{
	uint64_t *v, hi, idx;
	size_t i;

	if (!ns || !n || !h || nbins < 1 || nbins > PP_HIST_MAX_BINS)
		return EINVAL;
	v = pp_stats_sorted(ns, n);
	if (!v)
		return ENOMEM;

	memset(h, 0, sizeof(*h));
	h->n = n;
	h->min = v[0];
	h->max = v[n - 1];
	hi = pp_percentile(v, n, 99.9);
	h->width = pp_hist_nice_width(h->min, hi, nbins, &h->lo, &h->nbins);
	for (i = 0; i < n; i++) {
		idx = (v[i] - h->lo) / h->width;
		if (idx < h->nbins)
			h->count[idx]++;
		else
			h->overflow++;
	}
	free(v);
	return 0;
}

/* @ns as microseconds with three decimals, exactly (no floating point). */
static const char *usec(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	return buf;
}

static void print_bar(FILE *f, uint64_t count, uint64_t most, unsigned int bar)
{
	uint64_t len;

	if (!count || !most)
		return;
	len = (uint64_t)((double)count * bar / (double)most + 0.5);
	if (!len)
		len = 1;
	fputc(' ', f);
	while (len--)
		fputc('#', f);
}

void pp_hist_print(FILE *f, const struct pp_hist *h, unsigned int bar)
{
	char a[32], b[32], w[32];
	uint64_t most = h->overflow, edge;
	unsigned int i;

	if (!bar)
		bar = 1;
	for (i = 0; i < h->nbins; i++)
		if (h->count[i] > most)
			most = h->count[i];
	fprintf(f,
		"histogram usec: n %zu, %u bin%s of %s from %s, overflow from %s\n",
		h->n, h->nbins, h->nbins == 1 ? "" : "s",
		usec(h->width, w, sizeof(w)), usec(h->lo, b, sizeof(b)),
		usec(h->lo + h->nbins * h->width, a, sizeof(a)));
	for (i = 0; i < h->nbins; i++) {
		edge = h->lo + i * h->width;
		fprintf(f, "  %12s - %12s %10" PRIu64, usec(edge, a, sizeof(a)),
			usec(edge + h->width, b, sizeof(b)), h->count[i]);
		print_bar(f, h->count[i], most, bar);
		fputc('\n', f);
	}
	if (h->overflow) {
		edge = h->lo + h->nbins * h->width;
		fprintf(f, "> %12s - %12s %10" PRIu64, usec(edge, a, sizeof(a)),
			usec(h->max, b, sizeof(b)), h->overflow);
		print_bar(f, h->overflow, most, bar);
		fputc('\n', f);
	}
}
