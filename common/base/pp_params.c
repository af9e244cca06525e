// SPDX-License-Identifier: MIT
/*
 * pp_params.c - what the parameter list needs besides its lines.
 */
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
