// SPDX-License-Identifier: MIT
/*
 * pp_params.c - what the parameter list needs besides its lines.
 */
#include <stdio.h>

#include "pp_params.h"

bool pp_mtu_valid(uint32_t mtu)
{
	switch (mtu) {
	case 256:
	case 512:
	case 1024:
	case 2048:
	case 4096:
		return true;
	default:
		return false;
	}
}

bool pp_pkey_valid(uint64_t pkey)
{
	return pkey <= 0xffff && (pkey & PP_PKEY_PARTITION) != 0;
}

const char *pp_pkey_text(uint64_t pkey)
{
	static char buf[4][8];
	static unsigned int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "0x%04x", (unsigned int)(pkey & 0xffff));
	return b;
}
