/* SPDX-License-Identifier: MIT */
/*
 * pp_probe_run.h - --probe (rc_pingpong, client side): which GID pairs and
 * MTUs work toward a server, in one table.
 *
 *   1. the query: one connection whose HELLO asks for the server's GID
 *      table (PP_F_GIDS); the answer also gives the server's automatic GID
 *      and active MTU; the client closes after GIDS;
 *   2. the plan: every compatible pair of the two tables times every MTU
 *      from 256 to the lower active MTU (pp_probe.h's rules), and its
 *      length, printed first;
 *   3. one row per pair and MTU: a short RC session with -c (-n 20 unless
 *      -n is given), this side's GID by -g, the server's by peer_gid_index
 *      in HELLO, each step waiting at most PP_PROBE_STEP_MS; the row runs in
 *      a child process, stopped when it has not ended within
 *      PP_PROBE_ROW_MS, so a row is bounded whatever hangs;
 *   4. the table (or with --json one document): each row ok with the
 *      median round trip, or the step that failed and why; the pair and
 *      MTU that the automatic choice takes are marked "auto".
 *
 * The server needs nothing but --persistent: each row is one client.
 */
#ifndef PP_PROBE_RUN_H
#define PP_PROBE_RUN_H

#include "pp_opts.h"

/**
 * pp_probe_main() - run --probe toward @o->host and print the table
 * @o: the parsed options (--probe given, a host)
 *
 * Return: an exit status: PP_EXIT_OK when every row ran (whatever its
 * result), PP_EXIT_FAIL when the probe could not run (no server, no RoCE
 * GID, a server that is not --persistent), PP_EXIT_INTR on SIGINT.
 */
int pp_probe_main(struct pp_opts *o);

#endif /* PP_PROBE_RUN_H */
