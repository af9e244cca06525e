// SPDX-License-Identifier: MIT
/*
 * fuzz_rdmacore.c - libFuzzer harness of the decoders of the stock rdma-core
 * records (pp_rdmacore.h): what a stock ibv_*_pingpong peer, or anyone
 * posing as one, sends.
 *
 * Input: byte 0 selects the decoder (modulo 6: address record, the 256 srq
 * records, XRC record, "done", "END", the -c check); the rest is the bytes
 * received, in an allocation of exactly that size so that AddressSanitizer
 * sees any read past it.  For the -c check, byte 1 is the page size.
 *
 * Invariants checked (abort() when one fails):
 * - a failure returns EBADMSG or EPROTO and names a reason (srq: and the
 *   faulty record, below 256);
 * - a decoded record is in range and re-encodes to the very same bytes;
 * - pp_rdmacore_chk_ok() agrees with a byte-by-byte reading of its rule,
 *   and accepts what pp_rdmacore_chk_fill() writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_rdmacore.h"

#define MAX24 0xffffffU
#define NO_REC 0xdeadbeefU

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_rdmacore: invariant broken: %s\n", what);
	abort();
}

static void check_fail(int ret, const char *why)
{
	if (ret != EBADMSG && ret != EPROTO)
		fail("undocumented errno");
	if (!why || !*why)
		fail("a failure without a reason");
}

static void check_addr(const struct pp_addr *a, bool xrc)
{
	if (a->qpn > MAX24 || a->psn > MAX24 || a->srqn > MAX24 ||
	    a->tgt_qpn > MAX24)
		fail("a decoded number above 24 bits");
	if (!xrc && (a->srqn || a->tgt_qpn))
		fail("srqn or tgt_qpn set by an address record");
}

static void one_record(const char *buf, size_t len, bool xrc)
{
	char out[PP_RDMACORE_XRC_LEN];
	const char *why = NULL;
	struct pp_addr a;
	int ret;

	ret = xrc ? pp_rdmacore_decode_xrc(buf, len, &a, &why) :
		    pp_rdmacore_decode(buf, len, &a, &why);
	if (ret) {
		check_fail(ret, why);
		return;
	}
	check_addr(&a, xrc);
	ret = xrc ? pp_rdmacore_encode_xrc(&a, out, sizeof(out)) :
		    pp_rdmacore_encode(&a, out, sizeof(out));
	if (ret)
		fail("a decoded record does not encode");
	if (memcmp(out, buf, len))
		fail("re-encoded record differs");
}

static void srq_records(const char *buf, size_t len)
{
	static struct pp_addr a[PP_RDMACORE_SRQ_RECS];
	static char out[PP_RDMACORE_SRQ_LEN];
	uint32_t count = NO_REC, bad_rec = NO_REC, i;
	const char *why = NULL;
	int ret;

	ret = pp_rdmacore_decode_srq(buf, len, a, &count, &bad_rec, &why);
	if (ret) {
		check_fail(ret, why);
		if (ret == EPROTO && bad_rec >= PP_RDMACORE_SRQ_RECS)
			fail("EPROTO without the faulty record");
		return;
	}
	if (count < 1 || count > PP_RDMACORE_SRQ_RECS)
		fail("count out of range");
	for (i = 0; i < count; i++) {
		check_addr(&a[i], false);
		if (!a[i].qpn)
			fail("a record in use with QPN 0");
	}
	if (pp_rdmacore_encode_srq(a, count, out, sizeof(out)))
		fail("decoded records do not encode");
	if (memcmp(out, buf, len))
		fail("re-encoded srq records differ");
}

static void chk(const uint8_t *buf, size_t len, size_t page)
{
	size_t bad = NO_REC, off, step = page ? page : len + 1;
	uint8_t *filled;
	bool ok;

	ok = pp_rdmacore_chk_ok(buf, len, page, &bad);
	for (off = 0; off < len; off += step)
		if (buf[off])
			break;
	if (ok != (off >= len))
		fail("chk_ok disagrees with its rule");
	if (!ok && bad != off)
		fail("chk_ok names another offset than the first bad one");

	filled = malloc(len ? len : 1);
	if (!filled)
		return;
	pp_rdmacore_chk_fill(filled, len, page);
	if (!pp_rdmacore_chk_ok(filled, len, page, &bad))
		fail("chk_ok refuses what chk_fill wrote");
	free(filled);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	size_t len, skip;
	char *buf;
	int ret;

	if (size < 1)
		return 0;
	skip = data[0] % 6 == 5 && size >= 2 ? 2 : 1;
	len = size - skip;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + skip, len);

	switch (data[0] % 6) {
	case 0:
		one_record(buf, len, false);
		break;
	case 1:
		srq_records(buf, len);
		break;
	case 2:
		one_record(buf, len, true);
		break;
	case 3:
		ret = pp_rdmacore_check_done(buf, len, &why);
		if (ret)
			check_fail(ret, why);
		else if (memcmp(buf, "done", PP_RDMACORE_DONE_LEN))
			fail("accepted a token other than \"done\"");
		break;
	case 4:
		ret = pp_rdmacore_check_end(buf, len, &why);
		if (ret)
			check_fail(ret, why);
		else if (memcmp(buf, "END", PP_RDMACORE_END_LEN))
			fail("accepted a token other than \"END\"");
		break;
	default:
		chk((const uint8_t *)buf, len, skip == 2 ? data[1] : 0);
		break;
	}
	free(buf);
	return 0;
}
