/* SPDX-License-Identifier: MIT */
/*
 * pp_op.h - the operation of a run (--op): Send, RDMA Write (with or
 * without immediate), RDMA Read, fetch-and-add, compare-and-swap.  Pure
 * facts and rules, one table (pp_op.c): the names, which transports allow
 * which operation (the transports' .ops bits), the size an operation takes,
 * and exactly the access a side's MR and QP need for it.
 *
 * What a round trip is, for each (docs/measurement.md):
 *   send       the client sends, the server's receive completes and it
 *              sends back (the ping-pong of rdma-core's examples)
 *   write      each side writes the peer's buffer and polls its own
 *              buffer's last byte for the peer's write (ib_write_lat); no
 *              receive is posted
 *   write-imm  the same writes; each carries the iteration as immediate data
 *              and the peer learns of it from a receive completion
 *   read       the client reads the server's buffer and waits for the
 *              completion (ib_read_lat); the server's CPU takes no part
 *   fetch-add, cmp-swap  the client's atomic on the server's aligned 8-byte
 *              word, and its completion; the values returned are checked
 */
#ifndef PP_OP_H
#define PP_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Values travel on the wire (HELLO byte 56): append, never renumber. */
enum pp_op {
	PP_OP_SEND = 0,
	PP_OP_WRITE = 1,
	PP_OP_WRITE_IMM = 2,
	PP_OP_READ = 3,
	PP_OP_FETCH_ADD = 4,
	PP_OP_CMP_SWAP = 5,
};

#define PP_OP_LAST PP_OP_CMP_SWAP
#define PP_OP_ATOMIC_SIZE 8U   /* an atomic works on one aligned 8-byte word */
#define PP_OP_FETCH_ADD_ADD 3U /* the addend of every fetch-and-add */

/**
 * pp_op_name() - "send", "write", "write-imm", "read", "fetch-add",
 * "cmp-swap"
 * @op: any value (from the wire, too)
 *
 * Return: a static string; "unknown" outside the enum.
 */
const char *pp_op_name(uint64_t op);

/**
 * pp_op_parse() - the operation a word names
 * @word: "send", "write", ... (pp_op_name())
 * @op: set on success
 *
 * Return: 0, or EINVAL for any other word.
 */
int pp_op_parse(const char *word, enum pp_op *op);

/**
 * pp_op_list() - the names of every operation: "send, write, ..., cmp-swap"
 */
const char *pp_op_list(void);

/* The operation is Read or an atomic: the client's request and the
 * server's response, no message from the server. */
bool pp_op_client_only(enum pp_op op);

/* The operation is an atomic: fetch-and-add or compare-and-swap. */
bool pp_op_atomic(enum pp_op op);

/* The peer learns of a message from a receive completion: send, write-imm */
bool pp_op_uses_recv(enum pp_op op);

/* The peer learns of it by polling its buffer: write (no event to wait on) */
bool pp_op_polls_memory(enum pp_op op);

/* The operation reaches the peer's memory: rkey and address in ADDRS. */
bool pp_op_remote(enum pp_op op);

/**
 * pp_op_mr_access() - the access flags of a side's MR for @op, no more
 * @op: the operation
 * @is_server: which side
 *
 * Send: local write (receives land there).  Write, write-imm: local and
 * remote write on both sides (each writes the other's buffer).  Read: the
 * client's buffer takes the data (local write); the server's is read
 * (remote read only: it receives nothing).  Atomics: the client's buffer
 * takes the old value (local write); the server's word is the target
 * (remote atomic, which needs local write too, ibv_reg_mr(3)).
 *
 * Return: IBV_ACCESS_* bits.
 */
unsigned int pp_op_mr_access(enum pp_op op, bool is_server);

/**
 * pp_op_qp_access() - the QP's qp_access_flags (INIT) for @op: what the
 * peer may do to this side's memory through this QP
 * @op: the operation
 * @is_server: which side
 *
 * Return: IBV_ACCESS_REMOTE_* bits; 0 for send, and on the client of read
 * and atomics (nobody reads it).
 */
unsigned int pp_op_qp_access(enum pp_op op, bool is_server);

/**
 * pp_op_rd_atomic() - max_rd_atomic (@responder false: Reads and atomics
 * this QP may have outstanding as requester, RTS) or max_dest_rd_atomic
 * (@responder true: as responder, RTR)
 * @op: the operation
 * @is_server: which side
 * @responder: which of the two attributes
 *
 * Return: 1 on the client as requester and on the server as responder of
 * read and atomics (one at a time: a ping-pong); else 0.
 */
uint8_t pp_op_rd_atomic(enum pp_op op, bool is_server, bool responder);

/**
 * pp_op_atomic_old() - the value the client's atomic @k must return
 * @op: PP_OP_FETCH_ADD or PP_OP_CMP_SWAP
 * @k: the atomic's number (0, 1, ... counted from the first of the run,
 *     warm-up included)
 *
 * The server's word starts at 0.  Fetch-and-add: each adds
 * PP_OP_FETCH_ADD_ADD, so atomic @k finds @k times the addend.
 * Compare-and-swap: a chain (pp_op_cmp_swap_next()), so atomic @k finds the
 * value atomic @k - 1 swapped in (0 for the first).
 *
 * Return: the old value; pp_op_atomic_word(@op, @k).
 */
uint64_t pp_op_atomic_old(enum pp_op op, uint64_t k);

/**
 * pp_op_atomic_word() - what the server's word holds after @n atomics
 * @op: PP_OP_FETCH_ADD or PP_OP_CMP_SWAP
 * @n: how many completed
 *
 * Return: @n times the addend (fetch-and-add); the value compare-and-swap
 * @n - 1 swapped in, 0 for @n 0.
 */
uint64_t pp_op_atomic_word(enum pp_op op, uint64_t n);

/**
 * pp_op_cmp_swap_next() - compare-and-swap @k of the chain: what it compares
 * with and what it swaps in
 * @k: the atomic's number, from 0
 * @compare: the value the word holds before it (0 for the first)
 * @swap: the value it leaves
 *
 * A chain: each swap's value is the next one's compare, so every swap
 * succeeds, and the old value returned must equal @compare.
 */
void pp_op_cmp_swap_next(uint64_t k, uint64_t *compare, uint64_t *swap);

#endif /* PP_OP_H */
