/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_sched.h - the mesh's schedule: every unordered pair of N ranks
 * once, in rounds of disjoint pairs (the round-robin "circle" method).
 *
 * Ranks 0..M-2 sit on a circle and rank M-1 in its centre, M = N rounded up
 * to even.  Round r pairs the centre with r and, for k = 1..M/2-1, rank
 * (r + k) mod (M-1) with (r - k) mod (M-1).  With N odd the centre is a
 * rank that does not exist: its partner has a bye that round.  So there are
 * N-1 rounds of N/2 pairs for N even, N rounds of (N-1)/2 pairs for N odd.
 *
 * A plan (--mesh-pairs) selects some of the pairs and runs each selected
 * pair once, no rank twice in a round, in few rounds:
 *   all     every pair: the circle above
 *   rail    pairs of ranks with the same local index on different hosts:
 *           each rail (the ranks of one local index) runs its own circle,
 *           the rails side by side, so a round holds a round of every rail
 *           and there are as many rounds as the largest rail needs
 *   remote  pairs of ranks on different hosts: the circle above without the
 *           pairs within a host, or, when that takes fewer rounds, a circle
 *           of the hosts in which each meeting of two hosts of at most W
 *           ranks takes W rounds (rank i of one host with rank i + t mod W
 *           of the other in the t-th); (H - 1) x W rounds for H hosts of W
 *           ranks, H even: the fewest there can be
 * Rounds without a selected pair are left out.  In rail and remote modes a
 * rank without a host (one that never joined) is in no selected pair.
 */
#ifndef PP_MESH_SCHED_H
#define PP_MESH_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_MESH_MAX_RANKS 4096

/* One pair of a round: @a < @b. */
struct pp_mesh_pair {
	uint32_t a;
	uint32_t b;
};

/**
 * pp_mesh_rounds() - the number of rounds of a mesh of @n ranks
 * @n: ranks
 *
 * Return: 0 for @n < 2; @n - 1 for @n even; @n for @n odd.
 */
uint32_t pp_mesh_rounds(uint32_t n);

/**
 * pp_mesh_round() - the pairs of round @round
 * @n: ranks
 * @round: 0 .. pp_mesh_rounds(@n) - 1
 * @out: room for @n / 2 pairs, each with a < b
 *
 * Return: the number of pairs written: @n / 2 (rounded down); 0 when
 * @round is out of range.
 */
uint32_t pp_mesh_round(uint32_t n, uint32_t round, struct pp_mesh_pair *out);

/**
 * pp_mesh_pair_index() - the position of pair (@a, @b) among all
 * @n * (@n - 1) / 2 pairs, row by row (0-1, 0-2, ..., 1-2, ...)
 * @n: ranks
 * @a: one rank
 * @b: another rank, not @a (either order)
 */
size_t pp_mesh_pair_index(uint32_t n, uint32_t a, uint32_t b);

/* --mesh-pairs: which pairs a mesh runs. */
enum pp_mesh_pairs {
	PP_MESH_PAIRS_DEFAULT = 0, /* rail with a -d list or auto, else all */
	PP_MESH_PAIRS_ALL,
	PP_MESH_PAIRS_RAIL,
	PP_MESH_PAIRS_REMOTE,
};

#define PP_MESH_HOST_NONE UINT32_MAX /* a plan's rank without a host */

/* The pairs a mesh runs and their rounds: pp_mesh_plan_make(). */
struct pp_mesh_plan {
	enum pp_mesh_pairs mode; /* ALL, RAIL or REMOTE */
	uint32_t n;
	uint32_t *host;	 /* n: a host id (equal: one host); PP_MESH_HOST_NONE */
	uint32_t *local; /* n: the local index */
	uint32_t *order; /* the ranks of each group (a rail, a host) in turn */
	uint32_t *start; /* ngroups + 1: where each group starts in order */
	uint32_t ngroups;
	uint32_t width;	   /* remote by hosts: the largest host's ranks */
	bool by_hosts;	   /* remote: the circle of the hosts */
	uint32_t *raw;	   /* the raw rounds that hold a selected pair */
	uint32_t rounds;   /* of them */
	uint64_t selected; /* pairs */
};

/**
 * pp_mesh_pairs_name() - "all", "rail", "remote" ("default" for the unset
 * value)
 * @m: enum pp_mesh_pairs
 */
const char *pp_mesh_pairs_name(enum pp_mesh_pairs m);

/**
 * pp_mesh_pairs_parse() - --mesh-pairs' word
 * @s: "rail", "all" or "remote"
 * @out: the mode
 *
 * Return: 0 or EINVAL.
 */
int pp_mesh_pairs_parse(const char *s, enum pp_mesh_pairs *out);

/**
 * pp_mesh_plan_make() - the selected pairs of a mesh and their rounds
 * @p: filled; pp_mesh_plan_free() frees it
 * @mode: PP_MESH_PAIRS_ALL, _RAIL or _REMOTE
 * @n: ranks, 2 .. PP_MESH_MAX_RANKS
 * @host: @n host ids, any numbers, equal for the ranks of one host;
 *        PP_MESH_HOST_NONE for a rank without one (copied)
 * @local: @n local indexes (copied)
 *
 * Return: 0; EINVAL (a mode or @n out of range); ENOMEM.
 */
int pp_mesh_plan_make(struct pp_mesh_plan *p, enum pp_mesh_pairs mode,
		      uint32_t n, const uint32_t *host, const uint32_t *local);

/**
 * pp_mesh_plan_free() - free what pp_mesh_plan_make() made (a zeroed plan
 * too)
 * @p: the plan
 */
void pp_mesh_plan_free(struct pp_mesh_plan *p);

/**
 * pp_mesh_plan_selected() - does the plan run the pair @a - @b?
 * @p: the plan
 * @a: a rank
 * @b: another rank (either order)
 */
bool pp_mesh_plan_selected(const struct pp_mesh_plan *p, uint32_t a,
			   uint32_t b);

/**
 * pp_mesh_plan_round() - the selected pairs of round @round
 * @p: the plan
 * @round: 0 .. @p->rounds - 1
 * @out: room for @p->n / 2 pairs, each with a < b
 *
 * Return: the number of pairs written (at least 1); 0 when @round is out
 * of range.
 */
uint32_t pp_mesh_plan_round(const struct pp_mesh_plan *p, uint32_t round,
			    struct pp_mesh_pair *out);

#endif /* PP_MESH_SCHED_H */
