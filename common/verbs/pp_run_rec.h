/* SPDX-License-Identifier: MIT */
/*
 * pp_run_rec.h - the record of a run: its round trips kept raw or in a
 * histogram, the figures of each --interval, the time inside
 * ibv_post_send(), and the figures of a result.
 */
#ifndef PP_RUN_REC_H
#define PP_RUN_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "pp_clock.h"
#include "pp_lhist.h"
#include "pp_run_loop.h"
#include "pp_run_types.h"

struct pp_hist;
struct pp_stats;

/**
 * pp_run_sample_ns() - a round trip from two readings of the clock
 * @from: the earlier reading
 * @to: the later one
 *
 * Should the thread move between the two readings to a CPU whose cycle
 * counter lags by more than the round trip (not seen on synchronised
 * counters), the difference is negative.
 *
 * Return: @to - @from, or 0 then (not 2^64 - x).
 */
static inline uint64_t pp_run_sample_ns(int64_t from, int64_t to)
{
	return to > from ? (uint64_t)(to - from) : 0;
}

/**
 * pp_run_interval_tick() - --interval: start the first interval, or end
 * the one under way; pp_run_record() calls it
 * @s: the run
 * @from: the start of the sample just recorded
 * @to: its end
 */
void pp_run_interval_tick(struct run *s, int64_t from, int64_t to);

/**
 * pp_run_record() - record one round trip: the only way loops store one
 * @s: the run
 * @from: the clock when it started (the send posted)
 * @to: the clock when it ended (the reply polled)
 *
 * Into res->samples or the histogram (pp_run_keeps_lhist()); with
 * --interval, a sample that ends at or past the boundary ends the interval
 * (its figures handed to cfg->on_interval before this returns).
 */
static inline void pp_run_record(struct run *s, int64_t from, int64_t to)
{
	uint64_t ns = pp_run_sample_ns(from, to);

	if (s->cur)
		pp_lhist_record(s->cur, ns);
	else
		s->res->samples[s->res->nsamples++] = ns;
	s->last_to = to;
	if (__builtin_expect(to >= s->next_interval, 0))
		pp_run_interval_tick(s, from, to);
}

/**
 * pp_run_record_begin() - the room for a run's samples: raw or histogram
 * @s: the run, with res and cfg set (res zeroed but for size)
 *
 * Return: 0, or ENOMEM with @s->err set.
 */
int pp_run_record_begin(struct run *s);

/**
 * pp_run_record_end() - after the loop: the lean loop's samples converted
 * from ticks, the last interval, the histogram of the run complete, unused
 * room given back
 * @s: the run
 */
void pp_run_record_end(struct run *s);

/**
 * pp_run_ticks_to_ns() - a sample the lean loop kept in ticks, in ns
 * @ticks: the difference of two readings of the cycle counter
 * @scale: ns per tick (pp_clock.ns_per_tick)
 *
 * Return: the sample in ns, or 0 if the counter went back (between cores).
 */
static inline uint64_t pp_run_ticks_to_ns(uint64_t ticks, double scale)
{
	int64_t d = (int64_t)ticks;

	return d > 0 ? (uint64_t)((double)d * scale) : 0;
}

/**
 * pp_run_note_post_at() - count one measured send and its time inside
 * ibv_post_send(): on a NIC the doorbell, on Soft-RoCE the protocol work
 * too (docs/measurement.md)
 * @res: the result
 * @from: the clock before the post
 * @to: the clock after it
 * @start: a client's run time start, or NULL (a server's): set to @to
 *         while 0, so that the run's time starts when its first measured
 *         post has returned, as the stock tools' (docs/measurement.md)
 */
static inline void pp_run_note_post_at(struct pp_run_result *res, int64_t from,
				       int64_t to, int64_t *start)
{
	uint64_t ns = pp_run_sample_ns(from, to);

	if (start && !*start)
		*start = to;
	res->posts++;
	res->post_ns += ns;
	if (ns > res->post_max_ns)
		res->post_max_ns = ns;
}

/**
 * pp_run_note_post() - a measured send posted at @from has returned:
 * pp_run_note_post_at() now, under the cycle counter; under CLOCK_MONOTONIC
 * no post is timed, so that the clock (a system call on some hosts) is not
 * read again: only the client's @start, once
 * @res: the result
 * @from: the clock before the post
 * @start: as pp_run_note_post_at()'s
 */
static inline void pp_run_note_post(struct pp_run_result *res, int64_t from,
				    int64_t *start)
{
	if (pp_clock.ticks)
		pp_run_note_post_at(res, from, pp_clock_ns(), start);
	else if (start && !*start)
		*start = pp_clock_ns();
}

/**
 * pp_run_keeps_lhist() - does a run keep a histogram instead of samples?
 * @cfg: the run
 *
 * A run of -D, or of more than PP_LHIST_RAW_LIMIT measured iterations,
 * keeps its round trips in a pp_lhist (270 KB whatever the length; every
 * percentile within 2^-11 of the raw-sample figure), unless --samples asks
 * for every raw sample (@cfg->keep_raw).
 *
 * Return: true when pp_run() fills @res->lhist, not @res->samples.
 */
bool pp_run_keeps_lhist(const struct pp_run_cfg *cfg);

/**
 * pp_run_stats() - the latency figures of a result, raw or histogram
 * @res: a result of pp_run()
 * @st: filled (pp_stats_compute() or pp_lhist_stats())
 *
 * Return: 0; EINVAL (no samples); ENOMEM.
 */
int pp_run_stats(const struct pp_run_result *res, struct pp_stats *st);

/**
 * pp_run_hist() - the --histogram bins of a result, raw or histogram
 * @res: a result of pp_run()
 * @nbins: most bins wanted
 * @out: filled (pp_hist_compute() or pp_lhist_hist())
 *
 * Return: 0; EINVAL (no samples); ENOMEM.
 */
int pp_run_hist(const struct pp_run_result *res, unsigned int nbins,
		struct pp_hist *out);

/**
 * pp_run_free() - release the samples of @res
 * @res: a result of pp_run()
 */
void pp_run_free(struct pp_run_result *res);

#endif /* PP_RUN_REC_H */
