/* SPDX-License-Identifier: MIT */
/*
 * pp_probe.h - --probe's rules: which GID pairs and MTUs a probe tries, and
 * what a failed row's step was.  Pure functions over GID tables (struct
 * pp_gid_entry: the local one read from the port, the server's from its
 * GIDS message), tested in tests/unit/test_probe.c; the probe itself (the
 * query, one short RC session per row, the table, the JSON document) is
 * pp_probe_run.h's.
 *
 * The pairing rules (docs/probe.md):
 *
 *   - only RoCE GIDs (v1 or v2), populated, on both sides;
 *   - the same GID type: RoCE v1 and v2 are different frames;
 *   - the same address family: IPv4 with IPv4, IPv6 with IPv6, and an
 *     IPv6 link-local GID (fe80::/10) only with a link-local one (it
 *     reaches only its own link, and a global source toward a link-local
 *     destination is not routed);
 *   - no subnet rule: a GID table carries no prefix length, so a pair whose
 *     addresses are in different subnets is tried, and its row says where
 *     it fails (RTR: no route; first completion: retry exceeded).
 *
 * Rows: every compatible pair, local index ascending then remote index
 * ascending, times every IB MTU from 256 up to the lower of the two ports'
 * active MTUs, ascending.
 */
#ifndef PP_PROBE_H
#define PP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_gid.h"

#define PP_PROBE_MTUS 5	       /* 256, 512, 1024, 2048, 4096 */
#define PP_PROBE_ITERS 20      /* -n of a row unless -n is given */
#define PP_PROBE_STEP_MS 1500  /* each step of a row waits this long */
#define PP_PROBE_ROW_MS 4000   /* a row that has not ended is stopped */
#define PP_PROBE_MAX_ROWS 1024 /* pairs x MTUs, at most */

/* Where a row ended. */
enum pp_probe_step {
	PP_PROBE_OK = 0,	/* every round trip completed, data checked */
	PP_PROBE_HANDSHAKE = 1, /* connect, HELLO, ADDRS or READY */
	PP_PROBE_RTR = 2,	/* a QP's move to RTR (here or on the server) */
	PP_PROBE_RTS = 3,	/* a QP's move to RTS */
	PP_PROBE_FIRST = 4,	/* the first completion failed or never came */
	PP_PROBE_RUN = 5,	/* a later completion */
	PP_PROBE_DATA = 6,	/* -c found a mismatch */
	PP_PROBE_DEADLINE = 7,	/* the row did not end within its bound */
};

/* One pair of GIDs, as indexes into the two tables given to the rules. */
struct pp_probe_pair {
	int local;  /* position in the local table */
	int remote; /* position in the remote table */
};

/**
 * pp_probe_compatible() - may a probe pair these two GIDs?
 * @local: a local GID
 * @remote: a GID of the server's port
 *
 * Return: true when both are populated RoCE GIDs of the same type and the
 * same family (the rules at the top of this header).
 */
bool pp_probe_compatible(const struct pp_gid_entry *local,
			 const struct pp_gid_entry *remote);

/**
 * pp_probe_pairs() - every compatible pair of two GID tables, in row order
 * @loc: the local table (any order; empty slots skipped)
 * @nl: entries in @loc
 * @rem: the server's table
 * @nr: entries in @rem
 * @out: the pairs, by position in @loc and @rem, local index ascending then
 *       remote index ascending
 * @max: room in @out
 *
 * Return: the number of pairs written (at most @max).
 */
size_t pp_probe_pairs(const struct pp_gid_entry *loc, int nl,
		      const struct pp_gid_entry *rem, int nr,
		      struct pp_probe_pair *out, size_t max);

/**
 * pp_probe_mtus() - the MTUs a probe tries: 256 up to the lower active MTU
 * @local_active: this port's active MTU in bytes (0: not known)
 * @remote_active: the server port's active MTU (0: not known)
 * @out: room for PP_PROBE_MTUS values, ascending
 *
 * Return: the number of MTUs (0 when neither side's MTU is known or the
 * lower one is below 256).
 */
size_t pp_probe_mtus(uint32_t local_active, uint32_t remote_active,
		     uint32_t *out);

/**
 * pp_probe_step_of() - the step at which a row's session failed
 * @phase: 0 connect/HELLO, 1 setup (resources, ADDRS, RTR, RTS, READY),
 *         2 the run
 * @ret: the errno the session step returned (EILSEQ: a data mismatch)
 * @msg: its error line, this side's or the server's (pp_qp_modify()'s
 *       "modify QP 0x000011 to RTR failed: ...")
 * @completed: round trips completed before the failure
 *
 * Return: the step; PP_PROBE_OK for @ret 0.
 */
enum pp_probe_step pp_probe_step_of(int phase, int ret, const char *msg,
				    uint64_t completed);

/**
 * pp_probe_step_name() - "ok", "handshake", "RTR", "RTS", "first
 * completion", "run", "data check" or "row deadline"
 * @step: enum pp_probe_step
 */
const char *pp_probe_step_name(enum pp_probe_step step);

/**
 * pp_probe_try_again() - whether a row that failed at @step is run once more
 * before it is reported failed
 * @step: where the first try ended
 *
 * Only a loss looks like a broken path by chance: the first completion that
 * never came or a later one that failed.  A refusal (handshake, RTR, RTS),
 * a data mismatch and a row that hit its deadline end the same way twice.
 */
bool pp_probe_try_again(enum pp_probe_step step);

/*
 * The failure reasons of a probe's table, each printed once below it: a row
 * gives its reason's code ("E1"), the same for every row that failed for the
 * same reason.  Reasons that differ only in hexadecimal numbers (a QPN, a
 * vendor error) are the same reason; they are kept with those numbers
 * written "0x...".
 */
#define PP_PROBE_NOTES 32
#define PP_PROBE_NOTE_LEN 640

struct pp_probe_notes {
	size_t n;
	char text[PP_PROBE_NOTES][PP_PROBE_NOTE_LEN];
};

/**
 * pp_probe_note() - the code of a failure reason, added to @notes if new
 * @notes: the reasons so far (zeroed before the first call)
 * @reason: a row's reason, as its session gave it
 *
 * Return: the reason's code, 1 for the first distinct reason and so on; 0
 * when @notes is full and @reason is not in it (the row then prints the
 * reason itself).
 */
size_t pp_probe_note(struct pp_probe_notes *notes, const char *reason);

#endif /* PP_PROBE_H */
