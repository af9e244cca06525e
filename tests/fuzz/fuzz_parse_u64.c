// SPDX-License-Identifier: MIT
/*
 * fuzz_parse_u64.c - libFuzzer harness of pp_parse_u64(), against a model.
 *
 * Input: byte 0 selects the call (bit 0: suffixes allowed; bits 1..3: one of
 * the bounds in @bounds, those of the option table and the extremes), the
 * rest, up to its first NUL, is the text, in an allocation of its own so
 * that AddressSanitizer sees any read past its end.
 *
 * The model re-derives the documented grammar with strtoull(): decimal or
 * 0x/0X hex digits, then (when allowed) one K/M/G suffix, in either case,
 * nothing else; ERANGE on overflow or outside [min, max].  pp_parse_u64()
 * must agree with it on the return value and on the number, and leave @out
 * alone on failure; abort() otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	uint64_t min, max;
} bounds[] = {
	{ 0, UINT64_MAX },
	{ 1, 65535 },
	{ PP_MIN_SIZE, PP_MAX_SIZE },
	{ 1, PP_MAX_ITERS },
	{ 0, PP_MAX_SL },
	{ 1, PP_MAX_RX_DEPTH },
	{ 256, 4096 },
	{ UINT64_MAX, UINT64_MAX },
};

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void fail(const char *text, const char *what)
{
	fprintf(stderr, "fuzz_parse_u64: '%s': %s\n", text, what);
	abort();
}

static int model(const char *s, bool suffixes, uint64_t min, uint64_t max,
		 uint64_t *out)
{
	const char *digits = "0123456789";
	unsigned long long v;
	uint64_t mult = 1;
	const char *p = s;
	char *span, *end;
	size_t n;
	int base = 10, err;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		digits = "0123456789abcdefABCDEF";
		base = 16;
		p += 2;
	}
	n = strspn(p, digits);
	if (!n)
		return EINVAL;
	if (p[n]) {
		if (!suffixes || p[n + 1])
			return EINVAL;
		switch (p[n]) {
		case 'k':
		case 'K':
			mult = 1ULL << 10;
			break;
		case 'm':
		case 'M':
			mult = 1ULL << 20;
			break;
		case 'g':
		case 'G':
			mult = 1ULL << 30;
			break;
		default:
			return EINVAL;
		}
	}
	span = strndup(p, n);
	if (!span)
		abort();
	errno = 0;
	v = strtoull(span, &end, base);
	err = errno;
	if (*end)
		fail(s, "model: strtoull stopped early");
	free(span);
	if (err == ERANGE || __builtin_mul_overflow(v, mult, &v))
		return ERANGE;
	if (v < min || v > max)
		return ERANGE;
	*out = v;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t min, max, got = SENTINEL, want = SENTINEL;
	bool suffixes;
	int ret, ref;
	char *s;

	if (size < 1)
		return 0;
	suffixes = data[0] & 1;
	min = bounds[(data[0] >> 1) & 7].min;
	max = bounds[(data[0] >> 1) & 7].max;
	s = strndup((const char *)data + 1, size - 1);
	if (!s)
		return 0;

	ret = pp_parse_u64(s, suffixes, min, max, &got);
	ref = model(s, suffixes, min, max, &want);
	if (ret != 0 && ret != EINVAL && ret != ERANGE)
		fail(s, "undocumented errno");
	if (ret != ref) {
		fprintf(stderr, "fuzz_parse_u64: returned %d, model %d\n", ret,
			ref);
		fail(s, "return value differs from the model");
	}
	if (got != want)
		fail(s, ret ? "out written on failure" : "value differs");
	if (!ret && (got < min || got > max))
		fail(s, "value outside [min, max]");
	free(s);
	return 0;
}
