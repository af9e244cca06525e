// SPDX-License-Identifier: MIT
/*
 * test_op.c - the operations (pp_op.h): names, each transport's rule, the
 * exact access each side's MR and QP get, the Read/atomic depths, the
 * atomics' expected values.
 */
#include <check.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_op.h"

START_TEST(names_round_trip)
{
	enum pp_op op;
	unsigned int i;

	for (i = 0; i <= PP_OP_LAST; i++) {
		ck_assert_int_eq(pp_op_parse(pp_op_name(i), &op), 0);
		ck_assert_uint_eq(op, i);
		ck_assert_ptr_nonnull(strstr(pp_op_list(), pp_op_name(i)));
	}
	ck_assert_str_eq(pp_op_name(PP_OP_WRITE_IMM), "write-imm");
	ck_assert_str_eq(pp_op_name(PP_OP_CMP_SWAP), "cmp-swap");
	ck_assert_str_eq(pp_op_name(PP_OP_LAST + 1), "unknown");
	ck_assert_int_eq(pp_op_parse("Write", &op), EINVAL);
	ck_assert_int_eq(pp_op_parse("", &op), EINVAL);
	ck_assert_int_eq(pp_op_parse(NULL, &op), EINVAL);
}
END_TEST

/* Which transport allows which operation: the table. */
/* Exactly the access each side needs: the "no more". */
START_TEST(access_flags)
{
	static const struct {
		enum pp_op op;
		unsigned int mr_client, mr_server, qp_client, qp_server;
	} rows[] = {
		{ PP_OP_SEND, IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE, 0,
		  0 },
		{ PP_OP_WRITE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		  IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE },
		{ PP_OP_WRITE_IMM,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		  IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE },
		{ PP_OP_READ, IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_READ, 0,
		  IBV_ACCESS_REMOTE_READ },
		{ PP_OP_FETCH_ADD, IBV_ACCESS_LOCAL_WRITE,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, 0,
		  IBV_ACCESS_REMOTE_ATOMIC },
		{ PP_OP_CMP_SWAP, IBV_ACCESS_LOCAL_WRITE,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, 0,
		  IBV_ACCESS_REMOTE_ATOMIC },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_uint_eq(pp_op_mr_access(rows[i].op, false),
				  rows[i].mr_client);
		ck_assert_uint_eq(pp_op_mr_access(rows[i].op, true),
				  rows[i].mr_server);
		ck_assert_uint_eq(pp_op_qp_access(rows[i].op, false),
				  rows[i].qp_client);
		ck_assert_uint_eq(pp_op_qp_access(rows[i].op, true),
				  rows[i].qp_server);
		/* the peer reaches this side exactly when the QP lets it */
		ck_assert_uint_eq(pp_op_qp_access(rows[i].op, true) != 0,
				  pp_op_remote(rows[i].op));
	}
}
END_TEST

START_TEST(rd_atomic_depths)
{
	unsigned int op;

	for (op = 0; op <= PP_OP_LAST; op++) {
		bool req = pp_op_client_only(op);

		/* the client requests, the server responds; nobody else */
		ck_assert_uint_eq(pp_op_rd_atomic(op, false, false), req);
		ck_assert_uint_eq(pp_op_rd_atomic(op, true, true), req);
		ck_assert_uint_eq(pp_op_rd_atomic(op, false, true), 0);
		ck_assert_uint_eq(pp_op_rd_atomic(op, true, false), 0);
	}
	ck_assert(pp_op_client_only(PP_OP_READ));
	ck_assert(!pp_op_client_only(PP_OP_WRITE));
	ck_assert(pp_op_uses_recv(PP_OP_WRITE_IMM));
	ck_assert(!pp_op_uses_recv(PP_OP_WRITE));
	ck_assert(pp_op_polls_memory(PP_OP_WRITE));
	ck_assert(!pp_op_polls_memory(PP_OP_WRITE_IMM));
}
END_TEST

/* N fetch-adds: each finds the sum so far; the word ends at N * addend. */
START_TEST(fetch_add_values)
{
	uint64_t word = 0, k;

	for (k = 0; k < 1000; k++) {
		ck_assert_uint_eq(pp_op_atomic_old(PP_OP_FETCH_ADD, k), word);
		word += PP_OP_FETCH_ADD_ADD;
	}
	ck_assert_uint_eq(word, 1000 * PP_OP_FETCH_ADD_ADD);
	ck_assert_uint_eq(pp_op_atomic_word(PP_OP_FETCH_ADD, 1000), word);
}
END_TEST

/* A chain of compare-and-swaps: each compares with what the last left. */
START_TEST(cmp_swap_chain)
{
	uint64_t word = 0, compare, swap, k, prev_swap = 0;

	for (k = 0; k < 1000; k++) {
		pp_op_cmp_swap_next(k, &compare, &swap);
		ck_assert_uint_eq(compare, word); /* the old value returned */
		ck_assert_uint_eq(pp_op_atomic_old(PP_OP_CMP_SWAP, k), word);
		ck_assert_uint_eq(compare, prev_swap);
		ck_assert_uint_ne(swap, compare);
		ck_assert_uint_ne(swap, 0);
		word = swap;
		prev_swap = swap;
	}
}
END_TEST

/*
 * The lean loop's stepping (pp_run_fast.c): atomic k finds k times the
 * word after one (a fetch-and-add's addend, the chain's first swap), and
 * a compare-and-swap swaps in what the next one finds.
 */
START_TEST(atomic_steps)
{
	static const enum pp_op ops[] = { PP_OP_FETCH_ADD, PP_OP_CMP_SWAP };
	uint64_t compare, swap, k, step;
	size_t o;

	for (o = 0; o < 2; o++) {
		step = pp_op_atomic_word(ops[o], 1);
		ck_assert_uint_ne(step, 0);
		for (k = 0; k < 5000; k++) {
			ck_assert_uint_eq(pp_op_atomic_old(ops[o], k),
					  k * step);
			ck_assert_uint_eq(pp_op_atomic_word(ops[o], k),
					  k * step);
		}
	}
	for (k = 0; k < 5000; k++) {
		pp_op_cmp_swap_next(k, &compare, &swap);
		ck_assert_uint_eq(swap, compare + step);
	}
}
END_TEST

static Suite *op_suite(void)
{
	Suite *s = suite_create("op");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, names_round_trip);
	tcase_add_test(tc, access_flags);
	tcase_add_test(tc, rd_atomic_depths);
	tcase_add_test(tc, fetch_add_values);
	tcase_add_test(tc, cmp_swap_chain);
	tcase_add_test(tc, atomic_steps);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(op_suite)
