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
 */
#ifndef PP_MESH_SCHED_H
#define PP_MESH_SCHED_H

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

#endif /* PP_MESH_SCHED_H */
