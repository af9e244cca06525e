// SPDX-License-Identifier: MIT
/*
 * test_check.c - the -c data checks can fail: each operation's buffer
 * filled as its sender fills it, then one byte flipped (the first, one in
 * the middle, the last): the check must fail at that offset, and pass on
 * the intact buffer.  Send and write-imm: the whole message is the pattern
 * of its number and sender.  Write: the pattern over all but the last byte,
 * which is the flag the receiver polls for.  Read: the server's buffer,
 * the pattern of PP_READ_SEQ from the server.  Atomics: the value each one
 * returns and the word the server holds after N of them (pp_op.h); a wrong
 * word fails.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_op.h"
#include "pp_pattern.h"

static const size_t sizes[] = { 1, 2, 3, 255, 4096, 65537 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* The offsets to flip in a message of @n bytes: first, middle, last. */
static size_t flip_at(size_t n, int which)
{
	return which == 0 ? 0 : which == 1 ? n / 2 : n - 1;
}

/* Send, write-imm, read: the whole buffer is the pattern of @seq. */
static void whole(uint64_t seq, bool from_server)
{
	size_t i, off, bad;
	uint8_t *buf;
	int w;

	for (i = 0; i < NSIZES; i++) {
		buf = malloc(sizes[i]);
		ck_assert_ptr_nonnull(buf);
		pp_pattern_fill(buf, sizes[i], seq, from_server);
		bad = (size_t)-1;
		ck_assert(pp_pattern_check(buf, sizes[i], seq, from_server,
					   &bad));
		for (w = 0; w < 3; w++) {
			off = flip_at(sizes[i], w);
			buf[off] ^= 0x01;
			bad = (size_t)-1;
			ck_assert_msg(!pp_pattern_check(buf, sizes[i], seq,
							from_server, &bad),
				      "size %zu: byte %zu flipped, not seen",
				      sizes[i], off);
			ck_assert_uint_eq(bad, off);
			buf[off] ^= 0x01;
		}
		free(buf);
	}
}

START_TEST(send_one_byte)
{
	whole(0, false); /* the client's first message */
	whole(1, true);	 /* the server's reply to it */
	whole(999, false);
	whole(0xfffffffeULL, true);
}
END_TEST

START_TEST(read_one_byte)
{
	whole(PP_READ_SEQ, true);
}
END_TEST

/* Another message's data, or the other side's, is not this one's. */
START_TEST(send_wrong_message)
{
	uint8_t buf[64];
	size_t bad = (size_t)-1;

	pp_pattern_fill(buf, sizeof(buf), 7, false);
	ck_assert(!pp_pattern_check(buf, sizeof(buf), 8, false, &bad));
	ck_assert_uint_lt(bad, sizeof(buf));
	bad = (size_t)-1;
	ck_assert(!pp_pattern_check(buf, sizeof(buf), 7, true, &bad));
	ck_assert_uint_lt(bad, sizeof(buf));
	/* a buffer the sender never filled */
	memset(buf, 0, sizeof(buf));
	ck_assert(!pp_pattern_check(buf, sizeof(buf), 7, false, &bad));
}
END_TEST

/*
 * Write (pp_run_rdma.c, write_fill() and write_check()): the pattern over
 * n - 1 bytes, the flag last.  A flipped pattern byte fails the pattern
 * at its offset; a flipped last byte is not the flag.
 */
START_TEST(write_one_byte)
{
	size_t i, off, bad, n;
	uint64_t seq = 41;
	uint8_t *buf;
	int w;

	for (i = 0; i < NSIZES; i++) {
		n = sizes[i];
		buf = malloc(n);
		ck_assert_ptr_nonnull(buf);
		pp_pattern_fill(buf, n - 1, seq, true);
		buf[n - 1] = pp_write_flag(n, seq, true);
		ck_assert(pp_pattern_check(buf, n - 1, seq, true, &bad));
		ck_assert_uint_eq(buf[n - 1], pp_write_flag(n, seq, true));
		for (w = 0; w < 3; w++) {
			off = flip_at(n, w);
			buf[off] ^= 0x80;
			bad = (size_t)-1;
			if (off == n - 1)
				ck_assert_uint_ne(buf[n - 1],
						  pp_write_flag(n, seq, true));
			else
				ck_assert(!pp_pattern_check(buf, n - 1, seq,
							    true, &bad) &&
					  bad == off);
			buf[off] ^= 0x80;
		}
		free(buf);
	}
}
END_TEST

/*
 * Atomics: atomic k must return pp_op_atomic_old(k), and after N of them
 * the word must hold pp_op_atomic_word(N); a word one off, one bit off, or
 * the value of a neighbouring atomic is wrong.
 */
START_TEST(atomic_values)
{
	static const enum pp_op ops[] = { PP_OP_FETCH_ADD, PP_OP_CMP_SWAP };
	uint64_t k, old, word, compare, swap;
	size_t i;

	for (i = 0; i < 2; i++) {
		for (k = 0; k < 1000; k++) {
			old = pp_op_atomic_old(ops[i], k);
			word = pp_op_atomic_word(ops[i], k + 1);
			/* what atomic k returns is the word after k of them */
			ck_assert_uint_eq(old, pp_op_atomic_word(ops[i], k));
			ck_assert_uint_ne(old, word);
			ck_assert_uint_ne(old + 1, old);
			ck_assert_uint_ne(pp_op_atomic_old(ops[i], k + 1), old);
			ck_assert_uint_ne(old ^ 1, old);
		}
		ck_assert_uint_eq(pp_op_atomic_word(ops[i], 0), 0);
	}
	/* fetch-and-add k finds k times the addend */
	ck_assert_uint_eq(pp_op_atomic_old(PP_OP_FETCH_ADD, 5),
			  5 * PP_OP_FETCH_ADD_ADD);
	/* compare-and-swap k finds what k - 1 swapped in */
	for (k = 1; k < 100; k++) {
		pp_op_cmp_swap_next(k - 1, &compare, &swap);
		ck_assert_uint_eq(pp_op_atomic_old(PP_OP_CMP_SWAP, k), swap);
		pp_op_cmp_swap_next(k, &compare, &swap);
		ck_assert_uint_eq(pp_op_atomic_old(PP_OP_CMP_SWAP, k), compare);
	}
}
END_TEST

static Suite *check_suite(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("one byte");

	tcase_add_test(tc, send_one_byte);
	tcase_add_test(tc, send_wrong_message);
	tcase_add_test(tc, read_one_byte);
	tcase_add_test(tc, write_one_byte);
	tcase_add_test(tc, atomic_values);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(check_suite)
