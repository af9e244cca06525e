/* SPDX-License-Identifier: MIT */
/*
 * pp_be.h - big-endian integers in byte buffers, for the codecs (pp_wire.c,
 * pp_counters.c).  Nothing is checked here: the caller owns the bounds.
 */
#ifndef PP_BE_H
#define PP_BE_H

#include <stddef.h>
#include <stdint.h>

static inline void pp_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pp_put_be32(uint8_t *p, uint32_t v)
{
	pp_put_be16(p, (uint16_t)(v >> 16));
	pp_put_be16(p + 2, (uint16_t)v);
}

static inline void pp_put_be64(uint8_t *p, uint64_t v)
{
	pp_put_be32(p, (uint32_t)(v >> 32));
	pp_put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t pp_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pp_get_be32(const uint8_t *p)
{
	return (uint32_t)pp_get_be16(p) << 16 | pp_get_be16(p + 2);
}

static inline uint64_t pp_get_be64(const uint8_t *p)
{
	return (uint64_t)pp_get_be32(p) << 32 | pp_get_be32(p + 4);
}

/* A number of @width bytes (1..8), as the parameter list's fields are. */
static inline void pp_put_be(uint8_t *p, size_t width, uint64_t v)
{
	while (width--) {
		p[width] = (uint8_t)v;
		v >>= 8;
	}
}

static inline uint64_t pp_get_be(const uint8_t *p, size_t width)
{
	uint64_t v = 0;

	while (width--)
		v = v << 8 | *p++;
	return v;
}

#endif /* PP_BE_H */
