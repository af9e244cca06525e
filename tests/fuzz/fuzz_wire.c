// SPDX-License-Identifier: MIT
/*
 * fuzz_wire.c - libFuzzer harness of the handshake decoder (pp_wire.h).
 *
 * The input is what a hostile peer could send: the first PP_WIRE_HDR_LEN
 * bytes are the header, the rest the body.  The body goes to
 * pp_wire_decode_body() when pp_hs_recv() would pass it on: after a header
 * that decodes, or after an EPROTONOSUPPORT header of type ERROR (the record
 * every version can read).  It is copied to a buffer of exactly the length
 * the header announces, so that AddressSanitizer sees any read past it.
 *
 * Invariants checked (abort() when one fails):
 * - a failure returns one of the documented errno values and names a reason;
 * - a decoded message re-encodes with pp_wire_encode() to the very bytes
 *   that were decoded (for another version's ERROR: all but the version).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_wire: invariant broken: %s\n", what);
	abort();
}

static void check_why(const char *why)
{
	if (!why || !*why)
		fail("a failure without a reason");
}

/* Re-encode @m and compare with the @hdr and @body it was decoded from. */
static void check_round_trip(const struct pp_hdr *hdr, const uint8_t *hdr_buf,
			     const uint8_t *body, const struct pp_msg *m)
{
	static uint8_t out[PP_WIRE_MAX_MSG];
	size_t out_len = 0;
	int ret;

	if ((unsigned int)m->type != hdr->type)
		fail("decoded type differs from the header's");
	if (pp_wire_body_len(m) != hdr->len)
		fail("pp_wire_body_len() differs from the header's length");
	ret = pp_wire_encode(m, out, sizeof(out), &out_len);
	if (ret)
		fail("a decoded message does not encode");
	if (out_len != PP_WIRE_HDR_LEN + (size_t)hdr->len)
		fail("re-encoded length differs");
	/* The version (bytes 4..5) is ours, not the peer's, for ERROR. */
	if (memcmp(out, hdr_buf, 4) ||
	    (hdr->version == PP_WIRE_VERSION &&
	     memcmp(out + 4, hdr_buf + 4, 2)) ||
	    memcmp(out + 6, hdr_buf + 6, PP_WIRE_HDR_LEN - 6))
		fail("re-encoded header differs");
	if (memcmp(out + PP_WIRE_HDR_LEN, body, hdr->len))
		fail("re-encoded body differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	struct pp_hdr hdr;
	struct pp_msg m;
	uint8_t *body;
	int ret;

	if (size < PP_WIRE_HDR_LEN)
		return 0; /* pp_hs_recv() reads the whole header or fails */

	ret = pp_wire_decode_hdr(data, &hdr, &why);
	if (ret) {
		if (ret != EPROTO && ret != EPROTONOSUPPORT && ret != EBADMSG)
			fail("pp_wire_decode_hdr: undocumented errno");
		check_why(why);
		if (ret != EPROTONOSUPPORT || hdr.type != PP_MSG_ERROR)
			return 0;
	} else if (hdr.len > PP_WIRE_MAX_BODY) {
		fail("pp_wire_decode_hdr accepted a body over PP_WIRE_MAX_BODY");
	}
	if (hdr.magic != PP_WIRE_MAGIC)
		fail("EPROTONOSUPPORT or success with a bad magic");
	if (size - PP_WIRE_HDR_LEN < hdr.len)
		return 0; /* a short body: the reader fails before decoding */

	body = malloc(hdr.len ? hdr.len : 1);
	if (!body)
		return 0;
	memcpy(body, data + PP_WIRE_HDR_LEN, hdr.len);
	memset(&m, 0xa5, sizeof(m)); /* catch fields the decoder leaves */
	why = NULL;
	ret = pp_wire_decode_body(&hdr, body, &m, &why);
	if (ret) {
		if (ret != EPROTO && ret != EPROTONOSUPPORT && ret != EBADMSG)
			fail("pp_wire_decode_body: undocumented errno");
		check_why(why);
	} else {
		check_round_trip(&hdr, data, body, &m);
		if (m.type == PP_MSG_ERROR &&
		    strlen(m.u.error.text) > PP_WIRE_TEXT_LEN)
			fail("ERROR text not NUL-terminated");
	}
	free(body);
	return 0;
}
