/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_odd.h - the odd one out of a mesh: which ranks make every pair
 * they are in slower than the rest.
 *
 * The model: a pair's round trip is a base shared by all pairs plus what
 * each of its two hosts adds (its NIC, its link, a delay on its port):
 * rtt(i,j) = c + d(i) + d(j).  For a rank i and two others j, k,
 * (rtt(i,j) + rtt(i,k) - rtt(j,k)) / 2 = c/2 + d(i), whatever j and k add.
 * A rank's estimate e(i) is the median of that over pairs of others (at most
 * PP_MESH_ODD_PEERS of them, spread evenly over the ranks it passed a pair
 * with, on rails its own rail's, so the work stays O(N)); the
 * baseline B is the lower median of the e(i) (of an even count, the
 * smaller middle one), and what rank i adds is e(i) - B.  So the rule holds
 * while at most half of the ranks are slow.  Rank i is slow when it adds at
 * least
 * max(PP_MESH_ODD_MIN_US, B): at least as much again as the half of a
 * typical pair's round trip that is its own share.  Unlike "its row is
 * slower than the matrix median", this holds when several hosts are slow
 * (each slow pair is explained by its two ends), and a slow host's
 * neighbours are not blamed for the pair they share with it.  Failed pairs
 * (NaN) are left out; a rank without a usable triangle is not judged.
 * Fewer than 3 ranks: nothing can be told apart, no rank is judged.
 *
 * The matrix's own noise raises that bar: what the model leaves of a pair,
 * r(i,j) = rtt(i,j) - e(i) - e(j), is noise where the model holds (slow
 * ranks are in e, not in r), and s = 1.4826 x the median of |r| over the
 * pairs the estimates look at is its spread (a standard deviation, for
 * normal noise, that a few odd pairs do not move).  A rank is slow only
 * when it adds at least K x s too (pp_mesh_odd_k(): 3 when a typical
 * rank's estimate has 8 others or more, more with fewer): on a fabric whose
 * round trips wander by a few percent the bar stays max(MIN, B); on one
 * that wanders by half (software RDMA under emulation) chance alone does
 * not name a rank.  The bar, max(MIN, B, K x s), is also what a slow
 * link must take beyond its prediction (pp_mesh_verdict.h).
 *
 * A slow link (one pair slow, its ends fine with their other pairs) is
 * left out of the triangles first: with few ranks (a rail of 4 hosts) it
 * is half of each end's triangles and would make both ends slow.  The rows'
 * medians find it, as pp_mesh_verdict.h says (m(a) + m(b) - M predicts a
 * pair; a median of 3 pairs ignores one), with M / 2 standing for B, which
 * is not known yet; at most PP_MESH_ODD_LINKS of them.  Two slow ranks of
 * four make their own pair look like such a link too: left out, each still
 * shows slow in its other triangles.
 */
#ifndef PP_MESH_ODD_H
#define PP_MESH_ODD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_MESH_ODD_PEERS 32	/* others a rank's estimate looks at, at most */
#define PP_MESH_ODD_MIN_US 5.0	/* less than this added is never "slow" */
#define PP_MESH_ODD_NOISE_K 3.0 /* the bar: at least this many spreads */
#define PP_MESH_ODD_MIN_PEERS 3 /* fewer: a rank's share is not judged */
#define PP_MESH_ODD_COPY 4096	/* pairs whose median is taken of a copy */
#define PP_MESH_ODD_LINKS 65536 /* slow links left out of triangles, most */

struct pp_mesh_odd {
	double matrix_median_us; /* median of the pairs that passed; NaN: none */
	double baseline_us;	 /* B: a typical rank's share c/2; NaN: none */
	double noise_us;	 /* s: the spread of what the model leaves */
	double noise_k;		 /* K: pp_mesh_odd_k() of peers */
	uint32_t peers;		 /* a typical rank's peers (lower median) */
	double bar_us;		 /* max(MIN, B, K x s): slow from this on */
	double row_median_us;	 /* M: the median of the rows' medians */
	double link_noise_us;	 /* z x s' (pp_mesh_verdict.h): a link's bar */
	uint32_t nslow;		 /* ranks found slow */
};

/**
 * pp_mesh_odd_judge() - find the slow ranks of a mesh
 * @n: ranks
 * @pair_us: the median round trip of each pair in usec, by
 *           pp_mesh_pair_index(); NaN for a pair that failed or did not run
 * @added_us: out, @n entries: what each rank adds, e(i) - B; NaN when not
 *            judged
 * @slow: out, @n entries: the rule of this header says slow
 * @res: the matrix median, the baseline and the count of slow ranks
 *
 * Return: 0, or ENOMEM.
 */
int pp_mesh_odd_judge(uint32_t n, const double *pair_us, double *added_us,
		      bool *slow, struct pp_mesh_odd *res);

/**
 * pp_mesh_odd_judge_strided() - pp_mesh_odd_judge() over values @stride
 * bytes apart (a field of an array of structs), read in place: the memory
 * it takes grows with @n, not with the pairs
 * @n: ranks
 * @pair_us: the first pair's value
 * @stride: bytes from one pair's value to the next
 * @added_us: as pp_mesh_odd_judge()
 * @slow: as pp_mesh_odd_judge()
 * @row_us: out, @n entries or NULL: each rank's row median m(i), NaN with
 *          fewer than 3 pairs (the slow links' model, pp_mesh_verdict.h)
 * @res: as pp_mesh_odd_judge(), with M and the link's noise bar
 *
 * Return: 0, or ENOMEM.
 */
int pp_mesh_odd_judge_strided(uint32_t n, const double *pair_us, size_t stride,
			      double *added_us, bool *slow, double *row_us,
			      struct pp_mesh_odd *res);

/**
 * pp_mesh_odd_dof() - the factor that makes a spread of what a model of
 * @n ranks (a share each, and a base) leaves of @pairs pairs honest: a
 * fitted model leaves less than the noise there is, the more so the fewer
 * pairs there are per share; sqrt(pairs / (pairs - n - 1)), at most
 * sqrt(pairs) (a rail of 4 ranks: 6 pairs for 5 values, sqrt(6)), 1 for
 * no pairs.  The bars of pp_mesh_odd.h and pp_mesh_verdict.h take s and
 * s' times it.
 */
double pp_mesh_odd_dof(uint64_t pairs, uint32_t n);

/**
 * pp_mesh_odd_k() - how many spreads the bars take, K.  The spread s is
 * itself unsure when it rests on few values, and a rank's estimate more
 * so when it has few triangles, so K grows as a typical rank's @peers
 * (the others its estimate looks at, PP_MESH_ODD_PEERS at most) get
 * fewer: 3 from 8 peers on, 4.5 for 6 or 7, 6 for 5, 6.5 for 4, and for
 * 3 peers 9 + 6 / nu, nu = @pairs - @n - 1 (at least 1): 15 for a full
 * mesh of 4, 11 for two rails of 4 hosts.  Read off meshes with no slow
 * rank whose pairs wander by log-normal noise, so that at most 1 mesh in
 * 200 names one (test_mesh_report.c, odd_k_calibrated); INFINITY under
 * PP_MESH_ODD_MIN_PEERS peers, where no rank is judged.
 */
double pp_mesh_odd_k(uint32_t peers, uint64_t pairs, uint32_t n);

/**
 * pp_mesh_median() - the median of the finite values of @v (NaN skipped)
 * @v: values, reordered by this call
 * @n: entries
 *
 * Return: the median (the mean of the two middle ones for an even count),
 * or NaN when no value is finite.
 */
double pp_mesh_median(double *v, uint32_t n);

#endif /* PP_MESH_ODD_H */
