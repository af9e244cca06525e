/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_verdict.h - the mesh's verdicts: from the matrix, which NIC, host,
 * link or pair of rails is slow, failing or without a path.
 *
 * A rank is one NIC of one host (host:device); the ranks of a host are those
 * whose JOIN named the same host.  The verdicts read what the odd-one-out
 * rule found (pp_mesh_odd.h): e(i) = c/2 + d(i) for each rank, the baseline
 * B (a typical rank's share, c/2), what rank i adds, d(i) = e(i) - B, and
 * which ranks are slow.
 *
 * Slow NIC or host.  A slow rank whose host has another rank that was
 * judged and is not slow is a slow NIC: its host is fine with its other
 * NIC, so the NIC (its port, its cable) is what adds.  When every judged
 * rank of a host with two or more is slow, by about the same (the largest
 * added at most twice the smallest), the host is slow: one verdict for the
 * host, not one per NIC.  By different amounts, each NIC gets its own.  A
 * host with one rank in the mesh cannot tell its NIC from itself: the
 * verdict is a NIC's, and says so (host_ranks 1).
 *
 * Slow link (m(a), M and z x s' as pp_mesh_odd_judge_strided() finds
 * them for its own use).  The rows' medians predict a pair: with m(a) the median of
 * rank a's pairs that passed and M the median of the m(a),
 *     p(a,b) = m(a) + m(b) - M,
 * which is c + d(a) + d(b) again: a slow rank's median carries its delay,
 * and one slow pair among a rank's pairs does not move its median (a
 * median of 3 values ignores one).  The residual r(a,b) = rtt(a,b) -
 * p(a,b) is what the pair takes beyond what its ends explain; its spread
 * s' (1.4826 x the median of |r| over each rank's PP_MESH_ODD_PEERS spread
 * peers) is the pairs' noise.  A link is slow when r(a,b) >= max(
 * PP_MESH_ODD_MIN_US, B, z x s'), both ends with at least
 * PP_MESH_VERDICT_LINK_PAIRS pairs that passed: slower by a typical
 * rank's whole share, and by more than noise gives by chance among the P
 * pairs judged: z = sqrt(2 ln(P / 0.01)), at least pp_mesh_odd_k() (a
 * normal noise passes that once in a hundred meshes: 3.8 at 12 pairs, 4.7
 * at 496, 6.4 at 8.4 million).  The ends are not blamed: the odd-one-out
 * rule leaves such pairs out of its triangles (pp_mesh_odd.h), and a pair
 * with a slow end is that end's, not a link.  This holds while
 * a rank's slow links are under half of its pairs (a rank slow with most
 * of its peers is a slow rank).  A triangle's estimate (pp_mesh_odd.h) is
 * not used here: with 4 ranks a slow pair is half of each end's
 * triangles, and moves them.
 *
 * Failing NIC, host, link.  Pairs that did not run (a rank that never
 * joined, whose device failed, that was gone: named already) count for
 * nothing; neither does TIME when the mesh was stopped (a pair not run is
 * TIME too).  A rank is failing when every pair it ran failed (at least
 * 2), while most of those peers passed a pair: more than half of its failed
 * pairs are with a rank that passed at least one.  When every pair of the
 * mesh fails, nothing is failing by this rule, and the failed pairs speak
 * for themselves.  Grouped by host as the slow ones: all judged ranks of a
 * host with two or more failing make a failing host; else each is a
 * failing NIC (host_ranks 1: the host's only NIC).  A failing link is a
 * pair that failed while both of its ends passed more than half of their
 * other pairs.
 *
 * Rails.  A rank's rail is its local index (rails of ranks with the same
 * index on different hosts).  With two or more rails (at most
 * PP_MESH_VERDICT_RAILS), two rails have no path between them when every
 * pair across them that ran failed (one at least) while more than half of
 * the pairs within each of the two rails passed.  That is one verdict per
 * two rails, and the pairs across them count for no NIC, host or link.
 *
 * Fewer than 3 ranks: no verdict.  The rules do not blame a switch, a
 * rail's switch or a path through the fabric: without the topology a pair's
 * route is unknown.
 *
 * The work is three passes over the pairs, read in place (strided, as
 * pp_mesh_odd_judge_strided()), and one over each failing candidate's row;
 * the memory grows with N.  Of each kind and state, the
 * PP_MESH_VERDICT_KEEP strongest verdicts are kept (slow: the most added;
 * failing: the most pairs), and the rest counted.
 */
#ifndef PP_MESH_VERDICT_H
#define PP_MESH_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_MESH_VERDICT_KEEP 16	      /* kept of each kind and state */
#define PP_MESH_VERDICT_RAILS 64      /* rails told apart, at most */
#define PP_MESH_VERDICT_LINK_PAIRS 3  /* an end of a slow link has these */
#define PP_MESH_VERDICT_SAME_FACTOR 2 /* "about the same": within this */

enum pp_mesh_verdict_kind {
	PP_MESH_VERDICT_RAILS_KIND = 0,
	PP_MESH_VERDICT_HOST = 1,
	PP_MESH_VERDICT_NIC = 2,
	PP_MESH_VERDICT_LINK = 3,
	PP_MESH_VERDICT_KINDS
};

enum pp_mesh_verdict_state {
	PP_MESH_VERDICT_SLOW = 0,
	PP_MESH_VERDICT_FAILING = 1,
	PP_MESH_VERDICT_NO_PATH = 2,
	PP_MESH_VERDICT_STATES
};

/* One verdict. */
struct pp_mesh_verdict {
	uint8_t kind;	     /* enum pp_mesh_verdict_kind */
	uint8_t state;	     /* enum pp_mesh_verdict_state */
	uint8_t code;	     /* failing link: its enum pp_mesh_code */
	uint32_t a;	     /* NIC: its rank; host: its first rank; link: the
			      * lower end; rails: the lower rail */
	uint32_t b;	     /* link: the higher end; rails: the higher rail;
			      * else as a */
	uint32_t host_ranks; /* NIC, host: the host's judged ranks (1: its
			      * only NIC in the mesh) */
	uint64_t pairs;	     /* evidence: pairs that passed (slow), failed
			      * (failing, no path) */
	double added_us;     /* slow: what it adds (a link: r(a,b)); else NaN */
	double expect_us;    /* slow link: m(a) + m(b) - M; else NaN */
	uint64_t a_passed, a_ran, b_passed, b_ran; /* failing link: its ends'
						    * other pairs */
};

/* What the verdicts read; the pairs in place, by pp_mesh_pair_index(). */
struct pp_mesh_verdict_in {
	uint32_t n;
	const double *pair_us; /* a pair's median; NaN: none */
	size_t us_stride;      /* bytes from one pair's median to the next */
	const uint8_t *code;   /* a pair's enum pp_mesh_code */
	size_t code_stride;
	const uint32_t *host; /* n: host ids below n, shared by a host's ranks */
	const uint32_t *rail; /* n: the local index */
	const bool *out;      /* n: not judged (never joined, device, gone) */
	bool stopped;	      /* the mesh stopped: TIME may be a pair not run */
	const double *added_us; /* n: pp_mesh_odd_judge()'s */
	const bool *slow;	/* n: pp_mesh_odd_judge()'s */
	double baseline_us;	/* pp_mesh_odd_judge()'s B */
	double bar_us;		/* pp_mesh_odd_judge()'s bar; 0: max(MIN, B) */
	/* pp_mesh_odd_judge_strided()'s rows m(a) (n), M and z x s' */
	const double *row_us;
	double row_median_us, link_noise_us;
};

struct pp_mesh_verdicts {
	struct pp_mesh_verdict v[PP_MESH_VERDICT_KINDS][PP_MESH_VERDICT_STATES]
				[PP_MESH_VERDICT_KEEP];
	uint32_t kept[PP_MESH_VERDICT_KINDS][PP_MESH_VERDICT_STATES];
	uint64_t found[PP_MESH_VERDICT_KINDS][PP_MESH_VERDICT_STATES];
	uint64_t total; /* every verdict found, kept or not */
};

/**
 * pp_mesh_verdict_judge() - the verdicts of a mesh, by the rules of this
 * header
 * @in: the pairs, the ranks' hosts and rails, the odd-one-out's findings
 * @out: the verdicts; each kind and state's strongest first
 *
 * Return: 0, or ENOMEM.
 */
int pp_mesh_verdict_judge(const struct pp_mesh_verdict_in *in,
			  struct pp_mesh_verdicts *out);

/**
 * pp_mesh_verdict_kind_name() - "nic", "host", "link" or "rails"
 * @kind: enum pp_mesh_verdict_kind (any value)
 */
const char *pp_mesh_verdict_kind_name(unsigned int kind);

/**
 * pp_mesh_verdict_state_name() - "slow", "failing" or "no_path"
 * @state: enum pp_mesh_verdict_state (any value)
 */
const char *pp_mesh_verdict_state_name(unsigned int state);

#endif /* PP_MESH_VERDICT_H */
