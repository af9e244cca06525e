/* SPDX-License-Identifier: MIT */
/*
 * pp_pattern.h - the data pattern of -c (each byte a function of its offset,
 * the message number and the side that sends it) and the RDMA Write flag
 * taken from it: bytes only.
 */
#ifndef PP_PATTERN_H
#define PP_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The data the server of a read offers: pp_pattern_fill() of this message
 * number from the server, the same for every read and every size.
 */
#define PP_READ_SEQ 0U

/**
 * pp_pattern_fill() - write the data pattern of message @seq from one side
 * @buf: the message
 * @len: its size
 * @seq: the iteration
 * @from_server: which side sends it
 */
void pp_pattern_fill(uint8_t *buf, size_t len, uint64_t seq, bool from_server);

/**
 * pp_pattern_check() - does @buf hold the pattern pp_pattern_fill() wrote?
 * @buf: the message received
 * @len: its size
 * @seq: the iteration
 * @from_server: which side sent it
 * @bad_off: the first offset that differs, when it returns false
 *
 * Return: true when every byte matches.
 */
bool pp_pattern_check(const uint8_t *buf, size_t len, uint64_t seq,
		      bool from_server, size_t *bad_off);

/**
 * pp_pattern_byte() - the byte at @off of message @seq from one side
 * @off: offset in the message
 * @seq: the iteration
 * @from_server: which side sends it
 *
 * Inline: the lean Write loop computes two flags per round trip.
 */
static inline uint8_t pp_pattern_byte(size_t off, uint64_t seq,
				      bool from_server)
{
	uint64_t x = off * 7 + (off >> 8) * 13 + seq * 29 +
		     (from_server ? 101 : 0) + 1;

	return (uint8_t)x;
}

/**
 * pp_write_flag_at() - pp_write_flag() of message @seq from its first
 * message's: the pattern's byte grows by 29 a message (mod 256), so a
 * loop that writes many keeps @base and adds @seq (the lean Write loop)
 * @base: pp_pattern_byte() of the last byte of message 0, the same side
 * @seq: the message number
 *
 * Return: that byte of message @seq, or 0x80 where it is 0.
 */
static inline uint8_t pp_write_flag_at(uint8_t base, uint32_t seq)
{
	uint8_t b = (uint8_t)(base + seq * 29U);

	return b ? b : 0x80;
}

/**
 * pp_write_flag() - the last byte of RDMA Write message @seq: the receiver
 * polls for it (pp_run_rdma.c, pp_run_fast.c)
 * @size: the message size, at least 1
 * @seq: the message number
 * @from_server: which side writes it
 *
 * Return: pp_pattern_byte() of the last byte, or 0x80 where that is 0:
 * never 0 (a fresh buffer), and never the flag of @seq - 1.
 */
static inline uint8_t pp_write_flag(uint64_t size, uint32_t seq,
				    bool from_server)
{
	return pp_write_flag_at(pp_pattern_byte(size - 1, 0, from_server), seq);
}

#endif /* PP_PATTERN_H */
