/* SPDX-License-Identifier: MIT */
/*
 * pp_run_general.h - the general loops, the client's and the server's, of
 * ours and of the stock variant (every QP count, -c, -e, --interval; the
 * lean loop, pp_run_fast.h, where it fits), and our loop variant.
 */
#ifndef PP_RUN_GENERAL_H
#define PP_RUN_GENERAL_H

#include "pp_run_loop.h"

/*
 * Ours: every message carries its number as immediate data; -c is our
 * pattern (pp_pattern_fill()); the hooks are pp_run_wc.h's, the loops
 * these.
 */
extern const struct pp_run_loop pp_run_loop_ours;

/**
 * pp_run_client_loop() - the client's loop: send, await the reply, measure
 * (the lean one where pp_run_fast_fits())
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_client_loop(struct run *s);

/**
 * pp_run_server_loop() - the server's loop: reply to each message (the
 * lean one where pp_run_fast_fits())
 * @s: the run
 *
 * Return: 0 or an error with @s->err set.
 */
int pp_run_server_loop(struct run *s);

#endif /* PP_RUN_GENERAL_H */
