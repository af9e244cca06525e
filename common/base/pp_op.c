// SPDX-License-Identifier: MIT
/*
 * pp_op.c - the operations: names, the rules of each transport, and the
 * access each side needs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pp_op.h"

static const char *const names[] = {
	[PP_OP_SEND] = "send",		 [PP_OP_WRITE] = "write",
	[PP_OP_WRITE_IMM] = "write-imm", [PP_OP_READ] = "read",
	[PP_OP_FETCH_ADD] = "fetch-add", [PP_OP_CMP_SWAP] = "cmp-swap",
};

const char *pp_op_name(uint64_t op)
{
	return op <= PP_OP_LAST ? names[op] : "unknown";
}

int pp_op_parse(const char *word, enum pp_op *op)
{
	unsigned int i;

	for (i = 0; word && i <= PP_OP_LAST; i++) {
		if (!strcmp(word, names[i])) {
			*op = (enum pp_op)i;
			return 0;
		}
	}
	return EINVAL;
}

const char *pp_op_list(void)
{
	return "send, write, write-imm, read, fetch-add or cmp-swap";
}

bool pp_op_atomic(enum pp_op op)
{
	return op == PP_OP_FETCH_ADD || op == PP_OP_CMP_SWAP;
}

bool pp_op_client_only(enum pp_op op)
{
	return op == PP_OP_READ || pp_op_atomic(op);
}

bool pp_op_uses_recv(enum pp_op op)
{
	return op == PP_OP_SEND || op == PP_OP_WRITE_IMM;
}

bool pp_op_polls_memory(enum pp_op op)
{
	return op == PP_OP_WRITE;
}

bool pp_op_remote(enum pp_op op)
{
	return op != PP_OP_SEND;
}

unsigned int pp_op_mr_access(enum pp_op op, bool is_server)
{
	switch (op) {
	case PP_OP_WRITE:
	case PP_OP_WRITE_IMM:
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	case PP_OP_READ:
		return is_server ? IBV_ACCESS_REMOTE_READ :
				   IBV_ACCESS_LOCAL_WRITE;
	case PP_OP_FETCH_ADD:
	case PP_OP_CMP_SWAP:
		return IBV_ACCESS_LOCAL_WRITE |
		       (is_server ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	case PP_OP_SEND:
		break;
	}
	return IBV_ACCESS_LOCAL_WRITE;
}

unsigned int pp_op_qp_access(enum pp_op op, bool is_server)
{
	switch (op) {
	case PP_OP_WRITE:
	case PP_OP_WRITE_IMM:
		return IBV_ACCESS_REMOTE_WRITE;
	case PP_OP_READ:
		return is_server ? IBV_ACCESS_REMOTE_READ : 0;
	case PP_OP_FETCH_ADD:
	case PP_OP_CMP_SWAP:
		return is_server ? IBV_ACCESS_REMOTE_ATOMIC : 0;
	case PP_OP_SEND:
		break;
	}
	return 0;
}

uint8_t pp_op_rd_atomic(enum pp_op op, bool is_server, bool responder)
{
	if (!pp_op_client_only(op))
		return 0;
	return is_server == responder ? 1 : 0;
}

/* The value the word holds after compare-and-swap @k: never 0. */
static uint64_t chain_value(uint64_t k)
{
	return (k + 1) * 0x9e3779b97f4a7c15ULL;
}

void pp_op_cmp_swap_next(uint64_t k, uint64_t *compare, uint64_t *swap)
{
	*compare = k ? chain_value(k - 1) : 0;
	*swap = chain_value(k);
}

uint64_t pp_op_atomic_word(enum pp_op op, uint64_t n)
{
	if (op == PP_OP_CMP_SWAP)
		return n ? chain_value(n - 1) : 0;
	return n * PP_OP_FETCH_ADD_ADD;
}

uint64_t pp_op_atomic_old(enum pp_op op, uint64_t k)
{
	return pp_op_atomic_word(op, k);
}
