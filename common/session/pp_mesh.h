/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh.h - --mesh: every pair of N ranks, started by a launcher, run in
 * rounds of disjoint pairs; rank 0 prints the matrix (docs/mesh.md).
 */
#ifndef PP_MESH_H
#define PP_MESH_H

#include "pp_opts.h"

/**
 * pp_mesh_main() - run this process's part of a mesh, to its end
 * @o: parsed options with --mesh
 *
 * The rank and the number of ranks come from the launcher's environment
 * (pp_mesh_env.h).  Rank 0 listens on -p, waits for the others (at most
 * --mesh-join seconds), says how long the mesh may take, runs the rounds
 * and prints the matrix, the host table and the odd ones out (or, with
 * --json, one document; with --mesh-svg, also the heatmap).  Every other
 * rank joins it, runs the pairs it is given, and ends when rank 0 says so
 * or is gone.  A failure prints one line on stderr.
 *
 * Return: the exit status: PP_EXIT_OK (every pair passed), PP_EXIT_FAIL,
 * PP_EXIT_USAGE (the launcher's environment or the options do not add
 * up) or PP_EXIT_INTR.
 */
int pp_mesh_main(struct pp_opts *o);

/**
 * pp_mesh_pair_bound_ms() - how long rank 0 lets a pair of this run take:
 * 6 x -T, and the run: -D seconds, or each iteration (warm-up included)
 * 1 ms and its bytes each way at 100 MB/s; times 24 sizes with -a
 * (docs/mesh.md)
 * @o: the options of the mesh
 *
 * Return: milliseconds, at most UINT32_MAX / 2.
 */
uint32_t pp_mesh_pair_bound_ms(const struct pp_opts *o);

#endif /* PP_MESH_H */
