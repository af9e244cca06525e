// SPDX-License-Identifier: MIT
/*
 * test_run_rec.c - how pp_run() keeps its round trips (pp_run_rec.h):
 * raw samples or the log-linear histogram (pp_run_keeps_lhist()), the
 * figures of both against each other on the same synthetic samples, and
 * --interval: every sample in exactly one interval, each interval's figures
 * those of its own samples, the boundaries on the grid of the first start.
 * The lean loop's samples in ticks, converted after it.  No device: the
 * loops' one recording function is fed synthetic clocks.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/mman.h>

#include "check_main.h"
#include "pp_clock.h"
#include "pp_hist.h"
#include "pp_lhist.h"
#include "pp_run_rec.h"
#include "pp_stats.h"

/* The stated bound of pp_lhist.h, and slack for the ns -> usec division. */
#define REL_ERR (1.0 / 2048.0)
#define FP_SLACK 1e-12

#define T0 1000000000LL /* the synthetic clock starts here, ns */
#define MAX_IV 64

struct seen {
	size_t n;
	struct pp_run_interval iv[MAX_IV];
	struct pp_stats st[MAX_IV];
	bool have[MAX_IV];
};

static void collect(void *arg, const struct pp_run_interval *iv)
{
	struct seen *z = arg;

	ck_assert_uint_lt(z->n, MAX_IV);
	z->iv[z->n] = *iv;
	z->have[z->n] = iv->stats != NULL;
	if (iv->stats)
		z->st[z->n] = *iv->stats;
	z->iv[z->n].stats = NULL;
	z->n++;
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/*
 * Round trips back to back from T0 until @span ns: 5 us to 200 us, with a
 * tail of one in a thousand at 1 to 5 ms.  Return: how many; @ns and
 * @end (their ends) filled.
 */
static size_t make_trips(int64_t span, uint64_t *ns, int64_t *end, size_t max)
{
	uint64_t x = 42;
	int64_t t = T0;
	size_t n = 0;

	while (t < T0 + span && n < max) {
		uint64_t v = 5000 + lcg(&x) % 195000;

		if (lcg(&x) % 1000 == 0)
			v = 1000000 + lcg(&x) % 4000000;
		ns[n] = v;
		t += (int64_t)v;
		end[n++] = t;
	}
	return n;
}

/* Feed @n round trips to a run of @cfg; @z collects the intervals. */
static void feed(struct pp_run_cfg *cfg, struct pp_run_result *res,
		 const uint64_t *ns, const int64_t *end, size_t n)
{
	struct pp_err err = { .msg = "" };
	struct run s = { .cfg = cfg, .res = res, .err = &err };
	size_t i;

	memset(res, 0, sizeof(*res));
	res->size = 1;
	ck_assert_int_eq(pp_run_record_begin(&s), 0);
	for (i = 0; i < n; i++)
		pp_run_record(&s, end[i] - (int64_t)ns[i], end[i]);
	pp_run_record_end(&s);
}

static void assert_close(double got, double want, double rel)
{
	ck_assert_msg(fabs(got - want) <= rel * fabs(want) + FP_SLACK,
		      "got %.9f, want %.9f (relative bound %g)", got, want,
		      rel);
}

static void assert_stats(const struct pp_stats *got,
			 const struct pp_stats *want, double rel)
{
	ck_assert_uint_eq(got->n, want->n);
	assert_close(got->min, want->min, 0);
	assert_close(got->max, want->max, 0);
	assert_close(got->mean, want->mean, 1e-12);
	assert_close(got->stdev, want->stdev, 1e-9);
	assert_close(got->median, want->median, rel);
	assert_close(got->p50, want->p50, rel);
	assert_close(got->p90, want->p90, rel);
	assert_close(got->p99, want->p99, rel);
	assert_close(got->p999, want->p999, rel);
}

#define NMAX 200000

START_TEST(test_choice)
{
	struct pp_run_cfg c = { .iters = 1000 };

	ck_assert(!pp_run_keeps_lhist(&c));
	c.iters = PP_LHIST_RAW_LIMIT;
	ck_assert(!pp_run_keeps_lhist(&c));
	c.iters = PP_LHIST_RAW_LIMIT + 1;
	ck_assert(pp_run_keeps_lhist(&c));
	c.iters = 1000;
	c.duration_ns = 1000000000LL;
	ck_assert(pp_run_keeps_lhist(&c)); /* -D: whatever its length */
	c.keep_raw = true;
	ck_assert(!pp_run_keeps_lhist(&c)); /* --samples wants every one */
}
END_TEST

/* -D keeps a histogram whose figures agree with the raw ones. */
START_TEST(test_lhist_vs_raw)
{
	static uint64_t ns[NMAX];
	static int64_t end[NMAX];
	size_t n = make_trips(3500000000LL, ns, end, NMAX);
	struct pp_run_cfg raw = { .iters = NMAX };
	struct pp_run_cfg dur = { .iters = NMAX, .duration_ns = 4000000000LL };
	struct pp_run_result a, b;
	struct pp_stats sa, sb, direct;

	ck_assert_uint_gt(n, 10000);
	feed(&raw, &a, ns, end, n);
	feed(&dur, &b, ns, end, n);
	ck_assert_ptr_null(a.lhist);
	ck_assert_uint_eq(a.nsamples, n);
	ck_assert_ptr_null(b.samples);
	ck_assert_uint_eq(b.nsamples, 0);
	ck_assert_ptr_nonnull(b.lhist);
	ck_assert_uint_eq(b.lhist->n, n);
	ck_assert_int_eq(pp_run_stats(&a, &sa), 0);
	ck_assert_int_eq(pp_run_stats(&b, &sb), 0);
	ck_assert_int_eq(pp_stats_compute(ns, n, &direct), 0);
	assert_stats(&sa, &direct, 0);
	assert_stats(&sb, &direct, REL_ERR);
	pp_run_free(&a);
	pp_run_free(&b);
	ck_assert_ptr_null(b.lhist);
}
END_TEST

/*
 * --interval, raw (_i 0) or histogram (_i 1): the intervals partition the
 * samples, lie on the grid of 1 s from the first start, and each one's
 * figures are its own samples' (exact raw; within the bound histogram);
 * the run's figures are those of all samples.
 */
START_TEST(test_intervals)
{
	static uint64_t ns[NMAX];
	static int64_t end[NMAX];
	size_t n = make_trips(3500000000LL, ns, end, NMAX), k, first = 0;
	struct pp_run_cfg cfg = { .iters = NMAX,
				  .interval_ns = 1000000000LL,
				  .on_interval = collect };
	static struct seen z;
	struct pp_run_result res;
	struct pp_stats want, got;
	uint64_t total = 0;
	double rel = _i ? REL_ERR : 0;

	memset(&z, 0, sizeof(z));
	cfg.interval_arg = &z;
	if (_i)
		cfg.duration_ns = 4000000000LL;
	feed(&cfg, &res, ns, end, n);
	ck_assert_uint_eq(z.n, 4); /* 3 whole seconds and the half */
	for (k = 0; k < z.n; k++) {
		const struct pp_run_interval *iv = &z.iv[k];
		size_t last = first + iv->samples - 1;

		ck_assert_uint_eq(iv->index, k + 1);
		ck_assert_uint_eq(iv->size, 1);
		ck_assert_uint_gt(iv->samples, 0);
		ck_assert(z.have[k]);
		/* the interval ends with the first sample at its boundary */
		assert_close(iv->end_s, (double)(end[last] - T0) / 1e9, 1e-12);
		if (k + 1 < z.n) {
			ck_assert_int_ge(end[last],
					 T0 + (int64_t)(k + 1) * 1000000000LL);
			ck_assert_int_lt(end[last - 1],
					 T0 + (int64_t)(k + 1) * 1000000000LL);
		} else {
			ck_assert_uint_eq(last, n - 1);
		}
		if (k)
			assert_close(iv->start_s, z.iv[k - 1].end_s, 0);
		else
			assert_close(iv->start_s, 0.0, 0);
		ck_assert_int_eq(
			pp_stats_compute(ns + first, iv->samples, &want), 0);
		assert_stats(&z.st[k], &want, rel);
		first = last + 1;
		total += iv->samples;
	}
	ck_assert_uint_eq(total, n);
	ck_assert_int_eq(pp_run_stats(&res, &got), 0);
	ck_assert_int_eq(pp_stats_compute(ns, n, &want), 0);
	assert_stats(&got, &want, rel);
	pp_run_free(&res);
}
END_TEST

/* A pause longer than an interval: one interval, boundaries skipped. */
START_TEST(test_interval_pause)
{
	uint64_t ns[3] = { 1000, 2500000000ULL, 1000 };
	int64_t end[3] = { T0 + 1000, T0 + 1000 + 2500000000LL,
			   T0 + 2500002000LL };
	struct pp_run_cfg cfg = { .iters = 10,
				  .interval_ns = 1000000000LL,
				  .on_interval = collect };
	static struct seen z;
	struct pp_run_result res;

	memset(&z, 0, sizeof(z));
	cfg.interval_arg = &z;
	feed(&cfg, &res, ns, end, 3);
	ck_assert_uint_eq(z.n, 2);
	ck_assert_uint_eq(z.iv[0].samples, 2);
	ck_assert_uint_eq(z.iv[1].samples, 1);
	ck_assert_uint_eq(res.nsamples, 3);
	pp_run_free(&res);
}
END_TEST

/* No sample: no interval, no figures, nothing kept. */
START_TEST(test_empty)
{
	struct pp_run_cfg cfg = { .iters = 10,
				  .duration_ns = 1000000000LL,
				  .interval_ns = 1000000000LL,
				  .on_interval = collect };
	static struct seen z;
	struct pp_run_result res;
	struct pp_stats st;
	struct pp_hist h;

	memset(&z, 0, sizeof(z));
	cfg.interval_arg = &z;
	feed(&cfg, &res, NULL, NULL, 0);
	ck_assert_uint_eq(z.n, 0);
	ck_assert_ptr_null(res.lhist);
	ck_assert_int_eq(pp_run_stats(&res, &st), EINVAL);
	ck_assert_int_eq(pp_run_hist(&res, 10, &h), EINVAL);
	pp_run_free(&res);
}
END_TEST

/* Every page of @len bytes at @p is in memory (mincore()). */
static void assert_resident(const void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)p / page * page;
	size_t n = ((uintptr_t)p + len - from + page - 1) / page, i;
	unsigned char *v = malloc(n);

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(mincore((void *)from, n * page, v), 0);
	for (i = 0; i < n; i++)
		ck_assert_msg(v[i] & 1, "page %zu of %zu not in memory", i, n);
	free(v);
}

/*
 * The store is in memory before the loop (no page fault in it): sizes
 * that calloc() takes from fresh mappings, whose pages come at first use.
 */
START_TEST(test_touched)
{
	struct pp_run_cfg raw = { .iters = PP_LHIST_RAW_LIMIT };
	struct pp_run_cfg hist = { .iters = 10,
				   .duration_ns = 1000000000LL,
				   .interval_ns = 1000000000LL,
				   .on_interval = collect };
	static struct seen z;
	struct pp_err err = { .msg = "" };
	struct pp_run_result res;
	struct run s = { .cfg = &raw, .res = &res, .err = &err };

	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(pp_run_record_begin(&s), 0);
	assert_resident(res.samples, raw.iters * sizeof(*res.samples));
	pp_run_free(&res);

	hist.interval_arg = &z;
	s.cfg = &hist;
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(pp_run_record_begin(&s), 0);
	ck_assert_ptr_nonnull(res.lhist);
	ck_assert_ptr_ne(s.cur, res.lhist);
	assert_resident(res.lhist, pp_lhist_size());
	assert_resident(s.cur, pp_lhist_size());
	/* the contents are as created: touching wrote back what it read */
	ck_assert_uint_eq(s.cur->min, UINT64_MAX);
	ck_assert_uint_eq(res.lhist->min, UINT64_MAX);
	pp_lhist_destroy(s.cur);
	pp_run_free(&res);
}
END_TEST

/*
 * The client's run time starts when its first measured post has returned
 * (as the stock tools'): pp_run_note_post_at() sets the start once, from the
 * first post's end, and a server's (NULL) has none; every post counts.
 */
START_TEST(test_run_start)
{
	struct pp_run_result res;
	int64_t start = 0;

	memset(&res, 0, sizeof(res));
	pp_run_note_post_at(&res, 1000, 4000, &start);
	ck_assert_int_eq(start, 4000);
	pp_run_note_post_at(&res, 5000, 5500, &start);
	ck_assert_int_eq(start, 4000);
	pp_run_note_post_at(&res, 6000, 8000, NULL);
	ck_assert_uint_eq(res.posts, 3);
	ck_assert_uint_eq(res.post_ns, 3000 + 500 + 2000);
	ck_assert_uint_eq(res.post_max_ns, 3000);
}
END_TEST

/*
 * The lean loop keeps its samples in ticks; pp_run_record_end() converts
 * those of [ticks_from, ticks_to) to ns, and a tick count that went back
 * (a negative difference, between cores) is 0, as pp_run_sample_ns()'s.
 */
START_TEST(test_ticks)
{
	struct pp_run_cfg cfg = { .iters = 4 };
	struct pp_err err = { .msg = "" };
	struct pp_run_result res;
	struct run s = { .cfg = &cfg, .res = &res, .err = &err };
	double scale = pp_clock.ns_per_tick;

	ck_assert_uint_eq(pp_run_sample_ns(1000, 1500), 500);
	ck_assert_uint_eq(pp_run_sample_ns(1500, 1000), 0);
	ck_assert_uint_eq(pp_run_ticks_to_ns(300, 0.5), 150);
	ck_assert_uint_eq(pp_run_ticks_to_ns((uint64_t)-5, 0.5), 0);

	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(pp_run_record_begin(&s), 0);
	ck_assert_ptr_nonnull(res.samples);
	res.samples[0] = 7; /* ns already: left as it is */
	res.samples[1] = 100;
	res.samples[2] = 300;
	res.samples[3] = (uint64_t)-5;
	res.nsamples = 4;
	s.ticks_from = 1;
	s.ticks_to = 4;
	pp_clock.ns_per_tick = 0.5;
	pp_run_record_end(&s);
	pp_clock.ns_per_tick = scale;
	ck_assert_uint_eq(res.samples[0], 7);
	ck_assert_uint_eq(res.samples[1], 50);
	ck_assert_uint_eq(res.samples[2], 150);
	ck_assert_uint_eq(res.samples[3], 0);
	pp_run_free(&res);
}
END_TEST

static Suite *run_rec_suite(void)
{
	Suite *s = suite_create("run_rec");
	TCase *tc = tcase_create("record");

	tcase_add_test(tc, test_choice);
	tcase_add_test(tc, test_lhist_vs_raw);
	tcase_add_loop_test(tc, test_intervals, 0, 2);
	tcase_add_test(tc, test_interval_pause);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_touched);
	tcase_add_test(tc, test_run_start);
	tcase_add_test(tc, test_ticks);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(run_rec_suite)
