// SPDX-License-Identifier: MIT
/*
 * test_pattern.c - the data pattern of -c (pp_pattern.h): what is written
 * is what is checked, one byte off is found at its offset, the two sides
 * and successive messages differ; and the write flag the receiver of an
 * RDMA Write polls for.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "pp_pattern.h"

#define LEN 5000 /* past a 256-byte step and a page */

START_TEST(fill_then_check)
{
	static uint8_t buf[LEN];
	size_t off = 12345, i;

	pp_pattern_fill(buf, LEN, 41, false);
	ck_assert(pp_pattern_check(buf, LEN, 41, false, &off));
	ck_assert_uint_eq(off, 12345); /* untouched when it matches */
	for (i = 0; i < LEN; i++)
		ck_assert_uint_eq(buf[i], pp_pattern_byte(i, 41, false));
	/* the other side's, or the next message's, is not this one */
	ck_assert(!pp_pattern_check(buf, LEN, 41, true, &off));
	ck_assert_uint_eq(off, 0);
	ck_assert(!pp_pattern_check(buf, LEN, 42, false, &off));
	ck_assert_uint_eq(off, 0);
	ck_assert(pp_pattern_check(buf, 0, 42, true, &off)); /* nothing */
}
END_TEST

/* One byte changed anywhere is found, at its own offset. */
START_TEST(one_byte_off)
{
	static const size_t at[] = { 0, 1, 255, 256, 4095, LEN - 1 };
	static uint8_t buf[LEN];
	size_t k, off;

	for (k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		pp_pattern_fill(buf, LEN, 7, true);
		buf[at[k]] ^= 0x10;
		off = SIZE_MAX;
		ck_assert(!pp_pattern_check(buf, LEN, 7, true, &off));
		ck_assert_uint_eq(off, at[k]);
	}
}
END_TEST

/* The byte a write's receiver polls for: never 0, never the last one's. */
START_TEST(write_flag)
{
	static const uint64_t sizes[] = { 1, 2, 255, 256, 4096, 1 << 20 };
	size_t i;
	uint32_t seq;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (seq = 0; seq < 600; seq++) {
			uint8_t f = pp_write_flag(sizes[i], seq, seq & 1);

			ck_assert_uint_ne(f, 0);
			ck_assert_uint_ne(f, pp_write_flag(sizes[i], seq + 1,
							   seq & 1));
		}
		/*
		 * the flag is the pattern's last byte, 0x80 where that is 0,
		 * on either side and for every message (pp_write_flag_at()
		 * adds the message number to message 0's byte)
		 */
		for (seq = 0; seq < 600; seq++) {
			uint8_t b = pp_pattern_byte(sizes[i] - 1, seq, seq & 2);

			ck_assert_uint_eq(pp_write_flag(sizes[i], seq, seq & 2),
					  b ? b : 0x80);
		}
	}
}
END_TEST

static Suite *pattern_suite(void)
{
	Suite *s = suite_create("pattern");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, fill_then_check);
	tcase_add_test(tc, one_byte_off);
	tcase_add_test(tc, write_flag);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(pattern_suite)
