/* SPDX-License-Identifier: MIT */
/*
 * pp_run_rdma.h - the loop variants of the one-sided operations: RDMA
 * Write polled in memory, RDMA Read, the atomics.
 */
#ifndef PP_RUN_RDMA_H
#define PP_RUN_RDMA_H

#include "pp_op.h"

struct pp_run_loop;

/**
 * pp_run_loop_of_op() - the loop variant of a one-sided operation
 * @op: the run's operation
 *
 * Write: each side polls its buffer's last byte for the peer's write.
 * Read, atomics: the client posts and waits for its completion; the server
 * waits for the client's DONE and takes no part.  Send and write-imm are
 * ours (a receive completes for each message).
 *
 * Return: the variant, or NULL for ours.
 */
const struct pp_run_loop *pp_run_loop_of_op(enum pp_op op);

#endif /* PP_RUN_RDMA_H */
