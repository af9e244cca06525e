// SPDX-License-Identifier: MIT
/*
 * pp_pattern.c - the data pattern of -c: written and checked.
 */
#include "pp_pattern.h"

void pp_pattern_fill(uint8_t *buf, size_t len, uint64_t seq, bool from_server)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pp_pattern_byte(i, seq, from_server);
}

bool pp_pattern_check(const uint8_t *buf, size_t len, uint64_t seq,
		      bool from_server, size_t *bad_off)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != pp_pattern_byte(i, seq, from_server)) {
			*bad_off = i;
			return false;
		}
	}
	return true;
}
