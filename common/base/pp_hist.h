/* SPDX-License-Identifier: MIT */
/*
 * pp_hist.h - a text histogram of round-trip samples.
 *
 * Bins are of equal width, from the smallest sample to the 99.9th
 * percentile (nearest rank, as in pp_stats.h), and one overflow bin holds
 * whatever lies above.  Equal widths show the shape where the samples are
 * (the body and the near tail of a latency distribution are a few
 * microseconds wide, and log2 bins would put most of them in one or two
 * bins); the overflow bin keeps one slow outlier from stretching every bin a
 * hundredfold.  The width is rounded up to a "nice" 1, 2 or 5 times a power
 * of ten nanoseconds and the first edge down to a multiple of it, so edges
 * read as round numbers; that may leave fewer bins than asked for.
 */
#ifndef PP_HIST_H
#define PP_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PP_HIST_MAX_BINS 64
#define PP_HIST_DEFAULT_BINS 20
#define PP_HIST_DEFAULT_BAR 50

struct pp_hist {
	size_t n;     /* samples */
	uint64_t min; /* smallest sample, ns */
	uint64_t max; /* largest sample, ns: the overflow bin ends here */
	uint64_t lo;  /* ns: bin i is [lo + i * width, lo + (i + 1) * width) */
	uint64_t width;			  /* ns, at least 1 */
	unsigned int nbins;		  /* bins in use, 1..PP_HIST_MAX_BINS */
	uint64_t count[PP_HIST_MAX_BINS]; /* samples per bin */
	uint64_t overflow; /* samples >= lo + nbins * width (above p99.9) */
};

/**
 * pp_hist_compute() - sort @n samples into at most @nbins bins
 * @ns: round-trip samples in nanoseconds, in any order (not modified)
 * @n: how many
 * @nbins: most bins wanted, 1..PP_HIST_MAX_BINS
 * @h: filled
 *
 * The regular bins cover [min, p99.9]; a range narrower than @nbins
 * nanoseconds gets one bin per nanosecond (a single value: one bin).
 *
 * Return: 0; EINVAL (@n is 0, @nbins out of range, a NULL pointer); ENOMEM
 * (no room to sort a copy).
 */
int pp_hist_compute(const uint64_t *ns, size_t n, unsigned int nbins,
		    struct pp_hist *h);

/**
 * pp_hist_print() - write @h as text, one line per bin
 * @f: stream
 * @h: a histogram from pp_hist_compute()
 * @bar: length in '#' of the fullest bin's bar, at least 1
 *
 * A header line, then per bin "  LO - HI  COUNT ###..." with LO and HI in
 * microseconds with three decimals (the bin is [LO, HI)), and last, only when
 * it is not empty, the overflow bin as "> LO - MAX  COUNT ###" (MAX
 * included).  Bars are scaled to the fullest bin, overflow included, rounded
 * to the nearest '#'; a bin that is not empty gets at least one.
 */
void pp_hist_print(FILE *f, const struct pp_hist *h, unsigned int bar);

/**
 * pp_hist_nice_width() - the bin width of a histogram of [@lo, @hi]
 * @lo: the smallest value
 * @hi: the largest value
 * @nbins: the most bins there may be
 * @start: the first bin's lower edge: @lo rounded down to the width
 * @used: the bins used
 *
 * Return: the smallest width of 1, 2 or 5 times a power of ten whose bins,
 * from @start, cover [@lo, @hi] in at most @nbins bins.
 */
uint64_t pp_hist_nice_width(uint64_t lo, uint64_t hi, unsigned int nbins,
			    uint64_t *start, unsigned int *used);

#endif /* PP_HIST_H */
