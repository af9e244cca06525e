// SPDX-License-Identifier: MIT
/*
 * fuzz_mesh_wire.c - libFuzzer harness of the decoder of the mesh's records
 * at rank 0 (pp_mesh_wire.h): what a rank, or anyone connecting to rank 0's
 * port, sends; and what a rank hears from whoever poses as rank 0.
 *
 * Input: byte 0 selects the record type (modulo 8: 0 feeds the bytes to the
 * header check instead); the rest is the body, in an allocation of exactly
 * that size so that AddressSanitizer sees any read past it.
 *
 * Invariants checked (abort() when one fails):
 * - a failure is EPROTO;
 * - a decoded record re-encodes to the very same body (the encoding is
 *   canonical), and a RESULT's document lies inside the body;
 * - a header accepted names a known type and a length within the limit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_mesh_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_mesh_wire: invariant broken: %s\n", what);
	abort();
}

static void header(const uint8_t *b, size_t len)
{
	uint16_t type;
	uint32_t blen;

	if (len < PP_MESH_WIRE_HDR)
		return;
	if (pp_mesh_wire_header(b, &type, &blen))
		return;
	if (type < PP_MESH_JOIN || type > PP_MESH_END ||
	    blen > PP_MESH_WIRE_MAX)
		fail("a header accepted out of range");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pp_mesh_msg m;
	static uint8_t out[PP_MESH_WIRE_HDR + 70000];
	uint16_t type;
	uint8_t *body;
	size_t len, n;
	int ret;

	if (size < 1)
		return 0;
	len = size - 1;
	body = malloc(len ? len : 1);
	if (!body)
		return 0;
	memcpy(body, data + 1, len);
	type = data[0] % 8;
	if (!type) {
		header(body, len);
		free(body);
		return 0;
	}
	ret = pp_mesh_wire_decode(type, body, len, &m);
	if (ret) {
		if (ret != EPROTO)
			fail("undocumented errno");
		free(body);
		return 0;
	}
	if (type == PP_MESH_RESULT &&
	    (m.u.result.doc_len > len ||
	     (m.u.result.doc_len &&
	      ((const uint8_t *)m.u.result.doc < body ||
	       (const uint8_t *)m.u.result.doc + m.u.result.doc_len >
		       body + len))))
		fail("the document lies outside the body");
	if (pp_mesh_wire_encode(&m, out, sizeof(out), &n))
		fail("a decoded record does not encode");
	if (n != len + PP_MESH_WIRE_HDR ||
	    memcmp(out + PP_MESH_WIRE_HDR, body, len))
		fail("the re-encoded body differs");
	free(body);
	return 0;
}
